/* test_game.c — unit tests of the rules (every edge case of RULES.md §5 on built positions),
 * move generation and random moves, notation round trips and errors, symmetry, hashing, the SGF
 * writer/reader round trip, deterministic mutation fuzzing of the SGF and notation parsers, and
 * tools/replay's messages (records that fail and a missing manifest: "zertz: replay: ...", with
 * the manifest's full path and the system's reason). */
#include "game/manifest.h"
#include "game/sgf.h"
#include "game/sgf_scan.h"
#include "game/symmetry.h"
#include "helpers.h"
#include "game/posstr.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static zz_move moves_buf[ZZ_MAX_MOVES];

/* ---- board geometry ------------------------------------------------------------------------ */
START_TEST(board_tables) {
    static const int rings[3] = { 37, 48, 61 }, side[3] = { 7, 8, 9 };
    for (int k = 0; k < 3; k++) {
        const zz_board *b = zz_board_get((zz_board_kind)k);
        ck_assert_int_eq(b->ncells, rings[k]);
        ck_assert_int_eq(zz_popcount(b->mask), rings[k]);
        ck_assert_int_eq(b->grid_w, side[k]);
        ck_assert_int_eq(b->grid_h, side[k]);
        for (int i = 0; i < b->ncells; i++) {   /* names round-trip */
            char name[8];
            zz_cell_name(b, b->cells[i], name);
            const char *s = name;
            ck_assert_int_eq(zz_parse_cell(b, &s), b->cells[i]);
        }
    }
}
END_TEST

START_TEST(board_neighbours_match_boardspace) {
    /* RULES.md §3: the neighbours of C3 are C2, C4, B2, B3, D3, D4 */
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    zz_bits n = zz_neighbours(zz_bit(th_cell(&p, "c3"))) & zz_pos_board(&p)->mask, want = 0;
    const char *names[] = { "c2", "c4", "b2", "b3", "d3", "d4" };
    for (int i = 0; i < 6; i++) want |= zz_bit(th_cell(&p, names[i]));
    ck_assert(n == want);
    /* a jump goes two steps in one direction: E1 -> C2 over D2 */
    int e1 = th_cell(&p, "e1"), c2 = th_cell(&p, "c2"), d2 = th_cell(&p, "d2");
    ck_assert_int_eq((e1 + c2) / 2, d2);
}
END_TEST

START_TEST(board_cell_names) {
    const zz_board *b37 = zz_board_get(ZZ_B37), *b61 = zz_board_get(ZZ_B61);
    const char *bad37[] = { "h1", "d8", "a5", "a0", "j1", "i1", "dd", "4d" };
    for (unsigned i = 0; i < sizeof bad37 / sizeof *bad37; i++) {
        const char *s = bad37[i];
        ck_assert_int_lt(zz_parse_cell(b37, &s), 0);
    }
    const char *i5 = "i5", *j5 = "J5", *e9 = "e9";
    int ci = zz_parse_cell(b61, &i5);
    ck_assert_int_ge(ci, 0);
    ck_assert_int_eq(zz_parse_cell(b61, &j5), ci);      /* 'j' is the 61-ring board's 'i' */
    ck_assert_int_ge(zz_parse_cell(b61, &e9), 0);
}
END_TEST

/* ---- rules --------------------------------------------------------------------------------- */
START_TEST(opening_move_count) {
    /* every edge ring is free at the start: 3 colours × 18 free × 36 other vacant cells */
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    ck_assert_int_eq(zz_popcount(zz_free_rings(&p)), 18);
    int n = zz_gen_moves(&p, moves_buf);
    ck_assert_int_eq(n, 3 * 18 * 36);
    ck_assert_int_eq(zz_count_moves(&p), n);
    zz_pos_init(&p, ZZ_B61);
    ck_assert_int_eq(zz_popcount(zz_free_rings(&p)), 24);
    ck_assert_int_eq(zz_gen_moves(&p, moves_buf), 3 * 24 * 60);
    zz_pos_init(&p, ZZ_B48);
    ck_assert_int_eq(zz_gen_moves(&p, moves_buf), zz_count_moves(&p));
}
END_TEST

START_TEST(capture_is_compulsory) {
    zz_pos p;
    th_build(&p, ZZ_B37, NULL, "Wd4 Gd5");
    int n = zz_gen_moves(&p, moves_buf);
    ck_assert_int_eq(n, 2);   /* d4 over d5 to d6, d5 over d4 to d3 */
    ck_assert(th_in_list(moves_buf, n, zz_move_jump(th_cell(&p, "d4"), th_cell(&p, "d6"))));
    ck_assert(th_in_list(moves_buf, n, zz_move_jump(th_cell(&p, "d5"), th_cell(&p, "d3"))));
    ck_assert(!zz_is_legal(&p, zz_move_place(0, th_cell(&p, "a1"), th_cell(&p, "a2"))));
    ck_assert_int_eq(zz_count_moves(&p), 2);
}
END_TEST

/* A position after up to 60 random plies (the game not over). */
static void random_position(zz_pos *p, zz_board_kind k, uint64_t *rng) {
    zz_pos_init(p, k);
    int plies = (int)zz_rand_below(rng, 60);
    for (int i = 0; i < plies && !zz_over(p); i++) {
        zz_pos save = *p;
        zz_apply(p, zz_random_move(p, rng), NULL);
        if (zz_over(p)) { *p = save; break; }
    }
}

/* zz_place_landings: by hand (Wd4 on the board, a marble placed on d5 gives the jumps of
 * capture_is_compulsory, landing on d6 and d3; on a1, nothing), then against the jumps of the
 * position built from each placement by hand (marble placed, ring removed, no isolation) over
 * random positions of every board. */
START_TEST(place_landings_are_the_forced_jumps) {
    zz_pos p;
    th_build(&p, ZZ_B37, NULL, "Wd4");
    zz_bits want = zz_bit(th_cell(&p, "d6")) | zz_bit(th_cell(&p, "d3"));
    ck_assert(zz_place_landings(&p, th_cell(&p, "d5")) == want);
    ck_assert(zz_place_landings(&p, th_cell(&p, "a1")) == 0);
    uint64_t rng = 5;
    long forcing = 0, placements = 0;
    for (int k = 0; k < ZZ_NBOARDS; k++)
        for (int g = 0; g < 40; g++) {
            random_position(&p, (zz_board_kind)k, &rng);
            int n = zz_gen_moves(&p, moves_buf);
            for (int i = 0; i < n; i++) {
                zz_move m = moves_buf[i];
                if (zz_move_is_jump(m)) break;
                int cell = zz_move_a(m), removed = zz_move_b(m);
                zz_pos q = p;
                q.marble[zz_move_colour(m)] |= zz_bit(cell);
                if (removed != ZZ_NO_CELL) q.rings &= ~zz_bit(removed);
                q.to_move ^= 1;
                zz_move jumps[ZZ_MAX_MOVES];
                int nj = zz_must_capture(&q) ? zz_gen_moves(&q, jumps) : 0;
                zz_bits landed = 0;
                for (int j = 0; j < nj; j++) landed |= zz_bit(zz_move_b(jumps[j]));
                ck_assert(landed == (zz_place_landings(&p, cell) & ~zz_bit(removed)));
                forcing += landed != 0;
                placements++;
            }
        }
    ck_assert(forcing > 100 && forcing < placements);   /* both kinds were met */
}
END_TEST

