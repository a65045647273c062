/* selfplay.c — the self-play scheduler (selfplay.h): games in flight, worker threads stepping their
 * trees, one shared queue of leaves and the evaluator thread(s) serving it, each with its own copy
 * of the evaluator. */
#include "train/selfplay.h"
#include "mcts/ab.h"
#include "mcts/batcher.h"
#include "mcts/target_prune.h"
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

void tr_selfplay_config_default(tr_selfplay_config *c) {
    memset(c, 0, sizeof *c);
    c->board = ZZ_B37;
    c->games_in_flight = 64;
    c->threads = 1;
    c->eval_threads = 1;
    c->eval_cache = 65536;     /* ×1.21 self-play positions/s on 37 rings (src/train/README.md) */
    c->edge_window = 32;       /* puct.h's default */
    c->slots = 4;
    c->max_batch = 256;
    c->sims_full = 64;
    c->sims_fast = 16;
    c->full_prob = 0.25;
    c->c_puct = 1.5;
    c->fpu_reduction = 0.2;
    c->noise_eps = 0.25;
    c->noise_alpha_total = 10.0;
    c->temperature = 1.0;
    c->temp_plies = 12;
    c->resign_value = 0.95;
    c->resign_min_ply = 10;
    c->resign_calib = 0.1;
    c->ply_cap = 200;
    c->pass_forced = 1;
    c->q_target = 0.5;         /* the shipped recipe; the value loss analysis in README: results alone are noise */
    c->ab_depth = 2;
    c->max_nodes = 1u << 16;
    c->max_edges = 0;          /* tr_selfplay_edge_cap */
    c->seed = 1;
}

uint32_t tr_selfplay_edge_cap(int games_in_flight) {
    uint64_t per = (1ull << 30) / (uint64_t)(games_in_flight > 0 ? games_in_flight : 1);
    if (per < (1u << 21)) per = 1u << 21;
    if (per > (1u << 23)) per = 1u << 23;
    return (uint32_t)per;
}

void tr_game_free(tr_game *g) {
    if (!g) return;
    for (int i = 0; i < g->nsamples; i++) tr_sample_clear(&g->samples[i]);
    free(g->samples);
    free(g);
}

typedef struct {
    mcts_puct *s;
    mcts_puct_worker *w;
    mcts_request **inflight;        /* [slots] requests submitted and not yet finished */
    int ninflight;
    zz_pos pos;
    int searching, full, noise_pending, gumbel_pending;
    long target, started;
    tr_game *rec;
    uint64_t rng;
} sp_game;

typedef struct {
    tr_selfplay *sp;
    pthread_t th;
    int started;
    int first, stride;              /* its games: first, first + stride, ... */
    zz_move *moves;                 /* scratch for root children */
    int *visits;
    mcts_ab *ab;                    /* the alpha-beta opponent's searcher (ab_share > 0), else NULL */
    /* counters (relaxed atomics, read by tr_selfplay_stats_get) */
    _Atomic long long submitted, finished, abandoned, terminal, collisions, moves_played, widenings;
    _Atomic long long target_visits, pruned_visits;
} __attribute__((aligned(64))) sp_worker;

struct tr_selfplay {
    tr_selfplay_config cfg;
    mcts_evaluator *ev;
    mcts_batcher batcher;           /* evaluator thread 0's, owning the queue every worker submits to */
    int batcher_ok;
    mcts_batcher *more;             /* evaluator threads 1..: the same queue, a copy of ev each */
    mcts_evaluator **copies;
    int nmore;                      /* set up so far */
    sp_game *games;
    int ngames;
    sp_worker *workers;
    pthread_t *eval_th;             /* [eval_threads] */
    int eval_started;               /* evaluator threads running */
    _Atomic int stop, hold, failed;
    _Atomic uint32_t gen;           /* stamped on every sample recorded (tr_selfplay_set_generation) */
    char err[256];
    /* finished games (mutex: once per game, never in the search) */
    pthread_mutex_t mu;
    tr_game *done_head, *done_tail;
    tr_selfplay_stats st;           /* game-level statistics, under mu */
};

static uint64_t mix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return (x ^ (x >> 31)) | 1;
}
static double unit(uint64_t *rng) { return (double)(zz_rand(rng) >> 11) * (1.0 / 9007199254740992.0); }

static void set_error(tr_selfplay *sp, const char *msg) {
    int expect = 0;
    if (atomic_compare_exchange_strong(&sp->failed, &expect, 1)) {
        snprintf(sp->err, sizeof sp->err, "%s", msg);
    }
    atomic_store(&sp->stop, 1);
}

