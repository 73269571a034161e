/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* transfer.cu: gamma-mode=remap on the device, one thread per sample: a
 * plane's code values decoded to linear light in float before the
 * resampling and encoded back after, as core/base/transfer.c does on the
 * CPU (bspline_transfer_decode and _encode) and with its tables
 * (bspline_transfer_decode_table, _encode_thresholds), which the engine
 * copies to the device: the curves are computed once, on the host, so the
 * two engines decode to the same floats and encode to the same codes from
 * the same floats.  The channels of pass_mask (alpha, padding) pass as
 * they are. */
#include <cuda_runtime.h>

#include "cuda-kernels.h"
#include "bspline-transfer.h"

__device__ static unsigned
code_at (const unsigned char *row, int i, const bspline_gpu_transfer_frame t)
{
  if (t.type == BSPLINE_SAMPLE_U8)
    return row[i];
  return (((const unsigned short *) row)[i] >> t.shift)
      & ((1u << t.bits) - 1);
}

__global__ void
decode_kernel (bspline_gpu_transfer_frame t, const float *decode,
    const unsigned char *coded, size_t coded_pitch, float *linear,
    size_t linear_pitch)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned code;

  if (i >= t.width * t.channels || y >= t.height)
    return;
  code = code_at (coded + y * coded_pitch, i, t);
  ((float *) ((unsigned char *) linear + y * linear_pitch))[i] =
      t.pass_mask >> (i % t.channels) & 1 ? (float) code : decode[code];
}

__global__ void
encode_kernel (bspline_gpu_transfer_frame t, const double *threshold,
    const float *linear, size_t linear_pitch, unsigned char *coded,
    size_t coded_pitch)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const unsigned max = (1u << t.bits) - 1;
  unsigned char *row;
  unsigned code;
  float v;

  if (i >= t.width * t.channels || y >= t.height)
    return;
  v = ((const float *) ((const unsigned char *) linear +
          y * linear_pitch))[i];
  if (t.pass_mask >> (i % t.channels) & 1)
    code = !(v > 0.0f) ? 0 : v >= (float) max ? max : (unsigned) lrintf (v);
  else
    code = bspline_transfer_nearest_code (threshold, max,
        isnan (v) ? 0.0f : v);
  row = coded + y * coded_pitch;
  if (t.type == BSPLINE_SAMPLE_U8)
    row[i] = (unsigned char) code;
  else
    ((unsigned short *) row)[i] = (unsigned short) (code << t.shift);
}

static dim3
transfer_grid (const bspline_gpu_transfer_frame * t, dim3 block)
{
  return dim3 ((t->width * t->channels + block.x - 1) / block.x,
      (t->height + block.y - 1) / block.y);
}

extern "C" int
bspline_gpu_transfer_decode (const bspline_gpu_transfer_frame * t,
    const float *decode, const void *coded, size_t coded_pitch,
    void *linear, size_t linear_pitch, void *stream)
{
  dim3 block (128, 2);

  decode_kernel <<< transfer_grid (t, block), block, 0,
      (cudaStream_t) stream >>> (*t, decode, (const unsigned char *) coded,
      coded_pitch, (float *) linear, linear_pitch);
  return cudaGetLastError ();
}

extern "C" int
bspline_gpu_transfer_encode (const bspline_gpu_transfer_frame * t,
    const double *threshold, const void *linear, size_t linear_pitch,
    void *coded, size_t coded_pitch, void *stream)
{
  dim3 block (128, 2);

  encode_kernel <<< transfer_grid (t, block), block, 0,
      (cudaStream_t) stream >>> (*t, threshold, (const float *) linear,
      linear_pitch, (unsigned char *) coded, coded_pitch);
  return cudaGetLastError ();
}
