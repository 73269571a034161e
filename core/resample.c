/* resample.c: the indirect B-spline transform: evaluating the stored
 * coefficients at the inverse image of every output pixel centre
 * ([BD19] Algorithm 3), on the separable path for axis-aligned maps and on
 * the general path for warps. */
#include "internal.h"

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

/* The V-pass of four taps and the U8 store fused in one loop, for float
 * where AVX-512 is there: w0 r0 + w1 r1 + w2 r2 + w3 r3 summed left to
 * right as the C loop of resample_columns does (no fused multiply-add),
 * then clamped, rounded half up and truncated as clamp_values and
 * store_values do: the bytes are the same as those of the plain C path,
 * which GCC vectorises with compares and blends only.
 *
 * The loop is bound by the two vector ports that take 512-bit operations
 * (seven of them per vector are the sum), so the clamp costs one: u =
 * min (255, v) (vminps returns its second operand, v, when either is NaN),
 * then t = (int32) (u + 0.5) (cvttps2dq), and the saturating packs
 * (vpackusdw, vpackuswb) clamp t below at 0.  t is u + 0.5 truncated
 * wherever the C expression is: 0 < v < 255 gives the same float sum;
 * v >= 255 gives 255; v <= 0, -inf or NaN give t <= 0 or the integer
 * indefinite 0x80000000 (negative), hence 0, as v > 0 ? v : 0 does.  Four
 * vectors of 16 values are packed into one 64-byte store (a vpermd puts the
 * 4-value pieces that the in-lane packs interleave back in order).
 * Returns 0 where it does not apply. */
#if BSPLINE_X86_DISPATCH

__attribute__ ((target ("avx512f,avx512bw")))
static void
sum4_store_u8_avx512 (uint8_t * out, const float *r0,
    const float *r1, const float *r2, const float *r3, const float *w, int n)
{
  const __m512 w0 = _mm512_set1_ps (w[0]), w1 = _mm512_set1_ps (w[1]);
  const __m512 w2 = _mm512_set1_ps (w[2]), w3 = _mm512_set1_ps (w[3]);
  const __m512 zero = _mm512_setzero_ps (), top = _mm512_set1_ps (255.0f);
  const __m512 half = _mm512_set1_ps (0.5f);
  const __m512i order = _mm512_setr_epi32 (0, 4, 8, 12, 1, 5, 9, 13, 2, 6,
      10, 14, 3, 7, 11, 15);
  int i, k;

  for (i = 0; i + 64 <= n; i += 64) {
    __m512i t[4];
    for (k = 0; k < 4; k++) {
      const int e = i + 16 * k;
      __m512 v = _mm512_add_ps (_mm512_add_ps (_mm512_add_ps (_mm512_mul_ps
                  (w0, _mm512_loadu_ps (r0 + e)), _mm512_mul_ps (w1,
                      _mm512_loadu_ps (r1 + e))), _mm512_mul_ps (w2,
                  _mm512_loadu_ps (r2 + e))), _mm512_mul_ps (w3,
              _mm512_loadu_ps (r3 + e)));
      t[k] = _mm512_cvttps_epi32 (_mm512_add_ps (_mm512_min_ps (top, v),
              half));
    }
    _mm512_storeu_si512 ((void *) (out + i), _mm512_permutexvar_epi32 (order,
            _mm512_packus_epi16 (_mm512_packus_epi32 (t[0], t[1]),
                _mm512_packus_epi32 (t[2], t[3]))));
  }
  for (; i + 16 <= n; i += 16) {
    __m512 v = _mm512_add_ps (_mm512_add_ps (_mm512_add_ps (_mm512_mul_ps
                (w0, _mm512_loadu_ps (r0 + i)), _mm512_mul_ps (w1,
                    _mm512_loadu_ps (r1 + i))), _mm512_mul_ps (w2,
                _mm512_loadu_ps (r2 + i))), _mm512_mul_ps (w3,
            _mm512_loadu_ps (r3 + i)));
    v = _mm512_min_ps (_mm512_max_ps (v, zero), top);
    _mm_storeu_si128 ((__m128i *) (out + i),
        _mm512_cvtepi32_epi8 (_mm512_cvttps_epi32 (_mm512_add_ps (v,
                    half))));
  }
  for (; i < n; i++) {
    float v = w[0] * r0[i] + w[1] * r1[i] + w[2] * r2[i] + w[3] * r3[i];
    v = v > 0.0f ? v : 0.0f;
    v = v < 255.0f ? v : 255.0f;
    out[i] = (uint8_t) (int32_t) (v + 0.5f);
  }
}

