/* test_nn_learn.c — the network learns, and these tests can fail:
 *  - it fits a small fixed set of positions (one visited move each, random results): KL(target ||
 *    priors) + value MSE falls by a factor of FIT_FACTOR within FIT_STEPS SGD steps.  (One-hot
 *    targets, because the factorised policy cannot fit every visit distribution: place[c,p] +
 *    remove[r] makes p(c,p,r) a product over (c,p) and r, so random multi-move targets leave a
 *    floor on the KL.);
 *  - it learns a labelled target ("is a capture pending", as the value's sign) to high accuracy
 *    on held-out positions;
 *  - after training with symmetry augmentation on an equivariant toy target, its outputs are close
 *    to equivariant: p(m | x) ≈ p(s·m | s·x), v(x) ≈ v(s·x), much closer than before training. */
#include "helpers.h"
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nn/train.h"
#include "nn/infer.h"
#include "game/symmetry.h"
#ifdef _OPENMP
#include <omp.h>
#endif

static zz_move scratch[ZZ_MAX_MOVES];

/* A position from random play at a random ply below max_plies (not over). */
static void random_position(zz_pos *p, zz_board_kind kind, uint64_t *rng, int max_plies)
{
    for (;;) {
        zz_pos_init(p, kind);
        int n = (int)zz_rand_below(rng, (uint32_t)max_plies + 1);
        for (int i = 0; i < n && !zz_over(p); i++) zz_apply(p, zz_random_move(p, rng), NULL);
        if (!zz_over(p)) return;
    }
}

static nn_config tiny(zz_board_kind kind)
{
    nn_config c;
    nn_config_default(&c, kind);
    c.channels = 16;
    c.blocks = 2;
    c.policy_channels = 16;
    c.value_channels = 2;
    c.value_hidden = 32;
    return c;
}

/* mean over the batch of sum pi log pi (the policy loss's floor) */
static double target_entropy(const nn_batch *b)
{
    double h = 0;
    for (int j = 0; j < b->nmoves; j++) if (b->pi[j] > 0) h -= b->pi[j] * log(b->pi[j]);
    return h / b->n;
}

enum { FIT_N = 16, FIT_STEPS = 100 };
#define FIT_FACTOR 100.0

/* SGD for fitting a fixed set: lr 0.02 after 20 warmup steps, no weight decay. */
static nn_sgd fit_sgd(void)
{
    nn_sgd o;
    nn_sgd_default(&o);
    o.lr = 0.02;
    o.warmup = 20;
    o.weight_decay = 0;
    return o;
}

START_TEST(fits_a_fixed_set)
{
    char err[256];
    uint64_t rng = 31337;
    nn_config c = tiny(ZZ_B37);
    nn_model *m = nn_model_create(&c, NN_F32, 1, err, sizeof err);
    ck_assert(m);
    static zz_pos pos[FIT_N];
    static nn_visit vis[FIT_N];
    nn_sample s[FIT_N];
    for (int i = 0; i < FIT_N; i++) {
        random_position(&pos[i], ZZ_B37, &rng, 40);
        int n = zz_gen_moves(&pos[i], scratch);
        vis[i] = (nn_visit){ scratch[zz_rand_below(&rng, (uint32_t)n)], 1 + zz_rand_below(&rng, 30) };
        s[i] = (nn_sample){ .pos = pos[i], .visits = &vis[i], .nvisits = 1, .z = (float)((int)zz_rand_below(&rng, 3) - 1) };
    }
    nn_batch b;
    nn_batch_init(&b);
    ck_assert(!nn_batch_build(&b, &m->geom, s, FIT_N, NULL, NULL, err, sizeof err));
    double h = target_entropy(&b);
    nn_sgd o = fit_sgd();
    nn_loss_parts p;
    double first = 0, last = 0;
    for (int step = 0; step < FIT_STEPS; step++) {
        ck_assert_msg(!nn_train_step(m, &o, &b, 1.0, 0.0, &p, err, sizeof err), "%s", err);
        double excess = p.policy - h + p.value;        /* KL + MSE: 0 at a perfect fit */
        if (step == 0) first = excess;
        last = excess;
    }
    printf("fit: KL+MSE %.4f -> %.4f in %d steps (factor %.1f)\n", first, last, FIT_STEPS, first / last);
    fflush(stdout);
    ck_assert_msg(last * FIT_FACTOR < first, "KL+MSE fell from %.4f to %.4f only (need x%.0f)", first, last, FIT_FACTOR);
    nn_batch_free(&b);
    nn_model_free(m);
}
END_TEST

