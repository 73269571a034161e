/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fused.cu: the separable path of float plans with one pole in two fused
 * passes (bspline_gpu_fused_usable, bspline_gpu_resample_fused).
 *
 * The interpolated value of the separable path is Wy Py Wx Px s: the
 * prefilter P and the resampling W of each axis act on one axis only, so
 * the operators of x and y commute, and each axis can be prefiltered and
 * resampled in one pass with no coefficient plane in between: along x a
 * warp filters a window of a padded source row (scan_window) and
 * resamples it at once into tmp, a row of dst_width pixels per padded
 * source row; along y a block filters the tiled prefilter's windows of
 * tmp's columns (y_window) and resamples them into dst.  Each output sample
 * belongs to the window of its centre tap; the window's halo is the
 * prefilter's halo plus the table's margin, so that every tap it reads is
 * as exact as in the interior.  The window holds the line's infinite
 * extension, so taps are read at their positions before the boundary's
 * map (tables.first).  Per frame this moves the source, tmp twice and the
 * output (174 MB for 1080p -> 4K RGBA instead of about 307 MB through the
 * planes; docs/notes/gpu-performance-notes.md, v7 and v9).
 *
 * The windows are the tiled prefilter's (prefilter.cu): recursions started
 * from zero at the window's ends, as precise as the truncated sums of
 * [BD19] eqs. 19 and 20 (core/include/bspline-math.h's references); the
 * weights are the tables' (core: the B-spline weights of [U99] eq. 2, Keys'
 * of [K81] eq. 15). */
#include "kernels-common.cuh"

/* The window of output j: that of its centre tap, the first and last
 * windows taking the outputs past them. */
__device__ static inline int
fused_window (const int *first, int taps, int j, int span, int n_windows)
{
  const int centre = __ldg (first + j) + (taps - 1) / 2;
  const int w = centre < 0 ? -1 : centre / span;
  return w < 0 ? 0 : (w >= n_windows ? n_windows - 1 : w);
}

/* Outputs [range[0], range[1]) of window w (first[] monotonic in the
 * direction dir, so the outputs of a window are consecutive): two binary
 * searches, by threads 0 and 1. */
__device__ static inline void
fused_range (const int *first, int taps, int dir, int n_out, int w,
    int span, int n_windows, int *range)
{
  if (threadIdx.x < 2) {
    /* key(j) = dir * window(j) rises with j; the first j whose key
     * reaches dir * w (thread 0) or dir * w + 1 (thread 1) */
    const int target = dir * w + (int) threadIdx.x;
    int lo = 0, hi = n_out;
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      if (dir * fused_window (first, taps, mid, span, n_windows) < target)
        lo = mid + 1;
      else
        hi = mid;
    }
    range[threadIdx.x] = lo;
  }
}

/* Along x: a warp per padded source row filters a window of
 * SCAN_CHUNKS x 32 columns in registers (scan_window: halo, the
 * prefilter's plus the x margin, on each side of span = SCAN_CHUNKS x 32
 * - 2 halo interior columns), leaves it in shared memory and resamples
 * the window's output columns from there, a lane per column.  TAPS: the
 * tap count at compile time, 0 for any. */
