/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-stmap-file.c: bspline_stmap_read (core/stmap/stmap-file.c) on files
 * this test writes itself, with the libraries the reader uses (libpng,
 * libtiff, OpenEXRCore's encoder), in the layouts OpenCV does not write
 * (tests/core/test_stmap_file.py checks what OpenCV writes):
 *  - PNG 16-bit RGB, and RGBA interlaced (Adam7);
 *  - TIFF 16-bit and 32-bit float, strips and tiles, contiguous and
 *    separate planes, two channels (min-is-black with an extra sample),
 *    uncompressed, LZW and deflate;
 *  - OpenEXR scanline and tiled (edge tiles cut by the frame), HALF, FLOAT
 *    and UINT channels and mixed, with a third channel beside R and G,
 *    compressions none, RLE, ZIPS, ZIP, PIZ, PXR24 (on floats that PXR24
 *    keeps exactly), B44 and B44A (on halves constant over each 4 x 4
 *    block, which they keep exactly), a data window off the origin,
 *    decreasing line order, part 0 of a multi-part file.
 * Each is read back exactly (16-bit: v / 65535; floats and halves as
 * written; UINT as the integer).  Then, for every file: every truncation
 * (every length for files under 4 KiB, else the first 512 and 200 more)
 * must be refused with a message (of a multi-part file, only those that
 * cut part 0, the part read, must be), and 300 seeded random
 * single-byte corruptions must each give either an error with a message,
 * or a map of the size it declares with finite values; nothing may crash,
 * leak or read out of bounds (the test runs under ASan and valgrind).
 * Refusals that need a file of their own: 8-bit PNG and TIFF, NaN in an
 * EXR (the message names the sample), a data window unlike the display
 * window, a multi-part file whose part 0 has no R, a directory, a FIFO
 * (must not block), NULL arguments.
 */
#include "test-common.h"
#include "bspline-stmap-file.h"
#include "bspline-stmap.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <openexr.h>
#include <png.h>
#include <tiffio.h>

#define MAX_FILES 32
#define SMALL_FILE 4096
#define LARGE_FILE_TRUNCATIONS 200
#define CORRUPTIONS 300

static char test_dir[64];

/* A valid map and the file that holds it. */
typedef struct
{
  char name[64];
  char path[128];
  int width, height;
  double *st;                   /* 2 * width * height expected values */
  /* the file ends in data the reader does not read (part 1 of a
   * multi-part EXR): a truncation there may go unnoticed */
  int tail_unread;
} test_map;

static test_map maps[MAX_FILES];
static int n_maps;

static test_map *
new_map (const char *name, int width, int height)
{
  test_map *m;

  if (n_maps == MAX_FILES) {
    printf ("%s: more than MAX_FILES (%d) maps\n", test_name, MAX_FILES);
    exit (99);
  }
  m = &maps[n_maps++];
  snprintf (m->name, sizeof (m->name), "%s", name);
  snprintf (m->path, sizeof (m->path), "%s/%s", test_dir, name);
  m->width = width;
  m->height = height;
  m->st = calloc ((size_t) 2 * width * height, sizeof (double));
  if (!m->st) {
    printf ("%s: out of memory\n", test_name);
    exit (99);
  }
  return m;
}

/* A path in the test's directory, for files made and removed as it goes. */
static void
scratch_path (char *out, size_t len, const char *name)
{
  snprintf (out, len, "%s/%s", test_dir, name);
}

/* ---- PNG (libpng) ---- */

static int
write_png (const char *path, int width, int height, int depth, int color,
    int interlace, const uint16_t * samples, int channels)
{
  FILE *f = fopen (path, "wb");
  png_structp png;
  png_infop info;
  unsigned char *volatile pixels = NULL;
  png_bytep *volatile rows = NULL;
  int x, y, c, bytes = depth / 8;
  size_t row_bytes = (size_t) width * channels * bytes;

  if (!f)
    return 0;
  png = png_create_write_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  info = png ? png_create_info_struct (png) : NULL;
  if (!info || setjmp (png_jmpbuf (png))) {
    png_destroy_write_struct (&png, &info);
    free (rows);
    free (pixels);
    fclose (f);
    return 0;
  }
  png_init_io (png, f);
  png_set_IHDR (png, info, width, height, depth, color, interlace,
      PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info (png, info);
  png_set_interlace_handling (png);
  pixels = malloc (row_bytes * height);
  rows = malloc (sizeof (png_bytep) * height);
  if (!pixels || !rows)
    png_error (png, "out of memory");
  for (y = 0; y < height; y++) {
    rows[y] = pixels + row_bytes * y;
    for (x = 0; x < width; x++)
      for (c = 0; c < channels; c++) {
        uint16_t v = samples[((size_t) y * width + x) * channels + c];
        unsigned char *p = rows[y] + ((size_t) x * channels + c) * bytes;
        /* big-endian, PNG's byte order */
        if (bytes == 2) {
          p[0] = v >> 8;
          p[1] = v & 0xff;
        } else {
          p[0] = (unsigned char) v;
        }
      }
  }
  png_write_image (png, rows);
  png_write_end (png, NULL);
  png_destroy_write_struct (&png, &info);
  free (rows);
  free (pixels);
  return fclose (f) == 0;
}

/* A 16-bit PNG of random samples; R and G are the map. */
static void
make_png (test_rng * rng, const char *name, int width, int height,
    int channels, int interlace)
{
  test_map *m = new_map (name, width, height);
  uint16_t *samples = malloc (sizeof (uint16_t) * width * height * channels);
  size_t i;

  TEST_CHECK (samples != NULL, "out of memory");
  if (!samples)
    return;
  for (i = 0; i < (size_t) width * height * channels; i++)
    samples[i] = (uint16_t) test_rng_int (rng, 0, 65535);
  for (i = 0; i < (size_t) width * height; i++) {
    m->st[2 * i] = samples[i * channels] / 65535.0;
    m->st[2 * i + 1] = samples[i * channels + 1] / 65535.0;
  }
  TEST_CHECK (write_png (m->path, width, height, 16, channels == 4 ?
          PNG_COLOR_TYPE_RGBA : PNG_COLOR_TYPE_RGB, interlace, samples,
          channels), "%s: libpng could not write it", name);
  free (samples);
}

/* ---- TIFF (libtiff) ---- */

typedef struct
{
  int bits;                     /* 16 (unsigned) or 32 (float) */
  int channels;                 /* 2 (min-is-black + extra) or 3, 4 (RGB) */
  int separate;                 /* planar configuration separate */
  int tile;                     /* tile side (a multiple of 16), or 0 */
  int rows_per_strip;
  int compression;
} tiff_spec;

/* A TIFF of random samples (16-bit: any code; float: in [-0.25, 1.25)). */
static void
make_tiff (test_rng * rng, const char *name, int width, int height,
    const tiff_spec * spec)
{
  test_map *m = new_map (name, width, height);
  int bytes = spec->bits / 8, planes = spec->separate ? spec->channels : 1;
  int per_pixel = spec->separate ? 1 : spec->channels;
  size_t n = (size_t) width * height * spec->channels;
  unsigned char *samples = malloc (n * bytes), *buf = NULL;
  uint16_t extra = EXTRASAMPLE_UNASSALPHA;
  TIFF *tif;
  size_t i;
  int ok = 1, plane, x, y;

  TEST_CHECK (samples != NULL, "out of memory");
  if (!samples)
    return;
  /* samples in [channel][y][x] order */
  for (i = 0; i < n; i++) {
    size_t pixel = i % ((size_t) width * height);
    int c = (int) (i / ((size_t) width * height));
    double v;
    if (spec->bits == 16) {
      uint16_t u = (uint16_t) test_rng_int (rng, 0, 65535);
      memcpy (samples + i * 2, &u, 2);
      v = u / 65535.0;
    } else {
      float f = (float) test_rng_range (rng, -0.25, 1.25);
      memcpy (samples + i * 4, &f, 4);
      v = f;
    }
    if (c < 2)
      m->st[2 * pixel + c] = v;
  }

  tif = TIFFOpen (m->path, "w");
  if (!tif) {
    TEST_CHECK (0, "%s: libtiff could not create it", name);
    free (samples);
    return;
  }
  TIFFSetField (tif, TIFFTAG_IMAGEWIDTH, (uint32_t) width);
  TIFFSetField (tif, TIFFTAG_IMAGELENGTH, (uint32_t) height);
  TIFFSetField (tif, TIFFTAG_BITSPERSAMPLE, (uint16_t) spec->bits);
  TIFFSetField (tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t) spec->channels);
  TIFFSetField (tif, TIFFTAG_SAMPLEFORMAT, (uint16_t) (spec->bits == 16 ?
          SAMPLEFORMAT_UINT : SAMPLEFORMAT_IEEEFP));
  TIFFSetField (tif, TIFFTAG_PHOTOMETRIC, (uint16_t) (spec->channels == 2 ?
          PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB));
  if (spec->channels == 2 || spec->channels == 4)
    TIFFSetField (tif, TIFFTAG_EXTRASAMPLES, (uint16_t) 1, &extra);
  TIFFSetField (tif, TIFFTAG_PLANARCONFIG, (uint16_t) (spec->separate ?
          PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG));
  TIFFSetField (tif, TIFFTAG_COMPRESSION, (uint16_t) spec->compression);
  if (spec->tile) {
    TIFFSetField (tif, TIFFTAG_TILEWIDTH, (uint32_t) spec->tile);
    TIFFSetField (tif, TIFFTAG_TILELENGTH, (uint32_t) spec->tile);
    buf = malloc ((size_t) TIFFTileSize (tif));
  } else {
    TIFFSetField (tif, TIFFTAG_ROWSPERSTRIP, (uint32_t) spec->rows_per_strip);
    buf = malloc ((size_t) TIFFScanlineSize (tif));
  }
  TEST_CHECK (buf != NULL, "out of memory");
  for (plane = 0; buf && ok && plane < planes; plane++) {
    if (spec->tile) {
      int x0, y0;
      for (y0 = 0; ok && y0 < height; y0 += spec->tile)
        for (x0 = 0; ok && x0 < width; x0 += spec->tile) {
          memset (buf, 0, (size_t) TIFFTileSize (tif));
          for (y = y0; y < y0 + spec->tile && y < height; y++)
            for (x = x0; x < x0 + spec->tile && x < width; x++) {
              int c;
              for (c = 0; c < per_pixel; c++) {
                int channel = spec->separate ? plane : c;
                size_t from = ((size_t) channel * height + y) * width + x;
                size_t to = (((size_t) (y - y0) * spec->tile + (x - x0))
                    * per_pixel + c) * bytes;
                memcpy (buf + to, samples + from * bytes, bytes);
              }
            }
          ok = TIFFWriteTile (tif, buf, x0, y0, 0, (uint16_t) plane) >= 0;
        }
    } else {
      for (y = 0; ok && y < height; y++) {
        for (x = 0; x < width; x++) {
          int c;
          for (c = 0; c < per_pixel; c++) {
            int channel = spec->separate ? plane : c;
            size_t from = ((size_t) channel * height + y) * width + x;
            memcpy (buf + ((size_t) x * per_pixel + c) * bytes,
                samples + from * bytes, bytes);
          }
        }
        ok = TIFFWriteScanline (tif, buf, y, (uint16_t) plane) >= 0;
      }
    }
  }
  TIFFClose (tif);
  TEST_CHECK (ok, "%s: libtiff could not write it", name);
  free (buf);
  free (samples);
}

/* ---- OpenEXR (OpenEXRCore's encoder) ---- */

typedef struct
{
  exr_pixel_type_t type[2];     /* of R and G */
  exr_compression_t compression;
  int tile;                     /* tile side, or 0 for scanlines */
  int x0, y0;                   /* the data (and display) window's origin */
  exr_lineorder_t line_order;
  int nan_x, nan_y;             /* a NaN in G there, where nan_x >= 0 */
  int display_margin;           /* display window larger by this much */
  int multi_part;               /* 1: part 1 holds Y; 2: part 0 holds Y */
  /* R and G constant over each 4 x 4 block, which B44 and B44A (lossy)
   * store exactly */
  int flat_blocks;
} exr_spec;

/* Sample values: halves k / 1024 (exact in a half); PXR24 floats with the
 * 8 low bits of the mantissa 0 (PXR24 keeps 24 bits); UINT any. */
typedef struct
{
  float *f[3];                  /* R, G, B (B: a third channel, written) */
  uint32_t *u[2];               /* R, G where UINT */
} exr_source;

static void
exr_fill (test_rng * rng, test_map * m, const exr_spec * spec, exr_source * src)
{
  size_t i, n = (size_t) m->width * m->height;
  int k;

  for (k = 0; k < 3; k++)
    src->f[k] = calloc (n, sizeof (float));
  for (k = 0; k < 2; k++)
    src->u[k] = calloc (n, sizeof (uint32_t));
  for (k = 0; k < 3; k++)
    if (!src->f[k] || (k < 2 && !src->u[k])) {
      printf ("%s: out of memory\n", test_name);
      exit (99);
    }
  for (i = 0; i < n; i++) {
    for (k = 0; k < 2; k++) {
      if (spec->type[k] == EXR_PIXEL_UINT) {
        src->u[k][i] = (uint32_t) test_rng_u64 (rng);
        m->st[2 * i + k] = src->u[k][i];
      } else if (spec->type[k] == EXR_PIXEL_HALF) {
        src->f[k][i] = test_rng_int (rng, -256, 1280) / 1024.0f;
        m->st[2 * i + k] = src->f[k][i];
      } else {
        float f = (float) test_rng_range (rng, -0.25, 1.25);
        uint32_t bits;
        if (spec->compression == EXR_COMPRESSION_PXR24) {
          memcpy (&bits, &f, 4);
          bits &= ~(uint32_t) 0xff;
          memcpy (&f, &bits, 4);
        }
        src->f[k][i] = f;
        m->st[2 * i + k] = f;
      }
    }
    src->f[2][i] = test_rng_int (rng, 0, 1024) / 1024.0f;
  }
  if (spec->flat_blocks) {
    int x, y;
    for (y = 0; y < m->height; y++)
      for (x = 0; x < m->width; x++)
        for (k = 0; k < 2; k++) {
          size_t at = (size_t) y * m->width + x;
          size_t corner = (size_t) (y & ~3) * m->width + (x & ~3);
          src->f[k][at] = src->f[k][corner];
          m->st[2 * at + k] = m->st[2 * corner + k];
        }
  }
  if (spec->nan_x >= 0)
    src->f[1][(size_t) spec->nan_y * m->width + spec->nan_x] = NAN;
}

/* Encodes the chunk cinfo of part from the full-frame arrays of src
 * (channel Y of another part: src->f[2]). */
static exr_result_t
exr_write_chunk (exr_context_t ctx, int part, const exr_chunk_info_t * cinfo,
    int x0, int y0, const test_map * m, const exr_spec * spec,
    const exr_source * src)
{
  exr_encode_pipeline_t enc = EXR_ENCODE_PIPELINE_INITIALIZER;
  exr_result_t rv;
  int c;

  rv = exr_encoding_initialize (ctx, part, cinfo, &enc);
  for (c = 0; rv == EXR_ERR_SUCCESS && c < enc.channel_count; c++) {
    exr_coding_channel_info_t *ch = &enc.channels[c];
    size_t at = (size_t) y0 * m->width + x0;
    int k = strcmp (ch->channel_name, "R") == 0 ? 0 :
        strcmp (ch->channel_name, "G") == 0 ? 1 : 2;
    if (k < 2 && spec->type[k] == EXR_PIXEL_UINT) {
      ch->user_data_type = EXR_PIXEL_UINT;
      ch->encode_from_ptr = (const uint8_t *) (src->u[k] + at);
    } else {
      ch->user_data_type = EXR_PIXEL_FLOAT;
      ch->encode_from_ptr = (const uint8_t *) (src->f[k] + at);
    }
    ch->user_bytes_per_element = 4;
    ch->user_pixel_stride = 4;
    ch->user_line_stride = 4 * m->width;
  }
  if (rv == EXR_ERR_SUCCESS)
    rv = exr_encoding_choose_default_routines (ctx, part, &enc);
  if (rv == EXR_ERR_SUCCESS)
    rv = exr_encoding_run (ctx, part, &enc);
  exr_encoding_destroy (ctx, &enc);
  return rv;
}

static exr_result_t
exr_write_part (exr_context_t ctx, int part, const test_map * m,
    const exr_spec * spec, const exr_source * src)
{
  exr_result_t rv = EXR_ERR_SUCCESS;
  int32_t lines = 1;
  int x, y;

  if (spec->tile) {
    for (y = 0; rv == EXR_ERR_SUCCESS && y * spec->tile < m->height; y++)
      for (x = 0; rv == EXR_ERR_SUCCESS && x * spec->tile < m->width; x++) {
        exr_chunk_info_t cinfo;
        rv = exr_write_tile_chunk_info (ctx, part, x, y, 0, 0, &cinfo);
        if (rv == EXR_ERR_SUCCESS)
          rv = exr_write_chunk (ctx, part, &cinfo, x * spec->tile,
              y * spec->tile, m, spec, src);
      }
    return rv;
  }
  rv = exr_get_scanlines_per_chunk (ctx, part, &lines);
  for (y = 0; rv == EXR_ERR_SUCCESS && y < m->height; y += lines) {
    exr_chunk_info_t cinfo;
    rv = exr_write_scanline_chunk_info (ctx, part, y + spec->y0, &cinfo);
    if (rv == EXR_ERR_SUCCESS)
      rv = exr_write_chunk (ctx, part, &cinfo, 0, y, m, spec, src);
  }
  return rv;
}

static exr_result_t
exr_define_part (exr_context_t ctx, const char *part_name, int map_part,
    const test_map * m, const exr_spec * spec, int *part)
{
  exr_attr_box2i_t dw, disp;
  exr_attr_v2f_t center;

  dw.min.x = spec->x0;
  dw.min.y = spec->y0;
  dw.max.x = spec->x0 + m->width - 1;
  dw.max.y = spec->y0 + m->height - 1;
  disp.min.x = dw.min.x - spec->display_margin;
  disp.min.y = dw.min.y - spec->display_margin;
  disp.max.x = dw.max.x + spec->display_margin;
  disp.max.y = dw.max.y + spec->display_margin;
  center.x = center.y = 0.f;
  exr_result_t rv;

  rv = exr_add_part (ctx, part_name, spec->tile ? EXR_STORAGE_TILED :
      EXR_STORAGE_SCANLINE, part);
  if (rv == EXR_ERR_SUCCESS)
    rv = exr_initialize_required_attr (ctx, *part, &disp, &dw, 1.f, &center,
        1.f, spec->line_order, spec->compression);
  if (rv == EXR_ERR_SUCCESS && spec->tile)
    rv = exr_set_tile_descriptor (ctx, *part, spec->tile, spec->tile,
        EXR_TILE_ONE_LEVEL, EXR_TILE_ROUND_DOWN);
  if (rv != EXR_ERR_SUCCESS)
    return rv;
  if (!map_part)
    return exr_add_channel (ctx, *part, "Y", EXR_PIXEL_HALF,
        EXR_PERCEPTUALLY_LOGARITHMIC, 1, 1);
  rv = exr_add_channel (ctx, *part, "R", spec->type[0],
      EXR_PERCEPTUALLY_LOGARITHMIC, 1, 1);
  if (rv == EXR_ERR_SUCCESS)
    rv = exr_add_channel (ctx, *part, "G", spec->type[1],
        EXR_PERCEPTUALLY_LOGARITHMIC, 1, 1);
  if (rv == EXR_ERR_SUCCESS)
    rv = exr_add_channel (ctx, *part, "B", EXR_PIXEL_HALF,
        EXR_PERCEPTUALLY_LOGARITHMIC, 1, 1);
  return rv;
}

/* Writes an EXR of m (filled here) as spec says; returns 0 on an error. */
static int
write_exr (test_rng * rng, test_map * m, const exr_spec * spec)
{
  exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
  exr_context_t ctx = NULL;
  exr_source src;
  exr_result_t rv;
  int parts[2], n_parts = spec->multi_part ? 2 : 1, p, k;

  exr_fill (rng, m, spec, &src);
  rv = exr_start_write (&ctx, m->path, EXR_WRITE_FILE_DIRECTLY, &init);
  for (p = 0; rv == EXR_ERR_SUCCESS && p < n_parts; p++) {
    /* multi_part 1: the map in part 0; 2: in part 1 */
    int map_part = spec->multi_part == 2 ? p == 1 : p == 0;
    rv = exr_define_part (ctx, n_parts > 1 ? (map_part ? "map" : "other") :
        NULL, map_part, m, spec, &parts[p]);
  }
  if (rv == EXR_ERR_SUCCESS)
    rv = exr_write_header (ctx);
  for (p = 0; rv == EXR_ERR_SUCCESS && p < n_parts; p++)
    rv = exr_write_part (ctx, parts[p], m, spec, &src);
  if (ctx && exr_finish (&ctx) != EXR_ERR_SUCCESS)
    rv = EXR_ERR_UNKNOWN;
  for (k = 0; k < 3; k++)
    free (src.f[k]);
  for (k = 0; k < 2; k++)
    free (src.u[k]);
  TEST_CHECK (rv == EXR_ERR_SUCCESS, "%s: OpenEXRCore could not write it: "
      "%s", m->name, exr_get_default_error_message (rv));
  return rv == EXR_ERR_SUCCESS;
}

static void
make_exr (test_rng * rng, const char *name, int width, int height,
    const exr_spec * spec)
{
  test_map *m = new_map (name, width, height);
  m->tail_unread = spec->multi_part != 0;
  write_exr (rng, m, spec);
}

static exr_spec
exr_default (void)
{
  exr_spec s;
  memset (&s, 0, sizeof (s));
  s.type[0] = s.type[1] = EXR_PIXEL_FLOAT;
  s.compression = EXR_COMPRESSION_ZIP;
  s.line_order = EXR_LINEORDER_INCREASING_Y;
  s.nan_x = -1;
  return s;
}

/* ---- the checks ---- */

static void
check_read_back (const test_map * m)
{
  char msg[512] = "";
  double *st = NULL;
  int w = -1, h = -1;
  bspline_status status = bspline_stmap_read (m->path, &w, &h, &st, msg,
      sizeof (msg));
  size_t i, bad = 0, first = 0;

  TEST_CHECK (status == BSPLINE_OK, "%s: status %d: %s", m->name, status, msg);
  if (status == BSPLINE_OK) {
    TEST_CHECK (w == m->width && h == m->height,
        "%s: read %dx%d, written %dx%d", m->name, w, h, m->width, m->height);
    if (w == m->width && h == m->height)
      for (i = 0; i < (size_t) 2 * w * h; i++)
        if (st[i] != m->st[i] && bad++ == 0)
          first = i;
    TEST_CHECK (bad == 0, "%s: %zu values differ, the first %s at column "
        "%zu, row %zu: read %.17g, written %.17g", m->name, bad,
        first % 2 ? "t" : "s", first / 2 % m->width,
        first / 2 / m->width, st[first], m->st[first]);
  }
  printf ("valid %-36s %3dx%-3d %s\n", m->name, m->width, m->height,
      status == BSPLINE_OK && bad == 0 && w == m->width ? "exact" : "FAILED");
  free (st);

  /* for a frame (issue 43): of the map's aspect ratio, the same values;
   * of another, refused from the header (nothing returned) */
  st = NULL;
  status = bspline_stmap_read_for_frame (m->path, 3 * m->width,
      3 * m->height, &w, &h, &st, msg, sizeof (msg));
  TEST_CHECK (status == BSPLINE_OK && w == m->width && h == m->height
      && memcmp (st, m->st, sizeof (double) * 2 * w * h) == 0,
      "%s for a %dx%d frame: status %d: %s", m->name, 3 * m->width,
      3 * m->height, status, msg);
  free (st);
  st = NULL;
  status = bspline_stmap_read_for_frame (m->path, 10 * m->width, m->height,
      &w, &h, &st, msg, sizeof (msg));
  if (bspline_stmap_fits_frame (m->width, m->height, 10 * m->width, m->height))
    TEST_CHECK (status == BSPLINE_OK, "%s for a %dx%d frame: status %d: %s",
        m->name, 10 * m->width, m->height, status, msg);
  else
    TEST_CHECK (status == BSPLINE_ERROR_INVALID_ARGUMENT && st == NULL
        && w == 0 && strstr (msg, "before any sample was decoded") != NULL,
        "%s for a %dx%d frame: status %d: %s", m->name, 10 * m->width,
        m->height, status, msg);
  free (st);
}

/* A damaged file's result: refused with a message, or a map of the size
 * it declares with finite values. */
static int
check_damaged (const char *path, const char *what, int must_fail)
{
  char msg[512] = "";
  double *st = NULL;
  int w = -1, h = -1;
  bspline_status status = bspline_stmap_read (path, &w, &h, &st, msg,
      sizeof (msg));
  size_t i;

  if (status != BSPLINE_OK) {
    TEST_CHECK (msg[0] != '\0' && st == NULL && w == 0 && h == 0,
        "%s: status %d without a message, or with a map", what, status);
    return 0;
  }
  TEST_CHECK (!must_fail, "%s: read as a valid %dx%d map", what, w, h);
  TEST_CHECK (st != NULL && w >= 1 && h >= 1 && w <= BSPLINE_MAX_SIDE
      && h <= BSPLINE_MAX_SIDE, "%s: OK with size %dx%d", what, w, h);
  if (st)
    for (i = 0; i < (size_t) 2 * w * h; i++)
      if (!isfinite (st[i])) {
        TEST_CHECK (0, "%s: OK with a non-finite value", what);
        break;
      }
  free (st);
  return 1;
}

/* Writes a new file at path: removed first, since ext4 flushes a file
 * truncated and rewritten to the disk when it is closed (auto_da_alloc),
 * which made the thousands of damaged copies take a minute. */
static int
write_file (const char *path, const unsigned char *data, size_t len)
{
  FILE *f;
  int ok;

  unlink (path);
  f = fopen (path, "wb");
  ok = f != NULL;
  if (f) {
    ok = fwrite (data, 1, len, f) == len;
    ok = fclose (f) == 0 && ok;
  }
  TEST_CHECK (ok, "cannot write %s", path);
  return ok;
}

static unsigned char *
read_file (const char *path, size_t *len)
{
  FILE *f = fopen (path, "rb");
  unsigned char *data = NULL;
  long n;

  *len = 0;
  if (!f)
    return NULL;
  if (fseek (f, 0, SEEK_END) == 0 && (n = ftell (f)) > 0
      && fseek (f, 0, SEEK_SET) == 0 && (data = malloc (n))
      && fread (data, 1, n, f) == (size_t) n)
    *len = (size_t) n;
  fclose (f);
  if (*len == 0) {
    free (data);
    return NULL;
  }
  return data;
}

static void
check_damage (test_rng * rng, const test_map * m, long *n_trunc,
    long *n_trunc_ok, long *n_corrupt, long *n_corrupt_ok)
{
  char path[160], what[256];
  unsigned char *data, *damaged;
  size_t len, cut, i;

  data = read_file (m->path, &len);
  TEST_CHECK (data != NULL, "%s: cannot read it back", m->name);
  if (!data)
    return;
  damaged = malloc (len);
  TEST_CHECK (damaged != NULL, "out of memory");
  scratch_path (path, sizeof (path), "damaged");
  printf ("damaging %s (%zu bytes)\n", m->name, len);
  fflush (stdout);

  for (cut = 0; damaged && cut < len; cut++) {
    /* small files: every length; larger ones: the first 512, the last,
     * and LARGE_FILE_TRUNCATIONS at random */
    if (len >= SMALL_FILE && cut >= 512 && cut != len - 1
        && test_rng_int (rng, 0, (int) len) >= LARGE_FILE_TRUNCATIONS)
      continue;
    if (!write_file (path, data, cut))
      break;
    snprintf (what, sizeof (what), "%s truncated to %zu of %zu bytes",
        m->name, cut, len);
    *n_trunc_ok += check_damaged (path, what, !m->tail_unread);
    (*n_trunc)++;
  }
  for (i = 0; damaged && i < CORRUPTIONS; i++) {
    /* half of them in the headers */
    size_t where = (size_t) test_rng_int (rng, 0,
        (int) ((i % 2 == 0 && len > 512 ? 512 : len) - 1));
    memcpy (damaged, data, len);
    damaged[where] = (unsigned char) (data[where] + test_rng_int (rng, 1, 255));
    if (!write_file (path, damaged, len))
      break;
    snprintf (what, sizeof (what), "%s with byte %zu set to 0x%02x (was "
        "0x%02x)", m->name, where, damaged[where], data[where]);
    *n_corrupt_ok += check_damaged (path, what, 0);
    (*n_corrupt)++;
  }
  unlink (path);
  free (damaged);
  free (data);
}

static void
expect_refusal (const char *path, const char *what, const char *words)
{
  char msg[512] = "";
  double *st = (double *) &st;  /* must be set to NULL */
  int w = -1, h = -1;
  bspline_status status = bspline_stmap_read (path, &w, &h, &st, msg,
      sizeof (msg));

  printf ("refuse %-40s -> %d: %s\n", what, status, msg);
  TEST_CHECK (status != BSPLINE_OK && st == NULL && w == 0 && h == 0,
      "%s: status %d, st %p, %dx%d", what, status, (void *) st, w, h);
  /* the words must be in what is said of the file, not in its name */
  TEST_CHECK (strncmp (msg, path, strlen (path)) == 0
      && strstr (msg + strlen (path), words) != NULL,
      "%s: message %s lacks \"%s\" after the file's name", what, msg, words);
  if (status == BSPLINE_OK)
    free (st);
}

static int
check_refusals (test_rng * rng)
{
  char path[160];
  uint16_t samples[4 * 3 * 3];
  int n = 0, i, fd;
  exr_spec spec;
  test_map m;

  for (i = 0; i < 4 * 3 * 3; i++)
    samples[i] = (uint16_t) test_rng_int (rng, 0, 255);
  scratch_path (path, sizeof (path), "8-bit.png");
  if (write_png (path, 4, 3, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
          samples, 3)) {
    expect_refusal (path, "8-bit PNG", "too coarse");
    n++;
  }
  unlink (path);

  scratch_path (path, sizeof (path), "8-bit.tiff");
  {
    TIFF *tif = TIFFOpen (path, "w");
    unsigned char row[3 * 4] = { 0 };
    TEST_CHECK (tif != NULL, "cannot write %s", path);
    if (tif) {
      TIFFSetField (tif, TIFFTAG_IMAGEWIDTH, (uint32_t) 4);
      TIFFSetField (tif, TIFFTAG_IMAGELENGTH, (uint32_t) 1);
      TIFFSetField (tif, TIFFTAG_BITSPERSAMPLE, (uint16_t) 8);
      TIFFSetField (tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t) 3);
      TIFFSetField (tif, TIFFTAG_PHOTOMETRIC, (uint16_t) PHOTOMETRIC_RGB);
      TIFFSetField (tif, TIFFTAG_PLANARCONFIG, (uint16_t) PLANARCONFIG_CONTIG);
      TIFFWriteScanline (tif, row, 0, 0);
      TIFFClose (tif);
      expect_refusal (path, "8-bit TIFF", "too coarse");
      n++;
    }
  }
  unlink (path);

  /* EXRs: written into a map that is dropped */
  memset (&m, 0, sizeof (m));
  m.width = 9;
  m.height = 5;
  m.st = calloc (2 * 9 * 5, sizeof (double));
  TEST_CHECK (m.st != NULL, "out of memory");
  if (m.st) {
    spec = exr_default ();
    spec.nan_x = 3;
    spec.nan_y = 2;
    scratch_path (m.path, sizeof (m.path), "nan.exr");
    snprintf (m.name, sizeof (m.name), "nan.exr");
    if (write_exr (rng, &m, &spec)) {
      expect_refusal (m.path, "NaN in an EXR", "column 3, row 2");
      n++;
    }
    unlink (m.path);

    spec = exr_default ();
    spec.display_margin = 1;
    scratch_path (m.path, sizeof (m.path), "window.exr");
    if (write_exr (rng, &m, &spec)) {
      expect_refusal (m.path, "data window inside the display window",
          "must cover the frame");
      n++;
    }
    unlink (m.path);

    spec = exr_default ();
    spec.multi_part = 2;
    scratch_path (m.path, sizeof (m.path), "multi-part-y.exr");
    if (write_exr (rng, &m, &spec)) {
      expect_refusal (m.path, "multi-part, part 0 without R",
          "only part 0 of a multi-part file is read");
      n++;
    }
    unlink (m.path);
    free (m.st);
  }

  expect_refusal (test_dir, "a directory", "directory");
  n++;
  scratch_path (path, sizeof (path), "fifo");
  if (mkfifo (path, 0600) == 0) {
    /* no writer: an open without O_NONBLOCK would wait forever */
    expect_refusal (path, "a FIFO", "special file");
    n++;
    unlink (path);
  }
  scratch_path (path, sizeof (path), "empty.exr");
  fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd >= 0) {
    close (fd);
    expect_refusal (path, "an empty file", "empty");
    n++;
  }
  unlink (path);

  {
    char msg[128] = "";
    double *st;
    int w, h;
    TEST_CHECK (bspline_stmap_read (NULL, &w, &h, &st, msg, sizeof (msg))
        == BSPLINE_ERROR_INVALID_ARGUMENT && msg[0] && st == NULL, "path NULL");
    TEST_CHECK (bspline_stmap_read (maps[0].path, NULL, &h, &st, NULL, 0)
        == BSPLINE_ERROR_INVALID_ARGUMENT, "width NULL");
    TEST_CHECK (bspline_stmap_read (maps[0].path, &w, &h, NULL, msg, 4)
        == BSPLINE_ERROR_INVALID_ARGUMENT && strlen (msg) == 3,
        "st NULL, a message cut to its buffer");
    n += 3;
  }
  return n;
}

