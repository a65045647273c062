/* ab.c — alpha-beta search (ab.h states the invariants).
 *
 * Evaluation (mcts_ab_evaluate), in points where a captured white marble is worth 120, from the
 * mover's view:
 *   material   each side's captured marbles, each worth 480 / (the number of its colour a winning
 *              set needs): white 120, grey 96, black 80; plus a bonus for being close to a win:
 *              NEAR[k] when the side's nearest set that can still be completed (4 W, 5 G, 6 B or
 *              3 of each, counting only the marbles left in the pool and on the board) needs k
 *              more marbles: 400, 150, 50 for k = 1, 2, 3.  Mine minus the opponent's.
 *   mobility   a safe cell is a vacant ring where a new marble can neither jump nor be jumped
 *              (a placement there hands the opponent no capture; the ring removal that might cut
 *              a jump off is ignored).  The mover gets 3 points a safe cell, up to 8 cells, and
 *              loses 60 when there is none (zugzwang: every placement gives a capture away).
 * Isolation is left to the search: placements that isolate marbles are moves like the others and
 * their captures show in the material.
 *
 * Move ordering: first the table's move and the ply's two killer moves (placements that caused a
 * cut-off at that ply), each when legal, before the node's moves are even listed (a cut-off there
 * saves listing ~2,000 placements); then the other moves: jumps by the value of the marble taken,
 * placements by history (depth^2 for every cut-off, halved at each new search).  The first
 * ORDER_PICKS of those are picked best-first, the rest taken as listed (most nodes with many
 * moves cut off early or search them all anyway). */
#include "ab.h"
#include "mcts/clock.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum {
    INF = 32000,
    WIN_MIN = MCTS_AB_WIN - MCTS_AB_MAX_PLY,   /* scores beyond +-WIN_MIN are won or lost games */
    CHECK_EVERY = 1024,                         /* nodes between two looks at the clock */
    ORDER_PICKS = 8,
    HIST_SIZE = 3 * ZZ_NCELLS * ZZ_NCELLS,
    HIST_MAX = 1 << 26,
    STACK_MOVES = MCTS_AB_MAX_PLY * ZZ_MAX_MOVES
};
enum { BOUND_UPPER = 1, BOUND_LOWER = 2, BOUND_EXACT = 3 };

static const int MAT_W[3] = { 120, 96, 80 };
static const int NEAR_BONUS[4] = { 0, 400, 150, 50 };
enum { SAFE_W = 3, SAFE_CAP = 8, ZUGZWANG = 60 };

typedef struct tt_entry {
    uint64_t key;
    zz_move move;
    int16_t score;          /* win scores relative to this position (to_tt / from_tt) */
    int8_t depth;
    uint8_t flags;          /* bound in bits 0-1, search generation in bits 2-7 */
} tt_entry;

struct mcts_ab {
    mcts_ab_config cfg;
    tt_entry *tt;           /* NULL without a table */
    uint64_t tt_mask;
    uint8_t gen;            /* searches so far, mod 64: entries of older searches are replaced first */
    zz_move killer[MCTS_AB_MAX_PLY][2];
    int32_t *hist;          /* placements: colour, cell, removed ring */
    zz_move *moves;         /* the move stack: each node's list above its parent's */
    int32_t *keys;          /* ordering keys, beside the moves */
    size_t sp;
    uint64_t nodes, qnodes;
    double deadline;        /* 0: none */
    bool halted;            /* this search was stopped: every score since is meaningless */
    atomic_int stop;
};

/* ---- evaluation --------------------------------------------------------------------------- */

/* Marbles still to capture for the nearest winning set that the marbles left (avail: pool and
 * board, by colour) can complete; 99 when none can be. */
static int marbles_needed(const uint8_t cap[3], const int avail[3]) {
    int need = 99, each = 0;
    bool each_ok = true;
    for (int c = 0; c < 3; c++) {
        int d = ZZ_WIN_EACH[c] > cap[c] ? ZZ_WIN_EACH[c] - cap[c] : 0;
        if (d <= avail[c] && d < need) need = d;
        int e = ZZ_WIN_ALL > cap[c] ? ZZ_WIN_ALL - cap[c] : 0;
        each += e;
        each_ok = each_ok && e <= avail[c];
    }
    return each_ok && each < need ? each : need;
}

