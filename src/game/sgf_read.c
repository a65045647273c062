/* sgf_read.c — reading Boardspace SGF: the first game tree (tokenized by sgf_scan.h), and a replay
 * that follows Boardspace's own turn state machine (RULES.md §2.3 and §5.1): placement and ring
 * removal in either order, one BtoB per jump, Done, old records without Done (auto-Done), time
 * nodes, Resign/WinOnTime, in-turn undos (BtoR, R+, a jump straight back, re-placing the marble
 * just placed).  Every completed turn is checked against the rules (zz_is_legal) before it is
 * committed, so a record that Boardspace's lenient Execute accepted but the rules refuse is an
 * error naming the line.
 *
 * Set-up (Zertz+H, RULES.md §4): a record may open with `Edit` (Boardspace's puzzle mode) before
 * any turn; until `Start Pn` the operations edit the position freely, as GameBoard.Execute does
 * in PUZZLE_STATE: RtoR between racks (the handicap), RtoB / BtoB / BtoR / R- / R+ without rule
 * checks, and `SetBoard VARIANT`, which starts over on that board (full pool, no captures,
 * GameBoard.doInit).  Start ends the set-up: the edited position is the game's start position
 * and Pn moves first.  Edit after the first turn (history editing) stays an error. */
#include "sgf.h"
#include "handicap.h"
#include "sgf_scan.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- replay state ------------------------------------------------------------------------- */
typedef enum { ST_MOVE, ST_BALL, ST_RING, ST_DONE, ST_CAPTURE, ST_CONTINUE, ST_DONE_CAPTURE, ST_OVER } turn_state;

typedef struct {
    zz_game *g;
    zz_pos pos;                 /* committed position at the start of the current turn */
    /* the turn in progress */
    int placed, placed_colour, placed_rack;   /* placed < 0: none */
    int removed;                              /* < 0: none */
    int njumps;
    int jump_from[ZZ_MAX_CHAIN], jump_to[ZZ_MAX_CHAIN];
    bool resigning;
    bool started, has_dones;
    bool editing;               /* inside an Edit set-up before Start (puzzle mode) */
    bool result_draw;           /* RE[...] says the game is a draw */
    int line;
    char *err;
    size_t errlen;
} replay;

static int fail(replay *r, const char *fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(r->err, r->errlen, "line %d: %s", r->line, msg);
    return -1;
}

static void clear_turn(replay *r) {
    r->placed = r->removed = -1;
    r->placed_colour = r->placed_rack = -1;
    r->njumps = 0;
    r->resigning = false;
}

/* The position with the turn's operations so far applied (no isolation yet). */
static zz_pos working(const replay *r) {
    zz_pos w = r->pos;
    int me = w.to_move;
    if (r->placed >= 0) {
        w.marble[r->placed_colour] |= zz_bit(r->placed);
        if (r->placed_rack == 2) w.pool[r->placed_colour]--;
        else w.cap[r->placed_rack][r->placed_colour]--;
    }
    if (r->removed >= 0) w.rings &= ~zz_bit(r->removed);
    for (int i = 0; i < r->njumps; i++) {
        int a = r->jump_from[i], b = r->jump_to[i], mid = (a + b) / 2;
        int c = zz_colour_at(&w, a), cm = zz_colour_at(&w, mid);
        w.marble[c] = (w.marble[c] & ~zz_bit(a)) | zz_bit(b);
        w.marble[cm] &= ~zz_bit(mid);
        w.cap[me][cm]++;
        w.chain = (uint8_t)b;
    }
    return w;
}

static turn_state state_of(const replay *r) {
    if (r->g->end != ZZ_END_UNFINISHED) return ST_OVER;
    if (r->njumps) {
        zz_pos w = working(r);
        return zz_jump_sources(&w) ? ST_CONTINUE : ST_DONE_CAPTURE;
    }
    if (r->placed < 0 && r->removed < 0) return zz_must_capture(&r->pos) ? ST_CAPTURE : ST_MOVE;
    if (r->placed < 0) return ST_BALL;
    if (r->removed >= 0) return ST_DONE;
    zz_pos w = working(r);
    return zz_free_rings(&w) ? ST_RING : ST_DONE;
}

