/* ops_conv.c — hex 3×3 convolution (7 live taps, see geom.h) and matrix product (1×1 convolution,
 * dense layer): forward and backward, written once over `real` (see real.h).  These loops are the
 * reference; in the float pass they hand the work to the register-blocked kernels of ops_fast.c
 * whenever the shapes allow. */
#include "nn/ops.h"
#include <stdlib.h>
#include <string.h>

#ifndef NN_REAL_PASS
#define NN_SELF "ops_conv.c"
#include "nn/real.h"
#else

/* x[N*P][Ci], w[7][Ci][Co] -> y[N*P][Co] */
void NN_R(nn_conv_forward)(real *y, const real *x, const real *w, const nn_geom *g, int N, int Ci, int Co)
{
    int P = g->ncells;
    long rows = (long)N * P;
#if NN_REAL_IS_FLOAT
    if (nn_fast_conv(y, x, w, NULL, NULL, g, (int)rows, Ci, Co, 0)) return;
#endif
    NN_OMP(parallel for schedule(static) if ((double)rows * NN_TAPS * Ci * Co > NN_PAR_MACS))
    for (long r = 0; r < rows; r++) {
        long n = r / P; int i = (int)(r - n * P);
        real *yr = y + r * Co;
        for (int co = 0; co < Co; co++) yr[co] = 0;
        for (int t = 0; t < NN_TAPS; t++) {
            int j = g->nb[i][t];
            if (j < 0) continue;
            const real *xr = x + (n * P + j) * Ci;
            for (int ci = 0; ci < Ci; ci++) {
                real a = xr[ci];
                const real *wr = w + ((size_t)t * Ci + ci) * Co;
                for (int co = 0; co < Co; co++) yr[co] += a * wr[co];
            }
        }
    }
}

/* dy[N*P][Co] -> dx[N*P][Ci] += ..., dw[7][Ci][Co] += ... */
void NN_R(nn_conv_backward)(real *dx, real *dw, const real *dy, const real *x, const real *w,
                            const nn_geom *g, int N, int Ci, int Co)
{
    int P = g->ncells;
    long rows = (long)N * P;
    if (dx) {
        /* dx[n,j] = sum_t dy[n,i]·w[t]ᵀ over the i with nb(i,t) = j, i.e. i = nb(j, opposite t):
         * a convolution of dy with the weights transposed and the taps reversed. */
        real *wb = malloc(sizeof(real) * NN_TAPS * (size_t)Ci * (size_t)Co);
        for (int t = 0; t < NN_TAPS; t++)
            for (int ci = 0; ci < Ci; ci++)
                for (int co = 0; co < Co; co++)
                    wb[((size_t)(NN_TAPS - 1 - t) * Co + co) * Ci + ci] = w[((size_t)t * Ci + ci) * Co + co];
        bool done = false;
#if NN_REAL_IS_FLOAT
        done = nn_fast_conv(dx, dy, wb, NULL, NULL, g, (int)rows, Co, Ci, NN_FAST_ACCUM);
#endif
        if (!done) {
            NN_OMP(parallel for schedule(static) if ((double)rows * NN_TAPS * Ci * Co > NN_PAR_MACS))
            for (long r = 0; r < rows; r++) {
                long n = r / P; int j = (int)(r - n * P);
                real *dxr = dx + r * Ci;
                for (int t = 0; t < NN_TAPS; t++) {
                    int i = g->nb[j][t];
                    if (i < 0) continue;
                    const real *dyr = dy + (n * P + i) * Co;
                    for (int co = 0; co < Co; co++) {
                        real d = dyr[co];
                        const real *wr = wb + ((size_t)t * Co + co) * Ci;
                        for (int ci = 0; ci < Ci; ci++) dxr[ci] += d * wr[ci];
                    }
                }
            }
        }
        free(wb);
    }
    if (dw) {
#if NN_REAL_IS_FLOAT
        if (nn_fast_conv_dw(dw, x, dy, g, (int)rows, Ci, Co)) return;
#endif
        NN_OMP(parallel for schedule(static) if ((double)rows * NN_TAPS * Ci * Co > NN_PAR_MACS))
        for (int tc = 0; tc < NN_TAPS * Ci; tc++) {
            int t = tc / Ci, ci = tc % Ci;
            real *dwr = dw + (size_t)tc * Co;
            for (long r = 0; r < rows; r++) {
                long n = r / P; int i = (int)(r - n * P);
                int j = g->nb[i][t];
                if (j < 0) continue;
                real a = x[(n * P + j) * Ci + ci];
                const real *dyr = dy + r * Co;
                for (int co = 0; co < Co; co++) dwr[co] += a * dyr[co];
            }
        }
    }
}

