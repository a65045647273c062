/* helpers.c — see helpers.h. */
#include "helpers.h"
#include "mcts/agent.h"
#include "mcts/openings.h"
#include "nn/checkpoint.h"
#include <stdarg.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int th_cell(const zz_pos *p, const char *name) {
    const char *s = name;
    int c = zz_parse_cell(zz_pos_board(p), &s);
    ck_assert_msg(c >= 0, "bad cell name %s", name);
    return c;
}

void th_build(zz_pos *p, zz_board_kind kind, const char *rings, const char *marbles) {
    zz_pos_init(p, kind);
    if (rings) {
        p->rings = 0;
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", rings);
        for (char *t = strtok(buf, " "); t; t = strtok(NULL, " ")) p->rings |= zz_bit(th_cell(p, t));
    }
    if (marbles) {
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", marbles);
        for (char *t = strtok(buf, " "); t; t = strtok(NULL, " ")) {
            int c = t[0] == 'W' ? 0 : t[0] == 'G' ? 1 : 2, cell = th_cell(p, t + 1);
            ck_assert(zz_has(p->rings, cell));
            p->marble[c] |= zz_bit(cell);
            p->pool[c]--;
        }
    }
}

void th_won_capture_position(zz_pos *p) {
    th_build(p, ZZ_B37, NULL, "Wd3 Bd4 Wb2 Gb3");
    p->cap[0][1] = 3; p->pool[1] -= 3;
    p->cap[0][2] = 5; p->pool[2] -= 5;
    ck_assert_ptr_null(zz_pos_validate(p));
}

int th_random_playout(zz_pos *p, uint64_t *rng, int max_plies) {
    int n = 0;
    while (!zz_over(p) && n < max_plies) {
        zz_apply(p, zz_random_move(p, rng), NULL);
        n++;
    }
    return n;
}

zz_pos th_random_position(zz_board_kind kind, int plies, uint64_t *rng) {
    zz_pos p;
    zz_pos_init(&p, kind);
    for (int i = 0; i < plies; i++) {
        zz_pos next = p;
        zz_apply(&next, zz_random_move(&p, rng), NULL);
        if (zz_over(&next)) break;
        p = next;
    }
    return p;
}

const char *th_archive_dir(void) {
    const char *d = mcts_archive_dir();
    struct stat st;
    char probe[1024];
    snprintf(probe, sizeof probe, "%s/manifest.csv", d);
    return stat(probe, &st) == 0 ? d : NULL;
}

bool th_in_list(const zz_move *list, int n, zz_move m) {
    for (int i = 0; i < n; i++)
        if (list[i] == m) return true;
    return false;
}

void th_skip(const char *suite, const char *fmt, ...) {
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n*** %s: SKIPPED: %s\n\n", suite, msg);
    const char *log = getenv("ZZ_SKIP_LOG");
    FILE *f = log && *log ? fopen(log, "a") : NULL;
    if (f) {
        fprintf(f, "%s: %s\n", suite, msg);
        fclose(f);
    }
}

/* The contents of a file into buf (NUL-terminated, cut to n - 1 bytes); the file is removed. */
static void slurp_and_remove(const char *path, char *buf, size_t n) {
    if (buf && n) buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (f && buf && n) {
        size_t k = fread(buf, 1, n - 1, f);
        buf[k] = 0;
    }
    if (f) fclose(f);
    remove(path);
}

