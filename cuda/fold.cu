/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fold.cu: the folded least-squares reduction on the GPU
 * (bspline_gpu_fold_run; the maths and its tables: bspline_fold_axis in
 * core/resample/resample.h, built by core/resample/reduce.c; the CPU
 * engine's passes: core/resample/fold.c).
 *
 * Where both axes shrink at a rational ratio p / q, each axis's
 * least-squares samples are b^n G (prod_i R(z_i^p, q)) (w * FIR) s: a
 * short periodic table on the source's own samples (no prefilter, no
 * plane of coefficients), then recursions and b^n on the output grid
 * with its margin.  Three kernels:
 *   1. project: a tile of the margined plane a block: the rows of the
 *               extended column that the tile reads (the boundary's map
 *               of the source rows) through the x table, from the
 *               samples, into shared memory, then the y table over them
 *               into the plane (margined height x margined width);
 *   2. along y: the y recursions and b^n along y, plane -> tmp (output
 *               height x margined width);
 *   3. along x: the x recursions and b^n along x, tmp -> the output
 *               samples, rounded and stored as the CPU engine does.
 * Passes 2 and 3 run each line in windows of FOLD_WINDOW outputs in
 * shared memory: a window's recursions start from zero a halo of the
 * axis's margin before and after the samples its outputs read (clamped
 * to the margined line, where the CPU engine's start), the margin being
 * the length over which the Gram filter's slowest pole forgets its start
 * to the float path's eps (reduce.c, gram_margin); the prefilter's poles,
 * z^p at lag q < p, forget theirs faster.  Float throughout, fused
 * multiply-adds as the CPU engine's.  Each output's first tap comes from
 * the table `at` (one load, not a division by q).  The measurements and
 * the counts for a faster design: docs/notes/gpu-fold.md. */
#include "cuda-fold.h"
#include "kernels-common.cuh"

/* outputs of a window of passes 2 and 3, and threads of a block there */
#define FOLD_WINDOW 64
#define FOLD_THREADS 64
/* margined x outputs of a tile of pass 1 */
#define FOLD_TILE 32
/* shared memory a block of pass 1 may take */
#define FOLD_TILE_BYTES (44 * 1024)

/* An 8-bit code value as a float: the byte as the low mantissa bits of
 * 2^23, less 2^23 (a byte permute and an add, both at full rate; the
 * conversion instruction runs at a quarter of it, and the first version
 * of pass 1 spent most of its time there). */
__device__ static __forceinline__ float
fold_byte (unsigned word, int byte)
{
  return __uint_as_float (__byte_perm (word, 0x4bu, 0x4550 + byte))
      - 8388608.0f;
}

/* C samples of pixel `col` of a row, as code values; word: 8-bit RGBA
 * rows whose pixels are aligned 4-byte words. */
template < int C > __device__ static __forceinline__ void
fold_load_pixel (const unsigned char *row, int type, int shift, int col,
    bool word, float *v)
{
  if (C == 4 && word) {
    const unsigned w = *(const unsigned *) (row + (size_t) col * 4);
#pragma unroll
    for (int c = 0; c < C; c++)
      v[c] = fold_byte (w, c);
  } else {
#pragma unroll
    for (int c = 0; c < C; c++)
      v[c] = (float) read_sample (row, type, shift, col * C + c);
  }
}

/* Pass 1, one tile of the plane a block: margined outputs
 * [l0, l0 + ty) of y (blockIdx.y) and [j0, j0 + FOLD_TILE) of x
 * (blockIdx.x).  The rows of the extended column that the tile's y
 * outputs read go through the x table into shared memory (row e, pixel
 * k, channel c at [(e - e0) FOLD_TILE + k] C + c; after them the source
 * columns that the x outputs read), then the y table over them into the
 * plane (values: the margined width times the channels). */
