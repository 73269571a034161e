/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resample-impl.h: the indirect B-spline transform (evaluation) for one
 * arithmetic type.  Included by resample.c with REAL and SUFFIX(name). */

#include "store-impl.h"

/* A coefficient row of n pixels into lanes lane .. lane + C - 1 of buf
 * (interleaved, see resample.h). */
static BSPLINE_INLINE void
SUFFIX (interleave_row) (REAL * buf, int lane, const REAL * row, int n,
    const int C)
{
  int i, c;
  buf += lane;
  for (i = 0; i < n; i++)
    for (c = 0; c < C; c++)
      buf[(ptrdiff_t) i * BSPLINE_GROUP_LANES + c] = row[i * C + c];
}

BSPLINE_VECTOR_CLONES static void
SUFFIX (group_in) (REAL * buf, int q, const REAL * row, int n, int C)
{
  switch (C) {
    case 1:
      SUFFIX (interleave_row) (buf, q, row, n, 1);
      break;
    case 2:
      SUFFIX (interleave_row) (buf, q * 2, row, n, 2);
      break;
    case 3:
      SUFFIX (interleave_row) (buf, q * 3, row, n, 3);
      break;
    default:
      SUFFIX (interleave_row) (buf, q * 4, row, n, 4);
      break;
  }
}

/* The anticausal recursion along y one row down, c_k = z (c_{k+1} - s_k)
 * ([BD19] eq. 18, across rows), on the row c of n pixels, where the causal
 * output s_k is the stored row s, plus w times the row carry when there is
 * one (see resample.h); with buf, c_k also goes into lanes lane ..
 * lane + C - 1 of buf. */
static BSPLINE_INLINE void
SUFFIX (anticausal_row_c) (REAL * c, const REAL * s, const REAL * carry,
    REAL w, REAL z, REAL * buf, int lane, int n, const int C)
{
  int i, k;
  if (!buf) {
    if (carry)
      for (i = 0; i < n * C; i++)
        c[i] = ANTICAUSAL (z, c[i], MADD (w, carry[i], s[i]));
    else
      for (i = 0; i < n * C; i++)
        c[i] = ANTICAUSAL (z, c[i], s[i]);
    return;
  }
  buf += lane;
  if (carry) {
    for (i = 0; i < n; i++)
      for (k = 0; k < C; k++) {
        REAL v = ANTICAUSAL (z, c[i * C + k], MADD (w, carry[i * C + k],
                s[i * C + k]));
        c[i * C + k] = v;
        buf[(ptrdiff_t) i * BSPLINE_GROUP_LANES + k] = v;
      }
  } else {
    for (i = 0; i < n; i++)
      for (k = 0; k < C; k++) {
        REAL v = ANTICAUSAL (z, c[i * C + k], s[i * C + k]);
        c[i * C + k] = v;
        buf[(ptrdiff_t) i * BSPLINE_GROUP_LANES + k] = v;
      }
  }
}

/* The anticausal step from line k + 1 to line k of the streaming path's
 * plane (see anticausal_row_c); a NULL buf only runs the recursion. */
BSPLINE_VECTOR_CLONES static void
SUFFIX (anticausal_row) (const bspline_plan * plan,
    const bspline_coefficients * coef, int n_blocks, int k, REAL * c,
    REAL * buf, int q)
{
  const REAL *plane = (const REAL *) coef->data;
  const ptrdiff_t row_len = coef->row_len;
  const REAL *s = plane + (ptrdiff_t) k * row_len, *carry = NULL;
  const REAL z = (REAL) plan->setup.poles[0];
  const int p = bspline_causal_line_carry (plan, n_blocks, k);
  const int n = coef->width + 2 * coef->pad;
  REAL w = z;
  int i;

  if (p > 0) {
    for (i = 1; i < p; i++)
      w *= z;
    carry = plane + (ptrdiff_t) (k - p) * row_len;
  }
  if (!buf) {
    SUFFIX (anticausal_row_c) (c, s, carry, w, z, NULL, 0, n, coef->channels);
    return;
  }
  switch (coef->channels) {
    case 1:
      SUFFIX (anticausal_row_c) (c, s, carry, w, z, buf, q, n, 1);
      break;
    case 2:
      SUFFIX (anticausal_row_c) (c, s, carry, w, z, buf, q * 2, n, 2);
      break;
    case 3:
      SUFFIX (anticausal_row_c) (c, s, carry, w, z, buf, q * 3, n, 3);
      break;
    default:
      SUFFIX (anticausal_row_c) (c, s, carry, w, z, buf, q * 4, n, 4);
      break;
  }
}

