/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GStreamer
 * Copyright (C) 2026 gst-bspline contributors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * This library is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Library General Public License for more details.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstbsplinewarpprivate.h"
#include "gstbsplinechain.h"

#define GST_CAT_DEFAULT gst_bspline_warp_debug

/* "custom" means the geometry properties alone define the transform. */
bspline_orientation
gst_bspline_warp_orientation (const GstBSplineWarpSettings * s)
{
  GstVideoOrientationMethod method = s->video_direction;

  if (method == GST_VIDEO_ORIENTATION_AUTO)
    method = s->tag_direction;

  switch (method) {
    case GST_VIDEO_ORIENTATION_90R:
      return BSPLINE_ORIENT_ROTATE_90;
    case GST_VIDEO_ORIENTATION_180:
      return BSPLINE_ORIENT_ROTATE_180;
    case GST_VIDEO_ORIENTATION_90L:
      return BSPLINE_ORIENT_ROTATE_270;
    case GST_VIDEO_ORIENTATION_HORIZ:
      return BSPLINE_ORIENT_FLIP_HORIZONTAL;
    case GST_VIDEO_ORIENTATION_VERT:
      return BSPLINE_ORIENT_FLIP_VERTICAL;
    case GST_VIDEO_ORIENTATION_UL_LR:
      return BSPLINE_ORIENT_TRANSPOSE;
    case GST_VIDEO_ORIENTATION_UR_LL:
      return BSPLINE_ORIENT_ANTI_TRANSPOSE;
    default:
      return BSPLINE_ORIENT_IDENTITY;
  }
}

/* The geometry of a frame: the settings and the negotiated sizes.  With
 * add-borders and different display aspect ratios, the reoriented input
 * goes onto the centred rectangle that keeps its DAR, exactly as
 * videoscale computes its borders. */
void
gst_bspline_warp_geometry (const GstVideoInfo * in_info,
    const GstVideoInfo * out_info, const GstBSplineWarpSettings * s,
    bspline_geometry * geometry)
{
  gint in_w, in_h, in_par_n, in_par_d;
  gint from_dar_n, from_dar_d, to_dar_n, to_dar_d, n, d;
  gint out_w = GST_VIDEO_INFO_WIDTH (out_info);
  gint out_h = GST_VIDEO_INFO_HEIGHT (out_info);
  gint borders_w = 0, borders_h = 0;

  bspline_geometry_init (geometry, GST_VIDEO_INFO_WIDTH (in_info),
      GST_VIDEO_INFO_HEIGHT (in_info), out_w, out_h);
  geometry->orientation = gst_bspline_warp_orientation (s);

  bspline_geometry_oriented_size (geometry, &in_w, &in_h);
  in_par_n = GST_VIDEO_INFO_PAR_N (in_info);
  in_par_d = GST_VIDEO_INFO_PAR_D (in_info);
  if (bspline_orientation_swaps_axes (geometry->orientation)) {
    in_par_n = GST_VIDEO_INFO_PAR_D (in_info);
    in_par_d = GST_VIDEO_INFO_PAR_N (in_info);
  }

  if (s->add_borders
      && gst_util_fraction_multiply (in_w, in_h, in_par_n, in_par_d,
          &from_dar_n, &from_dar_d)
      && gst_util_fraction_multiply (out_w, out_h,
          GST_VIDEO_INFO_PAR_N (out_info), GST_VIDEO_INFO_PAR_D (out_info),
          &to_dar_n, &to_dar_d)
      && (from_dar_n != to_dar_n || from_dar_d != to_dar_d)
      && gst_util_fraction_multiply (from_dar_n, from_dar_d,
          GST_VIDEO_INFO_PAR_D (out_info), GST_VIDEO_INFO_PAR_N (out_info),
          &n, &d)) {
    gint to_h = (gint) gst_util_uint64_scale_int (out_w, d, n);

    if (to_h <= out_h)
      borders_h = out_h - to_h;
    else
      borders_w = out_w - (gint) gst_util_uint64_scale_int (out_h, n, d);
    /* a picture thinner than a pixel (320x240 into 1x1) still gets one
     * row or column, as videoscale does: a rectangle of no pixel has no
     * scaling (a singular matrix) */
    borders_w = MIN (borders_w, out_w - 1);
    borders_h = MIN (borders_h, out_h - 1);
  }

  geometry->rect_x = borders_w / 2;
  geometry->rect_y = borders_h / 2;
  geometry->rect_width = out_w - borders_w;
  geometry->rect_height = out_h - borders_h;
  geometry->rotation = s->rotation;
  geometry->zoom = s->zoom;
  geometry->translate_x = s->translate_x;
  geometry->translate_y = s->translate_y;
  geometry->pivot_x = s->pivot_x;
  geometry->pivot_y = s->pivot_y;
  geometry->use_matrix = s->use_matrix;
  memcpy (geometry->matrix, s->matrix, sizeof (geometry->matrix));
  gst_bspline_settings_lens_geometry (&s->lens, geometry);
  /* the map itself is the streaming thread's (prepare_frame) */
  if (s->stmap_set && geometry->lens_model == BSPLINE_LENS_NONE)
    geometry->lens_model = BSPLINE_LENS_STMAP;
  if (s->projection_in > 0) {
    geometry->projection_set = 1;
    bspline_projection_params_init (&geometry->projection);
    geometry->projection.in = s->projection_in - 1;
    if (s->projection_out > 0)
      geometry->projection.out = s->projection_out - 1;
    geometry->projection.yaw = s->yaw;
    geometry->projection.pitch = s->pitch;
    geometry->projection.roll = s->roll;
    geometry->projection.h_fov = s->h_fov;
    geometry->projection.v_fov = s->v_fov;
    geometry->projection.ih_fov = s->ih_fov;
    geometry->projection.iv_fov = s->iv_fov;
  }
}

