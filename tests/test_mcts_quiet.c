/* test_mcts_quiet.c — leaf values taken at quiet positions (mcts_eval_quiet_new, eval_quiet.c):
 * a quiet leaf keeps the inner value; a pending exchange is played out with every choice of
 * either side and minimaxed, against hand-worked values of a material-counting test evaluator;
 * a capture that wins is +1 exactly; a capture tree over the size cap keeps the inner value; the
 * priors are always the inner evaluator's; a copy answers alike; the agent option quiet=. */
#include "helpers.h"
#include "mcts/agent.h"
#include "mcts/evaluator.h"
#include <check.h>
#include <stdlib.h>
#include <string.h>

/* The test's inner evaluator: uniform priors, and value = 0.1 × (captured points of the mover
 * − those of the other player), a white 1, a grey 2, a black 3 points, clipped to ±0.9 (only a
 * finished game is worth ±1); it counts the positions it was asked about. */
typedef struct { int calls; } material_ctx;

static double points(const zz_pos *p, int player) {
    return p->cap[player][0] + 2.0 * p->cap[player][1] + 3.0 * p->cap[player][2];
}

static int material_eval(mcts_evaluator *self, mcts_eval_item *items, int n, char *err, size_t errlen) {
    material_ctx *c = self->ctx;
    for (int i = 0; i < n; i++) {
        const zz_pos *p = items[i].pos;
        ck_assert(!zz_over(p));
        for (int k = 0; k < items[i].nmoves; k++) items[i].priors[k] = 1.0f / (float)items[i].nmoves;
        double v = 0.1 * (points(p, p->to_move) - points(p, 1 - p->to_move));
        items[i].value = (float)(v > 0.9 ? 0.9 : v < -0.9 ? -0.9 : v);
        c->calls++;
    }
    return 0;
}

static void material_destroy(mcts_evaluator *self) {
    free(self->ctx);
    free(self);
}

static mcts_evaluator *material_clone(mcts_evaluator *self, char *err, size_t errlen);

static mcts_evaluator *material_new(void) {
    mcts_evaluator *e = calloc(1, sizeof *e);
    material_ctx *c = calloc(1, sizeof *c);
    ck_assert(e && c);
    e->name = "material";
    e->evaluate = material_eval;
    e->destroy = material_destroy;
    e->clone = material_clone;
    e->ctx = c;
    return e;
}

static mcts_evaluator *material_clone(mcts_evaluator *self, char *err, size_t errlen) { return material_new(); }

/* Evaluate p with e; the value, the priors checked uniform. */
static float value_of(mcts_evaluator *e, const zz_pos *p) {
    zz_move *mv = malloc(ZZ_MAX_MOVES * sizeof *mv);
    float *pri = malloc(ZZ_MAX_MOVES * sizeof *pri);
    ck_assert(mv && pri);
    char err[200];
    mcts_eval_item it = { p, mv, zz_gen_moves(p, mv), pri, 0 };
    ck_assert_msg(mcts_evaluate(e, &it, 1, err, sizeof err) == 0, "%s", err);
    for (int k = 0; k < it.nmoves; k++) ck_assert_float_eq_tol(pri[k], 1.0f / (float)it.nmoves, 1e-6f);
    free(mv);
    free(pri);
    return it.value;
}

/* A quiet position: the inner value, one inner evaluation. */
START_TEST(quiet_position_keeps_the_inner_value) {
    mcts_evaluator *inner = material_new();
    mcts_evaluator *e = mcts_eval_quiet_new(inner, false, 64);
    ck_assert_ptr_nonnull(e);
    zz_pos p;
    th_build(&p, ZZ_B37, NULL, "Wd4 Gb2");
    p.cap[1][2] = 1; p.pool[2] -= 1;                  /* player 1 has a black: 0.1 × (0 − 3) */
    ck_assert(!zz_must_capture(&p));
    ck_assert_float_eq_tol(value_of(e, &p), -0.3f, 1e-6f);
    ck_assert_int_eq(((material_ctx *)inner->ctx)->calls, 1);
    mcts_evaluator_free(e);
    mcts_evaluator_free(inner);
}
END_TEST

/* An exchange: player 0 must jump, d1 over the black d2 or b1 over the grey b2; whichever it
 * takes, player 1 must then take the other.  Taking the black first ends 3 − 2 points up for
 * player 0 (+0.1), the grey first 2 − 3 (−0.1): the value is +0.1, where the inner evaluator
 * says 0 at the start.  The inner evaluator saw the start and the two quiet ends. */
START_TEST(exchange_is_played_out_and_minimaxed) {
    mcts_evaluator *inner = material_new();
    mcts_evaluator *e = mcts_eval_quiet_new(inner, false, 64);
    zz_pos p;
    th_build(&p, ZZ_B37, NULL, "Wd1 Bd2 Wb1 Gb2");
    zz_move mv[64];
    ck_assert_int_eq(zz_gen_moves(&p, mv), 2);
    ck_assert_float_eq_tol(value_of(inner, &p), 0.0f, 1e-6f);
    ((material_ctx *)inner->ctx)->calls = 0;
    ck_assert_float_eq_tol(value_of(e, &p), 0.1f, 1e-6f);
    ck_assert_int_eq(((material_ctx *)inner->ctx)->calls, 3);
    /* the same from player 1's side: it moves first and takes the black */
    p.to_move = 1;
    ck_assert_float_eq_tol(value_of(e, &p), 0.1f, 1e-6f);
    mcts_evaluator_free(e);
    mcts_evaluator_free(inner);
}
END_TEST

