/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fold.c: the CPU engine's folded least-squares reduction (the maths and
 * its tables: bspline_fold_axis in resample.h, built by reduce.c).
 *
 * Two passes through a float plane of the output's width and the margined
 * output grid's height:
 *   1. bands of the plane's rows: each source row that a band reads,
 *      extended by the boundary and split into its p phases, goes through
 *      the x table into a ring of rows; each margined row is the y table
 *      over the ring; a group of such rows, interleaved (LANES values at
 *      each x), goes through the output grid's recursions along x and b^n
 *      along x into the plane.  The source's own grid sees nothing but the
 *      x table: no prefilter, no plane of coefficients.
 *   2. strips of the plane's columns: the recursions along y in the
 *      cache, then b^n along y, rounded and stored.
 * Bands and strips are functions of the plan only, so that the
 * output does not depend on the number of threads.  Float sums are fused
 * multiply-adds (fmaf: one instruction in the vector clones, a correctly
 * rounded call in the baseline one), so that every clone computes the same
 * values. */
#include "resample.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define REAL float
#define SUFFIX(name) name##_f
#include "store-impl.h"
#undef REAL
#undef SUFFIX

/* plane rows per band of pass 1, at least (a whole number of groups of
 * interleaved rows; each band reads n_taps source rows more than it needs
 * alone) */
#define BAND_ROWS 64
/* plane values per strip of pass 2 */
#define STRIP 128
/* values at each x of pass 1's interleaved rows */
#define LANES 64
/* the widest line of recursions: a strip, or the lanes */
#define MAX_WIDTH STRIP
/* values summed at once in registers */
#define BLOCK 128

typedef struct
{
  const bspline_plan *plan;
  const bspline_fold *fold;
  const bspline_image *src, *dst;
  float *plane;
  ptrdiff_t plane_row;          /* values per plane row */
  ptrdiff_t plane_stride;       /* values from one plane row to the next */
  int band_rows;
  char *scratch;
  size_t worker_size;
} fold_job;

static size_t
round64 (size_t n)
{
  return (n + 63) / 64 * 64;
}

/* A row's stride in bytes: an odd number of 64-byte lines, so that the
 * same column of many rows (a strip of pass 2, the taps of the y table)
 * spreads over every set of the caches instead of a power-of-two few
 * (a 1920-pixel RGBA float row of 480 lines left pass 2 in DRAM). */
static size_t
row_stride (size_t bytes)
{
  size_t lines = (bytes + 63) / 64;
  return (lines | 1) * 64;
}

/* Rows interleaved at once. */
static int
group_rows (int channels)
{
  return LANES / channels;
}

static int
band_rows (int channels)
{
  const int G = group_rows (channels);
  return (BAND_ROWS + G - 1) / G * G;
}

/* Scratch of a worker.  Pass 1: the extended row's phases, the converted
 * row, the q phases' sums, the ring of n_taps rows along y, one margined
 * row, the interleaved rows; both passes: the recursions' histories. */
typedef struct
{
  size_t phases, conv, sums, ring_row, ring, row, lanes, history, total;
} worker_layout;

static void
layout (const bspline_plan * plan, worker_layout * w)
{
  const bspline_fold *f = plan->reduce->fold;
  const int C = plan->channels;
  const size_t row = sizeof (float) * (size_t) f->x.n_out * C;
  const size_t ext = sizeof (float) * (size_t) (f->x.ext_len + f->x.p) * C;
  w->phases = 0;
  w->conv = w->phases + round64 (ext);
  w->sums = w->conv + round64 (ext);
  w->ring_row = row_stride (row);
  w->ring = w->sums + round64 (row + sizeof (float) * f->x.q * C);
  w->row = w->ring + w->ring_row * f->y.n_taps;
  w->lanes = w->row + round64 (row);
  w->history = w->lanes + round64 (sizeof (float) * (size_t) f->x.n_out
      * LANES);
  w->total = w->history + round64 (sizeof (float)
      * BSPLINE_FOLD_MAX_RECURSIONS * BSPLINE_FOLD_MAX_Q * MAX_WIDTH);
}

size_t
bspline_fold_scratch_size (const bspline_plan * plan, int n_workers)
{
  worker_layout w;
  layout (plan, &w);
  return w.total * (size_t) n_workers;
}

