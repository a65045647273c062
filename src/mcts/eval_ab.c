/* eval_ab.c — leaf values blended with alpha-beta's judgement (mcts_eval_abmix_new, evaluator.h).
 *
 * For each item: the inner evaluator's priors, and value = (1 - lambda) * inner's value
 * + lambda * tanh(score / scale), where score is, from the item's mover's view, the capture
 * quiescence of the position (depth 0: mcts_ab_quiesce) or an alpha-beta search of `depth` plies
 * (mcts_ab_search), in ab.c's points (a captured white marble is 120); a won or lost game inside
 * the search is +-1 outright.  Measured against ab at 250 ms a move, it made the player weaker
 * (weights/README.md, "Can alpha-beta help the network's search?"): kept as an option for later
 * experiments, used by no default. */
#include "evaluator.h"
#include "ab.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    mcts_evaluator *inner;
    bool own;
    double lambda, scale;
    int depth;
    mcts_ab *ab;             /* this copy's searcher (its move stack and table) */
    char name[112];
} abmix_ctx;

/* The alpha-beta judgement of p in [-1, 1], from p->to_move's view. */
static double ab_value(abmix_ctx *c, const zz_pos *p) {
    int v;
    mcts_ab_result r;
    if (c->depth == 0) v = mcts_ab_quiesce(c->ab, p);
    else v = mcts_ab_search(c->ab, p, c->depth, 0, &r) == 0 ? r.score : 0;
    if (v > MCTS_AB_WIN - MCTS_AB_MAX_PLY) return 1;
    if (v < -(MCTS_AB_WIN - MCTS_AB_MAX_PLY)) return -1;
    return tanh(v / c->scale);
}

static int abmix_eval(mcts_evaluator *self, mcts_eval_item *items, int n, char *err, size_t errlen) {
    abmix_ctx *c = self->ctx;
    if (mcts_evaluate(c->inner, items, n, err, errlen) != 0) return -1;
    for (int i = 0; i < n; i++)
        items[i].value = (float)((1.0 - c->lambda) * items[i].value + c->lambda * ab_value(c, items[i].pos));
    return 0;
}

static void abmix_destroy(mcts_evaluator *self) {
    abmix_ctx *c = self->ctx;
    if (c) {
        if (c->own) mcts_evaluator_free(c->inner);
        mcts_ab_free(c->ab);
        free(c);
    }
    free(self);
}

static mcts_evaluator *abmix_clone(mcts_evaluator *self, char *err, size_t errlen) {
    abmix_ctx *c = self->ctx;
    mcts_evaluator *inner = mcts_evaluator_clone(c->inner, err, errlen);
    if (!inner) return NULL;
    mcts_evaluator *e = mcts_eval_abmix_new(inner, true, c->lambda, c->scale, c->depth);
    if (!e) snprintf(err, errlen, "out of memory");
    return e;
}

mcts_evaluator *mcts_eval_abmix_new(mcts_evaluator *inner, bool own, double lambda, double scale, int depth) {
    mcts_evaluator *e = calloc(1, sizeof *e);
    abmix_ctx *c = calloc(1, sizeof *c);
    mcts_ab_config ac;
    mcts_ab_config_default(&ac);
    ac.tt_log2 = depth > 0 ? 16 : 0;          /* quiescence uses no table */
    mcts_ab *ab = mcts_ab_new(&ac);
    if (!e || !c || !ab) {
        free(e);
        free(c);
        mcts_ab_free(ab);
        if (own) mcts_evaluator_free(inner);
        return NULL;
    }
    c->inner = inner;
    c->own = own;
    c->lambda = lambda < 0 ? 0 : lambda > 1 ? 1 : lambda;
    c->scale = scale > 1 ? scale : 1;
    c->depth = depth < 0 ? 0 : depth > MCTS_AB_MAX_DEPTH ? MCTS_AB_MAX_DEPTH : depth;
    c->ab = ab;
    snprintf(c->name, sizeof c->name, "%.60s+ab(%.2f,d%d)", inner->name ? inner->name : "?", c->lambda, c->depth);
    e->name = c->name;
    e->max_batch = inner->max_batch;
    e->evaluate = abmix_eval;
    e->destroy = abmix_destroy;
    e->clone = abmix_clone;
    e->ctx = c;
    return e;
}
