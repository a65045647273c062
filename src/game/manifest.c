/* manifest.c — reading the archive manifest (RFC-4180 CSV with a header row). */
#include "game/atomic_file.h"
#include "manifest.h"
#include "sgf.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_FIELDS = 64 };

/* Split one CSV record (quotes allowed) in place; returns the number of fields. */
static int split_csv(char *line, char **fields) {
    int n = 0;
    char *s = line, *w;
    while (n < MAX_FIELDS) {
        fields[n++] = w = s;
        if (*s == '"') {
            s++;
            for (;;) {
                if (!*s) break;
                if (*s == '"' && s[1] == '"') { *w++ = '"'; s += 2; continue; }
                if (*s == '"') { s++; break; }
                *w++ = *s++;
            }
            while (*s && *s != ',') s++;
        } else {
            while (*s && *s != ',') *w++ = *s++;
        }
        int more = *s == ',';
        if (*s) s++;
        *w = 0;
        if (!more) break;
    }
    return n;
}

static int col_index(char **hdr, int nh, const char *name) {
    for (int i = 0; i < nh; i++)
        if (!strcmp(hdr[i], name)) return i;
    return -1;
}

static void parse_wgb(const char *s, int out[3]) {
    out[0] = out[1] = out[2] = -1;
    sscanf(s, "%d/%d/%d", &out[0], &out[1], &out[2]);
}

static int cmp_row_path(const void *a, const void *b) {
    return strcmp(((const zz_manifest_row *)a)->path, ((const zz_manifest_row *)b)->path);
}

int zz_manifest_load(const char *path, zz_manifest *m, char *err, size_t errlen) {
    memset(m, 0, sizeof *m);
    char why[96];                   /* a device (/dev/zero) would be one endless line */
    if (zz_check_regular_file(path, 256LL << 20, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s: %s", path, why);
        return -1;
    }
    FILE *f = fopen(path, "r");
    if (!f) { snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno)); return -1; }
    static const char *NEED[] = { "path", "rings", "variant", "first_player", "turns", "end", "winner",
                                  "p0_captured_wgb", "p1_captured_wgb", "pool_left_wgb", "clean", "strict",
                                  "flags", "replay_error" };
    enum { NNEED = sizeof NEED / sizeof NEED[0] };
    int col[NNEED];
    int col_rings_left = -1, col_marbles = -1;      /* optional columns */
    char *hdrline = NULL, *line = NULL;
    size_t hcap = 0, lcap = 0;
    char *hdr[MAX_FIELDS], *fld[MAX_FIELDS];
    int rc = -1, cap = 0, lineno = 1;
    if (getline(&hdrline, &hcap, f) < 0) { snprintf(err, errlen, "%s: empty file", path); goto out; }
    hdrline[strcspn(hdrline, "\r\n")] = 0;
    int nh = split_csv(hdrline, hdr);
    for (int i = 0; i < NNEED; i++)
        if ((col[i] = col_index(hdr, nh, NEED[i])) < 0) { snprintf(err, errlen, "%s: no column '%s'", path, NEED[i]); goto out; }
    col_rings_left = col_index(hdr, nh, "rings_left");
    col_marbles = col_index(hdr, nh, "marbles_on_board");
    while (getline(&line, &lcap, f) >= 0) {
        lineno++;
        line[strcspn(line, "\r\n")] = 0;
        if (!*line) continue;
        int nf = split_csv(line, fld);
        if (nf < nh) { snprintf(err, errlen, "%s:%d: %d fields, expected %d", path, lineno, nf, nh); goto out; }
        if (m->n == cap) {
            cap = cap ? cap * 2 : 1024;
            zz_manifest_row *nr = realloc(m->rows, (size_t)cap * sizeof *nr);
            if (!nr) { snprintf(err, errlen, "out of memory"); goto out; }
            m->rows = nr;
        }
        zz_manifest_row *r = &m->rows[m->n++];
        memset(r, 0, sizeof *r);
        snprintf(r->path, sizeof r->path, "%s", fld[col[0]]);
        r->rings = atoi(fld[col[1]]);
        snprintf(r->variant, sizeof r->variant, "%s", fld[col[2]]);
        r->first_player = atoi(fld[col[3]]);
        r->turns = atoi(fld[col[4]]);
        snprintf(r->end, sizeof r->end, "%s", fld[col[5]]);
        r->winner = *fld[col[6]] ? atoi(fld[col[6]]) : -1;
        parse_wgb(fld[col[7]], r->cap[0]);
        parse_wgb(fld[col[8]], r->cap[1]);
        parse_wgb(fld[col[9]], r->pool);
        r->clean = atoi(fld[col[10]]) == 1;
        r->strict = atoi(fld[col[11]]) == 1;
        snprintf(r->flags, sizeof r->flags, "%s", fld[col[12]]);
        snprintf(r->replay_error, sizeof r->replay_error, "%s", fld[col[13]]);
        r->rings_left = col_rings_left >= 0 && *fld[col_rings_left] ? atoi(fld[col_rings_left]) : -1;
        r->marbles_on_board = col_marbles >= 0 && *fld[col_marbles] ? atoi(fld[col_marbles]) : -1;
    }
    qsort(m->rows, (size_t)m->n, sizeof *m->rows, cmp_row_path);
    rc = 0;
out:
    free(hdrline);
    free(line);
    fclose(f);
    if (rc) zz_manifest_free(m);
    return rc;
}

void zz_manifest_free(zz_manifest *m) {
    free(m->rows);
    m->rows = NULL;
    m->n = 0;
}

