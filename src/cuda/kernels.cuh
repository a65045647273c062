// kernels.cuh — the tiled CUDA kernels shared by the inference net (net.cu), the training backend
// (train_launch.cu) and the kernel lab (src/cuda/lab/).  CUDA C++ only; never included from C.
//
// zzk_conv / zzk_conv_wide: fused implicit-GEMM convolution (hex 3×3 over the seven live taps, or
//   1×1 / dense),
//   y[r][co] (+)= act(b[co] + sum_{k < taps·ci} A[r][k] · w[k][co] (+ res[r][co])),  r < rows = N·P
//   A[r][t·ci + c] = x[n·P + nb[p][t]][c] (0 when nb[p][t] = -1), r = n·P + p   (taps 7, nb [P][7])
//   A[r][c]        = x[r][c]                                                    (taps 1, nb NULL)
//   act: 0 none, 1 ReLU, 2 tanh; b may be NULL (no bias); accumulate: y += the result (training's
//   input gradient) instead of y = it.  CPU twins: nn_conv_forward_f / nn_matmul_forward_f +
//   infer.c's epilogue ((conv + b) + res, then the activation), and train_kernels.h's zzk_conv.
//   zzk_conv: grid (ceil(rows/64), ceil(co/64)), 256 threads, 64×64 output tile per block, K in
//   steps of 16 through shared memory, 4×4 accumulators per thread (lab version 2).
//   zzk_conv_wide: grid (ceil(rows/128), ceil(co/64)), 256 threads, 128×64 tile, 8×4 accumulators
//   per thread read as 16-byte vectors from shared memory, the next K step loaded into registers
//   while this one is multiplied (two shared buffers, one barrier a step) (lab version 4).
//   Both sum each output over k in ascending order with one fmaf per k, off-board taps adding
//   fmaf(0, w, acc) = acc: so they equal each other and train_kernels.h's per-thread zzk_conv bit
//   for bit, and a sample's outputs do not depend on the batch around it.  zzk_conv_launch picks
//   one by the number of blocks (backend.h zz_cuda_set_conv_kernel, ZZ_CUDA_CONV=2|4, forces one).
//
// zzk_dw_tiled: the weight gradient's partial sums over fixed chunks of rows,
//   part[chunk][k][co] = sum over the chunk's rows r of A[r][k] · dy[r][co]   (A as above)
//   grid (ceil(taps·ci/64), ceil(co/64), chunks), 256 threads; rows 16 at a time through shared
//   memory, 4×4 per thread; each partial sums its rows in order with one fmaf per row, as
//   train_kernels.h's zzk_dw_part does (lab convgrad version 2): equal to it bit for bit.
#ifndef ZZ_CUDA_KERNELS_CUH
#define ZZ_CUDA_KERNELS_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
#include "cuda/backend.h"

enum { ZZK_BM = 64, ZZK_BN = 64, ZZK_BK = 16, ZZK_NTHREADS = 256 };

// One output of either conv kernel: v = act((acc + b) + res), then y = v or y += v.
static __device__ __forceinline__ void zzk_store(float *y, const float *b, const float *res, int r, int col, int co,
                                                 float acc, int act, int accumulate)
{
    size_t at = (size_t)r * co + col;
    float v = acc;
    if (b) v += b[col];
    if (res) v += res[at];
    if (act == 1) v = v < 0.f ? 0.f : v;
    else if (act == 2) v = tanhf(v);
    y[at] = accumulate ? y[at] + v : v;
}

// The row of x that row r's tap t reads (taps 7: through nb[P][7]; taps 1: r itself), or -1.
static __device__ __forceinline__ int zzk_src(const int *nb, int r, int P, int taps, int t)
{
    if (!nb) return r;
    int s = r / P, q = nb[(r - s * P) * taps + t];
    return q < 0 ? -1 : s * P + q;
}

// One shared tile pair's products into a thread's 4×4 accumulators, steps s = 0 .. STEPS-1 in
// order: acc[i][j] = fmaf(A[s][ty + 16 i], B[s][tx + 16 j], acc[i][j]) (zzk_conv, zzk_dw_tiled).
// A macro, not a function: so each kernel compiles to the very code it was checked with on a GPU.
#define ZZK_TILE_4X4(acc, A, B, STEPS, tx, ty)                                                        \
    _Pragma("unroll") for (int s_ = 0; s_ < (STEPS); s_++) {                                        \
        float a_[4], b_[4];                                                                         \
        _Pragma("unroll") for (int i_ = 0; i_ < 4; i_++) a_[i_] = (A)[s_][(ty) + 16 * i_];          \
        _Pragma("unroll") for (int j_ = 0; j_ < 4; j_++) b_[j_] = (B)[s_][(tx) + 16 * j_];          \
        _Pragma("unroll") for (int i_ = 0; i_ < 4; i_++)                                            \
            _Pragma("unroll") for (int j_ = 0; j_ < 4; j_++) (acc)[i_][j_] = fmaf(a_[i_], b_[j_], (acc)[i_][j_]); \
    }

