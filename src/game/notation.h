/* notation.h — official GIPF notation for moves and turns, both ways.
 *
 *   Wd4,d1          place white on d4, remove ring d1
 *   Wd4             place white on d4; no ring could be removed
 *   x d1Gd3Wd5      a capture chain from d1: over a grey landing on d3, over a white landing on d5
 *   Bd7,b2 x Wa1Wa2 a placement whose ring removal isolated (and captured) a1 and a2
 *
 * A move is one decision (a placement, or a single jump "x d1Gd3"); a turn is a placement or a
 * whole chain.  Parsing checks the text against the position: colours of jumped marbles and the
 * isolation suffix, when given, must be what the rules produce. */
#ifndef ZZ_NOTATION_H
#define ZZ_NOTATION_H

#include "position.h"

enum { ZZ_MAX_CHAIN = 32, ZZ_NOTATION_MAX = 256 };

/* Write one move (a placement, or one jump) in notation; returns the length. */
int zz_move_to_text(const zz_pos *p, zz_move m, char *out);
/* Read one move at p (a placement, or one jump written "x d1Gd3" or "x d1d3"). Returns 0 and
 * fills *m when the text is a legal move; else -1 with a message in err (errlen bytes). */
int zz_move_from_text(const zz_pos *p, const char *text, zz_move *m, char *err, size_t errlen);

/* Write the turn made of moves[0..n) starting at p (a placement, or a chain of jumps) with its
 * isolation suffix; returns the length (out holds ZZ_NOTATION_MAX bytes). */
int zz_turn_to_text(const zz_pos *p, const zz_move *moves, int n, char *out);
/* Read a whole turn at p.  On success returns the number of moves written to moves (ZZ_MAX_CHAIN
 * capacity) and plays them on *after when after != NULL; on error returns -1 with a message. */
int zz_turn_from_text(const zz_pos *p, const char *text, zz_move *moves, zz_pos *after,
                      char *err, size_t errlen);

#endif