static bool done_state(turn_state s) { return s == ST_DONE || s == ST_DONE_CAPTURE; }

static const char *const STATE_NAME[] = { "MOVE", "BALL", "RING", "DONE", "CAPTURE", "CONTINUE", "DONE_CAPTURE", "GAMEOVER" };

/* Isolation of the working position, credited to the mover (the unfinished turn of a resign). */
static void settle_isolation(zz_pos *w) {
    zz_bits reach = zz_vacant(w), prev;
    do { prev = reach; reach = (reach | zz_neighbours(reach)) & w->rings; } while (reach != prev);
    zz_bits iso = w->rings & ~reach;
    for (int c = 0; c < 3; c++) {
        w->cap[w->to_move][c] = (uint8_t)(w->cap[w->to_move][c] + zz_popcount(w->marble[c] & iso));
        w->marble[c] &= ~iso;
    }
    w->rings &= ~iso;
}

/* The game ends in the middle of a turn (Resign, WinOnTime): keep that turn's operations so far,
 * which the final position counts, for zz_sgf_write to write back. */
static void keep_unfinished(replay *r) {
    zz_part_turn *u = &r->g->unfinished;
    memset(u, 0, sizeof *u);
    if (r->placed >= 0) {
        u->placed = true;
        u->cell = (uint8_t)r->placed;
        u->colour = (uint8_t)r->placed_colour;
        u->rack = (uint8_t)r->placed_rack;
    }
    if (r->removed >= 0) {
        u->removed = true;
        u->ring = (uint8_t)r->removed;
    }
    u->njumps = r->njumps;
    for (int i = 0; i < r->njumps; i++) u->jumps[i] = zz_move_jump(r->jump_from[i], r->jump_to[i]);
}

/* Done: check the turn against the rules and commit it. */
static int do_done(replay *r) {
    turn_state s = state_of(r);
    if (s == ST_OVER) return 0;
    if (r->resigning) {
        keep_unfinished(r);
        zz_pos w = working(r);
        w.chain = ZZ_NO_CELL;
        settle_isolation(&w);
        w.end = ZZ_END_RESIGN;
        w.winner = (int8_t)(1 - w.to_move);
        r->g->final = w;
        r->g->end = ZZ_END_RESIGN;
        r->g->winner = w.winner;
        clear_turn(r);
        return 0;
    }
    if (!done_state(s)) return fail(r, "Done while the turn is not complete (state %s)", STATE_NAME[s]);
    zz_move moves[ZZ_MAX_CHAIN];
    int n = 0;
    if (r->njumps) {
        for (int i = 0; i < r->njumps; i++) moves[n++] = zz_move_jump(r->jump_from[i], r->jump_to[i]);
    } else {
        bool pool_empty = !(r->pos.pool[0] | r->pos.pool[1] | r->pos.pool[2]);
        int want_rack = pool_empty ? r->pos.to_move : 2;
        if (r->placed_rack != want_rack)
            return fail(r, "marble taken from rack %d, but the rules require %s", r->placed_rack,
                        pool_empty ? "the mover's own captures" : "the pool (rack 2)");
        moves[n++] = zz_move_place(r->placed_colour, r->placed, r->removed < 0 ? ZZ_NO_CELL : r->removed);
    }
    char err[200];
    if (zz_game_add_turn(r->g, moves, n, err, sizeof err) < 0) {
        /* say precisely why, from the position */
        zz_pos q = r->pos;
        for (int i = 0; i < n; i++) {
            if (!zz_is_legal(&q, moves[i])) {
                zz_move dummy;
                char text[64];
                zz_move_to_text(&q, moves[i], text);
                if (zz_move_from_text(&q, text, &dummy, err, sizeof err) == 0) snprintf(err, sizeof err, "illegal move %s", text);
                return fail(r, "turn %d: %s", r->g->nturns + 1, err);
            }
            zz_apply(&q, moves[i], NULL);
        }
        return fail(r, "%s", err);
    }
    r->pos = r->g->final;
    clear_turn(r);
    if (zz_over(&r->pos) && r->pos.end == ZZ_END_NO_MOVE) {
        /* Boardspace has no such rule: the stuck player must resign.  Keep the record going. */
        r->g->end = ZZ_END_UNFINISHED;
        r->g->winner = -1;
    }
    return 0;
}

