/* tape.c — the autodiff tape: records ops as the forward runs them and replays their backwards in
 * reverse (see tape.h).  The per-op forward/backward dispatch is written once over `real`. */
#include "nn/tape.h"
#include "nn/ops.h"
#include <stdlib.h>
#include <string.h>

#ifndef NN_REAL_PASS
#define NN_SELF "tape.c"
#include "nn/real.h"

static void run_forward(nn_tape *t, const nn_tape_op *op)
{
    if (t->dtype == NN_F64) op_forward_d(t, op);
    else op_forward_f(t, op);
}

void nn_tape_reset(nn_tape *t, bool dry, bool train)
{
    t->nops = 0;
    t->act_used = 0;
    t->failed = false;
    t->dry = dry;
    t->train = train;
}

int nn_tape_reserve(nn_tape *t, size_t n, int nops)
{
    if (nops > t->ops_cap) {
        nn_tape_op *o = realloc(t->ops, sizeof *o * (size_t)nops);
        if (!o) return -1;
        t->ops = o;
        t->ops_cap = nops;
    }
    if (n <= t->act_cap) return 0;
    void *p = realloc(t->act, n * t->esize);
    if (!p) return -1;
    t->act = p;
    t->act_cap = n;
    return 0;
}

int nn_tape_reserve_grad(nn_tape *t)
{
    if (t->dact_cap >= t->act_cap) return 0;
    void *p = realloc(t->dact, t->act_cap * t->esize);
    if (!p) return -1;
    t->dact = p;
    t->dact_cap = t->act_cap;
    return 0;
}

void nn_tape_free(nn_tape *t)
{
    free(t->act);
    free(t->dact);
    free(t->ops);
    t->act = t->dact = NULL;
    t->ops = NULL;
    t->act_cap = t->dact_cap = t->act_used = 0;
    t->nops = t->ops_cap = 0;
}

size_t nn_tape_alloc(nn_tape *t, size_t n)
{
    size_t off = t->act_used;
    n = (n + 15) & ~(size_t)15;             /* keep every tensor 64-byte aligned in float */
    t->act_used += n;
    return off;
}

static void record(nn_tape *t, const nn_tape_op *op)
{
    if (t->dry) {                           /* a dry run only counts */
        t->nops++;
        return;
    }
    if (t->nops >= t->ops_cap) {            /* normally reserved after a dry run */
        int cap = t->ops_cap ? 2 * t->ops_cap : 64;
        nn_tape_op *p = realloc(t->ops, sizeof *p * (size_t)cap);
        if (!p) { t->failed = true; return; }
        t->ops = p;
        t->ops_cap = cap;
    }
    t->ops[t->nops++] = *op;
    if (!t->plan) run_forward(t, op);
}

static nn_tape_op new_op(nn_op_kind kind)
{
    nn_tape_op op = { .kind = kind, .x = NN_NONE, .x2 = NN_NONE, .y = NN_NONE, .w = NN_NONE,
                      .b = NN_NONE, .rmean = NN_NONE, .rvar = NN_NONE, .mean = NN_NONE, .rstd = NN_NONE };
    return op;
}

size_t nn_tape_conv(nn_tape *t, size_t x, int N, int Ci, int Co, size_t w)
{
    nn_tape_op op = new_op(NN_OP_CONV);
    op.rows = N; op.in = Ci; op.out = Co; op.x = x; op.w = w;
    op.y = nn_tape_alloc(t, (size_t)N * t->geom->ncells * Co);
    record(t, &op);
    return op.y;
}

size_t nn_tape_matmul(nn_tape *t, size_t x, int rows, int In, int Out, size_t w, size_t b)
{
    nn_tape_op op = new_op(NN_OP_MATMUL);
    op.rows = rows; op.in = In; op.out = Out; op.x = x; op.w = w; op.b = b;
    op.y = nn_tape_alloc(t, (size_t)rows * Out);
    record(t, &op);
    return op.y;
}

size_t nn_tape_bn(nn_tape *t, size_t x, int rows, int C, size_t gamma, size_t beta, size_t rmean, size_t rvar)
{
    nn_tape_op op = new_op(NN_OP_BN);
    op.rows = rows; op.in = op.out = C; op.x = x; op.w = gamma; op.b = beta;
    op.rmean = rmean; op.rvar = rvar;
    op.y = nn_tape_alloc(t, (size_t)rows * C);
    op.mean = nn_tape_alloc(t, (size_t)C);
    op.rstd = nn_tape_alloc(t, (size_t)C);
    record(t, &op);
    return op.y;
}

