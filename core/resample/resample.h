/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resample.h: the plans and the CPU engine's stages as the core's files
 * see them: the plan struct (plan.c), the point cache (point-cache.c),
 * the least-squares reductions (reduce.c), the prefilter (prefilter.c),
 * the sampling (resample.c) and the engine's thread pool (engine.c).
 *
 * Not installed.  Included by core/'s files, and by cuda/ (whose engine
 * reads the plan struct), the tests and the benchmarks; only the functions
 * marked BSPLINE_INTERNAL_API are exported to them. */
#ifndef BSPLINE_RESAMPLE_H
#define BSPLINE_RESAMPLE_H

#include "base.h"
#include "bspline-chain.h"

/* The separable path's sums in single precision are fused multiply-adds
 * in one order, w0 a0 + w1 a1 + w2 a2 + w3 a3 being
 * fma (w3, a3, fma (w2, a2, fma (w1, a1, w0 a0))), so the C loops (fmaf:
 * an instruction in the AVX2 and AVX-512 clones, a correctly rounded
 * library call in the baseline one) and the x86 kernels (vfmadd) compute
 * the same values; double sums are unfused.  MADD (a, b, c) is a b + c,
 * fused or not as FMA says. */
#define BSPLINE_SUM4(MADD, w0, a0, w1, a1, w2, a2, w3, a3) \
  MADD (w3, a3, MADD (w2, a2, MADD (w1, a1, (w0) * (a0))))
#define BSPLINE_MADD_UNFUSED(a, b, c) ((a) * (b) + (c))
/* The same sum started from b instead of 0: fma (w0, a0, b) first. */
#define BSPLINE_SUM4_FROM(MADD, b, w0, a0, w1, a1, w2, a2, w3, a3) \
  MADD (w3, a3, MADD (w2, a2, MADD (w1, a1, MADD (w0, a0, b))))
/* A step of the anticausal recursion, z (c - s): in single precision
 * fma (z, c, -(z s)), whose chain through c is one instruction. */
#define BSPLINE_ANTICAUSAL_FUSED(z, c, s) fmaf (z, c, -((z) * (s)))
#define BSPLINE_ANTICAUSAL_UNFUSED(z, c, s) ((z) * ((c) - (s)))

/* Rows of a plane are processed in groups, interleaved pixel by pixel:
 * value c of row q of a group at column x is
 * buf[x * BSPLINE_GROUP_LANES + q * channels + c].  A recursion along x
 * then runs 32 independent lanes at once (two AVX-512 vectors, two
 * dependency chains to hide the latency of each step), and a tap of a
 * resampling along x is one weight times 32 values. */
#define BSPLINE_GROUP_LANES 32

static inline int
bspline_group_rows (int channels)
{
  return BSPLINE_GROUP_LANES / channels;
}

/* The thread pool of a CPU engine (engine.c), for work beside its plans
 * (keep-border.c). */
bspline_pool *bspline_cpu_pool (bspline_cpu * cpu);
/* The coefficients that the widened pixels of the engine's last execution
 * of a lens plan read through its ripmap, the levels' making included
 * (bspline_ripmap_taps); 0 before any (for tests/core `lens-cost`). */
BSPLINE_INTERNAL_API
uint64_t bspline_cpu_lens_taps (const bspline_cpu * cpu);

/* ---- plans (plan.c) ---- */

/* Taps and weights of one axis of the separable path: output sample j
 * reads stored coefficients index[j * n_taps + t] (already mapped through
 * the boundary) with weight weight[j * n_taps + t].  first[j] is its first
 * tap before the boundary's map, in stored (padded) sample coordinates:
 * the taps are first[j] .. first[j] + n_taps - 1 of the stored line's
 * infinite extension (the GPU engine's fused passes read them there). */
