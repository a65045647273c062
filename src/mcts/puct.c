/* puct.c — PUCT on the shared tree: descent with virtual loss, CAS-claimed expansion, batched
 * evaluation (inline or through the batcher), backup, root noise and move choice (puct.h).
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
#include "puct.h"
#include "proof.h"
#include "sym_eval.h"
#include "tactic.h"
#include "mcts/clock.h"
#include "batcher.h"
#include "gumbel.h"
#include "rand.h"
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
        !(cfg->tactic_prior >= 0 && cfg->tactic_prior <= 1) || cfg->tactic_depth < 0) {
        snprintf(err, errlen, "bad PUCT configuration (c_puct, noise_eps, full_prob, prior_temp, force_prior, "
                              "tactic_prior or tactic_depth out of range)");
        return -1;
    }
    if (cfg->root_syms < 0 || cfg->root_syms > 12 ||
        (cfg->root_syms > 1 && (cfg->force_prior > 0 || cfg->tactic_prior > 0))) {
        snprintf(err, errlen, "bad PUCT configuration: root_syms (rootsym=) must be 0..12 and cannot be combined with "
                              "force_prior or tactic_prior (forceprior=, tactic=)");
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
static int worker_init(puct_worker *w, mcts_puct *s, int nslots, uint64_t seed) {
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

static void worker_free(puct_worker *w) {
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

/* ---- Gumbel root (gumbel.h) --------------------------------------------------------------- */
static bool gumbel_active(const mcts_puct *s) {
    return s->gumbel_on && s->gumbel_root == s->tree.root && s->gumbel_epoch == s->tree.epoch;
}

/* The root's candidates (edges 0..m-1; the child in slot j is edge j): visits, values for the
 * root mover, and sigma of their completed values (gumbel.h), all edges counted in the rescale. */
static void gumbel_stats(const mcts_puct *s, uint32_t *visits, double *sigma, uint32_t *child) {
    static _Thread_local float prior[ZZ_MAX_MOVES], q[ZZ_MAX_MOVES];
    static _Thread_local uint32_t vis[ZZ_MAX_MOVES];
    static _Thread_local double cq[ZZ_MAX_MOVES];
    const mcts_tree *t = &s->tree;
    const mcts_node *root = mcts_tree_root(t);
    const mcts_edge *e = mcts_tree_edges(t, root->edges);
    int n = (int)root->nedges, m = s->halving.m;
    for (int i = 0; i < n; i++) { prior[i] = e[i].prior; vis[i] = 0; q[i] = 0; }
    uint32_t slot = 0, max_n = 0;
    MCTS_FOR_EACH_CHILD_I(t, root, ci, c) {      /* one thread, fresh root: slot order = edge order */
        uint64_t w = mcts_node_load(c);
        vis[slot] = mcts_stats_n(w);
        q[slot] = (float)mcts_stats_q(w);        /* the child's player is the root's mover */
        if (child && slot < (uint32_t)m) child[slot] = ci;
        if (vis[slot] > max_n) max_n = vis[slot];
        slot++;
    }
    mcts_gumbel_completed_q(n, prior, vis, q, root->value, cq);
    for (int j = 0; j < m; j++) {
        visits[j] = vis[j];
        sigma[j] = mcts_gumbel_sigma(cq[j], max_n, s->cfg.gumbel_cvisit, s->cfg.gumbel_cscale);
    }
}

/* The candidate the next root visit goes to (sequential halving), or -1. */
static int gumbel_next(mcts_puct *s) {
    uint32_t visits[MCTS_GUMBEL_MAX];
    double sigma[MCTS_GUMBEL_MAX];
    gumbel_stats(s, visits, sigma, NULL);
    return mcts_halving_next(&s->halving, visits, sigma);
}

/* The root child of candidate j (opened), or 0. */
static uint32_t gumbel_child(const mcts_puct *s, int j) {
    uint32_t visits[MCTS_GUMBEL_MAX], child[MCTS_GUMBEL_MAX] = { 0 };
    double sigma[MCTS_GUMBEL_MAX];
    gumbel_stats(s, visits, sigma, child);
    return child[j];
}

static int cmp_score_desc(const void *a, const void *b) {
    const double *x = a, *y = b;
    return x[0] < y[0] ? 1 : x[0] > y[0] ? -1 : 0;
}

bool mcts_puct_gumbel_root(mcts_puct *s, uint64_t budget) {
    mcts_tree *t = &s->tree;
    mcts_node *root = mcts_tree_root(t);
    s->gumbel_on = 0;
    if (s->cfg.gumbel_m <= 0 || s->cfg.threads != 1 || atomic_load(&root->state) != MCTS_EXPANDED ||
        root->nedges == 0 || atomic_load(&root->nopen) != 0)
        return false;
    int n = (int)root->nedges;
    mcts_edge *e = mcts_tree_edges(t, root->edges);
    double (*key)[2] = malloc((size_t)n * sizeof *key);
    mcts_edge *tmp = malloc((size_t)n * sizeof *tmp);
    if (!key || !tmp) { free(key); free(tmp); return false; }
    for (int i = 0; i < n; i++) {                    /* g + log p, g ~ Gumbel(0, 1) */
        double u = mcts_rand_unit(&s->rng);
        if (u < 1e-300) u = 1e-300;
        double g = -log(-log(u > 1 - 1e-16 ? 1 - 1e-16 : u));
        key[i][0] = g + (e[i].prior > 0 ? log(e[i].prior) : -1e9);
        key[i][1] = i;
    }
    qsort(key, (size_t)n, sizeof *key, cmp_score_desc);     /* Gumbel-top-k first */
    for (int i = 0; i < n; i++) tmp[i] = e[(int)key[i][1]];
    memcpy(e, tmp, (size_t)n * sizeof *e);
    int m = s->cfg.gumbel_m < n ? s->cfg.gumbel_m : n;
    if (m > MCTS_GUMBEL_MAX) m = MCTS_GUMBEL_MAX;
    double score[MCTS_GUMBEL_MAX];
    for (int j = 0; j < m; j++) score[j] = key[j][0];
    mcts_halving_init(&s->halving, m, score, budget > 0 ? budget : 1);
    free(key);
    free(tmp);
    s->gumbel_on = 1;
    s->gumbel_root = t->root;
    s->gumbel_epoch = t->epoch;
    return true;
}

