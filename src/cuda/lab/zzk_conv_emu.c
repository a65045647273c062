/* zzk_conv_emu.c — a host emulation of kernels.cuh's zzk_conv (same tiles, same per-thread loops,
 * __syncthreads as phase boundaries), for checking its index math on a machine without a GPU:
 * it compares with nn_conv_forward_f / nn_matmul_forward_f on the three boards and checks that a
 * sample alone gives bit-identical rows to the same sample inside a batch.  It is a copy of the
 * kernel's logic in C: when zzk_conv changes, change this too (or retire it once GPU tests run).
 *   gcc -O1 -std=c11 -Isrc -fopenmp src/cuda/lab/zzk_conv_emu.c build/libzertz.a -lm \
 *       -L/usr/local/cuda/lib64 -Wl,-rpath,/usr/local/cuda/lib64 -lcudart -lstdc++ -o build/zzk_conv_emu \
 *       && ./build/zzk_conv_emu
 * It also runs net.cu's layer sequence (enqueue) over zz_cuda_fold / zz_cu_layout with the
 * emulated kernel and compares it with nn_infer_forward.
 * (Passed in the session that wrote zzk_conv, which had no GPU: kernel ≤ 3e-7 relative, whole net ≤ 2e-7 vs nn_infer.) */
#include "nn/geom.h"
#include "nn/ops.h"
#include "nn/infer.h"
#include "cuda/infer_cuda.h"
#include "cuda/net.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
enum { BM = 64, BN = 64, BK = 16, NT = 256 };
static void emu(const float *x, const float *w, const float *b, const float *res, float *y, const int *nb,
                int rows, int P, int taps, int ci, int co, int act)
{
    int gx = (rows + BM - 1) / BM, gy = (co + BN - 1) / BN, K = taps * ci;
    static float As[BK][BM + 4], Bs[BK][BN], acc[NT][4][4];
    for (int bx = 0; bx < gx; bx++) for (int by = 0; by < gy; by++) {
        int m0 = bx * BM, n0 = by * BN;
        memset(acc, 0, sizeof acc);
        for (int k0 = 0; k0 < K; k0 += BK) {
            for (int tid = 0; tid < NT; tid++) {
                for (int i = 0; i < (BM * BK) / NT; i++) {
                    int e = tid + NT * i, m = e / BK, kk = e % BK, r = m0 + m, k = k0 + kk;
                    float v = 0.f;
                    if (r < rows && k < K) {
                        int t = k / ci, c = k - t * ci, src = r;
                        if (nb) { int s = r / P, p = r - s * P, q = nb[p * taps + t]; src = q < 0 ? -1 : s * P + q; }
                        if (src >= 0) v = x[(size_t)src * ci + c];
                    }
                    As[kk][m] = v;
                }
                for (int i = 0; i < (BN * BK) / NT; i++) {
                    int e = tid + NT * i, kk = e / BN, nn = e % BN, k = k0 + kk, col = n0 + nn;
                    Bs[kk][nn] = (k < K && col < co) ? w[(size_t)k * co + col] : 0.f;
                }
            }
            for (int tid = 0; tid < NT; tid++) {
                int tx = tid & 15, ty = tid >> 4;
                for (int kk = 0; kk < BK; kk++)
                    for (int i = 0; i < 4; i++) for (int j = 0; j < 4; j++)
                        acc[tid][i][j] = fmaf(As[kk][ty + 16 * i], Bs[kk][tx + 16 * j], acc[tid][i][j]);
            }
        }
        for (int tid = 0; tid < NT; tid++) {
            int tx = tid & 15, ty = tid >> 4;
            for (int i = 0; i < 4; i++) {
                int r = m0 + ty + 16 * i;
                if (r >= rows) continue;
                for (int j = 0; j < 4; j++) {
                    int col = n0 + tx + 16 * j;
                    if (col >= co) continue;
                    float v = acc[tid][i][j] + b[col];
                    if (res) v += res[(size_t)r * co + col];
                    if (act == 1) v = v < 0.f ? 0.f : v; else if (act == 2) v = tanhf(v);
                    y[(size_t)r * co + col] = v;
                }
            }
        }
    }
}