gboolean
gst_bspline_warp_is_identity (const GstVideoInfo * in_info,
    const GstVideoInfo * out_info, const GstBSplineWarpSettings * s)
{
  bspline_geometry geometry;

  gst_bspline_warp_geometry (in_info, out_info, s, &geometry);
  return geometry.orientation == BSPLINE_ORIENT_IDENTITY
      && bspline_geometry_is_pure_orientation (&geometry);
}

static gboolean
gst_bspline_warp_params_equal (const bspline_params * a,
    const bspline_params * b)
{
  return a->method == b->method && a->order == b->order
      && a->bicubic_a == b->bicubic_a && a->boundary == b->boundary
      && memcmp (a->fill, b->fill, sizeof (a->fill)) == 0
      && a->precision == b->precision && a->antialias == b->antialias;
}

/* The map of layout plane i: the geometry through the output plane's grid,
 * then the input plane's own grid where a crop starting inside a chroma
 * sample moved it (shift, in input plane pixels). */
static bspline_status
gst_bspline_warp_plane_map (const bspline_geometry * geometry,
    const GstBSplineLayout * in, const GstBSplineLayout * out, guint i,
    gdouble inverse[9], bspline_lens * lens, gboolean * shifted, gchar * msg,
    gsize msg_len)
{
  const bspline_plane_grid *grid = &out->grid[i];
  gdouble shift_x = (grid->offset_x - in->grid[i].offset_x) / grid->sub_x;
  gdouble shift_y = (grid->offset_y - in->grid[i].offset_y) / grid->sub_y;
  bspline_status status;
  guint k;

  *shifted = shift_x != 0.0 || shift_y != 0.0;
  status = bspline_geometry_plane_map (geometry, grid, inverse, lens, msg,
      msg_len);
  if (status != BSPLINE_OK || !*shifted)
    return status;
  if (lens->model == BSPLINE_LENS_NONE) {
    for (k = 0; k < 3; k++) {
      inverse[k] += shift_x * inverse[6 + k];
      inverse[3 + k] += shift_y * inverse[6 + k];
    }
  } else {
    for (k = 0; k < 3; k++) {
      lens->post[k] += shift_x * lens->post[6 + k];
      lens->post[3 + k] += shift_y * lens->post[6 + k];
    }
  }
  return BSPLINE_OK;
}

