/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bspline-math.h: the maths of B-spline and bicubic resampling, once.
 *
 * Poles, normalisation gains, truncation indices, kernel weights and
 * boundary index maps.  Everything here is a static inline function on plain
 * C types so that the same text is compiled by cc for the CPU engine (core/)
 * and by nvcc for the GPU engine (cuda/): BSPLINE_HD expands to
 * __host__ __device__ under __CUDACC__.
 *
 * Coordinates (used everywhere in the project): pixel (i, j) covers
 * [i, i+1) x [j, j+1) and its centre is (i + 0.5, j + 0.5); x grows to the
 * right and y down.  Inside the engines a "sample coordinate" is the pixel
 * coordinate minus 0.5, so that sample k sits at sample coordinate k (this is
 * also scipy.ndimage's convention).
 *
 * References:
 *  [BD19] T. Briand, A. Davy, "Optimization of Image B-spline Interpolation
 *         for GPU Architectures", IPOL 9 (2019).
 *  [BM18] T. Briand, P. Monasse, "Theory and Practice of Image B-Spline
 *         Interpolation", IPOL 8 (2018).
 *  [U99]  M. Unser, "Splines: a perfect fit for signal and image processing",
 *         IEEE Signal Processing Magazine 16(6), 1999.
 *  [K81]  R. Keys, "Cubic convolution interpolation for digital image
 *         processing", IEEE Trans. ASSP 29(6), 1981.
 */
#ifndef BSPLINE_MATH_H
#define BSPLINE_MATH_H

#include <math.h>
#include <stddef.h>

#ifdef __CUDACC__
#define BSPLINE_HD __host__ __device__
#else
#define BSPLINE_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define BSPLINE_MAX_ORDER 11
/* The prefilters of interpolation (orders 0-11) have at most 5 poles; the
 * Gram filters of the least-squares reduction of order n
 * (core/resample/reduce.c) are the prefilters of degree 2 n + 1, up to 23:
 * 11 poles. */
#define BSPLINE_MAX_INTERP_POLES (BSPLINE_MAX_ORDER / 2)
#define BSPLINE_MAX_DEGREE (2 * BSPLINE_MAX_ORDER + 1)
#define BSPLINE_MAX_POLES (BSPLINE_MAX_DEGREE / 2)
#define BSPLINE_MAX_TAPS (BSPLINE_MAX_ORDER + 1)

typedef enum
{
  BSPLINE_METHOD_BSPLINE = 0,   /* prefilter + B-spline of order n */
  BSPLINE_METHOD_BICUBIC = 1    /* Keys cubic convolution, no prefilter */
} bspline_method;

/* Boundary extensions of the signal abcde (both for the prefilter and for
 * samples outside the frame). */
typedef enum
{
  BSPLINE_BOUNDARY_REFLECT = 0, /* cba|abcde|edc  half-symmetric, period 2K */
  BSPLINE_BOUNDARY_MIRROR = 1,  /* dcb|abcde|dcb  whole-symmetric, 2K-2 */
  BSPLINE_BOUNDARY_WRAP = 2,    /* cde|abcde|abc  periodic, period K */
  BSPLINE_BOUNDARY_CLAMP = 3,   /* aaa|abcde|eee  edge replicate */
  BSPLINE_BOUNDARY_CONSTANT = 4 /* vvv|abcde|vvv  fill value v */
} bspline_boundary;

/* Number of poles of the B-spline of order n: floor(n / 2) ([BD19] eq. 6). */
BSPLINE_HD static inline int
bspline_n_poles (int order)
{
  return order / 2;
}

/* Pole i (0-based, most negative first: -1 < z_0 < z_1 < ... < 0) of the
 * B-spline of order n: the roots inside the unit circle of
 * sum_k beta^n(k) z^k ([U99], [BD19] eq. 6).  Computed with 50-digit
 * arithmetic (mpmath.polyroots on the exact rational sampled B-spline, see
 * scripts/poles.py) and rounded to double; tests/core prove them by the
 * interpolation identity and by the residual of the polynomial. */
BSPLINE_HD static inline double
bspline_pole (int order, int i)
{
  switch (order * 16 + i) {
    case 2 * 16 + 0: return -0.1715728752538099023966;
    case 3 * 16 + 0: return -0.2679491924311227064726;
    case 4 * 16 + 0: return -0.3613412259002201770922;
    case 4 * 16 + 1: return -0.01372542929733912136033;
    case 5 * 16 + 0: return -0.4305753470999737918514;
    case 5 * 16 + 1: return -0.04309628820326465382271;
    case 6 * 16 + 0: return -0.4882945893030447551301;
    case 6 * 16 + 1: return -0.08167927107623751259794;
    case 6 * 16 + 2: return -0.001414151808325817751087;
    case 7 * 16 + 0: return -0.5352804307964381655424;
    case 7 * 16 + 1: return -0.1225546151923266905153;
    case 7 * 16 + 2: return -0.009148694809608276928593;
    case 8 * 16 + 0: return -0.5746869092487654305301;
    case 8 * 16 + 1: return -0.1630352692972809352406;
    case 8 * 16 + 2: return -0.0236322946948448500234;
    case 8 * 16 + 3: return -0.0001538213106416909117394;
    case 9 * 16 + 0: return -0.6079973891686257790077;
    case 9 * 16 + 1: return -0.2017505201931532387961;
    case 9 * 16 + 2: return -0.04322260854048175213332;
    case 9 * 16 + 3: return -0.002121306903180818420305;
    case 10 * 16 + 0: return -0.636550663969423858758;
    case 10 * 16 + 1: return -0.2381827983775732848875;
    case 10 * 16 + 2: return -0.0657270332283085515382;
    case 10 * 16 + 3: return -0.00752819467554869064377;
    case 10 * 16 + 4: return -0.00001698276282327466423073;
    case 11 * 16 + 0: return -0.6612660689007347069101;
    case 11 * 16 + 1: return -0.2721803492947858856863;
    case 11 * 16 + 2: return -0.08975959979371330994414;
    case 11 * 16 + 3: return -0.01666962736623465609659;
    case 11 * 16 + 4: return -0.0005105575344465020571359;
    case 13 * 16 + 0: return -0.7018942518168078624531;
    case 13 * 16 + 1: return -0.3331072329306235924823;
    case 13 * 16 + 2: return -0.1389011131943194302118;
    case 13 * 16 + 3: return -0.04321386674036366964776;
    case 13 * 16 + 4: return -0.006738031415244913998476;
    case 13 * 16 + 5: return -0.0001251001132144187159609;
    case 15 * 16 + 0: return -0.7338725716848373495694;
    case 15 * 16 + 1: return -0.3855857342784352080141;
    case 15 * 16 + 2: return -0.1865201084509643457413;
    case 15 * 16 + 3: return -0.07590759204766819930382;
    case 15 * 16 + 4: return -0.02175206579654047146207;
    case 15 * 16 + 5: return -0.002801151482076454872535;
    case 15 * 16 + 6: return -0.00003093568045147442324008;
    case 17 * 16 + 0: return -0.7596832240719327792046;
    case 17 * 16 + 1: return -0.4309396531803965785694;
    case 17 * 16 + 2: return -0.231089843599271834102;
    case 17 * 16 + 3: return -0.1108289933162472532115;
    case 17 * 16 + 4: return -0.04321391145668415769661;
    case 17 * 16 + 5: return -0.01125818368947160221819;
    case 17 * 16 + 6: return -0.001185933125152176738909;
    case 17 * 16 + 7: return -0.000007687562581254682728956;
    case 19 * 16 + 0: return -0.7809464448517323032921;
    case 19 * 16 + 1: return -0.4703728194676430247813;
    case 19 * 16 + 2: return -0.2721803762830344869914;
    case 19 * 16 + 3: return -0.1458508937575645126564;
    case 19 * 16 + 4: return -0.06834590612488046381792;
    case 19 * 16 + 5: return -0.02526507334485559573805;
    case 19 * 16 + 6: return -0.00593665959108296996221;
    case 19 * 16 + 7: return -0.0005084101946808165632251;
    case 19 * 16 + 8: return -0.000001915478656212247986386;
    case 21 * 16 + 0: return -0.7987628856657315757204;
    case 21 * 16 + 1: return -0.5048915374483703361482;
    case 21 * 16 + 2: return -0.3098231964157903198163;
    case 21 * 16 + 3: return -0.1798846667985358388109;
    case 21 * 16 + 4: return -0.09520081246073120058708;
    case 21 * 16 + 5: return -0.04321391844071573523188;
    case 21 * 16 + 6: return -0.01504549998729455474001;
    case 21 * 16 + 7: return -0.003172003963884172591577;
    case 21 * 16 + 8: return -0.0002199029576316323303215;
    case 21 * 16 + 9: return -4.77976468942536316259e-7;
    case 23 * 16 + 0: return -0.8139056235618003511161;
    case 23 * 16 + 1: return -0.5353140836684856561212;
    case 23 * 16 + 2: return -0.3442362769193780815083;
    case 23 * 16 + 3: return -0.2124046605401930352247;
    case 23 * 16 + 4: return -0.122561160991938728599;
    case 23 * 16 + 5: return -0.06360248015411367696237;
    case 23 * 16 + 6: return -0.02781166203794071880493;
    case 23 * 16 + 7: return -0.009079595335295149302725;
    case 23 * 16 + 8: return -0.001711271446781703660793;
    case 23 * 16 + 9: return -0.00009573394350073981753344;
    case 23 * 16 + 10: return -1.193691881606649475532e-7;
    default: return 0.0;
  }
}

/* Normalisation constant gamma^(n) of the cascade of exponential filters:
 * 2^n n! for even n, n! for odd n ([BD19] eq. 10).  Exact integers. */
BSPLINE_HD static inline double
bspline_prefilter_gain (int order)
{
  double g = 1.0;
  int k;
  for (k = 2; k <= order; k++)
    g *= k;
  if (order % 2 == 0)
    g *= ldexp (1.0, order);
  return g;
}

/* rho^(n) = (prod_j (1 + z_j) / (1 - z_j))^2 ([BD19] eq. 23). */
BSPLINE_HD static inline double
bspline_prefilter_rho (int order)
{
  double rho = 1.0;
  int j;
  for (j = 0; j < bspline_n_poles (order); j++) {
    double z = bspline_pole (order, j);
    rho *= (1.0 + z) / (1.0 - z);
  }
  return rho * rho;
}

/* The 16-bit fixed-point coefficient plane (the GPU engine's at
 * precision=compact; docs/accuracy.md, "The 16-bit coefficient plane").  The
 * prefilter of order n on an image is h (x) h, h = 1 / B the inverse of the
 * B-spline's samples.  Every pole is negative, so h's taps alternate in
 * sign and its l1 norm is |H(-1)| = 1 / rho (eq. 23 of [BD19] compares
 * B(-1) with B(1), and H(1) = 1): that of h (x) h is L = 1 / rho^2, its
 * positive taps summing to (L + 1) / 2 and its negative ones to (1 - L) / 2.
 * Samples in [0, M] therefore give coefficients in [M/2 - R, M/2 + R], R =
 * L M / 2, stored as q = round ((c - M/2) / step) in [-32767, 32767], step
 * = R / 32767: each coefficient within step / 2 of its value.  An output
 * is a sum of coefficients with weights that are nonnegative and sum to 1
 * (the B-spline's, widened or not), so it lies within step / 2 too: the
 * bound returned, in code values of the samples (9 M / 131068 for order
 * 3: 0.0175 at 8 bits), with *mid = M / 2 and *step. */
BSPLINE_HD static inline double
bspline_compact_scale (int order, double code_max, double *mid, double *step)
{
  const double rho = bspline_prefilter_rho (order);
  *mid = 0.5 * code_max;
  *step = 0.5 * code_max / (rho * rho) / 32767.0;
  return 0.5 * *step;
}

/* The most bspline_compact_scale's bound may be for the plane to be used:
 * 1/32 of a code value, orders 2 and 3 from 8-bit samples, order 2 from
 * 10-bit ones. */
#define BSPLINE_COMPACT_MAX_ERROR (1.0 / 32.0)

/* Truncation index N^(i, eps) of pole i for a relative precision eps
 * ([BD19] eqs. 21-22, from [BM18] Theorem 1): with these indices the
 * prefilter of a line has an error below eps * max|f|.  For images, [BD19]
 * Theorem 2 asks for eps' = eps * rho / 2 on both axes; callers pass that. */
BSPLINE_HD static inline int
bspline_truncation_index (int order, int i, double eps)
{
  int np = bspline_n_poles (order), j;
  double rho = bspline_prefilter_rho (order);
  double mu[BSPLINE_MAX_POLES], prod = 1.0, sum_inv = 0.0;
  double zi = bspline_pole (order, i), v;
  for (j = 0; j < np; j++) {
    double lz = log (fabs (bspline_pole (order, j)));
    mu[j] = (j == 0) ? 0.0 : 1.0 / (1.0 + 1.0 / (lz * sum_inv));
    sum_inv += 1.0 / lz;
  }
  for (j = i + 1; j < np; j++)
    prod *= mu[j];
  v = log (eps * rho * (1.0 - zi) * (1.0 - mu[i]) * prod) / log (fabs (zi));
  return (int) ceil (v) + 1;
}

/* Map an integer sample index k (any value) of a signal of length len onto
 * the stored coefficients, for the folding extensions (reflect, mirror,
 * wrap): the result lies in [0, len).  For clamp and constant the stored
 * coefficient line is padded by pad values on each side, holding the edge
 * (clamp) or fill (constant) extension, and indices beyond the padding take
 * the outermost stored value: this is exact to the prefilter's precision
 * because the padding is as long as the largest truncation index. */
BSPLINE_HD static inline int
bspline_boundary_index (int k, int len, int pad, int boundary)
{
  int period, m;
  switch (boundary) {
    case BSPLINE_BOUNDARY_REFLECT:
      period = 2 * len;
      m = k % period;
      if (m < 0)
        m += period;
      return m < len ? m : period - 1 - m;
    case BSPLINE_BOUNDARY_MIRROR:
      if (len == 1)
        return 0;
      period = 2 * len - 2;
      m = k % period;
      if (m < 0)
        m += period;
      return m < len ? m : period - m;
    case BSPLINE_BOUNDARY_WRAP:
      m = k % len;
      return m < 0 ? m + len : m;
    default:                   /* clamp, constant: padded storage */
      m = k + pad;
      if (m < 0)
        return 0;
      if (m > len + 2 * pad - 1)
        return len + 2 * pad - 1;
      return m;
  }
}

/* Period of a folding extension, 0 for clamp/constant (not periodic). */
BSPLINE_HD static inline int
bspline_boundary_period (int len, int boundary)
{
  switch (boundary) {
    case BSPLINE_BOUNDARY_REFLECT:
      return 2 * len;
    case BSPLINE_BOUNDARY_MIRROR:
      return len > 1 ? 2 * len - 2 : 1;
    case BSPLINE_BOUNDARY_WRAP:
      return len;
    default:
      return 0;
  }
}

/* The sample coordinate of pixel coordinate p on one axis: pixel i covers
 * [i, i + 1) and sample i sits at its centre, so it is p - 0.5.  Periodic
 * extensions first take p's remainder by the integer period, which is
 * exact, so a point far outside keeps every bit of its fraction (p - 0.5
 * alone rounds to ulp(p): 7e-12 past 65536). */
BSPLINE_HD static inline double
bspline_sample_coordinate (double p, int len, int boundary)
{
  int period = bspline_boundary_period (len, boundary);
  if (period > 0 && fabs (p) > (double) period)
    p = remainder (p, (double) period);
  return p - 0.5;
}

/* Bring a sample coordinate into a range where integer tap indices cannot
 * overflow without changing the interpolated value: folding extensions are
 * periodic, and for clamp/constant every tap beyond the padded storage
 * already reads the outermost value, so x may be clamped at reach samples
 * past it. */
BSPLINE_HD static inline double
bspline_reduce_coordinate (double x, int len, int pad, int boundary,
    double reach)
{
  int period = bspline_boundary_period (len, boundary);
  if (period > 0) {
    /* The IEEE remainder (result in [-period/2, period/2]) is exact for
     * every finite x.  x - period * floor (x / period) rounded just left of
     * the frame (-10.3 + 2^17 keeps 36 bits of the fraction: 7e-12 errors
     * on a 65536-sample line), gave -inf near DBL_MAX (NaN samples) and
     * left |x| ~ 1e284 for x ~ 1e300 (int overflow in the tap index). */
    if (x < -reach || x > len + reach)
      x = remainder (x, (double) period);
    return x;
  }
  if (x < -pad - reach)
    return -pad - reach;
  if (x > len - 1 + pad + reach)
    return len - 1 + pad + reach;
  return x;
}

/* First tap of the centred B-spline of order n at sample coordinate x, and
 * the fractional position t in [0, 1) that feeds bspline_weights: the taps
 * are origin .. origin + n.  Derivation: beta^n(x - k) = N_{0,n}(u - k) with
 * u = x + (n + 1) / 2 and N the uniform B-spline starting at 0; with
 * i0 = floor(u) the nonzero terms are k = i0 - n .. i0. */
#define BSPLINE_DEFINE_ORIGIN(SUFFIX, T) \
BSPLINE_HD static inline int \
bspline_origin_##SUFFIX (int order, T x, T *t) \
{ \
  T u = x + (T) (order + 1) * (T) 0.5; \
  T f = floor (u); \
  *t = u - f; \
  return (int) f - order; \
}

/* The n + 1 weights w[j] = beta^n(x - (origin + j)) for t = frac(x + (n+1)/2),
 * by the Cox-de Boor recursion on the uniform knots
 * ([U99] eq. 2 in its recursive form):
 *   N_{i,k}(t) = (t - i) / k N_{i,k-1}(t) + (i + k + 1 - t) / k N_{i+1,k-1}(t)
 * with w_k[j] = N_{j-k,k}(t).  Every step is a convex combination, so the
 * weights are exact to rounding for all orders in float as in double, and
 * sum to one. */
#define BSPLINE_DEFINE_WEIGHTS(SUFFIX, T) \
BSPLINE_HD static inline void \
bspline_weights_##SUFFIX (int order, T t, T *w) \
{ \
  int k, j; \
  w[0] = (T) 1; \
  for (k = 1; k <= order; k++) { \
    T inv_k = (T) 1 / (T) k; \
    T prev = (T) 0; \
    for (j = 0; j < k; j++) { \
      T wj = w[j]; \
      w[j] = prev + ((T) (j + 1) - t) * inv_k * wj; \
      prev = (t + (T) (k - 1 - j)) * inv_k * wj; \
    } \
    w[k] = prev; \
  } \
}

/* The same four weights for n = 3 in closed form, for the GPU's kernels
 * of fixed order (11 operations where the recursion takes about 30):
 * with s = 1 - t,
 *   w[0] = s^3 / 6,  w[1] = 2/3 + t^2 (t / 2 - 1),
 *   w[2] = 2/3 + s^2 (s / 2 - 1),  w[3] = t^3 / 6,
 * the cubic B-spline at t + 1, t, 1 - t (= s) and 2 - t (= 1 + s).  Every
 * term is at most 1 in magnitude on [0, 1], so each weight is within a few
 * units of 2^-24 of the recursion's (tests/core/test-float-vs-double.c
 * holds it to 2.5e-7).  The CPU engine keeps the recursion: its x86
 * kernels are checked against its C loops bit for bit.  The STMap stage
 * (bspline-stage.h) takes the double ones on both engines. */
#define BSPLINE_DEFINE_CUBIC_WEIGHTS(SUFFIX, T) \
BSPLINE_HD static inline void \
bspline_cubic_weights_##SUFFIX (T t, T *w) \
{ \
  const T s = (T) 1 - t, t2 = t * t, s2 = s * s; \
  w[0] = s2 * (s * (T) (1.0 / 6.0)); \
  w[1] = t2 * (t * (T) 0.5 - (T) 1) + (T) (2.0 / 3.0); \
  w[2] = s2 * (s * (T) 0.5 - (T) 1) + (T) (2.0 / 3.0); \
  w[3] = t2 * (t * (T) (1.0 / 6.0)); \
}

/* Keys cubic convolution kernel with parameter a ([K81] eq. 15;
 * a = -0.5 is Catmull-Rom), in factored form:
 *   (a+2)|x|^3 - (a+3)|x|^2 + 1 = (|x| - 1) (((a+2)|x| - 1)|x| - 1)
 *   a|x|^3 - 5a|x|^2 + 8a|x| - 4a = a (|x| - 1) (|x| - 2)^2
 * The expanded polynomials cancel near |x| = 1 and 2 (4.125a - 4a at
 * |x| = 1.5), which cost float bicubic about 10x in accuracy
 * (tests/core/test-bicubic.c: 2.9e-6 -> 3e-7 of the signal range). */
#define BSPLINE_DEFINE_KEYS(SUFFIX, T) \
BSPLINE_HD static inline T \
bspline_keys_##SUFFIX (T a, T x) \
{ \
  T ax = fabs (x); \
  if (ax <= (T) 1) \
    return (ax - (T) 1) * (((a + (T) 2) * ax - (T) 1) * ax - (T) 1); \
  if (ax < (T) 2) \
    return a * (ax - (T) 1) * (ax - (T) 2) * (ax - (T) 2); \
  return (T) 0; \
} \
\
/* The 4 Keys weights for the taps floor(x) - 1 .. floor(x) + 2, t = frac(x). */ \
BSPLINE_HD static inline void \
bspline_keys_weights_##SUFFIX (T a, T t, T *w) \
{ \
  w[0] = bspline_keys_##SUFFIX (a, t + (T) 1); \
  w[1] = bspline_keys_##SUFFIX (a, t); \
  w[2] = bspline_keys_##SUFFIX (a, (T) 1 - t); \
  w[3] = bspline_keys_##SUFFIX (a, (T) 2 - t); \
}

BSPLINE_DEFINE_ORIGIN (d, double)
BSPLINE_DEFINE_ORIGIN (f, float)
BSPLINE_DEFINE_WEIGHTS (d, double)
BSPLINE_DEFINE_WEIGHTS (f, float)
BSPLINE_DEFINE_CUBIC_WEIGHTS (d, double)
BSPLINE_DEFINE_CUBIC_WEIGHTS (f, float)
BSPLINE_DEFINE_KEYS (d, double)
BSPLINE_DEFINE_KEYS (f, float)

/* The centred B-spline beta^n(x) at any x, from the same recursion: the
 * value is weight number n - (floor(u) - 0) of the weight vector at
 * t = frac(u), u = x + (n + 1) / 2.  Used for widened (antialiasing)
 * kernels, whose taps are not at unit spacing. */
BSPLINE_HD static inline double
bspline_kernel_d (int order, double x)
{
  double w[BSPLINE_MAX_TAPS], t;
  double u = x + (order + 1) * 0.5;
  double f = floor (u);
  int i0 = (int) f;
  if (u <= 0.0 || i0 > order)
    return 0.0;
  t = u - f;
  bspline_weights_d (order, t, w);
  return w[order - i0];
}

/* Half-width of the support of the resampling kernel, in samples. */
BSPLINE_HD static inline double
bspline_kernel_radius (int method, int order)
{
  return method == BSPLINE_METHOD_BICUBIC ? 2.0 : (order + 1) * 0.5;
}

/* Value of the resampling kernel (B-spline or Keys) at x, for widened
 * kernels. */
BSPLINE_HD static inline double
bspline_kernel_value_d (int method, int order, double bicubic_a, double x)
{
  return method == BSPLINE_METHOD_BICUBIC ? bspline_keys_d (bicubic_a, x) :
      bspline_kernel_d (order, x);
}

/* ---- the prefilter's initialisations ([BD19] Algorithm 1, Table 3) ----
 *
 * For one line of len samples p[k * step] filtered by the exponential
 * filter of pole z with truncation index N.  A padded line (clamp,
 * constant) is extended beyond its ends by its end values, which the
 * padding makes constant to the target precision: eqs. 14, 16 and 17 then
 * have closed forms. */

/* Causal initialisation s_0 = sum_{i>=0} z^i s_{-i} ([BD19] eq. 14, 19).
 * For the folding extensions the sum runs over min(N + 1, period) terms;
 * a whole period summed makes the geometric series over all periods
 * exact. */
#define BSPLINE_DEFINE_CAUSAL_INIT(SUFFIX, T) \
BSPLINE_HD static inline T \
bspline_causal_init_##SUFFIX (const T * p, ptrdiff_t step, int len, T z, \
    int truncation, int boundary, int padded) \
{ \
  int period, terms, i; \
  T acc = (T) 0, zi = (T) 1; \
  if (padded) \
    return p[0] / ((T) 1 - z); \
  period = bspline_boundary_period (len, boundary); \
  terms = truncation + 1 < period ? truncation + 1 : period; \
  for (i = 0; i < terms; i++) { \
    acc += zi * p[(ptrdiff_t) bspline_boundary_index (-i, len, 0, boundary) \
        * step]; \
    zi *= z; \
  } \
  return terms == period ? acc / ((T) 1 - zi) : acc; \
}

