/* scene.c — building scenes from game records (replaying the turns) and what a marked turn did. */
#include "render/scene.h"

#include <stdio.h>
#include <string.h>

const char *rd_board_title(zz_board_kind kind) {
    switch (kind) {
    case ZZ_B37: return "Zèrtz (37 rings)";
    case ZZ_B48: return "Zèrtz+11 (48 rings)";
    case ZZ_B61: return "Zèrtz+24 (61 rings)";
    default: return "Zèrtz";
    }
}

/* Names longer than a picture's line (an agent's spec) are cut to it. */
static void set_names(rd_scene *s, const char *n0, const char *n1) {
    int most = (int)sizeof s->names[0] - 1;
    snprintf(s->names[0], sizeof s->names[0], "%.*s", most, n0 && *n0 ? n0 : "Player 1");
    snprintf(s->names[1], sizeof s->names[1], "%.*s", most, n1 && *n1 ? n1 : "Player 2");
}

/* "X to move", or the result when the position is over. */
static void set_status(rd_scene *s, zz_end end, int winner) {
    const zz_pos *p = &s->pos;
    s->over = !(end == ZZ_END_NONE || end == ZZ_END_UNFINISHED);
    s->winner = s->over && (winner == 0 || winner == 1) ? winner : -1;
    if (!s->over) {
        snprintf(s->status, sizeof s->status, "%s to move", s->names[p->to_move & 1]);
        return;
    }
    const char *how = end == ZZ_END_CAPTURE ? "by captures" : end == ZZ_END_NO_MOVE ? "(no legal move left)"
                    : end == ZZ_END_RESIGN ? "by resignation" : end == ZZ_END_TIME ? "on time" : "";
    if (winner == 0 || winner == 1) snprintf(s->status, sizeof s->status, "%s wins %s", s->names[winner], how);
    else snprintf(s->status, sizeof s->status, "Draw");
}

void rd_scene_from_pos(const zz_pos *p, const char *title, rd_scene *s) {
    memset(s, 0, sizeof *s);
    s->pos = *p;
    s->before = *p;
    set_names(s, NULL, NULL);
    snprintf(s->title, sizeof s->title, "%s", title ? title : "");
    snprintf(s->subtitle, sizeof s->subtitle, "%s", rd_board_title((zz_board_kind)p->board));
    set_status(s, (zz_end)p->end, p->winner);
}

int rd_scene_from_game(const zz_game *g, int turn, rd_scene *s, char *err, size_t errlen) {
    if (turn < 0) turn = g->nturns;
    if (turn > g->nturns) {
        snprintf(err, errlen, "turn %d is out of range: the game has %d turn%s", turn, g->nturns,
                 g->nturns == 1 ? "" : "s");
        return -1;
    }
    memset(s, 0, sizeof *s);
    zz_pos p = g->start;
    for (int t = 0; t < turn; t++) {
        const zz_turn *tt = &g->turns[t];
        if (t == turn - 1) s->before = p;
        for (int i = 0; i < tt->nmoves; i++) {
            if (!zz_is_legal(&p, tt->moves[i])) {
                snprintf(err, errlen, "turn %d does not replay (illegal move)", t + 1);
                return -1;
            }
            zz_apply(&p, tt->moves[i], NULL);
        }
    }
    s->pos = p;
    s->turn = turn;
    s->nturns = g->nturns;
    if (turn > 0) {
        const zz_turn *tt = &g->turns[turn - 1];
        s->nlast = tt->nmoves;
        memcpy(s->last, tt->moves, (size_t)tt->nmoves * sizeof tt->moves[0]);
        snprintf(s->last_text, sizeof s->last_text, "%s", tt->text);
        s->last_player = tt->player;
    } else {
        s->before = p;
    }
    set_names(s, g->player_name[0], g->player_name[1]);
    if (g->player_name[0][0] || g->player_name[1][0])
        snprintf(s->title, sizeof s->title, "%s vs %s", s->names[0], s->names[1]);
    else
        snprintf(s->title, sizeof s->title, "%s", rd_board_title(g->board));
    bool named = g->player_name[0][0] || g->player_name[1][0];
    char name[140] = "";
    if (g->game_name[0]) snprintf(name, sizeof name, " · %.120s", g->game_name);
    else if (g->date[0]) snprintf(name, sizeof name, " · %.60s", g->date);
    /* Zertz+H: the board and each player's handicap (captures at the start), e.g.
     * "Zèrtz+H (48 rings; handicap P0 3/0/0)" */
    char board[96];
    snprintf(board, sizeof board, "%s", named ? rd_board_title(g->board) : "Game record");
    if (!strcmp(g->variant, "Zertz+H")) {
        int n = snprintf(board, sizeof board, "Zèrtz+H (%d rings", zz_board_get(g->board)->rings);
        const char *sep = "; handicap";
        for (int pl = 0; pl < 2; pl++) {
            const uint8_t *c = g->start.cap[pl];
            if (c[0] | c[1] | c[2]) {
                n += snprintf(board + n, sizeof board - (size_t)n, "%s P%d %d/%d/%d", sep, pl, c[0], c[1], c[2]);
                sep = ",";
            }
        }
        snprintf(board + n, sizeof board - (size_t)n, ")");
    }
    snprintf(s->subtitle, sizeof s->subtitle, "%s%s · %d turn%s", board, name, g->nturns, g->nturns == 1 ? "" : "s");
    if (turn == g->nturns && g->end != ZZ_END_UNFINISHED) set_status(s, g->end, g->winner);
    else set_status(s, (zz_end)p.end, p.winner);
    return 0;
}

void rd_scene_marks(const rd_scene *s, rd_marks *m) {
    memset(m, 0, sizeof *m);
    m->placed = m->removed = -1;
    zz_pos q = s->before;
    for (int i = 0; i < s->nlast; i++) {
        zz_move mv = s->last[i];
        if (!zz_is_legal(&q, mv)) break;
        zz_effects fx;
        if (zz_move_is_jump(mv)) {
            int a = zz_move_a(mv), b = zz_move_b(mv), mid = (a + b) / 2;
            m->jump_from[m->njumps] = a;
            m->jump_to[m->njumps] = b;
            m->jumped[m->njumps] = mid;
            m->jumped_colour[m->njumps] = zz_colour_at(&q, mid);
            m->njumps++;
        } else {
            m->placed = zz_move_a(mv);
            m->placed_colour = zz_move_colour(mv);
            m->removed = zz_move_b(mv) == ZZ_NO_CELL ? -1 : zz_move_b(mv);
        }
        zz_apply(&q, mv, &fx);
        for (int c = 0; c < 3; c++) m->isolated[c] |= fx.isolated[c];
    }
}

void rd_scene_caption(const rd_scene *s, char *out, size_t outlen) {
    if (s->nlast == 0) { snprintf(out, outlen, s->turn == 0 ? "Start" : "Position"); return; }
    snprintf(out, outlen, "%d. %s: %s", s->turn, s->names[s->last_player & 1], s->last_text);
}
