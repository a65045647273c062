/* equivariance.c — how much a network's answers change with the symmetry of the board it is shown.
 *
 *   equivariance [--net PATH|default] [--rings 37|48|61] [--games N] [--seed S]
 *
 * Plays N games by drawing each move from the network's own priors (so the positions are the kind
 * it plays), and at every position with two moves or more evaluates the board's images under each
 * of its symmetries (zz_board_nsyms: 12 on 37 and 61 rings, 6 on 48), their priors mapped back
 * onto the position's moves (mcts/sym_eval.h does the same for search).  It prints, over those
 * positions: the mean total variation between a symmetry's priors and the identity's, how often
 * their best moves agree, the same two for the mean over the symmetries, and the standard deviation
 * of the value across them.  An exactly equivariant network would print 0, 1, 0, 1, 0.
 * Errors: "zertz: equivariance: <what>: <why>" on stderr, exit 1 (2 for bad arguments). */
#include "cli.h"
#include "game/symmetry.h"
#include "mcts/agent.h"
#include "mcts/evaluator.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *TOOL = "equivariance";

static void usage(FILE *f) {
    fprintf(f, "usage: equivariance [--net PATH|default] [--rings 37|48|61] [--games N] [--seed S]\n"
               "How much the network's priors and value change with the board's symmetry, over the\n"
               "positions of N games drawn from its own priors.\n"
               "  --net PATH     a checkpoint, or default: the shipped network of --rings (default)\n"
               "  --rings R      the board: 37, 48 or 61 (default 37)\n"
               "  --games N      games, 1..10000 (default 6)\n"
               "  --seed S       the games' seed (default 1)\n");
}

typedef struct {
    double tv, agree, tv_mean, agree_mean, value_sd;   /* sums over positions */
    long positions;
} totals;

typedef struct {
    zz_pos image[12];
    zz_move moves[ZZ_MAX_MOVES], image_moves[12][ZZ_MAX_MOVES];
    float priors[12][ZZ_MAX_MOVES], mean[ZZ_MAX_MOVES];
} scratch;

static int argmax(const float *p, int n) {
    int best = 0;
    for (int i = 1; i < n; i++)
        if (p[i] > p[best]) best = i;
    return best;
}

/* Evaluate p's images (moves mapped along, in p's order: the network's priors do not depend on
 * the order) and add the position's figures to *t.  Leaves the identity's priors in w->priors[0]. */
static int measure(mcts_evaluator *ev, const zz_pos *p, int n, scratch *w, totals *t, char *err, size_t errlen) {
    int k = zz_board_nsyms((zz_board_kind)p->board);
    mcts_eval_item items[12];
    for (int s = 0; s < k; s++) {
        const zz_sym *sym = zz_board_sym((zz_board_kind)p->board, s);
        zz_sym_pos(sym, p, &w->image[s]);
        for (int i = 0; i < n; i++) w->image_moves[s][i] = zz_sym_move(sym, w->moves[i]);
        items[s] = (mcts_eval_item){ .pos = &w->image[s], .moves = w->image_moves[s], .nmoves = n,
                                     .priors = w->priors[s] };
    }
    if (mcts_evaluate(ev, items, k, err, errlen) != 0) return -1;
    if (n < 2) return 0;
    double vmean = 0, vvar = 0;
    for (int s = 0; s < k; s++) vmean += items[s].value / k;
    for (int s = 0; s < k; s++) vvar += (items[s].value - vmean) * (items[s].value - vmean) / k;
    for (int i = 0; i < n; i++) {
        w->mean[i] = 0;
        for (int s = 0; s < k; s++) w->mean[i] += w->priors[s][i] / (float)k;
    }
    int best0 = argmax(w->priors[0], n);
    for (int s = 1; s < k; s++) {
        double tv = 0;
        for (int i = 0; i < n; i++) tv += fabs(w->priors[s][i] - w->priors[0][i]) / 2;
        t->tv += tv / (k - 1);
        t->agree += (argmax(w->priors[s], n) == best0) / (double)(k - 1);
    }
    double tv_mean = 0;
    for (int i = 0; i < n; i++) tv_mean += fabs(w->mean[i] - w->priors[0][i]) / 2;
    t->tv_mean += tv_mean;
    t->agree_mean += argmax(w->mean, n) == best0;
    t->value_sd += sqrt(vvar);
    t->positions++;
    return 0;
}

int main(int argc, char **argv) {
    const char *net = "default";
    int rings = 37, games = 6;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) { usage(stdout); return 0; }
        if (!strcmp(argv[i], "--net")) { if (!(net = cli_value(TOOL, argc, argv, &i))) return 2; }
        else if (!strcmp(argv[i], "--rings")) { if (!cli_rings_opt(TOOL, argc, argv, &i, &rings)) return 2; }
        else if (!strcmp(argv[i], "--games")) { if (!cli_int_opt(TOOL, argc, argv, &i, 1, 10000, &games)) return 2; }
        else if (!strcmp(argv[i], "--seed")) { if (!cli_u64_opt(TOOL, argc, argv, &i, UINT64_MAX >> 1, &seed)) return 2; }
        else return cli_unknown(TOOL, argv[i]);
    }
    zz_board_kind board = zz_board_for_rings(rings)->kind;
    char path[1100], err[512];
    if (!strcmp(net, "default")) {
        if (mcts_default_weights(board, path, sizeof path) != 0) {
            cli_bad(TOOL, path, "no shipped network there");
            return 1;
        }
    } else {
        snprintf(path, sizeof path, "%s", net);
    }
    mcts_evaluator *ev = mcts_eval_nn_new(path, err, sizeof err);
    scratch *w = malloc(sizeof *w);
    if (!ev || !w) { cli_bad(TOOL, "--net", ev ? "out of memory" : err); mcts_evaluator_free(ev); free(w); return 1; }
    totals t = { 0 };
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 1;
    int rc = 0;
    for (int g = 0; g < games && rc == 0; g++) {
        zz_pos p;
        zz_pos_init(&p, board);
        while (!zz_over(&p) && rc == 0) {
            int n = zz_gen_moves(&p, w->moves);
            if ((rc = measure(ev, &p, n, w, &t, err, sizeof err)) != 0) break;
            double r = zz_rand_below(&rng, 1u << 30) / (double)(1u << 30), c = 0;
            int pick = n - 1;                            /* the identity's priors: the game goes on */
            for (int i = 0; i < n; i++)
                if (r < (c += w->priors[0][i])) { pick = i; break; }
            zz_apply(&p, w->moves[pick], NULL);
        }
    }
    if (rc != 0 || t.positions == 0) {
        cli_bad(TOOL, path, rc ? err : "no position with two moves or more");
    } else {
        long np = t.positions;
        printf("%s, %d rings, %d symmetries, %d games, %ld positions with a choice:\n", path, rings,
               zz_board_nsyms(board), games, np);
        printf("  a symmetry against the identity: total variation %.3f, best move the same %.1f %%\n", t.tv / np,
               100 * t.agree / np);
        printf("  the mean over them against the identity: total variation %.3f, best move the same %.1f %%\n",
               t.tv_mean / np, 100 * t.agree_mean / np);
        printf("  value across the symmetries: standard deviation %.3f\n", t.value_sd / np);
    }
    mcts_evaluator_free(ev);
    free(w);
    return rc != 0 || t.positions == 0;
}
