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
 *   2. along y: the output grid's filter along y (its recursions, then
 *               b^n) as its truncated FIR (bspline_fold_axis.fir, made
 *               by reduce.c), plane -> tmp (output height x margined
 *               width);
 *   3. along x: the same along x, tmp -> the output samples, rounded and
 *               stored as the CPU engine does.
 * The FIR's tails beyond its taps sum to 1e-8 of its l1 norm, and it
 * reaches no further than the margin: the CPU engine's recursions start
 * from zero at the margined line's ends, as precise.  Float throughout,
 * fused multiply-adds.  Each output's first tap comes from
 * the table `at` (one load, not a division by q).  The measurements and
 * the counts for a faster design: docs/notes/gpu-fold.md. */
#include "cuda-fold.h"
#include "kernels-common.cuh"

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

/* Outputs of a thread of passes 2 and 3: each sample it loads serves
 * the taps of all of them (FIR_N + 2 K loads for FIR_N outputs). */
#define FIR_N_Y 16
#define FIR_N_X 8

/* Pass 2: the output grid's filter along y (bspline_fold_axis.fir, K
 * its taps' class: taps -K .. K, zero past fir_half), a thread per value
 * (of the margined width times the channels) and FIR_N_Y output rows:
 * out[i] = sum_m fir[m] plane[i + margin + m].  The taps, indexed by
 * constants, are the multiply-adds' operands from the kernel's
 * arguments. */
template < int K > __global__ static void
fold_fir_y_kernel (bspline_gpu_fold f, int values, const float *plane,
    float *out)
{
  const bspline_gpu_fold_axis &y = f.y;
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  const int i0 = blockIdx.y * FIR_N_Y;
  const int first = i0 + y.margin - K;
  float acc[FIR_N_Y];
  int s, o;

  if (v >= values)
    return;
#pragma unroll
  for (o = 0; o < FIR_N_Y; o++)
    acc[o] = 0.0f;
#pragma unroll
  for (s = 0; s < FIR_N_Y + 2 * K; s++) {
    const int row = first + s;
    const float x = row >= 0 && row < y.n_out ?
        plane[(size_t) row * values + v] : 0.0f;
#pragma unroll
    for (o = 0; o < FIR_N_Y; o++)
      if (s - o >= 0 && s - o <= 2 * K)
        acc[o] = fmaf (y.fir[BSPLINE_GPU_FOLD_MAX_FIR + s - o - K], x,
            acc[o]);
  }
#pragma unroll
  for (o = 0; o < FIR_N_Y; o++)
    if (i0 + o < f.dst_height)
      out[(size_t) (i0 + o) * values + v] = acc[o];
}

/* Pass 3: the same along x, a thread per FIR_N_X output pixels of a row
 * (blockIdx.y), rounded and stored as the CPU engine does. */
template < int C, int K > __global__ static void
fold_fir_x_kernel (bspline_gpu_fold f, int values, const float *in,
    unsigned char *dst, size_t dst_pitch)
{
  const bspline_gpu_fold_axis &x = f.x;
  const int j0 = (blockIdx.x * blockDim.x + threadIdx.x) * FIR_N_X;
  const int i = blockIdx.y;
  const int first = j0 + x.margin - K;
  const float *row = in + (size_t) i * values;
  unsigned char *out = dst + (size_t) i * dst_pitch;
  float acc[FIR_N_X][C];
  int s, o, c;

  if (j0 >= f.dst_width)
    return;
#pragma unroll
  for (o = 0; o < FIR_N_X; o++)
#pragma unroll
    for (c = 0; c < C; c++)
      acc[o][c] = 0.0f;
#pragma unroll
  for (s = 0; s < FIR_N_X + 2 * K; s++) {
    const int col = first + s;
    float v[C];
    if (col >= 0 && col < x.n_out) {
      if (C == 4) {
        const float4 p = *(const float4 *) (row + (size_t) col * 4);
        v[0] = p.x;
        v[C > 1 ? 1 : 0] = p.y;
        v[C > 2 ? 2 : 0] = p.z;
        v[C > 3 ? 3 : 0] = p.w;
      } else {
#pragma unroll
        for (c = 0; c < C; c++)
          v[c] = row[(size_t) col * C + c];
      }
    } else {
#pragma unroll
      for (c = 0; c < C; c++)
        v[c] = 0.0f;
    }
#pragma unroll
    for (o = 0; o < FIR_N_X; o++)
      if (s - o >= 0 && s - o <= 2 * K) {
        const float w = x.fir[BSPLINE_GPU_FOLD_MAX_FIR + s - o - K];
#pragma unroll
        for (c = 0; c < C; c++)
          acc[o][c] = fmaf (w, v[c], acc[o][c]);
      }
  }
#pragma unroll
  for (o = 0; o < FIR_N_X; o++)
    if (j0 + o < f.dst_width)
      write_pixel < C > (out, f.dst_type, f.dst_bits, f.dst_shift, j0 + o,
          acc[o]);
}

/* The taps' class of an axis: the least of 8, 16, 32, 48 and 64 that
 * holds its FIR (0: none). */
static int
fold_fir_class (const bspline_gpu_fold_axis * a)
{
  static const int classes[] = { 8, 16, 32, 48, 64 };
  int k;
  for (k = 0; k < 5; k++)
    if (a->fir_half <= classes[k])
      return classes[k];
  return 0;
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
  size_t bytes;
  return f->channels >= 1 && f->channels <= 4
      && fold_tile_rows (f, &bytes) > 0 && fold_fir_class (&f->x) > 0
      && fold_fir_class (&f->y) > 0;
}

template < int C > static int
fold_run (const bspline_gpu_fold * f, const void *src, size_t src_pitch,
    float *tmp, float *plane, void *dst, size_t dst_pitch,
    cudaStream_t stream)
{
  const int values = f->x.n_out * C;
  size_t shared_p;
  const int ty = fold_tile_rows (f, &shared_p);

  fold_project_kernel < C > <<<dim3 ((unsigned) (f->x.n_out + FOLD_TILE - 1)
      / FOLD_TILE, (unsigned) (f->y.n_out + ty - 1) / ty), 256, shared_p,
      stream >>> (*f, ty, (const unsigned char *) src, src_pitch, plane);
  {
    const dim3 grid ((unsigned) (values + 127) / 128,
        (unsigned) (f->dst_height + FIR_N_Y - 1) / FIR_N_Y);
    switch (fold_fir_class (&f->y)) {
#define FIR_Y(K) case K: fold_fir_y_kernel < K > <<<grid, 128, 0, stream >>> \
        (*f, values, plane, tmp); break;
      FIR_Y (8) FIR_Y (16) FIR_Y (32) FIR_Y (48) default: FIR_Y (64)
#undef FIR_Y
    }
  }
  {
    const int threads = (f->dst_width + FIR_N_X - 1) / FIR_N_X;
    const dim3 grid ((unsigned) (threads + 63) / 64,
        (unsigned) f->dst_height);
    switch (fold_fir_class (&f->x)) {
#define FIR_X(K) case K: fold_fir_x_kernel < C, K > <<<grid, 64, 0, stream >>> \
        (*f, values, tmp, (unsigned char *) dst, dst_pitch); break;
      FIR_X (8) FIR_X (16) FIR_X (32) FIR_X (48) default: FIR_X (64)
#undef FIR_X
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
