/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-bad-input.c: invalid input gets a clear error code and a message,
 * never a crash; extreme but valid input gives finite, bounded output.
 *
 * Every case runs in a child process (fork), so that a crash is reported
 * as a failure of that case and the other cases still run.
 *  - parameters: order -1 / 12, unknown method, boundary, precision,
 *    non-finite or out-of-range bicubic a, non-finite fill;
 *  - images: sizes 0, negative, 1 << 30, BSPLINE_MAX_SIDE + 1; channels
 *    0 / 5; unknown type; bad bits / shift; NULL data; strides smaller than
 *    a row, zero or negative; rows not aligned to the sample size;
 *  - plans: the same sizes on both sides, NULL pointers, NaN / Inf in every
 *    matrix entry, singular matrices, coordinates that overflow;
 *  - execute and sample_points: NULL engine / plan / images / arrays,
 *    images that do not match the plan;
 *  - extreme maps that are valid (a perspective horizon across the output,
 *    one output pixel spanning 1e150 input pixels, shrinks by 1e12 through
 *    the general path, magnification by 1e12): every output must be finite
 *    and within g^2 max|f| (g = the prefilter's gain at Nyquist, which
 *    bounds the l1 norm of the prefilter on each axis), or the fill; a
 *    scale of 1e300 may instead be refused with INVALID_TRANSFORM and a
 *    message;
 *  - NaN / Inf coordinates in sample_points give the fill value (the
 *    documented behaviour of resample-impl.h); huge finite coordinates
 *    (up to DBL_MAX) give finite, bounded values, and the fill value for
 *    the constant boundary.
 */
#include "test-common.h"
#include "bspline-geometry.h"

#include <float.h>
#include <limits.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>

static long n_cases;

static void
expect_error (bspline_status st, bspline_status want, const char *msg,
    const char *what)
{
  TEST_CHECK (st == want, "%s: status %d (%s), expected %d (%s)", what, st,
      bspline_status_string (st), want, bspline_status_string (want));
  TEST_CHECK (msg != NULL && msg[0] != '\0', "%s: no error message", what);
}

static void
run_case (const char *name, void (*fn) (void))
{
  pid_t pid;
  int status;

  n_cases++;
  fflush (stdout);
  pid = fork ();
  if (pid < 0) {
    TEST_CHECK (0, "%s: fork failed", name);
    return;
  }
  if (pid == 0) {
    alarm (120);
    test_n_failures = 0;
    fn ();
    fflush (stdout);
    _exit (test_n_failures ? 1 : 0);
  }
  if (waitpid (pid, &status, 0) != pid) {
    TEST_CHECK (0, "%s: waitpid failed", name);
    return;
  }
  if (WIFSIGNALED (status))
    TEST_CHECK (0, "%s: CRASHED with signal %d", name, WTERMSIG (status));
  else if (WEXITSTATUS (status) != 0)
    TEST_CHECK (0, "%s: failed (see above)", name);
}

static void
valid_params (bspline_params * p)
{
  bspline_params_init (p);
  p->precision = BSPLINE_PRECISION_DOUBLE;
}

/* ---- parameters ---- */

static void
case_params (void)
{
  bspline_params p;
  char msg[256];
  int i;
  struct
  {
    const char *what;
    int method, order, boundary, precision;
    double a, fill;
  } bad[] = {
    {"order -1", 0, -1, 0, 0, -0.5, 0},
    {"order 12", 0, 12, 0, 0, -0.5, 0},
    {"order INT_MIN", 0, INT_MIN, 0, 0, -0.5, 0},
    {"order INT_MAX", 0, INT_MAX, 0, 0, -0.5, 0},
    {"method 2", 2, 3, 0, 0, -0.5, 0},
    {"method -1", -1, 3, 0, 0, -0.5, 0},
    {"boundary 5", 0, 3, 5, 0, -0.5, 0},
    {"boundary -1", 0, 3, -1, 0, -0.5, 0},
    {"precision 4", 0, 3, 0, 4, -0.5, 0},
    {"precision -1", 0, 3, 0, -1, -0.5, 0},
    {"bicubic a NaN", 1, 3, 0, 0, NAN, 0},
    {"bicubic a +Inf", 1, 3, 0, 0, INFINITY, 0},
    {"bicubic a 0.5", 1, 3, 0, 0, 0.5, 0},
    {"bicubic a -4", 1, 3, 0, 0, -4.0, 0},
    {"fill NaN", 0, 3, 4, 0, -0.5, NAN},
    {"fill -Inf", 0, 3, 4, 0, -0.5, -INFINITY},
  };

  valid_params (&p);
  msg[0] = '\0';
  TEST_CHECK (bspline_params_validate (&p, msg, sizeof (msg)) == BSPLINE_OK,
      "defaults refused: %s", msg);
  p.method = BSPLINE_METHOD_BICUBIC;
  p.order = 99;                 /* the order does not matter for bicubic */
  TEST_CHECK (bspline_params_validate (&p, msg, sizeof (msg)) == BSPLINE_OK,
      "bicubic with order 99 refused: %s", msg);
  msg[0] = '\0';
  expect_error (bspline_params_validate (NULL, msg, sizeof (msg)),
      BSPLINE_ERROR_INVALID_ARGUMENT, msg, "params NULL");

  for (i = 0; i < (int) (sizeof (bad) / sizeof (bad[0])); i++) {
    valid_params (&p);
    p.method = bad[i].method;
    p.order = bad[i].order;
    p.boundary = bad[i].boundary;
    p.precision = bad[i].precision;
    p.bicubic_a = bad[i].a;
    p.fill[i % BSPLINE_MAX_CHANNELS] = bad[i].fill;
    msg[0] = '\0';
    expect_error (bspline_params_validate (&p, msg, sizeof (msg)),
        BSPLINE_ERROR_INVALID_ARGUMENT, msg, bad[i].what);
    /* no message buffer: still no crash */
    TEST_CHECK (bspline_params_validate (&p, NULL, 0) != BSPLINE_OK,
        "%s accepted without a message buffer", bad[i].what);
  }
}

