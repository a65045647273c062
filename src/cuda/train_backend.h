/* train_backend.h — where the training kernels (train_kernels.h) run: a small table of memory
 * operations and one kernel launcher.  Two backends implement it:
 *   zzt_emu_backend()  — the CPU twin: host memory, every kernel's body called for each thread
 *                        index (OpenMP splits the indices); always available, used by the tests
 *                        to check the kernels' index math against src/nn without a GPU;
 *   zzt_cuda_backend() — the GPU: device memory, each body wrapped in a __global__ kernel on one
 *                        stream (train_launch.cu); NULL with a message without CUDA or a GPU.
 * Launches are asynchronous on the GPU: errors surface at the next sync or copy. */
#ifndef ZZ_CUDA_TRAIN_BACKEND_H
#define ZZ_CUDA_TRAIN_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include "cuda/train_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zzt_backend {
    const char *name;                                       /* "cuda" or "emulated" */
    void *(*alloc)(size_t bytes, char *err, size_t n);     /* zeroed; NULL with a message */
    void (*release)(void *p);
    int (*upload)(void *dst, const void *host, size_t bytes, char *err, size_t n);
    int (*download)(void *host, const void *src, size_t bytes, char *err, size_t n);
    int (*zero)(void *p, size_t bytes, char *err, size_t n);
    /* Run kernel k for thread indices [0, threads); 0, or -1 with a message (launch failure). */
    int (*launch)(zzt_kernel k, int64_t threads, const zzt_args *a, char *err, size_t n);
    int (*sync)(char *err, size_t n);                      /* wait; first asynchronous error */
} zzt_backend;

const zzt_backend *zzt_emu_backend(void);
/* The GPU backend, or NULL with the reason (built without CUDA, no usable GPU). */
const zzt_backend *zzt_cuda_backend(char *why, size_t n);

#ifdef __cplusplus
}
#endif
#endif
