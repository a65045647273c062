/* infer.c — the folded, fused inference network (see infer.h). */
#include "nn/infer.h"
#include "nn/ops.h"
#include "nn/util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

typedef nn_fold_layer layer;                                  /* offsets into inf->w */

struct nn_infer {
    nn_config cfg;
    nn_geom geom;
    float *w;
    size_t nw;
    layer stem, *blk, pol1, pol2, val, fc1, fc2;              /* blk: 2 per block */
    float *scratch;
    int batch_cap;
    size_t off_x, off_a, off_b, off_u, off_p, off_v, off_h, off_o; /* in scratch */
};

static layer add_layer(size_t *n, int taps, int ci, int co)
{
    layer l = { *n, 0, taps, ci, co };
    *n += (size_t)taps * ci * co;
    l.b = *n;
    *n += (size_t)co;
    return l;
}

/* w' = w · s[co], b' = β − μ·s with s = γ/sqrt(var+eps); without BN, copy w and bias. */
static void fold_one(float *out, const nn_model *m, layer l, int wv, const nn_bn_views *bn, int bias_view)
{
    const nn_view *W = &m->views[wv];
    float *w = out + l.w, *b = out + l.b;
    for (int co = 0; co < l.co; co++) {
        double s = 1, sh = bias_view >= 0 ? nn_buf_get(m, m->param, m->views[bias_view].offset + co) : 0;
        if (bn) {
            double g = nn_buf_get(m, m->param, m->views[bn->gamma].offset + co);
            double be = nn_buf_get(m, m->param, m->views[bn->beta].offset + co);
            double mu = nn_buf_get(m, m->stats, m->views[bn->mean].offset + co);
            double var = nn_buf_get(m, m->stats, m->views[bn->var].offset + co);
            s = g / sqrt(var + m->cfg.bn_eps);
            sh = be - mu * s;
        }
        for (size_t k = 0; k < (size_t)l.taps * l.ci; k++)
            w[k * l.co + co] = (float)(nn_buf_get(m, m->param, W->offset + k * l.co + co) * s);
        b[co] = (float)sh;
    }
}

void nn_fold(const nn_model *m, const nn_fold_layer *L, float *out)
{
    int B = m->cfg.blocks;
    fold_one(out, m, L[0], m->stem_conv, &m->stem_bn, -1);
    for (int b = 0; b < B; b++) {
        fold_one(out, m, L[1 + 2 * b], m->block[b].conv1, &m->block[b].bn1, -1);
        fold_one(out, m, L[2 + 2 * b], m->block[b].conv2, &m->block[b].bn2, -1);
    }
    fold_one(out, m, L[1 + 2 * B], m->pol_conv1, &m->pol_bn, -1);
    fold_one(out, m, L[2 + 2 * B], m->pol_conv2, NULL, m->pol_bias);
    fold_one(out, m, L[3 + 2 * B], m->val_conv, &m->val_bn, -1);
    fold_one(out, m, L[4 + 2 * B], m->val_fc1, NULL, m->val_fc1_b);
    fold_one(out, m, L[5 + 2 * B], m->val_fc2, NULL, m->val_fc2_b);
}

int nn_infer_update(nn_infer *inf, const nn_model *m, char *err, size_t errlen)
{
    if (!nn_config_same_arch(&inf->cfg, &m->cfg)) { nn_set_err(err, errlen, "architectures differ"); return -1; }
    inf->cfg = m->cfg;
    int B = m->cfg.blocks;
    layer *L = malloc(sizeof *L * (size_t)nn_fold_nlayers(m));
    if (!L) { nn_set_err(err, errlen, "out of memory"); return -1; }
    L[0] = inf->stem;
    for (int i = 0; i < 2 * B; i++) L[1 + i] = inf->blk[i];
    L[1 + 2 * B] = inf->pol1;
    L[2 + 2 * B] = inf->pol2;
    L[3 + 2 * B] = inf->val;
    L[4 + 2 * B] = inf->fc1;
    L[5 + 2 * B] = inf->fc2;
    nn_fold(m, L, inf->w);
    free(L);
    return 0;
}

