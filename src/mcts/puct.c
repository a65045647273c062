/* puct.c — PUCT on the shared tree: descent with virtual loss, CAS-claimed expansion, batched
 * evaluation (inline or through the batcher), backup, root noise and move choice (puct.h).  This
 * file holds the workers, the descent, completing a request, the stepping API and the move
 * choice; puct_internal.h lists the others.
 *
 * The known parallel-MCTS traps (ENGINEERING.md §2) and where they are handled:
 *   two threads expanding one node  NEW -> PENDING is a CAS; a new child is born PENDING, owned
 *                                   by its creator (test: evaluations = expanded nodes);
 *   a failed claim counted as visit a collision undoes the visits in flight on its path and keeps
 *                                   its simulation ticket (test: root N = simulations, with
 *                                   collisions forced on a 3-move position);
 *   publication without ordering    edges, nmoves, value are written before the release store of
 *                                   EXPANDED; children before the release store of their slot;
 *   torn visit / value pairs        one 64-bit word, one fetch_add (tree.h);
 *   batcher deadlock                the batcher evaluates whatever is queued, never waits for a
 *                                   full batch; colliding workers back off and retry;
 *   freeing nodes during a search   arenas are reset / compacted only between searches;
 *   false sharing                   nodes and blocks are one cache line each; the queue's head and
 *                                   tail live on separate lines. */
#include "puct_internal.h"
#include "proof.h"
#include "rand.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mcts_puct_config_default(mcts_puct_config *c) {
    memset(c, 0, sizeof *c);
    c->seed = 1;
    c->threads = 1;
    c->batch = 8;
    c->inflight = 8;
    c->c_puct = 1.5;
    c->fpu_reduction = 0.2;
    c->fpu_reduction_root = 0.0;
    c->virtual_loss = 1;
    c->noise = 1;
    c->noise_eps = 0.25;
    c->noise_alpha_total = 10.0;
    c->temperature = 0.0;
    c->temp_plies = 0;
    c->full_prob = 1.0;
    c->sims_full = 800;
    c->sims_fast = 160;
    c->reuse = 1;
    c->max_children = 0;
    c->edge_window = 32;
    c->prior_temp = 1.0;
    c->tactic_depth = 1;
    c->tactic_margin = 100;
    c->tactic_run = 0;
    c->tactic_run_nodes = 300000;
    c->root_win_check = 0;
    c->gumbel_m = 0;
    c->pass_forced = 1;
    c->thread_evaluators = 1;
    c->gumbel_cvisit = 50;
    c->gumbel_cscale = 0.1;
}

int mcts_puct_check_config(const mcts_puct_config *cfg, char *err, size_t errlen) {
    if (cfg->c_puct < 0 || cfg->noise_eps < 0 || cfg->noise_eps > 1 || cfg->full_prob < 0 || cfg->full_prob > 1 ||
        !(cfg->prior_temp >= 0.1 && cfg->prior_temp <= 10) || !(cfg->force_prior >= 0 && cfg->force_prior <= 1000) ||
        !(cfg->tactic_prior >= 0 && cfg->tactic_prior <= 1) || cfg->tactic_depth < 0 || cfg->tactic_run < 0 ||
        cfg->tactic_run > MCTS_FORCING_MAX_K || cfg->tactic_run_nodes < 0) {
        snprintf(err, errlen, "bad PUCT configuration (c_puct, noise_eps, full_prob, prior_temp, force_prior, "
                              "tactic_prior, tactic_depth, tactic_run or tactic_run_nodes out of range)");
        return -1;
    }
    if (cfg->root_syms < 0 || cfg->root_syms > 12 ||
        (cfg->root_syms > 1 && (cfg->force_prior > 0 || cfg->tactic_prior > 0))) {
        snprintf(err, errlen, "bad PUCT configuration: root_syms (rootsym=) must be 0..12 and cannot be combined with "
                              "force_prior or tactic_prior (forceprior=, tactic=)");
        return -1;
    }
    if (cfg->tactic_run >= 2 && !(cfg->tactic_prior > 0)) {
        snprintf(err, errlen, "bad PUCT configuration: tactic_run (tacticrun=) needs tactic_prior (tactic=P > 0), the prior "
                              "its placements get");
        return -1;
    }
    if (cfg->edge_window < 0 || cfg->edge_window > ZZ_MAX_MOVES) {
        snprintf(err, errlen, "bad PUCT configuration: edge_window (edges=) must be 0..%d", ZZ_MAX_MOVES);
        return -1;
    }
    if (cfg->sym_visits < 0 || (cfg->sym_visits > 0 && (cfg->root_syms < 2 || cfg->threads > 1))) {
        snprintf(err, errlen, "bad PUCT configuration: sym_visits (symvisits=) needs root_syms (rootsym=) of 2 or more and one thread");
        return -1;
    }
    return 0;
}

