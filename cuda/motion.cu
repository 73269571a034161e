/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* motion.cu: the per-pixel passes of the motion estimation
 * (core/stabilize/motion.c) in CUDA kernels, behind bspline-cuda-motion.h.
 *
 * The control logic (coarse hypotheses, levels, the reliability tests) is
 * core/stabilize/motion.c's, run through bspline_motion_estimate_with; the
 * kernels here compute what motion.c's CPU loops compute, pixel by pixel
 * with the same arithmetic: float pyramid and gradients, double warps,
 * residuals, weights and Jacobians.  The __f*_rn / __d*_rn intrinsics keep
 * nvcc from contracting a*b+c into a fused multiply-add where the CPU
 * rounds twice, so that the pyramids, the rotated images of the coarse
 * search and every pixel's residual come out of the CPU's operations in the
 * CPU's order; only the order of the sums differs (float rounding of the
 * totals).
 *
 * Gauss-Newton without the host: a refinement at one level is one
 * cooperative launch (every block resident at once) that loops over the
 * steps: every block does its share of a pass, one grid-wide barrier,
 * then every block reads the same partial sums and histogram and takes
 * the same step (core/stabilize/motion-solve.h, the CPU's code: the
 * residual scale from the histogram, the 4x4 / 6x6 solve, the update and
 * the convergence test) into its own copy of the warp, and goes on to the
 * next pass, until converged or out of steps; the result lands in mapped
 * host memory.  The host waits once per refinement (3 to 7 a frame at
 * 1080p) instead of once per pass.  A step is a chain of latencies, not of
 * throughput (1080p levels have 2k to 130k pixels), so: a pass gives each
 * thread about MOTION_PIXELS_PER_THREAD pixels (the coarse levels' grids
 * have a few blocks, a level of one block has no grid barrier at all); one
 * grid barrier per step; the partials added by all warps; thread 0 solves
 * while the second warp finds the median.  On the H100 at 1080p
 * (2026-11-26, one run) this took 0.66-0.67 ms a frame of motion against
 * 0.90-1.09 with a host round trip per pass.  (Two earlier versions were
 * slower than that round trip: each refinement launched as its largest
 * number of passes, one kernel each, 1.45 ms a frame against 0.93; one grid
 * of up to 240 blocks, block 0 adding the partials alone and taking the
 * step between two grid barriers, 1.28-1.53 ms.)
 *
 * Determinism: a pass writes one partial sum per block (the threads of a
 * block reduced by warp shuffles then across warps, in a fixed order) and
 * the blocks add the partials in a fixed order; the number of blocks
 * depends on the level's size and the device alone.  Only integers (pixel
 * counts, histogram bins) use atomics, which are exact. */
#include "bspline-cuda-motion.h"
extern "C"
{
#include "base.h"
}
#include "motion-solve.h"

#include <cooperative_groups.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MOTION_THREADS 256
#define MOTION_WARPS (MOTION_THREADS / 32)
/* blocks of a refinement: about this many pixels per thread (a pass is
 * bound by the latency of one pixel's chain of double operations, so a
 * thread should have few), at most MOTION_MAX_BLOCKS and no more than
 * are resident at once */
#define MOTION_PIXELS_PER_THREAD 1
#define MOTION_MAX_BLOCKS 240
/* 21 entries of a 6x6 upper triangle + 6 of J^T W r */
#define MOTION_MAX_SUMS 27
#define MOTION_MAX_ANGLES 16
/* Threads of the copies into pinned staging: one thread copies about 10
 * GB/s, a 1080p I420 frame is 3 MB */
#define MOTION_COPY_THREADS 4
#define MOTION_COPY_CHUNK ((size_t) 256 << 10)
#define MOTION_MAX_CHUNKS 256
/* accumulators that passes take in turn (motion_refine_kernel says why
 * three) */
#define MOTION_TURNS 3

/* What the blocks of a pass add up with atomics. */
typedef struct
{
  unsigned long long valid, inliers;
  unsigned hist[BSPLINE_MOTION_HIST_BINS];
} motion_gpu_accum;

#define MOTION_ACCUM_WORDS (sizeof (motion_gpu_accum) / sizeof (unsigned))

/* What a refinement starts from, a kernel parameter. */
typedef struct
{
  double m[6];                  /* the warp */
  double cx, cy;
  double sigma;                 /* < 0: measure it first (pass 0) */
  double tolerance;
  int w, h, sampling, max_steps;
} motion_gpu_job;

/* A refinement in progress: each block keeps its own copy in shared
 * memory and takes the same steps from the same sums; block 0 writes the
 * last one for the host. */
typedef struct
{
  double m[6];                  /* the warp */
  double sigma;                 /* scale of the last residuals */
  double scale;                 /* Huber k or Tukey c of the last pass */
  unsigned long long valid, inliers;    /* of the last pass */
  int step;
  int done;                     /* 1: no more passes */
  int steps;                    /* when done: steps taken, -1 singular */
  int passes;                   /* when done: passes run */
} motion_gpu_state;

namespace cg = cooperative_groups;

typedef struct
{
  float *img, *gx, *gy;
} motion_gpu_level;

struct bspline_cuda_motion
{
  int device;
  int bound;                    /* on its caller's context: no cudaSetDevice */
  int width, height;
  bspline_motion_estimator *core;       /* the control logic, on the CPU */
  bspline_motion_layout layout;
  cudaStream_t stream;
  motion_gpu_level levels[2][BSPLINE_MOTION_MAX_LEVELS];
  /* [2][3 BSPLINE_MOTION_TEXTURE_CELLS]: texture sums of the cells of
   * each pyramid */
  double *texture_dev;
  double *texture_host;         /* pinned */
  unsigned char *luma_dev;      /* a host frame's luma rows, uploaded */
  size_t luma_dev_size;
  void *staging;                /* pinned */
  size_t staging_size;
  float *rotated;               /* coarse search: [angles][w * h] */
  double *search_sad_dev, *search_sad_host;     /* [angles][shifts] */
  unsigned *search_n_dev, *search_n_host;
  size_t search_capacity;       /* entries of the search arrays */
  /* [2][MOTION_MAX_BLOCKS][MOTION_MAX_SUMS]: the passes' block sums,
   * odd and even passes */
  double *partial;
  motion_gpu_accum *accum;      /* [MOTION_TURNS] */
  int accum_turn;               /* the one that is zero, for the next pass */
  int accum_dirty;              /* after a failure: zero them all first */
  /* blocks of a refinement: all must be resident at once (cooperative
   * launch), for 4 and 6 parameters */
  int coop_blocks[2];
  /* the result of a refinement: pinned, mapped, written by the kernel */
  motion_gpu_state *state_host, *state_dev;
  bspline_pool *copy_pool;      /* the copies into staging */
  /* the frame of the call in progress */
  const bspline_luma_frame *frame;
  int frame_on_device;
  long fault_countdown;         /* BSPLINE_CUDA_FAULT=motion:N, or 0 */
  char error[512];
};

