/* ops_bn.c — batch normalisation per channel over the rows of x[rows][C] (rows = the on-board cells
 * of every sample of the batch, so off-board cells never enter the statistics).  Training forward
 * (batch statistics, running averages), inference forward (running statistics) and backward, over
 * `real`.  Work is split over blocks of channels, so no reduction crosses threads. */
#include "nn/ops.h"
#include <math.h>

#ifndef NN_REAL_PASS
#define NN_SELF "ops_bn.c"
#include "nn/real.h"
#else

#define NN_BN_CB 8   /* channels per block */

void NN_R(nn_bn_forward_train)(real *y, real *mean, real *rstd, const real *x, const real *gamma,
                               const real *beta, real *rmean, real *rvar, int rows, int C,
                               double momentum, double eps)
{
    NN_OMP(parallel for schedule(static) if ((long)rows * C > NN_PAR_ELEMS))
    for (int c0 = 0; c0 < C; c0 += NN_BN_CB) {
        int nc = C - c0 < NN_BN_CB ? C - c0 : NN_BN_CB;
        acc_t s[NN_BN_CB] = { 0 }, ss[NN_BN_CB] = { 0 }, m[NN_BN_CB], rs[NN_BN_CB];
        for (int r = 0; r < rows; r++) {
            const real *xr = x + (size_t)r * C + c0;
            for (int k = 0; k < nc; k++) s[k] += xr[k];
        }
        for (int k = 0; k < nc; k++) m[k] = s[k] / rows;
        for (int r = 0; r < rows; r++) {
            const real *xr = x + (size_t)r * C + c0;
            for (int k = 0; k < nc; k++) { acc_t d = xr[k] - m[k]; ss[k] += d * d; }
        }
        for (int k = 0; k < nc; k++) {
            acc_t var = ss[k] / rows;
            rs[k] = 1.0 / sqrt(var + eps);
            mean[c0 + k] = (real)m[k];
            rstd[c0 + k] = (real)rs[k];
            if (rmean) {
                acc_t unbiased = rows > 1 ? ss[k] / (rows - 1) : var;
                rmean[c0 + k] = (real)((1 - momentum) * rmean[c0 + k] + momentum * m[k]);
                rvar[c0 + k] = (real)((1 - momentum) * rvar[c0 + k] + momentum * unbiased);
            }
        }
        real sc[NN_BN_CB], sh[NN_BN_CB];      /* y = x·sc + sh */
        for (int k = 0; k < nc; k++) {
            sc[k] = (real)(gamma[c0 + k] * rs[k]);
            sh[k] = (real)(beta[c0 + k] - m[k] * gamma[c0 + k] * rs[k]);
        }
        for (int r = 0; r < rows; r++) {
            const real *xr = x + (size_t)r * C + c0;
            real *yr = y + (size_t)r * C + c0;
            for (int k = 0; k < nc; k++) yr[k] = xr[k] * sc[k] + sh[k];
        }
    }
}

void NN_R(nn_bn_forward_infer)(real *y, const real *x, const real *gamma, const real *beta,
                               const real *rmean, const real *rvar, int rows, int C, double eps)
{
    NN_OMP(parallel for schedule(static) if ((long)rows * C > NN_PAR_ELEMS))
    for (int c0 = 0; c0 < C; c0 += NN_BN_CB) {
        int nc = C - c0 < NN_BN_CB ? C - c0 : NN_BN_CB;
        real sc[NN_BN_CB], sh[NN_BN_CB];
        for (int k = 0; k < nc; k++) {
            acc_t rs = 1.0 / sqrt((acc_t)rvar[c0 + k] + eps);
            sc[k] = (real)(gamma[c0 + k] * rs);
            sh[k] = (real)(beta[c0 + k] - rmean[c0 + k] * gamma[c0 + k] * rs);
        }
        for (int r = 0; r < rows; r++) {
            const real *xr = x + (size_t)r * C + c0;
            real *yr = y + (size_t)r * C + c0;
            for (int k = 0; k < nc; k++) yr[k] = xr[k] * sc[k] + sh[k];
        }
    }
}

/* With xhat = (x-mean)·rstd and M rows:
 *   dbeta = sum dy,  dgamma = sum dy·xhat,
 *   dx = gamma·rstd·(dy - dbeta/M - xhat·dgamma/M)   (batch statistics depend on x). */
void NN_R(nn_bn_backward)(real *dx, real *dgamma, real *dbeta, const real *dy, const real *x,
                          const real *mean, const real *rstd, const real *gamma, int rows, int C)
{
    NN_OMP(parallel for schedule(static) if ((long)rows * C > NN_PAR_ELEMS))
    for (int c0 = 0; c0 < C; c0 += NN_BN_CB) {
        int nc = C - c0 < NN_BN_CB ? C - c0 : NN_BN_CB;
        acc_t sdy[NN_BN_CB] = { 0 }, sdyx[NN_BN_CB] = { 0 };
        for (int r = 0; r < rows; r++) {
            const real *xr = x + (size_t)r * C + c0, *dyr = dy + (size_t)r * C + c0;
            for (int k = 0; k < nc; k++) {
                sdy[k] += dyr[k];
                sdyx[k] += (acc_t)dyr[k] * ((xr[k] - mean[c0 + k]) * rstd[c0 + k]);
            }
        }
        for (int k = 0; k < nc; k++) {
            if (dgamma) dgamma[c0 + k] += (real)sdyx[k];
            if (dbeta) dbeta[c0 + k] += (real)sdy[k];
        }
        if (!dx) continue;
        real a[NN_BN_CB], b[NN_BN_CB], cc[NN_BN_CB];   /* dx += a·dy + b·x + cc */
        for (int k = 0; k < nc; k++) {
            acc_t gr = (acc_t)gamma[c0 + k] * rstd[c0 + k], rs = rstd[c0 + k];
            acc_t mdy = sdy[k] / rows, mdyx = sdyx[k] / rows;
            a[k] = (real)gr;
            b[k] = (real)(-gr * mdyx * rs);
            cc[k] = (real)(-gr * mdy + gr * mdyx * rs * mean[c0 + k]);
        }
        for (int r = 0; r < rows; r++) {
            const real *xr = x + (size_t)r * C + c0, *dyr = dy + (size_t)r * C + c0;
            real *dxr = dx + (size_t)r * C + c0;
            for (int k = 0; k < nc; k++) dxr[k] += a[k] * dyr[k] + b[k] * xr[k] + cc[k];
        }
    }
}

#undef NN_BN_CB
#endif
