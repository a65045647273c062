/* draw_position.h — a position picture: title, the board with the last turn marked, the pool and
 * both players' captures beside it (whose turn it is marked), and a caption with the last move and
 * the game's status. */
#ifndef RD_DRAW_POSITION_H
#define RD_DRAW_POSITION_H

#include "render/draw_board.h"

enum { RD_POSITION_WIDTH = 900 };   /* default picture width */

/* Size in pixels of the position picture of a board for a style. */
void rd_position_size(zz_board_kind kind, const rd_style *st, int *w, int *h);
/* Where the board stands in that picture. */
void rd_position_geom(zz_board_kind kind, const rd_style *st, rd_geom *g);
/* Draw the scene into *out (allocated here; free with rd_canvas_free).  Returns 0, or -1 with a
 * message when the picture cannot be allocated. */
int rd_draw_position(const rd_scene *s, const rd_style *st, rd_canvas *out, char *err, size_t errlen);

/* The side panel alone: the pool (an icon of each colour, its count and its marbles), both
 * players' captures (marbles and empty slots up to the winning count), names, the mover marked,
 * in the box (x, y, w) at the scale u (pixels per board unit); returns the height used. */
float rd_draw_trays(rd_canvas *c, const rd_theme *t, const zz_pos *p, const char names[2][64],
                    bool over, int winner, float x, float y, float w, float u);
/* Where rd_draw_position puts the side panel's icons, marbles and slots. */
void rd_position_spots(const rd_scene *s, const rd_style *st, rd_spots *out);

#endif
