/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* engine.c: the CPU engine, which runs plans on images with a thread pool and
 * keeps its coefficient and scratch buffers from frame to frame. */
#include "atlas.h"
#include "resample.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct bspline_cpu
{
  bspline_pool *pool;
  void *coef;
  size_t coef_size;
  void *scratch;
  size_t scratch_size;
  void *inter;                  /* a reduction's intermediate plane */
  size_t inter_size;
  void *shrunk;                 /* a shrinking warp's fine grid */
  size_t shrunk_size;
  void *atlas;                  /* a projection input's atlas */
  size_t atlas_size;
  bspline_ripmap *ripmap;       /* a lens plan's levels (ripmap.c) */
  char error[256];
};

bspline_cpu *
bspline_cpu_new (int n_threads)
{
  bspline_cpu *cpu = calloc (1, sizeof (*cpu));
  if (!cpu)
    return NULL;
  cpu->pool = bspline_pool_new (n_threads);
  if (!cpu->pool) {
    free (cpu);
    return NULL;
  }
  return cpu;
}

void
bspline_cpu_free (bspline_cpu * cpu)
{
  if (!cpu)
    return;
  bspline_pool_free (cpu->pool);
  free (cpu->coef);
  free (cpu->scratch);
  free (cpu->inter);
  free (cpu->shrunk);
  free (cpu->atlas);
  bspline_ripmap_free (cpu->ripmap);
  free (cpu);
}

int
bspline_cpu_n_threads (const bspline_cpu * cpu)
{
  return bspline_pool_size (cpu->pool);
}

bspline_pool *
bspline_cpu_pool (bspline_cpu * cpu)
{
  return cpu->pool;
}

uint64_t
bspline_cpu_lens_taps (const bspline_cpu * cpu)
{
  return cpu->ripmap ? bspline_ripmap_taps (cpu->ripmap) : 0;
}

const char *
bspline_cpu_last_error (const bspline_cpu * cpu)
{
  return cpu->error;
}

/* The machine's memory in bytes, 0 where the system does not say. */
static uint64_t
physical_memory (void)
{
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
  if (pages > 0 && page > 0)
    return (uint64_t) pages *(uint64_t) page;
#endif
  return 0;
}

/* Grows *buf to at least size bytes, aligned for any vector load and
 * zeroed (the engine's passes then never read garbage, which may hold
 * denormals, from a buffer they do not fully write); 0 on failure (the old
 * buffer stays).  A size past the machine's memory fails before it is
 * asked for: where the system overcommits, the allocation would succeed
 * and zeroing it would bring the out-of-memory killer. */
static int
ensure (void **buf, size_t *have, size_t size)
{
  uint64_t memory;
  void *p;
  if (size <= *have)
    return 1;
  memory = physical_memory ();
  if ((memory > 0 && (uint64_t) size > memory)
      || posix_memalign (&p, 64, size) != 0)
    return 0;
  memset (p, 0, size);
  free (*buf);
  *buf = p;
  *have = size;
  return 1;
}

/* Describes and allocates the coefficient planes of plan's source, and
 * after them one more row (*last_line) for the streaming path. */
static bspline_status
prepare_coefficients (bspline_cpu * cpu, const bspline_plan * plan,
    bspline_coefficients * coef, void **last_line)
{
  size_t real = plan->use_double ? sizeof (double) : sizeof (float);
  uint64_t w = (uint64_t) plan->src_width + 2 * (uint64_t) plan->pad;
  uint64_t h = (uint64_t) plan->src_height + 2 * (uint64_t) plan->pad;
  uint64_t plane = (w * h * (uint64_t) plan->channels * real + 63) / 64 * 64;
  uint64_t bytes = plane + w * (uint64_t) plan->channels * real;

  if (bytes > (uint64_t) PTRDIFF_MAX / 2 || !ensure (&cpu->coef,
          &cpu->coef_size, (size_t) bytes)) {
    snprintf (cpu->error, sizeof (cpu->error), "cannot allocate %llu MiB "
        "of coefficients for a %dx%d frame",
        (unsigned long long) (bytes >> 20), plan->src_width, plan->src_height);
    return BSPLINE_ERROR_NO_MEMORY;
  }
  coef->data = cpu->coef;
  coef->width = plan->src_width;
  coef->height = plan->src_height;
  coef->pad = plan->pad;
  coef->channels = plan->channels;
  coef->row_len = (ptrdiff_t) w *plan->channels;
  *last_line = (char *) cpu->coef + plane;
  return BSPLINE_OK;
}

