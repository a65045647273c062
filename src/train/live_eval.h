/* live_eval.h — the network being trained, as a search evaluator (mcts/evaluator.h) whose weights
 * the trainer refreshes while self-play runs.
 *
 * Handoff without a lock: the trainer copies its model into a staging model and raises a flag
 * (release); the evaluating thread, at the start of its next batch, sees the flag (acquire),
 * refolds its inference net from the staging model (nn_infer_update) and lowers the flag.  The
 * trainer writes the staging model only while the flag is down, so the two never touch it at
 * once, and a refresh always happens between two evaluator batches.  The evaluating thread keeps
 * the weights it runs (the staging model becomes its own at a refresh, and its old one the next
 * staging model), so when the GPU net fails (a launch failure, a lost context) it goes on with the
 * CPU net on those same weights, for good, with a warning on stderr.  A lane (clone) has all of
 * this of its own; it is made and freed while no thread evaluates or publishes.  Each publish
 * numbers its weights; a cache of answers (tr_live_eval_set_cache) is keyed by that number too. */
#ifndef TR_LIVE_EVAL_H
#define TR_LIVE_EVAL_H

#include "mcts/eval_cache.h"
#include "mcts/evaluator.h"
#include "nn/model.h"

/* An evaluator over a copy of m's weights, its CPU net's convolutions in precision (nn_precision,
 * nn/infer.h: float, or int8 / bf16 where the CPU has them; every refresh packs them again; the
 * GPU net is float).  NULL with a message (also when the CPU lacks the precision). */
mcts_evaluator *tr_live_eval_new(const nn_model *m, int precision, char *err, size_t errlen);
/* Offer new weights (same architecture) to e and its lanes (the copies mcts_evaluator_clone made
 * for other evaluating threads: each has a net of its own).  Returns 1 when they were staged in
 * every one, 0 when one had not taken the previous offer yet (try again later: those that had
 * take these), -1 with a message on error.  The counts below add up e's lanes, also freed ones. */
int tr_live_eval_publish(mcts_evaluator *e, const nn_model *m, char *err, size_t errlen);
/* How many of e and its lanes would take an offer now (they took the last one, or had none): 0
 * means tr_live_eval_publish would stage nothing, so a caller may skip reading its weights back. */
int tr_live_eval_open(mcts_evaluator *e);
/* Weight refreshes the evaluator has applied so far. */
long tr_live_eval_refreshes(mcts_evaluator *e);
/* Positions evaluated so far (counted by the evaluating thread; read it after it stopped, or as
 * an approximate figure). */
long long tr_live_eval_count(mcts_evaluator *e);
/* Evaluator calls (batches) so far: count / calls is the mean batch fill. */
long long tr_live_eval_calls(mcts_evaluator *e);

/* A cache of answers by position (mcts/eval_cache.h) of `entries` slots (0: none, the default),
 * for the CPU nets of e and of the copies made from it afterwards (call it before any copy): one
 * table, each net's answers tagged with the version of the weights it runs, so that an answer
 * found is always the one a forward pass of the asking net would give.  A GPU net keeps none (nor
 * does it gain one if it fails over to the CPU).
 * 0, or -1 with a message (out of memory, above MCTS_EVAL_CACHE_MAX, e already copied). */
int tr_live_eval_set_cache(mcts_evaluator *e, size_t entries, char *err, size_t errlen);
/* Lookups and hits of that table so far, all of e's copies together (approximate while they run). */
mcts_eval_cache_stats tr_live_eval_cache_stats(mcts_evaluator *e);

/* Which backend runs the network ("GPU (...)" or "CPU (why)"; after a GPU failure "CPU (the GPU
 * network failed: ...)", written by the evaluating thread: read it while that thread is idle). */
const char *tr_live_eval_backend(mcts_evaluator *e);

#endif
