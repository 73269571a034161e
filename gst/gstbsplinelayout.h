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
/* gstbsplinelayout.h: the planes the engines resample for one buffer of
 * bsplinewarp's caps, whatever its format, interlacing and crop.
 *
 * 1. Base planes.  A format whose planes the engines read as they are
 *    (every sample 8 bits, or 9-16 bits little-endian in 2 bytes; the
 *    components of a plane alike and at distinct offsets: I420, NV12,
 *    P010, RGBA, v308, AYUV64, ...) is "native": its base planes are the
 *    frame's planes.  Every other format (packed 4:2:2 such as YUY2 and
 *    v210, bit fields such as RGB16 and r210, big-endian, tiled, palette)
 *    is "staged": each row is unpacked with GStreamer's own unpack function
 *    (GstVideoFormatInfo) into planes of the unpack format's depth (8 or
 *    16 bits): one 4-channel plane (A and three components) when nothing
 *    is subsampled, else a plane for luma, one for the two chroma
 *    components on their own subsampled grid, and one for alpha.  The
 *    output is packed back row by row, each component rounded to its own
 *    depth first (GStreamer's pack functions truncate).
 * 2. Crop.  With a GstVideoCropMeta the caps describe the cropped picture
 *    and the base planes hold the whole buffer: each plane is viewed from
 *    the crop's first sample, and where the crop starts inside a chroma
 *    sample the plane's grid takes the difference.
 * 3. Fields.  An interlaced frame is resampled field by field: the rows of
 *    field f (0 top, 1 bottom) are viewed with twice the stride, on the
 *    grid whose rows sit at frame rows 2 k + f, so no output sample mixes
 *    the two fields.  At any height: the top field has a row more where
 *    the height is odd, and a subsampled plane's rows alternate between
 *    the fields, each field's subsampling its own rows (video-format.c
 *    GET_UV_420), so such a plane may have a row more than a progressive
 *    frame's.  An alternate-mode buffer holds one field.
 *
 * The engines see the result as plain images (core/include/bspline.h)
 * with their grids (core/include/bspline-geometry.h). */
#ifndef __GST_BSPLINE_LAYOUT_H__
#define __GST_BSPLINE_LAYOUT_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "bspline.h"
#include "bspline-geometry.h"

G_BEGIN_DECLS
/* 4 base planes (luma, chroma, alpha; or a frame's 4), each split into
 * its two fields. */
#define GST_BSPLINE_LAYOUT_MAX_PLANES (2 * GST_VIDEO_MAX_PLANES)
    typedef enum
{
  GST_BSPLINE_FIELDS_NONE = 0,  /* a progressive frame */
  GST_BSPLINE_FIELDS_BOTH,      /* an interlaced frame, its fields apart */
  GST_BSPLINE_FIELDS_TOP,       /* alternate mode: a buffer of the top field */
  GST_BSPLINE_FIELDS_BOTTOM,    /* ... of the bottom field */
  GST_BSPLINE_FIELDS_N
} GstBSplineFields;

typedef struct
{
  /* the caps and what this layout is for */
  GstVideoInfo info;
  GstBSplineFields fields;
  gboolean interleave;          /* planar formats staged, chroma as one */
  gboolean staged;
  GstVideoRectangle crop;       /* in the buffer; the caps' size */
  gint buffer_width, buffer_height;     /* of the frames this reads */

  /* base planes: the frame's, or the staged ones (no data) */
  guint n_base;
  bspline_image base[GST_VIDEO_MAX_PLANES];
  bspline_plane_grid base_grid[GST_VIDEO_MAX_PLANES];
  /* staged: the unpacked component (0 alpha, 1-3 the others) of each
   * channel of each base plane */
  guint8 base_channel[GST_VIDEO_MAX_PLANES][BSPLINE_MAX_CHANNELS];
  gint unpack_depth;            /* staged: 8 or 16 */
  /* staged planes of mixed depths (RGB16, Y410): each unpacked channel's
   * depth, where it is below unpack_depth */
  gboolean requantize;
  gint channel_depth[4];

  /* the planes the engines run (no data) */
  guint n_planes;
  bspline_image plane[GST_BSPLINE_LAYOUT_MAX_PLANES];
  bspline_plane_grid grid[GST_BSPLINE_LAYOUT_MAX_PLANES];
  guint plane_base[GST_BSPLINE_LAYOUT_MAX_PLANES];
  gint plane_field[GST_BSPLINE_LAYOUT_MAX_PLANES];      /* -1, 0, 1 */
  gint64 plane_offset[GST_BSPLINE_LAYOUT_MAX_PLANES];   /* bytes into base */
  /* staged interlaced frames: a frame plane (or -1) whose rows in
   * GStreamer's layout end before the bottom field's last chroma row, and
   * the rows it has (gstbsplinelayout.c gst_bspline_layout_allocated_rows):
   * the bottom field has a chroma row fewer, and GStreamer's unpack and
   * pack functions get a spare row for the one they would read or write
   * past the plane */
  gint short_plane, short_rows;
} GstBSplineLayout;

