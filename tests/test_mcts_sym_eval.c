/* test_mcts_sym_eval.c — one position evaluated under the board's symmetries, the answers averaged
 * (mcts/sym_eval.h), and PUCT's rootsym= that uses it: one symmetry is the evaluator itself; the
 * average over a board's whole group is the same for a position and for each of its images (move
 * for move), sums to one, and differs from the identity's priors for the shipped networks; an
 * illegal move is refused; a PUCT root's priors become that average, and so do those of the nodes
 * reached with symvisits= visits (only those); bad settings are refused.  And the network evaluator
 * that sees each position under a symmetry drawn from its hash (leafsym=): its answer for p is the
 * plain network's for that image of p, move for move; the symmetry is the position's, various
 * across positions; its cache gives the same answers back. */
#include "helpers.h"
#include "game/symmetry.h"
#include "mcts/agent.h"
#include "mcts/eval_net.h"
#include "mcts/puct.h"
#include "mcts/sym_eval.h"
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t seed0;
static zz_move moves[ZZ_MAX_MOVES], image_moves[ZZ_MAX_MOVES];
static float priors[ZZ_MAX_MOVES], image_priors[ZZ_MAX_MOVES], plain[ZZ_MAX_MOVES];

/* The same with two legal moves or more (a forced move has nothing to average). */
static zz_pos random_choice(zz_board_kind kind, int plies, uint64_t *rng) {
    for (;;) {
        zz_pos p = th_random_position(kind, plies, rng);
        if (zz_gen_moves(&p, moves) >= 2) return p;
    }
}

/* The evaluator's own priors and value for p over its legal moves (moves[]); returns how many. */
static int evaluate_plain(mcts_evaluator *ev, const zz_pos *p, float *out, float *value) {
    char err[256];
    mcts_eval_item it = { .pos = p, .moves = moves, .nmoves = zz_gen_moves(p, moves), .priors = out };
    ck_assert_msg(mcts_evaluate(ev, &it, 1, err, sizeof err) == 0, "%s", err);
    *value = it.value;
    return it.nmoves;
}

/* One symmetry is the evaluator itself, bit for bit; the uniform evaluator averages to uniform. */
START_TEST(one_symmetry_is_the_evaluator) {
    uint64_t rng = seed0 ^ 0x51;
    char err[256];
    mcts_evaluator *ev = mcts_eval_nn_new("weights/zertz37.ckpt", err, sizeof err);
    ck_assert_msg(ev, "%s", err);
    for (int trial = 0; trial < 4; trial++) {
        zz_pos p = th_random_position(ZZ_B37, 3 + 4 * trial, &rng);
        float v0, v1;
        int n = evaluate_plain(ev, &p, plain, &v0);
        ck_assert_msg(mcts_eval_symmetric(ev, &p, moves, n, 1, priors, &v1, err, sizeof err) == 0, "%s", err);
        ck_assert(v0 == v1);
        ck_assert(!memcmp(plain, priors, (size_t)n * sizeof *priors));
    }
    mcts_evaluator *u = mcts_eval_uniform_new();
    zz_pos p = th_random_position(ZZ_B61, 5, &rng);
    int n = zz_gen_moves(&p, moves);
    float v;
    ck_assert_msg(mcts_eval_symmetric(u, &p, moves, n, 12, priors, &v, err, sizeof err) == 0, "%s", err);
    ck_assert(v == 0);
    for (int i = 0; i < n; i++) ck_assert_float_eq_tol(priors[i], 1.0f / (float)n, 1e-6f);
    mcts_evaluator_free(u);
    mcts_evaluator_free(ev);
}
END_TEST

/* The whole group's average is invariant: at p and at s(p) the priors of m and s(m) agree (to the
 * float rounding of a sum taken in another order), and so do the values; the priors sum to one;
 * and for the shipped networks the average is not the identity's priors (the network is not
 * exactly equivariant: a wrong mapping of moves would fail the first check, a missing average
 * this one). */
