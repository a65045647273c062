/* input.c — games from SGF files, notation files and notation text (see input.h). */
#include "render/input.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { MAX_FILE = 64 << 20 };

typedef struct { char **v; int n, cap; } strvec;

static int push(strvec *s, const char *a, size_t alen, const char *b) {
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 32;
        char **v = realloc(s->v, (size_t)cap * sizeof *v);
        if (!v) return -1;
        s->v = v;
        s->cap = cap;
    }
    size_t bl = b ? strlen(b) : 0;
    char *t = malloc(alen + bl + 1);
    if (!t) return -1;
    memcpy(t, a, alen);
    if (bl) memcpy(t + alen, b, bl);
    t[alen + bl] = 0;
    s->v[s->n++] = t;
    return 0;
}

/* Replace s->v[i] with s->v[i] + mid + tail. */
static int append(strvec *s, int i, const char *mid, const char *tail) {
    size_t a = strlen(s->v[i]), m = strlen(mid), t = strlen(tail);
    char *r = realloc(s->v[i], a + m + t + 1);
    if (!r) return -1;
    memcpy(r + a, mid, m);
    memcpy(r + a + m, tail, t + 1);
    s->v[i] = r;
    return 0;
}

static bool is_colour(char c) { c = (char)toupper((unsigned char)c); return c == 'W' || c == 'G' || c == 'B'; }
static bool looks_cell(const char *s) { return isalpha((unsigned char)s[0]) && isdigit((unsigned char)s[1]); }
static bool looks_colour_cell(const char *s) { return is_colour(s[0]) && looks_cell(s + 1); }
static bool is_move_number(const char *s) {
    if (!isdigit((unsigned char)*s)) return false;
    while (isdigit((unsigned char)*s)) s++;
    while (*s == '.' || *s == ')' || *s == ':') s++;
    return *s == 0;
}

void rd_free_turns(char **turns, int n) {
    for (int i = 0; i < n; i++) free(turns[i]);
    free(turns);
}

/* Tokens of one segment (text between line breaks and ';'), with "Wd4," + "d1" joined. */
static int segment_tokens(const char *seg, size_t len, strvec *tok) {
    size_t i = 0;
    while (i < len) {
        while (i < len && isspace((unsigned char)seg[i])) i++;
        if (i >= len) break;
        size_t j = i;
        while (j < len && !isspace((unsigned char)seg[j])) j++;
        bool join = tok->n > 0 && (seg[i] == ',' || tok->v[tok->n - 1][strlen(tok->v[tok->n - 1]) - 1] == ',');
        if (join) {
            char buf[256];
            size_t n = j - i < sizeof buf - 1 ? j - i : sizeof buf - 1;
            memcpy(buf, seg + i, n);
            buf[n] = 0;
            if (append(tok, tok->n - 1, "", buf)) return -1;
        } else if (push(tok, seg + i, j - i, NULL)) {
            return -1;
        }
        i = j;
    }
    return 0;
}

