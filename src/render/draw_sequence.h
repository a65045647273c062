/* draw_sequence.h — a game sequence sheet: a header (players, board, result) and a grid of
 * panels, one per turn in a range, each showing the position after that turn with the turn marked,
 * captioned with its number, notation and player, and both players' captures underneath (one
 * strip of marbles per player). */
#ifndef RD_DRAW_SEQUENCE_H
#define RD_DRAW_SEQUENCE_H

#include "render/draw_board.h"

enum { RD_PANEL_WIDTH = 320 };      /* default panel width */
enum { RD_CAPTION_LINES = 3 };      /* a caption wraps onto at most this many lines, then shrinks */

typedef struct {
    int npanels, cols, rows;
    float panel_w, panel_h;         /* pixels */
    float gap;                      /* between panels and around them */
    float header_h;                 /* the sheet's header band */
    int w, h;                       /* the sheet */
    int caption_lines;              /* lines of the longest caption: every panel leaves room for them */
    int strip_max;                  /* most marbles one player holds in a panel: sizes the strips */
} rd_sheet;

/* A panel's caption as laid out: its pieces (the turn number, the move, wrapped at its natural
 * breaks when it is too long for a line, and the player's name, right-aligned), each with its
 * left end x, baseline y, width w and cap height (text sizes shrink until everything fits). */
typedef enum { RD_CAP_NUMBER, RD_CAP_MOVE, RD_CAP_NAME } rd_caption_role;
enum { RD_CAPTION_ITEMS = 8 };
typedef struct {
    int n, lines;
    struct {
        char text[ZZ_NOTATION_MAX];
        rd_caption_role role;
        float x, y, w, size;
        bool bold;
    } item[RD_CAPTION_ITEMS];
} rd_caption;

/* What one panel holds, where rd_draw_sequence draws it. */
typedef struct {
    float x, y, w, h;               /* the panel's box */
    float cap_x, cap_y, cap_w, cap_h;  /* the caption's band: its text stays inside */
    rd_caption caption;
    rd_spots strip;                 /* the capture strips' marbles (owner: the player) */
} rd_panel_info;

/* Lay out the sheet for turns first..last (0 = a panel for the start position).  Returns 0, or -1
 * with a message when the range is empty or outside the game, the record does not replay, or the
 * sheet would be too large. */
int rd_sequence_layout(const zz_game *g, int first, int last, const rd_style *st, rd_sheet *L,
                       char *err, size_t errlen);
/* Top-left corner of panel i (0-based, row by row). */
void rd_sequence_panel_xy(const rd_sheet *L, int i, float *x, float *y);
/* The caption and capture strips of panel i of the sheet.  Returns 0, or -1 with a message. */
int rd_sequence_panel_info(const zz_game *g, int first, int last, const rd_style *st, int i,
                           rd_panel_info *out, char *err, size_t errlen);
/* Draw the sheet into *out (allocated here).  Returns 0, or -1 with a message. */
int rd_draw_sequence(const zz_game *g, int first, int last, const rd_style *st, rd_canvas *out,
                     char *err, size_t errlen);

#endif
