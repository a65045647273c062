/* draw_sequence.c — game sequence sheets (see draw_sequence.h). */
#include "render/draw_sequence.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Panel proportions, as fractions of the panel width: padding, the caption band (one line, and
 * each further line), the capture strips (two rows), the gap between panels, the sheet header. */
static const float PAD = 0.045f, CAPTION = 0.085f, CAPTION_LINE = 0.058f, STRIP_ROW = 0.07f,
                   GAP = 0.045f, HEADER = 0.36f;

/* Caption type sizes (cap heights) and spacing, fractions of the panel width. */
static const float CAP_BOLD = 0.042f, CAP_NAME = 0.034f, CAP_NUM_GAP = 0.022f, CAP_NAME_SEP = 0.03f;

static float caption_band(int lines) { return CAPTION + (float)(lines > 1 ? lines - 1 : 0) * CAPTION_LINE; }

/* ---- captions ------------------------------------------------------------------------------ */

/* A piece of the move text between two places where a line may break: before a word (except the
 * one after "x", which stays with it) and before each marble of a capture list ("Gc3" "Bc5"). */
typedef struct { int start, len; bool space; } unit;

static int move_units(const char *m, unit *u, int max) {
    int n = 0, i = 0, len = (int)strlen(m);
    while (i < len && n < max) {
        bool space = false;
        while (i < len && m[i] == ' ') { space = n > 0; i++; }
        if (i >= len) break;
        int st = i, word = i;
        for (i = st + 1; i < len; i++) {
            if (m[i] == ' ') {
                if (i - word == 1 && m[word] == 'x') { word = i + 1; continue; }   /* "x " stays with its capture */
                break;
            }
            if (strchr("WGB", m[i]) && isdigit((unsigned char)m[i - 1])) break;
        }
        while (i > st && m[i - 1] == ' ') i--;
        u[n].start = st;
        u[n].len = i - st;
        u[n].space = space;
        n++;
    }
    return n;
}

/* Lay the caption out at scale s with at most maxlines lines, the move broken at most maxbreaks
 * times: returns the lines used, or maxlines + 1 when it does not fit.  Items are filled in only
 * when out != NULL. */
static int caption_try(const char *num, const char *move, const char *who, float x, float top, float w,
                       float pw, float s, int maxlines, int maxbreaks, rd_caption *out) {
    rd_font fb = { pw * CAP_BOLD * s, true, RD_ALIGN_LEFT }, fd = { pw * CAP_NAME * s, false, RD_ALIGN_LEFT };
    unit u[ZZ_NOTATION_MAX];
    int nu = move_units(move, u, ZZ_NOTATION_MAX);
    char line[2 * ZZ_NOTATION_MAX + 4], piece[2 * ZZ_NOTATION_MAX + 4];
    int lines = 1, k = 0;
    float x0 = x;
    if (out) { out->n = 0; out->lines = 0; }
#define ITEM(role_, text_, x_, line_, w_, f_)                                                       \
    do {                                                                                         \
        if (out && out->n < RD_CAPTION_ITEMS) {                                                  \
            snprintf(out->item[out->n].text, sizeof out->item[out->n].text, "%s", text_);        \
            out->item[out->n].role = role_;                                                      \
            out->item[out->n].x = x_;                                                            \
            out->item[out->n].y = top + pw * CAPTION * 0.45f + (line_) * pw * CAPTION_LINE + (f_).size / 2; \
            out->item[out->n].w = w_;                                                            \
            out->item[out->n].size = (f_).size;                                                  \
            out->item[out->n].bold = (f_).bold;                                                  \
            out->n++;                                                                            \
        }                                                                                        \
    } while (0)
    if (num[0]) {
        float nw = rd_text_width(&fb, num);
        if (nw > w) return maxlines + 1;
        ITEM(RD_CAP_NUMBER, num, x, 0, nw, fb);
        x0 += nw + pw * CAP_NUM_GAP * s;
    }
    /* the move, unit by unit, greedily onto lines */
    float lx = x0, used = 0;
    line[0] = 0;
    bool empty = true;
    while (k < nu) {
        /* measured as a whole: glyphs are spaced apart, so pieces measured apart come out short */
        snprintf(piece, sizeof piece, "%s%s%.*s", line, !empty && u[k].space ? " " : "", u[k].len, move + u[k].start);
        float pwid = rd_text_width(&fb, piece);
        if (empty || lx + pwid <= x + w) {
            if (lx + pwid > x + w) return maxlines + 1;           /* one piece wider than the panel */
            memcpy(line, piece, sizeof line);
            used = pwid;
            empty = false;
            k++;
            continue;
        }
        ITEM(RD_CAP_MOVE, line, lx, lines - 1, used, fb);
        if (++lines > maxlines || lines - 1 > maxbreaks) return maxlines + 1;
        lx = x;
        used = 0;
        line[0] = 0;
        empty = true;
    }
    if (!empty) ITEM(RD_CAP_MOVE, line, lx, lines - 1, used, fb);
    /* the player's name, right-aligned: on the last line when it fits there, else on a line of its
     * own (shrunk to the panel's width when it is wider) */
    if (who[0]) {
        float ww = rd_text_width(&fd, who), end = empty ? x0 : lx + used;
        if (end + pw * CAP_NAME_SEP * s + ww > x + w) {
            if (++lines > maxlines) return maxlines + 1;
            if (ww > w) { fd.size = rd_text_fit(&fd, who, w, 0.f); ww = rd_text_width(&fd, who); }
        }
        ITEM(RD_CAP_NAME, who, x + w - ww, lines - 1, ww, fd);
    }
#undef ITEM
    if (out) out->lines = lines;
    return lines;
}

