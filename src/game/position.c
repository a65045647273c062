/* position.c — Zèrtz rules on bitboards: move generation, uniform random moves, apply (with
 * isolation, win and no-move checks), Zobrist hashing and consistency checks.  Every rule follows
 * Boardspace (../shared/boardspace/RULES.md §5); comments cite the point. */
#include "position.h"
#include <pthread.h>
#include <string.h>

const char ZZ_COLOUR_CHAR[3] = { 'W', 'G', 'B' };
const int ZZ_START_POOL[3] = { 6, 8, 10 };
const int ZZ_WIN_EACH[3] = { 4, 5, 6 };

void zz_pos_init(zz_pos *p, zz_board_kind kind) {
    memset(p, 0, sizeof *p);
    p->board = (uint8_t)kind;
    p->rings = zz_board_get(kind)->mask;
    for (int c = 0; c < 3; c++) p->pool[c] = (uint8_t)ZZ_START_POOL[c];
    p->chain = ZZ_NO_CELL;
    p->winner = -1;
}

int zz_colour_at(const zz_pos *p, int cell) {
    for (int c = 0; c < 3; c++)
        if (zz_has(p->marble[c], cell)) return c;
    return -1;
}

/* §5.4: a removable ring is vacant and has two neighbouring directions without a ring. */
zz_bits zz_free_rings(const zz_pos *p) {
    zz_bits none = ~p->rings, open[6], any = 0;
    for (int d = 0; d < 6; d++) open[d] = zz_toward(none, d);
    for (int d = 0; d < 6; d++) any |= open[d] & open[(d + 1) % 6];
    return any & zz_vacant(p);
}

/* The cells of `from` with, in direction d, a marble next to them and a vacant ring beyond. */
static zz_bits jump_sources_dir(zz_bits from, zz_bits marbles, zz_bits vacant, int d) {
    return from & zz_toward(marbles & zz_toward(vacant, d), d);
}

/* The marbles allowed to start a jump: all of them, or only the chain marble. */
static zz_bits jump_candidates(const zz_pos *p, zz_bits marbles) {
    return p->chain != ZZ_NO_CELL ? marbles & zz_bit(p->chain) : marbles;
}

zz_bits zz_jump_sources(const zz_pos *p) {
    if (p->end != ZZ_END_NONE) return 0;
    zz_bits m = zz_marbles(p), v = p->rings & ~m, from = jump_candidates(p, m), src = 0;
    for (int d = 0; d < 6; d++) src |= jump_sources_dir(from, m, v, d);
    return src;
}

zz_bits zz_place_landings(const zz_pos *p, int cell) {
    zz_bits m = zz_marbles(p) | zz_bit(cell), v = zz_vacant(p) & ~zz_bit(cell), land = 0;
    for (int d = 0; d < 6; d++) land |= zz_step(zz_step(jump_sources_dir(m, m, v, d), d), d);
    return land;
}

int zz_placeable_colours(const zz_pos *p) {
    /* §5.5: from the pool while it holds anything; then from the mover's own captures. */
    const uint8_t *src = (p->pool[0] | p->pool[1] | p->pool[2]) ? p->pool : p->cap[p->to_move];
    return (src[0] ? 1 : 0) | (src[1] ? 2 : 0) | (src[2] ? 4 : 0);
}

static int gen_jumps(const zz_pos *p, zz_move *out) {
    zz_bits m = zz_marbles(p), v = p->rings & ~m, from = jump_candidates(p, m);
    int n = 0;
    for (int d = 0; d < 6; d++) {
        zz_bits src = jump_sources_dir(from, m, v, d);
        int c;
        ZZ_FOR_EACH_BIT(c, src) out[n++] = zz_move_jump(c, c + 2 * ZZ_DIR_OFFSET[d]);
    }
    return n;
}

int zz_gen_moves(const zz_pos *p, zz_move *out) {
    if (p->end != ZZ_END_NONE) return 0;
    if (zz_jump_sources(p)) return gen_jumps(p, out);     /* §5.2: capture is compulsory */
    int colours = zz_placeable_colours(p), n = 0;
    zz_bits vacant = zz_vacant(p), fr = zz_free_rings(p);
    for (int c = 0; c < 3; c++) {
        if (!(colours >> c & 1)) continue;
        int cell;
        ZZ_FOR_EACH_BIT(cell, vacant) {
            zz_bits rem = fr & ~zz_bit(cell);
            if (!rem) { out[n++] = zz_move_place(c, cell, ZZ_NO_CELL); continue; }   /* §5.4 */
            int r;
            ZZ_FOR_EACH_BIT(r, rem) out[n++] = zz_move_place(c, cell, r);
        }
    }
    return n;
}

/* Placements per colour: v vacant rings, f free ones. A cell of the free set leaves f-1 choices. */
static int placements_per_colour(int v, int f) {
    if (f == 0) return v;
    if (f == 1) return v;
    return f * (v - 1);
}

