/* draw_board.c — board geometry and drawing of rings, marbles, labels, turn marks and trays. */
#include "render/draw_board.h"

#include <math.h>
#include <stdio.h>

static const float SQRT3_2 = 0.8660254f;

/* Height index (Boardspace's y: 2 per ring) of each column's row 1, lowest = 0; returns ymax. */
static int column_bases(const zz_board *b, int *first) {
    int lo = 1 << 20, ymax = 0;
    for (int c = 0; c < b->ncols; c++) {
        first[c] = 2 * zz_cell_a(b->at[c][1]) - c;
        if (first[c] < lo) lo = first[c];
    }
    for (int c = 0; c < b->ncols; c++) {
        first[c] -= lo;
        int top = first[c] + 2 * (b->n_in_col[c] - 1);
        if (top > ymax) ymax = top;
    }
    return ymax;
}

static float margin(bool coords) { return coords ? 1.05f : 0.56f; }

void rd_geom_extent(const zz_board *b, bool coords, float *w_units, float *h_units) {
    int first[ZZ_MAX_GRID];
    int ymax = column_bases(b, first);
    *w_units = (b->ncols - 1) * SQRT3_2 + 2 * margin(coords);
    *h_units = ymax / 2.f + 2 * margin(coords);
}

void rd_geom_fit(rd_geom *g, const zz_board *b, bool coords, float x, float y, float w, float h) {
    float wu, hu;
    rd_geom_extent(b, coords, &wu, &hu);
    g->b = b;
    g->coords = coords;
    g->ymax = column_bases(b, g->first);
    g->unit = fminf(w / wu, h / hu);
    float m = margin(coords) * g->unit;
    g->x0 = x + (w - wu * g->unit) / 2 + m;
    g->y0 = y + (h - hu * g->unit) / 2 + m + g->ymax / 2.f * g->unit;
}

void rd_geom_cell(const rd_geom *g, int cell, float *x, float *y) {
    int c = g->b->col[cell], r = g->b->row[cell];
    if (c < 0) { *x = *y = -1e6f; return; }
    *x = g->x0 + c * SQRT3_2 * g->unit;
    *y = g->y0 - (g->first[c] + 2 * (r - 1)) * 0.5f * g->unit;
}

/* Width of a marble's outline at radius r. */
static float edge_px(float r) { return fminf(fmaxf(0.1f * r, 1.f), 2.2f); }

void rd_draw_marble(rd_canvas *c, const rd_theme *t, int colour, float x, float y, float r, float alpha) {
    if (colour < 0 || colour > 2 || !(r > 0)) return;
    /* the shadow's blur is at least a pixel: under a small marble it is mostly a dark halo */
    float sk = fminf(1.f, r / 8.f);
    rd_soft_circle(c, x + 0.07f * r, y + 0.13f * r, r * 0.97f, 0.25f * r, t->shadow, t->shadow_alpha * alpha * sk);
    rd_sphere(c, x, y, r, t->marble[colour], t->marble_spec[colour], alpha);
    rd_fill_annulus(c, x, y, r - edge_px(r), r, t->marble_edge[colour], alpha);
}

void rd_draw_ghost(rd_canvas *c, const rd_theme *t, int colour, float x, float y, float r, float alpha) {
    if (colour < 0 || colour > 2 || !(r > 0)) return;
    /* a faded dot of a few pixels reads as another colour, not as a ghost: small ghosts fade less */
    alpha += (1.f - alpha) * fminf(fmaxf((6.f - r) / 4.f, 0.f), 1.f);
    rd_sphere(c, x, y, r, t->marble[colour], t->marble_spec[colour], alpha);
    rd_fill_annulus(c, x, y, r - edge_px(r), r, t->marble_edge[colour], 1.f);
}

static float hw_px(float u, float k) { return fmaxf(0.7f, k * u); }

static void dashed_ring(rd_canvas *c, float x, float y, float r, float hw, rd_rgb col) {
    rd_path p;
    rd_path_init(&p);
    rd_path_dashed_circle(&p, x, y, r, 12, 0.55f, 15.f);
    rd_path_stroke(c, &p, hw, col, 1.f);
    rd_path_free(&p);
}

float rd_label_size(float u) { return fmaxf(0.28f * u, fminf(RD_LABEL_MIN, 0.45f * u)); }

