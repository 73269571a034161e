/* stmap-file.c: the STMap file reader (bspline-stmap-file.h).
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
 * index: the sides against BSPLINE_MAX_SIDE, the doubles returned against
 * STMAP_MAX_BYTES, and each decoded block (EXR chunk, TIFF tile) against
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

#include "bspline-stmap-file.h"

/* The most the returned doubles may take: 1 GiB, an 8192 x 8192 map.
 * The largest intermediate buffer (a TIFF tile, a whole 16-bit PNG) is
 * held to it too. */
#define STMAP_MAX_BYTES ((uint64_t) 1 << 30)

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
} stmap_reader;

static bspline_status
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

/* strerror is not thread-safe; this is POSIX's strerror_r (the XSI one:
 * the project builds with _POSIX_C_SOURCE, without _GNU_SOURCE). */
typedef struct
{
  char text[128];
} stmap_errno_text;

static const char *
stmap_strerror (int err, stmap_errno_text * buf)
{
  if (strerror_r (err, buf->text, sizeof (buf->text)) != 0)
    snprintf (buf->text, sizeof (buf->text), "error %d", err);
  return buf->text;
}

static void
stmap_lib_message (stmap_reader * r, const char *format, va_list args)
{
  if (r->lib_msg[0] == '\0')
    vsnprintf (r->lib_msg, sizeof (r->lib_msg), format, args);
}

/* The library's own words, or a stand-in where it gave none. */
static const char *
stmap_lib_said (const stmap_reader * r)
{
  return r->lib_msg[0] ? r->lib_msg : "no detail given";
}

/* Reads size bytes at offset; fewer only at the end of the file; -1 on
 * an error (errno set). */
static int64_t
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
static bspline_status
stmap_alloc (stmap_reader * r, int64_t width, int64_t height)
{
  uint64_t bytes;

  if (width < 1 || height < 1 || width > BSPLINE_MAX_SIDE
      || height > BSPLINE_MAX_SIDE)
    return stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "declares a size of %lld x %lld: each side must be 1 to %d",
        (long long) width, (long long) height, BSPLINE_MAX_SIDE);
  /* at most 16 x 2^24 x 2^24: no overflow in 64 bits */
  bytes = 2 * sizeof (double) * width * height;
  if (bytes > STMAP_MAX_BYTES)
    return stmap_fail (r, BSPLINE_ERROR_NO_MEMORY,
        "a %lld x %lld map takes %llu bytes as doubles, more than the "
        "limit of %llu (1 GiB)", (long long) width, (long long) height,
        (unsigned long long) bytes, (unsigned long long) STMAP_MAX_BYTES);
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
static bspline_status
stmap_refuse_few_bits (stmap_reader * r, const char *format_name, int bits)
{
  return stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
      "%s of %d bits per channel: %d bits give steps of 1/%d of the frame, "
      "too coarse for a map; write it as 16-bit PNG or TIFF, or as float "
      "(OpenEXR, 32-bit TIFF)", format_name, bits, bits, (1 << bits) - 1);
}

/* ---- OpenEXR (OpenEXRCore, the library's C API) ---- */

static void
stmap_exr_error (exr_const_context_t ctxt, exr_result_t code, const char *text)
{
  void *user_data = NULL;

  (void) code;
  if (exr_get_user_data (ctxt, &user_data) == EXR_ERR_SUCCESS && user_data) {
    stmap_reader *r = user_data;
    if (r->lib_msg[0] == '\0')
      snprintf (r->lib_msg, sizeof (r->lib_msg), "%s", text);
  }
}

static int64_t
stmap_exr_read (exr_const_context_t ctxt, void *user_data, void *buffer,
    uint64_t size, uint64_t offset, exr_stream_error_func_ptr_t error_cb)
{
  int64_t n = stmap_pread (user_data, buffer, size, offset);
  stmap_errno_text text;

  if (n < 0)
    error_cb (ctxt, EXR_ERR_READ_IO, "read error: %s",
        stmap_strerror (errno, &text));
  return n;
}

static int64_t
stmap_exr_size (exr_const_context_t ctxt, void *user_data)
{
  (void) ctxt;
  return (int64_t) ((stmap_reader *) user_data)->size;
}

