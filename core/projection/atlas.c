/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* atlas.c: the input atlas of a projection stage (atlas.h).
 *
 * A cube map's slot borders a face's neighbour on the sphere only where
 * the layout happens to put it there, and an equirect's first row borders
 * the last one nowhere; a spline sampled and prefiltered on the frame as
 * it is reads the wrong pixels within the kernel's reach of those edges
 * and, through the prefilter's recursion, a few pixels further.  The
 * atlas gives each face (each slot of the frame, in the slot's own
 * orientation) a tile with `margin` pixels on every side, filled by
 * whole-pixel copies:
 *
 *  - a cube face's margin unfolds its neighbours across the shared edge
 *    (v360's process_cube_coordinates, done once per pixel of the table
 *    instead of per tap): a pixel k pixels past an edge is the
 *    neighbour's k-th row or column from that edge, in the orientation
 *    that continues the face.  On the cube of half-side 1, a point
 *    c_n n + c_u e_u + c_v e_v of face n with c_u = 1 + k (past the edge
 *    towards e_u) folds onto the face of normal e_u as
 *    (1 - k) n + e_u + c_v e_v.  The unfolded map is C1 across the edge
 *    (the two faces are mirror images about the edge's bisecting plane).
 *    Past a corner, where three faces meet and a quarter of the plane has
 *    no face, the rule is: the part nearer the e_u edge (k_u >= k_v)
 *    folds twice, over e_u then over the e_v face's edge, and the other
 *    part the other way; the two meet on the diagonal.
 *  - EAC's faces are equi-angular: the same folds act on the face's
 *    parameters (angles), and a parameter s is the cube's coordinate
 *    tan (pi s / 4).
 *  - an equirect gets `margin` columns wrapped across +-180 degrees on
 *    each side and `margin` rows above and below reflected over the pole
 *    with a half turn (v360's: the row above row 0 at column x is row 0
 *    at column x + width / 2).
 *
 * The table holds, for each atlas pixel, the frame pixel it copies: the
 * pixel that holds the folded point's position (bspline-projection.h's
 * own input map, so that the layout is written once).  Pixel centres fold
 * onto pixel centres, so the position is half a pixel from any rounding
 * boundary. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atlas.h"

int
bspline_atlas_margin (const bspline_params * params)
{
  const double eps = params->precision == BSPLINE_PRECISION_DOUBLE ?
      BSPLINE_EPSILON_DOUBLE : BSPLINE_EPSILON_FLOAT;
  int order = params->method == BSPLINE_METHOD_BICUBIC ? 3 : params->order;
  int reach = order / 2 + 2, truncation = 0, i;

  if (params->method != BSPLINE_METHOD_BICUBIC)
    for (i = 0; i < bspline_n_poles (order); i++) {
      int n = bspline_truncation_index (order, i, eps);
      truncation = n > truncation ? n : truncation;
    }
  return reach + truncation;
}

void
bspline_atlas_free (bspline_atlas * atlas)
{
  if (!atlas)
    return;
  free (atlas->index);
  free (atlas);
}

static int
is_whole (double v)
{
  return fabs (v - round (v)) < 1e-9;
}

/* Frame pixel index of a frame position (pixels), clamped to the plane. */
static int32_t
frame_index (const bspline_atlas * atlas, double x, double y)
{
  long ix = (long) floor (x), iy = (long) floor (y);
  ix = ix < 0 ? 0 : ix >= atlas->frame_width ? atlas->frame_width - 1 : ix;
  iy = iy < 0 ? 0 : iy >= atlas->frame_height ? atlas->frame_height - 1 : iy;
  return (int32_t) (iy * atlas->frame_width + ix);
}

/* The equirect's table: columns wrapped, rows over the poles with a half
 * turn. */
static void
equirect_table (bspline_atlas * atlas)
{
  const int W = atlas->frame_width, H = atlas->frame_height;
  const int M = atlas->margin;
  int x, y;

  for (y = 0; y < atlas->height; y++)
    for (x = 0; x < atlas->width; x++) {
      int fx = x - M, fy = y - M;
      if (fy < 0) {
        fy = -1 - fy;
        fx += W / 2;
      } else if (fy >= H) {
        fy = 2 * H - 1 - fy;
        fx += W / 2;
      }
      fx = ((fx % W) + W) % W;
      atlas->index[(size_t) y * atlas->width + x] = (int32_t) fy *W + fx;
    }
}

/* The cube's table.  post: the stage's, the frame's (a, b) -> plane
 * pixels (affine and axis-aligned). */