START_TEST(whole_group_average_is_invariant) {
    uint64_t rng = seed0 ^ 0x5e7;
    static const zz_board_kind kinds[3] = { ZZ_B37, ZZ_B48, ZZ_B61 };
    static const char *nets[3] = { "weights/zertz37.ckpt", "weights/zertz48.ckpt", "weights/zertz61.ckpt" };
    char err[256];
    for (int b = 0; b < 3; b++) {
        mcts_evaluator *ev = mcts_eval_nn_new(nets[b], err, sizeof err);
        ck_assert_msg(ev, "%s", err);
        int nsyms = zz_board_nsyms(kinds[b]);
        double differs = 0;
        for (int trial = 0; trial < 3; trial++) {
            zz_pos p = random_choice(kinds[b], 2 + 5 * trial, &rng), q;
            float v, vq, v0;
            int n = evaluate_plain(ev, &p, plain, &v0);
            ck_assert_msg(mcts_eval_symmetric(ev, &p, moves, n, 12, priors, &v, err, sizeof err) == 0, "%s", err);
            double sum = 0;
            for (int i = 0; i < n; i++) sum += priors[i], differs += fabs(priors[i] - plain[i]);
            ck_assert_msg(fabs(sum - 1) < 1e-4, "board %d: the priors sum to %g", b, sum);
            int k = 1 + (int)zz_rand_below(&rng, (uint32_t)(nsyms - 1));
            const zz_sym *s = zz_board_sym(kinds[b], k);
            zz_sym_pos(s, &p, &q);
            for (int i = 0; i < n; i++) image_moves[i] = zz_sym_move(s, moves[i]);
            ck_assert_msg(mcts_eval_symmetric(ev, &q, image_moves, n, 12, image_priors, &vq, err, sizeof err) == 0,
                          "%s", err);
            ck_assert_msg(fabsf(v - vq) < 1e-5f, "board %d symmetry %d: value %g against %g", b, k, vq, v);
            for (int i = 0; i < n; i++)
                ck_assert_msg(fabsf(priors[i] - image_priors[i]) < 1e-6f + 1e-4f * priors[i],
                              "board %d symmetry %d move %d: %g against %g", b, k, i, image_priors[i], priors[i]);
        }
        ck_assert_msg(differs > 0.01, "board %d: the average is the identity's priors (%g)", b, differs);
        mcts_evaluator_free(ev);
    }
}
END_TEST

START_TEST(illegal_move_is_refused) {
    uint64_t rng = seed0 ^ 0x111;
    char err[256] = "";
    mcts_evaluator *u = mcts_eval_uniform_new();
    zz_pos p = th_random_position(ZZ_B37, 6, &rng), q = th_random_position(ZZ_B37, 0, &rng);
    int n = zz_gen_moves(&q, moves);              /* the opening's moves: most not legal at p */
    float v;
    ck_assert_int_ne(mcts_eval_symmetric(u, &p, moves, n, 12, priors, &v, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "not legal"), "%s", err);
    mcts_evaluator_free(u);
}
END_TEST

/* After a search with rootsym=12 the root's edges carry the whole group's average (renormalised
 * over the edges: all of them here), the most probable first among the unopened ones. */
