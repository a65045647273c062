/* input.h — reading the game to draw: a Boardspace SGF file, a file of turns in official notation
 * (one turn per line, or turns separated by ';', or just whitespace between turns; '#' starts a
 * comment; move numbers such as "12." are skipped), or the same notation given as text.  A
 * capture chain written as separate jumps ("x d7Wd5" then "x d5Wd3") is joined into one turn.
 * Every turn is checked against the rules; errors name the turn. */
#ifndef RD_INPUT_H
#define RD_INPUT_H

#include "game/sgf.h"

/* Split notation text into turn texts (malloc'd strings; free with rd_free_turns).  Returns the
 * number of turns, or -1 with a message when a token cannot be part of any turn. */
int rd_split_turns(const char *text, char ***turns, char *err, size_t errlen);
void rd_free_turns(char **turns, int n);

/* Replay notation text into g (initialised here).  rings = 37, 48 or 61, or 0 to take the smallest
 * board on which every turn is legal.  Returns 0, or -1 with a message ("turn 3: ...").  g is
 * initialised either way: free it with zz_game_free. */
int rd_load_notation(const char *text, int rings, zz_game *g, char *err, size_t errlen);

/* Read a file: SGF when its first non-blank character is '(', else notation (rings as above;
 * ignored for SGF).  Errors start with the path. */
int rd_load_file(const char *path, int rings, zz_game *g, char *err, size_t errlen);

/* Parse a turn range "N", "A-B", "A-" or "-B" (1-based turn numbers) against a game of n turns;
 * fills [*first, *last].  Returns 0, or -1 with a message. */
int rd_parse_range(const char *s, int nturns, int *first, int *last, char *err, size_t errlen);

#endif
