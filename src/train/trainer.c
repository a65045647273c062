/* trainer.c — SGD steps on replay batches, policy loss on full searches only (trainer.h); on a
 * backend the next batch is built on a second thread during the step; a backend that fails
 * mid-run hands its parameters back and the CPU takes over. */
#include "train/trainer.h"
#include "mcts/clock.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tr_trainer_init(tr_trainer *t, nn_model *m, const nn_sgd *sgd, int batch_size, double value_weight,
                    double aux_weight, uint64_t seed, char *err, size_t errlen) {
    memset(t, 0, sizeof *t);
    if (aux_weight > 0 && !m->cfg.aux_outputs) {
        snprintf(err, errlen, "a captures-head weight of %g for a network without the head", aux_weight);
        nn_model_free(m);                        /* taken over, as on the other failures */
        return -1;
    }
    t->model = m;
    t->sgd = *sgd;
    t->batch_size = batch_size;
    t->value_weight = value_weight;
    t->aux_weight = aux_weight;
    t->rng = seed ? seed : 1;
    nn_batch_init(&t->batch);
    nn_batch_init(&t->next);
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
    nn_batch_free(&t->next);
    nn_model_free(t->model);
    free(t->samples);
    free(t->order);
    memset(t, 0, sizeof *t);
}

int tr_trainer_use_backend(tr_trainer *t, const zzt_backend *be, char *err, size_t errlen) {
    if (t->aux_weight > 0) {
        snprintf(err, errlen, "the captures head's loss (--aux-weight) has no %s kernel yet: it trains on the CPU", be->name);
        return -1;
    }
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
        char why[320];
        if (zzt_net_download(t->dev, t->model, why, sizeof why) != 0) {
            snprintf(err, errlen, "reading the weights back from the %s backend: %s", zzt_net_backend(t->dev)->name, why);
            return NULL;
        }
        t->stale = false;
    }
    return t->model;
}

const char *tr_trainer_fallback(const tr_trainer *t) { return t->fallback[0] ? t->fallback : NULL; }

/* The backend's step failed (why): its parameters, momenta and statistics back into the model and
 * the CPU from now on (a warning on stderr), 0; or, when they cannot be read back, -1 with a
 * message naming both failures (the trainer stays as it is: the caller stops). */
static int leave_backend(tr_trainer *t, const char *why, char *err, size_t errlen) {
    char derr[320];
    const char *be = zzt_net_backend(t->dev)->name;
    if (zzt_net_download(t->dev, t->model, derr, sizeof derr) != 0) {
        snprintf(err, errlen, "SGD on the %s backend failed (%.300s), and its weights could not be read back from it (%.300s)",
                 be, why, derr);
        return -1;
    }
    snprintf(t->fallback, sizeof t->fallback, "SGD on the %s backend failed at step %ld: %.300s", be, t->sgd.step, why);
    fprintf(stderr, "zertz: warning: %s; training on the CPU from now on\n", t->fallback);
    zzt_net_free(t->dev);
    t->dev = NULL;
    t->stale = false;
    return 0;
}

/* The step on the CPU (src/nn) on the batch built, nf full samples first. */
static int cpu_step(tr_trainer *t, int nf, nn_loss_parts *out, char *err, size_t errlen) {
    nn_model *m = t->model;
    int n = t->batch_size;
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
    if (t->aux_weight > 0)
        p.aux = nn_aux_loss_f(nn_model_aux(m), nn_model_aux_grad(m), t->batch.aux, t->batch.aux_known, n, t->aux_weight);
    if (nn_model_backward(m, err, errlen) != 0) return -1;
    p.l2 = nn_sgd_l2(&t->sgd, m);
    p.total = p.policy + t->value_weight * p.value + t->aux_weight * p.aux + p.l2;
    nn_sgd_step(&t->sgd, m);
    if (out) *out = p;
    return 0;
}

/* Draw a batch from r's window into b, the full samples first (*nf of them), each under a random
 * symmetry: t->rng, t->samples and t->order are the drawer's.  0, or -1 with a message. */
static int draw_batch(tr_trainer *t, const tr_replay *r, nn_batch *b, int *nf, char *err, size_t errlen) {
    int n = t->batch_size, nfull = 0, nv = n;
    for (int i = 0; i < n; i++) {
        int k = (int)zz_rand_below(&t->rng, (uint32_t)r->count);
        if (tr_replay_at(r, k)->full) {
            t->order[nfull++] = k;
        } else {
            t->order[--nv] = k;
        }
    }
    for (int i = 0; i < n; i++) t->samples[i] = tr_sample_for_batch(tr_replay_at(r, t->order[i]));
    *nf = nfull;
    return nn_batch_build(b, &t->model->geom, t->samples, n, NULL, &t->rng, err, errlen);
}

/* The batch built beside a backend step: the thread's argument and its outcome. */
typedef struct {
    tr_trainer *t;
    const tr_replay *r;
    int rc;
    double seconds;
    char err[320];
} next_builder;

static void *build_next(void *arg) {
    next_builder *nb = arg;
    double t0 = mcts_now_s();
    nb->rc = draw_batch(nb->t, nb->r, &nb->t->next, &nb->t->next_nfull, nb->err, sizeof nb->err);
    nb->seconds = mcts_now_s() - t0;
    return NULL;
}

/* The step on the backend, the next batch built on a second thread meanwhile (the window does not
 * change during a step: the caller adds games between steps).  0; 1 when the backend failed and
 * the trainer has moved to the CPU (the step is still to run there); -1 with a message. */
static int backend_step(tr_trainer *t, const tr_replay *r, int nf, nn_loss_parts *out, char *err, size_t errlen) {
    next_builder nb = { .t = t, .r = r };
    pthread_t th;
    bool beside = pthread_create(&th, NULL, build_next, &nb) == 0;
    char why[320];
    t->stale = true;
    int rc = zzt_net_train_step(t->dev, &t->sgd, &t->batch, nf, t->value_weight, out, why, sizeof why);
    if (beside) {
        double t0 = mcts_now_s();
        pthread_join(th, NULL);
        t->build_seconds += mcts_now_s() - t0;          /* the step waited for its builder */
        t->beside_seconds += nb.seconds;
        if (nb.rc != 0) {
            snprintf(err, errlen, "building the next batch: %s", nb.err);
            return -1;
        }
        t->next_ready = true;
    }
    if (rc == 0) return 0;
    return leave_backend(t, why, err, errlen) != 0 ? -1 : 1;
}

int tr_trainer_step(tr_trainer *t, const tr_replay *r, nn_loss_parts *out, int *nfull, char *err, size_t errlen) {
    if (r->count < 1) { snprintf(err, errlen, "the replay buffer is empty"); return -1; }
    double t0 = mcts_now_s();
    int nf;
    if (t->next_ready) {                         /* built beside the last step */
        nn_batch b = t->batch;
        t->batch = t->next;
        t->next = b;
        nf = t->next_nfull;
        t->next_ready = false;
    } else if (draw_batch(t, r, &t->batch, &nf, err, errlen) != 0) {
        return -1;
    }
    t->build_seconds += mcts_now_s() - t0;
    if (nfull) *nfull = nf;
    if (t->dev) {
        int rc = backend_step(t, r, nf, out, err, errlen);
        if (rc <= 0) return rc;
    }
    return cpu_step(t, nf, out, err, errlen);
}
