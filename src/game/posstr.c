/* posstr.c — positions as one line of text (posstr.h). */
#include "posstr.h"
#include "board.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int zz_pos_to_string(const zz_pos *p, char *out) {
    const zz_board *b = zz_pos_board(p);
    int n = snprintf(out, ZZ_POSSTR_MAX, "zpos:%d:", b->rings);
    for (int i = 0; i < b->ncells; i++) {
        int c = b->cells[i], col = zz_colour_at(p, c);
        out[n++] = !zz_has(p->rings, c) ? '-' : col >= 0 ? ZZ_COLOUR_CHAR[col] : '.';
    }
    char chain[8] = "-";
    if (p->chain != ZZ_NO_CELL) zz_cell_name(b, p->chain, chain);
    n += snprintf(out + n, (size_t)(ZZ_POSSTR_MAX - n), ":%d,%d,%d:%d,%d,%d:%d,%d,%d:%d:%s:%d", p->pool[0], p->pool[1],
                  p->pool[2], p->cap[0][0], p->cap[0][1], p->cap[0][2], p->cap[1][0], p->cap[1][1], p->cap[1][2],
                  p->to_move, chain, p->ply);
    return n;
}

/* Three counts "a,b,c", each 0..99.  Returns the text after them, or NULL. */
static const char *read_triple(const char *s, uint8_t v[3]) {
    for (int k = 0; k < 3; k++) {
        if (!isdigit((unsigned char)*s)) return NULL;
        char *end;
        long x = strtol(s, &end, 10);
        if (x > 99 || end - s > 2) return NULL;
        v[k] = (uint8_t)x;
        s = end;
        if (k < 2 && *s++ != ',') return NULL;
    }
    return s;
}

int zz_pos_from_string(const char *text, zz_pos *out, char *err, size_t errlen) {
    while (isspace((unsigned char)*text)) text++;
    if (strncmp(text, "zpos:", 5) != 0) { snprintf(err, errlen, "a position starts with 'zpos:'"); return -1; }
    const char *s = text + 5;
    char *end;
    long rings = strtol(s, &end, 10);
    const zz_board *b = end != s ? zz_board_for_rings((int)rings) : NULL;
    if (!b || *end != ':') { snprintf(err, errlen, "the board must be 37, 48 or 61 rings"); return -1; }
    s = end + 1;
    zz_pos p;
    zz_pos_init(&p, b->kind);
    p.rings = 0;
    for (int c = 0; c < 3; c++) p.marble[c] = 0;
    for (int i = 0; i < b->ncells; i++, s++) {
        int cell = b->cells[i];
        char ch = *s;
        if (ch == '-') continue;
        if (ch != '.' && ch != 'W' && ch != 'G' && ch != 'B') {
            snprintf(err, errlen, "cell %d of %d: '%c' is not one of - . W G B", i + 1, b->ncells, ch ? ch : '?');
            return -1;
        }
        p.rings |= zz_bit(cell);
        if (ch != '.') p.marble[ch == 'W' ? 0 : ch == 'G' ? 1 : 2] |= zz_bit(cell);
    }
    if (*s++ != ':') { snprintf(err, errlen, "the %d-ring board has %d cells: the cell list is too long", b->rings, b->ncells); return -1; }
    const char *names[3] = { "pool", "player 0's captures", "player 1's captures" };
    uint8_t *tr[3] = { p.pool, p.cap[0], p.cap[1] };
    for (int k = 0; k < 3; k++) {
        if (!(s = read_triple(s, tr[k])) || *s++ != ':') {
            snprintf(err, errlen, "%s: three counts 'white,grey,black' expected", names[k]);
            return -1;
        }
    }
    if ((*s != '0' && *s != '1') || s[1] != ':') { snprintf(err, errlen, "the player to move is 0 or 1"); return -1; }
    p.to_move = (uint8_t)(*s - '0');
    s += 2;
    const char *colon = strchr(s, ':');
    if (!colon) { snprintf(err, errlen, "the chain cell and the ply are missing"); return -1; }
    p.chain = ZZ_NO_CELL;
    if (!(colon - s == 1 && *s == '-')) {
        const char *c = s;
        int cell = zz_parse_cell(b, &c);
        if (cell < 0 || c != colon) { snprintf(err, errlen, "chain: '%.*s' is not a cell of this board", (int)(colon - s), s); return -1; }
        p.chain = (uint8_t)cell;
    }
    s = colon + 1;
    long ply = strtol(s, &end, 10);
    if (end == s || ply < 0 || ply > 65535) { snprintf(err, errlen, "the ply is a number 0..65535"); return -1; }
    while (isspace((unsigned char)*end)) end++;
    if (*end) { snprintf(err, errlen, "unexpected text after the ply: '%.20s'", end); return -1; }
    p.ply = (uint16_t)ply;
    const char *why = zz_pos_validate(&p);
    if (why) { snprintf(err, errlen, "not a position: %s", why); return -1; }
    if (p.chain != ZZ_NO_CELL && !zz_has(zz_jump_sources(&p), p.chain)) {
        snprintf(err, errlen, "chain: the marble there has no jump");
        return -1;
    }
    p.winner = -1;
    p.end = ZZ_END_NONE;
    /* a win is settled at the end of a turn (never inside a chain of jumps), for the mover */
    if (p.chain == ZZ_NO_CELL)
        for (int k = 0; k < 2 && p.end == ZZ_END_NONE; k++) {
            int pl = k == 0 ? 1 - p.to_move : p.to_move;
            if (zz_is_winning_set(p.cap[pl])) { p.end = ZZ_END_CAPTURE; p.winner = (int8_t)pl; }
        }
    if (p.end == ZZ_END_NONE && zz_count_moves(&p) == 0) { p.end = ZZ_END_NO_MOVE; p.winner = (int8_t)(1 - p.to_move); }
    *out = p;
    return 0;
}
