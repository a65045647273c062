/* xx_sgf.c — replaying Zertz+xx (Zèrtz Extreme) records with Boardspace's state machine
 * (GameBoard.java): Start Pn puts Pn in SETRING (R+ adds a ring anywhere on the 17×12 grid, R-
 * takes one back); Done passes to the other player in MOVE_OR_SWAP, who either moves first or
 * plays Swap (SWAP_CONFIRM; Swap again toggles back to MOVE_OR_SWAP) and Done, after which the
 * set-up player moves first.  As in Boardspace's SetNextPlayer, Done passes the turn from
 * MOVE_OR_SWAP as from SWAP_CONFIRM: after any number of Swaps, even none.  Then turns are as on the standard boards (RULES.md §5), replayed here on the array
 * position of xx.h: placement and removal in either order, compulsory capture, one BtoB per jump
 * with the same marble going on, undo of a placement (BtoR), of a removal (R+) and of a jump
 * (straight back), Done, Resign, WinOnTime, time nodes, and old records without Done.
 * Every turn is checked: the rack (the pool while it holds a marble, else the mover's captures),
 * vacant targets, free rings, legal jumps, a compulsory removal, a finished chain. */
#include "xx.h"
#include "sgf_scan.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef enum { S_PRE, S_SETRING, S_MOVE_OR_SWAP, S_SWAP_CONFIRM, S_MOVE, S_BALL, S_RING, S_DONE, S_CAPTURE,
               S_CONTINUE, S_DONE_CAPTURE, S_OVER } xstate;
static const char *const SNAME[] = { "before Start", "SETRING", "MOVE_OR_SWAP", "SWAP_CONFIRM", "MOVE", "BALL", "RING",
                                     "DONE", "CAPTURE", "CONTINUE", "DONE_CAPTURE", "GAMEOVER" };

typedef struct {
    zz_xx_game *g;
    zz_xx_pos pos;              /* working position (the turn's operations applied) */
    zz_xx_pos turn_start;       /* the position when the turn began */
    xstate st, before_resign;
    bool resigning, has_dones, first_turn;
    int placed, placed_rack, placed_colour, removed;
    int njumps, jf[64], jt[64], jmid[64], jcol[64];
    int setup_rings;
    int line;
    char *err;
    size_t errlen;
} xrep;

static int fail(xrep *r, const char *fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(r->err, r->errlen, "line %d: %s", r->line, msg);
    return -1;
}

/* Record a finished turn: its notation and its operations. */
static int add_turn(xrep *r, zz_xx_turn_kind kind, const char *t) {
    zz_xx_game *g = r->g;
    if (g->nturns == g->cap_text) {
        int cap = g->cap_text ? 2 * g->cap_text : 64;
        void *n = realloc(g->text, (size_t)cap * sizeof *g->text);
        if (!n) return fail(r, "out of memory");
        g->text = n;
        void *m = realloc(g->turn, (size_t)cap * sizeof *g->turn);
        if (!m) return fail(r, "out of memory");
        g->turn = m;
        g->cap_text = cap;
    }
    zz_xx_turn *u = &g->turn[g->nturns];
    memset(u, 0, sizeof *u);
    u->kind = (uint8_t)kind;
    u->player = r->pos.to_move;
    u->cell = u->removed = -1;
    if (kind == ZZ_XX_PLACE) {
        u->rack = (uint8_t)r->placed_rack;
        u->colour = (uint8_t)r->placed_colour;
        u->cell = (int16_t)r->placed;
        u->removed = (int16_t)r->removed;
    } else if (kind == ZZ_XX_JUMPS) {
        if (r->njumps > 32) return fail(r, "capture chain too long");
        u->njumps = (uint8_t)r->njumps;
        for (int i = 0; i < r->njumps; i++) { u->from[i] = (uint8_t)r->jf[i]; u->to[i] = (uint8_t)r->jt[i]; }
    }
    snprintf(g->text[g->nturns++], ZZ_NOTATION_MAX, "%s", t);
    return 0;
}

static void begin_turn(xrep *r) {
    r->turn_start = r->pos;
    r->placed = r->removed = -1;
    r->njumps = 0;
    r->resigning = false;
}

