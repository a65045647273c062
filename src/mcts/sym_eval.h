/* sym_eval.h — one position evaluated under several symmetries of its board, the answers averaged.
 *
 * The network is trained on random symmetries of each position but is not exactly equivariant:
 * measured on positions of the shipped networks' own play, a symmetry's priors differ from the
 * identity's by a total variation of about 0.15 and agree on the best move in 54–65 % of positions
 * (weights/LADDER.md, "The network's answers averaged over the board's symmetries").  Averaging
 * over the board's symmetries (zz_board_nsyms: 12 on 37 and 61 rings, 6 on 48) is an ensemble of
 * the network with itself: PUCT's `rootsym=` does it for the root, where its cost (one batch of K)
 * is negligible. */
#ifndef MCTS_SYM_EVAL_H
#define MCTS_SYM_EVAL_H

#include "evaluator.h"

/* Evaluate p (not over) under the board's symmetries 0..k-1 (k clamped to 1..zz_board_nsyms; 0
 * is the identity) in one mcts_evaluate call, each image with its own legal moves in generator
 * order, and write the means: priors[i] = mean over the symmetries s of the prior of s(moves[i]) at
 * s(p), for moves[0..n) any legal moves of p (a subset of them gives unnormalised priors);
 * *value = the mean value for p's mover.  0, or -1 with a message (the evaluator's, out of memory,
 * or a move that is not legal at p). */
int mcts_eval_symmetric(mcts_evaluator *ev, const zz_pos *p, const zz_move *moves, int n, int k, float *priors,
                        float *value, char *err, size_t errlen);

#endif