int mcts_puct_gumbel_policy(const mcts_puct *s, zz_move *moves, float *probs, int cap) {
    if (!gumbel_active(s) || cap <= 0) return 0;
    const mcts_tree *t = &s->tree;
    const mcts_node *root = mcts_tree_root(t);
    const mcts_edge *e = mcts_tree_edges(t, root->edges);
    int n = (int)root->nedges;
    float *prior = malloc((size_t)n * sizeof *prior), *q = malloc((size_t)n * sizeof *q);
    uint32_t *vis = calloc((size_t)n, sizeof *vis);
    double *pi = malloc((size_t)n * sizeof *pi);
    int *order = malloc((size_t)n * sizeof *order);
    int k = 0;
    if (prior && q && vis && pi && order) {
        for (int i = 0; i < n; i++) { prior[i] = e[i].prior; q[i] = 0; }
        uint32_t slot = 0;
        MCTS_FOR_EACH_CHILD(t, root, c) {
            uint64_t w = mcts_node_load(c);
            vis[slot] = mcts_stats_n(w);
            q[slot] = (float)mcts_stats_q(w);
            slot++;
        }
        mcts_gumbel_improved_policy(n, prior, vis, q, root->value, s->cfg.gumbel_cvisit, s->cfg.gumbel_cscale, pi);
        for (int i = 0; i < n; i++) order[i] = i;
        for (int a = 0; a < cap && a < n; a++) {     /* partial selection sort: the cap largest */
            int b = a;
            for (int i = a + 1; i < n; i++) if (pi[order[i]] > pi[order[b]]) b = i;
            int x = order[a]; order[a] = order[b]; order[b] = x;
        }
        k = cap < n ? cap : n;
        double sum = 0;
        for (int a = 0; a < k; a++) sum += pi[order[a]];
        for (int a = 0; a < k; a++) {
            moves[a] = e[order[a]].move;
            probs[a] = (float)(sum > 0 ? pi[order[a]] / sum : 1.0 / k);
        }
    }
    free(prior); free(q); free(vis); free(pi); free(order);
    return k;
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

static int node_symmetry(mcts_puct *s, mcts_evaluator *ev, mcts_node *node, const zz_pos *pos, char *err,
                         size_t errlen);
static bool windows_on(const puct_worker *w);
static bool root_keeps_window(const mcts_puct *s);
static int widen(puct_worker *w, mcts_node *node, const zz_pos *pos, bool all);
static bool claim_widening(mcts_node *node);

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
static int descend(puct_worker *w, mcts_request *slot) {
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
            if (claim_widening(node)) return request_widening(w, slot, idx, &pos, WIDEN_ALL);
            undo_path(t, idx, vl);
            return D_COLLISION;
        }
        if (cfg->sym_visits > 0 && w->ev && idx != t->root && !node->sym_averaged &&
            mcts_stats_n(mcts_node_load(node)) >= (uint32_t)cfg->sym_visits &&
            node_symmetry(s, w->ev, node, &pos, w->sym_err, sizeof w->sym_err) != 0) {
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
                if (!atomic_load_explicit(&t->full, memory_order_relaxed) && claim_widening(node))
                    return request_widening(w, slot, idx, &pos, WIDEN_WINDOW);
            } else if (widen(w, node, &pos, false) < 0) {
                undo_path(t, idx, vl);
                return D_FAILED;
            }
            ne = atomic_load_explicit(&node->nedges, memory_order_acquire);
        }
        bool gumbel_root = idx == t->root && gumbel_active(s), force_open = false;
        if (gumbel_root) {                  /* the root follows sequential halving */
            int j = gumbel_next(s);
            if (j < 0) { undo_path(t, idx, vl); return D_COLLISION; }
            if ((uint32_t)j >= k) force_open = true;  /* the next candidate not yet opened: edge k */
            else best = gumbel_child(s, j);
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

/* ---- expansion ---------------------------------------------------------------------------- */
static uint32_t mix32(uint32_t x) {
    x ^= x >> 16; x *= 0x7FEB352Du; x ^= x >> 15; x *= 0x846CA68Bu; x ^= x >> 16;
    return x;
}

/* LSD radix sort of n keys ascending on bits 16..63 (the low 16 bits ride along: they hold the
 * move's index).  One counting pass for all digits; digits equal in every key are skipped. */
static void radix_sort(uint64_t *a, uint64_t *tmp, int n) {
    enum { DIGITS = 6 };
    static _Thread_local uint32_t cnt[DIGITS][256];
    memset(cnt, 0, sizeof cnt);
    for (int i = 0; i < n; i++)
        for (int d = 0; d < DIGITS; d++) cnt[d][(a[i] >> (16 + 8 * d)) & 255]++;
    uint64_t *src = a, *dst = tmp;
    for (int d = 0; d < DIGITS; d++) {
        int shift = 16 + 8 * d;
        if (cnt[d][(src[0] >> shift) & 255] == (uint32_t)n) continue;
        uint32_t sum = 0;
        for (int v = 0; v < 256; v++) { uint32_t c = cnt[d][v]; cnt[d][v] = sum; sum += c; }
        for (int i = 0; i < n; i++) dst[cnt[d][(src[i] >> shift) & 255]++] = src[i];
        uint64_t *x = src; src = dst; dst = x;
    }
    if (src != a) memcpy(a, src, (size_t)n * sizeof *a);
}

static uint32_t float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* force_prior: raise the priors of the placements after which the next player must capture
 * (zz_place_landings), in place, before the moves are sorted. */
static void boost_forcing(const mcts_puct *s, const zz_pos *pos, const zz_move *moves, float *priors, int n) {
    zz_landing_cache landings;
    zz_landing_cache_start(&landings);
    float gain = (float)(1.0 + s->cfg.force_prior);
    for (int i = 0; i < n; i++) {
        if (zz_move_is_jump(moves[i])) return;          /* a capture node: no placements */
        if (zz_place_forces_cached(&landings, pos, moves[i])) priors[i] *= gain;
    }
}

/* Insertion sort of n keys ascending (the whole key: bits 16..63, then the index, which is the
 * order radix_sort's stable passes leave equal digits in). */
static void insertion_sort(uint64_t *a, int n) {
    for (int i = 1; i < n; i++) {
        uint64_t x = a[i];
        int j = i;
        for (; j > 0 && a[j - 1] > x; j--) a[j] = a[j - 1];
        a[j] = x;
    }
}

static int cmp_key(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The k smallest of the n distinct keys a[0..n) moved to a[0..k), in no order (Hoare's
 * quickselect, median-of-three pivots; 0 < k < n). */
static void select_smallest(uint64_t *a, int n, int k) {
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        uint64_t x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi];
        uint64_t pivot = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
        int i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot) i++;
            while (a[j] > pivot) j--;
            if (i <= j) { uint64_t t = a[i]; a[i] = a[j]; a[j] = t; i++; j--; }
        }
        if (k - 1 <= j) hi = j;                         /* a[lo..j] ≤ pivot ≤ a[i..hi] */
        else if (k - 1 >= i) lo = i;
        else return;                                    /* a[k-1] is the pivot, in place */
    }
}

