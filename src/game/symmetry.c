/* symmetry.c — the 12 lattice rotations/reflections, the boards' symmetry groups, and the
 * canonical form of a position under rotations, reflections and translations of its rings.
 *
 * Grid (q,a) maps to cube coordinates (x,y,z) = (q, -a, a-q).  A 60° rotation is
 * (x,y,z) -> (-z,-x,-y) and a reflection swaps y and z; the 12 combinations make D6. */
#include "symmetry.h"
#include <pthread.h>
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
            int minq = 99, mina = 99;
            for (int i = 0; i < b->ncells; i++) {
                int c = b->cells[i];
                if (T.lq[l][c] < minq) minq = T.lq[l][c];
                if (T.la[l][c] < mina) mina = T.la[l][c];
            }
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

/* Lexicographic order on (rings, white, grey, black, chain). */
static int key_cmp(const zz_bits *x, int xc, const zz_bits *y, int yc) {
    for (int i = 0; i < 4; i++)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return xc - yc;
}

void zz_canonical(const zz_pos *p, zz_pos *out, zz_sym *used) {
    pthread_once(&once, build);
    const zz_board *b = zz_pos_board(p);
    zz_bits best[4] = { 0 }, cur[4];
    int best_chain = 0, best_l = -1, best_dq = 0, best_da = 0;
    zz_bits src[4] = { p->rings, p->marble[0], p->marble[1], p->marble[2] };
    for (int l = 0; l < NLIN; l++) {
        const int8_t *lq = T.lq[l], *la = T.la[l];
        int minq = 99, mina = 99, maxq = -99, maxa = -99, c;
        ZZ_FOR_EACH_BIT(c, p->rings) {
            if (lq[c] < minq) minq = lq[c];
            if (lq[c] > maxq) maxq = lq[c];
            if (la[c] < mina) mina = la[c];
            if (la[c] > maxa) maxa = la[c];
        }
        if (p->rings == 0) minq = mina = maxq = maxa = 0;
        if (maxq - minq >= b->grid_w || maxa - mina >= b->grid_h) continue;
        /* image with its lowest corner at grid (0,0) */
        for (int i = 0; i < 4; i++) {
            cur[i] = 0;
            ZZ_FOR_EACH_BIT(c, src[i]) cur[i] |= zz_bit(zz_cell_of(lq[c] - minq, la[c] - mina));
        }
        int chain0 = p->chain == ZZ_NO_CELL ? ZZ_NO_CELL : zz_cell_of(lq[p->chain] - minq, la[p->chain] - mina);
        for (int da = 0; da + (maxa - mina) < b->grid_h; da++)
            for (int dq = 0; dq + (maxq - minq) < b->grid_w; dq++) {
                int off = da * ZZ_STRIDE + dq;
                zz_bits r = cur[0] << off;
                if (r & ~b->mask) continue;
                zz_bits cand[4] = { r, cur[1] << off, cur[2] << off, cur[3] << off };
                int ch = chain0 == ZZ_NO_CELL ? ZZ_NO_CELL : chain0 + off;
                if (best_l < 0 || key_cmp(cand, ch, best, best_chain) < 0) {
                    memcpy(best, cand, sizeof best);
                    best_chain = ch;
                    best_l = l;
                    best_dq = dq - minq;
                    best_da = da - mina;
                }
            }
    }
    zz_pos r = *p;
    r.rings = best[0];
    for (int c = 0; c < 3; c++) r.marble[c] = best[1 + c];
    r.chain = (uint8_t)best_chain;
    *out = r;
    if (used) make_map(b, best_l, best_dq, best_da, used);
}

uint64_t zz_canonical_hash(const zz_pos *p) {
    zz_pos c;
    zz_canonical(p, &c, NULL);
    return zz_hash(&c);
}
