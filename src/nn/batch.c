/* batch.c — samples -> encoded, augmented training batches (see batch.h). */
#include "nn/batch.h"
#include "nn/util.h"
#include "game/symmetry.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int nn_move_key_count(const nn_geom *g)
{
    int P = g->ncells;
    return 3 * P * (P + 1) + P * P;
}

int nn_move_key(const nn_geom *g, zz_move m)
{
    int P = g->ncells, a = zz_move_a(m), b = zz_move_b(m);
    int ia = g->index[a], ib = b == ZZ_NO_CELL ? P : g->index[b];
    if (ia < 0 || ib < 0) return -1;
    if (zz_move_kind(m) == ZZ_MOVE_PLACE) {
        int c = zz_move_colour(m);
        return c > 2 ? -1 : (c * P + ia) * (P + 1) + ib;
    }
    if (zz_move_kind(m) == ZZ_MOVE_JUMP && ib < P) return 3 * P * (P + 1) + ia * P + ib;
    return -1;
}

void nn_batch_init(nn_batch *b)
{
    memset(b, 0, sizeof *b);
}

void nn_batch_free(nn_batch *b)
{
    free(b->x); free(b->z); free(b->aux); free(b->aux_known); free(b->sym); free(b->start);
    free(b->moves); free(b->term); free(b->pi);
    free(b->lut); free(b->scratch);
    nn_batch_init(b);
}

static int reserve_samples(nn_batch *b, int n)
{
    if (n <= b->cap) return 0;
    float *x = realloc(b->x, sizeof(float) * (size_t)n * ZZ_MAX_RINGS * NN_PLANES);
    if (x) b->x = x;
    float *z = realloc(b->z, sizeof(float) * (size_t)n);
    if (z) b->z = z;
    float *aux = realloc(b->aux, sizeof(float) * (size_t)n * NN_AUX);
    if (aux) b->aux = aux;
    uint8_t *known = realloc(b->aux_known, (size_t)n);
    if (known) b->aux_known = known;
    uint8_t *sym = realloc(b->sym, (size_t)n);
    if (sym) b->sym = sym;
    int *start = realloc(b->start, sizeof(int) * ((size_t)n + 1));
    if (start) b->start = start;
    if (!x || !z || !aux || !known || !sym || !start) return -1;
    b->cap = n;
    return 0;
}

static int reserve_moves(nn_batch *b, int n)
{
    if (n <= b->moves_cap) return 0;
    int cap = b->moves_cap ? b->moves_cap : 4096;
    while (cap < n) cap *= 2;
    zz_move *mv = realloc(b->moves, sizeof(zz_move) * (size_t)cap);
    if (mv) b->moves = mv;
    int32_t *term = realloc(b->term, sizeof(int32_t) * 2 * (size_t)cap);
    if (term) b->term = term;
    float *pi = realloc(b->pi, sizeof(float) * (size_t)cap);
    if (pi) b->pi = pi;
    if (!mv || !term || !pi) return -1;
    b->moves_cap = cap;
    return 0;
}

int nn_aux_target(const zz_pos *pos, const nn_final_caps *fin, float t[NN_AUX])
{
    for (int c = 0; c < 3; c++) {
        int total = pos->pool[c] + zz_popcount(pos->marble[c]) + pos->cap[0][c] + pos->cap[1][c];
        if (total == 0 || fin->cap[0][c] + fin->cap[1][c] > total) return -1;
        for (int s = 0; s < 2; s++)         /* may be below pos's: with the pool empty a player places its own */
            t[s * 3 + c] = (float)fin->cap[s][c] / (float)total;
    }
    return 0;
}

