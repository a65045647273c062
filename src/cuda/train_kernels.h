/* train_kernels.h — the training kernels of the CUDA backend, written once as per-thread bodies in
 * the common subset of C11 and CUDA C++, so that the very same source runs on the GPU (train_launch.cu
 * wraps each body in a __global__ kernel, one thread per index) and on the CPU (train_emu.c calls
 * the body for every index: the kernels' CPU twin, tested in `make test` against src/nn's ops).
 *
 * Rules for a body: it computes what thread i of a 1-D grid of `threads` computes, writes only
 * outputs no other thread writes (no atomics, no shared memory, no __syncthreads), and sums in a
 * fixed order; so results do not depend on scheduling, and a reduction over rows is two kernels:
 * partial sums over fixed chunks of rows, then one thread per output adding the chunks in order.
 *
 * Layouts are src/nn's (ops.h): activations rows × channels x[N·P][C]; hex convolution weights
 * w[7][Ci][Co], dense / 1×1 weights w[In][Out]; nb[P][7] the neighbour row of each tap or -1.
 * Sums that src/nn accumulates in double (acc_t: batch norm statistics, the losses) are double here.
 *
 * Same arithmetic on both sides: neither compiler contracts a*b+c into a fused multiply-add (gcc
 * builds the emulation with -std=c11, which implies -ffp-contract=off; nvcc gets -fmad=false in
 * the Makefile's NVFLAGS), and an fmaf written out is an FMA on both.  Every operation here is then
 * IEEE-rounded the same way on the CPU and the GPU, except the library functions: exp and log
 * (double, in the policy loss) and tanh (double, rounded to float, as src/nn's float path does)
 * may differ from glibc's in the last bit of a double.  tests/test_cuda_train.c checks both: no
 * backend contracts, and the GPU's results equal the emulation's (bit for bit per op where no
 * library function is involved). */
#ifndef ZZ_CUDA_TRAIN_KERNELS_H
#define ZZ_CUDA_TRAIN_KERNELS_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define ZZK_FN static __device__ __forceinline__
#else
#define ZZK_FN static inline
#endif

/* The kernels, by number (zzt_args carries their arguments; zzt_run dispatches). */
#define ZZT_KERNELS(X)                                                                            \
    X(ZZT_CONV)          /* y (+)= b + conv(x, w)                threads rows·co            */     \
    X(ZZT_TRANSPOSE)     /* wt[t][co][ci] = w[taps-1-t][ci][co]  threads taps·ci·co         */     \
    X(ZZT_DW_PART)       /* part[chunk][taps·ci·co] of x ⊗ dy     threads nchunks·taps·ci·co */     \
    X(ZZT_REDUCE_ADD)    /* y[k] += sum over chunks of part       threads k                  */     \
    X(ZZT_COL_SUM)       /* dpart[chunk][C] = column sums of x   threads nchunks·C          */     \
    X(ZZT_COL_SQDEV)     /* dpart[chunk][C] = sums of (x-mean)²  threads nchunks·C          */     \
    X(ZZT_BN_MEAN)       /* dmean[c] from dpart                  threads C                  */     \
    X(ZZT_BN_VAR)        /* mean, rstd, running stats, sc, sh    threads C                  */     \
    X(ZZT_BN_INFER_COEF) /* sc, sh from the running statistics   threads C                  */     \
    X(ZZT_SCALE_SHIFT)   /* y = x·sc[c] + sh[c]                  threads rows·C             */     \
    X(ZZT_BN_BWD_PART)   /* dpart[chunk][2][C]: sum dy, dy·xhat  threads nchunks·C          */     \
    X(ZZT_BN_BWD_COEF)   /* dgamma, dbeta += ; sc, sh, cc        threads C                  */     \
    X(ZZT_BN_BWD_APPLY)  /* dx += sc·dy + sh·x + cc              threads rows·C             */     \
    X(ZZT_RELU)          /* y = max(x, 0)                        threads n                  */     \
    X(ZZT_RELU_BWD)      /* dx += dy·[x > 0], x = the output      threads n                  */     \
    X(ZZT_ADD)           /* y = x + x2                           threads n                  */     \
    X(ZZT_ADD_BWD)       /* dx += dy, dx2 += dy                  threads n                  */     \
    X(ZZT_TANH)          /* y = tanh(x)                          threads n                  */     \
    X(ZZT_TANH_BWD)      /* dx += dy·(1 - x²), x = the output     threads n                  */     \
    X(ZZT_POLICY_MAX)    /* dpart: each lane's highest score     threads samples·lanes      */     \
    X(ZZT_POLICY_SUMS)   /* dpart: each lane's three sums        threads samples·lanes      */     \
    X(ZZT_POLICY_GRAD)   /* y[k]: move k's score gradient; loss  threads samples·lanes      */     \
    X(ZZT_POLICY_SCATTER) /* dlogits of sample s += its y[k]     threads samples            */     \
    X(ZZT_VALUE_LOSS)    /* loss[s], dvalue[s]                   threads samples            */     \
    X(ZZT_SUMSQ_PART)    /* dpart[chunk] = sum of squares of x   threads nchunks            */     \
    X(ZZT_SGD)           /* momentum SGD with weight decay       threads n                  */