START_TEST(puct_root_takes_the_average) {
    uint64_t rng = seed0 ^ 0x2007;
    char err[256];
    mcts_evaluator *ev = mcts_eval_nn_new("weights/zertz61.ckpt", err, sizeof err);
    ck_assert_msg(ev, "%s", err);
    mcts_puct_config cfg;
    mcts_puct_config_default(&cfg);
    cfg.root_syms = 12;
    mcts_puct *s = mcts_puct_new(&cfg, ev, err, sizeof err);
    ck_assert_msg(s, "%s", err);
    for (int trial = 0; trial < 2; trial++) {
        zz_pos p = random_choice(ZZ_B61, 4 + 6 * trial, &rng);
        mcts_puct_set_root(s, &p);
        mcts_search_stats st;
        ck_assert_msg(mcts_puct_search(s, 64, 0, false, &st, err, sizeof err) == 0, "%s", err);
        const mcts_tree *t = mcts_puct_tree(s);
        const mcts_node *root = mcts_tree_root(t);
        ck_assert(root->sym_averaged);
        int n = zz_gen_moves(&p, moves);
        ck_assert_int_eq((int)root->nedges, n);
        float v;
        ck_assert_msg(mcts_eval_symmetric(ev, &p, moves, n, 12, priors, &v, err, sizeof err) == 0, "%s", err);
        ck_assert_float_eq_tol(root->value, v, 1e-6f);
        const mcts_edge *e = mcts_tree_edges((mcts_tree *)t, root->edges);
        uint32_t open = root->nopen;
        for (uint32_t i = 0; i < root->nedges; i++) {
            int j = 0;
            while (j < n && moves[j] != e[i].move) j++;
            ck_assert_int_lt(j, n);
            ck_assert_msg(fabsf(e[i].prior - priors[j]) < 1e-5f, "edge %u: %g against %g", i, e[i].prior, priors[j]);
            if (i > open) ck_assert(e[i].prior <= e[i - 1].prior);
        }
        MCTS_FOR_EACH_CHILD(t, root, c) {
            int j = 0;
            while (j < n && moves[j] != c->move) j++;
            ck_assert_float_eq_tol(c->prior, priors[j], 1e-5f);
        }
    }
    mcts_puct_free(s);
    cfg.root_syms = 13;
    ck_assert_ptr_null(mcts_puct_new(&cfg, ev, err, sizeof err));
    ck_assert_msg(strstr(err, "root_syms"), "%s", err);
    cfg.root_syms = 12;
    cfg.force_prior = 1;
    ck_assert_ptr_null(mcts_puct_new(&cfg, ev, err, sizeof err));
    ck_assert_msg(strstr(err, "force_prior"), "%s", err);
    mcts_evaluator_free(ev);
}
END_TEST

/* Check every averaged node below idx (at position p): its edges carry the average, it has at
 * least `visits` visits; returns how many there are. */
static int check_averaged(mcts_evaluator *ev, const mcts_tree *t, const mcts_node *node, const zz_pos *p, int visits) {
    static float avg[ZZ_MAX_MOVES];
    static zz_move edge_moves[ZZ_MAX_MOVES];
    char err[256];
    int count = 0;
    if (node->sym_averaged && node != mcts_tree_root(t)) {
        ck_assert_uint_ge(mcts_stats_n(mcts_node_load(node)), (unsigned)visits);
        const mcts_edge *e = mcts_tree_edges((mcts_tree *)t, node->edges);
        int n = (int)node->nedges;
        for (int i = 0; i < n; i++) edge_moves[i] = e[i].move;
        float v;
        ck_assert_msg(mcts_eval_symmetric(ev, p, edge_moves, n, 12, avg, &v, err, sizeof err) == 0, "%s", err);
        double sum = 0;
        for (int i = 0; i < n; i++) sum += avg[i];
        for (int i = 0; i < n; i++) ck_assert_float_eq_tol(e[i].prior, avg[i] / sum, 1e-5);
        ck_assert_float_eq_tol(node->value, v, 1e-6f);
        count++;
    } else if (node != mcts_tree_root(t) && node->nedges >= 2 && !node->passed) {
        /* never reached with `visits`: at most that many, and the batch's descents in flight */
        ck_assert_uint_le(mcts_stats_n(mcts_node_load(node)), (unsigned)(visits + 8));
    }
    MCTS_FOR_EACH_CHILD(t, node, c) {
        zz_pos q = *p;
        zz_apply(&q, c->move, NULL);
        count += check_averaged(ev, t, c, &q, visits);
    }
    return count;
}