/* Anticausal initialisation (h * s)_{K-1}, given the causally filtered
 * line p and, for a padded line, the original last sample `last`
 * ([BD19] eq. 16 with eq. 17 summed in closed form, or Table 3). */
#define BSPLINE_DEFINE_ANTICAUSAL_INIT(SUFFIX, T) \
BSPLINE_HD static inline T \
bspline_anticausal_init_##SUFFIX (const T * p, ptrdiff_t step, int len, \
    T z, int truncation, int boundary, int padded, T last) \
{ \
  const T end = p[(ptrdiff_t) (len - 1) * step]; \
  int terms, i; \
  T acc = (T) 0, zi = (T) 1; \
  if (padded) \
    return z / (z * z - (T) 1) * (end + last / ((T) 1 - z) - last); \
  if (boundary == BSPLINE_BOUNDARY_REFLECT \
      || (boundary == BSPLINE_BOUNDARY_MIRROR && len == 1)) \
    return z / (z - (T) 1) * end; \
  if (boundary == BSPLINE_BOUNDARY_MIRROR) \
    return z / (z * z - (T) 1) * (end + z * p[(ptrdiff_t) (len - 2) * step]); \
  /* periodic: -z (s_{K-1} + z sum_{i>=0} z^i s_{i mod K}) */ \
  terms = truncation < len ? truncation : len; \
  for (i = 0; i < terms; i++) { \
    acc += zi * p[(ptrdiff_t) i * step]; \
    zi *= z; \
  } \
  if (terms == len) \
    acc /= (T) 1 - zi; \
  return -z * (end + z * acc); \
}

