/* draw_review.c — a reviewed turn: the turn played and the engine's turn (see draw_review.h). */
#include "render/draw_review.h"
#include "game/notation.h"
#include <stdio.h>
#include <string.h>

/* Copy src into dst at (x, y) (clipped). */
static void blit(rd_canvas *dst, const rd_canvas *src, int x, int y) {
    for (int r = 0; r < src->h && y + r < dst->h; r++) {
        int w = src->w < dst->w - x ? src->w : dst->w - x;
        if (w > 0) memcpy(dst->px + 3 * ((size_t)(y + r) * dst->w + x), src->px + 3 * (size_t)r * src->w, 3 * (size_t)w);
    }
}

/* The right-hand picture: the position before the turn, the engine's turn drawn as a hint. */
static int draw_engine_side(const zz_game *g, int turn, const zz_move *best, int nbest, const rd_style *st,
                            rd_canvas *out, char *err, size_t errlen) {
    rd_scene s;
    if (rd_scene_from_game(g, turn, &s, err, errlen) != 0) return -1;
    zz_pos p = s.pos;
    for (int k = 0; k < nbest; k++) {
        if (zz_over(&p) || !zz_is_legal(&p, best[k])) { snprintf(err, errlen, "the engine's move %d is not legal", k + 1); return -1; }
        zz_apply(&p, best[k], NULL);
    }
    char text[ZZ_NOTATION_MAX] = "(none)";
    if (nbest > 0) zz_turn_to_text(&s.pos, best, nbest, text);
    snprintf(s.title, sizeof s.title, "Engine: %.140s", text);
    snprintf(s.subtitle, sizeof s.subtitle, "the engine's choice at turn %d", turn + 1);
    if (rd_draw_position(&s, st, out, err, errlen) != 0) return -1;
    rd_geom geom;
    rd_position_geom(g->board, st, &geom);
    p = s.pos;
    for (int k = 0; k < nbest; k++) {
        rd_draw_hint(out, &geom, rd_theme_of(st), &p, best[k]);
        zz_apply(&p, best[k], NULL);
    }
    return 0;
}

int rd_draw_review_turn(const zz_game *g, int turn, const zz_move *best, int nbest, const char *caption,
                        const rd_style *st, rd_canvas *out, char *err, size_t errlen) {
    if (turn < 0 || turn >= g->nturns) { snprintf(err, errlen, "turn %d is not in the game (1..%d)", turn + 1, g->nturns); return -1; }
    rd_scene played;
    if (rd_scene_from_game(g, turn + 1, &played, err, errlen) != 0) return -1;
    snprintf(played.title, sizeof played.title, "Played: %.140s", g->turns[turn].text);
    snprintf(played.subtitle, sizeof played.subtitle, "turn %d, %.160s", turn + 1, caption ? caption : "");
    rd_canvas left, right;
    if (rd_draw_position(&played, st, &left, err, errlen) != 0) return -1;
    if (draw_engine_side(g, turn, best, nbest, st, &right, err, errlen) != 0) { rd_canvas_free(&left); return -1; }
    int rc = rd_canvas_init(out, left.w + right.w, left.h > right.h ? left.h : right.h, rd_theme_of(st)->bg);
    if (rc == 0) {
        blit(out, &left, 0, 0);
        blit(out, &right, left.w, 0);
    } else {
        snprintf(err, errlen, "out of memory");
    }
    rd_canvas_free(&left);
    rd_canvas_free(&right);
    return rc;
}
