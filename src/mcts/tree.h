/* tree.h — the shared search tree of UCT and PUCT: nodes in a lock-free arena, packed atomic
 * statistics, virtual loss, backup, and re-rooting for tree reuse.
 *
 * Shape.  A node stands for the position reached by `move` from its parent.  Its children live
 * in numbered slots: slot k holds the k-th child opened.  `nopen` counts the slots claimed (a
 * CAS k -> k+1 claims slot k and bounds progressive widening); the claimer writes the child
 * completely, then publishes its index in the slot with a release store; readers load slots
 * with acquire, so a published child is always fully initialised.  A claimed slot may still be
 * empty (its claimer is writing the child): readers skip it.  Slot k's move is fixed by k alone
 * (UCT: a seeded permutation of the legal moves, order.h; PUCT: the k-th edge by prior), so two
 * threads never open the same move.  Slots sit in blocks of 15 (one cache line, linked by
 * `next`, allocated from the node arena and attached with a CAS), so a scan over the children
 * issues independent loads instead of chasing one pointer per child.
 *
 * Statistics.  One 64-bit atomic word per node holds the visit count N (bits 40..63) and the
 * value sum S (bits 0..39), S = Σ (v + 1) * 2^14 over completed visits, v in [-1, 1] from the
 * view of `player` (the player who made `move`).  Visits and values change together with one
 * fetch_add, so a reader never sees a torn (N, S) pair.  A visit in flight is counted in N at
 * once with v = -1 (S unchanged): that is the virtual loss.  Backup adds the value and removes
 * the extra virtual-loss visits in one fetch_add.  Q = S / (N * 2^14) - 1.
 * Limits: N < 2^24 per node (searches stop before MCTS_MAX_VISITS), S < 2^40 follows.
 *
 * Sign convention.  Values are always stored from `player`'s view, and `player` is the player
 * who moved into the node: along a chain of jumps the same player moves several times in a row
 * and no sign flips; it flips only where the player to move changes.
 *
 * Node states: NEW (created, not expanded; PUCT only), PENDING (claimed by one thread, waiting
 * for its evaluation), EXPANDED (moves known, children may be opened), TERMINAL (game over).
 * NEW -> PENDING is a CAS: exactly one thread expands a node. */
#ifndef MCTS_TREE_H
#define MCTS_TREE_H

#include "nodes.h"
#include "game/position.h"
#include <stdbool.h>

enum { MCTS_NEW = 0, MCTS_PENDING = 1, MCTS_EXPANDED = 2, MCTS_TERMINAL = 3 };

#define MCTS_N_SHIFT 40
#define MCTS_S_UNIT 16384.0               /* 2^14 per half point of value */
#define MCTS_MAX_VISITS ((1u << 24) - 4096u) /* searches stop here (margin for threads in flight) */

typedef struct mcts_node {
    _Atomic uint64_t stats;      /* N << 40 | S (see above) */
    _Atomic uint32_t blocks;     /* first block of child slots (node-arena index), 0 when none */
    _Atomic uint32_t nopen;      /* child slots claimed */
    uint32_t parent;             /* parent index, 0 for the root */
    zz_move move;                /* the move from the parent */
    float prior;                 /* policy prior of move */
    uint32_t nmoves;             /* legal moves here (0 when terminal) */
    _Atomic uint32_t edges;      /* PUCT: first edge (edge arena) of the prior-sorted moves */
    _Atomic uint32_t nedges;     /* PUCT: edges kept (≤ nmoves; fewer in a window, puct.h's
                                    edge_window, which a search may widen while others read: it
                                    stores edges, then nedges (release), and the new edges begin
                                    with the old ones, so a reader loads nedges first (acquire)) */
    float value;                 /* PUCT: evaluator value, to_move's view (FPU, display) */
    uint32_t seed;               /* UCT: which permutation of the moves orders the children */
    _Atomic uint8_t state;       /* MCTS_NEW .. MCTS_TERMINAL */
    uint8_t player;              /* who played move: stats are from this player's view */
    uint8_t to_move;             /* player to move here */
    int8_t winner;               /* TERMINAL: 0 / 1, -1 for a draw */
    uint8_t noised;              /* root: Dirichlet noise already mixed into the priors */
    uint8_t sym_averaged;        /* root: priors averaged over symmetries (PUCT's root_syms) */
    uint8_t run_floored;         /* root: forcing runs' prior floor applied (PUCT's tactic_run) */
    uint8_t passed;              /* PUCT: expanded unevaluated (one legal move, puct.h's
                                    pass_forced): no visit of its own, N = its child's N */
    _Atomic int8_t proof;        /* PUCT's solver: 0, or the game's result with best play for
                                    `player`, +1 won / -1 lost (proof.h) */
    _Atomic uint8_t widening;    /* PUCT: a thread is widening the node's edge window */
} __attribute__((aligned(64))) mcts_node;   /* one cache line: no false sharing between nodes */

