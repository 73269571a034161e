/* prefilter.c: the direct B-spline transform of an image plane.
 *
 * Unser's recursive filters with the exact, boundary-specific
 * initialisations and precision-driven truncation of Briand & Monasse
 * (2018) as presented in Briand & Davy (2019), section 2 (seed 001). */
#include "resample.h"

#include <stdint.h>
#include <string.h>

#define PREFILTER_MAX_LANES 64
/* The causal pass of the streaming path splits the lines into blocks of
 * at least this many lines (and at least truncation + 2): three groups of
 * four-channel rows, and 45 blocks in a 1080-line frame, enough tasks for
 * 16 threads or more. */
#define CAUSAL_BLOCK_ROWS 24

/* Source row of line `line` of the padded storage of a column, or -1 for
 * a line of the constant extension. */
static int
bspline_source_row (const bspline_plan * plan, int line)
{
  int y = line - plan->pad;
  if (y >= 0 && y < plan->src_height)
    return y;
  if (plan->params.boundary == BSPLINE_BOUNDARY_CONSTANT)
    return -1;
  return y < 0 ? 0 : plan->src_height - 1;
}

int
bspline_causal_blocks (const bspline_plan * plan)
{
  const int n_lines = plan->src_height + 2 * plan->pad;
  const int least = plan->setup.truncation[0] + 2 > CAUSAL_BLOCK_ROWS ?
      plan->setup.truncation[0] + 2 : CAUSAL_BLOCK_ROWS;
  return n_lines / least > 1 ? n_lines / least : 1;
}

/* First line of block `block` of n_blocks over n_lines lines. */
static int
block_first (int n_lines, int n_blocks, int block)
{
  return (int) ((long long) n_lines * block / n_blocks);
}

int
bspline_causal_line_carry (const bspline_plan * plan, int n_blocks, int line)
{
  const int n_lines = plan->src_height + 2 * plan->pad;
  const int block = bspline_causal_block_of_line (plan, n_blocks, line);
  const int offset = line - block_first (n_lines, n_blocks, block);
  return block > 0 && offset < plan->setup.truncation[0] ? offset + 1 : 0;
}

/* group_out of a whole group of four-channel float rows where AVX-512 is
 * there: rows q = 0 .. count - 1 of buf (interleaved, see resample.h) into
 * out[q], each after the causal recursion along y against the row above
 * when chain is set (the row above row 0 is prev; none when prev is
 * NULL), s_k = x_k + z s_{k-1} ([BD19] eq. 15, across rows), with the
 * fused multiply-add of line_out (prefilter-impl.h), so the values are
 * the same.  Four pixels of the eight rows are read at once (eight
 * vectors) and transposed by 128-bit lanes, instead of the whole buffer
 * once per row as the C loop does.  Returns 0 where it does not apply. */
#if BSPLINE_X86_DISPATCH

/* Pixels x .. n - 1 of group_out_rgba_body and its AVX2 twin, one value
 * at a time: the same operations in the same order as their vectors. */
__attribute__ ((always_inline))
static inline void
group_out_rgba_tail (const float *buf, int count, float *const *out,
    const float *prev, int chain, float z, int x, int n)
{
  int q, c;
  for (; x < n; x++)
    for (c = 0; c < 4; c++) {
      float s = buf[(ptrdiff_t) x * BSPLINE_GROUP_LANES + c];
      if (chain && prev)
        s = fmaf (z, prev[4 * x + c], s);
      out[0][4 * x + c] = s;
      for (q = 1; q < count; q++) {
        float u = buf[(ptrdiff_t) x * BSPLINE_GROUP_LANES + 4 * q + c];
        s = chain ? fmaf (z, s, u) : u;
        out[q][4 * x + c] = s;
      }
    }
}

/* Pixels x .. x + 3 of rows 0 .. count - 1 of a group, one vector per
 * row (r[q]), into out[q], chained along y as group_out_rgba_tail does. */
__attribute__ ((target ("avx512f,fma"), always_inline))
static inline void
group_rows_out_avx512 (const __m512 * r, int count, float *const *out,
    const float *prev, int chain, __m512 vz, int x)
{
  __m512 v = r[0];
  int q;
  if (chain && prev)
    v = _mm512_fmadd_ps (vz, _mm512_loadu_ps (prev + 4 * x), v);
  _mm512_storeu_ps (out[0] + 4 * x, v);
  for (q = 1; q < count; q++) {
    v = chain ? _mm512_fmadd_ps (vz, v, r[q]) : r[q];
    _mm512_storeu_ps (out[q] + 4 * x, v);
  }
}