/* The message for an OpenEXRCore call that failed. */
static bspline_status
stmap_exr_fail (stmap_reader * r, exr_result_t rv, const char *what)
{
  const char *said = r->lib_msg[0] ?
      r->lib_msg : exr_get_default_error_message (rv);

  /* OpenEXRCore 3.1 decodes no DWAA or DWAB: not the file's fault */
  if (rv == EXR_ERR_FEATURE_NOT_IMPLEMENTED)
    return stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "the OpenEXR library here cannot read this file: %s: %s; save the "
        "map with another compression (ZIP, PIZ or none are lossless)",
        what, said);
  return stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
      "not a readable OpenEXR file (truncated or corrupt?): %s: %s (%s)",
      what, said, exr_get_error_code_as_string (rv));
}

/* Where R and G are in the part's channel list, or -1. */
static void
stmap_exr_find_rg (const exr_attr_chlist_t * chlist, int *r_index, int *g_index)
{
  int i;

  *r_index = *g_index = -1;
  for (i = 0; i < chlist->num_channels; i++) {
    const char *name = chlist->entries[i].name.str;
    if (name && strcmp (name, "R") == 0)
      *r_index = i;
    else if (name && strcmp (name, "G") == 0)
      *g_index = i;
  }
}

/* One chunk (a block of scanlines or a tile), decoded into planar 32-bit
 * buffers: R into plane 0, G into plane 1, HALF widened to FLOAT by the
 * library, exactly, UINT left UINT (a float would round it above 2^24).
 * Every other channel is decoded too, into plane 2, and dropped: given a
 * channel without a destination, OpenEXRCore 3.1's specialised unpackers
 * (unpack_half_to_float_3chan_planar and the like, chosen for RGB(A)
 * halves) still write it, through the NULL pointer. */
typedef struct
{
  exr_context_t ctxt;
  uint8_t *plane[3];            /* R, G, the others: 4-byte samples */
  uint64_t capacity;            /* pixels each plane holds */
} stmap_exr_chunks;

/* Allocates the planes for blocks of up to pixels pixels: at most the
 * frame, so at most 3/4 of the doubles returned. */
static int
stmap_exr_planes (stmap_exr_chunks * c, uint64_t pixels)
{
  int k;

  for (k = 0; k < 3; k++)
    c->plane[k] = malloc ((size_t) pixels * 4);
  c->capacity = pixels;
  return c->plane[0] && c->plane[1] && c->plane[2];
}

/* Decodes the chunk cinfo into the map at (x0, y0), pixels of the data
 * window counted from its top-left corner. */