/* The map of layout plane i with the stages the buffer asks for (its warp
 * chain, its affine transformation meta), where it has any, composed into
 * it (gstbsplinechain.h): inverse, then n_lenses lens and STMap stages. */
static bspline_status
gst_bspline_warp_plane_chain (const bspline_geometry * geometry,
    const GstBSplineLayout * in, const GstBSplineLayout * out, guint i,
    const bspline_chain_stage * chain, guint n_chain, gdouble inverse[9],
    bspline_lens lenses[BSPLINE_CHAIN_MAX_LENSES], gint * n_lenses,
    gboolean * shifted, gchar * msg, gsize msg_len)
{
  bspline_status status;

  if (n_chain > 0) {
    *shifted = TRUE;            /* no longer a copy of samples */
    return gst_bspline_chain_plane_map (geometry, &out->grid[i],
        &in->grid[i], chain, n_chain, inverse, lenses, n_lenses, msg, msg_len);
  }
  memset (lenses, 0, sizeof (bspline_lens) * BSPLINE_CHAIN_MAX_LENSES);
  status = gst_bspline_warp_plane_map (geometry, in, out, i, inverse,
      &lenses[0], shifted, msg, msg_len);
  *n_lenses = lenses[0].model != BSPLINE_LENS_NONE;
  return status;
}

/* Brings the plan of every plane of the buffer's layout up to date with
 * the frame's settings and the buffer's warp chain: a plan is rebuilt only
 * when its parameters, its map or its sizes changed. */
GstFlowReturn
gst_bspline_warp_planes_update (GstBSplineWarp * self,
    const bspline_geometry * geometry, GstBSplineFields fields,
    const bspline_chain_stage * chain, guint n_chain)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  const GstVideoInfo *in_info = &filter->in_info;
  const GstVideoInfo *out_info = &filter->out_info;
  const GstBSplineLayout *in = &self->planes.in_layout[fields];
  const GstBSplineLayout *out = &self->planes.out_layout[fields];
  const GstBSplineWarpSettings *s = &self->frame;
  gboolean pure = bspline_geometry_is_pure_orientation (geometry);
  bspline_status status = BSPLINE_OK;
  gchar msg[256] = "";
  guint p;

  for (p = 0; p < in->n_planes; p++) {
    GstBSplineWarpPlane *plane = &self->planes.plane[fields][p];
    const bspline_image *src = &in->plane[p], *dst = &out->plane[p];
    bspline_params params;
    bspline_lens lenses[BSPLINE_CHAIN_MAX_LENSES];
    gint n_lenses;
    gdouble inverse[9];
    gboolean shifted;

    if (dst->height == 0) {
      bspline_plan_free (plane->plan);
      memset (plane, 0, sizeof (*plane));
      plane->empty = TRUE;
      plane->valid = TRUE;
      continue;
    }
    status = gst_bspline_warp_plane_chain (geometry, in, out, p, chain,
        n_chain, inverse, lenses, &n_lenses, &shifted, msg, sizeof (msg));
    if (status != BSPLINE_OK)
      goto bad_plan;
    if (pure && !shifted
        && bspline_geometry_plane_orients_exactly (geometry, &out->grid[p])) {
      bspline_plan_free (plane->plan);
      memset (plane, 0, sizeof (*plane));
      plane->exact = TRUE;
      plane->valid = TRUE;
      continue;
    }

    gst_bspline_settings_plane_params (&s->resample, in_info,
        in->plane_base[p], src, &params);
    gst_bspline_layout_fill (in, p, s->resample.fill_color, params.fill);
    if (plane->valid && !plane->exact
        && gst_bspline_warp_params_equal (&params, &plane->params)
        && memcmp (inverse, plane->inverse, sizeof (inverse)) == 0
        && n_lenses == plane->n_lenses
        && memcmp (lenses, plane->lenses, n_lenses * sizeof (lenses[0])) == 0
        && plane->src_width == src->width && plane->src_height == src->height
        && plane->dst_width == dst->width && plane->dst_height == dst->height
        && plane->channels == src->channels)
      continue;

    bspline_plan_free (plane->plan);
    memset (plane, 0, sizeof (*plane));
    status = bspline_plan_new_chain (&params, inverse, lenses, n_lenses,
        src->width, src->height, dst->width, dst->height, src->channels,
        &plane->plan, msg, sizeof (msg));
    if (status != BSPLINE_OK)
      goto bad_plan;
    plane->params = params;
    memcpy (plane->inverse, inverse, sizeof (inverse));
    memcpy (plane->lenses, lenses, sizeof (lenses));
    plane->n_lenses = n_lenses;
    plane->src_width = src->width;
    plane->src_height = src->height;
    plane->dst_width = dst->width;
    plane->dst_height = dst->height;
    plane->channels = src->channels;
    plane->valid = TRUE;
    GST_DEBUG_OBJECT (self, "plane %u (fields %d): %dx%d -> %dx%d, %s path",
        p, fields, src->width, src->height, dst->width, dst->height,
        bspline_plan_is_separable (plane->plan) ? "separable" : "warp");
  }
  return GST_FLOW_OK;

  /* ERRORS */
