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
#include "mcts/match.h"
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static int bad(const char *what, const char *why) {
    fprintf(stderr, "zertz: strength: %s: %s\n", what, why);
    return 2;
}

static bool num(const char *s, double lo, double hi, double *v) {
    char *end;
    *v = strtod(s, &end);
    return end != s && !*end && *v >= lo && *v <= hi;
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
    signal(SIGPIPE, SIG_IGN);
    const char *net = "default", *net_opts = "", *previous = NULL, *md = NULL, *sgf = NULL;
    const char *vs[MAX_OPP];
    int nvs = 0;
    double time_ms = 1000, x;
    long sims = 0;
    int games = 100, parallel = 2, plies = 2, early = 20, quiet = 0;
    uint64_t seed = 1;
    zz_board_kind board = ZZ_B37;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 0; }
        if (!strcmp(a, "--quiet")) { quiet = 1; continue; }
        if (!v) return bad(a, "unknown option or missing value (see strength --help)");
        i++;
        if (!strcmp(a, "--net")) net = v;
        else if (!strcmp(a, "--net-opts")) net_opts = v;
        else if (!strcmp(a, "--previous")) previous = v;
        else if (!strcmp(a, "--markdown")) md = v;
        else if (!strcmp(a, "--sgf")) sgf = v;
        else if (!strcmp(a, "--vs")) {
            if (nvs == MAX_OPP) return bad(a, "too many opponents");
            vs[nvs++] = v;
        } else if (!strcmp(a, "--time")) {
            if (!num(v, 1, 3.6e6, &x)) return bad(a, "a time in milliseconds, 1..3600000");
            time_ms = x;
            sims = 0;
        } else if (!strcmp(a, "--sims")) {
            if (!num(v, 1, 1e9, &x)) return bad(a, "a count, 1..1000000000");
            sims = (long)x;
        } else if (!strcmp(a, "--games")) {
            if (!num(v, 2, 100000, &x) || (long)x % 2) return bad(a, "an even number of games, 2..100000");
            games = (int)x;
        } else if (!strcmp(a, "--parallel")) {
            if (!num(v, 1, 256, &x)) return bad(a, "1..256");
            parallel = (int)x;
        } else if (!strcmp(a, "--opening-plies")) {
            if (!num(v, 0, 16, &x)) return bad(a, "0..16");
            plies = (int)x;
        } else if (!strcmp(a, "--early-stop")) {
            if (!num(v, 0, 100000, &x)) return bad(a, "0..100000");
            early = (int)x;
        } else if (!strcmp(a, "--seed")) {
            if (!num(v, 0, 9e15, &x)) return bad(a, "0..9e15");
            seed = (uint64_t)x;
        } else if (!strcmp(a, "--rings")) {
            if (!num(v, 37, 61, &x) || !zz_board_for_rings((int)x)) return bad(a, "the board has 37, 48 or 61 rings");
            board = zz_board_for_rings((int)x)->kind;
        } else {
            return bad(a, "unknown option (see strength --help)");
        }
    }
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
        snprintf(budget, sizeof budget, "1000000000,time=%.0f", time_ms);
        snprintf(budget10, sizeof budget10, "1000000000,time=%.0f", 10 * time_ms);
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
        c.ply_cap = 400;
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
    fprintf(t, "| %s vs | games | distinct | W-L-D | score | Elo [95%%] | ms/move (net / opp) |\n", net);
    fprintf(t, "|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < nvs; k++) {
        rung *g = &rungs[k];
        mcts_elo e = mcts_elo_estimate(g->r.wins, g->r.losses, g->r.draws);
        char el[16], lo[16], hi[16];
        fmt_elo(el, sizeof el, e.elo);
        fmt_elo(lo, sizeof lo, e.lo);
        fmt_elo(hi, sizeof hi, e.hi);
        double ms0 = g->r.moves[0] ? 1000 * g->r.seconds[0] / g->r.moves[0] : 0;
        double ms1 = g->r.moves[1] ? 1000 * g->r.seconds[1] / g->r.moves[1] : 0;
        fprintf(t, "| %s (`%s`) | %d%s | %d | %d-%d-%d | %.1f%% | %s [%s, %s] | %.0f / %.0f |\n", g->name, g->spec,
                g->r.games, g->r.stopped_early ? " (stopped early)" : "", g->r.distinct, g->r.wins, g->r.losses,
                g->r.draws, 100 * e.score, el, lo, hi, ms0, ms1);
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