static bspline_status
stmap_exr_chunk (stmap_reader * r, stmap_exr_chunks * c,
    const exr_chunk_info_t * cinfo, int64_t x0, int64_t y0)
{
  exr_decode_pipeline_t decode = EXR_DECODE_PIPELINE_INITIALIZER;
  uint16_t user_type[3] = { EXR_PIXEL_FLOAT, EXR_PIXEL_FLOAT,
    EXR_PIXEL_FLOAT
  };
  bspline_status st = BSPLINE_OK;
  exr_result_t rv;
  int64_t x, y;
  int i, k;

  if (cinfo->width < 1 || cinfo->height < 1 || x0 < 0 || y0 < 0
      || x0 + cinfo->width > r->width || y0 + cinfo->height > r->height
      || (uint64_t) cinfo->width * (uint64_t) cinfo->height > c->capacity)
    return stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "corrupt OpenEXR file: a block of %d x %d pixels at (%lld, %lld) "
        "lies outside the %d x %d data window", cinfo->width,
        cinfo->height, (long long) x0, (long long) y0, r->width, r->height);

  /* OpenEXRCore 3.1 decodes an uncompressed block whose size in the file
   * is not that of its pixels from a buffer it leaves partly unset */
  if (cinfo->compression == EXR_COMPRESSION_NONE
      && cinfo->packed_size != cinfo->unpacked_size)
    return stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "corrupt OpenEXR file: an uncompressed block of %llu bytes holds "
        "pixels of %llu bytes", (unsigned long long) cinfo->packed_size,
        (unsigned long long) cinfo->unpacked_size);

  /* R and G are in the part's channel list (stmap_read_exr checked), so
   * in every block's */
  rv = exr_decoding_initialize (c->ctxt, 0, cinfo, &decode);
  for (i = 0; rv == EXR_ERR_SUCCESS && i < decode.channel_count; i++) {
    exr_coding_channel_info_t *ch = &decode.channels[i];
    k = strcmp (ch->channel_name, "R") == 0 ? 0 :
        strcmp (ch->channel_name, "G") == 0 ? 1 : 2;
    /* the library writes ch->width x ch->height samples (fewer for a
     * subsampled channel): they must fit the planes, sized from blocks */
    if (ch->width > cinfo->width || ch->height > cinfo->height
        || (k < 2 && (ch->width != cinfo->width
                || ch->height != cinfo->height))) {
      st = stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
          "corrupt OpenEXR file: channel %s has %d x %d samples in a block "
          "of %d x %d pixels", ch->channel_name, ch->width, ch->height,
          cinfo->width, cinfo->height);
      break;
    }
    if (k < 2 && ch->data_type == EXR_PIXEL_UINT)
      user_type[k] = EXR_PIXEL_UINT;
    ch->user_data_type = user_type[k];
    ch->user_bytes_per_element = 4;
    ch->user_pixel_stride = 4;
    ch->user_line_stride = 4 * ch->width;
    ch->decode_to_ptr = c->plane[k];
  }
  if (rv == EXR_ERR_SUCCESS && st == BSPLINE_OK)
    rv = exr_decoding_choose_default_routines (c->ctxt, 0, &decode);
  /* A block no smaller than its pixels is stored as they are, whatever the
   * compression: so OpenEXR's C++ library writes and reads it.  B44
   * compresses only HALF channels, so a B44 block of FLOAT or UINT
   * channels is stored raw; OpenEXRCore before 3.3 still ran the B44
   * decoder on it, scrambling the channels (fixed upstream by "make b44
   * consistent with compression rules", 0315f0e6, April 2024).  Read such
   * blocks raw, as the header documents for a decompress_fn set to NULL. */
  if (rv == EXR_ERR_SUCCESS && cinfo->packed_size == cinfo->unpacked_size)
    decode.decompress_fn = NULL;
  if (rv == EXR_ERR_SUCCESS && st == BSPLINE_OK)
    rv = exr_decoding_run (c->ctxt, 0, &decode);
  exr_decoding_destroy (c->ctxt, &decode);
  if (st != BSPLINE_OK)
    return st;
  if (rv != EXR_ERR_SUCCESS)
    return stmap_exr_fail (r, rv, "decoding a block");

  for (y = 0; y < cinfo->height; y++)
    for (x = 0; x < cinfo->width; x++) {
      size_t from = (size_t) (y * cinfo->width + x) * 4;
      double *to = r->st + 2 * ((size_t) (y0 + y) * r->width + (x0 + x));
      for (k = 0; k < 2; k++) {
        if (user_type[k] == EXR_PIXEL_UINT) {
          uint32_t v;
          memcpy (&v, c->plane[k] + from, 4);
          to[k] = v;
        } else {
          float v;
          memcpy (&v, c->plane[k] + from, 4);
          to[k] = v;
        }
      }
    }
  return BSPLINE_OK;
}

static bspline_status
stmap_exr_scanlines (stmap_reader * r, stmap_exr_chunks * c,
    const exr_attr_box2i_t * dw)
{
  int32_t lines = 0;
  exr_result_t rv;
  int64_t y;

  rv = exr_get_scanlines_per_chunk (c->ctxt, 0, &lines);
  if (rv != EXR_ERR_SUCCESS || lines < 1)
    return stmap_exr_fail (r, rv ? rv : EXR_ERR_INVALID_ATTR,
        "lines per block");
  if (!stmap_exr_planes (c, (uint64_t) r->width * (uint64_t) (lines <
              r->height ? lines : r->height)))
    return stmap_fail (r, BSPLINE_ERROR_NO_MEMORY,
        "out of memory for a block of %d scanlines", lines);
  for (y = dw->min.y; y <= dw->max.y; y += lines) {
    exr_chunk_info_t cinfo;
    bspline_status st;
    rv = exr_read_scanline_chunk_info (c->ctxt, 0, (int) y, &cinfo);
    if (rv != EXR_ERR_SUCCESS)
      return stmap_exr_fail (r, rv, "the table of blocks");
    if (cinfo.width != r->width)
      return stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
          "corrupt OpenEXR file: a block of scanlines %d pixels wide in a "
          "data window %d wide", cinfo.width, r->width);
    st = stmap_exr_chunk (r, c, &cinfo, 0, (int64_t) cinfo.start_y - dw->min.y);
    if (st != BSPLINE_OK)
      return st;
  }
  return BSPLINE_OK;
}