/* Allocates the scratch of both passes: prefilter first, then resample. */
static bspline_status
prepare_scratch (bspline_cpu * cpu, const bspline_plan * plan,
    void **prefilter, void **resample)
{
  int n = bspline_pool_size (cpu->pool);
  size_t first = (bspline_prefilter_scratch_size (plan, n) + 63) / 64 * 64;
  size_t size = first + bspline_resample_scratch_size (plan, n);
  if (!ensure (&cpu->scratch, &cpu->scratch_size, size)) {
    snprintf (cpu->error, sizeof (cpu->error), "cannot allocate %zu MiB of "
        "scratch for a %dx%d output", size >> 20, plan->dst_width,
        plan->dst_height);
    return BSPLINE_ERROR_NO_MEMORY;
  }
  *prefilter = cpu->scratch;
  *resample = (char *) cpu->scratch + first;
  return BSPLINE_OK;
}

static bspline_status
check_image (bspline_cpu * cpu, const bspline_image * img, const char *what,
    int width, int height, int channels)
{
  char msg[200];
  bspline_status status = bspline_image_validate (img, 1, msg, sizeof (msg));
  if (status != BSPLINE_OK) {
    snprintf (cpu->error, sizeof (cpu->error), "%s: %s", what, msg);
    return status;
  }
  if (img->width != width || img->height != height || img->channels != channels) {
    snprintf (cpu->error, sizeof (cpu->error), "%s is %dx%d with %d "
        "channels, the plan expects %dx%d with %d", what, img->width,
        img->height, img->channels, width, height, channels);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  return BSPLINE_OK;
}

/* Runs one plan (not a reduction) on checked images.  A lens plan whose
 * cached points read a window of the input (bspline_point_cache_window)
 * runs as its copy on that window. */
static bspline_status
execute_plan (bspline_cpu * cpu, const bspline_plan * plan,
    const bspline_image * src, const bspline_image * dst)
{
  bspline_coefficients coef;
  bspline_status status;
  void *last_line, *prefilter_scratch, *resample_scratch;
  bspline_plan window;
  bspline_image part;
  int w[4];

  if (bspline_point_cache_window (plan, w)) {
    window = *plan;
    window.src_width = window.axis_x.len = w[2];
    window.src_height = window.axis_y.len = w[3];
    window.in_window = 1;
    part = *src;
    part.data = (char *) src->data + (ptrdiff_t) w[1] * src->stride
        + (ptrdiff_t) w[0] * src->channels
        * (ptrdiff_t) bspline_sample_size (src->type);
    part.width = w[2];
    part.height = w[3];
    plan = &window;
    src = &part;
  }
  status = prepare_coefficients (cpu, plan, &coef, &last_line);
  if (status == BSPLINE_OK)
    status = prepare_scratch (cpu, plan, &prefilter_scratch, &resample_scratch);
  if (status != BSPLINE_OK)
    return status;
  if (plan->n_lenses > 0 && !cpu->ripmap
      && !(cpu->ripmap = bspline_ripmap_new ())) {
    snprintf (cpu->error, sizeof (cpu->error), "out of memory for the "
        "levels of a lens plan");
    return BSPLINE_ERROR_NO_MEMORY;
  }
  if (bspline_separable_streams (plan)) {
    bspline_resample_streaming (cpu->pool, plan, src, &coef, last_line, dst,
        prefilter_scratch, resample_scratch);
  } else {
    bspline_prefilter_image (cpu->pool, plan, src, &coef, prefilter_scratch);
    bspline_resample_image (cpu->pool, plan, &coef, dst, cpu->ripmap,
        resample_scratch);
  }
  return BSPLINE_OK;
}

/* A plane of width x height values of the real type in *buf (grown to
 * fit), described as an image. */
static bspline_status
plane_image (bspline_cpu * cpu, void **buf, size_t *have, int use_double,
    int width, int height, int channels, bspline_image * img)
{
  uint64_t bytes = bspline_plane_image (use_double, width, height, channels,
      img);
  if (bytes > (uint64_t) PTRDIFF_MAX / 2 || !ensure (buf, have,
          (size_t) bytes)) {
    snprintf (cpu->error, sizeof (cpu->error), "cannot allocate %llu MiB "
        "for an intermediate %dx%d plane", (unsigned long long) (bytes >> 20),
        width, height);
    return BSPLINE_ERROR_NO_MEMORY;
  }
  img->data = *buf;
  return BSPLINE_OK;
}

/* Runs any plan on checked images: a least-squares reduction
 * (reduce.c) runs its two plans through the intermediate plane, a
 * shrinking warp its warp onto the fine grid and then its reduction from
 * there. */
static bspline_status
execute_any (bspline_cpu * cpu, const bspline_plan * plan,
    const bspline_image * src, const bspline_image * dst)
{
  bspline_image inter;
  bspline_status status;
  int window[4];

  if (plan->atlas) {
    const bspline_atlas *atlas = plan->atlas;
    size_t pixel = bspline_sample_size (src->type) * (size_t) src->channels;
    size_t bytes = pixel * (size_t) atlas->width * atlas->height;
    if (!ensure (&cpu->atlas, &cpu->atlas_size, bytes)) {
      snprintf (cpu->error, sizeof (cpu->error), "cannot allocate %zu MiB "
          "for the %dx%d atlas of the input", bytes >> 20, atlas->width,
          atlas->height);
      return BSPLINE_ERROR_NO_MEMORY;
    }
    inter = *src;
    inter.data = cpu->atlas;
    inter.width = atlas->width;
    inter.height = atlas->height;
    inter.stride = (ptrdiff_t) (pixel * atlas->width);
    /* the atlas plan's window only, where it reads one (the same window
     * then: a cache once ready stays so) */
    bspline_atlas_gather (cpu->pool, atlas, src, &inter,
        bspline_point_cache_window (plan->atlas_plan, window) ? window :
        NULL);
    return execute_any (cpu, plan->atlas_plan, &inter, dst);
  }
  if (plan->warp) {
    status = plane_image (cpu, &cpu->shrunk, &cpu->shrunk_size,
        plan->warp->use_double, plan->warp->dst_width,
        plan->warp->dst_height, plan->channels, &inter);
    if (status == BSPLINE_OK)
      status = execute_plan (cpu, plan->warp, src, &inter);
    if (status == BSPLINE_OK)
      status = execute_any (cpu, plan->shrink, &inter, dst);
    return status;
  }
  if (plan->reduce && plan->reduce->fold) {
    uint64_t bytes = bspline_fold_plane (plan, &inter);
    size_t scratch = bspline_fold_scratch_size (plan,
        bspline_pool_size (cpu->pool));
    if (bytes > (uint64_t) PTRDIFF_MAX / 2 || !ensure (&cpu->inter,
            &cpu->inter_size, (size_t) bytes)
        || !ensure (&cpu->scratch, &cpu->scratch_size, scratch)) {
      snprintf (cpu->error, sizeof (cpu->error), "cannot allocate %llu MiB "
          "for an intermediate %dx%d plane", (unsigned long long) ((bytes
                  + scratch) >> 20), inter.width, inter.height);
      return BSPLINE_ERROR_NO_MEMORY;
    }
    inter.data = cpu->inter;
    bspline_fold_execute (cpu->pool, plan, src, dst, &inter, cpu->scratch);
    return BSPLINE_OK;
  }
  if (plan->reduce) {
    const bspline_reduction *r = plan->reduce;
    status = plane_image (cpu, &cpu->inter, &cpu->inter_size,
        r->project->use_double, r->width, r->height, plan->channels, &inter);
    if (status == BSPLINE_OK)
      status = execute_plan (cpu, r->project, src, &inter);
    if (status == BSPLINE_OK)
      status = execute_plan (cpu, r->sample, &inter, dst);
    return status;
  }
  return execute_plan (cpu, plan, src, dst);
}

bspline_status
bspline_cpu_execute (bspline_cpu * cpu, const bspline_plan * plan,
    const bspline_image * src, const bspline_image * dst)
{
  bspline_status status;

  if (!cpu)
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  cpu->error[0] = '\0';
  if (!plan) {
    snprintf (cpu->error, sizeof (cpu->error), "no plan given");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  status = check_image (cpu, src, "source image", plan->src_width,
      plan->src_height, plan->channels);
  if (status == BSPLINE_OK)
    status = check_image (cpu, dst, "destination image", plan->dst_width,
        plan->dst_height, plan->channels);
  if (status != BSPLINE_OK)
    return status;
  return execute_any (cpu, plan, src, dst);
}

bspline_status
bspline_cpu_sample_points (bspline_cpu * cpu, const bspline_params * params,
    const bspline_image * src, const double *xy, size_t n_points, double *out)
{
  static const double identity[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
  bspline_coefficients coef;
  bspline_plan *plan;
  bspline_status status;
  void *last_line, *prefilter_scratch, *resample_scratch;
  char msg[200];

  if (!cpu)
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  cpu->error[0] = '\0';
  if (!src || (n_points > 0 && (!xy || !out))) {
    snprintf (cpu->error, sizeof (cpu->error), "missing image, coordinates "
        "or output");
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  status = bspline_image_validate (src, 1, msg, sizeof (msg));
  if (status == BSPLINE_OK)
    status = bspline_plan_new (params, identity, src->width, src->height, 1,
        1, src->channels, &plan, msg, sizeof (msg));
  if (status != BSPLINE_OK) {
    snprintf (cpu->error, sizeof (cpu->error), "%s", msg);
    return status;
  }
  status = prepare_coefficients (cpu, plan, &coef, &last_line);
  if (status == BSPLINE_OK)
    status = prepare_scratch (cpu, plan, &prefilter_scratch, &resample_scratch);
  if (status == BSPLINE_OK) {
    bspline_prefilter_image (cpu->pool, plan, src, &coef, prefilter_scratch);
    bspline_sample_points_coef (plan, &coef, xy, n_points, out);
  }
  bspline_plan_free (plan);
  return status;
}
