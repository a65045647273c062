/* train.c — batch loss with gradients, and a training step (see train.h). */
#include "nn/train.h"
#include "nn/util.h"

int nn_loss(nn_model *m, const nn_batch *b, double value_weight, double aux_weight, bool grad,
            nn_loss_parts *out, char *err, size_t errlen)
{
    if (m->batch != b->n) {
        nn_set_err(err, errlen, "the last forward had %d samples, the batch %d", m->batch, b->n);
        return -1;
    }
    if (b->geom.kind != m->cfg.board) {
        nn_set_err(err, errlen, "the batch is for another board");
        return -1;
    }
    void *dl = NULL, *dv = NULL;
    if (grad && nn_model_begin_backward(m, &dl, &dv, err, errlen)) return -1;
    int P = m->geom.ncells;
    nn_loss_parts p = { 0 };
    if (m->dtype == NN_F64) {
        p.policy = nn_policy_loss_d(nn_model_logits(m), dl, &b->targets, P, 1.0);
        p.value = nn_value_loss_d(nn_model_values(m), dv, b->z, b->n, value_weight);
    } else {
        p.policy = nn_policy_loss_f(nn_model_logits(m), dl, &b->targets, P, 1.0);
        p.value = nn_value_loss_f(nn_model_values(m), dv, b->z, b->n, value_weight);
    }
    if (aux_weight > 0 && m->cfg.aux_outputs) {
        void *da = grad ? nn_model_aux_grad(m) : NULL;
        p.aux = m->dtype == NN_F64 ? nn_aux_loss_d(nn_model_aux(m), da, b->aux, b->aux_known, b->n, aux_weight)
                                   : nn_aux_loss_f(nn_model_aux(m), da, b->aux, b->aux_known, b->n, aux_weight);
    }
    p.total = p.policy + value_weight * p.value + aux_weight * p.aux;
    if (grad && nn_model_backward(m, err, errlen)) return -1;
    if (out) *out = p;
    return 0;
}

int nn_train_step(nn_model *m, nn_sgd *o, const nn_batch *b, double value_weight, double aux_weight,
                  nn_loss_parts *out, char *err, size_t errlen)
{
    if (nn_model_forward(m, b->x, b->n, true, err, errlen)) return -1;
    nn_model_zero_grad(m);
    nn_loss_parts p;
    if (nn_loss(m, b, value_weight, aux_weight, true, &p, err, errlen)) return -1;
    p.l2 = nn_sgd_l2(o, m);
    p.total += p.l2;
    nn_sgd_step(o, m);
    if (out) *out = p;
    return 0;
}
