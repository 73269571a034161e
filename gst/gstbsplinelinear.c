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

#include "gstbsplinelinear.h"
#include "gstbsplineframe.h"
#include "gstbsplinelayout.h"

GType
gst_bspline_gamma_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_BSPLINE_GAMMA_MODE_NONE, "Resample the code values", "none"},
    {GST_BSPLINE_GAMMA_MODE_REMAP, "Resample in linear light (decode the "
          "caps' transfer function, resample, encode)", "remap"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstBSplineGammaMode",
            values));
  return type;
}

/* The core's transfer function of GStreamer's, FALSE where it has none;
 * an unknown one is sRGB, the default of RGB caps (the formats taken are
 * RGB, and rawvideoparse, for one, leaves it unknown). */
static gboolean
gst_bspline_linear_transfer (GstVideoTransferFunction gst,
    bspline_transfer * transfer)
{
  switch (gst) {
    case GST_VIDEO_TRANSFER_GAMMA10:
      *transfer = BSPLINE_TRANSFER_LINEAR;
      return TRUE;
    case GST_VIDEO_TRANSFER_UNKNOWN:
    case GST_VIDEO_TRANSFER_SRGB:
      *transfer = BSPLINE_TRANSFER_SRGB;
      return TRUE;
    case GST_VIDEO_TRANSFER_BT709:
    case GST_VIDEO_TRANSFER_BT601:
    case GST_VIDEO_TRANSFER_BT2020_10:
    case GST_VIDEO_TRANSFER_BT2020_12:
      *transfer = BSPLINE_TRANSFER_BT709;
      return TRUE;
    case GST_VIDEO_TRANSFER_GAMMA22:
      *transfer = BSPLINE_TRANSFER_GAMMA22;
      return TRUE;
    case GST_VIDEO_TRANSFER_GAMMA28:
      *transfer = BSPLINE_TRANSFER_GAMMA28;
      return TRUE;
    case GST_VIDEO_TRANSFER_SMPTE2084:
      *transfer = BSPLINE_TRANSFER_PQ;
      return TRUE;
    case GST_VIDEO_TRANSFER_ARIB_STD_B67:
      *transfer = BSPLINE_TRANSFER_HLG;
      return TRUE;
    default:
      return FALSE;
  }
}

/* RGB in one plane that the engines read in place (gstbsplinelayout.h),
 * every component 8 bits (RGBA, BGRx, RGB, ...) or every one 16 bits
 * (ARGB64_LE, RGBA64_LE, BGRA64_LE, ABGR64_LE): one channel a component. */
static gboolean
gst_bspline_linear_format_ok (const GstVideoInfo * info)
{
  guint c, depth = GST_VIDEO_INFO_COMP_DEPTH (info, 0);

  if (!GST_VIDEO_INFO_IS_RGB (info) || GST_VIDEO_INFO_N_PLANES (info) != 1
      || (depth != 8 && depth != 16)
      || !gst_bspline_layout_format_is_native (GST_VIDEO_INFO_FORMAT (info)))
    return FALSE;
  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++)
    if (GST_VIDEO_INFO_COMP_DEPTH (info, c) != depth
        || GST_VIDEO_FORMAT_INFO_SHIFT (info->finfo, c) != 0)
      return FALSE;
  return TRUE;
}

/* The channels of info's plane that are not R, G or B. */
static guint
gst_bspline_linear_pass_mask (const GstVideoInfo * info)
{
  guint bytes = GST_VIDEO_INFO_COMP_DEPTH (info, 0) / 8;
  guint mask = (1u << GST_VIDEO_INFO_COMP_PSTRIDE (info, 0) / bytes) - 1;
  guint c;

  for (c = GST_VIDEO_COMP_R; c <= GST_VIDEO_COMP_B; c++)
    mask &= ~(1u << GST_VIDEO_INFO_COMP_POFFSET (info, c) / bytes);
  return mask;
}

