/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* engine.c: host side of the GPU engine (plain C on the CUDA runtime API).
 *
 * The runtime is linked statically (libcudart_static), which opens the
 * driver (libcuda) with dlopen on first use: without a driver every call
 * fails with a CUDA error instead of the plugin failing to load. */
#include "atlas.h"
#include "bspline-cuda.h"
#include "bspline-stmap.h"
#include "cuda-fold.h"
#include "cuda-kernels.h"
#include "resample.h"

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A device buffer that only grows. */
typedef struct
{
  void *ptr;
  size_t size;
} device_buffer;

/* Pinned host memory that only grows. */
typedef struct
{
  void *ptr;
  size_t size;
} host_buffer;

/* The device copy of a plan's separable tables. */
typedef struct
{
  device_buffer x_index, y_index, x_weight, y_weight, x_first, y_first;
  unsigned long serial;         /* plan whose tables these are, 0: none */
  unsigned long used;           /* the slot's clock when last used */
  int x_dir, y_dir, x_margin, y_margin, y_most; /* of those tables
                                                 * (fused_axis) */
} table_copy;

/* Tables kept per slot: a least-squares reduction runs two plans a
 * frame (core/resample/reduce.c). */
#define SLOT_TABLES 2

/* The lens table (cuda-kernels.h) of a float plan with a lens or STMap
 * stage, made on the plan's second run in the slot (a plan run once, such
 * as bsplinestabilize's of each frame, does not pay for it); one per
 * plane of a frame.  On the H100, a 4K fisheye undistortion took 328
 * against 595-601 us a frame without it (docs/benchmarks.md). */
typedef struct
{
  device_buffer xy;
  device_buffer wide;           /* a widening plan's list of widened
                                 * pixels (bspline_gpu_lens_wide_list) */
  unsigned long serial;         /* plan seen, 0: none */
  int ready;                    /* xy holds its table */
  unsigned long used;           /* the slot's clock when last used */
} lens_copy;
#define SLOT_LENS 4

/* The gather table of a projection input's atlas (core/projection/
 * atlas.h), copied once per plan, one per plane of a frame. */
typedef struct
{
  device_buffer index;
  unsigned long serial;         /* plan seen, 0: none */
  unsigned long used;           /* the slot's clock when last used */
} atlas_copy;
#define SLOT_ATLAS 4

/* The levels of a lens plan's widened kernel (bspline-stage.h; made by
 * ripmap.cu, in the layout of core/resample/ripmap.c): the planes of a
 * slot, made anew each frame for the plan run, and for each of the last
 * plans run there the levels it needs (its pixels' levels and the levels
 * those are made from), found once per plan (bspline_gpu_lens_levels),
 * and its device table of the planes (f->levels), copied again only
 * where a plane moved.  The planes are shared by the plans run in the
 * slot, which its stream orders. */
#define SLOT_LEVEL_PLANS 4
typedef struct
{
  unsigned long serial;         /* plan, 0: none */
  unsigned long used;           /* the slot's clock when last used */
  unsigned char need[BSPLINE_RIPMAP_LEVELS][BSPLINE_RIPMAP_LEVELS];
  device_buffer table;
  const void *copied[BSPLINE_RIPMAP_LEVELS * BSPLINE_RIPMAP_LEVELS];
  int table_ready;              /* table holds copied[] */
} level_need;

typedef struct
{
  device_buffer plane[BSPLINE_RIPMAP_LEVELS][BSPLINE_RIPMAP_LEVELS];
  device_buffer count;          /* bspline_gpu_lens_levels' counts */
  level_need plans[SLOT_LEVEL_PLANS];
} level_copy;

/* A binary16 coefficient plane of precision=fast (cuda-kernels.h,
 * bspline_gpu_half) and the texture object bound to it, one per plane
 * size of a slot's frames: a frame's planes of other sizes take other
 * ones, so no object is destroyed while a kernel of the slot's frame in
 * flight reads it. */
typedef struct
{
  device_buffer plane;
  cudaTextureObject_t texture;
  int width, height, channels;  /* 0: none */
  size_t pitch;                 /* bytes */
  unsigned long used;           /* the slot's clock when last used */
} half_copy;
#define SLOT_HALF 4

/* The device copy of a folded reduction's tables (fold.cu), one per
 * plane of a frame: x's and y's source indices, x's and y's first taps
 * per output (bspline_gpu_fold_axis.at), then x's and y's weights. */
typedef struct
{
  device_buffer data;
  unsigned long serial;         /* plan whose tables these are, 0: none */
  unsigned long used;           /* the slot's clock when last used */
} fold_copy;
#define SLOT_FOLDS 4

/* One frame in flight: its stream, device buffers, the device copies of
 * the separable tables of the plans it last ran, a reduction's
 * intermediate plane and the binary16 planes of precision=fast. */
typedef struct
{
  cudaStream_t stream;
  cudaEvent_t done;
  int busy;
  device_buffer src, coef, scratch, tmp, out, inter, fine;
  /* a projection input's atlas (one frame's planes in turn, on the
   * slot's stream) and its planes' tables */
  device_buffer atlas;
  atlas_copy atlas_tables[SLOT_ATLAS];
  table_copy tables[SLOT_TABLES];
  fold_copy folds[SLOT_FOLDS];
  unsigned long clock;
  half_copy half[SLOT_HALF];
  host_buffer staging_in, staging_out;
  bspline_image dst;            /* where finish copies staging_out */
  int dst_staged;
  /* the STMap stages' coefficients, per slot and per stage of the chain
   * (a plan's lens[k] reads stmap_copy[k]): a slot is reused only once
   * its last frame is done, so a new map never overwrites one a kernel
   * still reads; the slot holds a reference to each map it copied */
  device_buffer stmap_copy[BSPLINE_CHAIN_MAX_LENSES];
  bspline_stmap *stmap_of[BSPLINE_CHAIN_MAX_LENSES];
  lens_copy lens[SLOT_LENS];
  level_copy levels;
  /* gamma-mode=remap (bspline_cuda_submit_linear): the planes in linear
   * light and the device copies of the tables of transfer.c, made for
   * the transfer function and bits of key (transfer_key; 0: none) */
  device_buffer linear_src, linear_dst, decode, threshold;
  int decode_key, threshold_key;
} slot;

struct bspline_cuda
{
  int device;
  int bound;                    /* on the caller's current context */
  char name[256];
  slot slots[BSPLINE_CUDA_SLOTS];
  slot device_slot;             /* buffers of bspline_cuda_launch_on_device */
  int fault_kind;               /* BSPLINE_CUDA_FAULT, FAULT_NONE if unset */
  long fault_countdown;
  int fault_injected;
  /* BSPLINE_CUDA_LENS_TABLE=0: no lens tables, every pixel evaluates its
   * stage (benchmarks measure both ways in one run) */
  int no_lens_table;
  /* BSPLINE_CUDA_FAST_TEXTURE=1: precision=fast takes the binary16 plane
   * wherever it can, also where the float kernels are faster (the tests
   * and benchmarks measure both; uses_half) */
  int fast_texture;
  /* BSPLINE_CUDA_FOLD=0: least-squares reductions run as two plans
   * where they could fold (the benchmarks measure both) */
  int no_fold;
  bspline_pool *copiers;        /* staging copies, made on first use */
  char error[512];
};

/* Fault injection, for the tests of what the element does when the GPU
 * fails: BSPLINE_CUDA_FAULT=KIND:N (KIND alloc, copy or launch) makes the
 * N-th call of that kind of each engine fail with the error CUDA would
 * give (out of memory, an unknown copy error, a launch failure). */
typedef enum
{
  FAULT_NONE = -1,
  FAULT_ALLOC = 0,
  FAULT_COPY = 1,
  FAULT_LAUNCH = 2
} fault_kind;

static cudaError_t
engine_fault (bspline_cuda * cuda, fault_kind kind)
{
  static const cudaError_t injected[] = { cudaErrorMemoryAllocation,
    cudaErrorUnknown, cudaErrorLaunchFailure
  };
  if (kind == FAULT_NONE || kind != cuda->fault_kind)
    return cudaSuccess;
  if (--cuda->fault_countdown != 0)
    return cudaSuccess;
  cuda->fault_injected = 1;
  return injected[kind];
}

/* Every CUDA call goes through CUDA_TRY (or CUDA_CHECK, for calls no fault
 * is injected into): on failure the engine's error names the call and
 * CUDA's error string, and control goes to `fail`. */
#define CUDA_TRY(cuda, kind, call) \
  do { \
    cudaError_t err_ = engine_fault ((cuda), (kind)); \
    if (err_ == cudaSuccess) \
      err_ = (call); \
    if (err_ != cudaSuccess) { \
      snprintf ((cuda)->error, sizeof ((cuda)->error), "%s failed: %s (%s)%s", \
          #call, cudaGetErrorString (err_), cudaGetErrorName (err_), \
          (cuda)->fault_injected ? " [injected by BSPLINE_CUDA_FAULT]" : ""); \
      goto fail; \
    } \
  } while (0)
#define CUDA_CHECK(cuda, call) CUDA_TRY (cuda, FAULT_NONE, call)

/* Makes the engine's device current.  An engine made by
 * bspline_cuda_new_current_context runs on its caller's context, which
 * the caller makes current: cudaSetDevice would replace it with the
 * device's primary context. */
static cudaError_t
select_device (const bspline_cuda * cuda)
{
  return cuda->bound ? cudaSuccess : cudaSetDevice (cuda->device);
}

int
bspline_cuda_device_count (char *msg, size_t msg_len)
{
  int n = 0;
  cudaError_t err = cudaGetDeviceCount (&n);
  if (err != cudaSuccess) {
    bspline_set_error (msg, msg_len, "no usable CUDA device: %s",
        cudaGetErrorString (err));
    /* the failed query leaves an error in this thread's state */
    cudaGetLastError ();
    return 0;
  }
  if (n == 0)
    bspline_set_error (msg, msg_len, "no CUDA device found");
  return n;
}

static void
buffer_free (device_buffer * b)
{
  if (b->ptr)
    cudaFree (b->ptr);
  b->ptr = NULL;
  b->size = 0;
}

static cudaError_t
buffer_ensure (device_buffer * b, size_t size)
{
  cudaError_t err;
  if (size <= b->size)
    return cudaSuccess;
  buffer_free (b);
  err = cudaMalloc (&b->ptr, size);
  if (err == cudaSuccess)
    b->size = size;
  else
    b->ptr = NULL;
  return err;
}

/* buffer_ensure for a level of a lens plan's widened kernel (lens_levels:
 * the engine's error then names it). */