static int game_new(tr_selfplay *sp, sp_game *g) {
    g->rec = calloc(1, sizeof *g->rec);
    if (!g->rec) return -1;
    g->rec->would_resign = -1;
    g->rec->calib = unit(&g->rng) < sp->cfg.resign_calib;
    g->rec->ab_side = sp->cfg.ab_share > 0 && unit(&g->rng) < sp->cfg.ab_share ? (int)(zz_rand(&g->rng) & 1) : -1;
    zz_pos_init(&g->pos, sp->cfg.board);
    g->pos.ply_cap = (uint16_t)(sp->cfg.ply_cap > 0 ? sp->cfg.ply_cap : 0);
    mcts_puct_set_root(g->s, &g->pos);
    g->searching = 0;
    if (!g->w) g->w = mcts_puct_worker_new(g->s, sp->cfg.slots, zz_rand(&g->rng));
    return g->w ? 0 : -1;
}

static int record_add(tr_selfplay *sp, tr_game *rec, const tr_sample *s) {
    if (rec->nsamples == rec->cap) {
        int nc = rec->cap ? 2 * rec->cap : 64;
        tr_sample *ns = realloc(rec->samples, (size_t)nc * sizeof *ns);
        if (!ns) return -1;
        rec->samples = ns;
        rec->cap = nc;
    }
    rec->samples[rec->nsamples] = *s;
    rec->samples[rec->nsamples++].gen = atomic_load_explicit(&sp->gen, memory_order_relaxed);
    return 0;
}

/* A game is over at pos: set its value targets (and, unless it was resigned, its final captures
 * from each sample's mover's side) and hand it to the finished list. */
static void finish_record(tr_selfplay *sp, tr_game *rec, const zz_pos *pos) {
    int winner = pos->winner;
    rec->winner = winner;
    rec->plies = pos->ply;
    for (int i = 0; i < rec->nsamples; i++) {
        tr_sample *s = &rec->samples[i];
        float z = winner < 0 ? 0.0f : (winner == s->pos.to_move ? 1.0f : -1.0f);
        s->z = (float)((1.0 - sp->cfg.q_target) * z + sp->cfg.q_target * s->q);
        int me = s->pos.to_move;
        s->fin.known = !rec->resigned;
        for (int c = 0; c < 3; c++) {
            s->fin.cap[0][c] = pos->cap[me][c];
            s->fin.cap[1][c] = pos->cap[1 - me][c];
        }
    }
    pthread_mutex_lock(&sp->mu);
    tr_selfplay_stats *st = &sp->st;
    st->games++;
    st->samples += rec->nsamples;
    for (int i = 0; i < rec->nsamples; i++) st->full_samples += rec->samples[i].full;
    st->plies_sum += rec->plies;
    if (winner < 0) st->draws++;
    else st->wins[winner]++;
    if (rec->ab_side >= 0) {
        st->ab_games++;
        st->ab_wins += winner == 1 - rec->ab_side;
        st->ab_draws += winner < 0;
    }
    st->resigned += rec->resigned;
    st->calib_games += rec->calib;
    if (rec->calib && rec->would_resign >= 0) {
        st->calib_would_resign++;
        if (winner != 1 - rec->would_resign) st->false_resign++;
    }
    rec->next = NULL;
    if (sp->done_tail) sp->done_tail->next = rec;
    else sp->done_head = rec;
    sp->done_tail = rec;
    pthread_mutex_unlock(&sp->mu);
}

static void finish_game(tr_selfplay *sp, sp_game *g) {
    tr_game *rec = g->rec;
    g->rec = NULL;
    finish_record(sp, rec, &g->pos);
}

/* Record a searched decision at pos from the root of tree t: the visited root children as the
 * policy target, full as searched, the root value for the mover.  Returns that root value. */
