/* bench_mcts.c — search speed: UCT iterations/s on the 37-ring opening (1 and 2 threads), PUCT
 * simulations/s with the uniform evaluator and with the shipped 37-ring network (its convolutions
 * in float, in bf16 and in int8, src/nn/bf16.h and int8.h, on one thread each; and in the
 * players' precision on 2 threads, with an evaluator each and with one shared through the
 * batcher, puct.h), PUCT over a game's searches with and without the network's cache of answers
 * (eval_cache.h) and with every edge stored instead of edge windows (puct.h: the most edges a
 * tree held), and the lock-free queue's throughput.
 *
 *   bench_mcts [--iters N] [--sims N] [--quick]
 *
 * Each figure is the best of a few runs (fresh tree each), to shave off noise from a shared
 * machine.  Prints a table and the command that produced it.
 * Bad usage: "zertz: bench_mcts: OPTION: WHY", exit status 2 (tools/cli.h). */
#include "nn/cpu_info.h"
#include "cli.h"
#include "mcts/agent.h"
#include "nn/bf16.h"
#include "nn/infer.h"
#include "nn/int8.h"
#include "nn/omp_env.h"
#include "mcts/puct.h"
#include "mcts/queue.h"
#include "mcts/uct.h"
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double cpu_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Best wall-clock rate; *per_cpu receives the best rate per CPU-second (what the threads cost,
 * whatever else the machine is running). */
static double bench_uct(int threads, uint64_t iters, int reps, double *per_cpu) {
    double best = 0;
    *per_cpu = 0;
    for (int r = 0; r < reps; r++) {
        mcts_uct_config c;
        mcts_uct_config_default(&c);
        c.threads = threads;
        c.seed = 1 + (uint64_t)r;
        mcts_uct *u = mcts_uct_new(&c);
        zz_pos p;
        zz_pos_init(&p, ZZ_B37);
        mcts_uct_set_root(u, &p);
        mcts_search_stats st;
        double c0 = cpu_s();
        if (!u || mcts_uct_search(u, iters, 0, &st) != 0) { fprintf(stderr, "zertz: bench_mcts: UCT search failed\n"); exit(1); }
        double rate = (double)st.iterations / st.seconds, pc = (double)st.iterations / (cpu_s() - c0);
        if (rate > best) best = rate;
        if (pc > *per_cpu) *per_cpu = pc;
        mcts_uct_free(u);
    }
    return best;
}

/* The evaluator of a row: uniform (prec NULL), or the shipped 37-ring network in prec ("f32",
 * "bf16", "int8") with a cache of cache_entries answers (0: none, so that a row measures the
 * network).  Exits with a message when it cannot be made. */
static mcts_evaluator *bench_evaluator(const char *prec, size_t cache_entries) {
    if (!prec) return mcts_eval_uniform_new();
    char path[1100], err[512];
    if (mcts_default_weights(ZZ_B37, path, sizeof path) != 0) {
        fprintf(stderr, "zertz: bench_mcts: no shipped 37-ring network (%s)\n", path);
        exit(1);
    }
    mcts_evaluator *ev = mcts_eval_nn_new(path, err, sizeof err);
    if (!ev || mcts_eval_nn_set_precision(ev, prec, err, sizeof err) != 0 ||
        mcts_eval_nn_set_cache(ev, cache_entries, err, sizeof err) != 0) {
        fprintf(stderr, "zertz: bench_mcts: %s: %s\n", path, err);
        exit(1);
    }
    return ev;
}

/* Best simulations/s over reps searches of sims from the 37-ring opening (fresh tree and
 * evaluator each: a per-thread search's copies are made inside the timed search).
 * own_evaluators: threads > 1 each evaluate with their own copy, else through the batcher. */
static double bench_puct(int threads, int batch, uint64_t sims, int reps, const char *prec, bool own_evaluators) {
    double best = 0;
    char err[256];
    for (int r = 0; r < reps; r++) {
        mcts_evaluator *ev = bench_evaluator(prec, 0);
        mcts_puct_config c;
        mcts_puct_config_default(&c);
        c.threads = threads;
        c.thread_evaluators = own_evaluators;
        c.batch = batch;
        c.seed = 1 + (uint64_t)r;
        mcts_puct *s = mcts_puct_new(&c, ev, err, sizeof err);
        zz_pos p;
        zz_pos_init(&p, ZZ_B37);
        mcts_puct_set_root(s, &p);
        mcts_search_stats st;
        if (!s || mcts_puct_search(s, sims, 0, false, &st, err, sizeof err) != 0) {
            fprintf(stderr, "zertz: bench_mcts: PUCT search failed: %s\n", err);
            exit(1);
        }
        double rate = (double)st.iterations / st.seconds;
        if (rate > best) best = rate;
        mcts_puct_free(s);
        mcts_evaluator_free(ev);
    }
    return best;
}

