/* test_nn_model.c — the whole network: its gradient (policy cross-entropy + value MSE, and the
 * captures head's masked MSE, through the tape) against central finite differences in double
 * precision on all three boards, with and without the captures head; the float
 * model against the double one; the folded inference net against the model's inference forward;
 * batch independence of inference. */
#include "helpers.h"
#include <check.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nn/train.h"
#include "nn/infer.h"
#include "nn/sgd.h"

/* A position reached by random play (not over), and random visit counts over its legal moves. */
static void random_position(zz_pos *p, zz_board_kind kind, uint64_t *rng, int max_plies)
{
    for (;;) {
        zz_pos_init(p, kind);
        int n = (int)zz_rand_below(rng, (uint32_t)max_plies + 1);
        for (int i = 0; i < n && !zz_over(p); i++) zz_apply(p, zz_random_move(p, rng), NULL);
        if (!zz_over(p)) return;
    }
}

static int random_visits(const zz_pos *p, uint64_t *rng, nn_visit *v, int max)
{
    static zz_move moves[ZZ_MAX_MOVES];
    int n = zz_gen_moves(p, moves), k = 0;
    for (int i = 0; i < max; i++) {
        zz_move m = moves[zz_rand_below(rng, (uint32_t)n)];
        int j = 0;
        while (j < k && v[j].move != m) j++;
        if (j == k) { v[k].move = m; v[k].count = 0; k++; }
        v[j].count += 1 + zz_rand_below(rng, 20);
    }
    return k;
}

typedef struct {
    zz_pos pos[8];
    nn_visit visits[8][6];
    nn_sample s[8];
    int n;
} sample_set;

static void make_samples(sample_set *ss, zz_board_kind kind, int n, uint64_t seed, int max_plies)
{
    uint64_t rng = seed;
    ss->n = n;
    for (int i = 0; i < n; i++) {
        random_position(&ss->pos[i], kind, &rng, max_plies);
        ss->s[i].pos = ss->pos[i];
        ss->s[i].visits = ss->visits[i];
        ss->s[i].nvisits = random_visits(&ss->pos[i], &rng, ss->visits[i], 6);
        ss->s[i].z = (float)((int)zz_rand_below(&rng, 3) - 1);
        nn_final_caps *f = &ss->s[i].fin;           /* every third sample's unknown */
        f->known = i % 3 != 2;
        for (int c = 0; c < 3; c++) {
            const zz_pos *q = &ss->pos[i];
            int total = q->pool[c] + zz_popcount(q->marble[c]) + q->cap[0][c] + q->cap[1][c];
            for (int side = 0; side < 2; side++) f->cap[side][c] = (uint8_t)zz_rand_below(&rng, (uint32_t)total / 2 + 1);
        }
    }
}

static nn_config small_config(zz_board_kind kind)
{
    nn_config c;
    nn_config_default(&c, kind);
    c.channels = 4;
    c.blocks = 1;
    c.policy_channels = 3;
    c.value_channels = 2;
    c.value_hidden = 5;
    return c;
}

static double loss_of(nn_model *m, const nn_batch *b)
{
    char err[256];
    nn_loss_parts p;
    ck_assert_msg(!nn_model_forward(m, b->x, b->n, true, err, sizeof err), "%s", err);
    ck_assert_msg(!nn_loss(m, b, 0.7, 0.4, false, &p, err, sizeof err), "%s", err);
    return p.total;
}

