/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* transform.c: 3x3 homogeneous matrices (row-major). */
#include "bspline.h"

#include <math.h>
#include <string.h>

void
bspline_matrix_identity (double m[9])
{
  static const double id[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
  memcpy (m, id, sizeof (id));
}

void
bspline_matrix_multiply (const double a[9], const double b[9], double r[9])
{
  double t[9];
  int i, j;
  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++)
      t[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j]
          + a[3 * i + 2] * b[6 + j];
  memcpy (r, t, sizeof (t));
}

int
bspline_matrix_is_finite (const double m[9])
{
  int i;
  for (i = 0; i < 9; i++)
    if (!isfinite (m[i]))
      return 0;
  return 1;
}

/* Inverse by the adjugate.  A matrix is called singular when its
 * determinant is negligible against the product of its row norms or of its
 * column norms (Hadamard's bound, so the test does not depend on the units
 * of the translation column): such a map sends the plane onto a line and
 * no resampling can undo that.  An affine map (last row 0, 0, c) is
 * singular where its linear part is: a translation of any finite size
 * (1e15 pixels) folds nothing, though it would dominate the bound. */
int
bspline_matrix_invert (const double m[9], double inv[9])
{
  double c[9], det, rows = 1.0, cols = 1.0;
  int i;

  if (!bspline_matrix_is_finite (m))
    return 0;
  c[0] = m[4] * m[8] - m[5] * m[7];
  c[1] = m[2] * m[7] - m[1] * m[8];
  c[2] = m[1] * m[5] - m[2] * m[4];
  c[3] = m[5] * m[6] - m[3] * m[8];
  c[4] = m[0] * m[8] - m[2] * m[6];
  c[5] = m[2] * m[3] - m[0] * m[5];
  c[6] = m[3] * m[7] - m[4] * m[6];
  c[7] = m[1] * m[6] - m[0] * m[7];
  c[8] = m[0] * m[4] - m[1] * m[3];
  det = m[0] * c[0] + m[1] * c[3] + m[2] * c[6];
  /* hypot: no overflow for entries near DBL_MAX */
  if (m[6] == 0.0 && m[7] == 0.0) {
    rows = hypot (m[0], m[1]) * hypot (m[3], m[4]) * fabs (m[8]);
    cols = hypot (m[0], m[3]) * hypot (m[1], m[4]) * fabs (m[8]);
  } else {
    for (i = 0; i < 3; i++) {
      rows *= hypot (hypot (m[3 * i], m[3 * i + 1]), m[3 * i + 2]);
      cols *= hypot (hypot (m[i], m[3 + i]), m[6 + i]);
    }
  }
  if (!isfinite (det) || det == 0.0
      || fabs (det) <= 1e-15 * (rows < cols ? rows : cols))
    return 0;
  for (i = 0; i < 9; i++)
    inv[i] = c[i] / det;
  return bspline_matrix_is_finite (inv);
}
