/* eval_cache.h — the network's answers for positions it has already evaluated, so that a position
 * reached again (a transposition within a search, or a position of an earlier search of the same
 * game that tree reuse dropped) costs no second forward pass.
 *
 * What it keeps: for a position, the network's raw outputs (logits[per], per = cells × NN_HEADS,
 * and the value), not the priors: mcts_eval_net_items turns logits into priors over the asking
 * item's own legal moves, so a hit gives exactly what a second forward pass would (the network's
 * output for a position does not depend on the batch it is in: test_mcts_eval_cache checks a
 * search with the cache against one without, move for move).
 *
 * Shape: a direct-mapped table of `entries` slots (a power of two), slot = zz_hash(p) mod entries;
 * a slot holds the position itself (compared in full with zz_pos_equal on a lookup, so two
 * positions never share an answer) and its outputs; a put replaces whatever the slot held.
 * Memory: entries × (per floats + a position), e.g. 16,384 × 1.5 KiB = 24 MiB on 61 rings.
 * Measured (2026-11-29, shipped networks, 3,000 simulations a move, tree reuse, 3 games a board):
 * 21 % of the 48-ring evaluations repeat a position of the same search and 36 % one of the same
 * game; on 61 rings 9 % and 15 %.
 *
 * Threads: get and put may be called from any number of threads at once (each slot has a lock, so
 * a get copies out a whole put or nothing of it); a CPU network evaluator's copies (its clones,
 * one per search thread: puct.h) hold one cache between them (mcts_eval_cache_share), so that a
 * position one search thread evaluated is an answer for the other.  new, clear and free of the
 * last holder need no other thread in the table.
 * Tags: each holder carries a tag (0 unless set), written with its puts; a get finds only answers
 * put under its own tag.  Holders whose networks differ (training's live network: its copies take
 * new weights at their own times, src/train/live_eval.c) share a table with their weights'
 * version as the tag, so no holder ever reads an answer of other weights; a stale answer is simply
 * overwritten.  Play evaluators run fixed weights, all under tag 0; an evaluator given another
 * precision leaves a shared table (eval_nn.c). */
#ifndef MCTS_EVAL_CACHE_H
#define MCTS_EVAL_CACHE_H

#include "game/position.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Slots of a play evaluator's cache unless its agent says otherwise (cache=). */
enum { MCTS_EVAL_CACHE_DEFAULT = 16384, MCTS_EVAL_CACHE_MAX = 1 << 22 };

typedef struct mcts_eval_cache mcts_eval_cache;

typedef struct mcts_eval_cache_stats {
    uint64_t lookups, hits;
} mcts_eval_cache_stats;

/* A cache of `entries` slots (rounded down to a power of two; 1 to MCTS_EVAL_CACHE_MAX) for
 * outputs of `per` floats, with one holder (tag 0).  NULL when out of memory or out of range. */
mcts_eval_cache *mcts_eval_cache_new(size_t entries, size_t per);
/* One more holder of c's table (returned, with c's tag); each holder frees itself once.  NULL
 * when out of memory (c unchanged). */
mcts_eval_cache *mcts_eval_cache_share(mcts_eval_cache *c);
/* The tag c's gets look for and its puts write (only the thread using c may set it). */
void mcts_eval_cache_set_tag(mcts_eval_cache *c, uint64_t tag);
uint64_t mcts_eval_cache_tag(const mcts_eval_cache *c);
/* Whether c has more than one holder. */
bool mcts_eval_cache_shared(const mcts_eval_cache *c);
/* The slots a cache asked for `entries` (≥ 1) has: the largest power of two not above it. */
size_t mcts_eval_cache_slots_for(size_t entries);
/* Let go of c (NULL: nothing); the last holder frees the table. */
void mcts_eval_cache_free(mcts_eval_cache *c);
size_t mcts_eval_cache_entries(const mcts_eval_cache *c);
size_t mcts_eval_cache_per(const mcts_eval_cache *c);
/* Whether p is stored under c's tag; if so its logits are copied to logits[per] and its value to
 * *value.  Counts a lookup, and a hit when found (the counts are the table's, all holders'). */
bool mcts_eval_cache_get(mcts_eval_cache *c, const zz_pos *p, float *logits, float *value);
/* Store p's outputs (logits[per], value) under c's tag, replacing the slot's earlier answer. */
void mcts_eval_cache_put(mcts_eval_cache *c, const zz_pos *p, const float *logits, float value);
/* Forget every position, every tag's (the counts stay); no other thread may use c's table meanwhile. */
void mcts_eval_cache_clear(mcts_eval_cache *c);
mcts_eval_cache_stats mcts_eval_cache_get_stats(const mcts_eval_cache *c);

#endif
