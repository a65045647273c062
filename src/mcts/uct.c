/* uct.c — parallel UCT with random rollouts over the shared lock-free tree (see uct.h, tree.h).
 *
 * One iteration: descend from the root adding a visit in flight to every node passed; at each
 * node either open a new child (claim slot k with a CAS on nopen; its move is the k-th of the
 * node's seeded move order, order.h; publish it in slot k with a release store) and play a
 * random game from it, or step into the child of highest UCB; then back up the result (one
 * fetch_add per node).  Nothing is locked; a thread never waits for another. */
#include "uct.h"
#include "mcts/clock.h"
#include "order.h"
#include "rand.h"
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct mcts_uct {
    mcts_uct_config cfg;
    mcts_tree tree;
    uint64_t rng;                   /* advanced by every search: repeated searches differ */
    uint64_t target;                /* iterations this search may start */
    _Atomic uint64_t started;       /* tickets handed out */
    _Atomic int stop;
    double deadline;                /* monotonic seconds; 0 = none */
    zz_move *pmoves;                /* prior ordering scratch: [ZZ_MAX_MOVES] moves, priors, order */
    float *ppriors;
    uint32_t *porder;
    char err[256];                  /* the first evaluator error */
    int prior_off;                  /* an error or a full edge arena: random order from now on */
};

typedef struct {
    mcts_uct *u;
    uint64_t rng;
    mcts_arena_cache cache;
    zz_move moves[6 * 61];          /* jump-list scratch for mcts_move_at */
    uint64_t done;
    int full;
} uct_worker;

void mcts_uct_config_default(mcts_uct_config *c) {
    memset(c, 0, sizeof *c);
    c->seed = 1;
    c->threads = 1;
    c->c_uct = 0.7;
    c->fpu = 0.0;
    c->pw_c = 2.0;
    c->pw_alpha = 0.5;
    c->virtual_loss = 1;
    c->root_win_check = 1;
    c->max_nodes = 0;
}


mcts_uct *mcts_uct_new(const mcts_uct_config *cfg) {
    mcts_uct *u = calloc(1, sizeof *u);
    if (!u) return NULL;
    u->cfg = *cfg;
    if (u->cfg.threads < 1) u->cfg.threads = 1;
    if (u->cfg.virtual_loss < 1) u->cfg.virtual_loss = 1;
    if (u->cfg.prior_ev) {
        if (u->cfg.threads != 1) { free(u); return NULL; }
        if (!u->cfg.prior_visits) u->cfg.prior_visits = 64;
        u->pmoves = malloc(ZZ_MAX_MOVES * sizeof *u->pmoves);
        u->ppriors = malloc(ZZ_MAX_MOVES * sizeof *u->ppriors);
        u->porder = malloc(ZZ_MAX_MOVES * sizeof *u->porder);
        if (!u->pmoves || !u->ppriors || !u->porder) { free(u->pmoves); free(u->ppriors); free(u->porder); free(u); return NULL; }
    }
    if (mcts_tree_init(&u->tree, u->cfg.max_nodes, u->cfg.prior_ev ? 1u << 26 : 2)) {
        free(u->pmoves); free(u->ppriors); free(u->porder);
        free(u);
        return NULL;
    }
    u->rng = mcts_seed(cfg->seed);
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    mcts_uct_set_root(u, &p);
    return u;
}

void mcts_uct_free(mcts_uct *u) {
    if (!u) return;
    mcts_tree_free(&u->tree);
    free(u->pmoves);
    free(u->ppriors);
    free(u->porder);
    free(u);
}

const char *mcts_uct_error(const mcts_uct *u) { return u->err[0] ? u->err : NULL; }

const mcts_tree *mcts_uct_tree(const mcts_uct *u) { return &u->tree; }
const mcts_uct_config *mcts_uct_get_config(const mcts_uct *u) { return &u->cfg; }

/* A fresh root needs its move count and its children's order. */
static void fix_root(mcts_uct *u) {
    mcts_node *r = mcts_tree_root(&u->tree);
    if (atomic_load(&r->state) != MCTS_TERMINAL && r->nmoves == 0)
        r->nmoves = (uint32_t)zz_count_moves(&u->tree.root_pos);
    if (!r->seed) {
        u->rng = mcts_seed(u->rng);
        r->seed = (uint32_t)u->rng | 1u;
    }
}