/* ---- images ---- */

static void
case_images (void)
{
  static const int bad_sides[] = { 0, -1, INT_MIN, 1 << 30,
    BSPLINE_MAX_SIDE + 1, INT_MAX
  };
  bspline_image good, img;
  char msg[256], what[128];
  size_t i;

  test_image_alloc (&good, 7, 5, 3, BSPLINE_SAMPLE_F32, 1);
  msg[0] = '\0';
  TEST_CHECK (bspline_image_validate (&good, 1, msg, sizeof (msg))
      == BSPLINE_OK, "a valid image refused: %s", msg);
  msg[0] = '\0';
  expect_error (bspline_image_validate (NULL, 1, msg, sizeof (msg)),
      BSPLINE_ERROR_INVALID_ARGUMENT, msg, "image NULL");

#define BAD_IMAGE(WHAT, FIELD_CHANGE) \
  do { \
    img = good; \
    FIELD_CHANGE; \
    msg[0] = '\0'; \
    expect_error (bspline_image_validate (&img, 1, msg, sizeof (msg)), \
        BSPLINE_ERROR_INVALID_ARGUMENT, msg, WHAT); \
  } while (0)

  for (i = 0; i < sizeof (bad_sides) / sizeof (bad_sides[0]); i++) {
    snprintf (what, sizeof (what), "width %d", bad_sides[i]);
    BAD_IMAGE (what, img.width = bad_sides[i]);
    snprintf (what, sizeof (what), "height %d", bad_sides[i]);
    BAD_IMAGE (what, img.height = bad_sides[i]);
  }
  BAD_IMAGE ("channels 0", img.channels = 0);
  BAD_IMAGE ("channels 5", img.channels = 5);
  BAD_IMAGE ("channels -1", img.channels = -1);
  BAD_IMAGE ("type 4", img.type = (bspline_sample_type) 4);
  BAD_IMAGE ("type -1", img.type = (bspline_sample_type) - 1);
  BAD_IMAGE ("U8 with bits 7", (img.type = BSPLINE_SAMPLE_U8, img.bits = 7));
  BAD_IMAGE ("U16 with bits 0", (img.type = BSPLINE_SAMPLE_U16, img.bits =
          0));
  BAD_IMAGE ("U16 with bits 17", (img.type = BSPLINE_SAMPLE_U16, img.bits =
          17));
  BAD_IMAGE ("U16 10 bits shifted by 7", (img.type = BSPLINE_SAMPLE_U16,
          img.bits = 10, img.shift = 7));
  BAD_IMAGE ("U16 shift -1", (img.type = BSPLINE_SAMPLE_U16, img.bits = 10,
          img.shift = -1));
  BAD_IMAGE ("data NULL", img.data = NULL);
  BAD_IMAGE ("stride one byte short", img.stride = 7 * 3 * 4 - 1);
  BAD_IMAGE ("stride 0", img.stride = 0);
  BAD_IMAGE ("stride negative", img.stride = -(7 * 3 * 4));
  BAD_IMAGE ("stride PTRDIFF_MIN", img.stride = PTRDIFF_MIN);
  BAD_IMAGE ("F64 stride of an F32 row", img.type = BSPLINE_SAMPLE_F64);
  /* misaligned rows: found by tests/fuzz (corpus/core/crash-misaligned-*):
   * the engine loaded 16-bit samples from odd addresses */
  BAD_IMAGE ("U16 rows at odd addresses (stride 85)",
      (img.type = BSPLINE_SAMPLE_U16, img.bits = 16, img.stride = 85));
  BAD_IMAGE ("F32 stride 86, not a multiple of 4", img.stride = 86);
  BAD_IMAGE ("F32 data 2 bytes past an aligned address",
      img.data = (char *) img.data + 2);
#undef BAD_IMAGE

  img = good;
  img.data = NULL;
  TEST_CHECK (bspline_image_validate (&img, 0, msg, sizeof (msg))
      == BSPLINE_OK, "an image without data refused where no data is "
      "needed: %s", msg);
  test_image_free (&good);
}

/* ---- plans ---- */

static void
expect_plan_error (const bspline_params * p, const double *m, int sw,
    int sh, int dw, int dh, int ch, bspline_status want, const char *what)
{
  bspline_plan *plan = (bspline_plan *) & plan;      /* must be reset */
  char msg[256] = "";
  bspline_status st = bspline_plan_new (p, m, sw, sh, dw, dh, ch, &plan, msg,
      sizeof (msg));
  expect_error (st, want, msg, what);
  TEST_CHECK (plan == NULL, "%s: *plan not set to NULL on failure", what);
  if (st == BSPLINE_OK)
    bspline_plan_free (plan);
}