/* The captures head learns: on a fixed set whose final captures are known for all but every
 * fourth sample, its loss falls tenfold in FIT_STEPS steps, and the unknown samples' outputs take
 * no gradient (the masked loss is the same with them set to anything). */
START_TEST(captures_head_fits_a_fixed_set)
{
    char err[256];
    uint64_t rng = 4242;
    nn_config c = tiny(ZZ_B48);
    c.aux_outputs = NN_AUX;
    nn_model *m = nn_model_create(&c, NN_F32, 2, err, sizeof err);
    ck_assert(m);
    static zz_pos pos[FIT_N];
    static nn_visit vis[FIT_N];
    nn_sample s[FIT_N];
    for (int i = 0; i < FIT_N; i++) {
        random_position(&pos[i], ZZ_B48, &rng, 60);
        int n = zz_gen_moves(&pos[i], scratch);
        vis[i] = (nn_visit){ scratch[zz_rand_below(&rng, (uint32_t)n)], 1 };
        s[i] = (nn_sample){ .pos = pos[i], .visits = &vis[i], .nvisits = 1, .z = 0 };
        s[i].fin.known = i % 4 != 3;
        for (int k = 0; k < 3; k++) {                   /* each side gains a share of what is left */
            int left = pos[i].pool[k] + zz_popcount(pos[i].marble[k]);
            for (int p = 0; p < 2; p++)
                s[i].fin.cap[p][k] = (uint8_t)(pos[i].cap[p][k] + zz_rand_below(&rng, (uint32_t)left / 2 + 1));
        }
    }
    nn_batch b;
    nn_batch_init(&b);
    ck_assert_msg(!nn_batch_build(&b, &m->geom, s, FIT_N, NULL, NULL, err, sizeof err), "%s", err);
    nn_sgd o = fit_sgd();
    nn_loss_parts p;
    double first = 0, last = 0;
    for (int step = 0; step < FIT_STEPS; step++) {
        ck_assert_msg(!nn_train_step(m, &o, &b, 1.0, 1.0, &p, err, sizeof err), "%s", err);
        if (step == 0) first = p.aux;
        last = p.aux;
    }
    printf("captures head: MSE %.5f -> %.5f in %d steps\n", first, last, FIT_STEPS);
    fflush(stdout);
    ck_assert_msg(first > 0 && last * 10 < first, "the captures head's MSE fell from %.5f to %.5f only", first, last);
    ck_assert(!nn_model_forward(m, b.x, b.n, true, err, sizeof err));
    nn_loss_parts q1, q2;
    ck_assert(!nn_loss(m, &b, 1.0, 1.0, false, &q1, err, sizeof err));
    for (int i = 3; i < FIT_N; i += 4)
        for (int k = 0; k < NN_AUX; k++) b.aux[i * NN_AUX + k] = 7.0f;    /* unknown: ignored */
    ck_assert(!nn_loss(m, &b, 1.0, 1.0, false, &q2, err, sizeof err));
    ck_assert(q1.aux == q2.aux);
    nn_batch_free(&b);
    nn_model_free(m);
}
END_TEST

/* A labelled position set, half with a capture pending. */
static void labelled_set(zz_board_kind kind, uint64_t *rng, int n, zz_pos *pos)
{
    int want[2] = { n / 2, n - n / 2 };
    for (int i = 0; i < n;) {
        zz_pos p;
        random_position(&p, kind, rng, 50);
        int cap = zz_must_capture(&p);
        if (!want[cap]) continue;
        want[cap]--;
        pos[i++] = p;
    }
}

enum { LAB_TRAIN = 256, LAB_TEST = 256, LAB_STEPS = 250, LAB_BATCH = 32 };
#define LAB_ACCURACY 0.95