/* ---- errors ---- */

static cudaError_t
motion_fault (bspline_cuda_motion * m)
{
  if (m->fault_countdown > 0 && --m->fault_countdown == 0)
    return cudaErrorLaunchFailure;
  return cudaSuccess;
}

/* Every CUDA call: on failure the error names it and control goes to
 * `fail`. */
#define MOTION_TRY(m, call) \
  do { \
    cudaError_t err_ = motion_fault (m); \
    if (err_ == cudaSuccess) \
      err_ = (call); \
    if (err_ != cudaSuccess) { \
      snprintf ((m)->error, sizeof ((m)->error), "%s failed: %s (%s)%s", \
          #call, cudaGetErrorString (err_), cudaGetErrorName (err_), \
          (m)->fault_countdown == 0 && getenv ("BSPLINE_CUDA_FAULT") ? \
          " [injected by BSPLINE_CUDA_FAULT]" : ""); \
      cudaGetLastError (); \
      goto fail; \
    } \
  } while (0)

/* ---- kernels ---- */

/* Level 0: the mean of factor x factor luma samples (motion.c's
 * motion_luma_rows: sums in float, rows then columns). */
__global__ void
motion_luma_kernel (const unsigned char *data, size_t stride, int pixel_stride,
    int offset_y, int offset_r, int offset_g, int offset_b, int factor,
    float *out, int w, int h)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  float acc = 0.0f;
  int a, b;

  if (i >= w || j >= h)
    return;
  for (b = 0; b < factor; b++) {
    const unsigned char *row = data + (size_t) (j * factor + b) * stride;

    for (a = 0; a < factor; a++) {
      size_t o = (size_t) (i * factor + a) * pixel_stride;

      if (offset_r >= 0) {
        float v = __fadd_rn (__fadd_rn (__fmul_rn (0.299f,
                    (float) row[offset_r + o]), __fmul_rn (0.587f,
                    (float) row[offset_g + o])), __fmul_rn (0.114f,
                (float) row[offset_b + o]));

        acc = __fadd_rn (acc, v);
      } else {
        acc = __fadd_rn (acc, (float) row[offset_y + o]);
      }
    }
  }
  out[(size_t) j * w + i] = __fmul_rn (acc, 1.0f / (float) (factor * factor));
}

/* The next level: 2x2 box means. */
__global__ void
motion_down_kernel (const float *src, int sw, float *dst, int w, int h)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  const float *a, *b;

  if (i >= w || j >= h)
    return;
  a = src + (size_t) (2 * j) * sw;
  b = a + sw;
  dst[(size_t) j * w + i] = __fmul_rn (0.25f, __fadd_rn (__fadd_rn (__fadd_rn
              (a[2 * i], a[2 * i + 1]), b[2 * i]), b[2 * i + 1]));
}

/* Central differences, 0 on the border. */
__global__ void
motion_gradient_kernel (const float *img, float *gx, float *gy, int w, int h)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  size_t k = (size_t) j * w + i;

  if (i >= w || j >= h)
    return;
  if (i == 0 || j == 0 || i == w - 1 || j == h - 1) {
    gx[k] = 0.0f;
    gy[k] = 0.0f;
    return;
  }
  gx[k] = __fmul_rn (0.5f, __fsub_rn (img[k + 1], img[k - 1]));
  gy[k] = __fmul_rn (0.5f, __fsub_rn (img[k + w], img[k - w]));
}

/* Reduces the n values of each thread over the block, in a fixed order
 * (shuffles within warps, then warps in order), into out[0..n) by thread
 * 0. */
template < int N > __device__ void
motion_block_sum (double (&v)[N], double *out)
{
  __shared__ double warp_sums[MOTION_WARPS][N];
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, k, o;

  for (k = 0; k < N; k++) {
    double x = v[k];

    for (o = 16; o > 0; o >>= 1)
      x += __shfl_down_sync (0xffffffffu, x, o);
    if (lane == 0)
      warp_sums[warp][k] = x;
  }
  __syncthreads ();
  if (threadIdx.x < N) {
    double s = 0.0;

    for (o = 0; o < MOTION_WARPS; o++)
      s += warp_sums[o][threadIdx.x];
    out[threadIdx.x] = s;
  }
}

/* Sums gx^2, gx gy, gy^2 over each cell of a w x h level (motion.c's
 * motion_texture_cells), one block per cell. */
__global__ void
motion_texture_kernel (const float *gx, const float *gy, int w, int h,
    double *cells)
{
  const int g = BSPLINE_MOTION_TEXTURE_GRID;
  int a = blockIdx.x % g, b = blockIdx.x / g;
  int i0 = w * a / g, i1 = w * (a + 1) / g, j0 = h * b / g;
  int j1 = h * (b + 1) / g, cw = i1 - i0, n = cw * (j1 - j0), k;
  double v[3] = { 0.0, 0.0, 0.0 };

  for (k = threadIdx.x; k < n; k += blockDim.x) {
    size_t q = (size_t) (j0 + k / cw) * w + i0 + k % cw;
    double x = gx[q], y = gy[q];

    v[0] += x * x;
    v[1] += x * y;
    v[2] += y * y;
  }
  motion_block_sum < 3 > (v, cells + 3 * blockIdx.x);
}

/* Bilinear sample of img at sample position (u, v), in double as the CPU
 * does it: (1 - fv) ((1 - fu) p00 + fu p01) + fv ((1 - fu) p10 + fu p11). */
__device__ double
motion_bilinear (const float *img, int w, double u, double v)
{
  int iu = (int) u, iv = (int) v;
  double fu = __dsub_rn (u, (double) iu), fv = __dsub_rn (v, (double) iv);
  double gu = __dsub_rn (1.0, fu), gv = __dsub_rn (1.0, fv);
  const float *p = img + (size_t) iv * w + iu;

  return __dadd_rn (__dmul_rn (gv, __dadd_rn (__dmul_rn (gu, (double) p[0]),
              __dmul_rn (fu, (double) p[1]))), __dmul_rn (fv,
          __dadd_rn (__dmul_rn (gu, (double) p[w]), __dmul_rn (fu,
                  (double) p[w + 1]))));
}

/* The coarse search's image rotated back about the centre, per angle
 * (cosines and sines computed on the host, as the CPU does), NAN
 * outside. */
