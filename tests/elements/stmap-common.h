/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stmap-common.h: STMap files for the GstHarness tests (a float TIFF
 * written with libtiff).  Static functions: each test program takes what
 * it uses. */
#ifndef STMAP_COMMON_H
#define STMAP_COMMON_H

#include <math.h>
#include <unistd.h>

#include <tiffio.h>
#include <gst/gst.h>
#include <gst/check/gstcheck.h>

/* A float TIFF STMap of mw x mh samples (R = s, G = t, Nuke's
 * convention) that waves the frame by up to amp of its size; written
 * with libtiff into a temporary file whose name is returned. */
static inline gchar *
write_wave_stmap (gint mw, gint mh, gdouble amp, gdouble freq)
{
  gchar *path = NULL;
  gint fd = g_file_open_tmp ("gpu-stmap-XXXXXX.tif", &path, NULL);
  TIFF *tif;
  gfloat *row = g_new (gfloat, 3 * mw);
  gint x, y;

  fail_unless (fd >= 0);
  close (fd);
  tif = TIFFOpen (path, "w");
  fail_unless (tif != NULL);
  TIFFSetField (tif, TIFFTAG_IMAGEWIDTH, mw);
  TIFFSetField (tif, TIFFTAG_IMAGELENGTH, mh);
  TIFFSetField (tif, TIFFTAG_SAMPLESPERPIXEL, 3);
  TIFFSetField (tif, TIFFTAG_BITSPERSAMPLE, 32);
  TIFFSetField (tif, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_IEEEFP);
  TIFFSetField (tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
  TIFFSetField (tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField (tif, TIFFTAG_ROWSPERSTRIP, 1);
  for (y = 0; y < mh; y++) {
    for (x = 0; x < mw; x++) {
      gdouble u = (x + 0.5) / mw, v = (y + 0.5) / mh;
      row[3 * x] = (gfloat) (u + amp * sin (2 * G_PI * freq * v));
      row[3 * x + 1] = (gfloat) (1.0 - v - amp * sin (2 * G_PI * freq * u));
      row[3 * x + 2] = 0.0f;
    }
    fail_unless (TIFFWriteScanline (tif, row, y, 0) == 1);
  }
  TIFFClose (tif);
  g_free (row);
  return path;
}

#endif /* STMAP_COMMON_H */