static cudaError_t
level_plane_ensure (device_buffer * b, size_t size)
{
  return buffer_ensure (b, size);
}

static void
host_free (host_buffer * b)
{
  if (b->ptr)
    cudaFreeHost (b->ptr);
  b->ptr = NULL;
  b->size = 0;
}

static cudaError_t
host_ensure (host_buffer * b, size_t size)
{
  cudaError_t err;
  if (size <= b->size)
    return cudaSuccess;
  host_free (b);
  err = cudaHostAlloc (&b->ptr, size, cudaHostAllocDefault);
  if (err == cudaSuccess)
    b->size = size;
  else
    b->ptr = NULL;
  return err;
}

static void
half_free (half_copy * hc)
{
  if (hc->texture)
    cudaDestroyTextureObject (hc->texture);
  hc->texture = 0;
  buffer_free (&hc->plane);
  hc->width = hc->height = hc->channels = 0;
}

static void
slot_free (slot * sl)
{
  int i;
  if (sl->stream)
    cudaStreamSynchronize (sl->stream);
  for (i = 0; i < SLOT_HALF; i++)
    half_free (&sl->half[i]);
  buffer_free (&sl->src);
  buffer_free (&sl->coef);
  buffer_free (&sl->scratch);
  buffer_free (&sl->tmp);
  buffer_free (&sl->out);
  buffer_free (&sl->inter);
  buffer_free (&sl->fine);
  buffer_free (&sl->atlas);
  for (i = 0; i < SLOT_ATLAS; i++)
    buffer_free (&sl->atlas_tables[i].index);
  buffer_free (&sl->linear_src);
  buffer_free (&sl->linear_dst);
  buffer_free (&sl->decode);
  buffer_free (&sl->threshold);
  for (i = 0; i < BSPLINE_CHAIN_MAX_LENSES; i++) {
    buffer_free (&sl->stmap_copy[i]);
    bspline_stmap_unref (sl->stmap_of[i]);
    sl->stmap_of[i] = NULL;
  }
  for (i = 0; i < BSPLINE_RIPMAP_LEVELS * BSPLINE_RIPMAP_LEVELS; i++)
    buffer_free (&sl->levels.plane[i / BSPLINE_RIPMAP_LEVELS]
        [i % BSPLINE_RIPMAP_LEVELS]);
  for (i = 0; i < SLOT_LEVEL_PLANS; i++)
    buffer_free (&sl->levels.plans[i].table);
  buffer_free (&sl->levels.count);
  for (i = 0; i < SLOT_LENS; i++) {
    buffer_free (&sl->lens[i].xy);
    buffer_free (&sl->lens[i].wide);
    sl->lens[i].serial = 0;
    sl->lens[i].ready = 0;
  }
  for (i = 0; i < SLOT_FOLDS; i++) {
    buffer_free (&sl->folds[i].data);
    sl->folds[i].serial = 0;
  }
  for (i = 0; i < SLOT_TABLES; i++) {
    table_copy *tc = &sl->tables[i];
    buffer_free (&tc->x_index);
    buffer_free (&tc->y_index);
    buffer_free (&tc->x_weight);
    buffer_free (&tc->y_weight);
    buffer_free (&tc->x_first);
    buffer_free (&tc->y_first);
  }
  host_free (&sl->staging_in);
  host_free (&sl->staging_out);
  if (sl->done)
    cudaEventDestroy (sl->done);
  if (sl->stream)
    cudaStreamDestroy (sl->stream);
  memset (sl, 0, sizeof (*sl));
}

void
bspline_cuda_free (bspline_cuda * cuda)
{
  int i;
  if (!cuda)
    return;
  select_device (cuda);
  for (i = 0; i < BSPLINE_CUDA_SLOTS; i++)
    slot_free (&cuda->slots[i]);
  slot_free (&cuda->device_slot);
  bspline_pool_free (cuda->copiers);
  free (cuda);
}

/* Copies between a frame in pageable memory and its pinned staging
 * buffer, rows of `row` bytes: one thread memcpy's about 10 GB/s, so an
 * 8 MB 1080p RGBA frame took about as long as the GPU's whole work on it
 * (docs/notes/gpu-performance-notes.md, v12); frames of a megabyte or
 * more are split between up to STAGING_THREADS threads, no more than the
 * machine's cores (the caller and a pool made on first use; where the pool
 * cannot be made, the caller alone). */
#define STAGING_THREADS 4
#define STAGING_PARALLEL_BYTES (1 << 20)

typedef struct
{
  char *dst;
  const char *src;
  size_t dst_stride, src_stride, row;
  int height, parts;
} staging_copy;

static void
staging_copy_part (void *ctx, int task, int worker)
{
  const staging_copy *c = ctx;
  const int y0 = (int) ((long long) c->height * task / c->parts);
  const int y1 = (int) ((long long) c->height * (task + 1) / c->parts);
  int y;
  (void) worker;
  if (c->dst_stride == c->row && c->src_stride == c->row) {
    memcpy (c->dst + (size_t) y0 * c->row, c->src + (size_t) y0 * c->row,
        (size_t) (y1 - y0) * c->row);
    return;
  }
  for (y = y0; y < y1; y++)
    memcpy (c->dst + (size_t) y * c->dst_stride,
        c->src + (size_t) y * c->src_stride, c->row);
}

static void
copy_rows (bspline_cuda * cuda, void *dst, size_t dst_stride,
    const void *src, size_t src_stride, size_t row, int height)
{
  staging_copy c = { dst, src, dst_stride, src_stride, row, height, 1 };
  if (row * (size_t) height >= STAGING_PARALLEL_BYTES && height >= 4) {
    if (cuda->copiers == NULL) {
      const int cores = bspline_online_cores ();
      cuda->copiers = bspline_pool_new (cores < STAGING_THREADS ? cores :
          STAGING_THREADS);
    }
    if (cuda->copiers != NULL)
      c.parts = bspline_pool_size (cuda->copiers);
  }
  if (c.parts > 1)
    bspline_pool_run (cuda->copiers, c.parts, staging_copy_part, &c);
  else
    staging_copy_part (&c, 0, 0);
}

