/* test_train_selfplay.c — the self-play scheduler: every evaluation submitted is answered and
 * finished exactly once (a counting evaluator), also when stopped with requests in flight; the
 * games it produces are well-formed training samples (legal visits, z from each position's
 * mover's view, jump chains keeping the mover); and the trainer's step on them; the value target
 * blended with the root value; teacher mode (UCT plays, no network); passing one-move nodes; the
 * quiet-leaf evaluator over the network (--quiet-leaves); the live network's cache of answers
 * keeping each weights' answers apart; edge windows widened through requests. */
#include "mcts/eval_cache.h"
#include "mcts/eval_net.h"
#include "mcts/puct.h"
#include "nn/omp_env.h"
#include "train/live_eval.h"
#include "train/selfplay.h"
#include "train/trainer.h"
#include "helpers.h"
#include "mcts/forcing.h"
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

typedef struct count_ctx count_ctx;
struct count_ctx {
    long long items, calls;
    uint64_t rng;
    long long one_move;        /* items whose position has a single legal move */
    _Atomic int busy, overlaps;        /* entered by two threads at once: counted */
    count_ctx *copies[4];      /* clones (for evaluator threads), freed by their owner */
    mcts_evaluator *copy_evs[4];
    int ncopies;
};

/* Uniform priors, a small random value, and a count of everything evaluated. */
static int count_eval(mcts_evaluator *self, mcts_eval_item *items, int n, char *err, size_t errlen) {
    count_ctx *c = self->ctx;
    if (atomic_exchange(&c->busy, 1)) atomic_fetch_add(&c->overlaps, 1);
    c->calls++;
    for (int i = 0; i < n; i++) {
        ck_assert_int_ge(items[i].nmoves, 1);
        c->one_move += items[i].nmoves == 1;
        for (int k = 0; k < items[i].nmoves; k++) items[i].priors[k] = 1.0f / (float)items[i].nmoves;
        items[i].value = (float)((int)zz_rand_below(&c->rng, 201) - 100) / 400.0f;
        c->items++;
    }
    atomic_store(&c->busy, 0);
    return 0;
}

static void count_destroy(mcts_evaluator *self) { free(self); }

/* A copy counting on its own (listed in the original's copies; its ctx lives in the test). */
static mcts_evaluator *count_clone(mcts_evaluator *self, char *err, size_t errlen) {
    count_ctx *c = self->ctx;
    ck_assert_int_lt(c->ncopies, 4);
    count_ctx *k = c->copies[c->ncopies] = calloc(1, sizeof *k);
    mcts_evaluator *e = calloc(1, sizeof *e);
    ck_assert(k && e);
    k->rng = c->rng + 1 + (uint64_t)c->ncopies;
    *e = (mcts_evaluator){ "count copy", self->max_batch, count_eval, count_destroy, k, count_clone };
    c->copy_evs[c->ncopies++] = e;
    return e;
}

/* The original's and its copies' items, calls; overlaps anywhere. */
static void count_totals(const count_ctx *c, long long *items, long long *calls, int *overlaps) {
    *items = c->items, *calls = c->calls, *overlaps = atomic_load(&((count_ctx *)c)->overlaps);
    for (int i = 0; i < c->ncopies; i++) {
        *items += c->copies[i]->items;
        *calls += c->copies[i]->calls;
        *overlaps += atomic_load(&c->copies[i]->overlaps);
    }
}

static void count_free_copies(count_ctx *c) {
    for (int i = 0; i < c->ncopies; i++) free(c->copies[i]);
    c->ncopies = 0;
}