/* A Boardspace "COL ROW" pair, e.g. "D 4". */
static int parse_colrow(replay *r, const char **s) {
    while (**s == ' ') (*s)++;
    char col = **s;
    if (!isalpha((unsigned char)col)) return fail(r, "expected a column letter at '%s'", *s);
    (*s)++;
    int row;
    if (zz_sgf_parse_int(s, &row) < 0) return fail(r, "expected a row number after '%c'", col);
    int cell = zz_cell_from_colrow(zz_board_get(r->g->board), col, row);
    if (cell < 0) return fail(r, "%c %d is not a cell of the %d-ring board", col, row, zz_board_get(r->g->board)->rings);
    return cell;
}

static int op_rtob(replay *r, const char *s) {
    int rack, colour;
    if (zz_sgf_parse_int(&s, &rack) < 0 || zz_sgf_parse_int(&s, &colour) < 0) return fail(r, "RtoB needs a rack and a colour");
    int cell = parse_colrow(r, &s);
    if (cell < 0) return -1;
    if (rack < 0 || rack > 2) return fail(r, "RtoB: bad rack %d", rack);
    if (colour < 0 || colour > 2) return fail(r, "RtoB: bad colour %d", colour);
    turn_state st = state_of(r);
    if (st != ST_MOVE && st != ST_BALL)
        return fail(r, "Can't place new balls now, state=%s", STATE_NAME[st]);
    zz_pos w = working(r);
    const uint8_t *src = rack == 2 ? w.pool : w.cap[rack];
    if (!src[colour]) return fail(r, "RtoB: rack %d holds no %s marble", rack, colour == 0 ? "white" : colour == 1 ? "grey" : "black");
    if (!zz_has(zz_vacant(&w), cell)) return fail(r, "RtoB: the target is not a vacant ring");
    r->placed = cell;
    r->placed_colour = colour;
    r->placed_rack = rack;
    return 0;
}

static int op_remove(replay *r, const char *s) {
    int cell = parse_colrow(r, &s);
    if (cell < 0) return -1;
    turn_state st = state_of(r);
    if (st != ST_MOVE && st != ST_RING) return fail(r, "R-: no ring may be removed now, state=%s", STATE_NAME[st]);
    zz_pos w = working(r);
    if (!zz_has(zz_free_rings(&w), cell)) return fail(r, "R-: the ring is not a free vacant ring (illegal ring removal)");
    r->removed = cell;
    return 0;
}

static int op_btob(replay *r, const char *s) {
    int from = parse_colrow(r, &s);
    if (from < 0) return -1;
    int to = parse_colrow(r, &s);
    if (to < 0) return -1;
    if (from == to) return 0;                          /* picked up and put back: nothing happens */
    turn_state st = state_of(r);
    if (st == ST_RING || st == ST_DONE) {             /* moving the marble just placed */
        if (r->placed != from) return fail(r, "BtoB: only the marble just placed may be moved");
        zz_pos w = working(r);
        if (!zz_has(zz_vacant(&w), to)) return fail(r, "BtoB: the target is not a vacant ring");
        r->placed = to;
        if (r->removed == to) return fail(r, "BtoB: the target ring was removed");
        return 0;
    }
    if (st != ST_CAPTURE && st != ST_CONTINUE && st != ST_DONE_CAPTURE)
        return fail(r, "BtoB: no capture is possible now, state=%s", STATE_NAME[st]);
    if (r->njumps && from == r->jump_to[r->njumps - 1] && to == r->jump_from[r->njumps - 1]) {
        r->njumps--;                                   /* straight back: un-capture */
        return 0;
    }
    if (st == ST_DONE_CAPTURE) return fail(r, "BtoB: a new capture after the chain had ended");
    zz_pos w = working(r);
    if (st == ST_CAPTURE) w.chain = ZZ_NO_CELL;
    if (!zz_is_legal(&w, zz_move_jump(from, to))) return fail(r, "BtoB: not a legal jump");
    if (r->njumps >= ZZ_MAX_CHAIN) return fail(r, "BtoB: chain too long");
    r->jump_from[r->njumps] = from;
    r->jump_to[r->njumps++] = to;
    return 0;
}

