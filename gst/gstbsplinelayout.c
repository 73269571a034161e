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
/* gstbsplinelayout.c: see gstbsplinelayout.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstbsplinelayout.h"
#include "gstbsplineframe.h"

/* Rows of staging memory start on this many bytes. */
#define STAGING_ALIGN 64

/* The component (GST_VIDEO_COMP_*) of unpacked channel k: GStreamer's
 * unpack formats (AYUV, ARGB, AYUV64, ARGB64) hold A first. */
static guint
unpacked_component (guint k)
{
  return k == 0 ? GST_VIDEO_COMP_A : k - 1;
}

gboolean
gst_bspline_layout_format_is_native (GstVideoFormat format)
{
  const GstVideoFormatInfo *finfo = gst_video_format_get_info (format);
  guint c, k;

  if (finfo == NULL || GST_VIDEO_FORMAT_INFO_IS_COMPLEX (finfo)
      || GST_VIDEO_FORMAT_INFO_IS_TILED (finfo)
      || GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo))
    return FALSE;
  for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++) {
    guint depth = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c);
    guint bytes = depth > 8 ? 2 : 1;
    gint pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);

    /* the engines read 8-bit samples, or 16-bit ones in host order (every
     * machine this is built for is little-endian) */
    if (depth > 16 || (bytes == 1 && depth != 8)
        || (bytes == 2 && !GST_VIDEO_FORMAT_INFO_IS_LE (finfo))
        || (bytes == 1 && GST_VIDEO_FORMAT_INFO_SHIFT (finfo, c) != 0)
        || pstride <= 0 || pstride % bytes != 0
        || pstride / bytes > BSPLINE_MAX_CHANNELS)
      return FALSE;
    /* a plane's components alike (YUY2's luma and chroma are not), at
     * distinct offsets (1.22's Y412 and r210 give them all offset 0) */
    for (k = 0; k < c; k++) {
      if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, k) !=
          GST_VIDEO_FORMAT_INFO_PLANE (finfo, c))
        continue;
      if (GST_VIDEO_FORMAT_INFO_DEPTH (finfo, k) != depth
          || GST_VIDEO_FORMAT_INFO_SHIFT (finfo, k) !=
          GST_VIDEO_FORMAT_INFO_SHIFT (finfo, c)
          || GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, k) != pstride
          || GST_VIDEO_FORMAT_INFO_W_SUB (finfo, k) !=
          GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c)
          || GST_VIDEO_FORMAT_INFO_H_SUB (finfo, k) !=
          GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c)
          || GST_VIDEO_FORMAT_INFO_POFFSET (finfo, k) ==
          GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c))
        return FALSE;
    }
  }
  return TRUE;
}

gboolean
gst_bspline_layout_format_is_supported (GstVideoFormat format)
{
  const GstVideoFormatInfo *finfo = gst_video_format_get_info (format);

  if (finfo == NULL || format == GST_VIDEO_FORMAT_ENCODED
      || format == GST_VIDEO_FORMAT_UNKNOWN)
    return FALSE;
  if (gst_bspline_layout_format_is_native (format))
    return TRUE;
  return finfo->unpack_func != NULL && finfo->pack_func != NULL
      && GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo) <= 4;
}

gint
gst_bspline_layout_field_rows (gint height, gint sub_y, gint field)
{
  gint luma = (height - field + 1) / 2;

  return (luma + sub_y - 1) / sub_y;
}

/* The rows of a plane subsampled sub_y times in a frame of height rows:
 * with both fields in it, each field's own (video-format.c GET_UV_420:
 * field f has the plane's rows 2 k + f), so at a height that is not a
 * multiple of 2 sub_y the plane has a row more than the progressive
 * frame's (video-info.c rounds I420's interlaced chroma height up to
 * even for it). */
static gint
gst_bspline_layout_plane_rows (gint height, gint sub_y, gboolean both)
{
  if (!both)
    return (height + sub_y - 1) / sub_y;
  return gst_bspline_layout_field_rows (height, sub_y, 0)
      + gst_bspline_layout_field_rows (height, sub_y, 1);
}

/* The rows plane holds in GStreamer's own layout of an interlaced frame
 * of format (video-info.c): 1.22 rounds the interlaced chroma height up
 * to even for I420 and NV12, not for P010, P012 and P016, whose bottom
 * field then has a chroma row fewer than its luma rows subsample to
 * (video-format.c GET_UV_420 would put it past the plane). */
static gint
gst_bspline_layout_allocated_rows (const GstVideoInfo * packed, guint plane)
{
  gsize end = plane + 1 < GST_VIDEO_INFO_N_PLANES (packed) ?
      GST_VIDEO_INFO_PLANE_OFFSET (packed, plane + 1) :
      GST_VIDEO_INFO_SIZE (packed);
  gint stride = GST_VIDEO_INFO_PLANE_STRIDE (packed, plane);

  if (stride <= 0 || end <= GST_VIDEO_INFO_PLANE_OFFSET (packed, plane))
    return G_MAXINT;
  return (gint) ((end - GST_VIDEO_INFO_PLANE_OFFSET (packed, plane)) /
      (gsize) stride);
}

/* The staged planes of a format: one 4-channel plane (A first, as
 * unpacked) when no component is subsampled, one channel of gray, else
 * luma, chroma (both components, on their grid) and alpha apart. */