static bspline_status
engine_new (int device_id, int bound, bspline_cuda ** out, char *msg,
    size_t msg_len)
{
  bspline_cuda *cuda;
  struct cudaDeviceProp prop;
  int n = bspline_cuda_device_count (msg, msg_len), i;

  *out = NULL;
  if (n == 0)
    return BSPLINE_ERROR_BACKEND;
  if (device_id < -1 || device_id >= n) {
    bspline_set_error (msg, msg_len, "CUDA device %d does not exist (this "
        "machine has %d)", device_id, n);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  cuda = calloc (1, sizeof (*cuda));
  if (!cuda) {
    bspline_set_error (msg, msg_len, "out of memory");
    return BSPLINE_ERROR_NO_MEMORY;
  }
  cuda->device = device_id < 0 ? 0 : device_id;
  cuda->fault_kind = FAULT_NONE;
  {
    const char *fault = getenv ("BSPLINE_CUDA_FAULT");
    static const char *const kinds[] = { "alloc:", "copy:", "launch:" };
    int k;
    for (k = 0; fault && k < 3; k++)
      if (strncmp (fault, kinds[k], strlen (kinds[k])) == 0) {
        cuda->fault_kind = k;
        cuda->fault_countdown = strtol (fault + strlen (kinds[k]), NULL, 10);
      }
  }
  cuda->no_lens_table = getenv ("BSPLINE_CUDA_LENS_TABLE")
      && strcmp (getenv ("BSPLINE_CUDA_LENS_TABLE"), "0") == 0;
  cuda->fast_texture = getenv ("BSPLINE_CUDA_FAST_TEXTURE")
      && strcmp (getenv ("BSPLINE_CUDA_FAST_TEXTURE"), "1") == 0;
  cuda->no_fold = getenv ("BSPLINE_CUDA_FOLD")
      && strcmp (getenv ("BSPLINE_CUDA_FOLD"), "0") == 0;
  cuda->bound = bound;
  if (bound)
    CUDA_CHECK (cuda, cudaGetDevice (&cuda->device));
  CUDA_CHECK (cuda, select_device (cuda));
  CUDA_CHECK (cuda, cudaGetDeviceProperties (&prop, cuda->device));
  snprintf (cuda->name, sizeof (cuda->name), "%s", prop.name);
  for (i = 0; i < BSPLINE_CUDA_SLOTS; i++) {
    CUDA_CHECK (cuda, cudaStreamCreateWithFlags (&cuda->slots[i].stream,
            cudaStreamNonBlocking));
    CUDA_CHECK (cuda, cudaEventCreateWithFlags (&cuda->slots[i].done,
            cudaEventDisableTiming));
  }
  *out = cuda;
  return BSPLINE_OK;

fail:
  bspline_set_error (msg, msg_len, "%s", cuda->error);
  bspline_cuda_free (cuda);
  return BSPLINE_ERROR_BACKEND;
}

bspline_status
bspline_cuda_new (int device_id, bspline_cuda ** out, char *msg, size_t msg_len)
{
  return engine_new (device_id, 0, out, msg, msg_len);
}

bspline_status
bspline_cuda_new_current_context (bspline_cuda ** out, char *msg,
    size_t msg_len)
{
  return engine_new (-1, 1, out, msg, msg_len);
}

const char *
bspline_cuda_last_error (const bspline_cuda * cuda)
{
  return cuda->error;
}

int
bspline_cuda_device_memory (int device_id, size_t *free_bytes,
    size_t *total_bytes)
{
  if (cudaSetDevice (device_id < 0 ? 0 : device_id) != cudaSuccess
      || cudaMemGetInfo (free_bytes, total_bytes) != cudaSuccess) {
    cudaGetLastError ();
    return 0;
  }
  return 1;
}

const char *
bspline_cuda_device_name (const bspline_cuda * cuda)
{
  return cuda->name;
}

void *
bspline_cuda_host_alloc (size_t size)
{
  void *ptr = NULL;
  if (cudaHostAlloc (&ptr, size, cudaHostAllocPortable) != cudaSuccess) {
    cudaGetLastError ();
    return NULL;
  }
  return ptr;
}

void
bspline_cuda_host_free (void *ptr)
{
  if (ptr)
    cudaFreeHost (ptr);
}

static size_t
row_bytes (const bspline_image * img)
{
  return bspline_sample_size (img->type) * img->channels * (size_t) img->width;
}

/* Row pitch on the device: rows start on 256-byte boundaries. */
static size_t
device_pitch (const bspline_image * img)
{
  return (row_bytes (img) + 255) & ~(size_t) 255;
}

/* Whether every byte of the image lies in page-locked memory, which the
 * copy engines read and write without a staging copy. */
static int
is_pinned (const void *ptr)
{
  struct cudaPointerAttributes attr;
  if (cudaPointerGetAttributes (&attr, ptr) != cudaSuccess) {
    cudaGetLastError ();
    return 0;
  }
  return attr.type == cudaMemoryTypeHost;
}

static void
describe_frame (const bspline_plan * plan, const bspline_image * src,
    const bspline_image * dst, bspline_gpu_frame * f)
{
  int i;
  memset (f, 0, sizeof (*f));
  f->use_double = plan->use_double;
  f->channels = plan->channels;
  f->src_width = plan->src_width;
  f->src_height = plan->src_height;
  f->dst_width = plan->dst_width;
  f->dst_height = plan->dst_height;
  f->pad = plan->pad;
  f->boundary = plan->params.boundary;
  f->n_poles = plan->setup.n_poles;
  for (i = 0; i < plan->setup.n_poles; i++) {
    f->poles[i] = plan->setup.poles[i];
    f->truncation[i] = plan->setup.truncation[i];
  }
  f->gain = plan->gain;
  f->gain2 = plan->gain2;
  f->filter_x = plan->filter_x;
  f->filter_y = plan->filter_y;
  for (i = 0; i < BSPLINE_MAX_CHANNELS; i++)
    f->fill[i] = plan->params.fill[i];
  f->src_type = src->type;
  f->src_shift = src->type == BSPLINE_SAMPLE_U16 ? src->shift : 0;
  f->dst_type = dst->type;
  f->dst_bits = dst->bits;
  f->dst_shift = dst->type == BSPLINE_SAMPLE_U16 ? dst->shift : 0;
  memcpy (f->inverse, plan->inverse, sizeof (f->inverse));
  f->widen = plan->widen;
  f->max_widen = BSPLINE_MAX_WARP_WIDENING;
  f->n_lenses = plan->n_lenses;
  memcpy (f->lens, plan->lens, sizeof (f->lens));
  bspline_plan_affine_widening (plan, &f->affine_widen[0], &f->affine_widen[1]);
  f->axis_x = plan->axis_x;
  f->axis_y = plan->axis_y;
}

/* What the fused separable passes need to know of an axis table whose
 * stored line is len samples long (cuda-kernels.h, bspline_gpu_tables):
 * whether first[] rises or falls with the output index, and how far any
 * output's taps reach past the window of its centre tap. */
static void
fused_axis (const bspline_axis_table * t, int len, int *dir, int *margin,
    int *most)
{
  const int n = t->n_taps, span = BSPLINE_GPU_FUSED_SPAN;
  int j, rising = 1, falling = 1, m = n / 2;    /* ceil ((n - 1) / 2) */
  int run = 0, window = -1;

  *most = 0;
  for (j = 0; j < t->n_out; j++) {
    /* the window of output j (fused_window in fused.cu): outputs of a
     * window are consecutive when first[] is monotonic */
    const int centre = t->first[j] + (n - 1) / 2;
    const int last = (len + span - 1) / span - 1;
    int w = centre < 0 ? 0 : centre / span;
    w = w > last ? last : w;
    run = w == window ? run + 1 : 1;
    window = w;
    *most = run > *most ? run : *most;
    if (j > 0) {
      rising &= t->first[j] >= t->first[j - 1];
      falling &= t->first[j] <= t->first[j - 1];
    }
    if (-t->first[j] > m)
      m = -t->first[j];
    if (t->first[j] + n - len > m)
      m = t->first[j] + n - len;
  }
  *dir = rising ? 1 : -1;
  *margin = rising || falling ? m : -1;
}

/* Uploads the separable tables of plan unless the slot has them, into
 * the least recently used of its copies. */
static bspline_status
upload_tables (bspline_cuda * cuda, slot * sl, const bspline_plan * plan,
    bspline_gpu_tables * t)
{
  size_t real = plan->use_double ? sizeof (double) : sizeof (float);
  size_t nx = (size_t) plan->x.n_out * plan->x.n_taps;
  size_t ny = (size_t) plan->y.n_out * plan->y.n_taps;
  int most, i;
  const void *xw = plan->use_double ? (const void *) plan->x.weight_d :
      (const void *) plan->x.weight_f;
  const void *yw = plan->use_double ? (const void *) plan->y.weight_d :
      (const void *) plan->y.weight_f;
  table_copy *tc = &sl->tables[0];

  for (i = 0; i < SLOT_TABLES; i++) {
    if (sl->tables[i].serial == plan->serial) {
      tc = &sl->tables[i];
      break;
    }
    if (sl->tables[i].used < tc->used)
      tc = &sl->tables[i];
  }
  tc->used = ++sl->clock;
  if (tc->serial != plan->serial) {
    tc->serial = 0;
    CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&tc->x_index,
            nx * sizeof (int)));
    CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&tc->y_index,
            ny * sizeof (int)));
    CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&tc->x_weight, nx * real));
    CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&tc->y_weight, ny * real));
    /* plain (synchronous) copies: the plan's tables are pageable and the
     * plan may be freed once submit returns */
    CUDA_TRY (cuda, FAULT_COPY, cudaMemcpy (tc->x_index.ptr, plan->x.index,
            nx * sizeof (int), cudaMemcpyHostToDevice));
    CUDA_TRY (cuda, FAULT_COPY, cudaMemcpy (tc->y_index.ptr, plan->y.index,
            ny * sizeof (int), cudaMemcpyHostToDevice));
    CUDA_TRY (cuda, FAULT_COPY, cudaMemcpy (tc->x_weight.ptr, xw, nx * real,
            cudaMemcpyHostToDevice));
    CUDA_TRY (cuda, FAULT_COPY, cudaMemcpy (tc->y_weight.ptr, yw, ny * real,
            cudaMemcpyHostToDevice));
    CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&tc->x_first,
            (size_t) plan->x.n_out * sizeof (int)));
    CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&tc->y_first,
            (size_t) plan->y.n_out * sizeof (int)));
    CUDA_TRY (cuda, FAULT_COPY, cudaMemcpy (tc->x_first.ptr, plan->x.first,
            (size_t) plan->x.n_out * sizeof (int), cudaMemcpyHostToDevice));
    CUDA_TRY (cuda, FAULT_COPY, cudaMemcpy (tc->y_first.ptr, plan->y.first,
            (size_t) plan->y.n_out * sizeof (int), cudaMemcpyHostToDevice));
    /* a cudaMemcpy from pageable memory may return before its DMA lands,
     * and the slot's stream does not wait for the legacy stream */
    CUDA_CHECK (cuda, cudaStreamSynchronize (cudaStreamLegacy));
    fused_axis (&plan->x, plan->src_width + 2 * plan->pad, &tc->x_dir,
        &tc->x_margin, &most);
    fused_axis (&plan->y, plan->src_height + 2 * plan->pad, &tc->y_dir,
        &tc->y_margin, &tc->y_most);
    tc->serial = plan->serial;
  }
  t->x_index = tc->x_index.ptr;
  t->y_index = tc->y_index.ptr;
  t->x_weight = tc->x_weight.ptr;
  t->y_weight = tc->y_weight.ptr;
  t->x_taps = plan->x.n_taps;
  t->y_taps = plan->y.n_taps;
  t->x_first = tc->x_first.ptr;
  t->y_first = tc->y_first.ptr;
  t->x_dir = tc->x_dir;
  t->y_dir = tc->y_dir;
  t->x_margin = tc->x_margin;
  t->y_margin = tc->y_margin;
  t->y_most = tc->y_most;
  return BSPLINE_OK;

fail:
  return BSPLINE_ERROR_BACKEND;
}

/* Whether the plan runs on precision=fast's binary16 plane and texture
 * (texture.cu): precision=fast on an interpolation of the B-spline of
 * order 1 or more (not Keys', whose weights are negative; order 0 reads
 * one sample, whose choice at a tie a position in float could change)
 * from 8- or 16-bit samples (the plane's units are their code range), 1,
 * 2 or 4 channels (the texel formats; the element's planes all are),
 * planes of at most BSPLINE_GPU_HALF_MAX_SIDE texels a side, and a plan
 * that interpolates: a general-path warp or separable tables of order + 1
 * taps (not widened); the least-squares reductions and their warps run
 * the float path.  Of those, where it is faster than the float kernels
 * (docs/benchmarks.md, H100, RGBA8): orders 1-3 without lens stages (4K
 * rotation, order 3: 192 against 250 us; 1080p -> 4K: 118 against 124,
 * order 1: 101 against 147), and orders 4 and 5 on perspective maps
 * without lens stages (4K keystone at order 3: 338 against 391 us) and on
 * 2-channel planes (no fixed float kernel); affine maps of 1 and 4
 * channels at orders 4 and 5 keep the float kernels (4K rotation, order
 * 5: 521 against 464 us), lens stages their float table, and orders
 * over 5 the float path, whose error does not grow with the prefilter's
 * gain as the 8-bit fractions' does (photos at order 11: up to 198 code
 * values; docs/accuracy.md).  cuda->fast_texture: all of them.  Other
 * plans with precision=fast run the float path. */
static int
uses_half (const bspline_cuda * cuda, const bspline_plan * plan,
    const bspline_image * src)
{
  const bspline_params *p = &plan->params;
  const int C = plan->channels;
  const double *m = plan->inverse;
  const int faster = (p->order <= 3 && plan->n_lenses == 0)
      || (p->order <= 5 && (C == 2 || (plan->n_lenses == 0
              && !plan->separable && !(m[6] == 0.0 && m[7] == 0.0
                  && m[8] == 1.0))));
  return p->precision == BSPLINE_PRECISION_FAST && !plan->use_double
      && p->method == BSPLINE_METHOD_BSPLINE && p->order >= 1
      && !plan->reduce && !plan->warp
      && (src->type == BSPLINE_SAMPLE_U8 || src->type == BSPLINE_SAMPLE_U16)
      && (C == 1 || C == 2 || C == 4)
      && plan->src_width + 2 * plan->pad <= BSPLINE_GPU_HALF_MAX_SIDE
      && plan->src_height + 2 * plan->pad <= BSPLINE_GPU_HALF_MAX_SIDE
      && (!plan->separable || (plan->x.n_taps == p->order + 1
          && plan->y.n_taps == p->order + 1))
      && (faster || cuda->fast_texture);
}

/* The slot's binary16 plane of wc x hc texels of C channels and its
 * texture (made where the slot has none of that size, in place of its
 * least recently used one), into h (data, pitch, texture). */
