/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-transforms.c: bsplinestabilize's transforms file
 * (gst/gstbsplinetransforms.c, docs/stabilization.md), the hostile files
 * and paths of issue 27:
 *
 *  - what is not a regular file (a FIFO, /dev/zero, a directory) is
 *    refused at once, for reading and writing, and never blocks;
 *  - a file over the size bound, a NUL byte, a binary file, a missing size
 *    line, an overflowing size, values that are not finite, a scale of
 *    1e-300 or 1e200, a translation of 1e300, an all-zero record: an
 *    error naming the file, the line and the value, as valid UTF-8;
 *  - a failed write (a file size limit) is an error naming the file;
 *  - records written and read back exactly, with their PTS, in sections;
 *    a PTS recorded twice keeps the later record unless that one is
 *    unreliable; frames found by PTS within the tolerance; version 1 files
 *    read as before;
 *  - version 3 (rolling-shutter-readout > 0; readout 0 writes version 2):
 *    the readout and each record's bands read back exactly; hostile
 *    version 3 lines (band counts off by one, a truncated record, NaN,
 *    infinite and far band translations, a missing, misplaced or doubled
 *    rolling-shutter line, a readout or band count out of range) refused
 *    with the line named.
 */
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "test-common.h"
#include "gstbsplinetransforms.h"

static char dir[] = "/tmp/bspline-transforms-XXXXXX";

static char *
write_file (const char *name, const char *data, size_t len)
{
  char *path = g_build_filename (dir, name, NULL);
  FILE *f = fopen (path, "wb");

  fwrite (data, 1, len, f);
  fclose (f);
  return path;
}

/* Reads text as a transforms file: NULL and the error's message where it
 * is refused (the message must be valid UTF-8 and name the file). */
static GstBSplineTransformsFile *
read_text (const char *name, const char *text, size_t len, char **message)
{
  char *path = write_file (name, text, len);
  GError *error = NULL;
  GstBSplineTransformsFile *file = gst_bspline_transforms_read (path, &error);

  *message = NULL;
  if (error) {
    TEST_CHECK (g_utf8_validate (error->message, -1, NULL), "%s: the message "
        "is not valid UTF-8", name);
    TEST_CHECK (strstr (error->message, path) != NULL, "%s: the message "
        "does not name the file: %s", name, error->message);
    *message = g_strdup (error->message);
    g_error_free (error);
  }
  unlink (path);
  g_free (path);
  return file;
}

/* text must be refused with a message holding each of the words */
static void
check_refused (const char *name, const char *text, size_t len,
    const char *word1, const char *word2)
{
  char *message;
  GstBSplineTransformsFile *file = read_text (name, text, len, &message);

  TEST_CHECK (file == NULL, "%s: accepted", name);
  gst_bspline_transforms_free (file);
  if (message) {
    TEST_CHECK (!word1 || strstr (message, word1), "%s: \"%s\" not in the "
        "message: %s", name, word1, message);
    TEST_CHECK (!word2 || strstr (message, word2), "%s: \"%s\" not in the "
        "message: %s", name, word2, message);
  }
  g_free (message);
}

#define V2 "bsplinestabilize-transforms 2\nsize 320 180\n"
#define GOOD "1 1 1 0 2 0 1 -3 33333333\n"

