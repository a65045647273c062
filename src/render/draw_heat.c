/* draw_heat.c — search heat-maps (see draw_heat.h).  Colours follow the square root of a cell's
 * share relative to the largest share shown, so that second choices stay visible next to a
 * dominant move; the legend's ticks say which share each colour stands for. */
#include "render/draw_heat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const float MARGIN = 0.4f, HEADER = 1.15f, CAP = 0.6f, GAP = 0.45f;

void rd_heat_collect(const zz_move *moves, const int *visits, int n, rd_heat *h) {
    memset(h, 0, sizeof *h);
    h->best = -1;
    int bestv = -1, njump = 0;
    for (int i = 0; i < n; i++) {
        long long v = visits[i] > 0 ? visits[i] : 0;
        h->total += v;
        if (visits[i] > bestv) { bestv = visits[i]; h->best = i; }
        if (zz_move_is_jump(moves[i])) njump++;
    }
    h->jumps = n > 0 && njump * 2 >= n;
    float k = h->total > 0 ? 1.f / (float)h->total : 0.f;
    for (int i = 0; i < n; i++) {
        float s = (visits[i] > 0 ? (float)visits[i] : 0.f) * k;
        zz_move m = moves[i];
        int a = zz_move_a(m), b = zz_move_b(m);
        if (zz_move_is_jump(m)) {
            h->from[a] += s;
            h->to[b] += s;
        } else {
            h->place[a] += s;
            h->colour[zz_move_colour(m) % 3] += s;
            if (b != ZZ_NO_CELL) { h->remove[b] += s; h->any_removal = true; }
        }
    }
}

/* Boxes of the picture, in pixels. */
typedef struct {
    float u;
    int w, h;
    float bx[4], by[4], bw, bh;     /* quadrants: 0 position, 1 top right, 2 bottom left, 3 legend */
} layout;

static void heat_layout(zz_board_kind kind, const rd_style *st, layout *L) {
    float wu, hu;
    rd_geom_extent(zz_board_get(kind), st->coords, &wu, &hu);
    float width = st->width > 0 ? (float)st->width : (float)RD_HEAT_WIDTH;
    L->u = width / (2 * MARGIN + 2 * wu + GAP);
    L->w = (int)lrintf(width);
    L->h = (int)lrintf((2 * MARGIN + HEADER + 2 * (CAP + hu) + GAP) * L->u);
    L->bw = wu * L->u;
    L->bh = hu * L->u;
    for (int q = 0; q < 4; q++) {
        L->bx[q] = (MARGIN + (q & 1) * (wu + GAP)) * L->u;
        L->by[q] = (MARGIN + HEADER + CAP + (q >> 1) * (CAP + hu + GAP)) * L->u;
    }
}

void rd_heat_layout(zz_board_kind kind, const rd_style *st, rd_geom g[3], int *w, int *h) {
    layout L;
    heat_layout(kind, st, &L);
    for (int q = 0; q < 3; q++)
        rd_geom_fit(&g[q], zz_board_get(kind), st->coords, L.bx[q], L.by[q], L.bw, L.bh);
    *w = L.w;
    *h = L.h;
}

static void pct(char *out, size_t n, float share) {
    float p = share * 100.f;
    if (p >= 9.95f || p == 0.f) snprintf(out, n, "%.0f%%", p);
    else if (p >= 0.995f) snprintf(out, n, "%.1f%%", p);
    else snprintf(out, n, "%.2f%%", p);
}

static float luminance(rd_rgb c) { return 0.299f * c.r + 0.587f * c.g + 0.114f * c.b; }

/* A board whose cells are coloured by v (shares) against the scale smax. */
static void heat_board(rd_canvas *c, const rd_geom *g, const rd_theme *t, const zz_pos *p, const float *v,
                       float smax) {
    float u = g->unit, R = u / sqrtf(3.f) * 0.955f;
    int cell;
    float x, y;
    ZZ_FOR_EACH_BIT(cell, p->rings & g->b->mask) {
        rd_geom_cell(g, cell, &x, &y);
        float xs[6], ys[6];
        for (int k = 0; k < 6; k++) {
            float a = (float)M_PI / 3 * k;
            xs[k] = x + R * cosf(a);
            ys[k] = y + R * sinf(a);
        }
        rd_rgb col = v[cell] > 0 && smax > 0 ? rd_heat_colour(t, sqrtf(v[cell] / smax)) : t->heat_none;
        rd_fill_convex(c, xs, ys, 6, col, 1.f);
    }
    for (int col = 0; col < 3; col++)
        ZZ_FOR_EACH_BIT(cell, p->marble[col] & g->b->mask) {
            rd_geom_cell(g, cell, &x, &y);
            rd_draw_marble(c, t, col, x, y - 0.06f * u, 0.27f * u, 1.f);
        }
    rd_font f = { fmaxf(6.f, 0.2f * u), true, RD_ALIGN_CENTER };
    char s[16];
    ZZ_FOR_EACH_BIT(cell, p->rings & g->b->mask) {
        if (!(v[cell] >= 0.0005f)) continue;
        rd_geom_cell(g, cell, &x, &y);
        rd_rgb bgc = rd_heat_colour(t, smax > 0 ? sqrtf(v[cell] / smax) : 0);
        rd_rgb tc = luminance(bgc) > 150 ? rd_hex(0x1E1E1E) : rd_hex(0xFFFFFF);
        pct(s, sizeof s, v[cell]);
        bool marble = zz_has(zz_marbles(p), cell);
        float ty = marble ? y + 0.33f * u : y;
        if (rd_text_width(&f, s) > 0.8f * u) { rd_font f2 = f; f2.size *= 0.8f; rd_text_mid(c, &f2, x, ty, tc, s); }
        else rd_text_mid(c, &f, x, ty, tc, s);
    }
    if (g->coords) rd_draw_labels(c, g, t);
}

