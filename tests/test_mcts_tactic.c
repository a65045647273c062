/* test_mcts_tactic.c — priors for the placements that win an exchange (mcts_tactic_boost,
 * tactic.h) and the PUCT option tactic=: on positions of random games on every board, a forcing
 * (colour, cell) group's first move is raised exactly when a reference quiescence written here
 * (every capture of either side played out, alpha-beta's static evaluation at quiet positions)
 * finds that the placer gains the margin, and nothing else changes; in a position of a game `ab`
 * won on 61 rings, its sacrifice (Bg3) is raised; a capture node is left alone; the options.
 * The runs at a root (mcts_tactic_runs, tacticrun=): with one placement every forcing placement
 * is scored by the reference's exchange; with two, a 61-ring sacrifice whose return comes a
 * placement later (Wb6,g1, +586 points) is raised, and the ring it removes decides it; a PUCT
 * root gets the floor once, renormalised and sorted. */
#include "helpers.h"
#include "mcts/ab.h"
#include "mcts/agent.h"
#include "mcts/tactic.h"
#include "mcts/evaluator.h"
#include "mcts/puct.h"
#include "game/posstr.h"
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MARGIN = 100 };

/* 61 rings, from a game `ab` won: its move Bg3,g6 forces a capture chain that hands it a larger
 * one.  The network gave the Bg3 placements priors of 2e-4 (rank 233 of 1,188). */
static const char *const SACRIFICE_61 =
    "zpos:61:....-..W..W-...G.--..W...B-.....G.G....B..B......W-W..----G--:1,4,7:0,0,0:0,0,0:0:-:12";

static void sacrifice_position(zz_pos *p) {
    char err[200];
    ck_assert_msg(zz_pos_from_string(SACRIFICE_61, p, err, sizeof err) == 0, "%s", err);
}

/* A searcher for quiescence (no table) and scratch for a position's moves and priors. */
typedef struct { mcts_ab *ab; zz_move *mv; float *pri; } scratch;

static scratch scratch_new(void) {
    mcts_ab_config c;
    mcts_ab_config_default(&c);
    c.tt_log2 = 0;
    scratch s = { mcts_ab_new(&c), malloc(ZZ_MAX_MOVES * sizeof(zz_move)), malloc(ZZ_MAX_MOVES * sizeof(float)) };
    ck_assert(s.ab && s.mv && s.pri);
    return s;
}

static void scratch_free(scratch *s) {
    mcts_ab_free(s->ab);
    free(s->mv);
    free(s->pri);
}

/* Reference quiescence of p for p->to_move: a finished game +-MCTS_AB_WIN (0 drawn), a quiet
 * position its static evaluation, else the best capture for the mover. */
static int ref_quiesce(const zz_pos *p) {
    if (zz_over(p)) return p->winner < 0 ? 0 : p->winner == p->to_move ? MCTS_AB_WIN : -MCTS_AB_WIN;
    if (!zz_must_capture(p)) return mcts_ab_evaluate(p);
    zz_move mv[256];
    int n = zz_gen_moves(p, mv), best = -2 * MCTS_AB_WIN;
    ck_assert_int_le(n, 256);
    for (int i = 0; i < n; i++) {
        zz_pos q = *p;
        zz_apply(&q, mv[i], NULL);
        int v = q.to_move == p->to_move ? ref_quiesce(&q) : -ref_quiesce(&q);
        if (v > best) best = v;
    }
    return best;
}

/* Whether the placement m at p gains the margin for its placer, by the reference. */
static bool ref_wins_exchange(const zz_pos *p, zz_move m) {
    zz_pos q = *p;
    zz_apply(&q, m, NULL);
    int after = q.to_move == p->to_move ? ref_quiesce(&q) : -ref_quiesce(&q);
    if (after >= MCTS_AB_WIN - MCTS_AB_MAX_PLY) return true;
    if (after <= -(MCTS_AB_WIN - MCTS_AB_MAX_PLY)) return false;
    return after - mcts_ab_evaluate(p) >= MARGIN;
}

