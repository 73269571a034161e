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

/* One line of the prefilter: all poles, causal then anticausal
 * ([BD19] Algorithm 1 and 2). */
template < typename T > __device__ static void
filter_line (const bspline_gpu_frame & f, T * p, ptrdiff_t step, int len)
{
  const int padded = f.pad > 0;
  int i, k;
  for (i = 0; i < f.n_poles; i++) {
    const T z = (T) f.poles[i];
    const T last = p[(ptrdiff_t) (len - 1) * step];
    p[0] = causal_init (p, step, len, z, f.truncation[i], f.boundary, padded);
    for (k = 1; k < len; k++)
      p[k * step] += z * p[(k - 1) * step];
    p[(ptrdiff_t) (len - 1) * step] = anticausal_init (p, step, len, z,
        f.truncation[i], f.boundary, padded, last);
    for (k = len - 2; k >= 0; k--)
      p[k * step] = z * (p[(k + 1) * step] - p[k * step]);
  }
}

/* Along x: one thread per (row, channel). */
template < typename T > __global__ void
prefilter_x_kernel (bspline_gpu_frame f, T * coef)
{
  const int C = f.channels;
  const int wc = f.src_width + 2 * f.pad, hc = f.src_height + 2 * f.pad;
  const int line = blockIdx.x * blockDim.x + threadIdx.x;
  int r, c;
  if (line >= hc * C)
    return;
  r = line / C;
  c = line - r * C;
  filter_line (f, coef + (size_t) r * wc * C + c, C, wc);
}

/* Along y: one thread per column value, neighbours in a warp read
 * neighbouring addresses. */
template < typename T > __global__ void
prefilter_y_kernel (bspline_gpu_frame f, T * coef)
{
  const int C = f.channels;
  const int wc = f.src_width + 2 * f.pad, hc = f.src_height + 2 * f.pad;
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= wc * C)
    return;
  filter_line (f, coef + v, (ptrdiff_t) wc * C, hc);
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

/* General path: one thread per output pixel. */
template < typename T > __global__ void
warp_kernel (bspline_gpu_frame f, const T * coef, unsigned char *dst,
    size_t dst_pitch)
{
  const int C = f.channels;
  const int wc = f.src_width + 2 * f.pad;
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  int ix[BSPLINE_MAX_POINT_TAPS], iy[BSPLINE_MAX_POINT_TAPS];
  T wx[BSPLINE_MAX_POINT_TAPS], wy[BSPLINE_MAX_POINT_TAPS];
  T acc[BSPLINE_MAX_CHANNELS] = { 0 };
  double u = j + 0.5, v = i + 0.5, x, y, widen_x = 1.0, widen_y = 1.0;
  unsigned char *out;
  int nx, ny, a, b, c;

  if (j >= f.dst_width || i >= f.dst_height)
    return;
  out = dst + i * dst_pitch;
  if (!bspline_map_point (f.inverse, u, v, &x, &y)) {
    for (c = 0; c < C; c++)
      write_sample (out, f.dst_type, f.dst_bits, f.dst_shift, j * C + c,
          (T) f.fill[c]);
    return;
  }
  if (f.widen)
    bspline_footprint (f.inverse, u, v, x, y, f.max_widen, &widen_x,
        &widen_y);
  nx = axis_taps (&f.axis_x, x - 0.5, widen_x, ix, wx);
  ny = axis_taps (&f.axis_y, y - 0.5, widen_y, iy, wy);
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
  for (c = 0; c < C; c++)
    write_sample (out, f.dst_type, f.dst_bits, f.dst_shift, j * C + c,
        acc[c]);
}

static dim3
grid2 (int nx, int ny, dim3 block)
{
  return dim3 ((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y);
}

template < typename T > static cudaError_t
run_prefilter (const bspline_gpu_frame * f, const void *src,
    size_t src_pitch, T * coef, cudaStream_t stream)
{
  const int C = f->channels;
  const int wc = f->src_width + 2 * f->pad, hc = f->src_height + 2 * f->pad;
  dim3 block (64, 4);
  convert_kernel < T > <<<grid2 (wc * C, hc, block), block, 0, stream >>>
      (*f, (const unsigned char *) src, src_pitch, coef);
  if (f->n_poles > 0) {
    prefilter_x_kernel < T > <<<(hc * C + 127) / 128, 128, 0, stream >>>
        (*f, coef);
    prefilter_y_kernel < T > <<<(wc * C + 127) / 128, 128, 0, stream >>>
        (*f, coef);
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
bspline_gpu_prefilter (const bspline_gpu_frame * f, const void *src,
    size_t src_pitch, void *coef, void *stream)
{
  if (f->use_double)
    return run_prefilter (f, src, src_pitch, (double *) coef,
        (cudaStream_t) stream);
  return run_prefilter (f, src, src_pitch, (float *) coef,
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
