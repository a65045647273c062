/* test_mcts_openings.c — openings from the Boardspace archive (src/mcts/openings.h): a small
 * archive written here, read by hand (which games count, duplicates counted once, the order a
 * seed gives), bad archives refused with their file and line, the real archive's counts, and
 * tools/strength and tools/arena with --openings archive. */
#include "helpers.h"
#include "game/notation.h"
#include "mcts/openings.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A folder with normalized/37.jsonl holding text; its path in dir (a mkdtemp template). */
static void write_archive(char *dir, const char *text) {
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/normalized", dir);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/normalized/37.jsonl", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void remove_archive(const char *dir) {
    char path[256];
    snprintf(path, sizeof path, "%s/normalized/37.jsonl", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/normalized", dir);
    rmdir(path);
    rmdir(dir);
}

/* An opening in notation, turns joined by "; ". */
static void opening_text(const mcts_opening *o, char *out, size_t len) {
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    out[0] = '\0';
    for (int i = 0; i < o->n; i++) {
        char t[ZZ_NOTATION_MAX];
        zz_move_to_text(&p, o->moves[i], t);
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? "; " : "", t);
        zz_apply(&p, o->moves[i], NULL);
    }
}

/* Six lines: two games that share their first two turns, an unclean game, a game of two turns,
 * a blank line, and one more game.  By hand: two turns give 2 openings (the shared one once; the
 * unclean game and the two-turn game do not count), one turn gives 3 (the two-turn game goes on
 * after its first), three turns none (no game goes on after three). */
static const char *SMALL =
    "{\"clean\":1,\"moves\":[[0,\"We4,a4\"],[1,\"Gd1,b5\"],[0,\"Gb2,e1\"]]}\n"
    "{\"clean\":1,\"moves\":[[0,\"We4,a4\"],[1,\"Gd1,b5\"],[0,\"Bd2,a1\"]]}\n"
    "{\"clean\":0,\"moves\":[[0,\"Gc4,e1\"],[1,\"Gc3,g2\"],[0,\"x c3Gc5\"]]}\n"
    "{\"clean\":1,\"moves\":[[0,\"Wd4,d1\"],[1,\"Bc3,g1\"]]}\n"
    "\n"
    "{\"clean\":1,\"moves\":[[0,\"Bb1,f5\"],[1,\"Bd1,c6\"],[0,\"Wa1,d7\"]]}\n";

START_TEST(small_archive_by_hand) {
    char dir[] = "/tmp/zz-openings-XXXXXX", err[1400], text[512];
    write_archive(dir, SMALL);
    mcts_opening op[8];
    ck_assert_int_eq(mcts_openings_archive(dir, ZZ_B37, 2, 8, 1, op, err, sizeof err), 2);
    bool seen_a = false, seen_b = false;
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(op[i].n, 2);
        opening_text(&op[i], text, sizeof text);
        seen_a |= !strcmp(text, "We4,a4; Gd1,b5");
        seen_b |= !strcmp(text, "Bb1,f5; Bd1,c6");
    }
    ck_assert(seen_a && seen_b);
    ck_assert_int_eq(mcts_openings_archive(dir, ZZ_B37, 1, 8, 1, op, err, sizeof err), 3);
    ck_assert_int_eq(mcts_openings_archive(dir, ZZ_B37, 3, 8, 1, op, err, sizeof err), 0);
    ck_assert_int_eq(mcts_openings_archive(dir, ZZ_B37, 1, 2, 1, op, err, sizeof err), 2);    /* n caps */
    /* the board's own file: no 48-ring file here */
    ck_assert_int_eq(mcts_openings_archive(dir, ZZ_B48, 2, 8, 1, op, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "normalized/48.jsonl: cannot open"), "%s", err);
    ck_assert_int_eq(mcts_openings_archive(dir, ZZ_B37, 0, 8, 1, op, err, sizeof err), -1);
    ck_assert_int_eq(mcts_openings_archive(dir, ZZ_B37, 9, 8, 1, op, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "turns must be 1 to 8"), "%s", err);
    remove_archive(dir);
}
END_TEST

