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

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-glib/json-glib.h>

#include "gstbsplinelensprofile.h"

/* Deeper nesting than a profile has (4: the camera matrix's rows) is
 * refused before json-glib, whose parser recurses once per level. */
#define MAX_NESTING 32
/* Bounds that no real calibration reaches, so that a hostile file's huge
 * values are refused here, with their name, not later as a bad map. */
#define MAX_DIMENSION 65536
#define MAX_PIXELS 1e7
#define MAX_COEFFICIENT 1e6
/* A stream of another shape than the calibration's is a crop of the
 * sensor, which the profile does not describe; 0.5 % allows the rounding
 * of sizes such as 2704x1520 against 1920x1080. */
#define ASPECT_TOLERANCE 0.005

/* profile FAILED, its message "lens-profile "LOCATION": WHY" */
static void
fail (GstBSplineLensProfile * profile, const gchar * location,
    const gchar * why)
{
  memset (profile, 0, sizeof (*profile));
  profile->state = GST_BSPLINE_LENS_PROFILE_FAILED;
  g_snprintf (profile->message, sizeof (profile->message),
      "lens-profile \"%s\": %s", location, why);
}

/* The file's bytes, at most GST_BSPLINE_LENS_PROFILE_MAX_BYTES, or NULL
 * with *why set (g_free it).  O_NONBLOCK: a FIFO or a device does not
 * block the caller; only regular files are read. */
static gchar *
read_file (const gchar * location, gsize * size, gchar ** why)
{
  gchar *data = NULL;
  struct stat st;
  gsize have = 0;
  int fd = open (location, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

  if (fd < 0) {
    *why = g_strdup_printf ("cannot be opened: %s", g_strerror (errno));
    return NULL;
  }
  if (fstat (fd, &st) != 0) {
    *why = g_strdup_printf ("cannot be examined: %s", g_strerror (errno));
    goto out;
  }
  if (S_ISDIR (st.st_mode)) {
    *why = g_strdup ("is a directory, not a Gyroflow lens profile (a .json "
        "file)");
    goto out;
  }
  if (!S_ISREG (st.st_mode)) {
    *why = g_strdup ("is not a regular file (a device, FIFO or socket), not "
        "a Gyroflow lens profile");
    goto out;
  }
  if (st.st_size > GST_BSPLINE_LENS_PROFILE_MAX_BYTES) {
    *why = g_strdup_printf ("is %" G_GINT64_FORMAT " bytes; a Gyroflow lens "
        "profile is a JSON file of at most %d bytes", (gint64) st.st_size,
        GST_BSPLINE_LENS_PROFILE_MAX_BYTES);
    goto out;
  }
  /* files of /proc and /sys say size 0 and have content: read to the end,
   * one byte past the limit to see a file that grows */
  data = g_malloc (GST_BSPLINE_LENS_PROFILE_MAX_BYTES + 2);
  for (;;) {
    ssize_t n = read (fd, data + have,
        GST_BSPLINE_LENS_PROFILE_MAX_BYTES + 1 - have);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      *why = g_strdup_printf ("cannot be read: %s", g_strerror (errno));
      g_clear_pointer (&data, g_free);
      goto out;
    }
    if (n == 0)
      break;
    have += (gsize) n;
    if (have > GST_BSPLINE_LENS_PROFILE_MAX_BYTES) {
      *why = g_strdup_printf ("has more than %d bytes; a Gyroflow lens "
          "profile has fewer", GST_BSPLINE_LENS_PROFILE_MAX_BYTES);
      g_clear_pointer (&data, g_free);
      goto out;
    }
  }
  if (have == 0) {
    *why = g_strdup (st.st_size == 0 && strncmp (location, "/proc/", 6) != 0
        && strncmp (location, "/sys/", 5) != 0 ? "is empty" :
        "gave no bytes (a file of the kernel's /proc or /sys, not a lens "
        "profile)");
    g_clear_pointer (&data, g_free);
    goto out;
  }
  data[have] = '\0';
  *size = have;
out:
  close (fd);
  return data;
}

