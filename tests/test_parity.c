/* test_parity.c — Boardspace parity on the real archive (../shared/boardspace, or
 * $ZZ_BOARDSPACE_DIR):
 *   - every clean game replays from its SGF with the manifest's final captures, pool, rings and
 *     marbles left, board, winner, end and number of turns, on all three boards, and writes back
 *     (zz_sgf_write) as SGF that reads back to the same game (a game resigned or won on time in
 *     the middle of a turn: the same final position, that part of the turn included);
 *   - every turn of every clean game (from normalized/NN.jsonl, independently of the SGF state
 *     machine) is in our legal-move list, reads and writes back to the same notation, and equals
 *     the SGF replay's turn; at every position our generator's move set equals the set of a
 *     naive reference generator written here from Boardspace's own coordinates and rules;
 *   - every Zertz+H game (handicap set-up in Edit mode, sgf/48-handicap) replays from its SGF
 *     with the manifest's captures, pool, rings and marbles left, winner, end, turns and first
 *     player, and board but for the record that SetBoards 37 rings (the manifest says 48: a
 *     known difference, proved from its moves, that tools/replay --check reports), writes back as SGF
 *     (zz_sgf_write) that reads back to the same start, turns and final position; every turn of it
 *     equals normalized/48-handicap.jsonl's notation (except where that file folded set-up ring
 *     removals into the first turn, e.g. "Wc4,h1,h2,h3,h4,b6": a text with two commas);
 *   - every Zertz+xx (Extreme) game (sgf/xx-custom) replays with its own array engine (game/xx.h)
 *     to the manifest's counts, writes back as SGF that replays to the same game, and every turn
 *     equals normalized/xx-custom.jsonl's notation (the
 *     set-up and swap turns, written "?SETRING" / "?SWAP_CONFIRM" there, are counted only);
 *   - games not clean either replay or fail with a message naming the line; none crashes.
 * Without the archive the suite says loudly that it was skipped, and why. */
#include "game/manifest.h"
#include "game/sgf.h"
#include "game/xx.h"
#include "helpers.h"
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const char *dir;
static zz_manifest man;

/* ---- a naive reference generator in Boardspace's (column, y) coordinates ------------------- */
typedef struct {
    int ncols, n_in_col[9], first[9];
} ref_geom;
static const ref_geom REF[3] = {
    { 7, { 4, 5, 6, 7, 6, 5, 4 }, { 3, 2, 1, 0, 1, 2, 3 } },
    { 8, { 5, 6, 7, 8, 7, 6, 5, 4 }, { 3, 2, 1, 0, 1, 2, 3, 4 } },
    { 9, { 5, 6, 7, 8, 9, 8, 7, 6, 5 }, { 4, 3, 2, 1, 0, 1, 2, 3, 4 } },
};
static const int DX[6] = { -1, -1, 0, 1, 1, 0 }, DY[6] = { -1, 1, 2, 1, -1, -2 };

typedef struct {
    int n;
    int cell[61];              /* our cell number of each reference cell (for output only) */
    int nb[61][6];             /* neighbour index per Boardspace direction, -1 when off the board */
} ref_board;
static ref_board RB[3];

static void ref_init(void) {
    for (int k = 0; k < 3; k++) {
        const ref_geom *g = &REF[k];
        const zz_board *b = zz_board_get((zz_board_kind)k);
        int at[9][20], n = 0;
        memset(at, -1, sizeof at);
        for (int c = 0; c < g->ncols; c++)
            for (int r = 1; r <= g->n_in_col[c]; r++) {
                at[c][g->first[c] + 2 * (r - 1)] = n;
                RB[k].cell[n++] = zz_cell_from_colrow(b, (char)('A' + c), r);
            }
        RB[k].n = n;
        for (int c = 0; c < g->ncols; c++)
            for (int r = 1; r <= g->n_in_col[c]; r++) {
                int y = g->first[c] + 2 * (r - 1), i = at[c][y];
                for (int d = 0; d < 6; d++) {
                    int x2 = c + DX[d], y2 = y + DY[d];
                    RB[k].nb[i][d] = (x2 >= 0 && x2 < g->ncols && y2 >= 0 && y2 < 20) ? at[x2][y2] : -1;
                }
            }
    }
}

