/* geom.c — on-board cell order, hex neighbour table and grid maps for the network (see geom.h). */
#include "nn/geom.h"
#include <string.h>

const int NN_TAP_DQ[NN_TAPS] = { -1, 0, -1, 0, 1, 0, 1 };
const int NN_TAP_DA[NN_TAPS] = { -1, -1, 0, 0, 0, 1, 1 };

void nn_geom_init(nn_geom *g, zz_board_kind kind)
{
    const zz_board *b = zz_board_get(kind);
    memset(g, 0, sizeof *g);
    g->kind = kind;
    g->ncells = b->ncells;
    g->grid_h = b->grid_h;
    g->grid_w = b->grid_w;
    memset(g->index, -1, sizeof g->index);
    for (int i = 0; i < b->ncells; i++) {
        g->cell[i] = b->cells[i];
        g->index[b->cells[i]] = (int8_t)i;
    }
    for (int i = 0; i < b->ncells; i++) {
        int q = zz_cell_q(g->cell[i]), a = zz_cell_a(g->cell[i]);
        g->grid[i] = (int16_t)(a * g->grid_w + q);
        for (int t = 0; t < NN_TAPS; t++) {
            int q2 = q + NN_TAP_DQ[t], a2 = a + NN_TAP_DA[t];
            int j = -1;
            if (q2 >= 0 && q2 < g->grid_w && a2 >= 0 && a2 < g->grid_h)
                j = g->index[zz_cell_of(q2, a2)];
            g->nb[i][t] = (int16_t)j;
        }
    }
}

void nn_grid_scatter(const nn_geom *g, const float *rows, int C, float *planes)
{
    int hw = g->grid_h * g->grid_w;
    memset(planes, 0, sizeof(float) * (size_t)C * (size_t)hw);
    for (int i = 0; i < g->ncells; i++)
        for (int c = 0; c < C; c++)
            planes[c * hw + g->grid[i]] = rows[i * C + c];
}

void nn_grid_gather(const nn_geom *g, const float *planes, int C, float *rows)
{
    int hw = g->grid_h * g->grid_w;
    for (int i = 0; i < g->ncells; i++)
        for (int c = 0; c < C; c++)
            rows[i * C + c] = planes[c * hw + g->grid[i]];
}
