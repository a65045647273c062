/* plot.c — losses and Elo as a PNG (plot.h). */
#include "train/plot.h"
#include "render/font.h"
#include "render/png.h"
#include "render/raster.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tr_history_free(tr_history *h) {
    free(h->x); free(h->a); free(h->b); free(h->gx); free(h->gy);
    for (int k = 0; k < h->nanchors; k++) {
        tr_anchor *a = &h->anchor[k];
        free(a->x); free(a->y); free(a->lo); free(a->hi);
    }
    memset(h, 0, sizeof *h);
}

static int grow(double **p, int cap) {
    double *q = realloc(*p, (size_t)cap * sizeof *q);
    if (!q) return -1;
    *p = q;
    return 0;
}

int tr_history_loss(tr_history *h, double step, double policy, double value) {
    if (h->n == h->cap) {
        int nc = h->cap ? 2 * h->cap : 256;
        if (grow(&h->x, nc) || grow(&h->a, nc) || grow(&h->b, nc)) return -1;
        h->cap = nc;
    }
    h->x[h->n] = step; h->a[h->n] = policy; h->b[h->n] = value;
    h->n++;
    return 0;
}

int tr_history_rating(tr_history *h, double generation, double rating) {
    if (h->gn == h->gcap) {
        int nc = h->gcap ? 2 * h->gcap : 64;
        if (grow(&h->gx, nc) || grow(&h->gy, nc)) return -1;
        h->gcap = nc;
    }
    h->gx[h->gn] = generation; h->gy[h->gn] = rating;
    h->gn++;
    return 0;
}

int tr_history_anchor(tr_history *h, double generation, const char *name, double elo, double lo, double hi) {
    int k = 0;
    while (k < h->nanchors && strcmp(h->anchor[k].name, name)) k++;
    if (k == h->nanchors) {
        if (k == TR_MAX_ANCHORS) return 0;
        snprintf(h->anchor[k].name, sizeof h->anchor[k].name, "%s", name);
        h->nanchors++;
    }
    tr_anchor *a = &h->anchor[k];
    if (a->n == a->cap) {
        int nc = a->cap ? 2 * a->cap : 64;
        if (grow(&a->x, nc) || grow(&a->y, nc) || grow(&a->lo, nc) || grow(&a->hi, nc)) return -1;
        a->cap = nc;
    }
    a->x[a->n] = generation; a->y[a->n] = elo; a->lo[a->n] = lo; a->hi[a->n] = hi;
    a->n++;
    return 0;
}

typedef struct { float x0, y0, x1, y1; double lo_x, hi_x, lo_y, hi_y, step_x, step_y; } panel;

/* A 1, 2 or 5 × 10^k step giving about `target` intervals over [lo, hi] (at least min_step), and the
 * range widened to whole steps. */
static void nice_axis(double *lo, double *hi, double *step, int target, double min_step) {
    double raw = (*hi - *lo) / target, mag = pow(10, floor(log10(raw))), f = raw / mag;
    double s = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
    if (s < min_step) s = min_step;
    *lo = floor(*lo / s + 1e-9) * s;
    *hi = ceil(*hi / s - 1e-9) * s;
    if (*hi <= *lo) *hi = *lo + s;
    *step = s;
}

static float px(const panel *p, double x) { return p->x0 + (float)((x - p->lo_x) / (p->hi_x - p->lo_x)) * (p->x1 - p->x0); }
static float py(const panel *p, double y) { return p->y1 - (float)((y - p->lo_y) / (p->hi_y - p->lo_y)) * (p->y1 - p->y0); }

static void range(const double *v, int n, double *lo, double *hi) {
    *lo = INFINITY; *hi = -INFINITY;
    for (int i = 0; i < n; i++) if (isfinite(v[i])) { if (v[i] < *lo) *lo = v[i]; if (v[i] > *hi) *hi = v[i]; }
    if (!(*lo <= *hi)) { *lo = 0; *hi = 1; }
    if (*hi - *lo < 1e-9) { *lo -= 0.5; *hi += 0.5; }
}

static void frame(rd_canvas *c, const panel *p, const char *title, const rd_font *f) {
    rd_rgb axis = rd_hex(0x606060), grid = rd_hex(0xE4E4E4), ink = rd_hex(0x202020);
    char lab[64];
    for (double y = p->lo_y; y <= p->hi_y + 1e-9 * p->step_y; y += p->step_y) {
        float yy = py(p, y);
        rd_line(c, p->x0, yy, p->x1, yy, 0.5f, grid, 1);
        snprintf(lab, sizeof lab, "%.4g", fabs(y) < 1e-9 * p->step_y ? 0.0 : y);
        rd_font fr = *f; fr.align = RD_ALIGN_RIGHT;
        rd_text_mid(c, &fr, p->x0 - 6, yy, axis, lab);
    }
    for (double x = p->lo_x; x <= p->hi_x + 1e-9 * p->step_x; x += p->step_x) {
        snprintf(lab, sizeof lab, "%.6g", x);
        rd_font fc = *f; fc.align = RD_ALIGN_CENTER;
        rd_text(c, &fc, px(p, x), p->y1 + 18, axis, lab);
    }
    rd_line(c, p->x0, p->y1, p->x1, p->y1, 0.8f, axis, 1);
    rd_line(c, p->x0, p->y0, p->x0, p->y1, 0.8f, axis, 1);
    rd_font ft = *f; ft.bold = true;
    rd_text(c, &ft, p->x0, p->y0 - 10, ink, title);
}

