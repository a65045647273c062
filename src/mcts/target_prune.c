/* target_prune.c — policy targets with the visits of force_prior's boost taken out
 * (target_prune.h has the rule). */
#include "target_prune.h"
#include <math.h>
#include <stdlib.h>

/* The sum over the root's edges of prior / g(move): the unboosted priors' normaliser.  A window
 * of edges (fewer than the root's moves) holds priors normalised over every move: the mass the
 * window leaves out is counted as unboosted. */
static double unboosted_mass(const mcts_tree *t, const mcts_node *root, double gain, zz_landing_cache *lc) {
    uint32_t ne = atomic_load_explicit(&((mcts_node *)root)->nedges, memory_order_acquire);
    const mcts_edge *e = mcts_tree_edges(t, atomic_load_explicit(&((mcts_node *)root)->edges, memory_order_acquire));
    double boosted = 0, unboosted = 0;
    for (uint32_t i = 0; i < ne; i++) {
        boosted += e[i].prior;
        unboosted += zz_place_forces_cached(lc, &t->root_pos, e[i].move) ? e[i].prior / gain : e[i].prior;
    }
    if (ne < root->nmoves && boosted < 1) unboosted += 1 - boosted;
    return unboosted;
}

int mcts_prune_boosted_target(const mcts_tree *t, double c_puct, double force_prior, zz_move *moves, int *visits,
                              int cap, uint64_t *pruned) {
    if (pruned) *pruned = 0;
    float *q = malloc((size_t)cap * sizeof *q), *prior = malloc((size_t)cap * sizeof *prior);
    int n = q && prior ? mcts_tree_root_children_priors(t, moves, visits, q, prior, cap) : 0;
    const mcts_node *root = mcts_tree_root(t);
    double gain = 1.0 + force_prior;
    if (n < 2 || !(force_prior > 0) || zz_move_is_jump(moves[0])) goto out;     /* nothing boosted */
    zz_landing_cache lc;
    zz_landing_cache_start(&lc);
    double mass = unboosted_mass(t, root, gain, &lc);
    if (!(mass > 0)) goto out;
    double c_sqrt_n = c_puct * sqrt((double)mcts_stats_n(mcts_node_load(root)));
    double p0_best = (zz_place_forces_cached(&lc, &t->root_pos, moves[0]) ? prior[0] / gain : prior[0]) / mass;
    double u_best = q[0] + c_sqrt_n * p0_best / (1.0 + visits[0]);
    for (int i = 1; i < n; i++) {
        if (!zz_place_forces_cached(&lc, &t->root_pos, moves[i]) || !(q[i] < u_best)) continue;
        double x = c_sqrt_n * (prior[i] / gain / mass) / (u_best - q[i]);
        int keep = x < visits[i] ? (int)floor(x) : visits[i];
        if (keep < visits[i] && keep <= 1) keep = 0;
        if (pruned) *pruned += (uint64_t)(visits[i] - keep);
        visits[i] = keep;
    }
    int k = 0;                                    /* drop the children pruned to nothing */
    for (int i = 0; i < n; i++)
        if (visits[i] > 0) moves[k] = moves[i], visits[k] = visits[i], k++;
    n = k;
out:
    free(q);
    free(prior);
    return n;
}
