/* xx_rules.c — the Zèrtz rules on a Zertz+xx layout (xx.h): one byte per Boardspace cell. */
#include "xx.h"
#include <stdio.h>
#include <string.h>

static const int DX[6] = { -1, -1, 0, 1, 1, 0 }, DY[6] = { -1, 1, 2, 1, -1, -2 };

static int first_in_col(int col) { return 1 + (col & 1); }

int zz_xx_neighbour(int c, int d) {
    int col = c / ZZ_XX_ROWS, row = c % ZZ_XX_ROWS;           /* row 0-based */
    int x = col + DX[d % 6], y = first_in_col(col) + 2 * row + DY[d % 6];
    if (x < 0 || x >= ZZ_XX_COLS) return -1;
    int r2 = y - first_in_col(x);
    if (r2 < 0 || r2 % 2 || r2 / 2 >= ZZ_XX_ROWS) return -1;
    return x * ZZ_XX_ROWS + r2 / 2;
}

int zz_xx_cell_name(int c, char *out) {
    return sprintf(out, "%c%d", 'a' + c / ZZ_XX_ROWS, c % ZZ_XX_ROWS + 1);
}

static bool has_ring(const zz_xx_pos *p, int c) { return c >= 0 && p->cell[c] != ZZ_XX_NONE; }
static bool has_marble(const zz_xx_pos *p, int c) { return c >= 0 && p->cell[c] >= 2; }

bool zz_xx_free_ring(const zz_xx_pos *p, int c) {
    if (p->cell[c] != ZZ_XX_RING) return false;
    for (int d = 0; d < 6; d++)
        if (!has_ring(p, zz_xx_neighbour(c, d)) && !has_ring(p, zz_xx_neighbour(c, d + 1))) return true;
    return false;
}

bool zz_xx_any_free_ring(const zz_xx_pos *p) {
    for (int c = 0; c < ZZ_XX_CELLS; c++)
        if (zz_xx_free_ring(p, c)) return true;
    return false;
}

bool zz_xx_can_jump_from(const zz_xx_pos *p, int c) {
    if (!has_marble(p, c)) return false;
    for (int d = 0; d < 6; d++) {
        int mid = zz_xx_neighbour(c, d), to = mid >= 0 ? zz_xx_neighbour(mid, d) : -1;
        if (has_marble(p, mid) && to >= 0 && p->cell[to] == ZZ_XX_RING) return true;
    }
    return false;
}

bool zz_xx_any_jump(const zz_xx_pos *p) {
    for (int c = 0; c < ZZ_XX_CELLS; c++)
        if (zz_xx_can_jump_from(p, c)) return true;
    return false;
}

void zz_xx_settle_isolation(zz_xx_pos *p, int who) {
    uint8_t reach[ZZ_XX_CELLS] = { 0 };
    int stack[ZZ_XX_CELLS], n = 0;
    for (int c = 0; c < ZZ_XX_CELLS; c++)
        if (p->cell[c] == ZZ_XX_RING) { reach[c] = 1; stack[n++] = c; }
    while (n) {
        int c = stack[--n];
        for (int d = 0; d < 6; d++) {
            int e = zz_xx_neighbour(c, d);
            if (e >= 0 && !reach[e] && p->cell[e] != ZZ_XX_NONE) { reach[e] = 1; stack[n++] = e; }
        }
    }
    for (int c = 0; c < ZZ_XX_CELLS; c++)
        if (p->cell[c] >= 2 && !reach[c]) {
            p->cap[who][p->cell[c] - 2]++;
            p->cell[c] = ZZ_XX_NONE;
        }
}
