/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* reduce.c: least-squares reduction of axis-aligned maps
 * (antialias = least-squares, the default).
 *
 * Where an axis-aligned map shrinks an axis by T = |scale| > 1, the output
 * along that axis is not the interpolant at the output centres but the
 * samples of the spline g, of the same order n on the coarse grid, that is
 * closest in L2 to the spline f of the input (the orthogonal projection of
 * [UAE95] section III, in the notation of [MBU01] section II):
 *
 *   f(x) = sum_k c[k] beta^n(x - k),             c = (b^n)^-1 s   (input)
 *   g(x) = sum_l d[l] beta^n((x - x_l) / T),     x_l = output centre l
 *   d    = (b^(2n+1))^-1 y,   y[l] = (1/T) <f, beta^n((. - x_l) / T)>
 *   out[j] = g(x_j) = sum_l d[l] beta^n(j - l)   (b^n on the coarse grid)
 *
 * The Gram matrix of the coarse basis, <beta^n((. - x_l)/T),
 * beta^n((. - x_m)/T)> = T beta^(2n+1)(l - m), is the sampled B-spline of
 * degree 2n + 1 ([UAE95] eq. 10, [MBU01] eq. 6), so the normal equations
 * are the interpolation prefilter of degree 2n + 1 on the output grid.
 *
 * y is the only step that depends on T.  [MBU01] computes it by finite
 * differences of the (n + 1)-fold integral of f, at a cost independent of
 * T; here it is a table of weights on the coefficients c (the separable
 * path's own format):
 *
 *   y[l] = sum_k c[k] w(l, k),  w(l, k) = (1/T) int beta^n(x - k)
 *                                          beta^n((x - x_l) / T) dx,
 *
 * integrated exactly: both factors are polynomials of degree n between
 * consecutive knots of either spline, so Gauss-Legendre with n + 1 nodes
 * on each such interval is exact (degree 2n <= 2(n + 1) - 1).  A table
 * reads (n + 1)(T + 1) + 1 coefficients per output, about what the
 * widened kernels of zimg or videoscale read, and the engines run it as
 * they run any separable table, SIMD and CUDA included.
 *
 * The plan is thus two plans that the engines run in turn through an
 * intermediate plane of the engine's real type:
 *   project: the input's prefilter of order n, then the tables w along the
 *            reduced axes and the ordinary interpolation along the others,
 *            into y on the output grid widened by a margin on each side of
 *            the reduced axes;
 *   sample:  the prefilter of degree 2n + 1 along the reduced axes only
 *            (d = (b^(2n+1))^-1 y), then b^n at the integers along them
 *            and a copy along the others, into the output frame.
 * The margin holds y of the input's extension (the boundary maps the taps
 * of w as it maps any tap), so the solution inside the frame is that of
 * the least-squares problem on the whole extended line, for every boundary
 * and any offset of the map; the Gram prefilter's own boundary
 * initialisation only touches the margin, whose length makes its effect
 * on the frame smaller than the precision's epsilon.
 *
 * Order 0 is the exact area average (b^1 = delta: no Gram filter); order 1
 * the least-squares fit by a coarse piecewise-linear spline.
 *
 * The tables are written for [MBU01]'s oblique projection, analysis
 * function beta^na((x - x_l) / T) and Gram filter 1 / b^(n+na+1); the plan
 * takes na = n, the orthogonal projection.  A higher na leaks less above
 * the coarse Nyquist frequency but loses round-trip PSNR
 * (docs/notes/least-squares-reduction.md).
 *
 * [UAE95] M. Unser, A. Aldroubi, M. Eden, "Enlargement or reduction of
 *         digital images with minimum loss of information", IEEE Trans.
 *         Image Processing 4(3), 1995.
 * [MBU01] A. Munoz-Barrutia, T. Blu, M. Unser, "Least-squares image
 *         resizing using finite differences", IEEE Trans. Image
 *         Processing 10(9), 2001.
 */
#include "resample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The Legendre polynomial P_m at x, and P_(m-1) (Bonnet's recursion). */
static void
legendre (int m, double x, double *pm, double *pm1)
{
  double p0 = 1.0, p1 = x;
  int k;
  for (k = 2; k <= m; k++) {
    double p2 = ((2.0 * k - 1.0) * x * p1 - (k - 1.0) * p0) / k;
    p0 = p1;
    p1 = p2;
  }
  *pm = p1;
  *pm1 = p0;
}