size_t
bspline_fold_plane (const bspline_plan * plan, bspline_image * img)
{
  const bspline_fold *f = plan->reduce->fold;
  bspline_plane_image (0, plan->dst_width, f->y.n_out, plan->channels, img);
  img->stride = (ptrdiff_t) row_stride (sizeof (float)
      * (size_t) plan->dst_width * plan->channels);
  return (size_t) img->stride * f->y.n_out;
}

/* n values of src times the weights, over n_taps rows: out[v] =
 * sum_t w[t] rows[t][v], in blocks that stay in registers. */
static BSPLINE_INLINE void
weighted_sum (float *out, const float *const *rows, const float *w,
    int n_taps, ptrdiff_t n)
{
  ptrdiff_t v0, v;
  int t;
  for (v0 = 0; v0 + BLOCK <= n; v0 += BLOCK) {
    float acc[BLOCK];
    for (v = 0; v < BLOCK; v++)
      acc[v] = w[0] * rows[0][v0 + v];
    for (t = 1; t < n_taps; t++) {
      const float wt = w[t], *r = rows[t] + v0;
      for (v = 0; v < BLOCK; v++)
        acc[v] = fmaf (wt, r[v], acc[v]);
    }
    memcpy (out + v0, acc, sizeof (acc));
  }
  for (v = v0; v < n; v++) {
    float acc = w[0] * rows[0][v];
    for (t = 1; t < n_taps; t++)
      acc = fmaf (w[t], rows[t][v], acc);
    out[v] = acc;
  }
}

/* Sample value of a source row, in code values. */
static BSPLINE_INLINE float
sample_value (const bspline_image * src, const void *row, ptrdiff_t i)
{
  switch (src->type) {
    case BSPLINE_SAMPLE_U8:
      return (float) ((const uint8_t *) row)[i];
    case BSPLINE_SAMPLE_U16:
      return (float) (((const uint16_t *) row)[i] >> src->shift);
    case BSPLINE_SAMPLE_F32:
      return ((const float *) row)[i];
    default:
      return (float) ((const double *) row)[i];
  }
}

/* GCC's __builtin_shuffle takes the permutation as a vector; clang's
 * __builtin_shufflevector only as constants: clang builds (the fuzzing
 * pass) deal the phases out pixel by pixel. */
#if defined(__GNUC__) && !defined(__clang__)
#define FOLD_VECTOR_SPLIT 1
/* 16 samples from in[0 ..] (8 or 16 bits) in code values. */
typedef float v16f __attribute__ ((vector_size (64)));
typedef int32_t v16i __attribute__ ((vector_size (64)));
typedef uint8_t v16b __attribute__ ((vector_size (16)));
typedef uint16_t v16h __attribute__ ((vector_size (32)));

static BSPLINE_INLINE void
load16 (const bspline_image * src, const void *in, ptrdiff_t i, v16f * out)
{
  /* widened a step at a time: bytes straight to float or to 32 bits
   * became scalar code (GCC 12) */
  if (src->type == BSPLINE_SAMPLE_U8) {
    v16b b;
    memcpy (&b, (const uint8_t *) in + i, sizeof (b));
    *out = __builtin_convertvector (__builtin_convertvector
        (__builtin_convertvector (b, v16h), v16i), v16f);
  } else {
    v16h h;
    memcpy (&h, (const uint16_t *) in + i, sizeof (h));
    *out = __builtin_convertvector (__builtin_convertvector (h
            >> (uint16_t) src->shift, v16i), v16f);
  }
}

/* The run split into p = 2 or 3 phases, 16 values of each per step (C
 * divides 16): the samples converted 16 p at a time and dealt out by
 * permutations (one instruction each with AVX-512; two for a phase of
 * three vectors).  Returns the first pixel m not done. */
