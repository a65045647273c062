/* raster.h — a small anti-aliased rasteriser: an RGB canvas, alpha-blended shapes (circles,
 * annuli, convex polygons, stroked paths with round caps and joins), and the two shaded solids the
 * board pictures need (a glossy sphere for marbles, a flattened torus for rings).
 *
 * Coordinates are floats in pixels, y downwards; pixel (x, y) covers [x, x+1) × [y, y+1), so its
 * centre is (x + 0.5, y + 0.5).  Coverage is analytic (distance to the shape's edge, box filtered
 * over one pixel), and colours are blended in sRGB.  Shapes are clipped to the canvas. */
#ifndef RD_RASTER_H
#define RD_RASTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct { uint8_t r, g, b; } rd_rgb;

typedef struct {
    int w, h;
    uint8_t *px;          /* w*h*3 bytes, row-major RGB */
} rd_canvas;

/* A colour from 0xRRGGBB. */
static inline rd_rgb rd_hex(uint32_t v) {
    rd_rgb c = { (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
    return c;
}
/* Linear mix of two colours (t = 0 gives a, 1 gives b). */
rd_rgb rd_mix(rd_rgb a, rd_rgb b, float t);
/* The colour scaled by k (clamped to 0..255). */
rd_rgb rd_scale(rd_rgb c, float k);

/* Allocate a w×h canvas filled with bg; returns 0, or -1 when the size is invalid or memory runs
 * out (sizes up to 16384 per side). */
int rd_canvas_init(rd_canvas *c, int w, int h, rd_rgb bg);
void rd_canvas_free(rd_canvas *c);
/* Colour of one pixel (black outside the canvas). */
rd_rgb rd_get(const rd_canvas *c, int x, int y);
/* Blend colour col with weight a (0..1) into pixel (x, y); ignores pixels off the canvas. */
void rd_blend(rd_canvas *c, int x, int y, rd_rgb col, float a);
/* Fill the whole canvas. */
void rd_clear(rd_canvas *c, rd_rgb col);

/* Axis-aligned rectangle [x0,x1) × [y0,y1), anti-aliased at fractional edges. */
void rd_fill_rect(rd_canvas *c, float x0, float y0, float x1, float y1, rd_rgb col, float alpha);
/* Rectangle with rounded corners of radius r. */
void rd_fill_round_rect(rd_canvas *c, float x0, float y0, float x1, float y1, float r,
                        rd_rgb col, float alpha);
/* Filled disc. */
void rd_fill_circle(rd_canvas *c, float cx, float cy, float r, rd_rgb col, float alpha);
/* Annulus between radii r_in and r_out. */
void rd_fill_annulus(rd_canvas *c, float cx, float cy, float r_in, float r_out, rd_rgb col, float alpha);
/* A disc whose edge fades linearly over `blur` pixels (a soft shadow or glow). */
void rd_soft_circle(rd_canvas *c, float cx, float cy, float r, float blur, rd_rgb col, float alpha);
/* The same for an annulus: soft on both edges (the shadow of a ring). */
void rd_soft_annulus(rd_canvas *c, float cx, float cy, float r_in, float r_out, float blur, rd_rgb col, float alpha);
/* Convex polygon (vertices in either winding order). */
void rd_fill_convex(rd_canvas *c, const float *xs, const float *ys, int n, rd_rgb col, float alpha);

/* A glossy sphere of radius r lit from the upper left: base colour, diffuse shading, a specular
 * highlight of the given strength (0..1) and an anti-aliased edge; alpha fades the whole of it.
 * Below 6 px of radius the shading and the highlight flatten (to 40 % at 2 px), so that a small
 * sphere keeps the tone of its colour. */
void rd_sphere(rd_canvas *c, float cx, float cy, float r, rd_rgb base, float spec, float alpha);
/* A ring (flattened torus) between r_in and r_out lit like rd_sphere. */
void rd_torus(rd_canvas *c, float cx, float cy, float r_in, float r_out, rd_rgb base, float alpha);

/* ---- paths: polylines stroked with round caps and joins ---------------------------------- */
/* A path is a list of straight segments; stroking takes the union of their capsules, so
 * overlapping segments (joins, glyph strokes) never blend twice. */
typedef struct {
    float *seg;           /* 4 floats per segment: x0 y0 x1 y1 */
    int n, cap;
    float x, y;           /* current point */
    bool open;            /* a polyline is open (there is a current point) */
    bool oom;             /* an allocation failed: stroking draws nothing */
} rd_path;

void rd_path_init(rd_path *p);
void rd_path_free(rd_path *p);
/* Empty the path, keeping its memory. */
void rd_path_reset(rd_path *p);
/* Start a new polyline at (x, y). */
void rd_path_move(rd_path *p, float x, float y);
/* End the open polyline (the next arc starts a new one). */
void rd_path_lift(rd_path *p);
/* Segment from the current point to (x, y) (from (x, y) itself when no polyline is open). */
void rd_path_line(rd_path *p, float x, float y);
/* A dot (zero-length segment: stroking draws a round dot of the stroke width). */
void rd_path_dot(rd_path *p, float x, float y);
/* Elliptical arc around (cx, cy), radii rx, ry, from angle a0 to a1 in degrees, where angle a is
 * the point (cx + rx cos a, cy - ry sin a): increasing angles turn counter-clockwise on screen.
 * When a polyline is open, a line joins its current point to the arc's start. */
void rd_path_arc(rd_path *p, float cx, float cy, float rx, float ry, float a0, float a1);
/* Circle drawn as dashes: n dashes each covering `fill` (0..1) of its period, from angle a0. */
void rd_path_dashed_circle(rd_path *p, float cx, float cy, float r, int n, float fill, float a0);
/* Stroke the path with half-width hw. */
void rd_path_stroke(rd_canvas *c, const rd_path *p, float hw, rd_rgb col, float alpha);

/* A straight line of half-width hw with round caps. */
void rd_line(rd_canvas *c, float x0, float y0, float x1, float y1, float hw, rd_rgb col, float alpha);
/* An arrow from (x0, y0) to (x1, y1): shaft half-width hw, a head of length `head` ending at the
 * tip; when halo_hw > 0 it is first drawn outlined in halo colour, halo_hw pixels wide. */
void rd_arrow(rd_canvas *c, float x0, float y0, float x1, float y1, float hw, float head,
              rd_rgb col, float halo_hw, rd_rgb halo);

#endif