/* symvisits=V: nodes below the root reached with V visits are averaged too, and only those. */
START_TEST(puct_nodes_with_enough_visits_take_the_average) {
    uint64_t rng = seed0 ^ 0x5151;
    char err[256];
    mcts_evaluator *ev = mcts_eval_nn_new("weights/zertz37.ckpt", err, sizeof err);
    ck_assert_msg(ev, "%s", err);
    mcts_puct_config cfg;
    mcts_puct_config_default(&cfg);
    cfg.root_syms = 12;
    cfg.sym_visits = 4;          /* low: visits spread thin over the ~1,000 moves of a lopsided position */
    mcts_puct *s = mcts_puct_new(&cfg, ev, err, sizeof err);
    ck_assert_msg(s, "%s", err);
    int averaged = 0;
    for (int trial = 0; trial < 5 && averaged == 0; trial++) {   /* a lopsided position may spread */
        zz_pos p = random_choice(ZZ_B37, 6, &rng);                 /* its visits one per move */
        mcts_puct_set_root(s, &p);
        mcts_search_stats st;
        ck_assert_msg(mcts_puct_search(s, 600, 0, false, &st, err, sizeof err) == 0, "%s", err);
        const mcts_tree *t = mcts_puct_tree(s);
        ck_assert(mcts_tree_root(t)->sym_averaged);
        averaged += check_averaged(ev, t, mcts_tree_root(t), &p, cfg.sym_visits);
    }
    ck_assert_msg(averaged >= 1, "no node below the root averaged in five searches");
    mcts_puct_free(s);
    cfg.threads = 2;
    ck_assert_ptr_null(mcts_puct_new(&cfg, ev, err, sizeof err));
    ck_assert_msg(strstr(err, "sym_visits"), "%s", err);
    cfg.threads = 1;
    cfg.root_syms = 0;
    ck_assert_ptr_null(mcts_puct_new(&cfg, ev, err, sizeof err));
    mcts_evaluator_free(ev);
}
END_TEST

/* A network evaluator with by_symmetry answers p as the plain network answers s(p), s the
 * position's symmetry (mcts_eval_position_sym): the value bit for bit, each move m's prior as
 * s(m)'s at s(p) (the same logits summed in another order: within float rounding); again from its
 * cache; the symmetries drawn vary over positions and stay with each. */
