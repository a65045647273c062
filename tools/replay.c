/* replay — replay Boardspace SGF game records with our rules and print one line per game
 * (Zertz, Zertz+11, Zertz+24 and Zertz+H with the bitboard engine; Zertz+xx, Zèrtz Extreme, with
 * its array-based replay, game/xx.h).
 *
 *   tools/replay [--check [MANIFEST]] [--moves] [--quiet] FILE|DIR...
 *
 * A game that cannot be replayed is reported on stderr as "zertz: replay: PATH: line N: why", a
 * game that differs from the manifest as "zertz: replay: PATH: differs from the manifest: why"
 * (games the manifest marks not clean, refused as expected, are a line on stdout).  With --check,
 * each game is also compared with manifest.csv (found beside the sgf/ folder, or given), and the
 * exit status is non-zero when any clean game differs (Zertz+H and Zertz+xx games, never clean
 * because of their set-up, are compared too: zz_manifest_checkable).  A known, explained difference
 * (a record whose set-up SetBoards another board than the manifest's: zz_manifest_compare_counts)
 * is reported on stdout, counted apart in the summary, and does not fail.  Bad usage: "zertz: replay: WHAT: WHY",
 * exit status 2 (tools/cli.h). */
#include "cli.h"
#include "game/manifest.h"
#include "game/sgf.h"
#include "game/sgf_files.h"
#include "game/xx.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const TOOL = "replay";

static void usage(FILE *f) {
    fprintf(f,
            "usage: replay [options] FILE|DIR...\n"
            "Replays Boardspace SGF records (folders are searched for *.sgf) and prints, per game,\n"
            "the board, turns, result, captures and pool; or the line and reason it fails.\n"
            "Every variant: Zertz (37 rings), Zertz+11 (48), Zertz+24 (61), Zertz+H (handicap set-up)\n"
            "and Zertz+xx (Extreme: the rings the players set up on a 17x12 grid).\n"
            "  --check [MANIFEST]  compare with the archive's manifest.csv (clean games, and every\n"
            "                      Zertz+H and Zertz+xx game; default: the manifest.csv\n"
            "                      in the folder that holds sgf/ for each file, else in the current\n"
            "                      folder); MANIFEST is taken when it ends in .csv\n"
            "  --moves             also print every turn in official notation\n"
            "  --quiet             print only problems and the summary\n"
            "  -h, --help          this text\n"
            "Records that fail and games that differ from the manifest are reported on stderr\n"
            "(\"zertz: replay: PATH: ...\"); the exit status is then 1.  A known, explained difference\n"
            "(a record that SetBoards another board than the manifest says) is reported on stdout\n"
            "and counted apart; it does not fail.\n");
}

/* p as an absolute path (the current folder before a relative one), for messages. */
static void absolute(const char *p, char *out, size_t outlen) {
    char cwd[1024];
    if (p[0] == '/' || !getcwd(cwd, sizeof cwd)) snprintf(out, outlen, "%s", p);
    else snprintf(out, outlen, "%s/%s", cwd, p);
}

/* The manifest beside the sgf/ folder that holds path (e.g. X/sgf/37/2006/a.sgf -> X/manifest.csv). */
static int guess_manifest(const char *path, char *out, size_t outlen) {
    const char *s = strstr(path, "sgf/"), *last = NULL;
    while (s) { if (s == path || s[-1] == '/') last = s; s = strstr(s + 1, "sgf/"); }
    if (!last) return -1;
    snprintf(out, outlen, "%.*smanifest.csv", (int)(last - path), path);
    return 0;
}

/* What the command line asked for. */
typedef struct replay_options {
    bool check, moves, quiet;
    const char *manifest_path;     /* --check's MANIFEST, or NULL: guessed per file */
} replay_options;

/* The games counted by outcome, for the summary line. */
typedef struct replay_tally {
    int ok, known, failed, mismatched, unlisted, expected_fail;
    int unlisted_ok;               /* --check: replayed, but not in the manifest (not in ok) */
} replay_tally;

/* The manifest that --check compares each file with, loaded once per distinct path. */
typedef struct manifest_cache {
    zz_manifest man;
    char loaded[1024];             /* the path man was read from ("" when none yet) */
} manifest_cache;

/* The manifest comparison's outcome (cmp: zz_manifest_compare's 0, 1 or -1) counted, reported and
 * as the tag that ends the game's line.  A difference goes to stderr; a known, explained one is
 * a line on stdout, with --quiet too (it is not an error, and not an agreement either).  With
 * --check, a game the manifest does not list is counted apart, not as agreeing. */
