/* test_mcts_ab.c — the alpha-beta searcher (src/mcts/ab.h) and the ab:DEPTH agent: immediate
 * wins (a capture, an isolation), avoiding a move that hands the opponent the game, a depth-2
 * zugzwang, the sign through a chain of jumps, the transposition table leaving fixed-depth
 * results unchanged, the time limit, the evaluation's terms, the spec, whole games against
 * random through the agent API, capture quiescence alone (mcts_ab_quiesce) and the leaf blend
 * of a PUCT evaluator with it (mcts_eval_abmix_new), a move's score (mcts_ab_move_score) and
 * the alpha-beta guard on PUCT's moves (guard=), the search restricted to a few root moves
 * (mcts_ab_search_among) and the guard among PUCT's best moves (guardtop=). */
#include "helpers.h"
#include "mcts/ab.h"
#include "mcts/agent.h"
#include "mcts/evaluator.h"
#include "mcts/tree.h"
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
enum { SLOW = 5 };
#else
enum { SLOW = 1 };
#endif

enum { WIN_MIN = MCTS_AB_WIN - MCTS_AB_MAX_PLY };

/* Move marbles from the pool into a player's captures. */
static void give_caps(zz_pos *p, int player, int w, int g, int b) {
    const int n[3] = { w, g, b };
    for (int c = 0; c < 3; c++) {
        p->cap[player][c] = (uint8_t)(p->cap[player][c] + n[c]);
        p->pool[c] = (uint8_t)(p->pool[c] - n[c]);
    }
    ck_assert_ptr_null(zz_pos_validate(p));
}

/* Search p to depth (with or without the table, seed 0) and return the result. */
static mcts_ab_result search_at(const zz_pos *p, int depth, bool tt) {
    mcts_ab_config c;
    mcts_ab_config_default(&c);
    if (!tt) c.tt_log2 = 0;
    mcts_ab *s = mcts_ab_new(&c);
    ck_assert_ptr_nonnull(s);
    mcts_ab_result r;
    ck_assert_int_eq(mcts_ab_search(s, p, depth, 0, &r), 0);
    mcts_ab_free(s);
    ck_assert_msg(zz_is_legal(p, r.move), "depth %d: an illegal move", depth);
    return r;
}

/* True when the player to move can win within this turn: one placement, or a chain of jumps. */
static bool wins_this_turn(const zz_pos *p) {
    zz_move *mv = malloc(ZZ_MAX_MOVES * sizeof *mv);
    ck_assert_ptr_nonnull(mv);
    int n = zz_gen_moves(p, mv);
    bool w = false;
    for (int i = 0; i < n && !w; i++) {
        zz_pos q = *p;
        zz_apply(&q, mv[i], NULL);
        w = zz_over(&q) ? q.winner == p->to_move : q.to_move == p->to_move && wins_this_turn(&q);
    }
    free(mv);
    return w;
}

static zz_move move_of(const zz_pos *p, const char *text) {
    zz_move m;
    char err[200];
    ck_assert_msg(zz_move_from_text(p, text, &m, err, sizeof err) == 0, "%s: %s", text, err);
    return m;
}

/* Player 0 has 3 white; a2 and b2 are gone, so a1 (white) hangs on b1 alone: removing the free
 * ring b1 with any placement isolates a1, the fourth white. */
static void won_isolation_position(zz_pos *p) {
    th_build(p, ZZ_B37, NULL, "Wa1");
    p->rings &= ~(zz_bit(th_cell(p, "a2")) | zz_bit(th_cell(p, "b2")));
    give_caps(p, 0, 3, 0, 0);
}

START_TEST(ab_plays_immediate_win) {
    zz_pos p[2];
    th_won_capture_position(&p[0]);
    won_isolation_position(&p[1]);
    for (int k = 0; k < 2; k++)
        for (int depth = 1; depth <= 3; depth += 2) {
            mcts_ab_result r = search_at(&p[k], depth, true);
            zz_pos q = p[k];
            zz_apply(&q, r.move, NULL);
            ck_assert_msg(zz_over(&q) && q.winner == 0, "position %d depth %d: no win", k, depth);
            ck_assert_int_eq(r.score, MCTS_AB_WIN - 1);
            ck_assert_int_le(r.depth, depth);
        }
    ck_assert_int_eq(zz_move_b(search_at(&p[1], 2, true).move), th_cell(&p[1], "b1"));
}
END_TEST

