/* puct_search.c — PUCT's search drivers (puct_internal.h), all on the one shared tree:
 *   search_inline      one thread gathers up to `batch` leaves and evaluates them in one call;
 *   search_batched     threads > 1 sharing one evaluator: workers submit leaves to the batcher,
 *                      the caller serves it (the GPU's way);
 *   search_per_thread  threads > 1 with an evaluator each, each running search_inline.
 * Simulations are tickets (take_ticket) counted against the search's target; the deadline is read
 * every 16 completions. */
#include "puct_internal.h"
#include "proof.h"
#include "mcts/clock.h"
#include "rand.h"
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the search ------------------------------------------------------------------------------ */
static bool take_ticket(mcts_puct *s) {
    if (atomic_load_explicit(&s->stop, memory_order_relaxed)) return false;
    if (s->cfg.solver && mcts_proof(mcts_tree_root(&s->tree)) != MCTS_PROOF_NONE) {
        atomic_store(&s->stop, 1);                  /* the root is proven: nothing left to learn */
        return false;
    }
    if (atomic_fetch_add_explicit(&s->started, 1, memory_order_relaxed) < s->target) return true;
    return false;
}

static bool past_deadline(mcts_puct *s, uint64_t count) {
    if (s->deadline > 0 && (count & 15) == 0 && mcts_now_s() >= s->deadline) {
        atomic_store(&s->stop, 1);
        return true;
    }
    return false;
}

/* Inline search: gather up to `batch` leaves, evaluate them with ev in one call, back them up.
 * The single-thread mode, and each thread of the per-thread-evaluator mode: there a leaf of
 * another thread may block every path for a moment (a collision with nothing gathered), so the
 * thread waits and tries again until the search stops. */
static int search_inline(mcts_puct *s, puct_worker *w, mcts_evaluator *ev, char *err, size_t errlen,
                         uint64_t *evals, uint64_t *batches) {
    mcts_eval_item *items = malloc((size_t)w->nslots * sizeof *items);
    if (!items) { snprintf(err, errlen, "out of memory"); return -1; }
    bool ticket = false, shared = s->cfg.threads > 1;
    int rc = 0, spins = 0;
    w->ev = s->cfg.threads == 1 ? ev : NULL;       /* sym_visits: one thread only (puct.h) */
    w->widen_ev = ev;
    for (;;) {
        int n = 0;
        while (n < w->nslots) {
            if (!ticket && !(ticket = take_ticket(s))) break;
            int d = puct_descend(w, &w->slots[n]);
            if (d == D_FAILED) { snprintf(err, errlen, "%s", w->sym_err); rc = -1; break; }
            if (d == D_SUBMIT) { n++; ticket = false; continue; }
            if (d == D_DONE) { w->done++; ticket = false; past_deadline(s, w->done); continue; }
            if (d == D_FULL) { w->full = 1; atomic_store(&s->stop, 1); ticket = false; break; }
            w->collisions++;                 /* a leaf of this batch (or another thread's) is on the path: flush */
            break;
        }
        if (rc != 0) {
            for (int i = 0; i < n; i++) mcts_puct_abandon(w, &w->slots[i]);   /* PENDING: the tree is reset after */
            atomic_store(&s->stop, 1);
            break;
        }
        if (n == 0) {
            if (!shared || !ticket || atomic_load_explicit(&s->stop, memory_order_relaxed)) break;
            mcts_backoff(&spins);            /* another thread's leaf is in the way */
            continue;
        }
        spins = 0;
        for (int i = 0; i < n; i++) items[i] = w->slots[i].item;
        if (mcts_evaluate(ev, items, n, err, errlen) != 0) {
            for (int i = 0; i < n; i++) mcts_puct_abandon(w, &w->slots[i]);   /* PENDING: the tree is reset after */
            atomic_store(&s->stop, 1);
            rc = -1;
            break;
        }
        (*evals) += (uint64_t)n;
        (*batches)++;
        for (int i = 0; i < n; i++) {
            w->slots[i].item.value = items[i].value;
            puct_complete(w, &w->slots[i]);
            w->done++;
            past_deadline(s, w->done);
        }
    }
    free(items);
    return rc;
}

