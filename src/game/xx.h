/* xx.h — Zèrtz Extreme (Boardspace's Zertz+xx): the players build the board.  The first player
 * places rings (`R+`, `R-`) on a grid of 17 columns (A..Q) × 12 rows in a set-up turn; the other
 * player may then Swap (play second instead of first); then Zèrtz is played as usual on that
 * layout (RULES.md §3-§4; GameBoard.java SETRING_STATE, MOVE_OR_SWAP_STATE, SWAP_CONFIRM_STATE).
 *
 * Why a separate, array-based position rather than the engine's zz_pos: the bitboards embed every
 * board in one 128-bit cell layout (10 cells per padded row, cell numbers in 7 bits, moves packed
 * in 32 bits with two 7-bit cells), which is what makes the 37/48/61 engine, its move lists, its
 * symmetries and the network's planes fast.  Boardspace's Extreme grid has 204 cells (340 in the
 * axial parallelogram that holds it), and a set-up may use over 100 of them, so it cannot fit
 * without widening zz_bits, zz_move and every table that search and training use, for 57 archive
 * games.  This module keeps one byte per Boardspace cell and a neighbour table instead: enough to
 * replay, check and describe Extreme games at human speed; it is not used for search.
 *
 * Cells are numbered col * 12 + (row - 1), col 0..16 (A..Q), row 1..12, in Boardspace's doubled
 * coordinates x = col, y = firstInCol[col] + 2 (row - 1) with firstInCol = 1,2,1,2,...; the six
 * neighbours (dx,dy) = (-1,-1) (-1,+1) (0,+2) (+1,+1) (+1,-1) (0,-2) are in Boardspace's cyclic
 * order, so directions d and d+1 are neighbouring directions (hexBoard). */
#ifndef ZZ_XX_H
#define ZZ_XX_H

#include "position.h"
#include "sgf.h"
#include <stddef.h>
#include <stdio.h>

enum { ZZ_XX_COLS = 17, ZZ_XX_ROWS = 12, ZZ_XX_CELLS = ZZ_XX_COLS * ZZ_XX_ROWS };
enum { ZZ_XX_NONE = 0, ZZ_XX_RING = 1 };   /* cell contents; 2 + colour for a marble on its ring */

#define ZZ_VARIANT_EXTREME "Zertz+xx"

typedef struct {
    uint8_t cell[ZZ_XX_CELLS];  /* ZZ_XX_NONE, ZZ_XX_RING, or 2 + colour */
    uint8_t pool[3];
    uint8_t cap[2][3];
    uint8_t to_move;
} zz_xx_pos;

/* A replayed Extreme game: what tools/replay prints and compares with the manifest.  The set-up
 * and a swap each count as a turn (as in the manifest); turn texts are official notation on the
 * Extreme grid (columns a..q, rows 1..12), "setup N rings" and "swap" for those two. */
/* One turn, as replayed: the set-up, a swap, a placement or a capture chain. */
typedef enum { ZZ_XX_SETUP, ZZ_XX_SWAP, ZZ_XX_PLACE, ZZ_XX_JUMPS } zz_xx_turn_kind;
typedef struct {
    uint8_t kind, player;
    uint8_t rack, colour;       /* placement: the rack (2 pool, 0/1 captures) and the colour */
    int16_t cell, removed;      /* placement: the cell and the ring removed (-1 none) */
    uint8_t njumps;
    uint8_t from[32], to[32];   /* jumps */
} zz_xx_turn;

typedef struct {
    char player_name[2][64];
    char game_name[128];
    zz_xx_turn *turn;           /* nturns of them, beside text */
    uint8_t layout[ZZ_XX_CELLS];/* the rings after the set-up (ZZ_XX_RING / ZZ_XX_NONE) */
    int first_player;           /* the player who set up the rings */
    int swapped;                /* 1 when the other player passed the first move back (Swap and Done,
                                   or Done after any number of Swaps): the set-up player moves first */
    int setup_rings;            /* rings placed in the set-up */
    int nturns;
    char (*text)[ZZ_NOTATION_MAX];
    int cap_text;
    zz_xx_pos final;
    bool has_unfinished;        /* the game ended in the middle of a turn (Resign, WinOnTime) after */
    zz_xx_turn unfinished;      /* part of it, which final counts: a placement (cell, and removed,
                                   -1 when none) or jumps (njumps); written back before the end */
    int winner;                 /* -1 none */
    zz_end end;
} zz_xx_game;

/* The neighbour of cell c in direction d (0..5), or -1 off the grid. */
int zz_xx_neighbour(int c, int d);
/* "d4"-style name of a cell (lower case column a..q); returns the length. */
int zz_xx_cell_name(int c, char *out);

/* Rules on a layout (same as position.h, on the array). */
bool zz_xx_free_ring(const zz_xx_pos *p, int c);
bool zz_xx_any_free_ring(const zz_xx_pos *p);
bool zz_xx_can_jump_from(const zz_xx_pos *p, int c);
bool zz_xx_any_jump(const zz_xx_pos *p);
/* Take every marble (and its ring) of a group with no vacant ring, for player `who`. */
void zz_xx_settle_isolation(zz_xx_pos *p, int who);

/* Whether an SGF text is a Zertz+xx record (its SU tag). */
bool zz_sgf_is_extreme(const char *text, size_t len);
/* Replay a Zertz+xx record.  0, or -1 with "line N: why" in err.  Free with zz_xx_game_free. */
int zz_xx_sgf_parse(const char *text, size_t len, zz_xx_game *g, char *err, size_t errlen);
void zz_xx_game_free(zz_xx_game *g);
/* Write a replayed Extreme game as Boardspace SGF (VV[2], explicit Done): Start, the set-up's
 * R+ in cell order, Done, Swap and Done when swapped, then the turns; the end as Resign+Done or
 * WinOnTime, after the unfinished part of the ending turn if any.  Reading it back gives the same
 * turns and final position.  0, or -1 on a write error. */
int zz_xx_sgf_write(FILE *f, const zz_xx_game *g);
/* Read and replay a file: 0, -1 with "PATH: line N: why", or 1 (nothing read) when the file is
 * not a Zertz+xx record. */
int zz_xx_read_file(const char *path, zz_xx_game *g, char *err, size_t errlen);

#endif