/* The deepest nesting of arrays and objects in data (strings skipped). */
static guint
nesting (const gchar * data, gsize size)
{
  guint depth = 0, deepest = 0;
  gboolean in_string = FALSE;
  gsize i;

  for (i = 0; i < size; i++) {
    gchar c = data[i];
    if (in_string) {
      if (c == '\\')
        i++;
      else if (c == '"')
        in_string = FALSE;
    } else if (c == '"') {
      in_string = TRUE;
    } else if (c == '[' || c == '{') {
      deepest = MAX (deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      depth--;
    }
  }
  return deepest;
}

/* member name of object, NULL where absent or JSON null */
static JsonNode *
member (JsonObject * object, const gchar * name)
{
  JsonNode *node = json_object_get_member (object, name);

  return node && !JSON_NODE_HOLDS_NULL (node) ? node : NULL;
}

/* A JSON number (integer or not) of node into *v; FALSE where node is not
 * a number. */
static gboolean
number (JsonNode * node, gdouble * v)
{
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  if (type == G_TYPE_INT64)
    *v = (gdouble) json_node_get_int (node);
  else if (type == G_TYPE_DOUBLE)
    *v = json_node_get_double (node);
  else
    return FALSE;
  return TRUE;
}

/* "w" and "h" of the dimensions object name: FALSE with *why where absent
 * (and required), not integers or out of range; 0 x 0 where absent and
 * not required. */
static gboolean
dimensions (JsonObject * root, const gchar * name, gboolean required,
    gint * w, gint * h, gchar ** why)
{
  JsonNode *node = member (root, name);
  JsonObject *object;
  const gchar *axis[2] = { "w", "h" };
  gint *out[2] = { w, h };
  guint i;

  *w = *h = 0;
  if (node == NULL && !required)
    return TRUE;
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node)) {
    *why = g_strdup_printf ("needs \"%s\", an object {\"w\": width, \"h\": "
        "height} in pixels%s", name, node ? ", not another type" : "");
    return FALSE;
  }
  object = json_node_get_object (node);
  for (i = 0; i < 2; i++) {
    JsonNode *v = member (object, axis[i]);
    if (v == NULL || !JSON_NODE_HOLDS_VALUE (v)
        || json_node_get_value_type (v) != G_TYPE_INT64
        || json_node_get_int (v) < 1 || json_node_get_int (v) > MAX_DIMENSION) {
      *why = g_strdup_printf ("\"%s\".\"%s\" must be a whole number of "
          "pixels from 1 to %d", name, axis[i], MAX_DIMENSION);
      return FALSE;
    }
    *out[i] = (gint) json_node_get_int (v);
  }
  return TRUE;
}

/* Gyroflow's distortion_model: absent or null is OpenCV's fisheye model
 * (the calibrator's own); the other models Gyroflow knows (poly3, poly5,
 * ptlens, sony, insta360, GoPro's) are not OpenCV's and are refused. */
static gboolean
model (JsonObject * root, gint * lens_model, gchar ** why)
{
  JsonNode *node = member (root, "distortion_model");
  const gchar *name;

  *lens_model = BSPLINE_LENS_FISHEYE;
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING) {
    *why = g_strdup ("\"distortion_model\" must be a string");
    return FALSE;
  }
  name = json_node_get_string (node);
  if (g_str_equal (name, "opencv_fisheye"))
    return TRUE;
  if (g_str_equal (name, "opencv_standard")) {
    *lens_model = BSPLINE_LENS_BROWN;
    return TRUE;
  }
  *why = g_strdup_printf ("\"distortion_model\" is \"%.64s\"; the element "
      "takes OpenCV's models only, \"opencv_fisheye\" (or null) and "
      "\"opencv_standard\"", name);
  return FALSE;
}

/* fisheye_params: the camera matrix [[fx, 0, cx], [0, fy, cy], [0, 0, 1]]
 * and the coefficients. */
