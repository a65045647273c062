/* manifest.h — the Boardspace archive's manifest.csv (one row per game: the expected final
 * captures, pool, rings and marbles left, winner and how the game ended), used by the parity tests
 * and tools/replay. */
#ifndef ZZ_MANIFEST_H
#define ZZ_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    char path[192];          /* relative to the archive folder, e.g. sgf/37/2006/x.sgf */
    int rings;               /* 37, 48, 61; 0 for custom boards */
    char variant[16];
    int first_player;
    int turns;
    char end[16];            /* capture, resign, time, unfinished */
    int winner;              /* 0 or 1; -1 when empty */
    int cap[2][3];           /* final captures, white/grey/black */
    int pool[3];
    int rings_left;          /* rings on the board at the end; -1 when the manifest has no such column */
    int marbles_on_board;    /* marbles on the board at the end; -1 likewise */
    bool clean, strict;
    char flags[160];
    char replay_error[96];
} zz_manifest_row;

typedef struct {
    zz_manifest_row *rows;
    int n;
} zz_manifest;

/* Load dir/manifest.csv.  Returns 0, or -1 with a message (missing file, bad header, bad row). */
int zz_manifest_load(const char *path, zz_manifest *m, char *err, size_t errlen);
void zz_manifest_free(zz_manifest *m);
/* The row whose path ends with the given path's last components (NULL when absent). */
const zz_manifest_row *zz_manifest_find(const zz_manifest *m, const char *path);

/* Whether a row's game is compared with its final counts: every clean game, and the Zertz+H games
 * and Zertz+xx games (never clean: their set-up is flagged `edit`, `op_edit`, `op_setboard`,
 * `op_r+`, `op_swap`) that have no replay error and no flag beyond those set-up operations and
 * `placed_from_own_captures` (legal). */
bool zz_manifest_checkable(const zz_manifest_row *r);

/* What a replay says about a game, for the comparison (Zertz+xx games are not zz_games). */
typedef struct {
    uint8_t cap[2][3], pool[3];     /* final captures and pool */
    int end, winner, turns, first_player;   /* turns: a resignation counts as one (as the manifest) */
    int board_rings;                /* the board replayed: 37, 48, 61; 0 a custom board (not compared) */
    int rings_left, marbles_on_board;   /* on the board at the end */
} zz_manifest_counts;

/* Compare a replay's counts with its row: final captures, pool, end, winner, turns, first player,
 * rings and marbles left on the board, and the board.  Returns 0 when they agree; 1 for the one
 * known, explained difference (why says it): the row's board is the SU tag's while the record's
 * set-up changed the board (flag op_setboard: "manifest says 48 rings; the record is a 37-ring
 * game (SetBoard)"), everything else agreeing; else -1 with the first difference in why. */
int zz_manifest_compare_counts(const zz_manifest_row *r, const zz_manifest_counts *c, char *why, size_t whylen);

/* The same for a replayed game. */
struct zz_game_s;
int zz_manifest_compare(const zz_manifest_row *r, const struct zz_game_s *g, char *why, size_t whylen);

#endif
