/* puct_internal.h — what the files of PUCT's search share, and nothing outside them (puct.h is
 * the interface):
 *   puct.c         configuration, workers, the descent (selection, opening edges, forced nodes),
 *                  completing a request, the stepping API, the move choice;
 *   puct_expand.c  expansion: the moves sorted by prior, a node's edges (or its edge window)
 *                  written, windows widened;
 *   puct_priors.c  priors changed after expansion: root noise, averaging over symmetries;
 *   puct_gumbel.c  the Gumbel root (sequential halving over the root's candidates);
 *   puct_search.c  the search drivers: one thread, threads sharing a batcher, threads with an
 *                  evaluator each.
 * The invariants of the shared tree are tree.h's and puct.c's file comments'. */
#ifndef ZZ_MCTS_PUCT_INTERNAL_H
#define ZZ_MCTS_PUCT_INTERNAL_H

#include "puct.h"
#include "ab.h"
#include "forcing.h"
#include "gumbel.h"

struct mcts_puct {
    mcts_puct_config cfg;
    mcts_evaluator *ev;
    mcts_tree tree;
    uint64_t rng;
    mcts_batcher batcher;           /* threads > 1, one shared evaluator */
    mcts_evaluator **copies;        /* threads > 1, per-thread evaluators: copies[i] serves thread
                                       i + 1 (thread 0 uses ev); made at the first search */
    int ncopies;
    /* per search */
    uint64_t target;
    _Atomic uint64_t started;       /* tickets (simulations) handed out */
    _Atomic int stop;
    _Atomic int running;            /* worker threads still going */
    double deadline;
    /* Gumbel root search (gumbel.h): on from mcts_puct_gumbel_root until the root changes */
    int gumbel_on;
    uint32_t gumbel_root;           /* the root it was started at */
    uint32_t gumbel_epoch;
    mcts_halving halving;           /* candidates = the root's edges 0..m-1 */
    mcts_forcing *forcing;          /* cfg.tactic_run >= 2: the root's forcing runs (tactic.h) */
};

typedef struct mcts_puct_worker {
    mcts_puct *s;
    uint64_t rng;
    mcts_arena_cache cache;
    uint32_t cache_epoch;           /* the tree epoch the cache was filled in */
    mcts_request *slots;
    int nslots;
    zz_move *moves;                 /* nslots * ZZ_MAX_MOVES */
    float *priors;                  /* nslots * ZZ_MAX_MOVES */
    uint64_t *keys;                 /* ZZ_MAX_MOVES sort keys (+ as many scratch) */
    mcts_ab *ab;                    /* cfg.tactic_prior > 0: the quiescence of tactic.h */
    mcts_evaluator *ev;             /* search_inline's evaluator (sym_visits), else NULL */
    mcts_evaluator *widen_ev;       /* search_inline's evaluator (edge windows: widen), else NULL */
    bool widen_requests;            /* no evaluator at hand (the stepping API, search_batched's
                                       workers): a window is widened through a request (D_WIDEN) */
    uint8_t *slot_widen;            /* [nslots]: WIDEN_NONE (a leaf), or what the slot's request
                                       widens: WIDEN_WINDOW, WIDEN_ALL */
    zz_move *wmoves;                /* ZZ_MAX_MOVES: a node's moves evaluated again by widen */
    float *wpriors;                 /* ZZ_MAX_MOVES */
    uint64_t widened;               /* evaluations made by widen */
    uint64_t req_widened, reranked; /* nodes widened by requests; of those, ranked otherwise */
    char sym_err[256];              /* why a node's averaging or widening failed (D_FAILED) */
    uint64_t done, collisions;
    int full, failed;
} puct_worker;

enum { D_SUBMIT, D_DONE, D_COLLISION, D_FULL, D_FAILED, D_WIDEN };
enum { WIDEN_NONE, WIDEN_WINDOW, WIDEN_ALL };

/* ---- predicates read on the descent's path (inline: a descent asks them at every root) ---- */

/* Whether a Gumbel root search (mcts_puct_gumbel_root) is on at the tree's current root. */
static inline bool gumbel_active(const mcts_puct *s) {
    return s->gumbel_on && s->gumbel_root == s->tree.root && s->gumbel_epoch == s->tree.epoch;
}

/* Whether cfg lets expansions keep edge windows: no option needs a node's whole list or changes
 * its priors by where the root is. */
static inline bool windows_configured(const mcts_puct_config *c) {
    return c->edge_window > 0 && c->max_children == 0 && !c->solver && c->sym_visits == 0 && c->tactic_prior <= 0;
}

/* Whether the root is expanded with a window of its edges only (it was expanded as a child: tree
 * reuse), where every root-wide step (noise, Gumbel, averaging, the move choice) needs them all. */
static inline bool root_keeps_window(const mcts_puct *s) {
    mcts_node *root = mcts_tree_root(&((mcts_puct *)s)->tree);
    if (!windows_configured(&s->cfg) || atomic_load_explicit(&root->state, memory_order_acquire) != MCTS_EXPANDED)
        return false;
    uint32_t ne = atomic_load_explicit(&root->nedges, memory_order_acquire);
    return ne > 0 && ne < root->nmoves;
}

/* Whether this worker's expansions keep edge windows (puct.h, edge_window): cfg allows them, and
 * the worker can evaluate a node again (search_inline) or ask for it (widen_requests). */
static inline bool windows_on(const puct_worker *w) {
    return (w->widen_ev || w->widen_requests) && windows_configured(&w->s->cfg);
}

/* ---- puct.c ---- */
/* A worker with nslots request slots (their moves and priors), 0 or -1 (out of memory: free it
 * with puct_worker_fini all the same). */
int puct_worker_init(puct_worker *w, mcts_puct *s, int nslots, uint64_t seed);
void puct_worker_fini(puct_worker *w);
/* One descent from the root into slot: D_SUBMIT, D_DONE, D_COLLISION, D_FULL, D_FAILED or D_WIDEN. */
int puct_descend(puct_worker *w, mcts_request *slot);
/* Finish an evaluated request: expand and back up a leaf, or widen a node.  Whether a simulation. */
bool puct_complete(puct_worker *w, mcts_request *r);

/* ---- puct_expand.c ---- */
void puct_expand(puct_worker *w, mcts_request *r);
bool puct_claim_widening(mcts_node *node);
void puct_release_widening(mcts_node *node);
int puct_widen(puct_worker *w, mcts_node *node, const zz_pos *pos, bool all);
void puct_finish_widening(puct_worker *w, mcts_request *r);
int puct_root_widen(mcts_puct *s, puct_worker *w0, char *err, size_t errlen);

/* ---- puct_priors.c ---- */
int puct_node_symmetry(mcts_puct *s, mcts_evaluator *ev, mcts_node *node, const zz_pos *pos, char *err,
                       size_t errlen);
int puct_root_symmetry(mcts_puct *s, char *err, size_t errlen);

/* ---- puct_gumbel.c ---- */
/* The candidate the next root visit goes to (sequential halving), or -1. */
int puct_gumbel_next(mcts_puct *s);
/* The root child of candidate j (opened), or 0. */
uint32_t puct_gumbel_child(const mcts_puct *s, int j);
/* The candidate sequential halving chose, ZZ_MOVE_NONE when none or no Gumbel search is on. */
zz_move puct_gumbel_pick(const mcts_puct *s);

#endif
