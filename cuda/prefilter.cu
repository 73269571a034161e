/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* prefilter.cu: the B-spline prefilter on the GPU, source samples to the
 * padded coefficient plane (bspline_gpu_prefilter): Unser's recursive
 * filters, a causal and an anticausal recursion a pole along x then y,
 * with the exact, boundary-specific initialisations and precision-driven
 * truncation of Briand & Monasse (2018) as presented in Briand & Davy
 * (2019), section 2 ([U99], [BM18], [BD19] in core/include/bspline-math.h).
 *
 * Three ways to run it, chosen per plan:
 * - double plans and the rest: the conversion, then segments of lines, one
 *   thread each, started inside the line by the truncated sums of [BD19]
 *   eqs. 19 and 20 ([BD19] section 3, the column division of Algorithm 8);
 * - float plans: windows of the lines' infinite extensions, the recursions
 *   started from zero at the window's ends and the halo the sum of the
 *   truncation indices (the same eqs. 19 and 20), along x by warp scans or
 *   in shared memory, along y in shared memory;
 * - float plans of one pole (orders 2 and 3): tiles whose windows are
 *   filtered in registers, Unser's anticausal step rewritten as one fused
 *   multiply-add a sample. */
#include <cuda_fp16.h>

#include "kernels-common.cuh"

/* Per-type access to the shared maths (C has no overloading). */
__device__ static inline double
causal_init (const double *p, ptrdiff_t step, int len, double z, int n,
    int boundary, int padded)
{
  return bspline_causal_init_d (p, step, len, z, n, boundary, padded);
}

__device__ static inline float
causal_init (const float *p, ptrdiff_t step, int len, float z, int n,
    int boundary, int padded)
{
  return bspline_causal_init_f (p, step, len, z, n, boundary, padded);
}

__device__ static inline double
anticausal_init (const double *p, ptrdiff_t step, int len, double z, int n,
    int boundary, int padded, double last)
{
  return bspline_anticausal_init_d (p, step, len, z, n, boundary, padded,
      last);
}

__device__ static inline float
anticausal_init (const float *p, ptrdiff_t step, int len, float z, int n,
    int boundary, int padded, float last)
{
  return bspline_anticausal_init_f (p, step, len, z, n, boundary, padded,
      last);
}

/* Padded sample (v, r) of the plane (value v of row r: pixel v / C,
 * channel v % C), times the gains: the fill outside the frame under the
 * constant extension, the edge beyond it otherwise. */
template < typename T > __device__ static inline T
padded_value (const bspline_gpu_frame & f, const unsigned char *src,
    size_t src_pitch, int v, int r)
{
  const int C = f.channels, pad = f.pad;
  const int px = v / C, c = v - px * C;
  int sx = px - pad, sy = r - pad;
  if (f.boundary == BSPLINE_BOUNDARY_CONSTANT && (sx < 0
          || sx >= f.src_width || sy < 0 || sy >= f.src_height))
    return (T) f.fill[c] * (T) f.gain2;
  sx = sx < 0 ? 0 : (sx >= f.src_width ? f.src_width - 1 : sx);
  sy = sy < 0 ? 0 : (sy >= f.src_height ? f.src_height - 1 : sy);
  return (T) read_sample (src + sy * src_pitch, f.src_type, f.src_shift,
      sx * C + c) * (T) f.gain2;
}

/* Source samples -> padded coefficient plane, times the prefilter gains of
 * both axes.  The padding holds the extension (fill or edge replicate);
 * filtering the padded rows along x gives what the CPU engine gets by
 * filtering first and extending after, since a row of a constant or a
 * copy of an edge row filters to the same values. */
template < typename T > __global__ void
convert_kernel (bspline_gpu_frame f, const unsigned char *src,
    size_t src_pitch, T * coef)
{
  const int wc = f.src_width + 2 * f.pad, hc = f.src_height + 2 * f.pad;
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (v < wc * f.channels && r < hc)
    coef[(size_t) r * wc * f.channels + v] =
        padded_value < T > (f, src, src_pitch, v, r);
}

/* A coefficient in the binary16 plane of precision=fast (cuda-kernels.h,
 * bspline_gpu_half). */
__device__ static inline __half
half_coefficient (const bspline_gpu_half & h, float c)
{
  return __float2half_rn ((c - h.mid) * h.inv_range);
}

/* The binary16 plane of a plan without prefilter (order 1) from
 * the source, and of the others from their float plane: a thread a pixel
 * (x, r) of the padded plane, its C values. */
__global__ static void
convert_half_kernel (bspline_gpu_frame f, const unsigned char *src,
    size_t src_pitch, bspline_gpu_half h)
{
  const int wc = f.src_width + 2 * f.pad, hc = f.src_height + 2 * f.pad;
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < wc && r < hc)
    for (int c = 0; c < f.channels; c++)
      ((__half *) h.data)[(size_t) r * h.pitch + x * f.channels + c] =
          half_coefficient (h, padded_value < float >(f, src, src_pitch,
              x * f.channels + c, r));
}

__global__ static void
half_from_float_kernel (bspline_gpu_frame f, const float *coef,
    bspline_gpu_half h)
{
  const int wc = f.src_width + 2 * f.pad, hc = f.src_height + 2 * f.pad;
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < wc && r < hc)
    for (int c = 0; c < f.channels; c++)
      ((__half *) h.data)[(size_t) r * h.pitch + x * f.channels + c] =
          half_coefficient (h, coef[((size_t) r * wc + x) * f.channels + c]);
}

/* The prefilter runs on segments of lines so that every SM has work: a
 * line of len samples is cut into segments of seg_len (the last one takes
 * the rest, between seg_len and 2 seg_len samples), one thread each.  A
 * segment that does not start the line begins its causal recursion from
 * the N preceding samples (eq. 19 around a point inside the line), and one
 * that does not end it begins the anticausal recursion from the N
 * following causal values (eq. 20): with N the truncation index this is
 * as precise as the boundary initialisations ([BD19] section 3, the
 * column division of Algorithm 8).  seg_len > N, so those samples are in
 * the line.  The causal pass writes to a second plane (its neighbours
 * still read the original samples); the anticausal pass writes back. */
typedef struct
{
  int n_lines, len;
  ptrdiff_t step;               /* between samples of a line */
  int lines_per_row;            /* line l starts at (l / lines_per_row) */
  ptrdiff_t row_stride;         /*   * row_stride + l % lines_per_row */
  int seg_len, n_segs;
} line_set;

__device__ static inline ptrdiff_t
line_offset (const line_set & ls, int l)
{
  return (ptrdiff_t) (l / ls.lines_per_row) * ls.row_stride
      + l % ls.lines_per_row;
}

/* sum_{j=0}^{n} z^j p[(k + dir j) step]: eqs. 19 and 20 truncated at n,
 * around a point inside the line. */