static int op_btor(replay *r, const char *s) {
    int cell = parse_colrow(r, &s);
    if (cell < 0) return -1;
    if (r->placed != cell) return fail(r, "BtoR: no marble was placed on that cell this turn");
    r->placed = -1;                                    /* undo of the placement */
    return 0;
}

static int op_rplus(replay *r, const char *s) {
    int cell = parse_colrow(r, &s);
    if (cell < 0) return -1;
    if (r->removed != cell) return fail(r, "R+: that ring was not removed this turn");
    r->removed = -1;                                   /* undo of the ring removal */
    return 0;
}

/* The board of a Boardspace variant name (Zertz+H is the 48-ring board), or -1. */
static int variant_board(const char *v) {
    for (int k = 0; k < ZZ_NBOARDS; k++)
        if (!strcasecmp(v, zz_board_get((zz_board_kind)k)->variant)) return k;
    if (!strcasecmp(v, ZZ_VARIANT_HANDICAP)) return ZZ_B48;
    return -1;
}

/* Start over on a board: every ring, full pool, no captures (keeps names, variant, header). */
static void reset_board(replay *r, zz_board_kind kind) {
    zz_game *g = r->g;
    zz_game keep = *g;
    zz_game_free(g);
    zz_game_init(g, kind);
    memcpy(g->player_name, keep.player_name, sizeof g->player_name);
    memcpy(g->game_name, keep.game_name, sizeof g->game_name);
    memcpy(g->date, keep.date, sizeof g->date);
    if (!strcmp(keep.variant, ZZ_VARIANT_HANDICAP)) memcpy(g->variant, keep.variant, sizeof g->variant);
    r->pos = g->start;
}

/* A rack number of an RtoR/RtoB/BtoR: 0 or 1 a player's captures, 2 the pool. */
static uint8_t *rack_of(zz_pos *p, int rack) { return rack == 2 ? p->pool : p->cap[rack]; }

/* One operation of an Edit set-up (puzzle mode), applied to r->pos without rule checks, as
 * Boardspace does; only what would break the position's invariants is refused. */