/* Gauss-Legendre nodes and weights of m points on [-1, 1]: Newton on P_m
 * from the Chebyshev guesses, P_m' = m (x P_m - P_(m-1)) / (x^2 - 1);
 * exact to rounding for the m <= 12 used here. */
static void
gauss_legendre (int m, double *node, double *weight)
{
  int i, it;
  for (i = 0; i < m; i++) {
    double x = cos (3.14159265358979323846 * (i + 0.75) / (m + 0.5));
    double pm, pm1, dp;
    for (it = 0; it < 100; it++) {
      double dx;
      legendre (m, x, &pm, &pm1);
      dx = pm / (m * (x * pm - pm1) / (x * x - 1.0));
      x -= dx;
      if (fabs (dx) < 1e-16)
        break;
    }
    legendre (m, x, &pm, &pm1);
    dp = m * (x * pm - pm1) / (x * x - 1.0);
    node[i] = x;
    weight[i] = 2.0 / ((1.0 - x * x) * dp * dp);
  }
}

/* Taps of the inner-product table w(l, k) for one output centre at sample
 * coordinate xl (already brought near the line by
 * bspline_reduce_coordinate): the taps are origin .. origin + n_taps - 1,
 * w[] zeroed by the caller.  See the file's comment for the integral. */
static void
project_taps (int order, int analysis, double scale, double xl, int origin,
    int n_taps, const double *node, const double *gw, int n_nodes, double *w)
{
  const double h = (analysis + 1) * 0.5;
  const double lo = xl - scale * h, hi = xl + scale * h;
  /* the fine knots lie on c0 + Z */
  const double c0 = (order + 1) * 0.5 - floor ((order + 1) * 0.5);
  double fine = ceil (lo - c0) + c0, a = lo;
  int coarse = 1;
  double wf[BSPLINE_MAX_TAPS];

  while (a < hi) {
    double next_coarse = coarse <= analysis + 1 ? lo + scale * coarse : hi;
    double b;
    int q, m;
    while (fine <= a)
      fine += 1.0;
    b = fine < next_coarse ? fine : next_coarse;
    if (b > hi)
      b = hi;
    if (b >= next_coarse)
      coarse++;
    if (b > a) {
      const double mid = 0.5 * (a + b), half = 0.5 * (b - a);
      for (q = 0; q < n_nodes; q++) {
        const double x = mid + half * node[q];
        const double g = bspline_kernel_d (analysis, (x - xl) / scale)
            * gw[q] * half / scale;
        double t;
        const int o = bspline_origin_d (order, x, &t);
        bspline_weights_d (order, t, wf);
        for (m = 0; m <= order; m++) {
          const int k = o + m - origin;
          if (k >= 0 && k < n_taps)
            w[k] += g * wf[m];
        }
      }
    }
    a = b;
  }
}

/* Taps of the least-squares table of one reduced axis: entry i is output
 * sample i - margin, at sample coordinate scale (i - margin + 0.5) +
 * offset - 0.5 (the map's, continued past the frame). */
static bspline_status
build_project_table (const bspline_axis * axis, int analysis,
    bspline_axis_table * t, int n_out, int margin, double scale, double offset)
{
  const double T = fabs (scale), h = (axis->order + 1) * 0.5;
  const double ha = (analysis + 1) * 0.5;
  const int n_nodes = (axis->order + analysis) / 2 + 1;
  double node[BSPLINE_MAX_DEGREE], gw[BSPLINE_MAX_DEGREE];
  int i, k;

  gauss_legendre (n_nodes, node, gw);
  if (bspline_axis_table_alloc (t, n_out,
          (int) ceil (2.0 * ha * T + 2.0 * h) + 1) != BSPLINE_OK)
    return BSPLINE_ERROR_NO_MEMORY;
  for (i = 0; i < n_out; i++) {
    double x = scale * (i - margin + 0.5) + offset - 0.5;
    double *w = t->weight_d + (size_t) i * t->n_taps;
    int origin;
    x = bspline_reduce_coordinate (x, axis->len, axis->pad, axis->boundary,
        ha * T + h + 2.0);
    origin = (int) floor (x - ha * T - h) + 1;
    project_taps (axis->order, analysis, T, x, origin, t->n_taps, node, gw,
        n_nodes, w);
    t->first[i] = origin + axis->pad;
    for (k = 0; k < t->n_taps; k++) {
      t->index[(size_t) i * t->n_taps + k] =
          bspline_boundary_index (origin + k, axis->len, axis->pad,
          axis->boundary);
      t->weight_f[(size_t) i * t->n_taps + k] = (float) w[k];
    }
  }
  return BSPLINE_OK;
}

