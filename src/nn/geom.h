/* geom.h — the network's view of a board: its on-board cells in a fixed order, the hex neighbour
 * table used by the convolutions, and the map between that compact order and the square grid.
 *
 * Every activation of the network is stored "rows × channels" (channels last), one row per
 * on-board cell, the rows of a sample in nn_geom order and the samples one after another:
 * x[N][P][C] with P = ncells (37, 48 or 61).  This is the grid_h × grid_w plane layout of
 * ENGINEERING.md with the off-board cells left out: they are zero after every op, so they are not
 * stored at all.  nn_grid_scatter / nn_grid_gather convert to and from the grid planes.
 *
 * Hex taps.  A 3×3 convolution on the grid whose (dq,da) = (+1,-1) and (-1,+1) corners are zero is
 * a hex convolution.  We store only the seven live taps, in raster order of (da, dq):
 *     t:   0        1       2       3      4      5      6
 *   (dq,da) (-1,-1) (0,-1) (-1,0) (0,0) (+1,0) (0,+1) (+1,+1)
 * so a 3×3 kernel k[da+1][dq+1] is w[t] at the live positions.  The opposite of tap t (the tap
 * whose offset is minus t's) is NN_TAPS-1-t. */
#ifndef NN_GEOM_H
#define NN_GEOM_H

#include "game/board.h"

enum { NN_TAPS = 7 };
extern const int NN_TAP_DQ[NN_TAPS];
extern const int NN_TAP_DA[NN_TAPS];

typedef struct {
    zz_board_kind kind;
    int ncells;                          /* P: rows per sample */
    int grid_h, grid_w;                  /* the square grid (a rows, q columns) */
    uint8_t cell[ZZ_MAX_RINGS];          /* row i -> layout cell number (zz_board.cells order) */
    int16_t grid[ZZ_MAX_RINGS];          /* row i -> a * grid_w + q */
    int8_t index[ZZ_NCELLS];             /* layout cell -> row i, or -1 off the board */
    int16_t nb[ZZ_MAX_RINGS][NN_TAPS];   /* row i's neighbour row for each tap, or -1 off the board */
} nn_geom;

/* Fill g for a board kind. */
void nn_geom_init(nn_geom *g, zz_board_kind kind);

/* Grid planes <-> rows.  planes[C][grid_h][grid_w] (off-board cells 0) <-> rows[P][C]. */
void nn_grid_scatter(const nn_geom *g, const float *rows, int C, float *planes);
void nn_grid_gather(const nn_geom *g, const float *planes, int C, float *rows);

#endif
