/* test_handicap.c — Zèrtz+H: handicaps (marbles from the pool into a player's captures), the
 * Edit set-up of Boardspace records (RtoR, SetBoard, puzzle-mode RtoB/R-/BtoB before Start) on
 * hand-written records whose expected positions are worked out by hand in the comments, the
 * errors for set-ups the rules refuse, the SGF writer's set-up read back to the same start, and
 * play: the engine protocol's `newgame ... handicap` / session default and the arena's handicap
 * (given to one agent whichever colour it plays, games written as SU[Zertz+H] that replay). */
#include "game/handicap.h"
#include "game/sgf.h"
#include "helpers.h"
#include "mcts/match.h"
#include "engine/protocol.h"
#include "render/scene.h"
#include <unistd.h>
#include <check.h>
#include <stdlib.h>
#include <string.h>

static int parse(const char *text, zz_game *g, char *err, size_t errlen) {
    return zz_sgf_parse(text, strlen(text), g, err, errlen);
}

static void expect_counts(const uint8_t *got, int a, int b, int c, const char *what) {
    ck_assert_msg(got[0] == a && got[1] == b && got[2] == c, "%s: %d/%d/%d, expected %d/%d/%d", what, got[0], got[1],
                  got[2], a, b, c);
}

START_TEST(handicap_moves_pool_to_captures) {
    zz_pos p;
    zz_pos_init(&p, ZZ_B48);
    zz_handicap h = { 1, { 1, 0, 2 } };
    char err[128];
    ck_assert_int_eq(zz_handicap_apply(&p, &h, err, sizeof err), 0);
    expect_counts(p.pool, 5, 8, 8, "pool");              /* 6/8/10 minus 1/0/2 */
    expect_counts(p.cap[1], 1, 0, 2, "P1");
    expect_counts(p.cap[0], 0, 0, 0, "P0");
    ck_assert_ptr_null(zz_pos_validate(&p));
    ck_assert(!zz_pos_is_opening(&p));
    /* too many: the pool holds 5 white now */
    zz_handicap big = { 0, { 6, 0, 0 } };
    zz_pos before = p;
    ck_assert_int_eq(zz_handicap_apply(&p, &big, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "pool holds 5"));
    ck_assert(zz_pos_equal(&p, &before));
    /* 4 white is already a win */
    zz_handicap win = { 0, { 4, 0, 0 } };
    ck_assert_int_eq(zz_handicap_apply(&p, &win, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "winning set"));
    /* 3 of each too; 2 white + 4 grey + 5 black is not */
    zz_pos q;
    zz_pos_init(&q, ZZ_B37);
    zz_handicap three = { 0, { 3, 3, 3 } }, near = { 0, { 3, 4, 2 } };
    ck_assert_int_eq(zz_handicap_apply(&q, &three, err, sizeof err), -1);
    ck_assert_int_eq(zz_handicap_apply(&q, &near, err, sizeof err), 0);
}
END_TEST

START_TEST(handicap_text) {
    zz_handicap h;
    char err[128];
    ck_assert_int_eq(zz_handicap_parse("0:1,2,3", &h, err, sizeof err), 0);
    ck_assert(h.player == 0 && h.wgb[0] == 1 && h.wgb[1] == 2 && h.wgb[2] == 3);
    ck_assert_int_eq(zz_handicap_parse("1,0,0", &h, err, sizeof err), 0);
    ck_assert(h.player == 1 && h.wgb[0] == 1 && h.wgb[1] == 0 && h.wgb[2] == 0);
    const char *bad[] = { "", "1,0", "2:1,0,0", "1:1,0,0,", "x", "1:11,0,0", "1:-1,0,0", "1:1;0;0" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_msg(zz_handicap_parse(bad[i], &h, err, sizeof err) == -1, "'%s' accepted", bad[i]);
        ck_assert_ptr_nonnull(strstr(err, "handicap"));
    }
}
END_TEST

#define HEAD "(;GM[22]VV[2]SU[Zertz+H]P0[id \"a\"]P1[id \"b\"]\n"

