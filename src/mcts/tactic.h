/* tactic.h — priors for the placements that win an exchange.
 *
 * In Zèrtz a placement next to a marble with a vacant ring beyond forces the other player to
 * capture (zz_place_forces), and such a sacrifice can set up a larger capture in return.  The
 * networks give some of these winning sacrifices priors of 1 in 5,000, so PUCT never opens them:
 * on 61 rings `ab` won a game with a sacrifice ranked 233rd of 1,188 moves by the network
 * (weights/LADDER.md, "Leaves in the middle of an exchange … and sacrifices the network does not open").
 *
 * mcts_tactic_boost scores each forcing (colour, cell) group by alpha-beta's capture quiescence:
 * its highest-prior move is played, the captures that follow are played out by both sides
 * (mcts_ab_quiesce), and the result is compared with the static evaluation before it, in
 * alpha-beta's points (a white marble is 120).  Where the placer gains at least margin points (or
 * wins the game), that move's prior is raised to at least floor.  The caller renormalises. */
#ifndef MCTS_TACTIC_H
#define MCTS_TACTIC_H

#include "ab.h"
#include "forcing.h"
#include "game/position.h"

/* priors[0..n) of moves[0..n) (p's legal moves, zz_gen_moves order) raised in place as above;
 * nothing changes at a capture node.  ab: a searcher for the quiescence (its move stack).
 * Returns how many moves were raised. */
int mcts_tactic_boost(mcts_ab *ab, const zz_pos *p, const zz_move *moves, float *priors, int n, float floor,
                      int margin);

/* The raise at a root, deeper: every forcing placement (not one per group: the ring a placement
 * removes can decide which captures the other player has, and so whether the sacrifice pays, as
 * in weights/LADDER.md's 61-ring example, where Wc1,g1 gains 666 points and Wc1 with any other
 * ring less than the margin)
 * is scored by the mover's best forcing run that starts with it, k placements in all (forcing.h's
 * mcts_forcing_run_value), against the static evaluation before it: sacrifices whose return comes
 * placements later.  With k = 1, the exchange of each placement.  Within max_nodes positions in
 * all (0: no limit), in move order; the placements past the budget, or whose search it cut short,
 * are not raised.  Returns how many moves were raised. */
int mcts_tactic_runs(mcts_forcing *f, const zz_pos *p, const zz_move *moves, float *priors, int n, int k,
                     float floor, int margin, uint64_t max_nodes);

#endif