/* Worker thread (threads > 1): keep up to nslots leaves waiting in the batcher. */
static void *worker_main(void *arg) {
    puct_worker *w = arg;
    mcts_puct *s = w->s;
    bool ticket = false, no_more = false;
    int waiting = 0, spins = 0;
    for (;;) {
        bool progress = false;
        for (int i = 0; i < w->nslots && waiting; i++) {
            mcts_request *r = &w->slots[i];
            int st = mcts_request_state(r);
            if (st == MCTS_REQ_DONE) {
                if (puct_complete(w, r)) {
                    w->done++;
                    past_deadline(s, w->done);
                }
                waiting--;
                progress = true;
            } else if (st == MCTS_REQ_FAILED) {
                mcts_puct_abandon(w, r);     /* the node stays PENDING: the tree is reset after */
                waiting--;
                w->failed = 1;
                atomic_store(&s->stop, 1);
            }
        }
        if (!no_more && waiting < w->nslots) {
            if (!ticket && !(ticket = take_ticket(s))) no_more = true;
            if (ticket) {
                int free_slot = 0;
                while (mcts_request_state(&w->slots[free_slot]) != MCTS_REQ_FREE) free_slot++;
                mcts_request *r = &w->slots[free_slot];
                int d = puct_descend(w, r);
                if (d == D_SUBMIT || d == D_WIDEN) {
                    while (!mcts_batcher_submit(&s->batcher, r)) sched_yield();   /* never full */
                    waiting++;
                    ticket = d == D_WIDEN;    /* a widening is no simulation: the ticket waits */
                    progress = true;
                } else if (d == D_DONE) {
                    w->done++;
                    ticket = false;
                    progress = true;
                    past_deadline(s, w->done);
                } else if (d == D_FULL) {
                    w->full = 1;
                    ticket = false;
                    atomic_store(&s->stop, 1);
                } else {
                    w->collisions++;          /* keep the ticket, retry after a pause */
                }
            }
        }
        if (atomic_load_explicit(&s->stop, memory_order_relaxed)) { no_more = true; ticket = false; }
        if (no_more && !ticket && waiting == 0) break;
        if (progress) spins = 0;
        else mcts_backoff(&spins);
    }
    atomic_fetch_sub_explicit(&s->running, 1, memory_order_release);
    return NULL;
}

/* What a search did, summed over its threads. */
typedef struct { uint64_t evals, batches, done, collisions; int full; } search_counts;

static void count_worker(search_counts *k, const puct_worker *w) {
    k->evals += w->widened;
    k->done += w->done;
    k->collisions += w->collisions;
    k->full |= w->full;
}

/* Start fn(&arg[i]) on nt threads (arg is an array of elements of size `size`); returns how
 * many started. */
static int start_threads(pthread_t *th, int nt, void *(*fn)(void *), void *arg, size_t size) {
    int started = 0;
    for (int i = 0; i < nt; i++) {
        if (pthread_create(&th[i], NULL, fn, (char *)arg + (size_t)i * size) != 0) break;
        started++;
    }
    return started;
}

/* threads > 1 with one shared evaluator: nt workers submit leaves to the batcher, the caller
 * evaluates whatever is queued.  0, or -1 with a message. */
