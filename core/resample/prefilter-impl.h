/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* prefilter-impl.h: the prefilter for one arithmetic type.
 *
 * Included by prefilter.c once per type with REAL (float or double) and
 * SUFFIX(name) defined, so the float and double engines share one text. */

/* The first step of the exponential filter h^(z) on `lanes` lines stored
 * side by side (sample k of lane l is p[k * step + l]): last[l] keeps the
 * line's last sample, and sample 0 becomes the causal initialisation
 * ([BD19] Algorithm 1; initialisations in bspline-math.h). */
static BSPLINE_INLINE void
SUFFIX (causal_start) (REAL * p, ptrdiff_t step, int len, int lanes,
    REAL z, int truncation, int boundary, int padded, REAL * last)
{
  const REAL *end = p + (ptrdiff_t) (len - 1) * step;
  int l;
  for (l = 0; l < lanes; l++) {
    last[l] = end[l];
    p[l] = SUFFIX (bspline_causal_init) (p + l, step, len, z, truncation,
        boundary, padded);
  }
}

/* Causal recursion s_k = s_k + z s_{k-1} (eq. 15) for k = k0 .. k1 - 1
 * (k0 >= 1). */
static BSPLINE_INLINE void
SUFFIX (causal_run) (REAL * p, ptrdiff_t step, int k0, int k1, int lanes,
    REAL z)
{
  /* the running value of each lane, apart from p, so that the compiler
   * sees independent lanes and vectorises them */
  REAL state[PREFILTER_MAX_LANES];
  ptrdiff_t k;
  int l;
  if (k0 >= k1)
    return;
  for (l = 0; l < lanes; l++)
    state[l] = p[(ptrdiff_t) (k0 - 1) * step + l];
  for (k = k0; k < k1; k++) {
    REAL *row = p + k * step;
    for (l = 0; l < lanes; l++) {
      state[l] = MADD (z, state[l], row[l]);
      row[l] = state[l];
    }
  }
}

/* The anticausal initialisation into sample len - 1 (last: see
 * causal_start), then, unless defer (the caller runs it:
 * anticausal_out_all), the anticausal recursion c_k = z (c_{k+1} - s_k)
 * (eq. 18). */
static BSPLINE_INLINE void
SUFFIX (anticausal_pass) (REAL * p, ptrdiff_t step, int len, int lanes,
    REAL z, int truncation, int boundary, int padded, const REAL * last,
    int defer)
{
  REAL state[PREFILTER_MAX_LANES];
  REAL *end = p + (ptrdiff_t) (len - 1) * step;
  ptrdiff_t k;
  int l;
  for (l = 0; l < lanes; l++) {
    state[l] = SUFFIX (bspline_anticausal_init) (p + l, step, len, z,
        truncation, boundary, padded, last[l]);
    end[l] = state[l];
  }
  if (defer)
    return;
  for (k = len - 2; k >= 0; k--) {
    REAL *row = p + k * step;
    for (l = 0; l < lanes; l++) {
      state[l] = ANTICAUSAL (z, state[l], row[l]);
      row[l] = state[l];
    }
  }
}

/* Applies the exponential filter h^(z) in place to `lanes` lines stored
 * side by side: sample k of lane l is p[k * step + l]
 * ([BD19] Algorithm 1; initialisations in bspline-math.h). */
static BSPLINE_INLINE void
SUFFIX (filter_lines) (REAL * p, ptrdiff_t step, int len, int lanes,
    double pole, int truncation, int boundary, int padded)
{
  const REAL z = (REAL) pole;
  REAL last[PREFILTER_MAX_LANES];

  SUFFIX (causal_start) (p, step, len, lanes, z, truncation, boundary,
      padded, last);
  SUFFIX (causal_run) (p, step, 1, len, lanes, z);
  SUFFIX (anticausal_pass) (p, step, len, lanes, z, truncation, boundary,
      padded, last, 0);
}

/* All poles of the plan over `lanes` lines. */
static BSPLINE_INLINE void
SUFFIX (prefilter_lines) (const bspline_plan * plan, REAL * p,
    ptrdiff_t step, int len, int lanes)
{
  int i;
  for (i = 0; i < plan->setup.n_poles; i++)
    SUFFIX (filter_lines) (p, step, len, lanes, plan->setup.poles[i],
        plan->setup.truncation[i], plan->setup.boundary, plan->pad > 0);
}

