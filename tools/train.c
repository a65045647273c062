/* train.c — `make train`: AlphaZero self-play training for Zèrtz from zero (src/train/run.h).
 * An embedded default configuration that learns on a 2-core CPU within minutes; options to change
 * it; Ctrl-C saves everything and exits, and running again resumes. */
#include "train/mpi_train.h"
#include "train/omp_env.h"
#include "train/run.h"
#include "cuda/backend.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t g_stop = 0;
static void on_signal(int sig) { (void)sig; g_stop = 1; }

static void usage(FILE *f) {
    tr_run_config d;
    tr_run_config_default(&d);
    fprintf(f,
            "usage: train [options]   (make train TRAIN_ARGS=\"...\")\n"
            "  --out DIR            output directory (default runs/default; runs/gpu with a GPU)\n"

            "  --rings N            board: 37, 48 or 61 (default 37)\n"
            "  --blocks N           residual blocks (default 4)\n"
            "  --channels N         trunk channels (default 32)\n"
            "  --sims N             simulations of a full search (default 64; fast = N/4)\n"
            "  --games-in-flight N  self-play games at once (default 64)\n"
            "  --threads N          self-play worker threads (default 1; + 1 evaluator thread)\n"
            "  --lr X               learning rate (default 0.02)\n"
            "  --batch N            training batch (default 128)\n"
            "  --train-ratio X      samples trained per sample generated (default 4)\n"
            "  --window N           replay window in samples (default 100000)\n"
            "  --min-samples N      training starts once the window holds N samples (default 1000)\n"
            "  --gen-steps N        SGD steps per generation / checkpoint (default 250)\n"
            "  --eval-every N       evaluate every N generations (default 2; 0 = never)\n"
            "  --eval-games N       games per evaluation match (default 10)\n"
            "  --minutes X          stop after X minutes, saving everything\n"
            "  --steps N            stop at N SGD steps in total\n"
            "  --resume             resume the run in --out, which must hold one (resuming is the default)\n"
            "  --fresh              start over, deleting the run in --out\n"
            "  --seed N             random seed (default 1)\n"
            "  --quiet              no status line\n"
            "  --init CKPT          a fresh run starts from these weights (their architecture), e.g. to\n"
            "                       continue the shipped network on another machine without its replay\n"
            "  --rollout-mix X      self-play leaf values: (1-X) network + X one random rollout (default %.2g)\n"
            "  --gumbel M           Gumbel AlphaZero root search with M candidates (sequential halving;\n"
            "                       the improved policy is the policy target; 0 = PUCT with noise; default %d)\n"
            "  --teacher N          teacher mode: self-play by UCT with N iterations a decision (random\n"
            "                       rollouts, no network), its visits the policy targets (0 = off)\n"
            "  --q-target X         value target: (1-X) game result + X root search value (default %.2g)\n"
            "  --pretrain PATH      a fresh run first trains on the Boardspace SGF games under PATH\n"
            "                       (each move a policy target, the result a value target)\n"
            "  --pretrain-games N   use at most N of them (default 3000; 0 = all)\n"
            "  --mpi                one rank of an MPI job: mpirun -np N [--hostfile H] tools/train --mpi ...\n"
            "                       (make train-mpi NP=N): rank 0 trains and plays, the others play\n"
            "  --help               this text\n"
            "With a usable GPU (ZZ_BACKEND=cpu to refuse it) the self-play network and the SGD steps run\n"
            "there, and the defaults grow to 6 blocks x 64 channels, 128 simulations, 512 games in flight.\n",
            d.rollout_mix, d.sp.gumbel_m, d.sp.q_target);
}

static int fail(const char *what, const char *why) {
    fprintf(stderr, "zertz: train: %s: %s\n", what, why);
    return 1;
}

/* Bad usage: one line, exit status 2 (as every tool: tools/cli.h). */
static int usage_error(const char *what, const char *why) {
    fprintf(stderr, "zertz: train: %s: %s (see train --help)\n", what, why);
    return 2;
}

static bool num(const char *s, double lo, double hi, double *v) {
    char *end;
    *v = strtod(s, &end);
    return end != s && !*end && *v >= lo && *v <= hi;
}