static bspline_status
half_plane (bspline_cuda * cuda, slot * sl, int wc, int hc, int C,
    bspline_gpu_half * h)
{
  half_copy *hp = &sl->half[0];
  struct cudaResourceDesc res;
  struct cudaTextureDesc tex;
  int i, align = 0, found = 0;

  for (i = 0; i < SLOT_HALF; i++) {
    half_copy *e = &sl->half[i];
    if (e->width == wc && e->height == hc && e->channels == C) {
      hp = e;
      found = 1;
      break;
    }
    if (e->used < hp->used)
      hp = e;
  }
  hp->used = ++sl->clock;
  if (!found) {
    half_free (hp);
    CUDA_CHECK (cuda, cudaDeviceGetAttribute (&align,
            cudaDevAttrTexturePitchAlignment, cuda->device));
    if (align < 1)
      align = 1;
    hp->pitch = ((size_t) wc * C * 2 + align - 1) / align * align;
    CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&hp->plane,
            hp->pitch * (size_t) hc));
    memset (&res, 0, sizeof (res));
    res.resType = cudaResourceTypePitch2D;
    res.res.pitch2D.devPtr = hp->plane.ptr;
    res.res.pitch2D.desc = cudaCreateChannelDesc (16, C > 1 ? 16 : 0,
        C > 2 ? 16 : 0, C > 2 ? 16 : 0, cudaChannelFormatKindFloat);
    res.res.pitch2D.width = (size_t) wc;
    res.res.pitch2D.height = (size_t) hc;
    res.res.pitch2D.pitchInBytes = hp->pitch;
    memset (&tex, 0, sizeof (tex));
    tex.addressMode[0] = cudaAddressModeClamp;
    tex.addressMode[1] = cudaAddressModeClamp;
    tex.filterMode = cudaFilterModeLinear;
    tex.readMode = cudaReadModeElementType;
    tex.normalizedCoords = 0;
    CUDA_CHECK (cuda, cudaCreateTextureObject (&hp->texture, &res, &tex, NULL));
    hp->width = wc;
    hp->height = hc;
    hp->channels = C;
  }
  h->data = hp->plane.ptr;
  h->pitch = hp->pitch / 2;
  h->texture = (unsigned long long) hp->texture;
  return BSPLINE_OK;

fail:
  half_free (hp);
  return BSPLINE_ERROR_BACKEND;
}

/* precision=fast on its binary16 plane (uses_half): the prefilter, with
 * the truncation indices of the plane's precision, writes it; the
 * sampler reads it through the texture. */
static bspline_status
resample_half (bspline_cuda * cuda, slot * sl, const bspline_plan * plan,
    bspline_gpu_frame * f, const bspline_image * src, const void *src_dev,
    size_t src_pitch, void *dst_dev, size_t dst_pitch, cudaStream_t stream)
{
  const int order = plan->params.order;
  const int wc = plan->src_width + 2 * plan->pad;
  const int hc = plan->src_height + 2 * plan->pad;
  const double eps = BSPLINE_GPU_HALF_EPSILON
      * bspline_prefilter_rho (order) / 2.0;
  bspline_gpu_half h;
  int i;

  for (i = 0; i < f->n_poles; i++) {
    int t = bspline_truncation_index (order, i, eps);
    t = t < 1 ? 1 : t;
    f->truncation[i] = t < f->truncation[i] ? t : f->truncation[i];
  }
  if (half_plane (cuda, sl, wc, hc, plan->channels, &h) != BSPLINE_OK)
    goto fail;
  h.range = src->type == BSPLINE_SAMPLE_U8 ? 255.0f : src->bits >= 1
      && src->bits <= 16 ? (float) ((1 << src->bits) - 1) : 65535.0f;
  h.mid = 0.5f * h.range;
  h.inv_range = 1.0f / h.range;
  if (!bspline_gpu_prefilter_half_direct (f)) {
    size_t bytes = (size_t) wc * hc * plan->channels * sizeof (float);
    CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&sl->coef, bytes));
    CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&sl->scratch, bytes));
  }
  CUDA_TRY (cuda, FAULT_LAUNCH, (cudaError_t) bspline_gpu_prefilter_half (f,
          src_dev, src_pitch, &h, sl->coef.ptr, sl->scratch.ptr, stream));
  CUDA_TRY (cuda, FAULT_LAUNCH, (cudaError_t) bspline_gpu_resample_half (f,
          &h, dst_dev, dst_pitch, stream));
  return BSPLINE_OK;

fail:
  return BSPLINE_ERROR_BACKEND;
}

/* Whether the plan runs on precision=compact's 16-bit coefficient plane:
 * the bound of its rounding on an output (bspline_compact_scale, code
 * values of src), its scale set in f; 0 where not (docs/accuracy.md,
 * "The 16-bit coefficient plane"): a float plan of the B-spline whose
 * prefilter the tile kernel takes (orders 2 and 3:
 * bspline_gpu_prefilter_compact_usable), on the general path's fixed
 * kernels (one or four channels, no lens stage, not a step of a
 * reduction, which the caller excludes), from 8- or 16-bit samples whose
 * code range keeps the plane's bound within BSPLINE_COMPACT_MAX_ERROR (the
 * range the word can hold: 10-bit samples in the low bits of 16 could be
 * any 16-bit value),
 * the fill colour of constant in that range; elsewhere the float plane.
 * Not the default: on an H200 it is slower than the float plane (4K
 * rotation 312 against 226 us), whose kernels are bound by instructions,
 * not bytes (docs/notes/compact-plane.md). */
static double
uses_compact (const bspline_plan * plan, const bspline_image * src,
    bspline_gpu_frame * f)
{
  const bspline_params *p = &plan->params;
  double code_max, mid, step, bound;
  int c;

  if (p->precision != BSPLINE_PRECISION_COMPACT || plan->use_double
      || p->method != BSPLINE_METHOD_BSPLINE || plan->separable
      || plan->n_lenses > 0 || plan->reduce || plan->warp || plan->atlas
      || (plan->channels != 1 && plan->channels != 4)
      || !bspline_gpu_prefilter_compact_usable (f))
    return 0;
  if (src->type == BSPLINE_SAMPLE_U8)
    code_max = 255.0;
  else if (src->type == BSPLINE_SAMPLE_U16 && src->shift >= 0
      && src->shift < 16)
    code_max = (double) (65535 >> src->shift);
  else
    return 0;
  bound = bspline_compact_scale (p->order, code_max, &mid, &step);
  if (bound > BSPLINE_COMPACT_MAX_ERROR)
    return 0;
  if (p->boundary == BSPLINE_BOUNDARY_CONSTANT)
    for (c = 0; c < plan->channels; c++)
      if (!(p->fill[c] >= 0.0 && p->fill[c] <= code_max))
        return 0;
  f->compact = 1;
  f->compact_mid = (float) mid;
  f->compact_step = (float) step;
  f->compact_inv_step = (float) (1.0 / step);
  return bound;
}

double
bspline_cuda_plan_compact (bspline_cuda * cuda, const bspline_plan * plan,
    const bspline_image * src)
{
  bspline_image none;
  bspline_gpu_frame f;

  if (!cuda || !plan || !src || select_device (cuda) != cudaSuccess)
    return 0;
  memset (&none, 0, sizeof (none));
  describe_frame (plan, src, &none, &f);
  return uses_compact (plan, src, &f);
}

static bspline_status resample_plan (bspline_cuda * cuda, slot * sl,
    const bspline_plan * plan, const bspline_image * src,
    const void *src_dev, size_t src_pitch, const bspline_image * dst,
    void *dst_dev, size_t dst_pitch, cudaStream_t stream, int fast);

/* A plane of width x height values of the real type in buffer b (grown
 * to fit), described as an image. */
static bspline_status
plane_on_device (bspline_cuda * cuda, device_buffer * b, int use_double,
    int width, int height, int channels, bspline_image * img)
{
  CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (b,
          bspline_plane_image (use_double, width, height, channels, img)));
  img->data = b->ptr;
  return BSPLINE_OK;

fail:
  return BSPLINE_ERROR_BACKEND;
}

/* The device description of one axis of a folded reduction (its
 * tables' device pointers left NULL). */
static void
describe_fold_axis (const bspline_fold_axis * a, bspline_gpu_fold_axis * g)
{
  typedef char fits[BSPLINE_GPU_FOLD_MAX_Q >= BSPLINE_FOLD_MAX_Q ? 1 : -1];
  int m;
  (void) sizeof (fits);
  memset (g, 0, sizeof (*g));
  g->p = a->p;
  g->q = a->q;
  g->n_out = a->n_out;
  g->margin = a->margin;
  g->n_taps = a->n_taps;
  g->ext_len = a->ext_len;
  memcpy (g->first, a->first, sizeof (a->first));
  /* an FIR past the kernels' taps: fold_fir_class refuses it */
  g->fir_half = a->fir_half;
  if (a->fir_half <= BSPLINE_GPU_FOLD_MAX_FIR)
    for (m = -a->fir_half; m <= a->fir_half; m++)
      g->fir[BSPLINE_GPU_FOLD_MAX_FIR + m] = a->fir[a->fir_half + m];
}

/* The device description of plan's folded reduction from src to dst,
 * and whether the engine runs it (fold.cu): 0 where the plan has none,
 * the benchmarks turned it off or its windows do not fit. */
static int
describe_fold (bspline_cuda * cuda, const bspline_plan * plan,
    const bspline_image * src, const bspline_image * dst,
    bspline_gpu_fold * f)
{
  const bspline_fold *fold = plan->reduce ? plan->reduce->fold : NULL;

  if (!fold || cuda->no_fold || plan->use_double)
    return 0;
  memset (f, 0, sizeof (*f));
  describe_fold_axis (&fold->x, &f->x);
  describe_fold_axis (&fold->y, &f->y);
  f->channels = plan->channels;
  f->dst_width = plan->dst_width;
  f->dst_height = plan->dst_height;
  f->src_type = src->type;
  f->src_shift = src->type == BSPLINE_SAMPLE_U16 ? src->shift : 0;
  f->dst_type = dst->type;
  f->dst_bits = dst->bits;
  f->dst_shift = dst->type == BSPLINE_SAMPLE_U16 ? dst->shift : 0;
  return bspline_gpu_fold_usable (f);
}

/* Runs plan's folded reduction (f: describe_fold), its tables copied to
 * the slot unless there, the least recently used copy taking them. */
