// errors.cuh — the CUDA backend's error messages, shared by its .cu files (CUDA C++ only):
// a formatted message into the caller's buffer, and a failed runtime call turned into
// "<what>: <cuda error name>: <description>" with -1 (the error is cleared where it can be).
#ifndef ZZ_CUDA_ERRORS_CUH
#define ZZ_CUDA_ERRORS_CUH

#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdio.h>

static inline void zz_cu_msg(char *msg, size_t n, const char *fmt, ...)
{
    if (!msg || !n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, n, fmt, ap);
    va_end(ap);
}

static inline int zz_cu_fail(cudaError_t e, const char *what, char *msg, size_t n)
{
    zz_cu_msg(msg, n, "%s: %s: %s", what, cudaGetErrorName(e), cudaGetErrorString(e));
    (void)cudaGetLastError();
    return -1;
}

// The launch-failure test hook (backend.h zz_cuda_test_fail_launches, device.cu): 1 when this
// launch is to fail; the launcher then gives CUDA an empty grid, which it refuses with
// cudaErrorInvalidConfiguration (a real failed launch, also inside a stream capture).
extern "C" int zz_cu_take_fault(void);

#endif
