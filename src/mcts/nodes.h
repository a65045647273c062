/* nodes.h — lock-free, segmented bump arenas for search nodes and prior edges.
 *
 * An arena hands out runs of fixed-size elements by index (uint32_t; index 0 is reserved as
 * "none").  Storage is a table of segments of 2^seg_bits elements each, allocated on first use
 * and installed with a compare-and-swap, so the arena grows while threads allocate from it and
 * an element never moves: a pointer to an element stays valid until mcts_arena_reset.
 *
 * Invariants:
 *   - a run of n elements never straddles two segments (n ≤ 2^seg_bits);
 *   - allocation is one CAS on `next` (plus one CAS per new segment); no lock anywhere;
 *   - mcts_arena_reset and mcts_arena_free must not run concurrently with anything else
 *     (between searches only: "freeing nodes during a search" is a trap we avoid by design). */
#ifndef MCTS_NODES_H
#define MCTS_NODES_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mcts_arena {
    size_t elem;                  /* element size in bytes (a multiple of its alignment) */
    unsigned seg_bits;            /* elements per segment = 1 << seg_bits */
    uint32_t max;                 /* capacity in elements; allocation fails beyond it */
    uint32_t nsegs;               /* length of seg[] */
    _Atomic uint32_t next;        /* first never-allocated index (starts at 1) */
    _Atomic(char *) *seg;         /* segment table: NULL until a segment is first used */
} mcts_arena;

/* Per-thread allocation cache: a chunk of indices taken from the arena in one CAS. */
typedef struct mcts_arena_cache {
    uint32_t next, end;
} mcts_arena_cache;

/* Set up an arena of elements of `elem` bytes, at most `max` of them. Returns 0, or -1 on
 * out-of-memory for the segment table. */
int mcts_arena_init(mcts_arena *a, size_t elem, unsigned seg_bits, uint32_t max);
void mcts_arena_free(mcts_arena *a);
/* Forget every allocation (segments stay allocated for reuse).  Not thread-safe. */
void mcts_arena_reset(mcts_arena *a);
/* Allocate n contiguous elements; returns the first index, or 0 when the arena is full. */
uint32_t mcts_arena_alloc(mcts_arena *a, uint32_t n);
/* Allocate one element through a per-thread cache (refilled `chunk` elements at a time). */
uint32_t mcts_arena_alloc1(mcts_arena *a, mcts_arena_cache *c, uint32_t chunk);
/* Elements handed out so far (including chunk slack and the reserved index 0). */
static inline uint32_t mcts_arena_used(const mcts_arena *a) {
    return atomic_load_explicit(&((mcts_arena *)a)->next, memory_order_relaxed);
}

/* The element at index i (i must come from an allocation of this arena). */
static inline void *mcts_arena_at(const mcts_arena *a, uint32_t i) {
    char *s = atomic_load_explicit(&a->seg[i >> a->seg_bits], memory_order_acquire);
    return s + (size_t)(i & ((1u << a->seg_bits) - 1)) * a->elem;
}

#endif
