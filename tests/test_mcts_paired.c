/* test_mcts_paired.c — ladders compared game by game (src/mcts/paired.h, tools/paired): the exact
 * sign test against values worked by hand, logs read (games out of order, draws, an agent's
 * error), bad logs refused with their line, and tools/paired over two real tools/strength logs. */
#include "helpers.h"
#include "mcts/paired.h"
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* By hand, p = 2 P(X <= min(a, b)) for X ~ Binomial(a + b, 1/2), at most 1:
 *   3 / 9:  (1 + 12 + 66 + 220) / 4096 = 299 / 4096, p = 0.14599609375;
 *   0 / 5:  2 / 32 = 0.0625;   14 / 1:  2 (1 + 15) / 32768 = 0.0009765625;
 *   1 / 1:  2 · 3/4, capped: 1;   0 / 0: 1 (no game says anything).
 * And the figures of weights/README.md and weights/TRAINING.md, p ≈ 0.68 for 24 / 28 and 0.87 for
 * 17 / 19 (by a Python sum of binomial coefficients: 0.677808639, 0.867939400). */
START_TEST(sign_test_by_hand) {
    ck_assert(fabs(mcts_sign_test_p(3, 9) - 0.14599609375) < 1e-12);
    ck_assert(fabs(mcts_sign_test_p(9, 3) - 0.14599609375) < 1e-12);
    ck_assert(fabs(mcts_sign_test_p(0, 5) - 0.0625) < 1e-12);
    ck_assert(fabs(mcts_sign_test_p(14, 1) - 0.0009765625) < 1e-12);
    ck_assert(mcts_sign_test_p(1, 1) == 1.0 && mcts_sign_test_p(0, 0) == 1.0 && mcts_sign_test_p(7, 7) == 1.0);
    ck_assert(fabs(mcts_sign_test_p(24, 28) - 0.677808639) < 1e-8);
    ck_assert(fabs(mcts_sign_test_p(17, 19) - 0.867939400) < 1e-8);
    ck_assert(mcts_sign_test_p(0, 2000) < 1e-300 && mcts_sign_test_p(0, 2000) >= 0);   /* no overflow */
}
END_TEST

static int read_text(const char *text, mcts_ladder_log *log, char *err, size_t errlen) {
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    ck_assert_ptr_nonnull(f);
    int rc = mcts_ladder_log_read(f, "log", log, err, errlen);
    fclose(f);
    return rc;
}

#define HEADER(SEED)                                                                                          \
    "strength: puct:default:1000000000,time=1000,threads=1, fixed time per move, 61 rings, 6 games per "      \
    "opponent from 3 openings (2 random plies each, both colours), 2 at once, seed " SEED "\n"                 \
    "strength: machine: AMD EPYC (family 23, model 1), 2 cores; float kernels avx2, int8 kernel avx2\n"

