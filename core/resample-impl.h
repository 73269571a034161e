/* resample-impl.h: the indirect B-spline transform (evaluation) for one
 * arithmetic type.  Included by resample.c with REAL and SUFFIX(name). */

/* Writes n values of acc into row `row` of dst: integers are rounded to
 * nearest and clamped to the code range. */
static void
SUFFIX (store_row) (const bspline_image * dst, int row, const REAL * acc,
    int n)
{
  uint8_t *out = (uint8_t *) dst->data + (ptrdiff_t) row * dst->stride;
  int i;
  switch (dst->type) {
    /* clamp first (NaN becomes 0), then round half up: branch-free so
     * that the compiler vectorises the loops */
    case BSPLINE_SAMPLE_U8:
      for (i = 0; i < n; i++) {
        REAL v = acc[i];
        v = v > (REAL) 0 ? v : (REAL) 0;
        v = v < (REAL) 255 ? v : (REAL) 255;
        out[i] = (uint8_t) (int32_t) (v + (REAL) 0.5);
      }
      break;
    case BSPLINE_SAMPLE_U16:{
      const REAL top = (REAL) ((1 << dst->bits) - 1);
      const int shift = dst->shift;
      uint16_t *o = (uint16_t *) out;
      for (i = 0; i < n; i++) {
        REAL v = acc[i];
        v = v > (REAL) 0 ? v : (REAL) 0;
        v = v < top ? v : top;
        o[i] = (uint16_t) ((int32_t) (v + (REAL) 0.5) << shift);
      }
      break;
    }
    case BSPLINE_SAMPLE_F32:
      for (i = 0; i < n; i++)
        ((float *) out)[i] = (float) acc[i];
      break;
    case BSPLINE_SAMPLE_F64:
      for (i = 0; i < n; i++)
        ((double *) out)[i] = (double) acc[i];
      break;
  }
}

/* One coefficient row resampled along x: C is a constant at each call
 * site below, so the channel loop unrolls into vector code. */
static inline void
SUFFIX (resample_row) (const REAL * in, REAL * out, const int *index,
    const REAL * weights, int n_out, int n_taps, const int C)
{
  int j, k, c;
  for (j = 0; j < n_out; j++) {
    const int *ix = index + (size_t) j * n_taps;
    const REAL *w = weights + (size_t) j * n_taps;
    REAL acc[BSPLINE_MAX_CHANNELS] = { 0 };
    for (k = 0; k < n_taps; k++) {
      const REAL *s = in + (ptrdiff_t) ix[k] * C;
      for (c = 0; c < C; c++)
        acc[c] += w[k] * s[c];
    }
    for (c = 0; c < C; c++)
      out[j * C + c] = acc[c];
  }
}

/* Separable path, pass 1: every coefficient row that pass 2 reads is
 * resampled along x into tmp (rows of dst_width * C values). */
static void
SUFFIX (separable_rows) (const bspline_plan * plan,
    const bspline_coefficients * coef, REAL * tmp, const unsigned char *used,
    int first, int last)
{
  const bspline_axis_table *t = &plan->x;
  const REAL *weights = (const REAL *) SUFFIX (table_weights) (t);
  int r;

  for (r = first; r < last; r++) {
    const REAL *in = (const REAL *) coef->data + (ptrdiff_t) r * coef->row_len;
    REAL *out = tmp + (ptrdiff_t) r * t->n_out * coef->channels;
    if (!used[r])
      continue;
    switch (coef->channels) {
      case 1:
        SUFFIX (resample_row) (in, out, t->index, weights, t->n_out,
            t->n_taps, 1);
        break;
      case 2:
        SUFFIX (resample_row) (in, out, t->index, weights, t->n_out,
            t->n_taps, 2);
        break;
      case 3:
        SUFFIX (resample_row) (in, out, t->index, weights, t->n_out,
            t->n_taps, 3);
        break;
      default:
        SUFFIX (resample_row) (in, out, t->index, weights, t->n_out,
            t->n_taps, 4);
        break;
    }
  }
}