/* n pixels of C values from row into lane 0 .. C - 1 of buf
 * (interleaved, see resample.h). */
static BSPLINE_INLINE void
SUFFIX (interleave) (REAL * buf, const REAL * row, int n, const int C)
{
  int i, c;
  for (i = 0; i < n; i++)
    for (c = 0; c < C; c++)
      buf[(ptrdiff_t) i * BSPLINE_GROUP_LANES + c] = row[i * C + c];
}

/* n samples of a source row, in code values, times gain. */
static BSPLINE_INLINE void
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

/* Line `line` of the padded storage of a column, converted and extended
 * along x, into lane `lane` of buf (interleaved, see resample.h); conv is
 * scratch for one source row.  Constant fill lines are left at zero: they
 * are not prefiltered along x (see fill_lines). */
static BSPLINE_INLINE void
SUFFIX (load_line) (const bspline_plan * plan, const bspline_image * src,
    int line, REAL * buf, int lane, REAL * conv)
{
  const int C = plan->channels, pad = plan->pad, W = plan->src_width;
  const int y = bspline_source_row (plan, line);
  const int constant = plan->params.boundary == BSPLINE_BOUNDARY_CONSTANT;
  const REAL gain2 = (REAL) plan->gain2;
  REAL *body = buf + (ptrdiff_t) pad * BSPLINE_GROUP_LANES + lane;
  int i, c;

  if (y < 0) {
    for (i = 0; i < W + 2 * pad; i++)
      for (c = 0; c < C; c++)
        buf[(ptrdiff_t) i * BSPLINE_GROUP_LANES + lane + c] = (REAL) 0;
    return;
  }
  SUFFIX (read_row) (src, (const uint8_t *) src->data + y * src->stride,
      conv, W * C, gain2);
  switch (C) {
    case 1:
      SUFFIX (interleave) (body, conv, W, 1);
      break;
    case 2:
      SUFFIX (interleave) (body, conv, W, 2);
      break;
    case 3:
      SUFFIX (interleave) (body, conv, W, 3);
      break;
    default:
      SUFFIX (interleave) (body, conv, W, 4);
      break;
  }
  for (i = 0; i < pad; i++)
    for (c = 0; c < C; c++) {
      REAL fill = (REAL) plan->params.fill[c] * gain2;
      buf[(ptrdiff_t) i * BSPLINE_GROUP_LANES + lane + c] =
          constant ? fill : conv[c];
      body[(ptrdiff_t) (W + i) * BSPLINE_GROUP_LANES + c] =
          constant ? fill : conv[(W - 1) * C + c];
    }
}

/* The source rows of a group that the kernels of load_group take (eight
 * four-channel U8 rows, all from the source), or 0. */
static int
SUFFIX (group_rows) (const bspline_plan * plan, const bspline_image * src,
    int first, int count, const uint8_t ** row)
{
  int q;
  if (plan->channels != 4 || count != 8 || src->type != BSPLINE_SAMPLE_U8)
    return 0;
  for (q = 0; q < 8; q++) {
    const int y = bspline_source_row (plan, first + q);
    if (y < 0)
      return 0;
    row[q] = (const uint8_t *) src->data + y * src->stride;
  }
  return 1;
}

/* The padding pixels of such a group (see load_line). */
static void
SUFFIX (load_group_pads) (const bspline_plan * plan, REAL * buf,
    const uint8_t * const *row, REAL gain2)
{
  const int C = plan->channels, pad = plan->pad, W = plan->src_width;
  const int constant = plan->params.boundary == BSPLINE_BOUNDARY_CONSTANT;
  REAL *body = buf + (ptrdiff_t) pad * BSPLINE_GROUP_LANES;
  int q, i, c;
  for (q = 0; q < 8; q++)
    for (i = 0; i < pad; i++)
      for (c = 0; c < C; c++) {
        REAL fill = (REAL) plan->params.fill[c] * gain2;
        buf[(ptrdiff_t) i * BSPLINE_GROUP_LANES + q * C + c] =
            constant ? fill : (REAL) row[q][c] * gain2;
        body[(ptrdiff_t) (W + i) * BSPLINE_GROUP_LANES + q * C + c] =
            constant ? fill : (REAL) row[q][(W - 1) * C + c] * gain2;
      }
}