static void
cube_table (bspline_atlas * atlas, const bspline_projection_side * frame,
    const double *post, int face_size)
{
  const double pi = BSPLINE_PROJECTION_PI;
  const int M = atlas->margin, eac = frame->type == BSPLINE_PROJECTION_EAC;
  int x, y;

  for (y = 0; y < atlas->height; y++)
    for (x = 0; x < atlas->width; x++) {
      int c = x / atlas->tile_width, r = y / atlas->tile_height;
      int lx = x - c * atlas->tile_width - M, ly = y - r * atlas->tile_height
          - M;
      int face = bspline_cube_face_at (frame->type, c, r);
      int m, sm, iu, su, iv, sv, col, row, rot, cols, rows, k;
      double uf = 2.0 * (lx + 0.5) / face_size - 1.0;
      double vf = 2.0 * (ly + 0.5) / face_size - 1.0;
      double cn = 1.0, cu, cv, t, ku, kv, d[3], a, b, px, py;

      bspline_cube_layout (frame->type, face, &col, &row, &rot, &cols, &rows);
      /* the slot's rotation undone (bspline_projection_to_direction) */
      if (rot == 1)
        t = uf, uf = vf, vf = -t;
      else if (rot == 3)
        t = uf, uf = -vf, vf = t;
      cu = uf;
      cv = vf;
      ku = fabs (uf) - 1.0;
      kv = fabs (vf) - 1.0;
      if (ku > 0.0 && kv > 0.0) {
        /* past a corner: folded twice (the file's comment) */
        if (ku >= kv) {
          cn = 1.0 - ku;
          cu = copysign (1.0 - kv, uf);
          cv = copysign (1.0, vf);
        } else {
          cn = 1.0 - kv;
          cu = copysign (1.0, uf);
          cv = copysign (1.0 - ku, vf);
        }
      } else if (ku > 0.0) {
        cn = 1.0 - ku;
        cu = copysign (1.0, uf);
      } else if (kv > 0.0) {
        cn = 1.0 - kv;
        cv = copysign (1.0, vf);
      }
      if (eac) {
        cn = tan (0.25 * pi * cn);
        cu = tan (0.25 * pi * cu);
        cv = tan (0.25 * pi * cv);
      }
      bspline_cube_face_axes (face, &m, &sm, &iu, &su, &iv, &sv);
      d[m] = sm * cn;
      d[iu] = cu * sm * su;
      d[iv] = cv * sm * sv;
      k = bspline_projection_from_direction (frame, d, &a, &b, NULL);
      px = k ? post[0] * a + post[2] : 0.0;
      py = k ? post[4] * b + post[5] : 0.0;
      atlas->index[(size_t) y * atlas->width + x] = frame_index (atlas, px, py);
    }
}

