/* test_calibrate.c — the reliability accumulator and the temperature fit (engine/calibrate.h) on
 * hand-worked numbers: the bins, Brier score, log loss and ECE of six pairs worked out in the
 * comments; temperatures recovered from synthetic outcomes drawn at a known T with a fixed seed;
 * the refusals (no pairs, values or outcomes out of range, bad bins); and tools/calibrate: --help,
 * bad usage, --compare of hand-written results, and a short run on the archive's games. */
#include "engine/analysis.h"
#include "engine/calibrate.h"
#include "helpers.h"
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void init(ze_calib *c, int bins, double t) {
    char err[256];
    ck_assert_msg(ze_calib_init(c, bins, t, err, sizeof err) == 0, "%s", err);
}

/* Four bins [0, .25) [.25, .5) [.5, .75) [.75, 1]:
 *   bin 0: (0.1, loss) (0.2, win)           count 2, pred 0.15, obs 0.5
 *   bin 1: (0.3, draw)                      count 1, pred 0.3,  obs 0.5
 *   bin 2: empty                            NAN, NAN
 *   bin 3: (0.8, win) (0.9, win) (1, loss)  count 3, pred 0.9,  obs 2/3
 * Brier = (0.01 + 0.64 + 0.04 + 0.04 + 0.01 + 1) / 6 = 1.74 / 6 = 0.29.
 * ECE = 2/6 * 0.35 + 1/6 * 0.2 + 3/6 * (0.9 - 2/3) = 0.116667 + 0.033333 + 0.116667 = 0.266667.
 * Log loss: -ln 0.9 - ln 0.2 - (ln 0.3 + ln 0.7) / 2 - ln 0.8 - ln 0.9 - ln(1e-6) (p = 1 with a
 * loss is clipped to 1 - 1e-6), over 6. */
START_TEST(bins_by_hand) {
    ze_calib c;
    init(&c, 4, 1.0);
    const double p[6] = { 0.1, 0.2, 0.3, 0.8, 0.9, 1.0 }, y[6] = { 0, 1, 0.5, 1, 1, 0 };
    for (int i = 0; i < 6; i++) ck_assert_int_eq(ze_calib_add_prob(&c, p[i], y[i]), 0);
    const long count[4] = { 2, 1, 0, 3 };
    const double pred[4] = { 0.15, 0.3, NAN, 0.9 }, obs[4] = { 0.5, 0.5, NAN, 2.0 / 3 };
    for (int k = 0; k < 4; k++) {
        ck_assert_int_eq(ze_calib_bin_count(&c, k), count[k]);
        if (!count[k]) { ck_assert(isnan(ze_calib_bin_pred(&c, k)) && isnan(ze_calib_bin_obs(&c, k))); continue; }
        ck_assert_double_eq_tol(ze_calib_bin_pred(&c, k), pred[k], 1e-12);
        ck_assert_double_eq_tol(ze_calib_bin_obs(&c, k), obs[k], 1e-12);
    }
    ze_calib_stats s;
    char err[256];
    ck_assert_int_eq(ze_calib_stats_get(&c, &s, err, sizeof err), 0);
    ck_assert_int_eq(s.n, 6);
    ck_assert_double_eq_tol(s.brier, 0.29, 1e-12);
    ck_assert_double_eq_tol(s.ece, 0.8 / 3, 1e-12);
    double ll = -log(0.9) - log(0.2) - (log(0.3) + log(0.7)) / 2 - log(0.8) - log(0.9) - log(1e-6);
    ck_assert_double_eq_tol(s.log_loss, ll / 6, 1e-9);
    ck_assert_double_eq_tol(s.mean_p, 3.3 / 6, 1e-12);
    ck_assert_double_eq_tol(s.mean_y, 3.5 / 6, 1e-12);
    /* the ends of the bins: 0.25 opens bin 1, 0.5 bin 2, 0 bin 0 */
    ck_assert_int_eq(ze_calib_add_prob(&c, 0.25, 1), 0);
    ck_assert_int_eq(ze_calib_add_prob(&c, 0.5, 1), 0);
    ck_assert_int_eq(ze_calib_add_prob(&c, 0.0, 0), 0);
    ck_assert_int_eq(ze_calib_bin_count(&c, 0), 3);
    ck_assert_int_eq(ze_calib_bin_count(&c, 1), 2);
    ck_assert_int_eq(ze_calib_bin_count(&c, 2), 1);
    ze_calib_free(&c);
}
END_TEST

