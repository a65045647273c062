/* ops.h — the network's layers, each a forward and a backward with explicit shapes.
 *
 * Every op is written once over a real type (see real.h) and exists as name_f (float: the
 * production path, dispatched to the vectorised kernels of ops_fast.c where the shapes allow) and
 * name_d (double: the reference for gradient checks and for the CUDA parity tests).
 *
 * Layout: activations are rows × channels, channels contiguous (see geom.h): a tensor of a batch of
 * N samples on a board with P on-board cells is x[N*P][C].  Convolution weights are w[T][Ci][Co]
 * (tap, input channel, output channel; Co contiguous), dense weights w[In][Out].
 * Forwards overwrite their outputs.  Backwards ADD into every gradient they produce (dx, dw, db...),
 * so that a tensor read by two ops collects both contributions; a NULL gradient pointer is skipped. */
#ifndef NN_OPS_H
#define NN_OPS_H

#include <stddef.h>
#include <stdbool.h>
#include "nn/geom.h"

/* ---- hex 3×3 convolution (7 taps), no bias ---------------------------------------------------
 * x[N*P][Ci], w[7][Ci][Co] -> y[N*P][Co];  y[n,i] = sum_t x[n, nb(i,t)] · w[t]  (off-board taps 0) */
void nn_conv_forward_f(float *y, const float *x, const float *w, const nn_geom *g, int N, int Ci, int Co);
void nn_conv_forward_d(double *y, const double *x, const double *w, const nn_geom *g, int N, int Ci, int Co);
/* dx[N*P][Ci] += dy ⋆ wᵀ (the same convolution with the opposite taps, transposed);
 * dw[7][Ci][Co] += sum over rows of x[nb(i,t)] ⊗ dy[i]. */
void nn_conv_backward_f(float *dx, float *dw, const float *dy, const float *x, const float *w,
                        const nn_geom *g, int N, int Ci, int Co);
void nn_conv_backward_d(double *dx, double *dw, const double *dy, const double *x, const double *w,
                        const nn_geom *g, int N, int Ci, int Co);

/* ---- matrix product: 1×1 convolution (rows = N*P) and dense layer (rows = N) -----------------
 * x[rows][In], w[In][Out], b[Out] or NULL -> y[rows][Out] = x·w + b */
void nn_matmul_forward_f(float *y, const float *x, const float *w, const float *b, int rows, int In, int Out);
void nn_matmul_forward_d(double *y, const double *x, const double *w, const double *b, int rows, int In, int Out);
/* dx[rows][In] += dy·wᵀ;  dw[In][Out] += xᵀ·dy;  db[Out] += column sums of dy. */
void nn_matmul_backward_f(float *dx, float *dw, float *db, const float *dy, const float *x, const float *w,
                          int rows, int In, int Out);
void nn_matmul_backward_d(double *dx, double *dw, double *db, const double *dy, const double *x,
                          const double *w, int rows, int In, int Out);

/* ---- batch normalisation over rows (= on-board cells of the batch), per channel ---------------
 * Training: mean and biased variance over the rows of x[rows][C]; y = gamma·(x-mean)·rstd + beta
 * with rstd = 1/sqrt(var+eps); saves mean[C], rstd[C] for the backward; when rmean != NULL the
 * running statistics move toward the batch's: r = (1-momentum)·r + momentum·batch (unbiased var). */
void nn_bn_forward_train_f(float *y, float *mean, float *rstd, const float *x, const float *gamma,
                           const float *beta, float *rmean, float *rvar, int rows, int C,
                           double momentum, double eps);
void nn_bn_forward_train_d(double *y, double *mean, double *rstd, const double *x, const double *gamma,
                           const double *beta, double *rmean, double *rvar, int rows, int C,
                           double momentum, double eps);
/* Inference: y = gamma·(x-rmean)/sqrt(rvar+eps) + beta. */
void nn_bn_forward_infer_f(float *y, const float *x, const float *gamma, const float *beta,
                           const float *rmean, const float *rvar, int rows, int C, double eps);
void nn_bn_forward_infer_d(double *y, const double *x, const double *gamma, const double *beta,
                           const double *rmean, const double *rvar, int rows, int C, double eps);