static void
gst_bspline_layout_stage (GstBSplineLayout * layout,
    const GstVideoInfo * full, GstVideoChromaSite site, gboolean both)
{
  const GstVideoFormatInfo *finfo = full->finfo;
  const GstVideoFormatInfo *ufinfo =
      gst_video_format_get_info (finfo->unpack_format);
  gboolean gray = GST_VIDEO_FORMAT_INFO_IS_GRAY (finfo);
  gboolean subsampled = !gray && !GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo)
      && (GST_VIDEO_FORMAT_INFO_W_SUB (finfo, 1) != 0
      || GST_VIDEO_FORMAT_INFO_H_SUB (finfo, 1) != 0);
  gint depth = GST_VIDEO_FORMAT_INFO_DEPTH (ufinfo, 0);
  gint w = GST_VIDEO_INFO_WIDTH (full);
  gint h = GST_VIDEO_INFO_COMP_HEIGHT (full, 0);
  gint bits = depth;
  bspline_image image;
  guint i;

  /* components of one depth below 16 bits (v210, P010_10BE, r210): the
   * engines read the unpacked sample's top bits, which are the code value
   * exactly, and write it back there, as for P010 */
  if (depth == 16 && !GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo)) {
    bits = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0);
    for (i = 1; i < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); i++)
      if ((gint) GST_VIDEO_FORMAT_INFO_DEPTH (finfo, i) != bits)
        bits = depth;
  }
  layout->unpack_depth = depth;
  for (i = 0; i < 4; i++) {
    guint c = unpacked_component (i);

    /* mixed depths (RGB16, Y410's 2-bit alpha) are resampled on the unpack
     * format's scale, each component scaled there and back exactly */
    layout->channel_depth[i] = depth;
    if (bits == depth && !GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo)
        && c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo)
        && (gint) GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c) < depth) {
      layout->channel_depth[i] = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c);
      layout->requantize = TRUE;
    }
  }
  memset (&image, 0, sizeof (image));
  image.type = depth > 8 ? BSPLINE_SAMPLE_U16 : BSPLINE_SAMPLE_U8;
  image.bits = bits;
  image.shift = depth - bits;
  image.width = w;
  image.height = h;
  for (i = 0; i < GST_VIDEO_MAX_PLANES; i++) {
    layout->base_grid[i].sub_x = layout->base_grid[i].sub_y = 1;
    layout->base_grid[i].offset_x = layout->base_grid[i].offset_y = 0.0;
  }

  if (gray) {
    image.channels = 1;
    layout->base[0] = image;
    layout->base_channel[0][0] = 1;
    layout->n_base = 1;
  } else if (!subsampled) {
    image.channels = 4;
    layout->base[0] = image;
    for (i = 0; i < 4; i++)
      layout->base_channel[0][i] = i;
    layout->n_base = 1;
  } else {
    image.channels = 1;
    layout->base[0] = image;
    layout->base_channel[0][0] = 1;
    image.channels = 2;
    image.width = GST_VIDEO_INFO_COMP_WIDTH (full, 1);
    gst_bspline_frame_component_grid (full, site, 1, &layout->base_grid[1]);
    image.height = gst_bspline_layout_plane_rows (h,
        layout->base_grid[1].sub_y, both);
    layout->base[1] = image;
    layout->base_channel[1][0] = 2;
    layout->base_channel[1][1] = 3;
    layout->n_base = 2;
    if (GST_VIDEO_FORMAT_INFO_HAS_ALPHA (finfo)) {
      image.channels = 1;
      image.width = w;
      image.height = h;
      layout->base[2] = image;
      layout->base_channel[2][0] = 0;
      layout->n_base = 3;
    }
  }
}

gboolean
gst_bspline_layout_matches (const GstBSplineLayout * layout,
    GstBSplineFields fields, const GstVideoRectangle * crop,
    gint buffer_width, gint buffer_height, gboolean interleave)
{
  GstVideoRectangle none = { 0, 0, GST_VIDEO_INFO_WIDTH (&layout->info),
    GST_VIDEO_INFO_HEIGHT (&layout->info)
  };

  if (crop == NULL)
    crop = &none;
  return layout->n_planes > 0 && layout->fields == fields
      && layout->interleave == interleave
      && layout->buffer_width == buffer_width
      && layout->buffer_height == buffer_height
      && memcmp (crop, &layout->crop, sizeof (*crop)) == 0;
}

/* The second and third components in planes of their own (I420, Y42B,
 * Y444, GBRA_10LE; not NV12 or AV12, whose chroma shares a plane). */
static gboolean
gst_bspline_layout_format_is_planar (const GstVideoFormatInfo * finfo)
{
  return GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo) >= 3
      && GST_VIDEO_FORMAT_INFO_PLANE (finfo, 1) !=
      GST_VIDEO_FORMAT_INFO_PLANE (finfo, 2);
}