gboolean
gst_bspline_linear_init (GstBSplineLinear * linear,
    const GstVideoInfo * in_info, const GstVideoInfo * out_info,
    gchar * msg, gsize msg_len)
{
  const GstVideoInfo *info[2] = { in_info, out_info };
  bspline_transfer *transfer[2] = { &linear->in, &linear->out };
  guint i;

  memset (linear, 0, sizeof (*linear));
  if (!gst_bspline_linear_format_ok (in_info)) {
    g_snprintf (msg, msg_len, "gamma-mode=remap takes RGB in one plane, "
        "8-bit (RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, xRGB, xBGR, RGB, BGR) "
        "or 16-bit (ARGB64_LE, RGBA64_LE, BGRA64_LE, ABGR64_LE), not %s: "
        "linear light needs R'G'B', so convert before and after the element "
        "as videoconvertscale's gamma-mode=remap does (videoconvert ! "
        "video/x-raw,format=RGBA64_LE ! bsplinewarp ! videoconvert), or set "
        "gamma-mode=none", GST_VIDEO_INFO_NAME (in_info));
    return FALSE;
  }
  for (i = 0; i < 2; i++) {
    GstVideoTransferFunction t = info[i]->colorimetry.transfer;
    if (!gst_bspline_linear_transfer (t, transfer[i])) {
      GEnumClass *names = g_type_class_ref (GST_TYPE_VIDEO_TRANSFER_FUNCTION);
      GEnumValue *name = g_enum_get_value (names, t);
      g_snprintf (msg, msg_len, "gamma-mode=remap has no decoding of the "
          "%s caps' transfer function %s (it takes sRGB, BT.709, BT.601, "
          "BT.2020, gamma 1.0, 2.2 and 2.8, PQ and HLG)",
          i ? "output" : "input", name ? name->value_nick : "(unknown)");
      g_type_class_unref (names);
      return FALSE;
    }
  }
  linear->pass_mask[0] = gst_bspline_linear_pass_mask (in_info);
  return TRUE;
}

void
gst_bspline_linear_fill (const GstVideoInfo * info, guint plane,
    const bspline_image * image, gdouble fill[BSPLINE_MAX_CHANNELS])
{
  bspline_transfer transfer;
  gdouble max = (1 << image->bits) - 1;
  guint pass, ch;

  if (!gst_bspline_linear_format_ok (info) || plane != 0
      || !gst_bspline_linear_transfer (info->colorimetry.transfer, &transfer))
    return;
  pass = gst_bspline_linear_pass_mask (info);
  for (ch = 0; ch < BSPLINE_MAX_CHANNELS; ch++)
    if (!(pass >> ch & 1))
      fill[ch] = max * bspline_transfer_to_linear (transfer, fill[ch] / max);
}

bspline_status
gst_bspline_linear_execute (const GstBSplineLinear * linear, guint plane,
    bspline_cpu * cpu, const bspline_plan * plan, const bspline_image * src,
    const bspline_image * dst, gchar * msg, gsize msg_len)
{
  bspline_image lin_src = *src, lin_dst = *dst;
  bspline_status status;

  lin_src.type = lin_dst.type = BSPLINE_SAMPLE_F32;
  lin_src.bits = lin_dst.bits = 0;
  lin_src.shift = lin_dst.shift = 0;
  lin_src.stride = (ptrdiff_t) src->width * src->channels * sizeof (gfloat);
  lin_dst.stride = (ptrdiff_t) dst->width * dst->channels * sizeof (gfloat);
  lin_src.data = g_try_malloc ((gsize) lin_src.stride * src->height);
  lin_dst.data = g_try_malloc ((gsize) lin_dst.stride * dst->height);
  if (lin_src.data == NULL || lin_dst.data == NULL) {
    g_strlcpy (msg, "no memory for the linear-light planes", msg_len);
    status = BSPLINE_ERROR_NO_MEMORY;
    goto done;
  }
  status = bspline_transfer_decode (linear->in, src, &lin_src,
      linear->pass_mask[plane], msg, msg_len);
  if (status == BSPLINE_OK) {
    status = bspline_cpu_execute (cpu, plan, &lin_src, &lin_dst);
    if (status != BSPLINE_OK)
      g_strlcpy (msg, bspline_cpu_last_error (cpu), msg_len);
  }
  if (status == BSPLINE_OK)
    status = bspline_transfer_encode (linear->out, &lin_dst, dst,
        linear->pass_mask[plane], msg, msg_len);
done:
  g_free (lin_src.data);
  g_free (lin_dst.data);
  return status;
}
