/* test_render.c — the picture renderer (src/render, tools/render), checked on the pixels:
 *   - rasteriser: exact colours inside shapes, untouched pixels outside, union stroking, text
 *     ink inside its box, PNG round trip through a file (atomic write, clear errors);
 *   - board geometry against RULES.md §3 (columns vertical, rows from the bottom, neighbours
 *     one unit apart);
 *   - a known position: the expected picture size, a white marble's colour at the centre of its
 *     cell, no ring where a ring was removed, the ghost of a marble captured by isolation,
 *     coordinates on/off, dark theme;
 *   - a sequence sheet has one panel per turn (counted as regions of the panel colour);
 *   - the three marble colours stay apart, and apart from what lies under them, in the rendered
 *     pixels (CIE lightness): on the board, as ghosts of captured marbles, in the trays and pool
 *     icons, in a sequence sheet's capture strips, in both themes, large and small;
 *   - a long caption wraps or shrinks inside its panel and keeps the player's name; coordinate
 *     labels grow with the board and stay readable on the 61-ring board;
 *   - heat-maps: shares from (move, visits) pairs, colours on the right cells, and a real UCT
 *     search when src/mcts/uct.h is present;
 *   - charts: nice axis steps and data-to-pixel mapping, the training plot still drawing its
 *     curves, the win-probability graph (size, a blunder's red dot, a certain win's line at the
 *     top) and the reliability diagram (size, dots and histogram in the series' colours), bad
 *     input refused with a message;
 *   - reading notation (splitting turns, board detection, errors naming the turn);
 *   - tools/render's errors ("zertz: render: <what>: <why>", status 1; bad usage "zertz: render:
 *     <option>: <why>", status 2) and output; an empty input file refused as tools/replay does;
 *   - rendering a few dozen archive games never fails (skipped loudly without the archive). */
#include "game/sgf_files.h"
#include "nn/checkpoint.h"
#include "render/draw_heat.h"
#include "render/draw_reliability.h"
#include "render/draw_winprob.h"
#include "render/draw_position.h"
#include "render/draw_sequence.h"
#include "render/input.h"
#include "render/png.h"
#include "train/plot.h"

#include "helpers.h"
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb_image.h>

#if defined(__has_include)
#if __has_include("mcts/uct.h")
#include "mcts/uct.h"
#define HAVE_UCT 1
#endif
#endif

/* ---- helpers ------------------------------------------------------------------------------- */

static bool starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }
static bool same(rd_rgb a, rd_rgb b) { return a.r == b.r && a.g == b.g && a.b == b.b; }
static int diff(rd_rgb a, rd_rgb b) { return abs(a.r - b.r) + abs(a.g - b.g) + abs(a.b - b.b); }
static rd_rgb px(const rd_canvas *c, float x, float y) { return rd_get(c, (int)floorf(x), (int)floorf(y)); }

static int cell_of(zz_board_kind k, const char *name) {
    const char *s = name;
    int c = zz_parse_cell(zz_board_get(k), &s);
    ck_assert_msg(c >= 0, "no cell %s", name);
    return c;
}

/* A game from notation on a given board; fails the test on error. */
static void load(const char *text, int rings, zz_game *g) {
    char err[512];
    int rc = rd_load_notation(text, rings, g, err, sizeof err);
    ck_assert_msg(rc == 0, "%s: %s", text, err);
}

static const char *tmpdir(void) {
    static char dir[256];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/zz_test_render.%ld", (long)getpid());
        mkdir(dir, 0700);
    }
    return dir;
}

static const char *archive_dir(void) {
    const char *d = getenv("ZZ_BOARDSPACE_DIR");
    if (!d || !*d) d = "../shared/boardspace";
    char probe[1024];
    struct stat st;
    snprintf(probe, sizeof probe, "%s/sgf", d);
    return stat(probe, &st) == 0 && S_ISDIR(st.st_mode) ? d : NULL;
}

/* Number of 4-connected regions of exactly colour col with at least min_area pixels. */
static int count_regions(const rd_canvas *c, rd_rgb col, int min_area) {
    size_t n = (size_t)c->w * c->h;
    uint8_t *seen = calloc(n, 1);
    int *stack = malloc(n * sizeof *stack);
    ck_assert(seen && stack);
    int regions = 0;
    for (size_t i = 0; i < n; i++) {
        if (seen[i] || !same(rd_get(c, (int)(i % c->w), (int)(i / c->w)), col)) continue;
        int sp = 0, area = 0;
        stack[sp++] = (int)i;
        seen[i] = 1;
        while (sp) {
            int k = stack[--sp], x = k % c->w, y = k / c->w;
            area++;
            const int nx[4] = { x - 1, x + 1, x, x }, ny[4] = { y, y, y - 1, y + 1 };
            for (int d = 0; d < 4; d++) {
                if (nx[d] < 0 || ny[d] < 0 || nx[d] >= c->w || ny[d] >= c->h) continue;
                int j = ny[d] * c->w + nx[d];
                if (!seen[j] && same(rd_get(c, nx[d], ny[d]), col)) { seen[j] = 1; stack[sp++] = j; }
            }
        }
        if (area >= min_area) regions++;
    }
    free(seen);
    free(stack);
    return regions;
}

/* ---- rasteriser ---------------------------------------------------------------------------- */

START_TEST(raster_circle_exact_inside_untouched_outside) {
    rd_canvas c;
    rd_rgb bg = rd_hex(0x102030), red = rd_hex(0xFF0000);
    ck_assert_int_eq(rd_canvas_init(&c, 64, 48, bg), 0);
    rd_fill_circle(&c, 32, 24, 10, red, 1.f);
    ck_assert(same(rd_get(&c, 32, 24), red));
    ck_assert(same(rd_get(&c, 25, 24), red));
    ck_assert(same(rd_get(&c, 20, 24), bg));          /* 11.5 px from the centre */
    ck_assert(same(rd_get(&c, 0, 0), bg));
    rd_rgb edge = rd_get(&c, 22, 24);                  /* centre 9.5 px out: half covered */
    ck_assert(!same(edge, red) && !same(edge, bg));
    /* an annulus leaves its hole alone */
    rd_fill_annulus(&c, 10, 10, 4, 8, rd_hex(0x00FF00), 1.f);
    ck_assert(same(rd_get(&c, 10, 10), bg));
    ck_assert(same(rd_get(&c, 16, 10), rd_hex(0x00FF00)));
    /* shapes off the canvas are clipped, not crashes */
    rd_fill_circle(&c, -100, -100, 30, red, 1.f);
    rd_fill_circle(&c, 1e9f, 5, 1e9f, red, 0.5f);
    rd_canvas_free(&c);
    ck_assert_int_ne(rd_canvas_init(&c, 0, 10, bg), 0);
    ck_assert_int_ne(rd_canvas_init(&c, 20000, 10, bg), 0);
}
END_TEST

START_TEST(raster_stroke_is_a_union) {
    /* two crossing segments at half alpha: the crossing is blended once, like a single stroke */
    rd_canvas c;
    rd_rgb bg = rd_hex(0xFFFFFF), ink = rd_hex(0x000000);
    ck_assert_int_eq(rd_canvas_init(&c, 40, 40, bg), 0);
    rd_path p;
    rd_path_init(&p);
    rd_path_move(&p, 5, 20.5f);
    rd_path_line(&p, 35, 20.5f);
    rd_path_move(&p, 20.5f, 5);
    rd_path_line(&p, 20.5f, 35);
    rd_path_stroke(&c, &p, 2.f, ink, 0.5f);
    rd_path_free(&p);
    rd_rgb cross = rd_get(&c, 20, 20), arm = rd_get(&c, 10, 20);
    ck_assert(same(cross, arm));
    ck_assert_int_ge(diff(arm, rd_mix(bg, ink, 0.5f)), 0);
    ck_assert_int_le(diff(arm, rd_mix(bg, ink, 0.5f)), 3);
    ck_assert(same(rd_get(&c, 10, 10), bg));
    rd_canvas_free(&c);
}
END_TEST

START_TEST(raster_sphere_shading) {
    rd_canvas c;
    rd_rgb bg = rd_hex(0x000080);
    ck_assert_int_eq(rd_canvas_init(&c, 100, 100, bg), 0);
    rd_sphere(&c, 50, 50, 30, rd_hex(0x808080), 0.f, 1.f);
    rd_rgb upper_left = rd_get(&c, 35, 35), lower_right = rd_get(&c, 65, 65);
    ck_assert_int_gt(upper_left.r, lower_right.r);      /* lit from the upper left */
    ck_assert(same(rd_get(&c, 50, 10), bg));
    rd_canvas_free(&c);
}
END_TEST

/* rd_text_shorten: a text that fits is kept; a longer one is cut at a character's start (never
 * inside the two bytes of è) to the longest prefix that fits with "…" after it; no room, "…". */
START_TEST(font_shorten_cuts_to_fit) {
    rd_font f = { 12, false, RD_ALIGN_LEFT };
    char out[128];
    ck_assert_str_eq(rd_text_shorten(&f, "game", 1000, out, sizeof out), "game");
    const char *title = "Zèrtz èèèèèèèèèè: a title far too long for the room it is given";
    const float room = 100;
    rd_text_shorten(&f, title, room, out, sizeof out);
    size_t len = strlen(out);
    ck_assert_uint_gt(len, 3);
    ck_assert_str_eq(out + len - 3, "\xe2\x80\xa6");
    size_t keep = len - 3;
    ck_assert_uint_gt(keep, 0);
    ck_assert(strncmp(out, title, keep) == 0);
    ck_assert_msg(((unsigned char)title[keep] & 0xC0) != 0x80, "cut inside a character at byte %zu", keep);
    ck_assert_float_le(rd_text_width(&f, out), room);
    char longer[128];                                   /* one character more would not fit */
    size_t next = keep + 1;
    while (((unsigned char)title[next] & 0xC0) == 0x80) next++;
    snprintf(longer, sizeof longer, "%.*s\xe2\x80\xa6", (int)next, title);
    ck_assert_float_gt(rd_text_width(&f, longer), room);
    ck_assert_str_eq(rd_text_shorten(&f, title, 1, out, sizeof out), "\xe2\x80\xa6");
}
END_TEST

START_TEST(font_ink_stays_in_its_box) {
    rd_font f = { 20, false, RD_ALIGN_LEFT };
    float w = rd_text_width(&f, "Wd4,d1");
    ck_assert(w > 40 && w < 140);
    rd_font f2 = f;
    f2.size = 40;
    ck_assert(fabsf(rd_text_width(&f2, "Wd4,d1") - 2 * w) < 0.01f);
    ck_assert(rd_text_width(&f, "") == 0);
    /* unknown and malformed characters are drawn as '?', never skipped silently or crashing */
    ck_assert(fabsf(rd_text_width(&f, "\xe2\x98\x83") - rd_text_width(&f, "?")) < 0.01f);
    ck_assert(rd_text_width(&f, "\xff\xfe") > 0);
    ck_assert(rd_text_width(&f, "Zèrtz") > rd_text_width(&f, "Zrtz"));

    rd_canvas c;
    rd_rgb bg = rd_hex(0xFFFFFF);
    ck_assert_int_eq(rd_canvas_init(&c, 200, 60, bg), 0);
    float drawn = rd_text(&c, &f, 20, 40, rd_hex(0x000000), "Wd4,d1");
    ck_assert(fabsf(drawn - w) < 0.01f);
    int ink = 0, outside = 0;
    for (int y = 0; y < c.h; y++)
        for (int x = 0; x < c.w; x++) {
            if (same(rd_get(&c, x, y), bg)) continue;
            ink++;
            if (x < 20 - 3 || x > 20 + w + 3 || y < 40 - 20 - 3 || y > 40 + 6 + 3) outside++;
        }
    ck_assert_int_gt(ink, 100);
    ck_assert_int_eq(outside, 0);
    /* centred text is centred */
    rd_clear(&c, bg);
    f.align = RD_ALIGN_CENTER;
    rd_text(&c, &f, 100, 40, rd_hex(0x000000), "ooo");
    int lo = c.w, hi = -1;
    for (int y = 0; y < c.h; y++)
        for (int x = 0; x < c.w; x++)
            if (!same(rd_get(&c, x, y), bg)) { if (x < lo) lo = x; if (x > hi) hi = x; }
    ck_assert_int_le(abs((lo + hi) / 2 - 100), 2);
    rd_canvas_free(&c);
}
END_TEST