__attribute__ ((target ("avx512f,fma"), always_inline))
static inline void
group_out_rgba_body (const float *buf, int count,
    float *const *out, const float *prev, int chain, float z, int n)
{
  const __m512 vz = _mm512_set1_ps (z);
  int x, k;

  for (x = 0; x + 4 <= n; x += 4) {
    const float *b = buf + (ptrdiff_t) x * BSPLINE_GROUP_LANES;
    __m512 a[8], r[8];
    for (k = 0; k < 8; k++)
      a[k] = _mm512_loadu_ps (b + 16 * k);
    bspline_group_rows_rgba_avx512 (a, r);
    group_rows_out_avx512 (r, count, out, prev, chain, vz, x);
  }
  group_out_rgba_tail (buf, count, out, prev, chain, z, x, n);
}

/* The whole chained group (count 8, the common case) is compiled apart,
 * with the count a constant: the eight rows then stay in registers (with
 * a variable count, GCC keeps r[] on the stack). */
__attribute__ ((target ("avx512f,fma")))
static void
group_out_rgba_avx512 (const float *buf, int count,
    float *const *out, const float *prev, int chain, float z, int n)
{
  if (count == 8 && chain)
    group_out_rgba_body (buf, 8, out, prev, 1, z, n);
  else
    group_out_rgba_body (buf, count, out, prev, chain, z, n);
}

/* The last anticausal recursion along x of a whole group of eight
 * four-channel float rows (left by filter_group: pixel n - 1 holds its
 * initialisation) fused with group_out_rgba_body's chained pass where
 * AVX-512 is there: the recursion runs from pixel n - 2 down to 0, four
 * pixels at a time, and each block of four goes out along its eight rows
 * at once instead of being stored into buf and read back.  The operations
 * are those of filter_lines and line_out in their order (the recursion of
 * every lane is the same chain; each pixel's rows are chained on their
 * own), so the values are the same. */
__attribute__ ((target ("avx512f,fma")))
static void
anticausal_out_rgba_avx512 (float *buf, float *const *out,
    const float *prev, float z, int n)
{
  const __m512 vz = _mm512_set1_ps (z);
  const int xa = n & ~3;
  float *e = buf + (ptrdiff_t) (n - 1) * BSPLINE_GROUP_LANES;
  __m512 s0 = _mm512_loadu_ps (e), s1 = _mm512_loadu_ps (e + 16);
  int x, p;

  /* pixels xa .. n - 1, one at a time */
  for (x = n - 2; x >= xa; x--) {
    float *b = buf + (ptrdiff_t) x * BSPLINE_GROUP_LANES;
    s0 = _mm512_fmsub_ps (vz, s0, _mm512_mul_ps (vz, _mm512_loadu_ps (b)));
    s1 = _mm512_fmsub_ps (vz, s1, _mm512_mul_ps (vz,
            _mm512_loadu_ps (b + 16)));
    _mm512_storeu_ps (b, s0);
    _mm512_storeu_ps (b + 16, s1);
  }
  group_out_rgba_tail (buf, 8, out, prev, 1, z, xa, n);
  for (x = xa - 4; x >= 0; x -= 4) {
    const float *b = buf + (ptrdiff_t) x * BSPLINE_GROUP_LANES;
    __m512 a[8], r[8];
    for (p = 3; p >= 0; p--) {
      a[2 * p] = _mm512_loadu_ps (b + p * BSPLINE_GROUP_LANES);
      a[2 * p + 1] = _mm512_loadu_ps (b + p * BSPLINE_GROUP_LANES + 16);
      if (x + p < n - 1) {
        s0 = _mm512_fmsub_ps (vz, s0, _mm512_mul_ps (vz, a[2 * p]));
        s1 = _mm512_fmsub_ps (vz, s1, _mm512_mul_ps (vz, a[2 * p + 1]));
        a[2 * p] = s0;
        a[2 * p + 1] = s1;
      } else {
        s0 = a[2 * p];
        s1 = a[2 * p + 1];
      }
    }
    bspline_group_rows_rgba_avx512 (a, r);
    group_rows_out_avx512 (r, 8, out, prev, 1, vz, x);
  }
}

