/* board.c — tables of the three boards (Boardspace's nInCol/firstInCol, RULES.md §3) mapped onto
 * the shared 128-cell layout, and cell-name parsing/printing. */
#include "board.h"
#include <pthread.h>
#include <ctype.h>
#include <string.h>

/* Boardspace direction order (dx,dy) = (-1,-1) (-1,+1) (0,+2) (+1,+1) (+1,-1) (0,-2), i.e. in grid
 * coordinates (dq,da) = (-1,-1) (-1,0) (0,+1) (+1,+1) (+1,0) (0,-1). */
const int ZZ_DIR_DQ[6] = { -1, -1, 0, +1, +1, 0 };
const int ZZ_DIR_DA[6] = { -1, 0, +1, +1, 0, -1 };
const int ZZ_DIR_OFFSET[6] = { -ZZ_STRIDE - 1, -1, +ZZ_STRIDE, +ZZ_STRIDE + 1, +1, -ZZ_STRIDE };

typedef struct { int rings; const char *variant; int ncols; int n_in_col[9]; int first_in_col[9]; } board_spec;

static const board_spec SPECS[ZZ_NBOARDS] = {
    { 37, "Zertz",    7, { 4, 5, 6, 7, 6, 5, 4 },          { 3, 2, 1, 0, 1, 2, 3 } },
    { 48, "Zertz+11", 8, { 5, 6, 7, 8, 7, 6, 5, 4 },       { 3, 2, 1, 0, 1, 2, 3, 4 } },
    { 61, "Zertz+24", 9, { 5, 6, 7, 8, 9, 8, 7, 6, 5 },    { 4, 3, 2, 1, 0, 1, 2, 3, 4 } },
};

static zz_board boards[ZZ_NBOARDS];
static pthread_once_t boards_once = PTHREAD_ONCE_INIT;

static void build_board(zz_board *b, zz_board_kind kind) {
    const board_spec *s = &SPECS[kind];
    memset(b, 0, sizeof *b);
    b->kind = kind;
    b->rings = s->rings;
    b->variant = s->variant;
    b->ncols = s->ncols;
    memset(b->col, -1, sizeof b->col);
    memset(b->row, -1, sizeof b->row);
    memset(b->index, -1, sizeof b->index);
    memset(b->at, ZZ_NO_CELL, sizeof b->at);
    /* Boardspace's y = firstInCol + 2(row-1); y + col has the same parity on the whole board, so
     * a = (y + col - parity)/2 is an axial row; shift it so that the lowest is 0. */
    int parity = (s->first_in_col[0]) & 1, amin = 1 << 20, amax = -(1 << 20);
    for (int c = 0; c < s->ncols; c++) {
        int a0 = (s->first_in_col[c] + c - parity) / 2;
        if (a0 < amin) amin = a0;
        if (a0 + s->n_in_col[c] - 1 > amax) amax = a0 + s->n_in_col[c] - 1;
    }
    b->grid_w = s->ncols;
    b->grid_h = amax - amin + 1;
    for (int c = 0; c < s->ncols; c++) {
        b->n_in_col[c] = s->n_in_col[c];
        int a0 = (s->first_in_col[c] + c - parity) / 2 - amin;
        for (int r = 1; r <= s->n_in_col[c]; r++) {
            int cell = zz_cell_of(c, a0 + r - 1);
            b->col[cell] = (int8_t)c;
            b->row[cell] = (int8_t)r;
            b->at[c][r] = (uint8_t)cell;
            b->index[cell] = (int8_t)b->ncells;
            b->cells[b->ncells++] = (uint8_t)cell;
            b->mask |= zz_bit(cell);
        }
    }
}

static void build_all(void) {
    for (int k = 0; k < ZZ_NBOARDS; k++) build_board(&boards[k], (zz_board_kind)k);
}

const zz_board *zz_board_get(zz_board_kind kind) {
    pthread_once(&boards_once, build_all);
    return (unsigned)kind < ZZ_NBOARDS ? &boards[kind] : NULL;
}

const zz_board *zz_board_for_rings(int rings) {
    for (int k = 0; k < ZZ_NBOARDS; k++)
        if (SPECS[k].rings == rings) return zz_board_get((zz_board_kind)k);
    return NULL;
}

int zz_cell_from_colrow(const zz_board *b, char col_letter, int row) {
    int c = tolower((unsigned char)col_letter) - 'a';
    if (b->kind == ZZ_B61 && c == 'j' - 'a') c = 'i' - 'a';      /* hiive writes i as j */
    if (c < 0 || c >= b->ncols || row < 1 || row > b->n_in_col[c]) return -1;
    return b->at[c][row];
}

int zz_parse_cell(const zz_board *b, const char **s) {
    const char *p = *s;
    if (!isalpha((unsigned char)p[0]) || !isdigit((unsigned char)p[1])) return -1;
    int row = 0, n = 1;
    while (isdigit((unsigned char)p[n]) && n < 4) row = row * 10 + (p[n++] - '0');
    if (isdigit((unsigned char)p[n])) return -1;
    int cell = zz_cell_from_colrow(b, p[0], row);
    if (cell >= 0) *s = p + n;
    return cell;
}

int zz_cell_name(const zz_board *b, int cell, char *out) {
    if (cell < 0 || cell >= ZZ_NCELLS || b->col[cell] < 0) { strcpy(out, "??"); return 2; }
    out[0] = (char)('a' + b->col[cell]);
    int r = b->row[cell], n = 1;
    if (r >= 10) out[n++] = (char)('0' + r / 10);
    out[n++] = (char)('0' + r % 10);
    out[n] = 0;
    return n;
}

int zz_nth_bit(zz_bits s, int k) {
    uint64_t lo = (uint64_t)s;
    int nlo = __builtin_popcountll(lo);
    uint64_t w = lo;
    int base = 0;
    if (k >= nlo) { k -= nlo; w = (uint64_t)(s >> 64); base = 64; }
#if defined(__BMI2__)
    return base + __builtin_ctzll(__builtin_ia32_pdep_di(1ULL << k, w));
#else
    while (k-- > 0) w &= w - 1;
    return base + __builtin_ctzll(w);
#endif
}

zz_bits zz_neighbours(zz_bits s) {
    zz_bits n = 0;
    for (int d = 0; d < 6; d++) n |= zz_step(s, d);
    return n;
}
