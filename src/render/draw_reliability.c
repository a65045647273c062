/* draw_reliability.c — reliability (calibration) diagrams (see draw_reliability.h).  Sizes are
 * designed for the default width of 800 pixels and scale with the width. */
#include "render/draw_reliability.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Rows at width 800: the title's baseline, the two panels' tops and bottoms, the x axis caption's
 * baseline and the picture's height; the panels' left and right margins. */
static const float TITLE_Y = 30, PLOT_Y0 = 70, PLOT_Y1 = 500, HIST_Y0 = 562, HIST_Y1 = 662;
static const float CAPTION_Y = 702, HEIGHT = 718, LEFT = 64, RIGHT = 28;

static const uint32_t PALETTE[2][6] = {
    { 0x2B6CB0, 0xDD6B20, 0x2F855A, 0x805AD5, 0xC53030, 0x2C7A7B },
    { 0x63B3ED, 0xF6AD55, 0x68D391, 0xB794F4, 0xFC8181, 0x4FD1C5 },
};

static float scale_of(const rd_style *st) {
    return (st && st->width > 0 ? (float)st->width : (float)RD_RELIABILITY_WIDTH) / RD_RELIABILITY_WIDTH;
}

/* A panel over x in [0, 1] between rows y0 and y1 (at width 800), y in [0, 1]. */
static rd_panel unit_panel(float s, int w, float y0, float y1) {
    rd_panel p = { LEFT * s, y0 * s, (float)w - RIGHT * s, y1 * s, 0, 1, 0, 1, 0.1, 0.1 };
    return p;
}

void rd_reliability_layout(const rd_style *st, rd_panel *plot, rd_panel *hist, int *w, int *h) {
    float s = scale_of(st);
    *w = (int)lrintf(RD_RELIABILITY_WIDTH * s);
    *h = (int)lrintf(HEIGHT * s);
    *plot = unit_panel(s, *w, PLOT_Y0, PLOT_Y1);
    *hist = unit_panel(s, *w, HIST_Y0, HIST_Y1);
}

rd_rgb rd_reliability_colour(const rd_style *st, int k) { return rd_hex(PALETTE[st && st->dark][k % 6]); }

/* Whether bin b of series r has a point to draw. */
static bool bin_shown(const rd_reliability_series *r, int b) {
    return r->count[b] > 0 && isfinite(r->pred[b]) && isfinite(r->obs[b]);
}

static long most_positions(const rd_reliability_series *r) {
    long m = 0;
    for (int b = 0; b < r->nbins; b++) if (r->count[b] > m) m = r->count[b];
    return m;
}

static double total_positions(const rd_reliability_series *r) {
    double t = 0;
    for (int b = 0; b < r->nbins; b++) if (r->count[b] > 0) t += (double)r->count[b];
    return t;
}

/* One series' line through its bins, then its dots (area growing with the bin's count, relative to
 * the series' fullest bin), rimmed in the plot's colour.  xy holds 2 * nbins doubles. */
static void draw_series(rd_canvas *c, const rd_panel *p, const rd_reliability_series *r, rd_rgb col,
                        rd_rgb rim, double *xy, float s) {
    int m = 0;
    for (int b = 0; b < r->nbins; b++)
        if (bin_shown(r, b)) { xy[m] = r->pred[b]; xy[r->nbins + m] = r->obs[b]; m++; }
    rd_panel_curve(c, p, xy, xy + r->nbins, m, 1.3f * s, col, 0);
    double most = (double)most_positions(r);
    for (int b = 0; b < r->nbins; b++) {
        if (!bin_shown(r, b)) continue;
        float x = rd_panel_x(p, r->pred[b]), y = rd_panel_y(p, r->obs[b]);
        float rad = (1.8f + 5.2f * (float)sqrt((double)r->count[b] / most)) * s;
        rd_fill_circle(c, x, y, rad + 1.3f * s, rim, 1);
        rd_fill_circle(c, x, y, rad, col, 1);
    }
}

/* The legend in a box at the plot's top left: the diagonal, then each series. */
static void draw_legend(rd_canvas *c, const rd_panel *p, const rd_reliability_series *sr, int n,
                        const rd_style *st, float s) {
    const rd_theme *t = rd_theme_of(st);
    rd_font f = { 11 * s, false, RD_ALIGN_LEFT };
    float maxw = p->x1 - p->x0 - 70 * s, tw = rd_text_width(&f, "perfect calibration");
    for (int k = 0; k < n; k++) tw = fmaxf(tw, fminf(maxw, rd_text_width(&f, sr[k].name ? sr[k].name : "")));
    float x = p->x0 + 14 * s, y = p->y0 + 14 * s, row = 19 * s;
    rd_fill_round_rect(c, x, y, x + tw + 46 * s, y + (n + 1) * row + 10 * s, 5 * s, t->text_dim, 0.35f);
    rd_fill_round_rect(c, x + s, y + s, x + tw + 45 * s, y + (n + 1) * row + 9 * s, 4 * s, t->panel, 0.95f);
    float ly = y + 5 * s + row - 4 * s;
    rd_dashed_line(c, x + 10 * s, ly - 4 * s, x + 30 * s, ly - 4 * s, 0.7f * s, 3 * s, t->text_dim, 1);
    rd_text(c, &f, x + 36 * s, ly, t->text, "perfect calibration");
    for (int k = 0; k < n; k++) {
        ly += row;
        rd_rgb col = rd_reliability_colour(st, k);
        rd_line(c, x + 10 * s, ly - 4 * s, x + 30 * s, ly - 4 * s, 1.3f * s, col, 1);
        rd_fill_circle(c, x + 20 * s, ly - 4 * s, 4 * s, col, 1);
        rd_font fk = f;
        fk.size = rd_text_fit(&f, sr[k].name ? sr[k].name : "", maxw, 6 * s);
        rd_text(c, &fk, x + 36 * s, ly, t->text, sr[k].name ? sr[k].name : "");
    }
}

