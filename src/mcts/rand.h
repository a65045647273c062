/* rand.h — random numbers for the search: seeding, uniform doubles, Dirichlet noise.
 * All draw from zz_rand's xorshift64* state (never 0), so a seed fixes every sequence. */
#ifndef MCTS_RAND_H
#define MCTS_RAND_H

#include <stdint.h>

/* splitmix64 of x, never 0: derive independent seeds from one (seed + i). */
uint64_t mcts_seed(uint64_t x);
/* Uniform in (0, 1). */
double mcts_rand_unit(uint64_t *rng);
/* Dirichlet(alpha, ..., alpha) sample of n components into out (sums to 1).  Works in the log
 * domain, so tiny alphas (0.005 for 2,000 moves) do not underflow.  Returns 0, -1 if n < 1. */
int mcts_dirichlet(double alpha, int n, double *out, uint64_t *rng);

#endif
