/* test_cuda.c — the CUDA backend against the CPU reference (src/nn).  Inputs and weights are
 * random and fresh each run (never zeros; the seed is printed, ZZ_TEST_SEED=<n> repeats a run):
 *   - one fused conv (hex 3×3 and 1×1, with bias / residual / ReLU / tanh) against nn_conv_forward_f
 *     and nn_matmul_forward_f, by relative error;
 *   - the GPU inference net (zz_cuda_infer) against nn_infer on all three boards, on random input
 *     tensors and on positions reached by random play, with and without CUDA graphs;
 *   - a mixed batch gives each position exactly what it gets alone;
 *   - checkpoint file -> GPU evaluator agrees with checkpoint file -> CPU evaluator (priors, values).
 *   - graphs re-captured after the buffers grow give what they gave before, and the CPU's;
 *   - the GPU evaluator and the GPU trainer from two threads at once give what each gives alone;
 *   - a failed launch and a failed graph capture (zz_cuda_test_fail_launches) leave the context
 *     usable, and the evaluators and the trainer of a run go on on the CPU after such a failure.
 * Without a GPU (or built without CUDA) the suite says so loudly, checks that the GPU entry points
 * fail cleanly with a message, and passes.  Always, GPU or not: ZZ_CUDA_FAKE_NO_IMAGE=1 (a GPU the
 * build has no code for) gives the CPU evaluators with the reason, and a training backend that
 * fails mid-run (an emulated one made to fail) hands its weights to the CPU trainer, which goes on
 * exactly as if it had moved there by hand. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include "cuda/backend.h"
#include "cuda/infer_cuda.h"
#include "cuda/net.h"
#include "cuda/train_net.h"
#include "train/live_eval.h"
#include "train/trainer.h"
#include "nn/checkpoint.h"
#include "nn/infer.h"
#include "nn/ops.h"
#include "nn/policy.h"
#include "helpers.h"

static uint64_t seed0;

/* uniform in [-1, 1], never exactly zero */
static float nz(uint64_t *s)
{
    double v = 2 * th_urand(s) - 1;
    return (float)(fabs(v) < 1e-3 ? 0.5 : v);
}

/* max |a-b| / max(max |b|, floor) */
static double rel_err(const float *a, const float *b, size_t n, double floor)
{
    double worst = 0, scale = floor;
    for (size_t i = 0; i < n; i++) { worst = fmax(worst, fabs((double)a[i] - b[i])); scale = fmax(scale, fabs((double)b[i])); }
    return worst / scale;
}

static void random_position(zz_pos *p, zz_board_kind kind, uint64_t *rng, int max_plies)
{
    for (;;) {
        zz_pos_init(p, kind);
        int n = (int)zz_rand_below(rng, (uint32_t)max_plies + 1);
        for (int i = 0; i < n && !zz_over(p); i++) zz_apply(p, zz_random_move(p, rng), NULL);
        if (!zz_over(p)) return;
    }
}

/* A model with random weights and non-trivial BN parameters and running statistics. */
static nn_model *random_model(zz_board_kind kind, int blocks, uint64_t *rng)
{
    char err[256];
    nn_config c;
    nn_config_default(&c, kind);
    if (blocks > 0) c.blocks = blocks;
    nn_model *m = nn_model_create(&c, NN_F32, zz_rand(rng) | 1, err, sizeof err);
    ck_assert_msg(m, "%s", err);
    th_perturb_model(m, rng);
    return m;
}

/* ---- without a GPU ------------------------------------------------------------------------- */

START_TEST(no_gpu_fails_cleanly)
{
    char err[320] = "", msg[320] = "";
    ck_assert_int_eq(zz_cuda_available(msg, sizeof msg), 0);
    ck_assert(msg[0]);
    ck_assert_int_eq(zz_cuda_select(msg, sizeof msg), 0);
    ck_assert(!strncmp(msg, "cpu: ", 5));
    ck_assert(zz_cuda_malloc(64, err, sizeof err) == NULL || zz_cuda_build()[0] == 'c');
    uint64_t rng = seed0;
    nn_model *m = random_model(ZZ_B37, 1, &rng);
    err[0] = 0;
    zz_cuda_infer *inf = zz_cuda_infer_create(m, 8, ZZ_CUDA_GRAPHS, err, sizeof err);
    ck_assert(inf == NULL);
    ck_assert(err[0]);
    /* the fold itself is plain C: it runs anywhere and matches the layout */
    size_t nw = zz_cuda_fold(m, NULL);
    float *w = malloc(nw * sizeof *w);
    ck_assert(w && zz_cuda_fold(m, w) == nw);
    free(w);
    nn_model_free(m);
}
END_TEST

/* ---- always (GPU or not) -------------------------------------------------------------------- */

/* n random positions on board kind, evaluated by a and by b: priors and values within tol. */
static void same_evaluations(mcts_evaluator *a, mcts_evaluator *b, zz_board_kind kind, uint64_t *rng, float tol,
                             const char *what)
{
    enum { N = 12 };
    static zz_pos pos[N];
    static zz_move moves[N][ZZ_MAX_MOVES];
    static float pa[N][ZZ_MAX_MOVES], pb[N][ZZ_MAX_MOVES];
    char err[320];
    mcts_eval_item ia[N], ib[N];
    for (int i = 0; i < N; i++) {
        random_position(&pos[i], kind, rng, 50);
        int nm = zz_gen_moves(&pos[i], moves[i]);
        ia[i] = (mcts_eval_item){ &pos[i], moves[i], nm, pa[i], 0 };
        ib[i] = (mcts_eval_item){ &pos[i], moves[i], nm, pb[i], 0 };
    }
    ck_assert_msg(!mcts_evaluate(a, ia, N, err, sizeof err), "%s: %s", what, err);
    ck_assert_msg(!mcts_evaluate(b, ib, N, err, sizeof err), "%s: %s", what, err);
    for (int i = 0; i < N; i++) {
        ck_assert_msg(fabsf(ia[i].value - ib[i].value) <= tol, "%s: value %g vs %g", what, ia[i].value, ib[i].value);
        for (int k = 0; k < ia[i].nmoves; k++)
            ck_assert_msg(fabsf(pa[i][k] - pb[i][k]) <= tol, "%s: prior %g vs %g", what, pa[i][k], pb[i][k]);
    }
}

