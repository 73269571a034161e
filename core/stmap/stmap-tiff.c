/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stmap-tiff.c: the STMap file reader's TIFF files, through libtiff with
 * this reader's own file procedures (stmap-file.c reads the file and
 * picks the codec). */
#include "stmap-reader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tiffio.h>

static int
stmap_tiff_error (TIFF * tif, void *user_data, const char *module,
    const char *format, va_list args)
{
  stmap_reader *r = user_data;

  (void) tif;
  if (r->lib_msg[0] == '\0' && module) {
    snprintf (r->lib_msg, sizeof (r->lib_msg), "%s: ", module);
    vsnprintf (r->lib_msg + strlen (r->lib_msg),
        sizeof (r->lib_msg) - strlen (r->lib_msg), format, args);
  } else {
    stmap_lib_message (r, format, args);
  }
  /* handled: libtiff's process-wide handlers (stderr) are not called */
  return 1;
}

static int
stmap_tiff_warning (TIFF * tif, void *user_data, const char *module,
    const char *format, va_list args)
{
  /* warnings (an unknown tag, a missing optional one) change no sample */
  (void) tif;
  (void) user_data;
  (void) module;
  (void) format;
  (void) args;
  return 1;
}

/* libtiff reads at the offset it last sought to. */
typedef struct
{
  stmap_reader *r;
  uint64_t offset;
} stmap_tiff_io;

static tmsize_t
stmap_tiff_read (thandle_t handle, void *buffer, tmsize_t size)
{
  stmap_tiff_io *io = handle;
  int64_t n;

  if (size < 0)
    return -1;
  n = stmap_pread (io->r, buffer, (uint64_t) size, io->offset);
  if (n > 0)
    io->offset += (uint64_t) n;
  return (tmsize_t) n;
}

static tmsize_t
stmap_tiff_write (thandle_t handle, void *buffer, tmsize_t size)
{
  (void) handle;
  (void) buffer;
  (void) size;
  return -1;
}

static toff_t
stmap_tiff_seek (thandle_t handle, toff_t offset, int whence)
{
  stmap_tiff_io *io = handle;
  uint64_t base = whence == SEEK_CUR ? io->offset :
      whence == SEEK_END ? io->r->size : 0;

  if (offset > UINT64_MAX - base)
    return UINT64_MAX;          /* (toff_t) -1, libtiff's error */
  io->offset = base + offset;
  return io->offset;
}

static int
stmap_tiff_close (thandle_t handle)
{
  /* the descriptor is the reader's, closed by bspline_stmap_read */
  (void) handle;
  return 0;
}

static toff_t
stmap_tiff_size (thandle_t handle)
{
  return ((stmap_tiff_io *) handle)->r->size;
}

static int
stmap_tiff_map (thandle_t handle, void **base, toff_t * size)
{
  /* no memory mapping: a file cut short by another process would raise
   * SIGBUS where a read returns an error */
  (void) handle;
  (void) base;
  (void) size;
  return 0;
}

static void
stmap_tiff_unmap (thandle_t handle, void *base, toff_t size)
{
  (void) handle;
  (void) base;
  (void) size;
}

/* Stores samples [0, n) of channel k (0: s, 1: t) that start at pixel
 * (x0, y) of the map, from a row of 16-bit or float samples `step`
 * samples apart. */
static void
stmap_tiff_store (stmap_reader * r, const unsigned char *from, int bits,
    size_t step, uint64_t x0, uint64_t y, uint32_t n, int k)
{
  double *to = r->st + 2 * ((size_t) y * r->width + x0) + k;
  uint32_t i;

  for (i = 0; i < n; i++, to += 2) {
    if (bits == 16) {
      uint16_t v;
      memcpy (&v, from + i * step * 2, 2);
      *to = v / 65535.0;
    } else {
      float v;
      memcpy (&v, from + i * step * 4, 4);
      *to = v;
    }
  }
}

