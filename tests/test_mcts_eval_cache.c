/* test_mcts_eval_cache.c — the network's answers kept by position (mcts/eval_cache.h): the table
 * itself (a stored position and only it is found; a slot keeps the last position put there; a
 * holder finds only its own tag's answers), the
 * table under two threads (a get returns a whole put or nothing), the network evaluator with and
 * without it (the same priors and values, bit for bit, duplicates in a batch included), an
 * evaluator and its copy sharing one table (one's answers found by the other, alone and from two
 * threads at once, the answers unchanged; another precision leaves the shared table), a PUCT
 * search with and without it (the same tree, move for move, and the cache did answer), and the
 * agent's cache= option. */
#include "helpers.h"
#include "mcts/agent.h"
#include "mcts/eval_cache.h"
#include "mcts/evaluator.h"
#include "mcts/puct.h"
#include "nn/model.h"
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static uint64_t seed0;

/* A position other than p in the same slot of a table of `entries` slots. */
static zz_pos same_slot(const zz_pos *p, size_t entries, uint64_t *rng) {
    for (;;) {
        zz_pos q = th_random_position(ZZ_B37, 1 + (int)(th_urand(rng) * 12), rng);
        if (!zz_pos_equal(&q, p) && (zz_hash(&q) & (entries - 1)) == (zz_hash(p) & (entries - 1))) return q;
    }
}

START_TEST(cache_finds_what_was_put) {
    uint64_t rng = seed0;
    ck_assert_ptr_null(mcts_eval_cache_new(0, 8));
    ck_assert_ptr_null(mcts_eval_cache_new((size_t)MCTS_EVAL_CACHE_MAX + 1, 8));
    ck_assert_ptr_null(mcts_eval_cache_new(4, 0));
    mcts_eval_cache *c = mcts_eval_cache_new(5, 7);       /* 5 rounds down to 4 slots */
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq(mcts_eval_cache_entries(c), 4);
    ck_assert_uint_eq(mcts_eval_cache_per(c), 7);
    ck_assert_uint_eq(mcts_eval_cache_slots_for(1), 1);
    ck_assert_uint_eq(mcts_eval_cache_slots_for(5), 4);
    ck_assert_uint_eq(mcts_eval_cache_slots_for(16384), 16384);
    ck_assert_uint_eq(mcts_eval_cache_slots_for(16385), 16384);
    zz_pos p = th_random_position(ZZ_B37, 5, &rng);
    float logits[7] = { 1, -2, 3.5f, 0, 1e-7f, -1e9f, 42 }, got[7], v;
    ck_assert(!mcts_eval_cache_get(c, &p, got, &v));
    mcts_eval_cache_put(c, &p, logits, -0.25f);
    ck_assert(mcts_eval_cache_get(c, &p, got, &v));
    ck_assert(memcmp(got, logits, sizeof logits) == 0);
    ck_assert(v == -0.25f);
    zz_pos other = p;                                     /* the same stones, the other player to move */
    other.to_move ^= 1;
    ck_assert(!mcts_eval_cache_get(c, &other, got, &v));
    zz_pos moved_on = p;                                  /* what the network does not see: same answer */
    moved_on.ply += 3;
    ck_assert(mcts_eval_cache_get(c, &moved_on, got, &v));
    zz_pos rival = same_slot(&p, 4, &rng);                /* a put replaces the slot's position */
    ck_assert(!mcts_eval_cache_get(c, &rival, got, &v));
    mcts_eval_cache_put(c, &rival, logits, 0.5f);
    ck_assert(!mcts_eval_cache_get(c, &p, got, &v));
    ck_assert(mcts_eval_cache_get(c, &rival, got, &v));
    ck_assert(v == 0.5f);
    mcts_eval_cache_clear(c);
    ck_assert(!mcts_eval_cache_get(c, &rival, got, &v));
    mcts_eval_cache_stats st = mcts_eval_cache_get_stats(c);
    ck_assert_uint_eq(st.lookups, 8);
    ck_assert_uint_eq(st.hits, 3);
    mcts_eval_cache_free(c);
}
END_TEST

/* Tags: a holder finds only what was put under its own tag; a second holder starts with the first
 * one's tag, and the counts are the table's. */
