/* symmetry.c — the 12 lattice rotations/reflections, the boards' symmetry groups, and the
 * canonical form of a position under rotations, reflections and translations of its rings.
 *
 * Grid (q,a) maps to cube coordinates (x,y,z) = (q, -a, a-q).  A 60° rotation is
 * (x,y,z) -> (-z,-x,-y) and a reflection swaps y and z; the 12 combinations make D6. */
#include "symmetry.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { NLIN = 12 };

/* Image (q',a') of (q,a) under linear map l (rotation l%6, reflected when l >= 6), no translation. */
static void lin_apply(int l, int q, int a, int *oq, int *oa) {
    int x = q, y = -a, z = a - q;
    if (l >= 6) { int t = y; y = z; z = t; }
    for (int k = 0; k < l % 6; k++) { int nx = -z, ny = -x, nz = -y; x = nx; y = ny; z = nz; }
    *oq = x;
    *oa = -y;
}

static struct {
    int8_t lq[NLIN][ZZ_NCELLS], la[NLIN][ZZ_NCELLS];   /* raw images of on-board cells */
    int nsyms[ZZ_NBOARDS];
    zz_sym syms[ZZ_NBOARDS][NLIN];
} T;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The map of linear map l followed by translation (dq,da), on the cells of board b. */
static void make_map(const zz_board *b, int l, int dq, int da, zz_sym *s) {
    memset(s->map, ZZ_NO_CELL, sizeof s->map);
    for (int i = 0; i < b->ncells; i++) {
        int c = b->cells[i], q = T.lq[l][c] + dq, a = T.la[l][c] + da;
        if (q >= 0 && q < ZZ_MAX_GRID && a >= 0 && a < ZZ_MAX_GRID) s->map[c] = (uint8_t)zz_cell_of(q, a);
    }
}

/* The lowest grid column and row of the image of board b's cells under linear map l. */
static void image_corner(const zz_board *b, int l, int *minq, int *mina) {
    *minq = *mina = 99;
    for (int i = 0; i < b->ncells; i++) {
        int c = b->cells[i];
        if (T.lq[l][c] < *minq) *minq = T.lq[l][c];
        if (T.la[l][c] < *mina) *mina = T.la[l][c];
    }
}

static void build(void) {
    for (int l = 0; l < NLIN; l++)
        for (int c = 0; c < ZZ_NCELLS; c++) {
            int q, a;
            lin_apply(l, zz_cell_q(c), zz_cell_a(c), &q, &a);
            T.lq[l][c] = (int8_t)q;
            T.la[l][c] = (int8_t)a;
        }
    for (int k = 0; k < ZZ_NBOARDS; k++) {
        const zz_board *b = zz_board_get((zz_board_kind)k);
        for (int l = 0; l < NLIN; l++) {
            int minq, mina;
            image_corner(b, l, &minq, &mina);
            zz_sym s;
            make_map(b, l, -minq, -mina, &s);   /* the board's own lowest corner is (0,0) too */
            zz_bits img = 0;
            for (int i = 0; i < b->ncells; i++) img |= s.map[b->cells[i]] == ZZ_NO_CELL ? 0 : zz_bit(s.map[b->cells[i]]);
            if (img == b->mask) T.syms[k][T.nsyms[k]++] = s;
        }
    }
}

int zz_board_nsyms(zz_board_kind kind) {
    pthread_once(&once, build);
    return T.nsyms[kind];
}

const zz_sym *zz_board_sym(zz_board_kind kind, int i) {
    pthread_once(&once, build);
    return &T.syms[kind][i];
}

void zz_sym_invert(const zz_sym *s, zz_board_kind kind, zz_sym *inv) {
    const zz_board *b = zz_board_get(kind);
    memset(inv->map, ZZ_NO_CELL, sizeof inv->map);
    for (int i = 0; i < b->ncells; i++) {
        int c = b->cells[i];
        if (s->map[c] != ZZ_NO_CELL) inv->map[s->map[c]] = (uint8_t)c;
    }
}