START_TEST(learns_capture_pending)
{
    char err[256];
    uint64_t rng = 4242;
    nn_config c = tiny(ZZ_B37);
    nn_model *m = nn_model_create(&c, NN_F32, 2, err, sizeof err);
    static zz_pos train[LAB_TRAIN], test[LAB_TEST];
    labelled_set(ZZ_B37, &rng, LAB_TRAIN, train);
    labelled_set(ZZ_B37, &rng, LAB_TEST, test);
    static nn_visit one[LAB_TRAIN];
    nn_sample s[LAB_BATCH];
    nn_batch b;
    nn_batch_init(&b);
    nn_sgd o;
    nn_sgd_default(&o);
    o.lr = 0.02;
    o.warmup = 20;
    for (int i = 0; i < LAB_TRAIN; i++) {
        zz_gen_moves(&train[i], scratch);
        one[i] = (nn_visit){ scratch[0], 1 };
    }
    for (int step = 0; step < LAB_STEPS; step++) {
        for (int k = 0; k < LAB_BATCH; k++) {
            int i = (int)zz_rand_below(&rng, LAB_TRAIN);
            s[k] = (nn_sample){ .pos = train[i], .visits = &one[i], .nvisits = 1, .z = zz_must_capture(&train[i]) ? 1.0f : -1.0f };
        }
        ck_assert(!nn_batch_build(&b, &m->geom, s, LAB_BATCH, NULL, &rng, err, sizeof err));
        ck_assert(!nn_train_step(m, &o, &b, 1.0, 0.0, NULL, err, sizeof err));
    }
    nn_infer *inf = nn_infer_create(m, err, sizeof err);
    float v[LAB_TEST];
    ck_assert(!nn_infer_positions(inf, test, LAB_TEST, NULL, v, err, sizeof err));
    int right = 0;
    for (int i = 0; i < LAB_TEST; i++) right += (v[i] > 0) == zz_must_capture(&test[i]);
    double acc = (double)right / LAB_TEST;
    printf("capture pending: held-out accuracy %.3f after %d steps of %d\n", acc, LAB_STEPS, LAB_BATCH);
    fflush(stdout);
    ck_assert_msg(acc >= LAB_ACCURACY, "held-out accuracy %.3f < %.2f", acc, LAB_ACCURACY);
    nn_infer_free(inf);
    nn_batch_free(&b);
    nn_model_free(m);
}
END_TEST

/* Toy target, equivariant by construction: visits spread evenly over the placements next to a
 * marble (over all moves when there are none, or when a capture is pending); value = +1 when a
 * capture is pending, else -1. */
static int toy_visits(const zz_pos *p, nn_visit *v)
{
    int n = zz_gen_moves(p, scratch), k = 0;
    zz_bits near = zz_neighbours(zz_marbles(p));
    for (int i = 0; i < n; i++)
        if (!zz_move_is_jump(scratch[i]) && zz_has(near, zz_move_a(scratch[i]))) v[k++] = (nn_visit){ scratch[i], 1 };
    if (!k)
        for (int i = 0; i < n; i++) v[k++] = (nn_visit){ scratch[i], 1 };
    return k;
}

/* Mean equivariance error over positions and symmetries: policy total variation
 * sum_m |p(m|x) - p(s·m|s·x)| / 2 and value |v(x) - v(s·x)|. */
static void equivariance_error(nn_infer *inf, const zz_pos *pos, int n, double *ep, double *ev)
{
    char err[256];
    const nn_geom *g = nn_infer_geom(inf);
    int P = g->ncells, nsyms = zz_board_nsyms(g->kind);
    static zz_move mv[ZZ_MAX_MOVES], mvs[ZZ_MAX_MOVES];
    static float pr[ZZ_MAX_MOVES], prs[ZZ_MAX_MOVES];
    float lx[ZZ_MAX_RINGS * NN_HEADS], ls[ZZ_MAX_RINGS * NN_HEADS], vx, vs;
    double sp = 0, sv = 0;
    int cnt = 0;
    for (int i = 0; i < n; i++) {
        ck_assert(!nn_infer_positions(inf, &pos[i], 1, lx, &vx, err, sizeof err));
        int nm = zz_gen_moves(&pos[i], mv);
        nn_policy_priors(g, lx, &pos[i], mv, nm, pr);
        for (int k = 1; k < nsyms; k++) {
            const zz_sym *s = zz_board_sym(g->kind, k);
            zz_pos q;
            zz_sym_pos(s, &pos[i], &q);
            ck_assert(!nn_infer_positions(inf, &q, 1, ls, &vs, err, sizeof err));
            int nq = zz_gen_moves(&q, mvs);
            ck_assert_int_eq(nq, nm);
            nn_policy_priors(g, ls, &q, mvs, nq, prs);
            double tv = 0;
            for (int j = 0; j < nm; j++) {
                zz_move im = zz_sym_move(s, mv[j]);
                int at = -1;
                for (int t = 0; t < nq && at < 0; t++) if (mvs[t] == im) at = t;
                ck_assert(at >= 0);
                tv += fabs(pr[j] - prs[at]);
            }
            sp += tv / 2;
            sv += fabs(vx - vs);
            cnt++;
        }
    }
    (void)P;
    *ep = sp / cnt;
    *ev = sv / cnt;
}