START_TEST(png_round_trip_and_errors) {
    rd_canvas c;
    ck_assert_int_eq(rd_canvas_init(&c, 37, 23, rd_hex(0x123456)), 0);
    rd_fill_circle(&c, 18, 11, 7, rd_hex(0xFFCC00), 1.f);
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/round.png", tmpdir());
    ck_assert_msg(rd_png_write(&c, path, err, sizeof err) == 0, "%s", err);
    int w, h, n;
    unsigned char *data = stbi_load(path, &w, &h, &n, 3);
    ck_assert_ptr_nonnull(data);
    ck_assert_int_eq(w, 37);
    ck_assert_int_eq(h, 23);
    ck_assert_int_eq(memcmp(data, c.px, (size_t)w * h * 3), 0);
    stbi_image_free(data);
    /* no temporary file is left beside it */
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    ck_assert_int_ne(access(tmp, F_OK), 0);
    remove(path);
    /* a folder that does not exist: an error naming the path */
    ck_assert_int_ne(rd_png_write(&c, "/nonexistent-dir/x.png", err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent-dir/x.png"));
    rd_canvas_free(&c);
}
END_TEST

/* ---- geometry ------------------------------------------------------------------------------ */

START_TEST(geometry_matches_rules_diagram) {
    for (int k = 0; k < 3; k++) {
        const zz_board *b = zz_board_get((zz_board_kind)k);
        rd_geom g;
        rd_geom_fit(&g, b, true, 0, 0, 1000, 1000);
        float u = g.unit;
        /* each column vertical, row 1 at the bottom, one unit between rows */
        for (int c = 0; c < b->ncols; c++)
            for (int r = 2; r <= b->n_in_col[c]; r++) {
                float x1, y1, x2, y2;
                rd_geom_cell(&g, b->at[c][r - 1], &x1, &y1);
                rd_geom_cell(&g, b->at[c][r], &x2, &y2);
                ck_assert(fabsf(x1 - x2) < 1e-3f);
                ck_assert(fabsf((y1 - y2) - u) < 1e-3f);
            }
        /* columns a.. from left to right; every neighbour (per the rules) one unit away */
        for (int i = 0; i < b->ncells; i++) {
            int cell = b->cells[i];
            float x, y;
            rd_geom_cell(&g, cell, &x, &y);
            ck_assert(x > 0 && x < 1000 && y > 0 && y < 1000);
            int nb;
            ZZ_FOR_EACH_BIT(nb, zz_neighbours(zz_bit(cell)) & b->mask) {
                float x2, y2;
                rd_geom_cell(&g, nb, &x2, &y2);
                ck_assert_msg(fabsf(hypotf(x2 - x, y2 - y) - u) < 1e-2f, "board %d cell %d", k, cell);
            }
        }
    }
    /* 37 rings: d7 straight above d1; a4 and g4 level; a1 half a ring below b1... (RULES.md §3) */
    rd_geom g;
    rd_geom_fit(&g, zz_board_get(ZZ_B37), false, 0, 0, 700, 700);
    float xd1, yd1, xd7, yd7, xa4, ya4, xg4, yg4, xa1, ya1, xb1, yb1;
    rd_geom_cell(&g, cell_of(ZZ_B37, "d1"), &xd1, &yd1);
    rd_geom_cell(&g, cell_of(ZZ_B37, "d7"), &xd7, &yd7);
    rd_geom_cell(&g, cell_of(ZZ_B37, "a4"), &xa4, &ya4);
    rd_geom_cell(&g, cell_of(ZZ_B37, "g4"), &xg4, &yg4);
    rd_geom_cell(&g, cell_of(ZZ_B37, "a1"), &xa1, &ya1);
    rd_geom_cell(&g, cell_of(ZZ_B37, "b1"), &xb1, &yb1);
    ck_assert(fabsf(xd1 - xd7) < 1e-3f && yd7 < yd1);
    ck_assert(fabsf(ya4 - yg4) < 1e-3f && xa4 < xg4);
    ck_assert(xa1 < xb1 && ya1 < yb1);                  /* a1 is above b1 (y grows downwards) */
    ck_assert(fabsf((yd1 - yd7) - 6 * g.unit) < 1e-2f);
}
END_TEST

/* ---- a known position ---------------------------------------------------------------------- */

START_TEST(position_known_pixels) {
    /* grey on f1 (removing c1), black on e3 (removing b5), white on d1 (removing f5) */
    zz_game g;
    load("Gf1,c1; Be3,b5; Wd1,f5", 37, &g);
    rd_scene s;
    char err[256];
    ck_assert_int_eq(rd_scene_from_game(&g, -1, &s, err, sizeof err), 0);
    ck_assert_int_eq(s.turn, 3);
    rd_style st;
    rd_style_default(&st);
    st.width = 900;
    rd_canvas c;
    ck_assert_int_eq(rd_draw_position(&s, &st, &c, err, sizeof err), 0);
    int w, h;
    rd_position_size(ZZ_B37, &st, &w, &h);
    ck_assert_int_eq(c.w, 900);
    ck_assert_int_eq(c.w, w);
    ck_assert_int_eq(c.h, h);
    ck_assert(c.h > 500 && c.h < 1200);

    const rd_theme *t = rd_theme_of(&st);
    rd_geom geo;
    rd_position_geom(ZZ_B37, &st, &geo);
    float u = geo.unit, x, y;
    ck_assert(u > 40);
    /* the white marble's colour at the centre of d1: light and neutral */
    rd_geom_cell(&geo, cell_of(ZZ_B37, "d1"), &x, &y);
    rd_rgb wc = px(&c, x, y);
    ck_assert_msg(wc.r > 200 && wc.g > 200 && wc.b > 195, "d1 centre %d,%d,%d", wc.r, wc.g, wc.b);
    ck_assert(abs(wc.r - wc.b) < 25 && abs(wc.r - wc.g) < 25);
    /* grey on f1 in between, black on e3 dark */
    rd_geom_cell(&geo, cell_of(ZZ_B37, "f1"), &x, &y);
    rd_rgb gc = px(&c, x, y);
    ck_assert_msg(gc.r > 90 && gc.r < 190 && abs(gc.r - gc.b) < 30, "f1 centre %d,%d,%d", gc.r, gc.g, gc.b);
    rd_geom_cell(&geo, cell_of(ZZ_B37, "e3"), &x, &y);
    rd_rgb bc = px(&c, x, y);
    ck_assert_msg(bc.r < 70 && bc.g < 70 && bc.b < 70, "e3 centre %d,%d,%d", bc.r, bc.g, bc.b);
    /* a vacant ring: background in the hole, ring colour on the ring */
    rd_geom_cell(&geo, cell_of(ZZ_B37, "a4"), &x, &y);
    float mid = (RD_RING_IN + RD_RING_OUT) / 2 * u;
    ck_assert(same(px(&c, x, y), t->bg));
    ck_assert_int_gt(diff(px(&c, x + mid, y), t->bg), 30);
    /* rings removed in earlier turns (c1, b5) are gone: background on the ring's radius too */
    const char *gone[] = { "c1", "b5" };
    for (int i = 0; i < 2; i++) {
        rd_geom_cell(&geo, cell_of(ZZ_B37, gone[i]), &x, &y);
        for (int a = 0; a < 8; a++) {
            float ang = (float)M_PI / 4 * a;
            rd_rgb q = px(&c, x + mid * cosf(ang), y + mid * sinf(ang));
            ck_assert_msg(diff(q, t->bg) <= 6, "%s: ring pixel %d,%d,%d", gone[i], q.r, q.g, q.b);
        }
        ck_assert(same(px(&c, x, y), t->bg));
    }
    /* the ring removed by the marked turn (f5) is only a faint ghost, not a ring */
    rd_geom_cell(&geo, cell_of(ZZ_B37, "f5"), &x, &y);
    rd_rgb ghost = px(&c, x + mid, y);
    ck_assert_int_lt(diff(ghost, t->bg), diff(px(&c, x + mid, y + u), t->bg));
    /* the placed marble of the last turn has the accent ring around it */
    rd_geom_cell(&geo, cell_of(ZZ_B37, "d1"), &x, &y);
    float halo = (RD_MARBLE + 0.035f) * u + fmaxf(0.7f, 0.026f * u);
    ck_assert_int_lt(diff(px(&c, x, y - halo), t->accent), 40);
    rd_canvas_free(&c);

    /* coordinates off: no ink where the column letter 'a' stands */
    rd_style st2 = st;
    st2.coords = false;
    ck_assert_int_eq(rd_draw_position(&s, &st2, &c, err, sizeof err), 0);
    rd_position_geom(ZZ_B37, &st2, &geo);
    rd_geom_cell(&geo, cell_of(ZZ_B37, "a1"), &x, &y);
    for (int dy = -6; dy <= 6; dy++)
        for (int dx = -6; dx <= 6; dx++)
            ck_assert(same(px(&c, x + dx, y + 0.8f * geo.unit + dy), t->bg));
    rd_canvas_free(&c);
    /* ... and with them, ink there */
    ck_assert_int_eq(rd_draw_position(&s, &st, &c, err, sizeof err), 0);
    rd_position_geom(ZZ_B37, &st, &geo);
    rd_geom_cell(&geo, cell_of(ZZ_B37, "a1"), &x, &y);
    int ink = 0;
    for (int dy = -6; dy <= 6; dy++)
        for (int dx = -6; dx <= 6; dx++) ink += diff(px(&c, x + dx, y + 0.8f * geo.unit + dy), t->bg) > 60;
    ck_assert_int_gt(ink, 5);
    rd_canvas_free(&c);

    /* dark theme */
    st.dark = true;
    ck_assert_int_eq(rd_draw_position(&s, &st, &c, err, sizeof err), 0);
    ck_assert(same(rd_get(&c, 1, 1), rd_theme_of(&st)->bg));
    ck_assert(!same(rd_theme_of(&st)->bg, t->bg));
    rd_canvas_free(&c);
    /* the start position (turn 0) and a turn out of range */
    ck_assert_int_eq(rd_scene_from_game(&g, 0, &s, err, sizeof err), 0);
    ck_assert_int_eq(s.nlast, 0);
    ck_assert_int_ne(rd_scene_from_game(&g, 4, &s, err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "3 turns"));
    zz_game_free(&g);
}
END_TEST

START_TEST(position_isolation_ghost) {
    /* rings a1..a4 only, a white marble on a1; "Ba3,a2" isolates a1 (captured by the mover) */
    zz_game g;
    zz_game_init(&g, ZZ_B37);
    zz_pos *p = &g.start;
    p->rings = 0;
    const char *col[] = { "a1", "a2", "a3", "a4" };
    for (int i = 0; i < 4; i++) p->rings |= zz_bit(cell_of(ZZ_B37, col[i]));
    p->marble[ZZ_WHITE] = zz_bit(cell_of(ZZ_B37, "a1"));
    p->pool[ZZ_WHITE]--;
    ck_assert_ptr_null(zz_pos_validate(p));
    g.final = *p;
    zz_move m[ZZ_MAX_CHAIN];
    char err[256];
    int n = zz_turn_from_text(&g.final, "Ba3,a2", m, NULL, err, sizeof err);
    ck_assert_msg(n == 1, "%s", err);
    ck_assert_int_eq(zz_game_add_turn(&g, m, n, err, sizeof err), 0);
    ck_assert_str_eq(g.turns[0].text, "Ba3,a2 x Wa1");
    ck_assert(!zz_has(g.final.rings, cell_of(ZZ_B37, "a1")));

    rd_scene s;
    ck_assert_int_eq(rd_scene_from_game(&g, 1, &s, err, sizeof err), 0);
    rd_marks mk;
    rd_scene_marks(&s, &mk);
    ck_assert(mk.isolated[ZZ_WHITE] == zz_bit(cell_of(ZZ_B37, "a1")));
    ck_assert_int_eq(mk.removed, cell_of(ZZ_B37, "a2"));
    rd_style st;
    rd_style_default(&st);
    rd_canvas c;
    ck_assert_int_eq(rd_draw_position(&s, &st, &c, err, sizeof err), 0);
    rd_geom geo;
    rd_position_geom(ZZ_B37, &st, &geo);
    const rd_theme *t = rd_theme_of(&st);
    float x, y;
    /* the captured marble is drawn where it stood, faded: neither background nor a full marble */
    rd_geom_cell(&geo, cell_of(ZZ_B37, "a1"), &x, &y);
    rd_rgb ghost = px(&c, x, y);
    ck_assert_int_gt(diff(ghost, t->bg), 8);
    rd_geom_cell(&geo, cell_of(ZZ_B37, "a3"), &x, &y);
    rd_rgb full = px(&c, x, y);                          /* the black marble just placed */
    ck_assert_int_lt(full.r, 70);
    /* a ring that was never there (b2) is plain background */
    rd_geom_cell(&geo, cell_of(ZZ_B37, "b2"), &x, &y);
    ck_assert(same(px(&c, x, y), t->bg));
    rd_canvas_free(&c);
    zz_game_free(&g);
}
END_TEST

/* ---- sequences ----------------------------------------------------------------------------- */

static const char *GAME7 = "Wd5,g3; Wb1,d7; Bc5,a3; x c5We4; Gc2,d1; x b1Gd3; Bb5,c1";

START_TEST(sequence_has_one_panel_per_turn) {
    zz_game g;
    load(GAME7, 37, &g);
    ck_assert_int_eq(g.nturns, 7);
    rd_style st;
    rd_style_default(&st);
    st.width = 200;
    const rd_theme *t = rd_theme_of(&st);
    char err[256];
    const int ranges[][2] = { { 1, 7 }, { 3, 5 }, { 0, 7 }, { 6, 6 } };
    for (int i = 0; i < 4; i++) {
        int first = ranges[i][0], last = ranges[i][1], want = last - first + 1;
        rd_sheet L;
        ck_assert_int_eq(rd_sequence_layout(&g, first, last, &st, &L, err, sizeof err), 0);
        ck_assert_int_eq(L.npanels, want);
        rd_canvas c;
        ck_assert_msg(rd_draw_sequence(&g, first, last, &st, &c, err, sizeof err) == 0, "%s", err);
        ck_assert_int_eq(c.w, L.w);
        ck_assert_int_eq(c.h, L.h);
        ck_assert_int_eq(count_regions(&c, t->panel, 200 * 200 / 5), want);
        rd_canvas_free(&c);
    }
    /* fixed columns */
    st.columns = 2;
    rd_sheet L;
    ck_assert_int_eq(rd_sequence_layout(&g, 1, 7, &st, &L, err, sizeof err), 0);
    ck_assert_int_eq(L.cols, 2);
    ck_assert_int_eq(L.rows, 4);
    /* bad ranges */
    ck_assert_int_ne(rd_sequence_layout(&g, 5, 9, &st, &L, err, sizeof err), 0);
    ck_assert_int_ne(rd_sequence_layout(&g, 5, 4, &st, &L, err, sizeof err), 0);
    int a, b;
    ck_assert_int_eq(rd_parse_range("2-5", 7, &a, &b, err, sizeof err), 0);
    ck_assert(a == 2 && b == 5);
    ck_assert_int_eq(rd_parse_range("4-", 7, &a, &b, err, sizeof err), 0);
    ck_assert(a == 4 && b == 7);
    ck_assert_int_eq(rd_parse_range("-3", 7, &a, &b, err, sizeof err), 0);
    ck_assert(a == 1 && b == 3);
    ck_assert_int_ne(rd_parse_range("3-9", 7, &a, &b, err, sizeof err), 0);
    ck_assert_int_ne(rd_parse_range("x", 7, &a, &b, err, sizeof err), 0);
    zz_game_free(&g);
}
END_TEST

/* ---- contrast between the marble colours ----------------------------------------------------- */

/* The game of the user report: its last turn, "Bd3,d5 x Gc3Bc5Bd3Gd4We4", isolates marbles of all
 * three colours (ghosts on the board), both players hold marbles of every colour, the pool is
 * empty, and panel 49's caption is long (Boardspace Z-SmartBot-guest-2006-08-14-2211). */
static const char *SMARTBOT =
    "Gf3,a1; Wd2,a2; Bg3,d1; x g3Ge3; Wf3,g3; x f3Bd3; x d2Wd4; Ba4,a3; Bd7,b5; Bg1,b1; Be1,e6; Bg4,c1; "
    "Bd2,b2; x e1Bc2; Wd5,b3; x d5Wd3; x c2We3; Bb4,c2; x a4Bc4; Bc3,e1; x c3Bc5; We2,c6; x e2Be4; Wb4,a4; "
    "x b4Bd6; x d7Wd5Wf3; Bf2,f1; x g1Be3; x f3Bd3; Wc3,e2; Gd7,b4; Gd6,d2; x d7Gd5; Ge5,f5; x e5Gc4; "
    "x c3Gc5; Gc3,c4; Gd6,d7; Gg2,e5; Ge4,f2; Bg1,e3; Bf3,f4 x Bg4; x f3Gd5; x c5Be4; Bd4,f3 x Bg1Gg2; "
    "x d3Bd5; x d6Bd4; Bc5,d6; Bd3,d5 x Gc3Bc5Bd3Gd4We4";

static void load_smartbot(zz_game *g) {
    load(SMARTBOT, 37, g);
    ck_assert_int_eq(g->nturns, 49);
    snprintf(g->player_name[0], sizeof g->player_name[0], "SmartBot");
    snprintf(g->player_name[1], sizeof g->player_name[1], "guest");
}

/* CIE L* (0 black .. 100 white) of an sRGB colour: lightness as the eye sees it. */
static float lightness(rd_rgb c) {
    float v[3] = { c.r / 255.f, c.g / 255.f, c.b / 255.f };
    for (int i = 0; i < 3; i++) v[i] = v[i] <= 0.04045f ? v[i] / 12.92f : powf((v[i] + 0.055f) / 1.055f, 2.4f);
    float y = 0.2126f * v[0] + 0.7152f * v[1] + 0.0722f * v[2];
    return y > 0.008856f ? 116.f * cbrtf(y) - 16.f : 903.3f * y;
}

/* Mean L*, and mean |L* - L*(bg)|, over the pixels whose centres lie between r0 and r1 of (x, y). */
static void disc_stats(const rd_canvas *c, float x, float y, float r0, float r1, rd_rgb bg, float *tone, float *off) {
    double s = 0, d = 0;
    int n = 0;
    float lb = lightness(bg);
    for (int py = (int)floorf(y - r1 - 1); py <= (int)ceilf(y + r1 + 1); py++)
        for (int qx = (int)floorf(x - r1 - 1); qx <= (int)ceilf(x + r1 + 1); qx++) {
            float dist = hypotf(qx + 0.5f - x, py + 0.5f - y);
            if (dist < r0 || dist > r1) continue;
            float l = lightness(rd_get(c, qx, py));
            s += l;
            d += fabsf(l - lb);
            n++;
        }
    ck_assert_msg(n > 0, "no pixel within %.1f..%.1f of %.1f,%.1f", r0, r1, x, y);
    *tone = (float)(s / n);
    *off = (float)(d / n);
}

/* A marble to measure: where it is and what lies around it (a colour, or when local, the mean
 * colour of the pixels just outside it: the shaded ring under a marble on the board). */
typedef struct { float x, y, r; rd_rgb bg; bool local; } marble_at;

/* The mean colour of the pixels whose centres lie between r0 and r1 of (x, y). */
static rd_rgb ring_colour(const rd_canvas *c, float x, float y, float r0, float r1) {
    double s[3] = { 0, 0, 0 };
    int n = 0;
    for (int py = (int)floorf(y - r1 - 1); py <= (int)ceilf(y + r1 + 1); py++)
        for (int qx = (int)floorf(x - r1 - 1); qx <= (int)ceilf(x + r1 + 1); qx++) {
            float dist = hypotf(qx + 0.5f - x, py + 0.5f - y);
            if (dist < r0 || dist > r1) continue;
            rd_rgb p = rd_get(c, qx, py);
            s[0] += p.r; s[1] += p.g; s[2] += p.b;
            n++;
        }
    ck_assert(n > 0);
    rd_rgb o = { (uint8_t)lrint(s[0] / n), (uint8_t)lrint(s[1] / n), (uint8_t)lrint(s[2] / n) };
    return o;
}

/* Minimum separations (L*) the pictures must keep: between the colours, and between a marble and
 * what lies under it (through its body or its outline). */
enum { MIN_SEPARATION = 20, MIN_STANDOUT = 15 };

/* Measure a white, a grey and a black marble (m[colour]): their tones (mean L* of each disc) must be
 * MIN_SEPARATION apart, and each must stand out from its background by MIN_STANDOUT, through its body
 * or its rim.  Prints the figures. */
/* How far the marble of radius r at (x, y) stands out from bg: the mean |ΔL*| over its body, or
 * over its rim (the pixels whose centres lie in its outermost 15 %, at least 1.5 px), whichever is
 * larger. */
static float standout(const rd_canvas *c, float x, float y, float r, rd_rgb bg) {
    float tone, body, rim;
    disc_stats(c, x, y, 0, r - 0.5f, bg, &tone, &body);
    disc_stats(c, x, y, fmaxf(0, r - fmaxf(1.5f, 0.15f * r)), r, bg, &tone, &rim);
    return fmaxf(body, rim);
}

static void check_three(const char *what, const rd_canvas *c, const marble_at m[3]) {
    float tone[3], out[3];
    for (int col = 0; col < 3; col++) {
        float off;
        float r = m[col].r;
        ck_assert_msg(r >= 1.5f, "%s: a marble of radius %.1f", what, r);
        rd_rgb bg = m[col].local ? ring_colour(c, m[col].x, m[col].y, r + 0.5f, r + fmaxf(1.5f, 0.15f * r)) : m[col].bg;
        disc_stats(c, m[col].x, m[col].y, 0, r - 0.5f, bg, &tone[col], &off);
        out[col] = standout(c, m[col].x, m[col].y, r, bg);
    }
    fprintf(stderr, "test_render: contrast %-30s r %4.1f  L* W %5.1f G %5.1f B %5.1f  W-G %5.1f G-B %5.1f  "
            "vs background W %5.1f G %5.1f B %5.1f\n", what, m[1].r, tone[0], tone[1], tone[2],
            tone[0] - tone[1], tone[1] - tone[2], out[0], out[1], out[2]);
    ck_assert_msg(tone[0] - tone[1] >= MIN_SEPARATION && tone[1] - tone[2] >= MIN_SEPARATION,
                  "%s: white/grey/black tones %.1f %.1f %.1f are too close", what, tone[0], tone[1], tone[2]);
    for (int col = 0; col < 3; col++)
        ck_assert_msg(out[col] >= MIN_STANDOUT, "%s: colour %d stands out from its background by %.1f only", what,
                      col, out[col]);
}

/* From a list of spots, one of each colour of the kind and owner asked for. */
static void pick_spots(const rd_spots *sp, rd_spot_kind kind, int owner, rd_rgb bg, marble_at m[3]) {
    for (int col = 0; col < 3; col++) {
        int k = 0;
        while (k < sp->n && !(sp->v[k].kind == kind && sp->v[k].owner == owner && sp->v[k].colour == col)) k++;
        ck_assert_msg(k < sp->n, "no spot of kind %d, owner %d, colour %d", kind, owner, col);
        marble_at a = { sp->v[k].x, sp->v[k].y, sp->v[k].r, bg, false };
        m[col] = a;
    }
}

/* The first cell holding a marble of each colour in p, or a ghost of each colour (marbles the
 * marked turn isolated) when ghosts. */
static void pick_cells(const rd_geom *geo, const zz_pos *p, const rd_marks *mk, bool ghosts, rd_rgb bg, bool local,
                       marble_at m[3]) {
    for (int col = 0; col < 3; col++) {
        zz_bits b = ghosts ? mk->isolated[col] : p->marble[col];
        ck_assert_msg(b != 0, "no %s of colour %d", ghosts ? "ghost" : "marble", col);
        int cell;
        ZZ_FOR_EACH_BIT(cell, b) break;
        marble_at a = { 0, 0, RD_MARBLE * geo->unit, bg, local };
        rd_geom_cell(geo, cell, &a.x, &a.y);
        m[col] = a;
    }
}

START_TEST(marble_colours_stay_apart) {
    zz_game g;
    load_smartbot(&g);
    char err[256], what[96];
    const int widths[2] = { 900, 300 };                   /* large and small position pictures */
    for (int dark = 0; dark < 2; dark++)
        for (int k = 0; k < 2; k++) {
            rd_style st;
            rd_style_default(&st);
            st.dark = dark;
            st.width = widths[k];
            const rd_theme *t = rd_theme_of(&st);
            const char *th = dark ? "dark" : "light";
            rd_geom geo;
            rd_position_geom(ZZ_B37, &st, &geo);
            marble_at m[3];
            rd_scene s;
            rd_marks mk;
            rd_canvas c;
            /* turn 48: marbles of every colour on the board, on their (shaded) rings */
            ck_assert_int_eq(rd_scene_from_game(&g, 48, &s, err, sizeof err), 0);
            ck_assert_int_eq(rd_draw_position(&s, &st, &c, err, sizeof err), 0);
            pick_cells(&geo, &s.pos, NULL, false, t->ring, true, m);
            snprintf(what, sizeof what, "board %s %d", th, widths[k]);
            check_three(what, &c, m);
            rd_canvas_free(&c);
            /* turn 49: ghosts of the isolated marbles on the table; the trays and the pool's icons */
            ck_assert_int_eq(rd_scene_from_game(&g, 49, &s, err, sizeof err), 0);
            ck_assert_int_eq(rd_draw_position(&s, &st, &c, err, sizeof err), 0);
            rd_scene_marks(&s, &mk);
            pick_cells(&geo, &s.pos, &mk, true, t->bg, false, m);
            snprintf(what, sizeof what, "ghosts %s %d", th, widths[k]);
            check_three(what, &c, m);
            rd_spots sp;
            rd_position_spots(&s, &st, &sp);
            for (int pl = 0; pl < 2; pl++) {
                pick_spots(&sp, RD_SPOT_MARBLE, pl, t->bg, m);
                snprintf(what, sizeof what, "tray %d %s %d", pl, th, widths[k]);
                check_three(what, &c, m);
            }
            pick_spots(&sp, RD_SPOT_ICON, -1, t->bg, m);
            snprintf(what, sizeof what, "pool icons %s %d", th, widths[k]);
            check_three(what, &c, m);
            rd_canvas_free(&c);
        }
    /* the capture strips of a sequence sheet, at the default panel width and a small one */
    const int panels[2] = { RD_PANEL_WIDTH, 160 };
    for (int dark = 0; dark < 2; dark++)
        for (int k = 0; k < 2; k++) {
            rd_style st;
            rd_style_default(&st);
            st.dark = dark;
            st.width = panels[k];
            const rd_theme *t = rd_theme_of(&st);
            rd_canvas c;
            ck_assert_msg(rd_draw_sequence(&g, 47, 49, &st, &c, err, sizeof err) == 0, "%s", err);
            rd_panel_info in;
            ck_assert_msg(rd_sequence_panel_info(&g, 47, 49, &st, 2, &in, err, sizeof err) == 0, "%s", err);
            for (int pl = 0; pl < 2; pl++) {
                marble_at m[3];
                pick_spots(&in.strip, RD_SPOT_MARBLE, pl, t->panel, m);
                snprintf(what, sizeof what, "strip %d %s %d", pl, dark ? "dark" : "light", panels[k]);
                check_three(what, &c, m);
                if (k == 0) ck_assert_msg(m[0].r >= 5.f, "strip marbles of radius %.1f", m[0].r);
            }
            rd_canvas_free(&c);
        }
    /* the primitives on a plain table, from tiny to large, as marbles and as ghosts */
    const float radii[4] = { 2.5f, 4, 8, 24 };
    for (int dark = 0; dark < 2; dark++) {
        rd_style st;
        rd_style_default(&st);
        st.dark = dark;
        const rd_theme *t = rd_theme_of(&st);
        for (int k = 0; k < 4; k++)
            for (int ghost = 0; ghost < 2; ghost++) {
                rd_canvas c;
                ck_assert_int_eq(rd_canvas_init(&c, 200, 70, t->bg), 0);
                marble_at m[3];
                for (int col = 0; col < 3; col++) {
                    marble_at a = { 35.f + 60.f * col, 35.f, radii[k], t->bg, false };
                    m[col] = a;
                    if (ghost) rd_draw_ghost(&c, t, col, a.x, a.y, a.r, RD_GHOST);
                    else rd_draw_marble(&c, t, col, a.x, a.y, a.r, 1.f);
                }
                snprintf(what, sizeof what, "%s %s r=%.1f", ghost ? "ghost" : "marble", dark ? "dark" : "light", radii[k]);
                check_three(what, &c, m);
                rd_canvas_free(&c);
            }
    }
    zz_game_free(&g);
}
END_TEST

START_TEST(pool_shows_colour_icons) {
    /* an empty pool still says which count is which colour: an icon of each colour beside "0" */
    zz_game g;
    load_smartbot(&g);
    rd_scene s;
    char err[256];
    ck_assert_int_eq(rd_scene_from_game(&g, -1, &s, err, sizeof err), 0);
    ck_assert(s.pos.pool[0] == 0 && s.pos.pool[1] == 0 && s.pos.pool[2] == 0);
    for (int dark = 0; dark < 2; dark++) {
        rd_style st;
        rd_style_default(&st);
        st.dark = dark;
        const rd_theme *t = rd_theme_of(&st);
        rd_canvas c;
        ck_assert_int_eq(rd_draw_position(&s, &st, &c, err, sizeof err), 0);
        rd_spots sp;
        rd_position_spots(&s, &st, &sp);
        int icons = 0, pool_marbles = 0;
        float last_y = -1;
        for (int i = 0; i < sp.n; i++) {
            if (sp.v[i].owner != -1) continue;
            if (sp.v[i].kind == RD_SPOT_MARBLE) pool_marbles++;
            if (sp.v[i].kind != RD_SPOT_ICON) continue;
            ck_assert_int_eq(sp.v[i].colour, icons);        /* white, grey, black, top to bottom */
            ck_assert(sp.v[i].y > last_y);
            last_y = sp.v[i].y;
            icons++;
            /* a marble is drawn there: its centre is neither the table nor the slot colour */
            ck_assert(sp.v[i].r > 3);
            ck_assert_msg(standout(&c, sp.v[i].x, sp.v[i].y, sp.v[i].r, t->bg) >= MIN_STANDOUT, "no icon %d", icons - 1);
        }
        ck_assert_int_eq(icons, 3);
        ck_assert_int_eq(pool_marbles, 0);
        rd_canvas_free(&c);
    }
    /* a full pool: the icon, then as many marbles as the count, inside the picture */
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    rd_scene_from_pos(&p, "start", &s);
    rd_style st;
    rd_style_default(&st);
    rd_spots sp;
    rd_position_spots(&s, &st, &sp);
    int w, h, n[3] = { 0, 0, 0 };
    rd_position_size(ZZ_B37, &st, &w, &h);
    for (int i = 0; i < sp.n; i++)
        if (sp.v[i].owner == -1 && sp.v[i].kind == RD_SPOT_MARBLE) {
            n[sp.v[i].colour]++;
            ck_assert(sp.v[i].x + sp.v[i].r < w);
        }
    for (int col = 0; col < 3; col++) ck_assert_int_eq(n[col], p.pool[col]);
    zz_game_free(&g);
}
END_TEST

/* ---- captions and labels ----------------------------------------------------------------------- */

START_TEST(sequence_caption_fits_its_panel) {
    zz_game g;
    load_smartbot(&g);
    char err[256];
    /* panel 49's caption, a long name, and sizes down to the smallest panel */
    const int widths[4] = { RD_PANEL_WIDTH, 200, 120, 80 };
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < 4; k++) {
            if (pass == 1) snprintf(g.player_name[0], sizeof g.player_name[0], "Bartholomew-the-Patient 1999");
            rd_style st;
            rd_style_default(&st);
            st.width = widths[k];
            st.columns = 3;
            const rd_theme *t = rd_theme_of(&st);
            rd_canvas c;
            ck_assert_msg(rd_draw_sequence(&g, 44, 49, &st, &c, err, sizeof err) == 0, "%s", err);
            rd_sheet L;
            ck_assert_int_eq(rd_sequence_layout(&g, 44, 49, &st, &L, err, sizeof err), 0);
            ck_assert_int_ge(L.caption_lines, 1);
            ck_assert_int_le(L.caption_lines, RD_CAPTION_LINES);
            /* nothing is drawn on the sheet outside the panels, below the header */
            int spill = 0, sx = -1, sy = -1;
            for (int y = (int)ceilf(L.header_h); y < c.h; y++)
                for (int x = 0; x < c.w; x++) {
                    bool inside = false;
                    for (int i = 0; i < L.npanels && !inside; i++) {
                        float x0, y0;
                        rd_sequence_panel_xy(&L, i, &x0, &y0);
                        inside = x >= floorf(x0) && x < ceilf(x0 + L.panel_w) && y >= floorf(y0) && y < ceilf(y0 + L.panel_h);
                    }
                    if (!inside && !same(rd_get(&c, x, y), t->sheet)) { spill++; sx = x; sy = y; }
                }
            ck_assert_msg(spill == 0, "%d pixels drawn outside the panels (one at %d,%d), panels %d px", spill, sx, sy,
                          widths[k]);
            for (int i = 0; i < L.npanels; i++) {
                rd_panel_info in;
                ck_assert_int_eq(rd_sequence_panel_info(&g, 44, 49, &st, i, &in, err, sizeof err), 0);
                rd_scene s;
                ck_assert_int_eq(rd_scene_from_game(&g, 44 + i, &s, err, sizeof err), 0);
                /* the caption's ink stays in its band, clear of the panel's padding (give or take the
                 * strokes' half-width and anti-aliasing, 2 px) */
                ck_assert(in.cap_x > in.x && in.cap_x + in.cap_w < in.x + in.w && in.cap_y > in.y);
                int out = 0, ox = -1;
                for (int y = (int)in.cap_y; y < (int)(in.cap_y + in.cap_h); y++)
                    for (int x = (int)in.x; x < (int)ceilf(in.x + in.w); x++)
                        if ((x + 1 < in.cap_x - 2 || x > in.cap_x + in.cap_w + 2) && diff(rd_get(&c, x, y), t->panel) > 60) {
                            out++;
                            ox = x;
                        }
                ck_assert_msg(out == 0, "panel %d (%d px): caption ink at x=%d, outside %.1f..%.1f", i, widths[k], ox,
                              in.cap_x, in.cap_x + in.cap_w);
                char text[2 * ZZ_NOTATION_MAX] = "";
                bool name = false;
                for (int j = 0; j < in.caption.n; j++) {
                    const float hw = 1.f;                    /* stroke half-width and anti-aliasing */
                    float x0 = in.caption.item[j].x, x1 = x0 + in.caption.item[j].w;
                    float y1 = in.caption.item[j].y, y0 = y1 - in.caption.item[j].size;
                    ck_assert_msg(x0 - hw >= in.cap_x - 1 && x1 <= in.cap_x + in.cap_w + 0.01f && y0 - hw >= in.cap_y - 1 &&
                                  y1 + 0.3f * in.caption.item[j].size <= in.cap_y + in.cap_h,
                                  "panel %d: '%s' at %.1f..%.1f leaves the caption band %.1f..%.1f", i,
                                  in.caption.item[j].text, x0, x1, in.cap_x, in.cap_x + in.cap_w);
                    ck_assert(in.caption.item[j].size >= 0.3f * 0.042f * widths[k] || in.caption.item[j].role == RD_CAP_NAME);
                    if (in.caption.item[j].role == RD_CAP_NAME) {
                        name = true;
                        ck_assert_str_eq(in.caption.item[j].text, s.names[s.last_player & 1]);
                        /* and it is drawn: ink in its box */
                        int ink = 0;
                        for (int y = (int)y0; y <= (int)y1; y++)
                            for (int x = (int)x0; x <= (int)x1; x++) ink += diff(rd_get(&c, x, y), t->panel) > 60;
                        ck_assert_msg(ink >= 3, "panel %d: no ink where the name stands", i);
                    } else if (in.caption.item[j].role == RD_CAP_MOVE) {
                        if (text[0]) strcat(text, " ");
                        strcat(text, in.caption.item[j].text);
                    }
                }
                ck_assert_msg(name, "panel %d: the player's name was dropped", i);
                /* the whole move is there (lines join at spaces or inside capture lists) */
                char want[ZZ_NOTATION_MAX], got[2 * ZZ_NOTATION_MAX];
                int a = 0, b = 0;
                for (const char *q = s.last_text; *q; q++) if (*q != ' ') want[a++] = *q;
                for (const char *q = text; *q; q++) if (*q != ' ') got[b++] = *q;
                want[a] = got[b] = 0;
                ck_assert_str_eq(got, want);
            }
            rd_canvas_free(&c);
        }
    zz_game_free(&g);
}
END_TEST

/* Height in pixels of the ink in the box (x0, y0)-(x1, y1) that differs from bg. */
static int ink_height(const rd_canvas *c, rd_rgb bg, int x0, int y0, int x1, int y1) {
    int top = -1, bottom = -1;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++)
            if (diff(rd_get(c, x, y), bg) > 60) { if (top < 0) top = y; bottom = y; }
    return top < 0 ? 0 : bottom - top + 1;
}