static void
case_plans (void)
{
  static const int bad_sides[] = { 0, -1, INT_MIN, 1 << 30,
    BSPLINE_MAX_SIDE + 1
  };
  static const double specials[] = { NAN, INFINITY, -INFINITY };
  static const double singular[][9] = {
    {0, 0, 0, 0, 0, 0, 0, 0, 0},
    {1, 0, 0, 0, 1, 0, 0, 0, 0},        /* maps everything to infinity */
    {1, 2, 3, 2, 4, 6, 0, 0, 1},        /* rank 2: onto a line */
    {1, 1, 0, 1, 1 + 1e-17, 0, 0, 0, 1},        /* 1 + 1e-17 == 1 */
    {0, 0, 5, 0, 0, 7, 0, 0, 1},        /* every pixel to one point */
    {2, 0, 0, 0, 0, 3, 0, 0, 1},        /* y collapses */
  };
  bspline_params p;
  bspline_plan *plan;
  double m[9], inv[9];
  char msg[256], what[128];
  size_t i, k;

  valid_params (&p);
  bspline_matrix_identity (m);
  for (i = 0; i < sizeof (bad_sides) / sizeof (bad_sides[0]); i++) {
    int s = bad_sides[i];
    snprintf (what, sizeof (what), "plan src width %d", s);
    expect_plan_error (&p, m, s, 8, 8, 8, 1, BSPLINE_ERROR_INVALID_ARGUMENT,
        what);
    snprintf (what, sizeof (what), "plan src height %d", s);
    expect_plan_error (&p, m, 8, s, 8, 8, 1, BSPLINE_ERROR_INVALID_ARGUMENT,
        what);
    snprintf (what, sizeof (what), "plan dst width %d", s);
    expect_plan_error (&p, m, 8, 8, s, 8, 1, BSPLINE_ERROR_INVALID_ARGUMENT,
        what);
    snprintf (what, sizeof (what), "plan dst height %d", s);
    expect_plan_error (&p, m, 8, 8, 8, s, 1, BSPLINE_ERROR_INVALID_ARGUMENT,
        what);
  }
  expect_plan_error (&p, m, 8, 8, 8, 8, 0, BSPLINE_ERROR_INVALID_ARGUMENT,
      "plan channels 0");
  expect_plan_error (&p, m, 8, 8, 8, 8, 5, BSPLINE_ERROR_INVALID_ARGUMENT,
      "plan channels 5");
  expect_plan_error (NULL, m, 8, 8, 8, 8, 1, BSPLINE_ERROR_INVALID_ARGUMENT,
      "plan params NULL");
  p.order = 12;
  expect_plan_error (&p, m, 8, 8, 8, 8, 1, BSPLINE_ERROR_INVALID_ARGUMENT,
      "plan order 12");
  p.order = -1;
  expect_plan_error (&p, m, 8, 8, 8, 8, 1, BSPLINE_ERROR_INVALID_ARGUMENT,
      "plan order -1");
  valid_params (&p);
  msg[0] = '\0';
  TEST_CHECK (bspline_plan_new (&p, m, 8, 8, 8, 8, 1, NULL, msg,
          sizeof (msg)) == BSPLINE_ERROR_INVALID_ARGUMENT && msg[0],
      "plan_new with no plan pointer: no error or no message");

  /* a NULL matrix is a bad pointer; either code names the problem */
  {
    char m2[256] = "";
    bspline_status st;
    plan = NULL;
    st = bspline_plan_new (&p, NULL, 8, 8, 8, 8, 1, &plan, m2, sizeof (m2));
    TEST_CHECK ((st == BSPLINE_ERROR_INVALID_TRANSFORM
            || st == BSPLINE_ERROR_INVALID_ARGUMENT) && m2[0] && !plan,
        "plan with a NULL matrix: status %d, message '%s'", st, m2);
  }

  for (k = 0; k < 9; k++)
    for (i = 0; i < 3; i++) {
      bspline_matrix_identity (m);
      m[k] = specials[i];
      snprintf (what, sizeof (what), "matrix entry %zu = %g", k,
          specials[i]);
      TEST_CHECK (!bspline_matrix_is_finite (m), "%s: is_finite says yes",
          what);
      TEST_CHECK (!bspline_matrix_invert (m, inv), "%s: invert succeeded",
          what);
      expect_plan_error (&p, m, 8, 8, 8, 8, 1,
          BSPLINE_ERROR_INVALID_TRANSFORM, what);
    }
  for (i = 0; i < sizeof (singular) / sizeof (singular[0]); i++) {
    snprintf (what, sizeof (what), "singular matrix %zu", i);
    TEST_CHECK (!bspline_matrix_invert (singular[i], inv), "%s: inverted",
        what);
    expect_plan_error (&p, singular[i], 8, 8, 8, 8, 1,
        BSPLINE_ERROR_INVALID_TRANSFORM, what);
  }
  /* axis-aligned, but the last output pixel maps beyond DBL_MAX */
  bspline_matrix_identity (m);
  m[0] = 1e306;
  expect_plan_error (&p, m, 8, 8, 1000, 8, 1,
      BSPLINE_ERROR_INVALID_TRANSFORM, "scale 1e306 over 1000 pixels");
}