/* w->keys[0..first): the first `first` moves in the order their edges take (prior descending;
 * ties in a random order fixed by the position and the seed), w->keys[first..n) the others in no
 * order, after force_prior's and (with `tactic`) the tactic floor's raises of priors[] (in place).
 * The same moves and priors give the same order; an expansion that stores a window of 32 edges
 * orders 32 keys rather than all (on 37 rings a sort of all took 9 % of self-play's time). */
static void sort_moves(puct_worker *w, const zz_pos *pos, const zz_move *moves, float *priors, int n, bool tactic,
                       int first) {
    mcts_puct *s = w->s;
    uint32_t salt = (uint32_t)(zz_hash(pos) ^ s->cfg.seed);
    uint64_t *keys = w->keys, *tmp = w->keys + ZZ_MAX_MOVES;
    if (s->cfg.force_prior > 0) boost_forcing(s, pos, moves, priors, n);
    if (tactic) mcts_tactic_boost(w->ab, pos, moves, priors, n, (float)s->cfg.tactic_prior, s->cfg.tactic_margin);
    for (int i = 0; i < n; i++) {
        float p = priors[i];
        if (!(p >= 0)) p = 0;                           /* NaN or negative: never preferred */
        keys[i] = (uint64_t)(~float_bits(p)) << 32 | (uint64_t)(mix32((uint32_t)moves[i] ^ salt) & 0xFFFF0000u) | (uint64_t)i;
    }
    if (first >= n) radix_sort(keys, tmp, n);           /* stable: equal digits stay in index order */
    else {
        select_smallest(keys, n, first);                /* no longer in index order: whole keys */
        if (first <= 64) insertion_sort(keys, first);
        else qsort(keys, (size_t)first, sizeof *keys, cmp_key);
    }
}

/* A prior as an edge stores it before normalisation: tempered (p^(1/T)), never negative. */
static float tempered(float p, float inv_temp) {
    if (!(p >= 0)) return 0;
    return inv_temp != 1.0f && p > 0 ? powf(p, inv_temp) : p;
}

/* Edges for the first `keep` moves of w->keys' order (sort_moves ordered at least those), their
 * priors tempered and normalised over the first `norm` of that order (norm == keep, when
 * max_children drops the rest) or over all n moves (norm == n, summed in the moves' order: a
 * window's priors are then the whole list's).  The first edge, 0 when the arena is full. */
static uint32_t write_edges(puct_worker *w, const zz_move *moves, const float *priors, int keep, int norm, int n) {
    mcts_tree *t = &w->s->tree;
    uint32_t e = mcts_arena_alloc(&t->edges[t->cur], (uint32_t)keep);
    if (!e) return 0;
    mcts_edge *edges = mcts_tree_edges(t, e);
    float inv_temp = (float)(1.0 / w->s->cfg.prior_temp);
    double sum = 0;
    for (int i = 0; i < keep; i++) {
        int j = (int)(w->keys[i] & 0xFFFF);
        edges[i] = (mcts_edge){ moves[j], tempered(priors[j], inv_temp) };
    }
    if (norm < n)
        for (int i = 0; i < norm; i++) sum += edges[i].prior;
    else
        for (int j = 0; j < n; j++) sum += tempered(priors[j], inv_temp);
    double scale = sum > 0 ? 1.0 / sum : 0;
    for (int i = 0; i < keep; i++)
        edges[i].prior = scale > 0 ? (float)(edges[i].prior * scale) : 1.0f / (float)norm;
    return e;
}

/* Whether cfg lets expansions keep edge windows: no option needs a node's whole list or changes
 * its priors by where the root is. */
static bool windows_configured(const mcts_puct_config *c) {
    return c->edge_window > 0 && c->max_children == 0 && !c->solver && c->sym_visits == 0 && c->tactic_prior <= 0;
}

/* Whether the root is expanded with a window of its edges only (it was expanded as a child: tree
 * reuse), where every root-wide step (noise, Gumbel, averaging, the move choice) needs them all. */
static bool root_keeps_window(const mcts_puct *s) {
    mcts_node *root = mcts_tree_root(&((mcts_puct *)s)->tree);
    if (!windows_configured(&s->cfg) || atomic_load_explicit(&root->state, memory_order_acquire) != MCTS_EXPANDED)
        return false;
    uint32_t ne = atomic_load_explicit(&root->nedges, memory_order_acquire);
    return ne > 0 && ne < root->nmoves;
}

/* Whether this worker's expansions keep edge windows (puct.h, edge_window): cfg allows them, and
 * the worker can evaluate a node again (search_inline) or ask for it (widen_requests). */
static bool windows_on(const puct_worker *w) {
    return (w->widen_ev || w->widen_requests) && windows_configured(&w->s->cfg);
}

