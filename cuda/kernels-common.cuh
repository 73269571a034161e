/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* kernels-common.cuh: the device helpers (and the launch wrappers' host
 * helpers) that more than one of the GPU engine's kernel files uses:
 * prefilter.cu, separable.cu, fused.cu, warp.cu and texture.cu.
 *
 * The maths is core/include/bspline-math.h, compiled here for the device:
 * the same poles, initialisations, weights and boundary maps as the CPU
 * engine.  Each kernel is a template on the arithmetic type (float or
 * double); order, method and boundary are run-time parameters, so the build
 * stays small.  Each file ends with its launch wrappers: the extern "C"
 * entries of cuda-kernels.h that the host code (engine.c, plain C) calls.
 *
 * Here: samples read as code values and written rounded and clamped as the
 * CPU engine does; the value at a point from the coefficients, with the
 * taps of bspline_axis_taps (the B-spline weights of [U99] eq. 2, Keys'
 * of [K81] eq. 15; references in core/include/bspline-math.h); the x window
 * filtered by warp scans and the rows of the y windows, which the tiled
 * prefilter and the fused separable passes share: recursions started from
 * zero at the window's ends, whose halo, the sum of the poles' truncation
 * indices, makes them as precise as the truncated sums of [BD19] eqs. 19
 * and 20.
 *
 * The helpers are static, so each file has its own copy, and none holds
 * state: no __constant__ or __device__ variables, so the files need no
 * relocatable device code. */
#ifndef BSPLINE_CUDA_KERNELS_COMMON_CUH
#define BSPLINE_CUDA_KERNELS_COMMON_CUH

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include <type_traits>

#include "bspline-math.h"
#include "bspline-stage.h"
#include "cuda-kernels.h"

/* ---- Samples and pixels ---- */

/* Reads sample i of a row of raw samples as a code value. */
__device__ static inline double
read_sample (const unsigned char *row, int type, int shift, int i)
{
  switch (type) {
    case BSPLINE_SAMPLE_U8:
      return row[i];
    case BSPLINE_SAMPLE_U16:
      return ((const uint16_t *) row)[i] >> shift;
    case BSPLINE_SAMPLE_F32:
      return ((const float *) row)[i];
    default:
      return ((const double *) row)[i];
  }
}

/* v as an 8-bit code value: rounded to nearest and clamped, as the CPU
 * engine does (NaN gives 0). */
template < typename T > __device__ static inline unsigned char
u8_value (T v)
{
  v = v > (T) 0 ? (v < (T) 255 ? v : (T) 255) : (T) 0;
  return (unsigned char) (v + (T) 0.5);
}

/* The same for a float, as the low byte of the result: v + 0.5 (the same
 * rounded sum as u8_value) added to 2^23 rounding toward zero leaves
 * floor (v + 0.5) in the low mantissa bits, all in the FMA pipe (the
 * conversion instruction of u8_value runs at a quarter of its rate; 4 a
 * pixel of RGBA).  fmaxf takes NaN to 0 as u8_value does. */
__device__ static inline unsigned
u8_bits (float v)
{
  v = fminf (fmaxf (v, 0.0f), 255.0f);
  return __float_as_uint (__fadd_rz (v + 0.5f, 8388608.0f));
}

/* Writes v to sample i of a row: integers rounded to nearest and clamped
 * to the code range, as the CPU engine does. */
template < typename T > __device__ static inline void
write_sample (unsigned char *row, int type, int bits, int shift, int i, T v)
{
  switch (type) {
    case BSPLINE_SAMPLE_U8:
      row[i] = sizeof (T) == 4 ? (unsigned char) u8_bits ((float) v)
          : u8_value (v);
      break;
    case BSPLINE_SAMPLE_U16:{
      const T top = (T) ((1 << bits) - 1);
      v = v > (T) 0 ? (v < top ? v : top) : (T) 0;
      ((uint16_t *) row)[i] = (uint16_t) ((unsigned) (v + (T) 0.5) << shift);
      break;
    }
    case BSPLINE_SAMPLE_F32:
      ((float *) row)[i] = (float) v;
      break;
    default:
      ((double *) row)[i] = (double) v;
      break;
  }
}

