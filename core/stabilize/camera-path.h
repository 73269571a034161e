/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* camera-path.h: the L1-optimal camera path (pure C99).
 *
 * Grundmann, Kwatra & Essa, "Auto-directed video stabilization with robust
 * L1 optimal camera paths", CVPR 2011 (below: [GKE11]).  Given the camera
 * path C_t of N frames, the solver finds for every frame the stabilization
 * transform B_t, which maps the crop window into frame t, such that the
 * stabilized path P_t = C_t B_t is made of constant, constant-velocity and
 * constant-acceleration pieces: it minimises w1 |D P| + w2 |D^2 P| +
 * w3 |D^3 P| (L1 norms, [GKE11] sec. 3) while the crop window stays inside
 * every frame and B_t's linear part stays near the identity.  It is one
 * linear program, solved here by a primal-dual interior-point method whose
 * normal equations are banded in time (O(N) per iteration).
 * docs/notes/l1-camera-path.md gives the formulation with its equations,
 * the solver and the timings.
 *
 * Coordinates as everywhere in the project: pixel (i, j) covers [i, i+1) x
 * [j, j+1), x right, y down; an affine map is a bspline_affine (2x3
 * row-major).
 *
 *  - camera[t], C_t: frame t's pixel coordinates -> the reference (world)
 *    coordinates, so that C_(t+1) = C_t F_(t+1) with F_(t+1) the map from
 *    frame t+1 to frame t ([GKE11] sec. 3).  In core/stabilize/stabilize.c's
 *    terms, where the path A_t maps frame 0 to frame t, C_t = A_t^-1.
 *  - stabilization[t], B_t: crop-window coordinates -> frame t's pixel
 *    coordinates.  The crop window is the frame shrunk by `zoom` about its
 *    centre and given in the frame's own pixel coordinates: B_t = I keeps
 *    it centred and still.  The output frame is the crop window scaled up
 *    by `zoom` about the centre, so the output pixel -> input pixel map of
 *    frame t is B_t after that zoom's inverse, and the forward correction
 *    (input -> output, as bspline_stabilize_result's) is
 *    bspline_camera_path_correction's.
 *
 * Not installed.  Included by core/stabilize/stabilize.c and
 * camera-path.c, and by tests/stabilize/test-camera-path.c, for which the
 * functions marked BSPLINE_INTERNAL_API are exported.
 */
#ifndef BSPLINE_CAMERA_PATH_H
#define BSPLINE_CAMERA_PATH_H

#include <stddef.h>
#include "base.h"
#include "bspline.h"
#include "bspline-stabilize.h"

#ifdef __cplusplus
extern "C"
{
#endif

  typedef enum
  {
    /* the optimum, and the crop window inside every frame */
    BSPLINE_CAMERA_PATH_OPTIMAL = 0,
    /* the crop window cannot stay inside every frame: the path is the
     * optimum of the elastic problem (smoothness + crop_penalty per pixel
     * that the crop window pokes out of a frame), the least-violation
     * compromise; `max_violation` says how far out */
    BSPLINE_CAMERA_PATH_INFEASIBLE = 1,
    /* max_iterations reached: the path is the last iterate, which keeps the
     * proximity bounds and is as smooth as the solver got */
    BSPLINE_CAMERA_PATH_ITERATION_LIMIT = 2
  } bspline_camera_path_status;

  typedef struct
  {
    bspline_motion_model model; /* similarity (4 parameters) or affine (6) */
    int width, height;          /* frame size, pixels */
    /* The crop window is the frame divided by zoom about its centre
     * (default 1.1).  With zoom >= 1, B_t = I keeps it inside every frame, so
     * the problem is always feasible; below 1 the window is larger than the
     * frame and fits only where B_t scales it down (by at most max_scale):
     * the problem can be infeasible. */
    double zoom;
    /* Weights of |D P|, |D^2 P|, |D^3 P| ([GKE11] sec. 4: 10, 1, 100). */
    double w1, w2, w3;
    /* Weight of each non-translation parameter of the residual motion
     * against a translation's 1 ([GKE11] sec. 4: 100). */
    double linear_weight;
    /* Proximity bounds on B_t ([GKE11] sec. 3.2), on its linear part
     * [[a, b], [c, d]] (a similarity: d = a, c = -b): |a - 1|, |d - 1| <=
     * max_scale (0.1); |b|, |c| <= max_rotation (0.1); affine only:
     * |b + c| <= max_skew (0.05), |a - d| <= max_aspect (0.1).  Each > 0,
     * and max_scale < 1. */
    double max_scale, max_rotation, max_skew, max_aspect;
    /* Price of one pixel by which the crop window leaves one frame, in the
     * objective's units; 0 (default): 20 (w1 + w2 + w3).  Whenever keeping
     * the crop inside costs less than this per pixel, the path is the exact
     * optimum of the constrained problem (an exact penalty). */
    double crop_penalty;
    /* Weight of the fidelity term (0, the default: none, [GKE11]'s linear
     * program): data_weight / 2 times the mean over the frame's corners of
     * the squared distance (pixels^2) by which B_t moves them, for every
     * frame.  It ties the path to the camera's in the least-squares sense
     * where the crop window alone would leave it free (a pan slower than
     * the margin allows is then kept); the problem becomes a quadratic
     * program, solved by the same method. */
    double data_weight;
    int max_iterations;         /* default 60 */
    /* Stop when the duality gap is below tolerance (1 + |objective|) and
     * the residuals are as small (default 1e-8). */
    double tolerance;
  } bspline_camera_path_params;

  typedef struct
  {
    bspline_camera_path_status status;
    /* w1 |D P| + w2 |D^2 P| + w3 |D^3 P| of the path returned, over the terms
     * that involve a frame not fixed */
    double smoothness;
    /* The program's objective: smoothness + crop_penalty times the sum
     * over the frames of each one's largest violation + the fidelity
     * term. */
    double objective;
    double max_violation;       /* pixels the crop window leaves a frame */
    int iterations;
  } bspline_camera_path_info;

  typedef struct bspline_camera_path bspline_camera_path;

/* Defaults for frames of width x height pixels, similarity model. */
  BSPLINE_INTERNAL_API
  void bspline_camera_path_params_init (bspline_camera_path_params * params,
      int width, int height);

/* A solver for windows of up to max_frames frames; all its memory is taken
 * here, none when solving. */
  BSPLINE_INTERNAL_API
  bspline_status bspline_camera_path_new (const bspline_camera_path_params *
      params, int max_frames, bspline_camera_path ** path, char *msg,
      size_t msg_len);
  BSPLINE_INTERNAL_API
  void bspline_camera_path_free (bspline_camera_path * path);

/* The optimal B_t of n_frames frames (1 .. max_frames) of camera path
 * `camera`.  The first n_fixed frames (0 .. n_frames) keep the
 * stabilization given in fixed[0 .. n_fixed - 1] (a sliding window
 * continues from the frames already output: 3 fix every derivative the
 * objective sees); they are copied to stabilization[].  For the similarity
 * model the frame-to-frame maps F_t and the fixed B_t are taken as their
 * nearest similarities.  Returns BSPLINE_ERROR_INVALID_ARGUMENT for bad
 * sizes or pointers, BSPLINE_ERROR_INVALID_TRANSFORM for a camera or fixed
 * transform that is not finite or singular; otherwise BSPLINE_OK with the
 * outcome in info (which may be NULL): an infeasible crop or the iteration
 * limit still gives a usable path. */
  BSPLINE_INTERNAL_API
  bspline_status bspline_camera_path_solve (bspline_camera_path * path,
      const bspline_affine * camera, int n_frames, const bspline_affine * fixed,
      int n_fixed, bspline_affine * stabilization,
      bspline_camera_path_info * info);

/* The forward correction of a frame (input pixels -> output pixels, as
 * bspline_stabilize_result.correction): the zoom about the frame centre
 * after B_t^-1.  Returns 0 when B_t is singular. */
  int bspline_camera_path_correction (const bspline_affine * stabilization,
      double zoom, int width, int height, bspline_affine * correction);

#ifdef __cplusplus
}
#endif
#endif                          /* BSPLINE_CAMERA_PATH_H */