static int edit_op(replay *r, const char *word, const char *s) {
    zz_pos *p = &r->pos;
    if (!strcmp(word, "edit") || !strcmp(word, "done")) return 0;    /* Done in puzzle mode: nothing */
    if (!strcmp(word, "setboard")) {
        while (*s == ' ') s++;
        char v[32];
        int n = 0;
        while (s[n] && s[n] != ' ' && n < 31) { v[n] = s[n]; n++; }
        v[n] = 0;
        int kind = variant_board(v);
        if (kind < 0) return fail(r, "SetBoard %s: %s", v, !strcasecmp(v, "Zertz+xx") ? "Zertz+xx (custom board) is not supported" : "unknown board");
        reset_board(r, (zz_board_kind)kind);
        return 0;
    }
    if (!strcmp(word, "rtor")) {
        int a, c, b;
        if (zz_sgf_parse_int(&s, &a) < 0 || zz_sgf_parse_int(&s, &c) < 0 || zz_sgf_parse_int(&s, &b) < 0) return fail(r, "RtoR needs three numbers");
        if (a < 0 || a > 2 || b < 0 || b > 2 || c < 0 || c > 2) return fail(r, "RtoR %d %d %d: bad rack or colour", a, c, b);
        if (a == b) return 0;
        if (!rack_of(p, a)[c]) return fail(r, "RtoR: rack %d holds no marble of colour %d", a, c);
        rack_of(p, a)[c]--;
        rack_of(p, b)[c]++;
        return 0;
    }
    if (!strcmp(word, "rtob")) {
        int rack, c;
        if (zz_sgf_parse_int(&s, &rack) < 0 || zz_sgf_parse_int(&s, &c) < 0) return fail(r, "RtoB needs a rack and a colour");
        int cell = parse_colrow(r, &s);
        if (cell < 0) return -1;
        if (rack < 0 || rack > 2 || c < 0 || c > 2) return fail(r, "RtoB %d %d: bad rack or colour", rack, c);
        if (!rack_of(p, rack)[c]) return fail(r, "RtoB: rack %d holds no marble of colour %d", rack, c);
        if (!zz_has(zz_vacant(p), cell)) return fail(r, "RtoB: the target is not a vacant ring");
        rack_of(p, rack)[c]--;
        p->marble[c] |= zz_bit(cell);
        return 0;
    }
    if (!strcmp(word, "btor")) {
        int cell = parse_colrow(r, &s), rack;
        if (cell < 0) return -1;
        if (zz_sgf_parse_int(&s, &rack) < 0 || rack < 0 || rack > 2) return fail(r, "BtoR needs a rack 0, 1 or 2");
        int c = zz_colour_at(p, cell);
        if (c < 0) return fail(r, "BtoR: no marble there");
        p->marble[c] &= ~zz_bit(cell);
        rack_of(p, rack)[c]++;
        return 0;
    }
    if (!strcmp(word, "btob")) {
        int from = parse_colrow(r, &s);
        if (from < 0) return -1;
        int to = parse_colrow(r, &s);
        if (to < 0) return -1;
        if (from == to) return 0;
        int c = zz_colour_at(p, from);
        if (c < 0) return fail(r, "BtoB: no marble there");
        if (!zz_has(zz_vacant(p), to)) return fail(r, "BtoB: the target is not a vacant ring");
        p->marble[c] = (p->marble[c] & ~zz_bit(from)) | zz_bit(to);
        return 0;
    }
    if (!strcmp(word, "r-")) {
        int cell = parse_colrow(r, &s);
        if (cell < 0) return -1;
        if (!zz_has(zz_vacant(p), cell)) return fail(r, "R-: not a vacant ring");
        p->rings &= ~zz_bit(cell);
        return 0;
    }
    if (!strcmp(word, "r+")) {
        int cell = parse_colrow(r, &s);
        if (cell < 0) return -1;
        if (zz_has(p->rings, cell)) return fail(r, "R+: there is a ring already");
        p->rings |= zz_bit(cell);
        return 0;
    }
    return fail(r, "%s during the Edit set-up (before Start) is not supported", word);
}

/* The edited position must be one a game can start from: consistent, and no player holding a
 * winning set already (the game would be over before its first turn).  what names the place
 * ("Start", or the record's end when it never starts). */
static int check_setup(replay *r, const char *what) {
    const char *bad = zz_pos_validate(&r->pos);
    if (bad) return fail(r, "%s: the set-up position is inconsistent (%s)", what, bad);
    for (int pl = 0; pl < 2; pl++)
        if (zz_is_winning_set(r->pos.cap[pl])) return fail(r, "%s: the set-up already gives P%d a winning set", what, pl);
    return 0;
}

/* Start Pn after an Edit set-up: the edited position becomes the start position. */
static int end_setup(replay *r, int who) {
    zz_pos *p = &r->pos;
    if (check_setup(r, "Start") < 0) return -1;
    p->to_move = (uint8_t)who;
    r->editing = false;
    r->started = true;
    r->g->start = r->g->final = *p;
    r->g->first_player = who;
    return 0;
}