static bspline_status
stmap_tiff_strips (stmap_reader * r, TIFF * tif, int bits, int samples,
    int separate)
{
  /* row by row: TIFFReadScanline decodes a strip in order, one row of
   * memory whatever the strip's size */
  size_t bytes = (size_t) bits / 8;
  /* at most 2^24 x 65535 x 4 */
  uint64_t expected = (uint64_t) r->width * (separate ? 1 : samples) * bytes;
  uint64_t line = (uint64_t) TIFFScanlineSize64 (tif);
  unsigned char *row;
  int plane;
  uint32_t y;

  if (line != expected || line > STMAP_MAX_BYTES)
    return stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "unusable TIFF rows of %llu bytes (expected %llu, at most %llu)",
        (unsigned long long) line, (unsigned long long) expected,
        (unsigned long long) STMAP_MAX_BYTES);
  row = malloc (line);
  if (!row)
    return stmap_fail (r, BSPLINE_ERROR_NO_MEMORY,
        "out of memory for a row of %llu bytes", (unsigned long long) line);
  for (plane = 0; plane < (separate ? 2 : 1); plane++)
    for (y = 0; y < (uint32_t) r->height; y++) {
      if (TIFFReadScanline (tif, row, y, (uint16_t) plane) < 0) {
        free (row);
        return stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
            "not a readable TIFF file (truncated or corrupt?): row %u: %s",
            (unsigned) y, stmap_lib_said (r));
      }
      if (separate) {
        stmap_tiff_store (r, row, bits, 1, 0, y, r->width, plane);
      } else {
        stmap_tiff_store (r, row, bits, samples, 0, y, r->width, 0);
        stmap_tiff_store (r, row + bytes, bits, samples, 0, y, r->width, 1);
      }
    }
  free (row);
  return BSPLINE_OK;
}

static bspline_status
stmap_tiff_tiles (stmap_reader * r, TIFF * tif, int bits, int samples,
    int separate)
{
  size_t bytes = (size_t) bits / 8;
  size_t pixel_samples = separate ? 1 : (size_t) samples;
  uint32_t tile_w = 0, tile_h = 0, y;
  uint64_t x0, y0;
  uint64_t tile_bytes;
  unsigned char *tile;
  int plane;

  if (!TIFFGetField (tif, TIFFTAG_TILEWIDTH, &tile_w)
      || !TIFFGetField (tif, TIFFTAG_TILELENGTH, &tile_h) || tile_w < 1
      || tile_h < 1)
    return stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "corrupt TIFF: a tiled image without a tile size");
  tile_bytes = (uint64_t) TIFFTileSize64 (tif);
  if (tile_bytes > STMAP_MAX_BYTES
      || (uint64_t) tile_w * tile_h > STMAP_MAX_BYTES
      || tile_bytes != (uint64_t) tile_w * tile_h * pixel_samples * bytes)
    return stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "unusable TIFF tiles of %u x %u pixels, %llu bytes (at most %llu)",
        tile_w, tile_h, (unsigned long long) tile_bytes,
        (unsigned long long) STMAP_MAX_BYTES);
  tile = malloc (tile_bytes);
  if (!tile)
    return stmap_fail (r, BSPLINE_ERROR_NO_MEMORY,
        "out of memory for a tile of %llu bytes",
        (unsigned long long) tile_bytes);
  for (plane = 0; plane < (separate ? 2 : 1); plane++)
    for (y0 = 0; y0 < (uint64_t) r->height; y0 += tile_h)
      for (x0 = 0; x0 < (uint64_t) r->width; x0 += tile_w) {
        uint32_t w = (uint32_t) (r->width - x0 < tile_w ?
            r->width - x0 : tile_w);
        uint32_t h = (uint32_t) (r->height - y0 < tile_h ?
            r->height - y0 : tile_h);
        tmsize_t got = TIFFReadEncodedTile (tif,
            TIFFComputeTile (tif, (uint32_t) x0, (uint32_t) y0, 0,
                (uint16_t) plane), tile, (tmsize_t) tile_bytes);
        if (got < 0 || (uint64_t) got != tile_bytes) {
          free (tile);
          return stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
              "not a readable TIFF file (truncated or corrupt?): the tile "
              "at (%u, %u): %s", (unsigned) x0, (unsigned) y0,
              stmap_lib_said (r));
        }
        for (y = 0; y < h; y++) {
          const unsigned char *from = tile +
              (size_t) y * tile_w * pixel_samples * bytes;
          if (separate) {
            stmap_tiff_store (r, from, bits, 1, x0, y0 + y, w, plane);
          } else {
            stmap_tiff_store (r, from, bits, samples, x0, y0 + y, w, 0);
            stmap_tiff_store (r, from + bytes, bits, samples, x0, y0 + y, w, 1);
          }
        }
      }
  free (tile);
  return BSPLINE_OK;
}

static const char *
stmap_tiff_photometric_name (int photometric)
{
  switch (photometric) {
    case PHOTOMETRIC_MINISWHITE:
      return "min-is-white grey";
    case PHOTOMETRIC_PALETTE:
      return "palette";
    case PHOTOMETRIC_MASK:
      return "transparency mask";
    case PHOTOMETRIC_SEPARATED:
      return "separated (CMYK)";
    case PHOTOMETRIC_YCBCR:
      return "YCbCr";
    case PHOTOMETRIC_CIELAB:
    case PHOTOMETRIC_ICCLAB:
    case PHOTOMETRIC_ITULAB:
      return "L*a*b*";
    case PHOTOMETRIC_LOGL:
    case PHOTOMETRIC_LOGLUV:
      return "LogLuv";
    default:
      return "unknown";
  }
}

