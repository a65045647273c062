/* posstr.h — a whole position as one compact line of text, for the engine protocol's `position`
 * and `board` commands and for users who paste positions around:
 *
 *   zpos:RINGS:CELLS:POOL:CAP0:CAP1:TOMOVE:CHAIN:PLY
 *
 *   RINGS   37, 48 or 61 (the board)
 *   CELLS   one character per cell of the board, in the board's cell order (zz_board cells[]:
 *           column a from the bottom, then column b ...): '-' no ring, '.' a vacant ring,
 *           'W' 'G' 'B' a marble on its ring
 *   POOL    the pool's white,grey,black counts (e.g. 6,8,10); CAP0 / CAP1 each player's captures
 *   TOMOVE  0 or 1;  CHAIN  the cell whose marble must jump on (e.g. d4), or '-';  PLY  moves played
 *
 * Example (the 37-ring opening): zpos:37:.....................................:6,8,10:0,0,0:0,0,0:0:-:0
 * A position read back is over when a player's captures already win (that player won) or when
 * the player to move has no legal move (the other player won). */
#ifndef ZZ_POSSTR_H
#define ZZ_POSSTR_H

#include "position.h"
#include <stddef.h>

enum { ZZ_POSSTR_MAX = 160 };

/* Write p as a zpos line (no newline) into out (ZZ_POSSTR_MAX bytes).  Returns its length. */
int zz_pos_to_string(const zz_pos *p, char *out);
/* Read a zpos line (surrounding blanks allowed).  0, or -1 with a message naming what is wrong
 * (and p untouched). */
int zz_pos_from_string(const char *text, zz_pos *p, char *err, size_t errlen);

#endif
