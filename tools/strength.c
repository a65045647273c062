/* strength.c — the strength ladder (`make strength`): a network, searching at a fixed time per move
 * (or a fixed number of simulations), against a list of opponents, each from a balanced set of
 * distinct openings (every opening played once with each colour), with score, Elo and its 95%
 * interval, the score moving first and moving second, the number of distinct games and the time
 * per move each side really used.  Prints the table as Markdown and can write it to a file
 * (weights/LADDER.md carries its tables).
 *
 *   strength [--net CKPT|default] [--time MS | --sims N] [--games N] [--vs OPP]... [--previous CKPT]
 *            [--net-opts OPTS] [--rings N] [--parallel P] [--opening-plies K]
 *            [--openings random|archive [--archive DIR]] [--seed S]
 *            [--early-stop N] [--sprt ELO0,ELO1 [--sprt-alpha A] [--sprt-beta B]] [--markdown FILE]
 *            [--sgf DIR] [--quiet]
 *
 * --sprt: a sequential probability ratio test per opponent (src/mcts/sprt.h), stopping as soon as
 * it decides (--games is then the most it plays); its verdict and LLR are printed under the table.
 *
 * Opponents (--vs, repeatable; default uct, uct10, ab, previous, random): `uct` is UCT at the same
 * time per move (or the same count), `uct10` at ten times it, `ab` the alpha-beta agent at the same
 * time (with --sims: to depth 3), `previous` the --previous network with the same search,
 * `random`, or any agent spec (src/mcts/agent.h).
 *
 * Openings (src/mcts/openings.h): K random plies (the default), or with --openings archive the
 * first K turns people played in the Boardspace archive's games on the board, distinct ones drawn
 * by the seed. */
#include "game/atomic_file.h"
#include "mcts/ab.h"
#include "cli.h"
#include "mcts/match.h"
#include "mcts/openings.h"
#include "nn/cpu_info.h"
#include "nn/omp_env.h"
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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
            "  --vs OPP             an opponent (repeatable): uct, uct10, ab, previous, random, or an agent\n"
            "                       spec; default: uct, uct10, ab, previous (when --previous is given),\n"
            "                       random (ab: alpha-beta at the same time; with --sims, to depth 3)\n"
            "  --previous CKPT      the previously shipped network (the `previous` opponent)\n"
            "  --rings N            37, 48 or 61 (default 37)\n"
            "  --parallel P         games at once (default 2: one per core, each side on one thread)\n"
            "  --opening-plies K    plies of each opening (default 2); with --openings archive, turns (1 to 8)\n"
            "  --openings SRC       random: K random plies (default); archive: the first K turns of real\n"
            "                       Boardspace games on the board, distinct ones drawn by the seed\n"
            "  --archive DIR        the Boardspace archive for --openings archive (default:\n"
            "                       $ZZ_BOARDSPACE_DIR, else ../shared/boardspace)\n"
            "  --seed S             openings and agents' seed (default 1)\n"
            "  --early-stop N       stop an opponent after N games once the interval excludes 50%%\n"
            "                       (default 20; 0 = play every game)\n"
            "  --sprt ELO0,ELO1     a sequential probability ratio test per opponent: H0 Elo = ELO0\n"
            "                       against H1 Elo = ELO1 (e.g. 0,30); stops when it decides, --games\n"
            "                       being the most it plays (src/mcts/sprt.h)\n"
            "  --sprt-alpha A       chance of accepting H1 when H0 holds (default 0.05)\n"
            "  --sprt-beta B        chance of accepting H0 when H1 holds (default 0.05)\n"
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

/* What the command line asks for. */
typedef struct {
    const char *net, *net_opts, *previous, *md, *sgf;
    const char *archive;        /* NULL: openings of random plies; else the archive's folder */
    const char *vs[MAX_OPP];
    int nvs;
    long time_ms, sims;
    int games, parallel, plies, early, quiet, rings;
    uint64_t seed;
    bool use_sprt;
    mcts_sprt sprt;
} ladder_args;

