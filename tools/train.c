/* train.c — `make train`: AlphaZero self-play training for Zèrtz from zero (src/train/run.h).
 * An embedded default configuration that learns on a 2-core CPU within minutes; options to change
 * it; Ctrl-C saves everything and exits, and running again resumes. */
#include "cli.h"
#include "train/mpi_train.h"
#include "nn/infer.h"
#include "nn/int8.h"
#include "nn/omp_env.h"
#include "train/run.h"
#include "train/recipe.h"
#include "cuda/backend.h"
#include "mcts/ab.h"
#include "mcts/forcing.h"
#include "mcts/eval_cache.h"
#include "mcts/puct.h"
#include <signal.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOOL "train"

static volatile sig_atomic_t g_stop = 0;
static void on_signal(int sig) { (void)sig; g_stop = 1; }

static void usage(FILE *f) {
    tr_run_config d;
    tr_run_config_default(&d);
    mcts_puct_config puct; /* the searches' tactic margin, which --tactic-prior uses */
    mcts_puct_config_default(&puct);
    fprintf(f,
            "usage: train [options]   (make train TRAIN_ARGS=\"...\")\n"
            "  --out DIR            output directory (default runs/default; runs/gpu with a GPU)\n"

            "  --rings N            board: 37, 48 or 61 (default 37)\n"
            "  --blocks N           residual blocks (default 4)\n"
            "  --channels N         trunk channels (default 32)\n"
            "  --sims N             simulations of a full search (default 64; fast = N/4)\n"
            "  --games-in-flight N  self-play games at once (default 64; with a GPU 4096 on 8+ cores,\n"
            "                       else 512)\n"
            "  --threads N          self-play worker threads (default 1; with a GPU the cores less the\n"
            "                       evaluator threads; the evaluator threads come on top)\n"
            "  --eval-threads N     self-play evaluator threads, a copy of the network each (default 2 on\n"
            "                       a CPU with 2 or more cores: x1.5 positions/s on 2 cores; with a GPU\n"
            "                       4 on 8+ cores (x3.1 evaluations/s on an H200), else 1; 1 with --mpi)\n"
            "  --eval-cache N       slots of the self-play network's cache of answers by position, one\n"
            "                       table for all evaluator threads, each answer kept with the weights\n"
            "                       it came from (default %d; 0 = none; the GPU network keeps none)\n"
            "  --edge-window N      self-play trees store a node's N best edges, widened on demand\n"
            "                       through the evaluator threads (default %d; 0 = every edge: a\n"
            "                       61-ring node has ~1,000, and opens about one child)\n"
            "  --sgd-threads-held N CPU SGD on N OpenMP threads while self-play waits for training (its\n"
            "                       evaluators idle then); else on OpenMP's own (default 0: always those;\n"
            "                       no gain measured on 2 cores: src/train/README.md)\n"
            "  --lr X               learning rate (default 0.02)\n"
            "  --lr-tail F          the last F of the session (of --minutes, else of --steps) trains\n"
            "                       at lr x --lr-tail-factor (default %.2g; 0 = constant lr)\n"
            "  --lr-tail-factor X   (default %.2g)\n"
            "  --batch N            training batch (default 128)\n"
            "  --train-ratio X      samples trained per sample generated (default 4)\n"
            "  --hold-batches N     self-play waits while training is more than N batches behind the\n"
            "                       ratio (default 64, 256 with a GPU: a backlog that lets SGD and\n"
            "                       self-play run together)\n"
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
            "                       buffer; another board's are carried over; with --blocks/--channels\n"
            "                       at least theirs, the network first grows to that size and plays as\n"
            "                       before (new channels and blocks start silent: src/nn/grow.h)\n"
            "  --rollout-mix X      self-play leaf values: (1-X) network + X one random rollout (default %.2g)\n"
            "  --gumbel M           Gumbel AlphaZero root search with M candidates (sequential halving;\n"
            "                       the improved policy is the policy target; 0 = PUCT with noise; default %d)\n"
            "  --ab-share X         share of the self-play games where one side (drawn at random) is the\n"
            "                       alpha-beta agent; its moves are not recorded (default %.2g)\n"
            "  --ab-depth D         that agent's depth in plies, 1..%d (default %d: ~10 ms a move on 37\n"
            "                       rings; 3 takes seconds in the opening)\n"
            "  --ab-ms MS           and its time per move at most (default 0: the depth alone)\n"
            "  --teacher N          teacher mode: self-play by UCT with N iterations a decision (random\n"
            "                       rollouts, no network), its visits the policy targets (0 = off)\n"
            "  --force-prior X      self-play searches multiply the priors of placements that force the\n"
            "                       next player to capture by 1 + X (default %.2g: off; the agent option\n"
            "                       forceprior=)\n"
            "  --prune-boost 0|1    with --force-prior: the policy targets keep only the visits the\n"
            "                       unboosted priors would have given a forcing placement (KataGo's\n"
            "                       target pruning; src/mcts/target_prune.h; default %d: off)\n"
            "  --tactic-prior P     self-play searches give a placement that wins an exchange (alpha-\n"
            "                       beta's capture quiescence gains %d points or more) a prior of at\n"
            "                       least P, 0..1, at the root and the replies to its moves (default %.2g:\n"
            "                       off; the agent option tactic=)\n"
            "  --tactic-run K       with --tactic-prior: at each root, placements are scored by the\n"
            "                       mover's best forcing run of at most K placements that starts with\n"
            "                       them (sacrifices that pay back later; src/mcts/forcing.h), 2..%d\n"
            "                       (default 0: the exchange alone; the agent option tacticrun=)\n"
            "  --quiet-leaves N     self-play leaves where the mover must capture are valued after the\n"
            "                       exchange: every capture played out to quiet positions, the network's\n"
            "                       values there minimaxed, trees of at most N positions (default %d: off;\n"
            "                       the agent option quiet=)\n"
            "  --q-target X         value target: (1-X) game result + X root search value (default %.2g)\n"
            "  --aux-weight W       give a new network (random or --init's) a captures head, trained to\n"
            "                       predict the game's final captures with this weight beside the value\n"
            "                       loss (default 0: none; an experiment, src/train/README.md; SGD stays\n"
            "                       on the CPU)\n"
            "  --selfplay-precision f32|bf16|int8\n"
            "                       the self-play network's convolutions on the CPU (default int8 where the\n"
            "                       CPU has AVX2 or AVX512_VNNI, else f32; bf16 needs AVX512_BF16; the GPU's\n"
            "                       network and the SGD steps are float)\n"
            "  --pass-forced 0|1    self-play passes one-move positions below the root without\n"
            "                       evaluating them (default %d; 0 for comparisons)\n"
            "  --pretrain PATH      a fresh run first trains on the Boardspace SGF games under PATH\n"
            "                       (each move a policy target, the result a value target)\n"
            "  --pretrain-games N   use at most N of them (default 3000; 0 = all)\n"
            "  --mpi                one rank of an MPI job: mpirun -np N [--hostfile H] tools/train --mpi ...\n"
            "                       (make train-mpi NP=N): rank 0 trains and plays, the others play\n"
            "  --help               this text\n"
            "With a usable GPU (ZZ_BACKEND=cpu to refuse it) the self-play network and the SGD steps run\n"
            "there, and the defaults grow to 6 blocks x 64 channels, 128 simulations, 512 games in flight.\n",
            d.sp.eval_cache, d.sp.edge_window, d.lr_tail, d.lr_tail_factor, d.rollout_mix, d.sp.gumbel_m, d.sp.ab_share, MCTS_AB_MAX_DEPTH, d.sp.ab_depth, d.sp.force_prior, d.sp.prune_boost, puct.tactic_margin, d.sp.tactic_prior, MCTS_FORCING_MAX_K, d.sp.quiet_nodes, d.sp.q_target,
            d.sp.pass_forced);
}

