/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resample.c: the indirect B-spline transform: evaluating the stored
 * coefficients at the inverse image of every output pixel centre
 * ([BD19] Algorithm 3), on the separable path for axis-aligned maps and on
 * the general path for warps. */
#include "resample.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Bands of output rows: enough for any pool to balance its threads. */
#define MAX_BANDS 64
/* Values resampled along y before they are stored (fits the first-level
 * cache with the rows it reads). */
#define COLUMN_BLOCK 512
/* The streaming path splits the output rows into chunks of at least this
 * many output rows, and of at least half as many coefficient rows: each
 * chunk costs a warm-up of the anticausal recursion (truncation index
 * lines) and the coefficient rows that it shares with its neighbours. */
#define STREAM_CHUNK_OUT_ROWS 64
/* Pixels of a group that the streaming path's anticausal step fills
 * before they are resampled along x (a strip of eight four-channel rows is
 * 8 KiB, which stays in the first-level cache with the rows it reads),
 * and the most strips of a row. */
#define STREAM_STRIP 64
#define STREAM_MAX_STRIPS 256

/* Strips of the streaming path: pixels x_end[t - 1] .. x_end[t] - 1 of a
 * group (x_end[-1] = 0), after which output pixels j_end[t - 1] ..
 * j_end[t] - 1 have all their taps along x (a multiple of 4 but for the
 * last, n_out, so that the four-pixel kernels take no tails). */
typedef struct
{
  int n;
  int x_end[STREAM_MAX_STRIPS];
  int j_end[STREAM_MAX_STRIPS];
} stream_strips;

static const double *
table_weights_d (const bspline_axis_table * t)
{
  return t->weight_d;
}

static const float *
table_weights_f (const bspline_axis_table * t)
{
  return t->weight_f;
}

/* One value of the V-pass of four taps into U8, in the C loop of
 * resample_columns and the tails of its x86 kernels: the sum starts from
 * the rounding's 0.5 (BSPLINE_SUM4_FROM), is clamped to [0, 255.5] (NaN
 * becoming 0) and truncated, so the value is rounded half up. */
#define DEFINE_SUM4_U8(SUFFIX, T, MADD) \
static BSPLINE_INLINE uint8_t \
sum4_u8_##SUFFIX (const T * w, T a0, T a1, T a2, T a3) \
{ \
  T v = BSPLINE_SUM4_FROM (MADD, (T) 0.5, w[0], a0, w[1], a1, w[2], a2, \
      w[3], a3); \
  v = v > (T) 0 ? v : (T) 0; \
  v = v < (T) 255.5 ? v : (T) 255.5; \
  return (uint8_t) (int32_t) v; \
}
DEFINE_SUM4_U8 (f, float, fmaf)
DEFINE_SUM4_U8 (d, double, BSPLINE_MADD_UNFUSED)

/* The x86 kernels of the separable path (x86/resample-kernels.h):
 * sum4_store_u8_f, anticausal_group_impl_f and resample_group_rgba_f
 * compute what the C loops compute, bit for bit, and return 0 where they
 * do not apply (always, where BSPLINE_X86_DISPATCH is 0). */
#if BSPLINE_X86_DISPATCH
#include "x86/resample-kernels.h"
#else
static int
resample_group_rgba_f (const float *buf, float *const *out,
    const int *index, const float *weights, int j0, int j1)
{
  (void) buf, (void) out, (void) index, (void) weights, (void) j0;
  (void) j1;
  return 0;
}

static int
anticausal_group_impl_f (float *c, const float *const *s,
    const float *const *carry, const float *w, float z, float *buf,
    int count, int n)
{
  (void) c, (void) s, (void) carry, (void) w, (void) z, (void) buf;
  (void) count, (void) n;
  return 0;
}

static int
sum4_store_u8_f (uint8_t * out, const float *r0, const float *r1,
    const float *r2, const float *r3, const float *w, int n)
{
  (void) out, (void) r0, (void) r1, (void) r2, (void) r3, (void) w, (void) n;
  return 0;
}
#endif

static int
resample_group_rgba_d (const double *buf, double *const *out,
    const int *index, const double *weights, int j0, int j1)
{
  (void) buf, (void) out, (void) index, (void) weights, (void) j0;
  (void) j1;
  return 0;
}

static int
anticausal_group_impl_d (double *c, const double *const *s,
    const double *const *carry, const double *w, double z, double *buf,
    int count, int n)
{
  (void) c, (void) s, (void) carry, (void) w, (void) z, (void) buf;
  (void) count, (void) n;
  return 0;
}

static int
sum4_store_u8_d (uint8_t * out, const double *r0, const double *r1,
    const double *r2, const double *r3, const double *w, int n)
{
  (void) out, (void) r0, (void) r1, (void) r2, (void) r3, (void) w, (void) n;
  return 0;
}

