/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* npp-anchor: NVIDIA NPP on the work of issue 5, timed like bench/gpu-bench
 * (CUDA events around each call, median of --repeat after 5 warm-up calls,
 * random frames, 6 inputs in rotation so that they do not fit in L2).
 *
 * NPP is not on the development machine, so this is built on the GPU
 * machine by scripts/run-gpu-bench.sh:
 *   nvcc -O2 -o npp-anchor bench/npp-anchor.c -lnppig -lnppc
 * NPP's interpolation does no prefilter: cubic is Catmull-Rom-like
 * convolution, not B-spline interpolation.  Prints one line per case:
 *   npp <case> <median us> */
#include <cuda_runtime_api.h>
#include <nppi_geometry_transforms.h>
#include <math.h>
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

#define NPP_CHECK(call) \
  do { \
    NppStatus st_ = (call); \
    if (st_ < 0) { \
      fprintf (stderr, "%s failed: NppStatus %d\n", #call, (int) st_); \
      exit (1); \
    } \
  } while (0)

typedef struct
{
  int what;                     /* 0 rotate, 1 resize */
  int interpolation;
  int sw, sh, dw, dh;
  double coeffs[2][3];
} npp_case;

static int
compare_floats (const void *a, const void *b)
{
  float x = *(const float *) a, y = *(const float *) b;
  return x < y ? -1 : x > y;
}

static void **
random_frames (size_t bytes)
{
  void **frames = calloc (N_INPUTS, sizeof (void *));
  unsigned char *host = malloc (bytes);
  unsigned long long s = 0x9e3779b97f4a7c15ull;
  size_t i;
  int k;
  for (k = 0; k < N_INPUTS; k++) {
    for (i = 0; i < bytes; i++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      host[i] = (unsigned char) (s >> 56);
    }
    CHECK (cudaMalloc (&frames[k], bytes));
    CHECK (cudaMemcpy (frames[k], host, bytes, cudaMemcpyHostToDevice));
  }
  free (host);
  return frames;
}

static void
run_one (const NppStreamContext * ctx, const npp_case * c, void *src,
    void *dst)
{
  NppiSize ssize = { c->sw, c->sh }, dsize = { c->dw, c->dh };
  NppiRect sroi = { 0, 0, c->sw, c->sh }, droi = { 0, 0, c->dw, c->dh };
  if (c->what == 0)
    NPP_CHECK (nppiWarpAffine_8u_C4R_Ctx (src, ssize, c->sw * 4, sroi, dst,
            c->dw * 4, droi, c->coeffs, c->interpolation, *ctx));
  else
    NPP_CHECK (nppiResize_8u_C4R_Ctx (src, c->sw * 4, ssize, sroi, dst,
            c->dw * 4, dsize, droi, c->interpolation, *ctx));
}

static float
time_case (const NppStreamContext * ctx, const npp_case * c, int repeat)
{
  void **src = random_frames ((size_t) c->sw * c->sh * 4);
  void *dst;
  float *t = calloc (repeat, sizeof (float)), median;
  cudaEvent_t a, b;
  int k;

  CHECK (cudaMalloc (&dst, (size_t) c->dw * c->dh * 4));
  CHECK (cudaEventCreate (&a));
  CHECK (cudaEventCreate (&b));
  for (k = 0; k < WARMUP; k++)
    run_one (ctx, c, src[k % N_INPUTS], dst);
  for (k = 0; k < repeat; k++) {
    CHECK (cudaEventRecord (a, ctx->hStream));
    run_one (ctx, c, src[k % N_INPUTS], dst);
    CHECK (cudaEventRecord (b, ctx->hStream));
    CHECK (cudaEventSynchronize (b));
    CHECK (cudaEventElapsedTime (&t[k], a, b));
  }
  qsort (t, repeat, sizeof (float), compare_floats);
  median = t[repeat / 2] * 1000.0f;
  for (k = 0; k < N_INPUTS; k++)
    cudaFree (src[k]);
  free (src);
  cudaFree (dst);
  free (t);
  return median;
}

int
main (int argc, char **argv)
{
  struct cudaDeviceProp prop;
  NppStreamContext ctx;
  int repeat = 30, dev = 0;
  const double deg = 10.0 * M_PI / 180.0;
  const double cx = 1920.0, cy = 1080.0;
  npp_case rotate = { 0, NPPI_INTER_CUBIC, 3840, 2160, 3840, 2160 };
  npp_case cubic = { 1, NPPI_INTER_CUBIC, 1920, 1080, 3840, 2160 };
  npp_case lanczos = { 1, NPPI_INTER_LANCZOS, 1920, 1080, 3840, 2160 };

  if (argc == 3 && strcmp (argv[1], "--repeat") == 0)
    repeat = atoi (argv[2]);
  if (repeat < 1)
    repeat = 1;
  CHECK (cudaGetDevice (&dev));
  CHECK (cudaGetDeviceProperties (&prop, dev));
  memset (&ctx, 0, sizeof (ctx));
  CHECK (cudaStreamCreate (&ctx.hStream));
  ctx.nCudaDeviceId = dev;
  ctx.nMultiProcessorCount = prop.multiProcessorCount;
  ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
  ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
  ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
  ctx.nCudaDevAttrComputeCapabilityMajor = prop.major;
  ctx.nCudaDevAttrComputeCapabilityMinor = prop.minor;
  CHECK (cudaStreamGetFlags (ctx.hStream, &ctx.nStreamFlags));

  /* forward map: rotation by 10 degrees about the frame centre, the same
   * work as gpu-bench's rotate case */
  rotate.coeffs[0][0] = cos (deg);
  rotate.coeffs[0][1] = -sin (deg);
  rotate.coeffs[1][0] = sin (deg);
  rotate.coeffs[1][1] = cos (deg);
  rotate.coeffs[0][2] = cx - cos (deg) * cx + sin (deg) * cy;
  rotate.coeffs[1][2] = cy - sin (deg) * cx - cos (deg) * cy;

  printf ("npp rotate-4k-rgba8-cubic %.1f\n", time_case (&ctx, &rotate,
          repeat));
  printf ("npp resize-1080p-4k-rgba8-cubic %.1f\n", time_case (&ctx, &cubic,
          repeat));
  printf ("npp resize-1080p-4k-rgba8-lanczos %.1f\n", time_case (&ctx,
          &lanczos, repeat));
  return 0;
}
