/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* prefilter.c: the direct B-spline transform of an image plane.
 *
 * Unser's recursive filters with the exact, boundary-specific
 * initialisations and precision-driven truncation of Briand & Monasse
 * (2018) as presented in Briand & Davy, "Optimization of Image B-spline
 * Interpolation for GPU Architectures", IPOL 9 (2019), section 2. */
#include "resample.h"

#include <stdint.h>
#include <string.h>

#define PREFILTER_MAX_LANES 64
/* The causal pass of the streaming path splits the lines into blocks of
 * at least this many lines (and at least truncation + 2): three groups of
 * four-channel rows, and 45 blocks in a 1080-line frame, enough tasks for
 * 16 threads or more. */
#define CAUSAL_BLOCK_ROWS 24

/* Source row of line `line` of the padded storage of a column, or -1 for
 * a line of the constant extension. */
static int
bspline_source_row (const bspline_plan * plan, int line)
{
  int y = line - plan->pad;
  if (y >= 0 && y < plan->src_height)
    return y;
  if (plan->params.boundary == BSPLINE_BOUNDARY_CONSTANT)
    return -1;
  return y < 0 ? 0 : plan->src_height - 1;
}

int
bspline_causal_blocks (const bspline_plan * plan)
{
  const int n_lines = plan->src_height + 2 * plan->pad;
  const int least = plan->setup.truncation[0] + 2 > CAUSAL_BLOCK_ROWS ?
      plan->setup.truncation[0] + 2 : CAUSAL_BLOCK_ROWS;
  return n_lines / least > 1 ? n_lines / least : 1;
}

/* First line of block `block` of n_blocks over n_lines lines. */
static int
block_first (int n_lines, int n_blocks, int block)
{
  return (int) ((long long) n_lines * block / n_blocks);
}

int
bspline_causal_line_carry (const bspline_plan * plan, int n_blocks, int line)
{
  const int n_lines = plan->src_height + 2 * plan->pad;
  const int block = bspline_causal_block_of_line (plan, n_blocks, line);
  const int offset = line - block_first (n_lines, n_blocks, block);
  return block > 0 && offset < plan->setup.truncation[0] ? offset + 1 : 0;
}

/* The x86 kernels of the prefilter (x86/prefilter-kernels.h):
 * group_out_all_f, load_group_rgba8_f, load_causal_f and
 * anticausal_out_all_f compute what the C loops of prefilter-impl.h
 * compute, bit for bit.  Where they do not apply (always, where
 * BSPLINE_X86_DISPATCH is 0), the first two return 0 and
 * load_causal_usable_f and anticausal_out_usable_f say 0. */
#if BSPLINE_X86_DISPATCH
#include "x86/prefilter-kernels.h"
#else
static int
group_out_all_f (const bspline_plan * plan, const float *buf, int count,
    float *const *out, const float *prev, int chain, float z)
{
  (void) plan, (void) buf, (void) count, (void) out, (void) prev;
  (void) chain, (void) z;
  return 0;
}

static int
load_group_rgba8_f (const bspline_plan * plan, const bspline_image * src,
    float *body, const uint8_t * const *row, float gain, int x0, int x1)
{
  (void) plan, (void) src, (void) body, (void) row, (void) gain;
  (void) x0, (void) x1;
  return 0;
}

static int
load_causal_usable_f (const bspline_plan * plan)
{
  (void) plan;
  return 0;
}

static void
load_causal_f (float *body, const uint8_t * const *row, float gain, float z,
    int x0, int n)
{
  (void) body, (void) row, (void) gain, (void) z, (void) x0, (void) n;
}

static int
anticausal_out_usable_f (const bspline_plan * plan, int count)
{
  (void) plan, (void) count;
  return 0;
}

static void
anticausal_out_all_f (const bspline_plan * plan, float *buf,
    float *const *out, const float *prev, float z)
{
  (void) plan, (void) buf, (void) out, (void) prev, (void) z;
}
#endif

static int
anticausal_out_usable_d (const bspline_plan * plan, int count)
{
  (void) plan, (void) count;
  return 0;
}

static void
anticausal_out_all_d (const bspline_plan * plan, double *buf,
    double *const *out, const double *prev, double z)
{
  (void) plan, (void) buf, (void) out, (void) prev, (void) z;
}

static int
load_group_rgba8_d (const bspline_plan * plan, const bspline_image * src,
    double *body, const uint8_t * const *row, double gain, int x0, int x1)
{
  (void) plan, (void) src, (void) body, (void) row, (void) gain;
  (void) x0, (void) x1;
  return 0;
}

static int
load_causal_usable_d (const bspline_plan * plan)
{
  (void) plan;
  return 0;
}

static void
load_causal_d (double *body, const uint8_t * const *row, double gain,
    double z, int x0, int n)
{
  (void) body, (void) row, (void) gain, (void) z, (void) x0, (void) n;
}

static int
group_out_all_d (const bspline_plan * plan, const double *buf, int count,
    double *const *out, const double *prev, int chain, double z)
{
  (void) plan, (void) buf, (void) count, (void) out, (void) prev;
  (void) chain, (void) z;
  return 0;
}