/* A whole group of lines, all from source rows, into buf where the type
 * and the layout have a kernel (prefilter.c): the same values as
 * load_line on each.  Returns 0 where it does not apply. */
static int
SUFFIX (load_group) (const bspline_plan * plan, const bspline_image * src,
    int first, int count, REAL * buf)
{
  const REAL gain2 = (REAL) plan->gain2;
  const uint8_t *row[8];

  if (!SUFFIX (group_rows) (plan, src, first, count, row)
      || !SUFFIX (load_group_rgba8) (plan, src, buf + (ptrdiff_t) plan->pad
          * BSPLINE_GROUP_LANES, row, gain2, 0, plan->src_width))
    return 0;
  SUFFIX (load_group_pads) (plan, buf, row, gain2);
  return 1;
}

/* filter_group's loading and first causal pass along x in one, for a
 * group that load_group takes, one pole, where prefilter.c has a kernel
 * (load_causal): the same values as load_group then filter_lines up to
 * the anticausal initialisation.  The causal initialisation reads the
 * padding's first pixel or at most the first truncation + 1 samples of a
 * line (bspline_causal_init), which are loaded first; wrap, whose
 * initialisation reads the end of the line too, is left to filter_group
 * (the streaming path, the only caller, does not take it). */
static int
SUFFIX (load_causal_group) (const bspline_plan * plan,
    const bspline_image * src, int first, int count, REAL * buf)
{
  const int pad = plan->pad, W = plan->src_width, n = W + 2 * pad;
  const int truncation = plan->setup.truncation[0];
  const int head = W < truncation + 2 ? W : truncation + 2;
  const int boundary = plan->setup.boundary;
  const REAL gain2 = (REAL) plan->gain2;
  const REAL z = (REAL) plan->setup.poles[0];
  REAL *body = buf + (ptrdiff_t) pad * BSPLINE_GROUP_LANES;
  REAL last[BSPLINE_GROUP_LANES];
  const uint8_t *row[8];

  if (!plan->prefilter || plan->setup.n_poles != 1
      || boundary == BSPLINE_BOUNDARY_WRAP
      || !SUFFIX (load_causal_usable) (plan)
      || !SUFFIX (group_rows) (plan, src, first, count, row))
    return 0;
  SUFFIX (load_group_pads) (plan, buf, row, gain2);
  SUFFIX (load_group_rgba8) (plan, src, body, row, gain2, 0, head);
  SUFFIX (causal_start) (buf, BSPLINE_GROUP_LANES, n, BSPLINE_GROUP_LANES,
      z, truncation, boundary, pad > 0, last);
  SUFFIX (causal_run) (buf, BSPLINE_GROUP_LANES, 1, pad, BSPLINE_GROUP_LANES,
      z);
  SUFFIX (load_causal) (body, row, gain2, z, pad > 0 ? 0 : 1, W);
  SUFFIX (causal_run) (buf, BSPLINE_GROUP_LANES, pad + W, n,
      BSPLINE_GROUP_LANES, z);
  SUFFIX (anticausal_pass) (buf, BSPLINE_GROUP_LANES, n, BSPLINE_GROUP_LANES,
      z, truncation, boundary, pad > 0, last, 1);
  return 1;
}

/* Lines first .. first + count - 1 (count <= bspline_group_rows) of the
 * padded storage into buf, interleaved, times the gains of both axes and
 * prefiltered along x ([BD19] eq. 27-28: the 2-D prefilter is separable).
 * Lanes past the group hold zeros.  A line of the constant extension along
 * y is the fill value times the gain left for the y axis: a constant line
 * v filtered along x is v times 1 / gain.  With defer, where
 * load_causal_group takes the group, the anticausal recursion along x is
 * left to the caller (anticausal_out_all); returns whether it was. */