static int side_value(const uint8_t cap[3], const int avail[3]) {
    int v = 0;
    for (int c = 0; c < 3; c++) v += MAT_W[c] * cap[c];
    int need = marbles_needed(cap, avail);
    return need <= 3 ? v + NEAR_BONUS[need] : v;
}

/* Vacant rings where a new marble could neither jump nor be jumped. */
static int safe_cells(const zz_pos *p) {
    zz_bits m = zz_marbles(p), v = zz_vacant(p), unsafe = 0;
    for (int d = 0; d < 6; d++) {
        zz_bits beyond = zz_toward(v, d);           /* cells whose d-neighbour is vacant */
        unsafe |= zz_toward(m & beyond, d);         /* the new marble would jump its d-neighbour */
        unsafe |= zz_step(m, d) & beyond;           /* the marble behind it would jump it */
    }
    return zz_popcount(v & ~unsafe);
}

int mcts_ab_evaluate(const zz_pos *p) {
    int avail[3], me = p->to_move;
    for (int c = 0; c < 3; c++) avail[c] = p->pool[c] + zz_popcount(p->marble[c]);
    int v = side_value(p->cap[me], avail) - side_value(p->cap[1 - me], avail);
    int safe = safe_cells(p);
    return v + (safe ? SAFE_W * (safe < SAFE_CAP ? safe : SAFE_CAP) : -ZUGZWANG);
}

/* ---- the searcher ------------------------------------------------------------------------- */

void mcts_ab_config_default(mcts_ab_config *c) {
    memset(c, 0, sizeof *c);
    c->tt_log2 = MCTS_AB_TT_LOG2_DEFAULT;
}

mcts_ab *mcts_ab_new(const mcts_ab_config *c) {
    mcts_ab *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->cfg = *c;
    if (s->cfg.tt_log2 < 0) s->cfg.tt_log2 = 0;
    if (s->cfg.tt_log2 > 0 && s->cfg.tt_log2 < 10) s->cfg.tt_log2 = 10;
    if (s->cfg.tt_log2 > 28) s->cfg.tt_log2 = 28;
    s->hist = calloc(HIST_SIZE, sizeof *s->hist);
    s->moves = malloc(STACK_MOVES * sizeof *s->moves);
    s->keys = malloc(STACK_MOVES * sizeof *s->keys);
    if (s->cfg.tt_log2) {
        s->tt = calloc((size_t)1 << s->cfg.tt_log2, sizeof *s->tt);
        s->tt_mask = ((uint64_t)1 << s->cfg.tt_log2) - 1;
    }
    if (!s->hist || !s->moves || !s->keys || (s->cfg.tt_log2 && !s->tt)) {
        mcts_ab_free(s);
        return NULL;
    }
    return s;
}

void mcts_ab_free(mcts_ab *s) {
    if (!s) return;
    free(s->tt);
    free(s->hist);
    free(s->moves);
    free(s->keys);
    free(s);
}

void mcts_ab_clear(mcts_ab *s, uint64_t seed) {
    if (s->tt) memset(s->tt, 0, (s->tt_mask + 1) * sizeof *s->tt);
    memset(s->hist, 0, HIST_SIZE * sizeof *s->hist);
    memset(s->killer, 0, sizeof s->killer);
    s->cfg.seed = seed;
    s->gen = 0;
}

void mcts_ab_stop(mcts_ab *s) { atomic_store_explicit(&s->stop, 1, memory_order_relaxed); }

/* Count a node; every CHECK_EVERY nodes look at the clock and the stop flag.  True once halted. */
static bool tick(mcts_ab *s) {
    if ((++s->nodes & (CHECK_EVERY - 1)) == 0 && !s->halted)
        s->halted = atomic_load_explicit(&s->stop, memory_order_relaxed) ||
                    (s->deadline > 0 && mcts_now_s() >= s->deadline);
    return s->halted;
}

/* ---- transposition table ------------------------------------------------------------------ */

static int to_tt(int v, int ply) { return v > WIN_MIN ? v + ply : v < -WIN_MIN ? v - ply : v; }
static int from_tt(int v, int ply) { return v > WIN_MIN ? v - ply : v < -WIN_MIN ? v + ply : v; }