static void verdict(const zz_manifest_row *row, int cmp, const char *why, const char *path, const replay_options *o,
                    char *tag, size_t taglen, replay_tally *t) {
    if (!row) snprintf(tag, taglen, "%s", "");
    else if (!zz_manifest_checkable(row)) snprintf(tag, taglen, " [not clean in manifest]");
    else if (cmp == 0) snprintf(tag, taglen, " [manifest ok]");
    else if (cmp > 0) snprintf(tag, taglen, " [manifest differs, known: %s]", why);
    else snprintf(tag, taglen, " [differs from the manifest]");
    if (cmp < 0) {
        t->mismatched++;
        fprintf(stderr, "zertz: %s: %s: differs from the manifest: %s\n", TOOL, path, why);
    } else if (cmp > 0) {
        t->known++;
        if (o->quiet) printf("%s: a known, explained difference from the manifest: %s\n", path, why);
    } else if (o->check && !row) {
        t->unlisted_ok++;
    } else {
        t->ok++;
    }
}

/* A record that could not be replayed (err): refused as expected when the manifest marks it not
 * clean (a line on stdout), else a failure (stderr). */
static void refused(const zz_manifest_row *row, const char *err, bool quiet, replay_tally *t) {
    if (row && !zz_manifest_checkable(row)) {
        t->expected_fail++;
        if (!quiet) printf("ERROR (not clean: %s) %s\n", row->flags, err);
    } else {
        t->failed++;
        fprintf(stderr, "zertz: %s: %s\n", TOOL, err);
    }
}

/* --check: path's manifest row (NULL when it is not listed, counted as such) in *row.  -1 when
 * the manifest cannot be read (reported). */
static int manifest_row(manifest_cache *mc, const replay_options *o, const char *path,
                        const zz_manifest_row **row, replay_tally *t) {
    char mp[1024], full[2100], err[512];
    if (o->manifest_path) snprintf(mp, sizeof mp, "%s", o->manifest_path);
    else if (guess_manifest(path, mp, sizeof mp) < 0) snprintf(mp, sizeof mp, "manifest.csv");
    if (strcmp(mp, mc->loaded) != 0) {
        zz_manifest_free(&mc->man);
        absolute(mp, full, sizeof full);
        if (zz_manifest_load(full, &mc->man, err, sizeof err) < 0) {
            fprintf(stderr, "zertz: %s: --check: %s\n", TOOL, err);
            return -1;
        }
        snprintf(mc->loaded, sizeof mc->loaded, "%s", mp);
    }
    *row = zz_manifest_find(&mc->man, path);
    if (!*row) t->unlisted++;
    return 0;
}

/* A replayed Zertz+xx game: compared with its manifest row (when checkable) and printed. */
static void report_xx(const char *path, const zz_xx_game *xg, const zz_manifest_row *row, const replay_options *o,
                      replay_tally *t) {
    const zz_xx_pos *f = &xg->final;
    zz_manifest_counts mc;
    memset(&mc, 0, sizeof mc);
    memcpy(mc.cap, f->cap, sizeof mc.cap);
    memcpy(mc.pool, f->pool, sizeof mc.pool);
    mc.end = xg->end;
    mc.winner = xg->winner;
    mc.turns = xg->nturns + (xg->end == ZZ_END_RESIGN);
    mc.first_player = xg->first_player;
    mc.board_rings = 0;                   /* a custom board */
    for (int c = 0; c < ZZ_XX_CELLS; c++) {
        mc.rings_left += f->cell[c] != ZZ_XX_NONE;
        mc.marbles_on_board += f->cell[c] >= 2;       /* 2 + colour: a marble on a ring */
    }
    char why[256] = "", tag[320];
    int cmp = row && zz_manifest_checkable(row) ? zz_manifest_compare_counts(row, &mc, why, sizeof why) : 0;
    verdict(row, cmp, why, path, o, tag, sizeof tag, t);
    if (o->quiet) return;
    char who[32] = "no winner";
    if (xg->winner >= 0) snprintf(who, sizeof who, "winner P%d", xg->winner);
    printf("%s: Zertz+xx, %d rings set up (%d left)%s, %d turns, %s by %s; captures P0 %d/%d/%d P1 %d/%d/%d; pool %d/%d/%d%s\n",
           path, xg->setup_rings, mc.rings_left, xg->swapped ? ", swapped" : "", xg->nturns, who, zz_end_name(xg->end),
           f->cap[0][0], f->cap[0][1], f->cap[0][2], f->cap[1][0], f->cap[1][1], f->cap[1][2], f->pool[0],
           f->pool[1], f->pool[2], tag);
    if (o->moves)
        for (int k = 0; k < xg->nturns; k++) printf("  %3d %s\n", k + 1, xg->text[k]);
}

