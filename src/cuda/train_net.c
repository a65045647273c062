/* train_net.c — the network on a training backend (see train_net.h): memory, the tape executor,
 * the step. */
#include "cuda/train_net.h"
#include "game/position.h"
#include "mcts/clock.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct zzt_net {
    const zzt_backend *be;
    zzt_ctx *ctx;
    nn_model *shape;            /* a float model of the architecture: views, geometry, plans */
    size_t nparams, ndecay, nstats;
    float *param, *grad, *mom, *stats;      /* backend memory */
    int *nb;                                /* [P][7] neighbour rows */
    nn_plan plan;               /* the op records for plan.batch samples */
    float *act, *dact;          /* arenas of act_cap floats */
    size_t act_cap;
    int *start, *term;          /* policy targets: [tgt_cap+1], [moves_cap][2] */
    float *pi, *z;              /* [moves_cap], [tgt_cap] */
    float *gmove;               /* [moves_cap]: each move's policy gradient (zzt_policy_loss) */
    int tgt_cap;
    size_t moves_cap;
    float *host;                /* staging for conversions: max(nparams, nstats) floats */
    bool update_stats;
    double bn_momentum, bn_eps;
    /* ZZT_PROFILE=1: wait after every op and add its time to its kind's (printed by zzt_net_free) */
    bool profile;
    bool sizing;                /* prepare's sizing pass is walking the step (nothing runs) */
    double prof_s[2][NN_OP_TANH + 1];       /* [forward, backward][op kind] */
    double prof_loss_s, prof_sgd_s;
    long prof_steps;
};

static const char *const op_names[NN_OP_TANH + 1] = { "conv", "matmul", "bn", "relu", "add", "tanh" };

/* Under ZZT_PROFILE: wait for the backend and add the time since *since to *acc. */
static void prof_mark(const zzt_net *t, double *acc, double *since)
{
    if (!t->profile || t->sizing) return;
    t->be->sync(NULL, 0);
    double now = mcts_now_s();
    *acc += now - *since;
    *since = now;
}

static void prof_print(const zzt_net *t)
{
    if (!t->profile || !t->prof_steps) return;
    double total = t->prof_loss_s + t->prof_sgd_s;
    for (int d = 0; d < 2; d++)
        for (int k = 0; k <= NN_OP_TANH; k++) total += t->prof_s[d][k];
    fprintf(stderr, "zzt profile (%s, %ld steps, ms per step, each op waited for):\n", t->be->name, t->prof_steps);
    for (int d = 0; d < 2; d++)
        for (int k = 0; k <= NN_OP_TANH; k++)
            if (t->prof_s[d][k] > 0)
                fprintf(stderr, "  %-8s %-8s %8.3f  %5.1f%%\n", op_names[k], d ? "backward" : "forward",
                        1e3 * t->prof_s[d][k] / t->prof_steps, 100 * t->prof_s[d][k] / total);
    fprintf(stderr, "  %-17s %8.3f  %5.1f%%\n", "losses", 1e3 * t->prof_loss_s / t->prof_steps, 100 * t->prof_loss_s / total);
    fprintf(stderr, "  %-17s %8.3f  %5.1f%%\n", "L2 + SGD", 1e3 * t->prof_sgd_s / t->prof_steps, 100 * t->prof_sgd_s / total);
}

static int say(char *err, size_t n, const char *fmt, ...)
{
    if (err && n) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int ctx_fail(const zzt_net *t, char *err, size_t n) { return say(err, n, "%s: %s", t->be->name, zzt_error(t->ctx)); }

const zzt_backend *zzt_net_backend(const zzt_net *t) { return t->be; }

void zzt_net_free(zzt_net *t)
{
    if (!t) return;
    prof_print(t);
    void *bufs[] = { t->param, t->grad, t->mom, t->stats, t->nb, t->act, t->dact, t->start, t->term, t->pi, t->z,
                     t->gmove };
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) t->be->release(bufs[i]);
    zzt_ctx_free(t->ctx);
    nn_plan_free(&t->plan);
    nn_model_free(t->shape);
    free(t->host);
    free(t);
}

