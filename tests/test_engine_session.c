/* test_engine_session.c — the engine session (src/engine/session.h): a background search that
 * reports progress, is stopped mid-search and ends on its budget; play, undo and errors that
 * leave the game alone; and the review (review.h) on crafted games with known answers: a turn
 * that throws away a win is a blunder, the engine's own turn loses 0, a forced turn is never
 * flagged, a reply better than the engine's choice revalues the turn that allowed it (hindsight),
 * the JSON is valid; and tools/analyse on good and bad input. */
#include "helpers.h"
#include "engine/json.h"
#include "engine/review.h"
#include "engine/session.h"
#include "mcts/clock.h"
#include "render/input.h"
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(int ms) {
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static ze_session *new_session(const char *spec) {
    char err[256];
    ze_session *s = ze_session_new(spec, 1, 5, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    return s;
}

/* The main line is legal from the searched position, and the best move is its first. */
static void check_info(const ze_search_info *info) {
    zz_pos p = info->pos;
    ck_assert(info->npv >= 1);
    ck_assert(info->pv[0] == info->best);
    for (int i = 0; i < info->npv; i++) {
        ck_assert_msg(!zz_over(&p) && zz_is_legal(&p, info->pv[i]), "pv move %d is not legal", i + 1);
        zz_apply(&p, info->pv[i], NULL);
    }
    ck_assert(info->nroot >= 1 && info->root_moves[0] == info->best);
    for (int i = 1; i < info->nroot; i++) ck_assert(info->root_visits[i] <= info->root_visits[i - 1]);
    ck_assert(info->value >= -1 && info->value <= 1);
}

/* Peek at the running search until its snapshot has more than `above` simulations (the wait
 * is polled, not a fixed sleep, so a busy machine only makes it slower), for at most 60 s. */
static ze_search_info wait_for_progress(ze_session *s, uint64_t above) {
    ze_search_info info;
    double t0 = mcts_now_s();
    do {
        sleep_ms(20);
        ck_assert(ze_search_peek(s, &info));
        ck_assert_msg(info.running, "the search ended: it was asked for 10 minutes");
    } while (info.sims <= above && mcts_now_s() - t0 < 60);
    ck_assert_msg(info.sims > above, "no progress past %llu simulations in 60 s", (unsigned long long)above);
    return info;
}

START_TEST(search_reports_progress_and_stops) {
    ze_session *s = new_session("uct:1000000");
    char err[256];
    ze_search_info a, b;
    ck_assert(!ze_search_peek(s, &a));                        /* nothing started yet */
    ck_assert_int_eq(ze_search_start(s, 0, 600000, err, sizeof err), 0);
    a = wait_for_progress(s, 0);
    b = wait_for_progress(s, a.sims);
    double t0 = mcts_now_s();
    ze_search_info fin;
    ck_assert(ze_search_stop(s, &fin));                        /* mid-search: it was asked for 10 min */
    ck_assert_msg(mcts_now_s() - t0 < 5, "stop took %.1f s", mcts_now_s() - t0);
    ck_assert(!fin.running && fin.stopped);
    ck_assert(fin.sims >= b.sims);
    check_info(&fin);
    ck_assert(!ze_search_stop(s, NULL));                       /* nothing runs any more */
    ck_assert(ze_search_peek(s, &a) && !a.running);            /* the last snapshot stays */
    ze_session_free(s);
}
END_TEST

START_TEST(search_ends_on_its_budget) {
    ze_session *s = new_session("puct:default:100000");
    char err[256];
    ze_search_info fin;
    ck_assert_int_eq(ze_search_start(s, 3000, 0, err, sizeof err), 0);
    ck_assert(ze_search_wait(s, &fin));
    ck_assert(!fin.running && !fin.stopped);
    ck_assert_msg(fin.sims >= 3000, "root visits %llu", (unsigned long long)fin.sims);
    check_info(&fin);
    ck_assert_int_eq(ze_search_start(s, 0, 0, err, sizeof err), -1);      /* no budget */
    ck_assert_msg(strstr(err, "budget"), "%s", err);
    ze_session_free(s);
}
END_TEST

START_TEST(play_and_undo) {
    ze_session *s = new_session("uct:200");
    char err[256];
    zz_pos start = *ze_session_position(s), after[6];
    uint64_t rng = 11;
    for (int i = 0; i < 6; i++) {
        zz_move m = zz_random_move(ze_session_position(s), &rng);
        ck_assert_int_eq(ze_session_play(s, m, err, sizeof err), 0);
        after[i] = *ze_session_position(s);
    }
    ck_assert_int_eq(ze_session_undo(s, 2, err, sizeof err), 0);
    ck_assert(zz_pos_equal(ze_session_position(s), &after[3]));
    const zz_move *h;
    ck_assert_int_eq(ze_session_history(s, &h), 4);
    ck_assert_int_eq(ze_session_undo(s, 5, err, sizeof err), -1);         /* only 4 to take back */
    ck_assert(zz_pos_equal(ze_session_position(s), &after[3]));
    zz_pos before = *ze_session_position(s);
    ck_assert_int_eq(ze_session_play(s, zz_move_place(0, 0, 0), err, sizeof err), -1);
    ck_assert(zz_pos_equal(ze_session_position(s), &before));
    /* a move stops a running search and forgets its snapshot */
    ck_assert_int_eq(ze_search_start(s, 0, 60000, err, sizeof err), 0);
    sleep_ms(100);
    zz_move m = zz_random_move(ze_session_position(s), &rng);
    ck_assert_int_eq(ze_session_play(s, m, err, sizeof err), 0);
    ze_search_info info;
    ck_assert(!ze_search_peek(s, &info));
    ck_assert_int_eq(ze_session_undo(s, 5, err, sizeof err), 0);
    ck_assert(zz_pos_equal(ze_session_position(s), &start));
    zz_move best;
    ck_assert_int_eq(ze_session_bestmove(s, 100, 0, &best, err, sizeof err), 0);
    ck_assert(zz_is_legal(&start, best));
    ze_session_free(s);
}
END_TEST

typedef struct { int calls; uint64_t last; bool increasing; } progress_log;

static void on_progress(const ze_search_info *info, void *ctx) {
    progress_log *l = ctx;
    if (info->sims < l->last) l->increasing = false;
    l->last = info->sims;
    l->calls++;
}

START_TEST(analysis_calls_progress) {
    char err[256];
    mcts_agent *a = mcts_agent_new("uct:1000000", 1, err, sizeof err);
    ck_assert(a);
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    ck_assert_int_eq(mcts_agent_newgame(a, &p, 1, err, sizeof err), 0);
    progress_log log = { 0, 0, true };
    ze_search_info info;
    /* a simulation budget, not a time one: on a busy machine the search takes longer and
     * reports more often, never less (each 50 ms slice runs at least 64 iterations) */
    double t0 = mcts_now_s();
    ck_assert_int_eq(ze_analyse(a, &p, 300000, 0, 50, NULL, on_progress, &log, &info, err, sizeof err), 0);
    double ms = 1000 * (mcts_now_s() - t0);
    ck_assert_msg(log.calls >= 3, "progress called %d times in %.0f ms with 50 ms slices", log.calls, ms);
    ck_assert_msg(info.sims >= 300000, "root visits %llu", (unsigned long long)info.sims);
    ck_assert(log.increasing && info.sims >= log.last);
    ck_assert_int_eq(ze_analyse(a, &p, 0, 0, 50, NULL, NULL, NULL, &info, err, sizeof err), -1);
    mcts_agent_free(a);
}
END_TEST

/* ---- the review -------------------------------------------------------------------------- */
static mcts_agent *review_agent(void) {
    char err[256];
    mcts_agent *a = mcts_agent_new("puct:default:2000000000", 1, err, sizeof err);
    ck_assert_msg(a, "%s", err);
    return a;
}

static void one_config(ze_review_config *c) {
    ze_review_config_default(c);
    c->sims = 200;
    c->time_ms = 0;
}

/* Review g with the test's config (asserting it succeeds). */
static void review_of(mcts_agent *a, const zz_game *g, const ze_review_config *c, ze_review *r) {
    char err[256];
    ck_assert_msg(ze_review_game(a, g, c, NULL, NULL, NULL, r, err, sizeof err) == 0, "%s", err);
}

/* A game from `start` with the given single-move turns. */
static void game_of(zz_game *g, const zz_pos *start, const zz_move *moves, int n) {
    char err[256];
    zz_game_init(g, (zz_board_kind)start->board);
    g->start = g->final = *start;
    for (int i = 0; i < n; i++) ck_assert_msg(zz_game_add_turn(g, &moves[i], 1, err, sizeof err) == 0, "%s", err);
}

/* A position where the mover wins at once with some move, and plays instead a placement that
 * ends the turn and lets the opponent win at once. */
static bool find_thrown_win(uint64_t *rng, zz_pos *at, zz_move *bad, zz_move *reply) {
    zz_move *moves = malloc(ZZ_MAX_MOVES * sizeof *moves);
    for (int game = 0; game < 3000; game++) {
        zz_pos p;
        zz_pos_init(&p, ZZ_B37);
        while (!zz_over(&p)) {
            if (p.chain == ZZ_NO_CELL && mcts_find_win(&p) != ZZ_MOVE_NONE) {
                int n = zz_gen_moves(&p, moves);
                for (int i = 0; i < n; i++) {
                    if (zz_move_is_jump(moves[i])) continue;
                    zz_pos q = p;
                    zz_effects fx;
                    zz_apply(&q, moves[i], &fx);
                    if (zz_over(&q) || !fx.turn_over) continue;
                    zz_move w = mcts_find_win(&q);
                    if (w == ZZ_MOVE_NONE) continue;
                    zz_pos r = q;
                    zz_apply(&r, w, &fx);
                    if (!zz_over(&r)) continue;
                    *at = p, *bad = moves[i], *reply = w;
                    free(moves);
                    return true;
                }
            }
            zz_apply(&p, zz_random_move(&p, rng), NULL);
        }
    }
    free(moves);
    return false;
}

START_TEST(review_flags_a_thrown_win_as_blunder) {
    uint64_t rng = 77;
    zz_pos at;
    zz_move turn[2];
    ck_assert_msg(find_thrown_win(&rng, &at, &turn[0], &turn[1]), "no such position in 3,000 random games");
    zz_game g;
    game_of(&g, &at, turn, 2);
    mcts_agent *a = review_agent();
    ze_review_config c;
    one_config(&c);
    ze_review r;
    review_of(a, &g, &c, &r);
    ck_assert_int_eq(r.nturns, 2);
    const ze_review_turn *t = &r.turns[0];
    ck_assert_msg(t->value_best == 1.0 && t->wp_before == 1.0, "the win was not seen: %f", t->value_best);
    ck_assert_msg(t->value_played == -1.0, "value of the turn played %f", t->value_played);
    ck_assert_msg(t->label == ZE_LABEL_BLUNDER && fabs(t->loss - 1.0) < 1e-9, "label %d loss %f", t->label, t->loss);
    ck_assert(!t->is_best);
    ck_assert_int_eq(r.turns[1].label, ZE_LABEL_NONE);         /* the winning reply */
    ck_assert(r.turns[1].loss == 0.0);
    ck_assert(r.final_value == -1.0 || r.final_value == 1.0);  /* the result is exact */
    ze_review_free(&r);
    zz_game_free(&g);
    mcts_agent_free(a);
}
END_TEST

START_TEST(review_engine_turn_loses_nothing) {
    zz_pos start;
    zz_pos_init(&start, ZZ_B37);
    uint64_t rng = 5;
    zz_move any = zz_random_move(&start, &rng);
    zz_game g;
    game_of(&g, &start, &any, 1);
    mcts_agent *a = review_agent();
    ze_review_config c;
    one_config(&c);
    ze_review r;
    review_of(a, &g, &c, &r);
    ck_assert_int_eq(r.turns[0].nbest, 1);
    zz_move best = r.turns[0].best_moves[0];
    ze_review_free(&r);
    zz_game_free(&g);
    game_of(&g, &start, &best, 1);                               /* now play the engine's turn */
    review_of(a, &g, &c, &r);
    ck_assert(r.turns[0].is_best);
    ck_assert(r.turns[0].loss == 0.0 && r.turns[0].label == ZE_LABEL_NONE);
    ck_assert(r.turns[0].value_played == r.turns[0].value_best);
    ze_review_free(&r);
    zz_game_free(&g);
    mcts_agent_free(a);
}
END_TEST

/* Whether the search's root list holds move m. */
static bool listed_at_root(const ze_search_info *info, zz_move m) {
    for (int i = 0; i < info->nroot; i++)
        if (info->root_moves[i] == m) return true;
    return false;
}

/* A one-move turn the search visited enough is valued in that same search (both values from one
 * tree, the mover's view): here the engine's second choice at the opening, found by the same
 * deterministic search the review runs (one thread, a simulation budget, the same seed). */
START_TEST(review_values_played_turns_in_the_same_search) {
    char err[512];
    mcts_agent *a = review_agent();
    ze_review_config c;
    one_config(&c);
    c.sims = 2000;
    zz_pos start;
    zz_pos_init(&start, ZZ_B37);
    ze_search_info info;
    ck_assert_int_eq(mcts_agent_newgame(a, &start, c.seed, err, sizeof err), 0);
    ck_assert_msg(ze_analyse(a, &start, c.sims, 0, 0, NULL, NULL, NULL, &info, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(info.nroot >= 2 && info.root_visits[1] >= ZE_SAME_SEARCH_VISITS, "second choice has %d visits", info.root_visits[1]);
    zz_game g;
    game_of(&g, &start, &info.root_moves[1], 1);
    ze_review r;
    ck_assert_msg(ze_review_game(a, &g, &c, NULL, NULL, NULL, &r, err, sizeof err) == 0, "%s", err);
    const ze_review_turn *t = &r.turns[0];
    ck_assert(!t->is_best);
    ck_assert_int_eq(t->value_from, ZE_FROM_SAME_SEARCH);
    ck_assert_int_eq(t->visits_same, (uint32_t)info.root_visits[1]);
    ck_assert(t->value_played == info.root_q[1] && t->value_best == info.root_q[0]);
    ck_assert(fabs(t->loss - fmax(0, t->wp_before - t->wp_played)) < 1e-12);
    ze_review_free(&r);
    zz_game_free(&g);
    /* a move the search hardly visited is valued from the next position: the least visited one
     * listed, or, when the network put enough visits on every one listed, a legal move the
     * search never tried (not listed, and the list is whole) */
    zz_move rare = info.root_moves[info.nroot - 1];
    if (info.root_visits[info.nroot - 1] >= ZE_SAME_SEARCH_VISITS) {
        ck_assert_int_lt(info.nroot, ZE_ROOT_MAX);
        zz_move *moves = malloc(ZZ_MAX_MOVES * sizeof *moves);
        ck_assert_ptr_nonnull(moves);
        int n = zz_gen_moves(&start, moves), k = 0;
        while (k < n && listed_at_root(&info, moves[k])) k++;
        ck_assert_int_lt(k, n);
        rare = moves[k];
        free(moves);
    }
    game_of(&g, &start, &rare, 1);
    ck_assert_msg(ze_review_game(a, &g, &c, NULL, NULL, NULL, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.turns[0].value_from, ZE_FROM_NEXT);
    ze_review_free(&r);
    zz_game_free(&g);
    mcts_agent_free(a);
}
END_TEST

START_TEST(review_never_flags_a_forced_turn) {
    uint64_t rng = 3;
    int found = 0;
    mcts_agent *a = review_agent();
    ze_review_config c;
    one_config(&c);
    c.thresholds[0] = c.thresholds[1] = c.thresholds[2] = 1e-9;   /* flag any loss at all */
    for (int game = 0; game < 2000 && found < 3; game++) {
        zz_pos p;
        zz_pos_init(&p, ZZ_B37);
        while (!zz_over(&p) && found < 3) {
            zz_move m = zz_random_move(&p, &rng);
            zz_pos q = p;
            zz_effects fx;
            zz_apply(&q, m, &fx);
            if (p.chain == ZZ_NO_CELL && zz_count_moves(&p) == 1 && fx.turn_over && !zz_over(&q)) {
                zz_game g;
                game_of(&g, &p, &m, 1);
                ze_review r;
                char err[256];
                ck_assert_msg(ze_review_game(a, &g, &c, NULL, NULL, NULL, &r, err, sizeof err) == 0, "%s", err);
                ck_assert(r.turns[0].forced);
                ck_assert_msg(r.turns[0].label == ZE_LABEL_NONE && r.turns[0].loss == 0.0, "forced turn flagged: loss %f", r.turns[0].loss);
                ze_review_free(&r);
                zz_game_free(&g);
                found++;
            }
            p = q;
        }
    }
    ck_assert_msg(found == 3, "only %d forced turns found", found);
    mcts_agent_free(a);
}
END_TEST

/* Three one-move turns from the 37-ring start, none the engine's, none visited in the same
 * search (so valued from the next position), with positions pos[0..3], for ze_review_score. */
static void hindsight_game(ze_review *r, ze_review_turn *turns, zz_pos *pos) {
    zz_move *moves = malloc(ZZ_MAX_MOVES * sizeof *moves);
    ck_assert_ptr_nonnull(moves);
    memset(r, 0, sizeof *r);
    r->nturns = 3, r->turns = turns;
    zz_pos_init(&pos[0], ZZ_B37);
    for (int i = 0; i < 3; i++) {
        int n = zz_gen_moves(&pos[i], moves);
        ck_assert_int_ge(n, 2);
        ze_review_turn *t = &turns[i];
        memset(t, 0, sizeof *t);
        t->player = pos[i].to_move;
        t->nmoves = t->nbest = 1;
        t->moves[0] = moves[0], t->best_moves[0] = moves[1];
        t->sims = 1000;
        pos[i + 1] = pos[i];
        zz_apply(&pos[i + 1], moves[0], NULL);
        ck_assert_int_ne(pos[i + 1].to_move, t->player);      /* a whole turn */
    }
    free(moves);
}

/* Hindsight, with values worked by hand (T = 1.6: wp(v) = sigmoid(2 atanh(v) / 1.6), so
 * wp(0.9) = 0.86298, wp(0.1) = 0.53131, wp(0) = 0.5, wp(-0.9) = 0.13702, wp(0.15) = 0.54709,
 * wp(-0.1) = 0.46869).  The third turn's mover stood at +0.1 by the engine; the turn played left
 * the other side at -0.9, so it was worth +0.9: better than the engine's by 0.332 (>= 0.10).  The
 * second turn, which allowed it, is then valued at -0.9 ("reply played"), a loss of 0.363 from
 * its +0.0: a blunder, where the next position's value alone (-0.1) lost 0.031. */
START_TEST(review_scores_in_hindsight) {
    ze_review r;
    ze_review_turn turns[3];
    zz_pos pos[4];
    ze_review_config c;
    ze_review_config_default(&c);
    hindsight_game(&r, turns, pos);
    double val[4] = { 0.0, 0.0, 0.1, -0.9 };
    ze_review_score(&r, pos, val, 3, &c);
    const ze_review_turn *t2 = &turns[2], *t1 = &turns[1], *t0 = &turns[0];
    ck_assert(t2->better && t2->value_from == ZE_FROM_NEXT && t2->label == ZE_LABEL_NONE);
    ck_assert(t2->value_best == 0.1 && t2->value_played == 0.9 && t2->value_before == 0.9 && t2->loss == 0);
    ck_assert(fabs(t2->wp_before - 0.86298) < 1e-5);
    ck_assert(!t1->better && t1->value_from == ZE_FROM_REPLY && t1->value_played == -0.9 && t1->value_before == 0.0);
    ck_assert(fabs(t1->loss - 0.36298) < 1e-5 && t1->label == ZE_LABEL_BLUNDER);
    ck_assert(!t0->better && t0->value_from == ZE_FROM_NEXT && t0->loss == 0 && t0->label == ZE_LABEL_NONE);
    /* while the review runs: with the third position not yet analysed, the second turn is valued
     * from the next position's own value; the third position's value then revises it */
    hindsight_game(&r, turns, pos);
    ze_review_score(&r, pos, val, 2, &c);
    ck_assert(t1->value_from == ZE_FROM_NEXT && t1->value_played == -0.1);
    ck_assert(fabs(t1->loss - 0.03131) < 1e-5 && t1->label == ZE_LABEL_NONE);
    /* below the threshold: +0.15 against +0.1 gains 0.016, so no hindsight */
    val[3] = -0.15;
    ze_review_score(&r, pos, val, 3, &c);
    ck_assert(!t2->better && t2->value_before == 0.1 && t2->loss == 0);
    ck_assert(t1->value_from == ZE_FROM_NEXT && t1->value_played == -0.1 && t1->label == ZE_LABEL_NONE);
    /* a turn the same search visited enough keeps that search's value, unless the next position's
     * own search shows it better than the engine's turn (+0.9 against +0.1): then that one */
    for (int k = 0; k < 2; k++) {
        val[3] = k == 0 ? -0.15 : -0.9;
        hindsight_game(&r, turns, pos);
        turns[2].visits_same = 500, turns[2].q_same = 0.12;
        ze_review_score(&r, pos, val, 3, &c);
        if (k == 0) ck_assert(t2->value_from == ZE_FROM_SAME_SEARCH && t2->value_played == 0.12 && !t2->better);
        else ck_assert(t2->value_from == ZE_FROM_NEXT && t2->value_played == 0.9 && t2->better && t1->label == ZE_LABEL_BLUNDER);
    }
    /* the engine's own turn, or a forced one, is never "better": it is what the engine saw */
    val[3] = -0.9;
    for (int k = 0; k < 2; k++) {
        hindsight_game(&r, turns, pos);
        if (k == 0) turns[2].best_moves[0] = turns[2].moves[0];
        else turns[2].forced = true;
        ze_review_score(&r, pos, val, 3, &c);
        ck_assert_msg(!t2->better && t2->value_before == 0.1 && t2->loss == 0, "case %d", k);
        ck_assert_msg(t1->value_from == ZE_FROM_NEXT && t1->value_played == -0.1 && t1->label == ZE_LABEL_NONE, "case %d", k);
    }
}
END_TEST

START_TEST(review_json_is_valid_and_complete) {
    char err[512];
    zz_game g;
    ck_assert_msg(rd_load_notation("Wd7,d1; Be1,e6; Bc3,f1; Bg2,f5", 37, &g, err, sizeof err) == 0, "%s", err);
    mcts_agent *a = review_agent();
    ze_review_config c;
    one_config(&c);
    ze_review r;
    ck_assert_msg(ze_review_game(a, &g, &c, NULL, NULL, NULL, &r, err, sizeof err) == 0, "%s", err);
    cJSON *o = ze_review_json(&g, &r, &c, "puct:default");
    char *text = cJSON_PrintUnformatted(o);
    cJSON *back = cJSON_Parse(text);
    ck_assert_msg(back != NULL, "not valid JSON: %.200s", text);
    cJSON *turns = cJSON_GetObjectItem(back, "turns");
    ck_assert_int_eq(cJSON_GetArraySize(turns), 4);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(back, "wp0")), 5);
    static const char *const fields[] = { "turn", "player", "played", "best", "is_best", "forced", "wp_before",
                                          "value_best", "value_played", "wp_played", "value_from", "loss", "label", "sims" };
    for (int i = 0; i < 4; i++)
        for (unsigned k = 0; k < sizeof fields / sizeof *fields; k++)
            ck_assert_msg(cJSON_GetObjectItem(cJSON_GetArrayItem(turns, i), fields[k]), "turn %d lacks %s", i + 1, fields[k]);
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(turns, 0), "played")->valuestring, "Wd7,d1");
    ck_assert_int_eq(r.done, 5);
    free(text);
    cJSON_Delete(o);
    cJSON_Delete(back);
    ze_review_free(&r);
    zz_game_free(&g);
    mcts_agent_free(a);
}
END_TEST

START_TEST(review_refuses_bad_budget_and_empty_game) {
    mcts_agent *a = review_agent();
    zz_game g;
    zz_game_init(&g, ZZ_B37);
    ze_review_config c;
    one_config(&c);
    ze_review r;
    char err[256];
    ck_assert_int_eq(ze_review_game(a, &g, &c, NULL, NULL, NULL, &r, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "no moves"), "%s", err);
    ze_review_free(&r);
    c.sims = 0;
    c.time_ms = 0;
    ck_assert_int_eq(ze_review_game(a, &g, &c, NULL, NULL, NULL, &r, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "budget"), "%s", err);
    ze_review_free(&r);
    mcts_agent_free(a);
    char e2[256];
    mcts_agent *rnd = mcts_agent_new("random", 1, e2, sizeof e2);
    one_config(&c);
    ck_assert_int_eq(ze_review_game(rnd, &g, &c, NULL, NULL, NULL, &r, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "cannot analyse"), "%s", err);
    ze_review_free(&r);
    mcts_agent_free(rnd);
    zz_game_free(&g);
}
END_TEST

/* ---- tools/analyse ------------------------------------------------------------------------ */
static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    ck_assert(f);
    fputs(text, f);
    fclose(f);
}