#define REAL double
#define SUFFIX(name) name##_d
#define MADD BSPLINE_MADD_UNFUSED
#define ANTICAUSAL BSPLINE_ANTICAUSAL_UNFUSED
#include "resample-impl.h"
#undef REAL
#undef SUFFIX
#undef MADD
#undef ANTICAUSAL

#define REAL float
#define SUFFIX(name) name##_f
#define MADD fmaf
#define ANTICAUSAL BSPLINE_ANTICAUSAL_FUSED
#include "resample-impl.h"
#undef MADD
#undef ANTICAUSAL
#undef REAL
#undef SUFFIX

/* ---- general path with a lens or STMap stage: rows of points ----
 *
 * A lens plan's rows are sampled from its rows of points (point-cache.c):
 * each output row's input points and widenings are computed first, into
 * the worker's scratch or, from the plan's second execution on, into the
 * plan's cache, which later executions read instead.  They are the
 * doubles that warp_rows_d and warp_rows_f compute pixel by pixel, so the
 * output is the same bits.  A copy built with BSPLINE_NO_WARP_FAST keeps
 * warp_rows_d and warp_rows_f alone (no rows of points, no cache): the
 * reference of both (tests/core `lens-kernels`). */
#ifdef BSPLINE_NO_WARP_FAST
#define LENS_POINT_ROWS 0
#else
#define LENS_POINT_ROWS 1
#endif

/* Output row i of a lens plan from its points (warp_rows_d and warp_rows_f
 * at the points they would compute), where no fast row takes it: double
 * precision, orders past 5 in single, and rows with a pixel sampled from
 * a level of the ripmap (`widened` 2). */
#define DEFINE_LENS_ROWS(SUFFIX, REAL) \
static void \
lens_rows_##SUFFIX (const bspline_plan * plan, \
    const bspline_coefficients * coef, bspline_ripmap * ripmap, REAL * acc, \
    const bspline_image * dst, int i, const double *points, int widened) \
{ \
  const int C = plan->channels; \
  uint64_t taps = 0; \
  int j, c; \
  for (j = 0; j < plan->dst_width; j++) { \
    double x, y, widen_x = 1.0, widen_y = 1.0; \
    REAL *px = acc + (ptrdiff_t) j * C; \
    if (!point_at (plan, points, widened, j, &x, &y, &widen_x, \
            &widen_y)) { \
      for (c = 0; c < C; c++) \
        px[c] = (REAL) plan->params.fill[c]; \
      continue; \
    } \
    if (widen_x != 1.0 || widen_y != 1.0) \
      taps += (uint64_t) eval_lens_point_##SUFFIX (plan, coef, ripmap, \
          x - 0.5, y - 0.5, widen_x, widen_y, px); \
    else \
      eval_point_##SUFFIX (plan, coef, x - 0.5, y - 0.5, 1.0, 1.0, px); \
  } \
  if (widened > 1) \
    bspline_ripmap_count (ripmap, taps); \
  store_values_##SUFFIX (dst, i, 0, acc, plan->dst_width * C); \
}

/* ---- general path, float: the pixels whose taps are all stored ----
 *
 * Most pixels of a warp read an unwidened kernel whose taps lie inside
 * the stored coefficients, where every tap index is the previous plus one
 * and no boundary rule applies.  For those, the fast rows (fast_pixel)
 * compute the same coordinates, taps and weights as eval_point_f (the
 * same functions of bspline-math.h) with the order and the channel count
 * known at compile time, and sum in eval_point_f's order; every other
 * pixel (widened kernels, taps past the stored plane, coordinates far
 * outside, no input point) goes through eval_point_f.  One-, two- and
 * four-channel planes under affine maps, and under a lens or STMap stage
 * from the plan's rows of points (see above), take eight pixels a step
 * with AVX2 (warp_rows_avx2_body).  The core is compiled without
 * contraction into fused multiply-adds (ISO C99), so all of them write
 * the same bits as warp_rows_f: tests/core `kernels` (affine and
 * perspective maps) and `lens-kernels` (lens and STMap stages) check it
 * against a copy built with BSPLINE_NO_WARP_FAST (warp_rows_f only).
 * Measured in docs/notes/cpu-performance-notes.md (v9). */

/* First stored index of taps origin .. origin + n - 1, or -1 where one of
 * them lies past the stored plane (where the boundary rule decides).
 * Folding boundaries store no padding (plan->pad is 0 for them). */
#if defined(__GNUC__)
__attribute__ ((always_inline))
#endif
static inline int
interior_base (const bspline_axis * ax, int origin, int n)
{
  const int base = origin + ax->pad;
  return base >= 0 && base + n <= ax->len + 2 * ax->pad ? base : -1;
}

/* The taps and weights of one axis at sample coordinate x (unwidened):
 * returns the first stored index, or -1 (see above).  ORDER is the
 * B-spline order, or -1 for bicubic. */
