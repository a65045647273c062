/* infer_cuda.h — the inference net on the GPU, with nn_infer's contract (src/nn/infer.h): BN
 * folded into the convolutions exactly as infer.c folds it (same double arithmetic, same float
 * weights), fused bias / residual / ReLU, float only.  Plain C; the kernels are in net.cu.
 * A zz_cuda_infer owns a stream and buffers: use one per evaluating thread.
 * Built without CUDA, or on a machine without a GPU, create fails with the reason. */
#ifndef ZZ_CUDA_INFER_H
#define ZZ_CUDA_INFER_H

#include "nn/model.h"
#include "mcts/evaluator.h"

enum { ZZ_CUDA_GRAPHS = 1 };            /* flags: one CUDA graph per batch-size bucket */

typedef struct zz_cuda_infer zz_cuda_infer;

/* The folded weights of m in net.h's flat layout: returns the number of floats, and writes them
 * to w when w is not NULL (folded by nn_fold, src/nn/infer.h: the CPU net's own folding). */
size_t zz_cuda_fold(const nn_model *m, float *w);

/* Fold m (float or double) onto the GPU for batches of up to max_batch (more grows the buffers).
 * flags: ZZ_CUDA_GRAPHS, or 0; the environment ZZ_CUDA_GRAPHS=0 turns graphs off.  NULL with a
 * message (no GPU, built without CUDA, out of memory). */
zz_cuda_infer *zz_cuda_infer_create(const nn_model *m, int max_batch, int flags, char *err, size_t errlen);
/* Refold after m's weights changed (same architecture).  0 or -1. */
int zz_cuda_infer_update(zz_cuda_infer *inf, const nn_model *m, char *err, size_t errlen);
void zz_cuda_infer_free(zz_cuda_infer *inf);
const nn_geom *zz_cuda_infer_geom(const zz_cuda_infer *inf);

/* x[N][P][NN_PLANES] -> logits[N][P][NN_HEADS] and values[N] (either may be NULL), host memory,
 * synchronous.  0 or -1 with a message. */
int zz_cuda_infer_forward(zz_cuda_infer *inf, const float *x, int N, float *logits, float *values,
                          char *err, size_t errlen);
/* Encode (on the CPU) and evaluate n positions, all on the net's board.  0 or -1. */
int zz_cuda_infer_positions(zz_cuda_infer *inf, const zz_pos *pos, int n, float *logits, float *values,
                            char *err, size_t errlen);

/* mcts_net_run (src/mcts/eval_net.h) for the GPU net: net is a zz_cuda_infer. */
int zz_cuda_net_run(void *net, const zz_pos *pos, int n, float *logits, float *values, char *err, size_t errlen);

/* The network of a checkpoint on the GPU as a search evaluator (eval_cuda.c; mirrors
 * mcts_eval_nn_new).  NULL with a message (file, no GPU, memory). */
mcts_evaluator *mcts_eval_cuda_new(const char *path, char *err, size_t errlen);
/* The same from a model in memory (folded now; later changes to m are not seen). */
mcts_evaluator *mcts_eval_cuda_from_model(const nn_model *m, const char *name, char *err, size_t errlen);
/* The GPU evaluator when zz_cuda_select() says so, else the CPU one (mcts_eval_nn_new).
 * backend (may be NULL, n bytes) receives which was chosen and why.  When the GPU evaluator fails
 * later (a launch, a copy), that call and every later one run on the CPU (mcts_eval_nn_new of the
 * same file), with a warning on stderr and "(CPU fallback: ...)" in the evaluator's name. */
mcts_evaluator *mcts_eval_net_auto(const char *path, char *backend, size_t n, char *err, size_t errlen);

#endif
