/* test_mcts_tree.c — the search's building blocks: the lock-free queue (alone and under
 * contention), the segmented node arena (concurrent allocation), packed statistics and virtual
 * loss, child publication, backup signs, re-rooting, the batcher, and Dirichlet noise. */
#include "helpers.h"
#include "mcts/batcher.h"
#include "mcts/order.h"
#include "mcts/queue.h"
#include "mcts/rand.h"
#include "mcts/tree.h"
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
enum { SCALE = 10 };            /* sanitizers are slow: smaller workloads */
#else
enum { SCALE = 1 };
#endif

/* ---- queue ------------------------------------------------------------------------------- */
START_TEST(queue_fifo_and_bounds) {
    mcts_queue *q = mcts_queue_new(5);            /* rounded up to 8 */
    ck_assert_ptr_nonnull(q);
    ck_assert_ptr_null(mcts_queue_pop(q));
    uintptr_t i;
    for (i = 1; i <= 8; i++) ck_assert(mcts_queue_push(q, (void *)i));
    ck_assert(!mcts_queue_push(q, (void *)i));    /* full */
    ck_assert_uint_eq(mcts_queue_size(q), 8);
    for (i = 1; i <= 3; i++) ck_assert_ptr_eq(mcts_queue_pop(q), (void *)i);
    for (i = 9; i <= 11; i++) ck_assert(mcts_queue_push(q, (void *)i));   /* wraps around */
    void *out[16];
    ck_assert_int_eq(mcts_queue_pop_many(q, out, 16), 8);
    for (int k = 0; k < 8; k++) ck_assert_ptr_eq(out[k], (void *)(uintptr_t)(k + 4));
    ck_assert_int_eq(mcts_queue_pop_many(q, out, 16), 0);
    mcts_queue_free(q);
}
END_TEST

enum { PRODUCERS = 4, CONSUMERS = 2 };
typedef struct {
    mcts_queue *q;
    int id, per;
    _Atomic int *done_producers;
    unsigned char *seen;          /* consumers: one flag per item */
    _Atomic long *popped;
    long total;
    int order_ok;
} qarg;

static void *producer(void *arg) {
    qarg *a = arg;
    for (int i = 0; i < a->per; i++) {
        uintptr_t item = ((uintptr_t)a->id << 24 | (uintptr_t)i) + 1;
        while (!mcts_queue_push(a->q, (void *)item)) sched_yield();
    }
    atomic_fetch_add(a->done_producers, 1);
    return NULL;
}

static void *consumer(void *arg) {
    qarg *a = arg;
    int last[PRODUCERS];
    for (int p = 0; p < PRODUCERS; p++) last[p] = -1;
    a->order_ok = 1;
    void *buf[32];
    while (atomic_load(a->popped) < a->total) {
        int n = mcts_queue_pop_many(a->q, buf, 1 + (a->id % 2) * 31);
        if (n == 0) sched_yield();
        for (int k = 0; k < n; k++) {
            uintptr_t item = (uintptr_t)buf[k] - 1;
            int p = (int)(item >> 24), i = (int)(item & 0xFFFFFF);
            if (i <= last[p]) a->order_ok = 0;    /* each producer's items come out in order */
            last[p] = i;
            a->seen[(long)p * a->per + i]++;      /* distinct slots per item: no data race */
        }
        atomic_fetch_add(a->popped, n);
    }
    return NULL;
}

