/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* warp.cu: the general (warp) path of bspline_gpu_resample, one output
 * pixel at a time: the output pixel centre through the inverse homography
 * to the input point, then the sum of the coefficients over the kernel's
 * taps there, the B-spline weights of [U99] eq. 2 (in closed form for
 * order 3) or Keys' of [K81] eq. 15 (references in
 * core/include/bspline-math.h); kernels widened by the map's footprint for
 * antialiasing.  Float plans of one or four channels take kernels with the
 * tap count at compile time, whose blocks stage the coefficients they reach
 * in shared memory.  bspline_gpu_resample, the entry, hands plans with
 * tables to the separable path (separable.cu). */
#include <cuda_pipeline.h>

#include "kernels-common.cuh"

/* General path: one thread per output pixel. */
template < typename T > __global__ void
warp_kernel (bspline_gpu_frame f, const T * coef, unsigned char *dst,
    size_t dst_pitch)
{
  const int C = f.channels;
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  T acc[BSPLINE_MAX_CHANNELS];
  double x, y, widen_x, widen_y;
  unsigned char *out = dst + i * dst_pitch;
  int c;

  if (!warp_source < T > (f, j, i, out, &x, &y, &widen_x, &widen_y))
    return;
  eval_point (f, coef, x - 0.5, y - 0.5, widen_x, widen_y, acc);
  for (c = 0; c < C; c++)
    write_sample (out, f.dst_type, f.dst_bits, f.dst_shift, j * C + c,
        acc[c]);
}

/* ---- Warp with a fixed kernel size (float) ----
 *
 * The general path for float plans: the tap count (ORDER + 1, or 4 for
 * Keys) and the channel count are compile-time constants, so the taps,
 * weights and the sum live in registers and the loads of a pixel's
 * channels are one vector load.  Positions and fractions are computed in
 * double as in eval_taps.  Pixels whose footprint widens the kernel
 * (antialiasing) take the general evaluation, kept out of line. */

/* acc = sum_b wy[b] sum_a wx[a] texel (iy[b], ix[a]) of the plane at base
 * with rows of stride values (S: float, or the 16-bit plane's int16_t,
 * whose sums compact_finish takes back to coefficients): STAGED, the
 * block's box in shared memory, else the coefficient plane through the
 * read-only cache. */
template < int C, int TAPS, bool STAGED, typename S > __device__ static inline
    void
sum_taps (const S * base, size_t stride, const int *ix, const int *iy,
    const float *wx, const float *wy, float *acc)
{
  int a, b, c;
#pragma unroll
  for (c = 0; c < C; c++)
    acc[c] = 0.0f;
#pragma unroll
  for (b = 0; b < TAPS; b++) {
    const S *row = base + (size_t) iy[b] * stride;
    float line[C];
#pragma unroll
    for (c = 0; c < C; c++)
      line[c] = 0.0f;
#pragma unroll
    for (a = 0; a < TAPS; a++) {
      const S *p = row + (size_t) ix[a] * C;
      float v[C];
      if (!STAGED) {
        load_texel < C > (p, v);
      } else if (C == 4 && sizeof (S) == 4) {
        const float4 t = *(const float4 *) p;
        v[0] = t.x;
        v[1] = t.y;
        v[2] = t.z;
        v[3] = t.w;
      } else if (C == 4) {
        const short4 t = *(const short4 *) p;
        v[0] = t.x;
        v[1] = t.y;
        v[2] = t.z;
        v[3] = t.w;
      } else {
#pragma unroll
        for (c = 0; c < C; c++)
          v[c] = (float) p[c];
      }
#pragma unroll
      for (c = 0; c < C; c++)
        line[c] += wx[a] * v[c];
    }
#pragma unroll
    for (c = 0; c < C; c++)
      acc[c] += wy[b] * line[c];
  }
}

/* Blocks of the output in vertical strips of WARP_STRIP blocks, so that
 * the blocks in flight at once cover a compact part of the output and
 * read a compact part of the coefficient plane: blockIdx.y is the strip,
 * blockIdx.x the block in it, WARP_STRIP to a row (the last strip's blocks
 * past the frame return at once). */
#define WARP_STRIP 8
#define WARP_BLOCK_X 32
#define WARP_BLOCK_Y 8
/* output rows per thread at every tap count: each block's box, barriers
 * and set-up serve more pixels (docs/notes/gpu-performance-notes.md, v8-v10
 * and v14: 4K rotate order 3 251 us with 2, 229 with 4, 227 with 6, order
 * 5 457 us with 4 and 464 with 6; order 11 1793 us with 2, 1750 with 4
 * and 2164 with 6, once the staged region was sized to the map's boxes,
 * v13) */