void rd_draw_labels(rd_canvas *c, const rd_geom *g, const rd_theme *t) {
    const zz_board *b = g->b;
    float u = g->unit;
    rd_font f = { rd_label_size(u), false, RD_ALIGN_CENTER };
    char s[16];
    for (int col = 0; col < b->ncols; col++) {
        float x, y;
        rd_geom_cell(g, b->at[col][1], &x, &y);
        snprintf(s, sizeof s, "%c", 'a' + col);
        rd_text_mid(c, &f, x, y + 0.80f * u, t->label, s);
        int n = b->n_in_col[col];
        if (col == 0 || col == b->ncols - 1) {
            float dx = col == 0 ? -0.80f * u : 0.80f * u;
            for (int r = 1; r <= n; r++) {
                rd_geom_cell(g, b->at[col][r], &x, &y);
                snprintf(s, sizeof s, "%d", r);
                rd_text_mid(c, &f, x + dx, y, t->label, s);
            }
        } else {
            rd_geom_cell(g, b->at[col][n], &x, &y);
            snprintf(s, sizeof s, "%d", n);
            rd_text_mid(c, &f, x, y - 0.80f * u, t->label, s);
        }
    }
}

void rd_draw_board(rd_canvas *c, const rd_geom *g, const rd_theme *t, const zz_pos *p, const rd_marks *m) {
    const zz_board *b = g->b;
    float u = g->unit, ro = RD_RING_OUT * u, ri = RD_RING_IN * u, rm = RD_MARBLE * u;
    zz_bits iso = m ? (m->isolated[0] | m->isolated[1] | m->isolated[2]) : 0;
    int cell;
    float x, y;

    /* ring shadows, then the ghosts of rings that left the board this turn, then the rings */
    ZZ_FOR_EACH_BIT(cell, p->rings & b->mask) {
        rd_geom_cell(g, cell, &x, &y);
        rd_soft_annulus(c, x + 0.03f * u, y + 0.05f * u, ri, ro, 0.10f * u, t->shadow, t->shadow_alpha * 0.7f);
    }
    ZZ_FOR_EACH_BIT(cell, iso & ~p->rings) {
        rd_geom_cell(g, cell, &x, &y);
        rd_torus(c, x, y, ri, ro, t->ring, 0.30f);
    }
    if (m && m->removed >= 0 && !zz_has(p->rings, m->removed)) {
        rd_geom_cell(g, m->removed, &x, &y);
        rd_torus(c, x, y, ri, ro, t->ring, 0.22f);
        dashed_ring(c, x, y, ro - 0.03f * u, hw_px(u, 0.028f), t->accent);
    }
    ZZ_FOR_EACH_BIT(cell, p->rings & b->mask) {
        rd_geom_cell(g, cell, &x, &y);
        rd_torus(c, x, y, ri, ro, t->ring, 1.f);
    }

    /* ghosts of the marbles captured this turn */
    if (m) {
        for (int col = 0; col < 3; col++) {
            ZZ_FOR_EACH_BIT(cell, m->isolated[col] & ~p->rings) {
                rd_geom_cell(g, cell, &x, &y);
                rd_draw_ghost(c, t, col, x, y, rm, RD_GHOST);
                dashed_ring(c, x, y, ro - 0.03f * u, hw_px(u, 0.028f), t->accent);
            }
        }
        for (int i = 0; i < m->njumps; i++) {
            int jc = m->jumped_colour[i];
            if (jc < 0 || jc > 2 || zz_colour_at(p, m->jumped[i]) >= 0) continue;
            rd_geom_cell(g, m->jumped[i], &x, &y);
            rd_draw_ghost(c, t, jc, x, y, rm, RD_GHOST);
            dashed_ring(c, x, y, rm, hw_px(u, 0.022f), t->accent);
        }
    }

    /* marbles */
    for (int col = 0; col < 3; col++) {
        ZZ_FOR_EACH_BIT(cell, p->marble[col] & b->mask) {
            rd_geom_cell(g, cell, &x, &y);
            rd_draw_marble(c, t, col, x, y, rm, 1.f);
        }
    }

    /* the last turn: placed marble, jump path */
    if (m) {
        float hw = hw_px(u, 0.026f);
        if (m->placed >= 0) {
            rd_geom_cell(g, m->placed, &x, &y);
            rd_fill_annulus(c, x, y, rm + 0.035f * u, rm + 0.035f * u + 2 * hw, t->accent, 1.f);
        }
        if (m->njumps > 0) {
            float sx, sy, ex, ey;
            rd_geom_cell(g, m->jump_from[0], &sx, &sy);
            rd_fill_circle(c, sx, sy, 0.09f * u, t->halo, 1.f);
            rd_fill_circle(c, sx, sy, 0.07f * u, t->accent, 1.f);
            for (int i = 0; i < m->njumps; i++) {
                rd_geom_cell(g, m->jump_from[i], &sx, &sy);
                rd_geom_cell(g, m->jump_to[i], &ex, &ey);
                float dx = ex - sx, dy = ey - sy, l = hypotf(dx, dy);
                if (l < 1) continue;
                dx /= l; dy /= l;
                float back = (i == m->njumps - 1) ? rm + 0.02f * u : 0.12f * u;
                rd_arrow(c, sx + dx * 0.10f * u, sy + dy * 0.10f * u, ex - dx * back, ey - dy * back,
                         hw_px(u, 0.040f), 0.26f * u, t->accent, hw_px(u, 0.022f), t->halo);
            }
            rd_geom_cell(g, m->jump_to[m->njumps - 1], &ex, &ey);
            rd_fill_annulus(c, ex, ey, rm + 0.035f * u, rm + 0.035f * u + 2 * hw, t->accent, 1.f);
        }
    }
    if (g->coords) rd_draw_labels(c, g, t);
}