/* Separable path along x: the coefficient rows interleaved in buf
 * resampled into out[0 .. G - 1] (G = bspline_group_rows (C); rows past
 * the group point at a row whose values nobody reads), all rows at once:
 * each tap is one weight times one vector of BSPLINE_GROUP_LANES values.
 * C is a constant at each call site. */
static BSPLINE_INLINE void
SUFFIX (resample_group_c) (const REAL * buf, REAL * const *out,
    const int *index, const REAL * weights, int j0, int j1, int n_taps,
    const int C)
{
  const int G = BSPLINE_GROUP_LANES / C;
  int j, t, l, q, c;
  for (j = j0; j < j1; j++) {
    const int *ix = index + (size_t) j * n_taps;
    const REAL *w = weights + (size_t) j * n_taps;
    REAL acc[BSPLINE_GROUP_LANES];
#define TAP(t) (buf + (ptrdiff_t) ix[t] * BSPLINE_GROUP_LANES)
    if (n_taps == 4) {
      const REAL *s0 = TAP (0), *s1 = TAP (1), *s2 = TAP (2), *s3 = TAP (3);
      for (l = 0; l < BSPLINE_GROUP_LANES; l++)
        acc[l] = BSPLINE_SUM4 (MADD, w[0], s0[l], w[1], s1[l], w[2], s2[l],
            w[3], s3[l]);
    } else {
      const REAL *s = TAP (0);
      for (l = 0; l < BSPLINE_GROUP_LANES; l++)
        acc[l] = w[0] * s[l];
      for (t = 1; t < n_taps; t++) {
        const REAL wt = w[t];
        s = TAP (t);
        for (l = 0; l < BSPLINE_GROUP_LANES; l++)
          acc[l] = MADD (wt, s[l], acc[l]);
      }
    }
#undef TAP
    for (q = 0; q < G; q++)
      for (c = 0; c < C; c++)
        out[q][j * C + c] = acc[q * C + c];
  }
}

/* Output pixels j0 .. j1 - 1 of the group (see resample_group_c). */
BSPLINE_VECTOR_CLONES static void
SUFFIX (resample_group) (const bspline_plan * plan, const REAL * buf,
    REAL * const *out, int j0, int j1)
{
  const bspline_axis_table *t = &plan->x;
  const REAL *w = (const REAL *) SUFFIX (table_weights) (t);
  const int T = t->n_taps;
  switch (plan->channels) {
    case 1:
      SUFFIX (resample_group_c) (buf, out, t->index, w, j0, j1, T, 1);
      break;
    case 2:
      SUFFIX (resample_group_c) (buf, out, t->index, w, j0, j1, T, 2);
      break;
    case 3:
      SUFFIX (resample_group_c) (buf, out, t->index, w, j0, j1, T, 3);
      break;
    default:
      if (T == 4 && SUFFIX (resample_group_rgba) (buf, out, t->index, w, j0,
              j1))
        break;
      SUFFIX (resample_group_c) (buf, out, t->index, w, j0, j1, T, 4);
      break;
  }
}

/* The rows of up to eight anticausal steps at once, lines k .. k - count
 * + 1 (see anticausal_row): s[q], carry[q] and w[q] for line k - q. */
