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
/* Cap height of the coordinate labels of a board drawn at unit u pixels: 0.28 of the unit, and
 * never below RD_LABEL_MIN pixels while the board leaves room for that (0.45 of a unit). */
float rd_label_size(float u);
#define RD_LABEL_MIN  9.f

#define RD_GHOST      0.85f         /* opacity of a ghost (a marble captured by the marked turn) */

/* One marble with its shadow and outline (radius r pixels), faded by alpha. */
void rd_draw_marble(rd_canvas *c, const rd_theme *t, int colour, float x, float y, float r, float alpha);
/* The ghost of a marble (one the marked turn captured, or a suggested placement): the marble at
 * opacity alpha (RD_GHOST) without a shadow, its outline at full strength, so that the three
 * colours stay as far apart as real marbles and a ghost stays visible on any background. */
void rd_draw_ghost(rd_canvas *c, const rd_theme *t, int colour, float x, float y, float r, float alpha);
/* Overlay a suggested move m of position p (already drawn) in the theme's hint colour. */
void rd_draw_hint(rd_canvas *c, const rd_geom *g, const rd_theme *t, const zz_pos *p, zz_move m);
/* Where a picture put its small marbles (trays, pool icons, capture strips), for checking the
 * pictures: centre, radius, colour and what each one is. */
typedef enum { RD_SPOT_MARBLE, RD_SPOT_ICON, RD_SPOT_SLOT } rd_spot_kind;
typedef struct {
    float x, y, r;
    int colour;                     /* 0 white, 1 grey, 2 black (a slot: the colour of its row) */
    rd_spot_kind kind;              /* a marble, the colour icon of a row, or an empty slot */
    int owner;                      /* -1 the pool, else the player whose captures these are */
} rd_spot;
enum { RD_MAX_SPOTS = 160 };
typedef struct { int n; rd_spot v[RD_MAX_SPOTS]; } rd_spots;
/* Append a spot (ignored when full or when sp is NULL). */
void rd_spot_add(rd_spots *sp, float x, float y, float r, int colour, rd_spot_kind kind, int owner);

/* A tray row from (x, cy): max(count, slots) places of radius r and pitch `pitch`, the first
 * `count` holding marbles of the colour, the others empty slots.  Draws nothing when c is NULL;
 * records the places in sp when not NULL.  Returns the row's width. */
float rd_draw_tray(rd_canvas *c, const rd_theme *t, float x, float cy, float r, float pitch, int colour,
                   int count, int slots, rd_spots *sp, int owner);

#endif
