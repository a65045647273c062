/* ops_int8.c — the int8 hex convolution of int8.h: the AVX512_VNNI kernel (register tiles of
 * 12 rows × 32 output channels, one vpdpbusd per row and 16 channels for each group of four input
 * channels), the AVX2 kernel (tiles of 6 rows × 8 output channels on operands widened to 16 bits,
 * ops_int8_avx2.c), their portable twin, and the quantisation of weights and inputs.  Chosen at run
 * time; the kernels are compiled with GCC target pragmas, so the file builds for any x86-64
 * (elsewhere, and under clang, they are absent and nn_int8_conv declines). */
#include "nn/int8.h"
#include "nn/int8_kern.h"
#include "nn/ops.h"
#include <math.h>
#include <stdatomic.h>
#include <string.h>
#if NN_INT8_X86
#include <immintrin.h>
#endif

enum { QMR = 12, QNR = 2, QVW = 16 };           /* tile rows, vectors per tile, lanes per vector */
const uint8_t nn_int8_zero_row[NN_INT8_MAX_CI];        /* int8_kern.h */
static nn_int8_kernel kernel_cap = NN_INT8_VNNI;   /* nn_int8_cap */

nn_int8_kernel nn_int8_cpu_kernel(void)
{
#if NN_INT8_X86
    static _Atomic int cpu_best = -1;       /* the CPU's answer, asked once (every convolution asks) */
    int best = cpu_best;
    if (best < 0) {
        __builtin_cpu_init();
        bool vnni = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                    __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
        cpu_best = best = vnni ? NN_INT8_VNNI : __builtin_cpu_supports("avx2") ? NN_INT8_AVX2 : NN_INT8_NONE;
    }
    return (nn_int8_kernel)best;
#else
    return NN_INT8_NONE;
#endif
}

nn_int8_kernel nn_int8_active_kernel(void)
{
    nn_int8_kernel k = nn_int8_cpu_kernel();
    return k < kernel_cap ? k : kernel_cap;
}

bool nn_int8_available(void) { return nn_int8_active_kernel() != NN_INT8_NONE; }
void nn_int8_cap(nn_int8_kernel k) { kernel_cap = k; }
void nn_int8_disable(bool off) { kernel_cap = off ? NN_INT8_NONE : NN_INT8_VNNI; }

const char *nn_int8_kernel_name(nn_int8_kernel k)
{
    return k == NN_INT8_VNNI ? "avx512-vnni" : k == NN_INT8_AVX2 ? "avx2" : "none";
}

bool nn_int8_shape_ok(int Ci, int Co) { return Ci > 0 && Ci % 4 == 0 && Ci <= NN_INT8_MAX_CI && Co > 0 && Co % QVW == 0; }

void nn_int8_pack_weights(int8_t *wq, float *sw, const float *w, int taps, int Ci, int Co)
{
    for (int co = 0; co < Co; co++) {
        float big = 0;
        for (size_t k = 0; k < (size_t)taps * Ci; k++) big = fmaxf(big, fabsf(w[k * Co + co]));
        float inv = big > 0 ? 127.0f / big : 0;
        sw[co] = big > 0 ? big / 127.0f : 1.0f;
        for (int t = 0; t < taps; t++)
            for (int k = 0; k < Ci; k++) {
                long q = lrintf(w[((size_t)t * Ci + k) * Co + co] * inv);
                wq[(((size_t)t * (Ci / 4) + k / 4) * Co + co) * 4 + (k & 3)] = (int8_t)(q > 127 ? 127 : q < -127 ? -127 : q);
            }
    }
}

/* One sample's inputs xs[per] -> q[per] and its scale; false when some input is negative or not
 * finite.  (The AVX-512 twin below and the AVX2 one compute the same bytes: mul, then add, then
 * truncate.) */
static bool quantize_sample(uint8_t *q, float *sx, const float *xs, size_t per)
{
    float big = 0;
    for (size_t i = 0; i < per; i++) {
        if (!(xs[i] >= 0 && xs[i] <= 3.0e38f)) return false;
        if (xs[i] > big) big = xs[i];
    }
    float inv = big > 0 ? 255.0f / big : 0;
    *sx = big > 0 ? big / 255.0f : 1.0f;
    for (size_t i = 0; i < per; i++) {
        float v = xs[i] * inv + 0.5f;
        q[i] = (uint8_t)(v < 255.0f ? (int)v : 255);
    }
    return true;
}

