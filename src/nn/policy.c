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

void nn_policy_priors(const nn_geom *g, const float *logits, const zz_pos *p, const zz_move *moves,
                      int n, float *priors)
{
    static _Thread_local double e[ZZ_MAX_MOVES];     /* exp(score - max), each taken once */
    double mx = -INFINITY, sum = 0;
    for (int i = 0; i < n; i++) {
        int32_t t[2];
        double s = 0;
        if (nn_move_terms(g, p, moves[i], t) > 0) s = logits[t[0]] + (t[1] >= 0 ? logits[t[1]] : 0);
        priors[i] = (float)s;
        if (s > mx) mx = s;
    }
    for (int i = 0; i < n; i++) sum += e[i] = exp(priors[i] - mx);
    for (int i = 0; i < n; i++) priors[i] = (float)(e[i] / sum);
}
