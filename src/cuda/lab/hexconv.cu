// hexconv.cu — kernel lab (llm.c dev/cuda style) for the fused hex 3×3 convolution of the trunk:
//   y[n][p][co] = relu(b[co] + sum_t sum_ci x[n][nb[p][t]][ci] · w[t][ci][co] + res[n][p][co])
// x[N][P][Ci], w[7][Ci][Co], nb[P][7] (nn_geom.nb, -1 off the board), y/res[N][P][Co].
// Each numbered version is checked against the CPU reference (nn_conv_forward_f of src/nn plus the
// epilogue of src/nn/infer.c) by relative error, then timed with CUDA events.
//
// Build and run (from the repository root, after `make` has built build/libzertz.a):
//   nvcc -O3 -std=c++17 -Isrc -arch=sm_90 src/cuda/lab/hexconv.cu build/libzertz.a -Xcompiler -fopenmp \
//        -o build/lab_hexconv && ./build/lab_hexconv            # all versions, 37 rings, N=256, C=64
//   ./build/lab_hexconv 3 61 1024 64                             # version 3, 61 rings, N=1024, C=64
// Arguments: [version (0 = all: 1, 2, 3, 4)] [rings 37|48|61] [N] [C (Ci = Co)].
//
// Versions:
//   1  naive: one thread per output element, taps × Ci loop from global memory
//   2  the library's kernel (kernels.cuh zzk_conv): implicit GEMM, 64×64 tiles, BK 16, 4×4 per thread
//   4  the library's kernel for big batches (kernels.cuh zzk_conv_wide): 128×64 tiles, 8×4 per
//      thread read from shared memory as 16-byte vectors, next K step prefetched into registers;
//      must equal version 2 bit for bit (same order of each output's sum)
//   3  one block per sample: the sample's rows in shared memory (+ a zero row for off-board
//      neighbours), one output channel per thread.x, up to 16 rows per thread in registers, so each
//      weight read from global/L1 serves 16 rows (Co ≤ 256).  Its dynamic shared memory, (P+1)·Ci
//      floats + 7·P ints, passes the default 48 KiB on 61 rings from Ci = 192 on: main raises the
//      kernel's limit (cudaFuncAttributeMaxDynamicSharedMemorySize) to what the shape needs, and
//      refuses a shape over the device's opt-in maximum
// Versions 1-3 first ran on an H200 on 2026-11-25; version 4 is newer (src/cuda/NOTES.md).
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern "C" {
#include "nn/geom.h"
#include "nn/ops.h"
}
#include "cuda/kernels.cuh"

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) {                               \
    fprintf(stderr, "lab_hexconv: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

// ---- version 1 ----------------------------------------------------------------------------------
__global__ void k_v1(const float *x, const float *w, const float *b, const float *res, float *y, const int *nb,
                     int N, int P, int ci, int co)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)N * P * co) return;
    int c = (int)(i % co);
    size_t r = i / co;
    int n = (int)(r / P), p = (int)(r % P);
    float acc = 0.f;
    for (int t = 0; t < 7; t++) {
        int q = nb[p * 7 + t];
        if (q < 0) continue;
        const float *xr = x + ((size_t)n * P + q) * ci;
        for (int k = 0; k < ci; k++) acc = fmaf(xr[k], w[((size_t)t * ci + k) * co + c], acc);
    }
    float v = acc + b[c] + res[i];
    y[i] = v < 0.f ? 0.f : v;
}