template < int C > __global__ static void
fold_project_kernel (bspline_gpu_fold f, int ty, const unsigned char *src,
    size_t src_pitch, float *plane)
{
  extern __shared__ float rows[];
  const bspline_gpu_fold_axis &x = f.x, &y = f.y;
  const int values = x.n_out * C;
  const int l0 = blockIdx.y * ty, j0 = blockIdx.x * FOLD_TILE;
  const int l1 = l0 + ty < y.n_out ? l0 + ty : y.n_out;
  const int n = j0 + FOLD_TILE < x.n_out ? FOLD_TILE : x.n_out - j0;
  const bool word = C == 4 && f.src_type == BSPLINE_SAMPLE_U8
      && (((uintptr_t) src | src_pitch) & 3) == 0;
  int *cols;
  int e0 = 0x7fffffff, e1 = -1, x0 = 0x7fffffff, x1 = -1, l, r, j, item, t,
      c;

  /* the extended rows the tile reads: [e0, e1) */
  for (l = l0; l < l1 && l < l0 + y.q; l++)
    e0 = min (e0, __ldg (y.at + l));
  for (l = l1 - 1; l >= l0 && l > l1 - 1 - y.q; l--)
    e1 = max (e1, __ldg (y.at + l) + y.n_taps);
  cols = (int *) (rows + (size_t) (e1 - e0) * FOLD_TILE * C);
  /* the source columns of the tile's x outputs: [x0, x1) of the
   * extended row, in cols */
  for (j = j0; j < j0 + n && j < j0 + x.q; j++)
    x0 = min (x0, __ldg (x.at + j));
  for (j = j0 + n - 1; j >= j0 && j > j0 + n - 1 - x.q; j--)
    x1 = max (x1, __ldg (x.at + j) + x.n_taps);
  for (item = threadIdx.x; item < x1 - x0; item += blockDim.x)
    cols[item] = __ldg (x.index + x0 + item);
  __syncthreads ();
  /* four taps' loads in flight a thread */
  for (item = threadIdx.x; item < (e1 - e0) * FOLD_TILE;
      item += blockDim.x) {
    const int e = item / FOLD_TILE, k = item % FOLD_TILE;
    float acc[C];
#pragma unroll
    for (c = 0; c < C; c++)
      acc[c] = 0.0f;
    if (k < n) {
      const unsigned char *row = src + (size_t) __ldg (y.index + e0 + e)
          * src_pitch;
      const int rx = (j0 + k) % x.q;
      const int *ci = cols + __ldg (x.at + j0 + k) - x0;
      const float *w = x.weight + rx * x.n_taps;
      for (t = 0; t < x.n_taps; t += 4) {
        float v[4][C];
        int u;
#pragma unroll
        for (u = 0; u < 4; u++)
          if (t + u < x.n_taps)
            fold_load_pixel < C > (row, f.src_type, f.src_shift, ci[t + u],
                word, v[u]);
#pragma unroll
        for (u = 0; u < 4; u++)
          if (t + u < x.n_taps) {
            const float wt = __ldg (w + t + u);
#pragma unroll
            for (c = 0; c < C; c++)
              acc[c] = fmaf (wt, v[u][c], acc[c]);
          }
      }
    }
#pragma unroll
    for (c = 0; c < C; c++)
      rows[item * C + c] = acc[c];
  }
  __syncthreads ();
  for (item = threadIdx.x; item < (l1 - l0) * FOLD_TILE * C;
      item += blockDim.x) {
    const int v = item % (FOLD_TILE * C);
    float acc = 0.0f;
    const float *in, *w;
    l = l0 + item / (FOLD_TILE * C);
    r = l % y.q;
    if (v >= n * C)
      continue;
    in = rows + (size_t) (__ldg (y.at + l) - e0) * FOLD_TILE * C + v;
    w = y.weight + r * y.n_taps;
#pragma unroll 4
    for (t = 0; t < y.n_taps; t++)
      acc = fmaf (__ldg (w + t), in[t * FOLD_TILE * C], acc);
    plane[(size_t) l * values + (size_t) j0 * C + v] = acc;
  }
}