bspline_status
bspline_atlas_new (bspline_lens * stage, int plane_width, int plane_height,
    int margin, bspline_atlas ** out)
{
  bspline_projection_side *in = &stage->projection.in;
  const double *post = stage->post;
  bspline_atlas *atlas;
  double w, h, x0, y0, pad_x = 0.0, pad_y = 0.0, fw, fh;
  int type = in->type, cols = 1, rows = 1, c, r, rot, M = margin;
  int face_size = 0;

  *out = NULL;
  /* (the table's indices are int32) */
  if (stage->model != BSPLINE_LENS_PROJECTION || margin < 1
      || (int64_t) plane_width * plane_height > INT32_MAX)
    return BSPLINE_OK;
  /* post: affine and axis-aligned, the frame's (a, b) in [-1, 1]^2 on
   * the plane's pixels from 0 to its size */
  if (post[1] != 0.0 || post[3] != 0.0 || post[6] != 0.0 || post[7] != 0.0
      || post[8] != 1.0)
    return BSPLINE_OK;
  w = 2.0 * post[0];
  h = 2.0 * post[4];
  x0 = post[2] - post[0];
  y0 = post[5] - post[4];
  if (fabs (w - plane_width) > 1e-9 || fabs (h - plane_height) > 1e-9
      || fabs (x0) > 1e-9 || fabs (y0) > 1e-9)
    return BSPLINE_OK;

  if (type == BSPLINE_PROJECTION_EQUIRECT) {
    if (fabs (in->range_x - BSPLINE_PROJECTION_PI) > 1e-12
        || fabs (in->range_y - 0.5 * BSPLINE_PROJECTION_PI) > 1e-12
        || plane_width % 2 != 0)
      return BSPLINE_OK;
    /* one reflection over a pole at most */
    M = M > plane_height ? plane_height : M;
    fw = plane_width;
    fh = plane_height;
  } else if (type == BSPLINE_PROJECTION_CUBEMAP_3X2
      || type == BSPLINE_PROJECTION_CUBEMAP_6X1
      || type == BSPLINE_PROJECTION_CUBEMAP_1X6
      || type == BSPLINE_PROJECTION_EAC) {
    bspline_cube_layout (type, 0, &c, &r, &rot, &cols, &rows);
    if (type == BSPLINE_PROJECTION_EAC) {
      /* EAC's pads: BSPLINE_PROJECTION_EAC_PAD of the frame's pixels at
       * the frame's edges and on each side of the rows' border */
      pad_x = BSPLINE_PROJECTION_EAC_PAD * w / in->width;
      pad_y = BSPLINE_PROJECTION_EAC_PAD * h / in->height;
      fw = (w - 2.0 * pad_x) / cols;
      fh = h / rows - 2.0 * pad_y;
    } else {
      fw = w / cols;
      fh = h / rows;
    }
    if (!is_whole (fw) || !is_whole (fh) || !is_whole (pad_x)
        || !is_whole (pad_y) || lround (fw) != lround (fh) || fw < 2.0)
      return BSPLINE_OK;
    face_size = (int) lround (fw);
    /* one fold at most: a margin of at most half a face */
    M = M > face_size / 2 ? face_size / 2 : M;
  } else
    return BSPLINE_OK;

  atlas = calloc (1, sizeof (*atlas));
  if (!atlas)
    return BSPLINE_ERROR_NO_MEMORY;
  atlas->frame_width = plane_width;
  atlas->frame_height = plane_height;
  atlas->margin = M;
  atlas->cols = cols;
  atlas->rows = rows;
  atlas->tile_width = (int) lround (fw) + 2 * M;
  atlas->tile_height = (int) lround (fh) + 2 * M;
  atlas->width = cols * atlas->tile_width;
  atlas->height = rows * atlas->tile_height;
  if (atlas->width > BSPLINE_MAX_SIDE || atlas->height > BSPLINE_MAX_SIDE
      || (int64_t) atlas->width * atlas->height > INT32_MAX) {
    free (atlas);
    return BSPLINE_OK;
  }
  atlas->index = malloc ((size_t) atlas->width * atlas->height
      * sizeof (*atlas->index));
  if (!atlas->index) {
    free (atlas);
    return BSPLINE_ERROR_NO_MEMORY;
  }
  if (type == BSPLINE_PROJECTION_EQUIRECT) {
    equirect_table (atlas);
    stage->post[2] += M;
    stage->post[5] += M;
  } else {
    cube_table (atlas, in, post, face_size);
    /* the map's (a, b) now span the atlas (bspline_projection_atlas_point) */
    in->range_x = fw / atlas->tile_width;
    in->range_y = fh / atlas->tile_height;
    stage->post[0] = stage->post[2] = 0.5 * atlas->width;
    stage->post[4] = stage->post[5] = 0.5 * atlas->height;
  }
  *out = atlas;
  return BSPLINE_OK;
}

typedef struct
{
  const bspline_atlas *atlas;
  const bspline_image *src, *dst;
  size_t pixel;
  int x0, y0, width;            /* the part of the atlas gathered */
} gather_task;

static void
gather_rows (void *ctx, int task, int worker)
{
  const gather_task *g = ctx;
  const bspline_atlas *atlas = g->atlas;
  const int y = g->y0 + task;
  const int32_t *index = atlas->index + (size_t) y * atlas->width;
  unsigned char *out = (unsigned char *) g->dst->data
      + (ptrdiff_t) y * g->dst->stride;
  const unsigned char *in = g->src->data;
  int x;
  (void) worker;

  for (x = g->x0; x < g->x0 + g->width; x++) {
    int32_t i = index[x];
    const unsigned char *p = in + (ptrdiff_t) (i / atlas->frame_width)
        * g->src->stride + (size_t) (i % atlas->frame_width) * g->pixel;
    memcpy (out + (size_t) x * g->pixel, p, g->pixel);
  }
}

void
bspline_atlas_gather (bspline_pool * pool, const bspline_atlas * atlas,
    const bspline_image * src, const bspline_image * dst, const int *window)
{
  gather_task g;
  g.atlas = atlas;
  g.src = src;
  g.dst = dst;
  g.pixel = bspline_sample_size (src->type) * (size_t) src->channels;
  g.x0 = window ? window[0] : 0;
  g.y0 = window ? window[1] : 0;
  g.width = window ? window[2] : atlas->width;
  bspline_pool_run (pool, window ? window[3] : atlas->height, gather_rows,
      &g);
}
