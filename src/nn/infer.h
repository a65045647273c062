/* infer.h — the network for inference: batch norm folded into the convolutions (w' = w·γ/σ,
 * b' = β − μ·γ/σ with the running statistics), bias, residual and ReLU fused into the convolution's
 * epilogue, float (the hex convolutions optionally in bf16 or int8, below), no tape.  This is what search
 * calls; in float it must agree with the model's inference forward (nn_model_forward with
 * train = false) to float rounding, in bf16 or int8 to their rounding (bf16.h, int8.h).
 * An nn_infer owns scratch buffers: use one per thread. */
#ifndef NN_INFER_H
#define NN_INFER_H

#include "nn/model.h"

typedef struct nn_infer nn_infer;

/* One folded layer's place in a flat float buffer: weights [taps][ci][co] at w, bias [co] at b. */
typedef struct { size_t w, b; int taps, ci, co; } nn_fold_layer;

/* The number of folded layers of m: stem, 2 per block, two policy 1×1 convs, the value 1×1 conv
 * and two dense layers (2·blocks + 6), in that order. */
static inline int nn_fold_nlayers(const nn_model *m) { return 2 * m->cfg.blocks + 6; }
/* Fold m's layers, in the order above, into out at the places L gives: w' = w·s and
 * b' = β − μ·s with s = γ/sqrt(var+eps) after batch norm, else w and the bias as they are.
 * Every backend folds with this one function, so they hold the same float weights. */
void nn_fold(const nn_model *m, const nn_fold_layer *L, float *out);

/* Fold m (float or double) into a new inference net.  NULL with a message when out of memory. */
nn_infer *nn_infer_create(const nn_model *m, char *err, size_t errlen);
/* Refold after m's weights changed (same architecture).  Returns 0, or -1 with a message. */
int nn_infer_update(nn_infer *inf, const nn_model *m, char *err, size_t errlen);
void nn_infer_free(nn_infer *inf);
const nn_geom *nn_infer_geom(const nn_infer *inf);

/* The arithmetic of the hex convolutions (the bulk of the work): float; bf16 operands with float
 * sums (bf16.h; CPUs with AVX512_BF16); or 8-bit operands with exact integer sums (int8.h; CPUs
 * with AVX512_VNNI or AVX2, the same bits on both).  The 1×1 layers and the value head stay float. */
typedef enum { NN_PREC_F32 = 0, NN_PREC_BF16 = 1, NN_PREC_INT8 = 2 } nn_precision;
/* What players use (mcts_eval_nn_new: the arena, the ladder, the engine, the server, analyse) when
 * ZZ_NN_PRECISION is unset, where the CPU has it (else float): int8 won at equal time (src/nn
 * README.md).  A new nn_infer is float; training stays float, and so does its self-play unless
 * tools/train --selfplay-precision says otherwise. */
#define NN_PREC_PLAY_DEFAULT NN_PREC_INT8
/* ZZ_NN_PRECISION = f32 | bf16 | int8; unset: NN_PREC_PLAY_DEFAULT.  A precision this CPU lacks,
 * or a bad value, gives f32 with one warning on stderr. */
nn_precision nn_precision_default(void);
const char *nn_precision_name(nn_precision p);
/* "f32", "bf16", "int8" -> *p: 0, or -1 for another name. */
int nn_precision_parse(const char *name, nn_precision *p);
/* Whether this CPU runs p (float always; bf16 needs AVX512_BF16, int8 AVX512_VNNI or AVX2). */
bool nn_precision_available(nn_precision p);
/* Switch inf's precision (nn_infer_create starts in float).  -1 with a message
 * when the CPU lacks the instructions, or out of memory (inf is then left in float). */
int nn_infer_set_precision(nn_infer *inf, nn_precision p, char *err, size_t errlen);
nn_precision nn_infer_precision(const nn_infer *inf);

/* x[N][P][NN_PLANES] -> logits[N][P][NN_HEADS] and values[N] (either output may be NULL).
 * Returns 0, or -1 with a message. */
int nn_infer_forward(nn_infer *inf, const float *x, int N, float *logits, float *values,
                     char *err, size_t errlen);
/* Encode and evaluate n positions (all on the net's board, none over).  0 or -1. */
int nn_infer_positions(nn_infer *inf, const zz_pos *pos, int n, float *logits, float *values,
                       char *err, size_t errlen);

#endif
