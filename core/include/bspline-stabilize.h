/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bspline-stabilize.h: video stabilization without GStreamer (pure C99).
 *
 * Two parts, used one after the other for every frame:
 *
 *  1. bspline_motion_*: the camera motion between consecutive frames, a
 *     similarity (translation, rotation, scale) or an affine map, estimated
 *     from the luma: an exhaustive search of integer shifts at the coarsest
 *     level of a pyramid, then robust inverse-compositional Gauss-Newton
 *     refinement (Baker & Matthews 2004, "Lucas-Kanade 20 years on", sec. 3
 *     and 4.4, with Tukey weights by iteratively reweighted least squares)
 *     at every level, down to the analysis resolution.  docs/stabilization.md
 *     says why this design.
 *  2. bspline_stabilizer_*: the camera path (the motions composed), the
 *     intended path found from it (L1-optimal over `smoothing` frames of
 *     look-ahead, or a Gaussian smoothing over `smoothing` frames on each
 *     side), and the correction of each frame: the intended path composed
 *     with the inverse of the real one, clamped, zoomed.
 *
 * Coordinates as everywhere in the project: pixel (i, j) covers
 * [i, i+1) x [j, j+1), x right, y down, in full-frame luma pixels.  An
 * affine map is 2x3 row-major: (x, y) -> (m0 x + m1 y + m2, m3 x + m4 y +
 * m5).
 */
#ifndef BSPLINE_STABILIZE_H
#define BSPLINE_STABILIZE_H

#include <stddef.h>
#include <stdint.h>
#include "bspline.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSPLINE_STABILIZE_PI 3.14159265358979323846

typedef struct
{
  double m[6];
} bspline_affine;

BSPLINE_API
void bspline_affine_identity (bspline_affine * a);
/* r = a after b: r(p) = a(b(p)) */
BSPLINE_API
void bspline_affine_compose (const bspline_affine * a,
    const bspline_affine * b, bspline_affine * r);
/* Returns 0 when a is singular or not finite. */
BSPLINE_API
int bspline_affine_invert (const bspline_affine * a, bspline_affine * inv);
/* The 3x3 row-major matrix of a (last row 0 0 1). */
BSPLINE_API
void bspline_affine_to_matrix (const bspline_affine * a, double m[9]);
/* Where a moves the point (cx, cy) and the rotation (degrees, clockwise on
 * screen since y is down) and scale of its linear part (for an affine map:
 * the angle of the rotation nearest to it and the square root of its
 * determinant). */
BSPLINE_API
void bspline_affine_decompose (const bspline_affine * a, double cx,
    double cy, double *dx, double *dy, double *angle_degrees,
    double *scale);

typedef enum
{
  BSPLINE_MOTION_SIMILARITY = 0,        /* translation, rotation, scale */
  BSPLINE_MOTION_AFFINE = 1,    /* six parameters */
  /* the camera turning about its centre, K R K^-1 (K: the focal length
   * bspline_stabilize_params' focal and the frame centre): a stabilizer
   * model only (bspline_stabilizer_*: either path, the clamps and the
   * horizon lock, docs/stabilization.md); the motion between frames is
   * measured as affine, and the rotation R that best maps the rays of a
   * grid of frame points to where that motion puts them is taken as the
   * camera's (bspline_stabilize_rotation_fit) */
  BSPLINE_MOTION_ROTATION = 2
} bspline_motion_model;

/* A frame to estimate motion on: 8-bit samples, either one grey (luma)
 * byte per pixel at offset_y (offset_r < 0), or R'G'B' bytes at three
 * offsets, weighted into luma (BT.601 weights; the motion does not depend
 * on the exact weights). */
typedef struct
{
  const uint8_t *data;
  ptrdiff_t stride;             /* bytes from one row to the next */
  int width, height;
  int pixel_stride;             /* bytes from one pixel to the next */
  int offset_y;                 /* grey byte, used when offset_r < 0 */
  int offset_r, offset_g, offset_b;     /* -1: not RGB */
} bspline_luma_frame;

