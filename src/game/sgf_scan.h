/* sgf_scan.h — the SGF tokenizer and file reading that both record readers share: sgf_read.c
 * (Zertz and Zertz+H, replayed into a zz_game) and xx_sgf.c (Zertz+xx, the Extreme board).
 *
 * The tokenizer is tolerant, as Boardspace's files need: it reads the first game tree only
 * (a second tree after any property ends the scan), ignores nodes' structure beyond counting the
 * ';' seen, and hands every value of every property to the reader in file order, with escapes
 * (`\]`) resolved and newlines, tabs and other white space inside a value turned into spaces.
 * Lines count from 1; a value's line is the line of its '['. */
#ifndef ZZ_SGF_SCAN_H
#define ZZ_SGF_SCAN_H

#include <stdbool.h>
#include <stddef.h>

/* Called for each property value: node is the number of ';' seen so far (1 in the root node), id
 * the property name (at most 7 characters), val the value, line its line.  It returns 0 to go on,
 * or non-zero to stop the scan (the reader writes its own message). */
typedef int (*zz_sgf_value_fn)(void *ctx, int node, const char *id, const char *val, int line);

typedef struct {
    bool any;                  /* some property value was seen */
    int line;                  /* the line where the scan stopped */
} zz_sgf_scan_end;

/* Scan text[0..len).  Returns 0; the callback's non-zero return, as it is; or -1 with
 * "line N: reason" in err for a malformed file: no '(' at the start, an unexpected character, a
 * property name too long or without a value, an unterminated value, or a tree not closed at the
 * end of the text.  end (may be NULL) says how far it got, whatever the return. */
int zz_sgf_scan(const char *text, size_t len, zz_sgf_value_fn on_value, void *ctx, zz_sgf_scan_end *end,
                char *err, size_t errlen);

/* A whole file into a new buffer (*buf, *len; free it), at most 64 MiB.  0, or -1 with
 * "PATH: cause" in err (cannot open, read error, too large or out of memory). */
int zz_read_whole_file(const char *path, char **buf, size_t *len, char *err, size_t errlen);

/* An optionally signed decimal number within ±1,000,000 after leading spaces; *s moves past it.
 * 0, or -1 (nothing moved) when there is none. */
int zz_sgf_parse_int(const char **s, int *out);

/* A move property's value (P0, P1, P-1), "[index] Command args": the optional, optionally signed
 * index is skipped, the command word goes into word lower-cased and cut at 15 characters (""
 * when there is none), and the return points just past the word, at its arguments. */
const char *zz_sgf_command(const char *v, char word[16]);

/* The "id" command's arguments, `"name"`: the name without its quotes (and anything after the
 * closing one) into out, cut to n - 1 characters. */
void zz_sgf_player_name(const char *args, char *out, size_t n);

#endif
