/* test_mcts_forcing.c — the forcing-sequence search and the check of PUCT's moves (forcing.h):
 * on positions of random games on every board, the search agrees with a reference minimax
 * written here without pruning (k = 0, 1, 2), with k = 0 it is alpha-beta's capture quiescence,
 * and more placements never lower the value; in a position of a game `ab` won on 48 rings, its
 * three-placement combination is found with k = 3 and not with k = 2, and the check turns away
 * from the move that allowed it; incomplete searches change nothing; the agent's forcing= options. */
#include "helpers.h"
#include "mcts/ab.h"
#include "mcts/agent.h"
#include "mcts/forcing.h"
#include "game/notation.h"
#include "game/posstr.h"
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 48 rings, game 27 of `tools/strength --net weights/zertz48.ckpt --rings 48 --vs ab --games 40
 * --time 1000 --early-stop 0 --seed 9` (weights/LADDER.md, "reviewed in hindsight"): BEFORE is the
 * position before the network's 18th turn, AFTER the one before `ab`'s reply Bd7,g4, the first of
 * three forcing placements that end in a double capture. */
static const char *const BEFORE_48 = "zpos:48:.-..B.....-....W.B-G.W...-......---...--....---.:0,6,6:2,0,2:2,1,0:1:-:19";
static const char *const AFTER_48 = "zpos:48:.-..B.....-....W.B-G.W...-......---...--G-..---.:0,5,6:2,0,2:2,1,0:0:-:20";

static void position_of(const char *s, zz_pos *p) {
    char err[200];
    ck_assert_msg(zz_pos_from_string(s, p, err, sizeof err) == 0, "%s", err);
}

static zz_move move_of(const zz_pos *p, const char *text) {
    zz_move *mv = malloc(ZZ_MAX_MOVES * sizeof *mv);
    ck_assert_ptr_nonnull(mv);
    int n = zz_gen_moves(p, mv);
    zz_move found = ZZ_MOVE_NONE;
    for (int i = 0; i < n && !found; i++) {
        char t[64];
        zz_move_to_text(p, mv[i], t);
        if (!strcmp(t, text)) found = mv[i];
    }
    free(mv);
    ck_assert_msg(found, "no legal move %s", text);
    return found;
}

/* Reference: the definition of forcing.h, as plain minimax (no pruning, no clock). */
static int ref_end(const zz_pos *p, int attacker) {
    if (zz_over(p)) return p->winner < 0 ? 0 : p->winner == attacker ? MCTS_AB_WIN : -MCTS_AB_WIN;
    int e = mcts_ab_evaluate(p);
    return p->to_move == attacker ? e : -e;
}

static int ref_search(const zz_pos *p, int attacker, int k, int ply) {
    if (zz_over(p) || ply >= 120) return ref_end(p, attacker);
    bool att = p->to_move == attacker;
    bool capture = zz_must_capture(p);
    if (!capture && (!att || k == 0)) return ref_end(p, attacker);
    zz_move *mv = malloc(ZZ_MAX_MOVES * sizeof *mv);
    ck_assert_ptr_nonnull(mv);
    int n = zz_gen_moves(p, mv);
    int best = capture ? (att ? INT_MIN : INT_MAX) : ref_end(p, attacker);
    bool tried[3][ZZ_NCELLS];
    memset(tried, 0, sizeof tried);
    for (int i = 0; i < n; i++) {
        if (!capture) {
            if (zz_move_is_jump(mv[i]) || !zz_place_forces(p, mv[i])) continue;
            bool *t = &tried[zz_move_colour(mv[i])][zz_move_a(mv[i])];
            if (ply > 0 && *t) continue;
            *t = true;
        }
        zz_pos c = *p;
        zz_apply(&c, mv[i], NULL);
        int v = ref_search(&c, attacker, capture ? k : k - 1, ply + 1);
        if (att ? v > best : v < best) best = v;
    }
    free(mv);
    return best;
}

