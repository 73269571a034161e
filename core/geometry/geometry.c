/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* geometry.c: the element's geometry contract (see bspline-geometry.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bspline-geometry.h"
#include "bspline-lens-fit.h"
#include "bspline-stmap.h"
#include "lens.h"

#define GEOMETRY_PI 3.14159265358979323846

void
bspline_geometry_init (bspline_geometry * geometry, int src_width,
    int src_height, int dst_width, int dst_height)
{
  memset (geometry, 0, sizeof (*geometry));
  geometry->src_width = src_width;
  geometry->src_height = src_height;
  geometry->dst_width = dst_width;
  geometry->dst_height = dst_height;
  geometry->orientation = BSPLINE_ORIENT_IDENTITY;
  geometry->rect_width = dst_width;
  geometry->rect_height = dst_height;
  geometry->zoom = 1.0;
  geometry->pivot_x = 0.5;
  geometry->pivot_y = 0.5;
  bspline_matrix_identity (geometry->matrix);
}

void
bspline_geometry_oriented_size (const bspline_geometry * geometry,
    int *width, int *height)
{
  int swap = bspline_orientation_swaps_axes (geometry->orientation);

  *width = swap ? geometry->src_height : geometry->src_width;
  *height = swap ? geometry->src_width : geometry->src_height;
}

/* sin and cos of an angle in degrees, exact at multiples of 90 degrees so
 * that rotation=90 or 180 gives a matrix of 0 and +-1 (sin (pi) is 1.2e-16
 * in double, which would turn an exact quarter turn into an
 * interpolation). */
static void
geometry_sin_cos_degrees (double degrees, double *s, double *c)
{
  double r = fmod (degrees, 360.0);

  if (r < 0.0)
    r += 360.0;
  if (r == 0.0) {
    *s = 0.0;
    *c = 1.0;
  } else if (r == 90.0) {
    *s = 1.0;
    *c = 0.0;
  } else if (r == 180.0) {
    *s = 0.0;
    *c = -1.0;
  } else if (r == 270.0) {
    *s = -1.0;
    *c = 0.0;
  } else {
    *s = sin (r * (GEOMETRY_PI / 180.0));
    *c = cos (r * (GEOMETRY_PI / 180.0));
  }
}

static void
geometry_translation (double tx, double ty, double m[9])
{
  bspline_matrix_identity (m);
  m[2] = tx;
  m[5] = ty;
}

/* Steps 2 (scaling) and 3 (about_pivot) of the contract, apart; 0 where
 * the frame sizes are not positive. */
static int
geometry_steps (const bspline_geometry * geometry, double scaling[9],
    double about_pivot[9])
{
  double transform[9], to_pivot[9], from_pivot[9], tmp[9];
  double px = geometry->pivot_x * geometry->dst_width;
  double py = geometry->pivot_y * geometry->dst_height;
  int ow, oh;

  bspline_geometry_oriented_size (geometry, &ow, &oh);
  if (ow <= 0 || oh <= 0 || geometry->dst_width <= 0
      || geometry->dst_height <= 0)
    return 0;

  /* Step 2: the reoriented extent [0, ow] x [0, oh] onto the rectangle. */
  bspline_matrix_identity (scaling);
  scaling[0] = geometry->rect_width / ow;
  scaling[2] = geometry->rect_x;
  scaling[4] = geometry->rect_height / oh;
  scaling[5] = geometry->rect_y;

  /* Step 3: q = P + t + A (p - P), A = zoom R or the user's matrix. */
  if (geometry->use_matrix) {
    int k;

    /* M and -M are the same homography, but the sign says which side of
     * the horizon is in front (w > 0), and the samplers fill the other
     * (bspline_map_point): the sign that puts the pivot in front, w = M[8]
     * there, so that the picture never vanishes for it. */
    for (k = 0; k < 9; k++)
      transform[k] = geometry->matrix[8] < 0.0 ? -geometry->matrix[k] :
          geometry->matrix[k];
    geometry_translation (px, py, to_pivot);
  } else {
    double s, c;

    geometry_sin_cos_degrees (geometry->rotation, &s, &c);
    bspline_matrix_identity (transform);
    /* y down: (1, 0) turns towards (c, s), i.e. clockwise on screen */
    transform[0] = geometry->zoom * c;
    transform[1] = -geometry->zoom * s;
    transform[3] = geometry->zoom * s;
    transform[4] = geometry->zoom * c;
    geometry_translation (px + geometry->translate_x,
        py + geometry->translate_y, to_pivot);
  }
  geometry_translation (-px, -py, from_pivot);

  bspline_matrix_multiply (transform, from_pivot, tmp);
  bspline_matrix_multiply (to_pivot, tmp, about_pivot);
  return 1;
}