static int search_batched(mcts_puct *s, search_counts *k, char *err, size_t errlen) {
    int nt = s->cfg.threads, rc = 0;
    puct_worker *ws = calloc((size_t)nt, sizeof *ws);
    pthread_t *th = calloc((size_t)nt, sizeof *th);
    int ok = ws && th;
    for (int i = 0; ok && i < nt; i++) {
        ok = puct_worker_init(&ws[i], s, s->cfg.inflight, s->rng + (uint64_t)i + 1) == 0;
        ws[i].widen_requests = true;      /* no evaluator at hand: windows widen through the batcher */
    }
    s->batcher.evals = s->batcher.batches = 0;
    atomic_store(&s->batcher.failed, 0);
    atomic_store(&s->running, nt);
    int started = ok ? start_threads(th, nt, worker_main, ws, sizeof *ws) : 0;
    atomic_fetch_sub(&s->running, nt - started);
    if (started == 0) { rc = -1; snprintf(err, errlen, ok ? "cannot start search threads" : "out of memory"); }
    /* The caller serves evaluations until every worker has finished (they wait for their own
     * leaves, and serve() never waits for a full batch: no deadlock). */
    int idle = 0;
    while (started && atomic_load_explicit(&s->running, memory_order_acquire) > 0) {
        if (mcts_batcher_serve(&s->batcher) != 0) idle = 0;
        else mcts_backoff(&idle);
    }
    while (mcts_batcher_serve(&s->batcher) > 0) {}
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    if (atomic_load(&s->batcher.failed)) { rc = -1; snprintf(err, errlen, "%s", s->batcher.err); }
    k->evals += s->batcher.evals;
    k->batches += s->batcher.batches;
    for (int i = 0; ws && i < nt; i++) {
        count_worker(k, &ws[i]);
        puct_worker_fini(&ws[i]);
    }
    free(ws);
    free(th);
    s->rng = mcts_seed(s->rng + (uint64_t)nt);
    return rc;
}

/* Whether threads > 1 search with an evaluator each (config thread_evaluators, and the
 * evaluator can be copied); the copies are made here, once.  When a copy cannot be made the
 * search falls back to the shared batcher (with one message on stderr). */
static bool per_thread_evaluators(mcts_puct *s) {
    int need = s->cfg.threads - 1;
    if (!s->cfg.thread_evaluators || !s->ev->clone) return false;
    if (s->ncopies >= need) return true;
    if (s->ncopies < 0) return false;                    /* failed before */
    mcts_evaluator **c = realloc(s->copies, (size_t)need * sizeof *c);
    char why[256] = "out of memory";
    if (c) {
        s->copies = c;
        while (s->ncopies < need && (c[s->ncopies] = mcts_evaluator_clone(s->ev, why, sizeof why))) s->ncopies++;
    }
    if (s->ncopies >= need) return true;
    fprintf(stderr, "zertz: search: one evaluator for %d threads (cannot copy %s: %s)\n", s->cfg.threads,
            s->ev->name ? s->ev->name : "it", why);
    for (int i = 0; i < s->ncopies; i++) mcts_evaluator_free(s->copies[i]);
    s->ncopies = -1;
    return false;
}

typedef struct {
    puct_worker w;
    mcts_evaluator *ev;
    uint64_t evals, batches;
    int rc;
    char err[256];
} inline_job;

static void *inline_main(void *arg) {
    inline_job *j = arg;
    j->rc = search_inline(j->w.s, &j->w, j->ev, j->err, sizeof j->err, &j->evals, &j->batches);
    return NULL;
}

/* threads > 1 with an evaluator each: every thread (the caller is thread 0) gathers its own
 * batches and evaluates them itself, on the one shared tree.  0, or -1 with a message. */
static int search_per_thread(mcts_puct *s, search_counts *k, char *err, size_t errlen) {
    int nt = s->cfg.threads, rc = 0;
    inline_job *js = calloc((size_t)nt, sizeof *js);
    pthread_t *th = calloc((size_t)nt, sizeof *th);
    int ok = js && th;
    for (int i = 0; ok && i < nt; i++) {
        ok = puct_worker_init(&js[i].w, s, s->cfg.batch, s->rng + (uint64_t)i + 1) == 0;
        js[i].ev = i == 0 ? s->ev : s->copies[i - 1];
    }
    int started = ok ? start_threads(th, nt - 1, inline_main, js + 1, sizeof *js) : 0;
    if (ok) inline_main(&js[0]);
    else { rc = -1; snprintf(err, errlen, "out of memory"); }
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    for (int i = 0; js && i < nt; i++) {
        if (js[i].rc != 0 && rc == 0) { rc = -1; snprintf(err, errlen, "%s", js[i].err); }
        k->evals += js[i].evals;
        k->batches += js[i].batches;
        count_worker(k, &js[i].w);
        puct_worker_fini(&js[i].w);
    }
    free(js);
    free(th);
    s->rng = mcts_seed(s->rng + (uint64_t)nt);
    return rc;
}

