/* test_mcts_uct.c — UCT: search invariants (root visits = iterations, per-node visit sums,
 * legal distinct children, widening), determinism, terminal roots, a won capture found, the
 * sign through a chain of jumps, tree reuse, the parallel search, a full arena, and strength. */
#include "helpers.h"
#include "mcts/match.h"
#include "mcts/uct.h"
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
enum { SCALE = 5 };
#else
enum { SCALE = 1 };
#endif

static void assert_tree_ok(const mcts_tree *t) {
    const char *e = mcts_tree_check(t);
    ck_assert_msg(e == NULL, "tree check: %s", e);
}

static uint32_t root_n(const mcts_uct *u) { return mcts_stats_n(mcts_node_load(mcts_tree_root(mcts_uct_tree(u)))); }

/* A hash of the whole tree: moves, visits and value sums in list order. */
static uint64_t tree_hash(const mcts_tree *t, const mcts_node *n) {
    uint64_t h = mcts_node_load(n) * 0x9E3779B97F4A7C15ULL ^ n->move;
    MCTS_FOR_EACH_CHILD(t, n, c) h = (h ^ tree_hash(t, c)) * 0x100000001B3ULL;
    return h;
}

/* Player 0 has 4 black: the chain d2-d4-d6 takes two blacks and wins only with its second jump. */
static void chain_win_position(zz_pos *p) {
    th_build(p, ZZ_B37, NULL, "Wd2 Bd3 Bd5");
    p->cap[0][1] = 3; p->pool[1] -= 3;
    p->cap[0][2] = 4; p->pool[2] -= 4;
    ck_assert_ptr_null(zz_pos_validate(p));
}

START_TEST(uct_root_visits_and_invariants) {
    mcts_uct_config c;
    mcts_uct_config_default(&c);
    for (int k = 0; k < 3; k++) {
        mcts_uct *u = mcts_uct_new(&c);
        zz_pos p;
        zz_pos_init(&p, (zz_board_kind)k);
        mcts_uct_set_root(u, &p);
        mcts_search_stats st;
        ck_assert_int_eq(mcts_uct_search(u, 3000 / SCALE, 0, &st), 0);
        ck_assert_uint_eq(st.iterations, 3000 / SCALE);
        ck_assert_uint_eq(root_n(u), 3000 / SCALE);
        assert_tree_ok(mcts_uct_tree(u));
        /* a fresh root has no rollout of its own: the tree holds one node per iteration + root */
        ck_assert_uint_eq(mcts_tree_size(mcts_uct_tree(u)), 3000 / SCALE + 1);
        /* progressive widening bounds the root's children */
        uint32_t kids = 0;
        MCTS_FOR_EACH_CHILD(mcts_uct_tree(u), mcts_tree_root(mcts_uct_tree(u)), ch) kids++;
        ck_assert_uint_le(kids, (uint32_t)(c.pw_c * pow(3000.0 / SCALE, c.pw_alpha)) + 1);
        ck_assert_uint_gt(kids, 1);
        mcts_uct_free(u);
    }
}
END_TEST

START_TEST(uct_analyse_api) {
    mcts_uct_config c;
    mcts_uct_config_default(&c);
    zz_pos p;
    zz_pos_init(&p, ZZ_B48);
    zz_move moves[400];
    int visits[400];
    int n = mcts_uct_analyse(&p, &c, 2000 / SCALE, moves, visits, 400);
    ck_assert_int_gt(n, 1);
    long sum = 0;
    for (int i = 0; i < n; i++) {
        ck_assert(zz_is_legal(&p, moves[i]));
        if (i) ck_assert_int_ge(visits[i - 1], visits[i]);
        sum += visits[i];
    }
    ck_assert_int_eq(sum, 2000 / SCALE);
    ck_assert_int_eq(mcts_uct_analyse(&p, &c, 2000 / SCALE, moves, visits, 3), 3);   /* cap */
    ck_assert_int_eq(mcts_uct_analyse(&p, &c, 0, moves, visits, 400), 0);
}
END_TEST

START_TEST(uct_deterministic_single_thread) {
    mcts_uct_config c;
    mcts_uct_config_default(&c);
    c.seed = 42;
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    uint64_t h[3];
    for (int r = 0; r < 3; r++) {
        if (r == 2) c.seed = 43;
        mcts_uct *u = mcts_uct_new(&c);
        mcts_uct_set_root(u, &p);
        mcts_uct_search(u, 2000 / SCALE, 0, NULL);
        mcts_uct_search(u, 500 / SCALE, 0, NULL);        /* repeated searches are seeded too */
        h[r] = tree_hash(mcts_uct_tree(u), mcts_tree_root(mcts_uct_tree(u)));
        mcts_uct_free(u);
    }
    ck_assert_uint_eq(h[0], h[1]);
    ck_assert_uint_ne(h[0], h[2]);
}
END_TEST

