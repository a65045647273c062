/* train_ops.c — the network's ops from the training kernels (see train_ops.h): which kernels, in
 * which order, over which scratch buffers. */
#include "cuda/train_ops.h"
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Backend memory, grown on demand; want = the largest size asked for (zzt_ctx_reserve allocates it). */
typedef struct { void *p; size_t cap, want; } scratch;

struct zzt_ctx {
    const zzt_backend *be;
    scratch part, dpart, dmean, coef, wt, loss, zeros;
    double *host;                                   /* per-sample losses / partial sums, host side */
    size_t host_cap;
    bool measure;                                   /* zzt_ctx_measure: record sizes, launch nothing */
    long allocs;                                    /* backend allocations made (zzt_ctx_allocs) */
    char err[512];
};

static int fail(zzt_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    return -1;
}

zzt_ctx *zzt_ctx_new(const zzt_backend *be, char *err, size_t n)
{
    zzt_ctx *c = calloc(1, sizeof *c);
    if (!c) { if (err && n) snprintf(err, n, "out of memory"); return NULL; }
    c->be = be;
    return c;
}

void zzt_ctx_free(zzt_ctx *c)
{
    if (!c) return;
    scratch *all[] = { &c->part, &c->dpart, &c->dmean, &c->coef, &c->wt, &c->loss, &c->zeros };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) c->be->release(all[i]->p);
    free(c->host);
    free(c);
}

const zzt_backend *zzt_ctx_backend(const zzt_ctx *c) { return c->be; }
const char *zzt_error(const zzt_ctx *c) { return c->err; }
void zzt_ctx_measure(zzt_ctx *c, bool on) { c->measure = on; }
long zzt_ctx_allocs(const zzt_ctx *c) { return c->allocs; }

/* Replace s's memory by a fresh (zeroed) block of bytes. */
static void *realloc_scratch(zzt_ctx *c, scratch *s, size_t bytes)
{
    c->be->release(s->p);
    s->cap = 0;
    s->p = c->be->alloc(bytes, c->err, sizeof c->err);
    c->allocs++;
    if (s->p) s->cap = bytes;
    return s->p;
}

/* Make s hold at least bytes; its contents are not kept.  While measuring, only the size is
 * recorded, and a pointer that is never dereferenced comes back (no kernel runs then). */
static void *grow(zzt_ctx *c, scratch *s, size_t bytes)
{
    if (bytes > s->want) s->want = bytes;
    if (c->measure) return s->p ? s->p : (void *)c;
    if (s->cap >= bytes && s->p) return s->p;
    return realloc_scratch(c, s, bytes);
}

int zzt_ctx_reserve(zzt_ctx *c)
{
    scratch *all[] = { &c->part, &c->dpart, &c->dmean, &c->coef, &c->wt, &c->loss, &c->zeros };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        if (all[i]->want > all[i]->cap && !realloc_scratch(c, all[i], all[i]->want)) return -1;
    return 0;
}

static double *host_doubles(zzt_ctx *c, size_t n)
{
    if (n <= c->host_cap) return c->host;
    double *h = realloc(c->host, n * sizeof *h);
    if (!h) { fail(c, "out of host memory"); return NULL; }
    c->host = h;
    c->host_cap = n;
    return h;
}

static int run(zzt_ctx *c, zzt_kernel k, int64_t threads, const zzt_args *a)
{
    return c->measure ? 0 : c->be->launch(k, threads, a, c->err, sizeof c->err);
}

static int nchunks(int64_t rows, int chunk) { return (int)((rows + chunk - 1) / chunk); }

/* ---- convolution ------------------------------------------------------------------------------ */

static int conv_shape_ok(zzt_ctx *c, const int *nb, int rows, int P, int taps, int ci, int co)
{
    if (rows < 1 || ci < 1 || co < 1 || (taps != 1 && taps != 7) || (taps == 7 && (!nb || P < 1 || rows % P)))
        return fail(c, "conv: bad shape rows %d P %d taps %d ci %d co %d", rows, P, taps, ci, co);
    return 0;
}

