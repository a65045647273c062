/* encode.h — a position as the network's input planes, from the point of view of the player to
 * move.  The encoder owns the plane order; nothing else may rely on it (read NN_PLANES only).
 *
 * Planes (each a grid_h × grid_w plane; every value is 0 off the board):
 *    0      ring present (vacant or occupied)
 *    1-3    white / grey / black marble
 *    4      the marble that must continue a capture (pos.chain), one-hot
 *    5      a capture is pending (the mover must jump): 1 on every on-board cell, else 0
 *    6      on the board: 1 on every cell of the full board (rings removed or not)
 *    7-9    pool white / grey / black, each / its starting count (6, 8, 10), broadcast
 *    10-12  the mover's captures white / grey / black, each / the count that wins (4, 5, 6)
 *    13-15  the opponent's captures, likewise
 * The network reads them as rows (geom.h): x[P][NN_PLANES], channels last. */
#ifndef NN_ENCODE_H
#define NN_ENCODE_H

#include "game/position.h"
#include "nn/geom.h"

enum { NN_PLANES = 16 };

/* Encode p (on g's board) as rows x[g->ncells][NN_PLANES]. */
void nn_encode(const nn_geom *g, const zz_pos *p, float *x);
/* The same as grid planes planes[NN_PLANES][grid_h][grid_w] (for pictures, debugging and parity). */
void nn_encode_grid(const nn_geom *g, const zz_pos *p, float *planes);

#endif
