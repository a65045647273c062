/* infer.c — the folded, fused inference network (see infer.h). */
#include "nn/infer.h"
#include "nn/bf16.h"
#include "nn/int8.h"
#include "nn/ops.h"
#include "nn/util.h"
#include <math.h>
#include <stdio.h>
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
    nn_precision prec;
    /* Below float (prec != NN_PREC_F32): the hex layers' weights packed for the kernel (bf16.h:
     * uint16, int8.h: int8 and a scale per output channel), hex layer h (0 the stem, 1 + i blk[i])
     * at element h · hex_stride (scales at h · channels); a hex layer's input converted for it
     * (stage: [batch_cap·P][stage_ci] elements, stage_scale: int8's [batch_cap] sample scales). */
    void *wlow;
    float *wlow_scale;
    size_t hex_stride;
    void *stage;
    float *stage_scale;
    int stage_ci;
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

/* The hex layers: 0 the stem, 1 + i blk[i]. */
static int nhex(const nn_infer *inf) { return 1 + 2 * inf->cfg.blocks; }
static layer hex_layer(const nn_infer *inf, int h) { return h == 0 ? inf->stem : inf->blk[h - 1]; }

/* Pack the folded weights of every hex layer the kernel of inf->prec takes into inf->wlow. */
static void pack_low(nn_infer *inf)
{
    for (int h = 0; h < nhex(inf); h++) {
        layer l = hex_layer(inf, h);
        size_t at = (size_t)h * inf->hex_stride;
        if (inf->prec == NN_PREC_BF16 && nn_bf16_shape_ok(l.ci, l.co))
            nn_bf16_pack_weights((uint16_t *)inf->wlow + at, inf->w + l.w, l.taps, l.ci, l.co);
        if (inf->prec == NN_PREC_INT8 && nn_int8_shape_ok(l.ci, l.co))
            nn_int8_pack_weights((int8_t *)inf->wlow + at, inf->wlow_scale + (size_t)h * inf->cfg.channels, inf->w + l.w,
                                 l.taps, l.ci, l.co);
    }
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
    if (inf->wlow) pack_low(inf);
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
    int widest = c->channels > NN_PLANES ? c->channels : NN_PLANES;
    inf->hex_stride = nn_bf16_weights_count(NN_TAPS, widest, c->channels);
    inf->stage_ci = widest;
    nn_infer_update(inf, m, err, errlen);
    return inf;
}

static size_t elem_size(nn_precision p) { return p == NN_PREC_BF16 ? 2 : 1; }

static void free_low(nn_infer *inf)
{
    free(inf->wlow), free(inf->wlow_scale), free(inf->stage), free(inf->stage_scale);
    inf->wlow = inf->stage = NULL;
    inf->wlow_scale = inf->stage_scale = NULL;
}

int nn_infer_set_precision(nn_infer *inf, nn_precision p, char *err, size_t errlen)
{
    if (p == inf->prec) return 0;
    if (!nn_precision_available(p)) {
        nn_set_err(err, errlen, "%s inference needs a CPU with %s, which this one lacks", nn_precision_name(p),
                   p == NN_PREC_BF16 ? "AVX512_BF16" : NN_INT8_NEEDS);
        return -1;
    }
    free_low(inf);
    inf->prec = p;
    inf->batch_cap = 0;             /* reserve() sizes the staging again for this precision */
    if (p == NN_PREC_F32) return 0;
    size_t n = inf->hex_stride * (size_t)nhex(inf);
    inf->wlow = malloc(n * elem_size(p));
    inf->wlow_scale = malloc(sizeof(float) * (size_t)nhex(inf) * (size_t)inf->cfg.channels);
    if (!inf->wlow || !inf->wlow_scale) {
        free_low(inf);
        inf->prec = NN_PREC_F32;
        nn_set_err(err, errlen, "out of memory");
        return -1;
    }
    pack_low(inf);
    return 0;
}

nn_precision nn_infer_precision(const nn_infer *inf) { return inf->prec; }

