/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* camera-path.c: the L1-optimal camera path of Grundmann, Kwatra & Essa,
 * CVPR 2011 ([GKE11]), by a primal-dual interior-point method (see
 * camera-path.h; docs/notes/l1-camera-path.md numbers the equations cited
 * here as (N1) .. (N12)).
 *
 * The linear program.  Coordinates are centred on the frame (x - c, with c
 * the frame centre), so that a rotation of the crop window about the
 * centre is not also a translation.  B_t's parameter vector p_t is (tx, ty,
 * a, b) for the similarity [[a, -b, tx], [b, a, ty]] and (tx, ty, a, b, c,
 * d) for the affine [[a, b, tx], [c, d, ty]].  The residual motion
 * ([GKE11] sec. 3.1) is linear in p:
 *
 *   R_u = F_(u+1) B_(u+1) - B_u,   r_u = T_(u+1) p_(u+1) + phi_(u+1) - p_u
 *                                                                   (N3)
 *
 * where T_t is left multiplication by F_t's linear part and phi_t holds
 * F_t's translation.  The path's derivatives are differences of R:
 * D P ~ r_u, D^2 P ~ r_(u+1) - r_u, D^3 P ~ r_(u+2) - 2 r_(u+1) + r_u
 * ([GKE11] sec. 3.1, (N4)).  Every component k of every difference is an
 * L1 term with its slack e_j >= |v_j| ([GKE11] sec. 3, Algorithm 1):
 *
 *   v_j - e_j <= 0,   -v_j - e_j <= 0,   weight w_m c_k        (N5, N6)
 *
 * The crop window's corners q_i stay inside the frame (inclusion, [GKE11]
 * sec. 3.2), relaxed by s_t >= 0 pixels at price crop_penalty:
 *
 *   +-(B_t q_i)_x - s_t <= W / 2,   +-(B_t q_i)_y - s_t <= H / 2    (N7)
 *
 * and B_t's linear part stays near the identity (proximity, (N8)).  In
 * all: minimise c^T z over z = (p, e, s) subject to A z <= b.
 *
 * The solver (Mehrotra 1992, predictor-corrector; Wright 1997, "Primal-dual
 * interior-point methods", ch. 10 for the algorithm and ch. 11 for the
 * normal equations).  With slacks w = b - A z > 0 and multipliers lam > 0
 * each Newton step solves A^T D A dz = rhs, D = lam / w (N10).  Each e_j
 * and s_t appears in few rows, so they are eliminated in closed form
 * (N11), leaving a system in p alone whose matrix is L^T K L plus one
 * block per frame: L (r = L p) couples neighbouring frames and K (the
 * difference stencils) couples r over 3 frames, so the matrix is banded
 * with 4 frames of band (half-bandwidth 4 n - 1), factored by a banded
 * Cholesky in O(N n^3) per iteration (N12).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "camera-path.h"

#define CP_MAX_PARAMS 6
/* 4 corners x 2 coordinates (one side each), 6 proximity pairs (affine) */
#define CP_MAX_LOCAL (8 + 12)
#define CP_KINDS 3
/* Pixels by which the crop window may leave a frame and still count as
 * inside (the solution is accurate to far less). */
#define CP_INSIDE_TOLERANCE 1e-3

struct bspline_camera_path
{
  bspline_camera_path_params params;
  int n;                        /* parameters per frame */
  int max_frames;
  double cx, cy;                /* frame centre */
  double weight[CP_MAX_PARAMS]; /* c_k */
  double kind_weight[CP_KINDS]; /* w1, w2, w3 */
  double penalty;
  /* the rows of one frame: inclusion (with -s_t) and proximity */
  int n_local, n_inclusion;
  double local_a[CP_MAX_LOCAL][CP_MAX_PARAMS];
  double local_b[CP_MAX_LOCAL];
  int local_s[CP_MAX_LOCAL];
  /* the fidelity term (data_weight > 0): 1/2 (p_t - p0)^T Q (p_t - p0)
   * per free frame, p0 the parameters of B = I */
  int quadratic;
  double Q[CP_MAX_PARAMS][CP_MAX_PARAMS], p0[CP_MAX_PARAMS];

  /* the current problem */
  int n_frames, n_fixed, n_free;
  int term_lo[CP_KINDS], term_count[CP_KINDS], term_off[CP_KINDS];
  int n_terms;                  /* terms x components: the e variables */
  int n_rows, kd;
  /* the parameters in pairs on which F_t's linear part acts alike:
   * (tx, ty), (a, b) for a similarity; (tx, ty), (a, c), (b, d) affine */
  int n_pairs, pair[3][2];
  double *F;                    /* [N][4]: F_t's linear part f0 f1 f3 f4 */
  double *phi;                  /* [N][2]: F_t's translation */
  double *cw;                   /* [n_terms] objective weight of e_j */

  /* the iterate and its step */
  double *p, *e, *s, *w, *lam;
  double *dp, *de, *ds, *dw, *dlam;
  double *dw_aff, *dlam_aff;
  double *dp_keep, *de_keep, *ds_keep;  /* a direction kept (correctors) */
  double *inv_w, *inv_lam, *d;  /* 1 / w, 1 / lam, lam / w */

  /* scratch */
  double *act, *rp, *rc, *q, *rd_p, *rd_e, *rd_s, *g_p, *g_e, *g_s;
  double *r, *rho, *K, *tv, *ty;
  double *band, *diag, *inv_diag;
  /* per term 1 / h_j and b_j = (D- - D+) / h_j, per frame v and h (N11) */
  double *term_h, *term_b, *frame_v, *frame_h;
  double *rhs_p;
};

/* ---- parameters ---- */

void
bspline_camera_path_params_init (bspline_camera_path_params * params,
    int width, int height)
{
  memset (params, 0, sizeof (*params));
  params->model = BSPLINE_MOTION_SIMILARITY;
  params->width = width;
  params->height = height;
  params->zoom = 1.1;
  params->w1 = 10.0;
  params->w2 = 1.0;
  params->w3 = 100.0;
  params->linear_weight = 100.0;
  params->max_scale = 0.1;
  params->max_rotation = 0.1;
  params->max_skew = 0.05;
  params->max_aspect = 0.1;
  params->crop_penalty = 0.0;
  params->data_weight = 0.0;
  params->max_iterations = 60;
  params->tolerance = 1e-8;
}

static int
positive_finite (double x)
{
  return isfinite (x) && x > 0.0;
}

static bspline_status
params_check (const bspline_camera_path_params * p, char *msg, size_t msg_len)
{
  const char *why = NULL;

  if (p->model != BSPLINE_MOTION_SIMILARITY
      && p->model != BSPLINE_MOTION_AFFINE)
    why = "model must be similarity or affine";
  else if (p->width < 1 || p->height < 1 || p->width > BSPLINE_MAX_SIDE
      || p->height > BSPLINE_MAX_SIDE)
    why = "frame size out of range";
  else if (!positive_finite (p->zoom))
    why = "zoom must be finite and > 0";
  else if (!isfinite (p->w1) || !isfinite (p->w2) || !isfinite (p->w3)
      || p->w1 < 0.0 || p->w2 < 0.0 || p->w3 < 0.0)
    why = "weights w1, w2, w3 must be finite and >= 0";
  else if (!positive_finite (p->linear_weight))
    why = "linear_weight must be finite and > 0";
  else if (!positive_finite (p->max_scale) || p->max_scale >= 1.0
      || !positive_finite (p->max_rotation)
      || !positive_finite (p->max_skew) || !positive_finite (p->max_aspect))
    why = "proximity bounds must be finite and > 0, max_scale < 1";
  else if (!isfinite (p->crop_penalty) || p->crop_penalty < 0.0)
    why = "crop_penalty must be finite and >= 0";
  else if (!isfinite (p->data_weight) || p->data_weight < 0.0)
    why = "data_weight must be finite and >= 0";
  else if (p->max_iterations < 1)
    why = "max_iterations must be >= 1";
  else if (!(p->tolerance > 0.0 && p->tolerance < 1.0))
    why = "tolerance must be in (0, 1)";
  if (why == NULL)
    return BSPLINE_OK;
  if (msg && msg_len)
    snprintf (msg, msg_len, "camera path: %s", why);
  return BSPLINE_ERROR_INVALID_ARGUMENT;
}

