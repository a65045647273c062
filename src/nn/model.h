/* model.h — the AlphaZero network: a residual tower of hex convolutions with a factorised policy
 * head and a value head, its parameters in flat buffers with a table of named views, and its
 * forward (recorded on a tape) and backward.
 *
 *   input x[N*P][NN_PLANES]
 *   stem:    hex conv NN_PLANES→C, BN, ReLU
 *   blocks:  B × (hex conv C→C, BN, ReLU, hex conv C→C, BN, + input, ReLU)
 *   policy:  1×1 conv C→Cp, BN, ReLU, 1×1 conv Cp→6 (+bias) → logits[N][P][NN_HEADS]:
 *            channels 0-2 place white/grey/black at the cell, 3 remove the ring at the cell,
 *            4 jump from the cell (cap_from), 5 land on the cell (cap_to)  (policy.h scores moves);
 *            nn_grid_scatter(g, logits + n·P·6, 6, planes) gives the grid heads place[4][H][W],
 *            cap_from[H][W], cap_to[H][W] of sample n (planes 0-3, 4, 5), zero off the board
 *   value:   1×1 conv C→Cv, BN, ReLU, dense P·Cv→Vh (+b), ReLU, dense Vh→1 (+b), tanh → value[N]
 *            (from the mover's point of view)
 *   captures (optional, cfg.aux_outputs = NN_AUX): dense Vh→NN_AUX (+b) from the value head's
 *            hidden layer, linear → aux[N][NN_AUX]: the game's final captures, mover's then the
 *            opponent's, white/grey/black, each as a share of that colour's marbles (nn_aux_target).
 *            An auxiliary training target only: players never compute it (infer.c folds the value
 *            and policy heads alone).
 *
 * Defaults for 37 rings: C = 64, B = 6, Cp = 32, Cv = 4, Vh = 128 (see nn_config_default).
 *
 * Buffers: param, grad, mom (SGD momentum) share one layout: every parameter view at the same
 * offset in each; weight-decayed tensors (conv and dense weights) come first, [0, ndecay), then
 * BN gamma/beta and biases.  Running BN statistics live in `stats` with views of their own.
 * Elements are float (NN_F32, production) or double (NN_F64, gradient checks). */
#ifndef NN_MODEL_H
#define NN_MODEL_H

#include "nn/tape.h"
#include "nn/encode.h"

enum { NN_HEADS = 6, NN_HEAD_REMOVE = 3, NN_HEAD_FROM = 4, NN_HEAD_TO = 5 };
enum { NN_NAME_LEN = 40, NN_MAX_DIMS = 4 };
enum { NN_AUX = 6 };                /* the captures head's outputs: [side: mover, opponent][colour] */

typedef struct {
    zz_board_kind board;
    int channels;           /* C: trunk width */
    int blocks;             /* B: residual blocks */
    int policy_channels;    /* Cp */
    int value_channels;     /* Cv */
    int value_hidden;       /* Vh */
    int aux_outputs;        /* 0 (no captures head) or NN_AUX */
    float bn_momentum;      /* running statistics: r = (1-m) r + m batch */
    float bn_eps;
} nn_config;

typedef struct {
    char name[NN_NAME_LEN];     /* e.g. "block0.conv1.w", "stem.bn.mean" */
    int ndim, dims[NN_MAX_DIMS];
    size_t offset, count;       /* in elements, into param/grad/mom, or into stats */
    bool stat;                  /* a running statistic (in stats), not a trained parameter */
    bool decay;                 /* weight decay applies */
} nn_view;

typedef struct { int gamma, beta, mean, var; } nn_bn_views;
typedef struct { int conv1, conv2; nn_bn_views bn1, bn2; } nn_block_views;

typedef struct nn_model {
    nn_config cfg;
    nn_dtype dtype;
    size_t esize;
    nn_geom geom;
    nn_view *views;
    int nviews;
    size_t nparams, ndecay, nstats;
    void *param, *grad, *mom, *stats;
    /* view indices of each layer */
    int stem_conv; nn_bn_views stem_bn;
    nn_block_views *block;
    int pol_conv1, pol_conv2, pol_bias; nn_bn_views pol_bn;
    int val_conv, val_fc1, val_fc1_b, val_fc2, val_fc2_b; nn_bn_views val_bn;
    int aux_fc, aux_fc_b;       /* the captures head, -1 when cfg.aux_outputs is 0 */
    /* the last forward */
    nn_tape tape;
    int batch, batch_cap;       /* N of the last forward; N the arenas are sized for */
    bool train_forward;         /* the last forward was a training forward (backward allowed) */
    size_t out_logits, out_value, out_aux;     /* out_aux: NN_NONE without the captures head */
} nn_model;