static void save_model(const nn_model *m, char *path, size_t n, const char *tag)
{
    char err[320];
    snprintf(path, n, "/tmp/zz_test_cuda_%s_%d.ckpt", tag, (int)getpid());
    ck_assert_msg(!nn_checkpoint_save(path, m, 3, false, err, sizeof err), "%s", err);
}

/* ZZ_CUDA_FAKE_NO_IMAGE=1: the GPU (if any) refused with the reason; mcts_eval_net_auto and the
 * training run's live evaluator are the CPU ones, and say why. */
START_TEST(fake_no_image_gives_cpu_evaluators)
{
    char err[320], msg[320], sel[320], backend[400], path[256];
    int real = zz_cuda_available(msg, sizeof msg);
    setenv("ZZ_CUDA_FAKE_NO_IMAGE", "1", 1);
    ck_assert_int_eq(zz_cuda_available(msg, sizeof msg), 0);
    ck_assert(msg[0]);
    if (real)
        ck_assert_msg(strstr(msg, "cannot run this build's kernels") && strstr(msg, "ZZ_CUDA_FAKE_NO_IMAGE"), "%s", msg);
    ck_assert_int_eq(zz_cuda_select(sel, sizeof sel), 0);
    ck_assert_msg(!strncmp(sel, "cpu: ", 5) && !strcmp(sel + 5, msg), "%s", sel);
    uint64_t rng = seed0 ^ 0x4242;
    nn_model *m = random_model(ZZ_B37, 1, &rng);
    save_model(m, path, sizeof path, "fake");
    mcts_evaluator *a = mcts_eval_net_auto(path, backend, sizeof backend, err, sizeof err);
    mcts_evaluator *c = mcts_eval_nn_new(path, err, sizeof err);
    mcts_evaluator *l = tr_live_eval_new(m, NN_PREC_F32, err, sizeof err);
    ck_assert_msg(a && c && l, "%s", err);
    ck_assert_str_eq(backend, sel);
    ck_assert_str_eq(a->name, c->name);
    ck_assert_msg(!strncmp(tr_live_eval_backend(l), "CPU (", 5), "%s", tr_live_eval_backend(l));
    same_evaluations(a, c, ZZ_B37, &rng, 0, "auto evaluator, faked GPU without code");
    ck_assert(!mcts_eval_nn_set_precision(c, "f32", err, sizeof err));   /* the live one is float, as training */
    same_evaluations(l, c, ZZ_B37, &rng, 1e-6f, "live evaluator, faked GPU without code");
    unsetenv("ZZ_CUDA_FAKE_NO_IMAGE");
    mcts_evaluator_free(a);
    mcts_evaluator_free(c);
    mcts_evaluator_free(l);
    nn_model_free(m);
    remove(path);
}
END_TEST

/* A replay window of 8 samples on board kind (one visit each, two in three full). */
typedef struct {
    tr_sample ring[8];
    nn_visit visits[8];
    tr_replay r;
} small_replay;

static void small_replay_init(small_replay *sr, zz_board_kind kind, uint64_t *rng)
{
    zz_move mv[ZZ_MAX_MOVES];
    for (int i = 0; i < 8; i++) {
        zz_pos p;
        random_position(&p, kind, rng, 40);
        int nm = zz_gen_moves(&p, mv);
        sr->visits[i] = (nn_visit){ mv[zz_rand_below(rng, (uint32_t)nm)], 3 };
        sr->ring[i] = (tr_sample){ .pos = p, .z = (float)((int)zz_rand_below(rng, 3) - 1), .full = i % 3 != 0,
                                   .nvisits = 1, .visits = &sr->visits[i] };
    }
    sr->r = (tr_replay){ .board = kind, .capacity = 8, .ring = sr->ring, .count = 8 };
}

/* A trainer of batch 6 over a copy of m, on backend be (NULL: the CPU). */
static void trainer_on(tr_trainer *t, const nn_model *m, const zzt_backend *be)
{
    char err[320];
    nn_model *c = nn_model_create(&m->cfg, NN_F32, 1, err, sizeof err);
    ck_assert_msg(c && !nn_model_copy(c, m, err, sizeof err), "%s", err);
    nn_sgd o;
    nn_sgd_default(&o);
    o.warmup = 0;
    ck_assert_msg(!tr_trainer_init(t, c, &o, 6, 1.0, 0.0, 77, err, sizeof err), "%s", err);
    if (be) ck_assert_msg(!tr_trainer_use_backend(t, be, err, sizeof err), "%s", err);
}

/* The emulated training backend, made to fail: launches while fail_launch, reads while fail_read. */
static int fail_launch, fail_read;

static int failing_launch(zzt_kernel k, int64_t threads, const zzt_args *a, char *err, size_t n)
{
    if (!fail_launch) return zzt_emu_backend()->launch(k, threads, a, err, n);
    snprintf(err, n, "injected launch failure");
    return -1;
}

static int failing_download(void *host, const void *src, size_t bytes, char *err, size_t n)
{
    if (!fail_read) return zzt_emu_backend()->download(host, src, bytes, err, n);
    snprintf(err, n, "injected read failure");
    return -1;
}

/* The trainer's backend fails at its second step: the step runs on the CPU from the backend's
 * weights, exactly as a trainer moved to the CPU by hand after one backend step; when the weights
 * cannot be read back either, the step fails naming both causes. */