gboolean
gst_bspline_layout_init (GstBSplineLayout * layout, const GstVideoInfo * info,
    GstVideoChromaSite site, GstBSplineFields fields,
    const GstVideoRectangle * crop, gint buffer_width, gint buffer_height,
    gboolean interleave, gchar * msg, gsize msg_len)
{
  gint width = GST_VIDEO_INFO_WIDTH (info);
  gint height = GST_VIDEO_INFO_HEIGHT (info);
  gboolean interlaced = fields != GST_BSPLINE_FIELDS_NONE;
  GstVideoInfo full;
  guint b, n = 0;
  gint max_sub_y = 1;

  memset (layout, 0, sizeof (*layout));
  layout->info = *info;
  layout->fields = fields;
  layout->buffer_width = buffer_width;
  layout->buffer_height = buffer_height;
  if (crop)
    layout->crop = *crop;
  else {
    layout->crop.w = width;
    layout->crop.h = height;
  }
  crop = &layout->crop;
  if (crop->w != width || crop->h != height || crop->x < 0 || crop->y < 0
      || crop->x > buffer_width - width || crop->y > buffer_height - height)
    goto bad_crop;

  full = *info;
  full.width = buffer_width;
  full.height = buffer_height;
  layout->interleave = interleave;
  layout->staged = !gst_bspline_layout_format_is_native (GST_VIDEO_INFO_FORMAT
      (info)) || (interleave
      && gst_bspline_layout_format_is_planar (info->finfo));
  layout->short_plane = -1;
  if (layout->staged) {
    gst_bspline_layout_stage (layout, &full, site,
        fields == GST_BSPLINE_FIELDS_BOTH);
    /* (tiles: the stride counts tiles, and the tile holds the rows) */
    if (fields == GST_BSPLINE_FIELDS_BOTH && layout->n_base > 1
        && !GST_VIDEO_FORMAT_INFO_IS_TILED (info->finfo)) {
      const GstVideoFormatInfo *finfo = info->finfo;
      GstVideoInfo packed;
      gint plane = GST_VIDEO_FORMAT_INFO_PLANE (finfo, 1), rows;

      gst_video_info_set_interlaced_format (&packed,
          GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INTERLACE_MODE_INTERLEAVED,
          buffer_width, buffer_height);
      rows = gst_bspline_layout_allocated_rows (&packed, plane);
      if (rows < layout->base[1].height) {
        layout->short_plane = plane;
        layout->short_rows = rows;
      }
    }
  } else {
    GstVideoInfo packed;

    gst_video_info_set_interlaced_format (&packed,
        GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INTERLACE_MODE_INTERLEAVED,
        buffer_width, buffer_height);
    layout->n_base = GST_VIDEO_INFO_N_PLANES (info);
    for (b = 0; b < layout->n_base; b++) {
      gst_bspline_frame_plane_image (&full, NULL, b, &layout->base[b]);
      gst_bspline_frame_plane_grid (info, site, b, &layout->base_grid[b]);
      if (fields == GST_BSPLINE_FIELDS_BOTH)
        layout->base[b].height = MIN (gst_bspline_layout_plane_rows
            (buffer_height, layout->base_grid[b].sub_y, TRUE),
            gst_bspline_layout_allocated_rows (&packed, b));
    }
  }
  for (b = 0; b < layout->n_base; b++)
    max_sub_y = MAX (max_sub_y, layout->base_grid[b].sub_y);

  /* fields of unequal rows (an odd height, or chroma rows the fields do
   * not share) are videoscale's: the top field has ceil (height / 2) rows
   * (video-scaler.c gst_video_scaler_new, GST_VIDEO_SCALER_FLAG_INTERLACED)
   * and each field's chroma rows subsample its own; a crop keeps the
   * fields and chroma rows */
  if (interlaced && crop->y % (2 * max_sub_y) != 0)
    goto bad_crop_fields;
  if ((fields == GST_BSPLINE_FIELDS_TOP || fields == GST_BSPLINE_FIELDS_BOTTOM)
      && crop->y != 0)
    goto bad_crop_fields;

  for (b = 0; b < layout->n_base; b++) {
    const bspline_image *base = &layout->base[b];
    bspline_plane_grid grid = layout->base_grid[b];
    gint first_x = crop->x / grid.sub_x, first_y = crop->y / grid.sub_y;
    gint last_x = (crop->x + width - 1) / grid.sub_x;
    gint rows = fields == GST_BSPLINE_FIELDS_TOP
        || fields == GST_BSPLINE_FIELDS_BOTTOM ? base->height
        : (crop->y + height - 1) / grid.sub_y - first_y + 1;
    gint f, first_field = 0, n_fields = 1;
    gsize bytes = bspline_sample_size (base->type) * base->channels;

    /* a crop starting inside a chroma sample: the grid takes the rest */
    grid.offset_x += grid.sub_x * first_x - crop->x;
    grid.offset_y += grid.sub_y * first_y - crop->y;
    if (fields == GST_BSPLINE_FIELDS_BOTH)
      n_fields = 2;
    else if (fields == GST_BSPLINE_FIELDS_BOTTOM)
      first_field = 1;

    for (f = first_field; f < first_field + n_fields; f++) {
      bspline_image *plane = &layout->plane[n];
      bspline_plane_grid *g = &layout->grid[n];

      *plane = *base;
      plane->width = last_x - first_x + 1;
      plane->height = rows;
      *g = grid;
      layout->plane_base[n] = b;
      layout->plane_field[n] = interlaced ? f : -1;
      layout->plane_offset[n] = (gint64) bytes * first_x;
      if (interlaced) {
        /* field f's row k sits at frame row 2 k + f of the plane's grid:
         * luma 2 sub_y (k + 0.5) + 2 offset_y + f - 0.5 */
        g->sub_y = 2 * grid.sub_y;
        g->offset_y = 2 * grid.offset_y + f - 0.5;
        /* the bottom field gets the rows GStreamer's layout has */
        if (fields == GST_BSPLINE_FIELDS_BOTH)
          plane->height = f == 0 ?
              gst_bspline_layout_field_rows (height, grid.sub_y, 0) :
              MIN (gst_bspline_layout_field_rows (height, grid.sub_y, 1),
              (b == 1 && layout->short_plane >= 0 ? layout->short_rows :
                  base->height) - crop->y / grid.sub_y -
              gst_bspline_layout_field_rows (height, grid.sub_y, 0));
      }
      n++;
    }
  }
  layout->n_planes = n;
  return TRUE;

  /* ERRORS */
bad_crop:
  {
    g_snprintf (msg, msg_len, "the crop meta's %dx%d at (%d, %d) is not "
        "the caps' %dx%d inside the %dx%d buffer", crop->w, crop->h,
        crop->x, crop->y, width, height, buffer_width, buffer_height);
    return FALSE;
  }
bad_crop_fields:
  {
    g_snprintf (msg, msg_len, "a crop of interlaced %s must start on a "
        "multiple of %d rows (it keeps the fields apart), not %d",
        GST_VIDEO_INFO_NAME (info), 2 * max_sub_y, crop->y);
    return FALSE;
  }
}

