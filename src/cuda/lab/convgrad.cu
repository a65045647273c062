// convgrad.cu — kernel lab (llm.c dev/cuda style) for the hex convolution's weight gradient, the
// heaviest reduction of a training step:
//   dw[t][ci][co] += sum over rows r of x[src(r,t)][ci] · dy[r][co]     (src through nb[P][7])
// Both versions write float partial sums over fixed chunks of ZZT_DW_CHUNK rows and add them in
// order with the library's reduce kernel, so they are deterministic and, summing each chunk's
// rows in the same order with the same fmaf, bit-identical to each other.  Each version is
// checked against the CPU reference (nn_conv_backward_f of src/nn) by relative error, then timed
// with CUDA events.
//
// Build and run (from the repository root, after `make` has built build/libzertz.a):
//   nvcc -O3 -std=c++17 -Isrc -arch=sm_90 src/cuda/lab/convgrad.cu build/libzertz.a -Xcompiler -fopenmp \
//        -o build/lab_convgrad && ./build/lab_convgrad          # all versions, 37 rings, N=256, C=64
//   ./build/lab_convgrad 2 61 1024 64                            # version 2, 61 rings, N=1024, C=64
// Arguments: [version (0 = all)] [rings 37|48|61] [N] [C (Ci = Co)].
//
// Versions:
//   1  the library's (train_kernels.h zzk_dw_part): one thread per (chunk, t, ci, co) output,
//      rows from global memory (x broadcast across the co threads, dy coalesced)
//   2  tiled, now the library's kernels.cuh zzk_dw_tiled (the training backend's): a block computes
//      a 64 (t·ci) × 64 (co) tile of one chunk's partial; 16 rows at a time through shared memory
//      (the gathered x rows and the dy rows), 4×4 outputs per thread
// First run on an H200 on 2026-11-25 (src/cuda/NOTES.md).
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda/train_ops.h"
#include "cuda/kernels.cuh"
extern "C" {
#include "nn/geom.h"
#include "nn/ops.h"
}

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) {                               \
    fprintf(stderr, "lab_convgrad: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

typedef struct {
    const zzt_backend *be;
    zzt_ctx *ctx;
    float *x, *dy, *dw, *part;
    const int *nb;
    int rows, P, ci, co;
} lab_t;

static void run(const lab_t *L, int version)
{
    char err[320];
    if (version == 1) {
        if (zzt_conv_backward(L->ctx, NULL, L->dw, NULL, L->dy, L->x, NULL, L->nb, L->rows, L->P, 7, L->ci, L->co)) {
            fprintf(stderr, "lab_convgrad: %s\n", zzt_error(L->ctx));
            exit(1);
        }
        return;
    }
    int chunks = (L->rows + ZZT_DW_CHUNK - 1) / ZZT_DW_CHUNK, K = 7 * L->ci;
    CK(zzk_dw_launch(0, L->part, L->x, L->dy, L->nb, L->rows, L->P, 7, L->ci, L->co, ZZT_DW_CHUNK, false));
    zzt_args a = {};
    a.y = L->dw;
    a.part = L->part;
    a.k = (int64_t)K * L->co;
    a.nchunks = chunks;
    if (L->be->launch(ZZT_REDUCE_ADD, a.k, &a, err, sizeof err)) { fprintf(stderr, "lab_convgrad: %s\n", err); exit(1); }
}

int main(int argc, char **argv)
{
    int only = argc > 1 ? atoi(argv[1]) : 0, rings = argc > 2 ? atoi(argv[2]) : 37;
    int N = argc > 3 ? atoi(argv[3]) : 256, C = argc > 4 ? atoi(argv[4]) : 64;
    char err[320];
    lab_t L = {};
    if (!(L.be = zzt_cuda_backend(err, sizeof err))) { fprintf(stderr, "lab_convgrad: no GPU: %s\n", err); return 1; }
    if (!(L.ctx = zzt_ctx_new(L.be, err, sizeof err))) { fprintf(stderr, "lab_convgrad: %s\n", err); return 1; }
    zz_board_kind kind = rings == 61 ? ZZ_B61 : rings == 48 ? ZZ_B48 : ZZ_B37;
    nn_geom g;
    nn_geom_init(&g, kind);
    L.P = g.ncells;
    L.ci = L.co = C;
    L.rows = N * L.P;
    size_t nx = (size_t)L.rows * C, nw = (size_t)7 * C * C;
    int chunks = (L.rows + ZZT_DW_CHUNK - 1) / ZZT_DW_CHUNK;
    float *x = (float *)malloc(nx * 4), *dy = (float *)malloc(nx * 4), *ref = (float *)calloc(nw, 4);
    float *got = (float *)malloc(nw * 4), *got1 = (float *)malloc(nw * 4);
    int nbh[ZZ_MAX_RINGS * 7];
    for (int i = 0; i < L.P; i++) for (int t = 0; t < 7; t++) nbh[i * 7 + t] = g.nb[i][t];
    unsigned s = 12345;
    auto rnd = [&]() { s = s * 1664525u + 1013904223u; return (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f + 1e-4f; };
    for (size_t i = 0; i < nx; i++) x[i] = rnd();
    for (size_t i = 0; i < nx; i++) dy[i] = rnd();
    nn_conv_backward_f(NULL, ref, dy, x, NULL, &g, N, C, C);     // CPU reference (dw only)
    int *dnb;
    CK(cudaMalloc(&L.x, nx * 4)); CK(cudaMalloc(&L.dy, nx * 4)); CK(cudaMalloc(&L.dw, nw * 4));
    CK(cudaMalloc(&L.part, (size_t)chunks * nw * 4)); CK(cudaMalloc(&dnb, sizeof nbh));
    CK(cudaMemcpy(L.x, x, nx * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(L.dy, dy, nx * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dnb, nbh, sizeof nbh, cudaMemcpyHostToDevice));
    L.nb = dnb;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    double flop = 2.0 * L.rows * 7 * C * C;
    printf("lab_convgrad on %s: %d rings (P=%d), N=%d, %d->%d, %d chunks, %.2f GFLOP per call\n", prop.name, rings, L.P,
           N, C, C, chunks, flop * 1e-9);
    printf("%-8s %12s %12s %12s %s\n", "version", "rel.err", "time(us)", "GFLOP/s", "same bits as v1");
    int bad = 0;
    for (int v = 1; v <= 2; v++) {
        if (only && v != only) continue;
        CK(cudaMemset(L.dw, 0, nw * 4));
        run(&L, v);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(got, L.dw, nw * 4, cudaMemcpyDeviceToHost));
        if (v == 1) memcpy(got1, got, nw * 4);
        double worst = 0, scale = 1e-3;
        for (size_t i = 0; i < nw; i++) { worst = fmax(worst, fabs((double)got[i] - ref[i])); scale = fmax(scale, fabs(ref[i])); }
        double rel = worst / scale;
        bool ok = rel < 1e-5;
        bad |= !ok;
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
        for (int i = 0; i < 3; i++) run(&L, v);
        int reps = 20;
        CK(cudaEventRecord(e0));
        for (int i = 0; i < reps; i++) run(&L, v);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        double us = 1000.0 * ms / reps;
        const char *same = only ? "-" : v == 1 ? "(reference)" : memcmp(got, got1, nw * 4) ? "NO" : "yes";
        printf("%-8d %12.3g %12.1f %12.0f %s%s\n", v, rel, us, flop / (us * 1e3), same, ok ? "" : "   MISMATCH");
        cudaEventDestroy(e0); cudaEventDestroy(e1);
    }
    cudaFree(L.x); cudaFree(L.dy); cudaFree(L.dw); cudaFree(L.part); cudaFree(dnb);
    zzt_ctx_free(L.ctx);
    free(x); free(dy); free(ref); free(got); free(got1);
    return bad;
}
