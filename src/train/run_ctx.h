/* run_ctx.h — what the phases of a training run share (private to src/train: run.c runs the
 * phases, run_open.c is the open phase and the run's files).  See run.c's header for the story. */
#ifndef TRAIN_RUN_CTX_H
#define TRAIN_RUN_CTX_H

#include "train/live_eval.h"
#include "train/plot.h"
#include "train/run.h"
#include "train/runstate.h"
#include "train/trainer.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The figures behind the status line and train.csv (the loop's own). */
typedef struct {
    bool tty;                  /* stdout is a terminal: a live status line; else a line every 30 s at most */
    double status_every;       /* seconds between status lines */
    double last_flush, last_status, last_csv, last_plot;   /* when each was last done (mcts_now_s) */
    double t_first_step;       /* this session's first SGD step (0: none yet): the step rate counts from it */
    long long evals_prev, moves_prev, calls_prev;          /* the counters at the last status line */
    unsigned long long cache_lookups_prev, cache_hits_prev;  /* the cache's, at the last status line */
    long long csv_moves, csv_evals, csv_calls;             /* ... and at the last train.csv row */
    double pl_sum, vl_sum;     /* the losses of the loss_n steps since the last train.csv row */
    int loss_n;
    double pl_ema, vl_ema, al_ema; /* the status line's smoothed losses (NAN before the first step;
                                  * al: the captures head's, with --aux-weight) */
} run_meter;

/* One session of a run: what its phases share.  Each field: the phase that sets it up (and
 * close, which frees it), and what holds of it. */
typedef struct {
    const tr_run_config *c;    /* the configuration (read only) */
    tr_run_result *res;        /* the caller's result: open sets resumed, the loop the session's counts
                                * and losses, close the rest */
    tr_runstate st;            /* what run.state says: open loads or creates it; the loop counts games,
                                * samples, steps and samples trained; a boundary moves the generation
                                * (and the best); st.steps is latest.ckpt's whenever run.state is written */
    tr_history hist;           /* the plot: open rebuilds it from the logs; the loop (losses) and the
                                * boundaries (ratings, anchors) add to it */
    FILE *csv, *elo;           /* train.csv and elo.csv, open for appending from open to close */
    nn_model *m;               /* open's network, until start hands it to the trainer (NULL from then on) */
    tr_replay rb;              /* the replay buffer, open while rb_open (start to close) */
    bool rb_open;
    tr_trainer tr;             /* SGD (start); tr.model is set once it is initialised */
    mcts_evaluator *ev;        /* the live network self-play evaluates with (start) */
    mcts_evaluator *search_ev; /* ev blended with random rollouts (--rollout-mix), else NULL (start) */
    tr_selfplay *sp;           /* this process's self-play (start) */
    tr_remote *rem;            /* self-play on other ranks (c->remote, maybe NULL) ... */
    bool rem_started;          /* ... started by start: close must finish it */
    bool remove_after;         /* start failed half-way through making a fresh run: close removes it */
    double t0, sec0;           /* the session's start (mcts_now_s; reset when the loop starts) and the
                                * run's seconds before this session */
    long steps0;               /* the run's steps when this session's loop started */
    long pub_steps;            /* the step of the weights self-play searches with */
    long rem_pub_steps;        /* ... and of those last sent to the other ranks */
    bool refresh_pending;      /* new weights wait for the live evaluator to take them */
    bool ready;                /* the window holds min_samples: training may run */
    bool held;                 /* self-play (here and on the ranks) is held: training is behind the ratio */
    int omp_base;              /* the process's OpenMP threads (the loop reads them at its start) */
    bool in_tail;              /* the session's learning-rate tail has begun */
    run_meter meter;
} run_ctx;

/* ---- the run's files (run_open.c) --------------------------------------------------------------- */

bool tr_run_file_exists(const char *p);
/* buf = dir/name (each cut to what the buffer allows). */
void tr_run_path(char *buf, size_t len, const char *dir, const char *name);
/* buf = dir/gen-NNNN.ckpt. */
void tr_run_gen_path(char *buf, size_t len, const char *dir, int gen);
/* Remove what a run keeps in dir (and nothing else). */
void tr_run_remove(const char *dir);
/* Write run.state alone (its steps must be latest.ckpt's).  0, or -1 with a message. */
int tr_run_save_runstate(run_ctx *x, char *err, size_t errlen);
/* latest.ckpt (m, with its momenta, at st.steps), then run.state.  0, or -1 with a message. */
int tr_run_save_state(run_ctx *x, nn_model *m, char *err, size_t errlen);

/* Open: every option and file the run will need checked before anything is written; a new run
 * (random weights or --init: gen-0000.ckpt, best.ckpt, latest.ckpt, run.state) or the resumed one
 * (its logs trimmed to its checkpoint); the logs opened.  0; -1 with a message, nothing held. */
int tr_run_open(run_ctx *x, char *err, size_t errlen);

#endif
