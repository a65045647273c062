/* raster.c — the anti-aliased rasteriser: canvas, blending, analytic-coverage shapes, shaded
 * solids and stroked paths (see raster.h). */
#include "render/raster.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { RD_MAX_SIDE = 16384 };

static inline float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }
static inline int imin(int a, int b) { return a < b ? a : b; }
static inline int imax(int a, int b) { return a > b ? a : b; }

rd_rgb rd_mix(rd_rgb a, rd_rgb b, float t) {
    t = clampf(t, 0.f, 1.f);
    rd_rgb c = { (uint8_t)lrintf(a.r + (b.r - a.r) * t), (uint8_t)lrintf(a.g + (b.g - a.g) * t),
                 (uint8_t)lrintf(a.b + (b.b - a.b) * t) };
    return c;
}

rd_rgb rd_scale(rd_rgb c, float k) {
    rd_rgb o = { (uint8_t)lrintf(clampf(c.r * k, 0, 255)), (uint8_t)lrintf(clampf(c.g * k, 0, 255)),
                 (uint8_t)lrintf(clampf(c.b * k, 0, 255)) };
    return o;
}

int rd_canvas_init(rd_canvas *c, int w, int h, rd_rgb bg) {
    c->w = c->h = 0;
    c->px = NULL;
    if (w <= 0 || h <= 0 || w > RD_MAX_SIDE || h > RD_MAX_SIDE) return -1;
    c->px = malloc((size_t)w * (size_t)h * 3);
    if (!c->px) return -1;
    c->w = w;
    c->h = h;
    rd_clear(c, bg);
    return 0;
}

void rd_canvas_free(rd_canvas *c) {
    free(c->px);
    c->px = NULL;
    c->w = c->h = 0;
}

rd_rgb rd_get(const rd_canvas *c, int x, int y) {
    rd_rgb o = { 0, 0, 0 };
    if (x < 0 || y < 0 || x >= c->w || y >= c->h) return o;
    const uint8_t *q = c->px + ((size_t)y * c->w + x) * 3;
    o.r = q[0]; o.g = q[1]; o.b = q[2];
    return o;
}

void rd_blend(rd_canvas *c, int x, int y, rd_rgb col, float a) {
    if (x < 0 || y < 0 || x >= c->w || y >= c->h || !(a > 0.f)) return;
    uint8_t *q = c->px + ((size_t)y * c->w + x) * 3;
    if (a >= 1.f) { q[0] = col.r; q[1] = col.g; q[2] = col.b; return; }
    q[0] = (uint8_t)lrintf(q[0] + (col.r - q[0]) * a);
    q[1] = (uint8_t)lrintf(q[1] + (col.g - q[1]) * a);
    q[2] = (uint8_t)lrintf(q[2] + (col.b - q[2]) * a);
}

void rd_clear(rd_canvas *c, rd_rgb col) {
    size_t n = (size_t)c->w * c->h;
    for (size_t i = 0; i < n; i++) { c->px[3 * i] = col.r; c->px[3 * i + 1] = col.g; c->px[3 * i + 2] = col.b; }
}

/* The pixel box [*x0,*x1) × [*y0,*y1) covering the float box, clipped to the canvas; false if empty. */
static bool pixel_box(const rd_canvas *c, float fx0, float fy0, float fx1, float fy1,
                      int *x0, int *y0, int *x1, int *y1) {
    if (!(fx1 > fx0) || !(fy1 > fy0)) return false;
    *x0 = (int)floorf(clampf(fx0, -1.f, (float)c->w + 1));
    *y0 = (int)floorf(clampf(fy0, -1.f, (float)c->h + 1));
    *x1 = (int)ceilf(clampf(fx1, -1.f, (float)c->w + 1));
    *y1 = (int)ceilf(clampf(fy1, -1.f, (float)c->h + 1));
    *x0 = imax(*x0, 0); *y0 = imax(*y0, 0);
    *x1 = imin(*x1, c->w); *y1 = imin(*y1, c->h);
    return *x1 > *x0 && *y1 > *y0;
}