static int parse_cell(xrep *r, const char **s) {
    while (**s == ' ') (*s)++;
    char col = (char)toupper((unsigned char)**s);
    if (col < 'A' || col >= 'A' + ZZ_XX_COLS) return fail(r, "expected a column letter A..Q at '%s'", *s);
    (*s)++;
    int row;
    if (zz_sgf_parse_int(s, &row) < 0 || row < 1 || row > ZZ_XX_ROWS) return fail(r, "expected a row 1..12 after '%c'", col);
    return (col - 'A') * ZZ_XX_ROWS + row - 1;
}

static int other(int p) { return 1 - p; }

/* After a turn or the start: CAPTURE when any capture exists, else MOVE. */
static xstate next_state(const zz_xx_pos *p) { return zz_xx_any_jump(p) ? S_CAPTURE : S_MOVE; }

/* The notation of the turn just finished (before isolation), with isolation captures appended. */
static void turn_text(xrep *r, const zz_xx_pos *before_iso, const zz_xx_pos *after, char *out) {
    char a[8], b[8];
    int n = 0;
    if (r->njumps) {
        zz_xx_cell_name(r->jf[0], a);
        n = sprintf(out, "x %s", a);
        for (int i = 0; i < r->njumps; i++) {
            zz_xx_cell_name(r->jt[i], b);
            n += sprintf(out + n, "%c%s", ZZ_COLOUR_CHAR[r->jcol[i]], b);
        }
        return;
    }
    zz_xx_cell_name(r->placed, a);
    n = sprintf(out, "%c%s", ZZ_COLOUR_CHAR[r->placed_colour], a);
    if (r->removed >= 0) { zz_xx_cell_name(r->removed, b); n += sprintf(out + n, ",%s", b); }
    bool first = true;
    for (int c = 0; c < ZZ_XX_CELLS && n < ZZ_NOTATION_MAX - 16; c++)
        if (before_iso->cell[c] >= 2 && after->cell[c] == ZZ_XX_NONE) {
            zz_xx_cell_name(c, b);
            n += sprintf(out + n, "%s%c%s", first ? " x " : "", ZZ_COLOUR_CHAR[before_iso->cell[c] - 2], b);
            first = false;
        }
}

/* The game ends in the middle of a turn (Resign, WinOnTime): keep the turn's placement, ring
 * removal or jumps so far, which the final position counts, for zz_xx_sgf_write.  0, or -1. */
static int keep_unfinished(xrep *r) {
    zz_xx_game *g = r->g;
    zz_xx_turn *u = &g->unfinished;
    memset(u, 0, sizeof *u);
    u->player = r->pos.to_move;
    u->cell = u->removed = -1;
    g->has_unfinished = r->placed >= 0 || r->removed >= 0 || r->njumps > 0;
    if (r->njumps) {
        if (r->njumps > (int)sizeof u->from) return fail(r, "capture chain too long");
        u->kind = ZZ_XX_JUMPS;
        u->njumps = (uint8_t)r->njumps;
        for (int i = 0; i < r->njumps; i++) { u->from[i] = (uint8_t)r->jf[i]; u->to[i] = (uint8_t)r->jt[i]; }
        return 0;
    }
    u->kind = ZZ_XX_PLACE;
    if (r->placed >= 0) {
        u->cell = (int16_t)r->placed;
        u->rack = (uint8_t)r->placed_rack;
        u->colour = (uint8_t)r->placed_colour;
    }
    u->removed = (int16_t)r->removed;
    return 0;
}

/* The game ends during the set-up (Resign, WinOnTime): keep the rings placed so far as the
 * layout, which the final position has, for zz_xx_sgf_write. */
static void keep_setup_layout(xrep *r) {
    if (r->st != S_SETRING) return;
    r->g->setup_rings = r->setup_rings;
    for (int c = 0; c < ZZ_XX_CELLS; c++) r->g->layout[c] = r->pos.cell[c] != ZZ_XX_NONE ? ZZ_XX_RING : ZZ_XX_NONE;
}

