/* int8_kern.h — what ops_int8.c and ops_int8_avx2.c share inside the int8 path (int8.h): the tap
 * rows of the hex geometry and the AVX2 kernel's entry points.  Not for callers outside src/nn. */
#ifndef NN_INT8_KERN_H
#define NN_INT8_KERN_H

#include "nn/int8.h"

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define NN_INT8_X86 1
#else
#define NN_INT8_X86 0
#endif

/* NN_INT8_MAX_CI zero inputs: the row read by taps that fall off the board. */
extern const uint8_t nn_int8_zero_row[NN_INT8_MAX_CI];

/* The input row (Ci bytes of xq) feeding tap t of row r, or nn_int8_zero_row off the board. */
static inline const uint8_t *nn_int8_tap_row(const uint8_t *xq, const nn_geom *g, int r, int t, int Ci)
{
    int P = g->ncells, n = r / P, j = g->nb[r - n * P][t];
    return j < 0 ? nn_int8_zero_row : xq + ((size_t)n * P + j) * Ci;
}

#if NN_INT8_X86
enum { NN_INT8_AVX2_ROWS = 6 };     /* the AVX2 kernel's tile rows */
/* AVX2 twins (the CPU must have AVX2): the same bytes as the portable quantiser, and the same bits
 * as nn_int8_conv_ref (shapes as nn_int8_shape_ok). */
bool nn_int8_quantize_sample_avx2(uint8_t *q, float *sx, const float *xs, size_t per);
/* nn_int8_conv with the AVX2 kernel, on OpenMP's threads when `parallel`; false (nothing done)
 * when its scratch (the input widened to u16: rows·Ci·2 bytes) cannot be had. */
bool nn_int8_conv_avx2(float *y, const uint8_t *xq, const float *sx, const int8_t *wq, const float *sw,
                       const float *bias, const float *res, const nn_geom *g, int rows, int Ci, int Co, bool relu,
                       bool parallel);
#endif

#endif
