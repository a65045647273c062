/* eval_net.h — the shared body of every network evaluator (the CPU net in eval_nn.c, the GPU net
 * in src/cuda/eval_cuda.c, the trainer's live net in src/train/live_eval.c): positions in, the
 * network's logits turned into priors over each position's legal moves, values out. */
#ifndef MCTS_EVAL_NET_H
#define MCTS_EVAL_NET_H

#include "mcts/eval_cache.h"
#include "mcts/evaluator.h"
#include "nn/geom.h"
#include <stdbool.h>

/* Runs a network: pos[n] -> logits[n][g->ncells][NN_HEADS] and values[n].  0, or -1 with a message. */
typedef int (*mcts_net_run)(void *net, const zz_pos *pos, int n, float *logits, float *values, char *err,
                            size_t errlen);

/* mcts_net_run for the CPU net: net is an nn_infer (src/nn/infer.h). */
int mcts_net_run_cpu(void *net, const zz_pos *pos, int n, float *logits, float *values, char *err, size_t errlen);

/* "the network plays the N-ring board, not the M-ring one" with how to carry it over to M rings:
 * the message for a network asked about another board's position, before or during play. */
void mcts_wrong_board_msg(zz_board_kind net_board, zz_board_kind pos_board, char *err, size_t errlen);

/* Check that the items are on g's board, run the network on their positions (copied into pos[n];
 * logits[n][g->ncells][NN_HEADS] and values[n] are its scratch), and write each item's priors (the
 * factorised policy over its legal moves) and value.  With a cache (eval_cache.h; NULL: none),
 * positions stored there are answered from it and only the others are run, then stored.  With
 * by_symmetry, the network sees each position p under the board symmetry s =
 * mcts_eval_position_sym(p), and s(p)'s logits are mapped back onto p's cells (what is stored).
 * 0 or -1. */
int mcts_eval_net_items(const nn_geom *g, mcts_net_run run, void *net, mcts_eval_item *items, int n, zz_pos *pos,
                        float *logits, float *values, mcts_eval_cache *cache, bool by_symmetry, char *err,
                        size_t errlen);

/* The board symmetry (0 .. zz_board_nsyms - 1) under which by_symmetry evaluates p: drawn from
 * p's hash, so a position always gets the same one and positions that differ mostly do not. */
int mcts_eval_position_sym(const zz_pos *p);

#endif