static bspline_status
resample_fold (bspline_cuda * cuda, slot * sl, const bspline_plan * plan,
    bspline_gpu_fold * f, const void *src_dev, size_t src_pitch,
    void *dst_dev, size_t dst_pitch, cudaStream_t stream)
{
  const bspline_fold *fold = plan->reduce->fold;
  const size_t nx = (size_t) fold->x.ext_len, ny = (size_t) fold->y.ext_len;
  const size_t wx = (size_t) fold->x.q * fold->x.n_taps;
  const size_t wy = (size_t) fold->y.q * fold->y.n_taps;
  const size_t values = (size_t) fold->x.n_out * plan->channels;
  const size_t ax = (size_t) fold->x.n_out, ay = (size_t) fold->y.n_out;
  const size_t tables = (nx + ny + ax + ay) * sizeof (int)
      + (wx + wy) * sizeof (float);
  fold_copy *fc = &sl->folds[0];
  char *base;
  int *at = NULL;
  size_t j;
  int i;

  for (i = 0; i < SLOT_FOLDS; i++) {
    if (sl->folds[i].serial == plan->serial) {
      fc = &sl->folds[i];
      break;
    }
    if (sl->folds[i].used < fc->used)
      fc = &sl->folds[i];
  }
  fc->used = ++sl->clock;
  if (fc->serial != plan->serial) {
    fc->serial = 0;
    CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&fc->data, tables));
    /* each output's first tap, the kernels' `at` */
    at = malloc ((ax + ay) * sizeof (int));
    if (!at) {
      snprintf (cuda->error, sizeof (cuda->error), "out of memory for the "
          "tables of a folded reduction");
      return BSPLINE_ERROR_NO_MEMORY;
    }
    for (j = 0; j < ax; j++)
      at[j] = fold->x.first[j % fold->x.q] + fold->x.p * (int) (j
          / fold->x.q);
    for (j = 0; j < ay; j++)
      at[ax + j] = fold->y.first[j % fold->y.q] + fold->y.p * (int) (j
          / fold->y.q);
    base = fc->data.ptr;
    /* plain (synchronous) copies from the plan's pageable tables, as
     * upload_tables */
    CUDA_TRY (cuda, FAULT_COPY, cudaMemcpy (base, fold->x.index,
            nx * sizeof (int), cudaMemcpyHostToDevice));
    CUDA_TRY (cuda, FAULT_COPY, cudaMemcpy (base + nx * sizeof (int),
            fold->y.index, ny * sizeof (int), cudaMemcpyHostToDevice));
    CUDA_TRY (cuda, FAULT_COPY, cudaMemcpy (base + (nx + ny) * sizeof (int),
            at, (ax + ay) * sizeof (int), cudaMemcpyHostToDevice));
    base += (nx + ny + ax + ay) * sizeof (int);
    CUDA_TRY (cuda, FAULT_COPY, cudaMemcpy (base, fold->x.weight,
            wx * sizeof (float), cudaMemcpyHostToDevice));
    CUDA_TRY (cuda, FAULT_COPY, cudaMemcpy (base + wx * sizeof (float),
            fold->y.weight, wy * sizeof (float), cudaMemcpyHostToDevice));
    CUDA_CHECK (cuda, cudaStreamSynchronize (cudaStreamLegacy));
    free (at);
    at = NULL;
    fc->serial = plan->serial;
  }
  base = fc->data.ptr;
  f->x.index = (const int *) base;
  f->y.index = f->x.index + nx;
  f->x.at = f->y.index + ny;
  f->y.at = f->x.at + ax;
  f->x.weight = (const float *) (f->y.at + ay);
  f->y.weight = f->x.weight + wx;
  CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&sl->tmp,
          (size_t) plan->dst_height * values * sizeof (float)));
  CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&sl->inter,
          (size_t) fold->y.n_out * values * sizeof (float)));
  CUDA_TRY (cuda, FAULT_LAUNCH, (cudaError_t) bspline_gpu_fold_run (f,
          src_dev, src_pitch, sl->tmp.ptr, sl->inter.ptr, dst_dev, dst_pitch,
          stream));
  return BSPLINE_OK;

fail:
  free (at);
  return BSPLINE_ERROR_BACKEND;
}

static bspline_status resample_on_device (bspline_cuda * cuda, slot * sl,
    const bspline_plan * plan, const bspline_image * src, const void *src_dev,
    size_t src_pitch, const bspline_image * dst, void *dst_dev,
    size_t dst_pitch, cudaStream_t stream);

/* A plan that reads a projection input's atlas: the frame gathered into
 * the slot's atlas by the plan's table (copied to the slot on the plan's
 * first run there), then the atlas's plan run from it. */
static bspline_status
resample_atlas (bspline_cuda * cuda, slot * sl, const bspline_plan * plan,
    const bspline_image * src, const void *src_dev, size_t src_pitch,
    const bspline_image * dst, void *dst_dev, size_t dst_pitch,
    cudaStream_t stream)
{
  const bspline_atlas *atlas = plan->atlas;
  size_t n = (size_t) atlas->width * atlas->height, pitch;
  atlas_copy *ac = &sl->atlas_tables[0];
  bspline_image gathered = *src;
  int i;

  for (i = 0; i < SLOT_ATLAS; i++) {
    if (sl->atlas_tables[i].serial == plan->serial) {
      ac = &sl->atlas_tables[i];
      break;
    }
    if (sl->atlas_tables[i].used < ac->used)
      ac = &sl->atlas_tables[i];
  }
  ac->used = ++sl->clock;
  if (ac->serial != plan->serial) {
    ac->serial = 0;
    CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&ac->index,
            n * sizeof (*atlas->index)));
    CUDA_TRY (cuda, FAULT_COPY, cudaMemcpyAsync (ac->index.ptr,
            atlas->index, n * sizeof (*atlas->index), cudaMemcpyHostToDevice,
            stream));
    ac->serial = plan->serial;
  }
  gathered.width = atlas->width;
  gathered.height = atlas->height;
  pitch = device_pitch (&gathered);
  CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&sl->atlas,
          pitch * atlas->height));
  gathered.data = sl->atlas.ptr;
  gathered.stride = (ptrdiff_t) pitch;
  CUDA_TRY (cuda, FAULT_LAUNCH, (cudaError_t) bspline_gpu_atlas_gather
      (src_dev, src_pitch, sl->atlas.ptr, pitch, (const int *) ac->index.ptr,
          atlas->width, atlas->height, atlas->frame_width,
          (int) (bspline_sample_size (src->type) * src->channels), stream));
  return resample_on_device (cuda, sl, plan->atlas_plan, &gathered,
      sl->atlas.ptr, pitch, dst, dst_dev, dst_pitch, stream);

fail:
  return BSPLINE_ERROR_BACKEND;
}

/* Prefilter and resample, from samples at src_dev to samples at dst_dev
 * (device memory, described by src and dst), queued on stream with the
 * buffers of slot sl.  A projection input's atlas is gathered first
 * (resample_atlas).  A least-squares reduction (core/resample/reduce.c)
 * runs its two plans through the slot's intermediate plane; a shrinking
 * warp under least squares its warp onto the fine grid, then its
 * reduction. */
static bspline_status
resample_on_device (bspline_cuda * cuda, slot * sl,
    const bspline_plan * plan, const bspline_image * src, const void *src_dev,
    size_t src_pitch, const bspline_image * dst, void *dst_dev,
    size_t dst_pitch, cudaStream_t stream)
{
  const bspline_reduction *r = plan->reduce;
  bspline_image inter;

  if (plan->atlas)
    return resample_atlas (cuda, sl, plan, src, src_dev, src_pitch, dst,
        dst_dev, dst_pitch, stream);
  if (plan->warp) {
    if (plane_on_device (cuda, &sl->fine, plan->warp->use_double,
            plan->warp->dst_width, plan->warp->dst_height, plan->channels,
            &inter) != BSPLINE_OK
        || resample_plan (cuda, sl, plan->warp, src, src_dev, src_pitch,
            &inter, inter.data, (size_t) inter.stride, stream, 0)
        != BSPLINE_OK)
      return BSPLINE_ERROR_BACKEND;
    return resample_on_device (cuda, sl, plan->shrink, &inter, inter.data,
        (size_t) inter.stride, dst, dst_dev, dst_pitch, stream);
  }
  if (!r)
    return resample_plan (cuda, sl, plan, src, src_dev, src_pitch, dst,
        dst_dev, dst_pitch, stream, 1);
  {
    bspline_gpu_fold f;
    if (describe_fold (cuda, plan, src, dst, &f))
      return resample_fold (cuda, sl, plan, &f, src_dev, src_pitch, dst_dev,
          dst_pitch, stream);
  }
  if (plane_on_device (cuda, &sl->inter, r->project->use_double, r->width,
          r->height, plan->channels, &inter) != BSPLINE_OK
      || resample_plan (cuda, sl, r->project, src, src_dev, src_pitch,
          &inter, inter.data, (size_t) inter.stride, stream, 0)
      != BSPLINE_OK)
    return BSPLINE_ERROR_BACKEND;
  return resample_plan (cuda, sl, r->sample, &inter, inter.data,
      (size_t) inter.stride, dst, dst_dev, dst_pitch, stream, 0);
}

/* The slot's device copies of the STMaps of a plan's STMap stages, one
 * per stage of the chain (stage k's in stmap_copy[k]), each made where
 * the slot holds another map or none there; f's stages then point at
 * them.  The copies go on the stream the kernels of this plan run on: a
 * plain cudaMemcpy from pageable memory may return before its DMA lands,
 * and the slots' streams do not wait for the legacy stream (the first
 * frames of a new map then read part of the old one: seen on an H100).
 * The maps outlive the copies (the slot holds references), and they are
 * read-only. */
static bspline_status
upload_stmaps (bspline_cuda * cuda, slot * sl, const bspline_plan * plan,
    bspline_gpu_frame * f, cudaStream_t stream)
{
  int k;

  for (k = 0; k < plan->n_lenses; k++) {
    const bspline_lens *lens = &plan->lens[k];
    size_t bytes;
    const double *coef;

    if (lens->model != BSPLINE_LENS_STMAP)
      continue;
    coef = bspline_stmap_coefficients (lens->stmap, &bytes);
    if (sl->stmap_of[k] != lens->stmap) {
      bspline_stmap_unref (sl->stmap_of[k]);
      sl->stmap_of[k] = NULL;
      CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&sl->stmap_copy[k], bytes));
      CUDA_TRY (cuda, FAULT_COPY, cudaMemcpyAsync (sl->stmap_copy[k].ptr,
              coef, bytes, cudaMemcpyHostToDevice, stream));
      sl->stmap_of[k] = bspline_stmap_ref (lens->stmap);
    }
    f->lens[k].map = (const double *) sl->stmap_copy[k].ptr;
    f->lens[k].stmap = NULL;
  }
  return BSPLINE_OK;

