/* arena.c — play two agents against each other and report the score with an Elo estimate.
 *
 *   arena A B [--games N] [--parallel P] [--threads T] [--seed S] [--rings 37|48|61]
 *             [--sgf DIR] [--ply-cap N] [--opening-plies K] [--openings random|archive [--archive DIR]]
 *             [--cmd-timeout MS] [--quiet]
 *
 * Agents: random | uct:ITERS[,opts] | puct:WEIGHTS:SIMS[,opts] | cmd:PROGRAM (src/mcts/agent.h).
 * Games 2k and 2k+1 start from the same opening of K random plies (default 2), each agent
 * moving first once, so deterministic agents never replay a game; repeated games are reported.
 * With --openings archive they start from the first K turns of real Boardspace games on the board
 * instead (src/mcts/openings.h).
 * Games alternate who starts; --parallel games run at once; every game is written as
 * Boardspace SGF into --sgf DIR, atomically (a record is whole under its name or absent); a record
 * that cannot be written stops the arena with "zertz: arena: ..." naming the file and the cause,
 * exit status 1.  With single-threaded agents a seed replays the same games.
 * --cmd-timeout sets $ZZ_CMD_TIMEOUT_MS, the time a cmd: engine has for each answer.
 * Bad usage: "zertz: arena: OPTION: WHY", exit status 2 (tools/cli.h). */
#include "cli.h"
#include "mcts/match.h"
#include "nn/omp_env.h"
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const TOOL = "arena";

static void usage(FILE *f) {
    fprintf(f, "usage: arena A B [options]\n"
               "Plays agent A against agent B (alternating who starts) and prints the score with an Elo\n"
               "estimate and its 95%% interval.\n"
               "options:\n"
               "  --games N         games to play, 1..1000000 (default 20)\n"
               "  --parallel P      games played at once, 1..1024 (default 2)\n"
               "  --threads T       search threads per agent unless its spec says, 1..256 (default 1)\n"
               "  --seed S          match seed, 0..2^64-1 (default 1): with one thread per agent, the\n"
               "                    same seed replays the same games\n"
               "  --rings R         board: 37, 48 or 61 rings (default 37)\n"
               "  --sgf DIR         write every game as DIR/game-NNNN.sgf (default: none); a record\n"
               "                    that cannot be written stops the arena (exit status 1)\n"
               "  --ply-cap N       a game reaching N plies is a draw, 0..65535 (default %d; 0: no cap,\n"
               "                    and a game may never end: with the pool empty and no ring free,\n"
               "                    two players can place and recapture the same marbles for ever)\n"
               "  --opening-plies K each pair of games starts with K random plies (the same for both\n"
               "                    colours), 0..16 (default 2; 0: every game from the start position)\n"
               "  --openings SRC    random: K random plies (default); archive: the first K turns (1..8)\n"
               "                    of real Boardspace games on the board, distinct ones drawn by the seed\n"
               "  --archive DIR     the Boardspace archive for --openings archive (default:\n"
               "                    $ZZ_BOARDSPACE_DIR, else ../shared/boardspace)\n"
               "  --cmd-timeout MS  milliseconds a cmd: engine has for each answer, 1..%d (default\n"
               "                    $%s, else %d; bestmove: plus the move's time); an\n"
               "                    engine that does not answer in time is stopped and loses\n"
               "  --handicap [A:|B:]W,G,B  Zertz+H: agent B (or A) starts every game with W white, G grey\n"
               "                    and B black marbles moved from the pool into its captures, whichever\n"
               "                    colour it plays (e.g. --handicap 1,0,0); games are written SU[Zertz+H]\n"
               "  --quiet           no line per finished game on stderr\n"
               "  -h, --help        this text\n",
            MCTS_MATCH_PLY_CAP_DEFAULT, MCTS_CMD_TIMEOUT_MAX_MS, MCTS_CMD_TIMEOUT_ENV,
            MCTS_CMD_TIMEOUT_DEFAULT_MS);
    mcts_agent_help(f);
}

/* One option at argv[*i] (its value, if any, after it).  1: taken; 0: not an option of ours;
 * -1: a bad value (reported). */
static int opening_plies = 2;
static cli_openings openings_opt;
static zz_handicap handicap;