/* The caption of a panel in the box (x, top, w) of a panel pw wide, at the largest scale of the
 * first of these that fits: one line (down to 80 %); the move on one line and the name on the
 * next (down to 72 %); the move broken once (72 %); the move on up to three lines (60 %), shrinking
 * further as needed.  Laid out at the origin and then moved, so that the result never depends on
 * where the panel stands.  Returns the lines used. */
static int caption_layout(const char *num, const char *move, const char *who, float x, float top, float w,
                          float pw, rd_caption *out) {
    static const struct { int lines, breaks; float min_scale; } TRY[] = {
        { 1, 0, 0.8f }, { 2, 0, 0.72f }, { 2, 1, 0.72f }, { RD_CAPTION_LINES, RD_CAPTION_LINES - 1, 0.6f },
    };
    enum { NTRY = sizeof TRY / sizeof TRY[0] };
    int k = 0;
    float s = 1.f;
    bool fits = false;
    for (k = 0; k < NTRY && !fits; k++)
        for (s = 1.f; s >= TRY[k].min_scale - 1e-4f; s -= 0.04f)
            if (caption_try(num, move, who, 0, 0, w, pw, s, TRY[k].lines, TRY[k].breaks, NULL) <= TRY[k].lines) {
                fits = true;
                break;
            }
    k--;
    if (!fits)
        while (s > 0.02f && caption_try(num, move, who, 0, 0, w, pw, s, TRY[k].lines, TRY[k].breaks, NULL) > TRY[k].lines)
            s *= 0.93f;
    int lines = caption_try(num, move, who, 0, 0, w, pw, s, TRY[k].lines, TRY[k].breaks, out);
    if (out)
        for (int i = 0; i < out->n; i++) { out->item[i].x += x; out->item[i].y += top; }
    return lines;
}

/* The caption's texts for a scene: number ("12."), move ("Start" at turn 0) and player. */
static void caption_texts(const rd_scene *s, char num[16], const char **move, char who[64]) {
    if (s->nlast) snprintf(num, 16, "%d.", s->turn); else num[0] = 0;
    *move = s->nlast ? s->last_text : "Start";
    snprintf(who, 64, "%s", s->nlast ? s->names[s->last_player & 1] : "");
}

/* ---- layout -------------------------------------------------------------------------------- */

static float strip_band(void) { return 2 * STRIP_ROW; }

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
    /* every caption's lines and every player's captures, so that all panels share one layout */
    L->caption_lines = 1;
    L->strip_max = 1;
    float pad = pw * PAD;
    for (int t = first; t <= last; t++) {
        rd_scene s;
        if (rd_scene_from_game(g, t, &s, err, errlen) != 0) return -1;
        char num[16], who[64];
        const char *move;
        caption_texts(&s, num, &move, who);
        int lines = caption_layout(num, move, who, pad, pad, pw - 2 * pad, pw, NULL);
        if (lines > L->caption_lines) L->caption_lines = lines;
        for (int pl = 0; pl < 2; pl++) {
            int n = s.pos.cap[pl][0] + s.pos.cap[pl][1] + s.pos.cap[pl][2];
            if (n > L->strip_max) L->strip_max = n;
        }
    }
    float board_w = pw * (1 - 2 * PAD);
    L->panel_h = pw * (PAD + caption_band(L->caption_lines) + strip_band() + PAD) + board_w * hu / wu;
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

/* ---- panels -------------------------------------------------------------------------------- */

/* The capture strips: one row per player (the mover marked), the name in a column both rows
 * share, then the player's captured marbles grouped by colour, sized so that the most any panel
 * of the sheet holds fits the row. */
