/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lens-wide.cu: the pixels of a float lens plan whose footprint widens
 * the kernel (antialiasing), from the plan's lens table, where the table
 * holds their points and footprints (computed once per plan: warp.cu's
 * lens_table_kernel, cuda-kernels.h); warp.cu's kernel leaves them to
 * this one.
 *
 * Each pixel sums the widened kernel's taps as eval_levels and
 * eval_taps_rows do (kernels-common.cuh): on the coefficients or on the
 * ripmap level that the widening picks, the taps from
 * bspline_axis_origin, the weights the kernel's values at (x - tap) /
 * widen normalised to sum 1 (bspline_axis_taps).  Here the x weights (at
 * most WIDE_TAPS) live in registers, each y tap's weight is computed in
 * its row's turn, and the values are computed in float from the first
 * tap's argument and the step 1 / widen (in double before).  A pixel
 * with more taps, or whose level the plan did not make, takes the
 * general evaluation (widened_pixel).
 *
 * The table's widened pixels are listed once per plan
 * (lens_wide_list_kernel), and the kernel strides over the list, so that
 * a plan with none (a fisheye onto its own focal length) costs one small
 * launch.  H200, 2026-11-29, the 4K fisheye to 0.6 f, antialiased
 * (gpu-bench; docs/notes/lens-widened-cost.md has the steps):
 *  - before, every widened pixel took widened_pixel inside warp.cu's
 *    kernel, its tap arrays (BSPLINE_MAX_POINT_TAPS) in local memory,
 *    which moved 1.6 GB through DRAM a frame: 2,793 us;
 *  - a kernel over the whole frame with both axes' taps unrolled and the
 *    weights in double: 3,072 us (162 registers, 31 % of its stalls on
 *    instruction fetch);
 *  - the same as here but over the whole frame, 80 registers: 1,092 us,
 *    but 58 us more on a plan with no widened pixel (its empty grid);
 *  - here: 1,550 us, and the plan with none at 334 us (325 without
 *    antialiasing).  The list's warps come in the order of the atomic
 *    additions, so neighbouring rows' taps are no longer read by one
 *    block: 400 MB read where the whole-frame grid read 248. */

#include "kernels-common.cuh"

#define WIDE_TAPS 16

/* The kernel's value at d by the double evaluation, out of line (its
 * weights' array would otherwise weigh on the kernel's registers). */
__device__ __noinline__ static float
wide_value_general (int method, int order, double bicubic_a, float d)
{
  return (float) bspline_kernel_value_d (method, order, bicubic_a,
      (double) d);
}

/* The widened kernel's value at d (its argument in samples of the
 * unwidened kernel), in float: the cubic B-spline in closed form, else
 * the double evaluation. */
__device__ static inline float
wide_value (const bspline_axis & ax, float d)
{
  if (ax.method == BSPLINE_METHOD_BSPLINE && ax.order == 3) {
    const float a = fabsf (d);
    return a < 1.0f ? 2.0f / 3.0f - a * a + 0.5f * a * a * a :
        a < 2.0f ? (2.0f - a) * (2.0f - a) * (2.0f - a) * (1.0f / 6.0f) :
        0.0f;
  }
  return wide_value_general (ax.method, ax.order, ax.bicubic_a, d);
}

/* One axis's taps at sample coordinate x for widening widen: the first
 * tap's index (before the boundary), the count, the first tap's argument
 * t0 and the step between taps' arguments. */
typedef struct
{
  int origin, n;
  float t0, step;
} wide_axis_taps;

__device__ __forceinline__ static wide_axis_taps
wide_axis (const bspline_axis & ax, double x, double widen)
{
  wide_axis_taps a;
  double t;
  a.origin = bspline_axis_origin (&ax, &x, widen, &a.n, &t);
  a.t0 = (float) ((x - a.origin) / widen);
  a.step = (float) (1.0 / widen);
  return a;
}

