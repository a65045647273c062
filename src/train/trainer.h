/* trainer.h — SGD on batches drawn from the replay window.
 *
 * A batch is `batch` samples drawn uniformly (with replacement) from the window, each under a
 * random symmetry of the board (nn_batch_build with an rng).  Loss: the value MSE on every sample
 * (value_weight × MSE), the policy cross-entropy only on the full-search samples (playout-cap
 * randomisation: fast searches are too shallow to be policy targets), and with aux_weight the
 * captures head's MSE on the samples of games played to their end.  nn_loss would take the
 * policy on every sample, so the step computes the two parts itself: the batch is ordered with
 * the full samples first, the policy loss runs over that prefix (its mean over the full samples)
 * and the value loss over the whole batch; both gradients go through one backward and one SGD
 * step.
 *
 * Where the step runs: on the CPU (src/nn) by default; tr_trainer_use_backend moves it onto a
 * training backend (src/cuda/train_net.h: the GPU).  The parameters then live there, and `model`
 * is brought up to date by tr_trainer_model (a download after steps) before anyone reads it.
 * On a backend the host would idle during the step and the device during the batch's building,
 * so a second thread builds the next batch while the step runs: the batches are the same ones,
 * in the same order, as on the CPU (one rng, drawn by one thread at a time), each drawn one step
 * earlier, from the window as it stood then.
 *
 * A backend step that fails (a launch failure, an error of the GPU) does not end training: the
 * parameters, momenta and statistics are read back from the backend and the step runs on the CPU,
 * and so do the later ones (a warning on stderr; tr_trainer_fallback says why).  A failed step
 * changed nothing there unless it failed after its forward, which may have moved the running
 * statistics once more.  Only when the backend's state cannot be read back (a fault that took the
 * GPU's context down) does the step fail, with both causes in its message. */
#ifndef TR_TRAINER_H
#define TR_TRAINER_H

#include "cuda/train_net.h"
#include "nn/train.h"
#include "train/replay.h"

typedef struct {
    nn_model *model;          /* owned, float */
    nn_sgd sgd;
    nn_batch batch;
    int batch_size;
    double value_weight;
    double aux_weight;        /* the captures head's loss weight (0: not trained; > 0 needs the
                               * head, and keeps SGD on the CPU: no GPU kernel for its loss yet) */
    uint64_t rng;
    nn_sample *samples;       /* [batch_size] */
    int *order;               /* [batch_size] */
    zzt_net *dev;             /* the step's backend net, or NULL: the CPU */
    bool stale;               /* model is behind dev */
    char fallback[400];       /* why training left its backend for the CPU, or "" */
    double build_seconds;     /* wall time the steps spent drawing and building their batches on
                               * the host (nn_batch_build) or waiting for the builder beside them,
                               * the rest of a step being SGD itself */
    nn_batch next;            /* on a backend: the next step's batch, built during this one */
    int next_nfull;
    bool next_ready;
    double beside_seconds;    /* the builder thread's time on those batches, hidden by the steps */
} tr_trainer;

/* A trainer for model m (taken over: freed by tr_trainer_free, or here when this fails).  aux_weight > 0
 * trains the captures head too (m must have it; nn/model.h), on the samples whose final captures
 * are known.  0, or -1 with a message. */
int tr_trainer_init(tr_trainer *t, nn_model *m, const nn_sgd *sgd, int batch_size, double value_weight,
                    double aux_weight, uint64_t seed, char *err, size_t errlen);
void tr_trainer_free(tr_trainer *t);

/* Train on backend be from now on (the model's parameters, momenta and statistics go there).
 * 0, or -1 with a message (the trainer stays on the CPU). */
int tr_trainer_use_backend(tr_trainer *t, const zzt_backend *be, char *err, size_t errlen);
/* "cpu" or the backend's name. */
const char *tr_trainer_backend(const tr_trainer *t);
/* Why the steps left their backend for the CPU ("SGD on the cuda backend failed at step N: ..."),
 * or NULL when they never did. */
const char *tr_trainer_fallback(const tr_trainer *t);
/* The model with the latest parameters (downloaded from the backend when steps ran there since
 * the last call), or NULL with a message. */
nn_model *tr_trainer_model(tr_trainer *t, char *err, size_t errlen);

/* One SGD step on a batch from r's window (which must not be empty).  out gets the losses
 * (policy over the full samples, value over all, l2) and *nfull the number of full samples.
 * Returns 0 (on the CPU when the backend failed and its state came back), or -1 with a message. */
int tr_trainer_step(tr_trainer *t, const tr_replay *r, nn_loss_parts *out, int *nfull, char *err, size_t errlen);

#endif