enum { BENCH_GAME_MAX = 64 };

/* Simulations/s over a game of `moves` moves (at most BENCH_GAME_MAX) from the 37-ring opening,
 * `sims` simulations each, on `threads` search threads (an evaluator each, the copies sharing the
 * cache: eval_cache.h), tree reuse, the network in prec with a cache of cache_entries answers (0:
 * none); the share of the network's answers that came from the cache in *hit_share.  The moves
 * played: with `game` NULL the search's own choices, else game[0..moves) (so that searches on two
 * threads, which differ from run to run, search the positions of one game); *played gets how
 * many.  On one thread the game is the same with the cache and without it (test_mcts_eval_cache),
 * and with edge windows (puct.h's edge_window; `window` < 0: the default) and without them
 * (test_mcts_puct); *peak_edges gets the most edges a search's tree held. */
static double bench_game(int threads, size_t cache_entries, int window, uint64_t sims, int moves, const char *prec,
                         zz_move *record, const zz_move *game, int *played, double *hit_share, uint32_t *peak_edges) {
    char err[256];
    mcts_evaluator *ev = bench_evaluator(prec, cache_entries);
    mcts_puct_config c;
    mcts_puct_config_default(&c);
    c.seed = 1;
    c.threads = threads;
    if (window >= 0) c.edge_window = window;
    mcts_puct *s = mcts_puct_new(&c, ev, err, sizeof err);
    if (!s) { fprintf(stderr, "zertz: bench_mcts: %s\n", err); exit(1); }
    *peak_edges = 0;
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    mcts_puct_set_root(s, &p);
    double seconds = 0, done = 0;
    int i = 0;
    for (; i < moves && i < BENCH_GAME_MAX && !zz_over(&p); i++) {
        mcts_search_stats st;
        if (mcts_puct_search(s, sims, 0, false, &st, err, sizeof err) != 0) {
            fprintf(stderr, "zertz: bench_mcts: PUCT search failed: %s\n", err);
            exit(1);
        }
        seconds += st.seconds;
        done += (double)st.iterations;
        const mcts_tree *t = mcts_puct_tree(s);
        uint32_t edges = mcts_arena_used(&t->edges[t->cur]);
        if (edges > *peak_edges) *peak_edges = edges;
        zz_move m = game ? game[i] : mcts_puct_pick(s, 0);
        if (record) record[i] = m;
        zz_apply(&p, m, NULL);
        mcts_puct_advance(s, m);
    }
    *played = i;
    mcts_eval_cache_stats cs = mcts_eval_nn_cache_stats(ev);
    *hit_share = cs.lookups ? (double)cs.hits / (double)cs.lookups : 0;
    mcts_puct_free(s);
    mcts_evaluator_free(ev);
    return seconds > 0 ? done / seconds : 0;
}

typedef struct { mcts_queue *q; long n; _Atomic long *left; } qarg;

static void *q_producer(void *arg) {
    qarg *a = arg;
    for (long i = 1; i <= a->n; i++)
        while (!mcts_queue_push(a->q, (void *)(uintptr_t)i)) sched_yield();
    return NULL;
}

static void *q_consumer(void *arg) {
    qarg *a = arg;
    void *buf[64];
    while (atomic_load_explicit(a->left, memory_order_relaxed) > 0) {
        int n = mcts_queue_pop_many(a->q, buf, 64);
        if (n) atomic_fetch_sub(a->left, n);
        else sched_yield();
    }
    return NULL;
}

/* Items per second through the queue with `producers` producers and one consumer. */
static double bench_queue(int producers, long per) {
    mcts_queue *q = mcts_queue_new(1024);
    _Atomic long left = (long)producers * per;
    qarg a = { q, per, &left };
    pthread_t th[8], cons;
    double t0 = now_s();
    pthread_create(&cons, NULL, q_consumer, &a);
    for (int i = 0; i < producers; i++) pthread_create(&th[i], NULL, q_producer, &a);
    for (int i = 0; i < producers; i++) pthread_join(th[i], NULL);
    pthread_join(cons, NULL);
    double dt = now_s() - t0;
    mcts_queue_free(q);
    return (double)producers * per / dt;
}

