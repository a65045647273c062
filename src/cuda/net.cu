// net.cu — the GPU inference net of net.h: one fused implicit-GEMM convolution kernel serves the
// hex 3×3 convs (seven live taps gathered through the neighbour table), the 1×1 convs of the heads
// and the value head's dense layers, with bias, optional residual and ReLU / tanh fused into the
// epilogue.  A net owns a stream, device buffers, pinned host staging buffers and (optionally) one
// CUDA graph per batch-size bucket.  CPU twin: src/nn/infer.c (run / forward_slice).
//
// Kernels (zzk_conv / zzk_conv_wide in kernels.cuh, versions 2 and 4 of the lab src/cuda/lab/hexconv.cu,
// chosen by zzk_conv_launch by the batch's size):
//   y[r][co] = act(b[co] + sum_{k < taps·ci} A[r][k] · w[k][co] (+ res[r][co])),  r < rows = N·P
//   A[r][t·ci + c] = x[n·P + nb[p][t]][c] (0 when nb[p][t] = -1), r = n·P + p     (hex, taps 7)
//   A[r][c]        = x[r][c]                                                      (1×1, taps 1)
// Tiles of 64 rows (or 128) × 64 output channels, K in steps of 16 through shared memory, 256
// threads each holding 4×4 (or 8×4) accumulators.  Each output's sum runs over k in the same
// order whatever the batch around it and whichever kernel, so a sample's outputs do not depend on
// the batch (bit for bit).
#include "cuda/net.h"
#include "cuda/kernels.cuh"
#include "cuda/errors.cuh"
#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_BUCKETS = 24 };

#define CK(call, what) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) return zz_cu_fail(e_, what, err, errlen); } while (0)

static int launch_conv(cudaStream_t st, float *y, const float *x, const float *w, const float *b,
                       const float *res, const int *nb, int N, int P, int taps, int ci, int co, int act,
                       char *err, size_t errlen)
{
    if (N < 1 || P < 1 || ci < 1 || co < 1 || (taps != 1 && taps != ZZ_CU_TAPS) || (taps == ZZ_CU_TAPS && !nb)) {
        zz_cu_msg(err, errlen, "conv: bad shape N=%d P=%d taps=%d ci=%d co=%d", N, P, taps, ci, co);
        return -1;
    }
    bool fail = zz_cu_take_fault();                 // backend.h zz_cuda_test_fail_launches
    CK(zzk_conv_launch(st, y, x, w, b, res, nb, N * P, P, taps, ci, co, act, 0, fail), "k_conv launch");
    return 0;
}

extern "C" int zz_cu_conv(float *y, const float *x, const float *w, const float *b, const float *res,
                          const int *nb, int N, int P, int taps, int ci, int co, int act, char *err, size_t errlen)
{
    return launch_conv(0, y, x, w, b, res, nb, N, P, taps, ci, co, act, err, errlen);
}

struct zz_cu_net {
    zz_cu_desc d;                   // d.nb is not kept (copied to dnb)
    zz_cu_layer *L;
    size_t nw;
    float *dw;                      // [nw] folded weights
    int *dnb;                       // [P][7]
    int cap;                        // batch the buffers hold (a power of two)
    float *dx, *da, *db, *du, *dp, *dv, *dh, *dlog, *dval;
    float *hx, *hlog, *hval;        // pinned staging: [cap][P][planes], [cap][P][heads], [cap]
    cudaStream_t st;
    int use_graphs;
    cudaGraphExec_t graph[MAX_BUCKETS];   // graph[k]: a batch of 2^k
};

static void free_buffers(zz_cu_net *net)
{
    for (int k = 0; k < MAX_BUCKETS; k++)
        if (net->graph[k]) { cudaGraphExecDestroy(net->graph[k]); net->graph[k] = NULL; }
    float **dev[] = { &net->dx, &net->da, &net->db, &net->du, &net->dp, &net->dv, &net->dh, &net->dlog, &net->dval };
    for (size_t i = 0; i < sizeof dev / sizeof *dev; i++) { if (*dev[i]) cudaFree(*dev[i]); *dev[i] = NULL; }
    float **host[] = { &net->hx, &net->hlog, &net->hval };
    for (size_t i = 0; i < sizeof host / sizeof *host; i++) { if (*host[i]) cudaFreeHost(*host[i]); *host[i] = NULL; }
    net->cap = 0;
}

static int bucket_of(int N)
{
    int k = 0;
    while ((1 << k) < N) k++;
    return k;
}