/* Store the evaluated request's moves as edges sorted by prior (the first edge_window of them
 * below the root when windows_on), then publish the node as EXPANDED. */
static void expand(puct_worker *w, mcts_request *r) {
    mcts_puct *s = w->s;
    mcts_tree *t = &s->tree;
    mcts_node *node = mcts_tree_node(t, r->node);
    int n = r->item.nmoves;
    int keep = s->cfg.max_children > 0 && s->cfg.max_children < n ? s->cfg.max_children : n, norm = keep;
    if (keep > s->cfg.edge_window && r->node != t->root && windows_on(w)) keep = s->cfg.edge_window;
    sort_moves(w, &r->pos, r->item.moves, r->item.priors, n,
               w->ab && r->pos.ply - t->root_pos.ply <= s->cfg.tactic_depth, keep);
    uint32_t e = write_edges(w, r->item.moves, r->item.priors, keep, norm, n);
    node->nmoves = (uint32_t)n;
    node->value = r->item.value;
    if (e) {
        node->edges = e;
        node->nedges = (uint32_t)keep;
    } else {
        atomic_store_explicit(&t->full, 1, memory_order_relaxed);
        node->nedges = 0;
    }
    atomic_store_explicit(&node->state, MCTS_EXPANDED, memory_order_release);
}

static bool claim_widening(mcts_node *node) {
    uint8_t idle = 0;
    return atomic_compare_exchange_strong(&node->widening, &idle, 1);
}

static void release_widening(mcts_node *node) { atomic_store_explicit(&node->widening, 0, memory_order_release); }

/* w->keys[0..n) (a widened node's moves, the first keep > have in the new order) rearranged so
 * that the moves of the node's `have` old edges come first, in their order, and the others follow
 * in the new order up to keep (the keep ordered keys hold at least keep - have others).  false
 * when an old move is not among moves[] (it always is: the same position's moves). */
static bool old_edges_first(puct_worker *w, const zz_move *moves, int n, const mcts_edge *old, uint32_t have) {
    uint64_t *keys = w->keys, *old_at = w->keys + ZZ_MAX_MOVES;   /* old_at[j]: 1 + j's old edge, or 0 */
    memset(old_at, 0, (size_t)n * sizeof *old_at);
    for (uint32_t i = 0; i < have; i++) {
        int j = 0;
        while (j < n && moves[j] != old[i].move) j++;
        if (j == n) return false;
        old_at[j] = i + 1;
    }
    int to = n;                                       /* the others, in order, to the end */
    for (int i = n - 1; i >= 0; i--)
        if (!old_at[keys[i] & 0xFFFF]) keys[--to] = keys[i];
    for (int j = 0; j < n; j++)
        if (old_at[j]) keys[old_at[j] - 1] = (uint64_t)j;
    return true;
}

/* Widen the expanded node's edge window (its edges are the first nedges of its nmoves sorted
 * moves) to four times as many edges, or to all of them with `all`, from its position's moves and
 * priors evaluated again (n of them): sorted as expand did, the new edges, which begin with the
 * old ones, replace them (edges, then nedges with release: a reader of nedges finds edges at
 * least that long).  The old edges, on which children may sit, must be a prefix of the new
 * order: when the evaluator ranked the moves otherwise this time, `merge` keeps the old edges
 * first and the rest in the new order (counted in w->reranked), else the widening is refused
 * rather than a tree with two children of a move.  The caller holds the node's widening.  1
 * widened, 0 not (nothing to widen, or the arena is full: t->full), -1 with a message in
 * w->sym_err. */
static int widen_with(puct_worker *w, mcts_node *node, const zz_pos *pos, const zz_move *moves, float *priors,
                      int n, bool all, bool merge) {
    mcts_tree *t = &w->s->tree;
    uint32_t have = atomic_load_explicit(&node->nedges, memory_order_acquire);
    if (have == 0 || have >= node->nmoves) return 0;
    if (n != (int)node->nmoves) {
        snprintf(w->sym_err, sizeof w->sym_err, "widening a node: %d legal moves, %u when expanded", n, node->nmoves);
        return -1;
    }
    int keep = all || 4 * (uint64_t)have >= (uint64_t)n ? n : (int)(4 * have);
    sort_moves(w, pos, moves, priors, n, false, keep);
    const mcts_edge *old = mcts_tree_edges(t, atomic_load_explicit(&node->edges, memory_order_acquire));
    bool same = true;
    for (uint32_t i = 0; i < have && same; i++) same = moves[w->keys[i] & 0xFFFF] == old[i].move;
    if (!same && !merge) {
        snprintf(w->sym_err, sizeof w->sym_err, "widening a node: the evaluator ranked its moves otherwise "
                 "the second time (edge windows need an evaluator that answers a position alike each time; edges=0)");
        return -1;
    }
    if (!same && !old_edges_first(w, moves, n, old, have)) {
        snprintf(w->sym_err, sizeof w->sym_err, "widening a node: a move of its edges is not among its moves");
        return -1;
    }
    uint32_t e = write_edges(w, moves, priors, keep, n, n);
    if (!e) {
        atomic_store_explicit(&t->full, 1, memory_order_relaxed);
        return 0;
    }
    if (!same) {                                      /* the old edges unchanged, bit for bit */
        memcpy(mcts_tree_edges(t, e), old, have * sizeof *old);
        w->reranked++;
    }
    atomic_store_explicit(&node->edges, e, memory_order_release);
    atomic_store_explicit(&node->nedges, (uint32_t)keep, memory_order_release);
    return 1;
}

/* Widen the node's window now, its position evaluated again by the worker's evaluator (which
 * answers a position the same way each time: no merging).  One thread at a time: one that finds
 * another widening goes on without (0).  widen_with's results otherwise. */
