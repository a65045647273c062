/* symmetry.h — symmetries of the hex lattice acting on positions and moves.
 *
 * A symmetry is one of the 12 rotations/reflections of the lattice (D6) followed by a translation,
 * stored as a permutation of cell numbers.  The board's own symmetry group (12 elements for 37 and
 * 61 rings, 6 for 48) maps the full board onto itself; it is what training augmentation uses.
 * Because the rules only see the rings that remain, any lattice symmetry that maps the remaining
 * rings inside the board is also a symmetry of the game: zz_canonical picks, among all of them
 * (rotations, reflections and translations of the shrunken board), the image with the smallest
 * key, so that equivalent positions share one canonical form and one canonical hash. */
#ifndef ZZ_SYMMETRY_H
#define ZZ_SYMMETRY_H

#include "position.h"

typedef struct {
    uint8_t map[ZZ_NCELLS];   /* cell -> image cell (ZZ_NO_CELL for cells mapped off the layout) */
} zz_sym;

/* Number of symmetries of the full board (12 or 6) and the i-th one (0 is the identity). */
int zz_board_nsyms(zz_board_kind kind);
const zz_sym *zz_board_sym(zz_board_kind kind, int i);

/* The inverse permutation of s (on the cells of the board). */
void zz_sym_invert(const zz_sym *s, zz_board_kind kind, zz_sym *inv);

/* Image of a set of cells, a position and a move under s (the position's rings must map onto
 * cells of the board: true for the board's own symmetries and for zz_canonical's choice). */
zz_bits zz_sym_bits(const zz_sym *s, zz_bits set);
void zz_sym_pos(const zz_sym *s, const zz_pos *p, zz_pos *out);
zz_move zz_sym_move(const zz_sym *s, zz_move m);

/* The canonical form of p; when used != NULL it receives the symmetry that maps p onto it. */
void zz_canonical(const zz_pos *p, zz_pos *out, zz_sym *used);
/* zz_hash of the canonical form. */
uint64_t zz_canonical_hash(const zz_pos *p);

#endif