/* Positions every few plies of random games on board b. */
static int sample_positions(zz_board_kind b, int games, int every, uint64_t *rng, zz_pos *out, int cap) {
    int n = 0;
    for (int g = 0; g < games && n < cap; g++) {
        zz_pos p;
        zz_pos_init(&p, b);
        for (int ply = 0; !zz_over(&p) && n < cap; ply++) {
            if (ply % every == every - 1) out[n++] = p;
            zz_apply(&p, zz_random_move(&p, rng), NULL);
        }
    }
    return n;
}

START_TEST(search_agrees_with_the_reference) {
    mcts_forcing *f = mcts_forcing_new(3);
    ck_assert_ptr_nonnull(f);
    mcts_ab_config abc;
    mcts_ab_config_default(&abc);
    abc.tt_log2 = 0;
    mcts_ab *ab = mcts_ab_new(&abc);
    ck_assert_ptr_nonnull(ab);
    uint64_t seed = th_seed(), rng = seed;
    const zz_board_kind boards[3] = { ZZ_B37, ZZ_B48, ZZ_B61 };
    zz_pos *pos = malloc(64 * sizeof *pos);
    ck_assert_ptr_nonnull(pos);
    int checked = 0, gained = 0, captures = 0;
    for (int b = 0; b < 3; b++) {
        int n = sample_positions(boards[b], 4, 5, &rng, pos, 16);
        for (int i = 0; i < n; i++) {
            int prev = INT_MIN;
            for (int k = 0; k <= 2; k++) {
                mcts_forcing_result r;
                mcts_forcing_search(f, &pos[i], k, 0, 0, &r);
                ck_assert(r.complete);
                int want = ref_search(&pos[i], pos[i].to_move, k, 0);
                ck_assert_msg(r.value == want, "board %d position %d k %d: %d, the reference %d (seed %llu)", b, i, k,
                              r.value, want, (unsigned long long)seed);
                ck_assert_msg(r.value >= prev, "k %d lowered the value: %d after %d", k, r.value, prev);
                if (k == 0) {
                    int q = mcts_ab_quiesce(ab, &pos[i]);         /* wins there count their plies */
                    if (q > -(MCTS_AB_WIN - MCTS_AB_MAX_PLY) && q < MCTS_AB_WIN - MCTS_AB_MAX_PLY) ck_assert_int_eq(r.value, q);
                }
                gained += k > 0 && r.value > prev;
                prev = r.value;
                checked++;
            }
            captures += zz_must_capture(&pos[i]);
        }
    }
    printf("test_mcts_forcing: seed %llu: %d searches checked, %d gained by a placement more, %d capture nodes\n",
           (unsigned long long)seed, checked, gained, captures);
    ck_assert_int_gt(checked, 100);
    ck_assert_msg(gained > 0, "no forcing placement ever gained: the check saw too little");
    free(pos);
    mcts_ab_free(ab);
    mcts_forcing_free(f);
}
END_TEST

START_TEST(search_finds_the_three_placement_combination) {
    zz_pos p;
    position_of(AFTER_48, &p);
    mcts_forcing *f = mcts_forcing_new(3);
    mcts_forcing_result r2, r3, cut;
    mcts_forcing_search(f, &p, 2, 0, 0, &r2);
    mcts_forcing_search(f, &p, 3, 0, 0, &r3);
    int stand = mcts_ab_evaluate(&p);
    ck_assert(r2.complete && r3.complete);
    ck_assert_int_eq(r2.value, stand);                  /* two placements find nothing */
    ck_assert_int_eq(r2.first, ZZ_MOVE_NONE);
    ck_assert_msg(r3.value >= stand + 200, "k 3: %d, standing %d", r3.value, stand);
    ck_assert(!zz_move_is_jump(r3.first) && zz_place_forces(&p, r3.first));
    mcts_forcing_search(f, &p, 3, 0, 1000, &cut);       /* a node limit: marked incomplete */
    ck_assert(!cut.complete);
    mcts_forcing_free(f);
}
END_TEST