static double record_search(tr_selfplay *sp, sp_worker *wk, tr_game *rec, const zz_pos *pos, const mcts_tree *t, int full) {
    const mcts_node *root = mcts_tree_root(t);
    double q = mcts_stats_q(mcts_node_load(root));
    double v = root->player == root->to_move ? q : -q;
    uint64_t pruned = 0;
    int n = sp->cfg.prune_boost && sp->cfg.force_prior > 0
                ? mcts_prune_boosted_target(t, sp->cfg.c_puct, sp->cfg.force_prior, wk->moves, wk->visits, ZZ_MAX_MOVES, &pruned)
                : mcts_tree_root_children(t, wk->moves, wk->visits, NULL, ZZ_MAX_MOVES);
    int nv = 0;
    long long kept = 0;
    for (int i = 0; i < n; i++)
        if (wk->visits[i] > 0) {
            nv++;
            kept += wk->visits[i];
        }
    if (nv == 0) return v;
    atomic_fetch_add_explicit(&wk->target_visits, kept + (long long)pruned, memory_order_relaxed);
    atomic_fetch_add_explicit(&wk->pruned_visits, (long long)pruned, memory_order_relaxed);
    tr_sample smp;
    memset(&smp, 0, sizeof smp);
    smp.pos = *pos;
    smp.full = (uint8_t)full;
    smp.q = (float)v;
    smp.nvisits = (uint16_t)nv;
    smp.visits = malloc((size_t)nv * sizeof *smp.visits);
    if (!smp.visits) { set_error(sp, "out of memory"); return v; }
    int k = 0;
    for (int i = 0; i < n; i++)
        if (wk->visits[i] > 0) { smp.visits[k].move = wk->moves[i]; smp.visits[k].count = (uint32_t)wk->visits[i]; k++; }
    if (record_add(sp, rec, &smp) != 0) { free(smp.visits); set_error(sp, "out of memory"); }
    return v;
}

/* Play m in g (the tree follows); ends the game when it is over. */
static void play(tr_selfplay *sp, sp_worker *wk, sp_game *g, zz_move m) {
    zz_apply(&g->pos, m, NULL);
    mcts_puct_advance(g->s, m);
    atomic_fetch_add_explicit(&wk->moves_played, 1, memory_order_relaxed);
    if (zz_over(&g->pos)) {
        finish_game(sp, g);
        if (!atomic_load_explicit(&sp->stop, memory_order_relaxed) && game_new(sp, g) != 0)
            set_error(sp, "out of memory");
    }
}

static void begin_move(tr_selfplay *sp, sp_worker *wk, sp_game *g) {
    if (zz_count_moves(&g->pos) == 1) {           /* forced: played unsearched, not recorded */
        zz_gen_moves(&g->pos, wk->moves);
        play(sp, wk, g, wk->moves[0]);
        return;
    }
    if (g->rec->ab_side == g->pos.to_move) {      /* the alpha-beta opponent: played, not recorded */
        mcts_ab_result r;
        if (mcts_ab_search(wk->ab, &g->pos, sp->cfg.ab_depth, sp->cfg.ab_ms, &r) != 0) { set_error(sp, "alpha-beta opponent: no move"); return; }
        play(sp, wk, g, r.move);
        return;
    }
    g->full = unit(&g->rng) < sp->cfg.full_prob;
    g->target = g->full ? sp->cfg.sims_full : sp->cfg.sims_fast;
    if (g->target < 1) g->target = 1;
    g->started = 0;
    g->noise_pending = g->full && sp->cfg.noise_eps > 0 && sp->cfg.gumbel_m <= 0;
    g->gumbel_pending = sp->cfg.gumbel_m > 0;
    g->searching = 1;
}

/* Record a Gumbel search: its improved policy (the 64 most probable moves, as counts out of
 * 10,000) is the policy target.  Returns the root value for the mover. */
enum { GUMBEL_TARGET_MOVES = 64 };
static double record_gumbel(tr_selfplay *sp, sp_worker *wk, sp_game *g) {
    const mcts_node *root = mcts_tree_root(mcts_puct_tree(g->s));
    double q = mcts_stats_q(mcts_node_load(root));
    double v = root->player == root->to_move ? q : -q;
    float probs[GUMBEL_TARGET_MOVES];
    int n = mcts_puct_gumbel_policy(g->s, wk->moves, probs, GUMBEL_TARGET_MOVES);
    if (n == 0) return record_search(sp, wk, g->rec, &g->pos, mcts_puct_tree(g->s), g->full);
    tr_sample smp;
    memset(&smp, 0, sizeof smp);
    smp.pos = g->pos;
    smp.full = (uint8_t)g->full;
    smp.q = (float)v;
    smp.visits = malloc((size_t)n * sizeof *smp.visits);
    if (!smp.visits) { set_error(sp, "out of memory"); return v; }
    int k = 0;
    for (int i = 0; i < n; i++) {
        uint32_t c = (uint32_t)lrintf(probs[i] * 10000.0f);
        if (c > 0) { smp.visits[k].move = wk->moves[i]; smp.visits[k].count = c; k++; }
    }
    if (k == 0) { smp.visits[0].move = wk->moves[0]; smp.visits[0].count = 1; k = 1; }
    smp.nvisits = (uint16_t)k;
    if (record_add(sp, g->rec, &smp) != 0) { free(smp.visits); set_error(sp, "out of memory"); }
    return v;
}