static int do_done(xrep *r) {
    zz_xx_game *g = r->g;
    int me = r->pos.to_move;
    char text[ZZ_NOTATION_MAX];
    if (r->st == S_OVER) return 0;
    if (r->resigning) {                        /* in any state, the set-up included (RESIGN_STATE) */
        if (keep_unfinished(r) < 0) return -1;
        keep_setup_layout(r);
        zz_xx_settle_isolation(&r->pos, me);
        g->final = r->pos;
        g->end = ZZ_END_RESIGN;
        g->winner = other(me);
        r->st = S_OVER;
        return 0;
    }
    switch (r->st) {
    case S_SETRING:
        snprintf(text, sizeof text, "setup %d rings", r->setup_rings);
        g->setup_rings = r->setup_rings;
        for (int c = 0; c < ZZ_XX_CELLS; c++) g->layout[c] = r->pos.cell[c] != ZZ_XX_NONE ? ZZ_XX_RING : ZZ_XX_NONE;
        if (add_turn(r, ZZ_XX_SETUP, text) < 0) return -1;
        r->pos.to_move = (uint8_t)other(me);
        r->st = S_MOVE_OR_SWAP;
        r->first_turn = true;
        begin_turn(r);
        return 0;
    case S_MOVE_OR_SWAP:            /* Done after an even number of Swaps (or none): Boardspace's */
    case S_SWAP_CONFIRM:            /* SetNextPlayer passes the turn from both states alike */
        g->swapped = 1;
        if (add_turn(r, ZZ_XX_SWAP, "swap") < 0) return -1;
        r->pos.to_move = (uint8_t)other(me);
        r->st = next_state(&r->pos);
        r->first_turn = false;
        begin_turn(r);
        return 0;
    default: break;
    }
    if (r->st == S_RING && zz_xx_any_free_ring(&r->pos)) return fail(r, "Done before removing a ring (removal is compulsory)");
    if (r->st != S_DONE && r->st != S_DONE_CAPTURE && r->st != S_RING)
        return fail(r, "Done while the turn is not complete (state %s)", SNAME[r->st]);
    if (r->njumps == 0) {
        const uint8_t *pool = r->turn_start.pool;
        bool pool_empty = !(pool[0] | pool[1] | pool[2]);
        int want = pool_empty ? me : 2;
        if (r->placed_rack != want)
            return fail(r, "marble taken from rack %d, but the rules require %s", r->placed_rack,
                        pool_empty ? "the mover's own captures" : "the pool (rack 2)");
    }
    zz_xx_pos before = r->pos;
    zz_xx_settle_isolation(&r->pos, me);
    turn_text(r, &before, &r->pos, text);
    if (add_turn(r, r->njumps ? ZZ_XX_JUMPS : ZZ_XX_PLACE, text) < 0) return -1;
    if (zz_is_winning_set(r->pos.cap[me])) {
        g->final = r->pos;
        g->end = ZZ_END_CAPTURE;
        g->winner = me;
        r->st = S_OVER;
        return 0;
    }
    r->pos.to_move = (uint8_t)other(me);
    r->st = next_state(&r->pos);
    r->first_turn = false;
    begin_turn(r);
    return 0;
}

static bool done_state(xstate s) {
    return s == S_DONE || s == S_DONE_CAPTURE || s == S_SETRING || s == S_SWAP_CONFIRM;
}

static int op_rtob(xrep *r, const char *s) {
    int rack, colour;
    if (zz_sgf_parse_int(&s, &rack) < 0 || zz_sgf_parse_int(&s, &colour) < 0) return fail(r, "RtoB needs a rack and a colour");
    int c = parse_cell(r, &s);
    if (c < 0) return -1;
    if (rack < 0 || rack > 2 || colour < 0 || colour > 2) return fail(r, "RtoB %d %d: bad rack or colour", rack, colour);
    if (r->st != S_MOVE && r->st != S_MOVE_OR_SWAP && r->st != S_BALL)
        return fail(r, "Can't place new balls now, state=%s", SNAME[r->st]);
    uint8_t *src = rack == 2 ? r->pos.pool : r->pos.cap[rack];
    if (!src[colour]) return fail(r, "RtoB: rack %d holds no marble of colour %d", rack, colour);
    if (r->pos.cell[c] != ZZ_XX_RING) return fail(r, "RtoB: the target is not a vacant ring");
    src[colour]--;
    r->pos.cell[c] = (uint8_t)(2 + colour);
    r->placed = c;
    r->placed_rack = rack;
    r->placed_colour = colour;
    r->st = r->st == S_BALL ? S_DONE : zz_xx_any_free_ring(&r->pos) ? S_RING : S_DONE;
    return 0;
}