int main(int argc, char **argv) {
    tr_omp_single_thread(argv);   /* our threads fill the cores: OpenMP on one (omp_env.h) */
    tr_run_config c;
    tr_run_config_default(&c);
    int sims = 0, mpi = 0, mpi_status = 0;
    /* With a usable GPU the self-play network runs there (src/cuda): a larger default. */
    char backend[160];
    if (zz_cuda_select(backend, sizeof backend)) {
        c.blocks = 6;
        c.channels = 64;
        c.sp.games_in_flight = 512;
        c.sp.sims_full = 128;
        c.sp.sims_fast = 32;
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        c.sp.threads = cores > 2 ? (int)cores - 2 : 1;
        snprintf(c.out, sizeof c.out, "runs/gpu");
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        double x;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 0; }
        if (!strcmp(a, "--fresh")) { c.fresh = 1; continue; }
        if (!strcmp(a, "--resume")) { c.resume = 1; c.require_run = 1; continue; }
        if (!strcmp(a, "--quiet")) { c.quiet = 1; continue; }
        if (!strcmp(a, "--mpi")) {
            if (!tr_mpi_available())
                return usage_error(a, "this build has no MPI (mpicc was not found when it was built): install Open MPI "
                                      "(apt-get install openmpi-bin libopenmpi-dev) and rebuild");
            mpi = 1;
            continue;
        }
        if (!v) return usage_error(a, "unknown option or missing value");
        i++;
#define OPT_NUM(name, lo, hi, dst)                                                    \
    if (!strcmp(a, name)) {                                                           \
        if (!num(v, lo, hi, &x)) return usage_error(a, "value out of range or not a number"); \
        dst;                                                                          \
        continue;                                                                     \
    }
        if (!strcmp(a, "--out")) { snprintf(c.out, sizeof c.out, "%s", v); continue; }
        if (!strcmp(a, "--init")) { snprintf(c.init, sizeof c.init, "%s", v); continue; }
        if (!strcmp(a, "--pretrain")) { snprintf(c.pretrain, sizeof c.pretrain, "%s", v); continue; }
        OPT_NUM("--rings", 37, 61, {
            if (x == 37) c.sp.board = ZZ_B37;
            else if (x == 48) c.sp.board = ZZ_B48;
            else if (x == 61) c.sp.board = ZZ_B61;
            else return usage_error(a, "the board has 37, 48 or 61 rings");
        })
        OPT_NUM("--pretrain-games", 0, 1e9, c.pretrain_games = (int)x)
        OPT_NUM("--rollout-mix", 0, 1, c.rollout_mix = x)
        OPT_NUM("--q-target", 0, 1, c.sp.q_target = x)
        OPT_NUM("--teacher", 0, 1e8, c.sp.teacher_iters = (int)x)
        OPT_NUM("--gumbel", 0, 64, c.sp.gumbel_m = (int)x)
        OPT_NUM("--blocks", 1, 40, { c.blocks = (int)x; c.arch_given = 1; })
        OPT_NUM("--channels", 4, 512, { c.channels = (int)x; c.arch_given = 1; })
        OPT_NUM("--sims", 2, 100000, sims = (int)x)
        OPT_NUM("--games-in-flight", 1, 100000, c.sp.games_in_flight = (int)x)
        OPT_NUM("--threads", 1, 256, c.sp.threads = (int)x)
        OPT_NUM("--lr", 1e-6, 10, c.lr = x)
        OPT_NUM("--batch", 1, 65536, c.batch = (int)x)
        OPT_NUM("--train-ratio", 0.01, 1000, c.train_ratio = x)
        OPT_NUM("--window", 100, 1e8, c.window = (int)x)
        OPT_NUM("--min-samples", 1, 1e8, c.min_samples = (int)x)
        OPT_NUM("--gen-steps", 1, 1e9, c.gen_steps = (int)x)
        OPT_NUM("--eval-every", 0, 1e6, c.eval_every = (int)x)
        OPT_NUM("--eval-games", 2, 10000, c.eval_games = (int)x)
        OPT_NUM("--minutes", 0, 1e7, c.minutes = x)
        OPT_NUM("--steps", 0, 1e12, c.max_steps = (long)x)
        OPT_NUM("--seed", 0, 1e18, c.seed = (uint64_t)x)
        return usage_error(a, "unknown option");
    }
    if (sims) {
        c.sp.sims_full = sims;
        c.sp.sims_fast = sims / 4 > 2 ? sims / 4 : 2;
    }
    if (c.min_samples > c.window) c.min_samples = c.window / 2;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    c.stop = &g_stop;
    tr_run_result r;
    char err[512];
    if (mpi) {
        int rank = 0;
        int st = tr_mpi_train(&c, &r, &rank, err, sizeof err);
        /* a worker: rank 0 speaks for the job; stopped by a signal (mpirun is ending the job without
         * MPI_Finalize), a rank leaves at once rather than in MPI's exit handlers */
        if (rank != 0) {
            if (g_stop) { fflush(NULL); _exit(st); }
            return st;
        }
        if (st != 0 && err[0]) return fail(c.out, err);
        if (st != 0) {      /* a signal: mpirun ends the whole job when a rank dies, and on Ctrl-C */
            /* on stdout: mpirun may stop forwarding rank 0's stderr while it ends the job */
            printf("zertz train: %s: stopped by a signal (mpirun ends the whole job when a rank dies, and on "
                   "Ctrl-C): state saved at step %ld; run the same command again to resume\n", c.out, r.steps);
            fflush(stdout);
        }
        mpi_status = st;
    } else if (tr_run(&c, &r, err, sizeof err) != 0) {
        return fail(c.out, err);
    }
    double fr = r.sp.calib_would_resign ? (double)r.sp.false_resign / (double)r.sp.calib_would_resign : 0;
    printf("zertz train: %s: step %ld, generation %d (best %d), %lld games (%lld this session, %lld samples), "
           "%lld network evaluations; resigned %lld, false resignations %lld/%lld calibration games (%.0f%%)%s\n",
           c.out, r.steps, r.generation, r.best_generation, r.games, r.session_games, r.session_samples, r.evals,
           r.sp.resigned, r.sp.false_resign, r.sp.calib_would_resign, 100 * fr,
           g_stop ? "; stopped by signal: run again to resume" : "");
    if (mpi && g_stop) { fflush(NULL); _exit(mpi_status); }
    return mpi_status;
}
