/* resample.c: the indirect B-spline transform: evaluating the stored
 * coefficients at the inverse image of every output pixel centre
 * ([BD19] Algorithm 3), on the separable path for axis-aligned maps and on
 * the general path for warps. */
#include "internal.h"

#include <math.h>
#include <string.h>

/* Bands of output rows: enough for any pool to balance its threads. */
#define MAX_BANDS 64

static const double *
table_weights_d (const bspline_axis_table * t)
{
  return t->weight_d;
}

static const float *
table_weights_f (const bspline_axis_table * t)
{
  return t->weight_f;
}

#define REAL double
#define SUFFIX(name) name##_d
#include "resample-impl.h"
#undef REAL
#undef SUFFIX

#define REAL float
#define SUFFIX(name) name##_f
#include "resample-impl.h"
#undef REAL
#undef SUFFIX

typedef struct
{
  const bspline_plan *plan;
  const bspline_coefficients *coef;
  const bspline_image *dst;
  void *tmp;                    /* separable: rows of dst_width * C */
  unsigned char *used;          /* separable: coefficient rows read */
  void *acc;                    /* one row of dst_width * C per band */
  int n_bands, n_rows;
} resample_job;

static int
n_bands (const bspline_plan * plan)
{
  return plan->dst_height < MAX_BANDS ? plan->dst_height : MAX_BANDS;
}

size_t
bspline_resample_scratch_size (const bspline_plan * plan)
{
  size_t real = plan->use_double ? sizeof (double) : sizeof (float);
  size_t row = (size_t) plan->dst_width * plan->channels * real;
  size_t size = row * n_bands (plan);
  if (plan->separable)
    size += row * (size_t) (plan->src_height + 2 * plan->pad)
        + (size_t) (plan->src_height + 2 * plan->pad);
  return size;
}

static void
band (const resample_job * job, int n, int task, int *first, int *last)
{
  *first = (int) ((long long) n * task / job->n_bands);
  *last = (int) ((long long) n * (task + 1) / job->n_bands);
}

static void
rows_task (void *data, int task)
{
  const resample_job *job = data;
  int first, last;
  band (job, job->n_rows, task, &first, &last);
  if (job->plan->use_double)
    separable_rows_d (job->plan, job->coef, job->tmp, job->used, first, last);
  else
    separable_rows_f (job->plan, job->coef, job->tmp, job->used, first, last);
}

static void
columns_task (void *data, int task)
{
  const resample_job *job = data;
  const bspline_plan *plan = job->plan;
  size_t row = (size_t) plan->dst_width * plan->channels;
  int first, last;
  band (job, plan->dst_height, task, &first, &last);
  if (plan->use_double)
    separable_columns_d (plan, job->tmp, (double *) job->acc + row * task,
        job->dst, first, last);
  else
    separable_columns_f (plan, job->tmp, (float *) job->acc + row * task,
        job->dst, first, last);
}

static void
warp_task (void *data, int task)
{
  const resample_job *job = data;
  const bspline_plan *plan = job->plan;
  size_t row = (size_t) plan->dst_width * plan->channels;
  int first, last;
  band (job, plan->dst_height, task, &first, &last);
  if (plan->use_double)
    warp_rows_d (plan, job->coef, (double *) job->acc + row * task, job->dst,
        first, last);
  else
    warp_rows_f (plan, job->coef, (float *) job->acc + row * task, job->dst,
        first, last);
}

void
bspline_resample_image (bspline_pool * pool, const bspline_plan * plan,
    const bspline_coefficients * coef, const bspline_image * dst, void *tmp)
{
  resample_job job;
  size_t real = plan->use_double ? sizeof (double) : sizeof (float);
  size_t row = (size_t) plan->dst_width * plan->channels * real;

  job.plan = plan;
  job.coef = coef;
  job.dst = dst;
  job.n_bands = n_bands (plan);
  job.acc = tmp;
  if (plan->separable) {
    size_t i, n_taps = (size_t) plan->y.n_taps * plan->y.n_out;
    job.n_rows = plan->src_height + 2 * plan->pad;
    job.tmp = (char *) tmp + row * job.n_bands;
    job.used = (unsigned char *) job.tmp + row * job.n_rows;
    /* only the coefficient rows that some output row reads */
    memset (job.used, 0, (size_t) job.n_rows);
    for (i = 0; i < n_taps; i++)
      job.used[plan->y.index[i]] = 1;
    {
      /* pass 1 splits the coefficient rows, pass 2 the output rows */
      int saved = job.n_bands;
      job.n_bands = job.n_rows < MAX_BANDS ? job.n_rows : MAX_BANDS;
      bspline_pool_run (pool, job.n_bands, rows_task, &job);
      job.n_bands = saved;
    }
    bspline_pool_run (pool, job.n_bands, columns_task, &job);
  } else {
    bspline_pool_run (pool, job.n_bands, warp_task, &job);
  }
}

void
bspline_sample_points_coef (const bspline_plan * plan,
    const bspline_coefficients * coef, const double *xy, size_t n_points,
    double *out)
{
  if (plan->use_double)
    sample_points_d (plan, coef, xy, n_points, out);
  else
    sample_points_f (plan, coef, xy, n_points, out);
}