static uint32_t child_seed(uint32_t parent_seed, zz_move m) {
    uint32_t x = parent_seed ^ (m * 0x9E3779B1u);
    x ^= x >> 16; x *= 0x7FEB352Du; x ^= x >> 15; x *= 0x846CA68Bu; x ^= x >> 16;
    return x | 1u;
}

void mcts_uct_set_root(mcts_uct *u, const zz_pos *p) {
    mcts_tree_reset(&u->tree, p, false);
    fix_root(u);
}

bool mcts_uct_advance(mcts_uct *u, zz_move m) {
    bool kept = mcts_tree_advance(&u->tree, m, false);
    fix_root(u);
    return kept;
}

/* ---- one iteration ---------------------------------------------------------------------- */
static int rollout(zz_pos *p, uint64_t *rng) {
    while (!zz_over(p)) zz_apply(p, zz_random_move(p, rng), NULL);
    return p->winner;
}

static void back_up_result(mcts_tree *t, uint32_t leaf, int winner, uint32_t vl) {
    if (winner >= 0) mcts_tree_backup(t, leaf, 1.0, winner, vl);
    else mcts_tree_backup(t, leaf, 0.0, 0, vl);
}

/* Undo the visits in flight from node i up to the root (the descent could not finish). */
static void undo_path(mcts_tree *t, uint32_t i, uint32_t vl) {
    for (;;) {
        mcts_node *n = mcts_tree_node(t, i);
        mcts_node_sub_inflight(n, vl);
        if (i == t->root) return;
        i = n->parent;
    }
}

static const float *g_sort_priors;       /* qsort's key (prior ordering runs on one thread) */
static int cmp_prior_desc(const void *a, const void *b) {
    float x = g_sort_priors[*(const uint32_t *)a], y = g_sort_priors[*(const uint32_t *)b];
    return x < y ? 1 : x > y ? -1 : (*(const uint32_t *)a > *(const uint32_t *)b) - (*(const uint32_t *)a < *(const uint32_t *)b);
}

/* Give node (at pos, with its nopen children published) its prior-ordered edge list: the opened
 * children's moves in slot order, then every other legal move by descending prior.  On an
 * evaluator error or a full edge arena the node keeps its random order. */
static void order_by_priors(mcts_uct *u, mcts_node *node, const zz_pos *pos) {
    mcts_tree *t = &u->tree;
    int n = zz_gen_moves(pos, u->pmoves);
    if (n < 2 || (uint32_t)n != node->nmoves) return;
    mcts_eval_item it = { pos, u->pmoves, n, u->ppriors, 0 };
    char err[200];
    if (mcts_evaluate(u->cfg.prior_ev, &it, 1, err, sizeof err) != 0) {
        if (!u->err[0]) snprintf(u->err, sizeof u->err, "%s", err);
        u->prior_off = 1;
        return;
    }
    uint32_t e = mcts_arena_alloc(&t->edges[t->cur], (uint32_t)n);
    if (!e) { u->prior_off = 1; return; }
    mcts_edge *edges = mcts_tree_edges(t, e);
    uint32_t k = 0;
    MCTS_FOR_EACH_CHILD(t, node, c) {               /* single thread: every claimed slot is published */
        edges[k].move = c->move;
        edges[k].prior = 0;
        for (int j = 0; j < n; j++)
            if (u->pmoves[j] == c->move) { edges[k].prior = u->ppriors[j]; u->ppriors[j] = -1; break; }
        k++;
    }
    uint32_t m = 0;
    for (int j = 0; j < n; j++)
        if (u->ppriors[j] >= 0) u->porder[m++] = (uint32_t)j;
    g_sort_priors = u->ppriors;
    qsort(u->porder, m, sizeof *u->porder, cmp_prior_desc);
    for (uint32_t i = 0; i < m && k < (uint32_t)n; i++, k++) {
        edges[k].move = u->pmoves[u->porder[i]];
        edges[k].prior = u->ppriors[u->porder[i]];
    }
    node->edges = e;
    node->nedges = k;
}

static uint32_t widen_limit(const mcts_uct_config *c, uint32_t n) {
    double lim = c->pw_c * pow((double)n, c->pw_alpha);
    return lim < 1.0 ? 1u : lim > 4e9 ? 4000000000u : (uint32_t)lim;
}