#define REAL double
#define SUFFIX(name) name##_d
#define MADD BSPLINE_MADD_UNFUSED
#define ANTICAUSAL BSPLINE_ANTICAUSAL_UNFUSED
#include "prefilter-impl.h"
#undef REAL
#undef SUFFIX
#undef MADD
#undef ANTICAUSAL

#define REAL float
#define SUFFIX(name) name##_f
#define MADD fmaf
#define ANTICAUSAL BSPLINE_ANTICAUSAL_FUSED
#include "prefilter-impl.h"
#undef REAL
#undef SUFFIX
#undef MADD
#undef ANTICAUSAL

typedef struct
{
  const bspline_plan *plan;
  const bspline_image *src;
  const bspline_coefficients *coef;
  void *last_line;
  char *scratch;
  size_t worker_size;           /* bytes of scratch per worker */
  int n_lines;                  /* lines of the padded storage */
  int n_bands;
  ptrdiff_t n_values;           /* values per stored row */
} prefilter_job;

static size_t
real_size (const bspline_plan * plan)
{
  return plan->use_double ? sizeof (double) : sizeof (float);
}

/* Per worker: one group of lines and one converted source row, in
 * 64-byte units. */
static size_t
worker_size (const bspline_plan * plan)
{
  size_t width = (size_t) plan->src_width + 2 * (size_t) plan->pad;
  size_t values = width * BSPLINE_GROUP_LANES
      + (size_t) plan->src_width * plan->channels;
  return (values * real_size (plan) + 63) / 64 * 64;
}

size_t
bspline_prefilter_scratch_size (const bspline_plan * plan, int n_workers)
{
  return worker_size (plan) * (size_t) n_workers;
}

static void
band (const prefilter_job * job, int task, int *first, int *last)
{
  *first = (int) ((long long) job->n_lines * task / job->n_bands);
  *last = (int) ((long long) job->n_lines * (task + 1) / job->n_bands);
}

static void
row_task (void *data, int task, int worker)
{
  const prefilter_job *job = data;
  void *scratch = job->scratch + job->worker_size * worker;
  int first, last;
  band (job, task, &first, &last);
  if (job->plan->use_double)
    prefilter_rows_d (job->plan, job->src, job->coef, first, last, scratch);
  else
    prefilter_rows_f (job->plan, job->src, job->coef, first, last, scratch);
}

static void
column_task (void *data, int task, int worker)
{
  const prefilter_job *job = data;
  ptrdiff_t v0 = (ptrdiff_t) task * PREFILTER_MAX_LANES;
  int lanes = (int) (job->n_values - v0 < PREFILTER_MAX_LANES ?
      job->n_values - v0 : PREFILTER_MAX_LANES);
  (void) worker;
  if (job->plan->use_double)
    prefilter_columns_d (job->plan, job->coef, v0, lanes);
  else
    prefilter_columns_f (job->plan, job->coef, v0, lanes);
}

static void
job_init (prefilter_job * job, const bspline_plan * plan,
    const bspline_image * src, const bspline_coefficients * coef,
    void *scratch)
{
  job->plan = plan;
  job->src = src;
  job->coef = coef;
  job->last_line = NULL;
  job->scratch = scratch;
  job->worker_size = worker_size (plan);
  job->n_lines = coef->height + 2 * coef->pad;
  job->n_values = coef->row_len;
}

void
bspline_prefilter_image (bspline_pool * pool, const bspline_plan * plan,
    const bspline_image * src, const bspline_coefficients * coef,
    void *scratch)
{
  prefilter_job job;
  int bands = 4 * bspline_pool_size (pool);

  job_init (&job, plan, src, coef, scratch);
  job.n_bands = job.n_lines < bands ? job.n_lines : bands;
  bspline_pool_run (pool, job.n_bands, row_task, &job);
  if (plan->prefilter && plan->filter_y)
    bspline_pool_run (pool,
        (int) ((job.n_values + PREFILTER_MAX_LANES - 1) /
            PREFILTER_MAX_LANES), column_task, &job);
}

void
bspline_prefilter_causal_block (const bspline_plan * plan,
    const bspline_image * src, const bspline_coefficients * coef,
    void *last_line, void *scratch, int block)
{
  const int n_lines = coef->height + 2 * coef->pad;
  const int n_blocks = bspline_causal_blocks (plan);
  const int first = block_first (n_lines, n_blocks, block);
  const int last = block_first (n_lines, n_blocks, block + 1);
  if (plan->use_double)
    causal_lines_d (plan, src, coef, first, last, last_line, scratch);
  else
    causal_lines_f (plan, src, coef, first, last, last_line, scratch);
}

int
bspline_causal_block_of_line (const bspline_plan * plan, int n_blocks,
    int line)
{
  const int n_lines = plan->src_height + 2 * plan->pad;
  int block = (int) ((long long) line * n_blocks / n_lines);
  while (block + 1 < n_blocks
      && block_first (n_lines, n_blocks, block + 1) <= line)
    block++;
  return block;
}