int zzt_conv_forward(zzt_ctx *c, float *y, const float *x, const float *w, const float *b,
                     const int *nb, int rows, int P, int taps, int ci, int co)
{
    if (conv_shape_ok(c, nb, rows, P, taps, ci, co)) return -1;
    zzt_args a = { .y = y, .x = x, .w = w, .b = b, .nb = taps == 7 ? nb : NULL, .rows = rows, .P = P,
                   .taps = taps, .ci = ci, .co = co };
    return run(c, ZZT_CONV, (int64_t)rows * co, &a);
}

/* sum over rows in chunks: part[nchunks][taps·ci·co], then dst += the chunks in order. */
static int weight_grad(zzt_ctx *c, float *dst, const float *x, const float *dy, const int *nb, int rows, int P,
                       int taps, int ci, int co)
{
    int nch = nchunks(rows, ZZT_DW_CHUNK);
    int64_t K = (int64_t)taps * ci * co;
    float *part = grow(c, &c->part, (size_t)nch * (size_t)K * sizeof(float));
    if (!part) return -1;
    zzt_args a = { .part = part, .x = x, .dy = dy, .nb = nb, .rows = rows, .P = P, .taps = taps, .ci = ci,
                   .co = co, .chunk = ZZT_DW_CHUNK };
    if (run(c, ZZT_DW_PART, nch * K, &a)) return -1;
    zzt_args r = { .y = dst, .part = part, .k = K, .nchunks = nch };
    return run(c, ZZT_REDUCE_ADD, K, &r);
}

static int bn_scratch(zzt_ctx *c, int rows, int C, int parts_per_chunk, zzt_args *a);

/* db[co] += sum over rows of dy, accumulated in double.  A bias gradient can be an exact zero made
 * of large terms (the policy logits' bias: each sample's softmax gradient sums to zero over its
 * moves), where float partial sums leave 2^-31-sized residues; batch norm's dbeta is the same sum,
 * and its kernels sum in double over 64-row chunks: BN_BWD_PART over dy with x = dy and
 * mean = rstd = gamma = 0 (so its dgamma sums are 0 and unused), then BN_BWD_COEF with dgamma
 * NULL adds the column sums into db (writing coefficients to scratch no one reads). */
static int bias_grad(zzt_ctx *c, float *db, const float *dy, int rows, int co)
{
    float *zeros = grow(c, &c->zeros, (size_t)co * sizeof(float));      /* allocated zeroed, never written */
    zzt_args a = { .dbeta = db, .dy = dy, .x = dy, .mean = zeros, .rstd = zeros, .gamma = zeros };
    if (!zeros || bn_scratch(c, rows, co, 2, &a)) return -1;
    return run(c, ZZT_BN_BWD_PART, (int64_t)a.nchunks * co, &a) || run(c, ZZT_BN_BWD_COEF, co, &a) ? -1 : 0;
}

int zzt_conv_backward(zzt_ctx *c, float *dx, float *dw, float *db, const float *dy, const float *x,
                      const float *w, const int *nb, int rows, int P, int taps, int ci, int co)
{
    if (conv_shape_ok(c, nb, rows, P, taps, ci, co)) return -1;
    if (taps == 1) nb = NULL;
    if (dx) {                       /* dx += conv(dy, wᵀ with opposite taps), inputs and outputs swapped */
        float *wt = grow(c, &c->wt, (size_t)taps * ci * co * sizeof(float));
        if (!wt) return -1;
        zzt_args t = { .y = wt, .w = w, .taps = taps, .ci = ci, .co = co };
        if (run(c, ZZT_TRANSPOSE, (int64_t)taps * ci * co, &t)) return -1;
        zzt_args a = { .y = dx, .x = dy, .w = wt, .nb = nb, .rows = rows, .P = P, .taps = taps, .ci = co,
                       .co = ci, .accumulate = 1 };
        if (run(c, ZZT_CONV, (int64_t)rows * ci, &a)) return -1;
    }
    if (dw && weight_grad(c, dw, x, dy, nb, rows, P, taps, ci, co)) return -1;
    if (db && bias_grad(c, db, dy, rows, co)) return -1;
    return 0;
}

/* ---- batch norm ------------------------------------------------------------------------------- */

