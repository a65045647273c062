/* draw_sequence.c — game sequence sheets (see draw_sequence.h). */
#include "render/draw_sequence.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Panel proportions, as fractions of the panel width. */
static const float PAD = 0.045f, CAPTION = 0.085f, TALLY = 0.085f, GAP = 0.045f, HEADER = 0.36f;

int rd_sequence_layout(const zz_game *g, int first, int last, const rd_style *st, rd_sheet *L,
                       char *err, size_t errlen) {
    memset(L, 0, sizeof *L);
    if (first < 0 || last > g->nturns || first > last) {
        if (g->nturns == 0 && first >= 1)
            snprintf(err, errlen, "the game has no turns to show in a sequence");
        else
            snprintf(err, errlen, "turns %d-%d are outside the game's turns 0-%d", first, last, g->nturns);
        return -1;
    }
    float pw = st->width > 0 ? (float)st->width : (float)RD_PANEL_WIDTH;
    if (pw < 80) { snprintf(err, errlen, "panels %d pixels wide are too small (80 at least)", (int)pw); return -1; }
    float wu, hu;
    rd_geom_extent(zz_board_get(g->board), st->coords, &wu, &hu);
    L->npanels = last - first + 1;
    int cols = st->columns;
    if (cols <= 0) {           /* about square, preferring few empty places in the last row */
        float c0 = sqrtf(L->npanels * 1.25f), best = 1e9f;
        for (int k = (int)c0 - 2; k <= (int)c0 + 2; k++) {
            if (k < 1 || k > 10) continue;
            int rows = (L->npanels + k - 1) / k;
            float score = (float)(rows * k - L->npanels) + 0.8f * fabsf((float)k - c0) * (k > c0 ? 0.5f : 1.f);
            if (score < best) { best = score; cols = k; }
        }
        if (cols <= 0) cols = 10;
    }
    if (cols > L->npanels) cols = L->npanels;
    L->cols = cols;
    L->rows = (L->npanels + cols - 1) / cols;
    L->panel_w = pw;
    float board_w = pw * (1 - 2 * PAD);
    L->panel_h = pw * (PAD + CAPTION + TALLY + PAD) + board_w * hu / wu;
    L->gap = pw * GAP;
    L->header_h = pw * HEADER;
    double w = cols * pw + (cols + 1) * L->gap;
    double h = L->header_h + L->rows * L->panel_h + (L->rows + 1) * L->gap;
    if (w > 16384 || h > 16384) {
        snprintf(err, errlen, "a sheet of %d panels would be %.0f×%.0f pixels: show fewer turns, more "
                 "columns or smaller panels", L->npanels, w, h);
        return -1;
    }
    L->w = (int)ceil(w);
    L->h = (int)ceil(h);
    return 0;
}

void rd_sequence_panel_xy(const rd_sheet *L, int i, float *x, float *y) {
    int r = i / L->cols, c = i % L->cols;
    *x = L->gap + c * (L->panel_w + L->gap);
    *y = L->header_h + L->gap + r * (L->panel_h + L->gap);
}

/* One player's captures in the tally line: name, then small marbles grouped by colour. */
static void tally(rd_canvas *c, const rd_theme *t, const rd_scene *s, int pl, float x, float cy, float w, float u) {
    float r = u * 0.10f, pitch = r * 2.15f;
    rd_font f = { u * 0.22f, s->pos.to_move == pl && !s->over, RD_ALIGN_LEFT };
    float nx = x;
    if (!s->over && s->pos.to_move == pl) {
        rd_fill_circle(c, x + r * 0.6f, cy, r * 0.6f, t->accent, 1.f);
        nx += r * 1.8f;
    }
    int total = s->pos.cap[pl][0] + s->pos.cap[pl][1] + s->pos.cap[pl][2];
    float marbles_w = total * pitch + 2 * pitch;
    f.size = rd_text_fit(&f, s->names[pl], fmaxf(w * 0.35f, w - (nx - x) - marbles_w - r), f.size * 0.6f);
    float tw = rd_text_mid(c, &f, nx, cy, s->winner == pl ? t->accent : t->text_dim, s->names[pl]);
    float mx = nx + tw + r * 1.5f;
    for (int col = 0; col < 3; col++) {
        for (int k = 0; k < s->pos.cap[pl][col] && mx + 2 * r <= x + w; k++) {
            rd_draw_marble(c, t, col, mx + r, cy, r, 1.f);
            mx += pitch;
        }
        if (s->pos.cap[pl][col]) mx += pitch * 0.5f;
    }
}