int
main (void)
{
  test_rng rng;
  long n_trunc = 0, n_trunc_ok = 0, n_corrupt = 0, n_corrupt_ok = 0;
  int i, n_refusals;
  tiff_spec t;
  exr_spec e;

  test_begin ("test-stmap-file", &rng);
  snprintf (test_dir, sizeof (test_dir), "/tmp/test-stmap-file-XXXXXX");
  if (!mkdtemp (test_dir)) {
    printf ("%s: mkdtemp: %s\n", test_name, strerror (errno));
    return 99;
  }

  make_png (&rng, "png16-rgb-7x5.png", 7, 5, 3, PNG_INTERLACE_NONE);
  make_png (&rng, "png16-rgba-adam7-9x6.png", 9, 6, 4, PNG_INTERLACE_ADAM7);
  make_png (&rng, "png16-rgb-1x1.png", 1, 1, 3, PNG_INTERLACE_NONE);

  memset (&t, 0, sizeof (t));
  t.bits = 16;
  t.channels = 3;
  t.rows_per_strip = 2;
  t.compression = COMPRESSION_NONE;
  make_tiff (&rng, "tiff16-rgb-strips-7x5.tiff", 7, 5, &t);
  t.channels = 4;
  t.tile = 16;
  t.compression = COMPRESSION_LZW;
  make_tiff (&rng, "tiff16-rgba-tiles-lzw-37x23.tiff", 37, 23, &t);
  t.bits = 32;
  t.channels = 2;
  t.tile = 0;
  t.separate = 1;
  t.rows_per_strip = 3;
  t.compression = COMPRESSION_ADOBE_DEFLATE;
  make_tiff (&rng, "tiff32f-2ch-planar-deflate-9x7.tiff", 9, 7, &t);
  t.channels = 3;
  t.tile = 16;
  t.compression = COMPRESSION_NONE;
  make_tiff (&rng, "tiff32f-rgb-planar-tiles-17x18.tiff", 17, 18, &t);

  e = exr_default ();
  e.compression = EXR_COMPRESSION_NONE;
  make_exr (&rng, "exr-float-none-7x5.exr", 7, 5, &e);
  e.type[0] = e.type[1] = EXR_PIXEL_HALF;
  e.compression = EXR_COMPRESSION_ZIP;
  make_exr (&rng, "exr-half-zip-13x21.exr", 13, 21, &e);
  e.compression = EXR_COMPRESSION_RLE;
  e.x0 = -3;
  e.y0 = 7;
  make_exr (&rng, "exr-half-rle-window-off-origin-6x4.exr", 6, 4, &e);
  e = exr_default ();
  e.type[0] = EXR_PIXEL_UINT;
  e.compression = EXR_COMPRESSION_ZIPS;
  e.line_order = EXR_LINEORDER_DECREASING_Y;
  make_exr (&rng, "exr-uint-float-zips-decreasing-5x6.exr", 5, 6, &e);
  e = exr_default ();
  e.type[0] = EXR_PIXEL_HALF;
  e.compression = EXR_COMPRESSION_PIZ;
  make_exr (&rng, "exr-half-float-piz-11x9.exr", 11, 9, &e);
  e.type[0] = EXR_PIXEL_FLOAT;
  e.compression = EXR_COMPRESSION_PXR24;
  make_exr (&rng, "exr-float-pxr24-10x6.exr", 10, 6, &e);
  e = exr_default ();
  e.tile = 8;
  make_exr (&rng, "exr-float-tiled-zip-19x13.exr", 19, 13, &e);
  e.type[0] = e.type[1] = EXR_PIXEL_HALF;
  e.compression = EXR_COMPRESSION_NONE;
  e.tile = 4;
  make_exr (&rng, "exr-half-tiled-none-6x5.exr", 6, 5, &e);
  e = exr_default ();
  e.type[0] = e.type[1] = EXR_PIXEL_HALF;
  e.compression = EXR_COMPRESSION_B44;
  e.flat_blocks = 1;
  make_exr (&rng, "exr-half-b44-flat-blocks-11x9.exr", 11, 9, &e);
  e.compression = EXR_COMPRESSION_B44A;
  e.tile = 8;
  make_exr (&rng, "exr-half-b44a-tiled-flat-blocks-13x10.exr", 13, 10, &e);
  e = exr_default ();
  e.multi_part = 1;
  make_exr (&rng, "exr-multi-part-part0-8x3.exr", 8, 3, &e);
  e = exr_default ();
  make_exr (&rng, "exr-float-zip-1x1.exr", 1, 1, &e);

  for (i = 0; i < n_maps; i++)
    check_read_back (&maps[i]);
  n_refusals = check_refusals (&rng);
  for (i = 0; i < n_maps; i++)
    check_damage (&rng, &maps[i], &n_trunc, &n_trunc_ok, &n_corrupt,
        &n_corrupt_ok);

  for (i = 0; i < n_maps; i++) {
    unlink (maps[i].path);
    free (maps[i].st);
  }
  if (rmdir (test_dir) != 0)
    printf ("%s: could not remove %s: %s\n", test_name, test_dir,
        strerror (errno));
  return test_end ("%d maps written and read back exactly, %d refusals, "
      "%ld truncations refused (but %ld that cut only the unread part 1 of "
      "a multi-part EXR), %ld corruptions (%ld read as finite maps, the "
      "rest refused)", n_maps, n_refusals, n_trunc, n_trunc_ok, n_corrupt,
      n_corrupt_ok);
}