nn_infer *nn_infer_create(const nn_model *m, char *err, size_t errlen)
{
    nn_infer *inf = calloc(1, sizeof *inf);
    const nn_config *c = &m->cfg;
    if (!inf || !(inf->blk = calloc(2 * (size_t)c->blocks + 1, sizeof *inf->blk))) {
        free(inf);
        nn_set_err(err, errlen, "out of memory");
        return NULL;
    }
    inf->cfg = *c;
    inf->geom = m->geom;
    int C = c->channels, P = m->geom.ncells;
    size_t n = 0;
    inf->stem = add_layer(&n, NN_TAPS, NN_PLANES, C);
    for (int b = 0; b < 2 * c->blocks; b++) inf->blk[b] = add_layer(&n, NN_TAPS, C, C);
    inf->pol1 = add_layer(&n, 1, C, c->policy_channels);
    inf->pol2 = add_layer(&n, 1, c->policy_channels, NN_HEADS);
    inf->val = add_layer(&n, 1, C, c->value_channels);
    inf->fc1 = add_layer(&n, 1, P * c->value_channels, c->value_hidden);
    inf->fc2 = add_layer(&n, 1, c->value_hidden, 1);
    inf->nw = n;
    if (!(inf->w = malloc(sizeof(float) * n))) {
        nn_infer_free(inf);
        nn_set_err(err, errlen, "out of memory");
        return NULL;
    }
    nn_infer_update(inf, m, err, errlen);
    return inf;
}

void nn_infer_free(nn_infer *inf)
{
    if (!inf) return;
    free(inf->w);
    free(inf->blk);
    free(inf->scratch);
    free(inf);
}

const nn_geom *nn_infer_geom(const nn_infer *inf) { return &inf->geom; }

static int reserve(nn_infer *inf, int N)
{
    if (N <= inf->batch_cap) return 0;
    const nn_config *c = &inf->cfg;
    size_t rows = (size_t)N * inf->geom.ncells, n = 0;
#define SLOT(field, count) do { inf->field = n; n += ((count) + 15) & ~(size_t)15; } while (0)
    SLOT(off_x, rows * NN_PLANES);
    SLOT(off_a, rows * c->channels);
    SLOT(off_b, rows * c->channels);
    SLOT(off_u, rows * c->channels);
    SLOT(off_p, rows * c->policy_channels);
    SLOT(off_v, rows * c->value_channels);
    SLOT(off_h, (size_t)N * c->value_hidden);
    SLOT(off_o, rows * NN_HEADS + (size_t)N);
#undef SLOT
    float *s = realloc(inf->scratch, sizeof(float) * n);
    if (!s) return -1;
    inf->scratch = s;
    inf->batch_cap = N;
    return 0;
}

/* y = relu?(conv(x) + b + res): the fast kernel with its fused epilogue, or the plain ops. */
static void run(const nn_infer *inf, float *y, const float *x, layer l, const float *res, bool relu,
                int rows, bool hex)
{
    const float *w = inf->w + l.w, *b = inf->w + l.b;
    const nn_geom *g = hex ? &inf->geom : NULL;
    if (nn_fast_conv(y, x, w, b, res, g, rows, l.ci, l.co, relu ? NN_FAST_RELU : 0)) return;
    if (hex) nn_conv_forward_f(y, x, w, g, rows / inf->geom.ncells, l.ci, l.co);
    else nn_matmul_forward_f(y, x, w, NULL, rows, l.ci, l.co);
    for (int r = 0; r < rows; r++) {
        float *yr = y + (size_t)r * l.co;
        const float *rr = res ? res + (size_t)r * l.co : NULL;
        for (int c = 0; c < l.co; c++) {
            float v = yr[c] + b[c] + (rr ? rr[c] : 0);
            yr[c] = relu && v < 0 ? 0 : v;
        }
    }
}