enum { MCTS_BLOCK_SLOTS = 15 };
typedef struct mcts_block {
    _Atomic uint32_t child[MCTS_BLOCK_SLOTS];   /* node indices, 0 = not (yet) published */
    _Atomic uint32_t next;                      /* the next block, 0 when none */
} __attribute__((aligned(64))) mcts_block;     /* the size of a node: same arena */

typedef struct mcts_edge {
    zz_move move;
    float prior;
} mcts_edge;

/* ---- packed statistics ------------------------------------------------------------------ */
static inline uint32_t mcts_stats_n(uint64_t w) { return (uint32_t)(w >> MCTS_N_SHIFT); }
static inline uint64_t mcts_stats_s(uint64_t w) { return w & ((1ULL << MCTS_N_SHIFT) - 1); }
/* Q of a packed word (0 when N == 0). */
static inline double mcts_stats_q(uint64_t w) {
    uint32_t n = mcts_stats_n(w);
    return n ? (double)mcts_stats_s(w) / ((double)n * MCTS_S_UNIT) - 1.0 : 0.0;
}
/* The S increment of one value v in [-1, 1] (clamped). */
static inline uint64_t mcts_value_units(double v) {
    if (v > 1.0) v = 1.0;
    if (v < -1.0) v = -1.0;
    return (uint64_t)((v + 1.0) * MCTS_S_UNIT + 0.5);
}
static inline uint64_t mcts_node_load(const mcts_node *n) {
    return atomic_load_explicit(&((mcts_node *)n)->stats, memory_order_relaxed);
}
/* Add k visits in flight (virtual loss). */
static inline void mcts_node_add_inflight(mcts_node *n, uint32_t k) {
    atomic_fetch_add_explicit(&n->stats, (uint64_t)k << MCTS_N_SHIFT, memory_order_relaxed);
}
/* Take back k visits in flight (a descent that could not finish: it is not a visit). */
static inline void mcts_node_sub_inflight(mcts_node *n, uint32_t k) {
    atomic_fetch_sub_explicit(&n->stats, (uint64_t)k << MCTS_N_SHIFT, memory_order_relaxed);
}
/* Complete one visit that was added with vl visits in flight: add v, keep exactly one visit. */
static inline void mcts_node_complete(mcts_node *n, double v, uint32_t vl) {
    uint64_t d = mcts_value_units(v) - ((uint64_t)(vl - 1) << MCTS_N_SHIFT);   /* wraps: exact */
    atomic_fetch_add_explicit(&n->stats, d, memory_order_relaxed);
}

/* Reciprocals and reciprocal square roots of visit counts, from tables below MCTS_TAB (the
 * selection loops run over every child: no division or square root per child).  The tables are
 * filled by mcts_tree_init. */