START_TEST(model_gradient_finite_differences)
{
    char err[256];
    for (int run = 0; run < 2 * ZZ_NBOARDS; run++) {
        int kind = run % ZZ_NBOARDS;
        nn_config c = small_config((zz_board_kind)kind);
        c.aux_outputs = run < ZZ_NBOARDS ? 0 : NN_AUX;      /* the second round with the captures head */
        nn_model *m = nn_model_create(&c, NN_F64, 7 + kind, err, sizeof err);
        ck_assert_msg(m, "%s", err);
        sample_set ss;
        make_samples(&ss, (zz_board_kind)kind, 3, 99 + kind, 40);
        nn_batch b;
        nn_batch_init(&b);
        ck_assert_msg(!nn_batch_build(&b, &m->geom, ss.s, ss.n, NULL, NULL, err, sizeof err), "%s", err);
        /* analytic */
        ck_assert(!nn_model_forward(m, b.x, b.n, true, err, sizeof err));
        nn_model_zero_grad(m);
        nn_loss_parts parts;
        ck_assert_msg(!nn_loss(m, &b, 0.7, 0.4, true, &parts, err, sizeof err), "%s", err);
        ck_assert(parts.policy > 0 && parts.value >= 0);
        ck_assert(c.aux_outputs ? parts.aux > 0 : parts.aux == 0);
        double *ga = malloc(sizeof(double) * m->nparams);
        memcpy(ga, m->grad, sizeof(double) * m->nparams);
        /* numeric, every parameter of every view */
        double *w = m->param, h = 1e-6;
        int checked = 0;
        for (int v = 0; v < m->nviews; v++) {
            const nn_view *view = &m->views[v];
            if (view->stat) continue;
            double worst = 0;
            size_t worst_k = 0;
            for (size_t k = 0; k < view->count; k++) {
                size_t i = view->offset + k;
                double keep = w[i];
                w[i] = keep + h; double lp = loss_of(m, &b);
                w[i] = keep - h; double lm = loss_of(m, &b);
                w[i] = keep;
                double num = (lp - lm) / (2 * h);
                /* relative, with an absolute floor for the finite differences' rounding noise
                 * (h = 1e-6 on a loss of order 10: about 1e-9) */
                double e = fabs(num - ga[i]) / (fmax(fabs(num), fabs(ga[i])) + 1e-3);
                if (e > worst) { worst = e; worst_k = k; }
                checked++;
            }
            ck_assert_msg(worst < 1e-5, "board %d aux %d %s[%zu]: relative error %.3g (analytic %.9g)",
                          kind, c.aux_outputs, view->name, worst_k, worst, ga[view->offset + worst_k]);
        }
        ck_assert_int_eq(checked, (int)m->nparams);
        free(ga);
        nn_batch_free(&b);
        nn_model_free(m);
    }
}
END_TEST

static double max_rel(const float *a, const double *b, size_t n)
{
    double scale = 1e-30, worst = 0;
    for (size_t i = 0; i < n; i++) scale = fmax(scale, fabs(b[i]));
    for (size_t i = 0; i < n; i++) worst = fmax(worst, fabs(a[i] - b[i]));
    return worst / scale;
}

/* The float model (fast kernels) against the double model with the same weights: outputs in
 * both modes and every parameter gradient. */
START_TEST(float_model_matches_double)
{
    char err[256];
    for (int kind = 0; kind < ZZ_NBOARDS; kind++) {
        nn_config c;
        nn_config_default(&c, (zz_board_kind)kind);
        c.channels = 32;
        c.blocks = 2;
        c.aux_outputs = NN_AUX;
        nn_model *md = nn_model_create(&c, NN_F64, 5, err, sizeof err);
        nn_model *mf = nn_model_create(&c, NN_F32, 6, err, sizeof err);
        ck_assert(md && mf);
        ck_assert(!nn_model_copy(mf, md, err, sizeof err));
        sample_set ss;
        make_samples(&ss, (zz_board_kind)kind, 5, 3 + kind, 60);
        nn_batch b;
        nn_batch_init(&b);
        ck_assert_msg(!nn_batch_build(&b, &md->geom, ss.s, ss.n, NULL, NULL, err, sizeof err), "%s", err);
        for (int train = 0; train < 2; train++) {
            ck_assert(!nn_model_forward(md, b.x, b.n, train, err, sizeof err));
            ck_assert(!nn_model_forward(mf, b.x, b.n, train, err, sizeof err));
            size_t nl = (size_t)b.n * md->geom.ncells * NN_HEADS;
            double el = max_rel(nn_model_logits(mf), nn_model_logits(md), nl);
            double ev = max_rel(nn_model_values(mf), nn_model_values(md), (size_t)b.n);
            double ea = max_rel(nn_model_aux(mf), nn_model_aux(md), (size_t)b.n * NN_AUX);
            ck_assert_msg(el < 1e-4 && ev < 1e-4 && ea < 1e-4, "board %d train %d: logits %.3g values %.3g captures %.3g",
                          kind, train, el, ev, ea);
        }
        nn_model_zero_grad(md);
        nn_model_zero_grad(mf);
        nn_loss_parts pd, pf;
        ck_assert(!nn_loss(md, &b, 1.0, 0.5, true, &pd, err, sizeof err));
        ck_assert(!nn_loss(mf, &b, 1.0, 0.5, true, &pf, err, sizeof err));
        ck_assert(pd.aux > 0);
        ck_assert_msg(fabs(pd.total - pf.total) < 1e-4 * fabs(pd.total), "loss %g vs %g", pd.total, pf.total);
        for (int v = 0; v < md->nviews; v++) {
            const nn_view *view = &md->views[v];
            if (view->stat) continue;
            double e = max_rel((const float *)mf->grad + view->offset, (const double *)md->grad + view->offset, view->count);
            ck_assert_msg(e < 2e-3, "board %d grad %s: relative error %.3g", kind, view->name, e);
        }
        nn_batch_free(&b);
        nn_model_free(md);
        nn_model_free(mf);
    }
}
END_TEST