template < typename T > __device__ static inline T
geometric_sum (const T * p, ptrdiff_t step, int k, int dir, T z, int n)
{
  T acc = (T) 0, zj = (T) 1;
  int j;
  for (j = 0; j <= n; j++) {
    acc += zj * p[(ptrdiff_t) (k + dir * j) * step];
    zj *= z;
  }
  return acc;
}

template < typename T > __global__ void
causal_kernel (bspline_gpu_frame f, line_set ls, const T * in, T * out,
    int pole)
{
  const int l = blockIdx.x * blockDim.x + threadIdx.x;
  const int seg = blockIdx.y;
  const T z = (T) f.poles[pole];
  const int n = f.truncation[pole];
  const T *p;
  T *q, acc;
  int k0, k1, k;

  if (l >= ls.n_lines)
    return;
  p = in + line_offset (ls, l);
  q = out + line_offset (ls, l);
  k0 = seg * ls.seg_len;
  k1 = seg == ls.n_segs - 1 ? ls.len : k0 + ls.seg_len;
  if (seg == 0)
    acc = causal_init (p, ls.step, ls.len, z, n, f.boundary, f.pad > 0);
  else
    acc = geometric_sum (p, ls.step, k0, -1, z, n);
  q[k0 * ls.step] = acc;
  for (k = k0 + 1; k < k1; k++) {
    acc = p[k * ls.step] + z * acc;
    q[k * ls.step] = acc;
  }
}

template < typename T > __global__ void
anticausal_kernel (bspline_gpu_frame f, line_set ls, const T * causal,
    T * out, int pole)
{
  const int l = blockIdx.x * blockDim.x + threadIdx.x;
  const int seg = blockIdx.y;
  const T z = (T) f.poles[pole];
  const int n = f.truncation[pole];
  const T *p;
  T *q, acc;
  int k0, k1, k;

  if (l >= ls.n_lines)
    return;
  p = causal + line_offset (ls, l);
  q = out + line_offset (ls, l);
  k0 = seg * ls.seg_len;
  k1 = seg == ls.n_segs - 1 ? ls.len : k0 + ls.seg_len;
  if (seg == ls.n_segs - 1) {
    /* out still holds the original samples: the padded initialisation
     * needs the last one */
    acc = anticausal_init (p, ls.step, ls.len, z, n, f.boundary, f.pad > 0,
        q[(ptrdiff_t) (ls.len - 1) * ls.step]);
  } else {
    /* (h * s)_i = -z sum_{j>=0} z^j s^z_{i+j} */
    acc = -z * geometric_sum (p, ls.step, k1 - 1, 1, z, n);
  }
  q[(k1 - 1) * ls.step] = acc;
  for (k = k1 - 2; k >= k0; k--) {
    acc = z * (acc - p[k * ls.step]);
    q[k * ls.step] = acc;
  }
}

/* The lines of one axis of the padded coefficient plane, in segments
 * longer than every truncation index. */
static line_set
axis_lines (const bspline_gpu_frame * f, int along_x)
{
  const int C = f->channels;
  const int wc = f->src_width + 2 * f->pad, hc = f->src_height + 2 * f->pad;
  line_set ls;
  int i, longest = 0;

  for (i = 0; i < f->n_poles; i++)
    longest = f->truncation[i] > longest ? f->truncation[i] : longest;
  ls.seg_len = longest + 1 > 128 ? longest + 1 : 128;
  if (along_x) {
    ls.n_lines = hc * C;
    ls.len = wc;
    ls.step = C;
    ls.lines_per_row = C;
    ls.row_stride = (ptrdiff_t) wc * C;
  } else {
    ls.n_lines = wc * C;
    ls.len = hc;
    ls.step = (ptrdiff_t) wc * C;
    ls.lines_per_row = wc * C;
    ls.row_stride = 0;
  }
  /* at most 65535 segments (the grid's y limit): the last one takes the
   * rest of a very long line */
  ls.n_segs = ls.len / ls.seg_len;
  ls.n_segs = ls.n_segs < 1 ? 1 : ls.n_segs > 65535 ? 65535 : ls.n_segs;
  return ls;
}

template < typename T > static cudaError_t
run_prefilter (const bspline_gpu_frame * f, const void *src,
    size_t src_pitch, T * coef, T * scratch, cudaStream_t stream)
{
  const int C = f->channels;
  const int wc = f->src_width + 2 * f->pad, hc = f->src_height + 2 * f->pad;
  dim3 block (64, 4);
  int axis, pole;

  convert_kernel < T > <<<grid2 (wc * C, hc, block), block, 0, stream >>>
      (*f, (const unsigned char *) src, src_pitch, coef);
  for (axis = 0; axis < 2 && f->n_poles > 0; axis++) {
    line_set ls = axis_lines (f, axis == 0);
    if (!(axis == 0 ? f->filter_x : f->filter_y))
      continue;
    dim3 grid ((ls.n_lines + 127) / 128, ls.n_segs);
    for (pole = 0; pole < f->n_poles; pole++) {
      causal_kernel < T > <<<grid, 128, 0, stream >>> (*f, ls, coef, scratch,
          pole);
      anticausal_kernel < T > <<<grid, 128, 0, stream >>> (*f, ls, scratch,
          coef, pole);
    }
  }
  return cudaGetLastError ();
}

/* ---- Tiled prefilter (float) ----
 *
 * The coefficients of a line are those of its infinite extension (the
 * boundary's fold, edge or fill continued forever: that is what the exact
 * initialisations of [BM18] / [BD19] compute), so a block can filter a
 * window of the line on its own.  The filters of the poles commute, so a
 * window runs the causal recursions of all poles in one forward sweep
 * (pole p filters pole p - 1's output as it is produced, in registers)
 * and then all the anticausal ones in one backward sweep.  The forward
 * cascade started from zero HALO samples before the window's interior
 * misses only terms of lag over HALO of the product of the poles' causal
 * filters; with HALO the sum of the poles' truncation indices each such
 * term has at least one pole past its own index, so the error is that of
 * the truncated sums (eqs. 19, 20 of [BD19], each pole consuming its own
 * index), as precise as the segmented prefilter.  The backward sweep reads
 * only causal values inside the interior and the right halo, which are
 * exact to that precision, and is truncated the same way.
 *
 * Two passes, each one read and one write of the plane: along x, from the
 * source samples (conversion and gain fused) into scratch; along y, from
 * scratch into the coefficient plane.  A block stages its window in shared
 * memory: coalesced loads and stores, the recursions one line per
 * thread.  Halos up to 64 (orders up to 7 in float) take windows of 64
 * interior samples; larger ones (orders 8-11, halos 79-125) windows of
 * 128, which fit the 227 KB of shared memory a block may have on sm_90
 * (one block per SM; docs/notes/gpu-performance-notes.md, v6).  Where the
 * device's limit is lower the segmented prefilter takes them.  The
 * windows' sizes (TILE_*) are in kernels-common.cuh: the fused separable
 * passes take them too. */

#define FILTER_CHUNK 8          /* shared loads issued before a chunk's steps */