__global__ void
motion_rotate_kernel (const float *img, int w, int h, const double2 * cs,
    float *rotated)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int a = blockIdx.z;
  double cx = 0.5 * w, cy = 0.5 * h, c = cs[a].x, s = cs[a].y;
  double x, y, u, v;
  float *out = rotated + (size_t) a * w * h + (size_t) j * w + i;

  if (i >= w || j >= h)
    return;
  x = __dsub_rn (__dadd_rn ((double) i, 0.5), cx);
  y = __dsub_rn (__dadd_rn ((double) j, 0.5), cy);
  u = __dsub_rn (__dadd_rn (__dsub_rn (__dmul_rn (c, x), __dmul_rn (s, y)),
          cx), 0.5);
  v = __dsub_rn (__dadd_rn (__dadd_rn (__dmul_rn (s, x), __dmul_rn (c, y)),
          cy), 0.5);
  if (!(u >= 0.0 && v >= 0.0 && u < w - 1 && v < h - 1)) {
    *out = __int_as_float (0x7fc00000);
    return;
  }
  *out = (float) motion_bilinear (img, w, u, v);
}

/* One block per (angle, shift): the sum of |rotated - template| (float
 * differences, double sum) over the template pixels whose shifted sample
 * lies in the level (motion.c's motion_search), and how many were
 * inside. */
__global__ void
motion_sad_kernel (const float *t, const float *rotated, int w, int h,
    int range, double *sad, unsigned *count)
{
  int side = 2 * range + 1, shift = blockIdx.x, a = blockIdx.y;
  int sx = shift % side - range, sy = shift / side - range;
  int i0 = sx < 0 ? -sx : 0, j0 = sy < 0 ? -sy : 0;
  int cols = w - (sx < 0 ? -sx : sx), n_pix = cols * (h - (sy < 0 ? -sy :
          sy)), k;
  const float *rot = rotated + (size_t) a * w * h;
  double v[1] = { 0.0 };
  unsigned n = 0;
  __shared__ unsigned warp_n[MOTION_WARPS];

  for (k = threadIdx.x; k < n_pix; k += blockDim.x) {
    int i = i0 + k % cols, j = j0 + k / cols;
    float d = __fsub_rn (rot[(size_t) (j + sy) * w + i + sx],
        t[(size_t) j * w + i]);

    if (d == d) {
      v[0] += fabsf (d);
      n++;
    }
  }
  for (k = 16; k > 0; k >>= 1)
    n += __shfl_down_sync (0xffffffffu, n, k);
  if ((threadIdx.x & 31) == 0)
    warp_n[threadIdx.x >> 5] = n;
  motion_block_sum < 1 > (v, sad + (size_t) a * side * side + shift);
  if (threadIdx.x == 0) {
    unsigned total = 0;

    for (k = 0; k < MOTION_WARPS; k++)
      total += warp_n[k];
    count[(size_t) a * side * side + shift] = total;
  }
}

/* bins of the histogram each lane of the median's warp holds */
#define MOTION_BINS_PER_LANE ((BSPLINE_MOTION_HIST_BINS + 31) / 32)

/* The median bin of the pass's histogram (the first bin where the count
 * from bin 0 reaches half the total, as motion.c's motion_residual_scale
 * finds it), -1 when it is empty, by one warp with no block barrier (the
 * block's first warp solves meanwhile): lane l holds bins
 * [l MOTION_BINS_PER_LANE, (l + 1) MOTION_BINS_PER_LANE) in registers, a
 * prefix sum over the lanes finds the lane that holds the median.  The
 * bins are read from L2 (__ldcg): other blocks' atomics put them there,
 * and the L1 of this SM may hold an older copy. */
__device__ int
motion_median_bin (const motion_gpu_accum * acc)
{
  const unsigned *hist = acc->hist;
  int lane = threadIdx.x & 31, b0 = lane * MOTION_BINS_PER_LANE, b, o;
  int found = -1, owner;
  unsigned bins[MOTION_BINS_PER_LANE];
  unsigned long long own = 0, incl, total, half, c;

#pragma unroll
  for (b = 0; b < MOTION_BINS_PER_LANE; b++) {
    bins[b] = b0 + b < BSPLINE_MOTION_HIST_BINS ? __ldcg (hist + b0 + b) : 0;
    own += bins[b];
  }
  incl = own;
  for (o = 1; o < 32; o <<= 1) {
    unsigned long long y = __shfl_up_sync (0xffffffffu, incl, o);

    if (lane >= o)
      incl += y;
  }
  total = __shfl_sync (0xffffffffu, incl, 31);
  if (total == 0)
    return -1;
  half = (total + 1) / 2;
  owner = __ffs (__ballot_sync (0xffffffffu, incl >= half)) - 1;
  c = incl - own;
#pragma unroll
  for (b = 0; b < MOTION_BINS_PER_LANE; b++) {
    c += bins[b];
    if (found < 0 && c >= half)
      found = b0 + b;
  }
  return __shfl_sync (0xffffffffu, found, owner);
}

/* One Gauss-Newton pass (motion.c's motion_gn_rows) by one block of the
 * grid, with the warp m and, in pass 1, the weights of `scale` (Tukey's
 * when tukey, else Huber's): for the template pixels (i, j), i, j
 * multiples of sampling inside the border, the image sampled at the warped
 * position, the residual, its histogram bin and, in pass 1, the weight and
 * the weighted sums of the normal equations, the block's into
 * partial[blockIdx.x], the histogram and the counts added into acc. */
