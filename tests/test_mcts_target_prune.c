/* test_mcts_target_prune.c — policy targets with force_prior's visits taken out
 * (mcts_prune_boosted_target, target_prune.h), on a root built by hand whose numbers are worked
 * out below: a forcing child is pruned to the visits the unboosted priors justify, one left with a
 * visit or none is dropped, a forcing child whose value beats the best child's score keeps its
 * visits, a non-forcing child and the most visited child keep theirs; the same with the root's
 * edges a window (the missing prior mass counted unboosted); nothing changes without the boost or
 * at a capture root; and self-play with --prune-boost records pruned targets (the counters). */
#include "helpers.h"
#include "mcts/target_prune.h"
#include "mcts/tree.h"
#include "train/selfplay.h"
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A 37-ring position where the mover places, with at least three placements that force a capture
 * and two that do not; b, c, d three forcing moves, a and f two others. */
typedef struct { zz_pos pos; zz_move a, b, c, d, f; zz_move moves[ZZ_MAX_MOVES]; int n; } hand_root;

static hand_root find_position(void) {
    uint64_t rng = 11;
    for (int tries = 0; tries < 1000; tries++) {
        hand_root h = { .pos = th_random_position(ZZ_B37, 6 + tries % 10, &rng) };
        h.n = zz_gen_moves(&h.pos, h.moves);
        if (h.n < 5 || zz_move_is_jump(h.moves[0])) continue;
        zz_move forcing[3], quiet[2];
        int nf = 0, nq = 0;
        for (int i = 0; i < h.n; i++) {
            bool f = zz_place_forces(&h.pos, h.moves[i]);
            if (f && nf < 3) forcing[nf++] = h.moves[i];
            if (!f && nq < 2) quiet[nq++] = h.moves[i];
        }
        if (nf < 3 || nq < 2) continue;
        h.b = forcing[0], h.c = forcing[1], h.d = forcing[2], h.a = quiet[0], h.f = quiet[1];
        return h;
    }
    ck_abort_msg("no 37-ring position with three forcing and two quiet placements");
    return (hand_root){ 0 };
}

/* Visits n with mean value q for the node's player (q exact in the packed stats for these n). */
static void set_stats(mcts_node *node, uint32_t n, double q) {
    uint64_t s = (uint64_t)llround((q + 1.0) * MCTS_S_UNIT * n);
    atomic_store(&node->stats, (uint64_t)n << MCTS_N_SHIFT | s);
}

/* A fresh tree at p whose root holds moves[0..n) as edges with these priors, nedges of them kept
 * (a window when fewer than n). */
static void root_with_edges(mcts_tree *t, const zz_pos *p, const zz_move *moves, const float *priors, int n,
                            uint32_t nedges) {
    mcts_tree_reset(t, p, false);
    mcts_node *root = mcts_tree_root(t);
    uint32_t e = mcts_arena_alloc(&t->edges[t->cur], (uint32_t)n);
    ck_assert_uint_ne(e, 0);
    mcts_edge *edges = mcts_tree_edges(t, e);
    for (int i = 0; i < n; i++) edges[i] = (mcts_edge){ moves[i], priors[i] };
    root->nmoves = (uint32_t)n;
    root->edges = e;
    root->nedges = nedges;
}

/* The root's child in slot `slot` (edge slot's move m, prior p) with `visits` visits of mean q. */
static void add_child(mcts_tree *t, uint32_t slot, zz_move m, float p, uint32_t visits, double q) {
    mcts_node *root = mcts_tree_root(t);
    zz_pos after = t->root_pos;
    zz_apply(&after, m, NULL);
    mcts_arena_cache c = { 0, 0 };
    uint32_t ci = mcts_tree_alloc_node(t, &c);
    ck_assert_uint_ne(ci, 0);
    mcts_node_init(mcts_tree_node(t, ci), t->root, m, p, &after, t->root_pos.to_move, MCTS_EXPANDED, 0);
    set_stats(mcts_tree_node(t, ci), visits, q);
    atomic_store(&root->nopen, slot + 1);
    ck_assert(mcts_tree_set_child(t, root, slot, ci, &c));
}

/* The root of h with every legal move as an edge (nedges of them kept: a window when fewer), the
 * priors as the boosted search would hold them: b 0.4, a 0.3, c 0.2, d 0.04, and 0.06 shared by
 * the other non-forcing moves (f among them); other forcing moves 0.  Children (slot k: edge k):
 *   b 30 visits Q 0.1, a 60 Q 0.2 (the most visited), c 10 Q 0.5, d 5 Q -0.6, f 4 Q -0.6;
 * the root 110 visits. */
