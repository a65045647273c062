// device.cu — backend.h on CUDA: device discovery (safe without a GPU or driver: every runtime
// call's status is checked and turned into a message, nothing aborts; a GPU this build has no code
// for is refused), device information, the thin memory layer (cudaMalloc / cudaFree / copies /
// pinned host memory with error strings), and the launch-failure test hook.
#include "cuda/backend.h"
#include "cuda/errors.cuh"
#include <cuda_runtime.h>
#include <atomic>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" const char *zz_cuda_build(void) { return "cuda"; }

// ---- can device 0 run this build's kernels? ------------------------------------------------------

static __global__ void zz_probe_kernel(int *p)
{
    if (p) *p = 1;
}

// Whether this build carries code device 0 can run (a cubin of its architecture, or PTX the driver
// can compile for it): asked once of a kernel's attributes, which loads its module for the device
// (cudaErrorNoKernelImageForDevice / cudaErrorInvalidDeviceFunction / a PTX error when none fits).
// Every .cu file is compiled with the same NVFLAGS, so this kernel answers for all of them.
static cudaError_t image_status(void)
{
    static const cudaError_t status = [] {
        cudaFuncAttributes a;
        cudaError_t e = cudaFuncGetAttributes(&a, zz_probe_kernel);
        (void)cudaGetLastError();
        return e;
    }();
    return status;
}

// The compute capabilities this build has code for ("8.0 8.6 8.9 9.0"), from nvcc's list.
static const char *build_archs(void)
{
    static char s[96];
    static const int list[] = { __CUDA_ARCH_LIST__ };
    if (!s[0]) {
        size_t k = 0;
        for (size_t i = 0; i < sizeof list / sizeof *list && k + 8 < sizeof s; i++)
            k += (size_t)snprintf(s + k, sizeof s - k, "%s%d.%d", i ? " " : "", list[i] / 100, list[i] / 10 % 10);
    }
    return s;
}

extern "C" int zz_cuda_available(char *msg, size_t n)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        const char *why = e == cudaErrorNoDevice ? "no CUDA device present"
                        : e == cudaErrorInsufficientDriver ? "no NVIDIA driver, or one too old for this CUDA runtime"
                        : "the CUDA runtime could not initialise";
        zz_cu_msg(msg, n, "%s (%s: %s)", why, cudaGetErrorName(e), cudaGetErrorString(e));
        (void)cudaGetLastError();
        return 0;
    }
    if (count < 1) { zz_cu_msg(msg, n, "no CUDA device present (device count 0)"); return 0; }
    cudaDeviceProp p;
    e = cudaGetDeviceProperties(&p, 0);
    if (e != cudaSuccess) { zz_cu_fail(e, "cudaGetDeviceProperties", msg, n); return 0; }
    const char *fake = getenv("ZZ_CUDA_FAKE_NO_IMAGE");
    e = fake && *fake && strcmp(fake, "0") ? cudaErrorNoKernelImageForDevice : image_status();
    if (e != cudaSuccess) {
        zz_cu_msg(msg, n, "%s (sm_%d%d) cannot run this build's kernels, made for %s (Makefile NVFLAGS): %s%s", p.name,
                  p.major, p.minor, build_archs(), cudaGetErrorName(e), fake && *fake && strcmp(fake, "0") ? " (faked: ZZ_CUDA_FAKE_NO_IMAGE)" : "");
        return 0;
    }
    zz_cu_msg(msg, n, "CUDA: %d device(s), device 0: %s (sm_%d%d, %d SMs, %.1f GiB)", count, p.name, p.major,
            p.minor, p.multiProcessorCount, (double)p.totalGlobalMem / (1024.0 * 1024 * 1024));
    return 1;
}

extern "C" int zz_cuda_select(char *msg, size_t n)
{
    const char *env = getenv("ZZ_BACKEND");
    if (env && !strcmp(env, "cpu")) { zz_cu_msg(msg, n, "cpu: ZZ_BACKEND=cpu"); return 0; }
    char why[300];
    if (!zz_cuda_available(why, sizeof why)) { zz_cu_msg(msg, n, "cpu: %s", why); return 0; }
    zz_cu_msg(msg, n, "cuda: %s", why);
    return 1;
}

