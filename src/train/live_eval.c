/* live_eval.c — the trained network as an evaluator with lock-free weight refreshes (live_eval.h).
 * It runs on the GPU (src/cuda) when zz_cuda_select() says one is usable, else on the CPU, and on
 * the CPU from the first failure of the GPU on (the same weights: the ones it last took).
 *
 * Versions: every publish numbers its weights (1, 2, ...; the starting weights are 0); a lane
 * knows the version it stages and the one it runs.  The CPU nets' cache of answers
 * (tr_live_eval_set_cache) is one table for the evaluator and its lanes, each lane's answers
 * tagged with the version it runs, so a lane finds only answers of its own weights. */
#include "train/live_eval.h"
#include "cuda/backend.h"
#include "cuda/infer_cuda.h"
#include "mcts/eval_cache.h"
#include "mcts/eval_net.h"
#include "nn/infer.h"
#include "nn/policy.h"
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LIVE_MAX_BATCH = 1024, LIVE_MAX_LANES = 64 };

typedef struct live_ctx live_ctx;
struct live_ctx {
    nn_infer *inf;              /* the CPU net: from the start, or since the GPU net failed */
    zz_cuda_infer *gpu;         /* the GPU net, or NULL */
    nn_precision prec;          /* the CPU net's convolutions */
    nn_model *staging;          /* written by the trainer while pending == 0 */
    nn_model *current;          /* the weights the net runs: the evaluating thread's own (a refresh
                                   swaps it with staging before lowering the flag) */
    _Atomic int pending;        /* 1: staging holds weights not yet folded */
    uint64_t staged_version;    /* the staging model's version (written with it, while pending == 0) */
    uint64_t current_version;   /* the current model's: the evaluating thread's */
    uint64_t published;         /* the first evaluator's: versions published so far */
    mcts_eval_cache *cache;     /* answers by position, tagged current_version; NULL: none */
    _Atomic long refreshes;
    _Atomic long long count, calls;
    zz_pos *pos;
    float *logits, *values;
    char name[64];
    char backend[400];          /* which backend runs the net, and why */
    /* Lanes (clone): copies with nets of their own for other evaluating threads.  The first
     * evaluator lists its lanes; publish stages the weights in each, the counts add them up.
     * Lanes are made and freed while no thread evaluates or publishes. */
    live_ctx *first;            /* a lane: the evaluator it was cloned from (NULL once that is freed) */
    live_ctx *lanes[LIVE_MAX_LANES];
    int nlanes;
    long long lanes_gone_count, lanes_gone_calls;   /* counts of lanes already freed */
};

/* The CPU net over m in precision p.  NULL with a message. */
static nn_infer *cpu_net(const nn_model *m, nn_precision p, char *err, size_t errlen) {
    nn_infer *inf = nn_infer_create(m, err, errlen);
    if (inf && nn_infer_set_precision(inf, p, err, errlen) != 0) {
        nn_infer_free(inf);
        return NULL;
    }
    return inf;
}

static const nn_geom *live_geom(const live_ctx *c) {
    return c->gpu ? zz_cuda_infer_geom(c->gpu) : nn_infer_geom(c->inf);
}

/* The GPU net failed (why): the CPU net on the current weights from now on, a warning on stderr,
 * the backend line saying so.  0, or -1 with a message when the CPU net cannot start either. */
static int to_cpu(live_ctx *c, const char *why, char *err, size_t errlen) {
    char cerr[200];
    if (!(c->inf = cpu_net(c->current, c->prec, cerr, sizeof cerr))) {
        snprintf(err, errlen, "the GPU network failed (%.200s), and the CPU one could not start: %s", why, cerr);
        return -1;
    }
    zz_cuda_infer_free(c->gpu);
    c->gpu = NULL;
    snprintf(c->backend, sizeof c->backend, "CPU (the GPU network failed: %.300s)", why);
    fprintf(stderr, "zertz: warning: the self-play network failed on the GPU (%s); evaluating on the CPU from now on\n", why);
    return 0;
}

/* Take the staged weights: they become current (staging gets the old ones, for the trainer's next
 * offer), the net is refolded from them, the flag lowered.  0, or -1 with a message. */
static int take_weights(live_ctx *c, char *err, size_t errlen) {
    nn_model *t = c->current;
    c->current = c->staging;
    c->staging = t;
    c->current_version = c->staged_version;
    if (c->cache) mcts_eval_cache_set_tag(c->cache, c->current_version);
    char why[320];
    if (c->gpu && zz_cuda_infer_update(c->gpu, c->current, why, sizeof why) != 0 && to_cpu(c, why, err, errlen) != 0)
        return -1;
    if (!c->gpu && nn_infer_update(c->inf, c->current, err, errlen) != 0) return -1;
    atomic_fetch_add_explicit(&c->refreshes, 1, memory_order_relaxed);
    atomic_store_explicit(&c->pending, 0, memory_order_release);
    return 0;
}