// Buffers for a batch of at least N (rounded up to a power of two).
static int reserve(zz_cu_net *net, int N, char *err, size_t errlen)
{
    if (N <= net->cap) return 0;
    int k = bucket_of(N);
    if (k >= MAX_BUCKETS) { zz_cu_msg(err, errlen, "batch of %d is too large", N); return -1; }
    CK(cudaStreamSynchronize(net->st), "cudaStreamSynchronize");
    free_buffers(net);
    const zz_cu_desc *d = &net->d;
    size_t cap = (size_t)1 << k, rows = cap * d->P;
    struct { float **p; size_t n; } dev[] = {
        { &net->dx, rows * d->planes }, { &net->da, rows * d->C }, { &net->db, rows * d->C }, { &net->du, rows * d->C },
        { &net->dp, rows * d->Cp }, { &net->dv, rows * d->Cv }, { &net->dh, cap * d->Vh },
        { &net->dlog, rows * d->heads }, { &net->dval, cap } };
    for (size_t i = 0; i < sizeof dev / sizeof *dev; i++) {
        cudaError_t e = cudaMalloc((void **)dev[i].p, dev[i].n * sizeof(float));
        if (e != cudaSuccess) { free_buffers(net); return zz_cu_fail(e, "cudaMalloc (activations)", err, errlen); }
    }
    struct { float **p; size_t n; } host[] = { { &net->hx, rows * d->planes }, { &net->hlog, rows * d->heads }, { &net->hval, cap } };
    for (size_t i = 0; i < sizeof host / sizeof *host; i++) {
        cudaError_t e = cudaMallocHost((void **)host[i].p, host[i].n * sizeof(float));
        if (e != cudaSuccess) { free_buffers(net); return zz_cu_fail(e, "cudaMallocHost (staging)", err, errlen); }
    }
    net->cap = (int)cap;
    return 0;
}

// The whole forward of a batch of N on net->st: upload hx, the layers, download hlog / hval.
static int enqueue(zz_cu_net *net, int N, char *err, size_t errlen)
{
    const zz_cu_desc *d = &net->d;
    const zz_cu_layer *L = net->L;
    const float *W = net->dw;
    cudaStream_t st = net->st;
    int P = d->P, B = d->blocks;
    size_t rows = (size_t)N * P;
    CK(cudaMemcpyAsync(net->dx, net->hx, rows * d->planes * sizeof(float), cudaMemcpyHostToDevice, st), "upload x");
#define CONV(y, x, l, res, n, p, act) \
    if (launch_conv(st, y, x, W + (l).w, W + (l).b, res, net->dnb, n, p, (l).taps, (l).ci, (l).co, act, err, errlen)) return -1
    float *a = net->da, *bb = net->db, *u = net->du;
    CONV(a, net->dx, L[0], NULL, N, P, 1);
    for (int b = 0; b < B; b++) {
        CONV(u, a, L[1 + 2 * b], NULL, N, P, 1);
        CONV(bb, u, L[2 + 2 * b], a, N, P, 1);
        float *t = a; a = bb; bb = t;
    }
    const zz_cu_layer *pol1 = &L[1 + 2 * B], *pol2 = pol1 + 1, *val = pol1 + 2, *fc1 = pol1 + 3, *fc2 = pol1 + 4;
    CONV(net->dp, a, *pol1, NULL, N, P, 1);
    CONV(net->dlog, net->dp, *pol2, NULL, N, P, 0);
    CONV(net->dv, a, *val, NULL, N, P, 1);
    CONV(net->dh, net->dv, *fc1, NULL, N, 1, 1);           // v[N][P·Cv] -> h[N][Vh]
    CONV(net->dval, net->dh, *fc2, NULL, N, 1, 2);         // h[N][Vh] -> tanh(o)[N]
#undef CONV
    CK(cudaMemcpyAsync(net->hlog, net->dlog, rows * d->heads * sizeof(float), cudaMemcpyDeviceToHost, st), "download logits");
    CK(cudaMemcpyAsync(net->hval, net->dval, (size_t)N * sizeof(float), cudaMemcpyDeviceToHost, st), "download values");
    return 0;
}

extern "C" int zz_cu_net_set_weights(zz_cu_net *net, const float *w, size_t nw, char *err, size_t errlen)
{
    if (nw != net->nw) { zz_cu_msg(err, errlen, "weights: %zu floats, the net has %zu", nw, net->nw); return -1; }
    CK(cudaStreamSynchronize(net->st), "cudaStreamSynchronize");
    CK(cudaMemcpyAsync(net->dw, w, nw * sizeof(float), cudaMemcpyHostToDevice, net->st), "upload weights");
    CK(cudaStreamSynchronize(net->st), "upload weights");      // w is pageable: finish before returning
    return 0;
}

extern "C" void zz_cu_net_free(zz_cu_net *net)
{
    if (!net) return;
    if (net->st) cudaStreamSynchronize(net->st);
    free_buffers(net);
    if (net->dw) cudaFree(net->dw);
    if (net->dnb) cudaFree(net->dnb);
    if (net->st) cudaStreamDestroy(net->st);
    free(net->L);
    free(net);
}