#if defined(__GNUC__)
__attribute__ ((always_inline))
#endif
static inline int
fast_axis_taps (const bspline_axis * ax, const int ORDER, double x, float *w)
{
  int origin;
  if (!(x > -1e6 && x < 1e6))
    return -1;                  /* eval_point_f reduces it first */
  if (ORDER < 0) {
    double f = floor (x);
    origin = (int) f - 1;
    bspline_keys_weights_f ((float) ax->bicubic_a, (float) (x - f), w);
    return interior_base (ax, origin, 4);
  } else {
    double t;
    origin = bspline_origin_d (ORDER, x, &t);
    bspline_weights_f (ORDER, (float) t, w);
    return interior_base (ax, origin, ORDER + 1);
  }
}

/* One output pixel of the fast rows at input point (x, y) (pixel
 * coordinates; x, y finite), kernel widening (widen_x, widen_y): N =
 * ORDER + 1 taps per axis (4 for bicubic, ORDER -1), C channels, inlined
 * with constant ORDER and C so that the weights and the sums unroll. */
#if defined(__GNUC__)
__attribute__ ((always_inline))
#endif
static inline void
fast_pixel (const bspline_plan * plan, const bspline_coefficients * coef,
    double x, double y, double widen_x, double widen_y, const int ORDER,
    const int C, float *px)
{
  const int N = ORDER < 0 ? 4 : ORDER + 1;
  const ptrdiff_t row_len = coef->row_len;
  float wx[BSPLINE_MAX_TAPS], wy[BSPLINE_MAX_TAPS];
  int bx, by, a, b, c;
  if (widen_x == 1.0 && widen_y == 1.0
      && (bx = fast_axis_taps (&plan->axis_x, ORDER, x - 0.5, wx)) >= 0
      && (by = fast_axis_taps (&plan->axis_y, ORDER, y - 0.5, wy)) >= 0) {
    /* eval_point_f's sums, in its order */
    const float *s = (const float *) coef->data + (ptrdiff_t) by * row_len
        + (ptrdiff_t) bx * C;
    for (c = 0; c < C; c++)
      px[c] = 0.0f;
    for (b = 0; b < N; b++) {
      const float *row = s + (ptrdiff_t) b * row_len;
      float line[4];
      for (c = 0; c < C; c++)
        line[c] = 0.0f;
      for (a = 0; a < N; a++)
        for (c = 0; c < C; c++)
          line[c] += wx[a] * row[a * C + c];
      for (c = 0; c < C; c++)
        px[c] += wy[b] * line[c];
    }
  } else {
    eval_point_f (plan, coef, x - 0.5, y - 0.5, widen_x, widen_y, px);
  }
}

/* The map's value at output pixel (j, i), as bspline_map_point computes
 * it (an affine map: X / 1.0 is X); 0 where there is no input point. */
#if defined(__GNUC__)
__attribute__ ((always_inline))
#endif
static inline int
fast_map (const double *m, int affine, int j, int i, double *x, double *y)
{
  const double u = j + 0.5, v = i + 0.5;
  if (!affine)
    return bspline_map_point (m, u, v, x, y);
  *x = m[0] * u + m[1] * v + m[2];
  *y = m[3] * u + m[4] * v + m[5];
  return isfinite (*x) && isfinite (*y);
}

static inline int
map_is_affine (const double *m)
{
  return m[6] == 0.0 && m[7] == 0.0 && m[8] == 1.0;
}

/* The widening of an affine map, the same at every pixel (resample.h); 1 for
 * other maps, whose W at (0, 0) may be beyond the horizon. */
void
bspline_plan_affine_widening (const bspline_plan * plan, double *widen_x,
    double *widen_y)
{
  *widen_x = *widen_y = 1.0;
  if (plan->widen && plan->n_lenses == 0 && map_is_affine (plan->inverse))
    bspline_footprint (plan->inverse, 0.0, 0.0, 0.0, 0.0,
        BSPLINE_MAX_WARP_WIDENING, widen_x, widen_y);
}

/* Pixel j of a row of points of a lens plan (point-cache.c, resample.h):
 * its input point and, where the row has a widened pixel (`widened`,
 * bspline_point_row), its widening (left at 1 where not); 0 where the
 * pixel has no input point. */
#if defined(__GNUC__)
__attribute__ ((always_inline))
#endif
static inline int
point_at (const bspline_plan * plan, const double *row, int widened, int j,
    double *x, double *y, double *widen_x, double *widen_y)
{
  const int W = plan->dst_width;
  *x = row[j];
  if (isnan (*x))
    return 0;
  *y = row[W + j];
  if (widened) {
    *widen_x = row[2 * W + j];
    *widen_y = row[3 * W + j];
  }
  return 1;
}

DEFINE_LENS_ROWS (d, double)
DEFINE_LENS_ROWS (f, float)
#undef DEFINE_LENS_ROWS

/* The offset of output row i's points in `points`, which holds rows first
 * .. last - 1 one after the other. */
static inline ptrdiff_t
point_row_offset (const bspline_plan * plan, int i, int first)
{
  return (ptrdiff_t) (i - first) * bspline_point_values (plan)
      * plan->dst_width;
}