static int widen(puct_worker *w, mcts_node *node, const zz_pos *pos, bool all) {
    if (!claim_widening(node)) return 0;
    int rc = 0;
    uint32_t have = atomic_load_explicit(&node->nedges, memory_order_acquire);
    if (have > 0 && have < node->nmoves) {
        mcts_eval_item it = { .pos = pos, .moves = w->wmoves, .nmoves = zz_gen_moves(pos, w->wmoves), .priors = w->wpriors };
        rc = mcts_evaluate(w->widen_ev, &it, 1, w->sym_err, sizeof w->sym_err);
        if (rc == 0) {
            w->widened++;
            rc = widen_with(w, node, pos, w->wmoves, w->wpriors, it.nmoves, all, false);
        }
    }
    release_widening(node);
    return rc;
}

/* Finish a widening request (D_WIDEN): widen with its evaluation, merging a new ranking (the
 * weights may have changed since the node's expansion).  A failure (impossible with the node's
 * own position: its moves are those it was expanded with) marks the tree full, so that no descent
 * asks again and the search ends with what it has. */
static void finish_widening(puct_worker *w, mcts_request *r) {
    mcts_tree *t = &w->s->tree;
    mcts_node *node = mcts_tree_node(t, r->node);
    int rc = widen_with(w, node, &r->pos, r->item.moves, r->item.priors, r->item.nmoves,
                        w->slot_widen[r - w->slots] == WIDEN_ALL, true);
    if (rc < 0) atomic_store_explicit(&t->full, 1, memory_order_relaxed);
    w->req_widened += rc > 0;
    release_widening(node);
}

/* Expand and back up an evaluated leaf, or widen the node of a widening request.  Returns
 * whether it was a simulation (a leaf). */
static bool complete(puct_worker *w, mcts_request *r) {
    mcts_tree *t = &w->s->tree;
    bool leaf = w->slot_widen[r - w->slots] == WIDEN_NONE;
    if (leaf) {
        expand(w, r);
        mcts_node *node = mcts_tree_node(t, r->node);
        mcts_tree_backup(t, r->node, r->item.value, node->to_move, (uint32_t)w->s->cfg.virtual_loss);
    } else {
        finish_widening(w, r);
        w->slot_widen[r - w->slots] = WIDEN_NONE;
    }
    atomic_store_explicit(&r->state, MCTS_REQ_FREE, memory_order_relaxed);
    return leaf;
}

/* ---- the stepping API (puct.h) ------------------------------------------------------------ */
mcts_puct_worker *mcts_puct_worker_new(mcts_puct *s, int slots, uint64_t seed) {
    puct_worker *w = malloc(sizeof *w);
    if (!w) return NULL;
    if (worker_init(w, s, slots > 0 ? slots : 1, seed) != 0) { worker_free(w); free(w); return NULL; }
    w->widen_requests = true;
    return w;
}

