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
/* gstbsplinetransforms.c: see gstbsplinetransforms.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gstbsplinetransforms.h"

#define HEADER "bsplinestabilize-transforms"
#define ROLLING "rolling-shutter"
/* the words of a record at most: version 3's with the most bands */
#define RECORD_MAX_WORDS (9 + 3 * BSPLINE_ROLLING_MAX_BANDS)

G_DEFINE_QUARK (gst - bspline - transforms - error - quark,
    gst_bspline_transforms_error);

/* What kind of file st is, for a message. */
static const gchar *
gst_bspline_transforms_file_kind (const struct stat *st)
{
  if (S_ISDIR (st->st_mode))
    return "a directory";
  if (S_ISFIFO (st->st_mode))
    return "a FIFO";
  if (S_ISCHR (st->st_mode) || S_ISBLK (st->st_mode))
    return "a device";
  if (S_ISSOCK (st->st_mode))
    return "a socket";
  return "not a regular file";
}

/* The whole file, at most GST_BSPLINE_TRANSFORMS_MAX_BYTES of a regular
 * file: opened without blocking (a FIFO would wait for a writer). */
static gchar *
gst_bspline_transforms_load (const gchar * path, gsize * length,
    GError ** error)
{
  struct stat st;
  gchar *data = NULL;
  gsize got = 0;
  int fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

  if (fd < 0 || fstat (fd, &st) != 0)
    goto failed;
  if (!S_ISREG (st.st_mode)) {
    g_set_error (error, GST_BSPLINE_TRANSFORMS_ERROR,
        GST_BSPLINE_TRANSFORMS_ERROR_OPEN, "\"%s\" is %s, not a regular file",
        path, gst_bspline_transforms_file_kind (&st));
    close (fd);
    return NULL;
  }
  if (st.st_size > GST_BSPLINE_TRANSFORMS_MAX_BYTES)
    goto too_large;
  /* one byte more than it says, to see it grow */
  data = g_malloc ((gsize) st.st_size + 2);
  while (got < (gsize) st.st_size + 1) {
    ssize_t n = read (fd, data + got, (gsize) st.st_size + 1 - got);

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      goto failed;
    if (n == 0)
      break;
    got += n;
  }
  if (got > (gsize) st.st_size)
    goto too_large;
  close (fd);
  data[got] = '\0';
  *length = got;
  return data;

failed:
  g_set_error (error, GST_BSPLINE_TRANSFORMS_ERROR,
      GST_BSPLINE_TRANSFORMS_ERROR_OPEN, "Could not read \"%s\": %s", path,
      g_strerror (errno));
  if (fd >= 0)
    close (fd);
  g_free (data);
  return NULL;
too_large:
  g_set_error (error, GST_BSPLINE_TRANSFORMS_ERROR,
      GST_BSPLINE_TRANSFORMS_ERROR_OPEN, "\"%s\" is larger than %d bytes, "
      "more than any transforms file", path, GST_BSPLINE_TRANSFORMS_MAX_BYTES);
  close (fd);
  g_free (data);
  return NULL;
}

/* A whole decimal integer in [min, max]. */
static gboolean
gst_bspline_transforms_integer (const gchar * token, gint64 min, gint64 max,
    gint64 * value)
{
  gchar *end;

  errno = 0;
  *value = g_ascii_strtoll (token, &end, 10);
  return errno == 0 && end != token && *end == '\0' && *value >= min
      && *value <= max;
}

static gboolean
gst_bspline_transforms_number (const gchar * token, gdouble * value)
{
  gchar *end;

  *value = g_ascii_strtod (token, &end);
  return end != token && *end == '\0';
}

/* What is wrong with version 3's band triples in tokens (n_bands of them)
 * of a frame of width x height, or NULL; appends them to bands. */
