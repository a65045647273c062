/* evaluator.c — batching helper and the built-in evaluators (uniform, random rollouts). */
#include "eval_blend.h"
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

/* The rollout judge of the mix: a rollout_ctx of its own (rollouts, a random stream). */
static double rollout_judge_value(void *state, const zz_pos *pos) {
    rollout_ctx *c = state;
    return rollout_value(pos, c->rollouts, &c->rng);
}

static rollout_ctx *rollout_judge_new(int rollouts, uint64_t seed) {
    rollout_ctx *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->rollouts = rollouts > 0 ? rollouts : 1;
    c->rng = mcts_seed(seed ^ 0x6D69782D726F6C6CULL);
    return c;
}

/* The same rollouts from a stream of random numbers of their own (drawn from state's). */
static void *rollout_judge_copy(void *state) {
    rollout_ctx *c = state;
    return rollout_judge_new(c->rollouts, c->rng + ++c->copies);
}

mcts_evaluator *mcts_eval_mix_new(mcts_evaluator *inner, bool own, double lambda, int rollouts, uint64_t seed) {
    mcts_value_judge judge = {rollout_judge_value, rollout_judge_copy, free, rollout_judge_new(rollouts, seed)};
    if (!judge.state) {
        if (own) mcts_evaluator_free(inner);
        return NULL;
    }
    return mcts_eval_blend_new(inner, own, lambda, judge, "rollout");
}

bool mcts_eval_is_builtin(const char *name) {
    return !strcmp(name, "uniform") || !strcmp(name, "rollout") || !strncmp(name, "rollout:", 8);
}

mcts_evaluator *mcts_eval_by_name(const char *name, uint64_t seed, char *err, size_t errlen) {
    mcts_evaluator *e = NULL;
    if (!mcts_eval_is_builtin(name)) {
        char why[256];
        if ((e = mcts_eval_nn_new(name, why, sizeof why))) return e;
        snprintf(err, errlen, "weights '%s': %s (built-in evaluators: uniform, rollout, rollout:K)", name, why);
        return NULL;
    }
    if (!strcmp(name, "uniform")) e = mcts_eval_uniform_new();
    else if (!strcmp(name, "rollout")) e = mcts_eval_rollout_new(1, seed);
    else {                                                   /* "rollout:K" */
        char *end;
        errno = 0;
        long k = strtol(name + 8, &end, 10);
        if (end == name + 8 || *end || errno || k < 1 || k > MCTS_ROLLOUTS_MAX) {
            snprintf(err, errlen, "'%s': rollout:K needs K from 1 to %d", name, MCTS_ROLLOUTS_MAX);
            return NULL;
        }
        e = mcts_eval_rollout_new((int)k, seed);
    }
    if (!e) snprintf(err, errlen, "out of memory");
    return e;
}
