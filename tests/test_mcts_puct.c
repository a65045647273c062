/* test_mcts_puct.c — PUCT with test-double evaluators: root visits = simulations, one expansion
 * per node (evaluations = expanded nodes), the value sign through a chain of jumps, priors
 * ordering, a won capture found, Dirichlet noise, temperature, playout-cap randomisation, tree
 * reuse, batching limits, evaluator failures, the parallel modes (an evaluator per thread, and
 * workers sharing one through the batcher). */
#include "helpers.h"
#include "mcts/agent.h"
#include "mcts/clock.h"
#include "mcts/puct.h"
#include "mcts/gumbel.h"
#include "nn/checkpoint.h"
#include "nn/infer.h"
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
enum { SCALE = 4 };
#else
enum { SCALE = 1 };
#endif

/* ---- test doubles ---------------------------------------------------------------------------- */
enum { V_ZERO, V_PLAYER0_AHEAD, V_ROLLOUT };
typedef struct {
    int mode;
    _Atomic long positions, calls;
    int max_n;                 /* largest batch seen */
    long fail_at;              /* fail on this call (0 = never) */
    zz_move favour;            /* give this move prior 0.9 when legal */
    uint64_t rng;
    int root_ply;              /* positions at another ply with one legal move are counted: */
    _Atomic long forced;       /* (the search's pass_forced never asks for them) */
} dbl;

static int dbl_eval(mcts_evaluator *self, mcts_eval_item *it, int n, char *err, size_t errlen) {
    dbl *d = self->ctx;
    long call = atomic_fetch_add(&d->calls, 1) + 1;
    if (d->fail_at && call >= d->fail_at) { snprintf(err, errlen, "test double failed on purpose"); return -1; }
    if (n > d->max_n) d->max_n = n;
    atomic_fetch_add(&d->positions, n);
    for (int i = 0; i < n; i++) {
        ck_assert(!zz_over(it[i].pos));
        if (it[i].nmoves == 1 && it[i].pos->ply != d->root_ply) atomic_fetch_add(&d->forced, 1);
        zz_move mv[ZZ_MAX_MOVES];
        int m = zz_gen_moves(it[i].pos, mv);
        ck_assert_int_eq(m, it[i].nmoves);                 /* moves in zz_gen_moves order */
        ck_assert(memcmp(mv, it[i].moves, (size_t)m * sizeof *mv) == 0);
        int fav = -1;
        for (int j = 0; j < m; j++) if (mv[j] == d->favour) fav = j;
        for (int j = 0; j < m; j++)
            it[i].priors[j] = fav < 0 ? 1.0f / (float)m : j == fav ? 0.9f : 0.1f / (float)(m - 1 > 0 ? m - 1 : 1);
        if (d->mode == V_ZERO) it[i].value = 0;
        else if (d->mode == V_PLAYER0_AHEAD) it[i].value = it[i].pos->to_move == 0 ? 0.5f : -0.5f;
        else {
            zz_pos p = *it[i].pos;
            while (!zz_over(&p)) zz_apply(&p, zz_random_move(&p, &d->rng), NULL);
            it[i].value = p.winner < 0 ? 0.f : p.winner == it[i].pos->to_move ? 1.f : -1.f;
        }
    }
    return 0;
}

static mcts_evaluator make_dbl(dbl *d, int mode) {
    memset(d, 0, sizeof *d);
    d->mode = mode;
    d->rng = 12345;
    return (mcts_evaluator){ .name = "double", .evaluate = dbl_eval, .ctx = d };
}

static void assert_tree_ok(const mcts_tree *t) {
    const char *e = mcts_tree_check(t);
    ck_assert_msg(e == NULL, "tree check: %s", e);
}

static uint32_t root_n(const mcts_puct *s) { return mcts_stats_n(mcts_node_load(mcts_tree_root(mcts_puct_tree(s)))); }

static uint64_t tree_hash(const mcts_tree *t, const mcts_node *n) {
    uint64_t h = mcts_node_load(n) * 0x9E3779B97F4A7C15ULL ^ n->move;
    MCTS_FOR_EACH_CHILD(t, n, c) h = (h ^ tree_hash(t, c)) * 0x100000001B3ULL;
    return h;
}

/* Nodes of the subtree at n for which keep(n) holds. */
static long count_nodes(const mcts_tree *t, const mcts_node *n, bool (*keep)(const mcts_node *)) {
    long k = keep(n);
    MCTS_FOR_EACH_CHILD(t, n, c) k += count_nodes(t, c, keep);
    return k;
}

/* Expanded nodes that were evaluated (a passed node, with one legal move, is not). */
static bool evaluated(const mcts_node *n) { return atomic_load(&((mcts_node *)n)->state) == MCTS_EXPANDED && !n->passed; }
static bool passed_node(const mcts_node *n) { return n->passed; }
static long count_expanded(const mcts_tree *t, const mcts_node *n) { return count_nodes(t, n, evaluated); }

