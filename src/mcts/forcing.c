/* forcing.c — forcing-sequence search and the check of PUCT's best moves (forcing.h). */
#include "forcing.h"
#include "ab.h"
#include "mcts/clock.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum { INF = 1 << 28, MAX_PLY = 120, CAPTURE_MOVES = 512 };

struct mcts_forcing {
    zz_move *stack;            /* the moves of every node on the line, cap entries */
    size_t cap, sp;
    uint64_t nodes, max_nodes;
    double deadline;
    bool halted;
    int attacker;
};

mcts_forcing *mcts_forcing_new(int max_k) {
    if (max_k < 1 || max_k > MCTS_FORCING_MAX_K) return NULL;
    mcts_forcing *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    /* a placement node holds up to ZZ_MAX_MOVES moves, at most max_k + 1 of them on a line (the
     * root's own placements included); capture nodes hold far fewer */
    f->cap = (size_t)(max_k + 1) * ZZ_MAX_MOVES + (size_t)MAX_PLY * CAPTURE_MOVES;
    f->stack = malloc(f->cap * sizeof *f->stack);
    if (!f->stack) { free(f); return NULL; }
    return f;
}

void mcts_forcing_free(mcts_forcing *f) {
    if (!f) return;
    free(f->stack);
    free(f);
}

/* A line's end from the attacker's view. */
static int end_value(const mcts_forcing *f, const zz_pos *p) {
    if (zz_over(p)) return p->winner < 0 ? 0 : p->winner == f->attacker ? MCTS_AB_WIN : -MCTS_AB_WIN;
    int e = mcts_ab_evaluate(p);
    return p->to_move == f->attacker ? e : -e;
}

/* p's moves onto the stack; NULL (halted) when they might not fit. */
static zz_move *push_moves(mcts_forcing *f, const zz_pos *p, int *n) {
    if (f->cap - f->sp < ZZ_MAX_MOVES) { f->halted = true; return NULL; }
    zz_move *mv = f->stack + f->sp;
    *n = zz_gen_moves(p, mv);
    f->sp += (size_t)*n;
    return mv;
}

static int search(mcts_forcing *f, const zz_pos *p, int k, int alpha, int beta, int ply, zz_move *first);

/* Every capture of p (the mover must capture): the attacker takes the best, the defender the worst. */
static int captures(mcts_forcing *f, const zz_pos *p, int k, int alpha, int beta, int ply, zz_move *first) {
    bool att = p->to_move == f->attacker;
    int n, best = att ? -INF : INF;
    zz_move *mv = push_moves(f, p, &n);
    if (!mv) return 0;
    for (int i = 0; i < n && !f->halted; i++) {
        zz_pos c = *p;
        zz_apply(&c, mv[i], NULL);
        int v = search(f, &c, k, alpha, beta, ply + 1, NULL);
        if (att ? v > best : v < best) { best = v; if (first) *first = mv[i]; }
        if (att && v > alpha) alpha = v;
        if (!att && v < beta) beta = v;
        if (alpha >= beta) break;
    }
    f->sp -= (size_t)n;
    return best;
}

/* The attacker at a quiet position: stand pat, or one of its forcing placements (past the root,
 * one per (colour, cell)). */
static int placements(mcts_forcing *f, const zz_pos *p, int k, int alpha, int beta, int ply, zz_move *first) {
    int best = end_value(f, p), n;
    if (first) *first = ZZ_MOVE_NONE;
    if (best > alpha) alpha = best;
    if (alpha >= beta) return best;
    zz_move *mv = push_moves(f, p, &n);
    if (!mv) return best;
    zz_landing_cache lc;
    zz_landing_cache_start(&lc);
    uint64_t tried[3][2] = { { 0 } };                    /* (colour, cell) groups, past the root */
    for (int i = 0; i < n && !f->halted; i++) {
        zz_move m = mv[i];
        if (zz_move_is_jump(m) || !zz_place_forces_cached(&lc, p, m)) continue;
        if (ply > 0) {
            int col = zz_move_colour(m), cell = zz_move_a(m);
            uint64_t bit = 1ull << (cell & 63);
            if (tried[col][cell >> 6] & bit) continue;
            tried[col][cell >> 6] |= bit;
        }
        zz_pos c = *p;
        zz_apply(&c, m, NULL);
        int v = search(f, &c, k - 1, alpha, beta, ply + 1, NULL);
        if (v > best) { best = v; if (first) *first = m; }
        if (v > alpha) alpha = v;
        if (alpha >= beta) break;
    }
    f->sp -= (size_t)n;
    return best;
}