static double bench_queue_single(long n) {      /* push + pop on one thread: the uncontended cost */
    mcts_queue *q = mcts_queue_new(1024);
    void *buf[64];
    double t0 = now_s();
    for (long i = 0; i < n; i += 64) {
        for (int k = 0; k < 64; k++) mcts_queue_push(q, (void *)(uintptr_t)(i + k + 1));
        mcts_queue_pop_many(q, buf, 64);
    }
    double dt = now_s() - t0;
    mcts_queue_free(q);
    return (double)n / dt;
}

int main(int argc, char **argv) {
    nn_omp_single_thread(argv);   /* the network rows: one core per search thread (omp_env.h) */
    uint64_t iters = 100000, sims = 5000;
    int reps = 3;
    long v;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) {
            printf("usage: bench_mcts [--iters N] [--sims N] [--quick] [--gpu]\n"
                   "Search speed on the 37-ring opening: UCT iterations/s, PUCT simulations/s (uniform\n"
                   "evaluator; the shipped 37-ring network in f32, bf16 and int8, at most 2000 simulations,\n"
                   "and on 2 threads with an evaluator each or one shared; over the searches of a game,\n"
                   "on 1 and 2 threads, with the network's cache of answers and without it,\n"
                   "and with every edge stored: the most edges a search tree held),\n"
                   "the lock-free queue's throughput; best of 3 runs.\n"
                   "  --iters N     UCT iterations per run, 1..100000000 (default 100000)\n"
                   "  --sims N      PUCT simulations per run, 1..10000000 (default 5000)\n"
                   "  --quick       one run of 20000 iterations and 1000 simulations\n"
                   "  --gpu         nothing to do (search is CPU code)\n"
                   "  -h, --help    this text\n");
            return 0;
        } else if (!strcmp(a, "--iters")) {
            if (!cli_long_opt("bench_mcts", argc, argv, &i, 1, 100000000, &v)) return 2;
            iters = (uint64_t)v;
        } else if (!strcmp(a, "--sims")) {
            if (!cli_long_opt("bench_mcts", argc, argv, &i, 1, 10000000, &v)) return 2;
            sims = (uint64_t)v;
        } else if (!strcmp(a, "--quick")) { iters = 20000; sims = 1000; reps = 1; }
        else if (!strcmp(a, "--gpu")) { printf("bench_mcts: no GPU part (search is CPU code)\n"); return 0; }
        else return cli_unknown("bench_mcts", a);
    }
    printf("bench_mcts: search speed, 37-ring opening (best of %d runs, fresh tree each)\n", reps);
    printf("command: bench_mcts --iters %llu --sims %llu%s\n", (unsigned long long)iters, (unsigned long long)sims,
           reps == 1 ? " (--quick)" : "");
    nn_cpu_print_line("");
    double c1, c2, u1 = bench_uct(1, iters, reps, &c1), u2 = bench_uct(2, iters, reps, &c2);
    double p1 = bench_puct(1, 8, sims, reps, NULL, true), p2 = bench_puct(2, 8, sims, reps, NULL, true);
    uint64_t nsims = sims < 2000 ? sims : 2000;
    double n32 = bench_puct(1, 8, nsims, reps, "f32", true);
    bool have_bf16 = nn_bf16_available();
    double n16 = have_bf16 ? bench_puct(1, 8, nsims, reps, "bf16", true) : 0;
    bool have_int8 = nn_int8_available();
    double n8 = have_int8 ? bench_puct(1, 8, nsims, reps, "int8", true) : 0;
    const char *play = nn_precision_name(nn_precision_default());     /* what players use */
    double np1 = bench_puct(1, 8, nsims, reps, play, true), np2 = bench_puct(2, 8, nsims, reps, play, true);
    double np2b = bench_puct(2, 8, nsims, reps, play, false);
    int game_moves = reps == 1 ? 10 : 24;
    zz_move game[BENCH_GAME_MAX];      /* the one-thread game's moves, replayed on two threads */
    int played;
    double share_off, share_on, share2, share2_off, share_all;
    uint32_t edges_off, edges_on, edges2_off, edges2_on, edges_all;
    double g_off = bench_game(1, 0, -1, nsims, game_moves, play, game, NULL, &played, &share_off, &edges_off);
    double g_on = bench_game(1, MCTS_EVAL_CACHE_DEFAULT, -1, nsims, game_moves, play, NULL, NULL, &played, &share_on, &edges_on);
    game_moves = played;
    double g_all = bench_game(1, MCTS_EVAL_CACHE_DEFAULT, 0, nsims, game_moves, play, NULL, NULL, &played, &share_all, &edges_all);
    double g2_off = bench_game(2, 0, -1, nsims, game_moves, play, NULL, game, &played, &share2_off, &edges2_off);
    double g2_on = bench_game(2, MCTS_EVAL_CACHE_DEFAULT, -1, nsims, game_moves, play, NULL, game, &played, &share2, &edges2_on);
    double q0 = bench_queue_single(4000000), q1 = bench_queue(1, 1000000), q2 = bench_queue(2, 500000);
    printf("%-52s %14s\n", "measure", "per second");
    printf("%-52s %14.0f   (%.0f per CPU-second)\n", "UCT iterations, 1 thread", u1, c1);
    printf("%-52s %14.0f   (x%.2f; %.0f per CPU-second: x%.2f of 1 thread's)\n", "UCT iterations, 2 threads", u2,
           u2 / u1, c2, c2 / c1);
    printf("%-52s %14.0f\n", "PUCT simulations, uniform evaluator, 1 thread, batch 8", p1);
    printf("%-52s %14.0f\n", "PUCT simulations, uniform evaluator, 2 workers + batcher", p2);
    printf("%-52s %14.0f\n", "PUCT simulations, 37-ring network f32, 1 thread", n32);
    if (have_bf16) printf("%-52s %14.0f   (x%.2f of f32)\n", "PUCT simulations, 37-ring network bf16, 1 thread", n16, n16 / n32);
    else printf("%-52s %14s   (this CPU lacks AVX512_BF16)\n", "PUCT simulations, 37-ring network bf16, 1 thread", "not run");
    if (have_int8) printf("%-52s %14.0f   (x%.2f of f32; the %s kernel)\n", "PUCT simulations, 37-ring network int8, 1 thread",
                          n8, n8 / n32, nn_int8_kernel_name(nn_int8_active_kernel()));
    else printf("%-52s %14s   (this CPU lacks " NN_INT8_NEEDS ")\n", "PUCT simulations, 37-ring network int8, 1 thread", "not run");
    char row[96];
    snprintf(row, sizeof row, "PUCT simulations, network %s, 1 thread", play);
    printf("%-52s %14.0f\n", row, np1);
    snprintf(row, sizeof row, "PUCT simulations, network %s, 2 threads, own evaluators", play);
    printf("%-52s %14.0f   (x%.2f of 1 thread)\n", row, np2, np2 / np1);
    snprintf(row, sizeof row, "PUCT simulations, network %s, 2 workers + batcher", play);
    printf("%-52s %14.0f   (x%.2f of 1 thread)\n", row, np2b, np2b / np1);
    snprintf(row, sizeof row, "PUCT in a game (%d moves), network %s, no cache", game_moves, play);
    printf("%-52s %14.0f\n", row, g_off);
    snprintf(row, sizeof row, "PUCT in a game (%d moves), network %s, cache", game_moves, play);
    printf("%-52s %14.0f   (x%.2f; %.1f %% of the answers from the cache)\n", row, g_on, g_on / g_off, 100 * share_on);
    snprintf(row, sizeof row, "the same game, every edge stored (edges=0)");
    printf("%-52s %14.0f   (x%.2f; a tree's edges at most %u, against %u with edge windows: x%.1f)\n", row, g_all,
           g_all / g_on, edges_all, edges_on, edges_on ? (double)edges_all / edges_on : 0.0);
    snprintf(row, sizeof row, "the same moves, 2 threads searching, no cache");
    printf("%-52s %14.0f\n", row, g2_off);
    snprintf(row, sizeof row, "the same moves, 2 threads searching, one cache");
    printf("%-52s %14.0f   (x%.2f; %.1f %% of the answers from the cache)\n", row, g2_on, g2_on / g2_off, 100 * share2);
    printf("%-52s %14.0f\n", "queue push+pop, 1 thread", q0);
    printf("%-52s %14.0f\n", "queue items, 1 producer -> 1 consumer", q1);
    printf("%-52s %14.0f\n", "queue items, 2 producers -> 1 consumer", q2);
    return 0;
}