/* Look key up: *ttm gets the entry's move; true with *v when the entry settles the node. */
static bool tt_probe(const mcts_ab *s, uint64_t key, int depth, int alpha, int beta, int ply, zz_move *ttm, int *v) {
    const tt_entry *e = &s->tt[key & s->tt_mask];
    if (e->key != key) return false;
    *ttm = e->move;
    if (e->depth < depth) return false;
    int sc = from_tt(e->score, ply), b = e->flags & 3;
    if (b == BOUND_EXACT || (b == BOUND_LOWER && sc >= beta) || (b == BOUND_UPPER && sc <= alpha)) {
        *v = sc;
        return true;
    }
    return false;
}

/* Store a node's result (best found in the window alpha0..beta); an entry of this search that
 * went deeper for another position is kept. */
static void tt_store(mcts_ab *s, uint64_t key, int depth, int best, int alpha0, int beta, zz_move m, int ply) {
    tt_entry *e = &s->tt[key & s->tt_mask];
    int gen = s->gen & 63;
    if (e->key != key && (e->flags >> 2) == gen && e->depth > depth) return;
    int bound = best <= alpha0 ? BOUND_UPPER : best >= beta ? BOUND_LOWER : BOUND_EXACT;
    e->key = key;
    e->move = m;
    e->score = (int16_t)to_tt(best, ply);
    e->depth = (int8_t)depth;
    e->flags = (uint8_t)(bound | gen << 2);
}

/* ---- move ordering ------------------------------------------------------------------------ */

static int hist_index(zz_move m) { return (zz_move_colour(m) * ZZ_NCELLS + zz_move_a(m)) * ZZ_NCELLS + zz_move_b(m); }

/* A jump by the value of the marble it takes; a placement by its history. */
static int32_t move_key(const mcts_ab *s, const zz_pos *p, zz_move m) {
    if (zz_move_is_jump(m)) return MAT_W[zz_colour_at(p, (zz_move_a(m) + zz_move_b(m)) / 2)];
    return s->hist[hist_index(m)];
}

static void score_moves(const mcts_ab *s, const zz_pos *p, const zz_move *mv, int32_t *key, int n) {
    for (int i = 0; i < n; i++) key[i] = move_key(s, p, mv[i]);
}

/* The i-th move to search: best-first for the first ORDER_PICKS, then as listed. */
static zz_move pick(zz_move *mv, int32_t *key, int n, int i) {
    if (i >= ORDER_PICKS) return mv[i];
    int b = i;
    for (int j = i + 1; j < n; j++)
        if (key[j] > key[b]) b = j;
    zz_move m = mv[b];
    int32_t k = key[b];
    mv[b] = mv[i], key[b] = key[i];
    mv[i] = m, key[i] = k;
    return m;
}

/* A placement caused a cut-off: it becomes the ply's first killer and gains history. */
static void on_cutoff(mcts_ab *s, zz_move m, int depth, int ply) {
    if (zz_move_is_jump(m)) return;
    if (s->killer[ply][0] != m) {
        s->killer[ply][1] = s->killer[ply][0];
        s->killer[ply][0] = m;
    }
    int32_t *h = &s->hist[hist_index(m)];
    *h += depth * depth;
    if (*h > HIST_MAX)
        for (int i = 0; i < HIST_SIZE; i++) s->hist[i] /= 2;
}

/* ---- search ------------------------------------------------------------------------------- */

static int search(mcts_ab *s, const zz_pos *p, int depth, int alpha, int beta, int ply);

static int terminal_score(const zz_pos *p, int ply) {
    if (p->winner < 0) return 0;
    return p->winner == p->to_move ? MCTS_AB_WIN - ply : -(MCTS_AB_WIN - ply);
}

/* The score of child c, from the view of `me` (the parent's mover), in the window alpha..beta:
 * the same sign when me moves again in c (a chain of jumps), negated otherwise. */
static int child_score(mcts_ab *s, const zz_pos *c, int me, int depth, int alpha, int beta, int ply) {
    if (c->to_move == me) return search(s, c, depth, alpha, beta, ply);
    return -search(s, c, depth, -beta, -alpha, ply);
}

/* Principal-variation search of a child: the first with the full window, the others with a null
 * window first and again with the full one when they beat alpha. */
static int pvs_child(mcts_ab *s, const zz_pos *c, int me, int depth, int alpha, int beta, int ply, bool first) {
    if (first) return child_score(s, c, me, depth, alpha, beta, ply);
    int v = child_score(s, c, me, depth, alpha, alpha + 1, ply);
    if (v > alpha && v < beta && !s->halted) v = child_score(s, c, me, depth, alpha, beta, ply);
    return v;
}