/* A replayed game of the bitboard engine: compared with its manifest row (when checkable) and
 * printed. */
static void report_game(const char *path, const zz_game *g, const zz_manifest_row *row, const replay_options *o,
                        replay_tally *t) {
    const zz_pos *f = &g->final;
    char why[256] = "", tag[320];
    int cmp = row && zz_manifest_checkable(row) ? zz_manifest_compare(row, g, why, sizeof why) : 0;
    verdict(row, cmp, why, path, o, tag, sizeof tag, t);
    if (o->quiet) return;
    char who[32] = "no winner";
    if (g->winner >= 0) snprintf(who, sizeof who, "winner P%d", g->winner);
    printf("%s: %d rings, %d turns, %s by %s; captures P0 %d/%d/%d P1 %d/%d/%d; pool %d/%d/%d%s\n", path,
           zz_board_get(g->board)->rings, g->nturns, who, zz_end_name(g->end), f->cap[0][0], f->cap[0][1], f->cap[0][2],
           f->cap[1][0], f->cap[1][1], f->cap[1][2], f->pool[0], f->pool[1], f->pool[2], tag);
    if (o->moves)
        for (int k = 0; k < g->nturns; k++) printf("  %3d P%d %s\n", k + 1, g->turns[k].player, g->turns[k].text);
}

/* One record replayed, as Zertz+xx (game/xx.h) when it is one, else with the bitboard engine. */
static void replay_file(const char *path, const zz_manifest_row *row, const replay_options *o, replay_tally *t) {
    char err[512];
    zz_xx_game xg;
    int xrc = zz_xx_read_file(path, &xg, err, sizeof err);
    if (xrc < 0) refused(row, err, o->quiet, t);
    else if (xrc == 0) report_xx(path, &xg, row, o, t);
    zz_xx_game_free(&xg);
    if (xrc != 1) return;
    zz_game g;
    if (zz_sgf_read_file(path, &g, err, sizeof err) < 0) refused(row, err, o->quiet, t);
    else report_game(path, &g, row, o, t);
    zz_game_free(&g);
}

/* The options and files of the command line: 0, or the exit status of bad usage (reported). */
static int parse_args(int argc, char **argv, replay_options *o, zz_file_list *files, bool *help) {
    char err[512];
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) { *help = true; return 0; }
        else if (!strcmp(argv[i], "--check")) {
            o->check = true;
            size_t nl = i + 1 < argc ? strlen(argv[i + 1]) : 0;       /* ends in .csv, as --help says */
            if (nl > 4 && !strcmp(argv[i + 1] + nl - 4, ".csv")) o->manifest_path = argv[++i];
        } else if (!strcmp(argv[i], "--moves")) o->moves = true;
        else if (!strcmp(argv[i], "--quiet")) o->quiet = true;
        else if (argv[i][0] == '-') return cli_unknown(TOOL, argv[i]);
        else if (zz_file_list_add(files, argv[i], err, sizeof err) < 0) {
            fprintf(stderr, "zertz: %s: %s\n", TOOL, err);
            return 2;
        }
    }
    if (!files->n) return cli_bad(TOOL, "FILE|DIR", "no SGF files given (see replay --help)");
    return 0;
}

int main(int argc, char **argv) {
    replay_options o = { 0 };
    zz_file_list files = { 0 };
    bool help = false;
    int rc = parse_args(argc, argv, &o, &files, &help);
    if (help) usage(stdout);
    if (rc != 0 || help) { zz_file_list_free(&files); return rc; }
    manifest_cache mc = { 0 };
    replay_tally t = { 0 };
    clock_t t0 = clock();
    for (int i = 0; i < files.n && rc == 0; i++) {
        const zz_manifest_row *row = NULL;
        if (o.check && manifest_row(&mc, &o, files.paths[i], &row, &t) != 0) rc = 2;
        else replay_file(files.paths[i], row, &o, &t);
    }
    if (rc == 0) {
        double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
        printf("replay: %d games: %d replayed%s", files.n, t.ok, o.check ? " and agree" : "");
        if (t.known) printf(", %d with a known, explained difference from the manifest", t.known);
        printf(", %d mismatched, %d failed", t.mismatched, t.failed);
        if (o.check)
            printf(", %d not-clean games refused with a reason, %d not in the manifest (%d of them replayed)", t.expected_fail,
                   t.unlisted, t.unlisted_ok);
        printf(" (%.2f s)\n", secs);
        rc = (t.mismatched || t.failed) ? 1 : 0;
    }
    zz_manifest_free(&mc.man);
    zz_file_list_free(&files);
    return rc;
}