/* The reference's legal moves at p, written to out; returns the count. */
static int ref_moves(const zz_pos *p, zz_move *out) {
    const ref_board *rb = &RB[p->board];
    int ring[61], ball[61], n = 0;   /* ball: -1 none, else colour */
    for (int i = 0; i < rb->n; i++) {
        ring[i] = zz_has(p->rings, rb->cell[i]);
        ball[i] = ring[i] ? zz_colour_at(p, rb->cell[i]) : -1;
    }
#define RING(j) ((j) >= 0 && ring[j])
#define MARK(m) (out[n++] = (m))
    for (int i = 0; i < rb->n; i++) {           /* captures: over a neighbour onto a vacant ring */
        if (ball[i] < 0 || (p->chain != ZZ_NO_CELL && rb->cell[i] != p->chain)) continue;
        for (int d = 0; d < 6; d++) {
            int mid = rb->nb[i][d], to = mid >= 0 ? rb->nb[mid][d] : -1;
            if (mid >= 0 && ball[mid] >= 0 && RING(to) && ball[to] < 0) MARK(zz_move_jump(rb->cell[i], rb->cell[to]));
        }
    }
    if (n || p->chain != ZZ_NO_CELL) return n;
    bool pool_any = p->pool[0] || p->pool[1] || p->pool[2];
    const uint8_t *src = pool_any ? p->pool : p->cap[p->to_move];
    int freeset[61], nf = 0;
    for (int i = 0; i < rb->n; i++) {           /* vacant, with two neighbouring directions ring-less */
        if (!ring[i] || ball[i] >= 0) continue;
        for (int d = 0; d < 6; d++)
            if (!RING(rb->nb[i][d]) && !RING(rb->nb[i][(d + 1) % 6])) { freeset[nf++] = i; break; }
    }
    for (int c = 0; c < 3; c++) {
        if (!src[c]) continue;
        for (int i = 0; i < rb->n; i++) {
            if (!ring[i] || ball[i] >= 0) continue;
            int any = 0;
            for (int f = 0; f < nf; f++)
                if (freeset[f] != i) { MARK(zz_move_place(c, rb->cell[i], rb->cell[freeset[f]])); any = 1; }
            if (!any) MARK(zz_move_place(c, rb->cell[i], ZZ_NO_CELL));
        }
    }
    return n;
#undef RING
#undef MARK
}

/* ---- normalized/NN.jsonl reading ------------------------------------------------------------- */
static bool json_int(const char *line, const char *key, int *out) {
    const char *s = strstr(line, key);
    if (!s) return false;
    s += strlen(key);
    while (*s == '"' || *s == ':' || *s == ' ') s++;
    *out = atoi(s);
    return true;
}

static bool json_str(const char *line, const char *key, char *out, size_t n) {
    const char *s = strstr(line, key);
    if (!s) return false;
    s += strlen(key);
    while (*s == ':' || *s == ' ') s++;
    if (*s++ != '"') return false;
    size_t k = 0;
    while (*s && *s != '"' && k + 1 < n) out[k++] = *s++;
    out[k] = 0;
    return true;
}

/* The next move of a normalized .jsonl line's "moves" array ([player, "text"] pairs), passing over
 * "resign" and "wintime"; *cur starts NULL.  false after the last move (or with no array). */
static bool next_notation_move(const char *line, const char **cur, int *player, char *text, size_t n) {
    if (!*cur) {
        if (!(*cur = strstr(line, "\"moves\":["))) return false;
        *cur += 9;
    }
    for (const char *s; (s = strchr(*cur, '[')) != NULL;) {
        const char *q = strchr(s, '"'), *e = q ? strchr(q + 1, '"') : NULL;
        if (!e) return false;
        *player = atoi(s + 1);
        snprintf(text, n, "%.*s", (int)(e - q - 1), q + 1);
        *cur = e + 1;
        if (strcmp(text, "resign") && strcmp(text, "wintime")) return true;
    }
    return false;
}

/* ---- tests ---------------------------------------------------------------------------------- */
/* g (read from the archive file named path) written as SGF and read back is the same game: board,
 * variant, first player, start, turns, final position (that of a game resigned or lost on time in
 * the middle of a turn included) and result. */