static void strips(rd_canvas *c, const rd_theme *t, const rd_scene *s, const rd_sheet *L, float x, float y,
                   float w, rd_spots *sp) {
    float pw = L->panel_w, row = pw * STRIP_ROW;
    rd_font f[2];
    float namew = 0;
    for (int pl = 0; pl < 2; pl++) {
        rd_font fp = { pw * CAP_NAME, s->pos.to_move == pl && !s->over, RD_ALIGN_LEFT };
        f[pl] = fp;
        rd_font fbold = fp;
        fbold.bold = true;
        namew = fmaxf(namew, rd_text_width(&fbold, s->names[pl]));
    }
    float dot = pw * 0.011f, nx = x + pw * 0.032f;
    namew = fminf(namew, w * 0.34f);
    float mx0 = nx + namew + pw * 0.03f, avail = x + w - mx0;
    float rmax = row * 0.3f, r = fminf(rmax, avail / (2.15f * (float)L->strip_max + 1.05f));
    float pitch = r * 2.15f;
    for (int pl = 0; pl < 2; pl++) {
        float cy = y + row * (pl + 0.5f);
        if (c) {
            if (!s->over && s->pos.to_move == pl) rd_fill_circle(c, x + dot, cy, dot, t->accent, 1.f);
            rd_font fn = f[pl];
            fn.size = rd_text_fit(&fn, s->names[pl], namew, 0.f);
            rd_text_mid(c, &fn, nx, cy, s->winner == pl ? t->accent : t->text_dim, s->names[pl]);
        }
        float mx = mx0;
        for (int col = 0; col < 3; col++) {
            for (int k = 0; k < s->pos.cap[pl][col]; k++) {
                rd_spot_add(sp, mx + r, cy, r, col, RD_SPOT_MARBLE, pl);
                if (c) rd_draw_marble(c, t, col, mx + r, cy, r, 1.f);
                mx += pitch;
            }
            if (s->pos.cap[pl][col]) mx += r * 0.5f;
        }
    }
}

/* Draw (when c is not NULL) and describe (when info is not NULL) one panel. */
static void panel(rd_canvas *c, const rd_theme *t, const rd_style *st, const rd_sheet *L, const rd_scene *s,
                  float x, float y, rd_panel_info *info) {
    float pw = L->panel_w, ph = L->panel_h, pad = pw * PAD, band = caption_band(L->caption_lines);
    if (c) rd_fill_round_rect(c, x, y, x + pw, y + ph, pw * 0.025f, t->panel, 1.f);

    char num[16], who[64];
    const char *move;
    caption_texts(s, num, &move, who);
    rd_caption cap;
    caption_layout(num, move, who, x + pad, y + pad, pw - 2 * pad, pw, &cap);
    if (c)
        for (int i = 0; i < cap.n; i++) {
            rd_font f = { cap.item[i].size, cap.item[i].bold, RD_ALIGN_LEFT };
            rd_rgb col = cap.item[i].role == RD_CAP_MOVE ? t->text : t->text_dim;
            rd_text(c, &f, cap.item[i].x, cap.item[i].y, col, cap.item[i].text);
        }

    if (c) {
        rd_geom g;
        float bw = pw - 2 * pad, bh = ph - pw * (PAD + band + strip_band() + PAD);
        rd_geom_fit(&g, zz_board_get((zz_board_kind)s->pos.board), st->coords, x + pad, y + pad + pw * band, bw, bh);
        rd_marks mk;
        rd_scene_marks(s, &mk);
        rd_draw_board(c, &g, t, &s->pos, s->nlast ? &mk : NULL);
    }

    rd_spots *sp = info ? &info->strip : NULL;
    if (sp) sp->n = 0;
    strips(c, t, s, L, x + pad, y + ph - pad - pw * strip_band(), pw - 2 * pad, sp);
    if (info) {
        info->x = x;
        info->y = y;
        info->w = pw;
        info->h = ph;
        info->cap_x = x + pad;
        info->cap_y = y + pad;
        info->cap_w = pw - 2 * pad;
        info->cap_h = pw * band;
        info->caption = cap;
    }
}

int rd_sequence_panel_info(const zz_game *g, int first, int last, const rd_style *st, int i,
                           rd_panel_info *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    rd_sheet L;
    if (rd_sequence_layout(g, first, last, st, &L, err, errlen) != 0) return -1;
    if (i < 0 || i >= L.npanels) {
        snprintf(err, errlen, "panel %d is not on the sheet (%d panels)", i, L.npanels);
        return -1;
    }
    rd_scene s;
    if (rd_scene_from_game(g, first + i, &s, err, errlen) != 0) return -1;
    float px, py;
    rd_sequence_panel_xy(&L, i, &px, &py);
    panel(NULL, rd_theme_of(st), st, &L, &s, px, py, out);
    return 0;
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
        panel(out, t, st, &L, &s, px, py, NULL);
    }
    return 0;
}
