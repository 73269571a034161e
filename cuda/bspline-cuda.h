/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bspline-cuda.h: the GPU engine.  Plain C, no CUDA types: the CUDA
 * runtime is linked statically and opens the driver at run time, so a
 * program using this header loads on machines without a GPU and asks
 * bspline_cuda_device_count whether it can use one. */
#ifndef BSPLINE_CUDA_H
#define BSPLINE_CUDA_H

#include "bspline.h"
#include "bspline-transfer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bspline_cuda bspline_cuda;

/* Number of usable CUDA devices; 0 with the reason in msg when there is no
 * driver or no device. */
int bspline_cuda_device_count (char *msg, size_t msg_len);

/* An engine on device_id (-1 = the default device).  GPU memory is
 * allocated on first use and kept (grown as needed) until freed.
 * For tests, BSPLINE_CUDA_FAULT=KIND:N (KIND alloc, copy or launch) makes
 * the engine's N-th call of that kind fail as CUDA would. */
bspline_status bspline_cuda_new (int device_id, bspline_cuda ** cuda,
    char *msg, size_t msg_len);
/* An engine on the CUDA context current on the calling thread, for a
 * program that shares a driver-API context (GStreamer's GstCudaContext,
 * made current with gst_cuda_context_push): its streams and memory belong
 * to that context and it never calls cudaSetDevice, which would make the
 * device's primary context current instead.  That context must be current
 * during every later call on the engine, bspline_cuda_free included. */
bspline_status bspline_cuda_new_current_context (bspline_cuda ** cuda,
    char *msg, size_t msg_len);
void bspline_cuda_free (bspline_cuda * cuda);
const char *bspline_cuda_last_error (const bspline_cuda * cuda);
/* Free and total memory of a device (-1 = the default); 0 on failure. */
int bspline_cuda_device_memory (int device_id, size_t * free_bytes,
    size_t * total_bytes);
/* Name of the engine's device, e.g. "NVIDIA H100 80GB HBM3". */
const char *bspline_cuda_device_name (const bspline_cuda * cuda);

/* Resamples host image src into host image dst as planned, on the GPU:
 * upload, prefilter, resample, download.  Returns when dst is written.
 * On any CUDA failure the error names the CUDA call and its error
 * string, and dst must not be used. */
bspline_status bspline_cuda_execute (bspline_cuda * cuda,
    const bspline_plan * plan, const bspline_image * src,
    const bspline_image * dst);

/* Frames in flight.  The engine has BSPLINE_CUDA_SLOTS slots, each with its
 * own stream and buffers, so that the upload of one plane, the kernels of
 * another and the download of a third overlap (bsplinewarp keeps two
 * frames of up to four planes in flight).  bspline_cuda_submit queues a
 * plane on the first free slot, allocating that slot's device memory on
 * first use, and returns the slot in *slot; bspline_cuda_finish waits for
 * it and completes dst.  src and dst must stay valid until finish.  Host
 * memory from bspline_cuda_host_alloc is copied directly; other memory
 * goes through pinned staging buffers. */
#define BSPLINE_CUDA_SLOTS 8
bspline_status bspline_cuda_submit (bspline_cuda * cuda,
    const bspline_plan * plan, const bspline_image * src,
    const bspline_image * dst, int *slot);
bspline_status bspline_cuda_finish (bspline_cuda * cuda, int slot);

/* bspline_cuda_submit where src, dst or both are device images (data a
 * device pointer of the engine's context, stride its pitch in bytes, the
 * flag non-zero): a device src is read in place, a device dst written in
 * place, host images are copied as by bspline_cuda_submit.  Before it
 * reads, the slot's stream waits for the work queued earlier on the
 * context's legacy default stream and its blocking streams (where a
 * producer may have left its copies into src); bspline_cuda_finish waits
 * for the slot, after which a device dst holds the result for any reader.
 * With both flags zero it is bspline_cuda_submit. */
bspline_status bspline_cuda_submit_placed (bspline_cuda * cuda,
    const bspline_plan * plan, const bspline_image * src, int src_on_device,
    const bspline_image * dst, int dst_on_device, int *slot);