void rd_draw_hint(rd_canvas *c, const rd_geom *g, const rd_theme *t, const zz_pos *p, zz_move mv) {
    float u = g->unit, x, y, hw = hw_px(u, 0.03f);
    if (zz_move_is_jump(mv)) {
        float ex, ey;
        rd_geom_cell(g, zz_move_a(mv), &x, &y);
        rd_geom_cell(g, zz_move_b(mv), &ex, &ey);
        float dx = ex - x, dy = ey - y, l = hypotf(dx, dy);
        if (l < 1) return;
        dx /= l; dy /= l;
        rd_arrow(c, x + dx * 0.15f * u, y + dy * 0.15f * u, ex - dx * 0.12f * u, ey - dy * 0.12f * u,
                 hw_px(u, 0.045f), 0.28f * u, t->hint, hw_px(u, 0.022f), t->halo);
        return;
    }
    if (zz_move_kind(mv) != ZZ_MOVE_PLACE) return;
    int r = zz_move_b(mv);
    if (r != ZZ_NO_CELL) {
        rd_geom_cell(g, r, &x, &y);
        dashed_ring(c, x, y, RD_RING_OUT * u - 0.03f * u, hw, t->hint);
        float k = 0.13f * u;
        rd_line(c, x - k, y - k, x + k, y + k, hw, t->hint, 1.f);
        rd_line(c, x - k, y + k, x + k, y - k, hw, t->hint, 1.f);
    }
    rd_geom_cell(g, zz_move_a(mv), &x, &y);
    int col = zz_move_colour(mv);
    rd_draw_ghost(c, t, col, x, y, RD_MARBLE * u, RD_GHOST);
    float rm = RD_MARBLE * u;
    rd_fill_annulus(c, x, y, rm + 0.035f * u, rm + 0.035f * u + 2 * hw, t->hint, 1.f);
}

void rd_spot_add(rd_spots *sp, float x, float y, float r, int colour, rd_spot_kind kind, int owner) {
    if (!sp || sp->n >= RD_MAX_SPOTS) return;
    rd_spot s = { x, y, r, colour, kind, owner };
    sp->v[sp->n++] = s;
}

float rd_draw_tray(rd_canvas *c, const rd_theme *t, float x, float cy, float r, float pitch, int colour,
                   int count, int slots, rd_spots *sp, int owner) {
    int n = count > slots ? count : slots;
    for (int i = 0; i < n; i++) {
        float cx = x + r + i * pitch;
        bool full = i < count;
        rd_spot_add(sp, cx, cy, full ? r : r * 0.92f, colour, full ? RD_SPOT_MARBLE : RD_SPOT_SLOT, owner);
        if (!c) continue;
        if (full) rd_draw_marble(c, t, colour, cx, cy, r, 1.f);
        else rd_fill_circle(c, cx, cy, r * 0.92f, t->slot, 1.f);
    }
    return n > 0 ? (n - 1) * pitch + 2 * r : 0;
}
