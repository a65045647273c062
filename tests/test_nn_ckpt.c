/* test_nn_ckpt.c — checkpoints: save -> load -> forward is bit-identical (float and double, with
 * SGD momenta and step), and damaged, truncated, foreign or mismatched files are clear errors;
 * the captures head survives the round trip, is added to a network without changing its play, and
 * files made before the head load without it. */
#include "helpers.h"
#include <check.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <dirent.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nn/checkpoint.h"
#include "nn/sgd.h"
#include "nn/util.h"

static char dir[256];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/test_nn_ckpt.XXXXXX");
    ck_assert(mkdtemp(dir));
}

static void remove_dir(void)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char p[600];
        while ((e = readdir(d)))
            if (e->d_name[0] != '.') { snprintf(p, sizeof p, "%s/%s", dir, e->d_name); unlink(p); }
        closedir(d);
    }
    rmdir(dir);
}

static int count_files(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static nn_config small(zz_board_kind kind)
{
    nn_config c;
    nn_config_default(&c, kind);
    c.channels = 16;
    c.blocks = 2;
    return c;
}

static void inputs(const nn_model *m, float *x, int N)
{
    uint64_t rng = 77;
    for (int i = 0; i < N; i++) {
        zz_pos p;
        zz_pos_init(&p, m->cfg.board);
        for (int k = 0; k < 10 + 7 * i && !zz_over(&p); k++) zz_apply(&p, zz_random_move(&p, &rng), NULL);
        nn_encode(&m->geom, &p, x + (size_t)i * m->geom.ncells * NN_PLANES);
    }
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    ck_assert(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(*n);
    ck_assert(fread(b, 1, *n, f) == *n);
    fclose(f);
    return b;
}

static void spit(const char *path, const unsigned char *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert(f);
    ck_assert(fwrite(b, 1, n, f) == n);
    fclose(f);
}

START_TEST(round_trip_is_bit_identical)
{
    make_dir();
    char err[512], path[400];
    snprintf(path, sizeof path, "%s/net.ckpt", dir);
    for (int kind = 0; kind < ZZ_NBOARDS; kind++)
        for (int dt = 0; dt < 2; dt++) {
            nn_config c = small((zz_board_kind)kind);
            nn_model *m = nn_model_create(&c, (nn_dtype)dt, 3 + kind, err, sizeof err);
            ck_assert(m);
            int N = 4, P = m->geom.ncells;
            float *x = malloc(sizeof(float) * N * P * NN_PLANES);
            inputs(m, x, N);
            /* train a step so that statistics, momenta and weights are all non-trivial */
            ck_assert(!nn_model_forward(m, x, N, true, err, sizeof err));
            void *dl, *dv;
            ck_assert(!nn_model_begin_backward(m, &dl, &dv, err, sizeof err));
            for (int i = 0; i < N; i++) nn_buf_set(m, dv, (size_t)i, 0.3);
            nn_buf_set(m, dl, 5, 1.0);
            nn_model_zero_grad(m);
            ck_assert(!nn_model_backward(m, err, sizeof err));
            nn_sgd o;
            nn_sgd_default(&o);
            o.warmup = 0;
            nn_sgd_step(&o, m);
            ck_assert(!nn_model_forward(m, x, N, false, err, sizeof err));
            size_t nl = (size_t)N * P * NN_HEADS * m->esize;
            void *l0 = malloc(nl), *v0 = malloc((size_t)N * m->esize);
            memcpy(l0, nn_model_logits(m), nl);
            memcpy(v0, nn_model_values(m), (size_t)N * m->esize);

            ck_assert_msg(!nn_checkpoint_save(path, m, 1234, true, err, sizeof err), "%s", err);
            ck_assert_int_eq(count_files(), 1);          /* no temporary left behind */
            nn_config ci;
            nn_dtype dti;
            long step = 0;
            ck_assert(!nn_checkpoint_info(path, &ci, &dti, &step, err, sizeof err));
            ck_assert(nn_config_same_arch(&ci, &c) && (int)dti == dt && step == 1234);
            nn_model *m2 = nn_checkpoint_load(path, (nn_dtype)dt, &step, err, sizeof err);
            ck_assert_msg(m2, "%s", err);
            ck_assert_int_eq(step, 1234);
            ck_assert(!memcmp(m->param, m2->param, m->nparams * m->esize));
            ck_assert(!memcmp(m->stats, m2->stats, m->nstats * m->esize));
            ck_assert(!memcmp(m->mom, m2->mom, m->nparams * m->esize));
            ck_assert(!nn_model_forward(m2, x, N, false, err, sizeof err));
            ck_assert(!memcmp(l0, nn_model_logits(m2), nl));
            ck_assert(!memcmp(v0, nn_model_values(m2), (size_t)N * m->esize));
            /* into an existing model of the other element type: converted */
            nn_model *m3 = nn_model_create(&c, (nn_dtype)(1 - dt), 99, err, sizeof err);
            ck_assert(!nn_checkpoint_load_into(m3, path, NULL, err, sizeof err));
            for (size_t i = 0; i < m->nparams; i++)
                ck_assert((float)nn_buf_get(m3, m3->param, i) == (float)nn_buf_get(m, m->param, i));
            /* saved without momenta: loading zeroes them */
            ck_assert(!nn_checkpoint_save(path, m, 5, false, err, sizeof err));
            ck_assert(!nn_checkpoint_load_into(m2, path, &step, err, sizeof err));
            ck_assert_int_eq(step, 5);
            for (size_t i = 0; i < m->nparams; i++) ck_assert(nn_buf_get(m2, m2->mom, i) == 0);
            nn_model_free(m);
            nn_model_free(m2);
            nn_model_free(m3);
            free(x); free(l0); free(v0);
        }
    remove_dir();
}
END_TEST

START_TEST(captures_head_round_trip_and_added)
{
    make_dir();
    char err[512], path[400];
    snprintf(path, sizeof path, "%s/aux.ckpt", dir);
    nn_config c = small(ZZ_B48);
    nn_model *plain = nn_model_create(&c, NN_F32, 5, err, sizeof err);
    ck_assert(plain);
    int N = 3, P = plain->geom.ncells;
    float *x = malloc(sizeof(float) * N * P * NN_PLANES);
    inputs(plain, x, N);
    ck_assert(!nn_model_forward(plain, x, N, false, err, sizeof err));
    ck_assert(nn_model_aux(plain) == NULL);
    /* added: the same play, a head more */
    nn_model *m = nn_model_with_aux(plain, 9, err, sizeof err);
    ck_assert_msg(m, "%s", err);
    ck_assert_int_eq(m->cfg.aux_outputs, NN_AUX);
    ck_assert_int_eq((int)m->nparams, (int)plain->nparams + c.value_hidden * NN_AUX + NN_AUX);
    ck_assert(!nn_model_forward(m, x, N, false, err, sizeof err));
    size_t nl = (size_t)N * P * NN_HEADS * sizeof(float);
    ck_assert(!memcmp(nn_model_logits(m), nn_model_logits(plain), nl));
    ck_assert(!memcmp(nn_model_values(m), nn_model_values(plain), N * sizeof(float)));
    ck_assert(nn_model_with_aux(m, 9, err, sizeof err) == NULL && strstr(err, "already"));
    /* a step that moves the head, then the round trip */
    ck_assert(!nn_model_forward(m, x, N, true, err, sizeof err));
    ck_assert(!nn_model_begin_backward(m, NULL, NULL, err, sizeof err));
    float *da = nn_model_aux_grad(m);
    ck_assert(da);
    for (int i = 0; i < N * NN_AUX; i++) da[i] = 0.1f * (float)(i % 5 - 2);
    nn_model_zero_grad(m);
    ck_assert(!nn_model_backward(m, err, sizeof err));
    nn_sgd o;
    nn_sgd_default(&o);
    o.warmup = 0;
    nn_sgd_step(&o, m);
    ck_assert(!nn_model_forward(m, x, N, false, err, sizeof err));
    float a0[3 * NN_AUX];
    memcpy(a0, nn_model_aux(m), sizeof a0);
    ck_assert_msg(!nn_checkpoint_save(path, m, 7, true, err, sizeof err), "%s", err);
    nn_model *m2 = nn_checkpoint_load(path, NN_F32, NULL, err, sizeof err);
    ck_assert_msg(m2, "%s", err);
    ck_assert_int_eq(m2->cfg.aux_outputs, NN_AUX);
    ck_assert(!memcmp(m->param, m2->param, m->nparams * m->esize));
    ck_assert(!memcmp(m->mom, m2->mom, m->nparams * m->esize));
    ck_assert(!nn_model_forward(m2, x, N, false, err, sizeof err));
    ck_assert(!memcmp(a0, nn_model_aux(m2), sizeof a0));
    /* into a network without the head: refused, naming it */
    ck_assert(nn_checkpoint_load_into(plain, path, NULL, err, sizeof err) == -1);
    ck_assert_msg(strstr(err, "captures head 6") && strstr(err, "captures head 0"), "%s", err);
    /* a file made before the head (the shipped networks) loads without it */
    nn_config shipped;
    ck_assert_msg(!nn_checkpoint_info("weights/zertz37.ckpt", &shipped, NULL, NULL, err, sizeof err), "%s", err);
    ck_assert_int_eq(shipped.aux_outputs, 0);
    nn_model_free(plain);
    nn_model_free(m);
    nn_model_free(m2);
    free(x);
    remove_dir();
}
END_TEST

START_TEST(damaged_files_are_rejected)
{
    make_dir();
    char err[512], path[400], bad[400];
    snprintf(path, sizeof path, "%s/net.ckpt", dir);
    snprintf(bad, sizeof bad, "%s/bad.ckpt", dir);
    nn_config c = small(ZZ_B37);
    nn_model *m = nn_model_create(&c, NN_F32, 1, err, sizeof err);
    ck_assert(!nn_checkpoint_save(path, m, 7, true, err, sizeof err));
    size_t n;
    unsigned char *b = slurp(path, &n);
    unsigned char *w = malloc(n);

    /* missing file */
    ck_assert(!nn_checkpoint_load(bad, NN_F32, NULL, err, sizeof err));
    ck_assert_msg(strstr(err, "cannot open"), "%s", err);
    /* a device or a folder: refused at once, with the cause (no gigabytes read from /dev/zero) */
    ck_assert(!nn_checkpoint_load("/dev/zero", NN_F32, NULL, err, sizeof err));
    ck_assert_msg(strstr(err, "bad magic"), "%s", err);
    ck_assert(!nn_checkpoint_load(dir, NN_F32, NULL, err, sizeof err));
    ck_assert_msg(strstr(err, "Is a directory"), "%s", err);
    /* a diverged network (a NaN weight, an infinite momentum), saved with a good checksum: refused */
    const float poison[2] = { NAN, INFINITY };
    for (int k = 0; k < 2; k++) {
        nn_model *d = nn_model_create(&c, NN_F32, 1, err, sizeof err);
        ((float *)(k ? d->mom : d->param))[d->nparams / 2] = poison[k];
        ck_assert(!nn_checkpoint_save(bad, d, 7, true, err, sizeof err));
        nn_model_free(d);
        ck_assert(!nn_checkpoint_load(bad, NN_F32, NULL, err, sizeof err));
        ck_assert_msg(strstr(err, "not finite"), "%s", err);
    }
    /* every single flipped byte (a sample of positions) is caught */
    for (size_t at = 0; at < n; at += 1 + n / 97) {
        memcpy(w, b, n);
        w[at] ^= 0x20;
        spit(bad, w, n);
        ck_assert_msg(nn_checkpoint_load_into(m, bad, NULL, err, sizeof err) == -1, "flip at %zu accepted", at);
        ck_assert(strlen(err) > 0);
    }
    memcpy(w, b, n);
    w[n / 2] ^= 1;
    spit(bad, w, n);
    ck_assert(nn_checkpoint_load_into(m, bad, NULL, err, sizeof err) == -1);
    ck_assert_msg(strstr(err, "checksum"), "%s", err);
    /* truncations */
    size_t cuts[] = { 0, 5, 40, 100, n / 2, n - 1 };
    for (int k = 0; k < 6; k++) {
        spit(bad, b, cuts[k]);
        ck_assert_msg(!nn_checkpoint_load(bad, NN_F32, NULL, err, sizeof err), "cut %zu accepted", cuts[k]);
        ck_assert_msg(strstr(err, "truncated") || strstr(err, "checksum"), "%s", err);
    }
    /* not a checkpoint */
    spit(bad, (const unsigned char *)"hello, this is not a network at all, not even close....................................................", 100);
    ck_assert(!nn_checkpoint_load(bad, NN_F32, NULL, err, sizeof err));
    ck_assert_msg(strstr(err, "magic"), "%s", err);
    /* another version (with a valid checksum) */
    memcpy(w, b, n);
    w[8] = 99;
    uint32_t crc = nn_crc32(0, w, n - 4);
    for (int k = 0; k < 4; k++) w[n - 4 + k] = (unsigned char)(crc >> (8 * k));
    spit(bad, w, n);
    ck_assert(!nn_checkpoint_load(bad, NN_F32, NULL, err, sizeof err));
    ck_assert_msg(strstr(err, "version"), "%s", err);
    /* a header asking for a network far bigger than the file (64 blocks of 1024 channels: 11 GiB)
     * is refused before any model is made for it (a fuzzing finding: it used to allocate first) */
    memcpy(w, b, n);
    for (int k = 0; k < 4; k++) w[28 + k] = (unsigned char)(1024 >> (8 * k)), w[32 + k] = (unsigned char)(64 >> (8 * k));
    crc = nn_crc32(0, w, n - 4);
    for (int k = 0; k < 4; k++) w[n - 4 + k] = (unsigned char)(crc >> (8 * k));
    spit(bad, w, n);
    ck_assert(!nn_checkpoint_load(bad, NN_F32, NULL, err, sizeof err));
    ck_assert_msg(strstr(err, "cannot hold the network its header describes") && strstr(err, "64 blocks x 1024"), "%s", err);
    /* architecture mismatch: a model of another shape, and a model for another board */
    nn_config c2 = c;
    c2.channels = 24;
    nn_model *o = nn_model_create(&c2, NN_F32, 1, err, sizeof err);
    ck_assert_int_eq(nn_checkpoint_load_into(o, path, NULL, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "architecture mismatch"), "%s", err);
    nn_model_free(o);
    c2 = small(ZZ_B61);
    o = nn_model_create(&c2, NN_F32, 1, err, sizeof err);
    ck_assert_int_eq(nn_checkpoint_load_into(o, path, NULL, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "architecture mismatch"), "%s", err);
    nn_model_free(o);
    /* saving into a missing directory fails cleanly and leaves nothing */
    char nowhere[450];
    snprintf(nowhere, sizeof nowhere, "%s/no/such/dir/net.ckpt", dir);
    ck_assert_int_eq(nn_checkpoint_save(nowhere, m, 0, false, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "cannot create"), "%s", err);
    /* the original is still good */
    ck_assert(!nn_checkpoint_load_into(m, path, NULL, err, sizeof err));
    free(b);
    free(w);
    nn_model_free(m);
    remove_dir();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nn_ckpt");
    TCase *tc = tcase_create("checkpoint");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, round_trip_is_bit_identical);
    tcase_add_test(tc, damaged_files_are_rejected);
    tcase_add_test(tc, captures_head_round_trip_and_added);
    suite_add_tcase(s, tc);
    return th_run(s);
}
