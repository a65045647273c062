/* nodes.c — segmented bump arenas (see nodes.h): one CAS per allocation, one CAS per new
 * segment, nothing freed until reset. */
#include "nodes.h"
#include <stdlib.h>
#include <string.h>

int mcts_arena_init(mcts_arena *a, size_t elem, unsigned seg_bits, uint32_t max) {
    memset(a, 0, sizeof *a);
    a->elem = elem;
    a->seg_bits = seg_bits;
    if (max < 2) max = 2;
    a->max = max;
    a->nsegs = (uint32_t)(((uint64_t)max + (1u << seg_bits) - 1) >> seg_bits);
    a->seg = calloc(a->nsegs, sizeof *a->seg);
    if (!a->seg) return -1;
    for (uint32_t s = 0; s < a->nsegs; s++) atomic_init(&a->seg[s], NULL);
    atomic_init(&a->next, 1);
    return 0;
}

void mcts_arena_free(mcts_arena *a) {
    if (!a->seg) return;
    for (uint32_t s = 0; s < a->nsegs; s++) free(atomic_load_explicit(&a->seg[s], memory_order_relaxed));
    free(a->seg);
    a->seg = NULL;
}

void mcts_arena_reset(mcts_arena *a) {
    atomic_store_explicit(&a->next, 1, memory_order_relaxed);
}

/* Install segment s if nobody has yet; returns 0, or -1 when memory ran out. */
static int ensure_segment(mcts_arena *a, uint32_t s) {
    if (atomic_load_explicit(&a->seg[s], memory_order_acquire)) return 0;
    size_t bytes = ((size_t)1 << a->seg_bits) * a->elem;
    char *p = aligned_alloc(64, bytes);
    if (!p) return -1;
    char *expected = NULL;
    if (!atomic_compare_exchange_strong_explicit(&a->seg[s], &expected, p, memory_order_acq_rel,
                                                 memory_order_acquire))
        free(p);                                  /* another thread installed it first */
    return 0;
}

uint32_t mcts_arena_alloc(mcts_arena *a, uint32_t n) {
    uint32_t segsz = 1u << a->seg_bits;
    if (n == 0 || n > segsz) return 0;
    uint32_t cur = atomic_load_explicit(&a->next, memory_order_relaxed), start;
    for (;;) {
        start = cur;
        if ((start & (segsz - 1)) + n > segsz) start = (start | (segsz - 1)) + 1;  /* no straddling */
        if ((uint64_t)start + n > a->max) return 0;
        if (atomic_compare_exchange_weak_explicit(&a->next, &cur, start + n, memory_order_relaxed,
                                                  memory_order_relaxed))
            break;
    }
    if (ensure_segment(a, start >> a->seg_bits) != 0) return 0;
    return start;
}

uint32_t mcts_arena_alloc1(mcts_arena *a, mcts_arena_cache *c, uint32_t chunk) {
    if (c->next == c->end) {
        uint32_t i = mcts_arena_alloc(a, chunk);
        if (!i) i = mcts_arena_alloc(a, 1), chunk = 1;    /* nearly full: take what is left */
        if (!i) return 0;
        c->next = i;
        c->end = i + chunk;
    }
    return c->next++;
}