static gboolean
camera (JsonObject * root, GstBSplineLensProfile * p, gchar ** why)
{
  JsonNode *node = member (root, "fisheye_params");
  JsonObject *params;
  JsonArray *rows, *coeffs;
  guint max_coeffs = p->model == BSPLINE_LENS_FISHEYE ? 4 :
      BSPLINE_LENS_MAX_COEFFS;
  gdouble k[3][3];
  guint r, c;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node)) {
    *why = g_strdup ("needs \"fisheye_params\", an object with "
        "\"camera_matrix\" and \"distortion_coeffs\"");
    return FALSE;
  }
  params = json_node_get_object (node);
  node = member (params, "camera_matrix");
  rows = node && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node)
      : NULL;
  if (rows == NULL || json_array_get_length (rows) != 3)
    goto bad_matrix;
  for (r = 0; r < 3; r++) {
    JsonNode *row_node = json_array_get_element (rows, r);
    JsonArray *row = JSON_NODE_HOLDS_ARRAY (row_node) ?
        json_node_get_array (row_node) : NULL;
    if (row == NULL || json_array_get_length (row) != 3)
      goto bad_matrix;
    for (c = 0; c < 3; c++)
      if (!number (json_array_get_element (row, c), &k[r][c]))
        goto bad_matrix;
  }
  for (r = 0; r < 3; r++)
    for (c = 0; c < 3; c++)
      if (!isfinite (k[r][c]) || fabs (k[r][c]) > MAX_PIXELS) {
        *why = g_strdup_printf ("\"camera_matrix\" entry [%u][%u] is %g; "
            "entries are finite and at most %g pixels", r, c, k[r][c],
            MAX_PIXELS);
        return FALSE;
      }
  if (k[0][1] != 0.0 || k[1][0] != 0.0 || k[2][0] != 0.0 || k[2][1] != 0.0
      || k[2][2] != 1.0) {
    *why = g_strdup ("\"camera_matrix\" must be [[fx, 0, cx], [0, fy, cy], "
        "[0, 0, 1]] (no skew)");
    return FALSE;
  }
  if (!(k[0][0] > 0.0 && k[1][1] > 0.0)) {
    *why = g_strdup_printf ("\"camera_matrix\" has fx = %g and fy = %g; both "
        "must be positive", k[0][0], k[1][1]);
    return FALSE;
  }
  p->camera[0] = k[0][0];
  p->camera[1] = k[1][1];
  p->camera[2] = k[0][2];
  p->camera[3] = k[1][2];

  node = member (params, "distortion_coeffs");
  coeffs = node && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node)
      : NULL;
  if (coeffs == NULL || json_array_get_length (coeffs) > max_coeffs) {
    *why = g_strdup_printf ("\"distortion_coeffs\" must be an array of at "
        "most %u numbers for %s", max_coeffs,
        p->model == BSPLINE_LENS_FISHEYE ? "opencv_fisheye" :
        "opencv_standard");
    return FALSE;
  }
  p->n_distortion = json_array_get_length (coeffs);
  for (c = 0; c < p->n_distortion; c++) {
    gdouble v;
    if (!number (json_array_get_element (coeffs, c), &v) || !isfinite (v)
        || fabs (v) > MAX_COEFFICIENT) {
      *why = g_strdup_printf ("\"distortion_coeffs\" entry %u is not a "
          "finite number of magnitude at most %g", c, MAX_COEFFICIENT);
      return FALSE;
    }
    p->distortion[c] = v;
  }
  return TRUE;

bad_matrix:
  *why = g_strdup ("\"fisheye_params\".\"camera_matrix\" must be 3 rows of 3 "
      "numbers");
  return FALSE;
}

/* What Gyroflow applies beyond OpenCV's model: "asymmetrical" false puts
 * the principal point at the frame's centre, "crop" divides the focal
 * lengths; a digital lens or an input stretch is another stage, refused. */