/* One P0/P1/P-1 property: "[index] Command args". */
static int replay_op(replay *r, int label, const char *v) {
    char word[16];
    const char *s = zz_sgf_command(v, word);
    if (!word[0] || !strcmp(word, "ranking")) return 0;
    if (!strcmp(word, "id")) {
        if (label >= 0) zz_sgf_player_name(s, r->g->player_name[label], sizeof r->g->player_name[label]);
        return 0;
    }
    if (!strcmp(word, "time")) {                               /* §2.3.3 */
        if (r->editing) return 0;                               /* puzzle mode: no turn to end */
        if (done_state(state_of(r)) || (r->resigning && state_of(r) != ST_OVER)) return do_done(r);
        return 0;
    }
    if (!strcmp(word, "reset")) return 0;                       /* §2.3.4 */
    if (!strcmp(word, "start")) {
        while (*s == ' ') s++;
        int who = (toupper((unsigned char)s[0]) == 'P' && (s[1] == '0' || s[1] == '1')) ? s[1] - '0' : -1;
        if (who < 0) return fail(r, "Start: expected P0 or P1");
        if (r->editing) return end_setup(r, who);
        if (!r->started) {
            r->pos.to_move = (uint8_t)who;
            r->g->start.to_move = (uint8_t)who;
            r->g->final.to_move = (uint8_t)who;
            r->g->first_player = who;
            r->started = true;
        }
        return 0;
    }
    if (r->editing) return edit_op(r, word, s);
    turn_state st = state_of(r);
    if (st == ST_OVER) {
        if (!strcmp(word, "edit") || !strcmp(word, "done") || !strcmp(word, "resign") ||
            !strcmp(word, "winontime") || !strcmp(word, "rtor"))
            return 0;                                           /* §2.3.5: nothing happens after the end */
        return fail(r, "Can't play %s now, state=GAMEOVER", word);
    }
    if (!strcmp(word, "edit")) {
        if (r->g->nturns || r->placed >= 0 || r->removed >= 0 || r->njumps)
            return fail(r, "Edit (puzzle mode) after the first move is not supported");
        r->editing = true;                              /* a set-up before the first turn */
        r->started = false;
        clear_turn(r);              /* PUZZLE_STATE replaces any state, a pending Resign's included */
        return 0;
    }
    if (!strcmp(word, "swap")) return fail(r, "Swap is only for Zertz+xx, which is not supported");
    if (!strcmp(word, "setboard")) return fail(r, "SetBoard outside an Edit set-up is not supported");
    /* auto-Start and auto-Done (§2.3.1-2) before a real move */
    if (label >= 0) {
        if (!r->started) {
            r->pos.to_move = r->g->start.to_move = r->g->final.to_move = (uint8_t)label;
            r->g->first_player = label;
            r->started = true;
        }
        if (!r->has_dones && label != r->pos.to_move && done_state(st)) {
            if (do_done(r) < 0) return -1;
            st = state_of(r);
            if (st == ST_OVER) return fail(r, "a move after the end of the game");
        }
        if (label != r->pos.to_move && strcmp(word, "done") != 0)
            return fail(r, "a move by P%d, but it is P%d's turn", label, r->pos.to_move);
        if (r->resigning && strcmp(word, "done") != 0 && strcmp(word, "resign") != 0)
            r->resigning = false;       /* old records: playing on after Resign withdraws it */
    }
    if (!strcmp(word, "done")) { r->has_dones = true; return do_done(r); }
    if (!strcmp(word, "rtob")) return op_rtob(r, s);
    if (!strcmp(word, "r-")) return op_remove(r, s);
    if (!strcmp(word, "btob")) return op_btob(r, s);
    if (!strcmp(word, "btor")) return op_btor(r, s);
    if (!strcmp(word, "r+")) return op_rplus(r, s);
    if (!strcmp(word, "rtor")) {
        int a, c, b;
        if (zz_sgf_parse_int(&s, &a) < 0 || zz_sgf_parse_int(&s, &c) < 0 || zz_sgf_parse_int(&s, &b) < 0) return fail(r, "RtoR needs three numbers");
        if (a != b) return fail(r, "RtoR between different racks outside an Edit set-up (before Start) is not allowed");
        return 0;
    }
    if (!strcmp(word, "resign")) { r->resigning = !r->resigning; return 0; }
    if (!strcmp(word, "winontime")) {
        keep_unfinished(r);
        r->g->final = working(r);
        r->g->final.chain = ZZ_NO_CELL;
        r->g->end = ZZ_END_TIME;
        r->g->winner = r->pos.to_move;
        r->g->final.end = ZZ_END_TIME;
        r->g->final.winner = (int8_t)r->pos.to_move;
        return 0;
    }
    return fail(r, "unknown command '%s'", word);
}