static mcts_puct *make(mcts_puct_config *c, mcts_evaluator *ev) {
    char err[256];
    mcts_puct *s = mcts_puct_new(c, ev, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    return s;
}

static void search_ok(mcts_puct *s, uint64_t sims, bool noise, mcts_search_stats *st) {
    char err[256];
    int rc = mcts_puct_search(s, sims, 0, noise, st, err, sizeof err);
    ck_assert_msg(rc == 0, "%s", err);
}

/* ---- tests ------------------------------------------------------------------------------------ */
START_TEST(puct_visits_and_single_expansion) {
    static const int threads[] = { 1, 1, 3, 4 }, batch[] = { 1, 8, 4, 16 };
    for (int narrow = 0; narrow < 2; narrow++)
    for (int k = 0; k < 4; k++) {
        dbl d;
        mcts_evaluator ev = make_dbl(&d, V_ROLLOUT);
        mcts_puct_config c;
        mcts_puct_config_default(&c);
        c.threads = threads[k];
        c.batch = batch[k];
        c.inflight = 4;
        c.edge_window = 0;        /* every position evaluated once: no node evaluated again to widen */
        mcts_puct *s = make(&c, &ev);
        zz_pos p;
        zz_pos_init(&p, (zz_board_kind)(k % 3));
        if (narrow) th_build(&p, ZZ_B37, NULL, "Wd2 Bd3 Bd5 Ga1");   /* 3 moves: leaves collide */
        mcts_puct_set_root(s, &p);
        mcts_search_stats st;
        int sims = 1500 / SCALE;
        search_ok(s, (uint64_t)sims, true, &st);
        const mcts_tree *t = mcts_puct_tree(s);
        ck_assert_uint_eq(st.iterations, (uint64_t)sims);
        ck_assert_uint_eq(root_n(s), (uint32_t)sims);                 /* root N = simulations */
        assert_tree_ok(t);                                             /* sums, legality, no PENDING */
        ck_assert_int_eq(atomic_load(&d.positions), count_expanded(t, mcts_tree_root(t)));  /* once each */
        ck_assert_int_le(d.max_n, batch[k]);
        if (batch[k] > 1 && !narrow) ck_assert_int_gt(d.max_n, 1);    /* batches really form */
        if (batch[k] > 1 && narrow) ck_assert_uint_gt(st.collisions, 0);   /* the trap is exercised */
        search_ok(s, 500 / SCALE, true, &st);                          /* a second search adds up */
        ck_assert_uint_eq(root_n(s), (uint32_t)(sims + 500 / SCALE));
        assert_tree_ok(t);
        ck_assert_int_eq(atomic_load(&d.positions), count_expanded(t, mcts_tree_root(t)));
        mcts_puct_free(s);
    }
}
END_TEST

START_TEST(puct_deterministic_single_thread) {
    uint64_t h[3];
    for (int r = 0; r < 3; r++) {
        dbl d;
        mcts_evaluator ev = make_dbl(&d, V_ROLLOUT);
        mcts_puct_config c;
        mcts_puct_config_default(&c);
        c.seed = r == 2 ? 8 : 7;
        c.batch = 6;
        mcts_puct *s = make(&c, &ev);
        zz_pos p;
        zz_pos_init(&p, ZZ_B37);
        mcts_puct_set_root(s, &p);
        search_ok(s, 800 / SCALE, true, NULL);                          /* with noise */
        h[r] = tree_hash(mcts_puct_tree(s), mcts_tree_root(mcts_puct_tree(s)));
        mcts_puct_free(s);
    }
    ck_assert_uint_eq(h[0], h[1]);
    ck_assert_uint_ne(h[0], h[2]);
}
END_TEST

/* Every node's Q from its player's view must be +0.5 for player 0 and -0.5 for player 1. */
static int check_signs(const mcts_tree *t, const mcts_node *n, int *checked) {
    int terminal = atomic_load(&((mcts_node *)n)->state) == MCTS_TERMINAL;
    MCTS_FOR_EACH_CHILD(t, n, c) terminal |= check_signs(t, c, checked);
    if (!terminal && mcts_stats_n(mcts_node_load(n)) > 0) {
        double want = n->player == 0 ? 0.5 : -0.5, q = mcts_stats_q(mcts_node_load(n));
        ck_assert_msg(fabs(q - want) < 1e-3, "node of player %d: Q %.4f, want %.1f", n->player, q, want);
        (*checked)++;
    }
    return terminal;
}

START_TEST(puct_sign_through_jump_chain) {
    zz_pos p;
    th_build(&p, ZZ_B37, NULL, "Wd2 Bd3 Bd5 Ga1");    /* the chain d2-d4-d6 must continue */
    for (int threads = 1; threads <= 2; threads++) {
        dbl d;
        mcts_evaluator ev = make_dbl(&d, V_PLAYER0_AHEAD);
        mcts_puct_config c;
        mcts_puct_config_default(&c);
        c.threads = threads;
        mcts_puct *s = make(&c, &ev);
        mcts_puct_set_root(s, &p);
        search_ok(s, 600 / SCALE, false, NULL);
        const mcts_tree *t = mcts_puct_tree(s);
        int checked = 0;
        check_signs(t, mcts_tree_root(t), &checked);
        ck_assert_int_gt(checked, 20);
        int chain_nodes = 0;                          /* the chain was searched through */
        MCTS_FOR_EACH_CHILD(t, mcts_tree_root(t), ch)
            if (ch->to_move == ch->player) chain_nodes++;
        ck_assert_int_ge(chain_nodes, 1);
        assert_tree_ok(t);
        mcts_puct_free(s);
    }
}
END_TEST


/* pass_forced: below the root, a position with one legal move (here the chain's next jump, and
 * the lone captures of random middle games) is never handed to the evaluator; its node is passed
 * (expanded with its one edge, N equal to its child's: the tree check), and every simulation
 * still counts once at the root.  Without it the evaluator is asked about such positions. */
START_TEST(puct_passes_forced_nodes) {
    zz_pos start[6];
    th_build(&start[0], ZZ_B37, NULL, "Wd2 Bd3 Bd5 Ga1");    /* the chain d2-d4-d6 must continue */
    uint64_t rng = 99;
    for (int k = 1; k < 6; k++) {                             /* middle games of random play */
        zz_pos_init(&start[k], ZZ_B37);
        for (int ply = 0; ply < 12 + 2 * k && !zz_over(&start[k]); ply++)
            zz_apply(&start[k], zz_random_move(&start[k], &rng), NULL);
        if (zz_over(&start[k])) start[k] = start[0];
    }
    long asked[2] = { 0, 0 }, passed = 0;
    for (int pass = 0; pass <= 1; pass++)
        for (int k = 0; k < 6; k++)
            for (int threads = 1; threads <= 2; threads++) {
                dbl d;
                mcts_evaluator ev = make_dbl(&d, V_ROLLOUT);
                d.root_ply = start[k].ply;
                mcts_puct_config c;
                mcts_puct_config_default(&c);
                c.threads = threads;
                c.pass_forced = pass;
                mcts_puct *s = make(&c, &ev);
                mcts_puct_set_root(s, &start[k]);
                search_ok(s, 400 / SCALE, false, NULL);
                const mcts_tree *t = mcts_puct_tree(s);
                assert_tree_ok(t);
                ck_assert_uint_eq(root_n(s), 400 / SCALE);
                asked[pass] += atomic_load(&d.forced);
                if (pass) passed += count_nodes(t, mcts_tree_root(t), passed_node);
                else ck_assert_int_eq(count_nodes(t, mcts_tree_root(t), passed_node), 0);
                mcts_puct_free(s);
            }
    ck_assert_int_eq(asked[1], 0);
    ck_assert_int_gt(asked[0], 0);
    ck_assert_int_gt(passed, 0);
}
END_TEST

START_TEST(puct_finds_winning_capture) {
    zz_pos p;
    th_won_capture_position(&p);
    zz_move win = mcts_find_win(&p);
    dbl d;
    mcts_evaluator ev = make_dbl(&d, V_ZERO);
    mcts_puct_config c;
    mcts_puct_config_default(&c);
    c.root_win_check = 0;
    mcts_puct *s = make(&c, &ev);
    mcts_puct_set_root(s, &p);
    mcts_think th;
    char err[256];
    ck_assert_int_eq(mcts_puct_think(s, 200, 0, &th, err, sizeof err), 0);
    ck_assert_uint_eq(th.move, win);
    ck_assert(th.root_q > 0.5);
    mcts_puct_free(s);
}
END_TEST

START_TEST(puct_priors_order_children) {
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    zz_move mv[ZZ_MAX_MOVES];
    int n = zz_gen_moves(&p, mv);
    dbl d;
    mcts_evaluator ev = make_dbl(&d, V_ZERO);
    d.favour = mv[n - 7];
    mcts_puct_config c;
    mcts_puct_config_default(&c);
    mcts_puct *s = make(&c, &ev);
    mcts_puct_set_root(s, &p);
    search_ok(s, 50, false, NULL);
    const mcts_tree *t = mcts_puct_tree(s);
    const mcts_node *r = mcts_tree_root(t);
    ck_assert_uint_eq(r->nedges, (uint32_t)n);
    const mcts_edge *e = mcts_tree_edges(t, r->edges);
    ck_assert_uint_eq(e[0].move, d.favour);
    double sum = 0;
    for (uint32_t i = 0; i < r->nedges; i++) {
        sum += e[i].prior;
        if (i) ck_assert(e[i - 1].prior >= e[i].prior);
    }
    ck_assert(fabs(sum - 1) < 1e-3);
    ck_assert_uint_eq(mcts_puct_pick(s, 0), d.favour);              /* most visits */
    mcts_puct_free(s);
    /* max_children keeps the best priors, renormalised */
    mcts_evaluator ev2 = make_dbl(&d, V_ZERO);
    d.favour = mv[3];
    c.max_children = 10;
    s = make(&c, &ev2);
    mcts_puct_set_root(s, &p);
    search_ok(s, 30, false, NULL);
    t = mcts_puct_tree(s);
    r = mcts_tree_root(t);
    ck_assert_uint_eq(r->nedges, 10);
    ck_assert_uint_eq(r->nmoves, (uint32_t)n);
    e = mcts_tree_edges(t, r->edges);
    sum = 0;
    for (int i = 0; i < 10; i++) sum += e[i].prior;
    ck_assert(fabs(sum - 1) < 1e-4);
    ck_assert_uint_eq(e[0].move, mv[3]);
    assert_tree_ok(t);
    mcts_puct_free(s);
}
END_TEST

/* Root edge priors (move order and values) of a 1-simulation search from p with configuration c,
 * the network favouring p's middle move. */
static void root_priors(const zz_pos *p, mcts_puct_config *c, zz_move *moves, float *priors, uint32_t *nedges) {
    zz_move mv[ZZ_MAX_MOVES];
    int n = zz_gen_moves(p, mv);
    dbl d;
    mcts_evaluator ev = make_dbl(&d, V_ZERO);
    d.favour = mv[n / 2];
    mcts_puct *s = make(c, &ev);
    mcts_puct_set_root(s, p);
    search_ok(s, 1, false, NULL);
    const mcts_tree *t = mcts_puct_tree(s);
    const mcts_node *r = mcts_tree_root(t);
    const mcts_edge *e = mcts_tree_edges(t, r->edges);
    *nedges = r->nedges;
    for (uint32_t i = 0; i < r->nedges; i++) { moves[i] = e[i].move; priors[i] = e[i].prior; }
    mcts_puct_free(s);
}

/* The same from the 37-ring opening with prior temperature T. */
static void tempered_root(double T, zz_move *moves, float *priors, uint32_t *nedges) {
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    mcts_puct_config c;
    mcts_puct_config_default(&c);
    c.prior_temp = T;
    root_priors(&p, &c, moves, priors, nedges);
}

/* prior_temp T stores p^(1/T), renormalised: at T = 2 the priors are the square roots of T = 1's
 * over their sum, in the same order; the favoured move's share falls; T out of 0.1..10 is refused. */
START_TEST(puct_prior_temperature) {
    static zz_move m1[ZZ_MAX_MOVES], m2[ZZ_MAX_MOVES];
    static float p1[ZZ_MAX_MOVES], p2[ZZ_MAX_MOVES];
    uint32_t n1, n2;
    tempered_root(1.0, m1, p1, &n1);
    tempered_root(2.0, m2, p2, &n2);
    ck_assert_uint_eq(n1, n2);
    ck_assert_uint_gt(n1, 10);
    double root_sum = 0, sum2 = 0;
    for (uint32_t i = 0; i < n1; i++) root_sum += sqrt(p1[i]);
    for (uint32_t i = 0; i < n1; i++) {
        ck_assert_uint_eq(m1[i], m2[i]);
        ck_assert_msg(fabs(p2[i] - sqrt(p1[i]) / root_sum) < 1e-6, "edge %u: %g against %g", i, p2[i], sqrt(p1[i]) / root_sum);
        sum2 += p2[i];
    }
    ck_assert(fabs(sum2 - 1) < 1e-4);
    ck_assert(p1[0] > p1[n1 - 1]);              /* the favoured move first, and flattened at T = 2 */
    ck_assert(p2[0] < p1[0]);
    dbl d;
    mcts_evaluator ev = make_dbl(&d, V_ZERO);
    mcts_puct_config c;
    mcts_puct_config_default(&c);
    char err[256];
    for (int k = 0; k < 3; k++) {
        c.prior_temp = (double[]){ 0.05, 11, NAN }[k];
        ck_assert_ptr_null(mcts_puct_new(&c, &ev, err, sizeof err));
        ck_assert_msg(strstr(err, "prior_temp") != NULL, "%s", err);
    }
}
END_TEST

/* force_prior X multiplies the priors of the placements after which the next player must capture
 * by 1 + X, renormalised.  With Wd4 on the 37-ring board, a marble on one of d4's six neighbours
 * forces a jump (zz_place_landings) whatever ring is removed; the network's
 * priors are uniform but for one favoured move.  X out of 0..1000 is refused. */
START_TEST(puct_force_prior) {
    static zz_move m1[ZZ_MAX_MOVES], m2[ZZ_MAX_MOVES];
    static float p1[ZZ_MAX_MOVES], p2[ZZ_MAX_MOVES];
    uint32_t n1, n2;
    zz_pos p;
    th_build(&p, ZZ_B37, NULL, "Wd4");
    mcts_puct_config c;
    mcts_puct_config_default(&c);
    root_priors(&p, &c, m1, p1, &n1);
    c.force_prior = 3;
    root_priors(&p, &c, m2, p2, &n2);
    ck_assert_uint_eq(n1, n2);
    double boosted = 0;
    int forcing = 0;
    for (uint32_t i = 0; i < n1; i++) {
        bool forces = zz_place_forces(&p, m1[i]);
        forcing += forces;
        boosted += p1[i] * (forces ? 4 : 1);
    }
    ck_assert_int_eq(forcing, 6 * 3 * 18);   /* d4's 6 neighbours x 3 colours x the 18 free edge rings
                                                (every landing is an inner ring, never removable) */
    for (uint32_t j = 0; j < n2; j++) {
        uint32_t i = 0;
        while (i < n1 && m1[i] != m2[j]) i++;
        ck_assert_uint_lt(i, n1);
        bool forces = zz_place_forces(&p, m2[j]);
        double want = p1[i] * (forces ? 4 : 1) / boosted;
        ck_assert_msg(fabs(p2[j] - want) < 1e-6, "edge %u: %g against %g", j, p2[j], want);
    }
    ck_assert(zz_place_forces(&p, m2[0]));                       /* a forcing placement sorts first */
    dbl d;
    mcts_evaluator ev = make_dbl(&d, V_ZERO);
    char err[256];
    for (int k = 0; k < 3; k++) {
        c.force_prior = (double[]){ -1, 1001, NAN }[k];
        ck_assert_ptr_null(mcts_puct_new(&c, &ev, err, sizeof err));
        ck_assert_msg(strstr(err, "force_prior") != NULL, "%s", err);
    }
}
END_TEST

START_TEST(puct_root_noise) {
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    dbl d;
    mcts_evaluator ev = make_dbl(&d, V_ZERO);
    mcts_puct_config c;
    mcts_puct_config_default(&c);
    mcts_puct *s = make(&c, &ev);
    mcts_puct_set_root(s, &p);
    search_ok(s, 1, true, NULL);                                  /* expands the root, adds noise */
    const mcts_tree *t = mcts_puct_tree(s);
    const mcts_node *r = mcts_tree_root(t);
    ck_assert(r->noised);
    const mcts_edge *e = mcts_tree_edges(t, r->edges);
    double sum = 0, maxp = 0, uniform = 1.0 / r->nedges;
    for (uint32_t i = 0; i < r->nedges; i++) {
        sum += e[i].prior;
        if (e[i].prior > maxp) maxp = e[i].prior;
        if (i) ck_assert(e[i - 1].prior >= e[i].prior);           /* still sorted */
    }
    ck_assert(fabs(sum - 1) < 1e-3);
    ck_assert(maxp > 2 * uniform);                                /* alpha ~ 10/1944: spiky noise */
    ck_assert(e[r->nedges - 1].prior >= 0.74 * uniform);          /* (1 - eps) of the prior stays */
    float first = e[0].prior;
    search_ok(s, 100, true, NULL);                                /* not noised twice */
    ck_assert(mcts_tree_edges(t, r->edges)[0].prior == first);
    mcts_puct_free(s);
    /* without noise the priors stay uniform */
    mcts_evaluator ev2 = make_dbl(&d, V_ZERO);
    s = make(&c, &ev2);
    mcts_puct_set_root(s, &p);
    search_ok(s, 1, false, NULL);
    t = mcts_puct_tree(s);
    r = mcts_tree_root(t);
    ck_assert(!r->noised);
    ck_assert(fabs(mcts_tree_edges(t, r->edges)[0].prior - 1.0 / r->nedges) < 1e-7);
    mcts_puct_free(s);
}
END_TEST

START_TEST(puct_temperature) {
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    dbl d;
    mcts_evaluator ev = make_dbl(&d, V_ROLLOUT);
    mcts_puct_config c;
    mcts_puct_config_default(&c);
    mcts_puct *s = make(&c, &ev);
    mcts_puct_set_root(s, &p);
    search_ok(s, 400, false, NULL);
    zz_move mv[8];
    int vis[8];
    int n = mcts_tree_root_children(mcts_puct_tree(s), mv, vis, NULL, 8);
    ck_assert_int_ge(n, 2);
    for (int i = 0; i < 20; i++) ck_assert_uint_eq(mcts_puct_pick(s, 0), mv[0]);
    /* T = 1: the most visited move is drawn about N0 / N of the time */
    uint32_t N = 0;
    MCTS_FOR_EACH_CHILD(mcts_puct_tree(s), mcts_tree_root(mcts_puct_tree(s)), ch) N += mcts_stats_n(mcts_node_load(ch));
    int hits = 0, draws = 4000;
    for (int i = 0; i < draws; i++) hits += mcts_puct_pick(s, 1.0) == mv[0];
    double want = (double)vis[0] / N, sd = sqrt(want * (1 - want) / draws);
    ck_assert_msg(fabs((double)hits / draws - want) < 5 * sd + 1e-3, "hits %d want %.3f", hits, want);
    mcts_puct_free(s);
}
END_TEST

START_TEST(puct_playout_cap_randomisation) {
    dbl d;
    mcts_evaluator ev = make_dbl(&d, V_ZERO);
    mcts_puct_config c;
    mcts_puct_config_default(&c);
    c.full_prob = 0.3;
    c.sims_full = 40;
    c.sims_fast = 6;
    c.noise = 1;
    mcts_puct *s = make(&c, &ev);
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    int full = 0, turns = 300 / SCALE;
    for (int i = 0; i < turns; i++) {
        mcts_puct_set_root(s, &p);
        mcts_think th;
        char err[256];
        ck_assert_int_eq(mcts_puct_think(s, 0, 0, &th, err, sizeof err), 0);
        ck_assert(zz_is_legal(&p, th.move));
        ck_assert_uint_eq(th.stats.iterations, th.full ? 40u : 6u);
        ck_assert_int_eq(mcts_tree_root(mcts_puct_tree(s))->noised, th.full);   /* noise: full only */
        full += th.full;
    }
    double f = (double)full / turns;
    ck_assert_msg(f > 0.3 - 0.15 && f < 0.3 + 0.15, "full fraction %.2f", f);
    mcts_think th;
    char err[256];
    ck_assert_int_eq(mcts_puct_think(s, 17, 0, &th, err, sizeof err), 0);    /* explicit budget */
    ck_assert(th.full);
    mcts_puct_free(s);
}
END_TEST

START_TEST(puct_tree_reuse) {
    dbl d;
    mcts_evaluator ev = make_dbl(&d, V_ROLLOUT);
    mcts_puct_config c;
    mcts_puct_config_default(&c);
    c.edge_window = 0;            /* evaluations counted against expansions: none to widen */
    mcts_puct *s = make(&c, &ev);
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    mcts_puct_set_root(s, &p);
    for (int move = 0; move < 4; move++) {
        mcts_think th;
        char err[256];
        ck_assert_int_eq(mcts_puct_think(s, 300 / SCALE, 0, &th, err, sizeof err), 0);
        const mcts_tree *t = mcts_puct_tree(s);
        uint32_t want = 0;
        uint64_t h = 0;
        MCTS_FOR_EACH_CHILD(t, mcts_tree_root(t), ch)
            if (ch->move == th.move) { want = mcts_stats_n(mcts_node_load(ch)); h = tree_hash(t, ch); }
        bool kept = mcts_puct_advance(s, th.move);
        zz_apply(&p, th.move, NULL);
        ck_assert(zz_pos_equal(&t->root_pos, &p));
        ck_assert_int_eq(kept, want > 0);
        ck_assert_uint_eq(root_n(s), want);
        if (kept) ck_assert_uint_eq(tree_hash(t, mcts_tree_root(t)), h);
        assert_tree_ok(t);
        long before = atomic_load(&d.positions), expanded = count_expanded(t, mcts_tree_root(t));
        search_ok(s, 100, false, NULL);
        ck_assert_uint_eq(root_n(s), want + 100);
        ck_assert_int_eq(atomic_load(&d.positions) - before, count_expanded(t, mcts_tree_root(t)) - expanded);
        assert_tree_ok(t);
    }
    mcts_puct_free(s);
}
END_TEST

/* Edge windows (edge_window): the shipped network's search on each board, with tree reuse over
 * three moves, is the same search with a window of 2 edges (widened again and again) as with
 * every edge stored: the same root children, visits and values, the same tree below the root, for
 * a fraction of the edges; with two threads the tree's invariants hold.  Mapping a widened node's
 * edges in another order (a wrong prefix) would change the tree. */
static uint64_t search_edges(mcts_puct *s) {
    const mcts_tree *t = mcts_puct_tree(s);
    return mcts_arena_used(&t->edges[t->cur]);
}

/* s[0] with every edge stored, s[1] with windows of 2 edges: otherwise the default search. */
static void make_window_pair(mcts_evaluator *ev, mcts_puct *s[2]) {
    for (int w = 0; w < 2; w++) {
        mcts_puct_config c;
        mcts_puct_config_default(&c);
        c.edge_window = w ? 2 : 0;
        s[w] = make(&c, ev);
    }
}

START_TEST(puct_edge_windows_same_search) {
    static const char *nets[] = { "weights/zertz37.ckpt", "weights/zertz48.ckpt", "weights/zertz61.ckpt" };
    for (int b = 0; b < 3; b++) {
        char err[256];
        mcts_evaluator *ev = mcts_eval_nn_new(nets[b], err, sizeof err);
        ck_assert_msg(ev, "%s", err);
        mcts_puct *s[2];
        make_window_pair(ev, s);
        zz_pos p;
        zz_pos_init(&p, (zz_board_kind)b);
        uint64_t rng = 77 + (uint64_t)b;
        for (int i = 0; i < 4; i++) zz_apply(&p, zz_random_move(&p, &rng), NULL);
        for (int w = 0; w < 2; w++) mcts_puct_set_root(s[w], &p);
        uint64_t evals[2] = { 0, 0 };
        for (int move = 0; move < 3 && !zz_over(&p); move++) {
            int sims = 600 / SCALE;
            mcts_search_stats st[2];
            for (int w = 0; w < 2; w++) { search_ok(s[w], (uint64_t)sims, false, &st[w]); evals[w] += st[w].evals; }
            const mcts_tree *ta = mcts_puct_tree(s[0]), *tb = mcts_puct_tree(s[1]);
            assert_tree_ok(tb);
            ck_assert_uint_eq(tree_hash(ta, mcts_tree_root(ta)), tree_hash(tb, mcts_tree_root(tb)));
            zz_move ma[ZZ_MAX_MOVES], mb[ZZ_MAX_MOVES];
            int va[ZZ_MAX_MOVES], vb[ZZ_MAX_MOVES];
            float qa[ZZ_MAX_MOVES], qb[ZZ_MAX_MOVES];
            int na = mcts_tree_root_children(ta, ma, va, qa, ZZ_MAX_MOVES), nb = mcts_tree_root_children(tb, mb, vb, qb, ZZ_MAX_MOVES);
            ck_assert_int_eq(na, nb);
            for (int i = 0; i < na; i++) ck_assert(ma[i] == mb[i] && va[i] == vb[i] && qa[i] == qb[i]);
            ck_assert_msg(search_edges(s[1]) * 3 < search_edges(s[0]), "board %d: %llu edges with windows, %llu without", b,
                          (unsigned long long)search_edges(s[1]), (unsigned long long)search_edges(s[0]));
            zz_move m = mcts_puct_pick(s[0], 0);
            ck_assert(m == mcts_puct_pick(s[1], 0));
            for (int w = 0; w < 2; w++) mcts_puct_advance(s[w], m);  /* the new root is widened whole */
            zz_apply(&p, m, NULL);
        }
        ck_assert_msg(evals[1] > evals[0], "board %d: no node was widened (%llu evaluations)", b, (unsigned long long)evals[1]);
        for (int w = 0; w < 2; w++) mcts_puct_free(s[w]);
        mcts_puct_config c;                                  /* two threads, a copy of the network each */
        mcts_puct_config_default(&c);
        c.edge_window = 2;
        c.threads = 2;
        mcts_puct *two = make(&c, ev);
        mcts_puct_set_root(two, &p);
        mcts_search_stats st;
        search_ok(two, 800 / SCALE, false, &st);
        ck_assert_uint_eq(root_n(two), 800 / SCALE);
        assert_tree_ok(mcts_puct_tree(two));
        mcts_puct_free(two);
        mcts_evaluator_free(ev);
    }
}
END_TEST

/* An evaluator whose priors change from call to call (random each time): with edge windows the
 * search refuses to widen a node whose moves it now ranks otherwise, with a message, instead of
 * building a tree in which a move could get two children. */
static int fickle_eval(mcts_evaluator *self, mcts_eval_item *it, int n, char *err, size_t errlen) {
    uint64_t *rng = self->ctx;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < it[i].nmoves; j++) it[i].priors[j] = (float)(zz_rand_below(rng, 1000) + 1);
        it[i].value = 0;
    }
    return 0;
}

