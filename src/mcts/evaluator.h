/* evaluator.h — the one interface between search and position evaluation: a batch of positions
 * in, for each a prior over its legal moves and a value out.  The network (CPU or GPU), the
 * uniform evaluator, the random-rollout evaluator and test doubles all implement it; PUCT and
 * the batcher (batcher.h) only ever call mcts_evaluate.
 *
 * Contract for an implementation:
 *   - items[i].moves holds the legal moves of items[i].pos in zz_gen_moves order (nmoves ≥ 1;
 *     positions handed over are never over); write items[i].priors[0..nmoves): non-negative,
 *     summing to 1, aligned with moves; write items[i].value in [-1, 1]: the expected result
 *     for items[i].pos->to_move (+1 win, -1 loss, 0 draw);
 *   - evaluate() is called by one thread at a time for a given evaluator (the batcher's thread,
 *     or the searching thread in single-thread mode), so it may keep scratch buffers in ctx;
 *     n ≤ max_batch when max_batch > 0 (mcts_evaluate splits larger batches);
 *   - it returns 0, or -1 with a message in err (the search then stops with that error). */
#ifndef MCTS_EVALUATOR_H
#define MCTS_EVALUATOR_H

#include "game/position.h"
#include "mcts/eval_cache.h"
#include <stdbool.h>
#include <stddef.h>

typedef struct mcts_eval_item {
    const zz_pos *pos;        /* in: the position (not over) */
    const zz_move *moves;     /* in: its legal moves, zz_gen_moves order */
    int nmoves;               /* in: number of legal moves (≥ 1) */
    float *priors;            /* out: nmoves probabilities aligned with moves */
    float value;              /* out: value in [-1, 1] for pos->to_move */
} mcts_eval_item;

typedef struct mcts_evaluator mcts_evaluator;
struct mcts_evaluator {
    const char *name;
    int max_batch;            /* most items per evaluate() call; 0 = any */
    int (*evaluate)(mcts_evaluator *self, mcts_eval_item *items, int n, char *err, size_t errlen);
    void (*destroy)(mcts_evaluator *self);   /* frees ctx and self; may be NULL (static object) */
    void *ctx;
    /* Optional (NULL: cannot be copied): a new evaluator giving the same answers as self (random
     * rollouts: from a stream of their own), with scratch of its own, so that another thread may
     * call it while self is in use; free it with mcts_evaluator_free.  Call it while no thread
     * evaluates with self.  NULL with a message when out of memory.  The CPU network, the uniform,
     * rollout, mix and alpha-beta mix evaluators and training's live network (train/live_eval.h)
     * have it; PUCT gives each search thread one (puct.h), self-play each evaluator thread. */
    mcts_evaluator *(*clone)(mcts_evaluator *self, char *err, size_t errlen);
};

/* Evaluate n items (in chunks of max_batch).  Returns 0 or -1 with a message. */
int mcts_evaluate(mcts_evaluator *e, mcts_eval_item *items, int n, char *err, size_t errlen);
void mcts_evaluator_free(mcts_evaluator *e);
/* e->clone(e), or NULL with a message when e cannot be copied. */
mcts_evaluator *mcts_evaluator_clone(mcts_evaluator *e, char *err, size_t errlen);

/* Uniform priors, value 0: the network-free baseline and the PUCT speed benchmark. */
mcts_evaluator *mcts_eval_uniform_new(void);
/* Uniform priors, value = mean result of `rollouts` uniformly random games from the position
 * (zz_random_move): PUCT that plays sensibly without a network. */
mcts_evaluator *mcts_eval_rollout_new(int rollouts, uint64_t seed);
/* AlphaGo's leaf mixing: inner's priors, and value = (1 - lambda) * inner's value + lambda * the
 * mean result of `rollouts` uniformly random games from the position (a rollout costs
 * microseconds here, a network evaluation tens of them).  lambda is clamped to [0, 1].  With own,
 * inner is freed with the mix (also when this fails).  NULL on out-of-memory.  This blend and the
 * alpha-beta one below share one wrapper (eval_blend.h). */