static void sleep_ms(int ms) {
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static tr_selfplay_config small_config(void) {
    tr_selfplay_config c;
    tr_selfplay_config_default(&c);
    c.games_in_flight = 12;
    c.threads = 2;
    c.slots = 3;
    c.max_batch = 16;
    c.sims_full = 12;
    c.sims_fast = 4;
    c.full_prob = 0.5;
    c.ply_cap = 80;
    c.q_target = 0;          /* check_game wants the pure game result; the blend has its own tests */
    c.resign_value = 0;
    c.max_nodes = 1u << 12;
    c.max_edges = 1u << 18;
    c.seed = 5;
    return c;
}

/* A scheduler over ev with config c, started. */
static tr_selfplay *start_selfplay(const tr_selfplay_config *c, mcts_evaluator *ev) {
    char err[256];
    tr_selfplay *sp = tr_selfplay_new(c, ev, err, sizeof err);
    ck_assert_msg(sp != NULL, "%s", err);
    ck_assert_msg(tr_selfplay_start(sp, err, sizeof err) == 0, "%s", err);
    return sp;
}

/* Takes the finished games of sp, every 5 ms, until at least `want` are taken (or ~30 s),
 * handing each to look(g, ctx) before freeing it; returns how many were taken. */
typedef void game_look(const tr_game *g, void *ctx);
static long long poll_games(tr_selfplay *sp, int want, game_look *look, void *ctx) {
    long long games = 0;
    for (int t = 0; t < 6000 && games < want; t++) {
        sleep_ms(5);
        for (tr_game *g = tr_selfplay_take(sp), *n; g; g = n) {
            n = g->next;
            look(g, ctx);
            games++;
            tr_game_free(g);
        }
    }
    return games;
}

static void check_game(const tr_game *g) {
    ck_assert(g->winner >= -1 && g->winner <= 1);
    for (int i = 0; i < g->nsamples; i++) {
        const tr_sample *s = &g->samples[i];
        ck_assert(!zz_over(&s->pos));
        ck_assert_int_ge(s->nvisits, 1);
        for (int k = 0; k < s->nvisits; k++) {
            ck_assert(zz_is_legal(&s->pos, s->visits[k].move));
            ck_assert_uint_gt(s->visits[k].count, 0);
        }
        float want = g->winner < 0 ? 0.0f : (g->winner == s->pos.to_move ? 1.0f : -1.0f);
        ck_assert(s->z == want);
        /* inside a jump chain the mover does not change, and neither does z */
        if (i + 1 < g->nsamples && g->samples[i + 1].pos.chain != ZZ_NO_CELL && g->samples[i + 1].pos.ply == s->pos.ply + 1)
            ck_assert(g->samples[i + 1].z == s->z);
    }
}

typedef struct { long long samples, full; } sample_counts;
static void look_counting(const tr_game *g, void *ctx) {
    sample_counts *sc = ctx;
    check_game(g);
    sc->samples += g->nsamples;
    for (int i = 0; i < g->nsamples; i++) sc->full += g->samples[i].full;
}

static void look_nothing(const tr_game *g, void *ctx) { (void)g, (void)ctx; }

/* Expanded nodes of t left without edges (the edge arena was full when they were expanded). */
static long nodes_without_edges(const mcts_tree *t) {
    long n = 0;
    const mcts_arena *a = &t->nodes[t->cur];
    for (uint32_t i = 1; i < mcts_arena_used(a); i++) {
        const mcts_node *k = mcts_arena_at(a, i);            /* child blocks share the arena: */
        if (atomic_load(&((mcts_node *)k)->state) == MCTS_EXPANDED && k->nmoves > 0 && k->nmoves <= ZZ_MAX_MOVES &&
            k->nedges == 0 && k->player <= 1 && atomic_load(&((mcts_node *)k)->blocks) == 0)
            n++;                                             /* (a block never looks like this) */
    }
    return n;
}

/* Self-play's trees hold as many edges as its searches need: the cap by games in flight, and an
 * 800-simulation search from the 61-ring opening (about 4,000 legal moves a node) with the shipped
 * network, which left nodes without edges under the old cap of 2^21 and leaves none under the
 * cap for 64 games. */
START_TEST(selfplay_trees_hold_their_searches) {
    ck_assert_uint_eq(tr_selfplay_edge_cap(0), 1u << 23);
    ck_assert_uint_eq(tr_selfplay_edge_cap(64), 1u << 23);
    ck_assert_uint_eq(tr_selfplay_edge_cap(256), 1u << 22);
    ck_assert_uint_eq(tr_selfplay_edge_cap(512), 1u << 21);
    ck_assert_uint_eq(tr_selfplay_edge_cap(4096), 1u << 21);
    tr_selfplay_config d;
    tr_selfplay_config_default(&d);
    ck_assert_uint_eq(d.max_edges, 0);                       /* the cap by games, unless set */
    char err[256];
    mcts_evaluator *ev = mcts_eval_nn_new("weights/zertz61.ckpt", err, sizeof err);
    ck_assert_msg(ev, "%s", err);
    long dead[2];
    for (int k = 0; k < 2; k++) {
        mcts_puct_config c;
        mcts_puct_config_default(&c);
        c.max_nodes = d.max_nodes;
        c.max_edges = k ? tr_selfplay_edge_cap(64) : 1u << 21;
        c.edge_window = 0;                                   /* as self-play with --edge-window 0 */
        mcts_puct *s = mcts_puct_new(&c, ev, err, sizeof err);
        ck_assert_msg(s, "%s", err);
        zz_pos p;
        zz_pos_init(&p, ZZ_B61);
        mcts_puct_set_root(s, &p);
        mcts_search_stats st;
        ck_assert_msg(mcts_puct_search(s, 800, 0, false, &st, err, sizeof err) == 0, "%s", err);
        dead[k] = nodes_without_edges(mcts_puct_tree(s));
        mcts_puct_free(s);
    }
    ck_assert_msg(dead[0] > 0, "the old cap no longer runs out: the check proves nothing (%ld)", dead[0]);
    ck_assert_int_eq(dead[1], 0);
    mcts_evaluator_free(ev);
}
END_TEST

/* Self-play with edge windows (a window of one edge, so that nodes widen often): the widenings
 * go through the evaluator threads as requests of their own, each answered and finished once
 * (counted with the leaves); reused roots widen before their noise; the games are sound. */
START_TEST(edge_windows_widen_through_requests) {
    count_ctx cc = { .rng = 23 };
    mcts_evaluator ev = { "count", 16, count_eval, NULL, &cc, NULL };
    tr_selfplay_config c = small_config();
    c.edge_window = 1;
    c.sims_full = 40;
    c.sims_fast = 10;
    tr_selfplay *sp = start_selfplay(&c, &ev);
    sample_counts sc = { 0, 0 };
    long long games = poll_games(sp, 8, look_counting, &sc);
    ck_assert_int_ge(games, 8);
    tr_selfplay_stop(sp);
    tr_selfplay_stats st;
    tr_selfplay_stats_get(sp, &st);
    ck_assert_ptr_null(tr_selfplay_error(sp));
    ck_assert_int_gt(st.widenings, 0);
    ck_assert_int_lt(st.widenings, st.submitted);
    ck_assert_int_eq(st.submitted, st.finished);
    ck_assert_int_eq(st.submitted, cc.items);             /* a widening is evaluated like a leaf */
    ck_assert_int_eq(st.abandoned, 0);
    tr_selfplay_free(sp);
    c.edge_window = ZZ_MAX_MOVES + 1;
    char err[256];
    ck_assert_ptr_null(tr_selfplay_new(&c, &ev, err, sizeof err));
    ck_assert_msg(strstr(err, "edge_window") != NULL, "%s", err);
}
END_TEST

START_TEST(every_request_answered_once) {
    for (int evt = 1; evt <= 2; evt++) {                 /* one evaluator thread, then two */
    count_ctx cc = { .rng = 99 };
    mcts_evaluator ev = { "count", 16, count_eval, NULL, &cc, count_clone };
    tr_selfplay_config c = small_config();
    c.eval_threads = evt;
    tr_selfplay *sp = start_selfplay(&c, &ev);
    ck_assert_int_eq(cc.ncopies, evt - 1);                /* a copy per further thread */
    sample_counts sc = { 0, 0 };
    long long games = poll_games(sp, 16, look_counting, &sc), samples = sc.samples, full = sc.full;
    ck_assert_int_ge(games, 16);
    tr_selfplay_stop(sp);                /* with requests in flight: they must all be answered */
    tr_selfplay_stats st;
    tr_selfplay_stats_get(sp, &st);
    ck_assert_ptr_null(tr_selfplay_error(sp));
    ck_assert_int_gt(st.submitted, 0);
    ck_assert_int_eq(st.abandoned, 0);
    long long items, calls;
    int overlaps;
    count_totals(&cc, &items, &calls, &overlaps);
    ck_assert_int_eq(st.submitted, st.finished);          /* each answered request finished once */
    ck_assert_int_eq(st.submitted, items);                /* and evaluated once */
    ck_assert_int_eq(st.evals, items);
    ck_assert_int_eq(st.batches, calls);
    ck_assert_int_eq(overlaps, 0);                        /* each copy on one thread */
    if (evt == 2) ck_assert(cc.items > 0 && cc.copies[0]->items > 0);   /* both threads served */
    ck_assert_int_ge(st.games, games);
    ck_assert(full > 0 && full < samples);                 /* both kinds of search happen */
    tr_game *g = tr_selfplay_take(sp);
    while (g) { tr_game *n = g->next; check_game(g); tr_game_free(g); g = n; }
    tr_selfplay_free(sp);
    count_free_copies(&cc);
  }
}
END_TEST

/* --quiet-leaves reaches the searches: tr_search_evaluator wraps the network only when asked
 * (and the rollout blend under the quiet leaves when both are); self-play through it, on two
 * evaluator threads, plays well-formed games, and the network is asked about more positions than
 * the scheduler submitted (the quiet positions after the exchanges), never fewer. */
START_TEST(quiet_leaves_reach_the_search) {
    count_ctx cc = { .rng = 5 };
    mcts_evaluator ev = { "count", 16, count_eval, NULL, &cc, count_clone };
    mcts_evaluator *w = &ev;
    char err[256];
    ck_assert_int_eq(tr_search_evaluator(&ev, 0, 0, 1, &w, err, sizeof err), 0);
    ck_assert_ptr_null(w);
    ck_assert_int_eq(tr_search_evaluator(&ev, 0.5, 32, 1, &w, err, sizeof err), 0);
    ck_assert_msg(w && strstr(w->name, "quiet(32)") && strstr(w->name, "rollout"), "%s", w ? w->name : "NULL");
    mcts_evaluator_free(w);
    ck_assert_int_eq(tr_search_evaluator(&ev, 0, 32, 1, &w, err, sizeof err), 0);
    ck_assert_msg(w && strstr(w->name, "quiet(32)"), "%s", w ? w->name : "NULL");
    tr_selfplay_config c = small_config();
    c.eval_threads = 2;
    c.quiet_nodes = 32;
    tr_selfplay *sp = start_selfplay(&c, w);
    sample_counts sc = { 0, 0 };
    ck_assert_int_ge(poll_games(sp, 16, look_counting, &sc), 16);
    tr_selfplay_stop(sp);
    ck_assert_ptr_null(tr_selfplay_error(sp));
    tr_selfplay_stats st;
    tr_selfplay_stats_get(sp, &st);
    long long items, calls;
    int overlaps;
    count_totals(&cc, &items, &calls, &overlaps);
    ck_assert_int_gt(st.submitted, 0);
    ck_assert_int_gt(items, st.submitted);
    ck_assert_int_eq(overlaps, 0);
    tr_selfplay_free(sp);
    mcts_evaluator_free(w);
    count_free_copies(&cc);
}
END_TEST

/* --tactic-prior and --tactic-run reach the searches: a prior floor or a run out of range is
 * refused by the searchers' own check (so the value got there), and self-play with the floor on
 * (an alpha-beta quiescence per search thread), and with runs at the roots, plays well-formed
 * games. */
START_TEST(tactic_prior_reaches_the_search) {
    count_ctx cc = { .rng = 7 };
    mcts_evaluator ev = { "count", 16, count_eval, NULL, &cc, count_clone };
    tr_selfplay_config c = small_config();
    char err[256] = "";
    c.tactic_prior = 1.5;
    ck_assert_ptr_null(tr_selfplay_new(&c, &ev, err, sizeof err));
    ck_assert_msg(strstr(err, "tactic_prior") != NULL, "%s", err);
    c.tactic_prior = 0.05;
    c.tactic_run = MCTS_FORCING_MAX_K + 1;
    ck_assert_ptr_null(tr_selfplay_new(&c, &ev, err, sizeof err));
    ck_assert_msg(strstr(err, "tactic_run") != NULL, "%s", err);
    for (int run = 0; run <= 2; run += 2) {          /* the exchange alone; runs of two at the roots */
        c.tactic_run = run;
        tr_selfplay *sp = start_selfplay(&c, &ev);
        sample_counts sc = { 0, 0 };
        ck_assert_int_ge(poll_games(sp, 16, look_counting, &sc), 16);
        tr_selfplay_stop(sp);
        ck_assert_ptr_null(tr_selfplay_error(sp));
        tr_selfplay_free(sp);
    }
    count_free_copies(&cc);
}
END_TEST

/* A tiny 37-ring network (1 block × 8 channels) for the live network's tests, its weights drawn
 * from seed and moved off their initial values with *rng; the live network on the CPU. */
static nn_model *tiny_live_model(uint64_t seed, uint64_t *rng) {
    setenv("ZZ_BACKEND", "cpu", 1);
    char err[256];
    nn_config nc;
    nn_config_default(&nc, ZZ_B37);
    nc.blocks = 1, nc.channels = 8, nc.policy_channels = 4, nc.value_channels = 2, nc.value_hidden = 8;
    nn_model *m = nn_model_create(&nc, NN_F32, seed, err, sizeof err);
    ck_assert_msg(m, "%s", err);
    th_perturb_model(m, rng);
    return m;
}

/* Training's live network copied for a second evaluator thread (a lane): the same answers; a
 * publish reaches every lane, and counts as staged only once every lane has taken the previous
 * weights; the counts add up, also after a lane is freed; lanes and the first free in any order. */
START_TEST(live_network_lanes) {
    char err[256];
    uint64_t rng = 11;
    nn_model *m = tiny_live_model(3, &rng);
    mcts_evaluator *first = tr_live_eval_new(m, 0, err, sizeof err);
    ck_assert_msg(first, "%s", err);
    mcts_evaluator *lane = mcts_evaluator_clone(first, err, sizeof err);
    ck_assert_msg(lane, "%s", err);
    mcts_evaluator *lane2 = mcts_evaluator_clone(lane, err, sizeof err);       /* joins the first */
    ck_assert_msg(lane2, "%s", err);
    ck_assert(th_same_answers(first, lane, ZZ_B37, 8, 7));
    mcts_evaluator *before = tr_live_eval_new(m, 0, err, sizeof err);
    th_perturb_model(m, &rng);                                                 /* the trainer moves on */
    ck_assert_int_eq(tr_live_eval_open(first), 3);
    ck_assert_int_eq(tr_live_eval_publish(first, m, err, sizeof err), 1);
    ck_assert_int_eq(tr_live_eval_open(first), 0);                             /* all three hold an offer */
    ck_assert_int_eq(tr_live_eval_publish(first, m, err, sizeof err), 0);      /* not taken yet */
    ck_assert(!th_same_answers(first, before, ZZ_B37, 8, 7));                                        /* first takes them */
    ck_assert_int_eq(tr_live_eval_open(first), 1);
    ck_assert_int_eq(tr_live_eval_publish(first, m, err, sizeof err), 0);      /* the lanes have not */
    ck_assert_int_eq(tr_live_eval_open(first), 0);                             /* first holds the new offer */
    ck_assert(th_same_answers(lane, first, ZZ_B37, 8, 7));
    ck_assert(th_same_answers(lane2, first, ZZ_B37, 8, 7));
    ck_assert_int_eq(tr_live_eval_open(first), 3);                             /* each has taken its offer */
    ck_assert_int_eq(tr_live_eval_publish(first, m, err, sizeof err), 1);
    long long count = tr_live_eval_count(first), calls = tr_live_eval_calls(first);
    ck_assert_int_gt(count, 0);
    mcts_evaluator_free(lane);                                                 /* its counts stay */
    ck_assert_int_eq(tr_live_eval_count(first), count);
    ck_assert_int_eq(tr_live_eval_calls(first), calls);
    ck_assert_int_eq(tr_live_eval_publish(first, m, err, sizeof err), 0);      /* staged, not taken yet */
    mcts_evaluator_free(first);                                                /* before its lane */
    ck_assert(th_same_answers(lane2, lane2, ZZ_B37, 8, 7));                                          /* still works alone */
    mcts_evaluator_free(lane2);
    mcts_evaluator_free(before);
    nn_model_free(m);
}
END_TEST

/* The live network's cache of answers (tr_live_eval_set_cache): the first evaluator and its lane
 * share one table, yet each answers exactly as a fresh network on the weights it runs, also when
 * the table holds the same positions under older weights and while the two run different weights
 * (the lane one publish behind).  Without the version tags the first evaluator would read the old
 * weights' answers after a publish. */
START_TEST(live_network_cache_follows_the_weights) {
    char err[256];
    uint64_t rng = 23;
    nn_model *m = tiny_live_model(5, &rng);
    mcts_evaluator *first = tr_live_eval_new(m, 0, err, sizeof err);
    ck_assert_msg(first, "%s", err);
    ck_assert_uint_eq(tr_live_eval_cache_stats(first).lookups, 0);              /* none by default */
    ck_assert_int_ne(tr_live_eval_set_cache(first, (size_t)MCTS_EVAL_CACHE_MAX + 1, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "at most"), "%s", err);
    ck_assert_int_eq(tr_live_eval_set_cache(first, 512, err, sizeof err), 0);
    mcts_evaluator *lane = mcts_evaluator_clone(first, err, sizeof err);
    ck_assert_msg(lane, "%s", err);
    ck_assert_int_ne(tr_live_eval_set_cache(first, 64, err, sizeof err), 0);    /* copies made: refused */
    mcts_evaluator *w0 = tr_live_eval_new(m, 0, err, sizeof err);               /* no cache: the truth */
    for (int round = 0; round < 2; round++) {
        ck_assert(th_same_answers(first, w0, ZZ_B37, 12, 3));
        ck_assert(th_same_answers(lane, w0, ZZ_B37, 12, 3));
    }
    mcts_eval_cache_stats st = tr_live_eval_cache_stats(first);
    ck_assert_uint_eq(st.lookups, 48);
    ck_assert_uint_ge(st.hits, 27);          /* all but the first evaluator's first round (slots may clash) */
    th_perturb_model(m, &rng);                                                  /* version 1 */
    mcts_evaluator *w1 = tr_live_eval_new(m, 0, err, sizeof err);
    ck_assert_int_eq(tr_live_eval_publish(first, m, err, sizeof err), 1);
    ck_assert(!th_same_answers(w0, w1, ZZ_B37, 12, 3));                         /* the weights did move */
    ck_assert(th_same_answers(first, w1, ZZ_B37, 12, 3));                       /* not the cached w0 answers */
    th_perturb_model(m, &rng);                                                  /* version 2: the lane busy */
    mcts_evaluator *w2 = tr_live_eval_new(m, 0, err, sizeof err);
    ck_assert_int_eq(tr_live_eval_publish(first, m, err, sizeof err), 0);
    /* a position has one slot: the two versions' answers take it from each other, never mixed */
    for (int round = 0; round < 2; round++) ck_assert(th_same_answers(lane, w1, ZZ_B37, 12, 3));
    ck_assert_uint_ge(tr_live_eval_cache_stats(lane).hits, st.hits + 9);       /* the lane's second round */
    for (int round = 0; round < 2; round++) ck_assert(th_same_answers(first, w2, ZZ_B37, 12, 3));
    ck_assert_uint_ge(tr_live_eval_cache_stats(lane).hits, st.hits + 18);      /* and the first's */
    for (int round = 0; round < 2; round++) {
        ck_assert(th_same_answers(first, w2, ZZ_B37, 12, 3));
        ck_assert(th_same_answers(lane, w1, ZZ_B37, 12, 3));
    }
    mcts_evaluator_free(first);                                                 /* the lane keeps the table */
    ck_assert(th_same_answers(lane, w1, ZZ_B37, 12, 3));
    mcts_evaluator_free(lane);
    mcts_evaluator_free(w0), mcts_evaluator_free(w1), mcts_evaluator_free(w2);
    nn_model_free(m);
}
END_TEST

/* A second evaluator thread needs an evaluator that can be copied: refused clearly otherwise. */
START_TEST(eval_threads_need_a_copyable_evaluator) {
    count_ctx cc = { .rng = 1 };
    mcts_evaluator ev = { "count", 16, count_eval, NULL, &cc, NULL };
    tr_selfplay_config c = small_config();
    c.eval_threads = 2;
    char err[256] = "";
    ck_assert_ptr_null(tr_selfplay_new(&c, &ev, err, sizeof err));
    ck_assert_msg(strstr(err, "cannot be copied"), "%s", err);
    c.eval_threads = 0;
    ck_assert_ptr_null(tr_selfplay_new(&c, &ev, err, sizeof err));
    ck_assert_msg(strstr(err, "evaluator threads"), "%s", err);
}
END_TEST

/* --pass-forced reaches the search: self-play plays a one-move root unsearched, and with
 * pass_forced a one-move node below the root is passed, so no one-move position is ever
 * evaluated; without it, such nodes are evaluated. */
static long long one_move_evals(int pass_forced) {
    count_ctx cc = { .rng = 7 };
    mcts_evaluator ev = { "count", 16, count_eval, NULL, &cc, NULL };
    tr_selfplay_config c = small_config();
    c.pass_forced = pass_forced;
    tr_selfplay *sp = start_selfplay(&c, &ev);
    ck_assert_int_ge(poll_games(sp, 12, look_nothing, NULL), 12);
    tr_selfplay_stop(sp);
    ck_assert_ptr_null(tr_selfplay_error(sp));
    ck_assert_int_gt(cc.items, 0);
    tr_selfplay_free(sp);
    return cc.one_move;
}

START_TEST(pass_forced_reaches_the_search) {
    ck_assert_int_eq(one_move_evals(1), 0);
    ck_assert_int_gt(one_move_evals(0), 0);
}
END_TEST

/* Stopping at once, and holding: nothing is lost or answered twice. */
START_TEST(stop_early_and_hold) {
    count_ctx cc = { .rng = 7 };
    mcts_evaluator ev = { "count", 16, count_eval, NULL, &cc, NULL };
    tr_selfplay_config c = small_config();
    c.threads = 3;
    c.sims_full = c.sims_fast = 40;
    tr_selfplay *sp = start_selfplay(&c, &ev);
    sleep_ms(30);
    tr_selfplay_hold(sp, 1);
    sleep_ms(60);
    tr_selfplay_hold(sp, 0);
    tr_selfplay_stats st;
    for (int t = 0; t < 2000; t++) {                 /* until something was asked (a busy machine is slower) */
        sleep_ms(5);
        tr_selfplay_stats_get(sp, &st);
        if (st.submitted > 0) break;
    }
    tr_selfplay_stop(sp);
    tr_selfplay_stats_get(sp, &st);
    ck_assert_int_gt(st.submitted, 0);
    ck_assert_int_eq(st.submitted, st.finished);
    ck_assert_int_eq(st.submitted, cc.items);
    tr_selfplay_free(sp);
}
END_TEST

/* The trainer's step on self-play samples: finite losses, the policy only over full samples; the
 * captures head's loss when asked for, refused for a network without the head. */
START_TEST(trainer_step_on_selfplay) {
    count_ctx cc = { .rng = 3 };
    mcts_evaluator ev = { "count", 16, count_eval, NULL, &cc, NULL };
    tr_selfplay_config c = small_config();
    char err[256];
    tr_selfplay *sp = start_selfplay(&c, &ev);
    tr_replay r;
    char dir[128];
    snprintf(dir, sizeof dir, "/tmp/zz-train-sp-%d", (int)getpid());
    ck_assert_int_eq(tr_replay_open(&r, dir, ZZ_B37, 5000, err, sizeof err), 0);
    for (int t = 0; t < 6000 && r.count < 200; t++) {
        sleep_ms(5);
        tr_game *g = tr_selfplay_take(sp);
        while (g) {
            tr_game *n = g->next;
            ck_assert_int_eq(tr_replay_add(&r, g->samples, g->nsamples, err, sizeof err), 0);
            tr_game_free(g);
            g = n;
        }
    }
    tr_selfplay_free(sp);
    ck_assert_int_ge(r.count, 200);
    nn_config nc;
    nn_config_default(&nc, ZZ_B37);
    nc.blocks = 1;
    nc.channels = 8;
    nn_model *m = nn_model_create(&nc, NN_F32, 1, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    nn_sgd sgd;
    nn_sgd_default(&sgd);
    sgd.warmup = 0;
    tr_trainer tr;
    ck_assert_int_eq(tr_trainer_init(&tr, m, &sgd, 32, 1.0, 0.0, 9, err, sizeof err), 0);
    for (int i = 0; i < 30; i++) {
        nn_loss_parts lp;
        int nf = -1;
        ck_assert_msg(tr_trainer_step(&tr, &r, &lp, &nf, err, sizeof err) == 0, "%s", err);
        ck_assert(nf >= 0 && nf <= 32);
        ck_assert(isfinite(lp.policy) && isfinite(lp.value) && lp.value >= 0);
        if (nf == 0) ck_assert(lp.policy == 0);
    }
    ck_assert_int_eq(tr.sgd.step, 30);
    tr_trainer_free(&tr);
    /* with the captures head: its loss on the games' final captures, the other losses as before */
    nn_model *plain = nn_model_create(&nc, NN_F32, 1, err, sizeof err);
    ck_assert(plain);
    ck_assert_int_eq(tr_trainer_init(&tr, plain, &sgd, 32, 1.0, 0.5, 9, err, sizeof err), -1);   /* no head: refused */
    ck_assert_msg(strstr(err, "without the head"), "%s", err);
    nc.aux_outputs = NN_AUX;
    ck_assert((m = nn_model_create(&nc, NN_F32, 1, err, sizeof err)));
    ck_assert_int_eq(tr_trainer_init(&tr, m, &sgd, 32, 1.0, 0.5, 9, err, sizeof err), 0);
    for (int i = 0; i < 5; i++) {
        nn_loss_parts lp;
        ck_assert_msg(tr_trainer_step(&tr, &r, &lp, NULL, err, sizeof err) == 0, "%s", err);
        ck_assert(isfinite(lp.aux) && lp.aux > 0 && lp.aux < 1);
        ck_assert(fabs(lp.total - (lp.policy + lp.value + 0.5 * lp.aux + lp.l2)) < 1e-9);
    }
    tr_trainer_free(&tr);
    tr_replay_close(&r, err, sizeof err);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* Games of a config until at least `want` are finished (or ~30 s), checked by check_blend. */
static long long take_games(tr_selfplay *sp, int want, double q_target, int want_full);

/* The captures head's targets: known unless the game was resigned; the same final captures in
 * every sample of the game once turned from its mover's side to the players'; valid targets; and,
 * while the pool never ran dry (no placing of one's own captured marbles), at least what each
 * player had captured at every sample. */
static void check_final_captures(const tr_game *g) {
    const tr_sample *last = &g->samples[g->nsamples - 1];
    int pool_left = last->pos.pool[0] + last->pos.pool[1] + last->pos.pool[2];
    int fin[2][3];
    for (int i = 0; i < g->nsamples; i++) {
        const tr_sample *s = &g->samples[i];
        ck_assert_int_eq(s->fin.known, !g->resigned);
        if (!s->fin.known) continue;
        float t[NN_AUX];
        ck_assert(nn_aux_target(&s->pos, &s->fin, t) == 0);
        int me = s->pos.to_move;
        for (int c = 0; c < 3; c++) {
            if (i == 0) { fin[me][c] = s->fin.cap[0][c]; fin[1 - me][c] = s->fin.cap[1][c]; }
            ck_assert_int_eq(s->fin.cap[0][c], fin[me][c]);
            ck_assert_int_eq(s->fin.cap[1][c], fin[1 - me][c]);
            if (pool_left > 0)
                for (int p = 0; p < 2; p++) ck_assert_int_ge(fin[p][c], s->pos.cap[p][c]);
        }
    }
}

/* z = (1 - a) * result + a * q, with q the root value in [-1, 1] (and inside a jump chain the
 * result's side does not change). */
static void check_blend(const tr_game *g, double a, int want_full) {
    ck_assert(g->winner >= -1 && g->winner <= 1);
    ck_assert_int_gt(g->nsamples, 0);
    for (int i = 0; i < g->nsamples; i++) {
        const tr_sample *s = &g->samples[i];
        ck_assert(!zz_over(&s->pos));
        ck_assert_int_ge(s->nvisits, 1);
        for (int k = 0; k < s->nvisits; k++) ck_assert(zz_is_legal(&s->pos, s->visits[k].move));
        if (want_full) ck_assert_int_eq(s->full, 1);
        ck_assert(s->q >= -1 && s->q <= 1);
        double result = g->winner < 0 ? 0.0 : (g->winner == s->pos.to_move ? 1.0 : -1.0);
        ck_assert_msg(fabs(s->z - ((1 - a) * result + a * s->q)) < 1e-6, "z %f, result %f, q %f", s->z, result, s->q);
    }
    check_final_captures(g);
}

typedef struct { double q_target; int want_full; } blend_want;
static void look_blend(const tr_game *g, void *ctx) {
    const blend_want *w = ctx;
    check_blend(g, w->q_target, w->want_full);
}

static long long take_games(tr_selfplay *sp, int want, double q_target, int want_full) {
    blend_want w = { q_target, want_full };
    return poll_games(sp, want, look_blend, &w);
}

/* The value target blended with the root's search value: (1 - a) z + a q, exactly. */
START_TEST(value_target_blends_search_value) {
    count_ctx cc = { .rng = 11 };
    mcts_evaluator ev = { "count", 16, count_eval, NULL, &cc, NULL };
    tr_selfplay_config c = small_config();
    c.q_target = 0.25;
    tr_selfplay *sp = start_selfplay(&c, &ev);
    ck_assert_int_ge(take_games(sp, 6, c.q_target, 0), 6);
    tr_selfplay_free(sp);
}
END_TEST

/* Teacher mode: UCT plays the games, the evaluator is never called, every decision is a policy
 * target (UCT's visits), and the value target blends the result with UCT's root value. */
START_TEST(teacher_mode_plays_uct_games) {
    count_ctx cc = { .rng = 13 };
    mcts_evaluator ev = { "count", 16, count_eval, NULL, &cc, NULL };
    tr_selfplay_config c = small_config();
    c.teacher_iters = 150;
    c.threads = 2;
    c.q_target = 0.5;
    tr_selfplay *sp = start_selfplay(&c, &ev);
    ck_assert_int_ge(take_games(sp, 4, c.q_target, 1), 4);
    tr_selfplay_hold(sp, 1);                   /* held: games in progress end, none starts */
    tr_selfplay_stop(sp);
    tr_selfplay_stats st;
    tr_selfplay_stats_get(sp, &st);
    ck_assert_ptr_null(tr_selfplay_error(sp));
    ck_assert_int_eq(cc.items, 0);
    ck_assert_int_ge(st.games, 4);
    ck_assert_int_eq(st.full_samples, st.samples);
    ck_assert_int_ge(st.submitted, 150 * st.samples);   /* UCT iterations: teacher_iters per decision */
    tr_selfplay_free(sp);
}
END_TEST

/* Alpha-beta opponents (ab_share): with share 1 every game has one, on a side drawn at random (both
 * sides occur); none of its decisions is recorded (every sample's mover is the network's side, and
 * samples are still legal and valued by the result); it plays well (depth 2 against a 12-simulation
 * search on random values: it wins most games); with share 0 no game has one; bad settings are
 * refused. */
typedef struct { int side[2], ab_won; } ab_seen;
static void look_ab(const tr_game *g, void *ctx) {
    ab_seen *seen = ctx;
    check_game(g);
    ck_assert(g->ab_side == 0 || g->ab_side == 1);
    seen->side[g->ab_side]++;
    seen->ab_won += g->winner == g->ab_side;
    for (int i = 0; i < g->nsamples; i++) ck_assert_int_ne(g->samples[i].pos.to_move, g->ab_side);
}

START_TEST(alpha_beta_opponents) {
    count_ctx cc = { .rng = 17 };
    mcts_evaluator ev = { "count", 16, count_eval, NULL, &cc, NULL };
    tr_selfplay_config c = small_config();
    c.ab_share = 1;
    c.ab_depth = 2;
    tr_selfplay *sp = start_selfplay(&c, &ev);
    ab_seen seen = { { 0, 0 }, 0 };
    long long games = poll_games(sp, 24, look_ab, &seen);
    int *side_seen = seen.side, ab_won = seen.ab_won;
    tr_selfplay_stop(sp);
    tr_selfplay_stats st;
    tr_selfplay_stats_get(sp, &st);
    ck_assert_ptr_null(tr_selfplay_error(sp));
    ck_assert_int_ge(games, 24);
    ck_assert_int_eq(st.ab_games, st.games);
    ck_assert_int_le(st.ab_wins + st.ab_draws, st.ab_games);
    ck_assert(side_seen[0] > 0 && side_seen[1] > 0);
    ck_assert_msg(ab_won * 10 >= games * 7, "alpha-beta won only %d of %lld", ab_won, games);
    tr_selfplay_free(sp);

    c.ab_share = 0;
    sp = start_selfplay(&c, &ev);
    ck_assert_int_ge(take_games(sp, 4, c.q_target, 0), 4);
    tr_selfplay_stop(sp);
    tr_selfplay_stats_get(sp, &st);
    ck_assert_int_eq(st.ab_games, 0);
    tr_selfplay_free(sp);

    char err[256];
    c.ab_share = 1.5;
    ck_assert_ptr_null(tr_selfplay_new(&c, &ev, err, sizeof err));
    ck_assert_msg(strstr(err, "alpha-beta share") != NULL, "%s", err);
    c.ab_share = 0.5;
    c.ab_depth = 0;
    ck_assert_ptr_null(tr_selfplay_new(&c, &ev, err, sizeof err));
    c.ab_depth = 2;
    c.teacher_iters = 100;
    ck_assert_ptr_null(tr_selfplay_new(&c, &ev, err, sizeof err));
    ck_assert_msg(strstr(err, "teacher") != NULL, "%s", err);
}
END_TEST

/* Gumbel self-play: every request answered once; the policy targets are the improved policy
 * (counts out of 10,000 over at most 64 legal moves, most probable first). */
/* A Gumbel game's targets: counts out of 10,000, most probable first; counts full searches. */
static void look_gumbel(const tr_game *g, void *ctx) {
    long long *full = ctx;
    check_game(g);
    for (int i = 0; i < g->nsamples; i++) {
        const tr_sample *smp = &g->samples[i];
        *full += smp->full;
        ck_assert_int_le(smp->nvisits, 64);
        long sum = 0;
        for (int k = 0; k < smp->nvisits; k++) {
            sum += smp->visits[k].count;
            if (k) ck_assert_uint_le(smp->visits[k].count, smp->visits[k - 1].count);
        }
        ck_assert_msg(labs(sum - 10000) <= smp->nvisits, "counts sum to %ld", sum);
    }
}

START_TEST(gumbel_selfplay_targets) {
    count_ctx cc = { .rng = 17 };
    mcts_evaluator ev = { "count", 16, count_eval, NULL, &cc, NULL };
    tr_selfplay_config c = small_config();
    c.gumbel_m = 8;
    c.sims_full = 16;
    c.sims_fast = 6;
    tr_selfplay *sp = start_selfplay(&c, &ev);
    long long full = 0;
    long long games = poll_games(sp, 6, look_gumbel, &full);
    ck_assert_int_ge(games, 6);
    ck_assert_int_gt(full, 0);
    tr_selfplay_stop(sp);
    tr_selfplay_stats st;
    tr_selfplay_stats_get(sp, &st);
    ck_assert_ptr_null(tr_selfplay_error(sp));
    ck_assert_int_eq(st.submitted, st.finished);
    ck_assert_int_eq(st.submitted, cc.items);
    tr_selfplay_free(sp);
}
END_TEST

int main(int argc, char **argv) {
    nn_omp_single_thread(argv);   /* our threads fill the cores: OpenMP on one (omp_env.h) */
    Suite *s = suite_create("train_selfplay");
    TCase *tc = tcase_create("scheduler");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, every_request_answered_once);
    tcase_add_test(tc, selfplay_trees_hold_their_searches);
    tcase_add_test(tc, edge_windows_widen_through_requests);
    tcase_add_test(tc, eval_threads_need_a_copyable_evaluator);
    tcase_add_test(tc, live_network_lanes);
    tcase_add_test(tc, live_network_cache_follows_the_weights);
    tcase_add_test(tc, pass_forced_reaches_the_search);
    tcase_add_test(tc, stop_early_and_hold);
    tcase_add_test(tc, trainer_step_on_selfplay);
    tcase_add_test(tc, value_target_blends_search_value);
    tcase_add_test(tc, teacher_mode_plays_uct_games);
    tcase_add_test(tc, gumbel_selfplay_targets);
    tcase_add_test(tc, alpha_beta_opponents);
    tcase_add_test(tc, quiet_leaves_reach_the_search);
    tcase_add_test(tc, tactic_prior_reaches_the_search);
    suite_add_tcase(s, tc);
    return th_run(s);
}