/* One row of a frame: coefficients on p_t, bound, and whether s_t relaxes
 * it. */
static void
add_local (bspline_camera_path * cp, const double *a, double bound, int relaxed)
{
  int k;

  for (k = 0; k < CP_MAX_PARAMS; k++)
    cp->local_a[cp->n_local][k] = k < cp->n ? a[k] : 0.0;
  cp->local_b[cp->n_local] = bound;
  cp->local_s[cp->n_local] = relaxed;
  cp->n_local++;
}

/* Both sides lo <= a . p <= hi of a row. */
static void
add_local_pair (bspline_camera_path * cp, const double *a, double lo,
    double hi, int relaxed)
{
  double neg[CP_MAX_PARAMS];
  int k;

  for (k = 0; k < cp->n; k++)
    neg[k] = -a[k];
  add_local (cp, a, hi, relaxed);
  add_local (cp, neg, -lo, relaxed);
}

static const double *
negated (const bspline_camera_path * cp, const double *a, double *out)
{
  int k;

  for (k = 0; k < cp->n; k++)
    out[k] = -a[k];
  return out;
}

/* The rows (N7) and (N8), the same for every frame. */
static void
build_local_rows (bspline_camera_path * cp)
{
  const bspline_camera_path_params *p = &cp->params;
  double hw = 0.5 * p->width, hh = 0.5 * p->height;
  int corner, affine = cp->n == 6;

  /* Of the 16 rows, +-(B q)_x <= W / 2 at every corner and the same for
   * y, only 8 can bind: with a > 0 (and d > 0), which proximity ensures
   * (max_scale < 1), the right corners have the larger x, so only their
   * upper bounds count, and so on; the others are left out. */
  cp->n_local = 0;
  for (corner = 0; corner < 4; corner++) {
    /* the crop window's corner in centred coordinates */
    double qx = ((corner & 1) ? hw : -hw) / p->zoom;
    double qy = ((corner & 2) ? hh : -hh) / p->zoom;
    double ax[CP_MAX_PARAMS] = { 0 }, ay[CP_MAX_PARAMS] = { 0 };
    double neg[CP_MAX_PARAMS];

    /* (B q)_x = tx + a qx - b qy (similarity), tx + a qx + b qy (affine);
     * (B q)_y = ty + b qx + a qy, ty + c qx + d qy */
    ax[0] = 1.0;
    ay[1] = 1.0;
    if (affine) {
      ax[2] = qx;
      ax[3] = qy;
      ay[4] = qx;
      ay[5] = qy;
    } else {
      ax[2] = qx;
      ax[3] = -qy;
      ay[2] = qy;
      ay[3] = qx;
    }
    if (corner & 1)
      add_local (cp, ax, hw, 1);
    else
      add_local (cp, negated (cp, ax, neg), hw, 1);
    if (corner & 2)
      add_local (cp, ay, hh, 1);
    else
      add_local (cp, negated (cp, ay, neg), hh, 1);
  }
  cp->n_inclusion = cp->n_local;

  /* the fidelity term: data_weight / 2 times the mean over the frame's
   * four corners of |B q - q|^2, which is linear in p - p0 through the
   * same rows as above (at the frame's corners, not the crop window's) */
  memset (cp->Q, 0, sizeof (cp->Q));
  memset (cp->p0, 0, sizeof (cp->p0));
  cp->p0[2] = 1.0;
  if (affine)
    cp->p0[5] = 1.0;
  cp->quadratic = p->data_weight > 0.0;
  for (corner = 0; corner < 4 && cp->quadratic; corner++) {
    double qx = (corner & 1) ? hw : -hw, qy = (corner & 2) ? hh : -hh;
    double ax[CP_MAX_PARAMS] = { 0 }, ay[CP_MAX_PARAMS] = { 0 };
    int a, b;

    ax[0] = 1.0;
    ay[1] = 1.0;
    ax[2] = qx;
    if (affine) {
      ax[3] = qy;
      ay[4] = qx;
      ay[5] = qy;
    } else {
      ax[3] = -qy;
      ay[2] = qy;
      ay[3] = qx;
    }
    for (a = 0; a < cp->n; a++)
      for (b = 0; b < cp->n; b++)
        cp->Q[a][b] += 0.25 * p->data_weight * (ax[a] * ax[b] + ay[a] * ay[b]);
  }
  {
    double u[CP_MAX_PARAMS];

    /* scale: a (and d) within 1 +- max_scale */
    memset (u, 0, sizeof (u));
    u[2] = 1.0;
    add_local_pair (cp, u, 1.0 - p->max_scale, 1.0 + p->max_scale, 0);
    /* rotation: b (and c) within +- max_rotation */
    memset (u, 0, sizeof (u));
    u[3] = 1.0;
    add_local_pair (cp, u, -p->max_rotation, p->max_rotation, 0);
    if (affine) {
      memset (u, 0, sizeof (u));
      u[5] = 1.0;
      add_local_pair (cp, u, 1.0 - p->max_scale, 1.0 + p->max_scale, 0);
      memset (u, 0, sizeof (u));
      u[4] = 1.0;
      add_local_pair (cp, u, -p->max_rotation, p->max_rotation, 0);
      /* skew b + c, aspect a - d */
      memset (u, 0, sizeof (u));
      u[3] = 1.0;
      u[4] = 1.0;
      add_local_pair (cp, u, -p->max_skew, p->max_skew, 0);
      memset (u, 0, sizeof (u));
      u[2] = 1.0;
      u[5] = -1.0;
      add_local_pair (cp, u, -p->max_aspect, p->max_aspect, 0);
    }
  }
}

