/* ops_fast.c — the float kernels behind the _f convolutions and matrix products: direct hex
 * convolution with register blocking over output channels (ops_fast_kern.h), compiled for AVX-512
 * and for AVX2+FMA with GCC target pragmas and chosen at run time from what the CPU has; where
 * neither applies the callers fall back to their plain loops.  OpenMP over row tiles (forward) and
 * over row ranges with private partial sums (weight gradient). */
#include "nn/ops.h"
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define NN_X86 1
#include <immintrin.h>
#else
#define NN_X86 0
#endif

enum { ISA_NONE = 0, ISA_AVX2 = 1, ISA_AVX512 = 2 };
enum { ZERO_LEN = 8192 };
static const float zero_row[ZERO_LEN];   /* input row for taps that fall off the board */

#if NN_X86
/* ---- AVX-512: 32 zmm registers: forward tile 12 rows × 2 vectors (32 channels) = 24 accumulators;
 *      weight gradient 8 input channels × 2 vectors. */
#pragma GCC push_options
#pragma GCC target("avx512f,fma")
#define KFN(name) avx512_##name
#define VEC __m512
#define VW 16
#define VLOAD _mm512_loadu_ps
#define VSTORE _mm512_storeu_ps
#define VSET1 _mm512_set1_ps
#define VFMA _mm512_fmadd_ps
#define VADD _mm512_add_ps
#define VMAX _mm512_max_ps
#define VZERO _mm512_setzero_ps
#define MR 12
#define NR 2
#define MRD 8
#define NRD 2
#include "nn/ops_fast_kern.h"
#pragma GCC pop_options

/* ---- AVX2 + FMA: 16 ymm registers: forward tile 6 rows × 2 vectors (16 channels) = 12
 *      accumulators; weight gradient 4 input channels × 2 vectors. */
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#define KFN(name) avx2_##name
#define VEC __m256
#define VW 8
#define VLOAD _mm256_loadu_ps
#define VSTORE _mm256_storeu_ps
#define VSET1 _mm256_set1_ps
#define VFMA _mm256_fmadd_ps
#define VADD _mm256_add_ps
#define VMAX _mm256_max_ps
#define VZERO _mm256_setzero_ps
#define MR 6
#define NR 2
#define MRD 4
#define NRD 2
#include "nn/ops_fast_kern.h"
#pragma GCC pop_options
#endif

static int cpu_isa(void)
{
#if NN_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return ISA_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return ISA_AVX2;
#endif
    return ISA_NONE;
}

static int forced = -1;     /* nn_fast_force's limit, -1 = none */

static int isa(void)
{
    int have = cpu_isa();
    return forced >= 0 && forced < have ? forced : have;
}

static const char *isa_name(int i)
{
    return i == ISA_AVX512 ? "avx512" : i == ISA_AVX2 ? "avx2" : "none";
}

const char *nn_fast_isa(void) { return isa_name(isa()); }

const char *nn_fast_force(const char *name)
{
    if (!name) forced = -1;
    else if (!strcmp(name, "avx512")) forced = ISA_AVX512;
    else if (!strcmp(name, "avx2")) forced = ISA_AVX2;
    else forced = ISA_NONE;
    return nn_fast_isa();
}

static int vec_width(int i) { return i == ISA_AVX512 ? 16 : i == ISA_AVX2 ? 8 : 0; }

bool nn_fast_conv(float *y, const float *x, const float *w, const float *bias, const float *res,
                  const nn_geom *g, int rows, int Ci, int Co, int flags)
{
    int i = isa(), vw = vec_width(i);
    if (!vw || Co % vw || Ci > ZERO_LEN || rows <= 0) return false;
#if NN_X86
    if (i == ISA_AVX512) avx512_conv(y, x, w, bias, res, g, rows, Ci, Co, flags, zero_row);
    else avx2_conv(y, x, w, bias, res, g, rows, Ci, Co, flags, zero_row);
    return true;
#else
    (void)y; (void)x; (void)w; (void)bias; (void)res; (void)g; (void)flags;
    return false;
#endif
}

bool nn_fast_conv_dw(float *dw, const float *x, const float *dy, const nn_geom *g, int rows, int Ci, int Co)
{
    int i = isa(), vw = vec_width(i);
    if (!vw || Co % vw || Ci > ZERO_LEN || rows <= 0) return false;
#if NN_X86
    int T = g ? NN_TAPS : 1;
    size_t n = (size_t)T * Ci * Co;
    int nth = 1;
#ifdef _OPENMP
    if ((double)rows * n > NN_PAR_MACS && !omp_in_parallel()) nth = omp_get_max_threads();
#endif
    if (nth > rows / 64) nth = rows / 64 > 1 ? rows / 64 : 1;
    if (nth == 1) {
        if (i == ISA_AVX512) avx512_conv_dw(dw, x, dy, g, 0, rows, Ci, Co, zero_row);
        else avx2_conv_dw(dw, x, dy, g, 0, rows, Ci, Co, zero_row);
        return true;
    }
    float *part = calloc((size_t)nth * n, sizeof(float));
    if (!part) return false;
    NN_OMP(parallel num_threads(nth))
    {
        int tid = 0, nt = 1;
#ifdef _OPENMP
        tid = omp_get_thread_num();
        nt = omp_get_num_threads();
#endif
        int per = (rows + nt - 1) / nt, b = tid * per, e = b + per < rows ? b + per : rows;
        if (b < e) {
            if (i == ISA_AVX512) avx512_conv_dw(part + (size_t)tid * n, x, dy, g, b, e, Ci, Co, zero_row);
            else avx2_conv_dw(part + (size_t)tid * n, x, dy, g, b, e, Ci, Co, zero_row);
        }
        NN_OMP(barrier)
        NN_OMP(for schedule(static))
        for (size_t k = 0; k < n; k++) {
            float s = 0;
            for (int t = 0; t < nt; t++) s += part[(size_t)t * n + k];
            dw[k] += s;
        }
    }
    free(part);
    return true;
#else
    (void)dw; (void)x; (void)dy; (void)g; (void)rows; (void)Ci; (void)Co;
    return false;
#endif
}
