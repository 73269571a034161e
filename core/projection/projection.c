/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* projection.c: a projection stage set up from v360's parameters
 * (bspline-projection.h holds the maps themselves, for both engines): the
 * names, the fields of view checked and turned into each projection's
 * range, and the view's rotation. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bspline.h"
#include "bspline-projection-setup.h"
#include "base.h"

static const struct
{
  const char *name;
  int type;
} projection_names[] = {
  /* the first name of a type is its own (bspline_projection_type_name) */
  {"equirect", BSPLINE_PROJECTION_EQUIRECT},
  {"e", BSPLINE_PROJECTION_EQUIRECT},
  {"hequirect", BSPLINE_PROJECTION_HEQUIRECT},
  {"he", BSPLINE_PROJECTION_HEQUIRECT},
  {"c3x2", BSPLINE_PROJECTION_CUBEMAP_3X2},
  {"c6x1", BSPLINE_PROJECTION_CUBEMAP_6X1},
  {"c1x6", BSPLINE_PROJECTION_CUBEMAP_1X6},
  {"eac", BSPLINE_PROJECTION_EAC},
  {"flat", BSPLINE_PROJECTION_FLAT},
  {"rectilinear", BSPLINE_PROJECTION_FLAT},
  {"gnomonic", BSPLINE_PROJECTION_FLAT},
  {"fisheye", BSPLINE_PROJECTION_FISHEYE},
  {"equisolid", BSPLINE_PROJECTION_EQUISOLID},
  {"sg", BSPLINE_PROJECTION_STEREOGRAPHIC},
  {"og", BSPLINE_PROJECTION_ORTHOGRAPHIC},
  {"dfisheye", BSPLINE_PROJECTION_DUAL_FISHEYE},
  {"cylindrical", BSPLINE_PROJECTION_CYLINDRICAL},
  {"pannini", BSPLINE_PROJECTION_PANNINI},
  {"mercator", BSPLINE_PROJECTION_MERCATOR},
};

#define N_NAMES ((int) (sizeof (projection_names) / sizeof (projection_names[0])))

const char *
bspline_projection_type_name (int type)
{
  int i;
  for (i = 0; i < N_NAMES; i++)
    if (projection_names[i].type == type)
      return projection_names[i].name;
  return NULL;
}

int
bspline_projection_type_from_name (const char *name)
{
  int i;
  if (!name)
    return -1;
  for (i = 0; i < N_NAMES; i++)
    if (strcmp (projection_names[i].name, name) == 0)
      return projection_names[i].type;
  return -1;
}

void
bspline_projection_params_init (bspline_projection_params * params)
{
  memset (params, 0, sizeof (*params));
  /* v360's defaults */
  params->in = BSPLINE_PROJECTION_EQUIRECT;
  params->out = BSPLINE_PROJECTION_CUBEMAP_3X2;
}

void
bspline_projection_default_fov (int type, double *h_fov, double *v_fov)
{
  /* ffmpeg 5.1's v360 (its fields of view at 0) */
  switch (type) {
    case BSPLINE_PROJECTION_FLAT:
    case BSPLINE_PROJECTION_CYLINDRICAL:
      *h_fov = 90.0;
      *v_fov = 45.0;
      break;
    case BSPLINE_PROJECTION_EQUISOLID:
    case BSPLINE_PROJECTION_ORTHOGRAPHIC:
    case BSPLINE_PROJECTION_STEREOGRAPHIC:
    case BSPLINE_PROJECTION_DUAL_FISHEYE:
    case BSPLINE_PROJECTION_FISHEYE:
      *h_fov = *v_fov = 180.0;
      break;
    default:
      *h_fov = 360.0;
      *v_fov = 180.0;
      break;
  }
}

/* The side's ranges from its fields of view (bspline-projection.h), or an
 * error that names the limit. */