int zz_count_moves(const zz_pos *p) {
    if (p->end != ZZ_END_NONE) return 0;
    if (zz_jump_sources(p)) { zz_move tmp[6 * 61]; return gen_jumps(p, tmp); }
    int colours = zz_placeable_colours(p);
    return __builtin_popcount((unsigned)colours) *
           placements_per_colour(zz_popcount(zz_vacant(p)), zz_popcount(zz_free_rings(p)));
}

zz_move zz_random_move(const zz_pos *p, uint64_t *rng) {
    if (p->end != ZZ_END_NONE) return ZZ_MOVE_NONE;
    if (zz_jump_sources(p)) {
        zz_move tmp[6 * 61];
        int n = gen_jumps(p, tmp);
        return tmp[zz_rand_below(rng, (uint32_t)n)];
    }
    int colours = zz_placeable_colours(p);
    zz_bits vacant = zz_vacant(p), fr = zz_free_rings(p);
    int v = zz_popcount(vacant), f = zz_popcount(fr);
    if (!colours || !v) return ZZ_MOVE_NONE;
    int c = zz_nth_bit((zz_bits)colours, (int)zz_rand_below(rng, (uint32_t)__builtin_popcount((unsigned)colours)));
    for (;;) {   /* uniform over (cell, removal) pairs; rejection only when f >= 2 and r == cell */
        int cell = zz_nth_bit(vacant, (int)zz_rand_below(rng, (uint32_t)v));
        if (f == 0) return zz_move_place(c, cell, ZZ_NO_CELL);
        int r = zz_nth_bit(fr, (int)zz_rand_below(rng, (uint32_t)f));
        if (r != cell) return zz_move_place(c, cell, r);
        if (f == 1) return zz_move_place(c, cell, ZZ_NO_CELL);
    }
}

bool zz_is_legal(const zz_pos *p, zz_move m) {
    if (p->end != ZZ_END_NONE) return false;
    zz_bits marbles = zz_marbles(p), vacant = p->rings & ~marbles;
    int a = zz_move_a(m), b = zz_move_b(m);
    if (zz_move_kind(m) == ZZ_MOVE_JUMP) {
        if (!zz_has(zz_jump_sources(p), a)) return false;
        for (int d = 0; d < 6; d++)
            if (b == a + 2 * ZZ_DIR_OFFSET[d])
                return zz_has(marbles, a + ZZ_DIR_OFFSET[d]) && zz_has(vacant, b);
        return false;
    }
    if (zz_move_kind(m) != ZZ_MOVE_PLACE || zz_move_colour(m) > 2 || zz_jump_sources(p)) return false;
    if (!(zz_placeable_colours(p) >> zz_move_colour(m) & 1) || !zz_has(vacant, a)) return false;
    zz_bits rem = zz_free_rings(p) & ~zz_bit(a);
    if (b == ZZ_NO_CELL) return rem == 0;
    return b < ZZ_NCELLS && zz_has(rem, b);
}

bool zz_is_winning_set(const uint8_t c[3]) {
    /* §5.7: 4 white, 5 grey, 6 black, or 3 of each */
    return c[0] >= ZZ_WIN_EACH[0] || c[1] >= ZZ_WIN_EACH[1] || c[2] >= ZZ_WIN_EACH[2] ||
           (c[0] >= ZZ_WIN_ALL && c[1] >= ZZ_WIN_ALL && c[2] >= ZZ_WIN_ALL);
}

/* §5.6: rings reachable from a vacant ring through rings; everything else is isolated. */
static zz_bits viable_rings(zz_bits rings, zz_bits vacant) {
    zz_bits reach = vacant, prev;
    do {
        prev = reach;
        reach = (reach | zz_neighbours(reach)) & rings;
    } while (reach != prev);
    return reach;
}

static bool has_any_move(const zz_pos *p) {
    if (zz_jump_sources(p)) return true;
    return zz_vacant(p) != 0 && zz_placeable_colours(p) != 0;   /* §5.8 */
}

/* End of the mover's turn: isolation (after placements), win check, pass, no-move and ply cap. */
static void end_turn(zz_pos *p, bool rings_changed, zz_effects *fx) {
    int me = p->to_move;
    if (rings_changed) {
        zz_bits iso = p->rings & ~viable_rings(p->rings, zz_vacant(p));
        if (iso) {
            for (int c = 0; c < 3; c++) {
                zz_bits taken = p->marble[c] & iso;
                if (fx) fx->isolated[c] = taken;
                p->cap[me][c] = (uint8_t)(p->cap[me][c] + zz_popcount(taken));
                p->marble[c] &= ~iso;
            }
            p->rings &= ~iso;
        }
    }
    if (fx) fx->turn_over = true;
    if (zz_is_winning_set(p->cap[me])) {
        p->end = ZZ_END_CAPTURE;
        p->winner = (int8_t)me;
        return;
    }
    p->to_move = (uint8_t)(1 - me);
    if (!has_any_move(p)) {
        p->end = ZZ_END_NO_MOVE;
        p->winner = (int8_t)me;
    }
}

