/* runstate.h — the run-state file OUTDIR/run.state: what a killed run needs to resume exactly
 * (step counts, generations, the best network's rating), written atomically as versioned text:
 *     zertz-train-state 1
 *     key value          (one per line; unknown keys are ignored; steps and generation are
 *                         required; a known key's value must be a valid number, or the file is
 *                         refused as damaged; other missing keys keep their defaults) */
#ifndef TR_RUNSTATE_H
#define TR_RUNSTATE_H

#include <stddef.h>

enum { TR_RUNSTATE_VERSION = 1 };

typedef struct {
    long steps;                 /* SGD steps taken */
    long long trained;          /* samples trained on (steps × batch) */
    long long games;            /* self-play games finished */
    long long samples;          /* samples generated (= the replay buffer's total) */
    int generation;             /* checkpoints gen-NNNN.ckpt written (0 = the initial network) */
    int best_generation;        /* the network self-play evaluations are gated against */
    double best_rating;         /* its Elo rating (generation 0 = 0) */
    double seconds;             /* training time so far */
    int board, blocks, channels;
} tr_runstate;

/* Write path atomically.  0, or -1 with a message. */
int tr_runstate_save(const char *path, const tr_runstate *s, char *err, size_t errlen);
/* Read path.  0, or -1 with a message (missing, damaged, or a newer version). */
int tr_runstate_load(const char *path, tr_runstate *s, char *err, size_t errlen);

#endif
