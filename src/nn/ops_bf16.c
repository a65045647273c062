/* ops_bf16.c — the bf16 hex convolution of bf16.h: the AVX512_BF16 kernel (register tiles of
 * 12 rows × 32 output channels, one vdpbf16ps per row and 16 channels for each pair of input
 * channels), its portable twin, and the packing of weights and inputs.  Chosen at run time; the
 * kernel is compiled with a GCC target pragma, so the file builds for any x86-64 (and elsewhere
 * the kernel is absent and nn_bf16_conv declines). */
#include "nn/bf16.h"
#include "nn/ops.h"
#include <stdatomic.h>
#include <string.h>

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define NN_BF16_X86 1
#include <immintrin.h>
#else
#define NN_BF16_X86 0
#endif

enum { BMR = 12, BNR = 2, BVW = 16 };           /* tile rows, vectors per tile, floats per vector */
static const uint16_t zero_row[NN_BF16_MAX_CI]; /* input row for taps that fall off the board */
static bool disabled;

uint16_t nn_bf16_from_f32(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);    /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

float nn_bf16_to_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

bool nn_bf16_available(void)
{
#if NN_BF16_X86
    static _Atomic int cpu_has = -1;        /* the CPU's answer, asked once (every convolution asks) */
    int has = cpu_has;
    if (has < 0) {
        __builtin_cpu_init();
        cpu_has = has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
    }
    return !disabled && has;
#else
    return false;
#endif
}

void nn_bf16_disable(bool off) { disabled = off; }

bool nn_bf16_shape_ok(int Ci, int Co) { return Ci > 0 && Ci % 2 == 0 && Ci <= NN_BF16_MAX_CI && Co > 0 && Co % BVW == 0; }

void nn_bf16_pack_weights(uint16_t *wp, const float *w, int taps, int Ci, int Co)
{
    for (int t = 0; t < taps; t++)
        for (int k = 0; k < Ci; k++)
            for (int co = 0; co < Co; co++)
                wp[(((size_t)t * (Ci / 2) + k / 2) * Co + co) * 2 + (k & 1)] =
                    nn_bf16_from_f32(w[((size_t)t * Ci + k) * Co + co]);
}

void nn_bf16_pack_rows(uint16_t *xb, const float *x, size_t rows, int Ci)
{
    size_t n = rows * (size_t)Ci;
    for (size_t i = 0; i < n; i++) xb[i] = nn_bf16_from_f32(x[i]);
}

/* The input row feeding tap t of row r (a zero row off the board). */
static const uint16_t *tap_row(const uint16_t *xb, const nn_geom *g, int r, int t, int Ci)
{
    int P = g->ncells, n = r / P, j = g->nb[r - n * P][t];
    return j < 0 ? zero_row : xb + ((size_t)n * P + j) * Ci;
}

static float epilogue(float v, int co, size_t r, int Co, const float *bias, const float *res, bool relu)
{
    if (bias) v += bias[co];
    if (res) v += res[r * Co + co];
    return relu && v < 0 ? 0 : v;
}

/* Output channels innermost (each output's sum is still in the kernel's order).  The form with one
 * output's whole sum innermost computed wrong sums for Ci >= 16 under GCC 12 at -O3 (fine at -O2
 * and with -fno-tree-loop-vectorize; not pinned down further). */
void nn_bf16_conv_ref(float *y, const uint16_t *xb, const uint16_t *wp, const float *bias, const float *res,
                      const nn_geom *g, int rows, int Ci, int Co, bool relu)
{
    int KP = Ci / 2;
    for (int r = 0; r < rows; r++) {
        float *yr = y + (size_t)r * Co;
        for (int co = 0; co < Co; co++) yr[co] = 0;
        for (int t = 0; t < NN_TAPS; t++) {
            const uint16_t *a = tap_row(xb, g, r, t, Ci);
            for (int kp = 0; kp < KP; kp++) {           /* each output: the pair's odd element first */
                float hi = nn_bf16_to_f32(a[2 * kp + 1]), lo = nn_bf16_to_f32(a[2 * kp]);
                const uint16_t *w = wp + ((size_t)t * KP + kp) * Co * 2;
                for (int co = 0; co < Co; co++) {
                    yr[co] += hi * nn_bf16_to_f32(w[2 * co + 1]);
                    yr[co] += lo * nn_bf16_to_f32(w[2 * co]);
                }
            }
        }
        for (int co = 0; co < Co; co++) yr[co] = epilogue(yr[co], co, (size_t)r, Co, bias, res, relu);
    }
}

#if NN_BF16_X86
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bf16")

/* y[BMR rows][NRX·16] = epilogue(the tile's sums); rows >= nrows are computed (from zero rows)
 * but not stored.  ap[t·BMR+m] is the input row of tap t for row m. */
