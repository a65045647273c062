/* font.c — the built-in stroke font (see font.h): glyph outlines as tiny path programs on a grid
 * with baseline 0, x-height 7, cap height 10 and descenders to -3, y upwards.
 *
 *   M x y                 start a polyline at (x, y)
 *   L x y                 line to (x, y)
 *   A cx cy rx ry a0 a1   elliptical arc from angle a0 to a1 (degrees, counter-clockwise for a1 > a0),
 *                         joined to the open polyline
 *   O cx cy rx ry a0 a1   the same arc, starting a new polyline
 *   D x y                 a round dot
 *
 * Accented letters are a base glyph plus an accent program placed over (or under) its centre. */
#include "render/font.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { uint32_t cp; float w; const char *path; } glyph;

static const glyph GLYPHS[] = {
    { ' ', 3.2f, "" },
    { '!', 1.0f, "M 0.5 10 L 0.5 3 D 0.5 0.2" },
    { '"', 3.0f, "M 0.5 10 L 0.5 7.5 M 2.5 10 L 2.5 7.5" },
    { '#', 7.5f, "M 2 0 L 3 10 M 5 0 L 6 10 M 0.5 3.3 L 7 3.3 M 0.5 6.7 L 7.5 6.7" },
    { '$', 6.0f, "O 3 7 2.8 2 30 270 A 3 3 3 2 90 -150 M 3 10.5 L 3 -0.5" },
    { '%', 8.0f, "O 1.6 7.8 1.6 2.2 0 360 O 6.4 2.2 1.6 2.2 0 360 M 6.5 10 L 1.5 0" },
    { '&', 7.0f, "M 7 0 L 2.2 6.6 A 3.2 8.2 1.6 1.8 215 -40 L 0.8 3.3 A 2.7 2.2 2.2 2.2 150 330 L 6.3 3.8" },
    { '\'', 1.0f, "M 0.5 10 L 0.5 7.5" },
    { '(', 1.8f, "O 5 4 5 7.2 135 225" },
    { ')', 1.8f, "O -3.2 4 5 7.2 45 -45" },
    { '*', 5.0f, "M 2.5 10 L 2.5 5 M 0.3 8.8 L 4.7 6.2 M 0.3 6.2 L 4.7 8.8" },
    { '+', 6.0f, "M 0 4 L 6 4 M 3 1 L 3 7" },
    { ',', 1.2f, "M 1.2 0.8 L 0.2 -1.8" },
    { '-', 4.0f, "M 0 3.8 L 4 3.8" },
    { '.', 1.0f, "D 0.5 0.2" },
    { '/', 5.0f, "M 0 -1 L 5 10.5" },
    { '0', 6.0f, "O 3 5 3 5 0 360" },
    { '1', 6.0f, "M 1.3 7.8 L 4 10 L 4 0" },
    { '2', 6.0f, "O 3 7 3 3 160 -35 L 0 0 L 6 0" },
    { '3', 6.0f, "O 3 7.6 2.7 2.4 150 -90 O 3 2.6 3 2.6 90 -150 M 1.6 5.2 L 3 5.2" },
    { '4', 6.2f, "M 4.5 0 L 4.5 10 L 0 3 L 6.2 3" },
    { '5', 6.0f, "M 5.6 10 L 1.1 10 L 0.6 5.5 A 3 3.2 3 3.2 140 -150" },
    { '6', 6.0f, "O 5 3.2 5 6.8 100 180 O 3 3.2 3 3.2 0 360" },
    { '7', 6.0f, "M 0 10 L 6 10 L 2 0" },
    { '8', 6.0f, "O 3 7.6 2.6 2.4 0 360 O 3 2.6 3 2.6 0 360" },
    { '9', 6.0f, "O 1 6.8 5 6.8 280 360 O 3 6.8 3 3.2 0 360" },
    { ':', 1.0f, "D 0.5 0.2 D 0.5 6" },
    { ';', 1.2f, "D 1 6 M 1.2 0.8 L 0.2 -1.8" },
    { '<', 6.0f, "M 6 7.5 L 0 4 L 6 0.5" },
    { '=', 6.0f, "M 0 2.8 L 6 2.8 M 0 5.2 L 6 5.2" },
    { '>', 6.0f, "M 0 7.5 L 6 4 L 0 0.5" },
    { '?', 6.0f, "O 3 7.5 3 2.5 160 -60 L 3 3.4 L 3 2.6 D 3 0.2" },
    { '@', 9.4f, "O 4.8 4.5 2.3 2.6 0 360 M 7.1 7 L 7.1 3 A 8.2 3 1.1 1.3 180 360 A 4.9 4.5 4.5 5.5 -15 290" },
    { 'A', 7.0f, "M 0 0 L 3.5 10 L 7 0 M 1.3 3.6 L 5.7 3.6" },
    { 'B', 6.7f, "M 0 5.2 L 3.9 5.2 A 3.9 7.6 2.4 2.4 -90 90 L 0 10 L 0 0 L 4.1 0 A 4.1 2.6 2.6 2.6 -90 90 L 3.9 5.2" },
    { 'C', 7.2f, "O 4.2 5 4.2 5 45 315" },
    { 'D', 7.0f, "M 0 0 L 0 10 L 2.4 10 A 2.4 5 4.6 5 90 -90 L 0 0" },
    { 'E', 6.0f, "M 6 10 L 0 10 L 0 0 L 6 0 M 0 5.1 L 4.8 5.1" },
    { 'F', 5.8f, "M 5.8 10 L 0 10 L 0 0 M 0 5.1 L 4.6 5.1" },
    { 'G', 8.2f, "O 4.2 5 4.2 5 45 340 L 8.2 4.5 L 4.8 4.5" },
    { 'H', 7.0f, "M 0 0 L 0 10 M 7 0 L 7 10 M 0 5.1 L 7 5.1" },
    { 'I', 1.0f, "M 0.5 0 L 0.5 10" },
    { 'J', 5.0f, "M 5 10 L 5 3 A 2.5 3 2.5 3 0 -165" },
    { 'K', 6.8f, "M 0 0 L 0 10 M 6.4 10 L 0 3.6 M 2.4 6 L 6.8 0" },
    { 'L', 5.6f, "M 0 10 L 0 0 L 5.6 0" },
    { 'M', 8.6f, "M 0 0 L 0 10 L 4.3 1.5 L 8.6 10 L 8.6 0" },
    { 'N', 7.0f, "M 0 0 L 0 10 L 7 0 L 7 10" },
    { 'O', 8.4f, "O 4.2 5 4.2 5 0 360" },
    { 'P', 6.4f, "M 0 0 L 0 10 L 3.7 10 A 3.7 7.3 2.7 2.7 90 -90 L 0 4.6" },
    { 'Q', 8.6f, "O 4.2 5 4.2 5 0 360 M 5.2 2.6 L 8.6 -0.8" },
    { 'R', 6.6f, "M 0 0 L 0 10 L 3.7 10 A 3.7 7.3 2.7 2.7 90 -90 L 0 4.6 M 3.4 4.6 L 6.6 0" },
    { 'S', 6.6f, "O 3.3 7.5 3.1 2.5 35 270 A 3.3 2.5 3.3 2.5 90 -145" },
    { 'T', 7.0f, "M 0 10 L 7 10 M 3.5 10 L 3.5 0" },
    { 'U', 7.0f, "M 0 10 L 0 3.4 A 3.5 3.4 3.5 3.4 180 360 L 7 10" },
    { 'V', 7.2f, "M 0 10 L 3.6 0 L 7.2 10" },
    { 'W', 10.4f, "M 0 10 L 2.6 0 L 5.2 8.4 L 7.8 0 L 10.4 10" },
    { 'X', 7.0f, "M 0 10 L 7 0 M 0 0 L 7 10" },
    { 'Y', 7.0f, "M 0 10 L 3.5 5 L 7 10 M 3.5 5 L 3.5 0" },
    { 'Z', 7.0f, "M 0 10 L 7 10 L 0 0 L 7 0" },
    { '[', 2.5f, "M 2.5 10.8 L 0 10.8 L 0 -1.8 L 2.5 -1.8" },
    { '\\', 5.0f, "M 0 10.5 L 5 -1" },
    { ']', 2.5f, "M 0 10.8 L 2.5 10.8 L 2.5 -1.8 L 0 -1.8" },
    { '^', 5.0f, "M 0 7 L 2.5 10 L 5 7" },
    { '_', 7.0f, "M 0 -1.8 L 7 -1.8" },
    { '`', 2.0f, "M 0 10 L 2 8.5" },
    { 'a', 5.8f, "O 2.9 3.5 2.9 3.5 0 360 M 5.8 7 L 5.8 0" },
    { 'b', 6.0f, "M 0 10 L 0 0 O 3 3.5 3 3.5 0 360" },
    { 'c', 5.6f, "O 3.3 3.5 3.3 3.5 45 315" },
    { 'd', 5.8f, "O 2.9 3.5 2.9 3.5 0 360 M 5.8 10 L 5.8 0" },
    { 'e', 6.0f, "M 0 3.5 L 6 3.5 A 3 3.5 3 3.5 0 320" },
    { 'f', 4.8f, "M 1.6 0 L 1.6 8 A 3.6 8 2 2 180 45 M 0 7 L 4 7" },
    { 'g', 5.8f, "O 2.9 3.5 2.9 3.5 0 360 M 5.8 7 L 5.8 -0.6 A 2.9 -0.6 2.9 2.4 0 -160" },
    { 'h', 6.0f, "M 0 10 L 0 0 M 0 4 A 3 4 3 3 180 0 L 6 0" },
    { 'i', 1.0f, "M 0.5 0 L 0.5 7 D 0.5 9.6" },
    { 'j', 2.6f, "M 2.6 7 L 2.6 -0.8 A 0.5 -0.8 2.1 2.2 0 -100 D 2.6 9.6" },
    { 'k', 5.6f, "M 0 10 L 0 0 M 5.2 7 L 0 2.6 M 1.9 4.2 L 5.6 0" },
    { 'l', 1.0f, "M 0.5 0 L 0.5 10" },
    { 'm', 9.4f, "M 0 7 L 0 0 M 0 4.6 A 2.35 4.6 2.35 2.4 180 0 L 4.7 0 M 4.7 4.6 A 7.05 4.6 2.35 2.4 180 0 L 9.4 0" },
    { 'n', 6.0f, "M 0 7 L 0 0 M 0 4 A 3 4 3 3 180 0 L 6 0" },
    { 'o', 6.2f, "O 3.1 3.5 3.1 3.5 0 360" },
    { 'p', 6.0f, "M 0 7 L 0 -3 O 3 3.5 3 3.5 0 360" },
    { 'q', 5.8f, "O 2.9 3.5 2.9 3.5 0 360 M 5.8 7 L 5.8 -3" },
    { 'r', 4.6f, "M 0 7 L 0 0 M 0 3.8 A 3.6 3.8 3.6 3.2 180 70" },
    { 's', 5.4f, "O 2.8 5.25 2.5 1.75 30 270 A 2.8 1.75 2.7 1.75 90 -150" },
    { 't', 4.2f, "M 1.6 9.6 L 1.6 1.6 A 3.4 1.6 1.8 1.6 180 290 M 0 7 L 4 7" },
    { 'u', 6.0f, "M 0 7 L 0 3 A 3 3 3 3 180 360 M 6 7 L 6 0" },
    { 'v', 6.0f, "M 0 7 L 3 0 L 6 7" },
    { 'w', 9.0f, "M 0 7 L 2.2 0 L 4.5 5.8 L 6.8 0 L 9 7" },
    { 'x', 6.0f, "M 0 7 L 6 0 M 0 0 L 6 7" },
    { 'y', 6.0f, "M 0 7 L 3.1 0 M 6 7 L 1.8 -3" },
    { 'z', 6.0f, "M 0 7 L 6 7 L 0 0 L 6 0" },
    { '{', 3.0f, "M 3 10.8 A 3 9.3 1.2 1.5 90 180 L 1.8 5.5 L 0.6 4.5 L 1.8 3.5 L 1.8 -0.3 A 3 -0.3 1.2 1.5 180 270" },
    { '|', 1.0f, "M 0.5 11 L 0.5 -2" },
    { '}', 3.0f, "M 0 10.8 A 0 9.3 1.2 1.5 90 0 L 1.2 5.5 L 2.4 4.5 L 1.2 3.5 L 1.2 -0.3 A 0 -0.3 1.2 1.5 0 -90" },
    { '~', 6.0f, "O 1.5 4 1.5 1 180 0 A 4.5 4 1.5 1 180 360" },
    { 0xB0, 3.0f, "O 1.5 8.5 1.5 1.5 0 360" },                 /* ° */
    { 0xB7, 1.0f, "D 0.5 4" },                                 /* · */
    { 0xD7, 5.0f, "M 0 1.5 L 5 6.5 M 0 6.5 L 5 1.5" },         /* × */
    { 0x131, 1.0f, "M 0.5 0 L 0.5 7" },                        /* ı (base of accented i) */
    { 0x2013, 6.0f, "M 0 3.8 L 6 3.8" },                       /* – */
    { 0x2014, 10.0f, "M 0 3.8 L 10 3.8" },                     /* — */
    { 0x2026, 7.0f, "D 0.5 0.2 D 3.5 0.2 D 6.5 0.2" },         /* … */
    { 0x2192, 8.0f, "M 0 4 L 8 4 M 5 6.8 L 8 4 L 5 1.2" },     /* → */
};

