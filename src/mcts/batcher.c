/* batcher.c — the serving side of leaf evaluation (see batcher.h). */
#include "batcher.h"
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Everything but the queue. */
static int batcher_init(mcts_batcher *b, mcts_evaluator *ev, int max_batch) {
    memset(b, 0, sizeof *b);
    if (max_batch < 1) max_batch = 1;
    b->ev = ev;
    b->max_batch = max_batch;
    b->popped = malloc((size_t)max_batch * sizeof *b->popped);
    b->items = malloc((size_t)max_batch * sizeof *b->items);
    atomic_init(&b->stop, 0);
    atomic_init(&b->failed, 0);
    return b->popped && b->items ? 0 : -1;
}

int mcts_batcher_init(mcts_batcher *b, mcts_evaluator *ev, int max_batch, size_t queue_cap) {
    int rc = batcher_init(b, ev, max_batch);
    b->owns_queue = 1;
    b->queue = mcts_queue_new(queue_cap < (size_t)b->max_batch ? (size_t)b->max_batch : queue_cap);
    if (rc != 0 || !b->queue) { mcts_batcher_free(b); return -1; }
    return 0;
}

int mcts_batcher_init_shared(mcts_batcher *b, mcts_evaluator *ev, int max_batch, mcts_batcher *first) {
    int rc = batcher_init(b, ev, max_batch);
    b->queue = first->queue;
    if (rc != 0) { mcts_batcher_free(b); return -1; }
    return 0;
}

void mcts_batcher_free(mcts_batcher *b) {
    if (b->owns_queue) mcts_queue_free(b->queue);
    free(b->popped);
    free(b->items);
    b->queue = NULL;
    b->popped = NULL;
    b->items = NULL;
}

bool mcts_batcher_submit(mcts_batcher *b, mcts_request *r) {
    r->item.pos = &r->pos;
    atomic_store_explicit(&r->state, MCTS_REQ_QUEUED, memory_order_relaxed);
    return mcts_queue_push(b->queue, r);     /* the push publishes r's contents (release) */
}

int mcts_batcher_serve(mcts_batcher *b) {
    int n = mcts_queue_pop_many(b->queue, (void **)b->popped, b->max_batch);
    if (n == 0) return 0;
    for (int i = 0; i < n; i++) b->items[i] = b->popped[i]->item;
    char err[sizeof b->err];
    int rc = mcts_evaluate(b->ev, b->items, n, err, sizeof err);
    if (rc != 0 && !atomic_load_explicit(&b->failed, memory_order_relaxed)) {
        memcpy(b->err, err, sizeof err);
        atomic_store_explicit(&b->failed, 1, memory_order_release);
    }
    for (int i = 0; i < n; i++) {
        b->popped[i]->item.value = b->items[i].value;
        atomic_store_explicit(&b->popped[i]->state, rc == 0 ? MCTS_REQ_DONE : MCTS_REQ_FAILED,
                              memory_order_release);
    }
    b->evals += (uint64_t)n;
    b->batches++;
    return rc == 0 ? n : -1;
}

void mcts_backoff(int *idle) {
    int n = ++*idle;
    if (n <= 16) return;
    if (n <= 128) { sched_yield(); return; }
    struct timespec ts = { 0, 20000 };
    nanosleep(&ts, NULL);
}

void mcts_batcher_run(mcts_batcher *b) {
    int idle = 0;
    while (!atomic_load_explicit(&b->stop, memory_order_acquire)) {
        if (mcts_batcher_serve(b) != 0) idle = 0;
        else mcts_backoff(&idle);
    }
}
