/* engine.c: host side of the GPU engine (plain C on the CUDA runtime API).
 *
 * The runtime is linked statically (libcudart_static), which opens the
 * driver (libcuda) with dlopen on first use: without a driver every call
 * fails with a CUDA error instead of the plugin failing to load. */
#include "bspline-cuda.h"
#include "cuda-kernels.h"
#include "internal.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A device buffer that only grows. */
typedef struct
{
  void *ptr;
  size_t size;
} device_buffer;

struct bspline_cuda
{
  int device;
  char name[256];
  cudaStream_t stream;
  device_buffer src, coef, tmp, dst;
  device_buffer x_index, y_index, x_weight, y_weight;
  unsigned long tables_serial;  /* plan whose tables are on the device */
  /* precision=fast: a texture over a copy of the coefficients */
  cudaArray_t texture_array;
  cudaTextureObject_t texture;
  int texture_width, texture_height, texture_channels, texture_boundary;
  char error[512];
};

/* Every CUDA call goes through CUDA_CHECK: on failure the engine's error
 * names the call and CUDA's error string, and control goes to `fail`. */
#define CUDA_CHECK(cuda, call) \
  do { \
    cudaError_t err_ = (call); \
    if (err_ != cudaSuccess) { \
      snprintf ((cuda)->error, sizeof ((cuda)->error), "%s failed: %s (%s)", \
          #call, cudaGetErrorString (err_), cudaGetErrorName (err_)); \
      goto fail; \
    } \
  } while (0)

int
bspline_cuda_device_count (char *msg, size_t msg_len)
{
  int n = 0;
  cudaError_t err = cudaGetDeviceCount (&n);
  if (err != cudaSuccess) {
    bspline_set_error (msg, msg_len, "no usable CUDA device: %s",
        cudaGetErrorString (err));
    /* the failed query leaves a sticky error in this thread's state */
    cudaGetLastError ();
    return 0;
  }
  if (n == 0)
    bspline_set_error (msg, msg_len, "no CUDA device found");
  return n;
}

bspline_status
bspline_cuda_new (int device_id, bspline_cuda ** out, char *msg,
    size_t msg_len)
{
  bspline_cuda *cuda;
  struct cudaDeviceProp prop;
  int n = bspline_cuda_device_count (msg, msg_len);

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
  CUDA_CHECK (cuda, cudaSetDevice (cuda->device));
  CUDA_CHECK (cuda, cudaGetDeviceProperties (&prop, cuda->device));
  snprintf (cuda->name, sizeof (cuda->name), "%s", prop.name);
  CUDA_CHECK (cuda, cudaStreamCreateWithFlags (&cuda->stream,
          cudaStreamNonBlocking));
  *out = cuda;
  return BSPLINE_OK;

fail:
  bspline_set_error (msg, msg_len, "%s", cuda->error);
  free (cuda);
  return BSPLINE_ERROR_BACKEND;
}

static void
buffer_free (device_buffer * b)
{
  if (b->ptr)
    cudaFree (b->ptr);
  b->ptr = NULL;
  b->size = 0;
}

static void
texture_free (bspline_cuda * cuda)
{
  if (cuda->texture)
    cudaDestroyTextureObject (cuda->texture);
  if (cuda->texture_array)
    cudaFreeArray (cuda->texture_array);
  cuda->texture = 0;
  cuda->texture_array = NULL;
  cuda->texture_width = 0;
}

void
bspline_cuda_free (bspline_cuda * cuda)
{
  if (!cuda)
    return;
  cudaSetDevice (cuda->device);
  if (cuda->stream)
    cudaStreamSynchronize (cuda->stream);
  texture_free (cuda);
  buffer_free (&cuda->src);
  buffer_free (&cuda->coef);
  buffer_free (&cuda->tmp);
  buffer_free (&cuda->dst);
  buffer_free (&cuda->x_index);
  buffer_free (&cuda->y_index);
  buffer_free (&cuda->x_weight);
  buffer_free (&cuda->y_weight);
  if (cuda->stream)
    cudaStreamDestroy (cuda->stream);
  free (cuda);
}

const char *
bspline_cuda_last_error (const bspline_cuda * cuda)
{
  return cuda->error;
}

const char *
bspline_cuda_device_name (const bspline_cuda * cuda)
{
  return cuda->name;
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

static size_t
sample_bytes (bspline_sample_type type)
{
  return type == BSPLINE_SAMPLE_U8 ? 1 : type == BSPLINE_SAMPLE_U16 ? 2 :
      type == BSPLINE_SAMPLE_F32 ? 4 : 8;
}

/* Row pitch on the device: rows start on 256-byte boundaries. */
static size_t
device_pitch (const bspline_image * img)
{
  size_t row = sample_bytes (img->type) * img->channels * (size_t) img->width;
  return (row + 255) & ~(size_t) 255;
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
  f->axis_x = plan->axis_x;
  f->axis_y = plan->axis_y;
}

/* Uploads the separable tables of plan unless they are already there. */
static bspline_status
upload_tables (bspline_cuda * cuda, const bspline_plan * plan,
    bspline_gpu_tables * t)
{
  size_t real = plan->use_double ? sizeof (double) : sizeof (float);
  size_t nx = (size_t) plan->x.n_out * plan->x.n_taps;
  size_t ny = (size_t) plan->y.n_out * plan->y.n_taps;
  const void *xw = plan->use_double ? (const void *) plan->x.weight_d :
      (const void *) plan->x.weight_f;
  const void *yw = plan->use_double ? (const void *) plan->y.weight_d :
      (const void *) plan->y.weight_f;

  if (cuda->tables_serial != plan->serial) {
    cuda->tables_serial = 0;
    CUDA_CHECK (cuda, buffer_ensure (&cuda->x_index, nx * sizeof (int)));
    CUDA_CHECK (cuda, buffer_ensure (&cuda->y_index, ny * sizeof (int)));
    CUDA_CHECK (cuda, buffer_ensure (&cuda->x_weight, nx * real));
    CUDA_CHECK (cuda, buffer_ensure (&cuda->y_weight, ny * real));
    CUDA_CHECK (cuda, cudaMemcpyAsync (cuda->x_index.ptr, plan->x.index,
            nx * sizeof (int), cudaMemcpyHostToDevice, cuda->stream));
    CUDA_CHECK (cuda, cudaMemcpyAsync (cuda->y_index.ptr, plan->y.index,
            ny * sizeof (int), cudaMemcpyHostToDevice, cuda->stream));
    CUDA_CHECK (cuda, cudaMemcpyAsync (cuda->x_weight.ptr, xw, nx * real,
            cudaMemcpyHostToDevice, cuda->stream));
    CUDA_CHECK (cuda, cudaMemcpyAsync (cuda->y_weight.ptr, yw, ny * real,
            cudaMemcpyHostToDevice, cuda->stream));
    cuda->tables_serial = plan->serial;
  }
  t->x_index = cuda->x_index.ptr;
  t->y_index = cuda->y_index.ptr;
  t->x_weight = cuda->x_weight.ptr;
  t->y_weight = cuda->y_weight.ptr;
  t->x_taps = plan->x.n_taps;
  t->y_taps = plan->y.n_taps;
  return BSPLINE_OK;

fail:
  return BSPLINE_ERROR_BACKEND;
}

/* Whether the plan runs on the texture path: precision=fast, the general
 * path, B-spline order 1 or 3, a boundary the texture unit can address
 * (reflect = mirror addressing, wrap, and the padded clamp/constant) and a
 * texel format for the channels (1, 2 or 4 floats).  Other plans with
 * precision=fast run the float path. */
static int
uses_texture (const bspline_plan * plan)
{
  const bspline_params *p = &plan->params;
  return p->precision == BSPLINE_PRECISION_FAST && !plan->separable
      && p->method == BSPLINE_METHOD_BSPLINE && (p->order == 1
      || p->order == 3) && p->boundary != BSPLINE_BOUNDARY_MIRROR
      && plan->channels != 3;
}

/* Copies the coefficients into the texture's array (created or kept). */
static bspline_status
update_texture (bspline_cuda * cuda, const bspline_plan * plan,
    int *normalized)
{
  const int C = plan->channels;
  const int wc = plan->src_width + 2 * plan->pad;
  const int hc = plan->src_height + 2 * plan->pad;
  const int boundary = plan->params.boundary;
  struct cudaChannelFormatDesc desc;
  struct cudaResourceDesc res;
  struct cudaTextureDesc tex;
  enum cudaTextureAddressMode mode;

  *normalized = boundary == BSPLINE_BOUNDARY_REFLECT
      || boundary == BSPLINE_BOUNDARY_WRAP;
  if (cuda->texture_width != wc || cuda->texture_height != hc
      || cuda->texture_channels != C || cuda->texture_boundary != boundary) {
    texture_free (cuda);
    desc = cudaCreateChannelDesc (32, C > 1 ? 32 : 0, C > 2 ? 32 : 0,
        C > 2 ? 32 : 0, cudaChannelFormatKindFloat);
    CUDA_CHECK (cuda, cudaMallocArray (&cuda->texture_array, &desc, wc, hc,
            cudaArrayDefault));
    memset (&res, 0, sizeof (res));
    res.resType = cudaResourceTypeArray;
    res.res.array.array = cuda->texture_array;
    memset (&tex, 0, sizeof (tex));
    mode = boundary == BSPLINE_BOUNDARY_REFLECT ? cudaAddressModeMirror :
        boundary == BSPLINE_BOUNDARY_WRAP ? cudaAddressModeWrap :
        cudaAddressModeClamp;
    tex.addressMode[0] = mode;
    tex.addressMode[1] = mode;
    tex.filterMode = cudaFilterModeLinear;
    tex.readMode = cudaReadModeElementType;
    tex.normalizedCoords = *normalized;
    CUDA_CHECK (cuda, cudaCreateTextureObject (&cuda->texture, &res, &tex,
            NULL));
    cuda->texture_width = wc;
    cuda->texture_height = hc;
    cuda->texture_channels = C;
    cuda->texture_boundary = boundary;
  }
  CUDA_CHECK (cuda, cudaMemcpy2DToArrayAsync (cuda->texture_array, 0, 0,
          cuda->coef.ptr, (size_t) wc * C * sizeof (float),
          (size_t) wc * C * sizeof (float), hc, cudaMemcpyDeviceToDevice,
          cuda->stream));
  return BSPLINE_OK;

fail:
  texture_free (cuda);
  return BSPLINE_ERROR_BACKEND;
}

bspline_status
bspline_cuda_execute (bspline_cuda * cuda, const bspline_plan * plan,
    const bspline_image * src, const bspline_image * dst)
{
  bspline_gpu_frame f;
  bspline_gpu_tables tables;
  char msg[256];
  size_t real, src_pitch, dst_pitch, coef_bytes, tmp_bytes = 0;
  bspline_status status;

  if (!cuda)
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  cuda->error[0] = '\0';
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

  real = plan->use_double ? sizeof (double) : sizeof (float);
  src_pitch = device_pitch (src);
  dst_pitch = device_pitch (dst);
  coef_bytes = (size_t) (plan->src_width + 2 * plan->pad)
      * (plan->src_height + 2 * plan->pad) * plan->channels * real;
  if (plan->separable)
    tmp_bytes = (size_t) (plan->src_height + 2 * plan->pad)
        * plan->dst_width * plan->channels * real;
  describe_frame (plan, src, dst, &f);

  CUDA_CHECK (cuda, cudaSetDevice (cuda->device));
  CUDA_CHECK (cuda, buffer_ensure (&cuda->src, src_pitch * src->height));
  CUDA_CHECK (cuda, buffer_ensure (&cuda->coef, coef_bytes));
  CUDA_CHECK (cuda, buffer_ensure (&cuda->dst, dst_pitch * dst->height));
  if (plan->separable) {
    CUDA_CHECK (cuda, buffer_ensure (&cuda->tmp, tmp_bytes));
    status = upload_tables (cuda, plan, &tables);
    if (status != BSPLINE_OK)
      return status;
  }
  CUDA_CHECK (cuda, cudaMemcpy2DAsync (cuda->src.ptr, src_pitch, src->data,
          src->stride, sample_bytes (src->type) * src->channels * src->width,
          src->height, cudaMemcpyHostToDevice, cuda->stream));
  CUDA_CHECK (cuda, (cudaError_t) bspline_gpu_prefilter (&f, cuda->src.ptr,
          src_pitch, cuda->coef.ptr, cuda->stream));
  if (uses_texture (plan)) {
    int normalized;
    status = update_texture (cuda, plan, &normalized);
    if (status != BSPLINE_OK)
      goto fail;
    CUDA_CHECK (cuda, (cudaError_t) bspline_gpu_resample_fast (&f,
            cuda->texture, normalized, cuda->coef.ptr, cuda->dst.ptr,
            dst_pitch, cuda->stream));
  } else {
    CUDA_CHECK (cuda, (cudaError_t) bspline_gpu_resample (&f,
            cuda->coef.ptr, plan->separable ? &tables : NULL, cuda->tmp.ptr,
            cuda->dst.ptr, dst_pitch, cuda->stream));
  }
  CUDA_CHECK (cuda, cudaMemcpy2DAsync (dst->data, dst->stride, cuda->dst.ptr,
          dst_pitch, sample_bytes (dst->type) * dst->channels * dst->width,
          dst->height, cudaMemcpyDeviceToHost, cuda->stream));
  CUDA_CHECK (cuda, cudaStreamSynchronize (cuda->stream));
  return BSPLINE_OK;

fail:
  /* leave nothing queued that could still write into dst */
  cudaStreamSynchronize (cuda->stream);
  cudaGetLastError ();
  return BSPLINE_ERROR_BACKEND;
}
