/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* texture.cu: precision=fast (bspline_gpu_resample_half): the
 * coefficients in binary16 (cuda-kernels.h, bspline_gpu_half), written by
 * the prefilter into pitch-linear device memory and read through a
 * texture object bound to that memory, whose hardware bilinear filter
 * does the weighting: the interpolation of order n as ((n + 2) / 2)^2
 * fetches, ((n + 1) / 2)^2 for odd n (Sigg & Hadwiger's trick as
 * presented by Ruijters, ter Haar Romeny & Suetens, "Efficient GPU-Based
 * Texture Interpolation using Uniform B-Splines", JGT 13(4) 2008,
 * section 3, generalised: along each axis the B-spline weights w_0 ..
 * w_n of taps o .. o + n, all non-negative, are taken in pairs, the pair (w_2m,
 * w_2m+1) one linear fetch of weight g_m = w_2m + w_2m+1 at o + 2m +
 * w_2m+1 / g_m; an even order's last tap is a pair with a zero weight,
 * a fetch at its texel's centre).  The texture unit interpolates with
 * 8-bit fractions: docs/accuracy.md gives the bound.  Pixels whose taps
 * the boundary maps (the frame's edges) take the exact weights and the
 * boundary's indices on the binary16 plane instead, and so do pixels
 * whose footprint widens the kernel (antialiasing), out of line. */
#include <cuda_fp16.h>

#include "kernels-common.cuh"

/* Texture fetch of C channels (1, 2 or 4) as floats (a binary16 texture
 * returns floats). */
template < int C > __device__ static inline void
fetch (cudaTextureObject_t tex, float x, float y, float *v);

template <> __device__ inline void
fetch < 1 > (cudaTextureObject_t tex, float x, float y, float *v)
{
  v[0] = tex2D < float >(tex, x, y);
}

template <> __device__ inline void
fetch < 2 > (cudaTextureObject_t tex, float x, float y, float *v)
{
  float2 t = tex2D < float2 > (tex, x, y);
  v[0] = t.x;
  v[1] = t.y;
}

template <> __device__ inline void
fetch < 4 > (cudaTextureObject_t tex, float x, float y, float *v)
{
  float4 t = tex2D < float4 > (tex, x, y);
  v[0] = t.x;
  v[1] = t.y;
  v[2] = t.z;
  v[3] = t.w;
}

/* One axis at sample coordinate s as P paired fetches: pos[m] the texel
 * coordinate of fetch m (texel k's centre at k + 0.5), g[m] its weight.
 * In float (the fetch's fraction has 8 bits; s is within 2^-12 of its
 * double below 8192, BSPLINE_GPU_HALF_MAX_SIDE keeps texel coordinates
 * within 2^-11).  0 where a tap is not stored as it is (the boundary maps
 * it, or s is far or not finite: the exact evaluation takes the pixel). */
template < int ORDER > __device__ static inline int
paired_axis (const bspline_axis & ax, float s, float *pos, float *g)
{
  constexpr int P = (ORDER + 2) / 2;
  float w[2 * P], t;
  int origin, k;

  if (!(fabsf (s) < 1048576.0f))
    return 0;
  origin = bspline_origin_f (ORDER, s, &t);
  if (!fixed_inside (ax, origin, ORDER + 1))
    return 0;
  if (ORDER == 3)
    bspline_cubic_weights_f (t, w);
  else
    bspline_weights_f (ORDER, t, w);
#pragma unroll
  for (k = ORDER + 1; k < 2 * P; k++)
    w[k] = 0.0f;
#pragma unroll
  for (k = 0; k < P; k++) {
    const float sum = w[2 * k] + w[2 * k + 1];
    g[k] = sum;
    pos[k] = (float) (origin + 2 * k + ax.pad) + 0.5f
        + (sum > 0.0f ? __fdividef (w[2 * k + 1], sum) : 0.0f);
  }
  return 1;
}

/* The value at sample coordinates (x, y) from the binary16 plane with
 * exact weights of the widened kernel (bspline_axis_taps), in the plane's
 * units; out of line, as warp.cu's widened_pixel. */
__device__ __noinline__ static void
half_taps (const widened_frame f, const bspline_gpu_half h, double x,
    double y, double widen_x, double widen_y, float *acc)
{
  eval_taps_rows < float, BSPLINE_MAX_POINT_TAPS > (f,
      (const __half *) h.data, h.pitch, x, y, widen_x, widen_y, acc);
}

/* A binary16 texel's C channels as floats (an 8-byte load for 4). */
template < int C > __device__ static inline void
half_texel (const __half * p, float *v)
{
  if (C == 4) {
    const uint2 t = *(const uint2 *) p;
    const float2 a = __half22float2 (*(const __half2 *) &t.x);
    const float2 b = __half22float2 (*(const __half2 *) &t.y);
    v[0] = a.x;
    v[1] = a.y;
    v[C > 2 ? 2 : 0] = b.x;
    v[C > 3 ? 3 : 0] = b.y;
  } else if (C == 2) {
    const float2 a = __half22float2 (*(const __half2 *) p);
    v[0] = a.x;
    v[C > 1 ? 1 : 0] = a.y;
  } else {
    v[0] = __half2float (p[0]);
  }
}

/* A pixel whose taps the boundary maps (near and beyond the frame's
 * edges; a rotation's corners): the ORDER + 1 taps an axis by exact
 * weights and the boundary's indices (fixed_weights and fixed_indices,
 * as warp.cu's float kernels), each texel read from the binary16 plane.
 * Inline with the order at compile time, where the general evaluation
 * (half_taps: tap arrays in local memory, loops of run-time length) took
 * more than half of the 4K rotation's sampler (ncu: 454 instructions a
 * pixel, 29 of them local loads and stores). */
template < int C, int ORDER > __device__ static inline void
half_boundary_pixel (const bspline_gpu_frame & f, const bspline_gpu_half & h,
    double x, double y, float *acc)
{
  constexpr int TAPS = ORDER + 1;
  const __half *plane = (const __half *) h.data;
  float wx[TAPS], wy[TAPS];
  int ix[TAPS], iy[TAPS], a, b, c;
  fixed_indices < TAPS > (f.axis_x, fixed_weights < TAPS > (f.axis_x, x, wx),
      ix);
  fixed_indices < TAPS > (f.axis_y, fixed_weights < TAPS > (f.axis_y, y, wy),
      iy);
#pragma unroll
  for (c = 0; c < C; c++)
    acc[c] = 0.0f;
#pragma unroll
  for (b = 0; b < TAPS; b++) {
    const __half *row = plane + (size_t) iy[b] * h.pitch;
    float line[C], v[C];
#pragma unroll
    for (c = 0; c < C; c++)
      line[c] = 0.0f;
#pragma unroll
    for (a = 0; a < TAPS; a++) {
      half_texel < C > (row + (size_t) ix[a] * C, v);
#pragma unroll
      for (c = 0; c < C; c++)
        line[c] = fmaf (wx[a], v[c], line[c]);
    }
#pragma unroll
    for (c = 0; c < C; c++)
      acc[c] = fmaf (wy[b], line[c], acc[c]);
  }
}

/* Where output pixel (j, i) samples the input: AFFINE (no lens stage, an
 * affine homography), the map inline, the widening the plan's constant
 * one; else warp_source (perspective and lens stages), whose code weighs
 * on the registers of the kernels that inline it.  0 where the pixel got
 * the fill. */
template < bool AFFINE > __device__ static inline int
half_source (const bspline_gpu_frame & f, int j, int i, unsigned char *out,
    double *x, double *y, double *widen_x, double *widen_y)
{
  if (!AFFINE)
    return warp_source < float >(f, j, i, out, x, y, widen_x, widen_y);
  const double u = j + 0.5, v = i + 0.5;
  const double *m = f.inverse;
  /* X / 1.0 is exact: the same point as bspline_map_point */
  *x = BSPLINE_MAP_ROW (m[0], u, m[1], v, m[2]);
  *y = BSPLINE_MAP_ROW (m[3], u, m[4], v, m[5]);
  *widen_x = f.widen ? f.affine_widen[0] : 1.0;
  *widen_y = f.widen ? f.affine_widen[1] : 1.0;
  if (isfinite (*x) && isfinite (*y))
    return 1;
  for (int c = 0; c < f.channels; c++)
    write_sample (out, f.dst_type, f.dst_bits, f.dst_shift,
        j * f.channels + c, (float) f.fill[c]);
  return 0;
}

/* precision=fast: one thread an output pixel, P paired fetches an axis
 * (the order at compile time: the weights in straight-line code). */
template < int C, int ORDER, bool AFFINE > __global__ void
__launch_bounds__ (256)
warp_half_kernel (bspline_gpu_frame f, bspline_gpu_half h,
    unsigned char *dst, size_t dst_pitch)
{
  constexpr int P = (ORDER + 2) / 2;
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  const cudaTextureObject_t tex = (cudaTextureObject_t) h.texture;
  unsigned char *out = dst + (size_t) i * dst_pitch;
  float acc[C];
  float px[P], gx[P], py[P], gy[P];
  double x, y, widen_x, widen_y;
  int a, b, c;

  if (j >= f.dst_width || i >= f.dst_height
      || !half_source < AFFINE > (f, j, i, out, &x, &y, &widen_x, &widen_y))
    return;
  if (widen_x > 1.0 || widen_y > 1.0) {
    const widened_frame wf = { f.channels, f.src_width, f.pad, f.dst_type,
      f.dst_bits, f.dst_shift, f.axis_x, f.axis_y, NULL
    };
    float v[BSPLINE_MAX_CHANNELS];
    half_taps (wf, h, x - 0.5, y - 0.5, widen_x, widen_y, v);
#pragma unroll
    for (c = 0; c < C; c++)
      acc[c] = v[c];
  } else if (!paired_axis < ORDER > (f.axis_x, (float) (x - 0.5), px, gx)
      || !paired_axis < ORDER > (f.axis_y, (float) (y - 0.5), py, gy)) {
    half_boundary_pixel < C, ORDER > (f, h, x - 0.5, y - 0.5, acc);
  } else {
#pragma unroll
    for (c = 0; c < C; c++)
      acc[c] = 0.0f;
#pragma unroll
    for (b = 0; b < P; b++) {
      float line[C], v[C];
#pragma unroll
      for (c = 0; c < C; c++)
        line[c] = 0.0f;
#pragma unroll
      for (a = 0; a < P; a++) {
        fetch < C > (tex, px[a], py[b], v);
#pragma unroll
        for (c = 0; c < C; c++)
          line[c] = fmaf (gx[a], v[c], line[c]);
      }
#pragma unroll
      for (c = 0; c < C; c++)
        acc[c] = fmaf (gy[b], line[c], acc[c]);
    }
  }
#pragma unroll
  for (c = 0; c < C; c++)
    acc[c] = fmaf (acc[c], h.range, h.mid);
  write_pixel < C > (out, f.dst_type, f.dst_bits, f.dst_shift, j, acc);
}

template < int C > static void
launch_half (const bspline_gpu_frame * f, const bspline_gpu_half * h,
    unsigned char *dst, size_t dst_pitch, cudaStream_t s)
{
  dim3 block (32, 8);
  dim3 grid = grid2 (f->dst_width, f->dst_height, block);
  const bool affine = f->n_lenses == 0 && f->inverse[6] == 0.0
      && f->inverse[7] == 0.0 && f->inverse[8] == 1.0;
  switch (f->axis_x.order) {
#define HALF_CASE(ORDER) \
    case ORDER: \
      if (affine) \
        warp_half_kernel < C, ORDER, true > <<<grid, block, 0, s >>> (*f, \
            *h, dst, dst_pitch); \
      else \
        warp_half_kernel < C, ORDER, false > <<<grid, block, 0, s >>> (*f, \
            *h, dst, dst_pitch); \
      break;
      HALF_CASE (1) HALF_CASE (2) HALF_CASE (3) HALF_CASE (4) HALF_CASE (5)
      HALF_CASE (6) HALF_CASE (7) HALF_CASE (8) HALF_CASE (9) HALF_CASE (10)
      HALF_CASE (11)
#undef HALF_CASE
  }
}

extern "C" int
bspline_gpu_resample_half (const bspline_gpu_frame * f,
    const bspline_gpu_half * h, void *dst, size_t dst_pitch, void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  unsigned char *out = (unsigned char *) dst;
  if (f->axis_x.order != f->axis_y.order || f->axis_x.order < 1
      || f->axis_x.order > BSPLINE_MAX_ORDER)
    return cudaErrorInvalidValue;
  switch (f->channels) {
    case 1:
      launch_half < 1 > (f, h, out, dst_pitch, s);
      break;
    case 2:
      launch_half < 2 > (f, h, out, dst_pitch, s);
      break;
    case 4:
      launch_half < 4 > (f, h, out, dst_pitch, s);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError ();
}