static bspline_status
projection_side (bspline_projection_side * side, int type, double h_fov,
    double v_fov, int width, int height, const char *which, char *msg,
    size_t msg_len)
{
  const double deg = BSPLINE_PROJECTION_PI / 180.0;
  /* the fields of view each projection takes: (0, h_hi] or (0, h_hi)
   * where open, the same for v */
  double h_hi = 360.0, v_hi = 360.0;
  int h_open = 0, v_open = 0, uses_v = 1;

  memset (side, 0, sizeof (*side));
  if (!bspline_projection_type_name (type)) {
    bspline_set_error (msg, msg_len, "unknown %s projection %d", which, type);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (h_fov == 0.0 || v_fov == 0.0) {
    double h, v;
    bspline_projection_default_fov (type, &h, &v);
    h_fov = h_fov == 0.0 ? h : h_fov;
    v_fov = v_fov == 0.0 ? v : v_fov;
  }
  if (width < 1 || height < 1) {
    bspline_set_error (msg, msg_len, "the %s projection's frame is %dx%d",
        which, width, height);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  side->type = type;
  side->width = width;
  side->height = height;
  switch (type) {
    case BSPLINE_PROJECTION_FLAT:
      h_hi = v_hi = 180.0;
      h_open = v_open = 1;
      break;
    case BSPLINE_PROJECTION_STEREOGRAPHIC:
      h_open = v_open = 1;
      break;
    case BSPLINE_PROJECTION_ORTHOGRAPHIC:
      h_hi = v_hi = 180.0;
      break;
    case BSPLINE_PROJECTION_EQUIRECT:
      v_hi = 180.0;
      break;
    case BSPLINE_PROJECTION_CYLINDRICAL:
      v_hi = 180.0;
      v_open = 1;
      break;
    case BSPLINE_PROJECTION_PANNINI:
      uses_v = 0;
      break;
    case BSPLINE_PROJECTION_FISHEYE:
    case BSPLINE_PROJECTION_DUAL_FISHEYE:
    case BSPLINE_PROJECTION_EQUISOLID:
      break;
    default:
      return BSPLINE_OK;        /* a fixed extent: no field of view */
  }
  if (!(h_fov > 0.0 && (h_open ? h_fov < h_hi : h_fov <= h_hi))) {
    bspline_set_error (msg, msg_len, "the %s projection %s takes %s in "
        "(0, %g%s, not %g", which, bspline_projection_type_name (type),
        type == BSPLINE_PROJECTION_PANNINI ? "a pannini parameter (h-fov)" :
        "a horizontal field of view", h_hi, h_open ? ")" : "]", h_fov);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (uses_v && !(v_fov > 0.0 && (v_open ? v_fov < v_hi : v_fov <= v_hi))) {
    bspline_set_error (msg, msg_len, "the %s projection %s takes a "
        "vertical field of view in (0, %g%s, not %g", which,
        bspline_projection_type_name (type), v_hi, v_open ? ")" : "]", v_fov);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  switch (type) {
    case BSPLINE_PROJECTION_FLAT:
      side->range_x = tan (0.5 * h_fov * deg);
      side->range_y = tan (0.5 * v_fov * deg);
      break;
    case BSPLINE_PROJECTION_STEREOGRAPHIC:
      side->range_x = tan (0.25 * h_fov * deg);
      side->range_y = tan (0.25 * v_fov * deg);
      break;
    case BSPLINE_PROJECTION_EQUISOLID:
      side->range_x = sin (0.25 * h_fov * deg);
      side->range_y = sin (0.25 * v_fov * deg);
      break;
    case BSPLINE_PROJECTION_ORTHOGRAPHIC:
      side->range_x = sin (0.5 * h_fov * deg);
      side->range_y = sin (0.5 * v_fov * deg);
      break;
    case BSPLINE_PROJECTION_CYLINDRICAL:
      side->range_x = 0.5 * h_fov * deg;
      side->range_y = tan (0.5 * v_fov * deg);
      break;
    case BSPLINE_PROJECTION_EQUIRECT:
      side->range_x = 0.5 * h_fov * deg;
      side->range_y = 0.5 * v_fov * deg;
      break;
    case BSPLINE_PROJECTION_PANNINI:
      side->range_x = h_fov;
      side->range_y = 1.0;
      break;
    default:                   /* fisheye, dfisheye: equidistant */
      side->range_x = 0.5 * h_fov * deg;
      side->range_y = 0.5 * v_fov * deg;
      break;
  }
  return BSPLINE_OK;
}

void
bspline_projection_rotation (double yaw, double pitch, double roll,
    double rotation[9])
{
  const double deg = BSPLINE_PROJECTION_PI / 180.0;
  double cy = cos (yaw * deg), sy = sin (yaw * deg);
  double cp = cos (pitch * deg), sp = sin (pitch * deg);
  double cr = cos (roll * deg), sr = sin (roll * deg);
  /* v360's rotation matrices, applied in its default order "ypr":
   * R = Yaw Pitch Roll, input direction = R output direction */
  double Y[9] = { cy, 0.0, sy, 0.0, 1.0, 0.0, -sy, 0.0, cy };
  double P[9] = { 1.0, 0.0, 0.0, 0.0, cp, -sp, 0.0, sp, cp };
  double Rl[9] = { cr, -sr, 0.0, sr, cr, 0.0, 0.0, 0.0, 1.0 };
  double YP[9];

  bspline_matrix_multiply (Y, P, YP);
  bspline_matrix_multiply (YP, Rl, rotation);
}

bspline_status
bspline_projection_setup (const bspline_projection_params * params,
    int in_width, int in_height, int out_width, int out_height,
    bspline_projection * proj, char *msg, size_t msg_len)
{
  bspline_status status;

  if (!params || !proj) {
    bspline_set_error (msg, msg_len, "bspline_projection_setup: a missing "
        "argument");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  memset (proj, 0, sizeof (*proj));
  if (!(isfinite (params->yaw) && isfinite (params->pitch)
          && isfinite (params->roll))) {
    bspline_set_error (msg, msg_len, "the view's yaw, pitch and roll must "
        "be finite: %g, %g, %g", params->yaw, params->pitch, params->roll);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  status = projection_side (&proj->in, params->in, params->ih_fov,
      params->iv_fov, in_width, in_height, "input", msg, msg_len);
  if (status == BSPLINE_OK)
    status = projection_side (&proj->out, params->out, params->h_fov,
        params->v_fov, out_width, out_height, "output", msg, msg_len);
  if (status != BSPLINE_OK)
    return status;
  bspline_projection_rotation (params->yaw, params->pitch, params->roll,
      proj->rotation);
  return BSPLINE_OK;
}