__device__ static inline int
wide_index (const bspline_axis & ax, int inside, int k)
{
  return inside ? k + ax.pad : bspline_boundary_index (k, ax.len, ax.pad,
      ax.boundary);
}

/* acc: the widened kernel at (x, y) (sample coordinates) with widening
 * (widen_x, widen_y); 0 where the pixel needs the general evaluation. */
template < int C > __device__ __forceinline__ static int
wide_taps (const bspline_gpu_frame & f, const float *coef, double x,
    double y, double widen_x, double widen_y, float *acc)
{
  const float *plane = coef;
  size_t row = (size_t) (f.src_width + 2 * f.pad) * C;
  /* copies: the address of the kernel parameter's field would copy the
   * whole frame to local memory (warp.cu's widened_pixel says more) */
  const bspline_axis fx = f.axis_x, fy = f.axis_y;
  bspline_axis ax = fx, ay = fy;
  float wx[WIDE_TAPS], sum_x = 0.0f, sum_y = 0.0f;
  int inside_x, inside_y, a, b, c;

  if (f.levels) {
    double rest_x, rest_y;
    const int lx = bspline_widening_level (widen_x,
        bspline_max_level (fx.len), &rest_x);
    const int ly = bspline_widening_level (widen_y,
        bspline_max_level (fy.len), &rest_y);
    if (lx > 0 || ly > 0) {
      plane = (const float *) f.levels[lx * BSPLINE_RIPMAP_LEVELS + ly];
      if (!plane)
        return 0;
      ax = bspline_level_axis (&fx, lx);
      ay = bspline_level_axis (&fy, ly);
      row = (size_t) bspline_level_stored (&ax) * C;
      x = ldexp (bspline_level_point (&fx, x) + 0.5, -lx) - 0.5;
      y = ldexp (bspline_level_point (&fy, y) + 0.5, -ly) - 0.5;
    }
    widen_x = rest_x;
    widen_y = rest_y;
  }
  const wide_axis_taps tx = wide_axis (ax, x, widen_x);
  const wide_axis_taps ty = wide_axis (ay, y, widen_y);
  if (tx.n > WIDE_TAPS || ty.n > WIDE_TAPS)
    return 0;
  inside_x = fixed_inside (ax, tx.origin, tx.n);
  inside_y = fixed_inside (ay, ty.origin, ty.n);
#pragma unroll
  for (a = 0; a < WIDE_TAPS; a++) {
    wx[a] = a < tx.n ? wide_value (ax, tx.t0 - a * tx.step) : 0.0f;
    sum_x += wx[a];
  }
  for (b = 0; b < ty.n; b++)
    sum_y += wide_value (ay, ty.t0 - b * ty.step);
#pragma unroll
  for (c = 0; c < C; c++)
    acc[c] = 0.0f;
  for (b = 0; b < ty.n; b++) {
    const float *r = plane + (size_t) wide_index (ay, inside_y,
        ty.origin + b) * row;
    const float *p = r + (size_t) (tx.origin + ax.pad) * C;
    const float wy = wide_value (ay, ty.t0 - b * ty.step);
    float line[C];
#pragma unroll
    for (c = 0; c < C; c++)
      line[c] = 0.0f;
#pragma unroll
    for (a = 0; a < WIDE_TAPS; a++) {
      if (a < tx.n) {
        float v[C];
        load_texel < C > (inside_x ? p + a * C : r + (size_t) wide_index (ax,
                0, tx.origin + a) * C, v);
#pragma unroll
        for (c = 0; c < C; c++)
          line[c] += wx[a] * v[c];
      }
    }
#pragma unroll
    for (c = 0; c < C; c++)
      acc[c] += wy * line[c];
  }
  {
    const float norm = 1.0f / (sum_x * sum_y);
#pragma unroll
    for (c = 0; c < C; c++)
      acc[c] *= norm;
  }
  return 1;
}