extern "C" zz_cu_net *zz_cu_net_create(const zz_cu_desc *d, const float *w, size_t nw, int max_batch,
                                       int use_graphs, char *err, size_t errlen)
{
    if (d->P < 1 || d->planes < 1 || d->C < 1 || d->blocks < 0 || d->Cp < 1 || d->Cv < 1 || d->Vh < 1 ||
        d->heads < 1 || !d->nb) {
        zz_cu_msg(err, errlen, "zz_cu_net_create: bad description");
        return NULL;
    }
    zz_cu_net *net = (zz_cu_net *)calloc(1, sizeof *net);
    if (!net || !(net->L = (zz_cu_layer *)calloc((size_t)zz_cu_nlayers(d), sizeof *net->L))) {
        free(net);
        zz_cu_msg(err, errlen, "out of memory");
        return NULL;
    }
    net->d = *d;
    net->d.nb = NULL;
    net->nw = zz_cu_layout(d, net->L);
    net->use_graphs = use_graphs;
    cudaError_t e;
    int *nb = (int *)malloc(sizeof(int) * (size_t)d->P * ZZ_CU_TAPS);
    if (!nb) { zz_cu_msg(err, errlen, "out of memory"); zz_cu_net_free(net); return NULL; }
    for (int i = 0; i < d->P * ZZ_CU_TAPS; i++) nb[i] = d->nb[i];
#define CKN(call, what) do { e = (call); if (e != cudaSuccess) { zz_cu_fail(e, what, err, errlen); free(nb); zz_cu_net_free(net); return NULL; } } while (0)
    CKN(cudaStreamCreateWithFlags(&net->st, cudaStreamNonBlocking), "cudaStreamCreate");
    CKN(cudaMalloc((void **)&net->dw, net->nw * sizeof(float)), "cudaMalloc (weights)");
    CKN(cudaMalloc((void **)&net->dnb, sizeof(int) * (size_t)d->P * ZZ_CU_TAPS), "cudaMalloc (neighbours)");
    CKN(cudaMemcpyAsync(net->dnb, nb, sizeof(int) * (size_t)d->P * ZZ_CU_TAPS, cudaMemcpyHostToDevice, net->st), "upload neighbours");
    CKN(cudaStreamSynchronize(net->st), "upload neighbours");
#undef CKN
    free(nb);
    if (zz_cu_net_set_weights(net, w, nw, err, errlen) || reserve(net, max_batch > 0 ? max_batch : 1, err, errlen)) {
        zz_cu_net_free(net);
        return NULL;
    }
    return net;
}

extern "C" int zz_cu_net_forward(zz_cu_net *net, const float *x, int N, float *logits, float *values,
                                 char *err, size_t errlen)
{
    if (N < 1) { zz_cu_msg(err, errlen, "batch size %d < 1", N); return -1; }
    if (reserve(net, N, err, errlen)) return -1;
    const zz_cu_desc *d = &net->d;
    size_t per_x = (size_t)d->P * d->planes, per_l = (size_t)d->P * d->heads;
    memcpy(net->hx, x, (size_t)N * per_x * sizeof(float));
    if (net->use_graphs) {
        int k = bucket_of(N), Nb = 1 << k;                   // pad to the bucket with zero inputs
        if (Nb > N) memset(net->hx + (size_t)N * per_x, 0, (size_t)(Nb - N) * per_x * sizeof(float));
        if (!net->graph[k]) {
            cudaGraph_t g = NULL;
            CK(cudaStreamBeginCapture(net->st, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
            int rc = enqueue(net, Nb, err, errlen);
            cudaError_t e = cudaStreamEndCapture(net->st, &g);
            if (rc) {                                // the capture is abandoned; the stream stays usable
                if (g) cudaGraphDestroy(g);
                (void)cudaGetLastError();
                return -1;
            }
            if (e != cudaSuccess) return zz_cu_fail(e, "cudaStreamEndCapture", err, errlen);
            e = cudaGraphInstantiate(&net->graph[k], g, 0);
            cudaGraphDestroy(g);
            if (e != cudaSuccess) { net->graph[k] = NULL; return zz_cu_fail(e, "cudaGraphInstantiate", err, errlen); }
        }
        CK(cudaGraphLaunch(net->graph[k], net->st), "cudaGraphLaunch");
    } else if (enqueue(net, N, err, errlen)) {
        cudaStreamSynchronize(net->st);
        return -1;
    }
    CK(cudaStreamSynchronize(net->st), "forward");
    if (logits) memcpy(logits, net->hlog, (size_t)N * per_l * sizeof(float));
    if (values) memcpy(values, net->hval, (size_t)N * sizeof(float));
    return 0;
}
