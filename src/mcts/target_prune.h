/* target_prune.h — a searched root's visits as a policy target, with the visits a prior boost
 * bought taken out (KataGo's policy-target pruning, for puct.h's force_prior).
 *
 * With force_prior = X the search multiplies the prior of every placement that forces the next
 * player to capture by g = 1 + X (then renormalises), so those moves get visits the network's own
 * priors would not have given them.  Those visits make the sacrifices explored; as policy targets
 * they would teach the network the boost instead of the moves' worth (the one --force-prior 3 run,
 * src/train/README.md, saw its policy loss rise from 4.7 to 5.3).
 *
 * mcts_prune_boosted_target reads the root's children and, for each forcing child other than the
 * most visited one (b), keeps only the visits PUCT would have given it under the unboosted priors:
 *
 *   P0(m)  = (p(m) / g(m)) / sum over the root's edges of p / g,  g(m) = g when m forces, else 1
 *   U_b    = Q_b + c * P0(b) * sqrt(N) / (1 + n_b)             (N: the root's visits)
 *   keep_m = min(n_m, floor(c * P0(m) * sqrt(N) / (U_b - Q_m)))  when Q_m < U_b, else n_m
 *
 * (a child is chosen while Q_m + c P0(m) sqrt(N) / (1 + n) >= U_b, that is for n = 0 .. x - 1
 * with x = c P0(m) sqrt(N) / (U_b - Q_m)).  A child pruned to one visit or none is dropped, as
 * KataGo drops a child left with a single visit.  Q is the root mover's mean value (the children's
 * stats); p is the prior as the root's edges hold it (noise and boost included).  Non-forcing
 * children and the most visited child keep every visit; a root whose moves are captures (no
 * placements, no boost) keeps them all.  The move played is still chosen from the whole search.
 * With the tactic floor too (tactic_prior, applied after the boost), a floored prior is divided by
 * g like any forcing one: P0 is then below the floor, and such a move keeps fewer visits than the
 * floor alone would give it. */
#ifndef MCTS_TARGET_PRUNE_H
#define MCTS_TARGET_PRUNE_H

#include "tree.h"
#include <stdint.h>

/* The root's children with visits left after pruning: moves[i], visits[i] (> 0), at most cap,
 * most visited first as the search left them (mcts_tree_root_children's order, the pruned counts
 * in place).  c_puct and force_prior are the search's.  *pruned (may be NULL) gets the visits
 * taken out.  Returns the number written (0 when the root has no child with visits). */
int mcts_prune_boosted_target(const mcts_tree *t, double c_puct, double force_prior, zz_move *moves, int *visits,
                              int cap, uint64_t *pruned);

#endif
