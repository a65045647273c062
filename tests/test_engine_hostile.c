/* test_engine_hostile.c — the real engine binary ($ZZ_TOOLDIR/engine, default tools/engine) under a
 * hostile client, over pipes (issue 24): a line of several megabytes, binary bytes (NUL, 0xFF,
 * control characters, random garbage), 5,000 commands written as fast as the pipe takes them,
 * absurd arguments (NaN budgets, huge counts, files that are no records), bestmove then the end of
 * input, and a client that stops reading.  The engine must never crash or hang (a deadline kills
 * it and fails the test); every line that is not blank must be answered with lines ending in
 * "ok", a bad one with exactly "err <why>" and "ok"; no answer may hold a control character (the
 * engine must not echo the client's bytes to a terminal); and at the end of its input it must
 * exit with status 0. */
#include "helpers.h"
#include <check.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MIB = 1 << 20 };

/* ---- a script: the bytes to send and, per line that is not blank, the answer expected ---------- */
typedef enum { A_OK, A_ERR, A_ANY } expect;

typedef struct {
    char *buf;
    size_t len, cap;
    expect *exp;
    int n, cap_exp;
} script;

static bool blank_line(const char *line, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (!isspace((unsigned char)line[i])) return false;   /* a NUL is not a space */
    return true;
}

/* Append line (len bytes, no '\n' in it) and a newline; a blank line expects no answer. */
static void add_bytes(script *s, const char *line, size_t len, expect e) {
    if (s->len + len + 1 > s->cap) {
        s->cap = (s->len + len + 1) * 2;
        s->buf = realloc(s->buf, s->cap);
        ck_assert_ptr_nonnull(s->buf);
    }
    memcpy(s->buf + s->len, line, len);
    s->len += len;
    s->buf[s->len++] = '\n';
    if (blank_line(line, len)) return;
    if (s->n == s->cap_exp) {
        s->cap_exp = s->cap_exp ? 2 * s->cap_exp : 64;
        s->exp = realloc(s->exp, sizeof *s->exp * (size_t)s->cap_exp);
        ck_assert_ptr_nonnull(s->exp);
    }
    s->exp[s->n++] = e;
}

static void add(script *s, const char *line, expect e) { add_bytes(s, line, strlen(line), e); }

static void script_free(script *s) {
    free(s->buf);
    free(s->exp);
    memset(s, 0, sizeof *s);
}

/* ---- running the engine ------------------------------------------------------------------------ */
typedef struct {
    char *out;          /* everything it wrote on stdout (NUL-terminated) */
    size_t len;
    char err[2048];     /* the start of its stderr */
    size_t errlen;
    int status;         /* wait status */
    bool killed;        /* the deadline passed and it was killed */
    double seconds;
} run;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The engine binary, or NULL after a th_skip when it is not built. */
static const char *engine_binary(char *buf, size_t n) {
    const char *dir = getenv("ZZ_TOOLDIR");
    snprintf(buf, n, "%s/engine", dir && *dir ? dir : "tools");
    if (access(buf, X_OK) == 0) return buf;
    th_skip("test_engine_hostile", "%s is not built: the hostile-client checks did not run", buf);
    return NULL;
}

