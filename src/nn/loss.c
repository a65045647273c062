/* loss.c — the policy cross-entropy over legal moves, the value MSE and the captures head's
 * masked MSE, with their gradients,
 * over `real` (see policy.h). */
#include "nn/policy.h"
#include <math.h>

#ifndef NN_REAL_PASS
#define NN_SELF "loss.c"
#include "nn/real.h"
#else

static inline acc_t NN_R(score)(const real *lg, const int32_t *term)
{
    return (acc_t)lg[term[0]] + (term[1] >= 0 ? (acc_t)lg[term[1]] : 0);
}

/* Per sample: s_m = sum of the move's logits; log Z = max + log sum exp(s - max);
 * CE = -sum pi_m (s_m - log Z); dCE/ds_m = softmax_m·sum(pi) - pi_m (= p - pi, exactly so even
 * when the stored float targets sum to 1 only to rounding), scattered onto the terms. */
double NN_R(nn_policy_loss)(const real *logits, real *dlogits, const nn_policy_targets *t, int P, double weight)
{
    acc_t total = 0;
    size_t block = (size_t)P * NN_HEADS;
    for (int i = 0; i < t->n; i++) {
        int b = t->start[i], e = t->start[i + 1];
        if (e <= b) continue;
        const real *lg = logits + (size_t)i * block;
        acc_t mx = -INFINITY, z = 0, ce = 0, pisum = 0;
        for (int k = b; k < e; k++) { acc_t s = NN_R(score)(lg, t->term + 2 * k); if (s > mx) mx = s; }
        for (int k = b; k < e; k++) z += exp(NN_R(score)(lg, t->term + 2 * k) - mx);
        acc_t logz = mx + log(z);
        for (int k = b; k < e; k++)
            if (t->pi[k] > 0) {
                ce -= t->pi[k] * (NN_R(score)(lg, t->term + 2 * k) - logz);
                pisum += t->pi[k];
            }
        total += ce;
        if (!dlogits) continue;
        real *dl = dlogits + (size_t)i * block;
        acc_t scale = weight / t->n;
        for (int k = b; k < e; k++) {
            const int32_t *tm = t->term + 2 * k;
            real g = (real)(scale * (exp(NN_R(score)(lg, tm) - logz) * pisum - t->pi[k]));
            dl[tm[0]] += g;
            if (tm[1] >= 0) dl[tm[1]] += g;
        }
    }
    return t->n ? (double)(total / t->n) : 0.0;
}

double NN_R(nn_value_loss)(const real *v, real *dv, const float *z, int n, double weight)
{
    acc_t total = 0;
    for (int i = 0; i < n; i++) {
        acc_t d = (acc_t)v[i] - z[i];
        total += d * d;
        if (dv) dv[i] += (real)(weight * 2 * d / n);
    }
    return n ? (double)(total / n) : 0.0;
}

double NN_R(nn_aux_loss)(const real *a, real *da, const float *t, const uint8_t *known, int n, double weight)
{
    int nk = 0;
    for (int i = 0; i < n; i++) nk += known[i] != 0;
    if (!nk) return 0.0;
    acc_t total = 0, scale = weight * 2 / ((acc_t)nk * NN_AUX);
    for (int i = 0; i < n; i++) {
        if (!known[i]) continue;
        for (int k = 0; k < NN_AUX; k++) {
            size_t j = (size_t)i * NN_AUX + k;
            acc_t d = (acc_t)a[j] - t[j];
            total += d * d;
            if (da) da[j] += (real)(scale * d);
        }
    }
    return (double)(total / ((acc_t)nk * NN_AUX));
}

#endif
