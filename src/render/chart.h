/* chart.h — helpers for data charts drawn with the rasteriser: a panel (a plot area in pixels and
 * the data range it shows), "nice" axis steps, data-to-pixel mapping, a frame with grid lines, tick
 * labels and a title, polylines with dots, an area filled between a curve and a base line, and
 * legend items.  Used by the training progress plot (src/train/plot.c) and the analysis charts
 * (draw_winprob.h, draw_reliability.h). */
#ifndef RD_CHART_H
#define RD_CHART_H

#include "render/font.h"
#include "render/theme.h"

/* A plot area [x0, x1] × [y0, y1] in pixels (y downwards) showing data x in [lo_x, hi_x] and y in
 * [lo_y, hi_y], with ticks every step_x / step_y. */
typedef struct {
    float x0, y0, x1, y1;
    double lo_x, hi_x, lo_y, hi_y, step_x, step_y;
} rd_panel;

/* How a panel's frame looks: its colours and the y tick labels' format. */
typedef struct {
    rd_rgb axis;          /* axis lines and tick labels */
    rd_rgb grid;          /* horizontal grid lines */
    rd_rgb ink;           /* the panel's title */
    double y_mul;         /* y tick labels show y × y_mul ... */
    const char *y_unit;   /* ... followed by this (e.g. "%"), or NULL */
} rd_chart_look;

/* The plain look of the training plot: grey axes and grid for a white background, plain numbers. */
void rd_chart_look_plain(rd_chart_look *k);

/* A 1, 2 or 5 × 10^k step giving about `target` intervals over [lo, hi] (at least min_step), and
 * the range widened to whole steps. */
void rd_nice_axis(double *lo, double *hi, double *step, int target, double min_step);
/* The pixel column of data x / the pixel row of data y in panel p. */
float rd_panel_x(const rd_panel *p, double x);
float rd_panel_y(const rd_panel *p, double y);
/* The range of the finite values of v[0..n) ([0, 1] when there are none; widened to at least 1
 * when they are all about equal). */
void rd_data_range(const double *v, int n, double *lo, double *hi);

/* Horizontal grid lines and labels at the y ticks, labels at the x ticks (both at the multiples
 * of the step inside the range), the left and bottom axes, and the title (bold, above the panel;
 * NULL for none), in font f (sizes and widths scale with f->size / 11). */
void rd_panel_frame(rd_canvas *c, const rd_panel *p, const char *title, const rd_font *f,
                    const rd_chart_look *look);
/* The plot area filled with theme t's panel colour, then its frame (as rd_panel_frame) in the
 * theme's text colours, in a font of size font_size; percent: y tick labels show y × 100 with "%". */
void rd_panel_themed(rd_canvas *c, const rd_panel *p, const char *title, const rd_theme *t,
                     float font_size, bool percent);
/* The polyline through the points (x[i], y[i]) whose y is finite, of half-width hw, with a dot of
 * radius dot_r on each point (dot_r 0: none). */
void rd_panel_curve(rd_canvas *c, const rd_panel *p, const double *x, const double *y, int n,
                    float hw, rd_rgb col, float dot_r);
/* Fill, pixel column by pixel column, between the polyline through the finite points (x
 * increasing) and the line y = base: in colour above where the curve lies above base, below where
 * it lies under it, with opacity alpha. */
void rd_panel_area(rd_canvas *c, const rd_panel *p, const double *x, const double *y, int n,
                   double base, rd_rgb above, rd_rgb below, float alpha);
/* A dashed line from (x0, y0) to (x1, y1): dashes and gaps of length dash (solid when dash <= 0),
 * half-width hw. */
void rd_dashed_line(rd_canvas *c, float x0, float y0, float x1, float y1, float hw, float dash,
                    rd_rgb col, float alpha);
/* A legend item with its baseline at y: a marker of colour col (a small square, or a dot when dot
 * is true) at x, then the label in colour ink; returns the advance to the next item. */
float rd_legend_item(rd_canvas *c, const rd_font *f, float x, float y, rd_rgb col, rd_rgb ink,
                     const char *label, bool dot);

#endif