START_TEST(cache_keeps_tags_apart) {
    uint64_t rng = seed0 ^ 0x7a6;
    mcts_eval_cache *c = mcts_eval_cache_new(64, 3);
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq(mcts_eval_cache_tag(c), 0);
    zz_pos p = th_random_position(ZZ_B37, 6, &rng);
    float a[3] = { 1, 2, 3 }, b[3] = { -1, -2, -3 }, got[3], v;
    mcts_eval_cache_set_tag(c, 7);
    mcts_eval_cache_put(c, &p, a, 0.5f);
    mcts_eval_cache *k = mcts_eval_cache_share(c);
    ck_assert_ptr_nonnull(k);
    ck_assert_uint_eq(mcts_eval_cache_tag(k), 7);
    ck_assert(mcts_eval_cache_get(k, &p, got, &v) && v == 0.5f && !memcmp(got, a, sizeof a));
    mcts_eval_cache_set_tag(k, 8);                        /* other weights: not their answer */
    ck_assert(!mcts_eval_cache_get(k, &p, got, &v));
    mcts_eval_cache_put(k, &p, b, -0.5f);                 /* takes the position's slot */
    ck_assert(!mcts_eval_cache_get(c, &p, got, &v));
    ck_assert(mcts_eval_cache_get(k, &p, got, &v) && v == -0.5f && !memcmp(got, b, sizeof b));
    mcts_eval_cache_stats st = mcts_eval_cache_get_stats(c);
    ck_assert_uint_eq(st.lookups, 4);
    ck_assert_uint_eq(st.hits, 2);
    mcts_eval_cache_free(c);                              /* k keeps the table */
    ck_assert(mcts_eval_cache_get(k, &p, got, &v));
    mcts_eval_cache_free(k);
}
END_TEST

/* ---- the table under two threads ---------------------------------------------------------- */

enum { HAMMER_POSITIONS = 64, HAMMER_PER = 1201, HAMMER_SLOTS = 4, HAMMER_OPS = 400000 };

typedef struct {
    mcts_eval_cache *cache;
    const zz_pos *pos;         /* [HAMMER_POSITIONS] */
    uint64_t rng;
    long hits, torn;           /* out: answers found; answers not wholly their position's */
} hammer_job;

/* The outputs a position is stored with: every float tells the position's hash. */
static float hammer_logit(uint64_t hash, int j) { return (float)((hash >> (j % 40)) & 0xffff) + (float)j; }

static void *hammer(void *arg) {
    hammer_job *h = arg;
    float out[HAMMER_PER], got[HAMMER_PER], v;
    for (int op = 0; op < HAMMER_OPS; op++) {
        const zz_pos *p = &h->pos[(int)(th_urand(&h->rng) * HAMMER_POSITIONS)];
        uint64_t hash = zz_hash(p);
        if (op % 2) {
            for (int j = 0; j < HAMMER_PER; j++) out[j] = hammer_logit(hash, j);
            mcts_eval_cache_put(h->cache, p, out, hammer_logit(hash, 7));
        } else if (mcts_eval_cache_get(h->cache, p, got, &v)) {
            h->hits++;
            int whole = v == hammer_logit(hash, 7);
            for (int j = 0; j < HAMMER_PER && whole; j++) whole = got[j] == hammer_logit(hash, j);
            h->torn += !whole;
        }
    }
    return NULL;
}

/* Two threads put and get many positions over a few slots at once: every answer found is the
 * whole of its position's put; the counters count both threads; the second holder frees nothing. */
