/* sprt.h — a sequential probability ratio test on game results, as chess engine testing
 * frameworks use (fishtest's GSPRT): H0 "the Elo difference is elo0" against H1 "it is elo1",
 * decided when the log-likelihood ratio leaves [lower, upper].
 *
 * The LLR is a generalized likelihood ratio on the per-game score (win 1, draw 1/2, loss 0), as
 * fishtest's GSPRT: with s = 1 / (1 + 10^(-elo/400)) the score an Elo difference means, it is
 *     LLR = max over {p : mean score s1} ln L(p) - max over {p : mean score s0} ln L(p),
 * each maximum over the distributions p(win), p(draw), p(loss) with that mean score, L the
 * likelihood of the counts (a concave one-dimensional search: sprt.c).  Without draws this is the
 * binomial LLR, w ln(s1/s0) + l ln((1-s1)/(1-s0)); over many games it agrees with the normal
 * approximation N (s1 - s0) (2x - s0 - s1) / (2 v) for mean x and variance v.  Unlike that
 * approximation it stays honest on short streaks: 8 wins in 8 games give 0.66 for 0 against +30
 * (the approximation, with v estimated from the games, said 3.13 and stopped the test).
 * Bounds: lower = ln(beta / (1 - alpha)), upper = ln((1 - beta) / alpha): alpha is the chance of
 * accepting H1 when H0 holds, beta the chance of accepting H0 when H1 holds. */
#ifndef MCTS_SPRT_H
#define MCTS_SPRT_H

typedef struct mcts_sprt {
    double elo0, elo1;         /* H0 and H1 (elo0 < elo1) */
    double alpha, beta;        /* error rates, in (0, 0.5) */
} mcts_sprt;

enum { MCTS_SPRT_GOING = 0, MCTS_SPRT_H0 = -1, MCTS_SPRT_H1 = 1 };

/* The log-likelihood ratio of H1 against H0 after these results (0 with no game). */
double mcts_sprt_llr(int wins, int losses, int draws, double elo0, double elo1);
void mcts_sprt_bounds(double alpha, double beta, double *lower, double *upper);
/* MCTS_SPRT_H1 when the LLR reached the upper bound, MCTS_SPRT_H0 the lower, else GOING. */
int mcts_sprt_decide(const mcts_sprt *t, int wins, int losses, int draws, double *llr);
/* Parse "ELO0,ELO1" (elo0 < elo1, both within +-2000).  0, or -1 with a message. */
int mcts_sprt_parse(const char *s, mcts_sprt *t, char *err, unsigned long errlen);

#endif
