/* tape.h — reverse-mode autodiff over a tape of the ops a forward ran.
 *
 * A tape borrows the model's flat buffers (parameters, their gradients, running statistics) and
 * owns two arenas of the model's real type: activations and their gradients.  Tensors are named by
 * their offset (in elements) into those buffers, so one tape serves float and double models.
 * Each nn_tape_* op allocates its output in the activation arena, runs its forward (unless the tape
 * is a dry run, which only measures the arena) and appends a record; nn_tape_backward walks the
 * records in reverse, each op ADDING into the gradients of its inputs and parameters. */
#ifndef NN_TAPE_H
#define NN_TAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "nn/geom.h"

typedef enum { NN_F32 = 0, NN_F64 = 1 } nn_dtype;
#define NN_NONE SIZE_MAX            /* "no tensor" */

typedef enum { NN_OP_CONV, NN_OP_MATMUL, NN_OP_BN, NN_OP_RELU, NN_OP_ADD, NN_OP_TANH } nn_op_kind;

typedef struct {
    nn_op_kind kind;
    int rows, in, out;          /* CONV: rows = N samples; MATMUL/BN: rows; elementwise: rows = n */
    size_t x, x2, y;            /* activations: input(s) and output */
    size_t w, b;                /* parameters (gradients at the same offsets), or NN_NONE */
    size_t rmean, rvar;         /* BN running statistics (in stats) */
    size_t mean, rstd;          /* BN batch statistics saved for the backward (activations) */
} nn_tape_op;

typedef struct {
    nn_dtype dtype;
    size_t esize;               /* sizeof(float) or sizeof(double) */
    const nn_geom *geom;
    void *act, *dact;           /* arenas (dact allocated on first use) */
    size_t act_cap, act_used, dact_cap;
    void *param, *grad, *stats; /* borrowed from the model */
    nn_tape_op *ops;
    int nops, ops_cap;
    bool dry;                   /* measure only */
    bool plan;                  /* record the ops without running them (nn_model_plan) */
    bool failed;                /* out of memory while recording: the forward is incomplete */
    bool train;                 /* BN: batch statistics (and running updates) vs running statistics */
    bool update_stats;          /* training forward also moves the running statistics */
    double bn_momentum, bn_eps;
} nn_tape;

/* Start a new forward: forget the records and the arena contents. */
void nn_tape_reset(nn_tape *t, bool dry, bool train);
/* Make sure the activation arena holds at least n elements and the tape nops records (after a dry
 * run: t->act_used and t->nops).  Returns 0, or -1 when out of memory. */
int nn_tape_reserve(nn_tape *t, size_t n, int nops);
/* Make sure the gradient arena matches the activation arena; returns 0 or -1. */
int nn_tape_reserve_grad(nn_tape *t);
void nn_tape_free(nn_tape *t);

/* A fresh tensor of n elements in the activation arena (e.g. the input). */
size_t nn_tape_alloc(nn_tape *t, size_t n);

/* Ops: each returns the offset of its output.  Shapes as in ops.h. */
size_t nn_tape_conv(nn_tape *t, size_t x, int N, int Ci, int Co, size_t w);          /* [N*P][Co] */
size_t nn_tape_matmul(nn_tape *t, size_t x, int rows, int In, int Out, size_t w, size_t b);
size_t nn_tape_bn(nn_tape *t, size_t x, int rows, int C, size_t gamma, size_t beta,
                  size_t rmean, size_t rvar);
size_t nn_tape_relu(nn_tape *t, size_t x, size_t n);
size_t nn_tape_add(nn_tape *t, size_t a, size_t b, size_t n);
size_t nn_tape_tanh(nn_tape *t, size_t x, size_t n);

/* Zero the activation gradients (before seeding the outputs' gradients). */
void nn_tape_zero_grad(nn_tape *t);
/* Walk the tape backward: parameter gradients accumulate into t->grad. */
void nn_tape_backward(nn_tape *t);

#endif