mcts_evaluator *mcts_eval_mix_new(mcts_evaluator *inner, bool own, double lambda, int rollouts, uint64_t seed);
/* The network of a checkpoint file (src/nn), on the CPU: priors = softmax of the factorised
 * policy over the legal moves, value = the value head.  NULL with a message (missing or damaged
 * file, out of memory). */
mcts_evaluator *mcts_eval_nn_new(const char *path, char *err, size_t errlen);
/* The arithmetic of a CPU network evaluator's convolutions: "f32", "bf16" or "int8" (src/nn/infer.h).
 * It starts as nn_precision_default() says: ZZ_NN_PRECISION, else int8 where the CPU has it.  -1
 * with a message when e is not mcts_eval_nn_new's, the name is none of these, or the CPU lacks the
 * instructions. */
int mcts_eval_nn_set_precision(mcts_evaluator *e, const char *precision, char *err, size_t errlen);
/* A CPU network evaluator's cache of answers by position (eval_cache.h): `entries` slots (rounded
 * down to a power of two; 0: none).  mcts_eval_nn_new starts with MCTS_EVAL_CACHE_DEFAULT; a copy
 * (clone) shares its original's table (a search thread's answers are the others'); set here, or
 * to another precision, an evaluator leaves the table it shared and gets one of its own.  -1 with
 * a message when e is not mcts_eval_nn_new's, entries is over MCTS_EVAL_CACHE_MAX, or out of
 * memory (the cache is then as it was). */
int mcts_eval_nn_set_cache(mcts_evaluator *e, size_t entries, char *err, size_t errlen);
/* With on, a CPU network evaluator shows the network each position under a symmetry of the board
 * drawn from the position's hash (eval_net.h: mcts_eval_position_sym), the answer mapped back:
 * the network is not equivariant (weights/LADDER.md), so this decorrelates its errors across the
 * positions of a search.  Off by default; copies follow their original.  -1 with a message when
 * e is not mcts_eval_nn_new's, or out of memory (the cache's answers are forgotten). */
int mcts_eval_nn_set_by_symmetry(mcts_evaluator *e, bool on, char *err, size_t errlen);
/* Its lookups and hits so far (zeros without a cache, or for another evaluator). */
mcts_eval_cache_stats mcts_eval_nn_cache_stats(const mcts_evaluator *e);
/* Leaf values blended with alpha-beta (eval_ab.c): inner's priors, and value = (1 - lambda) *
 * inner's value + lambda * tanh(score / scale), score = the capture quiescence of the position
 * (depth 0) or an alpha-beta search of depth plies, in ab.h's points (a white marble is 120).
 * With own, inner is freed with it (also when this fails).  NULL on out-of-memory. */
mcts_evaluator *mcts_eval_abmix_new(mcts_evaluator *inner, bool own, double lambda, double scale, int depth);
/* Leaf values taken at quiet positions (eval_quiet.c): inner's priors; for a position whose mover
 * must capture, the value of its capture tree played out (every capture of either side) to quiet
 * positions valued by inner, or finished games valued exactly, minimaxed; a tree of more than
 * max_nodes positions keeps inner's value.  With own, inner is freed with it (also when this
 * fails).  NULL on out-of-memory. */
mcts_evaluator *mcts_eval_quiet_new(mcts_evaluator *inner, bool own, int max_nodes);
/* An evaluator by name: "uniform", "rollout", "rollout:K" (K from 1 to MCTS_ROLLOUTS_MAX), or else
 * a checkpoint file.  NULL with a message when it cannot be built. */
enum { MCTS_ROLLOUTS_MAX = 1000 };
mcts_evaluator *mcts_eval_by_name(const char *name, uint64_t seed, char *err, size_t errlen);
/* Whether mcts_eval_by_name reads name as a built-in evaluator ("uniform", "rollout",
 * "rollout:...", K unchecked) rather than as a checkpoint file. */
bool mcts_eval_is_builtin(const char *name);

#endif