static const gchar *
gst_bspline_transforms_read_bands (gchar ** tokens, gint n_bands, gint width,
    gint height, GArray * bands)
{
  gint b;

  for (b = 0; b < n_bands; b++) {
    gdouble v[3];
    gint64 reliable;

    if (!gst_bspline_transforms_number (tokens[3 * b], &v[0])
        || !gst_bspline_transforms_number (tokens[3 * b + 1], &v[1])
        || !gst_bspline_transforms_integer (tokens[3 * b + 2], 0, 1, &reliable))
      return "a band triple that is not \"X Y RELIABLE\" (two numbers, then "
          "0 or 1)";
    if (!isfinite (v[0]) || !isfinite (v[1]))
      return "a band translation that is not a finite number";
    if (fabs (v[0]) > GST_BSPLINE_TRANSFORMS_MAX_SHIFT * width
        || fabs (v[1]) > GST_BSPLINE_TRANSFORMS_MAX_SHIFT * height)
      return "a band translation of more than 10 frame widths or heights";
    v[2] = (gdouble) reliable;
    g_array_append_vals (bands, v, 3);
  }
  return NULL;
}

/* What is wrong with motion m of a frame of width x height, or NULL. */
static const gchar *
gst_bspline_transforms_check_motion (const gdouble m[6], gint width,
    gint height)
{
  gdouble det = m[0] * m[4] - m[1] * m[3];
  guint i;

  for (i = 0; i < 6; i++)
    if (!isfinite (m[i]))
      return "a value that is not a finite number";
  if (!(det > 0.0))
    return "a linear part whose determinant is not positive (singular or "
        "mirrored)";
  if (sqrt (det) < GST_BSPLINE_TRANSFORMS_MIN_SCALE
      || sqrt (det) > GST_BSPLINE_TRANSFORMS_MAX_SCALE)
    return "a scale (square root of the determinant) outside 0.1-10";
  if (fabs (m[2]) > GST_BSPLINE_TRANSFORMS_MAX_SHIFT * width
      || fabs (m[5]) > GST_BSPLINE_TRANSFORMS_MAX_SHIFT * height)
    return "a shift of more than 10 frame widths or heights";
  return NULL;
}

static gint
gst_bspline_transforms_compare_pts (gconstpointer a, gconstpointer b)
{
  const GstBSplineTransformsRecord *ra = a, *rb = b;

  if (ra->pts != rb->pts)
    return ra->pts < rb->pts ? -1 : 1;
  /* a PTS recorded twice: the later record after the earlier */
  return ra->index < rb->index ? -1 : ra->index > rb->index;
}

/* Records in presentation order, one a PTS: of a PTS recorded twice the
 * later record, unless it is unreliable and the earlier is not.  Where a
 * record has no PTS, the file's order is kept. */
static void
gst_bspline_transforms_order (GstBSplineTransformsSection * s)
{
  GArray *r = s->records;
  guint i, kept = 0;

  for (i = 0; i < r->len; i++)
    if (g_array_index (r, GstBSplineTransformsRecord, i).pts ==
        GST_CLOCK_TIME_NONE)
      return;
  g_array_sort (r, gst_bspline_transforms_compare_pts);
  for (i = 0; i < r->len; i++) {
    GstBSplineTransformsRecord *rec =
        &g_array_index (r, GstBSplineTransformsRecord, i);
    GstBSplineTransformsRecord *last = kept ?
        &g_array_index (r, GstBSplineTransformsRecord, kept - 1) : NULL;

    if (last && last->pts == rec->pts) {
      if (rec->reliable || !last->reliable)
        *last = *rec;
      continue;
    }
    g_array_index (r, GstBSplineTransformsRecord, kept++) = *rec;
  }
  g_array_set_size (r, kept);
}

static void
gst_bspline_transforms_section_free (gpointer data)
{
  GstBSplineTransformsSection *s = data;

  g_array_free (s->records, TRUE);
  if (s->bands)
    g_array_free (s->bands, TRUE);
  g_free (s);
}