START_TEST(check_turns_from_the_move_that_allowed_it) {
    zz_pos p;
    position_of(BEFORE_48, &p);
    mcts_forcing *f = mcts_forcing_new(3);
    /* the network played Gg2,g3; Gg2,e2 and Be5,d7 were its reviews' choices; Bb2,a3 avoids the run */
    zz_move ranked[4] = { move_of(&p, "Gg2,g3"), move_of(&p, "Gg2,e2"), move_of(&p, "Be5,d7"), move_of(&p, "Bb2,a3") };
    int32_t v[4];
    bool replaced;
    zz_move m = mcts_forcing_check(f, &p, ranked, 4, 3, 150, 0, 0, &replaced, v);
    printf("test_mcts_forcing: after Gg2,g3 %d, Gg2,e2 %d, Be5,d7 %d, Bb2,a3 %d\n", v[0], v[1], v[2], v[3]);
    ck_assert(v[0] <= -300 && v[3] >= -100);
    ck_assert(replaced && m == ranked[3]);
    /* the rule: the most visited move within the margin of the best */
    for (int i = 0; i < 4; i++) {
        zz_pos c = p;
        zz_apply(&c, ranked[i], NULL);
        mcts_forcing_result r;
        mcts_forcing_search(f, &c, 3, 0, 0, &r);
        ck_assert_int_eq(v[i], -r.value);
    }
    m = mcts_forcing_check(f, &p, ranked, 4, 3, 1000, 0, 0, &replaced, NULL);   /* a wider margin */
    ck_assert(!replaced && m == ranked[0]);
    zz_move first_safe[2] = { ranked[3], ranked[0] };
    m = mcts_forcing_check(f, &p, first_safe, 2, 3, 150, 0, 0, &replaced, NULL);
    ck_assert(!replaced && m == ranked[3]);
    m = mcts_forcing_check(f, &p, ranked, 4, 3, 150, 0, 1000, &replaced, v);  /* incomplete searches */
    ck_assert(!replaced && m == ranked[0] && v[0] == INT32_MIN);
    m = mcts_forcing_check(f, &p, ranked, 1, 3, 150, 0, 0, &replaced, NULL);    /* nothing to compare */
    ck_assert(!replaced && m == ranked[0]);
    mcts_forcing_free(f);
}
END_TEST

START_TEST(agent_options) {
    char err[512];
    mcts_agent *a = mcts_agent_new("puct:default:30,forcing=3,forcingtop=2,forcinggap=200,forcingshare=0.2", 1, err, sizeof err);
    ck_assert_msg(a, "%s", err);
    zz_pos p;
    position_of(BEFORE_48, &p);
    ck_assert_msg(mcts_agent_newgame(a, &p, 1, err, sizeof err) == 0, "%s", err);
    zz_move m;
    ck_assert_msg(mcts_agent_choose(a, &p, &m, err, sizeof err) == 0, "%s", err);
    ck_assert(zz_is_legal(&p, m));
    mcts_agent_free(a);
    const char *bad[] = { "puct:default:30,forcing=7", "puct:default:30,forcingtop=0", "puct:default:30,forcingshare=0.6",
                          "uct:100,forcing=2" };
    for (int i = 0; i < 4; i++) {
        mcts_agent *b = mcts_agent_new(bad[i], 1, err, sizeof err);
        ck_assert_msg(!b, "%s was taken", bad[i]);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("mcts_forcing");
    TCase *t = tcase_create("forcing");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, search_agrees_with_the_reference);
    tcase_add_test(t, search_finds_the_three_placement_combination);
    tcase_add_test(t, check_turns_from_the_move_that_allowed_it);
    tcase_add_test(t, agent_options);
    suite_add_tcase(s, t);
    return th_run(s);
}
