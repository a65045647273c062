/* model.c — the network's parameters (flat buffers, named views), initialisation, and the forward
 * that records the tape; backward replays it (see model.h). */
#include "nn/model.h"
#include "nn/util.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nn_config_default(nn_config *c, zz_board_kind board)
{
    memset(c, 0, sizeof *c);
    c->board = board;
    c->channels = 64;
    c->blocks = board == ZZ_B61 ? 8 : 6;
    c->policy_channels = 32;
    c->value_channels = 4;
    c->value_hidden = 128;
    c->bn_momentum = 0.05f;
    c->bn_eps = 1e-5f;
}

int nn_config_check(const nn_config *c, char *err, size_t errlen)
{
    if ((unsigned)c->board >= ZZ_NBOARDS) { nn_set_err(err, errlen, "board kind %d is not 0..2", (int)c->board); return -1; }
    if (c->channels < 1 || c->channels > 1024) { nn_set_err(err, errlen, "channels %d not in 1..1024", c->channels); return -1; }
    if (c->blocks < 0 || c->blocks > 64) { nn_set_err(err, errlen, "blocks %d not in 0..64", c->blocks); return -1; }
    if (c->policy_channels < 1 || c->policy_channels > 1024) { nn_set_err(err, errlen, "policy channels %d not in 1..1024", c->policy_channels); return -1; }
    if (c->value_channels < 1 || c->value_channels > 64) { nn_set_err(err, errlen, "value channels %d not in 1..64", c->value_channels); return -1; }
    if (c->value_hidden < 1 || c->value_hidden > 4096) { nn_set_err(err, errlen, "value hidden %d not in 1..4096", c->value_hidden); return -1; }
    if (c->aux_outputs != 0 && c->aux_outputs != NN_AUX) { nn_set_err(err, errlen, "captures head outputs %d: 0 or %d", c->aux_outputs, NN_AUX); return -1; }
    if (!(c->bn_momentum >= 0 && c->bn_momentum <= 1)) { nn_set_err(err, errlen, "bn momentum not in [0,1]"); return -1; }
    if (!(c->bn_eps > 0 && c->bn_eps < 1)) { nn_set_err(err, errlen, "bn eps not in (0,1)"); return -1; }
    return 0;
}

bool nn_config_same_arch(const nn_config *a, const nn_config *b)
{
    return a->board == b->board && a->channels == b->channels && a->blocks == b->blocks &&
           a->policy_channels == b->policy_channels && a->value_channels == b->value_channels &&
           a->value_hidden == b->value_hidden && a->aux_outputs == b->aux_outputs;
}

/* ---- views ------------------------------------------------------------------------------------ */

enum { K_DECAY, K_PARAM, K_STAT };

static int add_view(nn_model *m, int kind, int ndim, const int *dims, const char *fmt, ...)
{
    nn_view *v = &m->views[m->nviews];
    memset(v, 0, sizeof *v);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->name, sizeof v->name, fmt, ap);
    va_end(ap);
    v->ndim = ndim;
    v->count = 1;
    for (int d = 0; d < ndim; d++) { v->dims[d] = dims[d]; v->count *= (size_t)dims[d]; }
    v->stat = kind == K_STAT;
    v->decay = kind == K_DECAY;
    return m->nviews++;
}

static int add_conv(nn_model *m, int taps, int ci, int co, const char *name)
{
    int d3[3] = { taps, ci, co }, d2[2] = { ci, co };
    return taps > 1 ? add_view(m, K_DECAY, 3, d3, "%s", name) : add_view(m, K_DECAY, 2, d2, "%s", name);
}

static nn_bn_views add_bn(nn_model *m, int C, const char *prefix)
{
    nn_bn_views b;
    b.gamma = add_view(m, K_PARAM, 1, &C, "%s.gamma", prefix);
    b.beta = add_view(m, K_PARAM, 1, &C, "%s.beta", prefix);
    b.mean = add_view(m, K_STAT, 1, &C, "%s.mean", prefix);
    b.var = add_view(m, K_STAT, 1, &C, "%s.var", prefix);
    return b;
}

