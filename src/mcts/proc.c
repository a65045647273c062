/* proc.c — fork/exec a shell command, in a process group of its own, with its stdin/stdout on
 * pipes; lines read with a timeout (poll) from our own buffer over the raw pipe; stopping it signals
 * the whole group, and so does a fatal signal to us (see proc.h). */
#include "proc.h"
#include "clock.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The children's process groups, for a signal that ends this process: in groups of their own they
 * no longer get the terminal's Ctrl-C, so it is passed on to them (SIGINT, SIGTERM and SIGHUP,
 * where their disposition is the default: a tool's own handler is left alone). */
enum { MAX_GROUPS = 256 };
static atomic_int g_groups[MAX_GROUPS];

static void on_fatal_signal(int sig) {
    for (int i = 0; i < MAX_GROUPS; i++) {
        int g = atomic_load(&g_groups[i]);
        if (g > 0) kill(-g, SIGTERM);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* At each spawn: a signal still at its default action gets on_fatal_signal. */
static void pass_signals_on(void) {
    const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    for (int k = 0; k < 3; k++) {
        struct sigaction old, sa;
        if (sigaction(sigs[k], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[k], &sa, NULL);
    }
}

static void group_register(pid_t g) {
    for (int i = 0; i < MAX_GROUPS; i++) {
        int free_slot = 0;
        if (atomic_compare_exchange_strong(&g_groups[i], &free_slot, (int)g)) return;
    }
}

static void group_unregister(pid_t g) {
    for (int i = 0; i < MAX_GROUPS; i++) {
        int mine = (int)g;
        if (atomic_compare_exchange_strong(&g_groups[i], &mine, 0)) return;
    }
}

int mcts_proc_spawn(mcts_proc *p, const char *command, char *err, size_t errlen) {
    int in[2], out[2];
    memset(p, 0, sizeof *p);
    p->pid = -1;
    p->group = -1;
    p->from = -1;
    if (pipe2(in, O_CLOEXEC) != 0) { snprintf(err, errlen, "pipe: %s", strerror(errno)); return -1; }
    if (pipe2(out, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        close(in[0]); close(in[1]);
        return -1;
    }
    pass_signals_on();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(in[0]); close(in[1]); close(out[0]); close(out[1]);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);                       /* the shell and whatever it forks: one group to stop */
        dup2(in[0], 0);
        dup2(out[1], 1);
        signal(SIGPIPE, SIG_DFL);            /* ignored signals survive exec: not ours to pass on */
        execl("/bin/sh", "sh", "-c", command, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);                       /* also here, so it holds before we ever signal the group */
    group_register(pid);
    close(in[0]);
    close(out[1]);
    p->open = true;
    p->pid = pid;
    p->group = pid;
    p->from = out[0];
    p->to = fdopen(in[1], "w");
    if (!p->to) {
        snprintf(err, errlen, "fdopen: %s", strerror(errno));
        close(in[1]);
        mcts_proc_close(p);
        return -1;
    }
    return 0;
}

int mcts_proc_send(mcts_proc *p, const char *line) {
    if (!p->to) return -1;
    if (fputs(line, p->to) < 0 || fputc('\n', p->to) < 0 || fflush(p->to) != 0) return -1;
    return 0;
}

/* Take one line (or n - 1 bytes of it, or the rest at end of file) from the buffer into buf;
 * false when the buffer holds no whole line yet. */
static bool take_line(mcts_proc *p, char *buf, size_t n) {
    const char *s = p->buf + p->start;
    const char *nl = memchr(s, '\n', p->len);
    size_t line = nl ? (size_t)(nl - s) : p->len;
    bool whole = nl || p->eof || p->len == sizeof p->buf;
    if (!whole && line < n - 1) return false;
    size_t k = line < n - 1 ? line : n - 1;
    memcpy(buf, s, k);
    buf[k] = 0;
    size_t used = k + (k == line && nl ? 1 : 0);          /* the newline goes with the line */
    p->start += used;
    p->len -= used;
    while (k && buf[k - 1] == '\r') buf[--k] = 0;
    return true;
}

/* Read what the pipe has into the buffer, waiting at most wait_ms (< 0: for ever).
 * 0 (some bytes or end of file), or MCTS_PROC_TIMEOUT. */
static int fill(mcts_proc *p, int wait_ms) {
    if (p->start) {
        memmove(p->buf, p->buf + p->start, p->len);
        p->start = 0;
    }
    struct pollfd pfd = { p->from, POLLIN, 0 };
    int r = poll(&pfd, 1, wait_ms);
    if (r == 0) return MCTS_PROC_TIMEOUT;
    if (r < 0) {
        if (errno != EINTR) p->eof = true;
        return 0;
    }
    ssize_t got = read(p->from, p->buf + p->len, sizeof p->buf - p->len);
    if (got > 0) p->len += (size_t)got;
    else if (got == 0 || (errno != EINTR && errno != EAGAIN)) p->eof = true;
    return 0;
}

int mcts_proc_read_line_timeout(mcts_proc *p, char *buf, size_t n, int timeout_ms) {
    if (!n) return MCTS_PROC_EOF;
    if (p->from < 0) return MCTS_PROC_EOF;
    double deadline = mcts_now_s() + timeout_ms / 1000.0;
    for (;;) {
        if (p->len && take_line(p, buf, n)) return 0;
        if (p->eof) return MCTS_PROC_EOF;
        int wait_ms = -1;
        if (timeout_ms >= 0) {
            double left = deadline - mcts_now_s();
            if (left <= 0) return MCTS_PROC_TIMEOUT;
            wait_ms = (int)(left * 1000) + 1;
        }
        if (fill(p, wait_ms) == MCTS_PROC_TIMEOUT) return MCTS_PROC_TIMEOUT;
    }
}

int mcts_proc_read_line(mcts_proc *p, char *buf, size_t n) {
    return mcts_proc_read_line_timeout(p, buf, n, -1) == 0 ? 0 : -1;
}

static void pause_ms(int ms) {
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* Reap the child if it exits within ms milliseconds; true when it is reaped. */
static bool reap(mcts_proc *p, int ms) {
    if (p->pid <= 0) return true;
    for (int waited = 0;; waited += 10) {
        pid_t r = waitpid(p->pid, &p->status, WNOHANG);
        if (r == p->pid || (r < 0 && errno == ECHILD)) { p->pid = -1; return true; }
        if (waited >= ms) return false;
        pause_ms(10);
    }
}

void mcts_proc_end_reason(mcts_proc *p, char *buf, size_t n) {
    if (!reap(p, 200)) snprintf(buf, n, "the program closed its output");
    else if (WIFEXITED(p->status)) snprintf(buf, n, "the program closed its output: it exited with status %d", WEXITSTATUS(p->status));
    else if (WIFSIGNALED(p->status))
        snprintf(buf, n, "the program closed its output: it was killed by signal %d (%s)", WTERMSIG(p->status),
                 strsignal(WTERMSIG(p->status)));
    else snprintf(buf, n, "the program closed its output: it exited");
}

static void close_pipes(mcts_proc *p) {
    if (p->to) fclose(p->to);
    if (p->from >= 0) close(p->from);
    p->to = NULL;
    p->from = -1;
    p->len = p->start = 0;
}

/* True while a process of the child's group is left (a zombie that nobody reaps counts too). */
static bool group_alive(const mcts_proc *p) {
    return p->group > 0 && (kill(-p->group, 0) == 0 || errno == EPERM);
}

/* Wait up to ms milliseconds for the child's group to empty, reaping the child; true when empty. */
static bool group_gone(mcts_proc *p, int ms) {
    for (int waited = 0;; waited += 10) {
        reap(p, 0);
        if (p->pid <= 0 && !group_alive(p)) return true;
        if (waited >= ms) return false;
        pause_ms(10);
    }
}

/* Stop the child: wait grace_ms for it to exit, then SIGTERM to its whole process group (`sh -c`
 * forks the program rather than exec'ing it: signalling the shell alone left the program running),
 * SIGKILL to the group 1 s later; the child is reaped.  After an exit within grace_ms, what is
 * left of the group (the program's own children) is stopped the same way. */
static void stop_child(mcts_proc *p, int grace_ms) {
    bool exited = reap(p, grace_ms);
    if (!exited || group_alive(p)) {
        if (p->group > 0) kill(-p->group, SIGTERM);
        if (!group_gone(p, 1000) && p->group > 0) kill(-p->group, SIGKILL);
    }
    if (p->pid > 0) waitpid(p->pid, &p->status, 0);
    if (p->group > 0) group_unregister(p->group);
    p->pid = -1;
    p->group = -1;
}

void mcts_proc_close(mcts_proc *p) {
    if (!p->open) return;
    close_pipes(p);
    stop_child(p, 2000);
    p->open = false;
}

void mcts_proc_kill(mcts_proc *p) {
    if (!p->open) return;
    close_pipes(p);
    stop_child(p, 0);
    p->open = false;
}