/* sum4_store_u8_avx512 for AVX2 machines: eight values a vector, the
 * same operations (min, cvttps2dq and the saturating packs) in the same
 * order, so the bytes are the same; the packs interleave 4-value pieces
 * of the four vectors within 128-bit lanes, which a vpermd puts back. */
__attribute__ ((target ("avx2")))
static void
sum4_store_u8_avx2 (uint8_t * out, const float *r0,
    const float *r1, const float *r2, const float *r3, const float *w, int n)
{
  const __m256 w0 = _mm256_set1_ps (w[0]), w1 = _mm256_set1_ps (w[1]);
  const __m256 w2 = _mm256_set1_ps (w[2]), w3 = _mm256_set1_ps (w[3]);
  const __m256 top = _mm256_set1_ps (255.0f), half = _mm256_set1_ps (0.5f);
  const __m256i order = _mm256_setr_epi32 (0, 4, 1, 5, 2, 6, 3, 7);
  int i, k;

  for (i = 0; i + 32 <= n; i += 32) {
    __m256i t[4];
    for (k = 0; k < 4; k++) {
      const int e = i + 8 * k;
      __m256 v = _mm256_add_ps (_mm256_add_ps (_mm256_add_ps (_mm256_mul_ps
                  (w0, _mm256_loadu_ps (r0 + e)), _mm256_mul_ps (w1,
                      _mm256_loadu_ps (r1 + e))), _mm256_mul_ps (w2,
                  _mm256_loadu_ps (r2 + e))), _mm256_mul_ps (w3,
              _mm256_loadu_ps (r3 + e)));
      t[k] = _mm256_cvttps_epi32 (_mm256_add_ps (_mm256_min_ps (top, v),
              half));
    }
    _mm256_storeu_si256 ((__m256i *) (out + i),
        _mm256_permutevar8x32_epi32 (_mm256_packus_epi16
            (_mm256_packus_epi32 (t[0], t[1]), _mm256_packus_epi32 (t[2],
                    t[3])), order));
  }
  for (; i < n; i++) {
    float v = w[0] * r0[i] + w[1] * r1[i] + w[2] * r2[i] + w[3] * r3[i];
    v = v > 0.0f ? v : 0.0f;
    v = v < 255.0f ? v : 255.0f;
    out[i] = (uint8_t) (int32_t) (v + 0.5f);
  }
}

static int
sum4_store_u8_f (uint8_t * out, const float *r0, const float *r1,
    const float *r2, const float *r3, const float *w, int n)
{
  if (bspline_x86_avx512 ())
    sum4_store_u8_avx512 (out, r0, r1, r2, r3, w, n);
  else if (bspline_x86_avx2 ())
    sum4_store_u8_avx2 (out, r0, r1, r2, r3, w, n);
  else
    return 0;
  return 1;
}

/* Pixels x .. n - 1 of anticausal_group_rgba_body and its AVX2 twin, one
 * value at a time: the same operations in the same order as their
 * vectors, rows count .. 7 of buf copies of the last. */
__attribute__ ((always_inline))
static inline void
anticausal_group_rgba_tail (float *c, const float *const *s,
    const float *const *carry, const float *w, float z, float *buf,
    int count, int x, int n)
{
  int q, k;
  for (; x < n; x++)
    for (k = 0; k < 4; k++) {
      float v = c[4 * x + k];
      for (q = 0; q < 8; q++) {
        if (q < count && carry[q])
          v = z * (v - (s[q][4 * x + k] + w[q] * carry[q][4 * x + k]));
        else if (q < count)
          v = z * (v - s[q][4 * x + k]);
        if (buf)
          buf[(ptrdiff_t) x * BSPLINE_GROUP_LANES + 4 * q + k] = v;
      }
      c[4 * x + k] = v;
    }
}

/* Up to eight anticausal steps of the streaming path for four-channel
 * float rows where AVX-512 is there: row q = 0 .. count - 1 is c_q =
 * z (c_{q-1} - (s_q + w_q carry_q)) (c_{-1} is c on entry; no carry term
 * where carry[q] is NULL), with the operations of anticausal_row_c
 * (resample-impl.h) in its order, so the values are the same; c_q goes
 * into lanes 4 q .. 4 q + 3 of buf (interleaved, see internal.h; not with
 * a NULL buf; rows count .. 7 get c_{count-1}) and c_{count-1} into c.
 * Four pixels of the eight rows stay in registers and are transposed by
 * 128-bit lanes, so that buf takes whole-vector stores and c is read and
 * written once per group instead of once per row. */
