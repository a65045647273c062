/* bench_nn.c — CPU network throughput: the hex convolution alone (GFLOP/s against the machine's
 * peak for the instruction set in use), then the default 37-ring network's inference forward
 * (folded), training forward, and forward+backward, in samples/s at batch 1, 64 and 256.
 *
 *   tools/bench_nn [--board 37|48|61] [--blocks B] [--channels C] [--seconds S] [--gpu]
 *
 * --gpu (make bench-gpu): the GPU inference net (src/cuda) at batch 1 .. 4096, end to end (host
 * input in, host outputs back), next to this machine's CPU inference at the same batch; then the
 * GPU training step (src/cuda/train_net.h) at batch 256 and 1024 next to the CPU's nn_train_step,
 * and the training kernels' hex convolution forward and backward alone.  Every GPU call is checked
 * (one before it is timed, and each timed one): a failure prints "zertz: bench_nn: GPU ...: why"
 * and exits 1 instead of timing calls that did nothing.
 *
 * Runs the table on 1 thread, then on all OpenMP threads, then times the priors from the policy
 * logits (nn_policy_priors, one thread; every search runs them on the CPU, the GPU's too) in ns a
 * legal move over the table's positions.  Peak: measured, as the FLOPs per
 * CPU-second of a loop of independent FMAs at the kernels' vector width on one thread (the most a
 * core does), printed beside the nominal clock (/proc/cpuinfo) × 2 FMA ports × lanes × 2.  Each row
 * gives wall-clock samples/s and GFLOP/s, and the FLOPs per CPU-second of the process against the
 * per-core peak: the kernels' efficiency, which stays meaningful on cores shared with other jobs.
 * FLOPs count a multiply-add as 2 and every hex convolution as 7 taps per cell (the off-board taps
 * included: what the kernel computes).
 * Bad usage: "zertz: bench_nn: OPTION: WHY", exit status 2 (tools/cli.h). */
#include "cli.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "nn/infer.h"
#include "nn/cpu_info.h"
#include "nn/int8.h"
#include "nn/train.h"
#include "nn/ops.h"
#include "nn/encode.h"
#include "nn/policy.h"
#include "cuda/backend.h"
#include "cuda/infer_cuda.h"
#include "cuda/train_net.h"
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define BENCH_X86 1
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double cpu_now(void)     /* CPU seconds of the whole process (all threads) */
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* ---- peak ---------------------------------------------------------------------------------- */
#ifdef BENCH_X86
__attribute__((target("avx512f,fma"))) static float fma_loop_512(long n)
{
    __m512 a[24], b = _mm512_set1_ps(1.0000001f), c = _mm512_set1_ps(1e-7f);
    for (int i = 0; i < 24; i++) a[i] = _mm512_set1_ps((float)i);
    for (long k = 0; k < n; k++)
        _Pragma("GCC unroll 24") for (int i = 0; i < 24; i++) a[i] = _mm512_fmadd_ps(a[i], b, c);
    __m512 s = a[0];
    for (int i = 1; i < 24; i++) s = _mm512_add_ps(s, a[i]);
    return _mm512_reduce_add_ps(s);
}
__attribute__((target("avx2,fma"))) static float fma_loop_256(long n)
{
    __m256 a[12], b = _mm256_set1_ps(1.0000001f), c = _mm256_set1_ps(1e-7f);
    for (int i = 0; i < 12; i++) a[i] = _mm256_set1_ps((float)i);
    for (long k = 0; k < n; k++)
        _Pragma("GCC unroll 12") for (int i = 0; i < 12; i++) a[i] = _mm256_fmadd_ps(a[i], b, c);
    __m256 s = a[0];
    for (int i = 1; i < 12; i++) s = _mm256_add_ps(s, a[i]);
    float o[8];
    _mm256_storeu_ps(o, s);
    return o[0];
}
#endif