#if NN_INT8_X86
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl")
static bool quantize_sample_avx512(uint8_t *q, float *sx, const float *xs, size_t per)
{
    __m512 big = _mm512_setzero_ps(), zero = _mm512_setzero_ps(), top = _mm512_set1_ps(3.0e38f);
    __mmask16 bad = 0;
    for (size_t i = 0; i < per; i += 16) {
        __mmask16 k = per - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (per - i)) - 1);
        __m512 v = _mm512_maskz_loadu_ps(k, xs + i);
        bad |= _mm512_mask_cmp_ps_mask(k, v, zero, _CMP_NGE_UQ) | _mm512_mask_cmp_ps_mask(k, v, top, _CMP_NLE_UQ);
        big = _mm512_max_ps(big, v);
    }
    if (bad) return false;
    float b = _mm512_reduce_max_ps(big);
    float inv = b > 0 ? 255.0f / b : 0;
    *sx = b > 0 ? b / 255.0f : 1.0f;
    __m512 vinv = _mm512_set1_ps(inv), half = _mm512_set1_ps(0.5f);
    __m512i cap = _mm512_set1_epi32(255);
    for (size_t i = 0; i < per; i += 16) {
        __mmask16 k = per - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (per - i)) - 1);
        __m512 v = _mm512_add_ps(_mm512_mul_ps(_mm512_maskz_loadu_ps(k, xs + i), vinv), half);
        __m512i qi = _mm512_min_epi32(_mm512_cvttps_epi32(v), cap);
        _mm_mask_storeu_epi8(q + i, k, _mm512_cvtepi32_epi8(qi));
    }
    return true;
}
#pragma GCC pop_options
#endif

bool nn_int8_quantize_rows(uint8_t *xq, float *sx, const float *x, int N, int P, int Ci)
{
    size_t per = (size_t)P * Ci;
    nn_int8_kernel k = nn_int8_active_kernel();
    for (int n = 0; n < N; n++) {
        const float *xs = x + (size_t)n * per;
        uint8_t *q = xq + (size_t)n * per;
#if NN_INT8_X86
        if (k == NN_INT8_VNNI) {
            if (!quantize_sample_avx512(q, sx + n, xs, per)) return false;
            continue;
        }
        if (k == NN_INT8_AVX2) {
            if (!nn_int8_quantize_sample_avx2(q, sx + n, xs, per)) return false;
            continue;
        }
#endif
        (void)k;
        if (!quantize_sample(q, sx + n, xs, per)) return false;
    }
    return true;
}

void nn_int8_conv_ref(float *y, const uint8_t *xq, const float *sx, const int8_t *wq, const float *sw,
                      const float *bias, const float *res, const nn_geom *g, int rows, int Ci, int Co, bool relu)
{
    int KQ = Ci / 4;
    for (int r = 0; r < rows; r++) {
        float *yr = y + (size_t)r * Co;
        float srow = sx[r / g->ncells];
        for (int co = 0; co < Co; co++) {
            int32_t acc = 0;
            for (int t = 0; t < NN_TAPS; t++) {
                const uint8_t *a = nn_int8_tap_row(xq, g, r, t, Ci);
                for (int kq = 0; kq < KQ; kq++)
                    for (int i = 0; i < 4; i++)
                        acc += (int32_t)a[4 * kq + i] * wq[(((size_t)t * KQ + kq) * Co + co) * 4 + i];
            }
            float v = (float)acc * (srow * sw[co]);
            if (bias) v += bias[co];
            if (res) v += res[(size_t)r * Co + co];
            yr[co] = relu && v < 0 ? 0 : v;
        }
    }
}

#if NN_INT8_X86
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vnni")

/* y[QMR rows][NRX·16] = epilogue(the tile's sums); rows >= nrows are computed (from zero rows)
 * but not stored.  ap[t·QMR+m] is the input row of tap t for row m, rs[m] its sample's scale. */