static size_t eltwise(nn_tape *t, nn_op_kind kind, size_t x, size_t x2, size_t n)
{
    nn_tape_op op = new_op(kind);
    op.rows = (int)n; op.x = x; op.x2 = x2;
    op.y = nn_tape_alloc(t, n);
    record(t, &op);
    return op.y;
}

size_t nn_tape_relu(nn_tape *t, size_t x, size_t n) { return eltwise(t, NN_OP_RELU, x, NN_NONE, n); }
size_t nn_tape_add(nn_tape *t, size_t a, size_t b, size_t n) { return eltwise(t, NN_OP_ADD, a, b, n); }
size_t nn_tape_tanh(nn_tape *t, size_t x, size_t n) { return eltwise(t, NN_OP_TANH, x, NN_NONE, n); }

void nn_tape_zero_grad(nn_tape *t)
{
    memset(t->dact, 0, t->act_used * t->esize);
}

void nn_tape_backward(nn_tape *t)
{
    for (int i = t->nops - 1; i >= 0; i--) {
        if (t->dtype == NN_F64) op_backward_d(t, &t->ops[i]);
        else op_backward_f(t, &t->ops[i]);
    }
}

#else  /* ---- per-type dispatch ------------------------------------------------------------ */

#define ACT(o) ((real *)t->act + (o))
#define DACT(o) ((real *)t->dact + (o))
#define PAR(o) ((o) == NN_NONE ? NULL : (real *)t->param + (o))
#define GRAD(o) ((o) == NN_NONE ? NULL : (real *)t->grad + (o))
#define STAT(o) ((o) == NN_NONE ? NULL : (real *)t->stats + (o))

static void NN_R(op_forward)(nn_tape *t, const nn_tape_op *op)
{
    switch (op->kind) {
    case NN_OP_CONV:
        NN_R(nn_conv_forward)(ACT(op->y), ACT(op->x), PAR(op->w), t->geom, op->rows, op->in, op->out);
        break;
    case NN_OP_MATMUL:
        NN_R(nn_matmul_forward)(ACT(op->y), ACT(op->x), PAR(op->w), PAR(op->b), op->rows, op->in, op->out);
        break;
    case NN_OP_BN:
        if (t->train)
            NN_R(nn_bn_forward_train)(ACT(op->y), ACT(op->mean), ACT(op->rstd), ACT(op->x), PAR(op->w),
                                      PAR(op->b), t->update_stats ? STAT(op->rmean) : NULL,
                                      STAT(op->rvar), op->rows, op->in, t->bn_momentum, t->bn_eps);
        else
            NN_R(nn_bn_forward_infer)(ACT(op->y), ACT(op->x), PAR(op->w), PAR(op->b), STAT(op->rmean),
                                      STAT(op->rvar), op->rows, op->in, t->bn_eps);
        break;
    case NN_OP_RELU: NN_R(nn_relu_forward)(ACT(op->y), ACT(op->x), (size_t)op->rows); break;
    case NN_OP_ADD: NN_R(nn_add_forward)(ACT(op->y), ACT(op->x), ACT(op->x2), (size_t)op->rows); break;
    case NN_OP_TANH: NN_R(nn_tanh_forward)(ACT(op->y), ACT(op->x), (size_t)op->rows); break;
    }
}

static void NN_R(op_backward)(nn_tape *t, const nn_tape_op *op)
{
    switch (op->kind) {
    case NN_OP_CONV:
        NN_R(nn_conv_backward)(DACT(op->x), GRAD(op->w), DACT(op->y), ACT(op->x), PAR(op->w), t->geom,
                               op->rows, op->in, op->out);
        break;
    case NN_OP_MATMUL:
        NN_R(nn_matmul_backward)(DACT(op->x), GRAD(op->w), GRAD(op->b), DACT(op->y), ACT(op->x),
                                 PAR(op->w), op->rows, op->in, op->out);
        break;
    case NN_OP_BN:
        NN_R(nn_bn_backward)(DACT(op->x), GRAD(op->w), GRAD(op->b), DACT(op->y), ACT(op->x),
                             ACT(op->mean), ACT(op->rstd), PAR(op->w), op->rows, op->in);
        break;
    case NN_OP_RELU: NN_R(nn_relu_backward)(DACT(op->x), DACT(op->y), ACT(op->y), (size_t)op->rows); break;
    case NN_OP_ADD: NN_R(nn_add_backward)(DACT(op->x), DACT(op->x2), DACT(op->y), (size_t)op->rows); break;
    case NN_OP_TANH: NN_R(nn_tanh_backward)(DACT(op->x), DACT(op->y), ACT(op->y), (size_t)op->rows); break;
    }
}

#undef ACT
#undef DACT
#undef PAR
#undef GRAD
#undef STAT
#endif