/* Boost uniform priors at p and check each move against the reference; returns moves raised. */
static int check_position(mcts_ab *ab, const zz_pos *p, zz_move *mv, float *pri) {
    int n = zz_gen_moves(p, mv);
    float u = 1.0f / (float)n, floor = 0.25f;
    for (int i = 0; i < n; i++) pri[i] = u;
    int raised = mcts_tactic_boost(ab, p, mv, pri, n, floor, MARGIN), seen = 0;
    bool first_of_group[3][ZZ_NCELLS];
    memset(first_of_group, 0, sizeof first_of_group);
    for (int i = 0; i < n; i++) {
        bool want = false;
        if (!zz_move_is_jump(mv[i]) && zz_place_forces(p, mv[i])) {
            bool *f = &first_of_group[zz_move_colour(mv[i])][zz_move_a(mv[i])];
            if (!*f) want = ref_wins_exchange(p, mv[i]);     /* the group's first: the one scored */
            *f = true;
        }
        ck_assert_msg(pri[i] == (want ? floor : u), "move %d of %d: prior %g, want %g", i, n, pri[i], want ? floor : u);
        seen += want && u < floor;                           /* with 4 moves u is the floor: nothing to raise */
    }
    ck_assert_int_eq(raised, seen);
    return raised;
}

START_TEST(boost_agrees_with_the_reference_quiescence) {
    scratch k = scratch_new();
    const zz_board_kind boards[3] = { ZZ_B37, ZZ_B48, ZZ_B61 };
    uint64_t seed = th_seed(), rng = seed;
    int positions = 0, raised = 0, captures = 0;
    for (int b = 0; b < 3; b++)
        for (int game = 0; game < 12; game++) {
            zz_pos p;
            zz_pos_init(&p, boards[b]);
            while (!zz_over(&p)) {
                int before = raised;
                raised += check_position(k.ab, &p, k.mv, k.pri);
                if (zz_must_capture(&p)) {
                    ck_assert_int_eq(raised, before);
                    captures++;
                }
                positions++;
                zz_apply(&p, zz_random_move(&p, &rng), NULL);
            }
        }
    printf("test_mcts_tactic: seed %llu: %d moves raised over %d positions (%d capture nodes)\n",
           (unsigned long long)seed, raised, positions, captures);
    ck_assert_int_gt(captures, 0);
    ck_assert_msg(raised > 20, "only %d moves raised over %d positions: the check saw too little", raised, positions);
    scratch_free(&k);
}
END_TEST

/* The sacrifice `ab` won with (SACRIFICE_61) is among the raised moves. */
START_TEST(the_sacrifice_ab_played_is_raised) {
    zz_pos p;
    sacrifice_position(&p);
    scratch k = scratch_new();
    ck_assert_int_gt(check_position(k.ab, &p, k.mv, k.pri), 0);
    zz_move bg3;
    char err[200];
    ck_assert_int_eq(zz_move_from_text(&p, "Bg3,g6", &bg3, err, sizeof err), 0);
    int n = zz_gen_moves(&p, k.mv), first_bg3 = -1;
    for (int i = 0; i < n && first_bg3 < 0; i++)
        if (zz_move_a(k.mv[i]) == zz_move_a(bg3) && zz_move_colour(k.mv[i]) == zz_move_colour(bg3)) first_bg3 = i;
    ck_assert_int_ge(first_bg3, 0);
    ck_assert_float_eq(k.pri[first_bg3], 0.25f);
    scratch_free(&k);
}
END_TEST

START_TEST(agent_options_tactic) {
    char err[300];
    ck_assert_msg(mcts_agent_check_spec("puct:uniform:50,tactic=0.05,tacticdepth=2,tacticmargin=150", err, sizeof err) == 0, "%s", err);
    const char *bad[] = { "puct:uniform:50,tactic=2", "puct:uniform:50,tacticdepth=-1", "puct:uniform:50,tacticmargin=0",
                          "ab:3,tactic=0.1" };
    for (unsigned i = 0; i < 4; i++) ck_assert_msg(mcts_agent_check_spec(bad[i], err, sizeof err) != 0, "%s accepted", bad[i]);
    zz_pos p;
    sacrifice_position(&p);
    th_agent_move("puct:rollout:80,tactic=0.1,tacticdepth=3", &p, 3);
}
END_TEST


/* ---- forcing runs at a root -------------------------------------------------------------------- */
/* 61 rings, from a game the shipped network lost to `ab` (thirty-fourth session's ladder, --seed 5,
 * game 13), `ab` to move: Wb6,g1 gives a marble, and after the forced capture a second forcing
 * placement wins more back: +586 points by forcing runs of two placements.  `ab` played Wb6,g7
 * (less than the margin by such runs) and won with Wc1,g1 a turn later (weights/LADDER.md,
 * "Where the 61-ring games against `ab` are lost"). */