START_TEST(shared_table_under_two_threads) {
    uint64_t rng = seed0 ^ 0x7ab1e;
    static zz_pos pos[HAMMER_POSITIONS];
    for (int i = 0; i < HAMMER_POSITIONS; i++) pos[i] = th_random_position(ZZ_B61, 1 + i % 20, &rng);
    mcts_eval_cache *c = mcts_eval_cache_new(HAMMER_SLOTS, HAMMER_PER);
    ck_assert_ptr_nonnull(c);
    ck_assert(!mcts_eval_cache_shared(c));
    mcts_eval_cache *c2 = mcts_eval_cache_share(c);       /* a holder of its own, on the same table */
    ck_assert_ptr_nonnull(c2);
    ck_assert(mcts_eval_cache_shared(c) && mcts_eval_cache_shared(c2));
    hammer_job jobs[2] = { { .cache = c, .pos = pos, .rng = rng ^ 1 }, { .cache = c2, .pos = pos, .rng = rng ^ 2 } };
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, hammer, &jobs[1]), 0);
    hammer(&jobs[0]);
    pthread_join(t, NULL);
    ck_assert_msg(jobs[0].torn + jobs[1].torn == 0, "%ld and %ld answers of %ld and %ld were not their position's",
                  jobs[0].torn, jobs[1].torn, jobs[0].hits, jobs[1].hits);
    ck_assert_msg(jobs[0].hits > 100 && jobs[1].hits > 100, "too few answers to tell: %ld, %ld", jobs[0].hits, jobs[1].hits);
    mcts_eval_cache_stats st = mcts_eval_cache_get_stats(c);
    ck_assert_uint_eq(st.lookups, HAMMER_OPS);            /* half of each thread's operations */
    ck_assert_uint_eq(st.hits, (uint64_t)(jobs[0].hits + jobs[1].hits));
    mcts_eval_cache_free(c2);                             /* one holder left: the table stays */
    ck_assert(!mcts_eval_cache_shared(c));
    float got[HAMMER_PER], v;
    int found = 0;
    for (int i = 0; i < HAMMER_POSITIONS; i++) found += mcts_eval_cache_get(c, &pos[i], got, &v);
    ck_assert_int_gt(found, 0);
    mcts_eval_cache_free(c);
}
END_TEST

enum { NITEMS = 24 };

/* Evaluate n positions (their legal moves generated here); priors[i] holds ZZ_MAX_MOVES floats. */
static void evaluate_all(mcts_evaluator *e, const zz_pos *pos, int n, zz_move (*moves)[ZZ_MAX_MOVES],
                         float (*priors)[ZZ_MAX_MOVES], float *values) {
    mcts_eval_item items[NITEMS];
    char err[256];
    for (int i = 0; i < n; i++) {
        items[i] = (mcts_eval_item){ .pos = &pos[i], .moves = moves[i], .priors = priors[i] };
        items[i].nmoves = zz_gen_moves(&pos[i], moves[i]);
    }
    ck_assert_msg(mcts_evaluate(e, items, n, err, sizeof err) == 0, "%s", err);
    for (int i = 0; i < n; i++) values[i] = items[i].value;
}

/* NITEMS positions, every fifth a repeat of an earlier one, the others random and of slots of
 * their own in the default table: the table is direct-mapped, so two positions sharing a slot
 * would evict each other's answers (with ~20 random positions, about one run in a hundred). */
static void draw_unclashing(zz_pos *pos, uint64_t *rng) {
    size_t mask = mcts_eval_cache_slots_for(MCTS_EVAL_CACHE_DEFAULT) - 1;
    for (int i = 0; i < NITEMS; i++) {
        if (i % 5 == 4) { pos[i] = pos[i / 2]; continue; }
        bool clash;
        do {
            pos[i] = th_random_position(ZZ_B37, 2 + i % 9, rng);
            clash = false;
            for (int j = 0; j < i; j++)
                clash |= !zz_pos_equal(&pos[j], &pos[i]) && (zz_hash(&pos[j]) & mask) == (zz_hash(&pos[i]) & mask);
        } while (clash);
    }
}

/* The shipped 37-ring network with and without its cache: the same answers, bit for bit, for a
 * batch that repeats positions, and again when every answer comes from the cache. */