/* The search of g is complete: record it, maybe resign, choose and play the move. */
static void end_move(tr_selfplay *sp, sp_worker *wk, sp_game *g) {
    g->searching = 0;
    double v = sp->cfg.gumbel_m > 0 ? record_gumbel(sp, wk, g)
                                   : record_search(sp, wk, g->rec, &g->pos, mcts_puct_tree(g->s), g->full);
    if (atomic_load_explicit(&sp->failed, memory_order_relaxed)) return;
    double rv = sp->cfg.resign_value;
    if (rv > 0 && rv < 1 && g->pos.ply >= sp->cfg.resign_min_ply && v < -rv) {
        if (g->rec->calib) {
            if (g->rec->would_resign < 0) g->rec->would_resign = g->pos.to_move;
        } else {
            g->rec->resigned = 1;
            zz_resign(&g->pos);
            finish_game(sp, g);
            if (!atomic_load_explicit(&sp->stop, memory_order_relaxed) && game_new(sp, g) != 0)
                set_error(sp, "out of memory");
            return;
        }
    }
    double temp = g->pos.ply < sp->cfg.temp_plies ? sp->cfg.temperature : 0.0;
    zz_move m = mcts_puct_pick(g->s, temp);
    play(sp, wk, g, m);
}

/* The batcher of an evaluator thread that failed (its err says why), or NULL. */
static const mcts_batcher *failed_batcher(tr_selfplay *sp) {
    if (atomic_load(&sp->batcher.failed)) return &sp->batcher;
    for (int i = 0; i < sp->nmore; i++)
        if (atomic_load(&sp->more[i].failed)) return &sp->more[i];
    return NULL;
}

/* One pass over game g.  Returns whether anything happened. */
static bool service(tr_selfplay *sp, sp_worker *wk, sp_game *g, bool stopping, bool held) {
    bool progress = false;
    for (int i = 0; i < g->ninflight;) {
        mcts_request *r = g->inflight[i];
        int st = mcts_request_state(r);
        if (st == MCTS_REQ_DONE) {
            mcts_puct_finish(g->w, r);
            atomic_fetch_add_explicit(&wk->finished, 1, memory_order_relaxed);
        } else if (st == MCTS_REQ_FAILED) {
            mcts_puct_abandon(g->w, r);
            atomic_fetch_add_explicit(&wk->abandoned, 1, memory_order_relaxed);
            const mcts_batcher *b = failed_batcher(sp);
            set_error(sp, b ? b->err : "evaluator failed");
        } else { i++; continue; }
        g->inflight[i] = g->inflight[--g->ninflight];
        progress = true;
    }
    if (stopping || !g->rec) return progress;
    if (!g->searching) {
        if (held) return progress;
        begin_move(sp, wk, g);
        progress = true;
        if (!g->searching) return progress;
    }
    const mcts_node *root = mcts_tree_root(mcts_puct_tree(g->s));
    int rs = atomic_load_explicit(&((mcts_node *)root)->state, memory_order_acquire);
    bool ready = mcts_puct_root_ready(g->s);             /* expanded, with every edge */
    bool root_waits = rs != MCTS_TERMINAL && !ready;     /* for its evaluation or its widening */
    if (root_waits && g->ninflight > 0) return progress;
    if (ready && g->ninflight == 0) mcts_puct_root_runs(g->s);   /* once per root; before its noise */
    if (g->noise_pending && ready && g->ninflight == 0) {
        mcts_puct_root_noise(g->s);
        g->noise_pending = 0;
    }
    if (g->gumbel_pending && ready && g->ninflight == 0) {
        mcts_puct_gumbel_root(g->s, g->target > g->started ? (uint64_t)(g->target - g->started) : 1);
        g->gumbel_pending = 0;
    }
    while (g->started < g->target && g->ninflight < sp->cfg.slots) {
        if ((g->noise_pending || g->gumbel_pending) && ready) break;
        mcts_request *req = NULL;
        int rc = mcts_puct_step(g->w, &req);
        if (rc == MCTS_STEP_SUBMIT || rc == MCTS_STEP_WIDEN) {
            while (!mcts_batcher_submit(&sp->batcher, req)) sched_yield();   /* sized: never full */
            g->inflight[g->ninflight++] = req;
            if (rc == MCTS_STEP_SUBMIT) g->started++;      /* a widening is no simulation */
            else atomic_fetch_add_explicit(&wk->widenings, 1, memory_order_relaxed);
            atomic_fetch_add_explicit(&wk->submitted, 1, memory_order_relaxed);
            progress = true;
            if (root_waits) break;                          /* the root itself: wait for it */
        } else if (rc == MCTS_STEP_DONE) {
            g->started++;
            atomic_fetch_add_explicit(&wk->terminal, 1, memory_order_relaxed);
            progress = true;
        } else if (rc == MCTS_STEP_FULL) {
            g->target = g->started;             /* out of tree memory: decide with what we have */
            break;
        } else {
            if (rc == MCTS_STEP_COLLISION) atomic_fetch_add_explicit(&wk->collisions, 1, memory_order_relaxed);
            break;
        }
    }
    if (g->started >= g->target && g->ninflight == 0) {
        end_move(sp, wk, g);
        progress = true;
    }
    return progress;
}

