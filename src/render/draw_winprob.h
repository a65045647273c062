/* draw_winprob.h — the win-probability graph of a reviewed game, in the style of lichess's
 * analysis graph: the first player's win probability turn by turn as a line, the area between it
 * and the 50% line shaded in the colour of the player it favours, the turns a review flagged
 * marked with coloured dots, the players' names at the top (the first player, 100%) and the bottom
 * (the second player, 0%). */
#ifndef RD_DRAW_WINPROB_H
#define RD_DRAW_WINPROB_H

#include "render/chart.h"

enum { RD_WINPROB_WIDTH = 900 };    /* default picture width */

/* One reviewed turn as the graph needs it. */
typedef struct {
    double wp_before;   /* first player's (player 0's) win probability before the turn, 0..1, NAN if unknown */
    int mover;          /* 0 or 1: who played the turn */
    int label;          /* 0 none, 1 inaccuracy, 2 mistake, 3 blunder */
} rd_wp_turn;

/* Where the plot area of a graph of n turns stands (its data range and ticks included: x from 1
 * to n + 1, y from 0 to 1) and the picture's size, for style st (NULL: the defaults). */
void rd_winprob_layout(int n, const rd_style *st, rd_panel *p, int *w, int *h);

/* The colour of a flag's dot (label 1 inaccuracy, 2 mistake, 3 blunder) in style st's theme. */
rd_rgb rd_winprob_flag_colour(const rd_style *st, int label);

/* Draw the graph of n turns (turn i at x = i+1; final_wp = player 0's win probability after the
 * last turn, drawn as point n+1, NAN = unknown): an area/line chart of player 0's win probability
 * over the turns, 50% line, y axis 0..100%, x axis in turns, flagged turns marked with a coloured
 * dot (inaccuracy yellow-ish, mistake orange, blunder red; on the curve at the turn's point, rimmed
 * in the mover's colour) and a small legend, title on top, the two player names (names[0] plays
 * first; NULL or empty: "first player", "second player") labelled on the top/bottom of the chart.
 * Unknown points are bridged by the line.  width 0 = 900.  Allocates *out.
 * Returns 0 or -1 with a message (n < 1, out of memory). */
int rd_draw_winprob(const rd_wp_turn *turns, int n, double final_wp, const char *title,
                    const char names[2][64], const rd_style *st, rd_canvas *out, char *err, size_t errlen);

#endif