/* Values at T = 1 are (1 + v) / 2: v = 0.6 -> 0.8, v = -1 -> 0 (bin 0), v = 1 -> 1 (the last). */
START_TEST(values_at_t1) {
    ze_calib c;
    init(&c, 10, 1.0);
    ck_assert_int_eq(ze_calib_add_value(&c, 0.6, 1), 0);
    ck_assert_int_eq(ze_calib_add_value(&c, -1.0, 0), 0);
    ck_assert_int_eq(ze_calib_add_value(&c, 1.0, 1), 0);
    ck_assert_int_eq(ze_calib_bin_count(&c, 8), 1);
    ck_assert_double_eq_tol(ze_calib_bin_pred(&c, 8), 0.8, 1e-12);
    ck_assert_int_eq(ze_calib_bin_count(&c, 0), 1);
    ck_assert_int_eq(ze_calib_bin_count(&c, 9), 1);
    /* log loss at T = 1: -ln 0.8 and the two sure predictions that came true (clipped: ~1e-6 each) */
    ck_assert_double_eq_tol(ze_calib_log_loss_at(&c, 1.0), -log(0.8) / 3, 1e-6);
    ze_calib_free(&c);
}
END_TEST

/* n pairs whose outcomes are drawn at temperature t: the logit z uniform in [-2, 2], the value
 * v = tanh(z / 2) (so that (1 + v) / 2 = sigmoid(z)), the outcome a win with probability
 * q = sigmoid(z / t) = ze_win_prob(v, t), else a loss.  With draws: a fifth of the games are
 * drawn (0.5) and the others won with probability (q - 0.1) / 0.8, so that the expected outcome is
 * still q (q lies in [0.12, 0.88] at t = 1). */
static void synthetic(ze_calib *c, int n, double t, bool draws, uint64_t seed) {
    uint64_t rng = seed;
    for (int i = 0; i < n; i++) {
        double z = 4 * th_urand(&rng) - 2, v = tanh(z / 2), q = ze_win_prob(v, t);
        double y;
        if (!draws) y = th_urand(&rng) < q ? 1 : 0;
        else if (th_urand(&rng) < 0.2) y = 0.5;
        else y = th_urand(&rng) < (q - 0.1) / 0.8 ? 1 : 0;
        ck_assert_int_eq(ze_calib_add_value(c, v, y), 0);
    }
}

/* With 20,000 pairs the fitted 1/T has a standard error of about 0.015 (Fisher information of a
 * one-feature logistic regression, E[z^2 q (1-q)] ~ 0.2 to 0.3 here), so T = 2 comes back within
 * ~0.06, T = 0.5 within ~0.005 and T = 3 within ~0.15: the tolerances are about four of those. */