static int op_remove(xrep *r, const char *s) {
    int c = parse_cell(r, &s);
    if (c < 0) return -1;
    if (r->st == S_SETRING) {
        if (r->pos.cell[c] != ZZ_XX_RING) return fail(r, "R-: no vacant ring there");
        r->pos.cell[c] = ZZ_XX_NONE;
        r->setup_rings--;
        return 0;
    }
    if (r->st != S_MOVE && r->st != S_MOVE_OR_SWAP && r->st != S_RING)
        return fail(r, "R-: no ring may be removed now, state=%s", SNAME[r->st]);
    if (!zz_xx_free_ring(&r->pos, c)) return fail(r, "R-: the ring is not a free vacant ring (illegal ring removal)");
    r->pos.cell[c] = ZZ_XX_NONE;
    r->removed = c;
    r->st = r->st == S_RING ? S_DONE : S_BALL;
    return 0;
}

static int op_rplus(xrep *r, const char *s) {
    int c = parse_cell(r, &s);
    if (c < 0) return -1;
    if (r->st == S_SETRING) {
        if (r->pos.cell[c] != ZZ_XX_NONE) return fail(r, "R+: there is a ring already");
        r->pos.cell[c] = ZZ_XX_RING;
        r->setup_rings++;
        return 0;
    }
    if ((r->st != S_DONE && r->st != S_BALL) || r->removed != c) return fail(r, "R+: that ring was not removed this turn");
    r->pos.cell[c] = ZZ_XX_RING;
    r->removed = -1;
    r->st = r->st == S_BALL ? (r->first_turn ? S_MOVE_OR_SWAP : S_MOVE) : S_RING;
    return 0;
}

static int op_btor(xrep *r, const char *s) {
    int c = parse_cell(r, &s);
    if (c < 0) return -1;
    if (r->placed != c || (r->st != S_RING && r->st != S_DONE)) return fail(r, "BtoR: no marble was placed on that cell this turn");
    uint8_t *src = r->placed_rack == 2 ? r->pos.pool : r->pos.cap[r->placed_rack];
    src[r->placed_colour]++;
    r->pos.cell[c] = ZZ_XX_RING;
    r->placed = -1;
    r->st = r->removed >= 0 ? S_BALL : (r->first_turn ? S_MOVE_OR_SWAP : S_MOVE);
    return 0;
}

static int op_btob(xrep *r, const char *s) {
    int from = parse_cell(r, &s);
    if (from < 0) return -1;
    int to = parse_cell(r, &s);
    if (to < 0) return -1;
    if (from == to) return 0;
    if (r->st == S_RING || r->st == S_DONE) {              /* moving the marble just placed */
        if (r->placed != from) return fail(r, "BtoB: only the marble just placed may be moved");
        if (r->pos.cell[to] != ZZ_XX_RING) return fail(r, "BtoB: the target is not a vacant ring");
        r->pos.cell[to] = r->pos.cell[from];
        r->pos.cell[from] = ZZ_XX_RING;
        r->placed = to;
        if (r->removed < 0) r->st = zz_xx_any_free_ring(&r->pos) ? S_RING : S_DONE;
        return 0;
    }
    if (r->st != S_CAPTURE && r->st != S_CONTINUE && r->st != S_DONE_CAPTURE)
        return fail(r, "BtoB: no capture is possible now, state=%s", SNAME[r->st]);
    int me = r->pos.to_move;
    if (r->njumps && from == r->jt[r->njumps - 1] && to == r->jf[r->njumps - 1]) {   /* straight back: undo */
        int k = --r->njumps;
        r->pos.cell[r->jf[k]] = r->pos.cell[r->jt[k]];
        r->pos.cell[r->jt[k]] = ZZ_XX_RING;
        r->pos.cell[r->jmid[k]] = (uint8_t)(2 + r->jcol[k]);
        r->pos.cap[me][r->jcol[k]]--;
        r->st = r->njumps ? S_CONTINUE : S_CAPTURE;
        return 0;
    }
    if (r->st == S_DONE_CAPTURE) return fail(r, "BtoB: a new capture after the chain had ended");
    if (r->st == S_CONTINUE && from != r->jt[r->njumps - 1]) return fail(r, "BtoB: the same marble must go on jumping");
    int mid = -1;
    for (int d = 0; d < 6; d++) {
        int m = zz_xx_neighbour(from, d);
        if (m >= 0 && zz_xx_neighbour(m, d) == to) mid = m;
    }
    if (mid < 0 || r->pos.cell[from] < 2 || r->pos.cell[mid] < 2 || r->pos.cell[to] != ZZ_XX_RING)
        return fail(r, "BtoB: not a legal jump");
    if (r->njumps >= 64) return fail(r, "BtoB: chain too long");
    int k = r->njumps++;
    r->jf[k] = from;
    r->jt[k] = to;
    r->jmid[k] = mid;
    r->jcol[k] = r->pos.cell[mid] - 2;
    r->pos.cap[me][r->jcol[k]]++;
    r->pos.cell[to] = r->pos.cell[from];
    r->pos.cell[from] = ZZ_XX_RING;
    r->pos.cell[mid] = ZZ_XX_RING;
    r->st = zz_xx_can_jump_from(&r->pos, to) ? S_CONTINUE : S_DONE_CAPTURE;
    return 0;
}