void
gst_bspline_transforms_free (GstBSplineTransformsFile * file)
{
  if (file == NULL)
    return;
  g_free (file->path);
  g_ptr_array_free (file->sections, TRUE);
  g_free (file);
}

GstBSplineTransformsFile *
gst_bspline_transforms_read (const gchar * path, GError ** error)
{
  GstBSplineTransformsFile *file;
  GstBSplineTransformsSection *section = NULL;
  gchar *data, *line, *next, *quoted;
  const gchar *problem = NULL;
  gsize length;
  guint number = 0, i;
  gint version = 0;

  data = gst_bspline_transforms_load (path, &length, error);
  if (data == NULL)
    return NULL;
  file = g_new0 (GstBSplineTransformsFile, 1);
  file->path = g_strdup (path);
  file->sections = g_ptr_array_new_with_free_func
      (gst_bspline_transforms_section_free);
  if (memchr (data, '\0', length)) {
    g_set_error (error, GST_BSPLINE_TRANSFORMS_ERROR,
        GST_BSPLINE_TRANSFORMS_ERROR_FORMAT, "\"%s\" has a NUL byte at "
        "offset %" G_GSIZE_FORMAT ": it is not a text file", path,
        (gsize) ((const gchar *) memchr (data, '\0', length) - data));
    goto failed;
  }

  for (line = data; line; line = next) {
    gchar **split, *tokens[RECORD_MAX_WORDS];
    guint n = 0, k;

    next = strchr (line, '\n');
    if (next)
      *next++ = '\0';
    number++;
    g_strstrip (line);
    if (*line == '\0' || *line == '#')
      continue;
    /* the words of the line (runs of blanks split into empty ones) */
    split = g_strsplit_set (line, " \t", -1);
    for (k = 0; split[k]; k++)
      if (*split[k] != '\0' && n++ < G_N_ELEMENTS (tokens))
        tokens[n - 1] = split[k];
    problem = NULL;
    if (g_strcmp0 (tokens[0], HEADER) == 0) {
      gint64 v;

      if (version != 0)
        problem = "a second version line";
      else if (n != 2 || !gst_bspline_transforms_integer (tokens[1], 1,
              GST_BSPLINE_TRANSFORMS_VERSION, &v))
        problem = "a version this element does not read (it reads 1 to 3)";
      else
        version = (gint) v;
    } else if (version == 0) {
      problem = "no \"" HEADER "\" line before it";
    } else if (g_strcmp0 (tokens[0], ROLLING) == 0) {
      gint64 bands;
      gdouble readout;

      if (version < 3)
        problem = "a " ROLLING " line in a version 1 or 2 file";
      else if (section)
        problem = "a " ROLLING " line after a size line";
      else if (file->n_bands != 0)
        problem = "a second " ROLLING " line";
      else if (n != 3 || !gst_bspline_transforms_number (tokens[1], &readout)
          || !(readout > 0.0 && readout <= 1.0)
          || !gst_bspline_transforms_integer (tokens[2], 2,
              BSPLINE_ROLLING_MAX_BANDS, &bands))
        problem = "a " ROLLING " line that is not \"" ROLLING " READOUT "
            "BANDS\" (READOUT above 0 and at most 1, BANDS 2 to 32)";
      else {
        file->readout = readout;
        file->n_bands = (gint) bands;
      }
    } else if (version == 3 && file->n_bands == 0) {
      problem = "no \"" ROLLING "\" line before it (version 3 has one "
          "before the first size line)";
    } else if (g_strcmp0 (tokens[0], "size") == 0) {
      gint64 w, h;

      if (n != 3 || !gst_bspline_transforms_integer (tokens[1], 1,
              GST_BSPLINE_TRANSFORMS_MAX_SIZE, &w)
          || !gst_bspline_transforms_integer (tokens[2], 1,
              GST_BSPLINE_TRANSFORMS_MAX_SIZE, &h))
        problem = "a size line whose width and height are not whole numbers "
            "from 1 to 32768";
      else if (version == 1 && section)
        problem = "a second size line (version 1 files have one)";
      else {
        section = g_new0 (GstBSplineTransformsSection, 1);
        section->width = (gint) w;
        section->height = (gint) h;
        section->line = number;
        section->records = g_array_new (FALSE, FALSE,
            sizeof (GstBSplineTransformsRecord));
        if (file->n_bands > 0)
          section->bands = g_array_new (FALSE, FALSE, sizeof (gdouble));
        g_ptr_array_add (file->sections, section);
      }
    } else if (section == NULL) {
      problem = "no size line before it";
    } else {
      GstBSplineTransformsRecord r;
      gint64 index, reliable, pts = -1;

      memset (&r, 0, sizeof (r));
      if (n != (version == 1 ? 8u : 9u + 3u * file->n_bands)
          || !gst_bspline_transforms_integer (tokens[0], 0, G_MAXINT64, &index)
          || !gst_bspline_transforms_integer (tokens[1], 0, 1, &reliable)
          || (version >= 2 && !gst_bspline_transforms_integer (tokens[8], -1,
                  G_MAXINT64, &pts)))
        problem = version == 1 ? "not a record \"INDEX RELIABLE M0 M1 M2 M3 "
            "M4 M5\"" : version == 2 ? "not a record \"INDEX RELIABLE M0 M1 "
            "M2 M3 M4 M5 PTS\" (RELIABLE 0 or 1, PTS in nanoseconds or -1)"
            : "not a record \"INDEX RELIABLE M0 M1 M2 M3 M4 M5 PTS\" and "
            "one \"X Y RELIABLE\" a band, as many as the " ROLLING " line's "
            "BANDS (RELIABLE 0 or 1, PTS in nanoseconds or -1)";
      for (i = 0; !problem && i < 6; i++)
        if (!gst_bspline_transforms_number (tokens[2 + i], &r.motion.m[i]))
          problem = "a motion value that is not a number";
      if (!problem)
        problem = gst_bspline_transforms_check_motion (r.motion.m,
            section->width, section->height);
      if (!problem && section->bands) {
        r.bands = section->bands->len;
        problem = gst_bspline_transforms_read_bands (tokens + 9,
            file->n_bands, section->width, section->height, section->bands);
      }
      if (!problem && version == 1 && (guint64) index != section->records->len)
        problem = "a record out of order (version 1 numbers frames from 0)";
      if (!problem) {
        r.index = (guint64) index;
        r.reliable = reliable != 0;
        r.pts = pts < 0 ? GST_CLOCK_TIME_NONE : (GstClockTime) pts;
        g_array_append_val (section->records, r);
      }
    }
    g_strfreev (split);
    if (problem)
      goto bad_line;
  }
  if (file->sections->len == 0) {
    g_set_error (error, GST_BSPLINE_TRANSFORMS_ERROR,
        GST_BSPLINE_TRANSFORMS_ERROR_FORMAT, "\"%s\" has no size line: it "
        "is not a transforms file", path);
    goto failed;
  }
  file->version = version;
  for (i = 0; i < file->sections->len; i++)
    gst_bspline_transforms_order (g_ptr_array_index (file->sections, i));
  g_free (data);
  return file;

bad_line:
  /* the line as C escapes, so that a binary file's bytes stay printable
   * (and valid UTF-8) in the message */
  line[MIN (strlen (line), 80)] = '\0';
  quoted = g_strescape (line, NULL);
  g_set_error (error, GST_BSPLINE_TRANSFORMS_ERROR,
      GST_BSPLINE_TRANSFORMS_ERROR_FORMAT, "Line %u of \"%s\" has %s: \"%s\"",
      number, path, problem, quoted);
  g_free (quoted);
failed:
  g_free (data);
  gst_bspline_transforms_free (file);
  return NULL;
}

