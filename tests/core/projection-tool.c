/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* projection-tool: a projection geometry as the element builds it
 * (bspline_geometry_plane_map with a projection stage, then
 * bspline_plan_new_lens, as both engines evaluate it), for
 * tests/core/test_projection.py to compare with its own numpy formulas and
 * with ffmpeg's v360.
 *
 *   projection-tool in=NAME out=NAME src=WxH dst=WxH [fov=H,V] [ifov=H,V]
 *       [ypr=YAW,PITCH,ROLL] [order=N] [boundary=reflect|wrap]
 *       [antialias=none|widen] [map=MAP.f64] [jacobian=JAC.f64]
 *       [image=IN.f64 channels=C result=OUT.f64] [unmap=UNMAP.f64]
 *       [atlas=ATLAS.i32]
 *
 * map: dst_h x dst_w x 2 doubles, the input point (pixel coordinates:
 * pixel i covers [i, i + 1)) each output pixel centre samples, NaN where
 * none; jacobian: dst_h x dst_w x 4 doubles, d(x, y) / d(u, v) there;
 * image/result: a float64 src_h x src_w x C image resampled by the plan
 * (double precision); unmap: for each output pixel centre with a point,
 * that point unmapped again (bspline_geometry_unmap_point: navigation),
 * NaN elsewhere; atlas: the input atlas's gather table (core/projection/
 * atlas.h) as int32 frame pixel indices, row-major, with a line "atlas
 * WxH margin M" on stdout ("atlas none" where the input takes none).  On
 * a refused geometry it prints the message, exits 2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bspline.h"
#include "bspline-geometry.h"
#include "atlas.h"

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

static int
write_doubles (const char *file, const double *v, size_t n)
{
  FILE *f = fopen (file, "wb");
  int ok = f && fwrite (v, sizeof (double), n, f) == n;
  if (f)
    fclose (f);
  if (!ok)
    fprintf (stderr, "projection-tool: cannot write %s\n", file);
  return ok;
}

