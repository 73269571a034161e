/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GStreamer
 * Copyright (C) 2026 gst-bspline contributors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * This library is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Library General Public License for more details.
 */

/* The bsplinestabilize element's instance and the functions of its
 * modules: the motion estimation (gstbsplinestabilizemotion.c) and the
 * CUDA frames (gstbsplinestabilizecuda.c, built with the CUDA engine only:
 * static inline stand-ins elsewhere); the transforms file's sections are
 * gstbsplinetransforms.c's.  Not installed. */

#ifndef __GST_BSPLINE_STABILIZE_PRIVATE_H__
#define __GST_BSPLINE_STABILIZE_PRIVATE_H__

#include "gstbsplinestabilize.h"
#include "gstbsplineengine.h"
#include "gstbsplinechain.h"
#include "gstbsplinesettings.h"
#include "gstbsplinetransforms.h"
#include "bspline.h"
#include "bspline-geometry.h"
#include "bspline-stabilize.h"
#ifdef HAVE_BSPLINE_CUDA_MEMORY
#include "gstbsplinecudamemory.h"
#endif
#include "bspline-stmap.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_bspline_stabilize_debug);

typedef enum
{
  GST_BSPLINE_STABILIZE_CROP_KEEP_BORDER,
  GST_BSPLINE_STABILIZE_CROP_FILL
} GstBSplineStabilizeCrop;

typedef enum
{
  GST_BSPLINE_STABILIZE_TRANSFORMS_WRITE,
  GST_BSPLINE_STABILIZE_TRANSFORMS_READ
} GstBSplineStabilizeTransformsMode;

/* Everything the properties say; copied out when the element starts, but
 * for the quality of the warp (resample), read again for each frame. */
typedef struct
{
  gint smoothing;
  bspline_stabilize_path path;
  gdouble path_margin;
  gdouble max_shift;
  gdouble max_angle;
  GstBSplineStabilizeCrop crop;
  gdouble zoom;
  gboolean auto_zoom;
  gboolean tripod;
  gdouble max_zoom;             /* percent */
  /* behind the object lock while streaming too: read for each frame */
  gboolean horizon_lock;
  gdouble horizon_angle;        /* degrees */
  gdouble field_of_view;        /* degrees, 0: unset */
  GstBSplineNumbers analysis_region;    /* <x, y, w, h> fractions, or unset */
  bspline_motion_model motion_model;
  GstBSplineSettings resample;  /* the properties shared with bsplinewarp */
  GstBSplineLensSettings lens;  /* the lens stage's */
  gdouble rolling_readout;      /* fraction of the frame interval, 0: off,
                                 * -1: estimated */
  gchar *transforms_location;
  GstBSplineStabilizeTransformsMode transforms_mode;
  /* issue 41: the camera path's solve on a thread of its own */
  gboolean solve_thread;
} GstBSplineStabilizeSettings;

/* rolling-shutter-readout: the translation of each band of rows from the
 * frame before (bspline_rolling_meter_measure). */
typedef struct
{
  gdouble motion[2 * BSPLINE_ROLLING_MAX_BANDS];
  gint reliable[BSPLINE_ROLLING_MAX_BANDS];
} GstBSplineStabilizeBands;

/* A frame held back for its look-ahead. */
typedef struct
{
  GstBuffer *buffer;
  guint64 position;             /* frames before it since start or flush */
  bspline_motion_result motion;
  GstBSplineStabilizeBands bands;       /* rolling-shutter-readout > 0 */
  /* read from the transforms file: the correction is known already, and
   * the frame is its record's, `record` in the section */
  gboolean have_correction;
  bspline_stabilize_result correction;
  guint record;
  /* with the CUDA engine, its planes on the GPU (uploaded once, for the
   * motion and the warp), or NULL: plane p at device + plane_offset[p],
   * rows plane_stride[p] apart */
  gpointer device;
  gsize plane_offset[GST_VIDEO_MAX_PLANES];
  gint plane_stride[GST_VIDEO_MAX_PLANES];
} GstBSplineStabilizeFrame;