/* The margined samples [*a, *b) that the window of outputs [o0, o1)
 * reads, with the halo on each side, clamped to the margined line. */
__device__ static __forceinline__ void
fold_window (const bspline_gpu_fold_axis & x, int o0, int o1, int *a, int *b)
{
  const int halo = x.margin;
  *a = o0 + x.margin - x.half - halo;
  *b = o1 + x.margin + x.half + halo;
  *a = *a < 0 ? 0 : *a;
  *b = *b > x.n_out ? x.n_out : *b;
}

/* The recursions of axis x on the line line[s * stride], s < len, from
 * zero at both ends, then b^n: output o0 + k, k < n, to line[k * stride]
 * (in place: output k reads samples k and on).  As fold.c's
 * axis_recursions: those of lag q > 1 one after the other (causal, then
 * anticausal), then the R of lag 1 all at once, one sweep each way with
 * each recursion's last value in a register (its recursions_lag1). */
template < int R > __device__ static __forceinline__ void
fold_line (const bspline_gpu_fold_axis & x, float *line, int stride, int len,
    int skip, int n)
{
  float z[R > 0 ? R : 1], prev[R > 0 ? R : 1];
  const int taps = 2 * x.half + 1;
  int i, s, k;

  for (i = 0; i < x.n_lagged; i++) {
    const float p = x.lagged_pole[i];
    const int L = x.lagged_lag[i];
    for (s = L; s < len; s++)
      line[s * stride] = fmaf (p, line[(s - L) * stride], line[s * stride]);
    for (s = len - 1 - L; s >= 0; s--)
      line[s * stride] = fmaf (p, line[(s + L) * stride], line[s * stride]);
  }
#pragma unroll
  for (i = 0; i < R; i++) {
    z[i] = x.pole1[i];
    prev[i] = 0.0f;
  }
#pragma unroll 4
  for (s = 0; s < len; s++) {
    float v = line[s * stride];
#pragma unroll
    for (i = 0; i < R; i++)
      prev[i] = v = fmaf (z[i], prev[i], v);
    line[s * stride] = v;
  }
#pragma unroll
  for (i = 0; i < R; i++)
    prev[i] = 0.0f;
#pragma unroll 4
  for (s = len - 1; s >= 0; s--) {
    float v = line[s * stride];
#pragma unroll
    for (i = 0; i < R; i++)
      prev[i] = v = fmaf (z[i], prev[i], v);
    line[s * stride] = v;
  }
  for (k = 0; k < n; k++) {
    const float *at = line + (skip + k) * stride;
    float acc = x.sample[0] * at[0];
    for (s = 1; s < taps; s++)
      acc = fmaf (x.sample[s], at[s * stride], acc);
    line[k * stride] = acc;
  }
}

/* Pass 2: a window of FOLD_WINDOW output rows, FOLD_THREADS values of
 * the plane's rows (a thread each). */
template < int R > __global__ static void
fold_along_y_kernel (bspline_gpu_fold f, int values, int dst_height,
    const float *plane, float *out)
{
  extern __shared__ float line_y[];
  const bspline_gpu_fold_axis &y = f.y;
  const int v = blockIdx.x * FOLD_THREADS + threadIdx.x;
  const int o0 = blockIdx.y * FOLD_WINDOW;
  const int o1 = o0 + FOLD_WINDOW < dst_height ? o0 + FOLD_WINDOW
      : dst_height;
  float *line = line_y + threadIdx.x;
  int a, b, s, k;

  if (v >= values)
    return;
  fold_window (y, o0, o1, &a, &b);
  /* eight loads in flight a thread */
  for (s = a; s < b; s += 8) {
    float t[8];
    int u;
#pragma unroll
    for (u = 0; u < 8; u++)
      if (s + u < b)
        t[u] = plane[(size_t) (s + u) * values + v];
#pragma unroll
    for (u = 0; u < 8; u++)
      if (s + u < b)
        line[(s + u - a) * FOLD_THREADS] = t[u];
  }
  fold_line < R > (y, line, FOLD_THREADS, b - a, o0 + y.margin - y.half
      - a, o1 - o0);
  for (k = 0; k < o1 - o0; k++)
    out[(size_t) (o0 + k) * values + v] = line[k * FOLD_THREADS];
}