START_TEST(queue_contention) {
    int per = 200000 / SCALE;
    mcts_queue *q = mcts_queue_new(64);           /* small: producers often find it full */
    _Atomic int done = 0;
    _Atomic long popped = 0;
    unsigned char *seen = calloc((size_t)PRODUCERS * per, 1);
    qarg pa[PRODUCERS], ca[CONSUMERS];
    pthread_t pt[PRODUCERS], ct[CONSUMERS];
    for (int i = 0; i < CONSUMERS; i++) {
        ca[i] = (qarg){ .q = q, .id = i, .per = per, .seen = seen, .popped = &popped, .total = (long)PRODUCERS * per };
        pthread_create(&ct[i], NULL, consumer, &ca[i]);
    }
    for (int i = 0; i < PRODUCERS; i++) {
        pa[i] = (qarg){ .q = q, .id = i, .per = per, .done_producers = &done };
        pthread_create(&pt[i], NULL, producer, &pa[i]);
    }
    for (int i = 0; i < PRODUCERS; i++) pthread_join(pt[i], NULL);
    for (int i = 0; i < CONSUMERS; i++) pthread_join(ct[i], NULL);
    ck_assert_int_eq(atomic_load(&done), PRODUCERS);
    ck_assert_int_eq(atomic_load(&popped), (long)PRODUCERS * per);
    for (long i = 0; i < (long)PRODUCERS * per; i++) ck_assert_msg(seen[i] == 1, "item %ld popped %d times", i, seen[i]);
    for (int i = 0; i < CONSUMERS; i++) ck_assert(ca[i].order_ok);
    ck_assert_ptr_null(mcts_queue_pop(q));
    free(seen);
    mcts_queue_free(q);
}
END_TEST

/* ---- arena --------------------------------------------------------------------------------- */
typedef struct { mcts_arena *a; uint32_t *got; int n; } aarg;