START_TEST(trainer_falls_back_to_cpu)
{
    char err[512];
    zzt_backend failing = *zzt_emu_backend();
    failing.name = "failing";
    failing.launch = failing_launch;
    failing.download = failing_download;
    uint64_t rng = seed0 ^ 0x7777;
    nn_model *m = random_model(ZZ_B37, 1, &rng);
    small_replay sr;
    small_replay_init(&sr, ZZ_B37, &rng);
    tr_trainer a, b;
    nn_loss_parts la, lb;
    trainer_on(&a, m, &failing);
    trainer_on(&b, m, zzt_emu_backend());
    ck_assert(!tr_trainer_step(&a, &sr.r, &la, NULL, err, sizeof err) && !tr_trainer_step(&b, &sr.r, &lb, NULL, err, sizeof err));
    ck_assert_msg(tr_trainer_model(&b, err, sizeof err), "%s", err);     /* b to the CPU by hand */
    zzt_net_free(b.dev);
    b.dev = NULL;
    fail_launch = 1;
    ck_assert_msg(!tr_trainer_step(&a, &sr.r, &la, NULL, err, sizeof err), "%s", err);
    fail_launch = 0;
    ck_assert_msg(!tr_trainer_step(&b, &sr.r, &lb, NULL, err, sizeof err), "%s", err);
    ck_assert_str_eq(tr_trainer_backend(&a), "cpu");
    ck_assert_msg(tr_trainer_fallback(&a) && strstr(tr_trainer_fallback(&a), "injected launch failure"), "%s",
                  tr_trainer_fallback(&a) ? tr_trainer_fallback(&a) : "(none)");
    ck_assert(la.policy == lb.policy && la.value == lb.value && la.l2 == lb.l2);
    ck_assert(!memcmp(a.model->param, b.model->param, m->nparams * sizeof(float)));
    ck_assert(!memcmp(a.model->mom, b.model->mom, m->nparams * sizeof(float)));
    tr_trainer_free(&a);
    tr_trainer_free(&b);
    /* the weights cannot come back: the step fails, with both causes */
    trainer_on(&a, m, &failing);
    ck_assert(!tr_trainer_step(&a, &sr.r, &la, NULL, err, sizeof err));
    fail_launch = fail_read = 1;
    ck_assert(tr_trainer_step(&a, &sr.r, &la, NULL, err, sizeof err) != 0);
    ck_assert_msg(strstr(err, "injected launch failure") && strstr(err, "injected read failure"), "%s", err);
    ck_assert(tr_trainer_model(&a, err, sizeof err) == NULL);
    ck_assert_msg(strstr(err, "reading the weights back from the failing backend"), "%s", err);
    fail_launch = fail_read = 0;
    tr_trainer_free(&a);
    nn_model_free(m);
}
END_TEST

/* ---- with a GPU ---------------------------------------------------------------------------- */

/* One fused conv on the GPU against the CPU ops: hex C→C with residual + ReLU, hex 16→C, 1×1 with
 * an odd output count, dense with tanh; a small batch and one of several tiles.  Each through both
 * kernels (kernels.cuh: 64-row tiles, then 128-row tiles), which must give the same bits. */
START_TEST(conv_matches_cpu)
{
    char err[320];
    uint64_t rng = seed0 ^ 0x1234;
    for (int kind = 0; kind < ZZ_NBOARDS; kind++)
    for (int N = 5; N <= 40; N += 35) {
        nn_geom g;
        nn_geom_init(&g, (zz_board_kind)kind);
        int P = g.ncells;
        int nbh[ZZ_MAX_RINGS * NN_TAPS];
        for (int i = 0; i < P; i++) for (int t = 0; t < NN_TAPS; t++) nbh[i * NN_TAPS + t] = g.nb[i][t];
        struct { int taps, ci, co, act, res; } cases[] = { { 7, 64, 64, 1, 1 }, { 7, 16, 64, 1, 0 }, { 1, 64, 6, 0, 0 },
                                                           { 1, 32, 4, 1, 0 }, { 7, 5, 3, 0, 1 }, { 1, 37, 1, 2, 0 } };
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            int taps = cases[c].taps, ci = cases[c].ci, co = cases[c].co, act = cases[c].act, rows = N * P;
            size_t nx = (size_t)rows * ci, nwt = (size_t)taps * ci * co, ny = (size_t)rows * co;
            float *x = malloc(nx * 4), *w = malloc(nwt * 4), *b = malloc(co * 4), *res = malloc(ny * 4);
            float *ref = malloc(ny * 4), *got = malloc(ny * 4), *got4 = malloc(ny * 4);
            for (size_t i = 0; i < nx; i++) x[i] = nz(&rng);
            for (size_t i = 0; i < nwt; i++) w[i] = nz(&rng) * 0.2f;
            for (int i = 0; i < co; i++) b[i] = nz(&rng) * 0.1f;
            for (size_t i = 0; i < ny; i++) res[i] = nz(&rng);
            if (taps == 7) nn_conv_forward_f(ref, x, w, &g, N, ci, co);
            else nn_matmul_forward_f(ref, x, w, NULL, rows, ci, co);
            for (size_t r = 0; r < (size_t)rows; r++)
                for (int o = 0; o < co; o++) {
                    float v = ref[r * co + o] + b[o] + (cases[c].res ? res[r * co + o] : 0);
                    ref[r * co + o] = act == 1 ? (v < 0 ? 0 : v) : act == 2 ? tanhf(v) : v;
                }
            float *dx = zz_cuda_malloc(nx * 4, err, sizeof err), *dw = zz_cuda_malloc(nwt * 4, err, sizeof err);
            float *db = zz_cuda_malloc(co * 4, err, sizeof err), *dr = zz_cuda_malloc(ny * 4, err, sizeof err);
            float *dy = zz_cuda_malloc(ny * 4, err, sizeof err);
            int *dnb = zz_cuda_malloc(sizeof nbh, err, sizeof err);
            ck_assert_msg(dx && dw && db && dr && dy && dnb, "%s", err);
            ck_assert(!zz_cuda_upload(dx, x, nx * 4, err, sizeof err));
            ck_assert(!zz_cuda_upload(dw, w, nwt * 4, err, sizeof err));
            ck_assert(!zz_cuda_upload(db, b, co * 4, err, sizeof err));
            ck_assert(!zz_cuda_upload(dr, res, ny * 4, err, sizeof err));
            ck_assert(!zz_cuda_upload(dnb, nbh, sizeof nbh, err, sizeof err));
            for (int version = 2; version <= 4; version += 2) {
                zz_cuda_set_conv_kernel(version);
                ck_assert(!zz_cuda_memset0(dy, ny * 4, err, sizeof err));
                ck_assert_msg(!zz_cu_conv(dy, dx, dw, db, cases[c].res ? dr : NULL, taps == 7 ? dnb : NULL, N, P, taps,
                                          ci, co, act, err, sizeof err), "%s", err);
                ck_assert_msg(!zz_cuda_sync(err, sizeof err), "%s", err);
                ck_assert(!zz_cuda_download(version == 2 ? got : got4, dy, ny * 4, err, sizeof err));
            }
            zz_cuda_set_conv_kernel(0);
            double e = rel_err(got, ref, ny, 1e-3);
            ck_assert_msg(e < 2e-5, "board %d N %d case %zu (taps %d, %d->%d): relative error %g", kind, N, c, taps, ci,
                          co, e);
            ck_assert_msg(!memcmp(got, got4, ny * 4), "board %d N %d case %zu (taps %d, %d->%d): the 128-row kernel "
                          "differs from the 64-row one", kind, N, c, taps, ci, co);
            zz_cuda_free(dx); zz_cuda_free(dw); zz_cuda_free(db); zz_cuda_free(dr); zz_cuda_free(dy); zz_cuda_free(dnb);
            free(x); free(w); free(b); free(res); free(ref); free(got); free(got4);
        }
    }
}
END_TEST