#define ZZT_ENUM_(k) k,
typedef enum { ZZT_KERNELS(ZZT_ENUM_) ZZT_NKERNELS } zzt_kernel;
#undef ZZT_ENUM_

/* A kernel call's arguments: each kernel reads the fields its comment in zzt_run names. */
typedef struct {
    float *y, *dx, *dx2;                    /* outputs (y) and gradients added into (dx, dx2) */
    const float *x, *x2, *dy, *w, *b;       /* inputs, weights, bias (NULL: none) */
    const float *gamma, *beta, *mean, *rstd; /* batch norm parameters and saved batch statistics */
    float *mean_out, *rstd_out;             /* batch statistics saved by the training forward */
    float *rmean, *rvar;                    /* running statistics (NULL: not updated) */
    float *dgamma, *dbeta;                  /* batch norm parameter gradients (NULL: skipped) */
    float *sc, *sh, *cc;                    /* per-channel coefficients between the passes */
    float *part;                            /* float partial sums [nchunks][k] */
    double *dpart, *dmean, *loss;           /* double partial sums, batch means, per-sample losses */
    const int *nb;                          /* [P][taps] neighbour rows, or NULL (1×1 / dense) */
    const int *start;                       /* policy: [samples+1] each sample's moves */
    const int *term;                        /* policy: [moves][2] logit indices, -1 none */
    const float *pi, *z;                    /* policy / value targets */
    float *w_io, *mom;                      /* SGD: parameters, momentum (updated) */
    const float *grad;                      /* SGD: gradients */
    int64_t n, k;                           /* elements; reduced outputs (REDUCE_ADD) */
    int rows, P, taps, ci, co, C;           /* shapes */
    int chunk, nchunks, accumulate, heads;
    int64_t ndecay;                         /* SGD: weight decay on [0, ndecay) */
    double eps, momentum, weight;           /* BN epsilon / running momentum; loss weight */
    float lr, mu, wd;                       /* SGD */
} zzt_args;

/* ---- convolution and its gradients ---------------------------------------------------------- */

/* Thread (r, o), r < rows: y[r][o] (+)= b[o] + sum_t sum_c x[src(r,t)][c] · w[t][c][o], where
 * src(r,t) = (r/P)·P + nb[r%P][t] (taps 7; -1 = off the board, contributes 0) or r (taps 1). */
ZZK_FN void zzk_conv(int64_t i, const zzt_args *a)
{
    int co = a->co, ci = a->ci;
    int64_t r = i / co;
    int o = (int)(i - r * co);
    float acc = 0.f;
    for (int t = 0; t < a->taps; t++) {
        int64_t src = r;
        if (a->nb) {
            int64_t s = r / a->P;
            int q = a->nb[(r - s * a->P) * a->taps + t];
            if (q < 0) continue;
            src = s * a->P + q;
        }
        const float *xr = a->x + src * ci;
        const float *wt = a->w + (int64_t)t * ci * co + o;
        for (int c = 0; c < ci; c++) acc = fmaf(xr[c], wt[(int64_t)c * co], acc);
    }
    if (a->b) acc += a->b[o];
    a->y[i] = a->accumulate ? a->y[i] + acc : acc;
}

/* y[t][o][c] = w[taps-1-t][c][o]: the weights of the input gradient, which is the convolution of
 * dy with the opposite taps (nb(r,t) = q exactly when nb(q, 6-t) = r), inputs and outputs swapped. */
ZZK_FN void zzk_transpose(int64_t i, const zzt_args *a)
{
    int ci = a->ci, co = a->co;
    int64_t per = (int64_t)ci * co;
    int t = (int)(i / per);
    int64_t rem = i - t * per;
    int o = (int)(rem / ci), c = (int)(rem - (int64_t)o * ci);
    a->y[i] = a->w[(int64_t)(a->taps - 1 - t) * per + (int64_t)c * co + o];
}