static void *alloc_many(void *arg) {
    aarg *x = arg;
    mcts_arena_cache c = { 0, 0 };
    for (int i = 0; i < x->n; i++) {
        uint32_t k = (i % 3) ? mcts_arena_alloc1(x->a, &c, 8) : mcts_arena_alloc(x->a, 1 + i % 7);
        x->got[i] = k;
        if (k) memset(mcts_arena_at(x->a, k), 0xAB, x->a->elem);
    }
    return NULL;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

START_TEST(arena_concurrent_allocation) {
    mcts_arena a;
    ck_assert_int_eq(mcts_arena_init(&a, 64, 8, 1u << 20), 0);   /* 256-element segments */
    enum { T = 4 };
    int n = 20000 / SCALE;
    aarg x[T];
    pthread_t th[T];
    uint32_t *all = malloc(sizeof(uint32_t) * T * (size_t)n);
    for (int t = 0; t < T; t++) {
        x[t] = (aarg){ &a, all + (size_t)t * n, n };
        pthread_create(&th[t], NULL, alloc_many, &x[t]);
    }
    for (int t = 0; t < T; t++) pthread_join(th[t], NULL);
    qsort(all, (size_t)T * n, sizeof *all, cmp_u32);
    for (long i = 0; i < (long)T * n; i++) {
        ck_assert_uint_ne(all[i], 0);
        if (i) ck_assert_uint_ne(all[i], all[i - 1]);     /* never handed out twice */
    }
    /* runs never straddle segments */
    for (int i = 0; i < 100; i++) {
        uint32_t k = mcts_arena_alloc(&a, 100);
        ck_assert_uint_eq(k >> 8, (k + 99) >> 8);
    }
    ck_assert_uint_eq(mcts_arena_alloc(&a, 257), 0);      /* larger than a segment */
    mcts_arena_reset(&a);
    ck_assert_uint_eq(mcts_arena_alloc(&a, 1), 1);
    mcts_arena_free(&a);
    mcts_arena b;
    ck_assert_int_eq(mcts_arena_init(&b, 8, 4, 40), 0);   /* capacity is enforced */
    int got = 0;
    while (mcts_arena_alloc(&b, 1)) got++;
    ck_assert_int_eq(got, 39);
    mcts_arena_free(&b);
    free(all);
}
END_TEST

/* ---- packed statistics ----------------------------------------------------------------------- */
START_TEST(stats_packing_and_virtual_loss) {
    mcts_node n;
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    mcts_node_init(&n, 0, ZZ_MOVE_NONE, 1, &p, 1, MCTS_EXPANDED, 0);
    ck_assert_uint_eq(mcts_stats_n(mcts_node_load(&n)), 0);
    mcts_node_add_inflight(&n, 3);                          /* vl 3: counted as 3 losses */
    ck_assert_uint_eq(mcts_stats_n(mcts_node_load(&n)), 3);
    ck_assert(fabs(mcts_stats_q(mcts_node_load(&n)) + 1.0) < 1e-9);
    mcts_node_complete(&n, 0.5, 3);                         /* one visit of 0.5 remains */
    ck_assert_uint_eq(mcts_stats_n(mcts_node_load(&n)), 1);
    ck_assert(fabs(mcts_stats_q(mcts_node_load(&n)) - 0.5) < 1e-4);
    mcts_node_add_inflight(&n, 1);
    mcts_node_sub_inflight(&n, 1);                          /* an abandoned descent leaves no trace */
    ck_assert(fabs(mcts_stats_q(mcts_node_load(&n)) - 0.5) < 1e-4);
    for (int i = 0; i < 1000; i++) { mcts_node_add_inflight(&n, 1); mcts_node_complete(&n, i % 2 ? 1.0 : -1.0, 1); }
    ck_assert_uint_eq(mcts_stats_n(mcts_node_load(&n)), 1001);
    ck_assert(fabs(mcts_stats_q(mcts_node_load(&n)) - 0.5 / 1001) < 1e-4);
    mcts_node_add_inflight(&n, 1);
    mcts_node_complete(&n, 7.0, 1);                         /* clamped to 1 */
    ck_assert(mcts_stats_s(mcts_node_load(&n)) <= 2ULL * 1002 * (uint64_t)MCTS_S_UNIT);
}
END_TEST

typedef struct { mcts_node *n; int k; } sarg;
static void *hammer(void *arg) {
    sarg *s = arg;
    for (int i = 0; i < s->k; i++) {
        mcts_node_add_inflight(s->n, 2);
        mcts_node_complete(s->n, (i % 4) == 0 ? 1.0 : 0.0, 2);
    }
    return NULL;
}

START_TEST(stats_concurrent_updates_are_exact) {
    mcts_node n;
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    mcts_node_init(&n, 0, ZZ_MOVE_NONE, 1, &p, 0, MCTS_EXPANDED, 0);
    enum { T = 4 };
    int k = 100000 / SCALE;
    pthread_t th[T];
    sarg a = { &n, k };
    for (int t = 0; t < T; t++) pthread_create(&th[t], NULL, hammer, &a);
    for (int t = 0; t < T; t++) pthread_join(th[t], NULL);
    uint64_t w = mcts_node_load(&n);
    ck_assert_uint_eq(mcts_stats_n(w), (uint32_t)(T * k));
    /* every 4th value is 1 (units 2^15), the rest 0 (units 2^14): the sum is exact */
    uint64_t want = (uint64_t)T * (uint64_t)((k + 3) / 4) * 32768 + (uint64_t)T * (uint64_t)(k - (k + 3) / 4) * 16384;
    ck_assert_uint_eq(mcts_stats_s(w), want);
}
END_TEST

/* ---- tree -------------------------------------------------------------------------------- */
/* Build root -> a -> b by hand at the opening; returns the indices. */
static void small_tree(mcts_tree *t, uint32_t *ia, uint32_t *ib) {
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    mcts_tree_reset(t, &p, false);
    zz_move mv[ZZ_MAX_MOVES];
    zz_gen_moves(&p, mv);
    mcts_arena_cache c = { 0, 0 };
    zz_pos pa = p;
    zz_apply(&pa, mv[5], NULL);
    *ia = mcts_tree_alloc_node(t, &c);                 /* simulation 1 creates a, backs up 0 */
    mcts_node_add_inflight(mcts_tree_root(t), 1);
    mcts_node_init(mcts_tree_node(t, *ia), t->root, mv[5], 0.5f, &pa, p.to_move, MCTS_EXPANDED, 1);
    atomic_store(&mcts_tree_root(t)->nopen, 2);
    ck_assert(mcts_tree_set_child(t, mcts_tree_root(t), 1, *ia, &c));      /* slot 1: slot 0 stays empty */
    ck_assert_ptr_eq(mcts_first_child(t, mcts_tree_root(t)), mcts_tree_node(t, *ia));
    mcts_tree_backup(t, *ia, 0.0, 0, 1);
    zz_move mb[ZZ_MAX_MOVES];
    zz_gen_moves(&pa, mb);
    zz_pos pb = pa;
    zz_apply(&pb, mb[0], NULL);
    *ib = mcts_tree_alloc_node(t, &c);                 /* simulation 2 creates b (in flight) */
    mcts_node_add_inflight(mcts_tree_root(t), 1);
    mcts_node_add_inflight(mcts_tree_node(t, *ia), 1);
    mcts_node_init(mcts_tree_node(t, *ib), *ia, mb[0], 0.5f, &pb, pa.to_move, MCTS_EXPANDED, 1);
    atomic_store(&mcts_tree_node(t, *ia)->nopen, 1);
    ck_assert(mcts_tree_set_child(t, mcts_tree_node(t, *ia), 0, *ib, &c));
}

START_TEST(tree_backup_signs) {
    mcts_tree t;
    ck_assert_int_eq(mcts_tree_init(&t, 1000, 1000), 0);
    uint32_t ia, ib;
    small_tree(&t, &ia, &ib);
    /* b's mover is player 1, a's is player 0; a value of +1 for player 1 */
    mcts_tree_backup(&t, ib, 1.0, 1, 1);
    ck_assert(fabs(mcts_stats_q(mcts_node_load(mcts_tree_node(&t, ib))) - 1.0) < 1e-6);
    ck_assert(fabs(mcts_stats_q(mcts_node_load(mcts_tree_node(&t, ia))) + 0.5) < 1e-4);  /* (0 - 1) / 2 */
    ck_assert_int_eq(mcts_tree_root(&t)->player, 0);       /* the root is seen from its mover */
    ck_assert(fabs(mcts_stats_q(mcts_node_load(mcts_tree_root(&t))) + 0.5) < 1e-4);
    { const char *e = mcts_tree_check(&t); ck_assert_msg(e == NULL, "%s", e); }
    ck_assert_uint_eq(mcts_tree_size(&t), 3);
    mcts_tree_free(&t);
}
END_TEST

START_TEST(tree_advance_keeps_subtree) {
    mcts_tree t;
    ck_assert_int_eq(mcts_tree_init(&t, 1000, 1000), 0);
    uint32_t ia, ib;
    small_tree(&t, &ia, &ib);
    mcts_tree_backup(&t, ib, 0.25, 0, 1);
    zz_move ma = mcts_tree_node(&t, ia)->move, mb = mcts_tree_node(&t, ib)->move;
    zz_pos want = t.root_pos;
    zz_apply(&want, ma, NULL);
    ck_assert(mcts_tree_advance(&t, ma, false));
    ck_assert(zz_pos_equal(&t.root_pos, &want));
    ck_assert_uint_eq(mcts_tree_size(&t), 2);
    ck_assert_uint_eq(mcts_stats_n(mcts_node_load(mcts_tree_root(&t))), 2);
    ck_assert_uint_eq(mcts_tree_root(&t)->parent, 0);
    mcts_node *child = mcts_first_child(&t, mcts_tree_root(&t));
    ck_assert_ptr_nonnull(child);
    ck_assert_uint_eq(child->move, mb);
    { const char *e = mcts_tree_check(&t); ck_assert_msg(e == NULL, "%s", e); }
    /* a move without a subtree starts afresh */
    zz_move other[ZZ_MAX_MOVES];
    int n = zz_gen_moves(&t.root_pos, other);
    zz_move m = other[0] == mb ? other[n - 1] : other[0];
    ck_assert(!mcts_tree_advance(&t, m, false));
    ck_assert_uint_eq(mcts_tree_size(&t), 1);
    ck_assert_uint_eq(mcts_stats_n(mcts_node_load(mcts_tree_root(&t))), 0);
    mcts_tree_free(&t);
}
END_TEST

START_TEST(tree_slots_across_blocks) {
    mcts_tree t;
    ck_assert_int_eq(mcts_tree_init(&t, 10000, 1000), 0);
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    mcts_tree_reset(&t, &p, false);
    mcts_arena_cache c = { 0, 0 };
    uint32_t want[100];
    int order[100];
    for (int k = 0; k < 100; k++) order[k] = (k * 37) % 100;   /* publish out of order */
    for (int i = 0; i < 100; i++) {
        int k = order[i];
        want[k] = mcts_tree_alloc_node(&t, &c);
        mcts_node_init(mcts_tree_node(&t, want[k]), t.root, (zz_move)(k + 1), 0, &p, 0, MCTS_EXPANDED, 0);
        ck_assert(mcts_tree_set_child(&t, mcts_tree_root(&t), (uint32_t)k, want[k], &c));
    }
    int k = 0;
    MCTS_FOR_EACH_CHILD_I(&t, mcts_tree_root(&t), ci, ch) {    /* slot order, across 7 blocks */
        ck_assert_uint_eq(ci, want[k]);
        ck_assert_uint_eq(ch->move, (zz_move)(k + 1));
        k++;
    }
    ck_assert_int_eq(k, 100);
    k = 0;
    MCTS_FOR_EACH_CHILD(&t, mcts_tree_root(&t), ch) {    /* break and continue behave */
        if (ch->move % 2) continue;
        if (++k == 30) break;
    }
    ck_assert_int_eq(k, 30);
    int seen = 0;
    MCTS_FOR_EACH_CHILD(&t, mcts_tree_root(&t), ch) { (void)ch; seen++; }
    ck_assert_int_eq(seen, 100);
    mcts_tree_free(&t);
}
END_TEST

START_TEST(order_is_a_bijection) {
    for (uint32_t n = 1; n < 3000; n += n / 3 + 1)
        for (uint32_t seed = 1; seed < 4; seed++) {
            unsigned char *seen = calloc(n, 1);
            for (uint32_t i = 0; i < n; i++) {
                uint32_t j = mcts_perm(i, n, seed);
                ck_assert_uint_lt(j, n);
                ck_assert(!seen[j]);
                seen[j] = 1;
            }
            free(seen);
        }
    ck_assert_uint_ne(mcts_perm(0, 1000, 1), mcts_perm(0, 1000, 2));
    /* mcts_move_at numbers exactly the legal moves, on positions along random games */
    static zz_move list[ZZ_MAX_MOVES], got[ZZ_MAX_MOVES], scratch[6 * 61];
    uint64_t rng = 5;
    int checked = 0;
    for (int g = 0; g < 30 / SCALE + 3; g++) {
        zz_pos p;
        zz_pos_init(&p, (zz_board_kind)(g % 3));
        while (!zz_over(&p)) {
            int n = zz_gen_moves(&p, list);
            ck_assert_int_eq(n, zz_count_moves(&p));
            for (int i = 0; i < n; i++) got[i] = mcts_move_at(&p, (uint32_t)i, scratch);
            qsort(got, (size_t)n, sizeof *got, cmp_u32);        /* the same set as zz_gen_moves */
            qsort(list, (size_t)n, sizeof *list, cmp_u32);
            ck_assert(memcmp(got, list, (size_t)n * sizeof *got) == 0);
            checked++;
            zz_apply(&p, zz_random_move(&p, &rng), NULL);
        }
    }
    ck_assert_int_gt(checked, 100);
}
END_TEST

/* ---- batcher --------------------------------------------------------------------------------- */
static int value_from_ply(mcts_evaluator *self, mcts_eval_item *items, int n, char *err, size_t errlen) {
    _Atomic int *calls = self->ctx;
    atomic_fetch_add(calls, 1);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < items[i].nmoves; j++) items[i].priors[j] = 1.0f / (float)items[i].nmoves;
        items[i].value = (float)(items[i].pos->ply % 100) / 100.0f;
    }
    return 0;
}