BSPLINE_DEFINE_CAUSAL_INIT (d, double)
BSPLINE_DEFINE_CAUSAL_INIT (f, float)
BSPLINE_DEFINE_ANTICAUSAL_INIT (d, double)
BSPLINE_DEFINE_ANTICAUSAL_INIT (f, float)

/* ---- evaluation ---- */

/* Largest number of taps per axis: the general path widens kernels by at
 * most BSPLINE_MAX_WARP_WIDENING (bspline.h), so 2 * 6 * 8 + 1 = 97. */
#define BSPLINE_MAX_POINT_TAPS 128

/* What the evaluation of one axis needs to know. */
typedef struct
{
  int method, order, boundary;
  double bicubic_a;
  int len;                      /* samples of the source on this axis */
  int pad;                      /* padding of the stored coefficients */
} bspline_axis;

/* The reduced coordinate (*x, through the boundary's period or clamp) and
 * the first tap of one axis at sample coordinate *x for a kernel widened
 * by `widen` (1 = plain interpolation), before the boundary maps the taps
 * onto stored samples: the taps are origin .. origin + *n - 1.  *t is the
 * fraction that feeds the unwidened weights. */
BSPLINE_HD static inline int
bspline_axis_origin (const bspline_axis * ax, double *x, double widen,
    int *n, double *t)
{
  const double radius = bspline_kernel_radius (ax->method, ax->order);
  *x = bspline_reduce_coordinate (*x, ax->len, ax->pad, ax->boundary,
      radius * widen + 2.0);
  if (widen > 1.0) {
    *n = (int) ceil (2.0 * radius * widen) + 1;
    *t = 0.0;
    return (int) floor (*x - radius * widen) + 1;
  }
  if (ax->method == BSPLINE_METHOD_BICUBIC) {
    double f = floor (*x);
    *n = 4;
    *t = *x - f;
    return (int) f - 1;
  }
  *n = ax->order + 1;
  return bspline_origin_d (ax->order, *x, t);
}

