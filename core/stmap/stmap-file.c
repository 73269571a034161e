/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stmap-file.c: the STMap file reader (bspline-stmap-file.h): the file,
 * its type and the codec it holds, the reader's messages and its checks;
 * each codec is read by a file of its own (stmap-exr.c, stmap-png.c,
 * stmap-tiff.c).
 *
 * One file descriptor is opened per read, and the three libraries read
 * through it (OpenEXRCore's read and size callbacks, libpng's read
 * function, libtiff's client procedures): the file is opened once, its
 * type checked once (a FIFO would block, a directory reads as an error
 * nobody understands), and nothing but this file owns or closes it.
 *
 * Every library's messages go into the reader, never to stderr: the
 * reader runs inside an application (a GStreamer pipeline) whose user sees
 * the element's error message, which carries ours.  No process-wide state
 * is touched (libtiff's global handlers, for instance), so that two
 * elements may read maps at once.
 *
 * Anything the file says is checked before it is used as a size or an
 * index: the sides against BSPLINE_MAX_SIDE, the samples against
 * BSPLINE_STMAP_MAX_SAMPLES, the buffers against STMAP_MAX_BYTES, and each decoded block (EXR chunk, TIFF tile) against
 * the frame before it is decoded into buffers sized for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <openexr.h>
#include <png.h>
#include <tiffio.h>

#include "stmap-reader.h"
#include "bspline-stmap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

bspline_status
stmap_fail (stmap_reader * r, bspline_status status, const char *format, ...)
{
  if (r->msg && r->msg_len > 0) {
    va_list args;
    int n = snprintf (r->msg, r->msg_len, "%s: ", r->path);
    if (n >= 0 && (size_t) n < r->msg_len) {
      va_start (args, format);
      vsnprintf (r->msg + n, r->msg_len - n, format, args);
      va_end (args);
    }
  }
  return status;
}

const char *
stmap_strerror (int err, stmap_errno_text * buf)
{
  if (strerror_r (err, buf->text, sizeof (buf->text)) != 0)
    snprintf (buf->text, sizeof (buf->text), "error %d", err);
  return buf->text;
}

void
stmap_lib_message (stmap_reader * r, const char *format, va_list args)
{
  if (r->lib_msg[0] == '\0')
    vsnprintf (r->lib_msg, sizeof (r->lib_msg), format, args);
}

/* The library's own words, or a stand-in where it gave none. */
const char *
stmap_lib_said (const stmap_reader * r)
{
  return r->lib_msg[0] ? r->lib_msg : "no detail given";
}

/* Reads size bytes at offset; fewer only at the end of the file; -1 on
 * an error (errno set). */
int64_t
stmap_pread (const stmap_reader * r, void *buffer, uint64_t size,
    uint64_t offset)
{
  uint64_t done = 0;

  if (offset >= r->size)
    return 0;
  if (size > r->size - offset)
    size = r->size - offset;
  while (done < size) {
    size_t chunk = size - done > (uint64_t) SSIZE_MAX ?
        (size_t) SSIZE_MAX : (size_t) (size - done);
    ssize_t n = pread (r->fd, (char *) buffer + done, chunk,
        (off_t) (offset + done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -1;
    if (n == 0)
      break;
    done += (uint64_t) n;
  }
  return (int64_t) done;
}

/* Checks the size the file declares and allocates the returned array. */
bspline_status
stmap_alloc (stmap_reader * r, int64_t width, int64_t height)
{
  uint64_t bytes;

  if (width < 1 || height < 1 || width > BSPLINE_MAX_SIDE
      || height > BSPLINE_MAX_SIDE)
    return stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "declares a size of %lld x %lld: each side must be 1 to %d",
        (long long) width, (long long) height, BSPLINE_MAX_SIDE);
  /* a map for another frame is refused before its samples are decoded */
  if (r->frame_width > 0 && !bspline_stmap_fits_frame ((int) width,
          (int) height, r->frame_width, r->frame_height))
    return stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "declares %lldx%lld samples, another aspect ratio than the %dx%d "
        "input frame it lies over (%.6g against %.6g); read before any "
        "sample was decoded", (long long) width, (long long) height,
        r->frame_width, r->frame_height, (double) width / height,
        (double) r->frame_width / r->frame_height);
  /* a map of more samples is refused before its memory is allocated:
   * the suggested size keeps its aspect ratio */
  if (width * height > BSPLINE_STMAP_MAX_SAMPLES) {
    double scale = sqrt ((double) BSPLINE_STMAP_MAX_SAMPLES /
        ((double) width * height));
    return stmap_fail (r, BSPLINE_ERROR_NO_MEMORY,
        "declares %lldx%lld samples (%lld), more than the %d (2^22) an "
        "STMap may have, so that reading it takes at most 192 MiB; resize "
        "the map (it is interpolated between its samples: a smooth map "
        "loses nothing), e.g. to %dx%d with cv2.resize (map, (%d, %d), "
        "interpolation=cv2.INTER_AREA) on its float values; read before "
        "any sample was decoded", (long long) width, (long long) height,
        (long long) (width * height), BSPLINE_STMAP_MAX_SAMPLES,
        (int) fmax (1.0, width * scale), (int) fmax (1.0, height * scale),
        (int) fmax (1.0, width * scale), (int) fmax (1.0, height * scale));
  }
  bytes = 2 * sizeof (double) * width * height;
  r->st = malloc ((size_t) bytes);
  if (!r->st)
    return stmap_fail (r, BSPLINE_ERROR_NO_MEMORY,
        "out of memory for a %lld x %lld map (%llu bytes)",
        (long long) width, (long long) height, (unsigned long long) bytes);
  r->width = (int) width;
  r->height = (int) height;
  return BSPLINE_OK;
}

/* Integer samples of fewer than 16 bits: 8 bits move a map in steps of
 * 1/255 of the frame, 7.5 pixels of a 1920-pixel frame. */
bspline_status
stmap_refuse_few_bits (stmap_reader * r, const char *format_name, int bits)
{
  return stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
      "%s of %d bits per channel: %d bits give steps of 1/%d of the frame, "
      "too coarse for a map; write it as 16-bit PNG or TIFF, or as float "
      "(OpenEXR, 32-bit TIFF)", format_name, bits, bits, (1 << bits) - 1);
}

/* ---- the entry point ---- */

/* The first non-finite value, named by its pixel from the top-left. */
static bspline_status
stmap_check_finite (stmap_reader * r)
{
  size_t i, n = (size_t) 2 * r->width * r->height;

  for (i = 0; i < n; i++)
    if (!isfinite (r->st[i])) {
      size_t pixel = i / 2;
      return stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
          "%s (channel %s) of the sample at column %zu, row %zu (0-based "
          "from the top-left) is %g: an STMap must hold finite values",
          i % 2 ? "t" : "s", i % 2 ? "G" : "R", pixel % r->width,
          pixel / r->width, r->st[i]);
    }
  return BSPLINE_OK;
}