/* Thread (chunk, t, c, o): part[chunk][t][c][o] = sum over rows r of the chunk of
 * x[src(r,t)][c] · dy[r][o] (x NULL: 1, the bias gradient with taps = ci = 1). */
ZZK_FN void zzk_dw_part(int64_t i, const zzt_args *a)
{
    int ci = a->ci, co = a->co;
    int64_t K = (int64_t)a->taps * ci * co, ch = i / K, k = i - ch * K;
    int t = (int)(k / ((int64_t)ci * co));
    int64_t rem = k - (int64_t)t * ci * co;
    int c = (int)(rem / co), o = (int)(rem - (int64_t)c * co);
    int64_t r0 = ch * a->chunk, r1 = r0 + a->chunk < a->rows ? r0 + a->chunk : a->rows;
    float acc = 0.f;
    int64_t base = r0 - r0 % a->P;              /* the first row of r's sample */
    int p = (int)(r0 - base);                   /* r's cell, stepped along with r (no division) */
    for (int64_t r = r0; r < r1; r++) {
        int64_t src = r;
        if (a->nb) {
            int q = a->nb[p * a->taps + t];
            src = q < 0 ? -1 : base + q;
            if (++p == a->P) { p = 0; base += a->P; }
            if (src < 0) continue;
        }
        float xv = a->x ? a->x[src * ci + c] : 1.f;
        acc = fmaf(xv, a->dy[r * co + o], acc);
    }
    a->part[i] = acc;
}

/* y[j] += sum over chunks (in order) of part[chunk][j], j < k. */
ZZK_FN void zzk_reduce_add(int64_t j, const zzt_args *a)
{
    double s = 0;
    for (int ch = 0; ch < a->nchunks; ch++) s += a->part[(int64_t)ch * a->k + j];
    a->y[j] += (float)s;
}

/* ---- batch normalisation (ops_bn.c's formulas) ------------------------------------------------ */

ZZK_FN int64_t zzk_chunk_end(const zzt_args *a, int64_t ch)
{
    int64_t e = (ch + 1) * a->chunk;
    return e < a->rows ? e : a->rows;
}

/* Thread (chunk, c): dpart[chunk][c] = sum over the chunk's rows of x[r][c]. */
ZZK_FN void zzk_col_sum(int64_t i, const zzt_args *a)
{
    int64_t ch = i / a->C;
    int c = (int)(i - ch * a->C);
    double s = 0;
    for (int64_t r = ch * a->chunk, e = zzk_chunk_end(a, ch); r < e; r++) s += a->x[r * a->C + c];
    a->dpart[i] = s;
}

/* Thread (chunk, c): dpart[chunk][c] = sum over the chunk's rows of (x[r][c] - dmean[c])². */
ZZK_FN void zzk_col_sqdev(int64_t i, const zzt_args *a)
{
    int64_t ch = i / a->C;
    int c = (int)(i - ch * a->C);
    double m = a->dmean[c], s = 0;
    for (int64_t r = ch * a->chunk, e = zzk_chunk_end(a, ch); r < e; r++) {
        double d = a->x[r * a->C + c] - m;
        s += d * d;
    }
    a->dpart[i] = s;
}

/* Thread c: dmean[c] = (sum of the chunks' sums) / rows. */
ZZK_FN void zzk_bn_mean(int64_t c, const zzt_args *a)
{
    double s = 0;
    for (int ch = 0; ch < a->nchunks; ch++) s += a->dpart[(int64_t)ch * a->C + c];
    a->dmean[c] = s / a->rows;
}

/* Thread c: biased variance from the chunks' squared deviations; saves mean_out, rstd_out; moves
 * the running statistics (when rmean) toward the batch's (unbiased variance); y = x·sc + sh. */
ZZK_FN void zzk_bn_var(int64_t c, const zzt_args *a)
{
    double ss = 0, m = a->dmean[c];
    for (int ch = 0; ch < a->nchunks; ch++) ss += a->dpart[(int64_t)ch * a->C + c];
    double var = ss / a->rows, rs = 1.0 / sqrt(var + a->eps);
    a->mean_out[c] = (float)m;
    a->rstd_out[c] = (float)rs;
    if (a->rmean) {
        double unbiased = a->rows > 1 ? ss / (a->rows - 1) : var;
        a->rmean[c] = (float)((1 - a->momentum) * a->rmean[c] + a->momentum * m);
        a->rvar[c] = (float)((1 - a->momentum) * a->rvar[c] + a->momentum * unbiased);
    }
    a->sc[c] = (float)(a->gamma[c] * rs);
    a->sh[c] = (float)(a->beta[c] - m * a->gamma[c] * rs);
}