/* net.cu's enqueue, layer by layer, with the emulated kernel (keep in step with net.cu). */
static double emu_net(zz_board_kind kind)
{
    char err[256];
    nn_config c;
    nn_config_default(&c, kind);
    c.blocks = 2;
    nn_model *m = nn_model_create(&c, NN_F32, 5, err, sizeof err);
    for (int v = 0; v < m->nviews; v++) {           /* non-trivial BN */
        const char *dot = strrchr(m->views[v].name, '.');
        void *buf = m->views[v].stat ? m->stats : m->param;
        for (size_t k = 0; k < m->views[v].count; k++) {
            double r = (double)rand() / RAND_MAX;
            if (!strcmp(dot, ".gamma")) nn_buf_set(m, buf, m->views[v].offset + k, 0.5 + r);
            else if (!strcmp(dot, ".beta") || !strcmp(dot, ".mean") || !strcmp(dot, ".b")) nn_buf_set(m, buf, m->views[v].offset + k, 0.4 * (r - 0.5));
            else if (!strcmp(dot, ".var")) nn_buf_set(m, buf, m->views[v].offset + k, 0.5 + 1.5 * r);
        }
    }
    int P = m->geom.ncells, N = 4, C = c.channels, B = c.blocks, nb[61 * 7];
    for (int i = 0; i < P; i++) for (int t = 0; t < 7; t++) nb[i * 7 + t] = m->geom.nb[i][t];
    zz_cu_desc d = { P, NN_PLANES, C, B, c.policy_channels, c.value_channels, c.value_hidden, NN_HEADS, &m->geom.nb[0][0] };
    zz_cu_layer L[64];
    size_t nw = zz_cu_layout(&d, L);
    float *W = malloc(nw * 4);
    if (zz_cuda_fold(m, W) != nw) return 1;
    size_t rows = (size_t)N * P;
    float *x = malloc(rows * NN_PLANES * 4), *a = malloc(rows * C * 4), *bb = malloc(rows * C * 4), *u = malloc(rows * C * 4);
    float *pp = malloc(rows * 64 * 4), *vv = malloc(rows * 64 * 4), *hh = malloc((size_t)N * 512 * 4);
    float *lg = malloc(rows * NN_HEADS * 4), *val = malloc(N * 4), *lc = malloc(rows * NN_HEADS * 4), *vc = malloc(N * 4);
    for (size_t i = 0; i < rows * NN_PLANES; i++) x[i] = (float)rand() / RAND_MAX - 0.5f;
#define CONV(y, xin, l, res, n, p, act) emu(xin, W + (l).w, W + (l).b, res, y, (l).taps == 7 ? nb : NULL, (n) * (p), p, (l).taps, (l).ci, (l).co, act)
    CONV(a, x, L[0], NULL, N, P, 1);
    for (int b = 0; b < B; b++) {
        CONV(u, a, L[1 + 2 * b], NULL, N, P, 1);
        CONV(bb, u, L[2 + 2 * b], a, N, P, 1);
        float *t = a; a = bb; bb = t;
    }
    const zz_cu_layer *pol1 = &L[1 + 2 * B], *pol2 = pol1 + 1, *vl = pol1 + 2, *fc1 = pol1 + 3, *fc2 = pol1 + 4;
    CONV(pp, a, *pol1, NULL, N, P, 1);
    CONV(lg, pp, *pol2, NULL, N, P, 0);
    CONV(vv, a, *vl, NULL, N, P, 1);
    CONV(hh, vv, *fc1, NULL, N, 1, 1);
    CONV(val, hh, *fc2, NULL, N, 1, 2);
#undef CONV
    nn_infer *inf = nn_infer_create(m, err, sizeof err);
    nn_infer_forward(inf, x, N, lc, vc, err, sizeof err);
    double worst = 0, sc = 1e-2;
    for (size_t i = 0; i < rows * NN_HEADS; i++) { worst = fmax(worst, fabs(lg[i] - lc[i])); sc = fmax(sc, fabs(lc[i])); }
    double e = worst / sc;
    for (int i = 0; i < N; i++) e = fmax(e, fabs(val[i] - vc[i]));
    nn_infer_free(inf);
    nn_model_free(m);
    return e;
}

