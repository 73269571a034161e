/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bspline.h: public API of the gst-bspline core (pure C99, no GLib).
 *
 * Data flows one way: parameters + a geometric transform + image geometry
 * make a plan (bspline_plan_new); an engine runs the plan on images
 * (bspline_cpu_execute here, the CUDA engine in cuda/).
 *
 * Coordinates: pixel (i, j) covers [i, i+1) x [j, j+1), centre
 * (i + 0.5, j + 0.5), x right, y down.  A transform is given as the 3x3
 * row-major matrix that maps OUTPUT pixel coordinates (u, v, 1) to INPUT
 * pixel coordinates (x, y, w) -> (x / w, y / w): the inverse map, which is
 * what resampling evaluates at every output pixel centre.  Where w <= 0
 * the pixel lies on or beyond the horizon of a perspective map: no input
 * point is seen there, and it gets params.fill whatever the boundary.
 */
#ifndef BSPLINE_H
#define BSPLINE_H

#include <stddef.h>
#include <stdint.h>
#include "bspline-api.h"
#include "bspline-math.h"
#include "bspline-stage.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  BSPLINE_OK = 0,
  BSPLINE_ERROR_INVALID_ARGUMENT = 1,   /* bad parameter, size or pointer */
  BSPLINE_ERROR_INVALID_TRANSFORM = 2,  /* non-finite or singular matrix */
  BSPLINE_ERROR_NO_MEMORY = 3,          /* allocation failed or too large */
  BSPLINE_ERROR_BACKEND = 4             /* engine failure (threads, GPU) */
} bspline_status;

typedef enum
{
  BSPLINE_PRECISION_FLOAT = 0,  /* float coefficients and arithmetic */
  BSPLINE_PRECISION_DOUBLE = 1, /* double: the reference */
  BSPLINE_PRECISION_FAST = 2,   /* GPU texture path; float on the CPU */
  BSPLINE_PRECISION_COMPACT = 3 /* float, the GPU's coefficients in 16-bit
                                 * fixed point where its bound allows
                                 * (bspline_compact_scale); float on the
                                 * CPU */
} bspline_precision;

typedef enum
{
  BSPLINE_SAMPLE_U8 = 0,
  BSPLINE_SAMPLE_U16 = 1,
  BSPLINE_SAMPLE_F32 = 2,
  BSPLINE_SAMPLE_F64 = 3
} bspline_sample_type;

#define BSPLINE_MAX_CHANNELS 4
/* Largest frame side accepted (GStreamer's caps allow up to G_MAXINT; the
 * engine refuses sides whose index arithmetic could overflow). */
#define BSPLINE_MAX_SIDE (1 << 24)

/* One image plane: width x height pixels of `channels` interleaved samples.
 * Integer samples hold code values 0 .. 2^bits - 1, stored shifted left by
 * `shift` bits (P010: bits 10, shift 6); results are rounded to nearest and
 * clamped to that range.  Float samples are used as they are. */
typedef struct
{
  void *data;
  ptrdiff_t stride;             /* bytes from one row to the next */
  int width, height;
  int channels;                 /* 1 .. 4 */
  bspline_sample_type type;
  int bits;                     /* U8: 8; U16: 1 .. 16 */
  int shift;                    /* U16 only: 0 .. 16 - bits */
} bspline_image;

/* What a map that shrinks does against aliasing. */
typedef enum
{
  BSPLINE_ANTIALIAS_NONE = 0,   /* plain interpolation at the centres */
  /* axis-aligned maps: the least-squares projection onto the spline of the
   * output grid (core/resample/reduce.c); homographies: a warp onto a finer
   * grid, then that projection; a horizon in the frame, bicubic and a lens
   * stage: as WIDEN */
  BSPLINE_ANTIALIAS_LEAST_SQUARES = 1,
  BSPLINE_ANTIALIAS_WIDEN = 2   /* the kernel widened by the shrink */
} bspline_antialias;

typedef struct
{
  bspline_method method;
  int order;                    /* 0 .. 11 for bspline */
  double bicubic_a;             /* Keys parameter, -0.5 = Catmull-Rom */
  bspline_boundary boundary;
  double fill[BSPLINE_MAX_CHANNELS];    /* constant boundary, code values */
  bspline_precision precision;
  bspline_antialias antialias;
} bspline_params;

/* The largest kernel widening used by the general (warp) sampler: a
 * perspective map can shrink without bound near its horizon, and the cost
 * of a pixel grows with the square of the widening. */
#define BSPLINE_MAX_WARP_WIDENING 8.0

/* Target relative precision of the prefilter ([BD19] Theorem 2). */
#define BSPLINE_EPSILON_DOUBLE 1e-16
#define BSPLINE_EPSILON_FLOAT 1e-8

typedef struct bspline_plan bspline_plan;
typedef struct bspline_cpu bspline_cpu;

/* Defaults: bspline order 3, a = -0.5, reflect, fill 0, float,
 * least-squares antialiasing. */
BSPLINE_API
void bspline_params_init (bspline_params * params);

/* Checks params; on error writes a message into msg (may be NULL). */
BSPLINE_API
bspline_status bspline_params_validate (const bspline_params * params,
    char *msg, size_t msg_len);