bspline_status
bspline_geometry_warp (const bspline_geometry * geometry, double warp[9],
    char *msg, size_t msg_len)
{
  double scaling[9], about_pivot[9], warp_inv[9];

  if (!geometry_steps (geometry, scaling, about_pivot)) {
    if (msg)
      snprintf (msg, msg_len, "frame sizes must be positive (%dx%d -> %dx%d)",
          geometry->src_width, geometry->src_height, geometry->dst_width,
          geometry->dst_height);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  bspline_matrix_multiply (about_pivot, scaling, warp);

  if (!bspline_matrix_is_finite (warp)) {
    if (msg)
      snprintf (msg, msg_len, "the geometry gives a matrix with an infinite "
          "or NaN entry (check the matrix, zoom, translation and pivot)");
    return BSPLINE_ERROR_INVALID_TRANSFORM;
  }
  if (!bspline_matrix_invert (warp, warp_inv)) {
    if (msg)
      snprintf (msg, msg_len, "the geometry is not invertible: the matrix "
          "maps the frame onto a line or a point (singular 3x3 matrix)");
    return BSPLINE_ERROR_INVALID_TRANSFORM;
  }
  return BSPLINE_OK;
}

int
bspline_geometry_is_pure_orientation (const bspline_geometry * geometry)
{
  double warp[9], identity[9];
  int ow, oh;

  bspline_geometry_oriented_size (geometry, &ow, &oh);
  if (ow != geometry->dst_width || oh != geometry->dst_height
      || geometry->lens_model != BSPLINE_LENS_NONE || geometry->projection_set)
    return 0;
  if (bspline_geometry_warp (geometry, warp, NULL, 0) != BSPLINE_OK)
    return 0;
  bspline_matrix_identity (identity);
  return memcmp (warp, identity, sizeof (warp)) == 0;
}

double
bspline_plane_grid_offset (int factor, int cosited)
{
  return cosited ? -0.5 * (factor - 1) : 0.0;
}

int
bspline_geometry_plane_orients_exactly (const bspline_geometry * geometry,
    const bspline_plane_grid * grid)
{
  return grid->sub_x == grid->sub_y
      || !bspline_orientation_swaps_axes (geometry->orientation);
}

static void
geometry_grid_matrix (const bspline_plane_grid * grid, double m[9])
{
  bspline_matrix_identity (m);
  m[0] = grid->sub_x;
  m[2] = grid->offset_x;
  m[4] = grid->sub_y;
  m[5] = grid->offset_y;
}

/* Output plane pixels -> reoriented input luma pixels (steps 3 and 2
 * inverted) in out, and luma -> plane pixels of grid in to_plane; fails
 * where the geometry's matrices do (bspline_geometry_warp). */
static bspline_status
geometry_output_to_reoriented (const bspline_geometry * geometry,
    const bspline_plane_grid * grid, double out[9], double to_plane[9],
    char *msg, size_t msg_len)
{
  double warp[9], warp_inv[9], to_luma[9];
  bspline_status status;

  status = bspline_geometry_warp (geometry, warp, msg, msg_len);
  if (status != BSPLINE_OK)
    return status;
  bspline_matrix_invert (warp, warp_inv);
  geometry_grid_matrix (grid, to_luma);
  bspline_matrix_invert (to_luma, to_plane);
  bspline_matrix_multiply (warp_inv, to_luma, out);
  return BSPLINE_OK;
}

/* reoriented input luma (after step 1) -> input luma: m after
 * orientation^-1, into out. */
static void
geometry_to_input_luma (const bspline_geometry * geometry, const double m[9],
    double out[9])
{
  double orient[9], orient_inv[9];

  bspline_orientation_matrix (geometry->orientation, geometry->src_width,
      geometry->src_height, orient);
  bspline_matrix_invert (orient, orient_inv);
  bspline_matrix_multiply (orient_inv, m, out);
}

bspline_status
bspline_geometry_plane_inverse (const bspline_geometry * geometry,
    const bspline_plane_grid * grid, double inverse[9], char *msg,
    size_t msg_len)
{
  double to_plane[9], orient[9], orient_inv[9], tmp[9], tmp2[9];
  bspline_status status;

  if (grid->sub_x <= 0 || grid->sub_y <= 0) {
    if (msg)
      snprintf (msg, msg_len, "plane subsampling factors must be positive");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  /* output plane -> output luma -> reoriented input luma */
  status = geometry_output_to_reoriented (geometry, grid, tmp, to_plane, msg,
      msg_len);
  if (status != BSPLINE_OK)
    return status;
  if (bspline_geometry_plane_orients_exactly (geometry, grid)) {
    /* -> reoriented input plane -> input plane: the plane is reoriented as
     * an image of its own size, like videoflip does. */
    int plane_w = (geometry->src_width + grid->sub_x - 1) / grid->sub_x;
    int plane_h = (geometry->src_height + grid->sub_y - 1) / grid->sub_y;

    bspline_orientation_matrix (geometry->orientation, plane_w, plane_h,
        orient);
    bspline_matrix_invert (orient, orient_inv);
    bspline_matrix_multiply (to_plane, tmp, tmp2);
    bspline_matrix_multiply (orient_inv, tmp2, inverse);
  } else {
    /* -> input luma -> input plane */
    geometry_to_input_luma (geometry, tmp, tmp2);
    bspline_matrix_multiply (to_plane, tmp2, inverse);
  }
  return BSPLINE_OK;
}

/* OpenCV's camera matrix (fx, fy, cx, cy; first pixel centre at 0) as the
 * map from normalised coordinates to our pixel coordinates (first pixel
 * centre at 0.5). */
static void
geometry_camera_matrix (const double c[4], double m[9])
{
  bspline_matrix_identity (m);
  m[0] = c[0];
  m[2] = c[2] + 0.5;
  m[4] = c[1];
  m[5] = c[3] + 0.5;
}

/* Why an affine camera matrix m (what bspline_matrix_invert refused) is
 * no camera: an entry that is not finite, a linear part whose determinant
 * overflows or underflows double precision (focal lengths of 1e300 or
 * 1e-300 pixels), or a singular one (a focal length of 0). */
static void
geometry_camera_trouble (const char *what, const double m[9], char *msg,
    size_t msg_len)
{
  double det = m[0] * m[4] - m[1] * m[3];

  if (!bspline_matrix_is_finite (m))
    snprintf (msg, msg_len, "%s has an entry that is not finite", what);
  else if (!isfinite (det) || (det != 0.0 && !isfinite (1.0 / det)))
    snprintf (msg, msg_len, "%s (focal lengths %g and %g pixels, scaled by "
        "the caps) is beyond double precision's range: its determinant "
        "%s", what, m[0], m[4], isfinite (det) ? "underflows" : "overflows");
  else
    snprintf (msg, msg_len, "%s is singular (a focal length of 0?)", what);
}

static bspline_status
geometry_check_camera (const double c[4], const char *name, char *msg,
    size_t msg_len)
{
  if (!isfinite (c[0]) || !isfinite (c[1]) || !isfinite (c[2])
      || !isfinite (c[3]) || !(c[0] > 0.0) || !(c[1] > 0.0)) {
    if (msg)
      snprintf (msg, msg_len, "%s (%g, %g, %g, %g) must be finite with fx "
          "and fy > 0", name, c[0], c[1], c[2], c[3]);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  return BSPLINE_OK;
}

/* The STMap stage's part of bspline_geometry_plane_map: output plane
 * pixels -> (steps 3, 2, 1 inverted) input luma pixels -> map samples;
 * post: the map's fractions of the frame -> input luma -> input plane. */
static bspline_status
geometry_stmap_plane_map (const bspline_geometry * geometry,
    const bspline_plane_grid * grid, double inverse[9], bspline_lens * lens,
    char *msg, size_t msg_len)
{
  double to_plane[9], to_map[9], frame[9], tmp[9], tmp2[9];
  const bspline_stmap *map = geometry->stmap;
  int w = geometry->src_width, h = geometry->src_height, mw, mh;
  bspline_status status;

  if (!map) {
    if (msg)
      snprintf (msg, msg_len, "the STMap stage has no map loaded");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  mw = bspline_stmap_width (map);
  mh = bspline_stmap_height (map);
  if (!bspline_stmap_fits_frame (mw, mh, w, h)) {
    if (msg)
      snprintf (msg, msg_len, "the STMap's %dx%d samples have another "
          "aspect ratio than the %dx%d input frame it lies over (%.6g "
          "against %.6g)", mw, mh, w, h, (double) mw / mh, (double) w / h);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  /* output plane -> output luma -> reoriented input luma -> input luma
   * (as bspline_geometry_plane_inverse, which ends on the input plane)
   * -> map samples */
  status = geometry_output_to_reoriented (geometry, grid, tmp, to_plane, msg,
      msg_len);
  if (status != BSPLINE_OK)
    return status;
  geometry_to_input_luma (geometry, tmp, tmp2);
  bspline_matrix_identity (to_map);
  to_map[0] = (double) mw / w;
  to_map[4] = (double) mh / h;
  bspline_matrix_multiply (to_map, tmp2, inverse);
  bspline_matrix_identity (frame);
  frame[0] = w;
  frame[4] = h;
  bspline_matrix_multiply (to_plane, frame, tmp);
  lens->model = BSPLINE_LENS_STMAP;
  lens->fold = lens->fold_r = INFINITY;
  /* affine: last row 0 0 1, exactly (a product of affine matrices) */
  memcpy (lens->post, tmp, sizeof (lens->post));
  lens->map = bspline_stmap_coefficients (map, NULL);
  lens->map_w = mw;
  lens->map_h = mh;
  lens->stmap = (bspline_stmap *) map;
  if (!bspline_matrix_is_finite (inverse)) {
    if (msg)
      snprintf (msg, msg_len, "the STMap stage's geometry gives a matrix "
          "with an infinite or NaN entry");
    return BSPLINE_ERROR_INVALID_TRANSFORM;
  }
  return BSPLINE_OK;
}

/* The map of one plane with a projection stage (bspline-projection.h):
 * the stage sits where a lens does, on the frame as received; the
 * output's normalised (a, b) span the caps' scaling rectangle (steps 3
 * and 2 inverted, then the reoriented frame's extent onto [-1, 1]^2), and
 * the input's (a', b') the input frame.  Without a rotation or a field of
 * view of its own the stage would be the identity between two flat
 * frames: the plain geometry. */
static bspline_status
geometry_projection_plane_map (const bspline_geometry * geometry,
    const bspline_plane_grid * grid, double inverse[9], bspline_lens * lens,
    char *msg, size_t msg_len)
{
  double out[9], to_plane[9], norm[9], norm_inv[9];
  bspline_status status;

  if (geometry->orientation != BSPLINE_ORIENT_IDENTITY) {
    if (msg)
      snprintf (msg, msg_len, "a projection does not combine with a "
          "reorientation (video-direction): turn the view with roll "
          "instead");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (geometry->lens_model != BSPLINE_LENS_NONE) {
    if (msg)
      snprintf (msg, msg_len, "a projection and a lens or STMap stage do "
          "not combine in one element: put the lens in an element before "
          "it (defer=true)");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  status = bspline_projection_setup (&geometry->projection,
      geometry->src_width, geometry->src_height,
      (int) lround (geometry->rect_width), (int) lround
      (geometry->rect_height), &lens->projection, msg, msg_len);
  if (status != BSPLINE_OK)
    return status;
  status = geometry_output_to_reoriented (geometry, grid, out, to_plane,
      msg, msg_len);
  if (status != BSPLINE_OK)
    return status;
  /* input luma -> normalised: a = 2 x / width - 1 */
  bspline_matrix_identity (norm);
  norm[0] = 2.0 / geometry->src_width;
  norm[2] = -1.0;
  norm[4] = 2.0 / geometry->src_height;
  norm[5] = -1.0;
  bspline_matrix_invert (norm, norm_inv);
  bspline_matrix_multiply (norm, out, inverse);
  bspline_matrix_multiply (to_plane, norm_inv, lens->post);
  lens->model = BSPLINE_LENS_PROJECTION;
  return BSPLINE_OK;
}

bspline_status
bspline_geometry_plane_map (const bspline_geometry * geometry,
    const bspline_plane_grid * grid, double inverse[9], bspline_lens * lens,
    char *msg, size_t msg_len)
{
  double scaling[9], about_pivot[9], about_inv[9], orient[9], orient_out[9];
  double so[9], so_inv[9], cam[9], out_cam[9], out_cam_inv[9], in_cam[9];
  double to_luma[9], to_plane[9], tmp[9], tmp2[9], fit[4];
  int swap = bspline_orientation_swaps_axes (geometry->orientation);
  /* the output frame on the sensor's axes, before step 1 */
  int uw = swap ? geometry->dst_height : geometry->dst_width;
  int uh = swap ? geometry->dst_width : geometry->dst_height;
  int distort = geometry->lens_distort;
  bspline_status status;
  int k;

  memset (lens, 0, sizeof (*lens));
  lens->model = BSPLINE_LENS_NONE;
  if (geometry->projection_set)
    return geometry_projection_plane_map (geometry, grid, inverse, lens, msg,
        msg_len);
  if (geometry->lens_model == BSPLINE_LENS_NONE)
    return bspline_geometry_plane_inverse (geometry, grid, inverse, msg,
        msg_len);
  if (grid->sub_x <= 0 || grid->sub_y <= 0) {
    if (msg)
      snprintf (msg, msg_len, "plane subsampling factors must be positive");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (geometry->lens_model == BSPLINE_LENS_STMAP)
    return geometry_stmap_plane_map (geometry, grid, inverse, lens, msg,
        msg_len);
  status = bspline_lens_validate_coeffs (geometry->lens_model,
      geometry->distortion, geometry->n_distortion, msg, msg_len);
  if (status == BSPLINE_OK)
    status = geometry_check_camera (geometry->camera, "the camera matrix",
        msg, msg_len);
  if (status == BSPLINE_OK && geometry->new_camera_set)
    status = geometry_check_camera (geometry->new_camera,
        "the new camera matrix", msg, msg_len);
  if (status != BSPLINE_OK)
    return status;
  /* the forward matrices are checked there */
  status = bspline_geometry_warp (geometry, tmp, msg, msg_len);
  if (status != BSPLINE_OK)
    return status;
  geometry_steps (geometry, scaling, about_pivot);
  bspline_matrix_invert (about_pivot, about_inv);
  bspline_orientation_matrix (geometry->orientation, geometry->src_width,
      geometry->src_height, orient);
  bspline_orientation_matrix (geometry->orientation, uw, uh, orient_out);
  /* steps 1 and 2: input pixels -> output pixels before step 3 */
  bspline_matrix_multiply (scaling, orient, so);
  if (!bspline_matrix_invert (so, so_inv)) {
    if (msg)
      snprintf (msg, msg_len, "the caps' scaling is singular");
    return BSPLINE_ERROR_INVALID_TRANSFORM;
  }

  /* the undistorted frame's camera where it is not given */
  if (!geometry->new_camera_set && geometry->lens_fit) {
    status = bspline_lens_fit (geometry->lens_model, geometry->camera,
        geometry->distortion, geometry->n_distortion,
        distort ? uw : geometry->src_width,
        distort ? uh : geometry->src_height,
        distort ? geometry->src_width : uw,
        distort ? geometry->src_height : uh, geometry->lens_fit_alpha, fit,
        msg, msg_len);
    if (status != BSPLINE_OK)
      return status;
  }

  geometry_camera_matrix (geometry->camera, cam);
  if (!distort) {
    /* out: the undistorted camera in output pixels (before step 3) */
    if (geometry->new_camera_set || geometry->lens_fit) {
      geometry_camera_matrix (geometry->new_camera_set ?
          geometry->new_camera : fit, tmp);
      bspline_matrix_multiply (orient_out, tmp, out_cam);
    } else
      bspline_matrix_multiply (so, cam, out_cam);
    memcpy (in_cam, cam, sizeof (cam));
  } else {
    /* out: the distorted camera; in: the undistorted one, input pixels */
    bspline_matrix_multiply (orient_out, cam, out_cam);
    if (geometry->new_camera_set || geometry->lens_fit)
      geometry_camera_matrix (geometry->new_camera_set ?
          geometry->new_camera : fit, in_cam);
    else
      bspline_matrix_multiply (so_inv, out_cam, in_cam);
  }
  if (!bspline_matrix_invert (out_cam, out_cam_inv)) {
    if (msg)
      geometry_camera_trouble ("the output's camera matrix", out_cam, msg,
          msg_len);
    return BSPLINE_ERROR_INVALID_TRANSFORM;
  }

  geometry_grid_matrix (grid, to_luma);
  bspline_matrix_invert (to_luma, to_plane);
  /* output plane -> output luma -> before step 3 -> normalised */
  bspline_matrix_multiply (about_inv, to_luma, tmp);
  bspline_matrix_multiply (out_cam_inv, tmp, inverse);
  /* normalised -> input luma -> input plane */
  bspline_matrix_multiply (to_plane, in_cam, tmp2);
  lens->model = geometry->lens_model;
  lens->solve = distort;
  lens->fill_fold = geometry->lens_fill_fold;
  for (k = 0; k < geometry->n_distortion; k++)
    lens->k[k] = geometry->distortion[k];
  /* affine: last row 0 0 1, exactly (a product of affine matrices) */
  memcpy (lens->post, tmp2, sizeof (lens->post));
  if (!bspline_matrix_is_finite (inverse)) {
    if (msg)
      snprintf (msg, msg_len, "the lens geometry gives a matrix with an "
          "infinite or NaN entry");
    return BSPLINE_ERROR_INVALID_TRANSFORM;
  }
  return BSPLINE_OK;
}

int
bspline_geometry_is_pure_scaling (const bspline_geometry * geometry)
{
  const double tol = 1e-9;
  double warp[9], sx, sy, w, h;

  if (geometry->orientation != BSPLINE_ORIENT_IDENTITY
      || geometry->lens_model != BSPLINE_LENS_NONE || geometry->projection_set
      || bspline_geometry_warp (geometry, warp, NULL, 0) != BSPLINE_OK)
    return 0;
  w = geometry->src_width;
  h = geometry->src_height;
  sx = geometry->dst_width / w;
  sy = geometry->dst_height / h;
  /* each entry's effect over the frame, in output pixels */
  return fabs (warp[0] - sx) * w <= tol && fabs (warp[1]) * h <= tol
      && fabs (warp[2]) <= tol && fabs (warp[3]) * w <= tol
      && fabs (warp[4] - sy) * h <= tol && fabs (warp[5]) <= tol
      && warp[6] == 0.0 && warp[7] == 0.0 && warp[8] == 1.0;
}

bspline_status
bspline_geometry_points_init (const bspline_geometry * geometry,
    bspline_geometry_points * points, char *msg, size_t msg_len)
{
  const bspline_plane_grid luma = { 1, 1, 0.0, 0.0 };
  double inverse_inv[9], post[9], post_inv[9], stage[9];
  bspline_lens *lens = &points->lens;
  bspline_status status;

  status = bspline_geometry_plane_map (geometry, &luma, points->inverse,
      lens, msg, msg_len);
  if (status != BSPLINE_OK)
    return status;
  if (!bspline_matrix_invert (points->inverse, inverse_inv)) {
    if (msg)
      snprintf (msg, msg_len, "the geometry's inverse matrix is singular");
    return BSPLINE_ERROR_INVALID_TRANSFORM;
  }
  if (lens->model == BSPLINE_LENS_NONE) {
    memcpy (points->seed, inverse_inv, sizeof (points->seed));
    return BSPLINE_OK;
  }
  /* the fold, as bspline_plan_new_lens finds it for the frame */
  if (lens->model != BSPLINE_LENS_STMAP)
    lens->stmap = NULL;
  status = bspline_lens_prepare (lens, points->inverse, NULL, 0,
      geometry->dst_width, geometry->dst_height, msg, msg_len);
  if (status != BSPLINE_OK)
    return status;
  /* the seed treats the stage as the identity: a lens's normalised
   * coordinates as the undistorted ones (post^-1), an STMap's position in
   * map samples as that fraction of the frame (the identity map) */
  if (!bspline_matrix_invert (lens->post, post_inv)) {
    if (msg)
      geometry_camera_trouble ("the lens stage's camera matrix", lens->post,
          msg, msg_len);
    return BSPLINE_ERROR_INVALID_TRANSFORM;
  }
  bspline_matrix_identity (stage);
  if (lens->model == BSPLINE_LENS_STMAP) {
    stage[0] = lens->map_w;
    stage[4] = lens->map_h;
  }
  bspline_matrix_multiply (stage, post_inv, post);
  bspline_matrix_multiply (inverse_inv, post, points->seed);
  return BSPLINE_OK;
}

int
bspline_geometry_map_point (const bspline_geometry_points * points, double u,
    double v, double *x, double *y)
{
  return bspline_stage_map_point (points->inverse, &points->lens,
      points->lens.model != BSPLINE_LENS_NONE, u, v, x, y);
}

/* map_point and its Jacobian J = d(x, y) / d(u, v) (row-major): the
 * homography's (as bspline_stage_footprint_size has it), times the
 * stage's (bspline_lens_map) where there is one. */
static int
geometry_map_point_jacobian (const bspline_geometry_points * points, double u,
    double v, double *x, double *y, double J[4])
{
  const double *m = points->inverse;
  double nx, ny, H[4], L[4];

  if (!bspline_map_point (m, u, v, &nx, &ny))
    return 0;
  bspline_homography_jacobian (m, u, v, nx, ny, H);
  if (points->lens.model == BSPLINE_LENS_NONE) {
    *x = nx;
    *y = ny;
    memcpy (J, H, sizeof (H));
    return 1;
  }
  if (!bspline_lens_map (&points->lens, nx, ny, x, y, L))
    return 0;
  J[0] = L[0] * H[0] + L[1] * H[2];
  J[1] = L[0] * H[1] + L[1] * H[3];
  J[2] = L[2] * H[0] + L[3] * H[2];
  J[3] = L[2] * H[1] + L[3] * H[3];
  return 1;
}

/* A projection stage's point, unmapped in closed form: input pixels ->
 * (a', b') (post^-1) -> the input projection's direction -> the view's
 * rotation undone (R^T) -> the output projection's (a, b) -> output
 * pixels (inverse^-1).  Newton then only confirms it. */
static int
geometry_projection_unmap (const bspline_geometry_points * points, double x,
    double y, double *u, double *v)
{
  const bspline_projection *proj = &points->lens.projection;
  const double *R = proj->rotation;
  double post_inv[9], inv_inv[9], a, b, a2, b2, e[3], d[3];
  int i;

  if (!bspline_matrix_invert (points->lens.post, post_inv)
      || !bspline_matrix_invert (points->inverse, inv_inv)
      || !bspline_map_point (post_inv, x, y, &a, &b)
      || !bspline_projection_to_direction (&proj->in, a, b, e, NULL))
    return 0;
  /* a point the input projection does not show its direction at (outside
   * a fisheye's field, EAC's pads: the direction's own point is elsewhere)
   * has no output point; the round trip's tolerance is relative, for the
   * far points of a stereographic input (one 16000 px off a 64 px frame
   * failed an absolute 1e-9: test_projection, seed 15) */
  if (!bspline_projection_from_direction (&proj->in, e, &a2, &b2, NULL)
      || !(fabs (a2 - a) + fabs (b2 - b) <= 1e-9 * (1.0 + fabs (a) + fabs (b))))
    return 0;
  for (i = 0; i < 3; i++)
    d[i] = R[i] * e[0] + R[3 + i] * e[1] + R[6 + i] * e[2];
  if (!bspline_projection_from_direction (&proj->out, d, &a, &b, NULL))
    return 0;
  return bspline_map_point (inv_inv, a, b, u, v);
}

int
bspline_geometry_unmap_point (const bspline_geometry_points * points,
    double x, double y, double *u, double *v)
{
  const double *s = points->seed;
  const double tol = BSPLINE_GEOMETRY_UNMAP_TOL * (1.0 + fabs (x) + fabs (y));
  double pu, pv, fx, fy, J[4], res, W;
  int i;

  if (!(isfinite (x) && isfinite (y)))
    return 0;
  if (points->lens.model == BSPLINE_LENS_PROJECTION) {
    if (!geometry_projection_unmap (points, x, y, &pu, &pv))
      return 0;
  } else {
    W = s[6] * x + s[7] * y + s[8];
    if (W == 0.0)
      return 0;
    pu = (s[0] * x + s[1] * y + s[2]) / W;
    pv = (s[3] * x + s[4] * y + s[5]) / W;
  }
  if (!geometry_map_point_jacobian (points, pu, pv, &fx, &fy, J))
    return 0;
  fx -= x;
  fy -= y;
  res = hypot (fx, fy);
  /* Newton on map_point (x, y) = target, each step halved until the
   * residual shrinks at a point that has an image */
  for (i = 0; i < BSPLINE_GEOMETRY_UNMAP_MAX_ITER; i++) {
    double det, du, dv, t = 1.0, tu = pu, tv = pv, tx = 0.0, ty = 0.0,
        tJ[4], tres = res;
    int h;

    if (res <= tol) {
      *u = pu;
      *v = pv;
      return 1;
    }
    det = J[0] * J[3] - J[1] * J[2];
    if (!(det != 0.0 && isfinite (det)))
      return 0;
    du = (J[3] * fx - J[1] * fy) / det;
    dv = (J[0] * fy - J[2] * fx) / det;
    for (h = 0; h < BSPLINE_LENS_MAX_HALVINGS; h++, t *= 0.5) {
      tu = pu - t * du;
      tv = pv - t * dv;
      if (geometry_map_point_jacobian (points, tu, tv, &tx, &ty, tJ)) {
        tres = hypot (tx - x, ty - y);
        if (tres < res)
          break;
      }
    }
    if (h == BSPLINE_LENS_MAX_HALVINGS)
      return 0;
    pu = tu;
    pv = tv;
    fx = tx - x;
    fy = ty - y;
    res = tres;
    memcpy (J, tJ, sizeof (tJ));
  }
  return 0;
}