bad_plan:
  {
    if (status == BSPLINE_ERROR_NO_MEMORY)
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Not enough memory to resample %dx%d into %dx%d.",
              GST_VIDEO_INFO_WIDTH (in_info), GST_VIDEO_INFO_HEIGHT (in_info),
              GST_VIDEO_INFO_WIDTH (out_info),
              GST_VIDEO_INFO_HEIGHT (out_info)), ("%s", msg));
    else if (n_chain > 0)
      GST_ELEMENT_ERROR (self, STREAM, FORMAT,
          ("The buffer's warp chain cannot be resampled with this element's "
              "geometry: %s.", msg),
          ("%u stages before the element's (its GstBSplineChainMeta, and "
              "its affine transformation meta with use-meta); one "
              "resampling takes %d lens or STMap stages; %s",
              n_chain, BSPLINE_CHAIN_MAX_LENSES,
              bspline_status_string (status)));
    else if (geometry->lens_model == BSPLINE_LENS_STMAP
        && (status == BSPLINE_ERROR_INVALID_TRANSFORM
            || status == BSPLINE_ERROR_INVALID_ARGUMENT)) {
      /* the map in use (the old one while a new one is read) */
      const gchar *path = self->stmap.map_location;

      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
          ("stmap-location=%s cannot be used: %s.", path, msg),
          ("%dx%d -> %dx%d", GST_VIDEO_INFO_WIDTH (in_info),
              GST_VIDEO_INFO_HEIGHT (in_info), GST_VIDEO_INFO_WIDTH (out_info),
              GST_VIDEO_INFO_HEIGHT (out_info)));
    } else if (geometry->lens_model != BSPLINE_LENS_NONE
        && (status == BSPLINE_ERROR_INVALID_TRANSFORM
            || status == BSPLINE_ERROR_INVALID_ARGUMENT)) {
      gchar *lens = gst_bspline_settings_lens_describe (&s->lens);
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
          ("The lens stage cannot be used: %s (%s).", msg, lens),
          ("%dx%d -> %dx%d", GST_VIDEO_INFO_WIDTH (in_info),
              GST_VIDEO_INFO_HEIGHT (in_info), GST_VIDEO_INFO_WIDTH (out_info),
              GST_VIDEO_INFO_HEIGHT (out_info)));
      g_free (lens);
    } else if (status == BSPLINE_ERROR_INVALID_TRANSFORM)
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
          ("The geometry cannot be used: %s.", msg),
          ("rotation=%g zoom=%g translate=(%g, %g) pivot=(%g, %g) "
              "matrix %s; a matrix must be finite and invertible.",
              s->rotation, s->zoom, s->translate_x, s->translate_y,
              s->pivot_x, s->pivot_y, s->use_matrix ? "set" : "unset"));
    else
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
          ("Could not plan the resampling: %s.", msg),
          ("bspline_plan_new: %s", bspline_status_string (status)));
    return GST_FLOW_ERROR;
  }
}