/* Defaults for a board: 6 blocks × 64 channels on 37 and 48 rings, 8 × 64 on 61 (README.md). */
void nn_config_default(nn_config *c, zz_board_kind board);
/* Check a configuration; returns 0, or -1 with a message. */
int nn_config_check(const nn_config *c, char *err, size_t errlen);

/* A model with freshly initialised weights (He-normal from seed; BN gamma 1, beta 0, running
 * mean 0, var 1).  Returns NULL with a message when the configuration is invalid or memory is out. */
nn_model *nn_model_create(const nn_config *cfg, nn_dtype dtype, uint64_t seed, char *err, size_t errlen);
void nn_model_free(nn_model *m);

/* A view by name (NULL when absent); m->views[0..nviews) lists them all. */
const nn_view *nn_model_view(const nn_model *m, const char *name);
/* Number of parameters (elements of param, grad and mom). */
static inline size_t nn_model_nparams(const nn_model *m) { return m->nparams; }

/* Element i of a buffer of the model's type, as a double; and the setter. */
double nn_buf_get(const nn_model *m, const void *buf, size_t i);
void nn_buf_set(const nn_model *m, void *buf, size_t i, double v);

/* Copy parameters and statistics between models of the same architecture (any element types).
 * Returns 0, or -1 with a message when the architectures differ. */
int nn_model_copy(nn_model *dst, const nn_model *src, char *err, size_t errlen);
/* Whether two configurations describe the same architecture (same tensors and shapes). */
bool nn_config_same_arch(const nn_config *a, const nn_config *b);

/* Forward a batch: x[N][P][NN_PLANES] (nn_encode's rows, samples one after another).
 * train: BN on batch statistics, running statistics updated, tape kept for nn_model_backward;
 * otherwise BN on running statistics.  Returns 0, or -1 with a message (N < 1, out of memory). */
int nn_model_forward(nn_model *m, const float *x, int N, bool train, char *err, size_t errlen);
/* The last forward's outputs in the model's type: logits[N][P][NN_HEADS], value[N]. */
static inline const void *nn_model_logits(const nn_model *m) { return (const char *)m->tape.act + m->out_logits * m->esize; }
static inline const void *nn_model_values(const nn_model *m) { return (const char *)m->tape.act + m->out_value * m->esize; }
/* The captures head's outputs aux[N][NN_AUX] in the model's type; NULL without the head. */
static inline const void *nn_model_aux(const nn_model *m) { return m->out_aux == NN_NONE ? NULL : (const char *)m->tape.act + m->out_aux * m->esize; }
/* The same converted to float (either may be NULL). */
void nn_model_outputs(const nn_model *m, float *logits, float *values);

/* The forward of N samples as a list of op records, without running it: for another executor of
 * the same tape (the GPU trainer, src/cuda/train_cuda.h).  Offsets are into an activation arena of
 * act_used elements (model's type) laid out as nn_model_forward lays it: the input x[N][P][planes]
 * at `in`, the outputs at `logits` and `value`; parameters and statistics at their view offsets. */
typedef struct {
    nn_tape_op *ops;
    int nops, batch;
    size_t act_used, in, logits, value, aux;   /* aux: NN_NONE without the captures head */
} nn_plan;
/* Fill p (free it with nn_plan_free).  Returns 0, or -1 with a message. */
int nn_model_plan(const nn_model *m, int N, bool train, nn_plan *p, char *err, size_t errlen);
void nn_plan_free(nn_plan *p);

/* Gradient plumbing: zero the activation gradients and point at those of the outputs
 * (dlogits[N][P][NN_HEADS], dvalue[N], model type); the loss writes them, then
 * nn_model_backward accumulates into m->grad.  -1 with a message when the last forward was not
 * a training forward. */
int nn_model_begin_backward(nn_model *m, void **dlogits, void **dvalue, char *err, size_t errlen);
/* After nn_model_begin_backward: the gradient of the captures head's outputs daux[N][NN_AUX]
 * (model type), for the loss to write; NULL without the head. */
void *nn_model_aux_grad(nn_model *m);
int nn_model_backward(nn_model *m, char *err, size_t errlen);
/* Zero the parameter gradients. */
void nn_model_zero_grad(nn_model *m);

/* A copy of src with a captures head added (the head fresh from seed, everything else src's);
 * NULL with a message.  src must have none. */
nn_model *nn_model_with_aux(const nn_model *src, uint64_t seed, char *err, size_t errlen);

/* Forward FLOPs per sample (convolutions and dense layers, multiply-add = 2). */
double nn_model_flops(const nn_model *m);

#endif