bspline_status
bspline_stmap_read (const char *path, int *width, int *height, double **st,
    char *msg, size_t msg_len)
{
  return bspline_stmap_read_for_frame (path, 0, 0, width, height, st, msg,
      msg_len);
}

bspline_status
bspline_stmap_read_for_frame (const char *path, int frame_width,
    int frame_height, int *width, int *height, double **st, char *msg,
    size_t msg_len)
{
  static const unsigned char exr_magic[4] = { 0x76, 0x2f, 0x31, 0x01 };
  static const unsigned char png_magic[8] = {
    0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'
  };
  stmap_reader r;
  stmap_errno_text text;
  unsigned char magic[8] = { 0 };
  struct stat info;
  bspline_status status;
  int64_t n;

  memset (&r, 0, sizeof (r));
  r.path = path ? path : "(null)";
  r.fd = -1;
  if (frame_width > 0 && frame_height > 0) {
    r.frame_width = frame_width;
    r.frame_height = frame_height;
  }
  r.msg = msg;
  r.msg_len = msg_len;
  if (msg && msg_len > 0)
    msg[0] = '\0';
  if (st)
    *st = NULL;
  if (width)
    *width = 0;
  if (height)
    *height = 0;
  if (!path || !width || !height || !st)
    return stmap_fail (&r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "bspline_stmap_read: NULL path, width, height or st");

  /* O_NONBLOCK: opening a FIFO without a writer would wait forever; the
   * type is checked before anything is read */
  r.fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (r.fd < 0)
    return stmap_fail (&r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "cannot open the STMap file: %s", stmap_strerror (errno, &text));
  if (fstat (r.fd, &info) != 0) {
    status = stmap_fail (&r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "cannot read the STMap file: %s", stmap_strerror (errno, &text));
    goto done;
  }
  if (!S_ISREG (info.st_mode)) {
    status = stmap_fail (&r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "is a %s, not an STMap file",
        S_ISDIR (info.st_mode) ? "directory" : "special file");
    goto done;
  }
  r.size = (uint64_t) info.st_size;
  if (r.size == 0) {
    /* /proc and /sys files say 0 bytes and still have contents */
    do
      n = pread (r.fd, magic, 1, 0);
    while (n < 0 && errno == EINTR);
    status = stmap_fail (&r, BSPLINE_ERROR_INVALID_ARGUMENT, n > 0 ?
        "a file that reports no size but has contents (as files under "
        "/proc and /sys do), not an STMap file (OpenEXR, PNG or TIFF)" :
        "the STMap file is empty");
    goto done;
  }
  n = stmap_pread (&r, magic, sizeof (magic), 0);
  if (n < 0) {
    status = stmap_fail (&r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "cannot read the STMap file: %s", stmap_strerror (errno, &text));
    goto done;
  }

  if (n >= 4 && memcmp (magic, exr_magic, 4) == 0)
    status = stmap_read_exr (&r);
  else if (n >= 8 && memcmp (magic, png_magic, 8) == 0)
    status = stmap_read_png (&r);
  else if (n >= 4 && ((magic[0] == 'I' && magic[1] == 'I'
              && (magic[2] == 42 || magic[2] == 43) && magic[3] == 0)
          || (magic[0] == 'M' && magic[1] == 'M' && magic[2] == 0
              && (magic[3] == 42 || magic[3] == 43))))
    status = stmap_read_tiff (&r);
  else
    status = stmap_fail (&r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "not an OpenEXR, PNG or TIFF file (%lld bytes, starting %02x %02x "
        "%02x %02x)", (long long) r.size, magic[0], magic[1], magic[2],
        magic[3]);
  if (status == BSPLINE_OK)
    status = stmap_check_finite (&r);

done:
  close (r.fd);
  if (status != BSPLINE_OK) {
    free (r.st);
    return status;
  }
  *width = r.width;
  *height = r.height;
  *st = r.st;
  return BSPLINE_OK;
}
