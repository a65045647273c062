/* test_train_mpi.c — `mpirun --oversubscribe -np 3 tools/train --mpi` on a tiny configuration (2x16
 * net, 8 simulations): rank 0's replay buffer holds games from every rank, nothing lost or counted
 * twice; the workers' weights follow the trainer's (by generation: at the end each worker holds the
 * trainer's last generation, and its samples carry generations that grew during the run and never
 * ran ahead of the trainer); a worker killed mid-run ends the job with a clear message, rank 0
 * saves its state (at least the step reached before the kill) and the other worker's last games,
 * and running the same command again resumes from the saved step.  Skipped loudly without mpirun or without an
 * MPI build of tools/train, and under sanitizers (Open MPI's own allocations are reported). */
#include "train/replay.h"
#include "train/runstate.h"
#include "helpers.h"
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

static const char *SUITE = "test_train_mpi";
static char dir[256], prog[600];

/* mpirun, run as root too (Open MPI refuses root unless told), ranks oversubscribed on few cores */
static const char *MPIRUN = "env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 "
                            "OMPI_MCA_btl_vader_single_copy_mechanism=none mpirun --oversubscribe --bind-to none -np 3";
static const char *TINY = "--blocks 2 --channels 16 --sims 8 --games-in-flight 8 --eval-every 0 --batch 32 "
                          "--window 1000000 --min-samples 200";

static char *slurp(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return calloc(1, 1);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t k = fread(s, 1, (size_t)n, f);
    s[k] = 0;
    fclose(f);
    return s;
}

/* 1 when the checks can run here (else a th_skip line says why). */
static int usable(void) {
    if (SANITIZED) { th_skip(SUITE, "sanitizer build: the MPI job did not run (Open MPI's allocations are reported)"); return 0; }
    if (system("command -v mpirun >/dev/null 2>&1") != 0) {
        th_skip(SUITE, "mpirun not found: the MPI training checks did not run (apt-get install openmpi-bin libopenmpi-dev)");
        return 0;
    }
    const char *d = getenv("ZZ_TOOLDIR");
    snprintf(prog, sizeof prog, "%s/train", d && *d ? d : "tools");
    if (access(prog, X_OK) != 0) { th_skip(SUITE, "%s is not built: the MPI training checks did not run", prog); return 0; }
    /* called outside a test (Check's asserts do not work here): plain system() */
    char cmd[1400], ef[64];
    snprintf(ef, sizeof ef, "/tmp/zz-mpi-probe-%d", (int)getpid());
    snprintf(cmd, sizeof cmd, "%s --mpi --help >/dev/null 2>%s </dev/null", prog, ef);
    int st = system(cmd);
    char *err = slurp(ef);
    remove(ef);
    int no_mpi = WIFEXITED(st) && WEXITSTATUS(st) == 2 && strstr(err, "no MPI");
    free(err);
    if (no_mpi) {
        th_skip(SUITE, "tools/train was built without MPI (no mpicc at build time): the MPI training checks did not run");
        return 0;
    }
    return 1;
}

