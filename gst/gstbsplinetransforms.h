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
/* gstbsplinetransforms.h: bsplinestabilize's transforms file, the motion
 * of each frame written by a first pass and read by a second.
 *
 * Text, one item a line, '#' starts a comment line:
 *   bsplinestabilize-transforms 2
 *   size WIDTH HEIGHT
 *   INDEX RELIABLE M0 M1 M2 M3 M4 M5 PTS
 *   ...
 *   size WIDTH HEIGHT          (a new section: the caps changed)
 *   INDEX RELIABLE M0 M1 M2 M3 M4 M5 PTS
 * A section is the frames of one caps: each caps the stream negotiates
 * (after the first frame) starts the next section, in both modes.  In a
 * section, INDEX counts the frames analysed from 0 (it goes on across a
 * seek), RELIABLE is 1 or 0, M0..M5 the motion from the previous frame to
 * this one, the 2x3 affine map (x, y) -> (M0 x + M1 y + M2,
 * M3 x + M4 y + M5) in full-frame pixel coordinates (pixel (i, j) covers
 * [i, i+1) x [j, j+1), y down) with 17 significant digits, and PTS the
 * frame's presentation time in nanoseconds (-1: none).  A frame is found
 * by its PTS; a PTS recorded twice (a seek back in the first pass) keeps
 * the later record, unless the later one is unreliable and the earlier
 * one is not.  Version 1 files (no PTS, one section, INDEX from 0 in
 * order) are read as before.
 *
 * Version 3, written with rolling-shutter-readout > 0 (version 2 is
 * written without it), carries the rolling shutter's band measurements:
 *   bsplinestabilize-transforms 3
 *   rolling-shutter READOUT BANDS
 *   size WIDTH HEIGHT
 *   INDEX RELIABLE M0 M1 M2 M3 M4 M5 PTS X0 Y0 R0 ... X(BANDS-1) Y.. R..
 * one rolling-shutter line before the first size line: READOUT the first
 * pass's rolling-shutter-readout (0 < READOUT <= 1) and BANDS the bands of
 * rows (2 .. BSPLINE_ROLLING_MAX_BANDS); each record then ends with BANDS
 * triples, band b's translation from the previous frame (Xb, Yb, pixels,
 * 17 significant digits) and whether it was measured (Rb, 1 or 0), as
 * bspline_rolling_meter_measure gives them.  The motion M0..M5 is then
 * the one the camera path takes with the correction (the readout's shear
 * left out), so a version 3 file is read only with
 * rolling-shutter-readout > 0 (any value: the bands are measurements, the
 * readout is the model's), and a version 1 or 2 file only with 0.
 *
 * Reading refuses what is not a regular file, files over
 * GST_BSPLINE_TRANSFORMS_MAX_BYTES, NUL bytes, and records whose values
 * are not finite, whose scale (the square root of the linear part's
 * determinant) is outside [GST_BSPLINE_TRANSFORMS_MIN_SCALE,
 * GST_BSPLINE_TRANSFORMS_MAX_SCALE] or whose determinant is not positive,
 * or whose shift is over GST_BSPLINE_TRANSFORMS_MAX_SHIFT frame sizes,
 * or (version 3) whose band count differs from the rolling-shutter line's
 * or whose band translations are not finite or over
 * GST_BSPLINE_TRANSFORMS_MAX_SHIFT frame sizes: the error names the file,
 * the line and the value. */
#ifndef __GST_BSPLINE_TRANSFORMS_H__
#define __GST_BSPLINE_TRANSFORMS_H__

#include <stdio.h>

#include <gst/gst.h>
#include <gst/video/video.h>

#include "bspline-stabilize.h"

G_BEGIN_DECLS

/* the newest version read and written (written: 3 with the bands, else
 * 2) */
#define GST_BSPLINE_TRANSFORMS_VERSION 3
#define GST_BSPLINE_TRANSFORMS_MAX_BYTES (256 * 1024 * 1024)
#define GST_BSPLINE_TRANSFORMS_MAX_SIZE 32768
#define GST_BSPLINE_TRANSFORMS_MIN_SCALE 0.1
#define GST_BSPLINE_TRANSFORMS_MAX_SCALE 10.0
#define GST_BSPLINE_TRANSFORMS_MAX_SHIFT 10.0

/* One frame's record. */
typedef struct
{
  guint64 index;
  GstClockTime pts;             /* GST_CLOCK_TIME_NONE: none recorded */
  gboolean reliable;
  bspline_affine motion;        /* previous frame -> this one */
  guint bands;                  /* version 3: its first value in the
                                 * section's bands */
} GstBSplineTransformsRecord;

/* The records of one caps, in presentation order. */
typedef struct
{
  gint width, height;
  guint line;                   /* of its size line, for messages */
  GArray *records;              /* GstBSplineTransformsRecord */
  /* version 3: each record's n_bands triples (x, y, reliable 1 or 0), from
   * its `bands` on; NULL before */
  GArray *bands;                /* gdouble */
} GstBSplineTransformsSection;

/* A file read whole. */
typedef struct
{
  gchar *path;
  gint version;
  /* version 3: the rolling-shutter line's; 0 and 0.0 before */
  gint n_bands;
  gdouble readout;
  GPtrArray *sections;          /* GstBSplineTransformsSection */
} GstBSplineTransformsFile;

/* A file being written. */
typedef struct
{
  gchar *path;
  FILE *file;
  guint sections;
  guint64 index;                /* of the next record in the section */
  gint n_bands;                 /* version 3: the bands of a record, else 0 */
} GstBSplineTransformsWriter;