/* Writes the C samples of pixel j of a row: one 4-byte store for 8-bit
 * RGBA-like frames where the address allows it, else sample by sample. */
template < int C > __device__ static inline void
write_pixel (unsigned char *row, int type, int bits, int shift, int j,
    const float *v)
{
  if (C == 4 && type == BSPLINE_SAMPLE_U8
      && ((uintptr_t) (row + j * C) & 3) == 0) {
    /* the four low bytes of u8_bits in one word */
    const unsigned lo = __byte_perm (u8_bits (v[0]),
        u8_bits (v[C > 1 ? 1 : 0]), 0x0040);
    const unsigned hi = __byte_perm (u8_bits (v[C > 2 ? 2 : 0]),
        u8_bits (v[C > 3 ? 3 : 0]), 0x0040);
    *(unsigned *) (row + j * C) = __byte_perm (lo, hi, 0x5410);
  } else {
#pragma unroll
    for (int c = 0; c < C; c++)
      write_sample (row, type, bits, shift, j * C + c, v[c]);
  }
}

/* ---- The value at a point (warp.cu, texture.cu) ---- */

/* Per-type access to bspline_axis_taps (C has no overloading). */
__device__ static inline int
axis_taps (const bspline_axis * ax, double x, double widen, int *index,
    double *w)
{
  return bspline_axis_taps_d (ax, x, widen, index, w);
}

__device__ static inline int
axis_taps (const bspline_axis * ax, double x, double widen, int *index,
    float *w)
{
  return bspline_axis_taps_f (ax, x, widen, index, w);
}

/* A stored coefficient as a number (the binary16 plane of precision=fast
 * among them). */
__device__ static inline float
coef_value (float v)
{
  return v;
}

__device__ static inline double
coef_value (double v)
{
  return v;
}

__device__ static inline float
coef_value (__half v)
{
  return __half2float (v);
}

/* precision=compact's 16-bit plane (bspline_gpu_frame.compact): its
 * integers q as they are, the sums of them taken back to coefficients by
 * compact_finish once per pixel (mid + step sum w q, the weights summing to
 * 1: bspline_compact_scale). */
__device__ static inline float
coef_value (int16_t v)
{
  return (float) v;
}

template < typename S > __device__ static inline void
compact_finish (int channels, float mid, float step, float *acc)
{
  if (std::is_same < S, int16_t >::value)
    for (int c = 0; c < channels; c++)
      acc[c] = fmaf (acc[c], step, mid);
}

/* The value at input sample coordinates (x, y) from the coefficients
 * (S, row values a row), every channel, for kernels widened by (widen_x,
 * widen_y), in T.  MAX_TAPS sizes the tap arrays: BSPLINE_MAX_TAPS (12,
 * in registers) serves every plain interpolation, BSPLINE_MAX_POINT_TAPS
 * (128, in local memory) the widened kernels of antialiasing.  Frame:
 * bspline_gpu_frame, or a struct with its fields read here (channels,
 * axis_x, axis_y: widened_frame below). */
template < typename T, int MAX_TAPS, typename Frame, typename S >
__device__ static void
eval_taps_rows (const Frame & f, const S * coef, size_t row, double x,
    double y, double widen_x, double widen_y, T * acc)
{
  const int C = f.channels;
  int ix[MAX_TAPS], iy[MAX_TAPS];
  T wx[MAX_TAPS], wy[MAX_TAPS];
  int nx, ny, a, b, c;

  nx = axis_taps (&f.axis_x, x, widen_x, ix, wx);
  ny = axis_taps (&f.axis_y, y, widen_y, iy, wy);
  for (c = 0; c < C; c++)
    acc[c] = (T) 0;
  for (b = 0; b < ny; b++) {
    const S *r = coef + (size_t) iy[b] * row;
    T line[BSPLINE_MAX_CHANNELS] = { 0 };
    for (a = 0; a < nx; a++) {
      const S *s = r + (size_t) ix[a] * C;
      for (c = 0; c < C; c++)
        line[c] += wx[a] * coef_value (s[c]);
    }
    for (c = 0; c < C; c++)
      acc[c] += wy[b] * line[c];
  }
}

