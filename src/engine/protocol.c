/* protocol.c — the engine protocol (see protocol.h and PROTOCOL.md): a thin adapter that reads
 * command lines and answers them over the engine session (session.h), which holds the game and
 * the engine. */
#include "protocol.h"
#include "game/handicap.h"
#include "game/notation.h"
#include "game/posstr.h"
#include "game/atomic_file.h"
#include "game/sgf.h"
#include "mcts/agent.h"
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ENGINE_NAME "zertz-mcts"
#define ENGINE_VERSION "1.0"
#define ZE_LINE_MAX 1023           /* the longest command line, without its newline */
#define ZE_STR_(x) #x
#define ZE_STR(x) ZE_STR_(x)

struct ze_protocol {
    ze_session *game;              /* the game and the engine */
    uint64_t sims;                 /* default budget for bestmove (0 = the spec's) */
    double time_ms;                /* default time for bestmove (0 = none) */
    zz_handicap handicap;          /* Zertz+H: applied by every newgame without its own */
    bool has_handicap;
};

const zz_pos *ze_protocol_position(const ze_protocol *s) { return ze_session_position(s->game); }

ze_protocol *ze_protocol_new(const char *spec, int threads, uint64_t seed, char *err, size_t errlen) {
    ze_protocol *s = calloc(1, sizeof *s);
    if (!s) { snprintf(err, errlen, "out of memory"); return NULL; }
    if (!(s->game = ze_session_new(spec, threads, seed, err, errlen))) { free(s); return NULL; }
    return s;
}

void ze_protocol_free(ze_protocol *s) {
    if (!s) return;
    ze_session_free(s->game);
    free(s);
}

/* ---- answers ------------------------------------------------------------------------------- */
static void ok(FILE *out) { fputs("ok\n", out); fflush(out); }

/* "err <why>" then "ok".  The reason may quote the client's bytes: control characters and every
 * byte above ASCII (0x9b is a terminal's one-byte CSI; the protocol itself is ASCII) are written
 * as '?', so that an answer is one line of ASCII and carries no terminal escape. */
