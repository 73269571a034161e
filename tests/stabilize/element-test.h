/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* element-test.h: what bsplinestabilize's element tests (test-element*.c)
 * share: the backend they run the element with, and their input frames. */
#ifndef ELEMENT_TEST_H
#define ELEMENT_TEST_H

#include <gst/gst.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#ifdef HAVE_BSPLINE_CUDA
#include "bspline-cuda.h"
#endif

/* BSPLINE_TEST_BACKEND, or cpu; NULL, after a SKIP line naming the test,
 * where it is cuda and this build or machine has no CUDA device: the
 * test then exits 77 (skipped). */
static inline const char *
element_backend (const char *test)
{
  const char *backend = g_getenv ("BSPLINE_TEST_BACKEND");

  if (backend == NULL)
    return "cpu";
  if (strcmp (backend, "cuda") == 0) {
    char msg[256] = "this build has no CUDA engine";
#ifdef HAVE_BSPLINE_CUDA
    if (bspline_cuda_device_count (msg, sizeof (msg)) == 0)
#endif
    {
      printf ("SKIP %s with backend=cuda: %s\n", test, msg);
      return NULL;
    }
  }
  return backend;
}

/* RGB (3 bytes a pixel, w x h) into a new RGBx buffer, frame k of a
 * 30 frames/s stream. */
static inline GstBuffer *
element_rgbx_buffer (const uint8_t * rgb, int w, int h, int k)
{
  GstBuffer *buf = gst_buffer_new_and_alloc ((gsize) w * h * 4);
  GstMapInfo map;
  int i;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (i = 0; i < w * h; i++) {
    memcpy (map.data + 4 * i, rgb + 3 * i, 3);
    map.data[4 * i + 3] = 255;
  }
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale (k, GST_SECOND, 30);
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

#endif /* ELEMENT_TEST_H */
