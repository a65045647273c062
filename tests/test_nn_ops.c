/* test_nn_ops.c — every op of the CPU network: backward against central finite differences in
 * double precision (on all three boards for the hex convolution), the hex convolution against a
 * masked 3×3 convolution on the square grid, and the float kernels (each instruction set the CPU
 * has) against the double reference. */
#include "helpers.h"
#include <check.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nn/ops.h"
#include "nn/cpu_info.h"
#include "nn/int8.h"
#include <unistd.h>

static uint64_t rng_state = 12345;
static double urand(void)    /* uniform in [-1, 1) */
{
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 4503599627370496.0 - 1.0;
}
static double *drand_buf(size_t n) { double *p = malloc(n * sizeof *p); for (size_t i = 0; i < n; i++) p[i] = urand(); return p; }
static double *dzeros(size_t n) { return calloc(n, sizeof(double)); }

/* ---- finite-difference harness ------------------------------------------------------------------
 * The scalar L = sum g·y(θ) for a fixed random g; fd() perturbs one buffer element. */
typedef double (*loss_fn)(void *ctx);

static double dot(const double *a, const double *b, size_t n) { double s = 0; for (size_t i = 0; i < n; i++) s += a[i] * b[i]; return s; }

/* Compare analytic gradient ga[n] of L with respect to buffer p[n] against central differences. */
static void check_grad(const char *what, loss_fn L, void *ctx, double *p, const double *ga, size_t n)
{
    const double h = 1e-6;
    double worst = 0;
    size_t worst_i = 0;
    for (size_t i = 0; i < n; i++) {
        double keep = p[i];
        p[i] = keep + h; double lp = L(ctx);
        p[i] = keep - h; double lm = L(ctx);
        p[i] = keep;
        double num = (lp - lm) / (2 * h);
        double err = fabs(num - ga[i]) / fmax(1.0, fmax(fabs(num), fabs(ga[i])));
        if (err > worst) { worst = err; worst_i = i; }
    }
    ck_assert_msg(worst < 1e-6, "%s: gradient mismatch %.3g at element %zu (analytic %.9g)", what, worst, worst_i, ga[worst_i]);
}

/* ---- hex convolution ------------------------------------------------------------------------------ */
typedef struct { const nn_geom *g; int N, Ci, Co; double *x, *w, *y, *gy; } conv_ctx;

static double conv_loss(void *c)
{
    conv_ctx *k = c;
    nn_conv_forward_d(k->y, k->x, k->w, k->g, k->N, k->Ci, k->Co);
    return dot(k->y, k->gy, (size_t)k->N * k->g->ncells * k->Co);
}

START_TEST(conv_gradient_all_boards)
{
    for (int kind = 0; kind < ZZ_NBOARDS; kind++) {
        nn_geom g;
        nn_geom_init(&g, (zz_board_kind)kind);
        conv_ctx k = { &g, 2, 3, 4, NULL, NULL, NULL, NULL };
        size_t rows = (size_t)k.N * g.ncells;
        k.x = drand_buf(rows * k.Ci);
        k.w = drand_buf((size_t)NN_TAPS * k.Ci * k.Co);
        k.y = dzeros(rows * k.Co);
        k.gy = drand_buf(rows * k.Co);
        double *dx = dzeros(rows * k.Ci), *dw = dzeros((size_t)NN_TAPS * k.Ci * k.Co);
        conv_loss(&k);
        nn_conv_backward_d(dx, dw, k.gy, k.x, k.w, &g, k.N, k.Ci, k.Co);
        check_grad("conv dx", conv_loss, &k, k.x, dx, rows * k.Ci);
        check_grad("conv dw", conv_loss, &k, k.w, dw, (size_t)NN_TAPS * k.Ci * k.Co);
        free(k.x); free(k.w); free(k.y); free(k.gy); free(dx); free(dw);
    }
}
END_TEST

