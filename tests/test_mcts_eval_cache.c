/* test_mcts_eval_cache.c — the network's answers kept by position (mcts/eval_cache.h): the table
 * itself (a stored position and only it is found; a slot keeps the last position put there), the
 * network evaluator with and without it (the same priors and values, bit for bit, duplicates in a
 * batch included), a PUCT search with and without it (the same tree, move for move, and the cache
 * did answer), and the agent's cache= option. */
#include "helpers.h"
#include "mcts/agent.h"
#include "mcts/eval_cache.h"
#include "mcts/evaluator.h"
#include "mcts/puct.h"
#include "nn/model.h"
#include <check.h>
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
    float logits[7] = { 1, -2, 3.5f, 0, 1e-7f, -1e9f, 42 }, v;
    ck_assert_ptr_null(mcts_eval_cache_get(c, &p, &v));
    mcts_eval_cache_put(c, &p, logits, -0.25f);
    const float *got = mcts_eval_cache_get(c, &p, &v);
    ck_assert_ptr_nonnull(got);
    ck_assert(memcmp(got, logits, sizeof logits) == 0);
    ck_assert(v == -0.25f);
    zz_pos other = p;                                     /* the same stones, the other player to move */
    other.to_move ^= 1;
    ck_assert_ptr_null(mcts_eval_cache_get(c, &other, &v));
    zz_pos moved_on = p;                                  /* what the network does not see: same answer */
    moved_on.ply += 3;
    ck_assert_ptr_nonnull(mcts_eval_cache_get(c, &moved_on, &v));
    zz_pos rival = same_slot(&p, 4, &rng);                /* a put replaces the slot's position */
    ck_assert_ptr_null(mcts_eval_cache_get(c, &rival, &v));
    mcts_eval_cache_put(c, &rival, logits, 0.5f);
    ck_assert_ptr_null(mcts_eval_cache_get(c, &p, &v));
    ck_assert_ptr_nonnull(mcts_eval_cache_get(c, &rival, &v));
    ck_assert(v == 0.5f);
    mcts_eval_cache_clear(c);
    ck_assert_ptr_null(mcts_eval_cache_get(c, &rival, &v));
    mcts_eval_cache_stats st = mcts_eval_cache_get_stats(c);
    ck_assert_uint_eq(st.lookups, 8);
    ck_assert_uint_eq(st.hits, 3);
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
    for (int i = 0; i < NITEMS; i++) pos[i] = i % 5 == 4 ? pos[i / 2] : th_random_position(ZZ_B37, 2 + i % 9, &rng);
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
    ck_assert_uint_ge(st.hits, NITEMS);                   /* the second round, at least (slots may clash) */
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
    tcase_add_test(t, network_answers_the_same_from_its_cache);
    tcase_add_test(t, search_with_the_cache_is_the_same_search);
    tcase_add_test(t, agent_cache_option);
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    seed0 = th_seed();
    return th_run(suite());
}