template < int C, int TAPS > __global__ void
__launch_bounds__ (SCAN_WARPS * 32)
rows_fused_kernel (bspline_gpu_frame f, const unsigned char *src,
    size_t src_pitch, int halo, bspline_gpu_tables t, float *tmp)
{
  extern __shared__ float window[];
  __shared__ int range[2];
  const int len = SCAN_CHUNKS * 32, span = len - 2 * halo;
  const int wc = f.src_width + 2 * f.pad, hc = f.src_height + 2 * f.pad;
  const int n_windows = (wc + span - 1) / span;
  const int w = (int) (blockIdx.x % n_windows);
  const int warp = (int) threadIdx.x / 32, lane = (int) threadIdx.x % 32;
  const int row = (int) (blockIdx.x / n_windows) * SCAN_WARPS + warp;
  const int col0 = w * span - halo;
  const float *weight = (const float *) t.x_weight;
  const int taps = TAPS > 0 ? TAPS : t.x_taps;
  float *line = window + warp * C * len;        /* channel c at c * len */
  float v[SCAN_CHUNKS][C];
  int j, k, c;

  fused_range (t.x_first, taps, t.x_dir, f.dst_width, w, span, n_windows,
      range);
  __syncthreads ();
  if (row >= hc)                /* a whole warp: no barriers below */
    return;
  scan_window < C > (f, src, src_pitch, row, col0, v);
#pragma unroll
  for (c = 0; c < C; c++)
#pragma unroll
    for (k = 0; k < SCAN_CHUNKS; k += 4)
      *(float4 *) (line + c * len + SCAN_CHUNKS * lane + k) =
          make_float4 (v[k][c], v[k + 1][c], v[k + 2][c], v[k + 3][c]);
  __syncwarp ();
  {
    /* two outputs' loads in flight a lane, and four taps' weights one
     * 16-byte load (the tables are allocations of their own: aligned) */
    float *o = tmp + (size_t) row * f.dst_width * C;
#pragma unroll 2
    for (j = range[0] + lane; j < range[1]; j += 32) {
      const float *lj = line + (__ldg (t.x_first + j) - col0);
      const float *wj = weight + (size_t) j * taps;
      float acc[C];
#pragma unroll
      for (c = 0; c < C; c++)
        acc[c] = 0.0f;
      if (TAPS == 4) {
        const float4 w4 = __ldg ((const float4 *) wj);
        const float wk[4] = { w4.x, w4.y, w4.z, w4.w };
#pragma unroll
        for (k = 0; k < 4; k++)
#pragma unroll
          for (c = 0; c < C; c++)
            acc[c] += wk[k] * lj[c * len + k];
      } else {
#pragma unroll 4
        for (k = 0; k < taps; k++) {
          const float wk = __ldg (wj + k);
#pragma unroll
          for (c = 0; c < C; c++)
            acc[c] += wk * lj[c * len + k];
        }
      }
      store_pixel < C > (o + (size_t) j * C, acc);
    }
  }
}

/* The most prefilter halo of the fused passes (the float truncation index
 * of order 3; they take one pole). */
#define FUSED_TAIL 18

/* The y window of the fused pass, one pole, keeping only the rows its
 * outputs' taps read: window rows h0 .. len - h0 - 1 (h0 the prefilter's
 * halo, at most FUSED_TAIL; the window's halo beyond it is the table's
 * margin, which bounds the taps) into window at (k - h0) * TILE_THREADS.
 * The causal sweep runs in registers as the rows arrive (LOADS in
 * flight; the last h0 rows all at once, kept in registers for the
 * anticausal sweep), and stores from row h0 on; the anticausal sweep runs
 * over the kept causal values of the last h0 rows, then back to row h0 in
 * shared memory.  The same operations in the same order as filter_window
 * over the whole window, so the same values in the rows kept; the
 * window's shared memory is SPAN + 2 margin rows a thread where it was
 * SPAN + 2 halo (docs/notes/gpu-performance-notes.md, v14). */
template < int LOADS > __device__ static void
y_window_kept (const bspline_gpu_frame & f, const float *in, size_t n,
    int len, int h0, const int *plane_row, size_t v, float *window)
{
  const float z = (float) f.poles[0];
  const int head = len - h0;    /* rows before the tail */
  float *line = window + threadIdx.x;
  float acc = 0.0f, tail[FUSED_TAIL];
  int k, b;

  window_rows < LOADS > (in, n, head, plane_row, v, [&](int r, float x) {
        acc = x + z * acc;
        if (r >= h0)
          line[(r - h0) * TILE_THREADS] = acc;
      });
  {
    float t[FUSED_TAIL];
#pragma unroll
    for (b = 0; b < FUSED_TAIL; b++)
      if (b < h0)
        t[b] = in[(size_t) plane_row[head + b] * n + v];
#pragma unroll
    for (b = 0; b < FUSED_TAIL; b++)
      if (b < h0) {
        acc = t[b] + z * acc;
        tail[b] = acc;
      }
  }
  acc = 0.0f;
#pragma unroll
  for (b = FUSED_TAIL - 1; b >= 0; b--)
    if (b < h0)
      acc = z * (acc - tail[b]);
#pragma unroll 4
  for (k = head - 1; k >= h0; k--) {
    acc = z * (acc - line[(k - h0) * TILE_THREADS]);
    line[(k - h0) * TILE_THREADS] = acc;
  }
}

/* Along y: TILE_THREADS consecutive values of tmp's rows in a window of
 * SPAN + 2 halo rows (halo: the prefilter's plus the y margin), then the
 * window's output rows.  PC values a thread item: 4 (a pixel of four
 * channels, its four values one shared load and, for U8, one store) or 1;
 * the TILE_THREADS / PC items of a row, and PC rows at a time. */