/* The poles of f on one line of len samples at stride apart in shared
 * memory: the causal recursions of all NP poles in one forward sweep, the
 * anticausal ones in one backward sweep, each started from zero at its
 * end of the window.  FILTER_CHUNK samples are loaded before their steps,
 * so that a step waits on a multiply-add, not on shared memory. */
template < int NP > __device__ static inline void
filter_step (const float *z, float *acc, float *line, int stride, int k,
    float x, bool causal)
{
#pragma unroll
  for (int p = 0; p < NP; p++) {
    acc[p] = causal ? x + z[p] * acc[p] : z[p] * (acc[p] - x);
    x = acc[p];
  }
  line[k * stride] = x;
}

template < int NP > __device__ static inline void
filter_cascade (const bspline_gpu_frame & f, float *line, int stride,
    int len)
{
  float z[NP], acc[NP], v[FILTER_CHUNK];
  int p, k, b;

#pragma unroll
  for (p = 0; p < NP; p++) {
    z[p] = (float) f.poles[p];
    acc[p] = 0.0f;
  }
  /* whole chunks unguarded, then the tail one step at a time */
  for (k = 0; k + FILTER_CHUNK <= len; k += FILTER_CHUNK) {
#pragma unroll
    for (b = 0; b < FILTER_CHUNK; b++)
      v[b] = line[(k + b) * stride];
#pragma unroll
    for (b = 0; b < FILTER_CHUNK; b++)
      filter_step < NP > (z, acc, line, stride, k + b, v[b], true);
  }
  for (; k < len; k++)
    filter_step < NP > (z, acc, line, stride, k, line[k * stride], true);
#pragma unroll
  for (p = 0; p < NP; p++)
    acc[p] = 0.0f;
  for (k = len - 1; k + 1 >= FILTER_CHUNK; k -= FILTER_CHUNK) {
#pragma unroll
    for (b = 0; b < FILTER_CHUNK; b++)
      v[b] = line[(k - b) * stride];
#pragma unroll
    for (b = 0; b < FILTER_CHUNK; b++)
      filter_step < NP > (z, acc, line, stride, k - b, v[b], false);
  }
  for (; k >= 0; k--)
    filter_step < NP > (z, acc, line, stride, k, line[k * stride], false);
}

/* One pole (orders 2-3): the plain loop, measured faster than the chunked
 * one at the four blocks per SM of its windows
 * (docs/notes/gpu-performance-notes.md, v6); more poles: the cascade. */
__device__ static inline void
filter_window (const bspline_gpu_frame & f, float *line, int stride, int len)
{
  int k;
  float z, acc;

  switch (f.n_poles) {
    case 1:
      z = (float) f.poles[0];
      acc = 0.0f;
#pragma unroll 4
      for (k = 0; k < len; k++) {
        acc = line[k * stride] + z * acc;
        line[k * stride] = acc;
      }
      acc = 0.0f;
#pragma unroll 4
      for (k = len - 1; k >= 0; k--) {
        acc = z * (acc - line[k * stride]);
        line[k * stride] = acc;
      }
      break;
    case 2:
      filter_cascade < 2 > (f, line, stride, len);
      break;
    case 3:
      filter_cascade < 3 > (f, line, stride, len);
      break;
    case 4:
      filter_cascade < 4 > (f, line, stride, len);
      break;
    default:
      filter_cascade < BSPLINE_MAX_INTERP_POLES > (f, line, stride, len);
      break;
  }
}

/* Along x: rows of the padded plane, windows of len columns from col0.
 * Lines are (row, channel) pairs, TILE_THREADS of them per block; shared
 * memory holds line l at l * stride (stride odd: no bank conflicts when
 * each thread walks its own line), then the source column of each window
 * position (the boundary's extension, -1 for constant's fill).  Loads
 * rows row0 .. row0 + n_rows - 1 (times the gains of both axes) and
 * filters every line; LOADS loads per lane are in flight for a row.  The
 * caller synchronises before anything else touches column and source_row,
 * and this ends with the filtered window visible to the whole block. */
template < int C, int LOADS > __device__ static void
x_window (const bspline_gpu_frame & f, const unsigned char *src,
    size_t src_pitch, int row0, int col0, int n_rows, int len, int stride,
    float *window, int *column, int *source_row)
{
  const int pad = f.pad;
  const int hc = f.src_height + 2 * pad;
  const float gain2 = (float) f.gain2;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int e0, r, q, c;

  for (e0 = threadIdx.x; e0 < len; e0 += blockDim.x)
    column[e0] = extended_index (col0 + e0 - pad, f.src_width, f.boundary);
  for (e0 = threadIdx.x; e0 < n_rows; e0 += blockDim.x)
    source_row[e0] = extended_index (row0 + e0 - pad, f.src_height,
        f.boundary);
  __syncthreads ();
  /* load: warp w takes rows w, w + 4, ..., its lanes consecutive pixels
   * of the row; every load of a row (LOADS * 32 pixels at a time) is
   * issued before the results are stored, so that several are in flight
   * (two rows at a time measured no faster:
   * docs/notes/gpu-performance-notes.md, v5) */
  for (r = warp; r < n_rows; r += TILE_THREADS / 32) {
    const int sy = source_row[r];
    const unsigned char *row = src + (size_t) (sy < 0 ? 0 : sy) * src_pitch;
    float *line = window + r * C * stride;
    for (e0 = 0; e0 < len; e0 += 32 * LOADS) {
      float v[LOADS][C];
#pragma unroll
      for (q = 0; q < LOADS; q++) {
        const int k = e0 + lane + 32 * q;
        if (k < len)
          source_pixel < C > (f, row, column[k], sy, v[q]);
      }
#pragma unroll
      for (q = 0; q < LOADS; q++) {
        const int k = e0 + lane + 32 * q;
        if (k < len) {
#pragma unroll
          for (c = 0; c < C; c++)
            line[c * stride + k] = v[q][c] * gain2;
        }
      }
    }
  }
  __syncthreads ();
  if (threadIdx.x < n_rows * C && row0 + threadIdx.x / C < hc)
    filter_window (f, window + threadIdx.x * stride, 1, len);
  __syncthreads ();
}

/* Along x: the plane's rows in windows of SPAN columns (x_window), the
 * interior stored. */
template < int C, int SPAN, int LOADS > __global__ void
prefilter_x_tiled_kernel (bspline_gpu_frame f, const unsigned char *src,
    size_t src_pitch, int halo, float *out)
{
  extern __shared__ float window[];
  const int pad = f.pad;
  const int wc = f.src_width + 2 * pad, hc = f.src_height + 2 * pad;
  const int rows = TILE_THREADS / C;
  const int len = SPAN + 2 * halo, stride = len | 1;
  const int n_windows = (wc + SPAN - 1) / SPAN;
  const int row0 = (int) (blockIdx.x / n_windows) * rows;
  const int col0 = (int) (blockIdx.x % n_windows) * SPAN - halo;
  int *column = (int *) (window + rows * C * stride);
  int *source_row = column + len;
  const int n_rows = hc - row0 < rows ? hc - row0 : rows;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int r, c;

  x_window < C, LOADS > (f, src, src_pitch, row0, col0, n_rows, len, stride,
      window, column, source_row);
  /* store the interior: a warp writes consecutive values of a row */
  for (r = warp; r < n_rows; r += TILE_THREADS / 32) {
    float *o = out + ((size_t) (row0 + r) * wc + col0 + halo) * C;
    const float *line = window + r * C * stride + halo;
    for (int k = lane; k < SPAN * C; k += 32) {
      const int px = k / C;
      c = k - px * C;
      if (col0 + halo + px < wc)
        o[k] = line[c * stride + px];
    }
  }
}

