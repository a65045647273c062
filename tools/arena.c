/* arena.c — play two agents against each other and report the score with an Elo estimate.
 *
 *   arena A B [--games N] [--parallel P] [--threads T] [--seed S] [--rings 37|48|61]
 *             [--sgf DIR] [--ply-cap N] [--quiet]
 *
 * Agents: random | uct:ITERS[,opts] | puct:WEIGHTS:SIMS[,opts] | cmd:PROGRAM (src/mcts/agent.h).
 * Games alternate who starts; --parallel games run at once; every game is written as
 * Boardspace SGF into --sgf DIR.  With single-threaded agents a seed replays the same games. */
#include "mcts/match.h"
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f) {
    fprintf(f, "usage: arena A B [--games N] [--parallel P] [--threads T] [--seed S] [--rings 37|48|61]\n"
               "                 [--sgf DIR] [--ply-cap N] [--quiet]\n"
               "agents: random | uct:ITERS[,opt=v..] | puct:WEIGHTS:SIMS[,opt=v..] | cmd:PROGRAM\n");
}

static int parse_int(const char *s, long lo, long hi, long *out) {
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

static void print_elo(const char *label, double v) {
    if (isinf(v)) printf("%s%s", label, v > 0 ? "+inf" : "-inf");
    else printf("%s%+.0f", label, v);
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);              /* a cmd: engine that dies must not kill the arena */
    mcts_match_config c;
    memset(&c, 0, sizeof c);
    c.games = 20;
    c.parallel = 2;
    c.agent_threads = 1;
    c.seed = 1;
    c.board = ZZ_B37;
    c.progress = stderr;
    int nspec = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        long v;
        bool has = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (!strcmp(a, "--quiet")) c.progress = NULL;
        else if (!strcmp(a, "--games") && has && !parse_int(argv[i + 1], 1, 1000000, &v)) c.games = (int)v, i++;
        else if (!strcmp(a, "--parallel") && has && !parse_int(argv[i + 1], 1, 1024, &v)) c.parallel = (int)v, i++;
        else if (!strcmp(a, "--threads") && has && !parse_int(argv[i + 1], 1, 256, &v)) c.agent_threads = (int)v, i++;
        else if (!strcmp(a, "--seed") && has && !parse_int(argv[i + 1], 0, 0x7fffffffffffffffL, &v)) c.seed = (uint64_t)v, i++;
        else if (!strcmp(a, "--ply-cap") && has && !parse_int(argv[i + 1], 0, 65535, &v)) c.ply_cap = (int)v, i++;
        else if (!strcmp(a, "--sgf") && has) c.sgf_dir = argv[++i];
        else if (!strcmp(a, "--rings") && has && !parse_int(argv[i + 1], 37, 61, &v) && zz_board_for_rings((int)v))
            c.board = zz_board_for_rings((int)v)->kind, i++;
        else if (a[0] != '-' && nspec < 2) c.spec[nspec++] = a;
        else {
            fprintf(stderr, "zertz: arena: bad argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (nspec != 2) { usage(stderr); return 2; }
    printf("arena: A = %s, B = %s: %d games on %d rings, %d at once, seed %llu\n", c.spec[0], c.spec[1], c.games,
           zz_board_get(c.board)->rings, c.parallel, (unsigned long long)c.seed);
    fflush(stdout);
    mcts_match_result r;
    char err[512];
    if (mcts_match_run(&c, &r, err, sizeof err) != 0) {
        fprintf(stderr, "zertz: arena: %s\n", err);
        return 1;
    }
    mcts_elo e = mcts_elo_estimate(r.wins, r.losses, r.draws);
    printf("A: %d wins, %d losses, %d draws  score %.3f  ", r.wins, r.losses, r.draws, e.score);
    print_elo("Elo ", e.elo);
    print_elo(" [", e.lo);
    print_elo(", ", e.hi);
    printf("] (95%%)\n");
    printf("first player won %d of %d; %.1f plies per game; digest %016llx\n", r.first_player_wins, r.games,
           r.games ? (double)r.plies / r.games : 0.0, (unsigned long long)r.digest);
    printf("time per move: A %.3f ms, B %.3f ms\n", r.moves[0] ? 1000 * r.seconds[0] / r.moves[0] : 0.0,
           r.moves[1] ? 1000 * r.seconds[1] / r.moves[1] : 0.0);
    if (c.sgf_dir) printf("games written to %s/game-NNNN.sgf\n", c.sgf_dir);
    if (r.errors) {
        printf("%d games ended by an agent error (scored as its loss); first: %s\n", r.errors, r.first_error);
        return 1;
    }
    return 0;
}
