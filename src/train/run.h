/* run.h — a whole training run: self-play (selfplay.h) feeding the replay buffer (replay.h), SGD
 * at a fixed ratio of samples trained per sample generated (trainer.h), weight refreshes of the
 * self-play network, generations (checkpoints), evaluation matches with Elo, the run state, the
 * live status line, OUTDIR/train.csv and OUTDIR/progress.png.
 *
 * OUTDIR holds: run.state (runstate.h), latest.ckpt (with SGD momenta), gen-NNNN.ckpt (retention:
 * the newest `keep_generations` and every 10th), best.ckpt (the gate), replay/ (chunks),
 * train.csv, elo.csv, progress.png.  A run resumes from latest.ckpt + run.state + replay/; the
 * replay buffer is flushed every ~2 s and at exit, so a kill loses at most those 2 s of games
 * and the steps since the last checkpoint. */
#ifndef TR_RUN_H
#define TR_RUN_H

#include "nn/model.h"
#include "train/selfplay.h"
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

/* tr_run_config.arch_given: which of blocks and channels the command line gave. */
enum { TR_ARCH_BLOCKS = 1, TR_ARCH_CHANNELS = 2 };

/* Self-play beyond this process (the MPI worker ranks: mpi_hub.h), driven by the run loop from its
 * own thread; run.c knows it only through these calls.  The remote games go into the same replay
 * buffer (each sample tagged with its origin rank), the run's weights go out at every refresh
 * with their generation, and holding self-play for training holds the remote self-play too. */
typedef struct tr_remote {
    void *ctx;
    /* Once, before self-play starts: the run's network (weights of generation gen, SGD step
     * steps), the self-play configuration and seed, the rollout mix.  0, or -1 with a message. */
    int (*start)(void *ctx, const nn_model *m, const tr_selfplay_config *sp, double rollout_mix, int gen, long steps,
                 char *err, size_t errlen);
    /* Every loop: the remote games finished since the last call into rb (*games, *samples
     * counted up); progresses the sends.  0, or -1 with a message (a rank failed). */
    int (*poll)(void *ctx, tr_replay *rb, long long *games, long long *samples, char *err, size_t errlen);
    /* The trainer's new weights (generation gen, step steps): sent at once or as soon as the
     * previous send is through (the newest wins).  0, or -1 with a message. */
    int (*publish)(void *ctx, const nn_model *m, int gen, long steps, char *err, size_t errlen);
    /* Hold (1) or release (0) the remote self-play, as tr_selfplay_hold. */
    void (*hold)(void *ctx, int hold);
    /* Positions (moves searched and played) the remote ranks report so far. */
    long long (*moves)(void *ctx);
    /* The per-rank part of the status line (games/s, weights' generation and age in steps),
     * given this process's own figures as rank 0's. */
    void (*status)(void *ctx, char *buf, size_t len, long steps, long long own_games, int own_gen, long own_steps);
    /* At the end: stop the remote self-play and add the games its ranks finished to rb (NULL:
     * drop them).  abrupt: the run was stopped by a signal (the launcher is ending the job):
     * send nothing, wait for nothing.  0, or -1 with a message. */
    int (*finish)(void *ctx, tr_replay *rb, int abrupt, long long *games, long long *samples, char *err, size_t errlen);
} tr_remote;