typedef struct
{
  bspline_motion_model model;
  /* Largest shift searched between consecutive frames, full-frame pixels
   * (default 64). */
  double search_range;
  /* Analysis width: the frame is averaged down by a power of two to at most
   * this width before the pyramid is built (default 960). */
  int analysis_width;
  /* Below this smallest eigenvalue of the luma structure tensor (mean of
   * gradient products per pixel, grey levels^2 per pixel^2 at the analysis
   * resolution) a frame has too little texture: its motion is unreliable
   * (default 1.0). */
  double min_texture;
  /* Below this fraction of the analysed pixels agreeing with the motion
   * (Tukey weight above 0.5) the estimate is unreliable (default 0.25). */
  double min_inliers;
  /* Threads of the refinement at the analysis resolution: 0 = one per
   * online core (default 0). */
  int n_threads;
} bspline_motion_params;

typedef struct
{
  bspline_affine motion;        /* previous frame -> this frame */
  /* 0: motion is the identity, not measured: the first frame of a
   * sequence; too little texture (min_texture), over the frame or outside
   * a few cells of it (a lone object on a flat background); no distinct
   * best shift in the coarse search (noise, a flash: frames that do not
   * match anywhere); a refinement that failed or ended with too few
   * inliers.  The first three are decided before any Gauss-Newton step,
   * so that such frames cost less than a textured one. */
  int reliable;
  double texture;               /* smallest structure tensor eigenvalue */
  double inliers;               /* fraction of pixels with weight > 0.5 */
  double residual;              /* robust scale of the residual, grey levels */
  int iterations;               /* Gauss-Newton steps, all levels */
} bspline_motion_result;

typedef struct bspline_motion_estimator bspline_motion_estimator;

BSPLINE_API
void bspline_motion_params_init (bspline_motion_params * params);
/* The smallest side of a frame whose motion can be estimated. */
#define BSPLINE_MOTION_MIN_SIDE 16

/* An estimator for frames of width x height luma pixels, each side
 * BSPLINE_MOTION_MIN_SIDE to BSPLINE_MAX_SIDE. */
BSPLINE_API
bspline_status bspline_motion_estimator_new (const bspline_motion_params *
    params, int width, int height, bspline_motion_estimator ** estimator,
    char *msg, size_t msg_len);
BSPLINE_API
void bspline_motion_estimator_free (bspline_motion_estimator * estimator);
/* The power of two the estimator averages width x height frames down by:
 * it analyses width / factor x height / factor pixels, analysis pixel
 * (i, j) the mean of the factor x factor frame pixels from (factor i,
 * factor j) (params valid, as bspline_motion_estimator_new checks). */
BSPLINE_API
int bspline_motion_analysis_factor (const bspline_motion_params * params,
    int width, int height);
/* Forgets the previous frame: the next one starts a new sequence. */
BSPLINE_API
void bspline_motion_estimator_reset (bspline_motion_estimator * estimator);
/* The motion from the previous frame given to this one; the first frame of
 * a sequence gets the identity with reliable = 0. */
BSPLINE_API
bspline_status bspline_motion_estimate (bspline_motion_estimator *
    estimator, const bspline_luma_frame * frame,
    bspline_motion_result * result);

/* ---- the per-pixel work elsewhere (the GPU engine, cuda/) ----
 *
 * bspline_motion_estimate_with runs the same algorithm as
 * bspline_motion_estimate (the same control logic, coarse hypotheses,
 * levels and reliability tests, all here) but asks `ops` for the work on
 * pixels: building a frame's pyramid, the texture sums, the coarse search
 * and the Gauss-Newton refinement of a warp at one level, whose steps
 * (the passes over pixels and, between them, motion-solve.h's arithmetic)
 * the engine behind ops runs itself.  That engine keeps the two pyramids,
 * laid out as bspline_motion_estimator_layout says, and must compute what
 * the CPU functions of motion.c compute (the comments there say how). */
#define BSPLINE_MOTION_MAX_LEVELS 8
#define BSPLINE_MOTION_MAX_PARAMS 6
/* histogram of |residual| for the median: bins of 1/32 grey level up to
 * 64 grey levels, the last bin for everything above */
#define BSPLINE_MOTION_HIST_SCALE 32.0
#define BSPLINE_MOTION_HIST_BINS 2049
/* The texture is summed over a grid of G x G cells of level 0: cell (a, b)
 * covers columns [w a / G, w (a + 1) / G) and rows [h b / G, h (b + 1) / G)
 * (integer division), cells in row-major order. */