template < int SPAN, int LOADS, int PC, int TAPS > __global__ void
columns_fused_kernel (bspline_gpu_frame f, const float *tmp, int halo,
    int h0, bspline_gpu_tables t, unsigned char *dst, size_t dst_pitch)
{
  extern __shared__ float window[];
  __shared__ int range[2];
  const int hc = f.src_height + 2 * f.pad;
  const int n = f.dst_width * f.channels;
  const int len = SPAN + 2 * halo;
  const int n_windows = (hc + SPAN - 1) / SPAN;
  const int n_groups = (n + TILE_THREADS - 1) / TILE_THREADS;
  const int v0 = (int) (blockIdx.x % n_groups) * TILE_THREADS;
  const int v = v0 + threadIdx.x;
  const int w = (int) (blockIdx.x / n_groups);
  const int row0 = w * SPAN - halo;
  const float *weight = (const float *) t.y_weight;
  const int taps = TAPS > 0 ? TAPS : t.y_taps;
  const int items = TILE_THREADS / PC;
  const int item = (int) threadIdx.x % items;
  const int vi = v0 + item * PC;        /* the item's first value */
  /* the window's kept rows h0 .. len - h0 - 1 (y_window_kept) */
  int *plane_row = (int *) (window + TILE_THREADS * (len - 2 * h0));
  /* the window's output rows: their first tap's offset in the window and
   * weights, staged once (at most t.y_most rows) */
  int *offset = plane_row + len;
  float *staged = (float *) (offset + t.y_most);
  int i, k, c, count;

  fused_range (t.y_first, taps, t.y_dir, f.dst_height, w, SPAN, n_windows,
      range);
  y_window_rows (f, row0, len, plane_row);
  __syncthreads ();
  count = range[1] - range[0];
  for (k = threadIdx.x; k < count; k += blockDim.x)
    offset[k] = (__ldg (t.y_first + range[0] + k) - row0 - h0)
        * TILE_THREADS;
  for (k = threadIdx.x; k < count * taps; k += blockDim.x)
    staged[k] = __ldg (weight + (size_t) range[0] * taps + k);
  if (v < n)
    y_window_kept < LOADS > (f, tmp, (size_t) n, len, h0, plane_row,
        (size_t) v, window);
  __syncthreads ();             /* the staged rows; items of four values
                                 * read other threads' columns */
  if (vi >= n)
    return;
  unsigned char *out = dst + (size_t) (range[0] + (int) threadIdx.x / items)
      * dst_pitch;              /* stepped PC rows at a time */
#pragma unroll 2
  for (i = (int) threadIdx.x / items; i < count;
      i += PC, out += PC * dst_pitch) {
    const float *col = window + offset[i] + item * PC;
    const float *wi = staged + i * taps;
    float acc[PC];
#pragma unroll
    for (c = 0; c < PC; c++)
      acc[c] = 0.0f;
#pragma unroll 4
    for (k = 0; k < taps; k++) {
      const float wv = wi[k];
      float x[PC];
      if (PC == 4) {
        const float4 q = *(const float4 *) (col + k * TILE_THREADS);
        x[0] = q.x;
        x[PC > 1 ? 1 : 0] = q.y;
        x[PC > 2 ? 2 : 0] = q.z;
        x[PC > 3 ? 3 : 0] = q.w;
      } else {
        x[0] = col[k * TILE_THREADS];
      }
#pragma unroll
      for (c = 0; c < PC; c++)
        acc[c] += wv * x[c];
    }
    write_pixel < PC > (out, f.dst_type, f.dst_bits, f.dst_shift, vi / PC,
        acc);
  }
}

/* Dynamic shared memory of the fused y pass: the kept rows of its window
 * (span + 2 (halo - h0), h0 the prefilter's halo: y_window_kept), the
 * window's plane rows, the staged offsets and weights of at most `most`
 * output rows. */
static size_t
fused_y_bytes (int halo, int h0, int span, int most, int taps)
{
  const int len = span + 2 * halo;
  return (size_t) TILE_THREADS * (len - 2 * h0) * sizeof (float)
      + (size_t) len * sizeof (int) + (size_t) most * (taps + 1) * 4;
}

