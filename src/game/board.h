/* board.h — board geometry: the 37-, 48- and 61-ring boards in Boardspace's coordinates, embedded
 * in one 128-bit cell layout shared by every board.
 *
 * Boardspace names a ring by column letter (a.. from the left) and row (1 = bottom of that column).
 * Internally each board is a parallelogram of the axial grid: column q (0..grid_w-1) and axial row
 * a (0..grid_h-1), chosen so that the six neighbours of (q,a) are (q±1,a), (q,a±1), (q+1,a+1) and
 * (q-1,a-1).  A 3×3 convolution whose (+1,-1) and (-1,+1) corner taps are zero is then exactly a
 * hex convolution on the grid (the network uses grid_h × grid_w planes).
 *
 * Cells are numbered cell = (a+1)*ZZ_STRIDE + (q+1): a padding row below, a padding column left of
 * every row and padding above, so that a shift of a zz_bits by a direction's offset moves every cell
 * onto its neighbour without wrapping onto another on-board cell.  Cell numbers fit in 7 bits. */
#ifndef ZZ_BOARD_H
#define ZZ_BOARD_H

#include <stdint.h>
#include <stdbool.h>

typedef unsigned __int128 zz_bits;      /* one bit per cell of the shared layout */

enum {
    ZZ_STRIDE   = 10,                     /* cells per layout row (9 grid columns + 1 padding) */
    ZZ_NCELLS   = 128,                    /* cell numbers are 0..127 */
    ZZ_MAX_GRID = 9,                      /* largest grid side (61 rings: 9×9) */
    ZZ_MAX_RINGS = 61,
    ZZ_NO_CELL  = 127                     /* "no cell" (always off-board padding) */
};

typedef enum { ZZ_B37 = 0, ZZ_B48 = 1, ZZ_B61 = 2, ZZ_NBOARDS = 3 } zz_board_kind;

typedef struct {
    zz_board_kind kind;
    int rings;                            /* 37, 48 or 61 */
    const char *variant;                  /* Boardspace SU tag: "Zertz", "Zertz+11", "Zertz+24" */
    int ncols;                            /* Boardspace columns: 7, 8, 9 */
    int n_in_col[ZZ_MAX_GRID];            /* rings per column (Boardspace nInCol) */
    int grid_w, grid_h;                   /* network grid: q in [0,grid_w), a in [0,grid_h) */
    zz_bits mask;                         /* every cell of the full board */
    int ncells;
    uint8_t cells[ZZ_MAX_RINGS];          /* the board's cells in column-major order (a1,a2..,b1..) */
    int8_t col[ZZ_NCELLS], row[ZZ_NCELLS];/* Boardspace column (0-based) and row (1-based); -1 off board */
    uint8_t at[ZZ_MAX_GRID][ZZ_MAX_GRID + 2]; /* at[col][row] = cell, ZZ_NO_CELL when not on board */
    int8_t index[ZZ_NCELLS];              /* cell -> 0..ncells-1 (order of cells[]), -1 off board */
} zz_board;

/* The six directions in Boardspace's cyclic order: d and d+1 (mod 6) are neighbouring directions.
 * Offsets are in cell numbers; ZZ_DIR_DQ/DA give the same directions in grid coordinates. */
extern const int ZZ_DIR_OFFSET[6];
extern const int ZZ_DIR_DQ[6];
extern const int ZZ_DIR_DA[6];

/* The board of a kind (tables are built once, thread-safely, on first use). */
const zz_board *zz_board_get(zz_board_kind kind);
/* The board with this many rings, or NULL when rings is not 37, 48 or 61. */
const zz_board *zz_board_for_rings(int rings);

/* Grid coordinates <-> cell numbers (valid for any layout cell, on the board or not). */
static inline int zz_cell_of(int q, int a) { return (a + 1) * ZZ_STRIDE + (q + 1); }
static inline int zz_cell_q(int cell) { return cell % ZZ_STRIDE - 1; }
static inline int zz_cell_a(int cell) { return cell / ZZ_STRIDE - 1; }

/* Boardspace coordinates: "d4" (case-insensitive; on the 61-ring board 'j' is accepted for 'i').
 * zz_parse_cell reads a cell at *s, advances *s and returns the cell, or -1 when the text is not a
 * cell of this board.  zz_cell_name writes e.g. "d4" (lower case) and returns the length. */
int zz_parse_cell(const zz_board *b, const char **s);
int zz_cell_name(const zz_board *b, int cell, char *out);
/* Cell from a Boardspace column letter and row number (as written in SGF: "D", 4); -1 if none. */
int zz_cell_from_colrow(const zz_board *b, char col_letter, int row);

/* ---- bit helpers --------------------------------------------------------------------------- */
static inline zz_bits zz_bit(int cell) { return (zz_bits)1 << cell; }
static inline bool zz_has(zz_bits s, int cell) { return (s >> cell) & 1; }
static inline int zz_popcount(zz_bits s) {
    return __builtin_popcountll((uint64_t)s) + __builtin_popcountll((uint64_t)(s >> 64));
}
static inline int zz_lowest(zz_bits s) {       /* index of the lowest set bit; s != 0 */
    uint64_t lo = (uint64_t)s;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(s >> 64));
}
/* The k-th (0-based) set bit of s; s must have more than k bits. */
int zz_nth_bit(zz_bits s, int k);
/* Shift a set by a cell offset: bit c of the result is bit c - offset of s. */
static inline zz_bits zz_shift(zz_bits s, int offset) {
    return offset >= 0 ? s << offset : s >> (-offset);
}
/* The cells whose neighbour in direction d belongs to s. */
static inline zz_bits zz_toward(zz_bits s, int d) { return zz_shift(s, -ZZ_DIR_OFFSET[d]); }
/* The cells in direction d of a cell of s. */
static inline zz_bits zz_step(zz_bits s, int d) { return zz_shift(s, ZZ_DIR_OFFSET[d]); }
/* All neighbours of the cells of s (not masked to any board). */
zz_bits zz_neighbours(zz_bits s);

/* Loop over the set bits of a zz_bits, lowest first (nestable on different lines). */
#define ZZ_CAT_(a, b) a##b
#define ZZ_CAT(a, b) ZZ_CAT_(a, b)
#define ZZ_FOR_EACH_BIT(var, set) ZZ_FOR_EACH_BIT_(var, set, ZZ_CAT(zz_it_, __LINE__))
#define ZZ_FOR_EACH_BIT_(var, set, it) \
    for (zz_bits it = (set); it && ((var) = zz_lowest(it), 1); it &= it - 1)

#endif