/* ---- execute ---- */

static void
case_execute (void)
{
  bspline_params p;
  bspline_plan *plan = NULL;
  bspline_cpu *cpu = bspline_cpu_new (2);
  bspline_image src, dst, img;
  double m[9];
  char msg[256] = "";

  valid_params (&p);
  bspline_matrix_identity (m);
  TEST_CHECK (cpu != NULL, "no engine");
  if (!cpu)
    return;
  TEST_CHECK (bspline_plan_new (&p, m, 9, 7, 9, 7, 2, &plan, msg,
          sizeof (msg)) == BSPLINE_OK, "plan: %s", msg);
  if (!plan)
    return;
  test_image_alloc (&src, 9, 7, 2, BSPLINE_SAMPLE_F32, 0);
  test_image_alloc (&dst, 9, 7, 2, BSPLINE_SAMPLE_U8, 0);
  TEST_CHECK (bspline_cpu_execute (cpu, plan, &src, &dst) == BSPLINE_OK,
      "a valid execute failed: %s", bspline_cpu_last_error (cpu));

  TEST_CHECK (bspline_cpu_execute (NULL, plan, &src, &dst) != BSPLINE_OK,
      "execute without an engine succeeded");
  expect_error (bspline_cpu_execute (cpu, NULL, &src, &dst),
      BSPLINE_ERROR_INVALID_ARGUMENT, bspline_cpu_last_error (cpu),
      "execute plan NULL");
  expect_error (bspline_cpu_execute (cpu, plan, NULL, &dst),
      BSPLINE_ERROR_INVALID_ARGUMENT, bspline_cpu_last_error (cpu),
      "execute src NULL");
  expect_error (bspline_cpu_execute (cpu, plan, &src, NULL),
      BSPLINE_ERROR_INVALID_ARGUMENT, bspline_cpu_last_error (cpu),
      "execute dst NULL");

#define BAD_EXEC(WHAT, BASE, CHANGE, IS_SRC) \
  do { \
    img = BASE; \
    CHANGE; \
    expect_error (IS_SRC ? bspline_cpu_execute (cpu, plan, &img, &dst) : \
        bspline_cpu_execute (cpu, plan, &src, &img), \
        BSPLINE_ERROR_INVALID_ARGUMENT, bspline_cpu_last_error (cpu), WHAT); \
  } while (0)

  BAD_EXEC ("src wider than the plan", src, img.width = 8, 1);
  BAD_EXEC ("src taller than the plan", src, img.height = 6, 1);
  BAD_EXEC ("src with 3 channels", src, (img.channels = 3, img.stride *= 2),
      1);
  BAD_EXEC ("src data NULL", src, img.data = NULL, 1);
  BAD_EXEC ("src stride short", src, img.stride -= 4, 1);
  BAD_EXEC ("src type 9", src, img.type = (bspline_sample_type) 9, 1);
  BAD_EXEC ("dst wider than the plan", dst, img.width = 10, 0);
  BAD_EXEC ("dst with 1 channel", dst, img.channels = 1, 0);
  BAD_EXEC ("dst data NULL", dst, img.data = NULL, 0);
  BAD_EXEC ("dst stride short", dst, img.stride = 9, 0);
  BAD_EXEC ("dst U8 with bits 16", dst, img.bits = 16, 0);
#undef BAD_EXEC

  test_image_free (&src);
  test_image_free (&dst);
  bspline_plan_free (plan);
  bspline_cpu_free (cpu);
}

/* ---- sample_points ---- */

static void
case_sample_points (void)
{
  bspline_params p;
  bspline_cpu *cpu = bspline_cpu_new (0);
  bspline_image src;
  double xy[2] = { 1.0, 1.0 }, out[BSPLINE_MAX_CHANNELS], range[2];
  test_rng rng;

  test_rng_init (&rng, test_seed ^ 0x5a5a);
  valid_params (&p);
  TEST_CHECK (cpu != NULL, "no engine");
  if (!cpu)
    return;
  test_image_alloc (&src, 5, 4, 2, BSPLINE_SAMPLE_F64, 0);
  test_image_fill_random (&src, &rng, -1.0, 1.0, range);
  TEST_CHECK (bspline_cpu_sample_points (cpu, &p, &src, xy, 1, out)
      == BSPLINE_OK, "a valid call failed: %s", bspline_cpu_last_error (cpu));
  TEST_CHECK (bspline_cpu_sample_points (cpu, &p, &src, NULL, 0, NULL)
      == BSPLINE_OK, "zero points refused: %s", bspline_cpu_last_error (cpu));
  TEST_CHECK (bspline_cpu_sample_points (NULL, &p, &src, xy, 1, out)
      != BSPLINE_OK, "sample_points without an engine succeeded");
  expect_error (bspline_cpu_sample_points (cpu, NULL, &src, xy, 1, out),
      BSPLINE_ERROR_INVALID_ARGUMENT, bspline_cpu_last_error (cpu),
      "sample_points params NULL");
  expect_error (bspline_cpu_sample_points (cpu, &p, NULL, xy, 1, out),
      BSPLINE_ERROR_INVALID_ARGUMENT, bspline_cpu_last_error (cpu),
      "sample_points src NULL");
  expect_error (bspline_cpu_sample_points (cpu, &p, &src, NULL, 1, out),
      BSPLINE_ERROR_INVALID_ARGUMENT, bspline_cpu_last_error (cpu),
      "sample_points xy NULL");
  expect_error (bspline_cpu_sample_points (cpu, &p, &src, xy, 1, NULL),
      BSPLINE_ERROR_INVALID_ARGUMENT, bspline_cpu_last_error (cpu),
      "sample_points out NULL");
  p.order = 12;
  expect_error (bspline_cpu_sample_points (cpu, &p, &src, xy, 1, out),
      BSPLINE_ERROR_INVALID_ARGUMENT, bspline_cpu_last_error (cpu),
      "sample_points order 12");
  p.order = -1;
  expect_error (bspline_cpu_sample_points (cpu, &p, &src, xy, 1, out),
      BSPLINE_ERROR_INVALID_ARGUMENT, bspline_cpu_last_error (cpu),
      "sample_points order -1");
  valid_params (&p);
  src.stride = 8;
  expect_error (bspline_cpu_sample_points (cpu, &p, &src, xy, 1, out),
      BSPLINE_ERROR_INVALID_ARGUMENT, bspline_cpu_last_error (cpu),
      "sample_points src stride short");
  src.stride = 5 * 2 * 8;
  test_image_free (&src);
  bspline_cpu_free (cpu);
}