START_TEST(chain_same_player_same_marble) {
    zz_pos p;
    th_build(&p, ZZ_B37, NULL, "Wd1 Gd2 Bd4 Wa1 Ga2");
    int d1 = th_cell(&p, "d1"), d3 = th_cell(&p, "d3"), d5 = th_cell(&p, "d5");
    zz_move first = zz_move_jump(d1, d3);
    ck_assert(zz_is_legal(&p, first));
    zz_effects fx;
    zz_apply(&p, first, &fx);
    ck_assert(!fx.turn_over);
    ck_assert_int_eq(p.to_move, 0);                /* the same player decides again */
    ck_assert_int_eq(p.chain, d3);
    int n = zz_gen_moves(&p, moves_buf);
    ck_assert_int_eq(n, 1);                        /* only the chain marble may move */
    ck_assert(moves_buf[0] == zz_move_jump(d3, d5));
    ck_assert(!zz_is_legal(&p, zz_move_jump(th_cell(&p, "a1"), th_cell(&p, "a3"))));
    zz_apply(&p, moves_buf[0], &fx);
    ck_assert(fx.turn_over);
    ck_assert_int_eq(p.to_move, 1);
    ck_assert_int_eq(p.chain, ZZ_NO_CELL);
    ck_assert_int_eq(p.cap[0][ZZ_GREY], 1);
    ck_assert_int_eq(p.cap[0][ZZ_BLACK], 1);
    ck_assert_ptr_null(zz_pos_validate(&p));
    /* a chain cell past the layout's 128 cells (from a damaged file) is refused, not looked up
     * (a fuzzing finding: the bit test shifted a 128-bit value by up to 255) */
    for (int bad = ZZ_NCELLS; bad < 256; bad += 41) {
        zz_pos q = p;
        q.chain = (uint8_t)bad;
        ck_assert_str_eq(zz_pos_validate(&q), "chain cell off the layout");
    }
}
END_TEST

START_TEST(no_removal_when_no_free_ring) {
    /* seven rings around d4; five outer ones hold marbles; d5 is the only free vacant ring */
    zz_pos p;
    th_build(&p, ZZ_B37, "d4 d3 d5 c3 c4 e3 e4", "Wd3 Gc3 Gc4 Be3 Be4");
    ck_assert(zz_free_rings(&p) == zz_bit(th_cell(&p, "d5")));
    int n = zz_gen_moves(&p, moves_buf);
    ck_assert_int_eq(n, 6);                        /* 3 colours × {d5 no removal, d4 removing d5} */
    zz_move fill_only_free = zz_move_place(0, th_cell(&p, "d5"), ZZ_NO_CELL);
    ck_assert(th_in_list(moves_buf, n, fill_only_free));
    ck_assert(th_in_list(moves_buf, n, zz_move_place(0, th_cell(&p, "d4"), th_cell(&p, "d5"))));
    ck_assert(!zz_is_legal(&p, zz_move_place(0, th_cell(&p, "d4"), ZZ_NO_CELL)));   /* removal is compulsory */
    zz_apply(&p, fill_only_free, NULL);
    ck_assert(zz_has(p.rings, th_cell(&p, "d4")));  /* a vacant ring remains: nothing isolated */
    ck_assert_int_eq(p.cap[0][0] + p.cap[0][1] + p.cap[0][2], 0);
}
END_TEST

START_TEST(isolation_credited_to_mover) {
    /* a1 and a2 hang on b2 only; removing b2 isolates them for the mover */
    zz_pos p;
    th_build(&p, ZZ_B37, NULL, "Wa1 Wa2");
    p.rings &= ~(zz_bit(th_cell(&p, "b1")) | zz_bit(th_cell(&p, "a3")) | zz_bit(th_cell(&p, "b3")) | zz_bit(th_cell(&p, "c2")));
    p.to_move = 1;
    zz_move m = zz_move_place(ZZ_BLACK, th_cell(&p, "d7"), th_cell(&p, "b2"));
    ck_assert(zz_is_legal(&p, m));
    char text[ZZ_NOTATION_MAX];
    zz_turn_to_text(&p, &m, 1, text);
    ck_assert_str_eq(text, "Bd7,b2 x Wa1Wa2");
    zz_effects fx;
    zz_apply(&p, m, &fx);
    ck_assert_int_eq(p.cap[1][ZZ_WHITE], 2);
    ck_assert(!zz_has(p.rings, th_cell(&p, "a1")) && !zz_has(p.rings, th_cell(&p, "a2")));
    ck_assert(fx.isolated[ZZ_WHITE] == (zz_bit(th_cell(&p, "a1")) | zz_bit(th_cell(&p, "a2"))));
}
END_TEST

START_TEST(isolation_cut_off_groups) {
    /* {a1,a2} is already cut off; a1 holds a marble, a2 is vacant: the group stays */
    zz_pos p;
    th_build(&p, ZZ_B37, NULL, "Wa1");
    p.rings &= ~(zz_bit(th_cell(&p, "b1")) | zz_bit(th_cell(&p, "b2")) | zz_bit(th_cell(&p, "b3")) | zz_bit(th_cell(&p, "a3")));
    zz_pos q = p;
    zz_apply(&q, zz_move_place(ZZ_GREY, th_cell(&p, "d4"), th_cell(&p, "g1")), NULL);
    ck_assert(zz_has(q.rings, th_cell(&p, "a1")) && zz_has(q.marble[0], th_cell(&p, "a1")));
    /* an empty cut-off group stays too, and its rings may be played and removed */
    zz_pos e;
    th_build(&e, ZZ_B37, NULL, NULL);
    e.rings &= ~(zz_bit(th_cell(&e, "b1")) | zz_bit(th_cell(&e, "b2")) | zz_bit(th_cell(&e, "b3")) | zz_bit(th_cell(&e, "a3")));
    zz_apply(&e, zz_move_place(ZZ_GREY, th_cell(&e, "d4"), th_cell(&e, "g1")), NULL);
    ck_assert(zz_has(e.rings, th_cell(&e, "a1")) && zz_has(e.rings, th_cell(&e, "a2")));
    ck_assert(zz_is_legal(&e, zz_move_place(ZZ_GREY, th_cell(&e, "a1"), th_cell(&e, "a2"))));
    /* filling the group's last vacancy captures the whole group, including the marble just placed */
    zz_move fill = zz_move_place(ZZ_BLACK, th_cell(&p, "a2"), th_cell(&p, "g1"));
    ck_assert(zz_is_legal(&p, fill));
    zz_apply(&p, fill, NULL);
    ck_assert_int_eq(p.cap[0][ZZ_WHITE], 1);
    ck_assert_int_eq(p.cap[0][ZZ_BLACK], 1);
    ck_assert(!zz_has(p.rings, th_cell(&p, "a1")) && !zz_has(p.rings, th_cell(&p, "a2")));
}
END_TEST