// ---- version 3 ----------------------------------------------------------------------------------
enum { V3_RG = 4, V3_MAXR = 16, V3_MAXCO = 256 };  // row groups per block; rows per thread (P ≤ V3_RG·V3_MAXR); Co
__global__ void __launch_bounds__(V3_MAXCO * V3_RG) k_v3(const float *__restrict__ x, const float *__restrict__ w, const float *__restrict__ b,
                     const float *__restrict__ res, float *__restrict__ y, const int *__restrict__ nb,
                     int P, int ci, int co)
{
    extern __shared__ float sm[];
    float *xs = sm;                              // [P+1][ci], row P is zero
    int *nbs = (int *)(xs + (size_t)(P + 1) * ci); // [P][7], -1 -> P
    const int n = blockIdx.x, nt = blockDim.x * blockDim.y, tid = threadIdx.y * blockDim.x + threadIdx.x;
    const float *xn = x + (size_t)n * P * ci;
    for (int i = tid; i < P * ci; i += nt) xs[i] = xn[i];
    for (int i = tid; i < ci; i += nt) xs[P * ci + i] = 0.f;
    for (int i = tid; i < P * 7; i += nt) nbs[i] = nb[i] < 0 ? P : nb[i];
    __syncthreads();
    const int c = threadIdx.x, rg = threadIdx.y;
    float acc[V3_MAXR];
#pragma unroll
    for (int j = 0; j < V3_MAXR; j++) acc[j] = 0.f;
    for (int t = 0; t < 7; t++) {
        int base[V3_MAXR];
#pragma unroll
        for (int j = 0; j < V3_MAXR; j++) {
            int p = rg + j * V3_RG;
            base[j] = (p < P ? nbs[p * 7 + t] : P) * ci;
        }
        for (int k = 0; k < ci; k++) {
            float wv = w[((size_t)t * ci + k) * co + c];
#pragma unroll
            for (int j = 0; j < V3_MAXR; j++) acc[j] = fmaf(xs[base[j] + k], wv, acc[j]);
        }
    }
#pragma unroll
    for (int j = 0; j < V3_MAXR; j++) {
        int p = rg + j * V3_RG;
        if (p >= P) continue;
        size_t o = ((size_t)n * P + p) * co + c;
        float v = acc[j] + b[c] + res[o];
        y[o] = v < 0.f ? 0.f : v;
    }
}

// Version 3's dynamic shared memory for P cells and ci input channels (bytes).
static size_t v3_smem(int P, int ci) { return sizeof(float) * (size_t)(P + 1) * ci + sizeof(int) * (size_t)P * 7; }