/* FLOP/s of independent FMAs on every thread at the kernels' vector width (0 when no kernels). */
static double measured_peak(const char *isa, double *per_core)
{
    double total = 0;
    *per_core = 0;
#ifdef BENCH_X86
    int wide = !strcmp(isa, "avx512");
    if (!wide && strcmp(isa, "avx2")) return 0;
    long n = 20000000;
    double best = 0;
    for (int rep = 0; rep < 2; rep++) {
        double t0 = now();
        volatile float sink = 0;
        NN_OMP(parallel)
        {
            float r = wide ? fma_loop_512(n) : fma_loop_256(2 * n);
            NN_OMP(atomic)
            sink += r;
        }
        double dt = now() - t0, flops = (double)threads() * (wide ? 24.0 * 16 * 2 * n : 12.0 * 8 * 2 * 2 * n);
        if (flops / dt > best) best = flops / dt;
        (void)sink;
    }
    total = best;
    double t0 = cpu_now();
    volatile float s1 = wide ? fma_loop_512(n) : fma_loop_256(2 * n);
    (void)s1;
    *per_core = (wide ? 24.0 * 16 * 2 * n : 12.0 * 8 * 2 * 2 * n) / (cpu_now() - t0);   /* per CPU-second */
#else
    (void)isa;
#endif
    return total;
}

static double cpu_mhz(void)
{
    char mhz[64];
    return nn_cpuinfo_field("cpu MHz", mhz, sizeof mhz) ? atof(mhz) : 0;
}

/* ---- timing helper: run f until `seconds` pass (at least 3 times); wall and CPU seconds per call.
 * CPU time counts only the time the threads ran (spin-waits included), so FLOPs per CPU-second
 * against the per-core peak is the kernels' efficiency even when other jobs share the cores. ---- */
typedef void (*bench_fn)(void *ctx);
static double time_it(bench_fn f, void *ctx, double seconds, double *cpu)
{
    f(ctx);                                     /* warm up (allocations, caches) */
    int n = 0;
    double t0 = now(), c0 = cpu_now(), t;
    do { f(ctx); n++; t = now() - t0; } while (t < seconds || n < 3);
    *cpu = (cpu_now() - c0) / n;
    return t / n;
}

typedef struct {
    nn_model *m;
    nn_infer *inf;
    nn_batch *b;
    int N;
    float *logits, *values;
    const nn_geom *g;
    float *x, *y, *w, *dx, *dw;
    int C;
    zz_cuda_infer *gpu;
    char gpu_err[320];          /* the first GPU failure of a timed call ("" while none) */
} ctx_t;

static void run_infer(void *p) { ctx_t *c = p; nn_infer_forward(c->inf, c->b->x, c->N, c->logits, c->values, NULL, 0); }
static void run_infer_x(void *p) { ctx_t *c = p; nn_infer_forward(c->inf, c->x, c->N, c->logits, c->values, NULL, 0); }
static void run_train_fwd(void *p) { ctx_t *c = p; nn_model_forward(c->m, c->b->x, c->N, true, NULL, 0); }
static void run_fwd_bwd(void *p)
{
    ctx_t *c = p;
    nn_model_forward(c->m, c->b->x, c->N, true, NULL, 0);
    nn_model_zero_grad(c->m);
    nn_loss(c->m, c->b, 1.0, 0.0, true, NULL, NULL, 0);
}
static void run_conv_fwd(void *p) { ctx_t *c = p; nn_conv_forward_f(c->y, c->x, c->w, c->g, c->N, c->C, c->C); }
static void run_conv_bwd(void *p) { ctx_t *c = p; nn_conv_backward_f(c->dx, c->dw, c->y, c->x, c->w, c->g, c->N, c->C, c->C); }

/* The inference row again with the hex convolutions in int8 (int8.h), as a ratio to float's time
 * t_f32 measured just before; says why where this CPU has no int8 kernel. */