/* The same on the coefficient plane of the frame (rows of src_width +
 * 2 pad pixels). */
template < typename T, int MAX_TAPS, typename Frame, typename S >
__device__ static void
eval_taps (const Frame & f, const S * coef, double x, double y,
    double widen_x, double widen_y, T * acc)
{
  eval_taps_rows < T, MAX_TAPS > (f, coef, (size_t) (f.src_width + 2 * f.pad)
      * f.channels, x, y, widen_x, widen_y, acc);
}

/* Whether samples origin .. origin + n - 1 are all stored as they are
 * (index origin + pad, no boundary map). */
__device__ static inline int
fixed_inside (const bspline_axis & ax, int origin, int n)
{
  return origin + ax.pad >= 0 && origin + n - 1 < ax.len + ax.pad
      && (ax.pad > 0 || origin >= 0);
}

/* The TAPS weights of one axis at sample coordinate x and the sample
 * index of the first tap (before the boundary): warp.cu's float kernels,
 * texture.cu's pixels whose taps the boundary maps. */
template < int TAPS > __device__ static inline int
fixed_weights_at (const bspline_axis & ax, double x, float *w)
{
  if (ax.method == BSPLINE_METHOD_BICUBIC) {
    double fl = floor (x);
    bspline_keys_weights_f ((float) ax.bicubic_a, (float) (x - fl), w);
    return (int) fl - 1;
  } else {
    double t;
    int origin = bspline_origin_d (TAPS - 1, x, &t);
    if (TAPS == 4)
      bspline_cubic_weights_f ((float) t, w);
    else
      bspline_weights_f (TAPS - 1, (float) t, w);
    return origin;
  }
}

/* The same after bspline_reduce_coordinate (a no-op for the points of
 * warp.cu's staged blocks that take this path: staged_box gives them no
 * box that it would move). */
template < int TAPS > __device__ static inline int
fixed_weights (const bspline_axis & ax, double x, float *w)
{
  return fixed_weights_at < TAPS > (ax, bspline_reduce_coordinate (x, ax.len,
          ax.pad, ax.boundary, TAPS * 0.5 + 2.0), w);
}

/* Stored indices of the TAPS taps from origin, the boundary applied
 * (directly where every tap is inside the stored plane). */
template < int TAPS > __device__ static inline void
fixed_indices (const bspline_axis & ax, int origin, int *index)
{
  int k;
  if (fixed_inside (ax, origin, TAPS)) {
#pragma unroll
    for (k = 0; k < TAPS; k++)
      index[k] = origin + ax.pad + k;
  } else {
    /* unrolled too: an index computed at run time would move the arrays
     * to local memory */
#pragma unroll
    for (k = 0; k < TAPS; k++)
      index[k] = bspline_boundary_index (origin + k, ax.len, ax.pad,
          ax.boundary);
  }
}

/* What the out-of-line evaluations of a widened or boundary pixel read of
 * the frame (warp.cu's widened_pixel, texture.cu's half_taps): eval_taps'
 * fields and the output's format, passed by value (warp.cu says why). */
typedef struct
{
  int channels, src_width, pad;
  int dst_type, dst_bits, dst_shift;
  bspline_axis axis_x, axis_y;
  const void *const *levels;
  float compact_mid, compact_step;      /* of a 16-bit plane */
} widened_frame;

/* What eval_taps_rows reads of a level's plane. */
typedef struct
{
  int channels;
  bspline_axis axis_x, axis_y;
} level_frame;

/* A pixel of a lens plan at input sample coordinates (x, y) with its
 * footprint's widening (widen_x, widen_y), from the level of the ripmap
 * that the widening picks (bspline-stage.h; the CPU engine's
 * eval_lens_point, core/resample/resample-impl.h), f.levels' plane of
 * it (ripmap.cu), level (0, 0) being the coefficients; where the engine
 * made no such level, the kernel widened on the coefficients, held to
 * BSPLINE_MAX_WARP_WIDENING (as the CPU engine without memory for it).
 * Frame: bspline_gpu_frame or widened_frame. */