zz_bits zz_sym_bits(const zz_sym *s, zz_bits set) {
    zz_bits out = 0;
    int c;
    ZZ_FOR_EACH_BIT(c, set) out |= zz_bit(s->map[c]);
    return out;
}

void zz_sym_pos(const zz_sym *s, const zz_pos *p, zz_pos *out) {
    zz_pos r = *p;
    r.rings = zz_sym_bits(s, p->rings);
    for (int c = 0; c < 3; c++) r.marble[c] = zz_sym_bits(s, p->marble[c]);
    r.chain = p->chain == ZZ_NO_CELL ? ZZ_NO_CELL : s->map[p->chain];
    *out = r;
}

zz_move zz_sym_move(const zz_sym *s, zz_move m) {
    int b = zz_move_b(m);
    int a2 = s->map[zz_move_a(m)], b2 = b == ZZ_NO_CELL ? ZZ_NO_CELL : s->map[b];
    if (zz_move_is_jump(m)) return zz_move_jump(a2, b2);
    return zz_move_place(zz_move_colour(m), a2, b2);
}

/* Byte-lookup images for the canonical form: img[l][j][v] is the image, under linear map l with the
 * board's lowest corner moved to grid (0,0), of the cells whose bits are v in byte j of a zz_bits.
 * One table per board (12 maps × 16 bytes × 256 values × 16 bytes = 768 KiB), built on first use. */
typedef zz_bits byte_images[NLIN][16][256];
static byte_images *images[ZZ_NBOARDS];
static int8_t img_dq[ZZ_NBOARDS][NLIN], img_da[ZZ_NBOARDS][NLIN];   /* the translation used */
static pthread_once_t images_once[ZZ_NBOARDS] = { PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT };

static void build_images(zz_board_kind k) {
    const zz_board *b = zz_board_get(k);
    byte_images *t = calloc(1, sizeof *t);
    if (!t) return;                      /* zz_canonical falls back to the slow path */
    for (int l = 0; l < NLIN; l++) {
        int minq, mina;
        image_corner(b, l, &minq, &mina);
        img_dq[k][l] = (int8_t)-minq;
        img_da[k][l] = (int8_t)-mina;
        zz_sym s;
        make_map(b, l, -minq, -mina, &s);
        for (int i = 0; i < b->ncells; i++) {
            int c = b->cells[i];
            if (s.map[c] == ZZ_NO_CELL) { free(t); return; }
            for (int v = 0; v < 256; v++)
                if (v >> (c & 7) & 1) (*t)[l][c >> 3][v] |= zz_bit(s.map[c]);
        }
    }
    images[k] = t;
}
static void build_images_37(void) { build_images(ZZ_B37); }
static void build_images_48(void) { build_images(ZZ_B48); }
static void build_images_61(void) { build_images(ZZ_B61); }

static zz_bits image_of(const zz_bits (*tab)[256], zz_bits set) {
    zz_bits out = 0;
    uint64_t lo = (uint64_t)set, hi = (uint64_t)(set >> 64);
    for (int j = 0; j < 8 && lo; j++, lo >>= 8) out |= tab[j][lo & 255];
    for (int j = 8; j < 16 && hi; j++, hi >>= 8) out |= tab[j][hi & 255];
    return out;
}

/* Lowest and highest grid row and column of a non-empty set. */
static void bounds(zz_bits s, int *minq, int *maxq, int *mina, int *maxa) {
    uint64_t top = (uint64_t)(s >> 64);
    int lo = zz_lowest(s), hi = top ? 127 - __builtin_clzll(top) : 63 - __builtin_clzll((uint64_t)s);
    *mina = zz_cell_a(lo);
    *maxa = zz_cell_a(hi);
    zz_bits f = s | s >> ZZ_STRIDE;      /* fold every layout row onto the first: OR of s >> 10k */
    f |= f >> (2 * ZZ_STRIDE);
    f |= f >> (4 * ZZ_STRIDE);
    f |= f >> (8 * ZZ_STRIDE);
    unsigned cols = (unsigned)f & ((1u << ZZ_STRIDE) - 1);
    *minq = __builtin_ctz(cols) - 1;
    *maxq = 31 - __builtin_clz(cols) - 1;
}

