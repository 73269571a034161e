/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lens-map: the input point that every output pixel samples under a lens
 * geometry, as the element builds it (bspline_geometry_plane_map, then
 * bspline_plan_new_lens, then bspline_plan_map_point, which both engines
 * evaluate), for tests/elements/test_lens.py to compare with OpenCV's maps.
 *
 *   lens-map model=brown|fisheye [direction=undistort|distort]
 *            camera=fx,fy,cx,cy [distortion=k1,k2,...]
 *            [new-camera=fx,fy,cx,cy] [fit=none|inside|all]
 *            in=WxH out=WxH [rotation=DEGREES] file=MAP.f64
 *
 * writes out_h x out_w x 2 doubles (x, y in OpenCV's convention: the
 * centre of the first input pixel at 0; NaN where the pixel samples no
 * point) to MAP.f64.  On a refused geometry it prints the message and
 * exits 2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bspline.h"
#include "bspline-geometry.h"

static int
parse_numbers (const char *s, double *v, int max)
{
  int n = 0;
  char *end;
  while (*s && n < max) {
    v[n++] = strtod (s, &end);
    if (end == s)
      return -1;
    s = *end == ',' ? end + 1 : end;
  }
  return n;
}

int
main (int argc, char **argv)
{
  bspline_geometry g;
  bspline_plane_grid grid = { 1, 1, 0.0, 0.0 };
  bspline_params params;
  bspline_plan *plan = NULL;
  bspline_lens lens;
  double inverse[9], *map;
  const char *file = NULL;
  int model = BSPLINE_LENS_NONE, distort = 0, fit = 0, n_dist = 0;
  int new_set = 0, iw = 0, ih = 0, ow = 0, oh = 0, i, j;
  double camera[4] = { 0 }, new_camera[4] = { 0 }, rotation = 0.0;
  double dist[BSPLINE_LENS_MAX_COEFFS] = { 0 };
  char msg[512];
  FILE *f;

  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strncmp (a, "model=", 6) == 0)
      model = strcmp (a + 6, "fisheye") == 0 ? BSPLINE_LENS_FISHEYE :
          BSPLINE_LENS_BROWN;
    else if (strncmp (a, "direction=", 10) == 0)
      distort = strcmp (a + 10, "distort") == 0;
    else if (strncmp (a, "camera=", 7) == 0)
      parse_numbers (a + 7, camera, 4);
    else if (strncmp (a, "distortion=", 11) == 0)
      n_dist = parse_numbers (a + 11, dist, BSPLINE_LENS_MAX_COEFFS);
    else if (strncmp (a, "new-camera=", 11) == 0)
      new_set = parse_numbers (a + 11, new_camera, 4) == 4;
    else if (strncmp (a, "fit=", 4) == 0)
      fit = strcmp (a + 4, "inside") == 0 ? 1 :
          strcmp (a + 4, "all") == 0 ? 2 : 0;
    else if (strncmp (a, "in=", 3) == 0)
      sscanf (a + 3, "%dx%d", &iw, &ih);
    else if (strncmp (a, "out=", 4) == 0)
      sscanf (a + 4, "%dx%d", &ow, &oh);
    else if (strncmp (a, "rotation=", 9) == 0)
      rotation = atof (a + 9);
    else if (strncmp (a, "file=", 5) == 0)
      file = a + 5;
    else {
      fprintf (stderr, "lens-map: unknown argument %s\n", a);
      return 1;
    }
  }
  if (!file || iw < 1 || ih < 1 || ow < 1 || oh < 1 || n_dist < 0) {
    fprintf (stderr, "lens-map: need in=, out=, file= (see the source)\n");
    return 1;
  }

  bspline_geometry_init (&g, iw, ih, ow, oh);
  g.rotation = rotation;
  g.lens_model = model;
  g.lens_distort = distort;
  memcpy (g.camera, camera, sizeof (camera));
  memcpy (g.distortion, dist, sizeof (dist));
  g.n_distortion = n_dist;
  g.new_camera_set = new_set;
  memcpy (g.new_camera, new_camera, sizeof (new_camera));
  g.lens_fit = fit != 0;
  g.lens_fit_alpha = fit == 2 ? 1.0 : 0.0;
  bspline_params_init (&params);
  params.antialias = BSPLINE_ANTIALIAS_NONE;
  if (bspline_geometry_plane_map (&g, &grid, inverse, &lens, msg,
          sizeof (msg)) != BSPLINE_OK
      || bspline_plan_new_lens (&params, inverse, &lens, iw, ih, ow, oh, 1,
          &plan, msg, sizeof (msg)) != BSPLINE_OK) {
    printf ("%s\n", msg);
    return 2;
  }
  map = malloc (sizeof (double) * 2 * (size_t) ow * oh);
  if (!map)
    return 1;
  for (i = 0; i < oh; i++)
    for (j = 0; j < ow; j++) {
      double x, y, *p = map + 2 * ((size_t) i * ow + j);
      if (bspline_plan_map_point (plan, j + 0.5, i + 0.5, &x, &y)) {
        p[0] = x - 0.5;
        p[1] = y - 0.5;
      } else
        p[0] = p[1] = NAN;
    }
  f = fopen (file, "wb");
  if (!f || fwrite (map, sizeof (double), 2 * (size_t) ow * oh, f)
      != 2 * (size_t) ow * oh) {
    fprintf (stderr, "lens-map: cannot write %s\n", file);
    return 1;
  }
  fclose (f);
  free (map);
  bspline_plan_free (plan);
  return 0;
}