int
main (int argc, char **argv)
{
  bspline_geometry g;
  bspline_geometry_points points;
  bspline_plane_grid grid = { 1, 1, 0.0, 0.0 };
  bspline_params params;
  bspline_plan *plan = NULL;
  bspline_lens lens;
  double inverse[9], fov[2] = { 0.0, 0.0 }, ifov[2] = { 0.0, 0.0 };
  double ypr[3] = { 0.0, 0.0, 0.0 };
  const char *map_file = NULL, *jac_file = NULL, *image_file = NULL,
      *result_file = NULL, *unmap_file = NULL, *atlas_file = NULL;
  int in = -1, out = -1, iw = 0, ih = 0, ow = 0, oh = 0, channels = 1, i, j;
  char msg[512];

  bspline_params_init (&params);
  params.precision = BSPLINE_PRECISION_DOUBLE;
  params.antialias = BSPLINE_ANTIALIAS_NONE;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strncmp (a, "in=", 3) == 0)
      in = bspline_projection_type_from_name (a + 3);
    else if (strncmp (a, "out=", 4) == 0)
      out = bspline_projection_type_from_name (a + 4);
    else if (strncmp (a, "src=", 4) == 0)
      sscanf (a + 4, "%dx%d", &iw, &ih);
    else if (strncmp (a, "dst=", 4) == 0)
      sscanf (a + 4, "%dx%d", &ow, &oh);
    else if (strncmp (a, "fov=", 4) == 0)
      parse_numbers (a + 4, fov, 2);
    else if (strncmp (a, "ifov=", 5) == 0)
      parse_numbers (a + 5, ifov, 2);
    else if (strncmp (a, "ypr=", 4) == 0)
      parse_numbers (a + 4, ypr, 3);
    else if (strncmp (a, "order=", 6) == 0)
      params.order = atoi (a + 6);
    else if (strncmp (a, "boundary=", 9) == 0)
      params.boundary = strcmp (a + 9, "wrap") == 0 ?
          BSPLINE_BOUNDARY_WRAP : BSPLINE_BOUNDARY_REFLECT;
    else if (strncmp (a, "antialias=", 10) == 0)
      params.antialias = strcmp (a + 10, "widen") == 0 ?
          BSPLINE_ANTIALIAS_WIDEN : BSPLINE_ANTIALIAS_NONE;
    else if (strncmp (a, "map=", 4) == 0)
      map_file = a + 4;
    else if (strncmp (a, "jacobian=", 9) == 0)
      jac_file = a + 9;
    else if (strncmp (a, "image=", 6) == 0)
      image_file = a + 6;
    else if (strncmp (a, "channels=", 9) == 0)
      channels = atoi (a + 9);
    else if (strncmp (a, "result=", 7) == 0)
      result_file = a + 7;
    else if (strncmp (a, "unmap=", 6) == 0)
      unmap_file = a + 6;
    else if (strncmp (a, "atlas=", 6) == 0)
      atlas_file = a + 6;
    else {
      fprintf (stderr, "projection-tool: unknown argument %s\n", a);
      return 1;
    }
  }
  if (in < 0 || out < 0 || iw < 1 || ih < 1 || ow < 1 || oh < 1
      || channels < 1 || channels > 4 || (!image_file != !result_file)) {
    fprintf (stderr, "projection-tool: need in=, out=, src=, dst= with "
        "known names (see the source)\n");
    return 1;
  }

  bspline_geometry_init (&g, iw, ih, ow, oh);
  g.projection_set = 1;
  bspline_projection_params_init (&g.projection);
  g.projection.in = in;
  g.projection.out = out;
  g.projection.h_fov = fov[0];
  g.projection.v_fov = fov[1];
  g.projection.ih_fov = ifov[0];
  g.projection.iv_fov = ifov[1];
  g.projection.yaw = ypr[0];
  g.projection.pitch = ypr[1];
  g.projection.roll = ypr[2];
  if (bspline_geometry_plane_map (&g, &grid, inverse, &lens, msg,
          sizeof (msg)) != BSPLINE_OK
      || bspline_plan_new_lens (&params, inverse, &lens, iw, ih, ow, oh,
          channels, &plan, msg, sizeof (msg)) != BSPLINE_OK
      || bspline_geometry_points_init (&g, &points, msg, sizeof (msg))
      != BSPLINE_OK) {
    printf ("%s\n", msg);
    return 2;
  }

  if (atlas_file) {
    bspline_lens stage = lens;
    bspline_atlas *atlas;
    FILE *f;
    if (bspline_atlas_new (&stage, iw, ih, bspline_atlas_margin (&params),
            &atlas) != BSPLINE_OK)
      return 1;
    if (!atlas)
      printf ("atlas none\n");
    else {
      size_t n = (size_t) atlas->width * atlas->height;
      printf ("atlas %dx%d margin %d\n", atlas->width, atlas->height,
          atlas->margin);
      f = fopen (atlas_file, "wb");
      if (!f || fwrite (atlas->index, sizeof (int32_t), n, f) != n) {
        fprintf (stderr, "projection-tool: cannot write %s\n", atlas_file);
        return 1;
      }
      fclose (f);
      bspline_atlas_free (atlas);
    }
  }

  if (map_file || jac_file || unmap_file) {
    size_t n = (size_t) ow * oh;
    double *map = malloc (sizeof (double) * 2 * n);
    double *jac = malloc (sizeof (double) * 4 * n);
    double *unmap = malloc (sizeof (double) * 2 * n);
    if (!map || !jac || !unmap)
      return 1;
    for (i = 0; i < oh; i++)
      for (j = 0; j < ow; j++) {
        size_t k = (size_t) i * ow + j;
        double u = j + 0.5, v = i + 0.5, nx, ny, x, y, J[4];
        int found = bspline_map_point (inverse, u, v, &nx, &ny);
        if (found) {
          bspline_homography_jacobian (inverse, u, v, nx, ny, J);
          found = bspline_lenses_map (&lens, 1, nx, ny, &x, &y, J);
        }
        map[2 * k] = found ? x : NAN;
        map[2 * k + 1] = found ? y : NAN;
        memcpy (jac + 4 * k, J, sizeof (J));
        if (!found)
          jac[4 * k] = jac[4 * k + 1] = jac[4 * k + 2] = jac[4 * k + 3] = NAN;
        if (!found || !bspline_geometry_unmap_point (&points, x, y,
                unmap + 2 * k, unmap + 2 * k + 1))
          unmap[2 * k] = unmap[2 * k + 1] = NAN;
      }
    if ((map_file && !write_doubles (map_file, map, 2 * n))
        || (jac_file && !write_doubles (jac_file, jac, 4 * n))
        || (unmap_file && !write_doubles (unmap_file, unmap, 2 * n)))
      return 1;
    free (map);
    free (jac);
    free (unmap);
  }

  if (image_file) {
    size_t n_in = (size_t) iw * ih * channels, n_out = (size_t) ow *oh
        * channels;
    double *src = malloc (sizeof (double) * n_in);
    double *dst = malloc (sizeof (double) * n_out);
    bspline_image s = { src, (ptrdiff_t) (sizeof (double) * iw * channels),
      iw, ih, channels, BSPLINE_SAMPLE_F64, 0, 0
    };
    bspline_image d = { dst, (ptrdiff_t) (sizeof (double) * ow * channels),
      ow, oh, channels, BSPLINE_SAMPLE_F64, 0, 0
    };
    bspline_cpu *cpu = bspline_cpu_new (1);
    FILE *f = fopen (image_file, "rb");
    if (!src || !dst || !cpu || !f || fread (src, sizeof (double), n_in, f)
        != n_in) {
      fprintf (stderr, "projection-tool: cannot read %s\n", image_file);
      return 1;
    }
    fclose (f);
    if (bspline_cpu_execute (cpu, plan, &s, &d) != BSPLINE_OK) {
      printf ("%s\n", bspline_cpu_last_error (cpu));
      return 2;
    }
    if (!write_doubles (result_file, dst, n_out))
      return 1;
    bspline_cpu_free (cpu);
    free (src);
    free (dst);
  }
  bspline_plan_free (plan);
  return 0;
}
