/* evaluator.c — batching helper and the built-in evaluators (uniform, random rollouts). */
#include "evaluator.h"
#include "rand.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mcts_evaluate(mcts_evaluator *e, mcts_eval_item *items, int n, char *err, size_t errlen) {
    int step = e->max_batch > 0 ? e->max_batch : n;
    for (int i = 0; i < n; i += step) {
        int k = n - i < step ? n - i : step;
        if (e->evaluate(e, items + i, k, err, errlen) != 0) return -1;
    }
    return 0;
}

void mcts_evaluator_free(mcts_evaluator *e) {
    if (e && e->destroy) e->destroy(e);
}

mcts_evaluator *mcts_evaluator_clone(mcts_evaluator *e, char *err, size_t errlen) {
    if (!e->clone) {
        snprintf(err, errlen, "the evaluator %s cannot be copied for another thread", e->name ? e->name : "?");
        return NULL;
    }
    return e->clone(e, err, errlen);
}

static void fill_uniform(mcts_eval_item *it) {
    float p = 1.0f / (float)it->nmoves;
    for (int j = 0; j < it->nmoves; j++) it->priors[j] = p;
}

static int uniform_eval(mcts_evaluator *self, mcts_eval_item *items, int n, char *err, size_t errlen) {
    for (int i = 0; i < n; i++) {
        fill_uniform(&items[i]);
        items[i].value = 0.0f;
    }
    return 0;
}

static void free_self(mcts_evaluator *self) {
    free(self->ctx);
    free(self);
}

/* The uniform evaluator keeps no state: a copy is another one. */
static mcts_evaluator *uniform_clone(mcts_evaluator *self, char *err, size_t errlen) {
    (void)self;
    mcts_evaluator *e = mcts_eval_uniform_new();
    if (!e) snprintf(err, errlen, "out of memory");
    return e;
}

mcts_evaluator *mcts_eval_uniform_new(void) {
    mcts_evaluator *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->name = "uniform";
    e->evaluate = uniform_eval;
    e->destroy = free_self;
    e->clone = uniform_clone;
    return e;
}

typedef struct { int rollouts; uint64_t rng, copies; } rollout_ctx;

/* Mean result of `rollouts` uniformly random games from pos, for pos->to_move. */
static double rollout_value(const zz_pos *pos, int rollouts, uint64_t *rng) {
    int me = pos->to_move;
    double sum = 0;
    for (int r = 0; r < rollouts; r++) {
        zz_pos p = *pos;
        while (!zz_over(&p)) zz_apply(&p, zz_random_move(&p, rng), NULL);
        sum += p.winner < 0 ? 0.0 : p.winner == me ? 1.0 : -1.0;
    }
    return sum / rollouts;
}

static int rollout_eval(mcts_evaluator *self, mcts_eval_item *items, int n, char *err, size_t errlen) {
    rollout_ctx *c = self->ctx;
    for (int i = 0; i < n; i++) {
        fill_uniform(&items[i]);
        items[i].value = (float)rollout_value(items[i].pos, c->rollouts, &c->rng);
    }
    return 0;
}

static mcts_evaluator *rollout_clone(mcts_evaluator *self, char *err, size_t errlen);

mcts_evaluator *mcts_eval_rollout_new(int rollouts, uint64_t seed) {
    mcts_evaluator *e = calloc(1, sizeof *e);
    rollout_ctx *c = calloc(1, sizeof *c);
    if (!e || !c) { free(e); free(c); return NULL; }
    c->rollouts = rollouts > 0 ? rollouts : 1;
    c->rng = mcts_seed(seed ^ 0x726F6C6C6F7574ULL);
    e->name = "rollout";
    e->evaluate = rollout_eval;
    e->destroy = free_self;
    e->clone = rollout_clone;
    e->ctx = c;
    return e;
}