const GstBSplineTransformsRecord *
gst_bspline_transforms_find (const GstBSplineTransformsSection * s,
    GstClockTime pts, GstClockTime tolerance, guint64 position)
{
  const GstBSplineTransformsRecord *r =
      (const GstBSplineTransformsRecord *) s->records->data;
  guint lo = 0, hi = s->records->len;

  if (hi == 0)
    return NULL;
  if (!GST_CLOCK_TIME_IS_VALID (pts) || r[0].pts == GST_CLOCK_TIME_NONE)
    return position < hi ? &r[position] : NULL;
  /* the first record at or after pts, then the nearer of it and the one
   * before */
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;

    if (r[mid].pts < pts)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == s->records->len || (lo > 0 && pts - r[lo - 1].pts <
          r[lo].pts - pts))
    lo--;
  if ((r[lo].pts > pts ? r[lo].pts - pts : pts - r[lo].pts) > tolerance)
    return NULL;
  return &r[lo];
}

static gboolean
gst_bspline_transforms_write_failed (GstBSplineTransformsWriter * writer,
    GError ** error)
{
  g_set_error (error, GST_BSPLINE_TRANSFORMS_ERROR,
      GST_BSPLINE_TRANSFORMS_ERROR_WRITE, "Could not write \"%s\": %s",
      writer->path, g_strerror (errno));
  return FALSE;
}

