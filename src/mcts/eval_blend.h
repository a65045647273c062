/* eval_blend.h — an evaluator whose leaf values blend an inner evaluator's with a second judge's:
 * inner's priors, and value = (1 - lambda) * inner's value + lambda * judge's value.  The two
 * blends of evaluator.h are built on it: mcts_eval_mix_new (random rollouts, evaluator.c) and
 * mcts_eval_abmix_new (alpha-beta, eval_ab.c).  Internal to src/mcts. */
#ifndef MCTS_EVAL_BLEND_H
#define MCTS_EVAL_BLEND_H

#include "evaluator.h"

/* The second judge: value(state, pos) in [-1, 1] for pos->to_move (pos is not over); copy(state)
 * a judge with a state of its own for another thread (NULL when out of memory); release(state)
 * frees it.  value() is called by one thread at a time, so the state may hold scratch. */
typedef struct mcts_value_judge {
    double (*value)(void *state, const zz_pos *pos);
    void *(*copy)(void *state);
    void (*release)(void *state);
    void *state;
} mcts_value_judge;

/* The blend of inner and judge with weight lambda (clamped to [0, 1]), named "INNER+LABEL(λ)".
 * It owns the judge's state (released with the blend, also when this fails) and, with own, inner
 * (freed likewise).  Its copy copies inner and the judge.  NULL on out-of-memory. */
mcts_evaluator *mcts_eval_blend_new(mcts_evaluator *inner, bool own, double lambda, mcts_value_judge judge,
                                    const char *label);

#endif