void mcts_puct_worker_free(mcts_puct_worker *w) {
    if (!w) return;
    worker_free(w);
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
    switch (descend(w, r)) {
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

void mcts_puct_finish(mcts_puct_worker *w, mcts_request *req) { complete(w, req); }

void mcts_puct_abandon(mcts_puct_worker *w, mcts_request *req) {
    uint8_t *kind = &w->slot_widen[req - w->slots];
    if (*kind == WIDEN_NONE) undo_path(&w->s->tree, req->node, (uint32_t)w->s->cfg.virtual_loss);
    else release_widening(mcts_tree_node(&w->s->tree, req->node));   /* its path was undone at the step */
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

/* ---- root noise ----------------------------------------------------------------------------- */
static int cmp_edge_desc(const void *a, const void *b) {
    const mcts_edge *x = a, *y = b;
    return x->prior < y->prior ? 1 : x->prior > y->prior ? -1 : 0;
}

void mcts_puct_root_noise(mcts_puct *s) {
    mcts_tree *t = &s->tree;
    mcts_node *root = mcts_tree_root(t);
    if (root->noised || root->nedges == 0 || atomic_load(&root->state) != MCTS_EXPANDED) return;
    int n = (int)root->nedges;
    double *eta = malloc((size_t)n * sizeof *eta);
    if (!eta) return;
    mcts_dirichlet(s->cfg.noise_alpha_total / n, n, eta, &s->rng);
    mcts_edge *e = mcts_tree_edges(t, root->edges);
    double eps = s->cfg.noise_eps;
    for (int i = 0; i < n; i++) e[i].prior = (float)((1 - eps) * e[i].prior + eps * eta[i]);
    free(eta);
    uint32_t open = atomic_load(&root->nopen);
    MCTS_FOR_EACH_CHILD(t, root, c)
        for (uint32_t i = 0; i < open; i++)
            if (e[i].move == c->move) { c->prior = e[i].prior; break; }
    if (open < root->nedges) qsort(e + open, root->nedges - open, sizeof *e, cmp_edge_desc);
    root->noised = 1;
}

/* ---- priors averaged over symmetries (root_syms, sym_visits) ------------------------------------ */
/* Replace an expanded node's edge priors (the node at position pos) by the mean of ev's over
 * cfg.root_syms symmetries (sym_eval.h), tempered and renormalised over the kept edges as
 * expand() does, and its value by the mean value; opened children's priors follow, unopened edges
 * are sorted again (the opened ones stay a prefix).  Once per node with two moves or more (not a
 * forced node passed unevaluated); only while no other thread reads the node's edges.  0, or -1
 * with the evaluator's message. */
static int node_symmetry(mcts_puct *s, mcts_evaluator *ev, mcts_node *node, const zz_pos *pos, char *err,
                         size_t errlen) {
    mcts_tree *t = &s->tree;
    if (node->sym_averaged || node->nedges < 2 || node->passed || atomic_load(&node->state) != MCTS_EXPANDED)
        return 0;                                   /* one move, or forced and unevaluated: nothing to average */
    node->sym_averaged = 1;
    int n = (int)node->nedges;
    mcts_edge *e = mcts_tree_edges(t, node->edges);
    zz_move *moves = calloc((size_t)n, sizeof *moves);
    float *avg = malloc((size_t)n * sizeof *avg);
    float value = 0;
    int rc = -1;
    if (!moves || !avg) {
        snprintf(err, errlen, "out of memory");
    } else {
        for (int i = 0; i < n; i++) moves[i] = e[i].move;
        rc = mcts_eval_symmetric(ev, pos, moves, n, s->cfg.root_syms, avg, &value, err, errlen);
    }
    if (rc == 0) {
        double sum = 0, inv_temp = 1.0 / s->cfg.prior_temp;
        for (int i = 0; i < n; i++) {
            double p = avg[i] > 0 ? avg[i] : 0;
            if (inv_temp != 1.0 && p > 0) p = pow(p, inv_temp);
            e[i].prior = (float)p;
            sum += p;
        }
        for (int i = 0; i < n; i++) e[i].prior = sum > 0 ? (float)(e[i].prior / sum) : 1.0f / (float)n;
        node->value = value;
        uint32_t open = atomic_load(&node->nopen);
        MCTS_FOR_EACH_CHILD(t, node, c)
            for (uint32_t i = 0; i < open; i++)
                if (e[i].move == c->move) { c->prior = e[i].prior; break; }
        if (open < node->nedges) qsort(e + open, node->nedges - open, sizeof *e, cmp_edge_desc);
    }
    free(moves);
    free(avg);
    return rc;
}

/* The root's, before a search (root_syms > 1). */
static int root_symmetry(mcts_puct *s, char *err, size_t errlen) {
    if (s->cfg.root_syms < 2) return 0;
    return node_symmetry(s, s->ev, mcts_tree_root(&s->tree), &s->tree.root_pos, err, errlen);
}

/* A root that kept an edge window (a child when expanded: tree reuse) gets all its edges before a
 * search, with the searcher's evaluator (every root-wide step, from noise to the move choice,
 * reads the whole list).  0, or -1 with a message. */
static int root_widen(mcts_puct *s, puct_worker *w0, char *err, size_t errlen) {
    mcts_node *root = mcts_tree_root(&s->tree);
    if (!root_keeps_window(s)) return 0;
    w0->widen_ev = s->ev;
    int rc = widen(w0, root, &s->tree.root_pos, true);
    w0->widen_ev = NULL;
    if (rc < 0) snprintf(err, errlen, "%s", w0->sym_err);
    return rc < 0 ? -1 : 0;
}

/* ---- the search ------------------------------------------------------------------------------ */
static bool take_ticket(mcts_puct *s) {
    if (atomic_load_explicit(&s->stop, memory_order_relaxed)) return false;
    if (s->cfg.solver && mcts_proof(mcts_tree_root(&s->tree)) != MCTS_PROOF_NONE) {
        atomic_store(&s->stop, 1);                  /* the root is proven: nothing left to learn */
        return false;
    }
    if (atomic_fetch_add_explicit(&s->started, 1, memory_order_relaxed) < s->target) return true;
    return false;
}

static bool past_deadline(mcts_puct *s, uint64_t count) {
    if (s->deadline > 0 && (count & 15) == 0 && mcts_now_s() >= s->deadline) {
        atomic_store(&s->stop, 1);
        return true;
    }
    return false;
}

/* Inline search: gather up to `batch` leaves, evaluate them with ev in one call, back them up.
 * The single-thread mode, and each thread of the per-thread-evaluator mode: there a leaf of
 * another thread may block every path for a moment (a collision with nothing gathered), so the
 * thread waits and tries again until the search stops. */
static int search_inline(mcts_puct *s, puct_worker *w, mcts_evaluator *ev, char *err, size_t errlen,
                         uint64_t *evals, uint64_t *batches) {
    mcts_eval_item *items = malloc((size_t)w->nslots * sizeof *items);
    if (!items) { snprintf(err, errlen, "out of memory"); return -1; }
    bool ticket = false, shared = s->cfg.threads > 1;
    int rc = 0, spins = 0;
    w->ev = s->cfg.threads == 1 ? ev : NULL;       /* sym_visits: one thread only (puct.h) */
    w->widen_ev = ev;
    for (;;) {
        int n = 0;
        while (n < w->nslots) {
            if (!ticket && !(ticket = take_ticket(s))) break;
            int d = descend(w, &w->slots[n]);
            if (d == D_FAILED) { snprintf(err, errlen, "%s", w->sym_err); rc = -1; break; }
            if (d == D_SUBMIT) { n++; ticket = false; continue; }
            if (d == D_DONE) { w->done++; ticket = false; past_deadline(s, w->done); continue; }
            if (d == D_FULL) { w->full = 1; atomic_store(&s->stop, 1); ticket = false; break; }
            w->collisions++;                 /* a leaf of this batch (or another thread's) is on the path: flush */
            break;
        }
        if (rc != 0) {
            for (int i = 0; i < n; i++) mcts_puct_abandon(w, &w->slots[i]);   /* PENDING: the tree is reset after */
            atomic_store(&s->stop, 1);
            break;
        }
        if (n == 0) {
            if (!shared || !ticket || atomic_load_explicit(&s->stop, memory_order_relaxed)) break;
            mcts_backoff(&spins);            /* another thread's leaf is in the way */
            continue;
        }
        spins = 0;
        for (int i = 0; i < n; i++) items[i] = w->slots[i].item;
        if (mcts_evaluate(ev, items, n, err, errlen) != 0) {
            for (int i = 0; i < n; i++) mcts_puct_abandon(w, &w->slots[i]);   /* PENDING: the tree is reset after */
            atomic_store(&s->stop, 1);
            rc = -1;
            break;
        }
        (*evals) += (uint64_t)n;
        (*batches)++;
        for (int i = 0; i < n; i++) {
            w->slots[i].item.value = items[i].value;
            complete(w, &w->slots[i]);
            w->done++;
            past_deadline(s, w->done);
        }
    }
    free(items);
    return rc;
}

/* Worker thread (threads > 1): keep up to nslots leaves waiting in the batcher. */
static void *worker_main(void *arg) {
    puct_worker *w = arg;
    mcts_puct *s = w->s;
    bool ticket = false, no_more = false;
    int waiting = 0, spins = 0;
    for (;;) {
        bool progress = false;
        for (int i = 0; i < w->nslots && waiting; i++) {
            mcts_request *r = &w->slots[i];
            int st = mcts_request_state(r);
            if (st == MCTS_REQ_DONE) {
                if (complete(w, r)) {
                    w->done++;
                    past_deadline(s, w->done);
                }
                waiting--;
                progress = true;
            } else if (st == MCTS_REQ_FAILED) {
                mcts_puct_abandon(w, r);     /* the node stays PENDING: the tree is reset after */
                waiting--;
                w->failed = 1;
                atomic_store(&s->stop, 1);
            }
        }
        if (!no_more && waiting < w->nslots) {
            if (!ticket && !(ticket = take_ticket(s))) no_more = true;
            if (ticket) {
                int free_slot = 0;
                while (mcts_request_state(&w->slots[free_slot]) != MCTS_REQ_FREE) free_slot++;
                mcts_request *r = &w->slots[free_slot];
                int d = descend(w, r);
                if (d == D_SUBMIT || d == D_WIDEN) {
                    while (!mcts_batcher_submit(&s->batcher, r)) sched_yield();   /* never full */
                    waiting++;
                    ticket = d == D_WIDEN;    /* a widening is no simulation: the ticket waits */
                    progress = true;
                } else if (d == D_DONE) {
                    w->done++;
                    ticket = false;
                    progress = true;
                    past_deadline(s, w->done);
                } else if (d == D_FULL) {
                    w->full = 1;
                    ticket = false;
                    atomic_store(&s->stop, 1);
                } else {
                    w->collisions++;          /* keep the ticket, retry after a pause */
                }
            }
        }
        if (atomic_load_explicit(&s->stop, memory_order_relaxed)) { no_more = true; ticket = false; }
        if (no_more && !ticket && waiting == 0) break;
        if (progress) spins = 0;
        else mcts_backoff(&spins);
    }
    atomic_fetch_sub_explicit(&s->running, 1, memory_order_release);
    return NULL;
}

/* What a search did, summed over its threads. */
typedef struct { uint64_t evals, batches, done, collisions; int full; } search_counts;

static void count_worker(search_counts *k, const puct_worker *w) {
    k->evals += w->widened;
    k->done += w->done;
    k->collisions += w->collisions;
    k->full |= w->full;
}

/* Start fn(&arg[i]) on nt threads (arg is an array of elements of size `size`); returns how
 * many started. */
static int start_threads(pthread_t *th, int nt, void *(*fn)(void *), void *arg, size_t size) {
    int started = 0;
    for (int i = 0; i < nt; i++) {
        if (pthread_create(&th[i], NULL, fn, (char *)arg + (size_t)i * size) != 0) break;
        started++;
    }
    return started;
}

/* threads > 1 with one shared evaluator: nt workers submit leaves to the batcher, the caller
 * evaluates whatever is queued.  0, or -1 with a message. */
static int search_batched(mcts_puct *s, search_counts *k, char *err, size_t errlen) {
    int nt = s->cfg.threads, rc = 0;
    puct_worker *ws = calloc((size_t)nt, sizeof *ws);
    pthread_t *th = calloc((size_t)nt, sizeof *th);
    int ok = ws && th;
    for (int i = 0; ok && i < nt; i++) {
        ok = worker_init(&ws[i], s, s->cfg.inflight, s->rng + (uint64_t)i + 1) == 0;
        ws[i].widen_requests = true;      /* no evaluator at hand: windows widen through the batcher */
    }
    s->batcher.evals = s->batcher.batches = 0;
    atomic_store(&s->batcher.failed, 0);
    atomic_store(&s->running, nt);
    int started = ok ? start_threads(th, nt, worker_main, ws, sizeof *ws) : 0;
    atomic_fetch_sub(&s->running, nt - started);
    if (started == 0) { rc = -1; snprintf(err, errlen, "cannot start search threads"); }
    /* The caller serves evaluations until every worker has finished (they wait for their own
     * leaves, and serve() never waits for a full batch: no deadlock). */
    int idle = 0;
    while (started && atomic_load_explicit(&s->running, memory_order_acquire) > 0) {
        if (mcts_batcher_serve(&s->batcher) != 0) idle = 0;
        else mcts_backoff(&idle);
    }
    while (mcts_batcher_serve(&s->batcher) > 0) {}
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    if (atomic_load(&s->batcher.failed)) { rc = -1; snprintf(err, errlen, "%s", s->batcher.err); }
    k->evals += s->batcher.evals;
    k->batches += s->batcher.batches;
    for (int i = 0; ws && i < nt; i++) {
        count_worker(k, &ws[i]);
        worker_free(&ws[i]);
    }
    free(ws);
    free(th);
    s->rng = mcts_seed(s->rng + (uint64_t)nt);
    return rc;
}

/* Whether threads > 1 search with an evaluator each (config thread_evaluators, and the
 * evaluator can be copied); the copies are made here, once.  When a copy cannot be made the
 * search falls back to the shared batcher (with one message on stderr). */
static bool per_thread_evaluators(mcts_puct *s) {
    int need = s->cfg.threads - 1;
    if (!s->cfg.thread_evaluators || !s->ev->clone) return false;
    if (s->ncopies >= need) return true;
    if (s->ncopies < 0) return false;                    /* failed before */
    mcts_evaluator **c = realloc(s->copies, (size_t)need * sizeof *c);
    char why[256] = "out of memory";
    if (c) {
        s->copies = c;
        while (s->ncopies < need && (c[s->ncopies] = mcts_evaluator_clone(s->ev, why, sizeof why))) s->ncopies++;
    }
    if (s->ncopies >= need) return true;
    fprintf(stderr, "zertz: search: one evaluator for %d threads (cannot copy %s: %s)\n", s->cfg.threads,
            s->ev->name ? s->ev->name : "it", why);
    for (int i = 0; i < s->ncopies; i++) mcts_evaluator_free(s->copies[i]);
    s->ncopies = -1;
    return false;
}

typedef struct {
    puct_worker w;
    mcts_evaluator *ev;
    uint64_t evals, batches;
    int rc;
    char err[256];
} inline_job;

static void *inline_main(void *arg) {
    inline_job *j = arg;
    j->rc = search_inline(j->w.s, &j->w, j->ev, j->err, sizeof j->err, &j->evals, &j->batches);
    return NULL;
}

/* threads > 1 with an evaluator each: every thread (the caller is thread 0) gathers its own
 * batches and evaluates them itself, on the one shared tree.  0, or -1 with a message. */
static int search_per_thread(mcts_puct *s, search_counts *k, char *err, size_t errlen) {
    int nt = s->cfg.threads, rc = 0;
    inline_job *js = calloc((size_t)nt, sizeof *js);
    pthread_t *th = calloc((size_t)nt, sizeof *th);
    int ok = js && th;
    for (int i = 0; ok && i < nt; i++) {
        ok = worker_init(&js[i].w, s, s->cfg.batch, s->rng + (uint64_t)i + 1) == 0;
        js[i].ev = i == 0 ? s->ev : s->copies[i - 1];
    }
    int started = ok ? start_threads(th, nt - 1, inline_main, js + 1, sizeof *js) : 0;
    if (ok) inline_main(&js[0]);
    else { rc = -1; snprintf(err, errlen, "out of memory"); }
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    for (int i = 0; js && i < nt; i++) {
        if (js[i].rc != 0 && rc == 0) { rc = -1; snprintf(err, errlen, "%s", js[i].err); }
        k->evals += js[i].evals;
        k->batches += js[i].batches;
        count_worker(k, &js[i].w);
        worker_free(&js[i].w);
    }
    free(js);
    free(th);
    s->rng = mcts_seed(s->rng + (uint64_t)nt);
    return rc;
}

void mcts_puct_stop(mcts_puct *s) { atomic_store(&s->stop, 1); }

int mcts_puct_search(mcts_puct *s, uint64_t sims, double time_ms, bool noise, mcts_search_stats *st,
                     char *err, size_t errlen) {
    double t0 = mcts_now_s();
    mcts_tree *t = &s->tree;
    mcts_node *root = mcts_tree_root(t);
    if (st) memset(st, 0, sizeof *st);
    if (atomic_load(&root->state) == MCTS_TERMINAL) return 0;
    uint32_t have = mcts_stats_n(mcts_node_load(root));
    uint64_t room = have < MCTS_MAX_VISITS ? MCTS_MAX_VISITS - have : 0;
    if (sims == 0 && time_ms <= 0) sims = 1;
    s->target = sims && sims < room ? sims : room;
    atomic_store(&s->started, 0);
    atomic_store(&s->stop, 0);
    s->deadline = time_ms > 0 ? t0 + time_ms / 1000.0 : 0;
    search_counts k = { 0, 0, 0, 0, 0 };
    int rc = 0;
    char ebuf[256] = "";

    /* A new root is evaluated first, alone (it is simulation 1), so that noise can be mixed in. */
    puct_worker w0;
    int nslots0 = s->cfg.threads == 1 ? s->cfg.batch : 1;
    if (worker_init(&w0, s, nslots0, s->rng)) { worker_free(&w0); snprintf(err, errlen, "out of memory"); return -1; }
    s->rng = mcts_seed(s->rng ^ 0x5EA4C4ULL);
    if (atomic_load(&root->state) == MCTS_NEW && s->target > 0) {
        atomic_fetch_add(&s->started, 1);
        descend(&w0, &w0.slots[0]);
        mcts_eval_item it = w0.slots[0].item;
        if (mcts_evaluate(s->ev, &it, 1, ebuf, sizeof ebuf) != 0) rc = -1;
        else {
            w0.slots[0].item.value = it.value;
            complete(&w0, &w0.slots[0]);
            k.evals++, k.batches++, k.done++;
        }
    }
    if (rc == 0 && root_widen(s, &w0, ebuf, sizeof ebuf) != 0) rc = -1;
    if (rc == 0 && root_symmetry(s, ebuf, sizeof ebuf) != 0) rc = -1;
    if (rc == 0 && s->cfg.gumbel_m > 0 && sims > 0 && !gumbel_active(s))
        mcts_puct_gumbel_root(s, s->target > 1 ? s->target - 1 : 1);
    else if (rc == 0 && noise && s->cfg.noise_eps > 0) mcts_puct_root_noise(s);

    if (rc == 0 && s->cfg.threads == 1) {
        rc = search_inline(s, &w0, s->ev, ebuf, sizeof ebuf, &k.evals, &k.batches);
        count_worker(&k, &w0);
    } else if (rc == 0 && per_thread_evaluators(s)) {
        rc = search_per_thread(s, &k, ebuf, sizeof ebuf);
    } else if (rc == 0) {
        rc = search_batched(s, &k, ebuf, sizeof ebuf);
    }
    worker_free(&w0);
    if (st) {
        st->iterations = k.done;
        st->seconds = mcts_now_s() - t0;
        st->nodes = mcts_arena_used(&t->nodes[t->cur]);
        st->collisions = k.collisions;
        st->evals = k.evals;
        st->batches = k.batches;
    }
    if (rc != 0) {
        snprintf(err, errlen, "evaluator %s: %s", s->ev->name ? s->ev->name : "?", ebuf);
        zz_pos p = t->root_pos;
        mcts_tree_reset(t, &p, true);        /* PENDING nodes may remain: start clean */
        return -1;
    }
    if (k.full) { snprintf(err, errlen, "search tree is full"); return -1; }
    return 0;
}

/* ---- move choice ---------------------------------------------------------------------------- */
zz_move mcts_puct_pick(mcts_puct *s, double temperature) {
    const mcts_tree *t = &s->tree;
    const mcts_node *root = mcts_tree_root(t);
    if (gumbel_active(s)) {                          /* the candidate sequential halving chose */
        uint32_t visits[MCTS_GUMBEL_MAX];
        double sigma[MCTS_GUMBEL_MAX];
        gumbel_stats(s, visits, sigma, NULL);
        int j = mcts_halving_best(&s->halving, sigma);
        if (j >= 0) return mcts_tree_edges(t, root->edges)[j].move;
    }
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
