/* transfer.c — carry a network over to another board (see transfer.h). */
#include "nn/transfer.h"
#include "nn/util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Hex distance on the grid, whose neighbours are (±1,0), (0,±1), ±(1,1). */
static double hex_dist(double x, double y) { return (fabs(x) + fabs(y) + fabs(x - y)) / 2; }

static void centroid(const nn_geom *g, double *q, double *a)
{
    *q = *a = 0;
    for (int i = 0; i < g->ncells; i++) {
        *q += zz_cell_q(g->cell[i]);
        *a += zz_cell_a(g->cell[i]);
    }
    *q /= g->ncells;
    *a /= g->ncells;
}

/* The target row under source row i at shift s, or -1 off the target board. */
static int target_row(const nn_geom *src, const nn_geom *dst, int i, int dq, int da)
{
    int q = zz_cell_q(src->cell[i]) + dq, a = zz_cell_a(src->cell[i]) + da;
    if (q < 0 || q >= dst->grid_w || a < 0 || a >= dst->grid_h) return -1;
    return dst->index[zz_cell_of(q, a)];
}

static nn_board_shift best_shift(const nn_geom *src, const nn_geom *dst)
{
    double sq, sa, tq, ta;
    centroid(src, &sq, &sa);
    centroid(dst, &tq, &ta);
    nn_board_shift best = { 0, 0, -1, src->ncells, dst->ncells };
    double best_d = INFINITY;
    for (int da = -src->grid_h; da <= dst->grid_h; da++)
        for (int dq = -src->grid_w; dq <= dst->grid_w; dq++) {
            int n = 0;
            for (int i = 0; i < src->ncells; i++) n += target_row(src, dst, i, dq, da) >= 0;
            double d = hex_dist(sq + dq - tq, sa + da - ta);
            bool closer = d < best_d - 1e-9, as_close = fabs(d - best_d) <= 1e-9;
            bool smaller = abs(dq) + abs(da) < abs(best.dq) + abs(best.da);
            if (n > best.mapped || (n == best.mapped && (closer || (as_close && smaller)))) {
                best.dq = dq;
                best.da = da;
                best.mapped = n;
                best_d = d;
            }
        }
    return best;
}

nn_board_shift nn_transfer_shift(zz_board_kind from, zz_board_kind to)
{
    nn_geom src, dst;
    nn_geom_init(&src, from);
    nn_geom_init(&dst, to);
    return best_shift(&src, &dst);
}

/* value.fc1.w[P·Cv][Vh]: target cell rows from the source cell under them, zero elsewhere. */
static void move_value_rows(nn_model *dst, const nn_model *src, const nn_view *dv, const nn_view *sv, nn_board_shift s)
{
    size_t row = (size_t)src->cfg.value_channels * (size_t)src->cfg.value_hidden;   /* one cell's Cv·Vh weights */
    for (size_t k = 0; k < dv->count; k++) nn_buf_set(dst, dst->param, dv->offset + k, 0.0);
    for (int i = 0; i < src->geom.ncells; i++) {
        int j = target_row(&src->geom, &dst->geom, i, s.dq, s.da);
        if (j < 0) continue;
        for (size_t k = 0; k < row; k++)
            nn_buf_set(dst, dst->param, dv->offset + (size_t)j * row + k,
                       nn_buf_get(src, src->param, sv->offset + (size_t)i * row + k));
    }
}

nn_model *nn_model_transfer(const nn_model *src, zz_board_kind board, nn_board_shift *shift, char *err, size_t errlen)
{
    nn_config c = src->cfg;
    c.board = board;
    nn_model *dst = nn_model_create(&c, src->dtype, 1, err, errlen);
    if (!dst) return NULL;
    nn_board_shift s = best_shift(&src->geom, &dst->geom);
    const nn_view *fc1 = &src->views[src->val_fc1];
    for (int k = 0; k < src->nviews; k++) {
        const nn_view *sv = &src->views[k];
        const nn_view *dv = nn_model_view(dst, sv->name);
        if (!dv) {
            nn_set_err(err, errlen, "transfer: the %s tensor has no counterpart", sv->name);
            nn_model_free(dst);
            return NULL;
        }
        if (sv == fc1) {
            move_value_rows(dst, src, dv, sv, s);
            continue;
        }
        if (dv->count != sv->count) {      /* every other tensor is board-free (transfer.h) */
            nn_set_err(err, errlen, "transfer: the %s tensor depends on the board", sv->name);
            nn_model_free(dst);
            return NULL;
        }
        void *db = sv->stat ? dst->stats : dst->param;
        const void *sb = sv->stat ? src->stats : src->param;
        for (size_t e = 0; e < sv->count; e++)
            nn_buf_set(dst, db, dv->offset + e, nn_buf_get(src, sb, sv->offset + e));
    }
    memset(dst->mom, 0, dst->nparams * dst->esize);
    if (shift) *shift = s;
    return dst;
}