/* Returns 1 after a completed iteration, 0 when the tree is full (nothing is counted). */
static int iterate(uct_worker *w) {
    mcts_uct *u = w->u;
    mcts_tree *t = &u->tree;
    const mcts_uct_config *cfg = &u->cfg;
    uint32_t vl = (uint32_t)cfg->virtual_loss;
    zz_pos pos = t->root_pos;
    uint32_t idx = t->root;
    mcts_node *node = mcts_tree_root(t);
    mcts_node_add_inflight(node, vl);
    for (;;) {
        if (atomic_load_explicit(&node->state, memory_order_acquire) == MCTS_TERMINAL) {
            back_up_result(t, idx, node->winner, vl);
            return 1;
        }
        uint32_t N = mcts_stats_n(mcts_node_load(node));
        if (cfg->prior_ev && !u->prior_off && node->nedges == 0 && node->nmoves > 1 && N >= cfg->prior_visits &&
            atomic_load_explicit(&node->nopen, memory_order_relaxed) < node->nmoves)
            order_by_priors(u, node, &pos);
        double sqrt_ln = sqrt(log((double)(N ? N : 1)));
        uint32_t limit = widen_limit(cfg, N);
        if (limit > node->nmoves) limit = node->nmoves;
        uint32_t best = 0;
        float best_u = -1e30f, cexp = (float)(cfg->c_uct * sqrt_ln), unit = (float)(1.0 / MCTS_S_UNIT);
        MCTS_FOR_EACH_CHILD_I(t, node, ci, c) {
            uint64_t s = mcts_node_load(c);
            uint32_t n = mcts_stats_n(s);           /* ≥ 1: a child is published with its visit */
            float ucb = (float)mcts_stats_s(s) * unit * mcts_inv(n) + cexp * mcts_rsqrt(n);   /* Q + 1 + U */
            if (ucb > best_u) { best_u = ucb; best = ci; }
        }
        best_u -= 1.0f;
        uint32_t k = atomic_load_explicit(&node->nopen, memory_order_relaxed);
        if (k < limit && (!best || cfg->fpu + cfg->c_uct * sqrt_ln >= best_u) &&
            atomic_compare_exchange_strong_explicit(&node->nopen, &k, k + 1, memory_order_relaxed,
                                                    memory_order_relaxed)) {
            uint32_t ci = mcts_tree_alloc_node(t, &w->cache);
            if (!ci) { undo_path(t, idx, vl); return 0; }   /* the claim stays: harmless */
            mcts_node *c = mcts_tree_node(t, ci);
            zz_move m = k < node->nedges ? mcts_tree_edges(t, node->edges)[k].move
                                         : mcts_order_move(&pos, k, node->nmoves, node->seed, w->moves);
            zz_pos after = pos;
            zz_apply(&after, m, NULL);
            mcts_node_init(c, idx, m, 1.0f / (float)node->nmoves, &after, pos.to_move, MCTS_EXPANDED, vl);
            c->nmoves = zz_over(&after) ? 0 : (uint32_t)zz_count_moves(&after);
            c->seed = child_seed(node->seed, m);
            if (!mcts_tree_set_child(t, node, k, ci, &w->cache)) { undo_path(t, idx, vl); return 0; }
            back_up_result(t, ci, rollout(&after, &w->rng), vl);
            return 1;
        }
        if (!best) {   /* every allowed child is claimed but none published yet: look again */
            if (atomic_load_explicit(&t->full, memory_order_relaxed)) { undo_path(t, idx, vl); return 0; }
            continue;
        }
        node = mcts_tree_node(t, best);
        idx = best;
        mcts_node_add_inflight(node, vl);
        zz_apply(&pos, node->move, NULL);
    }
}

/* ---- the search loop ---------------------------------------------------------------------- */
static void *worker_main(void *arg) {
    uct_worker *w = arg;
    mcts_uct *u = w->u;
    for (;;) {
        if (atomic_load_explicit(&u->stop, memory_order_relaxed)) break;
        uint64_t ticket = atomic_fetch_add_explicit(&u->started, 1, memory_order_relaxed);
        if (ticket >= u->target) break;
        if (!iterate(w)) { w->full = 1; atomic_store(&u->stop, 1); break; }
        w->done++;
        if (u->deadline > 0 && (w->done & 63) == 0 && mcts_now_s() >= u->deadline) atomic_store(&u->stop, 1);
    }
    return NULL;
}