/* Pass 3: a window of FOLD_WINDOW output columns of FOLD_THREADS / C
 * rows (a thread per row and channel); the window's samples loaded and
 * the outputs stored a row's run at a time.  The shared line of a thread
 * has an odd stride, so that the rows' threads of a warp fall in
 * distinct banks. */
template < int C, int R > __global__ static void
fold_along_x_kernel (bspline_gpu_fold f, int values, int stride,
    const float *in, unsigned char *dst, size_t dst_pitch)
{
  extern __shared__ float line_x[];
  const bspline_gpu_fold_axis &x = f.x;
  const int rows = FOLD_THREADS / C;
  const int i0 = blockIdx.y * rows;
  const int o0 = blockIdx.x * FOLD_WINDOW;
  const int o1 = o0 + FOLD_WINDOW < f.dst_width ? o0 + FOLD_WINDOW
      : f.dst_width;
  const int n_rows = i0 + rows <= f.dst_height ? rows : f.dst_height - i0;
  const int me = threadIdx.x;
  int a, b, e, r, len;

  fold_window (x, o0, o1, &a, &b);
  len = b - a;
  /* sample s of the line of row r, channel c at [(r C + c) stride + s];
   * four loads in flight a thread */
  for (r = 0; r < n_rows; r++) {
    const float *src = in + (size_t) (i0 + r) * values + (size_t) a * C;
    float *line = line_x + r * C * stride;
    for (e = me; e < len * C; e += 4 * FOLD_THREADS) {
      float t[4];
      int u;
#pragma unroll
      for (u = 0; u < 4; u++)
        if (e + u * FOLD_THREADS < len * C)
          t[u] = src[e + u * FOLD_THREADS];
#pragma unroll
      for (u = 0; u < 4; u++) {
        const int g = e + u * FOLD_THREADS;
        if (g < len * C)
          line[(g % C) * stride + g / C] = t[u];
      }
    }
  }
  __syncthreads ();
  if (me < n_rows * C)
    fold_line < R > (x, line_x + me * stride, 1, len, o0 + x.margin - x.half
        - a, o1 - o0);
  __syncthreads ();
  for (r = 0; r < n_rows; r++) {
    unsigned char *out = dst + (size_t) (i0 + r) * dst_pitch;
    const float *line = line_x + r * C * stride;
    for (e = me; e < (o1 - o0) * C; e += FOLD_THREADS)
      write_sample (out, f.dst_type, f.dst_bits, f.dst_shift, o0 * C + e,
          line[(e % C) * stride + e / C]);
  }
}

/* Shared memory of a window of passes 2 and 3 for axis a. */
static size_t
fold_window_bytes (const bspline_gpu_fold_axis * a, int *len)
{
  *len = FOLD_WINDOW + 2 * a->half + 2 * a->margin;
  *len = *len > a->n_out ? a->n_out : *len;
  return sizeof (float) * (size_t) (*len | 1) * FOLD_THREADS;
}

/* The margined y outputs of a tile of pass 1 (32 down to 1, the
 * most whose extended rows fit FOLD_TILE_BYTES; 0: none fit), and its
 * shared memory. */