/* group_out_rgba_avx512 for AVX2 machines: two pixels of the eight rows
 * (eight vectors) at a time, the same operations in the same order. */
__attribute__ ((target ("avx2,fma"), always_inline))
static inline void
group_out_rgba_body_avx2 (const float *buf, int count,
    float *const *out, const float *prev, int chain, float z, int n)
{
  const __m256 vz = _mm256_set1_ps (z);
  int x, q, h;

  for (x = 0; x + 2 <= n; x += 2) {
    const float *b = buf + (ptrdiff_t) x * BSPLINE_GROUP_LANES;
    __m256 r[8], v;
    for (h = 0; h < 4; h++) {
      __m256 g0 = _mm256_loadu_ps (b + 8 * h);
      __m256 g1 = _mm256_loadu_ps (b + BSPLINE_GROUP_LANES + 8 * h);
      r[2 * h] = _mm256_permute2f128_ps (g0, g1, 0x20);
      r[2 * h + 1] = _mm256_permute2f128_ps (g0, g1, 0x31);
    }
    v = r[0];
    if (chain && prev)
      v = _mm256_fmadd_ps (vz, _mm256_loadu_ps (prev + 4 * x), v);
    _mm256_storeu_ps (out[0] + 4 * x, v);
    for (q = 1; q < count; q++) {
      v = chain ? _mm256_fmadd_ps (vz, v, r[q]) : r[q];
      _mm256_storeu_ps (out[q] + 4 * x, v);
    }
  }
  group_out_rgba_tail (buf, count, out, prev, chain, z, x, n);
}

__attribute__ ((target ("avx2,fma")))
static void
group_out_rgba_avx2 (const float *buf, int count,
    float *const *out, const float *prev, int chain, float z, int n)
{
  if (count == 8 && chain)
    group_out_rgba_body_avx2 (buf, 8, out, prev, 1, z, n);
  else
    group_out_rgba_body_avx2 (buf, count, out, prev, chain, z, n);
}

static int
group_out_all_f (const bspline_plan * plan, const float *buf, int count,
    float *const *out, const float *prev, int chain, float z)
{
  const int n = plan->src_width + 2 * plan->pad;
  if (plan->channels != 4)
    return 0;
  if (bspline_x86_avx512 ())
    group_out_rgba_avx512 (buf, count, out, prev, chain, z, n);
  else if (bspline_x86_avx2 ())
    group_out_rgba_avx2 (buf, count, out, prev, chain, z, n);
  else
    return 0;
  return 1;
}

/* Whether anticausal_out_all_f takes a group of count rows of plan. */
static int
anticausal_out_usable_f (const bspline_plan * plan, int count)
{
  return plan->channels == 4 && count == 8 && bspline_group_rows (4) == 8
      && bspline_x86_avx512 ();
}

static void
anticausal_out_all_f (const bspline_plan * plan, float *buf,
    float *const *out, const float *prev, float z)
{
  anticausal_out_rgba_avx512 (buf, out, prev, z,
      plan->src_width + 2 * plan->pad);
}

/* The source pixels of eight four-channel U8 rows into the body of a
 * group (interleaved, see resample.h), each value converted and times
 * gain as read_row and interleave (prefilter-impl.h) do, so the values
 * are the same: four pixels of the eight rows are loaded (eight vectors)
 * and transposed by 128-bit lanes, so that the group takes whole-vector
 * stores instead of one 128-bit store per pixel and row. */
__attribute__ ((target ("avx512f")))
static void
load_group_rgba8_avx512 (float *body, const uint8_t * const *row, float gain,
    int n)
{
  const __m512 g = _mm512_set1_ps (gain);
  int x, q, c;

  for (x = 0; x + 4 <= n; x += 4) {
    float *b = body + (ptrdiff_t) x * BSPLINE_GROUP_LANES;
    __m512 r[8];
    for (q = 0; q < 8; q++)
      r[q] = _mm512_mul_ps (_mm512_cvtepi32_ps (_mm512_cvtepu8_epi32
              (_mm_loadu_si128 ((const __m128i *) (row[q] + 4 * x)))), g);
    bspline_group_store_rgba_avx512 (b, r);
  }
  for (; x < n; x++)
    for (q = 0; q < 8; q++)
      for (c = 0; c < 4; c++)
        body[(ptrdiff_t) x * BSPLINE_GROUP_LANES + 4 * q + c] =
            (float) row[q][4 * x + c] * gain;
}