/* gamma-mode=remap on the device: bspline_cuda_submit_placed, where src's
 * code values (U8 or U16) are decoded to linear light in float for
 * transfer function `in`, the float plane resampled by plan, and the
 * result encoded into dst's codes for `out`, as bspline_transfer_decode
 * and _encode do on the CPU and with their tables (cuda/transfer.cu); the
 * channels of pass_mask (bit c: channel c; alpha, padding) as they are. */
typedef struct
{
  bspline_transfer in, out;
  unsigned pass_mask;
} bspline_cuda_linear;

bspline_status bspline_cuda_submit_linear (bspline_cuda * cuda,
    const bspline_plan * plan, const bspline_image * src, int src_on_device,
    const bspline_image * dst, int dst_on_device,
    const bspline_cuda_linear * linear, int *slot);

/* crop=keep-border (bsplinestabilize) on the device: the previous output
 * plane, kept in device memory from frame to frame, and how the rule of
 * bspline-keep-border.h finds the pixels that take it. */
typedef struct
{
  const double *inverse;        /* 9: output pixel centre -> input point */
  const bspline_lens *lens;     /* the lens stage; NULL or model NONE:
                                 * none (an STMap is refused) */
  int in_width, in_height;      /* the input plane, [0, w] x [0, h] */
  void *previous;               /* device memory: dst's size and layout */
  size_t previous_pitch;        /* bytes from row to row */
  int have_previous;            /* 0: previous holds no frame yet */
  /* where previous does not hold the previous output frame any more (it
   * went out from the CPU): that frame in host memory (or in device
   * memory of the engine's context), copied first; NULL: previous holds
   * it */
  const bspline_image *upload;
} bspline_cuda_keep_border;

/* bspline_cuda_submit_placed, and after the plane's resampling, on the
 * slot's stream before the download: the pixels of dst that the rule
 * picks take the previous frame's (where there is one: have_previous),
 * and previous then holds dst, the frame going out, for the next frame.
 * previous must not be used by other work until finish. */
bspline_status bspline_cuda_submit_keep_border (bspline_cuda * cuda,
    const bspline_plan * plan, const bspline_image * src, int src_on_device,
    const bspline_image * dst, int dst_on_device,
    const bspline_cuda_keep_border * keep, int *slot);

/* Device memory of the engine's device (the previous frame of
 * keep-border); NULL on failure, with the engine's error set. */
void *bspline_cuda_device_alloc (bspline_cuda * cuda, size_t size);
void bspline_cuda_device_free (bspline_cuda * cuda, void *ptr);

/* Images already on the device (data are device pointers, strides in
 * bytes): prefilter and resample queued on `stream` (a cudaStream_t; NULL
 * for the default stream) without waiting.  The engine's buffers for this
 * are its own, apart from the slots: successive launches must go to the
 * same stream, or wait for each other. */
bspline_status bspline_cuda_launch_on_device (bspline_cuda * cuda,
    const bspline_plan * plan, const bspline_image * src,
    const bspline_image * dst, void *stream);

/* 1 when the engine runs plan's frames on the fused separable passes
 * (an axis-aligned float plan with a prefilter, windows that fit the
 * device: docs/gpu.md), 0 when on the coefficient plane. */
int bspline_cuda_plan_fused (bspline_cuda * cuda, const bspline_plan * plan);

/* Where the engine runs plan's frames from src (its type and shift) on
 * precision=compact's 16-bit coefficient plane (docs/gpu.md): the bound of
 * the plane's rounding on any output, in code values of src
 * (bspline_compact_scale; docs/accuracy.md); 0 where on a float or
 * double plane. */
double bspline_cuda_plan_compact (bspline_cuda * cuda,
    const bspline_plan * plan, const bspline_image * src);

/* 1 when the engine runs plan's least-squares reduction (or the
 * reduction after its warp) folded (fold.cu: both axes shrunk at a ratio
 * p / q, q <= 8, in float, under reflect, mirror or wrap), 0 when as two
 * plans through an intermediate plane. */
int bspline_cuda_plan_folded (bspline_cuda * cuda, const bspline_plan * plan);

/* Page-locked host memory for frames (NULL on failure); free it with
 * bspline_cuda_host_free. */
void *bspline_cuda_host_alloc (size_t size);
void bspline_cuda_host_free (void *ptr);

#ifdef __cplusplus
}
#endif
#endif /* BSPLINE_CUDA_H */
