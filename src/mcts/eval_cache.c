/* eval_cache.c — eval_cache.h's direct-mapped table of network outputs by position.
 *
 * Layout: slot i is `stride` bytes at data + i·stride: its logits[per] (floats), then at
 * head_off a slot_head (the position, the value, whether the slot is used, its lock).  One
 * allocation; a put writes the whole slot.
 *
 * Threads: a get and a put hold the slot's lock (a spin lock: it guards one copy of `per` floats
 * and a position, and two threads meet on one slot rarely), so a reader never sees half of a put;
 * the counters are atomic; the table is freed by the last of its holders (refs). */
#include "eval_cache.h"
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    zz_pos pos;
    float value;
    bool used;
    atomic_flag lock;         /* clear in calloc'd memory (all bits zero) */
} slot_head;

struct mcts_eval_cache {
    size_t entries, per;
    size_t head_off, stride;  /* bytes: where a slot's head starts; a slot's size */
    unsigned char *data;      /* calloc'd: pages are touched only as slots are written */
    atomic_bool written;      /* a put since the last clear (a clear of an unwritten table is free) */
    atomic_int refs;          /* holders: the creator and each mcts_eval_cache_share */
    atomic_uint_least64_t lookups, hits;
};

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }
static float *slot_logits(const mcts_eval_cache *c, size_t i) { return (float *)(c->data + i * c->stride); }
static slot_head *slot_of(const mcts_eval_cache *c, size_t i) {
    return (slot_head *)(c->data + i * c->stride + c->head_off);
}
static size_t slot_index(const mcts_eval_cache *c, const zz_pos *p) { return (size_t)(zz_hash(p) & (c->entries - 1)); }

static void lock_slot(slot_head *h) {
    while (atomic_flag_test_and_set_explicit(&h->lock, memory_order_acquire)) { /* spin: one copy long */ }
}
static void unlock_slot(slot_head *h) { atomic_flag_clear_explicit(&h->lock, memory_order_release); }

mcts_eval_cache *mcts_eval_cache_new(size_t entries, size_t per) {
    if (entries < 1 || entries > MCTS_EVAL_CACHE_MAX || per < 1 || per > (1u << 20)) return NULL;
    mcts_eval_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->entries = mcts_eval_cache_slots_for(entries);
    c->per = per;
    size_t align = _Alignof(slot_head) > _Alignof(float) ? _Alignof(slot_head) : _Alignof(float);
    c->head_off = round_up(per * sizeof(float), align);
    c->stride = round_up(c->head_off + sizeof(slot_head), align);
    if (!(c->data = calloc(c->entries, c->stride))) {      /* calloc: every slot unused and unlocked */
        free(c);
        return NULL;
    }
    atomic_init(&c->written, false);
    atomic_init(&c->refs, 1);
    atomic_init(&c->lookups, 0);
    atomic_init(&c->hits, 0);
    return c;
}

mcts_eval_cache *mcts_eval_cache_share(mcts_eval_cache *c) {
    atomic_fetch_add_explicit(&c->refs, 1, memory_order_relaxed);
    return c;
}

bool mcts_eval_cache_shared(const mcts_eval_cache *c) {
    return atomic_load_explicit(&((mcts_eval_cache *)c)->refs, memory_order_acquire) > 1;
}

void mcts_eval_cache_free(mcts_eval_cache *c) {
    if (!c || atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) > 1) return;
    free(c->data);
    free(c);
}

size_t mcts_eval_cache_slots_for(size_t entries) {
    size_t n = 1;
    while (n * 2 <= entries) n *= 2;
    return n;
}

size_t mcts_eval_cache_entries(const mcts_eval_cache *c) { return c->entries; }
size_t mcts_eval_cache_per(const mcts_eval_cache *c) { return c->per; }

bool mcts_eval_cache_get(mcts_eval_cache *c, const zz_pos *p, float *logits, float *value) {
    size_t i = slot_index(c, p);
    slot_head *h = slot_of(c, i);
    atomic_fetch_add_explicit(&c->lookups, 1, memory_order_relaxed);
    lock_slot(h);
    bool found = h->used && zz_pos_equal(&h->pos, p);
    if (found) {
        memcpy(logits, slot_logits(c, i), c->per * sizeof(float));
        *value = h->value;
    }
    unlock_slot(h);
    if (found) atomic_fetch_add_explicit(&c->hits, 1, memory_order_relaxed);
    return found;
}

void mcts_eval_cache_put(mcts_eval_cache *c, const zz_pos *p, const float *logits, float value) {
    size_t i = slot_index(c, p);
    slot_head *h = slot_of(c, i);
    lock_slot(h);
    memcpy(slot_logits(c, i), logits, c->per * sizeof(float));
    h->pos = *p;
    h->value = value;
    h->used = true;
    unlock_slot(h);
    if (!atomic_load_explicit(&c->written, memory_order_relaxed)) atomic_store_explicit(&c->written, true, memory_order_relaxed);
}

void mcts_eval_cache_clear(mcts_eval_cache *c) {
    if (!atomic_load_explicit(&c->written, memory_order_relaxed)) return;
    for (size_t i = 0; i < c->entries; i++) slot_of(c, i)->used = false;
    atomic_store_explicit(&c->written, false, memory_order_relaxed);
}

mcts_eval_cache_stats mcts_eval_cache_get_stats(const mcts_eval_cache *c) {
    mcts_eval_cache *m = (mcts_eval_cache *)c;   /* atomic loads take a non-const object */
    return (mcts_eval_cache_stats){ atomic_load_explicit(&m->lookups, memory_order_relaxed),
                                    atomic_load_explicit(&m->hits, memory_order_relaxed) };
}