typedef struct { mcts_batcher *b; int k, id, ok; } barg;
static void *submitter(void *arg) {
    barg *a = arg;
    static _Thread_local zz_move moves[ZZ_MAX_MOVES];
    static _Thread_local float priors[ZZ_MAX_MOVES];
    mcts_request r;
    memset(&r, 0, sizeof r);
    a->ok = 1;
    for (int i = 0; i < a->k; i++) {
        zz_pos_init(&r.pos, ZZ_B37);
        r.pos.ply = (uint16_t)((i * 7 + a->id) % 100);
        r.item.moves = moves;
        r.item.priors = priors;
        r.item.nmoves = zz_gen_moves(&r.pos, moves);
        while (!mcts_batcher_submit(a->b, &r)) sched_yield();
        while (mcts_request_state(&r) == MCTS_REQ_QUEUED) sched_yield();
        if (mcts_request_state(&r) != MCTS_REQ_DONE || fabsf(r.item.value - (float)r.pos.ply / 100.0f) > 1e-6f ||
            fabsf(priors[0] - 1.0f / (float)r.item.nmoves) > 1e-7f)
            a->ok = 0;
    }
    return NULL;
}

static void *serve_thread(void *arg) {
    mcts_batcher_run(arg);
    return NULL;
}

START_TEST(batcher_serves_concurrent_submitters) {
    _Atomic int calls = 0;
    mcts_evaluator ev = { .name = "ply", .evaluate = value_from_ply, .ctx = &calls, .max_batch = 3 };
    mcts_batcher b;
    ck_assert_int_eq(mcts_batcher_init(&b, &ev, 8, 64), 0);
    pthread_t server, th[4];
    pthread_create(&server, NULL, serve_thread, &b);
    barg a[4];
    for (int i = 0; i < 4; i++) {
        a[i] = (barg){ &b, 300 / SCALE, i, 0 };
        pthread_create(&th[i], NULL, submitter, &a[i]);
    }
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    atomic_store(&b.stop, 1);
    pthread_join(server, NULL);
    for (int i = 0; i < 4; i++) ck_assert(a[i].ok);
    ck_assert_uint_eq(b.evals, 4 * (300 / SCALE));
    ck_assert(b.batches <= b.evals);
    ck_assert(atomic_load(&calls) >= (int)b.batches);       /* max_batch 3 splits batches of 4 */
    mcts_batcher_free(&b);
}
END_TEST

