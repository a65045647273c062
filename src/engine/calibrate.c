/* calibrate.c — the reliability accumulator and the temperature fit (see calibrate.h). */
#include "calibrate.h"
#include "analysis.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ze_calib_init(ze_calib *c, int nbins, double temperature, char *err, size_t errlen) {
    memset(c, 0, sizeof *c);
    if (nbins < 1 || nbins > ZE_CALIB_MAX_BINS) {
        snprintf(err, errlen, "the bins must number 1 to %d, not %d", ZE_CALIB_MAX_BINS, nbins);
        return -1;
    }
    if (!(temperature > 0) || !isfinite(temperature)) {
        snprintf(err, errlen, "the temperature must be a number above 0");
        return -1;
    }
    c->nbins = nbins;
    c->temperature = temperature;
    c->count = calloc((size_t)nbins, sizeof *c->count);
    c->sum_p = calloc((size_t)nbins, sizeof *c->sum_p);
    c->sum_y = calloc((size_t)nbins, sizeof *c->sum_y);
    if (!c->count || !c->sum_p || !c->sum_y) {
        ze_calib_free(c);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

void ze_calib_free(ze_calib *c) {
    free(c->count);
    free(c->sum_p);
    free(c->sum_y);
    free(c->v);
    free(c->y);
    memset(c, 0, sizeof *c);
}

/* -(y ln p + (1-y) ln(1-p)) with p clipped to [EPS, 1 - EPS]. */
static double pair_log_loss(double p, double y) {
    if (p < ZE_CALIB_EPS) p = ZE_CALIB_EPS;
    if (p > 1 - ZE_CALIB_EPS) p = 1 - ZE_CALIB_EPS;
    return -(y * log(p) + (1 - y) * log1p(-p));
}

static bool in_unit(double x) { return x >= 0 && x <= 1; }

int ze_calib_add_prob(ze_calib *c, double p, double y) {
    if (!in_unit(p) || !in_unit(y)) return -1;
    int k = (int)(p * c->nbins);
    if (k >= c->nbins) k = c->nbins - 1;
    c->count[k]++;
    c->sum_p[k] += p;
    c->sum_y[k] += y;
    c->n++;
    c->sum_brier += (p - y) * (p - y);
    c->sum_log_loss += pair_log_loss(p, y);
    return 0;
}

static int keep_pair(ze_calib *c, double v, double y) {
    if (c->nv == c->capv) {
        size_t cap = c->capv ? 2 * c->capv : 1024;
        double *nv = realloc(c->v, cap * sizeof *nv);
        if (!nv) return -1;
        c->v = nv;
        double *ny = realloc(c->y, cap * sizeof *ny);
        if (!ny) return -1;
        c->y = ny;
        c->capv = cap;
    }
    c->v[c->nv] = v;
    c->y[c->nv] = y;
    c->nv++;
    return 0;
}

int ze_calib_add_value(ze_calib *c, double v, double y) {
    if (!(v >= -1 && v <= 1) || !in_unit(y)) return -1;
    if (keep_pair(c, v, y) != 0) return -1;
    return ze_calib_add_prob(c, ze_win_prob(v, c->temperature), y);
}

long ze_calib_bin_count(const ze_calib *c, int k) {
    return k >= 0 && k < c->nbins ? c->count[k] : 0;
}

double ze_calib_bin_pred(const ze_calib *c, int k) {
    return ze_calib_bin_count(c, k) ? c->sum_p[k] / (double)c->count[k] : NAN;
}

double ze_calib_bin_obs(const ze_calib *c, int k) {
    return ze_calib_bin_count(c, k) ? c->sum_y[k] / (double)c->count[k] : NAN;
}

int ze_calib_stats_get(const ze_calib *c, ze_calib_stats *s, char *err, size_t errlen) {
    memset(s, 0, sizeof *s);
    if (c->n == 0) { snprintf(err, errlen, "no positions to measure"); return -1; }
    s->n = c->n;
    s->brier = c->sum_brier / (double)c->n;
    s->log_loss = c->sum_log_loss / (double)c->n;
    for (int k = 0; k < c->nbins; k++) {
        s->mean_p += c->sum_p[k] / (double)c->n;
        s->mean_y += c->sum_y[k] / (double)c->n;
        if (c->count[k])
            s->ece += (double)c->count[k] / (double)c->n * fabs(ze_calib_bin_pred(c, k) - ze_calib_bin_obs(c, k));
    }
    return 0;
}

double ze_calib_log_loss_at(const ze_calib *c, double temperature) {
    if (c->nv == 0) return NAN;
    double sum = 0;
    for (size_t i = 0; i < c->nv; i++) sum += pair_log_loss(ze_win_prob(c->v[i], temperature), c->y[i]);
    return sum / (double)c->nv;
}

int ze_calib_fit(const ze_calib *c, ze_calib_fit_result *r, char *err, size_t errlen) {
    memset(r, 0, sizeof *r);
    if (c->nv == 0) { snprintf(err, errlen, "no values to fit a temperature to"); return -1; }
    const double g = (sqrt(5.0) - 1) / 2;          /* 0.618...: the golden section */
    double a = log(ZE_CALIB_T_MIN), b = log(ZE_CALIB_T_MAX);
    double x1 = b - g * (b - a), x2 = a + g * (b - a);
    double f1 = ze_calib_log_loss_at(c, exp(x1)), f2 = ze_calib_log_loss_at(c, exp(x2));
    while (b - a > 1e-7) {
        if (f1 <= f2) { b = x2; x2 = x1; f2 = f1; x1 = b - g * (b - a); f1 = ze_calib_log_loss_at(c, exp(x1)); }
        else          { a = x1; x1 = x2; f1 = f2; x2 = a + g * (b - a); f2 = ze_calib_log_loss_at(c, exp(x2)); }
    }
    double t = exp((a + b) / 2);
    r->temperature = t;
    r->log_loss = ze_calib_log_loss_at(c, t);
    r->log_loss_t1 = ze_calib_log_loss_at(c, 1.0);
    r->at_bound = t < ZE_CALIB_T_MIN * 1.001 || t > ZE_CALIB_T_MAX / 1.001;
    return 0;
}

int ze_calib_retemper(const ze_calib *src, double temperature, ze_calib *dst, char *err, size_t errlen) {
    if (ze_calib_init(dst, src->nbins, temperature, err, errlen) != 0) return -1;
    for (size_t i = 0; i < src->nv; i++)
        if (ze_calib_add_value(dst, src->v[i], src->y[i]) != 0) {
            ze_calib_free(dst);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    return 0;
}