static void draw_panel(rd_canvas *c, const rd_theme *t, const rd_style *st, const rd_scene *s,
                       float x, float y, float pw, float ph) {
    rd_fill_round_rect(c, x, y, x + pw, y + ph, pw * 0.025f, t->panel, 1.f);
    float pad = pw * PAD;
    rd_geom g;
    float bw = pw - 2 * pad, bh = ph - pw * (PAD + CAPTION + TALLY + PAD);
    rd_geom_fit(&g, zz_board_get((zz_board_kind)s->pos.board), st->coords, x + pad, y + pad + pw * CAPTION, bw, bh);
    float u = g.unit;

    char num[16], who[80];
    const char *move = s->nlast ? s->last_text : "Start";
    if (s->nlast) snprintf(num, sizeof num, "%d.", s->turn); else num[0] = 0;
    snprintf(who, sizeof who, "%s", s->nlast ? s->names[s->last_player & 1] : "");
    rd_font fb = { pw * 0.042f, true, RD_ALIGN_LEFT }, fd = { pw * 0.034f, false, RD_ALIGN_RIGHT };
    float cy = y + pad + pw * CAPTION * 0.45f, tx = x + pad;
    if (num[0]) tx += rd_text_mid(c, &fb, tx, cy, t->text_dim, num) + pw * 0.022f;
    float mw = rd_text_mid(c, &fb, tx, cy, t->text, move);
    float room = x + pw - pad - (tx + mw) - pw * 0.03f;
    if (who[0] && room > pw * 0.08f) {
        fd.size = rd_text_fit(&fd, who, room, fd.size * 0.6f);
        rd_text_mid(c, &fd, x + pw - pad, cy, t->text_dim, who);
    }

    rd_marks mk;
    rd_scene_marks(s, &mk);
    rd_draw_board(c, &g, t, &s->pos, s->nlast ? &mk : NULL);

    float ty = y + ph - pad - pw * TALLY * 0.5f, half = (pw - 2 * pad) / 2;
    tally(c, t, s, 0, x + pad, ty, half - pad * 0.5f, u);
    tally(c, t, s, 1, x + pad + half + pad * 0.5f, ty, half - pad * 0.5f, u);
}

int rd_draw_sequence(const zz_game *g, int first, int last, const rd_style *st, rd_canvas *out,
                     char *err, size_t errlen) {
    out->w = out->h = 0;
    out->px = NULL;
    rd_sheet L;
    if (rd_sequence_layout(g, first, last, st, &L, err, errlen) != 0) return -1;
    const rd_theme *t = rd_theme_of(st);
    if (rd_canvas_init(out, L.w, L.h, t->sheet) != 0) {
        snprintf(err, errlen, "cannot make a %d×%d picture", L.w, L.h);
        return -1;
    }
    rd_scene s;
    if (rd_scene_from_game(g, last, &s, err, errlen) != 0) { rd_canvas_free(out); return -1; }

    /* header: title, board and game name, turns shown and the result */
    float pw = L.panel_w, x = L.gap;
    rd_font ft = { pw * 0.095f, true, RD_ALIGN_LEFT }, fs = { pw * 0.054f, false, RD_ALIGN_LEFT };
    float tw = L.w - 2 * L.gap;
    ft.size = rd_text_fit(&ft, s.title, tw, ft.size * 0.5f);
    rd_text(out, &ft, x, L.gap + pw * 0.11f, t->text, s.title);
    fs.size = rd_text_fit(&fs, s.subtitle, tw, fs.size * 0.6f);
    rd_text(out, &fs, x, L.gap + pw * 0.205f, t->text_dim, s.subtitle);
    char line[256];
    rd_scene end;
    if (rd_scene_from_game(g, g->nturns, &end, err, errlen) != 0) { rd_canvas_free(out); return -1; }
    snprintf(line, sizeof line, "Turns %d–%d of %d · %s", first, last, g->nturns,
             end.over ? end.status : "unfinished");
    fs.size = rd_text_fit(&fs, line, tw, fs.size * 0.6f);
    rd_text(out, &fs, x, L.gap + pw * 0.29f, end.over ? t->accent : t->text_dim, line);

    for (int i = 0; i < L.npanels; i++) {
        float px, py;
        rd_sequence_panel_xy(&L, i, &px, &py);
        if (rd_scene_from_game(g, first + i, &s, err, errlen) != 0) { rd_canvas_free(out); return -1; }
        draw_panel(out, t, st, &s, px, py, L.panel_w, L.panel_h);
    }
    return 0;
}
