/* position.h — a Zèrtz position as bitboards, and the rules as Boardspace plays them
 * (../shared/boardspace/RULES.md §5).
 *
 * Decisions ("moves") are finer than turns: a placement turn is one move (marble, cell, removed
 * ring or none); a capture turn is one move per jump.  While the same marble must go on jumping,
 * the same player moves again (pos.chain holds that marble's cell).  At the end of every turn the
 * rules settle isolation (credited to the mover), check the mover's win, pass the turn, and end the
 * game when the new mover has no legal move (that player loses) or the ply cap is reached (draw). */
#ifndef ZZ_POSITION_H
#define ZZ_POSITION_H

#include "board.h"
#include <stddef.h>

enum { ZZ_WHITE = 0, ZZ_GREY = 1, ZZ_BLACK = 2 };
extern const char ZZ_COLOUR_CHAR[3];      /* 'W', 'G', 'B' */

/* Pool: 6 white, 8 grey, 10 black on every board.  Win: 4 W, 5 G, 6 B or 3 of each. */
extern const int ZZ_START_POOL[3];
extern const int ZZ_WIN_EACH[3];
enum { ZZ_WIN_ALL = 3 };

typedef enum {
    ZZ_END_NONE = 0,    /* game goes on */
    ZZ_END_CAPTURE,     /* the mover completed a winning set of captures */
    ZZ_END_NO_MOVE,     /* the player to move had no legal move and lost */
    ZZ_END_PLY_CAP,     /* the ply cap was reached: draw */
    ZZ_END_RESIGN,      /* (game records) a player resigned */
    ZZ_END_TIME,        /* (game records) won on time */
    ZZ_END_UNFINISHED   /* (game records) the record stops before the end */
} zz_end;

/* A move, packed in 32 bits:
 *   bits 0-6   cell a: where the marble is placed, or where the jumping marble starts
 *   bits 7-13  cell b: the ring removed (ZZ_NO_CELL when none could be), or the landing cell
 *   bits 14-15 colour of the placed marble
 *   bits 16-17 kind: ZZ_MOVE_PLACE or ZZ_MOVE_JUMP                                       */
typedef uint32_t zz_move;
enum { ZZ_MOVE_PLACE = 1, ZZ_MOVE_JUMP = 2 };
#define ZZ_MOVE_NONE ((zz_move)0)
static inline zz_move zz_move_place(int colour, int cell, int removed) {
    return (zz_move)cell | (zz_move)removed << 7 | (zz_move)colour << 14 | (zz_move)ZZ_MOVE_PLACE << 16;
}
static inline zz_move zz_move_jump(int from, int to) {
    return (zz_move)from | (zz_move)to << 7 | (zz_move)ZZ_MOVE_JUMP << 16;
}
static inline int zz_move_kind(zz_move m) { return (int)(m >> 16) & 3; }
static inline int zz_move_a(zz_move m) { return (int)m & 127; }
static inline int zz_move_b(zz_move m) { return (int)(m >> 7) & 127; }
static inline int zz_move_colour(zz_move m) { return (int)(m >> 14) & 3; }
static inline bool zz_move_is_jump(zz_move m) { return zz_move_kind(m) == ZZ_MOVE_JUMP; }

/* Upper bound on legal moves in any position: 3 colours × 61 cells × 60 removals. */
enum { ZZ_MAX_MOVES = 3 * 61 * 60 };

typedef struct {
    zz_bits rings;          /* cells that still hold a ring (vacant or occupied) */
    zz_bits marble[3];      /* cells holding a white / grey / black marble */
    uint8_t pool[3];        /* shared supply */
    uint8_t cap[2][3];      /* each player's captured marbles */
    uint8_t to_move;        /* 0 or 1 */
    uint8_t board;          /* zz_board_kind */
    uint8_t chain;          /* cell of the marble that must jump again, or ZZ_NO_CELL */
    int8_t winner;          /* -1 while the game goes on or after a draw; else 0 or 1 */
    uint8_t end;            /* zz_end */
    uint16_t ply;           /* moves played (placements and single jumps) */
    uint16_t ply_cap;       /* 0 = none; otherwise a draw when ply reaches it */
} zz_pos;

/* What the end of a turn captured by isolation (for notation and pictures). */
typedef struct {
    zz_bits isolated[3];    /* cells of the marbles taken by isolation, by colour (rings gone too) */
    int jumped;             /* for a jump: the cell of the captured marble, else -1 */
    bool turn_over;         /* the move ended the mover's turn */
} zz_effects;