/* Player 0 must place one of the two blacks left in the pool; player 1 needs any one marble
 * (3 W 2 G 5 B).  A black next to a marble with a vacant ring beyond, or with a marble behind
 * it and a vacant ring in front, is jumped at once: 362 of the 406 moves lose on the spot. */
static void hanging_position(zz_pos *p) {
    th_build(p, ZZ_B37, NULL, "Wd4 Gb2 Gf5 Gb5 Bf2 Bd7 Bc1");
    give_caps(p, 0, 2, 3, 0);
    give_caps(p, 1, 3, 2, 5);
}

START_TEST(ab_avoids_handing_over_the_game) {
    zz_pos p;
    hanging_position(&p);
    zz_move *mv = malloc(ZZ_MAX_MOVES * sizeof *mv);
    int n = zz_gen_moves(&p, mv), losing = 0;
    for (int i = 0; i < n; i++) {
        zz_pos q = p;
        zz_apply(&q, mv[i], NULL);
        losing += !zz_over(&q) && wins_this_turn(&q);
    }
    free(mv);
    ck_assert_msg(losing > n / 2 && losing < n, "%d of %d moves lose at once", losing, n);
    for (int depth = 1; depth <= 2; depth++) {
        mcts_ab_result r = search_at(&p, depth, true);
        zz_pos q = p;
        zz_apply(&q, r.move, NULL);
        ck_assert_msg(!wins_this_turn(&q), "depth %d hands the opponent the game", depth);
    }
}
END_TEST

/* A zugzwang two plies deep, hand-checked.  Rings b1 c2 d2 c3 d3 e2 b4 c4 d4 e3 b5 c5; player 0
 * (1 W 4 G 4 B: one grey wins) to move, player 1 has 1 W 3 G 2 B; one white left in the pool.
 * Vacant: c2, b4, c4, e3, of which b4 and e3 are free.  Wb4 removing e3 empties the pool and
 * leaves c2 and c4 vacant, neither free, no jump, nothing isolated.  Player 1 must place one of
 * its own captures on c2 or c4 (no removal).  On c2, the marble there can jump the grey c3 to c4;
 * on c4, it can jump c3 to c2; either way that is the only jump, compulsory, and player 0's: the
 * fifth grey.  Every other first move lets player 1 off; no first move wins at once. */
static void zugzwang_position(zz_pos *p) {
    th_build(p, ZZ_B37, "b1 c2 d2 c3 d3 e2 b4 c4 d4 e3 b5 c5", "Wd2 Wd3 We2 Gc3 Bb1 Bd4 Bb5 Bc5");
    give_caps(p, 0, 1, 4, 4);
    give_caps(p, 1, 1, 3, 2);
}

START_TEST(ab_finds_depth2_zugzwang) {
    zz_pos p;
    zugzwang_position(&p);
    zz_move win = move_of(&p, "Wb4,e3");
    zz_pos q = p;
    zz_apply(&q, win, NULL);
    zz_move replies[64];
    int n = zz_gen_moves(&q, replies);
    ck_assert_int_eq(n, 6);                           /* 3 colours on c2 or c4, no removal */
    for (int i = 0; i < n; i++) {
        zz_pos r = q;
        zz_apply(&r, replies[i], NULL);
        ck_assert(wins_this_turn(&r));
    }
    ck_assert(!wins_this_turn(&p));
    ck_assert_int_lt(search_at(&p, 1, true).score, WIN_MIN);     /* depth 1 does not see it */
    for (int tt = 0; tt < 2; tt++) {
        mcts_ab_result r = search_at(&p, 2, tt);
        ck_assert_uint_eq(r.move, win);
        ck_assert_int_eq(r.score, MCTS_AB_WIN - 3);
    }
}
END_TEST

/* Player 0 has 3 grey and 4 black: the chain d2-d4-d6 takes both blacks and wins with its second
 * jump; d3-d1 takes a white and ends the turn.  Were the sign flipped between the two jumps of
 * the chain, the win would look like a loss. */