/* Accents, drawn around (centre of the base glyph, top of the base glyph) unless `below`. */
enum { AC_NONE, AC_GRAVE, AC_ACUTE, AC_CIRC, AC_TILDE, AC_DIAER, AC_RING, AC_CARON, AC_CEDIL,
       AC_SLASH, AC_STROKE };
static const struct { const char *path; bool below; } ACCENTS[] = {
    [AC_NONE]   = { "", false },
    [AC_GRAVE]  = { "M -0.9 3.2 L 0.9 1.6", false },
    [AC_ACUTE]  = { "M -0.9 1.6 L 0.9 3.2", false },
    [AC_CIRC]   = { "M -1.8 1.6 L 0 3.2 L 1.8 1.6", false },
    [AC_TILDE]  = { "O -0.9 2.4 0.9 0.6 180 0 A 0.9 2.4 0.9 0.6 180 360", false },
    [AC_DIAER]  = { "D -1.3 2.4 D 1.3 2.4", false },
    [AC_RING]   = { "O 0 2.6 1.1 1.1 0 360", false },
    [AC_CARON]  = { "M -1.8 3.2 L 0 1.6 L 1.8 3.2", false },
    [AC_CEDIL]  = { "M 0 0 L 0 -0.9 A -0.1 -1.8 1.2 0.9 90 -130", true },
    [AC_SLASH]  = { "", false },
    [AC_STROKE] = { "", false },
};

