/* ops_int8_avx2.c — int8.h's kernel for CPUs with AVX2 but not AVX512_VNNI, giving the same bits
 * as the portable twin (and so as the VNNI kernel).
 *
 * AVX2 has no u8·s8 instruction that sums without saturating (vpmaddubsw saturates at 16 bits:
 * 255·127·2 > 32767), so both operands are widened to 16 bits and vpmaddwd adds two exact products
 * into each int32 lane:
 *   - weights stay in int8.h's layout [taps][Ci/4][Co][4]: 8 output channels × 4 input channels are
 *     32 bytes, widened (vpmovsxbw) to two vectors of 4 channels × 4 inputs each;
 *   - a row's 4 inputs are broadcast as four u16 to every 64-bit lane, so vpmaddwd leaves, per
 *     output channel, two int32 partial sums (inputs 0+1 and 2+3), added together (vphaddd) in the
 *     epilogue;
 *   - the input rows are widened to u16 once per convolution, before the tiles (each row feeds up
 *     to 7 taps: widened tap by tap in each tile it took 9 % of the kernel's time).
 * Register tile: AMR rows × 8 channels = 2·AMR accumulators + 2 weight vectors + 1 broadcast. */
#include "nn/int8_kern.h"
#include "nn/ops.h"
#include <stdlib.h>
#include <string.h>

#if NN_INT8_X86
#include <immintrin.h>

enum { AMR = NN_INT8_AVX2_ROWS, AVW = 8 };      /* tile rows; output channels per tile (int32 lanes) */
static const uint16_t zero_row16[NN_INT8_MAX_CI];

#pragma GCC push_options
#pragma GCC target("avx2")

/* The largest of 8 non-negative floats. */
static float hmax8(__m256 v)
{
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_shuffle_ps(m, m, 1));
    return _mm_cvtss_f32(m);
}

/* min(trunc(x·inv + 1/2), 255) for 8 inputs, as int32 (mul, then add, then truncate, as the
 * portable quantiser). */
static __m256i quantize8(const float *x, __m256 inv)
{
    __m256 v = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(x), inv), _mm256_set1_ps(0.5f));
    return _mm256_min_epi32(_mm256_cvttps_epi32(v), _mm256_set1_epi32(255));
}

bool nn_int8_quantize_sample_avx2(uint8_t *q, float *sx, const float *xs, size_t per)
{
    __m256 big = _mm256_setzero_ps(), zero = _mm256_setzero_ps(), top = _mm256_set1_ps(3.0e38f), bad = zero;
    size_t i = 0;
    for (; i + 8 <= per; i += 8) {
        __m256 v = _mm256_loadu_ps(xs + i);
        bad = _mm256_or_ps(bad, _mm256_or_ps(_mm256_cmp_ps(v, zero, _CMP_NGE_UQ), _mm256_cmp_ps(v, top, _CMP_NLE_UQ)));
        big = _mm256_max_ps(big, v);
    }
    if (_mm256_movemask_ps(bad)) return false;
    float b = hmax8(big);
    for (; i < per; i++) {
        if (!(xs[i] >= 0 && xs[i] <= 3.0e38f)) return false;
        if (xs[i] > b) b = xs[i];
    }
    float inv = b > 0 ? 255.0f / b : 0;
    *sx = b > 0 ? b / 255.0f : 1.0f;
    __m256 vinv = _mm256_set1_ps(inv);
    const __m256i order = _mm256_set_epi32(7, 3, 6, 2, 5, 1, 4, 0);
    for (i = 0; i + 32 <= per; i += 32) {       /* 4 × 8 int32 -> 32 bytes, in order */
        __m256i ab = _mm256_packus_epi32(quantize8(xs + i, vinv), quantize8(xs + i + 8, vinv));
        __m256i cd = _mm256_packus_epi32(quantize8(xs + i + 16, vinv), quantize8(xs + i + 24, vinv));
        __m256i bytes = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(ab, cd), order);
        _mm256_storeu_si256((__m256i *)(q + i), bytes);
    }
    for (; i < per; i++) {
        float v = xs[i] * inv + 0.5f;
        q[i] = (uint8_t)(v < 255.0f ? (int)v : 255);
    }
    return true;
}

/* dst[Ci] = src[Ci] widened to u16. */
static void widen_row(uint16_t *dst, const uint8_t *src, int Ci)
{
    int k = 0;
    for (; k + 16 <= Ci; k += 16)
        _mm256_storeu_si256((__m256i *)(dst + k), _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(src + k))));
    for (; k < Ci; k++) dst[k] = src[k];
}