static pid_t spawn(const char *prog, const char *agent, int fds[3]) {
    int in[2], out[2], err[2];
    ck_assert(pipe(in) == 0 && pipe(out) == 0 && pipe(err) == 0);
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(err[1], 2);
        for (int k = 0; k < 2; k++) { close(in[k]); close(out[k]); close(err[k]); }
        execl(prog, prog, "--agent", agent, "--seed", "3", (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(err[1]);
    fds[0] = in[1];
    fds[1] = out[0];
    fds[2] = err[0];
    for (int k = 0; k < 3; k++) fcntl(fds[k], F_SETFL, fcntl(fds[k], F_GETFL) | O_NONBLOCK);
    return pid;
}

/* Read what fd has into r (stdout: grown; stderr: the first bytes); false at its end. */
static bool drain(int fd, run *r, bool is_out, bool keep) {
    char chunk[65536];
    for (;;) {
        ssize_t k = read(fd, chunk, sizeof chunk);
        if (k == 0) return false;
        if (k < 0) return errno == EAGAIN || errno == EINTR;
        if (!keep) continue;
        if (is_out) {
            r->out = realloc(r->out, r->len + (size_t)k + 1);
            ck_assert_ptr_nonnull(r->out);
            memcpy(r->out + r->len, chunk, (size_t)k);
            r->len += (size_t)k;
            r->out[r->len] = 0;
        } else {
            size_t room = sizeof r->err - 1 - r->errlen, m = (size_t)k < room ? (size_t)k : room;
            memcpy(r->err + r->errlen, chunk, m);
            r->errlen += m;
            r->err[r->errlen] = 0;
        }
    }
}

/* Run the engine with `agent`, write in[0..inlen) to it as fast as it reads while reading its
 * answers, then close its input; kill it when deadline_s pass.  keep_out false: the client closes
 * the engine's output at once (a client that stops reading). */
static void run_engine(const char *prog, const char *agent, const char *in, size_t inlen, int deadline_s,
                       bool keep_out, run *r) {
    memset(r, 0, sizeof *r);
    signal(SIGPIPE, SIG_IGN);
    int fds[3];
    double t0 = now_s();
    pid_t pid = spawn(prog, agent, fds);
    if (!keep_out) { close(fds[1]); fds[1] = -1; }
    size_t sent = 0;
    bool out_open = keep_out, err_open = true;
    while ((fds[0] >= 0 || out_open || err_open) && !r->killed) {
        struct pollfd p[3] = { { fds[0], POLLOUT, 0 }, { out_open ? fds[1] : -1, POLLIN, 0 }, { err_open ? fds[2] : -1, POLLIN, 0 } };
        int left_ms = (int)((t0 + deadline_s - now_s()) * 1000);
        if (left_ms <= 0) { kill(pid, SIGKILL); r->killed = true; break; }
        if (poll(p, 3, left_ms) < 0 && errno != EINTR) break;
        if (fds[0] >= 0 && (p[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t k = write(fds[0], in + sent, inlen - sent < 65536 ? inlen - sent : 65536);
            if (k > 0) sent += (size_t)k;
            if (sent == inlen || (k < 0 && errno != EAGAIN && errno != EINTR)) { close(fds[0]); fds[0] = -1; }
        }
        if (out_open && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) out_open = drain(fds[1], r, true, true);
        if (err_open && (p[2].revents & (POLLIN | POLLHUP | POLLERR))) err_open = drain(fds[2], r, false, true);
    }
    for (int k = 0; k < 3; k++) if (fds[k] >= 0) close(fds[k]);
    waitpid(pid, &r->status, 0);
    r->seconds = now_s() - t0;
    if (!r->out) r->out = calloc(1, 1);
}

/* The engine ran to the end of its input and exited with status 0 in time. */
static void assert_clean_exit(const run *r, const char *what) {
    ck_assert_msg(!r->killed, "%s: the engine did not finish within its deadline (killed after %.1f s)", what, r->seconds);
    ck_assert_msg(!WIFSIGNALED(r->status), "%s: the engine died of signal %d; stderr: %s", what, WTERMSIG(r->status), r->err);
    ck_assert_msg(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0, "%s: exit status %d; stderr: %s", what,
                  WEXITSTATUS(r->status), r->err);
}

/* Every expected answer came, in order, framed as the protocol says, in ASCII with no control
 * character.
 * (TH_CHECK: Check records every passing ck_assert, which costs seconds over 5,000 answers.) */
static void assert_answers(const script *s, const run *r, const char *what) {
    assert_clean_exit(r, what);
    for (size_t i = 0; i < r->len; i++) {
        unsigned char c = (unsigned char)r->out[i];
        TH_CHECK(c == '\n' || (c >= 0x20 && c < 0x7f), "%s: byte 0x%02x (a control or not ASCII) in the answers at byte %zu", what, c, i);
    }
    TH_CHECK(r->len == 0 || r->out[r->len - 1] == '\n', "%s: the output does not end with a newline", what);
    int k = 0, lines = 0;
    bool err = false;
    const char *first = r->out;
    for (char *p = r->out; p < r->out + r->len;) {
        char *nl = memchr(p, '\n', (size_t)(r->out + r->len - p));
        *nl = 0;
        if (lines == 0) first = p;
        lines++;
        if (!strncmp(p, "err ", 4)) err = true;
        if (!strcmp(p, "ok")) {
            TH_CHECK(k < s->n, "%s: %d answers, but only %d lines needed one", what, k + 1, s->n);
            bool one_err = lines == 2 && !strncmp(first, "err ", 4);
            if (s->exp[k] == A_OK) TH_CHECK(!err, "%s: answer %d: %s", what, k + 1, first);
            if (s->exp[k] == A_ERR) TH_CHECK(one_err, "%s: answer %d is not 'err ...' then 'ok' (%d lines, first: %.80s)", what, k + 1, lines, first);
            if (err) TH_CHECK(one_err, "%s: answer %d has an err line but is not 'err ...' then 'ok'", what, k + 1);
            k++;
            lines = 0;
            err = false;
        }
        *nl = '\n';
        p = nl + 1;
    }
    TH_CHECK(lines == 0, "%s: %d lines after the last ok", what, lines);
    TH_CHECK(k == s->n, "%s: %d answers for %d lines that are not blank", what, k, s->n);
}

/* ---- the tests --------------------------------------------------------------------------------- */
/* Lines of 4 MiB, 3 MiB and 2 MiB (letters, a play command, spaces): each refused as too long,
 * and the session goes on. */
START_TEST(hostile_huge_lines) {
    char prog[600];
    if (!engine_binary(prog, sizeof prog)) return;
    script s = { 0 };
    char *big = malloc(4 * MIB);
    ck_assert_ptr_nonnull(big);
    add(&s, "info", A_OK);
    memset(big, 'x', 4 * MIB);
    add_bytes(&s, big, 4 * MIB, A_ERR);
    add(&s, "validmoves", A_OK);
    memcpy(big, "play ", 5);
    memset(big + 5, 'W', 3 * MIB - 5);
    add_bytes(&s, big, 3 * MIB, A_ERR);
    memset(big, ' ', 2 * MIB);
    big[2 * MIB - 1] = 'x';
    add_bytes(&s, big, 2 * MIB, A_ERR);
    add(&s, "play Wd4,a1", A_OK);
    add(&s, "result", A_OK);
    free(big);
    run r;
    run_engine(prog, "random", s.buf, s.len, 25, true, &r);
    assert_answers(&s, &r, "huge lines");
    free(r.out);
    script_free(&s);
}
END_TEST

/* NUL bytes, 0xFF, escape sequences, DEL, a lone CR, and 300 lines of random bytes. */
START_TEST(hostile_binary_bytes) {
    char prog[600];
    if (!engine_binary(prog, sizeof prog)) return;
    script s = { 0 };
    add_bytes(&s, "\0", 1, A_ERR);
    add_bytes(&s, "\0\0\0info", 7, A_ERR);
    add_bytes(&s, "info\0garbage", 12, A_ERR);
    add_bytes(&s, "play Wd4,a1\0", 12, A_ERR);
    add(&s, "\xff\xfe\xfd", A_ERR);
    add(&s, "\x1b[2J\x1b[31m\x07" "beep", A_ERR);
    add(&s, "\x7f", A_ERR);
    add(&s, "\r", A_OK);                               /* blank: no answer */
    add(&s, " \t\v\f\r", A_OK);                        /* blank too */
    add(&s, "play \x01\x02\x03", A_ERR);
    add(&s, "newgame \xff\x1b", A_ERR);
    add(&s, "position zpos:\x01\x02", A_ERR);
    add(&s, "position startpos moves Wd4,a1; \x1b]0;title\x07", A_ERR);
    uint64_t rng = th_seed();
    for (int i = 0; i < 300; i++) {
        char line[200];
        size_t n = 1 + zz_rand_below(&rng, sizeof line);
        for (size_t k = 0; k < n; k++) do line[k] = (char)zz_rand_below(&rng, 256); while (line[k] == '\n');
        add_bytes(&s, line, n, A_ANY);
    }
    add(&s, "info", A_OK);
    run r;
    run_engine(prog, "random", s.buf, s.len, 20, true, &r);
    assert_answers(&s, &r, "binary bytes");
    free(r.out);
    script_free(&s);
}
END_TEST

/* 5,000 commands written as fast as the engine reads them: a capture position, then rounds of
 * play / validmoves / undo / bestmove, with a bad move now and then. */
START_TEST(hostile_flood) {
    char prog[600];
    if (!engine_binary(prog, sizeof prog)) return;
    script s = { 0 };
    add(&s, "position startpos moves We4,a4; Gd1,b5; Gb2,e1; Bd2,a1", A_OK);
    static const char *const ROUND[] = { "validmoves", "play x d1Bd3", "validmoves", "undo", "bestmove" };
    for (int i = 1; s.n < 5000; i++) {
        add(&s, ROUND[i % 5], A_OK);
        if (i % 50 == 0) add(&s, "play Wd4,a1", A_ERR);       /* a capture is compulsory */
    }
    add(&s, "board", A_OK);
    run r;
    run_engine(prog, "random", s.buf, s.len, 25, true, &r);
    assert_answers(&s, &r, "5,000 commands");
    fprintf(stderr, "test_engine_hostile: %d commands answered in %.2f s\n", s.n, r.seconds);
    free(r.out);
    script_free(&s);
}
END_TEST

/* Arguments out of every range: huge and negative counts, NaN and infinite budgets, handicaps
 * the pool cannot give, games too long, files that are no records (a missing file, a folder,
 * an empty file), moves cut short. */
START_TEST(hostile_arguments) {
    char prog[600];
    if (!engine_binary(prog, sizeof prog)) return;
    script s = { 0 };
    static const char *const BAD[] = {
        "newgame 99999999999999999999", "newgame -37", "newgame 37 handicap 1:99,99,99", "newgame 37 handicap",
        "undo 99999999999999999999", "undo -1", "undo 0", "undo 1x", "bestmove sims 1e300", "bestmove sims nan",
        "bestmove time nan", "bestmove time inf", "bestmove time -0", "bestmove sims", "bestmove sims 5 6",
        "options set sims nan", "options set time nan", "options set time -inf", "options set sims 1e400",
        "options set threads 100000", "options set threads nan", "options set seed -5", "options set nothing 1",
        "options get nothing", "options set", "position zpos:37:", "position zpos:37:....:6,8,10:0,0,0:0,0,0:0:-:0",
        "position sgf /nonexistent/zertz.sgf", "position sgf /", "position sgf /dev/null", "position sgf /dev/stdin", "position sgf",
        "position startpos 99", "play x", "play x d1", "play Wz9,a1", "play Wd4,d4",
        /* budgets beyond the agents' limits, fractions of a simulation, board numbers that wrap */
        "bestmove time 1e12", "bestmove time 3600001", "bestmove sims 0.5", "bestmove sims 1.9",
        "bestmove sims 2000000001", "options set time 1e15", "options set sims 2.5", "options set seed 1.5",
        "newgame 4294967333", "position startpos 4294967344", "play Wd4,a1;Gc3,a2",
    };
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) add(&s, BAD[i], A_ERR);
    char *longgame = malloc(8192);
    ck_assert_ptr_nonnull(longgame);
    size_t n = (size_t)snprintf(longgame, 8192, "position startpos 37 moves");
    for (int i = 0; i < 400; i++) n += (size_t)snprintf(longgame + n, 8192 - n, " Wd4,a1;");
    add(&s, longgame, A_ERR);                             /* also too long a line */
    free(longgame);
    add(&s, "position startpos 37 moves", A_OK);         /* no turns: the opening */
    add(&s, "validmoves", A_OK);
    add(&s, "bestmove", A_OK);
    add(&s, "result", A_OK);
    run r;
    run_engine(prog, "random", s.buf, s.len, 20, true, &r);
    assert_answers(&s, &r, "absurd arguments");
    free(r.out);
    script_free(&s);
    /* a real search must not take a NaN budget either (it would never end) */
    script u = { 0 };
    add(&u, "options set sims nan", A_ERR);
    add(&u, "options set time nan", A_ERR);
    add(&u, "bestmove time nan", A_ERR);
    add(&u, "bestmove sims 50", A_OK);
    run_engine(prog, "uct:200", u.buf, u.len, 20, true, &r);
    assert_answers(&u, &r, "NaN budgets with uct");
    free(r.out);
    script_free(&u);
}
END_TEST

/* bestmove, then the end of input (no quit): the answer comes, then the engine exits with 0; the
 * same during a real search of 300 ms, and with a last line that has no newline. */
START_TEST(hostile_bestmove_then_eof) {
    char prog[600];
    if (!engine_binary(prog, sizeof prog)) return;
    script s = { 0 };
    add(&s, "newgame 61", A_OK);
    add(&s, "bestmove", A_OK);
    run r;
    run_engine(prog, "random", s.buf, s.len, 20, true, &r);
    assert_answers(&s, &r, "bestmove then EOF");
    int lines = 0;
    for (size_t i = 0; i < r.len; i++) lines += r.out[i] == '\n';
    ck_assert_msg(lines == 3, "bestmove did not answer with a move: %s", r.out);   /* ok, the move, ok */
    free(r.out);
    script_free(&s);
    add(&s, "bestmove time 300", A_OK);
    run_engine(prog, "uct:100000000", s.buf, s.len, 20, true, &r);
    assert_answers(&s, &r, "bestmove time 300 then EOF");
    free(r.out);
    script_free(&s);
    const char last[] = "newgame 48\nbestmove";       /* no newline at the end */
    add(&s, "newgame 48", A_OK);
    add(&s, "bestmove", A_OK);
    run_engine(prog, "random", last, sizeof last - 1, 20, true, &r);
    assert_answers(&s, &r, "a last line without newline");
    free(r.out);
    script_free(&s);
}
END_TEST

/* A client that closes the engine's output at once and sends 2,000 commands: the engine must not
 * hang or die of SIGPIPE; it reads to the end and exits with 0. */
START_TEST(hostile_client_stops_reading) {
    char prog[600];
    if (!engine_binary(prog, sizeof prog)) return;
    script s = { 0 };
    for (int i = 0; i < 2000; i++) add(&s, i % 2 ? "validmoves" : "board", A_OK);
    run r;
    run_engine(prog, "random", s.buf, s.len, 20, false, &r);
    assert_clean_exit(&r, "client stops reading");
    free(r.out);
    script_free(&s);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("engine_hostile");
    TCase *t = tcase_create("hostile");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, hostile_huge_lines);
    tcase_add_test(t, hostile_binary_bytes);
    tcase_add_test(t, hostile_flood);
    tcase_add_test(t, hostile_arguments);
    tcase_add_test(t, hostile_bestmove_then_eof);
    tcase_add_test(t, hostile_client_stops_reading);
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    return th_run(suite());
}
