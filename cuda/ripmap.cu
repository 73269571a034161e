/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ripmap.cu: the levels of coefficients that bound the cost of a lens
 * plan's widened kernel on the GPU (the maths: bspline-stage.h, "the
 * widened kernel of a lens plan, bounded in cost"; the CPU engine's:
 * core/resample/ripmap.c, whose layout and steps these are).
 *
 * Level (lx, ly) is made from (lx - 1, ly) along x, or from (0, ly - 1)
 * along y where lx is 0: coarse sample m of the step is the samples of
 * the finer level under the plan's kernel widened by 2 at the fine
 * sample coordinate 2m + 0.5 (bspline_axis_taps_d, its weights in double
 * as the CPU engine takes them, then in the plan's real type), for the
 * coarse samples of bspline_level_range stored from index 0 on
 * (bspline_level_axis).  The engine (engine.c, lens_levels) finds which
 * levels a plan's pixels read with bspline_gpu_lens_levels, once per
 * plan, and makes them each frame, in the order that has each one's
 * finer level made first. */
#include "kernels-common.cuh"

/* Taps of one step: the kernel's radius is at most 6 (order 11), so a
 * step reads ceil (4 r) + 1 <= 25 samples. */
#define LEVEL_STEP_TAPS 32

/* Per output pixel: the level it reads, counted where above (0, 0). */
__global__ static void
lens_levels_kernel (bspline_gpu_frame f, int *count)
{
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  double x, y, widen_x = 1.0, widen_y = 1.0, rest;
  int lx, ly;

  if (j >= f.dst_width || i >= f.dst_height
      || !warp_map (f, j + 0.5, i + 0.5, &x, &y, &widen_x, &widen_y)
      || !(widen_x > 1.0 || widen_y > 1.0))
    return;
  lx = bspline_widening_level (widen_x, bspline_max_level (f.axis_x.len),
      &rest);
  ly = bspline_widening_level (widen_y, bspline_max_level (f.axis_y.len),
      &rest);
  if (lx > 0 || ly > 0)
    atomicAdd (count + lx * BSPLINE_RIPMAP_LEVELS + ly, 1);
}

/* The taps of coarse sample `first + m` of a step from the axis `from`
 * (ripmap.c's step_taps); returns the count. */
__device__ static inline int
step_taps (const bspline_axis & from, int first, int m, int *index,
    double *w)
{
  return bspline_axis_taps_d (&from, 2.0 * (first + m) + 0.5, 2.0, index, w);
}

/* Along x: thread column m of the n_out coarse samples, its taps once,
 * then every row (rows of src_row values in, n_out * C out). */
template < typename T > __global__ static void
step_x_kernel (bspline_axis from, int first, int n_out, int rows, int C,
    const T * src, size_t src_row, T * dst)
{
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  int index[LEVEL_STEP_TAPS], n, k, c, r;
  double w[LEVEL_STEP_TAPS];

  if (m >= n_out)
    return;
  n = step_taps (from, first, m, index, w);
  for (r = blockIdx.y * blockDim.y + threadIdx.y; r < rows;
      r += gridDim.y * blockDim.y) {
    const T *s = src + (size_t) r * src_row;
    T *d = dst + ((size_t) r * n_out + m) * C;
    T acc[BSPLINE_MAX_CHANNELS] = { 0 };
    for (k = 0; k < n; k++) {
      const T *p = s + (size_t) index[k] * C;
      const T wk = (T) w[k];
      for (c = 0; c < C; c++)
        acc[c] += wk * p[c];
    }
    for (c = 0; c < C; c++)
      d[c] = acc[c];
  }
}

/* Along y: block row m (blockIdx.y) of the coarse rows, its taps per
 * thread, the row's `values` values across the threads. */
template < typename T > __global__ static void
step_y_kernel (bspline_axis from, int first, size_t values, const T * src,
    size_t src_row, T * dst)
{
  const int m = blockIdx.y;
  int index[LEVEL_STEP_TAPS], n, k;
  double w[LEVEL_STEP_TAPS];
  size_t v;

  n = step_taps (from, first, m, index, w);
  for (v = (size_t) blockIdx.x * blockDim.x + threadIdx.x; v < values;
      v += (size_t) gridDim.x * blockDim.x) {
    T acc = (T) 0;
    for (k = 0; k < n; k++)
      acc += (T) w[k] * src[(size_t) index[k] * src_row + v];
    dst[(size_t) m * values + v] = acc;
  }
}

template < typename T > static cudaError_t
level_step (const bspline_gpu_frame * f, int lx, int ly, const T * src,
    T * dst, cudaStream_t stream)
{
  const int along_x = lx > 0;
  const int fx = along_x ? lx - 1 : lx, fy = along_x ? ly : ly - 1;
  const bspline_axis from = along_x ? bspline_level_axis (&f->axis_x, fx)
      : bspline_level_axis (&f->axis_y, fy);
  const bspline_axis to = along_x ? bspline_level_axis (&f->axis_x, lx)
      : bspline_level_axis (&f->axis_y, ly);
  const bspline_axis src_x = bspline_level_axis (&f->axis_x, fx);
  const bspline_axis dst_x = bspline_level_axis (&f->axis_x, lx);
  const bspline_axis dst_y = bspline_level_axis (&f->axis_y, ly);
  const int C = f->channels;
  const size_t src_row = (size_t) bspline_level_stored (&src_x) * C;
  const int n_out = bspline_level_stored (&to);

  if (bspline_kernel_radius (from.method, from.order) * 4.0 + 1.0
      > LEVEL_STEP_TAPS)
    return cudaErrorInvalidValue;
  if (along_x) {
    const int rows = bspline_level_stored (&dst_y);
    dim3 block (64, 4);
    dim3 grid ((unsigned) ((n_out + 63) / 64),
        (unsigned) min ((rows + 3) / 4, 64));
    step_x_kernel < T > <<<grid, block, 0, stream >>> (from, -to.pad, n_out,
        rows, C, src, src_row, dst);
  } else {
    const size_t values = (size_t) bspline_level_stored (&dst_x) * C;
    dim3 block (256);
    dim3 grid ((unsigned) min ((values + 255) / 256, (size_t) 16),
        (unsigned) n_out);
    step_y_kernel < T > <<<grid, block, 0, stream >>> (from, -to.pad,
        values, src, src_row, dst);
  }
  return cudaGetLastError ();
}

extern "C" int
bspline_gpu_lens_levels (const bspline_gpu_frame * f, int *count,
    void *stream)
{
  dim3 block (32, 8);
  lens_levels_kernel <<<grid2 (f->dst_width, f->dst_height, block), block, 0,
      (cudaStream_t) stream >>> (*f, count);
  return cudaGetLastError ();
}

extern "C" int
bspline_gpu_level_step (const bspline_gpu_frame * f, int lx, int ly,
    const void *src, void *dst, void *stream)
{
  if (f->use_double)
    return level_step (f, lx, ly, (const double *) src, (double *) dst,
        (cudaStream_t) stream);
  return level_step (f, lx, ly, (const float *) src, (float *) dst,
      (cudaStream_t) stream);
}