static void
test_hostile_contents (void)
{
  static const char nul[] = V2 "0 1 1 0 0 0 1 0 0\n\0" GOOD;
  char binary[512];
  int i;

  check_refused ("not-finite", V2 "0 1 nan 0 0 0 1 0 0\n", strlen (V2) + 20,
      "Line 3", "finite");
  check_refused ("infinite", V2 "0 1 1 0 inf 0 1 0 0\n", strlen (V2) + 20,
      "Line 3", "finite");
  check_refused ("far-shift", V2 "0 1 1 0 1e300 0 1 0 0\n",
      strlen (V2) + 22, "Line 3", "shift");
  check_refused ("tiny-scale", V2 "0 1 1e-300 0 0 0 1e-300 0 0\n",
      strlen (V2) + 28, "Line 3", "scale");
  check_refused ("huge-scale", V2 "0 1 1e200 0 0 0 1e200 0 0\n",
      strlen (V2) + 26, "Line 3", "scale");
  check_refused ("all-zero", V2 "0 0 0 0 0 0 0 0 0\n", strlen (V2) + 18,
      "Line 3", "determinant");
  check_refused ("mirrored", V2 "0 1 -1 0 0 0 1 0 0\n", strlen (V2) + 19,
      "Line 3", "determinant");
  check_refused ("no-size", "bsplinestabilize-transforms 2\n" GOOD,
      30 + strlen (GOOD), "Line 2", "no size line");
  check_refused ("empty", "bsplinestabilize-transforms 2\n", 30,
      "no size line", NULL);
  check_refused ("no-header", "size 320 180\n", 13, "Line 1",
      "bsplinestabilize-transforms");
  check_refused ("size-overflow", "bsplinestabilize-transforms 2\n"
      "size 99999999999 180\n", 51, "Line 2", "32768");
  check_refused ("version-4", "bsplinestabilize-transforms 4\n", 30,
      "Line 1", "version");
  check_refused ("reliable-2", V2 "0 2 1 0 0 0 1 0 0\n", strlen (V2) + 18,
      "Line 3", "RELIABLE");
  check_refused ("nul-byte", nul, sizeof (nul) - 1, "NUL byte", "offset");
  /* a binary file: its bytes in the message as escapes */
  for (i = 0; i < (int) sizeof (binary); i++)
    binary[i] = (char) (0x80 + (i * 37) % 127);
  check_refused ("binary", binary, sizeof (binary), "Line 1", NULL);
}

static void
test_hostile_paths (void)
{
  char *fifo = g_build_filename (dir, "fifo", NULL);
  char *big = g_build_filename (dir, "big", NULL);
  GstBSplineTransformsWriter writer;
  GError *error = NULL;
  FILE *f;

  TEST_CHECK (mkfifo (fifo, 0600) == 0, "mkfifo: %s", strerror (errno));
  /* neither call may block: no writer or reader ever comes */
  TEST_CHECK (gst_bspline_transforms_read (fifo, &error) == NULL && error
      && strstr (error->message, "a FIFO"), "FIFO read: %s",
      error ? error->message : "accepted");
  g_clear_error (&error);
  TEST_CHECK (!gst_bspline_transforms_writer_open (&writer, fifo, 0.0, 0,
          &error)
      && error, "FIFO written: accepted");
  g_clear_error (&error);
  TEST_CHECK (gst_bspline_transforms_read ("/dev/zero", &error) == NULL
      && error && strstr (error->message, "a device"), "/dev/zero: %s",
      error ? error->message : "accepted");
  g_clear_error (&error);
  TEST_CHECK (!gst_bspline_transforms_writer_open (&writer, "/dev/full",
          0.0, 0, &error) && error && strstr (error->message, "/dev/full"),
      "/dev/full written: %s", error ? error->message : "accepted");
  g_clear_error (&error);
  TEST_CHECK (gst_bspline_transforms_read (dir, &error) == NULL && error
      && strstr (error->message, "a directory"), "directory: %s",
      error ? error->message : "accepted");
  g_clear_error (&error);
  TEST_CHECK (gst_bspline_transforms_read ("/nonexistent/t.txt", &error) ==
      NULL && error && error->code == GST_BSPLINE_TRANSFORMS_ERROR_OPEN,
      "missing file accepted");
  g_clear_error (&error);
  /* a sparse file over the bound: refused before it is read */
  f = fopen (big, "wb");
  TEST_CHECK (f && ftruncate (fileno (f), GST_BSPLINE_TRANSFORMS_MAX_BYTES
          + 1) == 0, "sparse file");
  if (f)
    fclose (f);
  TEST_CHECK (gst_bspline_transforms_read (big, &error) == NULL && error
      && strstr (error->message, "larger"), "large file: %s",
      error ? error->message : "accepted");
  g_clear_error (&error);
  unlink (big);
  unlink (fifo);
  g_free (big);
  g_free (fifo);
}

