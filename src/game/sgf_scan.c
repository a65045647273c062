/* sgf_scan.c — the SGF tokenizer and file reading shared by the record readers (sgf_scan.h). */
#include "sgf_scan.h"
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *p, *end;
    int line;
    char *err;
    size_t errlen;
} lexer;

static int lex_fail(lexer *lx, int line, const char *fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(lx->err, lx->errlen, "line %d: %s", line, msg);
    return -1;
}

static void skip_ws(lexer *lx) {
    while (lx->p < lx->end && isspace((unsigned char)*lx->p)) {
        if (*lx->p == '\n') lx->line++;
        lx->p++;
    }
}

/* A property name into id[8]; 0, or -1 when it is longer than 7 characters. */
static int scan_id(lexer *lx, char id[8]) {
    int n = 0;
    while (lx->p < lx->end && (isalnum((unsigned char)*lx->p) || *lx->p == '-')) {
        if (n == 7) return lex_fail(lx, lx->line, "property name too long");
        id[n++] = *lx->p++;
    }
    id[n] = 0;
    return 0;
}

/* One "[...]" value into val (room for the rest of the text); 0, or -1 when it is not closed. */
static int scan_value(lexer *lx, const char *id, char *val, int *vline) {
    size_t k = 0;
    *vline = lx->line;
    lx->p++;                                   /* the '[' */
    while (lx->p < lx->end && *lx->p != ']') {
        if (*lx->p == '\\' && lx->p + 1 < lx->end) lx->p++;
        if (*lx->p == '\n') lx->line++;
        val[k++] = isspace((unsigned char)*lx->p) ? ' ' : *lx->p;
        lx->p++;
    }
    if (lx->p >= lx->end) return lex_fail(lx, *vline, "unterminated value of property %s", id);
    lx->p++;
    val[k] = 0;
    return 0;
}

/* The property at lx->p (its name, then one or more values), each value to on_value. */
static int scan_property(lexer *lx, int node, char *val, zz_sgf_value_fn on_value, void *ctx, bool *any) {
    char id[8];
    if (scan_id(lx, id)) return -1;
    skip_ws(lx);
    if (lx->p >= lx->end || *lx->p != '[') return lex_fail(lx, lx->line, "property %s without a value", id);
    while (lx->p < lx->end && *lx->p == '[') {
        int vline, rc;
        if (scan_value(lx, id, val, &vline)) return -1;
        *any = true;
        if ((rc = on_value(ctx, node, id, val, vline)) != 0) return rc;
        skip_ws(lx);
    }
    return 0;
}

int zz_sgf_scan(const char *text, size_t len, zz_sgf_value_fn on_value, void *ctx, zz_sgf_scan_end *end,
                char *err, size_t errlen) {
    lexer lx = { text, text + len, 1, err, errlen };
    int rc = 0, depth = 0, node = 0;
    bool any = false;
    char *val = NULL;
    skip_ws(&lx);
    if (lx.p >= lx.end || *lx.p != '(') rc = lex_fail(&lx, lx.line, "not an SGF file (no '(' at the start)");
    else if (!(val = malloc(len + 1))) rc = lex_fail(&lx, lx.line, "out of memory");
    while (rc == 0) {
        skip_ws(&lx);
        if (lx.p >= lx.end) {
            if (depth > 0) rc = lex_fail(&lx, lx.line, "truncated file: the game tree is not closed");
            break;
        }
        char ch = *lx.p;
        if (ch == '(') { depth++; lx.p++; if (depth > 1 && any) break; continue; }   /* first tree only */
        if (ch == ')') { depth--; lx.p++; if (depth <= 0) break; continue; }
        if (ch == ';') { node++; lx.p++; continue; }
        if (!isupper((unsigned char)ch)) rc = lex_fail(&lx, lx.line, "unexpected character 0x%02x", (unsigned char)ch);
        else rc = scan_property(&lx, node, val, on_value, ctx, &any);
    }
    free(val);
    if (end) *end = (zz_sgf_scan_end){ any, lx.line };
    return rc;
}

int zz_read_whole_file(const char *path, char **buf_out, size_t *len_out, char *err, size_t errlen) {
    *buf_out = NULL;
    *len_out = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap) break;
        char *grown = cap < (64u << 20) ? realloc(buf, cap *= 2) : NULL;
        if (!grown) free(buf);
        buf = grown;
    }
    bool read_error = ferror(f);
    int cause = errno;
    fclose(f);
    if (!buf || read_error) {
        free(buf);
        snprintf(err, errlen, "%s: %s%s", path, read_error ? "read error: " : "file too large (over 64 MiB) or out of memory",
                 read_error ? strerror(cause) : "");
        return -1;
    }
    *buf_out = buf;
    *len_out = len;
    return 0;
}

int zz_sgf_parse_int(const char **s, int *out) {
    const char *p = *s;
    while (*p == ' ') p++;
    if (!isdigit((unsigned char)*p) && !(*p == '-' && isdigit((unsigned char)p[1]))) return -1;
    char *end;
    long v = strtol(p, &end, 10);
    if (v < -1000000 || v > 1000000) return -1;
    *s = end;
    *out = (int)v;
    return 0;
}

const char *zz_sgf_command(const char *v, char word[16]) {
    const char *s = v;
    int idx;
    while (*s == ' ') s++;
    zz_sgf_parse_int(&s, &idx);                 /* the index, when there is one */
    while (*s == ' ') s++;
    int n = 0;
    while (s[n] && s[n] != ' ' && n < 15) { word[n] = (char)tolower((unsigned char)s[n]); n++; }
    word[n] = 0;
    return s + n;
}

void zz_sgf_player_name(const char *args, char *out, size_t n) {
    while (*args == ' ' || *args == '"') args++;
    snprintf(out, n, "%s", args);
    char *q = strchr(out, '"');
    if (q) *q = 0;
}