/* Taps of one axis at sample coordinate x for a kernel widened by `widen`
 * (1 = plain interpolation): fills index[] (stored coefficient indices,
 * boundary applied) and w[], returns the count.  Origins and fractions are
 * computed in double whatever T is, so that a float engine loses no
 * position accuracy on large frames. */
#define BSPLINE_DEFINE_AXIS_TAPS(SUFFIX, T) \
BSPLINE_HD static inline int \
bspline_axis_taps_##SUFFIX (const bspline_axis * ax, double x, double widen, \
    int *index, T * w) \
{ \
  double t; \
  int n, k; \
  const int origin = bspline_axis_origin (ax, &x, widen, &n, &t); \
  if (widen > 1.0) { \
    double sum = 0.0; \
    for (k = 0; k < n; k++) { \
      double v = bspline_kernel_value_d (ax->method, ax->order, \
          ax->bicubic_a, (x - (origin + k)) / widen); \
      w[k] = (T) v; \
      sum += v; \
    } \
    for (k = 0; k < n; k++) \
      w[k] = (T) (w[k] / sum); \
  } else if (ax->method == BSPLINE_METHOD_BICUBIC) { \
    bspline_keys_weights_##SUFFIX ((T) ax->bicubic_a, (T) t, w); \
  } else { \
    bspline_weights_##SUFFIX (ax->order, (T) t, w); \
  } \
  for (k = 0; k < n; k++) \
    index[k] = bspline_boundary_index (origin + k, ax->len, ax->pad, \
        ax->boundary); \
  return n; \
}

