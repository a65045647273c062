/* notation.c — official GIPF notation for moves and turns (see notation.h), checked against the
 * position so that a wrong colour, an off-board cell or an illegal move is a precise error. */
#include "notation.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void set_err(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static int colour_of_char(char ch) {
    switch (toupper((unsigned char)ch)) {
    case 'W': return ZZ_WHITE;
    case 'G': return ZZ_GREY;
    case 'B': return ZZ_BLACK;
    default: return -1;
    }
}

static const char *const COLOUR_NAME[3] = { "white", "grey", "black" };

int zz_move_to_text(const zz_pos *p, zz_move m, char *out) {
    const zz_board *b = zz_pos_board(p);
    int n = 0;
    if (zz_move_is_jump(m)) {
        int mid = (zz_move_a(m) + zz_move_b(m)) / 2, c = zz_colour_at(p, mid);
        out[n++] = 'x'; out[n++] = ' ';
        n += zz_cell_name(b, zz_move_a(m), out + n);
        out[n++] = c >= 0 ? ZZ_COLOUR_CHAR[c] : '?';
        n += zz_cell_name(b, zz_move_b(m), out + n);
    } else {
        out[n++] = ZZ_COLOUR_CHAR[zz_move_colour(m) % 3];
        n += zz_cell_name(b, zz_move_a(m), out + n);
        if (zz_move_b(m) != ZZ_NO_CELL) { out[n++] = ','; n += zz_cell_name(b, zz_move_b(m), out + n); }
    }
    out[n] = 0;
    return n;
}

/* Append " x Wa1Wa2" for the marbles isolation took, in the board's column order. */
static int isolation_suffix(const zz_board *b, const zz_effects *fx, char *out) {
    zz_bits all = fx->isolated[0] | fx->isolated[1] | fx->isolated[2];
    if (!all) return 0;
    int n = 0;
    out[n++] = ' '; out[n++] = 'x'; out[n++] = ' ';
    for (int i = 0; i < b->ncells; i++) {
        int cell = b->cells[i];
        for (int c = 0; c < 3; c++)
            if (zz_has(fx->isolated[c], cell)) { out[n++] = ZZ_COLOUR_CHAR[c]; n += zz_cell_name(b, cell, out + n); }
    }
    out[n] = 0;
    return n;
}

int zz_turn_to_text(const zz_pos *p, const zz_move *moves, int n, char *out) {
    const zz_board *b = zz_pos_board(p);
    zz_pos q = *p;
    zz_effects fx;
    int len = 0;
    out[0] = 0;
    for (int i = 0; i < n; i++) {
        if (i == 0) {
            len += zz_move_to_text(&q, moves[i], out + len);
        } else {   /* a chain goes on: the jumped colour and the landing cell */
            int c = zz_colour_at(&q, (zz_move_a(moves[i]) + zz_move_b(moves[i])) / 2);
            out[len++] = c >= 0 ? ZZ_COLOUR_CHAR[c] : '?';
            len += zz_cell_name(b, zz_move_b(moves[i]), out + len);
        }
        zz_apply(&q, moves[i], &fx);
    }
    if (n > 0 && !zz_move_is_jump(moves[0])) len += isolation_suffix(b, &fx, out + len);
    return len;
}

/* Why m is not legal at p (m is known not to be). */
static void explain_illegal(const zz_pos *p, zz_move m, const char *text, char *err, size_t errlen) {
    const zz_board *b = zz_pos_board(p);
    char a[8], r[8];
    zz_cell_name(b, zz_move_a(m), a);
    zz_cell_name(b, zz_move_b(m), r);
    if (zz_over(p)) { set_err(err, errlen, "'%s': the game is over", text); return; }
    if (zz_move_is_jump(m)) {
        if (p->chain != ZZ_NO_CELL && zz_move_a(m) != p->chain) {
            char c[8];
            zz_cell_name(b, p->chain, c);
            set_err(err, errlen, "'%s': the marble on %s must go on jumping", text, c);
        } else if (!zz_has(zz_marbles(p), zz_move_a(m)))
            set_err(err, errlen, "'%s': no marble on %s", text, a);
        else
            set_err(err, errlen, "'%s': no jump from %s to %s", text, a, r);
        return;
    }
    int c = zz_move_colour(m);
    if (zz_jump_sources(p)) set_err(err, errlen, "'%s': a capture is compulsory", text);
    else if (!(zz_placeable_colours(p) >> c & 1))
        set_err(err, errlen, "'%s': no %s marble to place", text, COLOUR_NAME[c]);
    else if (!zz_has(zz_vacant(p), zz_move_a(m))) set_err(err, errlen, "'%s': %s is not a vacant ring", text, a);
    else if (zz_move_b(m) == ZZ_NO_CELL) set_err(err, errlen, "'%s': a free ring must be removed", text);
    else set_err(err, errlen, "'%s': ring %s cannot be removed (not a free vacant ring)", text, r);
}

static const char *skip_space(const char *s) {
    while (*s == ' ' || *s == '\t') s++;
    return s;
}

