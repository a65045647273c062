/* gumbel.h — Gumbel AlphaZero at the root (Danihelka, Guez, Schrittwieser, Silver: "Policy
 * improvement by planning with Gumbel", ICLR 2022), for PUCT's tree (puct.h: gumbel_m > 0).
 *
 * At a fresh root with n legal moves, priors p and a simulation budget B:
 *   1. draw g(a) ~ Gumbel(0, 1) for every move; the m moves of largest g(a) + log p(a) are the
 *      candidates (without replacement: Gumbel-top-k);
 *   2. sequential halving: ceil(log2 m) phases; in a phase each live candidate gets
 *      max(1, floor(B / (phases * live))) more visits; then the better half lives on, ranked by
 *      g(a) + log p(a) + sigma(q(a));
 *   3. the move played is the live candidate of largest g(a) + log p(a) + sigma(q(a));
 *   4. the policy target is pi' = softmax(log p + sigma(completed q)) over every move.
 * sigma(q) = (c_visit + max_b N(b)) * c_scale * q, with q rescaled to [0, 1] by the min and max
 * of the completed values; the completed value of a move not visited is the mixed value
 *   v_mix = (v + (sum_b N(b)) / (sum_{b visited} p(b)) * sum_{b visited} p(b) q(b)) / (1 + sum_b N(b)),
 * v the network's value of the root.  Interior nodes keep PUCT's selection.
 *
 * Values here are from the root mover's view, in [-1, 1].  The pure functions below work on
 * arrays (tested on hand-computed cases); the tree glue lives in puct_gumbel.c. */
#ifndef MCTS_GUMBEL_H
#define MCTS_GUMBEL_H

#include <stdint.h>

enum { MCTS_GUMBEL_MAX = 64 };   /* candidates at most */

/* The completed values of n moves: q[i] where visits[i] > 0, else v_mix (above); then rescaled
 * to [0, 1] by their min and max (all 0.5 when equal).  out[n]. */
void mcts_gumbel_completed_q(int n, const float *prior, const uint32_t *visits, const float *q, double v_root,
                             double *out);
/* sigma of rescaled values: (c_visit + max_visits) * c_scale * q01. */
static inline double mcts_gumbel_sigma(double q01, uint32_t max_visits, double c_visit, double c_scale) {
    return (c_visit + (double)max_visits) * c_scale * q01;
}
/* The improved policy pi' = softmax(log prior + sigma(completed q)) over n moves.  out[n]. */
void mcts_gumbel_improved_policy(int n, const float *prior, const uint32_t *visits, const float *q, double v_root,
                                 double c_visit, double c_scale, double *out);

/* Sequential halving's bookkeeping over m candidates (indices 0..m-1). */
typedef struct mcts_halving {
    int m, live, phases;
    uint64_t budget;
    uint32_t target;             /* visits each live candidate must have to end this phase */
    uint8_t alive[MCTS_GUMBEL_MAX];
    double score[MCTS_GUMBEL_MAX];   /* g + log p of each candidate */
} mcts_halving;

/* Start halving m candidates (1..MCTS_GUMBEL_MAX) of scores g + log p with budget simulations. */
void mcts_halving_init(mcts_halving *h, int m, const double *score, uint64_t budget);
/* The candidate to visit next, given each candidate's visits and its sigma(completed q)
 * (ends phases as they are done: the better half by score + sigma lives on): the live
 * candidate with the fewest visits, ties to the higher score. */
int mcts_halving_next(mcts_halving *h, const uint32_t *visits, const double *sigma);
/* The live candidate of largest score + sigma: the move to play. */
int mcts_halving_best(const mcts_halving *h, const double *sigma);

#endif