START_TEST(network_answers_the_same_from_its_cache) {
    uint64_t rng = seed0 ^ 0xcace;
    char err[256];
    mcts_evaluator *plain = mcts_eval_nn_new("weights/zertz37.ckpt", err, sizeof err);
    mcts_evaluator *cached = mcts_eval_nn_new("weights/zertz37.ckpt", err, sizeof err);
    ck_assert_msg(plain && cached, "%s", err);
    ck_assert_int_eq(mcts_eval_nn_set_cache(plain, 0, err, sizeof err), 0);
    ck_assert_uint_eq(mcts_eval_nn_cache_stats(cached).lookups, 0);
    static zz_pos pos[NITEMS];
    static zz_move moves[NITEMS][ZZ_MAX_MOVES];
    static float pa[NITEMS][ZZ_MAX_MOVES], pb[NITEMS][ZZ_MAX_MOVES];
    float va[NITEMS], vb[NITEMS];
    draw_unclashing(pos, &rng);
    evaluate_all(plain, pos, NITEMS, moves, pa, va);
    for (int round = 0; round < 2; round++) {
        memset(pb, 0, sizeof pb);
        evaluate_all(cached, pos, NITEMS, moves, pb, vb);
        for (int i = 0; i < NITEMS; i++) {
            int n = zz_gen_moves(&pos[i], moves[i]);
            ck_assert_msg(va[i] == vb[i], "round %d, item %d: value %g against %g", round, i, vb[i], va[i]);
            ck_assert_msg(!memcmp(pa[i], pb[i], (size_t)n * sizeof(float)), "round %d, item %d: priors differ", round, i);
        }
    }
    mcts_eval_cache_stats st = mcts_eval_nn_cache_stats(cached);
    ck_assert_uint_eq(st.lookups, 2 * NITEMS);
    ck_assert_uint_ge(st.hits, NITEMS);                   /* the second round, at least */
    ck_assert_uint_eq(mcts_eval_nn_cache_stats(plain).lookups, 0);
    /* asked again for the size it has (16,385 rounds down to it): the table and its answers stay */
    ck_assert_int_eq(mcts_eval_nn_set_cache(cached, MCTS_EVAL_CACHE_DEFAULT + 1, err, sizeof err), 0);
    evaluate_all(cached, pos, NITEMS, moves, pb, vb);
    ck_assert_uint_ge(mcts_eval_nn_cache_stats(cached).hits, st.hits + NITEMS / 2);
    ck_assert_int_ne(mcts_eval_nn_set_cache(cached, (size_t)MCTS_EVAL_CACHE_MAX + 1, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "at most"), "%s", err);
    mcts_evaluator *u = mcts_eval_uniform_new();
    ck_assert_int_ne(mcts_eval_nn_set_cache(u, 16, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "CPU network"), "%s", err);
    mcts_evaluator_free(u), mcts_evaluator_free(plain), mcts_evaluator_free(cached);
}
END_TEST

/* ---- an evaluator and its copies share one table ------------------------------------------ */

enum { POOL = 6, SHARE_ROUNDS = 400 };

typedef struct {
    mcts_evaluator *ev;
    const zz_pos *pool;                           /* [POOL] */
    const float (*priors)[ZZ_MAX_MOVES];          /* [POOL]: the network's answers without a cache */
    const float *values;                          /* [POOL] */
    uint64_t rng;
    int wrong;                                    /* out: items answered otherwise */
    char err[256];
} share_job;

/* SHARE_ROUNDS batches of NITEMS positions drawn from the pool (repeats included), each item's
 * answer compared with the pool's, bit for bit. */
static void *evaluate_pool(void *arg) {
    share_job *j = arg;
    static _Thread_local zz_pos pos[NITEMS];
    static _Thread_local zz_move moves[NITEMS][ZZ_MAX_MOVES];
    static _Thread_local float priors[NITEMS][ZZ_MAX_MOVES];
    int which[NITEMS];
    mcts_eval_item items[NITEMS];
    for (int r = 0; r < SHARE_ROUNDS && !j->err[0]; r++) {
        for (int i = 0; i < NITEMS; i++) {
            which[i] = (int)(th_urand(&j->rng) * POOL);
            pos[i] = j->pool[which[i]];
            items[i] = (mcts_eval_item){ .pos = &pos[i], .moves = moves[i], .priors = priors[i], .value = -9 };
            items[i].nmoves = zz_gen_moves(&pos[i], moves[i]);
            memset(priors[i], 0xff, sizeof priors[i]);    /* an item left unanswered shows */
        }
        if (mcts_evaluate(j->ev, items, NITEMS, j->err, sizeof j->err) != 0) break;
        for (int i = 0; i < NITEMS; i++)
            j->wrong += items[i].value != j->values[which[i]] ||
                        memcmp(priors[i], j->priors[which[i]], (size_t)items[i].nmoves * sizeof(float)) != 0;
    }
    return NULL;
}

