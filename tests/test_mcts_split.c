/* test_mcts_split.c — PUCT with split placements (puct.h's cfg.split, tree.h): a placement node's
 * children are (colour, cell) groups whose children are the full placements.  Checked: the edge
 * layout (group priors are their members' sums, runs found by binary search), the tree's
 * invariants under one and several threads, evaluations only at real positions, the move choice
 * through the best group, tree reuse through a group, root noise, and the refusal of split with a
 * Gumbel root.  The evaluator is a test double with uneven, position-independent priors. */
#include "helpers.h"
#include "mcts/puct.h"
#include <check.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
enum { SCALE = 4 };
#else
enum { SCALE = 1 };
#endif

/* ---- the test double ------------------------------------------------------------------------- */
typedef struct {
    _Atomic long positions;
    zz_move favour;            /* this move gets prior 0.9 when legal (the others weights 1..16) */
} split_dbl;

/* An uneven weight for m in 1..16, fixed by the move alone. */
static float move_weight(zz_move m) {
    uint32_t x = m * 2654435761u;
    return (float)(1 + ((x >> 20) & 15));
}

static int split_eval(mcts_evaluator *self, mcts_eval_item *it, int n, char *err, size_t errlen) {
    split_dbl *d = self->ctx;
    atomic_fetch_add(&d->positions, n);
    for (int i = 0; i < n; i++) {
        ck_assert(!zz_over(it[i].pos));
        zz_move mv[ZZ_MAX_MOVES];
        int m = zz_gen_moves(it[i].pos, mv);               /* a real position: all its moves */
        ck_assert_int_eq(m, it[i].nmoves);
        double sum = 0;
        int fav = -1;
        for (int j = 0; j < m; j++) {
            sum += it[i].priors[j] = move_weight(mv[j]);
            if (mv[j] == d->favour) fav = j;
        }
        if (fav >= 0) sum += it[i].priors[fav] = (float)(9 * sum);     /* prior 0.9 */
        for (int j = 0; j < m; j++) it[i].priors[j] = (float)(it[i].priors[j] / sum);
        it[i].value = (float)((int)(zz_hash(it[i].pos) % 201) - 100) / 200.f;   /* -0.5..0.5 */
    }
    return 0;
}

static mcts_evaluator make_split_dbl(split_dbl *d) {
    memset(d, 0, sizeof *d);
    return (mcts_evaluator){ .name = "split double", .evaluate = split_eval, .ctx = d };
}