START_TEST(fit_recovers_temperature) {
    const double want[3] = { 2.0, 0.5, 3.0 };
    const double tol[3] = { 0.25, 0.025, 0.6 };
    for (int i = 0; i < 3; i++) {
        ze_calib c;
        init(&c, 10, 1.0);
        synthetic(&c, 20000, want[i], false, 12345 + i);
        ze_calib_fit_result r;
        char err[256];
        ck_assert_msg(ze_calib_fit(&c, &r, err, sizeof err) == 0, "%s", err);
        printf("calibrate: outcomes drawn at T = %g, fitted T = %.4f\n", want[i], r.temperature);
        ck_assert_msg(fabs(r.temperature - want[i]) < tol[i], "T %g fitted as %g", want[i], r.temperature);
        ck_assert(!r.at_bound);
        ck_assert_double_eq_tol(r.log_loss_t1, ze_calib_log_loss_at(&c, 1.0), 1e-12);
        ck_assert(r.log_loss < r.log_loss_t1);
        /* the minimum: a step either side costs */
        ck_assert(r.log_loss <= ze_calib_log_loss_at(&c, r.temperature * 1.05));
        ck_assert(r.log_loss <= ze_calib_log_loss_at(&c, r.temperature / 1.05));
        /* at the fitted temperature the bins lie closer to the diagonal */
        ze_calib fitted;
        ze_calib_stats s1, st;
        ck_assert_int_eq(ze_calib_retemper(&c, r.temperature, &fitted, err, sizeof err), 0);
        ck_assert_int_eq(ze_calib_stats_get(&c, &s1, err, sizeof err), 0);
        ck_assert_int_eq(ze_calib_stats_get(&fitted, &st, err, sizeof err), 0);
        ck_assert_int_eq(st.n, 20000);
        ck_assert_double_eq_tol(st.log_loss, r.log_loss, 1e-9);
        ck_assert_msg(st.ece < s1.ece / 2, "ECE %g at T = 1, %g at the fitted T", s1.ece, st.ece);
        ze_calib_free(&fitted);
        ze_calib_free(&c);
    }
}
END_TEST

/* Calibrated values (T = 1), with and without draws, give T ~ 1 and a small ECE. */
START_TEST(fit_of_calibrated_values_is_one) {
    for (int draws = 0; draws < 2; draws++) {
        ze_calib c;
        init(&c, 10, 1.0);
        synthetic(&c, 20000, 1.0, draws, 777);
        ze_calib_fit_result r;
        ze_calib_stats s;
        char err[256];
        ck_assert_int_eq(ze_calib_fit(&c, &r, err, sizeof err), 0);
        ck_assert_int_eq(ze_calib_stats_get(&c, &s, err, sizeof err), 0);
        printf("calibrate: calibrated outcomes%s, fitted T = %.4f, ECE %.4f\n", draws ? " with draws" : "", r.temperature, s.ece);
        ck_assert_msg(fabs(r.temperature - 1) < 0.08, "T %g with draws %d", r.temperature, draws);
        ck_assert_msg(s.ece < 0.02, "ECE %g", s.ece);
        ze_calib_free(&c);
    }
}
END_TEST

/* Always right with v = 0.5: sharper is always better, the fit stops at the low end of the range
 * and says so; always wrong: at the high end. */
START_TEST(fit_at_the_bounds) {
    for (int wrong = 0; wrong < 2; wrong++) {
        ze_calib c;
        init(&c, 10, 1.0);
        for (int i = 0; i < 100; i++) ck_assert_int_eq(ze_calib_add_value(&c, 0.5, wrong ? 0 : 1), 0);
        ze_calib_fit_result r;
        char err[256];
        ck_assert_int_eq(ze_calib_fit(&c, &r, err, sizeof err), 0);
        ck_assert(r.at_bound);
        ck_assert_double_eq_tol(r.temperature, wrong ? ZE_CALIB_T_MAX : ZE_CALIB_T_MIN, 1e-3);
        ze_calib_free(&c);
    }
}
END_TEST