static void infer_int8_row(ctx_t *c, int N, double t_f32, double seconds)
{
    char err[256], name[40];
    nn_int8_kernel k = nn_int8_active_kernel();
    snprintf(name, sizeof name, "  the same in int8 (%s)", nn_int8_kernel_name(k));
    if (k == NN_INT8_NONE || nn_infer_set_precision(c->inf, NN_PREC_INT8, err, sizeof err)) {
        printf("%-6d %-26s   not run: this CPU lacks %s\n", N, "  the same in int8", NN_INT8_NEEDS);
        return;
    }
    double cpu, t = time_it(run_infer, c, seconds, &cpu);
    nn_infer_set_precision(c->inf, NN_PREC_F32, err, sizeof err);
    printf("%-6d %-26s %10.0f   (x%.2f of float)\n", N, name, N / t, t_f32 / t);
}

/* Peak, the convolution alone and the network at batch 1, 64, 256, on threads() threads. */
static int table(ctx_t *c, nn_sample *s, nn_batch *b, uint64_t *rng, const char *isa, double seconds)
{
    char err[256];
    nn_model *m = c->m;
    int P = m->geom.ncells;
    double per_core, peak = measured_peak(isa, &per_core), mhz = cpu_mhz();
    int lanes = !strcmp(isa, "avx512") ? 16 : !strcmp(isa, "avx2") ? 8 : 1;
    double nominal = threads() * mhz * 1e6 * 2 /* FMA ports */ * lanes * 2;
    printf("\n==== %d thread%s. Peak assumed: %.1f GFLOP/s per core = a loop of independent %s FMAs,\n"
           "     per CPU-second of one thread (nominal: %.0f MHz x 2 FMA ports x %d lanes x 2 = %.1f);\n"
           "     the same loop on %d thread%s just now, wall clock: %.1f GFLOP/s\n",
           threads(), threads() > 1 ? "s" : "", per_core / 1e9, isa, mhz, lanes, nominal / threads() / 1e9,
           threads(), threads() > 1 ? "s" : "", peak / 1e9);
    double core_peak = per_core > 0 ? per_core : nominal / threads();
    {
        int N = 256, C = c->C;
        size_t rows = (size_t)N * P;
        c->N = N;
        c->x = malloc(sizeof(float) * rows * C);
        c->y = malloc(sizeof(float) * rows * C);
        c->dx = calloc(rows * C, sizeof(float));
        c->w = malloc(sizeof(float) * NN_TAPS * C * C);
        c->dw = calloc((size_t)NN_TAPS * C * C, sizeof(float));
        for (size_t i = 0; i < rows * C; i++) c->x[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
        for (size_t i = 0; i < (size_t)NN_TAPS * C * C; i++) c->w[i] = (float)((i * 40503u) % 1000) / 1000.0f - 0.5f;
        double fl = 2.0 * rows * NN_TAPS * C * C;
        double cf, cb, tf = time_it(run_conv_fwd, c, seconds, &cf), tb = time_it(run_conv_bwd, c, seconds, &cb);
        printf("hex conv %d->%d, batch %d (%zu rows)      wall GFLOP/s   per CPU-s   %% of core peak\n", C, C, N, rows);
        printf("  %-34s %10.1f %11.1f %10.1f%%\n", "forward", fl / tf / 1e9, fl / cf / 1e9, 100 * fl / cf / core_peak);
        printf("  %-34s %10.1f %11.1f %10.1f%%\n", "backward (dx + dw)", 2 * fl / tb / 1e9, 2 * fl / cb / 1e9, 100 * 2 * fl / cb / core_peak);
        free(c->x); free(c->y); free(c->dx); free(c->w); free(c->dw);
    }
    double f1 = nn_model_flops(m);
    printf("%-6s %-26s %10s %10s %11s %8s\n", "batch", "pass", "samples/s", "GFLOP/s", "per CPU-s", "% core");
    int batches[3] = { 1, 64, 256 };
    for (int k = 0; k < 3; k++) {
        int N = batches[k];
        c->N = N;
        if (nn_batch_build(b, &m->geom, s, N, NULL, rng, err, sizeof err)) {
            fprintf(stderr, "zertz: bench_nn: %s\n", err);
            return 1;
        }
        struct { const char *name; bench_fn f; double mult; } runs[3] = {
            { "inference (folded, fused)", run_infer, 1 },
            { "training forward", run_train_fwd, 1 },
            { "forward + backward", run_fwd_bwd, 3 },
        };
        double t_f32 = 0;
        for (int r = 0; r < 3; r++) {
            if (N == 1 && r > 0) continue;      /* batch statistics of one position: not a use */
            double cpu, t = time_it(runs[r].f, c, seconds, &cpu);
            double fl = runs[r].mult * f1 * N;
            printf("%-6d %-26s %10.0f %10.1f %11.1f %7.1f%%\n", N, runs[r].name, N / t, fl / t / 1e9,
                   fl / cpu / 1e9, 100 * fl / cpu / core_peak);
            if (r == 0) t_f32 = t;
            if (r == 0) infer_int8_row(c, N, t_f32, seconds);
        }
    }
    return 0;
}


/* One GPU forward; a failure is kept in c->gpu_err (the first one), to be reported, not timed. */
static void run_gpu(void *p)
{
    ctx_t *c = p;
    char err[320];
    if (zz_cuda_infer_forward(c->gpu, c->x, c->N, c->logits, c->values, err, sizeof err) != 0 && !c->gpu_err[0])
        snprintf(c->gpu_err, sizeof c->gpu_err, "%s", err);
}

/* Time run_gpu at c->N after one checked call: the seconds per call, or -1 after a message on
 * stderr (the GPU failed, before or while being timed). */
static double time_gpu(ctx_t *c, double seconds)
{
    double cpu, t = -1;
    c->gpu_err[0] = 0;
    run_gpu(c);
    if (!c->gpu_err[0]) t = time_it(run_gpu, c, seconds, &cpu);
    if (!c->gpu_err[0]) return t;
    fprintf(stderr, "zertz: bench_nn: GPU inference at batch %d: %s\n", c->N, c->gpu_err);
    return -1;
}

static double gpu_fma_gflops = 1;     /* the device's measured fp32 FMA rate (zz_cuda_ceilings) */

/* GPU inference at batch 1 .. 4096 against the CPU's (all threads), in one run.  0, or 1 on error. */
static int gpu_table(ctx_t *c, const zz_pos *pos, int npos, double seconds)
{
    enum { GMAX = 4096 };
    char err[256];
    c->gpu = zz_cuda_infer_create(c->m, GMAX, ZZ_CUDA_GRAPHS, err, sizeof err);
    if (!c->gpu) { fprintf(stderr, "zertz: bench_nn: GPU net: %s\n", err); return 1; }
    int P = c->g->ncells;
    float *x = malloc(sizeof(float) * GMAX * P * NN_PLANES);
    float *lg = malloc(sizeof(float) * GMAX * P * NN_HEADS), *vl = malloc(sizeof(float) * GMAX);
    if (!x || !lg || !vl) { fprintf(stderr, "zertz: bench_nn: out of memory\n"); return 1; }
    for (int i = 0; i < GMAX; i++) nn_encode(c->g, &pos[i % npos], x + (size_t)i * P * NN_PLANES);
    float *keep_x = c->x, *keep_l = c->logits, *keep_v = c->values;
    c->x = x; c->logits = lg; c->values = vl;
    double flops = nn_model_flops(c->m);
    printf("\n==== GPU inference (folded, fused, CUDA graphs), host buffers in and out\n");
    printf("batch   GPU samples/s   GPU GFLOP/s   of FMA peak   CPU samples/s   GPU/CPU\n");
    static const int NS[] = { 1, 64, 256, 1024, 4096 };
    int rc = 0;
    for (unsigned k = 0; k < sizeof NS / sizeof *NS && !rc; k++) {
        c->N = NS[k];
        double cpu, tg = time_gpu(c, seconds);
        if (tg < 0) { rc = 1; break; }
        c->x = x;
        double tc = time_it(run_infer_x, c, seconds, &cpu);
        double gf = flops * c->N / tg / 1e9;
        printf("%-6d %15.0f %13.1f %12.1f%% %15.0f %9.1fx\n", c->N, c->N / tg, gf, 100 * gf / gpu_fma_gflops, c->N / tc,
               tc / tg);
    }
    c->x = keep_x; c->logits = keep_l; c->values = keep_v;
    zz_cuda_infer_free(c->gpu);
    free(x); free(lg); free(vl);
    return rc;
}

typedef struct {
    zzt_net *net;
    nn_sgd sgd;
    nn_batch *b;
    nn_model *m;
    zzt_ctx *ops;
    float *x, *y, *w, *dx, *dw;     /* backend memory, for the per-op lines */
    const int *nb;
    int rows, P, C;
    char gpu_err[320];              /* the first GPU failure of a timed call ("" while none) */
} train_ctx;

/* Keep the first GPU failure (what failed: rc -1 and err) in t->gpu_err. */
static void gpu_failed(train_ctx *t, int rc, const char *what, const char *err)
{
    if (rc != 0 && !t->gpu_err[0]) snprintf(t->gpu_err, sizeof t->gpu_err, "%s: %s", what, err[0] ? err : "failed");
}

static void run_gpu_step(void *p)
{
    train_ctx *t = p;
    char err[320] = "";
    gpu_failed(t, zzt_net_train_step(t->net, &t->sgd, t->b, -1, 1.0, NULL, err, sizeof err), "training step", err);
}
static void run_cpu_step(void *p) { train_ctx *t = p; nn_train_step(t->m, &t->sgd, t->b, 1.0, 0.0, NULL, NULL, 0); }
static void run_gpu_conv(void *p)
{
    train_ctx *t = p;
    char err[320] = "";
    int rc = zzt_conv_forward(t->ops, t->y, t->x, t->w, NULL, t->nb, t->rows, t->P, NN_TAPS, t->C, t->C);
    if (rc) snprintf(err, sizeof err, "%s", zzt_error(t->ops));
    else rc = zzt_ctx_backend(t->ops)->sync(err, sizeof err);
    gpu_failed(t, rc, "hex conv forward", err);
}
static void run_gpu_conv_bwd(void *p)
{
    train_ctx *t = p;
    char err[320] = "";
    int rc = zzt_conv_backward(t->ops, t->dx, t->dw, NULL, t->y, t->x, t->w, t->nb, t->rows, t->P, NN_TAPS, t->C, t->C);
    if (rc) snprintf(err, sizeof err, "%s", zzt_error(t->ops));
    else rc = zzt_ctx_backend(t->ops)->sync(err, sizeof err);
    gpu_failed(t, rc, "hex conv backward", err);
}

/* Time the GPU call f on t after one checked call: seconds per call, or -1 after a message on
 * stderr (the GPU failed, before or while being timed). */
static double time_gpu_train(bench_fn f, train_ctx *t, double seconds)
{
    double cpu, s = -1;
    t->gpu_err[0] = 0;
    f(t);
    if (!t->gpu_err[0]) s = time_it(f, t, seconds, &cpu);
    if (!t->gpu_err[0]) return s;
    fprintf(stderr, "zertz: bench_nn: GPU training: %s\n", t->gpu_err);
    return -1;
}

/* GPU training (src/cuda/train_net.h: the tape on the GPU's training kernels) at batch 256 and
 * 1024 next to the CPU's nn_train_step, in one run; and the hex convolution's share.  0 or 1. */
static int gpu_train_table(nn_model *m, const nn_sample *s, int ns, double seconds)
{
    char err[320];
    const zzt_backend *be = zzt_cuda_backend(err, sizeof err);
    if (!be) { fprintf(stderr, "zertz: bench_nn: GPU training: %s\n", err); return 1; }
    enum { TMAX = 1024 };
    nn_sample *all = malloc(sizeof *all * TMAX);
    nn_batch b;
    nn_batch_init(&b);
    train_ctx t = { .m = m, .b = &b };
    nn_sgd_default(&t.sgd);
    t.net = zzt_net_create(be, m, err, sizeof err);
    if (!all || !t.net) { fprintf(stderr, "zertz: bench_nn: GPU training: %s\n", all ? err : "out of memory"); return 1; }
    for (int i = 0; i < TMAX; i++) all[i] = s[i % ns];
    uint64_t rng = 5;
    double f1 = nn_model_flops(m);
    printf("\n==== GPU training step (forward with batch statistics, losses, backward, SGD; CUDA training kernels)\n");
    printf("batch   GPU samples/s   GPU GFLOP/s   of FMA peak   CPU samples/s   GPU/CPU\n");
    static const int NS[] = { 256, 1024 };
    for (unsigned k = 0; k < sizeof NS / sizeof *NS; k++) {
        int N = NS[k];
        if (nn_batch_build(&b, &m->geom, all, N, NULL, &rng, err, sizeof err) ||
            zzt_net_train_step(t.net, &t.sgd, &b, -1, 1.0, NULL, err, sizeof err)) {
            fprintf(stderr, "zertz: bench_nn: GPU training: %s\n", err);
            return 1;
        }
        double cpu, tg = time_gpu_train(run_gpu_step, &t, seconds);
        if (tg < 0) return 1;
        double tc = time_it(run_cpu_step, &t, seconds, &cpu);
        double gf = 3 * f1 * N / tg / 1e9;
        printf("%-6d %15.0f %13.1f %12.1f%% %15.0f %9.1fx\n", N, N / tg, gf, 100 * gf / gpu_fma_gflops, N / tc, tc / tg);
    }
    /* the hex convolution C->C alone, batch 256 */
    t.ops = zzt_ctx_new(be, err, sizeof err);
    t.P = m->geom.ncells;
    t.C = m->cfg.channels;
    t.rows = 256 * t.P;
    size_t na = (size_t)t.rows * t.C, nw = (size_t)NN_TAPS * t.C * t.C;
    int nbh[ZZ_MAX_RINGS * NN_TAPS];
    for (int i = 0; i < t.P; i++) for (int k = 0; k < NN_TAPS; k++) nbh[i * NN_TAPS + k] = m->geom.nb[i][k];
    t.x = be->alloc(na * 4, err, sizeof err); t.y = be->alloc(na * 4, err, sizeof err);
    t.dx = be->alloc(na * 4, err, sizeof err); t.w = be->alloc(nw * 4, err, sizeof err);
    t.dw = be->alloc(nw * 4, err, sizeof err);
    int *nb = be->alloc(sizeof nbh, err, sizeof err);
    if (!t.ops || !t.x || !t.y || !t.dx || !t.w || !t.dw || !nb || be->upload(nb, nbh, sizeof(int) * t.P * NN_TAPS, err, sizeof err)) {
        fprintf(stderr, "zertz: bench_nn: GPU training: %s\n", err);
        return 1;
    }
    t.nb = nb;
    double fl = 2.0 * t.rows * NN_TAPS * t.C * t.C;
    double tf = time_gpu_train(run_gpu_conv, &t, seconds), tb = tf < 0 ? -1 : time_gpu_train(run_gpu_conv_bwd, &t, seconds);
    if (tb < 0) return 1;
    printf("hex conv %d->%d, batch 256 (training kernels): forward %.1f GFLOP/s, backward (dx + dw) %.1f GFLOP/s\n",
           t.C, t.C, fl / tf / 1e9, 2 * fl / tb / 1e9);
    void *bufs[] = { t.x, t.y, t.dx, t.w, t.dw, nb };
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) be->release(bufs[i]);
    zzt_ctx_free(t.ops);
    zzt_net_free(t.net);
    nn_batch_free(&b);
    free(all);
    return 0;
}

