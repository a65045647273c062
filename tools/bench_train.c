/* bench_train.c — self-play speed of the training scheduler on the CPU: positions (moves) per
 * second, network evaluations per second and the mean evaluator batch, for the default training
 * configuration's network (4 blocks × 32 channels) and the default network (nn_config_default),
 * the first again with two evaluator threads (--eval-threads 2), and with int8 convolutions
 * (--selfplay-precision int8, on one and on two evaluator threads) where the CPU has them, and
 * without the cache of answers (--eval-cache 0) on two evaluator threads, and with every edge
 * stored (--edge-window 0) on two; the cache column is the share of the answers it gave,
 * with an untrained network and no training (`make bench`; `make bench-gpu` runs it with --gpu:
 * the network on the GPU, more games in flight).
 *
 *   bench_train [--seconds S] [--gpu] [--games N] [--threads N] [--eval-threads N] [--batch N]
 *               [--rings N] [--sims N] [--edge-window N] [--search-only]
 *
 * --games, --threads, --eval-threads and --batch override the scheduler's settings in every row
 * (to find the GPU's best: how many games in flight and search threads keep the network's
 * batches full); --rings and --sims set the board and the full search's simulations (fast =
 * N/4, as tools/train); --edge-window the searches' edge windows in every row.  --search-only runs one row with no network at all (uniform priors,
 * value 0: mcts_eval_uniform_new): the ceiling of the search threads alone, which is what a GPU
 * self-play run waits for once the network's batches are full (src/cuda/NOTES.md).
 *
 * Bad usage: "zertz: bench_train: OPTION: WHY", exit status 2 (tools/cli.h). */
#include "nn/cpu_info.h"
#include "cli.h"
#include "nn/infer.h"
#include "nn/int8.h"
#include "nn/model.h"
#include "cuda/backend.h"
#include "nn/omp_env.h"
#include "train/live_eval.h"
#include "train/run.h"
#include "mcts/evaluator.h"
#include "game/board.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Self-play with ev for `seconds`, then one table row (its cache's share of the answers when ev is
 * a live network: `live`).  0, or -1 (message printed). */
static int bench_with(const char *label, const char *net, mcts_evaluator *ev, bool live, const tr_run_config *rc,
                      double seconds) {
    char err[256];
    tr_selfplay *sp = tr_selfplay_new(&rc->sp, ev, err, sizeof err);
    if (!sp || tr_selfplay_start(sp, err, sizeof err) != 0) {
        fprintf(stderr, "zertz: bench_train: %s\n", err);
        tr_selfplay_free(sp);
        return -1;
    }
    double t0 = now_s();
    struct timespec ts = { 0, 50000000 };
    while (now_s() - t0 < seconds) {
        nanosleep(&ts, NULL);
        tr_game *g = tr_selfplay_take(sp);
        while (g) { tr_game *n = g->next; tr_game_free(g); g = n; }
    }
    tr_selfplay_stop(sp);
    double dt = now_s() - t0;
    tr_selfplay_stats st;
    tr_selfplay_stats_get(sp, &st);
    mcts_eval_cache_stats cs = live ? tr_live_eval_cache_stats(ev) : (mcts_eval_cache_stats){ 0, 0 };
    char cache[16] = "-";
    if (cs.lookups) snprintf(cache, sizeof cache, "%.1f %%", 100.0 * (double)cs.hits / (double)cs.lookups);
    printf("| %-22s | %-8s | %5d | %4d | %8.0f | %8.0f | %6.1f | %6lld | %6s |\n", label, net,
           rc->sp.games_in_flight, rc->sp.sims_full, (double)st.moves / dt, (double)st.evals / dt,
           st.batches ? (double)st.evals / (double)st.batches : 0.0, st.games, cache);
    tr_selfplay_free(sp);
    return 0;
}

