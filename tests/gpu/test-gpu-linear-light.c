/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-gpu-linear-light.c: bsplinewarp gamma-mode=remap with backend=cuda
 * (cuda/transfer.cu: decode to linear light, resample, encode on the
 * device) against backend=cpu (core/base/transfer.c around the CPU
 * engine), both in double: within 1 code value
 * - on a photograph (scikit-image's astronaut, every 4th pixel, 128x96
 *   RGB: tests/gpu/data/astronaut-128x96.rgb) shrunk (least squares),
 *   enlarged and rotated, and as 16-bit RGBA64_LE;
 * - on fresh random RGBA (the seed printed) rotated and shrunk;
 * - on 1-pixel black and white stripes (RGBA, sRGB) reduced by 2 and 3
 *   across them, where the mean must also be linear light's 187.5 (within
 *   1), not the 127.5 of resampling the codes, so a GPU path that skipped
 *   the decoding fails.
 * Skips (exit 77) without a GPU.  The photograph is read from the path
 * the build gave (ASTRONAUT) or, where the tree was copied elsewhere,
 * from tests/gpu/data under the working directory. */
#include <stdio.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "../elements/backend-check.h"
#include "photo.h"

/* One frame through bsplinewarp backend=... settings; the output. */
static GstBuffer *
warp_once (const gchar * backend, const gchar * settings,
    const gchar * in_caps, const gchar * out_caps, GstBuffer * in)
{
  gchar *d = g_strdup_printf ("bsplinewarp backend=%s precision=double "
      "gamma-mode=remap %s", backend, settings);
  GstHarness *h = gst_harness_new_parse (d);
  GstBuffer *out;

  gst_harness_set_src_caps_str (h, in_caps);
  gst_harness_set_sink_caps_str (h, out_caps);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  out = gst_harness_pull (h);
  fail_unless (out != NULL, "no output from %s", d);
  gst_harness_teardown (h);
  g_free (d);
  return out;
}

/* The largest difference of the two outputs' samples (bytes, or 16-bit
 * words where bits is 16), row by row: the padding at the end of a row
 * (RGB's rows are rounded up to 4 bytes) holds no samples. */
static gint
max_difference (GstBuffer * a, GstBuffer * b, const gchar * caps_str, gint bits)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstVideoInfo info;
  GstMapInfo ma, mb;
  gint worst = 0, x, y, row, stride;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  row = GST_VIDEO_INFO_WIDTH (&info) * GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0)
      / (bits / 8);
  stride = GST_VIDEO_INFO_PLANE_STRIDE (&info, 0);
  gst_buffer_map (a, &ma, GST_MAP_READ);
  gst_buffer_map (b, &mb, GST_MAP_READ);
  fail_unless_equals_int (ma.size, mb.size);
  fail_unless (ma.size >= (gsize) stride * GST_VIDEO_INFO_HEIGHT (&info));
  for (y = 0; y < GST_VIDEO_INFO_HEIGHT (&info); y++)
    for (x = 0; x < row; x++) {
      const guint8 *pa = ma.data + (gsize) y * stride;
      const guint8 *pb = mb.data + (gsize) y * stride;
      gint u = bits == 16 ? ((const guint16 *) pa)[x] : pa[x];
      gint v = bits == 16 ? ((const guint16 *) pb)[x] : pb[x];
      worst = MAX (worst, ABS (u - v));
    }
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
  return worst;
}

/* backend=cuda against backend=cpu; returns the GPU's output. */
static GstBuffer *
check_against_cpu (const gchar * what, const gchar * settings,
    const gchar * in_caps, const gchar * out_caps, GstBuffer * in, gint bits)
{
  GstBuffer *gpu = warp_once ("cuda", settings, in_caps, out_caps, in);
  GstBuffer *cpu = warp_once ("cpu", settings, in_caps, out_caps, in);
  gint d = max_difference (gpu, cpu, out_caps, bits);

  g_print ("%-44s cuda against cpu: at most %d code value(s) apart\n", what, d);
  fail_unless (d <= 1, "%s (%s): the GPU is %d code values from the CPU",
      what, settings, d);
  gst_buffer_unref (cpu);
  return gpu;
}

static GstBuffer *
read_photo (void)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, PHOTO_BYTES, NULL);
  GstMapInfo map;
  int ok;

  gst_buffer_map (b, &map, GST_MAP_WRITE);
  ok = test_read_photo (map.data);
  gst_buffer_unmap (b, &map);
  fail_unless (ok, "the photograph %s cannot be read", ASTRONAUT);
  return b;
}

/* The photograph as RGBA64_LE: each byte v as 257 v, alpha opaque. */
static GstBuffer *
photo_16 (GstBuffer * rgb)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, PHOTO_W * PHOTO_H * 8, NULL);
  GstMapInfo in, out;
  gsize p;

  gst_buffer_map (rgb, &in, GST_MAP_READ);
  gst_buffer_map (b, &out, GST_MAP_WRITE);
  for (p = 0; p < PHOTO_W * PHOTO_H; p++) {
    guint16 *o = (guint16 *) out.data + 4 * p;
    o[0] = in.data[3 * p] * 257;
    o[1] = in.data[3 * p + 1] * 257;
    o[2] = in.data[3 * p + 2] * 257;
    o[3] = 65535;
  }
  gst_buffer_unmap (rgb, &in);
  gst_buffer_unmap (b, &out);
  return b;
}