template < typename T, typename Frame, typename S > __device__ static void
eval_levels (const Frame & f, const S * coef, double x, double y,
    double widen_x, double widen_y, T * acc)
{
  const size_t row0 = (size_t) (f.src_width + 2 * f.pad) * f.channels;
  double rest_x, rest_y;
  const int lx = bspline_widening_level (widen_x,
      bspline_max_level (f.axis_x.len), &rest_x);
  const int ly = bspline_widening_level (widen_y,
      bspline_max_level (f.axis_y.len), &rest_y);
  const T *plane;
  level_frame lf;

  if (lx == 0 && ly == 0) {
    eval_taps_rows < T, BSPLINE_MAX_POINT_TAPS > (f, coef, row0, x, y,
        rest_x, rest_y, acc);
    return;
  }
  plane = (const T *) f.levels[lx * BSPLINE_RIPMAP_LEVELS + ly];
  if (!plane) {
    eval_taps_rows < T, BSPLINE_MAX_POINT_TAPS > (f, coef, row0, x, y,
        fmin (widen_x, BSPLINE_MAX_WARP_WIDENING), fmin (widen_y,
            BSPLINE_MAX_WARP_WIDENING), acc);
    return;
  }
  lf.channels = f.channels;
  lf.axis_x = bspline_level_axis (&f.axis_x, lx);
  lf.axis_y = bspline_level_axis (&f.axis_y, ly);
  /* the point brought into the frame at the fine level, then its
   * coordinates at the level (coarse sample m's centre is fine sample
   * 2^l (m + 0.5) - 0.5) */
  x = ldexp (bspline_level_point (&f.axis_x, x) + 0.5, -lx) - 0.5;
  y = ldexp (bspline_level_point (&f.axis_y, y) + 0.5, -ly) - 0.5;
  eval_taps_rows < T, BSPLINE_MAX_POINT_TAPS > (lf, plane,
      (size_t) bspline_level_stored (&lf.axis_x) * f.channels, x, y, rest_x,
      rest_y, acc);
}

/* A widened pixel: from the levels where the plan has them, else the
 * kernel widened on the coefficients. */
template < typename T, typename Frame, typename S > __device__ static void
eval_widened (const Frame & f, const S * coef, double x, double y,
    double widen_x, double widen_y, T * acc)
{
  if (f.levels)
    eval_levels (f, coef, x, y, widen_x, widen_y, acc);
  else
    eval_taps < T, BSPLINE_MAX_POINT_TAPS > (f, coef, x, y, widen_x, widen_y,
        acc);
}

template < typename T > __device__ static void
eval_point (const bspline_gpu_frame & f, const T * coef, double x, double y,
    double widen_x, double widen_y, T * acc)
{
  if (widen_x > 1.0 || widen_y > 1.0)
    eval_widened (f, coef, x, y, widen_x, widen_y, acc);
  else
    eval_taps < T, BSPLINE_MAX_TAPS > (f, coef, x, y, 1.0, 1.0, acc);
}

/* A pixel whose footprint widens the kernel (antialiasing): evaluated and
 * written out of line, so that its tap arrays do not weigh on the
 * registers of the common path.  What it reads of the frame is passed by
 * value: a reference to the kernel's parameter would make every thread
 * copy the whole frame to local memory on entry (ncu: 2.3 GB of DRAM
 * traffic on a 4K rotation), and a by-value argument of a function that
 * is not inlined is copied to local memory at each call, which for the
 * whole frame with its lens stages (cuda-kernels.h) would be 1328 bytes
 * a widened pixel (ptxas -v: the kernels' stack frames grew by the
 * frame's 696 bytes more when the lens stages became four). */
template < typename S > __device__ __noinline__ static void
widened_pixel (const widened_frame f, const S * coef, double x,
    double y, double widen_x, double widen_y, unsigned char *out, int j)
{
  float acc[BSPLINE_MAX_CHANNELS];
  int c;
  eval_widened (f, coef, x, y, widen_x, widen_y, acc);
  compact_finish < S > (f.channels, f.compact_mid, f.compact_step, acc);
  for (c = 0; c < f.channels; c++)
    write_sample (out, f.dst_type, f.dst_bits, f.dst_shift,
        j * f.channels + c, acc[c]);
}

