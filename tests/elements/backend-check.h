/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* backend-check.h: the main of the GstHarness tests of bsplinewarp (and
 * of tests/gpu's element tests: run_cuda_suite).  With
 * BSPLINE_TEST_BACKEND=cuda (tests/gpu runs the suites so) a suite is
 * skipped (exit 77) where the CUDA engine cannot start, and otherwise run
 * in this process: the probe made a CUDA context, which does not survive
 * fork(). */
#ifndef BACKEND_CHECK_H
#define BACKEND_CHECK_H

#include <gst/gst.h>
#include <gst/check/gstcheck.h>

/* Whether bsplinewarp's CUDA engine starts here (the element taken to
 * PAUSED with backend=cuda); then CUDA's context is made, and the suite is
 * to run in this process: CUDA does not survive fork(). */
static inline gboolean
cuda_engine_starts (void)
{
  GstElement *e = gst_element_factory_make ("bsplinewarp", NULL);
  GstStateChangeReturn started;

  g_object_set (e, "backend", 2 /* cuda */ , NULL);
  started = gst_element_set_state (e, GST_STATE_PAUSED);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (e);
  if (started == GST_STATE_CHANGE_FAILURE) {
    g_print ("SKIP: backend=cuda cannot start here (no GPU or driver)\n");
    return FALSE;
  }
  g_setenv ("CK_FORK", "no", TRUE);
  return TRUE;
}

static inline int
run_bsplinewarp_suite (int *argc, char ***argv, Suite * (*make) (void),
    const gchar * name, const gchar * file)
{
  gst_check_init (argc, argv);
  if (g_strcmp0 (g_getenv ("BSPLINE_TEST_BACKEND"), "cuda") == 0) {
    if (!cuda_engine_starts ())
      return 77;
    g_print ("running the %s suite with backend=cuda\n", name);
  }
  return gst_check_run_suite (make (), name, file);
}

/* The main of a suite that runs on the CUDA engine only (tests/gpu): 1
 * where the plugin is not found, 77 where the engine cannot start. */
static inline int
run_cuda_suite (int *argc, char ***argv, Suite * (*make) (void),
    const gchar * name, const gchar * file)
{
  GstElementFactory *factory;

  gst_check_init (argc, argv);
  factory = gst_element_factory_find ("bsplinewarp");
  if (factory == NULL) {
    g_print ("FAIL: bsplinewarp not found (GST_PLUGIN_PATH?)\n");
    return 1;
  }
  gst_object_unref (factory);
  if (!cuda_engine_starts ())
    return 77;
  return gst_check_run_suite (make (), name, file);
}

#endif /* BACKEND_CHECK_H */
