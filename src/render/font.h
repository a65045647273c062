/* font.h — a built-in stroke (vector) font for labels and captions: printable ASCII, the
 * Latin-1 letters with accents, and a few symbols (· × – — →).  Glyphs are polylines and arcs
 * designed on a grid with cap height 10, stroked with round ends, so text stays smooth at any size.
 * Text is UTF-8; characters the font lacks are drawn as '?'. */
#ifndef RD_FONT_H
#define RD_FONT_H

#include "render/raster.h"

typedef enum { RD_ALIGN_LEFT = 0, RD_ALIGN_CENTER = 1, RD_ALIGN_RIGHT = 2 } rd_align;

typedef struct {
    float size;           /* cap height in pixels */
    bool bold;            /* heavier strokes */
    rd_align align;       /* relative to the x given to rd_text */
} rd_font;

/* Width in pixels of the text's advance (from the first glyph's origin to the end of the last). */
float rd_text_width(const rd_font *f, const char *utf8);
/* Draw text with its baseline at y; returns the width drawn. */
float rd_text(rd_canvas *c, const rd_font *f, float x, float y, rd_rgb col, const char *utf8);
/* Draw text vertically centred on cy (the middle of the cap height). */
float rd_text_mid(rd_canvas *c, const rd_font *f, float x, float cy, rd_rgb col, const char *utf8);
/* The largest size (at most f->size, at least min_size) at which the text fits max_w pixels. */
float rd_text_fit(const rd_font *f, const char *utf8, float max_w, float min_size);
/* utf8 into out (n bytes), cut at a character's start and ended with "…" where it is wider than
 * max_w pixels, so that it fits (only "…" when nothing more does); returns out. */
char *rd_text_shorten(const rd_font *f, const char *utf8, float max_w, char *out, size_t n);

#endif
