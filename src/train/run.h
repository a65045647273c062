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

#include "train/selfplay.h"
#include <signal.h>
#include <stdio.h>

typedef struct {
    char out[512];
    char pretrain[512];        /* a fresh run first adds the games under this path ("" = none) */
    int pretrain_games;        /* at most this many of them (0 = all) */
    int blocks, channels;
    tr_selfplay_config sp;
    double rollout_mix;        /* self-play leaf values blended with a random rollout (0: none) */
    char init[512];            /* a fresh run starts from these weights ("" = random weights) */
    double lr;
    long lr_warmup;
    int batch;
    double train_ratio;        /* samples trained per sample generated */
    double value_weight;
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
    int arch_given;            /* blocks/channels were asked for: a resumed run must have them */
    int quiet;                 /* no status line */
    double status_every;       /* seconds between status lines */
    uint64_t seed;
    volatile sig_atomic_t *stop;   /* set (e.g. by a signal handler) to stop cleanly */
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
    long long evals;           /* network evaluations this session */
    int resumed;
} tr_run_result;

/* Run until stopped (minutes, max_steps, max_games or *stop).  0, or -1 with a message. */
int tr_run(const tr_run_config *c, tr_run_result *res, char *err, size_t errlen);

#endif