/* A character the font draws as a base character plus an accent (or as a replacement string). */
typedef struct { uint32_t cp; uint32_t base; uint8_t accent; const char *subst; } compose;
static const compose COMPOSE[] = {
    { 0xC0, 'A', AC_GRAVE, 0 }, { 0xC1, 'A', AC_ACUTE, 0 }, { 0xC2, 'A', AC_CIRC, 0 },
    { 0xC3, 'A', AC_TILDE, 0 }, { 0xC4, 'A', AC_DIAER, 0 }, { 0xC5, 'A', AC_RING, 0 },
    { 0xC6, 0, 0, "AE" }, { 0xC7, 'C', AC_CEDIL, 0 },
    { 0xC8, 'E', AC_GRAVE, 0 }, { 0xC9, 'E', AC_ACUTE, 0 }, { 0xCA, 'E', AC_CIRC, 0 }, { 0xCB, 'E', AC_DIAER, 0 },
    { 0xCC, 'I', AC_GRAVE, 0 }, { 0xCD, 'I', AC_ACUTE, 0 }, { 0xCE, 'I', AC_CIRC, 0 }, { 0xCF, 'I', AC_DIAER, 0 },
    { 0xD0, 'D', AC_NONE, 0 }, { 0xD1, 'N', AC_TILDE, 0 },
    { 0xD2, 'O', AC_GRAVE, 0 }, { 0xD3, 'O', AC_ACUTE, 0 }, { 0xD4, 'O', AC_CIRC, 0 }, { 0xD5, 'O', AC_TILDE, 0 },
    { 0xD6, 'O', AC_DIAER, 0 }, { 0xD8, 'O', AC_SLASH, 0 },
    { 0xD9, 'U', AC_GRAVE, 0 }, { 0xDA, 'U', AC_ACUTE, 0 }, { 0xDB, 'U', AC_CIRC, 0 }, { 0xDC, 'U', AC_DIAER, 0 },
    { 0xDD, 'Y', AC_ACUTE, 0 }, { 0xDE, 'P', AC_NONE, 0 }, { 0xDF, 0, 0, "ss" },
    { 0xE0, 'a', AC_GRAVE, 0 }, { 0xE1, 'a', AC_ACUTE, 0 }, { 0xE2, 'a', AC_CIRC, 0 },
    { 0xE3, 'a', AC_TILDE, 0 }, { 0xE4, 'a', AC_DIAER, 0 }, { 0xE5, 'a', AC_RING, 0 },
    { 0xE6, 0, 0, "ae" }, { 0xE7, 'c', AC_CEDIL, 0 },
    { 0xE8, 'e', AC_GRAVE, 0 }, { 0xE9, 'e', AC_ACUTE, 0 }, { 0xEA, 'e', AC_CIRC, 0 }, { 0xEB, 'e', AC_DIAER, 0 },
    { 0xEC, 0x131, AC_GRAVE, 0 }, { 0xED, 0x131, AC_ACUTE, 0 }, { 0xEE, 0x131, AC_CIRC, 0 }, { 0xEF, 0x131, AC_DIAER, 0 },
    { 0xF0, 'd', AC_NONE, 0 }, { 0xF1, 'n', AC_TILDE, 0 },
    { 0xF2, 'o', AC_GRAVE, 0 }, { 0xF3, 'o', AC_ACUTE, 0 }, { 0xF4, 'o', AC_CIRC, 0 }, { 0xF5, 'o', AC_TILDE, 0 },
    { 0xF6, 'o', AC_DIAER, 0 }, { 0xF8, 'o', AC_SLASH, 0 },
    { 0xF9, 'u', AC_GRAVE, 0 }, { 0xFA, 'u', AC_ACUTE, 0 }, { 0xFB, 'u', AC_CIRC, 0 }, { 0xFC, 'u', AC_DIAER, 0 },
    { 0xFD, 'y', AC_ACUTE, 0 }, { 0xFE, 'p', AC_NONE, 0 }, { 0xFF, 'y', AC_DIAER, 0 },
    { 0x106, 'C', AC_ACUTE, 0 }, { 0x107, 'c', AC_ACUTE, 0 }, { 0x10C, 'C', AC_CARON, 0 }, { 0x10D, 'c', AC_CARON, 0 },
    { 0x141, 'L', AC_STROKE, 0 }, { 0x142, 'l', AC_STROKE, 0 }, { 0x143, 'N', AC_ACUTE, 0 }, { 0x144, 'n', AC_ACUTE, 0 },
    { 0x158, 'R', AC_CARON, 0 }, { 0x159, 'r', AC_CARON, 0 }, { 0x15A, 'S', AC_ACUTE, 0 }, { 0x15B, 's', AC_ACUTE, 0 },
    { 0x160, 'S', AC_CARON, 0 }, { 0x161, 's', AC_CARON, 0 }, { 0x179, 'Z', AC_ACUTE, 0 }, { 0x17A, 'z', AC_ACUTE, 0 },
    { 0x17D, 'Z', AC_CARON, 0 }, { 0x17E, 'z', AC_CARON, 0 },
};