/* The whole inference net: GPU == CPU (nn_infer) on random tensors and on positions; and each
 * position of a mixed batch gets exactly its output alone (graphs off, on, and on with the batch
 * through the 128-row conv kernel and each position alone through the 64-row one). */
START_TEST(infer_matches_cpu)
{
    char err[320];
    uint64_t rng = seed0 ^ 0x5678;
    for (int kind = 0; kind < ZZ_NBOARDS; kind++) {
        nn_model *m = random_model((zz_board_kind)kind, kind == ZZ_B37 ? 0 : 3, &rng);
        int P = m->geom.ncells, N = 37;
        size_t nl = (size_t)N * P * NN_HEADS;
        nn_infer *cpu = nn_infer_create(m, err, sizeof err);
        ck_assert_msg(cpu, "%s", err);
        float *x = malloc((size_t)N * P * NN_PLANES * 4), *lc = malloc(nl * 4), *lg = malloc(nl * 4);
        float vc[64], vg[64];
        for (size_t i = 0; i < (size_t)N * P * NN_PLANES; i++) x[i] = nz(&rng);
        zz_pos pos[64];
        for (int i = 0; i < N; i++) random_position(&pos[i], (zz_board_kind)kind, &rng, 60);
        for (int mode = 0; mode < 3; mode++) {
            int graphs = mode > 0;
            zz_cuda_set_conv_kernel(mode == 2 ? 4 : 0);
            zz_cuda_infer *gpu = zz_cuda_infer_create(m, graphs ? 16 : N, graphs ? ZZ_CUDA_GRAPHS : 0, err, sizeof err);
            ck_assert_msg(gpu, "%s", err);
            /* random tensors */
            ck_assert(!nn_infer_forward(cpu, x, N, lc, vc, err, sizeof err));
            ck_assert_msg(!zz_cuda_infer_forward(gpu, x, N, lg, vg, err, sizeof err), "%s", err);
            double el = rel_err(lg, lc, nl, 1e-2), ev = rel_err(vg, vc, N, 1e-1);
            ck_assert_msg(el < 1e-4 && ev < 1e-4, "board %d graphs %d: tensors: logits rel err %g, values %g", kind, graphs, el, ev);
            /* positions */
            ck_assert(!nn_infer_positions(cpu, pos, N, lc, vc, err, sizeof err));
            ck_assert_msg(!zz_cuda_infer_positions(gpu, pos, N, lg, vg, err, sizeof err), "%s", err);
            el = rel_err(lg, lc, nl, 1e-2), ev = rel_err(vg, vc, N, 1e-1);
            ck_assert_msg(el < 1e-4 && ev < 1e-4, "board %d graphs %d: positions: logits rel err %g, values %g", kind, graphs, el, ev);
            /* alone == in the batch, bit for bit */
            float one[ZZ_MAX_RINGS * NN_HEADS], v1;
            if (mode == 2) zz_cuda_set_conv_kernel(2);
            for (int i = 0; i < N; i += 6) {
                ck_assert(!zz_cuda_infer_positions(gpu, &pos[i], 1, one, &v1, err, sizeof err));
                ck_assert_msg(!memcmp(one, lg + (size_t)i * P * NN_HEADS, sizeof(float) * P * NN_HEADS),
                              "board %d mode %d: position %d alone differs from the batch", kind, mode, i);
                ck_assert(v1 == vg[i]);
            }
            /* refold after a change */
            ((float *)m->param)[0] += 0.5f;
            ck_assert(!nn_infer_update(cpu, m, err, sizeof err));
            ck_assert_msg(!zz_cuda_infer_update(gpu, m, err, sizeof err), "%s", err);
            ck_assert(!nn_infer_positions(cpu, pos, N, lc, vc, err, sizeof err));
            ck_assert(!zz_cuda_infer_positions(gpu, pos, N, lg, vg, err, sizeof err));
            ck_assert_msg(rel_err(lg, lc, nl, 1e-2) < 1e-4, "board %d: after update", kind);
            zz_cuda_infer_free(gpu);
            zz_cuda_set_conv_kernel(0);
        }
        nn_infer_free(cpu);
        nn_model_free(m);
        free(x); free(lc); free(lg);
    }
}
END_TEST