/* Coordinates that are not finite, or finite but far beyond any frame. */
static void
case_extreme_coordinates (void)
{
  static const double specials[] = {
    NAN, INFINITY, -INFINITY, DBL_MAX, -DBL_MAX, 1e300, -1e300, 1e18,
    -1e18, 9007199254740993.0, 2147483648.0, -2147483649.5, 1e6 + 0.25,
    -DBL_MIN, 4.9e-324
  };
  const int n_specials = sizeof (specials) / sizeof (specials[0]);
  static const int orders[] = { 0, 1, 3, 11, -1 };  /* -1: bicubic */
  bspline_cpu *cpu = bspline_cpu_new (0);
  bspline_image src;
  double range[2], *xy, *out;
  test_rng rng;
  int n = n_specials * n_specials, b, o, i, j, c, prec;

  test_rng_init (&rng, test_seed ^ 0xa5a5);
  TEST_CHECK (cpu != NULL, "no engine");
  if (!cpu)
    return;
  xy = malloc (2 * n * sizeof (double));
  out = malloc ((size_t) n * 3 * sizeof (double));
  for (i = 0; i < n_specials; i++)
    for (j = 0; j < n_specials; j++) {
      xy[2 * (i * n_specials + j)] = specials[i];
      xy[2 * (i * n_specials + j) + 1] = specials[j];
    }
  test_image_alloc (&src, 6, 5, 3, BSPLINE_SAMPLE_F64, 0);
  test_image_fill_random (&src, &rng, -1.0, 1.0, range);

  for (b = 0; b < 5; b++)
    for (o = 0; o < 5; o++)
      for (prec = 0; prec < 2; prec++) {
        bspline_params p;
        double g, limit;
        bspline_status st;
        valid_params (&p);
        p.boundary = b;
        p.precision = prec ? BSPLINE_PRECISION_DOUBLE :
            BSPLINE_PRECISION_FLOAT;
        if (orders[o] < 0)
          p.method = BSPLINE_METHOD_BICUBIC;
        else
          p.order = orders[o];
        for (c = 0; c < BSPLINE_MAX_CHANNELS; c++)
          p.fill[c] = test_rng_range (&rng, -1.0, 1.0);
        g = orders[o] < 0 ? 1.5 : test_prefilter_nyquist_gain (orders[o]);
        limit = 1.001 * g * g * fmax (fabs (range[0]), fabs (range[1]));
        st = bspline_cpu_sample_points (cpu, &p, &src, xy, n, out);
        TEST_CHECK (st == BSPLINE_OK, "%s order %d: %s",
            test_boundary_name (b), orders[o], bspline_cpu_last_error (cpu));
        if (st != BSPLINE_OK)
          continue;
        for (i = 0; i < n; i++)
          for (c = 0; c < 3; c++) {
            double x = xy[2 * i], y = xy[2 * i + 1], v = out[i * 3 + c];
            if (!isfinite (x) || !isfinite (y)) {
              TEST_CHECK (v == p.fill[c], "%s order %d %s: at (%g, %g) got "
                  "%.17g, not the fill value %.17g", test_boundary_name (b),
                  orders[o], test_precision_name (p.precision), x, y, v,
                  p.fill[c]);
            } else {
              TEST_CHECK (isfinite (v) && fabs (v) <= fmax (limit, 1.0),
                  "%s order %d %s: at (%g, %g) got %.17g, outside +-%.3g",
                  test_boundary_name (b), orders[o],
                  test_precision_name (p.precision), x, y, v, limit);
              if (b == BSPLINE_BOUNDARY_CONSTANT
                  && (fabs (x) >= 1e6 || fabs (y) >= 1e6))
                TEST_CHECK (fabs (v - p.fill[c]) <= 1e-5, "constant order "
                    "%d %s: far away at (%g, %g) got %.17g, not the fill "
                    "value %.17g", orders[o],
                    test_precision_name (p.precision), x, y, v, p.fill[c]);
            }
          }
      }
  test_image_free (&src);
  free (xy);
  free (out);
  bspline_cpu_free (cpu);
}