static int fail(const char *what, const char *why) {
    fprintf(stderr, "zertz: train: %s: %s\n", what, why);
    return 1;
}

/* The numeric options that set one field of tr_run_config, each with its range. */
typedef struct {
    const char *name;
    char kind;              /* 'i' an int field, 'd' a double field */
    double lo, hi;
    size_t offset;          /* of the field in tr_run_config */
} numeric_option;

/* The field's offset, and a compile error (an array of size -1) when it is not of the type T. */
#define FIELD_OF_TYPE(field, T)                                                               \
    (offsetof(tr_run_config, field) +                                                         \
     0 * sizeof(char[_Generic(((tr_run_config *)0)->field, T: 1, default: -1)]))
#define RUN_INT(name, lo, hi, field) { name, 'i', lo, hi, FIELD_OF_TYPE(field, int) }
#define RUN_DOUBLE(name, lo, hi, field) { name, 'd', lo, hi, FIELD_OF_TYPE(field, double) }
static const numeric_option NUMERIC_OPTIONS[] = {
    RUN_INT("--blocks", 1, 40, blocks),
    RUN_INT("--channels", 4, 512, channels),
    RUN_INT("--pretrain-games", 0, 1000000000, pretrain_games),
    RUN_INT("--teacher", 0, 100000000, sp.teacher_iters),
    RUN_INT("--gumbel", 0, 64, sp.gumbel_m),
    RUN_DOUBLE("--ab-share", 0, 1, sp.ab_share),
    RUN_INT("--ab-depth", 1, MCTS_AB_MAX_DEPTH, sp.ab_depth),
    RUN_DOUBLE("--ab-ms", 0, 60000, sp.ab_ms),
    RUN_INT("--pass-forced", 0, 1, sp.pass_forced),
    RUN_INT("--games-in-flight", 1, 100000, sp.games_in_flight),
    RUN_INT("--threads", 1, 256, sp.threads),
    RUN_INT("--eval-threads", 1, 64, sp.eval_threads),
    RUN_INT("--eval-cache", 0, MCTS_EVAL_CACHE_MAX, sp.eval_cache),
    RUN_INT("--edge-window", 0, ZZ_MAX_MOVES, sp.edge_window),
    RUN_INT("--sgd-threads-held", 0, 256, sgd_threads_held),
    RUN_INT("--batch", 1, 65536, batch),
    RUN_INT("--window", 100, 100000000, window),
    RUN_INT("--min-samples", 1, 100000000, min_samples),
    RUN_INT("--gen-steps", 1, 1000000000, gen_steps),
    RUN_INT("--eval-every", 0, 1000000, eval_every),
    RUN_INT("--eval-games", 2, 10000, eval_games),
    RUN_DOUBLE("--rollout-mix", 0, 1, rollout_mix),
    RUN_DOUBLE("--q-target", 0, 1, sp.q_target),
    RUN_DOUBLE("--aux-weight", 0, 100, aux_weight),
    RUN_DOUBLE("--force-prior", 0, 1000, sp.force_prior),
    RUN_INT("--prune-boost", 0, 1, sp.prune_boost),
    RUN_DOUBLE("--tactic-prior", 0, 1, sp.tactic_prior),
    RUN_INT("--tactic-run", 0, MCTS_FORCING_MAX_K, sp.tactic_run),
    RUN_INT("--quiet-leaves", 0, 4096, sp.quiet_nodes),
    RUN_DOUBLE("--lr", 1e-6, 10, lr),
    RUN_DOUBLE("--lr-tail", 0, 0.9, lr_tail),
    RUN_DOUBLE("--lr-tail-factor", 1e-4, 1, lr_tail_factor),
    RUN_DOUBLE("--train-ratio", 0.01, 1000, train_ratio),
    RUN_INT("--hold-batches", 1, 1000000, hold_batches),
    RUN_DOUBLE("--minutes", 0, 1e7, minutes),
};
#undef RUN_INT
#undef RUN_DOUBLE
#undef FIELD_OF_TYPE