#define WARP_ROWS 4
/* the most texels of a block's staged region: 48 KB of float4 (a launch
 * gives the kernel what its map's boxes need: warp_region_texels) */
#define WARP_REGION_TEXELS 3072
/* blocks an SM (__launch_bounds__) for up to 6 taps: under affine maps
 * five (48 registers; their boxes fit in 45 KB: warp_region_texels; 4K
 * rotate order 3: 150 -> 132 us under ncu), under perspective maps,
 * whose region stays 48 KB, four (64 registers: with 48 they spilled for
 * no more blocks, 227 -> 244 us; docs/notes/gpu-performance-notes.md, v13);
 * three for more taps */
#define WARP_BLOCKS_AFFINE 5
#define WARP_BLOCKS(TAPS) ((TAPS) <= 6 ? 4 : 3)

/* Texels a row of the staged region, for a box w texels wide: for four
 * channels a multiple of 8 (128 bytes, the banks' width), so that the
 * eight lanes of a quarter warp, which read eight texels of at most two
 * neighbouring rows under a small rotation, find them in eight different
 * bank groups (w itself made 11 % of the sampling's shared-memory
 * wavefronts excess at 10 degrees: docs/notes/gpu-performance-notes.md,
 * v12). */
template < int C > __device__ static inline int
region_stride (int w)
{
  return C == 4 ? (w + 7) & ~7 : w;
}

/* Lane 0's part of staged_box: from the extent of the
 * block's sample coordinates (ok: every point found), the box (box[2] = 0:
 * none). */
template < int C, int TAPS > __device__ __forceinline__ static void
staged_box_from (const bspline_gpu_frame & f, int far_ok, int ok,
    double xmin, double xmax, double ymin, double ymax, int region_texels,
    int *box)
{
  const double reach = TAPS * 0.5 + 2.0, far = 4194304.0;      /* 2^22 */
  int x0, y0, w, h, inside;
  box[2] = 0;
  if (!ok)
    return;
  inside = xmin >= -f.pad - reach && xmax <= f.src_width - 1 + f.pad + reach
      && ymin >= -f.pad - reach && ymax <= f.src_height - 1 + f.pad + reach;
  if (!inside && !(far_ok && xmin > -far && xmax < far && ymin > -far
          && ymax < far))
    return;
  x0 = (int) floor (xmin) - TAPS / 2 - 1;
  y0 = (int) floor (ymin) - TAPS / 2 - 1;
  w = (int) floor (xmax) + TAPS / 2 + 1 - x0 + 1;
  h = (int) floor (ymax) + TAPS / 2 + 1 - y0 + 1;
  if ((long) region_stride < C > (w) * h > region_texels)
    return;
  box[0] = x0;
  box[1] = y0;
  box[2] = w;
  box[3] = h;
  box[4] = !inside;
}

/* The box of sample indices that the taps of a block's pixels can reach:
 * the images of the block's corner pixel centres bound the images of all
 * its pixel centres (a homography maps the rectangle onto a convex
 * quadrilateral where W > 0), widened by the kernel's reach.  Run by lanes
 * 0-3 of a warp, a corner each (the block waits for it: one corner's
 * latency, where one thread took four corners one after the other).
 * box[2] = 0 when the block cannot be staged: a corner without an input
 * point (beyond the horizon, W <= 0, among them), a box larger than the
 * region, or coordinates that bspline_reduce_coordinate would move,
 * except with FAR_OK (an affine map and a folding boundary): there the
 * reduction moves a coordinate by whole periods, exactly, the boundary
 * map of each staged texel is periodic, and the pixels of the box
 * (box[4] = 1) take their weights from the coordinates as they are
 * (warp_staged_pixels, not fixed_weights), which gives the same taps and
 * weights. */
template < int C, int TAPS > __device__ __forceinline__ static void
staged_box (const bspline_gpu_frame & f, int affine, int far_ok, int j0,
    int i0, int j1, int i1, int lane, int region_texels, int *box)
{
  const double u = (lane & 1 ? j1 : j0) + 0.5;
  const double v = (lane & 2 ? i1 : i0) + 0.5;
  const double *m = f.inverse;
  double x = 0.0, y = 0.0, xmin, xmax, ymin, ymax;
  int ok, o;
  if (affine) {
    x = m[0] * u + m[1] * v + m[2];
    y = m[3] * u + m[4] * v + m[5];
    ok = isfinite (x) && isfinite (y);
  } else {
    /* W > 0, decided as for the pixels themselves */
    ok = bspline_map_point (m, u, v, &x, &y);
  }
  if (!ok)
    x = y = 0.0;
  xmin = xmax = x - 0.5;
  ymin = ymax = y - 0.5;
  for (o = 1; o < 4; o <<= 1) {
    xmin = fmin (xmin, __shfl_xor_sync (0xfu, xmin, o));
    xmax = fmax (xmax, __shfl_xor_sync (0xfu, xmax, o));
    ymin = fmin (ymin, __shfl_xor_sync (0xfu, ymin, o));
    ymax = fmax (ymax, __shfl_xor_sync (0xfu, ymax, o));
    ok &= __shfl_xor_sync (0xfu, ok, o);
  }
  if (lane != 0)
    return;
  staged_box_from < C, TAPS > (f, far_ok, ok, xmin, xmax, ymin, ymax,
      region_texels, box);
}