START_TEST(puct_edge_windows_refuse_a_fickle_evaluator) {
    uint64_t rng = 99;
    mcts_evaluator ev = { .name = "fickle", .evaluate = fickle_eval, .ctx = &rng };
    mcts_puct_config c;
    mcts_puct_config_default(&c);
    c.edge_window = 2;
    mcts_puct *s = make(&c, &ev);
    zz_pos p;
    th_build(&p, ZZ_B37, NULL, "Wd2 Bd3 Bd5 Ga1");            /* 3 moves: deep, busy children */
    mcts_puct_set_root(s, &p);
    char err[256] = "";
    ck_assert_int_eq(mcts_puct_search(s, 2000, 0, false, NULL, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "ranked its moves otherwise"), "%s", err);
    assert_tree_ok(mcts_puct_tree(s));                      /* reset after the failure: sound */
    mcts_puct_free(s);
    c.edge_window = 0;                                       /* every edge stored: nothing to widen */
    s = make(&c, &ev);
    mcts_puct_set_root(s, &p);
    search_ok(s, 2000, false, NULL);
    ck_assert_uint_eq(root_n(s), 2000);
    mcts_puct_free(s);
}
END_TEST

START_TEST(puct_evaluator_failure) {
    for (int threads = 1; threads <= 3; threads += 2) {
        dbl d;
        mcts_evaluator ev = make_dbl(&d, V_ZERO);
        d.fail_at = 5;
        mcts_puct_config c;
        mcts_puct_config_default(&c);
        c.threads = threads;
        mcts_puct *s = make(&c, &ev);
        zz_pos p;
        zz_pos_init(&p, ZZ_B37);
        mcts_puct_set_root(s, &p);
        char err[256] = "";
        ck_assert_int_eq(mcts_puct_search(s, 1000, 0, false, NULL, err, sizeof err), -1);
        ck_assert_msg(strstr(err, "failed on purpose") != NULL, "%s", err);
        ck_assert_uint_eq(mcts_tree_size(mcts_puct_tree(s)), 1);       /* reset: nothing PENDING */
        assert_tree_ok(mcts_puct_tree(s));
        d.fail_at = 0;                                                 /* and it recovers */
        search_ok(s, 50, false, NULL);
        ck_assert_uint_eq(root_n(s), 50);
        mcts_puct_free(s);
    }
    char err[256];
    ck_assert_ptr_null(mcts_puct_new(&(mcts_puct_config){ .c_puct = 1 }, NULL, err, sizeof err));
}
END_TEST