// x[rows_in][ci] (rows_in = N·P), w[taps·ci][co], b[co] or NULL, res[rows][co] or NULL, y[rows][co];
// nb[P][taps] on the device (taps 7) or NULL (taps 1).
static __global__ void __launch_bounds__(ZZK_NTHREADS)
zzk_conv(const float *__restrict__ x, const float *__restrict__ w, const float *__restrict__ b,
       const float *__restrict__ res, float *y, const int *__restrict__ nb,
       int rows, int P, int taps, int ci, int co, int act, int accumulate)
{
    __shared__ float As[ZZK_BK][ZZK_BM + 4];
    __shared__ float Bs[ZZK_BK][ZZK_BN];
    const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;
    const int m0 = blockIdx.x * ZZK_BM, n0 = blockIdx.y * ZZK_BN, K = taps * ci;
    float acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) acc[i][j] = 0.f;
    for (int k0 = 0; k0 < K; k0 += ZZK_BK) {
#pragma unroll
        for (int i = 0; i < (ZZK_BM * ZZK_BK) / ZZK_NTHREADS; i++) {          // A tile: gather 64 rows × 16 k
            int e = tid + ZZK_NTHREADS * i, m = e / ZZK_BK, kk = e % ZZK_BK;
            int r = m0 + m, k = k0 + kk;
            float v = 0.f;
            if (r < rows && k < K) {
                int t = k / ci, c = k - t * ci, src = zzk_src(nb, r, P, taps, t);
                if (src >= 0) v = x[(size_t)src * ci + c];
            }
            As[kk][m] = v;
        }
#pragma unroll
        for (int i = 0; i < (ZZK_BN * ZZK_BK) / ZZK_NTHREADS; i++) {          // B tile: 16 k × 64 outputs
            int e = tid + ZZK_NTHREADS * i, kk = e / ZZK_BN, nn = e % ZZK_BN;
            int k = k0 + kk, col = n0 + nn;
            Bs[kk][nn] = (k < K && col < co) ? w[(size_t)k * co + col] : 0.f;
        }
        __syncthreads();
        ZZK_TILE_4X4(acc, As, Bs, ZZK_BK, tx, ty);
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; i++) {
        int r = m0 + ty + 16 * i;
        if (r >= rows) continue;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            int col = n0 + tx + 16 * j;
            if (col < co) zzk_store(y, b, res, r, col, co, acc[i][j], act, accumulate);
        }
    }
}

// ---- zzk_conv_wide (lab version 4) ---------------------------------------------------------------
enum { ZZW_BM = 128, ZZW_BN = 64, ZZW_BK = 16, ZZW_NTHREADS = 256 };

// The A tile's 8 values of one thread for K step k0: row m0 + (tid & 127), k = k0 + 8·(tid >> 7) + j.
// vec: ci % 8 == 0 and x 16-byte aligned, so the 8 values are one tap's consecutive channels.
static __device__ __forceinline__ void zzw_load_a(float a[8], const float *__restrict__ x, const int *__restrict__ nb,
                                                  int r, int rows, int P, int taps, int ci, int K, int k, bool vec)
{
    if (vec) {
        float4 lo = make_float4(0.f, 0.f, 0.f, 0.f), hi = lo;
        if (r < rows && k < K) {
            int t = k / ci, src = zzk_src(nb, r, P, taps, t);
            if (src >= 0) {
                const float4 *p = (const float4 *)(x + (size_t)src * ci + (k - t * ci));
                lo = p[0];
                hi = p[1];
            }
        }
        a[0] = lo.x; a[1] = lo.y; a[2] = lo.z; a[3] = lo.w; a[4] = hi.x; a[5] = hi.y; a[6] = hi.z; a[7] = hi.w;
        return;
    }
#pragma unroll
    for (int j = 0; j < 8; j++) {
        float v = 0.f;
        if (r < rows && k + j < K) {
            int t = (k + j) / ci, src = zzk_src(nb, r, P, taps, t);
            if (src >= 0) v = x[(size_t)src * ci + (k + j - t * ci)];
        }
        a[j] = v;
    }
}