/* e / w for 0 <= e and small w (a block's box), from a float reciprocal
 * and one correction. */
__device__ static inline int
box_row (int e, int w, float inv_w)
{
  int r = (int) (((float) e + 0.5f) * inv_w);
  const int q = e - r * w;
  return q < 0 ? r - 1 : (q >= w ? r + 1 : r);
}

/* Stages a block's box of w x h texels from (x0, y0) into region, texel
 * e = r * w + q at region + (r * region_stride (w) + q) * C: thread tid
 * takes e = tid + n * threads, (r, q) stepped by (threads / w, threads %
 * w) with a carry.  Each texel is an asynchronous copy from global to
 * shared memory (cp.async: no registers, every copy of the thread in
 * flight at once, where register loads went four at a time
 * and each batch's stores waited for its loads); the caller waits for
 * them (stage_box_wait) before its barrier.  DIRECT: every texel stored
 * as it is (fixed_inside), the address stepped along; else the
 * boundary's map per texel. */
template < int C, typename S > __device__ static inline void
copy_texel_async (S * to, const S * from)
{
  constexpr int bytes = C * (int) sizeof (S);
  if (bytes == 4 || bytes == 8 || bytes == 16) {
    __pipeline_memcpy_async (to, from, bytes);
  } else if (sizeof (S) == 4) {
#pragma unroll
    for (int c = 0; c < C; c++)
      __pipeline_memcpy_async (to + c, from + c, sizeof (S));
  } else {
    /* a copy takes 4, 8 or 16 bytes: a single 16-bit value as a load and
     * a store */
#pragma unroll
    for (int c = 0; c < C; c++)
      to[c] = __ldg (from + c);
  }
}

template < int C, bool DIRECT, typename S > __device__ static inline void
stage_box (const bspline_gpu_frame & f, const S * coef, size_t row_floats,
    int x0, int y0, int w, int h, int tid, S * region)
{
  const int threads = WARP_BLOCK_X * WARP_BLOCK_Y, n = w * h;
  const float inv_w = 1.0f / (float) w;
  const int dr = box_row (threads, w, inv_w), dq = threads - dr * w;
  int r = box_row (tid, w, inv_w), q = tid - r * w, e;
  const ptrdiff_t step = (ptrdiff_t) dr * (ptrdiff_t) row_floats + dq * C;
  const ptrdiff_t carry = (ptrdiff_t) row_floats - (ptrdiff_t) w * C;
  const S *p = coef + (size_t) (y0 + r + f.pad) * row_floats
      + (size_t) (x0 + q + f.pad) * C;
  const int W = region_stride < C > (w);
  int o = r * W + q;            /* where texel (r, q) goes */
  for (e = tid; e < n; e += threads) {
    if (DIRECT) {
      copy_texel_async < C > (region + o * C, p);
    } else {
      const int gy = bspline_boundary_index (y0 + r, f.src_height, f.pad,
          f.boundary);
      const int gx = bspline_boundary_index (x0 + q, f.src_width, f.pad,
          f.boundary);
      copy_texel_async < C > (region + o * C,
          coef + (size_t) gy * row_floats + (size_t) gx * C);
    }
    r += dr;
    q += dq;
    o += dr * W + dq;
    if (DIRECT)
      p += step;
    if (q >= w) {
      q -= w;
      r++;
      o += W - w;
      if (DIRECT)
        p += carry;
    }
  }
  __pipeline_commit ();
}

/* Waits for the thread's copies of stage_box (the block's barrier
 * follows). */
__device__ static inline void
stage_box_wait (void)
{
  __pipeline_wait_prior (0);
}

/* fixed_weights at the coordinate of a lens table entry e (cuda-kernels.h)
 * of output column (or row) j, s = j + e 2^-BSPLINE_GPU_LENS_BITS (the
 * pixel's x - 0.5), from integers: the same origin and weights, since s,
 * s + TAPS / 2, their floor and fraction are exact in double and the
 * fraction's 20 bits exact in float.  0 where bspline_reduce_coordinate
 * would move s (the caller takes fixed_weights then). */