/* Valid maps that push the general and separable paths to their limits. */
static void
case_extreme_maps (void)
{
  bspline_cpu *cpu = bspline_cpu_new (0);
  bspline_image src, dst;
  double range[2];
  test_rng rng;
  int b, o, aa, k, i, j, c;
  static const int orders[] = { 0, 3, 11, -1 };

  test_rng_init (&rng, test_seed ^ 0x3c3c);
  TEST_CHECK (cpu != NULL, "no engine");
  if (!cpu)
    return;
  test_image_alloc (&src, 40, 30, 2, BSPLINE_SAMPLE_F32, 0);
  test_image_fill_random (&src, &rng, 0.0, 1.0, range);
  for (k = 0; k < 5; k++)
    for (b = 0; b < 5; b++)
      for (o = 0; o < 4; o++)
        for (aa = 0; aa <= 1; aa++) {
          bspline_params p;
          bspline_plan *plan = NULL;
          double m[9], g, limit;
          int dw = 64, dh = 48;
          char msg[256] = "", what[160];
          bspline_status st;

          valid_params (&p);
          p.boundary = b;
          p.antialias = aa;
          p.precision = test_rng_int (&rng, 0, 1);
          if (orders[o] < 0)
            p.method = BSPLINE_METHOD_BICUBIC;
          else
            p.order = orders[o];
          p.fill[0] = 0.25;
          p.fill[1] = 0.75;
          bspline_matrix_identity (m);
          switch (k) {
            case 0:            /* horizon across the output (w = 0 near
                                 * u = 32) */
              m[6] = 1.0 / 32.0;
              m[8] = -1.0 + 1e-9;
              break;
            case 1:            /* one output pixel spans 1e150 pixels */
              dw = 1;
              m[0] = 1e150;
              break;
            case 4:            /* 1e300: may be refused (its square
                                 * overflows), but with a message */
              dw = 1;
              m[0] = 1e300;
              break;
            case 2:            /* extreme shrink through the general path */
              m[0] = 1e12;
              m[1] = 1e-3;
              m[3] = -1e-3;
              m[4] = 1e12;
              break;
            default:           /* extreme magnification */
              m[0] = 1e-12;
              m[4] = 1e-12;
              m[2] = 20.0;
              m[5] = 15.0;
              break;
          }
          snprintf (what, sizeof (what), "extreme map %d, %s, order %d, "
              "antialias %d, %s", k, test_boundary_name (b), orders[o], aa,
              test_precision_name (p.precision));
          st = bspline_plan_new (&p, m, 40, 30, dw, dh, 2, &plan, msg,
              sizeof (msg));
          if (k == 4 && st == BSPLINE_ERROR_INVALID_TRANSFORM && msg[0])
            continue;
          TEST_CHECK (st == BSPLINE_OK, "%s: plan_new: %d %s", what, st,
              msg);
          if (st != BSPLINE_OK)
            continue;
          test_image_alloc (&dst, dw, dh, 2, BSPLINE_SAMPLE_F64, 0);
          st = bspline_cpu_execute (cpu, plan, &src, &dst);
          TEST_CHECK (st == BSPLINE_OK, "%s: execute: %d %s", what, st,
              bspline_cpu_last_error (cpu));
          g = orders[o] < 0 ? 1.5 : test_prefilter_nyquist_gain (orders[o]);
          limit = 1.001 * g * g * range[1] + 1.0;
          if (st == BSPLINE_OK)
            for (j = 0; j < dh; j++)
              for (i = 0; i < dw; i++)
                for (c = 0; c < 2; c++) {
                  double v = test_image_get (&dst, i, j, c);
                  TEST_CHECK (isfinite (v) && fabs (v) <= limit, "%s: "
                      "output (%d, %d, %d) = %.17g, outside +-%.3g", what, i,
                      j, c, v, limit);
                }
          test_image_free (&dst);
          bspline_plan_free (plan);
        }
  test_image_free (&src);
  bspline_cpu_free (cpu);
}

/* A plan with a side of BSPLINE_MAX_SIDE is valid; its tables may or may
 * not fit in memory, but the answer must be OK or NO_MEMORY. */
static void
case_huge_plan (void)
{
  bspline_params p;
  bspline_plan *plan = NULL;
  double m[9];
  char msg[256] = "";
  bspline_status st;
  int aa;

  for (aa = 0; aa <= 1; aa++) {
    valid_params (&p);
    p.antialias = aa;
    bspline_matrix_identity (m);
    m[0] = 64.0 / BSPLINE_MAX_SIDE;
    m[4] = BSPLINE_MAX_SIDE / 64.0;
    st = bspline_plan_new (&p, m, 64, BSPLINE_MAX_SIDE, BSPLINE_MAX_SIDE, 64,
        1, &plan, msg, sizeof (msg));
    TEST_CHECK (st == BSPLINE_OK || (st == BSPLINE_ERROR_NO_MEMORY && msg[0]),
        "plan 64x%d -> %dx64, antialias %d: status %d %s",
        BSPLINE_MAX_SIDE, BSPLINE_MAX_SIDE, aa, st, msg);
    bspline_plan_free (plan);
    plan = NULL;
  }
}