mcts_puct *mcts_puct_new(const mcts_puct_config *cfg, mcts_evaluator *ev, char *err, size_t errlen) {
    if (!ev) { snprintf(err, errlen, "no evaluator"); return NULL; }
    if (mcts_puct_check_config(cfg, err, errlen) != 0) return NULL;
    mcts_puct *s = calloc(1, sizeof *s);
    if (!s) { snprintf(err, errlen, "out of memory"); return NULL; }
    s->cfg = *cfg;
    if (s->cfg.threads < 1) s->cfg.threads = 1;
    if (s->cfg.batch < 1) s->cfg.batch = 1;
    if (s->cfg.inflight < 1) s->cfg.inflight = 1;
    if (s->cfg.virtual_loss < 1) s->cfg.virtual_loss = 1;
    s->ev = ev;
    s->rng = mcts_seed(cfg->seed);
    if (mcts_tree_init(&s->tree, s->cfg.max_nodes, s->cfg.max_edges) ||
        mcts_batcher_init(&s->batcher, ev, s->cfg.batch,
                          (size_t)s->cfg.threads * (size_t)s->cfg.inflight + 16)) {
        mcts_tree_free(&s->tree);
        free(s);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (s->cfg.tactic_run >= 2 && s->cfg.tactic_prior > 0 && !(s->forcing = mcts_forcing_new(s->cfg.tactic_run))) {
        mcts_puct_free(s);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    mcts_puct_set_root(s, &p);
    return s;
}

void mcts_puct_free(mcts_puct *s) {
    if (!s) return;
    for (int i = 0; i < s->ncopies; i++) mcts_evaluator_free(s->copies[i]);
    free(s->copies);
    mcts_batcher_free(&s->batcher);
    mcts_tree_free(&s->tree);
    mcts_forcing_free(s->forcing);
    free(s);
}

const mcts_tree *mcts_puct_tree(const mcts_puct *s) { return &s->tree; }
const mcts_puct_config *mcts_puct_get_config(const mcts_puct *s) { return &s->cfg; }

void mcts_puct_set_root(mcts_puct *s, const zz_pos *p) { mcts_tree_reset(&s->tree, p, true); }

bool mcts_puct_advance(mcts_puct *s, zz_move m) {
    if (!s->cfg.reuse || s->cfg.gumbel_m > 0) {      /* a Gumbel search needs a fresh root */
        zz_pos next = s->tree.root_pos;
        zz_apply(&next, m, NULL);
        mcts_tree_reset(&s->tree, &next, true);
        return false;
    }
    return mcts_tree_advance(&s->tree, m, true);
}

/* ---- workers ------------------------------------------------------------------------------ */
int puct_worker_init(puct_worker *w, mcts_puct *s, int nslots, uint64_t seed) {
    memset(w, 0, sizeof *w);
    w->s = s;
    w->cache_epoch = s->tree.epoch;
    w->rng = mcts_seed(seed);
    w->nslots = nslots;
    w->slots = calloc((size_t)nslots, sizeof *w->slots);
    w->moves = malloc((size_t)nslots * ZZ_MAX_MOVES * sizeof *w->moves);
    w->priors = malloc((size_t)nslots * ZZ_MAX_MOVES * sizeof *w->priors);
    w->keys = malloc(2 * (size_t)ZZ_MAX_MOVES * sizeof *w->keys);
    w->wmoves = malloc(ZZ_MAX_MOVES * sizeof *w->wmoves);
    w->wpriors = malloc(ZZ_MAX_MOVES * sizeof *w->wpriors);
    w->slot_widen = calloc((size_t)nslots, 1);
    if (!w->slots || !w->moves || !w->priors || !w->keys || !w->wmoves || !w->wpriors || !w->slot_widen) return -1;
    if (s->cfg.tactic_prior > 0) {
        mcts_ab_config ac;
        mcts_ab_config_default(&ac);
        ac.tt_log2 = 0;                               /* quiescence uses no table */
        if (!(w->ab = mcts_ab_new(&ac))) return -1;
    }
    for (int i = 0; i < nslots; i++) {
        mcts_request *r = &w->slots[i];
        atomic_init(&r->state, MCTS_REQ_FREE);
        r->item.moves = w->moves + (size_t)i * ZZ_MAX_MOVES;
        r->item.priors = w->priors + (size_t)i * ZZ_MAX_MOVES;
        r->item.pos = &r->pos;
        r->owner = s;
    }
    return 0;
}

void puct_worker_fini(puct_worker *w) {
    free(w->slots);
    free(w->moves);
    free(w->priors);
    free(w->keys);
    free(w->wmoves);
    free(w->wpriors);
    free(w->slot_widen);
    mcts_ab_free(w->ab);
}

static void undo_path(mcts_tree *t, uint32_t i, uint32_t vl) {
    for (;;) {
        mcts_node *n = mcts_tree_node(t, i);
        mcts_node_sub_inflight(n, vl);
        if (i == t->root) return;
        i = n->parent;
    }
}

/* Claimed node idx at position p becomes the request in slot r. */
static void fill_request(mcts_request *r, uint32_t idx, const zz_pos *p) {
    r->pos = *p;
    r->item.pos = &r->pos;
    r->item.nmoves = zz_gen_moves(p, (zz_move *)r->item.moves);
    r->node = idx;
}

static void backup_terminal(mcts_tree *t, uint32_t idx, const mcts_node *n, uint32_t vl) {
    if (n->winner >= 0) mcts_tree_backup(t, idx, 1.0, n->winner, vl);
    else mcts_tree_backup(t, idx, 0.0, 0, vl);
}
/* A claimed (PENDING) node whose position has exactly one legal move (most jumps of a chain, a
 * lone compulsory capture) needs no evaluation: its value is its only child's.  With
 * cfg.pass_forced it is expanded at once with that one edge (prior 1) and published, and the
 * descent goes on through it in the same simulation, so forced sequences cost no network call
 * and the network judges the position after them.  Returns whether it did (false: submit the
 * request as usual; also when the edge arena is full). */
static bool pass_forced(puct_worker *w, mcts_request *r) {
    mcts_puct *s = w->s;
    if (!s->cfg.pass_forced || r->item.nmoves != 1) return false;
    mcts_tree *t = &s->tree;
    uint32_t e = mcts_arena_alloc(&t->edges[t->cur], 1);
    if (!e) return false;
    mcts_node *node = mcts_tree_node(t, r->node);
    mcts_edge *edge = mcts_tree_edges(t, e);
    edge->move = r->item.moves[0];
    edge->prior = 1.0f;
    node->nmoves = 1;
    node->value = 0;                 /* never read: the one edge is opened at the first visit */
    node->edges = e;
    node->nedges = 1;
    node->passed = 1;
    atomic_store_explicit(&node->state, MCTS_EXPANDED, memory_order_release);
    return true;
}

/* Selection scores of proven children (proof.h): a child proven won beats everything, even an
 * unopened edge; one proven lost ranks below every other child, so it is taken only when every
 * open child is lost and no edge is left to open. */
#define PROVEN_WIN_U 1e300
#define PROVEN_LOSS_PENALTY 1e6

/* The published child of an expanded node with the highest PUCT score, 0 when none is published
 * yet.  *best_u gets its score and *open_prior the sum of the opened edges' priors (for the
 * first-play urgency of the next unopened edge).  With cfg->solver a child proven won is taken
 * at once and one proven lost only when nothing else is open. */
static uint32_t best_child(const mcts_tree *t, const mcts_node *node, double c, double sqrt_n,
                           double *best_u, double *open_prior) {
    uint32_t best = 0;
    *best_u = -1e300;
    *open_prior = 0;
    MCTS_FOR_EACH_CHILD_I(t, node, ci, ch) {
        uint64_t cs = mcts_node_load(ch);
        uint32_t n = mcts_stats_n(cs);
        double q = (double)mcts_stats_s(cs) / ((double)n * MCTS_S_UNIT) - 1.0;
        double u = q + c * ch->prior * sqrt_n / (1.0 + n);
        *open_prior += ch->prior;
        int proof = mcts_proof(ch);              /* 0 unless cfg->solver */
        if (proof == MCTS_PROOF_WIN) { *best_u = PROVEN_WIN_U; return ci; }
        if (proof == MCTS_PROOF_LOSS) u -= PROVEN_LOSS_PENALTY;      /* only when nothing else */
        if (u > *best_u) { *best_u = u; best = ci; }
    }
    return best;
}

enum { OPEN_RACED, OPEN_FULL, OPEN_TERMINAL, OPEN_SUBMIT, OPEN_PASSED };

/* Open edge k of the expanded node idx (at position pos) as a new child: claim the edge with a
 * CAS on nopen, allocate the child born PENDING (owned by this worker), publish it, then either
 * back up a finished game, fill the request for the evaluator, or pass a forced position
 * (pass_forced).  Returns OPEN_RACED when another thread opened edge k first (nothing changed),
 * OPEN_FULL when the tree is full (the caller undoes the path), OPEN_TERMINAL when the game is
 * over there (backed up), OPEN_SUBMIT when slot holds the request, OPEN_PASSED when the child is
 * forced: *child and *after are set and the descent goes on through it. */
static int open_edge(puct_worker *w, mcts_request *slot, uint32_t idx, mcts_node *node, uint32_t k,
                     const zz_pos *pos, uint32_t *child, zz_pos *after) {
    mcts_tree *t = &w->s->tree;
    uint32_t vl = (uint32_t)w->s->cfg.virtual_loss;
    if (!atomic_compare_exchange_strong_explicit(&node->nopen, &k, k + 1, memory_order_relaxed,
                                                 memory_order_relaxed))
        return OPEN_RACED;
    const mcts_edge *e = mcts_tree_edges(t, atomic_load_explicit(&node->edges, memory_order_acquire)) + k;
    uint32_t ci = mcts_tree_alloc_node(t, &w->cache);
    if (!ci) return OPEN_FULL;
    mcts_node *ch = mcts_tree_node(t, ci);
    *after = *pos;
    zz_apply(after, e->move, NULL);
    mcts_node_init(ch, idx, e->move, e->prior, after, pos->to_move, MCTS_PENDING, vl);
    if (!mcts_tree_set_child(t, node, k, ci, &w->cache)) return OPEN_FULL;
    if (zz_over(after)) {
        backup_terminal(t, ci, ch, vl);
        if (w->s->cfg.solver) { mcts_proof_set_terminal(t, ci); mcts_proof_propagate(t, ci); }
        return OPEN_TERMINAL;
    }
    fill_request(slot, ci, after);           /* born PENDING: claimed by its creator */
    if (!pass_forced(w, slot)) return OPEN_SUBMIT;
    *child = ci;
    return OPEN_PASSED;
}


/* The descent at node idx (position pos) becomes a request to evaluate the node again and widen
 * its window (WIDEN_WINDOW) or give it every edge (WIDEN_ALL), the caller having claimed the
 * node's widening: the path's visits in flight are taken back (it is no simulation). */
static int request_widening(puct_worker *w, mcts_request *slot, uint32_t idx, const zz_pos *pos, int kind) {
    undo_path(&w->s->tree, idx, (uint32_t)w->s->cfg.virtual_loss);
    fill_request(slot, idx, pos);
    w->slot_widen[slot - w->slots] = (uint8_t)kind;
    return D_WIDEN;
}

/* One descent from the root (see the file comment of tree.h for the protocol): it ends at a leaf
 * whose request is filled for the evaluator (D_SUBMIT), at a finished game backed up (D_DONE), at
 * a node another thread is evaluating (D_COLLISION: the path undone), at a full tree (D_FULL), at
 * a failed averaging over symmetries or widening (D_FAILED: the path undone, the message in
 * w->sym_err), or, with w->widen_requests, at a node whose edge window must grow first (D_WIDEN:
 * the path undone, the slot holds the node's request; a root that kept a window asks for all its
 * edges before anything else).  With sym_visits and an evaluator of its own (w->ev), a node below
 * the root is averaged over symmetries as the descent reaches it with sym_visits visits. */
int puct_descend(puct_worker *w, mcts_request *slot) {
    mcts_puct *s = w->s;
    mcts_tree *t = &s->tree;
    const mcts_puct_config *cfg = &s->cfg;
    uint32_t vl = (uint32_t)cfg->virtual_loss;
    zz_pos pos = t->root_pos;
    uint32_t idx = t->root;
    mcts_node *node = mcts_tree_root(t);
    mcts_node_add_inflight(node, vl);
    for (;;) {
        uint8_t st = atomic_load_explicit(&node->state, memory_order_acquire);
        if (st == MCTS_TERMINAL) {
            backup_terminal(t, idx, node, vl);
            if (cfg->solver) mcts_proof_propagate(t, idx);   /* again: a sibling may have raced */
            return D_DONE;
        }
        if (st == MCTS_NEW &&
            atomic_compare_exchange_strong_explicit(&node->state, &st, MCTS_PENDING,
                                                    memory_order_acquire, memory_order_acquire)) {
            fill_request(slot, idx, &pos);
            if (idx != t->root && pass_forced(w, slot)) continue;     /* one move: go on through it */
            return D_SUBMIT;
        }
        if (st != MCTS_EXPANDED) {          /* PENDING: someone else's leaf is being evaluated */
            undo_path(t, idx, vl);
            return D_COLLISION;
        }
        if (node->nedges == 0) {            /* expanded without room for edges (tree full) */
            mcts_tree_backup(t, idx, node->value, node->to_move, vl);
            return D_DONE;
        }
        if (idx == t->root && w->widen_requests && root_keeps_window(s) &&
            !atomic_load_explicit(&t->full, memory_order_relaxed)) {   /* a reused root's window */
            if (puct_claim_widening(node)) return request_widening(w, slot, idx, &pos, WIDEN_ALL);
            undo_path(t, idx, vl);
            return D_COLLISION;
        }
        if (cfg->sym_visits > 0 && w->ev && idx != t->root && !node->sym_averaged &&
            mcts_stats_n(mcts_node_load(node)) >= (uint32_t)cfg->sym_visits &&
            puct_node_symmetry(s, w->ev, node, &pos, w->sym_err, sizeof w->sym_err) != 0) {
            undo_path(t, idx, vl);
            return D_FAILED;
        }
        double sqrt_n = sqrt((double)mcts_stats_n(mcts_node_load(node))), c = cfg->c_puct;
        double best_u, open_prior;
        uint32_t best = best_child(t, node, c, sqrt_n, &best_u, &open_prior);
        uint32_t k = atomic_load_explicit(&node->nopen, memory_order_relaxed);
        uint32_t ne = atomic_load_explicit(&node->nedges, memory_order_acquire);
        if (k >= ne && ne < node->nmoves && windows_on(w)) {     /* the window is used up: widen it */
            if (w->widen_requests) {        /* unless another is at it: then the open children */
                if (!atomic_load_explicit(&t->full, memory_order_relaxed) && puct_claim_widening(node))
                    return request_widening(w, slot, idx, &pos, WIDEN_WINDOW);
            } else if (puct_widen(w, node, &pos, false) < 0) {
                undo_path(t, idx, vl);
                return D_FAILED;
            }
            ne = atomic_load_explicit(&node->nedges, memory_order_acquire);
        }
        bool gumbel_root = idx == t->root && gumbel_active(s), force_open = false;
        if (gumbel_root) {                  /* the root follows sequential halving */
            int j = puct_gumbel_next(s);
            if (j < 0) { undo_path(t, idx, vl); return D_COLLISION; }
            if ((uint32_t)j >= k) force_open = true;  /* the next candidate not yet opened: edge k */
            else best = puct_gumbel_child(s, j);
        }
        if (k < ne) {
            /* the unopened edge k scores the evaluator's value of the parent (free of virtual
             * losses in flight), reduced by the opened priors (first-play urgency) */
            const mcts_edge *e = mcts_tree_edges(t, atomic_load_explicit(&node->edges, memory_order_acquire)) + k;
            double red = idx == t->root ? cfg->fpu_reduction_root : cfg->fpu_reduction;
            double u_new = node->value - red * sqrt(open_prior) + c * e->prior * sqrt_n;
            if (force_open || (!gumbel_root && (!best || u_new > best_u))) {
                uint32_t ci = 0;
                zz_pos after;
                switch (open_edge(w, slot, idx, node, k, &pos, &ci, &after)) {
                case OPEN_RACED: continue;            /* another thread opened edge k: look again */
                case OPEN_FULL: undo_path(t, idx, vl); return D_FULL;
                case OPEN_TERMINAL: return D_DONE;
                case OPEN_SUBMIT: return D_SUBMIT;
                default: break;                       /* OPEN_PASSED: go on through the one move */
                }
                node = mcts_tree_node(t, ci);
                idx = ci;
                pos = after;
                continue;
            }
        }
        if (!best) {                         /* claimed children not yet published: look again */
            if (atomic_load_explicit(&t->full, memory_order_relaxed)) { undo_path(t, idx, vl); return D_FULL; }
            continue;
        }
        node = mcts_tree_node(t, best);
        idx = best;
        mcts_node_add_inflight(node, vl);
        zz_apply(&pos, node->move, NULL);
        if (cfg->solver && mcts_proof(node)) mcts_proof_propagate(t, idx);   /* a raced sibling */
    }
}
/* Expand and back up an evaluated leaf, or widen the node of a widening request.  Returns
 * whether it was a simulation (a leaf). */
bool puct_complete(puct_worker *w, mcts_request *r) {
    mcts_tree *t = &w->s->tree;
    bool leaf = w->slot_widen[r - w->slots] == WIDEN_NONE;
    if (leaf) {
        puct_expand(w, r);
        mcts_node *node = mcts_tree_node(t, r->node);
        mcts_tree_backup(t, r->node, r->item.value, node->to_move, (uint32_t)w->s->cfg.virtual_loss);
    } else {
        puct_finish_widening(w, r);
        w->slot_widen[r - w->slots] = WIDEN_NONE;
    }
    atomic_store_explicit(&r->state, MCTS_REQ_FREE, memory_order_relaxed);
    return leaf;
}

/* ---- the stepping API (puct.h) ------------------------------------------------------------ */
mcts_puct_worker *mcts_puct_worker_new(mcts_puct *s, int slots, uint64_t seed) {
    puct_worker *w = malloc(sizeof *w);
    if (!w) return NULL;
    if (puct_worker_init(w, s, slots > 0 ? slots : 1, seed) != 0) { puct_worker_fini(w); free(w); return NULL; }
    w->widen_requests = true;
    return w;
}

void mcts_puct_worker_free(mcts_puct_worker *w) {
    if (!w) return;
    puct_worker_fini(w);
    free(w);
}

int mcts_puct_step(mcts_puct_worker *w, mcts_request **req) {
    *req = NULL;
    if (w->cache_epoch != w->s->tree.epoch) {       /* the tree was reset or re-rooted */
        w->cache = (mcts_arena_cache){ 0, 0 };
        w->cache_epoch = w->s->tree.epoch;
    }
    int i = 0;
    while (i < w->nslots && atomic_load_explicit(&w->slots[i].state, memory_order_acquire) != MCTS_REQ_FREE) i++;
    if (i == w->nslots) return MCTS_STEP_BUSY;
    mcts_request *r = &w->slots[i];
    switch (puct_descend(w, r)) {
    case D_SUBMIT:
        atomic_store_explicit(&r->state, MCTS_REQ_QUEUED, memory_order_relaxed);   /* in use */
        *req = r;
        return MCTS_STEP_SUBMIT;
    case D_WIDEN:
        atomic_store_explicit(&r->state, MCTS_REQ_QUEUED, memory_order_relaxed);
        *req = r;
        return MCTS_STEP_WIDEN;
    case D_DONE: return MCTS_STEP_DONE;
    case D_FULL: return MCTS_STEP_FULL;
    default: return MCTS_STEP_COLLISION;
    }
}

void mcts_puct_finish(mcts_puct_worker *w, mcts_request *req) { puct_complete(w, req); }

void mcts_puct_abandon(mcts_puct_worker *w, mcts_request *req) {
    uint8_t *kind = &w->slot_widen[req - w->slots];
    if (*kind == WIDEN_NONE) undo_path(&w->s->tree, req->node, (uint32_t)w->s->cfg.virtual_loss);
    else puct_release_widening(mcts_tree_node(&w->s->tree, req->node));   /* its path was undone at the step */
    *kind = WIDEN_NONE;
    atomic_store_explicit(&req->state, MCTS_REQ_FREE, memory_order_relaxed);
}

bool mcts_puct_root_ready(const mcts_puct *s) {
    mcts_tree *t = &((mcts_puct *)s)->tree;
    if (atomic_load_explicit(&mcts_tree_root(t)->state, memory_order_acquire) != MCTS_EXPANDED) return false;
    return !root_keeps_window(s) || atomic_load_explicit(&t->full, memory_order_relaxed);
}

mcts_puct_worker_stats mcts_puct_worker_get_stats(const mcts_puct_worker *w) {
    return (mcts_puct_worker_stats){ w->req_widened, w->reranked };
}
/* ---- move choice ---------------------------------------------------------------------------- */
zz_move mcts_puct_pick(mcts_puct *s, double temperature) {
    const mcts_tree *t = &s->tree;
    const mcts_node *root = mcts_tree_root(t);
    zz_move chosen = puct_gumbel_pick(s);            /* the candidate sequential halving chose */
    if (chosen != ZZ_MOVE_NONE) return chosen;
    uint32_t k = 0;
    MCTS_FOR_EACH_CHILD(t, root, c) k++;
    if (k == 0) {
        if (root->nedges) return mcts_tree_edges(t, root->edges)[0].move;
        return zz_over(&t->root_pos) ? ZZ_MOVE_NONE : zz_random_move(&t->root_pos, &s->rng);
    }
    zz_move *moves = malloc(k * sizeof *moves);
    int *visits = malloc(k * sizeof *visits);
    zz_move m = ZZ_MOVE_NONE;
    if (moves && visits) {
        int n = mcts_tree_root_children(t, moves, visits, NULL, (int)k);   /* proven won first */
        m = moves[0];
        int first_proof = s->cfg.solver ? mcts_proof_of_root_child(t, m) : MCTS_PROOF_NONE;
        if (first_proof == MCTS_PROOF_NONE && temperature > 0 && n > 1 && visits[0] > 0) {
            double sum = 0, *w = malloc((size_t)n * sizeof *w);
            if (w) {
                for (int i = 0; i < n; i++)
                    sum += w[i] = visits[i] > 0 ? exp(log((double)visits[i] / visits[0]) / temperature) : 0;
                double x = mcts_rand_unit(&s->rng) * sum;
                for (int i = 0; i < n; i++) {
                    if (x < w[i]) { m = moves[i]; break; }
                    x -= w[i];
                }
                if (s->cfg.solver && mcts_proof_of_root_child(t, m) == MCTS_PROOF_LOSS) m = moves[0];
                free(w);
            }
        }
    }
    free(moves);
    free(visits);
    return m;
}

int mcts_puct_think(mcts_puct *s, int sims, double time_ms, mcts_think *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    const zz_pos *p = &s->tree.root_pos;
    if (zz_over(p)) return 0;
    if (s->cfg.root_win_check) {
        zz_move win = mcts_find_win(p);
        if (win) { out->move = win; out->root_q = 1; return 0; }
    }
    if (zz_count_moves(p) == 1) {            /* forced (often a chain's next jump): no search, */
        zz_move only[6 * 61];                /* and not a policy target */
        zz_gen_moves(p, only);
        out->move = only[0];
        return 0;
    }
    bool full;
    if (sims > 0 || time_ms > 0) full = true;
    else {
        full = s->cfg.full_prob >= 1.0 || mcts_rand_unit(&s->rng) < s->cfg.full_prob;
        sims = full ? s->cfg.sims_full : s->cfg.sims_fast;
    }
    if (mcts_puct_search(s, sims > 0 ? (uint64_t)sims : 0, time_ms, full && s->cfg.noise, &out->stats, err, errlen) != 0 &&
        !atomic_load(&s->tree.full))
        return -1;
    const mcts_node *root = mcts_tree_root(&s->tree);
    double q = mcts_stats_q(mcts_node_load(root));
    out->root_q = (float)(root->player == root->to_move ? q : -q);
    double temp = (s->cfg.temp_plies == 0 || p->ply < s->cfg.temp_plies) ? s->cfg.temperature : 0.0;
    out->move = mcts_puct_pick(s, temp);
    out->full = full;
    return 0;
}
