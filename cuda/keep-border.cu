/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* keep-border.cu: bsplinestabilize's crop=keep-border on the device, one
 * thread per output pixel after the plane's resampling: where the rule of
 * core/include/bspline-keep-border.h (the same function, compiled here)
 * says the pixel's centre has no point in the input plane, the pixel takes
 * the previous output frame's; everywhere else the previous frame's pixel
 * takes the new one, so that the device copy of the previous frame is the
 * frame going out, for the next one.  A pixel reads and writes only its own
 * bytes of both planes: no thread reads what another writes.
 *
 * The rule's arithmetic is the CPU's: bspline_map_point's rows are
 * computed without contraction (BSPLINE_MAP_ROW), IEEE division and
 * comparisons, so a homography gives the CPU's bytes exactly; a lens
 * stage takes the device's atan, tan and sqrt, which may differ from the
 * host's in the last bit. */
#include <cuda_runtime.h>

#include "bspline-keep-border.h"
#include "cuda-kernels.h"

__global__ void
keep_border_kernel (bspline_gpu_keep_border_frame k,
    unsigned char *out, size_t out_pitch, unsigned char *previous,
    size_t previous_pitch)
{
  const int u = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned char *o, *p;
  int b;

  if (u >= k.width || v >= k.height)
    return;
  o = out + v * out_pitch + (size_t) u * k.pixel;
  p = previous + v * previous_pitch + (size_t) u * k.pixel;
  if (k.have_previous && bspline_keep_border_outside (k.inverse,
          k.has_lens ? &k.lens : NULL, u, v, k.in_width, k.in_height))
    for (b = 0; b < k.pixel; b++)
      o[b] = p[b];
  else
    for (b = 0; b < k.pixel; b++)
      p[b] = o[b];
}

extern "C" int
bspline_gpu_keep_border (const bspline_gpu_keep_border_frame * k,
    void *out, size_t out_pitch, void *previous, size_t previous_pitch,
    void *stream)
{
  dim3 block (32, 8);
  dim3 grid ((k->width + block.x - 1) / block.x,
      (k->height + block.y - 1) / block.y);

  keep_border_kernel <<< grid, block, 0, (cudaStream_t) stream >>> (*k,
      (unsigned char *) out, out_pitch, (unsigned char *) previous,
      previous_pitch);
  return cudaGetLastError ();
}