extern "C" int zz_cuda_device_query(int dev, zz_cuda_device_info *info, char *err, size_t n)
{
    memset(info, 0, sizeof *info);
    cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, dev);
    if (e != cudaSuccess) return zz_cu_fail(e, "cudaGetDeviceProperties", err, n);
    info->device = dev;
    snprintf(info->name, sizeof info->name, "%s", p.name);
    info->major = p.major;
    info->minor = p.minor;
    info->sms = p.multiProcessorCount;
    info->total_mem = p.totalGlobalMem;
    int cur = 0;
    if ((e = cudaGetDevice(&cur)) != cudaSuccess) return zz_cu_fail(e, "cudaGetDevice", err, n);
    if (cur == dev) {
        size_t fr = 0, tot = 0;
        if ((e = cudaMemGetInfo(&fr, &tot)) != cudaSuccess) return zz_cu_fail(e, "cudaMemGetInfo", err, n);
        info->free_mem = fr;
    }
    if ((e = cudaDriverGetVersion(&info->driver_version)) != cudaSuccess) return zz_cu_fail(e, "cudaDriverGetVersion", err, n);
    if ((e = cudaRuntimeGetVersion(&info->runtime_version)) != cudaSuccess) return zz_cu_fail(e, "cudaRuntimeGetVersion", err, n);
    return 0;
}

extern "C" void *zz_cuda_malloc(size_t bytes, char *err, size_t n)
{
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        char what[64];
        snprintf(what, sizeof what, "cudaMalloc(%zu bytes)", bytes);
        zz_cu_fail(e, what, err, n);
        return NULL;
    }
    return p;
}

extern "C" void zz_cuda_free(void *dptr)
{
    if (dptr) (void)cudaFree(dptr);
}

extern "C" int zz_cuda_memset0(void *dptr, size_t bytes, char *err, size_t n)
{
    cudaError_t e = cudaMemset(dptr, 0, bytes);
    return e == cudaSuccess ? 0 : zz_cu_fail(e, "cudaMemset", err, n);
}

extern "C" int zz_cuda_upload(void *dptr, const void *host, size_t bytes, char *err, size_t n)
{
    cudaError_t e = cudaMemcpy(dptr, host, bytes, cudaMemcpyHostToDevice);
    return e == cudaSuccess ? 0 : zz_cu_fail(e, "cudaMemcpy host to device", err, n);
}

extern "C" int zz_cuda_download(void *host, const void *dptr, size_t bytes, char *err, size_t n)
{
    cudaError_t e = cudaMemcpy(host, dptr, bytes, cudaMemcpyDeviceToHost);
    return e == cudaSuccess ? 0 : zz_cu_fail(e, "cudaMemcpy device to host", err, n);
}

extern "C" void *zz_cuda_host_alloc(size_t bytes, char *err, size_t n)
{
    void *p = NULL;
    cudaError_t e = cudaMallocHost(&p, bytes ? bytes : 1);
    if (e != cudaSuccess) { zz_cu_fail(e, "cudaMallocHost", err, n); return NULL; }
    return p;
}

extern "C" void zz_cuda_host_free(void *hptr)
{
    if (hptr) (void)cudaFreeHost(hptr);
}

extern "C" int zz_cuda_sync(char *err, size_t n)
{
    cudaError_t e = cudaDeviceSynchronize();
    return e == cudaSuccess ? 0 : zz_cu_fail(e, "cudaDeviceSynchronize", err, n);
}

// ---- the launch-failure test hook ----------------------------------------------------------------

static std::atomic<int> fail_launches{ 0 };

extern "C" void zz_cuda_test_fail_launches(int n) { fail_launches.store(n > 0 ? n : 0); }

extern "C" int zz_cu_take_fault(void)
{
    int k = fail_launches.load(std::memory_order_relaxed);
    while (k > 0)
        if (fail_launches.compare_exchange_weak(k, k - 1)) return 1;
    return 0;
}

// zz_cuda_set_conv_kernel / zz_cuda_conv_kernel (backend.h): -1 until set or read from ZZ_CUDA_CONV.
static std::atomic<int> conv_kernel(-1);