__attribute__ ((target ("avx512f"), always_inline))
static inline void
anticausal_group_rgba_body (float *c, const float *const *s,
    const float *const *carry, const float *w, float z, float *buf,
    int count, int n)
{
  const __m512 vz = _mm512_set1_ps (z);
  int x, q;

  for (x = 0; x + 4 <= n; x += 4) {
    float *b = buf + (ptrdiff_t) x * BSPLINE_GROUP_LANES;
    __m512 r[8], v = _mm512_loadu_ps (c + 4 * x);
    for (q = 0; q < count; q++) {
      __m512 sv = _mm512_loadu_ps (s[q] + 4 * x);
      if (carry[q])
        sv = _mm512_add_ps (sv, _mm512_mul_ps (_mm512_set1_ps (w[q]),
                _mm512_loadu_ps (carry[q] + 4 * x)));
      v = _mm512_mul_ps (vz, _mm512_sub_ps (v, sv));
      r[q] = v;
    }
    for (; q < 8; q++)
      r[q] = v;
    _mm512_storeu_ps (c + 4 * x, v);
    if (buf)
      bspline_group_store_rgba_avx512 (b, r);
  }
  anticausal_group_rgba_tail (c, s, carry, w, z, buf, count, x, n);
}

/* The whole group (count 8, the common case) is compiled apart, with the
 * count a constant: the eight rows then stay in registers (with a
 * variable count, GCC keeps r[] on the stack). */
__attribute__ ((target ("avx512f")))
static void
anticausal_group_rgba_avx512 (float *c, const float *const *s,
    const float *const *carry, const float *w, float z, float *buf,
    int count, int n)
{
  if (count == 8 && buf)
    anticausal_group_rgba_body (c, s, carry, w, z, buf, 8, n);
  else if (count == 8)
    anticausal_group_rgba_body (c, s, carry, w, z, NULL, 8, n);
  else
    anticausal_group_rgba_body (c, s, carry, w, z, buf, count, n);
}

/* anticausal_group_rgba_avx512 for AVX2 machines: two pixels of the
 * eight rows (eight vectors) at a time, the same operations in the same
 * order. */
__attribute__ ((target ("avx2"), always_inline))
static inline void
anticausal_group_rgba_body_avx2 (float *c, const float *const *s,
    const float *const *carry, const float *w, float z, float *buf,
    int count, int n)
{
  const __m256 vz = _mm256_set1_ps (z);
  int x, q;

  for (x = 0; x + 2 <= n; x += 2) {
    __m256 r[8], v = _mm256_loadu_ps (c + 4 * x);
    for (q = 0; q < count; q++) {
      __m256 sv = _mm256_loadu_ps (s[q] + 4 * x);
      if (carry[q])
        sv = _mm256_add_ps (sv, _mm256_mul_ps (_mm256_set1_ps (w[q]),
                _mm256_loadu_ps (carry[q] + 4 * x)));
      v = _mm256_mul_ps (vz, _mm256_sub_ps (v, sv));
      r[q] = v;
    }
    for (; q < 8; q++)
      r[q] = v;
    _mm256_storeu_ps (c + 4 * x, v);
    if (buf)
      bspline_group_store_rgba_avx2 (buf + (ptrdiff_t) x *
          BSPLINE_GROUP_LANES, r);
  }
  anticausal_group_rgba_tail (c, s, carry, w, z, buf, count, x, n);
}

__attribute__ ((target ("avx2")))
static void
anticausal_group_rgba_avx2 (float *c, const float *const *s,
    const float *const *carry, const float *w, float z, float *buf,
    int count, int n)
{
  if (count == 8 && buf)
    anticausal_group_rgba_body_avx2 (c, s, carry, w, z, buf, 8, n);
  else if (count == 8)
    anticausal_group_rgba_body_avx2 (c, s, carry, w, z, NULL, 8, n);
  else
    anticausal_group_rgba_body_avx2 (c, s, carry, w, z, buf, count, n);
}

static int
anticausal_group_impl_f (float *c, const float *const *s,
    const float *const *carry, const float *w, float z, float *buf,
    int count, int n)
{
  if (bspline_x86_avx512 ())
    anticausal_group_rgba_avx512 (c, s, carry, w, z, buf, count, n);
  else if (bspline_x86_avx2 ())
    anticausal_group_rgba_avx2 (c, s, carry, w, z, buf, count, n);
  else
    return 0;
  return 1;
}
/* resample_group_c (resample-impl.h) of four taps over a group of eight
 * four-channel float rows where AVX-512 is there: each output value is
 * w0 s0 + w1 s1 + w2 s2 + w3 s3 summed left to right (no fused
 * multiply-add), as the C loop does, so the values are the same.  Four
 * output pixels (eight vectors) are transposed by 128-bit lanes, so that
 * each of the eight rows takes one whole-vector store instead of four
 * 128-bit ones. */
