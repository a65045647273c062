/* infer_cuda.c — zz_cuda_infer (infer_cuda.h): folds an nn_model on the host exactly as
 * src/nn/infer.c does, uploads it as net.h's flat weights, encodes positions on the CPU and runs
 * zz_cu_net on the GPU.  Compiled with or without CUDA (without, zz_cu_net_create fails cleanly). */
#include "cuda/infer_cuda.h"
#include "cuda/backend.h"
#include "cuda/net.h"
#include "nn/infer.h"
#include "nn/util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct zz_cuda_infer {
    nn_config cfg;
    nn_geom geom;
    zz_cu_desc desc;
    zz_cu_layer *L;
    float *w;                   /* [nw] folded weights (host) */
    size_t nw;
    zz_cu_net *net;
    float *x;                   /* [xcap][P][NN_PLANES] encoder scratch */
    int xcap;
};

static void describe(const nn_model *m, zz_cu_desc *d)
{
    d->P = m->geom.ncells;
    d->planes = NN_PLANES;
    d->C = m->cfg.channels;
    d->blocks = m->cfg.blocks;
    d->Cp = m->cfg.policy_channels;
    d->Cv = m->cfg.value_channels;
    d->Vh = m->cfg.value_hidden;
    d->heads = NN_HEADS;
    d->nb = &m->geom.nb[0][0];
}

size_t zz_cuda_fold(const nn_model *m, float *w)
{
    zz_cu_desc d;
    describe(m, &d);
    zz_cu_layer *L = malloc(sizeof *L * (size_t)zz_cu_nlayers(&d));
    if (!L) return 0;
    size_t nw = zz_cu_layout(&d, L);
    if (w) {   /* the same folding as the CPU net (nn_fold), into net.h's layout */
        int nl = nn_fold_nlayers(m);
        nn_fold_layer *F = malloc(sizeof *F * (size_t)nl);
        if (!F) { free(L); return 0; }
        for (int i = 0; i < nl; i++) F[i] = (nn_fold_layer){ L[i].w, L[i].b, L[i].taps, L[i].ci, L[i].co };
        nn_fold(m, F, w);
        free(F);
    }
    free(L);
    return nw;
}

void zz_cuda_infer_free(zz_cuda_infer *inf)
{
    if (!inf) return;
    zz_cu_net_free(inf->net);
    free(inf->w);
    free(inf->L);
    free(inf->x);
    free(inf);
}

zz_cuda_infer *zz_cuda_infer_create(const nn_model *m, int max_batch, int flags, char *err, size_t errlen)
{
    char why[300];
    if (!zz_cuda_available(why, sizeof why)) { nn_set_err(err, errlen, "no GPU backend: %s", why); return NULL; }
    zz_cuda_infer *inf = calloc(1, sizeof *inf);
    if (!inf) { nn_set_err(err, errlen, "out of memory"); return NULL; }
    inf->cfg = m->cfg;
    inf->geom = m->geom;
    describe(m, &inf->desc);
    inf->desc.nb = &inf->geom.nb[0][0];
    inf->L = malloc(sizeof *inf->L * (size_t)zz_cu_nlayers(&inf->desc));
    inf->nw = inf->L ? zz_cu_layout(&inf->desc, inf->L) : 0;
    inf->w = inf->L ? malloc(sizeof(float) * inf->nw) : NULL;
    if (!inf->w) { zz_cuda_infer_free(inf); nn_set_err(err, errlen, "out of memory"); return NULL; }
    zz_cuda_fold(m, inf->w);
    const char *env = getenv("ZZ_CUDA_GRAPHS");
    int graphs = (flags & ZZ_CUDA_GRAPHS) && !(env && !strcmp(env, "0"));
    inf->net = zz_cu_net_create(&inf->desc, inf->w, inf->nw, max_batch > 0 ? max_batch : 1, graphs, why, sizeof why);
    if (!inf->net) { zz_cuda_infer_free(inf); nn_set_err(err, errlen, "GPU net: %s", why); return NULL; }
    return inf;
}

int zz_cuda_infer_update(zz_cuda_infer *inf, const nn_model *m, char *err, size_t errlen)
{
    if (!nn_config_same_arch(&inf->cfg, &m->cfg)) { nn_set_err(err, errlen, "architectures differ"); return -1; }
    inf->cfg = m->cfg;
    zz_cuda_fold(m, inf->w);
    return zz_cu_net_set_weights(inf->net, inf->w, inf->nw, err, errlen);
}

const nn_geom *zz_cuda_infer_geom(const zz_cuda_infer *inf) { return &inf->geom; }

int zz_cuda_infer_forward(zz_cuda_infer *inf, const float *x, int N, float *logits, float *values,
                          char *err, size_t errlen)
{
    if (N < 1) { nn_set_err(err, errlen, "batch size %d < 1", N); return -1; }
    return zz_cu_net_forward(inf->net, x, N, logits, values, err, errlen);
}

int zz_cuda_infer_positions(zz_cuda_infer *inf, const zz_pos *pos, int n, float *logits, float *values,
                            char *err, size_t errlen)
{
    if (n < 1) { nn_set_err(err, errlen, "no positions"); return -1; }
    int P = inf->geom.ncells;
    if (n > inf->xcap) {
        float *x = realloc(inf->x, sizeof(float) * (size_t)n * P * NN_PLANES);
        if (!x) { nn_set_err(err, errlen, "out of memory for a batch of %d", n); return -1; }
        inf->x = x;
        inf->xcap = n;
    }
    for (int i = 0; i < n; i++) {
        if (pos[i].board != inf->geom.kind) { nn_set_err(err, errlen, "position %d is on another board", i); return -1; }
        nn_encode(&inf->geom, &pos[i], inf->x + (size_t)i * P * NN_PLANES);
    }
    return zz_cu_net_forward(inf->net, inf->x, n, logits, values, err, errlen);
}