#define BSPLINE_MOTION_TEXTURE_GRID 8
#define BSPLINE_MOTION_TEXTURE_CELLS \
  (BSPLINE_MOTION_TEXTURE_GRID * BSPLINE_MOTION_TEXTURE_GRID)

typedef struct
{
  int factor;                   /* full frame / level 0 */
  int n_levels;
  int width[BSPLINE_MOTION_MAX_LEVELS], height[BSPLINE_MOTION_MAX_LEVELS];
} bspline_motion_layout;

/* The refinement of a warp at one level: up to max_steps Gauss-Newton
 * steps (motion.c's motion_refine_level). */
typedef struct
{
  int level;
  double m[6];                  /* start warp, level pixels, template -> image */
  double cx, cy;                /* centre of the parameters */
  int n_params;                 /* 4 (similarity) or 6 (affine) */
  int sampling;                 /* every pixel (1) or every other (2) */
  double sigma;                 /* residual scale so far; < 0: measure it */
  int max_steps;
  double tolerance;             /* pixels of corner motion: converged */
} bspline_motion_refine;

typedef struct
{
  double m[6];                  /* the refined warp */
  double sigma;                 /* scale of the last pass's residuals */
  double scale;                 /* Huber k or Tukey c of the last pass */
  int steps;                    /* steps taken, -1: singular equations */
  long valid, inliers;          /* last pass: pixels inside, weight > 0.5 */
} bspline_motion_refined;

typedef struct
{
  /* The pyramid of `frame` (opaque here) into pyramid `index` (0 or 1). */
  bspline_status (*pyramid) (void *ctx, int index, const void *frame);
  /* For each cell of level 0 of pyramid `index`
   * (BSPLINE_MOTION_TEXTURE_GRID), the sums over its pixels of gx^2,
   * gx gy, gy^2: cells[3 k .. 3 k + 2] for cell k. */
  bspline_status (*texture) (void *ctx, int index, double *cells);
  /* The coarse search at `level` (motion.c's motion_search): for each of
   * n_angles rotations, the best integer shift within +-range and its mean
   * absolute difference (INFINITY where too few pixels overlap), and the
   * mean of the differences of every angle and shift that has enough
   * overlap, added in the order angle, row, column (INFINITY if none). */
  bspline_status (*search) (void *ctx, int template_index, int level,
      int range, const double *angles, int n_angles, double *cost,
      int *best_x, int *best_y, double *mean_cost);
  /* The refinement of in->m at in->level, template pyramid template_index,
   * image the other one. */
  bspline_status (*refine) (void *ctx, int template_index,
      const bspline_motion_refine * in, bspline_motion_refined * out);
} bspline_motion_ops;

BSPLINE_API
void bspline_motion_estimator_layout (const bspline_motion_estimator *
    estimator, bspline_motion_layout * layout);
/* bspline_motion_estimate with the per-pixel work done by ops; an error
 * from ops is returned as it is (the estimator then forgets the previous
 * frame). */
BSPLINE_API
bspline_status bspline_motion_estimate_with (bspline_motion_estimator *
    estimator, const bspline_motion_ops * ops, void *ctx, const void *frame,
    bspline_motion_result * result);

/* ---- the camera path and the corrections ---- */

/* How the intended camera path is found (docs/stabilization.md). */
typedef enum
{
  /* the L1-optimal path (core/stabilize/camera-path.h): constant,
   * constant-velocity and constant-acceleration pieces, the crop window
   * kept inside every frame; solved over frames k .. k + smoothing for
   * frame k, continuing from the three frames before it */
  BSPLINE_STABILIZE_PATH_OPTIMAL = 0,
  /* each path parameter averaged with Gaussian weights over k - smoothing
   * .. k + smoothing (local linear regression) */
  BSPLINE_STABILIZE_PATH_GAUSSIAN = 1
} bspline_stabilize_path;

#define BSPLINE_STABILIZE_DEFAULT_MARGIN 30.0
#define BSPLINE_STABILIZE_MAX_MARGIN 100.0
/* the total zoom factor of a correction, at most (max_zoom's default and
 * largest value) */
#define BSPLINE_STABILIZE_MAX_ZOOM 4.0

