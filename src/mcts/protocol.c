/* protocol.c — the engine protocol (see protocol.h and PROTOCOL.md). */
#include "protocol.h"
#include "game/handicap.h"
#include "game/notation.h"
#include "game/posstr.h"
#include "game/sgf.h"
#include "rand.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define ENGINE_NAME "zertz-mcts"
#define ENGINE_VERSION "1.0"

enum { MAX_HISTORY = 4096 };

struct mcts_session {
    char spec[512];
    int threads;
    uint64_t seed;
    uint64_t sims;                 /* default budget for bestmove (0 = the spec's) */
    double time_ms;                /* default time for bestmove (0 = none) */
    mcts_agent *agent;
    zz_pos start;
    zz_pos pos;
    zz_move *history;              /* moves played since start */
    int nhist;
    int games;                     /* newgame count (varies the seed) */
    zz_handicap handicap;          /* Zertz+H: applied by every newgame without its own */
    bool has_handicap;
};

const zz_pos *mcts_session_position(const mcts_session *s) { return &s->pos; }

static int reset_agent(mcts_session *s, char *err, size_t errlen) {
    if (mcts_agent_newgame(s->agent, &s->start, mcts_seed(s->seed + (uint64_t)s->games), err, errlen) != 0) return -1;
    zz_pos p = s->start;
    for (int i = 0; i < s->nhist; i++) {
        if (mcts_agent_played(s->agent, &p, s->history[i], err, errlen) != 0) return -1;
        zz_apply(&p, s->history[i], NULL);
    }
    return 0;
}

