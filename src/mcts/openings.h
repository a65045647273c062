/* openings.h — the openings a match starts its game pairs from (match.h: games 2k and 2k+1 both
 * start with opening k, each agent moving first in one of them).
 *
 * Two sources:
 *  - random: K uniformly random legal moves.  Cheap and endless, but some are lopsided: a random
 *    move can leave its own side a sacrifice or a capture behind (weights/LADDER.md, "Where the
 *    games against `ab` are lost: the random openings").  Each opening is played with both
 *    colours, so against a strong opponent a lopsided one costs its bad side's game.
 *  - archive: the first K turns that people played in real Boardspace games on the board (the
 *    archive's normalized/<rings>.jsonl: one JSON object per game with its turns in notation).
 *    Every distinct sequence counts once, however many games began with it.  Positions people
 *    reach, though by the network's judgement not more even in general (the same section).
 *
 * An opening holds moves (a placement, or one jump of a chain), at most MCTS_OPENING_MAX. */
#ifndef MCTS_OPENINGS_H
#define MCTS_OPENINGS_H

#include "game/position.h"
#include <stddef.h>
#include <stdint.h>

enum { MCTS_OPENING_MAX = 16 };

/* An opening: moves played from the start position before the agents decide. */
typedef struct mcts_opening {
    zz_move moves[MCTS_OPENING_MAX];
    int n;
} mcts_opening;

/* Order of openings: by length, then move by move (0 when they are the same sequence). */
int mcts_opening_cmp(const void *a, const void *b);

/* n distinct openings of `plies` uniformly random legal moves each (distinct move sequences; fewer
 * when the board has fewer), seeded.  Returns how many were written. */
int mcts_openings_random(zz_board_kind board, int plies, int n, uint64_t seed, mcts_opening *out);

/* The archive folder: $ZZ_BOARDSPACE_DIR when set and not empty, else ../shared/boardspace. */
const char *mcts_archive_dir(void);

/* Up to n distinct openings from the archive at dir: the first `turns` turns (1 to 8) of every
 * clean game on board (48 rings: the plain games, not Zertz+H) that goes on after them, within
 * MCTS_OPENING_MAX moves, as distinct move sequences; all of them shuffled by seed, the first n
 * written to out.  Returns how many were written (0 when the board has no such game), or -1
 * with a message naming the file and line: the file is missing, a line is not a game object, or
 * a turn does not parse on the position it reaches. */
int mcts_openings_archive(const char *dir, zz_board_kind board, int turns, int n, uint64_t seed,
                          mcts_opening *out, char *err, size_t errlen);

/* A match's openings: from the archive at archive_dir (k turns, mcts_openings_archive), or of k
 * random plies when archive_dir is NULL (mcts_openings_random, which cannot fail). */
int mcts_openings_make(const char *archive_dir, zz_board_kind board, int k, int n, uint64_t seed,
                       mcts_opening *out, char *err, size_t errlen);

#endif