static void *worker_main(void *arg) {
    sp_worker *wk = arg;
    tr_selfplay *sp = wk->sp;
    int idle = 0;
    for (;;) {
        bool stopping = atomic_load_explicit(&sp->stop, memory_order_relaxed);
        bool held = atomic_load_explicit(&sp->hold, memory_order_relaxed);
        bool progress = false;
        int inflight = 0;
        for (int i = wk->first; i < sp->ngames; i += wk->stride) {
            progress |= service(sp, wk, &sp->games[i], stopping, held);
            inflight += sp->games[i].ninflight;
        }
        if (stopping && inflight == 0) break;
        if (progress) idle = 0;
        else if (++idle > 64) {
            struct timespec ts = { 0, idle > 4096 ? 1000000 : 50000 };
            nanosleep(&ts, NULL);
        } else if (idle > 8) sched_yield();
    }
    return NULL;
}

/* Teacher mode (cfg.teacher_iters > 0): the worker plays whole games with UCT and random rollouts
 * (no network): every searched decision is a policy target (UCT's root visits) and its root
 * value feeds the value target.  A cheap, strong teacher while the network is young (ExIt). */
static void *teacher_main(void *arg) {
    sp_worker *wk = arg;
    tr_selfplay *sp = wk->sp;
    uint64_t rng = mix64(sp->cfg.seed * 0x9E3779B97F4A7C15ULL + (uint64_t)wk->first);
    mcts_uct_config uc;
    mcts_uct_config_default(&uc);
    uc.seed = mix64(rng);
    uc.threads = 1;
    uc.root_win_check = 0;                  /* search every decision: each is a target */
    mcts_uct *u = mcts_uct_new(&uc);
    if (!u) { set_error(sp, "out of memory"); return NULL; }
    tr_game *rec = NULL;
    zz_pos pos;
    while (!atomic_load_explicit(&sp->stop, memory_order_relaxed)) {
        if (!rec) {
            if (atomic_load_explicit(&sp->hold, memory_order_relaxed)) {
                struct timespec ts = { 0, 1000000 };
                nanosleep(&ts, NULL);
                continue;
            }
            if (!(rec = calloc(1, sizeof *rec))) { set_error(sp, "out of memory"); break; }
            rec->would_resign = -1;
            zz_pos_init(&pos, sp->cfg.board);
            pos.ply_cap = (uint16_t)(sp->cfg.ply_cap > 0 ? sp->cfg.ply_cap : 0);
            mcts_uct_set_root(u, &pos);
        }
        zz_move m;
        if (zz_count_moves(&pos) == 1) {
            zz_gen_moves(&pos, wk->moves);           /* forced: played unsearched, not recorded */
            m = wk->moves[0];
        } else {
            mcts_search_stats st;
            if (mcts_uct_search(u, (uint64_t)sp->cfg.teacher_iters, 0, &st) != 0) mcts_uct_set_root(u, &pos);
            atomic_fetch_add_explicit(&wk->submitted, (long long)st.iterations, memory_order_relaxed);
            record_search(sp, wk, rec, &pos, mcts_uct_tree(u), 1);
            if (atomic_load_explicit(&sp->failed, memory_order_relaxed)) break;
            int n = mcts_tree_root_children(mcts_uct_tree(u), wk->moves, wk->visits, NULL, ZZ_MAX_MOVES);
            m = n > 0 ? wk->moves[0] : zz_random_move(&pos, &rng);      /* most visited */
            if (n > 0 && pos.ply < sp->cfg.temp_plies && sp->cfg.temperature > 0) {
                double total = 0;                     /* early plies: ∝ visits^(1/T) */
                for (int i = 0; i < n; i++) total += pow(wk->visits[i], 1.0 / sp->cfg.temperature);
                double r = unit(&rng) * total;
                for (int i = 0; i < n; i++) {
                    r -= pow(wk->visits[i], 1.0 / sp->cfg.temperature);
                    if (r <= 0) { m = wk->moves[i]; break; }
                }
            }
        }
        zz_apply(&pos, m, NULL);
        if (!mcts_uct_advance(u, m)) mcts_uct_set_root(u, &pos);
        atomic_fetch_add_explicit(&wk->moves_played, 1, memory_order_relaxed);
        if (zz_over(&pos)) {
            finish_record(sp, rec, &pos);
            rec = NULL;
        }
    }
    tr_game_free(rec);
    mcts_uct_free(u);
    return NULL;
}