static void check_written_copy(const char *path, const zz_game *g) {
    char *buf = NULL, err[512];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    TH_CHECK(f && zz_sgf_write(f, g) == 0, "%s: write", path);
    fclose(f);
    zz_game h;
    TH_CHECK(zz_sgf_parse(buf, len, &h, err, sizeof err) == 0, "%s: written copy: %s", path, err);
    TH_CHECK(h.board == g->board && !strcmp(h.variant, g->variant) && h.first_player == g->first_player,
             "%s: written copy's board, variant or first player", path);
    TH_CHECK(zz_pos_equal(&h.start, &g->start), "%s: written copy's start position", path);
    TH_CHECK(h.nturns == g->nturns, "%s: written copy has %d turns, the record %d", path, h.nturns, g->nturns);
    for (int t = 0; t < g->nturns; t++)
        TH_CHECK(h.turns[t].player == g->turns[t].player && !strcmp(h.turns[t].text, g->turns[t].text),
                 "%s: written copy's turn %d: P%d %s, the record P%d %s", path, t + 1, h.turns[t].player, h.turns[t].text,
                 g->turns[t].player, g->turns[t].text);
    TH_CHECK(zz_pos_equal(&h.final, &g->final) && h.winner == g->winner && h.end == g->end,
             "%s: written copy's final position or result", path);
    zz_game_free(&h);
    free(buf);
}

static void check_clean_sgf(int rings) {
    if (!dir) return;
    int checked = 0;
    char err[512], why[256], path[1024];
    for (int i = 0; i < man.n; i++) {
        const zz_manifest_row *r = &man.rows[i];
        if (!r->clean || r->rings != rings) continue;
        snprintf(path, sizeof path, "%s/%s", dir, r->path);
        zz_game g;
        int rc = zz_sgf_read_file(path, &g, err, sizeof err);
        TH_CHECK(rc == 0, "%s", err);
        TH_CHECK(zz_manifest_compare(r, &g, why, sizeof why) == 0, "%s: %s", r->path, why);
        check_written_copy(r->path, &g);
        zz_game_free(&g);
        checked++;
    }
    printf("parity: %d clean %d-ring games replayed from SGF, all equal to the manifest and written back as SGF "
           "that reads to the same game\n", checked, rings);
    ck_assert_int_gt(checked, 100);
}

START_TEST(clean_games_37) { check_clean_sgf(37); }
END_TEST
START_TEST(clean_games_48) { check_clean_sgf(48); }
END_TEST
START_TEST(clean_games_61) { check_clean_sgf(61); }
END_TEST

