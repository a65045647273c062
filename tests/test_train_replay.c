/* test_train_replay.c — the persisted replay buffer: round trip, resume after a kill with nothing
 * lost or duplicated, the sliding window and chunk retention, damaged and mismatched files; a
 * chunk image in memory (the MPI ranks' messages), final captures that cannot be refused, and
 * version-1 chunks (before gen/origin, and before the final captures); one
 * chunk file checked without changing anything (tools/run_check). */
#include "train/replay.h"
#include "nn/util.h"
#include "helpers.h"
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[256];

static void fresh_dir(void) {
    snprintf(dir, sizeof dir, "/tmp/zz-replay-test-%d", (int)getpid());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* Sample number k: a position from a random game seeded by k, visits on its first legal moves. */
static void make_sample(int k, tr_sample *s, nn_visit *vbuf) {
    static zz_move mv[ZZ_MAX_MOVES];
    uint64_t rng = 1000 + (uint64_t)k;
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    for (int i = 0; i < k % 17; i++) {
        zz_pos q = p;
        zz_apply(&q, zz_random_move(&q, &rng), NULL);
        if (zz_over(&q)) break;
        p = q;
    }
    int n = zz_gen_moves(&p, mv);
    memset(s, 0, sizeof *s);
    s->pos = p;
    s->z = (float)(k % 3) - 1.0f;
    s->full = (uint8_t)(k & 1);
    s->gen = (uint32_t)k * 7;
    s->origin = (uint16_t)(k % 5);
    s->fin.known = k % 3 != 0;                  /* final captures: each side some of what is left */
    for (int c = 0; c < 3; c++)
        for (int q = 0; q < 2; q++)
            s->fin.cap[q][c] = (uint8_t)(p.cap[q][c] + (k + q + c) % 2 * (p.pool[c] > 2));
    s->nvisits = (uint16_t)(n < 5 ? n : 5);
    for (int i = 0; i < s->nvisits; i++) { vbuf[i].move = mv[i]; vbuf[i].count = (uint32_t)(k + i + 1); }
    s->visits = vbuf;
}

static bool same_sample(const tr_sample *a, const tr_sample *b) {
    return zz_pos_equal(&a->pos, &b->pos) && a->pos.ply == b->pos.ply && a->z == b->z && a->full == b->full &&
           a->gen == b->gen && a->origin == b->origin && !memcmp(&a->fin, &b->fin, sizeof a->fin) &&
           a->nvisits == b->nvisits && !memcmp(a->visits, b->visits, sizeof(nn_visit) * a->nvisits);
}

static int count_chunks(void) {
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) n += strstr(e->d_name, ".zzr") != NULL;
    if (d) closedir(d);
    return n;
}

START_TEST(round_trip_and_window) {
    fresh_dir();
    tr_replay r;
    char err[256];
    ck_assert_int_eq(tr_replay_open(&r, dir, ZZ_B37, 50, err, sizeof err), 0);
    nn_visit vb[8];
    for (int k = 0; k < 120; k++) {      /* 12 chunks of 10 samples; the window keeps the last 50 */
        tr_sample s;
        make_sample(k, &s, vb);
        ck_assert_int_eq(tr_replay_add(&r, &s, 1, err, sizeof err), 0);
        if (k % 10 == 9) ck_assert_int_eq(tr_replay_flush(&r, err, sizeof err), 0);
    }
    ck_assert_int_eq(r.count, 50);
    ck_assert_int_le(count_chunks(), 6);                 /* old chunks deleted */
    ck_assert_int_eq(tr_replay_close(&r, err, sizeof err), 0);
    ck_assert_int_eq(tr_replay_open(&r, dir, ZZ_B37, 50, err, sizeof err), 0);
    ck_assert_int_eq(r.count, 50);
    ck_assert_int_eq(r.total, 120);
    for (int i = 0; i < 50; i++) {
        tr_sample s;
        make_sample(70 + i, &s, vb);
        ck_assert_msg(same_sample(tr_replay_at(&r, i), &s), "sample %d differs after reload", i);
    }
    tr_replay_close(&r, err, sizeof err);
    /* a smaller window reads only the newest part of the oldest chunk it needs */
    ck_assert_int_eq(tr_replay_open(&r, dir, ZZ_B37, 15, err, sizeof err), 0);
    ck_assert_int_eq(r.count, 15);
    tr_sample s;
    make_sample(105, &s, vb);
    ck_assert(same_sample(tr_replay_at(&r, 0), &s));
    tr_replay_close(&r, err, sizeof err);
}
END_TEST