typedef struct {
    char out[512];
    char pretrain[512];        /* a fresh run first adds the games under this path ("" = none) */
    int pretrain_games;        /* at most this many of them (0 = all) */
    int blocks, channels;
    tr_selfplay_config sp;
    double rollout_mix;        /* self-play leaf values blended with a random rollout (0: none) */
    char init[512];            /* a fresh run starts from these weights ("" = random weights) */
    char recipe[2048];         /* a new run writes this to OUT/run.args (train/recipe.h; "" = none) */
    double lr;
    long lr_warmup;
    double lr_tail;            /* the last lr_tail of the session's budget (--minutes, else --steps) */
    double lr_tail_factor;     /* ... trains at lr × lr_tail_factor (lr_tail 0: constant lr) */
    int batch;
    const struct zzt_backend *sgd_backend; /* SGD there (tests: the emulated GPU, src/cuda/train_backend.h);
                                * NULL: on the GPU when one is usable, else the CPU */
    int sgd_threads_held;      /* OpenMP threads of a CPU SGD step while self-play is held (the
                                * evaluators idle then); at other times OpenMP's own (0: always those) */
    double train_ratio;        /* samples trained per sample generated */
    int hold_batches;          /* self-play is held while training is more than this many batches
                                * behind the ratio: a backlog that lets SGD and self-play run at once
                                * instead of taking turns (src/train/README.md, "The backlog") */
    double value_weight;
    double aux_weight;         /* the captures head's loss weight: > 0 gives a new network the head
                                * (nn/model.h) and trains it; SGD then stays on the CPU */
    int window;                /* replay window (samples) */
    int min_samples;           /* training starts once the window holds this many */
    int refresh_every;         /* steps between self-play weight refreshes */
    int gen_steps;             /* steps per generation (a checkpoint) */
    int eval_every;            /* generations between evaluations (0: never) */
    int eval_games;            /* games per evaluation match */
    int eval_sims;             /* PUCT simulations in evaluation games */
    int eval_uct;              /* the UCT baseline's iterations */
    int keep_generations;
    double minutes;            /* stop after this long (0: no limit) */
    long max_steps;            /* stop at this many SGD steps in total (0: no limit) */
    long long max_games;       /* stop after this many games in this session (0: no limit) */
    int fresh;                 /* start over even when OUTDIR has a run */
    int resume;                /* resume a run found in OUTDIR (else refuse to touch it) */
    int require_run;           /* --resume was asked for: OUTDIR must hold a run */
    int arch_given;            /* TR_ARCH_BLOCKS | TR_ARCH_CHANNELS: asked for; a resumed run must
                                  have them, --init's network grows to them (nn/grow.h) */
    int quiet;                 /* no status line */
    double status_every;       /* seconds between status lines */
    uint64_t seed;
    volatile sig_atomic_t *stop;   /* set (e.g. by a signal handler) to stop cleanly */
    tr_remote *remote;         /* self-play on other ranks (NULL: this process only) */
} tr_run_config;

/* The embedded CPU default: 37 rings, 4 blocks × 32 channels, 64 simulations (runs/default). */
void tr_run_config_default(tr_run_config *c);

typedef struct {
    long steps;                /* total, over all sessions */
    long long games, samples;  /* total */
    long long session_games, session_samples;
    int generation, best_generation;
    double last_policy, last_value;
    double seconds;
    tr_selfplay_stats sp;      /* this session's self-play */
    long long evals;           /* positions the self-play network answered this session ... */
    long long cache_hits;      /* ... of which from its cache of answers (--eval-cache) */
    double last_lr;            /* the learning rate of the session's last SGD step (0: none) */
    long session_steps;        /* SGD steps this session ... */
    long held_steps;           /* ... of which while self-play was held (waiting for training) */
    struct {                   /* where this session's loop spent its wall time, in seconds */
        double sgd;            /* SGD steps, their batches' building included ... */
        double build;          /* ... of which drawing and building the batches on the host */
        double build_beside;   /* batches built on a second thread during backend steps (not in sgd) */
        double refresh;        /* the weights read back and handed to the evaluators (and the ranks) */
        double generation;     /* generation boundaries: checkpoints, retention, evaluations */
        double collect;        /* finished games into the replay buffer, its flushes */
        double wait;           /* asleep: no SGD step was due (self-play behind the ratio) */
        double report;         /* status lines, train.csv, progress.png */
        long refreshes, generations;
    } time;
    int resumed;
} tr_run_result;

/* Whether a session has reached its learning-rate tail, the last c->lr_tail of its budget:
 * elapsed_s seconds into a c->minutes session, or at total step count steps of a session that
 * started at start_steps and stops at c->max_steps (whichever budget is set and reached first).
 * A session with neither budget, or with lr_tail 0, never does. */
bool tr_run_in_lr_tail(const tr_run_config *c, double elapsed_s, long steps, long start_steps);

/* Run until stopped (minutes, max_steps, max_games or *stop).  0, or -1 with a message. */
int tr_run(const tr_run_config *c, tr_run_result *res, char *err, size_t errlen);

#endif