static bspline_status
stmap_exr_tiles (stmap_reader * r, stmap_exr_chunks * c)
{
  uint32_t tile_w = 0, tile_h = 0;
  int32_t level_w = 0, level_h = 0;
  exr_tile_level_mode_t level_mode;
  exr_tile_round_mode_t round_mode;
  exr_result_t rv;
  int64_t tx, ty;

  rv = exr_get_tile_descriptor (c->ctxt, 0, &tile_w, &tile_h, &level_mode,
      &round_mode);
  if (rv == EXR_ERR_SUCCESS)
    rv = exr_get_level_sizes (c->ctxt, 0, 0, 0, &level_w, &level_h);
  if (rv != EXR_ERR_SUCCESS)
    return stmap_exr_fail (r, rv, "the tile description");
  if (tile_w < 1 || tile_h < 1 || level_w != r->width || level_h != r->height)
    return stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "corrupt OpenEXR file: tiles of %u x %u, a first level of %d x %d "
        "in a %d x %d data window", tile_w, tile_h, level_w, level_h,
        r->width, r->height);
  /* the full-resolution level (0, 0); mipmap and ripmap levels below it
   * are not read */
  if (!stmap_exr_planes (c, (uint64_t) (tile_w < (uint32_t) r->width ?
              tile_w : (uint32_t) r->width) * (tile_h < (uint32_t) r->height ?
              tile_h : (uint32_t) r->height)))
    return stmap_fail (r, BSPLINE_ERROR_NO_MEMORY,
        "out of memory for a tile of %u x %u", tile_w, tile_h);
  for (ty = 0; ty * (int64_t) tile_h < r->height; ty++)
    for (tx = 0; tx * (int64_t) tile_w < r->width; tx++) {
      exr_chunk_info_t cinfo;
      bspline_status st;
      rv = exr_read_tile_chunk_info (c->ctxt, 0, (int) tx, (int) ty, 0, 0,
          &cinfo);
      if (rv != EXR_ERR_SUCCESS)
        return stmap_exr_fail (r, rv, "the table of tiles");
      st = stmap_exr_chunk (r, c, &cinfo, tx * (int64_t) tile_w,
          ty * (int64_t) tile_h);
      if (st != BSPLINE_OK)
        return st;
    }
  return BSPLINE_OK;
}

/* The part's channel names, for the message that says R or G is missing. */
static void
stmap_exr_channel_names (const exr_attr_chlist_t * chlist, char *out,
    size_t out_len)
{
  size_t used = 0;
  int i;

  out[0] = '\0';
  for (i = 0; i < chlist->num_channels && used + 1 < out_len; i++) {
    int n = snprintf (out + used, out_len - used, "%s%s", i ? ", " : "",
        chlist->entries[i].name.str ? chlist->entries[i].name.str : "?");
    if (n < 0)
      break;
    used += (size_t) n;
  }
  if (chlist->num_channels == 0)
    snprintf (out, out_len, "none");
}