/* The sample plan's table of one axis: output j reads the intermediate at
 * sample coordinate j + margin with the B-spline of `order` (b^n at the
 * integers along a reduced axis; order 0 along the others: a copy). */
static bspline_status
build_sample_table (int order, int len, double gain, bspline_axis_table * t,
    int n_out, int margin)
{
  bspline_axis axis;
  int j, k;

  memset (&axis, 0, sizeof (axis));
  axis.method = BSPLINE_METHOD_BSPLINE;
  axis.order = order;
  axis.boundary = BSPLINE_BOUNDARY_MIRROR;
  axis.len = len;
  if (bspline_axis_table_alloc (t, n_out, order + 1) != BSPLINE_OK)
    return BSPLINE_ERROR_NO_MEMORY;
  for (j = 0; j < n_out; j++) {
    double x = j + margin, reduced = x, frac;
    double *w = t->weight_d + (size_t) j * t->n_taps;
    int n;
    t->first[j] = bspline_axis_origin (&axis, &reduced, 1.0, &n, &frac);
    bspline_axis_taps_d (&axis, x, 1.0, t->index + (size_t) j * t->n_taps, w);
    for (k = 0; k < t->n_taps; k++) {
      w[k] *= gain;
      t->weight_f[(size_t) j * t->n_taps + k] = (float) w[k];
    }
  }
  return BSPLINE_OK;
}

/* ---- the folded reduction (bspline_fold_axis, resample.h) ---- */

/* The ratio p / q of scale, where scale q is an integer p to double's
 * precision, q <= BSPLINE_FOLD_MAX_Q and p <= BSPLINE_FOLD_MAX_P. */
static int
fold_ratio (double scale, int *p, int *q)
{
  int d;
  for (d = 1; d <= BSPLINE_FOLD_MAX_Q; d++) {
    const double n = scale * d, r = floor (n + 0.5);
    if (fabs (n - r) <= 1e-12 * n && r >= 1.0 && r <= BSPLINE_FOLD_MAX_P) {
      *p = (int) r;
      *q = d;
      return 1;
    }
  }
  return 0;
}

/* out[0 .. la + lb - 2] = a * b (convolution). */
static void
convolve (const double *a, int la, const double *b, int lb, double *out)
{
  int i, j;
  memset (out, 0, sizeof (double) * (la + lb - 1));
  for (i = 0; i < la; i++)
    for (j = 0; j < lb; j++)
      out[i + j] += a[i] * b[j];
}

/* The output grid's filter of a fold axis, as the CPU engine runs it (its
 * recursions f->pole, f->lag, causal then anticausal, then b^n's
 * f->sample; in double), as a symmetric FIR: the response to a unit
 * sample in the middle of a line long enough that its ends have decayed
 * below double's eps, truncated where the tails beyond fir_half sum to
 * 1e-8 of the l1 norm (at most the margin, the same forgetting length:
 * reduce.c's gram_margin).  Returns 0 where memory is short. */