typedef struct
{
  int smoothing;                /* frames of look-behind and look-ahead */
  bspline_stabilize_path path;
  /* path = optimal: the crop window the path keeps inside every frame is
   * the output's view shrunk by 1 + margin / 100 about its centre (percent,
   * 0 .. BSPLINE_STABILIZE_MAX_MARGIN, default
   * BSPLINE_STABILIZE_DEFAULT_MARGIN): how far the path may leave the
   * camera's */
  double margin;
  /* pixels, < 0: no limit; the correction's shift of the frame centre on
   * each axis (model = rotation: the homography's, the rotation's swing
   * made to fit it) */
  double max_shift;
  /* degrees, < 0: no limit; the correction's turn at the frame centre
   * (model = rotation: the twist of its rotation about the optical axis) */
  double max_angle;
  double zoom;                  /* percent, added to auto-zoom; may be < 0 */
  int auto_zoom;                /* zoom just enough to hide the borders */
  int tripod;                   /* hold the first frame's view */
  /* The total zoom factor (zoom and auto-zoom together) at most, and with
   * path = optimal the crop window's zoom too: 1 .. BSPLINE_STABILIZE_MAX_ZOOM
   * (default BSPLINE_STABILIZE_MAX_ZOOM). */
  double max_zoom;
  /* Horizon lock: the intended camera's roll held at -horizon_angle
   * instead of smoothed (or, tripod, held), so that a horizon that the
   * first frame shows at horizon_angle degrees (clockwise on screen) is
   * level in every output frame; horizon_angle 0 keeps the first frame's
   * roll.  Its translation, scale and shear stay as the path found them
   * (the roll turns about the point where the intended camera puts the
   * first frame's centre); max_angle still clamps the result.  With model
   * = rotation the intended camera rotation is turned about its optical
   * axis until the horizon, the vanishing line of the plane normal to
   * frame 0's up direction turned by horizon_angle, is level (frame 0's
   * optical axis taken as level). */
  int horizon_lock;
  double horizon_angle;         /* degrees, -180 .. 180 */
  bspline_motion_model model;
  /* model = rotation: the focal length in pixels (the principal point is
   * the frame centre); unused otherwise */
  double focal;
  int width, height;            /* frame size, luma pixels */
} bspline_stabilize_params;

typedef struct
{
  /* input frame -> output frame, forward; model = rotation: the affine map
   * nearest matrix at the frame centre (its value and Jacobian there) */
  bspline_affine correction;
  double zoom;                  /* total zoom factor in correction */
  /* the correction as a 3x3 matrix, row-major, forward: a homography with
   * model = rotation, correction's matrix otherwise */
  double matrix[9];
} bspline_stabilize_result;

typedef struct bspline_stabilizer bspline_stabilizer;

BSPLINE_API
void bspline_stabilize_params_init (bspline_stabilize_params * params,
    int width, int height);
BSPLINE_API
bspline_status bspline_stabilizer_new (const bspline_stabilize_params *
    params, bspline_stabilizer ** stabilizer, char *msg, size_t msg_len);
BSPLINE_API
void bspline_stabilizer_free (bspline_stabilizer * stabilizer);
/* Drops every frame: a new sequence starts (a flush, a new stream). */
BSPLINE_API
void bspline_stabilizer_reset (bspline_stabilizer * stabilizer);
/* Appends the next frame's motion (previous frame -> this one; ignored for
 * the first frame of a sequence). */
BSPLINE_API
bspline_status bspline_stabilizer_push (bspline_stabilizer * stabilizer,
    const bspline_affine * motion);
/* Frames pushed and not yet popped. */
BSPLINE_API
int bspline_stabilizer_pending (const bspline_stabilizer * stabilizer);
/* 1 when the oldest pending frame's correction can be computed: it has
 * `smoothing` frames of look-ahead, or `final` is set (end of stream: the
 * window is cut at the last frame). */
BSPLINE_API
int bspline_stabilizer_ready (const bspline_stabilizer * stabilizer,
    int final);
/* The correction of the oldest pending frame, which is then popped.
 * With path = optimal and `final` set, the first pop solves every pending
 * frame in one piece (a whole clip pushed at once: one solve), and the
 * pops after it use that solution.  Returns BSPLINE_ERROR_INVALID_ARGUMENT
 * when it is not ready; never fails otherwise (a window the solver cannot
 * take continues the path still). */
BSPLINE_API
bspline_status bspline_stabilizer_pop (bspline_stabilizer * stabilizer,
    int final, bspline_stabilize_result * result);