zzt_net *zzt_net_create(const zzt_backend *be, const nn_model *m, char *err, size_t n)
{
    zzt_net *t = calloc(1, sizeof *t);
    if (!t) { say(err, n, "out of memory"); return NULL; }
    t->be = be;
    t->shape = nn_model_create(&m->cfg, NN_F32, 0, err, n);
    t->ctx = zzt_ctx_new(be, err, n);
    if (!t->shape || !t->ctx) goto fail;
    t->nparams = m->nparams;
    t->ndecay = m->ndecay;
    t->nstats = m->nstats;
    t->update_stats = m->tape.update_stats;
    t->bn_momentum = m->cfg.bn_momentum;
    t->bn_eps = m->cfg.bn_eps;
    const char *prof = getenv("ZZT_PROFILE");
    t->profile = prof && *prof && strcmp(prof, "0");
    size_t hn = t->nparams > t->nstats ? t->nparams : t->nstats, P = (size_t)m->geom.ncells;
    t->host = malloc((hn > P * 7 ? hn : P * 7) * sizeof(float));
    if (!t->host) { say(err, n, "out of memory"); goto fail; }
    if (!(t->param = be->alloc(t->nparams * sizeof(float), err, n)) ||
        !(t->grad = be->alloc(t->nparams * sizeof(float), err, n)) ||
        !(t->mom = be->alloc(t->nparams * sizeof(float), err, n)) ||
        !(t->stats = be->alloc((t->nstats ? t->nstats : 1) * sizeof(float), err, n)) ||
        !(t->nb = be->alloc(P * 7 * sizeof(int), err, n)))
        goto fail;
    int *nb = (int *)t->host;
    for (size_t p = 0; p < P; p++)
        for (int k = 0; k < 7; k++) nb[p * 7 + k] = m->geom.nb[p][k];
    if (be->upload(t->nb, nb, P * 7 * sizeof(int), err, n) || zzt_net_upload(t, m, err, n)) goto fail;
    return t;
fail:
    zzt_net_free(t);
    return NULL;
}

/* Copy a model buffer of count elements (any dtype) to backend memory, or back. */
static int put(zzt_net *t, float *dst, const nn_model *m, const void *src, size_t count, char *err, size_t n)
{
    for (size_t i = 0; i < count; i++) t->host[i] = (float)nn_buf_get(m, src, i);
    return count ? t->be->upload(dst, t->host, count * sizeof(float), err, n) : 0;
}

static int get(const zzt_net *t, nn_model *m, void *dst, const float *src, size_t count, char *err, size_t n)
{
    if (count && t->be->download(t->host, src, count * sizeof(float), err, n)) return -1;
    for (size_t i = 0; i < count; i++) nn_buf_set(m, dst, i, t->host[i]);
    return 0;
}

int zzt_net_upload(zzt_net *t, const nn_model *m, char *err, size_t n)
{
    if (!nn_config_same_arch(&m->cfg, &t->shape->cfg)) return say(err, n, "upload: architectures differ");
    return put(t, t->param, m, m->param, t->nparams, err, n) || put(t, t->mom, m, m->mom, t->nparams, err, n) ||
           put(t, t->stats, m, m->stats, t->nstats, err, n) ? -1 : 0;
}

int zzt_net_download(const zzt_net *t, nn_model *m, char *err, size_t n)
{
    if (!nn_config_same_arch(&m->cfg, &t->shape->cfg)) return say(err, n, "download: architectures differ");
    if (t->be->sync(err, n)) return -1;
    return get(t, m, m->param, t->param, t->nparams, err, n) || get(t, m, m->mom, t->mom, t->nparams, err, n) ||
           get(t, m, m->stats, t->stats, t->nstats, err, n) ? -1 : 0;
}

int zzt_net_gradients(const zzt_net *t, float *grad, char *err, size_t n)
{
    return t->be->download(grad, t->grad, t->nparams * sizeof(float), err, n);
}

size_t zzt_net_activation_count(const zzt_net *t) { return t->plan.batch ? t->plan.act_used : 0; }

int zzt_net_activations(const zzt_net *t, float *act, char *err, size_t n)
{
    if (!t->plan.batch) return say(err, n, "no forward yet");
    return t->be->download(act, t->act, t->plan.act_used * sizeof(float), err, n);
}