/* The options into a (defaults first).  -1 to go on; else the exit status (0 after --help). */
static int parse_args(int argc, char **argv, ladder_args *a) {
    *a = (ladder_args){ .net = "default", .net_opts = "", .time_ms = 1000, .games = 100, .parallel = 2, .plies = 2,
                        .early = 20, .rings = 37, .seed = 1, .sprt = { 0, 0, 0.05, 0.05 } };
    bool have_time = false;
    cli_openings openings = { 0 };
    int taken;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        bool ok = true;
        if (cli_is_help(s)) { usage(stdout); return 0; }
        if (!strcmp(s, "--quiet")) a->quiet = 1;
        else if (!strcmp(s, "--net")) ok = text_opt(argc, argv, &i, &a->net);
        else if (!strcmp(s, "--net-opts")) ok = text_opt(argc, argv, &i, &a->net_opts);
        else if (!strcmp(s, "--previous")) ok = text_opt(argc, argv, &i, &a->previous);
        else if (!strcmp(s, "--markdown")) ok = text_opt(argc, argv, &i, &a->md);
        else if (!strcmp(s, "--sgf")) ok = text_opt(argc, argv, &i, &a->sgf);
        else if (!strcmp(s, "--vs")) {
            if (a->nvs == MAX_OPP) return bad(s, "too many opponents");
            if ((ok = text_opt(argc, argv, &i, &a->vs[a->nvs]))) a->nvs++;
        } else if (!strcmp(s, "--time")) {
            ok = cli_long_opt(TOOL, argc, argv, &i, 1, 3600000, &a->time_ms);
            have_time = true;
        } else if (!strcmp(s, "--sims")) ok = cli_long_opt(TOOL, argc, argv, &i, 1, 1000000000, &a->sims);
        else if (!strcmp(s, "--games")) {
            if ((ok = cli_int_opt(TOOL, argc, argv, &i, 2, 100000, &a->games)) && a->games % 2) {
                char why[128];
                snprintf(why, sizeof why, "expected an even number of games from 2 to 100000, not '%.40s'", argv[i]);
                return bad(s, why);
            }
        } else if (!strcmp(s, "--parallel")) ok = cli_int_opt(TOOL, argc, argv, &i, 1, 256, &a->parallel);
        else if (!strcmp(s, "--opening-plies")) ok = cli_int_opt(TOOL, argc, argv, &i, 0, 16, &a->plies);
        else if ((taken = cli_openings_opt(TOOL, argc, argv, &i, &openings)) != 0) ok = taken > 0;
        else if (!strcmp(s, "--early-stop")) ok = cli_int_opt(TOOL, argc, argv, &i, 0, 100000, &a->early);
        else if (!strcmp(s, "--seed")) ok = cli_u64_opt(TOOL, argc, argv, &i, UINT64_MAX, &a->seed);
        else if (!strcmp(s, "--sprt")) {
            const char *v = cli_value(TOOL, argc, argv, &i);
            char why[160];
            double keep_a = a->sprt.alpha, keep_b = a->sprt.beta;
            if (!v) return 2;
            if (mcts_sprt_parse(v, &a->sprt, why, sizeof why) != 0) return bad(s, why);
            if (a->use_sprt) a->sprt.alpha = keep_a, a->sprt.beta = keep_b;
            a->use_sprt = true;
        }
        else if (!strcmp(s, "--sprt-alpha")) ok = cli_double_opt(TOOL, argc, argv, &i, 0.001, 0.499, &a->sprt.alpha);
        else if (!strcmp(s, "--sprt-beta")) ok = cli_double_opt(TOOL, argc, argv, &i, 0.001, 0.499, &a->sprt.beta);
        else if (!strcmp(s, "--rings")) ok = cli_rings_opt(TOOL, argc, argv, &i, &a->rings);
        else return cli_unknown(TOOL, s);
        if (!ok) return 2;
    }
    if (have_time && a->sims) return bad("--sims", "give --sims or --time, not both");
    if (cli_openings_check(TOOL, &openings, a->plies, mcts_archive_dir(), &a->archive)) return 2;
    if (a->nvs == 0) {
        a->vs[a->nvs++] = "uct";
        a->vs[a->nvs++] = "uct10";
        a->vs[a->nvs++] = "ab";
        if (a->previous) a->vs[a->nvs++] = "previous";
        a->vs[a->nvs++] = "random";
    }
    return -1;
}

/* The candidate's agent spec (cand) and each opponent's name and spec (rungs[0..nvs)).  -1 to go
 * on; else the exit status. */