START_TEST(puct_builtin_evaluators) {
    char err[256];
    ck_assert_ptr_null(mcts_eval_by_name("weights/none.ckpt", 1, err, sizeof err));
    ck_assert_msg(strstr(err, "weights/none.ckpt") != NULL, "%s", err);
    const char *names[] = { "uniform", "rollout", "rollout:4" };
    ck_assert(!mcts_eval_is_builtin("weights/none.ckpt") && !mcts_eval_is_builtin("rollouts"));
    ck_assert(mcts_eval_is_builtin("rollout:x"));             /* by_name then refuses K */
    ck_assert_ptr_null(mcts_eval_by_name("rollout:x", 1, err, sizeof err));
    ck_assert_msg(strstr(err, "rollout:K needs K") != NULL, "%s", err);
    for (int k = 0; k < 3; k++) {
        ck_assert(mcts_eval_is_builtin(names[k]));
        mcts_evaluator *ev = mcts_eval_by_name(names[k], 1, err, sizeof err);
        ck_assert_ptr_nonnull(ev);
        mcts_puct_config c;
        mcts_puct_config_default(&c);
        c.threads = k == 2 ? 2 : 1;
        mcts_puct *s = make(&c, ev);
        zz_pos p;
        zz_pos_init(&p, ZZ_B61);
        mcts_puct_set_root(s, &p);
        search_ok(s, 300 / SCALE, true, NULL);
        ck_assert_uint_eq(root_n(s), 300 / SCALE);
        assert_tree_ok(mcts_puct_tree(s));
        mcts_puct_free(s);
        mcts_evaluator_free(ev);
    }
}
END_TEST