gboolean
gst_bspline_transforms_writer_open (GstBSplineTransformsWriter * writer,
    const gchar * path, gdouble readout, gint n_bands, GError ** error)
{
  struct stat st;
  int fd;

  memset (writer, 0, sizeof (*writer));
  writer->path = g_strdup (path);
  /* not O_TRUNC yet: a device or a FIFO is refused untouched; without
   * blocking, a FIFO with no reader fails here (ENXIO) instead of waiting */
  fd = open (path, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0666);
  if (fd < 0 || fstat (fd, &st) != 0) {
    g_set_error (error, GST_BSPLINE_TRANSFORMS_ERROR,
        GST_BSPLINE_TRANSFORMS_ERROR_OPEN, "Could not open \"%s\" for "
        "writing: %s", path, g_strerror (errno));
    goto failed;
  }
  if (!S_ISREG (st.st_mode)) {
    g_set_error (error, GST_BSPLINE_TRANSFORMS_ERROR,
        GST_BSPLINE_TRANSFORMS_ERROR_OPEN, "\"%s\" is %s, not a regular file",
        path, gst_bspline_transforms_file_kind (&st));
    goto failed;
  }
  if (ftruncate (fd, 0) != 0 || (writer->file = fdopen (fd, "w")) == NULL) {
    g_set_error (error, GST_BSPLINE_TRANSFORMS_ERROR,
        GST_BSPLINE_TRANSFORMS_ERROR_OPEN, "Could not open \"%s\" for "
        "writing: %s", path, g_strerror (errno));
    goto failed;
  }
  writer->n_bands = readout > 0.0 ? n_bands : 0;
  if ((writer->n_bands == 0 && fprintf (writer->file, HEADER " 2\n# INDEX "
              "RELIABLE M0 M1 M2 M3 M4 M5 PTS: motion from the previous "
              "frame, (x, y) -> (M0 x + M1 y + M2, M3 x + M4 y + M5), "
              "pixels; PTS in ns\n") < 0)
      || (writer->n_bands > 0 && fprintf (writer->file, HEADER " 3\n# INDEX "
              "RELIABLE M0 M1 M2 M3 M4 M5 PTS, then X Y RELIABLE of each "
              "band of rows: motion from the previous frame, (x, y) -> (M0 "
              "x + M1 y + M2, M3 x + M4 y + M5), pixels; PTS in ns; each "
              "band's translation, pixels\n" ROLLING " %.17g %d\n", readout,
              writer->n_bands) < 0)) {
    gst_bspline_transforms_write_failed (writer, error);
    gst_bspline_transforms_writer_close (writer, NULL);
    return FALSE;
  }
  return TRUE;

failed:
  if (fd >= 0)
    close (fd);
  g_clear_pointer (&writer->path, g_free);
  return FALSE;
}