/* checkpoint -> GPU evaluator == checkpoint -> CPU evaluator. */
START_TEST(checkpoint_evaluators_agree)
{
    char err[320], path[256];
    uint64_t rng = seed0 ^ 0x9abc;
    snprintf(path, sizeof path, "/tmp/zz_test_cuda_%d.ckpt", (int)getpid());
    for (int kind = 0; kind < ZZ_NBOARDS; kind++) {
        nn_model *m = random_model((zz_board_kind)kind, 2, &rng);
        ck_assert_msg(!nn_checkpoint_save(path, m, 7, false, err, sizeof err), "%s", err);
        nn_model_free(m);
        mcts_evaluator *cpu = mcts_eval_nn_new(path, err, sizeof err), *gpu = mcts_eval_cuda_new(path, err, sizeof err);
        ck_assert_msg(cpu && gpu, "%s", err);
        ck_assert(!mcts_eval_nn_set_precision(cpu, "f32", err, sizeof err));      /* the GPU net is float */
        enum { N = 20 };
        static zz_pos pos[N];
        static zz_move moves[N][ZZ_MAX_MOVES];
        static float pc[N][ZZ_MAX_MOVES], pg[N][ZZ_MAX_MOVES];
        mcts_eval_item ic[N], ig[N];
        for (int i = 0; i < N; i++) {
            random_position(&pos[i], (zz_board_kind)kind, &rng, 50);
            int nm = zz_gen_moves(&pos[i], moves[i]);
            ic[i] = (mcts_eval_item){ &pos[i], moves[i], nm, pc[i], 0 };
            ig[i] = (mcts_eval_item){ &pos[i], moves[i], nm, pg[i], 0 };
        }
        ck_assert(!mcts_evaluate(cpu, ic, N, err, sizeof err));
        ck_assert_msg(!mcts_evaluate(gpu, ig, N, err, sizeof err), "%s", err);
        for (int i = 0; i < N; i++) {
            ck_assert_msg(fabsf(ic[i].value - ig[i].value) < 1e-4f, "value %g vs %g", ic[i].value, ig[i].value);
            for (int k = 0; k < ic[i].nmoves; k++)
                ck_assert_msg(fabsf(pc[i][k] - pg[i][k]) < 1e-4f, "prior %g vs %g", pc[i][k], pg[i][k]);
        }
        mcts_evaluator_free(cpu);
        mcts_evaluator_free(gpu);
    }
    remove(path);
}
END_TEST

/* Graphs captured, then the buffers grown past their capacity (every graph dropped), then the
 * small batches again: re-captured graphs give what the first ones gave, bit for bit, and the
 * CPU's outputs. */
START_TEST(graphs_recaptured_after_growth)
{
    char err[320];
    uint64_t rng = seed0 ^ 0x3131;
    for (int kind = 0; kind < ZZ_NBOARDS; kind++) {
        nn_model *m = random_model((zz_board_kind)kind, 2, &rng);
        int P = m->geom.ncells;
        enum { NMAX = 64 };
        static zz_pos pos[NMAX];
        for (int i = 0; i < NMAX; i++) random_position(&pos[i], (zz_board_kind)kind, &rng, 60);
        size_t nl = (size_t)NMAX * P * NN_HEADS;
        float *lc = malloc(nl * 4), *lg = malloc(nl * 4), *first = malloc(nl * 4), vc[NMAX], vg[NMAX];
        nn_infer *cpu = nn_infer_create(m, err, sizeof err);
        zz_cuda_infer *gpu = zz_cuda_infer_create(m, 16, ZZ_CUDA_GRAPHS, err, sizeof err);
        ck_assert_msg(cpu && gpu && lc && lg && first, "%s", err);
        static const int NS[] = { 5, 16, 40, 5, 16, 64, 5 };
        for (unsigned k = 0; k < sizeof NS / sizeof *NS; k++) {
            int N = NS[k];
            ck_assert_msg(!zz_cuda_infer_positions(gpu, pos, N, lg, vg, err, sizeof err), "board %d N %d: %s", kind, N, err);
            ck_assert(!nn_infer_positions(cpu, pos, N, lc, vc, err, sizeof err));
            double el = rel_err(lg, lc, (size_t)N * P * NN_HEADS, 1e-2), ev = rel_err(vg, vc, N, 1e-1);
            ck_assert_msg(el < 1e-4 && ev < 1e-4, "board %d, call %u (N %d): logits rel err %g, values %g", kind, k, N, el, ev);
            if (k == 0) memcpy(first, lg, (size_t)N * P * NN_HEADS * 4);
            else if (N == 5)
                ck_assert_msg(!memcmp(first, lg, (size_t)N * P * NN_HEADS * 4), "board %d: N 5 after growth differs", kind);
        }
        zz_cuda_infer_free(gpu);
        nn_infer_free(cpu);
        nn_model_free(m);
        free(lc); free(lg); free(first);
    }
}
END_TEST

/* n samples of one visit each on board g, built into b. */
static void small_batch(nn_batch *b, const nn_geom *g, int n, uint64_t *rng)
{
    char err[320];
    nn_sample s[32];
    nn_visit v[32];
    zz_move mv[ZZ_MAX_MOVES];
    ck_assert(n <= 32);
    for (int i = 0; i < n; i++) {
        random_position(&s[i].pos, g->kind, rng, 40);
        int nm = zz_gen_moves(&s[i].pos, mv);
        v[i] = (nn_visit){ mv[zz_rand_below(rng, (uint32_t)nm)], 2 };
        s[i].visits = &v[i];
        s[i].nvisits = 1;
        s[i].z = (float)((int)zz_rand_below(rng, 3) - 1);
    }
    nn_batch_init(b);
    ck_assert_msg(!nn_batch_build(b, g, s, n, NULL, rng, err, sizeof err), "%s", err);
}