START_TEST(ab_chain_is_one_players_moves) {
    zz_pos p;
    th_build(&p, ZZ_B37, NULL, "Wd2 Bd3 Bd5");
    give_caps(&p, 0, 0, 3, 4);
    zz_move first = zz_move_jump(th_cell(&p, "d2"), th_cell(&p, "d4"));
    for (int depth = 1; depth <= 3; depth++) {
        mcts_ab_result r = search_at(&p, depth, true);
        ck_assert_uint_eq(r.move, first);
        ck_assert_int_eq(r.score, MCTS_AB_WIN - 2);
    }
    zz_apply(&p, first, NULL);                        /* mid-chain: the same player again */
    ck_assert_int_eq(p.to_move, 0);
    mcts_ab_result r = search_at(&p, 2, true);
    ck_assert_uint_eq(r.move, zz_move_jump(th_cell(&p, "d4"), th_cell(&p, "d6")));
    ck_assert_int_eq(r.score, MCTS_AB_WIN - 1);
}
END_TEST

/* The table changes the order of the search, never a fixed-depth result: the same move, score
 * and depth with and without it, on positions of random games (fixed seeds). */
START_TEST(ab_tt_keeps_fixed_depth_results) {
    const struct { zz_board_kind board; int plies, depth; } cases[] = {
        { ZZ_B37, 6, 3 }, { ZZ_B37, 14, 3 }, { ZZ_B37, 22, 3 }, { ZZ_B37, 30, 4 }, { ZZ_B48, 12, 2 }, { ZZ_B61, 20, 2 },
    };
    int compared = 0;
    for (unsigned k = 0; k < sizeof cases / sizeof *cases; k++) {
        for (uint64_t seed = 1; seed <= 3; seed++) {
            zz_pos p;
            zz_pos_init(&p, cases[k].board);
            uint64_t rng = seed * 0x9E3779B97F4A7C15ULL + k;
            th_random_playout(&p, &rng, cases[k].plies);
            if (zz_over(&p)) continue;
            mcts_ab_result a = search_at(&p, cases[k].depth, true), b = search_at(&p, cases[k].depth, false);
            ck_assert_msg(a.move == b.move && a.score == b.score && a.depth == b.depth,
                          "case %u seed %llu: with the table %x %d (depth %d), without %x %d (depth %d)", k,
                          (unsigned long long)seed, a.move, a.score, a.depth, b.move, b.score, b.depth);
            compared++;
        }
    }
    ck_assert_int_ge(compared, 12);
}
END_TEST

/* time=MS: the 61-ring opening (about 4,300 moves) to depth 64 stops near the time, with a
 * legal move of a completed depth; 1 ms still gives a legal move.  Liveness, not speed. */