/* --handicap [A:|B:]W,G,B: the agent receiving the marbles in handicap.player (0 A, 1 B). */
static int handicap_opt(int argc, char **argv, int *i, mcts_match_config *c) {
    const char *v = cli_value(TOOL, argc, argv, i);
    if (!v) return -1;
    int agent = 1;
    if ((v[0] == 'A' || v[0] == 'B') && v[1] == ':') { agent = v[0] == 'B'; v += 2; }
    char err[160];
    if (zz_handicap_parse(v, &handicap, err, sizeof err) != 0 || strchr(v, ':')) {
        cli_bad(TOOL, "--handicap", "expected [A:|B:]W,G,B, e.g. B:1,0,0 (counts 0..10)");
        return -1;
    }
    zz_pos p;                                  /* refuse what no game could start with */
    zz_pos_init(&p, c->board);
    if (zz_handicap_apply(&p, &handicap, err, sizeof err) != 0) { cli_bad(TOOL, "--handicap", err); return -1; }
    handicap.player = agent;
    c->handicap = &handicap;
    return 1;
}

static int parse_option(int argc, char **argv, int *i, mcts_match_config *c) {
    const char *a = argv[*i];
    if (!strcmp(a, "--opening-plies")) return cli_int_opt(TOOL, argc, argv, i, 0, 16, &opening_plies) ? 1 : -1;
    int taken = cli_openings_opt(TOOL, argc, argv, i, &openings_opt);
    if (taken) return taken;
    int rings;
    long cap, ms;
    if (!strcmp(a, "--quiet")) { c->progress = NULL; return 1; }
    if (!strcmp(a, "--handicap")) return handicap_opt(argc, argv, i, c);
    if (!strcmp(a, "--games")) return cli_int_opt(TOOL, argc, argv, i, 1, 1000000, &c->games) ? 1 : -1;
    if (!strcmp(a, "--parallel")) return cli_int_opt(TOOL, argc, argv, i, 1, 1024, &c->parallel) ? 1 : -1;
    if (!strcmp(a, "--threads")) return cli_int_opt(TOOL, argc, argv, i, 1, 256, &c->agent_threads) ? 1 : -1;
    if (!strcmp(a, "--seed")) return cli_u64_opt(TOOL, argc, argv, i, UINT64_MAX, &c->seed) ? 1 : -1;
    if (!strcmp(a, "--sgf")) return (c->sgf_dir = cli_value(TOOL, argc, argv, i)) ? 1 : -1;
    if (!strcmp(a, "--ply-cap")) {
        if (!cli_long_opt(TOOL, argc, argv, i, 0, 65535, &cap)) return -1;
        c->ply_cap = (int)cap;
        return 1;
    }
    if (!strcmp(a, "--rings")) {
        if (!cli_rings_opt(TOOL, argc, argv, i, &rings)) return -1;
        c->board = zz_board_for_rings(rings)->kind;
        return 1;
    }
    if (!strcmp(a, "--cmd-timeout")) {
        if (!cli_long_opt(TOOL, argc, argv, i, 1, MCTS_CMD_TIMEOUT_MAX_MS, &ms)) return -1;
        setenv(MCTS_CMD_TIMEOUT_ENV, argv[*i], 1);      /* read by every cmd: agent the match builds */
        return 1;
    }
    return 0;
}

static void print_elo(const char *label, double v) {
    if (isinf(v)) printf("%s%s", label, v > 0 ? "+inf" : "-inf");
    else printf("%s%+.0f", label, v == 0 ? 0.0 : v);     /* never "-0" */
}

