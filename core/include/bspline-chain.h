/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bspline-chain.h: a chain of geometric stages resampled once.
 *
 * A chain is a list of stages in the order they act on the picture, first
 * the one nearest the frame received (docs/chains.md).  Each stage maps
 * its input frame to its output frame; it is stored as its inverse, as the
 * sampler evaluates it: `inverse` (3x3 row-major homography, bspline.h's
 * convention) takes the stage's output pixel coordinates to its input
 * pixel coordinates, or, where the stage has a lens or STMap stage
 * (lens.model != BSPLINE_LENS_NONE), to that stage's domain (a lens's
 * normalised coordinates, an STMap's map samples), from which `lens` (its
 * model and its `post` homography) takes them on to the stage's input
 * pixel coordinates (bspline-stage.h).
 *
 * All coordinates are pixel coordinates of the frame the stage works on
 * (pixel (i, j) covers [i, i+1) x [j, j+1)).
 *
 * The sampler evaluates a chain backwards, from the output pixel centre
 * to the input point: the last stage's inverse first.  Composing it for
 * one plan multiplies every run of homographies into one 3x3 and keeps
 * the lens and STMap stages as stages, each lens's `post` taking its
 * result on to the next lens's domain (or to the input pixels), so that
 * a chain of homographies keeps the plan's fast paths (separable scaling,
 * affine rows).
 */
#ifndef BSPLINE_CHAIN_H
#define BSPLINE_CHAIN_H

#include "bspline.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* Lens and STMap stages one plan evaluates at most (a chain with more is
 * resampled in more than one pass by whoever holds it). */
#define BSPLINE_CHAIN_MAX_LENSES 4

  typedef struct
  {
    double inverse[9];          /* output px -> lens domain or input px */
    bspline_lens lens;          /* model BSPLINE_LENS_NONE: none */
  } bspline_chain_stage;

/* A stage that is the homography `inverse` alone. */
  BSPLINE_API
  void bspline_chain_stage_homography (bspline_chain_stage * stage,
      const double inverse[9]);

/* 1 where the stage has a lens or STMap stage. */
  BSPLINE_API
  int bspline_chain_stage_has_lens (const bspline_chain_stage * stage);

/* The map of n stages given in EVALUATION order (stages[0] is evaluated
 * first, from the output pixel: the reverse of the order they act on the
 * picture), composed for a plan: *inverse the first homography, lenses[0
 * .. *n_lenses - 1] the lens and STMap stages after it, each with its post
 * homography taking its result to the next one's domain, the last one's
 * to input pixel coordinates (bspline_plan_new_chain).  Lens stages keep
 * their fields (an STMap's map and object are borrowed, not referenced).
 * Fails with BSPLINE_ERROR_INVALID_TRANSFORM where a homography or the
 * composed one is not finite or singular, and with
 * BSPLINE_ERROR_INVALID_ARGUMENT where there are more than
 * BSPLINE_CHAIN_MAX_LENSES lens stages. */
  BSPLINE_API
  bspline_status bspline_chain_compose (const bspline_chain_stage * stages,
      int n, double inverse[9], bspline_lens lenses[BSPLINE_CHAIN_MAX_LENSES],
      int *n_lenses, char *msg, size_t msg_len);

/* A plan whose map is `inverse` followed by lenses[0 .. n_lenses - 1]
 * (bspline_chain_compose's result), as bspline_plan_new_lens is for one
 * lens stage (n_lenses 0: bspline_plan_new).  The plan references the
 * STMaps of its stages. */
  BSPLINE_API
  bspline_status bspline_plan_new_chain (const bspline_params * params,
      const double inverse[9], const bspline_lens * lenses, int n_lenses,
      int src_width, int src_height, int dst_width, int dst_height,
      int channels, bspline_plan ** plan, char *msg, size_t msg_len);

#ifdef __cplusplus
}
#endif
#endif                          /* BSPLINE_CHAIN_H */
