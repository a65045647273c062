/* handicap.h — Zèrtz+H: a handicap is marbles moved, before the first move, from the shared pool
 * into a player's captures (Boardspace does it in Edit mode with `RtoR 2 c p`, RULES.md §4).
 *
 * A handicap is position-level: zz_pos already holds both players' captures, so a handicapped
 * game is an ordinary game from a start position whose captures are not zero.  The rules do not
 * change (the marbles count toward the holder's win; once the pool is empty the holder may place
 * them).  Invariant kept: pool + captures + marbles on the board = 6/8/10 per colour.
 *
 * Text form (tools' --handicap option):  "P:W,G,B"  e.g. "1:1,0,0" gives player 1 one white
 * marble; "W,G,B" alone means player 1 (the player who moves second). */
#ifndef ZZ_HANDICAP_H
#define ZZ_HANDICAP_H

#include "position.h"
#include <stddef.h>

/* Boardspace's SU tag of handicap games. */
#define ZZ_VARIANT_HANDICAP "Zertz+H"

typedef struct {
    int player;                 /* 0 or 1: who receives the marbles */
    int wgb[3];                 /* white, grey, black marbles moved from the pool */
} zz_handicap;

/* Move h's marbles from p's pool into player h.player's captures.  Returns 0, or -1 with a
 * message (p untouched) when the pool lacks them or the captures would already win. */
int zz_handicap_apply(zz_pos *p, const zz_handicap *h, char *err, size_t errlen);
/* Read "P:W,G,B" or "W,G,B" (counts 0..10).  0, or -1 with a message. */
int zz_handicap_parse(const char *text, zz_handicap *h, char *err, size_t errlen);
/* True when p is the plain opening of its board apart from, possibly, who moves first (full
 * pool, every ring, no marble, no captures): a game from any other start needs a set-up. */
bool zz_pos_is_opening(const zz_pos *p);

#endif