START_TEST(network_by_symmetry_answers_for_the_image) {
    static const zz_board_kind boards[] = { ZZ_B37, ZZ_B48, ZZ_B61 };
    static const char *const nets[] = { "weights/zertz37.ckpt", "weights/zertz48.ckpt", "weights/zertz61.ckpt" };
    uint64_t rng = seed0 ^ 0x1eaf;
    char err[256];
    for (int b = 0; b < 3; b++) {
        mcts_evaluator *ev = mcts_eval_nn_new(nets[b], err, sizeof err), *sym = mcts_eval_nn_new(nets[b], err, sizeof err);
        ck_assert_msg(ev && sym, "%s", err);
        ck_assert_int_eq(mcts_eval_nn_set_cache(ev, 0, err, sizeof err), 0);
        ck_assert_msg(mcts_eval_nn_set_by_symmetry(sym, true, err, sizeof err) == 0, "%s", err);
        int seen = 0, nsyms = zz_board_nsyms(boards[b]);       /* which symmetries were drawn */
        for (int k = 0; k < 16; k++) {
            zz_pos p = random_choice(boards[b], 1 + k % 13, &rng), image;
            int s = mcts_eval_position_sym(&p);
            ck_assert(s >= 0 && s < nsyms);
            ck_assert_int_eq(mcts_eval_position_sym(&p), s);
            seen |= 1 << s;
            const zz_sym *sm = zz_board_sym(boards[b], s);
            zz_sym_pos(sm, &p, &image);
            float v_image, v_sym, v_again;
            int ni = evaluate_plain(ev, &image, image_priors, &v_image);
            memcpy(image_moves, moves, sizeof moves);
            for (int round = 0; round < 2; round++) {         /* the network, then the cache */
                int n = evaluate_plain(sym, &p, priors, round ? &v_again : &v_sym);
                ck_assert(round == 0 || v_again == v_sym);
                ck_assert_msg(v_sym == v_image, "%d rings, position %d: value %g, the image's %g", zz_board_get(boards[b])->rings, k, v_sym, v_image);
                ck_assert_int_eq(n, ni);
                for (int i = 0; i < n; i++) {
                    zz_move m = zz_sym_move(sm, moves[i]);
                    int j = 0;
                    while (j < ni && image_moves[j] != m) j++;
                    ck_assert_int_lt(j, ni);
                    ck_assert_msg(fabsf(priors[i] - image_priors[j]) <= 1e-6f + 1e-5f * image_priors[j],
                                  "%d rings, position %d, move %d: prior %g, the image's %g", zz_board_get(boards[b])->rings, k, i, priors[i], image_priors[j]);
                }
            }
        }
        ck_assert_uint_ge(mcts_eval_nn_cache_stats(sym).hits, 16);   /* the second rounds came from the cache */
        ck_assert_msg(__builtin_popcount((unsigned)seen) >= 3, "%d rings: 16 positions drew %d symmetries", zz_board_get(boards[b])->rings, __builtin_popcount((unsigned)seen));
        ck_assert_int_eq(mcts_eval_nn_set_by_symmetry(sym, false, err, sizeof err), 0);   /* off: the plain answer */
        zz_pos p = random_choice(boards[b], 5, &rng);
        float v0, v1;
        int n = evaluate_plain(ev, &p, plain, &v0);
        ck_assert_int_eq(evaluate_plain(sym, &p, priors, &v1), n);
        ck_assert(v0 == v1 && !memcmp(plain, priors, (size_t)n * sizeof(float)));
        mcts_evaluator_free(ev), mcts_evaluator_free(sym);
    }
    mcts_evaluator *u = mcts_eval_uniform_new();
    ck_assert_int_ne(mcts_eval_nn_set_by_symmetry(u, true, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "CPU network"), "%s", err);
    mcts_evaluator_free(u);
    th_agent_plays("puct:weights/zertz37.ckpt:50,leafsym=1", ZZ_B37, 4, 9);
    ck_assert_int_ne(mcts_agent_check_spec("puct:weights/zertz37.ckpt:50,leafsym=2", err, sizeof err), 0);
    ck_assert_msg(strstr(err, "leafsym"), "%s", err);
}
END_TEST

START_TEST(agent_rootsym_option) {
    char err[256];
    ck_assert_msg(mcts_agent_check_spec("puct:weights/zertz37.ckpt:10,rootsym=12", err, sizeof err) == 0, "%s", err);
    ck_assert_int_ne(mcts_agent_check_spec("puct:weights/zertz37.ckpt:10,rootsym=13", err, sizeof err), 0);
    ck_assert_msg(strstr(err, "rootsym"), "%s", err);
    ck_assert_int_ne(mcts_agent_check_spec("uct:10,rootsym=2", err, sizeof err), 0);
    ck_assert_int_ne(mcts_agent_check_spec("puct:weights/zertz37.ckpt:10,rootsym=12,symvisits=8,threads=2", err, sizeof err), 0);
    th_agent_plays("puct:weights/zertz37.ckpt:40,rootsym=12,symvisits=8", ZZ_B37, 4, 3);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("mcts_sym_eval");
    TCase *t = tcase_create("sym_eval");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, one_symmetry_is_the_evaluator);
    tcase_add_test(t, whole_group_average_is_invariant);
    tcase_add_test(t, illegal_move_is_refused);
    tcase_add_test(t, puct_root_takes_the_average);
    tcase_add_test(t, puct_nodes_with_enough_visits_take_the_average);
    tcase_add_test(t, agent_rootsym_option);
    tcase_add_test(t, network_by_symmetry_answers_for_the_image);
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    seed0 = th_seed();
    return th_run(suite());
}
