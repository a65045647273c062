/* engine.c — our engine on stdin/stdout, speaking the line protocol of src/engine/PROTOCOL.md.
 *
 *   engine [--agent SPEC] [--threads N] [--seed S] [--handicap P:W,G,B]
 *
 * SPEC is any agent of src/mcts/agent.h.  Default: the board's shipped network (weights/zertzR.ckpt, see
 * mcts_default_weights) searching 1 s per move, or uct:20000 when no network is shipped.
 * Bad usage: "zertz: engine: OPTION: WHY", exit status 2 (tools/cli.h). */
#include "cli.h"
#include "nn/omp_env.h"
#include "engine/protocol.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const TOOL = "engine";

static void usage(FILE *f) {
    fprintf(f, "usage: engine [options]\n"
               "Our engine on stdin/stdout, speaking the line protocol of src/engine/PROTOCOL.md.\n"
               "options:\n"
               "  --agent SPEC   the player (default: the shipped network, %s,\n"
               "                 or %s when none is shipped)\n"
               "  --threads N    search threads unless SPEC says, 1..256 (default 2 on a machine with 2 or\n"
               "                 more cores: stronger at equal time, weights/LADDER.md; 1 is deterministic)\n"
               "  --seed S       random seed, 0..2^64-1 (default 1)\n"
               "  --handicap P:W,G,B  Zertz+H: player P (0 or 1) starts every game with W white, G grey\n"
               "                 and B black marbles from the pool in its captures (W,G,B alone: P1)\n"
               "  -h, --help     this text\n", MCTS_DEFAULT_PLAYER, MCTS_FALLBACK_PLAYER);
    mcts_agent_help(f);
}

int main(int argc, char **argv) {
    nn_omp_single_thread(argv);        /* the search's threads fill the cores: OpenMP on one (omp_env.h) */
    signal(SIGPIPE, SIG_IGN);
    const char *spec = NULL;
    /* measured stronger: weights/LADDER.md, "One game on two cores" */
    int threads = sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
    uint64_t seed = 1;
    const char *handicap = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) { usage(stdout); return 0; }
        else if (!strcmp(a, "--agent")) { if (!(spec = cli_value(TOOL, argc, argv, &i))) return 2; }
        else if (!strcmp(a, "--threads")) { if (!cli_int_opt(TOOL, argc, argv, &i, 1, 256, &threads)) return 2; }
        else if (!strcmp(a, "--seed")) { if (!cli_u64_opt(TOOL, argc, argv, &i, UINT64_MAX, &seed)) return 2; }
        else if (!strcmp(a, "--handicap")) { if (!(handicap = cli_value(TOOL, argc, argv, &i))) return 2; }
        else return cli_unknown(TOOL, a);
    }
    char check[512];
    if (spec && mcts_agent_check_spec(spec, check, sizeof check) != 0) return cli_bad(TOOL, "--agent", check);
    char err[512], path[1100];
    zz_handicap h;
    if (handicap) {
        zz_pos p;
        zz_pos_init(&p, ZZ_B37);
        if (zz_handicap_parse(handicap, &h, err, sizeof err) != 0 || zz_handicap_apply(&p, &h, err, sizeof err) != 0)
            return cli_bad(TOOL, "--handicap", err);
    }
    if (!spec) {
        spec = mcts_default_weights(ZZ_B37, path, sizeof path) == 0 ? MCTS_DEFAULT_PLAYER : MCTS_FALLBACK_PLAYER;
        if (spec == (const char *)MCTS_FALLBACK_PLAYER)
            fprintf(stderr, "zertz: %s: no shipped network (%s): playing %s\n", TOOL, path, spec);
    }
    ze_protocol *s = ze_protocol_new(spec, threads, seed, err, sizeof err);
    if (!s) {
        fprintf(stderr, "zertz: %s: %s\n", TOOL, err);
        return 1;
    }
    if (handicap && ze_protocol_set_handicap(s, &h, err, sizeof err) != 0) {
        fprintf(stderr, "zertz: %s: %s\n", TOOL, err);
        ze_protocol_free(s);
        return 1;
    }
    ze_protocol_run(s, stdin, stdout);
    ze_protocol_free(s);
    return 0;
}