START_TEST(every_turn_is_generated) {
    if (!dir) return;
    ref_init();
    static zz_move list[ZZ_MAX_MOVES];
    static zz_move ref[ZZ_MAX_MOVES];
    static uint8_t mark[1 << 15];   /* bitmap over packed moves (18 bits) */
    const char *files[] = { "37", "48", "61" };
    long turns = 0, positions = 0;
    int games = 0;
    char path[1024], err[512];
    for (int f = 0; f < 3; f++) {
        snprintf(path, sizeof path, "%s/normalized/%s.jsonl", dir, files[f]);
        FILE *in = fopen(path, "r");
        TH_CHECK(in != NULL, "cannot open %s", path);
        char *line = NULL;
        size_t cap = 0;
        while (getline(&line, &cap, in) > 0) {
            int clean = 0, first = 0;
            char gpath[256];
            if (!json_int(line, "\"clean\"", &clean) || !clean) continue;
            TH_CHECK(json_int(line, "\"first_player\"", &first) && json_str(line, "\"path\"", gpath, sizeof gpath), "bad line in %s", path);
            /* the SGF replay of the same game, for turn-by-turn comparison */
            char sgf[1024];
            snprintf(sgf, sizeof sgf, "%s/%s", dir, gpath);
            zz_game g;
            TH_CHECK(zz_sgf_read_file(sgf, &g, err, sizeof err) == 0, "%s", err);
            zz_pos p = g.start;
            TH_CHECK(p.to_move == first, "%s: first player", gpath);
            int t = 0;
            int player;
            char text[ZZ_NOTATION_MAX];
            for (const char *cur = NULL; next_notation_move(line, &cur, &player, text, sizeof text);) {
                TH_CHECK(player == p.to_move, "%s turn %d: mover", gpath, t + 1);
                zz_move mv[ZZ_MAX_CHAIN];
                zz_pos after;
                int n = zz_turn_from_text(&p, text, mv, &after, err, sizeof err);
                TH_CHECK(n > 0, "%s turn %d: %s", gpath, t + 1, err);
                zz_pos step = p;
                for (int i = 0; i < n; i++) {   /* each decision: in our list, and sets agree */
                    int k = zz_gen_moves(&step, list);
                    int kr = ref_moves(&step, ref);
                    TH_CHECK(k == kr, "%s turn %d: %d moves, reference %d", gpath, t + 1, k, kr);
                    for (int j = 0; j < k; j++) {          /* ours, without duplicates ... */
                        TH_CHECK(!(mark[list[j] >> 3] >> (list[j] & 7) & 1), "%s turn %d: duplicate move", gpath, t + 1);
                        mark[list[j] >> 3] |= (uint8_t)(1u << (list[j] & 7));
                    }
                    for (int j = 0; j < kr; j++)           /* ... hold every reference move */
                        TH_CHECK(mark[ref[j] >> 3] >> (ref[j] & 7) & 1, "%s turn %d: reference move missing", gpath, t + 1);
                    for (int j = 0; j < k; j++) mark[list[j] >> 3] = 0;
                    TH_CHECK(th_in_list(list, k, mv[i]), "%s turn %d: not in our list", gpath, t + 1);
                    zz_apply(&step, mv[i], NULL);
                    positions++;
                }
                char back[ZZ_NOTATION_MAX];
                zz_turn_to_text(&p, mv, n, back);
                TH_CHECK(!strcmp(back, text), "%s turn %d: written back as %s, archive %s", gpath, t + 1, back, text);
                TH_CHECK(t < g.nturns && !strcmp(g.turns[t].text, text), "%s turn %d: SGF replay says %s, notation %s",
                              gpath, t + 1, t < g.nturns ? g.turns[t].text : "(none)", text);
                p = after;
                t++;
                turns++;
            }
            TH_CHECK(t == g.nturns, "%s: %d turns, SGF replay %d", gpath, t, g.nturns);
            zz_game_free(&g);
            games++;
        }
        free(line);
        fclose(in);
    }
    printf("parity: %d clean games, %ld turns, %ld positions: every turn generated; move sets equal the reference\n",
           games, turns, positions);
    ck_assert_int_gt(games, 12000);
}
END_TEST

/* The Zertz+H record that SetBoards 37 rings, which the manifest lists as 48 (handicap_games). */
static const char *const KNOWN_37 = "U_ZXX-kartoved24-PaulNotGam-2021-08-06-1516.sgf";

/* Zertz+H: the manifest marks them not clean (their set-up is flagged `edit`), but their final
 * counts are the archive's; each must replay and agree (zz_manifest_checkable), but for one known,
 * explained difference: the board of the record that SetBoards another. */