/* The footprints of a lens table whose plan widens (f.widen): after its
 * dst_width x dst_height points, as many (widen_x, widen_y) in double,
 * then as many flags, 1 where the pixel's kernel widens and the table
 * holds its point (cuda-kernels.h). */
__device__ static inline const double2 *
lens_wide (const bspline_gpu_frame & f, const int2 * lens_xy)
{
  return (const double2 *) ((const char *) lens_xy +
      bspline_gpu_lens_wide_offset (f.dst_width, f.dst_height));
}

__device__ static inline const unsigned char *
lens_wide_flags (const bspline_gpu_frame & f, const int2 * lens_xy)
{
  return (const unsigned char *) lens_xy + bspline_gpu_lens_flags_offset
      (f.dst_width, f.dst_height);
}

/* The input point of output pixel centre (u, v) and its kernel widening
 * (left as they are where the frame does not widen): the homography, then
 * the lens stages where the plan has them; 0 where there is none. */
__device__ static inline int
warp_map (const bspline_gpu_frame & f, double u, double v, double *x,
    double *y, double *widen_x, double *widen_y)
{
  if (f.n_lenses > 0)
    return f.widen ? bspline_stage_footprint (f.inverse, f.lens, f.n_lenses,
        u, v, f.max_widen, x, y, widen_x, widen_y) :
        bspline_stage_map_point (f.inverse, f.lens, f.n_lenses, u, v, x, y);
  if (!bspline_map_point (f.inverse, u, v, x, y))
    return 0;
  if (f.widen)
    bspline_footprint (f.inverse, u, v, *x, *y, f.max_widen, widen_x,
        widen_y);
  return 1;
}

/* Where output pixel (j, i) samples the input (pixel coordinates) and how
 * much its kernel widens; writes the fill colour and returns 0 where the
 * pixel is outside the frame or has no input point (the horizon of a
 * perspective map). */
template < typename T > __device__ static inline int
warp_source (const bspline_gpu_frame & f, int j, int i, unsigned char *out,
    double *x, double *y, double *widen_x, double *widen_y)
{
  const double u = j + 0.5, v = i + 0.5;
  int c;

  if (j >= f.dst_width || i >= f.dst_height)
    return 0;
  *widen_x = *widen_y = 1.0;
  if (!warp_map (f, u, v, x, y, widen_x, widen_y)) {
    for (c = 0; c < f.channels; c++)
      write_sample (out, f.dst_type, f.dst_bits, f.dst_shift,
          j * f.channels + c, (T) f.fill[c]);
    return 0;
  }
  return 1;
}

/* ---- Source pixels and the coefficients' texels ---- */

/* Sample index s of an axis of len samples under the boundary's extension;
 * -1 for the fill of constant. */
__device__ static inline int
extended_index (int s, int len, int boundary)
{
  if (s >= 0 && s < len)
    return s;
  switch (boundary) {
    case BSPLINE_BOUNDARY_CLAMP:
      return s < 0 ? 0 : (s >= len ? len - 1 : s);
    case BSPLINE_BOUNDARY_CONSTANT:
      return s < 0 || s >= len ? -1 : s;
    default:
      return bspline_boundary_index (s, len, 0, boundary);
  }
}

/* C samples of pixel sx of a source row, as code values. */
template < int C > __device__ static inline void
read_pixel (const bspline_gpu_frame & f, const unsigned char *row, int sx,
    float *v)
{
  if (C == 4 && f.src_type == BSPLINE_SAMPLE_U8
      && ((uintptr_t) row & 3) == 0) {
    const uchar4 p = ((const uchar4 *) row)[sx];
    v[0] = p.x;
    v[1] = p.y;
    v[2] = p.z;
    v[3] = p.w;
  } else {
#pragma unroll
    for (int c = 0; c < C; c++)
      v[c] = (float) read_sample (row, f.src_type, f.src_shift, sx * C + c);
  }
}

/* C samples of source pixel (sx, sy) as code values, the fill colour where
 * the constant extension puts it outside the frame (sx or sy < 0, see
 * extended_index); row is source row sy when there is one. */
template < int C > __device__ static inline void
source_pixel (const bspline_gpu_frame & f, const unsigned char *row, int sx,
    int sy, float *v)
{
  if (sx < 0 || sy < 0) {
#pragma unroll
    for (int c = 0; c < C; c++)
      v[c] = (float) f.fill[c];
  } else {
    read_pixel < C > (f, row, sx, v);
  }
}

