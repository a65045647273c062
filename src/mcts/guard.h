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
 * a time. */
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
    /* one move's state */
    zz_pos pos;
    double ms, check_ms;
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

#endif