// The B tile's 4 values of one thread for K step k0: w[k0 + (tid >> 4)][n0 + 4·(tid & 15) + j].
static __device__ __forceinline__ void zzw_load_b(float b[4], const float *__restrict__ w, int k, int K, int col,
                                                  int co, bool vec)
{
    if (vec && k < K && col < co) {
        float4 v = *(const float4 *)(w + (size_t)k * co + col);
        b[0] = v.x; b[1] = v.y; b[2] = v.z; b[3] = v.w;
        return;
    }
#pragma unroll
    for (int j = 0; j < 4; j++) b[j] = (k < K && col + j < co) ? w[(size_t)k * co + col + j] : 0.f;
}

// Same arguments and result as zzk_conv; 128 rows a block.
static __global__ void __launch_bounds__(ZZW_NTHREADS)
zzk_conv_wide(const float *__restrict__ x, const float *__restrict__ w, const float *__restrict__ b,
              const float *__restrict__ res, float *y, const int *__restrict__ nb,
              int rows, int P, int taps, int ci, int co, int act, int accumulate)
{
    __shared__ __align__(16) float As[2][ZZW_BK][ZZW_BM];
    __shared__ __align__(16) float Bs[2][ZZW_BK][ZZW_BN];
    const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;
    const int m0 = blockIdx.x * ZZW_BM, n0 = blockIdx.y * ZZW_BN, K = taps * ci;
    const int am = tid & (ZZW_BM - 1), ak = (tid >> 7) * 8;           // this thread's A loads
    const int bk = tid >> 4, bc = (tid & 15) * 4;                      // and B loads
    const bool avec = (ci % 8) == 0 && ((uintptr_t)x & 15) == 0;
    const bool bvec = (co % 4) == 0 && ((uintptr_t)w & 15) == 0;
    float acc[8][4], ra[8], rb[4];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) acc[i][j] = 0.f;
    zzw_load_a(ra, x, nb, m0 + am, rows, P, taps, ci, K, ak, avec);
    zzw_load_b(rb, w, bk, K, n0 + bc, co, bvec);
#pragma unroll
    for (int j = 0; j < 8; j++) As[0][ak + j][am] = ra[j];
#pragma unroll
    for (int j = 0; j < 4; j++) Bs[0][bk][bc + j] = rb[j];
    __syncthreads();
    for (int k0 = 0, cur = 0; k0 < K; k0 += ZZW_BK, cur ^= 1) {
        const bool more = k0 + ZZW_BK < K;
        if (more) {                                                     // next step's loads in flight
            zzw_load_a(ra, x, nb, m0 + am, rows, P, taps, ci, K, k0 + ZZW_BK + ak, avec);
            zzw_load_b(rb, w, k0 + ZZW_BK + bk, K, n0 + bc, co, bvec);
        }
#pragma unroll
        for (int kk = 0; kk < ZZW_BK; kk++) {
            float4 a0 = *(const float4 *)&As[cur][kk][ty * 4], a1 = *(const float4 *)&As[cur][kk][64 + ty * 4];
            float4 b4 = *(const float4 *)&Bs[cur][kk][tx * 4];
            float a[8] = { a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w }, bv[4] = { b4.x, b4.y, b4.z, b4.w };
#pragma unroll
            for (int i = 0; i < 8; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) acc[i][j] = fmaf(a[i], bv[j], acc[i][j]);
        }
        if (more) {                     // the other buffer: every thread left it at the last barrier
#pragma unroll
            for (int j = 0; j < 8; j++) As[cur ^ 1][ak + j][am] = ra[j];
#pragma unroll
            for (int j = 0; j < 4; j++) Bs[cur ^ 1][bk][bc + j] = rb[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 8; i++) {
        int r = m0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
        if (r >= rows) continue;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            int col = n0 + tx * 4 + j;
            if (col < co) zzk_store(y, b, res, r, col, co, acc[i][j], act, accumulate);
        }
    }
}

// ---- zzk_dw_tiled (lab convgrad version 2) ---------------------------------------------------------
enum { ZZD_BK = 64, ZZD_BO = 64, ZZD_BR = 16, ZZD_NTHREADS = 256 };

