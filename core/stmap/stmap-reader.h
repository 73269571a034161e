/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stmap-reader.h: what the STMap file reader's files share: the reader
 * (one file, its messages and the map it returns), the helpers of
 * stmap-file.c and the one entry of each codec, stmap-exr.c,
 * stmap-png.c and stmap-tiff.c.
 *
 * Not installed.  Included by core/stmap/'s reader files only. */
#ifndef BSPLINE_STMAP_READER_H
#define BSPLINE_STMAP_READER_H

#include "bspline-stmap-file.h"
#include "bspline-stmap.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* The largest intermediate buffer (a TIFF row or tile): 64 MiB, the
 * doubles of the largest map (BSPLINE_STMAP_MAX_SAMPLES, bspline-stmap.h),
 * a whole float RGBA map in one strip. */
#define STMAP_MAX_BYTES ((uint64_t) 16 * BSPLINE_STMAP_MAX_SAMPLES)

typedef struct
{
  const char *path;
  int fd;
  uint64_t size;                /* of the file, in bytes */
  char *msg;
  size_t msg_len;
  /* the first message of the library at work, quoted in ours */
  char lib_msg[256];
  int width, height;
  double *st;
  /* the frame the map is for, checked before decoding; 0: any */
  int frame_width, frame_height;
} stmap_reader;

/* strerror is not thread-safe; this is POSIX's strerror_r (the XSI one:
 * the project builds with _POSIX_C_SOURCE, without _GNU_SOURCE). */
typedef struct
{
  char text[128];
} stmap_errno_text;

/* ---- stmap-file.c (each function documented there) ---- */
bspline_status stmap_fail (stmap_reader * r, bspline_status status,
    const char *format, ...);
const char *stmap_strerror (int err, stmap_errno_text * buf);
void stmap_lib_message (stmap_reader * r, const char *format,
    va_list args);
const char *stmap_lib_said (const stmap_reader * r);
int64_t stmap_pread (const stmap_reader * r, void *buffer, uint64_t size,
    uint64_t offset);
bspline_status stmap_alloc (stmap_reader * r, int64_t width, int64_t height);
bspline_status stmap_refuse_few_bits (stmap_reader * r,
    const char *format_name, int bits);

/* ---- the codecs: each reads the whole file into r->st and r->width,
 * r->height, or fails with a message ---- */
bspline_status stmap_read_exr (stmap_reader * r);
bspline_status stmap_read_png (stmap_reader * r);
bspline_status stmap_read_tiff (stmap_reader * r);

#endif /* BSPLINE_STMAP_READER_H */