__attribute__ ((target ("avx512f")))
static void
resample_group_rgba_avx512 (const float *buf, float *const *out,
    const int *index, const float *weights, int j0, int j1)
{
  int j, p, h, l;

  for (j = j0; j + 4 <= j1; j += 4) {
    /* a[2 p + h]: output pixel j + p, rows 4 h .. 4 h + 3 */
    __m512 a[8], t0, t1, t2, t3;
    for (p = 0; p < 4; p++) {
      const int *ix = index + (size_t) (j + p) * 4;
      const float *w = weights + (size_t) (j + p) * 4;
      const float *s0 = buf + (ptrdiff_t) ix[0] * BSPLINE_GROUP_LANES;
      const float *s1 = buf + (ptrdiff_t) ix[1] * BSPLINE_GROUP_LANES;
      const float *s2 = buf + (ptrdiff_t) ix[2] * BSPLINE_GROUP_LANES;
      const float *s3 = buf + (ptrdiff_t) ix[3] * BSPLINE_GROUP_LANES;
      const __m512 w0 = _mm512_set1_ps (w[0]), w1 = _mm512_set1_ps (w[1]);
      const __m512 w2 = _mm512_set1_ps (w[2]), w3 = _mm512_set1_ps (w[3]);
      for (h = 0; h < 2; h++)
        a[2 * p + h] = _mm512_add_ps (_mm512_add_ps (_mm512_add_ps
                (_mm512_mul_ps (w0, _mm512_loadu_ps (s0 + 16 * h)),
                    _mm512_mul_ps (w1, _mm512_loadu_ps (s1 + 16 * h))),
                _mm512_mul_ps (w2, _mm512_loadu_ps (s2 + 16 * h))),
            _mm512_mul_ps (w3, _mm512_loadu_ps (s3 + 16 * h)));
    }
    for (h = 0; h < 2; h++) {
      t0 = _mm512_shuffle_f32x4 (a[h], a[2 + h], 0x44);
      t1 = _mm512_shuffle_f32x4 (a[h], a[2 + h], 0xEE);
      t2 = _mm512_shuffle_f32x4 (a[4 + h], a[6 + h], 0x44);
      t3 = _mm512_shuffle_f32x4 (a[4 + h], a[6 + h], 0xEE);
      _mm512_storeu_ps (out[4 * h] + 4 * j,
          _mm512_shuffle_f32x4 (t0, t2, 0x88));
      _mm512_storeu_ps (out[4 * h + 1] + 4 * j,
          _mm512_shuffle_f32x4 (t0, t2, 0xDD));
      _mm512_storeu_ps (out[4 * h + 2] + 4 * j,
          _mm512_shuffle_f32x4 (t1, t3, 0x88));
      _mm512_storeu_ps (out[4 * h + 3] + 4 * j,
          _mm512_shuffle_f32x4 (t1, t3, 0xDD));
    }
  }
  for (; j < j1; j++) {
    const int *ix = index + (size_t) j * 4;
    const float *w = weights + (size_t) j * 4;
    for (l = 0; l < BSPLINE_GROUP_LANES; l++)
      out[l / 4][4 * j + l % 4] =
          w[0] * buf[(ptrdiff_t) ix[0] * BSPLINE_GROUP_LANES + l]
          + w[1] * buf[(ptrdiff_t) ix[1] * BSPLINE_GROUP_LANES + l]
          + w[2] * buf[(ptrdiff_t) ix[2] * BSPLINE_GROUP_LANES + l]
          + w[3] * buf[(ptrdiff_t) ix[3] * BSPLINE_GROUP_LANES + l];
  }
}

/* resample_group_rgba_avx512 for AVX2 machines: a pixel of the eight
 * rows is four vectors (rows 2 h and 2 h + 1 in a[p][h]), two output pixels
 * at a time; the 128-bit halves of each pair of vectors are exchanged
 * (vperm2f128) so that each row takes one 32-byte store.  The same sums
 * in the same order, so the values are the same. */