/* Lexicographic order on (rings, white, grey, black, chain). */
static int key_cmp(const zz_bits *x, int xc, const zz_bits *y, int yc) {
    for (int i = 0; i < 4; i++)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return xc - yc;
}

void zz_canonical(const zz_pos *p, zz_pos *out, zz_sym *used) {
    pthread_once(&once, build);
    static void (*const init[ZZ_NBOARDS])(void) = { build_images_37, build_images_48, build_images_61 };
    pthread_once(&images_once[p->board], init[p->board]);
    const zz_board *b = zz_pos_board(p);
    const byte_images *tab = images[p->board];
    if (!tab || p->rings == 0) {         /* no table (out of memory) or nothing left: identity */
        *out = *p;
        if (used) make_map(b, 0, 0, 0, used);
        return;
    }
    /* Pass 1: the smallest image of the rings over every map and translation. */
    struct { int8_t l, shift, dq, da; } cand[NLIN * 16];   /* shift: cell-number shift of the table image */
    int ncand = 0;
    zz_bits best_rings = 0;
    for (int l = 0; l < NLIN; l++) {
        zz_bits img = image_of((*tab)[l], p->rings);
        int minq, maxq, mina, maxa;
        bounds(img, &minq, &maxq, &mina, &maxa);
        if (maxq - minq >= b->grid_w || maxa - mina >= b->grid_h) continue;
        int base = mina * ZZ_STRIDE + minq;
        zz_bits norm = img >> base;       /* lowest corner at grid (0,0) */
        for (int da = 0; da + (maxa - mina) < b->grid_h; da++)
            for (int dq = 0; dq + (maxq - minq) < b->grid_w; dq++) {
                int off = da * ZZ_STRIDE + dq;
                zz_bits r = norm << off;
                if (r & ~b->mask) continue;
                if (ncand && r > best_rings) continue;
                if (!ncand || r < best_rings) { best_rings = r; ncand = 0; }
                if (ncand < NLIN * 16) {
                    cand[ncand].l = (int8_t)l;
                    cand[ncand].shift = (int8_t)(off - base);
                    cand[ncand].dq = (int8_t)(dq - minq);
                    cand[ncand].da = (int8_t)(da - mina);
                    ncand++;
                }
            }
    }
    /* Pass 2: among the maps that tie on the rings, the smallest marbles and chain. */
    zz_bits best[4] = { 0 }, cur[4];
    int best_chain = 0, bi = 0;
    for (int i = 0; i < ncand; i++) {
        int l = cand[i].l, sh = cand[i].shift;
        cur[0] = best_rings;
        for (int c = 0; c < 3; c++) {
            zz_bits img = image_of((*tab)[l], p->marble[c]);
            cur[1 + c] = sh >= 0 ? img << sh : img >> -sh;
        }
        int ch = ZZ_NO_CELL;
        if (p->chain != ZZ_NO_CELL) ch = zz_lowest(image_of((*tab)[l], zz_bit(p->chain))) + sh;
        if (i == 0 || key_cmp(cur, ch, best, best_chain) < 0) {
            memcpy(best, cur, sizeof best);
            best_chain = ch;
            bi = i;
        }
    }
    zz_pos r = *p;
    r.rings = best[0];
    for (int c = 0; c < 3; c++) r.marble[c] = best[1 + c];
    r.chain = (uint8_t)best_chain;
    *out = r;
    if (used) {
        int l = cand[bi].l;
        make_map(b, l, img_dq[p->board][l] + cand[bi].dq, img_da[p->board][l] + cand[bi].da, used);
    }
}

uint64_t zz_canonical_hash(const zz_pos *p) {
    zz_pos c;
    zz_canonical(p, &c, NULL);
    return zz_hash(&c);
}