START_TEST(ab_time_is_respected) {
    zz_pos p;
    zz_pos_init(&p, ZZ_B61);
    mcts_ab_config c;
    mcts_ab_config_default(&c);
    mcts_ab *s = mcts_ab_new(&c);
    const double ms[] = { 200, 1 };
    for (int k = 0; k < 2; k++) {
        mcts_ab_result r;
        ck_assert_int_eq(mcts_ab_search(s, &p, MCTS_AB_MAX_DEPTH, ms[k], &r), 0);
        ck_assert(zz_is_legal(&p, r.move));
        ck_assert(r.stopped);
        ck_assert_msg(r.seconds < ms[k] / 1000 + 1.0 * SLOW, "%.0f ms asked, %.3f s taken", ms[k], r.seconds);
        if (k == 0) ck_assert_int_ge(r.depth, 1);
    }
    mcts_ab_free(s);
    char err[256];
    mcts_agent *a = mcts_agent_new("ab:64,time=100", 1, err, sizeof err);
    ck_assert_msg(a != NULL, "%s", err);
    zz_pos_init(&p, ZZ_B48);
    ck_assert_int_eq(mcts_agent_newgame(a, &p, 7, err, sizeof err), 0);
    zz_move m;
    ck_assert_msg(mcts_agent_choose(a, &p, &m, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(mcts_agent_get_stats(a)->seconds < 0.1 + 1.0 * SLOW, "%.3f s", mcts_agent_get_stats(a)->seconds);
    mcts_agent_free(a);
}
END_TEST

/* The evaluation is the mover's view: the material changes sign with the mover, the mobility
 * term (the mover's, at most 60 points either way) does not; captures nearer to a winning set
 * count more: 3 white (one short of 4) beat 3 black (three short of 6). */
START_TEST(ab_evaluation_terms) {
    zz_pos p;
    th_build(&p, ZZ_B37, NULL, "Wd4");
    give_caps(&p, 0, 3, 0, 0);
    int mine = mcts_ab_evaluate(&p);
    p.to_move = 1;
    int theirs = mcts_ab_evaluate(&p);
    ck_assert_int_gt(mine, 0);
    ck_assert_int_lt(theirs, 0);
    ck_assert_int_le(abs(mine + theirs), 2 * 60);
    ck_assert_int_eq(mine - theirs, 2 * (3 * 120 + 400));     /* 3 white, one short of a set */
    zz_pos q;
    th_build(&q, ZZ_B37, NULL, "Wd4");
    give_caps(&q, 0, 0, 0, 3);
    ck_assert_int_gt(mine, mcts_ab_evaluate(&q));
}
END_TEST

START_TEST(ab_agent_spec) {
    char err[256];
    const char *good[] = { "ab:1", "ab:64", "ab:3,time=100", "ab:2,game=5000,seed=9", "ab:5,time=0" };
    const char *bad[] = { "ab:0", "ab:65", "ab:", "ab:x", "ab:-1", "ab:3,threads=2", "ab:3,c=1", "ab:3,time=-1" };
    for (unsigned i = 0; i < sizeof good / sizeof *good; i++)
        ck_assert_msg(mcts_agent_check_spec(good[i], err, sizeof err) == 0, "%s: %s", good[i], err);
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        ck_assert_msg(mcts_agent_check_spec(bad[i], err, sizeof err) != 0, "%s accepted", bad[i]);
        ck_assert_msg(err[0], "%s: no message", bad[i]);
    }
    ck_assert_int_ne(mcts_agent_check_spec("ab:65", err, sizeof err), 0);
    ck_assert_msg(strstr(err, "1 to 64"), "%s", err);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    mcts_agent_help(f);
    fclose(f);
    ck_assert_msg(strstr(text, "ab:DEPTH"), "%s", text);
    free(text);
}
END_TEST

/* Quiescence: a quiet position is its static evaluation; a pending capture is played out, with
 * the sign of the side that moves after it; a chain that wins is a win. */
START_TEST(ab_quiesce_plays_out_captures) {
    mcts_ab_config c;
    mcts_ab_config_default(&c);
    c.tt_log2 = 0;
    mcts_ab *s = mcts_ab_new(&c);
    ck_assert_ptr_nonnull(s);
    zz_pos p;
    th_build(&p, ZZ_B37, NULL, "Wd4 Gb2");
    ck_assert(!zz_must_capture(&p));
    ck_assert_int_eq(mcts_ab_quiesce(s, &p), mcts_ab_evaluate(&p));
    th_build(&p, ZZ_B37, NULL, "Wd1 Bd2");             /* one jump, d1 over d2 to d3, then player 1 */
    zz_move mv[64];
    ck_assert_int_eq(zz_gen_moves(&p, mv), 1);
    zz_pos q = p;
    zz_apply(&q, mv[0], NULL);
    ck_assert_int_eq(q.to_move, 1);
    ck_assert(!zz_must_capture(&q));
    ck_assert_int_eq(mcts_ab_quiesce(s, &p), -mcts_ab_evaluate(&q));
    ck_assert_int_ge(mcts_ab_quiesce(s, &p), 80 - 3 * 8);    /* a black (80) less the opponent's mobility (at most 24) */
    th_build(&p, ZZ_B37, NULL, "Wd2 Bd3 Bd5");          /* 3 grey 4 black: the chain wins */
    give_caps(&p, 0, 0, 3, 4);
    ck_assert_int_eq(mcts_ab_quiesce(s, &p), MCTS_AB_WIN - 2);
    mcts_ab_free(s);
}
END_TEST

/* The alpha-beta leaf blend: the inner evaluator's priors untouched; value (1 - lambda) * inner
 * + lambda * tanh(quiescence / scale), +-1 for a game won inside it; a copy answers alike. */
START_TEST(abmix_evaluator_blends_quiescence) {
    zz_pos p;
    th_build(&p, ZZ_B37, NULL, "Wd1 Bd2");
    mcts_ab_config c;
    mcts_ab_config_default(&c);
    mcts_ab *s = mcts_ab_new(&c);
    double q = mcts_ab_quiesce(s, &p);
    mcts_ab_free(s);
    const double lambdas[3] = { 0, 0.5, 1 };
    char err[200];
    for (int k = 0; k < 3; k++) {
        mcts_evaluator *e = mcts_eval_abmix_new(mcts_eval_uniform_new(), true, lambdas[k], 300, 0);
        ck_assert_ptr_nonnull(e);
        zz_move mv[64];
        float pri[64];
        mcts_eval_item it = { &p, mv, zz_gen_moves(&p, mv), pri, 0 };
        ck_assert_int_eq(mcts_evaluate(e, &it, 1, err, sizeof err), 0);
        ck_assert_float_eq_tol(pri[0], 1.0f / (float)it.nmoves, 1e-6f);
        ck_assert_double_eq_tol(it.value, lambdas[k] * tanh(q / 300), 1e-6);
        mcts_evaluator *copy = mcts_evaluator_clone(e, err, sizeof err);
        ck_assert_msg(copy, "%s", err);
        ck_assert(th_same_answers(e, copy, ZZ_B37, 30, 5));
        mcts_evaluator_free(copy);
        mcts_evaluator_free(e);
    }
    ck_assert_double_gt(tanh(q / 300), 0.15);                     /* q: a black less mobility */
    th_build(&p, ZZ_B37, NULL, "Wd2 Bd3 Bd5");
    give_caps(&p, 0, 0, 3, 4);
    for (int depth = 0; depth <= 1; depth++) {
        mcts_evaluator *e = mcts_eval_abmix_new(mcts_eval_uniform_new(), true, 1, 300, depth);
        zz_move mv[64];
        float pri[64];
        mcts_eval_item it = { &p, mv, zz_gen_moves(&p, mv), pri, 0 };
        ck_assert_int_eq(mcts_evaluate(e, &it, 1, err, sizeof err), 0);
        ck_assert_float_eq(it.value, 1.0f);
        mcts_evaluator_free(e);
    }
    const char *good[] = { "puct:uniform:10,abmix=0.3", "puct:uniform:10,abmix=1,abscale=200,abdepth=2" };
    const char *bad[] = { "puct:uniform:10,abmix=2", "puct:uniform:10,abdepth=9", "puct:uniform:10,abscale=0", "ab:3,abmix=0.5" };
    for (unsigned i = 0; i < 2; i++) ck_assert_msg(mcts_agent_check_spec(good[i], err, sizeof err) == 0, "%s: %s", good[i], err);
    for (unsigned i = 0; i < 4; i++) ck_assert_msg(mcts_agent_check_spec(bad[i], err, sizeof err) != 0, "%s accepted", bad[i]);
}
END_TEST

/* A move's score as the search of its position gives it: the depth-2 zugzwang's winning move
 * scores what the search found, every other move less; an illegal move is refused. */
START_TEST(ab_move_score_matches_the_search) {
    zz_pos p;
    zugzwang_position(&p);
    mcts_ab_config c;
    mcts_ab_config_default(&c);
    mcts_ab *s = mcts_ab_new(&c);
    mcts_ab_result r;
    ck_assert_int_eq(mcts_ab_search(s, &p, 2, 0, &r), 0);
    int v;
    ck_assert_int_eq(mcts_ab_move_score(s, &p, r.move, 2, 0, &v), 0);
    ck_assert_int_eq(v, r.score);
    zz_move *mv = malloc(ZZ_MAX_MOVES * sizeof *mv);
    int n = zz_gen_moves(&p, mv);
    for (int i = 0; i < n; i++) {
        if (mv[i] == r.move) continue;
        ck_assert_int_eq(mcts_ab_move_score(s, &p, mv[i], 2, 0, &v), 0);
        ck_assert_int_lt(v, r.score);
    }
    free(mv);
    ck_assert_int_eq(mcts_ab_move_score(s, &p, zz_move_jump(th_cell(&p, "d2"), th_cell(&p, "d4")), 2, 0, &v), -1);
    ck_assert_int_eq(mcts_ab_move_score(s, &p, r.move, 0, 0, &v), -1);
    mcts_ab_free(s);
}
END_TEST

/* The search among a few root moves scores them as the whole search does: on the depth-2
 * zugzwang, a losing move first and the winning one after it gives the winning move with the
 * whole search's score, and the first move's exact score (mcts_ab_move_score's); the winning
 * move first gives its own score twice.  Repeated, illegal or no moves are refused. */
START_TEST(ab_search_among_scores_its_moves) {
    zz_pos p;
    zugzwang_position(&p);
    zz_move win = move_of(&p, "Wb4,e3");
    mcts_ab_config c;
    mcts_ab_config_default(&c);
    mcts_ab *s = mcts_ab_new(&c);
    mcts_ab_result whole, r;
    ck_assert_int_eq(mcts_ab_search(s, &p, 2, 0, &whole), 0);
    ck_assert_int_eq(whole.move, win);
    zz_move *mv = malloc(ZZ_MAX_MOVES * sizeof *mv);
    int n = zz_gen_moves(&p, mv), tried = 0;
    for (int i = 0; i < n; i++) {
        if (mv[i] == win) continue;
        tried++;
        zz_move cands[2] = { mv[i], win };
        int first, exact;
        mcts_ab_clear(s, 0);
        ck_assert_int_eq(mcts_ab_search_among(s, &p, cands, 2, 2, 0, false, &r, &first), 0);
        ck_assert_int_eq(r.move, win);
        ck_assert_int_eq(r.score, whole.score);
        ck_assert_int_eq(r.depth, 2);
        ck_assert_int_eq(mcts_ab_move_score(s, &p, mv[i], 2, 0, &exact), 0);
        ck_assert_int_eq(first, exact);
        ck_assert_int_lt(first, r.score);
        cands[0] = win, cands[1] = mv[i];
        ck_assert_int_eq(mcts_ab_search_among(s, &p, cands, 2, 2, 0, false, &r, &first), 0);
        ck_assert_int_eq(r.move, win);
        ck_assert_int_eq(first, whole.score);
    }
    ck_assert_int_ge(tried, 3);
    int first;
    zz_move twice[2] = { win, win }, illegal[1] = { zz_move_jump(th_cell(&p, "d2"), th_cell(&p, "d4")) };
    ck_assert_int_eq(mcts_ab_search_among(s, &p, twice, 2, 2, 0, false, &r, &first), -1);
    ck_assert_int_eq(mcts_ab_search_among(s, &p, illegal, 1, 2, 0, false, &r, &first), -1);
    ck_assert_int_eq(mcts_ab_search_among(s, &p, twice, 0, 2, 0, false, &r, &first), -1);
    /* With a clock, in a 37-ring middle game with no short win: to the end of the time, or no new
     * depth after half of it (here depth 7 ends at about 0.09 s, and no depth 8 is started). */
    zz_pos o;
    zz_pos_init(&o, ZZ_B37);
    for (int ply = 0; ply < 24 && !zz_over(&o); ply++) {     /* a middle game: depth 1's moves */
        ck_assert_int_eq(mcts_ab_search(s, &o, 1, 0, &r), 0);
        zz_apply(&o, r.move, NULL);
    }
    ck_assert(!zz_over(&o));
    ck_assert_int_ge(zz_gen_moves(&o, mv), 3);
    for (int end = 0; end <= 1; end++) {
        mcts_ab_clear(s, 0);
        ck_assert_int_eq(mcts_ab_search_among(s, &o, mv, 3, MCTS_AB_MAX_DEPTH, 150, end, &r, &first), 0);
        ck_assert_int_ge(r.depth, 1);
        ck_assert(zz_is_legal(&o, r.move));
        if (end) ck_assert_msg(r.seconds >= 0.14, "to the end: %.3f s of 0.150", r.seconds);
        ck_assert_msg(r.seconds < 0.150 * SLOW + 0.1, "%.3f s of 0.150", r.seconds);
    }
    free(mv);
    mcts_ab_free(s);
}
END_TEST

/* Agent `spec`, made and set to choose its move *m from hanging_position (*p) with this seed;
 * the caller frees it. */
static mcts_agent *choose_from_hanging(const char *spec, uint64_t seed, zz_pos *p, zz_move *m) {
    char err[256];
    mcts_agent *a = mcts_agent_new(spec, 1, err, sizeof err);
    ck_assert_msg(a, "%s", err);
    hanging_position(p);
    ck_assert_int_eq(mcts_agent_newgame(a, p, seed, err, sizeof err), 0);
    ck_assert_msg(mcts_agent_choose(a, p, m, err, sizeof err) == 0, "%s", err);
    return a;
}

/* Whether agent `spec`, choosing from hanging_position with this seed, hands over the game;
 * *beside (when given) gets the number of its moves whose guard searched beside PUCT. */
static bool hands_over_counted(const char *spec, uint64_t seed, uint64_t *beside) {
    zz_pos p;
    zz_move m;
    mcts_agent *a = choose_from_hanging(spec, seed, &p, &m);
    zz_apply(&p, m, NULL);
    if (beside) *beside = mcts_agent_get_stats(a)->guarded_beside;
    mcts_agent_free(a);
    return wins_this_turn(&p);
}

static bool hands_over(const char *spec, uint64_t seed) { return hands_over_counted(spec, seed, NULL); }

/* The alpha-beta guard (guard=): PUCT on uniform priors with 3 simulations hands the opponent
 * the game from hanging_position on some of 8 seeds; guarded (alpha-beta to depth 2, no clock:
 * deterministic), never. */
START_TEST(guard_keeps_puct_from_handing_over_the_game) {
    char err[256];
    int unguarded = 0;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        unguarded += hands_over("puct:uniform:3", seed);
        ck_assert_msg(!hands_over("puct:uniform:3,guard=0.5", seed), "seed %llu: the guarded move hands over the game",
                      (unsigned long long)seed);
    }
    ck_assert_int_gt(unguarded, 0);
    const char *bad[] = { "puct:uniform:10,guard=1", "puct:uniform:10,guardmargin=-1", "uct:10,guard=0.5", "ab:3,guard=0.5" };
    for (unsigned i = 0; i < 4; i++) ck_assert_msg(mcts_agent_check_spec(bad[i], err, sizeof err) != 0, "%s accepted", bad[i]);
}
END_TEST

