/* ops_fast_kern.h — register-blocked float kernels, written once over a SIMD vector type and
 * included by ops_fast.c once per instruction set (not a public header).  The includer defines:
 *   KFN(name)          the instance's function name
 *   VEC, VW            the vector type and its width in floats
 *   VLOAD VSTORE VSET1 VFMA(a,b,c)=a·b+c VADD VMAX VZERO
 *   MR, NR             forward tile: MR rows × NR vectors of output channels in registers
 *   MRD, NRD           weight-gradient tile: MRD input channels × NRD vectors of output channels
 * and this file undefines them all at its end, ready for the next instance.
 *
 * Forward (direct convolution, no im2col): for a tile of MR output rows, ap[t·MR+m] points at the
 * input row feeding tap t of row m (a zero row where the tap falls off the board); the MR×NR
 * accumulators stay in registers across all T taps and K input channels; per input channel the
 * kernel loads NR weight vectors and broadcasts MR inputs: MR·NR FMAs for MR+NR loads. */

/* y[MR rows][NRX·VW] (+)= epilogue(sum_t sum_k ap[t][m][k] · w[t][k][·]); rows m >= nrows are
 * computed (from zero rows) but not stored. */
#define KERNEL_FWD(NRX, SUFFIX)                                                                    \
static void KFN(tile_fwd##SUFFIX)(const float *const *ap, int T, int K, const float *w, int ldw,   \
                                  float *y, int ldy, int nrows, const float *bias,                  \
                                  const float *res, int flags)                                      \
{                                                                                                   \
    VEC acc[MR][NRX];                                                                               \
    _Pragma("GCC unroll 16") for (int m = 0; m < MR; m++)                                           \
        _Pragma("GCC unroll 4") for (int j = 0; j < NRX; j++) acc[m][j] = VZERO();                  \
    for (int t = 0; t < T; t++) {                                                                   \
        const float *a[MR];                                                                         \
        _Pragma("GCC unroll 16") for (int m = 0; m < MR; m++) a[m] = ap[t * MR + m];                \
        const float *wt = w + (size_t)t * K * ldw;                                                  \
        for (int k = 0; k < K; k++) {                                                               \
            VEC b[NRX];                                                                             \
            _Pragma("GCC unroll 4") for (int j = 0; j < NRX; j++) b[j] = VLOAD(wt + j * VW);        \
            wt += ldw;                                                                              \
            _Pragma("GCC unroll 16") for (int m = 0; m < MR; m++) {                                 \
                VEC av = VSET1(a[m][k]);                                                            \
                _Pragma("GCC unroll 4") for (int j = 0; j < NRX; j++)                               \
                    acc[m][j] = VFMA(av, b[j], acc[m][j]);                                          \
            }                                                                                       \
        }                                                                                           \
    }                                                                                               \
    for (int m = 0; m < nrows; m++) {                                                               \
        for (int j = 0; j < NRX; j++) {                                                             \
            VEC v = acc[m][j];                                                                      \
            if (bias) v = VADD(v, VLOAD(bias + j * VW));                                            \
            if (res) v = VADD(v, VLOAD(res + (size_t)m * ldy + j * VW));                            \
            if (flags & NN_FAST_RELU) v = VMAX(v, VZERO());                                         \
            float *yp = y + (size_t)m * ldy + j * VW;                                               \
            if (flags & NN_FAST_ACCUM) v = VADD(v, VLOAD(yp));                                      \
            VSTORE(yp, v);                                                                          \
        }                                                                                           \
    }                                                                                               \
}

KERNEL_FWD(NR, _wide)
KERNEL_FWD(1, _narrow)
#undef KERNEL_FWD

/* dw[MRD input channels][NRX·VW] += sum_r xr[r][ci0+m] · dy[r][·]  (reduction over R rows). */
#define KERNEL_DW(NRX, SUFFIX)                                                                     \
static void KFN(tile_dw##SUFFIX)(const float *const *xr, int R, int ci0, const float *dy, int ldy,  \
                                 float *dw, int lddw)                                               \
{                                                                                                   \
    VEC acc[MRD][NRX];                                                                              \
    _Pragma("GCC unroll 16") for (int m = 0; m < MRD; m++)                                          \
        _Pragma("GCC unroll 4") for (int j = 0; j < NRX; j++)                                       \
            acc[m][j] = VLOAD(dw + (size_t)m * lddw + j * VW);                                      \
    for (int r = 0; r < R; r++) {                                                                   \
        const float *a = xr[r] + ci0;                                                               \
        VEC b[NRX];                                                                                 \
        _Pragma("GCC unroll 4") for (int j = 0; j < NRX; j++)                                       \
            b[j] = VLOAD(dy + (size_t)r * ldy + j * VW);                                            \
        _Pragma("GCC unroll 16") for (int m = 0; m < MRD; m++) {                                    \
            VEC av = VSET1(a[m]);                                                                   \
            _Pragma("GCC unroll 4") for (int j = 0; j < NRX; j++)                                   \
                acc[m][j] = VFMA(av, b[j], acc[m][j]);                                              \
        }                                                                                           \
    }                                                                                               \
    _Pragma("GCC unroll 16") for (int m = 0; m < MRD; m++)                                          \
        _Pragma("GCC unroll 4") for (int j = 0; j < NRX; j++)                                       \
            VSTORE(dw + (size_t)m * lddw + j * VW, acc[m][j]);                                      \
}