static void build_root(mcts_tree *t, const hand_root *h, uint32_t nedges) {
    int rest = 0;
    for (int i = 0; i < h->n; i++)
        rest += h->moves[i] != h->a && !zz_place_forces(&h->pos, h->moves[i]);     /* f and the others */
    zz_move order[ZZ_MAX_MOVES] = { h->b, h->a, h->c, h->d, h->f };
    float prior[ZZ_MAX_MOVES] = { 0.4f, 0.3f, 0.2f, 0.04f, 0.06f / (float)rest };
    int k = 5;
    for (int i = 0; i < h->n; i++) {
        zz_move m = h->moves[i];
        if (m == h->a || m == h->b || m == h->c || m == h->d || m == h->f) continue;
        order[k] = m;
        prior[k++] = zz_place_forces(&h->pos, m) ? 0.0f : 0.06f / (float)rest;
    }
    ck_assert_int_eq(k, h->n);
    root_with_edges(t, &h->pos, order, prior, h->n, nedges);
    const uint32_t visits[5] = { 30, 60, 10, 5, 4 };
    const double q[5] = { 0.1, 0.2, 0.5, -0.6, -0.6 };
    for (uint32_t slot = 0; slot < 5; slot++) add_child(t, slot, order[slot], prior[slot], visits[slot], q[slot]);
    set_stats(mcts_tree_root(t), 110, 0.0);
}

/* Worked by hand, c_puct 2, force_prior 3 (g = 4), N = 110 (c sqrt N = 20.9762):
 *   unboosted mass = 0.3 + 0.4/4 + 0.2/4 + 0.04/4 + 0.06 = 0.52
 *   P0(a) = 0.3/0.52 = 0.5769;  U_a = 0.2 + 20.9762 * 0.5769 / 61 = 0.39839
 *   b: x = 20.9762 * (0.1/0.52) / (0.39839 - 0.1) = 13.52 -> 13 of 30 kept (17 pruned)
 *   c: Q 0.5 >= U_a -> all 10 kept
 *   d: x = 20.9762 * (0.01/0.52) / (0.39839 + 0.6) = 0.404 -> 0: dropped (5 pruned)
 *   a (most visited) 60 and f (not forcing) 4 kept.
 * So: a 60, b 13, c 10, f 4 (in the visits' order before pruning), 22 pruned. */
static void expect_worked_example(const mcts_tree *t, const hand_root *h) {
    zz_move moves[ZZ_MAX_MOVES];
    int visits[ZZ_MAX_MOVES];
    uint64_t pruned = 99;
    int n = mcts_prune_boosted_target(t, 2.0, 3.0, moves, visits, ZZ_MAX_MOVES, &pruned);
    ck_assert_int_eq(n, 4);
    const zz_move want_m[4] = { h->a, h->b, h->c, h->f };
    const int want_v[4] = { 60, 13, 10, 4 };
    for (int i = 0; i < 4; i++) {
        ck_assert_uint_eq(moves[i], want_m[i]);
        ck_assert_int_eq(visits[i], want_v[i]);
    }
    ck_assert_uint_eq(pruned, 22);
}

START_TEST(pruned_as_worked_by_hand) {
    hand_root h = find_position();
    mcts_tree t;
    ck_assert_int_eq(mcts_tree_init(&t, 1u << 12, 1u << 12), 0);
    build_root(&t, &h, (uint32_t)h.n);
    expect_worked_example(&t, &h);
    build_root(&t, &h, 4);                      /* a window of b, a, c, d: 0.06 of the mass missing */
    expect_worked_example(&t, &h);
    mcts_tree_free(&t);
}
END_TEST

/* Without the boost, the children as mcts_tree_root_children gives them, nothing pruned; a larger
 * boost prunes b further (P0(b) smaller: 0.4/9 of mass 0.3 + 0.6/9 + 0.06). */
START_TEST(no_boost_no_pruning) {
    hand_root h = find_position();
    mcts_tree t;
    ck_assert_int_eq(mcts_tree_init(&t, 1u << 12, 1u << 12), 0);
    build_root(&t, &h, (uint32_t)h.n);
    zz_move moves[ZZ_MAX_MOVES], plain_m[ZZ_MAX_MOVES];
    int visits[ZZ_MAX_MOVES], plain_v[ZZ_MAX_MOVES];
    uint64_t pruned = 99;
    int n = mcts_prune_boosted_target(&t, 2.0, 0.0, moves, visits, ZZ_MAX_MOVES, &pruned);
    int np = mcts_tree_root_children(&t, plain_m, plain_v, NULL, ZZ_MAX_MOVES);
    ck_assert_int_eq(n, 5);
    ck_assert_int_eq(np, 5);
    ck_assert_uint_eq(pruned, 0);
    for (int i = 0; i < n; i++) {
        ck_assert_uint_eq(moves[i], plain_m[i]);
        ck_assert_int_eq(visits[i], plain_v[i]);
    }
    n = mcts_prune_boosted_target(&t, 2.0, 8.0, moves, visits, ZZ_MAX_MOVES, &pruned);
    /* g = 9: mass 0.3 + 0.64/9 + 0.06 = 0.43111; U_a = 0.2 + 20.9762 * 0.69588 / 61 = 0.43929;
     * b: x = 20.9762 * (0.4/9/0.43111) / 0.33929 = 6.37 -> 6 */
    ck_assert_int_eq(n, 4);
    ck_assert_uint_eq(moves[1], h.b);
    ck_assert_int_eq(visits[1], 6);
    mcts_tree_free(&t);
}
END_TEST