/* Output rows first .. last - 1 (see above); a lens plan's input points
 * from `points` (its rows first .. last - 1), NULL for other plans;
 * `widened` 0 where none of those rows has a widened pixel. */
#if defined(__GNUC__)
__attribute__ ((always_inline))
#endif
static inline void
warp_rows_fast_body (const bspline_plan * plan,
    const bspline_coefficients * coef, float *acc, const bspline_image * dst,
    int first, int last, const double *points, int widened, const int ORDER,
    const int C)
{
  const double *m = plan->inverse;
  const int affine = !points && map_is_affine (m);
  double affine_widen_x, affine_widen_y;
  int i, j, c;

  bspline_plan_affine_widening (plan, &affine_widen_x, &affine_widen_y);
  for (i = first; i < last; i++) {
    const double *row = points ? points + point_row_offset (plan, i, first) :
        NULL;
    for (j = 0; j < plan->dst_width; j++) {
      double x, y, widen_x = affine_widen_x, widen_y = affine_widen_y;
      float *px = acc + (ptrdiff_t) j * C;
      int found = row ? point_at (plan, row, widened, j, &x, &y, &widen_x,
          &widen_y) : fast_map (m, affine, j, i, &x, &y);
      if (!found) {
        for (c = 0; c < C; c++)
          px[c] = (float) plan->params.fill[c];
        continue;
      }
      if (!row && !affine && plan->widen)
        bspline_footprint (m, j + 0.5, i + 0.5, x, y,
            BSPLINE_MAX_WARP_WIDENING, &widen_x, &widen_y);
      fast_pixel (plan, coef, x, y, widen_x, widen_y, ORDER, C, px);
    }
    store_values_f (dst, i, 0, acc, plan->dst_width * C);
  }
}

#define WARP_FAST_CASE(ORDER, C) \
BSPLINE_VECTOR_CLONES static void \
warp_rows_fast_##ORDER##_##C (const bspline_plan * plan, \
    const bspline_coefficients * coef, float *acc, \
    const bspline_image * dst, int first, int last, const double *points, \
    int widened) \
{ \
  warp_rows_fast_body (plan, coef, acc, dst, first, last, points, widened, \
      ORDER - 1, C); \
}
#define WARP_FAST_CASES(ORDER) \
  WARP_FAST_CASE (ORDER, 1) WARP_FAST_CASE (ORDER, 2) \
  WARP_FAST_CASE (ORDER, 3) WARP_FAST_CASE (ORDER, 4)
/* ORDER here is the order + 1 (0: bicubic) */
WARP_FAST_CASES (0) WARP_FAST_CASES (1) WARP_FAST_CASES (2)
WARP_FAST_CASES (3) WARP_FAST_CASES (4) WARP_FAST_CASES (5)
WARP_FAST_CASES (6)
#undef WARP_FAST_CASE
#undef WARP_FAST_CASES

#if BSPLINE_X86_DISPATCH
#include "x86/warp-rows-avx2.h"
#endif /* BSPLINE_X86_DISPATCH */

typedef void (*warp_rows_fn) (const bspline_plan *,
    const bspline_coefficients *, float *, const bspline_image *, int, int,
    const double *, int);

/* The fast rows for the plan (bicubic, orders 0-5, 1-4 channels), or NULL
 * where only the general rows take it.  The vector rows' gathers take
 * 32-bit offsets into the stored plane. */
static warp_rows_fn
warp_rows_fast_for (const bspline_plan * plan,
    const bspline_coefficients * coef)
{
#define ROW(K) { warp_rows_fast_##K##_1, warp_rows_fast_##K##_2, \
      warp_rows_fast_##K##_3, warp_rows_fast_##K##_4 }
  static const warp_rows_fn table[7][4] = { ROW (0), ROW (1), ROW (2),
    ROW (3), ROW (4), ROW (5), ROW (6)
  };
#undef ROW
  const int C = plan->channels;
  int k;
  (void) coef;
#ifdef BSPLINE_NO_WARP_FAST
  return NULL;
#endif
#if BSPLINE_X86_DISPATCH
  {
    static const warp_rows_fn avx2[7][3] = {
      {warp_rows_avx2_bicubic_1, warp_rows_avx2_bicubic_2,
          warp_rows_avx2_bicubic_4},
      {warp_rows_avx2_0_1, warp_rows_avx2_0_2, warp_rows_avx2_0_4},
      {warp_rows_avx2_1_1, warp_rows_avx2_1_2, warp_rows_avx2_1_4},
      {warp_rows_avx2_2_1, warp_rows_avx2_2_2, warp_rows_avx2_2_4},
      {warp_rows_avx2_3_1, warp_rows_avx2_3_2, warp_rows_avx2_3_4},
      {warp_rows_avx2_4_1, warp_rows_avx2_4_2, warp_rows_avx2_4_4},
      {warp_rows_avx2_5_1, warp_rows_avx2_5_2, warp_rows_avx2_5_4}
    };
    double widen_x, widen_y;
    /* a lens plan's rows of points, or an unwidened affine map */
    bspline_plan_affine_widening (plan, &widen_x, &widen_y);
    if ((C == 1 || C == 2 || C == 4) && (plan->axis_x.method == BSPLINE_METHOD_BICUBIC
            || plan->axis_x.order <= 5)
        && (plan->n_lenses > 0 || (map_is_affine (plan->inverse)
                && widen_x == 1.0 && widen_y == 1.0))
        && (double) coef->row_len * (coef->height + 2 * coef->pad)
        < 2147483647.0 && bspline_x86_avx2 ())
      return avx2[plan->axis_x.method == BSPLINE_METHOD_BICUBIC ? 0 :
          plan->axis_x.order + 1][C / 2];
  }
#endif
  if (plan->axis_x.method == BSPLINE_METHOD_BICUBIC)
    k = 0;
  else if (plan->axis_x.order <= 5)
    k = plan->axis_x.order + 1;
  else
    return NULL;
  return C >= 1 && C <= 4 ? table[k][C - 1] : NULL;
}