/* Thread c: inference coefficients from the running statistics (rmean, rvar read only). */
ZZK_FN void zzk_bn_infer_coef(int64_t c, const zzt_args *a)
{
    double rs = 1.0 / sqrt((double)a->rvar[c] + a->eps);
    a->sc[c] = (float)(a->gamma[c] * rs);
    a->sh[c] = (float)(a->beta[c] - a->rmean[c] * a->gamma[c] * rs);
}

/* y[r][c] = x[r][c]·sc[c] + sh[c], thread per element of rows·C. */
ZZK_FN void zzk_scale_shift(int64_t i, const zzt_args *a)
{
    int c = (int)(i % a->C);
    a->y[i] = a->x[i] * a->sc[c] + a->sh[c];
}

/* Thread (chunk, c): dpart[chunk][0][c] = sum dy, dpart[chunk][1][c] = sum dy·xhat,
 * xhat = (x - mean)·rstd. */
ZZK_FN void zzk_bn_bwd_part(int64_t i, const zzt_args *a)
{
    int64_t ch = i / a->C;
    int c = (int)(i - ch * a->C);
    float m = a->mean[c], rs = a->rstd[c];
    double sdy = 0, sdyx = 0;
    for (int64_t r = ch * a->chunk, e = zzk_chunk_end(a, ch); r < e; r++) {
        float dy = a->dy[r * a->C + c];
        sdy += dy;
        sdyx += (double)dy * ((a->x[r * a->C + c] - m) * rs);
    }
    a->dpart[(ch * 2) * a->C + c] = sdy;
    a->dpart[(ch * 2 + 1) * a->C + c] = sdyx;
}

/* Thread c: dbeta += sum dy, dgamma += sum dy·xhat; dx += sc·dy + sh·x + cc with
 * sc = gamma·rstd, sh = -sc·mean(dy·xhat)·rstd, cc = -sc·mean(dy) + sc·mean(dy·xhat)·rstd·mean. */
ZZK_FN void zzk_bn_bwd_coef(int64_t c, const zzt_args *a)
{
    double sdy = 0, sdyx = 0;
    for (int ch = 0; ch < a->nchunks; ch++) {
        sdy += a->dpart[((int64_t)ch * 2) * a->C + c];
        sdyx += a->dpart[((int64_t)ch * 2 + 1) * a->C + c];
    }
    if (a->dgamma) a->dgamma[c] += (float)sdyx;
    if (a->dbeta) a->dbeta[c] += (float)sdy;
    double gr = (double)a->gamma[c] * a->rstd[c], rs = a->rstd[c];
    double mdy = sdy / a->rows, mdyx = sdyx / a->rows;
    a->sc[c] = (float)gr;
    a->sh[c] = (float)(-gr * mdyx * rs);
    a->cc[c] = (float)(-gr * mdy + gr * mdyx * rs * a->mean[c]);
}

ZZK_FN void zzk_bn_bwd_apply(int64_t i, const zzt_args *a)
{
    int c = (int)(i % a->C);
    a->dx[i] += a->sc[c] * a->dy[i] + a->sh[c] * a->x[i] + a->cc[c];
}

/* ---- elementwise -------------------------------------------------------------------------------- */

ZZK_FN void zzk_relu(int64_t i, const zzt_args *a) { float v = a->x[i]; a->y[i] = v > 0.f ? v : 0.f; }
ZZK_FN void zzk_relu_bwd(int64_t i, const zzt_args *a) { if (a->x[i] > 0.f) a->dx[i] += a->dy[i]; }
ZZK_FN void zzk_add(int64_t i, const zzt_args *a) { a->y[i] = a->x[i] + a->x2[i]; }
ZZK_FN void zzk_add_bwd(int64_t i, const zzt_args *a) { a->dx[i] += a->dy[i]; a->dx2[i] += a->dy[i]; }
/* tanh in double, rounded once to float: src/nn's nn_tanh_forward_f, and on the GPU within a double
 * ulp of it (tanhf differs from glibc's by up to 2 float ulps, which 1 - y² magnifies near ±1). */