BSPLINE_DEFINE_AXIS_TAPS (d, double)
BSPLINE_DEFINE_AXIS_TAPS (f, float)

/* a u + b v + c with each product and sum rounded on its own, on the GPU
 * as on the CPU: nvcc would contract them into fused multiply-adds, and a
 * position one unit in the last place apart picks the other sample where
 * order 0 meets a tie (an exact half-integer sample coordinate, e.g. the
 * centre of an odd frame under a centred map). */
#if defined(__CUDA_ARCH__)
#define BSPLINE_MAP_ROW(a, u, b, v, c) \
  __dadd_rn (__dadd_rn (__dmul_rn (a, u), __dmul_rn (b, v)), c)
#else
#define BSPLINE_MAP_ROW(a, u, b, v, c) ((a) * (u) + (b) * (v) + (c))
#endif

/* Maps the output pixel centre (u, v) through the inverse homography m to
 * input pixel coordinates; returns 0 where there is no input point: on
 * and beyond the horizon of a perspective map (W <= 0), or a non-finite
 * result.  Beyond the horizon, X / W is a point of the input all the
 * same, the one whose line of sight runs backwards (w of the forward map
 * is 1 / W < 0): the picture would appear again, upside down, at the
 * opposite edge.  No input point is seen there, so those pixels get the
 * fill value whatever the boundary (docs/element.md, "Geometry").  Both
 * engines decide on this one W, computed the same way (BSPLINE_MAP_ROW). */