template < int NP > __device__ void
motion_pass (const float *t, const float *tgx, const float *tgy, int w,
    int h, const float *im, double cx, double cy, int pass, int s,
    const double *m, int tukey, double scale, double *partial,
    motion_gpu_accum * acc)
{
  const int NT = NP * (NP + 1) / 2;
  __shared__ unsigned block_hist[BSPLINE_MOTION_HIST_BINS];
  __shared__ unsigned long long warp_counts[MOTION_WARPS][2];
  double v[NT + NP];
  int cols = (w - 1 - s + s - 1) / s, rows = (h - 1 - s + s - 1) / s, k;
  /* int: a level has far fewer than 2^31 pixels, and a 64-bit division
   * per pixel would lengthen every pass */
  int n_pix = (cols > 0 ? cols : 0) * (rows > 0 ? rows : 0), q;
  unsigned long long valid = 0, inliers = 0;

  for (k = 0; k < NT + NP; k++)
    v[k] = 0.0;
  for (k = threadIdx.x; k < BSPLINE_MOTION_HIST_BINS; k += blockDim.x)
    block_hist[k] = 0;
  __syncthreads ();
  for (q = blockIdx.x * blockDim.x + threadIdx.x; q < n_pix;
      q += gridDim.x * blockDim.x) {
    int i = s + s * (q % cols), j = s + s * (q / cols), bin;
    double x = (double) i + 0.5, y = (double) j + 0.5, r, wt, gx, gy, dx, dy;
    double u = __dsub_rn (__dadd_rn (__dadd_rn (__dmul_rn (m[0], x),
                __dmul_rn (m[1], y)), m[2]), 0.5);
    double vv = __dsub_rn (__dadd_rn (__dadd_rn (__dmul_rn (m[3], x),
                __dmul_rn (m[4], y)), m[5]), 0.5);
    double jac[NP];
    size_t tk = (size_t) j * w + i;

    if (!(u >= 0.0 && vv >= 0.0 && u < w - 1 && vv < h - 1))
      continue;
    r = __dsub_rn (motion_bilinear (im, w, u, vv), (double) t[tk]);
    bin = (int) __dmul_rn (fabs (r), BSPLINE_MOTION_HIST_SCALE);
    atomicAdd (&block_hist[bin < BSPLINE_MOTION_HIST_BINS - 1 ? bin :
            BSPLINE_MOTION_HIST_BINS - 1], 1u);
    if (pass == 0)
      continue;
    valid++;
    if (tukey) {
      double a = fabs (r), z;

      if (a >= scale) {
        wt = 0.0;
      } else {
        z = __dsub_rn (1.0, __dmul_rn (__ddiv_rn (r, scale),
                __ddiv_rn (r, scale)));
        wt = __dmul_rn (z, z);
      }
    } else {
      wt = fabs (r) <= scale ? 1.0 : __ddiv_rn (scale, fabs (r));
    }
    if (wt > 0.5)
      inliers++;
    if (wt == 0.0)
      continue;
    gx = tgx[tk];
    gy = tgy[tk];
    dx = __dsub_rn (x, cx);
    dy = __dsub_rn (y, cy);
    if (NP == 4) {
      jac[0] = __dadd_rn (__dmul_rn (gx, dx), __dmul_rn (gy, dy));
      jac[1] = __dsub_rn (__dmul_rn (gy, dx), __dmul_rn (gx, dy));
      jac[2] = gx;
      jac[3] = gy;
    } else {
      jac[0] = __dmul_rn (gx, dx);
      jac[1] = __dmul_rn (gx, dy);
      jac[2] = gx;
      jac[NP > 4 ? 3 : 0] = __dmul_rn (gy, dx);
      jac[NP > 4 ? 4 : 0] = __dmul_rn (gy, dy);
      jac[NP > 4 ? 5 : 0] = gy;
    }
    {
      int p, c, e = 0;

      for (p = 0; p < NP; p++) {
        double wj = __dmul_rn (wt, jac[p]);

        v[NT + p] = __dadd_rn (v[NT + p], __dmul_rn (wj, r));
        for (c = p; c < NP; c++, e++)
          v[e] = __dadd_rn (v[e], __dmul_rn (wj, jac[c]));
      }
    }
  }
  for (k = 16; k > 0; k >>= 1) {
    valid += __shfl_down_sync (0xffffffffu, valid, k);
    inliers += __shfl_down_sync (0xffffffffu, inliers, k);
  }
  if ((threadIdx.x & 31) == 0) {
    warp_counts[threadIdx.x >> 5][0] = valid;
    warp_counts[threadIdx.x >> 5][1] = inliers;
  }
  motion_block_sum < NT + NP > (v, partial + (size_t) blockIdx.x * (NT + NP));
  /* integers: the atomics' order does not change the totals */
  for (k = threadIdx.x; k < BSPLINE_MOTION_HIST_BINS; k += blockDim.x)
    if (block_hist[k])
      atomicAdd (&acc->hist[k], block_hist[k]);
  if (threadIdx.x == 0) {
    unsigned long long a = 0, b = 0;

    for (k = 0; k < MOTION_WARPS; k++) {
      a += warp_counts[k][0];
      b += warp_counts[k][1];
    }
    atomicAdd (&acc->valid, a);
    atomicAdd (&acc->inliers, b);
  }
  /* block_hist and warp_counts are read: the next pass may clear them */
  __syncthreads ();
}

/* After a pass, by every block (all read the same sums and compute the
 * same step, so that no second grid-wide barrier is needed to hand it
 * out): the partial sums of the n_blocks blocks added in a fixed order
 * (warp w takes blocks w, w + MOTION_WARPS, ..., then the warps' totals in
 * warp order) and, after pass 1, the step (motion.c's motion_refine_level)
 * by thread 0 while the second warp finds the residual scale from the
 * histogram (the step does not need it: it weighs the next pass), into
 * *st, this block's copy in shared memory. */
template < int NP > __device__ void
motion_take_step (const motion_gpu_job & job, int pass, double scale,
    int n_blocks, const double *partial, const motion_gpu_accum * acc,
    motion_gpu_state * st)
{
  const int NT = NP * (NP + 1) / 2, NS = NT + NP;
  __shared__ double warp_sums[MOTION_WARPS][MOTION_MAX_SUMS];
  __shared__ double sums[MOTION_MAX_SUMS];
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, k;

  if (pass == 1 && lane < NS) {
    double sum = 0.0;

    for (k = warp; k < n_blocks; k += MOTION_WARPS)
      sum += __ldcg (partial + (size_t) k * NS + lane);
    warp_sums[warp][lane] = sum;
  }
  __syncthreads ();
  if (warp == 1) {
    int k = motion_median_bin (acc);

    if (lane == 0)
      st->sigma = bspline_motion_scale_of_bin (k);
  } else if (warp == 0 && pass == 1) {
    if (lane < NS) {
      double sum = 0.0;

      for (k = 0; k < MOTION_WARPS; k++)
        sum += warp_sums[k][lane];
      sums[lane] = sum;
    }
    __syncwarp ();
    if (lane == 0) {
      double hh[NP * NP], b[NP];
      int p, c, e = 0, status, step = st->step;

      for (p = 0; p < NP * NP; p++)
        hh[p] = 0.0;
      for (p = 0; p < NP; p++) {
        b[p] = sums[NT + p];
        for (c = p; c < NP; c++, e++)
          hh[p * NP + c] = sums[e];
      }
      st->scale = scale;
      st->valid = __ldcg (&acc->valid);
      st->inliers = __ldcg (&acc->inliers);
      status = bspline_motion_gn_update (st->m, hh, b, NP, job.cx, job.cy,
          job.w, job.h, step, job.tolerance);
      if (status < 0) {
        st->done = 1;
        st->steps = -1;
      } else if (status > 0) {
        st->done = 1;
        st->steps = step + 1;
      } else if (step + 1 == job.max_steps) {
        st->done = 1;
        st->steps = job.max_steps;
      }
      st->step = step + 1;
    }
  }
  __syncthreads ();
}

/* Zeroes this block's share of an accumulator. */
__device__ void
motion_clear (motion_gpu_accum * acc)
{
  unsigned *words = (unsigned *) acc;
  unsigned k;

  for (k = blockIdx.x * blockDim.x + threadIdx.x; k < MOTION_ACCUM_WORDS;
      k += gridDim.x * blockDim.x)
    words[k] = 0;
}

