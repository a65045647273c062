/* bench_ab.c — alpha-beta speed: nodes per second of the ab searcher (src/mcts/ab.h) at depths
 * 1 to --depth on the 37-, 48- and 61-ring openings and two 37-ring midgame positions (two random
 * plies from a fixed seed, then the moves of a depth-2 self-play game, on to a quiet position with
 * a choice of at least 20 moves).
 *
 *   bench_ab [--depth N] [--quick]      (depths: openings to 4 / 3 / 3 at most, midgames to 6)
 *
 * Each search starts from a cleared table (iterative deepening from depth 1 is part of it); each
 * figure is the best of a few runs, to shave off noise from a shared machine.  Prints a table and
 * the command that produced it.  Bad usage: "zertz: bench_ab: OPTION: WHY", exit status 2. */
#include "cli.h"
#include "mcts/ab.h"
#include <stdio.h>
#include <string.h>

typedef struct bench_pos {
    zz_board_kind board;
    int plies;                  /* plies from the opening, at least */
    int deepest;                /* depths 1..min(--depth, deepest): an opening's depth 5 takes hours */
} bench_pos;

static const bench_pos POSITIONS[] = {
    { ZZ_B37, 0, 4 }, { ZZ_B37, 8, 6 }, { ZZ_B37, 16, 6 }, { ZZ_B48, 0, 3 }, { ZZ_B61, 0, 3 },
};

/* The position: two random plies and a depth-2 self-play game for `plies` plies, then on until it
 * is quiet with at least 20 moves (40 more at most), never past the end; its name into name. */
static void make_pos(mcts_ab *s, const bench_pos *b, zz_pos *p, char *name, size_t len) {
    zz_pos_init(p, b->board);
    uint64_t rng = 0x5EED0AB1ULL;
    for (int i = 0; i < b->plies + 40; i++) {
        if (i >= b->plies && !zz_must_capture(p) && zz_count_moves(p) >= 20) break;
        mcts_ab_result r;
        zz_pos q = *p;
        if (i < 2 || mcts_ab_search(s, p, 2, 0, &r) != 0) r.move = zz_random_move(p, &rng);
        zz_apply(&q, r.move, NULL);
        if (zz_over(&q)) break;
        *p = q;
    }
    int rings = zz_pos_board(p)->rings;
    if (p->ply == 0) snprintf(name, len, "%d-ring opening", rings);
    else snprintf(name, len, "%d-ring, ply %d of a game", rings, p->ply);
}

/* The fastest of `reps` searches to depth: its result in *best. */
static int bench_one(mcts_ab *s, const zz_pos *p, int depth, int reps, mcts_ab_result *best) {
    memset(best, 0, sizeof *best);
    for (int r = 0; r < reps; r++) {
        mcts_ab_result res;
        mcts_ab_clear(s, 0);
        if (mcts_ab_search(s, p, depth, 0, &res) != 0) return -1;
        if (r == 0 || res.seconds < best->seconds) *best = res;
    }
    return 0;
}

static int usage(void) {
    printf("usage: bench_ab [--depth N] [--quick] [--gpu]\n"
           "Alpha-beta speed (src/mcts/ab.h): nodes per second at depths 1..N on the 37-, 48- and\n"
           "61-ring openings (to depth 4, 3 and 3 at most) and two 37-ring midgame positions (to\n"
           "depth 6); best of 3 runs, a cleared table each.\n"
           "  --depth N     deepest search, 1..6 (default 4)\n"
           "  --quick       depths 1..2, one run each\n"
           "  --gpu         nothing to do (search is CPU code)\n"
           "  -h, --help    this text\n");
    return 0;
}

int main(int argc, char **argv) {
    int depth = 4, reps = 3;
    long v;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) return usage();
        if (!strcmp(a, "--depth")) {
            if (!cli_long_opt("bench_ab", argc, argv, &i, 1, 6, &v)) return 2;
            depth = (int)v;
        } else if (!strcmp(a, "--quick")) { depth = 2; reps = 1; }
        else if (!strcmp(a, "--gpu")) { printf("bench_ab: no GPU part (search is CPU code)\n"); return 0; }
        else return cli_unknown("bench_ab", a);
    }
    mcts_ab_config c;
    mcts_ab_config_default(&c);
    mcts_ab *s = mcts_ab_new(&c);
    if (!s) { fprintf(stderr, "zertz: bench_ab: out of memory\n"); return 1; }
    printf("bench_ab: alpha-beta speed, 1 thread (best of %d runs, cleared table each)\n", reps);
    printf("command: bench_ab --depth %d%s\n", depth, reps == 1 ? " (--quick)" : "");
    printf("%-36s %6s %6s %12s %10s %14s\n", "position", "moves", "depth", "nodes", "seconds", "nodes/s");
    for (unsigned k = 0; k < sizeof POSITIONS / sizeof *POSITIONS; k++) {
        zz_pos p;
        char name[64];
        make_pos(s, &POSITIONS[k], &p, name, sizeof name);
        for (int d = 1; d <= depth && d <= POSITIONS[k].deepest; d++) {
            mcts_ab_result r;
            if (bench_one(s, &p, d, reps, &r) != 0) { fprintf(stderr, "zertz: bench_ab: search failed\n"); return 1; }
            printf("%-36s %6d %6d %12llu %10.4f %14.0f\n", d == 1 ? name : "", zz_count_moves(&p), d,
                   (unsigned long long)r.nodes, r.seconds, r.seconds > 0 ? (double)r.nodes / r.seconds : 0.0);
        }
    }
    mcts_ab_free(s);
    return 0;
}