typedef struct
{
  const bspline_plan *plan;
  const bspline_coefficients *coef;
  const void *last_line;        /* streaming: last line before causal */
  const bspline_image *dst;
  void *tmp;                    /* plane: rows of dst_width * C */
  unsigned char *used;          /* plane: coefficient rows read */
  char *scratch;                /* per worker */
  size_t worker_size;           /* bytes of scratch per worker */
  int ring;                     /* streaming: rows of the ring */
  const stream_strips *strips;  /* streaming: strips of a group */
  int n_bands, n_rows;
  int n_workers;                /* warp: the pool's threads */
  bspline_point_rows points;    /* warp with a lens: the plan's cached rows
                                 * of points (rows NULL: none) */
  bspline_ripmap *ripmap;       /* warp with a lens: its widened pixels */
} resample_job;

static size_t
real_size (const bspline_plan * plan)
{
  return plan->use_double ? sizeof (double) : sizeof (float);
}

static size_t
round64 (size_t size)
{
  return (size + 63) / 64 * 64;
}

static int
n_bands (const bspline_plan * plan)
{
  return plan->dst_height < MAX_BANDS ? plan->dst_height : MAX_BANDS;
}

int
bspline_separable_streams (const bspline_plan * plan)
{
  return plan->separable && plan->setup.n_poles == 1
      && plan->filter_x && plan->filter_y
      && plan->params.boundary != BSPLINE_BOUNDARY_WRAP;
}

/* Chunks of output rows of the streaming path: a function of the plan
 * only, so that the output does not depend on the number of threads; past
 * 8, a multiple of 8, so that pools of 2, 4, 8 or 16 threads get equal
 * shares (a 2160-row output from 1080 rows gets 32 chunks). */
static int
stream_chunks (const bspline_plan * plan)
{
  int n_lines = plan->src_height + 2 * plan->pad;
  int by_out = plan->dst_height / STREAM_CHUNK_OUT_ROWS;
  int by_in = n_lines / (STREAM_CHUNK_OUT_ROWS / 2);
  int n = by_out < by_in ? by_out : by_in;
  if (n > 8)
    n -= n % 8;
  return n < 1 ? 1 : n;
}

static void
chunk (int n, int n_chunks, int task, int *first, int *last)
{
  *first = (int) ((long long) n * task / n_chunks);
  *last = (int) ((long long) n * (task + 1) / n_chunks);
}

/* Rows of the ring of the streaming path (stream_rows): when output row i
 * is resampled along y, every row at or above the lowest tap of the output
 * rows below it, less G, may have gone through the ring, and the ring must
 * still hold every tap of row i. */
static int
stream_ring (const bspline_plan * plan)
{
  const bspline_axis_table *t = &plan->y;
  const int n_chunks = stream_chunks (plan), T = t->n_taps;
  const int G = bspline_group_rows (plan->channels);
  int ring = 1, task, i, k;

  for (task = 0; task < n_chunks; task++) {
    int o0, o1, low = plan->src_height + 2 * plan->pad, bottom = low;
    int top = 0, need = 0;
    chunk (plan->dst_height, n_chunks, task, &o0, &o1);
    for (i = o1 - 1; i >= o0; i--) {
      int lo = t->index[(size_t) i * T], hi = lo;
      for (k = 1; k < T; k++) {
        int r = t->index[(size_t) i * T + k];
        lo = r < lo ? r : lo;
        hi = r > hi ? r : hi;
      }
      low = lo < low ? lo : low;
      top = hi > top ? hi : top;
      bottom = lo < bottom ? lo : bottom;
      if (hi - low + G + 1 > need)
        need = hi - low + G + 1;
    }
    if (need > top - bottom + 1)
      need = top - bottom + 1;
    if (need > ring)
      ring = need;
  }
  return ring;
}