void
gst_bspline_layout_source_fields (GstBSplineLayout * layout)
{
  guint i;

  for (i = 1; i < layout->n_planes; i++)
    if (layout->plane[i].height == 0 && layout->plane_field[i] == 1
        && layout->plane_field[i - 1] == 0) {
      layout->plane[i] = layout->plane[i - 1];
      layout->grid[i] = layout->grid[i - 1];
      layout->plane_field[i] = 0;
    }
}

/* Room for the base planes in planes->staging; their images in base. */
static gboolean
gst_bspline_layout_staging (const GstBSplineLayout * layout,
    GstBSplineLayoutFrame * planes, bspline_image base[GST_VIDEO_MAX_PLANES])
{
  gsize size = 0, offset[GST_VIDEO_MAX_PLANES];
  guint b;

  for (b = 0; b < layout->n_base; b++) {
    base[b] = layout->base[b];
    base[b].stride = GST_ROUND_UP_N (base[b].width * base[b].channels *
        bspline_sample_size (base[b].type), STAGING_ALIGN);
    offset[b] = size;
    size += (gsize) base[b].stride * base[b].height;
  }
  if (planes->staging_size < size) {
    if (planes->free)
      planes->free (planes->staging);
    else
      g_free (planes->staging);
    planes->staging = planes->alloc ? planes->alloc (size) :
        g_try_malloc (size);
    planes->staging_size = planes->staging ? size : 0;
    if (planes->staging == NULL)
      return FALSE;
  }
  for (b = 0; b < layout->n_base; b++)
    base[b].data = planes->staging + offset[b];
  return TRUE;
}

/* The planes of layout on base images with data. */
static void
gst_bspline_layout_views (const GstBSplineLayout * layout,
    const bspline_image base[GST_VIDEO_MAX_PLANES],
    GstBSplineLayoutFrame * planes)
{
  guint i;

  for (i = 0; i < layout->n_planes; i++) {
    const bspline_image *b = &base[layout->plane_base[i]];
    const bspline_plane_grid *g = &layout->grid[i];
    bspline_image *plane = &planes->plane[i];
    gint first_y = 0;

    *plane = layout->plane[i];
    plane->stride = b->stride;
    if (layout->fields != GST_BSPLINE_FIELDS_TOP
        && layout->fields != GST_BSPLINE_FIELDS_BOTTOM) {
      gint sub_y = layout->plane_field[i] >= 0 ? g->sub_y / 2 : g->sub_y;
      first_y = layout->crop.y / sub_y;
    }
    if (layout->fields == GST_BSPLINE_FIELDS_BOTH) {
      first_y += layout->plane_field[i];
      plane->stride = 2 * b->stride;
    }
    plane->data = (guint8 *) b->data + first_y * b->stride
        + layout->plane_offset[i];
  }
}

static GstVideoPackFlags
gst_bspline_layout_pack_flags (const GstBSplineLayout * layout)
{
  return layout->fields == GST_BSPLINE_FIELDS_BOTH ?
      GST_VIDEO_PACK_FLAG_INTERLACED : GST_VIDEO_PACK_FLAG_NONE;
}

/* The chroma row of luma row y as GStreamer's (un)pack functions take it
 * (video-format.c GET_UV_420: interlaced 4:2:0 alternates the fields'
 * chroma rows), and whether y is the first luma row of it. */
static gint
gst_bspline_layout_chroma_row (const GstBSplineLayout * layout, gint y,
    gboolean * first)
{
  gint sub = layout->base_grid[1].sub_y;

  if (sub > 1 && layout->fields == GST_BSPLINE_FIELDS_BOTH) {
    /* GET_UV_420 and GET_UV_410: field y & 1's row (y / 2) / sub */
    *first = (y / 2) % sub == 0;
    return y / (2 * sub) * 2 + (y & 1);
  }
  *first = y % sub == 0;
  return y / sub;
}