/* A write that fails (the file size limit, in a child: the limit must not
 * reach the other checks) is an error naming the file. */
static void
test_write_failure (void)
{
  char *path = g_build_filename (dir, "limited", NULL);
  pid_t pid = fork ();
  int status = 0;

  if (pid == 0) {
    struct rlimit limit = { 200, 200 };
    GstBSplineTransformsWriter writer;
    bspline_motion_result r;
    GError *error = NULL;
    gboolean ok = TRUE;
    int k;

    signal (SIGXFSZ, SIG_IGN);
    setrlimit (RLIMIT_FSIZE, &limit);
    memset (&r, 0, sizeof (r));
    bspline_affine_identity (&r.motion);
    if (!gst_bspline_transforms_writer_open (&writer, path, 0.0, 0, &error))
      _exit (2);
    ok = gst_bspline_transforms_writer_section (&writer, 320, 180, &error);
    for (k = 0; ok && k < 100; k++)
      ok = gst_bspline_transforms_writer_record (&writer, k * 1000, &r, NULL,
          NULL, &error);
    if (ok)
      ok = gst_bspline_transforms_writer_close (&writer, &error);
    else
      gst_bspline_transforms_writer_close (&writer, NULL);
    /* 3: the writes all "succeeded"; 4: the message does not name it */
    _exit (ok ? 3 : strstr (error->message, path) ? 0 : 4);
  }
  waitpid (pid, &status, 0);
  TEST_CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 0,
      "a write past the file size limit: child status %d (3: no error, "
      "4: the error does not name the file)", status);
  unlink (path);
  g_free (path);
}