START_TEST(handicap_games) {
    if (!dir) return;
    int checked = 0, rows = 0, written = 0, known = 0;
    char err[512], why[256], path[1024];
    for (int i = 0; i < man.n; i++) {
        const zz_manifest_row *r = &man.rows[i];
        if (strcmp(r->variant, "Zertz+H") != 0) continue;
        rows++;
        TH_CHECK(zz_manifest_checkable(r), "%s: a Zertz+H row with flags %s / error %s", r->path, r->flags, r->replay_error);
        snprintf(path, sizeof path, "%s/%s", dir, r->path);
        zz_game g;
        TH_CHECK(zz_sgf_read_file(path, &g, err, sizeof err) == 0, "%s", err);
        TH_CHECK(!strcmp(g.variant, "Zertz+H"), "%s: variant %s", r->path, g.variant);
        int cmp = zz_manifest_compare(r, &g, why, sizeof why);
        if (strstr(r->path, KNOWN_37))          /* its one difference: the board (proved below) */
            TH_CHECK(cmp == 1 && !strcmp(why, "manifest says 48 rings; the record is a 37-ring game (SetBoard)"),
                     "%s: %d %s", r->path, cmp, why);
        else
            TH_CHECK(cmp == 0, "%s: %s", r->path, why);
        known += cmp == 1;
        TH_CHECK(zz_pos_validate(&g.start) == NULL && zz_pos_validate(&g.final) == NULL, "%s: inconsistent", r->path);
        check_written_copy(r->path, &g);               /* written as SGF and read back: the same game */
        written++;
        zz_game_free(&g);
        checked++;
    }
    /* turn by turn against the archive's notation */
    snprintf(path, sizeof path, "%s/normalized/48-handicap.jsonl", dir);
    FILE *in = fopen(path, "r");
    TH_CHECK(in != NULL, "cannot open %s", path);
    char *line = NULL;
    size_t cap = 0;
    int games = 0, turns = 0, folded = 0;
    while (getline(&line, &cap, in) > 0) {
        char gpath[256], sgf[1024];
        TH_CHECK(json_str(line, "\"path\"", gpath, sizeof gpath), "bad line in %s", path);
        snprintf(sgf, sizeof sgf, "%s/%s", dir, gpath);
        zz_game g;
        TH_CHECK(zz_sgf_read_file(sgf, &g, err, sizeof err) == 0, "%s", err);
        int t = 0;
        int player;
        char text[ZZ_NOTATION_MAX];
        for (const char *cur = NULL; next_notation_move(line, &cur, &player, text, sizeof text);) {
            TH_CHECK(t < g.nturns, "%s: more turns in the notation than in the replay", gpath);
            const char *c1 = strchr(text, ',');
            if (c1 && strchr(c1 + 1, ',')) folded++;
            else TH_CHECK(!strcmp(g.turns[t].text, text), "%s turn %d: replay %s, archive %s", gpath, t + 1, g.turns[t].text, text);
            t++;
            turns++;
        }
        TH_CHECK(t == g.nturns, "%s: %d turns in the notation, %d replayed", gpath, t, g.nturns);
        zz_game_free(&g);
        games++;
    }
    free(line);
    fclose(in);
    ck_assert_int_eq(games, rows);
    printf("parity: %d Zertz+H (handicap) games replayed from SGF, equal to the manifest (%d with the known difference: "
           "its board), %d written as SGF and read back to the same game; %d turns equal the archive's notation (%d with "
           "set-up removals folded in, not compared)\n", checked, known, written, turns - folded, folded);
    /* The manifest's `rings` says 48 for every Zertz+H game (the SU tag's board), but one record
     * changes the board in its set-up (`SetBoard Zertz`): it is a 37-ring game (the manifest's own
     * rings_left, 24, is the 37-ring replay's).  Proof from the record: on 48 rings its first
     * turn's removal of d7 is illegal (d7 is surrounded there). */
    char k[256];
    snprintf(k, sizeof k, "sgf/48-handicap/2021/%s", KNOWN_37);
    const zz_manifest_row *kr = zz_manifest_find(&man, k);
    TH_CHECK(kr && kr->rings == 48, "%s: manifest row", k);
    /* tools/replay --check says so, and does not fail for it */
    const char *td = getenv("ZZ_TOOLDIR");
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "%s/replay --check --quiet %s/%s 2>&1", td && *td ? td : "tools", dir, k);
    FILE *rp = popen(cmd, "r");
    TH_CHECK(rp != NULL, "%s", cmd);
    static char rout[4096];
    size_t rn = fread(rout, 1, sizeof rout - 1, rp);
    rout[rn] = 0;
    int rst = pclose(rp);
    TH_CHECK(WIFEXITED(rst) && WEXITSTATUS(rst) == 0 &&
             strstr(rout, "a known, explained difference from the manifest: manifest says 48 rings; the record is a 37-ring "
                          "game (SetBoard)") && strstr(rout, "0 replayed and agree, 1 with a known, explained difference"),
             "%s: status %d:\n%s", cmd, rst, rout);
    snprintf(path, sizeof path, "%s/%s", dir, k);
    zz_game g;
    TH_CHECK(zz_sgf_read_file(path, &g, err, sizeof err) == 0, "%s", err);
    TH_CHECK(g.board == ZZ_B37, "%s: replayed on %d rings", k, zz_board_get(g.board)->rings);
    {   /* the difference is known only as it is: another ring count, or no SetBoard, is a mismatch */
        zz_manifest_row other = *kr;
        other.rings_left++;
        TH_CHECK(zz_manifest_compare(&other, &g, why, sizeof why) == -1 && strstr(why, "rings left, manifest says"),
                 "rings left: %s", why);
        other = *kr;
        snprintf(other.flags, sizeof other.flags, "edit=1;op_edit=1");
        TH_CHECK(zz_manifest_compare(&other, &g, why, sizeof why) == -1 && !strstr(why, "SetBoard"), "no SetBoard: %s", why);
        other = *kr;
        other.marbles_on_board = 0;
        TH_CHECK(zz_manifest_compare(&other, &g, why, sizeof why) == -1 && strstr(why, "marbles on the board"), "%s", why);
    }
    zz_game_free(&g);
    FILE *f = fopen(path, "rb");
    TH_CHECK(f != NULL, "%s", path);
    static char text[1 << 16], cut[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f), m = 0;
    fclose(f);
    text[n] = 0;
    for (char *l = text; *l;) {                         /* the record without its SetBoard line */
        char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l + 1) : strlen(l);
        if (!memmem(l, len, "SetBoard", 8)) { memcpy(cut + m, l, len); m += len; }
        l += len;
    }
    TH_CHECK(zz_sgf_parse(cut, m, &g, err, sizeof err) == -1 && strstr(err, "illegal ring removal"),
             "%s without SetBoard: %s", k, err);
    zz_game_free(&g);
    ck_assert_int_eq(checked, rows);
    ck_assert_int_eq(written, rows);
    ck_assert_int_eq(known, 1);
    ck_assert_int_gt(checked, 0);
}
END_TEST