/* Group one segment's tokens into turns appended to out. */
static int group_segment(strvec *tok, strvec *out, char *err, size_t errlen) {
    int open_place = -1;          /* index in out of a placement that may still take " x Wa1..." */
    for (int i = 0; i < tok->n; i++) {
        const char *t = tok->v[i];
        if (is_move_number(t)) continue;
        if (isdigit((unsigned char)*t)) {                     /* "12.Wd4,d1": a glued move number */
            const char *q = t;
            while (isdigit((unsigned char)*q)) q++;
            if (*q == '.' || *q == ')') t = q + 1;
        }
        if ((t[0] == 'x' || t[0] == 'X') && (t[1] == 0 || looks_cell(t + 1) || looks_colour_cell(t + 1))) {
            const char *rest = t + 1;
            if (!*rest) {
                if (i + 1 >= tok->n) { snprintf(err, errlen, "'x' with nothing after it"); return -1; }
                rest = tok->v[++i];
            }
            if (looks_colour_cell(rest)) {
                if (open_place < 0) {
                    snprintf(err, errlen, "'x %.60s': an isolation capture must follow a placement", rest);
                    return -1;
                }
                if (append(out, open_place, " x ", rest)) goto oom;
                open_place = -1;
            } else if (looks_cell(rest)) {
                if (push(out, "x ", 2, rest)) goto oom;
                open_place = -1;
            } else {
                snprintf(err, errlen, "cannot read 'x %.60s' (expected a capture such as x d1Gd3)", rest);
                return -1;
            }
        } else if (looks_colour_cell(t)) {
            if (push(out, t, strlen(t), NULL)) goto oom;
            open_place = out->n - 1;
        } else {
            snprintf(err, errlen, "cannot read '%.60s' (expected a turn such as Wd4,d1 or x d1Gd3)", t);
            return -1;
        }
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

int rd_split_turns(const char *text, char ***turns, char *err, size_t errlen) {
    strvec out = { 0 }, tok = { 0 };
    *turns = NULL;
    const char *s = text;
    int rc = 0;
    while (*s && rc == 0) {
        size_t len = strcspn(s, "\n\r;#");
        tok.n = 0;
        if (segment_tokens(s, len, &tok)) { snprintf(err, errlen, "out of memory"); rc = -1; }
        else rc = group_segment(&tok, &out, err, errlen);
        for (int i = 0; i < tok.n; i++) free(tok.v[i]);
        tok.n = 0;
        s += len;
        if (*s == '#') s += strcspn(s, "\n\r");
        if (*s) s++;
    }
    free(tok.v);
    if (rc) { rd_free_turns(out.v, out.n); return -1; }
    *turns = out.v;
    return out.n;
}

/* A chain written jump by jump ("x a1c1", "x c1e1", ...): turns[i] and the "x <from><to>..."
 * turns after it joined one at a time (each later one without its start cell) until the joined
 * text reads as a turn from pos; at most ZZ_MAX_CHAIN jumps, so the work stays linear in the
 * input.  The turn's decision count (moves filled) and *used the last turn joined; -1 when no
 * join reads. */
static int join_jumps(const zz_pos *pos, char **turns, int i, int n, zz_move *moves, int *used) {
    int last = i;
    size_t cap = strlen(turns[i]) + 1;
    for (int j = i + 1; j < n && j - i < ZZ_MAX_CHAIN && turns[j][0] == 'x'; j++) { cap += strlen(turns[j]); last = j; }
    char *joined = malloc(cap), why[256];
    if (!joined) return -1;
    size_t len = strlen(turns[i]);
    memcpy(joined, turns[i], len + 1);
    int k = -1;
    for (int j = i + 1; j <= last && k < 0; j++) {
        const char *r = turns[j] + 1;
        while (*r == ' ') r++;
        while (isalpha((unsigned char)*r)) r++;          /* skip the start cell */
        while (isdigit((unsigned char)*r)) r++;
        size_t rl = strlen(r);
        memcpy(joined + len, r, rl + 1);
        len += rl;
        k = zz_turn_from_text(pos, joined, moves, NULL, why, sizeof why);
        if (k >= 0) *used = j;
    }
    free(joined);
    return k;
}

/* Replay the turns on a board; returns the number of turns that went in (n when all did). */
static int replay(char **turns, int n, zz_board_kind kind, zz_game *g, char *err, size_t errlen) {
    zz_game_init(g, kind);
    zz_move moves[ZZ_MAX_CHAIN];
    char why[256];
    for (int i = 0; i < n; i++) {
        int k = zz_turn_from_text(&g->final, turns[i], moves, NULL, why, sizeof why);
        int used = i;
        if (k < 0 && turns[i][0] == 'x') {
            int kj = join_jumps(&g->final, turns, i, n, moves, &used);
            if (kj >= 0) k = kj;
        }
        if (k < 0 || zz_game_add_turn(g, moves, k, why, sizeof why) != 0) {
            snprintf(err, errlen, "turn %d: %s", g->nturns + 1, why);
            return g->nturns;
        }
        i = used;
    }
    return -1;
}

int rd_load_notation(const char *text, int rings, zz_game *g, char *err, size_t errlen) {
    char **turns;
    int n = rd_split_turns(text, &turns, err, errlen);
    if (n < 0) { zz_game_init(g, ZZ_B37); return -1; }
    int rc = 0;
    if (rings) {
        const zz_board *b = zz_board_for_rings(rings);
        if (!b) {
            snprintf(err, errlen, "%d rings: the boards have 37, 48 or 61 rings", rings);
            zz_game_init(g, ZZ_B37);
            rc = -1;
        } else if (replay(turns, n, b->kind, g, err, errlen) >= 0) {
            rc = -1;
        }
    } else {
        int best = -1, best_done = -1;
        rc = -1;
        for (int k = 0; k < ZZ_NBOARDS; k++) {
            int done = replay(turns, n, (zz_board_kind)k, g, err, errlen);
            if (done < 0) { rc = 0; break; }
            if (done > best_done) { best_done = done; best = k; }
            zz_game_free(g);
        }
        if (rc != 0) replay(turns, n, (zz_board_kind)best, g, err, errlen);   /* that board's error */
    }
    rd_free_turns(turns, n);
    return rc;
}

/* The whole file as a NUL-terminated string, or NULL with a message. */
static char *read_all(const char *path, size_t *len, char *err, size_t errlen) {
    struct stat st;
    if (stat(path, &st) != 0) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); return NULL; }
    if (S_ISDIR(st.st_mode)) { snprintf(err, errlen, "%s: is a directory", path); return NULL; }
    FILE *f = fopen(path, "rb");
    if (!f) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); return NULL; }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            if (cap >= MAX_FILE) { snprintf(err, errlen, "%s: too large for a game record", path); free(buf); fclose(f); return NULL; }
            char *b = realloc(buf, cap * 2);
            if (!b) { free(buf); buf = NULL; break; }
            buf = b;
            cap *= 2;
        }
        size_t k = fread(buf + n, 1, cap - 1 - n, f);
        n += k;
        if (k == 0) break;
    }
    if (!buf) { snprintf(err, errlen, "%s: out of memory", path); fclose(f); return NULL; }
    if (ferror(f)) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); free(buf); fclose(f); return NULL; }
    fclose(f);
    buf[n] = 0;
    if (memchr(buf, 0, n)) { snprintf(err, errlen, "%s: a binary file, not a game record", path); free(buf); return NULL; }
    *len = n;
    return buf;
}

