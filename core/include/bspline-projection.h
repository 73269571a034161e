/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bspline-projection.h: the projection stage of a plan's geometry (360-degree
 * and wide-angle projections), once, for both engines (static inline on
 * plain C types, compiled by cc and by nvcc as bspline-math.h is).
 *
 * A projection stage is a pair of projections through the unit sphere
 * (shared/conventions.md, "The geometry chain"): an output pixel's
 * normalised position (a, b) in [-1, 1]^2 (a = 2 x / width - 1, b = 2 y /
 * height - 1 of the output frame; x right, y down) -> a direction d on the
 * sphere (the output projection) -> R d (the view's yaw, pitch and roll) ->
 * the input frame's normalised position (a', b') (the input projection).
 * The homographies around the stage (its `inverse` before it and the lens
 * slot's `post` after it, bspline-stage.h) take output pixels to (a, b) and
 * (a', b') to input pixels.
 *
 * Directions follow ffmpeg's v360 filter (libavfilter/vf_v360.c), whose
 * projection names, fields of view and formulas these are: X right, Y
 * down, Z forward (the centre of a flat view, and of an equirect frame).
 * Every input map (direction -> (a', b')) is homogeneous of degree 0 in d,
 * so d need not be of unit length, and its Jacobian (2x3) annihilates d.
 * The output maps ((a, b) -> d) have their Jacobian from the input map of
 * the same projection: for the map P and its inverse Q, J_Q = T (J_P T)^-1
 * with T any two vectors that span the tangent plane at d (one formula,
 * exact, for every projection).  The stage's Jacobian (chain rule) is
 * J_Pin (R d) R J_Qout (a, b), for antialiasing where the projection
 * shrinks (bspline_stage_footprint).
 *
 * `range` holds each projection's scale from its fields of view
 * (projection.c, bspline_projection_setup):
 *  - flat: tan (fov / 2); a point at angle t from the axis at radius tan t
 *  - fisheye (equidistant) and dfisheye (each half): fov / 2 in radians;
 *    radius t
 *  - equisolid: sin (fov / 4); radius sin (t / 2)
 *  - sg (stereographic): tan (fov / 4); radius tan (t / 2)
 *  - og (orthographic): sin (fov / 2); radius sin t
 *  - equirect: h_fov / 2 and v_fov / 2 in radians (the longitude and
 *    latitude at the frame's edges: 180 and 90 degrees for a whole sphere)
 *  - cylindrical: x, h_fov / 2 in radians (longitude); y, tan (v_fov / 2)
 *  - pannini: x, v360's pannini parameter (its h_fov, a number, not an
 *    angle); y unused
 *  - hequirect, mercator: none (a fixed extent)
 *  - the cubemaps: 0 (a fixed extent), or, where the input is read from
 *    its atlas (core/projection/atlas.c), each face's share of its tile
 *    along x and y, face / (face + 2 margin) (bspline_projection_atlas_point)
 */
#ifndef BSPLINE_PROJECTION_H
#define BSPLINE_PROJECTION_H

#include "bspline-math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The projections, with v360's names (bspline_projection_type_name). */
typedef enum
{
  BSPLINE_PROJECTION_EQUIRECT = 0,
  BSPLINE_PROJECTION_HEQUIRECT = 1,
  BSPLINE_PROJECTION_CUBEMAP_3X2 = 2,
  BSPLINE_PROJECTION_CUBEMAP_6X1 = 3,
  BSPLINE_PROJECTION_CUBEMAP_1X6 = 4,
  BSPLINE_PROJECTION_EAC = 5,
  BSPLINE_PROJECTION_FLAT = 6,
  BSPLINE_PROJECTION_FISHEYE = 7,
  BSPLINE_PROJECTION_EQUISOLID = 8,
  BSPLINE_PROJECTION_STEREOGRAPHIC = 9,
  BSPLINE_PROJECTION_ORTHOGRAPHIC = 10,
  BSPLINE_PROJECTION_DUAL_FISHEYE = 11,
  BSPLINE_PROJECTION_CYLINDRICAL = 12,
  BSPLINE_PROJECTION_PANNINI = 13,
  BSPLINE_PROJECTION_MERCATOR = 14,
  BSPLINE_PROJECTION_COUNT = 15
} bspline_projection_type;

typedef struct
{
  int type;                     /* bspline_projection_type */
  double range_x, range_y;      /* from the fields of view (above) */
  double width, height;         /* the frame, pixels (EAC's padding) */
} bspline_projection_side;

typedef struct
{
  bspline_projection_side in, out;
  /* row-major: output direction -> input direction (v360's rotation
   * order yaw, pitch, roll: R = Yaw Pitch Roll) */
  double rotation[9];
} bspline_projection;

#define BSPLINE_PROJECTION_PI 3.14159265358979323846

/* ---- cube faces (v360's xyz_to_cube, cube_to_xyz) ----
 * Faces right, left, up, down, front, back (0 .. 5, v360's default face
 * order "rludfb"); on face f the major axis is m with sign s_m, and the
 * face coordinates are uf = su d[iu] / d[m], vf = sv d[iv] / d[m]. */
BSPLINE_HD static inline void
bspline_cube_face_axes (int face, int *m, int *sm, int *iu, int *su,
    int *iv, int *sv)
{
  switch (face) {
    case 0:                    /* right */
      *m = 0, *sm = 1, *iu = 2, *su = -1, *iv = 1, *sv = 1;
      break;
    case 1:                    /* left */
      *m = 0, *sm = -1, *iu = 2, *su = -1, *iv = 1, *sv = -1;
      break;
    case 2:                    /* up */
      *m = 1, *sm = -1, *iu = 0, *su = -1, *iv = 2, *sv = -1;
      break;
    case 3:                    /* down */
      *m = 1, *sm = 1, *iu = 0, *su = 1, *iv = 2, *sv = -1;
      break;
    case 4:                    /* front */
      *m = 2, *sm = 1, *iu = 0, *su = 1, *iv = 1, *sv = 1;
      break;
    default:                   /* back */
      *m = 2, *sm = -1, *iu = 0, *su = 1, *iv = 1, *sv = -1;
      break;
  }
}

/* The layout of a cubemap: face -> its slot's column and row, the slot's
 * rotation in quarter turns (v360's ROT_0 .. ROT_270), and the columns and
 * rows of the frame.  c3x2, c6x1, c1x6: slots in the face order rludfb;
 * eac: v360's equi-angular layout (left front right / down back up, the
 * lower row turned). */
BSPLINE_HD static inline void
bspline_cube_layout (int type, int face, int *col, int *row, int *rot,
    int *cols, int *rows)
{
  *rot = 0;
  switch (type) {
    case BSPLINE_PROJECTION_CUBEMAP_6X1:
      *cols = 6, *rows = 1, *col = face, *row = 0;
      break;
    case BSPLINE_PROJECTION_CUBEMAP_1X6:
      *cols = 1, *rows = 6, *col = 0, *row = face;
      break;
    case BSPLINE_PROJECTION_EAC:
      *cols = 3, *rows = 2;
      switch (face) {
        case 0:
          *col = 2, *row = 0;
          break;
        case 1:
          *col = 0, *row = 0;
          break;
        case 2:
          *col = 2, *row = 1, *rot = 3;
          break;
        case 3:
          *col = 0, *row = 1, *rot = 3;
          break;
        case 4:
          *col = 1, *row = 0;
          break;
        default:
          *col = 1, *row = 1, *rot = 1;
          break;
      }
      break;
    default:                   /* 3x2 */
      *cols = 3, *rows = 2, *col = face % 3, *row = face / 3;
      break;
  }
}

/* The face of a slot (the inverse of bspline_cube_layout). */
BSPLINE_HD static inline int
bspline_cube_face_at (int type, int col, int row)
{
  int f, c, r, rot, cols, rows;
  for (f = 0; f < 6; f++) {
    bspline_cube_layout (type, f, &c, &r, &rot, &cols, &rows);
    if (c == col && r == row)
      return f;
  }
  return 4;
}

/* A cube face's point (uf, vf) (after its slot's rotation; Ju, Jv their
 * gradients) in slot (col, row) of a frame read from its atlas
 * (core/projection/atlas.c): the atlas's tiles are the slots with margins
 * on every side and no pads (EAC's too), side->range_x and range_y the
 * face's share of its tile, and (a, b) span the atlas.  The face's
 * parameter is uf (EAC: its angle, 4 / pi atan (uf)) in [-1, 1]. */
BSPLINE_HD static inline void
bspline_projection_atlas_point (const bspline_projection_side * side,
    int col, int row, int cols, int rows, double uf, double vf,
    const double *Ju, const double *Jv, double *a, double *b, double *J)
{
  const double pi = BSPLINE_PROJECTION_PI;
  double su = uf, sv = vf, du = 1.0, dv = 1.0;
  int i;

  if (side->type == BSPLINE_PROJECTION_EAC) {
    su = 4.0 / pi * atan (uf);
    sv = 4.0 / pi * atan (vf);
    du = 4.0 / pi / (1.0 + uf * uf);
    dv = 4.0 / pi / (1.0 + vf * vf);
  }
  *a = (2.0 * col + 1.0 + su * side->range_x) / cols - 1.0;
  *b = (2.0 * row + 1.0 + sv * side->range_y) / rows - 1.0;
  if (J)
    for (i = 0; i < 3; i++) {
      J[i] = side->range_x * du / cols * Ju[i];
      J[3 + i] = side->range_y * dv / rows * Jv[i];
    }
}

/* EAC's padding, v360's: 2 pixels at the frame's edges and between the
 * rows, as fractions of the frame. */
#define BSPLINE_PROJECTION_EAC_PAD 2.0

/* ---- the radial projections (flat, fisheye, equisolid, sg, og,
 * dfisheye): a point at angle t from the axis lies at radius G (t) (in
 * units of range): flat tan t (t < pi / 2), fisheye and dfisheye t,
 * equisolid sin (t / 2), sg tan (t / 2) (t < pi), og sin t (t <= pi / 2)
 * ---- */
/* The angle t of radius r (the inverse of G); 0 where r has none. */
BSPLINE_HD static inline int
bspline_projection_angle (int type, double r, double *t)
{
  switch (type) {
    case BSPLINE_PROJECTION_FLAT:
      *t = atan (r);
      return 1;
    case BSPLINE_PROJECTION_EQUISOLID:
      if (!(r <= 1.0))
        return 0;
      *t = 2.0 * asin (r);
      return 1;
    case BSPLINE_PROJECTION_STEREOGRAPHIC:
      *t = 2.0 * atan (r);
      return 1;
    case BSPLINE_PROJECTION_ORTHOGRAPHIC:
      if (!(r <= 1.0))
        return 0;
      *t = asin (r);
      return 1;
    default:
      if (!(r <= BSPLINE_PROJECTION_PI))
        return 0;
      *t = r;
      return 1;
  }
}

/* (x, y) k (h, z), k = G (atan2 (h, z)) / h, h = |(x, y)|, and its
 * Jacobian (2x3, row-major) with respect to (x, y, z).
 *
 * k is written without the angle where G has a closed form in (h, z)
 * (n = |d|): flat tan t / h = 1 / z, orthographic sin t / h = 1 / n,
 * stereographic tan (t / 2) / h = 1 / (n + z) and equisolid sin (t / 2)
 * / h = 1 / sqrt (2 n (n + z)) (half-angle identities).  The round trip
 * through t (tan (atan2 (h, z))) multiplied the rounding of t by G' / G,
 * about the point's distance from the axis, on top of the direction's own
 * rounding, which the projection carries the same way: far outside a flat
 * input (a wide view), the two engines' atan2 and tan (each within an ulp
 * or two) moved more points apart (docs/projections.md).  Only the
 * equidistant fisheyes take the angle itself. */
BSPLINE_HD static inline int
bspline_projection_radial_from (int type, double x, double y, double z,
    double *px, double *py, double *J)
{
  double h2 = x * x + y * y, n2 = h2 + z * z, n = sqrt (n2), k, kh, kz;

  if (!(n2 > 0.0))
    return 0;
  switch (type) {
    case BSPLINE_PROJECTION_FLAT:
      /* t < pi / 2 */
      if (!(z > 0.0))
        return 0;
      k = 1.0 / z;
      kh = 0.0;
      kz = -k * k;
      break;
    case BSPLINE_PROJECTION_ORTHOGRAPHIC:
      /* t <= pi / 2 */
      if (!(z >= 0.0))
        return 0;
      k = 1.0 / n;
      kh = -k / n2;
      kz = z * kh;
      break;
    case BSPLINE_PROJECTION_STEREOGRAPHIC:{
      /* t < pi: n + z > 0; dk/dh = -(h / n) k^2, dk/dz = -k / n */
      double q = n + z;
      if (!(q > 0.0))
        return 0;
      k = 1.0 / q;
      kh = -k * k / n;
      kz = -k / n;
      break;
    }
    case BSPLINE_PROJECTION_EQUISOLID:{
      /* q = 2 n (n + z): dq/dh = 2 h (2 n + z) / n, dq/dz = 2 (n + z)^2 / n;
       * dk = -k dq / (2 q) */
      double s = n + z, q = 2.0 * n * s;
      if (!(q > 0.0))
        return 0;               /* the back pole: every radius 1 */
      k = 1.0 / sqrt (q);
      kh = -k * (2.0 * n + z) / (n * q);
      kz = -k * s * s / (n * q);
      break;
    }
    default:{
      /* fisheye, dfisheye: equidistant, k = t / h */
      double h = sqrt (h2), t = atan2 (h, z);
      if (h <= 1e-12 * n) {
        /* on the axis: k -> 1 / z, dk/dh -> 0 (k is even in h) */
        if (!(z > 0.0))
          return 0;
        k = 1.0 / z;
        kh = 0.0;
        kz = -k * k;
      } else {
        /* dk/dh / h and dk/dz, with dt/dh = z / n2, dt/dz = -h / n2 */
        k = t / h;
        kh = (z / n2 * h - t) / (h2 * h);
        kz = -1.0 / n2;
      }
      break;
    }
  }
  *px = x * k;
  *py = y * k;
  if (J) {
    J[0] = k + x * x * kh;
    J[1] = x * y * kh;
    J[2] = x * kz;
    J[3] = x * y * kh;
    J[4] = k + y * y * kh;
    J[5] = y * kz;
  }
  return 1;
}

/* ---- input maps: direction d -> (a, b), with the Jacobian J (2x3,
 * row-major) where J is not NULL.  Returns 0 where d has no point in the
 * projection.  `branch` picks the part of a projection that shows a
 * direction more than once (a cube face, including the padding of EAC; a
 * half of dfisheye, whose fields of view may pass 180 degrees): -1, the
 * one the projection's own rule picks (the major axis; the hemisphere);
 * otherwise the one bspline_projection_to_direction says an output point
 * lies on, so that its Jacobian is that of the same part. ---- */
BSPLINE_HD static inline int
bspline_projection_from_direction_on (const bspline_projection_side * side,
    const double *d, int branch, double *a, double *b, double *J)
{
  const double pi = BSPLINE_PROJECTION_PI;
  double x = d[0], y = d[1], z = d[2];
  double rho2 = x * x + z * z, rho = sqrt (rho2);
  int i;

  switch (side->type) {
    case BSPLINE_PROJECTION_EQUIRECT:
    case BSPLINE_PROJECTION_HEQUIRECT:
    case BSPLINE_PROJECTION_CYLINDRICAL:
    case BSPLINE_PROJECTION_MERCATOR:{
      /* longitude phi = atan2 (x, z); the latitude's function by type */
      double phi = atan2 (x, z), sx, n2 = rho2 + y * y;
      if (!(rho > 0.0))
        return 0;               /* a pole: no longitude */
      sx = side->type == BSPLINE_PROJECTION_EQUIRECT
          || side->type == BSPLINE_PROJECTION_CYLINDRICAL ? side->range_x :
          side->type == BSPLINE_PROJECTION_HEQUIRECT ? 0.5 * pi : pi;
      if (side->type == BSPLINE_PROJECTION_HEQUIRECT
          && !(fabs (phi) <= 0.5 * pi))
        return 0;
      *a = phi / sx;
      if (J) {
        J[0] = z / (rho2 * sx);
        J[1] = 0.0;
        J[2] = -x / (rho2 * sx);
      }
      if (side->type == BSPLINE_PROJECTION_CYLINDRICAL) {
        /* b = tan (latitude) / range_y = (y / rho) / range_y */
        double ry = side->range_y;
        *b = y / (rho * ry);
        if (J) {
          J[3] = -y * x / (rho2 * rho * ry);
          J[4] = 1.0 / (rho * ry);
          J[5] = -y * z / (rho2 * rho * ry);
        }
      } else if (side->type == BSPLINE_PROJECTION_MERCATOR) {
        /* b = atanh (sin latitude) / pi = asinh (tan latitude) / pi,
         * tan latitude = y / rho (atanh of y / |d| near 1 loses the
         * digits that 1 - y / |d| cancels, near the poles); d asinh (s) /
         * ds = rho / |d| */
        double n = sqrt (n2), s = y / rho;
        *b = asinh (s) / pi;
        if (J) {
          J[3] = -x * s / (rho * n * pi);
          J[4] = 1.0 / (n * pi);
          J[5] = -z * s / (rho * n * pi);
        }
      } else {
        /* latitude theta = atan2 (y, rho), b = theta / (pi / 2) (equirect:
         * theta / range_y) */
        double s = side->type == BSPLINE_PROJECTION_EQUIRECT ?
            1.0 / side->range_y : 2.0 / pi;
        *b = atan2 (y, rho) * s;
        if (J) {
          J[3] = -y * x / (rho * n2) * s;
          J[4] = rho / n2 * s;
          J[5] = -y * z / (rho * n2) * s;
        }
      }
      return isfinite (*a) && isfinite (*b);
    }
    case BSPLINE_PROJECTION_PANNINI:{
      /* a = (D + 1) x / q, b = (D + 1) y / q, q = D rho + z (from v360's
       * S = (D + 1) / (D + cos phi), x = S sin phi, y = S tan theta) */
      double D = side->range_x, q = D * rho + z, qx, qz;
      if (!(z >= 0.0) || !(q > 0.0) || !(rho > 0.0))
        return 0;
      *a = (D + 1.0) * x / q;
      *b = (D + 1.0) * y / q;
      if (J) {
        qx = D * x / rho;
        qz = D * z / rho + 1.0;
        J[0] = (D + 1.0) * (1.0 / q - x * qx / (q * q));
        J[1] = 0.0;
        J[2] = -(D + 1.0) * x * qz / (q * q);
        J[3] = -(D + 1.0) * y * qx / (q * q);
        J[4] = (D + 1.0) / q;
        J[5] = -(D + 1.0) * y * qz / (q * q);
      }
      return isfinite (*a) && isfinite (*b);
    }
    case BSPLINE_PROJECTION_CUBEMAP_3X2:
    case BSPLINE_PROJECTION_CUBEMAP_6X1:
    case BSPLINE_PROJECTION_CUBEMAP_1X6:
    case BSPLINE_PROJECTION_EAC:{
      double ax = fabs (x), ay = fabs (y), az = fabs (z), uf, vf, Ju[3],
          Jv[3], t;
      int face, m, sm, iu, su, iv, sv, col, row, rot, cols, rows;
      /* the face of the major axis (ties: front/back, then left/right) */
      if (branch >= 0)
        face = branch;
      else if (az >= ax && az >= ay)
        face = z > 0.0 ? 4 : 5;
      else if (ax >= ay)
        face = x > 0.0 ? 0 : 1;
      else
        face = y > 0.0 ? 3 : 2;
      bspline_cube_face_axes (face, &m, &sm, &iu, &su, &iv, &sv);
      if (!(d[m] * sm > 0.0))
        return 0;
      uf = su * d[iu] / d[m];
      vf = sv * d[iv] / d[m];
      for (i = 0; i < 3; i++)
        Ju[i] = Jv[i] = 0.0;
      Ju[iu] = su / d[m];
      Ju[m] = -uf / d[m];
      Jv[iv] = sv / d[m];
      Jv[m] = -vf / d[m];
      bspline_cube_layout (side->type, face, &col, &row, &rot, &cols, &rows);
      /* the slot's rotation (v360's rotate_cube_face) */
      if (rot == 1) {
        t = uf, uf = -vf, vf = t;
        for (i = 0; i < 3; i++)
          t = Ju[i], Ju[i] = -Jv[i], Jv[i] = t;
      } else if (rot == 3) {
        t = -uf, uf = vf, vf = t;
        for (i = 0; i < 3; i++)
          t = -Ju[i], Ju[i] = Jv[i], Jv[i] = t;
      }
      if (side->range_x > 0.0)
        bspline_projection_atlas_point (side, col, row, cols, rows, uf, vf,
            Ju, Jv, a, b, J);
      else if (side->type == BSPLINE_PROJECTION_EAC) {
        /* v360's xyz_to_eac: the face's angle, then the padded slot */
        double pu = BSPLINE_PROJECTION_EAC_PAD / side->width;
        double pv = BSPLINE_PROJECTION_EAC_PAD / side->height;
        double su01 = 2.0 / pi / (1.0 + uf * uf), sv01 =
            2.0 / pi / (1.0 + vf * vf);
        double U = (2.0 / pi * atan (uf) + 0.5 + col) * (1.0 - 2.0 * pu)
            / 3.0 + pu;
        double V = (2.0 / pi * atan (vf) + 0.5) * (0.5 - 2.0 * pv) + pv
            + 0.5 * row;
        *a = 2.0 * U - 1.0;
        *b = 2.0 * V - 1.0;
        if (J)
          for (i = 0; i < 3; i++) {
            J[i] = 2.0 * su01 * (1.0 - 2.0 * pu) / 3.0 * Ju[i];
            J[3 + i] = 2.0 * sv01 * (0.5 - 2.0 * pv) * Jv[i];
          }
      } else {
        *a = (2.0 * col + uf + 1.0) / cols - 1.0;
        *b = (2.0 * row + vf + 1.0) / rows - 1.0;
        if (J)
          for (i = 0; i < 3; i++) {
            J[i] = Ju[i] / cols;
            J[3 + i] = Jv[i] / rows;
          }
      }
      return isfinite (*a) && isfinite (*b);
    }
    case BSPLINE_PROJECTION_DUAL_FISHEYE:{
      /* v360's dfisheye: the front hemisphere (z >= 0) in the right half,
       * the back one in the left half, mirrored */
      double px, py, R[6];
      int front = branch >= 0 ? branch : z >= 0.0;
      if (!bspline_projection_radial_from (side->type, x, y, front ? z : -z,
              &px, &py, J ? R : NULL))
        return 0;
      px /= side->range_x;
      py /= side->range_y;
      /* past its half: outside that lens's field of view.  Not where the
       * half is given: an output point of that half has its Jacobian
       * there, and the column of a = 0 (the middle of an odd width) lies
       * on the halves' edge, |px| = 1 up to rounding, where the engines'
       * roundings put it on either side */
      if (branch < 0 && !(fabs (px) <= 1.0))
        return 0;
      *a = front ? 0.5 * px + 0.5 : -0.5 * px - 0.5;
      *b = py;
      if (J)
        for (i = 0; i < 3; i++) {
          double zs = i == 2 && !front ? -1.0 : 1.0;
          J[i] = (front ? 0.5 : -0.5) * R[i] * zs / side->range_x;
          J[3 + i] = R[3 + i] * zs / side->range_y;
        }
      return isfinite (*a) && isfinite (*b);
    }
    default:{
      /* flat, fisheye, equisolid, stereographic, orthographic */
      double px, py;
      if (!bspline_projection_radial_from (side->type, x, y, z, &px, &py, J))
        return 0;
      *a = px / side->range_x;
      *b = py / side->range_y;
      if (J)
        for (i = 0; i < 3; i++) {
          J[i] /= side->range_x;
          J[3 + i] /= side->range_y;
        }
      return isfinite (*a) && isfinite (*b);
    }
  }
}

/* The input map with the projection's own rule for the part. */
BSPLINE_HD static inline int
bspline_projection_from_direction (const bspline_projection_side * side,
    const double *d, double *a, double *b, double *J)
{
  return bspline_projection_from_direction_on (side, d, -1, a, b, J);
}

/* ---- output maps: (a, b) -> a direction d (not always of unit length),
 * and the part it lies on in *branch where branch is not NULL (-1 for a
 * projection that shows each direction once; above).  Returns 0 where
 * (a, b) has none. ---- */
BSPLINE_HD static inline int
bspline_projection_to_direction (const bspline_projection_side * side,
    double a, double b, double *d, int *branch)
{
  const double pi = BSPLINE_PROJECTION_PI;

  if (branch)
    *branch = -1;

  switch (side->type) {
    case BSPLINE_PROJECTION_EQUIRECT:
    case BSPLINE_PROJECTION_HEQUIRECT:{
      int full = side->type == BSPLINE_PROJECTION_EQUIRECT;
      double phi = a * (full ? side->range_x : 0.5 * pi);
      double theta = b * (full ? side->range_y : 0.5 * pi);
      d[0] = cos (theta) * sin (phi);
      d[1] = sin (theta);
      d[2] = cos (theta) * cos (phi);
      return 1;
    }
    case BSPLINE_PROJECTION_CYLINDRICAL:{
      double phi = a * side->range_x;
      d[0] = sin (phi);
      d[1] = b * side->range_y;
      d[2] = cos (phi);
      return 1;
    }
    case BSPLINE_PROJECTION_MERCATOR:{
      double s = 1.0 / cosh (b * pi);
      d[0] = s * sin (a * pi);
      d[1] = tanh (b * pi);
      d[2] = s * cos (a * pi);
      return 1;
    }
    case BSPLINE_PROJECTION_PANNINI:{
      /* v360's pannini_to_xyz */
      double D = side->range_x, k = a * a / ((D + 1.0) * (D + 1.0));
      double dscr = k * k * D * D - (k + 1.0) * (k * D * D - 1.0);
      double clon, S, lon, lat;
      if (!(dscr >= 0.0))
        return 0;
      clon = (-k * D + sqrt (dscr)) / (k + 1.0);
      S = (D + 1.0) / (D + clon);
      lon = atan2 (a, S * clon);
      lat = atan2 (b, S);
      d[0] = sin (lon) * cos (lat);
      d[1] = sin (lat);
      d[2] = cos (lon) * cos (lat);
      return 1;
    }
    case BSPLINE_PROJECTION_CUBEMAP_3X2:
    case BSPLINE_PROJECTION_CUBEMAP_6X1:
    case BSPLINE_PROJECTION_CUBEMAP_1X6:
    case BSPLINE_PROJECTION_EAC:{
      int face, m, sm, iu, su, iv, sv, col, row, rot, cols, rows;
      double uf, vf, t, U, V;
      bspline_cube_layout (side->type, 0, &col, &row, &rot, &cols, &rows);
      if (side->type == BSPLINE_PROJECTION_EAC) {
        double pu = BSPLINE_PROJECTION_EAC_PAD / side->width;
        double pv = BSPLINE_PROJECTION_EAC_PAD / side->height;
        U = (0.5 * (a + 1.0) - pu) * 3.0 / (1.0 - 2.0 * pu);
        V = 0.5 * (b + 1.0);
        row = V < 0.5 ? 0 : 1;
        V = (V - pv - 0.5 * row) / (0.5 - 2.0 * pv);
      } else {
        U = 0.5 * (a + 1.0) * cols;
        V = 0.5 * (b + 1.0) * rows;
        row = (int) floor (V);
        row = row < 0 ? 0 : row >= rows ? rows - 1 : row;
        V -= row;
      }
      col = (int) floor (U);
      col = col < 0 ? 0 : col >= cols ? cols - 1 : col;
      U -= col;
      if (side->type == BSPLINE_PROJECTION_EAC) {
        uf = tan ((U - 0.5) * 0.5 * pi);
        vf = tan ((V - 0.5) * 0.5 * pi);
      } else {
        uf = 2.0 * U - 1.0;
        vf = 2.0 * V - 1.0;
      }
      face = bspline_cube_face_at (side->type, col, row);
      bspline_cube_layout (side->type, face, &col, &row, &rot, &cols, &rows);
      /* v360's rotate_cube_face_inverse */
      if (rot == 1)
        t = uf, uf = vf, vf = -t;
      else if (rot == 3)
        t = uf, uf = -vf, vf = t;
      bspline_cube_face_axes (face, &m, &sm, &iu, &su, &iv, &sv);
      if (branch)
        *branch = face;
      d[m] = sm;
      d[iu] = uf * sm * su;
      d[iv] = vf * sm * sv;
      return 1;
    }
    case BSPLINE_PROJECTION_DUAL_FISHEYE:{
      int front = a >= 0.0;
      double al = front ? 2.0 * a - 1.0 : -(2.0 * a + 1.0);
      double px = al * side->range_x, py = b * side->range_y;
      double r = sqrt (px * px + py * py), t, s;
      if (!bspline_projection_angle (side->type, r, &t))
        return 0;
      s = r > 0.0 ? sin (t) / r : 1.0;
      d[0] = px * s;
      d[1] = py * s;
      d[2] = front ? cos (t) : -cos (t);
      if (branch)
        *branch = front;
      return 1;
    }
    default:{
      double px = a * side->range_x, py = b * side->range_y;
      double r = sqrt (px * px + py * py), t, s;
      if (side->type == BSPLINE_PROJECTION_FLAT) {
        d[0] = px;
        d[1] = py;
        d[2] = 1.0;
        return 1;
      }
      if (!bspline_projection_angle (side->type, r, &t))
        return 0;
      s = r > 0.0 ? sin (t) / r : 1.0;
      d[0] = px * s;
      d[1] = py * s;
      d[2] = cos (t);
      return 1;
    }
  }
}

/* The output map's Jacobian dd/d(a, b) (3x2, row-major) at its direction
 * d on part `branch`, from the input map of the same projection (the
 * header's comment): T spans the tangent plane at d, M = J_P T,
 * Q = T M^-1.  Returns 0 where M is singular. */
BSPLINE_HD static inline int
bspline_projection_to_direction_jacobian (const bspline_projection_side *
    side, const double *d, int branch, double *Q)
{
  double n = sqrt (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), u[3], e[3],
      t1[3], t2[3], P[6], a, b, M[4], det, l;
  int i;

  if (!(n > 0.0))
    return 0;
  for (i = 0; i < 3; i++)
    u[i] = d[i] / n;
  /* e: the axis least aligned with d; t1 = e x u, t2 = u x t1 */
  e[0] = e[1] = e[2] = 0.0;
  if (fabs (u[0]) <= fabs (u[1]) && fabs (u[0]) <= fabs (u[2]))
    e[0] = 1.0;
  else if (fabs (u[1]) <= fabs (u[2]))
    e[1] = 1.0;
  else
    e[2] = 1.0;
  t1[0] = e[1] * u[2] - e[2] * u[1];
  t1[1] = e[2] * u[0] - e[0] * u[2];
  t1[2] = e[0] * u[1] - e[1] * u[0];
  l = sqrt (t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
  for (i = 0; i < 3; i++)
    t1[i] /= l;
  t2[0] = u[1] * t1[2] - u[2] * t1[1];
  t2[1] = u[2] * t1[0] - u[0] * t1[2];
  t2[2] = u[0] * t1[1] - u[1] * t1[0];
  if (!bspline_projection_from_direction_on (side, u, branch, &a, &b, P))
    return 0;
  M[0] = P[0] * t1[0] + P[1] * t1[1] + P[2] * t1[2];
  M[1] = P[0] * t2[0] + P[1] * t2[1] + P[2] * t2[2];
  M[2] = P[3] * t1[0] + P[4] * t1[1] + P[5] * t1[2];
  M[3] = P[3] * t2[0] + P[4] * t2[1] + P[5] * t2[2];
  det = M[0] * M[3] - M[1] * M[2];
  if (!(det != 0.0) || !isfinite (det))
    return 0;
  /* Q = [t1 t2] M^-1, scaled back to d's length (the map's d is n u) */
  for (i = 0; i < 3; i++) {
    Q[2 * i] = n * (t1[i] * M[3] - t2[i] * M[2]) / det;
    Q[2 * i + 1] = n * (-t1[i] * M[1] + t2[i] * M[0]) / det;
  }
  return 1;
}

/* The stage: output (a, b) -> input (a', b'), and its Jacobian (2x2,
 * row-major) where J is not NULL.  Returns 0 where there is no input
 * point: (a, b) outside the output projection's domain, or a direction
 * the input projection does not see (behind a flat view, outside a
 * fisheye's reach). */
BSPLINE_HD static inline int
bspline_projection_map (const bspline_projection * proj, double a,
    double b, double *x, double *y, double *J)
{
  const double *R = proj->rotation;
  double d[3], e[3], P[6], Q[6], RQ[6];
  int i, branch;

  if (!bspline_projection_to_direction (&proj->out, a, b, d, &branch))
    return 0;
  for (i = 0; i < 3; i++)
    e[i] = R[3 * i] * d[0] + R[3 * i + 1] * d[1] + R[3 * i + 2] * d[2];
  if (!bspline_projection_from_direction (&proj->in, e, x, y, J ? P : NULL))
    return 0;
  if (J) {
    if (!bspline_projection_to_direction_jacobian (&proj->out, d, branch,
            Q))
      return 0;
    for (i = 0; i < 3; i++) {
      RQ[2 * i] = R[3 * i] * Q[0] + R[3 * i + 1] * Q[2] + R[3 * i + 2] * Q[4];
      RQ[2 * i + 1] = R[3 * i] * Q[1] + R[3 * i + 1] * Q[3]
          + R[3 * i + 2] * Q[5];
    }
    J[0] = P[0] * RQ[0] + P[1] * RQ[2] + P[2] * RQ[4];
    J[1] = P[0] * RQ[1] + P[1] * RQ[3] + P[2] * RQ[5];
    J[2] = P[3] * RQ[0] + P[4] * RQ[2] + P[5] * RQ[4];
    J[3] = P[3] * RQ[1] + P[4] * RQ[3] + P[5] * RQ[5];
  }
  return 1;
}

#ifdef __cplusplus
}
#endif
#endif /* BSPLINE_PROJECTION_H */