/* Separable path, pass 2: output rows first .. last - 1 along y. */
static void
SUFFIX (separable_columns) (const bspline_plan * plan, const REAL * tmp,
    REAL * acc, const bspline_image * dst, int first, int last)
{
  const bspline_axis_table *t = &plan->y;
  const int n = plan->x.n_out * plan->channels, n_taps = t->n_taps;
  const REAL *weights = (const REAL *) SUFFIX (table_weights) (t);
  int i, k, v;

  for (i = first; i < last; i++) {
    const int *index = t->index + (size_t) i * n_taps;
    const REAL *w = weights + (size_t) i * n_taps;
    for (v = 0; v < n; v++)
      acc[v] = (REAL) 0;
    for (k = 0; k < n_taps; k++) {
      const REAL *s = tmp + (ptrdiff_t) index[k] * n;
      const REAL wk = w[k];
      for (v = 0; v < n; v++)
        acc[v] += wk * s[v];
    }
    SUFFIX (store_row) (dst, i, acc, n);
  }
}

/* The value at sample coordinates (x, y), every channel, into out[]. */
static void
SUFFIX (eval_point) (const bspline_plan * plan,
    const bspline_coefficients * coef, double x, double y, double widen_x,
    double widen_y, REAL * out)
{
  int ix[BSPLINE_MAX_POINT_TAPS], iy[BSPLINE_MAX_POINT_TAPS];
  REAL wx[BSPLINE_MAX_POINT_TAPS], wy[BSPLINE_MAX_POINT_TAPS];
  const int C = coef->channels;
  int nx, ny, a, b, c;

  nx = SUFFIX (bspline_axis_taps) (&plan->axis_x, x, widen_x, ix, wx);
  ny = SUFFIX (bspline_axis_taps) (&plan->axis_y, y, widen_y, iy, wy);
  for (c = 0; c < C; c++)
    out[c] = (REAL) 0;
  for (b = 0; b < ny; b++) {
    const REAL *row = (const REAL *) coef->data
        + (ptrdiff_t) iy[b] * coef->row_len;
    REAL line[BSPLINE_MAX_CHANNELS] = { 0 };
    for (a = 0; a < nx; a++) {
      const REAL *s = row + (ptrdiff_t) ix[a] * C;
      for (c = 0; c < C; c++)
        line[c] += wx[a] * s[c];
    }
    for (c = 0; c < C; c++)
      out[c] += wy[b] * line[c];
  }
}

/* General path: output rows first .. last - 1, each pixel centre mapped
 * through the inverse homography. */
static void
SUFFIX (warp_rows) (const bspline_plan * plan,
    const bspline_coefficients * coef, REAL * acc, const bspline_image * dst,
    int first, int last)
{
  const double *m = plan->inverse;
  const int C = plan->channels;
  int i, j, c;

  for (i = first; i < last; i++) {
    double v = i + 0.5;
    for (j = 0; j < plan->dst_width; j++) {
      double u = j + 0.5, x, y, widen_x = 1.0, widen_y = 1.0;
      REAL *px = acc + (ptrdiff_t) j * C;
      if (!bspline_map_point (m, u, v, &x, &y)) {
        for (c = 0; c < C; c++)
          px[c] = (REAL) plan->params.fill[c];
        continue;
      }
      if (plan->widen)
        bspline_footprint (m, u, v, x, y, BSPLINE_MAX_WARP_WIDENING,
            &widen_x, &widen_y);
      SUFFIX (eval_point) (plan, coef, x - 0.5, y - 0.5, widen_x, widen_y,
          px);
    }
    SUFFIX (store_row) (dst, i, acc, plan->dst_width * C);
  }
}

static void
SUFFIX (sample_points) (const bspline_plan * plan,
    const bspline_coefficients * coef, const double *xy, size_t n_points,
    double *out)
{
  const int C = coef->channels;
  size_t i;
  int c;
  for (i = 0; i < n_points; i++) {
    REAL v[BSPLINE_MAX_CHANNELS];
    double x = xy[2 * i] - 0.5, y = xy[2 * i + 1] - 0.5;
    if (!isfinite (x) || !isfinite (y)) {
      for (c = 0; c < C; c++)
        out[i * C + c] = plan->params.fill[c];
      continue;
    }
    SUFFIX (eval_point) (plan, coef, x, y, 1.0, 1.0, v);
    for (c = 0; c < C; c++)
      out[i * C + c] = (double) v[c];
  }
}