static int replay_op(xrep *r, int label, const char *v) {
    char word[16];
    const char *s = zz_sgf_command(v, word);
    if (!word[0] || !strcmp(word, "ranking")) return 0;
    if (!strcmp(word, "id")) {
        if (label >= 0) zz_sgf_player_name(s, r->g->player_name[label], sizeof r->g->player_name[label]);
        return 0;
    }
    if (!strcmp(word, "time")) return done_state(r->st) || (r->resigning && r->st != S_OVER) ? do_done(r) : 0;
    if (!strcmp(word, "reset")) return 0;
    if (r->st == S_OVER) {
        if (!strcmp(word, "edit") || !strcmp(word, "done") || !strcmp(word, "resign") || !strcmp(word, "rtor") ||
            !strcmp(word, "winontime"))
            return 0;
        return fail(r, "Can't play %s now, state=GAMEOVER", word);
    }
    if (!strcmp(word, "start")) {
        while (*s == ' ') s++;
        int who = (toupper((unsigned char)s[0]) == 'P' && (s[1] == '0' || s[1] == '1')) ? s[1] - '0' : -1;
        if (who < 0) return fail(r, "Start: expected P0 or P1");
        if (r->st != S_PRE) return 0;
        r->pos.to_move = (uint8_t)who;
        r->g->first_player = who;
        r->st = S_SETRING;
        begin_turn(r);
        return 0;
    }
    if (label >= 0) {
        if (r->st == S_PRE) {                                  /* auto-Start (§2.3.1) */
            r->pos.to_move = (uint8_t)label;
            r->g->first_player = label;
            r->st = S_SETRING;
            begin_turn(r);
        }
        if (!r->has_dones && label != r->pos.to_move && done_state(r->st) && strcmp(word, "done") != 0) {
            if (do_done(r) < 0) return -1;
            if (r->st == S_OVER) return fail(r, "a move after the end of the game");
        }
        if (label != r->pos.to_move && strcmp(word, "done") != 0)
            return fail(r, "a move by P%d, but it is P%d's turn", label, r->pos.to_move);
        if (r->resigning && strcmp(word, "done") != 0 && strcmp(word, "resign") != 0) r->resigning = false;
    }
    if (!strcmp(word, "done")) { r->has_dones = true; return do_done(r); }
    if (!strcmp(word, "swap")) {
        if (r->st == S_MOVE_OR_SWAP) { r->st = S_SWAP_CONFIRM; return 0; }
        if (r->st == S_SWAP_CONFIRM) { r->st = S_MOVE_OR_SWAP; return 0; }
        return fail(r, "Swap is only allowed to the second player before the first move, state=%s", SNAME[r->st]);
    }
    if (!strcmp(word, "rtob")) return op_rtob(r, s);
    if (!strcmp(word, "r-")) return op_remove(r, s);
    if (!strcmp(word, "r+")) return op_rplus(r, s);
    if (!strcmp(word, "btob")) return op_btob(r, s);
    if (!strcmp(word, "btor")) return op_btor(r, s);
    if (!strcmp(word, "rtor")) {
        int a, c, b;
        if (zz_sgf_parse_int(&s, &a) < 0 || zz_sgf_parse_int(&s, &c) < 0 || zz_sgf_parse_int(&s, &b) < 0) return fail(r, "RtoR needs three numbers");
        if (a != b) return fail(r, "RtoR between different racks is not allowed in a game");
        return 0;
    }
    if (!strcmp(word, "resign")) { r->resigning = !r->resigning; return 0; }
    if (!strcmp(word, "winontime")) {
        if (keep_unfinished(r) < 0) return -1;
        keep_setup_layout(r);
        r->g->final = r->pos;
        r->g->end = ZZ_END_TIME;
        r->g->winner = r->pos.to_move;
        r->st = S_OVER;
        return 0;
    }
    if (!strcmp(word, "edit")) return fail(r, "Edit (puzzle mode) in a Zertz+xx record is not supported");
    if (!strcmp(word, "setboard")) return fail(r, "SetBoard in a Zertz+xx record is not supported");
    return fail(r, "unknown command '%s'", word);
}