/* A root where the mover must capture has no placements and no boost: nothing is pruned. */
START_TEST(capture_root_untouched) {
    zz_pos p;
    th_won_capture_position(&p);
    zz_move mv[ZZ_MAX_MOVES];
    int nm = zz_gen_moves(&p, mv);
    ck_assert(zz_move_is_jump(mv[0]));
    mcts_tree t;
    ck_assert_int_eq(mcts_tree_init(&t, 1u << 12, 1u << 12), 0);
    float priors[ZZ_MAX_MOVES] = { 0 };
    for (int i = 0; i < nm; i++) priors[i] = 1.0f / (float)nm;
    root_with_edges(&t, &p, mv, priors, nm, (uint32_t)nm);
    int kids = nm < 3 ? nm : 3;
    for (int k = 0; k < kids; k++) add_child(&t, (uint32_t)k, mv[k], priors[k], (uint32_t)(20 - 8 * k), k == 0 ? 0.2 : -0.9);
    set_stats(mcts_tree_root(&t), 40, 0.0);
    zz_move moves[ZZ_MAX_MOVES];
    int visits[ZZ_MAX_MOVES];
    uint64_t pruned = 99;
    int n = mcts_prune_boosted_target(&t, 2.0, 3.0, moves, visits, ZZ_MAX_MOVES, &pruned);
    ck_assert_int_eq(n, kids);
    ck_assert_uint_eq(pruned, 0);
    for (int k = 0; k < kids; k++) ck_assert_int_eq(visits[k], 20 - 8 * k);
    mcts_tree_free(&t);
}
END_TEST

/* Uniform priors and small random values: enough for self-play to run. */
static int uniform_eval(mcts_evaluator *self, mcts_eval_item *items, int n, char *err, size_t errlen) {
    uint64_t *rng = self->ctx;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < items[i].nmoves; k++) items[i].priors[k] = 1.0f / (float)items[i].nmoves;
        items[i].value = (float)((int)zz_rand_below(rng, 201) - 100) / 400.0f;
    }
    return 0;
}

/* Self-play with --force-prior 3: with --prune-boost 1 some visits are taken out of the targets
 * and every target keeps visits; with 0 none are. */
START_TEST(selfplay_prunes_its_targets) {
    for (int prune = 0; prune <= 1; prune++) {
        uint64_t rng = 3;
        mcts_evaluator ev = { "uniform", 16, uniform_eval, NULL, &rng, NULL };
        tr_selfplay_config c;
        tr_selfplay_config_default(&c);
        c.board = ZZ_B37, c.threads = 1, c.eval_threads = 1, c.games_in_flight = 4, c.slots = 4, c.max_batch = 16;
        c.sims_full = c.sims_fast = 64, c.full_prob = 1, c.ply_cap = 80, c.seed = 5;
        c.max_nodes = 1u << 14, c.max_edges = 1u << 20;
        c.force_prior = 3, c.prune_boost = prune;
        char err[256] = "";
        tr_selfplay *sp = tr_selfplay_new(&c, &ev, err, sizeof err);
        ck_assert_msg(sp, "%s", err);
        ck_assert_int_eq(tr_selfplay_start(sp, err, sizeof err), 0);
        int games = 0;
        for (int spins = 0; games < 4 && spins < 6000; spins++) {
            for (tr_game *g = tr_selfplay_take(sp), *next; g; g = next) {
                next = g->next;
                for (int i = 0; i < g->nsamples; i++) {
                    long long sum = 0;
                    for (int k = 0; k < g->samples[i].nvisits; k++) sum += g->samples[i].visits[k].count;
                    ck_assert_int_gt(sum, 0);
                }
                tr_game_free(g);
                games++;
            }
            struct timespec ts = { 0, 10 * 1000 * 1000 };
            nanosleep(&ts, NULL);
        }
        tr_selfplay_stop(sp);
        ck_assert_ptr_null(tr_selfplay_error(sp));
        ck_assert_int_ge(games, 4);
        tr_selfplay_stats st;
        tr_selfplay_stats_get(sp, &st);
        ck_assert_int_gt(st.target_visits, 0);
        if (prune) ck_assert_int_gt(st.pruned_visits, 0);
        else ck_assert_int_eq(st.pruned_visits, 0);
        ck_assert_int_lt(st.pruned_visits, st.target_visits);
        tr_selfplay_free(sp);
    }
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("mcts_target_prune");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, pruned_as_worked_by_hand);
    tcase_add_test(tc, no_boost_no_pruning);
    tcase_add_test(tc, capture_root_untouched);
    tcase_add_test(tc, selfplay_prunes_its_targets);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return th_run(suite()); }
