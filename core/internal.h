/* internal.h: what the core's files share and nobody else sees. */
#ifndef BSPLINE_INTERNAL_H
#define BSPLINE_INTERNAL_H

#include "bspline.h"

#include <stddef.h>

/* ---- thread pool (threadpool.c) ---- */
typedef struct bspline_pool bspline_pool;
typedef void (*bspline_task_fn) (void *ctx, int task);

int bspline_online_cores (void);
bspline_pool *bspline_pool_new (int n_threads);
int bspline_pool_size (const bspline_pool * pool);
/* Runs fn(ctx, 0 .. n_tasks-1) on the pool and the calling thread. */
void bspline_pool_run (bspline_pool * pool, int n_tasks, bspline_task_fn fn,
    void *ctx);
void bspline_pool_free (bspline_pool * pool);

/* ---- plans (plan.c) ---- */

/* Taps and weights of one axis of the separable path: output sample j
 * reads stored coefficients index[j * n_taps + t] (already mapped through
 * the boundary) with weight weight[j * n_taps + t]. */
typedef struct
{
  int n_out;
  int n_taps;
  int *index;
  double *weight_d;
  float *weight_f;
} bspline_axis_table;

/* The prefilter of one axis: poles, their truncation indices for the
 * plan's precision, the boundary and the padding of the stored line. */
typedef struct
{
  int n_poles;
  double poles[BSPLINE_MAX_POLES];
  int truncation[BSPLINE_MAX_POLES];
  int boundary;
} bspline_prefilter_setup;

struct bspline_plan
{
  unsigned long serial;         /* unique per plan, for engines' caches */
  bspline_params params;
  double inverse[9];
  int src_width, src_height, dst_width, dst_height, channels;
  int use_double;               /* double arithmetic and storage */
  int prefilter;                /* 1 when the method needs the prefilter */
  double gain;                  /* prefilter gain of one axis, gamma^(n) */
  int pad;                      /* stored padding, clamp/constant only */
  bspline_prefilter_setup setup;
  int separable;
  bspline_axis axis_x, axis_y;  /* what evaluating each axis needs */
  bspline_axis_table x, y;      /* separable path only */
  int widen;                    /* general path: widen where it shrinks */
};

/* Coefficient storage of a plane: (width + 2 pad) x (height + 2 pad)
 * pixels of `channels` values, rows contiguous. */
typedef struct
{
  void *data;                   /* float or double */
  int width, height;            /* of the source frame */
  int pad;
  int channels;
  ptrdiff_t row_len;            /* values per stored row */
} bspline_coefficients;

/* ---- prefilter.c ---- */
/* Fills coef from src (converted, padded per the boundary) and runs the
 * 2-D prefilter when the plan asks for it, on the pool. */
void bspline_prefilter_image (bspline_pool * pool, const bspline_plan * plan,
    const bspline_image * src, const bspline_coefficients * coef);

/* ---- resample.c ---- */
/* Evaluates the plan from stored coefficients into dst.  tmp is scratch
 * for the separable path: bspline_resample_scratch_size bytes. */
size_t bspline_resample_scratch_size (const bspline_plan * plan);
void bspline_resample_image (bspline_pool * pool, const bspline_plan * plan,
    const bspline_coefficients * coef, const bspline_image * dst, void *tmp);
/* The plain interpolant at arbitrary input pixel coordinates. */
void bspline_sample_points_coef (const bspline_plan * plan,
    const bspline_coefficients * coef, const double *xy, size_t n_points,
    double *out);

void bspline_set_error (char *msg, size_t msg_len, const char *fmt, ...);

#endif /* BSPLINE_INTERNAL_H */