/* The list of the table's widened pixels (bspline_gpu_lens_wide_list):
 * one atomic addition a warp, so that a warp's pixels stay together. */
__global__ static void
lens_wide_list_kernel (int width, int height, const unsigned char *flags,
    int *list)
{
  const size_t at = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31;
  const int wide = at < (size_t) width * height && flags[at];
  const unsigned mask = __ballot_sync (0xffffffffu, wide);
  int base = 0;

  if (!mask)
    return;
  if (lane == 0)
    base = atomicAdd (list, __popc (mask));
  base = __shfl_sync (0xffffffffu, base, 0);
  if (wide)
    list[1 + base + __popc (mask & ((1u << lane) - 1))] = (int) at;
}

/* The widened pixels of a lens table, from its list: a grid of threads
 * striding over it (the count is on the device). */
template < int C > __global__ void
__launch_bounds__ (256, 3)
lens_wide_kernel (bspline_gpu_frame f, const float *coef,
    const int2 * lens_xy, const int *list, unsigned char *dst,
    size_t dst_pitch)
{
  const double unit = 1.0 / (1 << BSPLINE_GPU_LENS_BITS);
  const int count = list[0];
  int k;

  for (k = blockIdx.x * blockDim.x + threadIdx.x; k < count;
      k += gridDim.x * blockDim.x) {
    const int at = list[1 + k], i = at / f.dst_width, j = at % f.dst_width;
    const double2 wd = lens_wide (f, lens_xy)[at];
    const int2 e = lens_xy[at];
    const double x = j + e.x * unit;    /* (j + 0.5 + e.x unit) - 0.5 */
    const double y = i + e.y * unit;
    unsigned char *out = dst + (size_t) i * dst_pitch;
    float acc[C];

    if (wide_taps < C > (f, coef, x, y, wd.x, wd.y, acc)) {
      write_pixel < C > (out, f.dst_type, f.dst_bits, f.dst_shift, j, acc);
    } else {
      const widened_frame wf = { f.channels, f.src_width, f.pad, f.dst_type,
        f.dst_bits, f.dst_shift, f.axis_x, f.axis_y, f.levels
      };
      widened_pixel (wf, coef, x, y, wd.x, wd.y, out, j);
    }
  }
}

extern "C" int
bspline_gpu_lens_wide_list (const bspline_gpu_frame * f, const int *lens_xy,
    int *list, void *stream)
{
  const size_t n = (size_t) f->dst_width * f->dst_height;
  const unsigned blocks = (unsigned) ((n + 255) / 256);
  cudaError_t err = cudaMemsetAsync (list, 0, sizeof (int),
      (cudaStream_t) stream);
  if (err != cudaSuccess)
    return err;
  lens_wide_list_kernel <<<blocks, 256, 0, (cudaStream_t) stream >>>
      (f->dst_width, f->dst_height, (const unsigned char *) lens_xy +
      bspline_gpu_lens_flags_offset (f->dst_width, f->dst_height), list);
  return cudaGetLastError ();
}

/* Blocks of the widened pixels' grid: enough to fill the GPU (they stride
 * over the list), few enough that an empty list costs a launch. */
#define WIDE_BLOCKS 1024

extern "C" int
bspline_gpu_lens_wide (const bspline_gpu_frame * f, const float *coef,
    const int *lens_xy, const int *list, unsigned char *dst,
    size_t dst_pitch, void *stream)
{
  switch (f->channels) {
    case 1:
      lens_wide_kernel < 1 > <<<WIDE_BLOCKS, 256, 0, (cudaStream_t) stream
          >>> (*f, coef, (const int2 *) lens_xy, list, dst, dst_pitch);
      break;
    case 4:
      lens_wide_kernel < 4 > <<<WIDE_BLOCKS, 256, 0, (cudaStream_t) stream
          >>> (*f, coef, (const int2 *) lens_xy, list, dst, dst_pitch);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError ();
}
