/* kernels.cu: the GPU engine's kernels.
 *
 * The maths is core/bspline-math.h, compiled here for the device: the same
 * poles, initialisations, weights and boundary maps as the CPU engine.
 * Each kernel is a template on the arithmetic type (float or double);
 * order, method and boundary are run-time parameters, so the build stays
 * small.  Launch wrappers at the bottom give the host code (engine.c, plain
 * C) an extern "C" entry for each kernel. */
#include <cuda_runtime.h>
#include <stdint.h>

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

/* Writes v to sample i of a row: integers rounded to nearest and clamped
 * to the code range, as the CPU engine does. */
template < typename T > __device__ static inline void
write_sample (unsigned char *row, int type, int bits, int shift, int i, T v)
{
  switch (type) {
    case BSPLINE_SAMPLE_U8:
      v = v > (T) 0 ? (v < (T) 255 ? v : (T) 255) : (T) 0;
      row[i] = (unsigned char) (v + (T) 0.5);
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

extern "C" int
bspline_gpu_prefilter (const bspline_gpu_frame * f, const void *src,
    size_t src_pitch, void *coef, void *scratch, void *stream)
{
  if (f->use_double)
    return run_prefilter (f, src, src_pitch, (double *) coef,
        (double *) scratch, (cudaStream_t) stream);
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
    return run_separable (f, (const float *) coef, tables, (float *) tmp,
        dst, dst_pitch, s);
  }
  if (f->use_double)
    return run_warp (f, (const double *) coef, dst, dst_pitch, s);
  return run_warp (f, (const float *) coef, dst, dst_pitch, s);
}