/* The refinement of `job` at one level, all its steps in one cooperative
 * launch: pass k by every block into partial[k % 2] and accum[(turn + k)
 * % MOTION_TURNS], one grid-wide barrier, then every block takes the same
 * step from those sums and goes on to the next pass, until the step says
 * done; block 0 writes the result to *out.  Pass 0 first when job.sigma <
 * 0 (the residual scale is still unknown).
 *
 * Three accumulators in turn: while a block sums up pass k, a faster one
 * may already add pass k + 1 into the next accumulator, which was zeroed
 * before the barrier of pass k: during pass k - 1, when every block had
 * read it for pass k - 2.  accum[turn] is zero at the start; at the end
 * the one after the last pass's is, and the host takes it next. */
template < int NP > __global__ void
__launch_bounds__ (MOTION_THREADS)
motion_refine_kernel (const float *t, const float *tgx, const float *tgy,
    const float *im, motion_gpu_job job, int turn, double *partial,
    motion_gpu_accum * accum, motion_gpu_state * out)
{
  cg::grid_group grid = cg::this_grid ();
  __shared__ motion_gpu_state st;
  int pass = job.sigma < 0.0 ? 0 : 1, k;

  if (threadIdx.x == 0) {
    for (k = 0; k < 6; k++)
      st.m[k] = job.m[k];
    st.sigma = job.sigma;
    st.scale = 0.0;
    st.valid = 0;
    st.inliers = 0;
    st.step = 0;
    st.done = 0;
    st.steps = 0;
  }
  __syncthreads ();
  for (k = 0;; k++) {
    int tukey = st.step > 0, e;
    double m[6], scale = __dmul_rn (tukey ? BSPLINE_MOTION_TUKEY_C :
        BSPLINE_MOTION_HUBER_K, st.sigma);
    double *part = partial + (size_t) (k & 1) * MOTION_MAX_BLOCKS *
        MOTION_MAX_SUMS;
    motion_gpu_accum *acc = accum + (turn + k) % MOTION_TURNS;

    for (e = 0; e < 6; e++)
      m[e] = st.m[e];
    motion_clear (accum + (turn + k + 1) % MOTION_TURNS);
    motion_pass < NP > (t, tgx, tgy, job.w, job.h, im, job.cx, job.cy, pass,
        job.sampling, m, tukey, scale, part, acc);
    if (gridDim.x > 1)
      grid.sync ();
    else
      __syncthreads ();
    motion_take_step < NP > (job, pass, scale, gridDim.x, part, acc, &st);
    if (st.done)
      break;
    pass = 1;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    st.passes = k + 1;
    *out = st;
  }
}

/* ---- host ---- */

static int
motion_blocks (size_t n)
{
  size_t per_block = (size_t) MOTION_THREADS * MOTION_PIXELS_PER_THREAD;
  size_t b = (n + per_block - 1) / per_block;

  if (b < 1)
    b = 1;
  return b > MOTION_MAX_BLOCKS ? MOTION_MAX_BLOCKS : (int) b;
}

static dim3
motion_grid (int w, int h)
{
  return dim3 ((w + 31) / 32, (h + 7) / 8, 1);
}

static bspline_status
motion_gpu_pyramid (void *ctx, int index, const void *frame_unused)
{
  bspline_cuda_motion *m = (bspline_cuda_motion *) ctx;
  const bspline_luma_frame *f = m->frame;
  const bspline_motion_layout *lay = &m->layout;
  motion_gpu_level *lv = m->levels[index];
  const unsigned char *data;
  size_t stride;
  int l, n;

  (void) frame_unused;
  if (m->frame_on_device) {
    data = (const unsigned char *) f->data;
    stride = (size_t) f->stride;
  } else {
    /* the rows the analysis level reads, packed */
    size_t row = (size_t) f->width * f->pixel_stride, y;
    size_t rows = (size_t) lay->height[0] * lay->factor;

    if (row * rows > m->luma_dev_size) {
      cudaFree (m->luma_dev);
      m->luma_dev = NULL;
      m->luma_dev_size = 0;
      MOTION_TRY (m, cudaMalloc ((void **) &m->luma_dev, row * rows));
      m->luma_dev_size = row * rows;
    }
    if (row * rows > m->staging_size) {
      MOTION_TRY (m, cudaStreamSynchronize (m->stream));
      cudaFreeHost (m->staging);
      m->staging = NULL;
      m->staging_size = 0;
      MOTION_TRY (m, cudaHostAlloc (&m->staging, row * rows,
              cudaHostAllocDefault));
      m->staging_size = row * rows;
    } else {
      /* the staging buffer of an earlier upload may still be read */
      MOTION_TRY (m, cudaStreamSynchronize (m->stream));
    }
    for (y = 0; y < rows; y++)
      memcpy ((unsigned char *) m->staging + y * row,
          (const unsigned char *) f->data + y * f->stride, row);
    MOTION_TRY (m, cudaMemcpyAsync (m->luma_dev, m->staging, row * rows,
            cudaMemcpyHostToDevice, m->stream));
    data = m->luma_dev;
    stride = row;
  }
  motion_luma_kernel <<< motion_grid (lay->width[0], lay->height[0]),
      dim3 (32, 8), 0, m->stream >>> (data, stride, f->pixel_stride,
      f->offset_y, f->offset_r, f->offset_g, f->offset_b, lay->factor,
      lv[0].img, lay->width[0], lay->height[0]);
  MOTION_TRY (m, cudaGetLastError ());
  for (l = 1; l < lay->n_levels; l++) {
    motion_down_kernel <<< motion_grid (lay->width[l], lay->height[l]),
        dim3 (32, 8), 0, m->stream >>> (lv[l - 1].img, lay->width[l - 1],
        lv[l].img, lay->width[l], lay->height[l]);
    MOTION_TRY (m, cudaGetLastError ());
  }
  for (l = 0; l < lay->n_levels; l++) {
    motion_gradient_kernel <<< motion_grid (lay->width[l], lay->height[l]),
        dim3 (32, 8), 0, m->stream >>> (lv[l].img, lv[l].gx, lv[l].gy,
        lay->width[l], lay->height[l]);
    MOTION_TRY (m, cudaGetLastError ());
  }
  /* the texture sums of level 0, for when this frame is the template */
  n = 3 * BSPLINE_MOTION_TEXTURE_CELLS;
  motion_texture_kernel <<< BSPLINE_MOTION_TEXTURE_CELLS, MOTION_THREADS, 0,
      m->stream >>> (lv[0].gx, lv[0].gy, lay->width[0], lay->height[0],
      m->texture_dev + (size_t) n * index);
  MOTION_TRY (m, cudaGetLastError ());
  MOTION_TRY (m, cudaMemcpyAsync (m->texture_host + (size_t) n * index,
          m->texture_dev + (size_t) n * index, n * sizeof (double),
          cudaMemcpyDeviceToHost, m->stream));
  return BSPLINE_OK;

fail:
  return BSPLINE_ERROR_BACKEND;
}

/* The texture sums of the template: its pyramid was built, and its sums
 * copied, in the call of the frame before, which ended with its stream
 * synchronised. */
