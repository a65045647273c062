/* ab.h — alpha-beta search: a classical yardstick player (the agent spec ab:DEPTH, agent.h).
 *
 * Iterative deepening from depth 1 to the asked depth (or until the time runs out), negamax with
 * alpha-beta and a principal-variation search (null windows after the first move), capture
 * quiescence, a transposition table, and move ordering by the table's move, two killer moves a
 * ply and a history table.  Depends on src/game only.
 *
 * Invariants:
 *   - A score is from the point of view of the player to move in the position searched
 *     (p->to_move).  A child where the same player moves again (the next jump of a chain) is
 *     searched with the same window and keeps its sign; any other child (the turn passed, or the
 *     game ended) with the negated window, and its score is negated.  A finished game scores from
 *     its own p->to_move's view, which makes both cases come out right.
 *   - A finished game is +-(MCTS_AB_WIN - ply), ply = moves (placements and single jumps) from the
 *     root: a faster win scores higher, a slower loss less badly; a draw (ply cap) is 0.
 *   - Every move (a placement or one jump) is one ply of depth.  At depth 0 a position with a
 *     capture pending is not quiet: quiescence plays every jump (captures are compulsory, so there
 *     is no "stand pat") until a quiet position, which the static evaluation scores.
 *   - The transposition table is keyed by zz_hash (the whole state: rings, marbles, pool,
 *     captures, mover, chain); an entry holds the depth it was searched to, the bound (exact,
 *     lower, upper), the best move and the score, with win scores stored relative to the entry's
 *     position (so that they stay right at any ply).  A move from the table is only tried when it
 *     is in the position's legal list (a hash collision can never play an illegal move).
 *   - Time: the clock is read every 1024 nodes; a search stopped (time or mcts_ab_stop) keeps the
 *     move of its last completed depth, or a root move that the unfinished depth already proved
 *     better (searched to the end after the previous best move); with no completed depth, the best
 *     move of what depth 1 searched.  A new depth is not started once half the time is spent.
 *   - Deterministic: the same position, depth, seed and table state give the same move. */
#ifndef MCTS_AB_H
#define MCTS_AB_H

#include "game/position.h"
#include <stdbool.h>
#include <stdint.h>

enum {
    MCTS_AB_MAX_DEPTH = 64,      /* deepest nominal search */
    MCTS_AB_MAX_PLY = 160,       /* deepest ply from the root, quiescence included */
    MCTS_AB_WIN = 30000,         /* a win at the root; a win n plies away is MCTS_AB_WIN - n */
    MCTS_AB_TT_LOG2_DEFAULT = 20 /* 2^20 table entries of 16 bytes: 16 MiB */
};

typedef struct mcts_ab mcts_ab;

typedef struct mcts_ab_config {
    int tt_log2;                 /* 2^tt_log2 table entries, 10..28; 0: no transposition table */
    uint64_t seed;               /* shuffles the root moves before depth 1 (0: generation order) */
} mcts_ab_config;

typedef struct mcts_ab_result {
    zz_move move;                /* the move to play (ZZ_MOVE_NONE only when the game is over) */
    int score;                   /* its score, from the mover's view */
    int depth;                   /* the last depth completed (0: none; the move is depth 1's best so far) */
    uint64_t nodes;              /* positions visited (search and quiescence) */
    uint64_t qnodes;             /* of which in quiescence */
    double seconds;
    bool stopped;                /* the time ran out (or mcts_ab_stop) before the asked depth */
} mcts_ab_result;

void mcts_ab_config_default(mcts_ab_config *c);
/* A searcher (its tables and move stack); NULL when out of memory. */
mcts_ab *mcts_ab_new(const mcts_ab_config *c);
void mcts_ab_free(mcts_ab *s);
/* Forget the transposition table, killers and history (a new game), and take a new seed. */
void mcts_ab_clear(mcts_ab *s, uint64_t seed);
/* Search p to `depth` plies (1..MCTS_AB_MAX_DEPTH) or for time_ms milliseconds (0: no limit).
 * 0 with the result, or -1 when p is over (no move) or depth is out of range. */
int mcts_ab_search(mcts_ab *s, const zz_pos *p, int depth, double time_ms, mcts_ab_result *r);
/* The same search with the root restricted to the n distinct legal moves of cands, searched in
 * that order at every depth (no reordering), so that the first move always has the full window:
 * *first_score is its exact score at the depth of res->move (res->score, that move's, is also
 * exact: a later move that beats the first is searched again with the full window).  For
 * checking a chosen move against a few others with the depth a whole-root search would not
 * reach in the same time.  to_the_end: new depths are started until the time runs out, not only
 * in its first half.  A depth the clock stops is kept only where a move other than the first
 * already beat the first's exact score at that depth (else the last completed depth's result).
 * 0, or -1 when p is over, depth is out of range, or a move is illegal or repeated (n from 1 to
 * ZZ_MAX_MOVES). */
int mcts_ab_search_among(mcts_ab *s, const zz_pos *p, const zz_move *cands, int n, int depth, double time_ms,
                         bool to_the_end, mcts_ab_result *res, int *first_score);
/* The score of move m in p, from p's mover's view, as a search of p to `depth` plies would give
 * it: m played, the rest searched to depth - 1 with the full window (the table of earlier
 * searches is used).  0 with *score, or -1 when p is over, m illegal, depth out of range, or the
 * time_ms (0: no limit) ran out first. */
int mcts_ab_move_score(mcts_ab *s, const zz_pos *p, zz_move m, int depth, double time_ms, int *score);
/* Ask a running search to stop soon (safe from another thread).  Each search starts unstopped. */
void mcts_ab_stop(mcts_ab *s);

/* The capture-quiescence score of p from its mover's view: every pending jump played out (each
 * side choosing its best chain) down to quiet positions, scored by mcts_ab_evaluate; a game won
 * or lost on the way is +-(MCTS_AB_WIN - plies).  No clock, no table; uses s's move stack. */
int mcts_ab_quiesce(mcts_ab *s, const zz_pos *p);

/* The static evaluation of a quiet position from the mover's view (mcts_ab.c describes the
 * terms): material weighted toward each side's nearest winning set, and a mobility term. */
int mcts_ab_evaluate(const zz_pos *p);

#endif