/* A line that is not a game, and a turn that is not legal, are refused with file and line. */
START_TEST(bad_archives_refused) {
    char dir[] = "/tmp/zz-openings-XXXXXX", err[1400];
    mcts_opening op[8];
    write_archive(dir, "{\"clean\":1,\"moves\":[[0,\"We4,a4\"],[1,\"Gd1,b5\"],[0,\"Gb2,e1\"]]}\nnot json\n");
    ck_assert_int_eq(mcts_openings_archive(dir, ZZ_B37, 2, 8, 1, op, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "normalized/37.jsonl:2: not a game object"), "%s", err);
    remove_archive(dir);

    char dir2[] = "/tmp/zz-openings-XXXXXX";
    write_archive(dir2, "{\"clean\":1,\"moves\":[[0,\"We4,a4\"],[1,\"Gd1,a4\"],[0,\"Gb2,e1\"]]}\n");
    ck_assert_int_eq(mcts_openings_archive(dir2, ZZ_B37, 2, 8, 1, op, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "normalized/37.jsonl:1: turn 2: "), "%s", err);   /* a4 is gone */
    remove_archive(dir2);

    ck_assert_int_eq(mcts_openings_archive("/nonexistent", ZZ_B37, 2, 8, 1, op, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "/nonexistent/normalized/37.jsonl: cannot open"), "%s", err);
}
END_TEST

/* The real archive: the distinct two-turn openings of its clean games that go on after them,
 * counted independently by a Python pass over the normalized jsonl files (a set of each game's first two
 * notation texts): 7,075 on 37 rings, 2,792 on 48 and 1,757 on 61.  The archive's first game
 * (babou against Dumbot, 2001) opened "We4,a4; Gd1,b5".  Every opening is legal and distinct; a
 * seed fixes the order, and asking for fewer gives the first ones of that order. */
START_TEST(real_archive_counts) {
    const char *arch = th_archive_dir();
    if (!arch) { th_skip("mcts_openings", "no Boardspace archive: its openings not counted"); return; }
    static mcts_opening all[8000], again[8000];
    char err[1400], text[512];
    static const int want[3] = { 7075, 2792, 1757 };
    for (int b = 0; b < 3; b++)
        ck_assert_int_eq(mcts_openings_archive(arch, (zz_board_kind)b, 2, 8000, 5, all, err, sizeof err), want[b]);
    ck_assert_int_eq(mcts_openings_archive(arch, ZZ_B37, 2, 8000, 5, all, err, sizeof err), 7075);
    bool first = false;
    for (int i = 0; i < 7075; i++) {
        zz_pos p;
        zz_pos_init(&p, ZZ_B37);
        for (int k = 0; k < all[i].n; k++) {
            ck_assert(zz_is_legal(&p, all[i].moves[k]));
            zz_apply(&p, all[i].moves[k], NULL);
        }
        ck_assert(!zz_over(&p));
        opening_text(&all[i], text, sizeof text);
        first |= !strcmp(text, "We4,a4; Gd1,b5");
    }
    ck_assert(first);
    ck_assert_int_eq(mcts_openings_archive(arch, ZZ_B37, 2, 20, 5, again, err, sizeof err), 20);
    ck_assert(memcmp(again, all, 20 * sizeof *all) == 0);          /* a prefix of the seed's order */
    ck_assert_int_eq(mcts_openings_archive(arch, ZZ_B37, 2, 20, 6, again, err, sizeof err), 20);
    ck_assert(memcmp(again, all, 20 * sizeof *all) != 0);          /* another seed, another order */
    qsort(all, 7075, sizeof *all, mcts_opening_cmp);
    for (int i = 1; i < 7075; i++) ck_assert(mcts_opening_cmp(&all[i - 1], &all[i]) != 0);
}
END_TEST