static bspline_status
stmap_read_exr (stmap_reader * r)
{
  exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
  stmap_exr_chunks c;
  const exr_attr_chlist_t *chlist = NULL;
  exr_attr_box2i_t dw, disp;
  exr_storage_t storage;
  exr_result_t rv;
  int parts = 0, ri, gi;
  bspline_status st;

  memset (&c, 0, sizeof (c));
  init.error_handler_fn = stmap_exr_error;
  init.user_data = r;
  init.read_fn = stmap_exr_read;
  init.size_fn = stmap_exr_size;
  /* a map with a damaged table of blocks is an error, not a file to
   * reconstruct by searching it */
  init.flags = EXR_CONTEXT_FLAG_DISABLE_CHUNK_RECONSTRUCTION;
  rv = exr_start_read (&c.ctxt, r->path, &init);
  if (rv != EXR_ERR_SUCCESS) {
    /* exr_start_read frees what it allocated when it fails */
    return stmap_exr_fail (r, rv, "the header");
  }

  rv = exr_get_count (c.ctxt, &parts);
  if (rv == EXR_ERR_SUCCESS)
    rv = exr_get_storage (c.ctxt, 0, &storage);
  if (rv == EXR_ERR_SUCCESS)
    rv = exr_get_channels (c.ctxt, 0, &chlist);
  if (rv == EXR_ERR_SUCCESS)
    rv = exr_get_data_window (c.ctxt, 0, &dw);
  if (rv == EXR_ERR_SUCCESS)
    rv = exr_get_display_window (c.ctxt, 0, &disp);
  if (rv != EXR_ERR_SUCCESS) {
    st = stmap_exr_fail (r, rv, "the header");
    goto done;
  }

  if (storage != EXR_STORAGE_SCANLINE && storage != EXR_STORAGE_TILED) {
    st = stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "a deep OpenEXR %s: an STMap holds one sample per pixel",
        parts > 1 ? "part 0" : "file");
    goto done;
  }
  stmap_exr_find_rg (chlist, &ri, &gi);
  if (ri < 0 || gi < 0) {
    char names[128];
    stmap_exr_channel_names (chlist, names, sizeof (names));
    st = stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "%s has no channel %s (its channels: %s): an STMap holds s in R and "
        "t in G%s", parts > 1 ? "part 0 of this multi-part OpenEXR file" :
        "this OpenEXR file", ri < 0 ? "R" : "G", names,
        parts > 1 ? "; only part 0 of a multi-part file is read" : "");
    goto done;
  }
  if (chlist->entries[ri].x_sampling != 1
      || chlist->entries[ri].y_sampling != 1
      || chlist->entries[gi].x_sampling != 1
      || chlist->entries[gi].y_sampling != 1) {
    st = stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "channel R or G is subsampled: an STMap needs both at every pixel");
    goto done;
  }
  if (dw.min.x != disp.min.x || dw.min.y != disp.min.y
      || dw.max.x != disp.max.x || dw.max.y != disp.max.y) {
    st = stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "the data window (%d, %d) - (%d, %d) differs from the display "
        "window (%d, %d) - (%d, %d): the map must cover the frame, one "
        "source position per pixel, so the two must be equal",
        dw.min.x, dw.min.y, dw.max.x, dw.max.y, disp.min.x, disp.min.y,
        disp.max.x, disp.max.y);
    goto done;
  }

  st = stmap_alloc (r, (int64_t) dw.max.x - dw.min.x + 1,
      (int64_t) dw.max.y - dw.min.y + 1);
  if (st != BSPLINE_OK)
    goto done;
  if (storage == EXR_STORAGE_SCANLINE)
    st = stmap_exr_scanlines (r, &c, &dw);
  else
    st = stmap_exr_tiles (r, &c);

done:
  free (c.plane[0]);
  free (c.plane[1]);
  free (c.plane[2]);
  exr_finish (&c.ctxt);
  return st;
}

/* ---- PNG (libpng's classic API: its simplified API applies gamma) ---- */

static void
stmap_png_error (png_structp png, png_const_charp text)
{
  stmap_reader *r = png_get_error_ptr (png);

  if (r->lib_msg[0] == '\0')
    snprintf (r->lib_msg, sizeof (r->lib_msg), "%s", text);
  png_longjmp (png, 1);
}

static void
stmap_png_warning (png_structp png, png_const_charp text)
{
  /* warnings (an unknown chunk, a bad sRGB profile) change no sample */
  (void) png;
  (void) text;
}

/* libpng reads the file in order, from offset on. */
typedef struct
{
  stmap_reader *r;
  uint64_t offset;
} stmap_png_io;

static void
stmap_png_read (png_structp png, png_bytep data, size_t length)
{
  stmap_png_io *io = png_get_io_ptr (png);
  int64_t n = stmap_pread (io->r, data, length, io->offset);
  stmap_errno_text text;

  if (n < 0)
    png_error (png, stmap_strerror (errno, &text));
  if ((uint64_t) n < length)
    png_error (png, "the file ends early (truncated)");
  io->offset += length;
}

