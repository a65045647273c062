/* test_train_run.c — whole training runs on tiny configurations: a run stopped and resumed keeps
 * every flushed sample exactly once and continues its step count; a run refuses to clobber an
 * existing one; a run drives the other ranks' interface (tr_remote) as the MPI hub expects; and short trainings make networks that beat a random player more often than their
 * untrained starts do (the end-to-end test that can fail). */
#include "mcts/match.h"
#include "cuda/train_backend.h"
#include "nn/checkpoint.h"
#include "nn/omp_env.h"
#include "train/replay.h"
#include "train/run.h"
#include "train/atomic_file.h"
#include "train/runstate.h"
#include "helpers.h"
#include "nn/int8.h"
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

static char dir[256];

/* Remove the test's run folder (dir) and everything in it. */
static void remove_dir(void) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static void fresh_dir(const char *tag) {
    snprintf(dir, sizeof dir, "/tmp/zz-train-run-%s-%d", tag, (int)getpid());
    remove_dir();
}

static void tiny(tr_run_config *c) {
    tr_run_config_default(c);
    snprintf(c->out, sizeof c->out, "%s", dir);
    c->blocks = 1;
    c->channels = 8;
    c->sp.games_in_flight = 8;
    c->sp.threads = 1;
    c->sp.sims_full = 8;
    c->sp.sims_fast = 4;
    c->sp.max_nodes = 1u << 12;
    c->sp.max_edges = 1u << 18;
    c->sp.ply_cap = 120;
    c->batch = 32;
    c->min_samples = 64;
    c->train_ratio = 1.0;
    c->window = 1000000;
    c->gen_steps = 10;
    c->eval_every = 0;
    c->quiet = 1;
}

/* Samples in the replay chunks on disk (the window is larger than everything written). */
static long long samples_on_disk(long long *total) {
    tr_replay r;
    char err[256], p[400];
    snprintf(p, sizeof p, "%s/replay", dir);
    ck_assert_msg(tr_replay_open(&r, p, ZZ_B37, 1000000, err, sizeof err) == 0, "%s", err);
    long long n = r.count;
    *total = r.total;
    tr_replay_close(&r, err, sizeof err);
    return n;
}

/* tools/run_check on the run in dir (make soak's checker): passes when ok, else fails naming what. */
static void run_check_sees(bool ok, const char *what) {
    char args[300], out[4096], err[4096];
    snprintf(args, sizeof args, "%s --gen-steps 10", dir);
    int rc = th_run_tool("test_train_run", "run_check", args, 60, out, sizeof out, err, sizeof err);
    if (rc < 0) return;                             /* not built: said loudly by th_run_tool */
    ck_assert_msg(ok ? rc == 0 : rc == 1, "run_check on %s: exit %d\n%s%s", what, rc, out, err);
    if (!ok) ck_assert_msg(strstr(err, "chunk") != NULL, "run_check on %s names no chunk: %s", what, err);
}

/* Flip one byte in the middle of the run's first replay chunk. */
static void damage_a_chunk(void) {
    char p[600];
    snprintf(p, sizeof p, "%s/replay", dir);
    DIR *d = opendir(p);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    while ((e = readdir(d)) && strncmp(e->d_name, "chunk-", 6)) {}
    ck_assert_ptr_nonnull(e);
    snprintf(p, sizeof p, "%s/replay/%s", dir, e->d_name);
    closedir(d);
    FILE *f = fopen(p, "r+b");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, n / 2, SEEK_SET);
    int b = fgetc(f);
    fseek(f, n / 2, SEEK_SET);
    fputc(b ^ 0x5a, f);
    fclose(f);
}