bspline_status
bspline_camera_path_new (const bspline_camera_path_params * params,
    int max_frames, bspline_camera_path ** path, char *msg, size_t msg_len)
{
  bspline_camera_path *cp;
  bspline_status status;
  size_t nf, n, terms, rows, kd;
  int k;

  if (path == NULL || params == NULL) {
    if (msg && msg_len)
      snprintf (msg, msg_len, "camera path: NULL argument");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  *path = NULL;
  status = params_check (params, msg, msg_len);
  if (status != BSPLINE_OK)
    return status;
  if (max_frames < 1 || max_frames > (1 << 20)) {
    if (msg && msg_len)
      snprintf (msg, msg_len, "camera path: max_frames %d out of range "
          "(1 .. %d)", max_frames, 1 << 20);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  cp = calloc (1, sizeof (*cp));
  if (cp == NULL)
    goto no_memory;
  cp->params = *params;
  cp->n = params->model == BSPLINE_MOTION_AFFINE ? 6 : 4;
  cp->max_frames = max_frames;
  if (cp->n == 6) {
    static const int pairs[3][2] = { {0, 1}, {2, 4}, {3, 5} };

    cp->n_pairs = 3;
    memcpy (cp->pair, pairs, sizeof (pairs));
  } else {
    static const int pairs[2][2] = { {0, 1}, {2, 3} };

    cp->n_pairs = 2;
    memcpy (cp->pair, pairs, sizeof (pairs));
  }
  cp->cx = 0.5 * params->width;
  cp->cy = 0.5 * params->height;
  for (k = 0; k < cp->n; k++)
    cp->weight[k] = k < 2 ? 1.0 : params->linear_weight;
  cp->kind_weight[0] = params->w1;
  cp->kind_weight[1] = params->w2;
  cp->kind_weight[2] = params->w3;
  cp->penalty = params->crop_penalty > 0.0 ? params->crop_penalty
      : 20.0 * (params->w1 + params->w2 + params->w3);
  if (!(cp->penalty > 0.0))
    cp->penalty = 1.0;
  build_local_rows (cp);

  nf = (size_t) max_frames;
  n = (size_t) cp->n;
  terms = 3 * nf * n;
  rows = 2 * terms + nf * (size_t) (cp->n_local + 1);
  kd = 4 * n - 1;
  cp->F = malloc (nf * 4 * sizeof (double));
  cp->phi = malloc (nf * 2 * sizeof (double));
  cp->cw = malloc (terms * sizeof (double));
  cp->p = malloc (nf * n * sizeof (double));
  cp->dp = calloc (nf * n, sizeof (double));
  cp->e = malloc (terms * sizeof (double));
  cp->de = malloc (terms * sizeof (double));
  cp->s = malloc (nf * sizeof (double));
  cp->ds = malloc (nf * sizeof (double));
  cp->w = malloc (rows * sizeof (double));
  cp->lam = malloc (rows * sizeof (double));
  cp->dw = malloc (rows * sizeof (double));
  cp->dlam = malloc (rows * sizeof (double));
  cp->dw_aff = malloc (rows * sizeof (double));
  cp->inv_w = malloc (rows * sizeof (double));
  cp->inv_lam = malloc (rows * sizeof (double));
  cp->d = malloc (rows * sizeof (double));
  cp->dlam_aff = malloc (rows * sizeof (double));
  cp->dp_keep = calloc (nf * n, sizeof (double));
  cp->de_keep = malloc (terms * sizeof (double));
  cp->ds_keep = malloc (nf * sizeof (double));
  cp->act = malloc (rows * sizeof (double));
  cp->rp = malloc (rows * sizeof (double));
  cp->rc = malloc (rows * sizeof (double));
  cp->q = malloc (rows * sizeof (double));
  cp->rd_p = calloc (nf * n, sizeof (double));
  cp->rd_e = malloc (terms * sizeof (double));
  cp->rd_s = malloc (nf * sizeof (double));
  cp->g_p = calloc (nf * n, sizeof (double));
  cp->g_e = malloc (terms * sizeof (double));
  cp->g_s = malloc (nf * sizeof (double));
  cp->r = malloc (nf * n * sizeof (double));
  cp->rho = malloc (nf * n * sizeof (double));
  cp->tv = malloc (terms * sizeof (double));
  cp->ty = malloc (terms * sizeof (double));
  cp->K = malloc (nf * n * 3 * sizeof (double));
  cp->band = malloc (nf * n * (kd + 1) * sizeof (double));
  cp->diag = malloc (nf * n * sizeof (double));
  cp->inv_diag = malloc (nf * n * sizeof (double));
  cp->term_h = malloc (terms * sizeof (double));
  cp->term_b = malloc (terms * sizeof (double));
  cp->frame_v = malloc (nf * n * sizeof (double));
  cp->frame_h = malloc (nf * sizeof (double));
  cp->rhs_p = calloc (nf * n, sizeof (double));
  if (!cp->F || !cp->phi || !cp->cw || !cp->p || !cp->dp || !cp->e
      || !cp->de || !cp->s || !cp->ds || !cp->w || !cp->lam || !cp->dw
      || !cp->dlam || !cp->dw_aff || !cp->inv_w || !cp->inv_lam || !cp->d
      || !cp->dlam_aff || !cp->dp_keep || !cp->de_keep || !cp->ds_keep
      || !cp->act || !cp->rp || !cp->rc || !cp->q || !cp->rd_p
      || !cp->rd_e || !cp->rd_s || !cp->g_p || !cp->g_e || !cp->g_s || !cp->r
      || !cp->rho || !cp->tv || !cp->ty || !cp->K || !cp->band || !cp->diag
      || !cp->inv_diag || !cp->term_h || !cp->term_b || !cp->frame_v
      || !cp->frame_h || !cp->rhs_p)
    goto no_memory;
  *path = cp;
  return BSPLINE_OK;

  /* ERRORS */
no_memory:
  bspline_camera_path_free (cp);
  if (msg && msg_len)
    snprintf (msg, msg_len, "camera path: out of memory for %d frames",
        max_frames);
  return BSPLINE_ERROR_NO_MEMORY;
}

void
bspline_camera_path_free (bspline_camera_path * cp)
{
  if (cp == NULL)
    return;
  free (cp->F);
  free (cp->phi);
  free (cp->cw);
  free (cp->p);
  free (cp->dp);
  free (cp->e);
  free (cp->de);
  free (cp->s);
  free (cp->ds);
  free (cp->w);
  free (cp->lam);
  free (cp->dw);
  free (cp->dlam);
  free (cp->dw_aff);
  free (cp->inv_w);
  free (cp->inv_lam);
  free (cp->d);
  free (cp->dlam_aff);
  free (cp->dp_keep);
  free (cp->de_keep);
  free (cp->ds_keep);
  free (cp->act);
  free (cp->rp);
  free (cp->rc);
  free (cp->q);
  free (cp->rd_p);
  free (cp->rd_e);
  free (cp->rd_s);
  free (cp->g_p);
  free (cp->g_e);
  free (cp->g_s);
  free (cp->r);
  free (cp->rho);
  free (cp->tv);
  free (cp->ty);
  free (cp->K);
  free (cp->band);
  free (cp->diag);
  free (cp->inv_diag);
  free (cp->term_h);
  free (cp->term_b);
  free (cp->frame_v);
  free (cp->frame_h);
  free (cp->rhs_p);
  free (cp);
}

/* ---- maps and parameters ---- */

static int
affine_finite (const bspline_affine * a)
{
  int i;

  for (i = 0; i < 6; i++)
    if (!isfinite (a->m[i]))
      return 0;
  return 1;
}

/* The map in centred coordinates: x -> a(x + c) - c. */
static void
to_centred (const bspline_camera_path * cp, const bspline_affine * a,
    bspline_affine * r)
{
  *r = *a;
  r->m[2] += a->m[0] * cp->cx + a->m[1] * cp->cy - cp->cx;
  r->m[5] += a->m[3] * cp->cx + a->m[4] * cp->cy - cp->cy;
}

static void
from_centred (const bspline_camera_path * cp, const bspline_affine * a,
    bspline_affine * r)
{
  *r = *a;
  r->m[2] += cp->cx - a->m[0] * cp->cx - a->m[1] * cp->cy;
  r->m[5] += cp->cy - a->m[3] * cp->cx - a->m[4] * cp->cy;
}

/* B (centred) -> p; a similarity keeps the nearest one (the mean of the
 * two cosine and of the two sine entries). */
static void
params_from_affine (const bspline_camera_path * cp, const bspline_affine * b,
    double *p)
{
  p[0] = b->m[2];
  p[1] = b->m[5];
  if (cp->n == 6) {
    p[2] = b->m[0];
    p[3] = b->m[1];
    p[4] = b->m[3];
    p[5] = b->m[4];
  } else {
    p[2] = 0.5 * (b->m[0] + b->m[4]);
    p[3] = 0.5 * (b->m[3] - b->m[1]);
  }
}

static void
affine_from_params (const bspline_camera_path * cp, const double *p,
    bspline_affine * b)
{
  if (cp->n == 6) {
    b->m[0] = p[2];
    b->m[1] = p[3];
    b->m[3] = p[4];
    b->m[4] = p[5];
  } else {
    b->m[0] = p[2];
    b->m[1] = -p[3];
    b->m[3] = p[3];
    b->m[4] = p[2];
  }
  b->m[2] = p[0];
  b->m[5] = p[1];
}

/* T_t and phi_t of (N3) from F_t (centred): the parameters of F_t B are
 * T_t p + phi_t.  F_t's linear part multiplies B's translation and each
 * column of B's linear part, so T_t is that 2x2 matrix on each pair of
 * parameters (for a similarity, the nearest similarity [[al, -be], [be,
 * al]], which on B's (a, b) acts as on a vector). */
static void
set_frame_map (bspline_camera_path * cp, int t, const bspline_affine * f)
{
  double *F = cp->F + (size_t) t * 4;

  if (cp->n == 4) {
    double al = 0.5 * (f->m[0] + f->m[4]), be = 0.5 * (f->m[3] - f->m[1]);

    F[0] = al;
    F[1] = -be;
    F[2] = be;
    F[3] = al;
  } else {
    F[0] = f->m[0];
    F[1] = f->m[1];
    F[2] = f->m[3];
    F[3] = f->m[4];
  }
  cp->phi[(size_t) t * 2] = f->m[2];
  cp->phi[(size_t) t * 2 + 1] = f->m[5];
}

/* ---- the rows: A z - b, and A^T y ---- */

/* r_u of (N3) for u = 0 .. N - 2 from the full path p (the fixed frames
 * included); without constants: the linear part (phi left out). */
static void
residual_motion (const bspline_camera_path * cp, const double *p,
    int constants, double *r)
{
  int n = cp->n, u, q;

  for (u = 0; u + 1 < cp->n_frames; u++) {
    const double *F = cp->F + (size_t) (u + 1) * 4;
    const double *pn = p + (size_t) (u + 1) * n, *pu = p + (size_t) u *n;
    double *ru = r + (size_t) u * n;

    for (q = 0; q < cp->n_pairs; q++) {
      int k1 = cp->pair[q][0], k2 = cp->pair[q][1];
      double x = pn[k1], y = pn[k2];

      ru[k1] = F[0] * x + F[1] * y - pu[k1];
      ru[k2] = F[2] * x + F[3] * y - pu[k2];
    }
    if (constants) {
      ru[0] += cp->phi[(size_t) (u + 1) * 2];
      ru[1] += cp->phi[(size_t) (u + 1) * 2 + 1];
    }
  }
}

/* p_t's share of L^T rho: p_t enters r_t as -p_t and r_(t-1) as T_t p_t. */
static inline void
transpose_motion (const bspline_camera_path * cp, int t, const double *rho,
    double *g)
{
  int n = cp->n, N = cp->n_frames, q, k;

  for (k = 0; k < n; k++)
    g[k] = t + 1 < N ? -rho[(size_t) t * n + k] : 0.0;
  if (t >= 1) {
    const double *F = cp->F + (size_t) t * 4;
    const double *rh = rho + (size_t) (t - 1) * n;

    for (q = 0; q < cp->n_pairs; q++) {
      int k1 = cp->pair[q][0], k2 = cp->pair[q][1];

      g[k1] += F[0] * rh[k1] + F[2] * rh[k2];
      g[k2] += F[1] * rh[k1] + F[3] * rh[k2];
    }
  }
}

/* The differences of kind m (D, D^2, D^3 of (N4)) of every kept term,
 * each component: v[j] for j = term_off[m] .. (contiguous in u and k). */
static void
term_values (const bspline_camera_path * cp, const double *r, double *v)
{
  int n = cp->n, kind, i;

  for (kind = 0; kind < CP_KINDS; kind++) {
    const double *a = r + (size_t) cp->term_lo[kind] * n;
    double *out = v + cp->term_off[kind];
    int len = cp->term_count[kind] * n;

    if (kind == 0)
      for (i = 0; i < len; i++)
        out[i] = a[i];
    else if (kind == 1)
      for (i = 0; i < len; i++)
        out[i] = a[i + n] - a[i];
    else
      for (i = 0; i < len; i++)
        out[i] = a[i + 2 * n] - 2.0 * a[i + n] + a[i];
  }
}

/* rho = sum_j y_j times term j's stencil (the transpose of term_values);
 * rho is cleared first. */
static void
term_scatter (const bspline_camera_path * cp, const double *y, double *rho)
{
  int n = cp->n, kind, i;

  memset (rho, 0, (size_t) (cp->n_frames > 1 ? cp->n_frames - 1 : 0) * n
      * sizeof (double));
  for (kind = 0; kind < CP_KINDS; kind++) {
    double *a = rho + (size_t) cp->term_lo[kind] * n;
    const double *in = y + cp->term_off[kind];
    int len = cp->term_count[kind] * n;

    if (kind == 0) {
      for (i = 0; i < len; i++)
        a[i] += in[i];
    } else if (kind == 1) {
      for (i = 0; i < len; i++) {
        a[i] -= in[i];
        a[i + n] += in[i];
      }
    } else {
      for (i = 0; i < len; i++) {
        a[i] += in[i];
        a[i + n] -= 2.0 * in[i];
        a[i + 2 * n] += in[i];
      }
    }
  }
}

/* Row activities A z (minus b when constants is set), in row order: term
 * rows +, term rows -, each free frame's local rows, each free frame's
 * s_t >= 0 row. */
static void
rows_apply (bspline_camera_path * cp, const double *p, const double *e,
    const double *s, int constants, double *out)
{
  int n = cp->n, E = cp->n_terms, nl = cp->n_local, k, f, i, j;
  double *lo = out + 2 * (size_t) E;

  residual_motion (cp, p, constants, cp->r);
  term_values (cp, cp->r, cp->tv);
  for (j = 0; j < E; j++) {
    out[j] = cp->tv[j] - e[j];
    out[E + j] = -cp->tv[j] - e[j];
  }
  for (f = 0; f < cp->n_free; f++) {
    const double *pt = p + (size_t) (cp->n_fixed + f) * n;
    double *lf = lo + (size_t) f * nl;

    for (i = 0; i < nl; i++) {
      double g = 0.0;

      for (k = 0; k < n; k++)
        g += cp->local_a[i][k] * pt[k];
      if (cp->local_s[i])
        g -= s[f];
      if (constants)
        g -= cp->local_b[i];
      lf[i] = g;
    }
    lo[(size_t) cp->n_free * nl + f] = -s[f];
  }
}

/* g = A^T y, split as (g_p over the free frames, g_e, g_s). */
static void
rows_transpose (bspline_camera_path * cp, const double *y, double *g_p,
    double *g_e, double *g_s)
{
  int n = cp->n, E = cp->n_terms, nl = cp->n_local, k, f, i, j;
  const double *lo = y + 2 * (size_t) E;

  for (j = 0; j < E; j++) {
    g_e[j] = -y[j] - y[E + j];
    cp->ty[j] = y[j] - y[E + j];
  }
  term_scatter (cp, cp->ty, cp->rho);
  for (f = 0; f < cp->n_free; f++) {
    double *gt = g_p + (size_t) (cp->n_fixed + f) * n, gs = 0.0;
    const double *yl = lo + (size_t) f * nl;

    transpose_motion (cp, cp->n_fixed + f, cp->rho, gt);
    for (i = 0; i < nl; i++) {
      for (k = 0; k < n; k++)
        gt[k] += cp->local_a[i][k] * yl[i];
      if (cp->local_s[i])
        gs -= yl[i];
    }
    g_s[f] = gs - lo[(size_t) cp->n_free * nl + f];
  }
}

/* ---- the normal equations (N10 - N12) ---- */

/* The lower band of the reduced matrix by columns (LAPACK's lower band
 * storage): entry (row, col), col <= row <= col + kd, so that a column's
 * band is contiguous. */
static inline double *
band_at (bspline_camera_path * cp, int row, int col)
{
  return cp->band + (size_t) col *(cp->kd + 1) + (row - col);
}

/* K_(u, v) (diagonal over the components) of (N12), |u - v| <= 2. */
static inline const double *
k_block (const bspline_camera_path * cp, int u, int v)
{
  int d = v - u, lo = u < v ? u : v;

  if (d < 0)
    d = -d;
  return cp->K + ((size_t) lo * 3 + d) * cp->n;
}

/* Builds and factors the reduced matrix for D = lam / w; keeps what the
 * back-substitution needs.  Each e_j leaves d_j g_j g_j^T with d_j = 4 D+
 * D- / (D+ + D-) (N11); in terms of r that is L^T K L with K
 * pentadiagonal in u, one per component. */
static void
normal_factor (bspline_camera_path * cp)
{
  int n = cp->n, N = cp->n_frames, E = cp->n_terms, kd = cp->kd;
  int kind, u, k, f, i, j, a, b, t, s, m = cp->n_free * cp->n;
  const double *lo_d = cp->d + 2 * (size_t) E;

  /* K: the stencils of (N4) weighted by d_j */
  memset (cp->K, 0, (size_t) (N > 1 ? N - 1 : 0) * 3 * n * sizeof (double));
  for (j = 0; j < E; j++) {
    double dplus = cp->d[j], dminus = cp->d[E + j], h = dplus + dminus;
    double inv_h = 1.0 / h;

    cp->term_h[j] = inv_h;
    cp->term_b[j] = (dminus - dplus) * inv_h;
    cp->ty[j] = 4.0 * dplus * dminus * inv_h;
  }
  for (kind = 0; kind < CP_KINDS; kind++) {
    const double *d = cp->ty + cp->term_off[kind];

    for (u = 0; u < cp->term_count[kind]; u++) {
      /* K_(uu, uu + i) of component k at K[(uu * 3 + i) n + k] */
      double *k0 = cp->K + (size_t) (cp->term_lo[kind] + u) * 3 * n;
      const double *du = d + (size_t) u * n;

      if (kind == 0) {
        for (k = 0; k < n; k++)
          k0[k] += du[k];
      } else if (kind == 1) {
        for (k = 0; k < n; k++) {
          k0[k] += du[k];
          k0[3 * n + k] += du[k];
          k0[n + k] -= du[k];
        }
      } else {
        for (k = 0; k < n; k++) {
          k0[k] += du[k];
          k0[3 * n + k] += 4.0 * du[k];
          k0[6 * n + k] += du[k];
          k0[n + k] -= 2.0 * du[k];
          k0[4 * n + k] -= 2.0 * du[k];
          k0[2 * n + k] += du[k];
        }
      }
    }
  }

  memset (cp->band, 0, (size_t) m * (kd + 1) * sizeof (double));
  /* L^T K L, block (t, s), s = t .. t + 3, pair by pair: p_t enters r_t
   * with -I and r_(t-1) with F_t on each pair */
  for (t = cp->n_fixed; t < N; t++)
    for (s = t; s < N && s <= t + 3; s++) {
      const double *Ft = cp->F + (size_t) t * 4, *Fs = cp->F + (size_t) s *4;
      int q;

      for (q = 0; q < cp->n_pairs; q++) {
        int kq[2], x, y;
        double M[2][2] = { {0, 0}, {0, 0} };

        kq[0] = cp->pair[q][0];
        kq[1] = cp->pair[q][1];
        /* (-I, -I): K_(t, s) */
        if (s + 1 < N && s - t <= 2) {
          const double *kk = k_block (cp, t, s);

          M[0][0] += kk[kq[0]];
          M[1][1] += kk[kq[1]];
        }
        /* (-I, F_s): -K_(t, s-1) F_s */
        if (s >= 1 && t + 1 < N && s - 1 - t <= 2 && s - 1 - t >= -2) {
          const double *kk = k_block (cp, t, s - 1);

          for (x = 0; x < 2; x++)
            for (y = 0; y < 2; y++)
              M[x][y] -= kk[kq[x]] * Fs[2 * x + y];
        }
        /* (F_t, -I): -F_t^T K_(t-1, s) */
        if (t >= 1 && s + 1 < N && s - t + 1 <= 2) {
          const double *kk = k_block (cp, t - 1, s);

          for (x = 0; x < 2; x++)
            for (y = 0; y < 2; y++)
              M[x][y] -= Ft[2 * y + x] * kk[kq[y]];
        }
        /* (F_t, F_s): F_t^T K_(t-1, s-1) F_s */
        if (t >= 1 && s - t <= 2) {
          const double *kk = k_block (cp, t - 1, s - 1);

          for (x = 0; x < 2; x++)
            for (y = 0; y < 2; y++)
              M[x][y] += Ft[x] * kk[kq[0]] * Fs[y]
                  + Ft[2 + x] * kk[kq[1]] * Fs[2 + y];
        }
        /* into the band: (row s n + kq[y], col t n + kq[x]), row >= col */
        for (x = 0; x < 2; x++)
          for (y = 0; y < 2; y++) {
            int row = (s - cp->n_fixed) * n + kq[y];
            int col = (t - cp->n_fixed) * n + kq[x];

            if (row >= col)
              *band_at (cp, row, col) += M[x][y];
          }
      }
    }

  /* each frame's rows, with s_t eliminated: sum D a a^T - v v^T / h */
  for (f = 0; f < cp->n_free; f++) {
    const double *dl = lo_d + (size_t) f * cp->n_local;
    double *v = cp->frame_v + (size_t) f * n, h;
    size_t srow = (size_t) cp->n_free * cp->n_local + f;

    double acc[CP_MAX_PARAMS][CP_MAX_PARAMS];

    h = lo_d[srow];
    memset (v, 0, (size_t) n * sizeof (double));
    memset (acc, 0, sizeof (acc));
    for (i = 0; i < cp->n_local; i++) {
      double d = dl[i];
      const double *ai = cp->local_a[i];

      for (a = 0; a < n; a++)
        for (b = 0; b <= a; b++)
          acc[a][b] += d * ai[a] * ai[b];
      if (cp->local_s[i]) {
        h += d;
        for (a = 0; a < n; a++)
          v[a] += d * ai[a];
      }
    }
    cp->frame_h[f] = h;
    for (a = 0; a < n; a++)
      for (b = 0; b <= a; b++)
        *band_at (cp, f * n + a, f * n + b) += acc[a][b] - v[a] * v[b] / h
            + cp->Q[a][b];
  }

  for (j = 0; j < m; j++)
    cp->diag[j] = cp->band[(size_t) j * (kd + 1)];

  /* banded Cholesky, L L^T in place, by columns (right-looking: each
   * column updates the kd after it with contiguous axpys; Golub & Van
   * Loan, "Matrix computations", 4th ed., sec. 4.3.5); a pivot lost to
   * rounding (the end of an interior-point run) is made huge, which zeroes
   * that component of the step (Wright 1997, ch. 11) */
  for (j = 0; j < m; j++) {
    double *col = cp->band + (size_t) j * (kd + 1), piv = col[0], l;
    int len = m - 1 - j < kd ? m - 1 - j : kd, r, c;

    l = piv > 1e-13 * fabs (cp->diag[j]) && piv > 0.0 ? sqrt (piv) : 1e64;
    col[0] = l;
    cp->inv_diag[j] = 1.0 / l;
    for (r = 1; r <= len; r++)
      col[r] *= cp->inv_diag[j];
    for (c = 1; c <= len; c++) {
      double lc = col[c], *cc = col + (size_t) c * (kd + 1);

      if (lc == 0.0)
        continue;
      for (r = 0; r <= len - c; r++)
        cc[r] -= lc * col[c + r];
    }
  }
}

/* Solves L L^T x = b in place. */
static void
band_solve (bspline_camera_path * cp, double *x)
{
  int m = cp->n_free * cp->n, kd = cp->kd, j, r;

  for (j = 0; j < m; j++) {
    const double *col = cp->band + (size_t) j * (kd + 1);
    int len = m - 1 - j < kd ? m - 1 - j : kd;
    double xj = x[j] * cp->inv_diag[j];

    x[j] = xj;
    for (r = 1; r <= len; r++)
      x[j + r] -= col[r] * xj;
  }
  for (j = m - 1; j >= 0; j--) {
    const double *col = cp->band + (size_t) j * (kd + 1);
    int len = m - 1 - j < kd ? m - 1 - j : kd;
    double acc[4] = { x[j], 0.0, 0.0, 0.0 };

    /* four partial sums: no chain of dependent additions */
    for (r = 1; r + 3 <= len; r += 4) {
      acc[0] -= col[r] * x[j + r];
      acc[1] -= col[r + 1] * x[j + r + 1];
      acc[2] -= col[r + 2] * x[j + r + 2];
      acc[3] -= col[r + 3] * x[j + r + 3];
    }
    for (; r <= len; r++)
      acc[0] -= col[r] * x[j + r];
    x[j] = ((acc[0] + acc[1]) + (acc[2] + acc[3])) * cp->inv_diag[j];
  }
}

/* The step for right-hand sides (rhs_p over the free frames in g_p's
 * layout, rhs_e, rhs_s): eliminates e and s (N11), solves for dp, then
 * recovers de and ds. */
static void
normal_solve (bspline_camera_path * cp, const double *rhs_p,
    const double *rhs_e, const double *rhs_s)
{
  int n = cp->n, N = cp->n_frames, E = cp->n_terms, k, f, t, j;
  double *x = cp->rhs_p + (size_t) cp->n_fixed * n;

  /* rhs_p - L^T (sum_j stencil_j b_j rhs_e_j) + v rhs_s / h */
  for (j = 0; j < E; j++)
    cp->ty[j] = cp->term_b[j] * rhs_e[j];
  term_scatter (cp, cp->ty, cp->rho);
  for (t = cp->n_fixed; t < N; t++) {
    double *xt = cp->rhs_p + (size_t) t * n, g[CP_MAX_PARAMS];
    const double *rt = rhs_p + (size_t) t * n;
    const double *v = cp->frame_v + (size_t) (t - cp->n_fixed) * n;
    double sh = rhs_s[t - cp->n_fixed] / cp->frame_h[t - cp->n_fixed];

    transpose_motion (cp, t, cp->rho, g);
    for (k = 0; k < n; k++)
      xt[k] = rt[k] + v[k] * sh - g[k];
  }
  band_solve (cp, x);
  memcpy (cp->dp + (size_t) cp->n_fixed * n, x,
      (size_t) cp->n_free * n * sizeof (double));

  /* de_j = rhs_e_j / h_j - b_j (g_j . dp); ds_t = (rhs_s + v . dp_t) / h */
  residual_motion (cp, cp->dp, 0, cp->r);
  term_values (cp, cp->r, cp->tv);
  for (j = 0; j < E; j++)
    cp->de[j] = rhs_e[j] * cp->term_h[j] - cp->term_b[j] * cp->tv[j];
  for (f = 0; f < cp->n_free; f++) {
    const double *v = cp->frame_v + (size_t) f * n;
    const double *d = cp->dp + (size_t) (cp->n_fixed + f) * n;
    double acc = rhs_s[f];

    for (k = 0; k < n; k++)
      acc += v[k] * d[k];
    cp->ds[f] = acc / cp->frame_h[f];
  }
}

/* The Newton step for the complementarity right-hand side rc (N10):
 * A^T D A dz = -r_d - A^T (rc / w + D r_p); dw = -r_p - A dz; dlam = (rc -
 * lam dw) / w. */
static void
newton_step (bspline_camera_path * cp)
{
  int i, m = cp->n_rows;
  size_t np = (size_t) cp->n_frames * cp->n;

  for (i = 0; i < m; i++)
    cp->q[i] = (cp->rc[i] + cp->lam[i] * cp->rp[i]) * cp->inv_w[i];
  rows_transpose (cp, cp->q, cp->g_p, cp->g_e, cp->g_s);
  for (i = 0; i < (int) np; i++)
    cp->g_p[i] = -cp->rd_p[i] - cp->g_p[i];
  for (i = 0; i < cp->n_terms; i++)
    cp->g_e[i] = -cp->rd_e[i] - cp->g_e[i];
  for (i = 0; i < cp->n_free; i++)
    cp->g_s[i] = -cp->rd_s[i] - cp->g_s[i];
  normal_solve (cp, cp->g_p, cp->g_e, cp->g_s);
  rows_apply (cp, cp->dp, cp->de, cp->ds, 0, cp->dw);
  for (i = 0; i < m; i++) {
    cp->dw[i] = -cp->rp[i] - cp->dw[i];
    cp->dlam[i] = (cp->rc[i] - cp->lam[i] * cp->dw[i]) * cp->inv_w[i];
  }
}

/* Largest step in (0, 1] that keeps x + alpha dx >= 0, given 1 / x:
 * 1 / max(1, max -dx / x), branch-free (the signs of dx are as good as
 * random) in four lanes. */
static double
max_step (const double *inv_x, const double *dx, int m)
{
  double lane[4] = { 1.0, 1.0, 1.0, 1.0 };
  int i, k;

  for (i = 0; i + 3 < m; i += 4)
    for (k = 0; k < 4; k++) {
      double t = -dx[i + k] * inv_x[i + k];

      lane[k] = t > lane[k] ? t : lane[k];
    }
  for (; i < m; i++) {
    double t = -dx[i] * inv_x[i];

    lane[0] = t > lane[0] ? t : lane[0];
  }
  lane[0] = lane[1] > lane[0] ? lane[1] : lane[0];
  lane[2] = lane[3] > lane[2] ? lane[3] : lane[2];
  return 1.0 / (lane[2] > lane[0] ? lane[2] : lane[0]);
}

/* sum (x + ax dx) (y + ay dy) in four lanes; dx = NULL: sum x y. */
static double
step_dot (const double *x, const double *dx, double ax, const double *y,
    const double *dy, double ay, int m)
{
  double acc[4] = { 0.0, 0.0, 0.0, 0.0 };
  int i, k;

  if (dx == NULL) {
    for (i = 0; i + 3 < m; i += 4)
      for (k = 0; k < 4; k++)
        acc[k] += x[i + k] * y[i + k];
    for (; i < m; i++)
      acc[0] += x[i] * y[i];
  } else {
    for (i = 0; i + 3 < m; i += 4)
      for (k = 0; k < 4; k++)
        acc[k] += (x[i + k] + ax * dx[i + k]) * (y[i + k] + ay * dy[i + k]);
    for (; i < m; i++)
      acc[0] += (x[i] + ax * dx[i]) * (y[i] + ay * dy[i]);
  }
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

/* ---- the solve ---- */

/* The terms of kind m span r_u .. r_(u+m); those that involve a free frame
 * (r_(n_fixed - 1) or later) are kept. */
static void
layout_terms (bspline_camera_path * cp)
{
  int kind, off = 0;

  for (kind = 0; kind < CP_KINDS; kind++) {
    int lo = cp->n_fixed - 1 - kind, hi = cp->n_frames - 2 - kind;

    if (lo < 0)
      lo = 0;
    cp->term_lo[kind] = lo;
    cp->term_count[kind] = hi >= lo ? hi - lo + 1 : 0;
    cp->term_off[kind] = off;
    off += cp->term_count[kind] * cp->n;
  }
  cp->n_terms = off;
  cp->n_rows = 2 * off + cp->n_free * (cp->n_local + 1);
  for (kind = 0; kind < CP_KINDS; kind++) {
    int u, k;

    for (u = 0; u < cp->term_count[kind]; u++)
      for (k = 0; k < cp->n; k++)
        cp->cw[cp->term_off[kind] + u * cp->n + k] =
            cp->kind_weight[kind] * cp->weight[k];
  }
}

/* The inclusion rows of a frame (one side of each corner) do not cancel
 * in the dual equations of p_t: what they leave on a scale parameter
 * (a, d) is taken by the proximity row of that parameter's opposite side,
 * so that the start is dual feasible. */
static void
balance_proximity (const bspline_camera_path * cp, double *lam)
{
  double g[CP_MAX_PARAMS] = { 0 };
  int i, k, l;

  for (i = 0; i < cp->n_local; i++)
    for (k = 0; k < cp->n; k++)
      g[k] += lam[i] * cp->local_a[i][k];
  for (k = 0; k < cp->n; k++)
    for (i = cp->n_inclusion; i < cp->n_local && g[k] != 0.0; i++) {
      int single = 1;

      for (l = 0; l < cp->n; l++)
        if (l != k && cp->local_a[i][l] != 0.0)
          single = 0;
      if (single && cp->local_a[i][k] * g[k] < 0.0) {
        lam[i] += -g[k] / cp->local_a[i][k];
        g[k] = 0.0;
      }
    }
}

/* The strictly feasible start: B_t = I, each e_j and s_t above its rows by
 * a margin, and multipliers that satisfy the dual equations exactly
 * (lam+ = lam- = c_j / 2; the frame's inclusion rows and s_t >= 0 share
 * the penalty; the proximity rows come in pairs that cancel). */
static void
initial_point (bspline_camera_path * cp)
{
  int n = cp->n, E = cp->n_terms, f, i, j, k;
  double *lo_w, *lo_l;
  const double mu0 = 1.0;

  for (f = 0; f < cp->n_free; f++) {
    double *pt = cp->p + (size_t) (cp->n_fixed + f) * n;

    for (k = 0; k < n; k++)
      pt[k] = 0.0;
    pt[2] = 1.0;
    if (n == 6)
      pt[5] = 1.0;
    cp->s[f] = 0.0;
  }
  for (j = 0; j < E; j++)
    cp->e[j] = 0.0;
  rows_apply (cp, cp->p, cp->e, cp->s, 1, cp->act);
  for (j = 0; j < E; j++) {
    double lam = 0.5 * cp->cw[j];

    if (!(lam > 0.0))
      lam = 0.5;
    cp->lam[j] = cp->lam[E + j] = lam;
    /* act = +-v here */
    cp->e[j] = fabs (cp->act[j]) + mu0 / lam;
    cp->w[j] = cp->e[j] - cp->act[j];
    cp->w[E + j] = cp->e[j] - cp->act[E + j];
  }
  lo_w = cp->w + 2 * (size_t) E;
  lo_l = cp->lam + 2 * (size_t) E;
  for (f = 0; f < cp->n_free; f++) {
    const double *act = cp->act + 2 * (size_t) E + (size_t) f * cp->n_local;
    double share = cp->penalty / (cp->n_inclusion + 1), worst = 0.0;
    size_t srow = (size_t) cp->n_free * cp->n_local + f;

    for (i = 0; i < cp->n_local; i++)
      if (cp->local_s[i] && act[i] > worst)
        worst = act[i];
    cp->s[f] = worst + mu0 / share;
    for (i = 0; i < cp->n_local; i++) {
      size_t row = (size_t) f * cp->n_local + i;

      if (cp->local_s[i]) {
        lo_w[row] = cp->s[f] - act[i];
        lo_l[row] = share;
      } else {
        lo_w[row] = -act[i];
        lo_l[row] = mu0 / lo_w[row];
      }
    }
    lo_w[srow] = cp->s[f];
    lo_l[srow] = share;
    balance_proximity (cp, lo_l + (size_t) f * cp->n_local);
  }
}

/* The largest |x[i]|, max(acc, ...) (no libm call in the loop). */
static double
max_abs (double acc, const double *x, int m)
{
  double lane[4] = { acc, acc, acc, acc };
  int i, k;

  for (i = 0; i + 3 < m; i += 4)
    for (k = 0; k < 4; k++) {
      double a = fabs (x[i + k]);

      lane[k] = a > lane[k] ? a : lane[k];
    }
  for (; i < m; i++) {
    double a = fabs (x[i]);

    lane[0] = a > lane[0] ? a : lane[0];
  }
  lane[0] = lane[1] > lane[0] ? lane[1] : lane[0];
  lane[2] = lane[3] > lane[2] ? lane[3] : lane[2];
  return lane[2] > lane[0] ? lane[2] : lane[0];
}

/* The fidelity term of a frame's parameters pt, 1/2 (pt - p0)^T Q (pt -
 * p0); its gradient Q (pt - p0) into grad when not NULL. */
static double
fidelity (const bspline_camera_path * cp, const double *pt, double *grad)
{
  double dev[CP_MAX_PARAMS], acc = 0.0;
  int a, b;

  if (!cp->quadratic)
    return 0.0;
  for (a = 0; a < cp->n; a++)
    dev[a] = pt[a] - cp->p0[a];
  for (a = 0; a < cp->n; a++) {
    double g = 0.0;

    for (b = 0; b < cp->n; b++)
      g += cp->Q[a][b] * dev[b];
    if (grad)
      grad[a] = g;
    acc += 0.5 * dev[a] * g;
  }
  return acc;
}

static double
objective_value (const bspline_camera_path * cp, const double *e,
    const double *s)
{
  double acc = 0.0;
  int j, f;

  for (j = 0; j < cp->n_terms; j++)
    acc += cp->cw[j] * e[j];
  for (f = 0; f < cp->n_free; f++)
    acc += cp->penalty * s[f] + fidelity (cp, cp->p + (size_t) (cp->n_fixed
            + f) * cp->n, NULL);
  return acc;
}

/* The step length that keeps w and lam >= 0 along the current direction
 * (one for both: see interior_point). */
static double
joint_step (const bspline_camera_path * cp)
{
  return fmin (max_step (cp->inv_w, cp->dw, cp->n_rows),
      max_step (cp->inv_lam, cp->dlam, cp->n_rows));
}

/* Keeps the current direction (into dp_keep ..., dw_aff, dlam_aff), or
 * brings the kept one back. */
static void
direction_keep (bspline_camera_path * cp, int restore)
{
  size_t np = (size_t) cp->n_frames * cp->n, m = (size_t) cp->n_rows;
  struct
  {
    double *cur, *kept;
    size_t n;
  } v[5] = {
    {cp->dp, cp->dp_keep, np}, {cp->de, cp->de_keep, (size_t) cp->n_terms},
    {cp->ds, cp->ds_keep, (size_t) cp->n_free}, {cp->dw, cp->dw_aff, m},
    {cp->dlam, cp->dlam_aff, m}
  };
  int k;

  for (k = 0; k < 5; k++)
    if (restore)
      memcpy (v[k].cur, v[k].kept, v[k].n * sizeof (double));
    else
      memcpy (v[k].kept, v[k].cur, v[k].n * sizeof (double));
}

/* at most this many correctors, and only after a step shorter than
 * CP_CORRECT_BELOW (longer ones gain too little for the extra solve) */
#define CP_CORRECTORS 2
#define CP_CORRECT_BELOW 0.8

/* Gondzio's centrality correctors (Gondzio 1996, Colombo and Gondzio
 * 2008) after Mehrotra's corrector, whose direction is current and whose
 * complementarity right-hand side is rc: the products w_i lam_i at a
 * longer trial step are pulled into [0.1, 10] times the target sigma mu,
 * and the Newton step is solved again with the same factor; a corrected
 * direction is kept when it allows a longer step. Without them a
 * degenerate window (a still camera: both sides of an L1 term active, so
 * their multipliers are not unique) cycled: one row's product fell to
 * 0.007 mu and blocked the next predictor, the centring step after it
 * raised the gap through the fidelity term's second-order part, and the
 * gap stayed at 4e-6 of the objective for 200 iterations (camera-path,
 * seed 1796083927677694770). Returns the step length. */
static double
centrality_correctors (bspline_camera_path * cp, double target)
{
  int m = cp->n_rows, k, i;
  double alpha = joint_step (cp);

  for (k = 0; k < CP_CORRECTORS && alpha < CP_CORRECT_BELOW; k++) {
    double trial = fmin (1.0, 1.5 * alpha + 0.1), lo = 0.1 * target,
        hi = 10.0 * target, next;
    int moved = 0;

    for (i = 0; i < m; i++) {
      double v = (cp->w[i] + trial * cp->dw[i]) * (cp->lam[i]
          + trial * cp->dlam[i]), t = 0.0;

      if (v < lo)
        t = lo - v;
      else if (v > hi)
        t = fmax (hi - v, -hi);
      cp->rc[i] += t;
      moved |= t != 0.0;
    }
    if (!moved)
      break;
    direction_keep (cp, 0);
    newton_step (cp);
    next = joint_step (cp);
    if (!(next >= 1.01 * alpha)) {
      direction_keep (cp, 1);
      break;
    }
    alpha = next;
  }
  return alpha;
}

/* The interior-point iterations (Mehrotra's predictor-corrector, Wright
 * 1997 ch. 10, one step length for the primal and dual iterates, and
 * Gondzio's centrality correctors after short steps); returns
 * the iterations, negative when the limit stopped them. */
static int
interior_point (bspline_camera_path * cp)
{
  int m = cp->n_rows, E = cp->n_terms, iter, i;
  size_t np = (size_t) cp->n_frames * cp->n;
  double tol = cp->params.tolerance;
  double p_scale = 1.0 + 0.5 * (cp->params.width + cp->params.height);
  double d_scale = 1.0 + cp->penalty, prev_obj = HUGE_VAL;
  int j;

  for (j = 0; j < cp->n_terms; j++)
    d_scale = fmax (d_scale, 1.0 + cp->cw[j]);

  for (iter = 0; iter < cp->params.max_iterations; iter++) {
    double mu, gap, obj, rp_max = 0.0, rd_max = 0.0, ap, ad, mu_aff, sigma;

    /* residuals: r_p = A z - b + w, r_d = c + A^T lam */
    rows_apply (cp, cp->p, cp->e, cp->s, 1, cp->rp);
    for (i = 0; i < m; i++)
      cp->rp[i] += cp->w[i];
    rp_max = max_abs (0.0, cp->rp, m);
    rows_transpose (cp, cp->lam, cp->rd_p, cp->rd_e, cp->rd_s);
    for (i = 0; i < E; i++)
      cp->rd_e[i] += cp->cw[i];
    for (i = 0; i < cp->n_free; i++) {
      size_t off = (size_t) (cp->n_fixed + i) * cp->n;
      double grad[CP_MAX_PARAMS];
      int k;

      cp->rd_s[i] += cp->penalty;
      if (cp->quadratic) {
        fidelity (cp, cp->p + off, grad);
        for (k = 0; k < cp->n; k++)
          cp->rd_p[off + k] += grad[k];
      }
    }
    rd_max = max_abs (0.0, cp->rd_p + (size_t) cp->n_fixed * cp->n,
        cp->n_free * cp->n);
    rd_max = max_abs (rd_max, cp->rd_e, E);
    rd_max = max_abs (rd_max, cp->rd_s, cp->n_free);
    gap = step_dot (cp->w, NULL, 0.0, cp->lam, NULL, 0.0, m);
    mu = gap / m;
    obj = objective_value (cp, cp->e, cp->s);
    /* converged; or the gap is closed and the objective no longer moves
     * while the dual equations have lost accuracy (the normal equations'
     * condition grows like 1 / mu^2, Wright 1997 ch. 11): the primal
     * iterate, feasible throughout, is then as good as it gets */
    if (gap <= tol * (1.0 + fabs (obj)) && rp_max <= tol * p_scale
        && (rd_max <= tol * d_scale
            || fabs (obj - prev_obj) <= tol * (1.0 + fabs (obj))))
      return iter;
    prev_obj = obj;

    for (i = 0; i < m; i++) {
      cp->inv_w[i] = 1.0 / cp->w[i];
      cp->inv_lam[i] = 1.0 / cp->lam[i];
      cp->d[i] = cp->lam[i] * cp->inv_w[i];
    }
    normal_factor (cp);

    /* predictor (affine scaling): rc = -w lam */
    for (i = 0; i < m; i++)
      cp->rc[i] = -cp->w[i] * cp->lam[i];
    newton_step (cp);
    ap = max_step (cp->inv_w, cp->dw, m);
    ad = max_step (cp->inv_lam, cp->dlam, m);
    /* with the fidelity term the dual equations involve p: one step */
    if (cp->quadratic)
      ap = ad = fmin (ap, ad);
    mu_aff = step_dot (cp->w, cp->dw, ap, cp->lam, cp->dlam, ad, m) / m;
    sigma = mu_aff / mu;
    sigma = sigma * sigma * sigma;

    /* corrector: rc = -w lam - dw_aff dlam_aff + sigma mu */
    memcpy (cp->dw_aff, cp->dw, (size_t) m * sizeof (double));
    memcpy (cp->dlam_aff, cp->dlam, (size_t) m * sizeof (double));
    for (i = 0; i < m; i++)
      cp->rc[i] = -cp->w[i] * cp->lam[i] - cp->dw_aff[i] * cp->dlam_aff[i]
          + sigma * mu;
    newton_step (cp);
    /* one step length for both: with the two apart, the dual residual of
     * a linear program can grow near the optimum (the normal equations'
     * directions lose accuracy as D's range grows), and the primal
     * iterate then stalls above the optimum (a window of
     * camera_path_vs_linprog, seed 1796827027899308806: 2e-5 above
     * HiGHS's optimum, its dual residual 1.8; with one step length 5.6e-9,
     * at 10 % more iterations over that run's 80 solves) */
    ap = ad = 0.995 * centrality_correctors (cp, sigma * mu);
    for (i = (int) ((size_t) cp->n_fixed * cp->n); i < (int) np; i++)
      cp->p[i] += ap * cp->dp[i];
    for (i = 0; i < E; i++)
      cp->e[i] += ap * cp->de[i];
    for (i = 0; i < cp->n_free; i++)
      cp->s[i] += ap * cp->ds[i];
    for (i = 0; i < m; i++) {
      cp->w[i] += ap * cp->dw[i];
      cp->lam[i] += ad * cp->dlam[i];
    }
  }
  return -iter;
}

bspline_status
bspline_camera_path_solve (bspline_camera_path * cp,
    const bspline_affine * camera, int n_frames, const bspline_affine * fixed,
    int n_fixed, bspline_affine * stabilization,
    bspline_camera_path_info * info)
{
  int n, t, f, i, k, iterations;
  double smooth = 0.0, worst_total = 0.0, worst = 0.0;
  bspline_camera_path_info result;

  if (cp == NULL || camera == NULL || stabilization == NULL
      || n_frames < 1 || n_frames > cp->max_frames || n_fixed < 0
      || n_fixed > n_frames || (n_fixed > 0 && fixed == NULL))
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  n = cp->n;
  cp->n_frames = n_frames;
  cp->n_fixed = n_fixed;
  cp->n_free = n_frames - n_fixed;
  cp->kd = 4 * n - 1;

  /* F_t = C_(t-1)^-1 C_t ([GKE11] sec. 3: C_t = C_(t-1) F_t), centred */
  for (t = 0; t < n_frames; t++) {
    bspline_affine inv, ft, fc;

    if (!affine_finite (&camera[t]) || !bspline_affine_invert (&camera[t],
            &inv))
      return BSPLINE_ERROR_INVALID_TRANSFORM;
    if (t + 1 < n_frames) {
      bspline_affine_compose (&inv, &camera[t + 1], &ft);
      if (!affine_finite (&ft))
        return BSPLINE_ERROR_INVALID_TRANSFORM;
      to_centred (cp, &ft, &fc);
      set_frame_map (cp, t + 1, &fc);
    }
  }
  for (t = 0; t < n_fixed; t++) {
    bspline_affine bc;

    if (!affine_finite (&fixed[t]))
      return BSPLINE_ERROR_INVALID_TRANSFORM;
    to_centred (cp, &fixed[t], &bc);
    params_from_affine (cp, &bc, cp->p + (size_t) t * n);
  }
  memset (cp->dp, 0, (size_t) n_frames * n * sizeof (double));
  memset (cp->g_p, 0, (size_t) n_frames * n * sizeof (double));
  memset (cp->rd_p, 0, (size_t) n_frames * n * sizeof (double));
  memset (cp->rhs_p, 0, (size_t) n_frames * n * sizeof (double));

  memset (&result, 0, sizeof (result));
  if (cp->n_free > 0) {
    layout_terms (cp);
    initial_point (cp);
    iterations = interior_point (cp);
    result.iterations = iterations < 0 ? -iterations : iterations;
    result.status = iterations < 0 ? BSPLINE_CAMERA_PATH_ITERATION_LIMIT
        : BSPLINE_CAMERA_PATH_OPTIMAL;

    /* the smoothness and the crop violation of the path itself */
    residual_motion (cp, cp->p, 1, cp->r);
    term_values (cp, cp->r, cp->tv);
    for (i = 0; i < cp->n_terms; i++)
      smooth += cp->cw[i] * fabs (cp->tv[i]);
    for (f = 0; f < cp->n_free; f++) {
      const double *pt = cp->p + (size_t) (n_fixed + f) * n;
      double frame_worst = 0.0;

      for (i = 0; i < cp->n_inclusion; i++) {
        double g = -cp->local_b[i];

        for (k = 0; k < n; k++)
          g += cp->local_a[i][k] * pt[k];
        frame_worst = fmax (frame_worst, g);
      }
      worst_total += frame_worst;
      worst = fmax (worst, frame_worst);
    }
    if (result.status == BSPLINE_CAMERA_PATH_OPTIMAL
        && worst > CP_INSIDE_TOLERANCE)
      result.status = BSPLINE_CAMERA_PATH_INFEASIBLE;
  }
  result.smoothness = smooth;
  result.objective = smooth + cp->penalty * worst_total;
  for (f = 0; f < cp->n_free; f++)
    result.objective += fidelity (cp, cp->p + (size_t) (n_fixed + f) * n, NULL);
  result.max_violation = worst;

  for (t = 0; t < n_frames; t++) {
    if (t < n_fixed) {
      stabilization[t] = fixed[t];
    } else {
      bspline_affine bc;

      affine_from_params (cp, cp->p + (size_t) t * n, &bc);
      from_centred (cp, &bc, &stabilization[t]);
    }
  }
  if (info)
    *info = result;
  return BSPLINE_OK;
}

int
bspline_camera_path_correction (const bspline_affine * stabilization,
    double zoom, int width, int height, bspline_affine * correction)
{
  bspline_affine inv, z;
  double cx = 0.5 * width, cy = 0.5 * height;

  if (!bspline_affine_invert (stabilization, &inv))
    return 0;
  bspline_affine_identity (&z);
  z.m[0] = zoom;
  z.m[4] = zoom;
  z.m[2] = cx - zoom * cx;
  z.m[5] = cy - zoom * cy;
  bspline_affine_compose (&z, &inv, correction);
  return 1;
}