START_TEST(full_board_goes_to_mover) {
    zz_pos p;
    th_build(&p, ZZ_B37, "d4 d5", "Wd4");
    p.cap[0][ZZ_WHITE] = 3;
    p.pool[ZZ_WHITE] -= 3;
    zz_move m = zz_move_place(ZZ_WHITE, th_cell(&p, "d5"), ZZ_NO_CELL);
    ck_assert(zz_is_legal(&p, m));
    zz_apply(&p, m, NULL);
    ck_assert(p.rings == 0);
    ck_assert_int_eq(p.cap[0][ZZ_WHITE], 5);
    ck_assert_int_eq(p.end, ZZ_END_CAPTURE);
    ck_assert_int_eq(p.winner, 0);
    /* without a winning set the board is empty and the opponent cannot move: the mover wins */
    th_build(&p, ZZ_B37, "d4 d5", "Wd4");
    zz_apply(&p, zz_move_place(ZZ_GREY, th_cell(&p, "d5"), ZZ_NO_CELL), NULL);
    ck_assert_int_eq(p.end, ZZ_END_NO_MOVE);
    ck_assert_int_eq(p.winner, 0);
}
END_TEST

START_TEST(marbles_from_own_captures) {
    zz_pos p;
    th_build(&p, ZZ_B37, NULL, NULL);
    p.pool[0] = 0; p.pool[1] = 0; p.pool[2] = 1;
    p.cap[0][ZZ_GREY] = 2;
    ck_assert_int_eq(zz_placeable_colours(&p), 4);   /* the pool still has a black: pool only */
    p.pool[2] = 0;
    ck_assert_int_eq(zz_placeable_colours(&p), 2);   /* pool empty: own captures, grey only */
    zz_move m = zz_move_place(ZZ_GREY, th_cell(&p, "d4"), th_cell(&p, "a1"));
    ck_assert(zz_is_legal(&p, m));
    ck_assert(!zz_is_legal(&p, zz_move_place(ZZ_WHITE, th_cell(&p, "d4"), th_cell(&p, "a1"))));
    zz_apply(&p, m, NULL);
    ck_assert_int_eq(p.cap[0][ZZ_GREY], 1);
}
END_TEST

START_TEST(winning_sets) {
    uint8_t w4[3] = { 4, 0, 0 }, g5[3] = { 0, 5, 0 }, b6[3] = { 0, 0, 6 }, each3[3] = { 3, 3, 3 };
    uint8_t near[3] = { 3, 4, 2 }, two[3] = { 2, 4, 5 };
    ck_assert(zz_is_winning_set(w4) && zz_is_winning_set(g5) && zz_is_winning_set(b6) && zz_is_winning_set(each3));
    ck_assert(!zz_is_winning_set(near) && !zz_is_winning_set(two));
    /* only the mover's set is checked */
    zz_pos p;
    th_build(&p, ZZ_B37, NULL, NULL);
    p.cap[1][ZZ_BLACK] = 6; p.pool[ZZ_BLACK] = 4;
    zz_apply(&p, zz_move_place(ZZ_WHITE, th_cell(&p, "d4"), th_cell(&p, "a1")), NULL);
    ck_assert(!zz_over(&p));
}
END_TEST

START_TEST(no_legal_move_loses) {
    zz_pos p;
    th_build(&p, ZZ_B37, NULL, NULL);
    memset(p.pool, 0, 3);
    p.cap[0][ZZ_WHITE] = 1;
    zz_apply(&p, zz_move_place(ZZ_WHITE, th_cell(&p, "d4"), th_cell(&p, "a1")), NULL);
    ck_assert_int_eq(p.end, ZZ_END_NO_MOVE);    /* player 1 has nothing to place */
    ck_assert_int_eq(p.winner, 0);
    ck_assert_int_eq(zz_gen_moves(&p, moves_buf), 0);
}
END_TEST

START_TEST(ply_cap_is_a_draw) {
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    p.ply_cap = 3;
    uint64_t rng = 7;
    for (int i = 0; i < 3 && !zz_over(&p); i++) zz_apply(&p, zz_random_move(&p, &rng), NULL);
    ck_assert_int_eq(p.end, ZZ_END_PLY_CAP);
    ck_assert_int_eq(p.winner, -1);
}
END_TEST

START_TEST(random_games_stay_consistent) {
    uint64_t rng = 12345;
    for (int k = 0; k < 3; k++)
        for (int g = 0; g < 200; g++) {
            zz_pos p;
            zz_pos_init(&p, (zz_board_kind)k);
            while (!zz_over(&p)) {
                int n = zz_gen_moves(&p, moves_buf);
                ck_assert_int_gt(n, 0);
                ck_assert_int_eq(n, zz_count_moves(&p));
                zz_move m = zz_random_move(&p, &rng);
                ck_assert(zz_is_legal(&p, m));
                ck_assert(th_in_list(moves_buf, n, m));
                zz_apply(&p, m, NULL);
                ck_assert_ptr_null(zz_pos_validate(&p));
            }
            ck_assert(p.winner == 0 || p.winner == 1);
        }
}
END_TEST

START_TEST(random_move_is_uniform) {
    zz_pos p;
    th_build(&p, ZZ_B37, "d4 d3 d5 c3 c4 e3 e4 d6 e5", "Wd3 Gc3");
    int n = zz_gen_moves(&p, moves_buf), counts[128] = { 0 };
    ck_assert_int_le(n, 128);
    uint64_t rng = 99;
    enum { SAMPLES = 200000 };
    for (int i = 0; i < SAMPLES; i++) {
        zz_move m = zz_random_move(&p, &rng);
        int j = 0;
        while (j < n && moves_buf[j] != m) j++;
        ck_assert_int_lt(j, n);
        counts[j]++;
    }
    double expect = (double)SAMPLES / n;
    for (int j = 0; j < n; j++) ck_assert_msg(counts[j] > 0.9 * expect && counts[j] < 1.1 * expect, "move %d drawn %d times, expected about %.0f", j, counts[j], expect);
}
END_TEST