void rd_fill_rect(rd_canvas *c, float x0, float y0, float x1, float y1, rd_rgb col, float alpha) {
    int px0, py0, px1, py1;
    if (!pixel_box(c, x0, y0, x1, y1, &px0, &py0, &px1, &py1)) return;
    for (int y = py0; y < py1; y++) {
        float cy = clampf(fminf(y + 1.f, y1) - fmaxf((float)y, y0), 0, 1);
        for (int x = px0; x < px1; x++) {
            float cx = clampf(fminf(x + 1.f, x1) - fmaxf((float)x, x0), 0, 1);
            rd_blend(c, x, y, col, cx * cy * alpha);
        }
    }
}

void rd_fill_round_rect(rd_canvas *c, float x0, float y0, float x1, float y1, float r,
                        rd_rgb col, float alpha) {
    int px0, py0, px1, py1;
    if (!pixel_box(c, x0, y0, x1, y1, &px0, &py0, &px1, &py1)) return;
    float mx = (x0 + x1) / 2, my = (y0 + y1) / 2, bx = (x1 - x0) / 2, by = (y1 - y0) / 2;
    r = clampf(r, 0, fminf(bx, by));
    for (int y = py0; y < py1; y++)
        for (int x = px0; x < px1; x++) {
            float qx = fabsf(x + 0.5f - mx) - bx + r, qy = fabsf(y + 0.5f - my) - by + r;
            float d = hypotf(fmaxf(qx, 0), fmaxf(qy, 0)) + fminf(fmaxf(qx, qy), 0) - r;
            rd_blend(c, x, y, col, clampf(0.5f - d, 0, 1) * alpha);
        }
}

void rd_fill_circle(rd_canvas *c, float cx, float cy, float r, rd_rgb col, float alpha) {
    rd_fill_annulus(c, cx, cy, -1.f, r, col, alpha);
}

void rd_fill_annulus(rd_canvas *c, float cx, float cy, float r_in, float r_out, rd_rgb col, float alpha) {
    int x0, y0, x1, y1;
    if (!pixel_box(c, cx - r_out - 1, cy - r_out - 1, cx + r_out + 1, cy + r_out + 1, &x0, &y0, &x1, &y1)) return;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            float d = hypotf(x + 0.5f - cx, y + 0.5f - cy);
            float a = fminf(clampf(r_out + 0.5f - d, 0, 1), clampf(d - r_in + 0.5f, 0, 1));
            rd_blend(c, x, y, col, a * alpha);
        }
}

void rd_soft_circle(rd_canvas *c, float cx, float cy, float r, float blur, rd_rgb col, float alpha) {
    blur = fmaxf(blur, 1.f);
    float rr = r + blur / 2;
    int x0, y0, x1, y1;
    if (!pixel_box(c, cx - rr - 1, cy - rr - 1, cx + rr + 1, cy + rr + 1, &x0, &y0, &x1, &y1)) return;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            float d = hypotf(x + 0.5f - cx, y + 0.5f - cy);
            float t = clampf((rr - d) / blur, 0, 1);
            rd_blend(c, x, y, col, t * t * (3 - 2 * t) * alpha);
        }
}

void rd_soft_annulus(rd_canvas *c, float cx, float cy, float r_in, float r_out, float blur, rd_rgb col, float alpha) {
    blur = fmaxf(blur, 1.f);
    float ro = r_out + blur / 2, ri = r_in - blur / 2;
    int x0, y0, x1, y1;
    if (!pixel_box(c, cx - ro - 1, cy - ro - 1, cx + ro + 1, cy + ro + 1, &x0, &y0, &x1, &y1)) return;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            float d = hypotf(x + 0.5f - cx, y + 0.5f - cy);
            float t = fminf(clampf((ro - d) / blur, 0, 1), clampf((d - ri) / blur, 0, 1));
            rd_blend(c, x, y, col, t * t * (3 - 2 * t) * alpha);
        }
}

