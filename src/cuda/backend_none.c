/* backend_none.c — backend.h and net.h when the library is built without nvcc (no ZZ_HAVE_CUDA):
 * every query says "built without CUDA", every allocation and net fails cleanly with that message,
 * so the C code (infer_cuda.c, eval_cuda.c, tests, tools) links and runs the CPU path.
 * With CUDA, device.cu and net.cu implement the same functions and this file is empty. */
#include "cuda/backend.h"
#include "cuda/net.h"

#ifndef ZZ_HAVE_CUDA
#include <stdio.h>
#include <string.h>

#define NO_CUDA "built without CUDA (nvcc was not found when the library was built)"

static void no_cuda(char *msg, size_t n)
{
    if (msg && n) snprintf(msg, n, "%s", NO_CUDA);
}

const char *zz_cuda_build(void) { return "none"; }
int zz_cuda_available(char *msg, size_t n) { no_cuda(msg, n); return 0; }
int zz_cuda_select(char *msg, size_t n)
{
    if (msg && n) snprintf(msg, n, "cpu: %s", NO_CUDA);
    return 0;
}
int zz_cuda_device_query(int dev, zz_cuda_device_info *info, char *err, size_t n)
{
    memset(info, 0, sizeof *info);
    no_cuda(err, n);
    return -1;
}
void *zz_cuda_malloc(size_t bytes, char *err, size_t n) { no_cuda(err, n); return NULL; }
void zz_cuda_free(void *dptr) { (void)dptr; }
int zz_cuda_memset0(void *dptr, size_t bytes, char *err, size_t n) { no_cuda(err, n); return -1; }
int zz_cuda_upload(void *dptr, const void *host, size_t bytes, char *err, size_t n) { no_cuda(err, n); return -1; }
int zz_cuda_download(void *host, const void *dptr, size_t bytes, char *err, size_t n) { no_cuda(err, n); return -1; }
void *zz_cuda_host_alloc(size_t bytes, char *err, size_t n) { no_cuda(err, n); return NULL; }
void zz_cuda_host_free(void *hptr) { (void)hptr; }
int zz_cuda_sync(char *err, size_t n) { no_cuda(err, n); return -1; }
void zz_cuda_test_fail_launches(int n) { (void)n; }
void zz_cuda_set_conv_kernel(int version) { (void)version; }
int zz_cuda_ceilings(double *copy_gbs, double *fma_gflops, char *err, size_t n)
{
    (void)copy_gbs; (void)fma_gflops;
    no_cuda(err, n);
    return -1;
}
int zz_cuda_conv_kernel(void) { return 0; }

zz_cu_net *zz_cu_net_create(const zz_cu_desc *d, const float *w, size_t nw, int max_batch, int use_graphs,
                            char *err, size_t n)
{
    no_cuda(err, n);
    return NULL;
}
int zz_cu_net_set_weights(zz_cu_net *net, const float *w, size_t nw, char *err, size_t n) { no_cuda(err, n); return -1; }
void zz_cu_net_free(zz_cu_net *net) { (void)net; }
int zz_cu_net_forward(zz_cu_net *net, const float *x, int N, float *logits, float *values, char *err, size_t n)
{
    no_cuda(err, n);
    return -1;
}
int zz_cu_conv(float *y, const float *x, const float *w, const float *b, const float *res, const int *nb, int N,
               int P, int taps, int ci, int co, int act, char *err, size_t n)
{
    no_cuda(err, n);
    return -1;
}
#else
typedef int zz_backend_none_unused;     /* ISO C: a translation unit is not empty */
#endif
