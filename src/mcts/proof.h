/* proof.h — game-theoretic proofs in the search tree (an MCTS-solver, after Winands, Björnsson
 * and Saito, "Monte-Carlo Tree Search Solver", 2008), for PUCT's `solver` option (puct.h).
 *
 * A node's `proof` (tree.h) is 0 (unknown) or, from the view of the node's `player` (who moved
 * into it), MCTS_PROOF_WIN or MCTS_PROOF_LOSS: the result of the game with best play from there.
 *   - A finished game is proven at once: a win or a loss for `player` (a draw stays unknown).
 *   - A node whose mover has a child proven a win for that mover is proven: the mover wins.
 *   - A node whose every legal move is a child proven a loss for the mover (all moves kept as
 *     edges, all opened and published) is proven: the mover loses.
 * The node's own proof is then from its `player`'s view, which is the mover's own view along a
 * chain of jumps (the same player moves again) and the other side's otherwise.
 *
 * Proofs only ever go from 0 to a result (a CAS), and a proof never contradicts another: each
 * follows from the game's rules and the proofs below it.  Two threads proving the last two
 * siblings at once may both miss their parent's proof; the next descent that reaches either
 * sibling tries again (mcts_proof_propagate is called on every proven node a descent reaches).
 *
 * What the search does with them (puct.c): a child proven a win for the mover is always
 * selected; a child proven a loss is selected only when nothing else is left; descents through
 * proven nodes go on to a finished game and back up its exact value; and the move choice takes a
 * proven win and avoids a proven loss (mcts_puct_pick; mcts_tree_root_children sorts them so). */
#ifndef MCTS_PROOF_H
#define MCTS_PROOF_H

#include "tree.h"

enum { MCTS_PROOF_NONE = 0, MCTS_PROOF_WIN = 1, MCTS_PROOF_LOSS = -1 };

static inline int mcts_proof(const mcts_node *n) {
    return atomic_load_explicit(&((mcts_node *)n)->proof, memory_order_acquire);
}

/* Prove the finished game at node idx (TERMINAL) from its winner; a draw stays unknown. */
void mcts_proof_set_terminal(mcts_tree *t, uint32_t idx);

/* Node idx is proven (or not: then nothing happens): prove its ancestors that follow from it,
 * up to the root at most, stopping at the first that does not follow. */
void mcts_proof_propagate(mcts_tree *t, uint32_t idx);

/* The proof of the root's child with move m, from the root mover's view (0 when not proven or
 * not a child). */
int mcts_proof_of_root_child(const mcts_tree *t, zz_move m);

#endif