/* The SU tag's value (first tree's root), or "" when none. */
static void su_tag(const char *text, size_t len, char *out, size_t n) {
    out[0] = 0;
    for (size_t i = 0; i + 3 < len && i < 8192; i++)
        if (text[i] == 'S' && text[i + 1] == 'U' && text[i + 2] == '[' && (i == 0 || !isalnum((unsigned char)text[i - 1]))) {
            size_t k = 0, j = i + 3;
            while (j < len && text[j] == ' ') j++;
            while (j < len && text[j] != ']' && k + 1 < n) out[k++] = text[j++];
            out[k] = 0;
            return;
        }
}

bool zz_sgf_is_extreme(const char *text, size_t len) {
    char su[32];
    su_tag(text, len, su, sizeof su);
    return !strcasecmp(su, ZZ_VARIANT_EXTREME);
}

void zz_xx_game_free(zz_xx_game *g) {
    free(g->text);
    free(g->turn);
    g->text = NULL;
    g->turn = NULL;
    g->nturns = g->cap_text = 0;
}

/* One property value from the scanner (sgf_scan.h): moves, the game kind, the first name. */
static int on_value(void *ctx, int node, const char *id, const char *val, int line) {
    xrep *r = ctx;
    r->line = line;
    if (!strcmp(id, "P0") || !strcmp(id, "P1") || !strcmp(id, "P-1")) return replay_op(r, id[1] == '-' ? -1 : id[1] - '0', val);
    if (!strcmp(id, "GM") && atoi(val) != 22) return fail(r, "not a Zertz record (GM[%s])", val);
    if (!strcmp(id, "GN") && !r->g->game_name[0]) snprintf(r->g->game_name, sizeof r->g->game_name, "%s", val);
    return 0;
}

int zz_xx_sgf_parse(const char *text, size_t len, zz_xx_game *g, char *err, size_t errlen) {
    memset(g, 0, sizeof *g);
    g->winner = -1;
    g->end = ZZ_END_UNFINISHED;
    xrep r;
    memset(&r, 0, sizeof r);
    r.g = g;
    r.err = err;
    r.errlen = errlen;
    r.line = 1;
    r.st = S_PRE;
    for (int c = 0; c < 3; c++) r.pos.pool[c] = (uint8_t)ZZ_START_POOL[c];
    begin_turn(&r);
    if (!zz_sgf_is_extreme(text, len)) return fail(&r, "not a Zertz+xx record (SU[Zertz+xx])");
    zz_sgf_scan_end end;
    if (zz_sgf_scan(text, len, on_value, &r, &end, err, errlen)) return -1;
    r.line = end.line;
    int rc = 0;
    if (r.st != S_OVER && r.resigning) rc = do_done(&r);
    if (r.st != S_OVER) g->final = r.turn_start;       /* the last completed turn */
    return rc;
}

int zz_xx_read_file(const char *path, zz_xx_game *g, char *err, size_t errlen) {
    memset(g, 0, sizeof *g);
    g->winner = -1;
    char *buf;
    size_t len;
    if (zz_read_whole_file(path, &buf, &len, err, errlen)) return -1;
    if (!zz_sgf_is_extreme(buf, len)) { free(buf); return 1; }
    char inner[400];
    int rc = zz_xx_sgf_parse(buf, len, g, inner, sizeof inner);
    free(buf);
    if (rc) snprintf(err, errlen, "%s: %s", path, inner);
    return rc;
}
