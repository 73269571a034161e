/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* separable.cu: the separable path of bspline_gpu_resample (scalings and
 * crops, whose map is the same along each row and column): two passes
 * over the coefficient plane, along x into tmp and along y into the
 * output frame, with the taps and weights of core's tables
 * (bspline_axis_table: the B-spline weights of [U99] eq. 2, Keys' of [K81]
 * eq. 15; references in core/include/bspline-math.h).  Float plans of one
 * or four channels take kernels with the channel count at compile time. */
#include "kernels-common.cuh"

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

/* The separable path of bspline_gpu_resample (warp.cu). */
cudaError_t
bspline_gpu_resample_separable (const bspline_gpu_frame * f, const void *coef,
    const bspline_gpu_tables * tables, void *tmp, void *dst, size_t dst_pitch,
    cudaStream_t s)
{
  if (f->use_double)
    return run_separable (f, (const double *) coef, tables, (double *) tmp,
        dst, dst_pitch, s);
  return resample_separable_float (f, (const float *) coef, tables,
      (float *) tmp, (unsigned char *) dst, dst_pitch, s);
}