/* The planes of a frame being warped: their plans, images and maps. */
typedef struct
{
  guint n;
  bspline_plan *plans[GST_VIDEO_MAX_PLANES];
  bspline_image src[GST_VIDEO_MAX_PLANES], dst[GST_VIDEO_MAX_PLANES];
  bspline_image previous[GST_VIDEO_MAX_PLANES];       /* keep-border's */
  gdouble inverse[GST_VIDEO_MAX_PLANES][9];
  bspline_lens lens[GST_VIDEO_MAX_PLANES];
  /* src, dst and previous are device images (frames mapped as CUDA
   * memory: gst_bspline_stabilize_cuda_map) */
  gboolean src_device, dst_device;
} GstBSplineStabilizeWarpPlanes;

/* The motion estimation (gstbsplinestabilizemotion.c): on the CPU, or on
 * the GPU (GstBSplineStabilizeCuda).  With a lens stage, the motion is
 * estimated on the undistorted luma (or R'G'B'), resampled from plane 0 at
 * the analysis resolution, 1 / analysis_factor of the frame's, by
 * analysis_plan into analysis. */
typedef struct
{
  bspline_motion_params params;
  gint width, height;           /* of the frames it is estimated on */
  bspline_motion_estimator *estimator;  /* the motion on the CPU, or NULL */
  bspline_plan *analysis_plan;
  bspline_image analysis;
  gint analysis_factor;
  /* analysis-region: where the frames the motion is estimated on (the
   * frame's luma, or with the lens stage the analysis frame) are cut, in
   * their own pixels; width x height from there */
  gint region_x, region_y;
} GstBSplineStabilizeMotion;

/* rolling-shutter-readout > 0 (gstbsplinestabilizemotion.c): the bands'
 * motion measured on the CPU on the whole frame's luma, and kept for the
 * frames already sent on (the trajectory before the oldest held back is
 * solved with theirs); with a transforms file read, the trajectory is the
 * file's section's (GstBSplineTransformsStream's knots), nothing
 * measured. */
typedef struct
{
  gboolean on;                  /* FALSE: no rolling-shutter correction */
  /* rolling-shutter-readout=-1: params' readout estimated from the bands
   * (estimated: kept for the caps) */
  gboolean estimate, estimated;
  bspline_rolling_params params;
  bspline_rolling_meter *meter; /* the bands measured here, or NULL */
  GArray *past;                 /* GstBSplineStabilizeBands, oldest first */
} GstBSplineStabilizeRolling;

/* The CUDA frames (gstbsplinestabilizecuda.c): the frames held back on
 * the GPU, the motion estimated there, keep-border's previous frame. */
typedef struct
{
  struct bspline_cuda_motion *motion;   /* the motion on the GPU, or NULL */
  GSList *device_free;          /* device frames not in use */
  guint device_frames;          /* device frames allocated */
  guint max_device_frames;
  gsize device_frame_size;
  /* crop=keep-border on the GPU: the previous output frame's planes in
   * device memory (plane p at keep_device + keep_offset[p], rows
   * keep_pitch[p] bytes apart), made at the caps' first warp; keep_of,
   * the output buffer whose pixels they hold (NULL: none), keep_position
   * its frame's; keep_on_cpu: no device memory for them, the border is
   * composed on the CPU until the caps change */
  gpointer keep_device;
  gsize keep_offset[GST_VIDEO_MAX_PLANES];
  gsize keep_pitch[GST_VIDEO_MAX_PLANES];
  GstBuffer *keep_of;
  guint64 keep_position;
  gboolean keep_on_cpu;
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  GstBSplineCudaMemory memory;  /* gst.cuda.context, memory:CUDAMemory */
#endif
} GstBSplineStabilizeCuda;

/* The camera path's solve on a thread of its own
 * (gstbsplinestabilizesolve.c): idle, a pop of the oldest frame's
 * correction running, or its result waiting to be collected. */
typedef enum
{
  GST_BSPLINE_STABILIZE_SOLVE_IDLE,
  GST_BSPLINE_STABILIZE_SOLVE_RUNNING,
  GST_BSPLINE_STABILIZE_SOLVE_DONE
} GstBSplineStabilizeSolveState;

