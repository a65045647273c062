/* strength.c — the strength ladder (`make strength`): a network, searching at a fixed time per move
 * (or a fixed number of simulations), against a list of opponents, each from a balanced set of
 * distinct openings (every opening played once with each colour), with score, Elo and its 95%
 * interval, the number of distinct games and the time per move each side really used.  Prints
 * the table as Markdown and can write it to a file (weights/README.md carries it).
 *
 *   strength [--net CKPT|default] [--time MS | --sims N] [--games N] [--vs OPP]... [--previous CKPT]
 *            [--net-opts OPTS] [--rings N] [--parallel P] [--opening-plies K] [--seed S]
 *            [--early-stop N] [--markdown FILE] [--sgf DIR] [--quiet]
 *
 * Opponents (--vs, repeatable; default uct, uct10, previous, random): `uct` is UCT at the same time
 * per move (or the same count), `uct10` at ten times it, `previous` the --previous network with
 * the same search, `random`, or any agent spec (src/mcts/agent.h). */
#include "cli.h"
#include "mcts/match.h"
#include "nn/omp_env.h"
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TOOL "strength"

enum { MAX_OPP = 16, MAX_OPENINGS = 4096 };

static void usage(FILE *f) {
    fprintf(f,
            "usage: strength [options]   (make strength STRENGTH_ARGS=\"...\")\n"
            "  --net CKPT|default   the network to measure (default: default, the shipped weights/zertzN.ckpt)\n"
            "  --net-opts OPTS      extra PUCT options for it and for `previous`, e.g. mix=0.5 (agent.h)\n"
            "  --time MS            time per move for both sides (default 1000)\n"
            "  --sims N             a fixed count instead: N network simulations, N UCT iterations\n"
            "  --games N            games per opponent, an even number (default 100)\n"
            "  --vs OPP             an opponent (repeatable): uct, uct10, previous, random, or an agent spec;\n"
            "                       default: uct, uct10, previous (when --previous is given), random\n"
            "  --previous CKPT      the previously shipped network (the `previous` opponent)\n"
            "  --rings N            37, 48 or 61 (default 37)\n"
            "  --parallel P         games at once (default 2: one per core, each side on one thread)\n"
            "  --opening-plies K    random plies of each opening (default 2)\n"
            "  --seed S             openings and agents' seed (default 1)\n"
            "  --early-stop N       stop an opponent after N games once the interval excludes 50%%\n"
            "                       (default 20; 0 = play every game)\n"
            "  --markdown FILE      also write the table to FILE\n"
            "  --sgf DIR            write every game as Boardspace SGF into DIR/<opponent>/\n"
            "  --quiet              no line per game\n"
            "  --help               this text\n");
}

static int bad(const char *what, const char *why) { return cli_bad(TOOL, what, why); }

/* The text value of the option at argv[*i] into *dst; false after "needs a value". */
static bool text_opt(int argc, char **argv, int *i, const char **dst) {
    const char *v = cli_value(TOOL, argc, argv, i);
    if (v) *dst = v;
    return v != NULL;
}

static void fmt_elo(char *buf, size_t n, double v) {
    if (isinf(v)) snprintf(buf, n, "%s", v > 0 ? "+inf" : "-inf");
    else snprintf(buf, n, "%+.0f", v == 0 ? 0.0 : v);     /* never "-0" */
}

typedef struct {
    char name[64];
    char spec[1200];
    mcts_match_result r;
    int ran;
} rung;