mcts_session *mcts_session_new(const char *spec, int threads, uint64_t seed, char *err, size_t errlen) {
    mcts_session *s = calloc(1, sizeof *s);
    if (!s || !(s->history = malloc(MAX_HISTORY * sizeof *s->history))) {
        free(s);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(s->spec, sizeof s->spec, "%s", spec);
    s->threads = threads > 0 ? threads : 1;
    s->seed = seed;
    if (!(s->agent = mcts_agent_new(spec, s->threads, err, errlen))) { mcts_session_free(s); return NULL; }
    zz_pos_init(&s->start, ZZ_B37);
    s->pos = s->start;
    if (reset_agent(s, err, errlen) != 0) { mcts_session_free(s); return NULL; }
    return s;
}

void mcts_session_free(mcts_session *s) {
    if (!s) return;
    mcts_agent_free(s->agent);
    free(s->history);
    free(s);
}

/* ---- answers ------------------------------------------------------------------------------- */
static void ok(FILE *out) { fputs("ok\n", out); fflush(out); }

static void fail(FILE *out, const char *fmt, const char *a, const char *b) {
    fputs("err ", out);
    fprintf(out, fmt, a ? a : "", b ? b : "");
    fputc('\n', out);
    ok(out);
}

/* "result none", "result draw" or "result N wins (how)". */
static void print_result(const zz_pos *p, FILE *out) {
    if (zz_over(p)) {
        if (p->winner >= 0) fprintf(out, "result %d wins (%s)\n", p->winner, p->end == ZZ_END_CAPTURE ? "captures" :
                                    p->end == ZZ_END_NO_MOVE ? "no move" : "other");
        else fprintf(out, "result draw\n");
    } else {
        fprintf(out, "result none\n");
    }
}

static void print_board(const zz_pos *p, FILE *out) {
    const zz_board *b = zz_pos_board(p);
    int ymin = 1 << 20, ymax = -(1 << 20);
    for (int i = 0; i < b->ncells; i++) {
        int c = b->cells[i], y = 2 * zz_cell_a(c) - zz_cell_q(c);
        if (y < ymin) ymin = y;
        if (y > ymax) ymax = y;
    }
    for (int y = ymax; y >= ymin; y--) {
        char line[128];
        int len = 0;
        memset(line, ' ', sizeof line);
        for (int i = 0; i < b->ncells; i++) {
            int c = b->cells[i], q = zz_cell_q(c);
            if (2 * zz_cell_a(c) - q != y) continue;
            int x = 3 + 4 * q, col = zz_colour_at(p, c);
            char ch = !zz_has(p->rings, c) ? ' ' : col >= 0 ? ZZ_COLOUR_CHAR[col] : '.';
            char name[8];
            zz_cell_name(b, c, name);
            line[x] = ch;
            if (x + 1 > len) len = x + 1;
        }
        line[len] = 0;
        fprintf(out, "%s\n", line);
    }
    char cols[128];
    int len = 0;
    memset(cols, ' ', sizeof cols);
    for (int q = 0; q < b->ncols; q++) cols[3 + 4 * q] = (char)('a' + q), len = 4 + 4 * q;
    cols[len] = 0;
    fprintf(out, "%s\n", cols);
    fprintf(out, "rings %d ply %d to_move %d", b->rings, p->ply, p->to_move);
    if (p->chain != ZZ_NO_CELL) {
        char name[8];
        zz_cell_name(b, p->chain, name);
        fprintf(out, " chain %s", name);
    }
    fprintf(out, "\npool W%d G%d B%d\n", p->pool[0], p->pool[1], p->pool[2]);
    for (int pl = 0; pl < 2; pl++)
        fprintf(out, "captures %d W%d G%d B%d\n", pl, p->cap[pl][0], p->cap[pl][1], p->cap[pl][2]);
    char z[ZZ_POSSTR_MAX];
    zz_pos_to_string(p, z);
    fprintf(out, "position %s\n", z);
    print_result(p, out);
}

/* ---- commands -------------------------------------------------------------------------------- */
static void cmd_info(mcts_session *s, FILE *out) {
    fprintf(out, "id %s %s\nagent %s\nboards 37 48 61\n", ENGINE_NAME, ENGINE_VERSION, s->spec);
    ok(out);
}

/* newgame [37|48|61] [handicap P:W,G,B]: the opening of that board, with the session's handicap
 * (tools/engine --handicap) or the one given. */
static void cmd_newgame(mcts_session *s, const char *arg, FILE *out) {
    int rings = 37;
    char a[64] = "", b[16] = "", c[64] = "", extra[8] = "";
    int k = sscanf(arg, "%63s %15s %63s %7s", a, b, c, extra);
    const char *hc = NULL;
    if (k >= 1 && !strcmp(a, "handicap")) { hc = b; if (k != 2) { fail(out, "newgame: expected 'newgame [37|48|61] [handicap P:W,G,B]', not '%s'", arg, NULL); return; } }
    else if (k >= 1) {
        char *end;
        long v = strtol(a, &end, 10);
        if (*end || !zz_board_for_rings((int)v)) { fail(out, "newgame: board must be 37, 48 or 61, not '%s'", a, NULL); return; }
        rings = (int)v;
        if (k >= 2) {
            if (strcmp(b, "handicap") != 0 || k != 3) { fail(out, "newgame: expected 'newgame [37|48|61] [handicap P:W,G,B]', not '%s'", arg, NULL); return; }
            hc = c;
        }
    }
    zz_pos start;
    zz_pos_init(&start, zz_board_for_rings(rings)->kind);
    char err[256];
    zz_handicap h = s->handicap;
    if (hc && zz_handicap_parse(hc, &h, err, sizeof err) != 0) { fail(out, "newgame: %s", err, NULL); return; }
    if ((hc || s->has_handicap) && zz_handicap_apply(&start, &h, err, sizeof err) != 0) { fail(out, "newgame: %s", err, NULL); return; }
    s->start = start;
    s->pos = s->start;
    s->nhist = 0;
    s->games++;
    if (reset_agent(s, err, sizeof err) != 0) { fail(out, "newgame: %s", err, NULL); return; }
    ok(out);
}

int mcts_session_set_handicap(mcts_session *s, const zz_handicap *h, char *err, size_t errlen) {
    zz_pos start;
    zz_pos_init(&start, (zz_board_kind)s->start.board);
    if (zz_handicap_apply(&start, h, err, errlen) != 0) return -1;
    s->handicap = *h;
    s->has_handicap = true;
    s->start = s->pos = start;
    s->nhist = 0;
    return reset_agent(s, err, errlen);
}

static void cmd_play(mcts_session *s, const char *arg, FILE *out) {
    if (!*arg) { fail(out, "play: a move is needed", NULL, NULL); return; }
    if (zz_over(&s->pos)) { fail(out, "play: the game is over", NULL, NULL); return; }
    zz_move moves[ZZ_MAX_CHAIN];
    int n = 0;
    char e1[200], e2[200];
    if (zz_move_from_text(&s->pos, arg, &moves[0], e1, sizeof e1) == 0) n = 1;
    else if ((n = zz_turn_from_text(&s->pos, arg, moves, NULL, e2, sizeof e2)) <= 0) {
        fail(out, "play: illegal or malformed move '%s': %s", arg, e1);
        return;
    }
    if (s->nhist + n > MAX_HISTORY) { fail(out, "play: game too long", NULL, NULL); return; }
    char err[256];
    for (int i = 0; i < n; i++) {
        if (mcts_agent_played(s->agent, &s->pos, moves[i], err, sizeof err) != 0) {
            fail(out, "play: engine: %s", err, NULL);
            return;
        }
        zz_apply(&s->pos, moves[i], NULL);
        s->history[s->nhist++] = moves[i];
    }
    ok(out);
}

static void cmd_validmoves(mcts_session *s, FILE *out) {
    zz_move *moves = malloc(ZZ_MAX_MOVES * sizeof *moves);
    if (!moves) { fail(out, "out of memory", NULL, NULL); return; }
    int n = zz_gen_moves(&s->pos, moves);
    for (int i = 0; i < n; i++) {
        char t[ZZ_NOTATION_MAX];
        zz_move_to_text(&s->pos, moves[i], t);
        fprintf(out, "%s%s", i ? ";" : "", t);
    }
    fputc('\n', out);
    free(moves);
    ok(out);
}

static void cmd_bestmove(mcts_session *s, const char *arg, FILE *out) {
    if (zz_over(&s->pos)) { fail(out, "bestmove: the game is over", NULL, NULL); return; }
    uint64_t sims = s->sims;
    double time_ms = s->time_ms;
    if (*arg) {
        char kw[16];
        double v;
        int used = 0;
        if (sscanf(arg, "%15s %lf %n", kw, &v, &used) < 2 || arg[used] || v <= 0 || v > 1e12 ||
            (strcmp(kw, "sims") && strcmp(kw, "time"))) {
            fail(out, "bestmove: expected 'sims N' or 'time MS', not '%s'", arg, NULL);
            return;
        }
        if (!strcmp(kw, "sims")) { sims = (uint64_t)v; time_ms = 0; }
        else { time_ms = v; sims = 0; }
    }
    mcts_agent *a = s->agent;
    mcts_agent_set_budget(a, sims, time_ms);
    zz_move m;
    char err[256];
    int rc = mcts_agent_choose(a, &s->pos, &m, err, sizeof err);
    if (rc != 0) { fail(out, "bestmove: %s", err, NULL); return; }
    char t[ZZ_NOTATION_MAX];
    zz_move_to_text(&s->pos, m, t);
    fprintf(out, "%s\n", t);
    ok(out);
}

static void cmd_undo(mcts_session *s, const char *arg, FILE *out) {
    long n = 1;
    if (*arg) {
        char *end;
        n = strtol(arg, &end, 10);
        if (*end || n < 1) { fail(out, "undo: expected a positive count, not '%s'", arg, NULL); return; }
    }
    if (n > s->nhist) {
        char have[24];
        snprintf(have, sizeof have, "%d", s->nhist);
        fail(out, "undo: only %s moves to take back", have, NULL);
        return;
    }
    s->nhist -= (int)n;
    s->pos = s->start;
    for (int i = 0; i < s->nhist; i++) zz_apply(&s->pos, s->history[i], NULL);
    char err[256];
    if (reset_agent(s, err, sizeof err) != 0) { fail(out, "undo: %s", err, NULL); return; }
    ok(out);
}

/* Make `start` followed by `moves` the session's game (undo goes back to start at most). */
static int set_game(mcts_session *s, const zz_pos *start, const zz_move *moves, int n, char *err, size_t errlen) {
    if (n > MAX_HISTORY) { snprintf(err, errlen, "the game is too long (%d moves, at most %d)", n, MAX_HISTORY); return -1; }
    zz_pos keep_start = s->start;
    int keep_n = s->nhist;
    s->start = *start;
    memcpy(s->history, moves, (size_t)n * sizeof *moves);
    s->nhist = n;
    s->games++;
    if (reset_agent(s, err, errlen) != 0) {       /* back to the game we had */
        s->start = keep_start;
        s->nhist = keep_n;
        return -1;
    }
    s->pos = *start;
    for (int i = 0; i < n; i++) zz_apply(&s->pos, moves[i], NULL);
    return 0;
}

/* position startpos [37|48|61] [moves TURN; TURN; ...] | position sgf FILE | position zpos:... */
static void cmd_position(mcts_session *s, const char *arg, FILE *out) {
    char err[300];
    zz_move *moves = malloc(MAX_HISTORY * sizeof *moves);
    if (!moves) { fail(out, "position: out of memory", NULL, NULL); return; }
    zz_pos start;
    int n = 0;
    if (!strncmp(arg, "zpos:", 5)) {
        if (zz_pos_from_string(arg, &start, err, sizeof err) != 0) { fail(out, "position: %s", err, NULL); goto done; }
    } else if (!strncmp(arg, "sgf ", 4)) {
        const char *path = arg + 4;
        while (isspace((unsigned char)*path)) path++;
        zz_game g;
        if (zz_sgf_read_file(path, &g, err, sizeof err) != 0) { fail(out, "position: %s", err, NULL); goto done; }
        start = g.start;
        for (int t = 0; t < g.nturns; t++)
            for (int k = 0; k < g.turns[t].nmoves && n < MAX_HISTORY; k++) moves[n++] = g.turns[t].moves[k];
        zz_game_free(&g);
    } else if (!strncmp(arg, "startpos", 8) && (!arg[8] || isspace((unsigned char)arg[8]))) {
        const char *p = arg + 8;
        while (isspace((unsigned char)*p)) p++;
        int rings = 37;
        if (isdigit((unsigned char)*p)) {
            char *end;
            long v = strtol(p, &end, 10);
            if (!zz_board_for_rings((int)v)) { fail(out, "position: the board must be 37, 48 or 61, not '%s'", p, NULL); goto done; }
            rings = (int)v;
            p = end;
            while (isspace((unsigned char)*p)) p++;
        }
        zz_pos_init(&start, zz_board_for_rings(rings)->kind);
        if (*p) {
            if (strncmp(p, "moves", 5) || (p[5] && !isspace((unsigned char)p[5]))) {
                fail(out, "position: after startpos, 'moves TURN; TURN; ...', not '%s'", p, NULL);
                goto done;
            }
            p += 5;
            zz_pos cur = start;
            char turn[256];
            while (*p) {
                while (isspace((unsigned char)*p) || *p == ';') p++;
                if (!*p) break;
                size_t len = strcspn(p, ";");
                if (len >= sizeof turn) len = sizeof turn - 1;
                memcpy(turn, p, len);
                turn[len] = 0;
                p += strcspn(p, ";");
                while (len > 0 && isspace((unsigned char)turn[len - 1])) turn[--len] = 0;
                if (zz_over(&cur)) { fail(out, "position: the game is over before '%s'", turn, NULL); goto done; }
                zz_move tm[ZZ_MAX_CHAIN];
                zz_pos after;
                int k = zz_turn_from_text(&cur, turn, tm, &after, err, sizeof err);
                if (k <= 0) { fail(out, "position: '%s': %s", turn, err); goto done; }
                if (n + k > MAX_HISTORY) { fail(out, "position: the game is too long", NULL, NULL); goto done; }
                memcpy(moves + n, tm, (size_t)k * sizeof *tm);
                n += k;
                cur = after;
            }
        }
    } else {
        fail(out, "position: expected 'startpos [37|48|61] [moves ...]', 'sgf FILE' or 'zpos:...', not '%s'", arg, NULL);
        goto done;
    }
    if (set_game(s, &start, moves, n, err, sizeof err) != 0) { fail(out, "position: %s", err, NULL); goto done; }
    ok(out);
done:
    free(moves);
}

static void cmd_options(mcts_session *s, const char *arg, FILE *out) {
    char verb[16] = "", name[32] = "", value[512] = "";
    int k = sscanf(arg, "%15s %31s %511[^\n]", verb, name, value);
    if (k <= 0 || !strcmp(verb, "get")) {
        bool all = k <= 1;
        bool known = all;
        if (all || !strcmp(name, "agent")) fprintf(out, "agent %s\n", s->spec), known = true;
        if (all || !strcmp(name, "threads")) fprintf(out, "threads %d\n", s->threads), known = true;
        if (all || !strcmp(name, "seed")) fprintf(out, "seed %llu\n", (unsigned long long)s->seed), known = true;
        if (all || !strcmp(name, "sims")) fprintf(out, "sims %llu\n", (unsigned long long)s->sims), known = true;
        if (all || !strcmp(name, "time")) fprintf(out, "time %.0f\n", s->time_ms), known = true;
        if (!known) { fail(out, "options: unknown option '%s'", name, NULL); return; }
        ok(out);
        return;
    }
    if (strcmp(verb, "set") || k < 3) { fail(out, "options: expected 'options', 'options get NAME' or 'options set NAME VALUE'", NULL, NULL); return; }
    char err[256];
    if (!strcmp(name, "agent") || !strcmp(name, "threads")) {
        char spec[512];
        int threads = s->threads;
        snprintf(spec, sizeof spec, "%s", s->spec);
        if (!strcmp(name, "agent")) snprintf(spec, sizeof spec, "%s", value);
        else {
            char *end;
            long v = strtol(value, &end, 10);
            if (*end || v < 1 || v > 256) { fail(out, "options: threads must be 1..256, not '%s'", value, NULL); return; }
            threads = (int)v;
        }
        mcts_agent *a = mcts_agent_new(spec, threads, err, sizeof err);
        if (!a) { fail(out, "options: %s", err, NULL); return; }
        mcts_agent_free(s->agent);
        s->agent = a;
        snprintf(s->spec, sizeof s->spec, "%s", spec);
        s->threads = threads;
        if (reset_agent(s, err, sizeof err) != 0) { fail(out, "options: %s", err, NULL); return; }
    } else if (!strcmp(name, "seed") || !strcmp(name, "sims") || !strcmp(name, "time")) {
        char *end;
        double v = strtod(value, &end);
        if (*end || v < 0 || v > 1e15) { fail(out, "options: %s must be a non-negative number", name, NULL); return; }
        if (!strcmp(name, "seed")) { s->seed = (uint64_t)v; if (reset_agent(s, err, sizeof err) != 0) { fail(out, "options: %s", err, NULL); return; } }
        else if (!strcmp(name, "sims")) s->sims = (uint64_t)v;
        else s->time_ms = v;
    } else {
        fail(out, "options: unknown option '%s'", name, NULL);
        return;
    }
    ok(out);
}

int mcts_session_command(mcts_session *s, const char *line, FILE *out) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", line);
    size_t len = strlen(buf);
    while (len && isspace((unsigned char)buf[len - 1])) buf[--len] = 0;
    char *cmd = buf;
    while (isspace((unsigned char)*cmd)) cmd++;
    if (!*cmd) return 0;                                  /* blank line: no answer */
    char *arg = cmd;
    while (*arg && !isspace((unsigned char)*arg)) arg++;
    if (*arg) *arg++ = 0;
    while (isspace((unsigned char)*arg)) arg++;
    if (!strcmp(cmd, "quit")) { ok(out); return 1; }
    if (!strcmp(cmd, "info")) cmd_info(s, out);
    else if (!strcmp(cmd, "newgame")) cmd_newgame(s, arg, out);
    else if (!strcmp(cmd, "play")) cmd_play(s, arg, out);
    else if (!strcmp(cmd, "validmoves")) cmd_validmoves(s, out);
    else if (!strcmp(cmd, "bestmove")) cmd_bestmove(s, arg, out);
    else if (!strcmp(cmd, "undo")) cmd_undo(s, arg, out);
    else if (!strcmp(cmd, "board")) { print_board(&s->pos, out); ok(out); }
    else if (!strcmp(cmd, "result")) { print_result(&s->pos, out); ok(out); }
    else if (!strcmp(cmd, "position")) cmd_position(s, arg, out);
    else if (!strcmp(cmd, "options")) cmd_options(s, arg, out);
    else fail(out, "unknown command '%s' (info, newgame, play, validmoves, bestmove, undo, board, options, quit)", cmd, NULL);
    return 0;
}

int mcts_session_run(mcts_session *s, FILE *in, FILE *out) {
    char line[1024];
    while (fgets(line, sizeof line, in)) {
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {     /* overlong: drop the rest */
            int ch;
            while ((ch = fgetc(in)) != EOF && ch != '\n') {}
            fail(out, "line too long", NULL, NULL);
            continue;
        }
        if (mcts_session_command(s, line, out)) break;
    }
    return 0;
}
