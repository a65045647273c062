/* test_mcts_proof.c — PUCT's solver (proof.h): a won capture proven and played, the search
 * stopped once the root is proven; every proof in
 * searched endgame trees follows the propagation rules from the proofs below it, and agrees with
 * an exhaustive alpha-beta search of its position (ab.h) to the proof's length; the same with two
 * search threads; no proof at all with the solver off. */
#include "helpers.h"
#include "mcts/ab.h"
#include "mcts/proof.h"
#include "mcts/puct.h"
#include "mcts/uct.h"         /* mcts_find_win */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

static mcts_puct *make(int solver, int threads, mcts_evaluator *ev) {
    mcts_puct_config c;
    mcts_puct_config_default(&c);
    c.solver = solver;
    c.threads = threads;
    c.root_win_check = 0;
    c.noise = 0;
    char err[256];
    mcts_puct *s = mcts_puct_new(&c, ev, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    return s;
}

static void search_ok(mcts_puct *s, uint64_t sims) {
    char err[256];
    mcts_search_stats st;
    ck_assert_msg(mcts_puct_search(s, sims, 0, false, &st, err, sizeof err) == 0, "%s", err);
}

START_TEST(proof_won_capture) {
    zz_pos p;
    th_won_capture_position(&p);
    zz_move win = mcts_find_win(&p);
    ck_assert(win != ZZ_MOVE_NONE);
    mcts_evaluator *ev = mcts_eval_uniform_new();
    mcts_puct *s = make(1, 1, ev);
    mcts_puct_set_root(s, &p);
    search_ok(s, 50);
    const mcts_tree *t = mcts_puct_tree(s);
    ck_assert_int_eq(mcts_proof_of_root_child(t, win), MCTS_PROOF_WIN);
    ck_assert_int_eq(mcts_proof(mcts_tree_root(t)), MCTS_PROOF_WIN);   /* root: its mover's view */
    ck_assert_uint_lt(mcts_stats_n(mcts_node_load(mcts_tree_root(t))), 50);   /* stopped once proven */
    ck_assert_uint_eq(mcts_puct_pick(s, 0), win);
    ck_assert_uint_eq(mcts_puct_pick(s, 1.0), win);                   /* temperature or not */
    zz_move pv[4];
    ck_assert_int_ge(mcts_tree_pv(t, pv, 4, 1), 1);
    ck_assert_uint_eq(pv[0], win);
    ck_assert_ptr_null(mcts_tree_check(t));
    mcts_puct_free(s);
    mcts_evaluator_free(ev);
}
END_TEST

/* ---- every proof in a tree, checked -------------------------------------------------------------
 * A node's proof for its mover (the player to move there): its own proof turned to that view. */
static int mover_view(const mcts_node *n, int proof) { return n->player == n->to_move ? proof : -proof; }

typedef struct {
    mcts_ab *ab;
    int checked_ab;            /* proven inner nodes confirmed by alpha-beta */
    int proven_inner;          /* proven nodes that are not finished games */
    int max_len;               /* alpha-beta checks proofs up to this length */
} walk_state;

/* Check the proofs of n's subtree at position p; returns the length in plies of n's proof (a
 * finished game 0; a won node 1 + its shortest won child's; a lost node 1 + its longest child's),
 * or -1 when n is not proven. */
static int check_subtree(const mcts_tree *t, const mcts_node *n, const zz_pos *p, walk_state *w) {
    int proof = mcts_proof(n);
    int best_win = -1, longest_loss = -1, children = 0, lost = 0;
    MCTS_FOR_EACH_CHILD(t, n, c) {
        zz_pos q = *p;
        zz_apply(&q, c->move, NULL);
        int len = check_subtree(t, c, &q, w);
        int cp = mcts_proof(c);                       /* c's player is n's mover */
        children++;
        if (cp == MCTS_PROOF_WIN && (best_win < 0 || len < best_win)) best_win = len;
        if (cp == MCTS_PROOF_LOSS) { lost++; if (len > longest_loss) longest_loss = len; }
    }
    if (atomic_load(&((mcts_node *)n)->state) == MCTS_TERMINAL) {
        int want = p->winner < 0 ? MCTS_PROOF_NONE : p->winner == n->player ? MCTS_PROOF_WIN : MCTS_PROOF_LOSS;
        TH_CHECK(proof == want, "finished game proven %d, want %d", proof, want);
        return proof ? 0 : -1;
    }
    bool all_lost = n->nedges == n->nmoves && children == (int)n->nedges && lost == children && children > 0;
    int want = best_win >= 0 ? MCTS_PROOF_WIN : all_lost ? MCTS_PROOF_LOSS : MCTS_PROOF_NONE;
    /* Proofs only follow from proofs below, so the rule may only have been missed (a race), never
     * contradicted; with one thread nothing is missed either (checked by the caller's flag). */
    if (proof == MCTS_PROOF_NONE) return -1;
    TH_CHECK(mover_view(n, proof) == want, "node proven %d for its mover against its children's %d",
             mover_view(n, proof), want);
    w->proven_inner++;
    int len = 1 + (want == MCTS_PROOF_WIN ? best_win : longest_loss);
    if (len <= w->max_len) {
        mcts_ab_clear(w->ab, 1);
        int score;
        if (n->nmoves == 1) {                 /* a search with one move answers at once: score it */
            zz_move only[ZZ_MAX_MOVES];
            ck_assert_int_eq(zz_gen_moves(p, only), 1);
            ck_assert_int_eq(mcts_ab_move_score(w->ab, p, only[0], len, 0, &score), 0);
        } else {
            mcts_ab_result r;
            ck_assert_int_eq(mcts_ab_search(w->ab, p, len, 0, &r), 0);
            score = r.score;
        }
        int ab_result = score > MCTS_AB_WIN - MCTS_AB_MAX_PLY ? MCTS_PROOF_WIN
                      : score < -(MCTS_AB_WIN - MCTS_AB_MAX_PLY) ? MCTS_PROOF_LOSS : MCTS_PROOF_NONE;
        TH_CHECK(ab_result == want, "proof of length %d for the mover %d, alpha-beta to that depth: score %d",
                 len, want, score);
        w->checked_ab++;
    }
    return len;
}

/* Whether no proof was missed at one thread: every unproven expanded node fails the rules. */
static void check_nothing_missed(const mcts_tree *t, const mcts_node *n) {
    int win = 0, lost = 0, children = 0;
    MCTS_FOR_EACH_CHILD(t, n, c) {
        check_nothing_missed(t, c);
        children++;
        if (mcts_proof(c) == MCTS_PROOF_WIN) win++;
        if (mcts_proof(c) == MCTS_PROOF_LOSS) lost++;
    }
    if (mcts_proof(n) != MCTS_PROOF_NONE || atomic_load(&((mcts_node *)n)->state) != MCTS_EXPANDED) return;
    TH_CHECK(win == 0, "a node with a won child is not proven");
    TH_CHECK(!(n->nedges == n->nmoves && children == (int)n->nedges && lost == children && children > 0),
             "a node with every move lost is not proven");
}

/* A 37-ring position a few plies before the end of a random game (not over). */
static void endgame_position(zz_pos *p, uint64_t *rng, int before_end) {
    for (;;) {
        zz_pos start;
        zz_pos_init(&start, ZZ_B37);
        uint64_t saved = *rng;
        zz_pos end = start;
        int plies = th_random_playout(&end, rng, 400);
        if (!zz_over(&end) || plies <= before_end) continue;
        *rng = saved;                                 /* replay the same game, stopping short */
        *p = start;
        th_random_playout(p, rng, plies - before_end);
        if (!zz_over(p)) return;
    }
}

static void check_endgames(int threads, int games, uint64_t sims) {
    uint64_t rng = th_seed();
    walk_state w = { .ab = NULL, .max_len = 5 };
    mcts_ab_config ac;
    mcts_ab_config_default(&ac);
    ac.tt_log2 = 16;
    w.ab = mcts_ab_new(&ac);
    ck_assert_ptr_nonnull(w.ab);
    mcts_evaluator *ev = mcts_eval_uniform_new();
    int root_proven = 0;
    for (int g = 0; g < games; g++) {
        zz_pos p;
        endgame_position(&p, &rng, 6 + g % 10);
        mcts_puct *s = make(1, threads, ev);
        mcts_puct_set_root(s, &p);
        search_ok(s, sims);
        const mcts_tree *t = mcts_puct_tree(s);
        ck_assert_ptr_null(mcts_tree_check(t));
        check_subtree(t, mcts_tree_root(t), &p, &w);
        if (threads == 1) check_nothing_missed(t, mcts_tree_root(t));
        int rp = mcts_proof(mcts_tree_root(t));
        if (rp != MCTS_PROOF_NONE) {
            root_proven++;
            zz_move m = mcts_puct_pick(s, 0);
            int mp = mcts_proof_of_root_child(t, m);
            /* The move chosen: a proven win when the root is won, and lost only when all are. */
            TH_CHECK(mp == rp, "root proven %d, the move chosen %d", rp, mp);
        }
        mcts_puct_free(s);
    }
    fprintf(stderr, "proof (%d thread%s): %d endgames, %d roots proven, %d inner proofs, %d checked by alpha-beta\n",
            threads, threads > 1 ? "s" : "", games, root_proven, w.proven_inner, w.checked_ab);
    ck_assert_int_gt(w.checked_ab, games);            /* the check did check something */
    ck_assert_int_gt(root_proven, 0);
    mcts_evaluator_free(ev);
    mcts_ab_free(w.ab);
}

START_TEST(proof_endgames_one_thread) { check_endgames(1, 40, 3000); }
END_TEST

START_TEST(proof_endgames_two_threads) { check_endgames(2, 20, 3000); }
END_TEST

static int count_proofs(const mcts_tree *t, const mcts_node *n) {
    int k = mcts_proof(n) != MCTS_PROOF_NONE;
    MCTS_FOR_EACH_CHILD(t, n, c) k += count_proofs(t, c);
    return k;
}

START_TEST(proof_off_by_default) {
    mcts_puct_config c;
    mcts_puct_config_default(&c);
    ck_assert_int_eq(c.solver, 0);
    zz_pos p;
    th_won_capture_position(&p);
    mcts_evaluator *ev = mcts_eval_uniform_new();
    mcts_puct *s = make(0, 1, ev);
    mcts_puct_set_root(s, &p);
    search_ok(s, 200);
    ck_assert_int_eq(count_proofs(mcts_puct_tree(s), mcts_tree_root(mcts_puct_tree(s))), 0);
    mcts_puct_free(s);
    mcts_evaluator_free(ev);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("mcts_proof");
    TCase *t = tcase_create("proof");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, proof_won_capture);
    tcase_add_test(t, proof_endgames_one_thread);
    tcase_add_test(t, proof_endgames_two_threads);
    tcase_add_test(t, proof_off_by_default);
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    return th_run(suite());
}
