/* queue.c — Vyukov's bounded MPMC queue with C11 atomics (see queue.h). */
#include "queue.h"
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct {
    _Atomic size_t seq;     /* == pos: free for the producer of pos; == pos+1: holds its item */
    void *item;
} cell;

struct mcts_queue {
    cell *cells;
    size_t mask;
    _Alignas(64) _Atomic size_t tail;   /* next position to push */
    _Alignas(64) _Atomic size_t head;   /* next position to pop */
    char pad[64 - sizeof(size_t)];
};

mcts_queue *mcts_queue_new(size_t capacity) {
    size_t cap = 2;
    while (cap < capacity) cap *= 2;
    mcts_queue *q = aligned_alloc(64, sizeof *q);
    if (!q) return NULL;
    q->cells = malloc(cap * sizeof *q->cells);
    if (!q->cells) { free(q); return NULL; }
    for (size_t i = 0; i < cap; i++) {
        atomic_init(&q->cells[i].seq, i);
        q->cells[i].item = NULL;
    }
    q->mask = cap - 1;
    atomic_init(&q->tail, 0);
    atomic_init(&q->head, 0);
    return q;
}

void mcts_queue_free(mcts_queue *q) {
    if (!q) return;
    free(q->cells);
    free(q);
}

bool mcts_queue_push(mcts_queue *q, void *item) {
    size_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
    cell *c;
    for (;;) {
        c = &q->cells[pos & q->mask];
        size_t seq = atomic_load_explicit(&c->seq, memory_order_acquire);
        intptr_t dif = (intptr_t)seq - (intptr_t)pos;
        if (dif == 0) {
            if (atomic_compare_exchange_weak_explicit(&q->tail, &pos, pos + 1, memory_order_relaxed,
                                                      memory_order_relaxed))
                break;
        } else if (dif < 0) {
            return false;                                   /* full */
        } else {
            pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
        }
    }
    c->item = item;
    atomic_store_explicit(&c->seq, pos + 1, memory_order_release);
    return true;
}

void *mcts_queue_pop(mcts_queue *q) {
    size_t pos = atomic_load_explicit(&q->head, memory_order_relaxed);
    cell *c;
    for (;;) {
        c = &q->cells[pos & q->mask];
        size_t seq = atomic_load_explicit(&c->seq, memory_order_acquire);
        intptr_t dif = (intptr_t)seq - (intptr_t)(pos + 1);
        if (dif == 0) {
            if (atomic_compare_exchange_weak_explicit(&q->head, &pos, pos + 1, memory_order_relaxed,
                                                      memory_order_relaxed))
                break;
        } else if (dif < 0) {
            return NULL;                                    /* empty */
        } else {
            pos = atomic_load_explicit(&q->head, memory_order_relaxed);
        }
    }
    void *item = c->item;
    atomic_store_explicit(&c->seq, pos + q->mask + 1, memory_order_release);
    return item;
}

int mcts_queue_pop_many(mcts_queue *q, void **out, int max) {
    int n = 0;
    while (n < max) {
        void *it = mcts_queue_pop(q);
        if (!it) break;
        out[n++] = it;
    }
    return n;
}

size_t mcts_queue_size(mcts_queue *q) {
    size_t t = atomic_load_explicit(&q->tail, memory_order_relaxed);
    size_t h = atomic_load_explicit(&q->head, memory_order_relaxed);
    return t > h ? t - h : 0;
}