static void
test_round_trip (test_rng * rng)
{
  char *path = g_build_filename (dir, "round-trip", NULL);
  GstBSplineTransformsWriter writer;
  GstBSplineTransformsFile *file;
  const GstBSplineTransformsSection *s;
  const GstBSplineTransformsRecord *r;
  bspline_motion_result m[40];
  GError *error = NULL;
  int k, i;

  for (k = 0; k < 40; k++) {
    double a = 0.1 * test_rng_uniform (rng) - 0.05;
    double z = 0.9 + 0.2 * test_rng_uniform (rng);

    m[k].reliable = k % 7 != 3;
    m[k].motion.m[0] = z * cos (a);
    m[k].motion.m[1] = -z * sin (a);
    m[k].motion.m[2] = 60.0 * test_rng_uniform (rng) - 30.0;
    m[k].motion.m[3] = z * sin (a);
    m[k].motion.m[4] = z * cos (a);
    m[k].motion.m[5] = 60.0 * test_rng_uniform (rng) - 30.0;
  }
  TEST_CHECK (gst_bspline_transforms_writer_open (&writer, path, 0.0, 8,
          &error), "open: %s", error ? error->message : "");
  /* section 1: frames 0-19 at 30 frames/s, a seek back to frame 5 and
   * frames 5-9 again (the first of them unreliable, as after a flush);
   * section 2 (new caps): 20 frames without PTS */
  gst_bspline_transforms_writer_section (&writer, 320, 180, NULL);
  for (k = 0; k < 20; k++)
    gst_bspline_transforms_writer_record (&writer, k * GST_SECOND / 30, &m[k],
        NULL, NULL, NULL);
  for (k = 5; k < 10; k++) {
    bspline_motion_result again = m[20 + k];

    again.reliable = k != 5;
    gst_bspline_transforms_writer_record (&writer, k * GST_SECOND / 30,
        &again, NULL, NULL, NULL);
  }
  gst_bspline_transforms_writer_section (&writer, 160, 90, NULL);
  for (k = 20; k < 40; k++)
    gst_bspline_transforms_writer_record (&writer, GST_CLOCK_TIME_NONE, &m[k],
        NULL, NULL, NULL);
  TEST_CHECK (gst_bspline_transforms_writer_close (&writer, &error),
      "close: %s", error ? error->message : "");
  g_clear_error (&error);

  /* readout 0: version 2, as before the rolling-shutter correction */
  {
    gchar *text = NULL;

    g_file_get_contents (path, &text, NULL, NULL);
    TEST_CHECK (text && g_str_has_prefix (text,
            "bsplinestabilize-transforms 2\n"), "readout 0 wrote: %.40s",
        text ? text : "nothing");
    g_free (text);
  }
  file = gst_bspline_transforms_read (path, &error);
  TEST_CHECK (file != NULL, "read back: %s", error ? error->message : "");
  if (file == NULL)
    return;
  TEST_CHECK (file->sections->len == 2 && file->version == 2
      && file->n_bands == 0, "%u sections, version %d, %d bands",
      file->sections->len, file->version, file->n_bands);
  s = g_ptr_array_index (file->sections, 0);
  TEST_CHECK (s->width == 320 && s->height == 180 && s->records->len == 20,
      "section 1: %dx%d, %u records", s->width, s->height, s->records->len);
  for (k = 0; k < 20; k++) {
    /* frame 5: the earlier reliable record; 6-9 the later ones */
    const bspline_motion_result *want = k >= 6 && k < 10 ? &m[20 + k] : &m[k];

    r = gst_bspline_transforms_find (s, k * GST_SECOND / 30 + 7 * GST_MSECOND,
        GST_SECOND / 60, 999);
    TEST_CHECK (r != NULL, "frame %d not found by its PTS", k);
    if (r == NULL)
      continue;
    for (i = 0; i < 6; i++)
      TEST_CHECK (r->motion.m[i] == want->motion.m[i], "frame %d value %d: "
          "%.17g read back as %.17g", k, i, want->motion.m[i], r->motion.m[i]);
    TEST_CHECK (r->reliable == (want->reliable != 0), "frame %d reliable", k);
  }
  TEST_CHECK (gst_bspline_transforms_find (s, 20 * GST_SECOND / 30,
          GST_SECOND / 60, 0) == NULL, "a PTS after the last frame found");
  TEST_CHECK (gst_bspline_transforms_find (s, GST_SECOND / 60 + GST_SECOND /
          30 * 3, 0, 0) == NULL, "a PTS between frames found without "
      "tolerance");
  s = g_ptr_array_index (file->sections, 1);
  TEST_CHECK (s->width == 160 && s->records->len == 20, "section 2");
  r = gst_bspline_transforms_find (s, 5 * GST_SECOND, GST_SECOND, 7);
  TEST_CHECK (r && r->motion.m[2] == m[27].motion.m[2], "section 2: frame 7 "
      "by position");
  TEST_CHECK (gst_bspline_transforms_find (s, GST_CLOCK_TIME_NONE, 0, 20)
      == NULL, "section 2: a position past the end found");
  gst_bspline_transforms_free (file);
  unlink (path);
  g_free (path);
}

/* Version 3 (rolling-shutter-readout > 0): each record's bands written
 * and read back exactly, with the seek back's rule, and the readout. */