void rd_fill_convex(rd_canvas *c, const float *xs, const float *ys, int n, rd_rgb col, float alpha) {
    if (n < 3) return;
    float bx0 = xs[0], bx1 = xs[0], by0 = ys[0], by1 = ys[0], area = 0;
    for (int i = 0; i < n; i++) {
        int j = (i + 1) % n;
        bx0 = fminf(bx0, xs[i]); bx1 = fmaxf(bx1, xs[i]);
        by0 = fminf(by0, ys[i]); by1 = fmaxf(by1, ys[i]);
        area += xs[i] * ys[j] - xs[j] * ys[i];
    }
    if (fabsf(area) < 1e-6f) return;
    float sgn = area > 0 ? 1.f : -1.f;
    float nx[16], ny[16], off[16];
    if (n > 16) n = 16;
    for (int i = 0; i < n; i++) {      /* inward unit normals: dot(p, n) - off > 0 inside */
        int j = (i + 1) % n;
        float ex = xs[j] - xs[i], ey = ys[j] - ys[i], len = hypotf(ex, ey);
        if (len < 1e-9f) { nx[i] = ny[i] = 0; off[i] = -1e9f; continue; }
        nx[i] = -ey / len * sgn;
        ny[i] = ex / len * sgn;
        off[i] = nx[i] * xs[i] + ny[i] * ys[i];
    }
    int x0, y0, x1, y1;
    if (!pixel_box(c, bx0 - 1, by0 - 1, bx1 + 1, by1 + 1, &x0, &y0, &x1, &y1)) return;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            float px = x + 0.5f, py = y + 0.5f, d = 1e9f;
            for (int i = 0; i < n; i++) d = fminf(d, px * nx[i] + py * ny[i] - off[i]);
            rd_blend(c, x, y, col, clampf(0.5f + d, 0, 1) * alpha);
        }
}

/* Light from the upper left and towards the viewer (screen coordinates, y down). */
static const float LX = -0.48f, LY = -0.62f, LZ = 0.62f;

/* Shade a surface normal (nx, ny, nz unit) on a base colour. */
static rd_rgb shade(rd_rgb base, float nx, float ny, float nz, float amb, float kd, float spec, float shin) {
    float diff = fmaxf(0.f, nx * LX + ny * LY + nz * LZ);
    float hx = LX, hy = LY, hz = LZ + 1.f, hl = sqrtf(hx * hx + hy * hy + hz * hz);
    float ndoth = fmaxf(0.f, (nx * hx + ny * hy + nz * hz) / hl);
    float s = spec * powf(ndoth, shin) * 255.f;
    float k = amb + kd * diff;
    rd_rgb o = { (uint8_t)lrintf(clampf(base.r * k + s, 0, 255)), (uint8_t)lrintf(clampf(base.g * k + s, 0, 255)),
                 (uint8_t)lrintf(clampf(base.b * k + s, 0, 255)) };
    return o;
}

void rd_sphere(rd_canvas *c, float cx, float cy, float r, rd_rgb base, float spec, float alpha) {
    int x0, y0, x1, y1;
    if (r <= 0 || !pixel_box(c, cx - r - 1, cy - r - 1, cx + r + 1, cy + r + 1, &x0, &y0, &x1, &y1)) return;
    /* Shading depth: full from 6 px of radius, flatter below (down to 40 % at 2 px), around the
     * mean brightness of the full shading: on a sphere of a few pixels the dark side and the
     * highlight are most of it, and it reads as another colour than its own. */
    float depth = clampf((r - 2.f) / 4.f, 0.f, 1.f) * 0.6f + 0.4f;
    float amb = 0.86f + (0.42f - 0.86f) * depth, kd = 0.72f * depth;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            float dx = x + 0.5f - cx, dy = y + 0.5f - cy, d = hypotf(dx, dy);
            float cov = clampf(r + 0.5f - d, 0, 1);
            if (cov <= 0) continue;
            float nx = dx / r, ny = dy / r, q = nx * nx + ny * ny;
            if (q > 0.999f) { float k = sqrtf(0.999f / q); nx *= k; ny *= k; q = 0.999f; }
            float nz = sqrtf(1.f - q);
            rd_rgb col = shade(base, nx, ny, nz, amb, kd, spec * depth, 48.f);
            /* a faint bounce light along the lower rim keeps dark marbles round */
            float rim = clampf((ny + nx * 0.3f) * (1 - nz), 0, 1) * 0.18f;
            col = rd_mix(col, rd_scale(base, 1.6f), rim);
            rd_blend(c, x, y, col, cov * alpha);
        }
}