static int search(mcts_forcing *f, const zz_pos *p, int k, int alpha, int beta, int ply, zz_move *first) {
    if (++f->nodes > f->max_nodes && f->max_nodes > 0) f->halted = true;
    if ((f->nodes & 1023) == 0 && f->deadline > 0 && mcts_now_s() > f->deadline) f->halted = true;
    if (f->halted) return 0;
    if (zz_over(p) || ply >= MAX_PLY) return end_value(f, p);
    if (zz_must_capture(p)) return captures(f, p, k, alpha, beta, ply, first);
    if (p->to_move != f->attacker || k == 0) return end_value(f, p);
    return placements(f, p, k, alpha, beta, ply, first);
}

static void start(mcts_forcing *f, const zz_pos *p, double deadline_s, uint64_t max_nodes) {
    f->sp = 0;
    f->nodes = 0;
    f->max_nodes = max_nodes;
    f->deadline = deadline_s;
    f->halted = false;
    f->attacker = p->to_move;
}

void mcts_forcing_search(mcts_forcing *f, const zz_pos *p, int k, double deadline_s, uint64_t max_nodes,
                         mcts_forcing_result *r) {
    start(f, p, deadline_s, max_nodes);
    r->first = ZZ_MOVE_NONE;
    r->value = search(f, p, k, -INF, INF, 0, &r->first);
    r->nodes = f->nodes;
    r->complete = !f->halted;
}

int32_t mcts_forcing_run_value(mcts_forcing *f, const zz_pos *p, zz_move m, int k, double deadline_s,
                               uint64_t max_nodes, uint64_t *nodes) {
    start(f, p, deadline_s, max_nodes);
    zz_pos c = *p;
    zz_apply(&c, m, NULL);
    f->nodes = 1;
    int v = search(f, &c, k > 0 ? k - 1 : 0, -INF, INF, 1, NULL);
    if (nodes) *nodes = f->nodes;
    return f->halted ? INT32_MIN : v;
}

/* The mover's value of move m of p after the other player's forcing run (k placements), or
 * INT32_MIN when m does not end the turn, ends the game, or the search is incomplete. */
static int32_t value_after(mcts_forcing *f, const zz_pos *p, zz_move m, int k, double deadline_s, uint64_t max_nodes) {
    zz_pos c = *p;
    zz_effects fx;
    zz_apply(&c, m, &fx);
    if (!fx.turn_over || zz_over(&c) || c.to_move == p->to_move) return INT32_MIN;
    mcts_forcing_result r;
    mcts_forcing_search(f, &c, k, deadline_s, max_nodes, &r);
    return r.complete ? -r.value : INT32_MIN;
}

zz_move mcts_forcing_check(mcts_forcing *f, const zz_pos *p, const zz_move *ranked, int n, int k, int margin,
                           double deadline_s, uint64_t max_nodes, bool *replaced, int32_t *values) {
    int32_t v[MCTS_FORCING_TOP_MAX];
    *replaced = false;
    if (n > MCTS_FORCING_TOP_MAX) n = MCTS_FORCING_TOP_MAX;
    for (int i = 0; i < n; i++) v[i] = INT32_MIN;
    if (n >= 2 && p->chain == ZZ_NO_CELL && !zz_must_capture(p)) {
        v[0] = value_after(f, p, ranked[0], k, deadline_s, max_nodes);
        for (int i = 1; i < n && v[0] != INT32_MIN; i++) v[i] = value_after(f, p, ranked[i], k, deadline_s, max_nodes);
    }
    if (values) memcpy(values, v, (size_t)(n > 0 ? n : 0) * sizeof *v);
    if (n < 2 || v[0] == INT32_MIN) return n > 0 ? ranked[0] : ZZ_MOVE_NONE;
    int32_t best = v[0];
    for (int i = 1; i < n; i++) if (v[i] != INT32_MIN && v[i] > best) best = v[i];
    if ((int64_t)best - v[0] < margin) return ranked[0];
    for (int i = 1; i < n; i++)
        if (v[i] != INT32_MIN && (int64_t)best - v[i] < margin) { *replaced = true; return ranked[i]; }
    return ranked[0];
}