/* Lens stages (issue 22): valid brown and fisheye plans, both
 * directions, run through the CPU engine into every sample type (finite,
 * in range); refused: a model that folds over inside the frame (in both
 * directions), a NaN, infinite or absurd coefficient, too many
 * coefficients, fx <= 0, a NaN or singular `post`; camera matrices and
 * translations beyond double precision, with messages that say so
 * (issue 43). */
static void
case_lens (void)
{
  bspline_cpu *cpu = bspline_cpu_new (2);
  bspline_plane_grid grid = { 1, 1, 0.0, 0.0 };
  bspline_params p;
  bspline_image src, dst;
  int model, distort, type;
  char msg[256];

  valid_params (&p);
  TEST_CHECK (cpu != NULL, "no engine");
  if (!cpu)
    return;
  test_image_alloc (&src, 40, 30, 3, BSPLINE_SAMPLE_U8, 0);
  memset (src.data, 200, (size_t) src.stride * src.height);
  for (model = BSPLINE_LENS_BROWN; model <= BSPLINE_LENS_FISHEYE; model++)
    for (distort = 0; distort < 2; distort++)
      for (type = 0; type < 4; type++) {
        bspline_geometry g;
        bspline_lens lens;
        bspline_plan *plan = NULL;
        double m[9];
        int x, y, c;

        bspline_geometry_init (&g, 40, 30, 40, 30);
        g.lens_model = model;
        g.lens_distort = distort;
        g.camera[0] = g.camera[1] = 30.0;
        g.camera[2] = 19.5;
        g.camera[3] = 14.5;
        g.distortion[0] = model == BSPLINE_LENS_BROWN ? -0.2 : 0.01;
        g.distortion[1] = 0.02;
        g.n_distortion = 2;
        TEST_CHECK (bspline_geometry_plane_map (&g, &grid, m, &lens, msg,
                sizeof (msg)) == BSPLINE_OK, "lens geometry: %s", msg);
        p.antialias = type & 1 ? BSPLINE_ANTIALIAS_NONE :
            BSPLINE_ANTIALIAS_LEAST_SQUARES;
        p.precision = type & 2 ? BSPLINE_PRECISION_DOUBLE :
            BSPLINE_PRECISION_FLOAT;
        if (bspline_plan_new_lens (&p, m, &lens, 40, 30, 40, 30, 3, &plan,
                msg, sizeof (msg)) != BSPLINE_OK) {
          TEST_CHECK (0, "lens plan %d %d: %s", model, distort, msg);
          continue;
        }
        test_image_alloc (&dst, 40, 30, 3, (bspline_sample_type) type, 0);
        TEST_CHECK (bspline_cpu_execute (cpu, plan, &src, &dst) == BSPLINE_OK,
            "lens execute: %s", bspline_cpu_last_error (cpu));
        for (y = 0; y < 30; y++)
          for (x = 0; x < 40; x++)
            for (c = 0; c < 3; c++) {
              double v = test_image_get (&dst, x, y, c);
              /* a constant picture stays constant (reflect boundary) */
              TEST_CHECK (isfinite (v) && fabs (v - 200.0) < 1e-3,
                  "lens %d %d type %d: pixel (%d, %d) is %g", model,
                  distort, type, x, y, v);
            }
        test_image_free (&dst);
        bspline_plan_free (plan);
      }
  test_image_free (&src);
  bspline_cpu_free (cpu);

  {
    static const double bad[][2] = {
      {-3.0, 0.0},              /* folds over inside the frame */
      {NAN, 0.0}, {INFINITY, 0.0}, {1e300, 0.0}
    };
    size_t i;
    for (i = 0; i < sizeof (bad) / sizeof (bad[0]); i++)
      for (distort = 0; distort < 2; distort++) {
        bspline_geometry g;
        bspline_lens lens;
        bspline_plan *plan = NULL;
        bspline_status st;
        double m[9];
        bspline_geometry_init (&g, 40, 30, 40, 30);
        g.lens_model = BSPLINE_LENS_BROWN;
        g.lens_distort = distort;
        g.camera[0] = g.camera[1] = 20.0;
        g.camera[2] = 19.5;
        g.camera[3] = 14.5;
        g.distortion[0] = bad[i][0];
        g.n_distortion = 1;
        msg[0] = '\0';
        st = bspline_geometry_plane_map (&g, &grid, m, &lens, msg,
            sizeof (msg));
        if (st == BSPLINE_OK)
          st = bspline_plan_new_lens (&p, m, &lens, 40, 30, 40, 30, 1,
              &plan, msg, sizeof (msg));
        TEST_CHECK (st != BSPLINE_OK && plan == NULL && msg[0] != '\0',
            "lens coefficient %g (%s) accepted", bad[i][0],
            distort ? "distort" : "undistort");
        TEST_CHECK (i != 0 || strstr (msg, "folds over") != NULL,
            "a folding model: %s", msg);
        bspline_plan_free (plan);
      }
  }
  {
    /* issue 43: values beyond double precision are called that, not a
     * singular matrix or a fold */
    static const struct
    {
      double fx, fy, cx, translate_x;
      const char *says, *not_says;
    } huge[] = {
      {1e300, 1e300, 19.5, 0.0, "beyond double precision", "singular"},
      {20.0, 20.0, 1e300, 0.0, "not finite", "folds over"},
      {20.0, 20.0, 19.5, 1e200, "not finite", "folds over"},
    };
    size_t i;
    for (i = 0; i < sizeof (huge) / sizeof (huge[0]); i++)
      for (model = BSPLINE_LENS_BROWN; model <= BSPLINE_LENS_FISHEYE; model++)
        for (distort = 0; distort < 2; distort++) {
          bspline_geometry g;
          bspline_lens lens;
          bspline_plan *plan = NULL;
          bspline_status st;
          double m[9];
          bspline_geometry_init (&g, 40, 30, 40, 30);
          g.lens_model = model;
          g.lens_distort = distort;
          g.camera[0] = huge[i].fx;
          g.camera[1] = huge[i].fy;
          g.camera[2] = huge[i].cx;
          g.camera[3] = 14.5;
          g.translate_x = huge[i].translate_x;
          g.distortion[0] = -0.1;
          g.n_distortion = 1;
          msg[0] = '\0';
          st = bspline_geometry_plane_map (&g, &grid, m, &lens, msg,
              sizeof (msg));
          if (st == BSPLINE_OK)
            st = bspline_plan_new_lens (&p, m, &lens, 40, 30, 40, 30, 1,
                &plan, msg, sizeof (msg));
          TEST_CHECK (st != BSPLINE_OK && plan == NULL
              && strstr (msg, huge[i].says) != NULL
              && strstr (msg, huge[i].not_says) == NULL,
              "lens %d %s, fx %g fy %g cx %g translate-x %g: %s", model,
              distort ? "distort" : "undistort", huge[i].fx, huge[i].fy,
              huge[i].cx, huge[i].translate_x, msg);
          bspline_plan_free (plan);
        }
  }
  {
    bspline_geometry g;
    bspline_lens lens;
    double m[9];
    bspline_geometry_init (&g, 40, 30, 40, 30);
    g.lens_model = BSPLINE_LENS_FISHEYE;
    g.camera[0] = 0.0;
    g.camera[1] = 20.0;
    expect_error (bspline_geometry_plane_map (&g, &grid, m, &lens, msg,
            sizeof (msg)), BSPLINE_ERROR_INVALID_ARGUMENT, msg, "fx 0");
    g.camera[0] = 20.0;
    g.n_distortion = 5;
    expect_error (bspline_geometry_plane_map (&g, &grid, m, &lens, msg,
            sizeof (msg)), BSPLINE_ERROR_INVALID_ARGUMENT, msg,
        "5 fisheye coefficients");
    g.n_distortion = 0;
    TEST_CHECK (bspline_geometry_plane_map (&g, &grid, m, &lens, msg,
            sizeof (msg)) == BSPLINE_OK, "fisheye geometry: %s", msg);
    {
      bspline_plan *plan = NULL;
      bspline_lens good = lens;
      lens.post[0] = NAN;
      expect_error (bspline_plan_new_lens (&p, m, &lens, 40, 30, 40, 30, 1,
              &plan, msg, sizeof (msg)), BSPLINE_ERROR_INVALID_TRANSFORM,
          msg, "NaN post");
      lens.post[0] = 0.0;
      lens.post[1] = 0.0;
      expect_error (bspline_plan_new_lens (&p, m, &lens, 40, 30, 40, 30, 1,
              &plan, msg, sizeof (msg)), BSPLINE_ERROR_INVALID_TRANSFORM,
          msg, "singular post");
      /* post is a homography: its third row counts too */
      lens = good;
      lens.post[8] = INFINITY;
      expect_error (bspline_plan_new_lens (&p, m, &lens, 40, 30, 40, 30, 1,
              &plan, msg, sizeof (msg)), BSPLINE_ERROR_INVALID_TRANSFORM,
          msg, "infinite post[8]");
      lens = good;
      lens.post[6] = lens.post[7] = lens.post[8] = 0.0;
      expect_error (bspline_plan_new_lens (&p, m, &lens, 40, 30, 40, 30, 1,
              &plan, msg, sizeof (msg)), BSPLINE_ERROR_INVALID_TRANSFORM,
          msg, "post with a third row of zeros");
      TEST_CHECK (plan == NULL, "a refused post made a plan");
    }
  }
}

int
main (void)
{
  test_rng rng;

  test_begin ("test-bad-input", &rng);
  run_case ("parameters", case_params);
  run_case ("images", case_images);
  run_case ("plans", case_plans);
  run_case ("execute", case_execute);
  run_case ("sample_points", case_sample_points);
  run_case ("extreme coordinates", case_extreme_coordinates);
  run_case ("extreme maps", case_extreme_maps);
  run_case ("huge plan", case_huge_plan);
  run_case ("lens stages", case_lens);
  return test_end ("%ld cases in child processes: invalid parameters, "
      "images, plans, matrices and calls refused with a code and a message; "
      "NaN/Inf/huge coordinates and extreme maps give finite bounded "
      "output; no crash", n_cases);
}
