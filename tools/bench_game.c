/* bench_game — speed of the rules engine (make bench):
 *   uniformly random legal games per second (one thread, 37/48/61 rings),
 *   legal-move generation and canonicalization in ns per position,
 *   replay of every SGF game in the Boardspace archive folder.
 * Reference figures (ENGINEERING.md §4): hiive's Rust engine 2,250 random games/s, canonicalization
 * 41 µs; targets: 50,000 games/s, canonicalization under 1 µs, archive replay in a few seconds.
 *
 *   bench_game [--quick] [--gpu] [ARCHIVE_DIR]
 *
 * Bad usage: "zertz: bench_game: OPTION: WHY", exit status 2 (tools/cli.h). */
#include "cli.h"
#include "game/sgf.h"
#include "game/sgf_files.h"
#include "game/symmetry.h"
#include "mcts/openings.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Random positions from random games, for the per-position benchmarks. */
static int sample_positions(zz_board_kind k, zz_pos *out, int n, uint64_t *rng) {
    int got = 0;
    while (got < n) {
        zz_pos p;
        zz_pos_init(&p, k);
        while (!zz_over(&p) && got < n) {
            if (zz_rand_below(rng, 4) == 0) out[got++] = p;
            zz_apply(&p, zz_random_move(&p, rng), NULL);
        }
    }
    return got;
}

int main(int argc, char **argv) {
    const char *archive = mcts_archive_dir(), *given = NULL;
    double min_secs = 1.0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--gpu")) { printf("bench_game: CPU only, nothing to do on the GPU\n"); return 0; }
        else if (!strcmp(argv[i], "--quick")) min_secs = 0.2;
        else if (cli_is_help(argv[i])) {
            printf("usage: bench_game [--quick] [--gpu] [ARCHIVE_DIR]\n"
                   "Speed of the rules engine: random games, move generation, canonical forms, archive replay.\n"
                   "  --quick       0.2 s per measure instead of 1 s\n"
                   "  --gpu         nothing to do (CPU only)\n"
                   "  ARCHIVE_DIR   the Boardspace archive (default: $ZZ_BOARDSPACE_DIR or ../shared/boardspace)\n"
                   "  -h, --help    this text\n");
            return 0;
        } else if (argv[i][0] == '-' || given) return cli_unknown("bench_game", argv[i]);
        else archive = given = argv[i];
    }
    printf("bench_game (tools/bench_game%s), one thread\n", min_secs < 1 ? " --quick" : "");
    printf("%-44s %14s %12s\n", "what", "rate", "per item");
    uint64_t rng = 0x9E3779B97F4A7C15ULL;
    static const char *names[3] = { "37", "48", "61" };
    for (int k = 0; k < 3; k++) {
        long games = 0, plies = 0;
        double t0 = now(), t;
        do {
            for (int g = 0; g < 256; g++) {
                zz_pos p;
                zz_pos_init(&p, (zz_board_kind)k);
                while (!zz_over(&p)) { zz_apply(&p, zz_random_move(&p, &rng), NULL); plies++; }
                games++;
            }
        } while ((t = now() - t0) < min_secs);
        char what[64];
        snprintf(what, sizeof what, "random games, %s rings (%.1f plies/game)", names[k], (double)plies / (double)games);
        printf("%-44s %10.0f g/s %9.2f us\n", what, (double)games / t, 1e6 * t / (double)games);
    }
    enum { NPOS = 4096 };
    static zz_pos pos[NPOS];
    static zz_move mv[ZZ_MAX_MOVES];
    for (int k = 0; k < 3; k++) {
        sample_positions((zz_board_kind)k, pos, NPOS, &rng);
        long n = 0, moves = 0;
        double t0 = now(), t;
        do { for (int i = 0; i < NPOS; i++) moves += zz_gen_moves(&pos[i], mv); n += NPOS; } while ((t = now() - t0) < min_secs);
        char what[64];
        snprintf(what, sizeof what, "move generation, %s rings (%.0f moves/pos)", names[k], (double)moves / (double)n);
        printf("%-44s %10.2f M/s %9.1f ns\n", what, (double)n / t / 1e6, 1e9 * t / (double)n);
        n = 0;
        uint64_t sink = 0;
        t0 = now();
        do { for (int i = 0; i < NPOS; i++) sink ^= zz_canonical_hash(&pos[i]); n += NPOS; } while ((t = now() - t0) < min_secs);
        snprintf(what, sizeof what, "canonical form + hash, %s rings", names[k]);
        printf("%-44s %10.2f M/s %9.1f ns%s\n", what, (double)n / t / 1e6, 1e9 * t / (double)n, sink == 42 ? " " : "");
        n = 0;
        t0 = now();
        do {
            for (int i = 0; i < NPOS; i++) { zz_pos c; zz_canonical(&pos[i], &c, NULL); sink ^= (uint64_t)c.rings; }
            n += NPOS;
        } while ((t = now() - t0) < min_secs);
        snprintf(what, sizeof what, "canonical form only, %s rings", names[k]);
        printf("%-44s %10.2f M/s %9.1f ns%s\n", what, (double)n / t / 1e6, 1e9 * t / (double)n, sink == 42 ? " " : "");
    }
    zz_file_list files = { 0 };
    char err[512], sgfdir[1024];
    snprintf(sgfdir, sizeof sgfdir, "%s/sgf", archive);
    if (zz_file_list_add(&files, sgfdir, err, sizeof err) < 0) {
        printf("%-44s %s\n", "archive replay", "skipped: no archive (set ZZ_BOARDSPACE_DIR)");
    } else {
        int ok = 0;
        double t0 = now();
        for (int i = 0; i < files.n; i++) {
            zz_game g;
            ok += zz_sgf_read_file(files.paths[i], &g, err, sizeof err) == 0;
            zz_game_free(&g);
        }
        double t = now() - t0;
        char what[64];
        snprintf(what, sizeof what, "replay %d archive games (%d ok)", files.n, ok);
        printf("%-44s %10.0f g/s %9.3f s total\n", what, files.n / t, t);
    }
    zz_file_list_free(&files);
    printf("references: hiive Rust 2,250 random games/s (37 rings), canonicalization 41 us\n");
    return 0;
}