static gboolean
adjustments (JsonObject * root, GstBSplineLensProfile * p, gchar ** why)
{
  JsonNode *node;
  const gchar *stretch[2] = { "input_horizontal_stretch",
    "input_vertical_stretch"
  };
  gdouble crop;
  guint i;

  node = member (root, "asymmetrical");
  if (node && (!JSON_NODE_HOLDS_VALUE (node)
          || json_node_get_value_type (node) != G_TYPE_BOOLEAN)) {
    *why = g_strdup ("\"asymmetrical\" must be true or false");
    return FALSE;
  }
  if (node == NULL || !json_node_get_boolean (node)) {
    /* the centre in OpenCV's convention (the first pixel's centre at 0) */
    p->camera[2] = (p->calib_width - 1) / 2.0;
    p->camera[3] = (p->calib_height - 1) / 2.0;
  }
  node = member (root, "crop");
  if (node) {
    if (!number (node, &crop) || !(crop >= 0.01 && crop <= 100.0)) {
      *why = g_strdup ("\"crop\" must be null or a number from 0.01 to 100");
      return FALSE;
    }
    p->camera[0] /= crop;
    p->camera[1] /= crop;
  }
  node = member (root, "digital_lens");
  if (node && !(JSON_NODE_HOLDS_VALUE (node)
          && json_node_get_value_type (node) == G_TYPE_STRING
          && *json_node_get_string (node) == '\0')) {
    *why = g_strdup ("has a \"digital_lens\" (a camera's own stretch after "
        "the lens, such as GoPro's SuperView), which the element does not "
        "model");
    return FALSE;
  }
  for (i = 0; i < 2; i++) {
    gdouble v;
    node = member (root, stretch[i]);
    if (node == NULL)
      continue;
    /* Gyroflow reads 0.01 and less as 1 */
    if (!number (node, &v) || !isfinite (v)) {
      *why = g_strdup_printf ("\"%s\" must be a number", stretch[i]);
      return FALSE;
    }
    if (v > 0.01 && fabs (v - 1.0) > 1e-9) {
      *why = g_strdup_printf ("\"%s\" is %g: an anamorphic stretch, which "
          "the element does not model (1 or null only)", stretch[i], v);
      return FALSE;
    }
  }
  return TRUE;
}

gboolean
gst_bspline_lens_profile_load (GstBSplineLensProfile * profile,
    const gchar * location)
{
  GstBSplineLensProfile p;
  JsonParser *parser = NULL;
  JsonNode *root_node;
  JsonObject *root;
  GError *error = NULL;
  gchar *data, *why = NULL;
  gsize size = 0;
  gboolean ok = FALSE;

  memset (&p, 0, sizeof (p));
  if (location == NULL || *location == '\0') {
    *profile = p;
    return TRUE;
  }
  data = read_file (location, &size, &why);
  if (data == NULL)
    goto done;
  if (!g_utf8_validate (data, size, NULL)) {
    why = g_strdup ("is not JSON (not UTF-8 text)");
    goto done;
  }
  if (nesting (data, size) > MAX_NESTING) {
    why = g_strdup_printf ("nests arrays or objects deeper than %d levels; "
        "a Gyroflow lens profile nests 4", MAX_NESTING);
    goto done;
  }
  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, data, (gssize) size, &error)) {
    why = g_strdup_printf ("is not JSON: %s", error->message);
    g_clear_error (&error);
    goto done;
  }
  root_node = json_parser_get_root (parser);
  if (root_node == NULL || !JSON_NODE_HOLDS_OBJECT (root_node)) {
    why = g_strdup ("is JSON but not an object; a Gyroflow lens profile is "
        "one object");
    goto done;
  }
  root = json_node_get_object (root_node);
  if (!dimensions (root, "calib_dimension", TRUE, &p.calib_width,
          &p.calib_height, &why)
      || !dimensions (root, "output_dimension", FALSE, &p.output_width,
          &p.output_height, &why)
      || !model (root, &p.model, &why) || !camera (root, &p, &why)
      || !adjustments (root, &p, &why))
    goto done;
  p.state = GST_BSPLINE_LENS_PROFILE_LOADED;
  *profile = p;
  ok = TRUE;

done:
  if (!ok)
    fail (profile, location, why);
  g_free (why);
  g_free (data);
  if (parser)
    g_object_unref (parser);
  return ok;
}

/* The distorted frame's size (the camera matrix's frame: the input when
 * undistorting, the output before its reorientation when distorting) and
 * the undistorted frame's. */