/* A copy of a network evaluator (a search thread's: puct.h) keeps its answers in the original's
 * table: what the copy evaluated is a hit for the original.  Both evaluating at once over a
 * small shared table give the network's answers, bit for bit.  Set to another precision, the
 * original leaves the table: its copy's answers are no longer its own. */
START_TEST(copies_share_the_table) {
    uint64_t rng = seed0 ^ 0xc0b1e5;
    char err[256];
    mcts_evaluator *plain = mcts_eval_nn_new("weights/zertz37.ckpt", err, sizeof err);
    mcts_evaluator *ev = mcts_eval_nn_new("weights/zertz37.ckpt", err, sizeof err);
    ck_assert_msg(plain && ev, "%s", err);
    ck_assert_int_eq(mcts_eval_nn_set_cache(plain, 0, err, sizeof err), 0);
    ck_assert_int_eq(mcts_eval_nn_set_cache(ev, 2, err, sizeof err), 0);   /* slots clash often */
    mcts_evaluator *copy = mcts_evaluator_clone(ev, err, sizeof err);
    ck_assert_msg(copy, "%s", err);
    static zz_pos pool[POOL];
    static zz_move moves[POOL][ZZ_MAX_MOVES];
    static float pa[POOL][ZZ_MAX_MOVES], pb[POOL][ZZ_MAX_MOVES];
    float va[POOL], vb[POOL];
    for (int i = 0; i < POOL; i++) pool[i] = th_random_position(ZZ_B37, 2 + i % 11, &rng);
    evaluate_all(plain, pool, 1, moves, pa, va);          /* one position: the copy, then the original */
    evaluate_all(copy, pool, 1, moves, pb, vb);
    ck_assert_uint_eq(mcts_eval_nn_cache_stats(ev).hits, 0);
    evaluate_all(ev, pool, 1, moves, pb, vb);
    ck_assert_msg(mcts_eval_nn_cache_stats(ev).hits == 1, "the original did not find its copy's answer");
    ck_assert(va[0] == vb[0] && !memcmp(pa[0], pb[0], (size_t)zz_gen_moves(&pool[0], moves[0]) * sizeof(float)));
    evaluate_all(plain, pool, POOL, moves, pa, va);
    share_job jobs[2] = { { .ev = ev, .pool = pool, .priors = (const float (*)[ZZ_MAX_MOVES])pa, .values = va, .rng = rng ^ 1 },
                          { .ev = copy, .pool = pool, .priors = (const float (*)[ZZ_MAX_MOVES])pa, .values = va, .rng = rng ^ 2 } };
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, evaluate_pool, &jobs[1]), 0);
    evaluate_pool(&jobs[0]);
    pthread_join(t, NULL);
    ck_assert_msg(!jobs[0].err[0] && !jobs[1].err[0], "%s%s", jobs[0].err, jobs[1].err);
    ck_assert_msg(jobs[0].wrong + jobs[1].wrong == 0, "%d and %d items answered otherwise than the network",
                  jobs[0].wrong, jobs[1].wrong);
    mcts_eval_cache_stats st = mcts_eval_nn_cache_stats(ev);
    ck_assert_uint_eq(st.lookups, 2 + 2 * SHARE_ROUNDS * NITEMS);   /* the copy's lookups counted too */
    ck_assert_uint_gt(st.hits, 1);
    ck_assert_int_eq(mcts_eval_nn_set_precision(ev, "f32", err, sizeof err), 0);
    evaluate_all(copy, pool, 1, moves, pb, vb);           /* the copy keeps the old table ... */
    mcts_eval_cache_stats mine = mcts_eval_nn_cache_stats(ev), theirs = mcts_eval_nn_cache_stats(copy);
    ck_assert_uint_eq(mine.lookups, 0);                   /* ... and the original has a new one */
    ck_assert_uint_eq(theirs.lookups, st.lookups + 1);
    evaluate_all(ev, pool, 1, moves, pb, vb);
    ck_assert_uint_eq(mcts_eval_nn_cache_stats(ev).hits, 0);
    mcts_evaluator_free(copy), mcts_evaluator_free(ev), mcts_evaluator_free(plain);
}
END_TEST

/* The root's children as (move, visits, value sum) in slot order. */
static int root_children(const mcts_puct *s, uint64_t *out, int cap) {
    const mcts_tree *t = mcts_puct_tree(s);
    int n = 0;
    MCTS_FOR_EACH_CHILD(t, mcts_tree_root(t), c) {
        if (n + 2 > cap) break;
        out[n++] = c->move;
        out[n++] = mcts_node_load(c);
    }
    return n;
}

