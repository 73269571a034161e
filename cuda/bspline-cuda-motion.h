/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bspline-cuda-motion.h: the camera motion between consecutive frames on
 * the GPU (cuda/motion.cu): the algorithm of core/stabilize/motion.c, whose
 * control logic (hypotheses, levels, reliability tests) runs on the CPU
 * (bspline_motion_estimate_with) while the work on pixels runs in CUDA
 * kernels: the pyramid from the luma, the gradients, the texture sums, the
 * coarse search and the Gauss-Newton refinement at each level, whose steps
 * (bilinear warp, residuals, Huber/Tukey weights, the normal equations, the
 * residual histogram, then core/stabilize/motion-solve.h's solve and
 * update) run on the device without the host between them.  Sums are
 * deterministic: per-block partial sums reduced in a fixed order (integer
 * atomics only for the counts and the histogram), so a result does not
 * depend on scheduling.  docs/stabilization.md says why this split.
 *
 * Plain C, no CUDA types: the program loads where there is no GPU, as with
 * bspline-cuda.h. */
#ifndef BSPLINE_CUDA_MOTION_H
#define BSPLINE_CUDA_MOTION_H

#include "bspline-stabilize.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bspline_cuda_motion bspline_cuda_motion;

/* An estimator for frames of width x height luma pixels on device_id (-1 =
 * the default device), with the parameters of bspline_motion_params
 * (n_threads is not used).  For tests, BSPLINE_CUDA_FAULT=motion:N makes
 * the N-th CUDA call of the estimator fail as a launch failure would. */
bspline_status bspline_cuda_motion_new (int device_id,
    const bspline_motion_params * params, int width, int height,
    bspline_cuda_motion ** motion, char *msg, size_t msg_len);
/* An estimator on the CUDA context current on the calling thread (a
 * GstCudaContext made current with gst_cuda_context_push), as
 * bspline_cuda_new_current_context: it never calls cudaSetDevice, and that
 * context must be current during every later call on it,
 * bspline_cuda_motion_free included. */
bspline_status bspline_cuda_motion_new_current_context (const
    bspline_motion_params * params, int width, int height,
    bspline_cuda_motion ** motion, char *msg, size_t msg_len);
void bspline_cuda_motion_free (bspline_cuda_motion * motion);
/* Forgets the previous frame: the next one starts a new sequence. */
void bspline_cuda_motion_reset (bspline_cuda_motion * motion);
/* What the last failed call failed on: the CUDA call and its error. */
const char *bspline_cuda_motion_last_error (const bspline_cuda_motion *
    motion);

/* As bspline_motion_estimate, with frame->data in host memory (its luma
 * rows are uploaded) or, with on_device non-zero, a device pointer of the
 * estimator's device (frame->stride in bytes).  Returns when the result is
 * known and every copy and kernel of the call is done.  On a CUDA failure
 * it returns BSPLINE_ERROR_BACKEND and the next frame starts a new
 * sequence. */
bspline_status bspline_cuda_motion_estimate (bspline_cuda_motion * motion,
    const bspline_luma_frame * frame, int on_device,
    bspline_motion_result * result);

/* Device memory for frames kept on the GPU (the element uploads each frame
 * once: the motion reads its luma there and the warp, bspline-cuda.h's
 * bspline_cuda_submit_placed, reads it there `smoothing` frames later).
 * NULL on failure. */
void *bspline_cuda_motion_device_alloc (bspline_cuda_motion * motion,
    size_t size);
void bspline_cuda_motion_device_free (bspline_cuda_motion * motion,
    void *device);
/* Copies n regions of host memory, host[k] to device + offset[k] (size[k]
 * bytes each), through pinned staging unless the host memory is
 * page-locked (or host[k] is device memory of the estimator's context: a
 * copy on the device), on the estimator's stream, a blocking stream: later
 * work on the legacy default stream (where bspline_cuda_submit_placed
 * waits) and the next bspline_cuda_motion_estimate see the copies. */
bspline_status bspline_cuda_motion_upload (bspline_cuda_motion * motion,
    void *device, int n, const void *const *host, const size_t * offset,
    const size_t * size);

#ifdef __cplusplus
}
#endif
#endif /* BSPLINE_CUDA_MOTION_H */