/* Per-channel scratch: dmean[C] doubles, coef = sc, sh, cc [3][C] floats. */
static int bn_scratch(zzt_ctx *c, int rows, int C, int parts_per_chunk, zzt_args *a)
{
    if (rows < 1 || C < 1) return fail(c, "batch norm: bad shape rows %d C %d", rows, C);
    int nch = nchunks(rows, ZZT_BN_CHUNK);
    a->dpart = grow(c, &c->dpart, (size_t)nch * parts_per_chunk * C * sizeof(double));
    a->dmean = grow(c, &c->dmean, (size_t)C * sizeof(double));
    float *coef = grow(c, &c->coef, (size_t)3 * C * sizeof(float));
    if (!a->dpart || !a->dmean || !coef) return -1;
    a->sc = coef;
    a->sh = coef + C;
    a->cc = coef + 2 * C;
    a->rows = rows;
    a->C = C;
    a->chunk = ZZT_BN_CHUNK;
    a->nchunks = nch;
    return 0;
}

int zzt_bn_forward_train(zzt_ctx *c, float *y, float *mean, float *rstd, const float *x, const float *gamma,
                         const float *beta, float *rmean, float *rvar, int rows, int C, double momentum,
                         double eps)
{
    zzt_args a = { .y = y, .x = x, .mean_out = mean, .rstd_out = rstd, .gamma = gamma, .beta = beta,
                   .rmean = rmean, .rvar = rmean ? rvar : NULL, .momentum = momentum, .eps = eps };
    if (bn_scratch(c, rows, C, 1, &a)) return -1;
    int64_t per = (int64_t)a.nchunks * C;
    if (run(c, ZZT_COL_SUM, per, &a) || run(c, ZZT_BN_MEAN, C, &a) || run(c, ZZT_COL_SQDEV, per, &a) ||
        run(c, ZZT_BN_VAR, C, &a))
        return -1;
    return run(c, ZZT_SCALE_SHIFT, (int64_t)rows * C, &a);
}

int zzt_bn_forward_infer(zzt_ctx *c, float *y, const float *x, const float *gamma, const float *beta,
                         const float *rmean, const float *rvar, int rows, int C, double eps)
{
    zzt_args a = { .y = y, .x = x, .gamma = gamma, .beta = beta, .rmean = (float *)rmean,
                   .rvar = (float *)rvar, .eps = eps };     /* read only in BN_INFER_COEF */
    if (bn_scratch(c, rows, C, 1, &a)) return -1;
    if (run(c, ZZT_BN_INFER_COEF, C, &a)) return -1;
    return run(c, ZZT_SCALE_SHIFT, (int64_t)rows * C, &a);
}

int zzt_bn_backward(zzt_ctx *c, float *dx, float *dgamma, float *dbeta, const float *dy, const float *x,
                    const float *mean, const float *rstd, const float *gamma, int rows, int C)
{
    zzt_args a = { .dx = dx, .dgamma = dgamma, .dbeta = dbeta, .dy = dy, .x = x, .mean = mean, .rstd = rstd,
                   .gamma = gamma };
    if (bn_scratch(c, rows, C, 2, &a)) return -1;
    if (run(c, ZZT_BN_BWD_PART, (int64_t)a.nchunks * C, &a) || run(c, ZZT_BN_BWD_COEF, C, &a)) return -1;
    return dx ? run(c, ZZT_BN_BWD_APPLY, (int64_t)rows * C, &a) : 0;
}

/* ---- elementwise ------------------------------------------------------------------------------ */

static int eltwise(zzt_ctx *c, zzt_kernel k, float *y, float *dx, float *dx2, const float *x,
                   const float *x2, const float *dy, size_t n)
{
    zzt_args a = { .y = y, .dx = dx, .dx2 = dx2, .x = x, .x2 = x2, .dy = dy, .n = (int64_t)n };
    return run(c, k, (int64_t)n, &a);
}

int zzt_relu_forward(zzt_ctx *c, float *y, const float *x, size_t n) { return eltwise(c, ZZT_RELU, y, NULL, NULL, x, NULL, NULL, n); }
int zzt_relu_backward(zzt_ctx *c, float *dx, const float *dy, const float *y, size_t n) { return eltwise(c, ZZT_RELU_BWD, NULL, dx, NULL, y, NULL, dy, n); }
int zzt_add_forward(zzt_ctx *c, float *y, const float *a, const float *b, size_t n) { return eltwise(c, ZZT_ADD, y, NULL, NULL, a, b, NULL, n); }
int zzt_add_backward(zzt_ctx *c, float *da, float *db, const float *dy, size_t n) { return eltwise(c, ZZT_ADD_BWD, NULL, da, db, NULL, NULL, dy, n); }
int zzt_tanh_forward(zzt_ctx *c, float *y, const float *x, size_t n) { return eltwise(c, ZZT_TANH, y, NULL, NULL, x, NULL, NULL, n); }
int zzt_tanh_backward(zzt_ctx *c, float *dx, const float *dy, const float *y, size_t n) { return eltwise(c, ZZT_TANH_BWD, NULL, dx, NULL, y, NULL, dy, n); }

