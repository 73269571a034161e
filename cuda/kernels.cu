/* kernels.cu: the GPU engine's kernels.
 *
 * The maths is core/bspline-math.h, compiled here for the device: the same
 * poles, initialisations, weights and boundary maps as the CPU engine.
 * Each kernel is a template on the arithmetic type (float or double);
 * order, method and boundary are run-time parameters, so the build stays
 * small.  Launch wrappers at the bottom give the host code (engine.c, plain
 * C) an extern "C" entry for each kernel. */
#include <cuda_runtime.h>
#include <cuda_pipeline.h>
#include <stdint.h>

#include <type_traits>

#include "bspline-math.h"
#include "cuda-kernels.h"

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

/* Source samples -> padded coefficient plane, times the prefilter gains of
 * both axes.  The padding holds the extension (fill or edge replicate);
 * filtering the padded rows along x gives what the CPU engine gets by
 * filtering first and extending after, since a row of a constant or a
 * copy of an edge row filters to the same values. */
template < typename T > __global__ void
convert_kernel (bspline_gpu_frame f, const unsigned char *src,
    size_t src_pitch, T * coef)
{
  const int C = f.channels, pad = f.pad;
  const int wc = f.src_width + 2 * pad, hc = f.src_height + 2 * pad;
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  int px, c, sx, sy;
  T value;

  if (v >= wc * C || r >= hc)
    return;
  px = v / C;
  c = v - px * C;
  sx = px - pad;
  sy = r - pad;
  if (f.boundary == BSPLINE_BOUNDARY_CONSTANT && (sx < 0
          || sx >= f.src_width || sy < 0 || sy >= f.src_height)) {
    value = (T) f.fill[c];
  } else {
    sx = sx < 0 ? 0 : (sx >= f.src_width ? f.src_width - 1 : sx);
    sy = sy < 0 ? 0 : (sy >= f.src_height ? f.src_height - 1 : sy);
    value = (T) read_sample (src + sy * src_pitch, f.src_type, f.src_shift,
        sx * C + c);
  }
  coef[(size_t) r * wc * C + v] = value * (T) (f.gain * f.gain);
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

/* Separable pass 1: coefficient row r, output column j -> tmp. */
template < typename T > __global__ void
separable_rows_kernel (bspline_gpu_frame f, const T * coef,
    const int *x_index, const T * x_weight, int x_taps, T * tmp)
{
  const int C = f.channels;
  const int wc = f.src_width + 2 * f.pad, hc = f.src_height + 2 * f.pad;
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  const T *in;
  T acc[BSPLINE_MAX_CHANNELS] = { 0 };
  int k, c;

  if (j >= f.dst_width || r >= hc)
    return;
  in = coef + (size_t) r * wc * C;
  for (k = 0; k < x_taps; k++) {
    const T w = x_weight[(size_t) j * x_taps + k];
    const T *s = in + (size_t) x_index[(size_t) j * x_taps + k] * C;
    for (c = 0; c < C; c++)
      acc[c] += w * s[c];
  }
  for (c = 0; c < C; c++)
    tmp[((size_t) r * f.dst_width + j) * C + c] = acc[c];
}

/* Separable pass 2: output row i, value v of the row -> dst. */
template < typename T > __global__ void
separable_columns_kernel (bspline_gpu_frame f, const T * tmp,
    const int *y_index, const T * y_weight, int y_taps, unsigned char *dst,
    size_t dst_pitch)
{
  const int n = f.dst_width * f.channels;
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  T acc = (T) 0;
  int k;

  if (v >= n || i >= f.dst_height)
    return;
  for (k = 0; k < y_taps; k++)
    acc += y_weight[(size_t) i * y_taps + k]
        * tmp[(size_t) y_index[(size_t) i * y_taps + k] * n + v];
  write_sample (dst + i * dst_pitch, f.dst_type, f.dst_bits, f.dst_shift, v,
      acc);
}

/* The value at input sample coordinates (x, y) from the coefficients,
 * every channel, for kernels widened by (widen_x, widen_y).  MAX_TAPS
 * sizes the tap arrays: BSPLINE_MAX_TAPS (12, in registers) serves every
 * plain interpolation, BSPLINE_MAX_POINT_TAPS (128, in local memory) the
 * widened kernels of antialiasing. */
template < typename T, int MAX_TAPS > __device__ static void
eval_taps (const bspline_gpu_frame & f, const T * coef, double x, double y,
    double widen_x, double widen_y, T * acc)
{
  const int C = f.channels;
  const int wc = f.src_width + 2 * f.pad;
  int ix[MAX_TAPS], iy[MAX_TAPS];
  T wx[MAX_TAPS], wy[MAX_TAPS];
  int nx, ny, a, b, c;

  nx = axis_taps (&f.axis_x, x, widen_x, ix, wx);
  ny = axis_taps (&f.axis_y, y, widen_y, iy, wy);
  for (c = 0; c < C; c++)
    acc[c] = (T) 0;
  for (b = 0; b < ny; b++) {
    const T *row = coef + (size_t) iy[b] * wc * C;
    T line[BSPLINE_MAX_CHANNELS] = { 0 };
    for (a = 0; a < nx; a++) {
      const T *s = row + (size_t) ix[a] * C;
      for (c = 0; c < C; c++)
        line[c] += wx[a] * s[c];
    }
    for (c = 0; c < C; c++)
      acc[c] += wy[b] * line[c];
  }
}

template < typename T > __device__ static void
eval_point (const bspline_gpu_frame & f, const T * coef, double x, double y,
    double widen_x, double widen_y, T * acc)
{
  if (widen_x > 1.0 || widen_y > 1.0)
    eval_taps < T, BSPLINE_MAX_POINT_TAPS > (f, coef, x, y, widen_x, widen_y,
        acc);
  else
    eval_taps < T, BSPLINE_MAX_TAPS > (f, coef, x, y, 1.0, 1.0, acc);
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
  if (!bspline_map_point (f.inverse, u, v, x, y)) {
    for (c = 0; c < f.channels; c++)
      write_sample (out, f.dst_type, f.dst_bits, f.dst_shift,
          j * f.channels + c, (T) f.fill[c]);
    return 0;
  }
  *widen_x = *widen_y = 1.0;
  if (f.widen)
    bspline_footprint (f.inverse, u, v, *x, *y, f.max_widen, widen_x,
        widen_y);
  return 1;
}

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

/* Texture fetch of C channels (1, 2 or 4) as floats. */
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

/* precision=fast, general path, orders 1 and 3: the hardware's bilinear
 * texture filter does the weighting.  Order 1 is one fetch.  Order 3 is
 * four fetches (Sigg & Hadwiger, seed 000 section 3): along each axis the
 * four cubic weights w0..w3 of taps i-1..i+2 are merged into two linear
 * fetches of weight g0 = w0 + w1 at i - 1 + w1 / g0 and g1 = w2 + w3 at
 * i + 1 + w3 / g1.  The texture unit interpolates with 8-bit fractions, so
 * this is an approximation (its error is measured in docs/accuracy.md).
 * Pixels whose footprint asks for a widened kernel take the exact path. */
template < int C > __global__ void
warp_fast_kernel (bspline_gpu_frame f, cudaTextureObject_t tex,
    int normalized, const float *coef, unsigned char *dst, size_t dst_pitch)
{
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  float acc[BSPLINE_MAX_CHANNELS];
  double x, y, widen_x, widen_y;
  unsigned char *out = dst + i * dst_pitch;
  int c;

  if (!warp_source < float >(f, j, i, out, &x, &y, &widen_x, &widen_y))
    return;
  if (widen_x > 1.0 || widen_y > 1.0) {
    eval_point (f, coef, x - 0.5, y - 0.5, widen_x, widen_y, acc);
  } else {
    /* texel k of the stored plane has its centre at k + 0.5; normalized
     * textures (reflect, wrap) divide by the plane's size */
    const float sx = normalized ? 1.0f / f.src_width : 1.0f;
    const float sy = normalized ? 1.0f / f.src_height : 1.0f;
    const double tx = x + f.pad, ty = y + f.pad;  /* x - 0.5 + pad + 0.5 */
    if (f.axis_x.order == 1) {
      fetch < C > (tex, (float) (tx * sx), (float) (ty * sy), acc);
    } else {
      double fx = floor (tx - 0.5), fy = floor (ty - 0.5);
      float wx[4], wy[4], a[BSPLINE_MAX_CHANNELS], b[BSPLINE_MAX_CHANNELS];
      float g0x, g1x, g0y, g1y, h0x, h1x, h0y, h1y;
      bspline_weights_f (3, (float) (tx - 0.5 - fx), wx);
      bspline_weights_f (3, (float) (ty - 0.5 - fy), wy);
      g0x = wx[0] + wx[1];
      g1x = wx[2] + wx[3];
      g0y = wy[0] + wy[1];
      g1y = wy[2] + wy[3];
      /* texel centres of taps fx - 1 .. fx + 2 are fx - 0.5 .. fx + 2.5 */
      h0x = (float) ((fx - 0.5 + wx[1] / g0x) * sx);
      h1x = (float) ((fx + 1.5 + wx[3] / g1x) * sx);
      h0y = (float) ((fy - 0.5 + wy[1] / g0y) * sy);
      h1y = (float) ((fy + 1.5 + wy[3] / g1y) * sy);
      fetch < C > (tex, h0x, h0y, a);
      fetch < C > (tex, h1x, h0y, b);
      for (c = 0; c < C; c++)
        acc[c] = g0y * (g0x * a[c] + g1x * b[c]);
      fetch < C > (tex, h0x, h1y, a);
      fetch < C > (tex, h1x, h1y, b);
      for (c = 0; c < C; c++)
        acc[c] += g1y * (g0x * a[c] + g1x * b[c]);
    }
  }
  for (c = 0; c < C; c++)
    write_sample (out, f.dst_type, f.dst_bits, f.dst_shift, j * C + c,
        acc[c]);
}

static dim3
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
 * (one block per SM; docs/gpu-performance-notes.md, v6).  Where the
 * device's limit is lower the segmented prefilter takes them. */

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
#define FILTER_CHUNK 8          /* shared loads issued before a chunk's steps */

/* Sum of the truncation indices: the halo of the tiled windows. */
static int
tiled_halo (const bspline_gpu_frame * f)
{
  int i, h = 0;
  for (i = 0; i < f->n_poles; i++)
    h += f->truncation[i];
  return h;
}

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
 * one at the four blocks per SM of its windows (docs/gpu-performance-notes.md,
 * v6); more poles: the cascade. */
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
      filter_cascade < BSPLINE_MAX_POLES > (f, line, stride, len);
      break;
  }
}

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
  const float gain2 = (float) (f.gain * f.gain);
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
   * (two rows at a time measured no faster: docs/gpu-performance-notes.md,
   * v5) */
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