extern "C" int
bspline_gpu_fused_usable (const bspline_gpu_frame * f,
    const bspline_gpu_tables * t)
{
  int limit, halo;

  /* one pole (orders 2 and 3): the fused passes of order 5 (halo 38) ran
   * 1.2 times slower than the planes' passes, and with the wide windows of
   * orders 8-11 (a block fills an SM) 1.5 times (docs/notes/gpu-performance-
   * notes.md, v7); halos with the margins up to 64 (strong antialiased
   * shrinks and far translations take the planes) */
  if (f->use_double || f->n_poles != 1 || !f->filter_x || !f->filter_y
      || t->x_margin < 0 || t->y_margin < 0)
    return 0;
  halo = tiled_halo (f);
  if (halo > FUSED_TAIL)
    return 0;
  if (halo + t->x_margin > SCAN_MAX_HALO
      || halo + t->y_margin > TILE_SMALL_HALO)
    return 0;
  limit = device_shared_limit ();
  if (limit <= 0)
    return 0;
  /* the static range[] on top of the dynamic window (the x pass's
   * windows take 8 rows x 256 samples: 32 KB at most) */
  limit -= 2 * (int) sizeof (int);
  if (fused_y_bytes (halo + t->y_margin, halo, TILE_SPAN, t->y_most,
          t->y_taps) >
      (size_t) limit)
    return 0;
  return 1;
}

template < int C, int TAPS > static cudaError_t
launch_rows_fused (const bspline_gpu_frame * f, const void *src,
    size_t src_pitch, int halo, const bspline_gpu_tables * t, float *tmp,
    cudaStream_t stream)
{
  const int wc = f->src_width + 2 * f->pad, hc = f->src_height + 2 * f->pad;
  const int span = SCAN_CHUNKS * 32 - 2 * halo;
  const size_t bytes = (size_t) SCAN_WARPS * C * SCAN_CHUNKS * 32
      * sizeof (float);
  const unsigned blocks = (unsigned) ((wc + span - 1) / span)
      * (unsigned) ((hc + SCAN_WARPS - 1) / SCAN_WARPS);
  rows_fused_kernel < C, TAPS > <<<blocks, SCAN_WARPS * 32, bytes,
      stream >>> (*f, (const unsigned char *) src, src_pitch, halo, *t, tmp);
  return cudaGetLastError ();
}

template < int PC, int TAPS > static cudaError_t
launch_columns_fused (const bspline_gpu_frame * f, int halo,
    const bspline_gpu_tables * t, const float *tmp, void *dst,
    size_t dst_pitch, cudaStream_t stream)
{
  const int hc = f->src_height + 2 * f->pad;
  const int n = f->dst_width * f->channels;
  const int h0 = tiled_halo (f);
  const size_t bytes = fused_y_bytes (halo, h0, TILE_SPAN, t->y_most,
      t->y_taps);
  const unsigned blocks = (unsigned) ((n + TILE_THREADS - 1) / TILE_THREADS)
      * (unsigned) ((hc + TILE_SPAN - 1) / TILE_SPAN);
  cudaError_t err = cudaFuncSetAttribute (columns_fused_kernel < TILE_SPAN,
      TILE_COLUMN_LOADS, PC, TAPS >,
      cudaFuncAttributeMaxDynamicSharedMemorySize, (int) bytes);
  if (err != cudaSuccess)
    return err;
  columns_fused_kernel < TILE_SPAN, TILE_COLUMN_LOADS, PC, TAPS > <<<blocks,
      TILE_THREADS, bytes, stream >>> (*f, tmp, halo, h0, *t,
      (unsigned char *) dst, dst_pitch);
  return cudaGetLastError ();
}

extern "C" int
bspline_gpu_resample_fused (const bspline_gpu_frame * f,
    const bspline_gpu_tables * t, const void *src, size_t src_pitch,
    void *tmp, void *dst, size_t dst_pitch, void *stream)
{
  const int halo = tiled_halo (f);
  const int hx = halo + t->x_margin, hy = halo + t->y_margin;
  cudaStream_t s = (cudaStream_t) stream;
  float *plane = (float *) tmp;
  cudaError_t err;

  /* four taps (order 3) unrolled */
  err = with_channels (f->channels, [&](auto ch) {
        constexpr int CH = decltype (ch)::value;
        return t->x_taps == 4
            ? launch_rows_fused < CH, 4 > (f, src, src_pitch, hx, t, plane, s)
            : launch_rows_fused < CH, 0 > (f, src, src_pitch, hx, t, plane, s);
      });
  if (err != cudaSuccess)
    return err;
  if (f->channels == 4)
    return t->y_taps == 4 ? launch_columns_fused < 4, 4 > (f, hy, t, plane,
        dst, dst_pitch, s) : launch_columns_fused < 4, 0 > (f, hy, t, plane,
        dst, dst_pitch, s);
  return t->y_taps == 4 ? launch_columns_fused < 1, 4 > (f, hy, t, plane, dst,
      dst_pitch, s) : launch_columns_fused < 1, 0 > (f, hy, t, plane, dst,
      dst_pitch, s);
}
