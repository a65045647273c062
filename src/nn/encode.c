/* encode.c — position -> input planes (see encode.h for the plane order). */
#include "nn/encode.h"
#include <stdlib.h>
#include <string.h>

enum { PL_RING = 0, PL_MARBLE = 1, PL_CHAIN = 4, PL_CAPTURE = 5, PL_BOARD = 6, PL_POOL = 7,
       PL_MINE = 10, PL_THEIRS = 13 };

void nn_encode(const nn_geom *g, const zz_pos *p, float *x)
{
    float bcast[NN_PLANES] = { 0 };
    int me = p->to_move, them = 1 - p->to_move;
    bcast[PL_CAPTURE] = zz_must_capture(p) ? 1.0f : 0.0f;
    bcast[PL_BOARD] = 1.0f;
    for (int c = 0; c < 3; c++) {
        bcast[PL_POOL + c] = (float)p->pool[c] / (float)ZZ_START_POOL[c];
        bcast[PL_MINE + c] = (float)p->cap[me][c] / (float)ZZ_WIN_EACH[c];
        bcast[PL_THEIRS + c] = (float)p->cap[them][c] / (float)ZZ_WIN_EACH[c];
    }
    for (int i = 0; i < g->ncells; i++) {
        int cell = g->cell[i];
        float *r = x + (size_t)i * NN_PLANES;
        memcpy(r, bcast, sizeof bcast);
        r[PL_RING] = zz_has(p->rings, cell) ? 1.0f : 0.0f;
        for (int c = 0; c < 3; c++) r[PL_MARBLE + c] = zz_has(p->marble[c], cell) ? 1.0f : 0.0f;
        r[PL_CHAIN] = p->chain == cell ? 1.0f : 0.0f;
    }
}

void nn_encode_grid(const nn_geom *g, const zz_pos *p, float *planes)
{
    float rows[ZZ_MAX_RINGS * NN_PLANES];
    nn_encode(g, p, rows);
    nn_grid_scatter(g, rows, NN_PLANES, planes);
}