GST_START_TEST (test_photograph)
{
  static const struct
  {
    const gchar *what, *settings;
    gint width, height;
  } cases[] = {
    {"shrunk to 91x68 (least squares)", "order=3", 91, 68},
    {"shrunk by 3 (least squares), order 5", "order=5", 43, 32},
    {"enlarged to 201x150", "order=3 antialias=none", 201, 150},
    {"rotated 17 degrees, constant", "rotation=17 order=3 boundary=constant",
        PHOTO_W, PHOTO_H},
  };
  GstBuffer *rgb = read_photo (), *rgba64 = photo_16 (rgb);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *in_caps = g_strdup_printf ("video/x-raw,format=RGB,width=%d,"
        "height=%d,framerate=30/1", PHOTO_W, PHOTO_H);
    gchar *out_caps = g_strdup_printf ("video/x-raw,format=RGB,width=%d,"
        "height=%d", cases[i].width, cases[i].height);
    gchar *in_caps16 = g_strdup_printf ("video/x-raw,format=RGBA64_LE,"
        "width=%d,height=%d,framerate=30/1", PHOTO_W, PHOTO_H);
    gchar *out_caps16 = g_strdup_printf ("video/x-raw,format=RGBA64_LE,"
        "width=%d,height=%d", cases[i].width, cases[i].height);
    gchar *what16 = g_strdup_printf ("%s, RGBA64_LE", cases[i].what);

    gst_buffer_unref (check_against_cpu (cases[i].what, cases[i].settings,
            in_caps, out_caps, rgb, 8));
    gst_buffer_unref (check_against_cpu (what16, cases[i].settings,
            in_caps16, out_caps16, rgba64, 16));
    g_free (in_caps);
    g_free (out_caps);
    g_free (in_caps16);
    g_free (out_caps16);
    g_free (what16);
  }
  gst_buffer_unref (rgb);
  gst_buffer_unref (rgba64);
}

GST_END_TEST;

/* Fresh random RGBA (the seed printed) rotated and shrunk: every code of
 * the decoding table and many of the encoding thresholds. */
GST_START_TEST (test_random)
{
  guint32 seed = g_random_int ();
  GRand *rand = g_rand_new_with_seed (seed);
  const gchar *in_caps = "video/x-raw,format=RGBA,width=120,height=90,"
      "framerate=30/1";
  GstBuffer *in = gst_buffer_new_allocate (NULL, 120 * 90 * 4, NULL);
  GstMapInfo map;
  gsize i;

  g_print ("test_random: seed %u\n", seed);
  gst_buffer_map (in, &map, GST_MAP_WRITE);
  for (i = 0; i < map.size; i++)
    map.data[i] = (guint8) g_rand_int (rand);
  gst_buffer_unmap (in, &map);
  gst_buffer_unref (check_against_cpu ("random, rotated 11 degrees, reflect",
          "rotation=11 order=3", in_caps, "video/x-raw,format=RGBA,"
          "width=120,height=90", in, 8));
  gst_buffer_unref (check_against_cpu ("random, shrunk to 50x37",
          "order=3", in_caps, "video/x-raw,format=RGBA,width=50,height=37",
          in, 8));
  gst_buffer_unref (in);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_stripes)
{
  const gint size = 96;
  guint factor, vertical;

  for (factor = 2; factor <= 3; factor++)
    for (vertical = 0; vertical <= 1; vertical++) {
      GstBuffer *in = gst_buffer_new_allocate (NULL, size * size * 4, NULL);
      gint ow = vertical ? size / factor : size;
      gint oh = vertical ? size : size / factor;
      gchar *in_caps = g_strdup_printf ("video/x-raw,format=RGBA,width=%d,"
          "height=%d,framerate=30/1,colorimetry=sRGB", size, size);
      gchar *out_caps = g_strdup_printf ("video/x-raw,format=RGBA,width=%d,"
          "height=%d,colorimetry=sRGB", ow, oh);
      gchar *what = g_strdup_printf ("%s stripes reduced by %u",
          vertical ? "vertical" : "horizontal", factor);
      GstBuffer *gpu;
      GstMapInfo map;
      gdouble sum = 0;
      gsize i, n = 0;
      gint x, y;

      gst_buffer_map (in, &map, GST_MAP_WRITE);
      for (y = 0; y < size; y++)
        for (x = 0; x < size; x++) {
          guint8 v = ((vertical ? x : y) & 1) ? 255 : 0;
          guint8 *p = map.data + 4 * (y * size + x);
          p[0] = p[1] = p[2] = v;
          p[3] = 255;
        }
      gst_buffer_unmap (in, &map);
      gpu = check_against_cpu (what, "order=3", in_caps, out_caps, in, 8);
      gst_buffer_map (gpu, &map, GST_MAP_READ);
      for (i = 0; i < map.size; i += 4, n += 3)
        sum += map.data[i] + map.data[i + 1] + map.data[i + 2];
      gst_buffer_unmap (gpu, &map);
      /* sRGB's code of half the light: 255 * encode (0.5) = 187.5 */
      g_print ("%-44s mean %.2f (linear light: 187.5)\n", what, sum / n);
      fail_unless (ABS (sum / n - 187.5) <= 1.0, "%s: the GPU's mean is "
          "%.2f, not linear light's 187.5", what, sum / n);
      gst_buffer_unref (gpu);
      gst_buffer_unref (in);
      g_free (in_caps);
      g_free (out_caps);
      g_free (what);
    }
}

GST_END_TEST;

static Suite *
gpu_linear_light_suite (void)
{
  Suite *s = suite_create ("gpu-linear-light");
  TCase *tc = tcase_create ("cuda");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_photograph);
  tcase_add_test (tc, test_random);
  tcase_add_test (tc, test_stripes);
  tcase_set_timeout (tc, 300);
  return s;
}

int
main (int argc, char **argv)
{
  return run_cuda_suite (&argc, &argv, gpu_linear_light_suite,
      "gpu-linear-light", __FILE__);
}