static int
fold_fir (bspline_fold_axis * f)
{
  const int L = 8 * f->margin + 64, n = 2 * L + 1;
  double *line = calloc ((size_t) n * 2, sizeof (double)), *h, l1 = 0.0,
      tail = 0.0;
  int i, k, m;

  if (!line)
    return 0;
  h = line + n;
  line[L] = 1.0;
  for (i = 0; i < f->n_recursions; i++) {
    const double z = f->pole[i];
    const int lag = f->lag[i];
    for (k = lag; k < n; k++)
      line[k] += z * line[k - lag];
    for (k = n - 1 - lag; k >= 0; k--)
      line[k] += z * line[k + lag];
  }
  for (k = f->half; k < n - f->half; k++)
    for (m = -f->half; m <= f->half; m++)
      h[k] += (double) f->sample[m + f->half] * line[k + m];
  for (k = 0; k < n; k++)
    l1 += fabs (h[k]);
  f->fir_half = 0;
  for (m = L; m > 0; m--) {
    tail += fabs (h[L + m]) + fabs (h[L - m]);
    if (tail > 1e-8 * l1) {
      f->fir_half = m < f->margin ? m : f->margin;
      break;
    }
  }
  f->fir = malloc (sizeof (float) * (2 * f->fir_half + 1));
  if (f->fir)
    for (m = -f->fir_half; m <= f->fir_half; m++)
      f->fir[f->fir_half + m] = (float) h[L + m];
  free (line);
  return f->fir != NULL;
}

/* The fold of one reduced axis (scale > 0), outputs as the project
 * table's: entry i is output sample i - margin.  Returns 0 where the
 * scale is not such a ratio or memory is short. */
static int
build_fold_axis (const bspline_axis * axis, int analysis,
    bspline_fold_axis * f, int n_out, int margin, double scale,
    double offset)
{
  const int order = axis->order, np = bspline_n_poles (order);
  const int gram = order + analysis + 1;
  const double h = (order + 1) * 0.5, ha = (analysis + 1) * 0.5;
  const int n_nodes = (order + analysis) / 2 + 1;
  const int n_p = (int) ceil (2.0 * ha * scale + 2.0 * h) + 1;
  double node[BSPLINE_MAX_DEGREE], gw[BSPLINE_MAX_DEGREE];
  double side[BSPLINE_FOLD_MAX_P], back[BSPLINE_FOLD_MAX_P], gain = 1.0;
  double *fir, *tmp, *pw;
  int origin[BSPLINE_FOLD_MAX_Q], D, len, i, r, t, d, last;

  if (!fold_ratio (scale, &f->p, &f->q))
    return 0;
  D = np * (f->p - 1);
  f->n_out = n_out;
  f->margin = margin;
  f->n_taps = n_p + 2 * D;
  if (f->n_taps > BSPLINE_FOLD_MAX_TAPS)
    return 0;
  fir = calloc ((size_t) 2 * (2 * D + 1) + n_p, sizeof (double));
  f->weight = malloc (sizeof (float) * f->q * f->n_taps);
  if (!fir || !f->weight) {
    free (fir);
    return 0;
  }
  tmp = fir + 2 * D + 1;
  pw = tmp + 2 * D + 1;
  /* the FIR: prod_i (1 - z_i)^2 (sum_(d<p) z_i^d q^-d) (sum_(d<p) z_i^d
   * q^d), symmetric about tap D */
  fir[0] = 1.0;
  len = 1;
  for (i = 0; i < np; i++) {
    const double z = bspline_pole (order, i);
    side[0] = 1.0;
    for (d = 1; d < f->p; d++)
      side[d] = side[d - 1] * z;
    for (d = 0; d < f->p; d++)
      back[d] = side[f->p - 1 - d];
    convolve (fir, len, side, f->p, tmp);
    convolve (tmp, len + f->p - 1, back, f->p, fir);
    len += 2 * (f->p - 1);
    for (d = 0; d < len; d++)
      fir[d] *= (1.0 - z) * (1.0 - z);
  }
  /* each output phase's inner products, folded with the FIR */
  gauss_legendre (n_nodes, node, gw);
  for (r = 0; r < f->q; r++) {
    const double x = scale * (r - margin + 0.5) + offset - 0.5;
    origin[r] = (int) floor (x - ha * scale - h) + 1;
    memset (pw, 0, sizeof (double) * n_p);
    project_taps (order, analysis, scale, x, origin[r], n_p, node, gw,
        n_nodes, pw);
    for (t = 0; t < f->n_taps; t++) {
      double acc = 0.0;
      for (d = -D; d <= D; d++) {
        const int k = t - D + d;
        if (k >= 0 && k < n_p)
          acc += pw[k] * fir[D + d];
      }
      f->weight[r * f->n_taps + t] = (float) acc;
    }
    origin[r] -= D;
  }
  free (fir);
  /* the extended line that the outputs read */
  f->ext_first = origin[0];
  last = origin[0];
  for (r = 0; r < f->q && r < n_out; r++) {
    const int m = (n_out - 1 - r) / f->q;
    f->ext_first = origin[r] < f->ext_first ? origin[r] : f->ext_first;
    last = origin[r] + f->p * m + f->n_taps - 1 > last ?
        origin[r] + f->p * m + f->n_taps - 1 : last;
  }
  for (r = 0; r < f->q; r++)
    f->first[r] = origin[r] - f->ext_first;
  f->ext_len = last - f->ext_first + 1;
  f->index = malloc (sizeof (int) * f->ext_len);
  if (!f->index)
    return 0;
  for (i = 0; i < f->ext_len; i++)
    f->index[i] = bspline_boundary_index (f->ext_first + i, axis->len,
        axis->pad, axis->boundary);
  /* the output grid's recursions: the prefilter's in q^p, lag q, then the
   * Gram filter's */
  f->n_recursions = 0;
  for (i = 0; i < np; i++) {
    f->pole[f->n_recursions] = (float) pow (bspline_pole (order, i), f->p);
    f->lag[f->n_recursions++] = f->q;
  }
  for (i = 0; i < bspline_n_poles (gram); i++) {
    const double g = bspline_pole (gram, i);
    f->pole[f->n_recursions] = (float) g;
    f->lag[f->n_recursions++] = 1;
    gain *= (1.0 - g) * (1.0 - g);
  }
  f->half = order / 2;
  for (i = -f->half; i <= f->half; i++)
    f->sample[i + f->half] = (float) (bspline_kernel_d (order, i) * gain);
  return fold_fir (f);
}

