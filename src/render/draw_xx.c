/* draw_xx.c — the final position of a Zèrtz Extreme game (draw_xx.h).  Cells are placed by
 * Boardspace's doubled coordinates (x = column, y = firstInCol + 2 (row - 1)): columns sqrt(3)/2
 * of a unit apart, half a unit per y step, y upwards; the picture spans the columns and heights of
 * the rings the set-up built, so that removed rings leave their holes. */
#include "render/draw_xx.h"
#include "render/draw_board.h"
#include "render/draw_position.h"
#include "render/font.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static int ydbl(int c) { return 1 + ((c / ZZ_XX_ROWS) & 1) + 2 * (c % ZZ_XX_ROWS); }

int rd_draw_xx(const zz_xx_game *g, const rd_style *st, rd_canvas *out, char *err, size_t errlen) {
    out->w = out->h = 0;
    out->px = NULL;
    const rd_theme *t = rd_theme_of(st);
    int x0 = ZZ_XX_COLS, x1 = -1, y0 = 99, y1 = -1;
    for (int c = 0; c < ZZ_XX_CELLS; c++)
        if (g->layout[c] != ZZ_XX_NONE || g->final.cell[c] != ZZ_XX_NONE) {
            int x = c / ZZ_XX_ROWS, y = ydbl(c);
            if (x < x0) x0 = x;
            if (x > x1) x1 = x;
            if (y < y0) y0 = y;
            if (y > y1) y1 = y;
        }
    if (x1 < 0) { x0 = x1 = 0; y0 = y1 = 1; }           /* no ring was ever placed */
    float bw_units = (float)(x1 - x0) * 0.8660254f + 1.2f, bh_units = (float)(y1 - y0) * 0.5f + 1.2f;
    int width = st->width > 0 ? st->width : 1000;
    float side = 4.2f;                                  /* units of the side panel (pool, captures) */
    float u = (float)width / (bw_units + side + 0.8f);
    if (u > 90.f) u = 90.f;
    float head = 1.3f * u;
    float tray_h = 8.5f * u;
    int w = width, h = (int)(head + fmaxf(bh_units * u, tray_h) + 0.8f * u);
    if (rd_canvas_init(out, w, h, t->bg) != 0) { snprintf(err, errlen, "cannot make a %d×%d picture", w, h); return -1; }
    float m = 0.4f * u;
    char title[160], sub[200], status[160];
    snprintf(title, sizeof title, "%s vs %s", g->player_name[0][0] ? g->player_name[0] : "Player 1",
             g->player_name[1][0] ? g->player_name[1] : "Player 2");
    int rings = 0;
    for (int c = 0; c < ZZ_XX_CELLS; c++) rings += g->final.cell[c] != ZZ_XX_NONE;
    snprintf(sub, sizeof sub, "Zèrtz Extreme · %d rings set up%s, %d left · %d turns%s%.100s", g->setup_rings,
             g->swapped ? " (swapped)" : "", rings, g->nturns, g->game_name[0] ? " · " : "", g->game_name);
    rd_font tf = { 0.36f * u, true, RD_ALIGN_LEFT }, sf = { 0.22f * u, false, RD_ALIGN_LEFT };
    tf.size = rd_text_fit(&tf, title, (float)w - 2 * m, 6.f);
    sf.size = rd_text_fit(&sf, sub, (float)w - 2 * m, 5.f);
    rd_text(out, &tf, m, m + 0.36f * u, t->text, title);
    rd_text(out, &sf, m, m + 0.78f * u, t->text_dim, sub);

    float bx = m + 0.6f * u, by = head + 0.6f * u + (float)(y1 - y0) * 0.5f * u;   /* pixel of (x0, y0) */
    float ro = RD_RING_OUT * u, ri = RD_RING_IN * u, rm = RD_MARBLE * u;
    for (int pass = 0; pass < 3; pass++)
        for (int c = 0; c < ZZ_XX_CELLS; c++) {
            uint8_t v = g->final.cell[c];
            if (v == ZZ_XX_NONE) continue;
            float px = bx + (float)(c / ZZ_XX_ROWS - x0) * 0.8660254f * u, py = by - (float)(ydbl(c) - y0) * 0.5f * u;
            if (pass == 0) rd_soft_annulus(out, px + 0.03f * u, py + 0.05f * u, ri, ro, 0.10f * u, t->shadow, t->shadow_alpha * 0.7f);
            else if (pass == 1) rd_torus(out, px, py, ri, ro, t->ring, 1.f);
            else if (v >= 2) rd_draw_marble(out, t, v - 2, px, py, rm, 1.f);
        }
    zz_pos tray;                                        /* only the pool and the captures are read */
    memset(&tray, 0, sizeof tray);
    memcpy(tray.pool, g->final.pool, 3);
    memcpy(tray.cap, g->final.cap, 6);
    tray.to_move = g->final.to_move;
    bool over = g->end != ZZ_END_UNFINISHED && g->end != ZZ_END_NONE;
    float px = bx + bw_units * u;
    char names[2][64];
    snprintf(names[0], sizeof names[0], "%s", g->player_name[0][0] ? g->player_name[0] : "Player 1");
    snprintf(names[1], sizeof names[1], "%s", g->player_name[1][0] ? g->player_name[1] : "Player 2");
    rd_draw_trays(out, t, &tray, names, over, g->winner, px, head + 0.3f * u, (float)w - px - m, u);
    if (over && g->winner >= 0)
        snprintf(status, sizeof status, "%s wins %s", g->player_name[g->winner][0] ? g->player_name[g->winner] : "?",
                 g->end == ZZ_END_CAPTURE ? "by captures" : g->end == ZZ_END_RESIGN ? "by resignation" : "on time");
    else snprintf(status, sizeof status, "unfinished");
    rd_font stf = { 0.25f * u, false, RD_ALIGN_LEFT };
    rd_text(out, &stf, m, (float)h - 0.3f * u, t->text_dim, status);
    return 0;
}
