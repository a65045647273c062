/* guard.h — the alpha-beta guard on a PUCT move (the puct agent's guard= option, agent.h).
 *
 * Alpha-beta (ab.h) searches the position too, and PUCT's move m is checked against its best:
 * m, searched by alpha-beta to the depth its own search completed, must score within `margin`
 * points of alpha-beta's best, else alpha-beta's move is played.  A check that runs out of time,
 * or a guard that completed no depth, leaves m.  When alpha-beta finds every move lost, m must
 * not lose sooner than its best.
 *
 * Time, for a move of tms milliseconds: the check keeps a quarter (GUARD_CHECK_SHARE) of the guard's share
 * (share * tms).  Before PUCT (beside = false) alpha-beta searches first for its share, and PUCT
 * gets what is left less the check's time.  Beside PUCT (beside = true: the agent has two threads
 * or more, guardpar=) alpha-beta searches on a thread of its own while PUCT searches, both for the
 * move's time less the check's: one more core for the guard, none taken from PUCT's time.  A move
 * with a simulation budget (tms = 0) has alpha-beta search `depth` plies first, and the check,
 * without a clock.
 *
 * Use: mcts_guard_begin, then PUCT's search for the time it returns, then mcts_guard_end (also
 * when PUCT's search failed: it joins the thread).  The searcher ab is the caller's; one move at
 * a time.
 *
 * Among PUCT's best (top > 0, the agent's guardtop=): PUCT searches first, for the move's time
 * less the guard's share, and alpha-beta then searches only m and PUCT's `top` most visited other
 * root moves, for what is left of the move (or `depth` plies with a simulation budget), with m
 * first so that its score is exact (mcts_ab_search_among).  With a few root moves instead of
 * hundreds or thousands, alpha-beta reaches a ply or two deeper in the same time (tools/bench_ab's
 * depth table: on 48 rings the whole root reaches depth 4 in 375 ms and in 1 s, four moves 5-6 in
 * 375 ms), but it can
 * only choose among PUCT's candidates.  Use: mcts_guard_begin, PUCT's search, mcts_guard_end_among
 * with PUCT's root moves, most visited first.  Never beside PUCT (it needs PUCT's candidates). */
#ifndef MCTS_GUARD_H
#define MCTS_GUARD_H

#include "ab.h"
#include <pthread.h>
#include <stdbool.h>

typedef struct mcts_guard {
    /* set by the caller */
    mcts_ab *ab;
    double share;              /* the guard's share of a move's time (0..0.9) */
    double margin;             /* points by which alpha-beta must prefer its move */
    int depth;                 /* plies with a simulation budget */
    bool beside;               /* search on a thread of its own beside PUCT */
    int top;                   /* > 0: check among m and PUCT's `top` best others, after PUCT */
    bool to_the_end;           /* top > 0: alpha-beta deepens until the move's time is spent */
    /* one move's state */
    zz_pos pos;
    double ms, check_ms;
    double t0, tms;            /* the move's start and time (top > 0) */
    mcts_ab_result result;
    pthread_t thread;
    bool running;              /* the thread was started and not yet joined */
} mcts_guard;

/* Start guarding p's move of tms ms (0: a simulation budget) begun at t0 (mcts_now_s()): the
 * guard's thread started beside PUCT, or its search done before PUCT's.  Returns PUCT's time in
 * ms (0 with a simulation budget). */
double mcts_guard_begin(mcts_guard *g, const zz_pos *p, double tms, double t0);

/* PUCT chose m (ZZ_MOVE_NONE when its search failed): join the guard's thread, check m, and
 * return the move to play.  *replaced: alpha-beta's move replaced m; *was_beside: the guard
 * searched on its own thread. */
zz_move mcts_guard_end(mcts_guard *g, zz_move m, bool *replaced, bool *was_beside);

enum { MCTS_GUARD_TOP_MAX = 32 };

/* The guard among PUCT's best (top > 0): PUCT chose m (ZZ_MOVE_NONE when its search failed) and
 * ranked its n root moves, most visited first.  Returns the move to play; *replaced: alpha-beta's
 * move replaced m (it scores more than `margin` points above m's exact score, or m loses sooner
 * than it). */
zz_move mcts_guard_end_among(mcts_guard *g, zz_move m, const zz_move *ranked, int n, bool *replaced);

#endif