static int make_specs(const ladder_args *a, char *cand, size_t candlen, rung *rungs) {
    char budget[96], budget10[96];
    if (a->sims) {
        snprintf(budget, sizeof budget, "%ld", a->sims);
        snprintf(budget10, sizeof budget10, "%ld", 10 * a->sims);
    } else {
        snprintf(budget, sizeof budget, "1000000000,time=%ld", a->time_ms);
        snprintf(budget10, sizeof budget10, "1000000000,time=%ld", 10 * a->time_ms);
    }
    const char *sep = a->net_opts[0] ? "," : "";
    snprintf(cand, candlen, "puct:%s:%s,threads=1%s%s", a->net, budget, sep, a->net_opts);
    memset(rungs, 0, sizeof *rungs * MAX_OPP);
    for (int k = 0; k < a->nvs; k++) {
        rung *g = &rungs[k];
        const char *v = a->vs[k];
        snprintf(g->name, sizeof g->name, "%.63s", v);
        if (!strcmp(v, "uct")) {
            snprintf(g->spec, sizeof g->spec, "uct:%s", budget);
            snprintf(g->name, sizeof g->name, "uct, same %s", a->sims ? "count" : "time");
        } else if (!strcmp(v, "uct10")) {
            snprintf(g->spec, sizeof g->spec, "uct:%s", budget10);
            snprintf(g->name, sizeof g->name, "uct, 10x the %s", a->sims ? "count" : "time");
        } else if (!strcmp(v, "ab")) {
            if (a->sims) snprintf(g->spec, sizeof g->spec, "ab:3");
            else snprintf(g->spec, sizeof g->spec, "ab:%d,time=%ld", MCTS_AB_MAX_DEPTH, a->time_ms);
            snprintf(g->name, sizeof g->name, "alpha-beta, %s", a->sims ? "depth 3" : "same time");
        } else if (!strcmp(v, "previous")) {
            if (!a->previous) return bad("--vs previous", "needs --previous CKPT");
            snprintf(g->spec, sizeof g->spec, "puct:%s:%s,threads=1%s%s", a->previous, budget, sep, a->net_opts);
            snprintf(g->name, sizeof g->name, "previous network");
        } else {
            snprintf(g->spec, sizeof g->spec, "%s", v);
        }
    }
    const char *files[2] = { a->net, a->previous };   /* the networks' files readable before any game */
    for (int k = 0; k < 2; k++) {
        const char *f = files[k];
        if (!f || !strcmp(f, "default") || !strcmp(f, "uniform") || !strncmp(f, "rollout", 7)) continue;
        if (access(f, R_OK) != 0) {
            char why[600];
            snprintf(why, sizeof why, "%s: %s", f, strerror(errno));
            return bad(k ? "--previous" : "--net", why);
        }
    }
    char why[600], what[120];                 /* every spec and network checked before the first game */
    zz_board_kind board = zz_board_for_rings(a->rings)->kind;
    if (mcts_agent_check_board(cand, board, why, sizeof why) != 0) return bad("--net", why);
    for (int k = 0; k < a->nvs; k++)
        if (mcts_agent_check_board(rungs[k].spec, board, why, sizeof why) != 0) {
            snprintf(what, sizeof what, "--vs %.60s", a->vs[k]);
            return bad(what, why);
        }
    return -1;
}

/* The match of cand against rung k, from the openings (its SGF under a->sgf/k).  0, or the exit
 * status after a message. */
static int play_rung(const ladder_args *a, const char *cand, rung *g, int k, const mcts_opening *op, int nop) {
    mcts_match_config c;
    memset(&c, 0, sizeof c);
    c.spec[0] = cand;
    c.spec[1] = g->spec;
    c.games = a->games;
    c.parallel = a->parallel;
    c.agent_threads = 1;
    c.seed = a->seed * 1000003ULL + (uint64_t)k;
    c.board = zz_board_for_rings(a->rings)->kind;
    c.ply_cap = MCTS_MATCH_PLY_CAP_DEFAULT;
    c.openings = op;
    c.nopenings = nop;
    c.stop_early = a->use_sprt ? 0 : a->early;             /* the SPRT decides when to stop */
    c.sprt = a->use_sprt ? &a->sprt : NULL;
    c.progress = a->quiet ? NULL : stderr;
    char dir[1100], err[512];
    if (a->sgf) {
        if (mkdir(a->sgf, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "zertz: strength: %s: %s\n", a->sgf, strerror(errno));
            return 1;
        }
        snprintf(dir, sizeof dir, "%.900s/%d", a->sgf, k);
        c.sgf_dir = dir;
    }
    if (!a->quiet) fprintf(stderr, "strength: vs %s (%s)\n", g->name, g->spec);
    if (mcts_match_run(&c, &g->r, err, sizeof err) != 0) {
        fprintf(stderr, "zertz: strength: %s: %s\n", g->name, err);
        return 1;
    }
    g->ran = 1;
    return 0;
}