fail:
  return BSPLINE_ERROR_BACKEND;
}

/* The lens table of plan (f its frame, the stage's map in the slot) where
 * the slot has made it, or makes it now on the plan's second run there;
 * NULL where the plan has none (its first run, another path, or no
 * memory for it: the stage is then evaluated per pixel); *status a CUDA
 * failure.  Where f widens, *wide: the list of its widened pixels
 * (cuda-kernels.h), made with the table. */
static const int *
lens_table (bspline_cuda * cuda, slot * sl, const bspline_plan * plan,
    const bspline_gpu_frame * f, cudaStream_t stream, const int **wide,
    bspline_status * status)
{
  lens_copy *lc = &sl->lens[0];
  int i;

  *status = BSPLINE_OK;
  *wide = NULL;
  /* not for order 0, whose nearest sample a point moved by 2^-21 pixel
   * from a tie can change (the table would not give the CPU's pixels) */
  if (cuda->no_lens_table || plan->n_lenses == 0 || plan->use_double
      || (plan->axis_x.method == BSPLINE_METHOD_BSPLINE
          && plan->axis_x.order == 0) || plan->separable
      || (plan->channels != 1 && plan->channels != 4))
    return NULL;
  for (i = 0; i < SLOT_LENS; i++) {
    if (sl->lens[i].serial == plan->serial) {
      lc = &sl->lens[i];
      break;
    }
    if (sl->lens[i].used < lc->used)
      lc = &sl->lens[i];
  }
  lc->used = ++sl->clock;
  if (lc->serial != plan->serial) {
    lc->serial = plan->serial;
    lc->ready = 0;
    return NULL;
  }
  if (!lc->ready) {
    if (buffer_ensure (&lc->xy, bspline_gpu_lens_table_bytes
            (plan->dst_width, plan->dst_height, f->widen)) != cudaSuccess
        || (f->widen && buffer_ensure (&lc->wide, ((size_t) plan->dst_width
                    * plan->dst_height + 1) * sizeof (int)) != cudaSuccess)) {
      cudaGetLastError ();
      return NULL;
    }
    CUDA_TRY (cuda, FAULT_LAUNCH, (cudaError_t) bspline_gpu_lens_table (f,
            (int *) lc->xy.ptr, stream));
    if (f->widen)
      CUDA_TRY (cuda, FAULT_LAUNCH, (cudaError_t)
          bspline_gpu_lens_wide_list (f, (const int *) lc->xy.ptr,
              (int *) lc->wide.ptr, stream));
    lc->ready = 1;
  }
  if (f->widen)
    *wide = (const int *) lc->wide.ptr;
  return (const int *) lc->xy.ptr;

fail:
  lc->serial = 0;
  *status = BSPLINE_ERROR_BACKEND;
  return NULL;
}

/* The levels that f's pixels read and those they are made from
 * (lv->need), found on the device: a synchronisation, once per plan. */
static bspline_status
find_levels (bspline_cuda * cuda, slot * sl, const bspline_gpu_frame * f,
    level_need * lv, cudaStream_t stream)
{
  const int L = BSPLINE_RIPMAP_LEVELS;
  int count[BSPLINE_RIPMAP_LEVELS * BSPLINE_RIPMAP_LEVELS];
  int lx, ly, k;

  CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&sl->levels.count,
          sizeof (count)));
  CUDA_CHECK (cuda, cudaMemsetAsync (sl->levels.count.ptr, 0, sizeof (count),
          stream));
  CUDA_TRY (cuda, FAULT_LAUNCH, (cudaError_t) bspline_gpu_lens_levels (f,
          (int *) sl->levels.count.ptr, stream));
  CUDA_TRY (cuda, FAULT_COPY, cudaMemcpyAsync (count, sl->levels.count.ptr,
          sizeof (count), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK (cuda, cudaStreamSynchronize (stream));
  memset (lv->need, 0, sizeof (lv->need));
  for (lx = 0; lx < L; lx++)
    for (ly = 0; ly < L; ly++) {
      if (count[lx * L + ly] == 0)
        continue;
      /* (lx, ly) is made from (lx - 1, ly), ..., (0, ly), (0, ly - 1),
       * ..., (0, 1) */
      for (k = lx; k >= 1; k--)
        lv->need[k][ly] = 1;
      for (k = ly; k >= 1; k--)
        lv->need[0][k] = 1;
    }
  return BSPLINE_OK;

fail:
  return BSPLINE_ERROR_BACKEND;
}

/* A lens plan's levels of its widened kernel, made in the slot from the
 * coefficients coef (f's plane) and given to f (f->levels, the widening
 * then up to BSPLINE_MAX_LENS_WIDENING as the CPU engine's); nothing for
 * other plans.  A level the device has no memory for fails the frame
 * with the engine's error naming it. */
static bspline_status
lens_levels (bspline_cuda * cuda, slot * sl, const bspline_plan * plan,
    bspline_gpu_frame * f, const void *coef, cudaStream_t stream)
{
  const int L = BSPLINE_RIPMAP_LEVELS;
  const size_t real = plan->use_double ? sizeof (double) : sizeof (float);
  level_copy *lc = &sl->levels;
  level_need *lv = &lc->plans[0];
  const void *ptr[BSPLINE_RIPMAP_LEVELS * BSPLINE_RIPMAP_LEVELS];
  int i, lx, ly;

  if (plan->n_lenses == 0 || !plan->widen || plan->separable)
    return BSPLINE_OK;
  f->max_widen = BSPLINE_MAX_LENS_WIDENING;
  for (i = 0; i < SLOT_LEVEL_PLANS; i++) {
    if (lc->plans[i].serial == plan->serial) {
      lv = &lc->plans[i];
      break;
    }
    if (lc->plans[i].used < lv->used)
      lv = &lc->plans[i];
  }
  lv->used = ++sl->clock;
  if (lv->serial != plan->serial) {
    lv->serial = 0;
    lv->table_ready = 0;
    if (find_levels (cuda, sl, f, lv, stream) != BSPLINE_OK)
      return BSPLINE_ERROR_BACKEND;
    lv->serial = plan->serial;
  }
  /* each level after the one it is made from: (lx - 1, ly) before
   * (lx, ly), (0, ly - 1) before (0, ly) */
  for (ly = 0; ly < L; ly++)
    for (lx = 0; lx < L; lx++) {
      bspline_axis ax, ay;
      const void *src;
      size_t bytes;
      ptr[lx * L + ly] = NULL;
      if (!lv->need[lx][ly])
        continue;
      ax = bspline_level_axis (&plan->axis_x, lx);
      ay = bspline_level_axis (&plan->axis_y, ly);
      bytes = (size_t) bspline_level_stored (&ax) * bspline_level_stored (&ay)
          * plan->channels * real;
      if (lx > 0)
        src = lx == 1 && ly == 0 ? coef : lc->plane[lx - 1][ly].ptr;
      else
        src = ly == 1 ? coef : lc->plane[0][ly - 1].ptr;
      CUDA_TRY (cuda, FAULT_ALLOC, level_plane_ensure (&lc->plane[lx][ly],
              bytes));
      CUDA_TRY (cuda, FAULT_LAUNCH, (cudaError_t) bspline_gpu_level_step (f,
              lx, ly, src, lc->plane[lx][ly].ptr, stream));
      ptr[lx * L + ly] = lc->plane[lx][ly].ptr;
    }
  if (!lv->table_ready || memcmp (ptr, lv->copied, sizeof (ptr)) != 0) {
    lv->table_ready = 0;
    CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&lv->table, sizeof (ptr)));
    memcpy (lv->copied, ptr, sizeof (ptr));
    CUDA_TRY (cuda, FAULT_COPY, cudaMemcpyAsync (lv->table.ptr, lv->copied,
            sizeof (ptr), cudaMemcpyHostToDevice, stream));
    lv->table_ready = 1;
  }
  f->levels = (const void *const *) lv->table.ptr;
  return BSPLINE_OK;

fail:
  return BSPLINE_ERROR_BACKEND;
}

/* resample_on_device for one plan; fast: the plan may take the binary16
 * plane of precision=fast (not the steps of a reduction). */
static bspline_status
resample_plan (bspline_cuda * cuda, slot * sl, const bspline_plan * plan,
    const bspline_image * src, const void *src_dev, size_t src_pitch,
    const bspline_image * dst, void *dst_dev, size_t dst_pitch,
    cudaStream_t stream, int fast)
{
  size_t real = plan->use_double ? sizeof (double) : sizeof (float);
  size_t coef_bytes = (size_t) (plan->src_width + 2 * plan->pad)
      * (plan->src_height + 2 * plan->pad) * plan->channels * real;
  bspline_gpu_frame f;
  bspline_gpu_tables tables;

  describe_frame (plan, src, dst, &f);
  if (upload_stmaps (cuda, sl, plan, &f, stream) != BSPLINE_OK)
    goto fail;
  if (fast && uses_half (cuda, plan, src))
    return resample_half (cuda, sl, plan, &f, src, src_dev, src_pitch,
        dst_dev, dst_pitch, stream);
  /* the 16-bit plane: half the bytes, and no scratch plane (the tile
   * kernel takes the prefilter in one pass) */
  if (fast && uses_compact (plan, src, &f) > 0.0)
    coef_bytes = coef_bytes / real * sizeof (int16_t);
  if (plan->separable) {
    CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&sl->tmp,
            (size_t) (plan->src_height + 2 * plan->pad) * plan->dst_width
            * plan->channels * real));
    if (upload_tables (cuda, sl, plan, &tables) != BSPLINE_OK)
      goto fail;
    /* the fused passes need no coefficient plane */
    if (bspline_gpu_fused_usable (&f, &tables)) {
      CUDA_TRY (cuda, FAULT_LAUNCH, (cudaError_t)
          bspline_gpu_resample_fused (&f, &tables, src_dev, src_pitch,
              sl->tmp.ptr, dst_dev, dst_pitch, stream));
      return BSPLINE_OK;
    }
  }
  CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&sl->coef, coef_bytes));
  if (plan->prefilter && !f.compact)
    CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&sl->scratch, coef_bytes));
  CUDA_TRY (cuda, FAULT_LAUNCH, (cudaError_t) bspline_gpu_prefilter (&f,
          src_dev, src_pitch, sl->coef.ptr, sl->scratch.ptr, stream));
  {
    bspline_status status;
    const int *lens_xy, *wide;
    if (lens_levels (cuda, sl, plan, &f, sl->coef.ptr, stream) != BSPLINE_OK)
      goto fail;
    lens_xy = lens_table (cuda, sl, plan, &f, stream, &wide, &status);
    if (status != BSPLINE_OK)
      goto fail;
    CUDA_TRY (cuda, FAULT_LAUNCH, (cudaError_t) bspline_gpu_resample (&f,
            sl->coef.ptr, plan->separable ? &tables : NULL, lens_xy,
            sl->tmp.ptr, dst_dev, dst_pitch, stream));
    /* the pixels the warp kernel left: those of the list */
    if (wide)
      CUDA_TRY (cuda, FAULT_LAUNCH, (cudaError_t) bspline_gpu_lens_wide (&f,
              (const float *) sl->coef.ptr, lens_xy, wide,
              (unsigned char *) dst_dev, dst_pitch, stream));
  }
  return BSPLINE_OK;