enum { SYM_TRAIN = 128, SYM_TEST = 24, SYM_STEPS = 300, SYM_BATCH = 32 };

START_TEST(equivariant_after_augmentation)
{
    char err[256];
    uint64_t rng = 777;
    nn_config c = tiny(ZZ_B37);
    nn_model *m = nn_model_create(&c, NN_F32, 3, err, sizeof err);
    static zz_pos train[SYM_TRAIN], test[SYM_TEST];
    static nn_visit *vis[SYM_TRAIN];
    static int nvis[SYM_TRAIN];
    for (int i = 0; i < SYM_TRAIN; i++) {
        random_position(&train[i], ZZ_B37, &rng, 40);
        vis[i] = malloc(sizeof(nn_visit) * (size_t)zz_count_moves(&train[i]));
        nvis[i] = toy_visits(&train[i], vis[i]);
    }
    for (int i = 0; i < SYM_TEST; i++) random_position(&test[i], ZZ_B37, &rng, 40);
    /* untrained: BN running statistics from a few batches so that inference is meaningful */
    nn_batch b;
    nn_batch_init(&b);
    nn_sample s[SYM_BATCH];
    nn_infer *inf = nn_infer_create(m, err, sizeof err);
    double ep0, ev0, ep1, ev1;
    m->tape.bn_momentum = 1.0;
    for (int k = 0; k < SYM_BATCH; k++) s[k] = (nn_sample){ .pos = train[k], .visits = vis[k], .nvisits = nvis[k] };
    ck_assert(!nn_batch_build(&b, &m->geom, s, SYM_BATCH, NULL, &rng, err, sizeof err));
    ck_assert(!nn_model_forward(m, b.x, b.n, true, err, sizeof err));
    m->tape.bn_momentum = c.bn_momentum;
    nn_infer_update(inf, m, err, sizeof err);
    equivariance_error(inf, test, SYM_TEST, &ep0, &ev0);

    nn_sgd o;
    nn_sgd_default(&o);
    o.lr = 0.02;
    o.warmup = 20;
    for (int step = 0; step < SYM_STEPS; step++) {
        for (int k = 0; k < SYM_BATCH; k++) {
            int i = (int)zz_rand_below(&rng, SYM_TRAIN);
            s[k] = (nn_sample){ .pos = train[i], .visits = vis[i], .nvisits = nvis[i], .z = zz_must_capture(&train[i]) ? 1.0f : -1.0f };
        }
        ck_assert(!nn_batch_build(&b, &m->geom, s, SYM_BATCH, NULL, &rng, err, sizeof err));
        ck_assert(!nn_train_step(m, &o, &b, 1.0, 0.0, NULL, err, sizeof err));
    }
    ck_assert(!nn_infer_update(inf, m, err, sizeof err));
    equivariance_error(inf, test, SYM_TEST, &ep1, &ev1);
    printf("equivariance: policy TV %.4f -> %.4f, value |dv| %.4f -> %.4f\n", ep0, ep1, ev0, ev1);
    fflush(stdout);
    ck_assert_msg(ep1 < 0.5 * ep0 && ep1 < 0.1, "policy TV %.4f -> %.4f", ep0, ep1);
    ck_assert_msg(ev1 < 0.5 * ev0 && ev1 < 0.1, "value error %.4f -> %.4f", ev0, ev1);
    fflush(stdout);
    for (int i = 0; i < SYM_TRAIN; i++) free(vis[i]);
    nn_infer_free(inf);
    nn_batch_free(&b);
    nn_model_free(m);
}
END_TEST

int main(void)
{
#ifdef _OPENMP
    /* these tests are about learning, not threads (test_nn_ops and test_nn_model cover the
     * threaded kernels); tiny ops on shared cores only pay for OpenMP's barriers (and under
     * ThreadSanitizer libgomp's uninstrumented barriers would be reported) */
    omp_set_num_threads(1);
#endif
    Suite *s = suite_create("nn_learn");
    TCase *tc = tcase_create("learn");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, fits_a_fixed_set);
    tcase_add_test(tc, captures_head_fits_a_fixed_set);
    tcase_add_test(tc, learns_capture_pending);
    tcase_add_test(tc, equivariant_after_augmentation);
    suite_add_tcase(s, tc);
    return th_run(s);
}
