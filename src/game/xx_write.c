/* xx_write.c — writing a replayed Zèrtz Extreme game (xx.h) as Boardspace SGF, so that
 * zz_xx_sgf_parse (and Boardspace's viewer) replays it to the same turns. */
#include "xx.h"
#include <string.h>

static void colrow(int c, char *out) { snprintf(out, 8, "%c %d", 'A' + c / ZZ_XX_ROWS, c % ZZ_XX_ROWS + 1); }

/* Names go inside [...] and "...": drop the characters that would end them. */
static void clean(const char *in, char *out, size_t n) {
    size_t k = 0;
    for (; *in && k + 1 < n; in++)
        if (*in != ']' && *in != '"' && *in != '\\' && *in != '\n' && *in != '\r') out[k++] = *in;
    out[k] = 0;
}

/* The unfinished part of the ending turn (g->unfinished) as player pl's operations from history
 * index *idx: the placement before the ring removal (a removal made first stays legal after it),
 * or the jumps. */
static void write_unfinished(FILE *f, const zz_xx_game *g, int pl, int *idx) {
    const zz_xx_turn *u = &g->unfinished;
    char a[8], b[8];
    if (!g->has_unfinished) return;
    if (u->kind == ZZ_XX_JUMPS) {
        for (int i = 0; i < u->njumps; i++) {
            colrow(u->from[i], a);
            colrow(u->to[i], b);
            fprintf(f, "; P%d[%d BtoB %s %s]\n", pl, (*idx)++, a, b);
        }
        return;
    }
    if (u->cell >= 0) { colrow(u->cell, a); fprintf(f, "; P%d[%d RtoB %d %d %s]\n", pl, (*idx)++, u->rack, u->colour, a); }
    if (u->removed >= 0) { colrow(u->removed, b); fprintf(f, "; P%d[%d R- %s]\n", pl, (*idx)++, b); }
}

int zz_xx_sgf_write(FILE *f, const zz_xx_game *g) {
    char n0[64], n1[64], gn[128], a[8], b[8];
    clean(g->player_name[0][0] ? g->player_name[0] : "player0", n0, sizeof n0);
    clean(g->player_name[1][0] ? g->player_name[1] : "player1", n1, sizeof n1);
    clean(g->game_name[0] ? g->game_name : "zertz-extreme", gn, sizeof gn);
    fprintf(f, "(;\nGM[22]VV[2]\nSU[%s]\nGN[%s]\n", ZZ_VARIANT_EXTREME, gn);
    if (g->winner >= 0) fprintf(f, "RE[Game won by %s]\n", g->winner ? n1 : n0);
    fprintf(f, "P0[id \"%s\"]\nP1[id \"%s\"]\n", n0, n1);
    int idx = 0, fp = g->first_player;
    fprintf(f, "; P%d[%d Start P%d]\n", fp, idx++, fp);
    int last = fp;
    if (!g->nturns)                                   /* ended during the set-up: its rings */
        for (int c = 0; c < ZZ_XX_CELLS; c++)
            if (g->layout[c] == ZZ_XX_RING) { colrow(c, a); fprintf(f, "; P%d[%d R+ %s]\n", fp, idx++, a); }
    for (int t = 0; t < g->nturns; t++) {
        const zz_xx_turn *u = &g->turn[t];
        int p = u->player;
        switch (u->kind) {
        case ZZ_XX_SETUP:
            for (int c = 0; c < ZZ_XX_CELLS; c++)
                if (g->layout[c] == ZZ_XX_RING) { colrow(c, a); fprintf(f, "; P%d[%d R+ %s]\n", p, idx++, a); }
            break;
        case ZZ_XX_SWAP: fprintf(f, "; P%d[%d Swap]\n", p, idx++); break;
        case ZZ_XX_PLACE:
            colrow(u->cell, a);
            fprintf(f, "; P%d[%d RtoB %d %d %s]\n", p, idx++, u->rack, u->colour, a);
            if (u->removed >= 0) { colrow(u->removed, b); fprintf(f, "; P%d[%d R- %s]\n", p, idx++, b); }
            break;
        default:
            for (int i = 0; i < u->njumps; i++) {
                colrow(u->from[i], a);
                colrow(u->to[i], b);
                fprintf(f, "; P%d[%d BtoB %s %s]\n", p, idx++, a, b);
            }
        }
        fprintf(f, "; P%d[%d Done ]\n", p, idx++);
        last = p;
    }
    int mover = g->nturns ? 1 - last : fp;            /* who was to move after the last turn */
    if (g->end == ZZ_END_RESIGN) {
        write_unfinished(f, g, mover, &idx);
        fprintf(f, "; P%d[%d Resign ]\n; P%d[%d Done ]\n", mover, idx, mover, idx + 1);
    } else if (g->end == ZZ_END_TIME && g->winner == mover) {
        write_unfinished(f, g, mover, &idx);
        fprintf(f, "; P%d[%d WinOnTime ]\n", mover, idx);
    }
    fprintf(f, ")\n");
    return ferror(f) ? -1 : 0;
}