static void
stream_strips_init (const bspline_plan * plan, stream_strips * strips)
{
  const bspline_axis_table *t = &plan->x;
  const int width = plan->src_width + 2 * plan->pad;
  const int n_strips = (width + STREAM_STRIP - 1) / STREAM_STRIP;
  int n = n_strips < STREAM_MAX_STRIPS ? n_strips : STREAM_MAX_STRIPS;
  int step = (width + n - 1) / n, i, j = 0;
  step = (step + 3) / 4 * 4;
  n = (width + step - 1) / step;
  for (i = 0; i < n; i++) {
    const int x1 = i == n - 1 ? width : (i + 1) * step;
    /* the output pixels from j on whose taps are all below x1 */
    for (; j < t->n_out; j++) {
      const int *ix = t->index + (size_t) j * t->n_taps;
      int k;
      for (k = 0; k < t->n_taps && ix[k] < x1; k++);
      if (k < t->n_taps)
        break;
    }
    strips->x_end[i] = x1;
    strips->j_end[i] = i == n - 1 ? t->n_out : j / 4 * 4;
    if (i > 0 && strips->j_end[i] < strips->j_end[i - 1])
      strips->j_end[i] = strips->j_end[i - 1];
  }
  strips->n = n;
}

/* Per worker: a group of rows and a row of output that nobody reads (both
 * paths); the streaming path's coefficient row, ring and marks of the rows
 * read. */
static size_t
worker_size (const bspline_plan * plan, int ring)
{
  const size_t real = real_size (plan);
  const size_t width = (size_t) plan->src_width + 2 * (size_t) plan->pad;
  const size_t n_lines = (size_t) plan->src_height + 2 * (size_t) plan->pad;
  size_t size = round64 (width * BSPLINE_GROUP_LANES * real)
      + round64 ((size_t) plan->dst_width * plan->channels * real);
  if (ring > 0)
    size += round64 (width * plan->channels * real)
        + round64 ((size_t) ring * plan->dst_width * plan->channels * real)
        + round64 (n_lines);
  return size;
}

/* Bytes of the task tables of the streaming run, after the workers'
 * scratch. */
static size_t
stream_tables_size (const bspline_plan * plan)
{
  const size_t n_blocks = (size_t) bspline_causal_blocks (plan);
  const size_t n_chunks = (size_t) stream_chunks (plan);
  return round64 (sizeof (int) * n_chunks + n_blocks);
}

/* Bytes of a row of points of a lens plan (point-cache.c), 64-byte
 * aligned. */
static size_t
point_row_size (const bspline_plan * plan)
{
  return round64 ((size_t) bspline_point_values (plan) * plan->dst_width
      * sizeof (double));
}

size_t
bspline_resample_scratch_size (const bspline_plan * plan, int n_workers)
{
  const size_t n_lines = (size_t) plan->src_height + 2 * (size_t) plan->pad;
  const size_t row = (size_t) plan->dst_width * plan->channels
      * real_size (plan);
  /* the warp's rows; a lens plan's rows of points after them */
  if (!plan->separable)
    return LENS_POINT_ROWS && plan->n_lenses > 0 ?
        round64 (row * (size_t) n_workers) + point_row_size (plan)
        * (size_t) n_workers : row * (size_t) n_workers;
  if (bspline_separable_streams (plan))
    return worker_size (plan, stream_ring (plan)) * (size_t) n_workers
        + stream_tables_size (plan);
  return round64 (row * n_lines) + round64 (n_lines)
      + worker_size (plan, 0) * (size_t) n_workers;
}

static void
band (const resample_job * job, int n, int task, int *first, int *last)
{
  chunk (n, job->n_bands, task, first, last);
}

static void
rows_task (void *data, int task, int worker)
{
  const resample_job *job = data;
  const bspline_plan *plan = job->plan;
  const size_t width = (size_t) plan->src_width + 2 * (size_t) plan->pad;
  char *buf = job->scratch + job->worker_size * worker;
  char *sink = buf + round64 (width * BSPLINE_GROUP_LANES
      * real_size (plan));
  int first, last;
  band (job, job->n_rows, task, &first, &last);
  if (plan->use_double)
    separable_rows_d (plan, job->coef, job->tmp, job->used, first, last,
        (double *) buf, (double *) sink);
  else
    separable_rows_f (plan, job->coef, job->tmp, job->used, first, last,
        (float *) buf, (float *) sink);
}

static void
columns_task (void *data, int task, int worker)
{
  const resample_job *job = data;
  int first, last;
  (void) worker;
  band (job, job->plan->dst_height, task, &first, &last);
  if (job->plan->use_double)
    resample_columns_d (job->plan, job->tmp, job->n_rows, first, last,
        job->dst);
  else
    resample_columns_f (job->plan, job->tmp, job->n_rows, first, last,
        job->dst);
}