/* Quiescence: a quiet position is scored statically; with a capture pending every jump is
 * searched (captures are compulsory: no stand-pat). */
static int quiesce(mcts_ab *s, const zz_pos *p, int alpha, int beta, int ply) {
    s->qnodes++;
    if (ply >= MCTS_AB_MAX_PLY - 1 || !zz_must_capture(p)) return mcts_ab_evaluate(p);
    zz_move *mv = s->moves + s->sp;
    int32_t *key = s->keys + s->sp;
    int n = zz_gen_moves(p, mv), best = -INF;
    score_moves(s, p, mv, key, n);
    s->sp += (size_t)n;
    for (int i = 0; i < n; i++) {
        zz_pos c = *p;
        zz_apply(&c, pick(mv, key, n, i), NULL);
        int v = child_score(s, &c, p->to_move, 0, alpha, beta, ply + 1);
        if (s->halted) break;
        if (v > best) best = v;
        if (v > alpha) alpha = v;
        if (alpha >= beta) break;
    }
    s->sp -= (size_t)n;
    return best;
}

/* An inner node being searched: its window, best score and move, moves searched so far. */
typedef struct inner {
    int depth, ply, alpha, beta, best, count;
    zz_move bm;
} inner;

/* Search m as the node's next move; true when the node is done (a cut-off, or halted). */
static bool inner_move(mcts_ab *s, const zz_pos *p, zz_move m, inner *nd) {
    zz_pos c = *p;
    zz_apply(&c, m, NULL);
    int v = pvs_child(s, &c, p->to_move, nd->depth - 1, nd->alpha, nd->beta, nd->ply + 1, nd->count++ == 0);
    if (s->halted) return true;
    if (v <= nd->best) return false;
    nd->best = v;
    nd->bm = m;
    if (v > nd->alpha) nd->alpha = v;
    if (nd->alpha < nd->beta) return false;
    on_cutoff(s, m, nd->depth, nd->ply);
    return true;
}

/* The table's move and the killers, when legal, before any move is generated (a cut-off there
 * saves listing and ordering ~2,000 placements).  Returns how many were tried (in tried[]), or -1
 * when the node is done. */
static int early_moves(mcts_ab *s, const zz_pos *p, zz_move ttm, inner *nd, zz_move tried[3]) {
    const zz_move cand[3] = { ttm, s->killer[nd->ply][0], s->killer[nd->ply][1] };
    int k = 0;
    for (int i = 0; i < 3; i++) {
        if (!cand[i] || (i > 0 && cand[i] == ttm) || !zz_is_legal(p, cand[i])) continue;
        tried[k++] = cand[i];
        if (inner_move(s, p, cand[i], nd)) return -1;
    }
    return k;
}

/* Drop the k moves of tried[] from the list of n; returns the new count. */
static int drop_tried(zz_move *mv, int n, const zz_move *tried, int k) {
    for (int t = 0; t < k; t++)
        for (int i = 0; i < n; i++)
            if (mv[i] == tried[t]) { mv[i] = mv[--n]; break; }
    return n;
}

/* The moves of an inner node: the early ones, then the rest by ordering key. */
static void search_moves(mcts_ab *s, const zz_pos *p, inner *nd, zz_move ttm) {
    zz_move tried[3];
    int k = early_moves(s, p, ttm, nd, tried);
    if (k < 0) return;
    zz_move *mv = s->moves + s->sp;
    int32_t *key = s->keys + s->sp;
    int n = drop_tried(mv, zz_gen_moves(p, mv), tried, k);
    score_moves(s, p, mv, key, n);
    s->sp += (size_t)n;
    for (int i = 0; i < n; i++)
        if (inner_move(s, p, pick(mv, key, n, i), nd)) break;
    s->sp -= (size_t)n;
}

static int search(mcts_ab *s, const zz_pos *p, int depth, int alpha, int beta, int ply) {
    if (tick(s)) return 0;
    if (zz_over(p)) return terminal_score(p, ply);
    if (depth <= 0 || ply >= MCTS_AB_MAX_PLY - 1) return quiesce(s, p, alpha, beta, ply);
    uint64_t key = s->tt ? zz_hash(p) : 0;
    zz_move ttm = ZZ_MOVE_NONE;
    int v;
    if (s->tt && tt_probe(s, key, depth, alpha, beta, ply, &ttm, &v)) return v;
    inner nd = { depth, ply, alpha, beta, -INF, 0, ZZ_MOVE_NONE };
    search_moves(s, p, &nd, ttm);
    if (s->halted) return 0;
    if (s->tt) tt_store(s, key, depth, nd.best, alpha, beta, nd.bm, ply);
    return nd.best;
}