/* C floats of a pixel through the read-only cache, one 16-byte load for
 * four. */
template < int C > __device__ static inline void
load_texel (const float *p, float *v)
{
  for (int c = 0; c < C; c++)
    v[c] = __ldg (p + c);
}

template <> __device__ inline void
load_texel < 4 > (const float *p, float *v)
{
  float4 t = __ldg ((const float4 *) p);
  v[0] = t.x;
  v[1] = t.y;
  v[2] = t.z;
  v[3] = t.w;
}

/* The same of the 16-bit plane (its integers), one 8-byte load for
 * four. */
template < int C > __device__ static inline void
load_texel (const int16_t * p, float *v)
{
  for (int c = 0; c < C; c++)
    v[c] = (float) __ldg (p + c);
}

template <> __device__ inline void
load_texel < 4 > (const int16_t * p, float *v)
{
  short4 t = __ldg ((const short4 *) p);
  v[0] = t.x;
  v[1] = t.y;
  v[2] = t.z;
  v[3] = t.w;
}

/* C floats of a pixel, one 16-byte store for four. */
template < int C > __device__ static inline void
store_pixel (float *p, const float *v)
{
#pragma unroll
  for (int c = 0; c < C; c++)
    p[c] = v[c];
}

template <> __device__ inline void
store_pixel < 4 > (float *p, const float *v)
{
  *(float4 *) p = make_float4 (v[0], v[1], v[2], v[3]);
}

/* ---- x pass by warp scans (halos up to SCAN_MAX_HALO) ----
 *
 * The recursions along x without shared memory: a warp takes one row's
 * window of SCAN_CHUNKS x 32 samples, lane l the SCAN_CHUNKS consecutive
 * samples from SCAN_CHUNKS l, all of them in registers.  Each causal
 * recursion y_i = x_i + z y_{i-1} runs along each lane's samples, and the
 * lanes' last values are joined by a scan across the warp (Kogge-Stone:
 * five shuffles); each anticausal one, c_i = -z x_i + z c_{i+1}, the same
 * from the right (scan_filter).  The window is the tiled pass's (started
 * from zero at both ends, the halo the sum of the truncation indices),
 * and the poles run one after the other over the whole window, so the
 * coefficients are those of prefilter_x_tiled_kernel up to float
 * rounding.  Every block runs at half occupancy or more (no shared
 * memory), where the tiled pass ran at a quarter (docs/notes/gpu-performance-
 * notes.md, v9-v10). */
#define SCAN_CHUNKS 8
#define SCAN_WARPS 8
#define SCAN_MAX_HALO 64        /* interior of at least 128 samples */

template < int C > __device__ static inline void
scan_filter (const bspline_gpu_frame & f, float (*v)[C]);

/* Padded row `row` of the plane at window columns col0 .. col0 +
 * SCAN_CHUNKS * 32 - 1, filtered along x, into v (lane l: samples
 * SCAN_CHUNKS l + i, i = 0 .. SCAN_CHUNKS - 1, in v[i]).  The whole warp
 * calls it. */
template < int C > __device__ static inline void
scan_window (const bspline_gpu_frame & f, const unsigned char *src,
    size_t src_pitch, int row, int col0, float (*v)[C])
{
  const int pad = f.pad;
  const int lane = (int) threadIdx.x % 32;
  const float gain2 = (float) f.gain2;
  int k, c;
  const int sy = extended_index (row - pad, f.src_height, f.boundary);
  const unsigned char *srow = src + (size_t) (sy < 0 ? 0 : sy) * src_pitch;
#pragma unroll
  for (k = 0; k < SCAN_CHUNKS; k++) {
    const int sc = col0 + SCAN_CHUNKS * lane + k - pad;
    const int sx = extended_index (sc, f.src_width, f.boundary);
    source_pixel < C > (f, srow, sx, sy, v[k]);
#pragma unroll
    for (c = 0; c < C; c++)
      v[k][c] *= gain2;
  }
  scan_filter < C > (f, v);
}