template < int TAPS > __device__ static inline int
lens_fixed_weights (const bspline_axis & ax, int j, int e, float *w,
    int *origin)
{
  const long long one = 1LL << BSPLINE_GPU_LENS_BITS;
  const long long reach = (long long) (TAPS + 4) * (one / 2);
  const long long s = (long long) j * one + e;
  const int bicubic = ax.method == BSPLINE_METHOD_BICUBIC;
  long long u, fl;
  float t;
  if (s < -reach || s > (long long) (ax.len - 1) * one + reach)
    return 0;
  u = bicubic ? s : s + (long long) TAPS * (one / 2);
  fl = u >= 0 ? u / one : -((-u + one - 1) / one);
  t = (float) (u - fl * one) * (1.0f / (float) one);
  if (bicubic) {
    bspline_keys_weights_f ((float) ax.bicubic_a, t, w);
    *origin = (int) fl - 1;
  } else {
    if (TAPS == 4)
      bspline_cubic_weights_f (t, w);
    else
      bspline_weights_f (TAPS - 1, t, w);
    *origin = (int) fl - (TAPS - 1);
  }
  return 1;
}

/* One output pixel (j, i) of warp_fixed_kernel: the map (from the lens
 * table where there is one), the footprint (the frame's for affine maps),
 * then the TAPS x TAPS taps from the staged region (w > 0) or the
 * plane. */
template < int C, int TAPS, typename S > __device__ __forceinline__ static
    void
warp_fixed_pixel (const bspline_gpu_frame & f, const S * coef,
    const int2 * lens_xy, const S * region, int x0, int y0, int w,
    int affine, size_t row_floats, int j, int i, unsigned char *out)
{
  float acc[BSPLINE_MAX_CHANNELS];
  double x, y, widen_x, widen_y;
  int c;
  {
    const double u = j + 0.5, v = i + 0.5;
    const double *m = f.inverse;
    int found;
    widen_x = widen_y = 1.0;
    if (affine) {
      /* X / 1.0 is exact: the same point as bspline_map_point */
      x = BSPLINE_MAP_ROW (m[0], u, m[1], v, m[2]);
      y = BSPLINE_MAP_ROW (m[3], u, m[4], v, m[5]);
      found = isfinite (x) && isfinite (y);
      if (f.widen) {
        widen_x = f.affine_widen[0];
        widen_y = f.affine_widen[1];
      }
    } else if (lens_xy) {
      const size_t at = (size_t) i * f.dst_width + j;
      const int2 e = lens_xy[at];
      const double unit = 1.0 / (1 << BSPLINE_GPU_LENS_BITS);
      /* a widened pixel of the table: lens_wide_kernel's */
      if (f.widen && lens_wide_flags (f, lens_xy)[at])
        return;
      if (e.x == BSPLINE_GPU_LENS_OWN) {
        found = warp_map (f, u, v, &x, &y, &widen_x, &widen_y);
      } else {
        float wx[TAPS], wy[TAPS];
        int ox, oy, ix[TAPS], iy[TAPS];
        found = e.x != BSPLINE_GPU_LENS_FILL;
        /* the taps from the entry's integers where it can: no double */
        if (found && lens_fixed_weights < TAPS > (f.axis_x, j, e.x, wx, &ox)
            && lens_fixed_weights < TAPS > (f.axis_y, i, e.y, wy, &oy)) {
          fixed_indices < TAPS > (f.axis_x, ox, ix);
          fixed_indices < TAPS > (f.axis_y, oy, iy);
          sum_taps < C, TAPS, false > (coef, row_floats, ix, iy, wx, wy, acc);
          compact_finish < S > (C, f.compact_mid, f.compact_step, acc);
          write_pixel < C > (out, f.dst_type, f.dst_bits, f.dst_shift, j,
              acc);
          return;
        }
        x = u + e.x * unit;
        y = v + e.y * unit;
      }
    } else {
      found = warp_map (f, u, v, &x, &y, &widen_x, &widen_y);
    }
    if (!found) {
      for (c = 0; c < C; c++)
        write_sample (out, f.dst_type, f.dst_bits, f.dst_shift, j * C + c,
            (float) f.fill[c]);
      return;
    }
  }
  if (widen_x > 1.0 || widen_y > 1.0) {
    const widened_frame wf = { f.channels, f.src_width, f.pad, f.dst_type,
      f.dst_bits, f.dst_shift, f.axis_x, f.axis_y, f.levels, f.compact_mid,
      f.compact_step
    };
    widened_pixel (wf, coef, x - 0.5, y - 0.5, widen_x, widen_y, out, j);
    return;
  } else {
    float wx[TAPS], wy[TAPS];
    const int ox = fixed_weights < TAPS > (f.axis_x, x - 0.5, wx);
    const int oy = fixed_weights < TAPS > (f.axis_y, y - 0.5, wy);
    int ix[TAPS], iy[TAPS];
    if (w > 0) {
#pragma unroll
      for (int t = 0; t < TAPS; t++) {
        ix[t] = ox - x0 + t;
        iy[t] = oy - y0 + t;
      }
      sum_taps < C, TAPS, true > (region,
          (size_t) region_stride < C > (w) * C, ix, iy, wx, wy,
          acc);
    } else {
      fixed_indices < TAPS > (f.axis_x, ox, ix);
      fixed_indices < TAPS > (f.axis_y, oy, iy);
      sum_taps < C, TAPS, false > (coef, row_floats, ix, iy, wx, wy, acc);
    }
  }
  compact_finish < S > (C, f.compact_mid, f.compact_step, acc);
  write_pixel < C > (out, f.dst_type, f.dst_bits, f.dst_shift, j, acc);
}