/* The priors from the logits (nn_policy_priors: each move's score, the softmax over the legal
 * moves), which a search runs on the CPU for every evaluated position, the GPU's too: ns a move
 * over the npos positions' legal moves (generated beforehand), with random logits. */
typedef struct { const nn_geom *g; const zz_pos *pos; int npos; const float *logits; float *priors; const zz_move *mv; const int *nmv; } priors_ctx;

static void run_priors(void *p) {
    priors_ctx *c = p;
    int L = c->g->ncells * NN_HEADS;
    for (int i = 0; i < c->npos; i++)
        nn_policy_priors(c->g, c->logits + (size_t)i * L, &c->pos[i], c->mv + (size_t)i * ZZ_MAX_MOVES, c->nmv[i], c->priors);
}

static void priors_row(const nn_geom *g, const zz_pos *pos, int npos, uint64_t *rng, double seconds) {
    int L = g->ncells * NN_HEADS;
    float *logits = malloc(sizeof(float) * (size_t)npos * (size_t)L), *priors = malloc(sizeof(float) * ZZ_MAX_MOVES);
    zz_move *mv = malloc(sizeof(zz_move) * ZZ_MAX_MOVES * (size_t)npos);
    int *nmv = malloc(sizeof(int) * (size_t)npos);
    if (!logits || !priors || !mv || !nmv) fprintf(stderr, "zertz: bench_nn: out of memory for the priors row\n");
    else {
        long moves = 0;
        for (int i = 0; i < npos; i++) moves += nmv[i] = zz_gen_moves(&pos[i], mv + (size_t)i * ZZ_MAX_MOVES);
        for (long i = 0; i < (long)npos * L; i++) logits[i] = (float)zz_rand_below(rng, 1u << 24) / (float)(1 << 23) - 1.0f;
        priors_ctx c = { g, pos, npos, logits, priors, mv, nmv };
        double cpu, per = time_it(run_priors, &c, seconds, &cpu);
        printf("priors (nn_policy_priors, one thread): %.1f ns a move, %.1f us a position (%ld legal moves over %d positions)\n",
               per / (double)moves * 1e9, per / npos * 1e6, moves, npos);
    }
    free(logits); free(priors); free(mv); free(nmv);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: bench_nn [--board 37|48|61] [--blocks B] [--channels C] [--seconds S] [--gpu]\n"
               "CPU network throughput: the hex convolution alone, then the default network's inference,\n"
               "training forward and forward+backward at batch 1, 64 and 256 (1 thread, then all).\n"
               "  --board R      board: 37, 48 or 61 rings (default 37)\n"
               "  --blocks B     residual blocks, 0..64 (default: the board's default network)\n"
               "  --channels C   channels, 1..1024 (default: the board's default network)\n"
               "  --seconds S    seconds per measure, 0.01..3600 (default 0.5)\n"
               "  --gpu          the GPU inference and training tables instead (skipped without a GPU)\n"
               "  -h, --help     this text\n");
}

