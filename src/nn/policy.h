/* policy.h — the factorised policy: a move's score is a sum of head logits, priors are the softmax
 * of the scores over the legal moves, and the training loss is the exact cross-entropy between a
 * visit distribution and that softmax.  Logits of one sample are logits[P][NN_HEADS] (model.h):
 *   place colour c at a removing r:  place[c][a] + remove[r]
 *   place colour c at a, no removal: place[c][a]
 *   jump a -> b:                     from[a] + to[b]
 *   jump continuing a chain:         to[b]           (pos.chain is set; the marble is known)     */
#ifndef NN_POLICY_H
#define NN_POLICY_H

#include "nn/model.h"

/* The logits (indices into a sample's [P][NN_HEADS] block) whose sum is move m's score at p.
 * Returns the number of terms (1 or 2; term[1] = -1 when 1), or -1 when m does not fit g's board. */
int nn_move_terms(const nn_geom *g, const zz_pos *p, zz_move m, int32_t term[2]);

/* Priors of the moves moves[0..n) of p (n ≤ ZZ_MAX_MOVES, as zz_gen_moves gives): softmax of
 * their scores from one sample's logits.  One exp a logit, the weights as products (policy.c),
 * within 2 float roundings of the exact softmax; thread-local scratch. */
void nn_policy_priors(const nn_geom *g, const float *logits, const zz_pos *p, const zz_move *moves,
                      int n, float *priors);
/* The same as a max-shifted two-pass softmax over the scores rounded to float (two exps a move):
 * the first version, and nn_policy_priors's fallback where its weights could underflow a double
 * or a logit is not finite. */
void nn_policy_priors_shifted(const nn_geom *g, const float *logits, const zz_pos *p, const zz_move *moves,
                              int n, float *priors);

/* Training targets of a batch, in the layout nn_batch builds. */
typedef struct {
    int n;                      /* samples */
    const int *start;           /* [n+1]: sample i's moves are [start[i], start[i+1]) */
    const int32_t *term;        /* [moves][2]: logit indices in the sample's block (-1: none) */
    const float *pi;            /* [moves]: target probability of each legal move (sums to 1) */
} nn_policy_targets;

/* Mean over samples of the cross-entropy -sum pi·log softmax(scores) for logits[n][P][NN_HEADS];
 * when dlogits != NULL adds weight/n · (softmax - pi) onto each move's terms. */
double nn_policy_loss_f(const float *logits, float *dlogits, const nn_policy_targets *t, int P, double weight);
double nn_policy_loss_d(const double *logits, double *dlogits, const nn_policy_targets *t, int P, double weight);

/* Mean squared error of v[n] against z[n]; when dv != NULL adds weight · 2(v-z)/n. */
double nn_value_loss_f(const float *v, float *dv, const float *z, int n, double weight);
double nn_value_loss_d(const double *v, double *dv, const float *z, int n, double weight);

/* The captures head's loss: over the samples whose known[i] is set, the mean over them and the
 * NN_AUX outputs of (a - t)² for a[n][NN_AUX] against t[n][NN_AUX]; when da != NULL adds
 * weight · 2(a-t)/(known·NN_AUX) onto those samples' outputs.  0 when none is known. */
double nn_aux_loss_f(const float *a, float *da, const float *t, const uint8_t *known, int n, double weight);
double nn_aux_loss_d(const double *a, double *da, const float *t, const uint8_t *known, int n, double weight);

#endif
