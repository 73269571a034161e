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

/* The engines an element resamples with, shared by bsplinewarp and
 * bsplinestabilize: the CPU engine, always there (for backend=cpu and as
 * the fall-back), and the CUDA engine where the build has one and the
 * backend property allows it.  The one place of the backend rule:
 *
 * - backend=cpu: the CPU engine alone;
 * - backend=auto: the CUDA engine where it starts (an INFO log where it
 *   does not), and after a GPU failure the CPU, with one element warning;
 * - backend=cuda: an element error where the CUDA engine cannot start,
 *   and an element error on a GPU failure.
 *
 * Like nvcodec's gstcudabasetransform.c keeps the CUDA context in one
 * place, the elements keep the engines here and read the backend rule
 * from here, not each in its own words. */

#ifndef __GST_BSPLINE_ENGINE_H__
#define __GST_BSPLINE_ENGINE_H__

#include <gst/gst.h>

#include "bspline.h"
#include "gstbsplinesettings.h"

G_BEGIN_DECLS

struct bspline_cuda;

typedef struct
{
  bspline_cpu *cpu;
  guint cpu_threads;            /* the n-threads it was made with */
  GstBSplineBackend backend;    /* as the element started */
  gint cuda_device_id;
  struct bspline_cuda *cuda;    /* NULL: no CUDA engine, or none in the build */
  gboolean gpu_failed;          /* backend=auto after a GPU failure */
} GstBSplineEngine;

/* Makes the CUDA engine in *cuda (builds with CUDA): the element's own
 * way, e.g. on the pipeline's CUDA context; msg says why it cannot. */
typedef bspline_status (*GstBSplineEngineNewCuda) (GstElement * element,
    gint device_id, struct bspline_cuda ** cuda, gchar * msg, gsize msg_len);

/* Starts the engines for the settings (backend, cuda-device-id,
 * n-threads); new_cuda NULL: on the device's primary context.  FALSE
 * after an element error (backend=cuda without a CUDA engine, or no CPU
 * engine), with nothing left to clear. */
gboolean gst_bspline_engine_start (GstBSplineEngine * engine,
    GstElement * element, const GstBSplineSettings * settings,
    GstBSplineEngineNewCuda new_cuda);

/* The CPU engine made again where n_threads changed; FALSE after an
 * element error. */
gboolean gst_bspline_engine_ensure_threads (GstBSplineEngine * engine,
    GstElement * element, guint n_threads);

/* Whether the GPU runs the element's work: a CUDA engine, no GPU failure. */
gboolean gst_bspline_engine_on_gpu (const GstBSplineEngine * engine);

/* Part of the element's GPU work (what: "the CUDA engine on the
 * pipeline's CUDA context", "the motion estimation on the GPU") cannot
 * start (msg says why): with backend=cuda an element error and FALSE,
 * else a warning that it continues on the CPU, and TRUE. */
gboolean gst_bspline_engine_cuda_unavailable (GstBSplineEngine * engine,
    GstElement * element, const gchar * what, const gchar * msg);

/* The GPU failed while running (msg says why): with backend=cuda an
 * element error and FALSE; with backend=auto the element warning (what:
 * the work that runs on the CPU from now on) and TRUE.  The caller moves
 * that work to the CPU (gpu_failed, where it is all of it). */
gboolean gst_bspline_engine_gpu_failed (const GstBSplineEngine * engine,
    GstElement * element, const gchar * what, const gchar * msg);

/* Frees the CUDA engine (its context, where it has one of its own, must
 * be current); the CPU engine stays. */
void gst_bspline_engine_free_cuda (GstBSplineEngine * engine);

/* Frees both engines: stop, finalize, a failed start. */
void gst_bspline_engine_clear (GstBSplineEngine * engine);

G_END_DECLS
#endif /* __GST_BSPLINE_ENGINE_H__ */