typedef struct
{
  GThread *thread;              /* NULL: the path is solved in line */
  GMutex lock;
  GCond cond;
  GstBSplineStabilizeSolveState state;  /* behind lock */
  gboolean quit;                /* behind lock */
  bspline_stabilizer *stabilizer;
  bspline_stabilize_result result;      /* DONE: the pop's */
  gboolean ahead;               /* streaming thread: requested, not waited */
} GstBSplineStabilizeSolve;

/* The camera path: the frames held back for the look-ahead and the
 * stabilizer that smooths their motion. */
typedef struct
{
  bspline_stabilizer *stabilizer;
  GstBSplineStabilizeSolve solve;
  GQueue frames;                /* GstBSplineStabilizeFrame, oldest first */
  GstBuffer *previous;          /* the last output frame, for keep-border */
  guint64 n_in;                 /* frames since start or flush */
} GstBSplineStabilizePath;

struct _GstBSplineStabilize
{
  GstVideoFilter parent;

  /* behind the object lock */
  GstBSplineStabilizeSettings settings;
  GstClockTime earliest_time;   /* QoS, from the src pad's QOS events */

  /* streaming thread only */
  GstBSplineStabilizeSettings run;      /* snapshot taken at start */
  GstVideoChromaSite chroma_site;
  GstBSplineEngine engine;
  GstBSplineStabilizeMotion motion;
  GstBSplineStabilizeRolling rolling;
  GstBSplineStabilizePath path;
  GstBSplineStabilizeCuda cuda;
  GstBSplineTransformsStream transforms;
  guint64 qos_dropped;          /* frames not warped, too late */
  gboolean too_small;           /* frames pass unchanged (passthrough) */
  GstBSplineChainDefer defer;  /* defer=true: whether it can */
};

/* Frames on the GPU at most: the look-ahead of a large `smoothing` on large
 * frames would not fit; the frames beyond go up from system memory. */
#define GST_BSPLINE_STABILIZE_DEVICE_BYTES ((gsize) 1 << 30)

/* ---- gstbsplinestabilize.c ---- */

/* The warp of a frame of info: its correction (a 3x3 matrix, forward;
 * NULL: none) after the lens stage, as bsplinewarp's matrix about the
 * pivot (0, 0), onto a frame of the same size. */
void gst_bspline_stabilize_geometry (GstBSplineStabilize * self,
    const GstVideoInfo * info, const gdouble * correction,
    bspline_geometry * geometry);

/* Releases and frees a frame held back. */
void gst_bspline_stabilize_frame_free (GstBSplineStabilize * self,
    GstBSplineStabilizeFrame * frame);

/* Maps a frame held back for reading (as CUDA memory where the motion is
 * estimated on the GPU: gst_bspline_stabilize_cuda_map); FALSE after an
 * element error. */
gboolean gst_bspline_stabilize_map_input (GstBSplineStabilize * self,
    GstBSplineStabilizeFrame * frame, GstVideoFrame * vframe);

/* ---- gstbsplinestabilizesolve.c ---- */

/* The solve's thread for stabilizer (solve-thread=true; where no thread
 * can be made, the path is solved on the streaming thread). */
void gst_bspline_stabilize_solve_start (GstBSplineStabilizeSolve * solve,
    bspline_stabilizer * stabilizer);

/* Whether the solve has a thread of its own. */
gboolean gst_bspline_stabilize_solve_threaded (const GstBSplineStabilizeSolve
    * solve);

/* Starts bspline_stabilizer_pop (not final) of the oldest frame on the
 * thread (idle, threaded, the frame ready); the stabilizer is the
 * thread's until gst_bspline_stabilize_solve_wait. */
void gst_bspline_stabilize_solve_request (GstBSplineStabilizeSolve * solve);

/* Waits for a pop running (the stabilizer is the streaming thread's
 * again); TRUE where a result waits to be collected. */
gboolean gst_bspline_stabilize_solve_wait (GstBSplineStabilizeSolve * solve);

/* Whether a pop was requested since the last wait: its frame goes out
 * after the next input frame's motion, which runs beside it. */
gboolean gst_bspline_stabilize_solve_ahead (const GstBSplineStabilizeSolve *
    solve);

/* Waits for a pop running and takes its result: TRUE where there was
 * one. */