/* The GPU net keeps no cache (its answers are not the CPU nets'; GPU runs refresh their weights
 * every few hundred milliseconds). */
static int run_net(live_ctx *c, mcts_eval_item *items, int n, char *err, size_t errlen) {
    return mcts_eval_net_items(live_geom(c), c->gpu ? zz_cuda_net_run : mcts_net_run_cpu, c->gpu ? (void *)c->gpu : (void *)c->inf,
                               items, n, c->pos, c->logits, c->values, c->gpu ? NULL : c->cache, false, err, errlen);
}

static int live_eval(mcts_evaluator *self, mcts_eval_item *items, int n, char *err, size_t errlen) {
    live_ctx *c = self->ctx;
    if (atomic_load_explicit(&c->pending, memory_order_acquire) && take_weights(c, err, errlen) != 0) return -1;
    char why[320];
    if (c->gpu && run_net(c, items, n, why, sizeof why) != 0 && to_cpu(c, why, err, errlen) != 0) return -1;
    if (!c->gpu && run_net(c, items, n, err, errlen) != 0) return -1;
    atomic_fetch_add_explicit(&c->count, n, memory_order_relaxed);
    atomic_fetch_add_explicit(&c->calls, 1, memory_order_relaxed);
    return 0;
}

/* Unlink c from its first evaluator (its counts kept there), and its own lanes from it. */
static void unlink_lanes(live_ctx *c) {
    live_ctx *f = c->first;
    if (f) {
        f->lanes_gone_count += atomic_load(&c->count);
        f->lanes_gone_calls += atomic_load(&c->calls);
        for (int i = 0; i < f->nlanes; i++)
            if (f->lanes[i] == c) { f->lanes[i] = f->lanes[--f->nlanes]; break; }
    }
    for (int i = 0; i < c->nlanes; i++) c->lanes[i]->first = NULL;
}

static void live_destroy(mcts_evaluator *self) {
    live_ctx *c = self->ctx;
    if (c) {
        unlink_lanes(c);
        nn_infer_free(c->inf);
        zz_cuda_infer_free(c->gpu);
        nn_model_free(c->staging);
        nn_model_free(c->current);
        mcts_eval_cache_free(c->cache);
        free(c->pos);
        free(c->logits);
        free(c->values);
        free(c);
    }
    free(self);
}

static mcts_evaluator *live_clone(mcts_evaluator *self, char *err, size_t errlen);

mcts_evaluator *tr_live_eval_new(const nn_model *m, int precision, char *err, size_t errlen) {
    mcts_evaluator *e = calloc(1, sizeof *e);
    live_ctx *c = calloc(1, sizeof *c);
    if (!e || !c) { free(e); free(c); snprintf(err, errlen, "out of memory"); return NULL; }
    c->prec = (nn_precision)precision;
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
    if (!c->gpu && !(c->inf = cpu_net(m, c->prec, err, errlen))) { live_destroy(e); return NULL; }
    if (!c->gpu && c->prec != NN_PREC_F32)
        snprintf(c->backend + strlen(c->backend), sizeof c->backend - strlen(c->backend), ", %s convolutions",
                 nn_precision_name(c->prec));
    if (!(c->staging = nn_model_create(&m->cfg, NN_F32, 1, err, errlen)) ||
        !(c->current = nn_model_create(&m->cfg, NN_F32, 1, err, errlen)) || nn_model_copy(c->current, m, err, errlen) != 0) {
        live_destroy(e);
        return NULL;
    }
    const nn_geom *g = live_geom(c);
    c->pos = malloc(LIVE_MAX_BATCH * sizeof *c->pos);
    c->logits = malloc((size_t)LIVE_MAX_BATCH * g->ncells * NN_HEADS * sizeof *c->logits);
    c->values = malloc(LIVE_MAX_BATCH * sizeof *c->values);
    if (!c->pos || !c->logits || !c->values) { live_destroy(e); snprintf(err, errlen, "out of memory"); return NULL; }
    snprintf(c->name, sizeof c->name, "live-nn(%dx%d)", m->cfg.blocks, m->cfg.channels);
    e->name = c->name;
    e->max_batch = LIVE_MAX_BATCH;
    e->evaluate = live_eval;
    e->clone = live_clone;
    return e;
}