ZZK_FN void zzk_tanh(int64_t i, const zzt_args *a) { a->y[i] = (float)tanh((double)a->x[i]); }
ZZK_FN void zzk_tanh_bwd(int64_t i, const zzt_args *a)
{
    float y = a->x[i];                      /* x is the forward's output here */
    a->dx[i] += a->dy[i] * (1.f - y * y);
}

/* ---- losses ------------------------------------------------------------------------------------- */

ZZK_FN double zzk_score(const float *lg, const int *term)
{
    return (double)lg[term[0]] + (term[1] >= 0 ? (double)lg[term[1]] : 0.0);
}

/* loss.c's nn_policy_loss in four kernels, so that a sample's moves (up to 10,980 on 61 rings) are
 * spread over ZZT_LANES threads instead of one: lane l of sample s takes the moves start[s] + l,
 * + l + ZZT_LANES, ...  x = logits[samples][P][heads]; dpart = [samples][lanes] highest scores, then
 * [samples][lanes][3] sums; y[moves] = each move's gradient (float scratch); loss[s] = its
 * cross-entropy; dx = the logits' gradients; scale = weight / samples (n).  Every sum runs over
 * the lanes in order, so results do not depend on scheduling. */
#define ZZT_LANES 32

/* The highest score of sample s over its lanes' maxima. */
ZZK_FN double zzk_policy_top(const zzt_args *a, int64_t s)
{
    double mx = -HUGE_VAL;
    for (int l = 0; l < ZZT_LANES; l++) {
        double v = a->dpart[s * ZZT_LANES + l];
        if (v > mx) mx = v;
    }
    return mx;
}

/* Thread (s, lane): dpart[s][lane] = the highest score among the lane's moves (-inf: none). */
ZZK_FN void zzk_policy_max(int64_t i, const zzt_args *a)
{
    int64_t s = i / ZZT_LANES;
    int e = a->start[s + 1];
    const float *lg = a->x + s * (int64_t)a->P * a->heads;
    double mx = -HUGE_VAL;
    for (int k = a->start[s] + (int)(i - s * ZZT_LANES); k < e; k += ZZT_LANES) {
        double v = zzk_score(lg, a->term + 2 * k);
        if (v > mx) mx = v;
    }
    a->dpart[i] = mx;
}

/* Thread (s, lane): sums over the lane's moves of exp(score - top), pi·(score - top) and pi
 * (the last two over pi > 0), into dpart[samples·lanes + 3·i ...]. */
ZZK_FN void zzk_policy_sums(int64_t i, const zzt_args *a)
{
    int64_t s = i / ZZT_LANES;
    int e = a->start[s + 1];
    const float *lg = a->x + s * (int64_t)a->P * a->heads;
    double mx = zzk_policy_top(a, s), z = 0, ps = 0, pisum = 0;
    for (int k = a->start[s] + (int)(i - s * ZZT_LANES); k < e; k += ZZT_LANES) {
        double d = zzk_score(lg, a->term + 2 * k) - mx;
        z += exp(d);
        if (a->pi[k] > 0) {
            ps += a->pi[k] * d;
            pisum += a->pi[k];
        }
    }
    double *o = a->dpart + a->n * ZZT_LANES + 3 * i;
    o[0] = z;
    o[1] = ps;
    o[2] = pisum;
}

/* Thread (s, lane): with logZ = top + log(sum of exp), loss[s] = -sum pi·(score - logZ) (lane 0),
 * and y[k] = scale·(exp(score - logZ)·sum pi - pi[k]) for the lane's moves (when dx). */
ZZK_FN void zzk_policy_grad(int64_t i, const zzt_args *a)
{
    int64_t s = i / ZZT_LANES;
    int lane = (int)(i - s * ZZT_LANES), b = a->start[s], e = a->start[s + 1];
    if (e <= b) { if (lane == 0) a->loss[s] = 0; return; }
    const double *o = a->dpart + a->n * ZZT_LANES + 3 * s * ZZT_LANES;
    double z = 0, ps = 0, pisum = 0;
    for (int l = 0; l < ZZT_LANES; l++) { z += o[3 * l]; ps += o[3 * l + 1]; pisum += o[3 * l + 2]; }
    double logz = log(z), top = zzk_policy_top(a, s);
    if (lane == 0) a->loss[s] = logz * pisum - ps;
    if (!a->dx) return;
    const float *lg = a->x + s * (int64_t)a->P * a->heads;
    double scale = a->weight / a->n;
    for (int k = b + lane; k < e; k += ZZT_LANES)
        a->y[k] = (float)(scale * (exp(zzk_score(lg, a->term + 2 * k) - top - logz) * pisum - a->pi[k]));
}

