/* motion.cu: the per-pixel passes of the motion estimation (core/motion.c)
 * in CUDA kernels, behind bspline-cuda-motion.h.
 *
 * The control logic (coarse hypotheses, step sizes, the robust scale from
 * the histogram, the 4x4 / 6x6 solves, the reliability tests) is
 * core/motion.c's, run through bspline_motion_estimate_with; the kernels
 * here compute what motion.c's CPU loops compute, pixel by pixel with the
 * same arithmetic: float pyramid and gradients, double warps, residuals,
 * weights and Jacobians.  The __f*_rn / __d*_rn intrinsics keep nvcc from
 * contracting a*b+c into a fused multiply-add where the CPU rounds twice,
 * so that the pyramids, the rotated images of the coarse search and every
 * pixel's residual come out of the CPU's operations in the CPU's order;
 * only the order of the sums differs (float rounding of the totals).
 *
 * Determinism: a pass writes one partial sum per block (the threads of a
 * block reduced by warp shuffles then across warps, in a fixed order) and
 * the last block to finish (or, for the texture, a one-block kernel) adds
 * the partials in block order; the number of blocks depends on the level's
 * size alone.  Only integers (pixel counts, histogram bins) use atomics,
 * which are exact.
 *
 * Each Gauss-Newton pass is one kernel, one copy of its sums and histogram
 * back (8 KiB) and one wait: the CPU needs them for the next step. */
#include "bspline-cuda-motion.h"
extern "C"
{
#include "internal.h"
}

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MOTION_THREADS 256
#define MOTION_WARPS (MOTION_THREADS / 32)
/* blocks of a pass: at most this many, each thread striding over pixels */
#define MOTION_MAX_BLOCKS 240
/* 21 entries of a 6x6 upper triangle + 6 of J^T W r */
#define MOTION_MAX_SUMS 27
#define MOTION_MAX_ANGLES 16
/* Threads of the copies into pinned staging: one thread copies about 10
 * GB/s, a 1080p I420 frame is 3 MB */
#define MOTION_COPY_THREADS 4
#define MOTION_COPY_CHUNK ((size_t) 256 << 10)
#define MOTION_MAX_CHUNKS 256

/* What a pass returns to the host, in one copy. */
typedef struct
{
  double sums[MOTION_MAX_SUMS];
  unsigned long long valid, inliers;
  unsigned hist[BSPLINE_MOTION_HIST_BINS];
} motion_gpu_result;

typedef struct
{
  float *img, *gx, *gy;
} motion_gpu_level;

