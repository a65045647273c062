/* test_xx.c — Zèrtz Extreme (Zertz+xx, game/xx.h) on hand-worked records: the grid's neighbours
 * in Boardspace's doubled coordinates, a set-up of seven rings, a swap, a placement, a capture and
 * a resignation with every count worked out by hand in the comments (and that game written as SGF
 * and read back), and the errors for turns the rules refuse. */
#include "game/xx.h"
#include "helpers.h"
#include "render/draw_xx.h"
#include <check.h>
#include <stdlib.h>
#include <string.h>

static int cell(char col, int row) { return (col - 'A') * ZZ_XX_ROWS + row - 1; }

/* E5 is column 4 (firstInCol 1): x 4, y 9.  Its neighbours, direction by direction:
 * (-1,-1) -> x 3 y 8 = D4 (column 3 starts at y 2); (-1,+1) -> D5; (0,+2) -> E6;
 * (+1,+1) -> F5; (+1,-1) -> F4; (0,-2) -> E4.  A1 (x 0, y 1) has only (0,+2) A2, (+1,+1) B1. */
START_TEST(grid_neighbours) {
    int want[6] = { cell('D', 4), cell('D', 5), cell('E', 6), cell('F', 5), cell('F', 4), cell('E', 4) };
    for (int d = 0; d < 6; d++) ck_assert_int_eq(zz_xx_neighbour(cell('E', 5), d), want[d]);
    int a1[6] = { -1, -1, cell('A', 2), cell('B', 1), -1, -1 };
    for (int d = 0; d < 6; d++) ck_assert_int_eq(zz_xx_neighbour(cell('A', 1), d), a1[d]);
    for (int c = 0; c < ZZ_XX_CELLS; c++)          /* symmetric: the way back is d + 3 */
        for (int d = 0; d < 6; d++) {
            int e = zz_xx_neighbour(c, d);
            if (e >= 0) ck_assert_int_eq(zz_xx_neighbour(e, d + 3), c);
        }
    char name[8];
    zz_xx_cell_name(cell('Q', 12), name);
    ck_assert_str_eq(name, "q12");
}
END_TEST

#define SETUP "(;GM[22]VV[2]SU[Zertz+xx]P0[id \"a\"]P1[id \"b\"];P0[0 Start P0]" \
    ";P0[R+ E 5];P0[R+ D 4];P0[R+ D 5];P0[R+ E 6];P0[R+ F 5];P0[R+ F 4];P0[R+ E 4];P0[R+ A 1];P0[R- A 1];P0[Done]"

/* Seven rings (E5 and its six neighbours; A1 added and taken back); P1 swaps, so P0 moves first:
 * We5 removing d4 (every outer ring has two missing neighbours side by side: free).  P1: Be4
 * removing f4 (free: its neighbours g5 and g4 are missing).  Now e4's black can jump over e5's
 * white onto the vacant e6: P0 must capture, x e4We6, and holds 1/0/0.  P1 resigns.
 * Pool: 6/8/10 - W - B = 5/8/9; turns: set-up, swap, 3 turns (and the resignation). */