static void
test_version_3 (test_rng * rng)
{
  char *path = g_build_filename (dir, "version-3", NULL);
  GstBSplineTransformsWriter writer;
  GstBSplineTransformsFile *file;
  const GstBSplineTransformsSection *s;
  bspline_motion_result m;
  double bands[2][12][2 * 8];
  int reliable[2][12][8];
  GError *error = NULL;
  gchar *text = NULL;
  int k, b, pass;

  memset (&m, 0, sizeof (m));
  bspline_affine_identity (&m.motion);
  m.reliable = 1;
  for (pass = 0; pass < 2; pass++)
    for (k = 0; k < 12; k++)
      for (b = 0; b < 8; b++) {
        bands[pass][k][2 * b] = 40.0 * test_rng_uniform (rng) - 20.0;
        bands[pass][k][2 * b + 1] = 1e-3 * test_rng_uniform (rng);
        reliable[pass][k][b] = (k + b + pass) % 5 != 0;
      }
  TEST_CHECK (gst_bspline_transforms_writer_open (&writer, path, 0.5, 8,
          &error), "open: %s", error ? error->message : "");
  /* frames 0-11, then a seek back: frames 4-11 again (4 unreliable) */
  gst_bspline_transforms_writer_section (&writer, 320, 180, NULL);
  for (k = 0; k < 12; k++)
    gst_bspline_transforms_writer_record (&writer, k * GST_SECOND / 30, &m,
        bands[0][k], reliable[0][k], NULL);
  for (k = 4; k < 12; k++) {
    bspline_motion_result again = m;

    again.reliable = k != 4;
    gst_bspline_transforms_writer_record (&writer, k * GST_SECOND / 30,
        &again, bands[1][k], reliable[1][k], NULL);
  }
  TEST_CHECK (gst_bspline_transforms_writer_close (&writer, &error),
      "close: %s", error ? error->message : "");
  g_clear_error (&error);
  g_file_get_contents (path, &text, NULL, NULL);
  TEST_CHECK (text && g_str_has_prefix (text,
          "bsplinestabilize-transforms 3\n"), "readout 0.5 wrote: %.40s",
      text ? text : "nothing");
  g_free (text);

  file = gst_bspline_transforms_read (path, &error);
  TEST_CHECK (file != NULL, "version 3 read back: %s",
      error ? error->message : "");
  g_clear_error (&error);
  if (file) {
    TEST_CHECK (file->version == 3 && file->n_bands == 8
        && file->readout == 0.5, "version %d, %d bands, readout %g",
        file->version, file->n_bands, file->readout);
    s = g_ptr_array_index (file->sections, 0);
    TEST_CHECK (s->records->len == 12 && s->bands != NULL, "%u records",
        s->records->len);
    for (k = 0; k < (int) s->records->len && k < 12; k++) {
      const GstBSplineTransformsRecord *r =
          &g_array_index (s->records, GstBSplineTransformsRecord, k);
      const double *v = &g_array_index (s->bands, gdouble, r->bands);
      /* frame 4: the earlier reliable record, 5-11 the later ones */
      pass = k >= 5;
      for (b = 0; b < 8; b++)
        TEST_CHECK (v[3 * b] == bands[pass][k][2 * b]
            && v[3 * b + 1] == bands[pass][k][2 * b + 1]
            && v[3 * b + 2] == reliable[pass][k][b], "frame %d band %d: "
            "(%.17g, %.17g, %g) read back, (%.17g, %.17g, %d) written", k, b,
            v[3 * b], v[3 * b + 1], v[3 * b + 2], bands[pass][k][2 * b],
            bands[pass][k][2 * b + 1], reliable[pass][k][b]);
    }
  }
  gst_bspline_transforms_free (file);
  unlink (path);
  g_free (path);
}

#define V3 "bsplinestabilize-transforms 3\nrolling-shutter 0.5 2\n" \
    "size 320 180\n"
#define V3_RECORD "0 1 1 0 0 0 1 0 0"

