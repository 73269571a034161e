/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stabilize.c: the camera path, its smoothing and the correction of each
 * frame (see bspline-stabilize.h and docs/stabilization.md).
 *
 * The path A_k maps frame 0's pixel coordinates to frame k's: A_0 = I,
 * A_k = M_k o A_(k-1) with M_k the motion from frame k-1 to frame k.  It is
 * smoothed in a parameter space about the frame centre c, where
 * A(p) = c + R(theta) U (p - c) + t: the translation t of the centre, the
 * rotation angle theta (unwrapped along the path) and the remaining linear
 * part U = R(-theta) L (s I for a similarity).  Each parameter is averaged
 * with Gaussian weights of standard deviation smoothing / 3 over the
 * frames k - smoothing .. k + smoothing, as the value at k of the weighted
 * least-squares line through them (local linear regression, Cleveland
 * 1979).  Where the window is whole this is the Gaussian mean.  Where the
 * stream's start or end would cut it, the window slides to stay 2
 * smoothing + 1 frames long inside the stream, and its weights stay
 * centred on it: the path of the first and last `smoothing` frames is
 * then one straight line, which joins the rest without a kink, keeps a
 * steady pan steady, and is not pinned to the shake of the end frame (a
 * one-sided mean would lag behind a pan, a reflection about the end frame
 * would keep that frame's shake).
 *
 * The correction of frame k maps its pixels to the output: it is the
 * smoothed camera after the inverse of the real one, C_k = S_k o A_k^-1
 * (tripod: C_k = A_k^-1, the first frame's view), then clamped (the
 * translation of the centre to max-shift on each axis, the angle to
 * max-angle) and zoomed about the centre.
 *
 * Horizon lock: the intended camera S_k = C_k o A_k keeps everything the
 * path gave it but its roll theta, which is set to the locked angle; the
 * correction is made again from it (before the clamps, so that auto-zoom
 * and max-shift see the locked correction).  The roll of the output
 * against frame 0 is then exactly the locked angle wherever the camera
 * path A_k is right: what is left is the drift of the measured roll.
 *
 * max_zoom caps the total zoom (zoom times auto-zoom), and with path =
 * optimal the crop window's zoom, which otherwise grows with the margin.
 *
 * auto-zoom: the zoom z_k that hides the borders of frame k, req_k
 * (bspline_stabilize_cover_zoom), is made smooth as the Gaussian average
 * over the window of the running maximum of req over the window.  Every
 * running maximum in frame k's window covers frame k, so z_k >= req_k: no
 * border shows, and the zoom eases in before a large correction instead of
 * jumping.  Frames after the newest one are left out of the maxima.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bspline-stabilize.h"
#include "camera-path.h"

#define PATH_PARAMS 7           /* tx, ty, theta, u00, u01, u10, u11 */
#define STABILIZE_MAX_SMOOTHING 1000
/* path = optimal: the frames already output that a window continues from
 * (three fix every difference the objective sees, camera-path.h) */
#define PATH_FIXED 3
/* path = optimal: the weights of the path's velocity, acceleration and
 * jerk (camera-path.h's w1, w2, w3), and of its fidelity to the camera
 * (data_weight, times 550 / the frame's diagonal in pixels, so that the
 * balance against the L1 terms does not depend on the frame size; 550 is
 * the diagonal of 480x270).  [GKE11]'s own weights are 10, 1, 100 and no
 * fidelity term: with them the optimum holds a pan still until the crop
 * window forces it along and eases velocities in and out with constant
 * accelerations, which leaves 0.6-0.8 px RMS of residual jitter against a
 * steady pan (docs/notes/l1-camera-path.md, "The element's weights"). */
#define PATH_W1 5.0
#define PATH_W2 300.0
#define PATH_W3 100.0
#define PATH_DATA_WEIGHT 550.0
/* B_t may scale the crop window by 5 % at most: enough to steady a zoom
 * shake, not enough to zoom in for free where the fidelity term is weak */
#define PATH_MAX_SCALE 0.05
#define PATH_MAX_ITERATIONS 200
#define PATH_SNAP 1e-6
/* frames solved in one piece at most (a whole clip, transforms-mode=read);
 * a longer one is solved in pieces of this many frames, each continuing
 * from the one before */
#define PATH_MAX_WHOLE (1 << 14)

struct bspline_stabilizer
{
  bspline_stabilize_params p;
  double *weights;              /* 2 * smoothing + 1 Gaussian weights */
  double cx, cy;
  /* path parameters of the frames base .. base + count - 1 */
  double (*path)[PATH_PARAMS];
  long capacity, base, count;
  long next;                    /* the oldest frame not popped */
  bspline_affine last;          /* A of the newest frame */
  /* req of frames already popped, by frame index modulo the window */
  double *past_req;
  int window;                   /* 4 * smoothing + 1 */
  /* path = optimal (not tripod): the solver, for up to solver_frames
   * frames, and its window: camera and stabilization of each frame, the
   * fixed ones first */
  bspline_camera_path_params path_params;
  bspline_camera_path *solver;
  int solver_frames;
  bspline_affine *win_camera, *win_b;
  bspline_affine win_fixed[PATH_FIXED];
  /* B_j of frames win_from .. win_from + win_count - 1 (the last solve);
   * win_final: it reaches the end of the stream, later pops reuse it */
  long win_from;
  int win_count, win_final;
  /* B of the frames already output, by frame modulo PATH_FIXED + 1 */
  bspline_affine done_b[PATH_FIXED + 1];
};

void
bspline_stabilize_params_init (bspline_stabilize_params * params, int width,
    int height)
{
  memset (params, 0, sizeof (*params));
  params->smoothing = 15;
  params->path = BSPLINE_STABILIZE_PATH_OPTIMAL;
  params->margin = BSPLINE_STABILIZE_DEFAULT_MARGIN;
  params->max_shift = -1.0;
  params->max_angle = -1.0;
  params->zoom = 0.0;
  params->auto_zoom = 0;
  params->tripod = 0;
  params->max_zoom = BSPLINE_STABILIZE_MAX_ZOOM;
  params->horizon_lock = 0;
  params->horizon_angle = 0.0;
  params->focal = 0.0;
  params->model = BSPLINE_MOTION_SIMILARITY;
  params->width = width;
  params->height = height;
}

/* The solver of path = optimal and its window arrays for windows of up to
 * `frames` frames (replacing the previous ones). */
static bspline_status
path_solver (bspline_stabilizer * st, int frames, char *msg, size_t msg_len)
{
  bspline_camera_path *solver = NULL;
  bspline_affine *camera, *b;
  bspline_status status;

  status = bspline_camera_path_new (&st->path_params, frames, &solver, msg,
      msg_len);
  if (status != BSPLINE_OK)
    return status;
  camera = malloc ((size_t) frames * sizeof (bspline_affine));
  b = malloc ((size_t) frames * sizeof (bspline_affine));
  if (!camera || !b) {
    free (camera);
    free (b);
    bspline_camera_path_free (solver);
    snprintf (msg, msg_len, "out of memory for a camera path window of %d "
        "frames", frames);
    return BSPLINE_ERROR_NO_MEMORY;
  }
  bspline_camera_path_free (st->solver);
  free (st->win_camera);
  free (st->win_b);
  st->solver = solver;
  st->solver_frames = frames;
  st->win_camera = camera;
  st->win_b = b;
  return BSPLINE_OK;
}

bspline_status
bspline_stabilizer_new (const bspline_stabilize_params * params,
    bspline_stabilizer ** stabilizer, char *msg, size_t msg_len)
{
  bspline_stabilizer *st;
  int s = params->smoothing, i;
  double sigma;

  *stabilizer = NULL;
  if (s < 0 || s > STABILIZE_MAX_SMOOTHING || params->width < 1
      || params->height < 1 || !isfinite (params->zoom)
      || params->zoom <= -100.0 || isnan (params->max_shift)
      || isnan (params->max_angle)
      || (params->path != BSPLINE_STABILIZE_PATH_OPTIMAL
          && params->path != BSPLINE_STABILIZE_PATH_GAUSSIAN)
      || !(params->margin >= 0.0
          && params->margin <= BSPLINE_STABILIZE_MAX_MARGIN)
      || !(params->max_zoom >= 1.0
          && params->max_zoom <= BSPLINE_STABILIZE_MAX_ZOOM)
      || !(fabs (params->horizon_angle) <= 180.0)
      || (params->model != BSPLINE_MOTION_SIMILARITY
          && params->model != BSPLINE_MOTION_AFFINE
          && params->model != BSPLINE_MOTION_ROTATION)) {
    snprintf (msg, msg_len,
        "bad stabilization parameters (smoothing %d, "
        "0 to %d; size %dx%d; zoom %g percent, above -100; path %d; margin "
        "%g percent, 0 to %g; maximum zoom %g, 1 to %g; horizon angle %g "
        "degrees, -180 to 180)", s, STABILIZE_MAX_SMOOTHING, params->width,
        params->height, params->zoom, (int) params->path, params->margin,
        BSPLINE_STABILIZE_MAX_MARGIN, params->max_zoom,
        BSPLINE_STABILIZE_MAX_ZOOM, params->horizon_angle);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (params->model == BSPLINE_MOTION_ROTATION) {
    if (!(params->focal > 0.0 && isfinite (params->focal))) {
      snprintf (msg, msg_len, "the camera rotation model needs a focal "
          "length above 0 (focal %g pixels)", params->focal);
      return BSPLINE_ERROR_INVALID_ARGUMENT;
    }
  }
  st = calloc (1, sizeof (*st));
  if (st == NULL)
    goto no_memory;
  st->p = *params;
  st->cx = 0.5 * params->width;
  st->cy = 0.5 * params->height;
  st->weights = malloc ((size_t) (2 * s + 1) * sizeof (double));
  st->window = 4 * s + 1;
  st->past_req = calloc ((size_t) st->window, sizeof (double));
  st->capacity = 4 * s + 64;
  st->path = malloc ((size_t) st->capacity * sizeof (*st->path));
  if (!st->weights || !st->past_req || !st->path)
    goto no_memory;
  sigma = s / 3.0;
  for (i = -s; i <= s; i++)
    st->weights[i + s] = s == 0 ? 1.0 : exp (-0.5 * (i / sigma) * (i / sigma));
  if (params->path == BSPLINE_STABILIZE_PATH_OPTIMAL && !params->tripod) {
    bspline_camera_path_params *cp = &st->path_params;
    bspline_status status;

    bspline_camera_path_params_init (cp, params->width, params->height);
    /* the rotation model's path is solved over the similarities its
     * rotations project to (rotation_to_similarity) */
    cp->model = params->model == BSPLINE_MOTION_ROTATION ?
        BSPLINE_MOTION_SIMILARITY : params->model;
    /* the crop window: the output's view (its zoom, never below the
     * frame) shrunk by the margin, and never by more than max_zoom */
    cp->zoom = fmin (params->max_zoom, (1.0 + params->margin / 100.0) *
        fmax (1.0, 1.0 + params->zoom / 100.0));
    cp->w1 = PATH_W1;
    cp->w2 = PATH_W2;
    cp->w3 = PATH_W3;
    cp->max_scale = PATH_MAX_SCALE;
    cp->data_weight = PATH_DATA_WEIGHT / hypot (params->width, params->height);
    cp->max_iterations = PATH_MAX_ITERATIONS;
    status = path_solver (st, s + 1 + PATH_FIXED, msg, msg_len);
    if (status != BSPLINE_OK) {
      bspline_stabilizer_free (st);
      return status;
    }
  }
  bspline_stabilizer_reset (st);
  *stabilizer = st;
  return BSPLINE_OK;

no_memory:
  bspline_stabilizer_free (st);
  snprintf (msg, msg_len, "out of memory for a smoothing window of %d "
      "frames", s);
  return BSPLINE_ERROR_NO_MEMORY;
}

void
bspline_stabilizer_free (bspline_stabilizer * st)
{
  if (st == NULL)
    return;
  free (st->weights);
  free (st->past_req);
  free (st->path);
  bspline_camera_path_free (st->solver);
  free (st->win_camera);
  free (st->win_b);
  free (st);
}

void
bspline_stabilizer_reset (bspline_stabilizer * st)
{
  st->base = 0;
  st->count = 0;
  st->next = 0;
  bspline_affine_identity (&st->last);
  st->win_from = 0;
  st->win_count = 0;
  st->win_final = 0;
}

/* ---- path parameters ---- */

static void
path_from_affine (const bspline_stabilizer * st, const bspline_affine * a,
    double previous_theta, double *q)
{
  const double *m = a->m;
  double theta = atan2 (m[3] - m[1], m[0] + m[4]), c, s;

  /* unwrap: the angle nearest to the previous frame's */
  theta +=
      2.0 * BSPLINE_STABILIZE_PI * floor ((previous_theta -
          theta) / (2.0 * BSPLINE_STABILIZE_PI) + 0.5);
  c = cos (theta);
  s = sin (theta);
  q[0] = m[0] * st->cx + m[1] * st->cy + m[2] - st->cx;
  q[1] = m[3] * st->cx + m[4] * st->cy + m[5] - st->cy;
  q[2] = theta;
  /* U = R(-theta) L, with R(theta) = [c -s; s c] (clockwise on screen) */
  q[3] = c * m[0] + s * m[3];
  q[4] = c * m[1] + s * m[4];
  q[5] = -s * m[0] + c * m[3];
  q[6] = -s * m[1] + c * m[4];
}

static void
path_to_affine (const bspline_stabilizer * st, const double *q,
    bspline_affine * a)
{
  double c = cos (q[2]), s = sin (q[2]), *m = a->m;

  m[0] = c * q[3] - s * q[5];
  m[1] = c * q[4] - s * q[6];
  m[3] = s * q[3] + c * q[5];
  m[4] = s * q[4] + c * q[6];
  /* A(p) = c + L (p - c) + t */
  m[2] = st->cx + q[0] - m[0] * st->cx - m[1] * st->cy;
  m[5] = st->cy + q[1] - m[3] * st->cx - m[4] * st->cy;
}

static const double *
path_at (const bspline_stabilizer * st, long k)
{
  return st->path[k - st->base];
}

/* ---- the camera rotation model (model = rotation) ----
 *
 * The path of frame k is the camera rotation R_k from frame 0 (a unit
 * quaternion w, x, y, z in path[0 .. 3]): R_k = Q_k R_(k-1), Q_k the
 * rotation fitted to the motion from frame k - 1 (the sign chosen nearest
 * the previous frame's, so that the path is continuous).  The intended
 * path S_k is the path=gaussian regression of the four components,
 * normalised (for rotations that close together, the regression of
 * quaternions is the smooth mean of the rotations to second order); the
 * correction is the homography C_k = K S_k R_k^-1 K^-1.
 *
 * path = optimal solves over similarities: each step Q_k is projected to
 * a rigid map about the centre (rotation_to_similarity) and the steps are
 * composed into the path A_k = P(Q_k) A_(k-1) (its centre shift and angle
 * in path[4 .. 6]), which a pan of any length keeps finite as the
 * similarity model's path (a projection of R_k itself would not be past
 * 90 degrees).  The solver's B_k, crop window -> frame k, gives the
 * correction rotation directly: the one whose projection is B_k^-1
 * (similarity_to_rotation), C_k = K that K^-1.
 *
 * A rotation q is split as q = swing twist (swing-twist decomposition):
 * the twist turns about the optical axis z by theta, the swing about an
 * axis in the x-y plane takes the optical axis e_z to q e_z.  The
 * homography K q K^-1 moves the frame centre by f (q e_z)_xy / (q e_z)_z,
 * and its Jacobian at the centre is the swing's, which is symmetric,
 * times a turn by theta: bspline_affine_decompose's angle of the affine
 * map nearest it at the centre is theta exactly.  These two, the shift of
 * the centre and theta, are what the path = optimal solver and the clamps
 * see of a rotation. */

/* r = a b: b's rotation, then a's (Hamilton's product) */
static void
quat_multiply (const double *a, const double *b, double *r)
{
  double t[4];

  t[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  t[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  t[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  t[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  memcpy (r, t, sizeof (t));
}

/* q / |q|; the identity where q is 0 or not finite */
static void
quat_normalize (double *q)
{
  double n = sqrt (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  int i;

  if (!(n > 0.0 && isfinite (n))) {
    q[0] = 1.0;
    q[1] = q[2] = q[3] = 0.0;
    return;
  }
  for (i = 0; i < 4; i++)
    q[i] /= n;
}

/* The rotation matrix (row-major) of a unit quaternion: about z by theta
 * it is [cos -sin 0; sin cos 0; 0 0 1], the turn of the picture clockwise
 * on screen (y down) as bspline_affine_decompose's angle. */
static void
quat_to_matrix (const double *q, double *r)
{
  double w = q[0], x = q[1], y = q[2], z = q[3];

  r[0] = 1.0 - 2.0 * (y * y + z * z);
  r[1] = 2.0 * (x * y - w * z);
  r[2] = 2.0 * (x * z + w * y);
  r[3] = 2.0 * (x * y + w * z);
  r[4] = 1.0 - 2.0 * (x * x + z * z);
  r[5] = 2.0 * (y * z - w * x);
  r[6] = 2.0 * (x * z - w * y);
  r[7] = 2.0 * (y * z + w * x);
  r[8] = 1.0 - 2.0 * (x * x + y * y);
}

/* The rotation about z by theta, clockwise on screen. */
static void
quat_about_z (double theta, double *q)
{
  q[0] = cos (0.5 * theta);
  q[1] = q[2] = 0.0;
  q[3] = sin (0.5 * theta);
}

/* q = swing twist: the swing (no z component) and the twist's angle. */
static void
quat_swing_twist (const double *q, double *swing, double *theta)
{
  double twist[4];

  *theta = 2.0 * atan2 (q[3], q[0]);
  quat_about_z (-*theta, twist);
  quat_multiply (q, twist, swing);
  swing[3] = 0.0;
  quat_normalize (swing);
}

/* The swing that takes e_z to the direction (dx, dy, 1): the quaternion
 * (1 + e_z . d, e_z x d) of the unit d, normalised. */
static void
quat_swing_to (double dx, double dy, double *q)
{
  double n = sqrt (dx * dx + dy * dy + 1.0);

  q[0] = 1.0 + 1.0 / n;
  q[1] = -dy / n;
  q[2] = dx / n;
  q[3] = 0.0;
  quat_normalize (q);
}

/* Where the swing moves the frame centre, in units of the focal length:
 * (q e_z)_xy / (q e_z)_z (the centre turned behind the camera, (q e_z)_z
 * <= 0: infinite, with the direction's signs). */
static void
swing_shift (const double *q, double *sx, double *sy)
{
  double r[9];

  quat_to_matrix (q, r);
  if (r[8] > 0.0) {
    *sx = r[2] / r[8];
    *sy = r[5] / r[8];
  } else {
    *sx = r[2] == 0.0 ? 0.0 : copysign (HUGE_VAL, r[2]);
    *sy = r[5] == 0.0 ? 0.0 : copysign (HUGE_VAL, r[5]);
  }
}

/* The similarity about the centre that the rotation q projects to: the
 * centre moved as K q K^-1 moves it, turned by q's twist (path = optimal
 * solves over these). */
static void
rotation_to_similarity (const bspline_stabilizer * st, const double *q,
    bspline_affine * a)
{
  double swing[4], theta, sx, sy, c, s, f = st->p.focal;

  quat_swing_twist (q, swing, &theta);
  swing_shift (swing, &sx, &sy);
  c = cos (theta);
  s = sin (theta);
  a->m[0] = c;
  a->m[1] = -s;
  a->m[3] = s;
  a->m[4] = c;
  a->m[2] = st->cx + f * sx - c * st->cx + s * st->cy;
  a->m[5] = st->cy + f * sy - s * st->cx - c * st->cy;
}

/* The rotation that projects (rotation_to_similarity) to a similarity
 * that moves the centre and turns as the affine map a does there: the
 * inverse of the projection, exact where a is such a similarity. */
static void
similarity_to_rotation (const bspline_stabilizer * st,
    const bspline_affine * a, double *q)
{
  double dx, dy, angle, twist[4], swing[4];

  bspline_affine_decompose (a, st->cx, st->cy, &dx, &dy, &angle, NULL);
  quat_swing_to (dx / st->p.focal, dy / st->p.focal, swing);
  quat_about_z (angle * (BSPLINE_STABILIZE_PI / 180.0), twist);
  quat_multiply (swing, twist, q);
}

/* The eigenvector v of the largest eigenvalue of the symmetric 4x4 matrix
 * a (destroyed): cyclic Jacobi rotations until the off-diagonal part
 * vanishes (Golub & Van Loan, "Matrix Computations", 4th ed., sec. 8.5.3;
 * the rotation's tangent as Numerical Recipes, 2nd ed., eq. 11.1.8). */
static void
largest_eigenvector (double a[4][4], double v[4])
{
  double e[4][4] = { {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1} };
  double norm = 0.0;
  int sweep, p, q, k, best = 0;

  for (p = 0; p < 4; p++)
    for (q = 0; q < 4; q++)
      norm += a[p][q] * a[p][q];
  for (sweep = 0; sweep < 50; sweep++) {
    double off = 0.0;

    for (p = 0; p < 3; p++)
      for (q = p + 1; q < 4; q++)
        off += a[p][q] * a[p][q];
    if (!(off > 1e-30 * norm))
      break;
    for (p = 0; p < 3; p++)
      for (q = p + 1; q < 4; q++) {
        double theta, t, c, sn;

        if (a[p][q] == 0.0)
          continue;
        theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
        t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs (theta) + sqrt (theta * theta
                + 1.0));
        c = 1.0 / sqrt (t * t + 1.0);
        sn = t * c;
        for (k = 0; k < 4; k++) {
          double kp = a[k][p], kq = a[k][q];

          a[k][p] = c * kp - sn * kq;
          a[k][q] = sn * kp + c * kq;
        }
        for (k = 0; k < 4; k++) {
          double pk = a[p][k], qk = a[q][k];

          a[p][k] = c * pk - sn * qk;
          a[q][k] = sn * pk + c * qk;
        }
        for (k = 0; k < 4; k++) {
          double kp = e[k][p], kq = e[k][q];

          e[k][p] = c * kp - sn * kq;
          e[k][q] = sn * kp + c * kq;
        }
      }
  }
  for (k = 1; k < 4; k++)
    if (a[k][k] > a[best][best])
      best = k;
  for (k = 0; k < 4; k++)
    v[k] = e[k][best];
}

/* The ray of pixel (x, y) through K (focal f, centre c), unit length. */
static void
pixel_ray (double x, double y, double cx, double cy, double f, double *d)
{
  double n;

  d[0] = (x - cx) / f;
  d[1] = (y - cy) / f;
  d[2] = 1.0;
  n = sqrt (d[0] * d[0] + d[1] * d[1] + 1.0);
  d[0] /= n;
  d[1] /= n;
  d[2] /= n;
}

#define ROTATION_FIT_GRID 7

int
bspline_stabilize_rotation_fit (const bspline_affine * motion, int width,
    int height, double focal, double q[4])
{
  const double *m = motion->m;
  double cx = 0.5 * width, cy = 0.5 * height, sab[3][3], n[4][4];
  int i, j, finite = focal > 0.0 && isfinite (focal);

  q[0] = 1.0;
  q[1] = q[2] = q[3] = 0.0;
  for (i = 0; i < 6; i++)
    finite = finite && isfinite (m[i]);
  if (!finite)
    return 0;
  /* S = sum of a b^T over the grid, a the ray of a point, b of its image */
  memset (sab, 0, sizeof (sab));
  for (j = 0; j < ROTATION_FIT_GRID; j++)
    for (i = 0; i < ROTATION_FIT_GRID; i++) {
      double x = width * (i + 0.5) / ROTATION_FIT_GRID;
      double y = height * (j + 0.5) / ROTATION_FIT_GRID;
      double a[3], b[3];
      int r, c;

      pixel_ray (x, y, cx, cy, focal, a);
      pixel_ray (m[0] * x + m[1] * y + m[2], m[3] * x + m[4] * y + m[5], cx,
          cy, focal, b);
      for (r = 0; r < 3; r++)
        for (c = 0; c < 3; c++)
          sab[r][c] += a[r] * b[c];
    }
  /* Horn 1987, eq. 4.12 (his M = sab): the unit quaternion maximising
   * sum b . (q a q*) is the eigenvector of N's largest eigenvalue */
  n[0][0] = sab[0][0] + sab[1][1] + sab[2][2];
  n[0][1] = n[1][0] = sab[1][2] - sab[2][1];
  n[0][2] = n[2][0] = sab[2][0] - sab[0][2];
  n[0][3] = n[3][0] = sab[0][1] - sab[1][0];
  n[1][1] = sab[0][0] - sab[1][1] - sab[2][2];
  n[1][2] = n[2][1] = sab[0][1] + sab[1][0];
  n[1][3] = n[3][1] = sab[2][0] + sab[0][2];
  n[2][2] = -sab[0][0] + sab[1][1] - sab[2][2];
  n[2][3] = n[3][2] = sab[1][2] + sab[2][1];
  n[3][3] = -sab[0][0] - sab[1][1] + sab[2][2];
  largest_eigenvector (n, q);
  quat_normalize (q);
  if (q[0] < 0.0)
    for (i = 0; i < 4; i++)
      q[i] = -q[i];
  return 1;
}

/* The rigid map about the centre of the path parameters p (the shift of
 * the centre, the angle): path[4 .. 6] of the rotation model. */
static void
rigid_to_affine (const bspline_stabilizer * st, const double *p,
    bspline_affine * a)
{
  double c = cos (p[2]), s = sin (p[2]);

  a->m[0] = c;
  a->m[1] = -s;
  a->m[3] = s;
  a->m[4] = c;
  a->m[2] = st->cx + p[0] - c * st->cx + s * st->cy;
  a->m[5] = st->cy + p[1] - s * st->cx - c * st->cy;
}

/* model = rotation: frame n's path from the motion (see above) */
static void
rotation_push (bspline_stabilizer * st, long n, const bspline_affine * motion)
{
  double *q = st->path[st->count], step[4] = { 1.0, 0.0, 0.0, 0.0 };
  double dot = 0.0;
  const double *prev = st->count > 0 ? st->path[st->count - 1] : NULL;
  bspline_affine projected;
  int i;

  memset (q, 0, PATH_PARAMS * sizeof (double));
  q[0] = 1.0;
  if (n == 0 || prev == NULL)
    return;
  bspline_stabilize_rotation_fit (motion, st->p.width, st->p.height,
      st->p.focal, step);
  quat_multiply (step, prev, q);
  quat_normalize (q);
  /* A_k = P(Q_k) A_(k-1): the angles add, the shift turns */
  rotation_to_similarity (st, step, &projected);
  {
    double c = projected.m[0], sn = projected.m[3];
    double sx = projected.m[0] * st->cx + projected.m[1] * st->cy
        + projected.m[2] - st->cx;
    double sy = projected.m[3] * st->cx + projected.m[4] * st->cy
        + projected.m[5] - st->cy;

    q[4] = c * prev[4] - sn * prev[5] + sx;
    q[5] = sn * prev[4] + c * prev[5] + sy;
    q[6] = prev[6] + atan2 (sn, c);
  }
  for (i = 0; i < 4; i++)
    dot += q[i] * prev[i];
  if (dot < 0.0)
    for (i = 0; i < 4; i++)
      q[i] = -q[i];
}

bspline_status
bspline_stabilizer_push (bspline_stabilizer * st, const bspline_affine * motion)
{
  bspline_affine a;
  long n = st->base + st->count;
  double prev_theta = 0.0;
  int i, finite = 1;

  if (st->count == st->capacity) {
    long keep_from = st->next - 2 * st->p.smoothing - 1 - PATH_FIXED, drop;

    drop = keep_from - st->base;
    if (drop > 0) {
      memmove (st->path, st->path + drop,
          (size_t) (st->count - drop) * sizeof (*st->path));
      st->base += drop;
      st->count -= drop;
    } else {
      double (*grown)[PATH_PARAMS] = realloc (st->path,
          (size_t) st->capacity * 2 * sizeof (*st->path));

      if (grown == NULL)
        return BSPLINE_ERROR_NO_MEMORY;
      st->path = grown;
      st->capacity *= 2;
    }
  }

  if (st->p.model == BSPLINE_MOTION_ROTATION) {
    rotation_push (st, n, motion);
    st->count++;
    return BSPLINE_OK;
  }
  for (i = 0; i < 6; i++)
    finite = finite && isfinite (motion->m[i]);
  if (n == 0 || !finite) {
    if (n == 0)
      bspline_affine_identity (&a);
    else
      a = st->last;
  } else {
    bspline_affine_compose (motion, &st->last, &a);
  }
  if (st->count > 0)
    prev_theta = st->path[st->count - 1][2];
  path_from_affine (st, &a, prev_theta, st->path[st->count]);
  st->last = a;
  st->count++;
  return BSPLINE_OK;
}

int
bspline_stabilizer_pending (const bspline_stabilizer * st)
{
  return (int) (st->base + st->count - st->next);
}

int
bspline_stabilizer_ready (const bspline_stabilizer * st, int final)
{
  long newest = st->base + st->count - 1;

  if (st->next > newest)
    return 0;
  return final || st->next + st->p.smoothing <= newest;
}

/* A_k: frame 0's pixels -> frame k's (model = rotation: the projected
 * steps composed, path[4 .. 6]). */
static void
camera_affine (const bspline_stabilizer * st, long k, bspline_affine * a)
{
  if (st->p.model == BSPLINE_MOTION_ROTATION)
    rigid_to_affine (st, path_at (st, k) + 4, a);
  else
    path_to_affine (st, path_at (st, k), a);
}

/* A_k^-1: frame k's pixels -> frame 0's (the identity where A_k is
 * singular). */
static void
camera_inverse (const bspline_stabilizer * st, long k, bspline_affine * inv)
{
  bspline_affine real;

  camera_affine (st, k, &real);
  if (!bspline_affine_invert (&real, inv))
    bspline_affine_identity (inv);
}

/* The intended path's first n parameters at frame k: the weighted
 * least-squares line through the window about k, at k (local linear
 * regression, the top of the file), from the frames up to newest. */
static void
path_smooth (const bspline_stabilizer * st, long k, long newest, int n,
    double *q)
{
  int s = st->p.smoothing, i;
  long first = k - s, last = k + s, j;
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, y0[PATH_PARAMS], y1[PATH_PARAMS];
  double centre, sigma = s / 3.0, det;

  /* a window cut by the stream's start or end slides inside it */
  if (first < 0) {
    first = 0;
    last = 2 * s < newest ? 2 * s : newest;
  } else if (last > newest) {
    last = newest;
    first = newest - 2 * s > st->base ? newest - 2 * s : st->base;
  }
  centre = 0.5 * (first + last);
  memset (y0, 0, sizeof (y0));
  memset (y1, 0, sizeof (y1));
  for (j = first; j <= last; j++) {
    double u = (j - centre) / sigma, d = (double) (j - k);
    double w = s == 0 ? 1.0 : exp (-0.5 * u * u);
    const double *v = path_at (st, j);

    s0 += w;
    s1 += w * d;
    s2 += w * d * d;
    for (i = 0; i < n; i++) {
      y0[i] += w * v[i];
      y1[i] += w * d * v[i];
    }
  }
  det = s0 * s2 - s1 * s1;
  for (i = 0; i < n; i++)
    q[i] = det > 1e-9 * s0 * s2 ? (s2 * y0[i] - s1 * y1[i]) / det : y0[i] / s0;
}

/* The Gaussian path's correction of frame k (tripod: A_k^-1), before the
 * clamps and the zoom, from the frames up to newest. */
static void
gaussian_correction (const bspline_stabilizer * st, long k, long newest,
    bspline_affine * correction)
{
  bspline_affine real_inv, smooth;
  double q[PATH_PARAMS];

  camera_inverse (st, k, &real_inv);
  if (st->p.tripod) {
    *correction = real_inv;
  } else {
    path_smooth (st, k, newest, PATH_PARAMS, q);
    path_to_affine (st, q, &smooth);
    bspline_affine_compose (&smooth, &real_inv, correction);
  }
}

/* model = rotation: the intended camera S_j of frame j (a unit
 * quaternion): the identity with tripod; path = optimal, C R_j with C the
 * rotation whose projection is the solver's correction B_j^-1; path =
 * gaussian, the regression of the quaternions.  Returns 0 where it is not
 * known yet (beyond the optimal path's window). */
static int
rotation_intended (const bspline_stabilizer * st, long j, long newest,
    double *s)
{
  if (st->p.tripod) {
    s[0] = 1.0;
    s[1] = s[2] = s[3] = 0.0;
  } else if (st->solver) {
    bspline_affine b_inv;
    double c[4];

    if (j < st->win_from || j >= st->win_from + st->win_count
        || !bspline_affine_invert (&st->win_b[j - st->win_from], &b_inv))
      return 0;
    similarity_to_rotation (st, &b_inv, c);
    quat_multiply (c, path_at (st, j), s);
  } else {
    path_smooth (st, j, newest, 4, s);
    quat_normalize (s);
  }
  return 1;
}

/* model = rotation, horizon lock: the horizon of frame 0, at horizon_angle
 * degrees (clockwise on screen) there, is the vanishing line of the plane
 * whose normal is frame 0's up direction u = (sin a, -cos a, 0) (the
 * optical axis of frame 0 taken as level); it is level in the view of S
 * where S u has no x component.  S is turned about its optical axis (on
 * the left: the output's roll) until it is: the roll held is the horizon's
 * own, whatever the yaw and pitch (a swing-twist split would hold the
 * picture's turn at the centre instead, which under yaw and pitch
 * together differs from the horizon's by about yaw pitch / 2). */
static void
rotation_lock_horizon (const bspline_stabilizer * st, double *s)
{
  double a = st->p.horizon_angle * (BSPLINE_STABILIZE_PI / 180.0), r[9];
  double vx, vy, turn[4];

  quat_to_matrix (s, r);
  vx = r[0] * sin (a) - r[1] * cos (a);
  vy = r[3] * sin (a) - r[4] * cos (a);
  quat_about_z (-atan2 (vx, -vy), turn);
  quat_multiply (turn, s, s);
}

/* model = rotation: max-angle and max-shift applied to the correction's
 * rotation q (K q K^-1), as stabilize_clamp to a similarity's: q = swing
 * twist; the twist, the correction's roll at the centre, is clamped to
 * max-angle, then the swing is replaced by the one that moves the centre
 * by the shift clamped to max-shift on each axis (the twist kept). */
static void
rotation_clamp (const bspline_stabilizer * st, double *q)
{
  double swing[4], twist[4], theta, f = st->p.focal;

  if (st->p.max_angle < 0.0 && st->p.max_shift < 0.0)
    return;
  quat_swing_twist (q, swing, &theta);
  if (st->p.max_angle >= 0.0) {
    double max = st->p.max_angle * (BSPLINE_STABILIZE_PI / 180.0);

    theta = fmax (-max, fmin (max, theta));
  }
  if (st->p.max_shift >= 0.0) {
    double sx, sy, m = st->p.max_shift / f;

    swing_shift (swing, &sx, &sy);
    quat_swing_to (fmax (-m, fmin (m, sx)), fmax (-m, fmin (m, sy)), swing);
  }
  quat_about_z (theta, twist);
  quat_multiply (swing, twist, q);
}

/* model = rotation: the correction of frame k as a homography, K S_k
 * R_k^-1 K^-1, with the horizon lock and the clamps, before the zoom.
 * Returns 0 where it is not known yet. */
static int
rotation_correction (const bspline_stabilizer * st, long k, long newest,
    double h[9])
{
  const double *r = path_at (st, k);
  double f = st->p.focal, cx = st->cx, cy = st->cy;
  double smooth[4], rel[4], m[9], t[9];
  double inv[4] = { r[0], -r[1], -r[2], -r[3] };
  double k_mat[9] = { f, 0.0, cx, 0.0, f, cy, 0.0, 0.0, 1.0 };
  double k_inv[9] = { 1.0 / f, 0.0, -cx / f, 0.0, 1.0 / f, -cy / f, 0.0, 0.0,
    1.0
  };

  if (!rotation_intended (st, k, newest, smooth))
    return 0;
  if (st->p.horizon_lock)
    rotation_lock_horizon (st, smooth);
  quat_multiply (smooth, inv, rel);
  rotation_clamp (st, rel);
  quat_to_matrix (rel, m);
  bspline_matrix_multiply (k_mat, m, t);
  bspline_matrix_multiply (t, k_inv, h);
  return 1;
}

/* max-angle and max-shift applied to a correction, about the centre:
 * C(p) = c + L (p - c) + t. */
static void
stabilize_clamp (const bspline_stabilizer * st, bspline_affine * correction)
{
  double dx, dy, angle;

  bspline_affine_decompose (correction, st->cx, st->cy, &dx, &dy, &angle, NULL);
  if (st->p.max_angle >= 0.0 && fabs (angle) > st->p.max_angle) {
    double target = angle > 0 ? st->p.max_angle : -st->p.max_angle;
    double r = (target - angle) * (BSPLINE_STABILIZE_PI / 180.0), c =
        cos (r), sn = sin (r);
    bspline_affine rot = { {c, -sn, 0, sn, c, 0} };

    rot.m[2] = st->cx - c * st->cx + sn * st->cy;
    rot.m[5] = st->cy - sn * st->cx - c * st->cy;
    bspline_affine_compose (&rot, correction, correction);
    bspline_affine_decompose (correction, st->cx, st->cy, &dx, &dy, NULL, NULL);
  }
  if (st->p.max_shift >= 0.0) {
    double cdx = fmax (-st->p.max_shift, fmin (st->p.max_shift, dx));
    double cdy = fmax (-st->p.max_shift, fmin (st->p.max_shift, dy));

    correction->m[2] += cdx - dx;
    correction->m[5] += cdy - dy;
  }
}

/* A B within PATH_SNAP of the identity (in pixels at a distance of 1000
 * pixels from the centre) is the solver's rounding around a still camera:
 * it becomes the identity, so that the frames of a still shot pass through
 * untouched as with the Gaussian path. */
static void
snap_identity (bspline_affine * b)
{
  static const double id[6] = { 1, 0, 0, 0, 1, 0 };
  int i;

  for (i = 0; i < 6; i++)
    if (fabs (b->m[i] - id[i]) * (i == 2 || i == 5 ? 1.0 : 1000.0)
        > PATH_SNAP)
      return;
  bspline_affine_identity (b);
}

/* path = optimal: B_j (crop window -> frame j) of the frames k .. from
 * one solve over k .. k + smoothing (final: .. newest, at most
 * PATH_MAX_WHOLE frames, and the solution kept for the pops after it),
 * continuing from the B of the frames k - 3 .. k - 1 already output.
 * Where the solver cannot take the window (a camera path that is not
 * finite, no memory for a whole clip's solve), the window is cut, and at
 * worst frame k keeps frame k - 1's output still. */
static void
optimal_window (bspline_stabilizer * st, long k, long newest, int final)
{
  long last = final ? newest : k + st->p.smoothing, first, j;
  int nf = k < PATH_FIXED ? (int) k : PATH_FIXED, n, i;
  char msg[256];

  if (st->win_final && k >= st->win_from && k < st->win_from + st->win_count)
    return;
  if (last > newest)
    last = newest;
  if (last - k + 1 > PATH_MAX_WHOLE)
    last = k + PATH_MAX_WHOLE - 1;
  first = k - nf;
  n = (int) (last - first + 1);
  if (n > st->solver_frames && path_solver (st, n, msg, sizeof (msg))
      != BSPLINE_OK) {
    last = first + st->solver_frames - 1;
    n = st->solver_frames;
  }
  for (i = 0; i < n; i++) {
    j = first + i;
    camera_inverse (st, j, &st->win_camera[i]);
    if (i < nf)
      st->win_fixed[i] = st->done_b[j % (PATH_FIXED + 1)];
  }
  st->win_from = k;
  st->win_count = (int) (last - k + 1);
  st->win_final = final && last == newest;
  if (bspline_camera_path_solve (st->solver, st->win_camera, n,
          st->win_fixed, nf, st->win_b, NULL) == BSPLINE_OK) {
    memmove (st->win_b, st->win_b + nf,
        (size_t) st->win_count * sizeof (bspline_affine));
    for (i = 0; i < st->win_count; i++)
      snap_identity (&st->win_b[i]);
    return;
  }
  /* held still: C_k B_k = C_(k-1) B_(k-1) */
  if (k == 0) {
    bspline_affine_identity (&st->win_b[0]);
  } else {
    bspline_affine real, prev_inv, step;

    camera_affine (st, k, &real);
    camera_inverse (st, k - 1, &prev_inv);
    bspline_affine_compose (&real, &prev_inv, &step);
    bspline_affine_compose (&step, &st->done_b[(k - 1) % (PATH_FIXED + 1)],
        &st->win_b[0]);
  }
  st->win_count = 1;
  st->win_final = 0;
}

/* Horizon lock: the intended camera S = C o A_j of a correction C, its
 * roll replaced by the locked one (path_from_affine's parameters about the
 * centre: only theta changes), the correction made again from it. */
static void
stabilize_lock_horizon (const bspline_stabilizer * st, long j,
    bspline_affine * correction)
{
  double lock = -st->p.horizon_angle * (BSPLINE_STABILIZE_PI / 180.0);
  double q[PATH_PARAMS];
  bspline_affine real, real_inv, smooth;

  path_to_affine (st, path_at (st, j), &real);
  if (!bspline_affine_invert (&real, &real_inv))
    return;
  bspline_affine_compose (correction, &real, &smooth);
  path_from_affine (st, &smooth, lock, q);
  q[2] = lock;
  path_to_affine (st, q, &smooth);
  bspline_affine_compose (&smooth, &real_inv, correction);
}

/* The clamped correction of frame j >= k (the oldest pending frame, whose
 * optimal window has been solved), before any zoom, from the frames up to
 * newest.  Returns 0 where it is not known yet (beyond the window). */
static int
stabilize_correction (const bspline_stabilizer * st, long j, long newest,
    bspline_affine * correction)
{
  if (st->solver) {
    if (j < st->win_from || j >= st->win_from + st->win_count
        || !bspline_affine_invert (&st->win_b[j - st->win_from], correction))
      return 0;
  } else {
    gaussian_correction (st, j, newest, correction);
  }
  if (st->p.horizon_lock)
    stabilize_lock_horizon (st, j, correction);
  stabilize_clamp (st, correction);
  return 1;
}

bspline_status
bspline_stabilizer_set_horizon (bspline_stabilizer * st, int horizon_lock,
    double horizon_angle)
{
  if (!(fabs (horizon_angle) <= 180.0))
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  st->p.horizon_lock = horizon_lock != 0;
  st->p.horizon_angle = horizon_angle;
  return BSPLINE_OK;
}

/* The correction of frame j as a 3x3 matrix (stabilize_correction's, or
 * the rotation model's homography).  Returns 0 where it is not known. */
static int
stabilize_correction_matrix (const bspline_stabilizer * st, long j,
    long newest, double h[9])
{
  bspline_affine c;

  if (st->p.model == BSPLINE_MOTION_ROTATION)
    return rotation_correction (st, j, newest, h);
  if (!stabilize_correction (st, j, newest, &c))
    return 0;
  bspline_affine_to_matrix (&c, h);
  return 1;
}

double
bspline_stabilize_cover_zoom (const bspline_affine * correction, int width,
    int height, double max_zoom)
{
  double m[9];

  bspline_affine_to_matrix (correction, m);
  return bspline_stabilize_cover_zoom_matrix (m, width, height, max_zoom);
}

double
bspline_stabilize_cover_zoom_matrix (const double correction[9], int width,
    int height, double max_zoom)
{
  double inv[9];
  double lo = 1.0, hi = max_zoom, cx = 0.5 * width, cy = 0.5 * height;
  int it, k;

  if (!bspline_matrix_invert (correction, inv))
    return max_zoom;
  for (it = 0; it <= 60; it++) {
    double z = it == 0 ? 1.0 : it == 1 ? max_zoom : 0.5 * (lo + hi);
    int inside = 1;

    for (k = 0; k < 4 && inside; k++) {
      double qx = cx + (((k & 1) ? width : 0) - cx) / z;
      double qy = cy + (((k & 2) ? height : 0) - cy) / z;
      double pw = inv[6] * qx + inv[7] * qy + inv[8];
      double px = (inv[0] * qx + inv[1] * qy + inv[2]) / pw;
      double py = (inv[3] * qx + inv[4] * qy + inv[5]) / pw;
      double tol = 1e-9 * (width + height);

      /* (a corner behind the camera, pw <= 0, is outside) */
      inside = pw > 0.0 && px >= -tol && py >= -tol && px <= width + tol
          && py <= height + tol;
    }
    if (it == 0 && inside)
      return 1.0;
    if (it == 1 && !inside)
      return max_zoom;
    if (it >= 2) {
      if (inside)
        hi = z;
      else
        lo = z;
    }
  }
  return hi;
}

static double
stabilize_auto_zoom (bspline_stabilizer * st, long k, long newest)
{
  int s = st->p.smoothing;
  long first = k - 2 * s, last = k + 2 * s, j, i;
  double *req, num = 0.0, den = 0.0, z;

  if (first < 0)
    first = 0;
  if (last > newest)
    last = newest;
  /* path = optimal: the corrections after the window are not known */
  if (st->solver && last >= st->win_from + st->win_count)
    last = st->win_from + st->win_count - 1;
  req = malloc ((size_t) (last - first + 1) * sizeof (double));
  if (req == NULL)
    return 1.0;
  for (j = first; j <= last; j++) {
    if (j < k) {
      req[j - first] = st->past_req[j % st->window];
    } else {
      double c[9];

      if (!stabilize_correction_matrix (st, j, newest, c))
        bspline_matrix_identity (c);
      req[j - first] = bspline_stabilize_cover_zoom_matrix (c, st->p.width,
          st->p.height, st->p.max_zoom);
    }
  }
  st->past_req[k % st->window] = req[k - first];
  for (j = k - s; j <= k + s; j++) {
    double m = 1.0;

    if (j < first || j > last)
      continue;
    for (i = j - s; i <= j + s; i++)
      if (i >= first && i <= last)
        m = fmax (m, req[i - first]);
    num += st->weights[j - k + s] * m;
    den += st->weights[j - k + s];
  }
  z = den > 0.0 ? num / den : req[k - first];
  free (req);
  return fmax (z, 1.0);
}

/* The affine map nearest the homography h at (cx, cy): its value and
 * Jacobian there. */
static void
matrix_nearest_affine (const double *h, double cx, double cy,
    bspline_affine * a)
{
  double w = h[6] * cx + h[7] * cy + h[8];
  double u = (h[0] * cx + h[1] * cy + h[2]) / w;
  double v = (h[3] * cx + h[4] * cy + h[5]) / w;

  a->m[0] = (h[0] - u * h[6]) / w;
  a->m[1] = (h[1] - u * h[7]) / w;
  a->m[3] = (h[3] - v * h[6]) / w;
  a->m[4] = (h[4] - v * h[7]) / w;
  a->m[2] = u - a->m[0] * cx - a->m[1] * cy;
  a->m[5] = v - a->m[3] * cx - a->m[4] * cy;
}

bspline_status
bspline_stabilizer_pop (bspline_stabilizer * st, int final,
    bspline_stabilize_result * result)
{
  long k = st->next, newest = st->base + st->count - 1;
  bspline_affine c, zoom;
  double z, h[9];

  if (!bspline_stabilizer_ready (st, final))
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  if (st->solver) {
    optimal_window (st, k, newest, final);
    st->done_b[k % (PATH_FIXED + 1)] = st->win_b[k - st->win_from];
  }
  if (st->p.model == BSPLINE_MOTION_ROTATION) {
    if (!rotation_correction (st, k, newest, h))
      bspline_matrix_identity (h);
  } else if (!stabilize_correction (st, k, newest, &c))
    bspline_affine_identity (&c);
  z = 1.0 + st->p.zoom / 100.0;
  if (st->p.auto_zoom)
    z *= stabilize_auto_zoom (st, k, newest);
  z = fmin (z, st->p.max_zoom);
  bspline_affine_identity (&zoom);
  zoom.m[0] = z;
  zoom.m[4] = z;
  zoom.m[2] = st->cx - z * st->cx;
  zoom.m[5] = st->cy - z * st->cy;
  if (st->p.model == BSPLINE_MOTION_ROTATION) {
    double zm[9];

    bspline_affine_to_matrix (&zoom, zm);
    bspline_matrix_multiply (zm, h, result->matrix);
    matrix_nearest_affine (result->matrix, st->cx, st->cy, &result->correction);
  } else {
    bspline_affine_compose (&zoom, &c, &result->correction);
    bspline_affine_to_matrix (&result->correction, result->matrix);
  }
  result->zoom = z;
  st->next++;
  return BSPLINE_OK;
}