BSPLINE_VECTOR_CLONES static int
SUFFIX (filter_group) (const bspline_plan * plan, const bspline_image * src,
    int first, int count, REAL * buf, REAL * conv, int defer)
{
  const int C = plan->channels;
  const ptrdiff_t n = plan->src_width + 2 * plan->pad;
  ptrdiff_t i;
  int q, l;

  if (defer && SUFFIX (load_causal_group) (plan, src, first, count, buf))
    return 1;
  if (!SUFFIX (load_group) (plan, src, first, count, buf))
    for (q = 0; q < count; q++)
      SUFFIX (load_line) (plan, src, first + q, buf, q * C, conv);
  if (count * C < BSPLINE_GROUP_LANES)
    for (i = 0; i < n; i++)
      for (l = count * C; l < BSPLINE_GROUP_LANES; l++)
        buf[i * BSPLINE_GROUP_LANES + l] = (REAL) 0;
  if (plan->prefilter && plan->filter_x)
    SUFFIX (prefilter_lines) (plan, buf, BSPLINE_GROUP_LANES, (int) n,
        BSPLINE_GROUP_LANES);
  for (q = 0; q < count; q++) {
    int c;
    if (bspline_source_row (plan, first + q) >= 0)
      continue;
    for (i = 0; i < n; i++)
      for (c = 0; c < C; c++)
        buf[i * BSPLINE_GROUP_LANES + q * C + c] =
            (REAL) (plan->params.fill[c] * plan->gain);
  }
  return 0;
}

/* Lane `lane` of buf (n pixels) into the row out, after the causal
 * recursion along y against the previous row prev when there is one:
 * s_k = x_k + z s_{k-1} ([BD19] eq. 15, across rows). */
static BSPLINE_INLINE void
SUFFIX (line_out) (const REAL * buf, int lane, REAL * out, const REAL * prev,
    REAL z, int n, const int C)
{
  int i, c;
  buf += lane;
  if (prev) {
    for (i = 0; i < n; i++)
      for (c = 0; c < C; c++)
        out[i * C + c] = MADD (z, prev[i * C + c],
            buf[(ptrdiff_t) i * BSPLINE_GROUP_LANES + c]);
  } else {
    for (i = 0; i < n; i++)
      for (c = 0; c < C; c++)
        out[i * C + c] = buf[(ptrdiff_t) i * BSPLINE_GROUP_LANES + c];
  }
}

BSPLINE_VECTOR_CLONES static void
SUFFIX (group_out) (const bspline_plan * plan, const REAL * buf, int q,
    REAL * out, const REAL * prev, REAL z)
{
  const int n = plan->src_width + 2 * plan->pad;
  switch (plan->channels) {
    case 1:
      SUFFIX (line_out) (buf, q, out, prev, z, n, 1);
      break;
    case 2:
      SUFFIX (line_out) (buf, q * 2, out, prev, z, n, 2);
      break;
    case 3:
      SUFFIX (line_out) (buf, q * 3, out, prev, z, n, 3);
      break;
    default:
      SUFFIX (line_out) (buf, q * 4, out, prev, z, n, 4);
      break;
  }
}

/* Plane path: lines first .. last - 1 of the padded storage, prefiltered
 * along x, into the coefficient plane. */
BSPLINE_VECTOR_CLONES static void
SUFFIX (prefilter_rows) (const bspline_plan * plan,
    const bspline_image * src, const bspline_coefficients * coef, int first,
    int last, REAL * scratch)
{
  const int G = bspline_group_rows (coef->channels);
  REAL *buf = scratch;
  REAL *conv = buf + (ptrdiff_t) (coef->width + 2 * coef->pad)
      * BSPLINE_GROUP_LANES;
  int r, q, count;

  for (r = first; r < last; r += count) {
    REAL *out[BSPLINE_GROUP_LANES];
    count = last - r < G ? last - r : G;
    SUFFIX (filter_group) (plan, src, r, count, buf, conv, 0);
    for (q = 0; q < count; q++)
      out[q] = (REAL *) coef->data + (ptrdiff_t) (r + q) * coef->row_len;
    if (SUFFIX (group_out_all) (plan, buf, count, out, NULL, 0, (REAL) 0))
      continue;
    for (q = 0; q < count; q++)
      SUFFIX (group_out) (plan, buf, q, out[q], NULL, (REAL) 0);
  }
}