START_TEST(uct_terminal_root) {
    zz_pos p;
    th_won_capture_position(&p);
    zz_move moves[16];
    int n = zz_gen_moves(&p, moves);
    zz_pos over = p;
    for (int i = 0; i < n; i++) {
        zz_pos q = p;
        zz_apply(&q, moves[i], NULL);
        if (zz_over(&q)) over = q;
    }
    ck_assert(zz_over(&over));
    mcts_uct_config c;
    mcts_uct_config_default(&c);
    int visits[4];
    ck_assert_int_eq(mcts_uct_analyse(&over, &c, 100, moves, visits, 4), 0);
    mcts_uct *u = mcts_uct_new(&c);
    mcts_uct_set_root(u, &over);
    mcts_search_stats st;
    ck_assert_int_eq(mcts_uct_search(u, 100, 0, &st), 0);
    ck_assert_uint_eq(st.iterations, 0);
    ck_assert_uint_eq(mcts_uct_choose(u, 100, 0, NULL), ZZ_MOVE_NONE);
    mcts_uct_free(u);
}
END_TEST

START_TEST(uct_finds_winning_capture) {
    zz_pos p;
    th_won_capture_position(&p);
    zz_move win = mcts_find_win(&p);
    ck_assert_uint_ne(win, ZZ_MOVE_NONE);
    mcts_uct_config c;
    mcts_uct_config_default(&c);
    c.root_win_check = 0;                         /* the search itself must find it */
    for (uint64_t seed = 1; seed <= 5; seed++) {
        c.seed = seed;
        mcts_uct *u = mcts_uct_new(&c);
        mcts_uct_set_root(u, &p);
        ck_assert_uint_eq(mcts_uct_choose(u, 300, 0, NULL), win);
        assert_tree_ok(mcts_uct_tree(u));
        mcts_uct_free(u);
    }
}
END_TEST

START_TEST(uct_sign_through_jump_chain) {
    zz_pos p;
    chain_win_position(&p);
    zz_move moves[16];
    int n = zz_gen_moves(&p, moves);
    ck_assert_int_ge(n, 2);
    ck_assert_uint_eq(mcts_find_win(&p), ZZ_MOVE_NONE);   /* no single move wins */
    mcts_uct_config c;
    mcts_uct_config_default(&c);
    c.root_win_check = 0;
    mcts_uct *u = mcts_uct_new(&c);
    mcts_uct_set_root(u, &p);
    mcts_uct_search(u, 400, 0, NULL);
    const mcts_tree *t = mcts_uct_tree(u);
    zz_move best = mcts_uct_best(u);
    ck_assert_int_eq(zz_move_a(best), th_cell(&p, "d2"));
    ck_assert_int_eq(zz_move_b(best), th_cell(&p, "d4"));
    MCTS_FOR_EACH_CHILD(t, mcts_tree_root(t), ch) {
        if (ch->move != best) continue;
        ck_assert_int_eq(ch->player, 0);
        ck_assert_int_eq(ch->to_move, 0);                /* the chain goes on: same player */
        ck_assert(fabs(mcts_stats_q(mcts_node_load(ch)) - 1.0) < 1e-3);   /* a sure win for 0 */
        mcts_node *g = mcts_first_child(t, ch);
        ck_assert_ptr_nonnull(g);
        ck_assert_int_eq(g->player, 0);
        ck_assert_int_eq(atomic_load(&g->state), MCTS_TERMINAL);
        ck_assert_int_eq(g->winner, 0);
    }
    assert_tree_ok(t);
    mcts_uct_free(u);
}
END_TEST

START_TEST(uct_tree_reuse_keeps_subtree) {
    mcts_uct_config c;
    mcts_uct_config_default(&c);
    mcts_uct *u = mcts_uct_new(&c);
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    mcts_uct_set_root(u, &p);
    mcts_uct_search(u, 4000 / SCALE, 0, NULL);
    const mcts_tree *t = mcts_uct_tree(u);
    zz_move best = mcts_uct_best(u);
    uint32_t want_n = 0;
    uint64_t want_hash = 0;
    MCTS_FOR_EACH_CHILD(t, mcts_tree_root(t), ch)
        if (ch->move == best) { want_n = mcts_stats_n(mcts_node_load(ch)); want_hash = tree_hash(t, ch); }
    ck_assert_uint_gt(want_n, 1);
    ck_assert(mcts_uct_advance(u, best));
    zz_apply(&p, best, NULL);
    ck_assert(zz_pos_equal(&t->root_pos, &p));
    ck_assert_uint_eq(root_n(u), want_n);
    ck_assert_uint_eq(tree_hash(t, mcts_tree_root(t)), want_hash);     /* the same subtree */
    assert_tree_ok(t);
    mcts_uct_search(u, 1000 / SCALE, 0, NULL);
    ck_assert_uint_eq(root_n(u), want_n + 1000 / SCALE);
    assert_tree_ok(t);
    /* the opponent's reply, then ours: reuse twice more */
    for (int i = 0; i < 2; i++) {
        zz_move m = mcts_uct_best(u);
        mcts_uct_advance(u, m);
        mcts_uct_search(u, 500 / SCALE, 0, NULL);
        assert_tree_ok(t);
    }
    mcts_uct_free(u);
}
END_TEST