bspline_status
stmap_read_tiff (stmap_reader * r)
{
  stmap_tiff_io io = { r, 0 };
  TIFFOpenOptions *options;
  TIFF *tif;
  uint32_t width = 0, height = 0;
  uint16_t bits = 0, samples = 0, format = 0, planar = 0, photometric = 0;
  bspline_status st;

  options = TIFFOpenOptionsAlloc ();
  if (!options)
    return stmap_fail (r, BSPLINE_ERROR_NO_MEMORY,
        "out of memory for the TIFF reader");
  TIFFOpenOptionsSetErrorHandlerExtR (options, stmap_tiff_error, r);
  TIFFOpenOptionsSetWarningHandlerExtR (options, stmap_tiff_warning, r);
  /* what a damaged header may make libtiff allocate at once */
  TIFFOpenOptionsSetMaxSingleMemAlloc (options, (tmsize_t) STMAP_MAX_BYTES);
  tif = TIFFClientOpenExt (r->path, "r", &io, stmap_tiff_read,
      stmap_tiff_write, stmap_tiff_seek, stmap_tiff_close, stmap_tiff_size,
      stmap_tiff_map, stmap_tiff_unmap, options);
  TIFFOpenOptionsFree (options);
  if (!tif)
    return stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "not a readable TIFF file (truncated or corrupt?): %s",
        stmap_lib_said (r));

  if (!TIFFGetField (tif, TIFFTAG_IMAGEWIDTH, &width)
      || !TIFFGetField (tif, TIFFTAG_IMAGELENGTH, &height)) {
    st = stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "corrupt TIFF: no image size");
    goto done;
  }
  TIFFGetFieldDefaulted (tif, TIFFTAG_BITSPERSAMPLE, &bits);
  TIFFGetFieldDefaulted (tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
  TIFFGetFieldDefaulted (tif, TIFFTAG_SAMPLEFORMAT, &format);
  TIFFGetFieldDefaulted (tif, TIFFTAG_PLANARCONFIG, &planar);
  if (!TIFFGetField (tif, TIFFTAG_PHOTOMETRIC, &photometric)) {
    st = stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "a TIFF without a photometric interpretation: an STMap is RGB(A) "
        "or two-channel (min-is-black with an extra sample)");
    goto done;
  }
  if (photometric != PHOTOMETRIC_RGB && photometric != PHOTOMETRIC_MINISBLACK) {
    st = stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "a TIFF of photometric interpretation %s (%d): an STMap is RGB(A) "
        "or two-channel (min-is-black with an extra sample)%s",
        stmap_tiff_photometric_name (photometric), photometric,
        /* what OpenCV writes for 3-channel float unless told a
         * compression (4.10: cv2.imwrite's default for CV_32FC3) */
        photometric == PHOTOMETRIC_LOGLUV ? "; LogLuv is a lossy colour "
        "encoding, what OpenCV's imwrite gives a 3-channel float TIFF by "
        "default: write the map with cv2.imwrite (path, map, "
        "[cv2.IMWRITE_TIFF_COMPRESSION, 1]) (uncompressed; 5 for LZW, 8 "
        "for deflate), or as OpenEXR (.exr)" : "");
    goto done;
  }
  if (samples < 2) {
    st = stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "a TIFF of %d channel per pixel: an STMap needs two, s (R) and "
        "t (G)", samples);
    goto done;
  }
  if (bits >= 1 && bits < 16 && format != SAMPLEFORMAT_IEEEFP) {
    st = stmap_refuse_few_bits (r, "a TIFF", bits);
    goto done;
  }
  if (!((bits == 16 && format == SAMPLEFORMAT_UINT)
          || (bits == 32 && format == SAMPLEFORMAT_IEEEFP))) {
    st = stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "a TIFF of %d-bit %s samples: an STMap must have 16-bit unsigned or "
        "32-bit float samples", bits, format == SAMPLEFORMAT_UINT ?
        "unsigned" : format == SAMPLEFORMAT_INT ? "signed" :
        format == SAMPLEFORMAT_IEEEFP ? "float" : "complex or unknown");
    goto done;
  }
  if (planar != PLANARCONFIG_CONTIG && planar != PLANARCONFIG_SEPARATE) {
    st = stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "corrupt TIFF: planar configuration %d", planar);
    goto done;
  }
  st = stmap_alloc (r, width, height);
  if (st != BSPLINE_OK)
    goto done;
  if (TIFFIsTiled (tif))
    st = stmap_tiff_tiles (r, tif, bits, samples,
        planar == PLANARCONFIG_SEPARATE);
  else
    st = stmap_tiff_strips (r, tif, bits, samples,
        planar == PLANARCONFIG_SEPARATE);

done:
  TIFFClose (tif);
  return st;
}