/* The guard beside PUCT (guardpar=1 with a time budget: alpha-beta on a thread of its own while
 * PUCT searches): PUCT on uniform priors kept to 3 children hands over the game from
 * hanging_position on some of 8 seeds; guarded beside it, never, and each move's guard ran beside
 * PUCT (guardpar=0: before it). */
START_TEST(guard_beside_puct_keeps_it_from_handing_over_the_game) {
    int unguarded = 0;
    uint64_t beside;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        unguarded += hands_over("puct:uniform:1000000000,time=40,maxchildren=3", seed);
        ck_assert_msg(!hands_over_counted("puct:uniform:1000000000,time=40,maxchildren=3,guard=0.5,guardpar=1", seed, &beside),
                      "seed %llu: the guarded move hands over the game", (unsigned long long)seed);
        ck_assert_int_eq((int)beside, 1);
    }
    ck_assert_int_gt(unguarded, 0);
    hands_over_counted("puct:uniform:1000000000,time=40,maxchildren=3,guard=0.5,guardpar=0", 1, &beside);
    ck_assert_int_eq((int)beside, 0);
    hands_over_counted("puct:uniform:1000000000,time=40,maxchildren=3,guard=0.5,threads=2", 1, &beside);
    ck_assert_int_eq((int)beside, 1);                     /* the default with two threads */
}
END_TEST

