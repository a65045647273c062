/* bench_ab.c — alpha-beta speed: nodes per second of the ab searcher (src/mcts/ab.h) at depths
 * 1 to --depth on the 37-, 48- and 61-ring openings and two 37-ring midgame positions (two random
 * plies from a fixed seed, then the moves of a depth-2 self-play game, on to a quiet position with
 * a choice of at least 20 moves).  Then the depth a search completes in a time (the guard's
 * question, guard.h): the whole root in T ms and in 8T/3 ms (375 and 1,000 by default: the
 * guard's and `ab`'s shares of a 1 s move), and four root moves only (mcts_ab_search_among:
 * the whole root's best and three spread over the move list) in T ms, on middle games of each
 * board.
 *
 *   bench_ab [--depth N] [--among-ms T] [--quick]   (depths: openings to 4 / 3 / 3 at most,
 *                                                   midgames to 6)
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

static const bench_pos AMONG_POSITIONS[] = {
    { ZZ_B37, 12, 0 }, { ZZ_B48, 8, 0 }, { ZZ_B48, 16, 0 }, { ZZ_B61, 8, 0 }, { ZZ_B61, 16, 0 },
};

/* The depth completed by a search of p in ms: the whole root, or (among) four root moves only,
 * the whole root's best (*best, from a whole-root search before) first. */
static int depth_in(mcts_ab *s, const zz_pos *p, double ms, bool among, zz_move *best) {
    mcts_ab_result r;
    mcts_ab_clear(s, 0);
    if (!among) {
        if (mcts_ab_search(s, p, MCTS_AB_MAX_DEPTH, ms, &r) != 0) return -1;
        *best = r.move;
        return r.depth;
    }
    zz_move mv[ZZ_MAX_MOVES], cand[4] = { *best };
    int n = zz_gen_moves(p, mv), k = 1, first;
    for (int i = 1; i <= 3 && k < 4; i++)
        if (mv[i * n / 4] != *best) cand[k++] = mv[i * n / 4];
    if (mcts_ab_search_among(s, p, cand, k, MCTS_AB_MAX_DEPTH, ms, false, &r, &first) != 0) return -1;
    return r.depth;
}

/* The depth table: whole root in ms and 8ms/3, four moves in ms. */
static int among_table(mcts_ab *s, double ms) {
    printf("\ndepth completed in a time (the guard among PUCT's best, guard.h): whole root / 4 root moves\n");
    printf("%-36s %6s %12s %12s %12s\n", "position", "moves", "whole root", "whole root", "4 moves");
    printf("%-36s %6s %9.0f ms %9.0f ms %9.0f ms\n", "", "", ms, ms * 8 / 3, ms);
    for (unsigned k = 0; k < sizeof AMONG_POSITIONS / sizeof *AMONG_POSITIONS; k++) {
        zz_pos p;
        char name[64];
        zz_move best = ZZ_MOVE_NONE;
        make_pos(s, &AMONG_POSITIONS[k], &p, name, sizeof name);
        int d_long = depth_in(s, &p, ms * 8 / 3, false, &best), d_short = depth_in(s, &p, ms, false, &best);
        int d_among = depth_in(s, &p, ms, true, &best);
        if (d_long < 0 || d_short < 0 || d_among < 0) { fprintf(stderr, "zertz: bench_ab: search failed\n"); return -1; }
        printf("%-36s %6d %12d %12d %12d\n", name, zz_count_moves(&p), d_short, d_long, d_among);
    }
    return 0;
}

static int usage(void) {
    printf("usage: bench_ab [--depth N] [--among-ms T] [--quick] [--gpu]\n"
           "Alpha-beta speed (src/mcts/ab.h): nodes per second at depths 1..N on the 37-, 48- and\n"
           "61-ring openings (to depth 4, 3 and 3 at most) and two 37-ring midgame positions (to\n"
           "depth 6); best of 3 runs, a cleared table each.  Then the depth completed in a time on\n"
           "middle games: the whole root in T and 8T/3 ms, four root moves in T ms.\n"
           "  --depth N     deepest search, 1..6 (default 4)\n"
           "  --among-ms T  the depth table's time, 10..10000 ms (default 375)\n"
           "  --quick       depths 1..2, one run each; the depth table at 40 ms\n"
           "  --gpu         nothing to do (search is CPU code)\n"
           "  -h, --help    this text\n");
    return 0;
}

int main(int argc, char **argv) {
    int depth = 4, reps = 3;
    long v, among_ms = 375;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) return usage();
        if (!strcmp(a, "--depth")) {
            if (!cli_long_opt("bench_ab", argc, argv, &i, 1, 6, &v)) return 2;
            depth = (int)v;
        } else if (!strcmp(a, "--among-ms")) {
            if (!cli_long_opt("bench_ab", argc, argv, &i, 10, 10000, &v)) return 2;
            among_ms = v;
        } else if (!strcmp(a, "--quick")) { depth = 2; reps = 1; among_ms = 40; }
        else if (!strcmp(a, "--gpu")) { printf("bench_ab: no GPU part (search is CPU code)\n"); return 0; }
        else return cli_unknown("bench_ab", a);
    }
    mcts_ab_config c;
    mcts_ab_config_default(&c);
    mcts_ab *s = mcts_ab_new(&c);
    if (!s) { fprintf(stderr, "zertz: bench_ab: out of memory\n"); return 1; }
    printf("bench_ab: alpha-beta speed, 1 thread (best of %d runs, cleared table each)\n", reps);
    printf("command: bench_ab --depth %d --among-ms %ld%s\n", depth, among_ms, reps == 1 ? " (--quick)" : "");
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
    int rc = among_table(s, (double)among_ms);
    mcts_ab_free(s);
    return rc == 0 ? 0 : 1;
}
