/* draw_reliability.h — a reliability (calibration) diagram of win-probability predictions: the
 * observed frequency of a win against the predicted probability, bin by bin, for one or more sets
 * of positions, with the diagonal of perfect calibration, and how the positions spread over the
 * bins. */
#ifndef RD_DRAW_RELIABILITY_H
#define RD_DRAW_RELIABILITY_H

#include "render/chart.h"

enum { RD_RELIABILITY_WIDTH = 800 };    /* default picture width */

typedef struct {
    const char *name;      /* legend, e.g. "human games (Boardspace), 412,000 positions" */
    int nbins;             /* bins of equal width over predicted probability 0..1 */
    const double *pred;    /* mean predicted probability in each bin (NAN when the bin is empty) */
    const double *obs;     /* observed frequency of a win in each bin */
    const long *count;     /* positions in each bin */
} rd_reliability_series;

/* Where the diagram's two panels stand (plot: x and y from 0 to 1; hist: x from 0 to 1, its y
 * range is set when drawing) and the picture's size, for style st (NULL: the defaults). */
void rd_reliability_layout(const rd_style *st, rd_panel *plot, rd_panel *hist, int *w, int *h);

/* The colour of series k in style st's theme (a palette of six, repeated). */
rd_rgb rd_reliability_colour(const rd_style *st, int k);

/* Predicted probability (x, 0..1) against observed frequency (y, 0..1), the diagonal for perfect
 * calibration, one coloured line with dots per series (dot area growing with the bin's count,
 * relative to the series' fullest bin; bins with no positions or a non-finite pred or obs are left
 * out), a legend, and below it a small histogram of the counts per bin for each series (lightly
 * filled step outlines over each other, as a share of the series' positions so that series of
 * different sizes and bin counts compare).  width 0 = 800.  Allocates *out.  Returns 0, or -1
 * with a message (nseries < 1, a series without bins, out of memory). */
int rd_draw_reliability(const rd_reliability_series *s, int nseries, const char *title,
                        const rd_style *st, rd_canvas *out, char *err, size_t errlen);

#endif