START_TEST(labels_scale_and_stay_readable) {
    const rd_theme *t;
    rd_style st;
    rd_style_default(&st);
    t = rd_theme_of(&st);
    /* the row number beside a5 of the 61-ring board (column a), at a board unit of u pixels */
    const float units[3] = { 20, 28, 60 };
    for (int k = 0; k < 3; k++) {
        float u = units[k];
        const zz_board *b = zz_board_get(ZZ_B61);
        float wu, hu;
        rd_geom_extent(b, true, &wu, &hu);
        rd_canvas c;
        int w = (int)ceilf(wu * u), h = (int)ceilf(hu * u);
        ck_assert_int_eq(rd_canvas_init(&c, w + 40, h + 40, t->bg), 0);
        rd_geom geo;
        rd_geom_fit(&geo, b, true, 20, 20, (float)w, (float)h);
        ck_assert(fabsf(geo.unit - u) < 0.1f * u);
        rd_draw_labels(&c, &geo, t);
        float x, y;
        rd_geom_cell(&geo, cell_of(ZZ_B61, "a5"), &x, &y);
        float lx = x - 0.8f * geo.unit;
        int hgt = ink_height(&c, t->bg, (int)(lx - 0.4f * geo.unit), (int)(y - 0.45f * geo.unit),
                             (int)(lx + 0.4f * geo.unit), (int)(y + 0.45f * geo.unit));
        fprintf(stderr, "test_render: label height %d px at a board unit of %.1f px\n", hgt, geo.unit);
        /* ink: the cap height and the stroke above and below it */
        ck_assert_msg(hgt >= RD_LABEL_MIN + 1 && hgt >= 0.28f * geo.unit, "labels %d px high at a unit of %.1f", hgt,
                      geo.unit);
        ck_assert_msg(hgt <= 0.45f * geo.unit + 2, "labels %d px high at a unit of %.1f", hgt, geo.unit);
        rd_canvas_free(&c);
    }
    /* in a default sequence panel of the 61-ring board, the labels are readable */
    zz_game g;
    load("Wd4,i1; Gc3,a1", 61, &g);
    rd_style sq;
    rd_style_default(&sq);
    rd_panel_info in;
    char err[256];
    ck_assert_int_eq(rd_sequence_panel_info(&g, 1, 2, &sq, 0, &in, err, sizeof err), 0);
    float wu, hu;
    rd_geom_extent(zz_board_get(ZZ_B61), true, &wu, &hu);
    float u = (in.w * (1 - 2 * 0.045f)) / wu;              /* the panel's board unit, about */
    ck_assert(u > 18 && u < 40);
    ck_assert(rd_label_size(u) >= RD_LABEL_MIN);
    zz_game_free(&g);
}
END_TEST

