/* state.h — positions and games as the web API shows them (API.md, "The game state"): the board's
 * cells, the rings, marbles, pool and captures of a position, its legal moves in notation, and a
 * game record (turns in notation) rebuilt from a start position and the moves played. */
#ifndef SV_STATE_H
#define SV_STATE_H

#include "game/sgf.h"
#include <cjson/cJSON.h>

/* Every cell of a board: [{"name", "x", "y"}] (x = column, y = height in half rows). */
cJSON *sv_cells_json(zz_board_kind kind);
/* Add a position's rings_left, marbles, pool, captures, to_move and chain to object o. */
void sv_add_position(cJSON *o, const zz_pos *p);
/* A position alone: {rings_left, marbles, pool, captures, to_move, chain}. */
cJSON *sv_position_json(const zz_pos *p);
/* The legal moves of p in notation (an empty array when over). */
cJSON *sv_legal_json(const zz_pos *p);
/* The record of start + moves[0..n): complete turns in g (initialised here, variant and names
 * set by the caller); the moves of an unfinished turn at the end (a capture chain under way)
 * are not in g: their count is returned in *pending.  0, or -1 with a message. */
int sv_build_record(const zz_pos *start, const zz_move *moves, int n, zz_game *g, int *pending,
                    char *err, size_t errlen);
/* The last turn of g as {"player", "text", "cells", "isolated"}, or null before the first. */
cJSON *sv_last_turn_json(const zz_game *g);

#endif