gboolean
gst_bspline_transforms_writer_section (GstBSplineTransformsWriter * writer,
    gint width, gint height, GError ** error)
{
  writer->sections++;
  writer->index = 0;
  if (fprintf (writer->file, "size %d %d\n", width, height) < 0
      || fflush (writer->file) != 0)
    return gst_bspline_transforms_write_failed (writer, error);
  return TRUE;
}

gboolean
gst_bspline_transforms_writer_record (GstBSplineTransformsWriter * writer,
    GstClockTime pts, const bspline_motion_result * result,
    const gdouble * band_motion, const gint * band_reliable, GError ** error)
{
  const gdouble *m = result->motion.m;
  gint b;

  if (fprintf (writer->file, "%" G_GUINT64_FORMAT " %d %.17g %.17g %.17g "
          "%.17g %.17g %.17g %" G_GINT64_FORMAT, writer->index++,
          result->reliable != 0, m[0], m[1], m[2], m[3], m[4], m[5],
          GST_CLOCK_TIME_IS_VALID (pts) ? (gint64) pts : (gint64) - 1) < 0)
    return gst_bspline_transforms_write_failed (writer, error);
  for (b = 0; b < writer->n_bands; b++)
    if (fprintf (writer->file, " %.17g %.17g %d", band_motion[2 * b],
            band_motion[2 * b + 1], band_reliable[b] != 0) < 0)
      return gst_bspline_transforms_write_failed (writer, error);
  if (fputc ('\n', writer->file) == EOF)
    return gst_bspline_transforms_write_failed (writer, error);
  return TRUE;
}

gboolean
gst_bspline_transforms_writer_flush (GstBSplineTransformsWriter * writer,
    GError ** error)
{
  if (writer->file && fflush (writer->file) != 0)
    return gst_bspline_transforms_write_failed (writer, error);
  return TRUE;
}

gboolean
gst_bspline_transforms_writer_close (GstBSplineTransformsWriter * writer,
    GError ** error)
{
  gboolean ok = TRUE;

  if (writer->file) {
    ok = fflush (writer->file) == 0 && !ferror (writer->file);
    if (!ok)
      gst_bspline_transforms_write_failed (writer, error);
    if (fclose (writer->file) != 0 && ok)
      ok = gst_bspline_transforms_write_failed (writer, error);
  }
  g_free (writer->path);
  memset (writer, 0, sizeof (*writer));
  return ok;
}

/* ---- the file over a stream of bsplinestabilize: its sections ---- */

void
gst_bspline_transforms_post_error (GstElement * element, GError * error,
    gboolean read)
{
  if (error->code == GST_BSPLINE_TRANSFORMS_ERROR_FORMAT)
    GST_ELEMENT_ERROR (element, STREAM, DECODE, ("The transforms file cannot "
            "be used: %s.", error->message), ("transforms-mode=read"));
  else if (error->code == GST_BSPLINE_TRANSFORMS_ERROR_WRITE)
    GST_ELEMENT_ERROR (element, RESOURCE, WRITE, ("%s.", error->message),
        ("transforms-mode=write"));
  else if (read)
    GST_ELEMENT_ERROR (element, RESOURCE, OPEN_READ, ("%s.", error->message),
        ("transforms-mode=read"));
  else
    GST_ELEMENT_ERROR (element, RESOURCE, OPEN_WRITE, ("%s.", error->message),
        ("transforms-mode=write"));
  g_error_free (error);
}

gboolean
gst_bspline_transforms_stream_open (GstBSplineTransformsStream * stream,
    const gchar * location, gboolean read, gdouble readout, gint n_bands,
    GError ** error)
{
  stream->next_section = 0;
  stream->new_section = TRUE;
  if (read) {
    stream->file = gst_bspline_transforms_read (location, error);
    return stream->file != NULL;
  }
  return gst_bspline_transforms_writer_open (&stream->writer, location,
      readout, n_bands, error);
}