int nn_batch_build(nn_batch *b, const nn_geom *g, const nn_sample *s, int n, const int *syms,
                   uint64_t *rng, char *err, size_t errlen)
{
    if (n < 0) { nn_set_err(err, errlen, "negative batch size"); return -1; }
    if (b->geom.ncells != g->ncells || b->geom.kind != g->kind) {
        free(b->lut);
        b->lut = NULL;
    }
    b->geom = *g;
    if (!b->lut) {
        int nk = nn_move_key_count(g);
        b->lut = malloc(sizeof(int32_t) * (size_t)nk);
        if (!b->lut) goto oom;
        for (int k = 0; k < nk; k++) b->lut[k] = -1;
    }
    if (!b->scratch && !(b->scratch = malloc(sizeof(zz_move) * ZZ_MAX_MOVES))) goto oom;
    if (reserve_samples(b, n > 0 ? n : 1)) goto oom;
    int P = g->ncells, nsyms = zz_board_nsyms(g->kind);
    b->n = 0;
    b->nmoves = 0;
    b->start[0] = 0;
    for (int i = 0; i < n; i++) {
        const nn_sample *sm = &s[i];
        if (sm->pos.board != g->kind) { nn_set_err(err, errlen, "sample %d: position is on another board", i); return -1; }
        if (zz_over(&sm->pos)) { nn_set_err(err, errlen, "sample %d: the game is over", i); return -1; }
        int k = syms ? syms[i] : rng ? (int)zz_rand_below(rng, (uint32_t)nsyms) : 0;
        if (k < 0 || k >= nsyms) { nn_set_err(err, errlen, "sample %d: symmetry %d not in 0..%d", i, k, nsyms - 1); return -1; }
        const zz_sym *sym = zz_board_sym(g->kind, k);
        zz_pos q;
        zz_sym_pos(sym, &sm->pos, &q);
        nn_encode(g, &q, b->x + (size_t)i * P * NN_PLANES);
        b->sym[i] = (uint8_t)k;
        b->z[i] = sm->z;
        b->aux_known[i] = sm->fin.known != 0;
        if (!sm->fin.known) memset(b->aux + (size_t)i * NN_AUX, 0, sizeof(float) * NN_AUX);
        else if (nn_aux_target(&sm->pos, &sm->fin, b->aux + (size_t)i * NN_AUX)) {
            nn_set_err(err, errlen, "sample %d: its game's final captures cannot follow the position", i);
            return -1;
        }
        int nm = zz_gen_moves(&q, b->scratch);
        if (reserve_moves(b, b->nmoves + nm)) goto oom;
        int base = b->nmoves;
        for (int j = 0; j < nm; j++) {
            zz_move mv = b->scratch[j];
            b->moves[base + j] = mv;
            b->pi[base + j] = 0;
            if (nn_move_terms(g, &q, mv, b->term + 2 * (size_t)(base + j)) < 0) {
                nn_set_err(err, errlen, "sample %d: generated move %u does not fit the board", i, (unsigned)mv);
                return -1;
            }
        }
        for (int j = 0; j < nm; j++) b->lut[nn_move_key(g, b->moves[base + j])] = base + j;
        double total = 0;
        int bad = -1;
        for (int v = 0; v < sm->nvisits && bad < 0; v++) {
            zz_move mv = zz_sym_move(sym, sm->visits[v].move);
            int key = nn_move_key(g, mv), idx = key < 0 ? -1 : b->lut[key];
            if (idx < 0) bad = v;
            else { b->pi[idx] += (float)sm->visits[v].count; total += sm->visits[v].count; }
        }
        for (int j = 0; j < nm; j++) b->lut[nn_move_key(g, b->moves[base + j])] = -1;
        if (bad >= 0) {
            nn_set_err(err, errlen, "sample %d: visited move %u is not legal in the position", i,
                    (unsigned)sm->visits[bad].move);
            return -1;
        }
        if (total <= 0) { nn_set_err(err, errlen, "sample %d: no visits", i); return -1; }
        for (int j = 0; j < nm; j++) b->pi[base + j] = (float)(b->pi[base + j] / total);
        b->nmoves += nm;
        b->start[i + 1] = b->nmoves;
        b->n = i + 1;
    }
    b->targets.n = b->n;
    b->targets.start = b->start;
    b->targets.term = b->term;
    b->targets.pi = b->pi;
    return 0;
oom:
    nn_set_err(err, errlen, "out of memory");
    return -1;
}