/* ---- the root ----------------------------------------------------------------------------- */

typedef struct root_state {
    zz_move *mv;            /* the root moves, best first after each completed depth */
    int32_t *sc;            /* depth 1: every move's exact score */
    int n;
    bool pinned;            /* the list's order is kept (mcts_ab_search_among): its first move first */
    bool to_the_end;        /* new depths until the time runs out, not only in its first half */
    zz_move best;           /* the move to play and its score, and the depth completed */
    int score, depth;
    int first_score;        /* the first move's exact score at the depth of best (pinned only) */
} root_state;

/* One depth at the root.  exact: every move with the full window, scores in r->sc (depth 1, to
 * order the root); else principal-variation search.  Returns the best move of what was searched
 * (ZZ_MOVE_NONE when nothing was) with *score, *first_done set when the first move finished. */
static zz_move root_depth(mcts_ab *s, const zz_pos *p, root_state *r, int depth, bool exact, int *score,
                          bool *first_done, int *first_score) {
    int alpha = -INF, best = -INF;
    zz_move bm = ZZ_MOVE_NONE;
    *first_done = false;
    for (int i = 0; i < r->n; i++) {
        zz_pos c = *p;
        zz_apply(&c, r->mv[i], NULL);
        int v = exact ? child_score(s, &c, p->to_move, depth - 1, -INF, INF, 1)
                      : pvs_child(s, &c, p->to_move, depth - 1, alpha, INF, 1, i == 0);
        if (s->halted) break;
        if (i == 0) *first_score = v;       /* the first move has the full window: exact */
        *first_done = true;
        if (exact) r->sc[i] = v;
        if (v > best) {
            best = v;
            bm = r->mv[i];
            if (!exact && v > alpha) alpha = v;
        }
    }
    *score = best;
    return bm;
}

/* Move m to the front of the root list, the others keeping their order. */
static void root_to_front(root_state *r, zz_move m) {
    int i = 0;
    while (i < r->n && r->mv[i] != m) i++;
    for (; i > 0; i--) r->mv[i] = r->mv[i - 1];
    r->mv[0] = m;
}

/* Sort the root by depth 1's scores, best first (stable: ties keep their order). */
static void root_sort(root_state *r) {
    for (int i = 1; i < r->n; i++) {
        zz_move m = r->mv[i];
        int32_t v = r->sc[i];
        int j = i;
        for (; j > 0 && r->sc[j - 1] < v; j--) r->mv[j] = r->mv[j - 1], r->sc[j] = r->sc[j - 1];
        r->mv[j] = m, r->sc[j] = v;
    }
}

/* The root's legal moves on the move stack, shuffled by the seed (mixed with the position). */
static void root_moves(mcts_ab *s, const zz_pos *p, root_state *r) {
    r->mv = s->moves;
    r->sc = s->keys;
    r->n = zz_gen_moves(p, r->mv);
    s->sp = (size_t)r->n;
    uint64_t rng = s->cfg.seed ^ zz_hash(p);
    if (!s->cfg.seed || !rng) return;
    for (int i = r->n - 1; i > 0; i--) {
        int j = (int)zz_rand_below(&rng, (uint32_t)i + 1);
        zz_move t = r->mv[i];
        r->mv[i] = r->mv[j], r->mv[j] = t;
    }
}

/* Iterative deepening from depth 1 to max_depth, until halted or a win is proven. */
static void deepen(mcts_ab *s, const zz_pos *p, root_state *r, int max_depth, double t0, double time_ms) {
    r->best = r->mv[0];
    r->score = 0;
    r->depth = 0;
    for (int d = 1; d <= max_depth; d++) {
        if (d > 1 && time_ms > 0 && !r->to_the_end && 1000 * (mcts_now_s() - t0) >= time_ms / 2) break;
        int score, first_score = 0;
        bool first_done;
        zz_move m = root_depth(s, p, r, d, d == 1 && !r->pinned, &score, &first_done, &first_score);
        if (s->halted) {                   /* keep a move this depth proved better (or depth 1's best) */
            bool better = r->pinned ? m && m != r->mv[0]      /* it beat the first move, exact at d */
                                    : m && first_done && (d == 1 || m != r->best);
            if (better) r->best = m, r->score = score, r->first_score = first_score;
            return;
        }
        if (d == 1 && !r->pinned) root_sort(r);
        if (!r->pinned) root_to_front(r, m);
        r->best = m, r->score = score, r->depth = d, r->first_score = first_score;
        if (score > WIN_MIN) return;
    }
}