static const char *const RUN_61 =
    "zpos:61:-....-...B...W....-G................G....................--..:4,6,9:0,0,0:1,0,0:0:-:6";

static zz_move move_of(const zz_pos *p, const char *text) {
    zz_move m;
    char err[200];
    ck_assert_msg(zz_move_from_text(p, text, &m, err, sizeof err) == 0, "%s: %s", text, err);
    return m;
}

static int index_of(const zz_move *mv, int n, zz_move m) {
    for (int i = 0; i < n; i++)
        if (mv[i] == m) return i;
    ck_abort_msg("move not generated");
    return -1;
}

START_TEST(runs_of_one_placement_are_the_exchanges) {
    scratch k = scratch_new();
    mcts_forcing *f = mcts_forcing_new(2);
    ck_assert_ptr_nonnull(f);
    const zz_board_kind boards[3] = { ZZ_B37, ZZ_B48, ZZ_B61 };
    uint64_t seed = th_seed(), rng = seed;
    int raised = 0;
    for (int b = 0; b < 3; b++)
        for (int game = 0; game < 4; game++) {
            zz_pos p;
            zz_pos_init(&p, boards[b]);
            while (!zz_over(&p)) {
                int n = zz_gen_moves(&p, k.mv), seen = 0;
                float u = 1.0f / (float)n;
                for (int i = 0; i < n; i++) k.pri[i] = u;
                int r = mcts_tactic_runs(f, &p, k.mv, k.pri, n, 1, 0.25f, MARGIN, 0);
                for (int i = 0; i < n; i++) {
                    bool want = !zz_move_is_jump(k.mv[i]) && zz_place_forces(&p, k.mv[i]) && ref_wins_exchange(&p, k.mv[i]);
                    ck_assert_msg(k.pri[i] == (want ? 0.25f : u), "seed %llu: move %d of %d", (unsigned long long)seed, i, n);
                    seen += want && u < 0.25f;           /* with 4 moves u is the floor: nothing to raise */
                }
                ck_assert_int_eq(r, seen);
                raised += r;
                zz_apply(&p, zz_random_move(&p, &rng), NULL);
            }
        }
    ck_assert_msg(raised > 20, "only %d moves raised: the check saw too little", raised);
    mcts_forcing_free(f);
    scratch_free(&k);
}
END_TEST

START_TEST(runs_of_two_raise_the_sacrifice_that_pays_later) {
    zz_pos p;
    char err[200];
    ck_assert_msg(zz_pos_from_string(RUN_61, &p, err, sizeof err) == 0, "%s", err);
    scratch k = scratch_new();
    mcts_forcing *f = mcts_forcing_new(2);
    int n = zz_gen_moves(&p, k.mv);
    int b6g1 = index_of(k.mv, n, move_of(&p, "Wb6,g1")), b6g7 = index_of(k.mv, n, move_of(&p, "Wb6,g7"));
    int c1g1 = index_of(k.mv, n, move_of(&p, "Wc1,g1"));
    float u = 1.0f / (float)n;
    for (int i = 0; i < n; i++) k.pri[i] = u;
    /* one placement: the exchanges only; Wc1,g1 wins one (+246), which the groups of
       mcts_tactic_boost miss, scoring Wc1 with the first ring generated */
    ck_assert_int_eq(mcts_tactic_runs(f, &p, k.mv, k.pri, n, 1, 0.25f, MARGIN, 0), 3);
    ck_assert_float_eq(k.pri[c1g1], 0.25f);
    ck_assert_float_eq(k.pri[b6g1], u);
    for (int i = 0; i < n; i++) k.pri[i] = u;
    ck_assert_int_eq(mcts_tactic_boost(k.ab, &p, k.mv, k.pri, n, 0.25f, MARGIN), 0);
    /* two placements: Wb6,g1 too, and not Wb6 with the ring `ab` removed in the game */
    for (int i = 0; i < n; i++) k.pri[i] = u;
    ck_assert_int_eq(mcts_tactic_runs(f, &p, k.mv, k.pri, n, 2, 0.25f, MARGIN, 0), 16);
    ck_assert_float_eq(k.pri[b6g1], 0.25f);
    ck_assert_float_eq(k.pri[b6g7], u);
    ck_assert_int_eq(mcts_forcing_run_value(f, &p, k.mv[b6g1], 2, 0, 0, NULL) - mcts_ab_evaluate(&p), 586);
    /* a budget: the placements past it are not raised */
    for (int i = 0; i < n; i++) k.pri[i] = u;
    int some = mcts_tactic_runs(f, &p, k.mv, k.pri, n, 2, 0.25f, MARGIN, 20000);
    ck_assert_int_lt(some, 16);
    ck_assert_int_eq(mcts_forcing_run_value(f, &p, k.mv[b6g1], 2, 0, 10, NULL), INT32_MIN);
    mcts_forcing_free(f);
    scratch_free(&k);
}
END_TEST