/* ---- heat-maps ----------------------------------------------------------------------------- */

START_TEST(heat_collect_shares) {
    zz_board_kind k = ZZ_B37;
    zz_move mv[4] = {
        zz_move_place(ZZ_WHITE, cell_of(k, "d4"), cell_of(k, "a1")),
        zz_move_place(ZZ_BLACK, cell_of(k, "d4"), cell_of(k, "g1")),
        zz_move_place(ZZ_GREY, cell_of(k, "c3"), cell_of(k, "a1")),
        zz_move_place(ZZ_GREY, cell_of(k, "c2"), cell_of(k, "a1")),
    };
    int vis[4] = { 50, 30, 20, 0 };
    rd_heat h;
    rd_heat_collect(mv, vis, 4, &h);
    ck_assert_int_eq(h.total, 100);
    ck_assert_int_eq(h.best, 0);
    ck_assert(!h.jumps && h.any_removal);
    ck_assert(fabsf(h.place[cell_of(k, "d4")] - 0.8f) < 1e-6f);
    ck_assert(fabsf(h.place[cell_of(k, "c3")] - 0.2f) < 1e-6f);
    ck_assert(h.place[cell_of(k, "c2")] == 0.f);
    ck_assert(fabsf(h.remove[cell_of(k, "a1")] - 0.7f) < 1e-6f);
    ck_assert(fabsf(h.remove[cell_of(k, "g1")] - 0.3f) < 1e-6f);
    ck_assert(fabsf(h.colour[ZZ_WHITE] - 0.5f) < 1e-6f && fabsf(h.colour[ZZ_GREY] - 0.2f) < 1e-6f);
    float sp = 0, sr = 0;
    for (int i = 0; i < ZZ_NCELLS; i++) { sp += h.place[i]; sr += h.remove[i]; }
    ck_assert(fabsf(sp - 1) < 1e-5f && fabsf(sr - 1) < 1e-5f);
    zz_move jm[2] = { zz_move_jump(cell_of(k, "c3"), cell_of(k, "e4")), zz_move_jump(cell_of(k, "c3"), cell_of(k, "c5")) };
    int jv[2] = { 3, 1 };
    rd_heat_collect(jm, jv, 2, &h);
    ck_assert(h.jumps);
    ck_assert(fabsf(h.from[cell_of(k, "c3")] - 1.f) < 1e-6f);
    ck_assert(fabsf(h.to[cell_of(k, "e4")] - 0.75f) < 1e-6f);
}
END_TEST