static int read_cell(const zz_board *b, const char **s, const char *text, char *err, size_t errlen) {
    int cell = zz_parse_cell(b, s);
    if (cell < 0) {
        if (isalpha((unsigned char)**s) && isdigit((unsigned char)(*s)[1]))
            set_err(err, errlen, "'%s': %.3s is not a cell of the %d-ring board", text, *s, b->rings);
        else
            set_err(err, errlen, "'%s': expected a cell at '%s'", text, *s);
    }
    return cell;
}

/* Parse the moves of a turn; stops after one move when single.  Returns the count or -1. */
static int parse_moves(const zz_pos *p0, const char *text, zz_move *moves, zz_pos *out, bool single,
                       char *err, size_t errlen) {
    const zz_board *b = zz_pos_board(p0);
    zz_pos q = *p0;
    zz_effects fx;
    const char *s = skip_space(text);
    int n = 0;
    if ((*s == 'x' || *s == 'X') && (s[1] == ' ' || (isalpha((unsigned char)s[1]) && isdigit((unsigned char)s[2])))) {
        s = skip_space(s + 1);
        int from = read_cell(b, &s, text, err, errlen);
        if (from < 0) return -1;
        while (*s && *s != ' ') {
            int want = -1;
            if (colour_of_char(*s) >= 0 && isalpha((unsigned char)s[1])) want = colour_of_char(*s++);
            int to = read_cell(b, &s, text, err, errlen);
            if (to < 0) return -1;
            zz_move m = zz_move_jump(from, to);
            if (n > 0 && (fx.turn_over || q.chain != from)) {
                set_err(err, errlen, "'%s': the turn has ended before this jump", text);
                return -1;
            }
            if (!zz_is_legal(&q, m)) { explain_illegal(&q, m, text, err, errlen); return -1; }
            int got = zz_colour_at(&q, (from + to) / 2);
            if (want >= 0 && want != got) {
                char mid[8];
                zz_cell_name(b, (from + to) / 2, mid);
                set_err(err, errlen, "'%s': the marble jumped on %s is %s, not %s", text, mid, COLOUR_NAME[got], COLOUR_NAME[want]);
                return -1;
            }
            if (n >= ZZ_MAX_CHAIN) { set_err(err, errlen, "'%s': chain too long", text); return -1; }
            moves[n++] = m;
            zz_apply(&q, m, &fx);
            from = to;
            if (single) break;
        }
        if (n == 0) { set_err(err, errlen, "'%s': a capture needs a landing cell", text); return -1; }
        if (!single && !fx.turn_over && !zz_over(&q)) {
            char c[8];
            zz_cell_name(b, q.chain, c);
            set_err(err, errlen, "'%s': the chain is not finished: the marble on %s must jump again", text, c);
            return -1;
        }
    } else {
        int colour = colour_of_char(*s);
        if (colour < 0) { set_err(err, errlen, "'%s': expected W, G, B or x at the start", text); return -1; }
        s++;
        int cell = read_cell(b, &s, text, err, errlen), removed = ZZ_NO_CELL;
        if (cell < 0) return -1;
        if (*s == ',') {
            s++;
            removed = read_cell(b, &s, text, err, errlen);
            if (removed < 0) return -1;
        }
        zz_move m = zz_move_place(colour, cell, removed);
        if (!zz_is_legal(&q, m)) { explain_illegal(&q, m, text, err, errlen); return -1; }
        moves[n++] = m;
        zz_apply(&q, m, &fx);
        s = skip_space(s);
        if ((*s == 'x' || *s == 'X') && !single) {       /* isolation suffix: must match the rules */
            s = skip_space(s + 1);
            zz_bits said[3] = { 0, 0, 0 };
            while (*s && *s != ' ') {
                int c = colour_of_char(*s);
                if (c < 0) { set_err(err, errlen, "'%s': bad isolation capture at '%s'", text, s); return -1; }
                s++;
                int ic = read_cell(b, &s, text, err, errlen);
                if (ic < 0) return -1;
                said[c] |= zz_bit(ic);
            }
            if (said[0] != fx.isolated[0] || said[1] != fx.isolated[1] || said[2] != fx.isolated[2]) {
                set_err(err, errlen, "'%s': the isolation captures written differ from the rules' result", text);
                return -1;
            }
        }   /* a turn written without its isolation suffix is still accepted */
    }
    s = skip_space(s);
    const char *end = s + strspn(s, " \t;\n\r");        /* a turn may end with separators ... */
    if (*end) {                                         /* ... and nothing after them: one turn */
        set_err(err, errlen, "'%s': unexpected text '%s'%s", text, end,
                end > s ? " after the turn (one turn at a time)" : "");
        return -1;
    }
    if (out) *out = q;
    return n;
}

int zz_move_from_text(const zz_pos *p, const char *text, zz_move *m, char *err, size_t errlen) {
    zz_move tmp[ZZ_MAX_CHAIN];
    if (parse_moves(p, text, tmp, NULL, true, err, errlen) != 1) return -1;
    *m = tmp[0];
    return 0;
}

int zz_turn_from_text(const zz_pos *p, const char *text, zz_move *moves, zz_pos *after,
                      char *err, size_t errlen) {
    return parse_moves(p, text, moves, after, false, err, errlen);
}
