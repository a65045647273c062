/* proof.c — game-theoretic proofs propagated up the search tree (proof.h). */
#include "proof.h"

static void prove(mcts_node *n, int result) {
    int8_t unknown = MCTS_PROOF_NONE;
    atomic_compare_exchange_strong_explicit(&n->proof, &unknown, (int8_t)result, memory_order_release,
                                            memory_order_relaxed);
}

void mcts_proof_set_terminal(mcts_tree *t, uint32_t idx) {
    mcts_node *n = mcts_tree_node(t, idx);
    if (atomic_load_explicit(&n->state, memory_order_acquire) != MCTS_TERMINAL || n->winner < 0) return;
    prove(n, n->winner == n->player ? MCTS_PROOF_WIN : MCTS_PROOF_LOSS);
}

/* Whether every legal move of the expanded node n is a published child proven a loss for the
 * player who made it (n's mover). */
static bool every_move_lost(const mcts_tree *t, const mcts_node *n) {
    if (atomic_load_explicit(&((mcts_node *)n)->state, memory_order_acquire) != MCTS_EXPANDED) return false;
    if (n->nedges == 0 || n->nedges != n->nmoves) return false;      /* some moves were not kept */
    if (atomic_load_explicit(&((mcts_node *)n)->nopen, memory_order_acquire) != n->nedges) return false;
    uint32_t lost = 0;
    MCTS_FOR_EACH_CHILD(t, n, c) {
        if (mcts_proof(c) != MCTS_PROOF_LOSS) return false;
        lost++;
    }
    return lost == n->nedges;                 /* claimed slots not yet published do not count */
}

void mcts_proof_propagate(mcts_tree *t, uint32_t idx) {
    while (idx != t->root) {
        const mcts_node *c = mcts_tree_node(t, idx);
        int pc = mcts_proof(c);
        if (pc == MCTS_PROOF_NONE) return;
        uint32_t pi = c->parent;
        mcts_node *p = mcts_tree_node(t, pi);
        if (mcts_proof(p) != MCTS_PROOF_NONE) return;
        int mover_result;                     /* for p's mover, who is c's player */
        if (pc == MCTS_PROOF_WIN) mover_result = MCTS_PROOF_WIN;
        else if (every_move_lost(t, p)) mover_result = MCTS_PROOF_LOSS;
        else return;
        prove(p, p->player == p->to_move ? mover_result : -mover_result);
        idx = pi;
    }
}

int mcts_proof_of_root_child(const mcts_tree *t, zz_move m) {
    MCTS_FOR_EACH_CHILD(t, mcts_tree_root(t), c)
        if (c->move == m) return mcts_proof(c);
    return MCTS_PROOF_NONE;
}