static BSPLINE_INLINE void
SUFFIX (anticausal_lines) (const bspline_plan * plan,
    const bspline_coefficients * coef, int n_blocks, int k, int count,
    const REAL ** s, const REAL ** carry, REAL * w)
{
  const REAL *plane = (const REAL *) coef->data;
  const ptrdiff_t row_len = coef->row_len;
  const REAL z = (REAL) plan->setup.poles[0];
  int q, i;

  for (q = 0; q < count; q++) {
    const int p = bspline_causal_line_carry (plan, n_blocks, k - q);
    s[q] = plane + (ptrdiff_t) (k - q) * row_len;
    carry[q] = NULL;
    w[q] = z;
    if (p > 0) {
      for (i = 1; i < p; i++)
        w[q] *= z;
      carry[q] = plane + (ptrdiff_t) (k - q - p) * row_len;
    }
  }
}

/* Up to eight anticausal steps at once, lines k .. k - count + 1, the
 * recursion only (the chunk's warm-up), where the type and the layout
 * have a whole-group kernel (resample.c): the same values as count calls
 * of anticausal_row.  Returns 0 where it does not apply. */
static int
SUFFIX (anticausal_group) (const bspline_plan * plan,
    const bspline_coefficients * coef, int n_blocks, int k, int count,
    REAL * c)
{
  const REAL *s[8], *carry[8];
  REAL w[8];

  if (coef->channels != 4 || bspline_group_rows (4) != 8)
    return 0;
  SUFFIX (anticausal_lines) (plan, coef, n_blocks, k, count, s, carry, w);
  return SUFFIX (anticausal_group_impl) (c, s, carry, w,
      (REAL) plan->setup.poles[0], NULL, count, coef->width + 2 * coef->pad);
}

/* As anticausal_group, lines k .. k - count + 1 into lanes of rows 0 ..
 * count - 1 of buf (the lanes of rows count .. 7 get copies of row
 * count - 1, for the sink), then resampled along x into out[0 .. 7]
 * (resample_group), strip by strip: each strip of pixels is resampled as
 * soon as the output pixels that read it have all their taps, while it is
 * still in the first-level cache.  Returns 0 where it does not apply. */
static int
SUFFIX (anticausal_resample_group) (const bspline_plan * plan,
    const bspline_coefficients * coef, int n_blocks, int k, int count,
    REAL * c, REAL * buf, REAL * const *out, const stream_strips * strips)
{
  const REAL z = (REAL) plan->setup.poles[0];
  const REAL *s[8], *carry[8], *s_x[8], *carry_x[8];
  REAL w[8];
  int t, q, x0 = 0, j0 = 0;

  if (coef->channels != 4 || bspline_group_rows (4) != 8)
    return 0;
  SUFFIX (anticausal_lines) (plan, coef, n_blocks, k, count, s, carry, w);
  for (t = 0; t < strips->n; t++) {
    const int x1 = strips->x_end[t], j1 = strips->j_end[t];
    for (q = 0; q < count; q++) {
      s_x[q] = s[q] + 4 * x0;
      carry_x[q] = carry[q] ? carry[q] + 4 * x0 : NULL;
    }
    if (!SUFFIX (anticausal_group_impl) (c + 4 * x0, s_x, carry_x, w, z,
            buf + (ptrdiff_t) x0 * BSPLINE_GROUP_LANES, count, x1 - x0))
      return 0;
    if (j1 > j0)
      SUFFIX (resample_group) (plan, buf, out, j0, j1);
    x0 = x1;
    j0 = j1;
  }
  return 1;
}

/* Separable path along y: output rows first .. last - 1 from the rows
 * resampled along x, coefficient row r being rows + (r % ring) * n, a
 * block of values of every output row at a time, so that the blocks of
 * the rows they read stay in the first-level cache from one output row to
 * the next; each block is rounded and stored as soon as it is summed. */