int main(int argc, char **argv) {
    nn_omp_single_thread(argv);            /* games at once fill the cores: OpenMP on one (omp_env.h) */
    signal(SIGPIPE, SIG_IGN);              /* a cmd: engine that dies must not kill the arena */
    mcts_match_config c;
    memset(&c, 0, sizeof c);
    c.games = 20;
    c.parallel = 2;
    c.ply_cap = MCTS_MATCH_PLY_CAP_DEFAULT;
    c.agent_threads = 1;
    c.seed = 1;
    c.board = ZZ_B37;
    c.progress = stderr;
    int nspec = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) { usage(stdout); return 0; }
        int r = parse_option(argc, argv, &i, &c);
        if (r < 0) return 2;
        if (r > 0) continue;
        if (a[0] == '-' || nspec == 2) return cli_unknown(TOOL, a);
        c.spec[nspec++] = a;
    }
    if (nspec != 2) return cli_bad(TOOL, "agents", "give two agents, A and B (see arena --help)");
    char err[512];
    for (int k = 0; k < 2; k++)
        if (mcts_agent_check_board(c.spec[k], c.board, err, sizeof err) != 0) return cli_bad(TOOL, c.spec[k], err);
    const char *archive;
    if (cli_openings_check(TOOL, &openings_opt, opening_plies, mcts_archive_dir(), &archive)) return 2;
    mcts_opening *openings = NULL;
    if (opening_plies > 0) {
        int want = (c.games + 1) / 2;
        if (!(openings = malloc((size_t)want * sizeof *openings))) return cli_bad(TOOL, "openings", "out of memory");
        c.nopenings = mcts_openings_make(archive, c.board, opening_plies, want, c.seed, openings, err, sizeof err);
        c.openings = openings;
        if (c.nopenings < 1) {
            free(openings);
            return cli_bad(TOOL, c.nopenings < 0 ? "--openings archive" : "--opening-plies",
                           c.nopenings < 0 ? err : "no opening of that length exists");
        }
    }
    printf("arena: A = %s, B = %s: %d games on %d rings, %d at once, seed %llu, %d openings of %d %s\n",
           c.spec[0], c.spec[1], c.games, zz_board_get(c.board)->rings, c.parallel, (unsigned long long)c.seed,
           c.nopenings, opening_plies, archive ? "Boardspace turns" : "random plies");
    if (c.handicap)
        printf("arena: Zertz+H: agent %c starts every game with %d/%d/%d (white/grey/black) in its captures\n",
               c.handicap->player ? 'B' : 'A', c.handicap->wgb[0], c.handicap->wgb[1], c.handicap->wgb[2]);
    fflush(stdout);
    mcts_match_result r;
    int rc = mcts_match_run(&c, &r, err, sizeof err);
    free(openings);
    if (rc != 0) {
        fprintf(stderr, "zertz: %s: %s\n", TOOL, err);
        return 1;
    }
    mcts_elo e = mcts_elo_estimate(r.wins, r.losses, r.draws);
    printf("A: %d wins, %d losses, %d draws  score %.3f  ", r.wins, r.losses, r.draws, e.score);
    print_elo("Elo ", e.elo);
    print_elo(" [", e.lo);
    print_elo(", ", e.hi);
    printf("] (95%%)\n");
    printf("first player won %d of %d; %.1f plies per game; %d distinct games; digest %016llx\n", r.first_player_wins,
           r.games, r.games ? (double)r.plies / r.games : 0.0, r.distinct, (unsigned long long)r.digest);
    int first[3], second[3];
    mcts_match_by_colour(&r, first, second);
    printf("A moving first: %d-%d-%d; moving second: %d-%d-%d (W-L-D)\n", first[0], first[1], first[2], second[0],
           second[1], second[2]);
    if (r.distinct < r.games)
        printf("warning: %d of %d games repeat another game move for move (deterministic agents: use "
               "--opening-plies, another --seed, or temperature)\n", r.games - r.distinct, r.games);
    printf("time per move: A %.3f ms, B %.3f ms\n", r.moves[0] ? 1000 * r.seconds[0] / r.moves[0] : 0.0,
           r.moves[1] ? 1000 * r.seconds[1] / r.moves[1] : 0.0);
    printf("simulations per second: A %.0f, B %.0f\n", r.seconds[0] > 0 ? r.sims[0] / r.seconds[0] : 0.0,
           r.seconds[1] > 0 ? r.sims[1] / r.seconds[1] : 0.0);
    if (r.overrides[0] || r.overrides[1])
        printf("moves replaced by the alpha-beta guard or the forcing check: A %llu of %ld, B %llu of %ld\n", (unsigned long long)r.overrides[0],
               r.moves[0], (unsigned long long)r.overrides[1], r.moves[1]);
    if (c.sgf_dir) printf("games written to %s/game-NNNN.sgf\n", c.sgf_dir);
    if (r.errors) {
        printf("%d games ended by an agent error (scored as its loss); first: %s\n", r.errors, r.first_error);
        return 1;
    }
    return 0;
}
