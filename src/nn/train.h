/* train.h — the loss of a batch and one training step: forward (batch statistics), policy
 * cross-entropy + value_weight · value MSE (+ aux_weight · the captures head's MSE), backward
 * through the tape, SGD. */
#ifndef NN_TRAIN_H
#define NN_TRAIN_H

#include "nn/batch.h"
#include "nn/sgd.h"

typedef struct {
    double policy;      /* mean cross-entropy over samples */
    double value;       /* mean squared error */
    double aux;         /* the captures head's masked MSE (0 without the head or a weight) */
    double l2;          /* wd/2·|w|² (filled by nn_train_step) */
    double total;       /* policy + value_weight·value + aux_weight·aux (+ l2 in nn_train_step) */
} nn_loss_parts;

/* Loss of m's last forward (which must have been on b->x, b->n samples) against b's targets;
 * with aux_weight > 0 and a captures head, its loss too (b->aux where b->aux_known).
 * When grad: zeroes the activation gradients, seeds those of the outputs and runs the backward,
 * ADDING into m->grad (zero it first with nn_model_zero_grad).  Returns 0, or -1 with a message. */
int nn_loss(nn_model *m, const nn_batch *b, double value_weight, double aux_weight, bool grad,
            nn_loss_parts *out, char *err, size_t errlen);

/* One step: training forward on b, loss, backward, SGD.  Returns 0, or -1 with a message. */
int nn_train_step(nn_model *m, nn_sgd *o, const nn_batch *b, double value_weight, double aux_weight,
                  nn_loss_parts *out, char *err, size_t errlen);

#endif