static void build_views(nn_model *m)
{
    const nn_config *c = &m->cfg;
    int C = c->channels, P = m->geom.ncells;
    char name[NN_NAME_LEN];
    m->stem_conv = add_conv(m, NN_TAPS, NN_PLANES, C, "stem.conv.w");
    m->stem_bn = add_bn(m, C, "stem.bn");
    for (int b = 0; b < c->blocks; b++) {
        snprintf(name, sizeof name, "block%d.conv1.w", b);
        m->block[b].conv1 = add_conv(m, NN_TAPS, C, C, name);
        snprintf(name, sizeof name, "block%d.bn1", b);
        m->block[b].bn1 = add_bn(m, C, name);
        snprintf(name, sizeof name, "block%d.conv2.w", b);
        m->block[b].conv2 = add_conv(m, NN_TAPS, C, C, name);
        snprintf(name, sizeof name, "block%d.bn2", b);
        m->block[b].bn2 = add_bn(m, C, name);
    }
    int heads = NN_HEADS, one = 1;
    m->pol_conv1 = add_conv(m, 1, C, c->policy_channels, "policy.conv1.w");
    m->pol_bn = add_bn(m, c->policy_channels, "policy.bn");
    m->pol_conv2 = add_conv(m, 1, c->policy_channels, NN_HEADS, "policy.conv2.w");
    m->pol_bias = add_view(m, K_PARAM, 1, &heads, "policy.conv2.b");
    m->val_conv = add_conv(m, 1, C, c->value_channels, "value.conv.w");
    m->val_bn = add_bn(m, c->value_channels, "value.bn");
    m->val_fc1 = add_conv(m, 1, P * c->value_channels, c->value_hidden, "value.fc1.w");
    m->val_fc1_b = add_view(m, K_PARAM, 1, &c->value_hidden, "value.fc1.b");
    m->val_fc2 = add_conv(m, 1, c->value_hidden, 1, "value.fc2.w");
    m->val_fc2_b = add_view(m, K_PARAM, 1, &one, "value.fc2.b");
    m->aux_fc = m->aux_fc_b = -1;
    if (c->aux_outputs) {               /* last, so that the views before draw the same weights */
        m->aux_fc = add_conv(m, 1, c->value_hidden, c->aux_outputs, "aux.fc.w");
        m->aux_fc_b = add_view(m, K_PARAM, 1, &c->aux_outputs, "aux.fc.b");
    }
    /* offsets: decayed parameters first, then the others; statistics apart */
    size_t off = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < m->nviews; i++) {
            nn_view *v = &m->views[i];
            if (v->stat || v->decay != (pass == 0)) continue;
            v->offset = off;
            off += v->count;
            if (pass == 0) m->ndecay = off;
        }
    m->nparams = off;
    off = 0;
    for (int i = 0; i < m->nviews; i++)
        if (m->views[i].stat) { m->views[i].offset = off; off += m->views[i].count; }
    m->nstats = off;
}

static int max_views(const nn_config *c) { return 4 + c->blocks * 10 + 8 + 12 + 2; }

/* ---- element access --------------------------------------------------------------------------- */

double nn_buf_get(const nn_model *m, const void *buf, size_t i)
{
    return m->dtype == NN_F64 ? ((const double *)buf)[i] : (double)((const float *)buf)[i];
}

void nn_buf_set(const nn_model *m, void *buf, size_t i, double v)
{
    if (m->dtype == NN_F64) ((double *)buf)[i] = v;
    else ((float *)buf)[i] = (float)v;
}

