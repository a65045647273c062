/* train_emu.c — the training kernels' CPU twin (train_backend.h): host memory, and a launch that
 * calls the kernel body for every thread index, in parallel with OpenMP.  Each body writes only its
 * own outputs and sums in a fixed order, so the result does not depend on the number of threads,
 * and the GPU runs exactly these bodies with the same rounding: gcc compiles this file with
 * -std=c11, which contracts no a*b+c into an FMA, and nvcc compiles train_launch.cu with -fmad=false
 * (Makefile NVFLAGS).  So what this backend computes, the GPU computes, up to the last bit of a
 * double in the device's own exp, log and tanh (train_kernels.h).  test_cuda_train checks that no
 * backend contracts, and, on a GPU, that the cuda backend equals this one. */
#include "cuda/train_backend.h"
#include "nn/ops.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *emu_alloc(size_t bytes, char *err, size_t n)
{
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p && err && n) snprintf(err, n, "out of host memory (%zu bytes)", bytes);
    return p;
}

static void emu_release(void *p) { free(p); }

static int emu_upload(void *dst, const void *host, size_t bytes, char *err, size_t n)
{
    memcpy(dst, host, bytes);
    return 0;
}

static int emu_download(void *host, const void *src, size_t bytes, char *err, size_t n)
{
    memcpy(host, src, bytes);
    return 0;
}

static int emu_zero(void *p, size_t bytes, char *err, size_t n)
{
    memset(p, 0, bytes);
    return 0;
}

static int emu_launch(zzt_kernel k, int64_t threads, const zzt_args *a, char *err, size_t n)
{
    if (threads < 0 || (unsigned)k >= ZZT_NKERNELS) {
        if (err && n) snprintf(err, n, "bad launch: kernel %d, %lld threads", (int)k, (long long)threads);
        return -1;
    }
    NN_OMP(parallel for schedule(static) if (threads > 4096))
    for (int64_t i = 0; i < threads; i++) zzt_run(k, i, a);
    return 0;
}

static int emu_sync(char *err, size_t n) { return 0; }

static const zzt_backend emu = {
    .name = "emulated", .alloc = emu_alloc, .release = emu_release, .upload = emu_upload,
    .download = emu_download, .zero = emu_zero, .launch = emu_launch, .sync = emu_sync,
};

const zzt_backend *zzt_emu_backend(void) { return &emu; }

#ifndef ZZ_HAVE_CUDA
const zzt_backend *zzt_cuda_backend(char *why, size_t n)
{
    if (why && n) snprintf(why, n, "built without CUDA (nvcc was not found when the library was built)");
    return NULL;
}
#endif
