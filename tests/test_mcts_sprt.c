/* test_mcts_sprt.c — the sequential probability ratio test (src/mcts/sprt.h): its log-likelihood
 * ratio and bounds against values worked by hand, its decisions, the parsing of ELO0,ELO1, and a
 * match that stops as soon as it decides. */
#include "helpers.h"
#include "mcts/match.h"
#include "mcts/sprt.h"
#include <check.h>
#include <math.h>
#include <string.h>

/* By hand: s(e) = 1 / (1 + 10^(-e/400)); s(0) = 0.5, s(50) = 0.571463, s(20) = 0.528751,
 * s(30) = 0.543066.
 * 60-40-0, H0 0 / H1 50: x = 0.6, v = 0.6 - 0.36 = 0.24,
 *   LLR = 100 * 0.071463 * (1.2 - 1.071463) / 0.48 = 1.91368.
 * 30-20-50, H0 0 / H1 20: x = 0.55, v = 0.3 + 0.125 - 0.3025 = 0.1225,
 *   LLR = 100 * 0.028751 * (1.1 - 1.028751) / 0.245 = 0.83611.
 * 45-55-0, H0 0 / H1 30: x = 0.45, v = 0.45 - 0.2025 = 0.2475,
 *   LLR = 100 * 0.043066 * (0.9 - 1.043066) / 0.495 = -1.24472.
 * Bounds at alpha = beta = 0.05: ln(0.05/0.95) = -2.944439, ln(0.95/0.05) = +2.944439. */
START_TEST(llr_and_bounds_by_hand) {
    ck_assert(fabs(mcts_sprt_llr(60, 40, 0, 0, 50) - 1.91368) < 1e-4);
    ck_assert(fabs(mcts_sprt_llr(30, 20, 50, 0, 20) - 0.83611) < 1e-4);
    ck_assert(fabs(mcts_sprt_llr(45, 55, 0, 0, 30) + 1.24472) < 1e-4);
    ck_assert(mcts_sprt_llr(0, 0, 0, 0, 30) == 0);
    double lo, hi;
    mcts_sprt_bounds(0.05, 0.05, &lo, &hi);
    ck_assert(fabs(lo + 2.944439) < 1e-6 && fabs(hi - 2.944439) < 1e-6);
    mcts_sprt_bounds(0.05, 0.10, &lo, &hi);
    ck_assert(fabs(lo - log(0.10 / 0.95)) < 1e-12 && fabs(hi - log(0.90 / 0.05)) < 1e-12);
    /* one result only: finite (half a win and half a loss added), and of the right sign */
    double all_won = mcts_sprt_llr(10, 0, 0, 0, 30), all_lost = mcts_sprt_llr(0, 10, 0, 0, 30);
    ck_assert(isfinite(all_won) && all_won > 0 && isfinite(all_lost) && all_lost < 0);
    ck_assert(isfinite(mcts_sprt_llr(0, 0, 10, 0, 30)));
}
END_TEST

START_TEST(decisions) {
    mcts_sprt t = { 0, 50, 0.05, 0.05 };
    double llr;
    ck_assert_int_eq(mcts_sprt_decide(&t, 60, 40, 0, &llr), MCTS_SPRT_GOING);        /* 1.91 */
    ck_assert_int_eq(mcts_sprt_decide(&t, 120, 80, 0, &llr), MCTS_SPRT_H1);          /* 3.83 */
    ck_assert(fabs(llr - 2 * 1.91368) < 1e-3);
    ck_assert_int_eq(mcts_sprt_decide(&t, 80, 120, 0, &llr), MCTS_SPRT_H0);
    mcts_sprt p;
    char err[200];
    ck_assert_int_eq(mcts_sprt_parse("0,30", &p, err, sizeof err), 0);
    ck_assert(p.elo0 == 0 && p.elo1 == 30 && p.alpha == 0.05 && p.beta == 0.05);
    ck_assert_int_eq(mcts_sprt_parse("-10.5,5", &p, err, sizeof err), 0);
    static const char *const bad[] = { "30,0", "5,5", "0", "0,30,1", "a,b", "0,30x", "0,3000", "" };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_int_eq(mcts_sprt_parse(bad[i], &p, err, sizeof err), -1);
        ck_assert(strstr(err, "ELO0,ELO1"));
    }
}
END_TEST

/* uct:300 against random: the SPRT (H0 0, H1 200) accepts H1 long before 200 games. */
START_TEST(match_stops_when_decided) {
    mcts_sprt t = { 0, 200, 0.05, 0.05 };
    mcts_match_config c;
    memset(&c, 0, sizeof c);
    c.spec[0] = "uct:300";
    c.spec[1] = "random";
    c.games = 200;
    c.parallel = 1;
    c.seed = 3;
    c.board = ZZ_B37;
    c.ply_cap = MCTS_MATCH_PLY_CAP_DEFAULT;
    c.sprt = &t;
    mcts_match_result r;
    char err[256];
    ck_assert_msg(mcts_match_run(&c, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(r.stopped_early && r.games < 40, "%d games", r.games);
    ck_assert_int_eq(r.sprt_decision, MCTS_SPRT_H1);
    ck_assert(r.sprt_llr >= 2.944439 && r.games % 2 == 0);
    ck_assert(r.sprt_games <= r.games && r.games - r.sprt_games <= c.parallel * 2);
    if (r.sprt_games == r.games) ck_assert(fabs(r.sprt_llr - mcts_sprt_llr(r.wins, r.losses, r.draws, 0, 200)) < 1e-12);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("mcts_sprt");
    TCase *t = tcase_create("sprt");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, llr_and_bounds_by_hand);
    tcase_add_test(t, decisions);
    tcase_add_test(t, match_stops_when_decided);
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    return th_run(suite());
}
