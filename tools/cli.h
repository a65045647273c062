/* cli.h — command-line helpers shared by the tools: one wording for bad usage,
 *
 *   zertz: TOOL: OPTION: WHY                 on stderr, exit status 2
 *
 * and option values parsed whole and checked against a range (a value that does not fit, that is
 * not a number or that has trailing characters is refused, never wrapped or clamped).  Each
 * cli_*_opt helper takes the option at argv[*i] and its value at argv[*i + 1]: it stores the value
 * and moves *i past it, or prints the error and returns false (the caller then exits with 2). */
#ifndef ZZ_TOOLS_CLI_H
#define ZZ_TOOLS_CLI_H

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "zertz: TOOL: WHAT: WHY" on stderr; returns 2, the exit status of bad usage. */
static inline int cli_bad(const char *tool, const char *what, const char *why) {
    fprintf(stderr, "zertz: %s: %s: %s\n", tool, what, why);
    return 2;
}

/* An unknown option or an argument out of place. */
static inline int cli_unknown(const char *tool, const char *arg) {
    char why[64];
    snprintf(why, sizeof why, "unknown option (see %s --help)", tool);
    return cli_bad(tool, arg, arg[0] == '-' ? why : "unexpected argument");
}

static inline bool cli_is_help(const char *a) { return !strcmp(a, "-h") || !strcmp(a, "--help"); }

/* A whole number in [lo, hi]. */
static inline bool cli_parse_long(const char *s, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi) return false;
    *out = v;
    return true;
}

/* A whole number in [0, hi], digits only (strtoull would wrap "-1"). */
static inline bool cli_parse_u64(const char *s, uint64_t hi, uint64_t *out) {
    char *end;
    if (!isdigit((unsigned char)*s)) return false;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno || v > hi) return false;
    *out = v;
    return true;
}

/* A finite number in [lo, hi]. */
static inline bool cli_parse_double(const char *s, double lo, double hi, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || v < lo || v > hi) return false;
    *out = v;
    return true;
}

/* The value of the option at argv[*i]: argv[*i + 1], with *i moved to it; NULL after printing
 * "needs a value". */
static inline const char *cli_value(const char *tool, int argc, char **argv, int *i) {
    if (*i + 1 >= argc) { cli_bad(tool, argv[*i], "needs a value"); return NULL; }
    return argv[++*i];
}

static inline bool cli_long_opt(const char *tool, int argc, char **argv, int *i, long lo, long hi, long *out) {
    const char *opt = argv[*i], *v = cli_value(tool, argc, argv, i);
    if (!v) return false;
    if (cli_parse_long(v, lo, hi, out)) return true;
    char why[160];
    snprintf(why, sizeof why, "expected a whole number from %ld to %ld, not '%.60s'", lo, hi, v);
    cli_bad(tool, opt, why);
    return false;
}

static inline bool cli_int_opt(const char *tool, int argc, char **argv, int *i, int lo, int hi, int *out) {
    long v;
    if (!cli_long_opt(tool, argc, argv, i, lo, hi, &v)) return false;
    *out = (int)v;
    return true;
}

static inline bool cli_u64_opt(const char *tool, int argc, char **argv, int *i, uint64_t hi, uint64_t *out) {
    const char *opt = argv[*i], *v = cli_value(tool, argc, argv, i);
    if (!v) return false;
    if (cli_parse_u64(v, hi, out)) return true;
    char why[160];
    snprintf(why, sizeof why, "expected a whole number from 0 to %llu, not '%.60s'", (unsigned long long)hi, v);
    cli_bad(tool, opt, why);
    return false;
}

static inline bool cli_double_opt(const char *tool, int argc, char **argv, int *i, double lo, double hi, double *out) {
    const char *opt = argv[*i], *v = cli_value(tool, argc, argv, i);
    if (!v) return false;
    if (cli_parse_double(v, lo, hi, out)) return true;
    char why[160];
    snprintf(why, sizeof why, "expected a number from %g to %g, not '%.60s'", lo, hi, v);
    cli_bad(tool, opt, why);
    return false;
}

/* --board / --rings: 37, 48 or 61. */
static inline bool cli_rings_opt(const char *tool, int argc, char **argv, int *i, int *rings) {
    const char *opt = argv[*i], *v = cli_value(tool, argc, argv, i);
    if (!v) return false;
    long r;
    if (cli_parse_long(v, 37, 61, &r) && (r == 37 || r == 48 || r == 61)) { *rings = (int)r; return true; }
    char why[120];
    snprintf(why, sizeof why, "expected 37, 48 or 61 rings, not '%.60s'", v);
    cli_bad(tool, opt, why);
    return false;
}

/* The openings options of tools/arena and tools/strength (src/mcts/openings.h): --openings
 * random|archive, and --archive DIR for the archive's folder. */
typedef struct {
    bool archive;              /* --openings archive */
    const char *dir;           /* --archive DIR, or NULL */
} cli_openings;

/* Take --openings or --archive at argv[*i]: 1 taken, 0 neither, -1 a bad value (reported). */
static inline int cli_openings_opt(const char *tool, int argc, char **argv, int *i, cli_openings *o) {
    const char *opt = argv[*i];
    if (strcmp(opt, "--openings") && strcmp(opt, "--archive")) return 0;
    const char *v = cli_value(tool, argc, argv, i);
    if (!v) return -1;
    if (!strcmp(opt, "--archive")) o->dir = v;
    else if (!strcmp(v, "random") || !strcmp(v, "archive")) o->archive = !strcmp(v, "archive");
    else return cli_bad(tool, opt, "expected random or archive"), -1;
    return 1;
}

/* After the options: *dir is the archive's folder (--archive, else default_dir) for archive
 * openings of `plies` turns, NULL for random plies.  0, or 2 after reporting bad usage. */
static inline int cli_openings_check(const char *tool, const cli_openings *o, int plies, const char *default_dir,
                                     const char **dir) {
    *dir = NULL;
    if (o->dir && !o->archive) return cli_bad(tool, "--archive", "only with --openings archive");
    if (!o->archive) return 0;
    if (plies < 1 || plies > 8) return cli_bad(tool, "--opening-plies", "archive openings are 1 to 8 turns");
    *dir = o->dir ? o->dir : default_dir;
    return 0;
}

#endif