START_TEST(logs_read_and_paired) {
    const char *a_text = HEADER("4")
        "strength: vs alpha-beta, same time (ab:64,time=1000)\n"
        "game    1  B first   26 plies  A wins\n"
        "game    0  A first   32 plies  A wins\n"
        "game    3  B first  400 plies  draw\n"
        "game    2  A first   30 plies  B wins\n"
        "game    5  B first   12 plies  B wins  (error: bestmove gave no move)\n"
        "game    4  A first   33 plies  B wins\n"
        "\n| default vs | games | ... |\nSPRT vs previous network: undecided\n";
    const char *b_text = "strength: vs ab:64,time=1000 (ab:64,time=1000)\n"    /* header last; --vs SPEC */
        "game    0  A first   32 plies  B wins\n"
        "game    1  B first   26 plies  A wins\n"
        "game    2  A first   30 plies  A wins\n"
        "game    3  B first   40 plies  A wins\n"
        "game    4  A first   33 plies  B wins\n"
        HEADER("4");
    mcts_ladder_log a, b;
    char err[256] = "";
    ck_assert_msg(read_text(a_text, &a, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(read_text(b_text, &b, err, sizeof err) == 0, "%s", err);
    ck_assert_str_eq(a.player, "puct:default:1000000000,time=1000,threads=1");
    ck_assert(a.rings == 61 && a.openings == 3 && a.plies == 2 && a.seed == 4 && a.nrungs == 1);
    ck_assert_str_eq(a.rung[0].opponent, "alpha-beta, same time (ab:64,time=1000)");
    ck_assert_str_eq(a.rung[0].spec, "ab:64,time=1000");
    ck_assert(mcts_ladder_same_opponent(&a.rung[0], &b.rung[0]));
    ck_assert_int_eq(a.rung[0].ngames, 6);
    ck_assert_int_eq(b.rung[0].ngames, 5);
    ck_assert(mcts_ladder_same_openings(&a, &b, err, sizeof err));
    mcts_paired_counts c = mcts_paired_compare(&a.rung[0], &b.rung[0]);
    /* games 0..4 paired: 0 A only, 1 both won, 2 B only, 3 a draw, 4 both lost; game 5 A's only */
    ck_assert(c.paired == 5 && c.unpaired == 1);
    ck_assert(c.a_only == 1 && c.b_only == 1 && c.both_won == 1 && c.both_lost == 1 && c.other == 1);
    ck_assert(c.a_won == 2 && c.b_won == 3);
    mcts_ladder_log_free(&a);
    mcts_ladder_log_free(&b);
}
END_TEST

START_TEST(bad_logs_refused) {
    static const struct { const char *text, *why; } bad[] = {
        { "game 0  A first 30 plies  A wins\n", "log:1: a game before any 'strength: vs OPPONENT' line" },
        { HEADER("4") "strength: vs x\ngame 0  A first 30 plies  A wins\ngame 0  A first 30 plies  B wins\n",
          "log:5: game 0 a second time" },
        { HEADER("4") "strength: vs x\ngame 0  A first 30 plies  A lost\n", "log:4: cannot read the game line" },
        { HEADER("4") "strength: vs x\ngame -3  A first 30 plies  A wins\n", "log:4: cannot read the game line" },
        { "strength: vs x\ngame 0  A first 30 plies  A wins\n", "log: not a ladder's log" },
        { "", "log: not a ladder's log" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        mcts_ladder_log log;
        char err[256] = "";
        ck_assert_int_eq(read_text(bad[i].text, &log, err, sizeof err), -1);
        ck_assert_msg(strstr(err, bad[i].why) != NULL, "case %zu: '%s'", i, err);
        mcts_ladder_log_free(&log);
    }
    mcts_ladder_log a, b;
    char err[256] = "", why[128] = "";
    ck_assert(read_text(HEADER("4") "strength: vs x\n", &a, err, sizeof err) == 0);
    ck_assert(read_text(HEADER("5") "strength: vs x\n", &b, err, sizeof err) == 0);
    ck_assert(!mcts_ladder_same_openings(&a, &b, why, sizeof why));
    ck_assert_str_eq(why, "seed 4 against 5");
    mcts_ladder_log c;                       /* the same seed, openings from the archive: refused */
    const char *archive_header =
        "strength: puct:default:1000000000,time=1000,threads=1, fixed time per move, 61 rings, 6 games per "
        "opponent from 3 openings (2 Boardspace turns each, both colours), 2 at once, seed 4\nstrength: vs x\n";
    ck_assert_msg(read_text(archive_header, &c, err, sizeof err) == 0, "%s", err);
    ck_assert(c.archive == 1 && a.archive == 0 && c.plies == 2 && c.seed == 4);
    ck_assert(!mcts_ladder_same_openings(&a, &c, why, sizeof why));
    ck_assert_str_eq(why, "random openings against archive");
    mcts_ladder_log_free(&c);
    mcts_ladder_rung x = { .opponent = "uct, same time (uct:1000000000,time=1000)", .spec = "uct:1000000000,time=1000" },
                     y = { .opponent = "uct, 10x the time (uct:1000000000,time=10000)", .spec = "uct:1000000000,time=10000" },
                     u = { .opponent = "no spec" }, v = { .opponent = "no spec" };
    ck_assert(!mcts_ladder_same_opponent(&x, &y) && mcts_ladder_same_opponent(&u, &v) && !mcts_ladder_same_opponent(&u, &x));
    mcts_ladder_log_free(&a);
    mcts_ladder_log_free(&b);
}
END_TEST

/* A ladder's wins from its table row "| NAME (`SPEC`) | games | distinct | W-L-D | ...". */
static int table_wins(const char *log) {
    const char *row = strstr(log, "\n| random (`random`) |");
    ck_assert_ptr_nonnull(row);
    int games, distinct, w, l, d;
    ck_assert_int_eq(sscanf(row, "\n| random (`random`) | %d | %d | %d-%d-%d", &games, &distinct, &w, &l, &d), 5);
    return w;
}

/* Run tools/strength into path (standard output, then error); its text in out.  false when the
 * tool is not built (skipped loudly). */
static bool ladder(const char *args, const char *path, char *out, size_t outlen) {
    static char err[1 << 16];
    int st = th_run_tool("test_mcts_paired", "strength", args, 60, out, outlen, err, sizeof err);
    if (st < 0) return false;
    ck_assert_msg(st == 0, "strength %s: %s", args, err);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(out, f);
    fputs(err, f);
    fclose(f);
    return true;
}

START_TEST(tool_pairs_strength_logs) {
    char a_path[] = "/tmp/zz-paired-a-XXXXXX", b_path[] = "/tmp/zz-paired-b-XXXXXX", c_path[] = "/tmp/zz-paired-c-XXXXXX";
    th_temp_file(a_path);
    th_temp_file(b_path);
    th_temp_file(c_path);
    static char a_out[1 << 16], b_out[1 << 16], c_out[1 << 16], out[1 << 16], err[4096];
    const char *common = "--rings 37 --vs random --games 8 --opening-plies 2 --parallel 1 --early-stop 0 --net";
    char args[512];
    snprintf(args, sizeof args, "%s default --sims 2 --seed 3", common);
    bool built = ladder(args, a_path, a_out, sizeof a_out);
    snprintf(args, sizeof args, "%s default --sims 1 --net-opts ptemp=5 --seed 3", common);
    built = built && ladder(args, b_path, b_out, sizeof b_out);
    snprintf(args, sizeof args, "%s default --sims 2 --seed 4", common);
    built = built && ladder(args, c_path, c_out, sizeof c_out);
    if (built) {
        snprintf(args, sizeof args, "%s %s", a_path, b_path);
        ck_assert_int_eq(th_run_tool("test_mcts_paired", "paired", args, 20, out, sizeof out, err, sizeof err), 0);
        char want[128];
        snprintf(want, sizeof want, "8 games paired; A won %d, B won %d;", table_wins(a_out), table_wins(b_out));
        ck_assert_msg(strstr(out, want) != NULL, "want '%s' in:\n%s", want, out);
        ck_assert(strstr(out, "vs random (random):") && strstr(out, "sign test p = "));
        snprintf(args, sizeof args, "%s %s", a_path, c_path);              /* another seed: refused */
        ck_assert_int_eq(th_run_tool("test_mcts_paired", "paired", args, 20, out, sizeof out, err, sizeof err), 1);
        ck_assert_msg(strstr(err, "did not play the same openings (seed 3 against 4)") != NULL, "%s", err);
        snprintf(args, sizeof args, "%s", a_path);                         /* not a pair: usage */
        ck_assert_int_eq(th_run_tool("test_mcts_paired", "paired", args, 20, out, sizeof out, err, sizeof err), 2);
        ck_assert_int_eq(th_run_tool("test_mcts_paired", "paired", "/nonexistent/a /nonexistent/b", 20, out,
                                     sizeof out, err, sizeof err), 1);
        ck_assert(strstr(err, "/nonexistent/a: No such file or directory") != NULL);
    }
    remove(a_path);
    remove(b_path);
    remove(c_path);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("mcts_paired");
    TCase *t = tcase_create("paired");
    tcase_set_timeout(t, 240);
    tcase_add_test(t, sign_test_by_hand);
    tcase_add_test(t, logs_read_and_paired);
    tcase_add_test(t, bad_logs_refused);
    tcase_add_test(t, tool_pairs_strength_logs);
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    return th_run(suite());
}
