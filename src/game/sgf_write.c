/* sgf_write.c — writing our games as Boardspace SGF (VV[2], explicit Done nodes), so that
 * Boardspace's viewer opens them and zz_sgf_parse reads them back to the same game.
 *
 * Boardspace has no "no legal move" rule: a game we end that way is written as the stuck
 * player's resignation (what Boardspace players did), and a draw by the ply cap as an
 * unfinished game with RE[The game is a draw].
 *
 * A game from any start other than the plain opening (a Zertz+H handicap, or a set-up position)
 * opens as Boardspace's handicap games do: `Edit`, `SetBoard` when the board is not the one the
 * SU tag implies (Zertz+H is 48 rings), `R-` for every missing ring, `RtoB 2 c` for every marble
 * on the board, `RtoR 2 c p` for every captured marble, then `Start Pn`.  Reading it back
 * (sgf_read.c) gives the same start position.
 *
 * A game that ended in the middle of a turn (Resign or WinOnTime after part of the mover's turn)
 * keeps that part in g->unfinished; it is written before the Resign or WinOnTime, so that the
 * copy's final position counts it too. */
#include "sgf.h"
#include "atomic_file.h"
#include "handicap.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Boardspace "COL ROW" of a cell, e.g. "D 4". */
static void colrow(const zz_board *b, int cell, char *out) {
    snprintf(out, 8, "%c %d", 'A' + b->col[cell], b->row[cell]);
}

/* Names go inside [...] and "...": drop the characters that would end them. */
static void clean_name(const char *in, char *out, size_t n) {
    size_t k = 0;
    for (; *in && k + 1 < n; in++)
        if (*in != ']' && *in != '"' && *in != '\\' && *in != '\n' && *in != '\r') out[k++] = *in;
    out[k] = 0;
}

/* The part of the ending turn that the final position counts (zz_part_turn), as player pl's
 * operations from history index *idx: the placement before the ring removal (a removal that was
 * made first stays legal after it: placing a marble frees no ring and blocks none but its own),
 * or the jumps. */
static void write_unfinished(FILE *f, const zz_board *b, const zz_part_turn *u, int pl, int *idx) {
    char a[8], c[8];
    if (u->placed) {
        colrow(b, u->cell, a);
        fprintf(f, "; P%d[%d RtoB %d %d %s]\n", pl, (*idx)++, u->rack, u->colour, a);
    }
    if (u->removed) {
        colrow(b, u->ring, a);
        fprintf(f, "; P%d[%d R- %s]\n", pl, (*idx)++, a);
    }
    for (int i = 0; i < u->njumps; i++) {
        colrow(b, zz_move_a(u->jumps[i]), a);
        colrow(b, zz_move_b(u->jumps[i]), c);
        fprintf(f, "; P%d[%d BtoB %s %s]\n", pl, (*idx)++, a, c);
    }
}

int zz_sgf_write(FILE *f, const zz_game *g) {
    const zz_board *b = zz_board_get(g->board);
    char n0[sizeof g->player_name[0]], n1[sizeof g->player_name[1]], gn[128], dt[64];
    clean_name(g->player_name[0][0] ? g->player_name[0] : "player0", n0, sizeof n0);
    clean_name(g->player_name[1][0] ? g->player_name[1] : "player1", n1, sizeof n1);
    clean_name(g->game_name[0] ? g->game_name : "zertz", gn, sizeof gn);
    clean_name(g->date, dt, sizeof dt);
    bool handicap = !strcmp(g->variant, ZZ_VARIANT_HANDICAP);
    fprintf(f, "(;\nGM[22]VV[2]\nSU[%s]\n", handicap ? ZZ_VARIANT_HANDICAP : b->variant);
    if (dt[0]) fprintf(f, "DT[%s]\n", dt);
    fprintf(f, "GN[%s]\n", gn);
    if (g->winner >= 0) fprintf(f, "RE[Game won by %s]\n", g->winner ? n1 : n0);
    else if (g->end == ZZ_END_PLY_CAP) fprintf(f, "RE[The game is a draw]\n");
    fprintf(f, "P0[id \"%s\"]\nP1[id \"%s\"]\n", n0, n1);
    int idx = 0;
    char a[8], c[8];
    if (handicap || !zz_pos_is_opening(&g->start)) {               /* the set-up, in Edit mode */
        const zz_pos *s0 = &g->start;
        fprintf(f, "; P0[%d Edit]\n", idx++);
        if (handicap && g->board != ZZ_B48) fprintf(f, "; P0[%d SetBoard %s]\n", idx++, b->variant);
        for (int i = 0; i < b->ncells; i++)
            if (!zz_has(s0->rings, b->cells[i])) { colrow(b, b->cells[i], a); fprintf(f, "; P0[%d R- %s]\n", idx++, a); }
        for (int i = 0; i < b->ncells; i++) {
            int col = zz_colour_at(s0, b->cells[i]);
            if (col >= 0) { colrow(b, b->cells[i], a); fprintf(f, "; P0[%d RtoB 2 %d %s]\n", idx++, col, a); }
        }
        for (int pl = 0; pl < 2; pl++)
            for (int col = 0; col < 3; col++)
                for (int k = 0; k < s0->cap[pl][col]; k++) fprintf(f, "; P%d[%d RtoR 2 %d %d]\n", pl, idx++, col, pl);
    }
    fprintf(f, "; P%d[%d Start P%d]\n", g->first_player, idx++, g->first_player);
    zz_pos p = g->start;
    for (int t = 0; t < g->nturns; t++) {
        const zz_turn *tu = &g->turns[t];
        for (int i = 0; i < tu->nmoves; i++) {
            zz_move m = tu->moves[i];
            colrow(b, zz_move_a(m), a);
            if (zz_move_is_jump(m)) {
                colrow(b, zz_move_b(m), c);
                fprintf(f, "; P%d[%d BtoB %s %s]\n", tu->player, idx++, a, c);
            } else {
                int rack = (p.pool[0] | p.pool[1] | p.pool[2]) ? 2 : p.to_move;
                fprintf(f, "; P%d[%d RtoB %d %d %s]\n", tu->player, idx++, rack, zz_move_colour(m), a);
                if (zz_move_b(m) != ZZ_NO_CELL) {
                    colrow(b, zz_move_b(m), c);
                    fprintf(f, "; P%d[%d R- %s]\n", tu->player, idx++, c);
                }
            }
            zz_apply(&p, m, NULL);
        }
        fprintf(f, "; P%d[%d Done ]\n", tu->player, idx++);
    }
    if (g->end == ZZ_END_RESIGN || g->end == ZZ_END_NO_MOVE) {
        int loser = 1 - g->winner;
        if (loser == p.to_move) write_unfinished(f, b, &g->unfinished, loser, &idx);
        fprintf(f, "; P%d[%d Resign ]\n; P%d[%d Done ]\n", loser, idx, loser, idx + 1);
    } else if (g->end == ZZ_END_TIME && g->winner == p.to_move) {
        write_unfinished(f, b, &g->unfinished, g->winner, &idx);
        fprintf(f, "; P%d[%d WinOnTime ]\n", g->winner, idx);
    }
    fprintf(f, ")\n");
    return ferror(f) ? -1 : 0;
}

int zz_sgf_write_file(const char *path, const zz_game *g, char *err, size_t errlen) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); return -1; }
    int bad = zz_sgf_write(f, g);
    if (fclose(f) != 0) bad = -1;
    int rc = bad ? -1 : zz_write_file_atomic(path, buf, len, err, errlen);
    if (bad) snprintf(err, errlen, "%s: out of memory writing the record", path);
    free(buf);
    return rc;
}