fail:
  return BSPLINE_ERROR_BACKEND;
}

int
bspline_cuda_plan_fused (bspline_cuda * cuda, const bspline_plan * plan)
{
  bspline_image none;
  bspline_gpu_frame f;
  bspline_gpu_tables t;
  int most;

  if (!cuda || !plan || !plan->separable || plan->reduce || plan->warp
      || select_device (cuda) != cudaSuccess)
    return 0;
  memset (&none, 0, sizeof (none));
  memset (&t, 0, sizeof (t));
  describe_frame (plan, &none, &none, &f);
  t.x_taps = plan->x.n_taps;
  t.y_taps = plan->y.n_taps;
  fused_axis (&plan->x, plan->src_width + 2 * plan->pad, &t.x_dir,
      &t.x_margin, &most);
  fused_axis (&plan->y, plan->src_height + 2 * plan->pad, &t.y_dir,
      &t.y_margin, &t.y_most);
  return bspline_gpu_fused_usable (&f, &t);
}

int
bspline_cuda_plan_folded (bspline_cuda * cuda, const bspline_plan * plan)
{
  bspline_image src, dst;
  bspline_gpu_fold f;

  if (!cuda || !plan || select_device (cuda) != cudaSuccess)
    return 0;
  if (plan->warp)
    plan = plan->shrink;
  memset (&src, 0, sizeof (src));
  memset (&dst, 0, sizeof (dst));
  return describe_fold (cuda, plan, &src, &dst, &f);
}

static bspline_status
check_frame (bspline_cuda * cuda, const bspline_plan * plan,
    const bspline_image * src, const bspline_image * dst)
{
  char msg[256];
  if (!plan) {
    snprintf (cuda->error, sizeof (cuda->error), "no plan given");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (bspline_image_validate (src, 1, msg, sizeof (msg)) != BSPLINE_OK
      || bspline_image_validate (dst, 1, msg, sizeof (msg)) != BSPLINE_OK) {
    snprintf (cuda->error, sizeof (cuda->error), "%s", msg);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (src->width != plan->src_width || src->height != plan->src_height
      || dst->width != plan->dst_width || dst->height != plan->dst_height
      || src->channels != plan->channels || dst->channels != plan->channels) {
    snprintf (cuda->error, sizeof (cuda->error), "images do not match the "
        "plan (%dx%d -> %dx%d, %d channels)", plan->src_width,
        plan->src_height, plan->dst_width, plan->dst_height, plan->channels);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  return BSPLINE_OK;
}

bspline_status
bspline_cuda_submit (bspline_cuda * cuda, const bspline_plan * plan,
    const bspline_image * src, const bspline_image * dst, int *slot_index)
{
  return bspline_cuda_submit_placed (cuda, plan, src, 0, dst, 0, slot_index);
}

bspline_status
bspline_cuda_finish (bspline_cuda * cuda, int slot_index)
{
  slot *sl;
  if (!cuda || slot_index < 0 || slot_index >= BSPLINE_CUDA_SLOTS
      || !cuda->slots[slot_index].busy)
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  sl = &cuda->slots[slot_index];
  sl->busy = 0;
  CUDA_CHECK (cuda, cudaEventSynchronize (sl->done));
  if (sl->dst_staged) {
    size_t row = row_bytes (&sl->dst);
    copy_rows (cuda, sl->dst.data, (size_t) sl->dst.stride,
        sl->staging_out.ptr, row, row, sl->dst.height);
  }
  return BSPLINE_OK;

fail:
  cudaGetLastError ();
  return BSPLINE_ERROR_BACKEND;
}

bspline_status
bspline_cuda_execute (bspline_cuda * cuda, const bspline_plan * plan,
    const bspline_image * src, const bspline_image * dst)
{
  int index;
  bspline_status status = bspline_cuda_submit (cuda, plan, src, dst, &index);
  if (status != BSPLINE_OK)
    return status;
  return bspline_cuda_finish (cuda, index);
}

bspline_status
bspline_cuda_launch_on_device (bspline_cuda * cuda,
    const bspline_plan * plan, const bspline_image * src,
    const bspline_image * dst, void *stream)
{
  bspline_status status;

  if (!cuda)
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  cuda->error[0] = '\0';
  status = check_frame (cuda, plan, src, dst);
  if (status != BSPLINE_OK)
    return status;
  CUDA_CHECK (cuda, select_device (cuda));
  return resample_on_device (cuda, &cuda->device_slot, plan, src, src->data,
      (size_t) src->stride, dst, dst->data, (size_t) dst->stride,
      (cudaStream_t) stream);

fail:
  return BSPLINE_ERROR_BACKEND;
}

/* The first slot not in flight, or -1 (with the engine's error set): a
 * caller that keeps few frames in flight only ever allocates device memory
 * for those few. */
static int
free_slot (bspline_cuda * cuda)
{
  int index;
  for (index = 0; index < BSPLINE_CUDA_SLOTS; index++)
    if (!cuda->slots[index].busy)
      return index;
  snprintf (cuda->error, sizeof (cuda->error), "all %d slots are in "
      "flight: finish one before submitting more", BSPLINE_CUDA_SLOTS);
  return -1;
}

/* crop=keep-border on the resampled plane at dst_dev (dst's layout, pitch
 * dst_pitch), queued on the slot's stream: the previous frame copied up
 * first where asked, then the kernel (keep-border.cu). */
static bspline_status
keep_border (bspline_cuda * cuda, slot * sl,
    const bspline_cuda_keep_border * keep, const bspline_image * dst,
    void *dst_dev, size_t dst_pitch)
{
  bspline_gpu_keep_border_frame k;

  memset (&k, 0, sizeof (k));
  memcpy (k.inverse, keep->inverse, sizeof (k.inverse));
  k.has_lens = keep->lens && keep->lens->model != BSPLINE_LENS_NONE;
  if (k.has_lens)
    k.lens = *keep->lens;
  k.in_width = keep->in_width;
  k.in_height = keep->in_height;
  k.width = dst->width;
  k.height = dst->height;
  k.pixel = (int) row_bytes (dst) / dst->width;
  k.have_previous = keep->have_previous;
  /* upload: host memory, or device memory (the previous frame went out
   * in CUDA memory from the CPU) */
  if (keep->upload)
    CUDA_TRY (cuda, FAULT_COPY, cudaMemcpy2DAsync (keep->previous,
            keep->previous_pitch, keep->upload->data,
            (size_t) keep->upload->stride, row_bytes (dst), dst->height,
            cudaMemcpyDefault, sl->stream));
  CUDA_TRY (cuda, FAULT_LAUNCH, (cudaError_t) bspline_gpu_keep_border (&k,
          dst_dev, dst_pitch, keep->previous, keep->previous_pitch,
          sl->stream));
  return BSPLINE_OK;

fail:
  return BSPLINE_ERROR_BACKEND;
}

/* The key of a table of transfer.c: its transfer function and bits. */
static int
transfer_key (bspline_transfer transfer, int bits)
{
  return 1 + bits + 32 * (int) transfer;
}

/* The slot's device copies of the decoding table of src's codes (linear
 * light's in) and the thresholds of dst's (linear's out), made on the host
 * by core/base/transfer.c where the slot holds other ones, and copied on
 * the slot's stream, before the kernels that read them (a copy from
 * pageable memory returns once the host buffer is staged, so it may be
 * freed then: CUDA Runtime API, API synchronization behavior).  The slot
 * is not in flight (free_slot), so no kernel reads them while they
 * change. */
static bspline_status
linear_tables (bspline_cuda * cuda, slot * sl,
    const bspline_cuda_linear * linear, int src_bits, int dst_bits)
{
  const size_t n_in = (size_t) 1 << src_bits, n_out = (size_t) 1 << dst_bits;
  float *decode = NULL;
  double *threshold = NULL;

  if (sl->decode_key != transfer_key (linear->in, src_bits)) {
    sl->decode_key = 0;
    decode = malloc (n_in * sizeof (float));
    if (!decode)
      goto no_memory;
    bspline_transfer_decode_table (linear->in, src_bits, decode);
    CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&sl->decode,
            n_in * sizeof (float)));
    CUDA_TRY (cuda, FAULT_COPY, cudaMemcpyAsync (sl->decode.ptr, decode,
            n_in * sizeof (float), cudaMemcpyHostToDevice, sl->stream));
    sl->decode_key = transfer_key (linear->in, src_bits);
  }
  if (sl->threshold_key != transfer_key (linear->out, dst_bits)) {
    sl->threshold_key = 0;
    threshold = malloc ((n_out - 1) * sizeof (double));
    if (!threshold)
      goto no_memory;
    bspline_transfer_encode_thresholds (linear->out, dst_bits, threshold);
    CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&sl->threshold,
            (n_out - 1) * sizeof (double)));
    CUDA_TRY (cuda, FAULT_COPY, cudaMemcpyAsync (sl->threshold.ptr,
            threshold, (n_out - 1) * sizeof (double), cudaMemcpyHostToDevice,
            sl->stream));
    sl->threshold_key = transfer_key (linear->out, dst_bits);
  }
  free (decode);
  free (threshold);
  return BSPLINE_OK;

no_memory:
  snprintf (cuda->error, sizeof (cuda->error), "no memory for the "
      "transfer function's tables");
  free (decode);
  free (threshold);
  return BSPLINE_ERROR_NO_MEMORY;
fail:
  free (decode);
  free (threshold);
  return BSPLINE_ERROR_BACKEND;
}

