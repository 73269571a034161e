/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bspline-geometry.h: the geometry contract of the bsplinewarp element, as
 * pure functions that build the matrices the engines run.
 *
 * Contract (all in luma pixel coordinates: pixel (i, j) covers
 * [i, i+1) x [j, j+1), x right, y down):
 *
 *  1. The input frame (src_width x src_height) is reoriented exactly by
 *     `orientation` (90-degree steps and flips; no interpolation).
 *  2. The caps' scaling maps the reoriented frame's extent onto the
 *     rectangle `rect` of the output frame: the whole output frame, or the
 *     part of it left between the borders that keep the display aspect
 *     ratio (add-borders).
 *  3. The geometry transform is applied about the pivot
 *     P = (pivot_x * dst_width, pivot_y * dst_height):
 *       q = P + t + zoom * R(rotation) (p - P)
 *     with R the rotation by `rotation` degrees, clockwise on screen (y
 *     down), and t = (translate_x, translate_y) in output pixels; or, when
 *     use_matrix is set, q = P + M (p - P) in homogeneous coordinates with
 *     the 3x3 row-major forward matrix M (rotation, zoom and translation are
 *     then ignored).
 *
 * The forward map (2 after 3, "the warp") therefore takes reoriented input
 * pixel coordinates to output pixel coordinates; the output pixel centred
 * at (u + 0.5, v + 0.5) is the input sampled at the inverse image of that
 * centre.
 *
 * Before step 1, an optional lens stage (bspline-stage.h) turns the input
 * frame into the view of a pinhole camera without distortion
 * (lens_distort 0: the input is distorted, the output is not) or the
 * reverse (lens_distort 1).  Its camera matrices follow OpenCV: (fx, fy,
 * cx, cy) with the centre of the first pixel at 0, on the frames' own
 * axes before step 1 (the camera's sensor axes); `camera` is that of the
 * distorted frame in its pixels, `new_camera` that of the undistorted
 * frame in its pixels.  Unset, the new camera is `camera` carried through
 * steps 1 and 2 (the caps' scaling), or fitted (lens_fit, as
 * cv::getOptimalNewCameraMatrix).  Step 3 then applies to the output as
 * it does without a lens.
 *
 * In the same place, instead of a lens, an STMap stage (bspline-stmap.h)
 * may remap the input frame: its map lies over the input frame as
 * received (before step 1) and must have the frame's aspect ratio, within
 * one map sample; the output pixel's inverse image under steps 3, 2 and 1
 * is looked up in it.
 *
 * In the same place again, a projection stage (bspline-projection.h) maps
 * the output, as a view of the sphere (its normalised position over the
 * scaling rectangle of step 2), to the input frame through the sphere;
 * step 3 then applies to the output as it does without it.
 *
 * Planes with subsampled chroma have their own pixel grid.  A plane pixel
 * coordinate c maps to the luma pixel coordinate s * c + o on each axis,
 * with s the subsampling factor and o the siting offset below; a plane's
 * matrix is the frame's matrix conjugated by that map.
 */
#ifndef BSPLINE_GEOMETRY_H
#define BSPLINE_GEOMETRY_H

#include "bspline.h"
#include "bspline-orient.h"
#include "bspline-projection-setup.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct
{
  int src_width, src_height;    /* input frame, luma samples */
  int dst_width, dst_height;    /* output frame, luma samples */
  bspline_orientation orientation;      /* step 1 */
  double rect_x, rect_y, rect_width, rect_height;       /* step 2 */
  double rotation;              /* degrees, positive = clockwise */
  double zoom;
  double translate_x, translate_y;      /* output pixels */
  double pivot_x, pivot_y;      /* fractions of the output frame */
  int use_matrix;
  double matrix[9];             /* forward, row-major, about the pivot */
  /* the lens stage (above) */
  int lens_model;               /* bspline_lens_model; NONE: no stage */
  int lens_distort;             /* 0: undistort the input; 1: distort */
  double camera[4];             /* fx, fy, cx, cy of the distorted frame */
  double distortion[BSPLINE_LENS_MAX_COEFFS];   /* OpenCV's order */
  int n_distortion;             /* coefficients given (the rest are 0) */
  int new_camera_set;
  double new_camera[4];         /* of the undistorted frame */
  int lens_fit;                 /* unset new camera: 0 scaled; 1 fitted */
  double lens_fit_alpha;        /* 0: no border shows; 1: all input */
  /* undistorting: 0, output points past the model's fold are an error; 1,
   * they are the fill (bsplinestabilize, whose corrections may move the
   * frame's corners there) */
  int lens_fill_fold;
  /* lens_model BSPLINE_LENS_STMAP: the map (borrowed; the plan takes its
   * own reference), NULL where the element has not loaded it yet */
  const struct bspline_stmap *stmap;
  /* a projection stage (bspline-projection-setup.h) in the lens's place,
   * on the frame as received: its output spans the caps' scaling
   * rectangle; it takes no lens, STMap or reorientation beside it */
  int projection_set;
  bspline_projection_params projection;
} bspline_geometry;

/* How the samples of one plane sit on the luma grid: plane pixel coordinate
 * c maps to luma pixel coordinate sub * c + offset on each axis. */
typedef struct
{
  int sub_x, sub_y;             /* subsampling factors: 1, 2, 4 */
  double offset_x, offset_y;    /* luma pixels */
} bspline_plane_grid;

/* The identity geometry between the two frames: no reorientation, the whole
 * output frame as the scaling rectangle, rotation 0, zoom 1, no translation,
 * pivot at the centre, no matrix. */
BSPLINE_API
void bspline_geometry_init (bspline_geometry * geometry, int src_width,
    int src_height, int dst_width, int dst_height);

/* Size of the input frame after step 1. */
BSPLINE_API
void bspline_geometry_oriented_size (const bspline_geometry * geometry,
    int *width, int *height);

/* The warp (steps 2 and 3): reoriented input pixel coordinates -> output
 * pixel coordinates.  Fails with BSPLINE_ERROR_INVALID_TRANSFORM when it is
 * not finite or not invertible. */
BSPLINE_API
bspline_status bspline_geometry_warp (const bspline_geometry * geometry,
    double warp[9], char *msg, size_t msg_len);

/* 1 when the warp is exactly the identity and the reoriented input has the
 * output's size: the output is the input reoriented (or copied), with no
 * interpolation. */
BSPLINE_API
int bspline_geometry_is_pure_orientation (const bspline_geometry * geometry);

/* Siting offset of a plane axis subsampled by `factor` (1 for no
 * subsampling): with sample i of the plane centred on plane coordinate
 * i + 0.5,
 *  - centred siting (JPEG, GStreamer's chroma-site "jpeg" or unknown): the
 *    sample is the centre of its factor luma samples, luma coordinate
 *    factor * (i + 0.5): offset 0;
 *  - co-sited (GStreamer's H_COSITED / V_COSITED flags; MPEG-2 "left" is
 *    H_COSITED): the sample sits on the centre of the first luma sample,
 *    luma coordinate factor * i + 0.5: offset -(factor - 1) / 2, e.g. -0.5
 *    for 4:2:0 and 4:2:2 horizontally. */
BSPLINE_API
double bspline_plane_grid_offset (int factor, int cosited);

/* 1 when step 1 moves this plane's samples exactly, plane by plane (always
 * unless the orientation swaps the axes of a plane subsampled differently
 * along x and y, e.g. 4:2:2 chroma rotated by 90 degrees). */
BSPLINE_API
int bspline_geometry_plane_orients_exactly (const bspline_geometry *
    geometry, const bspline_plane_grid * grid);

/* The inverse matrix of one plane: output plane pixel coordinates -> input
 * plane pixel coordinates, for bspline_plan_new.  Step 1 is taken plane by
 * plane where bspline_geometry_plane_orients_exactly (as videoflip does: the
 * siting flags keep their meaning in the reoriented frame), and through the
 * luma grid otherwise. */
BSPLINE_API
bspline_status bspline_geometry_plane_inverse (const bspline_geometry *
    geometry, const bspline_plane_grid * grid, double inverse[9], char *msg,
    size_t msg_len);

/* The map of one plane with the lens stage: `inverse` takes output plane
 * pixel coordinates to the lens's normalised coordinates, and `lens` (its
 * model, direction, coefficients and `post` onto input plane pixels) is
 * ready for bspline_plan_new_lens.  Without a lens stage, lens->model is
 * BSPLINE_LENS_NONE and inverse is bspline_geometry_plane_inverse's.
 * Fails on camera matrices that are not finite or have fx or fy <= 0,
 * coefficients that are not finite or absurd, and a fit that fails. */
BSPLINE_API
bspline_status bspline_geometry_plane_map (const bspline_geometry *
    geometry, const bspline_plane_grid * grid, double inverse[9],
    bspline_lens * lens, char *msg, size_t msg_len);

/* 1 when the frame's map is the caps' scaling alone, as videoscale's:
 * no reorientation, no lens or STMap stage, and the warp is
 * diag (dst_width / src_width, dst_height / src_height) with no offset
 * (no borders, rotation, zoom, translation or matrix), to 1e-9 of an
 * output pixel over the frame. */
BSPLINE_API
int bspline_geometry_is_pure_scaling (const bspline_geometry * geometry);

/* Points through the whole geometry of a frame, on the luma grid, for what
 * the sampler does not see: metas and navigation events.  `inverse` and
 * `lens` are bspline_geometry_plane_map's for the luma grid, with the lens
 * stage prepared as a plan prepares it (its fold), so that map_point is
 * the sampler's own evaluation (bspline_stage_map_point); `seed`, input
 * luma -> output luma, starts unmap_point's iteration.  An STMap stage
 * borrows the geometry's map: it must outlive the points. */
typedef struct
{
  double inverse[9];
  bspline_lens lens;            /* model BSPLINE_LENS_NONE: no stage */
  double seed[9];
} bspline_geometry_points;

/* unmap_point's stopping rule: the point it returns maps back (map_point)
 * to within this many input pixels of the point asked for, times
 * (1 + |x| + |y|) (the lens solver's own residual, BSPLINE_LENS_TOL of a
 * focal length, is far below it). */
#define BSPLINE_GEOMETRY_UNMAP_TOL 1e-9
#define BSPLINE_GEOMETRY_UNMAP_MAX_ITER 100

/* Prepares the points of a geometry; fails where
 * bspline_geometry_plane_map or the lens stage's preparation fails (the
 * frame would fail the same way). */
BSPLINE_API
bspline_status bspline_geometry_points_init (const bspline_geometry *
    geometry, bspline_geometry_points * points, char *msg, size_t msg_len);

/* Output luma point (u, v) -> input luma point (x, y), continuous (pixel
 * (i, j) covers [i, i+1) x [j, j+1)): the point the sampler interpolates
 * for an output pixel centred there.  Returns 0 where there is none
 * (beyond a perspective's horizon, past a lens's fold: the fill shows). */
BSPLINE_API
int bspline_geometry_map_point (const bspline_geometry_points * points,
    double u, double v, double *x, double *y);

/* Input luma point (x, y) -> output luma point (u, v): the inverse of
 * map_point.  Without a stage, the inverse homography; with a lens or
 * STMap stage, damped Newton on map_point (its Jacobian by the chain rule,
 * the stage's times the homography's) from the answer that treats the
 * stage as the identity (a lens's normalised coordinates as undistorted;
 * an STMap as the identity map), to BSPLINE_GEOMETRY_UNMAP_TOL.  Returns 0
 * where it finds no such point: behind a perspective's horizon, outside
 * what the stage reaches, or no convergence. */
BSPLINE_API
int bspline_geometry_unmap_point (const bspline_geometry_points * points,
    double x, double y, double *u, double *v);

#ifdef __cplusplus
}
#endif
#endif /* BSPLINE_GEOMETRY_H */