static void *eval_main(void *arg) {
    mcts_batcher_run(arg);
    return NULL;
}

/* Evaluator threads 1..eval_threads-1: a copy of ev and a batcher on the shared queue each.
 * 0, or -1 with a message (ev cannot be copied, out of memory). */
static int more_evaluators(tr_selfplay *sp, char *err, size_t errlen) {
    int n = sp->cfg.eval_threads - 1;
    sp->eval_th = calloc((size_t)n + 1, sizeof *sp->eval_th);
    if (n <= 0 || sp->cfg.teacher_iters > 0) return sp->eval_th ? 0 : -1;
    sp->more = calloc((size_t)n, sizeof *sp->more);
    sp->copies = calloc((size_t)n, sizeof *sp->copies);
    if (!sp->eval_th || !sp->more || !sp->copies) { snprintf(err, errlen, "out of memory"); return -1; }
    for (; sp->nmore < n; sp->nmore++) {
        char why[256];
        mcts_evaluator *c = mcts_evaluator_clone(sp->ev, why, sizeof why);
        if (!c) { snprintf(err, errlen, "evaluator thread %d: %s", sp->nmore + 1, why); return -1; }
        if (mcts_batcher_init_shared(&sp->more[sp->nmore], c, sp->cfg.max_batch, &sp->batcher) != 0) {
            mcts_evaluator_free(c);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        sp->copies[sp->nmore] = c;
    }
    return 0;
}

int tr_search_evaluator(mcts_evaluator *ev, double rollout_mix, int quiet_nodes, uint64_t seed,
                        mcts_evaluator **out, char *err, size_t errlen) {
    mcts_evaluator *e = ev;
    *out = NULL;
    if (rollout_mix > 0 && !(e = mcts_eval_mix_new(ev, false, rollout_mix, 1, seed))) goto oom;
    if (quiet_nodes > 0 && !(e = mcts_eval_quiet_new(e, e != ev, quiet_nodes))) goto oom;
    *out = e != ev ? e : NULL;
    return 0;
oom:
    snprintf(err, errlen, "evaluator: out of memory");
    return -1;
}

tr_selfplay *tr_selfplay_new(const tr_selfplay_config *cfg, mcts_evaluator *ev, char *err, size_t errlen) {
    if (cfg->games_in_flight < 1 || cfg->threads < 1 || cfg->eval_threads < 1 || cfg->slots < 1 || cfg->max_batch < 1 ||
        cfg->sims_full < 1 || cfg->sims_fast < 1) {
        snprintf(err, errlen, "bad self-play configuration (games, threads, evaluator threads, slots, batch and "
                 "simulations must be positive)");
        return NULL;
    }
    if (cfg->ab_share < 0 || cfg->ab_share > 1 || cfg->ab_ms < 0 ||
        (cfg->ab_share > 0 && (cfg->ab_depth < 1 || cfg->ab_depth > MCTS_AB_MAX_DEPTH))) {
        snprintf(err, errlen, "bad self-play configuration (the alpha-beta share must be in [0, 1], its depth 1..%d, its time not negative)",
                 MCTS_AB_MAX_DEPTH);
        return NULL;
    }
    if (cfg->ab_share > 0 && cfg->teacher_iters > 0) {
        snprintf(err, errlen, "alpha-beta opponents are for the network's self-play, not teacher mode");
        return NULL;
    }
    tr_selfplay *sp = calloc(1, sizeof *sp);
    if (!sp) { snprintf(err, errlen, "out of memory"); return NULL; }
    sp->cfg = *cfg;
    if (sp->cfg.threads > sp->cfg.games_in_flight) sp->cfg.threads = sp->cfg.games_in_flight;
    sp->ev = ev;
    pthread_mutex_init(&sp->mu, NULL);
    sp->ngames = cfg->games_in_flight;
    size_t qcap = (size_t)sp->ngames * (size_t)cfg->slots + 64;
    if (mcts_batcher_init(&sp->batcher, ev, cfg->max_batch, qcap) != 0) goto oom;
    sp->batcher_ok = 1;
    if (more_evaluators(sp, err, errlen) != 0) {
        if (!sp->eval_th) snprintf(err, errlen, "out of memory");
        tr_selfplay_free(sp);
        return NULL;
    }
    sp->games = calloc((size_t)sp->ngames, sizeof *sp->games);
    sp->workers = aligned_alloc(64, ((size_t)sp->cfg.threads * sizeof *sp->workers + 63) / 64 * 64);
    if (!sp->games || !sp->workers) goto oom;
    memset(sp->workers, 0, (size_t)sp->cfg.threads * sizeof *sp->workers);
    mcts_puct_config pc;
    mcts_puct_config_default(&pc);
    pc.threads = 1;
    pc.batch = 1;
    pc.c_puct = cfg->c_puct;
    pc.fpu_reduction = cfg->fpu_reduction;
    pc.noise = cfg->noise_eps > 0;
    pc.noise_eps = cfg->noise_eps;
    pc.noise_alpha_total = cfg->noise_alpha_total;
    pc.reuse = cfg->gumbel_m > 0 ? 0 : 1;
    pc.gumbel_m = cfg->gumbel_m;
    if (cfg->gumbel_m > 0) pc.noise = 0;
    pc.pass_forced = cfg->pass_forced;
    pc.force_prior = cfg->force_prior;
    pc.tactic_prior = cfg->tactic_prior;
    pc.tactic_run = cfg->tactic_run;
    pc.edge_window = cfg->edge_window;
    pc.max_nodes = cfg->max_nodes;
    pc.max_edges = cfg->max_edges ? cfg->max_edges : tr_selfplay_edge_cap(cfg->games_in_flight);
    for (int i = 0; i < sp->ngames; i++) {
        sp_game *g = &sp->games[i];
        g->rng = mix64(cfg->seed * 0x100000001B3ULL + (uint64_t)i);
        pc.seed = mix64(g->rng);
        if (!(g->s = mcts_puct_new(&pc, ev, err, errlen))) { tr_selfplay_free(sp); return NULL; }
        g->inflight = calloc((size_t)cfg->slots, sizeof *g->inflight);
        if (!g->inflight || game_new(sp, g) != 0) goto oom;
    }
    for (int t = 0; t < sp->cfg.threads; t++) {
        sp_worker *wk = &sp->workers[t];
        wk->sp = sp;
        wk->first = t;
        wk->stride = sp->cfg.threads;
        wk->moves = malloc(ZZ_MAX_MOVES * sizeof *wk->moves);
        wk->visits = malloc(ZZ_MAX_MOVES * sizeof *wk->visits);
        if (!wk->moves || !wk->visits) goto oom;
        if (cfg->ab_share > 0) {
            mcts_ab_config ac;
            mcts_ab_config_default(&ac);
            ac.tt_log2 = 16;                       /* 1 MiB a worker: shallow searches */
            ac.seed = mix64(cfg->seed + (uint64_t)t);
            if (!(wk->ab = mcts_ab_new(&ac))) goto oom;
        }
    }
    return sp;
oom:
    snprintf(err, errlen, "out of memory");
    tr_selfplay_free(sp);
    return NULL;
}

/* Start every worker thread on body; on failure stop those started.  0, or -1 with a message. */
static int start_workers(tr_selfplay *sp, void *(*body)(void *), char *err, size_t errlen) {
    for (int t = 0; t < sp->cfg.threads; t++) {
        if (pthread_create(&sp->workers[t].th, NULL, body, &sp->workers[t]) != 0) {
            snprintf(err, errlen, "cannot start self-play thread %d", t);
            tr_selfplay_stop(sp);
            return -1;
        }
        sp->workers[t].started = 1;
    }
    return 0;
}

/* Evaluator thread i's batcher. */
static mcts_batcher *batcher_of(tr_selfplay *sp, int i) { return i == 0 ? &sp->batcher : &sp->more[i - 1]; }

int tr_selfplay_start(tr_selfplay *sp, char *err, size_t errlen) {
    for (int i = 0; i <= sp->nmore; i++) atomic_store(&batcher_of(sp, i)->stop, 0);
    if (sp->cfg.teacher_iters > 0) return start_workers(sp, teacher_main, err, errlen);   /* no network */
    for (int i = 0; i <= sp->nmore; i++) {
        if (pthread_create(&sp->eval_th[i], NULL, eval_main, batcher_of(sp, i)) != 0) {
            snprintf(err, errlen, "cannot start evaluator thread %d", i);
            tr_selfplay_stop(sp);
            return -1;
        }
        sp->eval_started++;
    }
    return start_workers(sp, worker_main, err, errlen);
}

void tr_selfplay_hold(tr_selfplay *sp, int hold) { atomic_store(&sp->hold, hold); }

void tr_selfplay_set_generation(tr_selfplay *sp, uint32_t gen) { atomic_store(&sp->gen, gen); }

tr_game *tr_selfplay_take(tr_selfplay *sp) {
    pthread_mutex_lock(&sp->mu);
    tr_game *g = sp->done_head;
    sp->done_head = sp->done_tail = NULL;
    pthread_mutex_unlock(&sp->mu);
    return g;
}

void tr_selfplay_stats_get(tr_selfplay *sp, tr_selfplay_stats *st) {
    pthread_mutex_lock(&sp->mu);
    *st = sp->st;
    pthread_mutex_unlock(&sp->mu);
    st->submitted = st->finished = st->abandoned = st->terminal = st->collisions = st->moves = st->widenings = 0;
    st->target_visits = st->pruned_visits = 0;
    for (int t = 0; t < sp->cfg.threads; t++) {
        sp_worker *wk = &sp->workers[t];
        st->submitted += atomic_load_explicit(&wk->submitted, memory_order_relaxed);
        st->finished += atomic_load_explicit(&wk->finished, memory_order_relaxed);
        st->abandoned += atomic_load_explicit(&wk->abandoned, memory_order_relaxed);
        st->terminal += atomic_load_explicit(&wk->terminal, memory_order_relaxed);
        st->collisions += atomic_load_explicit(&wk->collisions, memory_order_relaxed);
        st->moves += atomic_load_explicit(&wk->moves_played, memory_order_relaxed);
        st->widenings += atomic_load_explicit(&wk->widenings, memory_order_relaxed);
        st->target_visits += atomic_load_explicit(&wk->target_visits, memory_order_relaxed);
        st->pruned_visits += atomic_load_explicit(&wk->pruned_visits, memory_order_relaxed);
    }
    /* plain counters of the evaluator threads: read only once they have stopped */
    st->evals = st->batches = sp->eval_started ? -1 : 0;
    for (int i = 0; !sp->eval_started && i <= sp->nmore; i++) {
        st->evals += (long long)batcher_of(sp, i)->evals;
        st->batches += (long long)batcher_of(sp, i)->batches;
    }
}

const char *tr_selfplay_error(tr_selfplay *sp) {
    return atomic_load(&sp->failed) ? sp->err : NULL;
}

void tr_selfplay_stop(tr_selfplay *sp) {
    atomic_store(&sp->stop, 1);
    for (int t = 0; t < sp->cfg.threads; t++)
        if (sp->workers[t].started) { pthread_join(sp->workers[t].th, NULL); sp->workers[t].started = 0; }
    if (sp->eval_started) {
        for (int i = 0; i < sp->eval_started; i++) atomic_store(&batcher_of(sp, i)->stop, 1);
        for (int i = 0; i < sp->eval_started; i++) pthread_join(sp->eval_th[i], NULL);
        sp->eval_started = 0;
        while (mcts_batcher_serve(&sp->batcher) > 0) {}   /* nothing can be left; be certain */
    }
    const mcts_batcher *b = failed_batcher(sp);
    if (b && !atomic_load(&sp->failed)) set_error(sp, b->err);
}

void tr_selfplay_free(tr_selfplay *sp) {
    if (!sp) return;
    if (sp->workers) tr_selfplay_stop(sp);
    for (int i = 0; sp->games && i < sp->ngames; i++) {
        sp_game *g = &sp->games[i];
        mcts_puct_worker_free(g->w);
        mcts_puct_free(g->s);
        free(g->inflight);
        tr_game_free(g->rec);
    }
    free(sp->games);
    for (int t = 0; sp->workers && t < sp->cfg.threads; t++) {
        free(sp->workers[t].moves);
        free(sp->workers[t].visits);
        mcts_ab_free(sp->workers[t].ab);
    }
    free(sp->workers);
    tr_game *g = sp->done_head;
    while (g) { tr_game *n = g->next; tr_game_free(g); g = n; }
    for (int i = 0; i < sp->nmore; i++) {
        mcts_batcher_free(&sp->more[i]);
        mcts_evaluator_free(sp->copies[i]);
    }
    free(sp->more);
    free(sp->copies);
    free(sp->eval_th);
    if (sp->batcher_ok) mcts_batcher_free(&sp->batcher);
    pthread_mutex_destroy(&sp->mu);
    free(sp);
}