const zz_manifest_row *zz_manifest_find(const zz_manifest *m, const char *path) {
    /* try every suffix of path that starts after a '/', longest first */
    for (const char *s = path; s; s = strchr(s, '/') ? strchr(s, '/') + 1 : NULL) {
        zz_manifest_row key;
        snprintf(key.path, sizeof key.path, "%s", s);
        const zz_manifest_row *r = bsearch(&key, m->rows, (size_t)m->n, sizeof key, cmp_row_path);
        if (r) return r;
    }
    return NULL;
}

bool zz_manifest_checkable(const zz_manifest_row *r) {
    if (r->clean) return true;
    if (strcmp(r->variant, "Zertz+H") != 0 && strcmp(r->variant, "Zertz+xx") != 0) return false;
    if (r->replay_error[0]) return false;
    static const char *const SETUP[] = { "edit", "op_edit", "op_setboard", "op_r+", "op_swap", "placed_from_own_captures" };
    for (const char *f = r->flags; *f;) {          /* "key=n;key=n..." */
        size_t k = strcspn(f, "=;");
        bool ok = false;
        for (size_t i = 0; i < sizeof SETUP / sizeof *SETUP; i++)
            if (strlen(SETUP[i]) == k && !strncmp(f, SETUP[i], k)) ok = true;
        if (!ok) return false;
        f += strcspn(f, ";");
        if (*f == ';') f++;
    }
    return true;
}

/* Whether the row's flags ("key=n;key=n...") hold key. */
static bool has_flag(const zz_manifest_row *r, const char *key) {
    size_t k = strlen(key);
    for (const char *f = r->flags; *f;) {
        if (strcspn(f, "=;") == k && !strncmp(f, key, k)) return true;
        f += strcspn(f, ";");
        if (*f == ';') f++;
    }
    return false;
}

int zz_manifest_compare(const zz_manifest_row *r, const zz_game *g, char *why, size_t whylen) {
    zz_manifest_counts c;
    memset(&c, 0, sizeof c);
    memcpy(c.cap, g->final.cap, sizeof c.cap);
    memcpy(c.pool, g->final.pool, sizeof c.pool);
    c.end = g->end;
    c.winner = g->winner;
    c.turns = g->nturns + (g->end == ZZ_END_RESIGN);     /* the manifest counts a resignation as a turn */
    c.first_player = g->first_player;
    c.board_rings = zz_board_get(g->board)->rings;
    c.rings_left = zz_popcount(g->final.rings);
    c.marbles_on_board = zz_popcount(zz_marbles(&g->final));
    return zz_manifest_compare_counts(r, &c, why, whylen);
}

int zz_manifest_compare_counts(const zz_manifest_row *r, const zz_manifest_counts *c, char *why, size_t whylen) {
    const uint8_t(*cap)[3] = c->cap;
    const uint8_t *pool = c->pool;
    int end = c->end, winner = c->winner, turns = c->turns, first_player = c->first_player;
    for (int p = 0; p < 2; p++)
        if (cap[p][0] != r->cap[p][0] || cap[p][1] != r->cap[p][1] || cap[p][2] != r->cap[p][2]) {
            snprintf(why, whylen, "P%d captured %d/%d/%d, manifest says %d/%d/%d", p, cap[p][0], cap[p][1], cap[p][2],
                     r->cap[p][0], r->cap[p][1], r->cap[p][2]);
            return -1;
        }
    if (pool[0] != r->pool[0] || pool[1] != r->pool[1] || pool[2] != r->pool[2]) {
        snprintf(why, whylen, "pool %d/%d/%d, manifest says %d/%d/%d", pool[0], pool[1], pool[2], r->pool[0], r->pool[1],
                 r->pool[2]);
        return -1;
    }
    /* One old record (a stale Resign earlier in the game) is labelled "resign" although its last
     * turn completed a winning set for the same winner: a capture win is what the rules see. */
    bool stale_resign = end == ZZ_END_CAPTURE && !strcmp(r->end, "resign") && winner == r->winner;
    if (strcmp(zz_end_name((zz_end)end), r->end) != 0 && !stale_resign) {
        snprintf(why, whylen, "ended by %s, manifest says %s", zz_end_name((zz_end)end), r->end);
        return -1;
    }
    if (winner != r->winner) {
        snprintf(why, whylen, "winner %d, manifest says %d", winner, r->winner);
        return -1;
    }
    if (turns != r->turns) {
        snprintf(why, whylen, "%d turns, manifest says %d", turns, r->turns);
        return -1;
    }
    if (first_player != r->first_player) {
        snprintf(why, whylen, "first player %d, manifest says %d", first_player, r->first_player);
        return -1;
    }
    if (r->rings_left >= 0 && c->rings_left != r->rings_left) {
        snprintf(why, whylen, "%d rings left, manifest says %d", c->rings_left, r->rings_left);
        return -1;
    }
    if (r->marbles_on_board >= 0 && c->marbles_on_board != r->marbles_on_board) {
        snprintf(why, whylen, "%d marbles on the board, manifest says %d", c->marbles_on_board, r->marbles_on_board);
        return -1;
    }
    if (r->rings && c->board_rings && c->board_rings != r->rings) {
        /* The manifest's board is the SU tag's (Zertz+H: 48); a record whose set-up changes the
         * board (SetBoard) is played on another, which its moves prove (test_parity) */
        bool setboard = has_flag(r, "op_setboard");
        snprintf(why, whylen, "manifest says %d rings; the record is a %d-ring game%s", r->rings, c->board_rings,
                 setboard ? " (SetBoard)" : "");
        return setboard ? 1 : -1;
    }
    return 0;
}