/* A search's start: counters, clock, stop flag, killers, and history aged.  Returns t0. */
static double search_start(mcts_ab *s, double time_ms) {
    double t0 = mcts_now_s();
    s->nodes = s->qnodes = 0;
    s->halted = false;
    atomic_store_explicit(&s->stop, 0, memory_order_relaxed);
    s->deadline = time_ms > 0 ? t0 + time_ms / 1000 : 0;
    s->gen++;
    memset(s->killer, 0, sizeof s->killer);
    for (int i = 0; i < HIST_SIZE; i++) s->hist[i] /= 2;
    return t0;
}

/* Deepen from the root list r and fill res. */
static void search_root(mcts_ab *s, const zz_pos *p, root_state *r, int depth, double t0, double time_ms,
                        mcts_ab_result *res) {
    deepen(s, p, r, r->n == 1 ? 1 : depth, t0, time_ms);
    s->sp = 0;
    res->move = r->best;
    res->score = r->score;
    res->depth = r->depth;
    res->nodes = s->nodes;
    res->qnodes = s->qnodes;
    res->seconds = mcts_now_s() - t0;
    res->stopped = r->depth < (r->n == 1 ? 1 : depth) && r->score <= WIN_MIN;
}

int mcts_ab_search(mcts_ab *s, const zz_pos *p, int depth, double time_ms, mcts_ab_result *res) {
    memset(res, 0, sizeof *res);
    if (zz_over(p) || depth < 1 || depth > MCTS_AB_MAX_DEPTH) return -1;
    double t0 = search_start(s, time_ms);
    root_state r = { 0 };
    root_moves(s, p, &r);
    search_root(s, p, &r, depth, t0, time_ms, res);
    return 0;
}

int mcts_ab_search_among(mcts_ab *s, const zz_pos *p, const zz_move *cands, int n, int depth, double time_ms,
                         bool to_the_end, mcts_ab_result *res, int *first_score) {
    memset(res, 0, sizeof *res);
    if (zz_over(p) || depth < 1 || depth > MCTS_AB_MAX_DEPTH || n < 1 || n > ZZ_MAX_MOVES) return -1;
    for (int i = 0; i < n; i++) {
        if (!zz_is_legal(p, cands[i])) return -1;
        for (int j = 0; j < i; j++)
            if (cands[j] == cands[i]) return -1;
    }
    double t0 = search_start(s, time_ms);
    root_state r = { .mv = s->moves, .sc = s->keys, .n = n, .pinned = true, .to_the_end = to_the_end };
    memcpy(r.mv, cands, (size_t)n * sizeof *cands);
    s->sp = (size_t)n;
    search_root(s, p, &r, depth, t0, time_ms, res);
    *first_score = r.first_score;
    return 0;
}
int mcts_ab_quiesce(mcts_ab *s, const zz_pos *p) {
    if (zz_over(p)) return terminal_score(p, 0);
    s->halted = false;
    s->deadline = 0;
    s->sp = 0;
    int v = quiesce(s, p, -INF, INF, 0);
    s->sp = 0;
    return v;
}

int mcts_ab_move_score(mcts_ab *s, const zz_pos *p, zz_move m, int depth, double time_ms, int *score) {
    if (zz_over(p) || depth < 1 || depth > MCTS_AB_MAX_DEPTH || !zz_is_legal(p, m)) return -1;
    s->halted = false;
    atomic_store_explicit(&s->stop, 0, memory_order_relaxed);
    s->deadline = time_ms > 0 ? mcts_now_s() + time_ms / 1000 : 0;
    s->sp = 0;
    zz_pos c = *p;
    zz_apply(&c, m, NULL);
    int v = child_score(s, &c, p->to_move, depth - 1, -INF, INF, 1);
    s->sp = 0;
    if (s->halted) return -1;
    *score = v;
    return 0;
}
