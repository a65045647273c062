/* openings.c — random openings, and openings from the Boardspace archive (openings.h). */
#include "openings.h"
#include "game/notation.h"
#include "rand.h"
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mcts_opening_cmp(const void *a, const void *b) {
    const mcts_opening *x = a, *y = b;
    if (x->n != y->n) return x->n < y->n ? -1 : 1;
    for (int i = 0; i < x->n; i++)
        if (x->moves[i] != y->moves[i]) return x->moves[i] < y->moves[i] ? -1 : 1;
    return 0;
}

int mcts_openings_random(zz_board_kind board, int plies, int n, uint64_t seed, mcts_opening *out) {
    if (plies > MCTS_OPENING_MAX) plies = MCTS_OPENING_MAX;
    uint64_t rng = mcts_seed(seed ^ 0x6F70656E696E6773ULL);
    int have = 0;
    for (int tries = 0; have < n && tries < 50 * n + 100; tries++) {
        mcts_opening o;
        memset(&o, 0, sizeof o);
        zz_pos p;
        zz_pos_init(&p, board);
        while (o.n < plies && !zz_over(&p)) {
            zz_move m = zz_random_move(&p, &rng);
            o.moves[o.n++] = m;
            zz_apply(&p, m, NULL);
        }
        if (zz_over(&p)) continue;
        int dup = 0;
        for (int k = 0; k < have && !dup; k++) dup = !mcts_opening_cmp(&out[k], &o);
        if (!dup) out[have++] = o;
    }
    return have;
}

const char *mcts_archive_dir(void) {
    const char *d = getenv("ZZ_BOARDSPACE_DIR");
    return d && *d ? d : "../shared/boardspace";
}

/* A growing list of openings. */
typedef struct {
    mcts_opening *v;
    int n, cap;
} opening_list;

static int list_push(opening_list *l, const mcts_opening *o) {
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 1024;
        mcts_opening *v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v) return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = *o;
    return 0;
}

/* One line of the archive's jsonl: 1 with *o filled when the game is clean, on board, longer than
 * `turns` turns and not over after them (its first turns within MCTS_OPENING_MAX moves); 0 when it
 * is skipped; -1 with a message when the line is not a game object or a turn does not parse. */
static int opening_of_line(const char *line, zz_board_kind board, int turns, mcts_opening *o,
                           char *err, size_t errlen) {
    cJSON *g = cJSON_Parse(line);
    const cJSON *clean = cJSON_GetObjectItemCaseSensitive(g, "clean");
    const cJSON *moves = cJSON_GetObjectItemCaseSensitive(g, "moves");
    if (!cJSON_IsObject(g) || !cJSON_IsArray(moves)) {
        snprintf(err, errlen, "not a game object with a \"moves\" array");
        cJSON_Delete(g);
        return -1;
    }
    int keep = cJSON_IsNumber(clean) && clean->valueint == 1 && cJSON_GetArraySize(moves) > turns;
    zz_pos p;
    zz_pos_init(&p, board);
    memset(o, 0, sizeof *o);
    for (int t = 0; keep && t < turns; t++) {
        const cJSON *text = cJSON_GetArrayItem(cJSON_GetArrayItem(moves, t), 1);
        zz_move m[ZZ_MAX_CHAIN];
        char why[256];
        int k = cJSON_IsString(text) ? zz_turn_from_text(&p, text->valuestring, m, &p, why, sizeof why) : -1;
        if (k < 0) {
            snprintf(err, errlen, "turn %d: %s", t + 1, cJSON_IsString(text) ? why : "not [player, \"notation\"]");
            cJSON_Delete(g);
            return -1;
        }
        if (o->n + k > MCTS_OPENING_MAX) keep = 0;
        for (int i = 0; keep && i < k; i++) o->moves[o->n++] = m[i];
    }
    cJSON_Delete(g);
    return keep && !zz_over(&p);
}

/* Every distinct opening of the file, sorted; -1 with a message naming the file and line. */
static int read_openings(const char *path, zz_board_kind board, int turns, opening_list *l,
                         char *err, size_t errlen) {
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open (the Boardspace archive's games in notation; "
                 "set ZZ_BOARDSPACE_DIR to the archive's folder)", path);
        return -1;
    }
    char *line = NULL, why[320];
    size_t cap = 0;
    int lineno = 0, rc = 0;
    while (rc == 0 && getline(&line, &cap, f) >= 0) {
        lineno++;
        if (line[strspn(line, " \t\r\n")] == '\0') continue;
        mcts_opening o;
        int got = opening_of_line(line, board, turns, &o, why, sizeof why);
        if (got < 0) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
            rc = -1;
        } else if (got && list_push(l, &o)) {
            snprintf(err, errlen, "%s: out of memory", path);
            rc = -1;
        }
    }
    free(line);
    fclose(f);
    if (rc) return -1;
    if (l->n) qsort(l->v, (size_t)l->n, sizeof *l->v, mcts_opening_cmp);
    int k = 0;
    for (int i = 0; i < l->n; i++)
        if (k == 0 || mcts_opening_cmp(&l->v[k - 1], &l->v[i])) l->v[k++] = l->v[i];
    l->n = k;
    return 0;
}

int mcts_openings_archive(const char *dir, zz_board_kind board, int turns, int n, uint64_t seed,
                          mcts_opening *out, char *err, size_t errlen) {
    if (turns < 1 || turns > 8 || n < 0) {
        snprintf(err, errlen, "archive openings: turns must be 1 to 8 (got %d)", turns);
        return -1;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/normalized/%d.jsonl", dir, zz_board_get(board)->rings);
    opening_list l = { 0 };
    if (read_openings(path, board, turns, &l, err, errlen)) {
        free(l.v);
        return -1;
    }
    uint64_t rng = mcts_seed(seed ^ 0x6172636869766573ULL);
    for (int i = l.n - 1; i > 0; i--) {          /* Fisher-Yates */
        int j = (int)(mcts_rand_unit(&rng) * (i + 1));
        if (j > i) j = i;
        mcts_opening t = l.v[i];
        l.v[i] = l.v[j];
        l.v[j] = t;
    }
    int have = l.n < n ? l.n : n;
    if (have) memcpy(out, l.v, (size_t)have * sizeof *out);
    free(l.v);
    return have;
}

int mcts_openings_make(const char *archive_dir, zz_board_kind board, int k, int n, uint64_t seed,
                       mcts_opening *out, char *err, size_t errlen) {
    if (!archive_dir) return mcts_openings_random(board, k, n, seed, out);
    return mcts_openings_archive(archive_dir, board, k, n, seed, out, err, errlen);
}