/* The hex convolution is a 3×3 convolution on the square grid with the (+1,-1) and (-1,+1)
 * corners zero, off-board cells read as zero and zeroed after. */
START_TEST(conv_is_masked_grid_conv)
{
    for (int kind = 0; kind < ZZ_NBOARDS; kind++) {
        nn_geom g;
        nn_geom_init(&g, (zz_board_kind)kind);
        int Ci = 3, Co = 2, H = g.grid_h, W = g.grid_w, P = g.ncells;
        double *x = drand_buf((size_t)P * Ci), *w = drand_buf((size_t)NN_TAPS * Ci * Co), *y = dzeros((size_t)P * Co);
        nn_conv_forward_d(y, x, w, &g, 1, Ci, Co);
        /* grid planes and a 3×3 kernel k[co][ci][da+1][dq+1] */
        double *grid = dzeros((size_t)Ci * H * W), k[8][8][3][3];
        bool on[ZZ_MAX_GRID][ZZ_MAX_GRID] = { { false } };
        for (int i = 0; i < P; i++) {
            on[g.grid[i] / W][g.grid[i] % W] = true;
            for (int ci = 0; ci < Ci; ci++) grid[(size_t)ci * H * W + g.grid[i]] = x[i * Ci + ci];
        }
        memset(k, 0, sizeof k);
        for (int t = 0; t < NN_TAPS; t++)
            for (int ci = 0; ci < Ci; ci++)
                for (int co = 0; co < Co; co++)
                    k[co][ci][NN_TAP_DA[t] + 1][NN_TAP_DQ[t] + 1] = w[(t * Ci + ci) * Co + co];
        ck_assert(k[0][0][0][2] == 0 && k[0][0][2][0] == 0);    /* the structural zeros */
        for (int i = 0; i < P; i++) {
            int a = g.grid[i] / W, q = g.grid[i] % W;
            for (int co = 0; co < Co; co++) {
                double s = 0;
                for (int da = -1; da <= 1; da++)
                    for (int dq = -1; dq <= 1; dq++) {
                        int a2 = a + da, q2 = q + dq;
                        if (a2 < 0 || a2 >= H || q2 < 0 || q2 >= W || !on[a2][q2]) continue;
                        for (int ci = 0; ci < Ci; ci++) s += k[co][ci][da + 1][dq + 1] * grid[(size_t)ci * H * W + a2 * W + q2];
                    }
                ck_assert_msg(fabs(s - y[i * Co + co]) < 1e-12, "board %d cell %d: grid %g hex %g", kind, i, s, y[i * Co + co]);
            }
        }
        /* every on-board cell has exactly its six hex neighbours (or fewer at the edge) */
        for (int i = 0; i < P; i++) {
            ck_assert_int_eq(g.nb[i][3], i);
            int n = 0;
            for (int t = 0; t < NN_TAPS; t++) n += g.nb[i][t] >= 0;
            ck_assert(n >= 3 + 1 && n <= 7);
        }
        free(x); free(w); free(y); free(grid);
    }
}
END_TEST

/* ---- matmul ---------------------------------------------------------------------------------------- */
typedef struct { int rows, in, out; double *x, *w, *b, *y, *gy; } mm_ctx;

static double mm_loss(void *c)
{
    mm_ctx *k = c;
    nn_matmul_forward_d(k->y, k->x, k->w, k->b, k->rows, k->in, k->out);
    return dot(k->y, k->gy, (size_t)k->rows * k->out);
}

START_TEST(matmul_gradient)
{
    mm_ctx k = { 5, 7, 3, NULL, NULL, NULL, NULL, NULL };
    k.x = drand_buf(35); k.w = drand_buf(21); k.b = drand_buf(3); k.y = dzeros(15); k.gy = drand_buf(15);
    double *dx = dzeros(35), *dw = dzeros(21), *db = dzeros(3);
    mm_loss(&k);
    nn_matmul_backward_d(dx, dw, db, k.gy, k.x, k.w, k.rows, k.in, k.out);
    check_grad("matmul dx", mm_loss, &k, k.x, dx, 35);
    check_grad("matmul dw", mm_loss, &k, k.w, dw, 21);
    check_grad("matmul db", mm_loss, &k, k.b, db, 3);
    free(k.x); free(k.w); free(k.b); free(k.y); free(k.gy); free(dx); free(dw); free(db);
}
END_TEST