/* What went wrong, in the GError of the calls below. */
typedef enum
{
  GST_BSPLINE_TRANSFORMS_ERROR_OPEN,    /* cannot be opened or read */
  GST_BSPLINE_TRANSFORMS_ERROR_FORMAT,  /* not a transforms file we take */
  GST_BSPLINE_TRANSFORMS_ERROR_WRITE    /* a write failed */
} GstBSplineTransformsError;

#define GST_BSPLINE_TRANSFORMS_ERROR (gst_bspline_transforms_error_quark ())
GQuark gst_bspline_transforms_error_quark (void);

/* Reads and checks the file at path; NULL and error (its message names the
 * file, the line and the value) where it cannot be used. */
GstBSplineTransformsFile *gst_bspline_transforms_read (const gchar * path,
    GError ** error);
void gst_bspline_transforms_free (GstBSplineTransformsFile * file);

/* The record of section s for a frame: by pts where the section has PTSs
 * and pts is valid (the nearest within tolerance), else by position (the
 * frame's count in the section); NULL where there is none. */
const GstBSplineTransformsRecord
    * gst_bspline_transforms_find (const GstBSplineTransformsSection * s,
    GstClockTime pts, GstClockTime tolerance, guint64 position);

/* Opens path for writing: a regular file, created or truncated (a FIFO or
 * a device is refused); FALSE and error otherwise.  readout > 0: version
 * 3, records of n_bands bands; readout 0: version 2. */
gboolean gst_bspline_transforms_writer_open (GstBSplineTransformsWriter *
    writer, const gchar * path, gdouble readout, gint n_bands, GError ** error);
/* Starts a section of frames of width x height (the header first). */
gboolean gst_bspline_transforms_writer_section (GstBSplineTransformsWriter *
    writer, gint width, gint height, GError ** error);
/* A frame's record; version 3: with the translations band_motion[2 b],
 * [2 b + 1] and band_reliable[b] of its writer->n_bands bands (unused,
 * may be NULL, with version 2). */
gboolean gst_bspline_transforms_writer_record (GstBSplineTransformsWriter *
    writer, GstClockTime pts, const bspline_motion_result * result,
    const gdouble * band_motion, const gint * band_reliable, GError ** error);
/* Writes out what is buffered. */
gboolean gst_bspline_transforms_writer_flush (GstBSplineTransformsWriter *
    writer, GError ** error);
/* Flushes and closes (a writer never opened is fine). */
gboolean gst_bspline_transforms_writer_close (GstBSplineTransformsWriter *
    writer, GError ** error);

/* The file over a stream of bsplinestabilize (its sections): written
 * (transforms-mode=write) or read (read), each caps' frames a section,
 * started at the caps' first frame (new_section). */
typedef struct
{
  GstBSplineTransformsWriter writer;    /* transforms-mode=write */
  GstBSplineTransformsFile *file;       /* transforms-mode=read */
  guint next_section;           /* of the file, read mode */
  gboolean new_section;         /* new caps: the next frame starts one */
  guint64 section_frames;       /* frames of the section, read mode */
  GArray *corrections;          /* bspline_stabilize_result of each record
                                 * of the section, read mode */
  /* read mode with the rolling-shutter correction: the trajectory solved
   * over the whole section (bspline_rolling_solve; frame i the section's
   * record i), or NULL */
  gdouble *knots;
  gint n_knots;
} GstBSplineTransformsStream;

/* Opens location for reading (read TRUE: the whole file read and
 * checked) or writing (readout > 0: version 3 with n_bands bands);
 * FALSE and error where it cannot. */
gboolean gst_bspline_transforms_stream_open (GstBSplineTransformsStream *
    stream, const gchar * location, gboolean read, gdouble readout,
    gint n_bands, GError ** error);

/* The first frame of new caps starts a section of the file: a size line
 * written, or the next section read, whose corrections are all known at
 * once (its whole path, from stabilizer), and with rolling (not NULL: the
 * rolling-shutter correction, a version 3 file of rolling->n_bands bands)
 * the trajectory over the whole section from its bands (knots).  FALSE
 * after an element error. */
gboolean gst_bspline_transforms_stream_start_section
    (GstBSplineTransformsStream * stream, GstElement * element,
    bspline_stabilizer * stabilizer, const bspline_rolling_params * rolling,
    gint width, gint height);

/* The record of the current section for a frame of info held in buffer,
 * and its correction: by the frame's PTS (within half a frame), or by
 * its position in the section where there are no PTSs; *position, the
 * record's in the section (its frame in knots).  FALSE after an element
 * error. */
gboolean gst_bspline_transforms_stream_read_record
    (GstBSplineTransformsStream * stream, GstElement * element,
    const GstVideoInfo * info, GstBuffer * buffer,
    bspline_motion_result * motion, bspline_stabilize_result * correction,
    guint * position);

/* A transforms file error as an element error (taking error): the
 * message names the file (and the line and value where it is the file's
 * content). */
void gst_bspline_transforms_post_error (GstElement * element,
    GError * error, gboolean read);

/* Closes the file and forgets the sections (stop); FALSE and error where
 * the written file could not be completed. */
gboolean gst_bspline_transforms_stream_clear (GstBSplineTransformsStream *
    stream, GError ** error);

G_END_DECLS
#endif /* __GST_BSPLINE_TRANSFORMS_H__ */