/* Hostile version 3 lines: refused with the line named. */
static void
test_hostile_version_3 (void)
{
  static const struct
  {
    const char *name, *text, *word;
  } cases[] = {
    {"v3-good", V3 V3_RECORD " 0.5 -0.25 1 0 0 0\n", NULL},
    {"v3-one-band-less", V3 V3_RECORD " 0.5 -0.25 1\n", "Line 4"},
    {"v3-one-band-more", V3 V3_RECORD " 1 1 1 1 1 1 1 1 1\n", "Line 4"},
    {"v3-no-bands", V3 V3_RECORD "\n", "Line 4"},
    {"v3-truncated", V3 V3_RECORD " 0.5 -0.25 1 0 0", "Line 4"},
    {"v3-nan", V3 V3_RECORD " nan 0 1 0 0 0\n", "finite"},
    {"v3-inf", V3 V3_RECORD " 0 -inf 1 0 0 0\n", "finite"},
    {"v3-far", V3 V3_RECORD " 1e300 0 1 0 0 0\n", "10 frame"},
    {"v3-reliable-2", V3 V3_RECORD " 0 0 2 0 0 0\n", "X Y RELIABLE"},
    {"v3-word", V3 V3_RECORD " 0 zero 1 0 0 0\n", "X Y RELIABLE"},
    {"v3-no-rolling", "bsplinestabilize-transforms 3\nsize 320 180\n",
        "rolling-shutter"},
    {"v3-rolling-in-v2", "bsplinestabilize-transforms 2\n"
          "rolling-shutter 0.5 8\n", "version 1 or 2"},
    {"v3-rolling-after-size", V3 "rolling-shutter 0.5 2\n", "after a size"},
    {"v3-rolling-twice", "bsplinestabilize-transforms 3\n"
          "rolling-shutter 0.5 2\nrolling-shutter 0.5 2\n", "second"},
    {"v3-readout-0", "bsplinestabilize-transforms 3\nrolling-shutter 0 8\n",
        "READOUT"},
    {"v3-readout-nan", "bsplinestabilize-transforms 3\n"
          "rolling-shutter nan 8\n", "READOUT"},
    {"v3-readout-2", "bsplinestabilize-transforms 3\n"
          "rolling-shutter 2 8\n", "READOUT"},
    {"v3-bands-1", "bsplinestabilize-transforms 3\nrolling-shutter 0.5 1\n",
        "BANDS"},
    {"v3-bands-33", "bsplinestabilize-transforms 3\n"
          "rolling-shutter 0.5 33\n", "BANDS"},
    {"v3-bands-huge", "bsplinestabilize-transforms 3\n"
          "rolling-shutter 0.5 99999999999999999999\n", "BANDS"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    char *message;
    GstBSplineTransformsFile *file = read_text (cases[i].name, cases[i].text,
        strlen (cases[i].text), &message);

    if (cases[i].word == NULL)
      TEST_CHECK (file != NULL && file->n_bands == 2, "%s: %s",
          cases[i].name, message);
    else
      TEST_CHECK (file == NULL && message && strstr (message, "Line")
          && strstr (message, cases[i].word), "%s: %s (want \"%s\" and the "
          "line)", cases[i].name, file ? "accepted" : message, cases[i].word);
    gst_bspline_transforms_free (file);
    g_free (message);
  }
}

/* A version 1 file (before the sections and PTSs) reads as before. */
static void
test_version_1 (void)
{
  static const char v1[] = "bsplinestabilize-transforms 1\n# comment\n"
      "size 64 48\n0 0 1 0 0 0 1 0\n1 1 1 0 0.5 0 1 -0.25\n";
  static const char v1_order[] = "bsplinestabilize-transforms 1\n"
      "size 64 48\n1 0 1 0 0 0 1 0\n";
  char *message;
  GstBSplineTransformsFile *file = read_text ("v1", v1, sizeof (v1) - 1,
      &message);
  const GstBSplineTransformsSection *s;

  TEST_CHECK (file != NULL, "version 1: %s", message);
  g_free (message);
  if (file) {
    s = g_ptr_array_index (file->sections, 0);
    TEST_CHECK (s->records->len == 2 && gst_bspline_transforms_find (s,
            GST_SECOND, GST_SECOND, 1)->motion.m[5] == -0.25,
        "version 1: records by position");
  }
  gst_bspline_transforms_free (file);
  check_refused ("v1-order", v1_order, sizeof (v1_order) - 1, "Line 3",
      "out of order");
}

int
main (void)
{
  test_rng rng;

  test_begin ("transforms", &rng);
  TEST_CHECK (mkdtemp (dir) != NULL, "mkdtemp");
  test_hostile_contents ();
  test_hostile_paths ();
  test_write_failure ();
  test_round_trip (&rng);
  test_version_3 (&rng);
  test_hostile_version_3 ();
  test_version_1 ();
  rmdir (dir);
  return test_end ("hostile contents and paths refused with the file, line "
      "and value named; a failed write reported; records, PTSs, "
      "sections and version 3's bands read back exactly");
}
