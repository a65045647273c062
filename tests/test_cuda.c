/* test_cuda.c — the CUDA backend against the CPU reference (src/nn).  Inputs and weights are
 * random and fresh each run (never zeros; the seed is printed, ZZ_TEST_SEED=<n> repeats a run):
 *   - one fused conv (hex 3×3 and 1×1, with bias / residual / ReLU / tanh) against nn_conv_forward_f
 *     and nn_matmul_forward_f, by relative error;
 *   - the GPU inference net (zz_cuda_infer) against nn_infer on all three boards, on random input
 *     tensors and on positions reached by random play, with and without CUDA graphs;
 *   - a mixed batch gives each position exactly what it gets alone;
 *   - checkpoint file -> GPU evaluator agrees with checkpoint file -> CPU evaluator (priors, values).
 * Without a GPU (or built without CUDA) the suite says so loudly, checks that the GPU entry points
 * fail cleanly with a message, and passes. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cuda/backend.h"
#include "cuda/infer_cuda.h"
#include "cuda/net.h"
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

/* ---- with a GPU ---------------------------------------------------------------------------- */

/* One fused conv on the GPU against the CPU ops: hex C→C with residual + ReLU, hex 16→C, 1×1 with
 * an odd output count, dense with tanh. */
START_TEST(conv_matches_cpu)
{
    char err[320];
    uint64_t rng = seed0 ^ 0x1234;
    for (int kind = 0; kind < ZZ_NBOARDS; kind++) {
        nn_geom g;
        nn_geom_init(&g, (zz_board_kind)kind);
        int P = g.ncells, N = 5;
        int nbh[ZZ_MAX_RINGS * NN_TAPS];
        for (int i = 0; i < P; i++) for (int t = 0; t < NN_TAPS; t++) nbh[i * NN_TAPS + t] = g.nb[i][t];
        struct { int taps, ci, co, act, res; } cases[] = { { 7, 64, 64, 1, 1 }, { 7, 16, 64, 1, 0 }, { 1, 64, 6, 0, 0 },
                                                           { 1, 32, 4, 1, 0 }, { 7, 5, 3, 0, 1 }, { 1, 37, 1, 2, 0 } };
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            int taps = cases[c].taps, ci = cases[c].ci, co = cases[c].co, act = cases[c].act, rows = N * P;
            size_t nx = (size_t)rows * ci, nwt = (size_t)taps * ci * co, ny = (size_t)rows * co;
            float *x = malloc(nx * 4), *w = malloc(nwt * 4), *b = malloc(co * 4), *res = malloc(ny * 4);
            float *ref = malloc(ny * 4), *got = malloc(ny * 4);
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
            ck_assert(!zz_cuda_memset0(dy, ny * 4, err, sizeof err));
            ck_assert_msg(!zz_cu_conv(dy, dx, dw, db, cases[c].res ? dr : NULL, taps == 7 ? dnb : NULL, N, P, taps, ci,
                                      co, act, err, sizeof err), "%s", err);
            ck_assert_msg(!zz_cuda_sync(err, sizeof err), "%s", err);
            ck_assert(!zz_cuda_download(got, dy, ny * 4, err, sizeof err));
            double e = rel_err(got, ref, ny, 1e-3);
            ck_assert_msg(e < 2e-5, "board %d case %zu (taps %d, %d->%d): relative error %g", kind, c, taps, ci, co, e);
            zz_cuda_free(dx); zz_cuda_free(dw); zz_cuda_free(db); zz_cuda_free(dr); zz_cuda_free(dy); zz_cuda_free(dnb);
            free(x); free(w); free(b); free(res); free(ref); free(got);
        }
    }
}
END_TEST

/* The whole inference net: GPU == CPU (nn_infer) on random tensors and on positions; and each
 * position of a mixed batch gets exactly its output alone (graphs on and off). */
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
        for (int graphs = 0; graphs <= 1; graphs++) {
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
            for (int i = 0; i < N; i += 6) {
                ck_assert(!zz_cuda_infer_positions(gpu, &pos[i], 1, one, &v1, err, sizeof err));
                ck_assert_msg(!memcmp(one, lg + (size_t)i * P * NN_HEADS, sizeof(float) * P * NN_HEADS),
                              "board %d graphs %d: position %d alone differs from the batch", kind, graphs, i);
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
    }
    suite_add_tcase(suite, tc);
    /* the CUDA runtime may be initialised above; CUDA does not survive fork() */
    return th_run_nofork(suite) ? EXIT_FAILURE : EXIT_SUCCESS;
}