/* Two handicap marbles for P1 (a white, a black), P0 starts and plays Gd4 removing a1. */
START_TEST(read_handicap_prologue) {
    zz_game g;
    char err[256];
    int rc = parse(HEAD ";P0[0 Edit];P1[1 RtoR 2 0 1];P1[2 RtoR 2 2 1];P1[3 Start P0]\n"
                        ";P0[4 RtoB 2 1 D 4];P0[5 R- A 1];P0[6 Done])",
                   &g, err, sizeof err);
    ck_assert_msg(rc == 0, "%s", err);
    ck_assert_int_eq(g.board, ZZ_B48);
    ck_assert_str_eq(g.variant, "Zertz+H");
    ck_assert_int_eq(g.first_player, 0);
    ck_assert_int_eq(g.start.to_move, 0);
    expect_counts(g.start.pool, 5, 8, 9, "start pool");
    expect_counts(g.start.cap[1], 1, 0, 1, "start P1");
    expect_counts(g.start.cap[0], 0, 0, 0, "start P0");
    ck_assert(g.start.rings == zz_board_get(ZZ_B48)->mask);
    ck_assert_int_eq(g.nturns, 1);
    ck_assert_str_eq(g.turns[0].text, "Gd4,a1");
    expect_counts(g.final.pool, 5, 7, 9, "final pool");
    expect_counts(g.final.cap[1], 1, 0, 1, "final P1");
    rd_scene sc;
    ck_assert_int_eq(rd_scene_from_game(&g, 0, &sc, err, sizeof err), 0);
    ck_assert_msg(strstr(sc.subtitle, "Zèrtz+H (48 rings; handicap P1 1/0/1)"), "%s", sc.subtitle);
    expect_counts(sc.pos.cap[1], 1, 0, 1, "picture's P1");
    zz_game_free(&g);
}
END_TEST

/* SetBoard starts over (Boardspace's doInit): the white moved to P0 before it is gone; the board
 * is now 37 rings, the black moved after it stays with P1, and P1 starts. */
START_TEST(read_setboard_starts_over) {
    zz_game g;
    char err[256];
    int rc = parse(HEAD ";P0[0 Edit];P0[1 RtoR 2 0 0];P0[2 SetBoard Zertz];P1[3 RtoR 2 2 1];P1[4 Start P1]"
                        ";P1[5 RtoB 2 0 D 7];P1[6 R- A 1];P1[7 Done])",
                   &g, err, sizeof err);
    ck_assert_msg(rc == 0, "%s", err);
    ck_assert_int_eq(g.board, ZZ_B37);
    ck_assert_str_eq(g.variant, "Zertz+H");
    ck_assert_int_eq(g.first_player, 1);
    expect_counts(g.start.pool, 6, 8, 9, "start pool");
    expect_counts(g.start.cap[0], 0, 0, 0, "start P0");
    expect_counts(g.start.cap[1], 0, 0, 1, "start P1");
    ck_assert_int_eq(g.nturns, 1);
    ck_assert_str_eq(g.turns[0].text, "Wd7,a1");       /* d7 is the 37-ring board's top ring */
    zz_game_free(&g);
}
END_TEST

/* Puzzle-mode edits of the board: a black on d4 moved to d5, ring a1 removed. */
START_TEST(read_edited_board) {
    zz_game g;
    char err[256];
    int rc = parse(HEAD ";P0[0 Edit];P0[1 RtoB 2 2 D 4];P0[2 R- A 1];P0[3 BtoB D 4 D 5];P0[4 Start P0])", &g, err,
                   sizeof err);
    ck_assert_msg(rc == 0, "%s", err);
    const zz_board *b = zz_board_get(ZZ_B48);
    int d5 = zz_cell_from_colrow(b, 'D', 5), a1 = zz_cell_from_colrow(b, 'A', 1);
    ck_assert(g.start.marble[ZZ_BLACK] == zz_bit(d5) && !g.start.marble[0] && !g.start.marble[1]);
    ck_assert(g.start.rings == (b->mask & ~zz_bit(a1)));
    expect_counts(g.start.pool, 6, 8, 9, "pool");
    ck_assert_int_eq(g.nturns, 0);
    ck_assert_int_eq(g.end, ZZ_END_UNFINISHED);
    zz_game_free(&g);
}
END_TEST