static inline __attribute__((always_inline)) void tile(const uint16_t *const *ap, int KP, const uint16_t *wp, int Co,
                                                       float *y, int nrows, const float *bias, const float *res,
                                                       bool relu, const int NRX)
{
    __m512 acc[BMR][BNR];
    _Pragma("GCC unroll 16") for (int m = 0; m < BMR; m++)
        _Pragma("GCC unroll 4") for (int j = 0; j < NRX; j++) acc[m][j] = _mm512_setzero_ps();
    for (int t = 0; t < NN_TAPS; t++) {
        const uint16_t *a[BMR];
        _Pragma("GCC unroll 16") for (int m = 0; m < BMR; m++) a[m] = ap[t * BMR + m];
        const uint16_t *wt = wp + (size_t)t * KP * Co * 2;
        for (int kp = 0; kp < KP; kp++, wt += (size_t)Co * 2) {
            __m512bh b[BNR];
            _Pragma("GCC unroll 4") for (int j = 0; j < NRX; j++) b[j] = (__m512bh)_mm512_loadu_si512(wt + j * 2 * BVW);
            _Pragma("GCC unroll 16") for (int m = 0; m < BMR; m++) {
                int32_t pair;
                memcpy(&pair, a[m] + 2 * kp, sizeof pair);
                __m512bh av = (__m512bh)_mm512_set1_epi32(pair);
                _Pragma("GCC unroll 4") for (int j = 0; j < NRX; j++) acc[m][j] = _mm512_dpbf16_ps(acc[m][j], av, b[j]);
            }
        }
    }
    for (int m = 0; m < nrows; m++)
        for (int j = 0; j < NRX; j++) {
            __m512 v = acc[m][j];
            if (bias) v = _mm512_add_ps(v, _mm512_loadu_ps(bias + j * BVW));
            if (res) v = _mm512_add_ps(v, _mm512_loadu_ps(res + (size_t)m * Co + j * BVW));
            if (relu) v = _mm512_max_ps(v, _mm512_setzero_ps());
            _mm512_storeu_ps(y + (size_t)m * Co + j * BVW, v);
        }
}

static void tile_wide(const uint16_t *const *ap, int KP, const uint16_t *wp, int Co, float *y, int nrows,
                      const float *bias, const float *res, bool relu)
{
    tile(ap, KP, wp, Co, y, nrows, bias, res, relu, BNR);
}

static void tile_narrow(const uint16_t *const *ap, int KP, const uint16_t *wp, int Co, float *y, int nrows,
                        const float *bias, const float *res, bool relu)
{
    tile(ap, KP, wp, Co, y, nrows, bias, res, relu, 1);
}

/* One tile of rows [r0, r0+BMR): every block of output channels. */
static void conv_tile(float *y, const uint16_t *xb, const uint16_t *wp, const float *bias, const float *res,
                      const nn_geom *g, int rows, int r0, int Ci, int Co, bool relu)
{
    int nr = rows - r0 < BMR ? rows - r0 : BMR, KP = Ci / 2;
    const uint16_t *ap[NN_TAPS * BMR];
    for (int m = 0; m < BMR; m++)
        for (int t = 0; t < NN_TAPS; t++) ap[t * BMR + m] = m < nr ? tap_row(xb, g, r0 + m, t, Ci) : zero_row;
    size_t o = (size_t)r0 * Co;
    int co0 = 0;
    for (; co0 + BNR * BVW <= Co; co0 += BNR * BVW)
        tile_wide(ap, KP, wp + (size_t)co0 * 2, Co, y + o + co0, nr, bias ? bias + co0 : NULL,
                  res ? res + o + co0 : NULL, relu);
    for (; co0 < Co; co0 += BVW)
        tile_narrow(ap, KP, wp + (size_t)co0 * 2, Co, y + o + co0, nr, bias ? bias + co0 : NULL,
                    res ? res + o + co0 : NULL, relu);
}

static void conv_avx512bf16(float *y, const uint16_t *xb, const uint16_t *wp, const float *bias, const float *res,
                            const nn_geom *g, int rows, int Ci, int Co, bool relu)
{
    int ntiles = (rows + BMR - 1) / BMR;
    double work = (double)rows * NN_TAPS * Ci * Co;
    (void)work;
    NN_OMP(parallel for schedule(static) if (work > 2 * NN_PAR_MACS))
    for (int tile_i = 0; tile_i < ntiles; tile_i++) conv_tile(y, xb, wp, bias, res, g, rows, tile_i * BMR, Ci, Co, relu);
}
#pragma GCC pop_options
#endif

bool nn_bf16_conv(float *y, const uint16_t *xb, const uint16_t *wp, const float *bias, const float *res,
                  const nn_geom *g, int rows, int Ci, int Co, bool relu)
{
    if (!g || rows <= 0 || !nn_bf16_shape_ok(Ci, Co) || !nn_bf16_available()) return false;
#if NN_BF16_X86
    conv_avx512bf16(y, xb, wp, bias, res, g, rows, Ci, Co, relu);
    return true;
#else
    (void)y; (void)xb; (void)wp; (void)bias; (void)res;
    return false;
#endif
}
