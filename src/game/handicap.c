/* handicap.c — Zèrtz+H handicaps: marbles from the pool into a player's captures (handicap.h). */
#include "handicap.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int zz_handicap_apply(zz_pos *p, const zz_handicap *h, char *err, size_t errlen) {
    static const char *const NAME[3] = { "white", "grey", "black" };
    if (h->player < 0 || h->player > 1) { snprintf(err, errlen, "handicap: the player must be 0 or 1"); return -1; }
    uint8_t cap[3];
    for (int c = 0; c < 3; c++) {
        if (h->wgb[c] < 0 || h->wgb[c] > p->pool[c]) {
            snprintf(err, errlen, "handicap: %d %s marble(s) asked, the pool holds %d", h->wgb[c], NAME[c], p->pool[c]);
            return -1;
        }
        cap[c] = (uint8_t)(p->cap[h->player][c] + h->wgb[c]);
    }
    if (zz_is_winning_set(cap)) {
        snprintf(err, errlen, "handicap: %d/%d/%d would already be a winning set for P%d", cap[0], cap[1], cap[2], h->player);
        return -1;
    }
    for (int c = 0; c < 3; c++) {
        p->pool[c] = (uint8_t)(p->pool[c] - h->wgb[c]);
        p->cap[h->player][c] = cap[c];
    }
    return 0;
}

int zz_handicap_parse(const char *text, zz_handicap *h, char *err, size_t errlen) {
    const char *s = text;
    h->player = 1;
    if ((s[0] == '0' || s[0] == '1') && s[1] == ':') { h->player = s[0] - '0'; s += 2; }
    for (int c = 0; c < 3; c++) {
        if (!isdigit((unsigned char)*s)) goto bad;
        char *end;
        long v = strtol(s, &end, 10);
        if (v > 10 || end - s > 2) goto bad;
        h->wgb[c] = (int)v;
        s = end;
        if (c < 2 && *s++ != ',') goto bad;
    }
    if (*s) goto bad;
    return 0;
bad:
    snprintf(err, errlen, "handicap '%s': expected P:W,G,B (e.g. 1:1,0,0) or W,G,B, counts 0..10", text);
    return -1;
}

bool zz_pos_is_opening(const zz_pos *p) {
    zz_pos o;
    zz_pos_init(&o, (zz_board_kind)p->board);
    o.to_move = p->to_move;
    return zz_pos_equal(&o, p);
}