typedef struct
{
  int n_out;
  int n_taps;
  int *index;
  int *first;
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

/* The least-squares reduction of an axis-aligned map (reduce.c): two
 * plans that the engines run in turn through an intermediate plane of
 * width x height values of the plan's real type. */
/* One axis of a folded reduction (fold.c): the reduction at a rational
 * ratio T = p / q as one table on the source's samples and recursions on
 * the output grid.  The input's prefilter, prod_i (1 - z_i)^2 /
 * ((1 - z_i q^-1)(1 - z_i q)) (q the shift by one sample), splits by
 * 1 / (1 - z q^-1) = (sum_(d<p) z^d q^-d) / (1 - z^p q^-p) into a
 * symmetric FIR of 2 (p - 1) + 1 taps per pole and recursions in q^p,
 * a shift by p input samples, which is a shift by q output samples: the
 * table of inner products w (reduce.c) commutes with them.  So the
 * least-squares samples along the axis are
 *   out = b^n G (prod_i R(z_i^p, q)) (w * FIR) s
 * with R(w, L) the causal and anticausal recursions c_l += w c_(l-L),
 * c_l += w c_(l+L) on the output grid (margin included), G the Gram
 * filter's recursions (lag 1) and gain, b^n its samples at the integers:
 * no pass over the source's grid but the table itself.  The table is
 * periodic: output j = q m + r (the margin's first sample being j = 0)
 * reads ext[first[r] + p m + t], t < n_taps, with weight[r * n_taps +
 * t]; ext[i] is source sample index[i] (the boundary's map of the
 * extended line's sample ext_first + i). */
#define BSPLINE_FOLD_MAX_Q 8
#define BSPLINE_FOLD_MAX_P 64
#define BSPLINE_FOLD_MAX_TAPS 64
#define BSPLINE_FOLD_MAX_ORDER 5
/* recursions of an axis: at order 5, 2 of the prefilter and 5 of the Gram
 * filter (degree 11) */
#define BSPLINE_FOLD_MAX_RECURSIONS 8
typedef struct
{
  int p, q;
  int n_out;                    /* outputs, the margin's included */
  int margin;
  int n_taps;
  int ext_first, ext_len;
  int *index;                   /* ext_len source indices */
  int first[BSPLINE_FOLD_MAX_Q];
  float *weight;                /* q x n_taps */
  int n_recursions;             /* output-grid recursions, in order */
  float pole[BSPLINE_FOLD_MAX_RECURSIONS];
  int lag[BSPLINE_FOLD_MAX_RECURSIONS];
  int half;                     /* b^n's taps: -half .. half */
  float sample[BSPLINE_MAX_DEGREE + 1]; /* b^n times the Gram gain */
  /* The output grid's filter (the recursions, then b^n) as one
   * symmetric FIR truncated where its tails sum to eps of its l1 norm
   * (at most the margin): out[j] = sum_(|m| <= fir_half) fir[fir_half +
   * m] y[j + margin + m] (the GPU engine's passes along each axis) */
  int fir_half;
  float *fir;
} bspline_fold_axis;

typedef struct
{
  bspline_fold_axis x, y;
} bspline_fold;

typedef struct
{
  int reduce_x, reduce_y;       /* axes reduced */
  int margin_x, margin_y;       /* output samples of margin on each side */
  int width, height;            /* the intermediate plane */
  bspline_plan *project;        /* source -> inner products y */
  bspline_plan *sample;         /* y -> Gram prefilter -> b^n -> output */
  /* The same reduction folded (fold.c), which the CPU engine runs
   * instead where it is not NULL: both axes reduced at a rational ratio,
   * in float, under a periodic or symmetric boundary. */
  bspline_fold *fold;
} bspline_reduction;

typedef struct bspline_point_cache bspline_point_cache;

/* Largest separable weight table (entries per axis): an extreme shrink of
 * a large output would otherwise ask for gigabytes of taps. */
#define BSPLINE_MAX_TABLE_ENTRIES (1 << 24)

struct bspline_plan
{
  unsigned long serial;         /* unique per plan, for engines' caches */
  bspline_params params;
  double inverse[9];
  int src_width, src_height, dst_width, dst_height, channels;
  int use_double;               /* double arithmetic and storage */
  int prefilter;                /* 1 when the method needs the prefilter */
  int filter_x, filter_y;       /* axes the prefilter runs along (both but
                                 * for a reduction's sample plan) */
  double gain;                  /* prefilter gain of one axis, gamma^(n) */
  double gain2;                 /* of the filtered axes together */
  int pad;                      /* stored padding, clamp/constant only */
  bspline_prefilter_setup setup;
  int separable;
  bspline_axis axis_x, axis_y;  /* what evaluating each axis needs */
  bspline_axis_table x, y;      /* separable path only */
  int widen;                    /* general path: widen where it shrinks */
  bspline_reduction *reduce;    /* separable least-squares reduction: the
                                 * engines run its two plans instead */
  /* A warp that shrinks, under least squares (reduce.c): the engines run
   * `warp` onto a grid finer than the output's by the map's least
   * footprint, into a plane of the real type, then `shrink` (a separable
   * least-squares reduction) from it to the output. */
  bspline_plan *warp, *shrink;
  /* Lens stages after the homography (bspline-stage.h), lens[0] first:
   * the general path only, `inverse` ending at lens[0]'s domain and each
   * stage's post at the next one's (bspline_plan_new_chain).  The plan
   * holds a reference to each STMap. */
  int n_lenses;
  bspline_lens lens[BSPLINE_CHAIN_MAX_LENSES];
  /* Lens plans: the input points of the output pixels, kept from the
   * second execution on (point-cache.c); NULL where there is no lens or
   * no memory for the small struct.  Mutable through a const plan, under
   * point-cache.c's protocol. */
  bspline_point_cache *points;
  /* A projection stage that reads an input atlas (core/projection/
   * atlas.h): the engines gather the frame into the atlas, then run
   * `atlas_plan` (the same geometry, on the atlas) from it instead of
   * this plan, which maps the points on the frame as it is. */
  struct bspline_atlas *atlas;
  bspline_plan *atlas_plan;
  /* An engine's copy of a lens plan that runs on the plan's window
   * (bspline_point_cache_window): its input is the window, and it reads
   * the cache's points, which are the window's; 0 in every plan made. */
  int in_window;
};

/* ---- point-cache.c ----
 *
 * A row of points of a lens plan holds, for output pixels 0 .. dst_width
 * - 1 of one row, dst_width values each of x, y (input pixel coordinates,
 * NaN where the pixel has no input point) and, where plan->widen, of the
 * kernel widening along x and along y, one after the other:
 * bspline_point_values (plan) x dst_width doubles. */
/* The most bytes of points a plan keeps (a 4K output with widening takes
 * 253 MiB). */
#define BSPLINE_POINT_CACHE_MAX_BYTES ((uint64_t) 256 << 20)
bspline_point_cache *bspline_point_cache_new (void);
void bspline_point_cache_free (bspline_point_cache * cache);
/* 2, or 4 where plan->widen. */
int bspline_point_values (const bspline_plan * plan);

/* What one execution of a lens plan gets of the plan's cache. */
typedef struct
{
  double *rows;                 /* every output row's points; NULL: none */
  unsigned char *widened;       /* per output row: bspline_point_row's
                                 * value */
  int fill;                     /* 1: this execution computes them */
} bspline_point_rows;

/* Called once per execution of a lens plan, before its rows: the plan's
 * rows of points, or rows NULL where the plan has none (first execution,
 * too large, no memory, or another execution is filling them).  fill 1:
 * this execution must compute every row into them (bspline_point_row and
 * its value into widened[i], each row by the thread that samples it) and
 * then, after the pool's join, call bspline_point_cache_filled; 0: they
 * are ready to read. */
void bspline_point_cache_begin (const bspline_plan * plan,
    bspline_point_rows * rows);
void bspline_point_cache_filled (const bspline_plan * plan);
/* 1 once the plan's rows of points are filled and read by its
 * executions (for tests/core `lens-cache`). */
BSPLINE_INTERNAL_API
int bspline_point_cache_ready (const bspline_plan * plan);
/* The levels of the ripmap (bspline-stage.h) at which a lens plan's
 * pixel of widening (widen_x, widen_y) is sampled, and the widening left
 * there. */
static inline void
bspline_lens_levels (const bspline_plan * plan, double widen_x,
    double widen_y, int *lx, int *ly, double *rest_x, double *rest_y)
{
  *lx = bspline_widening_level (widen_x,
      bspline_max_level (plan->axis_x.len), rest_x);
  *ly = bspline_widening_level (widen_y,
      bspline_max_level (plan->axis_y.len), rest_y);
}

/* 1 where such a pixel reads a level above (0, 0). */
static inline int
bspline_lens_reads_level (const bspline_plan * plan, double widen_x,
    double widen_y)
{
  double rest_x, rest_y;
  int lx, ly;
  bspline_lens_levels (plan, widen_x, widen_y, &lx, &ly, &rest_x, &rest_y);
  return lx > 0 || ly > 0;
}

/* Output row i's points (bspline_stage_footprint where plan->widen, else
 * bspline_stage_map_point, at the pixel centres) into row; returns 2
 * where a pixel of the row reads a level of the ripmap
 * (bspline_lens_reads_level), else 1 where a pixel of the row
 * has a widening other than 1, 0 where the row's widenings are all 1 (and
 * need not be read). */
BSPLINE_INTERNAL_API
int bspline_point_row (const bspline_plan * plan, int i, double *row);
/* Where the plan's cache is ready and its points read only a part of the
 * input, that part (the window: x, y, width, height in window[0 .. 3]) and
 * 1; else 0.  The filling execution (bspline_point_cache_filled) finds it:
 * the box of the taps of every output pixel (widened kernels widened),
 * widened by the sum of the prefilter's truncation indices and clipped to
 * the frame; the whole axis where a folding boundary (reflect, mirror,
 * wrap) is reached; and then keeps the points less the window's origin
 * (exact: an integer off a double below 2^52).  The engine then
 * prefilters the window only and samples it through a copy of the plan
 * with in_window set, the only plan that reads such a cache
 * (bspline_point_cache_begin gives the others no rows). */
BSPLINE_INTERNAL_API
int bspline_point_cache_window (const bspline_plan * plan, int window[4]);

/* Row i of the cache's rows. */
static inline double *
bspline_point_rows_row (const bspline_plan * plan,
    const bspline_point_rows * rows, int i)
{
  return rows->rows + (size_t) i * (size_t) bspline_point_values (plan)
      * (size_t) plan->dst_width;
}

/* A plan's fields but the tables (plan.c): the prefilter is that of
 * B-splines of degree `degree` (the order, or 2 n + 1 for a Gram filter),
 * along both axes; separable 0. */
bspline_status bspline_plan_alloc (const bspline_params * params,
    const double inverse[9], int src_width, int src_height, int dst_width,
    int dst_height, int channels, int degree, bspline_plan ** out);
/* Restricts the prefilter to the axes given (1 = filtered). */
void bspline_plan_filter_axes (bspline_plan * plan, int x, int y);
/* Allocates a table's arrays for n_out outputs of n_taps taps (weight_d
 * zeroed); the plan's free releases them. */
bspline_status bspline_axis_table_alloc (bspline_axis_table * t, int n_out,
    int n_taps);
/* The interpolation table of one axis of the separable path (plan.c):
 * output j at sample coordinate scale (j + 0.5) + offset - 0.5, the
 * kernel widened by |scale| where it shrinks and params.antialias is
 * BSPLINE_ANTIALIAS_WIDEN. */
bspline_status bspline_build_axis_table (const bspline_plan * plan,
    const bspline_axis * axis, bspline_axis_table * t, int n_out,
    double scale, double offset);

/* ---- reduce.c ---- */
/* 1 when an axis of scale `scale` (input samples per output sample) is
 * reduced by least squares under params. */
int bspline_reduction_axis (const bspline_params * params, double scale);
/* Builds plan->reduce for the axis-aligned map x = sx (u + 0.5) + ox -
 * 0.5 (likewise y); on failure plan->reduce may hold a part, which
 * bspline_plan_free frees. */
bspline_status bspline_reduction_new (bspline_plan * plan, double sx,
    double ox, double sy, double oy);
void bspline_reduction_free (bspline_reduction * reduction);
/* Describes (data NULL) a plane of width x height pixels of `channels`
 * values of the real type, rows contiguous, as the engines keep a
 * reduction's intermediate planes; returns its size in bytes. */
BSPLINE_INTERNAL_API
size_t bspline_plane_image (int use_double, int width, int height,
    int channels, bspline_image * img);
/* ---- fold.c ---- */
/* Scratch of bspline_fold_execute for n_workers threads, beside the
 * intermediate plane (bspline_fold_plane). */
size_t bspline_fold_scratch_size (const bspline_plan * plan, int n_workers);
/* The folded reduction's intermediate plane: the output grid with its
 * margins, in float. */
size_t bspline_fold_plane (const bspline_plan * plan, bspline_image * img);
/* Runs plan->reduce->fold from src into dst on the pool, through the
 * plane `inter` (bspline_fold_plane) and the scratch. */
void bspline_fold_execute (bspline_pool * pool, const bspline_plan * plan,
    const bspline_image * src, const bspline_image * dst,
    const bspline_image * inter, void *scratch);
void bspline_fold_free (bspline_fold * fold);

/* For a warp under least squares: where the map shrinks everywhere in the
 * frame, plan->shrink and plan->warp (see above); nothing where it does
 * not. */
bspline_status bspline_warp_reduction_new (bspline_plan * plan, char *msg,
    size_t msg_len);

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

/* ---- ripmap.c: the levels of a lens plan's widened kernel ----
 *
 * (bspline-stage.h, "the widened kernel of a lens plan, bounded in
 * cost").  An engine keeps one ripmap; each execution of a lens plan
 * begins it, and its workers ask for the levels their pixels read. */
typedef struct bspline_ripmap bspline_ripmap;

/* One level: its plane (the real type of the plan; level 0 the
 * coefficients themselves) and the axes that read it at coarse sample
 * coordinates (ripmap.c). */
typedef struct
{
  const void *data;
  ptrdiff_t row_len;            /* values per row */
  bspline_axis axis_x, axis_y;
} bspline_level;

bspline_ripmap *bspline_ripmap_new (void);
void bspline_ripmap_free (bspline_ripmap * r);
/* Before an execution of `plan` on `coef`: no level is made yet. */
void bspline_ripmap_begin (bspline_ripmap * r, const bspline_plan * plan,
    const bspline_coefficients * coef);
/* Level (lx, ly) into *out, made first where it is not yet; 0 where
 * there is no memory for it. */
int bspline_ripmap_level (bspline_ripmap * r, int lx, int ly,
    bspline_level * out);
/* The coefficients read since bspline_ripmap_begin by the levels made and
 * the pixels sampled from them (bspline_ripmap_count); each read of all
 * channels of one sample counts one. */
uint64_t bspline_ripmap_taps (const bspline_ripmap * r);
void bspline_ripmap_count (bspline_ripmap * r, uint64_t taps);

/* ---- the streaming separable path ----
 *
 * For an axis-aligned map whose prefilter has one pole (orders 2 and 3)
 * and a non-periodic boundary, the engine never stores the final
 * coefficients: the causal blocks (bspline_prefilter_causal_block) fill
 * the plane with rows filtered along x and causally along y, and the
 * output chunks of bspline_resample_streaming finish the anticausal
 * recursion along y bottom-up, resampling each row along x as it appears
 * and each output row as soon as its taps are there.  Blocks and chunks
 * are functions of the plan only, so that the output does not depend on
 * the number of threads; a chunk starts its recursion from zero a
 * truncation index below its last row ([BD19] section 3).  One pool run
 * takes both, the blocks first; a chunk waits only for the blocks it
 * reads. */
int bspline_separable_streams (const bspline_plan * plan);

/* The causal pass of the streaming path splits the lines into blocks, as
 * many as bspline_causal_blocks gives (a function of the plan only), each
 * at least truncation + 2 lines long.  The recursion of a block starts
 * from zero at its first line f (the top block from the exact
 * initialisation) and the plane keeps these block-local values s'_k; the
 * causal output is s_k = s'_k + z^(k - f + 1) s_{f - 1}, which the reader
 * adds for the lines k < f + N (bspline_causal_line_carry), leaving out
 * terms that weigh z^(N + 1) as a truncated initialisation does
 * ([BD19] section 3).  Line f - 1 lies N lines or more past its own
 * block's start, so its stored value is final, and blocks need no warm-up
 * lines: any number of them costs the same work. */
int bspline_causal_blocks (const bspline_plan * plan);
/* For line `line` of the plane: 0 when the stored value is final, else
 * k - f + 1 (1 .. N), the power of z that weighs line f - 1 =
 * line - k + f - 1 (see above). */
int bspline_causal_line_carry (const bspline_plan * plan, int n_blocks,
    int line);

/* ---- prefilter.c ---- */
/* Scratch of bspline_prefilter_image and bspline_prefilter_causal for a
 * pool of n_workers threads. */
BSPLINE_INTERNAL_API
size_t bspline_prefilter_scratch_size (const bspline_plan * plan,
    int n_workers);
/* Fills coef from src (converted, padded per the boundary) and runs the
 * 2-D prefilter when the plan asks for it, on the pool. */
BSPLINE_INTERNAL_API
void bspline_prefilter_image (bspline_pool * pool, const bspline_plan * plan,
    const bspline_image * src, const bspline_coefficients * coef,
    void *scratch);
/* Streaming path, first half, block `block` of bspline_causal_blocks:
 * fills its lines of coef with the rows of src converted, prefiltered
 * along x and filtered by the causal recursion along y, and, for the last
 * block, last_line (coef->row_len values) with the last stored line before
 * the causal recursion, which the anticausal initialisation of a padded
 * line needs.  scratch: one worker's share of
 * bspline_prefilter_scratch_size. */
void bspline_prefilter_causal_block (const bspline_plan * plan,
    const bspline_image * src, const bspline_coefficients * coef,
    void *last_line, void *scratch, int block);
/* The block (of n_blocks) that holds line `line` of the plane. */
int bspline_causal_block_of_line (const bspline_plan * plan, int n_blocks,
    int line);

/* ---- resample.c ---- */
/* Scratch of bspline_resample_image for a pool of n_workers threads. */
size_t bspline_resample_scratch_size (const bspline_plan * plan,
    int n_workers);
/* Evaluates the plan from the final coefficients coef into dst (all but
 * the streaming path); a lens plan's widened pixels through `ripmap`
 * (begun here; not NULL for a lens plan). */
void bspline_resample_image (bspline_pool * pool, const bspline_plan * plan,
    const bspline_coefficients * coef, const bspline_image * dst,
    bspline_ripmap * ripmap, void *scratch);
/* The streaming path, both halves (see above), src into dst through the
 * plane coef and its last_line; the scratch of each half as sized by
 * bspline_prefilter_scratch_size and bspline_resample_scratch_size. */
void bspline_resample_streaming (bspline_pool * pool,
    const bspline_plan * plan, const bspline_image * src,
    const bspline_coefficients * coef, void *last_line,
    const bspline_image * dst, void *prefilter_scratch,
    void *resample_scratch);
/* The kernel widening of an affine map (plan->inverse with W = 1), the
 * same at every pixel: bspline_footprint, 1 each way without
 * antialiasing.  The CPU engine's warp and the CUDA engine's frames take
 * it from here. */
BSPLINE_INTERNAL_API
void bspline_plan_affine_widening (const bspline_plan * plan,
    double *widen_x, double *widen_y);
/* The plain interpolant at arbitrary input pixel coordinates. */
void bspline_sample_points_coef (const bspline_plan * plan,
    const bspline_coefficients * coef, const double *xy, size_t n_points,
    double *out);

#endif /* BSPLINE_RESAMPLE_H */