/* The staged pixels of an affine map take their positions in fixed point:
 * p = (s + shift) 2^32 as a 64-bit integer, less the first tap's offset
 * and the box's origin, plus 2^8, where s is the sample coordinate and
 * shift as in fixed_weights_at (TAPS / 2 for the B-spline, 0 for Keys).
 * Its high word is then the first tap's index in the box, its low word's
 * top 23 bits the fraction rounded to 23 bits (a carry moves the
 * origin, the fraction then 0), which becomes a float by its bits; the
 * next row of a thread adds a constant.  Where the double maps, floors
 * and conversions took about 20 instructions a pixel, 7 of them in the
 * quarter-rate conversion unit (docs/notes/gpu-performance-notes.md, v13).
 * The fraction is within 2^-24 + 2^-31 of the double's (the 23-bit
 * rounding, and the 64-bit position's own after a thread's three row
 * steps, each rounded to 2^-33; the float conversion of fixed_weights_at:
 * 2^-25), and exact where the position is a multiple of 2^-23 (the 2^8
 * offset outweighs the steps' rounding); the rounding carries the last
 * tap at most one past the block's corners' reach, which the box's margin
 * covers (staged_box). */
template < int TAPS > __device__ static inline long long
staged_position (const bspline_axis & ax, double s)
{
  const int bicubic = ax.method == BSPLINE_METHOD_BICUBIC;
  const double shift = bicubic ? 0.0 : TAPS * 0.5;
  const long long first = bicubic ? 1 : TAPS - 1;
  return __double2ll_rn ((s + shift) * 4294967296.0) - (first << 32) + 256;
}

template < int TAPS > __device__ static inline int
staged_weights (const bspline_axis & ax, long long p, float *w)
{
  const float t = __uint_as_float (0x3F800000u | ((unsigned) p >> 9))
      - 1.0f;
  if (ax.method == BSPLINE_METHOD_BICUBIC)
    bspline_keys_weights_f ((float) ax.bicubic_a, t, w);
  else if (TAPS == 4)
    bspline_cubic_weights_f (t, w);
  else
    bspline_weights_f (TAPS - 1, t, w);
  return (int) (p >> 32);
}

/* The pixels of a thread in a staged block under an affine map whose
 * footprint does not widen the kernel (the common case, decided once per
 * block): column j, rows i, i + WARP_BLOCK_Y, ... below rows_end, without
 * warp_fixed_pixel's per-pixel tests (the corners were finite and in the
 * box, so every point of the block is), positions in fixed point
 * (staged_position) from the box's origin (x0, y0). */
template < int C, int TAPS, typename S > __device__ __forceinline__ static
    void
