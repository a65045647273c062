/* draw_heat.h — a search heat-map: the position with the search's preferred move, and the board
 * coloured cell by cell by the share of root visits that went to placements there and removals
 * there (or, where a capture is compulsory, to jumps from and to each cell), with a colour legend
 * and the most visited moves.  It takes (move, visits) pairs, so any search can feed it. */
#ifndef RD_DRAW_HEAT_H
#define RD_DRAW_HEAT_H

#include "render/draw_board.h"

enum { RD_HEAT_WIDTH = 1000 };      /* default picture width */

/* Visit shares per cell (each map sums to 1 over the cells when total > 0). */
typedef struct {
    float place[ZZ_NCELLS];         /* placements on the cell */
    float remove[ZZ_NCELLS];        /* placements that remove this ring */
    float from[ZZ_NCELLS];          /* jumps starting on the cell */
    float to[ZZ_NCELLS];            /* jumps landing on the cell */
    float colour[3];                /* placements by colour */
    long long total;                /* visits in all */
    int best;                       /* index of the most visited move, -1 when none */
    bool jumps;                     /* the root moves are jumps (a capture is compulsory) */
    bool any_removal;               /* some placement removes a ring */
} rd_heat;

/* Sum the visits of moves[0..n) into per-cell shares (negative visits count as 0). */
void rd_heat_collect(const zz_move *moves, const int *visits, int n, rd_heat *h);

/* Where the three boards of a heat-map picture stand (0: the position, 1: placements or jump
 * sources, 2: removals or jump targets) and the picture's size. */
void rd_heat_layout(zz_board_kind kind, const rd_style *st, rd_geom g[3], int *w, int *h);

/* Draw the heat-map of the scene's position from its root moves and visits into *out (allocated
 * here); source describes the search (e.g. "UCT, 2000 iterations").  Returns 0, or -1 with a
 * message when there are no visits or a move is not legal in the position. */
int rd_draw_heatmap(const rd_scene *s, const zz_move *moves, const int *visits, int n,
                    const char *source, const rd_style *st, rd_canvas *out, char *err, size_t errlen);

#endif