/* ---- notation ------------------------------------------------------------------------------- */
static void roundtrip(const zz_pos *p, const char *text) {
    zz_move mv[ZZ_MAX_CHAIN];
    char err[256] = "", back[ZZ_NOTATION_MAX];
    zz_pos after;
    int n = zz_turn_from_text(p, text, mv, &after, err, sizeof err);
    ck_assert_msg(n > 0, "%s: %s", text, err);
    zz_turn_to_text(p, mv, n, back);
    ck_assert_str_eq(back, text);
}

START_TEST(notation_examples) {
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    roundtrip(&p, "Wd4,d1");
    th_build(&p, ZZ_B37, "d4 d3 d5 c3 c4 e3 e4", "Wd3 Gc3 Gc4 Be3 Be4");
    roundtrip(&p, "Wd5");
    th_build(&p, ZZ_B37, NULL, "Wd1 Gd2 Wd4");
    roundtrip(&p, "x d1Gd3Wd5");
    th_build(&p, ZZ_B37, NULL, "Wa1 Wa2");
    p.rings &= ~(zz_bit(th_cell(&p, "b1")) | zz_bit(th_cell(&p, "a3")) | zz_bit(th_cell(&p, "b3")) | zz_bit(th_cell(&p, "c2")));
    roundtrip(&p, "Bd7,b2 x Wa1Wa2");
    /* a single jump is a move of its own; the colour may be left out when reading */
    th_build(&p, ZZ_B37, NULL, "Wd1 Gd2 Wd4");
    zz_move m;
    char err[256], text[32];
    ck_assert_int_eq(zz_move_from_text(&p, "x d1d3", &m, err, sizeof err), 0);
    zz_move_to_text(&p, m, text);
    ck_assert_str_eq(text, "x d1Gd3");
    /* 61 rings: i and j name the same column */
    zz_pos_init(&p, ZZ_B61);
    ck_assert_int_eq(zz_move_from_text(&p, "Wj5,a1", &m, err, sizeof err), 0);
    zz_move_to_text(&p, m, text);
    ck_assert_str_eq(text, "Wi5,a1");
}
END_TEST

START_TEST(notation_errors) {
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    const char *bad[] = { "", "Wd8,d1", "Wh1,d1", "Qd4,d1", "Wd4,d4", "Wd4,d3", "Wd4", "x d4d6", "Wd4,d1 junk",
                          "Wd4,d1 x Wa1", "\x01\x02\xff", "W", "Wd", "x", "x d1", "Wd4,,d1", "d4", "W d4,d1",
                          "Wd4,d1;Gc3,a1", "Wd4,d1 ;\n Gc3,a1", "Wd4,d1\nGc3,a1", "Wd4,d1; junk" };   /* one turn only */
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        zz_move mv[ZZ_MAX_CHAIN];
        char err[256] = "";
        ck_assert_msg(zz_turn_from_text(&p, bad[i], mv, NULL, err, sizeof err) < 0, "accepted '%s'", bad[i]);
        ck_assert_msg(err[0] != 0, "no message for '%s'", bad[i]);
    }
    /* a chain written short of its end is refused as a turn */
    th_build(&p, ZZ_B37, NULL, "Wd1 Gd2 Wd4");
    zz_move mv[ZZ_MAX_CHAIN];
    char err[256];
    ck_assert_int_lt(zz_turn_from_text(&p, "x d1Gd3", mv, NULL, err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "jump again"));
    ck_assert_int_lt(zz_turn_from_text(&p, "x d1Wd3Wd5", mv, NULL, err, sizeof err), 0);   /* wrong colour */
    /* separators after the one turn are allowed, with nothing after them */
    zz_pos_init(&p, ZZ_B37);
    ck_assert_int_eq(zz_turn_from_text(&p, "Wd4,d1 ;\r\n", mv, NULL, err, sizeof err), 1);
    ck_assert_int_lt(zz_turn_from_text(&p, "Wd4,d1;Gc3,a1", mv, NULL, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "'Gc3,a1' after the turn") != NULL, "%s", err);
}
END_TEST

/* ---- symmetry and hashing ---------------------------------------------------------------------- */

START_TEST(symmetry_group_sizes) {
    ck_assert_int_eq(zz_board_nsyms(ZZ_B37), 12);
    ck_assert_int_eq(zz_board_nsyms(ZZ_B61), 12);
    ck_assert_int_eq(zz_board_nsyms(ZZ_B48), 6);
    for (int k = 0; k < 3; k++) {
        const zz_board *b = zz_board_get((zz_board_kind)k);
        const zz_sym *id = zz_board_sym((zz_board_kind)k, 0);
        for (int i = 0; i < b->ncells; i++) ck_assert_int_eq(id->map[b->cells[i]], b->cells[i]);
        for (int s = 0; s < zz_board_nsyms((zz_board_kind)k); s++)
            ck_assert(zz_sym_bits(zz_board_sym((zz_board_kind)k, s), b->mask) == b->mask);
    }
}
END_TEST

START_TEST(symmetry_commutes_with_rules) {
    uint64_t rng = 2024;
    static zz_move mv2[ZZ_MAX_MOVES];
    for (int k = 0; k < 3; k++)
        for (int trial = 0; trial < 30; trial++) {
            zz_pos p;
            random_position(&p, (zz_board_kind)k, &rng);
            int n = zz_gen_moves(&p, moves_buf);
            uint64_t canon = zz_canonical_hash(&p);
            for (int s = 0; s < zz_board_nsyms((zz_board_kind)k); s++) {
                const zz_sym *sym = zz_board_sym((zz_board_kind)k, s);
                zz_pos t;
                zz_sym_pos(sym, &p, &t);
                ck_assert_ptr_null(zz_pos_validate(&t));
                int n2 = zz_gen_moves(&t, mv2);
                ck_assert_int_eq(n, n2);
                for (int i = 0; i < n; i += 1 + n / 50) ck_assert(zz_is_legal(&t, zz_sym_move(sym, moves_buf[i])));
                ck_assert_uint_eq(zz_canonical_hash(&t), canon);
                if (n) {   /* playing commutes with the symmetry */
                    zz_move m = moves_buf[zz_rand_below(&rng, (uint32_t)n)];
                    zz_pos a = p, b2 = t, sa;
                    zz_apply(&a, m, NULL);
                    zz_apply(&b2, zz_sym_move(sym, m), NULL);
                    zz_sym_pos(sym, &a, &sa);
                    ck_assert(zz_pos_equal(&sa, &b2));
                }
            }
            /* the canonical form is a position of the same game: same number of moves */
            zz_pos c;
            zz_sym used;
            zz_canonical(&p, &c, &used);
            ck_assert_ptr_null(zz_pos_validate(&c));
            ck_assert_int_eq(zz_gen_moves(&c, mv2), n);
            for (int i = 0; i < n; i += 1 + n / 50) ck_assert(zz_is_legal(&c, zz_sym_move(&used, moves_buf[i])));
        }
}
END_TEST