START_TEST(extreme_games) {
    if (!dir) return;
    int checked = 0, rows = 0;
    char err[512], why[256], path[1024];
    for (int i = 0; i < man.n; i++) {
        const zz_manifest_row *r = &man.rows[i];
        if (strcmp(r->variant, "Zertz+xx") != 0) continue;
        rows++;
        TH_CHECK(zz_manifest_checkable(r), "%s: a Zertz+xx row with flags %s / error %s", r->path, r->flags, r->replay_error);
        snprintf(path, sizeof path, "%s/%s", dir, r->path);
        zz_xx_game g;
        TH_CHECK(zz_xx_read_file(path, &g, err, sizeof err) == 0, "%s", err);
        zz_manifest_counts mc;
        memset(&mc, 0, sizeof mc);
        memcpy(mc.cap, g.final.cap, sizeof mc.cap);
        memcpy(mc.pool, g.final.pool, sizeof mc.pool);
        mc.end = g.end;
        mc.winner = g.winner;
        mc.turns = g.nturns + (g.end == ZZ_END_RESIGN);
        mc.first_player = g.first_player;
        for (int k = 0; k < ZZ_XX_CELLS; k++) {
            mc.rings_left += g.final.cell[k] != ZZ_XX_NONE;
            mc.marbles_on_board += g.final.cell[k] >= 2;
        }
        TH_CHECK(zz_manifest_compare_counts(r, &mc, why, sizeof why) == 0, "%s: %s", r->path, why);
        {                                              /* written as SGF and read back: the same game */
            char *buf = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&buf, &len);
            TH_CHECK(f && zz_xx_sgf_write(f, &g) == 0, "%s: write", r->path);
            fclose(f);
            zz_xx_game h;
            TH_CHECK(zz_xx_sgf_parse(buf, len, &h, err, sizeof err) == 0, "%s: written copy: %s", r->path, err);
            TH_CHECK(h.nturns == g.nturns && h.winner == g.winner && h.end == g.end && h.swapped == g.swapped,
                     "%s: written copy differs", r->path);
            for (int t = 0; t < g.nturns; t++) TH_CHECK(!strcmp(h.text[t], g.text[t]), "%s: written copy turn %d", r->path, t + 1);
            TH_CHECK(!memcmp(&h.final, &g.final, sizeof g.final), "%s: written copy's final position", r->path);
            zz_xx_game_free(&h);
            free(buf);
        }
        for (int c = 0; c < 3; c++) {                  /* 24 marbles in all */
            int on = 0;
            for (int k = 0; k < ZZ_XX_CELLS; k++) on += g.final.cell[k] == 2 + c;
            TH_CHECK(on + g.final.pool[c] + g.final.cap[0][c] + g.final.cap[1][c] == ZZ_START_POOL[c], "%s: marble count", r->path);
        }
        zz_xx_game_free(&g);
        checked++;
    }
    snprintf(path, sizeof path, "%s/normalized/xx-custom.jsonl", dir);
    FILE *in = fopen(path, "r");
    TH_CHECK(in != NULL, "cannot open %s", path);
    char *line = NULL;
    size_t cap = 0;
    int games = 0, turns = 0, setup = 0;
    while (getline(&line, &cap, in) > 0) {
        char gpath[256], sgf[1024];
        TH_CHECK(json_str(line, "\"path\"", gpath, sizeof gpath), "bad line in %s", path);
        snprintf(sgf, sizeof sgf, "%s/%s", dir, gpath);
        zz_xx_game g;
        TH_CHECK(zz_xx_read_file(sgf, &g, err, sizeof err) == 0, "%s", err);
        int t = 0;
        int player;
        char text[ZZ_NOTATION_MAX];
        for (const char *cur = NULL; next_notation_move(line, &cur, &player, text, sizeof text);) {
            TH_CHECK(t < g.nturns, "%s: more turns in the notation than in the replay", gpath);
            if (text[0] == '?') setup++;
            else TH_CHECK(!strcmp(g.text[t], text), "%s turn %d: replay %s, archive %s", gpath, t + 1, g.text[t], text);
            t++;
            turns++;
        }
        TH_CHECK(t == g.nturns, "%s: %d turns in the notation, %d replayed", gpath, t, g.nturns);
        zz_xx_game_free(&g);
        games++;
    }
    free(line);
    fclose(in);
    ck_assert_int_eq(games, rows);
    printf("parity: %d Zertz+xx (Extreme) games replayed, all equal to the manifest; %d turns equal the archive's notation"
           " (and %d set-up/swap turns counted)\n", checked, turns - setup, setup);
    ck_assert_int_eq(checked, rows);
    ck_assert_int_gt(checked, 0);
}
END_TEST

