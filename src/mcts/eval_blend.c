/* eval_blend.c — leaf values blended with a second judge's (eval_blend.h). */
#include "eval_blend.h"
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    mcts_evaluator *inner;
    bool own;
    double lambda;
    mcts_value_judge judge;
    char label[32];
    char name[112];
} blend_ctx;

static int blend_eval(mcts_evaluator *self, mcts_eval_item *items, int n, char *err, size_t errlen) {
    blend_ctx *c = self->ctx;
    if (mcts_evaluate(c->inner, items, n, err, errlen) != 0) return -1;
    for (int i = 0; i < n; i++) {
        double judged = c->judge.value(c->judge.state, items[i].pos);
        items[i].value = (float)((1.0 - c->lambda) * items[i].value + c->lambda * judged);
    }
    return 0;
}

static void blend_destroy(mcts_evaluator *self) {
    blend_ctx *c = self->ctx;
    if (c) {
        if (c->own) mcts_evaluator_free(c->inner);
        c->judge.release(c->judge.state);
        free(c);
    }
    free(self);
}

/* A copy of the inner evaluator and of the judge, blended the same way; NULL with a message when
 * the inner one cannot be copied or memory is out. */
static mcts_evaluator *blend_clone(mcts_evaluator *self, char *err, size_t errlen) {
    blend_ctx *c = self->ctx;
    mcts_evaluator *inner = mcts_evaluator_clone(c->inner, err, errlen);
    if (!inner) return NULL;
    mcts_value_judge judge = c->judge;
    judge.state = c->judge.copy(c->judge.state);
    mcts_evaluator *e = judge.state ? mcts_eval_blend_new(inner, true, c->lambda, judge, c->label) : NULL;
    if (!judge.state) mcts_evaluator_free(inner);
    if (!e) snprintf(err, errlen, "out of memory");
    return e;
}

mcts_evaluator *mcts_eval_blend_new(mcts_evaluator *inner, bool own, double lambda, mcts_value_judge judge,
                                    const char *label) {
    mcts_evaluator *e = calloc(1, sizeof *e);
    blend_ctx *c = calloc(1, sizeof *c);
    if (!e || !c) {
        free(e);
        free(c);
        judge.release(judge.state);
        if (own) mcts_evaluator_free(inner);
        return NULL;
    }
    c->inner = inner;
    c->own = own;
    c->lambda = lambda < 0 ? 0 : lambda > 1 ? 1 : lambda;
    c->judge = judge;
    snprintf(c->label, sizeof c->label, "%s", label);
    snprintf(c->name, sizeof c->name, "%.60s+%s(%.2f)", inner->name ? inner->name : "?", c->label, c->lambda);
    e->name = c->name;
    e->max_batch = inner->max_batch;
    e->evaluate = blend_eval;
    e->destroy = blend_destroy;
    e->clone = blend_clone;
    e->ctx = c;
    return e;
}