START_TEST(hand_worked_game) {
    const char *text = SETUP ";P1[Swap];P1[Done]"
        ";P0[RtoB 2 0 E 5];P0[R- D 4];P0[Done];P1[RtoB 2 2 E 4];P1[R- F 4];P1[Done]"
        ";P0[BtoB E 4 E 6];P0[Done];P1[Resign];P1[Done])";
    zz_xx_game g;
    char err[256];
    ck_assert_msg(zz_xx_sgf_parse(text, strlen(text), &g, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(g.first_player, 0);
    ck_assert_int_eq(g.swapped, 1);
    ck_assert_int_eq(g.setup_rings, 7);
    ck_assert_int_eq(g.nturns, 5);
    ck_assert_str_eq(g.text[0], "setup 7 rings");
    ck_assert_str_eq(g.text[1], "swap");
    ck_assert_str_eq(g.text[2], "We5,d4");
    ck_assert_str_eq(g.text[3], "Be4,f4");
    ck_assert_str_eq(g.text[4], "x e4We6");
    ck_assert_int_eq(g.end, ZZ_END_RESIGN);
    ck_assert_int_eq(g.winner, 0);
    ck_assert(g.final.pool[0] == 5 && g.final.pool[1] == 8 && g.final.pool[2] == 9);
    ck_assert(g.final.cap[0][0] == 1 && g.final.cap[0][1] == 0 && g.final.cap[0][2] == 0);
    ck_assert(!g.final.cap[1][0] && !g.final.cap[1][1] && !g.final.cap[1][2]);
    ck_assert_int_eq(g.final.cell[cell('E', 6)], 2 + ZZ_BLACK);
    ck_assert_int_eq(g.final.cell[cell('E', 5)], ZZ_XX_RING);
    ck_assert_int_eq(g.final.cell[cell('D', 4)], ZZ_XX_NONE);
    /* written as SGF: the seven rings (not A1), the swap, the three turns, the resignation */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_int_eq(zz_xx_sgf_write(f, &g), 0);
    fclose(f);
    ck_assert_ptr_null(strstr(buf, "R+ A 1"));
    /* nodes: 0 Start, 1-7 R+, 8 Done, 9 Swap, 10 Done, 11-13 We5,d4, 14-16 Be4,f4, 17-18 the jump, 19 Resign */
    ck_assert_ptr_nonnull(strstr(buf, "P1[9 Swap]"));
    ck_assert_ptr_nonnull(strstr(buf, "P0[17 BtoB E 4 E 6]"));
    ck_assert_ptr_nonnull(strstr(buf, "P1[19 Resign ]"));
    zz_xx_game h;
    ck_assert_msg(zz_xx_sgf_parse(buf, len, &h, err, sizeof err) == 0, "%s\n%s", err, buf);
    ck_assert_int_eq(h.nturns, g.nturns);
    for (int t = 0; t < g.nturns; t++) ck_assert_str_eq(h.text[t], g.text[t]);
    ck_assert(!memcmp(&h.final, &g.final, sizeof g.final) && h.winner == 0 && h.end == ZZ_END_RESIGN);
    zz_xx_game_free(&h);
    free(buf);
    /* the picture: drawn; without e6's black marble it has far fewer near-black pixels */
    rd_style st;
    rd_style_default(&st);
    st.width = 600;
    long dark[2] = { 0, 0 };
    for (int k = 0; k < 2; k++) {
        if (k == 1) g.final.cell[cell('E', 6)] = ZZ_XX_RING;
        rd_canvas pic;
        ck_assert_msg(rd_draw_xx(&g, &st, &pic, err, sizeof err) == 0, "%s", err);
        ck_assert_int_eq(pic.w, 600);
        ck_assert_int_gt(pic.h, 100);
        for (int i = 0; i < pic.w * pic.h; i++)
            dark[k] += pic.px[3 * i] < 50 && pic.px[3 * i + 1] < 50 && pic.px[3 * i + 2] < 50;
        rd_canvas_free(&pic);
    }
    ck_assert_msg(dark[0] > dark[1] + 100, "dark pixels %ld with the marble, %ld without", dark[0], dark[1]);
    zz_xx_game_free(&g);
}
END_TEST

/* A resignation in the middle of a turn: P1 has placed a black on e4 (no ring removed yet) and
 * resigns.  The final position counts the black on e4 (as Boardspace does), and the written copy
 * must place it before the Resign (it once wrote only the whole turns: its e4 stayed vacant). */
START_TEST(resign_mid_turn_roundtrip) {
    const char *text = SETUP ";P1[Swap];P1[Done];P0[RtoB 2 0 E 5];P0[R- D 4];P0[Done]"
                             ";P1[RtoB 2 2 E 4];P1[Resign];P1[Done])";
    zz_xx_game g, h;
    char err[256];
    ck_assert_msg(zz_xx_sgf_parse(text, strlen(text), &g, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(g.end, ZZ_END_RESIGN);
    ck_assert_int_eq(g.winner, 0);
    ck_assert_int_eq(g.nturns, 3);
    ck_assert_int_eq(g.final.cell[cell('E', 4)], 2 + ZZ_BLACK);
    ck_assert(g.final.pool[0] == 5 && g.final.pool[1] == 8 && g.final.pool[2] == 9);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_int_eq(zz_xx_sgf_write(f, &g), 0);
    fclose(f);
    ck_assert_msg(strstr(buf, "P1[14 RtoB 2 2 E 4]") && strstr(buf, "P1[15 Resign ]"), "%s", buf);
    ck_assert_msg(zz_xx_sgf_parse(buf, len, &h, err, sizeof err) == 0, "%s\n%s", err, buf);
    ck_assert_msg(!memcmp(&h.final, &g.final, sizeof g.final), "the written copy's final position differs\n%s", buf);
    ck_assert(h.end == ZZ_END_RESIGN && h.winner == 0 && h.nturns == 3);
    zz_xx_game_free(&h);
    zz_xx_game_free(&g);
    free(buf);
}
END_TEST

/* A win on time during the set-up: the rings placed so far are the final position's, and the
 * written copy must place them (it once wrote no ring: the layout was kept for a Resign only). */
START_TEST(time_win_during_setup_roundtrip) {
    const char *text = "(;GM[22]VV[2]SU[Zertz+xx]P0[id \"a\"]P1[id \"b\"];P0[0 Start P0]"
                       ";P0[R+ E 5];P0[R+ D 4];P0[WinOnTime])";
    zz_xx_game g, h;
    char err[256];
    ck_assert_msg(zz_xx_sgf_parse(text, strlen(text), &g, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(g.end, ZZ_END_TIME);
    ck_assert_int_eq(g.winner, 0);
    ck_assert_int_eq(g.nturns, 0);
    ck_assert(g.final.cell[cell('E', 5)] == ZZ_XX_RING && g.final.cell[cell('D', 4)] == ZZ_XX_RING);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_int_eq(zz_xx_sgf_write(f, &g), 0);
    fclose(f);
    ck_assert_msg(strstr(buf, "R+ E 5") && strstr(buf, "R+ D 4") && strstr(buf, "WinOnTime"), "%s", buf);
    ck_assert_msg(zz_xx_sgf_parse(buf, len, &h, err, sizeof err) == 0, "%s\n%s", err, buf);
    ck_assert_msg(!memcmp(&h.final, &g.final, sizeof g.final), "the written copy's final position differs\n%s", buf);
    ck_assert(h.end == ZZ_END_TIME && h.winner == 0);
    zz_xx_game_free(&h);
    zz_xx_game_free(&g);
    free(buf);
}
END_TEST

/* Swap toggles MOVE_OR_SWAP and SWAP_CONFIRM, and Done passes the first move back from either
 * (Boardspace's SetNextPlayer): after 0 Swaps P1 places first; after 1, 2 or 3 Swaps and Done (or
 * a bare Done) P0 places first.  The position after one placement says who moved. */
START_TEST(swap_counts) {
    static const struct { const char *swaps; int mover; int swapped; } cases[] = {
        { "", 1, 0 }, { ";P1[Done]", 0, 1 }, { ";P1[Swap];P1[Done]", 0, 1 },
        { ";P1[Swap];P1[Swap];P1[Done]", 0, 1 }, { ";P1[Swap];P1[Swap];P1[Swap];P1[Done]", 0, 1 },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[1024];
        int p = cases[i].mover;
        snprintf(text, sizeof text, SETUP "%s;P%d[RtoB 2 0 E 5];P%d[R- D 4];P%d[Done])", cases[i].swaps, p, p, p);
        zz_xx_game g;
        char err[256];
        ck_assert_msg(zz_xx_sgf_parse(text, strlen(text), &g, err, sizeof err) == 0, "case %u: %s", i, err);
        ck_assert_int_eq(g.swapped, cases[i].swapped);
        ck_assert_int_eq(g.nturns, 2 + cases[i].swapped);
        ck_assert_int_eq(g.final.to_move, 1 - p);                /* the other player is to move */
        ck_assert_int_eq(g.final.cell[cell('E', 5)], 2 + ZZ_WHITE);
        ck_assert_int_eq(g.final.cell[cell('D', 4)], ZZ_XX_NONE);
        ck_assert(g.final.pool[0] == 5 && g.final.pool[1] == 8 && g.final.pool[2] == 10);
        zz_xx_game_free(&g);
    }
    /* the wrong player may not place after the swaps */
    const char *bad = SETUP ";P1[Swap];P1[Swap];P1[Done];P1[RtoB 2 0 E 5])";
    zz_xx_game g;
    char err[256];
    ck_assert_int_eq(zz_xx_sgf_parse(bad, strlen(bad), &g, err, sizeof err), -1);
    zz_xx_game_free(&g);
}
END_TEST

/* Without the swap P1 moves first; placing c3 (not a ring) and removing e5 (not free: all its
 * neighbours are rings) are refused; P0 may not Swap; a marble may not be placed while a capture
 * is possible; rack transfers are not moves. */
START_TEST(refused_turns) {
    struct { const char *body, *msg; } cases[] = {
        { ";P1[RtoB 2 0 C 3])", "not a vacant ring" },
        { ";P1[R- E 5])", "not a free vacant ring" },
        { ";P0[Swap])", "it is P1's turn" },
        { ";P1[RtoB 2 0 E 5];P1[R- D 4];P1[Done];P0[Swap])", "Swap is only allowed" },
        { ";P1[RtoB 2 0 E 5];P1[R- D 4];P1[Done];P0[RtoB 2 2 E 4];P0[R- F 4];P0[Done];P1[RtoB 2 1 D 5])", "Can't place" },
        { ";P1[RtoR 2 0 1])", "not allowed" },
        { ";P1[RtoB 2 0 E 5];P1[Done])", "compulsory" },
        { ";P1[RtoB 0 0 E 5])", "holds no marble" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[1024], err[256];
        snprintf(text, sizeof text, SETUP "%s", cases[i].body);
        zz_xx_game g;
        ck_assert_msg(zz_xx_sgf_parse(text, strlen(text), &g, err, sizeof err) == -1, "case %zu accepted", i);
        ck_assert_msg(strstr(err, cases[i].msg) && strstr(err, "line "), "case %zu: '%s'", i, err);
        zz_xx_game_free(&g);
    }
    const char *std = "(;GM[22]SU[Zertz];P0[Start P0])";
    ck_assert(!zz_sgf_is_extreme(std, strlen(std)));
}
END_TEST

/* Deterministic mutations of a valid record (bytes changed, dropped, truncated): every one either
 * replays with 24 marbles accounted for or is refused with a line; none crashes or overruns (run
 * under `make test-asan` too). */
START_TEST(fuzz_parser) {
    const char *base = SETUP ";P1[Swap];P1[Done];P0[RtoB 2 0 E 5];P0[R- D 4];P0[Done];P1[RtoB 2 2 E 4];P1[R- F 4];"
                       "P1[Done];P0[BtoB E 4 E 6];P0[Done];P1[Resign];P1[Done])";
    static const char ALPHA[] = "()[];PRtoBDne+- 0123456789ABCDEFGHQZxSwapRsig\n\"";
    size_t n = strlen(base);
    char buf[1024], err[256];
    uint64_t rng = 99;
    int ok = 0, refused = 0;
    for (int i = 0; i < 4000; i++) {
        memcpy(buf, base, n + 1);
        size_t len = n;
        int edits = 1 + (int)zz_rand_below(&rng, 4);
        for (int e = 0; e < edits; e++) {
            size_t at = zz_rand_below(&rng, (uint32_t)len);
            switch (zz_rand_below(&rng, 3)) {
            case 0: buf[at] = ALPHA[zz_rand_below(&rng, sizeof ALPHA - 1)]; break;
            case 1: memmove(buf + at, buf + at + 1, len - at); len--; break;
            default: len = at > 60 ? at : len; buf[len] = 0; break;
            }
        }
        zz_xx_game g;
        if (zz_xx_sgf_parse(buf, len, &g, err, sizeof err) == 0) {
            ok++;
            for (int c = 0; c < 3; c++) {
                int on = 0;
                for (int k = 0; k < ZZ_XX_CELLS; k++) on += g.final.cell[k] == 2 + c;
                ck_assert_int_eq(on + g.final.pool[c] + g.final.cap[0][c] + g.final.cap[1][c], ZZ_START_POOL[c]);
            }
        } else {
            refused++;
            ck_assert_msg(!strncmp(err, "line ", 5), "no line in '%s'", err);
        }
        zz_xx_game_free(&g);
    }
    printf("xx fuzz: 4000 mutated records, %d replayed, %d refused with a line\n", ok, refused);
    ck_assert_int_gt(ok, 0);
    ck_assert_int_gt(refused, 0);
}
END_TEST

int main(void) {
    Suite *s = suite_create("xx");
    TCase *t = tcase_create("extreme");
    tcase_add_test(t, grid_neighbours);
    tcase_add_test(t, hand_worked_game);
    tcase_add_test(t, resign_mid_turn_roundtrip);
    tcase_add_test(t, time_win_during_setup_roundtrip);
    tcase_add_test(t, swap_counts);
    tcase_add_test(t, refused_turns);
    tcase_add_test(t, fuzz_parser);
    suite_add_tcase(s, t);
    return th_run(s);
}
