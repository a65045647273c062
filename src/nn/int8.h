/* int8.h — hex convolutions for inference with 8-bit operands and exact 32-bit integer sums
 * (ops_int8.c), chosen at run time, with two kernels that give the same bits:
 *   - AVX512_VNNI (vpdpbusd: four u8·s8 products added into an int32 lane, four times the
 *     multiply-adds of a float FMA per instruction);
 *   - AVX2 (vpmaddwd on the operands widened to 16 bits: two products added into an int32 lane,
 *     then vpaddd; no saturation, so the sums are as exact), for CPUs without AVX-512.
 * Elsewhere the callers keep the float kernels.
 *
 * Quantisation (symmetric, no zero points):
 *   weights  per output channel: sw[co] = max over taps and inputs of |w| / 127,
 *            wq = round(w · 127/max) in [-127, 127];
 *   inputs   per sample (every row of one position shares it, so a position's result does not
 *            depend on the rest of the batch): sx[n] = max of the sample's x / 255,
 *            xq = floor(x · 255/max + 1/2) in [0, 255] — inputs must be >= 0 (the network's hex
 *            convolutions read ReLU outputs and the encoder's non-negative planes);
 *   output   y = (float)acc · (sx[n] · sw[co]) + bias (+ res), then ReLU: acc is exact, so the
 *            only errors are the two roundings: |y - y_float| <= sum over terms of
 *            (|x|·sw/2 + |w|·sx/2 + sx·sw/4), plus float rounding of the epilogue.
 *
 * Layouts (Ci a multiple of 4, Co a multiple of 16):
 *   xq  uint8  [rows][Ci]             nn_int8_quantize_rows (and sx[N])
 *   wq  int8   [taps][Ci/4][Co][4]    nn_int8_pack_weights (and sw[Co]): four input channels in
 *                                      one 32-bit lane, as vpdpbusd reads them
 *   y   float  [rows][Co] */
#ifndef NN_INT8_H
#define NN_INT8_H

#include "nn/geom.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The int8 kernels, worst to best. */
typedef enum { NN_INT8_NONE, NN_INT8_AVX2, NN_INT8_VNNI } nn_int8_kernel;
/* The best kernel this CPU runs: VNNI needs AVX512F, AVX512BW, AVX512VL and AVX512_VNNI; AVX2 needs
 * AVX2. */
nn_int8_kernel nn_int8_cpu_kernel(void);
/* The kernel in use: the CPU's best, capped by nn_int8_cap. */
nn_int8_kernel nn_int8_active_kernel(void);
/* Whether some kernel is in use (nn_int8_active_kernel() != NN_INT8_NONE). */
bool nn_int8_available(void);
/* For tests and benches (not thread-safe: call before the work starts): use no kernel better than
 * k (NN_INT8_VNNI lifts the cap); nn_int8_disable(off) caps at NONE (off) or lifts the cap. */
void nn_int8_cap(nn_int8_kernel k);
void nn_int8_disable(bool off);
/* "avx512-vnni", "avx2" or "none". */
const char *nn_int8_kernel_name(nn_int8_kernel k);
/* What a message says the int8 path needs. */
#define NN_INT8_NEEDS "AVX2 or AVX512_VNNI"

/* At most 512 input channels: the AVX2 kernel widens a tile's 7·6 tap rows on its stack (42 KiB). */
enum { NN_INT8_MAX_CI = 512 };
/* Ci a multiple of 4 and at most NN_INT8_MAX_CI, Co a multiple of 16. */
bool nn_int8_shape_ok(int Ci, int Co);
/* wq (taps·Ci·Co) and sw (Co) from w[taps][Ci][Co]. */
void nn_int8_pack_weights(int8_t *wq, float *sw, const float *w, int taps, int Ci, int Co);
/* xq[N·P][Ci] and sx[N] from x[N·P][Ci].  false (nothing written) when some x < 0 or not finite. */
bool nn_int8_quantize_rows(uint8_t *xq, float *sx, const float *x, int N, int P, int Ci);

/* y[rows][Co] = relu?((float)sum_t sum_ci xq[src(r,t)][ci]·wq[t][ci][co] · (sx[n(r)]·sw[co])
 * + bias[co] (+ res[r][co])), g the hex geometry (rows = N·P, 7 taps; bias may be NULL).
 * Returns false, doing nothing, when the CPU or the shapes do not suit. */
bool nn_int8_conv(float *y, const uint8_t *xq, const float *sx, const int8_t *wq, const float *sw, const float *bias,
                  const float *res, const nn_geom *g, int rows, int Ci, int Co, bool relu);
/* The same in portable C (the twin the tests hold the kernel to, bit for bit; any CPU). */
void nn_int8_conv_ref(float *y, const uint8_t *xq, const float *sx, const int8_t *wq, const float *sw,
                      const float *bias, const float *res, const nn_geom *g, int rows, int Ci, int Co, bool relu);

#endif
