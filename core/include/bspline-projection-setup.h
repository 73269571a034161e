/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bspline-projection-setup.h: a projection stage (bspline-projection.h)
 * from ffmpeg v360's parameters, by the same names and meanings, so that a
 * v360 command line translates property by property (docs/projections.md):
 * input and output projection, the view's yaw, pitch and roll (degrees,
 * v360's rotation order "ypr") and each side's fields of view (degrees;
 * v360's h_fov, v_fov for the output, ih_fov, iv_fov for the input; 0,
 * the projection's default, as ffmpeg 5.1's v360 has them; for pannini,
 * h_fov is v360's pannini parameter). */
#ifndef BSPLINE_PROJECTION_SETUP_H
#define BSPLINE_PROJECTION_SETUP_H

#include "bspline.h"
#include "bspline-projection.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct
{
  int in, out;                  /* bspline_projection_type */
  double yaw, pitch, roll;      /* degrees */
  double h_fov, v_fov;          /* output, degrees */
  double ih_fov, iv_fov;        /* input, degrees */
} bspline_projection_params;

/* v360's defaults: equirect in, c3x2 out, the projections' default
 * fields of view (0), no rotation. */
BSPLINE_API
void bspline_projection_params_init (bspline_projection_params * params);

/* The field of view a projection takes at 0 (ffmpeg 5.1's v360): flat and
 * cylindrical 90 x 45 degrees; fisheye, dfisheye, equisolid, sg and og
 * 180 x 180; the others 360 x 180 (equirect: the whole sphere; the rest
 * take no field of view). */
BSPLINE_API
void bspline_projection_default_fov (int type, double *h_fov, double *v_fov);

/* v360's name of a type (the first of its names), NULL for none. */
BSPLINE_API
const char *bspline_projection_type_name (int type);

/* The type of one of v360's names or aliases ("e", "equirect", "he",
 * "hequirect", "c3x2", "c6x1", "c1x6", "eac", "flat", "rectilinear",
 * "gnomonic", "fisheye", "equisolid", "sg", "og", "dfisheye",
 * "cylindrical", "pannini", "mercator"); -1 for none. */
BSPLINE_API
int bspline_projection_type_from_name (const char *name);

/* The view's rotation (output direction -> input direction) for yaw,
 * pitch and roll in degrees: Yaw Pitch Roll, v360's matrices. */
BSPLINE_API
void bspline_projection_rotation (double yaw, double pitch, double roll,
    double rotation[9]);

/* The stage for frames of these sizes (pixels).  Fails with
 * BSPLINE_ERROR_INVALID_ARGUMENT on an unknown type, a field of view out
 * of the projection's range (the message gives it) or an angle that is
 * not finite. */
BSPLINE_API
bspline_status bspline_projection_setup (const bspline_projection_params *
    params, int in_width, int in_height, int out_width, int out_height,
    bspline_projection * proj, char *msg, size_t msg_len);

#ifdef __cplusplus
}
#endif
#endif /* BSPLINE_PROJECTION_SETUP_H */