/* A lane: the same network on the weights self runs now, with a net of its own (evaluator.h). */
static mcts_evaluator *live_clone(mcts_evaluator *self, char *err, size_t errlen) {
    live_ctx *c = self->ctx;
    live_ctx *f = c->first ? c->first : c;              /* a lane of a lane joins the first */
    if (f->nlanes >= LIVE_MAX_LANES) {
        snprintf(err, errlen, "at most %d copies of the live network", LIVE_MAX_LANES);
        return NULL;
    }
    mcts_evaluator *e = tr_live_eval_new(c->current, c->prec, err, errlen);
    if (!e) return NULL;
    live_ctx *k = e->ctx;
    k->current_version = k->staged_version = c->current_version;
    if (c->cache && !(k->cache = mcts_eval_cache_share(c->cache))) {     /* with c's tag: c's weights */
        mcts_evaluator_free(e);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    k->first = f;
    f->lanes[f->nlanes++] = k;
    return e;
}

/* Stage m (version v) in c unless c has not taken its previous weights yet.  1 staged, 0 busy,
 * -1 error. */
static int stage(live_ctx *c, const nn_model *m, uint64_t v, char *err, size_t errlen) {
    if (atomic_load_explicit(&c->pending, memory_order_acquire)) return 0;
    if (nn_model_copy(c->staging, m, err, errlen) != 0) return -1;
    c->staged_version = v;
    atomic_store_explicit(&c->pending, 1, memory_order_release);
    return 1;
}

int tr_live_eval_publish(mcts_evaluator *e, const nn_model *m, char *err, size_t errlen) {
    live_ctx *c = e->ctx;
    uint64_t v = ++c->published;
    int all = stage(c, m, v, err, errlen);
    for (int i = 0; all >= 0 && i < c->nlanes; i++) {
        int r = stage(c->lanes[i], m, v, err, errlen);
        all = r < 0 ? -1 : all && r;
    }
    return all;
}

int tr_live_eval_open(mcts_evaluator *e) {
    live_ctx *c = e->ctx;
    int n = !atomic_load_explicit(&c->pending, memory_order_acquire);
    for (int i = 0; i < c->nlanes; i++) n += !atomic_load_explicit(&c->lanes[i]->pending, memory_order_acquire);
    return n;
}

long tr_live_eval_refreshes(mcts_evaluator *e) {
    return atomic_load_explicit(&((live_ctx *)e->ctx)->refreshes, memory_order_relaxed);
}

long long tr_live_eval_count(mcts_evaluator *e) {
    live_ctx *c = e->ctx;
    long long n = atomic_load_explicit(&c->count, memory_order_relaxed) + c->lanes_gone_count;
    for (int i = 0; i < c->nlanes; i++) n += atomic_load_explicit(&c->lanes[i]->count, memory_order_relaxed);
    return n;
}

long long tr_live_eval_calls(mcts_evaluator *e) {
    live_ctx *c = e->ctx;
    long long n = atomic_load_explicit(&c->calls, memory_order_relaxed) + c->lanes_gone_calls;
    for (int i = 0; i < c->nlanes; i++) n += atomic_load_explicit(&c->lanes[i]->calls, memory_order_relaxed);
    return n;
}

const char *tr_live_eval_backend(mcts_evaluator *e) { return ((live_ctx *)e->ctx)->backend; }

int tr_live_eval_set_cache(mcts_evaluator *e, size_t entries, char *err, size_t errlen) {
    live_ctx *c = e->ctx;
    if (c->first || c->nlanes) {
        snprintf(err, errlen, "a cache is set before the evaluator is copied");
        return -1;
    }
    if (entries > MCTS_EVAL_CACHE_MAX) {
        snprintf(err, errlen, "a cache of %zu entries: at most %d", entries, MCTS_EVAL_CACHE_MAX);
        return -1;
    }
    mcts_eval_cache *fresh = NULL;
    if (c->gpu) entries = 0;                    /* the GPU net keeps none (run_net) */
    if (entries && !(fresh = mcts_eval_cache_new(entries, (size_t)live_geom(c)->ncells * NN_HEADS))) {
        snprintf(err, errlen, "out of memory (a cache of %zu entries)", entries);
        return -1;
    }
    if (fresh) mcts_eval_cache_set_tag(fresh, c->current_version);
    mcts_eval_cache_free(c->cache);
    c->cache = fresh;
    return 0;
}

mcts_eval_cache_stats tr_live_eval_cache_stats(mcts_evaluator *e) {
    live_ctx *c = e->ctx;
    return c->cache ? mcts_eval_cache_get_stats(c->cache) : (mcts_eval_cache_stats){ 0, 0 };
}