START_TEST(heat_draw_colours_cells) {
    zz_game g;
    load("Wd4,g1", 37, &g);
    rd_scene s;
    char err[256];
    ck_assert_int_eq(rd_scene_from_game(&g, -1, &s, err, sizeof err), 0);
    zz_board_kind k = ZZ_B37;
    zz_move mv[3] = {
        zz_move_place(ZZ_BLACK, cell_of(k, "c3"), cell_of(k, "a1")),
        zz_move_place(ZZ_GREY, cell_of(k, "c3"), cell_of(k, "a1")),
        zz_move_place(ZZ_WHITE, cell_of(k, "e2"), cell_of(k, "f1")),
    };
    int vis[3] = { 600, 300, 100 };
    rd_style st;
    rd_style_default(&st);
    rd_canvas c;
    ck_assert_msg(rd_draw_heatmap(&s, mv, vis, 3, "test", &st, &c, err, sizeof err) == 0, "%s", err);
    rd_geom geo[3];
    int w, h;
    rd_heat_layout(k, &st, geo, &w, &h);
    ck_assert_int_eq(c.w, w);
    ck_assert_int_eq(c.h, h);
    ck_assert_int_eq(c.w, RD_HEAT_WIDTH);
    const rd_theme *t = rd_theme_of(&st);
    float x, y, u = geo[1].unit;
    /* c3 took 90% of the placements (the most of any cell): the top of the colour ramp */
    rd_geom_cell(&geo[1], cell_of(k, "c3"), &x, &y);
    ck_assert(same(px(&c, x, y - 0.33f * u), t->heat[4]));
    /* e2 took 10%: a lower colour of the ramp; b4 none */
    rd_geom_cell(&geo[1], cell_of(k, "e2"), &x, &y);
    rd_rgb e2 = px(&c, x, y - 0.33f * u);
    ck_assert(same(e2, rd_heat_colour(t, sqrtf(0.1f / 0.9f))));
    rd_geom_cell(&geo[1], cell_of(k, "b4"), &x, &y);
    ck_assert(same(px(&c, x, y - 0.33f * u), t->heat_none));
    /* removals: a1 90% (top colour), f1 10%; g1 (removed earlier) is background */
    rd_geom_cell(&geo[2], cell_of(k, "a1"), &x, &y);
    ck_assert(same(px(&c, x, y - 0.33f * u), t->heat[4]));
    rd_geom_cell(&geo[2], cell_of(k, "g1"), &x, &y);
    ck_assert(same(px(&c, x, y), t->bg));
    rd_canvas_free(&c);
    /* a move that is not legal in the position, and no visits at all: clear errors */
    zz_move bad = zz_move_place(ZZ_WHITE, cell_of(k, "d4"), cell_of(k, "a1"));
    ck_assert_int_ne(rd_draw_heatmap(&s, &bad, vis, 1, "", &st, &c, err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "not legal"));
    int zero[3] = { 0, 0, 0 };
    ck_assert_int_ne(rd_draw_heatmap(&s, mv, zero, 3, "", &st, &c, err, sizeof err), 0);
    zz_game_free(&g);
}
END_TEST