void zz_apply(zz_pos *p, zz_move m, zz_effects *fx) {
    if (fx) { memset(fx, 0, sizeof *fx); fx->jumped = -1; }
    int a = zz_move_a(m), b = zz_move_b(m), me = p->to_move;
    p->ply++;
    if (zz_move_kind(m) == ZZ_MOVE_JUMP) {
        int mid = (a + b) / 2, c = zz_colour_at(p, a), cm = zz_colour_at(p, mid);
        p->marble[c] = (p->marble[c] & ~zz_bit(a)) | zz_bit(b);
        p->marble[cm] &= ~zz_bit(mid);
        p->cap[me][cm]++;
        if (fx) fx->jumped = mid;
        p->chain = (uint8_t)b;
        if (zz_jump_sources(p)) {          /* §5.3: the same marble must go on jumping */
            if (p->ply_cap && p->ply >= p->ply_cap) { p->end = ZZ_END_PLY_CAP; p->winner = -1; }
            return;
        }
        p->chain = ZZ_NO_CELL;
        end_turn(p, false, fx);
    } else {
        int c = zz_move_colour(m);
        if (p->pool[0] | p->pool[1] | p->pool[2]) p->pool[c]--;
        else p->cap[me][c]--;
        p->marble[c] |= zz_bit(a);
        if (b != ZZ_NO_CELL) p->rings &= ~zz_bit(b);
        end_turn(p, true, fx);
    }
    if (p->end == ZZ_END_NONE && p->ply_cap && p->ply >= p->ply_cap) {
        p->end = ZZ_END_PLY_CAP;
        p->winner = -1;
    }
}

void zz_resign(zz_pos *p) {
    if (p->end != ZZ_END_NONE) return;
    p->end = ZZ_END_RESIGN;
    p->winner = (int8_t)(1 - p->to_move);
}

/* ---- hashing ------------------------------------------------------------------------------- */
static struct {
    uint64_t ring[ZZ_NCELLS], marble[3][ZZ_NCELLS], chain[ZZ_NCELLS];
    uint64_t pool[3][32], cap[2][3][32], side, board[ZZ_NBOARDS];
} zob;
static pthread_once_t zob_once = PTHREAD_ONCE_INIT;

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void zob_init(void) {
    uint64_t s = 0x5A657274ULL, *k = (uint64_t *)&zob;
    for (size_t i = 0; i < sizeof zob / sizeof(uint64_t); i++) k[i] = splitmix(&s);
}

uint64_t zz_hash(const zz_pos *p) {
    pthread_once(&zob_once, zob_init);
    uint64_t h = zob.board[p->board % ZZ_NBOARDS];
    int cell;
    ZZ_FOR_EACH_BIT(cell, p->rings) h ^= zob.ring[cell];
    for (int c = 0; c < 3; c++) {
        ZZ_FOR_EACH_BIT(cell, p->marble[c]) h ^= zob.marble[c][cell];
        h ^= zob.pool[c][p->pool[c] & 31] ^ zob.cap[0][c][p->cap[0][c] & 31] ^ zob.cap[1][c][p->cap[1][c] & 31];
    }
    if (p->to_move) h ^= zob.side;
    if (p->chain != ZZ_NO_CELL) h ^= zob.chain[p->chain & 127];
    return h;
}

bool zz_pos_equal(const zz_pos *x, const zz_pos *y) {
    return x->board == y->board && x->rings == y->rings && x->marble[0] == y->marble[0] &&
           x->marble[1] == y->marble[1] && x->marble[2] == y->marble[2] &&
           !memcmp(x->pool, y->pool, 3) && !memcmp(x->cap, y->cap, 6) &&
           x->to_move == y->to_move && x->chain == y->chain && x->end == y->end && x->winner == y->winner;
}

const char *zz_pos_validate(const zz_pos *p) {
    if (p->board >= ZZ_NBOARDS) return "unknown board";
    const zz_board *b = zz_pos_board(p);
    if (p->rings & ~b->mask) return "ring off the board";
    if (zz_marbles(p) & ~p->rings) return "marble without a ring";
    if ((p->marble[0] & p->marble[1]) | (p->marble[0] & p->marble[2]) | (p->marble[1] & p->marble[2]))
        return "two marbles on one cell";
    for (int c = 0; c < 3; c++)
        if (p->pool[c] + p->cap[0][c] + p->cap[1][c] + zz_popcount(p->marble[c]) != ZZ_START_POOL[c])
            return "marble count does not add up";
    if (p->to_move > 1) return "bad player to move";
    if (p->chain != ZZ_NO_CELL && p->chain >= ZZ_NCELLS) return "chain cell off the layout";
    if (p->chain != ZZ_NO_CELL && !zz_has(zz_marbles(p), p->chain)) return "chain cell holds no marble";
    return NULL;
}