/* The fold of a reduction (see bspline_reduction_new), or NULL. */
static bspline_fold *
fold_new (const bspline_plan * project, const bspline_reduction * r,
    int analysis, double sx, double ox, double sy, double oy)
{
  const int boundary = project->params.boundary;
  bspline_fold *fold;

  /* orders 6-8 fold in float to 1.4e-4 of the range on a photograph
   * (tests/core/test-fold.c, order 8 at 3:1), past the float path's
   * 1e-4: they keep the two plans */
  if (project->use_double || project->params.order > BSPLINE_FOLD_MAX_ORDER
      || !r->reduce_x || !r->reduce_y || sx <= 0.0
      || sy <= 0.0
      /* its tables index the source line with ints: an offset far past
       * any frame (the fuzzer's 1.8e164) keeps the two plans */
      || !(fabs (ox) <= 16777216.0 && fabs (oy) <= 16777216.0)
      || (boundary != BSPLINE_BOUNDARY_REFLECT
          && boundary != BSPLINE_BOUNDARY_MIRROR
          && boundary != BSPLINE_BOUNDARY_WRAP))
    return NULL;
  fold = calloc (1, sizeof (*fold));
  if (fold && build_fold_axis (&project->axis_x, analysis, &fold->x,
          r->width, r->margin_x, sx, ox)
      && build_fold_axis (&project->axis_y, analysis, &fold->y, r->height,
          r->margin_y, sy, oy))
    return fold;
  bspline_fold_free (fold);
  return NULL;
}

void
bspline_fold_free (bspline_fold * fold)
{
  if (!fold)
    return;
  free (fold->x.index);
  free (fold->x.weight);
  free (fold->x.fir);
  free (fold->y.index);
  free (fold->y.weight);
  free (fold->y.fir);
  free (fold);
}

/* Output samples of margin on each side of a reduced axis: the Gram
 * prefilter, started at the margin's far end, has forgotten its start to
 * eps by the frame.  The start's error decays in each pole's recursion as
 * |z_i|^k, times at most the gain 1 / (1 - |z_i|)^2 of the recursions
 * after it, so the slowest pole z_0 sets the length: N_0 = log eps /
 * log |z_0| plus log (1 / (1 - |z_0|)^2) / log (1 / |z_0|) for the gain;
 * plus the taps of b^n. */
static int
gram_margin (int order, int degree, double eps)
{
  int margin = (order + 1) / 2 + 1;
  if (bspline_n_poles (degree) > 0) {
    const double z = fabs (bspline_pole (degree, 0));
    margin += (int) ceil (log (eps) / log (z))
        + (int) ceil (2.0 * log (1.0 - z) / log (z));
  }
  return margin;
}

