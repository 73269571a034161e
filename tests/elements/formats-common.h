/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* formats-common.h: frames of any raw format made and read through
 * GStreamer's own pack and unpack functions (GstVideoFormatInfo),
 * independently of the element's staging (gst/gstbsplinelayout.c), for
 * the GstHarness tests that run every format (test-formats.c,
 * test-chain.c).  Static functions: each test program takes what it
 * uses. */
#ifndef FORMATS_COMMON_H
#define FORMATS_COMMON_H

#include <string.h>

#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

/* ---- frames through GStreamer's pack and unpack ---- */

/* The unpack format's sample size: 8 or 16 bits. */
static inline gint
unpack_depth (const GstVideoFormatInfo * finfo)
{
  return GST_VIDEO_FORMAT_INFO_DEPTH (gst_video_format_get_info
      (finfo->unpack_format), 0);
}

static inline GstVideoPackFlags
pack_flags (const GstVideoInfo * info)
{
  return GST_VIDEO_INFO_INTERLACE_MODE (info) ==
      GST_VIDEO_INTERLACE_MODE_INTERLEAVED ? GST_VIDEO_PACK_FLAG_INTERLACED :
      GST_VIDEO_PACK_FLAG_NONE;
}

/* Rows of a buffer of info: a field's in alternate mode. */
static inline gint
frame_rows (const GstVideoInfo * info)
{
  return GST_VIDEO_INFO_COMP_HEIGHT (info, 0);
}

/* Bytes past info->size that GStreamer's own pack and unpack functions
 * may touch: interlaced 4:2:0 at a height that is not a multiple of 4
 * puts the bottom field's last chroma row (video-format.c GET_UV_420)
 * past the plane where 1.22's layout lacks it (AV12, P010, P012, P016),
 * past the buffer for the last plane.  Two rows of the widest plane. */
static inline gsize
frame_slack (const GstVideoInfo * info)
{
  gsize slack = 0;
  guint p;

  if (pack_flags (info) != GST_VIDEO_PACK_FLAG_INTERLACED
      || GST_VIDEO_FORMAT_INFO_IS_TILED (info->finfo))
    return 0;
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++)
    slack = MAX (slack, 2 * (gsize) ABS (GST_VIDEO_INFO_PLANE_STRIDE (info,
                p)));
  return slack;
}

/* A frame of info packed from unpacked rows (A first, then 3 components),
 * rows[y][x * 4 + k] on the unpack format's scale. */
static inline GstBuffer *
pack_frame (const GstVideoInfo * info, const guint16 * rows)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  GstBuffer *buffer = gst_buffer_new_allocate (NULL, info->size +
      frame_slack (info), NULL);
  gint w = GST_VIDEO_INFO_WIDTH (info), y, i;
  gboolean wide = unpack_depth (finfo) > 8;
  guint8 *line = g_malloc ((gsize) w * 8);
  GstVideoFrame frame;

  gst_buffer_memset (buffer, 0, 0, info->size + frame_slack (info));
  fail_unless (gst_video_frame_map (&frame, info, buffer, GST_MAP_WRITE));
  for (y = 0; y < frame_rows (info); y++) {
    for (i = 0; i < w * 4; i++) {
      if (wide)
        ((guint16 *) line)[i] = rows[(gsize) y * w * 4 + i];
      else
        line[i] = rows[(gsize) y * w * 4 + i];
    }
    finfo->pack_func (finfo, pack_flags (info), line, 0, frame.data,
        frame.info.stride, GST_VIDEO_INFO_CHROMA_SITE (info), y, w);
  }
  if (GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo)) {
    gsize size;
    gconstpointer palette =
        gst_video_format_get_palette (GST_VIDEO_INFO_FORMAT (info), &size);
    memcpy (GST_VIDEO_FRAME_PLANE_DATA (&frame, 1), palette, size);
  }
  gst_video_frame_unmap (&frame);
  g_free (line);
  return buffer;
}

/* The frame's unpacked rows, as pack_frame takes them. */
static inline guint16 *
unpack_frame (const GstVideoInfo * info, GstBuffer * buffer)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gint w = GST_VIDEO_INFO_WIDTH (info), y, i;
  gboolean wide = unpack_depth (finfo) > 8;
  guint16 *rows = g_new (guint16, (gsize) w * 4 * frame_rows (info));
  guint8 *line = g_malloc ((gsize) w * 8);
  GstVideoFrame frame;

  /* read from a copy with room for frame_slack */
  if (frame_slack (info) > 0) {
    gsize size = info->size + frame_slack (info);
    guint8 *bytes = g_malloc0 (size);

    gst_buffer_extract (buffer, 0, bytes, size);
    buffer = gst_buffer_new_wrapped (bytes, size);
  } else
    gst_buffer_ref (buffer);
  fail_unless (gst_video_frame_map (&frame, info, buffer, GST_MAP_READ));
  for (y = 0; y < frame_rows (info); y++) {
    finfo->unpack_func (finfo, pack_flags (info), line, frame.data,
        frame.info.stride, 0, y, w);
    for (i = 0; i < w * 4; i++)
      rows[(gsize) y * w * 4 + i] = wide ? ((guint16 *) line)[i] : line[i];
  }
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (buffer);
  g_free (line);
  return rows;
}

/* A frame of random code values (every component at its depth). */
static inline GstBuffer *
random_frame (const GstVideoInfo * info, GRand * rand)
{
  gsize n = (gsize) GST_VIDEO_INFO_WIDTH (info) * 4 * frame_rows (info), i;
  guint16 *rows = g_new (guint16, n);
  gint max = (1 << unpack_depth (info->finfo)) - 1;
  GstBuffer *buffer;

  for (i = 0; i < n; i++)
    rows[i] = g_rand_int_range (rand, 0, max + 1);
  buffer = pack_frame (info, rows);
  g_free (rows);
  return buffer;
}

/* Every format of bsplinewarp's system-memory template. */
static inline GPtrArray *
every_format (void)
{
  GstElement *element = gst_element_factory_make ("bsplinewarp", NULL);
  GstPad *pad = gst_element_get_static_pad (element, "sink");
  GstCaps *caps = gst_pad_get_pad_template_caps (pad);
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  const GValue *list;
  guint i, j;

  /* the system-memory structure (a CUDA build has memory:CUDAMemory
   * first) */
  for (i = 0; i < gst_caps_get_size (caps); i++)
    if (gst_caps_features_is_equal (gst_caps_get_features (caps, i),
            GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
      break;
  fail_unless (i < gst_caps_get_size (caps));
  list = gst_structure_get_value (gst_caps_get_structure (caps, i), "format");
  for (j = 0; j < gst_value_list_get_size (list); j++)
    g_ptr_array_add (names,
        g_value_dup_string (gst_value_list_get_value (list, j)));
  gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (element);
  return names;
}

static inline void
info_from_string (GstVideoInfo * info, const gchar * caps_str)
{
  GstCaps *caps = gst_caps_from_string (caps_str);

  fail_unless (caps != NULL, "%s", caps_str);
  fail_unless (gst_video_info_from_caps (info, caps), "%s", caps_str);
  gst_caps_unref (caps);
}

#endif /* FORMATS_COMMON_H */
