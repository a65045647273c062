/* test_fuzz_regress.c — the fuzzing corpora and findings as regression tests, without libFuzzer:
 * every file of tests/fuzz/corpus/NAME/ and every tests/fuzz/crashes/NAME-*.bin goes through the
 * same code as the libFuzzer target tests/fuzz/fuzz_NAME.c (included here, its entry point
 * renamed), in a child process with a time limit (and a memory limit where no sanitizer reserves
 * its shadow memory), which must end normally: no crash, no failed property, a clean error or a
 * success.
 *
 * The targets are built with ZZ_FUZZ_REGRESS, so that a known, open finding (fz_known_open,
 * tests/fuzz/fuzz.h) takes the real path here.  A findings file whose name holds "-open-" is such
 * a finding, in a file outside tests/fuzz (README.md "Reliability" says where): while it still
 * fails, the test says so loudly as a check that did not pass in full (th_skip) instead of
 * failing; once fixed, it passes (rename it then).  Undefined behaviour is fatal here under
 * `make test-asan` (UBSan halts on the first error), and only shows there. */
#define ZZ_FUZZ_REGRESS 1
#include "helpers.h"

#define LLVMFuzzerTestOneInput fuzz_sgf_one
#include "fuzz/fuzz_sgf.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_xx_sgf_one
#include "fuzz/fuzz_xx_sgf.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_notation_one
#include "fuzz/fuzz_notation.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_move_text_one
#include "fuzz/fuzz_move_text.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_posstr_one
#include "fuzz/fuzz_posstr.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_protocol_one
#include "fuzz/fuzz_protocol.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_checkpoint_one
#include "fuzz/fuzz_checkpoint.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_replay_one
#include "fuzz/fuzz_replay.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_runstate_one
#include "fuzz/fuzz_runstate.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_api_one
#include "fuzz/fuzz_api.c"
#undef LLVMFuzzerTestOneInput

#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

/* FR_ASAN: a sanitizer that reserves shadow memory (ASan, TSan) is in the build, so the child gets
 * no address-space limit (the reservation alone would exceed it). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FR_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FR_ASAN 1
#endif
#endif

/* Under the sanitizers: an allocation too large fails (NULL) as it would for a memory limit, and
 * undefined behaviour stops the child (a failure) instead of a line on stderr. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1:max_allocation_size_mb=256"; }
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void) { return "halt_on_error=1:print_stacktrace=1"; }

typedef int (*fr_entry)(const uint8_t *, size_t);

static const struct {
    const char *name;
    fr_entry fn;
    int mem_mib;        /* the child's address-space limit (without ASan) */
} TARGETS[] = {
    { "sgf", fuzz_sgf_one, 4096 },           { "xx_sgf", fuzz_xx_sgf_one, 4096 },
    { "notation", fuzz_notation_one, 4096 }, { "move_text", fuzz_move_text_one, 4096 },
    { "posstr", fuzz_posstr_one, 4096 },     { "protocol", fuzz_protocol_one, 4096 },
    { "checkpoint", fuzz_checkpoint_one, 768 }, { "replay", fuzz_replay_one, 4096 },
    { "runstate", fuzz_runstate_one, 4096 }, { "api", fuzz_api_one, 4096 },
};

/* The folder of the fuzzing files: tests/fuzz from the repository root (where make test runs). */
static const char *fuzz_dir(void) {
    const char *d = getenv("ZZ_FUZZ_DIR");
    return d && *d ? d : "tests/fuzz";
}

/* Read a whole file (malloc'd, *n bytes). */
static uint8_t *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    uint8_t *buf = NULL;
    size_t cap = 0;
    *n = 0;
    for (;;) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 65536;
            buf = realloc(buf, cap);
            ck_assert_ptr_nonnull(buf);
        }
        size_t k = fread(buf + *n, 1, cap - *n, f);
        *n += k;
        if (k == 0) break;
    }
    fclose(f);
    return buf;
}

/* Run one input through a target in a child; 0 when it ended normally, else -1 with why (the
 * signal or status, and the first line the child wrote on stderr). */
static int run_input(int t, const char *path, char *why, size_t whylen) {
    char errf[] = "/tmp/zz-fuzz-regress-XXXXXX";
    int fe = mkstemp(errf);
    ck_assert(fe >= 0);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        dup2(fe, 2);
#ifndef FR_ASAN
        struct rlimit lim = { (rlim_t)TARGETS[t].mem_mib << 20, (rlim_t)TARGETS[t].mem_mib << 20 };
        setrlimit(RLIMIT_AS, &lim);
#endif
        alarm(60);
        size_t n;
        uint8_t *data = slurp(path, &n);
        TARGETS[t].fn(data, n);
        free(data);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    char first[300] = "";
    FILE *f = fdopen(fe, "r");
    rewind(f);
    while (fgets(first, sizeof first, f) && !strstr(first, "zertz: fuzz:") && !strstr(first, "runtime error") &&
           !strstr(first, "ERROR")) {}
    fclose(f);
    unlink(errf);
    first[strcspn(first, "\n")] = 0;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
    if (WIFSIGNALED(st)) snprintf(why, whylen, "signal %d (%s)%s%s", WTERMSIG(st), WTERMSIG(st) == SIGALRM ? "over 60 s" : strsignal(WTERMSIG(st)), *first ? ": " : "", first);
    else snprintf(why, whylen, "exit status %d%s%s", WEXITSTATUS(st), *first ? ": " : "", first);
    return -1;
}

/* Every file of DIR whose name starts with prefix (NULL: all), through target t.  Counts them. */
static int run_folder(int t, const char *dir, const char *prefix) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || (prefix && strncmp(e->d_name, prefix, strlen(prefix)) != 0)) continue;
        char path[1024], why[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        n++;
        if (run_input(t, path, why, sizeof why) == 0) continue;
        if (prefix && strstr(e->d_name, "-open-"))
            th_skip("test_fuzz_regress", "known open finding still fails: %s: %s (README.md \"Reliability\" says where it lies)", path, why);
        else
            ck_abort_msg("%s through fuzz_%s: %s", path, TARGETS[t].name, why);
    }
    closedir(d);
    return n;
}

START_TEST(fuzz_inputs) {
    int t = _i;
    char dir[600], prefix[64];
    snprintf(dir, sizeof dir, "%s/corpus/%s", fuzz_dir(), TARGETS[t].name);
    int corpus = run_folder(t, dir, NULL);
    ck_assert_msg(corpus > 0, "no seed corpus in %s (run from the repository root, or set ZZ_FUZZ_DIR)", dir);
    snprintf(dir, sizeof dir, "%s/crashes", fuzz_dir());
    snprintf(prefix, sizeof prefix, "%s-", TARGETS[t].name);
    int crashes = run_folder(t, dir, prefix);
    fprintf(stderr, "test_fuzz_regress: fuzz_%s: %d corpus files, %d findings replayed\n", TARGETS[t].name, corpus, crashes);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("fuzz_regress");
    TCase *t = tcase_create("inputs");
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, fuzz_inputs, 0, (int)(sizeof TARGETS / sizeof *TARGETS));
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    return th_run(suite());
}
