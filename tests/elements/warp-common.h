/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* warp-common.h: what the GstHarness tests of bsplinewarp share: the
 * matrices of the geometry contract written out (not taken from
 * core/geometry/geometry.c), the harness with the backend the environment
 * names, and seeded random numbers.  Static functions: each test program
 * takes what it uses. */
#ifndef WARP_COMMON_H
#define WARP_COMMON_H

#include <math.h>

#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "bspline.h"

/* the seed of the test's random numbers, printed on failure */
static guint32 test_seed;

/* a perspective matrix for the matrix property, and its values */
#define PERSPECTIVE "<1.05,0.08,-2.0,-0.05,0.95,1.5,0.002,-0.0015,1.0>"

/* ---- matrices of the contract, written here ---- */

static inline void
matrix_set (gdouble m[9], gdouble a, gdouble b, gdouble c, gdouble d,
    gdouble e, gdouble f, gdouble g, gdouble h, gdouble i)
{
  m[0] = a, m[1] = b, m[2] = c, m[3] = d, m[4] = e, m[5] = f;
  m[6] = g, m[7] = h, m[8] = i;
}

/* forward = T(pivot) A T(-pivot) S */
static inline void
forward_about_pivot (const gdouble a[9], gdouble px, gdouble py,
    const gdouble scaling[9], gdouble forward[9])
{
  gdouble t1[9], t2[9], tmp[9];

  matrix_set (t1, 1, 0, px, 0, 1, py, 0, 0, 1);
  matrix_set (t2, 1, 0, -px, 0, 1, -py, 0, 0, 1);
  bspline_matrix_multiply (a, t2, tmp);
  bspline_matrix_multiply (t1, tmp, forward);
  bspline_matrix_multiply (forward, scaling, forward);
}

/* Chroma sample i of a plane subsampled by s sits at luma coordinate
 * s * i + 0.5 when co-sited, s * (i + 0.5) when centred; with the sample
 * centre at plane coordinate i + 0.5, luma = s * c + (cosited ? 0.5 - s / 2
 * : 0). */
static inline void
grid_inverse (const gdouble forward[9], gdouble sub_x, gdouble offset_x,
    gdouble sub_y, gdouble offset_y, gdouble inverse[9])
{
  gdouble g[9], g_inv[9], f_inv[9], tmp[9];

  matrix_set (g, sub_x, 0, offset_x, 0, sub_y, offset_y, 0, 0, 1);
  fail_unless (bspline_matrix_invert (g, g_inv));
  fail_unless (bspline_matrix_invert (forward, f_inv));
  bspline_matrix_multiply (f_inv, g, tmp);
  bspline_matrix_multiply (g_inv, tmp, inverse);
}

static inline void
plane_inverse (const gdouble forward[9], gint sub_x, gint sub_y,
    gboolean cosited_x, gboolean cosited_y, gdouble inverse[9])
{
  grid_inverse (forward, sub_x, cosited_x ? 0.5 - sub_x / 2.0 : 0.0, sub_y,
      cosited_y ? 0.5 - sub_y / 2.0 : 0.0, inverse);
}

/* ---- running things ---- */

/* A harness around bsplinewarp with the backend named by the environment
 * (BSPLINE_TEST_BACKEND=auto|cpu|cuda; tests/gpu runs this suite with
 * cuda), or the element's default. */
static inline GstHarness *
bsplinewarp_harness_new (void)
{
  const gchar *backend = g_getenv ("BSPLINE_TEST_BACKEND");
  GstElement *element;
  GstHarness *h;

  if (backend == NULL || !*backend)
    return gst_harness_new ("bsplinewarp");
  element = gst_element_factory_make ("bsplinewarp", NULL);
  gst_util_set_object_arg (G_OBJECT (element), "backend", backend);
  h = gst_harness_new_with_element (element, "sink", "src");
  gst_object_unref (element);   /* the harness holds it (transfer none) */
  return h;
}

/* Pulls the next output.  With the CUDA engine a frame leaves when the
 * next one arrives (frames in flight), so drain first: the drain query is
 * what an application sends when it wants everything out. */
static inline GstBuffer *
drain_and_pull (GstHarness * h)
{
  GstQuery *drain = gst_query_new_drain ();

  gst_pad_peer_query (h->srcpad, drain);
  gst_query_unref (drain);
  return gst_harness_pull (h);
}

static inline GstHarness *
harness_new_for (const gchar * factory, const gchar * in_caps,
    const gchar * out_caps)
{
  GstHarness *h = g_str_equal (factory, "bsplinewarp") ?
      bsplinewarp_harness_new () : gst_harness_new (factory);

  gst_harness_set_src_caps_str (h, in_caps);
  gst_harness_set_sink_caps_str (h, out_caps);
  return h;
}

static inline GstHarness *
harness_new (const gchar * in_caps, const gchar * out_caps)
{
  return harness_new_for ("bsplinewarp", in_caps, out_caps);
}

static inline GstBuffer *
push_pull (GstHarness * h, GstBuffer * in)
{
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  return drain_and_pull (h);
}

/* push_pull, taking the caller's reference to in. */
static inline GstBuffer *
push_pull_owned (GstHarness * h, GstBuffer * in)
{
  GstBuffer *out = push_pull (h, in);

  gst_buffer_unref (in);
  return out;
}

/* A buffer of `size` bytes of grey, for tests where the content does not
 * matter (but must be initialised). */
static inline GstBuffer *
grey_buffer (gsize size)
{
  GstBuffer *buffer = gst_buffer_new_allocate (NULL, size, NULL);

  gst_buffer_memset (buffer, 0, 0x80, size);
  return buffer;
}

static inline void
default_params (bspline_params * params)
{
  bspline_params_init (params);
  params->order = 3;
  params->boundary = BSPLINE_BOUNDARY_REFLECT;
  params->antialias = 1;
}

static inline GRand *
seeded_rand (void)
{
  test_seed = g_random_int ();
  return g_rand_new_with_seed (test_seed);
}

#endif /* WARP_COMMON_H */
