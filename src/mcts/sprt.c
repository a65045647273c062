/* sprt.c — the sequential probability ratio test on game results (see sprt.h). */
#include "sprt.h"
#include <math.h>
#include <stdio.h>

static double score_of(double elo) { return 1.0 / (1.0 + pow(10.0, -elo / 400.0)); }

double mcts_sprt_llr(int wins, int losses, int draws, double elo0, double elo1) {
    double w = wins, l = losses, d = draws, n = w + l + d;
    if (n <= 0) return 0;
    double x = (w + d / 2) / n, v = (w + d / 4) / n - x * x;
    if (v < 1e-12) {                      /* one result only: half a win and half a loss added */
        w += 0.5, l += 0.5;
        double m = w + l + d;
        double xm = (w + d / 2) / m;
        v = (w + d / 4) / m - xm * xm;
    }
    double s0 = score_of(elo0), s1 = score_of(elo1);
    return n * (s1 - s0) * (2 * x - s0 - s1) / (2 * v);
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