START_TEST(analyse_tool_outputs) {
    char dir[] = "/tmp/zz_analyse_XXXXXX", args[1024], out[65536], err[4096];
    ck_assert(mkdtemp(dir));
    snprintf(args, sizeof args, "-q -m \"Wd7,d1; Be1,e6; Bc3,f1; Bg2,f5; Bd6,c1\" --sims 100 --threads 1 --json %s/r.json --png %s/g.png --boards %s/boards",
             dir, dir, dir);
    int st = th_run_tool("test_engine_session", "analyse", args, 120, out, sizeof out, err, sizeof err);
    if (st < 0) return;
    ck_assert_msg(st == 0, "status %d: %s", st, err);
    ck_assert_msg(strstr(out, "engine's best") && strstr(out, "Wd7,d1"), "%s", out);
    char path[600];
    snprintf(path, sizeof path, "%s/r.json", dir);
    FILE *f = fopen(path, "r");
    ck_assert(f);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    cJSON *o = cJSON_Parse(text);
    ck_assert_msg(o, "the JSON does not parse");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "turns")), 5);
    cJSON_Delete(o);
    snprintf(path, sizeof path, "%s/g.png", dir);
    ck_assert_msg(access(path, R_OK) == 0, "no graph");
    snprintf(args, sizeof args, "rm -rf %s", dir);
    ck_assert_int_eq(system(args), 0);
}
END_TEST