/* The table, as Markdown: one row per rung.  The text (malloc'd), or NULL when out of memory. */
static char *make_table(const ladder_args *a, const rung *rungs) {
    char *table = NULL;
    size_t tlen = 0;
    FILE *t = open_memstream(&table, &tlen);
    if (!t) return NULL;
    fprintf(t, "| %s vs | games | distinct | W-L-D | score | Elo [95%%] | W-L-D moving first / second | ms/move (net / opp) | sims/s (net / opp) |\n", a->net);
    fprintf(t, "|---|---|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < a->nvs; k++) {
        const rung *g = &rungs[k];
        mcts_elo e = mcts_elo_estimate(g->r.wins, g->r.losses, g->r.draws);
        char el[16], lo[16], hi[16];
        fmt_elo(el, sizeof el, e.elo);
        fmt_elo(lo, sizeof lo, e.lo);
        fmt_elo(hi, sizeof hi, e.hi);
        double ms0 = g->r.moves[0] ? 1000 * g->r.seconds[0] / g->r.moves[0] : 0;
        double ms1 = g->r.moves[1] ? 1000 * g->r.seconds[1] / g->r.moves[1] : 0;
        double sp0 = g->r.seconds[0] > 0 ? g->r.sims[0] / g->r.seconds[0] : 0;
        double sp1 = g->r.seconds[1] > 0 ? g->r.sims[1] / g->r.seconds[1] : 0;
        const mcts_match_result *r = &g->r;
        int first[3], second[3];
        mcts_match_by_colour(r, first, second);
        fprintf(t, "| %s (`%s`) | %d%s | %d | %d-%d-%d | %.1f%% | %s [%s, %s] | %d-%d-%d / %d-%d-%d | %.0f / %.0f | %.0f / %.0f |\n",
                g->name, g->spec, r->games, r->stopped_early ? " (stopped early)" : "", r->distinct, r->wins, r->losses,
                r->draws, 100 * e.score, el, lo, hi, first[0], first[1], first[2], second[0], second[1], second[2], ms0, ms1, sp0, sp1);
    }
    char cpu[512];
    nn_cpu_describe(cpu, sizeof cpu);
    fprintf(t, "\nMachine: %s.\n", cpu);
    fclose(t);
    return table;
}

/* The table on stdout (and in a->md), the agent errors counted.  The exit status. */
static int report(const ladder_args *a, const rung *rungs) {
    char *table = make_table(a, rungs);
    if (!table) return bad("table", "out of memory");
    printf("\n%s", table);
    for (int k = 0; a->use_sprt && k < a->nvs; k++) {
        const mcts_match_result *r = &rungs[k].r;
        double lo, hi;
        mcts_sprt_bounds(a->sprt.alpha, a->sprt.beta, &lo, &hi);
        printf("SPRT vs %s, H0 %+.0f Elo against H1 %+.0f (alpha %.3g, beta %.3g): %s after %d games, LLR %.2f in [%.2f, %.2f]",
               rungs[k].name, a->sprt.elo0, a->sprt.elo1, a->sprt.alpha, a->sprt.beta,
               r->sprt_decision == MCTS_SPRT_H1 ? "H1 accepted" : r->sprt_decision == MCTS_SPRT_H0 ? "H0 accepted" : "undecided",
               r->sprt_games, r->sprt_llr, lo, hi);
        if (r->games > r->sprt_games) printf(" (%d more game%s finished the pairs in progress)", r->games - r->sprt_games, r->games - r->sprt_games == 1 ? "" : "s");
        printf("\n");
    }
    int errors = 0;
    for (int k = 0; k < a->nvs; k++) errors += rungs[k].r.errors;
    if (errors) printf("\n%d games ended by an agent error (scored as its loss)\n", errors);
    if (a->md) {
        char why[600];
        if (zz_write_file_atomic(a->md, table, strlen(table), why, sizeof why) != 0) {
            fprintf(stderr, "zertz: strength: cannot write the table: %s\n", why);
            free(table);
            return 1;
        }
        printf("table written to %s\n", a->md);
    }
    free(table);
    return errors ? 1 : 0;
}

int main(int argc, char **argv) {
    nn_omp_single_thread(argv);   /* each side on one core (omp_env.h) */
    signal(SIGPIPE, SIG_IGN);
    ladder_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0) return rc;
    char cand[1200];
    rung rungs[MAX_OPP];
    if ((rc = make_specs(&a, cand, sizeof cand, rungs)) >= 0) return rc;
    zz_board_kind board = zz_board_for_rings(a.rings)->kind;
    static mcts_opening openings[MAX_OPENINGS];
    int want = a.games / 2 < MAX_OPENINGS ? a.games / 2 : MAX_OPENINGS;
    char why[1400];
    int nop = mcts_openings_make(a.archive, board, a.plies, want, a.seed, openings, why, sizeof why);
    if (nop < 0) return bad("--openings archive", why);
    if (nop < 1) return bad("--opening-plies", "no opening of that length exists");
    printf("strength: %s, %s per move, %d rings, %d games per opponent from %d openings (%d %s each, "
           "both colours), %d at once, seed %llu\n",
           cand, a.sims ? "a fixed count" : "fixed time", zz_board_get(board)->rings, a.games, nop, a.plies,
           a.archive ? "Boardspace turns" : "random plies", a.parallel, (unsigned long long)a.seed);
    nn_cpu_print_line("strength: ");
    fflush(stdout);
    for (int k = 0; k < a.nvs; k++)
        if ((rc = play_rung(&a, cand, &rungs[k], k, openings, nop)) != 0) return rc;
    return report(&a, rungs);
}
