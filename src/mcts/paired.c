/* paired.c — ladder logs read and compared game by game; the exact sign test (paired.h). */
#include "paired.h"
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum { LINE_MAX_LEN = 4096 };

/* to[] = the n characters at from, cut to fit. */
static void copy_text(char *to, size_t size, const char *from, size_t n) {
    if (n >= size) n = size - 1;
    memcpy(to, from, n);
    to[n] = 0;
}

/* The header line's fields; false when it is not a ladder's first line. */
static bool parse_header(const char *line, mcts_ladder_log *log) {
    static const char *const budgets[] = { ", fixed time per move, ", ", a fixed count per move, " };
    if (strncmp(line, "strength: ", 10) != 0) return false;
    const char *end = NULL;
    for (int i = 0; i < 2 && !end; i++) end = strstr(line, budgets[i]);
    if (!end) return false;
    size_t n = (size_t)(end - (line + 10));
    if (n >= sizeof log->player) n = sizeof log->player - 1;
    memcpy(log->player, line + 10, n);
    log->player[n] = 0;
    const char *rest = strchr(end + 2, ',');          /* after "fixed time per move" */
    int games, used = 0;
    if (!rest || sscanf(rest, ", %d rings, %d games per opponent from %d openings (%d %n", &log->rings, &games,
                        &log->openings, &log->plies, &used) != 4 || !used)
        return false;
    if (!strncmp(rest + used, "random plies", 12)) log->archive = 0;
    else if (!strncmp(rest + used, "Boardspace turns", 16)) log->archive = 1;
    else return false;
    const char *seed = strstr(rest, ", seed ");
    return seed && sscanf(seed, ", seed %llu", &log->seed) == 1;
}

/* Record game i's result in the rung; false when out of memory or the game was seen before. */
static bool record(mcts_ladder_rung *r, int i, int result, char *why, size_t whylen) {
    if (i >= r->ngames) {
        int n = i + 1 > 2 * r->ngames ? i + 1 : 2 * r->ngames;
        signed char *g = realloc(r->result, (size_t)n);
        if (!g) { snprintf(why, whylen, "out of memory"); return false; }
        memset(g + r->ngames, MCTS_GAME_MISSING, (size_t)(n - r->ngames));
        r->result = g;
        r->ngames = n;
    }
    if (r->result[i] != MCTS_GAME_MISSING) { snprintf(why, whylen, "game %d a second time", i); return false; }
    r->result[i] = (signed char)result;
    return true;
}

/* The rung's length: one past its highest game (record grows the array by doubling). */
static void trim(mcts_ladder_rung *r) {
    while (r->ngames > 0 && r->result[r->ngames - 1] == MCTS_GAME_MISSING) r->ngames--;
}

/* A game line's number and result; -1 when the line does not parse. */
static int parse_game(const char *line, int *index) {
    char first, who[8], what[8];
    int plies, words = sscanf(line, "game %d %c first %d plies %7s %7s", index, &first, &plies, who, what);
    if (words < 4 || *index < 0 || *index >= MCTS_LADDER_MAX_GAMES || (first != 'A' && first != 'B')) return -1;
    if (!strcmp(who, "draw")) return MCTS_GAME_DRAWN;
    if (words < 5 || strcmp(what, "wins") != 0) return -1;
    return !strcmp(who, "A") ? MCTS_GAME_WON : !strcmp(who, "B") ? MCTS_GAME_LOST : -1;
}