START_TEST(uct_parallel_search) {
    mcts_uct_config c;
    mcts_uct_config_default(&c);
    for (int threads = 2; threads <= 4; threads += 2) {
        c.threads = threads;
        c.virtual_loss = threads == 4 ? 3 : 1;
        mcts_uct *u = mcts_uct_new(&c);
        zz_pos p;
        th_build(&p, ZZ_B37, NULL, "Wd2 Bd3 Bd5 Ga1");      /* narrow first: threads meet */
        for (int move = 0; move < 3; move++) {
            if (move == 1) zz_pos_init(&p, ZZ_B37);
            mcts_uct_set_root(u, &p);
            mcts_search_stats st;
            ck_assert_int_eq(mcts_uct_search(u, 20000 / SCALE / SCALE, 0, &st), 0);
            ck_assert_uint_eq(st.iterations, 20000 / SCALE / SCALE);
            ck_assert_uint_eq(root_n(u), 20000 / SCALE / SCALE);      /* no visit lost or doubled */
            assert_tree_ok(mcts_uct_tree(u));                         /* sums, no visit in flight */
            zz_apply(&p, mcts_uct_best(u), NULL);
        }
        mcts_uct_free(u);
    }
}
END_TEST

START_TEST(uct_time_limit_and_full_tree) {
    mcts_uct_config c;
    mcts_uct_config_default(&c);
    c.max_nodes = 300;
    mcts_uct *u = mcts_uct_new(&c);
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    mcts_uct_set_root(u, &p);
    mcts_search_stats st;
    ck_assert_int_eq(mcts_uct_search(u, 100000, 0, &st), -1);       /* ran out of nodes */
    ck_assert_uint_lt(st.iterations, 300);
    ck_assert_uint_eq(root_n(u), st.iterations);
    assert_tree_ok(mcts_uct_tree(u));
    ck_assert_uint_ne(mcts_uct_best(u), ZZ_MOVE_NONE);
    mcts_uct_free(u);
    mcts_uct_config_default(&c);
    u = mcts_uct_new(&c);
    mcts_uct_set_root(u, &p);
    ck_assert_int_eq(mcts_uct_search(u, 0, 50, &st), 0);            /* 50 ms, no iteration cap */
    ck_assert(st.seconds < 1.0);
    ck_assert_uint_gt(st.iterations, 10);
    assert_tree_ok(mcts_uct_tree(u));
    mcts_uct_free(u);
}
END_TEST

START_TEST(uct_choose_plays_winning_placement) {
    /* find, in random games, positions where a placement wins at once */
    uint64_t rng = 99;
    int found = 0;
    mcts_uct_config c;
    mcts_uct_config_default(&c);
    mcts_uct *u = mcts_uct_new(&c);
    for (int g = 0; g < 400 && found < 3; g++) {
        zz_pos p;
        zz_pos_init(&p, ZZ_B37);
        while (!zz_over(&p)) {
            zz_move w = mcts_find_win(&p);
            if (w && !zz_move_is_jump(w)) {
                mcts_uct_set_root(u, &p);
                zz_move m = mcts_uct_choose(u, 200, 0, NULL);
                zz_pos q = p;
                zz_apply(&q, m, NULL);
                ck_assert(zz_over(&q) && q.winner == p.to_move);
                found++;
                break;
            }
            zz_apply(&p, zz_random_move(&p, &rng), NULL);
        }
    }
    ck_assert_int_ge(found, 1);
    mcts_uct_free(u);
}
END_TEST

START_TEST(uct_beats_random) {
    mcts_match_config mc;
    memset(&mc, 0, sizeof mc);
    mc.spec[0] = SCALE == 1 ? "uct:1000" : "uct:300";
    mc.spec[1] = "random";
    mc.games = SCALE == 1 ? 40 : 10;
    mc.parallel = 2;
    mc.seed = 2024;
    mc.board = ZZ_B37;
    mcts_match_result r;
    char err[256];
    ck_assert_int_eq(mcts_match_run(&mc, &r, err, sizeof err), 0);
    ck_assert_int_eq(r.errors, 0);
    ck_assert_msg(r.wins >= (mc.games * 9 + 9) / 10, "uct won only %d of %d against random", r.wins, mc.games);
}
END_TEST