/* ---- losses and the optimiser -------------------------------------------------------------------- */

/* The n doubles at dev (backend memory) summed in order on the host (0 while measuring). */
static int host_sum(zzt_ctx *c, const double *dev, int64_t n, double *sum)
{
    double *h = host_doubles(c, (size_t)n);
    if (!h) return -1;
    *sum = 0;
    if (c->measure) return 0;
    if (c->be->download(h, dev, (size_t)n * sizeof(double), c->err, sizeof c->err)) return -1;
    for (int64_t i = 0; i < n; i++) *sum += h[i];
    return 0;
}

/* Run a kernel that leaves one double per thread in c->loss, and sum them in order on the host. */
static int sum_doubles(zzt_ctx *c, zzt_kernel k, zzt_args *a, int64_t threads, double *sum)
{
    a->loss = a->dpart = grow(c, &c->loss, (size_t)threads * sizeof(double));
    if (!a->loss || run(c, k, threads, a)) return -1;
    return host_sum(c, a->loss, threads, sum);
}

int zzt_policy_loss(zzt_ctx *c, double *loss, float *dlogits, const float *logits, const int *start,
                    const int *term, const float *pi, int n, int P, int heads, double weight, float *gmove)
{
    if (n < 1) { *loss = 0; return 0; }
    if (dlogits && !gmove) return fail(c, "policy loss: gradients asked for without the moves' scratch");
    int64_t lanes = (int64_t)n * ZZT_LANES;
    zzt_args a = { .x = logits, .dx = dlogits, .y = gmove, .start = start, .term = term, .pi = pi, .n = n, .P = P,
                   .heads = heads, .weight = weight };
    a.dpart = grow(c, &c->dpart, (size_t)lanes * 4 * sizeof(double));      /* [n][lanes] maxima, [n][lanes][3] sums */
    a.loss = grow(c, &c->loss, (size_t)n * sizeof(double));
    double sum;
    if (!a.dpart || !a.loss || run(c, ZZT_POLICY_MAX, lanes, &a) || run(c, ZZT_POLICY_SUMS, lanes, &a) ||
        run(c, ZZT_POLICY_GRAD, lanes, &a) || (dlogits && run(c, ZZT_POLICY_SCATTER, n, &a)) ||
        host_sum(c, a.loss, n, &sum))
        return -1;
    *loss = sum / n;
    return 0;
}

int zzt_value_loss(zzt_ctx *c, double *loss, float *dv, const float *v, const float *z, int n, double weight)
{
    if (n < 1) { *loss = 0; return 0; }
    zzt_args a = { .x = v, .dx = dv, .z = z, .n = n, .weight = weight };
    double s;
    if (sum_doubles(c, ZZT_VALUE_LOSS, &a, n, &s)) return -1;
    *loss = s / n;
    return 0;
}

int zzt_sumsq(zzt_ctx *c, double *out, const float *x, size_t n)
{
    if (!n) { *out = 0; return 0; }
    zzt_args a = { .x = x, .n = (int64_t)n, .chunk = ZZT_SUMSQ_CHUNK };
    return sum_doubles(c, ZZT_SUMSQ_PART, &a, nchunks((int64_t)n, ZZT_SUMSQ_CHUNK), out);
}

int zzt_sgd(zzt_ctx *c, float *w, const float *grad, float *mom, size_t n, size_t ndecay, float lr,
            float mu, float wd)
{
    zzt_args a = { .w_io = w, .grad = grad, .mom = mom, .ndecay = (int64_t)ndecay, .lr = lr,
                   .mu = mu, .wd = wd };
    return run(c, ZZT_SGD, (int64_t)n, &a);
}