static const float GAP = 2.2f, BOLD_GAP = 2.6f;

static const glyph *find_glyph(uint32_t cp) {
    for (size_t i = 0; i < sizeof GLYPHS / sizeof GLYPHS[0]; i++)
        if (GLYPHS[i].cp == cp) return &GLYPHS[i];
    return NULL;
}

static const compose *find_compose(uint32_t cp) {
    for (size_t i = 0; i < sizeof COMPOSE / sizeof COMPOSE[0]; i++)
        if (COMPOSE[i].cp == cp) return &COMPOSE[i];
    return NULL;
}

/* Decode one UTF-8 character at *s (advancing it); malformed bytes decode as '?'. */
static uint32_t next_cp(const char **s) {
    const unsigned char *u = (const unsigned char *)*s;
    uint32_t c = u[0];
    int n = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
    if (n < 0) { (*s)++; return '?'; }
    if (n > 0) c &= 0x3F >> n;
    for (int i = 1; i <= n; i++) {
        if ((u[i] & 0xC0) != 0x80) { *s += i; return '?'; }
        c = c << 6 | (u[i] & 0x3F);
    }
    *s += n + 1;
    return c;
}

/* A glyph transform: glyph point (gx, gy) -> pixel (ox + gx*s, by - gy*s). */
typedef struct { float ox, by, s; } xform;