START_TEST(unclean_games_fail_cleanly) {
    if (!dir) return;
    int replayed = 0, refused = 0;
    char err[512], path[1024];
    for (int i = 0; i < man.n; i++) {
        const zz_manifest_row *r = &man.rows[i];
        if (r->clean) continue;
        snprintf(path, sizeof path, "%s/%s", dir, r->path);
        zz_game g;
        if (zz_sgf_read_file(path, &g, err, sizeof err) == 0) {
            replayed++;
            TH_CHECK(zz_pos_validate(&g.final) == NULL, "%s: inconsistent final position", r->path);
        } else {
            refused++;
            TH_CHECK(strstr(err, ": line ") != NULL, "no line in error: %s", err);
        }
        zz_game_free(&g);
    }
    printf("parity: %d games not clean: %d replayed, %d refused with a line and a reason\n", replayed + refused, replayed, refused);
    ck_assert_int_gt(replayed + refused, 0);
}
END_TEST

int main(void) {
    dir = th_archive_dir();
    if (!dir) {
        printf("\n*** PARITY SUITE SKIPPED: no Boardspace archive at $ZZ_BOARDSPACE_DIR or ../shared/boardspace\n"
               "*** (manifest.csv not found). See README.md, 'Boardspace games', to get the archive.\n\n");
        th_skip("test_parity", "Boardspace parity: no archive at $ZZ_BOARDSPACE_DIR or ../shared/boardspace");
    } else {
        char mp[1024], err[512];
        snprintf(mp, sizeof mp, "%s/manifest.csv", dir);
        if (zz_manifest_load(mp, &man, err, sizeof err) < 0) { fprintf(stderr, "parity: %s\n", err); return 1; }
        printf("parity: archive %s, %d games in the manifest\n", dir, man.n);
    }
    Suite *s = suite_create("parity");
    TCase *t = tcase_create("boardspace");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, clean_games_37);
    tcase_add_test(t, clean_games_48);
    tcase_add_test(t, clean_games_61);
    tcase_add_test(t, every_turn_is_generated);
    tcase_add_test(t, handicap_games);
    tcase_add_test(t, extreme_games);
    tcase_add_test(t, unclean_games_fail_cleanly);
    suite_add_tcase(s, t);
    int rc = th_run(s);
    zz_manifest_free(&man);
    return rc;
}