START_TEST(resume_after_kill) {
    fresh_dir();
    pid_t pid = fork();
    if (pid == 0) {                      /* a run that flushes 30 samples, then dies mid-way */
        tr_replay r;
        char err[256];
        nn_visit vb[8];
        if (tr_replay_open(&r, dir, ZZ_B37, 1000, err, sizeof err) < 0) _exit(2);
        for (int k = 0; k < 35; k++) {
            tr_sample s;
            make_sample(k, &s, vb);
            tr_replay_add(&r, &s, 1, err, sizeof err);
            if (k % 10 == 9) tr_replay_flush(&r, err, sizeof err);
        }
        _exit(0);                        /* no close: 5 samples were never flushed */
    }
    int status;
    waitpid(pid, &status, 0);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    tr_replay r;
    char err[256];
    nn_visit vb[8];
    ck_assert_int_eq(tr_replay_open(&r, dir, ZZ_B37, 1000, err, sizeof err), 0);
    ck_assert_int_eq(r.count, 30);
    for (int k = 30; k < 40; k++) {      /* the resumed run goes on numbering after what it has */
        tr_sample s;
        make_sample(k, &s, vb);
        tr_replay_add(&r, &s, 1, err, sizeof err);
    }
    ck_assert_int_eq(tr_replay_close(&r, err, sizeof err), 0);
    ck_assert_int_eq(tr_replay_open(&r, dir, ZZ_B37, 1000, err, sizeof err), 0);
    ck_assert_int_eq(r.count, 40);       /* nothing lost, nothing duplicated */
    for (int i = 0; i < 40; i++) {
        tr_sample s;
        make_sample(i, &s, vb);
        ck_assert(same_sample(tr_replay_at(&r, i), &s));
    }
    tr_replay_close(&r, err, sizeof err);
}
END_TEST