/* Horizon lock changed while a stream runs: from the next frame popped
 * (as bspline_stabilize_params' horizon_lock and horizon_angle; an angle
 * outside -180 .. 180 or not finite is refused). */
BSPLINE_API
bspline_status bspline_stabilizer_set_horizon (bspline_stabilizer *
    stabilizer, int horizon_lock, double horizon_angle);

/* Smallest zoom z >= 1 about the frame centre such that the output frame
 * is covered by the input after `correction` (forward, input -> output)
 * then zoom z; at most max_zoom. */
BSPLINE_API
double bspline_stabilize_cover_zoom (const bspline_affine * correction,
    int width, int height, double max_zoom);
/* The same for a correction given as a 3x3 matrix (a homography). */
BSPLINE_API
double bspline_stabilize_cover_zoom_matrix (const double correction[9],
    int width, int height, double max_zoom);

/* model = rotation: the camera rotation (a unit quaternion w, x, y, z; the
 * rays d = ((x - cx) / focal, (y - cy) / focal, 1) of the first frame's
 * pixels turn into those of the second's) that best explains the motion
 * (first frame -> second frame pixels) of a width x height frame: the
 * least-squares rotation between the rays of a 7 x 7 grid of points over
 * the frame and of their images under motion (Horn 1987, "Closed-form
 * solution of absolute orientation using unit quaternions", sec. 4).
 * Returns 0 (q the identity) where the motion or focal is not finite. */
BSPLINE_API
int bspline_stabilize_rotation_fit (const bspline_affine * motion, int width,
    int height, double focal, double q[4]);

/* ---- rolling shutter (core/stabilize/rolling-shutter.c) ----
 *
 * A rolling shutter reads row y (centre y, of a frame of `height` rows) of
 * frame f at time f + readout (y / height - 1/2), in frame intervals.  The
 * picture's motion over time is modelled as a translation p(t), piecewise
 * linear between knots 1 / n_bands frame intervals apart (knot n at time
 * n / n_bands - 1/2; knot 0 held at 0), measured from the translation of
 * n_bands bands of rows between consecutive frames and solved by least
 * squares with a smoothness prior; a frame is corrected to how it would
 * look taken at once at its mid time (rolling-shutter.c says how). */
#define BSPLINE_ROLLING_MAX_BANDS 32
#define BSPLINE_ROLLING_DEFAULT_BANDS 8
/* (1e-4: the trajectory then fits the band measurements as closely as
 * their own error, 0.023 px RMS on the test clip (means of 71 seeds);
 * 1e-3 bent it away from them, 0.041 px RMS, most near the ends of the
 * solve: rolling-shutter.c) */
#define BSPLINE_ROLLING_DEFAULT_SMOOTHNESS 1e-4

typedef struct
{
  /* bands of rows the motion is measured on, 2 .. BSPLINE_ROLLING_MAX_BANDS
   * (default BSPLINE_ROLLING_DEFAULT_BANDS), each at least
   * BSPLINE_MOTION_MIN_SIDE rows; band b is rows [height b / n_bands,
   * height (b + 1) / n_bands) */
  int n_bands;
  /* the time from the top row's reading to the bottom row's, a fraction
   * of the frame interval, 0 .. 1 (0: a global shutter) */
  double readout;
  /* the prior's weight: the squared second derivative of p (pixels per
   * frame interval squared) integrated over the trajectory, against the
   * squared residuals of the band measurements (pixels), > 0 (default
   * BSPLINE_ROLLING_DEFAULT_SMOOTHNESS) */
  double smoothness;
  int height;
} bspline_rolling_params;

BSPLINE_API
void bspline_rolling_params_init (bspline_rolling_params * params,
    int height);
BSPLINE_API
bspline_status bspline_rolling_params_validate (const bspline_rolling_params
    * params, char *msg, size_t msg_len);
/* Band b's rows [*y0, *y1). */
BSPLINE_API
void bspline_rolling_band_rows (const bspline_rolling_params * params,
    int band, int *y0, int *y1);
/* The time band b of frame f is read (its centre row's). */
BSPLINE_API
double bspline_rolling_band_time (const bspline_rolling_params * params,
    int frame, int band);
/* Knots of a trajectory over frames 0 .. n_frames - 1. */
BSPLINE_API
int bspline_rolling_n_knots (const bspline_rolling_params * params,
    int n_frames);
