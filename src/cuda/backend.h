/* backend.h — the CUDA backend's device layer, as plain C (no CUDA types): is a GPU usable, which
 * one, and a thin GPU memory layer (allocate, free, copy, pinned host memory) whose functions
 * return error codes with messages instead of aborting.
 *
 * Build: the Makefile compiles src/cuda/<name>.cu with nvcc and defines ZZ_HAVE_CUDA=1 for the C code
 * whenever nvcc exists; device.cu implements this header then.  Without nvcc, backend_none.c
 * implements it: every query says "built without CUDA" and every allocation fails cleanly.
 * Either way the library links and runs on a machine without a GPU or without a driver.
 *
 * Choosing a backend at run time: zz_cuda_select() says whether to use the GPU: yes when one is
 * usable, unless the environment says ZZ_BACKEND=cpu.  The inference net on the GPU is in
 * infer_cuda.h; the low-level net (kernels) in net.h. */
#ifndef ZZ_CUDA_BACKEND_H
#define ZZ_CUDA_BACKEND_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when at least one CUDA device is usable (msg: "CUDA: <n> device(s), device 0: <name> ..."),
 * 0 otherwise (msg says why: built without CUDA, no driver, no device, or device 0 is a GPU this
 * build has no code for: the Makefile's NVFLAGS name the architectures).  Never aborts.
 * ZZ_CUDA_FAKE_NO_IMAGE=1 in the environment: device 0 is refused as if the build had no code for
 * it (to test the CPU fallback of every user on a GPU machine). */
int zz_cuda_available(char *msg, size_t n);
/* 1 to use the GPU: zz_cuda_available() unless getenv("ZZ_BACKEND") is "cpu"; msg says which
 * backend and why ("cuda: NVIDIA H100 ..." or "cpu: <reason>"). */
int zz_cuda_select(char *msg, size_t n);
/* "cuda" when built with CUDA, else "none" (the build, not whether a GPU is present). */
const char *zz_cuda_build(void);

typedef struct {
    int device;                 /* ordinal */
    char name[256];
    int major, minor;           /* compute capability */
    int sms;                    /* streaming multiprocessors */
    size_t total_mem, free_mem; /* bytes */
    int driver_version, runtime_version;   /* e.g. 13000 */
} zz_cuda_device_info;

/* Information on device dev.  Returns 0, or -1 with a message. */
int zz_cuda_device_query(int dev, zz_cuda_device_info *info, char *err, size_t n);

/* GPU memory: NULL / -1 with a message on failure.  zz_cuda_free(NULL) is a no-op. */
void *zz_cuda_malloc(size_t bytes, char *err, size_t n);
void zz_cuda_free(void *dptr);
int zz_cuda_memset0(void *dptr, size_t bytes, char *err, size_t n);
int zz_cuda_upload(void *dptr, const void *host, size_t bytes, char *err, size_t n);
int zz_cuda_download(void *host, const void *dptr, size_t bytes, char *err, size_t n);
/* Page-locked host memory (for async copies). */
void *zz_cuda_host_alloc(size_t bytes, char *err, size_t n);
void zz_cuda_host_free(void *hptr);
/* Wait for all work on the current device; 0 or -1 with the first asynchronous error. */
int zz_cuda_sync(char *err, size_t n);

/* The device's measured ceilings, for benches' "fraction of the ceiling": *copy_gbs = a device-to-
 * device copy kernel's bytes read + written per second (GB/s, 2 GiB moved a run), *fma_gflops = an
 * FMA loop's fp32 rate (GFLOP/s, 2 per FMA; eight independent chains a thread, every
 * multiprocessor full).  Each the median of 9 timed runs.  0, or -1 with a message. */
int zz_cuda_ceilings(double *copy_gbs, double *fma_gflops, char *err, size_t n);

/* Test hook: the next n kernel launches of the CUDA backend (the inference net's convolutions, the
 * training kernels) fail, as CUDA refuses an empty grid (cudaErrorInvalidConfiguration: a real
 * launch failure, during a graph capture too); n = 0 clears.  Without CUDA it does nothing. */
void zz_cuda_test_fail_launches(int n);

/* Which convolution kernel the GPU runs (kernels.cuh): 0 chooses by the launch's size (the
 * default), 2 always the 64-row tiles, 4 always the 128-row tiles.  Both give the same bits; the
 * tests and benches run each.  ZZ_CUDA_CONV=2|4 in the environment sets it at the first launch. */
void zz_cuda_set_conv_kernel(int version);
int zz_cuda_conv_kernel(void);

#ifdef __cplusplus
}
#endif
#endif