/* One game of PUCT with the network, once with its cache and once without: the same root
 * statistics after every search and the same moves; and the cache answered part of it. */
START_TEST(search_with_the_cache_is_the_same_search) {
    uint64_t rng = seed0 ^ 0x5ea;
    char err[256];
    mcts_evaluator *ev[2] = { mcts_eval_nn_new("weights/zertz37.ckpt", err, sizeof err),
                              mcts_eval_nn_new("weights/zertz37.ckpt", err, sizeof err) };
    ck_assert_msg(ev[0] && ev[1], "%s", err);
    ck_assert_int_eq(mcts_eval_nn_set_cache(ev[0], 0, err, sizeof err), 0);
    mcts_puct_config cfg;
    mcts_puct_config_default(&cfg);
    cfg.seed = rng | 1;
    mcts_puct *s[2] = { mcts_puct_new(&cfg, ev[0], err, sizeof err), mcts_puct_new(&cfg, ev[1], err, sizeof err) };
    ck_assert_msg(s[0] && s[1], "%s", err);
    zz_pos p = th_random_position(ZZ_B37, 4, &rng);
    for (int k = 0; k < 2; k++) mcts_puct_set_root(s[k], &p);
    static uint64_t stats[2][4096];
    for (int move = 0; move < 12 && !zz_over(&p); move++) {
        zz_move m[2];
        int n[2];
        for (int k = 0; k < 2; k++) {
            mcts_search_stats st;
            ck_assert_msg(mcts_puct_search(s[k], 300, 0, false, &st, err, sizeof err) == 0, "%s", err);
            n[k] = root_children(s[k], stats[k], 4096);
            m[k] = mcts_puct_pick(s[k], 0);
        }
        ck_assert_int_eq(n[0], n[1]);
        ck_assert_msg(!memcmp(stats[0], stats[1], (size_t)n[0] * sizeof(uint64_t)), "move %d: the root differs", move);
        ck_assert_int_eq(m[0], m[1]);
        zz_apply(&p, m[0], NULL);
        for (int k = 0; k < 2; k++) mcts_puct_advance(s[k], m[0]);
    }
    mcts_eval_cache_stats st = mcts_eval_nn_cache_stats(ev[1]);
    ck_assert_msg(st.hits > 0, "the cache never answered (%llu lookups)", (unsigned long long)st.lookups);
    for (int k = 0; k < 2; k++) mcts_puct_free(s[k]), mcts_evaluator_free(ev[k]);
}
END_TEST

START_TEST(agent_cache_option) {
    char err[256];
    ck_assert_msg(mcts_agent_check_spec("puct:weights/zertz37.ckpt:10,cache=0", err, sizeof err) == 0, "%s", err);
    ck_assert_msg(mcts_agent_check_spec("puct:weights/zertz37.ckpt:10,cache=4194304", err, sizeof err) == 0, "%s", err);
    ck_assert_int_ne(mcts_agent_check_spec("puct:weights/zertz37.ckpt:10,cache=4194305", err, sizeof err), 0);
    ck_assert_msg(strstr(err, "cache"), "%s", err);
    ck_assert_int_ne(mcts_agent_check_spec("uct:10,cache=16", err, sizeof err), 0);
    th_agent_plays("puct:weights/zertz37.ckpt:50,cache=64", ZZ_B37, 4, 7);   /* with and without the */
    th_agent_plays("puct:weights/zertz37.ckpt:50,cache=0", ZZ_B37, 4, 7);    /* cache: both play */
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("mcts_eval_cache");
    TCase *t = tcase_create("eval_cache");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, cache_finds_what_was_put);
    tcase_add_test(t, cache_keeps_tags_apart);
    tcase_add_test(t, shared_table_under_two_threads);
    tcase_add_test(t, network_answers_the_same_from_its_cache);
    tcase_add_test(t, copies_share_the_table);
    tcase_add_test(t, search_with_the_cache_is_the_same_search);
    tcase_add_test(t, agent_cache_option);
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    seed0 = th_seed();
    return th_run(suite());
}