static void draw_calibration(rd_canvas *c, const rd_panel *p, const rd_reliability_series *sr, int n,
                             const rd_style *st, double *xy, float s) {
    const rd_theme *t = rd_theme_of(st);
    rd_panel_themed(c, p, "observed frequency of a win, against the predicted win probability", t, 11 * s,
                    false);
    rd_dashed_line(c, p->x0, p->y1, p->x1, p->y0, 0.7f * s, 5 * s, t->text_dim, 1);
    for (int k = 0; k < n; k++) draw_series(c, p, &sr[k], rd_reliability_colour(st, k), t->panel, xy, s);
    draw_legend(c, p, sr, n, st, s);
}

/* One series' histogram: the bins' shares of its positions as a lightly filled step outline. */
static void draw_steps(rd_canvas *c, const rd_panel *p, const rd_reliability_series *r, rd_rgb col, float s) {
    double tot = total_positions(r), bw = 1.0 / r->nbins;
    if (!(tot > 0)) return;
    float y0 = rd_panel_y(p, 0);
    rd_path path;
    rd_path_init(&path);
    rd_path_move(&path, p->x0, y0);
    for (int b = 0; b < r->nbins; b++) {
        float xa = rd_panel_x(p, b * bw), xb = rd_panel_x(p, (b + 1) * bw);
        float y = rd_panel_y(p, r->count[b] > 0 ? (double)r->count[b] / tot : 0);
        rd_fill_rect(c, xa, y, xb, y0, col, 0.2f);
        rd_path_line(&path, xa, y);
        rd_path_line(&path, xb, y);
    }
    rd_path_line(&path, p->x1, y0);
    rd_path_stroke(c, &path, 1.1f * s, col, 1);
    rd_path_free(&path);
}

/* The histogram: for each series, the share of its positions in each of its bins. */
static void draw_histogram(rd_canvas *c, rd_panel *p, const rd_reliability_series *sr, int n,
                           const rd_style *st, float s) {
    const rd_theme *t = rd_theme_of(st);
    double top = 0;
    for (int k = 0; k < n; k++) {
        double tot = total_positions(&sr[k]);
        if (tot > 0) top = fmax(top, (double)most_positions(&sr[k]) / tot);
    }
    p->hi_y = top > 0 ? top : 1;
    rd_nice_axis(&p->lo_y, &p->hi_y, &p->step_y, 4, 0);
    rd_panel_themed(c, p, "positions per bin (share of each series)", t, 11 * s, true);
    for (int k = 0; k < n; k++) draw_steps(c, p, &sr[k], rd_reliability_colour(st, k), s);
}

/* The first problem with the series, or 0 when they can be drawn; the largest bin count in *most_bins. */
static int check_series(const rd_reliability_series *sr, int n, int *most_bins, char *err, size_t errlen) {
    if (n < 1 || !sr) { snprintf(err, errlen, "no series to draw"); return -1; }
    *most_bins = 0;
    for (int k = 0; k < n; k++) {
        if (sr[k].nbins < 1 || !sr[k].pred || !sr[k].obs || !sr[k].count) {
            snprintf(err, errlen, "series %d (%s) has no bins", k + 1, sr[k].name ? sr[k].name : "unnamed");
            return -1;
        }
        if (sr[k].nbins > *most_bins) *most_bins = sr[k].nbins;
    }
    return 0;
}

int rd_draw_reliability(const rd_reliability_series *s, int nseries, const char *title,
                        const rd_style *st, rd_canvas *out, char *err, size_t errlen) {
    int most_bins;
    if (check_series(s, nseries, &most_bins, err, errlen)) return -1;
    rd_panel plot, hist;
    int w, h;
    rd_reliability_layout(st, &plot, &hist, &w, &h);
    const rd_theme *t = rd_theme_of(st);
    double *xy = malloc(2 * (size_t)most_bins * sizeof *xy);
    if (!xy || rd_canvas_init(out, w, h, t->bg) != 0) {
        free(xy);
        snprintf(err, errlen, "out of memory for a %d×%d picture", w, h);
        return -1;
    }
    float k = scale_of(st);
    rd_font big = { 15 * k, true, RD_ALIGN_LEFT }, cap = { 11 * k, false, RD_ALIGN_CENTER };
    big.size = rd_text_fit(&big, title ? title : "", plot.x1 - plot.x0, 9 * k);
    rd_text(out, &big, plot.x0, TITLE_Y * k, t->text, title ? title : "");
    draw_calibration(out, &plot, s, nseries, st, xy, k);
    draw_histogram(out, &hist, s, nseries, st, k);
    rd_text(out, &cap, (hist.x0 + hist.x1) / 2, CAPTION_Y * k, t->text_dim, "predicted win probability");
    free(xy);
    return 0;
}
