/* train_net.h — the whole network on a training backend (train_backend.h: the GPU, or its CPU
 * emulation): parameters, gradients, momentum and running statistics in the backend's memory; a
 * forward that executes the op records of src/nn's own tape (nn_model_plan), so both backends run
 * the same graph from the same code; the losses; the backward in reverse record order; SGD.
 * Same contracts as src/nn/train.h: zzt_net_train_step is nn_train_step on the backend.
 *
 *   nn_model (host) --zzt_net_create / zzt_net_upload--> backend --train steps-->
 *   --zzt_net_download--> nn_model --nn_checkpoint_save--> checkpoint (either backend loads it)
 *
 * Memory: everything a step needs at a batch size is allocated at the first forward at that size
 * (an allocation, and a free above all, waits on the whole GPU, the self-play network's work
 * included); later steps at that size allocate nothing, unless a batch has more policy moves than
 * the room kept for them (train_net.c moves_capacity).
 *
 * ZZT_PROFILE=1 in the environment: every op is waited for and timed by kind, forward and
 * backward, and zzt_net_free prints the table (ms per step) on stderr. */
#ifndef ZZ_CUDA_TRAIN_NET_H
#define ZZ_CUDA_TRAIN_NET_H

#include <stdbool.h>
#include "cuda/train_ops.h"
#include "nn/train.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zzt_net zzt_net;

/* A net on backend be with m's architecture, parameters, momentum and statistics (any dtype; held
 * as float).  NULL with a message. */
zzt_net *zzt_net_create(const zzt_backend *be, const nn_model *m, char *err, size_t n);
void zzt_net_free(zzt_net *t);
const zzt_backend *zzt_net_backend(const zzt_net *t);
/* Copy parameters, momentum and statistics from m (same architecture) / to m.  0 or -1. */
int zzt_net_upload(zzt_net *t, const nn_model *m, char *err, size_t n);
int zzt_net_download(const zzt_net *t, nn_model *m, char *err, size_t n);
/* The parameter gradients of the last step (float[nparams], host).  0 or -1. */
int zzt_net_gradients(const zzt_net *t, float *grad, char *err, size_t n);
/* The activations of the last forward (host copy): zzt_net_activation_count floats (0 before any
 * forward), at the offsets of the ops of nn_model_plan, which are those of nn_model_forward's tape
 * (so a test can compare them with a CPU model's, e.g. the sign of every ReLU input).  0 or -1. */
size_t zzt_net_activation_count(const zzt_net *t);
int zzt_net_activations(const zzt_net *t, float *act, char *err, size_t n);

/* Forward x[N][P][planes] (host): train = batch statistics (running statistics move), else
 * running statistics.  logits[N][P][heads] and values[N] (host) when not NULL.  0 or -1. */
int zzt_net_forward(zzt_net *t, const float *x, int N, bool train, float *logits, float *values,
                    char *err, size_t n);
/* One training step on b, as nn_train_step: forward, losses, backward, L2 term, SGD (o->step
 * advances).  The policy loss covers the first npolicy samples (its mean over them; -1: all, as
 * nn_train_step; the trainer puts its full-search samples first), the value loss all of them.
 * 0 or -1 with a message. */
int zzt_net_train_step(zzt_net *t, nn_sgd *o, const nn_batch *b, int npolicy, double value_weight,
                       nn_loss_parts *out, char *err, size_t n);

#ifdef __cplusplus
}
#endif
#endif