enum { MCTS_TAB = 4096 };
extern float mcts_inv_tab[MCTS_TAB], mcts_rsqrt_tab[MCTS_TAB];
static inline float mcts_inv(uint32_t n) { return n < MCTS_TAB ? mcts_inv_tab[n] : 1.0f / (float)n; }
static inline float mcts_rsqrt(uint32_t n) {
    return n < MCTS_TAB ? mcts_rsqrt_tab[n] : 1.0f / __builtin_sqrtf((float)n);
}

/* ---- the tree --------------------------------------------------------------------------- */
typedef struct mcts_tree {
    mcts_arena nodes[2], edges[2];   /* double-buffered: re-rooting copies the kept subtree */
    int cur;                         /* the live buffer */
    uint32_t epoch;                  /* bumped by every reset and re-rooting: per-thread allocation
                                      * caches filled before it are stale */
    uint32_t root;
    zz_pos root_pos;
    int root_own;                    /* 1 when the root's own evaluation/rollout counts in its N */
    _Atomic int full;                /* an allocation failed: the search must stop */
} mcts_tree;

/* Defaults for the arena sizes (elements). */
enum { MCTS_DEFAULT_MAX_NODES = 1u << 24, MCTS_DEFAULT_MAX_EDGES = 1u << 28 };

int mcts_tree_init(mcts_tree *t, uint32_t max_nodes, uint32_t max_edges);
void mcts_tree_free(mcts_tree *t);
/* A fresh tree with a single (EXPANDED or TERMINAL for UCT use; NEW when `lazy`) root at p. */
void mcts_tree_reset(mcts_tree *t, const zz_pos *p, bool lazy);
/* Play m at the root: keep the child's subtree (copied into the spare buffer, everything else
 * freed) and return true, or start a fresh tree at the new position and return false. */
bool mcts_tree_advance(mcts_tree *t, zz_move m, bool lazy);

static inline mcts_node *mcts_tree_node(const mcts_tree *t, uint32_t i) {
    return (mcts_node *)mcts_arena_at(&t->nodes[t->cur], i);
}
static inline mcts_edge *mcts_tree_edges(const mcts_tree *t, uint32_t i) {
    return (mcts_edge *)mcts_arena_at(&t->edges[t->cur], i);
}
static inline mcts_node *mcts_tree_root(const mcts_tree *t) { return mcts_tree_node(t, t->root); }
/* Iteration over the published children of a node, in slot order. */
typedef struct mcts_child_iter {
    const mcts_tree *t;
    const mcts_block *b;
    int slot;
    int in_body;                 /* MCTS_FOR_EACH_CHILD: set while the body runs (a break leaves it set) */
} mcts_child_iter;
static inline mcts_child_iter mcts_children(const mcts_tree *t, const mcts_node *n) {
    uint32_t b = atomic_load_explicit(&((mcts_node *)n)->blocks, memory_order_acquire);
    mcts_child_iter it = { t, b ? (const mcts_block *)mcts_arena_at(&t->nodes[t->cur], b) : NULL, 0, 0 };
    return it;
}
/* The next published child's index, or 0 at the end (it->b is then NULL). */
static inline uint32_t mcts_child_next(mcts_child_iter *it) {
    while (it->b) {
        while (it->slot < MCTS_BLOCK_SLOTS) {
            uint32_t c = atomic_load_explicit(&((mcts_block *)it->b)->child[it->slot++], memory_order_acquire);
            if (c) return c;
        }
        uint32_t nb = atomic_load_explicit(&((mcts_block *)it->b)->next, memory_order_acquire);
        it->b = nb ? (const mcts_block *)mcts_arena_at(&it->t->nodes[it->t->cur], nb) : NULL;
        it->slot = 0;
    }
    return 0;
}
/* For each published child: `ci` its index, `c` the node (break and continue work as usual:
 * the innermost loop runs the body once, and a break skips the increment that clears in_body). */