START_TEST(refusals) {
    ze_calib c;
    char err[256];
    ck_assert_int_eq(ze_calib_init(&c, 0, 1.0, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "bins"));
    ck_assert_int_eq(ze_calib_init(&c, ZE_CALIB_MAX_BINS + 1, 1.0, err, sizeof err), -1);
    ck_assert_int_eq(ze_calib_init(&c, 10, 0.0, err, sizeof err), -1);
    ck_assert_int_eq(ze_calib_init(&c, 10, NAN, err, sizeof err), -1);
    init(&c, 10, 1.0);
    /* nothing added: no statistics, no fit */
    ze_calib_stats s;
    ze_calib_fit_result r;
    ck_assert_int_eq(ze_calib_stats_get(&c, &s, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "no positions"));
    ck_assert_int_eq(ze_calib_fit(&c, &r, err, sizeof err), -1);
    ck_assert(isnan(ze_calib_log_loss_at(&c, 1.0)));
    /* out of range */
    ck_assert_int_eq(ze_calib_add_prob(&c, 1.5, 1), -1);
    ck_assert_int_eq(ze_calib_add_prob(&c, -0.1, 1), -1);
    ck_assert_int_eq(ze_calib_add_prob(&c, 0.5, -1), -1);
    ck_assert_int_eq(ze_calib_add_prob(&c, NAN, 1), -1);
    ck_assert_int_eq(ze_calib_add_value(&c, 1.2, 1), -1);
    ck_assert_int_eq(ze_calib_add_value(&c, NAN, 1), -1);
    ck_assert_int_eq(ze_calib_add_value(&c, 0.3, 2), -1);
    ck_assert_int_eq(c.n, 0);
    ck_assert_int_eq((long)c.nv, 0);
    /* probabilities alone: statistics, but nothing to fit */
    ck_assert_int_eq(ze_calib_add_prob(&c, 0.7, 1), 0);
    ck_assert_int_eq(ze_calib_stats_get(&c, &s, err, sizeof err), 0);
    ck_assert_int_eq(ze_calib_fit(&c, &r, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "no values"));
    ze_calib_free(&c);
}
END_TEST

/* ---- tools/calibrate ------------------------------------------------------------------------ */
static char out[1 << 16], errs[1 << 14];

START_TEST(tool_usage) {
    int rc = th_run_tool("calibrate", "calibrate", "--help", 30, out, sizeof out, errs, sizeof errs);
    if (rc == -1) return;
    ck_assert_int_eq(rc, 0);
    ck_assert_ptr_nonnull(strstr(out, "--compare"));
    const char *bad[] = { "--bins 1 x", "--rings 40 x", "--sims 0 x", "--nope x", "", "--compare --sims 5 a.json" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        rc = th_run_tool("calibrate", "calibrate", bad[i], 30, out, sizeof out, errs, sizeof errs);
        ck_assert_msg(rc == 2, "'%s': exit %d", bad[i], rc);
        ck_assert_msg(!strncmp(errs, "zertz: calibrate: ", 18), "'%s': %s", bad[i], errs);
    }
    rc = th_run_tool("calibrate", "calibrate", "/nonexistent/games", 30, out, sizeof out, errs, sizeof errs);
    ck_assert_int_eq(rc, 1);
    ck_assert_ptr_nonnull(strstr(errs, "zertz: calibrate: "));
}
END_TEST

