/* trainer.c — SGD steps on replay batches, policy loss on full searches only (trainer.h). */
#include "train/trainer.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tr_trainer_init(tr_trainer *t, nn_model *m, const nn_sgd *sgd, int batch_size, double value_weight,
                    uint64_t seed, char *err, size_t errlen) {
    memset(t, 0, sizeof *t);
    t->model = m;
    t->sgd = *sgd;
    t->batch_size = batch_size;
    t->value_weight = value_weight;
    t->rng = seed ? seed : 1;
    nn_batch_init(&t->batch);
    t->samples = calloc((size_t)batch_size, sizeof *t->samples);
    t->order = calloc((size_t)batch_size, sizeof *t->order);
    if (batch_size < 1 || !t->samples || !t->order) {
        snprintf(err, errlen, batch_size < 1 ? "batch size must be positive" : "out of memory");
        tr_trainer_free(t);
        return -1;
    }
    return 0;
}

void tr_trainer_free(tr_trainer *t) {
    zzt_net_free(t->dev);
    nn_batch_free(&t->batch);
    nn_model_free(t->model);
    free(t->samples);
    free(t->order);
    memset(t, 0, sizeof *t);
}

int tr_trainer_use_backend(tr_trainer *t, const zzt_backend *be, char *err, size_t errlen) {
    nn_model *m = tr_trainer_model(t, err, errlen);
    if (!m) return -1;
    zzt_net *d = zzt_net_create(be, m, err, errlen);
    if (!d) return -1;
    zzt_net_free(t->dev);
    t->dev = d;
    t->stale = false;
    return 0;
}

const char *tr_trainer_backend(const tr_trainer *t) {
    return t->dev ? zzt_net_backend(t->dev)->name : "cpu";
}

nn_model *tr_trainer_model(tr_trainer *t, char *err, size_t errlen) {
    if (t->dev && t->stale) {
        if (zzt_net_download(t->dev, t->model, err, errlen) != 0) return NULL;
        t->stale = false;
    }
    return t->model;
}

int tr_trainer_step(tr_trainer *t, const tr_replay *r, nn_loss_parts *out, int *nfull, char *err, size_t errlen) {
    if (r->count < 1) { snprintf(err, errlen, "the replay buffer is empty"); return -1; }
    int n = t->batch_size, nf = 0, nv = n;
    /* draw, then put the full samples first */
    for (int i = 0; i < n; i++) {
        int k = (int)zz_rand_below(&t->rng, (uint32_t)r->count);
        if (tr_replay_at(r, k)->full) {
            t->order[nf++] = k;
        } else {
            t->order[--nv] = k;
        }
    }
    for (int i = 0; i < n; i++) {
        const tr_sample *s = tr_replay_at(r, t->order[i]);
        t->samples[i].pos = s->pos;
        t->samples[i].visits = s->visits;
        t->samples[i].nvisits = s->nvisits;
        t->samples[i].z = s->z;
    }
    nn_model *m = t->model;
    if (nn_batch_build(&t->batch, &m->geom, t->samples, n, NULL, &t->rng, err, errlen) != 0) return -1;
    if (nfull) *nfull = nf;
    if (t->dev) {                                /* on the backend: same losses, same step */
        t->stale = true;
        return zzt_net_train_step(t->dev, &t->sgd, &t->batch, nf, t->value_weight, out, err, errlen);
    }
    if (nn_model_forward(m, t->batch.x, n, true, err, errlen) != 0) return -1;
    nn_model_zero_grad(m);
    void *dl = NULL, *dv = NULL;
    if (nn_model_begin_backward(m, &dl, &dv, err, errlen) != 0) return -1;
    nn_loss_parts p = { 0 };
    if (nf > 0) {
        nn_policy_targets pt = t->batch.targets;
        pt.n = nf;                           /* the full samples: a prefix of the batch */
        p.policy = nn_policy_loss_f(nn_model_logits(m), dl, &pt, m->geom.ncells, 1.0);
    }
    p.value = nn_value_loss_f(nn_model_values(m), dv, t->batch.z, n, t->value_weight);
    if (nn_model_backward(m, err, errlen) != 0) return -1;
    p.l2 = nn_sgd_l2(&t->sgd, m);
    p.total = p.policy + t->value_weight * p.value + p.l2;
    nn_sgd_step(&t->sgd, m);
    if (out) *out = p;
    return 0;
}
