/* calibrate.h — how well predicted win probabilities match what happened: a reliability
 * accumulator of (predicted win probability p, outcome y) pairs, y = 1 a win, 0 a loss, 0.5 a
 * draw, in K equal-width bins of p, with the Brier score, the log loss and the expected
 * calibration error (ECE); and a one-parameter temperature fit of the values behind the
 * probabilities, for ze_win_prob (analysis.h).  tools/calibrate measures the network with it.
 *
 * Definitions, over the n pairs added:
 *   bin k          the pairs with k/K <= p < (k+1)/K (p = 1 falls in bin K-1);
 *   pred_k, obs_k  the mean p and the mean y of bin k (NAN when the bin is empty);
 *   Brier          mean (p - y)^2 (0 is perfect; always predicting 0.5 scores 0.25);
 *   log loss       mean -(y ln p + (1-y) ln(1-p)), p clipped to [ZE_CALIB_EPS, 1 - ZE_CALIB_EPS]
 *                  so that a sure prediction that fails costs ln(1/EPS) ~ 13.8, not infinity
 *                  (always predicting 0.5 scores ln 2 = 0.693);
 *   ECE            sum over bins of (count_k / n) |pred_k - obs_k|.
 *
 * Temperature: pairs added as values (ze_calib_add_value) are kept, and ze_calib_fit finds the T
 * in [ZE_CALIB_T_MIN, ZE_CALIB_T_MAX] minimising the log loss of ze_win_prob(v, T) by
 * golden-section search on ln T.  The log loss is convex in 1/T (a one-feature logistic
 * regression on 2 atanh(v) without intercept), hence unimodal in ln T, so the search finds the
 * minimum; it stops when the bracket is narrower than 1e-7 in ln T. */
#ifndef ZE_CALIBRATE_H
#define ZE_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>

#define ZE_CALIB_EPS 1e-6       /* probability clipping of the log loss */
#define ZE_CALIB_T_MIN 0.2      /* the range of the temperature fit */
#define ZE_CALIB_T_MAX 5.0
enum { ZE_CALIB_MAX_BINS = 1000 };

typedef struct ze_calib {
    int nbins;
    double temperature;       /* the T at which add_value turns values into probabilities */
    long *count;              /* per bin: pairs, sum of p, sum of y */
    double *sum_p, *sum_y;
    long n;                   /* pairs added */
    double sum_brier, sum_log_loss;
    double *v, *y;            /* the (value, outcome) pairs added with add_value, for the fit */
    size_t nv, capv;
} ze_calib;

/* The summary of an accumulator. */
typedef struct ze_calib_stats {
    long n;
    double brier, log_loss, ece;
    double mean_p, mean_y;    /* mean prediction and mean outcome: their difference is a bias that
                                 no temperature removes */
} ze_calib_stats;

/* The result of a temperature fit. */
typedef struct ze_calib_fit_result {
    double temperature;       /* the best T */
    double log_loss;          /* the log loss at that T */
    double log_loss_t1;       /* and at T = 1 (the same pairs) */
    bool at_bound;            /* the best T is at an end of the range: the true one may lie past it */
} ze_calib_fit_result;

/* An empty accumulator of nbins bins (1..ZE_CALIB_MAX_BINS) whose values become probabilities at
 * temperature T (> 0; 1: p = (1 + v) / 2).  0, or -1 with a message (bad nbins or T, memory). */
int ze_calib_init(ze_calib *c, int nbins, double temperature, char *err, size_t errlen);
void ze_calib_free(ze_calib *c);

/* Add a predicted win probability p in [0, 1] and an outcome y (0, 0.5 or 1; anything in [0, 1]
 * is accepted).  Not kept for the temperature fit.  0, or -1 when p or y is out of range. */
int ze_calib_add_prob(ze_calib *c, double p, double y);
/* Add a value v in [-1, 1] (p = ze_win_prob(v, c->temperature)) and its outcome y, and keep the
 * pair for the fit.  0, or -1 when v or y is out of range or memory runs out. */
int ze_calib_add_value(ze_calib *c, double v, double y);

/* Bin k's pairs, mean prediction and observed frequency (NAN when empty). */
long ze_calib_bin_count(const ze_calib *c, int k);
double ze_calib_bin_pred(const ze_calib *c, int k);
double ze_calib_bin_obs(const ze_calib *c, int k);

/* Brier score, log loss, ECE, mean prediction and outcome.  0, or -1 with a message when nothing was added. */
int ze_calib_stats_get(const ze_calib *c, ze_calib_stats *s, char *err, size_t errlen);

/* The mean log loss of the kept pairs at temperature T (NAN when none are kept). */
double ze_calib_log_loss_at(const ze_calib *c, double temperature);

/* Fit the temperature on the kept pairs (see the header comment).  0, or -1 with a message when
 * no pairs were added as values. */
int ze_calib_fit(const ze_calib *c, ze_calib_fit_result *r, char *err, size_t errlen);

/* A new accumulator dst (nbins as src) with src's kept pairs re-added at temperature T: the bins
 * and scores the predictions would have at that T.  0, or -1 with a message. */
int ze_calib_retemper(const ze_calib *src, double temperature, ze_calib *dst, char *err, size_t errlen);

#endif
