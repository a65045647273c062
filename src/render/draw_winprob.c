/* draw_winprob.c — the win-probability graph of a reviewed game (see draw_winprob.h).  Sizes are
 * designed for the default width of 900 pixels and scale with the width. */
#include "render/draw_winprob.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Rows of the picture at width 900: the title's baseline, the first name's, the plot area's top
 * and bottom, and the picture's height. */
static const float TITLE_Y = 30, NAME0_Y = 56, PLOT_Y0 = 68, PLOT_Y1 = 318, HEIGHT = 372;
static const float LEFT = 62, RIGHT = 24;

/* The players' colours (the shading on their side of 50%) and the flags', light and dark. */
static const uint32_t PLAYER[2][2] = { { 0x3B7DD8, 0x9A8F80 }, { 0x5CA3F0, 0x8C96A3 } };
static const uint32_t FLAG[2][4] = {
    { 0, 0xE2B714, 0xF08A1C, 0xD92B2B },
    { 0, 0xF2CF3A, 0xFF9A3C, 0xF0443C },
};
static const char *const FLAG_NAME[4] = { "", "inaccuracy", "mistake", "blunder" };

static float scale_of(const rd_style *st) {
    return (st && st->width > 0 ? (float)st->width : (float)RD_WINPROB_WIDTH) / RD_WINPROB_WIDTH;
}

void rd_winprob_layout(int n, const rd_style *st, rd_panel *p, int *w, int *h) {
    float s = scale_of(st);
    *w = (int)lrintf(RD_WINPROB_WIDTH * s);
    *h = (int)lrintf(HEIGHT * s);
    p->x0 = LEFT * s;
    p->x1 = (float)*w - RIGHT * s;
    p->y0 = PLOT_Y0 * s;
    p->y1 = PLOT_Y1 * s;
    p->lo_x = 1;
    p->hi_x = n + 1 > 2 ? n + 1 : 2;
    double lo = p->lo_x, hi = p->hi_x;
    rd_nice_axis(&lo, &hi, &p->step_x, (int)fmaxf(2, 10 * s), 1);
    p->lo_y = 0;
    p->hi_y = 1;
    p->step_y = 0.25;
}

rd_rgb rd_winprob_flag_colour(const rd_style *st, int label) {
    return rd_hex(FLAG[st && st->dark][label >= 1 && label <= 3 ? label : 0]);
}

static rd_rgb player_colour(const rd_style *st, int who) { return rd_hex(PLAYER[st && st->dark][who & 1]); }

static double clamp01(double v) { return isfinite(v) ? fmin(1, fmax(0, v)) : NAN; }

/* The points of the curve: x = 1..n+1, y = the win probabilities (NAN where unknown). */
static double *curve_points(const rd_wp_turn *turns, int n, double final_wp) {
    double *xy = malloc(2 * ((size_t)n + 1) * sizeof *xy);
    if (!xy) return NULL;
    for (int i = 0; i <= n; i++) {
        xy[i] = i + 1;
        xy[n + 1 + i] = clamp01(i < n ? turns[i].wp_before : final_wp);
    }
    return xy;
}

/* The title on the left of the first row and the flags' legend on its right. */
static void draw_header(rd_canvas *c, const char *title, const rd_style *st, float s, float right) {
    const rd_theme *t = rd_theme_of(st);
    rd_font big = { 15 * s, true, RD_ALIGN_LEFT }, f = { 11 * s, false, RD_ALIGN_LEFT };
    float legend = 0;
    for (int k = 1; k <= 3; k++) legend += 34 * s + rd_text_width(&f, FLAG_NAME[k]);
    float x = right - legend + 18 * s;
    float room = x - 24 * s - LEFT * s;
    char cut[512];
    big.size = rd_text_fit(&big, title ? title : "", room, 9 * s);
    rd_text(c, &big, LEFT * s, TITLE_Y * s, t->text, rd_text_shorten(&big, title ? title : "", room, cut, sizeof cut));
    for (int k = 1; k <= 3; k++) {
        rd_rgb col = rd_winprob_flag_colour(st, k);
        x += rd_legend_item(c, &f, x, TITLE_Y * s, col, t->text_dim, FLAG_NAME[k], true);
    }
}

