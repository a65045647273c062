/* infer.h — the network for inference: batch norm folded into the convolutions (w' = w·γ/σ,
 * b' = β − μ·γ/σ with the running statistics), bias, residual and ReLU fused into the convolution's
 * epilogue, float only, no tape.  This is what search calls; it must agree with the model's
 * inference forward (nn_model_forward with train = false) to float rounding.
 * An nn_infer owns scratch buffers: use one per thread. */
#ifndef NN_INFER_H
#define NN_INFER_H

#include "nn/model.h"

typedef struct nn_infer nn_infer;

/* Fold m (float or double) into a new inference net.  NULL with a message when out of memory. */
nn_infer *nn_infer_create(const nn_model *m, char *err, size_t errlen);
/* Refold after m's weights changed (same architecture).  Returns 0, or -1 with a message. */
int nn_infer_update(nn_infer *inf, const nn_model *m, char *err, size_t errlen);
void nn_infer_free(nn_infer *inf);
const nn_geom *nn_infer_geom(const nn_infer *inf);

/* x[N][P][NN_PLANES] -> logits[N][P][NN_HEADS] and values[N] (either output may be NULL).
 * Returns 0, or -1 with a message. */
int nn_infer_forward(nn_infer *inf, const float *x, int N, float *logits, float *values,
                     char *err, size_t errlen);
/* Encode and evaluate n positions (all on the net's board, none over).  0 or -1. */
int nn_infer_positions(nn_infer *inf, const zz_pos *pos, int n, float *logits, float *values,
                       char *err, size_t errlen);

#endif
