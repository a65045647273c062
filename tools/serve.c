/* serve.c — the local web server: play the engine, get hints and review games in a browser.  A
 * thin main over src/server/server.h; the API is src/server/API.md.
 *
 *   serve [--host 127.0.0.1] [--port 8080] [--threads N] [--agent SPEC] [--www DIR] [--idle-minutes M]
 *
 * Bad usage: "zertz: serve: OPTION: WHY", exit status 2; a server that cannot start: exit 1. */
#include "cli.h"
#include "nn/omp_env.h"
#include "server/server.h"
#include "mcts/agent.h"
#include <signal.h>
#include <unistd.h>

static const char *const TOOL = "serve";
static volatile sig_atomic_t stop_now;

static void on_signal(int sig) { stop_now = sig; }

static void usage(FILE *f) {
    fprintf(f,
"usage: serve [options]\n"
"A local web server: play the engine, ask it for hints and review games in a browser.\n"
"It prints the address to open.  The API: src/server/API.md.\n"
"options:\n"
"  --host ADDR         IPv4 address to listen on (default 127.0.0.1: this machine only;\n"
"                      0.0.0.0 opens it to the network: there is no login)\n"
"  --port N            port, 0..65535 (default 8080; 0: any free port)\n"
"  --threads N         search threads per engine search, 1..64 (default 2)\n"
"  --agent SPEC        the engine for games and reviews (default: the board's shipped network)\n"
"  --www DIR           the page's folder (default src/server/www)\n"
"  --idle-minutes M    free games and reviews untouched this long (default 30)\n"
"  -q, --quiet         no log lines\n"
"  -h, --help          this text\n");
}

int main(int argc, char **argv) {
    nn_omp_single_thread(argv);        /* the search's threads fill the cores: OpenMP on one (omp_env.h) */
    sv_config cfg;
    sv_config_default(&cfg);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) { usage(stdout); return 0; }
        else if (!strcmp(a, "--host")) { if (!(cfg.host = cli_value(TOOL, argc, argv, &i))) return 2; }
        else if (!strcmp(a, "--port")) { if (!cli_int_opt(TOOL, argc, argv, &i, 0, 65535, &cfg.port)) return 2; }
        else if (!strcmp(a, "--threads")) { if (!cli_int_opt(TOOL, argc, argv, &i, 1, 64, &cfg.threads)) return 2; }
        else if (!strcmp(a, "--agent")) { if (!(cfg.agent = cli_value(TOOL, argc, argv, &i))) return 2; }
        else if (!strcmp(a, "--www")) { if (!(cfg.www = cli_value(TOOL, argc, argv, &i))) return 2; }
        else if (!strcmp(a, "--idle-minutes")) { if (!cli_double_opt(TOOL, argc, argv, &i, 0.001, 100000, &cfg.idle_minutes)) return 2; }
        else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) cfg.quiet = true;
        else return cli_unknown(TOOL, a);
    }
    char err[512];
    if (cfg.agent && mcts_agent_check_spec(cfg.agent, err, sizeof err) != 0) return cli_bad(TOOL, "--agent", err);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    sv_server *s = sv_server_start(&cfg, err, sizeof err);
    if (!s) { fprintf(stderr, "zertz: %s: %s\n", TOOL, err); return 1; }
    printf("serve: open http://%s:%d/ in a browser (Ctrl-C stops)\n", strcmp(cfg.host, "0.0.0.0") ? cfg.host : "127.0.0.1", sv_server_port(s));
    fflush(stdout);
    while (!stop_now) pause();
    fprintf(stderr, "serve: stopping\n");
    sv_server_stop(s);
    return 0;
}