static void fail(FILE *out, const char *fmt, const char *a, const char *b) {
    char msg[2048];
    snprintf(msg, sizeof msg, fmt, a ? a : "", b ? b : "");
    for (char *p = msg; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f) *p = '?';
    fprintf(out, "err %s\n", msg);
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
static void cmd_info(ze_protocol *s, FILE *out) {
    fprintf(out, "id %s %s\nagent %s\nboards 37 48 61\n", ENGINE_NAME, ENGINE_VERSION, ze_session_agent_spec(s->game));
    ok(out);
}

/* newgame [37|48|61] [handicap P:W,G,B]: the opening of that board, with the session's handicap
 * (tools/engine --handicap) or the one given. */
static void cmd_newgame(ze_protocol *s, const char *arg, FILE *out) {
    int rings = 37;
    char a[64] = "", b[16] = "", c[64] = "", extra[8] = "";
    int k = sscanf(arg, "%63s %15s %63s %7s", a, b, c, extra);
    const char *hc = NULL;
    if (k >= 1 && !strcmp(a, "handicap")) { hc = b; if (k != 2) { fail(out, "newgame: expected 'newgame [37|48|61] [handicap P:W,G,B]', not '%s'", arg, NULL); return; } }
    else if (k >= 1) {
        char *end;
        long v = strtol(a, &end, 10);
        if (*end || v < 1 || v > 61 || !zz_board_for_rings((int)v)) { fail(out, "newgame: board must be 37, 48 or 61, not '%s'", a, NULL); return; }
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
    if (ze_session_newgame(s->game, &start, err, sizeof err) != 0) { fail(out, "newgame: %s", err, NULL); return; }
    ok(out);
}

int ze_protocol_set_handicap(ze_protocol *s, const zz_handicap *h, char *err, size_t errlen) {
    zz_pos start;
    zz_pos_init(&start, (zz_board_kind)ze_session_start(s->game)->board);
    if (zz_handicap_apply(&start, h, err, errlen) != 0) return -1;
    s->handicap = *h;
    s->has_handicap = true;
    return ze_session_newgame(s->game, &start, err, errlen);
}

static void cmd_play(ze_protocol *s, const char *arg, FILE *out) {
    const zz_pos *pos = ze_session_position(s->game);
    if (!*arg) { fail(out, "play: a move is needed", NULL, NULL); return; }
    if (zz_over(pos)) { fail(out, "play: the game is over", NULL, NULL); return; }
    zz_move moves[ZZ_MAX_CHAIN];
    int n = 0;
    char e1[200], e2[200];
    if (zz_move_from_text(pos, arg, &moves[0], e1, sizeof e1) == 0) n = 1;
    else if ((n = zz_turn_from_text(pos, arg, moves, NULL, e2, sizeof e2)) <= 0) {
        fail(out, "play: illegal or malformed move '%s': %s", arg, e1);
        return;
    }
    const zz_move *hist;
    if (ze_session_history(s->game, &hist) + n > ZE_MAX_HISTORY) { fail(out, "play: game too long", NULL, NULL); return; }
    char err[256];
    for (int i = 0; i < n; i++) {
        if (ze_session_play(s->game, moves[i], err, sizeof err) != 0) {
            fail(out, "play: engine: %s", err, NULL);
            return;
        }
    }
    ok(out);
}

static void cmd_validmoves(ze_protocol *s, FILE *out) {
    zz_move *moves = malloc(ZZ_MAX_MOVES * sizeof *moves);
    if (!moves) { fail(out, "out of memory", NULL, NULL); return; }
    const zz_pos *pos = ze_session_position(s->game);
    int n = zz_gen_moves(pos, moves);
    for (int i = 0; i < n; i++) {
        char t[ZZ_NOTATION_MAX];
        zz_move_to_text(pos, moves[i], t);
        fprintf(out, "%s%s", i ? ";" : "", t);
    }
    fputc('\n', out);
    free(moves);
    ok(out);
}

/* A search budget: "sims" a whole number from 1 (0 too where zero_ok: the agent's own) to
 * MCTS_PUCT_MAX_SIMS, "time" milliseconds above 0 (or 0 where zero_ok) to MCTS_MAX_MOVE_MS. */
static bool budget_ok(const char *kind, double v, bool zero_ok) {
    if (!(v >= 0) || (v == 0 && !zero_ok)) return false;
    if (!strcmp(kind, "sims")) return v == floor(v) && v <= (double)MCTS_PUCT_MAX_SIMS;
    return v <= MCTS_MAX_MOVE_MS;
}

/* What budget_ok asks of kind, for a message (buf holds 96 bytes). */
static const char *budget_range(const char *kind, char *buf) {
    if (!strcmp(kind, "sims")) snprintf(buf, 96, "sims must be a whole number from 1 to %llu", (unsigned long long)MCTS_PUCT_MAX_SIMS);
    else snprintf(buf, 96, "time must be a number of milliseconds above 0, at most %.0f", MCTS_MAX_MOVE_MS);
    return buf;
}

static void cmd_bestmove(ze_protocol *s, const char *arg, FILE *out) {
    const zz_pos *pos = ze_session_position(s->game);
    if (zz_over(pos)) { fail(out, "bestmove: the game is over", NULL, NULL); return; }
    uint64_t sims = s->sims;
    double time_ms = s->time_ms;
    if (*arg) {
        char kw[16];
        double v;
        int used = 0;
        if (sscanf(arg, "%15s %lf %n", kw, &v, &used) < 2 || arg[used] || (strcmp(kw, "sims") && strcmp(kw, "time"))) {
            fail(out, "bestmove: expected 'sims N' or 'time MS', not '%s'", arg, NULL);
            return;
        }
        char range[96];
        if (!budget_ok(kw, v, false)) { fail(out, "bestmove: %s", budget_range(kw, range), NULL); return; }
        if (!strcmp(kw, "sims")) { sims = (uint64_t)v; time_ms = 0; }
        else { time_ms = v; sims = 0; }
    }
    zz_move m;
    char err[256];
    if (ze_session_bestmove(s->game, sims, time_ms, &m, err, sizeof err) != 0) { fail(out, "bestmove: %s", err, NULL); return; }
    char t[ZZ_NOTATION_MAX];
    zz_move_to_text(pos, m, t);
    fprintf(out, "%s\n", t);
    ok(out);
}

static void cmd_undo(ze_protocol *s, const char *arg, FILE *out) {
    long n = 1;
    if (*arg) {
        char *end;
        n = strtol(arg, &end, 10);
        if (*end || n < 1) { fail(out, "undo: expected a positive count, not '%s'", arg, NULL); return; }
    }
    const zz_move *hist;
    int played = ze_session_history(s->game, &hist);
    if (n > played) {
        char have[24];
        snprintf(have, sizeof have, "%d", played);
        fail(out, "undo: only %s moves to take back", have, NULL);
        return;
    }
    char err[256];
    if (ze_session_undo(s->game, (int)n, err, sizeof err) != 0) { fail(out, "undo: %s", err, NULL); return; }
    ok(out);
}

/* position startpos [37|48|61] [moves TURN; TURN; ...] | position sgf FILE | position zpos:... */
static void cmd_position(ze_protocol *s, const char *arg, FILE *out) {
    char err[300];
    zz_move *moves = malloc(ZE_MAX_HISTORY * sizeof *moves);
    if (!moves) { fail(out, "position: out of memory", NULL, NULL); return; }
    zz_pos start;
    int n = 0;
    if (!strncmp(arg, "zpos:", 5)) {
        if (zz_pos_from_string(arg, &start, err, sizeof err) != 0) { fail(out, "position: %s", err, NULL); goto done; }
    } else if (!strncmp(arg, "sgf ", 4)) {
        const char *path = arg + 4;
        while (isspace((unsigned char)*path)) path++;
        char why[96];                   /* /dev/stdin, the protocol's own input, would be read to its end */
        if (zz_check_regular_file(path, 64LL << 20, why, sizeof why) != 0) { fail(out, "position: %s: %s", path, why); goto done; }
        zz_game g;
        if (zz_sgf_read_file(path, &g, err, sizeof err) != 0) { fail(out, "position: %s", err, NULL); goto done; }
        start = g.start;
        for (int t = 0; t < g.nturns; t++)
            for (int k = 0; k < g.turns[t].nmoves && n < ZE_MAX_HISTORY; k++) moves[n++] = g.turns[t].moves[k];
        zz_game_free(&g);
    } else if (!strncmp(arg, "startpos", 8) && (!arg[8] || isspace((unsigned char)arg[8]))) {
        const char *p = arg + 8;
        while (isspace((unsigned char)*p)) p++;
        int rings = 37;
        if (isdigit((unsigned char)*p)) {
            char *end;
            long v = strtol(p, &end, 10);
            if (v < 1 || v > 61 || !zz_board_for_rings((int)v)) { fail(out, "position: the board must be 37, 48 or 61, not '%s'", p, NULL); goto done; }
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
                if (n + k > ZE_MAX_HISTORY) { fail(out, "position: the game is too long", NULL, NULL); goto done; }
                memcpy(moves + n, tm, (size_t)k * sizeof *tm);
                n += k;
                cur = after;
            }
        }
    } else {
        fail(out, "position: expected 'startpos [37|48|61] [moves ...]', 'sgf FILE' or 'zpos:...', not '%s'", arg, NULL);
        goto done;
    }
    if (ze_session_set_game(s->game, &start, moves, n, err, sizeof err) != 0) { fail(out, "position: %s", err, NULL); goto done; }
    ok(out);
done:
    free(moves);
}

static void cmd_options(ze_protocol *s, const char *arg, FILE *out) {
    char verb[16] = "", name[32] = "", value[512] = "";
    int k = sscanf(arg, "%15s %31s %511[^\n]", verb, name, value);
    if (k <= 0 || !strcmp(verb, "get")) {
        bool all = k <= 1;
        bool known = all;
        if (all || !strcmp(name, "agent")) fprintf(out, "agent %s\n", ze_session_agent_spec(s->game)), known = true;
        if (all || !strcmp(name, "threads")) fprintf(out, "threads %d\n", ze_session_threads(s->game)), known = true;
        if (all || !strcmp(name, "seed")) fprintf(out, "seed %llu\n", (unsigned long long)ze_session_seed(s->game)), known = true;
        if (all || !strcmp(name, "sims")) fprintf(out, "sims %llu\n", (unsigned long long)s->sims), known = true;
        if (all || !strcmp(name, "time")) fprintf(out, "time %.0f\n", s->time_ms), known = true;
        if (!known) { fail(out, "options: unknown option '%s'", name, NULL); return; }
        ok(out);
        return;
    }
    if (strcmp(verb, "set") || k < 3) { fail(out, "options: expected 'options', 'options get NAME' or 'options set NAME VALUE'", NULL, NULL); return; }
    char err[256];
    if (!strcmp(name, "agent") || !strcmp(name, "threads")) {
        const char *spec = NULL;
        int threads = 0;
        if (!strcmp(name, "agent")) spec = value;
        else {
            char *end;
            long v = strtol(value, &end, 10);
            if (*end || v < 1 || v > 256) { fail(out, "options: threads must be 1..256, not '%s'", value, NULL); return; }
            threads = (int)v;
        }
        if (ze_session_set_agent(s->game, spec, threads, err, sizeof err) != 0) { fail(out, "options: %s", err, NULL); return; }
    } else if (!strcmp(name, "seed") || !strcmp(name, "sims") || !strcmp(name, "time")) {
        char *end;
        double v = strtod(value, &end);
        if (*end || !(v >= 0 && v <= 1e15) || (!strcmp(name, "seed") && v != floor(v))) {
            fail(out, "options: %s must be a whole number from 0 to 1e15", name, NULL);
            return;
        }
        char range[96];
        if (strcmp(name, "seed") && !budget_ok(name, v, true)) { fail(out, "options: %s (or 0)", budget_range(name, range), NULL); return; }
        if (!strcmp(name, "seed")) { if (ze_session_set_seed(s->game, (uint64_t)v, err, sizeof err) != 0) { fail(out, "options: %s", err, NULL); return; } }
        else if (!strcmp(name, "sims")) s->sims = (uint64_t)v;
        else s->time_ms = v;
    } else {
        fail(out, "options: unknown option '%s'", name, NULL);
        return;
    }
    ok(out);
}

int ze_protocol_command(ze_protocol *s, const char *line, FILE *out) {
    char buf[ZE_LINE_MAX + 1];
    if (strlen(line) > ZE_LINE_MAX) { fail(out, "line too long (over " ZE_STR(ZE_LINE_MAX) " bytes)", NULL, NULL); return 0; }
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
    else if (!strcmp(cmd, "board")) { print_board(ze_session_position(s->game), out); ok(out); }
    else if (!strcmp(cmd, "result")) { print_result(ze_session_position(s->game), out); ok(out); }
    else if (!strcmp(cmd, "position")) cmd_position(s, arg, out);
    else if (!strcmp(cmd, "options")) cmd_options(s, arg, out);
    else fail(out, "unknown command '%s' (info, newgame, play, validmoves, bestmove, undo, board, options, quit)", cmd, NULL);
    return 0;
}

/* Read one line (without its newline) into line (ZE_LINE_MAX + 1 bytes), reading an overlong
 * line to its end.  Returns 0, 1 when the line is too long, 2 when it holds a NUL byte (which
 * would cut it short as a C string), or EOF at the end of input with nothing read. */
static int read_line(FILE *in, char *line) {
    size_t len = 0;
    bool nul = false, over = false;
    int ch;
    while ((ch = getc(in)) != EOF && ch != '\n') {
        nul |= ch == 0;
        if (len < ZE_LINE_MAX) line[len++] = (char)ch;
        else over = true;
    }
    line[len] = 0;
    if (ch == EOF && len == 0) return EOF;
    return over ? 1 : nul ? 2 : 0;
}

int ze_protocol_run(ze_protocol *s, FILE *in, FILE *out) {
    char line[ZE_LINE_MAX + 1];
    int r;
    while ((r = read_line(in, line)) != EOF) {
        if (r == 1) fail(out, "line too long (over " ZE_STR(ZE_LINE_MAX) " bytes)", NULL, NULL);
        else if (r == 2) fail(out, "the line holds a NUL byte", NULL, NULL);
        else if (ze_protocol_command(s, line, out)) break;
    }
    return 0;
}