/* ---- batch norm -------------------------------------------------------------------------------------- */
typedef struct { int rows, C; double *x, *gamma, *beta, *y, *gy, *mean, *rstd; } bn_ctx;

static double bn_loss(void *c)
{
    bn_ctx *k = c;
    nn_bn_forward_train_d(k->y, k->mean, k->rstd, k->x, k->gamma, k->beta, NULL, NULL, k->rows, k->C, 0.1, 1e-5);
    return dot(k->y, k->gy, (size_t)k->rows * k->C);
}

START_TEST(bn_gradient_on_board_rows)
{
    for (int kind = 0; kind < ZZ_NBOARDS; kind++) {
        nn_geom g;
        nn_geom_init(&g, (zz_board_kind)kind);
        bn_ctx k = { 2 * g.ncells, 11, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
        size_t n = (size_t)k.rows * k.C;
        k.x = drand_buf(n); k.gamma = drand_buf(11); k.beta = drand_buf(11);
        k.y = dzeros(n); k.gy = drand_buf(n); k.mean = dzeros(11); k.rstd = dzeros(11);
        for (size_t i = 0; i < n; i++) k.x[i] = 3 * k.x[i] + 0.5;
        double *dx = dzeros(n), *dg = dzeros(11), *db = dzeros(11);
        bn_loss(&k);
        /* the normalised output has mean beta and variance gamma² per channel */
        for (int c = 0; c < k.C; c++) {
            double s = 0, ss = 0;
            for (int r = 0; r < k.rows; r++) s += k.y[r * k.C + c];
            s /= k.rows;
            for (int r = 0; r < k.rows; r++) ss += pow(k.y[r * k.C + c] - s, 2);
            ck_assert(fabs(s - k.beta[c]) < 1e-9);
            ck_assert(fabs(ss / k.rows - k.gamma[c] * k.gamma[c]) < 1e-3);
        }
        nn_bn_backward_d(dx, dg, db, k.gy, k.x, k.mean, k.rstd, k.gamma, k.rows, k.C);
        check_grad("bn dx", bn_loss, &k, k.x, dx, n);
        check_grad("bn dgamma", bn_loss, &k, k.gamma, dg, 11);
        check_grad("bn dbeta", bn_loss, &k, k.beta, db, 11);
        free(k.x); free(k.gamma); free(k.beta); free(k.y); free(k.gy); free(k.mean); free(k.rstd);
        free(dx); free(dg); free(db);
    }
}
END_TEST

START_TEST(bn_running_and_inference)
{
    int rows = 50, C = 3;
    double *x = drand_buf((size_t)rows * C), *y = dzeros((size_t)rows * C), *y2 = dzeros((size_t)rows * C);
    double gamma[3] = { 1, 2, 0.5 }, beta[3] = { 0, 1, -1 }, mean[3], rstd[3];
    double rm[3] = { 0, 0, 0 }, rv[3] = { 1, 1, 1 };
    nn_bn_forward_train_d(y, mean, rstd, x, gamma, beta, rm, rv, rows, C, 0.25, 1e-5);
    for (int c = 0; c < C; c++) {
        double s = 0, ss = 0;
        for (int r = 0; r < rows; r++) s += x[r * C + c];
        s /= rows;
        for (int r = 0; r < rows; r++) ss += pow(x[r * C + c] - s, 2);
        ck_assert(fabs(rm[c] - 0.25 * s) < 1e-12);
        ck_assert(fabs(rv[c] - (0.75 + 0.25 * ss / (rows - 1))) < 1e-12);
        rm[c] = s; rv[c] = ss / rows;       /* with the batch's own statistics inference = training */
    }
    nn_bn_forward_infer_d(y2, x, gamma, beta, rm, rv, rows, C, 1e-5);
    for (int i = 0; i < rows * C; i++) ck_assert(fabs(y[i] - y2[i]) < 1e-9);
    free(x); free(y); free(y2);
}
END_TEST

/* ---- elementwise ------------------------------------------------------------------------------------- */
typedef struct { int which; size_t n; double *x, *x2, *y, *gy; } ew_ctx;

static double ew_loss(void *c)
{
    ew_ctx *k = c;
    if (k->which == 0) nn_relu_forward_d(k->y, k->x, k->n);
    else if (k->which == 1) nn_add_forward_d(k->y, k->x, k->x2, k->n);
    else nn_tanh_forward_d(k->y, k->x, k->n);
    return dot(k->y, k->gy, k->n);
}

START_TEST(elementwise_gradients)
{
    for (int which = 0; which < 3; which++) {
        ew_ctx k = { which, 40, drand_buf(40), drand_buf(40), dzeros(40), drand_buf(40) };
        for (int i = 0; i < 40; i++) if (fabs(k.x[i]) < 0.01) k.x[i] = 0.5;   /* away from relu's kink */
        double *dx = dzeros(40), *dx2 = dzeros(40);
        ew_loss(&k);
        if (which == 0) nn_relu_backward_d(dx, k.gy, k.y, 40);
        else if (which == 1) nn_add_backward_d(dx, dx2, k.gy, 40);
        else nn_tanh_backward_d(dx, k.gy, k.y, 40);
        check_grad(which == 0 ? "relu" : which == 1 ? "add a" : "tanh", ew_loss, &k, k.x, dx, 40);
        if (which == 1) check_grad("add b", ew_loss, &k, k.x2, dx2, 40);
        free(k.x); free(k.x2); free(k.y); free(k.gy); free(dx); free(dx2);
    }
}
END_TEST

/* ---- float kernels against the double reference ------------------------------------------------------ */
static float *to_f(const double *d, size_t n) { float *f = malloc(n * sizeof *f); for (size_t i = 0; i < n; i++) f[i] = (float)d[i]; return f; }

static void assert_close(const char *what, const float *f, const double *d, size_t n, double tol)
{
    double scale = 1e-30, worst = 0;
    for (size_t i = 0; i < n; i++) scale = fmax(scale, fabs(d[i]));
    for (size_t i = 0; i < n; i++) worst = fmax(worst, fabs(f[i] - d[i]));
    ck_assert_msg(worst <= tol * scale, "%s: max error %.3g of scale %.3g", what, worst, scale);
}

static void conv_parity(const nn_geom *g, int N, int Ci, int Co, const char *isa)
{
    size_t rows = (size_t)N * g->ncells, nw = (size_t)NN_TAPS * Ci * Co;
    double *x = drand_buf(rows * Ci), *w = drand_buf(nw), *y = dzeros(rows * Co), *gy = drand_buf(rows * Co);
    double *dx = drand_buf(rows * Ci), *dw = drand_buf(nw);     /* nonzero: backward accumulates */
    float *xf = to_f(x, rows * Ci), *wf = to_f(w, nw), *gyf = to_f(gy, rows * Co);
    float *dxf = to_f(dx, rows * Ci), *dwf = to_f(dw, nw), *yf = calloc(rows * Co, sizeof(float));
    nn_conv_forward_d(y, x, w, g, N, Ci, Co);
    nn_conv_forward_f(yf, xf, wf, g, N, Ci, Co);
    nn_conv_backward_d(dx, dw, gy, x, w, g, N, Ci, Co);
    nn_conv_backward_f(dxf, dwf, gyf, xf, wf, g, N, Ci, Co);
    char what[96];
    snprintf(what, sizeof what, "conv %s board %d N=%d %d->%d forward", isa, (int)g->kind, N, Ci, Co);
    assert_close(what, yf, y, rows * Co, 1e-5);
    snprintf(what, sizeof what, "conv %s board %d N=%d %d->%d dx", isa, (int)g->kind, N, Ci, Co);
    assert_close(what, dxf, dx, rows * Ci, 1e-5);
    snprintf(what, sizeof what, "conv %s board %d N=%d %d->%d dw", isa, (int)g->kind, N, Ci, Co);
    assert_close(what, dwf, dw, nw, 1e-5);
    free(x); free(w); free(y); free(gy); free(dx); free(dw);
    free(xf); free(wf); free(gyf); free(dxf); free(dwf); free(yf);
}

static void matmul_parity(int rows, int In, int Out, const char *isa)
{
    double *x = drand_buf((size_t)rows * In), *w = drand_buf((size_t)In * Out), *b = drand_buf((size_t)Out);
    double *y = dzeros((size_t)rows * Out), *gy = drand_buf((size_t)rows * Out);
    double *dx = dzeros((size_t)rows * In), *dw = dzeros((size_t)In * Out), *db = dzeros((size_t)Out);
    float *xf = to_f(x, (size_t)rows * In), *wf = to_f(w, (size_t)In * Out), *bf = to_f(b, (size_t)Out);
    float *gyf = to_f(gy, (size_t)rows * Out), *yf = calloc((size_t)rows * Out, 4);
    float *dxf = calloc((size_t)rows * In, 4), *dwf = calloc((size_t)In * Out, 4), *dbf = calloc((size_t)Out, 4);
    nn_matmul_forward_d(y, x, w, b, rows, In, Out);
    nn_matmul_forward_f(yf, xf, wf, bf, rows, In, Out);
    nn_matmul_backward_d(dx, dw, db, gy, x, w, rows, In, Out);
    nn_matmul_backward_f(dxf, dwf, dbf, gyf, xf, wf, rows, In, Out);
    char what[80];
    snprintf(what, sizeof what, "matmul %s %dx%d->%d", isa, rows, In, Out);
    assert_close(what, yf, y, (size_t)rows * Out, 1e-5);
    assert_close(what, dxf, dx, (size_t)rows * In, 1e-5);
    assert_close(what, dwf, dw, (size_t)In * Out, 1e-5);
    assert_close(what, dbf, db, (size_t)Out, 1e-5);
    free(x); free(w); free(b); free(y); free(gy); free(dx); free(dw); free(db);
    free(xf); free(wf); free(bf); free(gyf); free(yf); free(dxf); free(dwf); free(dbf);
}

START_TEST(float_kernels_match_double)
{
    const char *isas[] = { "avx512", "avx2", "none" };
    for (int k = 0; k < 3; k++) {
        const char *got = nn_fast_force(isas[k]);
        if (strcmp(got, isas[k])) continue;         /* the CPU lacks it */
        for (int kind = 0; kind < ZZ_NBOARDS; kind++) {
            nn_geom g;
            nn_geom_init(&g, (zz_board_kind)kind);
            conv_parity(&g, 1, 16, 64, got);
            conv_parity(&g, 3, 64, 64, got);
            conv_parity(&g, 2, 64, 48, got);        /* a narrow column block */
            conv_parity(&g, 2, 5, 6, got);          /* odd shapes: the plain loops */
        }
        nn_geom g37;
        nn_geom_init(&g37, ZZ_B37);
        conv_parity(&g37, 12, 64, 64, got);         /* big enough for the threaded paths */
        matmul_parity(75, 64, 32, got);
        matmul_parity(130, 64, 6, got);
        matmul_parity(9, 148, 128, got);
        matmul_parity(300, 16, 16, got);
    }
    nn_fast_force(NULL);
}
END_TEST

START_TEST(fused_epilogue)
{
    nn_geom g;
    nn_geom_init(&g, ZZ_B37);
    if (!strcmp(nn_fast_isa(), "none")) return;     /* nothing to check without the kernels */
    int N = 3, C = 32, rows = N * g.ncells;
    double *x = drand_buf((size_t)rows * C), *w = drand_buf((size_t)NN_TAPS * C * C), *b = drand_buf(C), *res = drand_buf((size_t)rows * C);
    double *y = dzeros((size_t)rows * C);
    float *xf = to_f(x, (size_t)rows * C), *wf = to_f(w, (size_t)NN_TAPS * C * C), *bf = to_f(b, C), *rf = to_f(res, (size_t)rows * C);
    float *yf = calloc((size_t)rows * C, 4);
    nn_conv_forward_d(y, x, w, &g, N, C, C);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < C; c++) { double v = y[r * C + c] + b[c] + res[r * C + c]; y[r * C + c] = v > 0 ? v : 0; }
    ck_assert(nn_fast_conv(yf, xf, wf, bf, rf, &g, rows, C, C, NN_FAST_RELU));
    assert_close("conv + bias + residual + relu", yf, y, (size_t)rows * C, 1e-5);
    free(x); free(w); free(b); free(res); free(y); free(xf); free(wf); free(bf); free(rf); free(yf);
}
END_TEST