int mcts_ladder_log_read(FILE *f, const char *name, mcts_ladder_log *log, char *err, size_t errlen) {
    memset(log, 0, sizeof *log);
    char line[LINE_MAX_LEN], why[128];
    int lineno = 0;
    bool header = false;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = 0;
        if (!header && parse_header(line, log)) { header = true; continue; }
        if (!strncmp(line, "strength: vs ", 13)) {
            if (log->nrungs == MCTS_LADDER_MAX_RUNGS) {
                snprintf(err, errlen, "%s:%d: more than %d opponents", name, lineno, MCTS_LADDER_MAX_RUNGS);
                return -1;
            }
            mcts_ladder_rung *r = &log->rung[log->nrungs++];
            copy_text(r->opponent, sizeof r->opponent, line + 13, strlen(line + 13));
            size_t len = strlen(line);
            const char *paren = strrchr(line + 13, '(');
            if (len > 0 && line[len - 1] == ')' && paren)
                copy_text(r->spec, sizeof r->spec, paren + 1, (size_t)(line + len - 1 - (paren + 1)));
            continue;
        }
        if (strncmp(line, "game ", 5) != 0) continue;       /* tables, SPRT lines, anything else */
        int index, result = parse_game(line, &index);
        if (result < 0) {
            snprintf(err, errlen, "%s:%d: cannot read the game line '%.80s'", name, lineno, line);
            return -1;
        }
        if (log->nrungs == 0) {
            snprintf(err, errlen, "%s:%d: a game before any 'strength: vs OPPONENT' line", name, lineno);
            return -1;
        }
        if (!record(&log->rung[log->nrungs - 1], index, result, why, sizeof why)) {
            snprintf(err, errlen, "%s:%d: %s", name, lineno, why);
            return -1;
        }
    }
    if (ferror(f)) { snprintf(err, errlen, "%s: read error", name); return -1; }
    if (!header) {
        snprintf(err, errlen, "%s: not a ladder's log (no 'strength: PLAYER, ... seed S' line; tools/strength "
                              "without --quiet writes one)", name);
        return -1;
    }
    for (int k = 0; k < log->nrungs; k++) trim(&log->rung[k]);
    return 0;
}

void mcts_ladder_log_free(mcts_ladder_log *log) {
    for (int k = 0; k < log->nrungs; k++) free(log->rung[k].result);
    memset(log, 0, sizeof *log);
}

int mcts_ladder_same_openings(const mcts_ladder_log *a, const mcts_ladder_log *b, char *why, size_t whylen) {
    if (a->rings != b->rings) snprintf(why, whylen, "%d rings against %d", a->rings, b->rings);
    else if (a->seed != b->seed) snprintf(why, whylen, "seed %llu against %llu", a->seed, b->seed);
    else if (a->archive != b->archive)
        snprintf(why, whylen, "%s openings against %s", a->archive ? "archive" : "random",
                 b->archive ? "archive" : "random");
    else if (a->plies != b->plies) snprintf(why, whylen, "openings of %d plies against %d", a->plies, b->plies);
    else if (a->openings != b->openings) snprintf(why, whylen, "%d openings against %d", a->openings, b->openings);
    else return 1;
    return 0;
}

int mcts_ladder_same_opponent(const mcts_ladder_rung *a, const mcts_ladder_rung *b) {
    if (a->spec[0] && b->spec[0]) return !strcmp(a->spec, b->spec);
    return !strcmp(a->opponent, b->opponent);
}

mcts_paired_counts mcts_paired_compare(const mcts_ladder_rung *a, const mcts_ladder_rung *b) {
    mcts_paired_counts c = { 0 };
    int n = a->ngames > b->ngames ? a->ngames : b->ngames;
    for (int i = 0; i < n; i++) {
        int x = i < a->ngames ? a->result[i] : MCTS_GAME_MISSING;
        int y = i < b->ngames ? b->result[i] : MCTS_GAME_MISSING;
        if (x == MCTS_GAME_MISSING || y == MCTS_GAME_MISSING) {
            c.unpaired += x != y;
            continue;
        }
        c.paired++;
        c.a_won += x == MCTS_GAME_WON;
        c.b_won += y == MCTS_GAME_WON;
        if (x == MCTS_GAME_DRAWN || y == MCTS_GAME_DRAWN) c.other++;
        else if (x == y && x == MCTS_GAME_WON) c.both_won++;
        else if (x == y) c.both_lost++;
        else if (x == MCTS_GAME_WON) c.a_only++;
        else c.b_only++;
    }
    return c;
}

double mcts_sign_test_p(int a_only, int b_only) {
    int n = a_only + b_only, k = a_only < b_only ? a_only : b_only;
    if (n <= 0) return 1.0;
    /* P(X <= k) for X ~ Binomial(n, 1/2), the terms summed in logs (n may be large) */
    double tail = 0;
    for (int i = 0; i <= k; i++)
        tail += exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) - n * log(2.0));
    double p = 2 * tail;
    return p < 1 ? p : 1.0;
}
