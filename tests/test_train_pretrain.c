/* test_train_pretrain.c — warm start from SGF games: one sample per decision of every decided
 * game on the run's board, the move played as the policy target, the result from the mover's view. */
#include "train/pretrain.h"
#include "game/sgf.h"
#include "helpers.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

START_TEST(games_become_samples) {
    char dir[128], path[256], cmd[300];
    snprintf(dir, sizeof dir, "/tmp/zz-pretrain-test-%d", (int)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s/games", dir, dir);
    ck_assert_int_eq(system(cmd), 0);
    uint64_t rng = 5;
    int moves = 0, games = 0;
    for (int k = 0; k < 4; k++) {                    /* three 37-ring games and one 61-ring game */
        zz_game g;
        zz_game_init(&g, k == 3 ? ZZ_B61 : ZZ_B37);
        while (!zz_over(&g.final)) {
            zz_move mv[ZZ_MAX_CHAIN];
            zz_pos q = g.final;
            int n = 0, me = q.to_move;
            do { mv[n] = zz_random_move(&q, &rng); zz_apply(&q, mv[n++], NULL); } while (!zz_over(&q) && q.to_move == me && q.chain != ZZ_NO_CELL);
            char err[128];
            ck_assert_int_eq(zz_game_add_turn(&g, mv, n, err, sizeof err), 0);
        }
        if (k < 3) { games++; for (int t = 0; t < g.nturns; t++) moves += g.turns[t].nmoves; }
        snprintf(path, sizeof path, "%s/games/g%d.sgf", dir, k);
        FILE *f = fopen(path, "w");
        ck_assert_int_eq(zz_sgf_write(f, &g), 0);
        fclose(f);
        zz_game_free(&g);
    }
    snprintf(path, sizeof path, "%s/games/bad.sgf", dir);
    FILE *f = fopen(path, "w");
    fputs("(;GM[22]SU[Zertz];P0[1 Fly])", f);
    fclose(f);
    tr_replay rb;
    char err[256], rdir[200];
    snprintf(rdir, sizeof rdir, "%s/replay", dir);
    ck_assert_int_eq(tr_replay_open(&rb, rdir, ZZ_B37, 100000, err, sizeof err), 0);
    tr_pretrain_stats st;
    snprintf(path, sizeof path, "%s/games", dir);
    ck_assert_msg(tr_pretrain_load(path, 0, &rb, &st, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(st.games, games);
    ck_assert_int_eq(st.skipped_board, 1);
    ck_assert_int_eq(st.refused, 1);
    ck_assert_int_eq(st.samples, moves);
    ck_assert_int_eq(rb.count, moves);
    for (int i = 0; i < rb.count; i++) {
        const tr_sample *s = tr_replay_at(&rb, i);
        ck_assert_int_eq(s->nvisits, 1);
        ck_assert(zz_is_legal(&s->pos, s->visits[0].move));
        ck_assert(s->z == 1.0f || s->z == -1.0f);
        ck_assert_int_eq(s->full, 1);
    }
    /* the last sample of a game is the winner's winning move */
    ck_assert(tr_replay_at(&rb, rb.count - 1)->z == 1.0f);
    tr_replay_close(&rb, err, sizeof err);
    ck_assert_int_ne(tr_pretrain_load("/nonexistent", 0, &rb, &st, err, sizeof err), 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void) {
    Suite *s = suite_create("train_pretrain");
    TCase *t = tcase_create("pretrain");
    tcase_add_test(t, games_become_samples);
    suite_add_tcase(s, t);
    return th_run(s);
}
