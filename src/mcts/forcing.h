/* forcing.h — forcing-sequence search, and a check of PUCT's best moves against it (the puct
 * agent's forcing= option, agent.h).
 *
 * In Zèrtz a placement next to a marble with a vacant ring beyond forces the other player to
 * capture (zz_place_forces): Zèrtz's checks.  A combination is a run of them, each answered by a
 * forced capture, that ends in a larger capture for the attacker; `ab` wins games with such runs
 * three placements deep that the networks' searches miss (weights/LADDER.md, "Where the games
 * against `ab` are lost: reviewed in hindsight").  The search here looks at those runs only, as a
 * threat-space search does in Gomoku:
 *   - the attacker (the player to move at the root) plays forcing placements, at most k of them
 *     on any line, and every capture when it must capture; at a quiet position of its own it may
 *     also stop (stand pat);
 *   - the defender only captures, every choice of chain; at a quiet position of its own the line
 *     ends;
 *   - a line's end is scored by alpha-beta's static evaluation (mcts_ab_evaluate, in its points: a
 *     white marble is 120), from the attacker's view; a finished game is +-MCTS_AB_WIN.
 * Alpha-beta over that tree; past the root, one placement per (colour, cell) is tried, with the
 * first ring generated (this keeps k = 3 to about 0.1 s on 48 rings, where every ring removal
 * took 4.6 s).  The ring removed can decide which capture the defender is left with, so the
 * grouping misses runs: on 61-ring positions, 40 of 295 values with k = 2 differed from the
 * search without it (weights/LADDER.md, "Where the 61-ring games against `ab` are lost"; no
 * other choice of ring tried was better everywhere).  Capture chains of either side are searched
 * in full.
 *
 * Invariants: the value is at least the attacker's stand-pat value when the root is quiet (it may
 * stop at once); with k = 0 it is the capture quiescence of alpha-beta's evaluation.  A search
 * that hits its deadline or its move stack's end is marked incomplete and its value is not used.
 * Not thread-safe: one searcher per thread.
 *
 * The check (forcing= on a puct agent) is off by default: with the five best moves and 30 % of
 * the time it scored 68-12 against `ab` on 48 rings where the network alone scored 72-8 on the
 * same openings (weights/LADDER.md, "reviewed in hindsight"). */
#ifndef MCTS_FORCING_H
#define MCTS_FORCING_H

#include "game/position.h"
#include <stdbool.h>
#include <stdint.h>

enum { MCTS_FORCING_MAX_K = 6, MCTS_FORCING_TOP_MAX = 8 };
/* Positions a check's search may visit when a move has a simulation budget, not a time. */
#define MCTS_FORCING_SIMS_NODES 2000000ull

typedef struct mcts_forcing mcts_forcing;

/* A searcher for runs of at most max_k forcing placements (1..MCTS_FORCING_MAX_K).  NULL when out
 * of memory. */
mcts_forcing *mcts_forcing_new(int max_k);
void mcts_forcing_free(mcts_forcing *f);

typedef struct mcts_forcing_result {
    int value;                 /* from the attacker's (p->to_move's) view, alpha-beta's points */
    zz_move first;             /* the run's first move (ZZ_MOVE_NONE: standing pat is best) */
    uint64_t nodes;
    bool complete;             /* false: the deadline or the stack's end came first */
} mcts_forcing_result;

/* The forcing-run value of p for its mover with at most k (<= max_k) forcing placements, by
 * deadline_s (mcts_now_s() time; 0: none) and within max_nodes positions (0: no limit). */
void mcts_forcing_search(mcts_forcing *f, const zz_pos *p, int k, double deadline_s, uint64_t max_nodes,
                         mcts_forcing_result *r);

/* The value for p's mover of playing the placement m and then its best forcing run of at most
 * k - 1 more placements (k >= 1; with k = 1 the captures that follow m are played out): what
 * tactic.h's runs (the puct option tacticrun=) score a sacrifice by.  The same search and
 * grouping as mcts_forcing_search, m being the root's move.  INT32_MIN when the search is
 * incomplete (deadline_s, max_nodes as there); *nodes (may be NULL): positions visited. */
int32_t mcts_forcing_run_value(mcts_forcing *f, const zz_pos *p, zz_move m, int k, double deadline_s,
                               uint64_t max_nodes, uint64_t *nodes);

/* The check of PUCT's moves: ranked[0..n) are PUCT's most visited root moves of p, most visited
 * first (ranked[0] is its choice).  Each that ends the mover's turn is valued, from the mover's
 * view, by the other player's forcing run after it (k placements); where another's value beats
 * ranked[0]'s by `margin` points or more, the most visited move whose value is within `margin` of
 * the best is played instead.  Nothing changes at a capture node, when ranked[0] does not end the
 * turn or the game, or when a search is incomplete (deadline_s, max_nodes: as
 * mcts_forcing_search's, for each search).  *replaced: the move changed; values[0..n) (may be
 * NULL): each move's value, INT32_MIN where none. */
zz_move mcts_forcing_check(mcts_forcing *f, const zz_pos *p, const zz_move *ranked, int n, int k, int margin,
                           double deadline_s, uint64_t max_nodes, bool *replaced, int32_t *values);

#endif