/* The poles of f over a warp's window v (lane l: samples SCAN_CHUNKS l +
 * i), each causal then anticausal, started from zero at the window's
 * ends.  A recursion y_s = x_s + z y_(s-1) runs along each lane's
 * SCAN_CHUNKS samples from zero (filter_window's operations); the lanes'
 * last values, Y_l = y_last + z^SCAN_CHUNKS Y_(l-1), are a scan across
 * the warp (five shuffle steps); then each sample i of lane l gains
 * z^(i + 1) Y_(l-1).  The anticausal recursion y_s = z (y_(s+1) - x_s) the
 * same from the right.  Per sample and pole two multiply-adds a
 * direction, and per lane and channel six shuffles (docs/notes/gpu-performance-
 * notes.md, v10). */
/* The carry into a lane of a recursion run from zero along each lane's
 * samples, from y, the lane's last value: the scan of the lanes' last
 * values (Y_l = y_l + z^SCAN_CHUNKS Y_(l-1), five shuffle steps with zp[s]
 * = z^(SCAN_CHUNKS 2^s)) taken from the lane before (FORWARD) or after,
 * 0 at the window's end. */
template < bool FORWARD > __device__ static inline float
lane_carry (float y, const float *zp)
{
  const int lane = (int) threadIdx.x % 32;
#pragma unroll
  for (int s = 0; s < 5; s++) {
    const float u = FORWARD ? __shfl_up_sync (0xffffffffu, y, 1 << s)
        : __shfl_down_sync (0xffffffffu, y, 1 << s);
    if (FORWARD ? lane >= (1 << s) : lane + (1 << s) < 32)
      y += zp[s] * u;
  }
  y = FORWARD ? __shfl_up_sync (0xffffffffu, y, 1)
      : __shfl_down_sync (0xffffffffu, y, 1);
  return lane == (FORWARD ? 0 : 31) ? 0.0f : y;
}

template < int C > __device__ static inline void
scan_filter (const bspline_gpu_frame & f, float (*v)[C])
{
  int k, c, p, s;

  for (p = 0; p < f.n_poles; p++) {
    const float z = (float) f.poles[p];
    float zk[SCAN_CHUNKS + 1], zp[5];   /* z^k; z^(SCAN_CHUNKS 2^s) */
    zk[0] = 1.0f;
#pragma unroll
    for (k = 1; k <= SCAN_CHUNKS; k++)
      zk[k] = zk[k - 1] * z;
    zp[0] = zk[SCAN_CHUNKS];
#pragma unroll
    for (s = 1; s < 5; s++)
      zp[s] = zp[s - 1] * zp[s - 1];
#pragma unroll
    for (c = 0; c < C; c++) {
      float y = 0.0f, t;
#pragma unroll
      for (k = 0; k < SCAN_CHUNKS; k++) {
        y = v[k][c] + z * y;
        v[k][c] = y;
      }
      t = lane_carry < true > (y, zp);
#pragma unroll
      for (k = 0; k < SCAN_CHUNKS; k++)
        v[k][c] += zk[k + 1] * t;
    }
#pragma unroll
    for (c = 0; c < C; c++) {
      float y = 0.0f, t;
#pragma unroll
      for (k = SCAN_CHUNKS - 1; k >= 0; k--) {
        y = z * (y - v[k][c]);
        v[k][c] = y;
      }
      t = lane_carry < false > (y, zp);
#pragma unroll
      for (k = 0; k < SCAN_CHUNKS; k++)
        v[k][c] += zk[SCAN_CHUNKS - k] * t;
    }
  }
}

/* ---- Tiled windows ----
 *
 * The windows of the tiled prefilter (prefilter.cu, whose comment has
 * their maths), which the fused y pass (fused.cu) takes too. */
#define TILE_THREADS 128
#define TILE_SPAN BSPLINE_GPU_FUSED_SPAN  /* interior samples of a window,
                                           * halo <= 64 */
#define TILE_SPAN_WIDE 128      /* the same, larger halos */
#define TILE_SMALL_HALO 64
#define TILE_MAX_HALO 128       /* larger halos take the segmented path */
/* global loads in flight per thread: a row of the x window per lane
 * (TILE_SPAN + 2 * TILE_SMALL_HALO samples in one go), 16 column samples
 * in the y pass; twice that for the wide windows, which run one block of
 * four warps per SM */
