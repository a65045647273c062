// train_launch.cu — the GPU backend of train_backend.h: device memory through backend.h, and each
// training kernel body of train_kernels.h wrapped in its own __global__ kernel (one template
// instance per kernel, so each gets only the registers it needs), 256 threads per block; except
// the convolution and its weight-gradient partials, which run as kernels.cuh's tiled kernels
// (bit-equal to their bodies: the tests compare this backend with the emulated one).
// Everything runs on the calling thread's own default stream (cudaStreamPerThread), so a training
// step never waits for the self-play network's stream, nor it for training (no device-wide sync).
// Launch errors are returned at once; execution errors at the next sync or copy.
#include "cuda/train_backend.h"
#include "cuda/backend.h"
#include "cuda/errors.cuh"
#include "cuda/kernels.cuh"
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

enum { ZZT_BLOCK = 256 };

template <int K>
static __global__ void __launch_bounds__(ZZT_BLOCK) zzt_kernel_k(zzt_args a, int64_t threads)
{
    int64_t i = (int64_t)blockIdx.x * ZZT_BLOCK + threadIdx.x;
    if (i < threads) zzt_run((zzt_kernel)K, i, &a);
}

typedef void (*zzt_kernel_fn)(zzt_args, int64_t);
#define ZZT_FN_(k) zzt_kernel_k<k>,
static const zzt_kernel_fn kernels[ZZT_NKERNELS] = { ZZT_KERNELS(ZZT_FN_) };
#undef ZZT_FN_


#define ST cudaStreamPerThread

// The convolution and its weight gradient run as the tiled kernels of kernels.cuh (equal to the
// per-thread bodies bit for bit, many times faster); ZZT_TILED=0 runs the bodies instead.
static bool tiled(void)
{
    static int on = -1;
    if (on < 0) { const char *e = getenv("ZZT_TILED"); on = !(e && !strcmp(e, "0")); }
    return on != 0;
}

static int cu_sync(char *err, size_t n)
{
    cudaError_t e = cudaStreamSynchronize(ST);
    return e == cudaSuccess ? 0 : zz_cu_fail(e, "cudaStreamSynchronize", err, n);
}

static int cu_zero(void *p, size_t bytes, char *err, size_t n)
{
    cudaError_t e = cudaMemsetAsync(p, 0, bytes, ST);
    return e == cudaSuccess ? 0 : zz_cu_fail(e, "cudaMemsetAsync", err, n);
}

static void *cu_alloc(size_t bytes, char *err, size_t n)
{
    void *p = zz_cuda_malloc(bytes, err, n);
    if (p && (cu_zero(p, bytes ? bytes : 1, err, n) || cu_sync(err, n))) { zz_cuda_free(p); return NULL; }
    return p;
}

// Copies between pageable host memory and the device, in stream order, complete on return.
static int cu_copy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, const char *what, char *err, size_t n)
{
    cudaError_t e = cudaMemcpyAsync(dst, src, bytes, kind, ST);
    if (e != cudaSuccess) return zz_cu_fail(e, what, err, n);
    return cu_sync(err, n);
}

static int cu_upload(void *dst, const void *host, size_t bytes, char *err, size_t n)
{
    return cu_copy(dst, host, bytes, cudaMemcpyHostToDevice, "cudaMemcpyAsync host to device", err, n);
}

static int cu_download(void *host, const void *src, size_t bytes, char *err, size_t n)
{
    return cu_copy(host, src, bytes, cudaMemcpyDeviceToHost, "cudaMemcpyAsync device to host", err, n);
}

static int cu_launch(zzt_kernel k, int64_t threads, const zzt_args *a, char *err, size_t n)
{
    if (threads < 0 || (unsigned)k >= ZZT_NKERNELS) {
        if (err && n) snprintf(err, n, "bad launch: kernel %d, %lld threads", (int)k, (long long)threads);
        return -1;
    }
    if (threads == 0) return 0;
    int64_t blocks = (threads + ZZT_BLOCK - 1) / ZZT_BLOCK;
    if (blocks > 0x7fffffff) {
        if (err && n) snprintf(err, n, "launch of %lld threads is too large", (long long)threads);
        return -1;
    }
    bool fail = zz_cu_take_fault();                     // backend.h zz_cuda_test_fail_launches
    cudaError_t e;
    if (k == ZZT_CONV && tiled())
        e = zzk_conv_launch(ST, a->y, a->x, a->w, a->b, NULL, a->nb, a->rows, a->P, a->taps, a->ci, a->co, 0,
                            a->accumulate, fail);
    else if (k == ZZT_DW_PART && a->x && tiled())
        e = zzk_dw_launch(ST, a->part, a->x, a->dy, a->nb, a->rows, a->P, a->taps, a->ci, a->co, a->chunk, fail);
    else {
        kernels[k]<<<fail ? 0u : (unsigned)blocks, ZZT_BLOCK, 0, ST>>>(*a, threads);
        e = cudaGetLastError();
    }
    return e == cudaSuccess ? 0 : zz_cu_fail(e, "kernel launch", err, n);
}

static const zzt_backend cuda_backend = {
    "cuda", cu_alloc, zz_cuda_free, cu_upload, cu_download, cu_zero, cu_launch, cu_sync,
};

extern "C" const zzt_backend *zzt_cuda_backend(char *why, size_t n)
{
    if (!zz_cuda_available(why, n)) return NULL;
    return &cuda_backend;
}