BSPLINE_HD static inline int
bspline_map_point (const double *m, double u, double v, double *x, double *y)
{
  double X = BSPLINE_MAP_ROW (m[0], u, m[1], v, m[2]);
  double Y = BSPLINE_MAP_ROW (m[3], u, m[4], v, m[5]);
  double W = BSPLINE_MAP_ROW (m[6], u, m[7], v, m[8]);
  *x = X / W;
  *y = Y / W;
  return W > 0.0 && isfinite (*x) && isfinite (*y);
}

/* The kernel widening for a footprint of s input pixels per output pixel:
 * 1 up to 1 + 1e-6 (a unit-scale map computed with rounding, a rotation
 * by 90 degrees, keeps the plain kernel and its fast paths), then s less
 * that dead zone, so that the widening is continuous in s (two engines
 * whose roundings put s on either side of the threshold give kernels that
 * differ by their rounding, not by 1e-6), at most max_widen. */
BSPLINE_HD static inline double
bspline_widening (double s, double max_widen)
{
  const double dead = 1e-6;
  return s > 1.0 + dead ? (s - dead < max_widen ? s - dead : max_widen) :
      1.0;
}

/* Kernel widening at input point (x, y) = m(u, v) for antialiasing: the
 * rows of the Jacobian of (u, v) -> (x, y) say how far x and y move per
 * output pixel; a footprint wider than one input pixel widens the kernel
 * of that axis by its length, up to max_widen.  Only where
 * bspline_map_point found the point: W is computed as it does, so W > 0
 * here (a footprint that overflows near the horizon widens by max_widen). */
BSPLINE_HD static inline void
bspline_footprint (const double *m, double u, double v, double x, double y,
    double max_widen, double *widen_x, double *widen_y)
{
  double W = BSPLINE_MAP_ROW (m[6], u, m[7], v, m[8]);
  double dxdu = (m[0] - x * m[6]) / W, dxdv = (m[1] - x * m[7]) / W;
  double dydu = (m[3] - y * m[6]) / W, dydv = (m[4] - y * m[7]) / W;
  double sx = sqrt (dxdu * dxdu + dxdv * dxdv);
  double sy = sqrt (dydu * dydu + dydv * dydv);
  *widen_x = bspline_widening (sx, max_widen);
  *widen_y = bspline_widening (sy, max_widen);
}

#ifdef __cplusplus
}
#endif
#endif /* BSPLINE_MATH_H */