/* A numeric option of the table at argv[*i]: 1 taken, 0 not one of them, -1 bad usage. */
static int numeric_option_at(int argc, char **argv, int *i, tr_run_config *c) {
    for (size_t k = 0; k < sizeof NUMERIC_OPTIONS / sizeof NUMERIC_OPTIONS[0]; k++) {
        const numeric_option *o = &NUMERIC_OPTIONS[k];
        if (strcmp(argv[*i], o->name)) continue;
        void *field = (char *)c + o->offset;
        if (o->kind == 'd') return cli_double_opt(TOOL, argc, argv, i, o->lo, o->hi, field) ? 1 : -1;
        return cli_int_opt(TOOL, argc, argv, i, (int)o->lo, (int)o->hi, field) ? 1 : -1;
    }
    return 0;
}

/* A path option (--out, --init, --pretrain) into dst of size cap: 1, or -1 bad usage. */
static int path_option(int argc, char **argv, int *i, char *dst, size_t cap) {
    const char *name = argv[*i], *v = cli_value(TOOL, argc, argv, i);
    if (!v) return -1;
    if (strlen(v) >= cap - 64) {          /* room for the run's own names below it */
        cli_bad(TOOL, name, "the path is too long (at most 447 characters)");
        return -1;
    }
    snprintf(dst, cap, "%s", v);
    return 1;
}

