/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cuda-kernels.h: what the host code (engine.c, C) and the kernels
 * (prefilter.cu, separable.cu, fused.cu, warp.cu, texture.cu) exchange.
 * Plain C structs passed by value to kernels. */
#ifndef BSPLINE_CUDA_KERNELS_H
#define BSPLINE_CUDA_KERNELS_H

#include "bspline.h"
#include "bspline-chain.h"
#include "bspline-math.h"           /* BSPLINE_HD */

#ifdef __cplusplus
extern "C" {
#endif

/* One plane's plan, flattened for the device. */
typedef struct
{
  int use_double;
  int channels;
  int src_width, src_height, dst_width, dst_height;
  int pad;
  int boundary;
  int n_poles;
  double poles[BSPLINE_MAX_POLES];
  int truncation[BSPLINE_MAX_POLES];
  double gain;                  /* of one axis (constant's fill lines) */
  double gain2;                 /* of the filtered axes together */
  int filter_x, filter_y;       /* axes the prefilter runs along (a
                                 * reduction's sample plan: the reduced
                                 * ones only) */
  double fill[BSPLINE_MAX_CHANNELS];
  int src_type, src_shift;
  int dst_type, dst_bits, dst_shift;
  double inverse[9];
  int widen;
  double max_widen;
  /* the widening of an affine map, the same at every pixel
   * (bspline_plan_affine_widening); read only for affine maps (perspective
   * maps take bspline_footprint per pixel) */
  double affine_widen[2];
  bspline_axis axis_x, axis_y;
    /* lens stages after the homography, lens[0] first (general path only):
     * the map is bspline_stage_map_point's, the widening
     * bspline_stage_footprint's; an STMap stage's map points at the slot's
     * device copy (engine.c, upload_stmaps) */
    int n_lenses;
    bspline_lens lens[BSPLINE_CHAIN_MAX_LENSES];
  /* a lens plan's levels of its widened kernel (bspline-stage.h):
   * BSPLINE_RIPMAP_LEVELS^2 device pointers, level (lx, ly) at
   * lx * BSPLINE_RIPMAP_LEVELS + ly, NULL where not made (engine.c,
   * lens_levels); NULL: the plan reads no levels (its widening then at
   * most max_widen) */
  const void *const *levels;
  /* the coefficient plane: 0, in the real type; 1, precision=compact's
   * 16-bit plane (engine.c, uses_compact): int16_t values q, the
   * coefficient compact_mid + q compact_step (bspline_compact_scale) */
  int compact;
  float compact_mid, compact_step, compact_inv_step;
} bspline_gpu_frame;

/* The frame is a kernel parameter, passed by value: CUDA takes at most
 * 4096 bytes of parameters per launch (CUDA C++ Programming Guide,
 * "Function Parameters"; larger only from CUDA 12.1 on Volta and newer).
 * With four lens stages it holds 1960 bytes on x86-64 (1944 before the
 * 16-bit plane's fields; 432 before the stages and the levels' pointer,
 * 376 each, of which 152 a projection stage's; 1936 before the levels'
 * pointer, 1328 before projections, 632 with the one stage of 2x3 post
 * it held before chains), and the kernels' other parameters a few dozen more.  Kept
 * under half the limit here, so that a field added later cannot pass it
 * unseen (a negative array size where it would). */
  typedef char bspline_gpu_frame_fits_a_launch[sizeof (bspline_gpu_frame)
      <= 2048 ? 1 : -1];

/* Device copies of the separable path's tables; weights in the frame's
 * arithmetic type.  x_first / y_first: each output's first tap before the
 * boundary's map (bspline_axis_table.first).  The fused passes
 * (bspline_gpu_fused_usable) need, per axis, first[] monotonic in the
 * output index (dir = 1 rising, -1 falling) and the margin: the most any
 * output's taps reach past the window of its centre tap (outside
 * [0, padded length) for the first and last windows); margin -1: not
 * monotonic, or too wide for the windows. */
typedef struct
{
  const int *x_index, *y_index;
  const void *x_weight, *y_weight;
  int x_taps, y_taps;
  const int *x_first, *y_first;
  int x_dir, y_dir;
  int x_margin, y_margin;
  int y_most;                   /* most outputs of a window of y */
} bspline_gpu_tables;

/* Interior samples of the fused passes' windows (and of the tiled
 * prefilter's narrow ones). */
#define BSPLINE_GPU_FUSED_SPAN 64

/* The lens table of a float warp plan with a lens (or STMap) stage: per
 * output pixel (row-major, dst_width a row), where it samples the input
 * less its centre, (x - j - 0.5, y - i - 0.5), in fixed point with
 * BSPLINE_GPU_LENS_BITS fraction bits (within 2^-21 pixel of the
 * stage's double), or in x one of the marks: BSPLINE_GPU_LENS_FILL (no
 * input point) or BSPLINE_GPU_LENS_OWN (the pixel computes its point
 * itself: it samples over BSPLINE_GPU_LENS_REACH pixels away).  A plan
 * run again reads its points from the table in place of evaluating the
 * stage (the engine builds it on a plan's second run in a slot). */
#define BSPLINE_GPU_LENS_BITS 20
#define BSPLINE_GPU_LENS_REACH 2000.0
#define BSPLINE_GPU_LENS_FILL (-2147483647 - 1)
#define BSPLINE_GPU_LENS_OWN (-2147483647)

/* Where f widens the kernel (antialiasing), the table goes on: from
 * bspline_gpu_lens_wide_offset bytes (the points' pairs rounded up to an
 * even count, so that the next part is 16-byte aligned), each pixel's
 * (widen_x, widen_y) as a double2, then a byte a pixel, 1 where the
 * kernel widens and the table holds the point (the pixel is then
 * lens_wide_kernel's, lens-wide.cu), else 0. */
BSPLINE_HD static inline size_t
bspline_gpu_lens_wide_offset (int width, int height)
{
  return (((size_t) width * height + 1) & ~(size_t) 1) * 2 * sizeof (int);
}

BSPLINE_HD static inline size_t
bspline_gpu_lens_flags_offset (int width, int height)
{
  return bspline_gpu_lens_wide_offset (width, height) + (size_t) width
      * height * 2 * sizeof (double);
}

BSPLINE_HD static inline size_t
bspline_gpu_lens_table_bytes (int width, int height, int widen)
{
  return widen ? bspline_gpu_lens_flags_offset (width, height) + (size_t)
      width * height : (size_t) width * height * 2 * sizeof (int);
}

/* The pixels of f (a float plan with a lens stage that widens) whose
 * kernel widens and whose points lens_xy (f's lens table) holds
 * (lens-wide.cu); warp.cu's kernel leaves them.  list: list[0] their
 * count, then their indices (row-major), as bspline_gpu_lens_wide_list
 * makes it from the table (dst_width x dst_height + 1 ints), once per
 * plan. */
int bspline_gpu_lens_wide_list (const bspline_gpu_frame * f,
    const int *lens_xy, int *list, void *stream);
int bspline_gpu_lens_wide (const bspline_gpu_frame * f, const float *coef,
    const int *lens_xy, const int *list, unsigned char *dst,
    size_t dst_pitch, void *stream);

/* Fills f's lens table (dst_width x dst_height pairs of int, and the
 * footprints where f widens). */
int bspline_gpu_lens_table (const bspline_gpu_frame * f, int *table,
    void *stream);

/* The levels of a lens plan's widened kernel (ripmap.cu; the layout of
 * core/resample/ripmap.c: level l of an axis bspline_level_axis, its
 * samples bspline_level_stored, rows of the x axis's samples times
 * channels values).  bspline_gpu_lens_levels adds to count[lx *
 * BSPLINE_RIPMAP_LEVELS + ly] (device memory, zeroed by the caller) the
 * output pixels of f that read level (lx, ly) above (0, 0);
 * bspline_gpu_level_step makes level (lx, ly) of f (lx or ly >= 1) in
 * dst from src, level (lx - 1, ly) where lx >= 1, else (0, ly - 1) (the
 * coefficient plane at (0, 0)), in f's real type. */
int bspline_gpu_lens_levels (const bspline_gpu_frame * f, int *count,
    void *stream);
int bspline_gpu_level_step (const bspline_gpu_frame * f, int lx, int ly,
    const void *src, void *dst, void *stream);

/* Both return a cudaError_t as int (0 = success) from the launches.
 * scratch: a second plane the size of coef, for the segmented
 * prefilter's causal pass.  f->compact: coef is the 16-bit plane, which
 * bspline_gpu_prefilter writes where bspline_gpu_prefilter_compact_usable
 * (a float plan whose one-pole prefilter the tile kernel takes: orders 2
 * and 3) and bspline_gpu_resample reads for a general-path plan of one or
 * four channels without lens stages. */
int bspline_gpu_prefilter_compact_usable (const bspline_gpu_frame * f);
int bspline_gpu_prefilter (const bspline_gpu_frame * f, const void *src,
    size_t src_pitch, void *coef, void *scratch, void *stream);
/* tables == NULL: general (warp) path; lens_xy: f's lens table, or NULL
 * (the stage evaluated per pixel). */
int bspline_gpu_resample (const bspline_gpu_frame * f, const void *coef,
    const bspline_gpu_tables * tables, const int *lens_xy, void *tmp,
    void *dst, size_t dst_pitch, void *stream);

/* The separable path in two fused passes for float plans with one pole:
 * along x windows of the source rows prefiltered (warp scans) and
 * resampled at once into tmp (padded source rows x output columns), along
 * y the tiled prefilter's windows of tmp's columns prefiltered and
 * resampled into dst; no coefficient plane.  bspline_gpu_fused_usable: 1
 * where the plan and the device's shared memory allow it, 0 where not
 * (bspline_gpu_prefilter and bspline_gpu_resample then). */
int bspline_gpu_fused_usable (const bspline_gpu_frame * f,
    const bspline_gpu_tables * tables);
int bspline_gpu_resample_fused (const bspline_gpu_frame * f,
    const bspline_gpu_tables * tables, const void *src, size_t src_pitch,
    void *tmp, void *dst, size_t dst_pitch, void *stream);

/* precision=fast (texture.cu): the coefficients in binary16, h = (c -
 * mid) * inv_range with mid and range the source's code range (c its
 * coefficient in code values), in pitch-linear device memory (pitch
 * values a row, the plane's rows at the device's texture pitch
 * alignment) bound to texture, a cudaTextureObject_t with linear
 * filtering, unnormalized coordinates and clamped addresses over that
 * memory; channels 1, 2 or 4. */
typedef struct
{
  void *data;                   /* __half */
  size_t pitch;                 /* values (not bytes) a row */
  float mid, range, inv_range;
  unsigned long long texture;
} bspline_gpu_half;

/* The prefilter's precision for the binary16 plane: its truncation
 * indices at this relative precision ([BD19] eqs. 21-22), below the
 * plane's rounding (2^-11 of a value). */
#define BSPLINE_GPU_HALF_EPSILON (1.0 / 16384.0)
/* Largest plane side the fast path takes: texel coordinates in float keep
 * 2^-10 of a texel below 16384 (the filter's fractions have 2^-8). */
#define BSPLINE_GPU_HALF_MAX_SIDE 16384

/* The binary16 plane h of f (float plan) from the source: directly for
 * plans without prefilter and for the one-pole tile kernel
 * (bspline_gpu_prefilter_half_direct: 1), else through the float plane
 * coef (and scratch, as bspline_gpu_prefilter). */
int bspline_gpu_prefilter_half_direct (const bspline_gpu_frame * f);
int bspline_gpu_prefilter_half (const bspline_gpu_frame * f,
    const void *src, size_t src_pitch, const bspline_gpu_half * h,
    void *coef, void *scratch, void *stream);
/* The interpolation from h (orders 0-11 of the B-spline, the same on
 * both axes). */
int bspline_gpu_resample_half (const bspline_gpu_frame * f,
    const bspline_gpu_half * h, void *dst, size_t dst_pitch, void *stream);

/* crop=keep-border on a resampled plane (keep-border.cu): the rule of
 * bspline-keep-border.h with inverse and the lens stage (has_lens), the
 * input plane in_width x in_height; have_previous 0: no previous frame
 * yet, which only receives the plane. */
typedef struct
{
  double inverse[9];
  int has_lens;
  bspline_lens lens;
  int in_width, in_height;
  int width, height;            /* of the output plane */
  int pixel;                    /* bytes of a pixel */
  int have_previous;
} bspline_gpu_keep_border_frame;

int bspline_gpu_keep_border (const bspline_gpu_keep_border_frame * k,
    void *out, size_t out_pitch, void *previous, size_t previous_pitch,
    void *stream);

/* A projection input's atlas (atlas.cu, core/projection/atlas.h): dst
 * (width x height pixels of `pixel` bytes) from src (a frame
 * frame_width pixels wide) by the table index (device memory: a frame
 * pixel index per atlas pixel). */
int bspline_gpu_atlas_gather (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, const int *index, int width, int height,
    int frame_width, int pixel, void *stream);

/* gamma-mode=remap (transfer.cu): a plane of width x height samples of
 * channels channels, coded as type (U8 or U16 with bits and shift), and
 * its linear-light plane in float; the channels of pass_mask as they are. */
typedef struct
{
  int width, height, channels;
  int type, bits, shift;
  unsigned pass_mask;
} bspline_gpu_transfer_frame;

/* coded -> linear through decode (bspline_transfer_decode_table) */
int bspline_gpu_transfer_decode (const bspline_gpu_transfer_frame * t,
    const float *decode, const void *coded, size_t coded_pitch,
    void *linear, size_t linear_pitch, void *stream);
/* linear -> coded, nearest codes by threshold
 * (bspline_transfer_encode_thresholds) */
int bspline_gpu_transfer_encode (const bspline_gpu_transfer_frame * t,
    const double *threshold, const void *linear, size_t linear_pitch,
    void *coded, size_t coded_pitch, void *stream);

#ifdef __cplusplus
}
#endif
#endif /* BSPLINE_CUDA_KERNELS_H */
