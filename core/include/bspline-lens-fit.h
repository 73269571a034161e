/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bspline-lens-fit.h: the new camera matrix of the element's lens-fit
 * property (core/lens/lens-fit.c), OpenCV's own algorithms replicated:
 *  - brown: cv::getOptimalNewCameraMatrix (centerPrincipalPoint = false),
 *    alpha 0 = "inside" (no border shows), 1 = "all" (every input pixel
 *    visible);
 *  - fisheye: cv::fisheye::estimateNewCameraMatrixForUndistortRectify
 *    (R = identity, fov_scale = 1), balance = alpha.
 * docs/notes/lens-fit.md says which OpenCV source was read and how well
 * the results agree with OpenCV 4.10.
 */
#ifndef BSPLINE_LENS_FIT_H
#define BSPLINE_LENS_FIT_H

#include <stddef.h>
#include "bspline.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* camera: fx, fy, cx, cy of the distorted frame in OpenCV's convention
 * (pixels, the centre of the first pixel at 0); coeffs: n_coeffs
 * distortion coefficients in OpenCV's order (brown at most 12: k1 k2 p1 p2
 * k3 k4 k5 k6 s1 s2 s3 s4; fisheye at most 4: k1 k2 k3 k4), the missing
 * ones 0; dist_width x dist_height: the distorted frame (OpenCV's
 * imageSize); new_width x new_height: the undistorted frame (OpenCV's
 * newImgSize / new_size); alpha: OpenCV's alpha (brown, used as given) or
 * balance (fisheye, clamped to [0, 1] as OpenCV does).  Writes fx, fy, cx,
 * cy of the undistorted frame, OpenCV's convention, to new_camera.
 *
 * Fails with BSPLINE_ERROR_INVALID_ARGUMENT and a message in msg (where
 * msg is not NULL) on a non-finite input, fx or fy <= 0, a size <= 0, a
 * model or coefficients that bspline_lens_validate_coeffs refuses, and
 * where a point OpenCV
 * undistorts has no undistorted position inside the radius where the
 * model folds over (OpenCV would carry on with a meaningless point). */
  BSPLINE_API
  bspline_status bspline_lens_fit (bspline_lens_model model,
      const double camera[4], const double *coeffs, int n_coeffs,
      int dist_width, int dist_height, int new_width, int new_height,
      double alpha, double new_camera[4], char *msg, size_t msg_len);

#ifdef __cplusplus
}
#endif
#endif                          /* BSPLINE_LENS_FIT_H */
