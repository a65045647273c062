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
 * s(30) = 0.543066.  Without draws the best distribution with mean score s is a win with chance
 * s, so the LLR is the binomial one:
 * 60-40-0, H0 0 / H1 50: 60 ln(0.571463 / 0.5) + 40 ln(0.428537 / 0.5) = 1.84626.
 * 45-55-0, H0 0 / H1 30: 45 ln(0.543066 / 0.5) + 55 ln(0.456934 / 0.5) = -1.23580.
 * 8-0-0, H0 0 / H1 30: 8 ln(0.543066 / 0.5) = 0.66099 (the normal approximation with half a win
 *   and half a loss added gave 3.13 here, past the bound after 8 games).
 * 30-20-50, H0 0 / H1 20: p(win) = t, p(draw) = 2 (s - t), p(loss) = 1 - 2s + t; the best t is
 *   the root in (max(0, 2s - 1), s) of -n t^2 + (w (3s - 1) - d (1 - 2s) + l s) t + w s (1 - 2s),
 *   t = 0.25 at s = 0.5 and 0.277508 at s = 0.528751; LLR = 0.82352.
 * Bounds at alpha = beta = 0.05: ln(0.05/0.95) = -2.944439, ln(0.95/0.05) = +2.944439. */
START_TEST(llr_and_bounds_by_hand) {
    ck_assert(fabs(mcts_sprt_llr(60, 40, 0, 0, 50) - 1.84626) < 1e-4);
    ck_assert(fabs(mcts_sprt_llr(45, 55, 0, 0, 30) + 1.23580) < 1e-4);
    ck_assert(fabs(mcts_sprt_llr(8, 0, 0, 0, 30) - 0.66099) < 1e-4);
    ck_assert(fabs(mcts_sprt_llr(30, 20, 50, 0, 20) - 0.82352) < 1e-4);
    ck_assert(mcts_sprt_llr(0, 0, 0, 0, 30) == 0);
    double lo, hi;
    mcts_sprt_bounds(0.05, 0.05, &lo, &hi);
    ck_assert(fabs(lo + 2.944439) < 1e-6 && fabs(hi - 2.944439) < 1e-6);
    mcts_sprt_bounds(0.05, 0.10, &lo, &hi);
    ck_assert(fabs(lo - log(0.10 / 0.95)) < 1e-12 && fabs(hi - log(0.90 / 0.05)) < 1e-12);
    /* one result only: finite, of the right sign, and small: a streak of 10 does not decide
     * between 0 and +30 (binomially 10 ln(0.543066 / 0.5) = 0.826 and 10 ln(0.456934 / 0.5) = -0.9007) */
    double all_won = mcts_sprt_llr(10, 0, 0, 0, 30), all_lost = mcts_sprt_llr(0, 10, 0, 0, 30);
    ck_assert(fabs(all_won - 0.82624) < 1e-4 && fabs(all_lost + 0.90070) < 1e-4);
    double all_drawn = mcts_sprt_llr(0, 0, 10, 0, 30);    /* even is likelier under H0 */
    ck_assert(isfinite(all_drawn) && all_drawn < 0);
}
END_TEST

START_TEST(decisions) {
    mcts_sprt t = { 0, 50, 0.05, 0.05 };
    double llr;
    ck_assert_int_eq(mcts_sprt_decide(&t, 60, 40, 0, &llr), MCTS_SPRT_GOING);        /* 1.85 */
    ck_assert_int_eq(mcts_sprt_decide(&t, 120, 80, 0, &llr), MCTS_SPRT_H1);          /* 3.69 */
    ck_assert(fabs(llr - 2 * 1.84626) < 1e-3);
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
