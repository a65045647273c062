/* paired.h — two ladders played on the same openings, compared game by game (tools/paired).
 *
 * tools/strength numbers its games: games 2k and 2k+1 start from opening k, one with each side
 * first, and the openings depend only on the board, the opening length, their number and the
 * seed (match.h).  So two ladders of two networks against the same opponent with the same seed
 * play the same games but for the networks' moves, and the games one network won and the other
 * lost measure the difference between them with less noise than the two scores do: the games
 * both won or both lost say nothing.  Under "no difference" each such game is a fair coin, and
 * the exact two-sided sign test gives the chance of a split at least as uneven.
 *
 * A ladder's log is what tools/strength writes without --quiet (standard output and error
 * together): its first line "strength: PLAYER, ... R rings, G games per opponent from N openings
 * (K random plies each, ...), ... seed S" (or "K Boardspace turns each": archive openings),
 * then per opponent "strength: vs NAME (SPEC)" and one line per finished game, "game I  A first
 * P plies  A wins" (A is the measured player; "B wins", "draw"), in the order the games
 * finished.  (The header is on standard output, the rest on standard error: the header may come
 * anywhere in the file, the games after their opponent.) */
#ifndef ZZ_MCTS_PAIRED_H
#define ZZ_MCTS_PAIRED_H

#include <stdio.h>

enum { MCTS_LADDER_MAX_RUNGS = 16, MCTS_LADDER_MAX_GAMES = 100000 };
enum { MCTS_GAME_MISSING = -1, MCTS_GAME_LOST = 0, MCTS_GAME_WON = 1, MCTS_GAME_DRAWN = 2 };

/* One opponent's games: result[i] of game i, MCTS_GAME_*, for the measured player (A). */
typedef struct {
    char opponent[256];             /* "alpha-beta, same time (ab:64,time=1000)" */
    char spec[256];                 /* the agent spec in its last parentheses, "ab:64,time=1000" ("" if none):
                                       rungs are the same opponent when their specs are equal */
    int ngames;                     /* result[0..ngames): one past the highest game number seen */
    signed char *result;
} mcts_ladder_rung;

/* A ladder's log: what fixes its openings, and each opponent's games. */
typedef struct {
    char player[512];               /* the measured player's spec */
    int rings, openings, plies;
    int archive;                    /* 1: the openings are Boardspace turns (plies counts turns) */
    unsigned long long seed;
    int nrungs;
    mcts_ladder_rung rung[MCTS_LADDER_MAX_RUNGS];
} mcts_ladder_log;

/* Read a ladder's log from f (name: for messages).  0, or -1 with a message naming the file and
 * line (no header, a game line that does not parse, a game before any opponent, a game number
 * twice, out of memory); free with mcts_ladder_log_free either way. */
int mcts_ladder_log_read(FILE *f, const char *name, mcts_ladder_log *log, char *err, size_t errlen);
void mcts_ladder_log_free(mcts_ladder_log *log);

/* Whether two logs played the same openings (board, number, length and seed); if not, why. */
int mcts_ladder_same_openings(const mcts_ladder_log *a, const mcts_ladder_log *b, char *why, size_t whylen);

/* Whether two rungs played the same opponent: the same agent spec (a ladder names `--vs ab` and
 * `--vs "ab:64,time=1000"` differently), else, without specs, the same name. */
int mcts_ladder_same_opponent(const mcts_ladder_rung *a, const mcts_ladder_rung *b);

/* Two rungs compared game by game over the games both hold. */
typedef struct {
    int paired;                     /* games both rungs hold */
    int both_won, both_lost;        /* by the measured players; a draw on either side is `other` */
    int a_only, b_only;             /* won by the first rung's player only / by the second's only */
    int other;                      /* a draw on one side or both */
    int unpaired;                   /* games one rung holds and the other does not */
    int a_won, b_won;               /* wins over the paired games */
} mcts_paired_counts;
mcts_paired_counts mcts_paired_compare(const mcts_ladder_rung *a, const mcts_ladder_rung *b);

/* The exact two-sided sign test: the chance, with a fair coin for each of the a_only + b_only
 * games, of a split at least as uneven as this one (2·P(X <= min), at most 1; 1 when no game). */
double mcts_sign_test_p(int a_only, int b_only);

#endif
