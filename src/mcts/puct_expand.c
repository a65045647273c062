/* puct_expand.c — PUCT's expansion (puct_internal.h): an evaluated leaf's moves sorted by prior,
 * ties broken by a hash of the position and the seed, its edges written (all, max_children of
 * them, or below the root a window of edge_window: puct.h), and windows widened fourfold (or to
 * every edge at a root) when a descent has opened all of a node's edges.  A node's old edges stay
 * a prefix of its new ones: children sit on them. */
#include "puct_internal.h"
#include "tactic.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Store the evaluated request's moves as edges sorted by prior (the first edge_window of them
 * below the root when windows_on), then publish the node as EXPANDED. */
void puct_expand(puct_worker *w, mcts_request *r) {
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

bool puct_claim_widening(mcts_node *node) {
    uint8_t idle = 0;
    return atomic_compare_exchange_strong(&node->widening, &idle, 1);
}

void puct_release_widening(mcts_node *node) { atomic_store_explicit(&node->widening, 0, memory_order_release); }

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
int puct_widen(puct_worker *w, mcts_node *node, const zz_pos *pos, bool all) {
    if (!puct_claim_widening(node)) return 0;
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
    puct_release_widening(node);
    return rc;
}

/* Finish a widening request (D_WIDEN): widen with its evaluation, merging a new ranking (the
 * weights may have changed since the node's expansion).  A failure (impossible with the node's
 * own position: its moves are those it was expanded with) marks the tree full, so that no descent
 * asks again and the search ends with what it has. */
void puct_finish_widening(puct_worker *w, mcts_request *r) {
    mcts_tree *t = &w->s->tree;
    mcts_node *node = mcts_tree_node(t, r->node);
    int rc = widen_with(w, node, &r->pos, r->item.moves, r->item.priors, r->item.nmoves,
                        w->slot_widen[r - w->slots] == WIDEN_ALL, true);
    if (rc < 0) atomic_store_explicit(&t->full, 1, memory_order_relaxed);
    w->req_widened += rc > 0;
    puct_release_widening(node);
}

/* A root that kept an edge window (a child when expanded: tree reuse) gets all its edges before a
 * search, with the searcher's evaluator (every root-wide step, from noise to the move choice,
 * reads the whole list).  0, or -1 with a message. */
int puct_root_widen(mcts_puct *s, puct_worker *w0, char *err, size_t errlen) {
    mcts_node *root = mcts_tree_root(&s->tree);
    if (!root_keeps_window(s)) return 0;
    w0->widen_ev = s->ev;
    int rc = puct_widen(w0, root, &s->tree.root_pos, true);
    w0->widen_ev = NULL;
    if (rc < 0) snprintf(err, errlen, "%s", w0->sym_err);
    return rc < 0 ? -1 : 0;
}