/* The fields of a buffer of the input caps: none (progressive), both
 * (an interlaced frame), or the one an alternate-mode buffer holds.
 * FALSE for an alternate-mode buffer flagged as neither field (it is
 * then taken as the top field, as videoscale takes it: a field image). */
static gboolean
gst_bspline_warp_buffer_fields (const GstVideoInfo * info, GstBuffer * buffer,
    GstBSplineFields * fields)
{
  *fields = GST_BSPLINE_FIELDS_NONE;
  switch (GST_VIDEO_INFO_INTERLACE_MODE (info)) {
    case GST_VIDEO_INTERLACE_MODE_INTERLEAVED:
      *fields = GST_BSPLINE_FIELDS_BOTH;
      break;
    case GST_VIDEO_INTERLACE_MODE_MIXED:
      if (GST_BUFFER_FLAG_IS_SET (buffer, GST_VIDEO_BUFFER_FLAG_INTERLACED))
        *fields = GST_BSPLINE_FIELDS_BOTH;
      break;
    case GST_VIDEO_INTERLACE_MODE_ALTERNATE:
      if (GST_VIDEO_BUFFER_IS_TOP_FIELD (buffer))
        *fields = GST_BSPLINE_FIELDS_TOP;
      else if (GST_VIDEO_BUFFER_IS_BOTTOM_FIELD (buffer))
        *fields = GST_BSPLINE_FIELDS_BOTTOM;
      else {
        *fields = GST_BSPLINE_FIELDS_TOP;
        return FALSE;
      }
      break;
    default:
      break;
  }
  return TRUE;
}

/* The layouts of the buffer (its fields, its crop meta, the size its
 * GstVideoMeta gives), made again where they changed. */
GstFlowReturn
gst_bspline_warp_planes_layouts (GstBSplineWarp * self, GstBuffer * inbuf,
    GstBSplineFields * fields)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  GstVideoMeta *vmeta = gst_buffer_get_video_meta (inbuf);
  GstVideoCropMeta *cmeta = gst_buffer_get_video_crop_meta (inbuf);
  GstVideoRectangle crop, *c = NULL;
  gint in_w = GST_VIDEO_INFO_WIDTH (&filter->in_info);
  gint in_h = GST_VIDEO_INFO_HEIGHT (&filter->in_info);
  gint out_w = GST_VIDEO_INFO_WIDTH (&filter->out_info);
  gint out_h = GST_VIDEO_INFO_HEIGHT (&filter->out_info);
  /* planar formats interleaved for the CPU engine; the GPU reads the
   * planes as they are */
  gboolean interleave = !gst_bspline_engine_on_gpu (&self->engine);
  gchar msg[256] = "";

  if (!gst_bspline_warp_buffer_fields (&filter->in_info, inbuf, fields)
      && !self->planes.warned_field) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("An alternate-mode buffer is flagged as neither the top nor the "
            "bottom field: taken as the top field."),
        ("interlace-mode=alternate: every buffer holds one field "
            "(GST_VIDEO_BUFFER_FLAG_TOP_FIELD or _BOTTOM_FIELD); warned once"));
    self->planes.warned_field = TRUE;
  }
  if (vmeta) {
    in_w = vmeta->width;
    in_h = vmeta->height;
  }
  if (cmeta) {
    crop.x = cmeta->x;
    crop.y = cmeta->y;
    crop.w = cmeta->width;
    crop.h = cmeta->height;
    c = &crop;
  }
  if (!gst_bspline_layout_matches (&self->planes.in_layout[*fields], *fields, c,
          in_w, in_h, interleave)) {
    if (!gst_bspline_layout_init (&self->planes.in_layout[*fields],
            &filter->in_info, self->planes.chroma_site, *fields, c, in_w, in_h,
            interleave, msg, sizeof (msg)))
      goto bad_layout;
    gst_bspline_layout_source_fields (&self->planes.in_layout[*fields]);
    GST_DEBUG_OBJECT (self, "%s: %s, %u planes (fields %d), crop %dx%d at "
        "(%d, %d) of %dx%d", GST_VIDEO_INFO_NAME (&filter->in_info),
        self->planes.in_layout[*fields].staged ? "unpacked" : "in place",
        self->planes.in_layout[*fields].n_planes, *fields,
        self->planes.in_layout[*fields].crop.w,
        self->planes.in_layout[*fields].crop.h,
        self->planes.in_layout[*fields].crop.x,
        self->planes.in_layout[*fields].crop.y, in_w, in_h);
  }
  if (!gst_bspline_layout_matches (&self->planes.out_layout[*fields], *fields,
          NULL, out_w, out_h, interleave)
      && !gst_bspline_layout_init (&self->planes.out_layout[*fields],
          &filter->out_info, self->planes.chroma_site, *fields, NULL, out_w,
          out_h, interleave, msg, sizeof (msg)))
    goto bad_layout;
  return GST_FLOW_OK;

  /* ERRORS */