START_TEST(setup_errors) {
    struct { const char *body, *msg; } cases[] = {
        { ";P0[0 Start P0];P0[1 RtoB 2 1 D 4];P0[2 R- A 1];P0[3 Done];P1[4 Edit])", "after the first move" },
        { ";P0[0 Start P0];P0[1 RtoR 2 0 1])", "outside an Edit set-up" },
        { ";P0[0 Edit];P1[1 RtoR 2 0 1];P1[2 RtoR 2 0 1];P1[3 RtoR 2 0 1];P1[4 RtoR 2 0 1];P1[5 Start P0])", "winning set" },
        /* the same set-up never started is refused too (it was once accepted, and its written
         * copy, which has a Start, did not read back) */
        { ";P0[0 Edit];P1[1 RtoR 2 0 1];P1[2 RtoR 2 0 1];P1[3 RtoR 2 0 1];P1[4 RtoR 2 0 1])", "never started" },
        { ";P0[0 Edit];P0[1 RtoR 0 0 1])", "holds no marble" },
        { ";P0[0 Edit];P0[1 SetBoard Zertz+99])", "unknown board" },
        { ";P0[0 Edit];P0[1 SetBoard Zertz+xx])", "not supported" },
        { ";P0[0 Edit];P0[1 RtoB 2 0 D 4];P0[2 RtoB 2 1 D 4])", "not a vacant ring" },
        { ";P0[0 Edit];P0[1 Resign])", "not supported" },
        { ";P0[0 Start P0];P0[1 SetBoard Zertz])", "outside an Edit set-up" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[512], err[256];
        snprintf(text, sizeof text, HEAD "%s", cases[i].body);
        zz_game g;
        ck_assert_msg(parse(text, &g, err, sizeof err) == -1, "case %zu accepted", i);
        ck_assert_msg(strstr(err, cases[i].msg) && strstr(err, "line "), "case %zu: '%s'", i, err);
        zz_game_free(&g);
    }
}
END_TEST

/* Edit replaces any state (Boardspace's PUZZLE_STATE), a pending Resign's included: a time node
 * after it ends no turn, and the record is an unfinished game from the set-up.  (The Resign was
 * once kept, and the time node resigned the game, whose set-up position then said it went on.) */
START_TEST(edit_withdraws_a_resign) {
    zz_game g;
    char err[256];
    int rc = parse(HEAD ";P1[0 Resign];P0[1 Edit];P0[2 RtoR 2 2 0]P1[time 1])", &g, err, sizeof err);
    ck_assert_msg(rc == 0, "%s", err);
    ck_assert_int_eq(g.end, ZZ_END_UNFINISHED);
    ck_assert_int_eq(g.winner, -1);
    ck_assert_int_eq(g.nturns, 0);
    ck_assert(!zz_over(&g.final));
    expect_counts(g.final.cap[0], 0, 0, 1, "P0");
    zz_game_free(&g);
}
END_TEST

static void random_turns(zz_game *g, uint64_t *rng) {
    while (!zz_over(&g->final) && g->nturns < 200) {
        zz_move mv[ZZ_MAX_CHAIN];
        zz_pos q = g->final;
        int n = 0, me = q.to_move;
        do {
            mv[n] = zz_random_move(&q, rng);
            zz_apply(&q, mv[n++], NULL);
        } while (!zz_over(&q) && q.to_move == me && q.chain != ZZ_NO_CELL);
        char err[128];
        ck_assert_int_eq(zz_game_add_turn(g, mv, n, err, sizeof err), 0);
    }
}

/* Games from handicapped and edited starts are written with an Edit set-up and read back to the
 * same start, turns and end; writing what was read gives the same text. */
START_TEST(write_read_setup_roundtrip) {
    uint64_t rng = 2024;
    for (int i = 0; i < 30; i++) {
        zz_board_kind k = (zz_board_kind)(i % 3);
        zz_game g, h;
        zz_game_init(&g, k);
        if (i % 2 == 0) snprintf(g.variant, sizeof g.variant, "%s", ZZ_VARIANT_HANDICAP);
        zz_handicap hc = { i % 2, { i % 3, (i / 3) % 2, i % 4 } };
        char err[256];
        ck_assert_int_eq(zz_handicap_apply(&g.start, &hc, err, sizeof err), 0);
        if (i % 5 == 4) {                       /* an edited board too: a few random plies first */
            for (int j = 0; j < 4 && !zz_over(&g.start); j++) zz_apply(&g.start, zz_random_move(&g.start, &rng), NULL);
            g.start.ply = 0;
            if (zz_over(&g.start) || g.start.chain != ZZ_NO_CELL) { zz_game_free(&g); continue; }
        }
        g.start.to_move = (uint8_t)(i % 3 == 0);
        g.first_player = g.start.to_move;
        g.final = g.start;
        random_turns(&g, &rng);
        char *buf = NULL;
        size_t len;
        FILE *f = open_memstream(&buf, &len);
        ck_assert_int_eq(zz_sgf_write(f, &g), 0);
        fclose(f);
        ck_assert_ptr_nonnull(strstr(buf, "Edit"));
        ck_assert_msg(zz_sgf_parse(buf, len, &h, err, sizeof err) == 0, "%s\n%s", err, buf);
        ck_assert_int_eq(h.board, k);
        ck_assert_str_eq(h.variant, g.variant);
        ck_assert_msg(zz_pos_equal(&h.start, &g.start), "start differs\n%s", buf);
        ck_assert_int_eq(h.first_player, g.first_player);
        ck_assert_int_eq(h.nturns, g.nturns);
        for (int t = 0; t < g.nturns; t++) ck_assert_str_eq(h.turns[t].text, g.turns[t].text);
        ck_assert_int_eq(h.winner, g.winner);
        ck_assert(!memcmp(h.final.cap, g.final.cap, 6) && !memcmp(h.final.pool, g.final.pool, 3));
        char *again = NULL;
        size_t len2;
        f = open_memstream(&again, &len2);
        ck_assert_int_eq(zz_sgf_write(f, &h), 0);
        fclose(f);
        ck_assert_str_eq(again, buf);
        free(again);
        free(buf);
        zz_game_free(&g);
        zz_game_free(&h);
    }
}
END_TEST

/* One protocol command; the answer's text. */
static void ask(ze_protocol *s, const char *cmd, char *out, size_t n) {
    FILE *f = fmemopen(out, n, "w");
    ck_assert_ptr_nonnull(f);
    ze_protocol_command(s, cmd, f);
    fclose(f);
}

START_TEST(engine_protocol_handicap) {
    char err[256], out[4096];
    ze_protocol *s = ze_protocol_new("uct:50", 1, 3, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ask(s, "newgame 48 handicap 0:1,0,2", out, sizeof out);
    ck_assert_msg(!strstr(out, "err"), "%s", out);
    const zz_pos *p = ze_protocol_position(s);
    ck_assert_int_eq(zz_pos_board(p)->rings, 48);
    expect_counts(p->cap[0], 1, 0, 2, "P0");
    expect_counts(p->pool, 5, 8, 8, "pool");
    ask(s, "bestmove", out, sizeof out);                /* it plays from there */
    ck_assert_msg(!strstr(out, "err"), "%s", out);
    ask(s, "newgame 37 handicap 0:4,0,0", out, sizeof out);
    ck_assert_msg(strstr(out, "err newgame: handicap") && strstr(out, "winning set"), "%s", out);
    ask(s, "newgame 37 handicap", out, sizeof out);
    ck_assert_msg(strstr(out, "err newgame: expected"), "%s", out);
    /* a session default: every newgame starts with it */
    zz_handicap h = { 1, { 0, 2, 0 } };
    ck_assert_int_eq(ze_protocol_set_handicap(s, &h, err, sizeof err), 0);
    expect_counts(ze_protocol_position(s)->cap[1], 0, 2, 0, "P1 (set)");
    ask(s, "newgame 61", out, sizeof out);
    p = ze_protocol_position(s);
    ck_assert_int_eq(zz_pos_board(p)->rings, 61);
    expect_counts(p->cap[1], 0, 2, 0, "P1 (newgame)");
    expect_counts(p->pool, 6, 6, 10, "pool (newgame)");
    zz_handicap too = { 0, { 0, 0, 11 } };
    ck_assert_int_eq(ze_protocol_set_handicap(s, &too, err, sizeof err), -1);
    ze_protocol_free(s);
}
END_TEST

/* The arena gives agent B the handicap in every game, as P0 when B moves first and as P1 when
 * A does; every game is written as Zertz+H and replays to the same result. */
START_TEST(arena_handicap) {
    char dir[] = "/tmp/zz-handicap-XXXXXX", err[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    zz_handicap h = { 1, { 2, 0, 1 } };
    mcts_match_config c;
    memset(&c, 0, sizeof c);
    c.spec[0] = "uct:40";
    c.spec[1] = "random";
    c.games = 4;
    c.parallel = 1;
    c.agent_threads = 1;
    c.seed = 5;
    c.board = ZZ_B48;
    c.sgf_dir = dir;
    c.handicap = &h;
    mcts_match_result r;
    ck_assert_msg(mcts_match_run(&c, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.games, 4);
    for (int i = 0; i < 4; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/game-%04d.sgf", dir, i);
        zz_game g;
        ck_assert_msg(zz_sgf_read_file(path, &g, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(g.variant, "Zertz+H");
        int b_player = (i % 2 == 1) ? 0 : 1;          /* game i: B moves first when i is odd */
        expect_counts(g.start.cap[b_player], 2, 0, 1, "B's start captures");
        expect_counts(g.start.cap[1 - b_player], 0, 0, 0, "A's start captures");
        ck_assert_str_eq(g.player_name[b_player], "random");
        ck_assert(g.end == ZZ_END_CAPTURE || g.end == ZZ_END_RESIGN);
        zz_game_free(&g);
        unlink(path);
    }
    rmdir(dir);
}
END_TEST

int main(void) {
    Suite *s = suite_create("handicap");
    TCase *t = tcase_create("zertz+h");
    tcase_add_test(t, handicap_moves_pool_to_captures);
    tcase_add_test(t, handicap_text);
    tcase_add_test(t, read_handicap_prologue);
    tcase_add_test(t, read_setboard_starts_over);
    tcase_add_test(t, read_edited_board);
    tcase_add_test(t, setup_errors);
    tcase_add_test(t, edit_withdraws_a_resign);
    tcase_add_test(t, write_read_setup_roundtrip);
    tcase_add_test(t, engine_protocol_handicap);
    tcase_add_test(t, arena_handicap);
    suite_add_tcase(s, t);
    return th_run(s);
}
