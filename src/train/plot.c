/* plot.c — losses and Elo as a PNG (plot.h). */
#include "train/plot.h"
#include "render/chart.h"
#include "render/png.h"
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

/* A loss panel: one curve against SGD steps on its own y axis (from 0). */
static void loss_panel(rd_canvas *c, const tr_history *h, const double *y, float y0, float y1, const char *title,
                       rd_rgb col, const rd_font *f, const rd_chart_look *look) {
    rd_panel p = { 70, y0, 870, y1, 0, 1, 0, 1, 1, 1 };
    rd_data_range(h->x, h->n, &p.lo_x, &p.hi_x);
    double lo, hi;
    rd_data_range(y, h->n, &lo, &hi);
    p.lo_y = fmin(0, lo);
    p.hi_y = hi * 1.05;
    rd_nice_axis(&p.lo_x, &p.hi_x, &p.step_x, 6, 1);        /* SGD steps: whole numbers */
    rd_nice_axis(&p.lo_y, &p.hi_y, &p.step_y, 4, 0);
    rd_panel_frame(c, &p, title, f, look);
    rd_panel_curve(c, &p, h->x, y, h->n, 1.2f, col, 0);
}

int tr_plot_write(const tr_history *h, const char *path, const char *title, char *err, size_t errlen) {
    rd_canvas c;
    if (rd_canvas_init(&c, 900, 900, rd_hex(0xFFFFFF)) != 0) { snprintf(err, errlen, "out of memory"); return -1; }
    rd_font f = { 11, false, RD_ALIGN_LEFT };
    rd_font big = { 15, true, RD_ALIGN_LEFT };
    rd_chart_look look;
    rd_chart_look_plain(&look);
    rd_text(&c, &big, 20, 28, rd_hex(0x101010), title);
    rd_rgb blue = rd_hex(0x2B6CB0), red = rd_hex(0xC53030), green = rd_hex(0x2F855A);
    static const unsigned anchor_col[TR_MAX_ANCHORS] = { 0xB7791F, 0x6B46C1, 0x2C7A7B, 0x718096 };

    loss_panel(&c, h, h->a, 70, 230, "policy loss against SGD steps", blue, &f, &look);
    loss_panel(&c, h, h->b, 290, 450, "value loss (MSE) against SGD steps", red, &f, &look);

    /* ratings: the self-play chain and the fixed opponents with 95% error bars, one Elo axis */
    rd_panel p2 = { 70, 530, 870, 840, 0, 1, 0, 1, 1, 1 };
    rd_data_range(h->gx, h->gn, &p2.lo_x, &p2.hi_x);
    rd_data_range(h->gy, h->gn, &p2.lo_y, &p2.hi_y);
    for (int k = 0; k < h->nanchors; k++) {
        const tr_anchor *a = &h->anchor[k];
        double lo, hi;
        rd_data_range(a->x, a->n, &lo, &hi);
        if (a->n) { p2.lo_x = fmin(p2.lo_x, lo); p2.hi_x = fmax(p2.hi_x, hi); }
        rd_data_range(a->lo, a->n, &lo, &hi);
        if (a->n) p2.lo_y = fmin(p2.lo_y, lo);
        rd_data_range(a->hi, a->n, &lo, &hi);
        if (a->n) p2.hi_y = fmax(p2.hi_y, hi);
    }
    p2.lo_y -= 20; p2.hi_y += 20;
    rd_nice_axis(&p2.lo_x, &p2.hi_x, &p2.step_x, 6, 1);        /* generations: whole numbers */
    rd_nice_axis(&p2.lo_y, &p2.hi_y, &p2.step_y, 4, 0);
    rd_panel_frame(&c, &p2, "Elo per generation: self-play rating (generation 0 = 0), and against fixed opponents "
                   "(95% bars)", &f, &look);
    rd_panel_curve(&c, &p2, h->gx, h->gy, h->gn, 1.2f, green, 3.5f);
    float lx = 70, ly = 498;                          /* the legend, above the panel's title */
    lx += rd_legend_item(&c, &f, lx, ly, green, green, "self-play", false);
    for (int k = 0; k < h->nanchors; k++) {
        const tr_anchor *a = &h->anchor[k];
        rd_rgb col = rd_hex(anchor_col[k]);
        for (int i = 0; i < a->n; i++) {
            float x = rd_panel_x(&p2, a->x[i]);
            rd_line(&c, x, rd_panel_y(&p2, a->lo[i]), x, rd_panel_y(&p2, a->hi[i]), 1.0f, col, 1);
            rd_line(&c, x - 3, rd_panel_y(&p2, a->lo[i]), x + 3, rd_panel_y(&p2, a->lo[i]), 1.0f, col, 1);
            rd_line(&c, x - 3, rd_panel_y(&p2, a->hi[i]), x + 3, rd_panel_y(&p2, a->hi[i]), 1.0f, col, 1);
        }
        rd_panel_curve(&c, &p2, a->x, a->y, a->n, 1.2f, col, 3.5f);
        char lab[48];
        snprintf(lab, sizeof lab, "vs %s", a->name);
        lx += rd_legend_item(&c, &f, lx, ly, col, col, lab, false);
    }
    rd_font fc = f; fc.align = RD_ALIGN_CENTER;
    rd_text(&c, &fc, 470, 885, rd_hex(0x606060), "generation");
    int rc = rd_png_write(&c, path, err, errlen);
    rd_canvas_free(&c);
    return rc;
}