#define TILE_ROW_LOADS 6
#define TILE_ROW_LOADS_WIDE 12
#define TILE_COLUMN_LOADS 16
#define TILE_COLUMN_LOADS_WIDE 32

/* Window rows 0 .. end - 1 of value-column v of a plane of n values a
 * row (the boundary's rows through plane_row, which the caller has
 * filled and synchronised), each passed in order to use (k, value), LOADS
 * loads in flight per thread.  Rows of consecutive plane rows (every step
 * of plane_row is at most +1, so the ends tell) step one address a row,
 * without tests, until the last LOADS rows: the general loop took about
 * 17 instructions a load, a 64-bit product and a test each
 * (docs/notes/gpu-performance-notes.md, v12). */
template < int LOADS, typename F > __device__ static inline void
window_rows (const float *in, size_t n, int end, const int *plane_row,
    size_t v, F use)
{
  int k = 0, b;
  if (plane_row[end - 1] - plane_row[0] == end - 1) {
    const float *p = in + (size_t) plane_row[0] * n + v;
    for (; k + LOADS <= end; k += LOADS) {
      float t[LOADS];
#pragma unroll
      for (b = 0; b < LOADS; b++) {
        t[b] = *p;
        p += n;
      }
#pragma unroll
      for (b = 0; b < LOADS; b++)
        use (k + b, t[b]);
    }
  }
  for (; k < end; k += LOADS) {
    float t[LOADS];
#pragma unroll
    for (b = 0; b < LOADS; b++)
      if (k + b < end)
        t[b] = in[(size_t) plane_row[k + b] * n + v];
#pragma unroll
    for (b = 0; b < LOADS; b++)
      if (k + b < end)
        use (k + b, t[b]);
  }
}

/* The plane row of each of the len window positions from row0; rows past
 * the padded plane: for clamp and constant its outer rows already hold
 * the extension. */
__device__ static void
y_window_rows (const bspline_gpu_frame & f, int row0, int len,
    int *plane_row)
{
  const int pad = f.pad, hc = f.src_height + 2 * pad;
  for (int k = threadIdx.x; k < len; k += blockDim.x) {
    const int py = row0 + k;
    plane_row[k] = pad > 0 ? (py < 0 ? 0 : (py >= hc ? hc - 1 : py))
        : bspline_boundary_index (py, hc, 0, f.boundary);
  }
}

/* ---- The launch wrappers' host helpers ---- */

static inline dim3
grid2 (int nx, int ny, dim3 block)
{
  return dim3 ((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y);
}

/* launch (std::integral_constant<int, C> ()) for a plane's channel count C
 * (1-4): the launch wrappers' templates from a run-time count. */
template < typename F > static cudaError_t
with_channels (int channels, F launch)
{
  switch (channels) {
    case 1:
      return launch (std::integral_constant < int, 1 > ());
    case 2:
      return launch (std::integral_constant < int, 2 > ());
    case 3:
      return launch (std::integral_constant < int, 3 > ());
    default:
      return launch (std::integral_constant < int, 4 > ());
  }
}

/* Sum of the truncation indices: the halo of the tiled windows. */
static inline int
tiled_halo (const bspline_gpu_frame * f)
{
  int i, h = 0;
  for (i = 0; i < f->n_poles; i++)
    h += f->truncation[i];
  return h;
}

/* The most shared memory a block may have on the current device (0 where
 * it cannot be asked). */
static inline int
device_shared_limit (void)
{
  int device, limit;
  if (cudaGetDevice (&device) != cudaSuccess
      || cudaDeviceGetAttribute (&limit,
          cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess)
    return 0;
  return limit;
}

/* The separable path of bspline_gpu_resample (warp.cu), in separable.cu. */
cudaError_t bspline_gpu_resample_separable (const bspline_gpu_frame * f,
    const void *coef, const bspline_gpu_tables * tables, void *tmp,
    void *dst, size_t dst_pitch, cudaStream_t s);

#endif /* BSPLINE_CUDA_KERNELS_COMMON_CUH */
