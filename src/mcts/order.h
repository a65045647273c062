/* order.h — the k-th legal move of a position in a seeded pseudo-random order, without listing
 * the moves.  UCT opens a node's children in this order: child k is mcts_order_move(p, k, seed),
 * so concurrent claimers of different k never open the same move (no duplicate check), and the
 * ~2,000 placements of an opening are never generated.
 *
 * mcts_move_at numbers the legal moves 0..zz_count_moves(p)-1 (a bijection; not zz_gen_moves'
 * order): placements by colour, then by removed ring, then by cell; jumps in zz_gen_moves order.
 * mcts_perm is a bijection of [0, n) (a 4-round Feistel network with cycle walking). */
#ifndef MCTS_ORDER_H
#define MCTS_ORDER_H

#include "game/position.h"

/* Move number i (i < zz_count_moves(p)) of p; scratch holds 6*61 moves for jump positions. */
zz_move mcts_move_at(const zz_pos *p, uint32_t i, zz_move *scratch);
/* The image of i < n under the permutation of [0, n) chosen by seed. */
uint32_t mcts_perm(uint32_t i, uint32_t n, uint32_t seed);
/* mcts_move_at(p, mcts_perm(k, n, seed)) with n = zz_count_moves(p). */
static inline zz_move mcts_order_move(const zz_pos *p, uint32_t k, uint32_t n, uint32_t seed, zz_move *scratch) {
    return mcts_move_at(p, mcts_perm(k, n, seed), scratch);
}

#endif
