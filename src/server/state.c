/* state.c — positions and game records as JSON for the web API (see state.h). */
#include "state.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cJSON *cell_string(const zz_board *b, int cell) {
    char name[8];
    zz_cell_name(b, cell, name);
    return cJSON_CreateString(name);
}

cJSON *sv_cells_json(zz_board_kind kind) {
    const zz_board *b = zz_board_get(kind);
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < b->ncells; i++) {
        int c = b->cells[i];
        char name[8];
        zz_cell_name(b, c, name);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", name);
        cJSON_AddNumberToObject(o, "x", zz_cell_q(c));
        cJSON_AddNumberToObject(o, "y", 2 * zz_cell_a(c) - zz_cell_q(c));
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static cJSON *counts(const uint8_t v[3]) {
    int n[3] = { v[0], v[1], v[2] };
    return cJSON_CreateIntArray(n, 3);
}

void sv_add_position(cJSON *o, const zz_pos *p) {
    const zz_board *b = zz_pos_board(p);
    cJSON *rings = cJSON_AddArrayToObject(o, "rings_left");
    cJSON *marbles = cJSON_AddObjectToObject(o, "marbles");
    for (int i = 0; i < b->ncells; i++) {
        int c = b->cells[i], col = zz_colour_at(p, c);
        if (!zz_has(p->rings, c)) continue;
        char name[8];
        zz_cell_name(b, c, name);
        cJSON_AddItemToArray(rings, cJSON_CreateString(name));
        if (col >= 0) {
            char colour[2] = { ZZ_COLOUR_CHAR[col], 0 };
            cJSON_AddStringToObject(marbles, name, colour);
        }
    }
    cJSON_AddItemToObject(o, "pool", counts(p->pool));
    cJSON *caps = cJSON_AddArrayToObject(o, "captures");
    for (int pl = 0; pl < 2; pl++) cJSON_AddItemToArray(caps, counts(p->cap[pl]));
    cJSON_AddNumberToObject(o, "to_move", p->to_move);
    if (p->chain != ZZ_NO_CELL && !zz_over(p)) cJSON_AddItemToObject(o, "chain", cell_string(b, p->chain));
    else cJSON_AddNullToObject(o, "chain");
}

cJSON *sv_position_json(const zz_pos *p) {
    cJSON *o = cJSON_CreateObject();
    sv_add_position(o, p);
    return o;
}

cJSON *sv_legal_json(const zz_pos *p) {
    cJSON *arr = cJSON_CreateArray();
    zz_move *moves = malloc(ZZ_MAX_MOVES * sizeof *moves);
    if (!moves) return arr;
    int n = zz_gen_moves(p, moves);
    for (int i = 0; i < n; i++) {
        char text[ZZ_NOTATION_MAX];
        zz_move_to_text(p, moves[i], text);
        cJSON_AddItemToArray(arr, cJSON_CreateString(text));
    }
    free(moves);
    return arr;
}

int sv_build_record(const zz_pos *start, const zz_move *moves, int n, zz_game *g, int *pending,
                    char *err, size_t errlen) {
    zz_game_init(g, (zz_board_kind)start->board);
    g->start = g->final = *start;
    zz_pos p = *start;
    int first = 0;
    *pending = 0;
    for (int i = 0; i < n; i++) {
        zz_effects fx;
        zz_apply(&p, moves[i], &fx);
        if (!fx.turn_over && !zz_over(&p)) continue;
        if (zz_game_add_turn(g, moves + first, i + 1 - first, err, errlen) != 0) return -1;
        first = i + 1;
    }
    *pending = n - first;
    return 0;
}

cJSON *sv_last_turn_json(const zz_game *g) {
    if (g->nturns == 0) return cJSON_CreateNull();
    const zz_turn *t = &g->turns[g->nturns - 1];
    zz_pos p = g->start;
    for (int i = 0; i < g->nturns - 1; i++)
        for (int k = 0; k < g->turns[i].nmoves; k++) zz_apply(&p, g->turns[i].moves[k], NULL);
    const zz_board *b = zz_pos_board(&p);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "player", t->player);
    cJSON_AddStringToObject(o, "text", t->text);
    cJSON *cells = cJSON_AddArrayToObject(o, "cells");
    cJSON *iso = cJSON_AddArrayToObject(o, "isolated");
    for (int k = 0; k < t->nmoves; k++) {
        zz_move m = t->moves[k];
        zz_effects fx;
        if (k == 0 || zz_move_is_jump(m)) cJSON_AddItemToArray(cells, cell_string(b, zz_move_a(m)));
        if (zz_move_b(m) != ZZ_NO_CELL) cJSON_AddItemToArray(cells, cell_string(b, zz_move_b(m)));
        zz_apply(&p, m, &fx);
        for (int c = 0; c < 3; c++)
            for (int cell = 0; cell < ZZ_NCELLS; cell++)
                if (zz_has(fx.isolated[c], cell)) cJSON_AddItemToArray(iso, cell_string(b, cell));
    }
    return o;
}