warp_staged_pixels (const bspline_gpu_frame & f, const S * region,
    int x0, int y0, int w, int j, int i, int rows_end, unsigned char *dst,
    size_t dst_pitch)
{
  const double u = j + 0.5, v = i + 0.5;
  const double *m = f.inverse;
  const double unit = 4294967296.0;     /* 2^32 */
  const size_t stride = (size_t) region_stride < C > (w) * C;
  long long px = staged_position < TAPS > (f.axis_x,
      m[0] * u + m[1] * v + m[2] - 0.5) - ((long long) x0 << 32);
  long long py = staged_position < TAPS > (f.axis_y,
      m[3] * u + m[4] * v + m[5] - 0.5) - ((long long) y0 << 32);
  const long long dx = __double2ll_rn (m[1] * WARP_BLOCK_Y * unit);
  const long long dy = __double2ll_rn (m[4] * WARP_BLOCK_Y * unit);
  unsigned char *out = dst + (size_t) i * dst_pitch;
  int k;
  for (k = 0; k < WARP_ROWS; k++) {
    float wx[TAPS], wy[TAPS], acc[C];
    int ix[TAPS], iy[TAPS];
    if (i >= rows_end)
      break;
    const int ox = staged_weights < TAPS > (f.axis_x, px, wx);
    const int oy = staged_weights < TAPS > (f.axis_y, py, wy);
#pragma unroll
    for (int t = 0; t < TAPS; t++) {
      ix[t] = ox + t;
      iy[t] = oy + t;
    }
    sum_taps < C, TAPS, true > (region, stride, ix, iy, wx, wy, acc);
    compact_finish < S > (C, f.compact_mid, f.compact_step, acc);
    write_pixel < C > (out, f.dst_type, f.dst_bits, f.dst_shift, j, acc);
    px += dx;
    py += dy;
    i += WARP_BLOCK_Y;
    out += WARP_BLOCK_Y * dst_pitch;
  }
}

/* General path, float plans: a block of WARP_BLOCK_X x WARP_BLOCK_Y
 * threads takes WARP_BLOCK_X x WARP_BLOCK_Y * WARP_ROWS output pixels,
 * WARP_ROWS rows WARP_BLOCK_Y apart per thread, so that the staging of a
 * block (its box, the loads, two barriers) serves more pixels.
 * The block first stages the coefficients its taps reach in shared memory
 * (coalesced rows, the boundary applied once per texel), then each pixel
 * takes its TAPS x TAPS taps from there; blocks whose box does not fit
 * read the coefficients from global memory. */
template < int C, int TAPS, int BLOCKS, typename S > __global__ void
__launch_bounds__ (WARP_BLOCK_X * WARP_BLOCK_Y, BLOCKS)
warp_fixed_kernel (bspline_gpu_frame f, const S * coef,
    const int2 * lens_xy, unsigned char *dst, size_t dst_pitch,
    int region_texels)
{
  extern __shared__ float4 staged[];
  S *const region = (S *) staged;
  __shared__ int box[5];
  const int affine = f.n_lenses == 0 && f.inverse[6] == 0.0
      && f.inverse[7] == 0.0 && f.inverse[8] == 1.0;
  const int far_ok = affine && bspline_boundary_period (f.src_width,
      f.boundary) > 0;
  const int rows = WARP_BLOCK_Y * WARP_ROWS;
  const int n_bx = (f.dst_width + WARP_BLOCK_X - 1) / WARP_BLOCK_X;
  const size_t row_floats = (size_t) (f.src_width + 2 * f.pad) * C;
  const int tid = threadIdx.y * WARP_BLOCK_X + threadIdx.x;
  const int bx = (int) blockIdx.y * WARP_STRIP + (int) blockIdx.x
      % WARP_STRIP;
  const int by = (int) blockIdx.x / WARP_STRIP;
  int k;

  if (bx >= n_bx)
    return;                     /* the whole block: past the last strip */
  const int j = bx * WARP_BLOCK_X + threadIdx.x;
  const int i0 = by * rows;

  /* a lens stage: its taps are read from the plane, through the caches
   * (region_texels 0; staging the image of a block's border measured
   * slower on an H200: 551 against 376 us for a 4K fisheye) */
  if (tid < 4 && f.n_lenses == 0) {
    const int j1 = min (bx * WARP_BLOCK_X + WARP_BLOCK_X, f.dst_width) - 1;
    const int i1 = min (i0 + rows, f.dst_height) - 1;
    staged_box < C, TAPS > (f, affine, far_ok, bx * WARP_BLOCK_X, i0, j1, i1,
        tid, region_texels, box);
  } else if (tid == 0)
    box[2] = 0;
  __syncthreads ();
  /* box[2] = 0: not staged, the rest of box unset; a box beyond the
   * reduction's range serves only the staged pixels' path (affine, no
   * widening).  An affine map (W = 1) has the same footprint everywhere:
   * the host's (bspline_plan_affine_widening), where each block computed
   * it in double (six divisions and two square roots) while its other
   * warps waited at the barrier beside the box. */
  const int widened = affine && (f.affine_widen[0] > 1.0
      || f.affine_widen[1] > 1.0);
  const int w = box[2] > 0 && !(box[4] && widened) ? box[2] : 0;
  const int x0 = w > 0 ? box[0] : 0, y0 = w > 0 ? box[1] : 0;
  const int h = w > 0 ? box[3] : 0;
  const int direct = fixed_inside (f.axis_x, x0, w)
      && fixed_inside (f.axis_y, y0, h);
  if (w > 0 && direct)
    stage_box < C, true > (f, coef, row_floats, x0, y0, w, h, tid, region);
  else if (w > 0)
    stage_box < C, false > (f, coef, row_floats, x0, y0, w, h, tid, region);
  if (w > 0)
    stage_box_wait ();
  __syncthreads ();

  if (j >= f.dst_width)
    return;
  if (affine && w > 0 && !widened) {
    warp_staged_pixels < C, TAPS > (f, region, x0, y0, w, j,
        i0 + (int) threadIdx.y, f.dst_height, dst, dst_pitch);
    return;
  }
  for (k = 0; k < WARP_ROWS; k++) {
    const int i = i0 + (int) threadIdx.y + k * WARP_BLOCK_Y;
    if (i >= f.dst_height)
      break;
    warp_fixed_pixel < C, TAPS > (f, coef, lens_xy, region, x0, y0, w,
        affine, row_floats, j, i, dst + (size_t) i * dst_pitch);
  }
}