/* The transfer.cu frame of a coded plane. */
static void
describe_transfer (const bspline_image * coded, unsigned pass_mask,
    bspline_gpu_transfer_frame * t)
{
  t->width = coded->width;
  t->height = coded->height;
  t->channels = coded->channels;
  t->type = coded->type;
  t->bits = coded->bits;
  t->shift = coded->type == BSPLINE_SAMPLE_U16 ? coded->shift : 0;
  t->pass_mask = pass_mask;
}

/* gamma-mode=remap on the slot's stream: src (codes, at src_dev) decoded
 * to the slot's float plane, resampled by plan into another, encoded into
 * dst's codes at dst_dev (transfer.cu). */
static bspline_status
resample_linear (bspline_cuda * cuda, slot * sl, const bspline_plan * plan,
    const bspline_cuda_linear * linear, const bspline_image * src,
    const void *src_dev, size_t src_pitch, const bspline_image * dst,
    void *dst_dev, size_t dst_pitch)
{
  bspline_image lin_src = *src, lin_dst = *dst;
  bspline_gpu_transfer_frame t;
  size_t lin_src_pitch, lin_dst_pitch;
  bspline_status status;

  lin_src.type = lin_dst.type = BSPLINE_SAMPLE_F32;
  lin_src.bits = lin_dst.bits = 0;
  lin_src.shift = lin_dst.shift = 0;
  lin_src_pitch = device_pitch (&lin_src);
  lin_dst_pitch = device_pitch (&lin_dst);
  status = linear_tables (cuda, sl, linear, src->bits, dst->bits);
  if (status != BSPLINE_OK)
    return status;
  CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&sl->linear_src,
          lin_src_pitch * src->height));
  CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&sl->linear_dst,
          lin_dst_pitch * dst->height));
  describe_transfer (src, linear->pass_mask, &t);
  CUDA_TRY (cuda, FAULT_LAUNCH, (cudaError_t) bspline_gpu_transfer_decode
      (&t, sl->decode.ptr, src_dev, src_pitch, sl->linear_src.ptr,
          lin_src_pitch, sl->stream));
  lin_src.data = sl->linear_src.ptr;
  lin_src.stride = (ptrdiff_t) lin_src_pitch;
  lin_dst.data = sl->linear_dst.ptr;
  lin_dst.stride = (ptrdiff_t) lin_dst_pitch;
  status = resample_on_device (cuda, sl, plan, &lin_src, sl->linear_src.ptr,
      lin_src_pitch, &lin_dst, sl->linear_dst.ptr, lin_dst_pitch, sl->stream);
  if (status != BSPLINE_OK)
    return status;
  describe_transfer (dst, linear->pass_mask, &t);
  CUDA_TRY (cuda, FAULT_LAUNCH, (cudaError_t) bspline_gpu_transfer_encode
      (&t, sl->threshold.ptr, sl->linear_dst.ptr, lin_dst_pitch, dst_dev,
          dst_pitch, sl->stream));
  return BSPLINE_OK;

fail:
  return BSPLINE_ERROR_BACKEND;
}

/* bspline_cuda_submit_placed, with the resampling in linear light where
 * linear is not NULL and keep-border after it where keep is not NULL. */
static bspline_status
submit (bspline_cuda * cuda, const bspline_plan * plan,
    const bspline_image * src, int src_on_device, const bspline_image * dst,
    int dst_on_device, const bspline_cuda_linear * linear,
    const bspline_cuda_keep_border * keep, int *slot_index)
{
  const void *src_dev;
  void *dst_dev;
  size_t src_pitch, dst_pitch;
  size_t src_row, dst_row;
  bspline_status status;
  slot *sl;
  int index;

  if (!cuda || !slot_index)
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  cuda->error[0] = '\0';
  status = check_frame (cuda, plan, src, dst);
  if (status != BSPLINE_OK)
    return status;
  index = free_slot (cuda);
  if (index < 0)
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  sl = &cuda->slots[index];
  src_row = row_bytes (src);
  dst_row = row_bytes (dst);

  CUDA_CHECK (cuda, select_device (cuda));
  /* Work that others queued on this context before (a decoder's or an
   * upload's copies into src) is on the legacy default stream or on
   * blocking streams, which the legacy stream waits for: the slot's
   * non-blocking stream waits for an event recorded there.  The event is
   * the slot's `done`, recorded again on the slot's stream below: a wait
   * is on the record made before it (CUDA Runtime API, cudaStreamWaitEvent). */
  if (src_on_device || dst_on_device) {
    CUDA_CHECK (cuda, cudaEventRecord (sl->done, cudaStreamLegacy));
    CUDA_CHECK (cuda, cudaStreamWaitEvent (sl->stream, sl->done, 0));
  }

  if (src_on_device) {
    src_dev = src->data;
    src_pitch = (size_t) src->stride;
  } else {
    const void *upload_from = src->data;
    size_t upload_pitch = (size_t) src->stride;

    src_pitch = device_pitch (src);
    CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&sl->src,
            src_pitch * src->height));
    if (!is_pinned (src->data)) {
      CUDA_TRY (cuda, FAULT_ALLOC, host_ensure (&sl->staging_in,
              src_row * src->height));
      copy_rows (cuda, sl->staging_in.ptr, src_row, src->data,
          (size_t) src->stride, src_row, src->height);
      upload_from = sl->staging_in.ptr;
      upload_pitch = src_row;
    }
    CUDA_TRY (cuda, FAULT_COPY, cudaMemcpy2DAsync (sl->src.ptr, src_pitch,
            upload_from, upload_pitch, src_row, src->height,
            cudaMemcpyHostToDevice, sl->stream));
    src_dev = sl->src.ptr;
  }

  if (dst_on_device) {
    dst_dev = dst->data;
    dst_pitch = (size_t) dst->stride;
  } else {
    dst_pitch = device_pitch (dst);
    CUDA_TRY (cuda, FAULT_ALLOC, buffer_ensure (&sl->out,
            dst_pitch * dst->height));
    dst_dev = sl->out.ptr;
  }

  if (linear ? resample_linear (cuda, sl, plan, linear, src, src_dev,
          src_pitch, dst, dst_dev, dst_pitch) != BSPLINE_OK :
      resample_on_device (cuda, sl, plan, src, src_dev, src_pitch, dst,
          dst_dev, dst_pitch, sl->stream) != BSPLINE_OK)
    goto fail;
  if (keep && keep_border (cuda, sl, keep, dst, dst_dev, dst_pitch)
      != BSPLINE_OK)
    goto fail;

  sl->dst = *dst;
  sl->dst_staged = 0;
  if (!dst_on_device) {
    sl->dst_staged = !is_pinned (dst->data);
    if (sl->dst_staged) {
      CUDA_TRY (cuda, FAULT_ALLOC, host_ensure (&sl->staging_out,
              dst_row * dst->height));
      CUDA_TRY (cuda, FAULT_COPY, cudaMemcpy2DAsync (sl->staging_out.ptr,
              dst_row, sl->out.ptr, dst_pitch, dst_row, dst->height,
              cudaMemcpyDeviceToHost, sl->stream));
    } else {
      CUDA_TRY (cuda, FAULT_COPY, cudaMemcpy2DAsync (dst->data, dst->stride,
              sl->out.ptr, dst_pitch, dst_row, dst->height,
              cudaMemcpyDeviceToHost, sl->stream));
    }
  }
  CUDA_CHECK (cuda, cudaEventRecord (sl->done, sl->stream));
  sl->busy = 1;
  *slot_index = index;
  return BSPLINE_OK;

fail:
  cudaStreamSynchronize (sl->stream);
  cudaGetLastError ();
  return BSPLINE_ERROR_BACKEND;
}

bspline_status
bspline_cuda_submit_placed (bspline_cuda * cuda, const bspline_plan * plan,
    const bspline_image * src, int src_on_device, const bspline_image * dst,
    int dst_on_device, int *slot_index)
{
  return submit (cuda, plan, src, src_on_device, dst, dst_on_device, NULL,
      NULL, slot_index);
}

bspline_status
bspline_cuda_submit_linear (bspline_cuda * cuda, const bspline_plan * plan,
    const bspline_image * src, int src_on_device, const bspline_image * dst,
    int dst_on_device, const bspline_cuda_linear * linear, int *slot_index)
{
  if (!cuda || !linear || !src || !dst)
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  cuda->error[0] = '\0';
  if ((src->type != BSPLINE_SAMPLE_U8 && src->type != BSPLINE_SAMPLE_U16)
      || (dst->type != BSPLINE_SAMPLE_U8 && dst->type != BSPLINE_SAMPLE_U16)) {
    snprintf (cuda->error, sizeof (cuda->error), "linear light needs "
        "integer code values");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  return submit (cuda, plan, src, src_on_device, dst, dst_on_device, linear,
      NULL, slot_index);
}

bspline_status
bspline_cuda_submit_keep_border (bspline_cuda * cuda,
    const bspline_plan * plan, const bspline_image * src, int src_on_device,
    const bspline_image * dst, int dst_on_device,
    const bspline_cuda_keep_border * keep, int *slot_index)
{
  if (!cuda || !keep || !dst)
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  cuda->error[0] = '\0';
  if (!keep->inverse || !keep->previous || keep->in_width < 0
      || keep->in_height < 0 || keep->previous_pitch < row_bytes (dst)
      || (keep->upload && (keep->upload->width != dst->width
              || keep->upload->height != dst->height
              || keep->upload->channels != dst->channels
              || keep->upload->type != dst->type
              || keep->upload->stride < (ptrdiff_t) row_bytes (dst)))) {
    snprintf (cuda->error, sizeof (cuda->error), "keep-border: no matrix, "
        "no previous plane, or one that does not match the output");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  if (keep->lens && keep->lens->model == BSPLINE_LENS_STMAP) {
    snprintf (cuda->error, sizeof (cuda->error), "keep-border: an STMap "
        "stage is not taken on the GPU");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  return submit (cuda, plan, src, src_on_device, dst, dst_on_device, NULL,
      keep, slot_index);
}

void *
bspline_cuda_device_alloc (bspline_cuda * cuda, size_t size)
{
  void *ptr = NULL;

  if (!cuda)
    return NULL;
  cuda->error[0] = '\0';
  CUDA_CHECK (cuda, select_device (cuda));
  CUDA_TRY (cuda, FAULT_ALLOC, cudaMalloc (&ptr, size));
  return ptr;

fail:
  cudaGetLastError ();
  return NULL;
}

void
bspline_cuda_device_free (bspline_cuda * cuda, void *ptr)
{
  if (cuda && ptr && select_device (cuda) == cudaSuccess)
    cudaFree (ptr);
}