static BSPLINE_INLINE int
run_phases_vector (const bspline_image * src, const void *in,
    float *phases, ptrdiff_t phase_len, int m0, int m1, const int p,
    const int C)
{
  v16i low[3], high[3];
  int k, s, m;
  for (s = 0; s < p; s++)
    for (k = 0; k < 16; k++) {
      const int index = (k / C * p + s) * C + k % C;
      low[s][k] = index < 32 ? index : 0;
      high[s][k] = index < 32 ? k : 16 + index - 32;
    }
  for (m = m0; m + 16 / C <= m1; m += 16 / C) {
    const ptrdiff_t i = (ptrdiff_t) (m - m0) * p * C;
    v16f v[3], out;
    load16 (src, in, i, &v[0]);
    load16 (src, in, i + 16, &v[1]);
    if (p == 3)
      load16 (src, in, i + 32, &v[2]);
    for (s = 0; s < p; s++) {
      out = __builtin_shuffle (v[0], v[1], low[s]);
      if (p == 3)
        out = __builtin_shuffle (out, v[2], high[s]);
      memcpy (phases + s * phase_len + (ptrdiff_t) m * C, &out,
          sizeof (out));
    }
  }
  return m;
}
#else
#define FOLD_VECTOR_SPLIT 0
#endif

/* Pixels m0 .. m1 - 1 of every phase from the source row's pixels p m0
 * + first on (8 or 16 bits: the run of the line itself, the boundary's
 * map being the identity there), p and C constants at the call: p = 1
 * converted in place, p = 2 and 3 split by permutations where C divides
 * 16, others through conv (converted in one contiguous pass, then dealt out
 * pixel by pixel). */
static BSPLINE_INLINE void
run_phases (const bspline_image * src, const void *row, ptrdiff_t first,
    float *restrict phases, ptrdiff_t phase_len, int m0, int m1,
    float *restrict conv, const int p, const int C)
{
  const ptrdiff_t start = ((ptrdiff_t) m0 * p + first) * C;
  const void *in = (const char *) row + start * (src->type ==
      BSPLINE_SAMPLE_U8 ? 1 : 2);
  ptrdiff_t i, n;
  int m, s;
  if (p == 1)
    conv = phases + (ptrdiff_t) m0 * C;
#if FOLD_VECTOR_SPLIT
  else if ((p == 2 || p == 3) && 16 % C == 0) {
    const int done = run_phases_vector (src, in, phases, phase_len, m0, m1,
        p, C);
    in = (const char *) in + (ptrdiff_t) (done - m0) * p * C
        * (src->type == BSPLINE_SAMPLE_U8 ? 1 : 2);
    m0 = done;
  }
#endif
  n = (ptrdiff_t) (m1 - m0) * p * C;
  if (src->type == BSPLINE_SAMPLE_U8) {
    const uint8_t *restrict b = in;
    for (i = 0; i < n; i++)
      conv[i] = (float) b[i];
  } else {
    const uint16_t *restrict h = in;
    const int shift = src->shift;
    for (i = 0; i < n; i++)
      conv[i] = (float) (h[i] >> shift);
  }
  if (p == 1)
    return;
  for (m = m0; m < m1; m++)
    for (s = 0; s < p; s++)
      memcpy (phases + s * phase_len + (ptrdiff_t) m * C,
          conv + ((ptrdiff_t) (m - m0) * p + s) * C, sizeof (float) * C);
}

/* Source row `row` extended along x (pixel i of the extended line being
 * source pixel index[i]) and split into its p phases: phase s, pixel m
 * is the extended line's pixel p m + s. */
static BSPLINE_INLINE void
load_phases (const bspline_image * src, const bspline_fold_axis * f,
    int row, float *phases, ptrdiff_t phase_len, float *conv, const int C)
{
  const void *in = (const char *) src->data + (ptrdiff_t) row * src->stride;
  const int p = f->p;
  int i, c, m0, m1;

  /* whole groups of p pixels inside the line: i = p m0 .. p m1 - 1 */
  m0 = f->ext_first < 0 ? (-f->ext_first + p - 1) / p : 0;
  m1 = (src->width - f->ext_first) / p;
  m1 = m1 < f->ext_len / p ? m1 : f->ext_len / p;
  if (src->type == BSPLINE_SAMPLE_F32 || src->type == BSPLINE_SAMPLE_F64)
    m1 = m0;
  if (m1 > m0) {
    const ptrdiff_t first = f->ext_first;
    switch (p) {
      case 1:
        run_phases (src, in, first, phases, phase_len, m0, m1, conv, 1, C);
        break;
      case 2:
        run_phases (src, in, first, phases, phase_len, m0, m1, conv, 2, C);
        break;
      case 3:
        run_phases (src, in, first, phases, phase_len, m0, m1, conv, 3, C);
        break;
      case 4:
        run_phases (src, in, first, phases, phase_len, m0, m1, conv, 4, C);
        break;
      default:
        run_phases (src, in, first, phases, phase_len, m0, m1, conv, p, C);
        break;
    }
  } else
    m0 = m1 = 0;
  /* the rest: the boundary's images of the line's pixels, copied from
   * the run where it holds them */
  for (i = 0; i < f->ext_len; i = i + 1 == p * m0 ? p * m1 : i + 1) {
    float *out = phases + (i % p) * phase_len + (ptrdiff_t) (i / p) * C;
    const int k = f->index[i] - f->ext_first;
    if (i >= p * m0 && i < p * m1)
      continue;
    if (k >= p * m0 && k < p * m1)
      memcpy (out, phases + (k % p) * phase_len + (ptrdiff_t) (k / p) * C,
          sizeof (float) * C);
    else
      for (c = 0; c < C; c++)
        out[c] = sample_value (src, in, (ptrdiff_t) f->index[i] * C + c);
  }
}