START_TEST(analyse_tool_refuses_bad_input) {
    char out[8192], err[4096];
    write_file("/tmp/zz_bad.sgf", "(;GM[22]SU[Zertz]\n; P0[1 RtoB 2 0 Q 99]\n; P0[2 Done]\n)\n");
    write_file("/tmp/zz_empty.txt", "# no turns here\n");
    static const struct { const char *args, *says; int status; } bad[] = {
        { "/tmp/zz_bad.sgf --sims 10", "zz_bad.sgf", 1 },
        { "/tmp/zz_empty.txt --sims 10", "no moves", 1 },
        { "-m \"Wd4,a1\" --sims 0", "--sims", 2 },
        { "-m \"Wd4,a1\" --time 0", "--time", 2 },
        { "-m \"Wd4,a1; Qq9\" --sims 10", "Qq9", 1 },
        { "-m \"Wd4,a1\" --sims 10 --agent random", "cannot analyse", 1 },
        { "/tmp/zz_no_such_file.sgf", "zz_no_such_file", 1 },
    };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        int st = th_run_tool("test_engine_session", "analyse", bad[i].args, 60, out, sizeof out, err, sizeof err);
        if (st < 0) return;
        ck_assert_msg(st == bad[i].status, "analyse %s: status %d: %s", bad[i].args, st, err);
        ck_assert_msg(!strncmp(err, "zertz: analyse: ", 16) && strstr(err, bad[i].says), "analyse %s: %s", bad[i].args, err);
    }
    const char *arch = th_archive_dir();
    if (!arch) { th_skip("test_engine_session", "analyse of a Zertz+xx game: no game archive"); return; }
    char args[1024];
    snprintf(args, sizeof args, "$(ls %s/sgf/xx-custom/*/*.sgf %s/sgf/xx-custom/*.sgf 2>/dev/null | head -1) --sims 10", arch, arch);
    int st = th_run_tool("test_engine_session", "analyse", args, 60, out, sizeof out, err, sizeof err);
    ck_assert_msg(st == 1 && strstr(err, "Zertz+xx"), "Extreme game: status %d: %s", st, err);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("engine_session");
    TCase *t = tcase_create("session");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, search_reports_progress_and_stops);
    tcase_add_test(t, search_ends_on_its_budget);
    tcase_add_test(t, play_and_undo);
    tcase_add_test(t, analysis_calls_progress);
    suite_add_tcase(s, t);
    TCase *r = tcase_create("review");
    tcase_set_timeout(r, 300);
    tcase_add_test(r, review_flags_a_thrown_win_as_blunder);
    tcase_add_test(r, review_engine_turn_loses_nothing);
    tcase_add_test(r, review_values_played_turns_in_the_same_search);
    tcase_add_test(r, review_never_flags_a_forced_turn);
    tcase_add_test(r, review_scores_in_hindsight);
    tcase_add_test(r, review_json_is_valid_and_complete);
    tcase_add_test(r, review_refuses_bad_budget_and_empty_game);
    tcase_add_test(r, analyse_tool_outputs);
    tcase_add_test(r, analyse_tool_refuses_bad_input);
    suite_add_tcase(s, r);
    return s;
}

int main(void) {
    return th_run(suite());
}