/* Run the job in the foreground (killed after timeout_s); its output in D.out.  Exit status. */
static int job(const char *args, int timeout_s, char **out) {
    char cmd[8192], of[300];
    snprintf(of, sizeof of, "%s.out", dir);
    snprintf(cmd, sizeof cmd, "timeout -k 5 %d %s %s --mpi --out %s %s %s >%s 2>&1 </dev/null", timeout_s,
             MPIRUN, prog, dir, TINY, args, of);
    int st = system(cmd);
    *out = slurp(of);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

typedef struct { long long n, total, by_origin[4], gen_min[4], gen_max[4]; } disk;

static disk read_disk(void) {
    tr_replay r;
    char err[256], p[400];
    snprintf(p, sizeof p, "%s/replay", dir);
    ck_assert_msg(tr_replay_open(&r, p, ZZ_B37, 10000000, err, sizeof err) == 0, "%s", err);
    disk d;
    memset(&d, 0, sizeof d);
    for (int o = 0; o < 4; o++) d.gen_min[o] = 1 << 30, d.gen_max[o] = -1;
    d.n = r.count;
    d.total = r.total;
    for (int i = 0; i < r.count; i++) {
        const tr_sample *s = tr_replay_at(&r, i);
        int o = s->origin < 4 ? s->origin : 3;
        d.by_origin[o]++;
        if (s->gen < d.gen_min[o]) d.gen_min[o] = s->gen;
        if ((long long)s->gen > d.gen_max[o]) d.gen_max[o] = s->gen;
    }
    ck_assert_int_eq(r.set_aside, 0);
    tr_replay_close(&r, err, sizeof err);
    return d;
}

static tr_runstate state(void) {
    tr_runstate st;
    char err[256], p[400];
    snprintf(p, sizeof p, "%s/run.state", dir);
    memset(&st, 0, sizeof st);
    if (tr_runstate_load(p, &st, err, sizeof err) != 0) st.steps = -1;
    return st;
}

START_TEST(three_ranks_fill_one_buffer_and_follow_the_weights) {
    snprintf(dir, sizeof dir, "/tmp/zz-train-mpi-%d", (int)getpid());
    char *out;
    /* the trainer may step only after a flush of the buffer (every 2 s): a run of several flushes,
     * a generation every 2 steps, a low ratio so that self-play is seldom held */
    int rc = job("--fresh --minutes 0.15 --gen-steps 2 --train-ratio 0.05", 180, &out);
    ck_assert_msg(rc == 0, "mpirun exit %d:\n%s", rc, out);
    disk d = read_disk();
    ck_assert_int_eq(d.n, d.total);                 /* every sample once: nothing lost, nothing twice */
    for (int o = 0; o < 3; o++)
        ck_assert_msg(d.by_origin[o] > 0, "no samples from rank %d in rank 0's buffer (%lld %lld %lld)", o, d.by_origin[0],
                      d.by_origin[1], d.by_origin[2]);
    ck_assert_int_eq(d.by_origin[3], 0);
    tr_runstate st = state();
    ck_assert_msg(st.generation >= 2, "the trainer made %d generations in 9 s:\n%s", st.generation, out);
    ck_assert_int_eq(st.samples, d.total);
    for (int o = 1; o < 3; o++) {
        /* the workers' samples: generation 0 at first, later ones while the trainer moved on,
         * never one the trainer had not reached */
        ck_assert_int_eq(d.gen_min[o], 0);
        ck_assert_msg(d.gen_max[o] >= 1 && d.gen_max[o] <= st.generation, "rank %d: generations %lld..%lld (rank 0: %lld..%lld; samples %lld %lld %lld)\n%s", o,
                      d.gen_min[o], d.gen_max[o], d.gen_min[0], d.gen_max[0], d.by_origin[0], d.by_origin[1], d.by_origin[2], out);
        /* at the end every worker holds the trainer's last weights (a refresh every 2 steps) */
        char key[32];
        snprintf(key, sizeof key, "zertz train: rank %d (", o);
        const char *line = strstr(out, key);
        const char *w = line ? strstr(line, "weights at the end: generation ") : NULL;
        int gen = -1;
        long step = -1;
        ck_assert_msg(w && sscanf(w, "weights at the end: generation %d, step %ld", &gen, &step) == 2, "rank %d:\n%s", o, out);
        ck_assert_msg(gen == st.generation && step <= st.steps && step >= st.steps - 2,
                      "rank %d ends with generation %d (step %ld), the trainer at %d (step %ld)", o, gen, step, st.generation, st.steps);
    }
    ck_assert_msg(strstr(out, "bytes/game") && strstr(out, "weight broadcasts of"), "%s", out);
    free(out);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s.out", dir, dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The last "steps N" of rank 0's status lines in out, or -1. */
static long last_status_step(const char *out) {
    long n = -1;
    for (const char *q = strstr(out, " steps "); q; q = strstr(q + 1, " steps ")) {
        long v;
        if (sscanf(q, " steps %ld", &v) == 1) n = v;
    }
    return n;
}

/* A worker dies (SIGKILL): the job ends with a clear message, rank 0 saves its state in the seconds
 * mpirun gives it (odls_base_sigkill_timeout, as `make train-mpi` sets), and the same command
 * resumes from the saved step. */
START_TEST(a_dead_rank_ends_the_job_and_the_run_resumes) {
    snprintf(dir, sizeof dir, "/tmp/zz-train-mpi-kill-%d", (int)getpid());
    char cmd[8192], of[300], pidf[300];
    snprintf(of, sizeof of, "%s.out", dir);
    snprintf(pidf, sizeof pidf, "%s.pid", dir);
    /* bounded by steps (far more than are made before the job is ended), --minutes as a backstop */
    snprintf(cmd, sizeof cmd, "rm -rf %s; (timeout -k 5 150 %s --mca odls_base_sigkill_timeout 5 %s --mpi --out %s %s --fresh "
             "--steps 3000 --minutes 2 --gen-steps 10 --train-ratio 0.1 >%s 2>&1 </dev/null; echo $? >%s.rc) & echo $! >%s",
             dir, MPIRUN, prog, dir, TINY, of, dir, pidf);
    ck_assert_int_eq(system(cmd), 0);
    /* wait for a checkpoint past step 20 and for rank 2 to have joined */
    int pid2 = 0;
    long before = -1;           /* the step just before the kill: rank 0 saves at least that */
    tr_runstate st = { 0 };
    for (int i = 0; i < 900 && !(pid2 > 0 && st.steps >= 20); i++) {
        struct timespec ts = { 0, 100000000 };
        nanosleep(&ts, NULL);
        char *o = slurp(of);
        const char *j = strstr(o, "rank 2 joined:");
        const char *p = j ? strstr(j, "pid ") : NULL;
        if (p) pid2 = atoi(p + 4);
        st = state();
        before = last_status_step(o);
        free(o);
    }
    ck_assert_msg(pid2 > 0 && st.steps >= 20, "the job did not get going (rank 2 pid %d, step %ld)", pid2, st.steps);
    if (st.steps > before) before = st.steps;
    ck_assert_int_eq(kill(pid2, SIGKILL), 0);
    char rcf[320];
    snprintf(rcf, sizeof rcf, "%s.rc", dir);
    char *rcs = NULL;
    for (int i = 0; i < 600; i++) {                  /* the job ends (not hangs) */
        struct timespec ts = { 0, 100000000 };
        nanosleep(&ts, NULL);
        if (access(rcf, F_OK) == 0) { free(rcs); rcs = slurp(rcf); if (*rcs) break; }
    }
    ck_assert_msg(rcs && *rcs, "the job did not end within 60 s of a rank's death");
    char *out = slurp(of);
    ck_assert_msg(atoi(rcs) != 0 && atoi(rcs) != 124, "exit status %s:\n%s", rcs, out);
    /* mpirun names the dead rank; rank 0 saved (tools/train.c's words) at least the step it had
     * reached before the kill, and took the last games of the worker that was ended (rank 1) */
    ck_assert_msg(strstr(out, "signal 9") || strstr(out, "Killed"), "%s", out);
    const char *sv = strstr(out, "state saved at step ");
    long saved = -1;
    ck_assert_msg(sv && sscanf(sv, "state saved at step %ld", &saved) == 1, "no \"state saved at step\":\n%s", out);
    ck_assert_msg(saved >= before, "saved step %ld, but step %ld before the kill:\n%s", saved, before, out);
    ck_assert_msg(strstr(out, "run the same command again to resume"), "%s", out);
    ck_assert_msg(strstr(out, "1 of 2 workers sent their last games"), "%s", out);
    free(out);
    free(rcs);
    disk d = read_disk();
    ck_assert_int_eq(d.n, d.total);
    st = state();
    ck_assert_int_eq(st.steps, saved);
    ck_assert_int_eq(st.samples <= d.total, 1);

    /* the same command again (without --fresh): it resumes from rank 0's files; the samples saved
     * allow some steps at once (training counts flushed samples: it lags), then 20 steps more need
     * new games, the workers' among them */
    long backlog = (long)((0.1 * (double)d.total - (double)st.trained) / 32);
    long target = saved + (backlog > 0 ? backlog : 0) + 20;
    char args[128];
    snprintf(args, sizeof args, "--steps %ld --gen-steps 10 --train-ratio 0.1", target);
    int rc = job(args, 180, &out);
    ck_assert_msg(rc == 0, "resume: exit %d:\n%s", rc, out);
    const char *rs = strstr(out, "resumed at step ");
    long resumed = -1;
    ck_assert_msg(rs && sscanf(rs, "resumed at step %ld", &resumed) == 1, "%s", out);
    ck_assert_msg(resumed == saved && resumed >= before, "resumed at step %ld; saved %ld, %ld before the kill", resumed, saved,
                  before);
    disk d2 = read_disk();
    ck_assert_int_eq(d2.n, d2.total);
    ck_assert_int_ge(d2.total, d.total);
    st = state();
    ck_assert_int_eq(st.steps, target);
    ck_assert_int_eq(st.samples, d2.total);
    for (int o = 1; o < 3; o++)         /* resumed weights went out */
        ck_assert_msg(d2.gen_max[o] >= saved / 10, "rank %d: samples before %lld after %lld, generations %lld..%lld; saved "
                      "step %ld:\n%s", o, d.by_origin[o], d2.by_origin[o], d2.gen_min[o], d2.gen_max[o], saved, out);
    free(out);
    snprintf(cmd, sizeof cmd, "rm -rf %s %s.out %s.pid %s.rc", dir, dir, dir, dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void) {
    Suite *s = suite_create("train_mpi");
    TCase *tc = tcase_create("mpi");
    tcase_set_timeout(tc, 400);
    if (usable()) {                     /* else one th_skip line said why */
        tcase_add_test(tc, three_ranks_fill_one_buffer_and_follow_the_weights);
        tcase_add_test(tc, a_dead_rank_ends_the_job_and_the_run_resumes);
    }
    suite_add_tcase(s, tc);
    return th_run(s);
}