/* A row with an untrained network of blocks × channels (0: nn_config_default's). */
static int bench(const char *label, int blocks, int channels, const tr_run_config *rc, double seconds) {
    nn_config nc;
    nn_config_default(&nc, rc->sp.board);
    if (blocks) { nc.blocks = blocks; nc.channels = channels; }
    char err[256], net[32];
    nn_model *m = nn_model_create(&nc, NN_F32, 1, err, sizeof err);
    mcts_evaluator *ev = m ? tr_live_eval_new(m, rc->sp.net_precision, err, sizeof err) : NULL;
    int r = -1;
    if (!ev || tr_live_eval_set_cache(ev, (size_t)rc->sp.eval_cache, err, sizeof err) != 0) {
        fprintf(stderr, "zertz: bench_train: %s\n", err);
    } else {
        snprintf(net, sizeof net, "%2d x %-3d", nc.blocks, nc.channels);
        r = bench_with(label, net, ev, true, rc, seconds);
    }
    mcts_evaluator_free(ev);
    nn_model_free(m);
    return r;
}

/* The row with no network: the search threads' ceiling. */
static int bench_search_only(const tr_run_config *rc, double seconds) {
    mcts_evaluator *ev = mcts_eval_uniform_new();
    if (!ev) { fprintf(stderr, "zertz: bench_train: out of memory\n"); return -1; }
    int r = bench_with("search only (uniform)", "none", ev, false, rc, seconds);
    mcts_evaluator_free(ev);
    return r;
}

static void usage(void) {
    printf("usage: bench_train [--seconds S] [--gpu] [--games N] [--threads N] [--eval-threads N] [--batch N]\n"
           "                   [--rings N] [--sims N] [--edge-window N] [--search-only]\n"
           "Self-play speed (positions/s, network evaluations/s, mean batch) with an untrained network.\n"
           "  --seconds S        seconds per configuration, 0.1..3600 (default 10)\n"
           "  --gpu              the network on the GPU, 512 games in flight (skipped without a GPU)\n"
           "  --games N          games in flight, 1..65536 (default 64; 512 with --gpu)\n"
           "  --threads N        search threads, 1..1024 (default tools/train's; 4 with --gpu)\n"
           "  --eval-threads N   evaluator threads, 1..64 (default 1; the CPU rows add 2)\n"
           "  --batch N          evaluator batch at most, 1..1024 (default 256)\n"
           "  --rings N          board: 37, 48 or 61 (default 37)\n"
           "  --sims N           simulations of a full search, 2..100000 (fast = N/4; default tools/train's)\n"
           "  --edge-window N    the searches' edge windows, 0..%d (0 = every edge; default tools/train's)\n"
           "  --search-only      one row with no network (uniform priors, value 0): the search's ceiling\n"
           "  -h, --help         this text\n", ZZ_MAX_MOVES);
}