static bspline_status
stmap_read_png (stmap_reader * r)
{
  stmap_png_io io = { r, 0 };
  png_structp png;
  png_infop info = NULL;
  /* set after setjmp and freed after a longjmp: volatile, so that they
   * hold their last values there (C99 7.13.2.1) */
  unsigned char *volatile pixels = NULL;
  png_bytep *volatile rows = NULL;
  volatile bspline_status st = BSPLINE_OK;
  png_uint_32 width, height, y, x;
  int depth, color, channels;
  size_t row_bytes;

  png = png_create_read_struct (PNG_LIBPNG_VER_STRING, r, stmap_png_error,
      stmap_png_warning);
  if (png)
    info = png_create_info_struct (png);
  if (!info) {
    png_destroy_read_struct (&png, NULL, NULL);
    return stmap_fail (r, BSPLINE_ERROR_NO_MEMORY,
        "out of memory for the PNG reader");
  }
  if (setjmp (png_jmpbuf (png))) {
    st = stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "not a readable PNG file (truncated or corrupt?): %s",
        stmap_lib_said (r));
    goto done;
  }
  png_set_read_fn (png, &io, stmap_png_read);
  /* libpng's own limit (1000000 pixels a side) would refuse a wider map
   * in its words: stmap_alloc checks the sides, before any row is read */
  png_set_user_limits (png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
  png_read_info (png, info);
  png_get_IHDR (png, info, &width, &height, &depth, &color, NULL, NULL, NULL);
  if (color == PNG_COLOR_TYPE_PALETTE) {
    st = stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "a palette PNG: an STMap needs R and G of 16 bits each");
    goto done;
  }
  if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) {
    st = stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "a grey%s PNG: an STMap needs R and G channels (RGB or RGBA)",
        color == PNG_COLOR_TYPE_GRAY_ALPHA ? " + alpha" : "");
    goto done;
  }
  if (depth != 16) {
    st = stmap_refuse_few_bits (r, "a PNG", depth);
    goto done;
  }
  st = stmap_alloc (r, width, height);
  if (st != BSPLINE_OK)
    goto done;

  /* Adam7 images come in passes over the whole image: decode it all
   * (at most half the bytes of the doubles returned), then convert */
  png_set_interlace_handling (png);
  png_read_update_info (png, info);
  channels = png_get_channels (png, info);
  row_bytes = png_get_rowbytes (png, info);
  if ((channels != 3 && channels != 4)
      || row_bytes != (size_t) width * channels * 2) {
    st = stmap_fail (r, BSPLINE_ERROR_INVALID_ARGUMENT,
        "corrupt PNG: %d channels, %zu bytes per row of %u pixels",
        channels, row_bytes, (unsigned) width);
    goto done;
  }
  pixels = malloc (row_bytes * height);
  rows = malloc (sizeof (png_bytep) * height);
  if (!pixels || !rows) {
    st = stmap_fail (r, BSPLINE_ERROR_NO_MEMORY,
        "out of memory for a %u x %u PNG", (unsigned) width, (unsigned) height);
    goto done;
  }
  for (y = 0; y < height; y++)
    rows[y] = pixels + row_bytes * y;
  png_read_image (png, rows);
  /* to the end of the file: a truncated or damaged file is refused even
   * where the damage is past the pixels */
  png_read_end (png, NULL);

  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      const unsigned char *p = rows[y] + (size_t) x * channels * 2;
      double *to = r->st + 2 * ((size_t) y * width + x);
      /* PNG stores 16-bit samples big-endian */
      to[0] = ((p[0] << 8) | p[1]) / 65535.0;
      to[1] = ((p[2] << 8) | p[3]) / 65535.0;
    }

done:
  free (rows);
  free (pixels);
  png_destroy_read_struct (&png, &info, NULL);
  return st;
}

/* ---- TIFF (libtiff, through this reader's own file procedures) ---- */

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

static bspline_status
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
         * compression */
        photometric == PHOTOMETRIC_LOGLUV ? "; LogLuv is a lossy colour "
        "encoding: write the map uncompressed, LZW or deflate" : "");
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
    status = stmap_fail (&r, BSPLINE_ERROR_INVALID_ARGUMENT,
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
