/* prefilter-impl.h: the prefilter for one arithmetic type.
 *
 * Included by prefilter.c once per type with REAL (float or double) and
 * SUFFIX(name) defined, so the float and double engines share one text. */

/* Applies the exponential filter h^(z) in place to `lanes` lines stored
 * side by side: sample k of lane l is p[k * step + l]
 * ([BD19] Algorithm 1; initialisations in bspline-math.h). */
static inline void
SUFFIX (filter_lines) (REAL * p, ptrdiff_t step, int len, int lanes,
    double pole, int truncation, int boundary, int padded)
{
  const REAL z = (REAL) pole;
  REAL last[PREFILTER_MAX_LANES];
  REAL *end = p + (ptrdiff_t) (len - 1) * step;
  ptrdiff_t k;
  int l;

  for (l = 0; l < lanes; l++) {
    last[l] = end[l];
    p[l] = SUFFIX (bspline_causal_init) (p + l, step, len, z, truncation,
        boundary, padded);
  }
  /* Causal recursion s_k = s_k + z s_{k-1} (eq. 15). */
  for (k = 1; k < len; k++) {
    REAL *row = p + k * step;
    const REAL *prev = row - step;
    for (l = 0; l < lanes; l++)
      row[l] += z * prev[l];
  }
  for (l = 0; l < lanes; l++)
    last[l] = SUFFIX (bspline_anticausal_init) (p + l, step, len, z,
        truncation, boundary, padded, last[l]);
  for (l = 0; l < lanes; l++)
    end[l] = last[l];
  /* Anticausal recursion c_k = z (c_{k+1} - s_k) (eq. 18). */
  for (k = len - 2; k >= 0; k--) {
    REAL *row = p + k * step;
    const REAL *next = row + step;
    for (l = 0; l < lanes; l++)
      row[l] = z * (next[l] - row[l]);
  }
}

/* All poles of the plan over `lanes` lines. */
static inline void
SUFFIX (prefilter_lines) (const bspline_plan * plan, REAL * p,
    ptrdiff_t step, int len, int lanes)
{
  int i;
  for (i = 0; i < plan->setup.n_poles; i++)
    SUFFIX (filter_lines) (p, step, len, lanes, plan->setup.poles[i],
        plan->setup.truncation[i], plan->setup.boundary, plan->pad > 0);
}

/* n samples of a source row, in code values, times gain. */
static void
SUFFIX (read_row) (const bspline_image * src, const void *row, REAL * out,
    int n, REAL gain)
{
  int i;
  switch (src->type) {
    case BSPLINE_SAMPLE_U8:
      for (i = 0; i < n; i++)
        out[i] = (REAL) ((const uint8_t *) row)[i] * gain;
      break;
    case BSPLINE_SAMPLE_U16:{
      const int shift = src->shift;
      for (i = 0; i < n; i++)
        out[i] = (REAL) (((const uint16_t *) row)[i] >> shift) * gain;
      break;
    }
    case BSPLINE_SAMPLE_F32:
      for (i = 0; i < n; i++)
        out[i] = (REAL) ((const float *) row)[i] * gain;
      break;
    case BSPLINE_SAMPLE_F64:
      for (i = 0; i < n; i++)
        out[i] = (REAL) ((const double *) row)[i] * gain;
      break;
  }
}

/* Rows first ([BD19] eq. 27-28: the 2-D prefilter is separable): convert
 * source rows first .. last - 1 into the coefficient plane, times the
 * gains of both axes, extend them into the padding and filter along x. */
static void
SUFFIX (prefilter_rows) (const bspline_plan * plan,
    const bspline_image * src, const bspline_coefficients * coef, int first,
    int last)
{
  const int C = coef->channels, pad = coef->pad, W = coef->width;
  const REAL gain2 = (REAL) (plan->gain * plan->gain);
  int r, i, c;

  for (r = first; r < last; r++) {
    REAL *dst = (REAL *) coef->data + (ptrdiff_t) (r + pad) * coef->row_len;
    const uint8_t *srow = (const uint8_t *) src->data + r * src->stride;
    REAL *body = dst + (ptrdiff_t) pad * C;
    SUFFIX (read_row) (src, srow, body, W * C, gain2);
    for (i = 0; i < pad; i++)
      for (c = 0; c < C; c++) {
        int constant = plan->params.boundary == BSPLINE_BOUNDARY_CONSTANT;
        REAL fill = (REAL) plan->params.fill[c] * gain2;
        dst[i * C + c] = constant ? fill : body[c];
        body[(W + i) * C + c] = constant ? fill : body[(W - 1) * C + c];
      }
    if (!plan->prefilter)
      continue;
    /* constant lane counts, so that each call unrolls its channel loop */
    switch (C) {
      case 1:
        SUFFIX (prefilter_lines) (plan, dst, 1, W + 2 * pad, 1);
        break;
      case 2:
        SUFFIX (prefilter_lines) (plan, dst, 2, W + 2 * pad, 2);
        break;
      case 3:
        SUFFIX (prefilter_lines) (plan, dst, 3, W + 2 * pad, 3);
        break;
      default:
        SUFFIX (prefilter_lines) (plan, dst, 4, W + 2 * pad, 4);
        break;
    }
  }
}

/* Then columns, a strip of lanes values wide starting at value v0 of
 * every row: fill the padding rows (rows of fill, or copies of the edge
 * rows, both already filtered along x) and filter along y. */
static void
SUFFIX (prefilter_columns) (const bspline_plan * plan,
    const bspline_coefficients * coef, ptrdiff_t v0, int lanes)
{
  const int C = coef->channels, pad = coef->pad, H = coef->height;
  REAL *base = (REAL *) coef->data + v0;
  int r, l;

  for (r = 0; r < pad; r++) {
    REAL *top = base + (ptrdiff_t) r * coef->row_len;
    REAL *bottom = base + (ptrdiff_t) (pad + H + r) * coef->row_len;
    const REAL *first = base + (ptrdiff_t) pad * coef->row_len;
    const REAL *lastrow = base + (ptrdiff_t) (pad + H - 1) * coef->row_len;
    for (l = 0; l < lanes; l++) {
      if (plan->params.boundary == BSPLINE_BOUNDARY_CONSTANT) {
        /* a constant row v filtered along x is v times the gain left for
         * the y axis */
        REAL fill = (REAL) (plan->params.fill[(v0 + l) % C] * plan->gain);
        top[l] = fill;
        bottom[l] = fill;
      } else {
        top[l] = first[l];
        bottom[l] = lastrow[l];
      }
    }
  }
  if (plan->prefilter)
    SUFFIX (prefilter_lines) (plan, base, coef->row_len, H + 2 * pad, lanes);
}