static mcts_puct *make_split(mcts_evaluator *ev, int threads, uint64_t seed) {
    mcts_puct_config c;
    mcts_puct_config_default(&c);
    c.split = 1;
    c.threads = threads;
    c.batch = 8;
    c.inflight = 4;
    c.seed = seed;
    char err[256];
    mcts_puct *s = mcts_puct_new(&c, ev, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    return s;
}

static void search_ok(mcts_puct *s, uint64_t sims, bool noise) {
    char err[256];
    ck_assert_msg(mcts_puct_search(s, sims, 0, noise, NULL, err, sizeof err) == 0, "%s", err);
}

static void assert_tree_ok(const mcts_tree *t) {
    const char *e = mcts_tree_check(t);
    ck_assert_msg(e == NULL, "tree check: %s", e);
}

static uint32_t root_n(const mcts_puct *s) { return mcts_stats_n(mcts_node_load(mcts_tree_root(mcts_puct_tree(s)))); }

/* Evaluated nodes, groups, and (by pointer) the subtree's hash. */
static void walk(const mcts_tree *t, const mcts_node *n, long *evaluated, long *groups, uint64_t *h) {
    *h = (*h ^ (mcts_node_load(n) * 0x9E3779B97F4A7C15ULL ^ n->move)) * 0x100000001B3ULL;
    if (mcts_is_group(n->move)) (*groups)++;
    else if (atomic_load(&((mcts_node *)n)->state) == MCTS_EXPANDED && !n->passed) (*evaluated)++;
    MCTS_FOR_EACH_CHILD(t, n, c) walk(t, c, evaluated, groups, h);
}

/* ---- tests ------------------------------------------------------------------------------------ */
/* At the 48-ring opening every colour may go on every cell: 3 x 48 = 144 groups.  Group priors are
 * sorted and are their members' sums; each run holds the group's placements, by prior; the runs
 * cover every legal move once. */
START_TEST(split_edge_layout) {
    split_dbl d;
    mcts_evaluator ev = make_split_dbl(&d);
    mcts_puct *s = make_split(&ev, 1, 1);
    zz_pos p;
    zz_pos_init(&p, ZZ_B48);
    mcts_puct_set_root(s, &p);
    search_ok(s, 1, false);
    const mcts_tree *t = mcts_puct_tree(s);
    const mcts_node *r = mcts_tree_root(t);
    zz_move mv[ZZ_MAX_MOVES];
    int n = zz_gen_moves(&p, mv);
    ck_assert(mcts_node_is_split(t, r));
    ck_assert_uint_eq(r->nedges, 144);
    ck_assert_uint_eq(r->nmoves, (uint32_t)n);
    ck_assert_uint_eq(mcts_node_edge_count(t, r), 144u + (uint32_t)n);
    const mcts_edge *e = mcts_tree_edges(t, r->edges);
    uint32_t covered = 0;
    double total = 0;
    for (uint32_t g = 0; g < r->nedges; g++) {
        ck_assert(mcts_is_group(e[g].move));
        if (g) ck_assert(e[g - 1].prior >= e[g].prior);
        uint32_t count, start = mcts_group_run(t, r, e[g].move, &count);
        ck_assert_uint_gt(count, 1);
        double sum = 0;
        for (uint32_t i = start; i < start + count; i++) {
            ck_assert_uint_eq(mcts_group_of(e[i].move), e[g].move);
            ck_assert(th_in_list(mv, n, e[i].move));
            if (i > start) ck_assert(e[i - 1].prior >= e[i].prior);
            sum += e[i].prior;
        }
        ck_assert(fabs(sum - e[g].prior) < 1e-5);
        covered += count;
        total += e[g].prior;
    }
    ck_assert_uint_eq(covered, (uint32_t)n);
    ck_assert(fabs(total - 1) < 1e-4);
    /* the most probable move: the best member of the best group */
    uint32_t count, start = mcts_group_run(t, r, e[0].move, &count);
    ck_assert_uint_eq(mcts_node_top_move(t, r), e[start].move);
    mcts_puct_free(s);
}
END_TEST

/* Searches on 37, 48 and 61 rings, one thread and three: the tree's invariants hold (a group's
 * N is its members' N, its children are its placements), root N = simulations, every evaluation
 * is of a real position and expands one node (groups cost none), and groups are built. */
START_TEST(split_search_invariants) {
    for (int k = 0; k < 6; k++) {
        split_dbl d;
        mcts_evaluator ev = make_split_dbl(&d);
        int threads = k < 3 ? 1 : 3;
        mcts_puct *s = make_split(&ev, threads, 5);
        zz_pos p;
        zz_pos_init(&p, (zz_board_kind)(k % 3));
        uint64_t rng = 77 + (uint64_t)k;
        th_random_playout(&p, &rng, 3);
        if (zz_over(&p)) zz_pos_init(&p, (zz_board_kind)(k % 3));
        mcts_puct_set_root(s, &p);
        int sims = 1200 / SCALE;
        search_ok(s, (uint64_t)sims, true);
        const mcts_tree *t = mcts_puct_tree(s);
        assert_tree_ok(t);
        ck_assert_uint_eq(root_n(s), (uint32_t)sims);
        long evaluated = 0, groups = 0;
        uint64_t h = 0;
        walk(t, mcts_tree_root(t), &evaluated, &groups, &h);
        ck_assert_int_eq(atomic_load(&d.positions), evaluated);
        ck_assert_int_gt(groups, 10);
        /* the flattened root children are legal full moves whose visits add up to the root's */
        zz_move moves[ZZ_MAX_MOVES];
        static int visits[ZZ_MAX_MOVES];
        int n = mcts_tree_root_children(t, moves, visits, NULL, ZZ_MAX_MOVES);
        long sum = 0;
        for (int i = 0; i < n; i++) {
            ck_assert(!mcts_is_group(moves[i]) && zz_is_legal(&p, moves[i]));
            sum += visits[i];
        }
        ck_assert_int_eq(sum + t->root_own, (long)root_n(s));
        mcts_puct_free(s);
    }
}
END_TEST

/* One thread and a seed: the same tree twice; another seed: another tree (the group order's ties). */
START_TEST(split_deterministic_single_thread) {
    uint64_t h[3];
    for (int r = 0; r < 3; r++) {
        split_dbl d;
        mcts_evaluator ev = make_split_dbl(&d);
        mcts_puct *s = make_split(&ev, 1, r == 2 ? 9 : 8);
        zz_pos p;
        zz_pos_init(&p, ZZ_B37);
        mcts_puct_set_root(s, &p);
        search_ok(s, 600 / SCALE, true);
        long evaluated = 0, groups = 0;
        h[r] = 0;
        walk(mcts_puct_tree(s), mcts_tree_root(mcts_puct_tree(s)), &evaluated, &groups, &h[r]);
        mcts_puct_free(s);
    }
    ck_assert_uint_eq(h[0], h[1]);
    ck_assert_uint_ne(h[0], h[2]);
}
END_TEST

/* A move the evaluator favours (prior 0.9) is searched most and chosen: through its group
 * (the best group), then within it.  The principal variation starts with it. */
START_TEST(split_picks_through_the_best_group) {
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    zz_move mv[ZZ_MAX_MOVES];
    int n = zz_gen_moves(&p, mv);
    split_dbl d;
    mcts_evaluator ev = make_split_dbl(&d);
    d.favour = mv[n / 3];
    mcts_puct *s = make_split(&ev, 1, 3);
    mcts_puct_set_root(s, &p);
    search_ok(s, 300, false);
    const mcts_tree *t = mcts_puct_tree(s);
    const mcts_node *best = mcts_tree_best_child(t, mcts_tree_root(t));
    ck_assert(best != NULL);
    ck_assert_uint_eq(best->move, d.favour);
    ck_assert_uint_eq(mcts_tree_node(t, best->parent)->move, mcts_group_of(d.favour));
    ck_assert_uint_eq(mcts_puct_pick(s, 0), d.favour);
    zz_move pv[4];
    ck_assert_int_ge(mcts_tree_pv(t, pv, 4, 1), 1);
    ck_assert_uint_eq(pv[0], d.favour);
    ck_assert_uint_eq(mcts_tree_find_child(t, mcts_tree_root(t), d.favour), (uint32_t)(best - mcts_tree_node(t, 0)));
    mcts_puct_free(s);
}
END_TEST

/* Tree reuse through a group: the played move's subtree is kept (found under its group), with its
 * visits; the tree stays valid and further searches add up. */
START_TEST(split_tree_reuse) {
    split_dbl d;
    mcts_evaluator ev = make_split_dbl(&d);
    mcts_puct *s = make_split(&ev, 1, 4);
    zz_pos p;
    zz_pos_init(&p, ZZ_B48);
    mcts_puct_set_root(s, &p);
    int kept_some = 0;
    for (int move = 0; move < 4; move++) {
        mcts_think th;
        char err[256];
        ck_assert_int_eq(mcts_puct_think(s, 400 / SCALE, 0, &th, err, sizeof err), 0);
        const mcts_tree *t = mcts_puct_tree(s);
        uint32_t ci = mcts_tree_find_child(t, mcts_tree_root(t), th.move);
        uint32_t want = ci ? mcts_stats_n(mcts_node_load(mcts_tree_node(t, ci))) : 0;
        bool kept = mcts_puct_advance(s, th.move);
        zz_apply(&p, th.move, NULL);
        ck_assert(zz_pos_equal(&t->root_pos, &p));
        ck_assert_int_eq(kept, want > 0);
        kept_some += kept;
        ck_assert_uint_eq(root_n(s), want);
        assert_tree_ok(t);
        search_ok(s, 100, false);
        ck_assert_uint_eq(root_n(s), want + 100);
        assert_tree_ok(t);
    }
    ck_assert_int_gt(kept_some, 0);
    mcts_puct_free(s);
}
END_TEST

/* Root noise mixes into the group priors; the members' conditional priors stay the evaluator's. */
START_TEST(split_root_noise) {
    split_dbl d;
    mcts_evaluator ev = make_split_dbl(&d);
    mcts_puct *s = make_split(&ev, 1, 6);
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    mcts_puct_set_root(s, &p);
    search_ok(s, 1, false);
    const mcts_tree *t = mcts_puct_tree(s);
    const mcts_node *r = mcts_tree_root(t);
    const mcts_edge *e = mcts_tree_edges(t, r->edges);
    static float before[3 * ZZ_MAX_RINGS + ZZ_MAX_MOVES];
    uint32_t ne = mcts_node_edge_count(t, r);
    for (uint32_t i = 0; i < ne; i++) before[i] = e[i].prior;
    mcts_puct_root_noise(s);
    int changed = 0;
    double sum = 0;
    for (uint32_t i = 0; i < r->nedges; i++) { changed += e[i].prior != before[i]; sum += e[i].prior; }
    for (uint32_t i = r->nedges; i < ne; i++) ck_assert(e[i].prior == before[i]);
    ck_assert_int_gt(changed, (int)r->nedges / 2);
    ck_assert(fabs(sum - 1) < 1e-3);
    search_ok(s, 300, false);
    assert_tree_ok(t);
    /* a group's member priors are conditional: they sum to 1 */
    MCTS_FOR_EACH_CHILD(t, r, g) {
        ck_assert(mcts_is_group(g->move));
        const mcts_edge *m = mcts_tree_edges(t, g->edges);
        double gs = 0;
        for (uint32_t i = 0; i < g->nedges; i++) gs += m[i].prior;
        ck_assert(fabs(gs - 1) < 1e-4);
    }
    mcts_puct_free(s);
}
END_TEST

/* Jumps are never split; split with a Gumbel root is refused with a message. */
START_TEST(split_jumps_and_refusals) {
    zz_pos p;
    th_build(&p, ZZ_B37, NULL, "Wd2 Bd3 Bd5 Ga1 Gb1");
    split_dbl d;
    mcts_evaluator ev = make_split_dbl(&d);
    mcts_puct *s = make_split(&ev, 1, 2);
    mcts_puct_set_root(s, &p);
    search_ok(s, 50, false);
    ck_assert(!mcts_node_is_split(mcts_puct_tree(s), mcts_tree_root(mcts_puct_tree(s))));
    assert_tree_ok(mcts_puct_tree(s));
    mcts_puct_free(s);
    mcts_puct_config c;
    mcts_puct_config_default(&c);
    c.split = 1;
    c.gumbel_m = 8;
    char err[256] = "";
    ck_assert(mcts_puct_new(&c, &ev, err, sizeof err) == NULL);
    ck_assert(strstr(err, "split") != NULL);
}
END_TEST

static Suite *suite(void) {
    Suite *su = suite_create("mcts_split");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, split_edge_layout);
    tcase_add_test(t, split_search_invariants);
    tcase_add_test(t, split_deterministic_single_thread);
    tcase_add_test(t, split_picks_through_the_best_group);
    tcase_add_test(t, split_tree_reuse);
    tcase_add_test(t, split_root_noise);
    tcase_add_test(t, split_jumps_and_refusals);
    suite_add_tcase(su, t);
    return su;
}

int main(void) {
    return th_run(suite());
}