/* --selfplay-precision's value into c: 1, or -1 bad usage (also a precision this CPU lacks). */
static int precision_option(int argc, char **argv, int *i, tr_run_config *c) {
    const char *a = argv[*i], *v = cli_value(TOOL, argc, argv, i);
    nn_precision p;
    if (!v) return -1;
    if (nn_precision_parse(v, &p) != 0) { cli_bad(TOOL, a, "expected f32, bf16 or int8"); return -1; }
    if (!nn_precision_available(p)) {
        cli_bad(TOOL, a, p == NN_PREC_INT8 ? "int8 needs a CPU with " NN_INT8_NEEDS ", which this one lacks"
                                           : "bf16 needs a CPU with AVX512_BF16, which this one lacks");
        return -1;
    }
    c->sp.net_precision = p;
    return 1;
}

/* One option at argv[*i] (its value, if any, moved past): 1 taken, 0 not an option of ours,
 * -1 bad usage (the message printed: exit 2). */
static int option(int argc, char **argv, int *i, tr_run_config *c, int *sims, int *mpi) {
    const char *a = argv[*i];
    if (!strcmp(a, "--fresh")) { c->fresh = 1; return 1; }
    if (!strcmp(a, "--resume")) { c->resume = 1; c->require_run = 1; return 1; }
    if (!strcmp(a, "--quiet")) { c->quiet = 1; return 1; }
    if (!strcmp(a, "--mpi")) {
        if (!tr_mpi_available()) {
            cli_bad(TOOL, a, "this build has no MPI (mpicc was not found when it was built): install Open MPI "
                             "(apt-get install openmpi-bin libopenmpi-dev) and rebuild");
            return -1;
        }
        *mpi = 1;
        return 1;
    }
    if (!strcmp(a, "--selfplay-precision")) return precision_option(argc, argv, i, c);
    if (!strcmp(a, "--out")) return path_option(argc, argv, i, c->out, sizeof c->out);
    if (!strcmp(a, "--init")) return path_option(argc, argv, i, c->init, sizeof c->init);
    if (!strcmp(a, "--pretrain")) return path_option(argc, argv, i, c->pretrain, sizeof c->pretrain);
    if (!strcmp(a, "--rings")) {
        int rings;
        if (!cli_rings_opt(TOOL, argc, argv, i, &rings)) return -1;
        c->sp.board = zz_board_for_rings(rings)->kind;
        return 1;
    }
    if (!strcmp(a, "--blocks")) c->arch_given |= TR_ARCH_BLOCKS;
    if (!strcmp(a, "--channels")) c->arch_given |= TR_ARCH_CHANNELS;
    if (!strcmp(a, "--sims")) return cli_int_opt(TOOL, argc, argv, i, 2, 100000, sims) ? 1 : -1;
    if (!strcmp(a, "--steps")) return cli_long_opt(TOOL, argc, argv, i, 0, 1000000000000L, &c->max_steps) ? 1 : -1;
    if (!strcmp(a, "--seed")) return cli_u64_opt(TOOL, argc, argv, i, UINT64_MAX, &c->seed) ? 1 : -1;
    return numeric_option_at(argc, argv, i, c);
}