bool nn_precision_available(nn_precision p) {
    return p == NN_PREC_BF16 ? nn_bf16_available() : p == NN_PREC_INT8 ? nn_int8_available() : true;
}

const char *nn_precision_name(nn_precision p) { return p == NN_PREC_BF16 ? "bf16" : p == NN_PREC_INT8 ? "int8" : "f32"; }

int nn_precision_parse(const char *name, nn_precision *p)
{
    static const nn_precision all[] = { NN_PREC_F32, NN_PREC_BF16, NN_PREC_INT8 };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        if (!strcmp(name, nn_precision_name(all[i]))) { *p = all[i]; return 0; }
    return -1;
}

static bool precision_available(nn_precision p)
{
    return p == NN_PREC_F32 || (p == NN_PREC_BF16 && nn_bf16_available()) || (p == NN_PREC_INT8 && nn_int8_available());
}

nn_precision nn_precision_default(void)
{
    static int warned;
    const char *s = getenv("ZZ_NN_PRECISION");
    nn_precision p;
    if (!s || !*s) return precision_available(NN_PREC_PLAY_DEFAULT) ? NN_PREC_PLAY_DEFAULT : NN_PREC_F32;
    if (!nn_precision_parse(s, &p) && precision_available(p)) return p;
    if (!warned++)
        fprintf(stderr, "zertz: warning: ZZ_NN_PRECISION=%s: %s; using f32\n", s,
                nn_precision_parse(s, &p) ? "expected f32, bf16 or int8" : "this CPU lacks the instructions for it");
    return NN_PREC_F32;
}

void nn_infer_free(nn_infer *inf)
{
    if (!inf) return;
    free(inf->w);
    free_low(inf);
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
    if (inf->prec != NN_PREC_F32) {
        void *st = realloc(inf->stage, elem_size(inf->prec) * rows * (size_t)inf->stage_ci);
        if (!st) return -1;
        inf->stage = st;
        float *sc = realloc(inf->stage_scale, sizeof(float) * (size_t)N);
        if (!sc) return -1;
        inf->stage_scale = sc;
    }
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

/* y = relu(hexconv(x) + b + res) for hex layer h over samples [n0, n0+N): with inf->prec's kernel
 * when it takes the layer, else (or when the int8 inputs cannot be quantised) in float. */
static void run_hex(const nn_infer *inf, float *y, const float *x, int h, const float *res, int n0, int N)
{
    layer l = hex_layer(inf, h);
    int P = inf->geom.ncells, rows = N * P;
    size_t at = (size_t)h * inf->hex_stride, st = (size_t)n0 * P * inf->stage_ci;
    const float *b = inf->w + l.b;
    if (inf->prec == NN_PREC_BF16 && nn_bf16_shape_ok(l.ci, l.co)) {
        uint16_t *xb = (uint16_t *)inf->stage + st;
        nn_bf16_pack_rows(xb, x, (size_t)rows, l.ci);
        if (nn_bf16_conv(y, xb, (const uint16_t *)inf->wlow + at, b, res, &inf->geom, rows, l.ci, l.co, true)) return;
    }
    if (inf->prec == NN_PREC_INT8 && nn_int8_shape_ok(l.ci, l.co)) {
        uint8_t *xq = (uint8_t *)inf->stage + st;
        float *sx = inf->stage_scale + n0, *sw = inf->wlow_scale + (size_t)h * inf->cfg.channels;
        if (nn_int8_quantize_rows(xq, sx, x, N, P, l.ci) &&
            nn_int8_conv(y, xq, sx, (const int8_t *)inf->wlow + at, sw, b, res, &inf->geom, rows, l.ci, l.co, true))
            return;
    }
    run(inf, y, x, l, res, true, rows, true);
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
    run_hex(inf, a, x + r0 * NN_PLANES, 0, NULL, n0, N);
    for (int b = 0; b < c->blocks; b++) {
        run_hex(inf, u, a, 1 + 2 * b, NULL, n0, N);
        run_hex(inf, bb, u, 2 + 2 * b, a, n0, N);
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