/* Thread s: the sample's logit gradients += y[k] through each move's terms, moves in order. */
ZZK_FN void zzk_policy_scatter(int64_t s, const zzt_args *a)
{
    float *dl = a->dx + s * (int64_t)a->P * a->heads;
    for (int k = a->start[s], e = a->start[s + 1]; k < e; k++) {
        const int *tm = a->term + 2 * k;
        dl[tm[0]] += a->y[k];
        if (tm[1] >= 0) dl[tm[1]] += a->y[k];
    }
}

/* Thread s: loss[s] = (v - z)², dx[s] += weight·2(v - z)/n, with v = x[s]. */
ZZK_FN void zzk_value_loss(int64_t s, const zzt_args *a)
{
    double d = (double)a->x[s] - a->z[s];
    a->loss[s] = d * d;
    if (a->dx) a->dx[s] += (float)(a->weight * 2 * d / a->n);
}

/* ---- optimiser ---------------------------------------------------------------------------------- */

/* Thread chunk: dpart[chunk] = sum of x[j]² over the chunk's j < n (the L2 term's partials). */
ZZK_FN void zzk_sumsq_part(int64_t ch, const zzt_args *a)
{
    double s = 0;
    int64_t e = (ch + 1) * a->chunk < a->n ? (ch + 1) * a->chunk : a->n;
    for (int64_t j = ch * a->chunk; j < e; j++) s += (double)a->x[j] * a->x[j];
    a->dpart[ch] = s;
}

/* sgd.c's update: g = grad + wd·w (j < ndecay); mom = mu·mom + g; w -= lr·mom. */
ZZK_FN void zzk_sgd(int64_t j, const zzt_args *a)
{
    float g = a->grad[j] + (j < a->ndecay ? a->wd * a->w_io[j] : 0.f);
    float v = a->mu * a->mom[j] + g;
    a->mom[j] = v;
    a->w_io[j] -= a->lr * v;
}

/* ---- dispatch ----------------------------------------------------------------------------------- */

ZZK_FN void zzt_run(zzt_kernel kind, int64_t i, const zzt_args *a)
{
    switch (kind) {
    case ZZT_CONV: zzk_conv(i, a); break;
    case ZZT_TRANSPOSE: zzk_transpose(i, a); break;
    case ZZT_DW_PART: zzk_dw_part(i, a); break;
    case ZZT_REDUCE_ADD: zzk_reduce_add(i, a); break;
    case ZZT_COL_SUM: zzk_col_sum(i, a); break;
    case ZZT_COL_SQDEV: zzk_col_sqdev(i, a); break;
    case ZZT_BN_MEAN: zzk_bn_mean(i, a); break;
    case ZZT_BN_VAR: zzk_bn_var(i, a); break;
    case ZZT_BN_INFER_COEF: zzk_bn_infer_coef(i, a); break;
    case ZZT_SCALE_SHIFT: zzk_scale_shift(i, a); break;
    case ZZT_BN_BWD_PART: zzk_bn_bwd_part(i, a); break;
    case ZZT_BN_BWD_COEF: zzk_bn_bwd_coef(i, a); break;
    case ZZT_BN_BWD_APPLY: zzk_bn_bwd_apply(i, a); break;
    case ZZT_RELU: zzk_relu(i, a); break;
    case ZZT_RELU_BWD: zzk_relu_bwd(i, a); break;
    case ZZT_ADD: zzk_add(i, a); break;
    case ZZT_ADD_BWD: zzk_add_bwd(i, a); break;
    case ZZT_TANH: zzk_tanh(i, a); break;
    case ZZT_TANH_BWD: zzk_tanh_bwd(i, a); break;
    case ZZT_POLICY_MAX: zzk_policy_max(i, a); break;
    case ZZT_POLICY_SUMS: zzk_policy_sums(i, a); break;
    case ZZT_POLICY_GRAD: zzk_policy_grad(i, a); break;
    case ZZT_POLICY_SCATTER: zzk_policy_scatter(i, a); break;
    case ZZT_VALUE_LOSS: zzk_value_loss(i, a); break;
    case ZZT_SUMSQ_PART: zzk_sumsq_part(i, a); break;
    case ZZT_SGD: zzk_sgd(i, a); break;
    case ZZT_NKERNELS: break;
    }
}

#endif