/* The defaults: the embedded CPU configuration, larger with a usable GPU (*gpu_eval_threads: the
 * evaluator threads a GPU wants, chosen after the options). */
static void defaults(tr_run_config *c, int *gpu_eval_threads) {
    tr_run_config_default(c);
    /* With a usable GPU the self-play network runs there (src/cuda): a larger default. */
    char backend[160];
    bool gpu = zz_cuda_select(backend, sizeof backend);
    *gpu_eval_threads = 0;
    if (gpu) {
        c->blocks = 6;
        c->channels = 64;
        c->sp.sims_full = 128;
        c->sp.sims_fast = 32;
        /* Measured on an H200 with 16 cores (src/cuda/NOTES.md, tools/bench_train --gpu): one
         * evaluator thread fed batches of 256 from 512 games at 79k evaluations/s; 4096 games,
         * 12 search threads and 4 evaluator threads (a GPU net each) at batches of 512: 246k. */
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        bool big = cores >= 8;
        c->sp.games_in_flight = big ? 4096 : 512;
        c->sp.max_batch = big ? 512 : 256;
        *gpu_eval_threads = big ? 4 : 1;
        c->sp.threads = cores > *gpu_eval_threads + 1 ? (int)cores - *gpu_eval_threads : 1;
        /* A backlog of 256 batches (2.5 s of SGD): on an H200, ×1.38 the steps and ×1.43 the games
         * a minute of a backlog of 8, the loop idle 7–13 % of its time instead of a third
         * (src/cuda/NOTES.md, the sixth GPU run); 64 was never measured there. */
        c->hold_batches = 256;
        snprintf(c->out, sizeof c->out, "runs/gpu");
    }
    /* int8 self-play where the CPU has it: a twin run at equal time trained a stronger network
     * than float (src/train/README.md, the ablation table); the GPU's network is float anyway. */
    if (!gpu && nn_precision_available(NN_PREC_INT8)) c->sp.net_precision = NN_PREC_INT8;
    c->sp.eval_threads = 0;         /* not given yet: chosen after the options */
}

/* Options list[1..n) into c.  0; -1 after --help (printed); 2 on bad usage (printed). */
static int parse_list(int n, char **list, tr_run_config *c, int *sims, int *mpi) {
    for (int i = 1; i < n; i++) {
        if (cli_is_help(list[i])) { usage(stdout); return -1; }
        int r = option(n, list, &i, c, sims, mpi);
        if (r < 0) return 2;
        if (r == 0) { cli_unknown(TOOL, list[i]); return 2; }
    }
    return 0;
}

/* Resuming a run that saved its recipe (train/recipe.h): c again from the defaults (base), the
 * recipe first, then the command line, so that options given now override it.  0, or
 * parse_list's -1 / 2 (message printed). */
static int with_recipe(int argc, char **argv, const tr_run_config *base, tr_run_config *c, int *sims, int *mpi) {
    char state[600], err[600];
    snprintf(state, sizeof state, "%s/run.state", c->out);
    if (c->fresh || access(state, F_OK) != 0) return 0;
    char **saved;
    int nsaved;
    if (tr_recipe_load(c->out, &saved, &nsaved, err, sizeof err)) return fail(c->out, err) + 1;
    if (!nsaved) return 0;
    char **all = malloc(sizeof *all * (size_t)(nsaved + argc));
    if (!all) { tr_recipe_free(saved, nsaved); return fail(c->out, "out of memory") + 1; }
    char out[sizeof c->out];
    snprintf(out, sizeof out, "%s", c->out);
    all[0] = argv[0];
    printf("zertz train: %s: resuming with its recipe (%s; options given now override it):", c->out, TR_RECIPE_FILE);
    for (int i = 0; i < nsaved; i++) { all[1 + i] = saved[i]; printf(" %s", saved[i]); }
    printf("\n");
    for (int i = 1; i < argc; i++) all[nsaved + i] = argv[i];
    *sims = *mpi = 0;
    *c = *base;
    int rc = parse_list(nsaved + argc, all, c, sims, mpi);
    free(all);
    tr_recipe_free(saved, nsaved);
    if (rc == 2) fail(out, "the options of " TR_RECIPE_FILE " and the command line above do not parse: mend or delete it");
    return rc;
}