/* Source row `row` through the x table into out (n_out pixels). */
static BSPLINE_INLINE void
x_row (const bspline_image * src, const bspline_fold_axis * f, int row,
    float *phases, float *conv, float *sums, float *out, const int C)
{
  const int p = f->p, q = f->q, K = f->n_taps;
  const ptrdiff_t phase_len = (ptrdiff_t) ((f->ext_len + p - 1) / p) * C;
  const float *taps[BSPLINE_FOLD_MAX_TAPS];
  int r, t, m, c;

  load_phases (src, f, row, phases, phase_len, conv, C);
  for (r = 0; r < q && r < f->n_out; r++) {
    const int n = (f->n_out - 1 - r) / q + 1;
    float *sum = q == 1 ? out : sums;
    for (t = 0; t < K; t++) {
      const int k = f->first[r] + t;
      taps[t] = phases + (k % p) * phase_len + (ptrdiff_t) (k / p) * C;
    }
    weighted_sum (sum, taps, f->weight + (ptrdiff_t) r * K, K,
        (ptrdiff_t) n * C);
    if (q > 1)
      for (m = 0; m < n; m++)
        for (c = 0; c < C; c++)
          out[((ptrdiff_t) q * m + r) * C + c] = sum[m * C + c];
  }
}

/* The output grid's recursions of an axis over n lines of `width` values
 * (at most MAX_WIDTH) `stride` apart: each recursion i, causal c_l += w_i
 * c_(l-L_i), in one sweep down, each line going through them all in
 * turn (recursion i keeping its last L_i lines in `history`), then the
 * anticausal ones, c_l += w_i c_(l+L_i), in one sweep up.  The same
 * values as the recursions run one after the other over the whole axis,
 * in two passes over the lines instead of two per recursion. */
static BSPLINE_INLINE void
recursions (float *c, int n, ptrdiff_t stride, const int width,
    const bspline_fold_axis * f, float *history)
{
  const int R = f->n_recursions;
  float *h[BSPLINE_FOLD_MAX_RECURSIONS];
  int l, i, v, dir;

  h[0] = history;
  for (i = 1; i < R; i++)
    h[i] = h[i - 1] + (ptrdiff_t) f->lag[i - 1] * width;
  for (dir = 0; dir < 2; dir++) {
    for (l = 0; l < n; l++) {
      float *line = c + (ptrdiff_t) (dir ? n - 1 - l : l) * stride;
      float acc[MAX_WIDTH];
      for (v = 0; v < width; v++)
        acc[v] = line[v];
      for (i = 0; i < R; i++) {
        const float w = f->pole[i];
        float *restrict past = h[i] + (ptrdiff_t) (l % f->lag[i]) * width;
        if (l >= f->lag[i])
          for (v = 0; v < width; v++)
            acc[v] = fmaf (w, past[v], acc[v]);
        for (v = 0; v < width; v++)
          past[v] = acc[v];
      }
      for (v = 0; v < width; v++)
        line[v] = acc[v];
    }
  }
}

/* The margined row l: the y table over the ring of x table rows (filled
 * up to the rows it reads; *next is the first row not in it yet). */