int
bspline_reduction_axis (const bspline_params * params, double scale)
{
  return params->antialias == BSPLINE_ANTIALIAS_LEAST_SQUARES
      && params->method == BSPLINE_METHOD_BSPLINE && fabs (scale) > 1.0 + 1e-9;
}

/* Entries of the project table of an axis (0 where it is not reduced). */
static double
project_entries (int order, int analysis, double scale, int n_out, int margin)
{
  const double h = (order + 1) * 0.5, ha = (analysis + 1) * 0.5;
  return (2.0 * ha * fabs (scale) + 2.0 * h + 1.0) * (n_out + 2.0 * margin);
}

/* Whether a reduced axis's project table of `entries` is worth building
 * (see bspline_reduction_new). */
static int
table_affordable (int reduced, double entries, int widened, int n_out)
{
  return !reduced || (entries <= BSPLINE_MAX_TABLE_ENTRIES
      && (entries <= (1 << 18) || widened <= 4 * n_out));
}

bspline_status
bspline_reduction_new (bspline_plan * plan, double sx, double ox, double sy,
    double oy)
{
  const bspline_params *p = &plan->params;
  const int n = plan->params.order;
  /* the analysis degree: n, the orthogonal projection ([MBU01]'s oblique
   * ones take less; docs/notes/least-squares-reduction.md measures more) */
  const int na = n;
  const double eps = plan->use_double || n >= 9 ? 1e-14 : 1e-7;
  bspline_reduction *r;
  bspline_plan *project, *sample;
  bspline_params sp;
  bspline_status status;
  double inverse[9];

  r = calloc (1, sizeof (*r));
  if (!r)
    return BSPLINE_ERROR_NO_MEMORY;
  /* The Gram filters of orders 9-11 (degrees 19-23) amplify the coarse
   * Nyquist frequency by 1 / b^(2n+1)(1/2), up to 2.5e4, before b^n
   * brings it back: in float, noise reduced at order 10 came out 2.2e-4 of
   * the range from the double result, at order 11 0.24 (order 8 3.1e-5,
   * within the float path's bounds).  Those orders reduce in double. */
  sp = *p;
  if (n >= 9)
    sp.precision = BSPLINE_PRECISION_DOUBLE;
  p = &sp;
  plan->reduce = r;
  r->reduce_x = bspline_reduction_axis (p, sx);
  r->reduce_y = bspline_reduction_axis (p, sy);
  r->margin_x = r->reduce_x ? gram_margin (n, n + na + 1, eps) : 0;
  r->margin_y = r->reduce_y ? gram_margin (n, n + na + 1, eps) : 0;
  r->width = plan->dst_width + 2 * r->margin_x;
  r->height = plan->dst_height + 2 * r->margin_y;
  /* Too large, or a tiny output of a huge shrink, whose margin would
   * multiply the table past 2^18 entries (a 4000-sample line into 1
   * sample: 67 outputs of 16000 taps; a 2240-sample column into 2 at
   * order 6: about 1M entries, 0.55 s natively; each passed the fuzzer's
   * 60 s under ASan): the widened kernel. */
  if (!table_affordable (r->reduce_x, project_entries (n, na, sx,
              plan->dst_width, r->margin_x), r->width, plan->dst_width)
      || !table_affordable (r->reduce_y, project_entries (n, na, sy,
              plan->dst_height, r->margin_y), r->height, plan->dst_height))
    return BSPLINE_ERROR_NO_MEMORY;

  /* project: source -> y on the widened output grid */
  inverse[0] = sx;
  inverse[1] = 0.0;
  inverse[2] = ox - sx * r->margin_x;
  inverse[3] = 0.0;
  inverse[4] = sy;
  inverse[5] = oy - sy * r->margin_y;
  inverse[6] = inverse[7] = 0.0;
  inverse[8] = 1.0;
  status = bspline_plan_alloc (p, inverse, plan->src_width,
      plan->src_height, r->width, r->height, plan->channels, n, &project);
  if (status != BSPLINE_OK)
    return status;
  r->project = project;
  project->separable = 1;
  status = r->reduce_x ? build_project_table (&project->axis_x, na, &project->x,
      r->width, r->margin_x, sx, ox) : bspline_build_axis_table (project,
      &project->axis_x, &project->x, r->width, sx, ox);
  if (status == BSPLINE_OK)
    status = r->reduce_y ? build_project_table (&project->axis_y, na,
        &project->y, r->height, r->margin_y, sy, oy) :
        bspline_build_axis_table (project, &project->axis_y, &project->y,
        r->height, sy, oy);
  if (status != BSPLINE_OK)
    return status;

  /* sample: the Gram prefilter and b^n, intermediate -> output (in the
   * project plan's precision: in double, this plan took the H100 from
   * 568 to 1856 us for 4K -> 1080p, and gained the CPU float path only
   * 2.5e-6 -> 1.7e-6 of the range at order 4, where the project step's
   * rounding dominates) */
  sp.boundary = BSPLINE_BOUNDARY_MIRROR;
  sp.antialias = BSPLINE_ANTIALIAS_NONE;
  bspline_matrix_identity (inverse);
  inverse[2] = r->margin_x;
  inverse[5] = r->margin_y;
  status = bspline_plan_alloc (&sp, inverse, r->width, r->height,
      plan->dst_width, plan->dst_height, plan->channels, n + na + 1, &sample);
  if (status != BSPLINE_OK)
    return status;
  r->sample = sample;
  sample->separable = 1;
  /* The gain of the Gram prefilter, gamma^(2n+1) = (2n+1)! per axis,
   * goes into the tables of b^n rather than into the values loaded: the
   * product of both axes passes float's range from degree 21 on
   * (21!^2 = 2.6e39), while the filtered values (255 / 23! = 1e-20 at
   * most) and each weight (23! = 2.6e22) stay well inside it. */
  bspline_plan_filter_axes (sample, r->reduce_x, r->reduce_y);
  sample->gain2 = 1.0;
  status = build_sample_table (r->reduce_x ? n : 0, r->width,
      r->reduce_x ? sample->gain : 1.0, &sample->x, plan->dst_width,
      r->margin_x);
  if (status == BSPLINE_OK)
    status = build_sample_table (r->reduce_y ? n : 0, r->height,
        r->reduce_y ? sample->gain : 1.0, &sample->y, plan->dst_height,
        r->margin_y);
  if (status == BSPLINE_OK)
    r->fold = fold_new (project, r, na, sx, ox, sy, oy);
  return status;
}