START_TEST(stop_and_resume) {
    fresh_dir("resume");
    tr_run_config c;
    tiny(&c);
    c.max_steps = 20;
    tr_run_result r;
    char err[512];
    ck_assert_msg(tr_run(&c, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.steps, 20);
    ck_assert_int_eq(r.resumed, 0);
    ck_assert_int_eq(r.generation, 2);
    long long total1;
    long long n1 = samples_on_disk(&total1);
    ck_assert_int_eq(n1, total1);                  /* nothing lost, nothing duplicated */
    ck_assert_int_eq(total1, r.samples);
    ck_assert_int_ge(total1, 64);
    tr_runstate st;
    char p[400];
    snprintf(p, sizeof p, "%s/run.state", dir);
    ck_assert_msg(tr_runstate_load(p, &st, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(st.steps, 20);
    ck_assert_int_eq(st.trained, 20 * 32);
    ck_assert_int_eq(st.samples, total1);

    /* not resuming and not fresh: refuse */
    c.resume = 0;
    ck_assert_int_ne(tr_run(&c, &r, err, sizeof err), 0);
    ck_assert(strstr(err, "--fresh") != NULL);

    /* resume */
    c.resume = 1;
    c.max_steps = 40;
    ck_assert_msg(tr_run(&c, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.resumed, 1);
    ck_assert_int_eq(r.steps, 40);
    ck_assert_int_eq(r.generation, 4);
    long long total2;
    long long n2 = samples_on_disk(&total2);
    ck_assert_int_eq(n2, total2);
    ck_assert_int_ge(total2, total1);
    ck_assert_int_eq(total2, r.samples);
    ck_assert_msg(tr_runstate_load(p, &st, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(st.steps, 40);
    ck_assert_int_eq(st.samples, total2);
    run_check_sees(true, "the run after its resume");
    damage_a_chunk();
    run_check_sees(false, "a replay chunk with a flipped byte");

    /* --fresh starts over */
    c.fresh = 1;
    c.max_steps = 5;
    ck_assert_msg(tr_run(&c, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.resumed, 0);
    ck_assert_int_eq(r.steps, 5);
    remove_dir();
}
END_TEST

/* run.state: a damaged value (not a number, negative, a fraction where a count belongs) or a
 * missing steps/generation line is refused, never read as 0 (a resume would cut the logs to it). */
START_TEST(runstate_refuses_damaged_values) {
    fresh_dir("state");
    mkdir(dir, 0755);
    char p[400], err[512];
    snprintf(p, sizeof p, "%s/run.state", dir);
    tr_runstate st = { .steps = 1250, .trained = 160000, .games = 900, .samples = 40000, .generation = 5,
                       .best_generation = 4, .best_rating = -12.5, .seconds = 61.5, .board = 0, .blocks = 4, .channels = 32 };
    ck_assert_msg(tr_runstate_save(p, &st, err, sizeof err) == 0, "%s", err);
    tr_runstate got;
    ck_assert_msg(tr_runstate_load(p, &got, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(got.steps, 1250);
    ck_assert_int_eq(got.generation, 5);
    ck_assert_double_eq_tol(got.best_rating, -12.5, 1e-9);
    static const char *const damage[][2] = {
        { "generation 5", "generation x5" }, { "steps 1250", "steps 12.5" }, { "games 900", "games -900" },
        { "seconds 61.5", "seconds nan" }, { "generation 5\n", "" }, { "steps 1250\n", "" },
        { "channels 32", "channels 1e300" },
    };
    for (unsigned i = 0; i < sizeof damage / sizeof *damage; i++) {
        ck_assert_msg(tr_runstate_save(p, &st, err, sizeof err) == 0, "%s", err);
        char text[1024] = "", out[1100];
        FILE *f = fopen(p, "r");
        ck_assert_ptr_nonnull(f);
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = 0;
        fclose(f);
        char *at = strstr(text, damage[i][0]);
        ck_assert_ptr_nonnull(at);
        snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text, damage[i][1], at + strlen(damage[i][0]));
        f = fopen(p, "w");
        fputs(out, f);
        fclose(f);
        ck_assert_msg(tr_runstate_load(p, &got, err, sizeof err) != 0, "damage %u accepted", i);
        ck_assert_msg(strstr(err, "damaged"), "%s", err);
    }
}
END_TEST

/* The learning-rate tail: the last lr_tail of the session's budget, in minutes or in steps
 * (counted from the session's first step), hand-computed boundaries. */
START_TEST(lr_tail_boundaries) {
    tr_run_config c;
    tr_run_config_default(&c);
    ck_assert(c.lr_tail > 0 && c.lr_tail_factor < 1);       /* on by default */
    c.lr_tail = 0.1;
    ck_assert(!tr_run_in_lr_tail(&c, 1e9, 1000000, 0));      /* no budget: never */
    c.minutes = 10;                                          /* tail from 540 s */
    ck_assert(!tr_run_in_lr_tail(&c, 539.9, 0, 0));
    ck_assert(tr_run_in_lr_tail(&c, 540.0, 0, 0));
    c.minutes = 0;
    c.max_steps = 1000;                                      /* from step 0: tail from step 900 */
    ck_assert(!tr_run_in_lr_tail(&c, 0, 899, 0));
    ck_assert(tr_run_in_lr_tail(&c, 0, 900, 0));
    ck_assert(!tr_run_in_lr_tail(&c, 0, 949, 500));          /* a session resumed at 500: from 950 */
    ck_assert(tr_run_in_lr_tail(&c, 0, 950, 500));
    c.minutes = 10;                                          /* both: whichever comes first */
    ck_assert(tr_run_in_lr_tail(&c, 600, 600, 500));
    ck_assert(tr_run_in_lr_tail(&c, 1, 960, 500));
    c.lr_tail = 0;                                           /* off */
    ck_assert(!tr_run_in_lr_tail(&c, 1e9, 1000, 0));
}
END_TEST

/* A run of 20 steps with the tail at half: its last step trains at lr × factor; with no tail at lr. */
START_TEST(lr_tail_lowers_the_last_steps) {
    fresh_dir("tail");
    tr_run_config c;
    tiny(&c);
    c.max_steps = 20;
    c.lr_warmup = 0;
    c.lr = 0.01;
    c.lr_tail = 0.5;
    c.lr_tail_factor = 0.25;
    tr_run_result r;
    char err[512];
    ck_assert_msg(tr_run(&c, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.steps, 20);
    ck_assert_double_eq_tol(r.last_lr, 0.0025, 1e-12);
    c.fresh = 1;
    c.lr_tail = 0;
    ck_assert_msg(tr_run(&c, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_double_eq_tol(r.last_lr, 0.01, 1e-12);
    remove_dir();
}
END_TEST

/* --sgd-threads-held: a run far behind its ratio (self-play held for most steps) counts its held
 * steps among the session's, and leaves the caller's OpenMP threads as they were. */
START_TEST(sgd_threads_held_counts_and_restores) {
    fresh_dir("held");
    tr_run_config c;
    tiny(&c);
    c.max_steps = 30;
    c.train_ratio = 50;                 /* 50 trained per generated: training is always behind */
    c.hold_batches = 8;                 /* ... by more than 8 batches once the buffer is ready */
    c.sgd_threads_held = 2;
    int outside = nn_omp_threads();
    nn_omp_set_threads(1);              /* so that held steps do widen, whatever OMP_NUM_THREADS says */
    int before = nn_omp_threads();
    tr_run_result r;
    char err[512];
    ck_assert_msg(tr_run(&c, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.steps, 30);
    ck_assert_int_eq(r.session_steps, 30);
    ck_assert_msg(r.held_steps > 0 && r.held_steps <= 30, "held steps %ld of 30", r.held_steps);
    ck_assert_int_eq(nn_omp_threads(), before);
    /* where the loop's time went: every part measured, none larger than the session */
    ck_assert_msg(r.time.sgd > 0 && r.time.build > 0 && r.time.build <= r.time.sgd, "sgd %g s, build %g s", r.time.sgd,
                  r.time.build);
    double parts = r.time.sgd + r.time.refresh + r.time.generation + r.time.collect + r.time.wait + r.time.report;
    ck_assert_msg(parts <= r.seconds + 1e-3, "the parts (%g s) exceed the session (%g s)", parts, r.seconds);
    ck_assert_int_eq(r.time.generations, 30 / c.gen_steps);
    c.max_steps = 40;                   /* resumed: the session's own steps only */
    ck_assert_msg(tr_run(&c, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.session_steps, 10);
    ck_assert_int_eq(nn_omp_threads(), before);
    nn_omp_set_threads(outside);
    remove_dir();
}
END_TEST

/* Two checkpoints' parameters differ (the steps between them reached the file). */
static bool params_differ(const char *a, const char *b) {
    char err[256];
    nn_model *x = nn_checkpoint_load(a, NN_F32, NULL, err, sizeof err), *y = nn_checkpoint_load(b, NN_F32, NULL, err, sizeof err);
    ck_assert_msg(x && y, "%s", err);
    bool differ = x->nparams != y->nparams || memcmp(x->param, y->param, sizeof(float) * x->nparams) != 0;
    nn_model_free(x);
    nn_model_free(y);
    return differ;
}

/* SGD on a training backend (the emulated GPU here, the CUDA one in a GPU run): the run's steps
 * go there, each next batch is built beside the step, the weights come back from the backend for
 * the evaluators' refreshes and for every checkpoint, and a resumed run trains on from them. */
START_TEST(run_trains_on_a_backend) {
    fresh_dir("backend");
    tr_run_config c;
    tiny(&c);
    c.max_steps = 30;
    c.sgd_backend = zzt_emu_backend();
    tr_run_result r;
    char err[512], g1[320], g2[320], g3[320];
    ck_assert_msg(tr_run(&c, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.steps, 30);
    ck_assert_msg(r.time.build_beside > 0, "no batch was built beside a step");
    ck_assert_msg(r.time.refreshes > 0, "the evaluators never got the backend's weights");
    snprintf(g1, sizeof g1, "%s/gen-0001.ckpt", dir);
    snprintf(g2, sizeof g2, "%s/gen-0002.ckpt", dir);
    snprintf(g3, sizeof g3, "%s/gen-0003.ckpt", dir);
    ck_assert_msg(params_differ(g1, g2) && params_differ(g2, g3), "a checkpoint missed the backend's steps");
    c.max_steps = 40;
    ck_assert_msg(tr_run(&c, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.session_steps, 10);
    snprintf(g1, sizeof g1, "%s/gen-0004.ckpt", dir);
    ck_assert_msg(params_differ(g3, g1), "the resumed run's steps did not reach its checkpoint");
    remove_dir();
}
END_TEST

/* --hold-batches: the same run far behind its ratio never holds self-play when the backlog it
 * may run up is larger than anything the run can fall behind by. */
START_TEST(hold_batches_sets_the_backlog) {
    fresh_dir("holdb");
    tr_run_config c;
    tiny(&c);
    c.max_steps = 20;
    c.train_ratio = 50;
    c.hold_batches = 1000000;
    tr_run_result r;
    char err[512];
    ck_assert_msg(tr_run(&c, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.session_steps, 20);
    ck_assert_int_eq(r.held_steps, 0);
    remove_dir();
}
END_TEST

/* --init: a fresh run starts from given weights (their architecture, whatever blocks/channels
 * say unless given), refuses a folder holding a run, carries a network of another board over
 * (transfer.h), grows it to a larger --channels (grow.h) and refuses a smaller one. */
START_TEST(init_from_weights) {
    fresh_dir("init");
    char err[512], src[400];
    snprintf(src, sizeof src, "%s-src.ckpt", dir);
    nn_config nc;
    nn_config_default(&nc, ZZ_B37);
    nc.blocks = 2;
    nc.channels = 12;
    nn_model *m = nn_model_create(&nc, NN_F32, 77, err, sizeof err);
    ck_assert_ptr_nonnull(m);
    uint64_t rng = 5;
    th_perturb_model(m, &rng);
    ck_assert_int_eq(nn_checkpoint_save(src, m, 1234, false, err, sizeof err), 0);

    tr_run_config c;
    tiny(&c);                                   /* says 1 x 8: the weights' 2 x 12 wins */
    snprintf(c.init, sizeof c.init, "%s", src);
    c.max_steps = 3;
    tr_run_result r;
    ck_assert_msg(tr_run(&c, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.steps, 3);
    ck_assert_int_eq(r.resumed, 0);
    char g0[400];
    snprintf(g0, sizeof g0, "%s/gen-0000.ckpt", dir);
    long step = -1;
    nn_model *got = nn_checkpoint_load(g0, NN_F32, &step, err, sizeof err);
    ck_assert_msg(got != NULL, "%s", err);
    ck_assert_int_eq(got->cfg.blocks, 2);
    ck_assert_int_eq(got->cfg.channels, 12);
    ck_assert_uint_eq(got->nparams, m->nparams);
    ck_assert(memcmp(got->param, m->param, m->nparams * m->esize) == 0);     /* generation 0 = the weights */
    nn_model_free(got);
    snprintf(g0, sizeof g0, "%s/latest.ckpt", dir);
    ck_assert_ptr_nonnull(got = nn_checkpoint_load(g0, NN_F32, NULL, err, sizeof err));
    ck_assert(memcmp(got->param, m->param, m->nparams * m->esize) != 0);     /* and it trained */
    nn_model_free(got);

    ck_assert_int_ne(tr_run(&c, &r, err, sizeof err), 0);      /* the folder holds a run now */
    ck_assert_msg(strstr(err, "--fresh") != NULL, "%s", err);
    c.fresh = 1;                                                /* --fresh --init: allowed */
    ck_assert_msg(tr_run(&c, &r, err, sizeof err) == 0, "%s", err);
    snprintf(c.init, sizeof c.init, "%s/latest.ckpt", dir);      /* --init inside the run --fresh deletes */
    nn_model *last = nn_checkpoint_load(c.init, NN_F32, NULL, err, sizeof err);
    ck_assert_ptr_nonnull(last);
    ck_assert_msg(tr_run(&c, &r, err, sizeof err) == 0, "%s", err);
    snprintf(g0, sizeof g0, "%s/gen-0000.ckpt", dir);
    ck_assert_ptr_nonnull(got = nn_checkpoint_load(g0, NN_F32, NULL, err, sizeof err));
    ck_assert(memcmp(got->param, last->param, last->nparams * last->esize) == 0);  /* read before the deletion */
    nn_model_free(got);
    nn_model_free(last);
    snprintf(c.init, sizeof c.init, "%s", src);

    nn_config_default(&nc, ZZ_B48);                             /* another board: carried over */
    nc.blocks = 1;
    nc.channels = 8;
    nn_model *m48 = nn_model_create(&nc, NN_F32, 1, err, sizeof err);
    ck_assert_int_eq(nn_checkpoint_save(src, m48, 0, false, err, sizeof err), 0);
    ck_assert_msg(tr_run(&c, &r, err, sizeof err) == 0, "%s", err);
    snprintf(g0, sizeof g0, "%s/gen-0000.ckpt", dir);
    ck_assert_ptr_nonnull(got = nn_checkpoint_load(g0, NN_F32, NULL, err, sizeof err));
    ck_assert_int_eq(got->cfg.board, ZZ_B37);
    ck_assert_int_eq(got->cfg.channels, 8);
    const nn_view *a = nn_model_view(got, "stem.conv.w"), *b = nn_model_view(m48, "stem.conv.w");
    ck_assert(a && b && a->count == b->count);
    ck_assert(memcmp((float *)got->param + a->offset, (float *)m48->param + b->offset, a->count * sizeof(float)) == 0);
    nn_model_free(got);
    snprintf(c.init, sizeof c.init, "%s", src);                 /* --channels 12 on a 1 x 8: grown */
    c.arch_given = TR_ARCH_CHANNELS;
    c.channels = 12;
    ck_assert_msg(tr_run(&c, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_ptr_nonnull(got = nn_checkpoint_load(g0, NN_F32, NULL, err, sizeof err));
    ck_assert_int_eq(got->cfg.blocks, 1);
    ck_assert_int_eq(got->cfg.channels, 12);
    a = nn_model_view(got, "block0.conv1.w");                   /* w[7][12][12]: the old 8 x 8 corner */
    b = nn_model_view(m48, "block0.conv1.w");
    ck_assert(a && b && b->count == 7 * 8 * 8 && a->count == 7 * 12 * 12);
    ck_assert(((float *)got->param)[a->offset + 12 * 12 + 12 + 3] == ((float *)m48->param)[b->offset + 8 * 8 + 8 + 3]);
    nn_model_free(got);
    c.arch_given = TR_ARCH_BLOCKS | TR_ARCH_CHANNELS;           /* smaller than the weights: refused */
    c.channels = 4;
    ck_assert_int_ne(tr_run(&c, &r, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "cannot grow into 1 x 4") != NULL, "%s", err);
    c.arch_given = 0;
    c.channels = 8;
    snprintf(c.init, sizeof c.init, "%s.missing", src);          /* a missing file: a clear error */
    ck_assert_int_ne(tr_run(&c, &r, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "--init") != NULL, "%s", err);
    nn_model_free(m48);
    nn_model_free(m);
    unlink(src);
    remove_dir();
}
END_TEST

/* --aux-weight: a new network (random or --init's) gets the captures head and trains it (SGD on
 * the CPU even when a backend is given), the replay keeps the games' final captures, --init's
 * weights come through unchanged beside the new head, and a run without the head is not resumed
 * with it; tools/fit trains a fresh network with the head on the run's replay folder. */
START_TEST(captures_head_in_a_run) {
    fresh_dir("aux");
    char err[512], path[400], src[400];
    tr_run_config c;
    tiny(&c);
    c.aux_weight = 0.5;
    c.max_steps = 12;
    c.sgd_backend = zzt_emu_backend();          /* refused for the head's loss: the CPU trains */
    tr_run_result r;
    ck_assert_msg(tr_run(&c, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.steps, 12);
    snprintf(path, sizeof path, "%s/gen-0000.ckpt", dir);
    nn_model *g0 = nn_checkpoint_load(path, NN_F32, NULL, err, sizeof err);
    snprintf(path, sizeof path, "%s/latest.ckpt", dir);
    nn_model *last = nn_checkpoint_load(path, NN_F32, NULL, err, sizeof err);
    ck_assert(g0 && last && g0->cfg.aux_outputs == NN_AUX && last->cfg.aux_outputs == NN_AUX);
    const nn_view *h0 = &g0->views[g0->aux_fc], *h1 = &last->views[last->aux_fc];
    ck_assert_msg(memcmp((float *)g0->param + h0->offset, (float *)last->param + h1->offset, h0->count * sizeof(float)),
                  "the captures head did not train");
    nn_model_free(g0);
    nn_model_free(last);
    tr_replay rb;
    snprintf(path, sizeof path, "%s/replay", dir);
    ck_assert_msg(tr_replay_open(&rb, path, ZZ_B37, 1000000, err, sizeof err) == 0, "%s", err);
    int known = 0;
    for (int i = 0; i < rb.count; i++) known += tr_replay_at(&rb, i)->fin.known;
    ck_assert_msg(known > 0, "no sample of %d kept its game's final captures", rb.count);
    int count = rb.count;
    tr_replay_close(&rb, err, sizeof err);
    /* tools/fit on that folder: a fresh network with the head, its held-out losses, the folder
     * left as it was; too few samples for the batch asked: exit 1, saying so */
    char args[700], out[8192], ferr[2048];
    snprintf(args, sizeof args, "--replay %s --rings 37 --steps 4 --eval-every 2 --batch 16 --aux-weight 1", path);
    int st = th_run_tool("test_train_run", "fit", args, 60, out, sizeof out, ferr, sizeof ferr);
    if (st >= 0) {
        ck_assert_msg(st == 0, "fit: status %d: %s", st, ferr);
        ck_assert_msg(strstr(out, "step 2 train p") && strstr(out, "step 4 train p"), "%s", out);
        double hp, hv, ha;
        const char *line = strstr(out, "step 4 train");
        ck_assert_msg(line && sscanf(strstr(line, "held-out"), "held-out p %lf v %lf a %lf", &hp, &hv, &ha) == 3, "%s", out);
        ck_assert(hp > 0 && hv >= 0 && ha >= 0);
        ck_assert_msg(tr_replay_open(&rb, path, ZZ_B37, 1000000, err, sizeof err) == 0, "%s", err);
        ck_assert_int_eq(rb.count, count);
        tr_replay_close(&rb, err, sizeof err);
        snprintf(args, sizeof args, "--replay %s --rings 37 --steps 4 --batch 65536", path);
        st = th_run_tool("test_train_run", "fit", args, 60, out, sizeof out, ferr, sizeof ferr);
        ck_assert_msg(st == 1 && strstr(ferr, "too few"), "status %d: %s", st, ferr);
    }

    nn_config nc;                               /* --init: the head added, the rest as it was */
    nn_config_default(&nc, ZZ_B37);
    nc.blocks = 1;
    nc.channels = 8;
    nn_model *m = nn_model_create(&nc, NN_F32, 31, err, sizeof err);
    ck_assert_ptr_nonnull(m);
    snprintf(src, sizeof src, "%s-src.ckpt", dir);
    ck_assert_int_eq(nn_checkpoint_save(src, m, 0, false, err, sizeof err), 0);
    snprintf(c.init, sizeof c.init, "%s", src);
    c.fresh = 1;
    c.max_steps = 2;
    c.sgd_backend = NULL;
    ck_assert_msg(tr_run(&c, &r, err, sizeof err) == 0, "%s", err);
    snprintf(path, sizeof path, "%s/gen-0000.ckpt", dir);
    ck_assert_ptr_nonnull(g0 = nn_checkpoint_load(path, NN_F32, NULL, err, sizeof err));
    ck_assert_int_eq(g0->cfg.aux_outputs, NN_AUX);
    for (int v = 0; v < m->nviews; v++) {
        const nn_view *a = &m->views[v], *b = nn_model_view(g0, a->name);
        const float *fa = (const float *)(a->stat ? m->stats : m->param) + a->offset;
        const float *fb = (const float *)(b->stat ? g0->stats : g0->param) + b->offset;
        ck_assert_msg(!memcmp(fa, fb, a->count * sizeof(float)), "%s changed", a->name);
    }
    nn_model_free(g0);

    c.aux_weight = 0;                           /* a run without the head ... */
    ck_assert_msg(tr_run(&c, &r, err, sizeof err) == 0, "%s", err);
    c.fresh = 0;
    c.init[0] = 0;
    c.aux_weight = 0.5;                         /* ... is not resumed with it */
    c.max_steps = 4;
    ck_assert_int_ne(tr_run(&c, &r, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "captures head"), "%s", err);
    nn_model_free(m);
    unlink(src);
    remove_dir();
}
END_TEST

/* tools/train --selfplay-precision: a bad name is refused with status 2 before anything runs, and
 * so is int8 on a CPU without AVX2 or AVX512_VNNI (elsewhere the library's refusal is checked by
 * test_nn_lowp); --help lists it. */
START_TEST(train_tool_selfplay_precision) {
    char out[8192], err[1024];
    int st = th_run_tool("test_train_run", "train", "--selfplay-precision f16 --out /nonexistent/zz", 20, out, sizeof out,
                         err, sizeof err);
    if (st < 0) return;
    ck_assert_msg(st == 2 && strstr(err, "zertz: train: --selfplay-precision: expected f32, bf16 or int8"), "%d %s", st, err);
    ck_assert_msg(out[0] == 0, "it started: %s", out);
    if (!nn_int8_available()) {
        st = th_run_tool("test_train_run", "train", "--selfplay-precision int8 --out /nonexistent/zz", 20, out,
                         sizeof out, err, sizeof err);
        ck_assert_msg(st == 2 && strstr(err, NN_INT8_NEEDS), "%d %s", st, err);
    }
    ck_assert_int_eq(th_run_tool("test_train_run", "train", "--help", 20, out, sizeof out, err, sizeof err), 0);
    ck_assert_msg(strstr(out, "--selfplay-precision f32|bf16|int8"), "%s", out);
    char args[700] = "--out /nonexistent/";                  /* a path too long is refused, not cut */
    memset(args + strlen(args), 'a', 480);
    st = th_run_tool("test_train_run", "train", args, 20, out, sizeof out, err, sizeof err);
    ck_assert_msg(st == 2 && strstr(err, "--out: the path is too long"), "%d %s", st, err);
}
END_TEST

/* tools/train keeps a new run's recipe in run.args (train/recipe.h) and resumes with it: the
 * resumed session searches and learns as the first did, options given again override it, the
 * session's own options (where, how long, this machine's threads) are not kept, sessions.log has a
 * line for each session with the recipe options it gave, and a damaged run.args stops the resume
 * with status 2 naming it. */
START_TEST(train_tool_resumes_with_its_recipe) {
    fresh_dir("recipe");
    char out[16384], err[2048], args[1200], path[700];
    const char *small = "--games-in-flight 4 --threads 1 --eval-threads 1 --window 200 --min-samples 20";
    snprintf(args, sizeof args, "--fresh --out %s --sims 40 --lr 0.004 --eval-every 0 --gen-steps 5 %s --minutes 0.02", dir,
             small);
    int st = th_run_tool("test_train_run", "train", args, 60, out, sizeof out, err, sizeof err);
    if (st < 0) return;
    ck_assert_msg(st == 0, "%d %s", st, err);
    snprintf(path, sizeof path, "%s/run.args", dir);
    size_t len;
    char why[256], *rec = tr_read_file(path, 1 << 16, &len, why, sizeof why);
    ck_assert_msg(rec, "%s", why);
    ck_assert_msg(!strcmp(rec, "--sims\n40\n--lr\n0.004\n--eval-every\n0\n--gen-steps\n5\n--window\n200\n"
                               "--min-samples\n20\n"), "run.args: %s", rec);
    free(rec);
    snprintf(args, sizeof args, "--out %s --minutes 0.01 %s", dir, small);
    st = th_run_tool("test_train_run", "train", args, 60, out, sizeof out, err, sizeof err);
    ck_assert_msg(st == 0 && strstr(out, "resuming with its recipe") && strstr(out, "40 sims (fast 10") &&
                  strstr(out, "(resumed)"), "%d %s %s", st, out, err);
    snprintf(args, sizeof args, "--out %s --minutes 0.01 --sims 60 %s", dir, small);
    st = th_run_tool("test_train_run", "train", args, 60, out, sizeof out, err, sizeof err);
    ck_assert_msg(st == 0 && strstr(out, "60 sims (fast 15"), "%d %s %s", st, out, err);
    char logp[700];                         /* each session's line, with the options it gave */
    snprintf(logp, sizeof logp, "%s/sessions.log", dir);
    char *log = tr_read_file(logp, 1 << 16, &len, why, sizeof why);
    ck_assert_msg(log, "%s", why);
    char *line[4] = { log };                /* the header, then one line a session */
    int lines = 1;
    for (char *c = log; *c; c++)
        if (*c == '\n' && c[1]) { ck_assert_msg(lines < 4, "more than three sessions: %s", log); line[lines++] = c + 1; }
    ck_assert_msg(lines == 4 && log[0] == '#', "%s", log);
    ck_assert_msg(strstr(line[1], " step 0 gen 0 new: --sims 40 --lr 0.004 --eval-every 0 --gen-steps 5 --window 200 "
                                  "--min-samples 20\n") == strchr(line[1], ' '), "%s", log);
    ck_assert_msg(strstr(line[2], " resumed: --window 200 --min-samples 20\n") &&
                  strstr(line[2], " resumed: --window 200 --min-samples 20\n") < line[3], "%s", log);
    ck_assert_msg(strstr(line[3], " resumed: --sims 60 --window 200 --min-samples 20\n"), "%s", log);
    free(log);
    FILE *f = fopen(path, "a");
    ck_assert(f);
    fputs("--no-such-option\n", f);
    fclose(f);
    snprintf(args, sizeof args, "--out %s --minutes 0.01 %s", dir, small);
    st = th_run_tool("test_train_run", "train", args, 60, out, sizeof out, err, sizeof err);
    ck_assert_msg(st == 2 && strstr(err, "--no-such-option") && strstr(err, "run.args"), "%d %s", st, err);
}
END_TEST

/* Options that conflict with the run stop before anything is written; a damaged best.ckpt is
 * found at the start; logs written after the checkpoint (a kill) are trimmed on resume. */
START_TEST(run_checks_options_and_trims_logs) {
    fresh_dir("opts");
    tr_run_config c;
    tiny(&c);
    tr_run_result r;
    char err[512], p[400];
    c.require_run = 1;                                      /* --resume with no run: refused */
    ck_assert_int_ne(tr_run(&c, &r, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "holds no run") != NULL, "%s", err);
    c.fresh = 1;                                            /* --resume --fresh */
    ck_assert_int_ne(tr_run(&c, &r, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "contradict") != NULL, "%s", err);
    c.require_run = 0;
    c.fresh = 0;
    snprintf(c.pretrain, sizeof c.pretrain, "%s/no-such-archive", dir);   /* a bad --pretrain: nothing made */
    ck_assert_int_ne(tr_run(&c, &r, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "--pretrain") != NULL, "%s", err);
    snprintf(p, sizeof p, "%s/run.state", dir);
    ck_assert_int_eq(access(p, F_OK), -1);
    c.pretrain[0] = 0;

    c.max_steps = 20;                                       /* a run of 2 generations */
    ck_assert_msg(tr_run(&c, &r, err, sizeof err) == 0, "%s", err);
    c.arch_given = 1;                                       /* resumed with another architecture */
    c.blocks = 3;
    ck_assert_int_ne(tr_run(&c, &r, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "1 x 8") != NULL, "%s", err);
    c.arch_given = 0;
    c.blocks = 1;
    /* --fresh with a bad --init or a --pretrain without records: refused before the run is deleted */
    c.fresh = 1;
    snprintf(c.init, sizeof c.init, "%s/no-such.ckpt", dir);
    ck_assert_int_ne(tr_run(&c, &r, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "--init") != NULL, "%s", err);
    snprintf(p, sizeof p, "%s/run.state", dir);
    ck_assert_int_eq(access(p, F_OK), 0);
    c.init[0] = 0;
    snprintf(c.pretrain, sizeof c.pretrain, "%s/replay", dir);           /* a folder, no *.sgf */
    ck_assert_int_ne(tr_run(&c, &r, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "no SGF records") != NULL, "%s", err);
    ck_assert_int_eq(access(p, F_OK), 0);
    c.pretrain[0] = 0;
    c.fresh = 0;

    /* a kill after the checkpoint: rows beyond step 20 / generation 2 in the logs, and a row at
     * step 20 written after run.state's time (training waited for self-play): time must not run
     * backwards after the resume */
    snprintf(p, sizeof p, "%s/train.csv", dir);
    FILE *f = fopen(p, "a");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "999.0,20,1,1,1,1,1,1,1,1,0.02,2\n");
    fprintf(f, "999.0,35,1,1,1,1,1,1,1,1,0.02,3\n");
    fprintf(f, "5.0,10,1,1");                               /* a row the kill cut in half */
    fclose(f);
    snprintf(p, sizeof p, "%s/elo.csv", dir);
    f = fopen(p, "a");
    fprintf(f, "3,30,best,10,5,5,0,0.5,0.0,-100.0,100.0,5.0\n");
    fclose(f);
    c.max_steps = 21;
    ck_assert_msg(tr_run(&c, &r, err, sizeof err) == 0, "%s", err);
    char line[512];
    snprintf(p, sizeof p, "%s/train.csv", dir);
    f = fopen(p, "r");
    int rows = 0;
    double last_sec = 0;
    while (fgets(line, sizeof line, f)) {
        if (rows++ == 0) continue;
        double sec, steps;
        int commas = 0;
        for (const char *q = line; *q; q++) commas += *q == ',';
        ck_assert_msg(commas == 11, "a broken row in train.csv: %s", line);
        ck_assert_int_eq(sscanf(line, "%lf,%lf", &sec, &steps), 2);
        ck_assert_msg(steps <= 21 && sec < 999, "a row after the checkpoint survived: %s", line);
        ck_assert_msg(sec >= last_sec, "time runs backwards in train.csv: %.1f after %.1f", sec, last_sec);
        last_sec = sec;
    }
    fclose(f);
    snprintf(p, sizeof p, "%s/elo.csv", dir);
    f = fopen(p, "r");
    while (fgets(line, sizeof line, f)) ck_assert_msg(line[0] != '3', "%s", line);
    fclose(f);

    snprintf(p, sizeof p, "%s/best.ckpt", dir);             /* a damaged best.ckpt: said at once */
    f = fopen(p, "r+b");
    fseek(f, 100, SEEK_SET);
    fputc(0x77, f);
    fputc(0x78, f);
    fclose(f);
    ck_assert_int_ne(tr_run(&c, &r, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "best.ckpt") != NULL && strstr(err, "cp ") != NULL, "%s", err);
    remove_dir();
}
END_TEST

/* A stand-in for the other ranks (run.h's tr_remote, what mpi_hub.c implements): one game of one
 * sample from "rank 1" every few polls, stamped with the generation it was last sent. */
typedef struct {
    int started, finished, abrupt, publishes, last_gen, bad_order;
    long last_steps;
    long long polls, games;
    zz_pos pos;
    nn_visit visit;
} fake_remote;

static int fake_start(void *ctx, const nn_model *m, const tr_selfplay_config *sp, double mix, int gen, long steps, char *err,
                      size_t errlen) {
    fake_remote *f = ctx;
    f->started++;
    f->last_gen = gen;
    f->last_steps = steps;
    zz_pos_init(&f->pos, sp->board);
    zz_move mv[ZZ_MAX_MOVES];
    zz_gen_moves(&f->pos, mv);
    f->visit.move = mv[0];
    f->visit.count = 8;
    return m ? 0 : -1;
}
static int fake_poll(void *ctx, tr_replay *rb, long long *games, long long *samples, char *err, size_t errlen) {
    fake_remote *f = ctx;
    if (++f->polls % 8) return 0;
    tr_sample s;
    memset(&s, 0, sizeof s);
    s.pos = f->pos;
    s.z = 1;
    s.full = 1;
    s.gen = (uint32_t)f->last_gen;
    s.origin = 1;
    s.nvisits = 1;
    s.visits = &f->visit;
    if (tr_replay_add(rb, &s, 1, err, errlen) != 0) return -1;
    f->games++;
    (*games)++;
    (*samples)++;
    return 0;
}
static int fake_publish(void *ctx, const nn_model *m, int gen, long steps, char *err, size_t errlen) {
    fake_remote *f = ctx;
    if (gen < f->last_gen || steps <= f->last_steps) f->bad_order++;
    f->publishes++;
    f->last_gen = gen;
    f->last_steps = steps;
    return 0;
}
static void fake_hold(void *ctx, int hold) { (void)ctx; (void)hold; }
static long long fake_moves(void *ctx) { return ((fake_remote *)ctx)->games; }
static void fake_status(void *ctx, char *buf, size_t len, long steps, long long own_games, int own_gen, long own_steps) {
    snprintf(buf, len, "fake");
}
static int fake_finish(void *ctx, tr_replay *rb, int abrupt, long long *games, long long *samples, char *err, size_t errlen) {
    fake_remote *f = ctx;
    f->finished++;
    f->abrupt = abrupt;
    return 0;
}

/* The run drives a remote (the MPI ranks' interface): started once with the run's weights, its
 * games in the buffer and on disk with their origin and generation, every refresh sent in order
 * up to the last generation, finished once. */
START_TEST(run_drives_a_remote) {
    fresh_dir("remote");
    tr_run_config c;
    tiny(&c);
    c.max_steps = 20;
    fake_remote f;
    memset(&f, 0, sizeof f);
    tr_remote rem = { &f, fake_start, fake_poll, fake_publish, fake_hold, fake_moves, fake_status, fake_finish };
    c.remote = &rem;
    tr_run_result r;
    char err[512];
    ck_assert_msg(tr_run(&c, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(f.started, 1);
    ck_assert_int_eq(f.finished, 1);
    ck_assert_int_eq(f.abrupt, 0);
    ck_assert_int_eq(f.bad_order, 0);
    ck_assert_int_ge(f.publishes, 2);                   /* generations 1 and 2 at least */
    ck_assert_int_eq(f.last_gen, 2);
    ck_assert_int_eq(f.last_steps, 20);
    ck_assert_int_gt(f.games, 0);
    ck_assert_int_ge(r.session_games, f.games);
    tr_replay rb;
    char p[400];
    snprintf(p, sizeof p, "%s/replay", dir);
    ck_assert_msg(tr_replay_open(&rb, p, ZZ_B37, 1000000, err, sizeof err) == 0, "%s", err);
    long long from1 = 0, own = 0;
    for (int i = 0; i < rb.count; i++) {
        const tr_sample *s = tr_replay_at(&rb, i);
        if (s->origin == 1) from1++;
        else own++;
        ck_assert_int_le(s->gen, 2);
    }
    ck_assert_int_eq(rb.count, rb.total);
    ck_assert_int_eq(from1, f.games);                   /* every remote game, once */
    ck_assert_int_gt(own, 0);
    tr_replay_close(&rb, err, sizeof err);
    remove_dir();
}
END_TEST

/* Wins of the network `ckpt`, searching 8 simulations a move (ZZ_TEST_SIMS), over `games` games
 * against a random player; the match's seed is fixed. */
static int wins_vs_random(const char *ckpt, int games) {
    int sims = getenv("ZZ_TEST_SIMS") ? atoi(getenv("ZZ_TEST_SIMS")) : 8;
    char spec[400], err[256];
    snprintf(spec, sizeof spec, "puct:%s:%d", ckpt, sims);
    mcts_match_config mc;
    memset(&mc, 0, sizeof mc);
    mc.spec[0] = spec;
    mc.spec[1] = "random";
    mc.games = games;
    mc.parallel = 2;
    mc.agent_threads = 1;
    mc.seed = 12345;
    mc.board = ZZ_B37;
    mc.ply_cap = 200;
    mcts_match_result r;
    ck_assert_msg(mcts_match_run(&mc, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.errors, 0);
    return r.wins;
}

/* One short training run with this seed: its last network's wins over `games` against a random
 * player, and (in *untrained) its untrained generation 0's. */
static int short_run_wins(unsigned seed, int games, int *untrained) {
    char tag[32];
    snprintf(tag, sizeof tag, "learn%u", seed);
    fresh_dir(tag);
    tr_run_config c;
    tiny(&c);
    c.blocks = 2;
    c.channels = 16;
    c.sp.games_in_flight = 32;
    c.sp.sims_full = 16;
    c.sp.sims_fast = 8;
    c.sp.full_prob = 0.5;
    c.batch = 64;
    c.lr = 0.02;
    c.lr_warmup = 20;
    c.min_samples = 500;
    c.train_ratio = 2.0;
    c.gen_steps = 100;
    c.max_steps = SANITIZED ? 30 : (getenv("ZZ_TEST_STEPS") ? atoi(getenv("ZZ_TEST_STEPS")) : 400);
    c.seed = seed;
    tr_run_result r;
    char err[512];
    ck_assert_msg(tr_run(&c, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.steps, c.max_steps);
    int wins = -1;
    *untrained = -1;
    if (!SANITIZED) {
        char g0[400], last[400];
        snprintf(g0, sizeof g0, "%s/gen-0000.ckpt", dir);
        snprintf(last, sizeof last, "%s/latest.ckpt", dir);
        *untrained = wins_vs_random(g0, games);
        wins = wins_vs_random(last, games);
        fprintf(stderr, "test_train_run: seed %u, vs random: untrained %d/%d, trained (%ld steps) %d/%d; final loss p %.3f v %.3f\n",
                seed, *untrained, games, r.steps, wins, games, r.last_policy, r.last_value);
    }
    remove_dir();
    return wins;
}

/* Two short runs, judged together against a random player.  Self-play and SGD run on threads of
 * their own, so a run's result depends on the machine's scheduling, and one seed's runs spread
 * widely: seed 3's trained network won 50..60 of 60 in 55 runs and once 39, which failed by itself
 * the margin asked of one run (its untrained network's 28, the same every run, + 15).  Some seeds
 * learn slowly at this size (seed 7: 17..38; seeds 2 and 13 won 30 in some runs).  Seeds 1 and 5
 * (untrained 21 and 23) won 56..60 in 8 runs each, so the test takes those two, and asks the
 * margin (15 a run) of their sum: one unlucky run no longer fails it alone, while a trainer that
 * does not learn fails both.  (Trained against untrained head to head at 8 simulations was no
 * steadier: those games are deterministic, and 8 runs of seed 3 gave 60 of 60 six times and 30 of
 * 60 twice.) */
START_TEST(training_beats_untrained) {
    const int games = 60;
    int untrained_a, untrained_b;
    int trained_a = short_run_wins(1, games, &untrained_a), trained_b = short_run_wins(5, games, &untrained_b);
    if (SANITIZED) {
        th_skip("test_train_run", "sanitizer build: the strength check (too slow under a sanitizer)");
    } else {
        ck_assert_int_ge(trained_a + trained_b, untrained_a + untrained_b + 2 * (games / 4));
        ck_assert_int_ge(trained_a + trained_b, games);
    }
}
END_TEST

int main(int argc, char **argv) {
    nn_omp_single_thread(argv);   /* our threads fill the cores: OpenMP on one (omp_env.h) */
    Suite *s = suite_create("train_run");
    TCase *tc = tcase_create("run");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, stop_and_resume);
    tcase_add_test(tc, init_from_weights);
    tcase_add_test(tc, captures_head_in_a_run);
    tcase_add_test(tc, lr_tail_boundaries);
    tcase_add_test(tc, runstate_refuses_damaged_values);
    tcase_add_test(tc, lr_tail_lowers_the_last_steps);
    tcase_add_test(tc, sgd_threads_held_counts_and_restores);
    tcase_add_test(tc, hold_batches_sets_the_backlog);
    tcase_add_test(tc, run_trains_on_a_backend);
    tcase_add_test(tc, run_checks_options_and_trims_logs);
    tcase_add_test(tc, train_tool_selfplay_precision);
    tcase_add_test(tc, train_tool_resumes_with_its_recipe);
    tcase_add_test(tc, run_drives_a_remote);
    tcase_add_test(tc, training_beats_untrained);
    suite_add_tcase(s, tc);
    return th_run(s);
}
