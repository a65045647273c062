/* eval_nn.c — the network as an evaluator: a checkpoint (src/nn/checkpoint.h) folded into an
 * inference net (nn/infer.h) on the CPU; priors are the softmax of the factorised policy over
 * each position's legal moves (nn/policy.h), the value is the net's tanh output for the mover.
 * Positions it or one of its copies (clone: a search thread's) has answered before come from the
 * cache they share (eval_cache.h).  mcts_eval_net_items is the body every network evaluator shares
 * (eval_net.h), with its option of showing the network each position under a symmetry. */
#include "evaluator.h"
#include "mcts/eval_net.h"
#include "nn/checkpoint.h"
#include "nn/infer.h"
#include "nn/policy.h"
#include "game/symmetry.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NN_EVAL_MAX_BATCH = 256 };

typedef struct {
    nn_model *model;             /* the checkpoint's weights, kept for clone() */
    nn_infer *inf;
    zz_pos *pos;                 /* [NN_EVAL_MAX_BATCH] positions, contiguous for nn_infer */
    float *logits;               /* [NN_EVAL_MAX_BATCH][P][NN_HEADS] */
    float *values;               /* [NN_EVAL_MAX_BATCH] */
    long step;                   /* the checkpoint's */
    mcts_eval_cache *cache;      /* answers by position; NULL: none */
    bool by_symmetry;            /* each position evaluated under mcts_eval_position_sym's symmetry */
    char name[96];
} nn_ctx;

/* "nn(step N)", with ", bf16" or ", int8" when the convolutions are. */
static void name_nn(nn_ctx *c) {
    nn_precision p = nn_infer_precision(c->inf);
    snprintf(c->name, sizeof c->name, "nn(step %ld%s%s)", c->step, p == NN_PREC_F32 ? "" : ", ", p == NN_PREC_F32 ? "" : nn_precision_name(p));
}

void mcts_wrong_board_msg(zz_board_kind net_board, zz_board_kind pos_board, char *err, size_t errlen) {
    int rings = zz_board_get(pos_board)->rings;
    snprintf(err, errlen, "the network plays the %d-ring board, not the %d-ring one (carry it over with "
             "tools/train --rings %d --init NET --steps 1 --out DIR: DIR/gen-0000.ckpt)",
             zz_board_get(net_board)->rings, rings, rings);
}

/* An item's value while it waits for the network (outside [-1, 1], so never an answer). */
static const float AWAITING_NETWORK = 2.0f;

int mcts_eval_position_sym(const zz_pos *p) {
    return (int)((zz_hash(p) >> 40) % (uint64_t)zz_board_nsyms((zz_board_kind)p->board));
}

/* The network's logits for s(p), img[P][NN_HEADS], as logits for p: every head is per cell, so
 * p's row for cell a is s(p)'s row for cell s(a). */
static void logits_back(const nn_geom *g, const zz_sym *s, const float *img, float *out) {
    for (int r = 0; r < g->ncells; r++)
        memcpy(out + (size_t)r * NN_HEADS, img + (size_t)g->index[s->map[g->cell[r]]] * NN_HEADS, NN_HEADS * sizeof(float));
}

int mcts_eval_net_items(const nn_geom *g, mcts_net_run run, void *net, mcts_eval_item *items, int n, zz_pos *pos,
                        float *logits, float *values, mcts_eval_cache *cache, bool by_symmetry, char *err,
                        size_t errlen) {
    size_t per = (size_t)g->ncells * NN_HEADS;
    int misses = 0;
    for (int i = 0; i < n; i++) {      /* answer the stored positions now (logits[0..per) as scratch) */
        if (items[i].pos->board != g->kind) {
            mcts_wrong_board_msg(g->kind, (zz_board_kind)items[i].pos->board, err, errlen);
            return -1;
        }
        if (cache && mcts_eval_cache_get(cache, items[i].pos, logits, &items[i].value)) {
            nn_policy_priors(g, logits, items[i].pos, items[i].moves, items[i].nmoves, items[i].priors);
        } else {
            items[i].value = AWAITING_NETWORK;
            if (by_symmetry) zz_sym_pos(zz_board_sym(g->kind, mcts_eval_position_sym(items[i].pos)), items[i].pos, &pos[misses++]);
            else pos[misses++] = *items[i].pos;
        }
    }
    if (misses == 0) return 0;
    if (run(net, pos, misses, logits, values, err, errlen) != 0) return -1;
    /* pos[k] is the k-th item left waiting, in item order (a shared cache may answer one copy of a
     * position and not an earlier one: another thread's put came between the two lookups). */
    static _Thread_local float back[ZZ_MAX_RINGS * NN_HEADS];
    for (int i = 0, k = 0; i < n && k < misses; i++) {
        if (items[i].value != AWAITING_NETWORK) continue;
        const float *out = logits + (size_t)k * per;
        if (by_symmetry) {
            logits_back(g, zz_board_sym(g->kind, mcts_eval_position_sym(items[i].pos)), out, back);
            out = back;
        }
        nn_policy_priors(g, out, items[i].pos, items[i].moves, items[i].nmoves, items[i].priors);
        items[i].value = values[k];
        if (cache) mcts_eval_cache_put(cache, items[i].pos, out, values[k]);
        k++;
    }
    return 0;
}