void mcts_uct_stop(mcts_uct *u) { atomic_store(&u->stop, 1); }

int mcts_uct_search(mcts_uct *u, uint64_t iterations, double time_ms, mcts_search_stats *st) {
    double t0 = mcts_now_s();
    mcts_tree *t = &u->tree;
    mcts_node *root = mcts_tree_root(t);
    uint32_t have = mcts_stats_n(mcts_node_load(root));
    uint64_t room = have < MCTS_MAX_VISITS ? MCTS_MAX_VISITS - have : 0;
    u->target = iterations && iterations < room ? iterations : room;
    atomic_store(&u->started, 0);
    atomic_store(&u->stop, 0);
    u->deadline = time_ms > 0 ? t0 + time_ms / 1000.0 : 0;
    int nt = atomic_load(&root->state) == MCTS_TERMINAL ? 0 : u->cfg.threads, full = 0;
    uint64_t done = 0;
    if (nt > 0) {
        uct_worker *w = calloc((size_t)nt, sizeof *w);
        pthread_t *th = calloc((size_t)nt, sizeof *th);
        if (!w || !th) { free(w); free(th); return -1; }
        for (int i = 0; i < nt; i++) {
            w[i].u = u;
            w[i].rng = mcts_seed(u->rng + (uint64_t)i);
        }
        u->rng = mcts_seed(u->rng ^ 0xA5A5A5A5ULL);
        int started = 1;
        for (int i = 1; i < nt; i++)
            if (pthread_create(&th[i], NULL, worker_main, &w[i]) == 0) started++;
            else break;
        worker_main(&w[0]);
        for (int i = 1; i < started; i++) pthread_join(th[i], NULL);
        for (int i = 0; i < nt; i++) {
            done += w[i].done;
            full |= w[i].full;
        }
        free(w); free(th);
    }
    if (st) {
        memset(st, 0, sizeof *st);
        st->iterations = done;
        st->seconds = mcts_now_s() - t0;
        st->nodes = mcts_arena_used(&t->nodes[t->cur]);
    }
    return full ? -1 : 0;
}

zz_move mcts_uct_best(const mcts_uct *u) {
    zz_move m = ZZ_MOVE_NONE;
    return mcts_tree_root_children(&u->tree, &m, NULL, NULL, 1) ? m : ZZ_MOVE_NONE;
}

zz_move mcts_find_win(const zz_pos *p) {
    if (zz_over(p)) return ZZ_MOVE_NONE;
    zz_move *moves = malloc(ZZ_MAX_MOVES * sizeof *moves);
    if (!moves) return ZZ_MOVE_NONE;
    int n = zz_gen_moves(p, moves);
    zz_move win = ZZ_MOVE_NONE;
    for (int i = 0; i < n && !win; i++) {
        zz_pos q = *p;
        zz_apply(&q, moves[i], NULL);
        if (zz_over(&q) && q.winner == p->to_move) win = moves[i];
    }
    free(moves);
    return win;
}

zz_move mcts_uct_choose(mcts_uct *u, uint64_t iterations, double time_ms, mcts_search_stats *st) {
    const zz_pos *p = &u->tree.root_pos;
    if (st) memset(st, 0, sizeof *st);
    if (zz_over(p)) return ZZ_MOVE_NONE;
    if (u->cfg.root_win_check) {
        zz_move w = mcts_find_win(p);
        if (w) return w;
    }
    if (zz_count_moves(p) == 1) { zz_move m[6 * 61]; zz_gen_moves(p, m); return m[0]; }
    mcts_uct_search(u, iterations, time_ms, st);
    zz_move m = mcts_uct_best(u);
    return m ? m : zz_random_move(p, &u->rng);
}

int mcts_uct_analyse(const zz_pos *p, const mcts_uct_config *cfg, int iterations, zz_move *moves,
                     int *visits, int cap) {
    if (zz_over(p) || iterations <= 0) return 0;
    mcts_uct *u = mcts_uct_new(cfg);
    if (!u) return 0;
    mcts_uct_set_root(u, p);
    int n = 0;
    if (mcts_uct_search(u, (uint64_t)iterations, 0, NULL) == 0)
        n = mcts_tree_root_children(&u->tree, moves, visits, NULL, cap);
    mcts_uct_free(u);
    return n;
}