static void
stream_task (void *data, int task, int worker)
{
  const resample_job *job = data;
  const bspline_plan *plan = job->plan;
  const size_t real = real_size (plan);
  const size_t width = (size_t) plan->src_width + 2 * (size_t) plan->pad;
  const size_t out_row = (size_t) plan->dst_width * plan->channels * real;
  char *buf = job->scratch + job->worker_size * worker;
  char *sink = buf + round64 (width * BSPLINE_GROUP_LANES * real);
  char *crow = sink + round64 (out_row);
  char *rows = crow + round64 (width * plan->channels * real);
  unsigned char *used = (unsigned char *) rows
      + round64 ((size_t) job->ring * plan->dst_width * plan->channels * real);
  int first, last;
  band (job, plan->dst_height, task, &first, &last);
  if (plan->use_double)
    stream_rows_d (plan, job->coef, job->last_line, job->dst, first, last,
        job->ring, job->strips, (double *) crow, (double *) buf,
        (double *) sink, (double *) rows, used);
  else
    stream_rows_f (plan, job->coef, job->last_line, job->dst, first, last,
        job->ring, job->strips, (float *) crow, (float *) buf,
        (float *) sink, (float *) rows, used);
}

/* A lens plan's output rows first .. last - 1 from its rows of points:
 * the cache's (job->points; computed first where job->fill_points) or
 * each computed into the worker's own row (point_scratch). */
static void
warp_lens_rows (const resample_job * job, warp_rows_fn fast, void *acc,
    double *point_scratch, int first, int last)
{
  const bspline_plan *plan = job->plan;
  const bspline_point_rows *cache = &job->points;
  int i;
  for (i = first; i < last; i++) {
    double *points = cache->rows ? bspline_point_rows_row (plan, cache, i) :
        point_scratch;
    int widened;
    if (!cache->rows || cache->fill) {
      widened = bspline_point_row (plan, i, points);
      if (cache->rows)
        cache->widened[i] = (unsigned char) widened;
    } else {
      widened = cache->widened[i];
    }
    if (plan->use_double)
      lens_rows_d (plan, job->coef, job->ripmap, acc, job->dst, i, points,
          widened);
    else if (fast != NULL && widened < 2)
      fast (plan, job->coef, acc, job->dst, i, i + 1, points, widened);
    else
      lens_rows_f (plan, job->coef, job->ripmap, acc, job->dst, i, points,
          widened);
  }
}

static void
warp_task (void *data, int task, int worker)
{
  const resample_job *job = data;
  const bspline_plan *plan = job->plan;
  const size_t row = (size_t) plan->dst_width * plan->channels
      * real_size (plan);
  const warp_rows_fn fast = plan->use_double ? NULL :
      warp_rows_fast_for (plan, job->coef);
  void *acc = job->scratch + row * worker;
  int first, last;
  band (job, plan->dst_height, task, &first, &last);
  if (LENS_POINT_ROWS && plan->n_lenses > 0)
    warp_lens_rows (job, fast, acc, (double *) (job->scratch
            + round64 (row * job->n_workers)) + point_row_size (plan)
        / sizeof (double) * worker, first, last);
  else if (plan->use_double)
    warp_rows_d (plan, job->coef, job->ripmap, acc, job->dst, first, last);
  else if (fast != NULL)
    fast (plan, job->coef, acc, job->dst, first, last, NULL, 0);
  else
    warp_rows_f (plan, job->coef, job->ripmap, acc, job->dst, first, last);
}

/* The streaming path's pool run: tasks are the causal blocks, then the
 * output chunks, and a chunk waits only until the blocks it reads are
 * done (up to the block of line top + N, its anticausal warm-up), not for
 * the whole first pass, so that the threads that finish the last blocks
 * early start on the chunks (the values are those of two passes one after
 * the other).  Placing each chunk right after its blocks, so that the
 * lines it reads were written shortly before, was slower on the 16-core
 * host (docs/notes/cpu-performance-notes.md, v8). */
typedef struct
{
  resample_job job;             /* the chunks */
  bspline_pool *pool;
  const bspline_image *src;
  char *prefilter_scratch;
  size_t prefilter_worker_size;
  int n_blocks;
  int *chunk_needs;             /* blocks chunk c waits for */
  unsigned char *block_done;
  int blocks_done;              /* blocks 0 .. blocks_done - 1 are done */
} stream_job;

static int
chunk_ready (void *data, int chunk)
{
  const stream_job *sj = data;
  return sj->blocks_done >= sj->chunk_needs[chunk];
}

static void
block_finished (void *data, int block)
{
  stream_job *sj = data;
  sj->block_done[block] = 1;
  while (sj->blocks_done < sj->n_blocks && sj->block_done[sj->blocks_done])
    sj->blocks_done++;
}

static void
streaming_task (void *data, int task, int worker)
{
  stream_job *sj = data;
  if (task < sj->n_blocks) {
    bspline_prefilter_causal_block (sj->job.plan, sj->src, sj->job.coef,
        (void *) sj->job.last_line, sj->prefilter_scratch
        + sj->prefilter_worker_size * worker, task);
    bspline_pool_update (sj->pool, block_finished, sj, task);
  } else {
    bspline_pool_wait (sj->pool, chunk_ready, sj, task - sj->n_blocks);
    stream_task (&sj->job, task - sj->n_blocks, worker);
  }
}

