// kernels.cuh — the CUDA kernels of the inference net, shared by net.cu (the library) and the
// kernel lab (src/cuda/lab/).  CUDA C++ only; never included from C.
//
// zzk_conv: fused implicit-GEMM convolution (hex 3×3 over the seven live taps, or 1×1 / dense),
//   y[r][co] = act(b[co] + sum_{k < taps·ci} A[r][k] · w[k][co] (+ res[r][co])),  r < rows = N·P
//   A[r][t·ci + c] = x[n·P + nb[p][t]][c] (0 when nb[p][t] = -1), r = n·P + p   (taps 7, nb [P][7])
//   A[r][c]        = x[r][c]                                                    (taps 1, nb NULL)
//   act: 0 none, 1 ReLU, 2 tanh.  CPU twins: nn_conv_forward_f / nn_matmul_forward_f + infer.c's
//   epilogue ((conv + b) + res, then the activation).
//   Launch: grid (ceil(rows/64), ceil(co/64)), 256 threads; 64×64 output tile per block, K in
//   steps of 16 through shared memory, 4×4 accumulators per thread.  Each output's sum runs over k
//   in the same order whatever the rest of the batch, so results do not depend on batch size.
#ifndef ZZ_CUDA_KERNELS_CUH
#define ZZ_CUDA_KERNELS_CUH

#include <cuda_runtime.h>
#include <stddef.h>

enum { ZZK_BM = 64, ZZK_BN = 64, ZZK_BK = 16, ZZK_NTHREADS = 256 };

// x[rows_in][ci] (rows_in = N·P), w[taps·ci][co], b[co], res[rows][co] or NULL, y[rows][co];
// nb[P][taps] on the device (taps 7) or NULL (taps 1).
static __global__ void __launch_bounds__(ZZK_NTHREADS)
zzk_conv(const float *__restrict__ x, const float *__restrict__ w, const float *__restrict__ b,
       const float *__restrict__ res, float *__restrict__ y, const int *__restrict__ nb,
       int rows, int P, int taps, int ci, int co, int act)
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
                int t = k / ci, c = k - t * ci, src = r;
                if (nb) {
                    int s = r / P, p = r - s * P, q = nb[p * taps + t];
                    src = q < 0 ? -1 : s * P + q;
                }
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
#pragma unroll
        for (int kk = 0; kk < ZZK_BK; kk++) {
            float a[4], bv[4];
#pragma unroll
            for (int i = 0; i < 4; i++) a[i] = As[kk][ty + 16 * i];
#pragma unroll
            for (int j = 0; j < 4; j++) bv[j] = Bs[kk][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) acc[i][j] = fmaf(a[i], bv[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; i++) {
        int r = m0 + ty + 16 * i;
        if (r >= rows) continue;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            int col = n0 + tx + 16 * j;
            if (col >= co) continue;
            float v = acc[i][j] + b[col];                     // (conv + b) + res, as infer.c
            if (res) v += res[(size_t)r * co + col];
            if (act == 1) v = v < 0.f ? 0.f : v;
            else if (act == 2) v = tanhf(v);
            y[(size_t)r * co + col] = v;
        }
    }
}

#endif