/* The same rollouts from a stream of random numbers of its own (drawn from self's). */
static mcts_evaluator *rollout_clone(mcts_evaluator *self, char *err, size_t errlen) {
    rollout_ctx *c = self->ctx;
    mcts_evaluator *e = mcts_eval_rollout_new(c->rollouts, c->rng + ++c->copies);
    if (!e) snprintf(err, errlen, "out of memory");
    return e;
}

typedef struct {
    mcts_evaluator *inner;
    bool own;
    double lambda;
    int rollouts;
    uint64_t rng, copies;
    char name[96];
} mix_ctx;

static int mix_eval(mcts_evaluator *self, mcts_eval_item *items, int n, char *err, size_t errlen) {
    mix_ctx *c = self->ctx;
    if (mcts_evaluate(c->inner, items, n, err, errlen) != 0) return -1;
    for (int i = 0; i < n; i++) {
        double r = rollout_value(items[i].pos, c->rollouts, &c->rng);
        items[i].value = (float)((1.0 - c->lambda) * items[i].value + c->lambda * r);
    }
    return 0;
}

static void mix_destroy(mcts_evaluator *self) {
    mix_ctx *c = self->ctx;
    if (c && c->own) mcts_evaluator_free(c->inner);
    free(c);
    free(self);
}

/* A copy of the inner evaluator, mixed the same way (rollouts from a stream of their own); NULL
 * when the inner one cannot be copied. */
static mcts_evaluator *mix_clone(mcts_evaluator *self, char *err, size_t errlen) {
    mix_ctx *c = self->ctx;
    mcts_evaluator *inner = mcts_evaluator_clone(c->inner, err, errlen);
    if (!inner) return NULL;
    mcts_evaluator *e = mcts_eval_mix_new(inner, true, c->lambda, c->rollouts, c->rng + ++c->copies);
    if (!e) snprintf(err, errlen, "out of memory");
    return e;
}

mcts_evaluator *mcts_eval_mix_new(mcts_evaluator *inner, bool own, double lambda, int rollouts, uint64_t seed) {
    mcts_evaluator *e = calloc(1, sizeof *e);
    mix_ctx *c = calloc(1, sizeof *c);
    if (!e || !c) {
        free(e);
        free(c);
        if (own) mcts_evaluator_free(inner);
        return NULL;
    }
    c->inner = inner;
    c->own = own;
    c->lambda = lambda < 0 ? 0 : lambda > 1 ? 1 : lambda;
    c->rollouts = rollouts > 0 ? rollouts : 1;
    c->rng = mcts_seed(seed ^ 0x6D69782D726F6C6CULL);
    snprintf(c->name, sizeof c->name, "%.60s+rollout(%.2f)", inner->name ? inner->name : "?", c->lambda);
    e->name = c->name;
    e->max_batch = inner->max_batch;
    e->evaluate = mix_eval;
    e->destroy = mix_destroy;
    e->clone = mix_clone;
    e->ctx = c;
    return e;
}

mcts_evaluator *mcts_eval_by_name(const char *name, uint64_t seed, char *err, size_t errlen) {
    mcts_evaluator *e = NULL;
    if (!strcmp(name, "uniform")) e = mcts_eval_uniform_new();
    else if (!strcmp(name, "rollout")) e = mcts_eval_rollout_new(1, seed);
    else if (!strncmp(name, "rollout:", 8)) {
        char *end;
        errno = 0;
        long k = strtol(name + 8, &end, 10);
        if (end == name + 8 || *end || errno || k < 1 || k > MCTS_ROLLOUTS_MAX) {
            snprintf(err, errlen, "'%s': rollout:K needs K from 1 to %d", name, MCTS_ROLLOUTS_MAX);
            return NULL;
        }
        e = mcts_eval_rollout_new((int)k, seed);
    } else {
        char why[256];
        if ((e = mcts_eval_nn_new(name, why, sizeof why))) return e;
        snprintf(err, errlen, "weights '%s': %s (built-in evaluators: uniform, rollout, rollout:K)", name, why);
        return NULL;
    }
    if (!e) snprintf(err, errlen, "out of memory");
    return e;
}