void
bspline_resample_streaming (bspline_pool * pool, const bspline_plan * plan,
    const bspline_image * src, const bspline_coefficients * coef,
    void *last_line, const bspline_image * dst, void *prefilter_scratch,
    void *resample_scratch)
{
  stream_job sj;
  stream_strips strips;
  const bspline_axis_table *t = &plan->y;
  const int n_lines = plan->src_height + 2 * plan->pad;
  const int truncation = plan->setup.truncation[0];
  int n_chunks, c, k;
  char *tables;

  memset (&sj, 0, sizeof (sj));
  sj.job.plan = plan;
  sj.job.coef = coef;
  sj.job.last_line = last_line;
  sj.job.dst = dst;
  sj.job.n_rows = n_lines;
  sj.job.ring = stream_ring (plan);
  sj.job.worker_size = worker_size (plan, sj.job.ring);
  sj.job.scratch = resample_scratch;
  sj.job.n_bands = n_chunks = stream_chunks (plan);
  stream_strips_init (plan, &strips);
  sj.job.strips = &strips;
  sj.pool = pool;
  sj.src = src;
  sj.prefilter_scratch = prefilter_scratch;
  sj.prefilter_worker_size = bspline_prefilter_scratch_size (plan, 1);
  sj.n_blocks = bspline_causal_blocks (plan);
  tables = (char *) resample_scratch
      + sj.job.worker_size * (size_t) bspline_pool_size (pool);
  sj.chunk_needs = (int *) tables;
  sj.block_done = (unsigned char *) (sj.chunk_needs + n_chunks);
  memset (sj.block_done, 0, (size_t) sj.n_blocks);
  for (c = 0; c < n_chunks; c++) {
    int o0, o1, top = 0;
    chunk (plan->dst_height, n_chunks, c, &o0, &o1);
    for (k = o0 * t->n_taps; k < o1 * t->n_taps; k++)
      top = t->index[k] > top ? t->index[k] : top;
    /* stream_rows reads lines up to top + N (its warm-up) */
    top = top + truncation < n_lines - 1 ? top + truncation : n_lines - 1;
    sj.chunk_needs[c] = bspline_causal_block_of_line (plan, sj.n_blocks,
        top) + 1;
  }
  bspline_pool_run (pool, sj.n_blocks + n_chunks, streaming_task, &sj);
}

void
bspline_resample_image (bspline_pool * pool, const bspline_plan * plan,
    const bspline_coefficients * coef, const bspline_image * dst,
    bspline_ripmap * ripmap, void *scratch)
{
  resample_job job;
  const size_t row = (size_t) plan->dst_width * plan->channels
      * real_size (plan);

  memset (&job, 0, sizeof (job));
  job.plan = plan;
  job.coef = coef;
  job.dst = dst;
  job.n_bands = n_bands (plan);
  job.n_rows = plan->src_height + 2 * plan->pad;
  job.scratch = scratch;
  job.n_workers = bspline_pool_size (pool);
  if (!plan->separable) {
    if (plan->n_lenses > 0) {
      job.ripmap = ripmap;
      bspline_ripmap_begin (ripmap, plan, coef);
    }
    if (LENS_POINT_ROWS && plan->n_lenses > 0)
      bspline_point_cache_begin (plan, &job.points);
    bspline_pool_run (pool, job.n_bands, warp_task, &job);
    /* after the pool's join: every row is written */
    if (job.points.fill)
      bspline_point_cache_filled (plan);
  } else {
    size_t i, n_taps = (size_t) plan->y.n_taps * plan->y.n_out;
    job.tmp = scratch;
    job.used = (unsigned char *) scratch + round64 (row * job.n_rows);
    job.scratch = (char *) job.used + round64 ((size_t) job.n_rows);
    job.worker_size = worker_size (plan, 0);
    /* only the coefficient rows that some output row reads */
    memset (job.used, 0, (size_t) job.n_rows);
    for (i = 0; i < n_taps; i++)
      job.used[plan->y.index[i]] = 1;
    {
      /* pass 1 splits the coefficient rows, pass 2 the output rows */
      int saved = job.n_bands;
      job.n_bands = job.n_rows < MAX_BANDS ? job.n_rows : MAX_BANDS;
      bspline_pool_run (pool, job.n_bands, rows_task, &job);
      job.n_bands = saved;
    }
    bspline_pool_run (pool, job.n_bands, columns_task, &job);
  }
}

void
bspline_sample_points_coef (const bspline_plan * plan,
    const bspline_coefficients * coef, const double *xy, size_t n_points,
    double *out)
{
  if (plan->use_double)
    sample_points_d (plan, coef, xy, n_points, out);
  else
    sample_points_f (plan, coef, xy, n_points, out);
}
