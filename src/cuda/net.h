/* net.h — the low-level GPU inference net (plain C API over the kernels of net.cu): BN already
 * folded into the convolutions on the host, weights in one flat float buffer, activations rows ×
 * channels x[N][P][C] as in src/nn (one row per on-board cell; off-board cells are not stored,
 * so no masking is needed: a neighbour off the board reads as zero through nb = -1).
 *
 * Flat weight layout (the order of src/nn/infer.c's add_layer; zz_cu_layout computes it):
 *   stem   w[7][planes][C]      b[C]
 *   blk k  w[7][C][C]           b[C]      k = 0 .. 2B-1 (two convs per residual block)
 *   pol1   w[C][Cp]             b[Cp]
 *   pol2   w[Cp][heads]         b[heads]
 *   val    w[C][Cv]             b[Cv]
 *   fc1    w[P·Cv][Vh]          b[Vh]
 *   fc2    w[Vh][1]             b[1]
 * The forward (infer.c's forward_slice):
 *   a = relu(hex(x, stem));  per block: u = relu(hex(a, blk 2b)); a' = relu(hex(u, blk 2b+1) + a)
 *   logits = pol2(relu(pol1(a)));  value = tanh(fc2(relu(fc1(relu(val(a))))))
 * Without CUDA (backend_none.c) every function fails with "built without CUDA". */
#ifndef ZZ_CUDA_NET_H
#define ZZ_CUDA_NET_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { ZZ_CU_TAPS = 7 };

typedef struct {
    int P;                      /* rows (on-board cells) per sample: 37, 48, 61 */
    int planes;                 /* input channels (NN_PLANES) */
    int C, blocks, Cp, Cv, Vh;  /* trunk width, residual blocks, policy / value channels, value hidden */
    int heads;                  /* policy outputs per cell (NN_HEADS) */
    const int16_t *nb;          /* [P][7]: neighbour row of each tap, or -1 (nn_geom.nb) */
} zz_cu_desc;

typedef struct { size_t w, b; int taps, ci, co; } zz_cu_layer;   /* offsets in floats */

/* Layers in flat order: [0] stem, [1 .. 2B] blocks, then pol1, pol2, val, fc1, fc2.
 * Fills L[0 .. 2B+6) (caller gives room for 2B+6) and returns the total number of floats. */
static inline size_t zz_cu_layout(const zz_cu_desc *d, zz_cu_layer *L)
{
    size_t n = 0;
    int k = 0;
#define ZZ_CU_ADD(T, I, O) do { L[k].w = n; L[k].taps = (T); L[k].ci = (I); L[k].co = (O);     \
        n += (size_t)(T) * (size_t)(I) * (size_t)(O); L[k].b = n; n += (size_t)(O); k++; } while (0)
    ZZ_CU_ADD(ZZ_CU_TAPS, d->planes, d->C);
    for (int b = 0; b < 2 * d->blocks; b++) ZZ_CU_ADD(ZZ_CU_TAPS, d->C, d->C);
    ZZ_CU_ADD(1, d->C, d->Cp);
    ZZ_CU_ADD(1, d->Cp, d->heads);
    ZZ_CU_ADD(1, d->C, d->Cv);
    ZZ_CU_ADD(1, d->P * d->Cv, d->Vh);
    ZZ_CU_ADD(1, d->Vh, 1);
#undef ZZ_CU_ADD
    return n;
}
static inline int zz_cu_nlayers(const zz_cu_desc *d) { return 2 * d->blocks + 6; }

typedef struct zz_cu_net zz_cu_net;

/* A net on the current device for batches of up to max_batch (grown on demand), with its own
 * stream, device buffers and pinned host staging buffers; weights w[nw] (nw must equal
 * zz_cu_layout's total) are uploaded.  use_graphs: capture one CUDA graph per batch-size bucket
 * (1, 2, 4, ... padded up) and replay it.  NULL with a message on failure. */
zz_cu_net *zz_cu_net_create(const zz_cu_desc *d, const float *w, size_t nw, int max_batch,
                            int use_graphs, char *err, size_t n);
/* Replace the weights (same architecture).  0 or -1. */
int zz_cu_net_set_weights(zz_cu_net *net, const float *w, size_t nw, char *err, size_t n);
void zz_cu_net_free(zz_cu_net *net);
/* x[N][P][planes] (host) -> logits[N][P][heads], values[N] (host; either may be NULL).
 * Synchronous for the caller (async copies on the net's stream inside).  0 or -1. */
int zz_cu_net_forward(zz_cu_net *net, const float *x, int N, float *logits, float *values,
                      char *err, size_t n);

/* One fused convolution on device pointers, for tests and the lab:
 * y[rows][co] = act(b + sum_t sum_ci x[row(n, nb[p][t])][ci] · w[t][ci][co] (+ res[rows][co]))
 * rows = N·P; taps 7 (hex, nb [P][7] on the device) or 1 (nb NULL, plain 1×1 / dense with P
 * rows per sample).  act: 0 none, 1 ReLU, 2 tanh.  Asynchronous on the default stream.  0 or -1. */
int zz_cu_conv(float *y, const float *x, const float *w, const float *b, const float *res,
               const int *nb, int N, int P, int taps, int ci, int co, int act, char *err, size_t n);

#ifdef __cplusplus
}
#endif
#endif