/* Whether agent `spec` hands over the game from hanging_position with this seed, as
 * hands_over; *every_child_does: so does every move of its search's root (the tree left after
 * its choice). */
static bool hands_over_among(const char *spec, uint64_t seed, bool *every_child_does) {
    zz_pos p;
    zz_move m, kids[64];
    mcts_agent *a = choose_from_hanging(spec, seed, &p, &m);
    int n = mcts_tree_root_children(mcts_agent_tree(a), kids, NULL, NULL, 64);
    ck_assert_int_ge(n, 1);
    *every_child_does = true;
    for (int i = 0; i < n; i++) {
        zz_pos q = p;
        zz_apply(&q, kids[i], NULL);
        if (!wins_this_turn(&q)) *every_child_does = false;
    }
    mcts_agent_free(a);
    zz_apply(&p, m, NULL);
    return wins_this_turn(&p);
}

/* The guard among PUCT's best moves (guardtop=K: after PUCT, alpha-beta over its move and its K
 * most visited others): PUCT on uniform priors kept to 3 children hands over the game from
 * hanging_position on 8 seeds of 8; guarded among those 3 children (K = 2), with a simulation
 * budget (alpha-beta to depth 2) or with a time, only on the seeds where all 3 children do,
 * which are not all.  Out-of-range K is refused. */
