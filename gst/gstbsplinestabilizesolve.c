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

/* bsplinestabilize's camera path solved on a thread of its own: the
 * correction of the oldest frame held back (bspline_stabilizer_pop: with
 * path=optimal, a linear programme over the look-ahead) is computed while
 * the streaming thread estimates the next frame's motion, and that frame
 * goes out one input frame later.  The stabilizer sees the same calls in
 * the same order as without the thread (push N, pop N - smoothing, push
 * N + 1, ...): the streaming thread waits for the pop before its next
 * push, reset, or any other use of the stabilizer, so the corrections and
 * the output bytes are the same (the tests compare solve-thread=true and
 * false). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstbsplinestabilizeprivate.h"

#define GST_CAT_DEFAULT gst_bspline_stabilize_debug

static gpointer
gst_bspline_stabilize_solve_loop (gpointer data)
{
  GstBSplineStabilizeSolve *solve = data;

  g_mutex_lock (&solve->lock);
  for (;;) {
    while (solve->state != GST_BSPLINE_STABILIZE_SOLVE_RUNNING && !solve->quit)
      g_cond_wait (&solve->cond, &solve->lock);
    if (solve->quit)
      break;
    g_mutex_unlock (&solve->lock);
    bspline_stabilizer_pop (solve->stabilizer, FALSE, &solve->result);
    g_mutex_lock (&solve->lock);
    solve->state = GST_BSPLINE_STABILIZE_SOLVE_DONE;
    g_cond_broadcast (&solve->cond);
  }
  g_mutex_unlock (&solve->lock);
  return NULL;
}

void
gst_bspline_stabilize_solve_start (GstBSplineStabilizeSolve * solve,
    bspline_stabilizer * stabilizer)
{
  GError *error = NULL;

  solve->stabilizer = stabilizer;
  solve->state = GST_BSPLINE_STABILIZE_SOLVE_IDLE;
  solve->quit = FALSE;
  solve->ahead = FALSE;
  g_mutex_init (&solve->lock);
  g_cond_init (&solve->cond);
  solve->thread = g_thread_try_new ("bsplinestabilize-solve",
      gst_bspline_stabilize_solve_loop, solve, &error);
  if (solve->thread == NULL) {
    /* the path is then solved on the streaming thread */
    GST_WARNING ("no thread for the camera path: %s", error->message);
    g_clear_error (&error);
    g_mutex_clear (&solve->lock);
    g_cond_clear (&solve->cond);
  }
}

gboolean
gst_bspline_stabilize_solve_threaded (const GstBSplineStabilizeSolve * solve)
{
  return solve->thread != NULL;
}

void
gst_bspline_stabilize_solve_request (GstBSplineStabilizeSolve * solve)
{
  g_mutex_lock (&solve->lock);
  solve->state = GST_BSPLINE_STABILIZE_SOLVE_RUNNING;
  g_cond_broadcast (&solve->cond);
  g_mutex_unlock (&solve->lock);
  solve->ahead = TRUE;
}

gboolean
gst_bspline_stabilize_solve_wait (GstBSplineStabilizeSolve * solve)
{
  gboolean done;

  if (solve->thread == NULL)
    return FALSE;
  solve->ahead = FALSE;
  g_mutex_lock (&solve->lock);
  while (solve->state == GST_BSPLINE_STABILIZE_SOLVE_RUNNING)
    g_cond_wait (&solve->cond, &solve->lock);
  done = solve->state == GST_BSPLINE_STABILIZE_SOLVE_DONE;
  g_mutex_unlock (&solve->lock);
  return done;
}

gboolean
gst_bspline_stabilize_solve_ahead (const GstBSplineStabilizeSolve * solve)
{
  return solve->ahead;
}

gboolean
gst_bspline_stabilize_solve_collect (GstBSplineStabilizeSolve * solve,
    bspline_stabilize_result * result)
{
  if (!gst_bspline_stabilize_solve_wait (solve))
    return FALSE;
  *result = solve->result;
  solve->state = GST_BSPLINE_STABILIZE_SOLVE_IDLE;
  return TRUE;
}

void
gst_bspline_stabilize_solve_stop (GstBSplineStabilizeSolve * solve)
{
  if (solve->thread == NULL)
    return;
  g_mutex_lock (&solve->lock);
  solve->quit = TRUE;
  g_cond_broadcast (&solve->cond);
  g_mutex_unlock (&solve->lock);
  g_thread_join (solve->thread);
  solve->thread = NULL;
  g_mutex_clear (&solve->lock);
  g_cond_clear (&solve->cond);
  solve->state = GST_BSPLINE_STABILIZE_SOLVE_IDLE;
  solve->ahead = FALSE;
}