START_TEST(heat_from_uct_search) {
#ifdef HAVE_UCT
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    mcts_uct_config cfg;
    mcts_uct_config_default(&cfg);
    cfg.seed = 7;
    cfg.threads = 1;
    zz_move *mv = malloc(ZZ_MAX_MOVES * sizeof *mv);
    int *vis = malloc(ZZ_MAX_MOVES * sizeof *vis);
    ck_assert(mv && vis);
    int n = mcts_uct_analyse(&p, &cfg, 300, mv, vis, ZZ_MAX_MOVES);
    ck_assert_int_gt(n, 0);
    rd_scene s;
    rd_scene_from_pos(&p, "opening", &s);
    rd_style st;
    rd_style_default(&st);
    st.width = 600;
    rd_canvas c;
    char err[256];
    ck_assert_msg(rd_draw_heatmap(&s, mv, vis, n, "UCT", &st, &c, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(c.w, 600);
    rd_canvas_free(&c);
    free(mv);
    free(vis);
#else
    th_skip("test_render", "heat_from_uct_search: src/mcts/uct.h is not in this tree");
#endif
}
END_TEST

/* ---- charts -------------------------------------------------------------------------------- */

START_TEST(chart_axis_and_mapping) {
    double lo = 0, hi = 2990, step;
    rd_nice_axis(&lo, &hi, &step, 6, 1);
    ck_assert(lo == 0 && hi == 3000 && step == 500);
    lo = 0.13; hi = 0.71;
    rd_nice_axis(&lo, &hi, &step, 4, 0);
    ck_assert(fabs(step - 0.2) < 1e-12 && fabs(lo) < 1e-12 && fabs(hi - 0.8) < 1e-12);
    const double v[4] = { 3, NAN, -2, INFINITY };
    rd_data_range(v, 4, &lo, &hi);
    ck_assert(lo == -2 && hi == 3);
    rd_data_range(v, 1, &lo, &hi);                           /* one value: widened to 1 */
    ck_assert(lo == 2.5 && hi == 3.5);
    rd_data_range(v + 1, 1, &lo, &hi);                       /* none finite: [0, 1] */
    ck_assert(lo == 0 && hi == 1);
    rd_panel p = { 10, 20, 110, 220, 0, 1, -1, 1, 0.5, 0.5 };
    ck_assert(rd_panel_x(&p, 0) == 10 && rd_panel_x(&p, 1) == 110 && rd_panel_x(&p, 0.25) == 35);
    ck_assert(rd_panel_y(&p, -1) == 220 && rd_panel_y(&p, 1) == 20 && rd_panel_y(&p, 0) == 120);
}
END_TEST

/* The refactored training plot (src/train/plot.c on src/render/chart.h) still draws its curves. */
START_TEST(plot_still_draws) {
    tr_history h;
    memset(&h, 0, sizeof h);
    for (int i = 0; i < 200; i++) ck_assert_int_eq(tr_history_loss(&h, i * 10, 3.0 * exp(-i / 60.0) + 0.4, 0.8 * exp(-i / 40.0)), 0);
    for (int g = 0; g < 8; g++) ck_assert_int_eq(tr_history_rating(&h, g, 40.0 * g), 0);
    ck_assert_int_eq(tr_history_anchor(&h, 2, "uct:100", -100, -150, -50), 0);
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/progress.png", tmpdir());
    ck_assert_msg(tr_plot_write(&h, path, "test run", err, sizeof err) == 0, "%s", err);
    int w, hh, n;
    unsigned char *data = stbi_load(path, &w, &hh, &n, 3);
    ck_assert_ptr_nonnull(data);
    ck_assert_int_eq(w, 900);
    ck_assert_int_eq(hh, 900);
    int blue = 0, red = 0, green = 0;                    /* the cores of the three curves */
    for (int i = 0; i < w * hh; i++) {
        rd_rgb c = { data[3 * i], data[3 * i + 1], data[3 * i + 2] };
        blue += same(c, rd_hex(0x2B6CB0));
        red += same(c, rd_hex(0xC53030));
        green += same(c, rd_hex(0x2F855A));
    }
    ck_assert_msg(blue > 300 && red > 300 && green > 100, "curves: blue %d red %d green %d", blue, red, green);
    stbi_image_free(data);
    remove(path);
    tr_history_free(&h);
}
END_TEST

/* n turns starting at wp; turn `blunder` (0-based) flagged as a blunder. */
static void wp_game(rd_wp_turn *t, int n, double wp, int blunder) {
    for (int i = 0; i < n; i++) {
        t[i].wp_before = wp < 0 ? 0.5 + 0.4 * sin(i * 0.3) : wp;
        t[i].mover = i & 1;
        t[i].label = i == blunder ? 3 : 0;
    }
}

START_TEST(winprob_size_and_blunder_dot) {
    rd_wp_turn t[30];
    wp_game(t, 30, -1, 11);
    const char names[2][64] = { "alice", "bob" };
    rd_style st;
    rd_style_default(&st);
    char err[256];
    for (int dark = 0; dark < 2; dark++) {
        st.dark = dark;
        st.width = dark ? 600 : 0;
        rd_canvas c;
        ck_assert_msg(rd_draw_winprob(t, 30, 0.1, "game", names, &st, &c, err, sizeof err) == 0, "%s", err);
        rd_panel p;
        int w, h;
        rd_winprob_layout(30, &st, &p, &w, &h);
        ck_assert_int_eq(c.w, dark ? 600 : RD_WINPROB_WIDTH);
        ck_assert_int_eq(c.w, w);
        ck_assert_int_eq(c.h, h);
        ck_assert(same(rd_get(&c, 1, 1), rd_theme_of(&st)->bg));
        rd_rgb dot = px(&c, rd_panel_x(&p, 12), rd_panel_y(&p, t[11].wp_before));
        ck_assert_msg(dot.r > 180 && dot.g < 100 && dot.b < 100, "blunder dot %02x%02x%02x", dot.r, dot.g, dot.b);
        ck_assert(same(dot, rd_winprob_flag_colour(&st, 3)));
        rd_canvas_free(&c);
    }
}
END_TEST

START_TEST(winprob_certain_win_line_at_top) {
    rd_wp_turn t[20];
    wp_game(t, 20, 1.0, -1);
    rd_style st;
    rd_style_default(&st);
    rd_canvas c;
    char err[256];
    ck_assert_msg(rd_draw_winprob(t, 20, 1.0, "won", NULL, &st, &c, err, sizeof err) == 0, "%s", err);
    rd_panel p;
    int w, h;
    rd_winprob_layout(20, &st, &p, &w, &h);
    const rd_theme *th = rd_theme_of(&st);
    for (double x = 1.5; x < 21; x += 2.5) {
        float xx = rd_panel_x(&p, x);
        ck_assert_msg(diff(px(&c, xx, rd_panel_y(&p, 1.0) + 0.5f), th->text) < 40, "line not at the top at %g", x);
        rd_rgb fill = px(&c, xx, rd_panel_y(&p, 0.85));      /* between the line and 50%: shaded */
        ck_assert(diff(fill, th->panel) > 40 && diff(fill, th->text) > 40);
        ck_assert(same(px(&c, xx, rd_panel_y(&p, 0.35)), th->panel));   /* below 50%: no line, no shade */
    }
    rd_canvas_free(&c);
}
END_TEST

START_TEST(reliability_size_and_dots) {
    double pa[4] = { 0.125, 0.375, 0.5, 0.875 }, oa[4] = { 0.2, 0.3, 0.5, 0.8 };
    long ca[4] = { 10, 40, 90, 20 };
    double pb[2] = { 0.3, NAN }, ob[2] = { 0.8, 0 };
    long cb[2] = { 7, 0 };
    rd_reliability_series s[2] = { { "model", 4, pa, oa, ca }, { "other", 2, pb, ob, cb } };
    rd_style st;
    rd_style_default(&st);
    char err[256];
    for (int dark = 0; dark < 2; dark++) {
        st.dark = dark;
        rd_canvas c;
        ck_assert_msg(rd_draw_reliability(s, 2, "calibration", &st, &c, err, sizeof err) == 0, "%s", err);
        rd_panel plot, hist;
        int w, h;
        rd_reliability_layout(&st, &plot, &hist, &w, &h);
        ck_assert_int_eq(c.w, RD_RELIABILITY_WIDTH);
        ck_assert_int_eq(c.w, w);
        ck_assert_int_eq(c.h, h);
        ck_assert(same(rd_get(&c, 1, 1), rd_theme_of(&st)->bg));
        /* the fullest bin's dot (on the diagonal) and the other series' only dot, in their colours */
        ck_assert(same(px(&c, rd_panel_x(&plot, 0.5), rd_panel_y(&plot, 0.5)), rd_reliability_colour(&st, 0)));
        ck_assert(same(px(&c, rd_panel_x(&plot, 0.3), rd_panel_y(&plot, 0.8)), rd_reliability_colour(&st, 1)));
        /* the histogram: the first series' fullest bin is shaded, an empty stretch is not */
        rd_rgb bar = px(&c, rd_panel_x(&hist, 0.5), hist.y1 - 3);
        ck_assert(diff(bar, rd_theme_of(&st)->panel) > 10);
        rd_canvas_free(&c);
    }
    st.width = 400;
    rd_canvas c;
    ck_assert_int_eq(rd_draw_reliability(s, 1, NULL, &st, &c, err, sizeof err), 0);
    ck_assert_int_eq(c.w, 400);
    rd_canvas_free(&c);
}
END_TEST

START_TEST(charts_refuse_bad_input) {
    rd_wp_turn t[1] = { { 0.5, 0, 0 } };
    rd_style st;
    rd_style_default(&st);
    rd_canvas c;
    char err[256] = "";
    ck_assert_int_eq(rd_draw_winprob(t, 0, NAN, "x", NULL, &st, &c, err, sizeof err), -1);
    ck_assert(err[0] != 0);
    err[0] = 0;
    ck_assert_int_eq(rd_draw_reliability(NULL, 0, "x", &st, &c, err, sizeof err), -1);
    ck_assert(err[0] != 0);
    rd_reliability_series empty = { "empty", 0, NULL, NULL, NULL };
    err[0] = 0;
    ck_assert_int_eq(rd_draw_reliability(&empty, 1, "x", &st, &c, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "empty"));
}
END_TEST

/* ---- input --------------------------------------------------------------------------------- */

START_TEST(input_splits_turns) {
    char **t, err[256];
    int n = rd_split_turns("# a comment\n1. Wd4,d1 2. Bd7,b2 x Wa1Wa2\nx d1Gd3Wd5; Gc3 ;xd2We3\n"
                           "Wa1, b2   x b5Bd7\n", &t, err, sizeof err);
    ck_assert_int_eq(n, 7);
    ck_assert_str_eq(t[0], "Wd4,d1");
    ck_assert_str_eq(t[1], "Bd7,b2 x Wa1Wa2");
    ck_assert_str_eq(t[2], "x d1Gd3Wd5");
    ck_assert_str_eq(t[3], "Gc3");
    ck_assert_str_eq(t[4], "x d2We3");
    ck_assert_str_eq(t[5], "Wa1,b2");
    ck_assert_str_eq(t[6], "x b5Bd7");
    rd_free_turns(t, n);
    n = rd_split_turns("Wa1,b2 x b5Bd7 12.Gc3 13)xd2We3", &t, err, sizeof err);
    ck_assert_int_eq(n, 4);
    ck_assert_str_eq(t[1], "x b5Bd7");
    ck_assert_str_eq(t[2], "Gc3");
    ck_assert_str_eq(t[3], "x d2We3");
    rd_free_turns(t, n);
    n = rd_split_turns("", &t, err, sizeof err);
    ck_assert_int_eq(n, 0);
    rd_free_turns(t, n);
    ck_assert_int_eq(rd_split_turns("Wd4,d1 hello", &t, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "hello"));
    ck_assert_int_eq(rd_split_turns("x Wa1", &t, err, sizeof err), -1);
    ck_assert_int_eq(rd_split_turns("Wd4,d1 x", &t, err, sizeof err), -1);
}
END_TEST

/* A folder of records with links: a link to a file counts, a link to a folder (here two loops
 * back up the tree) is not followed, so the listing ends, and holds each real record once. */
START_TEST(input_folder_links_are_not_followed) {
    char d[300], p[1200], err[512];
    snprintf(d, sizeof d, "%.280s/links", tmpdir());
    snprintf(p, sizeof p, "rm -rf %s && mkdir -p %s/sub && echo '(;)' > %s/sub/a.sgf", d, d, d);
    ck_assert_int_eq(system(p), 0);
    snprintf(p, sizeof p, "cd %s/sub && ln -s .. up1 && ln -s .. up2 && ln -s a.sgf b.sgf && ln -s gone.sgf c.sgf", d);
    ck_assert_int_eq(system(p), 0);
    zz_file_list l = { 0 };
    ck_assert_msg(zz_file_list_add(&l, d, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(l.n, 2);                                   /* a.sgf and the link b.sgf */
    ck_assert_msg(strstr(l.paths[0], "/sub/a.sgf") && strstr(l.paths[1], "/sub/b.sgf"), "%s %s", l.paths[0], l.paths[1]);
    zz_file_list_free(&l);
}
END_TEST

/* A long run of jump turns that never read as a chain is refused at its first turn, in time
 * linear in its length: the joining stops at ZZ_MAX_CHAIN jumps (100,000 of them took minutes
 * when every later jump was joined and re-read; the case's timeout is the check). */
START_TEST(input_long_jump_runs_are_refused_fast) {
    enum { TURNS = 100000 };
    char *text = malloc(TURNS * 7 + 1), err[512];
    ck_assert_ptr_nonnull(text);
    for (int i = 0; i < TURNS; i++) memcpy(text + 7 * i, "x a1b2;", 7);
    text[TURNS * 7] = 0;
    zz_game g;
    ck_assert_int_ne(rd_load_notation(text, 37, &g, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "turn 1") != NULL, "%s", err);
    zz_game_free(&g);
    ck_assert_int_ne(rd_load_notation(text, 0, &g, err, sizeof err), 0);   /* every board tried */
    zz_game_free(&g);
    free(text);
}
END_TEST

START_TEST(input_replays_and_reports) {
    zz_game g;
    char err[512];
    /* separators of every kind give the same game */
    load(GAME7, 37, &g);
    zz_game g2;
    load("Wd5,g3\nWb1,d7\n1. Bc5,a3 x c5We4 Gc2,d1\n  x b1Gd3\n# end\nBb5,c1 ; ", 0, &g2);
    ck_assert_int_eq(g2.nturns, 7);
    ck_assert_int_eq(g2.board, ZZ_B37);
    ck_assert(zz_pos_equal(&g.final, &g2.final));
    zz_game_free(&g2);
    /* a chain written as separate jumps is one turn */
    ck_assert_msg(rd_load_notation("Wd5,g3; Wb1,d7; Bc5,a3; x c5We4; Gc2,d1; x b1Gd3; Bb5,c1; Wd4,f5; "
                                   "x d3Wd5; x d5Bf3", 37, &g2, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(g2.nturns, 9);
    ck_assert_str_eq(g2.turns[8].text, "x d3Wd5Bf3");
    zz_game_free(&g2);
    zz_game_free(&g);
    /* board detection: h2 exists on 48 and 61 rings only */
    load("Wd4,h2", 0, &g);
    ck_assert_int_eq(g.board, ZZ_B48);
    zz_game_free(&g);
    load("Wd4,i1", 0, &g);
    ck_assert_int_eq(g.board, ZZ_B61);
    zz_game_free(&g);
    /* an illegal move names its turn */
    ck_assert_int_ne(rd_load_notation("Wd4,g1; Gc3,a1; Wd4,b1", 37, &g, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "turn 3") != NULL, "%s", err);
    zz_game_free(&g);
    ck_assert_int_ne(rd_load_notation("Wd4,g1; Gq3,a1", 0, &g, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "turn 2") != NULL, "%s", err);
    zz_game_free(&g);
    ck_assert_int_ne(rd_load_notation("Wd4,g1", 50, &g, err, sizeof err), 0);
    zz_game_free(&g);
    /* files: missing, a folder, notation, SGF */
    ck_assert_int_ne(rd_load_file("/nonexistent/game.sgf", 0, &g, err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/game.sgf"));
    zz_game_free(&g);
    ck_assert_int_ne(rd_load_file("/tmp", 0, &g, err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "directory"));
    zz_game_free(&g);
    char path[512];
    snprintf(path, sizeof path, "%s/game.txt", tmpdir());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("# test game\nWd4,g1\nGc3,a1 # second\n", f);
    fclose(f);
    ck_assert_msg(rd_load_file(path, 0, &g, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(g.nturns, 2);
    zz_game_free(&g);
    remove(path);
}
END_TEST

/* ---- the tool ------------------------------------------------------------------------------ */

static char tool[512];

static bool have_tool(void) {
    const char *d = getenv("ZZ_TOOLDIR");
    snprintf(tool, sizeof tool, "%s/render", d && *d ? d : "tools");
    if (access(tool, X_OK) == 0) return true;
    th_skip("test_render", "tool tests: %s is not built", tool);
    return false;
}

/* Run the tool with args; returns its exit status and its stderr in errout. */
static int run_tool(const char *args, char *errout, size_t n) {
    char cmd[4096], errf[600];
    snprintf(errf, sizeof errf, "%s/stderr.txt", tmpdir());
    snprintf(cmd, sizeof cmd, "%s %s >/dev/null 2>%s", tool, args, errf);
    int st = system(cmd);
    errout[0] = 0;
    FILE *f = fopen(errf, "r");
    if (f) { size_t k = fread(errout, 1, n - 1, f); errout[k] = 0; fclose(f); }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Two outputs of one tool never name one file, however spelled, and whether or not it exists:
 * exit 2 before anything is written. */
START_TEST(tools_refuse_two_outputs_on_one_file) {
    if (!have_tool()) return;
    char args[1400], e[2048], out[600], again[600], sub[600];
    snprintf(sub, sizeof sub, "%s/two-out", tmpdir());
    mkdir(sub, 0700);
    snprintf(out, sizeof out, "%s/x", tmpdir());
    snprintf(again, sizeof again, "%s/two-out/../x", tmpdir());
    unlink(out);
    struct { const char *tool, *fmt; } cases[] = {
        { "nn_dump", "--board 37 --n 1 --out %s --save-ckpt %s" },
        { "analyse", "-m 'Wd4,g1' --sims 2 -q --json %s --png %s" },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(args, sizeof args, cases[i].fmt, out, again);
        int rc = th_run_tool("test_render", cases[i].tool, args, 60, NULL, 0, e, sizeof e);
        if (rc < 0) continue;                                    /* not built: said loudly */
        ck_assert_msg(rc == 2 && (strstr(e, "another") || strstr(e, "one would overwrite")),
                      "%s %s: exit %d: %s", cases[i].tool, args, rc, e);
        ck_assert_msg(access(out, F_OK) != 0, "%s wrote %s", cases[i].tool, out);
    }
    rmdir(sub);
}
END_TEST

/* Tools never write over their inputs (a game, a checkpoint, a --compare series), whatever the
 * path's spelling (a symbolic link included): exit 2, the input unchanged. */
START_TEST(tools_refuse_to_overwrite_their_inputs) {
    if (!have_tool()) return;
    char game[600], link[600], ckpt[600], args[2400], e[2048];
    snprintf(game, sizeof game, "%s/in.sgf", tmpdir());
    snprintf(link, sizeof link, "%s/link.sgf", tmpdir());
    snprintf(ckpt, sizeof ckpt, "%s/in.ckpt", tmpdir());
    static const char sgf[] = "(;GM[24]VV[Zertz]SU[Zertz]; P0[1 RtoB 2 0 D 4] ; P0[2 R- G 1] ; P0[3 Done ] )\n";
    FILE *f = fopen(game, "w");
    ck_assert_ptr_nonnull(f);
    fputs(sgf, f);
    fclose(f);
    unlink(link);
    ck_assert_int_eq(symlink(game, link), 0);
    th_save_small_net(ckpt, 1);
    struct { const char *tool, *fmt; bool via_link; } cases[] = {
        { "render", "%s -o %s", false },                        /* the game, written as a PNG */
        { "render", "%s -o %s", true },                         /* ... through a link to it */
        { "analyse", "%s --sims 2 -q --json %s", false },
        { "analyse", "%s --sims 2 -q --png %s", false },
        { "nn_dump", "--ckpt %s --n 1 --out %s", false },
        { "calibrate", "--compare %s --png %s", false },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *in = strcmp(cases[i].tool, "nn_dump") ? game : ckpt;
        snprintf(args, sizeof args, cases[i].fmt, in, cases[i].via_link ? link : in);
        int rc = th_run_tool("test_render", cases[i].tool, args, 60, NULL, 0, e, sizeof e);
        if (rc < 0) continue;                                    /* not built: said loudly */
        ck_assert_msg(rc == 2 && strstr(e, "overwritten"), "%s %s: exit %d: %s", cases[i].tool, args, rc, e);
    }
    f = fopen(game, "r");
    char back[sizeof sgf + 8] = "";
    ck_assert_ptr_nonnull(f);
    size_t n = fread(back, 1, sizeof back - 1, f);
    fclose(f);
    ck_assert_int_eq((int)n, (int)strlen(sgf));
    ck_assert_str_eq(back, sgf);
    nn_model *again = nn_checkpoint_load(ckpt, NN_F32, NULL, e, sizeof e);
    ck_assert_msg(again != NULL, "%s", e);
    nn_model_free(again);
}
END_TEST

START_TEST(tool_errors_and_output) {
    if (!have_tool()) return;
    char e[2048], args[2048], out[512];
    snprintf(out, sizeof out, "%s/out.png", tmpdir());
    /* an unknown file */
    snprintf(args, sizeof args, "/nonexistent/x.sgf -o %s", out);
    ck_assert_int_ne(run_tool(args, e, sizeof e), 0);
    ck_assert_msg(starts(e, "zertz: render: /nonexistent/x.sgf: "), "%s", e);
    /* an illegal move, with its turn */
    snprintf(args, sizeof args, "-m 'Wd4,g1; Gd4,a1' -o %s", out);
    ck_assert_int_ne(run_tool(args, e, sizeof e), 0);
    ck_assert_msg(starts(e, "zertz: render: --moves: ") && strstr(e, "turn 2"), "%s", e);
    /* bad options */
    snprintf(args, sizeof args, "-m Wd4,g1 --size 5 -o %s", out);
    ck_assert_int_ne(run_tool(args, e, sizeof e), 0);
    ck_assert_msg(starts(e, "zertz: render: --size: "), "%s", e);
    ck_assert_int_ne(run_tool("-m Wd4,g1 --bogus", e, sizeof e), 0);
    ck_assert_msg(starts(e, "zertz: render: --bogus: "), "%s", e);
    ck_assert_int_ne(run_tool("-m Wd4,g1", e, sizeof e), 0);           /* no -o */
    snprintf(args, sizeof args, "-m Wd4,g1 -t 5 -o %s", out);
    ck_assert_int_ne(run_tool(args, e, sizeof e), 0);
    ck_assert_msg(strstr(e, "out of range"), "%s", e);
    snprintf(args, sizeof args, "-m Wd4,g1 --visits /dev/zero -o %s", out);   /* a device: never read */
    ck_assert_int_ne(run_tool(args, e, sizeof e), 0);
    ck_assert_msg(strstr(e, "not a regular file"), "%s", e);
    snprintf(args, sizeof args, "-m Wd4,g1 -o /nonexistent/dir/out.png");
    ck_assert_int_ne(run_tool(args, e, sizeof e), 0);
    ck_assert_msg(starts(e, "zertz: render: /nonexistent/dir/out.png: "), "%s", e);
    ck_assert_int_eq(run_tool("--help", e, sizeof e), 0);
    /* a picture: the size asked for */
    snprintf(args, sizeof args, "-m 'Wd4,g1; Gc3,a1' --size 500 --theme dark -o %s", out);
    ck_assert_msg(run_tool(args, e, sizeof e) == 0, "%s", e);
    int w, h, n;
    unsigned char *d = stbi_load(out, &w, &h, &n, 3);
    ck_assert_ptr_nonnull(d);
    ck_assert_int_eq(w, 500);
    stbi_image_free(d);
    /* a sequence */
    snprintf(args, sizeof args, "-m '%s' --sequence 2-5 --size 150 --cols 4 -o %s", GAME7, out);
    ck_assert_msg(run_tool(args, e, sizeof e) == 0, "%s", e);
    d = stbi_load(out, &w, &h, &n, 3);
    ck_assert_ptr_nonnull(d);
    ck_assert(w > 4 * 150 && w < 5 * 150);
    stbi_image_free(d);
    /* a heat-map from a visits file */
    char vpath[512];
    snprintf(vpath, sizeof vpath, "%s/visits.txt", tmpdir());
    FILE *f = fopen(vpath, "w");
    ck_assert_ptr_nonnull(f);
    fputs("# move visits\nGc3,a1 70\nBe2,b1 30\n", f);
    fclose(f);
    snprintf(args, sizeof args, "-m Wd4,g1 --visits %s -o %s", vpath, out);
    ck_assert_msg(run_tool(args, e, sizeof e) == 0, "%s", e);
    f = fopen(vpath, "w");
    fputs("Gd4,a1 70\n", f);                                     /* d4 is taken */
    fclose(f);
    ck_assert_int_ne(run_tool(args, e, sizeof e), 0);
    ck_assert_msg(strstr(e, "line 1"), "%s", e);
#ifdef HAVE_UCT
    snprintf(args, sizeof args, "-m Wd4,g1 --heatmap 200 --size 500 -o %s", out);
    ck_assert_msg(run_tool(args, e, sizeof e) == 0, "%s", e);
#endif
    remove(vpath);
    remove(out);
}
END_TEST

/* An empty file is no game: render refuses it (it used to draw the start position), as replay
 * does, with the same reason for an .sgf file; a blank notation file is refused too. */
START_TEST(tool_refuses_empty_input) {
    if (!have_tool()) return;
    char e[2048], args[2048], out[512], path[512], rerr[2048];
    snprintf(out, sizeof out, "%s/out.png", tmpdir());
    const char *names[] = { "empty.sgf", "blank.SGF", "empty.txt", "comments.txt" };
    const char *text[] = { "", " \n\n  \n", "", "# only a comment\n\n" };
    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir(), names[k]);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fputs(text[k], f);
        fclose(f);
        remove(out);
        snprintf(args, sizeof args, "%s -o %s", path, out);
        int st = run_tool(args, e, sizeof e);
        ck_assert_msg(st == 1, "%s: status %d: %s", names[k], st, e);
        char prefix[600];
        snprintf(prefix, sizeof prefix, "zertz: render: %s: ", path);
        ck_assert_msg(starts(e, prefix), "%s", e);
        ck_assert_msg(access(out, F_OK) != 0, "%s: a picture was written", names[k]);
        if (k < 2) {                    /* the SGF reader's reason, as tools/replay gives it */
            ck_assert_msg(strstr(e, "not an SGF file"), "%s", e);
            int rst = th_run_tool("test_render", "replay", path, 60, NULL, 0, rerr, sizeof rerr);
            if (rst >= 0) {
                ck_assert_msg(rst == 1, "replay %s: status %d", names[k], rst);
                ck_assert_msg(strstr(rerr, e + strlen("zertz: render: ")) != NULL, "render: %s\nreplay: %s", e, rerr);
            }
        } else {
            ck_assert_msg(strstr(e, "no turns"), "%s", e);
        }
        remove(path);
    }
}
END_TEST

/* ---- the archive --------------------------------------------------------------------------- */

START_TEST(archive_games_render) {
    const char *dir = archive_dir();
    if (!dir) {
        th_skip("test_render", "archive_games_render: no archive at $ZZ_BOARDSPACE_DIR or ../shared/boardspace");
        return;
    }
    const char *sub[] = { "sgf/37", "sgf/48", "sgf/61", "sgf/48-handicap", "sgf/xx-custom" };
    const int per[] = { 14, 10, 10, 2, 2 };
    rd_style st;
    rd_style_default(&st);
    st.width = 360;
    int rendered = 0, refused = 0;
    for (int k = 0; k < 5; k++) {
        char path[1024], err[1024];
        snprintf(path, sizeof path, "%s/%s", dir, sub[k]);
        zz_file_list l = { 0 };
        if (zz_file_list_add(&l, path, err, sizeof err) != 0 || l.n == 0) {
            fprintf(stderr, "test_render: %s: no games (%s)\n", path, err);
            zz_file_list_free(&l);
            continue;
        }
        for (int i = 0; i < per[k] && i < l.n; i++) {
            const char *f = l.paths[(size_t)i * l.n / per[k]];
            zz_game g;
            if (rd_load_file(f, 0, &g, err, sizeof err) != 0) {
                /* a record we cannot replay is refused with a message naming it, never a crash */
                ck_assert_msg(strstr(err, f) != NULL, "%s", err);
                refused++;
                zz_game_free(&g);
                continue;
            }
            rd_scene s;
            rd_canvas c;
            ck_assert_msg(rd_scene_from_game(&g, -1, &s, err, sizeof err) == 0, "%s: %s", f, err);
            ck_assert_msg(rd_draw_position(&s, &st, &c, err, sizeof err) == 0, "%s: %s", f, err);
            rd_canvas_free(&c);
            if (g.nturns > 0) {
                int last = g.nturns < 6 ? g.nturns : 6;
                rd_style sq = st;
                sq.width = 100;
                ck_assert_msg(rd_draw_sequence(&g, 1, last, &sq, &c, err, sizeof err) == 0, "%s: %s", f, err);
                rd_canvas_free(&c);
            }
            rendered++;
            zz_game_free(&g);
        }
        zz_file_list_free(&l);
    }
    fprintf(stderr, "test_render: archive: %d games rendered, %d refused by the reader\n", rendered, refused);
    ck_assert_int_ge(rendered, 20);
    /* the game kept only in notation */
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/notation/T-Z11-Alex504-bluedog-2025-10-29-1136.from-hiive-svg.txt", dir);
    if (access(path, R_OK) == 0) {
        zz_game g;
        ck_assert_msg(rd_load_file(path, 0, &g, err, sizeof err) == 0, "%s", err);
        ck_assert_int_eq(g.board, ZZ_B48);
        ck_assert_int_eq(g.nturns, 26);
        rd_canvas c;
        ck_assert_msg(rd_draw_sequence(&g, 1, g.nturns, &st, &c, err, sizeof err) == 0, "%s", err);
        rd_canvas_free(&c);
        zz_game_free(&g);
    }
}
END_TEST

static Suite *render_suite(void) {
    Suite *s = suite_create("render");
    TCase *t = tcase_create("raster");
    tcase_add_test(t, raster_circle_exact_inside_untouched_outside);
    tcase_add_test(t, raster_stroke_is_a_union);
    tcase_add_test(t, raster_sphere_shading);
    tcase_add_test(t, font_ink_stays_in_its_box);
    tcase_add_test(t, font_shorten_cuts_to_fit);
    tcase_add_test(t, png_round_trip_and_errors);
    suite_add_tcase(s, t);
    t = tcase_create("pictures");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, geometry_matches_rules_diagram);
    tcase_add_test(t, position_known_pixels);
    tcase_add_test(t, position_isolation_ghost);
    tcase_add_test(t, sequence_has_one_panel_per_turn);
    tcase_add_test(t, marble_colours_stay_apart);
    tcase_add_test(t, pool_shows_colour_icons);
    tcase_add_test(t, sequence_caption_fits_its_panel);
    tcase_add_test(t, labels_scale_and_stay_readable);
    tcase_add_test(t, heat_collect_shares);
    tcase_add_test(t, heat_draw_colours_cells);
    tcase_add_test(t, heat_from_uct_search);
    suite_add_tcase(s, t);
    t = tcase_create("charts");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, chart_axis_and_mapping);
    tcase_add_test(t, plot_still_draws);
    tcase_add_test(t, winprob_size_and_blunder_dot);
    tcase_add_test(t, winprob_certain_win_line_at_top);
    tcase_add_test(t, reliability_size_and_dots);
    tcase_add_test(t, charts_refuse_bad_input);
    suite_add_tcase(s, t);
    t = tcase_create("input");
    tcase_add_test(t, input_splits_turns);
    tcase_add_test(t, input_replays_and_reports);
    tcase_add_test(t, input_long_jump_runs_are_refused_fast);
    tcase_add_test(t, input_folder_links_are_not_followed);
    suite_add_tcase(s, t);
    t = tcase_create("tool");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, tool_errors_and_output);
    tcase_add_test(t, tool_refuses_empty_input);
    tcase_add_test(t, tools_refuse_to_overwrite_their_inputs);
    tcase_add_test(t, tools_refuse_two_outputs_on_one_file);
    suite_add_tcase(s, t);
    t = tcase_create("archive");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, archive_games_render);
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    int rc = th_run(render_suite());
    rmdir(tmpdir());
    return rc;
}