/* Mixed depths: a component of `bits` bits on the unpack format's scale
 * of `depth` bits.  GStreamer's unpack functions put the code value in the
 * top bits and fill the rest their own way (RGB10A2's alpha 3 unpacks to
 * 0xc030, not 0xffff), so the value is read from the top bits and put on
 * the scale linearly, q (2^depth - 1) / (2^bits - 1) rounded; the pack
 * functions read the top bits of the value rounded back. */
static inline guint
gst_bspline_layout_scale_up (guint v, gint depth, gint bits)
{
  guint64 q = v >> (depth - bits);
  guint64 max_bits = (1u << bits) - 1, max_depth = (1u << depth) - 1;

  return (guint) ((q * max_depth * 2 + max_bits) / (2 * max_bits));
}

static inline guint
gst_bspline_layout_scale_down (guint v, gint depth, gint bits)
{
  guint64 max_bits = (1u << bits) - 1, max_depth = (1u << depth) - 1;
  guint64 q = ((guint64) v * max_bits * 2 + max_depth) / (2 * max_depth);

  return (guint) (q << (depth - bits));
}

/* Both scalings as tables, one per (depth, bits, direction), made once
 * for the process: up indexed by the unpacked value, down by the value on
 * the scale. */
static const guint16 *
gst_bspline_layout_scale_table (gint depth, gint bits, gboolean up)
{
  static guint16 *tables[2][17][17];
  static GMutex lock;
  guint16 *table;

  g_mutex_lock (&lock);
  table = tables[up][depth][bits];
  if (table == NULL) {
    guint v, n = 1u << depth;

    table = g_new (guint16, n);
    for (v = 0; v < n; v++)
      table[v] = up ? gst_bspline_layout_scale_up (v, depth, bits) :
          gst_bspline_layout_scale_down (v, depth, bits);
    tables[up][depth][bits] = table;
  }
  g_mutex_unlock (&lock);
  return table;
}

/* Scales the unpacked channels of a row of width pixels that have fewer
 * bits than the unpack format, up (unpacking) or down (packing). */
static void
gst_bspline_layout_rescale_row (const GstBSplineLayout * layout,
    gpointer row, gint width, gboolean up)
{
  gint D = layout->unpack_depth, x, k;

  for (k = 0; k < 4; k++) {
    gint bits = layout->channel_depth[k];
    const guint16 *table;

    if (bits == D)
      continue;
    table = gst_bspline_layout_scale_table (D, bits, up);
    if (D > 8) {
      guint16 *v = (guint16 *) row + k;
      for (x = 0; x < width; x++)
        v[4 * x] = table[v[4 * x]];
    } else {
      guint8 *v = (guint8 *) row + k;
      for (x = 0; x < width; x++)
        v[4 * x] = table[v[4 * x]];
    }
  }
}

/* The rows [first, last) of a staged frame, and what moves them. */
typedef struct _GstBSplineLayoutRows GstBSplineLayoutRows;
typedef void (*GstBSplineLayoutRowsFunc) (GstBSplineLayoutRows * rows);

struct _GstBSplineLayoutRows
{
  const GstBSplineLayout *layout;
  GstVideoFrame *frame;
  const bspline_image *base;
  gint first, last;
  GstBSplineLayoutRowsFunc func;
  gpointer job;                 /* GstBSplineLayoutJob */
};

/* The bands of one frame in flight on the workers: how many are left. */
typedef struct
{
  GMutex lock;
  GCond done;
  guint left;
} GstBSplineLayoutJob;

static void
gst_bspline_layout_rows_work (gpointer data, G_GNUC_UNUSED gpointer unused)
{
  GstBSplineLayoutRows *rows = data;
  GstBSplineLayoutJob *job = rows->job;

  rows->func (rows);
  g_mutex_lock (&job->lock);
  if (--job->left == 0)
    g_cond_signal (&job->done);
  g_mutex_unlock (&job->lock);
}

/* The process's workers for bands, shared (GLib keeps their threads for
 * the next frame instead of starting new ones); NULL where none start. */
static GThreadPool *
gst_bspline_layout_workers (void)
{
  static GThreadPool *workers = NULL;

  if (g_once_init_enter (&workers)) {
    GThreadPool *pool = g_thread_pool_new (gst_bspline_layout_rows_work,
        NULL, GST_BSPLINE_LAYOUT_MAX_THREADS, FALSE, NULL);

    g_once_init_leave (&workers, pool);
  }
  return workers;
}

/* Runs func over the frame's rows in n_threads bands (the unpack and pack
 * functions take one row at a time and share nothing), the first on the
 * calling thread, the others on the shared workers; small frames, and
 * bands the workers do not take, run on the calling thread. */