/* Header properties of the root node. */
static int header_prop(replay *r, const char *id, const char *val) {
    zz_game *g = r->g;
    if (!strcmp(id, "GM")) {
        if (atoi(val) != 22) return fail(r, "not a Zertz record (GM[%s], Zertz is GM[22])", val);
    } else if (!strcmp(id, "SU")) {
        const char *v = val;
        while (*v == ' ') v++;
        int kind = variant_board(v);
        if (kind < 0) {
            if (!strcasecmp(v, "Zertz+xx")) return fail(r, "variant Zertz+xx (Extreme, a custom board) is not supported here: tools/replay replays it (game/xx.h); play, notation input and pictures are for the 37-, 48- and 61-ring boards");
            return fail(r, "unknown variant SU[%s]", val);
        }
        if (r->started || r->editing || g->nturns) return fail(r, "SU after the first move");
        reset_board(r, (zz_board_kind)kind);
        snprintf(g->variant, sizeof g->variant, "%s", !strcasecmp(v, ZZ_VARIANT_HANDICAP) ? ZZ_VARIANT_HANDICAP
                                                                                         : zz_board_get((zz_board_kind)kind)->variant);
    } else if (!strcmp(id, "RE")) {
        r->result_draw = strcasestr(val, "draw") != NULL;
    } else if (!strcmp(id, "GN")) {
        snprintf(g->game_name, sizeof g->game_name, "%s", val);
    } else if (!strcmp(id, "DT")) {
        snprintf(g->date, sizeof g->date, "%s", val);
    }
    return 0;
}

/* One property value from the scanner (sgf_scan.h): moves anywhere, header properties in the
 * root node. */
static int on_value(void *ctx, int node, const char *id, const char *val, int line) {
    replay *r = ctx;
    r->line = line;
    if (!strcmp(id, "P0") || !strcmp(id, "P1") || !strcmp(id, "P-1")) return replay_op(r, id[1] == '-' ? -1 : id[1] - '0', val);
    if (node <= 1) return header_prop(r, id, val);
    return 0;
}

int zz_sgf_parse(const char *text, size_t len, zz_game *g, char *err, size_t errlen) {
    zz_game_init(g, ZZ_B37);
    replay r;
    memset(&r, 0, sizeof r);
    r.g = g;
    r.pos = g->start;
    r.err = err;
    r.errlen = errlen;
    r.line = 1;
    clear_turn(&r);
    zz_sgf_scan_end end;
    if (zz_sgf_scan(text, len, on_value, &r, &end, err, errlen)) return -1;
    r.line = end.line;
    if (!end.any) return fail(&r, "empty game record");
    if (r.editing) {                      /* a set-up never started: a game of no turns from it */
        if (check_setup(&r, "the Edit set-up (never started)") < 0) return -1;
        g->start = g->final = r.pos;
    }
    if (g->end == ZZ_END_UNFINISHED && r.resigning) return do_done(&r);   /* Resign left without Done */
    if (g->end == ZZ_END_UNFINISHED && r.result_draw) {   /* undecided on the board, agreed drawn */
        g->end = ZZ_END_PLY_CAP;
        g->winner = -1;
        g->final.end = ZZ_END_PLY_CAP;    /* the game is over (Boardspace: DRAW_STATE, then GAMEOVER) */
        g->final.winner = -1;
    }
    return 0;
}

int zz_sgf_read_file(const char *path, zz_game *g, char *err, size_t errlen) {
    char *buf;
    size_t len;
    if (zz_read_whole_file(path, &buf, &len, err, errlen)) {
        zz_game_init(g, ZZ_B37);
        return -1;
    }
    char inner[400];
    int rc = zz_sgf_parse(buf, len, g, inner, sizeof inner);
    free(buf);
    if (rc) snprintf(err, errlen, "%s: %s", path, inner);
    return rc;
}