/* The GPU inference net, `rounds` times on the same positions: each output == ref, bit for bit. */
typedef struct {
    zz_cuda_infer *gpu;
    const zz_pos *pos;
    int n, rounds, mismatches;
    const float *ref_l, *ref_v;
    float *l, *v;
    char err[320];
} eval_job;

static void *eval_job_run(void *p)
{
    eval_job *j = p;
    size_t nl = (size_t)j->n * zz_cuda_infer_geom(j->gpu)->ncells * NN_HEADS;
    for (int r = 0; r < j->rounds; r++) {
        if (zz_cuda_infer_positions(j->gpu, j->pos, j->n, j->l, j->v, j->err, sizeof j->err)) { j->mismatches = -1; break; }
        j->mismatches += memcmp(j->l, j->ref_l, nl * 4) != 0 || memcmp(j->v, j->ref_v, (size_t)j->n * 4) != 0;
    }
    return NULL;
}

/* Training steps on the GPU trainer over 3 batches; the losses of each. */
typedef struct {
    zzt_net *net;
    nn_sgd sgd;
    const nn_batch *b;
    int steps, rc;
    nn_loss_parts loss[6];
    char err[320];
} train_job;

static void *train_job_run(void *p)
{
    train_job *j = p;
    for (int s = 0; s < j->steps && !j->rc; s++)
        j->rc = zzt_net_train_step(j->net, &j->sgd, &j->b[s % 3], -1, 1.0, &j->loss[s], j->err, sizeof j->err);
    return NULL;
}

/* A GPU trainer of m doing 6 steps on b[3] on this thread; its losses and weights in out, m2. */
static void train_alone(const zzt_backend *be, const nn_model *m, const nn_batch *b, train_job *out, nn_model *m2)
{
    char err[320];
    *out = (train_job){ .net = zzt_net_create(be, m, err, sizeof err), .b = b, .steps = 6 };
    ck_assert_msg(out->net, "%s", err);
    nn_sgd_default(&out->sgd);
    train_job_run(out);
    ck_assert_msg(!out->rc, "%s", out->err);
    ck_assert(!zzt_net_download(out->net, m2, err, sizeof err));
    zzt_net_free(out->net);
    out->net = NULL;
}

/* The self-play network and the trainer on the GPU from two threads at once (each on its own
 * stream): each gives exactly what it gives alone. */
START_TEST(evaluator_and_trainer_in_two_threads)
{
    char err[320];
    uint64_t rng = seed0 ^ 0x2222;
    const zzt_backend *be = zzt_cuda_backend(err, sizeof err);
    ck_assert_msg(be, "%s", err);
    nn_model *m = random_model(ZZ_B48, 2, &rng), *alone = random_model(ZZ_B48, 2, &rng), *both = random_model(ZZ_B48, 2, &rng);
    nn_batch b[3];
    for (int i = 0; i < 3; i++) small_batch(&b[i], &m->geom, 24, &rng);
    enum { N = 48 };
    static zz_pos pos[N];
    for (int i = 0; i < N; i++) random_position(&pos[i], ZZ_B48, &rng, 60);
    size_t nl = (size_t)N * m->geom.ncells * NN_HEADS;
    float *ref_l = malloc(nl * 4), *l = malloc(nl * 4), ref_v[N], v[N];
    zz_cuda_infer *gpu = zz_cuda_infer_create(m, 64, ZZ_CUDA_GRAPHS, err, sizeof err);
    ck_assert_msg(gpu && ref_l && l, "%s", err);
    ck_assert_msg(!zz_cuda_infer_positions(gpu, pos, N, ref_l, ref_v, err, sizeof err), "%s", err);
    train_job t0, t1;
    train_alone(be, m, b, &t0, alone);
    t1 = (train_job){ .net = zzt_net_create(be, m, err, sizeof err), .b = b, .steps = 6 };
    ck_assert_msg(t1.net, "%s", err);
    nn_sgd_default(&t1.sgd);
    eval_job e = { .gpu = gpu, .pos = pos, .n = N, .rounds = 40, .ref_l = ref_l, .ref_v = ref_v, .l = l, .v = v };
    pthread_t te, tt;
    ck_assert(!pthread_create(&te, NULL, eval_job_run, &e) && !pthread_create(&tt, NULL, train_job_run, &t1));
    pthread_join(te, NULL);
    pthread_join(tt, NULL);
    ck_assert_msg(e.mismatches == 0, "evaluator beside the trainer: %d of %d rounds differ from alone (%s)", e.mismatches,
                  e.rounds, e.err);
    ck_assert_msg(!t1.rc, "trainer beside the evaluator: %s", t1.err);
    for (int s = 0; s < 6; s++)
        ck_assert_msg(t1.loss[s].policy == t0.loss[s].policy && t1.loss[s].value == t0.loss[s].value,
                      "step %d: losses beside the evaluator differ from alone", s);
    ck_assert(!zzt_net_download(t1.net, both, err, sizeof err));
    ck_assert_msg(!memcmp(both->param, alone->param, m->nparams * 4) && !memcmp(both->stats, alone->stats, m->nstats * 4),
                  "weights after 6 steps beside the evaluator differ from alone");
    zzt_net_free(t1.net);
    zz_cuda_infer_free(gpu);
    for (int i = 0; i < 3; i++) nn_batch_free(&b[i]);
    nn_model_free(m); nn_model_free(alone); nn_model_free(both);
    free(ref_l); free(l);
}
END_TEST