static void
gst_bspline_layout_run_rows (const GstBSplineLayout * layout,
    GstVideoFrame * frame, const bspline_image * base, guint n_threads,
    GstBSplineLayoutRowsFunc func)
{
  GstBSplineLayoutRows bands[GST_BSPLINE_LAYOUT_MAX_THREADS];
  GThreadPool *workers = gst_bspline_layout_workers ();
  GstBSplineLayoutJob job;
  gint rows = base[0].height, step;
  guint i, n;

  /* under a quarter megapixel a band costs more than it saves; the bands
   * start on multiples of 8 rows, so interlaced 4:2:0 and 4:1:0 chroma
   * rows (video-format.c GET_UV_420, GET_UV_410) stay in one band */
  n = CLAMP (n_threads, 1, GST_BSPLINE_LAYOUT_MAX_THREADS);
  if ((gint64) rows * layout->buffer_width < 256 * 1024 || workers == NULL)
    n = 1;
  step = GST_ROUND_UP_8 ((rows + n - 1) / n);
  g_mutex_init (&job.lock);
  g_cond_init (&job.done);
  job.left = 0;
  for (i = 0; i < n; i++) {
    bands[i].layout = layout;
    bands[i].frame = frame;
    bands[i].base = base;
    bands[i].first = MIN (rows, (gint) i * step);
    bands[i].last = MIN (rows, (gint) (i + 1) * step);
    bands[i].func = func;
    bands[i].job = &job;
  }
  g_mutex_lock (&job.lock);
  for (i = 1; i < n; i++) {
    job.left++;
    if (!g_thread_pool_push (workers, &bands[i], NULL)) {
      job.left--;
      g_mutex_unlock (&job.lock);
      func (&bands[i]);
      g_mutex_lock (&job.lock);
    }
  }
  g_mutex_unlock (&job.lock);
  func (&bands[0]);
  g_mutex_lock (&job.lock);
  while (job.left > 0)
    g_cond_wait (&job.done, &job.lock);
  g_mutex_unlock (&job.lock);
  g_mutex_clear (&job.lock);
  g_cond_clear (&job.done);
}

/* Staged planes <-> unpacked rows (A, then the three components), one
 * sample type: luma, chroma on its subsampled grid, alpha; or gray; or
 * the 4 channels as unpacked, which need no copy. */
#define LAYOUT_SCATTER(T) \
  G_STMT_START { \
    const T *l = line; \
    T *Y = (T *) ((guint8 *) base[0].data + (gsize) y * base[0].stride); \
    for (x = 0; x < base[0].width; x++) \
      Y[x] = l[4 * x + 1]; \
    if (layout->n_base > 1 && chroma_line) { \
      T *C = (T *) ((guint8 *) base[1].data + \
          (gsize) chroma_row * base[1].stride); \
      for (x = 0; x < base[1].width; x++) { \
        C[2 * x] = l[4 * x * sub + 2]; \
        C[2 * x + 1] = l[4 * x * sub + 3]; \
      } \
    } \
    if (layout->n_base > 2) { \
      T *A = (T *) ((guint8 *) base[2].data + (gsize) y * base[2].stride); \
      for (x = 0; x < base[2].width; x++) \
        A[x] = l[4 * x]; \
    } \
  } G_STMT_END

#define LAYOUT_GATHER(T) \
  G_STMT_START { \
    T *l = line; \
    const T *Y = (const T *) ((const guint8 *) base[0].data + \
        (gsize) y * base[0].stride); \
    const T *C = layout->n_base > 1 ? (const T *) ((const guint8 *) \
        base[1].data + (gsize) chroma_row * base[1].stride) : NULL; \
    const T *A = layout->n_base > 2 ? (const T *) ((const guint8 *) \
        base[2].data + (gsize) y * base[2].stride) : NULL; \
    for (x = 0; x < width; x++) { \
      l[4 * x] = A ? A[x] : opaque; \
      l[4 * x + 1] = Y[x]; \
      l[4 * x + 2] = C ? C[2 * (x / sub)] : neutral; \
      l[4 * x + 3] = C ? C[2 * (x / sub) + 1] : neutral; \
    } \
  } G_STMT_END

/* Where layout->short_plane lacks the bottom field's last chroma row: a
 * row of memory for it, and the frame's planes (data, stride) with that
 * plane on it (stride 0: every row of the plane is that row); NULL
 * where no plane is short. */
static guint8 *
gst_bspline_layout_spare_row (const GstBSplineLayout * layout,
    GstVideoFrame * frame, gpointer data[GST_VIDEO_MAX_PLANES],
    gint stride[GST_VIDEO_MAX_PLANES])
{
  guint8 *spare;
  guint p;

  if (layout->short_plane < 0)
    return NULL;
  spare = g_malloc0 ((gsize) ABS (frame->info.stride[layout->short_plane]));
  for (p = 0; p < GST_VIDEO_MAX_PLANES; p++) {
    data[p] = frame->data[p];
    stride[p] = frame->info.stride[p];
  }
  data[layout->short_plane] = spare;
  stride[layout->short_plane] = 0;
  return spare;
}

