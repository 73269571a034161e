/* cuda-kernels.h: what the host code (engine.c, C) and the kernels
 * (kernels.cu) exchange.  Plain C structs passed by value to kernels. */
#ifndef BSPLINE_CUDA_KERNELS_H
#define BSPLINE_CUDA_KERNELS_H

#include "bspline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One plane's plan, flattened for the device. */
typedef struct
{
  int use_double;
  int channels;
  int src_width, src_height, dst_width, dst_height;
  int pad;
  int boundary;
  int n_poles;
  double poles[BSPLINE_MAX_POLES];
  int truncation[BSPLINE_MAX_POLES];
  double gain;
  double fill[BSPLINE_MAX_CHANNELS];
  int src_type, src_shift;
  int dst_type, dst_bits, dst_shift;
  double inverse[9];
  int widen;
  double max_widen;
  bspline_axis axis_x, axis_y;
} bspline_gpu_frame;

/* Device copies of the separable path's tables; weights in the frame's
 * arithmetic type. */
typedef struct
{
  const int *x_index, *y_index;
  const void *x_weight, *y_weight;
  int x_taps, y_taps;
} bspline_gpu_tables;

/* Both return a cudaError_t as int (0 = success) from the launches.
 * scratch: a second plane the size of coef, for the segmented
 * prefilter's causal pass. */
int bspline_gpu_prefilter (const bspline_gpu_frame * f, const void *src,
    size_t src_pitch, void *coef, void *scratch, void *stream);
/* tables == NULL: general (warp) path. */
int bspline_gpu_resample (const bspline_gpu_frame * f, const void *coef,
    const bspline_gpu_tables * tables, void *tmp, void *dst,
    size_t dst_pitch, void *stream);

/* precision=fast on the general path: texture is a cudaTextureObject_t
 * over the float coefficients with linear filtering, normalized
 * coordinates for reflect and wrap; channels 1, 2 or 4. */
int bspline_gpu_resample_fast (const bspline_gpu_frame * f,
    unsigned long long texture, int normalized, const void *coef, void *dst,
    size_t dst_pitch, void *stream);

#ifdef __cplusplus
}
#endif
#endif /* BSPLINE_CUDA_KERNELS_H */