static BSPLINE_INLINE void
margined_row (const fold_job * job, int l, int *next, char *scratch,
    const worker_layout * w, float *out, const int C)
{
  const bspline_fold_axis *fx = &job->fold->x, *fy = &job->fold->y;
  const int K = fy->n_taps, r = l % fy->q;
  const int first = fy->first[r] + fy->p * (l / fy->q);
  float *ring = (float *) (scratch + w->ring);
  const ptrdiff_t ring_row = (ptrdiff_t) (w->ring_row / sizeof (float));
  const float *rows[BSPLINE_FOLD_MAX_TAPS];
  int t;

  if (*next < first)
    *next = first;
  /* the rows first .. first + K - 1 of the extended column, in the ring at
   * their index modulo K */
  for (; *next < first + K; (*next)++)
    x_row (job->src, fx, fy->index[*next], (float *) (scratch + w->phases),
        (float *) (scratch + w->conv), (float *) (scratch + w->sums),
        ring + (ptrdiff_t) (*next % K) * ring_row, C);
  for (t = 0; t < K; t++)
    rows[t] = ring + (ptrdiff_t) ((first + t) % K) * ring_row;
  weighted_sum (out, rows, fy->weight + (ptrdiff_t) r * K, K,
      (ptrdiff_t) fx->n_out * C);
}

/* The recursions of lag 1 (all of them where q = 1) on n lines of 32
 * values `stride` apart, the last line of each recursion kept in a local
 * array (registers where the vector unit has enough: two AVX-512 vectors
 * a recursion): both sweeps through every recursion at once, one load
 * and one store a line and direction.  The same sums as recursions (). */
static BSPLINE_INLINE void
recursions_lag1 (float *c, int n, ptrdiff_t stride, const float *pole,
    int R)
{
  float prev[BSPLINE_FOLD_MAX_RECURSIONS][32], x[32];
  int l, i, k, dir;

  for (dir = 0; dir < 2; dir++) {
    memset (prev, 0, sizeof (prev));
    for (l = 0; l < n; l++) {
      float *line = c + (ptrdiff_t) (dir ? n - 1 - l : l) * stride;
      memcpy (x, line, sizeof (x));
#pragma GCC unroll 8
      for (i = 0; i < BSPLINE_FOLD_MAX_RECURSIONS; i++)
        if (i < R)
          for (k = 0; k < 32; k++)
            prev[i][k] = x[k] = fmaf (pole[i], prev[i][k], x[k]);
      memcpy (line, x, sizeof (x));
    }
  }
}

/* An axis's recursions on lines of `width` values: those of lag 1 by
 * recursions_lag1 where the width is a multiple of 32, the others (and
 * every recursion of a narrower remainder) by recursions (). */
static BSPLINE_INLINE void
axis_recursions (float *c, int n, ptrdiff_t stride, const int width,
    const bspline_fold_axis * f, float *history)
{
  bspline_fold_axis lagged = *f;
  float pole[BSPLINE_FOLD_MAX_RECURSIONS];
  int i, v, R = 0;

  lagged.n_recursions = 0;
  for (i = 0; i < f->n_recursions; i++)
    if (f->lag[i] == 1 && width % 32 == 0)
      pole[R++] = f->pole[i];
    else {
      lagged.pole[lagged.n_recursions] = f->pole[i];
      lagged.lag[lagged.n_recursions++] = f->lag[i];
    }
  if (lagged.n_recursions > 0)
    recursions (c, n, stride, width, &lagged, history);
  if (R > 0)
    for (v = 0; v < width; v += 32)
      recursions_lag1 (c + v, n, stride, pole, R);
}

/* Pass 1, band `band`: plane rows band * job->band_rows on, a group of G
 * rows at a time: margined rows interleaved into lanes, the recursions
 * along x, b^n along x into the plane. */