static bspline_status
motion_gpu_texture (void *ctx, int index, double *cells)
{
  bspline_cuda_motion *m = (bspline_cuda_motion *) ctx;
  size_t n = 3 * BSPLINE_MOTION_TEXTURE_CELLS;

  memcpy (cells, m->texture_host + n * index, n * sizeof (double));
  return BSPLINE_OK;
}

static bspline_status
motion_gpu_search (void *ctx, int template_index, int level, int range,
    const double *angles, int n_angles, double *cost, int *best_x,
    int *best_y, double *mean_cost)
{
  bspline_cuda_motion *m = (bspline_cuda_motion *) ctx;
  int w = m->layout.width[level], h = m->layout.height[level];
  int side = 2 * range + 1, a, sx, sy;
  double total = 0.0;
  long n_costs = 0;
  size_t n = (size_t) n_angles * side * side;
  double2 cs[MOTION_MAX_ANGLES];
  double2 *cs_dev = NULL;

  if (n_angles > MOTION_MAX_ANGLES) {
    snprintf (m->error, sizeof (m->error), "%d search angles: at most %d",
        n_angles, MOTION_MAX_ANGLES);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (n > m->search_capacity) {
    cudaFree (m->search_sad_dev);
    cudaFree (m->search_n_dev);
    cudaFreeHost (m->search_sad_host);
    cudaFreeHost (m->search_n_host);
    m->search_sad_dev = NULL;
    m->search_n_dev = NULL;
    m->search_sad_host = NULL;
    m->search_n_host = NULL;
    m->search_capacity = 0;
    MOTION_TRY (m, cudaMalloc ((void **) &m->search_sad_dev,
            n * sizeof (double)));
    MOTION_TRY (m, cudaMalloc ((void **) &m->search_n_dev,
            n * sizeof (unsigned)));
    MOTION_TRY (m, cudaHostAlloc ((void **) &m->search_sad_host,
            n * sizeof (double), cudaHostAllocDefault));
    MOTION_TRY (m, cudaHostAlloc ((void **) &m->search_n_host,
            n * sizeof (unsigned), cudaHostAllocDefault));
    m->search_capacity = n;
  }
  /* cos and sin on the host: the CPU search's values exactly */
  for (a = 0; a < n_angles; a++) {
    double r = angles[a] * (BSPLINE_STABILIZE_PI / 180.0);

    cs[a].x = cos (r);
    cs[a].y = sin (r);
  }
  /* the angles travel in the partial-sum buffer's tail, which no pass uses
   * at the same time */
  cs_dev = (double2 *) (m->partial + (size_t) 2 * MOTION_MAX_BLOCKS *
      MOTION_MAX_SUMS);
  MOTION_TRY (m, cudaMemcpyAsync (cs_dev, cs, n_angles * sizeof (double2),
          cudaMemcpyHostToDevice, m->stream));
  motion_rotate_kernel <<< dim3 ((w + 31) / 32, (h + 7) / 8, n_angles),
      dim3 (32, 8), 0, m->stream >>> (m->levels[template_index ^ 1][level].img,
      w, h, cs_dev, m->rotated);
  MOTION_TRY (m, cudaGetLastError ());
  motion_sad_kernel <<< dim3 (side * side, n_angles), MOTION_THREADS, 0,
      m->stream >>> (m->levels[template_index][level].img, m->rotated, w, h,
      range, m->search_sad_dev, m->search_n_dev);
  MOTION_TRY (m, cudaGetLastError ());
  MOTION_TRY (m, cudaMemcpyAsync (m->search_sad_host, m->search_sad_dev,
          n * sizeof (double), cudaMemcpyDeviceToHost, m->stream));
  MOTION_TRY (m, cudaMemcpyAsync (m->search_n_host, m->search_n_dev,
          n * sizeof (unsigned), cudaMemcpyDeviceToHost, m->stream));
  MOTION_TRY (m, cudaStreamSynchronize (m->stream));
  /* the choice of motion.c's motion_search, in its order */
  for (a = 0; a < n_angles; a++) {
    cost[a] = INFINITY;
    best_x[a] = 0;
    best_y[a] = 0;
    for (sy = -range; sy <= range; sy++)
      for (sx = -range; sx <= range; sx++) {
        size_t e = (size_t) a * side * side + (size_t) (sy + range) * side
            + (sx + range);
        long cnt = (long) m->search_n_host[e];
        double sad;

        if (cnt < (long) (w - 2 * range) * (h - 2 * range) / 2)
          continue;
        sad = m->search_sad_host[e] / (double) cnt;
        total += sad;
        n_costs++;
        if (sad < cost[a]) {
          cost[a] = sad;
          best_x[a] = sx;
          best_y[a] = sy;
        }
      }
  }
  *mean_cost = n_costs > 0 ? total / (double) n_costs : INFINITY;
  return BSPLINE_OK;

fail:
  return BSPLINE_ERROR_BACKEND;
}

/* A refinement at one level: one cooperative launch takes all its steps
 * on the device (motion_refine_kernel) and writes the result into mapped
 * host memory; one wait for it. */
static bspline_status
motion_gpu_refine (void *ctx, int template_index,
    const bspline_motion_refine * in, bspline_motion_refined * out)
{
  bspline_cuda_motion *m = (bspline_cuda_motion *) ctx;
  int l = in->level, np = in->n_params, s = in->sampling;
  int w = m->layout.width[l], h = m->layout.height[l];
  const motion_gpu_level *t = &m->levels[template_index][l];
  const motion_gpu_level *im = &m->levels[template_index ^ 1][l];
  size_t cols = w - 1 > s ? (size_t) (w - 1 - 1) / s : 0;
  size_t rows = h - 1 > s ? (size_t) (h - 1 - 1) / s : 0;
  int blocks = motion_blocks (cols * rows);
  motion_gpu_state *st = m->state_host;
  motion_gpu_job job;
  void *args[] = { (void *) &t->img, (void *) &t->gx, (void *) &t->gy,
    (void *) &im->img, &job, &m->accum_turn, &m->partial, &m->accum,
    &m->state_dev
  };

  if (blocks > m->coop_blocks[np == 6])
    blocks = m->coop_blocks[np == 6];
  memcpy (job.m, in->m, sizeof (job.m));
  job.cx = in->cx;
  job.cy = in->cy;
  job.sigma = in->sigma;
  job.tolerance = in->tolerance;
  job.w = w;
  job.h = h;
  job.sampling = s;
  job.max_steps = in->max_steps;
  if (m->accum_dirty) {
    MOTION_TRY (m, cudaMemsetAsync (m->accum, 0,
            MOTION_TURNS * sizeof (*m->accum), m->stream));
    m->accum_turn = 0;
  }
  /* dirty until this refinement is through */
  m->accum_dirty = 1;
  st->done = 0;
  MOTION_TRY (m, cudaLaunchCooperativeKernel (np == 4 ?
          (const void *) motion_refine_kernel < 4 > :
          (const void *) motion_refine_kernel < 6 >, dim3 (blocks),
          dim3 (MOTION_THREADS), args, 0, m->stream));
  MOTION_TRY (m, cudaStreamSynchronize (m->stream));
  if (!st->done) {
    snprintf (m->error, sizeof (m->error), "the motion refinement kernel "
        "returned no result");
    goto fail;
  }
  m->accum_dirty = 0;
  m->accum_turn = (m->accum_turn + st->passes) % MOTION_TURNS;
  memcpy (out->m, st->m, sizeof (out->m));
  out->sigma = st->sigma;
  out->scale = st->scale;
  out->steps = st->steps;
  out->valid = (long) st->valid;
  out->inliers = (long) st->inliers;
  return BSPLINE_OK;

fail:
  return BSPLINE_ERROR_BACKEND;
}

static const bspline_motion_ops motion_gpu_ops = {
  motion_gpu_pyramid, motion_gpu_texture, motion_gpu_search,
  motion_gpu_refine
};

/* ---- the API ---- */

/* Makes the estimator's device current.  An estimator made by
 * bspline_cuda_motion_new_current_context runs on its caller's context,
 * which the caller makes current: cudaSetDevice would replace it with the
 * device's primary context (as engine.c's select_device). */
static cudaError_t
motion_select_device (const bspline_cuda_motion * m)
{
  return m->bound ? cudaSuccess : cudaSetDevice (m->device);
}

extern "C" void
bspline_cuda_motion_free (bspline_cuda_motion * m)
{
  int p, l;

  if (m == NULL)
    return;
  motion_select_device (m);
  if (m->stream)
    cudaStreamSynchronize (m->stream);
  for (p = 0; p < 2; p++)
    for (l = 0; l < BSPLINE_MOTION_MAX_LEVELS; l++)
      cudaFree (m->levels[p][l].img);
  cudaFree (m->texture_dev);
  cudaFreeHost (m->texture_host);
  cudaFree (m->luma_dev);
  cudaFreeHost (m->staging);
  cudaFree (m->rotated);
  cudaFree (m->search_sad_dev);
  cudaFree (m->search_n_dev);
  cudaFreeHost (m->search_sad_host);
  cudaFreeHost (m->search_n_host);
  cudaFree (m->partial);
  cudaFree (m->accum);
  cudaFreeHost (m->state_host);
  if (m->copy_pool)
    bspline_pool_free (m->copy_pool);
  if (m->stream)
    cudaStreamDestroy (m->stream);
  bspline_motion_estimator_free (m->core);
  cudaGetLastError ();
  free (m);
}

static bspline_status
motion_new (int device_id, int bound, const bspline_motion_params * params,
    int width, int height, bspline_cuda_motion ** out, char *msg,
    size_t msg_len)
{
  bspline_cuda_motion *m;
  bspline_status status;
  int n = 0, p, l;
  size_t coarse;
  const char *fault = getenv ("BSPLINE_CUDA_FAULT");

  *out = NULL;
  {
    cudaError_t err = cudaGetDeviceCount (&n);

    cudaGetLastError ();
    if (err != cudaSuccess || n == 0) {
      snprintf (msg, msg_len, "no usable CUDA device: %s",
          err != cudaSuccess ? cudaGetErrorString (err) : "none found");
      return BSPLINE_ERROR_BACKEND;
    }
  }
  if (device_id < -1 || device_id >= n) {
    snprintf (msg, msg_len, "CUDA device %d does not exist (this machine "
        "has %d)", device_id, n);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  m = (bspline_cuda_motion *) calloc (1, sizeof (*m));
  if (m == NULL) {
    snprintf (msg, msg_len, "out of memory");
    return BSPLINE_ERROR_NO_MEMORY;
  }
  m->device = device_id < 0 ? 0 : device_id;
  m->bound = bound;
  if (bound && cudaGetDevice (&m->device) != cudaSuccess) {
    cudaGetLastError ();
    snprintf (msg, msg_len, "no CUDA context is current");
    free (m);
    return BSPLINE_ERROR_BACKEND;
  }
  m->width = width;
  m->height = height;
  if (fault && strncmp (fault, "motion:", 7) == 0)
    m->fault_countdown = strtol (fault + 7, NULL, 10);
  {
    /* the core estimator runs the control logic alone: no threads */
    bspline_motion_params one = *params;

    one.n_threads = 1;
    status = bspline_motion_estimator_new (&one, width, height, &m->core,
        msg, msg_len);
  }
  if (status != BSPLINE_OK) {
    free (m);
    return status;
  }
  bspline_motion_estimator_layout (m->core, &m->layout);
  MOTION_TRY (m, motion_select_device (m));
  /* blocking: the legacy default stream waits for its uploads */
  MOTION_TRY (m, cudaStreamCreate (&m->stream));
  for (p = 0; p < 2; p++)
    for (l = 0; l < m->layout.n_levels; l++) {
      size_t k = (size_t) m->layout.width[l] * m->layout.height[l];
      motion_gpu_level *lv = &m->levels[p][l];

      MOTION_TRY (m, cudaMalloc ((void **) &lv->img, 3 * k * sizeof (float)));
      lv->gx = lv->img + k;
      lv->gy = lv->img + 2 * k;
    }
  l = m->layout.n_levels - 1;
  coarse = (size_t) m->layout.width[l] * m->layout.height[l];
  MOTION_TRY (m, cudaMalloc ((void **) &m->rotated,
          MOTION_MAX_ANGLES * coarse * sizeof (float)));
  MOTION_TRY (m, cudaMalloc ((void **) &m->texture_dev,
          6 * BSPLINE_MOTION_TEXTURE_CELLS * sizeof (double)));
  MOTION_TRY (m, cudaHostAlloc ((void **) &m->texture_host,
          6 * BSPLINE_MOTION_TEXTURE_CELLS * sizeof (double),
          cudaHostAllocDefault));
  /* the partial sums of odd and even passes, then room for the search's
   * angles */
  MOTION_TRY (m, cudaMalloc ((void **) &m->partial,
          (size_t) 2 * MOTION_MAX_BLOCKS * MOTION_MAX_SUMS * sizeof (double)
          + MOTION_MAX_ANGLES * sizeof (double2)));
  MOTION_TRY (m, cudaMalloc ((void **) &m->accum,
          MOTION_TURNS * sizeof (*m->accum)));
  {
    int coop = 0, sms = 0, per_sm[2] = { 0, 0 };

    MOTION_TRY (m, cudaDeviceGetAttribute (&coop,
            cudaDevAttrCooperativeLaunch, m->device));
    MOTION_TRY (m, cudaDeviceGetAttribute (&sms,
            cudaDevAttrMultiProcessorCount, m->device));
    MOTION_TRY (m, cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm[0],
            motion_refine_kernel < 4 >, MOTION_THREADS, 0));
    MOTION_TRY (m, cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm[1],
            motion_refine_kernel < 6 >, MOTION_THREADS, 0));
    if (!coop || per_sm[0] < 1 || per_sm[1] < 1) {
      snprintf (m->error, sizeof (m->error), "CUDA device %d cannot run the "
          "motion refinement: no cooperative launch (%d) or no room for a "
          "block of %d threads", m->device, coop, MOTION_THREADS);
      goto fail;
    }
    m->coop_blocks[0] = per_sm[0] * sms;
    m->coop_blocks[1] = per_sm[1] * sms;
  }
  m->accum_dirty = 1;
  m->copy_pool = bspline_pool_new (MOTION_COPY_THREADS);
  if (m->copy_pool == NULL) {
    snprintf (m->error, sizeof (m->error), "out of memory");
    goto fail;
  }
  MOTION_TRY (m, cudaHostAlloc ((void **) &m->state_host,
          sizeof (*m->state_host), cudaHostAllocMapped));
  MOTION_TRY (m, cudaHostGetDevicePointer ((void **) &m->state_dev,
          m->state_host, 0));
  *out = m;
  return BSPLINE_OK;

fail:
  snprintf (msg, msg_len, "%s", m->error);
  bspline_cuda_motion_free (m);
  return BSPLINE_ERROR_BACKEND;
}