gboolean gst_bspline_stabilize_solve_collect (GstBSplineStabilizeSolve *
    solve, bspline_stabilize_result * result);

/* Ends the thread (after the pop running, whose result is dropped). */
void gst_bspline_stabilize_solve_stop (GstBSplineStabilizeSolve * solve);

/* ---- gstbsplinestabilizemotion.c ---- */

/* The motion's parameters and, with the lens stage, its analysis plan,
 * for frames of in_info; FALSE after an element error. */
gboolean gst_bspline_stabilize_motion_start (GstBSplineStabilize * self,
    GstVideoInfo * in_info);

/* The estimator on the CPU (msg says why it cannot be made). */
bspline_status gst_bspline_stabilize_motion_new_estimator
    (GstBSplineStabilizeMotion * motion, gchar * msg, gsize msg_len);

/* The luma (or R'G'B') of a mapped frame, for the motion estimator: its
 * analysis-region (without the lens stage, whose analysis frame
 * gst_bspline_stabilize_undistort cuts). */
void gst_bspline_stabilize_luma (const GstBSplineStabilizeMotion * motion,
    GstVideoFrame * frame, bspline_luma_frame * luma);

/* With the lens stage, the frame the motion is estimated on (on the GPU
 * where there is one, from the frame's device copy where it has one), in
 * place of luma's pixels; msg says why it failed. */
bspline_status gst_bspline_stabilize_undistort (GstBSplineStabilize * self,
    GstVideoFrame * vframe, const GstBSplineStabilizeFrame * frame,
    bspline_luma_frame * luma, gchar * msg, gsize msg_len);

/* Estimates the motion of a frame held back (on the GPU or the CPU) in
 * the frame's pixels; an element error where it cannot. */
GstFlowReturn gst_bspline_stabilize_motion_estimate (GstBSplineStabilize *
    self, GstBSplineStabilizeFrame * frame, bspline_motion_result * r);

/* A new sequence: the estimator forgets its previous frame. */
void gst_bspline_stabilize_motion_reset (GstBSplineStabilizeMotion * motion);

/* Frees the estimator and the analysis (new caps, stop). */
void gst_bspline_stabilize_motion_clear (GstBSplineStabilizeMotion * motion);

/* rolling-shutter-readout > 0: the band measurement for frames of in_info
 * (nothing where it is 0; with a transforms file read, the file's bands
 * instead); FALSE after an element error (a combination it does not
 * take, a transforms file with bands and readout 0 or without and > 0). */
gboolean gst_bspline_stabilize_rolling_start (GstBSplineStabilize * self,
    GstVideoInfo * in_info);

/* The bands' motion of a frame held back into frame->bands (global: the
 * whole frame's motion from the frame before, in its pixels). */
GstFlowReturn gst_bspline_stabilize_rolling_measure (GstBSplineStabilize *
    self, GstBSplineStabilizeFrame * frame, const bspline_affine * global);

/* The motion of a frame measured on the frames as read (affine), made
 * that of the corrected frames for the camera path: the readout's shear
 * and vertical scale left out. */
void gst_bspline_stabilize_rolling_motion (GstBSplineStabilize * self,
    bspline_affine * motion);

/* The rolling-shutter correction of `frame` (just taken from the head of
 * the frames held back) as an STMap over the input frame, from the
 * trajectory solved over the frames before it, it and those held back
 * (with a transforms file read, over the file's section): BSPLINE_OK with
 * *map NULL where there is none (readout 0). */
bspline_status gst_bspline_stabilize_rolling_map (GstBSplineStabilize *
    self, GstBSplineStabilizeFrame * frame, bspline_stmap ** map,
    gchar * msg, gsize msg_len);

/* `frame`, taken from the head of the frames held back (warped or not),
 * joins the frames before. */
void gst_bspline_stabilize_rolling_pass (GstBSplineStabilize * self,
    const GstBSplineStabilizeFrame * frame);

/* A new sequence: the bands forget the frames before. */
void gst_bspline_stabilize_rolling_reset (GstBSplineStabilizeRolling *
    rolling);

/* Frees the band measurement (new caps, stop). */
void gst_bspline_stabilize_rolling_clear (GstBSplineStabilizeRolling *
    rolling);