__attribute__ ((target ("avx2")))
static void
resample_group_rgba_avx2 (const float *buf, float *const *out,
    const int *index, const float *weights, int j0, int j1)
{
  int j, p, h, l;

  for (j = j0; j + 2 <= j1; j += 2) {
    __m256 a[2][4];
    for (p = 0; p < 2; p++) {
      const int *ix = index + (size_t) (j + p) * 4;
      const float *w = weights + (size_t) (j + p) * 4;
      const float *s0 = buf + (ptrdiff_t) ix[0] * BSPLINE_GROUP_LANES;
      const float *s1 = buf + (ptrdiff_t) ix[1] * BSPLINE_GROUP_LANES;
      const float *s2 = buf + (ptrdiff_t) ix[2] * BSPLINE_GROUP_LANES;
      const float *s3 = buf + (ptrdiff_t) ix[3] * BSPLINE_GROUP_LANES;
      const __m256 w0 = _mm256_set1_ps (w[0]), w1 = _mm256_set1_ps (w[1]);
      const __m256 w2 = _mm256_set1_ps (w[2]), w3 = _mm256_set1_ps (w[3]);
      for (h = 0; h < 4; h++)
        a[p][h] = _mm256_add_ps (_mm256_add_ps (_mm256_add_ps (_mm256_mul_ps
                    (w0, _mm256_loadu_ps (s0 + 8 * h)), _mm256_mul_ps (w1,
                        _mm256_loadu_ps (s1 + 8 * h))), _mm256_mul_ps (w2,
                    _mm256_loadu_ps (s2 + 8 * h))), _mm256_mul_ps (w3,
                _mm256_loadu_ps (s3 + 8 * h)));
    }
    for (h = 0; h < 4; h++) {
      _mm256_storeu_ps (out[2 * h] + 4 * j,
          _mm256_permute2f128_ps (a[0][h], a[1][h], 0x20));
      _mm256_storeu_ps (out[2 * h + 1] + 4 * j,
          _mm256_permute2f128_ps (a[0][h], a[1][h], 0x31));
    }
  }
  for (; j < j1; j++) {
    const int *ix = index + (size_t) j * 4;
    const float *w = weights + (size_t) j * 4;
    for (l = 0; l < BSPLINE_GROUP_LANES; l++)
      out[l / 4][4 * j + l % 4] =
          w[0] * buf[(ptrdiff_t) ix[0] * BSPLINE_GROUP_LANES + l]
          + w[1] * buf[(ptrdiff_t) ix[1] * BSPLINE_GROUP_LANES + l]
          + w[2] * buf[(ptrdiff_t) ix[2] * BSPLINE_GROUP_LANES + l]
          + w[3] * buf[(ptrdiff_t) ix[3] * BSPLINE_GROUP_LANES + l];
  }
}

static int
resample_group_rgba_f (const float *buf, float *const *out,
    const int *index, const float *weights, int j0, int j1)
{
  if (BSPLINE_GROUP_LANES != 32)
    return 0;
  if (bspline_x86_avx512 ())
    resample_group_rgba_avx512 (buf, out, index, weights, j0, j1);
  else if (bspline_x86_avx2 ())
    resample_group_rgba_avx2 (buf, out, index, weights, j0, j1);
  else
    return 0;
  return 1;
}
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
#include "resample-impl.h"
#undef REAL
#undef SUFFIX

#define REAL float
#define SUFFIX(name) name##_f
#include "resample-impl.h"
#undef REAL
#undef SUFFIX

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

size_t
bspline_resample_scratch_size (const bspline_plan * plan, int n_workers)
{
  const size_t n_lines = (size_t) plan->src_height + 2 * (size_t) plan->pad;
  const size_t row = (size_t) plan->dst_width * plan->channels
      * real_size (plan);
  if (!plan->separable)
    return row * (size_t) n_workers;
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

static void
warp_task (void *data, int task, int worker)
{
  const resample_job *job = data;
  const bspline_plan *plan = job->plan;
  size_t row = (size_t) plan->dst_width * plan->channels;
  int first, last;
  band (job, plan->dst_height, task, &first, &last);
  if (plan->use_double)
    warp_rows_d (plan, job->coef, (double *) job->scratch + row * worker,
        job->dst, first, last);
  else
    warp_rows_f (plan, job->coef, (float *) job->scratch + row * worker,
        job->dst, first, last);
}

/* The streaming path's pool run: tasks are the causal blocks, then the
 * output chunks, and a chunk waits only until the blocks it reads are
 * done (up to the block of line top + N, its anticausal warm-up), not for
 * the whole first pass, so that the threads that finish the last blocks
 * early start on the chunks (the values are those of two passes one after
 * the other).  Placing each chunk right after its blocks, so that the
 * lines it reads were written shortly before, was slower on the 16-core
 * host (docs/cpu-performance-notes.md, v8). */
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
    void *scratch)
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
  if (!plan->separable) {
    bspline_pool_run (pool, job.n_bands, warp_task, &job);
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