/* The opening position of a board (full pool, first player 0 to move, no ply cap). */
void zz_pos_init(zz_pos *p, zz_board_kind kind);
static inline const zz_board *zz_pos_board(const zz_pos *p) { return zz_board_get((zz_board_kind)p->board); }
static inline zz_bits zz_marbles(const zz_pos *p) { return p->marble[0] | p->marble[1] | p->marble[2]; }
static inline zz_bits zz_vacant(const zz_pos *p) { return p->rings & ~zz_marbles(p); }
static inline bool zz_over(const zz_pos *p) { return p->end != ZZ_END_NONE; }
/* Colour of the marble on a cell, or -1. */
int zz_colour_at(const zz_pos *p, int cell);

/* Vacant rings that may be removed: two neighbouring directions without a ring. */
zz_bits zz_free_rings(const zz_pos *p);
/* Marbles that can start a jump now (with p->chain set, at most that marble). */
zz_bits zz_jump_sources(const zz_pos *p);
/* True when the player to move must capture. */
static inline bool zz_must_capture(const zz_pos *p) { return zz_jump_sources(p) != 0; }
/* The rings the next player's jumps would land on after a marble is placed on the vacant `cell`
 * of p (no capture pending), before the ring removal and any isolation: empty when the placement
 * forces no capture.  A placement removing ring r forces one when the set less r is not empty. */
zz_bits zz_place_landings(const zz_pos *p, int cell);
/* Whether placement m (a placement of p) forces the next player to capture. */
static inline bool zz_place_forces(const zz_pos *p, zz_move m) {
    return (zz_place_landings(p, zz_move_a(m)) & ~zz_bit(zz_move_b(m))) != 0;
}
/* zz_place_forces over many placements of one position, computing each cell's landings once.
 * One cache per position; start it with zz_landing_cache_start (only `known` is cleared: an
 * initializer would also clear land[], 2 KiB, on every node the search expands). */
typedef struct { zz_bits land[ZZ_NCELLS]; zz_bits known; } zz_landing_cache;
static inline void zz_landing_cache_start(zz_landing_cache *c) { c->known = 0; }
static inline bool zz_place_forces_cached(zz_landing_cache *c, const zz_pos *p, zz_move m) {
    int cell = zz_move_a(m);
    if (!zz_has(c->known, cell)) { c->land[cell] = zz_place_landings(p, cell); c->known |= zz_bit(cell); }
    return (c->land[cell] & ~zz_bit(zz_move_b(m))) != 0;
}
/* The colours the mover may place, as a bitmask (bit c): from the pool, or from the mover's own
 * captures once the pool is completely empty. */
int zz_placeable_colours(const zz_pos *p);

/* Every legal move, in a fixed order; returns the count (0 when the game is over). */
int zz_gen_moves(const zz_pos *p, zz_move *out);
/* The number of legal moves, without listing them. */
int zz_count_moves(const zz_pos *p);
/* One legal move drawn uniformly from zz_gen_moves's list (rng: xorshift state, never 0). */
zz_move zz_random_move(const zz_pos *p, uint64_t *rng);
/* Whether m is in the legal move list. */
bool zz_is_legal(const zz_pos *p, zz_move m);

/* Play a legal move (unchecked: call zz_is_legal on untrusted input).  fx may be NULL. */
void zz_apply(zz_pos *p, zz_move m, zz_effects *fx);

/* The player to move resigns / loses on time (for game records and tools). */
void zz_resign(zz_pos *p);

/* True when the captures c form a winning set. */
bool zz_is_winning_set(const uint8_t c[3]);

/* 64-bit Zobrist hash of the whole state (rings, marbles, pool, captures, mover, chain). */
uint64_t zz_hash(const zz_pos *p);

/* Structural equality of two positions' game state (ignores ply counters). */
bool zz_pos_equal(const zz_pos *x, const zz_pos *y);

/* Check internal consistency (marbles on rings, disjoint colours, marble totals = 24, ...).
 * Returns NULL when consistent, else a static description of the first problem. */
const char *zz_pos_validate(const zz_pos *p);

/* xorshift64* random numbers for playouts and tests. */
static inline uint64_t zz_rand(uint64_t *s) {
    uint64_t x = *s; x ^= x >> 12; x ^= x << 25; x ^= x >> 27; *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}
static inline uint32_t zz_rand_below(uint64_t *s, uint32_t n) {
    return (uint32_t)(((zz_rand(s) >> 32) * (uint64_t)n) >> 32);
}

#endif
