/* eval_cache.c — eval_cache.h's direct-mapped table of network outputs by position.
 *
 * Layout: slot i is `stride` bytes at data + i·stride: its logits[per] (floats), then at
 * head_off a slot_head (the position, the value, whether the slot is used).  One allocation; a
 * put writes the whole slot. */
#include "eval_cache.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    zz_pos pos;
    float value;
    bool used;
} slot_head;

struct mcts_eval_cache {
    size_t entries, per;
    size_t head_off, stride;  /* bytes: where a slot's head starts; a slot's size */
    unsigned char *data;      /* calloc'd: pages are touched only as slots are written */
    bool written;             /* a put since the last clear (a clear of an unwritten table is free) */
    mcts_eval_cache_stats stats;
};

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }
static float *slot_logits(const mcts_eval_cache *c, size_t i) { return (float *)(c->data + i * c->stride); }
static slot_head *slot_of(const mcts_eval_cache *c, size_t i) {
    return (slot_head *)(c->data + i * c->stride + c->head_off);
}
static size_t slot_index(const mcts_eval_cache *c, const zz_pos *p) { return (size_t)(zz_hash(p) & (c->entries - 1)); }

mcts_eval_cache *mcts_eval_cache_new(size_t entries, size_t per) {
    if (entries < 1 || entries > MCTS_EVAL_CACHE_MAX || per < 1 || per > (1u << 20)) return NULL;
    mcts_eval_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->entries = mcts_eval_cache_slots_for(entries);
    c->per = per;
    size_t align = _Alignof(slot_head) > _Alignof(float) ? _Alignof(slot_head) : _Alignof(float);
    c->head_off = round_up(per * sizeof(float), align);
    c->stride = round_up(c->head_off + sizeof(slot_head), align);
    if (!(c->data = calloc(c->entries, c->stride))) {      /* calloc: every slot unused */
        free(c);
        return NULL;
    }
    return c;
}

void mcts_eval_cache_free(mcts_eval_cache *c) {
    if (!c) return;
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

const float *mcts_eval_cache_get(mcts_eval_cache *c, const zz_pos *p, float *value) {
    size_t i = slot_index(c, p);
    const slot_head *h = slot_of(c, i);
    c->stats.lookups++;
    if (!h->used || !zz_pos_equal(&h->pos, p)) return NULL;
    c->stats.hits++;
    *value = h->value;
    return slot_logits(c, i);
}

void mcts_eval_cache_put(mcts_eval_cache *c, const zz_pos *p, const float *logits, float value) {
    size_t i = slot_index(c, p);
    slot_head *h = slot_of(c, i);
    memcpy(slot_logits(c, i), logits, c->per * sizeof(float));
    h->pos = *p;
    h->value = value;
    h->used = true;
    c->written = true;
}

void mcts_eval_cache_clear(mcts_eval_cache *c) {
    if (!c->written) return;
    for (size_t i = 0; i < c->entries; i++) slot_of(c, i)->used = false;
    c->written = false;
}

mcts_eval_cache_stats mcts_eval_cache_get_stats(const mcts_eval_cache *c) { return c->stats; }