/* Backward of the training forward: dx += ..., dgamma += sum dy·xhat, dbeta += sum dy. */
void nn_bn_backward_f(float *dx, float *dgamma, float *dbeta, const float *dy, const float *x,
                      const float *mean, const float *rstd, const float *gamma, int rows, int C);
void nn_bn_backward_d(double *dx, double *dgamma, double *dbeta, const double *dy, const double *x,
                      const double *mean, const double *rstd, const double *gamma, int rows, int C);

/* ---- elementwise (n elements) ------------------------------------------------------------------ */
/* y = max(x, 0);  dx += dy·[y > 0] */
void nn_relu_forward_f(float *y, const float *x, size_t n);
void nn_relu_forward_d(double *y, const double *x, size_t n);
void nn_relu_backward_f(float *dx, const float *dy, const float *y, size_t n);
void nn_relu_backward_d(double *dx, const double *dy, const double *y, size_t n);
/* Residual add: y = a + b;  da += dy, db += dy */
void nn_add_forward_f(float *y, const float *a, const float *b, size_t n);
void nn_add_forward_d(double *y, const double *a, const double *b, size_t n);
void nn_add_backward_f(float *da, float *db, const float *dy, size_t n);
void nn_add_backward_d(double *da, double *db, const double *dy, size_t n);
/* y = tanh(x);  dx += dy·(1 - y²) */
void nn_tanh_forward_f(float *y, const float *x, size_t n);
void nn_tanh_forward_d(double *y, const double *x, size_t n);
void nn_tanh_backward_f(float *dx, const float *dy, const float *y, size_t n);
void nn_tanh_backward_d(double *dx, const double *dy, const double *y, size_t n);

/* ---- vectorised float kernels (ops_fast.c) ------------------------------------------------------
 * Direct convolution, no im2col: a tile of MR rows × NR·(vector width) output channels is kept in
 * registers over all taps and input channels; OpenMP splits the rows.  Used by the _f ops above
 * and by the folded inference net (with the fused epilogue).  Each returns false, doing nothing,
 * when the shapes or the CPU do not suit the kernel (the caller then takes the plain loop). */
enum { NN_FAST_RELU = 1, NN_FAST_ACCUM = 2 };
/* OpenMP pragmas that vanish when the compiler has no OpenMP (where -Wall would flag them):
 * NN_OMP(parallel for schedule(static)) is #pragma omp parallel for schedule(static). */
#ifdef _OPENMP
#define NN_OMP_STR(...) #__VA_ARGS__
#define NN_OMP(...) _Pragma(NN_OMP_STR(omp __VA_ARGS__))
#else
#define NN_OMP(...)
#endif
/* Work below which an op stays on one thread: a parallel region costs microseconds on an idle
 * machine and far more when the cores are shared, so only ops worth tens of microseconds split. */
#define NN_PAR_MACS 2e6         /* multiply-adds */
#define NN_PAR_ELEMS 262144     /* elements of an elementwise or normalisation pass */
/* y[rows][Co] (+)= epilogue(sum_t sum_ci x[src(r,t)][ci]·w[t][ci][Co]): g != NULL is the hex
 * convolution (rows = N·P, T = 7), g == NULL a matrix product (T = 1).  Epilogue: + bias[Co] if
 * bias, + res[rows][Co] if res, then max(·,0) if NN_FAST_RELU; with NN_FAST_ACCUM, y += result. */
bool nn_fast_conv(float *y, const float *x, const float *w, const float *bias, const float *res,
                  const nn_geom *g, int rows, int Ci, int Co, int flags);
/* dw[T][Ci][Co] += sum_r x[src(r,t)] ⊗ dy[r] (T, src as above). */
bool nn_fast_conv_dw(float *dw, const float *x, const float *dy, const nn_geom *g, int rows, int Ci, int Co);
/* The instruction set the kernels use: "avx512", "avx2" or "none". */
const char *nn_fast_isa(void);
/* Restrict the kernels to an instruction set ("avx512", "avx2", "none"), for tests and benches;
 * returns the one in force (never more than the CPU has). */
const char *nn_fast_force(const char *isa);

#endif