int main(int argc, char **argv) {
    nn_omp_single_thread(argv);   /* our threads fill the cores: OpenMP on one (omp_env.h) */
    tr_run_config base, c;
    int sims = 0, mpi = 0, mpi_status = 0, gpu_eval_threads;
    defaults(&base, &gpu_eval_threads);
    c = base;
    int rc = parse_list(argc, argv, &c, &sims, &mpi);
    if (!rc) rc = with_recipe(argc, argv, &base, &c, &sims, &mpi);
    if (rc) return rc < 0 ? 0 : rc;
    if (tr_recipe_from_args(argc, argv, c.recipe, sizeof c.recipe))
        return cli_bad(TOOL, "options", "too long to keep as the run's recipe (train/recipe.h)");
    /* On a CPU the network is most of self-play's work: a second evaluator thread puts a second
     * core on it (src/train/README.md).  On a GPU, evaluator threads encode batches and keep
     * several in flight (above); MPI ranks share their machine. */
    if (c.sp.eval_threads == 0)
        c.sp.eval_threads = mpi ? 1 : gpu_eval_threads ? gpu_eval_threads : sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
    if (c.require_run && c.fresh)
        return cli_bad(TOOL, "--resume", "contradicts --fresh (--resume continues the run in --out, --fresh deletes it)");
    if (c.sp.tactic_run == 1 || (c.sp.tactic_run >= 2 && !(c.sp.tactic_prior > 0)))
        return cli_bad(TOOL, "--tactic-run", "needs 2 or more, and --tactic-prior P > 0 (the prior the runs' first placements get)");
    if (c.sp.prune_boost && !(c.sp.force_prior > 0))
        return cli_bad(TOOL, "--prune-boost", "needs --force-prior X > 0 (the boost whose visits it prunes)");
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
           "%lld network evaluations (%.0f%% from the cache); resigned %lld, false resignations %lld/%lld calibration games (%.0f%%)%s\n",
           c.out, r.steps, r.generation, r.best_generation, r.games, r.session_games, r.session_samples, r.evals,
           r.evals > 0 ? 100.0 * (double)r.cache_hits / (double)r.evals : 0.0,
           r.sp.resigned, r.sp.false_resign, r.sp.calib_would_resign, 100 * fr,
           g_stop ? "; stopped by signal: run again to resume" : "");
    if (r.session_steps)
        printf("zertz train: %ld of this session's %ld SGD steps (%.0f%%) ran while self-play waited for training%s\n",
               r.held_steps, r.session_steps, 100.0 * (double)r.held_steps / (double)r.session_steps,
               c.sgd_threads_held > 1 ? " (on --sgd-threads-held threads)" : "");
    if (r.session_steps) {      /* where the loop's time went: what sets a run's pace */
        double sg = r.time.sgd, steps = (double)r.session_steps, per = 1000.0 * sg / steps;
        char beside[96] = "";
        if (r.time.build_beside > 0)
            snprintf(beside, sizeof beside, "; %.2f more built beside the step", 1000.0 * r.time.build_beside / steps);
        printf("zertz train: the loop's %.0f s: SGD %.1f s (%.2f ms a step, of which %.2f building the batch on the "
               "host%s), refreshes %.1f s (%ld), generations %.1f s (%ld), collecting games %.1f s, waiting %.1f s, "
               "reporting %.1f s\n",
               r.seconds, sg, per, 1000.0 * r.time.build / steps, beside, r.time.refresh, r.time.refreshes,
               r.time.generation, r.time.generations, r.time.collect, r.time.wait, r.time.report);
    }
    if (r.sp.ab_games)
        printf("zertz train: against the alpha-beta opponent (depth %d): %lld games this session, the network "
               "won %lld, drew %lld, lost %lld\n", c.sp.ab_depth, r.sp.ab_games, r.sp.ab_wins, r.sp.ab_draws,
               r.sp.ab_games - r.sp.ab_wins - r.sp.ab_draws);
    if (mpi && g_stop) { fflush(NULL); _exit(mpi_status); }
    return mpi_status;
}