extern "C" void zz_cuda_set_conv_kernel(int version) { conv_kernel.store(version == 2 || version == 4 ? version : 0); }

extern "C" int zz_cuda_conv_kernel(void)
{
    int v = conv_kernel.load();
    if (v < 0) {
        const char *e = getenv("ZZ_CUDA_CONV");
        v = e && !strcmp(e, "2") ? 2 : e && !strcmp(e, "4") ? 4 : 0;
        int unset = -1;
        if (!conv_kernel.compare_exchange_strong(unset, v)) v = conv_kernel.load();
    }
    return v;
}

// ---- the device's ceilings (zz_cuda_ceilings) ------------------------------------------------------

static __global__ void ceiling_copy(const float4 *__restrict__ in, float4 *__restrict__ out, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

enum { CEIL_CHAINS = 8, CEIL_ITERS = 4096 };

static __global__ void ceiling_fma(float *out, float a, float b)
{
    float v[CEIL_CHAINS];
#pragma unroll
    for (int j = 0; j < CEIL_CHAINS; j++) v[j] = (float)(threadIdx.x + j) * 1e-3f;
    for (int it = 0; it < CEIL_ITERS; it++)
#pragma unroll
        for (int j = 0; j < CEIL_CHAINS; j++) v[j] = fmaf(v[j], a, b);
    float s = 0.f;
#pragma unroll
    for (int j = 0; j < CEIL_CHAINS; j++) s += v[j];
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = s;    // keeps the loop
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

// The median of 9 timed runs of launch() (after one untimed), in milliseconds; -1 on an error.
template <typename F> static float median_ms(F launch, char *err, size_t n)
{
    enum { RUNS = 9 };
    float ms[RUNS];
    cudaEvent_t e0, e1;
    if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) {
        zz_cu_fail(cudaGetLastError(), "cudaEventCreate", err, n);
        return -1;
    }
    launch();
    for (int r = 0; r < RUNS; r++) {
        cudaEventRecord(e0);
        launch();
        cudaEventRecord(e1);
        cudaError_t e = cudaEventSynchronize(e1);
        if (e == cudaSuccess) e = cudaGetLastError();
        if (e == cudaSuccess) e = cudaEventElapsedTime(&ms[r], e0, e1);
        if (e != cudaSuccess) { zz_cu_fail(e, "ceiling kernel", err, n); ms[0] = -1; break; }
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (ms[0] < 0) return -1;
    qsort(ms, RUNS, sizeof *ms, cmp_float);
    return ms[RUNS / 2];
}

extern "C" int zz_cuda_ceilings(double *copy_gbs, double *fma_gflops, char *err, size_t n)
{
    if (!zz_cuda_available(err, n)) return -1;
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const size_t bytes = (size_t)1 << 30, n4 = bytes / sizeof(float4);
    float4 *in = NULL, *out = NULL;
    float *sink = NULL;
    const int threads = 256, fma_blocks = sms * 8;
    cudaError_t e = cudaMalloc(&in, bytes);
    if (e == cudaSuccess) e = cudaMalloc(&out, bytes);
    if (e == cudaSuccess) e = cudaMalloc(&sink, sizeof(float) * fma_blocks * threads);
    if (e == cudaSuccess) e = cudaMemset(in, 0x3f, bytes);       // not zeros: ~0.75 everywhere
    int rc = 0;
    if (e != cudaSuccess) rc = zz_cu_fail(e, "ceilings: cudaMalloc / cudaMemset", err, n);
    if (!rc) {
        float ms = median_ms([&] { ceiling_copy<<<sms * 16, threads>>>(in, out, n4); }, err, n);
        if (ms < 0) rc = -1;
        else *copy_gbs = 2.0 * bytes / (ms * 1e-3) / 1e9;
    }
    if (!rc) {
        float ms = median_ms([&] { ceiling_fma<<<fma_blocks, threads>>>(sink, 0.999f, 1e-3f); }, err, n);
        if (ms < 0) rc = -1;
        else *fma_gflops = 2.0 * CEIL_CHAINS * CEIL_ITERS * (double)fma_blocks * threads / (ms * 1e-3) / 1e9;
    }
    cudaFree(in);
    cudaFree(out);
    cudaFree(sink);
    return rc;
}
