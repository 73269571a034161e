/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-bench: device time of the CUDA engine on the work of issue 5, beside
 * a device-to-device copy of the same frame (the floor).
 *
 * Every case runs on images already on the GPU (bspline_cuda_launch_on_
 * device), from random data, rotating among enough input frames that they
 * do not fit in L2; each launch is timed with CUDA events after warm-up and
 * the median is printed.  bench/gpu-anchors.py times NPP-free anchors
 * (torch, cupyx) in the same run; scripts/run-gpu-bench.sh runs both.
 *
 * Beside each time, the case's accuracy: the last timed output against
 * the CPU engine's double-precision reference of the same plan on the
 * same input, as the largest difference (8-bit code values, or the float
 * frames' units) and the share of samples that differ; the inputs are
 * noise, the hardest case (docs/accuracy.md has photos).
 *
 *   gpu-bench [--repeat N] [--only SUBSTRING [--exact]] [--no-accuracy]
 * --only runs the cases whose name contains SUBSTRING (for a profiler),
 * with --exact the case of that name alone (bench/kernel-traffic.py).
 * Last, the pinned host copies of the element's frames ("host copies"),
 * alone and overlapped: the frame rate they allow from system memory.
 */
#include "bspline-cuda.h"
#include "bspline-geometry.h"
#include "bspline-stage.h"
#include "bspline-stmap.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_INPUTS 6
#define WARMUP 5

#define CHECK(call) \
  do { \
    cudaError_t err_ = (call); \
    if (err_ != cudaSuccess) { \
      fprintf (stderr, "%s failed: %s\n", #call, cudaGetErrorString (err_)); \
      exit (1); \
    } \
  } while (0)

static int
compare_floats (const void *a, const void *b)
{
  float x = *(const float *) a, y = *(const float *) b;
  return x < y ? -1 : x > y;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t
rng (void)
{
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t) (rng_state >> 32);
}

/* N_INPUTS random frames on the device. */
static void **
random_frames (size_t bytes)
{
  void **frames = calloc (N_INPUTS, sizeof (void *));
  unsigned char *host = malloc (bytes);
  size_t i;
  int k;

  for (k = 0; k < N_INPUTS; k++) {
    for (i = 0; i < bytes; i++)
      host[i] = (unsigned char) rng ();
    if (bytes % 4 == 0 && bytes > 0 && host[3] == 0xff)
      host[3] = 0;
    CHECK (cudaMalloc (&frames[k], bytes));
    CHECK (cudaMemcpy (frames[k], host, bytes, cudaMemcpyHostToDevice));
  }
  free (host);
  return frames;
}

/* Float frames in [0, 255) (random bytes are not valid floats). */
static void **
random_float_frames (size_t n)
{
  void **frames = calloc (N_INPUTS, sizeof (void *));
  float *host = malloc (n * sizeof (float));
  size_t i;
  int k;

  for (k = 0; k < N_INPUTS; k++) {
    for (i = 0; i < n; i++)
      host[i] = (float) (rng () % 25500) / 100.0f;
    CHECK (cudaMalloc (&frames[k], n * sizeof (float)));
    CHECK (cudaMemcpy (frames[k], host, n * sizeof (float),
            cudaMemcpyHostToDevice));
  }
  free (host);
  return frames;
}

static void
free_frames (void **frames)
{
  int k;
  for (k = 0; k < N_INPUTS; k++)
    cudaFree (frames[k]);
  free (frames);
}

typedef struct
{
  const char *name;
  int src_w, src_h, dst_w, dst_h, channels;
  bspline_sample_type type;
  int order;
  bspline_precision precision;
  int antialias;                /* a bspline_antialias; -1: the default */
  double m[9];                  /* inverse map */
  int fisheye;                  /* a fisheye undistortion (m unused): 1
                                 * onto the camera's own focal length, 2
                                 * onto 0.6 of it; 3: not a fisheye but
                                 * issue 42's reframing (equirect ->
                                 * flat, 90 degrees, yaw 20, pitch 10,
                                 * roll 5) */
  int stmap;                    /* the fisheye's map as an STMap instead,
                                 * of the frame's size / this divisor */
} bench_case;

/* The accuracy of a case's output (on the device, dst) of input src (on
 * the device): the CPU engine's double-precision execution of plan_ref on
 * a host copy; the largest difference into *max_diff, the share of
 * samples that differ into *differ. */
static void
case_accuracy (bspline_cpu * cpu, const bspline_plan * plan_ref,
    const bspline_image * src, const bspline_image * dst, double *max_diff,
    double *differ)
{
  const size_t src_bytes = (size_t) src->stride * src->height;
  const size_t dst_bytes = (size_t) dst->stride * dst->height;
  const size_t n = dst_bytes / bspline_sample_size (dst->type);
  unsigned char *in = malloc (src_bytes), *got = malloc (dst_bytes),
      *want = malloc (dst_bytes);
  bspline_image hs = *src, hd = *dst;
  size_t i, differing = 0;
  double worst = 0.0;

  CHECK (cudaMemcpy (in, src->data, src_bytes, cudaMemcpyDeviceToHost));
  CHECK (cudaMemcpy (got, dst->data, dst_bytes, cudaMemcpyDeviceToHost));
  hs.data = in;
  hd.data = want;
  if (bspline_cpu_execute (cpu, plan_ref, &hs, &hd) != BSPLINE_OK) {
    fprintf (stderr, "reference: %s\n", bspline_cpu_last_error (cpu));
    exit (1);
  }
  for (i = 0; i < n; i++) {
    const double a = dst->type == BSPLINE_SAMPLE_F32 ?
        ((const float *) got)[i] : got[i];
    const double b = dst->type == BSPLINE_SAMPLE_F32 ?
        ((const float *) want)[i] : want[i];
    const double d = fabs (a - b);
    if (d > 0.0)
      differing++;
    if (d > worst || isnan (d))
      worst = isnan (d) ? INFINITY : d;
  }
  *max_diff = worst;
  *differ = (double) differing / (double) n;
  free (in);
  free (got);
  free (want);
}

/* Median device time of one launch, in microseconds; the accuracy of its
 * last output where cpu is not NULL (case_accuracy). */
static double
time_case (bspline_cuda * cuda, bspline_cpu * cpu, const bench_case * bc,
    int repeat, const char **path, double *max_diff, double *differ)
{
  size_t ss = bspline_sample_size (bc->type);
  size_t src_bytes = ss * bc->channels * (size_t) bc->src_w * bc->src_h;
  size_t dst_bytes = ss * bc->channels * (size_t) bc->dst_w * bc->dst_h;
  void **inputs = bc->type == BSPLINE_SAMPLE_F32 ?
      random_float_frames (src_bytes / 4) : random_frames (src_bytes);
  void *output;
  bspline_params p, p_ref;
  bspline_plan *plan, *plan_ref = NULL;
  bspline_lens lens;
  bspline_stmap *stmap_owned = NULL;
  double m[9];
  bspline_image src, dst;
  cudaEvent_t start, stop;
  float *times = malloc (sizeof (float) * repeat);
  char msg[256];
  double median;
  int i;

  CHECK (cudaMalloc (&output, dst_bytes));
  bspline_params_init (&p);
  p.order = bc->order;
  p.precision = bc->precision;
  if (bc->antialias >= 0)
    p.antialias = (bspline_antialias) bc->antialias;
  if (bc->fisheye == 3) {
    bspline_geometry g;
    bspline_plane_grid grid = { 1, 1, 0.0, 0.0 };
    bspline_geometry_init (&g, bc->src_w, bc->src_h, bc->dst_w, bc->dst_h);
    g.projection_set = 1;
    bspline_projection_params_init (&g.projection);
    g.projection.out = BSPLINE_PROJECTION_FLAT;
    g.projection.h_fov = 90.0;
    g.projection.v_fov = 2.0 * atan ((double) bc->dst_h / bc->dst_w)
        * 180.0 / BSPLINE_PROJECTION_PI;
    g.projection.yaw = 20.0;
    g.projection.pitch = 10.0;
    g.projection.roll = 5.0;
    if (bspline_geometry_plane_map (&g, &grid, m, &lens, msg,
            sizeof (msg)) != BSPLINE_OK) {
      fprintf (stderr, "%s: %s\n", bc->name, msg);
      exit (1);
    }
  } else if (bc->fisheye) {
    /* OpenCV's fisheye test camera (modules/calib3d/test/test_fisheye.cpp,
     * 1280x800) scaled to the frame, undistorted to a pinhole view at its
     * own focal length (the element's default) or at 0.6 of it (the
     * corners 70 degrees off axis; the centre shrunk 1.67 times, 0.33 to
     * 1.67 input pixels per output pixel over the frame) */
    bspline_geometry g;
    bspline_plane_grid grid = { 1, 1, 0.0, 0.0 };
    static const double k[4] = { -0.0014613319981768, -0.00329861110580401,
      0.00605760088590183, -0.00374209380722371
    };
    double sx = bc->src_w / 1280.0, sy = bc->src_h / 800.0;
    bspline_geometry_init (&g, bc->src_w, bc->src_h, bc->dst_w, bc->dst_h);
    g.lens_model = BSPLINE_LENS_FISHEYE;
    g.camera[0] = 558.478087865323 * sx;
    g.camera[1] = 560.506767351568 * sy;
    g.camera[2] = (620.458515360843 + 0.5) * sx - 0.5;
    g.camera[3] = (381.939424848348 + 0.5) * sy - 0.5;
    memcpy (g.distortion, k, sizeof (k));
    g.n_distortion = 4;
    g.new_camera_set = 1;
    memcpy (g.new_camera, g.camera, sizeof (g.camera));
    if (bc->fisheye == 2) {
      g.new_camera[0] *= 0.6;
      g.new_camera[1] *= 0.6;
    }
    if (bspline_geometry_plane_map (&g, &grid, m, &lens, msg,
            sizeof (msg)) != BSPLINE_OK) {
      fprintf (stderr, "%s: %s\n", bc->name, msg);
      exit (1);
    }
    if (bc->stmap) {
      /* the same undistortion as an STMap sampled from the lens map at
       * the centres of its own grid (Nuke's convention) */
      int mw = bc->dst_w / bc->stmap, mh = bc->dst_h / bc->stmap, x, y;
      double *st = malloc (sizeof (double) * 2 * mw * mh);
      bspline_stmap *map = NULL;
      for (y = 0; y < mh; y++)
        for (x = 0; x < mw; x++) {
          double px = 0.0, py = 0.0;
          bspline_stage_map_point (m, &lens, 1, (x + 0.5) * bc->dst_w / mw,
              (y + 0.5) * bc->dst_h / mh, &px, &py);
          st[2 * ((size_t) y * mw + x)] = px / bc->src_w;
          st[2 * ((size_t) y * mw + x) + 1] = 1.0 - py / bc->src_h;
        }
      if (bspline_stmap_new (st, mw, mh, &map, msg, sizeof (msg))
          != BSPLINE_OK) {
        fprintf (stderr, "%s: %s\n", bc->name, msg);
        exit (1);
      }
      free (st);
      bspline_geometry_init (&g, bc->src_w, bc->src_h, bc->dst_w, bc->dst_h);
      g.lens_model = BSPLINE_LENS_STMAP;
      g.stmap = map;
      if (bspline_geometry_plane_map (&g, &grid, m, &lens, msg,
              sizeof (msg)) != BSPLINE_OK) {
        fprintf (stderr, "%s: %s\n", bc->name, msg);
        exit (1);
      }
      /* the plan takes its own reference below */
      stmap_owned = map;
    }
  } else
    memcpy (m, bc->m, sizeof (m));
  if (bspline_plan_new_lens (&p, m, bc->fisheye ? &lens : NULL, bc->src_w,
          bc->src_h, bc->dst_w, bc->dst_h, bc->channels, &plan, msg,
          sizeof (msg)) != BSPLINE_OK) {
    fprintf (stderr, "%s: %s\n", bc->name, msg);
    exit (1);
  }
  p_ref = p;
  p_ref.precision = BSPLINE_PRECISION_DOUBLE;
  if (cpu && bspline_plan_new_lens (&p_ref, m, bc->fisheye ? &lens : NULL,
          bc->src_w, bc->src_h, bc->dst_w, bc->dst_h, bc->channels,
          &plan_ref, msg, sizeof (msg)) != BSPLINE_OK) {
    fprintf (stderr, "%s (reference): %s\n", bc->name, msg);
    exit (1);
  }
  bspline_stmap_unref (stmap_owned);
  memset (&src, 0, sizeof (src));
  src.width = bc->src_w;
  src.height = bc->src_h;
  src.channels = bc->channels;
  src.type = bc->type;
  src.bits = bc->type == BSPLINE_SAMPLE_U8 ? 8 : 16;
  src.stride = (ptrdiff_t) (ss * bc->channels * bc->src_w);
  dst = src;
  dst.width = bc->dst_w;
  dst.height = bc->dst_h;
  dst.stride = (ptrdiff_t) (ss * bc->channels * bc->dst_w);
  dst.data = output;
  /* warp16: the general path on precision=compact's 16-bit plane */
  *path = bspline_cuda_plan_folded (cuda, plan) ? "folded" :
      !bspline_plan_is_separable (plan) ?
      (bspline_cuda_plan_compact (cuda, plan, &src) > 0.0 ? "warp16" :
      "warp") : bspline_cuda_plan_fused (cuda, plan) ? "fused" :
      "separable";

  CHECK (cudaEventCreate (&start));
  CHECK (cudaEventCreate (&stop));
  for (i = -WARMUP; i < repeat; i++) {
    src.data = inputs[(i + WARMUP) % N_INPUTS];
    CHECK (cudaEventRecord (start, 0));
    if (bspline_cuda_launch_on_device (cuda, plan, &src, &dst, NULL)) {
      fprintf (stderr, "%s: %s\n", bc->name, bspline_cuda_last_error (cuda));
      exit (1);
    }
    CHECK (cudaEventRecord (stop, 0));
    CHECK (cudaEventSynchronize (stop));
    if (i >= 0)
      CHECK (cudaEventElapsedTime (&times[i], start, stop));
  }
  qsort (times, repeat, sizeof (float), compare_floats);
  median = times[repeat / 2] * 1000.0;
  *max_diff = *differ = NAN;
  if (plan_ref) {
    case_accuracy (cpu, plan_ref, &src, &dst, max_diff, differ);
    bspline_plan_free (plan_ref);
  }
  cudaEventDestroy (start);
  cudaEventDestroy (stop);
  bspline_plan_free (plan);
  cudaFree (output);
  free_frames (inputs);
  free (times);
  return median;
}

/* Device-to-device copy of `bytes`, the floor of any resampling of them. */
static double
time_copy (size_t bytes, int repeat)
{
  void **inputs = random_frames (bytes), *output;
  cudaEvent_t start, stop;
  float *times = malloc (sizeof (float) * repeat);
  double median;
  int i;

  CHECK (cudaMalloc (&output, bytes));
  CHECK (cudaEventCreate (&start));
  CHECK (cudaEventCreate (&stop));
  for (i = -WARMUP; i < repeat; i++) {
    CHECK (cudaEventRecord (start, 0));
    CHECK (cudaMemcpyAsync (output, inputs[(i + WARMUP) % N_INPUTS], bytes,
            cudaMemcpyDeviceToDevice, 0));
    CHECK (cudaEventRecord (stop, 0));
    CHECK (cudaEventSynchronize (stop));
    if (i >= 0)
      CHECK (cudaEventElapsedTime (&times[i], start, stop));
  }
  qsort (times, repeat, sizeof (float), compare_floats);
  median = times[repeat / 2] * 1000.0;
  cudaEventDestroy (start);
  cudaEventDestroy (stop);
  cudaFree (output);
  free_frames (inputs);
  free (times);
  return median;
}

/* Pinned host <-> device copies of the element's frames from system
 * memory (1080p RGBA8 up, 4K RGBA8 down), alone and at once on two
 * streams (the copy engines overlap them), as the element overlaps one
 * frame's download with the next one's upload: the frame rate these
 * copies allow (issue 5's pipeline target).  Medians in us into t[3]. */
static void
time_host_copies (int repeat, double t[3])
{
  const size_t up = (size_t) 1920 * 1080 * 4, down = (size_t) 3840 *2160 * 4;
  void *host_up, *host_down, *dev_up, *dev_down;
  cudaStream_t s[2];
  cudaEvent_t start, stop, joined;
  float *times = malloc (sizeof (float) * repeat);
  int i, k;

  CHECK (cudaHostAlloc (&host_up, up, cudaHostAllocDefault));
  CHECK (cudaHostAlloc (&host_down, down, cudaHostAllocDefault));
  memset (host_up, 0x5a, up);
  CHECK (cudaMalloc (&dev_up, up));
  CHECK (cudaMalloc (&dev_down, down));
  CHECK (cudaMemset (dev_down, 0xa5, down));
  CHECK (cudaStreamCreateWithFlags (&s[0], cudaStreamNonBlocking));
  CHECK (cudaStreamCreateWithFlags (&s[1], cudaStreamNonBlocking));
  CHECK (cudaEventCreate (&start));
  CHECK (cudaEventCreate (&stop));
  CHECK (cudaEventCreate (&joined));
  for (k = 0; k < 3; k++) {
    for (i = -WARMUP; i < repeat; i++) {
      CHECK (cudaEventRecord (start, s[0]));
      CHECK (cudaStreamWaitEvent (s[1], start, 0));
      if (k != 1)
        CHECK (cudaMemcpyAsync (dev_up, host_up, up, cudaMemcpyHostToDevice,
                s[0]));
      if (k != 0)
        CHECK (cudaMemcpyAsync (host_down, dev_down, down,
                cudaMemcpyDeviceToHost, s[1]));
      CHECK (cudaEventRecord (joined, s[1]));
      CHECK (cudaStreamWaitEvent (s[0], joined, 0));
      CHECK (cudaEventRecord (stop, s[0]));
      CHECK (cudaEventSynchronize (stop));
      if (i >= 0)
        CHECK (cudaEventElapsedTime (&times[i], start, stop));
    }
    qsort (times, repeat, sizeof (float), compare_floats);
    t[k] = times[repeat / 2] * 1000.0;
  }
  cudaEventDestroy (start);
  cudaEventDestroy (stop);
  cudaEventDestroy (joined);
  cudaStreamDestroy (s[0]);
  cudaStreamDestroy (s[1]);
  cudaFree (dev_up);
  cudaFree (dev_down);
  cudaFreeHost (host_up);
  cudaFreeHost (host_down);
  free (times);
}

/* The inverse map of a rotation by `degrees` clockwise about the centre of
 * a w x h frame (pixel coordinates, centres at +0.5). */
static void
rotation (double degrees, int w, int h, double m[9])
{
  double a = degrees * 3.14159265358979323846 / 180.0;
  double c = cos (a), s = sin (a);
  double cx = 0.5 * w, cy = 0.5 * h;
  m[0] = c;
  m[1] = s;
  m[2] = cx - c * cx - s * cy;
  m[3] = -s;
  m[4] = c;
  m[5] = cy + s * cx - c * cy;
  m[6] = 0.0;
  m[7] = 0.0;
  m[8] = 1.0;
}

/* A keystone: output pixel (u, v) from input (u, v) / (1 + 2e-5 u + 1e-5 v),
 * a perspective map that shrinks the far corner of a 4K frame by 9 %
 * (no antialiasing widens it). */
static void
keystone (double m[9])
{
  bspline_matrix_identity (m);
  m[6] = 2e-5;
  m[7] = 1e-5;
}

static void
scale (int sw, int sh, int dw, int dh, double m[9])
{
  bspline_matrix_identity (m);
  m[0] = (double) sw / dw;
  m[4] = (double) sh / dh;
}

static void
shift (double dx, double dy, double m[9])
{
  bspline_matrix_identity (m);
  m[2] = dx;
  m[5] = dy;
}

int
main (int argc, char **argv)
{
  bench_case cases[48];
  bspline_cuda *cuda;
  bspline_cpu *cpu = NULL;
  char msg[256];
  const char *only = NULL;
  int repeat = 50, n = 0, i, accuracy = 1, exact = 0;
  double floor_4k;

  for (i = 1; i < argc; i++) {
    if (strcmp (argv[i], "--no-accuracy") == 0)
      accuracy = 0;
    else if (strcmp (argv[i], "--exact") == 0)
      exact = 1;
    else if (i + 1 < argc && strcmp (argv[i], "--repeat") == 0) {
      repeat = atoi (argv[i + 1]) > 0 ? atoi (argv[i + 1]) : repeat;
      i++;
    } else if (i + 1 < argc && strcmp (argv[i], "--only") == 0)
      only = argv[++i];
  }
  if (bspline_cuda_new (-1, &cuda, msg, sizeof (msg)) != BSPLINE_OK) {
    fprintf (stderr, "no CUDA engine: %s\n", msg);
    return 77;
  }
#define RGBA_CASE(NAME, SW, SH, DW, DH, ORDER, PREC) \
  cases[n].name = NAME; cases[n].src_w = SW; cases[n].src_h = SH; \
  cases[n].dst_w = DW; cases[n].dst_h = DH; cases[n].channels = 4; \
  cases[n].type = BSPLINE_SAMPLE_U8; cases[n].order = ORDER; \
  cases[n].precision = PREC; cases[n].antialias = -1; cases[n].fisheye = 0; \
  cases[n].stmap = 0
  RGBA_CASE ("4K RGBA8 rotate 10 deg, order 3", 3840, 2160, 3840, 2160, 3,
      BSPLINE_PRECISION_FLOAT);
  rotation (10.0, 3840, 2160, cases[n++].m);
  RGBA_CASE ("4K RGBA8 rotate 10 deg, order 3 fast", 3840, 2160, 3840, 2160,
      3, BSPLINE_PRECISION_FAST);
  rotation (10.0, 3840, 2160, cases[n++].m);
  /* the 16-bit coefficient plane */
  RGBA_CASE ("4K RGBA8 rotate 10 deg, order 3 compact", 3840, 2160, 3840,
      2160, 3, BSPLINE_PRECISION_COMPACT);
  rotation (10.0, 3840, 2160, cases[n++].m);
  RGBA_CASE ("4K RGBA8 rotate 10 deg, order 3 double", 3840, 2160, 3840,
      2160, 3, BSPLINE_PRECISION_DOUBLE);
  rotation (10.0, 3840, 2160, cases[n++].m);
  /* a quarter of the pixels: its float plane (33 MB) fits in the L2
   * cache (50 MB on an H100), where the 4K plane (133 MB) does not */
  RGBA_CASE ("1080p RGBA8 rotate 10 deg, order 3", 1920, 1080, 1920, 1080,
      3, BSPLINE_PRECISION_FLOAT);
  rotation (10.0, 1920, 1080, cases[n++].m);
  RGBA_CASE ("4K RGBA8 rotate 10 deg, order 5", 3840, 2160, 3840, 2160, 5,
      BSPLINE_PRECISION_FLOAT);
  rotation (10.0, 3840, 2160, cases[n++].m);
  /* issue 22: at most 1.3 x the rotation's time */
  RGBA_CASE ("4K RGBA8 fisheye undistortion, order 3", 3840, 2160, 3840,
      2160, 3, BSPLINE_PRECISION_FLOAT);
  cases[n++].fisheye = 1;
  RGBA_CASE ("4K RGBA8 fisheye undistortion, order 3 (antialias none)",
      3840, 2160, 3840, 2160, 3, BSPLINE_PRECISION_FLOAT);
  cases[n].antialias = BSPLINE_ANTIALIAS_NONE;
  cases[n++].fisheye = 1;
  /* (a map of the output's size, 3840x2160, is past the largest STMap
   * the engine takes, 4194304 samples) */
  RGBA_CASE ("4K RGBA8 fisheye undistortion as a 1920x1080 STMap, order 3",
      3840, 2160, 3840, 2160, 3, BSPLINE_PRECISION_FLOAT);
  cases[n].fisheye = 1;
  cases[n++].stmap = 2;
  RGBA_CASE ("4K RGBA8 fisheye undistortion as a 960x540 STMap, order 3",
      3840, 2160, 3840, 2160, 3, BSPLINE_PRECISION_FLOAT);
  cases[n].fisheye = 1;
  cases[n++].stmap = 4;
  RGBA_CASE ("4K RGBA8 fisheye to 0.6 f, order 3 (antialiased)", 3840,
      2160, 3840, 2160, 3, BSPLINE_PRECISION_FLOAT);
  cases[n++].fisheye = 2;
  RGBA_CASE ("4K RGBA8 fisheye to 0.6 f, order 3 (antialias none)", 3840,
      2160, 3840, 2160, 3, BSPLINE_PRECISION_FLOAT);
  cases[n].antialias = BSPLINE_ANTIALIAS_NONE;
  cases[n++].fisheye = 2;
  /* issue 42: at least 3,000 frames/s (RGBA8 here; the frame is
   * one 8-bit plane, a quarter of the bytes) */
  RGBA_CASE ("equirect 3840x1920 -> flat 1080p RGBA8, order 3",
      3840, 1920, 1920, 1080, 3, BSPLINE_PRECISION_FLOAT);
  cases[n++].fisheye = 3;
  RGBA_CASE ("equirect 3840x1920 -> flat 1080p GRAY8, order 3",
      3840, 1920, 1920, 1080, 3, BSPLINE_PRECISION_FLOAT);
  cases[n].channels = 1;
  cases[n++].fisheye = 3;
  RGBA_CASE ("4K RGBA8 perspective (keystone), order 3", 3840, 2160, 3840,
      2160, 3, BSPLINE_PRECISION_FLOAT);
  keystone (cases[n++].m);
  RGBA_CASE ("4K RGBA8 perspective (keystone), order 3 fast", 3840, 2160,
      3840, 2160, 3, BSPLINE_PRECISION_FAST);
  keystone (cases[n++].m);
  RGBA_CASE ("4K RGBA8 perspective (keystone), order 3 compact", 3840, 2160,
      3840, 2160, 3, BSPLINE_PRECISION_COMPACT);
  keystone (cases[n++].m);
  RGBA_CASE ("4K RGBA8 perspective (keystone), order 3 double", 3840, 2160,
      3840, 2160, 3, BSPLINE_PRECISION_DOUBLE);
  keystone (cases[n++].m);
  RGBA_CASE ("4K RGBA8 rotate 10 deg, order 5 fast", 3840, 2160, 3840, 2160,
      5, BSPLINE_PRECISION_FAST);
  rotation (10.0, 3840, 2160, cases[n++].m);
  RGBA_CASE ("4K RGBA8 rotate 10 deg, order 11", 3840, 2160, 3840, 2160, 11,
      BSPLINE_PRECISION_FLOAT);
  rotation (10.0, 3840, 2160, cases[n++].m);
  RGBA_CASE ("4K RGBA8 rotate 10 deg, order 11 fast", 3840, 2160, 3840,
      2160, 11, BSPLINE_PRECISION_FAST);
  rotation (10.0, 3840, 2160, cases[n++].m);
  RGBA_CASE ("4K RGBA8 rotate 10 deg, order 11 double", 3840, 2160, 3840,
      2160, 11, BSPLINE_PRECISION_DOUBLE);
  rotation (10.0, 3840, 2160, cases[n++].m);
  RGBA_CASE ("1080p -> 4K RGBA8, order 3", 1920, 1080, 3840, 2160, 3,
      BSPLINE_PRECISION_FLOAT);
  scale (1920, 1080, 3840, 2160, cases[n++].m);
  RGBA_CASE ("1080p -> 4K RGBA8, order 3 fast", 1920, 1080, 3840, 2160, 3,
      BSPLINE_PRECISION_FAST);
  scale (1920, 1080, 3840, 2160, cases[n++].m);
  RGBA_CASE ("1080p -> 4K RGBA8, order 3 double", 1920, 1080, 3840, 2160, 3,
      BSPLINE_PRECISION_DOUBLE);
  scale (1920, 1080, 3840, 2160, cases[n++].m);
  RGBA_CASE ("1080p -> 4K RGBA8, order 1 fast", 1920, 1080, 3840, 2160, 1,
      BSPLINE_PRECISION_FAST);
  scale (1920, 1080, 3840, 2160, cases[n++].m);
  /* the least-squares reduction (issue 21: at most the upscale's time) */
  RGBA_CASE ("4K -> 1080p RGBA8, order 3 (least squares)", 3840, 2160,
      1920, 1080, 3, BSPLINE_PRECISION_FLOAT);
  scale (3840, 2160, 1920, 1080, cases[n++].m);
  RGBA_CASE ("4K -> 1080p RGBA8, order 5 (least squares)", 3840, 2160,
      1920, 1080, 5, BSPLINE_PRECISION_FLOAT);
  scale (3840, 2160, 1920, 1080, cases[n++].m);
  /* the same shrink by the engine's one-plan paths: the floor of any
   * reduction built on them (antialias none samples the interpolant) */
  RGBA_CASE ("4K -> 1080p RGBA8, order 3 (antialias none)", 3840, 2160,
      1920, 1080, 3, BSPLINE_PRECISION_FLOAT);
  cases[n].antialias = BSPLINE_ANTIALIAS_NONE;
  scale (3840, 2160, 1920, 1080, cases[n++].m);
  RGBA_CASE ("4K -> 1080p RGBA8, order 3 (widen)", 3840, 2160,
      1920, 1080, 3, BSPLINE_PRECISION_FLOAT);
  cases[n].antialias = BSPLINE_ANTIALIAS_WIDEN;
  scale (3840, 2160, 1920, 1080, cases[n++].m);
  for (i = 0; i < 3; i++) {
    static const int orders[] = { 3, 5, 11 };
    static const char *names[] = {
      "4608x3456 float shift (0.5, 0.5) reflect, order 3",
      "4608x3456 float shift (0.5, 0.5) reflect, order 5",
      "4608x3456 float shift (0.5, 0.5) reflect, order 11"
    };
    cases[n].name = names[i];
    cases[n].src_w = cases[n].dst_w = 4608;
    cases[n].src_h = cases[n].dst_h = 3456;
    cases[n].channels = 1;
    cases[n].type = BSPLINE_SAMPLE_F32;
    cases[n].order = orders[i];
    cases[n].precision = BSPLINE_PRECISION_FLOAT;
    cases[n].antialias = -1;
    cases[n].fisheye = 0;
    shift (0.5, 0.5, cases[n++].m);
  }

  if (accuracy && !(cpu = bspline_cpu_new (0))) {
    fprintf (stderr, "no CPU engine for the reference\n");
    return 1;
  }
  floor_4k = time_copy ((size_t) 3840 * 2160 * 4, repeat);
  printf ("device: %s; median of %d launches after %d warm-up, %d input "
      "frames in rotation\n", bspline_cuda_device_name (cuda), repeat,
      WARMUP, N_INPUTS);
  printf ("%-52s %10s %10s  %-9s %9s %8s\n", "work", "time (us)",
      "x 4K copy", "path", "max |err|", "differ");
  printf ("%-52s %10.1f %10.2f\n", "4K RGBA8 device-to-device copy (floor)",
      floor_4k, 1.0);
  for (i = 0; i < n; i++) {
    const char *path;
    double t, max_diff, differ;
    if (only && (exact ? strcmp (cases[i].name, only) != 0 :
            !strstr (cases[i].name, only)))
      continue;
    t = time_case (cuda, cpu, &cases[i], repeat, &path, &max_diff, &differ);
    printf ("%-52s %10.1f %10.2f  %-9s %9.3g %7.3f%%\n", cases[i].name, t,
        t / floor_4k, path, max_diff, 100.0 * differ);
  }
  if (!only || strstr ("host copies", only)) {
    static const char *what[3] = {
      "1080p RGBA8 host-to-device, pinned",
      "4K RGBA8 device-to-host, pinned",
      "both at once (two streams)"
    };
    static const double bytes[3] = { 1920.0 * 1080 * 4, 3840.0 * 2160 * 4,
      1920.0 * 1080 * 4 + 3840.0 * 2160 * 4
    };
    double t[3];
    time_host_copies (repeat, t);
    printf ("host copies of the element's frames (system memory)   "
        "time (us)       GB/s  frames/s they allow\n");
    for (i = 0; i < 3; i++)
      printf ("%-52s %10.1f %10.1f %10.0f\n", what[i], t[i],
          bytes[i] / t[i] / 1e3, 1e6 / t[i]);
  }
  bspline_cuda_free (cuda);
  if (cpu)
    bspline_cpu_free (cpu);
  return 0;
}