// Let version 3 use the shared memory its shape needs (over 48 KiB needs the attribute set), or
// say why it cannot: 0, or 1 after a message.
static int v3_prepare(const cudaDeviceProp *prop, int P, int ci)
{
    size_t smem = v3_smem(P, ci);
    if (smem > prop->sharedMemPerBlockOptin) {
        fprintf(stderr, "lab_hexconv: version 3 needs %zu bytes of shared memory, the device allows %zu\n", smem,
                (size_t)prop->sharedMemPerBlockOptin);
        return 1;
    }
    cudaError_t e = cudaFuncSetAttribute(k_v3, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) {
        fprintf(stderr, "lab_hexconv: version 3: cudaFuncSetAttribute(MaxDynamicSharedMemorySize, %zu): %s\n", smem,
                cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

static void launch(int version, const float *x, const float *w, const float *b, const float *res, float *y,
                   const int *nb, int N, int P, int ci, int co)
{
    if (version == 1) {
        size_t total = (size_t)N * P * co;
        k_v1<<<(unsigned)((total + 255) / 256), 256>>>(x, w, b, res, y, nb, N, P, ci, co);
    } else if (version == 2) {
        int rows = N * P;
        dim3 grid((unsigned)((rows + ZZK_BM - 1) / ZZK_BM), (unsigned)((co + ZZK_BN - 1) / ZZK_BN));
        zzk_conv<<<grid, ZZK_NTHREADS>>>(x, w, b, res, y, nb, rows, P, 7, ci, co, 1, 0);
    } else if (version == 4) {
        int rows = N * P;
        dim3 grid((unsigned)((rows + ZZW_BM - 1) / ZZW_BM), (unsigned)((co + ZZW_BN - 1) / ZZW_BN));
        zzk_conv_wide<<<grid, ZZW_NTHREADS>>>(x, w, b, res, y, nb, rows, P, 7, ci, co, 1, 0);
    } else {
        k_v3<<<N, dim3(co, V3_RG), v3_smem(P, ci)>>>(x, w, b, res, y, nb, P, ci, co);
    }
    CK(cudaGetLastError());
}

int main(int argc, char **argv)
{
    int only = argc > 1 ? atoi(argv[1]) : 0, rings = argc > 2 ? atoi(argv[2]) : 37;
    int N = argc > 3 ? atoi(argv[3]) : 256, C = argc > 4 ? atoi(argv[4]) : 64;
    zz_board_kind kind = rings == 61 ? ZZ_B61 : rings == 48 ? ZZ_B48 : ZZ_B37;
    nn_geom g;
    nn_geom_init(&g, kind);
    int P = g.ncells, ci = C, co = C;
    if (P > V3_RG * V3_MAXR || co > V3_MAXCO) { fprintf(stderr, "lab_hexconv: shape outside version 3's limits\n"); return 1; }
    size_t nx = (size_t)N * P * ci, nw = (size_t)7 * ci * co, ny = (size_t)N * P * co;
    float *x = (float *)malloc(nx * 4), *w = (float *)malloc(nw * 4), *b = (float *)malloc(co * 4);
    float *res = (float *)malloc(ny * 4), *ref = (float *)malloc(ny * 4), *got = (float *)malloc(ny * 4);
    int nbh[ZZ_MAX_RINGS * 7];
    for (int i = 0; i < P; i++) for (int t = 0; t < 7; t++) nbh[i * 7 + t] = g.nb[i][t];
    unsigned s = 12345;
    auto rnd = [&]() { s = s * 1664525u + 1013904223u; return (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f + 1e-4f; };
    for (size_t i = 0; i < nx; i++) x[i] = rnd();
    for (size_t i = 0; i < nw; i++) w[i] = rnd() * 0.1f;
    for (int i = 0; i < co; i++) b[i] = rnd() * 0.1f;
    for (size_t i = 0; i < ny; i++) res[i] = rnd();
    nn_conv_forward_f(ref, x, w, &g, N, ci, co);                 // CPU reference + infer.c's epilogue
    for (size_t i = 0; i < ny; i++) {
        float v = ref[i] + b[i % co] + res[i];
        ref[i] = v < 0 ? 0 : v;
    }
    float *dx, *dw, *db, *dr, *dy;
    int *dnb;
    CK(cudaMalloc(&dx, nx * 4)); CK(cudaMalloc(&dw, nw * 4)); CK(cudaMalloc(&db, co * 4));
    CK(cudaMalloc(&dr, ny * 4)); CK(cudaMalloc(&dy, ny * 4)); CK(cudaMalloc(&dnb, sizeof nbh));
    CK(cudaMemcpy(dx, x, nx * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dw, w, nw * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, b, co * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dr, res, ny * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dnb, nbh, sizeof nbh, cudaMemcpyHostToDevice));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    if ((!only || only == 3) && v3_prepare(&prop, P, ci)) return 1;
    double flop = 2.0 * ny * 7 * ci;                            // live taps only (off-board ones counted)
    printf("lab_hexconv on %s: %d rings (P=%d), N=%d, %d->%d, %.2f GFLOP per call\n", prop.name, rings, P, N, ci, co, flop * 1e-9);
    printf("%-8s %12s %12s %12s %s\n", "version", "rel.err", "time(us)", "GFLOP/s", "same bits as v2");
    int bad = 0;
    float *got2 = (float *)malloc(ny * 4);
    bool have2 = false;
    for (int v = 1; v <= 4; v++) {
        if (only && v != only) continue;
        CK(cudaMemset(dy, 0, ny * 4));
        launch(v, dx, dw, db, dr, dy, dnb, N, P, ci, co);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(got, dy, ny * 4, cudaMemcpyDeviceToHost));
        double worst = 0, scale = 1e-3;
        for (size_t i = 0; i < ny; i++) { worst = fmax(worst, fabs((double)got[i] - ref[i])); scale = fmax(scale, fabs(ref[i])); }
        double rel = worst / scale;
        bool ok = rel < 2e-5;
        bad |= !ok;
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
        for (int i = 0; i < 3; i++) launch(v, dx, dw, db, dr, dy, dnb, N, P, ci, co);
        int reps = 20;
        CK(cudaEventRecord(e0));
        for (int i = 0; i < reps; i++) launch(v, dx, dw, db, dr, dy, dnb, N, P, ci, co);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        double us = 1000.0 * ms / reps;
        if (v == 2) { memcpy(got2, got, ny * 4); have2 = true; }
        bool differ = v == 4 && have2 && memcmp(got, got2, ny * 4);
        bad |= differ;
        const char *same = v == 2 ? "(reference)" : v != 4 || !have2 ? "-" : differ ? "NO   MISMATCH" : "yes";
        printf("%-8d %12.3g %12.1f %12.0f %s%s\n", v, rel, us, flop / (us * 1e3), same, ok ? "" : "   MISMATCH");
        cudaEventDestroy(e0); cudaEventDestroy(e1);
    }
    cudaFree(dx); cudaFree(dw); cudaFree(db); cudaFree(dr); cudaFree(dy); cudaFree(dnb);
    free(x); free(w); free(b); free(res); free(ref); free(got); free(got2);
    return bad;
}
