/* game.c — a game record (zz_game): the turns played from a start position, kept in notation. */
#include "sgf.h"
#include <stdlib.h>
#include <string.h>

void zz_game_init(zz_game *g, zz_board_kind board) {
    memset(g, 0, sizeof *g);
    g->board = board;
    snprintf(g->variant, sizeof g->variant, "%s", zz_board_get(board)->variant);
    zz_pos_init(&g->start, board);
    g->final = g->start;
    g->winner = -1;
    g->end = ZZ_END_UNFINISHED;
}

void zz_game_free(zz_game *g) {
    free(g->turns);
    g->turns = NULL;
    g->nturns = g->cap_turns = 0;
}

int zz_game_add_turn(zz_game *g, const zz_move *moves, int n, char *err, size_t errlen) {
    if (n < 1 || n > ZZ_MAX_CHAIN) { snprintf(err, errlen, "a turn has 1 to %d moves", ZZ_MAX_CHAIN); return -1; }
    zz_pos q = g->final;
    int player = q.to_move;
    for (int i = 0; i < n; i++) {
        bool last = i == n - 1;
        if (!zz_is_legal(&q, moves[i])) {
            char t[32];
            zz_move_to_text(&q, moves[i], t);
            snprintf(err, errlen, "turn %d: illegal move %s", g->nturns + 1, t);
            return -1;
        }
        zz_apply(&q, moves[i], NULL);
        bool same_turn = !zz_over(&q) && q.to_move == player && q.chain != ZZ_NO_CELL;
        if (last == same_turn && !zz_over(&q)) {
            snprintf(err, errlen, "turn %d: %s", g->nturns + 1,
                     last ? "the capture chain is not finished" : "moves after the end of the turn");
            return -1;
        }
    }
    if (g->nturns == g->cap_turns) {
        int cap = g->cap_turns ? 2 * g->cap_turns : 64;
        zz_turn *t = realloc(g->turns, (size_t)cap * sizeof *t);
        if (!t) { snprintf(err, errlen, "out of memory"); return -1; }
        g->turns = t;
        g->cap_turns = cap;
    }
    zz_turn *t = &g->turns[g->nturns++];
    t->player = player;
    t->nmoves = n;
    memcpy(t->moves, moves, (size_t)n * sizeof *moves);
    zz_turn_to_text(&g->final, moves, n, t->text);
    g->final = q;
    if (zz_over(&q)) { g->end = (zz_end)q.end; g->winner = q.winner; }
    return 0;
}

const char *zz_end_name(zz_end e) {
    switch (e) {
    case ZZ_END_NONE: return "none";
    case ZZ_END_CAPTURE: return "capture";
    case ZZ_END_NO_MOVE: return "no-move";
    case ZZ_END_PLY_CAP: return "draw";
    case ZZ_END_RESIGN: return "resign";
    case ZZ_END_TIME: return "time";
    case ZZ_END_UNFINISHED: return "unfinished";
    }
    return "?";
}