/* load_group_rgba8_avx512 for AVX2 machines: two pixels of the eight rows
 * (eight vectors) at a time. */
__attribute__ ((target ("avx2")))
static void
load_group_rgba8_avx2 (float *body, const uint8_t * const *row, float gain,
    int n)
{
  const __m256 g = _mm256_set1_ps (gain);
  int x, q, c;

  for (x = 0; x + 2 <= n; x += 2) {
    __m256 r[8];
    for (q = 0; q < 8; q++)
      r[q] = _mm256_mul_ps (_mm256_cvtepi32_ps (_mm256_cvtepu8_epi32
              (_mm_loadl_epi64 ((const __m128i *) (row[q] + 4 * x)))), g);
    bspline_group_store_rgba_avx2 (body + (ptrdiff_t) x *
        BSPLINE_GROUP_LANES, r);
  }
  for (; x < n; x++)
    for (q = 0; q < 8; q++)
      for (c = 0; c < 4; c++)
        body[(ptrdiff_t) x * BSPLINE_GROUP_LANES + 4 * q + c] =
            (float) row[q][4 * x + c] * gain;
}

/* Pixels x0 .. x1 - 1 of the body of a group of eight four-channel U8
 * rows (see load_group_rgba8_avx512). */
static int
load_group_rgba8_f (const bspline_plan * plan, const bspline_image * src,
    float *body, const uint8_t * const *row, float gain, int x0, int x1)
{
  const uint8_t *r[8];
  int q;
  if (plan->channels != 4 || src->type != BSPLINE_SAMPLE_U8
      || bspline_group_rows (4) != 8)
    return 0;
  for (q = 0; q < 8; q++)
    r[q] = row[q] + 4 * x0;
  body += (ptrdiff_t) x0 * BSPLINE_GROUP_LANES;
  if (bspline_x86_avx512 ())
    load_group_rgba8_avx512 (body, r, gain, x1 - x0);
  else if (bspline_x86_avx2 ())
    load_group_rgba8_avx2 (body, r, gain, x1 - x0);
  else
    return 0;
  return 1;
}

/* Pixel x of the body of such a group, loaded and filtered causally from
 * pixel x - 1 as load_group_rgba8_avx512 and filter_lines do. */
__attribute__ ((target ("avx512f,fma"), always_inline))
static inline void
load_causal_pixel (float *body, const uint8_t * const *row, float gain,
    float z, int x)
{
  float *b = body + (ptrdiff_t) x * BSPLINE_GROUP_LANES;
  int q, c;
  for (q = 0; q < 8; q++)
    for (c = 0; c < 4; c++)
      b[4 * q + c] = fmaf (z, b[4 * q + c - BSPLINE_GROUP_LANES],
          (float) row[q][4 * x + c] * gain);
}

/* Pixels x0 .. n - 1 (x0 >= 1, or a padded body) of the body of a group of
 * eight four-channel U8 rows, loaded and filtered causally along x from
 * pixel x0 - 1 on: load_group_rgba8_avx512's loads and transposes, then
 * the recursion of filter_lines on the four pixels in registers, so that
 * the group is written once instead of written, read and written again.
 * The same operations in the same order, so the same values. */
__attribute__ ((target ("avx512f,fma")))
static void
load_causal_rgba8_avx512 (float *body, const uint8_t * const *row,
    float gain, float z, int x0, int n)
{
  const __m512 g = _mm512_set1_ps (gain), vz = _mm512_set1_ps (z);
  __m512 s0, s1;
  int x = x0, q, p;

  for (; x < n && (x & 3); x++)
    load_causal_pixel (body, row, gain, z, x);
  s0 = _mm512_loadu_ps (body + (ptrdiff_t) (x - 1) * BSPLINE_GROUP_LANES);
  s1 = _mm512_loadu_ps (body + (ptrdiff_t) (x - 1) * BSPLINE_GROUP_LANES
      + 16);
  for (; x + 4 <= n; x += 4) {
    float *b = body + (ptrdiff_t) x * BSPLINE_GROUP_LANES;
    __m512 r[8], a[8];
    for (q = 0; q < 8; q++)
      r[q] = _mm512_mul_ps (_mm512_cvtepi32_ps (_mm512_cvtepu8_epi32
              (_mm_loadu_si128 ((const __m128i *) (row[q] + 4 * x)))), g);
    bspline_group_transpose_rgba_avx512 (r, a);
    for (p = 0; p < 4; p++) {
      s0 = _mm512_fmadd_ps (vz, s0, a[2 * p]);
      s1 = _mm512_fmadd_ps (vz, s1, a[2 * p + 1]);
      _mm512_storeu_ps (b + p * BSPLINE_GROUP_LANES, s0);
      _mm512_storeu_ps (b + p * BSPLINE_GROUP_LANES + 16, s1);
    }
  }
  for (; x < n; x++)
    load_causal_pixel (body, row, gain, z, x);
}