static int
fold_tile_rows (const bspline_gpu_fold * f, size_t *bytes)
{
  const bspline_gpu_fold_axis *y = &f->y;
  int ty;
  for (ty = 32; ty >= 1; ty /= 2) {
    /* at most (ty - 1) / q + 1 periods of p rows, the phases' first
     * taps at most p apart, and the taps */
    const int rows = ((ty - 1) / y->q + 1) * y->p + y->p + y->n_taps;
    const int cols = ((FOLD_TILE - 1) / f->x.q + 1) * f->x.p + f->x.p
        + f->x.n_taps;
    *bytes = sizeof (float) * (size_t) rows * FOLD_TILE * f->channels
        + sizeof (int) * (size_t) cols;
    if (*bytes <= FOLD_TILE_BYTES)
      return ty;
  }
  return 0;
}

extern "C" int
bspline_gpu_fold_usable (const bspline_gpu_fold * f)
{
  int len;
  size_t bytes;
  return f->channels >= 1 && f->channels <= 4
      && fold_tile_rows (f, &bytes) > 0
      && fold_window_bytes (&f->x, &len) <= 48 * 1024
      && fold_window_bytes (&f->y, &len) <= 48 * 1024;
}

template < int C > static int
fold_run (const bspline_gpu_fold * f, const void *src, size_t src_pitch,
    float *tmp, float *plane, void *dst, size_t dst_pitch,
    cudaStream_t stream)
{
  const int values = f->x.n_out * C;
  int len_x, len_y;
  size_t shared_p;
  const int ty = fold_tile_rows (f, &shared_p);
  const size_t shared_x = fold_window_bytes (&f->x, &len_x);
  const size_t shared_y = fold_window_bytes (&f->y, &len_y);
  const int rows = FOLD_THREADS / C;

  fold_project_kernel < C > <<<dim3 ((unsigned) (f->x.n_out + FOLD_TILE - 1)
      / FOLD_TILE, (unsigned) (f->y.n_out + ty - 1) / ty), 256, shared_p,
      stream >>> (*f, ty, (const unsigned char *) src, src_pitch, plane);
  {
    const dim3 grid ((unsigned) (values + FOLD_THREADS - 1) / FOLD_THREADS,
        (unsigned) (f->dst_height + FOLD_WINDOW - 1) / FOLD_WINDOW);
    switch (f->y.n_lag1) {
#define ALONG_Y(R) case R: fold_along_y_kernel < R > <<<grid, FOLD_THREADS, \
        shared_y, stream >>> (*f, values, f->dst_height, plane, tmp); break;
      ALONG_Y (0) ALONG_Y (1) ALONG_Y (2) ALONG_Y (3) ALONG_Y (4)
      ALONG_Y (5) ALONG_Y (6) default: ALONG_Y (7)
#undef ALONG_Y
    }
  }
  {
    const dim3 grid ((unsigned) (f->dst_width + FOLD_WINDOW - 1)
        / FOLD_WINDOW, (unsigned) (f->dst_height + rows - 1) / rows);
    switch (f->x.n_lag1) {
#define ALONG_X(R) case R: fold_along_x_kernel < C, R > <<<grid, FOLD_THREADS, \
        shared_x, stream >>> (*f, values, len_x | 1, tmp, \
        (unsigned char *) dst, dst_pitch); break;
      ALONG_X (0) ALONG_X (1) ALONG_X (2) ALONG_X (3) ALONG_X (4)
      ALONG_X (5) ALONG_X (6) default: ALONG_X (7)
#undef ALONG_X
    }
  }
  return cudaGetLastError ();
}

extern "C" int
bspline_gpu_fold_run (const bspline_gpu_fold * f, const void *src,
    size_t src_pitch, void *tmp, void *plane, void *dst, size_t dst_pitch,
    void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  float *t = (float *) tmp, *p = (float *) plane;
  switch (f->channels) {
    case 1:
      return fold_run < 1 > (f, src, src_pitch, t, p, dst, dst_pitch, s);
    case 2:
      return fold_run < 2 > (f, src, src_pitch, t, p, dst, dst_pitch, s);
    case 3:
      return fold_run < 3 > (f, src, src_pitch, t, p, dst, dst_pitch, s);
    default:
      return fold_run < 4 > (f, src, src_pitch, t, p, dst, dst_pitch, s);
  }
}