/* A failed launch (graphs off) and a failed capture (graphs on, a bucket's first use) fail the
 * call with a message; the next call succeeds and matches the CPU. */
static void infer_recovers(const nn_model *m, const zz_pos *pos, int graphs)
{
    char err[320] = "";
    int P = m->geom.ncells, N = 8;
    float lg[8 * ZZ_MAX_RINGS * NN_HEADS], lc[8 * ZZ_MAX_RINGS * NN_HEADS], vg[8], vc[8];
    nn_infer *cpu = nn_infer_create(m, err, sizeof err);
    zz_cuda_infer *gpu = zz_cuda_infer_create(m, 16, graphs ? ZZ_CUDA_GRAPHS : 0, err, sizeof err);
    ck_assert_msg(cpu && gpu, "%s", err);
    zz_cuda_test_fail_launches(1);
    err[0] = 0;
    ck_assert_msg(zz_cuda_infer_positions(gpu, pos, N, lg, vg, err, sizeof err) != 0, "graphs %d: the failed launch went unnoticed", graphs);
    zz_cuda_test_fail_launches(0);
    ck_assert(err[0]);
    printf("test_cuda: injected failure (graphs %d): %s\n", graphs, err);
    ck_assert_msg(!zz_cuda_infer_positions(gpu, pos, N, lg, vg, err, sizeof err), "graphs %d: after the failure: %s", graphs, err);
    ck_assert(!nn_infer_positions(cpu, pos, N, lc, vc, err, sizeof err));
    ck_assert_msg(rel_err(lg, lc, (size_t)N * P * NN_HEADS, 1e-2) < 1e-4 && rel_err(vg, vc, N, 1e-1) < 1e-4,
                  "graphs %d: after the failure the GPU differs from the CPU", graphs);
    zz_cuda_infer_free(gpu);
    nn_infer_free(cpu);
}

/* The GPU trainer: a step whose launch fails returns -1 with a message; the next step gives what a
 * fresh trainer's first step gives, bit for bit. */
static void trainer_recovers(const nn_model *m, uint64_t *rng)
{
    char err[320] = "";
    const zzt_backend *be = zzt_cuda_backend(err, sizeof err);
    ck_assert_msg(be, "%s", err);
    nn_batch b;
    small_batch(&b, &m->geom, 16, rng);
    zzt_net *t = zzt_net_create(be, m, err, sizeof err), *ref = zzt_net_create(be, m, err, sizeof err);
    ck_assert_msg(t && ref, "%s", err);
    nn_sgd ot, oref;
    nn_sgd_default(&ot);
    nn_sgd_default(&oref);
    nn_loss_parts lt, lr;
    zz_cuda_test_fail_launches(1);
    ck_assert(zzt_net_train_step(t, &ot, &b, -1, 1.0, &lt, err, sizeof err) != 0);
    zz_cuda_test_fail_launches(0);
    printf("test_cuda: injected failure (training step): %s\n", err);
    ck_assert_msg(!zzt_net_train_step(t, &ot, &b, -1, 1.0, &lt, err, sizeof err), "after the failure: %s", err);
    ck_assert_msg(!zzt_net_train_step(ref, &oref, &b, -1, 1.0, &lr, err, sizeof err), "%s", err);
    ck_assert(lt.policy == lr.policy && lt.value == lr.value && ot.step == oref.step);
    nn_model *a = nn_model_create(&m->cfg, NN_F32, 1, err, sizeof err), *c = nn_model_create(&m->cfg, NN_F32, 1, err, sizeof err);
    ck_assert(a && c && !zzt_net_download(t, a, err, sizeof err) && !zzt_net_download(ref, c, err, sizeof err));
    ck_assert_msg(!memcmp(a->param, c->param, m->nparams * 4), "after the failure the step differs from a fresh one");
    nn_model_free(a); nn_model_free(c);
    zzt_net_free(t); zzt_net_free(ref);
    nn_batch_free(&b);
}

/* What a run uses, each failing once on the GPU: mcts_eval_net_auto and the live evaluator go on
 * on the CPU (and say so) with the CPU evaluator's results; the trainer goes on on the CPU. */
static void run_parts_fall_back(const nn_model *m, uint64_t *rng)
{
    char err[320], backend[400], path[256];
    save_model(m, path, sizeof path, "fall");
    mcts_evaluator *a = mcts_eval_net_auto(path, backend, sizeof backend, err, sizeof err);
    mcts_evaluator *c = mcts_eval_nn_new(path, err, sizeof err), *l = tr_live_eval_new(m, NN_PREC_F32, err, sizeof err);
    ck_assert_msg(a && c && l, "%s", err);
    ck_assert_msg(!strncmp(backend, "cuda: ", 6) && !strncmp(tr_live_eval_backend(l), "GPU (", 5), "%s", backend);
    zz_cuda_test_fail_launches(1);
    same_evaluations(a, c, m->cfg.board, rng, 0, "auto evaluator after a GPU failure");
    ck_assert(!mcts_eval_nn_set_precision(c, "f32", err, sizeof err));   /* the live one is float, as training */
    zz_cuda_test_fail_launches(1);
    same_evaluations(l, c, m->cfg.board, rng, 1e-6f, "live evaluator after a GPU failure");
    zz_cuda_test_fail_launches(0);
    ck_assert_msg(strstr(a->name, "CPU fallback"), "%s", a->name);
    ck_assert_msg(!strncmp(tr_live_eval_backend(l), "CPU (the GPU network failed", 27), "%s", tr_live_eval_backend(l));
    mcts_evaluator_free(a); mcts_evaluator_free(c); mcts_evaluator_free(l);
    remove(path);
    small_replay sr;
    small_replay_init(&sr, m->cfg.board, rng);
    tr_trainer t;
    trainer_on(&t, m, zzt_cuda_backend(err, sizeof err));
    ck_assert_msg(!tr_trainer_step(&t, &sr.r, NULL, NULL, err, sizeof err), "%s", err);
    zz_cuda_test_fail_launches(1);
    ck_assert_msg(!tr_trainer_step(&t, &sr.r, NULL, NULL, err, sizeof err), "%s", err);
    zz_cuda_test_fail_launches(0);
    ck_assert_str_eq(tr_trainer_backend(&t), "cpu");
    ck_assert(tr_trainer_fallback(&t) && strstr(tr_trainer_fallback(&t), "cuda"));
    tr_trainer_free(&t);
}

