/* draw_sequence.h — a game sequence sheet: a header (players, board, result) and a grid of
 * panels, one per turn in a range, each showing the position after that turn with the turn marked,
 * captioned with its number and notation, and both players' captures underneath. */
#ifndef RD_DRAW_SEQUENCE_H
#define RD_DRAW_SEQUENCE_H

#include "render/draw_board.h"

enum { RD_PANEL_WIDTH = 320 };      /* default panel width */

typedef struct {
    int npanels, cols, rows;
    float panel_w, panel_h;         /* pixels */
    float gap;                      /* between panels and around them */
    float header_h;                 /* the sheet's header band */
    int w, h;                       /* the sheet */
} rd_sheet;

/* Lay out the sheet for turns first..last (0 = a panel for the start position).  Returns 0, or -1
 * with a message when the range is empty or outside the game, or the sheet would be too large. */
int rd_sequence_layout(const zz_game *g, int first, int last, const rd_style *st, rd_sheet *L,
                       char *err, size_t errlen);
/* Top-left corner of panel i (0-based, row by row). */
void rd_sequence_panel_xy(const rd_sheet *L, int i, float *x, float *y);
/* Draw the sheet into *out (allocated here).  Returns 0, or -1 with a message. */
int rd_draw_sequence(const zz_game *g, int first, int last, const rd_style *st, rd_canvas *out,
                     char *err, size_t errlen);

#endif