/* ---- gstbsplinestabilizecuda.c: with the CUDA engine only ---- */
#ifdef HAVE_BSPLINE_CUDA
/* The motion on the GPU for frames of in_info (the warp is there), and
 * the device frames; FALSE after an element error (backend=cuda). */
gboolean gst_bspline_stabilize_cuda_start_motion (GstBSplineStabilize *
    self, GstVideoInfo * in_info);

/* The frame's device copy (its frames held back stay), for the warp of
 * a frame whose motion is read; an element error where the GPU fails
 * with backend=cuda. */
GstFlowReturn gst_bspline_stabilize_cuda_upload (GstBSplineStabilize * self,
    GstBSplineStabilizeFrame * frame);

/* The motion of a mapped frame on the GPU, where it runs there
 * (*estimated); after a GPU failure on the CPU from then on, or an
 * element error (vframe stays mapped). */
GstFlowReturn gst_bspline_stabilize_cuda_estimate (GstBSplineStabilize *
    self, GstVideoFrame * vframe, const bspline_luma_frame * luma,
    GstBSplineStabilizeFrame * frame, bspline_motion_result * r,
    gboolean * estimated);

/* The lens stage's analysis frame resampled on the GPU: TRUE where the
 * GPU took it (*status: done, or failed with backend=cuda; msg says
 * why); FALSE where the CPU does it. */
gboolean gst_bspline_stabilize_cuda_undistort (GstBSplineStabilize * self,
    const bspline_image * src, const GstBSplineStabilizeFrame * frame,
    bspline_status * status, gchar * msg, gsize msg_len);

/* The planes warped on the GPU: TRUE where they were (*kept: with the
 * border of keep-border); FALSE where the CPU warps them (no engine,
 * or a GPU failure with backend=auto), or *status where the GPU failed
 * with backend=cuda (msg says why). */
gboolean gst_bspline_stabilize_cuda_warp (GstBSplineStabilize * self,
    GstBSplineStabilizeFrame * frame, GstBSplineStabilizeWarpPlanes * planes,
    GstBuffer * out, gboolean with_previous, gboolean * kept,
    bspline_status * status, gchar * msg, gsize msg_len);

/* The frame's device copy goes back to the free list. */
void gst_bspline_stabilize_cuda_release (GstBSplineStabilize * self,
    GstBSplineStabilizeFrame * frame);

/* A new sequence: the GPU's estimator forgets its previous frame. */
void gst_bspline_stabilize_cuda_reset (GstBSplineStabilize * self);

/* Frees the GPU's estimator, the device frames and keep-border's copy
 * (new caps, stop); the engine stays. */
void gst_bspline_stabilize_cuda_clear (GstBSplineStabilize * self);

/* Upstream's pool of held frames: pinned where the GPU warps (TRUE, the
 * answer in *ret). */
gboolean gst_bspline_stabilize_cuda_propose (GstBSplineStabilize * self,
    GstQuery * query, guint held, gboolean * ret);

/* Output from a pool of pinned memory where the GPU warps. */
void gst_bspline_stabilize_cuda_decide (GstBSplineStabilize * self,
    GstQuery * query);

/* decide_allocation for output in CUDA memory: TRUE and the answer in
 * *ret (a CUDA pool of the shared context) where the caps are CUDA
 * memory's. */
gboolean gst_bspline_stabilize_cuda_decide_memory (GstBSplineStabilize *
    self, GstQuery * query, gboolean * ret);

/* Makes the engine's CUDA context current on the streaming thread (where
 * it is a shared one): TRUE where it was pushed, the argument of
 * gst_bspline_stabilize_cuda_leave. */
gboolean gst_bspline_stabilize_cuda_enter (GstBSplineStabilize * self);
void gst_bspline_stabilize_cuda_leave (GstBSplineStabilize * self,
    gboolean entered);

/* gst_video_frame_map, with the planes as device pointers where buffer is
 * CUDA memory of the engine's context and the GPU does the work
 * (estimate: the motion, without the lens stage; else the warp). */
gboolean gst_bspline_stabilize_cuda_map (GstBSplineStabilize * self,
    GstVideoFrame * vframe, const GstVideoInfo * info, GstBuffer * buffer,
    GstMapFlags flags, gboolean estimate);