START_TEST(guard_among_puct_best_keeps_it_from_handing_over_the_game) {
    char err[256];
    const char *specs[] = { "puct:uniform:8,maxchildren=3,guard=0.5,guardtop=2",
                            "puct:uniform:1000000000,time=40,maxchildren=3,guard=0.5,guardtop=2",
                            "puct:uniform:1000000000,time=40,maxchildren=3,guard=0.5,guardtop=2,guardend=1" };
    int unguarded = 0;
    for (uint64_t seed = 1; seed <= 8; seed++) unguarded += hands_over("puct:uniform:8,maxchildren=3", seed);
    ck_assert_int_eq(unguarded, 8);
    for (unsigned k = 0; k < 3; k++) {
        int saved = 0;
        for (uint64_t seed = 1; seed <= 8; seed++) {
            bool every;
            bool lost = hands_over_among(specs[k], seed, &every);
            ck_assert_msg(!lost || every, "%s, seed %llu: hands over the game with a safe move among its children",
                          specs[k], (unsigned long long)seed);
            saved += !lost;
        }
        ck_assert_int_gt(saved, 0);
    }
    const char *bad[] = { "puct:uniform:10,guard=0.5,guardtop=-1", "puct:uniform:10,guard=0.5,guardtop=33",
                          "puct:uniform:10,guard=0.5,guardtop=1.5", "puct:uniform:10,guard=0.5,guardend=2" };
    for (unsigned i = 0; i < 4; i++) ck_assert_msg(mcts_agent_check_spec(bad[i], err, sizeof err) != 0, "%s accepted", bad[i]);
}
END_TEST