static void curve(rd_canvas *c, const panel *p, const double *x, const double *y, int n, rd_rgb col, bool dots) {
    rd_path path;
    rd_path_init(&path);
    for (int i = 0; i < n; i++) {
        if (!isfinite(y[i])) continue;
        rd_path_line(&path, px(p, x[i]), py(p, y[i]));
        if (dots) rd_fill_circle(c, px(p, x[i]), py(p, y[i]), 3.5f, col, 1);
    }
    rd_path_stroke(c, &path, 1.2f, col, 1);
    rd_path_free(&path);
}

/* A loss panel: one curve against SGD steps on its own y axis (from 0). */
static void loss_panel(rd_canvas *c, const tr_history *h, const double *y, float y0, float y1, const char *title,
                       rd_rgb col, const rd_font *f) {
    panel p = { 70, y0, 870, y1, 0, 1, 0, 1, 1, 1 };
    range(h->x, h->n, &p.lo_x, &p.hi_x);
    double lo, hi;
    range(y, h->n, &lo, &hi);
    p.lo_y = fmin(0, lo);
    p.hi_y = hi * 1.05;
    nice_axis(&p.lo_x, &p.hi_x, &p.step_x, 6, 1);           /* SGD steps: whole numbers */
    nice_axis(&p.lo_y, &p.hi_y, &p.step_y, 4, 0);
    frame(c, &p, title, f);
    curve(c, &p, h->x, y, h->n, col, false);
}

int tr_plot_write(const tr_history *h, const char *path, const char *title, char *err, size_t errlen) {
    rd_canvas c;
    if (rd_canvas_init(&c, 900, 900, rd_hex(0xFFFFFF)) != 0) { snprintf(err, errlen, "out of memory"); return -1; }
    rd_font f = { 11, false, RD_ALIGN_LEFT };
    rd_font big = { 15, true, RD_ALIGN_LEFT };
    rd_text(&c, &big, 20, 28, rd_hex(0x101010), title);
    rd_rgb blue = rd_hex(0x2B6CB0), red = rd_hex(0xC53030), green = rd_hex(0x2F855A);
    static const unsigned anchor_col[TR_MAX_ANCHORS] = { 0xB7791F, 0x6B46C1, 0x2C7A7B, 0x718096 };

    loss_panel(&c, h, h->a, 70, 230, "policy loss against SGD steps", blue, &f);
    loss_panel(&c, h, h->b, 290, 450, "value loss (MSE) against SGD steps", red, &f);

    /* ratings: the self-play chain and the fixed opponents with 95% error bars, one Elo axis */
    panel p2 = { 70, 530, 870, 840, 0, 1, 0, 1, 1, 1 };
    range(h->gx, h->gn, &p2.lo_x, &p2.hi_x);
    range(h->gy, h->gn, &p2.lo_y, &p2.hi_y);
    for (int k = 0; k < h->nanchors; k++) {
        const tr_anchor *a = &h->anchor[k];
        double lo, hi;
        range(a->x, a->n, &lo, &hi);
        if (a->n) { p2.lo_x = fmin(p2.lo_x, lo); p2.hi_x = fmax(p2.hi_x, hi); }
        range(a->lo, a->n, &lo, &hi);
        if (a->n) p2.lo_y = fmin(p2.lo_y, lo);
        range(a->hi, a->n, &lo, &hi);
        if (a->n) p2.hi_y = fmax(p2.hi_y, hi);
    }
    p2.lo_y -= 20; p2.hi_y += 20;
    nice_axis(&p2.lo_x, &p2.hi_x, &p2.step_x, 6, 1);        /* generations: whole numbers */
    nice_axis(&p2.lo_y, &p2.hi_y, &p2.step_y, 4, 0);
    frame(&c, &p2, "Elo per generation: self-play rating (generation 0 = 0), and against fixed opponents (95% bars)", &f);
    curve(&c, &p2, h->gx, h->gy, h->gn, green, true);
    float lx = 70, ly = 498;                          /* the legend, above the panel's title */
    rd_fill_rect(&c, lx, ly - 7, lx + 12, ly - 1, green, 1);
    lx += 16 + rd_text(&c, &f, lx + 16, ly, green, "self-play") + 18;
    for (int k = 0; k < h->nanchors; k++) {
        const tr_anchor *a = &h->anchor[k];
        rd_rgb col = rd_hex(anchor_col[k]);
        for (int i = 0; i < a->n; i++) {
            float x = px(&p2, a->x[i]);
            rd_line(&c, x, py(&p2, a->lo[i]), x, py(&p2, a->hi[i]), 1.0f, col, 1);
            rd_line(&c, x - 3, py(&p2, a->lo[i]), x + 3, py(&p2, a->lo[i]), 1.0f, col, 1);
            rd_line(&c, x - 3, py(&p2, a->hi[i]), x + 3, py(&p2, a->hi[i]), 1.0f, col, 1);
        }
        curve(&c, &p2, a->x, a->y, a->n, col, true);
        char lab[48];
        snprintf(lab, sizeof lab, "vs %s", a->name);
        rd_fill_rect(&c, lx, ly - 7, lx + 12, ly - 1, col, 1);
        lx += 16 + rd_text(&c, &f, lx + 16, ly, col, lab) + 18;
    }
    rd_font fc = f; fc.align = RD_ALIGN_CENTER;
    rd_text(&c, &fc, 470, 885, rd_hex(0x606060), "generation");
    int rc = rd_png_write(&c, path, err, errlen);
    rd_canvas_free(&c);
    return rc;
}