/* BN folded into the convolutions, fused epilogues: same outputs as the inference forward; and a
 * position's outputs do not depend on the batch around it (bit for bit). */
START_TEST(folded_inference_matches_model)
{
    char err[256];
    for (int kind = 0; kind < ZZ_NBOARDS; kind++) {
        nn_config c;
        nn_config_default(&c, (zz_board_kind)kind);
        c.blocks = 2;
        nn_model *m = nn_model_create(&c, NN_F32, 11, err, sizeof err);
        ck_assert(m);
        /* give the BN statistics and affine parameters non-trivial values */
        sample_set ss;
        make_samples(&ss, (zz_board_kind)kind, 8, 21 + kind, 80);
        nn_batch b;
        nn_batch_init(&b);
        ck_assert(!nn_batch_build(&b, &m->geom, ss.s, ss.n, NULL, NULL, err, sizeof err));
        m->tape.bn_momentum = 1.0;              /* running statistics := this batch's */
        ck_assert(!nn_model_forward(m, b.x, b.n, true, err, sizeof err));
        m->tape.bn_momentum = c.bn_momentum;
        for (int v = 0; v < m->nviews; v++) {
            const char *dot = strrchr(m->views[v].name, '.');
            if (!strcmp(dot, ".gamma") || !strcmp(dot, ".beta"))
                for (size_t k = 0; k < m->views[v].count; k++)
                    ((float *)m->param)[m->views[v].offset + k] += 0.2f * (float)((int)(k * 7919 % 13) - 6) / 6.0f;
        }
        ck_assert(!nn_model_forward(m, b.x, b.n, false, err, sizeof err));
        int P = m->geom.ncells;
        size_t nl = (size_t)b.n * P * NN_HEADS;
        float *lm = malloc(nl * 4), *vm = malloc((size_t)b.n * 4), *li = malloc(nl * 4), *vi = malloc((size_t)b.n * 4);
        nn_model_outputs(m, lm, vm);
        nn_infer *inf = nn_infer_create(m, err, sizeof err);
        ck_assert(inf);
        ck_assert(!nn_infer_forward(inf, b.x, b.n, li, vi, err, sizeof err));
        double worst = 0, scale = 0;
        for (size_t i = 0; i < nl; i++) { worst = fmax(worst, fabs(li[i] - lm[i])); scale = fmax(scale, fabs(lm[i])); }
        ck_assert_msg(worst < 1e-4 * scale + 1e-5, "board %d: logits differ by %g (scale %g)", kind, worst, scale);
        for (int i = 0; i < b.n; i++) ck_assert_msg(fabsf(vi[i] - vm[i]) < 1e-4, "value %g vs %g", vi[i], vm[i]);
        /* one at a time == all at once, exactly */
        float one[ZZ_MAX_RINGS * NN_HEADS], v1;
        for (int i = 0; i < b.n; i++) {
            ck_assert(!nn_infer_forward(inf, b.x + (size_t)i * P * NN_PLANES, 1, one, &v1, err, sizeof err));
            ck_assert(!memcmp(one, li + (size_t)i * P * NN_HEADS, sizeof(float) * P * NN_HEADS));
            ck_assert(v1 == vi[i]);
        }
        /* nn_infer_positions encodes for itself */
        ck_assert(!nn_infer_positions(inf, ss.pos, ss.n, li, vi, err, sizeof err));
        ck_assert(v1 == vi[ss.n - 1]);
        nn_infer_free(inf);
        free(lm); free(vm); free(li); free(vi);
        nn_batch_free(&b);
        nn_model_free(m);
    }
}
END_TEST

