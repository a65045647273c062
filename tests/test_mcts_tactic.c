/* test_mcts_tactic.c — priors for the placements that win an exchange (mcts_tactic_boost,
 * tactic.h) and the PUCT option tactic=: on positions of random games on every board, a forcing
 * (colour, cell) group's first move is raised exactly when a reference quiescence written here
 * (every capture of either side played out, alpha-beta's static evaluation at quiet positions)
 * finds that the placer gains the margin, and nothing else changes; in a position of a game `ab`
 * won on 61 rings, its sacrifice (Bg3) is raised; a capture node is left alone; the options. */
#include "helpers.h"
#include "mcts/ab.h"
#include "mcts/agent.h"
#include "mcts/tactic.h"
#include "game/posstr.h"
#include <check.h>
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
        seen += want;
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

int main(void) {
    Suite *s = suite_create("mcts_tactic");
    TCase *tc = tcase_create("tactic");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, boost_agrees_with_the_reference_quiescence);
    tcase_add_test(tc, the_sacrifice_ab_played_is_raised);
    tcase_add_test(tc, agent_options_tactic);
    suite_add_tcase(s, tc);
    return th_run(s);
}