/* The planes of one frame, with data. */
typedef struct
{
  bspline_image plane[GST_BSPLINE_LAYOUT_MAX_PLANES];
  guint8 *staging;              /* staged formats: the base planes */
  gsize staging_size;
  /* how staging memory is had (NULL: g_try_malloc / g_free); the CUDA
   * engine's page-locked memory is copied to the device directly */
    gpointer (*alloc) (gsize size);
  void (*free) (gpointer memory);
} GstBSplineLayoutFrame;

/* TRUE when the engines read the format's planes as they are. */
gboolean gst_bspline_layout_format_is_native (GstVideoFormat format);

/* TRUE when the element can take the format at all (an unpack and a pack
 * function, at most 4 components). */
gboolean gst_bspline_layout_format_is_supported (GstVideoFormat format);

/* Describes the planes of buffers of info (the caps) for fields, with crop
 * (NULL: none) inside buffers of buffer_width x buffer_height (the
 * GstVideoMeta's size, or the caps').  interleave: planar formats (I420,
 * Y42B, Y444, GBR(A), A420...) are staged too, their chroma in one
 * 2-channel plane, or all in one 4-channel plane for 4:4:4: one pass where
 * their planes take two or three (the CPU engine's warps cost per pixel,
 * whatever the channels: rotations of GBRA_10LE take 2.7x less, of Y42B
 * 1.7x).  FALSE with msg when the crop or the
 * interlacing cannot be taken (a crop outside the buffer or not of the
 * caps' size, a crop that splits the fields' chroma rows). */
gboolean gst_bspline_layout_init (GstBSplineLayout * layout,
    const GstVideoInfo * info, GstVideoChromaSite site,
    GstBSplineFields fields, const GstVideoRectangle * crop,
    gint buffer_width, gint buffer_height, gboolean interleave, gchar * msg,
    gsize msg_len);

/* The rows of field (0 top, 1 bottom) of an interlaced frame of height
 * rows in a plane subsampled sub_y times vertically: the field has
 * (height - field + 1) / 2 rows of luma, subsampled on their own. */
gint gst_bspline_layout_field_rows (gint height, gint sub_y, gint field);

/* An input frame of one row has no bottom field: its planes of the bottom
 * field become the top field's, on the top field's grid, so an output
 * bottom field is resampled from the nearest rows there are.  (An output
 * field of no rows is not resampled: gstbsplinewarpplanes.c.) */
void gst_bspline_layout_source_fields (GstBSplineLayout * layout);

/* TRUE when layout describes these arguments already. */
gboolean gst_bspline_layout_matches (const GstBSplineLayout * layout,
    GstBSplineFields fields, const GstVideoRectangle * crop,
    gint buffer_width, gint buffer_height, gboolean interleave);

/* Staged rows are unpacked and packed on up to this many threads. */
#define GST_BSPLINE_LAYOUT_MAX_THREADS 16

/* The planes of an input frame: views of its planes, or of its rows
 * unpacked into staging memory (on n_threads threads).  FALSE only
 * without memory. */
gboolean gst_bspline_layout_read (const GstBSplineLayout * layout,
    GstVideoFrame * frame, GstBSplineLayoutFrame * planes, guint n_threads);

/* The planes the engines write an output frame into: its own, or staging
 * memory that gst_bspline_layout_write packs.  FALSE only without
 * memory. */
gboolean gst_bspline_layout_prepare (const GstBSplineLayout * layout,
    GstVideoFrame * frame, GstBSplineLayoutFrame * planes);

/* Packs staged output planes into the frame (nothing for a native
 * format). */
void gst_bspline_layout_write (const GstBSplineLayout * layout,
    GstBSplineLayoutFrame * planes, GstVideoFrame * frame, guint n_threads);

void gst_bspline_layout_frame_clear (GstBSplineLayoutFrame * planes);

/* TRUE when every row of every plane of frame (of info's format) lies in
 * the memory it maps.  Without a GstVideoMeta, gst_video_frame_map has
 * checked the buffer size against the caps; with one, GStreamer checks
 * only that each plane starts inside the buffer, and the meta (made
 * upstream) may describe strides or offsets whose rows run past the end.
 * An interlaced frame is checked either way: its subsampled planes may
 * have a row more than the caps' progressive size. */
gboolean gst_bspline_layout_frame_fits (const GstVideoInfo * info,
    GstVideoFrame * frame);

/* fill-color (0xAARRGGBB) as the code value of each channel of plane i. */
void gst_bspline_layout_fill (const GstBSplineLayout * layout, guint i,
    guint32 argb, double fill[BSPLINE_MAX_CHANNELS]);

G_END_DECLS
#endif /* __GST_BSPLINE_LAYOUT_H__ */