START_TEST(canonical_form_includes_translation) {
    /* a small group of rings and its copy one column to the right are the same game */
    zz_pos p, t;
    th_build(&p, ZZ_B37, "d4 d5 c4 e4 e5 d3", "Wd4 Gd5");
    t = p;
    int off = ZZ_DIR_OFFSET[4];   /* (+1,0) */
    t.rings = p.rings << off;
    for (int c = 0; c < 3; c++) t.marble[c] = p.marble[c] << off;
    ck_assert(!(t.rings & ~zz_pos_board(&p)->mask));
    ck_assert(!zz_pos_equal(&p, &t));
    ck_assert_uint_eq(zz_canonical_hash(&p), zz_canonical_hash(&t));
    ck_assert_uint_ne(zz_hash(&p), zz_hash(&t));
}
END_TEST

START_TEST(hash_distinguishes_positions) {
    enum { N = 20000 };
    static uint64_t hs[N];
    int n = 0;
    uint64_t rng = 4;
    while (n < N) {
        zz_pos p;
        zz_pos_init(&p, ZZ_B37);
        for (int i = 0; i < 8 && !zz_over(&p) && n < N; i++) {
            zz_apply(&p, zz_random_move(&p, &rng), NULL);
            zz_pos copy = p;
            ck_assert_uint_eq(zz_hash(&copy), zz_hash(&p));
            hs[n++] = zz_hash(&p);
        }
    }
    /* random 8-ply games almost never repeat a position: allow a few true transpositions */
    int dup = 0;
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < i + 8 && j < N; j++) dup += hs[i] == hs[j];
    ck_assert_int_eq(dup, 0);
    zz_pos a, b;
    zz_pos_init(&a, ZZ_B37);
    b = a;
    b.to_move = 1;
    ck_assert_uint_ne(zz_hash(&a), zz_hash(&b));
    b = a;
    b.pool[0]--; b.cap[0][0]++;
    ck_assert_uint_ne(zz_hash(&a), zz_hash(&b));
}
END_TEST

