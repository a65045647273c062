/* sprt.c — the sequential probability ratio test on game results (see sprt.h). */
#include "sprt.h"
#include <math.h>
#include <stdio.h>

static double score_of(double elo) { return 1.0 / (1.0 + pow(10.0, -elo / 400.0)); }

/* c * ln(p), with 0 * ln(0) = 0: an outcome never seen costs nothing when given no mass. */
static double count_log(double c, double p) { return c > 0 ? c * log(p) : 0; }

/* The log-likelihood of the counts under the trinomial p(win) = t, p(draw) = 2 (s - t),
 * p(loss) = 1 - 2s + t: every distribution on {0, 1/2, 1} whose mean score is s. */
static double loglik(double w, double d, double l, double s, double t) {
    return count_log(w, t) + count_log(d, 2 * (s - t)) + count_log(l, 1 - 2 * s + t);
}

/* max over t of loglik: the likelihood of the results under the best distribution with mean
 * score s.  loglik is concave in t on [max(0, 2s - 1), s], so its derivative
 *     w / t - d / (s - t) + l / (1 - 2s + t)
 * falls across the interval: bisect it for its zero, or take the end it points to. */
static double best_loglik(double w, double d, double l, double s) {
    double lo = fmax(0, 2 * s - 1), hi = s;
    for (int i = 0; i < 200 && hi - lo > 1e-15; i++) {
        double t = 0.5 * (lo + hi);
        double slope = (w > 0 ? w / t : 0) - (d > 0 ? d / (s - t) : 0) + (l > 0 ? l / (1 - 2 * s + t) : 0);
        if (slope > 0) lo = t;
        else hi = t;
    }
    /* at an end, the outcome given no mass there has no results (its slope term would be
     * infinite), so the log-likelihood stays finite */
    return loglik(w, d, l, s, 0.5 * (lo + hi));
}

double mcts_sprt_llr(int wins, int losses, int draws, double elo0, double elo1) {
    if (wins + losses + draws <= 0) return 0;
    return best_loglik(wins, draws, losses, score_of(elo1)) - best_loglik(wins, draws, losses, score_of(elo0));
}

void mcts_sprt_bounds(double alpha, double beta, double *lower, double *upper) {
    *lower = log(beta / (1 - alpha));
    *upper = log((1 - beta) / alpha);
}

int mcts_sprt_decide(const mcts_sprt *t, int wins, int losses, int draws, double *llr) {
    double lo, hi, r = mcts_sprt_llr(wins, losses, draws, t->elo0, t->elo1);
    mcts_sprt_bounds(t->alpha, t->beta, &lo, &hi);
    if (llr) *llr = r;
    return r >= hi ? MCTS_SPRT_H1 : r <= lo ? MCTS_SPRT_H0 : MCTS_SPRT_GOING;
}

int mcts_sprt_parse(const char *s, mcts_sprt *t, char *err, unsigned long errlen) {
    char extra;
    if (sscanf(s, "%lf,%lf%c", &t->elo0, &t->elo1, &extra) != 2 || !(t->elo0 < t->elo1) ||
        fabs(t->elo0) > 2000 || fabs(t->elo1) > 2000) {
        snprintf(err, errlen, "expected ELO0,ELO1 with ELO0 < ELO1 (e.g. 0,30), not '%.40s'", s);
        return -1;
    }
    t->alpha = t->beta = 0.05;
    return 0;
}