void rd_torus(rd_canvas *c, float cx, float cy, float r_in, float r_out, rd_rgb base, float alpha) {
    int x0, y0, x1, y1;
    if (!pixel_box(c, cx - r_out - 1, cy - r_out - 1, cx + r_out + 1, cy + r_out + 1, &x0, &y0, &x1, &y1)) return;
    float rm = (r_in + r_out) / 2, hw = (r_out - r_in) / 2;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            float dx = x + 0.5f - cx, dy = y + 0.5f - cy, d = hypotf(dx, dy);
            float cov = fminf(clampf(r_out + 0.5f - d, 0, 1), clampf(d - r_in + 0.5f, 0, 1));
            if (cov <= 0 || d < 1e-6f) continue;
            float t = clampf((d - rm) / hw, -0.98f, 0.98f);
            float ux = dx / d, uy = dy / d;
            /* a flattened tube: the top is nearly flat, the edges roll off */
            float tt = t * fabsf(t);
            float nx = ux * tt * 0.85f, ny = uy * tt * 0.85f, nz = sqrtf(fmaxf(0.05f, 1.f - tt * tt * 0.72f));
            float l = sqrtf(nx * nx + ny * ny + nz * nz);
            rd_rgb col = shade(base, nx / l, ny / l, nz / l, 0.55f, 0.55f, 0.22f, 18.f);
            rd_blend(c, x, y, col, cov * alpha);
        }
}

/* ---- paths --------------------------------------------------------------------------------- */

void rd_path_init(rd_path *p) { memset(p, 0, sizeof *p); }

void rd_path_free(rd_path *p) { free(p->seg); rd_path_init(p); }

void rd_path_reset(rd_path *p) { p->n = 0; p->open = false; p->oom = false; }

void rd_path_lift(rd_path *p) { p->open = false; }

void rd_path_move(rd_path *p, float x, float y) { p->x = x; p->y = y; p->open = true; }

static void add_seg(rd_path *p, float x0, float y0, float x1, float y1) {
    if (p->oom) return;
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 64;
        float *s = realloc(p->seg, (size_t)cap * 4 * sizeof *s);
        if (!s) { p->oom = true; return; }
        p->seg = s;
        p->cap = cap;
    }
    float *s = p->seg + 4 * p->n++;
    s[0] = x0; s[1] = y0; s[2] = x1; s[3] = y1;
}

void rd_path_line(rd_path *p, float x, float y) {
    if (!p->open) rd_path_move(p, x, y);
    add_seg(p, p->x, p->y, x, y);
    p->x = x;
    p->y = y;
}

void rd_path_dot(rd_path *p, float x, float y) {
    add_seg(p, x, y, x, y);
    p->x = x;
    p->y = y;
    p->open = false;
}

void rd_path_arc(rd_path *p, float cx, float cy, float rx, float ry, float a0, float a1) {
    const float k = (float)M_PI / 180.f;
    float sweep = fabsf(a1 - a0) * k;
    int steps = (int)ceilf(fmaxf(sweep / (6.f * k), sweep * fmaxf(rx, ry) / 3.f));
    if (steps < 1) steps = 1;
    if (steps > 720) steps = 720;
    float x = cx + rx * cosf(a0 * k), y = cy - ry * sinf(a0 * k);
    if (p->open) rd_path_line(p, x, y); else rd_path_move(p, x, y);
    for (int i = 1; i <= steps; i++) {
        float a = (a0 + (a1 - a0) * (float)i / steps) * k;
        rd_path_line(p, cx + rx * cosf(a), cy - ry * sinf(a));
    }
}

void rd_path_dashed_circle(rd_path *p, float cx, float cy, float r, int n, float fill, float a0) {
    if (n < 1) return;
    float period = 360.f / n;
    for (int i = 0; i < n; i++) {
        rd_path_lift(p);
        rd_path_arc(p, cx, cy, r, r, a0 + i * period, a0 + i * period + period * fill);
    }
    rd_path_lift(p);
}

/* Distance from (px, py) to the segment s. */
static inline float seg_dist(const float *s, float px, float py) {
    float dx = s[2] - s[0], dy = s[3] - s[1], l2 = dx * dx + dy * dy;
    float t = l2 > 1e-12f ? clampf(((px - s[0]) * dx + (py - s[1]) * dy) / l2, 0, 1) : 0;
    return hypotf(px - s[0] - t * dx, py - s[1] - t * dy);
}