typedef struct { int i, v; } ranked;
static int by_visits(const void *a, const void *b) {
    const ranked *x = a, *y = b;
    return x->v != y->v ? (x->v < y->v ? 1 : -1) : (x->i > y->i) - (x->i < y->i);
}

static void legend(rd_canvas *c, const rd_theme *t, const rd_scene *s, const rd_heat *h, const zz_move *moves,
                   const int *visits, int n, float smax, float x, float y, float w, float hgt, float u) {
    rd_font head = { 0.26f * u, true, RD_ALIGN_LEFT }, txt = { 0.21f * u, false, RD_ALIGN_LEFT };
    float y1 = y + hgt;
    rd_text(c, &head, x, y + 0.26f * u, t->text, "Share of root visits");
    y += 0.5f * u;
    float bw = w * 0.92f, bh = 0.3f * u;
    for (int i = 0; i < (int)bw; i++)
        rd_fill_rect(c, x + i, y, x + i + 1, y + bh, rd_heat_colour(t, (i + 0.5f) / bw), 1.f);
    char s1[24];
    rd_font tick = txt;
    for (int k = 0; k <= 4; k++) {
        float tt = k / 4.f;
        float xt = x + tt * bw;
        rd_fill_rect(c, xt - 0.5f, y + bh, xt + 0.5f, y + bh + 0.08f * u, t->text_dim, 1.f);
        pct(s1, sizeof s1, smax * tt * tt);
        tick.align = k == 0 ? RD_ALIGN_LEFT : k == 4 ? RD_ALIGN_RIGHT : RD_ALIGN_CENTER;
        rd_text(c, &tick, xt, y + bh + 0.34f * u, t->text_dim, s1);
    }
    y += bh + 0.62f * u;
    {
        float R = 0.14f * u, xs[6], ys[6], cx = x + R, cy = y;
        for (int k = 0; k < 6; k++) { xs[k] = cx + R * cosf((float)M_PI / 3 * k); ys[k] = cy + R * sinf((float)M_PI / 3 * k); }
        rd_fill_convex(c, xs, ys, 6, t->heat_none, 1.f);
        rd_text_mid(c, &txt, x + 2 * R + 0.15f * u, cy, t->text_dim, "no visits (or not a legal choice)");
    }
    y += 0.5f * u;
    if (!h->jumps) {
        float cy = y, cx = x;
        cx += rd_text_mid(c, &txt, cx, cy, t->text_dim, "Colour placed:") + 0.2f * u;
        for (int col = 0; col < 3; col++) {
            rd_draw_marble(c, t, col, cx + 0.12f * u, cy, 0.12f * u, 1.f);
            pct(s1, sizeof s1, h->colour[col]);
            cx += 0.32f * u + rd_text_mid(c, &txt, cx + 0.32f * u, cy, t->text, s1) + 0.3f * u;
        }
        y += 0.55f * u;
    }
    y += 0.2f * u;
    rd_text(c, &head, x, y + 0.26f * u, t->text, "Most visited moves");
    y += 0.55f * u;
    ranked *r = malloc((size_t)(n > 0 ? n : 1) * sizeof *r);
    if (!r) return;
    for (int i = 0; i < n; i++) { r[i].i = i; r[i].v = visits[i]; }
    qsort(r, (size_t)n, sizeof *r, by_visits);
    float row = 0.36f * u;
    int rows = (int)((y1 - y) / row);
    if (rows > 12) rows = 12;
    if (rows > n) rows = n;
    int vmax = n > 0 && r[0].v > 0 ? r[0].v : 1;
    rd_font num = txt, mono = txt;
    num.align = RD_ALIGN_RIGHT;
    mono.bold = true;
    for (int k = 0; k < rows; k++) {
        float cy = y + row * (k + 0.5f);
        char mt[ZZ_NOTATION_MAX], vs[24];
        zz_move_to_text(&s->pos, moves[r[k].i], mt);
        snprintf(s1, sizeof s1, "%d.", k + 1);
        rd_text_mid(c, &num, x + 0.35f * u, cy, t->text_dim, s1);
        rd_text_mid(c, &mono, x + 0.5f * u, cy, k == 0 ? t->hint : t->text, mt);
        float bx = x + w * 0.45f, bwid = w * 0.28f;
        rd_fill_rect(c, bx, cy - 0.09f * u, bx + bwid * (float)(r[k].v > 0 ? r[k].v : 0) / vmax, cy + 0.09f * u,
                     k == 0 ? t->hint : t->text_dim, k == 0 ? 0.9f : 0.45f);
        pct(s1, sizeof s1, h->total > 0 ? (float)(r[k].v > 0 ? r[k].v : 0) / (float)h->total : 0);
        snprintf(vs, sizeof vs, "%d", r[k].v);
        rd_text_mid(c, &num, x + w * 0.86f, cy, t->text_dim, vs);
        rd_text_mid(c, &num, x + w, cy, t->text, s1);
    }
    free(r);
}