/* x[rows][In], w[In][Out], b[Out] -> y[rows][Out] */
void NN_R(nn_matmul_forward)(real *y, const real *x, const real *w, const real *b, int rows, int In, int Out)
{
#if NN_REAL_IS_FLOAT
    if (nn_fast_conv(y, x, w, b, NULL, NULL, rows, In, Out, 0)) return;
#endif
    NN_OMP(parallel for schedule(static) if ((double)rows * In * Out > NN_PAR_MACS))
    for (int r = 0; r < rows; r++) {
        real *yr = y + (size_t)r * Out;
        const real *xr = x + (size_t)r * In;
        for (int o = 0; o < Out; o++) yr[o] = b ? b[o] : 0;
        for (int i = 0; i < In; i++) {
            real a = xr[i];
            const real *wr = w + (size_t)i * Out;
            for (int o = 0; o < Out; o++) yr[o] += a * wr[o];
        }
    }
}

/* dy[rows][Out] -> dx[rows][In] += dy·wᵀ, dw[In][Out] += xᵀ·dy, db[Out] += sum dy */
void NN_R(nn_matmul_backward)(real *dx, real *dw, real *db, const real *dy, const real *x, const real *w,
                              int rows, int In, int Out)
{
    if (dx) {
        bool done = false;
#if NN_REAL_IS_FLOAT
        if (Out >= 16) {          /* worth a transposed copy of w for the fast kernel */
            float *wt = malloc(sizeof(float) * (size_t)In * (size_t)Out);
            for (int i = 0; i < In; i++)
                for (int o = 0; o < Out; o++) wt[(size_t)o * In + i] = w[(size_t)i * Out + o];
            done = nn_fast_conv(dx, dy, wt, NULL, NULL, NULL, rows, Out, In, NN_FAST_ACCUM);
            free(wt);
        }
#endif
        if (!done) {
            NN_OMP(parallel for schedule(static) if ((double)rows * In * Out > NN_PAR_MACS))
            for (int r = 0; r < rows; r++) {
                real *dxr = dx + (size_t)r * In;
                const real *dyr = dy + (size_t)r * Out;
                for (int i = 0; i < In; i++) {
                    const real *wr = w + (size_t)i * Out;
                    real s = 0;
                    for (int o = 0; o < Out; o++) s += dyr[o] * wr[o];
                    dxr[i] += s;
                }
            }
        }
    }
    if (dw) {
        bool done = false;
#if NN_REAL_IS_FLOAT
        done = nn_fast_conv_dw(dw, x, dy, NULL, rows, In, Out);
#endif
        if (!done) {
            NN_OMP(parallel for schedule(static) if ((double)rows * In * Out > NN_PAR_MACS))
            for (int i = 0; i < In; i++) {
                real *dwr = dw + (size_t)i * Out;
                for (int r = 0; r < rows; r++) {
                    real a = x[(size_t)r * In + i];
                    const real *dyr = dy + (size_t)r * Out;
                    for (int o = 0; o < Out; o++) dwr[o] += a * dyr[o];
                }
            }
        }
    }
    if (db) {
        for (int r = 0; r < rows; r++) {
            const real *dyr = dy + (size_t)r * Out;
            for (int o = 0; o < Out; o++) db[o] += dyr[o];
        }
    }
}

#endif
