/* engine.c — our engine on stdin/stdout, speaking the line protocol of src/mcts/PROTOCOL.md.
 *
 *   engine [--agent SPEC] [--threads N] [--seed S]
 *
 * SPEC is any agent of src/mcts/agent.h (default uct:20000). */
#include "mcts/protocol.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);
    const char *spec = "uct:20000";
    int threads = 1;
    unsigned long long seed = 1;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (!strcmp(argv[i], "--agent") && i + 1 < argc) spec = argv[++i];
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc && (threads = (int)strtol(argv[i + 1], &end, 10)) >= 1 && !*end) i++;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc && (seed = strtoull(argv[i + 1], &end, 10), !*end)) i++;
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: engine [--agent SPEC] [--threads N] [--seed S]   (protocol: src/mcts/PROTOCOL.md)\n");
            return 0;
        } else {
            fprintf(stderr, "zertz: engine: bad argument '%s'\n", argv[i]);
            return 2;
        }
    }
    char err[512];
    mcts_session *s = mcts_session_new(spec, threads, seed, err, sizeof err);
    if (!s) {
        fprintf(stderr, "zertz: engine: %s\n", err);
        return 1;
    }
    mcts_session_run(s, stdin, stdout);
    mcts_session_free(s);
    return 0;
}
