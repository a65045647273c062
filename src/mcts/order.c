/* order.c — move numbering and seeded permutations (see order.h). */
#include "order.h"

zz_move mcts_move_at(const zz_pos *p, uint32_t i, zz_move *scratch) {
    if (zz_jump_sources(p)) {
        int n = zz_gen_moves(p, scratch);
        return i < (uint32_t)n ? scratch[i] : ZZ_MOVE_NONE;
    }
    int colours = zz_placeable_colours(p);
    zz_bits vacant = zz_vacant(p), fr = zz_free_rings(p);
    uint32_t v = (uint32_t)zz_popcount(vacant), f = (uint32_t)zz_popcount(fr);
    uint32_t per = f <= 1 ? v : f * (v - 1);
    if (!colours || per == 0) return ZZ_MOVE_NONE;
    int c = zz_nth_bit((zz_bits)colours, (int)(i / per));
    uint32_t j = i % per;
    if (f == 0) return zz_move_place(c, zz_nth_bit(vacant, (int)j), ZZ_NO_CELL);
    if (f == 1) {                                   /* the free ring itself: no removal left */
        int cell = zz_nth_bit(vacant, (int)j), r = zz_lowest(fr);
        return zz_move_place(c, cell, cell == r ? ZZ_NO_CELL : r);
    }
    int r = zz_nth_bit(fr, (int)(j / (v - 1)));
    return zz_move_place(c, zz_nth_bit(vacant & ~zz_bit(r), (int)(j % (v - 1))), r);
}

static uint32_t round_fn(uint32_t x, uint32_t seed, uint32_t r) {
    x ^= seed + 0x9E3779B9u * (r + 1);
    x ^= x >> 16; x *= 0x7FEB352Du; x ^= x >> 15; x *= 0x846CA68Bu; x ^= x >> 16;
    return x;
}

uint32_t mcts_perm(uint32_t i, uint32_t n, uint32_t seed) {
    if (n <= 1) return 0;
    unsigned bits = 32 - (unsigned)__builtin_clz(n - 1);
    unsigned half = (bits + 1) / 2;
    uint32_t mask = (1u << half) - 1;
    do {                                            /* cycle walking: stays a bijection of [0, n) */
        uint32_t l = i >> half, r = i & mask;
        for (uint32_t k = 0; k < 4; k++) {
            uint32_t t = l ^ (round_fn(r, seed, k) & mask);
            l = r;
            r = t;
        }
        i = l << half | r;
    } while (i >= n);
    return i;
}