BSPLINE_VECTOR_CLONES static void
SUFFIX (resample_columns) (const bspline_plan * plan, const REAL * rows,
    int ring, int first, int last, const bspline_image * dst)
{
  const bspline_axis_table *t = &plan->y;
  const int n = plan->x.n_out * plan->channels, n_taps = t->n_taps;
  const REAL *weights = (const REAL *) SUFFIX (table_weights) (t);
  REAL acc[COLUMN_BLOCK];
  int v0, v, k, i;

  for (v0 = 0; v0 < n; v0 += COLUMN_BLOCK) {
    const int nb = n - v0 < COLUMN_BLOCK ? n - v0 : COLUMN_BLOCK;
    for (i = first; i < last; i++) {
      const int *index = t->index + (size_t) i * n_taps;
      const REAL *w = weights + (size_t) i * n_taps;
#define TAP(k) (rows + (ptrdiff_t) (index[k] % ring) * n + v0)
      if (n_taps == 4) {
        const REAL *r0 = TAP (0), *r1 = TAP (1), *r2 = TAP (2);
        const REAL *r3 = TAP (3);
        const REAL w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3];
        if (dst->type == BSPLINE_SAMPLE_U8) {
          uint8_t *out = (uint8_t *) dst->data + (ptrdiff_t) i * dst->stride
              + v0;
          if (!SUFFIX (sum4_store_u8) (out, r0, r1, r2, r3, w, nb))
            for (v = 0; v < nb; v++)
              out[v] = SUFFIX (sum4_u8) (w, r0[v], r1[v], r2[v], r3[v]);
          continue;
        }
        for (v = 0; v < nb; v++)
          acc[v] = BSPLINE_SUM4 (MADD, w0, r0[v], w1, r1[v], w2, r2[v], w3,
              r3[v]);
      } else {
        const REAL *r0 = TAP (0);
        const REAL w0 = w[0];
        for (v = 0; v < nb; v++)
          acc[v] = w0 * r0[v];
        for (k = 1; k < n_taps; k++) {
          const REAL *rk = TAP (k);
          const REAL wk = w[k];
          for (v = 0; v < nb; v++)
            acc[v] = MADD (wk, rk[v], acc[v]);
        }
      }
#undef TAP
      SUFFIX (store_values) (dst, i, v0, acc, nb);
    }
  }
}

/* Plane path, along x: the coefficient rows first .. last - 1 that some
 * output row reads, a group at a time, into tmp (rows of n_out * C). */
BSPLINE_VECTOR_CLONES static void
SUFFIX (separable_rows) (const bspline_plan * plan,
    const bspline_coefficients * coef, REAL * tmp, const unsigned char *used,
    int first, int last, REAL * buf, REAL * sink)
{
  const int C = coef->channels, G = bspline_group_rows (C);
  const int width = coef->width + 2 * coef->pad;
  const ptrdiff_t n = (ptrdiff_t) plan->x.n_out * C;
  REAL *out[BSPLINE_GROUP_LANES];
  int r, q, count = 0;

  memset (buf, 0, sizeof (REAL) * width * BSPLINE_GROUP_LANES);
  for (r = first; r < last; r++) {
    if (!used[r])
      continue;
    SUFFIX (group_in) (buf, count,
        (const REAL *) coef->data + (ptrdiff_t) r * coef->row_len, width, C);
    out[count++] = tmp + r * n;
    if (count == G) {
      SUFFIX (resample_group) (plan, buf, out, 0, plan->x.n_out);
      count = 0;
    }
  }
  if (count > 0) {
    for (q = count; q < G; q++)
      out[q] = sink;
    SUFFIX (resample_group) (plan, buf, out, 0, plan->x.n_out);
  }
}

/* Streaming path: output rows o0 .. o1 - 1, bottom-up.  The coefficient
 * rows they read, bottom .. top, come out of the anticausal recursion
 * along y, c_k = z (c_{k+1} - s_k) ([BD19] eq. 18, across rows), run from
 * line m = top + N down (from the exact initialisation, eq. 16-17, when m
 * is the last line; else from zero, leaving out terms that weigh
 * z^(N+1), [BD19] section 3).  A row that some output row of the chunk
 * reads joins a group; a full group (or one that an output row waits for)
 * is resampled along x into a ring of `ring` rows, and the output rows
 * whose taps are all in the ring are resampled along y before the ring
 * moves on.  Groups are
 * filled at most G rows below the lowest tap needed, which is what
 * stream_ring (resample.c) sizes the ring for. */
