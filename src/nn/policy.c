/* policy.c — move -> head logits, priors (see policy.h). */
#include "nn/policy.h"
#include <math.h>

int nn_move_terms(const nn_geom *g, const zz_pos *p, zz_move m, int32_t term[2])
{
    int a = zz_move_a(m), b = zz_move_b(m);
    int ia = g->index[a], ib = b == ZZ_NO_CELL ? -1 : g->index[b];
    term[0] = term[1] = -1;
    switch (zz_move_kind(m)) {
    case ZZ_MOVE_PLACE: {
        int c = zz_move_colour(m);
        if (ia < 0 || c > 2 || (b != ZZ_NO_CELL && ib < 0)) return -1;
        term[0] = ia * NN_HEADS + c;
        if (ib < 0) return 1;
        term[1] = ib * NN_HEADS + NN_HEAD_REMOVE;
        return 2;
    }
    case ZZ_MOVE_JUMP:
        if (ia < 0 || ib < 0) return -1;
        if (p->chain != ZZ_NO_CELL) {
            term[0] = ib * NN_HEADS + NN_HEAD_TO;
            return 1;
        }
        term[0] = ia * NN_HEADS + NN_HEAD_FROM;
        term[1] = ib * NN_HEADS + NN_HEAD_TO;
        return 2;
    default:
        return -1;
    }
}

void nn_policy_priors_shifted(const nn_geom *g, const float *logits, const zz_pos *p, const zz_move *moves,
                              int n, float *priors)
{
    double mx = -INFINITY, sum = 0;
    for (int i = 0; i < n; i++) {
        int32_t t[2];
        double s = 0;
        if (nn_move_terms(g, p, moves[i], t) > 0) s = logits[t[0]] + (t[1] >= 0 ? logits[t[1]] : 0);
        priors[i] = (float)s;
        if (s > mx) mx = s;
    }
    for (int i = 0; i < n; i++) sum += exp(priors[i] - mx);
    for (int i = 0; i < n; i++) priors[i] = (float)(exp(priors[i] - mx) / sum);
}

/* exp(a + b - 2M) = E[a]·E[b] with E[k] = exp(logit k - M), M the largest logit: one exp a logit
 * (at most 61·NN_HEADS) instead of one a legal move (thousands on 61 rings), every weight on the
 * one scale exp(score - 2M).  Falls back to nn_policy_priors_shifted when a logit is not finite
 * or the weights come near a double's underflow (the best legal score ~600 under 2M). */
void nn_policy_priors(const nn_geom *g, const float *logits, const zz_pos *p, const zz_move *moves,
                      int n, float *priors)
{
    static _Thread_local double w[ZZ_MAX_MOVES], E[ZZ_MAX_RINGS * NN_HEADS];
    int nl = g->ncells * NN_HEADS;
    float M = -INFINITY;
    for (int k = 0; k < nl; k++) M = logits[k] > M ? logits[k] : M;
    if (!isfinite(M)) { nn_policy_priors_shifted(g, logits, p, moves, n, priors); return; }
    for (int k = 0; k < nl; k++) E[k] = exp((double)logits[k] - M);
    double one_term = exp(-(double)M), no_term = one_term * one_term, sum = 0, wmax = 0;
    for (int i = 0; i < n; i++) {
        int32_t t[2];
        int terms = nn_move_terms(g, p, moves[i], t);
        double wi = terms == 2 ? E[t[0]] * E[t[1]] : terms == 1 ? E[t[0]] * one_term : no_term;
        w[i] = wi;
        sum += wi;
        wmax = wi > wmax ? wi : wmax;
    }
    /* every weight within 2^-150 of the largest (the float priors that are not 0) must be a normal
     * double, so the largest must be at least 2^-872 */
    if (!(wmax >= 0x1p-872) || !isfinite(sum)) { nn_policy_priors_shifted(g, logits, p, moves, n, priors); return; }
    double inv = 1.0 / sum;
    for (int i = 0; i < n; i++) priors[i] = (float)(w[i] * inv);
}