/* Strips of WARP_STRIP block columns (blockIdx.y), each WARP_STRIP
 * blocks a block row (blockIdx.x). */
static dim3
warp_grid (const bspline_gpu_frame * f)
{
  const int rows = WARP_BLOCK_Y * WARP_ROWS;
  const int n_bx = (f->dst_width + WARP_BLOCK_X - 1) / WARP_BLOCK_X;
  return dim3 ((unsigned) (WARP_STRIP * ((f->dst_height + rows - 1) / rows)),
      (unsigned) ((n_bx + WARP_STRIP - 1) / WARP_STRIP));
}

/* Texels of the staged region that every block's box of an affine map
 * fits in, at most WARP_REGION_TEXELS (which perspective maps take): the
 * box of staged_box spans floor (xmax) - floor (xmin) + 2 (taps / 2) + 3
 * samples, where xmax - xmin is at most the map's extent over a block's
 * pixel centres; one sample more each way against rounding.  A smaller
 * region lets more blocks share an SM's shared memory. */
static int
warp_region_texels (const bspline_gpu_frame * f, int affine, int channels,
    int taps, int rows)
{
  const double *m = f->inverse;
  const double span_x = fabs (m[0]) * (WARP_BLOCK_X - 1)
      + fabs (m[1]) * (rows - 1);
  const double span_y = fabs (m[3]) * (WARP_BLOCK_X - 1)
      + fabs (m[4]) * (rows - 1);
  const double reach = 2 * (taps / 2) + 5;
  double w, h, n;
  if (!affine || !(span_x < 1e4) || !(span_y < 1e4))
    return WARP_REGION_TEXELS;
  w = floor (span_x) + reach;
  h = floor (span_y) + reach;
  if (channels == 4)
    w = ceil (w / 8.0) * 8.0;   /* region_stride */
  n = w * h;
  return n < WARP_REGION_TEXELS ? (int) n : WARP_REGION_TEXELS;
}

template < int C, typename S > static cudaError_t
launch_warp_fixed (const bspline_gpu_frame * f, const S * coef,
    const int *lens_xy, unsigned char *dst, size_t dst_pitch,
    cudaStream_t stream)
{
  dim3 block (WARP_BLOCK_X, WARP_BLOCK_Y);
  const int taps = f->axis_x.method == BSPLINE_METHOD_BICUBIC ? 4 :
      f->axis_x.order + 1;
  const int affine = f->n_lenses == 0 && f->inverse[6] == 0.0
      && f->inverse[7] == 0.0 && f->inverse[8] == 1.0;
  const int region_texels = f->n_lenses > 0 ? 0 :
      warp_region_texels (f, affine, C, taps, WARP_BLOCK_Y * WARP_ROWS);
  const size_t bytes = (size_t) region_texels * C * sizeof (S);
  cudaError_t err = cudaSuccess;
  auto launch = [&](auto kernel) {
    err = cudaFuncSetAttribute (kernel,
        cudaFuncAttributeMaxDynamicSharedMemorySize, (int) bytes);
    if (err == cudaSuccess)
      kernel <<<warp_grid (f), block, bytes, stream >>> (*f, coef,
          (const int2 *) lens_xy, dst, dst_pitch, region_texels);
  };
  switch (taps) {
  /* the 16-bit plane: orders 2 and 3 (uses_compact) */
#define WARP_FIXED_CASE(T) \
    case T: \
      if constexpr (sizeof (S) == 4 || T == 3 || T == 4) { \
        if (affine) \
          launch (warp_fixed_kernel < C, T, (T <= 6 ? WARP_BLOCKS_AFFINE : \
                  WARP_BLOCKS (T)), S >); \
        else \
          launch (warp_fixed_kernel < C, T, WARP_BLOCKS (T), S >); \
      } else { \
        return cudaErrorInvalidValue; \
      } \
      break;
      WARP_FIXED_CASE (1) WARP_FIXED_CASE (2) WARP_FIXED_CASE (3)
      WARP_FIXED_CASE (4) WARP_FIXED_CASE (5) WARP_FIXED_CASE (6)
      WARP_FIXED_CASE (7) WARP_FIXED_CASE (8) WARP_FIXED_CASE (9)
      WARP_FIXED_CASE (10) WARP_FIXED_CASE (11) WARP_FIXED_CASE (12)
#undef WARP_FIXED_CASE
    default:
      return cudaErrorInvalidValue;
  }
  return err != cudaSuccess ? err : cudaGetLastError ();
}

