/* draw_position.c — the single-position picture (see draw_position.h). */
#include "render/draw_position.h"

#include <math.h>
#include <stdio.h>

/* The picture's boxes, in pixels. */
typedef struct {
    float u;                        /* pixels per board unit */
    int w, h;
    float bx, by, bw, bh;           /* board box */
    float px, pw;                   /* side panel */
    float foot_y;                   /* top of the caption */
} layout;

static const float MARGIN = 0.4f, HEADER = 1.15f, FOOTER = 1.2f, GAP = 0.75f, PANEL = 3.9f;
static const float TRAY_R = 0.13f, TRAY_PITCH = 0.31f, ROW = 0.37f;

static float trays_height(void) { return 0.42f + 3 * ROW + 0.3f + 2 * (0.42f + 3 * ROW + 0.3f); }

static void position_layout(zz_board_kind kind, const rd_style *st, layout *L) {
    const zz_board *b = zz_board_get(kind);
    float wu, hu;
    rd_geom_extent(b, st->coords, &wu, &hu);
    float width = st->width > 0 ? (float)st->width : (float)RD_POSITION_WIDTH;
    L->u = width / (2 * MARGIN + wu + GAP + PANEL);
    float body = fmaxf(hu, trays_height());
    L->w = (int)lrintf(width);
    L->h = (int)lrintf((2 * MARGIN + HEADER + body + FOOTER) * L->u);
    L->bx = MARGIN * L->u;
    L->by = (MARGIN + HEADER) * L->u + (body - hu) / 2 * L->u;
    L->bw = wu * L->u;
    L->bh = hu * L->u;
    L->px = (MARGIN + wu + GAP) * L->u;
    L->pw = PANEL * L->u;
    L->foot_y = (MARGIN + HEADER + body) * L->u;
}

void rd_position_size(zz_board_kind kind, const rd_style *st, int *w, int *h) {
    layout L;
    position_layout(kind, st, &L);
    *w = L.w;
    *h = L.h;
}

void rd_position_geom(zz_board_kind kind, const rd_style *st, rd_geom *g) {
    layout L;
    position_layout(kind, st, &L);
    rd_geom_fit(g, zz_board_get(kind), st->coords, L.bx, L.by, L.bw, L.bh);
}

/* Text in the box width w, shrunk to fit (to half its size), then cut with "…" where still too wide;
 * returns the width drawn. */
static float fitted(rd_canvas *c, rd_font f, float x, float y, float w, rd_rgb col, const char *s) {
    char cut[512];
    f.size = rd_text_fit(&f, s, w, f.size * 0.5f);
    return rd_text(c, &f, x, y, col, rd_text_shorten(&f, s, w, cut, sizeof cut));
}

/* The side panel (see rd_draw_trays); draws nothing when c is NULL, records the marbles in sp. */
static float trays(rd_canvas *c, const rd_theme *t, const zz_pos *p, const char names[2][64], bool over,
                   int winner, float x, float y, float w, float u, rd_spots *sp) {
    float y0 = y, r = TRAY_R * u, pitch = TRAY_PITCH * u;
    rd_font head = { 0.24f * u, true, RD_ALIGN_LEFT }, small = { 0.21f * u, false, RD_ALIGN_LEFT };
    char s[16];
    if (c) rd_text(c, &head, x, y + 0.24f * u, t->text, "Pool");
    y += 0.42f * u;
    /* each colour: its icon, the count, then the marbles (the icon says the colour at 0 too) */
    float numw = rd_text_width(&small, "10"), mx = x + 2 * r + 0.1f * u + numw + 0.16f * u;
    for (int col = 0; col < 3; col++) {
        float cy = y + ROW * u / 2;
        int n = p->pool[col];
        rd_spot_add(sp, x + r, cy, r, col, RD_SPOT_ICON, -1);
        snprintf(s, sizeof s, "%d", n);
        if (c) {
            rd_draw_marble(c, t, col, x + r, cy, r, 1.f);
            rd_text_mid(c, &small, x + 2 * r + 0.1f * u, cy, t->text, s);
        }
        float pt = n > 1 ? fminf(pitch, (x + w - mx - 2 * r) / (float)(n - 1)) : pitch;
        rd_draw_tray(c, t, mx, cy, r, pt, col, n, 0, sp, -1);
        y += ROW * u;
    }
    y += 0.3f * u;
    for (int pl = 0; pl < 2; pl++) {
        float ty = y + 0.24f * u, tx = x + 0.28f * u;
        if (c && !over && p->to_move == pl) {
            float cy = y + 0.12f * u;
            float xs[3] = { x + 0.02f * u, x + 0.02f * u, x + 0.19f * u };
            float ys[3] = { cy - 0.1f * u, cy + 0.1f * u, cy };
            rd_fill_convex(c, xs, ys, 3, t->accent, 1.f);
        }
        const char *tag = over && winner == pl ? "wins" : "";
        float tagw = *tag ? rd_text_width(&small, tag) + 0.15f * u : 0;
        if (c) {
            float namew = fitted(c, head, tx, ty, w - 0.28f * u - tagw, t->text, names[pl]);
            if (*tag) rd_text(c, &small, tx + namew + 0.15f * u, ty, t->accent, tag);
        }
        y += 0.42f * u;
        for (int col = 0; col < 3; col++) {
            int n = p->cap[pl][col] > ZZ_WIN_EACH[col] ? p->cap[pl][col] : ZZ_WIN_EACH[col];
            float pt = n > 1 ? fminf(pitch, (w - 2 * r) / (float)(n - 1)) : pitch;
            rd_draw_tray(c, t, x, y + ROW * u / 2, r, pt, col, p->cap[pl][col], ZZ_WIN_EACH[col], sp, pl);
            y += ROW * u;
        }
        y += 0.3f * u;
    }
    return y - y0;
}

