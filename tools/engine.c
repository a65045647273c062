/* engine.c — our engine on stdin/stdout, speaking the line protocol of src/mcts/PROTOCOL.md.
 *
 *   engine [--agent SPEC] [--threads N] [--seed S]
 *
 * SPEC is any agent of src/mcts/agent.h.  Default: the shipped network (weights/zertz37.ckpt, see
 * mcts_default_weights) searching 1 s per move, or uct:20000 when no network is shipped. */
#include "mcts/protocol.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);
    const char *spec = NULL;
    int threads = 1;
    unsigned long long seed = 1;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (!strcmp(argv[i], "--agent") && i + 1 < argc) spec = argv[++i];
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc && (threads = (int)strtol(argv[i + 1], &end, 10)) >= 1 && !*end) i++;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc && (seed = strtoull(argv[i + 1], &end, 10), !*end)) i++;
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: engine [--agent SPEC] [--threads N] [--seed S]   (protocol: src/mcts/PROTOCOL.md)\n"
                   "  --agent SPEC   the player (src/mcts/agent.h; default: the shipped network, %s,\n"
                   "                 or %s when none is shipped)\n"
                   "  --threads N    search threads unless SPEC says (default 1)\n"
                   "  --seed S       random seed (default 1)\n", MCTS_DEFAULT_PLAYER, MCTS_FALLBACK_PLAYER);
            return 0;
        } else {
            fprintf(stderr, "zertz: engine: bad argument '%s'\n", argv[i]);
            return 2;
        }
    }
    char err[512], path[1100];
    if (!spec) {
        spec = mcts_default_weights(ZZ_B37, path, sizeof path) == 0 ? MCTS_DEFAULT_PLAYER : MCTS_FALLBACK_PLAYER;
        if (spec == (const char *)MCTS_FALLBACK_PLAYER)
            fprintf(stderr, "zertz: engine: no shipped network (%s): playing %s\n", path, spec);
    }
    mcts_session *s = mcts_session_new(spec, threads, seed, err, sizeof err);
    if (!s) {
        fprintf(stderr, "zertz: engine: %s\n", err);
        return 1;
    }
    mcts_session_run(s, stdin, stdout);
    mcts_session_free(s);
    return 0;
}