/* Whether vframe was mapped with device pointers. */
gboolean gst_bspline_stabilize_cuda_mapped_on_device (const GstVideoFrame *
    vframe);
#else
static inline gboolean
gst_bspline_stabilize_cuda_start_motion (G_GNUC_UNUSED GstBSplineStabilize *
    self, G_GNUC_UNUSED GstVideoInfo * in_info)
{
  return TRUE;
}

static inline GstFlowReturn
gst_bspline_stabilize_cuda_upload (G_GNUC_UNUSED GstBSplineStabilize * self,
    G_GNUC_UNUSED GstBSplineStabilizeFrame * frame)
{
  return GST_FLOW_OK;
}

static inline GstFlowReturn
gst_bspline_stabilize_cuda_estimate (G_GNUC_UNUSED GstBSplineStabilize *
    self, G_GNUC_UNUSED GstVideoFrame * vframe,
    G_GNUC_UNUSED const bspline_luma_frame * luma,
    G_GNUC_UNUSED GstBSplineStabilizeFrame * frame,
    G_GNUC_UNUSED bspline_motion_result * r, gboolean * estimated)
{
  *estimated = FALSE;
  return GST_FLOW_OK;
}

static inline gboolean
gst_bspline_stabilize_cuda_undistort (G_GNUC_UNUSED GstBSplineStabilize *
    self, G_GNUC_UNUSED const bspline_image * src,
    G_GNUC_UNUSED const GstBSplineStabilizeFrame * frame,
    G_GNUC_UNUSED bspline_status * status, G_GNUC_UNUSED gchar * msg,
    G_GNUC_UNUSED gsize msg_len)
{
  return FALSE;
}

static inline gboolean
gst_bspline_stabilize_cuda_warp (G_GNUC_UNUSED GstBSplineStabilize * self,
    G_GNUC_UNUSED GstBSplineStabilizeFrame * frame,
    G_GNUC_UNUSED GstBSplineStabilizeWarpPlanes * planes,
    G_GNUC_UNUSED GstBuffer * out, G_GNUC_UNUSED gboolean with_previous,
    G_GNUC_UNUSED gboolean * kept, G_GNUC_UNUSED bspline_status * status,
    G_GNUC_UNUSED gchar * msg, G_GNUC_UNUSED gsize msg_len)
{
  return FALSE;
}

static inline void
gst_bspline_stabilize_cuda_release (G_GNUC_UNUSED GstBSplineStabilize * self,
    G_GNUC_UNUSED GstBSplineStabilizeFrame * frame)
{
}

static inline void
gst_bspline_stabilize_cuda_reset (G_GNUC_UNUSED GstBSplineStabilize * self)
{
}

static inline void
gst_bspline_stabilize_cuda_clear (G_GNUC_UNUSED GstBSplineStabilize * self)
{
}

static inline gboolean
gst_bspline_stabilize_cuda_propose (G_GNUC_UNUSED GstBSplineStabilize * self,
    G_GNUC_UNUSED GstQuery * query, G_GNUC_UNUSED guint held,
    G_GNUC_UNUSED gboolean * ret)
{
  return FALSE;
}

static inline void
gst_bspline_stabilize_cuda_decide (G_GNUC_UNUSED GstBSplineStabilize * self,
    G_GNUC_UNUSED GstQuery * query)
{
}

static inline gboolean
gst_bspline_stabilize_cuda_decide_memory (G_GNUC_UNUSED GstBSplineStabilize *
    self, G_GNUC_UNUSED GstQuery * query, G_GNUC_UNUSED gboolean * ret)
{
  return FALSE;
}

static inline gboolean
gst_bspline_stabilize_cuda_enter (G_GNUC_UNUSED GstBSplineStabilize * self)
{
  return FALSE;
}

static inline void
gst_bspline_stabilize_cuda_leave (G_GNUC_UNUSED GstBSplineStabilize * self,
    G_GNUC_UNUSED gboolean entered)
{
}