/* The rolling-shutter trajectory over the whole of section (frame i its
 * record i) from its bands into stream->knots; FALSE and msg where it
 * cannot be solved. */
static gboolean
gst_bspline_transforms_solve_rolling (GstBSplineTransformsStream * stream,
    const GstBSplineTransformsSection * section,
    const bspline_rolling_params * rolling, gchar * msg, gsize msg_len)
{
  gint n = (gint) section->records->len, kb = rolling->n_bands, f, b;
  gdouble *motion;
  gint *reliable;
  bspline_status status;

  g_clear_pointer (&stream->knots, g_free);
  stream->n_knots = 0;
  /* (a section without records: its frames find none) */
  if (n == 0)
    return TRUE;
  motion = g_try_new (gdouble, (gsize) n * kb * 2);
  reliable = g_try_new (gint, (gsize) n * kb);
  stream->n_knots = bspline_rolling_n_knots (rolling, n);
  stream->knots = g_try_new (gdouble, (gsize) stream->n_knots * 2);
  if (motion == NULL || reliable == NULL || stream->knots == NULL) {
    g_strlcpy (msg, "out of memory", msg_len);
    status = BSPLINE_ERROR_NO_MEMORY;
    goto done;
  }
  for (f = 0; f < n; f++) {
    const GstBSplineTransformsRecord *r =
        &g_array_index (section->records, GstBSplineTransformsRecord, f);
    const gdouble *v = &g_array_index (section->bands, gdouble, r->bands);

    for (b = 0; b < kb; b++) {
      motion[((gsize) f * kb + b) * 2] = v[3 * b];
      motion[((gsize) f * kb + b) * 2 + 1] = v[3 * b + 1];
      reliable[(gsize) f * kb + b] = v[3 * b + 2] != 0.0;
    }
  }
  status = bspline_rolling_solve (rolling, n, motion, reliable, stream->knots,
      msg, msg_len);
done:
  g_free (motion);
  g_free (reliable);
  if (status != BSPLINE_OK) {
    g_clear_pointer (&stream->knots, g_free);
    stream->n_knots = 0;
  }
  return status == BSPLINE_OK;
}

gboolean
gst_bspline_transforms_stream_start_section (GstBSplineTransformsStream *
    stream, GstElement * element, bspline_stabilizer * stabilizer,
    const bspline_rolling_params * rolling, gint w, gint h)
{
  GstBSplineTransformsFile *file = stream->file;
  GstBSplineTransformsSection *section;
  bspline_stabilize_result result;
  GError *error = NULL;
  gchar msg[256] = "";
  guint i;

  stream->new_section = FALSE;
  stream->section_frames = 0;
  if (stream->writer.file) {
    if (!gst_bspline_transforms_writer_section (&stream->writer, w, h, &error)) {
      gst_bspline_transforms_post_error (element, error, FALSE);
      return FALSE;
    }
    return TRUE;
  }
  if (file == NULL)
    return TRUE;
  if (stream->next_section >= file->sections->len)
    goto no_section;
  section = g_ptr_array_index (file->sections, stream->next_section++);
  if (section->width != w || section->height != h)
    goto bad_size;
  if (stream->corrections == NULL)
    stream->corrections = g_array_new (FALSE, FALSE,
        sizeof (bspline_stabilize_result));
  g_array_set_size (stream->corrections, 0);
  bspline_stabilizer_reset (stabilizer);
  for (i = 0; i < section->records->len; i++)
    if (bspline_stabilizer_push (stabilizer, &g_array_index
            (section->records, GstBSplineTransformsRecord, i).motion)
        != BSPLINE_OK)
      goto no_memory;
  while (bspline_stabilizer_ready (stabilizer, TRUE)) {
    bspline_stabilizer_pop (stabilizer, TRUE, &result);
    g_array_append_val (stream->corrections, result);
  }
  if (rolling && !gst_bspline_transforms_solve_rolling (stream, section,
          rolling, msg, sizeof (msg)))
    goto no_trajectory;
  return TRUE;

  /* ERRORS */
no_section:
  {
    GST_ELEMENT_ERROR (element, STREAM, FAILED, ("The transforms file \"%s\" "
            "has %u section(s), one for each caps of the first pass; this "
            "stream has more (its caps changed more often).",
            file->path, file->sections->len), ("new caps: %dx%d", w, h));
    return FALSE;
  }
bad_size:
  {
    GST_ELEMENT_ERROR (element, STREAM, WRONG_TYPE, ("Section %u of the "
            "transforms file \"%s\" (line %u) is for %dx%d frames, the "
            "stream's are %dx%d.", stream->next_section, file->path,
            section->line, section->width, section->height, w, h), (NULL));
    return FALSE;
  }
no_memory:
  {
    GST_ELEMENT_ERROR (element, RESOURCE, NO_SPACE_LEFT, ("Not enough memory "
            "for the camera path of \"%s\".", file->path), (NULL));
    return FALSE;
  }
no_trajectory:
  {
    GST_ELEMENT_ERROR (element, STREAM, FAILED, ("The rolling-shutter "
            "trajectory of section %u of the transforms file \"%s\" (line "
            "%u) cannot be solved: %s.", stream->next_section, file->path,
            section->line, msg), (NULL));
    return FALSE;
  }
}