void mcts_puct_stop(mcts_puct *s) { atomic_store(&s->stop, 1); }

int mcts_puct_search(mcts_puct *s, uint64_t sims, double time_ms, bool noise, mcts_search_stats *st,
                     char *err, size_t errlen) {
    double t0 = mcts_now_s();
    mcts_tree *t = &s->tree;
    mcts_node *root = mcts_tree_root(t);
    if (st) memset(st, 0, sizeof *st);
    if (atomic_load(&root->state) == MCTS_TERMINAL) return 0;
    uint32_t have = mcts_stats_n(mcts_node_load(root));
    uint64_t room = have < MCTS_MAX_VISITS ? MCTS_MAX_VISITS - have : 0;
    if (sims == 0 && time_ms <= 0) sims = 1;
    s->target = sims && sims < room ? sims : room;
    atomic_store(&s->started, 0);
    atomic_store(&s->stop, 0);
    s->deadline = time_ms > 0 ? t0 + time_ms / 1000.0 : 0;
    search_counts k = { 0, 0, 0, 0, 0 };
    int rc = 0;
    char ebuf[256] = "";

    /* A new root is evaluated first, alone (it is simulation 1), so that noise can be mixed in. */
    puct_worker w0;
    int nslots0 = s->cfg.threads == 1 ? s->cfg.batch : 1;
    if (puct_worker_init(&w0, s, nslots0, s->rng)) { puct_worker_fini(&w0); snprintf(err, errlen, "out of memory"); return -1; }
    s->rng = mcts_seed(s->rng ^ 0x5EA4C4ULL);
    if (atomic_load(&root->state) == MCTS_NEW && s->target > 0) {
        atomic_fetch_add(&s->started, 1);
        puct_descend(&w0, &w0.slots[0]);
        mcts_eval_item it = w0.slots[0].item;
        if (mcts_evaluate(s->ev, &it, 1, ebuf, sizeof ebuf) != 0) rc = -1;
        else {
            w0.slots[0].item.value = it.value;
            puct_complete(&w0, &w0.slots[0]);
            k.evals++, k.batches++, k.done++;
        }
    }
    if (rc == 0 && puct_root_widen(s, &w0, ebuf, sizeof ebuf) != 0) rc = -1;
    if (rc == 0 && puct_root_symmetry(s, ebuf, sizeof ebuf) != 0) rc = -1;
    if (rc == 0) mcts_puct_root_runs(s);
    if (rc == 0 && s->cfg.gumbel_m > 0 && sims > 0 && !gumbel_active(s))
        mcts_puct_gumbel_root(s, s->target > 1 ? s->target - 1 : 1);
    else if (rc == 0 && noise && s->cfg.noise_eps > 0) mcts_puct_root_noise(s);

    if (rc == 0 && s->cfg.threads == 1) {
        rc = search_inline(s, &w0, s->ev, ebuf, sizeof ebuf, &k.evals, &k.batches);
        count_worker(&k, &w0);
    } else if (rc == 0 && per_thread_evaluators(s)) {
        rc = search_per_thread(s, &k, ebuf, sizeof ebuf);
    } else if (rc == 0) {
        rc = search_batched(s, &k, ebuf, sizeof ebuf);
    }
    puct_worker_fini(&w0);
    if (st) {
        st->iterations = k.done;
        st->seconds = mcts_now_s() - t0;
        st->nodes = mcts_arena_used(&t->nodes[t->cur]);
        st->collisions = k.collisions;
        st->evals = k.evals;
        st->batches = k.batches;
    }
    if (rc != 0) {
        snprintf(err, errlen, "evaluator %s: %s", s->ev->name ? s->ev->name : "?", ebuf);
        zz_pos p = t->root_pos;
        mcts_tree_reset(t, &p, true);        /* PENDING nodes may remain: start clean */
        return -1;
    }
    if (k.full) { snprintf(err, errlen, "search tree is full"); return -1; }
    return 0;
}