/* Two hand-written results drawn together: the table names both, the picture is written. */
START_TEST(tool_compare) {
    char dir[] = "/tmp/zz_calib_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char a[64], b[64], png[64], args[256];
    snprintf(a, sizeof a, "%s/a.json", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    snprintf(png, sizeof png, "%s/r.png", dir);
    FILE *f = fopen(a, "w");
    fputs("{\"label\":\"alpha\",\"rings\":37,\"positions\":3,\"brier\":0.2,\"log_loss\":0.6,\"ece\":0.05,"
          "\"fit\":{\"temperature\":1.5,\"log_loss\":0.55},\"bins\":[{\"count\":1,\"pred\":0.2,\"obs\":0},"
          "{\"count\":2,\"pred\":0.7,\"obs\":0.5}]}", f);
    fclose(f);
    f = fopen(b, "w");
    fputs("{\"label\":\"beta\",\"rings\":37,\"positions\":1,\"brier\":0.1,\"log_loss\":0.3,\"ece\":0.1,"
          "\"fit\":{\"temperature\":0.8,\"log_loss\":0.25},\"bins\":[{\"count\":0,\"pred\":null,\"obs\":null},"
          "{\"count\":1,\"pred\":0.9,\"obs\":1}]}", f);
    fclose(f);
    snprintf(args, sizeof args, "--compare --png %s %s %s", png, a, b);
    int rc = th_run_tool("calibrate", "calibrate", args, 30, out, sizeof out, errs, sizeof errs);
    if (rc == -1) return;
    ck_assert_msg(rc == 0, "%s", errs);
    ck_assert_ptr_nonnull(strstr(out, "| alpha | 3 | 0.2000 | 0.6000 | 0.0500 | 1.50 | 0.5500 |"));
    ck_assert_ptr_nonnull(strstr(out, "| beta | 1 |"));
    FILE *p = fopen(png, "rb");
    ck_assert_ptr_nonnull(p);
    fclose(p);
    snprintf(args, sizeof args, "--compare %s %s/a.json", png, dir);   /* a PNG is not JSON */
    rc = th_run_tool("calibrate", "calibrate", args, 30, out, sizeof out, errs, sizeof errs);
    ck_assert_int_eq(rc, 1);
    ck_assert_ptr_nonnull(strstr(errs, "not JSON"));
    f = fopen(b, "w");                                     /* JSON, but only bins: no table of nan */
    fputs("{\"bins\":[{\"count\":1,\"pred\":0.5,\"obs\":0.5}]}", f);
    fclose(f);
    snprintf(args, sizeof args, "--compare --png %s %s", png, b);
    rc = th_run_tool("calibrate", "calibrate", args, 30, out, sizeof out, errs, sizeof errs);
    ck_assert_int_eq(rc, 1);
    ck_assert_ptr_nonnull(strstr(errs, "not a whole calibrate --json file"));
    remove(a), remove(b), remove(png), rmdir(dir);
}
END_TEST

/* The shipped network on the archive's 2004 games (37 rings): every bin count adds up to the
 * positions measured, the JSON says the same, the fitted T is inside the range.  The same run on
 * 61 rings finds no game of that board there. */
START_TEST(tool_on_archive) {
    const char *arch = th_archive_dir();
    if (!arch) { th_skip("calibrate", "no Boardspace archive: tools/calibrate not run on real games"); return; }
    char dir[] = "/tmp/zz_calib_XXXXXX", args[1024], json[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(json, sizeof json, "%s/r.json", dir);
    snprintf(args, sizeof args, "-q --max-positions 300 --json %s %s/sgf/37/2004", json, arch);
    int rc = th_run_tool("calibrate", "calibrate", args, 120, out, sizeof out, errs, sizeof errs);
    if (rc == -1) return;
    ck_assert_msg(rc == 0, "%s", errs);
    ck_assert_ptr_nonnull(strstr(out, "300 positions, raw network value"));
    long total = 0;
    for (const char *s = strstr(out, "observed\n"); s && (s = strchr(s, '\n')) && s[1] && s[1] != 'm'; s++) {
        long n;
        if (sscanf(s + 1, "%*s %ld", &n) == 1) total += n;
    }
    ck_assert_int_eq(total, 300);
    FILE *f = fopen(json, "r");
    ck_assert_ptr_nonnull(f);
    size_t len = fread(errs, 1, sizeof errs - 1, f);
    errs[len] = 0;
    fclose(f);
    ck_assert_ptr_nonnull(strstr(errs, "\"positions\":\t300"));
    ck_assert_ptr_nonnull(strstr(errs, "\"temperature\""));
    remove(json), rmdir(dir);
    snprintf(args, sizeof args, "-q --rings 61 %s/sgf/37/2004", arch);
    rc = th_run_tool("calibrate", "calibrate", args, 120, out, sizeof out, errs, sizeof errs);
    ck_assert_int_eq(rc, 1);
    ck_assert_ptr_nonnull(strstr(errs, "no position to measure"));
}
END_TEST

int main(void) {
    Suite *s = suite_create("calibrate");
    TCase *t = tcase_create("accumulator");
    tcase_add_test(t, bins_by_hand);
    tcase_add_test(t, values_at_t1);
    tcase_add_test(t, fit_recovers_temperature);
    tcase_add_test(t, fit_of_calibrated_values_is_one);
    tcase_add_test(t, fit_at_the_bounds);
    tcase_add_test(t, refusals);
    suite_add_tcase(s, t);
    TCase *tool = tcase_create("tool");
    tcase_set_timeout(tool, 300);
    tcase_add_test(tool, tool_usage);
    tcase_add_test(tool, tool_compare);
    tcase_add_test(tool, tool_on_archive);
    suite_add_tcase(s, tool);
    return th_run(s);
}
