/* live_eval.c — the trained network as an evaluator with lock-free weight refreshes (live_eval.h).
 * It runs on the GPU (src/cuda) when zz_cuda_select() says one is usable, else on the CPU. */
#include "train/live_eval.h"
#include "cuda/backend.h"
#include "cuda/infer_cuda.h"
#include "mcts/eval_net.h"
#include "nn/infer.h"
#include "nn/policy.h"
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LIVE_MAX_BATCH = 512 };

typedef struct {
    nn_infer *inf;              /* the CPU net, or NULL when ... */
    zz_cuda_infer *gpu;         /* ... the GPU net is used */
    nn_model *staging;          /* written by the trainer while pending == 0 */
    _Atomic int pending;        /* 1: staging holds weights not yet folded */
    _Atomic long refreshes;
    _Atomic long long count, calls;
    zz_pos *pos;
    float *logits, *values;
    char name[64];
    char backend[400];          /* which backend runs the net, and why */
} live_ctx;

static const nn_geom *live_geom(const live_ctx *c) {
    return c->gpu ? zz_cuda_infer_geom(c->gpu) : nn_infer_geom(c->inf);
}

static int live_eval(mcts_evaluator *self, mcts_eval_item *items, int n, char *err, size_t errlen) {
    live_ctx *c = self->ctx;
    if (atomic_load_explicit(&c->pending, memory_order_acquire)) {
        int rc = c->gpu ? zz_cuda_infer_update(c->gpu, c->staging, err, errlen)
                        : nn_infer_update(c->inf, c->staging, err, errlen);
        if (rc != 0) return -1;
        atomic_fetch_add_explicit(&c->refreshes, 1, memory_order_relaxed);
        atomic_store_explicit(&c->pending, 0, memory_order_release);
    }
    int rc = mcts_eval_net_items(live_geom(c), c->gpu ? zz_cuda_net_run : mcts_net_run_cpu, c->gpu ? (void *)c->gpu : (void *)c->inf,
                                 items, n, c->pos, c->logits, c->values, err, errlen);
    if (rc != 0) return -1;
    atomic_fetch_add_explicit(&c->count, n, memory_order_relaxed);
    atomic_fetch_add_explicit(&c->calls, 1, memory_order_relaxed);
    return 0;
}

static void live_destroy(mcts_evaluator *self) {
    live_ctx *c = self->ctx;
    if (c) {
        nn_infer_free(c->inf);
        zz_cuda_infer_free(c->gpu);
        nn_model_free(c->staging);
        free(c->pos);
        free(c->logits);
        free(c->values);
        free(c);
    }
    free(self);
}

mcts_evaluator *tr_live_eval_new(const nn_model *m, char *err, size_t errlen) {
    mcts_evaluator *e = calloc(1, sizeof *e);
    live_ctx *c = calloc(1, sizeof *c);
    if (!e || !c) { free(e); free(c); snprintf(err, errlen, "out of memory"); return NULL; }
    e->ctx = c;
    e->destroy = live_destroy;
    char why[160];
    if (zz_cuda_select(why, sizeof why)) {
        char gerr[200];
        c->gpu = zz_cuda_infer_create(m, LIVE_MAX_BATCH, ZZ_CUDA_GRAPHS, gerr, sizeof gerr);
        if (c->gpu) snprintf(c->backend, sizeof c->backend, "GPU (%s)", why);
        else snprintf(c->backend, sizeof c->backend, "CPU (the GPU net failed: %s)", gerr);
    } else {
        snprintf(c->backend, sizeof c->backend, "CPU (%s)", why);
    }
    if (!c->gpu && !(c->inf = nn_infer_create(m, err, errlen))) { live_destroy(e); return NULL; }
    if (!(c->staging = nn_model_create(&m->cfg, NN_F32, 1, err, errlen))) { live_destroy(e); return NULL; }
    const nn_geom *g = live_geom(c);
    c->pos = malloc(LIVE_MAX_BATCH * sizeof *c->pos);
    c->logits = malloc((size_t)LIVE_MAX_BATCH * g->ncells * NN_HEADS * sizeof *c->logits);
    c->values = malloc(LIVE_MAX_BATCH * sizeof *c->values);
    if (!c->pos || !c->logits || !c->values) { live_destroy(e); snprintf(err, errlen, "out of memory"); return NULL; }
    snprintf(c->name, sizeof c->name, "live-nn(%dx%d)", m->cfg.blocks, m->cfg.channels);
    e->name = c->name;
    e->max_batch = LIVE_MAX_BATCH;
    e->evaluate = live_eval;
    return e;
}

int tr_live_eval_publish(mcts_evaluator *e, const nn_model *m, char *err, size_t errlen) {
    live_ctx *c = e->ctx;
    if (atomic_load_explicit(&c->pending, memory_order_acquire)) return 0;
    if (nn_model_copy(c->staging, m, err, errlen) != 0) return -1;
    atomic_store_explicit(&c->pending, 1, memory_order_release);
    return 1;
}

long tr_live_eval_refreshes(mcts_evaluator *e) {
    return atomic_load_explicit(&((live_ctx *)e->ctx)->refreshes, memory_order_relaxed);
}

long long tr_live_eval_count(mcts_evaluator *e) {
    return atomic_load_explicit(&((live_ctx *)e->ctx)->count, memory_order_relaxed);
}

long long tr_live_eval_calls(mcts_evaluator *e) {
    return atomic_load_explicit(&((live_ctx *)e->ctx)->calls, memory_order_relaxed);
}

const char *tr_live_eval_backend(mcts_evaluator *e) { return ((live_ctx *)e->ctx)->backend; }