int main(void)
{
    int bad = 0;
    for (int kind = 0; kind < 3; kind++) {
        nn_geom g; nn_geom_init(&g, kind);
        int P = g.ncells, N = 3, nbh[61 * 7];
        for (int i = 0; i < P; i++) for (int t = 0; t < 7; t++) nbh[i * 7 + t] = g.nb[i][t];
        int cs[][5] = { { 7, 64, 64, 1, 1 }, { 7, 16, 64, 1, 0 }, { 1, 64, 6, 0, 0 }, { 7, 5, 3, 0, 1 }, { 1, 37, 1, 2, 0 }, {7, 20, 70, 1, 1} };
        for (int c = 0; c < 6; c++) {
            int taps = cs[c][0], ci = cs[c][1], co = cs[c][2], act = cs[c][3], rows = N * P;
            size_t nx = (size_t)rows * ci, nw = (size_t)taps * ci * co, ny = (size_t)rows * co;
            float *x = malloc(nx * 4), *w = malloc(nw * 4), *b = malloc(co * 4), *res = malloc(ny * 4), *ref = malloc(ny * 4), *got = malloc(ny * 4);
            for (size_t i = 0; i < nx; i++) x[i] = (float)rand() / RAND_MAX - 0.5f;
            for (size_t i = 0; i < nw; i++) w[i] = (float)rand() / RAND_MAX - 0.5f;
            for (int i = 0; i < co; i++) b[i] = (float)rand() / RAND_MAX - 0.5f;
            for (size_t i = 0; i < ny; i++) res[i] = (float)rand() / RAND_MAX - 0.5f;
            if (taps == 7) nn_conv_forward_f(ref, x, w, &g, N, ci, co); else nn_matmul_forward_f(ref, x, w, NULL, rows, ci, co);
            for (size_t r = 0; r < (size_t)rows; r++) for (int o = 0; o < co; o++) {
                float v = ref[r * co + o] + b[o] + (cs[c][4] ? res[r * co + o] : 0);
                ref[r * co + o] = act == 1 ? (v < 0 ? 0 : v) : act == 2 ? tanhf(v) : v;
            }
            emu(x, w, b, cs[c][4] ? res : NULL, got, taps == 7 ? nbh : NULL, rows, P, taps, ci, co, act);
            double worst = 0, sc = 1e-3;
            for (size_t i = 0; i < ny; i++) { worst = fmax(worst, fabs(got[i] - ref[i])); sc = fmax(sc, fabs(ref[i])); }
            float *one = malloc((size_t)P * co * 4);
            emu(x + (size_t)P * ci, w, b, cs[c][4] ? res + (size_t)P * co : NULL, one, taps == 7 ? nbh : NULL, P, P, taps, ci, co, act);
            int same = !memcmp(one, got + (size_t)P * co, (size_t)P * co * 4);
            printf("board %d case %d: rel err %.3g alone==batch %d\n", kind, c, worst / sc, same);
            bad |= worst / sc > 2e-5 || !same;
        }
    }
    for (int kind = 0; kind < 3; kind++) {
        double e = emu_net((zz_board_kind)kind);
        printf("board %d: emulated net vs nn_infer: error %.3g\n", kind, e);
        bad |= !(e < 1e-4);
    }
    return bad;
}
