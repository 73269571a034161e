/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* atlas.cu: a projection input's atlas (core/projection/atlas.h) gathered
 * on the device, one thread per atlas pixel, from the table the plan
 * holds (the CPU engine's, uploaded once per slot): whole-pixel copies,
 * so the GPU's atlas is the CPU's byte for byte. */
#include <cuda_runtime.h>

#include "cuda-kernels.h"

__global__ void
atlas_gather_kernel (const unsigned char *src, size_t src_pitch,
    unsigned char *dst, size_t dst_pitch, const int *index, int width,
    int height, int frame_width, int pixel)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const unsigned char *p;
  unsigned char *o;
  int i, b;

  if (x >= width || y >= height)
    return;
  i = index[(size_t) y * width + x];
  p = src + (size_t) (i / frame_width) * src_pitch
      + (size_t) (i % frame_width) * pixel;
  o = dst + (size_t) y * dst_pitch + (size_t) x * pixel;
  for (b = 0; b < pixel; b++)
    o[b] = p[b];
}

extern "C" int
bspline_gpu_atlas_gather (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, const int *index, int width, int height,
    int frame_width, int pixel, void *stream)
{
  dim3 block (32, 8);
  dim3 grid ((width + block.x - 1) / block.x,
      (height + block.y - 1) / block.y);

  atlas_gather_kernel <<< grid, block, 0, (cudaStream_t) stream >>> (
      (const unsigned char *) src, src_pitch, (unsigned char *) dst,
      dst_pitch, index, width, height, frame_width, pixel);
  return cudaGetLastError ();
}