static inline gboolean
gst_bspline_stabilize_cuda_map (G_GNUC_UNUSED GstBSplineStabilize * self,
    GstVideoFrame * vframe, const GstVideoInfo * info, GstBuffer * buffer,
    GstMapFlags flags, G_GNUC_UNUSED gboolean estimate)
{
  return gst_video_frame_map (vframe, (GstVideoInfo *) info, buffer, flags);
}

static inline gboolean
gst_bspline_stabilize_cuda_mapped_on_device (G_GNUC_UNUSED const
    GstVideoFrame * vframe)
{
  return FALSE;
}
#endif

/* ---- gstbsplinestabilizecuda.c: with memory:CUDAMemory only ---- */
#ifdef HAVE_BSPLINE_CUDA_MEMORY
/* The engine's start-up (GstBSplineEngineNewCuda): on the pipeline's
 * CUDA context where a neighbour has one already. */
bspline_status gst_bspline_stabilize_cuda_new_engine (GstElement * element,
    gint device_id, struct bspline_cuda **cuda, gchar * msg, gsize msg_len);

/* CUDA memory on either pad: the pipeline's CUDA context and an engine on
 * it (the motion is made on it after).  FALSE after an element error. */
gboolean gst_bspline_stabilize_cuda_negotiate_memory (GstBSplineStabilize *
    self, GstCaps * incaps, GstCaps * outcaps);

/* Both pads in the same memory (system or CUDA). */
gboolean gst_bspline_stabilize_cuda_same_memory (GstBSplineStabilize * self);

/* The caps of the other pad: each memory, CUDA memory where the CUDA
 * engine can be used (backend auto or cuda, a GPU). */
GstCaps *gst_bspline_stabilize_cuda_transform_caps (GstBSplineStabilize *
    self, GstCaps * caps);

/* A context set on the element: the pipeline's CUDA context. */
void gst_bspline_stabilize_cuda_set_context (GstBSplineStabilize * self,
    GstContext * context);

/* TRUE where the query is answered here (the CUDA context query). */
gboolean gst_bspline_stabilize_cuda_query (GstBSplineStabilize * self,
    GstQuery * query);

/* After the base class answered a caps query on the sink pad: CUDA memory
 * preferred where upstream offers it. */
void gst_bspline_stabilize_cuda_query_result (GstBSplineStabilize * self,
    GstPadDirection direction, GstQuery * query);

/* Frees the engine and forgets the pipeline's CUDA context (stop). */
void gst_bspline_stabilize_cuda_clear_memory (GstBSplineStabilize * self);
#else
/* the engine starts on the device's primary context */
#define gst_bspline_stabilize_cuda_new_engine NULL

static inline gboolean
gst_bspline_stabilize_cuda_negotiate_memory (G_GNUC_UNUSED
    GstBSplineStabilize * self, G_GNUC_UNUSED GstCaps * incaps,
    G_GNUC_UNUSED GstCaps * outcaps)
{
  return TRUE;
}

static inline gboolean
gst_bspline_stabilize_cuda_same_memory (G_GNUC_UNUSED GstBSplineStabilize *
    self)
{
  return TRUE;
}

static inline GstCaps *
gst_bspline_stabilize_cuda_transform_caps (G_GNUC_UNUSED GstBSplineStabilize
    * self, GstCaps * caps)
{
  return gst_caps_ref (caps);
}

static inline void
gst_bspline_stabilize_cuda_set_context (G_GNUC_UNUSED GstBSplineStabilize *
    self, G_GNUC_UNUSED GstContext * context)
{
}

static inline gboolean
gst_bspline_stabilize_cuda_query (G_GNUC_UNUSED GstBSplineStabilize * self,
    G_GNUC_UNUSED GstQuery * query)
{
  return FALSE;
}

static inline void
gst_bspline_stabilize_cuda_query_result (G_GNUC_UNUSED GstBSplineStabilize *
    self, G_GNUC_UNUSED GstPadDirection direction,
    G_GNUC_UNUSED GstQuery * query)
{
}

static inline void
gst_bspline_stabilize_cuda_clear_memory (G_GNUC_UNUSED GstBSplineStabilize *
    self)
{
}
#endif

G_END_DECLS
#endif /* __GST_BSPLINE_STABILIZE_PRIVATE_H__ */
