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

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstbsplineengine.h"
#ifdef HAVE_BSPLINE_CUDA
#include "bspline-cuda.h"
#endif

GST_DEBUG_CATEGORY_STATIC (gst_bspline_engine_debug);
#define GST_CAT_DEFAULT gst_bspline_engine_debug

static void
gst_bspline_engine_init_debug (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (gst_bspline_engine_debug, "bsplineengine", 0,
        "B-spline engines: start-up and the GPU fall-back");
    g_once_init_leave (&done, 1);
  }
}

/* The CUDA engine for backend=auto or cuda; msg says why there is none. */
static void
gst_bspline_engine_start_cuda (GstBSplineEngine * engine,
    GstElement * element, GstBSplineEngineNewCuda new_cuda, gchar * msg,
    gsize msg_len)
{
#ifdef HAVE_BSPLINE_CUDA
  bspline_status status = new_cuda ?
      new_cuda (element, engine->cuda_device_id, &engine->cuda, msg, msg_len)
      : bspline_cuda_new (engine->cuda_device_id, &engine->cuda, msg, msg_len);

  if (status == BSPLINE_OK)
    GST_INFO_OBJECT (element, "CUDA engine on device %d (%s)",
        engine->cuda_device_id, bspline_cuda_device_name (engine->cuda));
  else if (engine->backend == GST_BSPLINE_BACKEND_AUTO)
    GST_INFO_OBJECT (element, "no CUDA engine (%s): using the CPU engine", msg);
#else
  (void) engine;
  (void) element;
  (void) new_cuda;
  g_strlcpy (msg, "this build has no CUDA engine", msg_len);
#endif
}

gboolean
gst_bspline_engine_start (GstBSplineEngine * engine, GstElement * element,
    const GstBSplineSettings * settings, GstBSplineEngineNewCuda new_cuda)
{
  gchar msg[256] = "";

  gst_bspline_engine_init_debug ();
  engine->backend = settings->backend;
  engine->cuda_device_id = settings->cuda_device_id;
  engine->gpu_failed = FALSE;
  if (engine->backend != GST_BSPLINE_BACKEND_CPU)
    gst_bspline_engine_start_cuda (engine, element, new_cuda, msg,
        sizeof (msg));
  if (engine->backend == GST_BSPLINE_BACKEND_CUDA && engine->cuda == NULL)
    return gst_bspline_engine_cuda_unavailable (engine, element,
        "the CUDA engine", msg);

  /* the CPU engine is always there: for backend=cpu, and for a fall-back */
  engine->cpu = bspline_cpu_new ((int) settings->n_threads);
  if (engine->cpu == NULL)
    goto no_cpu;
  engine->cpu_threads = settings->n_threads;
  GST_DEBUG_OBJECT (element, "CPU engine with %d threads",
      bspline_cpu_n_threads (engine->cpu));
  return TRUE;

  /* ERRORS */
no_cpu:
  {
    gst_bspline_engine_free_cuda (engine);
    GST_ELEMENT_ERROR (element, RESOURCE, FAILED,
        ("Could not start the CPU engine with n-threads=%u.",
            settings->n_threads),
        ("bspline_cpu_new failed: out of memory or threads."));
    return FALSE;
  }
}

gboolean
gst_bspline_engine_ensure_threads (GstBSplineEngine * engine,
    GstElement * element, guint n_threads)
{
  bspline_cpu *cpu;

  if (n_threads == engine->cpu_threads)
    return TRUE;
  cpu = bspline_cpu_new ((int) n_threads);
  if (cpu == NULL)
    goto no_cpu;
  bspline_cpu_free (engine->cpu);
  engine->cpu = cpu;
  engine->cpu_threads = n_threads;
  return TRUE;

  /* ERRORS */
no_cpu:
  {
    GST_ELEMENT_ERROR (element, RESOURCE, FAILED,
        ("Could not restart the CPU engine with n-threads=%u.", n_threads),
        ("bspline_cpu_new failed: out of memory or threads."));
    return FALSE;
  }
}

gboolean
gst_bspline_engine_on_gpu (const GstBSplineEngine * engine)
{
  return engine->cuda != NULL && !engine->gpu_failed;
}

gboolean
gst_bspline_engine_cuda_unavailable (GstBSplineEngine * engine,
    GstElement * element, const gchar * what, const gchar * msg)
{
  if (engine->backend == GST_BSPLINE_BACKEND_CUDA) {
    GST_ELEMENT_ERROR (element, LIBRARY, INIT,
        ("backend=cuda was requested, but %s cannot run: %s.", what, msg),
        ("cuda-device-id=%d. Set backend=auto to use the GPU where there "
            "is one and the CPU otherwise.", engine->cuda_device_id));
    return FALSE;
  }
  GST_ELEMENT_WARNING (element, RESOURCE, FAILED,
      ("backend=auto: %s cannot run (%s): continuing on the CPU.", what, msg),
      ("cuda-device-id=%d", engine->cuda_device_id));
  return TRUE;
}

gboolean
gst_bspline_engine_gpu_failed (const GstBSplineEngine * engine,
    GstElement * element, const gchar * what, const gchar * msg)
{
  if (engine->backend == GST_BSPLINE_BACKEND_CUDA) {
    GST_ELEMENT_ERROR (element, RESOURCE, FAILED,
        ("The GPU failed: %s.", msg),
        ("backend=cuda; with backend=auto the element would continue on the "
            "CPU."));
    return FALSE;
  }
  GST_ELEMENT_WARNING (element, RESOURCE, FAILED,
      ("The GPU failed (%s): continuing on the CPU.", msg),
      ("backend=auto; %s runs on the CPU from now on.", what));
  return TRUE;
}

void
gst_bspline_engine_free_cuda (GstBSplineEngine * engine)
{
#ifdef HAVE_BSPLINE_CUDA
  bspline_cuda_free (engine->cuda);
#endif
  engine->cuda = NULL;
}

void
gst_bspline_engine_clear (GstBSplineEngine * engine)
{
  gst_bspline_engine_free_cuda (engine);
  bspline_cpu_free (engine->cpu);
  engine->cpu = NULL;
  engine->cpu_threads = 0;
}