/* A prior that ranks moves by a hash: a fixed, known order for the test, and a count of calls. */
typedef struct { int calls; } hash_prior_ctx;
static float hash_prior(zz_move m) { return (float)((m * 2654435761u) >> 8 & 0xFFFF) + 1.0f; }
static int hash_prior_eval(mcts_evaluator *self, mcts_eval_item *items, int n, char *err, size_t errlen) {
    hash_prior_ctx *c = self->ctx;
    for (int i = 0; i < n; i++) {
        c->calls++;
        double sum = 0;
        for (int k = 0; k < items[i].nmoves; k++) sum += hash_prior(items[i].moves[k]);
        for (int k = 0; k < items[i].nmoves; k++) items[i].priors[k] = (float)(hash_prior(items[i].moves[k]) / sum);
        items[i].value = 0;
    }
    return 0;
}

/* Prior-ordered widening: a node visited prior_visits times opens its further children in the
 * order of the evaluator's priors; the children opened before stay in their slots; the tree's
 * invariants hold (slot k holds edge k's move), also after re-rooting; threads > 1 is refused. */
START_TEST(uct_prior_ordered_widening) {
    hash_prior_ctx hc = { 0 };
    mcts_evaluator ev = { "hash-prior", 0, hash_prior_eval, NULL, &hc, NULL };
    mcts_uct_config c;
    mcts_uct_config_default(&c);
    c.prior_ev = &ev;
    c.prior_visits = 16;
    c.threads = 2;
    ck_assert_ptr_null(mcts_uct_new(&c));
    c.threads = 1;
    mcts_uct *u = mcts_uct_new(&c);
    ck_assert_ptr_nonnull(u);
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    mcts_uct_set_root(u, &p);
    mcts_search_stats st;
    ck_assert_int_eq(mcts_uct_search(u, 3000, 0, &st), 0);
    ck_assert_ptr_null(mcts_uct_error(u));
    const mcts_tree *t = mcts_uct_tree(u);
    assert_tree_ok(t);
    const mcts_node *root = mcts_tree_root(t);
    ck_assert_uint_eq(root->nedges, root->nmoves);              /* the root was ordered */
    ck_assert_int_gt(hc.calls, 1);                              /* and some inner nodes */
    ck_assert_int_lt(hc.calls, 3000 / 16 + 2);                  /* once per node at most */
    /* the edges after the ones opened before ordering are sorted by the prior, and the
     * children opened after ordering are exactly the next edges */
    const mcts_edge *e = mcts_tree_edges(t, root->edges);
    uint32_t nopen = atomic_load(&root->nopen);
    /* at 16 visits at most 2 * sqrt(16) = 8 children were open: from edge 8 on, sorted */
    for (uint32_t k = 8; k + 1 < root->nedges; k++) ck_assert(e[k].prior >= e[k + 1].prior);
    uint32_t slot = 0;
    MCTS_FOR_EACH_CHILD(t, root, ch) { ck_assert_uint_eq(ch->move, e[slot].move); slot++; }
    ck_assert_uint_eq(slot, nopen);
    /* the most probable move was opened (it comes right after the pre-ordering children) */
    float best = 0;
    for (uint32_t k = 0; k < root->nedges; k++) if (e[k].prior > best) best = e[k].prior;
    bool opened = false;
    MCTS_FOR_EACH_CHILD(t, root, ch) {
        for (uint32_t k = 0; k < root->nedges; k++) if (e[k].move == ch->move && e[k].prior == best) opened = true;
    }
    ck_assert(opened);
    /* re-rooting keeps the ordered subtree consistent */
    zz_move m = mcts_uct_best(u);
    mcts_uct_advance(u, m);
    assert_tree_ok(t);
    ck_assert_int_eq(mcts_uct_search(u, 1000, 0, &st), 0);
    assert_tree_ok(t);
    mcts_uct_free(u);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("mcts_uct");
    TCase *t = tcase_create("uct");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, uct_root_visits_and_invariants);
    tcase_add_test(t, uct_analyse_api);
    tcase_add_test(t, uct_deterministic_single_thread);
    tcase_add_test(t, uct_terminal_root);
    tcase_add_test(t, uct_finds_winning_capture);
    tcase_add_test(t, uct_sign_through_jump_chain);
    tcase_add_test(t, uct_tree_reuse_keeps_subtree);
    tcase_add_test(t, uct_parallel_search);
    tcase_add_test(t, uct_time_limit_and_full_tree);
    tcase_add_test(t, uct_choose_plays_winning_placement);
    tcase_add_test(t, uct_beats_random);
    tcase_add_test(t, uct_prior_ordered_widening);
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    return th_run(suite());
}