/* Plane path, then columns: a strip of lanes values wide starting at value
 * v0 of every row, filtered along y. */
BSPLINE_VECTOR_CLONES static void
SUFFIX (prefilter_columns) (const bspline_plan * plan,
    const bspline_coefficients * coef, ptrdiff_t v0, int lanes)
{
  SUFFIX (prefilter_lines) (plan, (REAL *) coef->data + v0, coef->row_len,
      coef->height + 2 * coef->pad, lanes);
}

/* Streaming path: lines first .. last - 1 (one block, see resample.h) of
 * the padded storage, filtered along x and causally along y, into the
 * plane.  The top block takes the exact causal initialisation of every
 * column ([BD19] eq. 14, 19), for which the first min(len, N + 2) lines
 * are filtered along x into the plane first (the initialisation reads at
 * most lines 0 .. N of a folded line, line 0 of a padded one); another
 * block starts its recursion from zero at its first line, and the reader
 * adds the carry from the line above it (bspline_causal_line_carry). */
BSPLINE_VECTOR_CLONES static void
SUFFIX (causal_lines) (const bspline_plan * plan, const bspline_image * src,
    const bspline_coefficients * coef, int first, int last, REAL * last_line,
    REAL * scratch)
{
  const int C = coef->channels, G = bspline_group_rows (C);
  const int n_lines = coef->height + 2 * coef->pad;
  const int width = coef->width + 2 * coef->pad;
  const ptrdiff_t row_len = coef->row_len;
  const REAL z = (REAL) plan->setup.poles[0];
  const int truncation = plan->setup.truncation[0];
  REAL *plane = (REAL *) coef->data;
  REAL *buf = scratch;
  REAL *conv = buf + (ptrdiff_t) width * BSPLINE_GROUP_LANES;
  const REAL *prev = NULL;
  int r = first, q, count;

  if (first == 0) {
    int n_init = last < truncation + 2 ? last : truncation + 2;
    ptrdiff_t v;
    for (r = 0; r < n_init; r += count) {
      count = n_init - r < G ? n_init - r : G;
      SUFFIX (filter_group) (plan, src, r, count, buf, conv, 0);
      for (q = 0; q < count; q++) {
        REAL *out = plane + (ptrdiff_t) (r + q) * row_len;
        SUFFIX (group_out) (plan, buf, q, out, NULL, z);
        if (r + q == n_lines - 1)
          memcpy (last_line, out, sizeof (REAL) * row_len);
      }
    }
    for (v = 0; v < row_len; v++)
      plane[v] = SUFFIX (bspline_causal_init) (plane + v, row_len, n_lines,
          z, truncation, plan->setup.boundary, plan->pad > 0);
    for (r = 1; r < n_init; r++) {
      REAL *row = plane + (ptrdiff_t) r * row_len;
      const REAL *above = row - row_len;
      for (v = 0; v < row_len; v++)
        row[v] = MADD (z, above[v], row[v]);
    }
    prev = plane + (ptrdiff_t) (n_init - 1) * row_len;
    r = n_init;
  }
  for (; r < last; r += count) {
    REAL *out[BSPLINE_GROUP_LANES];
    int defer;
    count = last - r < G ? last - r : G;
    /* the last line is also copied out after the whole prefilter */
    defer = r + count < n_lines && SUFFIX (anticausal_out_usable) (plan,
        count);
    for (q = 0; q < count; q++)
      out[q] = plane + (ptrdiff_t) (r + q) * row_len;
    if (SUFFIX (filter_group) (plan, src, r, count, buf, conv, defer)) {
      SUFFIX (anticausal_out_all) (plan, buf, out, prev, z);
      prev = out[count - 1];
      continue;
    }
    for (q = 0; q < count; q++)
      if (r + q == n_lines - 1)
        SUFFIX (group_out) (plan, buf, q, last_line, NULL, z);
    if (!SUFFIX (group_out_all) (plan, buf, count, out, prev, 1, z))
      for (q = 0; q < count; q++)
        SUFFIX (group_out) (plan, buf, q, out[q], q > 0 ? out[q - 1] : prev,
            z);
    prev = out[count - 1];
  }
}
