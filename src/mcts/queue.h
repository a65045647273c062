/* queue.h — bounded lock-free multi-producer multi-consumer queue of pointers (Vyukov's
 * array queue): every cell carries a sequence number; a producer claims a cell with one CAS on
 * `tail`, writes the item, then publishes it with a release store of the cell's sequence; a
 * consumer claims with one CAS on `head` after an acquire load of that sequence.  No locks, no
 * allocation after creation.  Used by the search to hand leaves to the evaluator thread.
 *
 * Invariants: capacity is a power of two; an item is popped exactly once, in FIFO order per
 * producer; head and tail live on separate cache lines. */
#ifndef MCTS_QUEUE_H
#define MCTS_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct mcts_queue mcts_queue;

/* A queue holding at least `capacity` items; NULL on out-of-memory. */
mcts_queue *mcts_queue_new(size_t capacity);
void mcts_queue_free(mcts_queue *q);
/* Push a non-NULL item; false when the queue is full. */
bool mcts_queue_push(mcts_queue *q, void *item);
/* Pop one item, or NULL when the queue is empty. */
void *mcts_queue_pop(mcts_queue *q);
/* Pop up to max items into out (whatever is queued now; never waits); returns how many. */
int mcts_queue_pop_many(mcts_queue *q, void **out, int max);
/* Items queued (approximate while others push or pop). */
size_t mcts_queue_size(mcts_queue *q);

#endif