START_TEST(errors_are_reported)
{
    char err[256] = "";
    nn_config c;
    nn_config_default(&c, ZZ_B37);
    c.channels = 0;
    ck_assert(!nn_model_create(&c, NN_F32, 1, err, sizeof err));
    ck_assert(strstr(err, "channels"));
    nn_config_default(&c, ZZ_B37);
    c.blocks = 1;
    nn_model *m = nn_model_create(&c, NN_F32, 1, err, sizeof err);
    ck_assert(m);
    ck_assert(nn_model_backward(m, err, sizeof err) == -1);
    float x[37 * NN_PLANES] = { 0 };
    ck_assert(nn_model_forward(m, x, 0, true, err, sizeof err) == -1);
    ck_assert(!nn_model_forward(m, x, 1, false, err, sizeof err));
    ck_assert(nn_model_begin_backward(m, NULL, NULL, err, sizeof err) == -1);    /* not a training forward */
    ck_assert(strstr(err, "training"));
    /* views: named, decayed first, covering the buffers */
    size_t covered = 0;
    for (int v = 0; v < m->nviews; v++) if (!m->views[v].stat) covered += m->views[v].count;
    ck_assert_uint_eq(covered, m->nparams);
    ck_assert(nn_model_view(m, "block0.conv1.w")->decay);
    ck_assert(!nn_model_view(m, "block0.bn1.gamma")->decay);
    ck_assert(nn_model_view(m, "block0.bn1.mean")->stat);
    ck_assert(nn_model_view(m, "value.fc2.b") && !nn_model_view(m, "nope"));
    nn_model_free(m);
}
END_TEST

/* One SGD step by hand: momentum, weight decay on conv/dense weights only, the schedule. */
START_TEST(sgd_step_and_schedule)
{
    char err[256];
    nn_sgd o;
    nn_sgd_default(&o);
    o.lr = 0.1;
    o.warmup = 10;
    o.momentum = 0.9;
    o.weight_decay = 0.01;
    ck_assert(!nn_sgd_add_stage(&o, 100, 0.1));
    ck_assert(!nn_sgd_add_stage(&o, 200, 0.01));
    ck_assert_int_eq(nn_sgd_add_stage(&o, 150, 0.5), -1);             /* out of order */
    ck_assert(fabs(nn_sgd_lr(&o, 0) - 0.01) < 1e-15);
    ck_assert(fabs(nn_sgd_lr(&o, 9) - 0.1) < 1e-15);
    ck_assert(fabs(nn_sgd_lr(&o, 99) - 0.1) < 1e-15);
    ck_assert(fabs(nn_sgd_lr(&o, 100) - 0.01) < 1e-15);
    ck_assert(fabs(nn_sgd_lr(&o, 5000) - 0.001) < 1e-15);
    o.warmup = 0;
    o.nstages = 0;
    nn_config c = small_config(ZZ_B48);
    nn_model *m = nn_model_create(&c, NN_F64, 3, err, sizeof err);
    size_t n = m->nparams;
    ck_assert(m->ndecay > 0 && m->ndecay < n);
    double *w0 = malloc(n * sizeof *w0), *w = m->param, *g = m->grad;
    memcpy(w0, w, n * sizeof *w0);
    double l2 = 0;
    for (size_t i = 0; i < m->ndecay; i++) l2 += w0[i] * w0[i];
    ck_assert(fabs(nn_sgd_l2(&o, m) - 0.005 * l2) < 1e-12);
    for (size_t i = 0; i < n; i++) g[i] = 0.01 * (double)(i % 7) - 0.03;
    nn_sgd_step(&o, m);
    for (size_t i = 0; i < n; i++) {
        double v = g[i] + (i < m->ndecay ? 0.01 * w0[i] : 0);
        ck_assert(fabs(((double *)m->mom)[i] - v) < 1e-15);
        ck_assert(fabs(w[i] - (w0[i] - 0.1 * v)) < 1e-15);
    }
    double *w1 = malloc(n * sizeof *w1), *v1 = malloc(n * sizeof *v1);
    memcpy(w1, w, n * sizeof *w1);
    memcpy(v1, m->mom, n * sizeof *v1);
    nn_sgd_step(&o, m);
    for (size_t i = 0; i < n; i++) {
        double v = 0.9 * v1[i] + g[i] + (i < m->ndecay ? 0.01 * w1[i] : 0);
        ck_assert(fabs(w[i] - (w1[i] - 0.1 * v)) < 1e-14);
    }
    ck_assert_int_eq(o.step, 2);
    /* decayed views are exactly the conv and dense weights */
    for (int v = 0; v < m->nviews; v++) {
        const nn_view *vw = &m->views[v];
        bool weight = !vw->stat && vw->name[strlen(vw->name) - 1] == 'w';
        ck_assert_msg(vw->decay == weight, "%s", vw->name);
        if (vw->decay) ck_assert(vw->offset + vw->count <= m->ndecay);
    }
    free(w0); free(w1); free(v1);
    nn_model_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nn_model");
    TCase *tc = tcase_create("model");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, model_gradient_finite_differences);
    tcase_add_test(tc, float_model_matches_double);
    tcase_add_test(tc, folded_inference_matches_model);
    tcase_add_test(tc, errors_are_reported);
    tcase_add_test(tc, sgd_step_and_schedule);
    suite_add_tcase(s, tc);
    return th_run(s);
}
