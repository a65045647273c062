/* chart.c — panels, axes, curves, areas and legend items for data charts (see chart.h). */
#include "render/chart.h"

#include <math.h>
#include <stdio.h>

void rd_chart_look_plain(rd_chart_look *k) {
    k->axis = rd_hex(0x606060);
    k->grid = rd_hex(0xE4E4E4);
    k->ink = rd_hex(0x202020);
    k->y_mul = 1;
    k->y_unit = NULL;
}

void rd_nice_axis(double *lo, double *hi, double *step, int target, double min_step) {
    double raw = (*hi - *lo) / target, mag = pow(10, floor(log10(raw))), f = raw / mag;
    double s = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
    if (s < min_step) s = min_step;
    *lo = floor(*lo / s + 1e-9) * s;
    *hi = ceil(*hi / s - 1e-9) * s;
    if (*hi <= *lo) *hi = *lo + s;
    *step = s;
}

float rd_panel_x(const rd_panel *p, double x) {
    return p->x0 + (float)((x - p->lo_x) / (p->hi_x - p->lo_x)) * (p->x1 - p->x0);
}

float rd_panel_y(const rd_panel *p, double y) {
    return p->y1 - (float)((y - p->lo_y) / (p->hi_y - p->lo_y)) * (p->y1 - p->y0);
}

void rd_data_range(const double *v, int n, double *lo, double *hi) {
    *lo = INFINITY; *hi = -INFINITY;
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i])) continue;
        if (v[i] < *lo) *lo = v[i];
        if (v[i] > *hi) *hi = v[i];
    }
    if (!(*lo <= *hi)) { *lo = 0; *hi = 1; }
    if (*hi - *lo < 1e-9) { *lo -= 0.5; *hi += 0.5; }
}

/* The first multiple of step at or above lo (lo itself when lo is one; never -0). */
static double first_tick(double lo, double step) {
    double t = ceil(lo / step - 1e-9) * step;
    return t == 0 ? 0.0 : t;
}

void rd_panel_frame(rd_canvas *c, const rd_panel *p, const char *title, const rd_font *f,
                    const rd_chart_look *look) {
    float k = f->size / 11.f;
    char lab[64];
    rd_font fr = *f, fc = *f, ft = *f;
    fr.align = RD_ALIGN_RIGHT;
    fc.align = RD_ALIGN_CENTER;
    ft.bold = true;
    for (double y = first_tick(p->lo_y, p->step_y); y <= p->hi_y + 1e-9 * p->step_y; y += p->step_y) {
        float yy = rd_panel_y(p, y);
        rd_line(c, p->x0, yy, p->x1, yy, 0.5f * k, look->grid, 1);
        double v = (fabs(y) < 1e-9 * p->step_y ? 0.0 : y) * look->y_mul;
        snprintf(lab, sizeof lab, "%.4g%s", v, look->y_unit ? look->y_unit : "");
        rd_text_mid(c, &fr, p->x0 - 6 * k, yy, look->axis, lab);
    }
    for (double x = first_tick(p->lo_x, p->step_x); x <= p->hi_x + 1e-9 * p->step_x; x += p->step_x) {
        snprintf(lab, sizeof lab, "%.6g", x);
        rd_text(c, &fc, rd_panel_x(p, x), p->y1 + 18 * k, look->axis, lab);
    }
    rd_line(c, p->x0, p->y1, p->x1, p->y1, 0.8f * k, look->axis, 1);
    rd_line(c, p->x0, p->y0, p->x0, p->y1, 0.8f * k, look->axis, 1);
    if (title) rd_text(c, &ft, p->x0, p->y0 - 10 * k, look->ink, title);
}

void rd_panel_themed(rd_canvas *c, const rd_panel *p, const char *title, const rd_theme *t,
                     float font_size, bool percent) {
    rd_chart_look look = { t->text_dim, rd_mix(t->panel, t->text, 0.13f), t->text, percent ? 100 : 1,
                           percent ? "%" : NULL };
    rd_font f = { font_size, false, RD_ALIGN_LEFT };
    rd_fill_rect(c, p->x0, p->y0, p->x1, p->y1, t->panel, 1);
    rd_panel_frame(c, p, title, &f, &look);
}

void rd_panel_curve(rd_canvas *c, const rd_panel *p, const double *x, const double *y, int n,
                    float hw, rd_rgb col, float dot_r) {
    rd_path path;
    rd_path_init(&path);
    for (int i = 0; i < n; i++) {
        if (!isfinite(y[i])) continue;
        rd_path_line(&path, rd_panel_x(p, x[i]), rd_panel_y(p, y[i]));
        if (dot_r > 0) rd_fill_circle(c, rd_panel_x(p, x[i]), rd_panel_y(p, y[i]), dot_r, col, 1);
    }
    rd_path_stroke(c, &path, hw, col, 1);
    rd_path_free(&path);
}

/* Fill the pixel columns whose centres lie in [ax, bx) (up to bx itself when last) between the
 * segment (ax, ay)–(bx, by) and the row yb. */
static void area_segment(rd_canvas *c, float ax, float ay, float bx, float by, float yb, bool last,
                         rd_rgb above, rd_rgb below, float alpha) {
    for (int col = (int)ceilf(ax - 0.5f); col + 0.5f < bx || (last && col + 0.5f <= bx); col++) {
        float cx = col + 0.5f, t = bx > ax ? (cx - ax) / (bx - ax) : 0, yy = ay + t * (by - ay);
        if (yy < yb) rd_fill_rect(c, (float)col, yy, col + 1.f, yb, above, alpha);
        else if (yy > yb) rd_fill_rect(c, (float)col, yb, col + 1.f, yy, below, alpha);
    }
}

void rd_panel_area(rd_canvas *c, const rd_panel *p, const double *x, const double *y, int n,
                   double base, rd_rgb above, rd_rgb below, float alpha) {
    float yb = rd_panel_y(p, base), ax = 0, ay = 0;
    int prev = -1, last = n - 1;
    while (last >= 0 && !isfinite(y[last])) last--;
    for (int i = 0; i <= last; i++) {
        if (!isfinite(y[i])) continue;
        float bx = rd_panel_x(p, x[i]), by = rd_panel_y(p, y[i]);
        if (prev >= 0) area_segment(c, ax, ay, bx, by, yb, i == last, above, below, alpha);
        ax = bx; ay = by; prev = i;
    }
}

void rd_dashed_line(rd_canvas *c, float x0, float y0, float x1, float y1, float hw, float dash,
                    rd_rgb col, float alpha) {
    float len = hypotf(x1 - x0, y1 - y0);
    if (!(dash > 0) || !(len > 0)) { rd_line(c, x0, y0, x1, y1, hw, col, alpha); return; }
    float dx = (x1 - x0) / len, dy = (y1 - y0) / len;
    for (float a = 0; a < len; a += 2 * dash) {
        float b = fminf(a + dash, len);
        rd_line(c, x0 + dx * a, y0 + dy * a, x0 + dx * b, y0 + dy * b, hw, col, alpha);
    }
}

float rd_legend_item(rd_canvas *c, const rd_font *f, float x, float y, rd_rgb col, rd_rgb ink,
                     const char *label, bool dot) {
    float k = f->size / 11.f;
    if (dot) rd_fill_circle(c, x + 6 * k, y - 4 * k, 4 * k, col, 1);
    else rd_fill_rect(c, x, y - 7 * k, x + 12 * k, y - 1 * k, col, 1);
    return 16 * k + rd_text(c, f, x + 16 * k, y, ink, label) + 18 * k;
}