void rd_path_stroke(rd_canvas *c, const rd_path *p, float hw, rd_rgb col, float alpha) {
    if (p->oom || p->n == 0 || hw <= 0) return;
    float bx0 = 1e30f, by0 = 1e30f, bx1 = -1e30f, by1 = -1e30f;
    for (int i = 0; i < p->n; i++) {
        const float *s = p->seg + 4 * i;
        bx0 = fminf(bx0, fminf(s[0], s[2])); bx1 = fmaxf(bx1, fmaxf(s[0], s[2]));
        by0 = fminf(by0, fminf(s[1], s[3])); by1 = fmaxf(by1, fmaxf(s[1], s[3]));
    }
    float g = hw + 1.f;
    int x0, y0, x1, y1;
    if (!pixel_box(c, bx0 - g, by0 - g, bx1 + g, by1 + g, &x0, &y0, &x1, &y1)) return;
    int bw = x1 - x0, bh = y1 - y0;
    float *mask = calloc((size_t)bw * bh, sizeof *mask);
    if (!mask) return;
    for (int i = 0; i < p->n; i++) {
        const float *s = p->seg + 4 * i;
        int sx0 = imax(x0, (int)floorf(fminf(s[0], s[2]) - g)), sx1 = imin(x1, (int)ceilf(fmaxf(s[0], s[2]) + g));
        int sy0 = imax(y0, (int)floorf(fminf(s[1], s[3]) - g)), sy1 = imin(y1, (int)ceilf(fmaxf(s[1], s[3]) + g));
        for (int y = sy0; y < sy1; y++) {
            float *row = mask + (size_t)(y - y0) * bw - x0;
            for (int x = sx0; x < sx1; x++) {
                float a = clampf(hw + 0.5f - seg_dist(s, x + 0.5f, y + 0.5f), 0, 1);
                if (a > row[x]) row[x] = a;
            }
        }
    }
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            float a = mask[(size_t)(y - y0) * bw + (x - x0)];
            if (a > 0) rd_blend(c, x, y, col, a * alpha);
        }
    free(mask);
}

void rd_line(rd_canvas *c, float x0, float y0, float x1, float y1, float hw, rd_rgb col, float alpha) {
    float s[4] = { x0, y0, x1, y1 };
    rd_path p = { .seg = s, .n = 1, .cap = 1 };
    rd_path_stroke(c, &p, hw, col, alpha);
}

/* The arrow head triangle, each vertex pushed `grow` pixels away from its centroid. */
static void head_points(float x1, float y1, float ux, float uy, float head, float grow, float *xs, float *ys) {
    float bx = x1 - ux * head, by = y1 - uy * head, w = head * 0.58f;
    xs[0] = x1; ys[0] = y1;
    xs[1] = bx - uy * w; ys[1] = by + ux * w;
    xs[2] = bx + uy * w; ys[2] = by - ux * w;
    if (grow > 0) {
        float gx = (xs[0] + xs[1] + xs[2]) / 3, gy = (ys[0] + ys[1] + ys[2]) / 3;
        for (int i = 0; i < 3; i++) {
            float dx = xs[i] - gx, dy = ys[i] - gy, l = hypotf(dx, dy);
            if (l > 1e-6f) { xs[i] += dx / l * grow * (i == 0 ? 2.f : 1.6f); ys[i] += dy / l * grow * (i == 0 ? 2.f : 1.6f); }
        }
    }
}

void rd_arrow(rd_canvas *c, float x0, float y0, float x1, float y1, float hw, float head,
              rd_rgb col, float halo_hw, rd_rgb halo) {
    float dx = x1 - x0, dy = y1 - y0, len = hypotf(dx, dy);
    if (len < 1e-3f) return;
    float ux = dx / len, uy = dy / len;
    if (head > len * 0.8f) head = len * 0.8f;
    float sx = x1 - ux * head * 0.7f, sy = y1 - uy * head * 0.7f;   /* shaft ends inside the head */
    float xs[3], ys[3];
    if (halo_hw > 0) {
        rd_line(c, x0, y0, sx, sy, hw + halo_hw, halo, 1.f);
        head_points(x1, y1, ux, uy, head, halo_hw, xs, ys);
        rd_fill_convex(c, xs, ys, 3, halo, 1.f);
    }
    rd_line(c, x0, y0, sx, sy, hw, col, 1.f);
    head_points(x1, y1, ux, uy, head, 0, xs, ys);
    rd_fill_convex(c, xs, ys, 3, col, 1.f);
}