int rd_load_file(const char *path, int rings, zz_game *g, char *err, size_t errlen) {
    size_t len;
    char *text = read_all(path, &len, err, errlen);
    if (!text) { zz_game_init(g, ZZ_B37); return -1; }
    const char *s = text;
    if (len >= 3 && (unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB && (unsigned char)s[2] == 0xBF) s += 3;
    while (isspace((unsigned char)*s)) s++;
    int rc;
    if (*s == '(') {
        rc = zz_sgf_read_file(path, g, err, errlen);       /* its messages start with the path */
    } else {
        char why[400];
        rc = rd_load_notation(s, rings, g, why, sizeof why);
        if (rc != 0) snprintf(err, errlen, "%s: %s", path, why);
    }
    free(text);
    return rc;
}

int rd_parse_range(const char *s, int nturns, int *first, int *last, char *err, size_t errlen) {
    char *end;
    long a = 1, b = nturns;
    const char *dash = strchr(s, '-');
    if (!*s) { snprintf(err, errlen, "empty turn range"); return -1; }
    errno = 0;
    if (!dash) {
        a = b = strtol(s, &end, 10);
        if (end == s || *end) goto bad;
    } else {
        if (dash != s) { a = strtol(s, &end, 10); if (end != dash) goto bad; }
        if (dash[1]) { b = strtol(dash + 1, &end, 10); if (*end) goto bad; }
    }
    if (errno || a < 0 || b < a || b > nturns) {
        snprintf(err, errlen, "turn range '%s' is outside the game's turns 0-%d", s, nturns);
        return -1;
    }
    *first = (int)a;
    *last = (int)b;
    return 0;
bad:
    snprintf(err, errlen, "bad turn range '%s' (expected N, A-B, A- or -B)", s);
    return -1;
}