static void run_program(rd_path *p, const char *prog, const xform *t, float dx, float dy) {
    const char *s = prog;
    float v[6];
    while (*s) {
        while (*s == ' ') s++;
        char op = *s;
        if (!op) break;
        s++;
        int nargs = (op == 'A' || op == 'O') ? 6 : 2;
        for (int i = 0; i < nargs; i++) v[i] = strtof(s, (char **)&s);
        float x = t->ox + (v[0] + dx) * t->s, y = t->by - (v[1] + dy) * t->s;
        switch (op) {
        case 'M': rd_path_move(p, x, y); break;
        case 'L': rd_path_line(p, x, y); break;
        case 'D': rd_path_dot(p, x, y); break;
        case 'O': rd_path_lift(p); /* fall through */
        case 'A': rd_path_arc(p, x, y, v[2] * t->s, v[3] * t->s, v[4], v[5]); break;
        default: return;
        }
    }
    rd_path_lift(p);
}

static bool is_upper_base(uint32_t b) { return (b >= 'A' && b <= 'Z'); }

/* Lay out (and, when p != NULL, trace) the text; returns its advance width in glyph units. */
static float layout(const char *utf8, bool bold, rd_path *p, const xform *t0) {
    float x = 0, gap = bold ? BOLD_GAP : GAP;
    int count = 0;
    const char *s = utf8 ? utf8 : "";
    while (*s) {
        uint32_t cp = next_cp(&s);
        const compose *cm = find_compose(cp);
        uint32_t bases[4];
        int nb = 0, accent = AC_NONE;
        if (cm && cm->subst) {
            for (const char *q = cm->subst; *q && nb < 4; q++) bases[nb++] = (unsigned char)*q;
        } else if (cm) {
            bases[nb++] = cm->base;
            accent = cm->accent;
        } else {
            bases[nb++] = cp == '\t' ? ' ' : cp;
        }
        for (int k = 0; k < nb; k++) {
            uint32_t b = bases[k];
            const glyph *g = find_glyph(b);
            if (!g) { g = find_glyph('?'); accent = AC_NONE; }
            if (count++) x += gap;
            if (p) {
                xform t = *t0;
                run_program(p, g->path, &t, x, 0);
                float cx = x + g->w / 2, top = is_upper_base(b) || b == 'd' || b == 'l' || b == 'b' || b == 'h' || b == 'k' ? 10.f : 7.f;
                if (accent == AC_SLASH) {
                    rd_path_move(p, t.ox + (cx - g->w / 2 - 0.3f) * t.s, t.by + 0.6f * t.s);
                    rd_path_line(p, t.ox + (cx + g->w / 2 + 0.3f) * t.s, t.by - (top + 0.6f) * t.s);
                    rd_path_lift(p);
                } else if (accent == AC_STROKE) {
                    rd_path_move(p, t.ox + (cx - 1.8f) * t.s, t.by - 4.0f * t.s);
                    rd_path_line(p, t.ox + (cx + 1.8f) * t.s, t.by - 6.6f * t.s);
                    rd_path_lift(p);
                } else if (accent != AC_NONE) {
                    run_program(p, ACCENTS[accent].path, &t, cx, ACCENTS[accent].below ? 0.f : top);
                }
            }
            x += g->w;
        }
    }
    return x;
}