// x[rows][ci] (gathered through nb as A above), dy[rows][co]; part[chunks][taps·ci][co].
static __global__ void __launch_bounds__(ZZD_NTHREADS)
zzk_dw_tiled(const float *__restrict__ x, const float *__restrict__ dy, const int *__restrict__ nb,
             float *__restrict__ part, int rows, int P, int taps, int ci, int co, int chunk)
{
    __shared__ float As[ZZD_BR][ZZD_BK + 4];
    __shared__ float Bs[ZZD_BR][ZZD_BO];
    const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4, K = taps * ci;
    const int k0 = blockIdx.x * ZZD_BK, o0 = blockIdx.y * ZZD_BO, ch = blockIdx.z;
    const int r0 = ch * chunk, r1 = min(rows, r0 + chunk);
    float acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) acc[i][j] = 0.f;
    for (int rb = r0; rb < r1; rb += ZZD_BR) {
#pragma unroll
        for (int i = 0; i < (ZZD_BR * ZZD_BK) / ZZD_NTHREADS; i++) {    // gathered x: 16 rows × 64 k
            int e = tid + ZZD_NTHREADS * i, rr = e / ZZD_BK, kk = e % ZZD_BK, r = rb + rr, k = k0 + kk;
            float v = 0.f;
            if (r < r1 && k < K) {
                int t = k / ci, src = zzk_src(nb, r, P, taps, t);
                if (src >= 0) v = x[(size_t)src * ci + (k - t * ci)];
            }
            As[rr][kk] = v;
        }
#pragma unroll
        for (int i = 0; i < (ZZD_BR * ZZD_BO) / ZZD_NTHREADS; i++) {    // dy: 16 rows × 64 outputs
            int e = tid + ZZD_NTHREADS * i, rr = e / ZZD_BO, oo = e % ZZD_BO, r = rb + rr, o = o0 + oo;
            Bs[rr][oo] = (r < r1 && o < co) ? dy[(size_t)r * co + o] : 0.f;
        }
        __syncthreads();
        ZZK_TILE_4X4(acc, As, Bs, ZZD_BR, tx, ty);
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; i++) {
        int k = k0 + ty + 16 * i;
        if (k >= K) continue;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            int o = o0 + tx + 16 * j;
            if (o < co) part[((size_t)ch * K + k) * co + o] = acc[i][j];
        }
    }
}

// ---- launching --------------------------------------------------------------------------------------

// Enqueue y (+)= act(conv) on st with the kernel its size wants: the 128-row tiles from 128 rows
// on (measured on an H200, src/cuda/NOTES.md: faster from batch 64 up, x1.25 at 256 and x1.7 at
// 4096), the 64-row tiles below.  fail: an empty grid (backend.h's injected launch failures).
// Returns the launch's error.
static inline cudaError_t zzk_conv_launch(cudaStream_t st, float *y, const float *x, const float *w, const float *b,
                                          const float *res, const int *nb, int rows, int P, int taps, int ci, int co,
                                          int act, int accumulate, bool fail)
{
    unsigned cols = (unsigned)((co + ZZK_BN - 1) / ZZK_BN);
    int choice = zz_cuda_conv_kernel();
    bool wide = choice == 4 || (choice == 0 && rows >= ZZW_BM);
    if (taps == 1) nb = NULL;
    if (wide) {
        dim3 grid(fail ? 0u : (unsigned)((rows + ZZW_BM - 1) / ZZW_BM), cols);
        zzk_conv_wide<<<grid, ZZW_NTHREADS, 0, st>>>(x, w, b, res, y, nb, rows, P, taps, ci, co, act, accumulate);
    } else {
        dim3 grid(fail ? 0u : (unsigned)((rows + ZZK_BM - 1) / ZZK_BM), cols);
        zzk_conv<<<grid, ZZK_NTHREADS, 0, st>>>(x, w, b, res, y, nb, rows, P, taps, ci, co, act, accumulate);
    }
    return cudaGetLastError();
}

// Enqueue part[chunks][taps·ci][co] = the weight gradient's chunk sums (zzk_dw_tiled) on st.
static inline cudaError_t zzk_dw_launch(cudaStream_t st, float *part, const float *x, const float *dy, const int *nb,
                                        int rows, int P, int taps, int ci, int co, int chunk, bool fail)
{
    int K = taps * ci, chunks = (rows + chunk - 1) / chunk;
    dim3 grid(fail ? 0u : (unsigned)((K + ZZD_BK - 1) / ZZD_BK), (unsigned)((co + ZZD_BO - 1) / ZZD_BO), (unsigned)chunks);
    zzk_dw_tiled<<<grid, ZZD_NTHREADS, 0, st>>>(x, dy, taps == 1 ? NULL : nb, part, rows, P, taps, ci, co, chunk);
    return cudaGetLastError();
}

#endif