static BSPLINE_INLINE void
project_band (const fold_job * job, int band, char *scratch, const int C)
{
  const bspline_fold_axis *fx = &job->fold->x, *fy = &job->fold->y;
  const int G = group_rows (C), W = fx->n_out, out_w = job->dst->width;
  const int S = 2 * fx->half + 1;
  worker_layout w;
  float *row, *lanes, *history;
  const int l0 = band * job->band_rows;
  const int l1 = l0 + job->band_rows < fy->n_out ?
      l0 + job->band_rows : fy->n_out;
  int g, q, x, c, j, k, v, next = -1;

  layout (job->plan, &w);
  row = (float *) (scratch + w.row);
  lanes = (float *) (scratch + w.lanes);
  history = (float *) (scratch + w.history);
  for (g = l0; g < l1; g += G) {
    const int count = g + G <= l1 ? G : l1 - g;
    for (q = 0; q < count; q++) {
      margined_row (job, g + q, &next, scratch, &w, row, C);
      for (x = 0; x < W; x++)
        for (c = 0; c < C; c++)
          lanes[(ptrdiff_t) x * LANES + q * C + c] = row[x * C + c];
    }
    /* the lanes of rows past the band hold earlier rows' values, or the
     * zeros the scratch starts with: finite, and nobody reads them */
    axis_recursions (lanes, W, LANES, LANES, fx, history);
    for (j = 0; j < out_w; j++) {
      const float *at = lanes + (ptrdiff_t) (j + fx->margin - fx->half)
          * LANES;
      float acc[LANES];
      for (v = 0; v < LANES; v++)
        acc[v] = fx->sample[0] * at[v];
      for (k = 1; k < S; k++)
        for (v = 0; v < LANES; v++)
          acc[v] = fmaf (fx->sample[k], at[(ptrdiff_t) k * LANES + v], acc[v]);
      for (q = 0; q < count; q++)
        for (c = 0; c < C; c++)
          job->plane[(ptrdiff_t) (g + q) * job->plane_stride + j * C + c] =
              acc[q * C + c];
    }
  }
}

/* The task of pass 1, C a constant in each call. */
BSPLINE_VECTOR_CLONES static void
project_task (void *data, int task, int worker)
{
  const fold_job *job = data;
  char *scratch = job->scratch + (size_t) worker * job->worker_size;
  switch (job->plan->channels) {
    case 1:
      project_band (job, task, scratch, 1);
      break;
    case 2:
      project_band (job, task, scratch, 2);
      break;
    case 3:
      project_band (job, task, scratch, 3);
      break;
    default:
      project_band (job, task, scratch, 4);
      break;
  }
}

/* Pass 2, strip `strip` of the plane's values: the recursions along y,
 * then b^n along y, rounded and stored. */
static BSPLINE_INLINE void
strip_out (const fold_job * job, ptrdiff_t v0, const int width,
    float *history)
{
  const bspline_fold_axis *fy = &job->fold->y;
  const ptrdiff_t n = job->plane_stride;
  const int S = 2 * fy->half + 1;
  float *c = job->plane + v0;
  int i, k, v;

  axis_recursions (c, fy->n_out, n, width, fy, history);
  for (i = 0; i < job->dst->height; i++) {
    const float *at = c + (ptrdiff_t) (i + fy->margin - fy->half) * n;
    float acc[STRIP];
    for (v = 0; v < width; v++)
      acc[v] = fy->sample[0] * at[v];
    for (k = 1; k < S; k++)
      for (v = 0; v < width; v++)
        acc[v] = fmaf (fy->sample[k], at[(ptrdiff_t) k * n + v], acc[v]);
    store_values_f (job->dst, i, v0, acc, width);
  }
}

BSPLINE_VECTOR_CLONES static void
strip_task (void *data, int strip, int worker)
{
  const fold_job *job = data;
  const ptrdiff_t v0 = (ptrdiff_t) strip * STRIP;
  worker_layout w;
  float *history;

  layout (job->plan, &w);
  history = (float *) (job->scratch + (size_t) worker * job->worker_size
      + w.history);
  if (job->plane_row - v0 >= STRIP)
    strip_out (job, v0, STRIP, history);
  else
    strip_out (job, v0, (int) (job->plane_row - v0), history);
}

void
bspline_fold_execute (bspline_pool * pool, const bspline_plan * plan,
    const bspline_image * src, const bspline_image * dst,
    const bspline_image * inter, void *scratch)
{
  fold_job job;
  const bspline_fold *f = plan->reduce->fold;
  worker_layout w;

  layout (plan, &w);
  job.plan = plan;
  job.fold = f;
  job.src = src;
  job.dst = dst;
  job.plane = inter->data;
  job.plane_row = (ptrdiff_t) plan->dst_width * plan->channels;
  job.plane_stride = inter->stride / (ptrdiff_t) sizeof (float);
  job.band_rows = band_rows (plan->channels);
  job.scratch = scratch;
  job.worker_size = w.total;
  bspline_pool_run (pool, (f->y.n_out + job.band_rows - 1) / job.band_rows,
      project_task, &job);
  bspline_pool_run (pool, (int) ((job.plane_row + STRIP - 1) / STRIP),
      strip_task, &job);
}