int rd_draw_heatmap(const rd_scene *s, const zz_move *moves, const int *visits, int n,
                    const char *source, const rd_style *st, rd_canvas *out, char *err, size_t errlen) {
    out->w = out->h = 0;
    out->px = NULL;
    for (int i = 0; i < n; i++)
        if (!zz_is_legal(&s->pos, moves[i])) {
            snprintf(err, errlen, "root move %d is not legal in the position shown", i + 1);
            return -1;
        }
    rd_heat h;
    rd_heat_collect(moves, visits, n, &h);
    if (h.total <= 0) { snprintf(err, errlen, "the search gave no visits to draw"); return -1; }
    const rd_theme *t = rd_theme_of(st);
    layout L;
    heat_layout((zz_board_kind)s->pos.board, st, &L);
    if (rd_canvas_init(out, L.w, L.h, t->bg) != 0) {
        snprintf(err, errlen, "cannot make a %d×%d picture", L.w, L.h);
        return -1;
    }
    float u = L.u, m = MARGIN * u;
    const zz_board *b = zz_board_get((zz_board_kind)s->pos.board);
    char line[768], mt[ZZ_NOTATION_MAX];

    rd_font title = { 0.36f * u, true, RD_ALIGN_LEFT }, sub = { 0.24f * u, false, RD_ALIGN_LEFT };
    snprintf(line, sizeof line, "Search heat-map · %s", s->title);
    title.size = rd_text_fit(&title, line, L.w - 2 * m, title.size * 0.5f);
    rd_text(out, &title, m, m + 0.36f * u, t->text, line);
    snprintf(line, sizeof line, "%s · %d root move%s, %lld visits%s%s", s->subtitle, n, n == 1 ? "" : "s", h.total,
             source && *source ? " · " : "", source ? source : "");
    sub.size = rd_text_fit(&sub, line, L.w - 2 * m, sub.size * 0.5f);
    rd_text(out, &sub, m, m + 0.80f * u, t->text_dim, line);

    rd_geom g[3];
    for (int q = 0; q < 3; q++) rd_geom_fit(&g[q], b, st->coords, L.bx[q], L.by[q], L.bw, L.bh);
    rd_font cap = { 0.25f * u, true, RD_ALIGN_LEFT };

    zz_move_to_text(&s->pos, moves[h.best], mt);
    if (s->turn > 0) snprintf(line, sizeof line, "After turn %d · %s · best: %s", s->turn, s->status, mt);
    else snprintf(line, sizeof line, "%s · best: %s", s->status, mt);
    float cw = L.bw;
    rd_font c0 = cap;
    c0.size = rd_text_fit(&cap, line, cw, cap.size * 0.5f);
    rd_text(out, &c0, L.bx[0], L.by[0] - 0.22f * u, t->text, line);
    rd_draw_board(out, &g[0], t, &s->pos, NULL);
    rd_draw_hint(out, &g[0], t, &s->pos, moves[h.best]);

    const float *m1 = h.jumps ? h.from : h.place, *m2 = h.jumps ? h.to : h.remove;
    float smax = 0;
    for (int i = 0; i < ZZ_NCELLS; i++) smax = fmaxf(smax, fmaxf(m1[i], m2[i]));
    const char *n1 = h.jumps ? "Jumps from (capturing marble)" : "Placements (any colour)";
    const char *n2 = h.jumps ? "Jumps to (landing ring)" : h.any_removal ? "Ring removals" : "Ring removals (no ring can be removed)";
    rd_text(out, &cap, L.bx[1], L.by[1] - 0.22f * u, t->text, n1);
    heat_board(out, &g[1], t, &s->pos, m1, smax);
    rd_text(out, &cap, L.bx[2], L.by[2] - 0.22f * u, t->text, n2);
    heat_board(out, &g[2], t, &s->pos, m2, smax);

    legend(out, t, s, &h, moves, visits, n, smax, L.bx[3] + 0.2f * u, L.by[3] - CAP * u + 0.1f * u,
           L.bw - 0.2f * u, L.bh + CAP * u - 0.1f * u, u);
    return 0;
}