#define MCTS_FOR_EACH_CHILD_I(t, parent, ci, c)                                                   \
    for (mcts_child_iter ZZ_CAT(mcts_it_, __LINE__) = mcts_children((t), (parent));              \
         ZZ_CAT(mcts_it_, __LINE__).b && !ZZ_CAT(mcts_it_, __LINE__).in_body;                    \
         ZZ_CAT(mcts_it_, __LINE__).b = NULL)                                                    \
        for (uint32_t ci; !ZZ_CAT(mcts_it_, __LINE__).in_body &&                                 \
                          (ci = mcts_child_next(&ZZ_CAT(mcts_it_, __LINE__))) != 0;)            \
            for (mcts_node *c = (ZZ_CAT(mcts_it_, __LINE__).in_body = 1, mcts_tree_node((t), ci)); c; \
                 c = NULL, ZZ_CAT(mcts_it_, __LINE__).in_body = 0)
#define MCTS_FOR_EACH_CHILD(t, parent, c) MCTS_FOR_EACH_CHILD_I(t, parent, ZZ_CAT(mcts_ci_, __LINE__), c)
/* The first published child, or NULL. */
static inline mcts_node *mcts_first_child(const mcts_tree *t, const mcts_node *n) {
    mcts_child_iter it = mcts_children(t, n);
    uint32_t c = mcts_child_next(&it);
    return c ? mcts_tree_node(t, c) : NULL;
}

/* Fill a node's fixed fields for the position p reached by move m (stats = vl visits in flight).
 * Sets TERMINAL (with nmoves 0) when p is over, else `state`; seed = 0. */
void mcts_node_init(mcts_node *n, uint32_t parent, zz_move m, float prior, const zz_pos *p,
                    uint8_t player, uint8_t state, uint32_t vl);
/* Allocate a node through a per-thread cache; 0 (and t->full set) when the arena is full. */
uint32_t mcts_tree_alloc_node(mcts_tree *t, mcts_arena_cache *c);
/* Publish a written child in parent's claimed slot k (release).  Returns false when no block
 * could be allocated (t->full is set; the child stays unpublished). */
bool mcts_tree_set_child(mcts_tree *t, mcts_node *parent, uint32_t k, uint32_t child, mcts_arena_cache *c);

/* Value of a finished game for `player`: +1 win, -1 loss, 0 draw. */
static inline double mcts_result_for(int winner, int player) {
    return winner < 0 ? 0.0 : (winner == player ? 1.0 : -1.0);
}
/* Back up from node index `leaf` to the root: each node gets v from its player's view, where v
 * is the value for `pov` (the player whose view v is in). vl = visits in flight to convert. */
void mcts_tree_backup(mcts_tree *t, uint32_t leaf, double v, int pov, uint32_t vl);

/* ---- inspection (single-threaded, after a search) ---------------------------------------- */
/* Number of nodes in the subtree of the root. */
uint32_t mcts_tree_size(const mcts_tree *t);
/* Check the quiescent invariants of the whole tree: every non-terminal node's N equals its own
 * visit (1, or t->root_own for the root; 0 for a passed node) plus its children's N; no visit
 * is left in flight;
 * children's moves are legal and distinct; children sit in claimed slots (for PUCT, slot k holds
 * edge k's move); parent links and players are right.
 * Returns NULL or a static description of the first violation. */
const char *mcts_tree_check(const mcts_tree *t);
/* Root children sorted by visits (then Q), a child proven won (proof.h) first and one proven lost
 * last: fills up to cap moves / visits / q (any may be NULL
 * except moves); returns the number of children written. */
int mcts_tree_root_children(const mcts_tree *t, zz_move *moves, int *visits, float *q, int cap);
/* The same, with each child's prior (as the node holds it: noise and boosts included; may be NULL). */
int mcts_tree_root_children_priors(const mcts_tree *t, zz_move *moves, int *visits, float *q, float *priors, int cap);
/* The principal variation: from the root, the most visited child (ties: higher Q; a child proven
 * won first, one proven lost last, as mcts_tree_root_children) while it has
 * at least min_visits visits, up to cap moves.  Returns the number of moves written. */
int mcts_tree_pv(const mcts_tree *t, zz_move *moves, int cap, uint32_t min_visits);

#endif