struct bspline_cuda_motion
{
  int device;
  int width, height;
  bspline_motion_estimator *core;       /* the control logic, on the CPU */
  bspline_motion_layout layout;
  cudaStream_t stream;
  motion_gpu_level levels[2][BSPLINE_MOTION_MAX_LEVELS];
  double *texture_dev;          /* [2][3]: texture sums of each pyramid */
  double *texture_host;         /* pinned, [2][3] */
  unsigned char *luma_dev;      /* a host frame's luma rows, uploaded */
  size_t luma_dev_size;
  void *staging;                /* pinned */
  size_t staging_size;
  float *rotated;               /* coarse search: [angles][w * h] */
  double *search_sad_dev, *search_sad_host;     /* [angles][shifts] */
  unsigned *search_n_dev, *search_n_host;
  size_t search_capacity;       /* entries of the search arrays */
  double *partial;              /* [MOTION_MAX_BLOCKS][MOTION_MAX_SUMS] */
  /* two result buffers taking turns: a pass zeroes the next one's
   * histogram and counts; result_host pinned */
  motion_gpu_result *result_dev, *result_host;
  int result_turn;
  int results_dirty;            /* after a failure: zero both first */
  unsigned *blocks_done;        /* last-block counter of a pass */
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

/* Sums gx^2, gx gy, gy^2 over n gradients (motion.c's
 * motion_texture_sums), one partial per block. */
__global__ void
motion_texture_kernel (const float *gx, const float *gy, size_t n,
    double *partial)
{
  double v[3] = { 0.0, 0.0, 0.0 };
  size_t k;

  for (k = (size_t) blockIdx.x * blockDim.x + threadIdx.x; k < n;
      k += (size_t) gridDim.x * blockDim.x) {
    double x = gx[k], y = gy[k];

    v[0] += x * x;
    v[1] += x * y;
    v[2] += y * y;
  }
  motion_block_sum < 3 > (v, partial + (size_t) blockIdx.x * 3);
}

/* Adds the partials of n_blocks blocks in block order: sum k into
 * out[k]. */
__global__ void
motion_finish_kernel (const double *partial, int n_blocks, int n_sums,
    double *out)
{
  int k = threadIdx.x, b;
  double s = 0.0;

  if (k >= n_sums)
    return;
  for (b = 0; b < n_blocks; b++)
    s += partial[(size_t) b * n_sums + k];
  out[k] = s;
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

typedef struct
{
  double m[6], cx, cy, scale;
  int tukey, pass, sampling;
} motion_gpu_pass;

/* One Gauss-Newton pass (motion.c's motion_gn_rows): for the template
 * pixels (i, j), i, j multiples of sampling inside the border, the image
 * sampled at the warped position, the residual, its histogram bin and, in
 * pass 1, the weight and the weighted sums of the normal equations. */
template < int NP > __global__ void
motion_step_kernel (const float *t, const float *tgx, const float *tgy,
    int w, int h, const float *im, int iw, int ih, motion_gpu_pass st,
    double *partial, motion_gpu_result * res, motion_gpu_result * next,
    unsigned *blocks_done)
{
  unsigned *hist = res->hist;
  unsigned long long *counts = &res->valid;
  __shared__ int last;
  const int NT = NP * (NP + 1) / 2;
  double v[NT + NP];
  __shared__ unsigned block_hist[BSPLINE_MOTION_HIST_BINS];
  __shared__ unsigned long long warp_counts[MOTION_WARPS][2];
  int s = st.sampling, cols = (w - 1 - s + s - 1) / s;
  int rows = (h - 1 - s + s - 1) / s, k;
  size_t n_pix = (size_t) (cols > 0 ? cols : 0) * (rows > 0 ? rows : 0), q;
  unsigned long long valid = 0, inliers = 0;

  for (k = 0; k < NT + NP; k++)
    v[k] = 0.0;
  for (k = threadIdx.x; k < BSPLINE_MOTION_HIST_BINS; k += blockDim.x)
    block_hist[k] = 0;
  __syncthreads ();
  for (q = (size_t) blockIdx.x * blockDim.x + threadIdx.x; q < n_pix;
      q += (size_t) gridDim.x * blockDim.x) {
    int i = s + s * (int) (q % cols), j = s + s * (int) (q / cols), bin;
    double x = (double) i + 0.5, y = (double) j + 0.5, r, wt, gx, gy, dx, dy;
    double u = __dsub_rn (__dadd_rn (__dadd_rn (__dmul_rn (st.m[0], x),
                __dmul_rn (st.m[1], y)), st.m[2]), 0.5);
    double vv = __dsub_rn (__dadd_rn (__dadd_rn (__dmul_rn (st.m[3], x),
                __dmul_rn (st.m[4], y)), st.m[5]), 0.5);
    double jac[NP];
    size_t tk = (size_t) j * w + i;

    if (!(u >= 0.0 && vv >= 0.0 && u < iw - 1 && vv < ih - 1))
      continue;
    r = __dsub_rn (motion_bilinear (im, iw, u, vv), (double) t[tk]);
    bin = (int) __dmul_rn (fabs (r), BSPLINE_MOTION_HIST_SCALE);
    atomicAdd (&block_hist[bin < BSPLINE_MOTION_HIST_BINS - 1 ? bin :
            BSPLINE_MOTION_HIST_BINS - 1], 1u);
    if (st.pass == 0)
      continue;
    valid++;
    if (st.tukey) {
      double a = fabs (r), z;

      if (a >= st.scale) {
        wt = 0.0;
      } else {
        z = __dsub_rn (1.0, __dmul_rn (__ddiv_rn (r, st.scale),
                __ddiv_rn (r, st.scale)));
        wt = __dmul_rn (z, z);
      }
    } else {
      wt = fabs (r) <= st.scale ? 1.0 : __ddiv_rn (st.scale, fabs (r));
    }
    if (wt > 0.5)
      inliers++;
    if (wt == 0.0)
      continue;
    gx = tgx[tk];
    gy = tgy[tk];
    dx = __dsub_rn (x, st.cx);
    dy = __dsub_rn (y, st.cy);
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
      atomicAdd (&hist[k], block_hist[k]);
  if (threadIdx.x == 0) {
    unsigned long long a = 0, b = 0;

    for (k = 0; k < MOTION_WARPS; k++) {
      a += warp_counts[k][0];
      b += warp_counts[k][1];
    }
    atomicAdd (&counts[0], a);
    atomicAdd (&counts[1], b);
  }
  /* the last block to finish adds the partials, in block order, and
   * zeroes the next pass's histogram and counts */
  __threadfence ();
  __syncthreads ();
  if (threadIdx.x == 0)
    last = atomicAdd (blocks_done, 1u) == gridDim.x - 1;
  __syncthreads ();
  if (!last)
    return;
  __threadfence ();
  if (threadIdx.x < NT + NP) {
    const volatile double *vp = partial;
    double sum = 0.0;
    unsigned b;

    for (b = 0; b < gridDim.x; b++)
      sum += vp[(size_t) b * (NT + NP) + threadIdx.x];
    res->sums[threadIdx.x] = sum;
  }
  for (k = threadIdx.x; k < BSPLINE_MOTION_HIST_BINS; k += blockDim.x)
    next->hist[k] = 0;
  if (threadIdx.x == 0) {
    next->valid = 0;
    next->inliers = 0;
    *blocks_done = 0;
  }
}

/* ---- host ---- */

static int
motion_blocks (size_t n)
{
  size_t b = (n + MOTION_THREADS - 1) / MOTION_THREADS;

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
  n = motion_blocks ((size_t) lay->width[0] * lay->height[0]);
  motion_texture_kernel <<< n, MOTION_THREADS, 0, m->stream >>> (lv[0].gx,
      lv[0].gy, (size_t) lay->width[0] * lay->height[0], m->partial);
  MOTION_TRY (m, cudaGetLastError ());
  motion_finish_kernel <<< 1, 32, 0, m->stream >>> (m->partial, n, 3,
      m->texture_dev + 3 * index);
  MOTION_TRY (m, cudaGetLastError ());
  MOTION_TRY (m, cudaMemcpyAsync (m->texture_host + 3 * index,
          m->texture_dev + 3 * index, 3 * sizeof (double),
          cudaMemcpyDeviceToHost, m->stream));
  return BSPLINE_OK;

fail:
  return BSPLINE_ERROR_BACKEND;
}

/* The texture sums of the template: its pyramid was built, and its sums
 * copied, in the call of the frame before, which ended with its stream
 * synchronised. */
static bspline_status
motion_gpu_texture (void *ctx, int index, double sums[3])
{
  bspline_cuda_motion *m = (bspline_cuda_motion *) ctx;

  memcpy (sums, m->texture_host + 3 * index, 3 * sizeof (double));
  return BSPLINE_OK;
}

static bspline_status
motion_gpu_search (void *ctx, int template_index, int level, int range,
    const double *angles, int n_angles, double *cost, int *best_x,
    int *best_y)
{
  bspline_cuda_motion *m = (bspline_cuda_motion *) ctx;
  int w = m->layout.width[level], h = m->layout.height[level];
  int side = 2 * range + 1, a, sx, sy;
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
  cs_dev = (double2 *) (m->partial + (size_t) MOTION_MAX_BLOCKS *
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
        if (sad < cost[a]) {
          cost[a] = sad;
          best_x[a] = sx;
          best_y[a] = sy;
        }
      }
  }
  return BSPLINE_OK;

fail:
  return BSPLINE_ERROR_BACKEND;
}

static bspline_status
motion_gpu_step (void *ctx, int template_index,
    const bspline_motion_step * step, bspline_motion_sums * sums)
{
  bspline_cuda_motion *m = (bspline_cuda_motion *) ctx;
  int l = step->level, np = step->n_params, nt = np * (np + 1) / 2;
  int w = m->layout.width[l], h = m->layout.height[l], s = step->sampling;
  const motion_gpu_level *t = &m->levels[template_index][l];
  const motion_gpu_level *im = &m->levels[template_index ^ 1][l];
  size_t cols = w - 1 > s ? (size_t) (w - 1 - 1) / s : 0;
  size_t rows = h - 1 > s ? (size_t) (h - 1 - 1) / s : 0;
  int blocks = motion_blocks (cols * rows), p, q, e;
  motion_gpu_pass st;
  motion_gpu_result *res = m->result_host;
  motion_gpu_result *dev = m->result_dev + m->result_turn;
  motion_gpu_result *next = m->result_dev + (m->result_turn ^ 1);

  memcpy (st.m, step->m, sizeof (st.m));
  st.cx = step->cx;
  st.cy = step->cy;
  st.scale = step->scale;
  st.tukey = step->tukey;
  st.pass = step->pass;
  st.sampling = s;
  if (m->results_dirty) {
    MOTION_TRY (m, cudaMemsetAsync (m->result_dev, 0,
            2 * sizeof (*m->result_dev), m->stream));
    MOTION_TRY (m, cudaMemsetAsync (m->blocks_done, 0, sizeof (unsigned),
            m->stream));
    m->results_dirty = 0;
  }
  /* dirty until this pass is through */
  m->results_dirty = 1;
  if (np == 4)
    motion_step_kernel < 4 > <<< blocks, MOTION_THREADS, 0, m->stream >>>
        (t->img, t->gx, t->gy, w, h, im->img, w, h, st, m->partial, dev,
        next, m->blocks_done);
  else
    motion_step_kernel < 6 > <<< blocks, MOTION_THREADS, 0, m->stream >>>
        (t->img, t->gx, t->gy, w, h, im->img, w, h, st, m->partial, dev,
        next, m->blocks_done);
  MOTION_TRY (m, cudaGetLastError ());
  MOTION_TRY (m, cudaMemcpyAsync (res, dev, sizeof (*res),
          cudaMemcpyDeviceToHost, m->stream));
  MOTION_TRY (m, cudaStreamSynchronize (m->stream));
  m->result_turn ^= 1;
  m->results_dirty = 0;
  memset (sums, 0, sizeof (*sums));
  for (p = 0, e = 0; p < np; p++) {
    sums->b[p] = res->sums[nt + p];
    for (q = p; q < np; q++, e++)
      sums->h[p * np + q] = res->sums[e];
  }
  sums->valid = (long) res->valid;
  sums->inliers = (long) res->inliers;
  memcpy (sums->hist, res->hist, sizeof (sums->hist));
  return BSPLINE_OK;

fail:
  return BSPLINE_ERROR_BACKEND;
}

static const bspline_motion_ops motion_gpu_ops = {
  motion_gpu_pyramid, motion_gpu_texture, motion_gpu_search, motion_gpu_step
};

/* ---- the API ---- */

extern "C" void
bspline_cuda_motion_free (bspline_cuda_motion * m)
{
  int p, l;

  if (m == NULL)
    return;
  cudaSetDevice (m->device);
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
  cudaFree (m->result_dev);
  cudaFree (m->blocks_done);
  cudaFreeHost (m->result_host);
  if (m->copy_pool)
    bspline_pool_free (m->copy_pool);
  if (m->stream)
    cudaStreamDestroy (m->stream);
  bspline_motion_estimator_free (m->core);
  cudaGetLastError ();
  free (m);
}

extern "C" bspline_status
bspline_cuda_motion_new (int device_id, const bspline_motion_params * params,
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
  MOTION_TRY (m, cudaSetDevice (m->device));
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
  MOTION_TRY (m, cudaMalloc ((void **) &m->texture_dev, 6 * sizeof (double)));
  MOTION_TRY (m, cudaHostAlloc ((void **) &m->texture_host,
          6 * sizeof (double), cudaHostAllocDefault));
  /* the partial sums, then room for the search's angles */
  MOTION_TRY (m, cudaMalloc ((void **) &m->partial,
          (size_t) MOTION_MAX_BLOCKS * MOTION_MAX_SUMS * sizeof (double)
          + MOTION_MAX_ANGLES * sizeof (double2)));
  MOTION_TRY (m, cudaMalloc ((void **) &m->result_dev,
          2 * sizeof (*m->result_dev)));
  MOTION_TRY (m, cudaMalloc ((void **) &m->blocks_done, sizeof (unsigned)));
  m->results_dirty = 1;
  m->copy_pool = bspline_pool_new (MOTION_COPY_THREADS);
  if (m->copy_pool == NULL) {
    snprintf (m->error, sizeof (m->error), "out of memory");
    goto fail;
  }
  MOTION_TRY (m, cudaHostAlloc ((void **) &m->result_host,
          sizeof (*m->result_host), cudaHostAllocDefault));
  *out = m;
  return BSPLINE_OK;

fail:
  snprintf (msg, msg_len, "%s", m->error);
  bspline_cuda_motion_free (m);
  return BSPLINE_ERROR_BACKEND;
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
  MOTION_TRY (m, cudaSetDevice (m->device));
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

  MOTION_TRY (m, cudaSetDevice (m->device));
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
  cudaSetDevice (m->device);
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
  int k, pinned = 1;

  MOTION_TRY (m, cudaSetDevice (m->device));
  for (k = 0; k < n; k++) {
    if (cudaPointerGetAttributes (&attr, host[k]) != cudaSuccess
        || attr.type != cudaMemoryTypeHost)
      pinned = 0;
    cudaGetLastError ();
    if (offset[k] + size[k] > end)
      end = offset[k] + size[k];
  }
  if (pinned) {
    for (k = 0; k < n; k++)
      MOTION_TRY (m, cudaMemcpyAsync ((char *) device + offset[k], host[k],
              size[k], cudaMemcpyHostToDevice, m->stream));
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