BSPLINE_VECTOR_CLONES static void
SUFFIX (stream_rows) (const bspline_plan * plan,
    const bspline_coefficients * coef, const REAL * last_line,
    const bspline_image * dst, int o0, int o1, int ring,
    const stream_strips * strips, REAL * crow, REAL * buf, REAL * sink,
    REAL * rows, unsigned char *used)
{
  const bspline_axis_table *ty = &plan->y;
  const int C = coef->channels, G = bspline_group_rows (C);
  const int n_lines = coef->height + 2 * coef->pad;
  const int width = coef->width + 2 * coef->pad, T = ty->n_taps;
  const ptrdiff_t row_len = coef->row_len;
  const ptrdiff_t n = (ptrdiff_t) plan->x.n_out * C;
  const REAL z = (REAL) plan->setup.poles[0];
  const int truncation = plan->setup.truncation[0];
  const REAL *plane = (const REAL *) coef->data;
  const int n_blocks = bspline_causal_blocks (plan);
  REAL *out[BSPLINE_GROUP_LANES];
  int top = 0, bottom = n_lines - 1, m, done, next, ring_low, ready, i, k;
  int q;
  ptrdiff_t v;

  for (k = o0 * T; k < o1 * T; k++) {
    top = ty->index[k] > top ? ty->index[k] : top;
    bottom = ty->index[k] < bottom ? ty->index[k] : bottom;
  }
  memset (used + bottom, 0, (size_t) (top - bottom + 1));
  for (k = o0 * T; k < o1 * T; k++)
    used[ty->index[k]] = 1;
  /* buf is not cleared: the lanes past a partial group go to the sink, and
   * the engine zeroes its scratch once, when it allocates it (engine.c), so
   * they hold zeros or values of earlier groups, never garbage. */

  m = top + truncation >= n_lines - 1 ? n_lines - 1 : top + truncation;
  if (m == n_lines - 1) {
    for (v = 0; v < row_len; v++)
      crow[v] = SUFFIX (bspline_anticausal_init) (plane + v, row_len,
          n_lines, z, truncation, plan->setup.boundary, plan->pad > 0,
          last_line[v]);
  } else {
    /* from zero below line m: c_{m+1} = 0 */
    memset (crow, 0, sizeof (REAL) * row_len);
    SUFFIX (anticausal_row) (plan, coef, n_blocks, m, crow, NULL, 0);
  }
  /* the warm-up lines above the chunk's rows (nobody reads them), eight
   * at a time where a kernel can: crow then holds line done (top + 1, or
   * top when m is top), and the lines from top down are to join */
  done = m;
  while (done - 8 > top && SUFFIX (anticausal_group) (plan, coef, n_blocks,
          done - 1, 8, crow))
    done -= 8;
  for (; done > top + 1; done--)
    SUFFIX (anticausal_row) (plan, coef, n_blocks, done - 1, crow, NULL, 0);
  next = top;
  ring_low = m + 1;
  ready = o1;
  for (i = o1 - 1; i >= o0; i--) {
    int lo = ty->index[(size_t) i * T];
    for (k = 1; k < T; k++)
      lo = ty->index[(size_t) i * T + k] < lo ?
          ty->index[(size_t) i * T + k] : lo;
    while (ring_low > lo) {
      int count = 0, took = 0;
      /* the rows ready so far go before the ring moves on */
      if (ready > i + 1)
        SUFFIX (resample_columns) (plan, rows, ring, i + 1, ready, dst);
      ready = i + 1;
      /* the lines that the loop below would take, when they all join and
       * none is done yet: at once where a kernel can */
      if (next < done) {
        int take = 0, line = next;
        while (take < G && line >= bottom) {
          if (line > top || !used[line]) {
            take = 0;
            break;
          }
          take++;
          line--;
          if (line < lo - G)
            break;
        }
        for (q = 0; q < take; q++)
          out[q] = rows + (ptrdiff_t) ((next - q) % ring) * n;
        for (q = take; q < G; q++)
          out[q] = sink;
        if (take > 0 && SUFFIX (anticausal_resample_group) (plan, coef,
                n_blocks, next, take, crow, buf, out, strips)) {
          next -= take;
          took = 1;             /* where the loop below would stop */
        }
      }
      while (!took && count < G && next >= bottom) {
        const int join = next <= top && used[next];
        if (next < done)
          SUFFIX (anticausal_row) (plan, coef, n_blocks, next, crow,
              join ? buf : NULL, count);
        else if (join)
          SUFFIX (group_in) (buf, count, crow, width, C);
        if (join)
          out[count++] = rows + (ptrdiff_t) (next % ring) * n;
        next--;
        if (count > 0 && next < lo - G)
          break;
      }
      if (count > 0) {
        for (q = count; q < G; q++)
          out[q] = sink;
        SUFFIX (resample_group) (plan, buf, out, 0, plan->x.n_out);
      }
      ring_low = next + 1;
    }
  }
  SUFFIX (resample_columns) (plan, rows, ring, o0, ready, dst);
}

