/* uct.h — UCT with uniformly random rollouts: the baseline player (`uct:N`).
 *
 * Children are opened lazily in a seeded random order (order.h: the k-th child's move is
 * computed directly, so the ~2,000 moves of an opening are never listed), under progressive widening
 * (at most max(1, pw_c * N^pw_alpha) children at a node of N visits) and first-play urgency (an
 * unopened child counts as one visit of value fpu).  Selection maximises
 * Q + c_uct * sqrt(ln N / n), Q in [-1, 1] from the view of the player choosing.
 *
 * With a prior evaluator (prior_ev), a node that has been visited prior_visits times gets its
 * moves sorted once by the evaluator's priors (the children already opened first, in their slots;
 * then the others, most probable first: the node's edge list), and widening follows that order.
 *
 * Threads share one tree (see tree.h): atomic packed statistics, virtual loss, CAS claims of
 * children, per-thread node caches.  threads == 1 runs in the caller and is deterministic:
 * the same seed and the same calls give the same tree. */
#ifndef MCTS_UCT_H
#define MCTS_UCT_H

#include "evaluator.h"
#include "tree.h"

typedef struct mcts_uct_config {
    uint64_t seed;            /* random seed (0 is replaced by a fixed constant) */
    int threads;              /* search threads; 1 = deterministic, in the calling thread */
    double c_uct;             /* exploration constant (values in [-1, 1]) */
    double fpu;               /* first-play urgency: value of an unopened child */
    double pw_c, pw_alpha;    /* progressive widening: children ≤ max(1, pw_c * N^pw_alpha) */
    int virtual_loss;         /* visits in flight per descent (≥ 1) */
    int root_win_check;       /* mcts_uct_choose plays an immediately winning move unsearched */
    uint32_t max_nodes;       /* node arena capacity (0 = default) */
    /* Prior-ordered widening (progressive widening with knowledge): when a node reaches
     * prior_visits visits, prior_ev (borrowed; a network) is asked once for its priors, and the
     * children not yet opened are opened in the order of those priors instead of the random
     * order.  Values stay random rollouts.  Needs threads == 1.  NULL: random order. */
    mcts_evaluator *prior_ev;
    uint32_t prior_visits;    /* 0 = default (64) */
} mcts_uct_config;

void mcts_uct_config_default(mcts_uct_config *c);

/* Search p for `iterations`; fill the root children's moves and visit counts (up to cap, most
 * visited first); return the count (0 when p is over or on out-of-memory). */
int mcts_uct_analyse(const zz_pos *p, const mcts_uct_config *cfg, int iterations, zz_move *moves,
                     int *visits, int cap);

/* ---- a searcher that keeps its tree between moves ------------------------------------- */
typedef struct mcts_uct mcts_uct;

typedef struct mcts_search_stats {
    uint64_t iterations;      /* simulations completed by this call */
    double seconds;           /* wall time of the call */
    uint32_t nodes;           /* arena nodes in use after the call */
    uint64_t collisions;      /* descents abandoned at a node being expanded (PUCT) */
    uint64_t evals;           /* evaluator positions (PUCT) */
    uint64_t batches;         /* evaluator calls (PUCT) */
} mcts_search_stats;

/* NULL on out-of-memory, or when prior_ev is given with threads > 1. */
mcts_uct *mcts_uct_new(const mcts_uct_config *cfg);
/* The first evaluator error of the searches so far (prior-ordered widening), or NULL. */
const char *mcts_uct_error(const mcts_uct *u);
void mcts_uct_free(mcts_uct *u);
/* Start a fresh tree at p. */
void mcts_uct_set_root(mcts_uct *u, const zz_pos *p);
/* Play m at the root, keeping its subtree when there is one (returns whether it was kept). */
bool mcts_uct_advance(mcts_uct *u, zz_move m);
/* Run `iterations` more simulations (0 = unlimited), stopping early after time_ms (> 0).
 * Returns 0, or -1 when the tree ran out of memory before the budget was spent. */
int mcts_uct_search(mcts_uct *u, uint64_t iterations, double time_ms, mcts_search_stats *st);
/* Ask a running mcts_uct_search to stop soon (safe from any thread; a call made before the
 * search starts is forgotten when it starts). */
void mcts_uct_stop(mcts_uct *u);
/* The most visited root move (ZZ_MOVE_NONE when there are no children). */
zz_move mcts_uct_best(const mcts_uct *u);
/* Search from the current root and return the move to play (with cfg->root_win_check, an
 * immediately winning move is returned without searching). */
zz_move mcts_uct_choose(mcts_uct *u, uint64_t iterations, double time_ms, mcts_search_stats *st);
const mcts_tree *mcts_uct_tree(const mcts_uct *u);
const mcts_uct_config *mcts_uct_get_config(const mcts_uct *u);

/* A move that ends the game at once with the mover winning, or ZZ_MOVE_NONE. */
zz_move mcts_find_win(const zz_pos *p);

#endif