bad_layout:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The buffer's planes cannot be resampled: %s.", msg),
        ("%s %dx%d, %s", GST_VIDEO_INFO_NAME (&filter->in_info),
            GST_VIDEO_INFO_WIDTH (&filter->in_info),
            GST_VIDEO_INFO_HEIGHT (&filter->in_info),
            gst_video_interlace_mode_to_string (GST_VIDEO_INFO_INTERLACE_MODE
                (&filter->in_info))));
    return GST_FLOW_ERROR;
  }
}

/* Runs plane p of the layout on the CPU (exact reorientation or the
 * plan). */
GstFlowReturn
gst_bspline_warp_planes_run_on_cpu (GstBSplineWarp * self,
    const bspline_geometry * geometry, GstBSplineFields fields, guint p,
    const bspline_image * src, const bspline_image * dst)
{
  const GstBSplineWarpPlane *plane = &self->planes.plane[fields][p];
  bspline_status status;
  gchar msg[256] = "";

  if (plane->empty)
    return GST_FLOW_OK;
  if (plane->exact) {
    status = bspline_orient_plane (geometry->orientation, src, dst, msg,
        sizeof (msg));
  } else {
    status = bspline_cpu_execute (self->engine.cpu, plane->plan, src, dst);
    if (status != BSPLINE_OK)
      g_strlcpy (msg, bspline_cpu_last_error (self->engine.cpu), sizeof (msg));
  }
  if (status != BSPLINE_OK)
    goto engine_failed;
  return GST_FLOW_OK;

  /* ERRORS */
engine_failed:
  {
    if (status == BSPLINE_ERROR_NO_MEMORY)
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Not enough memory to resample plane %u.", p), ("%s", msg));
    else
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("Resampling plane %u failed: %s.", p, msg),
          ("%s", bspline_status_string (status)));
    return GST_FLOW_ERROR;
  }
}

void
gst_bspline_warp_planes_reset (GstBSplineWarpPlanes * planes)
{
  guint f, p;

  for (f = 0; f < GST_BSPLINE_FIELDS_N; f++) {
    for (p = 0; p < GST_BSPLINE_LAYOUT_MAX_PLANES; p++) {
      bspline_plan_free (planes->plane[f][p].plan);
      memset (&planes->plane[f][p], 0, sizeof (planes->plane[f][p]));
    }
    memset (&planes->in_layout[f], 0, sizeof (planes->in_layout[f]));
    memset (&planes->out_layout[f], 0, sizeof (planes->out_layout[f]));
  }
}

void
gst_bspline_warp_planes_clear (GstBSplineWarpPlanes * planes)
{
  gst_bspline_warp_planes_reset (planes);
  gst_bspline_layout_frame_clear (&planes->cpu_in);
  gst_bspline_layout_frame_clear (&planes->cpu_out);
  planes->warned_field = FALSE;
}