KERNEL_DW(NRD, _wide)
KERNEL_DW(1, _narrow)
#undef KERNEL_DW

/* The whole forward: y[rows][Co] from x, tile by tile, OpenMP over tiles.  Needs Co % VW == 0. */
static void KFN(conv)(float *y, const float *x, const float *w, const float *bias, const float *res,
                      const nn_geom *g, int rows, int Ci, int Co, int flags, const float *zero)
{
    int T = g ? NN_TAPS : 1, P = g ? g->ncells : 1;
    int ntiles = (rows + MR - 1) / MR;
    double work = (double)rows * T * Ci * Co;        /* multiply-adds */
    (void)work;                                       /* (unused without OpenMP) */
    NN_OMP(parallel for schedule(static) if (work > NN_PAR_MACS))
    for (int tile = 0; tile < ntiles; tile++) {
        int r0 = tile * MR, nr = rows - r0 < MR ? rows - r0 : MR;
        const float *ap[NN_TAPS * MR];
        for (int m = 0; m < MR; m++) {
            int r = r0 + m;
            if (m >= nr) { for (int t = 0; t < T; t++) ap[t * MR + m] = zero; continue; }
            if (!g) { ap[m] = x + (size_t)r * Ci; continue; }
            int n = r / P, i = r - n * P;
            for (int t = 0; t < T; t++) {
                int j = g->nb[i][t];
                ap[t * MR + m] = j < 0 ? zero : x + ((size_t)n * P + j) * Ci;
            }
        }
        size_t o = (size_t)r0 * Co;
        int co0 = 0;
        for (; co0 + NR * VW <= Co; co0 += NR * VW)
            KFN(tile_fwd_wide)(ap, T, Ci, w + co0, Co, y + o + co0, Co, nr, bias ? bias + co0 : NULL,
                               res ? res + o + co0 : NULL, flags);
        for (; co0 < Co; co0 += VW)
            KFN(tile_fwd_narrow)(ap, T, Ci, w + co0, Co, y + o + co0, Co, nr, bias ? bias + co0 : NULL,
                                 res ? res + o + co0 : NULL, flags);
    }
}

/* The whole weight gradient for the rows [r_begin, r_end) into dw (T×Ci×Co), blocks of RB rows.
 * Needs Co % VW == 0; input channels beyond the last full MRD block go through a plain loop. */
static void KFN(conv_dw)(float *dw, const float *x, const float *dy, const nn_geom *g, int r_begin,
                         int r_end, int Ci, int Co, const float *zero)
{
    enum { RB = 64 };
    int T = g ? NN_TAPS : 1, P = g ? g->ncells : 1;
    const float *xr[RB];
    int ci_full = Ci - Ci % MRD;
    for (int rb = r_begin; rb < r_end; rb += RB) {
        int R = r_end - rb < RB ? r_end - rb : RB;
        const float *dyb = dy + (size_t)rb * Co;
        for (int t = 0; t < T; t++) {
            for (int k = 0; k < R; k++) {
                int r = rb + k;
                if (!g) { xr[k] = x + (size_t)r * Ci; continue; }
                int n = r / P, i = r - n * P, j = g->nb[i][t];
                xr[k] = j < 0 ? zero : x + ((size_t)n * P + j) * Ci;
            }
            float *dwt = dw + (size_t)t * Ci * Co;
            for (int ci0 = 0; ci0 < ci_full; ci0 += MRD) {
                int co0 = 0;
                for (; co0 + NRD * VW <= Co; co0 += NRD * VW)
                    KFN(tile_dw_wide)(xr, R, ci0, dyb + co0, Co, dwt + (size_t)ci0 * Co + co0, Co);
                for (; co0 < Co; co0 += VW)
                    KFN(tile_dw_narrow)(xr, R, ci0, dyb + co0, Co, dwt + (size_t)ci0 * Co + co0, Co);
            }
            for (int ci = ci_full; ci < Ci; ci++)
                for (int k = 0; k < R; k++) {
                    float a = xr[k][ci];
                    const float *dyr = dyb + (size_t)k * Co;
                    float *dwr = dwt + (size_t)ci * Co;
                    for (int co = 0; co < Co; co++) dwr[co] += a * dyr[co];
                }
        }
    }
}

#undef KFN
#undef VEC
#undef VW
#undef VLOAD
#undef VSTORE
#undef VSET1
#undef VFMA
#undef VADD
#undef VMAX
#undef VZERO
#undef MR
#undef NR
#undef MRD
#undef NRD