int main(int argc, char **argv)
{
    int rings = 37, blocks = -1, channels = -1;
    bool gpu = false;
    double seconds = 0.5;
    const char *tool = "bench_nn";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) { usage(stdout); return 0; }
        else if (!strcmp(a, "--gpu")) gpu = true;
        else if (!strcmp(a, "--board")) { if (!cli_rings_opt(tool, argc, argv, &i, &rings)) return 2; }
        else if (!strcmp(a, "--blocks")) { if (!cli_int_opt(tool, argc, argv, &i, 0, 64, &blocks)) return 2; }
        else if (!strcmp(a, "--channels")) { if (!cli_int_opt(tool, argc, argv, &i, 1, 1024, &channels)) return 2; }
        else if (!strcmp(a, "--seconds")) { if (!cli_double_opt(tool, argc, argv, &i, 0.01, 3600, &seconds)) return 2; }
        else return cli_unknown(tool, a);
    }
    if (gpu) {
        char why[256];
        if (!zz_cuda_select(why, sizeof why)) {
            printf("bench_nn --gpu: SKIPPED, no usable GPU: %s\n", why);
            return 0;
        }
        printf("bench_nn --gpu: %s\n", why);
    }
    const zz_board *board = zz_board_for_rings(rings);
    if (!board) { fprintf(stderr, "zertz: bench_nn: no board with %d rings\n", rings); return 2; }
    nn_config cfg;
    nn_config_default(&cfg, board->kind);
    if (blocks >= 0) cfg.blocks = blocks;
    if (channels > 0) cfg.channels = channels;
    char err[256];
    nn_model *m = nn_model_create(&cfg, NN_F32, 1, err, sizeof err);
    if (!m) { fprintf(stderr, "zertz: bench_nn: %s\n", err); return 1; }

    printf("command: ");
    for (int i = 0; i < argc; i++) printf("%s%s", i ? " " : "", argv[i]);
    printf("\n");
    const char *isa = nn_fast_isa();
    printf("net: %d rings, %d blocks x %d channels, policy %d, value %d/%d; %.1f MFLOP/sample forward; %zu parameters\n",
           rings, cfg.blocks, cfg.channels, cfg.policy_channels, cfg.value_channels, cfg.value_hidden,
           nn_model_flops(m) / 1e6, nn_model_nparams(m));
    nn_cpu_print_line("");

    /* one batch of real positions, reused */
    int P = m->geom.ncells, maxN = 256;
    nn_sample *s = calloc((size_t)maxN, sizeof *s);
    zz_pos *pos = calloc((size_t)maxN, sizeof *pos);
    nn_visit *vis = calloc((size_t)maxN, sizeof *vis);
    static zz_move mv[ZZ_MAX_MOVES];
    uint64_t rng = 99;
    for (int i = 0; i < maxN; i++) {
        do {
            zz_pos_init(&pos[i], board->kind);
            int n = (int)zz_rand_below(&rng, 40);
            for (int k = 0; k < n && !zz_over(&pos[i]); k++) zz_apply(&pos[i], zz_random_move(&pos[i], &rng), NULL);
        } while (zz_over(&pos[i]));
        int n = zz_gen_moves(&pos[i], mv);
        vis[i] = (nn_visit){ mv[zz_rand_below(&rng, (uint32_t)n)], 1 };
        s[i] = (nn_sample){ .pos = pos[i], .visits = &vis[i], .nvisits = 1 };
    }
    nn_batch b;
    nn_batch_init(&b);
    ctx_t c = { .m = m, .g = &m->geom, .C = cfg.channels };
    c.inf = nn_infer_create(m, err, sizeof err);
    c.logits = malloc(sizeof(float) * maxN * P * NN_HEADS);
    c.values = malloc(sizeof(float) * maxN);
    c.b = &b;

    int all = threads();
    if (gpu) {
#ifdef _OPENMP
        omp_set_num_threads(all);
#endif
        double copy_gbs = 0, fma_gflops = 0;
        if (zz_cuda_ceilings(&copy_gbs, &fma_gflops, err, sizeof err)) {
            fprintf(stderr, "zertz: bench_nn: GPU ceilings: %s\n", err);
            return 1;
        }
        printf("GPU ceilings, measured now: copy %.0f GB/s (bytes read + written), fp32 FMA %.0f GFLOP/s; conv kernel %s\n",
               copy_gbs, fma_gflops, zz_cuda_conv_kernel() == 2 ? "64-row tiles (ZZ_CUDA_CONV=2)" :
               zz_cuda_conv_kernel() == 4 ? "128-row tiles (ZZ_CUDA_CONV=4)" : "by size");
        gpu_fma_gflops = fma_gflops;
        int rc = gpu_table(&c, pos, maxN, seconds);
        if (!rc) rc = gpu_train_table(m, s, maxN, seconds);
        nn_infer_free(c.inf);
        nn_batch_free(&b);
        nn_model_free(m);
        return rc;
    }
    for (int tc = 0; tc < (all > 1 ? 2 : 1); tc++) {
#ifdef _OPENMP
        omp_set_num_threads(tc ? all : 1);
#endif
        if (table(&c, s, &b, &rng, isa, seconds)) return 1;
    }
    priors_row(&m->geom, pos, maxN, &rng, seconds);
    nn_infer_free(c.inf);
    nn_batch_free(&b);
    nn_model_free(m);
    free(s); free(pos); free(vis); free(c.logits); free(c.values);
    return 0;
}