/* ---- the tape executor ------------------------------------------------------------------------ */

static int forward_ops(zzt_net *t, bool train);
static int step_ops(zzt_net *t, int N, int npolicy, double value_weight, const nn_sgd *o, nn_loss_parts *p);

/* The move targets held for a batch of N: every sample at the rules' most legal moves
 * (ZZ_MAX_MOVES) while that takes at most 64 MiB (batches up to about 500), else twice the most
 * moves a batch has had (at most that worst case): so they are allocated once, or regrown a few
 * times in a run, never at each new maximum. */
static size_t moves_capacity(int N, int nmoves)
{
    size_t worst = (size_t)N * ZZ_MAX_MOVES, per = 2 * sizeof(int32_t) + 2 * sizeof(float);
    if (worst * per <= ((size_t)64 << 20)) return worst;
    size_t h = 2 * (size_t)nmoves;
    return h < worst ? h : worst;
}

static int alloc_moves(zzt_net *t, size_t cap, char *err, size_t n)
{
    const zzt_backend *be = t->be;
    be->release(t->term);
    be->release(t->pi);
    be->release(t->gmove);
    t->term = NULL;
    t->pi = t->gmove = NULL;
    t->moves_cap = 0;
    if (!(t->term = be->alloc(cap * 2 * sizeof(int32_t), err, n)) || !(t->pi = be->alloc(cap * sizeof(float), err, n)) ||
        !(t->gmove = be->alloc(cap * sizeof(float), err, n)))
        return -1;
    t->moves_cap = cap;
    return 0;
}

/* Plan for N samples, and allocate for it everything a step needs, before the step: the arenas,
 * the targets (moves_capacity) and the scratch of every op (found by walking the step with the
 * context measuring, zzt_ctx_measure).  A step at this N then allocates nothing, unless a batch
 * has more moves than moves_capacity gave room for. */
static int prepare(zzt_net *t, int N, char *err, size_t n)
{
    if (N < 1) return say(err, n, "batch size %d < 1", N);
    if (t->plan.batch == N) return 0;
    nn_plan_free(&t->plan);
    if (nn_model_plan(t->shape, N, true, &t->plan, err, n)) return -1;
    const zzt_backend *be = t->be;
    if (t->plan.act_used > t->act_cap) {
        be->release(t->act);
        be->release(t->dact);
        t->act_cap = 0;
        t->act = be->alloc(t->plan.act_used * sizeof(float), err, n);
        t->dact = t->act ? be->alloc(t->plan.act_used * sizeof(float), err, n) : NULL;
        if (!t->act || !t->dact) return -1;
        t->act_cap = t->plan.act_used;
    }
    if (N > t->tgt_cap) {
        be->release(t->start);
        be->release(t->z);
        t->z = NULL;
        t->tgt_cap = 0;
        if (!(t->start = be->alloc(((size_t)N + 1) * sizeof(int), err, n)) || !(t->z = be->alloc((size_t)N * sizeof(float), err, n)))
            return -1;
        t->tgt_cap = N;
    }
    size_t mc = moves_capacity(N, 0);
    if (mc > t->moves_cap && alloc_moves(t, mc, err, n)) return -1;
    nn_sgd o;
    nn_sgd_default(&o);
    nn_loss_parts p;
    t->sizing = true;
    zzt_ctx_measure(t->ctx, true);
    int rc = forward_ops(t, true) || step_ops(t, N, N, 1.0, &o, &p) || forward_ops(t, false);
    zzt_ctx_measure(t->ctx, false);
    t->sizing = false;
    if (rc || zzt_ctx_reserve(t->ctx)) return ctx_fail(t, err, n);
    return 0;
}

#define ACT(o) (t->act + (o))
#define DACT(o) (t->dact + (o))
#define PAR(o) ((o) == NN_NONE ? NULL : t->param + (o))
#define GRAD(o) ((o) == NN_NONE ? NULL : t->grad + (o))
#define STAT(o) ((o) == NN_NONE ? NULL : t->stats + (o))

