/* ops_act.c — elementwise ops: ReLU, residual add, tanh; forward and backward over `real`. */
#include "nn/ops.h"
#include <math.h>

#ifndef NN_REAL_PASS
#define NN_SELF "ops_act.c"
#include "nn/real.h"
#else

void NN_R(nn_relu_forward)(real *y, const real *x, size_t n)
{
    NN_OMP(parallel for schedule(static) if (n > NN_PAR_ELEMS))
    for (size_t i = 0; i < n; i++) y[i] = x[i] > 0 ? x[i] : 0;
}

void NN_R(nn_relu_backward)(real *dx, const real *dy, const real *y, size_t n)
{
    NN_OMP(parallel for schedule(static) if (n > NN_PAR_ELEMS))
    for (size_t i = 0; i < n; i++) dx[i] += y[i] > 0 ? dy[i] : 0;
}

void NN_R(nn_add_forward)(real *y, const real *a, const real *b, size_t n)
{
    NN_OMP(parallel for schedule(static) if (n > NN_PAR_ELEMS))
    for (size_t i = 0; i < n; i++) y[i] = a[i] + b[i];
}

void NN_R(nn_add_backward)(real *da, real *db, const real *dy, size_t n)
{
    if (da) {
        NN_OMP(parallel for schedule(static) if (n > NN_PAR_ELEMS))
        for (size_t i = 0; i < n; i++) da[i] += dy[i];
    }
    if (db) {
        NN_OMP(parallel for schedule(static) if (n > NN_PAR_ELEMS))
        for (size_t i = 0; i < n; i++) db[i] += dy[i];
    }
}

void NN_R(nn_tanh_forward)(real *y, const real *x, size_t n)
{
    for (size_t i = 0; i < n; i++) y[i] = (real)tanh((double)x[i]);
}

void NN_R(nn_tanh_backward)(real *dx, const real *dy, const real *y, size_t n)
{
    for (size_t i = 0; i < n; i++) dx[i] += dy[i] * (1 - y[i] * y[i]);
}

#endif
