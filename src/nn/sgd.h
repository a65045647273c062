/* sgd.h — stochastic gradient descent with momentum and L2 weight decay, and its learning-rate
 * schedule.  One step over the model's flat buffers:
 *     g' = grad + wd·param   (conv and dense weights only: [0, ndecay))
 *     mom = momentum·mom + g'
 *     param -= lr(step)·mom
 * The weight decay is the gradient of the loss term wd/2·|w|² (nn_sgd_l2 reports that term). */
#ifndef NN_SGD_H
#define NN_SGD_H

#include "nn/model.h"

enum { NN_LR_MAX_STAGES = 8 };

typedef struct {
    double lr;                  /* base learning rate */
    double momentum;            /* 0.9 */
    double weight_decay;        /* 1e-4 */
    long warmup;                /* steps of linear ramp from lr/warmup to lr (0: none) */
    int nstages;                /* piecewise-constant decay: lr · factor[k] once step >= at[k] */
    long at[NN_LR_MAX_STAGES];  /* (increasing) */
    double factor[NN_LR_MAX_STAGES];
    long step;                  /* steps taken (the schedule's clock; saved in checkpoints) */
} nn_sgd;

/* lr 0.02, momentum 0.9, weight decay 1e-4, 200 warm-up steps, no stages. */
void nn_sgd_default(nn_sgd *o);
/* Add a stage (lr × factor from step `at` on); returns 0, or -1 when full or out of order. */
int nn_sgd_add_stage(nn_sgd *o, long at, double factor);
/* The learning rate at a step. */
double nn_sgd_lr(const nn_sgd *o, long step);
/* One update of m's parameters from m->grad (momentum in m->mom); advances o->step. */
void nn_sgd_step(nn_sgd *o, nn_model *m);
/* wd/2 · sum of the squared decayed weights. */
double nn_sgd_l2(const nn_sgd *o, const nn_model *m);

#endif