static inline __attribute__((always_inline)) void tile(const uint8_t *const *ap, const float *rs, int KQ,
                                                       const int8_t *wq, const float *sw, int Co, float *y,
                                                       int nrows, const float *bias, const float *res, bool relu,
                                                       const int NRX)
{
    __m512i acc[QMR][QNR];
    _Pragma("GCC unroll 16") for (int m = 0; m < QMR; m++)
        _Pragma("GCC unroll 4") for (int j = 0; j < NRX; j++) acc[m][j] = _mm512_setzero_si512();
    for (int t = 0; t < NN_TAPS; t++) {
        const uint8_t *a[QMR];
        _Pragma("GCC unroll 16") for (int m = 0; m < QMR; m++) a[m] = ap[t * QMR + m];
        const int8_t *wt = wq + (size_t)t * KQ * Co * 4;
        for (int kq = 0; kq < KQ; kq++, wt += (size_t)Co * 4) {
            __m512i b[QNR];
            _Pragma("GCC unroll 4") for (int j = 0; j < NRX; j++) b[j] = _mm512_loadu_si512(wt + j * 4 * QVW);
            _Pragma("GCC unroll 16") for (int m = 0; m < QMR; m++) {
                int32_t quad;
                memcpy(&quad, a[m] + 4 * kq, sizeof quad);
                __m512i av = _mm512_set1_epi32(quad);
                _Pragma("GCC unroll 4") for (int j = 0; j < NRX; j++) acc[m][j] = _mm512_dpbusd_epi32(acc[m][j], av, b[j]);
            }
        }
    }
    for (int m = 0; m < nrows; m++)
        for (int j = 0; j < NRX; j++) {
            __m512 scale = _mm512_mul_ps(_mm512_set1_ps(rs[m]), _mm512_loadu_ps(sw + j * QVW));
            __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(acc[m][j]), scale);
            if (bias) v = _mm512_add_ps(v, _mm512_loadu_ps(bias + j * QVW));
            if (res) v = _mm512_add_ps(v, _mm512_loadu_ps(res + (size_t)m * Co + j * QVW));
            if (relu) v = _mm512_max_ps(v, _mm512_setzero_ps());
            _mm512_storeu_ps(y + (size_t)m * Co + j * QVW, v);
        }
}

static void tile_wide(const uint8_t *const *ap, const float *rs, int KQ, const int8_t *wq, const float *sw, int Co,
                      float *y, int nrows, const float *bias, const float *res, bool relu)
{
    tile(ap, rs, KQ, wq, sw, Co, y, nrows, bias, res, relu, QNR);
}

static void tile_narrow(const uint8_t *const *ap, const float *rs, int KQ, const int8_t *wq, const float *sw, int Co,
                        float *y, int nrows, const float *bias, const float *res, bool relu)
{
    tile(ap, rs, KQ, wq, sw, Co, y, nrows, bias, res, relu, 1);
}

/* One tile of rows [r0, r0+QMR): every block of output channels. */
static void conv_tile_vnni(float *y, const uint8_t *xq, const float *sx, const int8_t *wq, const float *sw,
                           const float *bias, const float *res, const nn_geom *g, int rows, int r0, int Ci, int Co,
                           bool relu)
{
    int nr = rows - r0 < QMR ? rows - r0 : QMR, KQ = Ci / 4;
    const uint8_t *ap[NN_TAPS * QMR];
    float rs[QMR];
    for (int m = 0; m < QMR; m++) {
        rs[m] = m < nr ? sx[(r0 + m) / g->ncells] : 0;
        for (int t = 0; t < NN_TAPS; t++) ap[t * QMR + m] = m < nr ? nn_int8_tap_row(xq, g, r0 + m, t, Ci) : nn_int8_zero_row;
    }
    size_t o = (size_t)r0 * Co;
    int co0 = 0;
    for (; co0 + QNR * QVW <= Co; co0 += QNR * QVW)
        tile_wide(ap, rs, KQ, wq + (size_t)co0 * 4, sw + co0, Co, y + o + co0, nr, bias ? bias + co0 : NULL,
                  res ? res + o + co0 : NULL, relu);
    for (; co0 < Co; co0 += QVW)
        tile_narrow(ap, rs, KQ, wq + (size_t)co0 * 4, sw + co0, Co, y + o + co0, nr, bias ? bias + co0 : NULL,
                    res ? res + o + co0 : NULL, relu);
}
#pragma GCC pop_options
#endif

bool nn_int8_conv(float *y, const uint8_t *xq, const float *sx, const int8_t *wq, const float *sw, const float *bias,
                  const float *res, const nn_geom *g, int rows, int Ci, int Co, bool relu)
{
    nn_int8_kernel k = nn_int8_active_kernel();
    if (!g || rows <= 0 || !nn_int8_shape_ok(Ci, Co) || k == NN_INT8_NONE) return false;
#if NN_INT8_X86
    double work = (double)rows * NN_TAPS * Ci * Co;
    if (k == NN_INT8_AVX2)
        return nn_int8_conv_avx2(y, xq, sx, wq, sw, bias, res, g, rows, Ci, Co, relu, work > 4 * NN_PAR_MACS);
    int ntiles = (rows + QMR - 1) / QMR;
    (void)work;
    NN_OMP(parallel for schedule(static) if (work > 4 * NN_PAR_MACS))
    for (int tile_i = 0; tile_i < ntiles; tile_i++)
        conv_tile_vnni(y, xq, sx, wq, sw, bias, res, g, rows, tile_i * QMR, Ci, Co, relu);
    return true;
#else
    (void)y; (void)xq; (void)sx; (void)wq; (void)sw; (void)bias; (void)res;
    return false;
#endif
}