static void
gst_bspline_layout_unpack_rows (GstBSplineLayoutRows * rows)
{
  const GstBSplineLayout *layout = rows->layout;
  const GstVideoFormatInfo *finfo = layout->info.finfo;
  const bspline_image *base = rows->base;
  GstVideoFrame *frame = rows->frame;
  GstVideoPackFlags flags = gst_bspline_layout_pack_flags (layout);
  gint width = layout->buffer_width, sub = layout->base_grid[1].sub_x;
  gboolean direct = layout->n_base == 1 && base[0].channels == 4;
  gpointer line = direct ? NULL : g_malloc ((gsize) width * 4 * 2);
  gpointer data[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
  guint8 *spare = gst_bspline_layout_spare_row (layout, frame, data, stride);
  gint y, x;

  for (y = rows->first; y < rows->last; y++) {
    gboolean chroma_line = FALSE;
    gint chroma_row = 0;

    if (direct) {
      gpointer row = (guint8 *) base[0].data + (gsize) y * base[0].stride;

      finfo->unpack_func (finfo, flags, row, frame->data, frame->info.stride,
          0, y, width);
      if (layout->requantize)
        gst_bspline_layout_rescale_row (layout, row, width, TRUE);
      continue;
    }
    if (layout->n_base > 1)
      chroma_row = gst_bspline_layout_chroma_row (layout, y, &chroma_line);
    /* the row GStreamer's layout lacks is read from the spare row (its
     * samples are staged but outside the field's plane) */
    if (spare && chroma_row >= layout->short_rows)
      finfo->unpack_func (finfo, flags, line, data, stride, 0, y, width);
    else
      finfo->unpack_func (finfo, flags, line, frame->data,
          frame->info.stride, 0, y, width);
    if (layout->unpack_depth > 8)
      LAYOUT_SCATTER (guint16);
    else
      LAYOUT_SCATTER (guint8);
  }
  g_free (line);
  g_free (spare);
}

static void
gst_bspline_layout_pack_rows (GstBSplineLayoutRows * rows)
{
  const GstBSplineLayout *layout = rows->layout;
  const GstVideoFormatInfo *finfo = layout->info.finfo;
  const bspline_image *base = rows->base;
  GstVideoFrame *frame = rows->frame;
  GstVideoPackFlags flags = gst_bspline_layout_pack_flags (layout);
  gint width = layout->buffer_width, D = layout->unpack_depth;
  gint sub = layout->base_grid[1].sub_x;
  guint opaque = (1u << D) - 1, neutral = 1u << (D - 1);
  gboolean direct = layout->n_base == 1 && base[0].channels == 4;
  gpointer line = g_malloc ((gsize) width * 4 * 2);
  gboolean requantize = layout->requantize;
  gpointer data[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
  guint8 *spare = gst_bspline_layout_spare_row (layout, frame, data, stride);
  gint y, x;

  for (y = rows->first; y < rows->last; y++) {
    gboolean chroma_line = FALSE;
    gint chroma_row = 0;
    gconstpointer src = line;

    if (layout->n_base > 1)
      chroma_row = gst_bspline_layout_chroma_row (layout, y, &chroma_line);
    if (direct && !requantize)
      src = (const guint8 *) base[0].data + base[0].stride * (gsize) y;
    else if (direct)
      memcpy (line, (const guint8 *) base[0].data + base[0].stride *
          (gsize) y, (gsize) width * 4 * (D > 8 ? 2 : 1));
    else if (D > 8)
      LAYOUT_GATHER (guint16);
    else
      LAYOUT_GATHER (guint8);
    if (requantize)
      gst_bspline_layout_rescale_row (layout, line, width, FALSE);
    /* the row GStreamer's layout lacks is written aside, and dropped */
    finfo->pack_func (finfo, flags, (gpointer) src, 0,
        spare && chroma_row >= layout->short_rows ? data : frame->data,
        spare && chroma_row >= layout->short_rows ? stride :
        frame->info.stride, GST_VIDEO_INFO_CHROMA_SITE (&layout->info), y,
        width);
  }
  g_free (line);
  g_free (spare);
}

gboolean
gst_bspline_layout_read (const GstBSplineLayout * layout,
    GstVideoFrame * frame, GstBSplineLayoutFrame * planes, guint n_threads)
{
  bspline_image base[GST_VIDEO_MAX_PLANES];
  guint b;

  if (!layout->staged) {
    for (b = 0; b < layout->n_base; b++)
      gst_bspline_frame_plane_image (&frame->info, frame, b, &base[b]);
  } else {
    if (!gst_bspline_layout_staging (layout, planes, base))
      return FALSE;
    gst_bspline_layout_run_rows (layout, frame, base, n_threads,
        gst_bspline_layout_unpack_rows);
  }
  gst_bspline_layout_views (layout, base, planes);
  return TRUE;
}

gboolean
gst_bspline_layout_prepare (const GstBSplineLayout * layout,
    GstVideoFrame * frame, GstBSplineLayoutFrame * planes)
{
  bspline_image base[GST_VIDEO_MAX_PLANES];
  guint b;

  if (!layout->staged) {
    for (b = 0; b < layout->n_base; b++)
      gst_bspline_frame_plane_image (&frame->info, frame, b, &base[b]);
  } else if (!gst_bspline_layout_staging (layout, planes, base))
    return FALSE;
  gst_bspline_layout_views (layout, base, planes);
  return TRUE;
}

void
gst_bspline_layout_write (const GstBSplineLayout * layout,
    GstBSplineLayoutFrame * planes, GstVideoFrame * frame, guint n_threads)
{
  const GstVideoFormatInfo *finfo = layout->info.finfo;
  bspline_image base[GST_VIDEO_MAX_PLANES];

  /* the staging memory is there: gst_bspline_layout_prepare made it */
  if (!layout->staged || !gst_bspline_layout_staging (layout, planes, base))
    return;
  gst_bspline_layout_run_rows (layout, frame, base, n_threads,
      gst_bspline_layout_pack_rows);
  if (GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo)) {
    gsize size;
    gconstpointer palette = gst_video_format_get_palette
        (GST_VIDEO_INFO_FORMAT (&layout->info), &size);

    /* the pack function indexes GStreamer's standard palette */
    if (palette)
      memcpy (GST_VIDEO_FRAME_PLANE_DATA (frame, 1), palette, size);
  }
}

void
gst_bspline_layout_frame_clear (GstBSplineLayoutFrame * planes)
{
  if (planes->free)
    planes->free (planes->staging);
  else
    g_free (planes->staging);
  planes->staging = NULL;
  planes->staging_size = 0;
}

void
gst_bspline_layout_fill (const GstBSplineLayout * layout, guint i,
    guint32 argb, double fill[BSPLINE_MAX_CHANNELS])
{
  const GstVideoFormatInfo *finfo = layout->info.finfo;
  guint b = layout->plane_base[i];
  gdouble value[GST_VIDEO_MAX_COMPONENTS];
  gdouble max = (1u << layout->base[b].bits) - 1;
  guint k;

  if (!layout->staged) {
    gst_bspline_frame_plane_fill (&layout->info, b, argb, &layout->base[b],
        fill);
    return;
  }
  for (k = 0; k < BSPLINE_MAX_CHANNELS; k++)
    fill[k] = max;
  if (GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo)) {
    /* the palette holds 8-bit A, R, G, B */
    for (k = 0; k < 4; k++)
      fill[k] = (argb >> (24 - 8 * k)) & 0xff;
    return;
  }
  gst_bspline_frame_fill_components (&layout->info, argb, value);
  for (k = 0; k < (guint) layout->base[b].channels; k++) {
    guint u = layout->base_channel[b][k];
    guint c = unpacked_component (u);
    gdouble component_max;

    if (c >= GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo))
      continue;                 /* no alpha: opaque */
    /* the component's code value on the unpack format's scale */
    component_max = (1u << GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c)) - 1;
    fill[k] = value[c] * max / component_max;
  }
}