/* One jump, then the other player is quiet: the value is minus that player's inner value. */
START_TEST(single_capture_takes_the_sign_of_the_next_mover) {
    mcts_evaluator *e = mcts_eval_quiet_new(material_new(), true, 64);
    zz_pos p;
    th_build(&p, ZZ_B37, NULL, "Wd1 Bd2");
    ck_assert_float_eq_tol(value_of(e, &p), 0.3f, 1e-6f);
    mcts_evaluator_free(e);
}
END_TEST

/* The suites' won capture position: jumping the black d4 completes player 0's set: +1 exactly,
 * above the 0.9 the test evaluator gives the other jumps' positions. */
START_TEST(winning_capture_is_exactly_won) {
    mcts_evaluator *e = mcts_eval_quiet_new(material_new(), true, 64);
    zz_pos p;
    th_won_capture_position(&p);
    ck_assert(zz_must_capture(&p));
    ck_assert_float_eq(value_of(e, &p), 1.0f);
    mcts_evaluator_free(e);
}
END_TEST

/* A tree larger than the cap is not played out: the inner value (0 here) stays. */
START_TEST(tree_over_the_cap_keeps_the_inner_value) {
    mcts_evaluator *inner = material_new();
    mcts_evaluator *e = mcts_eval_quiet_new(inner, false, 2);
    zz_pos p;
    th_build(&p, ZZ_B37, NULL, "Wd1 Bd2 Wb1 Gb2");       /* 1 + 2 + 2 = 5 positions */
    ck_assert_float_eq_tol(value_of(e, &p), 0.0f, 1e-6f);
    ck_assert_int_eq(((material_ctx *)inner->ctx)->calls, 1);
    mcts_evaluator_free(e);
    mcts_evaluator_free(inner);
}
END_TEST

/* A batch mixing quiet and exchange positions answers each as alone; a copy answers alike on
 * positions of random games. */
START_TEST(batches_and_copies_answer_alike) {
    mcts_evaluator *e = mcts_eval_quiet_new(material_new(), true, 64);
    zz_pos ps[3];
    th_build(&ps[0], ZZ_B37, NULL, "Wd1 Bd2 Wb1 Gb2");
    th_build(&ps[1], ZZ_B37, NULL, "Wd4 Gb2");
    th_build(&ps[2], ZZ_B37, NULL, "Wd1 Bd2");
    zz_move mv[3][ZZ_MAX_MOVES];
    float pri[3][ZZ_MAX_MOVES];
    mcts_eval_item it[3];
    for (int i = 0; i < 3; i++) it[i] = (mcts_eval_item){ &ps[i], mv[i], zz_gen_moves(&ps[i], mv[i]), pri[i], 0 };
    char err[200];
    ck_assert_int_eq(mcts_evaluate(e, it, 3, err, sizeof err), 0);
    for (int i = 0; i < 3; i++) ck_assert_float_eq_tol(it[i].value, value_of(e, &ps[i]), 1e-6f);
    ck_assert_float_eq_tol(it[0].value, 0.1f, 1e-6f);
    ck_assert_float_eq_tol(it[2].value, 0.3f, 1e-6f);
    mcts_evaluator *copy = mcts_evaluator_clone(e, err, sizeof err);
    ck_assert_msg(copy, "%s", err);
    ck_assert(th_same_answers(e, copy, ZZ_B37, 40, 3));
    mcts_evaluator_free(copy);
    mcts_evaluator_free(e);
}
END_TEST

/* The agent option: accepted in range, refused out of it, and a PUCT player with it plays. */
START_TEST(agent_option_quiet) {
    char err[300];
    ck_assert_msg(mcts_agent_check_spec("puct:uniform:50,quiet=64", err, sizeof err) == 0, "%s", err);
    ck_assert_int_ne(mcts_agent_check_spec("puct:uniform:50,quiet=-1", err, sizeof err), 0);
    ck_assert_int_ne(mcts_agent_check_spec("puct:uniform:50,quiet=5000", err, sizeof err), 0);
    ck_assert_int_ne(mcts_agent_check_spec("uct:50,quiet=64", err, sizeof err), 0);
    zz_pos p;
    th_build(&p, ZZ_B37, NULL, "Wd1 Bd2 Wb1 Gb2");
    th_agent_move("puct:rollout:60,quiet=16", &p, 7);
}
END_TEST

int main(void) {
    Suite *s = suite_create("mcts_quiet");
    TCase *tc = tcase_create("quiet");
    tcase_add_test(tc, quiet_position_keeps_the_inner_value);
    tcase_add_test(tc, exchange_is_played_out_and_minimaxed);
    tcase_add_test(tc, single_capture_takes_the_sign_of_the_next_mover);
    tcase_add_test(tc, winning_capture_is_exactly_won);
    tcase_add_test(tc, tree_over_the_cap_keeps_the_inner_value);
    tcase_add_test(tc, batches_and_copies_answer_alike);
    tcase_add_test(tc, agent_option_quiet);
    suite_add_tcase(s, tc);
    return th_run(s);
}