static void
frame_sizes (const bspline_geometry * g, gint distorted[2], gint undistorted[2])
{
  gboolean swap = bspline_orientation_swaps_axes (g->orientation);
  gint out_w = swap ? g->dst_height : g->dst_width;
  gint out_h = swap ? g->dst_width : g->dst_height;
  gint *to_out = g->lens_distort ? distorted : undistorted;
  gint *to_in = g->lens_distort ? undistorted : distorted;

  to_out[0] = out_w;
  to_out[1] = out_h;
  to_in[0] = g->src_width;
  to_in[1] = g->src_height;
}

static gboolean
same_shape (gint w, gint h, gint cw, gint ch)
{
  gdouble sx = (gdouble) w / cw, sy = (gdouble) h / ch;

  return fabs (sx / sy - 1.0) <= ASPECT_TOLERANCE;
}

gboolean
gst_bspline_lens_profile_check (const GstBSplineLensProfile * profile,
    const bspline_geometry * geometry, gchar * msg, gsize msg_len)
{
  gint distorted[2], undistorted[2];

  if (profile->state == GST_BSPLINE_LENS_PROFILE_FAILED) {
    g_strlcpy (msg, profile->message, msg_len);
    return FALSE;
  }
  if (profile->state != GST_BSPLINE_LENS_PROFILE_LOADED)
    return TRUE;
  frame_sizes (geometry, distorted, undistorted);
  if (!same_shape (distorted[0], distorted[1], profile->calib_width,
          profile->calib_height)) {
    g_snprintf (msg, msg_len, "the lens profile was calibrated at %dx%d and "
        "the %s frame is %dx%d, another shape: a profile scales to frames of "
        "its own shape only (a cropped sensor needs its own camera-matrix)",
        profile->calib_width, profile->calib_height,
        geometry->lens_distort ? "output" : "input", distorted[0],
        distorted[1]);
    return FALSE;
  }
  if (profile->output_width > 0 && !same_shape (undistorted[0],
          undistorted[1], profile->output_width, profile->output_height)) {
    g_snprintf (msg, msg_len, "the lens profile's output_dimension is %dx%d "
        "and the undistorted frame is %dx%d, another shape: set "
        "new-camera-matrix, or caps of the profile's output shape",
        profile->output_width, profile->output_height, undistorted[0],
        undistorted[1]);
    return FALSE;
  }
  return TRUE;
}

/* camera (OpenCV's convention, in pixels of a cw x ch frame) in pixels of
 * a w x h frame: the pixel areas scale, so the centres' coordinates c
 * become (c + 0.5) s - 0.5. */
static void
scale_camera (const gdouble camera[4], gint cw, gint ch, gint w, gint h,
    gdouble out[4])
{
  gdouble sx = (gdouble) w / cw, sy = (gdouble) h / ch;

  out[0] = camera[0] * sx;
  out[1] = camera[1] * sy;
  out[2] = (camera[2] + 0.5) * sx - 0.5;
  out[3] = (camera[3] + 0.5) * sy - 0.5;
}

void
gst_bspline_lens_profile_geometry (const GstBSplineLensProfile * profile,
    bspline_geometry * geometry)
{
  gint distorted[2], undistorted[2];
  guint i;

  if (profile->state != GST_BSPLINE_LENS_PROFILE_LOADED)
    return;
  frame_sizes (geometry, distorted, undistorted);
  geometry->lens_model = profile->model;
  scale_camera (profile->camera, profile->calib_width,
      profile->calib_height, distorted[0], distorted[1], geometry->camera);
  memset (geometry->distortion, 0, sizeof (geometry->distortion));
  for (i = 0; i < profile->n_distortion; i++)
    geometry->distortion[i] = profile->distortion[i];
  geometry->n_distortion = (int) profile->n_distortion;
  /* Gyroflow's own output: the calibration's focal lengths at the centre
   * of a frame of output_dimension */
  if (profile->output_width > 0 && (profile->output_width !=
          profile->calib_width
          || profile->output_height != profile->calib_height)) {
    gdouble view[4] = { profile->camera[0], profile->camera[1],
      (profile->output_width - 1) / 2.0, (profile->output_height - 1) / 2.0
    };
    scale_camera (view, profile->output_width, profile->output_height,
        undistorted[0], undistorted[1], geometry->new_camera);
    geometry->new_camera_set = 1;
  }
}