/* y[AMR rows][8] = epilogue(the tile's sums) for the 8 output channels at wq, sw (offset by the
 * block's first channel); rows >= nrows are computed (from zero rows) but not stored.  ap[t·AMR+m]
 * is the widened input row of tap t for row m, rs[m] its sample's scale. */
static void tile8(const uint16_t *const *ap, const float *rs, int KQ, const int8_t *wq, const float *sw, int Co,
                  float *y, int nrows, const float *bias, const float *res, bool relu)
{
    __m256i lo[AMR], hi[AMR];                   /* per channel two int32 partial sums: lo 0-3, hi 4-7 */
    for (int m = 0; m < AMR; m++) lo[m] = hi[m] = _mm256_setzero_si256();
    for (int t = 0; t < NN_TAPS; t++) {
        const uint16_t *a[AMR];
        for (int m = 0; m < AMR; m++) a[m] = ap[t * AMR + m];
        const int8_t *wt = wq + (size_t)t * KQ * Co * 4;
        for (int kq = 0; kq < KQ; kq++, wt += (size_t)Co * 4) {
            __m256i wlo = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)wt));
            __m256i whi = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(wt + 16)));
            _Pragma("GCC unroll 8") for (int m = 0; m < AMR; m++) {
                long long quad;
                memcpy(&quad, a[m] + 4 * kq, sizeof quad);
                __m256i av = _mm256_set1_epi64x(quad);
                lo[m] = _mm256_add_epi32(lo[m], _mm256_madd_epi16(av, wlo));
                hi[m] = _mm256_add_epi32(hi[m], _mm256_madd_epi16(av, whi));
            }
        }
    }
    __m256 scale_w = _mm256_loadu_ps(sw);
    for (int m = 0; m < nrows; m++) {
        /* hadd: [c0 c1 c4 c5 | c2 c3 c6 c7]; the 64-bit permute puts the channels in order */
        __m256i acc = _mm256_permute4x64_epi64(_mm256_hadd_epi32(lo[m], hi[m]), 0xD8);
        __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(acc), _mm256_mul_ps(_mm256_set1_ps(rs[m]), scale_w));
        if (bias) v = _mm256_add_ps(v, _mm256_loadu_ps(bias));
        if (res) v = _mm256_add_ps(v, _mm256_loadu_ps(res + (size_t)m * Co));
        if (relu) v = _mm256_max_ps(v, _mm256_setzero_ps());
        _mm256_storeu_ps(y + (size_t)m * Co, v);
    }
}

/* One tile of rows [r0, r0+AMR) from the widened input rows: every block of 8 output channels. */
static void conv_tile(float *y, const uint16_t *wide, const float *sx, const int8_t *wq, const float *sw,
                      const float *bias, const float *res, const nn_geom *g, int rows, int r0, int Ci, int Co,
                      bool relu)
{
    int nr = rows - r0 < AMR ? rows - r0 : AMR, P = g->ncells;
    const uint16_t *ap[NN_TAPS * AMR];
    float rs[AMR];
    for (int m = 0; m < AMR; m++) {
        int r = r0 + m, n = r / P;
        rs[m] = m < nr ? sx[n] : 0;
        for (int t = 0; t < NN_TAPS; t++) {
            int j = m < nr ? g->nb[r - n * P][t] : -1;
            ap[t * AMR + m] = j < 0 ? zero_row16 : wide + ((size_t)n * P + j) * Ci;
        }
    }
    size_t o = (size_t)r0 * Co;
    for (int co0 = 0; co0 < Co; co0 += AVW)
        tile8(ap, rs, Ci / 4, wq + (size_t)co0 * 4, sw + co0, Co, y + o + co0, nr, bias ? bias + co0 : NULL,
              res ? res + o + co0 : NULL, relu);
}

bool nn_int8_conv_avx2(float *y, const uint8_t *xq, const float *sx, const int8_t *wq, const float *sw,
                       const float *bias, const float *res, const nn_geom *g, int rows, int Ci, int Co, bool relu,
                       bool parallel)
{
    uint16_t *wide = malloc((size_t)rows * (size_t)Ci * sizeof *wide);
    if (!wide) return false;
    int ntiles = (rows + AMR - 1) / AMR;
    (void)parallel;
    NN_OMP(parallel if (parallel))
    {
        NN_OMP(for schedule(static))
        for (int r = 0; r < rows; r++) widen_row(wide + (size_t)r * Ci, xq + (size_t)r * Ci, Ci);
        NN_OMP(for schedule(static))
        for (int tile_i = 0; tile_i < ntiles; tile_i++)
            conv_tile(y, wide, sx, wq, sw, bias, res, g, rows, tile_i * AMR, Ci, Co, relu);
    }
    free(wide);
    return true;
}

#pragma GCC pop_options
#endif