int main(int argc, char **argv) {
    nn_omp_single_thread(argv);   /* our threads fill the cores: OpenMP on one (omp_env.h) */
    double seconds = 10;
    bool gpu = false;
    bool search_only = false;
    int games = 0, threads = 0, eval_threads = 0, batch = 0, rings = 37, sims = 0;   /* 0: the default */
    int edge_window = -1;                                                           /* -1: the default */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--gpu")) gpu = true;
        else if (!strcmp(a, "--seconds")) { if (!cli_double_opt("bench_train", argc, argv, &i, 0.1, 3600, &seconds)) return 2; }
        else if (!strcmp(a, "--games")) { if (!cli_int_opt("bench_train", argc, argv, &i, 1, 65536, &games)) return 2; }
        else if (!strcmp(a, "--threads")) { if (!cli_int_opt("bench_train", argc, argv, &i, 1, 1024, &threads)) return 2; }
        else if (!strcmp(a, "--eval-threads")) { if (!cli_int_opt("bench_train", argc, argv, &i, 1, 64, &eval_threads)) return 2; }
        else if (!strcmp(a, "--batch")) { if (!cli_int_opt("bench_train", argc, argv, &i, 1, 1024, &batch)) return 2; }
        else if (!strcmp(a, "--rings")) { if (!cli_rings_opt("bench_train", argc, argv, &i, &rings)) return 2; }
        else if (!strcmp(a, "--sims")) { if (!cli_int_opt("bench_train", argc, argv, &i, 2, 100000, &sims)) return 2; }
        else if (!strcmp(a, "--edge-window")) { if (!cli_int_opt("bench_train", argc, argv, &i, 0, ZZ_MAX_MOVES, &edge_window)) return 2; }
        else if (!strcmp(a, "--search-only")) search_only = true;
        else if (cli_is_help(a)) { usage(); return 0; }
        else return cli_unknown("bench_train", a);
    }
    /* The self-play network runs on the GPU whenever zz_cuda_select() says so (ZZ_BACKEND=cpu
     * refuses it): without --gpu, force the CPU; with --gpu, require the GPU. */
    char backend[160];
    if (gpu && search_only) return cli_bad("bench_train", "--search-only", "runs no network, so not with --gpu");
    if (gpu && !zz_cuda_select(backend, sizeof backend)) {
        printf("bench_train --gpu: SKIPPED, no usable GPU: %s\n", backend);
        return 0;
    }
    if (!gpu) setenv("ZZ_BACKEND", "cpu", 1);
    tr_run_config rc;
    tr_run_config_default(&rc);
    rc.sp.resign_value = 0;          /* measure whole games */
    if (gpu) { rc.sp.games_in_flight = 512; rc.sp.threads = 4; }
    if (games) rc.sp.games_in_flight = games;
    if (threads) rc.sp.threads = threads;
    if (eval_threads) rc.sp.eval_threads = eval_threads;
    if (batch) rc.sp.max_batch = batch;
    if (edge_window >= 0) rc.sp.edge_window = edge_window;
    rc.sp.board = zz_board_for_rings(rings)->kind;
    if (sims) {
        rc.sp.sims_full = sims;
        rc.sp.sims_fast = sims / 4 > 2 ? sims / 4 : 2;
    }
    bool fixed_eval = eval_threads != 0;
    printf("self-play speed, %d rings, %s, %.0f s each:", rings,
           search_only ? "no network" : gpu ? "GPU, untrained network" : "CPU, untrained network", seconds);
    for (int i = 0; i < argc; i++) printf(" %s", i ? argv[i] : "tools/bench_train");
    printf("\n%d games in flight, %d search threads, %d evaluator thread(s), batch at most %d\n",
           rc.sp.games_in_flight, rc.sp.threads, rc.sp.eval_threads, rc.sp.max_batch);
    nn_cpu_print_line("");
    printf("| %-22s | %-8s | %5s | %4s | %8s | %8s | %6s | %6s | %6s |\n", "config", "net", "games", "sims", "pos/s",
           "evals/s", "batch", "done", "cache");
    printf("|------------------------|----------|-------|------|----------|----------|--------|--------|--------|\n");
    if (search_only) return bench_search_only(&rc, seconds) != 0;
    if (bench(gpu ? "train default" : "train default (CPU)", rc.blocks, rc.channels, &rc, seconds) != 0) return 1;
    if (bench("default net", 0, 0, &rc, seconds) != 0) return 1;
    if (gpu || fixed_eval) return 0;
    rc.sp.eval_threads = 2;                    /* tools/train --eval-threads 2 */
    if (bench("train default, 2 eval", rc.blocks, rc.channels, &rc, seconds) != 0) return 1;
    int cache = rc.sp.eval_cache;
    rc.sp.eval_cache = 0;                      /* --eval-cache 0 */
    if (bench("2 eval, no cache", rc.blocks, rc.channels, &rc, seconds) != 0) return 1;
    rc.sp.eval_cache = cache;
    if (edge_window < 0) {
        rc.sp.edge_window = 0;                 /* --edge-window 0 */
        if (bench("2 eval, every edge", rc.blocks, rc.channels, &rc, seconds) != 0) return 1;
        tr_run_config d;
        tr_run_config_default(&d);
        rc.sp.edge_window = d.sp.edge_window;
    }
    rc.sp.eval_threads = 1;
    if (!nn_int8_available()) {
        printf("| %-22s | not run: this CPU lacks " NN_INT8_NEEDS " |\n", "train default, int8");
        return 0;
    }
    rc.sp.net_precision = NN_PREC_INT8;        /* tools/train --selfplay-precision int8 */
    if (bench("train default, int8", rc.blocks, rc.channels, &rc, seconds) != 0) return 1;
    rc.sp.eval_threads = 2;                    /* --eval-threads 2 */
    if (bench("int8, 2 eval threads", rc.blocks, rc.channels, &rc, seconds) != 0) return 1;
    rc.sp.eval_cache = 0;
    if (bench("int8, 2 eval, no cache", rc.blocks, rc.channels, &rc, seconds) != 0) return 1;
    return 0;
}