/* ---- SGF writer round trip and parser robustness -------------------------------------------- */
static void random_game(zz_game *g, zz_board_kind k, uint64_t *rng, int ply_cap) {
    zz_game_init(g, k);
    g->start.ply_cap = g->final.ply_cap = (uint16_t)ply_cap;
    snprintf(g->player_name[0], sizeof g->player_name[0], "alice");
    snprintf(g->player_name[1], sizeof g->player_name[1], "bob");
    while (!zz_over(&g->final)) {
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

static char *sgf_text(const zz_game *g, size_t *len) {
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    ck_assert_int_eq(zz_sgf_write(f, g), 0);
    fclose(f);
    return buf;
}

START_TEST(sgf_write_read_roundtrip) {
    uint64_t rng = 77;
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 20; i++) {
            zz_game g, h;
            random_game(&g, (zz_board_kind)k, &rng, i % 5 == 0 ? 20 : 0);
            size_t len;
            char *text = sgf_text(&g, &len), err[256];
            ck_assert_msg(zz_sgf_parse(text, len, &h, err, sizeof err) == 0, "%s\n%s", err, text);
            ck_assert_int_eq(h.board, g.board);
            ck_assert_int_eq(h.nturns, g.nturns);
            for (int t = 0; t < g.nturns; t++) {
                ck_assert_str_eq(h.turns[t].text, g.turns[t].text);
                ck_assert_int_eq(h.turns[t].nmoves, g.turns[t].nmoves);
                ck_assert(!memcmp(h.turns[t].moves, g.turns[t].moves, sizeof(zz_move) * (size_t)g.turns[t].nmoves));
            }
            ck_assert_int_eq(h.winner, g.winner);
            /* Boardspace has no no-move rule: such a game is written as the stuck player's resignation */
            ck_assert_int_eq(h.end, g.end == ZZ_END_NO_MOVE ? ZZ_END_RESIGN : g.end);
            ck_assert(memcmp(h.final.cap, g.final.cap, 6) == 0 && h.final.rings == g.final.rings);
            ck_assert_str_eq(h.player_name[1], "bob");
            size_t len2;
            char *again = sgf_text(&h, &len2);
            ck_assert_str_eq(again, text);             /* writing what was read gives the same file */
            free(again);
            free(text);
            zz_game_free(&g);
            zz_game_free(&h);
        }
}
END_TEST

/* A game resigned or won on time in the middle of a turn: Boardspace counts the part played in the
 * final position (RULES.md §5.10), and the written copy must say it too (it once wrote only the
 * whole turns, so that its final position lacked that part). */
START_TEST(sgf_mid_turn_end_roundtrip) {
    static const char *const cases[][3] = {
        /* P1 places a black on c3, no ring removed yet, and resigns */
        { ";P1[4 RtoB 2 2 C 3];P1[5 Resign];P1[6 Done])", "RtoB 2 2 C 3", "resign" },
        /* P1 removes ring g1, no marble placed yet, and wins on time */
        { ";P1[4 R- G 1];P1[5 WinOnTime])", "R- G 1", "time" },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[512], err[256];
        snprintf(text, sizeof text, "(;GM[22]VV[2]SU[Zertz]P0[id \"a\"]P1[id \"b\"]\n;P0[0 Start P0]"
                                    ";P0[1 RtoB 2 0 D 4];P0[2 R- A 1];P0[3 Done]%s", cases[i][0]);
        zz_game g, h;
        ck_assert_msg(zz_sgf_parse(text, strlen(text), &g, err, sizeof err) == 0, "case %u: %s", i, err);
        ck_assert_str_eq(zz_end_name(g.end), cases[i][2]);
        ck_assert_int_eq(g.nturns, 1);
        const zz_board *b = zz_board_get(ZZ_B37);
        if (i == 0) {
            ck_assert(g.final.marble[ZZ_BLACK] == zz_bit(zz_cell_from_colrow(b, 'C', 3)));
            ck_assert_int_eq(g.winner, 0);
        } else {
            ck_assert(!zz_has(g.final.rings, zz_cell_from_colrow(b, 'G', 1)));
            ck_assert_int_eq(g.winner, 1);
        }
        size_t len;
        char *out = sgf_text(&g, &len);
        ck_assert_msg(strstr(out, cases[i][1]) != NULL, "case %u: the unfinished turn is not written:\n%s", i, out);
        ck_assert_msg(zz_sgf_parse(out, len, &h, err, sizeof err) == 0, "case %u: %s\n%s", i, err, out);
        ck_assert_msg(zz_pos_equal(&h.final, &g.final), "case %u: the written copy's final position differs\n%s", i, out);
        ck_assert(h.end == g.end && h.winner == g.winner && h.nturns == g.nturns);
        size_t len2;
        char *again = sgf_text(&h, &len2);
        ck_assert_str_eq(again, out);
        free(again);
        free(out);
        zz_game_free(&g);
        zz_game_free(&h);
    }
}
END_TEST

/* A record that ends undecided on the board but says RE[...draw...] is a drawn game that is over:
 * its final position says so too (it once said the game went on, while the game said drawn). */
START_TEST(sgf_agreed_draw_is_over) {
    const char *text = "(;GM[22]VV[2]SU[Zertz]RE[The game is a draw]\n;P0[0 Start P0]"
                       ";P0[1 RtoB 2 0 D 4];P0[2 R- A 1];P0[3 Done])";
    zz_game g, h;
    char err[256];
    ck_assert_msg(zz_sgf_parse(text, strlen(text), &g, err, sizeof err) == 0, "%s", err);
    ck_assert_str_eq(zz_end_name(g.end), "draw");
    ck_assert_int_eq(g.winner, -1);
    ck_assert(zz_over(&g.final) && g.final.end == g.end && g.final.winner == -1);
    size_t len;
    char *out = sgf_text(&g, &len);
    ck_assert_msg(zz_sgf_parse(out, len, &h, err, sizeof err) == 0, "%s\n%s", err, out);
    ck_assert(h.end == g.end && zz_pos_equal(&h.final, &g.final));
    free(out);
    zz_game_free(&g);
    zz_game_free(&h);
}
END_TEST

START_TEST(sgf_bad_input) {
    static const char *cases[][2] = {
        { "", "not an SGF" },
        { "garbage", "not an SGF" },
        { "(;GM[22]SU[Zertz]\n;P0[1 RtoB 2 0 D 4]", "truncated" },
        { "(;GM[22]SU[Zertz]\n;P0[1 RtoB 2 0 D 4", "unterminated" },
        { "(;GM[1]SU[Zertz])", "not a Zertz" },
        { "(;GM[22]SU[Zertz+99])", "unknown variant" },
        { "(;GM[22]SU[Zertz]\n;P0[1 Fly D 4])", "unknown command" },
        { "(;GM[22]SU[Zertz]\n;P0[1 RtoB 2 0 D 9])", "not a cell" },
        { "(;GM[22]SU[Zertz]\n;P0[1 RtoB 2 0 D 4]\n;P0[2 R- D 3]\n;P0[3 Done])", "not a free" },
        { "(;GM[22]SU[Zertz]\n;P0[1 RtoB 2 7 D 4])", "bad colour" },
        { "(;GM[22]SU[Zertz]\n;P0[1 RtoB 2 0 D 4]\n;P0[2 Done])", "not complete" },
        { "(;GM[22]SU[Zertz]\n;P0[1 RtoB 2 0 D 4]\n;P0[2 R- A 1]\n;P0[3 Done]\n;P0[4 RtoB 2 0 D 5])", "turn" },
        { "(;GM[22]SU[Zertz]\n;P0[1 BtoB D 4 D 6])", "capture" },
        { "(;GM[22]SU[Zertz]\n\x01\x02)", "unexpected character" },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        zz_game g;
        char err[256] = "";
        int rc = zz_sgf_parse(cases[i][0], strlen(cases[i][0]), &g, err, sizeof err);
        ck_assert_msg(rc < 0, "case %u accepted", i);
        ck_assert_msg(strstr(err, cases[i][1]) != NULL, "case %u: '%s' lacks '%s'", i, err, cases[i][1]);
        ck_assert_msg(!strncmp(err, "line ", 5), "case %u: no line number in '%s'", i, err);
        zz_game_free(&g);
    }
    zz_game g;
    char err[256];
    ck_assert_int_lt(zz_sgf_read_file("/nonexistent/x.sgf", &g, err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/x.sgf"));
    zz_game_free(&g);
}
END_TEST

/* The shared SGF tokenizer (sgf_scan.h), by hand: every value in order with its node and line,
 * escapes resolved and white space inside a value made spaces, a second tree ignored, and the
 * callback's own stop passed back as it is. */
typedef struct { int n; char seen[512]; int stop_at; } scan_log;

static int log_value(void *ctx, int node, const char *id, const char *val, int line) {
    scan_log *l = ctx;
    size_t k = strlen(l->seen);
    snprintf(l->seen + k, sizeof l->seen - k, "%d:%s[%s]@%d;", node, id, val, line);
    return ++l->n == l->stop_at ? 7 : 0;
}

START_TEST(sgf_scan_by_hand) {
    const char *text = " (;GM[22]SU[Zertz]\n;P0[1 a\\]b]\n[x\ty]\n;P1[z\nw])(;P0[second])";
    scan_log l = { 0, "", 0 };
    zz_sgf_scan_end end;
    char err[128] = "";
    ck_assert_int_eq(zz_sgf_scan(text, strlen(text), log_value, &l, &end, err, sizeof err), 0);
    ck_assert_str_eq(l.seen, "1:GM[22]@1;1:SU[Zertz]@1;2:P0[1 a]b]@2;2:P0[x y]@3;3:P1[z w]@4;");
    ck_assert(end.any);
    scan_log stop = { 0, "", 2 };
    ck_assert_int_eq(zz_sgf_scan(text, strlen(text), log_value, &stop, &end, err, sizeof err), 7);
    ck_assert_int_eq(stop.n, 2);
    const char *bad[][2] = {
        { "x(;GM[22])", "line 1: not an SGF file" },
        { "(;GM[22]\n;TOOLONGID[1])", "line 2: property name too long" },
        { "(;GM[22]\n\n;P0 )", "line 3: property P0 without a value" },
        { "(;GM[22]\n;P0[abc\n", "line 2: unterminated value of property P0" },
        { "(;GM[22]\n;P0[abc]\n", "line 3: truncated file" },
        { "(;GM[22];p0[1])", "line 1: unexpected character 0x70" },
    };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        scan_log b = { 0, "", 0 };
        ck_assert_int_eq(zz_sgf_scan(bad[i][0], strlen(bad[i][0]), log_value, &b, NULL, err, sizeof err), -1);
        ck_assert_msg(!strncmp(err, bad[i][1], strlen(bad[i][1])), "case %u: '%s', expected '%s'", i, err, bad[i][1]);
    }
    const char *nums = " -12 x";
    int v = 0;
    ck_assert_int_eq(zz_sgf_parse_int(&nums, &v), 0);
    ck_assert_int_eq(v, -12);
    ck_assert_int_eq(zz_sgf_parse_int(&nums, &v), -1);
    ck_assert_str_eq(nums, " x");
    const char *huge = "2000000";
    ck_assert_int_eq(zz_sgf_parse_int(&huge, &v), -1);
    /* move properties: "[index] Command args" */
    char word[16], name[8];
    ck_assert_str_eq(zz_sgf_command(" 12 RtoB W 3", word), " W 3");
    ck_assert_str_eq(word, "rtob");
    ck_assert_str_eq(zz_sgf_command("-1 Done", word), "");
    ck_assert_str_eq(word, "done");
    ck_assert_str_eq(zz_sgf_command("7", word), "");
    ck_assert_str_eq(word, "");
    ck_assert_str_eq(zz_sgf_command("ABCDEFGHIJKLMNOPQ x", word), "PQ x");   /* cut at 15 */
    ck_assert_str_eq(word, "abcdefghijklmno");
    zz_sgf_player_name(zz_sgf_command("0 id \"bob\" extra", word), name, sizeof name);
    ck_assert_str_eq(name, "bob");
    zz_sgf_player_name(" \"verylongname\"", name, sizeof name);
    ck_assert_str_eq(name, "verylon");
}
END_TEST

/* A missing manifest names its full path and why it cannot be opened; replay's errors go to
 * stderr as "zertz: replay: ..." (they used to be "ERROR ..." lines on stdout, and "manifest.csv:
 * cannot open" with neither the folder nor the reason); with --check, a game the manifest does not
 * list is replayed but not counted as agreeing with it (it used to be). */
START_TEST(replay_tool_messages) {
    zz_manifest man;
    char err[512];
    ck_assert_int_lt(zz_manifest_load("/nonexistent/dir/manifest.csv", &man, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "/nonexistent/dir/manifest.csv") && strstr(err, "No such file or directory"), "%s", err);
    ck_assert_int_lt(zz_manifest_load("/dev/zero", &man, err, sizeof err), 0);     /* one endless line */
    ck_assert_msg(strstr(err, "not a regular file"), "%s", err);
    char dir[] = "/tmp/zz-replay-XXXXXX", sub[128], path[160], args[600], out[4096], e[4096], prefix[1400];
    char good[160], manifest[160];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(sub, sizeof sub, "%s/sgf", dir);
    ck_assert_int_eq(mkdir(sub, 0777), 0);
    snprintf(path, sizeof path, "%s/bad.sgf", sub);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("not a record\n", f);
    fclose(f);
    /* a record that fails */
    int st = th_run_tool("test_game", "replay", path, 60, out, sizeof out, e, sizeof e);
    if (st >= 0) {
        ck_assert_int_eq(st, 1);
        snprintf(prefix, sizeof prefix, "zertz: replay: %s: line 1: not an SGF file", path);
        ck_assert_msg(!strncmp(e, prefix, strlen(prefix)), "%s", e);
        ck_assert_msg(!strstr(out, "ERROR"), "%s", out);
        /* --check: the manifest beside sgf/ is missing */
        snprintf(args, sizeof args, "--check %s", path);
        ck_assert_int_eq(th_run_tool("test_game", "replay", args, 60, out, sizeof out, e, sizeof e), 2);
        snprintf(prefix, sizeof prefix, "zertz: replay: --check: %s/manifest.csv: cannot open: No such file or directory", dir);
        ck_assert_msg(!strncmp(e, prefix, strlen(prefix)), "%s", e);
        /* a relative manifest: named with the current folder */
        snprintf(args, sizeof args, "--check zz-no-such-manifest.csv %s", path);
        ck_assert_int_eq(th_run_tool("test_game", "replay", args, 60, out, sizeof out, e, sizeof e), 2);
        char cwd[1024];
        ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
        snprintf(prefix, sizeof prefix, "%s/zz-no-such-manifest.csv: cannot open: ", cwd);
        ck_assert_msg(strstr(e, prefix), "%s", e);
        /* usage */
        ck_assert_int_eq(th_run_tool("test_game", "replay", "", 60, out, sizeof out, e, sizeof e), 2);
        ck_assert_msg(!strncmp(e, "zertz: replay: ", 15), "%s", e);
        ck_assert_int_eq(th_run_tool("test_game", "replay", "/nonexistent/dir", 60, out, sizeof out, e, sizeof e), 2);
        ck_assert_msg(!strncmp(e, "zertz: replay: /nonexistent/dir: ", 33), "%s", e);
        /* --check with a game the manifest does not list: replayed, but not counted as agreeing */
        snprintf(good, sizeof good, "%s/good.sgf", sub);
        snprintf(manifest, sizeof manifest, "%s/manifest.csv", dir);
        uint64_t rng = 5;
        zz_game g;
        random_game(&g, ZZ_B37, &rng, 0);
        f = fopen(good, "w");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(zz_sgf_write(f, &g), 0);
        fclose(f);
        zz_game_free(&g);
        f = fopen(manifest, "w");
        ck_assert_ptr_nonnull(f);
        fputs("path,rings,variant,first_player,turns,end,winner,p0_captured_wgb,p1_captured_wgb,pool_left_wgb,"
              "clean,strict,flags,replay_error\n", f);
        fclose(f);
        snprintf(args, sizeof args, "--check %s", good);
        ck_assert_int_eq(th_run_tool("test_game", "replay", args, 60, out, sizeof out, e, sizeof e), 0);
        ck_assert_msg(strstr(out, "1 games: 0 replayed and agree") && strstr(out, "1 not in the manifest (1 of them replayed)"),
                      "%s", out);
        remove(good);
        remove(manifest);
    }
    remove(path);
    rmdir(sub);
    rmdir(dir);
}
END_TEST

START_TEST(fuzz_parsers) {
    /* deterministic mutation fuzzing: every mutant parses or fails with a message, never crashes */
    uint64_t rng = 31337;
    zz_game g;
    random_game(&g, ZZ_B37, &rng, 0);
    size_t len;
    char *seed = sgf_text(&g, &len);
    zz_game_free(&g);
    char *buf = malloc(len + 64);
    int ok = 0, refused = 0;
    for (int it = 0; it < 4000; it++) {
        memcpy(buf, seed, len);
        size_t n = len;
        int edits = 1 + (int)zz_rand_below(&rng, 4);
        for (int e = 0; e < edits; e++) {
            size_t at = zz_rand_below(&rng, (uint32_t)n);
            switch (zz_rand_below(&rng, 4)) {
            case 0: buf[at] = (char)zz_rand(&rng); break;                                   /* flip a byte */
            case 1: memmove(buf + at, buf + at + 1, n - at - 1); n--; break;               /* delete */
            case 2: n = at; break;                                                         /* truncate */
            default: buf[at] = "()[];\\ PRtoBD0123456789-+"[zz_rand_below(&rng, 25)]; break;
            }
            if (n == 0) break;
        }
        char err[256] = "";
        int rc = zz_sgf_parse(buf, n, &g, err, sizeof err);
        if (rc == 0) { ok++; ck_assert_ptr_null(zz_pos_validate(&g.final)); }
        else { refused++; ck_assert(err[0] != 0); }
        zz_game_free(&g);
    }
    ck_assert_int_gt(refused, 0);
    free(buf);
    free(seed);
    /* notation parser on random strings */
    static const char alpha[] = "WGBxX abcdefghij0123456789,;";
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    for (int it = 0; it < 20000; it++) {
        char s[24];
        int n = 1 + (int)zz_rand_below(&rng, 20);
        for (int i = 0; i < n; i++) s[i] = alpha[zz_rand_below(&rng, sizeof alpha - 1)];
        s[n] = 0;
        zz_move mv[ZZ_MAX_CHAIN];
        char err[256] = "";
        int r = zz_turn_from_text(&p, s, mv, NULL, err, sizeof err);
        if (r > 0) ck_assert(zz_is_legal(&p, mv[0]));
        else ck_assert(err[0] != 0);
    }
}
END_TEST

/* zpos lines: every position of random games on every board reads back equal; known text for
 * the opening; bad lines are refused with a reason. */
START_TEST(position_strings) {
    char z[ZZ_POSSTR_MAX], err[256];
    zz_pos p, q;
    zz_pos_init(&p, ZZ_B37);
    zz_pos_to_string(&p, z);
    ck_assert_str_eq(z, "zpos:37:.....................................:6,8,10:0,0,0:0,0,0:0:-:0");
    uint64_t rng = th_seed();
    for (int game = 0; game < 60; game++) {
        zz_pos_init(&p, (zz_board_kind)(game % 3));
        while (!zz_over(&p)) {
            ck_assert_int_lt(zz_pos_to_string(&p, z), ZZ_POSSTR_MAX);
            ck_assert_msg(zz_pos_from_string(z, &q, err, sizeof err) == 0, "%s: %s", z, err);
            ck_assert_msg(zz_pos_equal(&p, &q), "%s", z);
            ck_assert_int_eq(q.ply, p.ply);
            zz_apply(&p, zz_random_move(&p, &rng), NULL);
        }
        zz_pos_to_string(&p, z);                 /* an ended game reads back ended, same winner */
        ck_assert_msg(zz_pos_from_string(z, &q, err, sizeof err) == 0, "%s: %s", z, err);
        if (p.end == ZZ_END_CAPTURE || p.end == ZZ_END_NO_MOVE) {
            ck_assert(zz_over(&q));
            ck_assert_int_eq(q.winner, p.winner);
        }
    }
    const char *bad[] = { "", "zpos", "zpos:36:", "zpos:37:....", "zpos:37:.....................................:6,8:0,0,0:0,0,0:0:-:0",
                          "zpos:37:.....................................:6,8,11:0,0,0:0,0,0:0:-:0",   /* 11 black */
                          "zpos:37:.....................................:6,8,10:0,0,0:0,0,0:2:-:0",
                          "zpos:37:.....................................:6,8,10:0,0,0:0,0,0:0:z9:0",
                          "zpos:37:.....................................:6,8,10:0,0,0:0,0,0:0:d4:0",   /* no marble */
                          "zpos:37:.....................................:6,8,10:0,0,0:0,0,0:0:-:x",
                          "zpos:37:.....................................:6,8,10:0,0,0:0,0,0:0:-:0 junk",
                          "zpos:37:....................................X:6,8,10:0,0,0:0,0,0:0:-:0",
                          "zpos:37:......................................:6,8,10:0,0,0:0,0,0:0:-:0" };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        ck_assert_msg(zz_pos_from_string(bad[i], &q, err, sizeof err) != 0, "accepted: %s", bad[i]);
        ck_assert_msg(err[0], "no reason: %s", bad[i]);
    }
}
END_TEST

static Suite *game_suite(void) {
    Suite *s = suite_create("game");
    TCase *t = tcase_create("rules");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, board_tables);
    tcase_add_test(t, board_neighbours_match_boardspace);
    tcase_add_test(t, board_cell_names);
    tcase_add_test(t, opening_move_count);
    tcase_add_test(t, capture_is_compulsory);
    tcase_add_test(t, place_landings_are_the_forced_jumps);
    tcase_add_test(t, chain_same_player_same_marble);
    tcase_add_test(t, no_removal_when_no_free_ring);
    tcase_add_test(t, isolation_credited_to_mover);
    tcase_add_test(t, isolation_cut_off_groups);
    tcase_add_test(t, full_board_goes_to_mover);
    tcase_add_test(t, marbles_from_own_captures);
    tcase_add_test(t, winning_sets);
    tcase_add_test(t, no_legal_move_loses);
    tcase_add_test(t, ply_cap_is_a_draw);
    tcase_add_test(t, random_games_stay_consistent);
    tcase_add_test(t, random_move_is_uniform);
    tcase_add_test(t, notation_examples);
    tcase_add_test(t, notation_errors);
    tcase_add_test(t, symmetry_group_sizes);
    tcase_add_test(t, symmetry_commutes_with_rules);
    tcase_add_test(t, canonical_form_includes_translation);
    tcase_add_test(t, hash_distinguishes_positions);
    tcase_add_test(t, sgf_write_read_roundtrip);
    tcase_add_test(t, sgf_mid_turn_end_roundtrip);
    tcase_add_test(t, sgf_agreed_draw_is_over);
    tcase_add_test(t, sgf_bad_input);
    tcase_add_test(t, sgf_scan_by_hand);
    tcase_add_test(t, replay_tool_messages);
    tcase_add_test(t, fuzz_parsers);
    tcase_add_test(t, position_strings);
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    return th_run(game_suite());
}
