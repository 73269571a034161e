/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* element-backend.h: the backend bsplinestabilize's element tests run
 * the element with (test-element*.c). */
#ifndef ELEMENT_BACKEND_H
#define ELEMENT_BACKEND_H

#include <glib.h>
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

#endif /* ELEMENT_BACKEND_H */