size_t
bspline_plane_image (int use_double, int width, int height, int channels,
    bspline_image * img)
{
  const size_t real = use_double ? sizeof (double) : sizeof (float);
  memset (img, 0, sizeof (*img));
  img->width = width;
  img->height = height;
  img->channels = channels;
  img->type = use_double ? BSPLINE_SAMPLE_F64 : BSPLINE_SAMPLE_F32;
  img->stride = (ptrdiff_t) (real * channels * width);
  return (size_t) img->stride * height;
}

void
bspline_reduction_free (bspline_reduction * r)
{
  if (!r)
    return;
  bspline_plan_free (r->project);
  bspline_plan_free (r->sample);
  bspline_fold_free (r->fold);
  free (r);
}

/* ---- warps ----
 *
 * A warp (rotation with zoom < 1, an affine or perspective map) shrinks
 * by its Jacobian: the footprint of an output pixel spans
 * bspline_footprint's |row x| input pixels along x and |row y| along y.
 * Under least squares the warp first samples the source on a grid finer
 * than the output's by the least footprint over the frame on each axis
 * (fx, fy >= 1): round (fx W') x round (fy H') samples over the output
 * frame (W' x H'), about one per input pixel, so that this warp shrinks by
 * at most what is left of the footprint (nothing for an affine map) and
 * needs no antialiasing there; the projection above then reduces that
 * grid to the output, along the output's own axes: the least-squares
 * reduction onto the spline of the output grid, however the map rotates
 * or shears it.  A perspective map's nearest part is reduced so, and its
 * farther parts, where the footprint is larger, have their kernel widened
 * by the rest in the first warp (and a map with its horizon in the frame
 * widens only: see below).  The finer grid is kept within
 * MAX_OVERSAMPLE times the larger frame's samples (a zoom of 0.1 into a
 * frame of the source's size would ask for 100 times the frame, most of
 * it fill): past that the footprint is shared between the two, and past
 * MAX_OVERSAMPLE times that (a zoom below 1/4 into a frame of the
 * source's size) the kernel widens instead. */