/* Along y: window rows row0 .. row0 + len - 1 of value-column v (through
 * plane_row: window_rows) in shared memory at k * TILE_THREADS +
 * threadIdx.x, then filtered.  Each thread reads and filters only its
 * own column. */
template < int LOADS > __device__ static void
y_window (const bspline_gpu_frame & f, const float *in, size_t n, int len,
    const int *plane_row, size_t v, float *window)
{
  window_rows < LOADS > (in, n, len, plane_row, v, [&](int k, float x) {
        window[k * TILE_THREADS + threadIdx.x] = x;
      });
  filter_window (f, window + threadIdx.x, TILE_THREADS, len);
}

/* One column-line of a y window of len rows from row0 (halo rows, the
 * interior, halo rows), filtered as filter_window does it, without
 * keeping what is not needed: the causal sweep runs in registers as the
 * rows arrive (LOADS in flight) and keeps only its values from the
 * interior on (line, rows halo .. len - 1 at 0 ..); the anticausal sweep
 * stops at the interior's first row and writes the interior straight to
 * out.  The same operations in the same order as filter_window (and its
 * cascade for NP poles), so the same values. */
template < int NP, int LOADS > __device__ static inline void
y_stream (const bspline_gpu_frame & f, const float *in, size_t n, int len,
    int halo, int interior, const int *plane_row, size_t v, float *line,
    float *out, int row0)
{
  float z[NP], acc[NP];
  int k, b, p;

#pragma unroll
  for (p = 0; p < NP; p++) {
    z[p] = (float) f.poles[p];
    acc[p] = 0.0f;
  }
  for (k = 0; k < len; k += LOADS) {
    float t[LOADS];
#pragma unroll
    for (b = 0; b < LOADS; b++)
      if (k + b < len)
        t[b] = in[(size_t) plane_row[k + b] * n + v];
#pragma unroll
    for (b = 0; b < LOADS; b++)
      if (k + b < len) {
        float x = t[b];
#pragma unroll
        for (p = 0; p < NP; p++) {
          acc[p] = x + z[p] * acc[p];
          x = acc[p];
        }
        if (k + b >= halo)
          line[(k + b - halo) * TILE_THREADS] = x;
      }
  }
#pragma unroll
  for (p = 0; p < NP; p++)
    acc[p] = 0.0f;
#pragma unroll 8
  for (k = len - 1; k >= halo; k--) {
    float x = line[(k - halo) * TILE_THREADS];
#pragma unroll
    for (p = 0; p < NP; p++) {
      acc[p] = z[p] * (acc[p] - x);
      x = acc[p];
    }
    if (k < halo + interior)
      out[(size_t) (row0 + k) * n + v] = x;
  }
}

/* Along y: TILE_THREADS consecutive values of a row of the plane (one
 * column-line per thread: every global access is coalesced), windows of
 * SPAN rows and their halos, the interior stored.  The narrow windows
 * (SPAN = TILE_SPAN) stream (y_stream: 4K rotate order 3, 156 -> 130 us);
 * the wide ones, one block per SM, keep the whole window and
 * filter_window's chunked sweeps (y_stream took 687 us against 587 for
 * order 11; docs/notes/gpu-performance-notes.md, v10). */
template < int SPAN, int LOADS > __global__ void
prefilter_y_tiled_kernel (bspline_gpu_frame f, const float *in, int halo,
    float *out)
{
  extern __shared__ float window[];
  const int pad = f.pad;
  const int n = (f.src_width + 2 * pad) * f.channels;
  const int hc = f.src_height + 2 * pad;
  const int len = SPAN + 2 * halo;
  const int n_groups = (n + TILE_THREADS - 1) / TILE_THREADS;
  const int v = (int) (blockIdx.x % n_groups) * TILE_THREADS + threadIdx.x;
  const int row0 = (int) (blockIdx.x / n_groups) * SPAN - halo;
  /* interior rows of this window inside the plane */
  const int interior = min (SPAN, hc - (row0 + halo));
  const bool stream = SPAN == TILE_SPAN;
  int *plane_row = (int *) (window + TILE_THREADS * (stream ? SPAN + halo :
          len));
  int k;

  y_window_rows (f, row0, len, plane_row);
  __syncthreads ();
  if (v < n && !stream) {
    y_window < LOADS > (f, in, (size_t) n, len, plane_row, (size_t) v,
        window);
    for (k = halo; k < halo + interior; k++)
      out[(size_t) (row0 + k) * n + v] = window[k * TILE_THREADS + threadIdx.x];
  } else if (v < n) {
    float *line = window + threadIdx.x;
    switch (f.n_poles) {
      case 1:
        y_stream < 1, LOADS > (f, in, (size_t) n, len, halo, interior,
            plane_row, (size_t) v, line, out, row0);
        break;
      case 2:
        y_stream < 2, LOADS > (f, in, (size_t) n, len, halo, interior,
            plane_row, (size_t) v, line, out, row0);
        break;
      case 3:
        y_stream < 3, LOADS > (f, in, (size_t) n, len, halo, interior,
            plane_row, (size_t) v, line, out, row0);
        break;
      case 4:
        y_stream < 4, LOADS > (f, in, (size_t) n, len, halo, interior,
            plane_row, (size_t) v, line, out, row0);
        break;
      default:
        y_stream < BSPLINE_MAX_INTERP_POLES, LOADS > (f, in, (size_t) n, len, halo,
            interior, plane_row, (size_t) v, line, out, row0);
        break;
    }
  }
}

template < int C, int SPAN, int LOADS > static cudaError_t
launch_prefilter_x_tiled (const bspline_gpu_frame * f, const void *src,
    size_t src_pitch, float *scratch, int halo, size_t bytes,
    unsigned blocks, cudaStream_t stream)
{
  cudaError_t err = cudaFuncSetAttribute (prefilter_x_tiled_kernel < C, SPAN,
      LOADS >, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) bytes);
  if (err != cudaSuccess)
    return err;
  prefilter_x_tiled_kernel < C, SPAN, LOADS > <<<blocks, TILE_THREADS, bytes,
      stream >>> (*f, (const unsigned char *) src, src_pitch, halo, scratch);
  return cudaGetLastError ();
}