/* The machine line of banners and reports: the model name as /proc/cpuinfo spells it (read here
 * with sscanf, not the library's parser), the online cores, and the kernel names the library
 * reports on their own; a buffer too short is cut, never overrun. */
START_TEST(cpu_description_names_the_kernels)
{
    char name[256] = "unknown CPU", line[512], want[400];
    int family = -1, model = -1;
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f) && !strchr("\n", line[0])) {   /* the first processor */
        if (!strncmp(line, "model name", 10)) sscanf(line, "model name : %255[^\n]", name);
        else if (!strncmp(line, "cpu family", 10)) sscanf(line, "cpu family : %d", &family);
        else if (!strncmp(line, "model\t", 6) || !strncmp(line, "model ", 6)) sscanf(line, "model : %d", &model);
    }
    if (f) fclose(f);
    size_t n = strlen(name);
    while (n > 0 && name[n - 1] == ' ') name[--n] = 0;
    if (family >= 0 && model >= 0) snprintf(want, sizeof want, "%s (family %d, model %d)", name, family, model);
    else snprintf(want, sizeof want, "%s", name);
    char got[400];
    nn_cpu_model(got, sizeof got);
    ck_assert_str_eq(got, want);

    char d[512], part[128];
    nn_cpu_describe(d, sizeof d);
    ck_assert_msg(!strncmp(d, want, strlen(want)), "'%s' starts with the model", d);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(part, sizeof part, ", %ld core%s; ", cores, cores == 1 ? "" : "s");
    ck_assert_msg(strstr(d, part), "'%s' holds '%s'", d, part);
    snprintf(part, sizeof part, "float kernels %s, int8 kernel %s", nn_fast_isa(), nn_int8_kernel_name(nn_int8_active_kernel()));
    ck_assert_msg(strstr(d, part), "'%s' holds '%s'", d, part);

    char tiny[6] = "xxxxx";
    nn_cpu_describe(tiny, 4);
    ck_assert_int_eq(strlen(tiny), 3);
    ck_assert(!strncmp(tiny, d, 3));
    ck_assert_int_eq(tiny[4], 'x');
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nn_ops");
    TCase *tc = tcase_create("ops");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, conv_gradient_all_boards);
    tcase_add_test(tc, conv_is_masked_grid_conv);
    tcase_add_test(tc, matmul_gradient);
    tcase_add_test(tc, bn_gradient_on_board_rows);
    tcase_add_test(tc, bn_running_and_inference);
    tcase_add_test(tc, elementwise_gradients);
    tcase_add_test(tc, float_kernels_match_double);
    tcase_add_test(tc, fused_epilogue);
    tcase_add_test(tc, cpu_description_names_the_kernels);
    suite_add_tcase(s, tc);
    return th_run(s);
}
