/* sym_eval.c — the symmetric ensemble of sym_eval.h: the images of one position, evaluated in one
 * batch, and their priors mapped back onto the position's moves through a sorted (move, index)
 * table of each image's moves. */
#include "sym_eval.h"
#include "game/symmetry.h"
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    zz_pos pos[12];                      /* the images s(p) */
    zz_move moves[12][ZZ_MAX_MOVES];     /* their legal moves, generator order */
    float priors[12][ZZ_MAX_MOVES];      /* the evaluator's priors over them */
    uint64_t table[ZZ_MAX_MOVES];        /* one image's (move << 32 | index), sorted */
} sym_scratch;

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The index of move m in the sorted table of n entries, or -1. */
static int find_move(const uint64_t *table, int n, zz_move m) {
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        zz_move x = (zz_move)(table[mid] >> 32);
        if (x == m) return (int)(table[mid] & 0xFFFFFFFFu);
        if (x < m) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
}

int mcts_eval_symmetric(mcts_evaluator *ev, const zz_pos *p, const zz_move *moves, int n, int k, float *priors,
                        float *value, char *err, size_t errlen) {
    int nsyms = zz_board_nsyms((zz_board_kind)p->board);
    if (k < 1) k = 1;
    if (k > nsyms) k = nsyms;
    sym_scratch *w = malloc(sizeof *w);
    if (!w) { snprintf(err, errlen, "out of memory"); return -1; }
    mcts_eval_item items[12];
    for (int s = 0; s < k; s++) {
        zz_sym_pos(zz_board_sym((zz_board_kind)p->board, s), p, &w->pos[s]);
        items[s] = (mcts_eval_item){ .pos = &w->pos[s], .moves = w->moves[s],
                                     .nmoves = zz_gen_moves(&w->pos[s], w->moves[s]), .priors = w->priors[s] };
    }
    int rc = mcts_evaluate(ev, items, k, err, errlen);
    for (int i = 0; i < n && rc == 0; i++) priors[i] = 0;
    double v = 0;
    for (int s = 0; s < k && rc == 0; s++) {
        const zz_sym *sym = zz_board_sym((zz_board_kind)p->board, s);
        int m = items[s].nmoves;
        for (int j = 0; j < m; j++) w->table[j] = (uint64_t)w->moves[s][j] << 32 | (uint32_t)j;
        qsort(w->table, (size_t)m, sizeof *w->table, cmp_u64);
        for (int i = 0; i < n; i++) {
            int j = find_move(w->table, m, zz_sym_move(sym, moves[i]));
            if (j < 0) {
                snprintf(err, errlen, "move %d of %d is not legal in the position", i + 1, n);
                rc = -1;
                break;
            }
            priors[i] += w->priors[s][j] / (float)k;
        }
        v += items[s].value;
    }
    if (rc == 0) *value = (float)(v / k);
    free(w);
    return rc;
}