template < int SPAN, int LOADS > static cudaError_t
launch_prefilter_y_tiled (const bspline_gpu_frame * f, const float *scratch,
    int halo, size_t bytes, unsigned blocks, float *coef, cudaStream_t stream)
{
  cudaError_t err = cudaFuncSetAttribute (prefilter_y_tiled_kernel < SPAN,
      LOADS >, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) bytes);
  if (err != cudaSuccess)
    return err;
  prefilter_y_tiled_kernel < SPAN, LOADS > <<<blocks, TILE_THREADS, bytes,
      stream >>> (*f, scratch, halo, coef);
  return cudaGetLastError ();
}

/* Shared memory of the x and y windows for a halo and span. */
static size_t
tiled_x_bytes (int channels, int halo, int span)
{
  const int rows = TILE_THREADS / channels, len = span + 2 * halo;
  return (size_t) rows * channels * (len | 1) * sizeof (float)
      + (size_t) (len + rows) * sizeof (int);
}

static size_t
tiled_y_bytes (int halo, int span)
{
  const int len = span + 2 * halo;
  return (size_t) TILE_THREADS * len * sizeof (float)
      + (size_t) len * sizeof (int);
}

/* prefilter_y_tiled_kernel's: the interior and one halo (y_stream). */
static size_t
tiled_y_stream_bytes (int halo, int span)
{
  const int len = span + 2 * halo;
  return (size_t) TILE_THREADS * (span + halo) * sizeof (float)
      + (size_t) len * sizeof (int);
}

/* The window span for f's halo on the current device: the wide windows
 * for halos over TILE_SMALL_HALO where they fit its shared memory, else the
 * narrow ones; 0 where neither fits (the segmented path then). */
static int
tiled_span (const bspline_gpu_frame * f, int halo)
{
  const int limit = device_shared_limit ();
  int span;

  /* the tiled passes filter both axes with the poles of an interpolation
   * prefilter (kernels up to BSPLINE_MAX_INTERP_POLES); a Gram filter of
   * more poles, or one axis alone, takes the segmented path */
  if (f->n_poles <= 0 || f->n_poles > BSPLINE_MAX_INTERP_POLES
      || !f->filter_x || !f->filter_y || halo > TILE_MAX_HALO || limit <= 0)
    return 0;
  for (span = halo <= TILE_SMALL_HALO ? TILE_SPAN : TILE_SPAN_WIDE;
      span >= TILE_SPAN; span -= TILE_SPAN_WIDE - TILE_SPAN)
    if (tiled_x_bytes (f->channels, halo, span) <= (size_t) limit
        && tiled_y_bytes (halo, span) <= (size_t) limit)
      return span;
  return 0;
}

/* The x pass by warp scans (scan_window, in kernels-common.cuh): a warp
 * a row's window, its interior stored. */
template < int C > __global__ void
__launch_bounds__ (SCAN_WARPS * 32)
prefilter_x_scan_kernel (bspline_gpu_frame f, const unsigned char *src,
    size_t src_pitch, int halo, float *out)
{
  const int wc = f.src_width + 2 * f.pad, hc = f.src_height + 2 * f.pad;
  const int span = SCAN_CHUNKS * 32 - 2 * halo;
  const int n_windows = (wc + span - 1) / span;
  const int w = (int) (blockIdx.x % n_windows);
  const int row = (int) (blockIdx.x / n_windows) * SCAN_WARPS
      + (int) threadIdx.x / 32;
  const int lane = (int) threadIdx.x % 32;
  const int col0 = w * span - halo;
  float v[SCAN_CHUNKS][C];
  int k;

  if (row >= hc)                /* a whole warp: no barriers below */
    return;
  scan_window < C > (f, src, src_pitch, row, col0, v);
  {
    float *o = out + (size_t) row * wc * C;
#pragma unroll
    for (k = 0; k < SCAN_CHUNKS; k++) {
      const int e = SCAN_CHUNKS * lane + k;
      if (e >= halo && e < halo + span && col0 + e < wc)
        store_pixel < C > (o + (size_t) (col0 + e) * C, v[k]);
    }
  }
}

template < int C > static cudaError_t
launch_prefilter_x_scan (const bspline_gpu_frame * f, const void *src,
    size_t src_pitch, float *scratch, int halo, cudaStream_t stream)
{
  const int wc = f->src_width + 2 * f->pad, hc = f->src_height + 2 * f->pad;
  const int span = SCAN_CHUNKS * 32 - 2 * halo;
  const unsigned blocks = (unsigned) ((wc + span - 1) / span)
      * (unsigned) ((hc + SCAN_WARPS - 1) / SCAN_WARPS);
  prefilter_x_scan_kernel < C > <<<blocks, SCAN_WARPS * 32, 0, stream >>>
      (*f, (const unsigned char *) src, src_pitch, halo, scratch);
  return cudaGetLastError ();
}

static cudaError_t
run_prefilter_tiled (const bspline_gpu_frame * f, const void *src,
    size_t src_pitch, float *coef, float *scratch, int halo, int span,
    cudaStream_t stream)
{
  const int C = f->channels;
  const int wc = f->src_width + 2 * f->pad, hc = f->src_height + 2 * f->pad;
  const int rows = TILE_THREADS / C;
  const int wide = span > TILE_SPAN;
  const size_t x_bytes = tiled_x_bytes (C, halo, span);
  const size_t y_bytes = wide ? tiled_y_bytes (halo, span) :
      tiled_y_stream_bytes (halo, span);

  /* one-dimensional grids (up to 2^31 - 1 blocks): the block index is
   * split into window and line group in the kernels */
  const unsigned x_blocks = (unsigned) ((wc + span - 1) / span)
      * (unsigned) ((hc + rows - 1) / rows);
  const unsigned y_blocks = (unsigned) ((wc * C + TILE_THREADS - 1)
      / TILE_THREADS) * (unsigned) ((hc + span - 1) / span);
  cudaError_t err;

  err = with_channels (C, [&](auto ch) {
        constexpr int CH = decltype (ch)::value;
        if (halo <= SCAN_MAX_HALO)
          return launch_prefilter_x_scan < CH > (f, src, src_pitch, scratch,
              halo, stream);
        if (wide)
          return launch_prefilter_x_tiled < CH, TILE_SPAN_WIDE,
              TILE_ROW_LOADS_WIDE > (f, src, src_pitch, scratch, halo,
              x_bytes, x_blocks, stream);
        return launch_prefilter_x_tiled < CH, TILE_SPAN, TILE_ROW_LOADS > (f,
            src, src_pitch, scratch, halo, x_bytes, x_blocks, stream);
      });
  if (err != cudaSuccess)
    return err;
  if (wide)
    return launch_prefilter_y_tiled < TILE_SPAN_WIDE,
        TILE_COLUMN_LOADS_WIDE > (f, scratch, halo, y_bytes, y_blocks, coef,
        stream);
  return launch_prefilter_y_tiled < TILE_SPAN, TILE_COLUMN_LOADS > (f,
      scratch, halo, y_bytes, y_blocks, coef, stream);
}