/* Window rows 0 .. end - 1 of value-column v of a plane of n values a
 * row (the boundary's rows through plane_row, which the caller has
 * filled and synchronised), each passed in order to use (k, value), LOADS
 * loads in flight per thread.  Rows of consecutive plane rows (every step
 * of plane_row is at most +1, so the ends tell) step one address a row,
 * without tests, until the last LOADS rows: the general loop took about
 * 17 instructions a load, a 64-bit product and a test each
 * (docs/gpu-performance-notes.md, v12). */
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
 * order 11; docs/gpu-performance-notes.md, v10). */
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
        y_stream < BSPLINE_MAX_POLES, LOADS > (f, in, (size_t) n, len, halo,
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

/* The most shared memory a block may have on the current device (0 where
 * it cannot be asked). */
static int
device_shared_limit (void)
{
  int device, limit;
  if (cudaGetDevice (&device) != cudaSuccess
      || cudaDeviceGetAttribute (&limit,
          cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess)
    return 0;
  return limit;
}

/* The window span for f's halo on the current device: the wide windows
 * for halos over TILE_SMALL_HALO where they fit its shared memory, else the
 * narrow ones; 0 where neither fits (the segmented path then). */
static int
tiled_span (const bspline_gpu_frame * f, int halo)
{
  const int limit = device_shared_limit ();
  int span;

  if (f->n_poles <= 0 || halo > TILE_MAX_HALO || limit <= 0)
    return 0;
  for (span = halo <= TILE_SMALL_HALO ? TILE_SPAN : TILE_SPAN_WIDE;
      span >= TILE_SPAN; span -= TILE_SPAN_WIDE - TILE_SPAN)
    if (tiled_x_bytes (f->channels, halo, span) <= (size_t) limit
        && tiled_y_bytes (halo, span) <= (size_t) limit)
      return span;
  return 0;
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
 * memory), where the tiled pass ran at a quarter (docs/gpu-performance-
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
  const float gain2 = (float) (f.gain * f.gain);
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
 * direction, and per lane and channel six shuffles (docs/gpu-performance-
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

/* ---- Separable path, fused (float) ----
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
 * planes; docs/gpu-performance-notes.md, v7 and v9). */

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
 * SPAN + 2 halo (docs/gpu-performance-notes.md, v14). */
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
   * orders 8-11 (a block fills an SM) 1.5 times (docs/gpu-performance-
   * notes.md, v7); halos with the margins up to 64 (strong antialiased
   * shrinks and far translations take the planes) */
  if (f->use_double || f->n_poles != 1 || t->x_margin < 0 || t->y_margin < 0)
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

/* ---- Windows in registers (float, one pole: orders 2 and 3) ----
 *
 * The coefficient plane of a one-pole prefilter in one pass, each
 * coefficient written once (where the scan and tiled passes write and read
 * a float plane between the axes: docs/gpu-performance-notes.md, v11).  A
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
   * round trip to memory; three with STAGE_ROWS: docs/gpu-performance-
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
  return z * z * (float) (f.gain * f.gain);
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

/* The coefficient plane (padded, times both gains) in tiles of inner x
 * inner coefficients, inner = REG_LINE - 2 halo: the block's window rows
 * along x back into the shared window, then its interior columns along y,
 * the interior rows stored.  HALO, the halo, at compile time
 * (REG_HALO_ORDER2 or REG_HALO_ORDER3): only the tile's
 * columns are written back along x, and a tile of inner rows (all but the
 * last tile row) stores its rows without a test. */
template < int C, int HALO > __global__ void
__maxnreg__ (REG_REGISTERS)
prefilter_tile_kernel (bspline_gpu_frame f, const unsigned char *src,
    size_t src_pitch, float *coef)
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
    float *out = coef + ((ptrdiff_t) y0 * wc + x0) * C + tid;
    const size_t row = (size_t) wc * C;
#pragma unroll
    for (k = 0; k < REG_LINE; k++)
      v[k] = plane[k * stride + halo * C + tid];
    filter_registers (z, v);
    if (ny == inner) {
#pragma unroll
      for (k = HALO; k < REG_LINE - HALO; k++) {
        *out = v[k] * scale;
        out += row;
      }
    } else {
#pragma unroll
      for (k = HALO; k < REG_LINE - HALO; k++)
        if (k - HALO < ny) {
          *out = v[k] * scale;
          out += row;
        }
    }
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
prefilter_tile_usable (const bspline_gpu_frame * f)
{
  const int halo = f->n_poles == 1 ? f->truncation[0] : 0;
  return !f->use_double && f->n_poles == 1
      && (halo == REG_HALO_ORDER2 || halo == REG_HALO_ORDER3)
      && prefilter_tile_bytes (f->channels) + sizeof (reg_window)
      <= (size_t) device_shared_limit ();
}

static cudaError_t
run_prefilter_tile (const bspline_gpu_frame * f, const void *src,
    size_t src_pitch, float *coef, cudaStream_t stream)
{
  const int halo = f->truncation[0], inner = REG_LINE - 2 * halo;
  const int wc = f->src_width + 2 * f->pad, hc = f->src_height + 2 * f->pad;
  const dim3 grid ((unsigned) ((wc + inner - 1) / inner),
      (unsigned) ((hc + inner - 1) / inner));
  const size_t bytes = prefilter_tile_bytes (f->channels);

  return with_channels (f->channels, [&](auto ch) {
        constexpr int CH = decltype (ch)::value;
        auto kernel = halo == REG_HALO_ORDER3 ?
            prefilter_tile_kernel < CH, REG_HALO_ORDER3 > :
            prefilter_tile_kernel < CH, REG_HALO_ORDER2 >;
        cudaError_t err = shared_attributes (kernel, bytes);
        if (err != cudaSuccess)
          return err;
        kernel <<<grid, REG_THREADS (CH), bytes, stream >>> (*f,
            (const unsigned char *) src, src_pitch, coef);
        return cudaGetLastError ();
      });
}

/* ---- Warp with a fixed kernel size (float) ----
 *
 * The general path for float plans: the tap count (ORDER + 1, or 4 for
 * Keys) and the channel count are compile-time constants, so the taps,
 * weights and the sum live in registers and the loads of a pixel's
 * channels are one vector load.  Positions and fractions are computed in
 * double as in eval_taps.  Pixels whose footprint widens the kernel
 * (antialiasing) take the general evaluation, kept out of line. */

/* The TAPS weights of one axis at sample coordinate x and the sample
 * index of the first tap (before the boundary). */
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

/* The same after bspline_reduce_coordinate (a no-op for the points of a
 * staged block that take this path: staged_box gives them no box that it
 * would move). */
template < int TAPS > __device__ static inline int
fixed_weights (const bspline_axis & ax, double x, float *w)
{
  return fixed_weights_at < TAPS > (ax, bspline_reduce_coordinate (x, ax.len,
          ax.pad, ax.boundary, TAPS * 0.5 + 2.0), w);
}

/* Whether samples origin .. origin + n - 1 are all stored as they are
 * (index origin + pad, no boundary map). */
__device__ static inline int
fixed_inside (const bspline_axis & ax, int origin, int n)
{
  return origin + ax.pad >= 0 && origin + n - 1 < ax.len + ax.pad
      && (ax.pad > 0 || origin >= 0);
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

/* A pixel whose footprint widens the kernel (antialiasing): evaluated and
 * written out of line, so that its tap arrays do not weigh on the
 * registers of the common path.  The frame is passed by value: a
 * reference to the kernel's parameter would make every thread copy the
 * whole frame to local memory on entry (ncu: 2.3 GB of DRAM traffic on a
 * 4K rotation). */
__device__ __noinline__ static void
widened_pixel (const bspline_gpu_frame f, const float *coef, double x,
    double y, double widen_x, double widen_y, unsigned char *out, int j)
{
  float acc[BSPLINE_MAX_CHANNELS];
  int c;
  eval_taps < float, BSPLINE_MAX_POINT_TAPS > (f, coef, x, y, widen_x,
      widen_y, acc);
  for (c = 0; c < f.channels; c++)
    write_sample (out, f.dst_type, f.dst_bits, f.dst_shift,
        j * f.channels + c, acc[c]);
}

/* acc = sum_b wy[b] sum_a wx[a] texel (iy[b], ix[a]) of the plane at base
 * with rows of stride floats: STAGED, the block's box in shared memory,
 * else the coefficient plane through the read-only cache. */
template < int C, int TAPS, bool STAGED > __device__ static inline void
sum_taps (const float *base, size_t stride, const int *ix, const int *iy,
    const float *wx, const float *wy, float *acc)
{
  int a, b, c;
#pragma unroll
  for (c = 0; c < C; c++)
    acc[c] = 0.0f;
#pragma unroll
  for (b = 0; b < TAPS; b++) {
    const float *row = base + (size_t) iy[b] * stride;
    float line[C];
#pragma unroll
    for (c = 0; c < C; c++)
      line[c] = 0.0f;
#pragma unroll
    for (a = 0; a < TAPS; a++) {
      const float *p = row + (size_t) ix[a] * C;
      float v[C];
      if (!STAGED) {
        load_texel < C > (p, v);
      } else if (C == 4) {
        const float4 t = *(const float4 *) p;
        v[0] = t.x;
        v[1] = t.y;
        v[2] = t.z;
        v[3] = t.w;
      } else {
#pragma unroll
        for (c = 0; c < C; c++)
          v[c] = p[c];
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
 * and set-up serve more pixels (docs/gpu-performance-notes.md, v8-v10
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
 * no more blocks, 227 -> 244 us; docs/gpu-performance-notes.md, v13);
 * three for more taps */
#define WARP_BLOCKS_AFFINE 5
#define WARP_BLOCKS(TAPS) ((TAPS) <= 6 ? 4 : 3)

/* Texels a row of the staged region, for a box w texels wide: for four
 * channels a multiple of 8 (128 bytes, the banks' width), so that the
 * eight lanes of a quarter warp, which read eight texels of at most two
 * neighbouring rows under a small rotation, find them in eight different
 * bank groups (w itself made 11 % of the sampling's shared-memory
 * wavefronts excess at 10 degrees: docs/gpu-performance-notes.md, v12). */
template < int C > __device__ static inline int
region_stride (int w)
{
  return C == 4 ? (w + 7) & ~7 : w;
}

/* The box of sample indices that the taps of a block's pixels can reach:
 * the images of the block's corner pixel centres bound the images of all
 * its pixel centres (a homography maps the rectangle onto a convex
 * quadrilateral where W > 0), widened by the kernel's reach.  Run by lanes
 * 0-3 of a warp, a corner each (the block waits for it: one corner's
 * latency, where one thread took four corners one after the other).
 * box[2] = 0 when the block cannot be staged: a corner without an input
 * point, a sign change of W, a box larger than the region, or coordinates
 * that bspline_reduce_coordinate would move, except with FAR_OK (an
 * affine map and a folding boundary): there the reduction moves a
 * coordinate by whole periods, exactly, the boundary map of each staged
 * texel is periodic, and the pixels of the box (box[4] = 1) take their
 * weights from the coordinates as they are (warp_staged_pixels, not
 * fixed_weights), which gives the same taps and weights. */
template < int C, int TAPS > __device__ __forceinline__ static void
staged_box (const bspline_gpu_frame & f, int affine, int far_ok, int j0,
    int i0, int j1, int i1, int lane, int region_texels, int *box)
{
  const double reach = TAPS * 0.5 + 2.0, far = 4194304.0;      /* 2^22 */
  const double u = (lane & 1 ? j1 : j0) + 0.5;
  const double v = (lane & 2 ? i1 : i0) + 0.5;
  const double *m = f.inverse;
  double x = 0.0, y = 0.0, xmin, xmax, ymin, ymax;
  int ok, o, x0, y0, w, h, inside;
  if (affine) {
    x = m[0] * u + m[1] * v + m[2];
    y = m[3] * u + m[4] * v + m[5];
    ok = isfinite (x) && isfinite (y);
  } else {
    const double W = m[6] * u + m[7] * v + m[8];
    ok = W > 0.0 && bspline_map_point (m, u, v, &x, &y);
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
template < int C > __device__ static inline void
copy_texel_async (float *to, const float *from)
{
  if (C == 4 || C == 2 || C == 1) {
    __pipeline_memcpy_async (to, from, C * sizeof (float));
  } else {
#pragma unroll
    for (int c = 0; c < C; c++)
      __pipeline_memcpy_async (to + c, from + c, sizeof (float));
  }
}

template < int C, bool DIRECT > __device__ static inline void
stage_box (const bspline_gpu_frame & f, const float *coef, size_t row_floats,
    int x0, int y0, int w, int h, int tid, float *region)
{
  const int threads = WARP_BLOCK_X * WARP_BLOCK_Y, n = w * h;
  const float inv_w = 1.0f / (float) w;
  const int dr = box_row (threads, w, inv_w), dq = threads - dr * w;
  int r = box_row (tid, w, inv_w), q = tid - r * w, e;
  const ptrdiff_t step = (ptrdiff_t) dr * (ptrdiff_t) row_floats + dq * C;
  const ptrdiff_t carry = (ptrdiff_t) row_floats - (ptrdiff_t) w * C;
  const float *p = coef + (size_t) (y0 + r + f.pad) * row_floats
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

/* One output pixel (j, i) of warp_fixed_kernel: the map, the footprint
 * (the frame's for affine maps), then the TAPS x TAPS taps from the
 * staged region (w > 0) or the plane. */
template < int C, int TAPS > __device__ __forceinline__ static void
warp_fixed_pixel (const bspline_gpu_frame & f, const float *coef,
    const float *region, int x0, int y0, int w, int affine,
    size_t row_floats, int j, int i, unsigned char *out)
{
  float acc[BSPLINE_MAX_CHANNELS];
  double x, y, widen_x, widen_y;
  int c;
  {
    const double u = j + 0.5, v = i + 0.5;
    const double *m = f.inverse;
    int found;
    if (affine) {
      /* X / 1.0 is exact: the same point as bspline_map_point */
      x = BSPLINE_MAP_ROW (m[0], u, m[1], v, m[2]);
      y = BSPLINE_MAP_ROW (m[3], u, m[4], v, m[5]);
      found = isfinite (x) && isfinite (y);
    } else {
      found = bspline_map_point (m, u, v, &x, &y);
    }
    if (!found) {
      for (c = 0; c < C; c++)
        write_sample (out, f.dst_type, f.dst_bits, f.dst_shift, j * C + c,
            (float) f.fill[c]);
      return;
    }
    widen_x = widen_y = 1.0;
    if (f.widen && affine) {
      widen_x = f.affine_widen[0];
      widen_y = f.affine_widen[1];
    } else if (f.widen) {
      bspline_footprint (m, u, v, x, y, f.max_widen, &widen_x, &widen_y);
    }
  }
  if (widen_x > 1.0 || widen_y > 1.0) {
    widened_pixel (f, coef, x - 0.5, y - 0.5, widen_x, widen_y, out, j);
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
 * quarter-rate conversion unit (docs/gpu-performance-notes.md, v13).
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
template < int C, int TAPS > __device__ __forceinline__ static void
warp_staged_pixels (const bspline_gpu_frame & f, const float *region,
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
template < int C, int TAPS, int BLOCKS > __global__ void
__launch_bounds__ (WARP_BLOCK_X * WARP_BLOCK_Y, BLOCKS)
warp_fixed_kernel (bspline_gpu_frame f, const float *coef, unsigned char *dst,
    size_t dst_pitch, int region_texels)
{
  extern __shared__ float region[];
  __shared__ int box[5];
  const int affine = f.inverse[6] == 0.0 && f.inverse[7] == 0.0
      && f.inverse[8] == 1.0;
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

  if (tid < 4) {
    const int j1 = min (bx * WARP_BLOCK_X + WARP_BLOCK_X, f.dst_width) - 1;
    const int i1 = min (i0 + rows, f.dst_height) - 1;
    staged_box < C, TAPS > (f, affine, far_ok, bx * WARP_BLOCK_X, i0, j1, i1,
        tid, region_texels, box);
  }
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
    warp_fixed_pixel < C, TAPS > (f, coef, region, x0, y0, w, affine,
        row_floats, j, i, dst + (size_t) i * dst_pitch);
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

template < int C > static cudaError_t
launch_warp_fixed (const bspline_gpu_frame * f, const float *coef,
    unsigned char *dst, size_t dst_pitch, cudaStream_t stream)
{
  dim3 block (WARP_BLOCK_X, WARP_BLOCK_Y);
  const int taps = f->axis_x.method == BSPLINE_METHOD_BICUBIC ? 4 :
      f->axis_x.order + 1;
  const int affine = f->inverse[6] == 0.0 && f->inverse[7] == 0.0
      && f->inverse[8] == 1.0;
  const int region_texels = warp_region_texels (f, affine, C, taps,
      WARP_BLOCK_Y * WARP_ROWS);
  const size_t bytes = (size_t) region_texels * C * sizeof (float);
  cudaError_t err = cudaSuccess;
  auto launch = [&](auto kernel) {
    err = cudaFuncSetAttribute (kernel,
        cudaFuncAttributeMaxDynamicSharedMemorySize, (int) bytes);
    if (err == cudaSuccess)
      kernel <<<warp_grid (f), block, bytes, stream >>> (*f, coef, dst,
          dst_pitch, region_texels);
  };
  switch (taps) {
#define WARP_FIXED_CASE(T) \
    case T: \
      if (affine) \
        launch (warp_fixed_kernel < C, T, (T <= 6 ? WARP_BLOCKS_AFFINE : \
                WARP_BLOCKS (T)) >); \
      else \
        launch (warp_fixed_kernel < C, T, WARP_BLOCKS (T) >); \
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

/* ---- Separable path with C channels at compile time (float) ----
 * The same two passes as separable_rows_kernel / separable_columns_kernel,
 * one thread per output pixel of each pass with every channel in one
 * vector load. */
template < int C > __global__ void
separable_rows_fixed_kernel (bspline_gpu_frame f, const float *coef,
    const int *x_index, const float *x_weight, int x_taps, float *tmp)
{
  const int wc = f.src_width + 2 * f.pad, hc = f.src_height + 2 * f.pad;
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  const float *in;
  float acc[C];
  int k, c;

  if (j >= f.dst_width || r >= hc)
    return;
  in = coef + (size_t) r * wc * C;
#pragma unroll
  for (c = 0; c < C; c++)
    acc[c] = 0.0f;
  for (k = 0; k < x_taps; k++) {
    const float w = __ldg (x_weight + (size_t) j * x_taps + k);
    float v[C];
    load_texel < C > (in + (size_t) __ldg (x_index + (size_t) j * x_taps + k)
        * C, v);
#pragma unroll
    for (c = 0; c < C; c++)
      acc[c] += w * v[c];
  }
#pragma unroll
  for (c = 0; c < C; c++)
    tmp[((size_t) r * f.dst_width + j) * C + c] = acc[c];
}

template < int C > __global__ void
separable_columns_fixed_kernel (bspline_gpu_frame f, const float *tmp,
    const int *y_index, const float *y_weight, int y_taps, unsigned char *dst,
    size_t dst_pitch)
{
  const size_t n = (size_t) f.dst_width * C;
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  float acc[C];
  int k, c;

  if (j >= f.dst_width || i >= f.dst_height)
    return;
#pragma unroll
  for (c = 0; c < C; c++)
    acc[c] = 0.0f;
  for (k = 0; k < y_taps; k++) {
    const float w = __ldg (y_weight + (size_t) i * y_taps + k);
    float v[C];
    load_texel < C > (tmp + (size_t) __ldg (y_index + (size_t) i * y_taps + k)
        * n + (size_t) j * C, v);
#pragma unroll
    for (c = 0; c < C; c++)
      acc[c] += w * v[c];
  }
#pragma unroll
  for (c = 0; c < C; c++)
    write_sample (dst + i * dst_pitch, f.dst_type, f.dst_bits, f.dst_shift,
        j * C + c, acc[c]);
}

template < int C > static cudaError_t
launch_separable_fixed (const bspline_gpu_frame * f, const float *coef,
    const bspline_gpu_tables * t, float *tmp, unsigned char *dst,
    size_t dst_pitch, cudaStream_t stream)
{
  const int hc = f->src_height + 2 * f->pad;
  dim3 block (32, 4);
  separable_rows_fixed_kernel < C > <<<grid2 (f->dst_width, hc, block),
      block, 0, stream >>> (*f, coef, t->x_index, (const float *) t->x_weight,
      t->x_taps, tmp);
  separable_columns_fixed_kernel < C > <<<grid2 (f->dst_width, f->dst_height,
          block), block, 0, stream >>> (*f, tmp, t->y_index,
      (const float *) t->y_weight, t->y_taps, dst, dst_pitch);
  return cudaGetLastError ();
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

template < typename T > static cudaError_t
run_separable (const bspline_gpu_frame * f, const T * coef,
    const bspline_gpu_tables * t, T * tmp, void *dst, size_t dst_pitch,
    cudaStream_t stream)
{
  const int hc = f->src_height + 2 * f->pad;
  dim3 block (64, 4);
  separable_rows_kernel < T > <<<grid2 (f->dst_width, hc, block), block, 0,
      stream >>> (*f, coef, t->x_index, (const T *) t->x_weight, t->x_taps,
      tmp);
  separable_columns_kernel < T > <<<grid2 (f->dst_width * f->channels,
      f->dst_height, block), block, 0, stream >>> (*f, tmp, t->y_index,
      (const T *) t->y_weight, t->y_taps, (unsigned char *) dst, dst_pitch);
  return cudaGetLastError ();
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

extern "C" int
bspline_gpu_resample_fast (const bspline_gpu_frame * f,
    unsigned long long texture, int normalized, const void *coef, void *dst,
    size_t dst_pitch, void *stream)
{
  dim3 block (16, 8);
  dim3 grid = grid2 (f->dst_width, f->dst_height, block);
  cudaTextureObject_t tex = (cudaTextureObject_t) texture;
  cudaStream_t s = (cudaStream_t) stream;
  unsigned char *out = (unsigned char *) dst;
  const float *c = (const float *) coef;
  switch (f->channels) {
    case 1:
      warp_fast_kernel < 1 > <<<grid, block, 0, s >>> (*f, tex, normalized, c,
          out, dst_pitch);
      break;
    case 2:
      warp_fast_kernel < 2 > <<<grid, block, 0, s >>> (*f, tex, normalized, c,
          out, dst_pitch);
      break;
    default:
      warp_fast_kernel < 4 > <<<grid, block, 0, s >>> (*f, tex, normalized, c,
          out, dst_pitch);
      break;
  }
  return cudaGetLastError ();
}

/* Float plans: the fixed-size kernels for one channel (planes) and four
 * (RGBA and the like); two and three channels take the general kernels,
 * which keeps the fat binary small. */
static cudaError_t
resample_separable_float (const bspline_gpu_frame * f, const float *coef,
    const bspline_gpu_tables * t, float *tmp, unsigned char *dst,
    size_t dst_pitch, cudaStream_t s)
{
  switch (f->channels) {
    case 1:
      return launch_separable_fixed < 1 > (f, coef, t, tmp, dst, dst_pitch, s);
    case 4:
      return launch_separable_fixed < 4 > (f, coef, t, tmp, dst, dst_pitch, s);
    default:
      return run_separable (f, coef, t, tmp, dst, dst_pitch, s);
  }
}

static cudaError_t
resample_warp_float (const bspline_gpu_frame * f, const float *coef,
    unsigned char *dst, size_t dst_pitch, cudaStream_t s)
{
  switch (f->channels) {
    case 1:
      return launch_warp_fixed < 1 > (f, coef, dst, dst_pitch, s);
    case 4:
      return launch_warp_fixed < 4 > (f, coef, dst, dst_pitch, s);
    default:
      return run_warp (f, coef, dst, dst_pitch, s);
  }
}

extern "C" int
bspline_gpu_prefilter (const bspline_gpu_frame * f, const void *src,
    size_t src_pitch, void *coef, void *scratch, void *stream)
{
  if (f->use_double)
    return run_prefilter (f, src, src_pitch, (double *) coef,
        (double *) scratch, (cudaStream_t) stream);
  if (prefilter_tile_usable (f))
    return run_prefilter_tile (f, src, src_pitch, (float *) coef,
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
bspline_gpu_resample (const bspline_gpu_frame * f, const void *coef,
    const bspline_gpu_tables * tables, void *tmp, void *dst,
    size_t dst_pitch, void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  if (tables) {
    if (f->use_double)
      return run_separable (f, (const double *) coef, tables, (double *) tmp,
          dst, dst_pitch, s);
    return resample_separable_float (f, (const float *) coef, tables,
        (float *) tmp, (unsigned char *) dst, dst_pitch, s);
  }
  if (f->use_double)
    return run_warp (f, (const double *) coef, dst, dst_pitch, s);
  return resample_warp_float (f, (const float *) coef, (unsigned char *) dst,
      dst_pitch, s);
}