/* The trajectory of frames 0 .. n_frames - 1 from the motion of each band
 * from frame f - 1 to frame f: band_motion[2 (f n_bands + b)] and [.. + 1]
 * (x, y; pixels; frame 0's entries unused), used where reliable[f n_bands
 * + b] (reliable NULL: all).  knots: 2 bspline_rolling_n_knots doubles,
 * p's x and y at each knot. */
BSPLINE_API
bspline_status bspline_rolling_solve (const bspline_rolling_params * params,
    int n_frames, const double *band_motion, const int *reliable,
    double *knots, char *msg, size_t msg_len);
/* The readout (0 .. 1) whose trajectory best explains the bands' motion
 * of frames 0 .. n_frames - 1 (as bspline_rolling_solve takes them;
 * params' readout and smoothness are not read): for each readout of a
 * grid of step BSPLINE_ROLLING_ESTIMATE_STEP the trajectory solved with
 * the prior of weight BSPLINE_ROLLING_ESTIMATE_SMOOTHNESS, and the squared
 * differences between the measurements and what it predicts summed (the
 * prior left out); the grid's least refined by the parabola through it
 * and its neighbours.  A global shutter gives 0: every band of a frame
 * read at once cannot explain their differences.  Needs at least
 * BSPLINE_ROLLING_ESTIMATE_MIN_FRAMES frames
 * (docs/notes/rolling-shutter-readout-estimate.md: within 0.025 of the
 * truth on the test clip from 10 frames). */
#define BSPLINE_ROLLING_ESTIMATE_STEP 0.025
/* (stiffer than the correction's: a readout too long is told by the
 * trajectory that cannot both fit the bands and stay smooth; with the
 * correction's 1e-4 the test clip's 0.5 came out as 0.513-0.545 on 8
 * seeds, 0.510-0.519 on 71 with this) */
#define BSPLINE_ROLLING_ESTIMATE_SMOOTHNESS 1e-3
#define BSPLINE_ROLLING_ESTIMATE_MIN_FRAMES 3
BSPLINE_API
bspline_status bspline_rolling_estimate_readout (const bspline_rolling_params
    * params, int n_frames, const double *band_motion, const int *reliable,
    double *readout, char *msg, size_t msg_len);
/* p(t) (clamped to the knots' span). */
BSPLINE_API
void bspline_rolling_position (const bspline_rolling_params * params,
    const double *knots, int n_knots, double t, double *px, double *py);
/* The rolling-shutter correction of frame f as a map from the corrected
 * frame to the input: the corrected frame's point (u, v) shows the input
 * frame's point (x, y) = (u, y') + p(t_f(y)) - p(f), y' = v. */
BSPLINE_API
void bspline_rolling_source (const bspline_rolling_params * params,
    const double *knots, int n_knots, int frame, double u, double v,
    double *x, double *y);

/* The band measurement: one motion estimator per band. */
typedef struct bspline_rolling_meter bspline_rolling_meter;

/* For frames of width x params->height luma pixels. */
BSPLINE_API
bspline_status bspline_rolling_meter_new (const bspline_rolling_params *
    params, const bspline_motion_params * motion, int width,
    bspline_rolling_meter ** meter, char *msg, size_t msg_len);
BSPLINE_API
void bspline_rolling_meter_free (bspline_rolling_meter * meter);
BSPLINE_API
void bspline_rolling_meter_reset (bspline_rolling_meter * meter);
/* Each band's translation from the previous frame given: where the
 * previous frame's point (width / 2, the band's centre row) went,
 * band_motion[2 b], [2 b + 1] (pixels), and reliable[b] as the
 * estimator's (0 for the first frame of a sequence).  `global` is the
 * whole frame's motion from the previous frame (bspline_motion_estimate's,
 * or the identity): each band is searched within a few pixels of where it
 * puts the band (an affine estimate on the band and, in the previous
 * frame, the rows and columns it came from). */
BSPLINE_API
bspline_status bspline_rolling_meter_measure (bspline_rolling_meter * meter,
    const bspline_luma_frame * frame, const bspline_affine * global,
    double *band_motion, int *reliable);

#ifdef __cplusplus
}
#endif
#endif /* BSPLINE_STABILIZE_H */