/* ---- Windows in registers (float, one pole: orders 2 and 3) ----
 *
 * The coefficient plane of a one-pole prefilter in one pass, each
 * coefficient written once (where the scan and tiled passes write and read
 * a float plane between the axes: docs/notes/gpu-performance-notes.md, v11).  A
 * block takes a tile of REG_LINE - 2 halo coefficients each way and the
 * window of REG_LINE x REG_LINE source pixels around it: it stages the
 * window in shared memory (coalesced loads, conversion and gains fused),
 * then each thread holds one line of it (one channel of a row) in
 * registers and runs the pole's causal and anticausal recursions over it,
 * started from zero at both ends (the tiled prefilter's windows: the halo
 * the truncation index), back into shared memory; then the same along the
 * columns of the tile, the interior rows stored. */
#define REG_LINE 72
/* threads of a block: one a line of the first stage (REG_LINE rows x C
 * channels), rounded up to whole warps */
#define REG_THREADS(C) ((REG_LINE * (C) + 31) / 32 * 32)
/* registers a thread: the window and about 24 more; at 96, two blocks of
 * four channels (nine warps each, registers allocated for ten) fit an
 * SM's 64 K */
#define REG_REGISTERS 96
/* floats a row of a block's window (REG_LINE pixels of C channels):
 * congruent to C modulo 32, so that the 32 lines (consecutive (row,
 * channel) pairs) of a warp store a pixel column to 32 different banks */
#define REG_STRIDE(C) ((REG_LINE * (C) + 31) / 32 * 32 + (C))
/* the kernel's halos: the float truncation indices of orders 2 and 3
 * (bspline_truncation_index at BSPLINE_EPSILON_FLOAT) */
#define REG_HALO_ORDER2 13
#define REG_HALO_ORDER3 18
/* and at BSPLINE_GPU_HALF_EPSILON (precision=fast) */
#define REG_HALO_FAST2 8
#define REG_HALO_FAST3 11

/* An 8- or 16-bit code value as a float, exactly (b < 2^23): its bits
 * under the exponent of 2^23, less 2^23; an integer add and a float add
 * where a conversion instruction runs at a quarter of their rate. */
__device__ static inline float
code_value (unsigned b)
{
  return __uint_as_float (0x4B000000u | b) - 8388608.0f;
}

template < typename T > __device__ static inline float
sample_value (T x, int shift)
{
  if (sizeof (T) == 1)
    return code_value ((unsigned) x);
  if (sizeof (T) == 2)
    return code_value ((unsigned) x >> shift);
  return (float) x;
}

/* A block's window: REG_LINE x REG_LINE pixels from padded row row0 and
 * column col0, where each position's source row and column lie under the
 * boundary's extension (extended_index): the byte offset of each row and
 * the sample offset of each column in it, -1 for the fill of constant. */
typedef struct
{
  long long row[REG_LINE];
  int column[REG_LINE];
} reg_window;

__device__ static inline void
window_indices (const bspline_gpu_frame & f, size_t src_pitch, int row0,
    int col0, reg_window * w)
{
  for (int k = threadIdx.x; k < REG_LINE; k += blockDim.x) {
    const int sy = extended_index (row0 + k - f.pad, f.src_height,
        f.boundary);
    const int sx = extended_index (col0 + k - f.pad, f.src_width,
        f.boundary);
    w->row[k] = sy < 0 ? -1 : (long long) sy * (long long) src_pitch;
    w->column[k] = sx < 0 ? -1 : sx * f.channels;
  }
}

/* The window's source pixels as code values into staged (row r at r *
 * REG_STRIDE (C), pixel k at k * C): a thread a column of pixels,
 * consecutive threads consecutive pixels of a row (coalesced loads; one
 * 4-byte load for an 8-bit RGBA pixel where the rows allow it), the loads
 * of several rows in flight before their stores.  FILL (a window that
 * reaches the fill of constant): the fill's positions read a sample of the
 * frame and take the fill after the load, no branch a pixel; without
 * FILL no test at all.  blockDim.x is REG_THREADS (C). */
#define STAGE_ROWS 6
template < int C, typename T, bool FILL > __device__ static inline void
stage_window_as (const bspline_gpu_frame & f, const unsigned char *src,
    size_t src_pitch, const reg_window * w, float *staged)
{
  /* packed: an 8-bit pixel of four channels, one 4-byte word */
  constexpr bool packed = sizeof (T) == 1 && C == 4;
  typedef typename std::conditional < packed, unsigned, T >::type word_t;
  constexpr int stride = REG_STRIDE (C);
  constexpr int words = packed ? 1 : C;
  /* rows a thread: REG_LINE / step (72, 36, 24, 18 for C = 1-4), loaded
   * batch rows at a time: all 18 of four packed channels at once (one
   * round trip to memory; three with STAGE_ROWS: docs/notes/gpu-performance-
   * notes.md, v12), STAGE_ROWS where a pixel is several words */
  constexpr int step = REG_THREADS (C) / REG_LINE;
  constexpr int rows = REG_LINE / step;
  constexpr int batch = words > 1 ? STAGE_ROWS : rows % 18 == 0 ? 18 : 12;
  static_assert (rows * step == REG_LINE && rows % batch == 0,
      "staging rows");
  const bool aligned = sizeof (T) != 1 || C != 4
      || (((uintptr_t) src | src_pitch) & 3) == 0;
  const int k = (int) threadIdx.x % REG_LINE;
  const int r0 = (int) threadIdx.x / REG_LINE;
  const int sx = w->column[k];
  const size_t column = sx < 0 ? 0 : (size_t) sx * sizeof (T);
  float fill[C];
  int c, i, n;

  if (r0 >= step)
    return;
#pragma unroll
  for (c = 0; c < C; c++)
    fill[c] = (float) f.fill[c];
  for (n = 0; n < rows; n += batch) {
    word_t raw[batch][words];
    bool filled[batch];
#pragma unroll
    for (i = 0; i < batch; i++) {
      const long long off = w->row[r0 + (n + i) * step];
      const unsigned char *p = src + (off < 0 ? 0 : off) + column;
      filled[i] = off < 0 || sx < 0;
      if (packed && aligned) {
        raw[i][0] = *(const word_t *) p;
      } else if (packed) {
        raw[i][0] = (word_t) (p[0] | p[1] << 8 | p[2] << 16
            | (unsigned) p[3] << 24);
      } else {
#pragma unroll
        for (c = 0; c < words; c++)
          raw[i][c] = (word_t) ((const T *) p)[c];
      }
    }
#pragma unroll
    for (i = 0; i < batch; i++) {
      float v[C];
#pragma unroll
      for (c = 0; c < C; c++) {
        float x;
        if (packed) {
          /* byte c of the pixel under the exponent of 2^23 */
          x = __uint_as_float (__byte_perm ((unsigned) raw[i][0],
                  0x4B000000u, 0x7440 + c)) - 8388608.0f;
        } else {
          x = sample_value ((T) raw[i][c < words ? c : 0], f.src_shift);
        }
        v[c] = FILL && filled[i] ? fill[c] : x;
      }
      store_pixel < C > (staged + (r0 + (n + i) * step) * stride + k * C, v);
    }
  }
}