/* ---- creation ---------------------------------------------------------------------------------- */

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double gauss(uint64_t *s)
{
    double u1 = ((splitmix(s) >> 11) + 1.0) * (1.0 / 9007199254740993.0);
    double u2 = (splitmix(s) >> 11) * (1.0 / 9007199254740992.0);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static void init_weights(nn_model *m, uint64_t seed)
{
    uint64_t s = seed ^ 0x5A5A5A5A12345678ULL;
    for (int i = 0; i < m->nviews; i++) {
        const nn_view *v = &m->views[i];
        void *buf = v->stat ? m->stats : m->param;
        double fill = 0, std = 0;
        if (v->decay) {
            size_t fan_in = v->count / (size_t)v->dims[v->ndim - 1];
            std = sqrt(2.0 / (double)fan_in);                  /* He: ReLU follows */
            if (i == m->pol_conv2 || i == m->val_fc2 || i == m->aux_fc) std = sqrt(1.0 / (double)fan_in);   /* linear outputs */
        } else {
            const char *dot = strrchr(v->name, '.');
            fill = dot && (!strcmp(dot, ".gamma") || !strcmp(dot, ".var")) ? 1.0 : 0.0;
        }
        for (size_t k = 0; k < v->count; k++)
            nn_buf_set(m, buf, v->offset + k, std > 0 ? std * gauss(&s) : fill);
    }
}

nn_model *nn_model_create(const nn_config *cfg, nn_dtype dtype, uint64_t seed, char *err, size_t errlen)
{
    if (nn_config_check(cfg, err, errlen)) return NULL;
    nn_model *m = calloc(1, sizeof *m);
    if (!m) { nn_set_err(err, errlen, "out of memory"); return NULL; }
    m->cfg = *cfg;
    m->dtype = dtype;
    m->esize = dtype == NN_F64 ? sizeof(double) : sizeof(float);
    nn_geom_init(&m->geom, cfg->board);
    m->views = calloc((size_t)max_views(cfg), sizeof *m->views);
    m->block = calloc((size_t)cfg->blocks + 1, sizeof *m->block);
    if (!m->views || !m->block) goto oom;
    build_views(m);
    m->param = calloc(m->nparams, m->esize);
    m->grad = calloc(m->nparams, m->esize);
    m->mom = calloc(m->nparams, m->esize);
    m->stats = calloc(m->nstats, m->esize);
    if (!m->param || !m->grad || !m->mom || !m->stats) goto oom;
    init_weights(m, seed);
    m->out_aux = NN_NONE;                                    /* no forward yet */
    nn_tape *t = &m->tape;
    t->dtype = dtype;
    t->esize = m->esize;
    t->geom = &m->geom;
    t->param = m->param;
    t->grad = m->grad;
    t->stats = m->stats;
    t->update_stats = true;
    t->bn_momentum = cfg->bn_momentum;
    t->bn_eps = cfg->bn_eps;
    return m;
oom:
    nn_set_err(err, errlen, "out of memory");
    nn_model_free(m);
    return NULL;
}

void nn_model_free(nn_model *m)
{
    if (!m) return;
    nn_tape_free(&m->tape);
    free(m->views);
    free(m->block);
    free(m->param);
    free(m->grad);
    free(m->mom);
    free(m->stats);
    free(m);
}

const nn_view *nn_model_view(const nn_model *m, const char *name)
{
    for (int i = 0; i < m->nviews; i++)
        if (!strcmp(m->views[i].name, name)) return &m->views[i];
    return NULL;
}

int nn_model_copy(nn_model *dst, const nn_model *src, char *err, size_t errlen)
{
    if (!nn_config_same_arch(&dst->cfg, &src->cfg)) {
        nn_set_err(err, errlen, "architectures differ");
        return -1;
    }
    for (size_t i = 0; i < src->nparams; i++) nn_buf_set(dst, dst->param, i, nn_buf_get(src, src->param, i));
    for (size_t i = 0; i < src->nstats; i++) nn_buf_set(dst, dst->stats, i, nn_buf_get(src, src->stats, i));
    return 0;
}

nn_model *nn_model_with_aux(const nn_model *src, uint64_t seed, char *err, size_t errlen)
{
    if (src->cfg.aux_outputs) { nn_set_err(err, errlen, "the network already has a captures head"); return NULL; }
    nn_config c = src->cfg;
    c.aux_outputs = NN_AUX;
    nn_model *m = nn_model_create(&c, src->dtype, seed, err, errlen);
    if (!m) return NULL;
    for (int k = 0; k < src->nviews; k++) {         /* every view of src by name; the head stays fresh */
        const nn_view *sv = &src->views[k], *dv = nn_model_view(m, sv->name);
        const void *from = sv->stat ? src->stats : src->param;
        void *to = sv->stat ? m->stats : m->param;
        for (size_t i = 0; i < sv->count; i++) {
            nn_buf_set(m, to, dv->offset + i, nn_buf_get(src, from, sv->offset + i));
            if (!sv->stat) nn_buf_set(m, m->mom, dv->offset + i, nn_buf_get(src, src->mom, sv->offset + i));
        }
    }
    return m;
}

/* ---- forward / backward ------------------------------------------------------------------------ */

#define PV(idx) (m->views[idx].offset)          /* a parameter's offset */
#define SV(idx) (m->views[idx].offset)          /* a statistic's offset */

static size_t bn(const nn_model *m, nn_tape *t, size_t x, int rows, int C, nn_bn_views v)
{
    return nn_tape_bn(t, x, rows, C, PV(v.gamma), PV(v.beta), SV(v.mean), SV(v.var));
}

/* Record on t (and, unless t is dry or a plan, run) the whole forward for N samples from the
 * input x; the outputs' offsets go to *logits, *value and *aux (NN_NONE without the captures head). */
static void build_ops(const nn_model *m, nn_tape *t, int N, size_t x, size_t *logits, size_t *value, size_t *aux)
{
    const nn_config *c = &m->cfg;
    int P = m->geom.ncells, C = c->channels, rows = N * P;
    size_t n = (size_t)rows * C;
    size_t h = nn_tape_conv(t, x, N, NN_PLANES, C, PV(m->stem_conv));
    h = nn_tape_relu(t, bn(m, t, h, rows, C, m->stem_bn), n);
    for (int b = 0; b < c->blocks; b++) {
        const nn_block_views *bv = &m->block[b];
        size_t u = nn_tape_conv(t, h, N, C, C, PV(bv->conv1));
        u = nn_tape_relu(t, bn(m, t, u, rows, C, bv->bn1), n);
        u = nn_tape_conv(t, u, N, C, C, PV(bv->conv2));
        u = bn(m, t, u, rows, C, bv->bn2);
        h = nn_tape_relu(t, nn_tape_add(t, u, h, n), n);
    }
    int Cp = c->policy_channels, Cv = c->value_channels;
    size_t p = nn_tape_matmul(t, h, rows, C, Cp, PV(m->pol_conv1), NN_NONE);
    p = nn_tape_relu(t, bn(m, t, p, rows, Cp, m->pol_bn), (size_t)rows * Cp);
    *logits = nn_tape_matmul(t, p, rows, Cp, NN_HEADS, PV(m->pol_conv2), PV(m->pol_bias));
    size_t v = nn_tape_matmul(t, h, rows, C, Cv, PV(m->val_conv), NN_NONE);
    v = nn_tape_relu(t, bn(m, t, v, rows, Cv, m->val_bn), (size_t)rows * Cv);
    v = nn_tape_matmul(t, v, N, P * Cv, c->value_hidden, PV(m->val_fc1), PV(m->val_fc1_b));
    size_t hidden = nn_tape_relu(t, v, (size_t)N * c->value_hidden);
    v = nn_tape_matmul(t, hidden, N, c->value_hidden, 1, PV(m->val_fc2), PV(m->val_fc2_b));
    *value = nn_tape_tanh(t, v, (size_t)N);
    *aux = c->aux_outputs ? nn_tape_matmul(t, hidden, N, c->value_hidden, c->aux_outputs, PV(m->aux_fc), PV(m->aux_fc_b))
                          : NN_NONE;     /* both heads add into the hidden layer's gradient */
}

int nn_model_forward(nn_model *m, const float *x, int N, bool train, char *err, size_t errlen)
{
    nn_tape *t = &m->tape;
    int P = m->geom.ncells;
    if (N < 1) { nn_set_err(err, errlen, "batch size %d < 1", N); return -1; }
    if (N > m->batch_cap) {                     /* measure the arena for N, then size it */
        nn_tape_reset(t, true, train);
        size_t lo, vo, ao;
        build_ops(m, t, N, nn_tape_alloc(t, (size_t)N * P * NN_PLANES), &lo, &vo, &ao);
        if (nn_tape_reserve(t, t->act_used, t->nops)) {
            nn_set_err(err, errlen, "out of memory for a batch of %d", N);
            return -1;
        }
        m->batch_cap = N;
    }
    nn_tape_reset(t, false, train);
    size_t in = nn_tape_alloc(t, (size_t)N * P * NN_PLANES);
    size_t cnt = (size_t)N * P * NN_PLANES;
    if (m->dtype == NN_F64) {
        double *d = (double *)t->act + in;
        for (size_t i = 0; i < cnt; i++) d[i] = x[i];
    } else {
        memcpy((float *)t->act + in, x, cnt * sizeof(float));
    }
    build_ops(m, t, N, in, &m->out_logits, &m->out_value, &m->out_aux);
    m->batch = N;
    m->train_forward = train && !t->failed;
    if (t->failed) { nn_set_err(err, errlen, "out of memory recording the forward"); return -1; }
    return 0;
}

int nn_model_plan(const nn_model *m, int N, bool train, nn_plan *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (N < 1) { nn_set_err(err, errlen, "batch size %d < 1", N); return -1; }
    nn_tape t = { .dtype = m->dtype, .esize = m->esize, .geom = &m->geom, .plan = true };
    nn_tape_reset(&t, false, train);
    p->in = nn_tape_alloc(&t, (size_t)N * m->geom.ncells * NN_PLANES);
    build_ops(m, &t, N, p->in, &p->logits, &p->value, &p->aux);
    if (t.failed) {
        free(t.ops);
        nn_set_err(err, errlen, "out of memory planning a batch of %d", N);
        return -1;
    }
    p->ops = t.ops;
    p->nops = t.nops;
    p->act_used = t.act_used;
    p->batch = N;
    return 0;
}

void nn_plan_free(nn_plan *p)
{
    free(p->ops);
    memset(p, 0, sizeof *p);
}

void nn_model_outputs(const nn_model *m, float *logits, float *values)
{
    size_t nl = (size_t)m->batch * m->geom.ncells * NN_HEADS;
    if (logits) for (size_t i = 0; i < nl; i++) logits[i] = (float)nn_buf_get(m, nn_model_logits(m), i);
    if (values) for (int i = 0; i < m->batch; i++) values[i] = (float)nn_buf_get(m, nn_model_values(m), (size_t)i);
}

int nn_model_begin_backward(nn_model *m, void **dlogits, void **dvalue, char *err, size_t errlen)
{
    nn_tape *t = &m->tape;
    if (!m->train_forward || !m->batch) {
        nn_set_err(err, errlen, "backward needs a training forward first");
        return -1;
    }
    if (nn_tape_reserve_grad(t)) { nn_set_err(err, errlen, "out of memory for gradients"); return -1; }
    nn_tape_zero_grad(t);
    if (dlogits) *dlogits = (char *)t->dact + m->out_logits * m->esize;
    if (dvalue) *dvalue = (char *)t->dact + m->out_value * m->esize;
    return 0;
}

void *nn_model_aux_grad(nn_model *m)
{
    if (m->out_aux == NN_NONE || !m->tape.dact) return NULL;
    return (char *)m->tape.dact + m->out_aux * m->esize;
}

int nn_model_backward(nn_model *m, char *err, size_t errlen)
{
    if (!m->train_forward || !m->tape.dact) {
        nn_set_err(err, errlen, "backward needs a training forward and nn_model_begin_backward first");
        return -1;
    }
    nn_tape_backward(&m->tape);
    return 0;
}

void nn_model_zero_grad(nn_model *m)
{
    memset(m->grad, 0, m->nparams * m->esize);
}

double nn_model_flops(const nn_model *m)
{
    const nn_config *c = &m->cfg;
    double P = m->geom.ncells, C = c->channels;
    double f = 2.0 * P * NN_TAPS * NN_PLANES * C;                       /* stem */
    f += c->blocks * 2 * 2.0 * P * NN_TAPS * C * C;                    /* tower */
    f += 2.0 * P * (C * c->policy_channels + c->policy_channels * NN_HEADS);
    f += 2.0 * P * C * c->value_channels;
    f += 2.0 * (P * c->value_channels * c->value_hidden + c->value_hidden);
    f += 2.0 * c->value_hidden * c->aux_outputs;
    return f;
}