static float units_scale(const rd_font *f) { return f->size / 10.f; }

float rd_text_width(const rd_font *f, const char *utf8) {
    return layout(utf8, f->bold, NULL, NULL) * units_scale(f);
}

float rd_text(rd_canvas *c, const rd_font *f, float x, float y, rd_rgb col, const char *utf8) {
    float w = rd_text_width(f, utf8);
    if (f->size <= 0) return 0;
    xform t = { x, y, units_scale(f) };
    if (f->align == RD_ALIGN_CENTER) t.ox -= w / 2;
    else if (f->align == RD_ALIGN_RIGHT) t.ox -= w;
    rd_path p;
    rd_path_init(&p);
    layout(utf8, f->bold, &p, &t);
    float hw = f->size * (f->bold ? 0.082f : 0.058f);
    if (hw < 0.55f) hw = 0.55f;
    rd_path_stroke(c, &p, hw, col, 1.f);
    rd_path_free(&p);
    return w;
}

float rd_text_mid(rd_canvas *c, const rd_font *f, float x, float cy, rd_rgb col, const char *utf8) {
    return rd_text(c, f, x, cy + f->size / 2, col, utf8);
}

float rd_text_fit(const rd_font *f, const char *utf8, float max_w, float min_size) {
    float w = rd_text_width(f, utf8);
    if (w <= max_w || w <= 0) return f->size;
    float s = f->size * max_w / w;
    return s < min_size ? min_size : s;
}

char *rd_text_shorten(const rd_font *f, const char *utf8, float max_w, char *out, size_t n) {
    if (n == 0) return out;
    snprintf(out, n, "%s", utf8);
    if (rd_text_width(f, out) <= max_w) return out;
    size_t len = strlen(out);
    const char *dots = "\xe2\x80\xa6";                  /* … */
    while (len > 0) {
        do len--;
        while (len > 0 && ((unsigned char)out[len] & 0xC0) == 0x80);   /* back to a character's start */
        if (len + 4 > n) continue;
        memcpy(out + len, dots, 4);
        if (rd_text_width(f, out) <= max_w) return out;
    }
    snprintf(out, n, "%s", n >= 4 ? dots : "");
    return out;
}
