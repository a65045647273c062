/* train_ops.h — the network's ops on a training backend (train_backend.h): the same contracts as
 * src/nn/ops.h (shapes, layouts, forwards overwrite, backwards ADD into every gradient, NULL
 * gradients skipped), on pointers of the backend's memory, built from the kernels of
 * train_kernels.h.  Reductions are deterministic (fixed chunks of rows, summed in order).
 *
 * A context holds the backend, the scratch buffers the reductions need (grown on demand, or sized
 * once in advance: zzt_ctx_measure / zzt_ctx_reserve) and the last error.  Every function returns
 * 0, or -1 with zzt_error(ctx) saying why. */
#ifndef ZZ_CUDA_TRAIN_OPS_H
#define ZZ_CUDA_TRAIN_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include "cuda/train_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zzt_ctx zzt_ctx;

/* Rows summed per partial: weight gradients, batch-norm statistics, the L2 term. */
enum { ZZT_DW_CHUNK = 256, ZZT_BN_CHUNK = 64, ZZT_SUMSQ_CHUNK = 4096 };

zzt_ctx *zzt_ctx_new(const zzt_backend *be, char *err, size_t n);
void zzt_ctx_free(zzt_ctx *c);
const zzt_backend *zzt_ctx_backend(const zzt_ctx *c);
const char *zzt_error(const zzt_ctx *c);
/* Measuring (on): the ops below check their shapes and record the scratch they would need, but
 * allocate, launch and copy nothing (pointers are not dereferenced; losses come back 0).  Then
 * zzt_ctx_reserve allocates every scratch buffer at the largest size recorded, so that running the
 * same ops allocates nothing (an allocation, and a free above all, waits on the whole GPU). */
void zzt_ctx_measure(zzt_ctx *c, bool on);
int zzt_ctx_reserve(zzt_ctx *c);
/* The number of backend allocations this context has made (for tests). */
long zzt_ctx_allocs(const zzt_ctx *c);

/* Hex convolution (taps 7: nb[P][7] in backend memory, rows = N·P) or matrix product (taps 1,
 * nb NULL, any rows): y[rows][co] = conv(x[rows][ci], w[taps][ci][co]) + b[co] (b may be NULL). */
int zzt_conv_forward(zzt_ctx *c, float *y, const float *x, const float *w, const float *b,
                     const int *nb, int rows, int P, int taps, int ci, int co);
/* dx[rows][ci] += dy ⋆ wᵀ;  dw[taps][ci][co] += sum_r x[src(r,t)] ⊗ dy[r];  db[co] += sum_r dy[r]
 * (db summed in double, as batch norm's dbeta). */
int zzt_conv_backward(zzt_ctx *c, float *dx, float *dw, float *db, const float *dy, const float *x,
                      const float *w, const int *nb, int rows, int P, int taps, int ci, int co);

/* Batch norm over the rows of x[rows][C] (ops.h's nn_bn_*): training forward (saves mean, rstd;
 * moves rmean/rvar when rmean != NULL), inference forward, backward. */
int zzt_bn_forward_train(zzt_ctx *c, float *y, float *mean, float *rstd, const float *x, const float *gamma,
                         const float *beta, float *rmean, float *rvar, int rows, int C, double momentum,
                         double eps);
int zzt_bn_forward_infer(zzt_ctx *c, float *y, const float *x, const float *gamma, const float *beta,
                         const float *rmean, const float *rvar, int rows, int C, double eps);
int zzt_bn_backward(zzt_ctx *c, float *dx, float *dgamma, float *dbeta, const float *dy, const float *x,
                    const float *mean, const float *rstd, const float *gamma, int rows, int C);

/* Elementwise over n elements (y is the forward's output in the backwards). */
int zzt_relu_forward(zzt_ctx *c, float *y, const float *x, size_t n);
int zzt_relu_backward(zzt_ctx *c, float *dx, const float *dy, const float *y, size_t n);
int zzt_add_forward(zzt_ctx *c, float *y, const float *a, const float *b, size_t n);
int zzt_add_backward(zzt_ctx *c, float *da, float *db, const float *dy, size_t n);
int zzt_tanh_forward(zzt_ctx *c, float *y, const float *x, size_t n);
int zzt_tanh_backward(zzt_ctx *c, float *dx, const float *dy, const float *y, size_t n);

/* policy.h's losses on backend pointers: logits[n][P][heads], start[n+1], term[moves][2], pi[moves]
 * (policy); v[n], z[n] (value).  *loss = the mean over samples (summed in order on the host);
 * gradients are added into dlogits / dv when not NULL.  gmove[moves]: backend scratch for each
 * move's gradient (needed with dlogits; the caller sizes it with the move targets). */
int zzt_policy_loss(zzt_ctx *c, double *loss, float *dlogits, const float *logits, const int *start,
                    const int *term, const float *pi, int n, int P, int heads, double weight, float *gmove);
int zzt_value_loss(zzt_ctx *c, double *loss, float *dv, const float *v, const float *z, int n, double weight);

/* sum of x[j]² over j < n (for the L2 term), summed in order. */
int zzt_sumsq(zzt_ctx *c, double *out, const float *x, size_t n);
/* sgd.c's update over n parameters, weight decay on [0, ndecay). */
int zzt_sgd(zzt_ctx *c, float *w, const float *grad, float *mom, size_t n, size_t ndecay, float lr,
            float mu, float wd);

#ifdef __cplusplus
}
#endif
#endif