/* Points per side of the grid on which the footprint is sampled. */
#define FOOTPRINT_GRID 17
#define MAX_OVERSAMPLE 4.0

static void
least_footprint (const bspline_plan * plan, double *fx, double *fy)
{
  const double *m = plan->inverse;
  int i, j;
  *fx = *fy = INFINITY;
  for (i = 0; i < FOOTPRINT_GRID; i++)
    for (j = 0; j < FOOTPRINT_GRID; j++) {
      const double u = plan->dst_width * (j + 0.5) / FOOTPRINT_GRID;
      const double v = plan->dst_height * (i + 0.5) / FOOTPRINT_GRID;
      double x, y, sx, sy;
      if (!bspline_map_point (m, u, v, &x, &y))
        continue;
      bspline_footprint (m, u, v, x, y, INFINITY, &sx, &sy);
      *fx = sx < *fx ? sx : *fx;
      *fy = sy < *fy ? sy : *fy;
    }
}

bspline_status
bspline_warp_reduction_new (bspline_plan * plan, char *msg, size_t msg_len)
{
  const bspline_params *p = &plan->params;
  const double frame = fmax ((double) plan->src_width * plan->src_height,
      (double) plan->dst_width * plan->dst_height);
  bspline_params wp;
  bspline_status status;
  double fx, fy, excess, d[9], m[9];
  int w, h, i;

  if (p->antialias != BSPLINE_ANTIALIAS_LEAST_SQUARES
      || p->method != BSPLINE_METHOD_BSPLINE)
    return BSPLINE_OK;
  /* A horizon in the frame (W <= 0 at a corner: W is affine in the pixel
   * coordinates): its pixels must be the fill exactly (bspline.h), which a
   * reduction after the warp would blend across; the kernel widens
   * instead. */
  for (i = 0; i < 4; i++) {
    const double *q = plan->inverse;
    const double u = i & 1 ? plan->dst_width : 0.0;
    const double v = i & 2 ? plan->dst_height : 0.0;
    if (!(q[6] * u + q[7] * v + q[8] > 0.0))
      return BSPLINE_OK;
  }
  least_footprint (plan, &fx, &fy);
  if (!isfinite (fx) || !isfinite (fy))
    return BSPLINE_OK;          /* nothing in front of the horizon */
  fx = fx > 1.0 ? fx : 1.0;
  fy = fy > 1.0 ? fy : 1.0;
  excess = fx * fy * plan->dst_width * plan->dst_height
      / (MAX_OVERSAMPLE * frame);
  /* past twice the cap along each axis the first warp would widen its
   * kernel over MAX_OVERSAMPLE times the output's samples: the widened
   * kernel alone costs less (a shrink by 1e12 under valgrind took two
   * minutes) */
  if (excess > MAX_OVERSAMPLE)
    return BSPLINE_OK;
  if (excess > 1.0) {
    fx = fmax (1.0, fx / sqrt (excess));
    fy = fmax (1.0, fy / sqrt (excess));
  }
  w = (int) floor (plan->dst_width * fx + 0.5);
  h = (int) floor (plan->dst_height * fy + 0.5);
  w = w > plan->dst_width ? w : plan->dst_width;
  h = h > plan->dst_height ? h : plan->dst_height;
  if (w == plan->dst_width && h == plan->dst_height)
    return BSPLINE_OK;
  /* fine grid -> output frame -> source */
  bspline_matrix_identity (d);
  d[0] = (double) plan->dst_width / w;
  d[4] = (double) plan->dst_height / h;
  bspline_matrix_multiply (plan->inverse, d, m);
  wp = *p;
  wp.antialias = BSPLINE_ANTIALIAS_WIDEN;
  status = bspline_plan_new (&wp, m, plan->src_width, plan->src_height, w, h,
      plan->channels, &plan->warp, msg, msg_len);
  if (status != BSPLINE_OK)
    return status;
  bspline_matrix_identity (d);
  d[0] = (double) w / plan->dst_width;
  d[4] = (double) h / plan->dst_height;
  return bspline_plan_new (p, d, w, h, plan->dst_width, plan->dst_height,
      plan->channels, &plan->shrink, msg, msg_len);
}