/* The value at sample coordinates (x, y) of a plane read through axes ax
 * and ay (rows of row_len values), every channel, into out[]; returns the
 * coefficients read (taps along x times taps along y). */
static int
SUFFIX (eval_plane) (const bspline_axis * ax, const bspline_axis * ay,
    const REAL * data, ptrdiff_t row_len, int C, double x, double y,
    double widen_x, double widen_y, REAL * out)
{
  int ix[BSPLINE_MAX_POINT_TAPS], iy[BSPLINE_MAX_POINT_TAPS];
  REAL wx[BSPLINE_MAX_POINT_TAPS], wy[BSPLINE_MAX_POINT_TAPS];
  int nx, ny, a, b, c;

  nx = SUFFIX (bspline_axis_taps) (ax, x, widen_x, ix, wx);
  ny = SUFFIX (bspline_axis_taps) (ay, y, widen_y, iy, wy);
  for (c = 0; c < C; c++)
    out[c] = (REAL) 0;
  for (b = 0; b < ny; b++) {
    const REAL *row = data + (ptrdiff_t) iy[b] * row_len;
    REAL line[BSPLINE_MAX_CHANNELS] = { 0 };
    for (a = 0; a < nx; a++) {
      const REAL *s = row + (ptrdiff_t) ix[a] * C;
      for (c = 0; c < C; c++)
        line[c] += wx[a] * s[c];
    }
    for (c = 0; c < C; c++)
      out[c] += wy[b] * line[c];
  }
  return nx * ny;
}

/* The value at sample coordinates (x, y), every channel, into out[]. */
static void
SUFFIX (eval_point) (const bspline_plan * plan,
    const bspline_coefficients * coef, double x, double y, double widen_x,
    double widen_y, REAL * out)
{
  SUFFIX (eval_plane) (&plan->axis_x, &plan->axis_y,
      (const REAL *) coef->data, coef->row_len, coef->channels, x, y,
      widen_x, widen_y, out);
}

/* A pixel of a lens plan at sample coordinates (x, y) with its footprint's
 * widening (widen_x, widen_y): from the level of the ripmap that the
 * widening picks (bspline-stage.h), level 0 being eval_point; returns the
 * coefficients read.  Where the ripmap has no memory for the level, the
 * kernel is widened on the coefficients, held to
 * BSPLINE_MAX_WARP_WIDENING. */