extern "C" bspline_status
bspline_cuda_motion_new (int device_id, const bspline_motion_params * params,
    int width, int height, bspline_cuda_motion ** out, char *msg,
    size_t msg_len)
{
  return motion_new (device_id, 0, params, width, height, out, msg, msg_len);
}

extern "C" bspline_status
bspline_cuda_motion_new_current_context (const bspline_motion_params *
    params, int width, int height, bspline_cuda_motion ** out, char *msg,
    size_t msg_len)
{
  return motion_new (-1, 1, params, width, height, out, msg, msg_len);
}

extern "C" void
bspline_cuda_motion_reset (bspline_cuda_motion * m)
{
  bspline_motion_estimator_reset (m->core);
}

extern "C" const char *
bspline_cuda_motion_last_error (const bspline_cuda_motion * m)
{
  return m->error;
}

extern "C" bspline_status
bspline_cuda_motion_estimate (bspline_cuda_motion * m,
    const bspline_luma_frame * frame, int on_device,
    bspline_motion_result * result)
{
  bspline_status status;

  memset (result, 0, sizeof (*result));
  bspline_affine_identity (&result->motion);
  if (frame == NULL || frame->data == NULL || frame->width != m->width
      || frame->height != m->height || frame->pixel_stride < 1
      || frame->stride < (ptrdiff_t) frame->width * frame->pixel_stride) {
    snprintf (m->error, sizeof (m->error), "not a %dx%d frame", m->width,
        m->height);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  m->error[0] = '\0';
  MOTION_TRY (m, motion_select_device (m));
  m->frame = frame;
  m->frame_on_device = on_device;
  status = bspline_motion_estimate_with (m->core, &motion_gpu_ops, m, frame,
      result);
  m->frame = NULL;
  if (status == BSPLINE_OK)
    MOTION_TRY (m, cudaStreamSynchronize (m->stream));
  else
    cudaStreamSynchronize (m->stream);
  return status;

fail:
  bspline_motion_estimator_reset (m->core);
  return BSPLINE_ERROR_BACKEND;
}

extern "C" void *
bspline_cuda_motion_device_alloc (bspline_cuda_motion * m, size_t size)
{
  void *ptr = NULL;

  MOTION_TRY (m, motion_select_device (m));
  MOTION_TRY (m, cudaMalloc (&ptr, size));
  return ptr;

fail:
  return NULL;
}

extern "C" void
bspline_cuda_motion_device_free (bspline_cuda_motion * m, void *device)
{
  if (device == NULL)
    return;
  motion_select_device (m);
  cudaFree (device);
  cudaGetLastError ();
}

/* Pieces of the copies into staging, for the copy pool. */
typedef struct
{
  int n;
  char *dst[MOTION_MAX_CHUNKS];
  const char *src[MOTION_MAX_CHUNKS];
  size_t size[MOTION_MAX_CHUNKS];
} motion_copies;

static void
motion_copy_task (void *ctx, int task, int worker)
{
  const motion_copies *c = (const motion_copies *) ctx;

  (void) worker;
  memcpy (c->dst[task], c->src[task], c->size[task]);
}

extern "C" bspline_status
bspline_cuda_motion_upload (bspline_cuda_motion * m, void *device, int n,
    const void *const *host, const size_t * offset, const size_t * size)
{
  struct cudaPointerAttributes attr;
  size_t end = 0;
  int k, direct = 1;

  MOTION_TRY (m, motion_select_device (m));
  for (k = 0; k < n; k++) {
    /* page-locked host memory, or device memory (a GstCudaMemory of the
     * current context): copied by the GPU, cudaMemcpyDefault telling the
     * two apart by their unified addresses */
    if (cudaPointerGetAttributes (&attr, host[k]) != cudaSuccess
        || (attr.type != cudaMemoryTypeHost
            && attr.type != cudaMemoryTypeDevice))
      direct = 0;
    cudaGetLastError ();
    if (offset[k] + size[k] > end)
      end = offset[k] + size[k];
  }
  if (direct) {
    for (k = 0; k < n; k++)
      MOTION_TRY (m, cudaMemcpyAsync ((char *) device + offset[k], host[k],
              size[k], cudaMemcpyDefault, m->stream));
    return BSPLINE_OK;
  }
  /* the staging buffer of the last upload may still be read */
  MOTION_TRY (m, cudaStreamSynchronize (m->stream));
  if (end > m->staging_size) {
    cudaFreeHost (m->staging);
    m->staging = NULL;
    m->staging_size = 0;
    MOTION_TRY (m, cudaHostAlloc (&m->staging, end, cudaHostAllocDefault));
    m->staging_size = end;
  }
  {
    /* in pieces of 256 KiB on a few threads */
    motion_copies c;
    size_t chunk = MOTION_COPY_CHUNK, o;

    while (end / chunk + (size_t) n > MOTION_MAX_CHUNKS)
      chunk *= 2;
    c.n = 0;
    for (k = 0; k < n; k++)
      for (o = 0; o < size[k]; o += chunk) {
        c.dst[c.n] = (char *) m->staging + offset[k] + o;
        c.src[c.n] = (const char *) host[k] + o;
        c.size[c.n] = size[k] - o < chunk ? size[k] - o : chunk;
        c.n++;
      }
    bspline_pool_run (m->copy_pool, c.n, motion_copy_task, &c);
  }
  MOTION_TRY (m, cudaMemcpyAsync (device, m->staging, end,
          cudaMemcpyHostToDevice, m->stream));
  return BSPLINE_OK;

fail:
  return BSPLINE_ERROR_BACKEND;
}
