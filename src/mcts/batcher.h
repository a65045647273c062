/* batcher.h — leaf evaluation requests and the batcher that serves them.
 *
 * A searching thread fills a request (position, legal moves, buffers for the priors), marks it
 * QUEUED and pushes it onto the batcher's lock-free queue.  The serving thread pops whatever is
 * queued (up to max_batch: it never waits for a full batch, so a searcher waiting on its own
 * leaves can never deadlock with it), calls the evaluator once for the whole batch, writes the
 * results into each request and publishes them with a release store of DONE (or FAILED).  The
 * owner polls its requests with an acquire load and then reads the priors and value.
 *
 * This is the piece a self-play scheduler reuses: many trees' workers submit to one batcher.
 * Several serving threads may share one queue (mcts_batcher_init_shared), each batcher with its
 * own evaluator and scratch: the queue hands each request to exactly one of them. */
#ifndef MCTS_BATCHER_H
#define MCTS_BATCHER_H

#include "evaluator.h"
#include "queue.h"
#include <stdatomic.h>
#include <stdint.h>

enum { MCTS_REQ_FREE = 0, MCTS_REQ_QUEUED = 1, MCTS_REQ_DONE = 2, MCTS_REQ_FAILED = 3 };

typedef struct mcts_request {
    mcts_eval_item item;     /* item.pos = &pos; moves / priors point at the owner's buffers */
    zz_pos pos;
    _Atomic int state;       /* MCTS_REQ_*: written QUEUED by the owner, DONE/FAILED by the server */
    void *owner;             /* free for the owner (e.g. its tree) */
    uint32_t node;           /* free for the owner (e.g. the node waiting for this result) */
} mcts_request;

typedef struct mcts_batcher {
    mcts_queue *queue;
    int owns_queue;          /* 0: another batcher's queue, served side by side (init_shared) */
    mcts_evaluator *ev;
    int max_batch;
    mcts_request **popped;   /* serving thread's scratch */
    mcts_eval_item *items;
    _Atomic int stop;        /* mcts_batcher_run returns once set */
    _Atomic int failed;      /* an evaluation failed; err holds why (written before failed) */
    char err[256];
    uint64_t evals, batches; /* counted by the serving thread */
} mcts_batcher;

/* Returns 0, or -1 on out-of-memory.  queue_cap must exceed the requests ever in flight. */
int mcts_batcher_init(mcts_batcher *b, mcts_evaluator *ev, int max_batch, size_t queue_cap);
/* A second server of first's queue with an evaluator of its own (ev: e.g. a clone of first's), so
 * that two threads evaluate side by side; submit to either.  Free it before first.  0 or -1. */
int mcts_batcher_init_shared(mcts_batcher *b, mcts_evaluator *ev, int max_batch, mcts_batcher *first);
void mcts_batcher_free(mcts_batcher *b);
/* Queue r (item filled).  Returns false when the queue is full (r is not queued). */
bool mcts_batcher_submit(mcts_batcher *b, mcts_request *r);
/* Evaluate whatever is queued, up to max_batch; returns the number served (0 when nothing was
 * queued), or -1 when the evaluator failed (those requests are FAILED). */
int mcts_batcher_serve(mcts_batcher *b);
/* Serve until stop is set (spins briefly, then sleeps 20 µs at a time while idle). */
void mcts_batcher_run(mcts_batcher *b);
/* Wait a little while nothing is ready: spin, then yield, then sleep 20 µs at a time (so that
 * idle threads leave the cores to the evaluator).  Reset *idle to 0 after progress. */
void mcts_backoff(int *idle);
static inline int mcts_request_state(mcts_request *r) {
    return atomic_load_explicit(&r->state, memory_order_acquire);
}

#endif
