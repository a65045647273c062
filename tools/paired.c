/* paired — two players' ladders on the same openings compared game by game (src/mcts/paired.h):
 *
 *   tools/paired A.log B.log [A2.log B2.log ...]
 *
 * Each pair is two logs of tools/strength (without --quiet, standard output and error together)
 * with the same board, openings and seed: A's and B's games against each opponent both logs
 * played (the same agent spec: `--vs ab` and `--vs "ab:64,time=1000"` are one) are paired by number, and the games won by one player only are counted and given the
 * exact sign test.  With several pairs (several seeds), each is reported and then all pooled, per
 * opponent.  Logs that did not play the same openings are refused (exit 1); bad usage exits 2. */
#include "cli.h"
#include "mcts/paired.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const TOOL = "paired";

static void usage(FILE *f) {
    fprintf(f,
            "usage: paired A.log B.log [A2.log B2.log ...]\n"
            "Compares two players game by game over ladders played on the same openings:\n"
            "logs of tools/strength (run without --quiet, its standard output and error in one\n"
            "file), a pair per seed, A's log first.  Per opponent both logs of a pair played:\n"
            "the games paired by number, each side's wins, the games both won or both lost, the\n"
            "games won by one side only, and the exact two-sided sign test on those (the chance\n"
            "of so uneven a split if the players were equal).  Several pairs are also pooled.\n"
            "  -h, --help   this text\n"
            "Logs of different boards, seeds, opening lengths or numbers of openings are refused\n"
            "(exit status 1).\n");
}

/* Totals per opponent, pooled over the pairs. */
typedef struct {
    mcts_ladder_rung rung;          /* the opponent's name and spec */
    mcts_paired_counts c;
    int pairs;
} pooled;

static void add_counts(mcts_paired_counts *to, const mcts_paired_counts *c) {
    to->paired += c->paired, to->both_won += c->both_won, to->both_lost += c->both_lost;
    to->a_only += c->a_only, to->b_only += c->b_only, to->other += c->other;
    to->unpaired += c->unpaired, to->a_won += c->a_won, to->b_won += c->b_won;
}

/* One opponent's comparison (pairs > 0: pooled over that many pairs of logs). */
static void print_counts(const char *opponent, int pairs, const mcts_paired_counts *c) {
    if (pairs > 0) printf("  vs %s, %d pairs of logs:\n   ", opponent, pairs);
    else printf("  vs %s:\n   ", opponent);
    printf(" %d games paired; A won %d, B won %d; both won %d, both lost %d, drawn on a side %d;\n"
           "    won by A only %d, by B only %d: sign test p = %.3g (two-sided, exact)\n",
           c->paired, c->a_won, c->b_won, c->both_won, c->both_lost, c->other, c->a_only, c->b_only,
           mcts_sign_test_p(c->a_only, c->b_only));
    if (c->unpaired)
        printf("    %d game%s in one log only (a ladder stopped early or cut short): not paired\n", c->unpaired,
               c->unpaired == 1 ? "" : "s");
}

static int read_log(const char *path, mcts_ladder_log *log) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "zertz: %s: %s: %s\n", TOOL, path, strerror(errno));
        return -1;
    }
    char err[512];
    int rc = mcts_ladder_log_read(f, path, log, err, sizeof err);
    fclose(f);
    if (rc != 0) fprintf(stderr, "zertz: %s: %s\n", TOOL, err);
    return rc;
}

/* Compare one pair of logs, adding to the pooled totals.  0, or 1 after a message. */
static int compare_pair(const char *pa, const char *pb, int k, pooled *pool, int *npool) {
    static mcts_ladder_log a, b;                      /* read_log clears them; freed below either way */
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    int rc = 1;
    char why[128];
    if (read_log(pa, &a) != 0 || read_log(pb, &b) != 0) goto out;
    if (!mcts_ladder_same_openings(&a, &b, why, sizeof why)) {
        fprintf(stderr, "zertz: %s: %s and %s did not play the same openings (%s)\n", TOOL, pa, pb, why);
        goto out;
    }
    printf("pair %d: %d rings, %d openings of %d plies, seed %llu\n  A: %s (%s)\n  B: %s (%s)\n", k, a.rings, a.openings,
           a.plies, a.seed, a.player, pa, b.player, pb);
    int matched = 0;
    for (int i = 0; i < a.nrungs; i++)
        for (int j = 0; j < b.nrungs; j++) {
            if (!mcts_ladder_same_opponent(&a.rung[i], &b.rung[j])) continue;
            mcts_paired_counts c = mcts_paired_compare(&a.rung[i], &b.rung[j]);
            print_counts(a.rung[i].opponent, 0, &c);
            matched++;
            int p = 0;
            while (p < *npool && !mcts_ladder_same_opponent(&pool[p].rung, &a.rung[i])) p++;
            if (p == *npool && *npool < MCTS_LADDER_MAX_RUNGS) {
                pool[p].rung = a.rung[i];                 /* its name and spec (not its games) */
                pool[p].rung.result = NULL;
                (*npool)++;
            }
            if (p < *npool) { add_counts(&pool[p].c, &c); pool[p].pairs++; }
            break;
        }
    if (!matched) {
        fprintf(stderr, "zertz: %s: %s and %s played no opponent in common\n", TOOL, pa, pb);
        goto out;
    }
    rc = 0;
out:
    mcts_ladder_log_free(&a);
    mcts_ladder_log_free(&b);
    return rc;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) { usage(stdout); return 0; }
        if (argv[i][0] == '-' && argv[i][1]) return cli_unknown(TOOL, argv[i]);
    }
    if (argc < 3 || (argc - 1) % 2 != 0) {
        usage(stderr);
        return cli_bad(TOOL, "arguments", "expected pairs of ladder logs, A's first");
    }
    static pooled pool[MCTS_LADDER_MAX_RUNGS];
    int npool = 0, npairs = (argc - 1) / 2;
    for (int k = 0; k < npairs; k++)
        if (compare_pair(argv[1 + 2 * k], argv[2 + 2 * k], k + 1, pool, &npool) != 0) return 1;
    if (npairs > 1) {
        printf("pooled:\n");
        for (int p = 0; p < npool; p++) print_counts(pool[p].rung.opponent, pool[p].pairs, &pool[p].c);
    }
    return 0;
}