float rd_draw_trays(rd_canvas *c, const rd_theme *t, const zz_pos *p, const char names[2][64],
                    bool over, int winner, float x, float y, float w, float u) {
    return trays(c, t, p, names, over, winner, x, y, w, u, NULL);
}

void rd_position_spots(const rd_scene *s, const rd_style *st, rd_spots *out) {
    out->n = 0;
    layout L;
    position_layout((zz_board_kind)s->pos.board, st, &L);
    float th = trays_height() * L.u;
    trays(NULL, rd_theme_of(st), &s->pos, s->names, s->over, s->winner, L.px, L.by + (L.bh - th) / 2, L.pw, L.u, out);
}

int rd_draw_position(const rd_scene *s, const rd_style *st, rd_canvas *out, char *err, size_t errlen) {
    out->w = out->h = 0;
    out->px = NULL;
    const rd_theme *t = rd_theme_of(st);
    layout L;
    position_layout((zz_board_kind)s->pos.board, st, &L);
    if (rd_canvas_init(out, L.w, L.h, t->bg) != 0) {
        snprintf(err, errlen, "cannot make a %d×%d picture", L.w, L.h);
        return -1;
    }
    float u = L.u, m = MARGIN * u, textw = L.w - 2 * m;

    rd_font title = { 0.36f * u, true, RD_ALIGN_LEFT }, sub = { 0.24f * u, false, RD_ALIGN_LEFT };
    fitted(out, title, m, m + 0.36f * u, textw, t->text, s->title);
    fitted(out, sub, m, m + 0.80f * u, textw, t->text_dim, s->subtitle);

    rd_geom g;
    rd_geom_fit(&g, zz_board_get((zz_board_kind)s->pos.board), st->coords, L.bx, L.by, L.bw, L.bh);
    rd_marks mk;
    rd_scene_marks(s, &mk);
    rd_draw_board(out, &g, t, &s->pos, s->nlast > 0 ? &mk : NULL);

    bool over = s->over;
    float th = trays_height() * u;
    rd_draw_trays(out, t, &s->pos, s->names, over, s->winner, L.px, L.by + (L.bh - th) / 2, L.pw, u);

    char cap[ZZ_NOTATION_MAX + 160];
    if (s->nlast > 0)
        snprintf(cap, sizeof cap, "Turn %d of %d: %s played %s", s->turn, s->nturns,
                 s->names[s->last_player & 1], s->last_text);
    else if (s->nturns > 0)
        snprintf(cap, sizeof cap, "Start of the game (%d turn%s)", s->nturns, s->nturns == 1 ? "" : "s");
    else
        cap[0] = 0;
    rd_font capf = { 0.28f * u, true, RD_ALIGN_LEFT }, stf = { 0.25f * u, false, RD_ALIGN_LEFT };
    float y = L.foot_y + 0.38f * u;
    if (cap[0]) { fitted(out, capf, m, y, textw, t->text, cap); y += 0.46f * u; }
    fitted(out, stf, m, y, textw, over ? t->accent : t->text_dim, s->status);
    return 0;
}
