/* draw_board.h — the board itself: where each ring stands in a picture (flat-top hexagon,
 * Boardspace's vertical columns a.. from the left, rows counted from the bottom of each column),
 * and drawing rings, marbles, coordinate labels, the marks of the last turn, a suggested move, and
 * the small marble trays of the pool and the captures. */
#ifndef RD_DRAW_BOARD_H
#define RD_DRAW_BOARD_H

#include "render/font.h"
#include "render/scene.h"
#include "render/theme.h"

/* A board placed in a picture. */
typedef struct {
    const zz_board *b;
    float unit;                     /* pixels between neighbouring ring centres */
    float x0, y0;                   /* pixel centre of column 0 at height index 0 */
    int first[ZZ_MAX_GRID];         /* Boardspace firstInCol: height index of each column's row 1 */
    int ymax;                       /* highest height index (top ring of the tallest column) */
    bool coords;                    /* room was left for coordinate labels */
} rd_geom;

/* Sizes relative to the unit. */
#define RD_RING_OUT   0.475f        /* ring outer radius */
#define RD_RING_IN    0.255f        /* ring hole radius */
#define RD_MARBLE     0.355f        /* marble radius */

/* The board's extent in units (ring centres plus margins, with room for labels when coords). */
void rd_geom_extent(const zz_board *b, bool coords, float *w_units, float *h_units);
/* Place board b centred in the pixel box (x, y, w, h) at the largest unit that fits. */
void rd_geom_fit(rd_geom *g, const zz_board *b, bool coords, float x, float y, float w, float h);
/* Pixel centre of a cell. */
void rd_geom_cell(const rd_geom *g, int cell, float *x, float *y);

/* Draw the position p (rings, marbles, shadows), the marks of its last turn (m may be NULL) and,
 * when g->coords, the coordinate labels. */
void rd_draw_board(rd_canvas *c, const rd_geom *g, const rd_theme *t, const zz_pos *p, const rd_marks *m);
/* The coordinate labels alone: column letters under the columns, row numbers beside the first
 * and last columns and above the top ring of the others. */
void rd_draw_labels(rd_canvas *c, const rd_geom *g, const rd_theme *t);
/* One marble with its shadow (radius r pixels); alpha < 1 draws a ghost. */
void rd_draw_marble(rd_canvas *c, const rd_theme *t, int colour, float x, float y, float r, float alpha);
/* Overlay a suggested move m of position p (already drawn) in the theme's hint colour. */
void rd_draw_hint(rd_canvas *c, const rd_geom *g, const rd_theme *t, const zz_pos *p, zz_move m);
/* A tray row from (x, cy): max(count, slots) places of radius r and pitch `pitch`, the first
 * `count` holding marbles of the colour, the others empty slots.  Returns the row's width. */
float rd_draw_tray(rd_canvas *c, const rd_theme *t, float x, float cy, float r, float pitch, int colour,
                   int count, int slots);

#endif