static int
load_causal_usable_f (const bspline_plan * plan)
{
  return plan->channels == 4 && bspline_group_rows (4) == 8
      && bspline_x86_avx512 ();
}

static void
load_causal_f (float *body, const uint8_t * const *row, float gain, float z,
    int x0, int n)
{
  load_causal_rgba8_avx512 (body, row, gain, z, x0, n);
}
#else
static int
group_out_all_f (const bspline_plan * plan, const float *buf, int count,
    float *const *out, const float *prev, int chain, float z)
{
  (void) plan, (void) buf, (void) count, (void) out, (void) prev;
  (void) chain, (void) z;
  return 0;
}

static int
load_group_rgba8_f (const bspline_plan * plan, const bspline_image * src,
    float *body, const uint8_t * const *row, float gain, int x0, int x1)
{
  (void) plan, (void) src, (void) body, (void) row, (void) gain;
  (void) x0, (void) x1;
  return 0;
}

static int
load_causal_usable_f (const bspline_plan * plan)
{
  (void) plan;
  return 0;
}

static void
load_causal_f (float *body, const uint8_t * const *row, float gain, float z,
    int x0, int n)
{
  (void) body, (void) row, (void) gain, (void) z, (void) x0, (void) n;
}

static int
anticausal_out_usable_f (const bspline_plan * plan, int count)
{
  (void) plan, (void) count;
  return 0;
}

static void
anticausal_out_all_f (const bspline_plan * plan, float *buf,
    float *const *out, const float *prev, float z)
{
  (void) plan, (void) buf, (void) out, (void) prev, (void) z;
}
#endif

static int
anticausal_out_usable_d (const bspline_plan * plan, int count)
{
  (void) plan, (void) count;
  return 0;
}

static void
anticausal_out_all_d (const bspline_plan * plan, double *buf,
    double *const *out, const double *prev, double z)
{
  (void) plan, (void) buf, (void) out, (void) prev, (void) z;
}

static int
load_group_rgba8_d (const bspline_plan * plan, const bspline_image * src,
    double *body, const uint8_t * const *row, double gain, int x0, int x1)
{
  (void) plan, (void) src, (void) body, (void) row, (void) gain;
  (void) x0, (void) x1;
  return 0;
}

static int
load_causal_usable_d (const bspline_plan * plan)
{
  (void) plan;
  return 0;
}

static void
load_causal_d (double *body, const uint8_t * const *row, double gain,
    double z, int x0, int n)
{
  (void) body, (void) row, (void) gain, (void) z, (void) x0, (void) n;
}

static int
group_out_all_d (const bspline_plan * plan, const double *buf, int count,
    double *const *out, const double *prev, int chain, double z)
{
  (void) plan, (void) buf, (void) count, (void) out, (void) prev;
  (void) chain, (void) z;
  return 0;
}

#define REAL double
#define SUFFIX(name) name##_d
#define MADD BSPLINE_MADD_UNFUSED
#define ANTICAUSAL BSPLINE_ANTICAUSAL_UNFUSED
#include "prefilter-impl.h"
#undef REAL
#undef SUFFIX
#undef MADD
#undef ANTICAUSAL

#define REAL float
#define SUFFIX(name) name##_f
#define MADD fmaf
#define ANTICAUSAL BSPLINE_ANTICAUSAL_FUSED
#include "prefilter-impl.h"
#undef REAL
#undef SUFFIX
#undef MADD
#undef ANTICAUSAL