BSPLINE_API
const char *bspline_status_string (bspline_status status);

/* Bytes of one sample of a type, 0 for an unknown type. */
BSPLINE_API
size_t bspline_sample_size (bspline_sample_type type);

/* Checks an image description (sizes, channels, strides, pointer). */
BSPLINE_API
bspline_status bspline_image_validate (const bspline_image * image,
    int need_data, char *msg, size_t msg_len);

/* ---- transforms (3x3 row-major) ---- */
BSPLINE_API
void bspline_matrix_identity (double m[9]);
/* r = a * b */
BSPLINE_API
void bspline_matrix_multiply (const double a[9], const double b[9],
    double r[9]);
/* Returns 0 when m is singular or not finite. */
BSPLINE_API
int bspline_matrix_invert (const double m[9], double inv[9]);
BSPLINE_API
int bspline_matrix_is_finite (const double m[9]);

/* ---- plans ---- */
/* A plan for resampling a src_width x src_height plane into a
 * dst_width x dst_height plane with `inverse` (output pixel coords ->
 * input pixel coords).  Precomputes truncation indices, padding and, when
 * the map is an axis-aligned scale + offset, the per-row and per-column
 * taps and weights of the separable path. */
BSPLINE_API
bspline_status bspline_plan_new (const bspline_params * params,
    const double inverse[9], int src_width, int src_height,
    int dst_width, int dst_height, int channels, bspline_plan ** plan,
    char *msg, size_t msg_len);
/* As bspline_plan_new, with a lens stage after the homography (lens NULL
 * or its model BSPLINE_LENS_NONE: none): `inverse` then maps output pixel
 * coordinates to the lens's normalised coordinates, and the lens's `post`
 * takes its result to input pixel coordinates (bspline-stage.h; `fold` is
 * computed here).  Fails with BSPLINE_ERROR_INVALID_TRANSFORM where the
 * output frame needs the model beyond the radius where it folds over.
 * bspline_plan_new_chain (bspline-chain.h) with 0 or 1 stages. */
BSPLINE_API
bspline_status bspline_plan_new_lens (const bspline_params * params,
    const double inverse[9], const bspline_lens * lens, int src_width,
    int src_height, int dst_width, int dst_height, int channels,
    bspline_plan ** plan, char *msg, size_t msg_len);
BSPLINE_API
void bspline_plan_free (bspline_plan * plan);
/* 1 when the plan uses the separable (axis-aligned) path. */
BSPLINE_API
int bspline_plan_is_separable (const bspline_plan * plan);
BSPLINE_API
const bspline_params *bspline_plan_params (const bspline_plan * plan);
/* Padding of the coefficient planes for clamp/constant, 0 otherwise. */
BSPLINE_API
int bspline_plan_padding (const bspline_plan * plan);

/* ---- lens models (lens.c; the maths in bspline-stage.h) ---- */
/* "none", "brown", "fisheye". */
BSPLINE_API
const char *bspline_lens_model_name (int model);
/* How many distortion coefficients the model takes (brown 12, fisheye 4). */
BSPLINE_API
int bspline_lens_n_coeffs (int model);
/* Checks n coefficients of a model: finite, not absurdly large, at most
 * bspline_lens_n_coeffs. */
BSPLINE_API
bspline_status bspline_lens_validate_coeffs (int model, const double *k,
    int n, char *msg, size_t msg_len);
/* The input point that output pixel centre (u, v) samples under the plan
 * (its homography and lens stages, as both engines evaluate them);
 * returns 0 where it samples none (the fill). */
BSPLINE_API
int bspline_plan_map_point (const bspline_plan * plan, double u, double v,
    double *x, double *y);

/* ---- the CPU engine ---- */
/* n_threads: 0 = one per online core; at most 4 per online core and 256
 * (core/base/base.h says why), fewer where the system cannot create them:
 * bspline_cpu_n_threads says how many run. */
BSPLINE_API
bspline_cpu *bspline_cpu_new (int n_threads);
BSPLINE_API
void bspline_cpu_free (bspline_cpu * cpu);
BSPLINE_API
int bspline_cpu_n_threads (const bspline_cpu * cpu);
/* Message of the last failure of this engine. */
BSPLINE_API
const char *bspline_cpu_last_error (const bspline_cpu * cpu);

/* Resamples src into dst as planned.  src and dst must match the plan's
 * sizes and channel count; they may have different sample types. */
BSPLINE_API
bspline_status bspline_cpu_execute (bspline_cpu * cpu,
    const bspline_plan * plan, const bspline_image * src,
    const bspline_image * dst);

/* General sampler: the interpolated value of src at n_points arbitrary
 * input pixel coordinates xy[2 i], xy[2 i + 1]; out[i * channels + c].
 * Widening (antialias) is not applied: this is the plain interpolant. */
BSPLINE_API
bspline_status bspline_cpu_sample_points (bspline_cpu * cpu,
    const bspline_params * params, const bspline_image * src,
    const double *xy, size_t n_points, double *out);

#ifdef __cplusplus
}
#endif
#endif /* BSPLINE_H */
