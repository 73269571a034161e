/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* chain.c: a chain of stages composed for one plan (bspline-chain.h).
 *
 * The stages come in evaluation order: from the output pixel, stage 0's
 * inverse homography, then its lens or STMap stage where it has one (the
 * model, then the lens's post homography), then stage 1's inverse, and so
 * on.  The map is x = s_{n-1} ( ... s_1 ( s_0 (u) ) ), each s_i a
 * homography H_i or a lens stage P_i o D_i o H_i (D_i its model, P_i its
 * post).  Homographies that follow one another with no model between them
 * compose into one 3x3: written right to left as they apply, the run
 * H_j ... H_{k+1} P_k (after lens stage k's model) becomes lens k's new
 * post, and the run H_j ... H_0 before the first model the plan's
 * `inverse` (a chain without a model: the whole map).  Each product is
 * formed as the homographies come, the next one multiplied on the left
 * (bspline_matrix_multiply (next, run)), starting from the run's first
 * matrix itself, so that a run of one matrix is that matrix bit for bit:
 * one lens stage, or one homography, makes the plan it made before
 * chains. */
#include "bspline-chain.h"
#include "base.h"

#include <string.h>

void
bspline_chain_stage_homography (bspline_chain_stage * stage,
    const double inverse[9])
{
  double m[9];

  /* inverse may be stage->inverse itself (gstbsplinechain.c passes it):
   * copied before the stage is cleared */
  memcpy (m, inverse, sizeof (m));
  memset (stage, 0, sizeof (*stage));
  memcpy (stage->inverse, m, sizeof (m));
  stage->lens.model = BSPLINE_LENS_NONE;
}

int
bspline_chain_stage_has_lens (const bspline_chain_stage * stage)
{
  return stage->lens.model != BSPLINE_LENS_NONE;
}

/* m is finite and invertible (bspline_matrix_invert's test); otherwise
 * the error names it (`what`). */
static bspline_status
chain_check (const double m[9], const char *what, int index, char *msg,
    size_t msg_len)
{
  double inv[9];

  if (!bspline_matrix_is_finite (m)) {
    bspline_set_error (msg, msg_len, "%s %d of the warp chain has NaN or "
        "infinite entries", what, index);
    return BSPLINE_ERROR_INVALID_TRANSFORM;
  }
  if (!bspline_matrix_invert (m, inv)) {
    bspline_set_error (msg, msg_len, "%s %d of the warp chain is singular: "
        "it maps the frame onto a line or a point", what, index);
    return BSPLINE_ERROR_INVALID_TRANSFORM;
  }
  return BSPLINE_OK;
}

/* Multiplies m onto the run from the left (the run is empty where
 * *started is 0: m starts it). */
static void
chain_run_apply (double run[9], int *started, const double m[9])
{
  if (*started)
    bspline_matrix_multiply (m, run, run);
  else
    memcpy (run, m, 9 * sizeof (double));
  *started = 1;
}

bspline_status
bspline_chain_compose (const bspline_chain_stage * stages, int n,
    double inverse[9], bspline_lens lenses[BSPLINE_CHAIN_MAX_LENSES],
    int *n_lenses, char *msg, size_t msg_len)
{
  double run[9];
  int i, count = 0, started = 0;
  bspline_status status;

  if (!inverse || !lenses || !n_lenses || n < 0 || (n > 0 && !stages)) {
    bspline_set_error (msg, msg_len, "bspline_chain_compose: a missing "
        "argument, or %d stages", n);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }
  *n_lenses = 0;
  for (i = 0; i < n; i++)
    count += bspline_chain_stage_has_lens (&stages[i]);
  if (count > BSPLINE_CHAIN_MAX_LENSES) {
    bspline_set_error (msg, msg_len, "the warp chain holds %d lens and "
        "STMap stages: one resampling takes at most %d", count,
        BSPLINE_CHAIN_MAX_LENSES);
    return BSPLINE_ERROR_INVALID_ARGUMENT;
  }

  count = 0;
  for (i = 0; i < n; i++) {
    const bspline_chain_stage *stage = &stages[i];

    status = chain_check (stage->inverse, "the homography of stage", i + 1,
        msg, msg_len);
    if (status != BSPLINE_OK)
      return status;
    chain_run_apply (run, &started, stage->inverse);
    if (!bspline_chain_stage_has_lens (stage))
      continue;
    status = chain_check (stage->lens.post, "the lens's post homography of "
        "stage", i + 1, msg, msg_len);
    if (status != BSPLINE_OK)
      return status;
    /* the run ends at this lens's domain: the plan's first homography,
     * or the post of the lens stage before it */
    status = chain_check (run, count == 0 ? "the composed homography "
        "before lens stage" : "the composed post homography before lens "
        "stage", count + 1, msg, msg_len);
    if (status != BSPLINE_OK)
      return status;
    memcpy (count == 0 ? inverse : lenses[count - 1].post, run, sizeof (run));
    lenses[count] = stage->lens;
    memcpy (run, stage->lens.post, sizeof (run));
    count++;
  }
  if (!started)
    bspline_matrix_identity (run);
  status = chain_check (run, count == 0 ? "the composed homography of "
      "stages 1 to" : "the composed post homography after lens stage",
      count == 0 ? n : count, msg, msg_len);
  if (status != BSPLINE_OK)
    return status;
  memcpy (count == 0 ? inverse : lenses[count - 1].post, run, sizeof (run));
  *n_lenses = count;
  return BSPLINE_OK;
}