/* A copy of the network evaluator answers exactly as the original, in every precision this CPU
 * has (the copy keeps the original's), on the positions of a random game. */
static void assert_copy_answers_alike(mcts_evaluator *ev) {
    static const char *precisions[] = { "f32", "bf16", "int8" };
    char err[256];
    for (int k = 0; k < 3; k++) {
        if (mcts_eval_nn_set_precision(ev, precisions[k], err, sizeof err) != 0) continue;   /* CPU lacks it */
        mcts_evaluator *copy = mcts_evaluator_clone(ev, err, sizeof err);
        ck_assert_msg(copy != NULL, "%s", err);
        ck_assert_str_eq(copy->name, ev->name);
        ck_assert(th_same_answers(ev, copy, ZZ_B37, 8, 3));
        mcts_evaluator_free(copy);
    }
    mcts_eval_nn_set_precision(ev, nn_precision_name(nn_precision_default()), err, sizeof err);
}

START_TEST(puct_network_evaluator) {
#if defined(__SANITIZE_THREAD__) && defined(_OPENMP)
    omp_set_num_threads(1);   /* libgomp is not instrumented: its barriers look like races to TSan */
#endif
    /* a small random network, saved and loaded back as an evaluator */
    char path[] = "/tmp/zz-puct-net-XXXXXX", err[256];
    th_temp_file(path);
    nn_config cfg;
    nn_config_default(&cfg, ZZ_B37);
    cfg.channels = 8;
    cfg.blocks = 1;
    cfg.policy_channels = 4;
    cfg.value_channels = 2;
    cfg.value_hidden = 8;
    nn_model *m = nn_model_create(&cfg, NN_F32, 3, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    ck_assert_msg(nn_checkpoint_save(path, m, 0, false, err, sizeof err) == 0, "%s", err);
    nn_model_free(m);
    mcts_evaluator *ev = mcts_eval_by_name(path, 1, err, sizeof err);
    ck_assert_msg(ev != NULL, "%s", err);
    assert_copy_answers_alike(ev);
    mcts_puct_config c;
    mcts_puct_config_default(&c);
    mcts_puct *s = make(&c, ev);
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    mcts_puct_set_root(s, &p);
    search_ok(s, 100 / SCALE, true, NULL);
    const mcts_tree *t = mcts_puct_tree(s);
    const mcts_node *r = mcts_tree_root(t);
    double sum = 0;
    for (uint32_t i = 0; i < r->nedges; i++) sum += mcts_tree_edges(t, r->edges)[i].prior;
    ck_assert(fabs(sum - 1) < 1e-3);
    ck_assert(r->value >= -1 && r->value <= 1);
    assert_tree_ok(t);
    mcts_puct_free(s);
    c.threads = 2;                                    /* two threads, an evaluator each */
    s = make(&c, ev);
    mcts_puct_set_root(s, &p);
    mcts_search_stats st;
    search_ok(s, 200 / SCALE, true, &st);
    ck_assert_uint_eq(root_n(s), 200 / SCALE);
    assert_tree_ok(mcts_puct_tree(s));
    zz_pos other;
    zz_pos_init(&other, ZZ_B61);                      /* the wrong board is a clear error */
    mcts_puct_set_root(s, &other);
    ck_assert_int_eq(mcts_puct_search(s, 10, 0, false, NULL, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "board") != NULL, "%s", err);
    mcts_puct_free(s);
    mcts_evaluator_free(ev);
    char spec[128];                                   /* and as an arena agent */
    snprintf(spec, sizeof spec, "puct:%s:20", path);
    mcts_agent *a = mcts_agent_new(spec, 1, err, sizeof err);
    ck_assert_msg(a != NULL, "%s", err);
    ck_assert_int_eq(mcts_agent_newgame(a, &p, 1, err, sizeof err), 0);
    zz_move mv;
    ck_assert_int_eq(mcts_agent_choose(a, &p, &mv, err, sizeof err), 0);
    ck_assert(zz_is_legal(&p, mv));
    mcts_agent_free(a);
    unlink(path);
}
END_TEST

/* ---- per-thread evaluators: a double that can be copied ----------------------------------------
 * Every copy is checked never to be entered by two threads at once; once armed, at its first call
 * each waits (up to 5 s) until every copy has been called, which only happens when the threads
 * really evaluate side by side. */
enum { CD_MAX = 8 };
typedef struct {
    int want;                        /* copies (with the original) expected to take part */
    int armed;                       /* first calls wait (set after the root's evaluation: alone) */
    _Atomic int made, live, entered; /* copies made, copies not yet freed, first calls so far */
    _Atomic int overlap, alone;      /* a copy entered twice at once; a first call that waited in vain */
    _Atomic long positions;          /* over every copy */
    int fail_clone;                  /* clone() fails */
    long fail_at;                    /* every copy fails from this call of its own on (0 = never) */
} cd_family;
typedef struct { dbl d; cd_family *f; _Atomic int busy; bool first_done; } cd_ctx;

static int cd_eval(mcts_evaluator *self, mcts_eval_item *it, int n, char *err, size_t errlen) {
    cd_ctx *c = self->ctx;
    if (atomic_exchange(&c->busy, 1)) atomic_fetch_add(&c->f->overlap, 1);
    if (c->f->armed && !c->first_done) {
        c->first_done = true;
        atomic_fetch_add(&c->f->entered, 1);
        double t0 = mcts_now_s();
        while (atomic_load(&c->f->entered) < c->f->want && mcts_now_s() - t0 < 5) sched_yield();
        if (atomic_load(&c->f->entered) < c->f->want) atomic_fetch_add(&c->f->alone, 1);
    }
    c->d.fail_at = c->f->fail_at;
    mcts_evaluator inner = { .evaluate = dbl_eval, .ctx = &c->d };
    int rc = dbl_eval(&inner, it, n, err, errlen);
    if (rc == 0) atomic_fetch_add(&c->f->positions, n);
    atomic_store(&c->busy, 0);
    return rc;
}

static void cd_destroy(mcts_evaluator *self) {
    cd_ctx *c = self->ctx;
    atomic_fetch_sub(&c->f->live, 1);
    free(c);
    free(self);
}

static mcts_evaluator *cd_clone(mcts_evaluator *self, char *err, size_t errlen) {
    cd_ctx *c = self->ctx;
    if (c->f->fail_clone) { snprintf(err, errlen, "cannot copy on purpose"); return NULL; }
    mcts_evaluator *e = calloc(1, sizeof *e);
    cd_ctx *k = calloc(1, sizeof *k);
    ck_assert(e && k);
    make_dbl(&k->d, V_ROLLOUT);
    k->d.rng = 777 + (uint64_t)atomic_load(&c->f->made);
    k->f = c->f;
    atomic_fetch_add(&c->f->made, 1);
    atomic_fetch_add(&c->f->live, 1);
    *e = (mcts_evaluator){ .name = "double copy", .evaluate = cd_eval, .destroy = cd_destroy, .clone = cd_clone, .ctx = k };
    return e;
}

static mcts_evaluator make_cd(cd_ctx *c, cd_family *f, int want) {
    memset(f, 0, sizeof *f);
    memset(c, 0, sizeof *c);
    f->want = want;
    make_dbl(&c->d, V_ROLLOUT);
    c->f = f;
    return (mcts_evaluator){ .name = "double", .evaluate = cd_eval, .clone = cd_clone, .ctx = c };
}

START_TEST(puct_per_thread_evaluators) {
    for (int threads = 2; threads <= 3; threads++) {
        cd_family f;
        cd_ctx c0;
        mcts_evaluator ev = make_cd(&c0, &f, threads);
        mcts_puct_config c;
        mcts_puct_config_default(&c);
        c.threads = threads;
        c.batch = 4;
        mcts_puct *s = make(&c, &ev);
        zz_pos p;
        zz_pos_init(&p, ZZ_B48);
        mcts_puct_set_root(s, &p);
        mcts_search_stats st;
        search_ok(s, 1, true, &st);                                   /* the root, evaluated alone */
        f.armed = 1;
        int sims = 1200 / SCALE;
        search_ok(s, (uint64_t)sims - 1, true, &st);
        const mcts_tree *t = mcts_puct_tree(s);
        ck_assert_int_eq(atomic_load(&f.made), threads - 1);          /* a copy per extra thread */
        ck_assert_int_eq(atomic_load(&f.overlap), 0);                 /* each copy used by one thread */
        ck_assert_int_eq(atomic_load(&f.alone), 0);                   /* and side by side */
        ck_assert_uint_eq(st.iterations, (uint64_t)sims - 1);
        ck_assert_uint_eq(root_n(s), (uint32_t)sims);
        assert_tree_ok(t);
        ck_assert_int_eq(atomic_load(&f.positions), count_expanded(t, mcts_tree_root(t)));
        ck_assert_uint_eq(st.evals + 1, (uint64_t)atomic_load(&f.positions));
        search_ok(s, 300 / SCALE, false, &st);                        /* the copies are kept */
        ck_assert_int_eq(atomic_load(&f.made), threads - 1);
        ck_assert_uint_eq(root_n(s), (uint32_t)(sims + 300 / SCALE));
        ck_assert_int_eq(atomic_load(&f.positions), count_expanded(t, mcts_tree_root(t)));
        f.fail_at = 3;                                                /* a failing copy stops the search */
        char err[256] = "";
        ck_assert_int_eq(mcts_puct_search(s, 5000, 0, false, NULL, err, sizeof err), -1);
        ck_assert_msg(strstr(err, "failed on purpose") != NULL, "%s", err);
        assert_tree_ok(t);                                            /* reset: nothing PENDING */
        f.fail_at = 0;
        search_ok(s, 100, false, NULL);
        ck_assert_uint_eq(root_n(s), 100);
        mcts_puct_free(s);
        ck_assert_int_eq(atomic_load(&f.live), 0);                    /* every copy freed */
    }
}
END_TEST

START_TEST(puct_shared_evaluator_when_not_copied) {
    for (int mode = 0; mode < 2; mode++) {          /* 0: thread_evaluators off; 1: clone fails */
        cd_family f;
        cd_ctx c0;
        mcts_evaluator ev = make_cd(&c0, &f, 1);
        f.fail_clone = mode == 1;
        mcts_puct_config c;
        mcts_puct_config_default(&c);
        c.threads = 2;
        c.thread_evaluators = mode == 1;
        mcts_puct *s = make(&c, &ev);
        zz_pos p;
        zz_pos_init(&p, ZZ_B37);
        mcts_puct_set_root(s, &p);
        for (int k = 0; k < 2; k++) search_ok(s, 400 / SCALE, true, NULL);   /* the batcher serves */
        ck_assert_int_eq(atomic_load(&f.made), 0);
        ck_assert_int_eq(atomic_load(&f.overlap), 0);
        ck_assert_uint_eq(root_n(s), 2 * (400 / SCALE));
        assert_tree_ok(mcts_puct_tree(s));
        mcts_puct_free(s);
    }
}
END_TEST

/* ---- edge windows in the stepping API: widenings are requests, evaluated like leaves ------- */
/* `sims` simulations of s through worker w (one slot), each request evaluated by ev at once, the
 * root's noise mixed in once it is ready (as self-play does).  Returns the widening requests. */
static int step_search(mcts_puct *s, mcts_puct_worker *w, mcts_evaluator *ev, int sims, bool noise) {
    char err[256];
    int started = 0, widenings = 0;
    while (started < sims) {
        if (noise && mcts_puct_root_ready(s) && !mcts_tree_root(mcts_puct_tree(s))->noised) mcts_puct_root_noise(s);
        mcts_request *r;
        int st = mcts_puct_step(w, &r);
        ck_assert_msg(st == MCTS_STEP_SUBMIT || st == MCTS_STEP_WIDEN || st == MCTS_STEP_DONE, "step: %d", st);
        if (st == MCTS_STEP_DONE) { started++; continue; }
        ck_assert_int_eq(mcts_evaluate(ev, &r->item, 1, err, sizeof err), 0);
        atomic_store_explicit(&r->state, MCTS_REQ_DONE, memory_order_release);
        mcts_puct_finish(w, r);
        if (st == MCTS_STEP_SUBMIT) started++;
        else widenings++;
    }
    return widenings;
}

/* Whether every expanded node of the subtree at n stores edges of distinct moves. */
static bool edges_distinct(const mcts_tree *t, const mcts_node *n) {
    if (atomic_load(&((mcts_node *)n)->state) == MCTS_EXPANDED && n->nedges > 1) {
        const mcts_edge *e = mcts_tree_edges(t, n->edges);
        for (uint32_t i = 0; i < n->nedges; i++)
            for (uint32_t j = 0; j < i; j++)
                if (e[i].move == e[j].move) return false;
    }
    MCTS_FOR_EACH_CHILD(t, n, c) if (!edges_distinct(t, c)) return false;
    return true;
}

/* Self-play's way: the shipped network's stepped search with a window of 2 is the stepped search
 * with every edge stored, over three moves with tree reuse and root noise (a reused root is not
 * ready until its own widening request has given it every edge: noise over a window would change
 * the tree), for a fraction of the edges. */
START_TEST(puct_stepping_edge_windows_same_search) {
    static const char *nets[] = { "weights/zertz37.ckpt", "weights/zertz61.ckpt" };
    static const zz_board_kind boards[] = { ZZ_B37, ZZ_B61 };
    for (int b = 0; b < 2; b++) {
        char err[256];
        mcts_evaluator *ev = mcts_eval_nn_new(nets[b], err, sizeof err);
        ck_assert_msg(ev, "%s", err);
        mcts_puct *s[2];
        mcts_puct_worker *w[2];
        make_window_pair(ev, s);
        for (int k = 0; k < 2; k++) ck_assert_ptr_nonnull(w[k] = mcts_puct_worker_new(s[k], 1, 9));
        zz_pos p;
        zz_pos_init(&p, boards[b]);
        uint64_t rng = 61 + (uint64_t)b;
        for (int i = 0; i < 4; i++) zz_apply(&p, zz_random_move(&p, &rng), NULL);
        for (int k = 0; k < 2; k++) mcts_puct_set_root(s[k], &p);
        int widenings = 0, root_widenings = 0;
        for (int move = 0; move < 3 && !zz_over(&p); move++) {
            if (move > 0) {                                  /* a reused root kept its window */
                ck_assert(mcts_puct_root_ready(s[0]));
                root_widenings += !mcts_puct_root_ready(s[1]);
            }
            ck_assert_int_eq(step_search(s[0], w[0], ev, 500 / SCALE, true), 0);
            widenings += step_search(s[1], w[1], ev, 500 / SCALE, true);
            const mcts_tree *ta = mcts_puct_tree(s[0]), *tb = mcts_puct_tree(s[1]);
            assert_tree_ok(tb);
            ck_assert(mcts_tree_root(tb)->noised);
            ck_assert_uint_eq(tree_hash(ta, mcts_tree_root(ta)), tree_hash(tb, mcts_tree_root(tb)));
            ck_assert_msg(search_edges(s[1]) * 3 < search_edges(s[0]), "board %d: %llu edges with windows, %llu without", b,
                          (unsigned long long)search_edges(s[1]), (unsigned long long)search_edges(s[0]));
            zz_move m = mcts_puct_pick(s[0], 0);
            ck_assert(m == mcts_puct_pick(s[1], 0));
            for (int k = 0; k < 2; k++) mcts_puct_advance(s[k], m);
            zz_apply(&p, m, NULL);
        }
        ck_assert_int_gt(root_widenings, 0);
        ck_assert_int_gt(widenings, root_widenings);         /* nodes below the root widened too */
        mcts_puct_worker_stats ws = mcts_puct_worker_get_stats(w[1]);
        ck_assert_int_eq((int)ws.widened, widenings);
        ck_assert_int_eq((int)ws.reranked, 0);               /* the network answers alike each time */
        for (int k = 0; k < 2; k++) { mcts_puct_worker_free(w[k]); mcts_puct_free(s[k]); }
        mcts_evaluator_free(ev);
    }
}
END_TEST

/* The weights may change between a node's expansion and its widening (training publishes new
 * ones): a widening request whose evaluation ranks the moves otherwise keeps the old edges first
 * (children sit on them) and merges the rest in; the tree stays sound, with one edge per move.
 * With four requests in flight, finished in reverse order, the same holds and every simulation
 * is counted once; and so with two threads sharing the batcher (mcts_puct_search's workers). */
START_TEST(puct_stepping_edge_windows_merge_a_new_ranking) {
    uint64_t rng = 99;
    mcts_evaluator ev = { .name = "fickle", .evaluate = fickle_eval, .ctx = &rng };
    mcts_puct_config c;
    mcts_puct_config_default(&c);
    c.edge_window = 2;
    zz_pos p;
    th_build(&p, ZZ_B37, NULL, "Wd2 Bd3 Bd5 Ga1");            /* 3 moves: deep, busy children */
    mcts_puct *s = make(&c, &ev);
    mcts_puct_set_root(s, &p);
    mcts_puct_worker *w = mcts_puct_worker_new(s, 1, 3);
    ck_assert_ptr_nonnull(w);
    int widenings = step_search(s, w, &ev, 2000, false);
    const mcts_tree *t = mcts_puct_tree(s);
    assert_tree_ok(t);
    ck_assert(edges_distinct(t, mcts_tree_root(t)));
    ck_assert_uint_eq(root_n(s), 2000);
    mcts_puct_worker_stats ws = mcts_puct_worker_get_stats(w);
    ck_assert_int_eq((int)ws.widened, widenings);
    ck_assert_msg(ws.reranked > 0 && ws.reranked <= ws.widened, "%llu of %llu widenings reranked",
                  (unsigned long long)ws.reranked, (unsigned long long)ws.widened);
    mcts_puct_worker_free(w);
    mcts_puct_free(s);

    s = make(&c, &ev);                                      /* four in flight, finished out of order */
    mcts_puct_set_root(s, &p);
    w = mcts_puct_worker_new(s, 4, 4);
    ck_assert_ptr_nonnull(w);
    char err[256];
    int started = 0, target = 3000 / SCALE;
    while (started < target) {
        mcts_request *batch[4];
        int n = 0, st;
        while (n < 4 && started < target && (st = mcts_puct_step(w, &batch[n])) != MCTS_STEP_BUSY) {
            if (st == MCTS_STEP_SUBMIT) started++;
            if (st == MCTS_STEP_DONE) started++;
            if (st == MCTS_STEP_SUBMIT || st == MCTS_STEP_WIDEN) n++;
            else if (st != MCTS_STEP_DONE) break;                 /* a collision: finish what is out */
        }
        for (int i = n - 1; i >= 0; i--) {
            ck_assert_int_eq(mcts_evaluate(&ev, &batch[i]->item, 1, err, sizeof err), 0);
            atomic_store_explicit(&batch[i]->state, MCTS_REQ_DONE, memory_order_release);
            mcts_puct_finish(w, batch[i]);
        }
    }
    t = mcts_puct_tree(s);
    assert_tree_ok(t);
    ck_assert(edges_distinct(t, mcts_tree_root(t)));
    ck_assert_uint_eq(root_n(s), (uint32_t)target);
    ck_assert_int_gt((int)mcts_puct_worker_get_stats(w).reranked, 0);
    mcts_puct_worker_free(w);
    mcts_puct_free(s);

    c.threads = 2;                                          /* workers sharing the batcher: they ask too */
    c.thread_evaluators = 0;
    s = make(&c, &ev);
    mcts_puct_set_root(s, &p);
    mcts_search_stats st;
    search_ok(s, 3000 / SCALE, false, &st);
    t = mcts_puct_tree(s);
    assert_tree_ok(t);
    ck_assert(edges_distinct(t, mcts_tree_root(t)));
    ck_assert_uint_eq(root_n(s), 3000 / SCALE);
    ck_assert_uint_eq(st.iterations, 3000 / SCALE);
    ck_assert_uint_gt(st.evals, count_expanded(t, mcts_tree_root(t)));   /* nodes evaluated again */
    mcts_puct_free(s);
}
END_TEST

/* ---- the stepping API as a self-play scheduler uses it: many trees, one batcher ------------- */
enum { GAMES = 6, SCHEDULERS = 2, TARGET = 300 };
typedef struct {
    mcts_puct *s;
    mcts_puct_worker *w;
    mcts_request *inflight[4];
    int ninflight, started, noised, widenings;
} game_t;
typedef struct { game_t *g; int n; mcts_batcher *b; } sched_arg;

static void *scheduler(void *arg) {
    sched_arg *a = arg;
    for (;;) {
        int busy = 0, progress = 0;
        for (int i = 0; i < a->n; i++) {
            game_t *g = &a->g[i];
            for (int k = 0; k < g->ninflight; k++)
                if (mcts_request_state(g->inflight[k]) == MCTS_REQ_DONE) {
                    mcts_puct_finish(g->w, g->inflight[k]);
                    g->inflight[k--] = g->inflight[--g->ninflight];
                    progress = 1;
                }
            if (!g->noised && mcts_stats_n(mcts_node_load(mcts_tree_root(mcts_puct_tree(g->s)))) > 0) {
                if (g->ninflight == 0) { mcts_puct_root_noise(g->s); g->noised = 1; }
            }
            if (g->started < TARGET && (g->noised || g->started == 0)) {
                mcts_request *r;
                int st = mcts_puct_step(g->w, &r);
                if (st == MCTS_STEP_SUBMIT || st == MCTS_STEP_WIDEN) {
                    while (!mcts_batcher_submit(a->b, r)) sched_yield();
                    g->inflight[g->ninflight++] = r;
                    g->started += st == MCTS_STEP_SUBMIT;       /* a widening is no simulation */
                    g->widenings += st == MCTS_STEP_WIDEN;
                    progress = 1;
                } else if (st == MCTS_STEP_DONE) {
                    g->started++;
                    progress = 1;
                }
            }
            busy |= g->started < TARGET || g->ninflight > 0;
        }
        if (!busy) return NULL;
        if (!progress) sched_yield();
    }
}

static void *batcher_thread(void *arg) {
    mcts_batcher_run(arg);
    return NULL;
}

START_TEST(puct_scheduler_stepping) {
    dbl d;
    mcts_evaluator ev = make_dbl(&d, V_ROLLOUT);
    mcts_batcher b;
    ck_assert_int_eq(mcts_batcher_init(&b, &ev, 16, GAMES * 4 + 4), 0);
    game_t games[GAMES];
    mcts_puct_config c;
    mcts_puct_config_default(&c);
    c.edge_window = 2;                                     /* widenings through the batcher too */
    for (int i = 0; i < GAMES; i++) {
        memset(&games[i], 0, sizeof games[i]);
        c.seed = (uint64_t)i + 1;
        games[i].s = make(&c, &ev);
        zz_pos p;
        zz_pos_init(&p, (zz_board_kind)(i % 3));
        if (i == 0) th_build(&p, ZZ_B37, NULL, "Wd2 Bd3 Bd5 Ga1");       /* narrow: collisions */
        mcts_puct_set_root(games[i].s, &p);
        games[i].w = mcts_puct_worker_new(games[i].s, 4, (uint64_t)i);
        ck_assert_ptr_nonnull(games[i].w);
    }
    pthread_t bt, st[SCHEDULERS];
    pthread_create(&bt, NULL, batcher_thread, &b);
    sched_arg sa[SCHEDULERS];
    for (int k = 0; k < SCHEDULERS; k++) {
        sa[k] = (sched_arg){ games + k * (GAMES / SCHEDULERS), GAMES / SCHEDULERS, &b };
        pthread_create(&st[k], NULL, scheduler, &sa[k]);
    }
    for (int k = 0; k < SCHEDULERS; k++) pthread_join(st[k], NULL);
    atomic_store(&b.stop, 1);
    pthread_join(bt, NULL);
    long expanded = 0, widenings = 0;
    for (int i = 0; i < GAMES; i++) {
        const mcts_tree *t = mcts_puct_tree(games[i].s);
        ck_assert_uint_eq(root_n(games[i].s), TARGET);
        ck_assert(mcts_tree_root(t)->noised);
        assert_tree_ok(t);
        expanded += count_expanded(t, mcts_tree_root(t));
        widenings += games[i].widenings;
        mcts_puct_worker_free(games[i].w);
        mcts_puct_free(games[i].s);
    }
    ck_assert_int_gt(widenings, 0);
    ck_assert_int_eq(atomic_load(&d.positions), expanded + widenings);   /* a node evaluated again */
    ck_assert_int_gt(d.max_n, 1);                          /* leaves of several trees in a batch */
    mcts_batcher_free(&b);
}
END_TEST


/* A worker kept across re-rootings (as a scheduler keeps one per game) must not hand out node
 * indices cached from the old tree: every re-rooting starts a fresh allocation cache. */
START_TEST(puct_worker_survives_rerooting) {
    dbl d;
    mcts_evaluator ev = make_dbl(&d, V_ROLLOUT);
    mcts_puct_config c;
    mcts_puct_config_default(&c);
    c.max_nodes = 1u << 14;
    mcts_puct *s = make(&c, &ev);
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    mcts_puct_set_root(s, &p);
    mcts_puct_worker *w = mcts_puct_worker_new(s, 2, 7);
    ck_assert_ptr_nonnull(w);
    char err[256];
    for (int move = 0; move < 12 && !zz_over(&p); move++) {
        for (int sim = 0; sim < 60; sim++) {
            mcts_request *r;
            int st = mcts_puct_step(w, &r);
            ck_assert_int_ne(st, MCTS_STEP_FULL);
            if (st != MCTS_STEP_SUBMIT && st != MCTS_STEP_WIDEN) continue;
            ck_assert_int_eq(mcts_evaluate(&ev, &r->item, 1, err, sizeof err), 0);
            atomic_store_explicit(&r->state, MCTS_REQ_DONE, memory_order_release);
            mcts_puct_finish(w, r);
        }
        assert_tree_ok(mcts_puct_tree(s));
        zz_move m = mcts_puct_pick(s, 0);
        ck_assert(zz_is_legal(&p, m));
        zz_apply(&p, m, NULL);
        mcts_puct_advance(s, m);
    }
    mcts_puct_worker_free(w);
    mcts_puct_free(s);
}
END_TEST

/* ---- Gumbel root search (gumbel.h) ------------------------------------------------------- */
/* Completed values and the improved policy on a hand-computed case: priors .5/.3/.2, visits
 * 2/0/1, values .5/-/-.5, root value .1: v_mix = (.1 + 3/.7 * .15) / 4 = .185714; rescaled
 * 1, .685714, 0; sigma = (50 + 2) * .1 * q; pi' = softmax(log p + sigma). */
START_TEST(gumbel_completed_q_and_policy) {
    const float prior[3] = { 0.5f, 0.3f, 0.2f }, q[3] = { 0.5f, 0.9f /* unvisited: ignored */, -0.5f };
    const uint32_t visits[3] = { 2, 0, 1 };
    double cq[3], pi[3];
    mcts_gumbel_completed_q(3, prior, visits, q, 0.1, cq);
    ck_assert(fabs(cq[0] - 1.0) < 1e-6 && fabs(cq[1] - 0.685714) < 1e-6 && fabs(cq[2]) < 1e-6);
    mcts_gumbel_improved_policy(3, prior, visits, q, 0.1, 50, 0.1, pi);
    ck_assert(fabs(pi[0] - 0.893446) < 1e-5 && fabs(pi[1] - 0.104582) < 1e-5 && fabs(pi[2] - 0.001972) < 1e-5);
    const uint32_t none[3] = { 0, 0, 0 };                /* nothing visited: pi' is the prior */
    mcts_gumbel_improved_policy(3, prior, none, q, 0.3, 50, 0.1, pi);
    for (int i = 0; i < 3; i++) ck_assert(fabs(pi[i] - prior[i]) < 1e-6);
}
END_TEST

/* Sequential halving: 4 candidates, 16 simulations, 2 phases of 16 / (2 * live) visits each:
 * 2 each, then the better two (by score + sigma) 4 more each; the best one is chosen. */
START_TEST(gumbel_sequential_halving) {
    const double score[4] = { 4, 3, 2, 1 }, sigma[4] = { 0, 0, 10, 0 };
    mcts_halving h;
    mcts_halving_init(&h, 4, score, 16);
    ck_assert_int_eq(h.phases, 2);
    uint32_t visits[4] = { 0, 0, 0, 0 };
    int order[16];
    for (int k = 0; k < 16; k++) {
        int j = mcts_halving_next(&h, visits, sigma);
        ck_assert(j >= 0 && j < 4);
        order[k] = j;
        visits[j]++;
    }
    static const int want_first[8] = { 0, 1, 2, 3, 0, 1, 2, 3 };   /* fewest visits, ties by score */
    for (int k = 0; k < 8; k++) ck_assert_int_eq(order[k], want_first[k]);
    ck_assert_uint_eq(visits[0], 6);
    ck_assert_uint_eq(visits[1], 2);
    ck_assert_uint_eq(visits[2], 6);
    ck_assert_uint_eq(visits[3], 2);
    ck_assert_int_eq(mcts_halving_best(&h, sigma), 2);              /* score 2 + sigma 10 */
    ck_assert_int_eq(mcts_halving_next(&h, visits, sigma), 2);     /* one left: all the rest */
    const double flat[4] = { 0, 0, 0, 0 };
    mcts_halving_init(&h, 1, score, 5);                           /* one candidate: always it */
    ck_assert_int_eq(mcts_halving_next(&h, visits, flat), 0);
}
END_TEST

/* A Gumbel search in PUCT: the root's visits follow sequential halving exactly (17 simulations:
 * the root and 16: {6, 6, 2, 2}); the improved policy sums to 1 and puts the favoured prior
 * first; a winning capture is found and played. */
START_TEST(gumbel_search_in_puct) {
    dbl d;
    mcts_evaluator ev = make_dbl(&d, V_ZERO);
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    d.favour = zz_move_place(ZZ_GREY, th_cell(&p, "d4"), th_cell(&p, "a1"));
    ck_assert(zz_is_legal(&p, d.favour));
    mcts_puct_config c;
    mcts_puct_config_default(&c);
    c.batch = 1;
    c.gumbel_m = 4;
    mcts_puct *s = make(&c, &ev);
    mcts_puct_set_root(s, &p);
    mcts_search_stats st;
    search_ok(s, 17, false, &st);
    assert_tree_ok(mcts_puct_tree(s));
    zz_move moves[8];
    int visits[8];
    int n = mcts_tree_root_children(mcts_puct_tree(s), moves, visits, NULL, 8);
    ck_assert_int_eq(n, 4);
    ck_assert_int_eq(visits[0], 6);
    ck_assert_int_eq(visits[1], 6);
    ck_assert_int_eq(visits[2], 2);
    ck_assert_int_eq(visits[3], 2);
    zz_move pm[64];
    float pp[64];
    int k = mcts_puct_gumbel_policy(s, pm, pp, 64);
    ck_assert_int_eq(k, 64);
    double sum = 0;
    for (int i = 0; i < k; i++) { sum += pp[i]; ck_assert(zz_is_legal(&p, pm[i])); if (i) ck_assert(pp[i] <= pp[i - 1]); }
    ck_assert(fabs(sum - 1) < 1e-5);
    ck_assert_uint_eq(pm[0], d.favour);
    zz_move chosen = mcts_puct_pick(s, 1.0);
    bool among = false;
    for (int i = 0; i < 2; i++) among |= chosen == moves[i];
    ck_assert(among);                                        /* a candidate that survived halving */
    mcts_puct_free(s);

    th_won_capture_position(&p);                               /* the win is found by its value */
    zz_move all[ZZ_MAX_MOVES];
    int nm = zz_gen_moves(&p, all);
    zz_move win = mcts_find_win(&p);
    ck_assert(win != ZZ_MOVE_NONE && nm > 1);
    d.favour = ZZ_MOVE_NONE;
    c.gumbel_m = 16;
    s = make(&c, &ev);
    mcts_puct_set_root(s, &p);
    search_ok(s, 64, false, &st);
    ck_assert_uint_eq(mcts_puct_pick(s, 0), win);
    k = mcts_puct_gumbel_policy(s, pm, pp, 64);
    ck_assert_int_eq(k, nm);
    ck_assert_uint_eq(pm[0], win);
    mcts_puct_free(s);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("mcts_puct");
    TCase *t = tcase_create("puct");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, puct_visits_and_single_expansion);
    tcase_add_test(t, puct_worker_survives_rerooting);
    tcase_add_test(t, puct_deterministic_single_thread);
    tcase_add_test(t, puct_sign_through_jump_chain);
    tcase_add_test(t, puct_passes_forced_nodes);
    tcase_add_test(t, puct_finds_winning_capture);
    tcase_add_test(t, puct_priors_order_children);
    tcase_add_test(t, puct_prior_temperature);
    tcase_add_test(t, puct_force_prior);
    tcase_add_test(t, puct_root_noise);
    tcase_add_test(t, puct_temperature);
    tcase_add_test(t, puct_playout_cap_randomisation);
    tcase_add_test(t, puct_tree_reuse);
    tcase_add_test(t, puct_edge_windows_same_search);
    tcase_add_test(t, puct_edge_windows_refuse_a_fickle_evaluator);
    tcase_add_test(t, puct_stepping_edge_windows_same_search);
    tcase_add_test(t, puct_stepping_edge_windows_merge_a_new_ranking);
    tcase_add_test(t, puct_evaluator_failure);
    tcase_add_test(t, puct_builtin_evaluators);
    tcase_add_test(t, puct_network_evaluator);
    tcase_add_test(t, puct_per_thread_evaluators);
    tcase_add_test(t, puct_shared_evaluator_when_not_copied);
    tcase_add_test(t, puct_scheduler_stepping);
    tcase_add_test(t, gumbel_completed_q_and_policy);
    tcase_add_test(t, gumbel_sequential_halving);
    tcase_add_test(t, gumbel_search_in_puct);
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    return th_run(suite());
}