int th_run_tool(const char *suite, const char *tool, const char *args, int timeout_s, char *out, size_t outlen,
                char *err, size_t errlen) {
    const char *dir = getenv("ZZ_TOOLDIR");
    char prog[600], cmd[4096], outf[64], errf[64];
    snprintf(prog, sizeof prog, "%s/%s", dir && *dir ? dir : "tools", tool);
    if (access(prog, X_OK) != 0) {
        th_skip(suite, "%s is not built: its command-line checks did not run", prog);
        return -1;
    }
    snprintf(outf, sizeof outf, "/tmp/zz-tool-out-XXXXXX");
    snprintf(errf, sizeof errf, "/tmp/zz-tool-err-XXXXXX");
    int fo = mkstemp(outf), fe = mkstemp(errf);
    ck_assert(fo >= 0 && fe >= 0);
    close(fo);
    close(fe);
    snprintf(cmd, sizeof cmd, "timeout %d %s %s </dev/null >%s 2>%s", timeout_s, prog, args, outf, errf);
    int st = system(cmd);
    slurp_and_remove(outf, out, outlen);
    slurp_and_remove(errf, err, errlen);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int run_suite(Suite *s, bool fork) {
#if defined(_OPENMP) && defined(__SANITIZE_THREAD__)
    omp_set_num_threads(1);
#endif
    SRunner *r = srunner_create(s);
    if (!fork) srunner_set_fork_status(r, CK_NOFORK);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}

int th_run(Suite *s) { return run_suite(s, true); }
int th_run_nofork(Suite *s) { return run_suite(s, false); }

uint64_t th_seed(void) {
    const char *s = getenv("ZZ_TEST_SEED");
    uint64_t seed = s ? strtoull(s, NULL, 0) : ((uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull) ^ (uint64_t)getpid();
    if (!seed) seed = 1;
    if (!s) fprintf(stderr, "random seed %llu (ZZ_TEST_SEED=%llu repeats this run)\n", (unsigned long long)seed,
                    (unsigned long long)seed);
    return seed;
}

double th_urand(uint64_t *rng) { return (double)(zz_rand(rng) >> 11) * (1.0 / 9007199254740992.0); }

void th_perturb_model(nn_model *m, uint64_t *rng) {
    for (int v = 0; v < m->nviews; v++) {
        const nn_view *w = &m->views[v];
        const char *dot = strrchr(w->name, '.');
        void *buf = w->stat ? m->stats : m->param;
        for (size_t k = 0; k < w->count; k++) {
            double r = th_urand(rng);
            if (!strcmp(dot, ".gamma")) nn_buf_set(m, buf, w->offset + k, 0.5 + r);
            else if (!strcmp(dot, ".beta") || !strcmp(dot, ".mean") || !strcmp(dot, ".b"))
                nn_buf_set(m, buf, w->offset + k, 0.4 * (r - 0.5));
            else if (!strcmp(dot, ".var")) nn_buf_set(m, buf, w->offset + k, 0.5 + 1.5 * r);
        }
    }
}

bool th_same_answers(mcts_evaluator *a, mcts_evaluator *b, zz_board_kind board, int plies, uint64_t seed) {
    char err[256];
    zz_pos p;
    zz_pos_init(&p, board);
    bool same = true;
    for (int k = 0; k < plies && !zz_over(&p); k++) {
        zz_move mv[ZZ_MAX_MOVES];
        float pa[ZZ_MAX_MOVES], pb[ZZ_MAX_MOVES];
        int n = zz_gen_moves(&p, mv);
        mcts_eval_item ia = { &p, mv, n, pa, 0 }, ib = { &p, mv, n, pb, 0 };
        ck_assert_msg(!mcts_evaluate(a, &ia, 1, err, sizeof err) && !mcts_evaluate(b, &ib, 1, err, sizeof err), "%s", err);
        same &= ia.value == ib.value && !memcmp(pa, pb, (size_t)n * sizeof *pa);
        zz_apply(&p, zz_random_move(&p, &seed), NULL);
    }
    return same;
}

void th_save_small_net(const char *path, uint64_t seed) {
    char err[512];
    nn_config nc;
    nn_config_default(&nc, ZZ_B37);
    nc.blocks = 1;
    nc.channels = 8;
    nn_model *m = nn_model_create(&nc, NN_F32, seed, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    ck_assert_msg(nn_checkpoint_save(path, m, 0, false, err, sizeof err) == 0, "%s", err);
    nn_model_free(m);
}

zz_move th_agent_move(const char *spec, const zz_pos *p, uint64_t seed) {
    char err[300];
    mcts_agent *a = mcts_agent_new(spec, 1, err, sizeof err);
    ck_assert_msg(a, "%s: %s", spec, err);
    ck_assert_msg(mcts_agent_newgame(a, p, seed, err, sizeof err) == 0, "%s: %s", spec, err);
    zz_move m;
    ck_assert_msg(mcts_agent_choose(a, p, &m, err, sizeof err) == 0, "%s: %s", spec, err);
    ck_assert_msg(zz_is_legal(p, m), "%s: an illegal move", spec);
    mcts_agent_free(a);
    return m;
}

void th_agent_plays(const char *spec, zz_board_kind board, int moves, uint64_t seed) {
    char err[300];
    mcts_agent *a = mcts_agent_new(spec, 1, err, sizeof err);
    ck_assert_msg(a, "%s: %s", spec, err);
    zz_pos p;
    zz_pos_init(&p, board);
    ck_assert_msg(mcts_agent_newgame(a, &p, seed, err, sizeof err) == 0, "%s: %s", spec, err);
    for (int i = 0; i < moves && !zz_over(&p); i++) {
        zz_move m;
        ck_assert_msg(mcts_agent_choose(a, &p, &m, err, sizeof err) == 0, "%s: %s", spec, err);
        ck_assert_msg(zz_is_legal(&p, m), "%s: an illegal move", spec);
        ck_assert_msg(mcts_agent_played(a, &p, m, err, sizeof err) == 0, "%s: %s", spec, err);
        zz_apply(&p, m, NULL);
    }
    mcts_agent_free(a);
}

void th_temp_file(char *tmpl) {
    int fd = mkstemp(tmpl);
    ck_assert_msg(fd >= 0, "cannot create a temporary file from %s", tmpl);
    close(fd);
}
