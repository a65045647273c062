/* gumbel.c — completed values, the improved policy and sequential halving (gumbel.h). */
#include "gumbel.h"
#include <math.h>
#include <string.h>

void mcts_gumbel_completed_q(int n, const float *prior, const uint32_t *visits, const float *q, double v_root,
                             double *out) {
    double sum_n = 0, sum_p = 0, sum_pq = 0;
    for (int i = 0; i < n; i++)
        if (visits[i] > 0) {
            sum_n += visits[i];
            sum_p += prior[i];
            sum_pq += prior[i] * q[i];
        }
    double v_mix = v_root;
    if (sum_n > 0 && sum_p > 0) v_mix = (v_root + sum_n / sum_p * sum_pq) / (1.0 + sum_n);
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n; i++) {
        out[i] = visits[i] > 0 ? q[i] : v_mix;
        if (out[i] < lo) lo = out[i];
        if (out[i] > hi) hi = out[i];
    }
    for (int i = 0; i < n; i++) out[i] = hi > lo ? (out[i] - lo) / (hi - lo) : 0.5;
}

void mcts_gumbel_improved_policy(int n, const float *prior, const uint32_t *visits, const float *q, double v_root,
                                 double c_visit, double c_scale, double *out) {
    uint32_t max_n = 0;
    for (int i = 0; i < n; i++) if (visits[i] > max_n) max_n = visits[i];
    mcts_gumbel_completed_q(n, prior, visits, q, v_root, out);
    double top = -INFINITY;
    for (int i = 0; i < n; i++) {
        double lp = prior[i] > 0 ? log(prior[i]) : -1e9;
        out[i] = lp + mcts_gumbel_sigma(out[i], max_n, c_visit, c_scale);
        if (out[i] > top) top = out[i];
    }
    double sum = 0;
    for (int i = 0; i < n; i++) sum += out[i] = exp(out[i] - top);
    for (int i = 0; i < n; i++) out[i] /= sum;
}

static uint32_t phase_visits(const mcts_halving *h) {
    uint64_t v = h->budget / ((uint64_t)h->phases * (uint64_t)h->live);
    return v < 1 ? 1u : v > 1000000000u ? 1000000000u : (uint32_t)v;
}

void mcts_halving_init(mcts_halving *h, int m, const double *score, uint64_t budget) {
    memset(h, 0, sizeof *h);
    if (m < 1) m = 1;
    if (m > MCTS_GUMBEL_MAX) m = MCTS_GUMBEL_MAX;
    h->m = h->live = m;
    h->phases = 1;
    while ((1 << h->phases) < m) h->phases++;        /* ceil(log2 m), at least 1 */
    h->budget = budget;
    for (int i = 0; i < m; i++) {
        h->alive[i] = 1;
        h->score[i] = score[i];
    }
    h->target = phase_visits(h);
}

/* Keep the better half (rounded up) of the live candidates by score + sigma. */
static void halve(mcts_halving *h, const double *sigma) {
    int keep = (h->live + 1) / 2;
    for (int kept = 0; kept < keep; kept++) {        /* mark the best `keep` (selection, m is small) */
        int best = -1;
        for (int i = 0; i < h->m; i++)
            if (h->alive[i] == 1 && (best < 0 || h->score[i] + sigma[i] > h->score[best] + sigma[best])) best = i;
        h->alive[best] = 2;
    }
    for (int i = 0; i < h->m; i++) h->alive[i] = h->alive[i] == 2;
    h->live = keep;
    h->target += phase_visits(h);
}

int mcts_halving_next(mcts_halving *h, const uint32_t *visits, const double *sigma) {
    for (;;) {
        int pick = -1;
        for (int i = 0; i < h->m; i++)
            if (h->alive[i] && (pick < 0 || visits[i] < visits[pick] ||
                                (visits[i] == visits[pick] && h->score[i] > h->score[pick])))
                pick = i;
        if (h->live <= 1 || visits[pick] < h->target) return pick;
        halve(h, sigma);                                /* every live one has its visits: next phase */
    }
}

int mcts_halving_best(const mcts_halving *h, const double *sigma) {
    int best = -1;
    for (int i = 0; i < h->m; i++)
        if (h->alive[i] && (best < 0 || h->score[i] + sigma[i] > h->score[best] + sigma[best])) best = i;
    return best;
}