gboolean
gst_bspline_transforms_stream_read_record (GstBSplineTransformsStream *
    stream, GstElement * element, const GstVideoInfo * info,
    GstBuffer * buffer, bspline_motion_result * motion,
    bspline_stabilize_result * correction, guint * position)
{
  const GstBSplineTransformsSection *section =
      g_ptr_array_index (stream->file->sections, stream->next_section - 1);
  const GstBSplineTransformsRecord *record;
  GstClockTime pts = GST_BUFFER_PTS (buffer), tolerance = 0;
  gint fps_n = GST_VIDEO_INFO_FPS_N (info);
  gint fps_d = GST_VIDEO_INFO_FPS_D (info);

  if (fps_n > 0 && fps_d > 0)
    tolerance = gst_util_uint64_scale_int (GST_SECOND / 2, fps_d, fps_n);
  else if (GST_BUFFER_DURATION_IS_VALID (buffer))
    tolerance = GST_BUFFER_DURATION (buffer) / 2;
  record = gst_bspline_transforms_find (section, pts, tolerance,
      stream->section_frames);
  if (record == NULL)
    goto no_record;
  motion->motion = record->motion;
  motion->reliable = record->reliable;
  *position = (guint) (record - (const GstBSplineTransformsRecord *)
      section->records->data);
  *correction = g_array_index (stream->corrections,
      bspline_stabilize_result, *position);
  return TRUE;

  /* ERRORS */
no_record:
  {
    GST_ELEMENT_ERROR (element, STREAM, FAILED, ("The transforms file \"%s\" "
            "has no record for the frame at %" GST_TIME_FORMAT " (section "
            "%u, frame %" G_GUINT64_FORMAT " of it): it was written for "
            "another stream or another part of it.", stream->file->path,
            GST_TIME_ARGS (pts), stream->next_section,
            stream->section_frames), ("%u records in the section",
            section->records->len));
    return FALSE;
  }
}

gboolean
gst_bspline_transforms_stream_clear (GstBSplineTransformsStream * stream,
    GError ** error)
{
  gst_bspline_transforms_free (stream->file);
  stream->file = NULL;
  if (stream->corrections)
    g_array_free (stream->corrections, TRUE);
  stream->corrections = NULL;
  g_clear_pointer (&stream->knots, g_free);
  stream->n_knots = 0;
  stream->next_section = 0;
  stream->new_section = TRUE;
  stream->section_frames = 0;
  return gst_bspline_transforms_writer_close (&stream->writer, error);
}