template < int C, bool FILL > __device__ static inline void
stage_window (const bspline_gpu_frame & f, const unsigned char *src,
    size_t src_pitch, const reg_window * w, float *staged)
{
  switch (f.src_type) {
    case BSPLINE_SAMPLE_U8:
      stage_window_as < C, uint8_t, FILL > (f, src, src_pitch, w,
          staged);
      break;
    case BSPLINE_SAMPLE_U16:
      stage_window_as < C, uint16_t, FILL > (f, src, src_pitch, w,
          staged);
      break;
    case BSPLINE_SAMPLE_F32:
      stage_window_as < C, float, FILL > (f, src, src_pitch, w,
          staged);
      break;
    default:
      stage_window_as < C, double, FILL > (f, src, src_pitch, w,
          staged);
      break;
  }
}

/* Row r's channel c of the staged window into v.  The caller
 * synchronises before anything overwrites the staged window. */
template < int C > __device__ static inline void
load_staged_line (const float *staged, int r, int c, float (&v)[REG_LINE])
{
  const float *p = staged + r * REG_STRIDE (C) + c;
#pragma unroll
  for (int k = 0; k < REG_LINE; k++)
    v[k] = p[k * C];
}

/* The pole z over a window in registers, causal then anticausal, each
 * started from zero at its end, as one fused multiply-add a sample and
 * direction.  Unser's anticausal step c_k = z (c_(k+1) - y_k) on the
 * causal output y (filter_window's recursion) becomes c'_k = z c'_(k+1) +
 * y'_k on a line scaled by s, whose output is then -s / z times the
 * coefficients: along x and then along y, s / z^2.  A block's window is
 * staged as it is (s = 1), so the lines along y give 1 / (z^2 g) times
 * the coefficients of both axes (g the gains of both axes): each stored
 * coefficient is multiplied by line_scale = z^2 g: one multiplication a
 * coefficient, where scaling the staged window took four (a window has
 * four samples a coefficient of its tile). */
__device__ static inline float
line_scale (const bspline_gpu_frame & f)
{
  const float z = (float) f.poles[0];
  return z * z * (float) f.gain2;
}

__device__ static inline void
filter_registers (float z, float (&v)[REG_LINE])
{
  float acc = 0.0f;
  int k;
#pragma unroll
  for (k = 0; k < REG_LINE; k++) {
    acc = fmaf (z, acc, v[k]);
    v[k] = acc;
  }
  acc = 0.0f;
#pragma unroll
  for (k = REG_LINE - 1; k >= 0; k--) {
    acc = fmaf (z, acc, v[k]);
    v[k] = acc;
  }
}

/* What prefilter_tile_kernel writes: the float plane, precision=fast's
 * binary16 plane h, or precision=compact's 16-bit plane (int16_t values in
 * coef's place and layout: bspline_gpu_frame.compact). */
#define TILE_FLOAT 0
#define TILE_HALF 1
#define TILE_COMPACT 2

/* A coefficient c of the 16-bit plane: round ((c - mid) / step), held to
 * [-32767, 32767] (bspline_compact_scale's range holds every coefficient
 * of samples in the code range; the hold keeps a rounding at its ends in
 * it). */
__device__ static inline int16_t
compact_coefficient (float c, float mid, float inv_step)
{
  const int q = __float2int_rn ((c - mid) * inv_step);
  return (int16_t) max (-32767, min (32767, q));
}

/* Rows HALO .. HALO + ny - 1 of a column filtered in v, each as value
 * gives it (the coefficient, in the plane's type), row values apart from
 * out: without a test where ny is the tile's inner size at compile
 * time. */
template < int HALO, typename O, typename F > __device__ static inline void
store_column (const float (&v)[REG_LINE], O * out, size_t row, int ny,
    F value)
{
#pragma unroll
  for (int k = HALO; k < REG_LINE - HALO; k++)
    if (k - HALO < ny) {
      *out = value (v[k]);
      out += row;
    }
}

/* The coefficient plane (padded, times both gains) in tiles of inner x
 * inner coefficients, inner = REG_LINE - 2 halo: the block's window rows
 * along x back into the shared window, then its interior columns along y,
 * the interior rows stored.  HALO, the halo, at compile time
 * (REG_HALO_ORDER2 or REG_HALO_ORDER3): only the tile's
 * columns are written back along x, and a tile of inner rows (all but the
 * last tile row) stores its rows without a test.  OUT: TILE_FLOAT,
 * TILE_HALF (h instead of coef) or TILE_COMPACT (coef as int16_t). */
template < int C, int HALO, int OUT > __global__ void
__maxnreg__ (REG_REGISTERS)
prefilter_tile_kernel (bspline_gpu_frame f, const unsigned char *src,
    size_t src_pitch, float *coef, bspline_gpu_half h)
{
  /* the staged window, then the plane filtered along x (REG_LINE rows of
   * REG_STRIDE) */
  extern __shared__ float plane[];
  __shared__ reg_window window;
  constexpr int stride = REG_STRIDE (C);
  constexpr int halo = HALO, inner = REG_LINE - 2 * HALO;
  const int wc = f.src_width + 2 * f.pad, hc = f.src_height + 2 * f.pad;
  const int x0 = (int) blockIdx.x * inner, y0 = (int) blockIdx.y * inner;
  const int nx = min (inner, wc - x0), ny = min (inner, hc - y0);
  const float z = (float) f.poles[0], scale = line_scale (f);
  const int tid = (int) threadIdx.x;
  const int r = tid / C, c = tid - r * C;
  float v[REG_LINE];
  int k, fill = 0;

  window_indices (f, src_pitch, y0 - halo, x0 - halo, &window);
  if (tid < REG_LINE)
    fill = window.row[tid] < 0 || window.column[tid] < 0;
  if (__syncthreads_or (fill))
    stage_window < C, true > (f, src, src_pitch, &window, plane);
  else
    stage_window < C, false > (f, src, src_pitch, &window, plane);
  __syncthreads ();
  if (tid < REG_LINE * C)
    load_staged_line < C > (plane, r, c, v);
  __syncthreads ();
  if (tid < REG_LINE * C) {
    /* where the staged row was, the tile's columns */
    float *out = plane + r * stride + c;
    filter_registers (z, v);
#pragma unroll
    for (k = HALO; k < REG_LINE - HALO; k++)
      out[k * C] = v[k];
  }
  __syncthreads ();
  if (tid < nx * C) {
    /* interior columns from halo, rows halo .. halo + ny - 1 stored, the
     * address stepped a row at a time (from k it took a 64-bit product a
     * store) */
    const size_t row = (size_t) wc * C;
    const ptrdiff_t at = ((ptrdiff_t) y0 * wc + x0) * C + tid;
#pragma unroll
    for (k = 0; k < REG_LINE; k++)
      v[k] = plane[k * stride + halo * C + tid];
    filter_registers (z, v);
    /* (the lambdas take copies: a reference to a kernel parameter can make
     * each thread copy it to local memory) */
    const float mid = f.compact_mid, inv_step = f.compact_inv_step;
    if (OUT == TILE_HALF)
      store_column < HALO > (v, (__half *) h.data + (size_t) y0 * h.pitch
          + x0 * C + tid, h.pitch, ny,[=](float c) {
            return half_coefficient (h, c * scale);});
    else if (OUT == TILE_COMPACT)
      store_column < HALO > (v, (int16_t *) coef + at, row, ny,[=](float c) {
            return compact_coefficient (c * scale, mid, inv_step);});
    else if (ny == inner)
      store_column < HALO > (v, coef + at, row, inner,[=](float c) {
            return c * scale;});
    else
      store_column < HALO > (v, coef + at, row, ny,[=](float c) {
            return c * scale;});
  }
}