/* Play one game of a against b (a moves first when a_first); returns the winner's index in
 * {a, b}: 0, 1, or -1 for a draw.  Every move is checked legal. */
static int play_game(mcts_agent *a, mcts_agent *b, bool a_first, uint64_t seed) {
    char err[256];
    mcts_agent *side[2] = { a_first ? a : b, a_first ? b : a };
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    p.ply_cap = 400;
    for (int k = 0; k < 2; k++) ck_assert_int_eq(mcts_agent_newgame(side[k], &p, seed + (uint64_t)k, err, sizeof err), 0);
    while (!zz_over(&p)) {
        zz_move m;
        ck_assert_msg(mcts_agent_choose(side[p.to_move], &p, &m, err, sizeof err) == 0, "%s", err);
        ck_assert(zz_is_legal(&p, m));
        for (int k = 0; k < 2; k++) ck_assert_int_eq(mcts_agent_played(side[k], &p, m, err, sizeof err), 0);
        zz_apply(&p, m, NULL);
    }
    if (p.winner < 0) return -1;
    return (side[p.winner] == a) ? 0 : 1;
}

START_TEST(ab_agent_beats_random) {
    char err[256];
    mcts_agent *ab = mcts_agent_new("ab:2", 1, err, sizeof err), *rnd = mcts_agent_new("random", 1, err, sizeof err);
    ck_assert_ptr_nonnull(ab);
    ck_assert_ptr_nonnull(rnd);
    ck_assert(!mcts_agent_can_analyse(ab));
    ck_assert_ptr_null(mcts_agent_tree(ab));
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    ck_assert_int_ne(mcts_agent_analyse(ab, &p, 100, 0, NULL, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "cannot analyse"), "%s", err);
    mcts_agent_set_budget(ab, 800, 0);                /* simulations: the depth stays 2 */
    int wins = 0;
    for (int g = 0; g < 4; g++) wins += play_game(ab, rnd, g % 2 == 0, 100 + (uint64_t)g) == 0;
    ck_assert_msg(wins >= 3, "ab:2 won %d of 4 against random", wins);
    ck_assert_int_gt((long)mcts_agent_get_stats(ab)->sims, 0);
    mcts_agent_free(ab);
    mcts_agent_free(rnd);
}
END_TEST

int main(void) {
    Suite *s = suite_create("mcts_ab");
    TCase *tc = tcase_create("ab");
    tcase_set_timeout(tc, 120 * SLOW);
    tcase_add_test(tc, ab_plays_immediate_win);
    tcase_add_test(tc, ab_avoids_handing_over_the_game);
    tcase_add_test(tc, ab_finds_depth2_zugzwang);
    tcase_add_test(tc, ab_chain_is_one_players_moves);
    tcase_add_test(tc, ab_tt_keeps_fixed_depth_results);
    tcase_add_test(tc, ab_time_is_respected);
    tcase_add_test(tc, ab_evaluation_terms);
    tcase_add_test(tc, ab_agent_spec);
    tcase_add_test(tc, ab_agent_beats_random);
    tcase_add_test(tc, ab_quiesce_plays_out_captures);
    tcase_add_test(tc, abmix_evaluator_blends_quiescence);
    tcase_add_test(tc, ab_move_score_matches_the_search);
    tcase_add_test(tc, guard_keeps_puct_from_handing_over_the_game);
    tcase_add_test(tc, guard_beside_puct_keeps_it_from_handing_over_the_game);
    tcase_add_test(tc, ab_search_among_scores_its_moves);
    tcase_add_test(tc, guard_among_puct_best_keeps_it_from_handing_over_the_game);
    suite_add_tcase(s, tc);
    return th_run(s);
}
