/* test_nn_transfer.c — carrying a network over to another board (src/nn/transfer.h): where the
 * boards are laid on each other, that every board-free tensor is copied, that the value head's
 * rows follow their cells, and that the identity and round trips through a larger board give the
 * network back exactly; that a network refuses another board's positions, saying how to carry it
 * over, and plays them once carried; and growing a network wider and deeper (src/nn/grow.h)
 * without changing what it computes. */
#include "mcts/evaluator.h"
#include "nn/checkpoint.h"
#include "nn/grow.h"
#include "nn/transfer.h"
#include "helpers.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static nn_model *small_net(zz_board_kind board, uint64_t seed)
{
    char err[256];
    nn_config c;
    nn_config_default(&c, board);
    c.blocks = 1;
    c.channels = 8;
    c.policy_channels = 4;
    c.value_hidden = 16;
    nn_model *m = nn_model_create(&c, NN_F32, seed, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    uint64_t rng = seed * 7 + 1;
    th_perturb_model(m, &rng);
    return m;
}

static nn_model *transfer(const nn_model *m, zz_board_kind to)
{
    char err[256];
    nn_model *t = nn_model_transfer(m, to, NULL, err, sizeof err);
    ck_assert_msg(t != NULL, "%s", err);
    return t;
}

static void assert_same_weights(const nn_model *a, const nn_model *b)
{
    ck_assert_int_eq(a->cfg.board, b->cfg.board);
    ck_assert_uint_eq(a->nparams, b->nparams);
    ck_assert_uint_eq(a->nstats, b->nstats);
    ck_assert(memcmp(a->param, b->param, a->nparams * a->esize) == 0);
    ck_assert(memcmp(a->stats, b->stats, a->nstats * a->esize) == 0);
}

/* The shift of every pair of boards, by hand from board.h's grids: 37 rings sit in the middle of
 * 61 (one step up the diagonal); 48 rings hold 37 at (0,0) and (1,1), equally central, so (0,0). */
START_TEST(shifts_between_boards) {
    static const struct { zz_board_kind from, to; int dq, da, mapped; } want[] = {
        { ZZ_B37, ZZ_B37, 0, 0, 37 }, { ZZ_B37, ZZ_B48, 0, 0, 37 }, { ZZ_B37, ZZ_B61, 1, 1, 37 },
        { ZZ_B48, ZZ_B37, 0, 0, 37 }, { ZZ_B48, ZZ_B48, 0, 0, 48 }, { ZZ_B48, ZZ_B61, 0, 0, 48 },
        { ZZ_B61, ZZ_B37, -1, -1, 37 }, { ZZ_B61, ZZ_B48, 0, 0, 48 }, { ZZ_B61, ZZ_B61, 0, 0, 61 },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        nn_board_shift s = nn_transfer_shift(want[i].from, want[i].to);
        ck_assert_msg(s.dq == want[i].dq && s.da == want[i].da && s.mapped == want[i].mapped,
                      "case %zu: shift (%d,%d) mapped %d", i, s.dq, s.da, s.mapped);
        ck_assert_int_eq(s.src_cells, zz_board_get(want[i].from)->ncells);
        ck_assert_int_eq(s.dst_cells, zz_board_get(want[i].to)->ncells);
    }
    /* in Boardspace's names: the 37-ring centre d4 lands on the 61-ring centre e5 */
    const zz_board *b37 = zz_board_get(ZZ_B37), *b61 = zz_board_get(ZZ_B61);
    const char *s = "d4", *t = "e5";
    int d4 = zz_parse_cell(b37, &s), e5 = zz_parse_cell(b61, &t);
    ck_assert_int_eq(zz_cell_q(d4) + 1, zz_cell_q(e5));
    ck_assert_int_eq(zz_cell_a(d4) + 1, zz_cell_a(e5));
}
END_TEST

START_TEST(own_board_is_identity) {
    for (int k = 0; k < ZZ_NBOARDS; k++) {
        nn_model *m = small_net((zz_board_kind)k, 3 + k);
        nn_model *t = transfer(m, (zz_board_kind)k);
        assert_same_weights(t, m);
        nn_model_free(t);
        nn_model_free(m);
    }
}
END_TEST

START_TEST(round_trips_through_a_larger_board) {
    static const zz_board_kind trips[][2] = { { ZZ_B37, ZZ_B48 }, { ZZ_B37, ZZ_B61 }, { ZZ_B48, ZZ_B61 } };
    for (size_t i = 0; i < 3; i++) {
        nn_model *m = small_net(trips[i][0], 11 + i);
        nn_model *big = transfer(m, trips[i][1]);
        nn_model *back = transfer(big, trips[i][0]);
        assert_same_weights(back, m);
        nn_model_free(back);
        nn_model_free(big);
        nn_model_free(m);
    }
}
END_TEST

/* 37 → 61: every tensor but value.fc1.w is copied as it is; fc1's row block of 61-ring cell e5 is
 * 37-ring d4's, a rim cell's (a1) is zero; the new network plays: finite outputs on a position. */
START_TEST(value_rows_follow_their_cells) {
    nn_model *m = small_net(ZZ_B37, 21);
    nn_board_shift sh;
    char err[256];
    nn_model *t = nn_model_transfer(m, ZZ_B61, &sh, err, sizeof err);
    ck_assert_msg(t != NULL, "%s", err);
    ck_assert_int_eq(sh.mapped, 37);
    ck_assert_int_eq(t->cfg.board, ZZ_B61);
    const float *mp = m->param, *tp = t->param;
    for (int k = 0; k < m->nviews; k++) {
        const nn_view *a = &m->views[k], *b = nn_model_view(t, a->name);
        ck_assert_ptr_nonnull(b);
        if (k == m->val_fc1) continue;
        ck_assert_uint_eq(a->count, b->count);
        const float *x = a->stat ? m->stats : m->param, *y = b->stat ? t->stats : t->param;
        ck_assert_msg(memcmp(x + a->offset, y + b->offset, a->count * sizeof(float)) == 0, "%s", a->name);
    }
    const nn_view *fa = &m->views[m->val_fc1], *fb = &t->views[t->val_fc1];
    size_t row = (size_t)m->cfg.value_channels * (size_t)m->cfg.value_hidden;
    ck_assert_uint_eq(fb->count, 61 * row);
    const char *s = "d4", *u = "e5", *r = "a1";
    int d4 = m->geom.index[zz_parse_cell(zz_board_get(ZZ_B37), &s)];
    int e5 = t->geom.index[zz_parse_cell(zz_board_get(ZZ_B61), &u)];
    int a1 = t->geom.index[zz_parse_cell(zz_board_get(ZZ_B61), &r)];
    ck_assert(memcmp(mp + fa->offset + d4 * row, tp + fb->offset + e5 * row, row * sizeof(float)) == 0);
    int nonzero = 0, zero_rows = 0;
    for (int i = 0; i < 61; i++) {
        int any = 0;
        for (size_t e = 0; e < row; e++) any |= tp[fb->offset + i * row + e] != 0.0f;
        nonzero += any;
        zero_rows += !any;
        if (i == a1) ck_assert(!any);
    }
    ck_assert_int_eq(nonzero, 37);
    ck_assert_int_eq(zero_rows, 24);

    zz_pos p;
    zz_pos_init(&p, ZZ_B61);
    float x[ZZ_MAX_RINGS * NN_PLANES], logits[ZZ_MAX_RINGS * NN_HEADS], v;
    nn_encode(&t->geom, &p, x);
    ck_assert_msg(nn_model_forward(t, x, 1, false, err, sizeof err) == 0, "%s", err);
    nn_model_outputs(t, logits, &v);
    ck_assert(isfinite(v) && v > -1 && v < 1);
    for (int i = 0; i < 61 * NN_HEADS; i++) ck_assert(isfinite(logits[i]));
    nn_model_free(t);
    nn_model_free(m);
}
END_TEST

/* The largest difference between two models' outputs (logits and values) on n positions of
 * random play, both forwarded the same way (train: batch statistics). */
static double output_gap(nn_model *a, nn_model *b, int n, bool train, uint64_t seed)
{
    char err[256];
    int P = a->geom.ncells;
    float *x = malloc(sizeof(float) * (size_t)n * (size_t)P * NN_PLANES);
    float *la = malloc(sizeof(float) * (size_t)n * (size_t)P * NN_HEADS), *lb = malloc(sizeof(float) * (size_t)n * (size_t)P * NN_HEADS);
    float *va = malloc(sizeof(float) * (size_t)n), *vb = malloc(sizeof(float) * (size_t)n);
    uint64_t rng = seed;
    for (int i = 0; i < n; i++) {
        zz_pos p;
        zz_pos_init(&p, a->cfg.board);
        th_random_playout(&p, &rng, i % 24);
        nn_encode(&a->geom, &p, x + (size_t)i * (size_t)P * NN_PLANES);
    }
    ck_assert_msg(nn_model_forward(a, x, n, train, err, sizeof err) == 0, "%s", err);
    nn_model_outputs(a, la, va);
    ck_assert_msg(nn_model_forward(b, x, n, train, err, sizeof err) == 0, "%s", err);
    nn_model_outputs(b, lb, vb);
    double gap = 0;
    for (size_t k = 0; k < (size_t)n * (size_t)P * NN_HEADS; k++) gap = fmax(gap, fabs((double)la[k] - lb[k]));
    for (int i = 0; i < n; i++) gap = fmax(gap, fabs((double)va[i] - vb[i]));
    free(x); free(la); free(lb); free(va); free(vb);
    return gap;
}

/* Grown from 1 x 8 to 3 x 12 (perturbed weights and statistics, so that nothing is an identity by
 * luck), the network answers as before on 48 rings, with running statistics and with batch
 * statistics; weights from new channels into old ones are zero, weights into new channels are
 * not (they must be able to learn); growing to the same size copies; shrinking is refused. */
START_TEST(growing_keeps_the_function) {
    char err[256];
    nn_model *m = small_net(ZZ_B48, 31);
    nn_model *g = nn_model_grow(m, 3, 12, 5, err, sizeof err);
    ck_assert_msg(g != NULL, "%s", err);
    ck_assert_int_eq(g->cfg.blocks, 3);
    ck_assert_int_eq(g->cfg.channels, 12);
    double inference = output_gap(m, g, 16, false, 3), training = output_gap(m, g, 16, true, 4);
    ck_assert_msg(inference < 1e-5 && training < 1e-4, "outputs moved: %g (running statistics), %g (batch)", inference, training);

    const nn_view *w = nn_model_view(g, "block0.conv2.w");      /* w[7][12][12] */
    const float *gp = g->param;
    double old_from_new = 0, new_from_old = 0;
    for (int t = 0; t < 7; t++)
        for (int i = 0; i < 12; i++)
            for (int o = 0; o < 12; o++) {
                float v = gp[w->offset + ((size_t)t * 12 + (size_t)i) * 12 + (size_t)o];
                if (i >= 8 && o < 8) old_from_new += fabs(v);
                if (i < 8 && o >= 8) new_from_old += fabs(v);
            }
    ck_assert(old_from_new == 0.0);
    ck_assert(new_from_old > 0.0);
    ck_assert(gp[nn_model_view(g, "block2.bn2.gamma")->offset] == 0.0f);

    nn_model *same = nn_model_grow(m, 1, 8, 5, err, sizeof err);
    ck_assert_msg(same != NULL, "%s", err);
    assert_same_weights(m, same);
    ck_assert_ptr_null(nn_model_grow(g, 2, 12, 5, err, sizeof err));
    ck_assert_msg(strstr(err, "3 x 12 network cannot grow into 2 x 12") != NULL, "%s", err);
    nn_model_free(same);
    nn_model_free(g);
    nn_model_free(m);
}
END_TEST

/* Evaluate the starting position of `board` with the network saved at `path`: mcts_evaluate's
 * return, its message in err. */
static int evaluate_start(const char *path, zz_board_kind board, char *err, size_t errlen)
{
    mcts_evaluator *e = mcts_eval_nn_new(path, err, errlen);
    ck_assert_msg(e != NULL, "%s", err);
    static zz_move moves[ZZ_MAX_MOVES];
    static float priors[ZZ_MAX_MOVES];
    zz_pos p;
    zz_pos_init(&p, board);
    mcts_eval_item item = { .pos = &p, .moves = moves, .nmoves = zz_gen_moves(&p, moves), .priors = priors };
    int rc = mcts_evaluate(e, &item, 1, err, errlen);
    mcts_evaluator_free(e);
    return rc;
}

START_TEST(other_board_refused_until_carried_over) {
    char err[512], path[] = "/tmp/zz-transfer-XXXXXX";
    th_temp_file(path);
    nn_model *m48 = small_net(ZZ_B48, 11);
    ck_assert_msg(!nn_checkpoint_save(path, m48, 1, false, err, sizeof err), "%s", err);
    ck_assert_int_eq(evaluate_start(path, ZZ_B37, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "plays the 48-ring board, not the 37-ring one") != NULL, "%s", err);
    ck_assert_msg(strstr(err, "tools/train --rings 37 --init NET --steps 1") != NULL, "%s", err);
    nn_model *m37 = transfer(m48, ZZ_B37);
    ck_assert_msg(!nn_checkpoint_save(path, m37, 1, false, err, sizeof err), "%s", err);
    ck_assert_msg(evaluate_start(path, ZZ_B37, err, sizeof err) == 0, "%s", err);
    nn_model_free(m37);
    nn_model_free(m48);
    remove(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nn_transfer");
    TCase *tc = tcase_create("transfer");
    tcase_add_test(tc, shifts_between_boards);
    tcase_add_test(tc, own_board_is_identity);
    tcase_add_test(tc, round_trips_through_a_larger_board);
    tcase_add_test(tc, value_rows_follow_their_cells);
    tcase_add_test(tc, other_board_refused_until_carried_over);
    tcase_add_test(tc, growing_keeps_the_function);
    suite_add_tcase(s, tc);
    return th_run(s);
}