gboolean
gst_bspline_layout_frame_fits (const GstVideoInfo * info, GstVideoFrame * frame)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gboolean native = gst_bspline_layout_format_is_native
      (GST_VIDEO_INFO_FORMAT (info));
  GstVideoMeta *meta = frame->meta;
  GstVideoInterlaceMode mode = GST_VIDEO_INFO_INTERLACE_MODE (info);
  gboolean both = mode == GST_VIDEO_INTERLACE_MODE_INTERLEAVED
      || (mode == GST_VIDEO_INTERLACE_MODE_MIXED
      && GST_BUFFER_FLAG_IS_SET (frame->buffer,
          GST_VIDEO_BUFFER_FLAG_INTERLACED));
  gint height = meta ? (gint) meta->height : GST_VIDEO_INFO_HEIGHT (info);
  GstVideoInfo packed;
  guint p;

  /* without a meta the caps' size was checked, but an interlaced frame's
   * subsampled planes may have a row more than that (the fields'
   * subsampling, gst_bspline_layout_plane_rows) */
  if (meta == NULL && !both)
    return TRUE;
  /* the smallest strides of a frame of the meta's size */
  gst_video_info_set_interlaced_format (&packed, GST_VIDEO_INFO_FORMAT (info),
      GST_VIDEO_INFO_INTERLACE_MODE (info), meta ? (gint) meta->width :
      GST_VIDEO_INFO_WIDTH (info), height);
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (frame); p++) {
    guint64 row, rows, start, end;
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
    /* with a meta each plane is mapped on its own, else the buffer once */
    guint m = meta ? p : 0;
    guint c;

    if (native) {
      bspline_image image;

      /* the whole buffer the meta describes: a crop is read inside it */
      gst_bspline_frame_plane_image (&frame->info, frame, p, &image);
      row = (guint64) image.width * image.channels *
          bspline_sample_size (image.type);
      rows = image.height;
      for (c = 0; both && c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++)
        if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, c) == p) {
          rows = MIN (gst_bspline_layout_plane_rows (height,
                  1 << GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c), TRUE),
              gst_bspline_layout_allocated_rows (&packed, p));
          break;
        }
    } else if (GST_VIDEO_FORMAT_INFO_IS_TILED (finfo)) {
      /* tiles: the stride says how many; only the usual layout is read */
      if (stride != GST_VIDEO_INFO_PLANE_STRIDE (&packed, p))
        return FALSE;
      row = 0;
      rows = 1;
      stride = 0;
    } else {
      row = GST_VIDEO_INFO_PLANE_STRIDE (&packed, p);
      rows = 0;
      for (c = 0; c < (guint) GST_VIDEO_FRAME_N_COMPONENTS (frame); c++)
        if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, c) == p)
          rows = MAX (rows, (guint64) (both ?
                  MIN (gst_bspline_layout_plane_rows (height,
                          1 << GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c), TRUE),
                      gst_bspline_layout_allocated_rows (&packed, p)) :
                  GST_VIDEO_FRAME_COMP_HEIGHT (frame, c)));
      if (GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo) && p == 1)
        rows = 1;
    }
    if (stride < 0 || (guint64) stride < row
        || (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (frame, p) <
        (guint8 *) frame->map[m].data)
      return FALSE;
    start = (guint64) ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (frame, p) -
        (guint8 *) frame->map[m].data);
    end = start + (rows > 0 ? (guint64) stride * (rows - 1) + row : 0);
    if (GST_VIDEO_FORMAT_INFO_IS_TILED (finfo))
      end = start + GST_VIDEO_INFO_SIZE (&packed) - GST_VIDEO_INFO_PLANE_OFFSET
          (&packed, p);
    if (end > frame->map[m].size)
      return FALSE;
  }
  return TRUE;
}
