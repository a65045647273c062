/* sgf_write.c — writing our games as Boardspace SGF (VV[2], explicit Done nodes), so that
 * Boardspace's viewer opens them and zz_sgf_parse reads them back to the same game.
 *
 * Boardspace has no "no legal move" rule: a game we end that way is written as the stuck
 * player's resignation (what Boardspace players did), and a draw by the ply cap as an
 * unfinished game with RE[The game is a draw]. */
#include "sgf.h"
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

int zz_sgf_write(FILE *f, const zz_game *g) {
    const zz_board *b = zz_board_get(g->board);
    char n0[64], n1[64], gn[128], dt[64];
    clean_name(g->player_name[0][0] ? g->player_name[0] : "player0", n0, sizeof n0);
    clean_name(g->player_name[1][0] ? g->player_name[1] : "player1", n1, sizeof n1);
    clean_name(g->game_name[0] ? g->game_name : "zertz", gn, sizeof gn);
    clean_name(g->date, dt, sizeof dt);
    fprintf(f, "(;\nGM[22]VV[2]\nSU[%s]\n", b->variant);
    if (dt[0]) fprintf(f, "DT[%s]\n", dt);
    fprintf(f, "GN[%s]\n", gn);
    if (g->winner >= 0) fprintf(f, "RE[Game won by %s]\n", g->winner ? n1 : n0);
    else if (g->end == ZZ_END_PLY_CAP) fprintf(f, "RE[The game is a draw]\n");
    fprintf(f, "P0[id \"%s\"]\nP1[id \"%s\"]\n", n0, n1);
    int idx = 0;
    fprintf(f, "; P%d[%d Start P%d]\n", g->first_player, idx++, g->first_player);
    zz_pos p = g->start;
    char a[8], c[8];
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
        fprintf(f, "; P%d[%d Resign ]\n; P%d[%d Done ]\n", loser, idx, loser, idx + 1);
    } else if (g->end == ZZ_END_TIME && g->winner == p.to_move) {
        fprintf(f, "; P%d[%d WinOnTime ]\n", g->winner, idx);
    }
    fprintf(f, ")\n");
    return ferror(f) ? -1 : 0;
}