/* tools/strength --openings archive: the ladder's line names them; bad options are refused. */
START_TEST(strength_takes_archive_openings) {
    char dir[] = "/tmp/zz-openings-XXXXXX", args[512];
    static char out[1 << 16], err[1 << 14];
    write_archive(dir, SMALL);
    snprintf(args, sizeof args, "--net uniform --vs random --sims 1 --games 4 --parallel 1 --early-stop 0 "
             "--openings archive --archive %s", dir);
    int st = th_run_tool("mcts_openings", "strength", args, 60, out, sizeof out, err, sizeof err);
    if (st >= 0) {
        ck_assert_msg(st == 0, "%s", err);
        ck_assert_msg(strstr(out, "4 games per opponent from 2 openings (2 Boardspace turns each, both colours)"),
                      "%s", out);
        ck_assert_msg(strstr(out, "| random (`random`) | 4 | 4 |"), "%s", out);
        ck_assert_int_eq(th_run_tool("mcts_openings", "strength", "--openings book", 20, out, sizeof out, err,
                                     sizeof err), 2);
        ck_assert_msg(strstr(err, "expected random or archive"), "%s", err);
        snprintf(args, sizeof args, "--archive %s", dir);
        ck_assert_int_eq(th_run_tool("mcts_openings", "strength", args, 20, out, sizeof out, err, sizeof err), 2);
        ck_assert_msg(strstr(err, "only with --openings archive"), "%s", err);
        ck_assert_int_eq(th_run_tool("mcts_openings", "strength", "--net uniform --openings archive --archive "
                                     "/nonexistent --games 2", 20, out, sizeof out, err, sizeof err), 2);
        ck_assert_msg(strstr(err, "cannot open"), "%s", err);
        ck_assert_int_eq(th_run_tool("mcts_openings", "strength", "--openings archive --opening-plies 0", 20, out,
                                     sizeof out, err, sizeof err), 2);
    }
    remove_archive(dir);
}
END_TEST

/* tools/arena --openings archive: the same openings; none of that length, and bad options, refused. */
START_TEST(arena_takes_archive_openings) {
    char dir[] = "/tmp/zz-openings-XXXXXX", args[512];
    static char out[1 << 16], err[1 << 14];
    write_archive(dir, SMALL);
    snprintf(args, sizeof args, "random random --games 4 --quiet --openings archive --archive %s", dir);
    int st = th_run_tool("mcts_openings", "arena", args, 60, out, sizeof out, err, sizeof err);
    if (st >= 0) {
        ck_assert_msg(st == 0, "%s", err);
        ck_assert_msg(strstr(out, "2 openings of 2 Boardspace turns"), "%s", out);
        snprintf(args, sizeof args, "random random --games 4 --openings archive --opening-plies 3 --archive %s", dir);
        ck_assert_int_eq(th_run_tool("mcts_openings", "arena", args, 20, out, sizeof out, err, sizeof err), 2);
        ck_assert_msg(strstr(err, "no opening of that length exists"), "%s", err);
        snprintf(args, sizeof args, "random random --archive %s", dir);
        ck_assert_int_eq(th_run_tool("mcts_openings", "arena", args, 20, out, sizeof out, err, sizeof err), 2);
        ck_assert_msg(strstr(err, "zertz: arena: --archive: only with --openings archive"), "%s", err);
        ck_assert_int_eq(th_run_tool("mcts_openings", "arena", "random random --openings archive --archive /nonexistent",
                                     20, out, sizeof out, err, sizeof err), 2);
        ck_assert_msg(strstr(err, "cannot open"), "%s", err);
    }
    remove_archive(dir);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("mcts_openings");
    TCase *t = tcase_create("openings");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, small_archive_by_hand);
    tcase_add_test(t, bad_archives_refused);
    tcase_add_test(t, real_archive_counts);
    tcase_add_test(t, strength_takes_archive_openings);
    tcase_add_test(t, arena_takes_archive_openings);
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    return th_run(suite());
}