int mcts_net_run_cpu(void *net, const zz_pos *pos, int n, float *logits, float *values, char *err, size_t errlen) {
    return nn_infer_positions(net, pos, n, logits, values, err, errlen);
}

static int nn_eval(mcts_evaluator *self, mcts_eval_item *items, int n, char *err, size_t errlen) {
    nn_ctx *c = self->ctx;
    return mcts_eval_net_items(nn_infer_geom(c->inf), mcts_net_run_cpu, c->inf, items, n, c->pos, c->logits, c->values,
                               c->cache, c->by_symmetry, err, errlen);
}

static void nn_destroy(mcts_evaluator *self) {
    nn_ctx *c = self->ctx;
    if (c) {
        nn_infer_free(c->inf);
        nn_model_free(c->model);
        mcts_eval_cache_free(c->cache);
        free(c->pos);
        free(c->logits);
        free(c->values);
        free(c);
    }
    free(self);
}

static mcts_evaluator *nn_clone(mcts_evaluator *self, char *err, size_t errlen);

/* An evaluator over model m (taken: freed with it, or here on failure), its convolutions in
 * precision p (which this CPU has), with a cache of cache_entries slots (0: none).  NULL with a
 * message. */
static mcts_evaluator *nn_evaluator(nn_model *m, long step, nn_precision p, size_t cache_entries, char *err,
                                    size_t errlen) {
    char why[256] = "out of memory";
    mcts_evaluator *e = calloc(1, sizeof *e);
    nn_ctx *c = calloc(1, sizeof *c);
    if (!e || !c) {
        nn_model_free(m);
        free(c);
        free(e);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->model = m;
    c->step = step;
    e->ctx = c;
    e->destroy = nn_destroy;
    if ((c->inf = nn_infer_create(m, why, sizeof why)) && nn_infer_set_precision(c->inf, p, why, sizeof why) == 0) {
        const nn_geom *g = nn_infer_geom(c->inf);
        c->pos = malloc(NN_EVAL_MAX_BATCH * sizeof *c->pos);
        c->logits = malloc((size_t)NN_EVAL_MAX_BATCH * g->ncells * NN_HEADS * sizeof *c->logits);
        c->values = malloc(NN_EVAL_MAX_BATCH * sizeof *c->values);
        c->cache = cache_entries ? mcts_eval_cache_new(cache_entries, (size_t)g->ncells * NN_HEADS) : NULL;
        if (!c->pos || !c->logits || !c->values || (cache_entries && !c->cache)) snprintf(why, sizeof why, "out of memory");
    }
    if (!c->inf || !c->pos || !c->logits || !c->values || (cache_entries && !c->cache)) {
        snprintf(err, errlen, "%s", why);
        nn_destroy(e);
        return NULL;
    }
    name_nn(c);
    e->name = c->name;
    e->max_batch = NN_EVAL_MAX_BATCH;
    e->evaluate = nn_eval;
    e->clone = nn_clone;
    return e;
}

/* The same weights and precision, fresh scratch, and the same cache (evaluator.h): what one
 * search thread's copy evaluated, the others find. */
static mcts_evaluator *nn_clone(mcts_evaluator *self, char *err, size_t errlen) {
    nn_ctx *c = self->ctx;
    char why[256];
    nn_model *m = nn_model_create(&c->model->cfg, NN_F32, 0, why, sizeof why);
    if (!m || nn_model_copy(m, c->model, why, sizeof why) != 0) {
        nn_model_free(m);
        snprintf(err, errlen, "%s", why);
        return NULL;
    }
    mcts_evaluator *e = nn_evaluator(m, c->step, nn_infer_precision(c->inf), 0, err, errlen);
    if (e && c->cache && !(((nn_ctx *)e->ctx)->cache = mcts_eval_cache_share(c->cache))) {
        mcts_evaluator_free(e);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (e) ((nn_ctx *)e->ctx)->by_symmetry = c->by_symmetry;
    return e;
}

mcts_evaluator *mcts_eval_nn_new(const char *path, char *err, size_t errlen) {
    char why[256];
    long step = 0;
    nn_model *m = nn_checkpoint_load(path, NN_F32, &step, why, sizeof why);
    if (!m) { snprintf(err, errlen, "%s", why); return NULL; }
    return nn_evaluator(m, step, nn_precision_default(), MCTS_EVAL_CACHE_DEFAULT, err, errlen);  /* available by construction */
}

/* e's context when e is mcts_eval_nn_new's, else NULL with a message. */
static nn_ctx *cpu_net(const mcts_evaluator *e, const char *what, char *err, size_t errlen) {
    if (e && e->evaluate == nn_eval) return e->ctx;
    snprintf(err, errlen, "%s applies to a CPU network only, not to '%s'", what, e && e->name ? e->name : "?");
    return NULL;
}

/* The cache's answers no longer hold (e's arithmetic or images changed): a shared table is left to
 * the copies and e gets an empty one of the same size; a table of e's own is emptied. */
static int forget_answers(mcts_evaluator *e, nn_ctx *c, char *err, size_t errlen) {
    if (!c->cache) return 0;
    if (!mcts_eval_cache_shared(c->cache)) {
        mcts_eval_cache_clear(c->cache);
        return 0;
    }
    size_t entries = mcts_eval_cache_entries(c->cache);
    mcts_eval_cache_free(c->cache);
    c->cache = NULL;
    return mcts_eval_nn_set_cache(e, entries, err, errlen);
}

int mcts_eval_nn_set_precision(mcts_evaluator *e, const char *precision, char *err, size_t errlen) {
    nn_ctx *c = cpu_net(e, "a precision", err, errlen);
    if (!c) return -1;
    nn_precision p;
    if (nn_precision_parse(precision, &p) != 0) {
        snprintf(err, errlen, "precision '%s': expected f32, bf16 or int8", precision);
        return -1;
    }
    if (nn_infer_set_precision(c->inf, p, err, errlen) != 0) return -1;
    name_nn(c);
    return forget_answers(e, c, err, errlen);            /* other arithmetic, other answers */
}

int mcts_eval_nn_set_by_symmetry(mcts_evaluator *e, bool on, char *err, size_t errlen) {
    nn_ctx *c = cpu_net(e, "evaluation under a symmetry", err, errlen);
    if (!c) return -1;
    if (c->by_symmetry == on) return 0;
    c->by_symmetry = on;
    return forget_answers(e, c, err, errlen);            /* other images, other answers */
}

int mcts_eval_nn_set_cache(mcts_evaluator *e, size_t entries, char *err, size_t errlen) {
    nn_ctx *c = cpu_net(e, "a cache", err, errlen);
    if (!c) return -1;
    if (entries > MCTS_EVAL_CACHE_MAX) {
        snprintf(err, errlen, "a cache of %zu entries: at most %d", entries, MCTS_EVAL_CACHE_MAX);
        return -1;
    }
    if (c->cache && entries && mcts_eval_cache_entries(c->cache) == mcts_eval_cache_slots_for(entries)) return 0;
    mcts_eval_cache *fresh = NULL;
    if (entries && !(fresh = mcts_eval_cache_new(entries, (size_t)nn_infer_geom(c->inf)->ncells * NN_HEADS))) {
        snprintf(err, errlen, "out of memory (a cache of %zu entries)", entries);
        return -1;
    }
    mcts_eval_cache_free(c->cache);
    c->cache = fresh;
    return 0;
}

mcts_eval_cache_stats mcts_eval_nn_cache_stats(const mcts_evaluator *e) {
    const nn_ctx *c = e && e->evaluate == nn_eval ? e->ctx : NULL;
    return c && c->cache ? mcts_eval_cache_get_stats(c->cache) : (mcts_eval_cache_stats){ 0, 0 };
}