START_TEST(failures_leave_the_gpu_usable)
{
    uint64_t rng = seed0 ^ 0x5151;
    nn_model *m = random_model(ZZ_B37, 2, &rng);
    zz_pos pos[8];
    for (int i = 0; i < 8; i++) random_position(&pos[i], ZZ_B37, &rng, 60);
    infer_recovers(m, pos, 0);
    infer_recovers(m, pos, 1);
    trainer_recovers(m, &rng);
    run_parts_fall_back(m, &rng);
    nn_model_free(m);
}
END_TEST

/* On a backend the next batch is built on a second thread during each step: the batches are
 * still the CPU trainer's, byte for byte and in the same order (one rng, drawn by one thread at a
 * time), each ready before its step, and the builder's time is counted apart. */
START_TEST(trainer_builds_next_batch_beside_backend_step)
{
    char err[512];
    uint64_t rng = seed0 ^ 0x6161;
    nn_model *m = random_model(ZZ_B37, 1, &rng);
    small_replay sr;
    small_replay_init(&sr, ZZ_B37, &rng);
    tr_trainer a, b;
    trainer_on(&a, m, NULL);
    trainer_on(&b, m, zzt_emu_backend());
    for (int step = 0; step < 4; step++) {
        int fa, fb;
        ck_assert_int_eq(b.next_ready, step > 0);
        ck_assert_msg(!tr_trainer_step(&a, &sr.r, NULL, &fa, err, sizeof err), "%s", err);
        ck_assert_msg(!tr_trainer_step(&b, &sr.r, NULL, &fb, err, sizeof err), "%s", err);
        ck_assert(b.next_ready && !a.next_ready);
        const nn_batch *x = &a.batch, *y = &b.batch;
        int P = a.model->geom.ncells;
        ck_assert_int_eq(fa, fb);
        ck_assert(x->n == y->n && x->nmoves == y->nmoves && x->nmoves > 0);
        ck_assert(!memcmp(x->x, y->x, sizeof(float) * (size_t)x->n * P * NN_PLANES));
        ck_assert(!memcmp(x->z, y->z, sizeof(float) * (size_t)x->n) && !memcmp(x->sym, y->sym, (size_t)x->n));
        ck_assert(!memcmp(x->start, y->start, sizeof(int) * ((size_t)x->n + 1)));
        ck_assert(!memcmp(x->pi, y->pi, sizeof(float) * (size_t)x->nmoves));
        ck_assert(!memcmp(x->term, y->term, sizeof(int32_t) * 2 * (size_t)x->nmoves));
    }
    ck_assert(b.beside_seconds > 0 && a.beside_seconds == 0);
    tr_trainer_free(&a);
    tr_trainer_free(&b);
    nn_model_free(m);
}
END_TEST

int main(void)
{
    seed0 = th_seed();
    char msg[320];
    int have = zz_cuda_available(msg, sizeof msg);
    Suite *suite = suite_create("cuda");
    TCase *tc = tcase_create("cuda");
    tcase_set_timeout(tc, 300);
    if (!have) {
        printf("\n"
               "****************************************************************************\n"
               "*** CUDA SUITE SKIPPED: %s\n"
               "*** (build: %s) -- no GPU op was checked against the CPU reference in this run\n"
               "****************************************************************************\n\n",
               msg, zz_cuda_build());
        th_skip("test_cuda", "CUDA inference kernels not run on a GPU (%s)", msg);
        tcase_add_test(tc, no_gpu_fails_cleanly);
    } else {
        zz_cuda_device_info info;
        char err[320];
        if (!zz_cuda_device_query(0, &info, err, sizeof err))
            printf("test_cuda: %s, sm_%d%d, %d SMs, %.1f GiB (%.1f free), driver %d, runtime %d; seed %llu\n", info.name,
                   info.major, info.minor, info.sms, info.total_mem / 1073741824.0, info.free_mem / 1073741824.0,
                   info.driver_version, info.runtime_version, (unsigned long long)seed0);
        tcase_add_test(tc, conv_matches_cpu);
        tcase_add_test(tc, infer_matches_cpu);
        tcase_add_test(tc, checkpoint_evaluators_agree);
        tcase_add_test(tc, graphs_recaptured_after_growth);
        /* its own case: injected launch failures are API errors that compute-sanitizer reports, so
           gpu_report.sh runs this case under memcheck with --report-api-errors no (CK_RUN_CASE=failures) */
        TCase *tf = tcase_create("failures");
        tcase_set_timeout(tf, 300);
        tcase_add_test(tf, failures_leave_the_gpu_usable);
        suite_add_tcase(suite, tf);
        /* its own case, to run alone: CK_RUN_CASE=threads (gpu_report.sh, under compute-sanitizer) */
        TCase *tt = tcase_create("threads");
        tcase_set_timeout(tt, 300);
        tcase_add_test(tt, evaluator_and_trainer_in_two_threads);
        suite_add_tcase(suite, tt);
    }
    tcase_add_test(tc, fake_no_image_gives_cpu_evaluators);
    tcase_add_test(tc, trainer_falls_back_to_cpu);
    tcase_add_test(tc, trainer_builds_next_batch_beside_backend_step);
    suite_add_tcase(suite, tc);
    /* the CUDA runtime may be initialised above; CUDA does not survive fork() */
    return th_run_nofork(suite) ? EXIT_FAILURE : EXIT_SUCCESS;
}
