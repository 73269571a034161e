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

/* bsplinewarp's caps: any size in either direction (and either memory
 * with gstreamer-cuda), fixated as videoscale fixates them, keeping the
 * display aspect ratio of the reoriented input. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstbsplinewarpcaps.h"
#include "gstbsplinewarpprivate.h"
#ifdef HAVE_BSPLINE_CUDA_MEMORY
#include "gstbsplinecudamemory.h"
#endif

#define GST_CAT_DEFAULT gst_bspline_warp_debug

/* Any size in either direction; format, colorimetry, chroma-site, framerate
 * and the rest stay as they are.  With CUDA memory, either memory on
 * either side, the given one first. */
GstCaps *
gst_bspline_warp_transform_caps (GstBaseTransform * trans,
    G_GNUC_UNUSED GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps *ret = gst_caps_new_empty ();
  guint i, n = gst_caps_get_size (caps);

  for (i = 0; i < n; i++) {
    GstStructure *structure = gst_caps_get_structure (caps, i);
    GstCapsFeatures *features = gst_caps_get_features (caps, i);

    if (i > 0 && gst_caps_is_subset_structure_full (ret, structure, features))
      continue;

    structure = gst_structure_copy (structure);
    if (!gst_caps_features_is_any (features)
        && (gst_caps_features_is_equal (features,
                GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY)
            || gst_caps_features_contains (features,
                GST_CAPS_FEATURE_FORMAT_INTERLACED)
            || gst_caps_features_contains (features, "memory:CUDAMemory"))) {
      gst_structure_set (structure, "width", GST_TYPE_INT_RANGE, 1, G_MAXINT,
          "height", GST_TYPE_INT_RANGE, 1, G_MAXINT, NULL);
      if (gst_structure_has_field (structure, "pixel-aspect-ratio"))
        gst_structure_set (structure, "pixel-aspect-ratio",
            GST_TYPE_FRACTION_RANGE, 1, G_MAXINT, G_MAXINT, 1, NULL);
    }
    gst_caps_append_structure_full (ret, structure,
        gst_caps_features_copy (features));
  }
#ifdef HAVE_BSPLINE_CUDA_MEMORY
  {
    GstBSplineWarpSettings s;
    GstCaps *memories;

    gst_bspline_warp_snapshot (GST_BSPLINE_WARP (trans), &s);
    memories = gst_bspline_cuda_memory_transform_caps (ret,
        s.resample.backend != GST_BSPLINE_BACKEND_CPU
        && gst_bspline_cuda_memory_usable ());
    gst_caps_unref (ret);
    ret = memories;
  }
#endif

  if (filter) {
    GstCaps *intersection =
        gst_caps_intersect_full (filter, ret, GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (ret);
    ret = intersection;
  }
  GST_DEBUG_OBJECT (trans, "transformed %" GST_PTR_FORMAT " into %"
      GST_PTR_FORMAT, caps, ret);
  return ret;
}

/* Sets the pixel-aspect-ratio of outs when it is there already or not
 * square, as videoscale does. */
static void
gst_bspline_warp_set_par (GstStructure * outs, gint par_n, gint par_d)
{
  if (gst_structure_has_field (outs, "pixel-aspect-ratio") || par_n != par_d)
    gst_structure_set (outs, "pixel-aspect-ratio", GST_TYPE_FRACTION, par_n,
        par_d, NULL);
}

/* The PAR nearest to par_n/par_d that outs allows. */
static void
gst_bspline_warp_nearest_par (GstStructure * outs, const GValue * to_par,
    gint par_n, gint par_d, gint * set_n, gint * set_d)
{
  GstStructure *tmp = gst_structure_copy (outs);

  if (!gst_structure_has_field (tmp, "pixel-aspect-ratio"))
    gst_structure_set_value (tmp, "pixel-aspect-ratio", to_par);
  gst_structure_fixate_field_nearest_fraction (tmp, "pixel-aspect-ratio",
      par_n, par_d);
  gst_structure_get_fraction (tmp, "pixel-aspect-ratio", set_n, set_d);
  gst_structure_free (tmp);
}

/* The value of an int field of outs nearest to target. */
static gint
gst_bspline_warp_nearest_int (GstStructure * outs, const gchar * field,
    gint target)
{
  GstStructure *tmp = gst_structure_copy (outs);
  gint value = 0;

  gst_structure_fixate_field_nearest_int (tmp, field, target);
  gst_structure_get_int (tmp, field, &value);
  gst_structure_free (tmp);
  return value;
}

/* videoscale's size fixation (gst-plugins-base videoconvertscale
 * fixate_size): keep the display aspect ratio of the (reoriented) input,
 * preferring to keep its height, then its width, adjusting the PAR where
 * the other side allows it.  Returns FALSE on integer overflow. */
static gboolean
gst_bspline_warp_fixate_size (gint from_w, gint from_h, gint from_par_n,
    gint from_par_d, GstStructure * outs, const GValue * to_par)
{
  gint w = 0, h = 0, from_dar_n, from_dar_d, num, den;
  gint to_par_n, to_par_d, set_w, set_h, set_par_n, set_par_d;

  gst_structure_get_int (outs, "width", &w);
  gst_structure_get_int (outs, "height", &h);

  if (w && h) {
    guint n, d;

    /* both fixed: only the PAR can follow */
    if (!gst_value_is_fixed (to_par)
        && gst_video_calculate_display_ratio (&n, &d, from_w, from_h,
            from_par_n, from_par_d, w, h)) {
      if (gst_structure_has_field (outs, "pixel-aspect-ratio"))
        gst_structure_fixate_field_nearest_fraction (outs,
            "pixel-aspect-ratio", n, d);
      else if (n != d)
        gst_structure_set (outs, "pixel-aspect-ratio", GST_TYPE_FRACTION,
            n, d, NULL);
    }
    return TRUE;
  }

  if (!gst_util_fraction_multiply (from_w, from_h, from_par_n, from_par_d,
          &from_dar_n, &from_dar_d))
    return FALSE;

  if (h || w) {
    /* one side fixed: choose the other (and the PAR if it is free) */
    gboolean height_fixed = h != 0;
    const gchar *free_field = height_fixed ? "width" : "height";
    gint fixed = height_fixed ? h : w;
    gint from_free = height_fixed ? from_w : from_h;
    gint free_value;

    if (gst_value_is_fixed (to_par)) {
      to_par_n = gst_value_get_fraction_numerator (to_par);
      to_par_d = gst_value_get_fraction_denominator (to_par);
      if (!gst_util_fraction_multiply (from_dar_n, from_dar_d, to_par_d,
              to_par_n, &num, &den))
        return FALSE;
      free_value = height_fixed ?
          (gint) gst_util_uint64_scale_int_round (fixed, num, den) :
          (gint) gst_util_uint64_scale_int_round (fixed, den, num);
      gst_structure_fixate_field_nearest_int (outs, free_field, free_value);
      return TRUE;
    }

    /* keep the input's size on the free side, adjust the PAR */
    free_value = gst_bspline_warp_nearest_int (outs, free_field, from_free);
    if (height_fixed)
      set_w = free_value, set_h = h;
    else
      set_w = w, set_h = free_value;
    if (!gst_util_fraction_multiply (from_dar_n, from_dar_d, set_h, set_w,
            &to_par_n, &to_par_d))
      return FALSE;
    gst_bspline_warp_nearest_par (outs, to_par, to_par_n, to_par_d,
        &set_par_n, &set_par_d);
    if (set_par_n == to_par_n && set_par_d == to_par_d) {
      gst_structure_set (outs, free_field, G_TYPE_INT, free_value, NULL);
      gst_bspline_warp_set_par (outs, set_par_n, set_par_d);
      return TRUE;
    }

    /* that PAR is not allowed: scale the free side to the one we got */
    if (!gst_util_fraction_multiply (from_dar_n, from_dar_d, set_par_d,
            set_par_n, &num, &den))
      return FALSE;
    free_value = height_fixed ?
        (gint) gst_util_uint64_scale_int_round (fixed, num, den) :
        (gint) gst_util_uint64_scale_int_round (fixed, den, num);
    gst_structure_fixate_field_nearest_int (outs, free_field, free_value);
    gst_bspline_warp_set_par (outs, set_par_n, set_par_d);
    return TRUE;
  }

  if (gst_value_is_fixed (to_par)) {
    gint f_w, f_h;

    /* size free, PAR fixed: keep the input height, else the input width,
     * else take the size whose DAR is nearest */
    to_par_n = gst_value_get_fraction_numerator (to_par);
    to_par_d = gst_value_get_fraction_denominator (to_par);
    if (!gst_util_fraction_multiply (from_dar_n, from_dar_d, to_par_d,
            to_par_n, &num, &den))
      return FALSE;

    set_h = gst_bspline_warp_nearest_int (outs, "height", from_h);
    w = (gint) gst_util_uint64_scale_int_round (set_h, num, den);
    set_w = gst_bspline_warp_nearest_int (outs, "width", w);
    if (set_w == w) {
      gst_structure_set (outs, "width", G_TYPE_INT, set_w, "height",
          G_TYPE_INT, set_h, NULL);
      return TRUE;
    }
    f_w = set_w;
    f_h = set_h;

    set_w = gst_bspline_warp_nearest_int (outs, "width", from_w);
    h = (gint) gst_util_uint64_scale_int_round (set_w, den, num);
    set_h = gst_bspline_warp_nearest_int (outs, "height", h);
    if (set_h == h) {
      gst_structure_set (outs, "width", G_TYPE_INT, set_w, "height",
          G_TYPE_INT, set_h, NULL);
      return TRUE;
    }

    if ((gint64) set_w * ABS (set_h - h) < (gint64) ABS (f_w - w) * f_h) {
      f_w = set_w;
      f_h = set_h;
    }
    gst_structure_set (outs, "width", G_TYPE_INT, f_w, "height", G_TYPE_INT,
        f_h, NULL);
    return TRUE;
  }

  /* size and PAR free: keep the input size and scale the PAR, else scale
   * the width, else the height, to the PAR we can get */
  set_h = gst_bspline_warp_nearest_int (outs, "height", from_h);
  set_w = gst_bspline_warp_nearest_int (outs, "width", from_w);
  if (!gst_util_fraction_multiply (from_dar_n, from_dar_d, set_h, set_w,
          &to_par_n, &to_par_d))
    return FALSE;
  gst_bspline_warp_nearest_par (outs, to_par, to_par_n, to_par_d,
      &set_par_n, &set_par_d);
  if (set_par_n != to_par_n || set_par_d != to_par_d) {
    gint tmp;

    if (!gst_util_fraction_multiply (from_dar_n, from_dar_d, set_par_d,
            set_par_n, &num, &den))
      return FALSE;
    w = (gint) gst_util_uint64_scale_int_round (set_h, num, den);
    tmp = gst_bspline_warp_nearest_int (outs, "width", w);
    if (tmp == w) {
      set_w = tmp;
    } else {
      h = (gint) gst_util_uint64_scale_int_round (set_w, den, num);
      tmp = gst_bspline_warp_nearest_int (outs, "height", h);
      if (tmp == h)
        set_h = tmp;
    }
  }
  gst_structure_set (outs, "width", G_TYPE_INT, set_w, "height", G_TYPE_INT,
      set_h, NULL);
  gst_bspline_warp_set_par (outs, set_par_n, set_par_d);
  return TRUE;
}

GstCaps *
gst_bspline_warp_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  GstBSplineWarp *self = GST_BSPLINE_WARP (trans);
  GstStructure *ins, *outs;
  const GValue *from_par, *to_par;
  GValue tpar = G_VALUE_INIT;
  gint from_w = 0, from_h = 0, from_par_n = 1, from_par_d = 1;
  GstBSplineWarpSettings s;

  /* defer=true: the input's caps where downstream takes them, so that a
   * size change falls to an element that resamples (docs/chains.md) */
  gst_bspline_warp_snapshot (self, &s);
  if (direction == GST_PAD_SINK && s.resample.defer) {
    GstCaps *same = gst_caps_intersect_full (othercaps, caps,
        GST_CAPS_INTERSECT_FIRST);

    if (!gst_caps_is_empty (same)) {
      gst_caps_unref (othercaps);
      othercaps = same;
    } else
      gst_caps_unref (same);
  }
  othercaps = gst_caps_truncate (othercaps);
  othercaps = gst_caps_make_writable (othercaps);
  ins = gst_caps_get_structure (caps, 0);
  outs = gst_caps_get_structure (othercaps, 0);

  gst_structure_get_int (ins, "width", &from_w);
  gst_structure_get_int (ins, "height", &from_h);
  from_par = gst_structure_get_value (ins, "pixel-aspect-ratio");
  if (from_par && gst_value_is_fixed (from_par)) {
    from_par_n = gst_value_get_fraction_numerator (from_par);
    from_par_d = gst_value_get_fraction_denominator (from_par);
  }

  /* A missing PAR means 1/1 on the fixed side; on the other side it is
   * free when fixating the source caps and 1/1 when fixating the sink
   * caps, as in videoscale. */
  to_par = gst_structure_get_value (outs, "pixel-aspect-ratio");
  if (!to_par) {
    if (direction == GST_PAD_SINK) {
      g_value_init (&tpar, GST_TYPE_FRACTION_RANGE);
      gst_value_set_fraction_range_full (&tpar, 1, G_MAXINT, G_MAXINT, 1);
    } else {
      g_value_init (&tpar, GST_TYPE_FRACTION);
      gst_value_set_fraction (&tpar, 1, 1);
      gst_structure_set (outs, "pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1,
          NULL);
    }
    to_par = &tpar;
  }

  /* Size the output for the reoriented input: a quarter turn swaps the
   * sides and inverts the PAR (the map is its own inverse, so the same
   * holds when fixating the sink caps from the source caps). */
  if (bspline_orientation_swaps_axes (gst_bspline_warp_orientation (&s))) {
    gint tmp = from_w;

    from_w = from_h;
    from_h = tmp;
    tmp = from_par_n;
    from_par_n = from_par_d;
    from_par_d = tmp;
  }

  if (from_w > 0 && from_h > 0 && !gst_bspline_warp_fixate_size (from_w,
          from_h, from_par_n, from_par_d, outs, to_par))
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("Integer overflow while computing the output size for %dx%d "
            "(PAR %d/%d)", from_w, from_h, from_par_n, from_par_d));

  if (to_par == &tpar)
    g_value_unset (&tpar);

  othercaps = gst_caps_fixate (othercaps);
  GST_DEBUG_OBJECT (self, "fixated to %" GST_PTR_FORMAT, othercaps);
  return othercaps;
}
