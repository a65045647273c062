/* sgf.h — Boardspace SGF game records: reading real archive files (replaying them with Boardspace's
 * own state machine, including old records without Done, in-turn undos and time nodes) and writing
 * our own games so that Boardspace's viewer opens them.  See ../shared/boardspace/RULES.md §2.
 *
 * A zz_game holds the replayed game: board, players, the turns (each as its moves and its official
 * notation), the final position, winner and how the game ended. */
#ifndef ZZ_SGF_H
#define ZZ_SGF_H

#include "notation.h"
#include <stdio.h>

typedef struct {
    int player;                     /* who played the turn */
    int nmoves;                     /* 1 for a placement, the number of jumps for a chain */
    zz_move moves[ZZ_MAX_CHAIN];
    char text[ZZ_NOTATION_MAX];     /* official notation, with isolation captures */
} zz_turn;

/* The part of a turn played before the game ended in its middle (a Resign, or a win on time,
 * after a placement, a ring removal or jumps of the mover's unfinished turn): Boardspace counts it
 * in the final position (RULES.md §5.10), and zz_sgf_write writes it back before the Resign or
 * WinOnTime.  All zero (nothing placed, removed or jumped) when the game ended between turns. */
typedef struct {
    bool placed, removed;           /* a marble was placed / a ring removed */
    uint8_t cell, colour, rack;     /* the placement: cell, colour, rack (2 pool, 0/1 captures) */
    uint8_t ring;                   /* the ring removed */
    int njumps;
    zz_move jumps[ZZ_MAX_CHAIN];    /* the jumps made, in order */
} zz_part_turn;

typedef struct zz_game_s {
    zz_board_kind board;
    char variant[32];               /* SU tag */
    char player_name[2][256];       /* long enough for an agent spec (arena and ladder records) */
    char game_name[128];            /* GN tag */
    char date[64];                  /* DT tag */
    int first_player;               /* 0 or 1 */
    int nturns, cap_turns;
    zz_turn *turns;
    zz_pos start;                   /* position before the first turn */
    zz_pos final;                   /* position after the last completed turn (and any resign turn) */
    zz_part_turn unfinished;        /* the ending turn's part counted in final (see zz_part_turn) */
    int winner;                     /* -1 none / draw, else 0 or 1 */
    zz_end end;                     /* CAPTURE, NO_MOVE, RESIGN, TIME, PLY_CAP or UNFINISHED */
} zz_game;

void zz_game_init(zz_game *g, zz_board_kind board);
void zz_game_free(zz_game *g);
/* Append a turn (moves at g->final's position) and play it; returns 0, or -1 if illegal. */
int zz_game_add_turn(zz_game *g, const zz_move *moves, int n, char *err, size_t errlen);

/* Read and replay an SGF text / file.  Returns 0 on success; on failure -1 with a message naming
 * the line and the reason in err (for files, prefixed by the path).  g is left initialised either
 * way (free it with zz_game_free). */
int zz_sgf_parse(const char *text, size_t len, zz_game *g, char *err, size_t errlen);
int zz_sgf_read_file(const char *path, zz_game *g, char *err, size_t errlen);

/* Write g as Boardspace SGF (VV[2], explicit Done nodes).  Returns 0 or -1 on a write error. */
int zz_sgf_write(FILE *f, const zz_game *g);
/* Write g as an SGF file, atomically (game/atomic_file.h: the file is whole or untouched, no
 * temporary file is left).  Returns 0, or -1 with "PATH: cause" in err. */
int zz_sgf_write_file(const char *path, const zz_game *g, char *err, size_t errlen);

/* A whole game as one line of notation turns separated by spaces-semicolons ("Wd4,d1; x d1Gd3"). */
const char *zz_end_name(zz_end e);

#endif
