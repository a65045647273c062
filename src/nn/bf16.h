/* bf16.h — hex convolutions for inference with bfloat16 operands and float sums (ops_bf16.c), on
 * CPUs with AVX512_BF16 (the vdpbf16ps dot product: two bf16 products added into a float lane,
 * twice the multiply-adds of a float FMA per instruction), chosen at run time; elsewhere the
 * callers keep the float kernels.
 *
 * bf16 is a float with its low 16 bits dropped: 8 bits of mantissa, float's range.  Weights and
 * inputs are rounded to it (to nearest, ties to even), each product of two bf16 is exact in float,
 * and the sums are float: so each term carries a relative error of at most about 2^-8 (two
 * roundings of 2^-9), and the error of a sum is bounded by 2^-8 · sum |x·w| plus float rounding.
 *
 * Layouts (Ci even, Co a multiple of 16):
 *   x    float   [rows][Ci]            (as the float kernels)
 *   xb   uint16  [rows][Ci]            nn_bf16_pack_rows(x): the same layout, rounded
 *   wp   uint16  [taps][Ci/2][Co][2]   nn_bf16_pack_weights(w[taps][Ci][Co]): input channels in
 *                                       pairs, so one 32-bit lane holds the pair a product uses
 *   y    float   [rows][Co] */
#ifndef NN_BF16_H
#define NN_BF16_H

#include "nn/geom.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether this CPU runs the bf16 kernel (AVX512F and AVX512_BF16), and nn_bf16_force's limit. */
bool nn_bf16_available(void);
/* For tests and benches: off = true makes nn_bf16_available false (and nn_bf16_conv decline). */
void nn_bf16_disable(bool off);

/* Round a float to bf16 (to nearest, ties to even; NaN stays NaN) and widen one back. */
uint16_t nn_bf16_from_f32(float f);
float nn_bf16_to_f32(uint16_t h);

/* Whether the kernel takes these shapes: Ci even and at most NN_BF16_MAX_CI, Co a multiple of 16. */
enum { NN_BF16_MAX_CI = 4096 };
bool nn_bf16_shape_ok(int Ci, int Co);
/* The packed weights' size in uint16 elements: taps·Ci·Co. */
static inline size_t nn_bf16_weights_count(int taps, int Ci, int Co) { return (size_t)taps * Ci * Co; }
void nn_bf16_pack_weights(uint16_t *wp, const float *w, int taps, int Ci, int Co);
void nn_bf16_pack_rows(uint16_t *xb, const float *x, size_t rows, int Ci);

/* y[rows][Co] = epilogue(sum_t sum_ci xb[src(r,t)][ci] · wp[t][ci][Co]), g the hex geometry
 * (rows = N·P, 7 taps; src as nn_fast_conv's): + bias[Co] if bias, + res[rows][Co] if res, then
 * max(·,0) if relu.  Returns false, doing nothing, when the CPU or the shapes do not suit. */
bool nn_bf16_conv(float *y, const uint16_t *xb, const uint16_t *wp, const float *bias, const float *res,
                  const nn_geom *g, int rows, int Ci, int Co, bool relu);
/* The same in portable C, summing each pair's two products in the kernel's order (the twin the
 * tests hold the kernel to; any CPU).  Same shapes as nn_bf16_conv. */
void nn_bf16_conv_ref(float *y, const uint16_t *xb, const uint16_t *wp, const float *bias, const float *res,
                      const nn_geom *g, int rows, int Ci, int Co, bool relu);

#endif