/* Samples [n0, n0+N) of the batch, on the calling thread: every buffer is [samples][...], so a
 * slice of samples is a slice of each buffer. */
static void forward_slice(const nn_infer *inf, const float *x, int n0, int N, float *logits, float *values)
{
    const nn_config *c = &inf->cfg;
    int P = inf->geom.ncells, rows = N * P, C = c->channels;
    size_t r0 = (size_t)n0 * P;
    float *S = inf->scratch;
    float *a = S + inf->off_a + r0 * C, *bb = S + inf->off_b + r0 * C, *u = S + inf->off_u + r0 * C;
    float *pp = S + inf->off_p + r0 * c->policy_channels, *vv = S + inf->off_v + r0 * c->value_channels;
    float *hh = S + inf->off_h + (size_t)n0 * c->value_hidden;
    float *o = S + inf->off_o + (size_t)inf->batch_cap * P * NN_HEADS + n0;
    run(inf, a, x + r0 * NN_PLANES, inf->stem, NULL, true, rows, true);
    for (int b = 0; b < c->blocks; b++) {
        run(inf, u, a, inf->blk[2 * b], NULL, true, rows, true);
        run(inf, bb, u, inf->blk[2 * b + 1], a, true, rows, true);
        float *t = a; a = bb; bb = t;
    }
    float *lg = logits ? logits + r0 * NN_HEADS : S + inf->off_o + r0 * NN_HEADS;
    run(inf, pp, a, inf->pol1, NULL, true, rows, false);
    run(inf, lg, pp, inf->pol2, NULL, false, rows, false);
    run(inf, vv, a, inf->val, NULL, true, rows, false);
    run(inf, hh, vv, inf->fc1, NULL, true, N, false);
    run(inf, o, hh, inf->fc2, NULL, false, N, false);
    if (values) for (int i = 0; i < N; i++) values[n0 + i] = tanhf(o[i]);
}

/* Threads split the batch (no op needs another sample: BN is folded), so a forward has one
 * fork/join instead of one per op; within a slice the ops run single-threaded. */
int nn_infer_forward(nn_infer *inf, const float *x, int N, float *logits, float *values, char *err, size_t errlen)
{
    if (N < 1) { nn_set_err(err, errlen, "batch size %d < 1", N); return -1; }
    if (reserve(inf, N)) { nn_set_err(err, errlen, "out of memory for a batch of %d", N); return -1; }
    int nth = 1;
#ifdef _OPENMP
    if (!omp_in_parallel()) nth = omp_get_max_threads();
#endif
    if (nth > N) nth = N;
    if (nth <= 1) {
        forward_slice(inf, x, 0, N, logits, values);
        return 0;
    }
    NN_OMP(parallel num_threads(nth))
    {
        int t = 0, nt = 1;
#ifdef _OPENMP
        t = omp_get_thread_num();
        nt = omp_get_num_threads();
#endif
        int n0 = (int)((long)N * t / nt), n1 = (int)((long)N * (t + 1) / nt);
        if (n1 > n0) forward_slice(inf, x, n0, n1 - n0, logits, values);
    }
    return 0;
}

int nn_infer_positions(nn_infer *inf, const zz_pos *pos, int n, float *logits, float *values, char *err, size_t errlen)
{
    if (n < 1) { nn_set_err(err, errlen, "no positions"); return -1; }
    if (reserve(inf, n)) { nn_set_err(err, errlen, "out of memory for a batch of %d", n); return -1; }
    int P = inf->geom.ncells;
    float *x = inf->scratch + inf->off_x;
    for (int i = 0; i < n; i++) {
        if (pos[i].board != inf->geom.kind) { nn_set_err(err, errlen, "position %d is on another board", i); return -1; }
        nn_encode(&inf->geom, &pos[i], x + (size_t)i * P * NN_PLANES);
    }
    return nn_infer_forward(inf, x, n, logits, values, err, errlen);
}
