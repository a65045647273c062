/* eval_ab.c — leaf values blended with alpha-beta's judgement (mcts_eval_abmix_new, evaluator.h).
 *
 * For each item: the inner evaluator's priors, and value = (1 - lambda) * inner's value
 * + lambda * tanh(score / scale), where score is, from the item's mover's view, the capture
 * quiescence of the position (depth 0: mcts_ab_quiesce) or an alpha-beta search of `depth` plies
 * (mcts_ab_search), in ab.c's points (a captured white marble is 120); a won or lost game inside
 * the search is +-1 outright.  Measured against ab at 250 ms a move, it made the player weaker
 * (weights/LADDER.md, "Can alpha-beta help the network's search?"): kept as an option for later
 * experiments, used by no default.  The blend itself is eval_blend.c's. */
#include "eval_blend.h"
#include "ab.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The alpha-beta judge's state: its searcher (move stack and table) and settings. */
typedef struct {
    double scale;
    int depth;
    mcts_ab *ab;
} ab_judge;

/* The alpha-beta judgement of p in [-1, 1], from p->to_move's view. */
static double ab_judge_value(void *state, const zz_pos *p) {
    ab_judge *j = state;
    int v;
    mcts_ab_result r;
    if (j->depth == 0) v = mcts_ab_quiesce(j->ab, p);
    else v = mcts_ab_search(j->ab, p, j->depth, 0, &r) == 0 ? r.score : 0;
    if (v > MCTS_AB_WIN - MCTS_AB_MAX_PLY) return 1;
    if (v < -(MCTS_AB_WIN - MCTS_AB_MAX_PLY)) return -1;
    return tanh(v / j->scale);
}

static void ab_judge_release(void *state) {
    ab_judge *j = state;
    if (j) mcts_ab_free(j->ab);
    free(j);
}

static ab_judge *ab_judge_new(double scale, int depth) {
    ab_judge *j = calloc(1, sizeof *j);
    if (!j) return NULL;
    mcts_ab_config ac;
    mcts_ab_config_default(&ac);
    ac.tt_log2 = depth > 0 ? 16 : 0;          /* quiescence uses no table */
    if (!(j->ab = mcts_ab_new(&ac))) {
        free(j);
        return NULL;
    }
    j->scale = scale;
    j->depth = depth;
    return j;
}

/* A searcher of its own, the same settings. */
static void *ab_judge_copy(void *state) {
    ab_judge *j = state;
    return ab_judge_new(j->scale, j->depth);
}

mcts_evaluator *mcts_eval_abmix_new(mcts_evaluator *inner, bool own, double lambda, double scale, int depth) {
    depth = depth < 0 ? 0 : depth > MCTS_AB_MAX_DEPTH ? MCTS_AB_MAX_DEPTH : depth;
    mcts_value_judge judge = {ab_judge_value, ab_judge_copy, ab_judge_release, ab_judge_new(scale > 1 ? scale : 1, depth)};
    if (!judge.state) {
        if (own) mcts_evaluator_free(inner);
        return NULL;
    }
    char label[32];
    snprintf(label, sizeof label, "ab-d%d", depth);
    return mcts_eval_blend_new(inner, own, lambda, judge, label);
}