template < typename T > static cudaError_t
run_warp (const bspline_gpu_frame * f, const T * coef, void *dst,
    size_t dst_pitch, cudaStream_t stream)
{
  dim3 block (16, 8);
  warp_kernel < T > <<<grid2 (f->dst_width, f->dst_height, block), block, 0,
      stream >>> (*f, coef, (unsigned char *) dst, dst_pitch);
  return cudaGetLastError ();
}

/* Float plans: the fixed kernels for one and four channels (the only
 * ones that take the 16-bit plane), the general kernel for the others. */
static cudaError_t
resample_warp_float (const bspline_gpu_frame * f, const void *coef,
    const int *lens_xy, unsigned char *dst, size_t dst_pitch, cudaStream_t s)
{
  const float *plane = (const float *) coef;
  const int16_t *compact = (const int16_t *) coef;
  switch (f->channels) {
    case 1:
      return f->compact ? launch_warp_fixed < 1 > (f, compact, lens_xy, dst,
          dst_pitch, s) : launch_warp_fixed < 1 > (f, plane, lens_xy, dst,
          dst_pitch, s);
    case 4:
      return f->compact ? launch_warp_fixed < 4 > (f, compact, lens_xy, dst,
          dst_pitch, s) : launch_warp_fixed < 4 > (f, plane, lens_xy, dst,
          dst_pitch, s);
    default:
      return f->compact ? cudaErrorInvalidValue : run_warp (f, plane, dst,
          dst_pitch, s);
  }
}

/* One entry of the lens table (cuda-kernels.h) per output pixel. */
__global__ static void
lens_table_kernel (bspline_gpu_frame f, int2 * table)
{
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  const double u = j + 0.5, v = i + 0.5, scale = 1 << BSPLINE_GPU_LENS_BITS;
  double x, y, widen_x = 1.0, widen_y = 1.0;
  int2 e;
  int wide = 0;

  if (j >= f.dst_width || i >= f.dst_height)
    return;
  e.y = 0;
  if (!warp_map (f, u, v, &x, &y, &widen_x, &widen_y))
    e.x = BSPLINE_GPU_LENS_FILL;
  else if (!(fabs (x - u) < BSPLINE_GPU_LENS_REACH)
      || !(fabs (y - v) < BSPLINE_GPU_LENS_REACH))
    e.x = BSPLINE_GPU_LENS_OWN;
  else {
    e.x = __double2int_rn ((x - u) * scale);
    e.y = __double2int_rn ((y - v) * scale);
    wide = widen_x > 1.0 || widen_y > 1.0;
  }
  table[(size_t) i * f.dst_width + j] = e;
  if (f.widen) {
    const size_t n = (size_t) f.dst_width * f.dst_height,
        at = (size_t) i * f.dst_width + j;
    double2 *wd = (double2 *) ((char *) table +
        bspline_gpu_lens_wide_offset (f.dst_width, f.dst_height));
    wd[at] = make_double2 (widen_x, widen_y);
    ((unsigned char *) (wd + n))[at] = (unsigned char) wide;
  }
}

extern "C" int
bspline_gpu_lens_table (const bspline_gpu_frame * f, int *table,
    void *stream)
{
  dim3 block (32, 8);
  lens_table_kernel <<<grid2 (f->dst_width, f->dst_height, block), block, 0,
      (cudaStream_t) stream >>> (*f, (int2 *) table);
  return cudaGetLastError ();
}

extern "C" int
bspline_gpu_resample (const bspline_gpu_frame * f, const void *coef,
    const bspline_gpu_tables * tables, const int *lens_xy, void *tmp,
    void *dst, size_t dst_pitch, void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  if (tables)
    return bspline_gpu_resample_separable (f, coef, tables, tmp, dst,
        dst_pitch, s);
  if (f->use_double)
    return run_warp (f, (const double *) coef, dst, dst_pitch, s);
  return resample_warp_float (f, coef, lens_xy, (unsigned char *) dst,
      dst_pitch, s);
}