/* Shared memory of the tile kernel, and whether the device has it for a
 * block. */
static size_t
prefilter_tile_bytes (int channels)
{
  return (size_t) REG_LINE * REG_STRIDE (channels) * sizeof (float);
}

/* The dynamic shared memory of a kernel, and the most shared memory an
 * SM can give (by default the driver may keep more L1 and fit one block
 * of these kernels on an SM instead of two). */
template < typename K > static cudaError_t
shared_attributes (K kernel, size_t bytes)
{
  cudaError_t err = cudaFuncSetAttribute (kernel,
      cudaFuncAttributeMaxDynamicSharedMemorySize, (int) bytes);
  if (err == cudaSuccess)
    err = cudaFuncSetAttribute (kernel,
        cudaFuncAttributePreferredSharedMemoryCarveout,
        cudaSharedmemCarveoutMaxShared);
  return err;
}

/* Whether prefilter_tile_kernel takes f's prefilter: float, one pole
 * whose truncation index is one of the kernel's halos (those of orders 2
 * and 3 in float; anything else takes the scan and tiled passes), the
 * device's shared memory. */
static int
prefilter_tile_usable (const bspline_gpu_frame * f, int half)
{
  const int halo = f->n_poles == 1 ? f->truncation[0] : 0;
  return !f->use_double && f->n_poles == 1 && f->filter_x && f->filter_y
      && (half ? halo == REG_HALO_FAST2 || halo == REG_HALO_FAST3 :
      halo == REG_HALO_ORDER2 || halo == REG_HALO_ORDER3)
      && prefilter_tile_bytes (f->channels) + sizeof (reg_window)
      <= (size_t) device_shared_limit ();
}

/* h: NULL, coef's plane (float, or the 16-bit plane where f->compact);
 * else the binary16 plane. */
static cudaError_t
run_prefilter_tile (const bspline_gpu_frame * f, const void *src,
    size_t src_pitch, float *coef, const bspline_gpu_half * h,
    cudaStream_t stream)
{
  const int halo = f->truncation[0], inner = REG_LINE - 2 * halo;
  const int wc = f->src_width + 2 * f->pad, hc = f->src_height + 2 * f->pad;
  const dim3 grid ((unsigned) ((wc + inner - 1) / inner),
      (unsigned) ((hc + inner - 1) / inner));
  const size_t bytes = prefilter_tile_bytes (f->channels);
  const bspline_gpu_half none = { };

  return with_channels (f->channels, [&](auto ch) {
        constexpr int CH = decltype (ch)::value;
        auto kernel = h ? (halo == REG_HALO_FAST3 ?
            prefilter_tile_kernel < CH, REG_HALO_FAST3, TILE_HALF > :
            prefilter_tile_kernel < CH, REG_HALO_FAST2, TILE_HALF >) :
            f->compact ? (halo == REG_HALO_ORDER3 ?
            prefilter_tile_kernel < CH, REG_HALO_ORDER3, TILE_COMPACT > :
            prefilter_tile_kernel < CH, REG_HALO_ORDER2, TILE_COMPACT >) :
            halo == REG_HALO_ORDER3 ?
            prefilter_tile_kernel < CH, REG_HALO_ORDER3, TILE_FLOAT > :
            prefilter_tile_kernel < CH, REG_HALO_ORDER2, TILE_FLOAT >;
        cudaError_t err = shared_attributes (kernel, bytes);
        if (err != cudaSuccess)
          return err;
        kernel <<<grid, REG_THREADS (CH), bytes, stream >>> (*f,
            (const unsigned char *) src, src_pitch, coef, h ? *h : none);
        return cudaGetLastError ();
      });
}

extern "C" int
bspline_gpu_prefilter_compact_usable (const bspline_gpu_frame * f)
{
  return prefilter_tile_usable (f, 0);
}

extern "C" int
bspline_gpu_prefilter (const bspline_gpu_frame * f, const void *src,
    size_t src_pitch, void *coef, void *scratch, void *stream)
{
  if (f->compact)
    return prefilter_tile_usable (f, 0) ? run_prefilter_tile (f, src,
        src_pitch, (float *) coef, NULL, (cudaStream_t) stream) :
        cudaErrorInvalidValue;
  if (f->use_double)
    return run_prefilter (f, src, src_pitch, (double *) coef,
        (double *) scratch, (cudaStream_t) stream);
  if (prefilter_tile_usable (f, 0))
    return run_prefilter_tile (f, src, src_pitch, (float *) coef, NULL,
        (cudaStream_t) stream);
  if (f->n_poles > 0) {
    const int halo = tiled_halo (f), span = tiled_span (f, halo);
    if (span > 0)
      return run_prefilter_tiled (f, src, src_pitch, (float *) coef,
          (float *) scratch, halo, span, (cudaStream_t) stream);
  }
  return run_prefilter (f, src, src_pitch, (float *) coef, (float *) scratch,
      (cudaStream_t) stream);
}

extern "C" int
bspline_gpu_prefilter_half_direct (const bspline_gpu_frame * f)
{
  return f->n_poles == 0 || prefilter_tile_usable (f, 1);
}

extern "C" int
bspline_gpu_prefilter_half (const bspline_gpu_frame * f, const void *src,
    size_t src_pitch, const bspline_gpu_half * h, void *coef, void *scratch,
    void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  const int wc = f->src_width + 2 * f->pad, hc = f->src_height + 2 * f->pad;
  dim3 block (64, 4);
  int err;

  if (f->use_double)
    return cudaErrorInvalidValue;
  if (f->n_poles == 0) {
    convert_half_kernel <<<grid2 (wc, hc, block), block, 0, s >>> (*f,
        (const unsigned char *) src, src_pitch, *h);
    return cudaGetLastError ();
  }
  if (prefilter_tile_usable (f, 1))
    return run_prefilter_tile (f, src, src_pitch, NULL, h, s);
  err = bspline_gpu_prefilter (f, src, src_pitch, coef, scratch, stream);
  if (err != 0)
    return err;
  half_from_float_kernel <<<grid2 (wc, hc, block), block, 0, s >>> (*f,
      (const float *) coef, *h);
  return cudaGetLastError ();
}