int main(int argc, char **argv) {
    nn_omp_single_thread(argv);   /* each side on one core (omp_env.h) */
    signal(SIGPIPE, SIG_IGN);
    const char *net = "default", *net_opts = "", *previous = NULL, *md = NULL, *sgf = NULL;
    const char *vs[MAX_OPP];
    int nvs = 0;
    long time_ms = 1000, sims = 0;
    int games = 100, parallel = 2, plies = 2, early = 20, quiet = 0, rings = 37;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool ok = true;
        if (cli_is_help(a)) { usage(stdout); return 0; }
        if (!strcmp(a, "--quiet")) quiet = 1;
        else if (!strcmp(a, "--net")) ok = text_opt(argc, argv, &i, &net);
        else if (!strcmp(a, "--net-opts")) ok = text_opt(argc, argv, &i, &net_opts);
        else if (!strcmp(a, "--previous")) ok = text_opt(argc, argv, &i, &previous);
        else if (!strcmp(a, "--markdown")) ok = text_opt(argc, argv, &i, &md);
        else if (!strcmp(a, "--sgf")) ok = text_opt(argc, argv, &i, &sgf);
        else if (!strcmp(a, "--vs")) {
            if (nvs == MAX_OPP) return bad(a, "too many opponents");
            if ((ok = text_opt(argc, argv, &i, &vs[nvs]))) nvs++;
        } else if (!strcmp(a, "--time")) {
            if ((ok = cli_long_opt(TOOL, argc, argv, &i, 1, 3600000, &time_ms))) sims = 0;
        } else if (!strcmp(a, "--sims")) ok = cli_long_opt(TOOL, argc, argv, &i, 1, 1000000000, &sims);
        else if (!strcmp(a, "--games")) {
            if ((ok = cli_int_opt(TOOL, argc, argv, &i, 2, 100000, &games)) && games % 2) {
                char why[128];
                snprintf(why, sizeof why, "expected an even number of games from 2 to 100000, not '%.40s'", argv[i]);
                return bad(a, why);
            }
        } else if (!strcmp(a, "--parallel")) ok = cli_int_opt(TOOL, argc, argv, &i, 1, 256, &parallel);
        else if (!strcmp(a, "--opening-plies")) ok = cli_int_opt(TOOL, argc, argv, &i, 0, 16, &plies);
        else if (!strcmp(a, "--early-stop")) ok = cli_int_opt(TOOL, argc, argv, &i, 0, 100000, &early);
        else if (!strcmp(a, "--seed")) ok = cli_u64_opt(TOOL, argc, argv, &i, UINT64_MAX, &seed);
        else if (!strcmp(a, "--rings")) ok = cli_rings_opt(TOOL, argc, argv, &i, &rings);
        else return cli_unknown(TOOL, a);
        if (!ok) return 2;
    }
    zz_board_kind board = zz_board_for_rings(rings)->kind;
    if (nvs == 0) {
        vs[nvs++] = "uct";
        vs[nvs++] = "uct10";
        if (previous) vs[nvs++] = "previous";
        vs[nvs++] = "random";
    }

    /* the candidate's and the opponents' specs */
    char budget[96], budget10[96], cand[1200];
    if (sims) {
        snprintf(budget, sizeof budget, "%ld", sims);
        snprintf(budget10, sizeof budget10, "%ld", 10 * sims);
    } else {
        snprintf(budget, sizeof budget, "1000000000,time=%ld", time_ms);
        snprintf(budget10, sizeof budget10, "1000000000,time=%ld", 10 * time_ms);
    }
    const char *sep = net_opts[0] ? "," : "";
    snprintf(cand, sizeof cand, "puct:%s:%s,threads=1%s%s", net, budget, sep, net_opts);
    rung rungs[MAX_OPP];
    memset(rungs, 0, sizeof rungs);
    for (int k = 0; k < nvs; k++) {
        rung *g = &rungs[k];
        snprintf(g->name, sizeof g->name, "%.63s", vs[k]);
        if (!strcmp(vs[k], "uct")) {
            snprintf(g->spec, sizeof g->spec, "uct:%s", budget);
            snprintf(g->name, sizeof g->name, "uct, same %s", sims ? "count" : "time");
        } else if (!strcmp(vs[k], "uct10")) {
            snprintf(g->spec, sizeof g->spec, "uct:%s", budget10);
            snprintf(g->name, sizeof g->name, "uct, 10x the %s", sims ? "count" : "time");
        } else if (!strcmp(vs[k], "previous")) {
            if (!previous) return bad("--vs previous", "needs --previous CKPT");
            snprintf(g->spec, sizeof g->spec, "puct:%s:%s,threads=1%s%s", previous, budget, sep, net_opts);
            snprintf(g->name, sizeof g->name, "previous network");
        } else {
            snprintf(g->spec, sizeof g->spec, "%s", vs[k]);
        }
    }
    static mcts_opening openings[MAX_OPENINGS];
    int want = games / 2 < MAX_OPENINGS ? games / 2 : MAX_OPENINGS;
    int nop = mcts_openings_random(board, plies, want, seed, openings);
    if (nop < 1) return bad("--opening-plies", "no opening of that length exists");

    printf("strength: %s, %s per move, %d rings, %d games per opponent from %d openings (%d random plies each, "
           "both colours), %d at once, seed %llu\n",
           cand, sims ? "a fixed count" : "fixed time", zz_board_get(board)->rings, games, nop, plies, parallel,
           (unsigned long long)seed);
    fflush(stdout);
    char err[512];
    for (int k = 0; k < nvs; k++) {
        rung *g = &rungs[k];
        mcts_match_config c;
        memset(&c, 0, sizeof c);
        c.spec[0] = cand;
        c.spec[1] = g->spec;
        c.games = games;
        c.parallel = parallel;
        c.agent_threads = 1;
        c.seed = seed * 1000003ULL + (uint64_t)k;
        c.board = board;
        c.ply_cap = MCTS_MATCH_PLY_CAP_DEFAULT;
        c.openings = openings;
        c.nopenings = nop;
        c.stop_early = early;
        c.progress = quiet ? NULL : stderr;
        char dir[1100];
        if (sgf) {
            if (mkdir(sgf, 0777) != 0 && errno != EEXIST) {
                fprintf(stderr, "zertz: strength: %s: %s\n", sgf, strerror(errno));
                return 1;
            }
            snprintf(dir, sizeof dir, "%.900s/%d", sgf, k);
            c.sgf_dir = dir;
        }
        if (!quiet) fprintf(stderr, "strength: vs %s (%s)\n", g->name, g->spec);
        if (mcts_match_run(&c, &g->r, err, sizeof err) != 0) {
            fprintf(stderr, "zertz: strength: %s: %s\n", g->name, err);
            return 1;
        }
        g->ran = 1;
    }

    /* the table */
    char *table = NULL;
    size_t tlen = 0;
    FILE *t = open_memstream(&table, &tlen);
    if (!t) return bad("table", "out of memory");
    fprintf(t, "| %s vs | games | distinct | W-L-D | score | Elo [95%%] | ms/move (net / opp) | sims/s (net / opp) |\n", net);
    fprintf(t, "|---|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < nvs; k++) {
        rung *g = &rungs[k];
        mcts_elo e = mcts_elo_estimate(g->r.wins, g->r.losses, g->r.draws);
        char el[16], lo[16], hi[16];
        fmt_elo(el, sizeof el, e.elo);
        fmt_elo(lo, sizeof lo, e.lo);
        fmt_elo(hi, sizeof hi, e.hi);
        double ms0 = g->r.moves[0] ? 1000 * g->r.seconds[0] / g->r.moves[0] : 0;
        double ms1 = g->r.moves[1] ? 1000 * g->r.seconds[1] / g->r.moves[1] : 0;
        double sp0 = g->r.seconds[0] > 0 ? g->r.sims[0] / g->r.seconds[0] : 0;
        double sp1 = g->r.seconds[1] > 0 ? g->r.sims[1] / g->r.seconds[1] : 0;
        fprintf(t, "| %s (`%s`) | %d%s | %d | %d-%d-%d | %.1f%% | %s [%s, %s] | %.0f / %.0f | %.0f / %.0f |\n", g->name,
                g->spec, g->r.games, g->r.stopped_early ? " (stopped early)" : "", g->r.distinct, g->r.wins,
                g->r.losses, g->r.draws, 100 * e.score, el, lo, hi, ms0, ms1, sp0, sp1);
    }
    fclose(t);
    printf("\n%s", table);
    int errors = 0;
    for (int k = 0; k < nvs; k++) errors += rungs[k].r.errors;
    if (errors) printf("\n%d games ended by an agent error (scored as its loss)\n", errors);
    if (md) {
        FILE *f = fopen(md, "w");
        if (!f || fputs(table, f) < 0 || fclose(f) != 0) {
            fprintf(stderr, "zertz: strength: %s: cannot write the table\n", md);
            free(table);
            return 1;
        }
        printf("table written to %s\n", md);
    }
    free(table);
    return errors ? 1 : 0;
}