/* ---- random numbers ------------------------------------------------------------------------ */
START_TEST(dirichlet_is_a_distribution) {
    uint64_t rng = 7;
    double out[2000], mean0 = 0;
    for (int rep = 0; rep < 200; rep++) {
        ck_assert_int_eq(mcts_dirichlet(10.0 / 2000, 2000, out, &rng), 0);   /* tiny alpha */
        double sum = 0;
        for (int i = 0; i < 2000; i++) { ck_assert(out[i] >= 0 && isfinite(out[i])); sum += out[i]; }
        ck_assert(fabs(sum - 1) < 1e-9);
    }
    for (int rep = 0; rep < 2000; rep++) {   /* symmetric Dirichlet: each mean is 1/n */
        mcts_dirichlet(0.3, 4, out, &rng);
        mean0 += out[0];
    }
    ck_assert(fabs(mean0 / 2000 - 0.25) < 0.03);
    ck_assert_int_eq(mcts_dirichlet(1, 0, out, &rng), -1);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("mcts_tree");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, queue_fifo_and_bounds);
    tcase_add_test(t, queue_contention);
    tcase_add_test(t, arena_concurrent_allocation);
    tcase_add_test(t, stats_packing_and_virtual_loss);
    tcase_add_test(t, stats_concurrent_updates_are_exact);
    tcase_add_test(t, tree_backup_signs);
    tcase_add_test(t, tree_advance_keeps_subtree);
    tcase_add_test(t, tree_slots_across_blocks);
    tcase_add_test(t, order_is_a_bijection);
    tcase_add_test(t, batcher_serves_concurrent_submitters);
    tcase_add_test(t, dirichlet_is_a_distribution);
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    return th_run(suite());
}