static int op_forward(zzt_net *t, const nn_tape_op *op, bool train)
{
    zzt_ctx *c = t->ctx;
    int P = t->shape->geom.ncells;
    switch (op->kind) {
    case NN_OP_CONV:
        return zzt_conv_forward(c, ACT(op->y), ACT(op->x), PAR(op->w), NULL, t->nb, op->rows * P, P, 7, op->in, op->out);
    case NN_OP_MATMUL:
        return zzt_conv_forward(c, ACT(op->y), ACT(op->x), PAR(op->w), PAR(op->b), NULL, op->rows, 1, 1, op->in, op->out);
    case NN_OP_BN:
        if (train)
            return zzt_bn_forward_train(c, ACT(op->y), ACT(op->mean), ACT(op->rstd), ACT(op->x), PAR(op->w),
                                        PAR(op->b), t->update_stats ? STAT(op->rmean) : NULL, STAT(op->rvar),
                                        op->rows, op->in, t->bn_momentum, t->bn_eps);
        return zzt_bn_forward_infer(c, ACT(op->y), ACT(op->x), PAR(op->w), PAR(op->b), STAT(op->rmean),
                                    STAT(op->rvar), op->rows, op->in, t->bn_eps);
    case NN_OP_RELU: return zzt_relu_forward(c, ACT(op->y), ACT(op->x), (size_t)op->rows);
    case NN_OP_ADD: return zzt_add_forward(c, ACT(op->y), ACT(op->x), ACT(op->x2), (size_t)op->rows);
    case NN_OP_TANH: return zzt_tanh_forward(c, ACT(op->y), ACT(op->x), (size_t)op->rows);
    }
    return -1;
}

static int op_backward(zzt_net *t, const nn_tape_op *op)
{
    zzt_ctx *c = t->ctx;
    int P = t->shape->geom.ncells;
    switch (op->kind) {
    case NN_OP_CONV:
        return zzt_conv_backward(c, DACT(op->x), GRAD(op->w), NULL, DACT(op->y), ACT(op->x), PAR(op->w), t->nb,
                                 op->rows * P, P, 7, op->in, op->out);
    case NN_OP_MATMUL:
        return zzt_conv_backward(c, DACT(op->x), GRAD(op->w), GRAD(op->b), DACT(op->y), ACT(op->x), PAR(op->w),
                                 NULL, op->rows, 1, 1, op->in, op->out);
    case NN_OP_BN:
        return zzt_bn_backward(c, DACT(op->x), GRAD(op->w), GRAD(op->b), DACT(op->y), ACT(op->x), ACT(op->mean),
                               ACT(op->rstd), PAR(op->w), op->rows, op->in);
    case NN_OP_RELU: return zzt_relu_backward(c, DACT(op->x), DACT(op->y), ACT(op->y), (size_t)op->rows);
    case NN_OP_ADD: return zzt_add_backward(c, DACT(op->x), DACT(op->x2), DACT(op->y), (size_t)op->rows);
    case NN_OP_TANH: return zzt_tanh_backward(c, DACT(op->x), DACT(op->y), ACT(op->y), (size_t)op->rows);
    }
    return -1;
}

/* The plan's forward (or, while sizing, its walk). */
static int forward_ops(zzt_net *t, bool train)
{
    double since = mcts_now_s();
    for (int i = 0; i < t->plan.nops; i++) {
        if (op_forward(t, &t->plan.ops[i], train)) return -1;
        prof_mark(t, &t->prof_s[0][t->plan.ops[i].kind], &since);
    }
    return 0;
}

/* Upload the input and run the plan's forward. */
static int run_forward(zzt_net *t, const float *x, int N, bool train, char *err, size_t n)
{
    if (prepare(t, N, err, n)) return -1;
    size_t cnt = (size_t)N * t->shape->geom.ncells * NN_PLANES;
    if (t->be->upload(ACT(t->plan.in), x, cnt * sizeof(float), err, n)) return -1;
    return forward_ops(t, train) ? ctx_fail(t, err, n) : 0;
}