typedef struct
{
  const bspline_plan *plan;
  const bspline_image *src;
  const bspline_coefficients *coef;
  void *last_line;
  char *scratch;
  size_t worker_size;           /* bytes of scratch per worker */
  int n_lines;                  /* lines of the padded storage */
  int n_bands;
  ptrdiff_t n_values;           /* values per stored row */
} prefilter_job;

static size_t
real_size (const bspline_plan * plan)
{
  return plan->use_double ? sizeof (double) : sizeof (float);
}

/* Per worker: one group of lines and one converted source row, in
 * 64-byte units. */
static size_t
worker_size (const bspline_plan * plan)
{
  size_t width = (size_t) plan->src_width + 2 * (size_t) plan->pad;
  size_t values = width * BSPLINE_GROUP_LANES
      + (size_t) plan->src_width * plan->channels;
  return (values * real_size (plan) + 63) / 64 * 64;
}

size_t
bspline_prefilter_scratch_size (const bspline_plan * plan, int n_workers)
{
  return worker_size (plan) * (size_t) n_workers;
}

static void
band (const prefilter_job * job, int task, int *first, int *last)
{
  *first = (int) ((long long) job->n_lines * task / job->n_bands);
  *last = (int) ((long long) job->n_lines * (task + 1) / job->n_bands);
}

static void
row_task (void *data, int task, int worker)
{
  const prefilter_job *job = data;
  void *scratch = job->scratch + job->worker_size * worker;
  int first, last;
  band (job, task, &first, &last);
  if (job->plan->use_double)
    prefilter_rows_d (job->plan, job->src, job->coef, first, last, scratch);
  else
    prefilter_rows_f (job->plan, job->src, job->coef, first, last, scratch);
}

static void
column_task (void *data, int task, int worker)
{
  const prefilter_job *job = data;
  ptrdiff_t v0 = (ptrdiff_t) task * PREFILTER_MAX_LANES;
  int lanes = (int) (job->n_values - v0 < PREFILTER_MAX_LANES ?
      job->n_values - v0 : PREFILTER_MAX_LANES);
  (void) worker;
  if (job->plan->use_double)
    prefilter_columns_d (job->plan, job->coef, v0, lanes);
  else
    prefilter_columns_f (job->plan, job->coef, v0, lanes);
}

static void
job_init (prefilter_job * job, const bspline_plan * plan,
    const bspline_image * src, const bspline_coefficients * coef,
    void *scratch)
{
  job->plan = plan;
  job->src = src;
  job->coef = coef;
  job->last_line = NULL;
  job->scratch = scratch;
  job->worker_size = worker_size (plan);
  job->n_lines = coef->height + 2 * coef->pad;
  job->n_values = coef->row_len;
}

void
bspline_prefilter_image (bspline_pool * pool, const bspline_plan * plan,
    const bspline_image * src, const bspline_coefficients * coef,
    void *scratch)
{
  prefilter_job job;
  int bands = 4 * bspline_pool_size (pool);

  job_init (&job, plan, src, coef, scratch);
  job.n_bands = job.n_lines < bands ? job.n_lines : bands;
  bspline_pool_run (pool, job.n_bands, row_task, &job);
  if (plan->prefilter && plan->filter_y)
    bspline_pool_run (pool,
        (int) ((job.n_values + PREFILTER_MAX_LANES - 1) /
            PREFILTER_MAX_LANES), column_task, &job);
}

void
bspline_prefilter_causal_block (const bspline_plan * plan,
    const bspline_image * src, const bspline_coefficients * coef,
    void *last_line, void *scratch, int block)
{
  const int n_lines = coef->height + 2 * coef->pad;
  const int n_blocks = bspline_causal_blocks (plan);
  const int first = block_first (n_lines, n_blocks, block);
  const int last = block_first (n_lines, n_blocks, block + 1);
  if (plan->use_double)
    causal_lines_d (plan, src, coef, first, last, last_line, scratch);
  else
    causal_lines_f (plan, src, coef, first, last, last_line, scratch);
}

int
bspline_causal_block_of_line (const bspline_plan * plan, int n_blocks,
    int line)
{
  const int n_lines = plan->src_height + 2 * plan->pad;
  int block = (int) ((long long) line * n_blocks / n_lines);
  while (block + 1 < n_blocks
      && block_first (n_lines, n_blocks, block + 1) <= line)
    block++;
  return block;
}