/* A player's name after a square of their colour, and what their side of the graph means, baseline
 * at y. */
static void draw_name(rd_canvas *c, const char names[2][64], int who, float x, float y, const rd_style *st,
                      float s) {
    static const char *const fallback[2] = { "first player", "second player" };
    static const char *const role[2] = { "plays first · 100% = wins", "plays second · 0% = wins" };
    const rd_theme *t = rd_theme_of(st);
    const char *name = names && names[who][0] ? names[who] : fallback[who];
    rd_font f = { 11 * s, true, RD_ALIGN_LEFT }, dim = { 11 * s, false, RD_ALIGN_LEFT };
    rd_fill_round_rect(c, x, y - 11 * s, x + 11 * s, y, 2 * s, player_colour(st, who), 1);
    x += 17 * s;
    x += rd_text(c, &f, x, y, t->text, name) + 10 * s;
    rd_text(c, &dim, x, y, t->text_dim, role[who]);
}

/* The flagged turns' dots, the least severe first so that blunders stay on top. */
static void draw_flags(rd_canvas *c, const rd_panel *p, const rd_wp_turn *turns, int n, const rd_style *st,
                       float s) {
    for (int k = 1; k <= 3; k++)
        for (int i = 0; i < n; i++) {
            if (turns[i].label != k) continue;
            double v = clamp01(turns[i].wp_before);
            float x = rd_panel_x(p, i + 1), y = rd_panel_y(p, isfinite(v) ? v : 0.5);
            rd_fill_circle(c, x, y, 6.4f * s, player_colour(st, turns[i].mover), 1);
            rd_fill_circle(c, x, y, 4.8f * s, rd_winprob_flag_colour(st, k), 1);
        }
}

static void draw_graph(rd_canvas *c, const rd_panel *p, const double *xy, int n, const rd_wp_turn *turns,
                       const rd_style *st, float s) {
    const rd_theme *t = rd_theme_of(st);
    rd_panel_themed(c, p, NULL, t, 11 * s, true);
    rd_panel_area(c, p, xy, xy + n + 1, n + 1, 0.5, player_colour(st, 0), player_colour(st, 1), 0.42f);
    float half = rd_panel_y(p, 0.5);
    rd_dashed_line(c, p->x0, half, p->x1, half, 0.6f * s, 6 * s, t->text_dim, 0.8f);
    rd_panel_curve(c, p, xy, xy + n + 1, n + 1, 1.1f * s, t->text, 0);
    draw_flags(c, p, turns, n, st, s);
}

int rd_draw_winprob(const rd_wp_turn *turns, int n, double final_wp, const char *title,
                    const char names[2][64], const rd_style *st, rd_canvas *out, char *err, size_t errlen) {
    if (n < 1 || !turns) { snprintf(err, errlen, "no turns to draw"); return -1; }
    rd_panel p;
    int w, h;
    rd_winprob_layout(n, st, &p, &w, &h);
    const rd_theme *t = rd_theme_of(st);
    double *xy = curve_points(turns, n, final_wp);
    if (!xy || rd_canvas_init(out, w, h, t->bg) != 0) {
        free(xy);
        snprintf(err, errlen, "out of memory for a %d×%d picture of %d turns", w, h, n);
        return -1;
    }
    float s = scale_of(st);
    draw_header(out, title, st, s, p.x1);
    draw_name(out, names, 0, p.x0, NAME0_Y * s, st, s);
    draw_graph(out, &p, xy, n, turns, st, s);
    float yb = (HEIGHT - 12) * s;
    draw_name(out, names, 1, p.x0, yb, st, s);
    rd_font f = { 11 * s, false, RD_ALIGN_RIGHT };
    rd_text(out, &f, p.x1, yb, t->text_dim, "turn");
    free(xy);
    return 0;
}