START_TEST(damaged_and_mismatched) {
    fresh_dir();
    tr_replay r;
    char err[256];
    nn_visit vb[8];
    ck_assert_int_eq(tr_replay_open(&r, dir, ZZ_B37, 100, err, sizeof err), 0);
    for (int k = 0; k < 10; k++) { tr_sample s; make_sample(k, &s, vb); tr_replay_add(&r, &s, 1, err, sizeof err); }
    ck_assert_int_eq(tr_replay_close(&r, err, sizeof err), 0);
    ck_assert_int_ne(tr_replay_open(&r, dir, ZZ_B61, 100, err, sizeof err), 0);   /* another board */
    ck_assert_ptr_nonnull(strstr(err, "ring board"));
    tr_replay_close(&r, err, sizeof err);
    ck_assert_int_eq(tr_replay_open(&r, dir, ZZ_B37, 100, err, sizeof err), 0);   /* a second chunk */
    for (int k = 10; k < 20; k++) { tr_sample s; make_sample(k, &s, vb); tr_replay_add(&r, &s, 1, err, sizeof err); }
    ck_assert_int_eq(tr_replay_close(&r, err, sizeof err), 0);
    char path[400], aside[420];
    snprintf(path, sizeof path, "%s/chunk-00000000.zzr", dir);
    snprintf(aside, sizeof aside, "%s.damaged", path);
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    fseek(f, 60, SEEK_SET);
    fputc(0x5A, f);
    fclose(f);
    /* a damaged chunk is set aside with a warning: only its samples are lost */
    ck_assert_msg(tr_replay_open(&r, dir, ZZ_B37, 100, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.set_aside, 1);
    ck_assert_int_eq(r.count, 10);
    ck_assert_int_eq(r.total, 20);
    ck_assert_int_eq(access(path, F_OK), -1);
    ck_assert_int_eq(access(aside, F_OK), 0);
    for (int i = 0; i < 10; i++) {
        tr_sample s;
        make_sample(10 + i, &s, vb);
        ck_assert(same_sample(tr_replay_at(&r, i), &s));
    }
    tr_replay_close(&r, err, sizeof err);
    snprintf(path, sizeof path, "%s/chunk-00000001.zzr", dir);            /* truncated: the same */
    ck_assert_int_eq(truncate(path, 30), 0);
    ck_assert_msg(tr_replay_open(&r, dir, ZZ_B37, 100, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.set_aside, 1);
    ck_assert_int_eq(r.count, 0);
    tr_replay_close(&r, err, sizeof err);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* A chunk image in memory decodes to the same samples; a damaged or another board's image is refused. */
START_TEST(image_round_trip) {
    enum { N = 30 };
    tr_sample in[N];
    nn_visit vb[N][8];
    for (int k = 0; k < N; k++) make_sample(k, &in[k], vb[k]);
    unsigned char *img;
    size_t len;
    char err[256];
    ck_assert_int_eq(tr_replay_encode(ZZ_B37, 5, in, N, &img, &len, err, sizeof err), 0);
    tr_sample *out;
    int n;
    ck_assert_msg(tr_replay_decode(img, len, ZZ_B37, "image", &out, &n, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(n, N);
    for (int k = 0; k < N; k++) {
        ck_assert_msg(same_sample(&out[k], &in[k]), "sample %d differs", k);
        tr_sample_clear(&out[k]);
    }
    free(out);
    ck_assert_int_ne(tr_replay_decode(img, len, ZZ_B48, "image", &out, &n, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "48") || strstr(err, "37"), "%s", err);
    img[len / 2] ^= 0x40;
    ck_assert_int_ne(tr_replay_decode(img, len, ZZ_B37, "image", &out, &n, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "checksum"), "%s", err);
    ck_assert_int_ne(tr_replay_decode(img, 20, ZZ_B37, "image", &out, &n, err, sizeof err), 0);
    free(img);
    in[4].fin.known = 1;                        /* more white captured than the game has */
    in[4].fin.cap[0][0] = 5;
    in[4].fin.cap[1][0] = 5;
    ck_assert_int_eq(tr_replay_encode(ZZ_B37, 5, in, N, &img, &len, err, sizeof err), 0);
    ck_assert_int_ne(tr_replay_decode(img, len, ZZ_B37, "image", &out, &n, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "final captures"), "%s", err);
    free(img);
}
END_TEST

static void le(unsigned char **p, uint64_t v, int n) { for (int i = 0; i < n; i++) *(*p)++ = (unsigned char)(v >> 8 * i); }

/* A version-1 chunk (written before samples carried gen and origin) still loads, as gen 0, origin 0,
 * its final captures unknown. */
START_TEST(version_1_chunks_still_read) {
    fresh_dir();
    char err[256], path[400];
    tr_replay r;
    ck_assert_int_eq(tr_replay_open(&r, dir, ZZ_B37, 100, err, sizeof err), 0);
    tr_replay_close(&r, err, sizeof err);
    nn_visit vb[8];
    tr_sample s;
    make_sample(9, &s, vb);
    unsigned char buf[4096], *p = buf;
    memcpy(p, "ZZREPLAY", 8);
    p += 8;
    le(&p, 1, 4);                   /* version 1 */
    le(&p, ZZ_B37, 4);
    le(&p, 1, 4);                   /* one sample */
    le(&p, 0, 8);
    zz_bits planes[4] = { s.pos.rings, s.pos.marble[0], s.pos.marble[1], s.pos.marble[2] };
    for (int i = 0; i < 4; i++) for (int b = 0; b < 16; b++) *p++ = (unsigned char)(planes[i] >> 8 * b);
    for (int c = 0; c < 3; c++) *p++ = s.pos.pool[c];
    for (int q = 0; q < 2; q++) for (int c = 0; c < 3; c++) *p++ = s.pos.cap[q][c];
    *p++ = s.pos.to_move;
    *p++ = s.pos.chain;
    le(&p, s.pos.ply, 2);
    uint32_t zb;
    memcpy(&zb, &s.z, 4);
    le(&p, zb, 4);
    *p++ = s.full;
    le(&p, s.nvisits, 2);
    for (int v = 0; v < s.nvisits; v++) { le(&p, s.visits[v].move, 4); le(&p, s.visits[v].count, 4); }
    uint32_t crc = nn_crc32(0, buf, (size_t)(p - buf));
    le(&p, crc, 4);
    snprintf(path, sizeof path, "%s/chunk-00000000.zzr", dir);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fwrite(buf, 1, (size_t)(p - buf), f), (size_t)(p - buf));
    fclose(f);
    ck_assert_msg(tr_replay_open(&r, dir, ZZ_B37, 100, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.count, 1);
    s.gen = 0;
    s.origin = 0;
    s.fin = (nn_final_caps){ 0 };                 /* unknown before version 3 */
    ck_assert(same_sample(tr_replay_at(&r, 0), &s));
    tr_replay_close(&r, err, sizeof err);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* tr_replay_check_file (what tools/run_check verifies after a kill): a chunk's count and first
 * sample number; a flipped byte is damage (-2), another board is refused (-1); nothing changes on
 * disk (the damaged chunk is not set aside). */
START_TEST(check_file_changes_nothing) {
    fresh_dir();
    tr_replay r;
    char err[256], path[600];
    nn_visit vb[8];
    ck_assert_int_eq(tr_replay_open(&r, dir, ZZ_B37, 100, err, sizeof err), 0);
    for (int k = 0; k < 25; k++) {       /* chunks 0, 1, 2 of 10, 10 and 5 samples */
        tr_sample s;
        make_sample(k, &s, vb);
        ck_assert_int_eq(tr_replay_add(&r, &s, 1, err, sizeof err), 0);
        if (k % 10 == 9) ck_assert_int_eq(tr_replay_flush(&r, err, sizeof err), 0);
    }
    ck_assert_int_eq(tr_replay_close(&r, err, sizeof err), 0);
    int n;
    long long first;
    snprintf(path, sizeof path, "%s/chunk-%08u.zzr", dir, 1u);
    ck_assert_int_eq(tr_replay_check_file(path, ZZ_B37, &n, &first, err, sizeof err), 0);
    ck_assert_int_eq(n, 10);
    ck_assert_int_eq(first, 10);
    ck_assert_int_eq(tr_replay_check_file(path, ZZ_B61, &n, &first, err, sizeof err), -1);
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    fseek(f, 40, SEEK_SET);
    int c = fgetc(f);
    fseek(f, 40, SEEK_SET);
    fputc(c ^ 0x10, f);
    fclose(f);
    ck_assert_int_eq(tr_replay_check_file(path, ZZ_B37, &n, &first, err, sizeof err), -2);
    ck_assert_ptr_nonnull(strstr(err, "checksum"));
    ck_assert_int_eq(access(path, F_OK), 0);
    ck_assert_int_eq(count_chunks(), 3);
    snprintf(path, sizeof path, "%s/chunk-%08u.zzr", dir, 7u);
    ck_assert_int_eq(tr_replay_check_file(path, ZZ_B37, &n, &first, err, sizeof err), -1);   /* missing */
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void) {
    Suite *s = suite_create("train_replay");
    TCase *t = tcase_create("replay");
    tcase_add_test(t, round_trip_and_window);
    tcase_add_test(t, resume_after_kill);
    tcase_add_test(t, damaged_and_mismatched);
    tcase_add_test(t, image_round_trip);
    tcase_add_test(t, version_1_chunks_still_read);
    tcase_add_test(t, check_file_changes_nothing);
    suite_add_tcase(s, t);
    return th_run(s);
}
