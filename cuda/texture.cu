/* texture.cu: precision=fast on the general path
 * (bspline_gpu_resample_fast): the coefficients read through a texture
 * whose hardware bilinear filter does the weighting, one fetch for order
 * 1, four for order 3 (Sigg & Hadwiger, seed 000 section 3: the cubic
 * B-spline's four weights of an axis, [U99] eq. 2 in core/bspline-math.h,
 * merged into two linear fetches); pixels whose footprint widens the
 * kernel take the exact evaluation. */
#include "kernels-common.cuh"

/* Texture fetch of C channels (1, 2 or 4) as floats. */
template < int C > __device__ static inline void
fetch (cudaTextureObject_t tex, float x, float y, float *v);

template <> __device__ inline void
fetch < 1 > (cudaTextureObject_t tex, float x, float y, float *v)
{
  v[0] = tex2D < float >(tex, x, y);
}

template <> __device__ inline void
fetch < 2 > (cudaTextureObject_t tex, float x, float y, float *v)
{
  float2 t = tex2D < float2 > (tex, x, y);
  v[0] = t.x;
  v[1] = t.y;
}

template <> __device__ inline void
fetch < 4 > (cudaTextureObject_t tex, float x, float y, float *v)
{
  float4 t = tex2D < float4 > (tex, x, y);
  v[0] = t.x;
  v[1] = t.y;
  v[2] = t.z;
  v[3] = t.w;
}

/* precision=fast, general path, orders 1 and 3: the hardware's bilinear
 * texture filter does the weighting.  Order 1 is one fetch.  Order 3 is
 * four fetches (Sigg & Hadwiger, seed 000 section 3): along each axis the
 * four cubic weights w0..w3 of taps i-1..i+2 are merged into two linear
 * fetches of weight g0 = w0 + w1 at i - 1 + w1 / g0 and g1 = w2 + w3 at
 * i + 1 + w3 / g1.  The texture unit interpolates with 8-bit fractions, so
 * this is an approximation (its error is measured in docs/accuracy.md).
 * Pixels whose footprint asks for a widened kernel take the exact path. */
template < int C > __global__ void
warp_fast_kernel (bspline_gpu_frame f, cudaTextureObject_t tex,
    int normalized, const float *coef, unsigned char *dst, size_t dst_pitch)
{
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  float acc[BSPLINE_MAX_CHANNELS];
  double x, y, widen_x, widen_y;
  unsigned char *out = dst + i * dst_pitch;
  int c;

  if (!warp_source < float >(f, j, i, out, &x, &y, &widen_x, &widen_y))
    return;
  if (widen_x > 1.0 || widen_y > 1.0) {
    eval_point (f, coef, x - 0.5, y - 0.5, widen_x, widen_y, acc);
  } else {
    /* texel k of the stored plane has its centre at k + 0.5; normalized
     * textures (reflect, wrap) divide by the plane's size */
    const float sx = normalized ? 1.0f / f.src_width : 1.0f;
    const float sy = normalized ? 1.0f / f.src_height : 1.0f;
    const double tx = x + f.pad, ty = y + f.pad;  /* x - 0.5 + pad + 0.5 */
    if (f.axis_x.order == 1) {
      fetch < C > (tex, (float) (tx * sx), (float) (ty * sy), acc);
    } else {
      double fx = floor (tx - 0.5), fy = floor (ty - 0.5);
      float wx[4], wy[4], a[BSPLINE_MAX_CHANNELS], b[BSPLINE_MAX_CHANNELS];
      float g0x, g1x, g0y, g1y, h0x, h1x, h0y, h1y;
      bspline_weights_f (3, (float) (tx - 0.5 - fx), wx);
      bspline_weights_f (3, (float) (ty - 0.5 - fy), wy);
      g0x = wx[0] + wx[1];
      g1x = wx[2] + wx[3];
      g0y = wy[0] + wy[1];
      g1y = wy[2] + wy[3];
      /* texel centres of taps fx - 1 .. fx + 2 are fx - 0.5 .. fx + 2.5 */
      h0x = (float) ((fx - 0.5 + wx[1] / g0x) * sx);
      h1x = (float) ((fx + 1.5 + wx[3] / g1x) * sx);
      h0y = (float) ((fy - 0.5 + wy[1] / g0y) * sy);
      h1y = (float) ((fy + 1.5 + wy[3] / g1y) * sy);
      fetch < C > (tex, h0x, h0y, a);
      fetch < C > (tex, h1x, h0y, b);
      for (c = 0; c < C; c++)
        acc[c] = g0y * (g0x * a[c] + g1x * b[c]);
      fetch < C > (tex, h0x, h1y, a);
      fetch < C > (tex, h1x, h1y, b);
      for (c = 0; c < C; c++)
        acc[c] += g1y * (g0x * a[c] + g1x * b[c]);
    }
  }
  for (c = 0; c < C; c++)
    write_sample (out, f.dst_type, f.dst_bits, f.dst_shift, j * C + c,
        acc[c]);
}

extern "C" int
bspline_gpu_resample_fast (const bspline_gpu_frame * f,
    unsigned long long texture, int normalized, const void *coef, void *dst,
    size_t dst_pitch, void *stream)
{
  dim3 block (16, 8);
  dim3 grid = grid2 (f->dst_width, f->dst_height, block);
  cudaTextureObject_t tex = (cudaTextureObject_t) texture;
  cudaStream_t s = (cudaStream_t) stream;
  unsigned char *out = (unsigned char *) dst;
  const float *c = (const float *) coef;
  switch (f->channels) {
    case 1:
      warp_fast_kernel < 1 > <<<grid, block, 0, s >>> (*f, tex, normalized, c,
          out, dst_pitch);
      break;
    case 2:
      warp_fast_kernel < 2 > <<<grid, block, 0, s >>> (*f, tex, normalized, c,
          out, dst_pitch);
      break;
    default:
      warp_fast_kernel < 4 > <<<grid, block, 0, s >>> (*f, tex, normalized, c,
          out, dst_pitch);
      break;
  }
  return cudaGetLastError ();
}