int zzt_net_forward(zzt_net *t, const float *x, int N, bool train, float *logits, float *values,
                    char *err, size_t n)
{
    if (run_forward(t, x, N, train, err, n)) return -1;
    size_t nl = (size_t)N * t->shape->geom.ncells * NN_HEADS;
    if (logits && t->be->download(logits, ACT(t->plan.logits), nl * sizeof(float), err, n)) return -1;
    if (values && t->be->download(values, ACT(t->plan.value), (size_t)N * sizeof(float), err, n)) return -1;
    return t->be->sync(err, n);
}

/* Upload b's targets (the buffers are prepare's, for b->n samples; the moves' regrown only past
 * moves_capacity). */
static int upload_targets(zzt_net *t, const nn_batch *b, char *err, size_t n)
{
    const zzt_backend *be = t->be;
    if (b->n > t->tgt_cap) return say(err, n, "targets: %d samples, room for %d", b->n, t->tgt_cap);
    if ((size_t)b->nmoves > t->moves_cap && alloc_moves(t, moves_capacity(b->n, b->nmoves), err, n)) return -1;
    if (be->upload(t->start, b->start, ((size_t)b->n + 1) * sizeof(int), err, n) ||
        be->upload(t->z, b->z, (size_t)b->n * sizeof(float), err, n))
        return -1;
    if (b->nmoves &&
        (be->upload(t->term, b->term, (size_t)b->nmoves * 2 * sizeof(int32_t), err, n) ||
         be->upload(t->pi, b->pi, (size_t)b->nmoves * sizeof(float), err, n)))
        return -1;
    return 0;
}

int zzt_net_train_step(zzt_net *t, nn_sgd *o, const nn_batch *b, int npolicy, double value_weight,
                       nn_loss_parts *out, char *err, size_t n)
{
    const zzt_backend *be = t->be;
    if (b->geom.kind != t->shape->cfg.board) return say(err, n, "the batch is for another board");
    int N = b->n;
    if (npolicy < 0 || npolicy > N) npolicy = N;
    if (run_forward(t, b->x, N, true, err, n) || upload_targets(t, b, err, n)) return -1;
    if (be->zero(t->grad, t->nparams * sizeof(float), err, n) ||
        be->zero(t->dact, t->plan.act_used * sizeof(float), err, n))
        return -1;
    nn_loss_parts p = { 0 };
    if (step_ops(t, N, npolicy, value_weight, o, &p)) return ctx_fail(t, err, n);
    o->step++;
    t->prof_steps++;
    if (be->sync(err, n)) return -1;
    if (out) *out = p;
    return 0;
}

/* After the forward: the losses (policy over the first npolicy samples), the backward in reverse
 * record order, the L2 sum and SGD (o's step is not advanced).  -1 with zzt_error(t->ctx). */
static int step_ops(zzt_net *t, int N, int npolicy, double value_weight, const nn_sgd *o, nn_loss_parts *p)
{
    zzt_ctx *c = t->ctx;
    int P = t->shape->geom.ncells;
    double l2sum, since = mcts_now_s();
    if (zzt_policy_loss(c, &p->policy, DACT(t->plan.logits), ACT(t->plan.logits), t->start, t->term, t->pi, npolicy,
                        P, NN_HEADS, 1.0, t->gmove) ||
        zzt_value_loss(c, &p->value, DACT(t->plan.value), ACT(t->plan.value), t->z, N, value_weight))
        return -1;
    prof_mark(t, &t->prof_loss_s, &since);
    for (int i = t->plan.nops - 1; i >= 0; i--) {
        if (op_backward(t, &t->plan.ops[i])) return -1;
        prof_mark(t, &t->prof_s[1][t->plan.ops[i].kind], &since);
    }
    if (zzt_sumsq(c, &l2sum, t->param, t->ndecay)) return -1;
    p->l2 = 0.5 * o->weight_decay * l2sum;
    p->total = p->policy + value_weight * p->value + p->l2;
    if (zzt_sgd(c, t->param, t->grad, t->mom, t->nparams, t->ndecay, (float)nn_sgd_lr(o, o->step),
                (float)o->momentum, (float)o->weight_decay))
        return -1;
    prof_mark(t, &t->prof_sgd_s, &since);
    return 0;
}
