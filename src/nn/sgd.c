/* sgd.c — momentum SGD with weight decay and a warm-up + piecewise-constant schedule (sgd.h). */
#include "nn/sgd.h"
#include "nn/ops.h"
#include <string.h>

void nn_sgd_default(nn_sgd *o)
{
    memset(o, 0, sizeof *o);
    o->lr = 0.02;
    o->momentum = 0.9;
    o->weight_decay = 1e-4;
    o->warmup = 200;
}

int nn_sgd_add_stage(nn_sgd *o, long at, double factor)
{
    if (o->nstages >= NN_LR_MAX_STAGES || (o->nstages && at <= o->at[o->nstages - 1])) return -1;
    o->at[o->nstages] = at;
    o->factor[o->nstages] = factor;
    o->nstages++;
    return 0;
}

double nn_sgd_lr(const nn_sgd *o, long step)
{
    double lr = o->lr;
    for (int k = 0; k < o->nstages; k++)
        if (step >= o->at[k]) lr = o->lr * o->factor[k];
    if (o->warmup > 0 && step < o->warmup) lr *= (double)(step + 1) / (double)o->warmup;
    return lr;
}

#define SGD_LOOP(T)                                                                               \
    do {                                                                                          \
        T *w = m->param, *g = m->grad, *v = m->mom;                                               \
        T lr = (T)lr_d, mu = (T)o->momentum, wd = (T)o->weight_decay;                             \
        size_t nd = m->ndecay, n = m->nparams;                                                    \
        NN_OMP(parallel for schedule(static) if (n > NN_PAR_ELEMS))                              \
        for (size_t i = 0; i < n; i++) {                                                          \
            T gi = g[i] + (i < nd ? wd * w[i] : 0);                                               \
            v[i] = mu * v[i] + gi;                                                                \
            w[i] -= lr * v[i];                                                                    \
        }                                                                                         \
    } while (0)

void nn_sgd_step(nn_sgd *o, nn_model *m)
{
    double lr_d = nn_sgd_lr(o, o->step);
    if (m->dtype == NN_F64) SGD_LOOP(double);
    else SGD_LOOP(float);
    o->step++;
}

double nn_sgd_l2(const nn_sgd *o, const nn_model *m)
{
    double s = 0;
    for (size_t i = 0; i < m->ndecay; i++) {
        double w = nn_buf_get(m, m->param, i);
        s += w * w;
    }
    return 0.5 * o->weight_decay * s;
}
