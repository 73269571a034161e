/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stmap-exr.c: the STMap file reader's OpenEXR files, through
 * OpenEXRCore, the library's C API (stmap-file.c reads the file and
 * picks the codec). */
#include "stmap-reader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openexr.h>

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

bspline_status
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
