/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* core-resample: gst-bspline's GStreamer-free core (libbspline-1.0) in an
 * application, built with nothing but pkg-config:
 *
 *   cc core-resample.c $(pkg-config --cflags --libs bspline-1.0)
 *
 * Makes a 64x48 grey picture, resamples it through the identity (an
 * interpolating B-spline gives back every sample exactly) and then
 * rotated by 10 degrees about its centre and enlarged to 96x72, and
 * prints what it got.  Exit status 0 where both ran and the identity
 * returned the picture, 1 otherwise.
 *
 * This example is free software: LGPL-2.1-or-later (the LICENSE file).
 */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bspline.h>

#define W 64
#define H 48
#define OUT_W 96
#define OUT_H 72

/* Resamples src (W x H) into dst (dst_w x dst_h) through inverse: output
 * pixel coordinates -> input pixel coordinates. */
static int
resample (bspline_cpu * cpu, const double inverse[9], uint8_t * src,
    uint8_t * dst, int dst_w, int dst_h)
{
  bspline_params params;
  bspline_plan *plan = NULL;
  bspline_image in = { src, W, W, H, 1, BSPLINE_SAMPLE_U8, 8, 0 };
  bspline_image out = { dst, dst_w, dst_w, dst_h, 1, BSPLINE_SAMPLE_U8, 8, 0 };
  char msg[256];
  bspline_status status;

  bspline_params_init (&params);        /* cubic, reflect, float */
  params.precision = BSPLINE_PRECISION_DOUBLE;
  status = bspline_plan_new (&params, inverse, W, H, dst_w, dst_h, 1, &plan,
      msg, sizeof (msg));
  if (status != BSPLINE_OK) {
    fprintf (stderr, "core-resample: no plan: %s (%s)\n",
        bspline_status_string (status), msg);
    return 0;
  }
  status = bspline_cpu_execute (cpu, plan, &in, &out);
  bspline_plan_free (plan);
  if (status != BSPLINE_OK) {
    fprintf (stderr, "core-resample: %s (%s)\n",
        bspline_status_string (status), bspline_cpu_last_error (cpu));
    return 0;
  }
  return 1;
}

int
main (void)
{
  static uint8_t picture[W * H], same[W * H], turned[OUT_W * OUT_H];
  const double pi = 3.14159265358979323846, a = 10.0 * pi / 180.0;
  const double c = cos (a), s = sin (a), k = (double) W / OUT_W;
  double identity[9], inverse[9];
  unsigned long sum = 0;
  bspline_cpu *cpu;
  int i, j;

  /* rings and a ramp: smooth, with detail */
  for (j = 0; j < H; j++)
    for (i = 0; i < W; i++)
      picture[j * W + i] = (uint8_t) (127.5 + 60.0 * sin (0.02 * ((i - 32)
                  * (i - 32) + (j - 24) * (j - 24))) + (i - 32));

  /* output px -> input px: about the output's centre, undo the
   * enlargement and turn back by a (clockwise on screen, y down) */
  bspline_matrix_identity (identity);
  inverse[0] = k * c;
  inverse[1] = k * s;
  inverse[2] = 0.5 * W - k * (c * 0.5 * OUT_W + s * 0.5 * OUT_H);
  inverse[3] = -k * s;
  inverse[4] = k * c;
  inverse[5] = 0.5 * H - k * (-s * 0.5 * OUT_W + c * 0.5 * OUT_H);
  inverse[6] = 0.0;
  inverse[7] = 0.0;
  inverse[8] = 1.0;

  cpu = bspline_cpu_new (0);
  if (cpu == NULL) {
    fprintf (stderr, "core-resample: no CPU engine\n");
    return 1;
  }
  if (!resample (cpu, identity, picture, same, W, H)
      || !resample (cpu, inverse, picture, turned, OUT_W, OUT_H)) {
    bspline_cpu_free (cpu);
    return 1;
  }
  bspline_cpu_free (cpu);

  if (memcmp (picture, same, sizeof (picture)) != 0) {
    fprintf (stderr, "core-resample: the identity changed the picture\n");
    return 1;
  }
  for (i = 0; i < OUT_W * OUT_H; i++)
    sum += turned[i];
  printf ("core-resample: identity exact; %dx%d -> %dx%d rotated 10 deg: "
      "centre %d, mean %.2f\n", W, H, OUT_W, OUT_H,
      turned[(OUT_H / 2) * OUT_W + OUT_W / 2], (double) sum / (OUT_W * OUT_H));
  return 0;
}
