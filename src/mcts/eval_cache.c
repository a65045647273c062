/* eval_cache.c — eval_cache.h's direct-mapped table of network outputs by position.
 *
 * Layout: slot i is `stride` bytes at data + i·stride: its logits[per] (floats), then at
 * head_off a slot_head (the position, the holder's tag, the value, whether the slot is used, its
 * lock).  One allocation; a put writes the whole slot.  A holder (mcts_eval_cache) is a handle:
 * the table it shares and its own tag.
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
    uint64_t tag;             /* the putting holder's tag: a get finds only its own tag's answers */
    float value;
    bool used;
    atomic_flag lock;         /* clear in calloc'd memory (all bits zero) */
} slot_head;

typedef struct {
    size_t entries, per;
    size_t head_off, stride;  /* bytes: where a slot's head starts; a slot's size */
    unsigned char *data;      /* calloc'd: pages are touched only as slots are written */
    atomic_bool written;      /* a put since the last clear (a clear of an unwritten table is free) */
    atomic_int refs;          /* holders: the creator and each mcts_eval_cache_share */
    atomic_uint_least64_t lookups, hits;
} cache_table;

struct mcts_eval_cache {
    cache_table *t;
    uint64_t tag;
};

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }
static float *slot_logits(const cache_table *t, size_t i) { return (float *)(t->data + i * t->stride); }
static slot_head *slot_of(const cache_table *t, size_t i) {
    return (slot_head *)(t->data + i * t->stride + t->head_off);
}
static size_t slot_index(const cache_table *t, const zz_pos *p) { return (size_t)(zz_hash(p) & (t->entries - 1)); }

static void lock_slot(slot_head *h) {
    while (atomic_flag_test_and_set_explicit(&h->lock, memory_order_acquire)) { /* spin: one copy long */ }
}
static void unlock_slot(slot_head *h) { atomic_flag_clear_explicit(&h->lock, memory_order_release); }

/* A holder of t with tag `tag`, t's holder count already counting it.  NULL when out of memory. */
static mcts_eval_cache *holder(cache_table *t, uint64_t tag) {
    mcts_eval_cache *c = malloc(sizeof *c);
    if (c) *c = (mcts_eval_cache){ t, tag };
    return c;
}

static void table_free(cache_table *t) {
    if (!t || atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) > 1) return;
    free(t->data);
    free(t);
}

mcts_eval_cache *mcts_eval_cache_new(size_t entries, size_t per) {
    if (entries < 1 || entries > MCTS_EVAL_CACHE_MAX || per < 1 || per > (1u << 20)) return NULL;
    cache_table *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->entries = mcts_eval_cache_slots_for(entries);
    t->per = per;
    size_t align = _Alignof(slot_head) > _Alignof(float) ? _Alignof(slot_head) : _Alignof(float);
    t->head_off = round_up(per * sizeof(float), align);
    t->stride = round_up(t->head_off + sizeof(slot_head), align);
    if (!(t->data = calloc(t->entries, t->stride))) {      /* calloc: every slot unused and unlocked */
        free(t);
        return NULL;
    }
    atomic_init(&t->written, false);
    atomic_init(&t->refs, 1);
    atomic_init(&t->lookups, 0);
    atomic_init(&t->hits, 0);
    mcts_eval_cache *c = holder(t, 0);
    if (!c) table_free(t);
    return c;
}

mcts_eval_cache *mcts_eval_cache_share(mcts_eval_cache *c) {
    atomic_fetch_add_explicit(&c->t->refs, 1, memory_order_relaxed);
    mcts_eval_cache *k = holder(c->t, c->tag);
    if (!k) table_free(c->t);
    return k;
}

bool mcts_eval_cache_shared(const mcts_eval_cache *c) {
    return atomic_load_explicit(&c->t->refs, memory_order_acquire) > 1;
}

void mcts_eval_cache_free(mcts_eval_cache *c) {
    if (!c) return;
    table_free(c->t);
    free(c);
}

void mcts_eval_cache_set_tag(mcts_eval_cache *c, uint64_t tag) { c->tag = tag; }
uint64_t mcts_eval_cache_tag(const mcts_eval_cache *c) { return c->tag; }

size_t mcts_eval_cache_slots_for(size_t entries) {
    size_t n = 1;
    while (n * 2 <= entries) n *= 2;
    return n;
}

size_t mcts_eval_cache_entries(const mcts_eval_cache *c) { return c->t->entries; }
size_t mcts_eval_cache_per(const mcts_eval_cache *c) { return c->t->per; }

bool mcts_eval_cache_get(mcts_eval_cache *c, const zz_pos *p, float *logits, float *value) {
    cache_table *t = c->t;
    size_t i = slot_index(t, p);
    slot_head *h = slot_of(t, i);
    atomic_fetch_add_explicit(&t->lookups, 1, memory_order_relaxed);
    lock_slot(h);
    bool found = h->used && h->tag == c->tag && zz_pos_equal(&h->pos, p);
    if (found) {
        memcpy(logits, slot_logits(t, i), t->per * sizeof(float));
        *value = h->value;
    }
    unlock_slot(h);
    if (found) atomic_fetch_add_explicit(&t->hits, 1, memory_order_relaxed);
    return found;
}

void mcts_eval_cache_put(mcts_eval_cache *c, const zz_pos *p, const float *logits, float value) {
    cache_table *t = c->t;
    size_t i = slot_index(t, p);
    slot_head *h = slot_of(t, i);
    lock_slot(h);
    memcpy(slot_logits(t, i), logits, t->per * sizeof(float));
    h->pos = *p;
    h->tag = c->tag;
    h->value = value;
    h->used = true;
    unlock_slot(h);
    if (!atomic_load_explicit(&t->written, memory_order_relaxed)) atomic_store_explicit(&t->written, true, memory_order_relaxed);
}

void mcts_eval_cache_clear(mcts_eval_cache *c) {
    cache_table *t = c->t;
    if (!atomic_load_explicit(&t->written, memory_order_relaxed)) return;
    for (size_t i = 0; i < t->entries; i++) slot_of(t, i)->used = false;
    atomic_store_explicit(&t->written, false, memory_order_relaxed);
}

mcts_eval_cache_stats mcts_eval_cache_get_stats(const mcts_eval_cache *c) {
    cache_table *t = c->t;
    return (mcts_eval_cache_stats){ atomic_load_explicit(&t->lookups, memory_order_relaxed),
                                    atomic_load_explicit(&t->hits, memory_order_relaxed) };
}
