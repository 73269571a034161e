/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cuda-fold.h: the folded least-squares reduction's kernels (fold.cu),
 * called by engine.c.  A header of its own, so that a change here
 * rebuilds fold.cu alone and not every kernel file. */
#ifndef BSPLINE_CUDA_FOLD_H
#define BSPLINE_CUDA_FOLD_H

#include "bspline-math.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The folded least-squares reduction (fold.cu; core/resample/resample.h's
 * bspline_fold_axis, whose fields these are, its tables on the device). */
#define BSPLINE_GPU_FOLD_MAX_Q 8
/* taps on each side of the output grid's filter */
#define BSPLINE_GPU_FOLD_MAX_FIR 64
typedef struct
{
  int p, q, n_out, margin, n_taps, ext_len;
  int first[BSPLINE_GPU_FOLD_MAX_Q];
  /* the output grid's filter: taps -fir_half .. fir_half at
   * fir[BSPLINE_GPU_FOLD_MAX_FIR + m], zero past them */
  int fir_half;
  float fir[2 * BSPLINE_GPU_FOLD_MAX_FIR + 1];
  const int *index;             /* device: ext_len source indices */
  const float *weight;          /* device: q x n_taps */
  const int *at;                /* device: n_out first taps, first[j % q]
                                 * + p (j / q) */
} bspline_gpu_fold_axis;

typedef struct
{
  bspline_gpu_fold_axis x, y;
  int channels, dst_width, dst_height;
  int src_type, src_shift;
  int dst_type, dst_bits, dst_shift;
} bspline_gpu_fold;

/* Whether fold.cu runs f (its windows fit in shared memory). */
int bspline_gpu_fold_usable (const bspline_gpu_fold * f);
/* Runs f from the samples at src to those at dst, through plane (float,
 * f->y.n_out x f->x.n_out x channels) and tmp (float, f->dst_height x
 * f->x.n_out x channels). */
int bspline_gpu_fold_run (const bspline_gpu_fold * f, const void *src,
    size_t src_pitch, void *tmp, void *plane, void *dst, size_t dst_pitch,
    void *stream);

#ifdef __cplusplus
}
#endif
#endif /* BSPLINE_CUDA_FOLD_H */