/* The prior of Wb6,g1 at a searched PUCT root of RUN_61 (uniform priors), and whether the root's
 * priors sum to 1 and its edges are sorted. */
static float root_prior_after(int tactic_run, int searches) {
    zz_pos p;
    char err[200];
    ck_assert_msg(zz_pos_from_string(RUN_61, &p, err, sizeof err) == 0, "%s", err);
    mcts_evaluator *ev = mcts_eval_by_name("uniform", 1, err, sizeof err);
    ck_assert_msg(ev != NULL, "%s", err);
    mcts_puct_config c;
    mcts_puct_config_default(&c);
    c.tactic_prior = 0.05;
    c.tactic_run = tactic_run;
    mcts_puct *s = mcts_puct_new(&c, ev, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    mcts_puct_set_root(s, &p);
    for (int i = 0; i < searches; i++)
        ck_assert_msg(mcts_puct_search(s, 1 + 20 * (uint64_t)i, 0, false, NULL, err, sizeof err) == 0, "%s", err);
    const mcts_tree *t = mcts_puct_tree(s);
    const mcts_node *r = mcts_tree_root(t);
    ck_assert_int_eq(r->run_floored, tactic_run >= 2);
    const mcts_edge *e = mcts_tree_edges(t, r->edges);
    zz_move b6g1 = move_of(&p, "Wb6,g1");
    double sum = 0;
    float prior = -1;
    uint32_t open = atomic_load(&((mcts_node *)r)->nopen);
    for (uint32_t i = 0; i < r->nedges; i++) {
        sum += e[i].prior;
        if (e[i].move == b6g1) prior = e[i].prior;
        if (i > open) ck_assert(e[i - 1].prior >= e[i].prior);
    }
    ck_assert_msg(fabs(sum - 1) < 1e-3, "priors sum to %g", sum);
    mcts_puct_free(s);
    mcts_evaluator_free(ev);
    return prior;
}

START_TEST(a_puct_root_gets_the_runs_floor_once) {
    float off = root_prior_after(0, 1), on = root_prior_after(2, 1), twice = root_prior_after(2, 3);
    ck_assert_msg(on > 10 * off, "Wb6,g1's prior %g with the runs, %g without", on, off);
    ck_assert_msg(on < 0.05f, "renormalised: %g", on);                     /* 16 raised and more: below the floor */
    ck_assert_float_eq_tol(twice, on, 1e-7);                                  /* not raised again */
    char err[300];
    ck_assert_msg(mcts_agent_check_spec("puct:uniform:50,tactic=0.05,tacticrun=3,tacticnodes=1000", err, sizeof err) == 0, "%s", err);
    const char *bad[] = { "puct:uniform:50,tactic=0.05,tacticrun=7", "puct:uniform:50,tactic=0.05,tacticrun=-1",
                          "puct:uniform:50,tactic=0.05,tacticnodes=-5", "puct:uniform:50,tacticrun=2" };
    for (unsigned i = 0; i < 4; i++) ck_assert_msg(mcts_agent_check_spec(bad[i], err, sizeof err) != 0, "%s accepted", bad[i]);
    zz_pos p;
    ck_assert(zz_pos_from_string(RUN_61, &p, err, sizeof err) == 0);
    th_agent_move("puct:uniform:60,tactic=0.05,tacticrun=2", &p, 1);
}
END_TEST

int main(void) {
    Suite *s = suite_create("mcts_tactic");
    TCase *tc = tcase_create("tactic");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, boost_agrees_with_the_reference_quiescence);
    tcase_add_test(tc, the_sacrifice_ab_played_is_raised);
    tcase_add_test(tc, agent_options_tactic);
    tcase_add_test(tc, runs_of_one_placement_are_the_exchanges);
    tcase_add_test(tc, runs_of_two_raise_the_sacrifice_that_pays_later);
    tcase_add_test(tc, a_puct_root_gets_the_runs_floor_once);
    suite_add_tcase(s, tc);
    return th_run(s);
}