static int
SUFFIX (eval_lens_point) (const bspline_plan * plan,
    const bspline_coefficients * coef, bspline_ripmap * ripmap, double x,
    double y, double widen_x, double widen_y, REAL * out)
{
  double rest_x, rest_y;
  int lx, ly;
  bspline_level lv;

  bspline_lens_levels (plan, widen_x, widen_y, &lx, &ly, &rest_x, &rest_y);

  if (lx == 0 && ly == 0)
    return SUFFIX (eval_plane) (&plan->axis_x, &plan->axis_y,
        (const REAL *) coef->data, coef->row_len, coef->channels, x, y,
        rest_x, rest_y, out);
  if (!bspline_ripmap_level (ripmap, lx, ly, &lv))
    return SUFFIX (eval_plane) (&plan->axis_x, &plan->axis_y,
        (const REAL *) coef->data, coef->row_len, coef->channels, x, y,
        fmin (widen_x, BSPLINE_MAX_WARP_WIDENING), fmin (widen_y,
            BSPLINE_MAX_WARP_WIDENING), out);
  /* the point brought into the frame at the fine level (a level keeps
   * the window of bspline_level_range about the frame), then its
   * coordinates at the level: coarse sample m's centre is fine sample
   * 2^l (m + 0.5) - 0.5 */
  x = bspline_level_point (&plan->axis_x, x);
  y = bspline_level_point (&plan->axis_y, y);
  x = ldexp (x + 0.5, -lx) - 0.5;
  y = ldexp (y + 0.5, -ly) - 0.5;
  return SUFFIX (eval_plane) (&lv.axis_x, &lv.axis_y,
      (const REAL *) lv.data, lv.row_len, plan->channels, x, y, rest_x,
      rest_y, out);
}

/* General path: output rows first .. last - 1, each pixel centre mapped
 * through the inverse homography and the plan's lens stages (a lens
 * plan's widened pixels from `ripmap`, NULL for other plans). */
static void
SUFFIX (warp_rows) (const bspline_plan * plan,
    const bspline_coefficients * coef, bspline_ripmap * ripmap, REAL * acc,
    const bspline_image * dst, int first, int last)
{
  const double *m = plan->inverse;
  const bspline_lens *lenses = plan->lens;
  const int n_lenses = plan->n_lenses;
  const int C = plan->channels;
  int i, j, c;

  for (i = first; i < last; i++) {
    double v = i + 0.5;
    uint64_t taps = 0;
    for (j = 0; j < plan->dst_width; j++) {
      double u = j + 0.5, x, y, widen_x = 1.0, widen_y = 1.0;
      REAL *px = acc + (ptrdiff_t) j * C;
      int found = n_lenses > 0 && plan->widen ?
          bspline_stage_footprint (m, lenses, n_lenses, u, v,
          BSPLINE_MAX_LENS_WIDENING, &x, &y, &widen_x, &widen_y) :
          bspline_stage_map_point (m, lenses, n_lenses, u, v, &x, &y);
      if (!found) {
        for (c = 0; c < C; c++)
          px[c] = (REAL) plan->params.fill[c];
        continue;
      }
      if (n_lenses == 0 && plan->widen)
        bspline_footprint (m, u, v, x, y, BSPLINE_MAX_WARP_WIDENING,
            &widen_x, &widen_y);
      if (n_lenses > 0 && (widen_x != 1.0 || widen_y != 1.0))
        taps += (uint64_t) SUFFIX (eval_lens_point) (plan, coef, ripmap,
            x - 0.5, y - 0.5, widen_x, widen_y, px);
      else
        SUFFIX (eval_point) (plan, coef, x - 0.5, y - 0.5, widen_x,
            widen_y, px);
    }
    if (taps > 0)
      bspline_ripmap_count (ripmap, taps);
    SUFFIX (store_values) (dst, i, 0, acc, plan->dst_width * C);
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
    double x = bspline_sample_coordinate (xy[2 * i], plan->axis_x.len,
        plan->axis_x.boundary);
    double y = bspline_sample_coordinate (xy[2 * i + 1], plan->axis_y.len,
        plan->axis_y.boundary);
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
