/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* print-layout.c: sizes and offsets of the public structs of bspline.h,
 * one "name value" per line, for test_scipy.py to compare with its ctypes
 * mirrors. */
#include "bspline.h"

#include <stddef.h>
#include <stdio.h>

#define FIELD(type, field) \
  printf ("%s.%s %zu\n", #type, #field, offsetof (type, field))

int
main (void)
{
  printf ("sizeof.int %zu\n", sizeof (int));
  printf ("sizeof.bspline_method %zu\n", sizeof (bspline_method));
  printf ("sizeof.bspline_boundary %zu\n", sizeof (bspline_boundary));
  printf ("sizeof.bspline_precision %zu\n", sizeof (bspline_precision));
  printf ("sizeof.bspline_sample_type %zu\n", sizeof (bspline_sample_type));
  printf ("sizeof.bspline_status %zu\n", sizeof (bspline_status));
  printf ("sizeof.bspline_image %zu\n", sizeof (bspline_image));
  FIELD (bspline_image, data);
  FIELD (bspline_image, stride);
  FIELD (bspline_image, width);
  FIELD (bspline_image, height);
  FIELD (bspline_image, channels);
  FIELD (bspline_image, type);
  FIELD (bspline_image, bits);
  FIELD (bspline_image, shift);
  printf ("sizeof.bspline_params %zu\n", sizeof (bspline_params));
  FIELD (bspline_params, method);
  FIELD (bspline_params, order);
  FIELD (bspline_params, bicubic_a);
  FIELD (bspline_params, boundary);
  FIELD (bspline_params, fill);
  FIELD (bspline_params, precision);
  FIELD (bspline_params, antialias);
  return 0;
}
