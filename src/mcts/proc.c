/* proc.c — fork/exec a shell command with its stdin/stdout on pipes (see proc.h). */
#include "proc.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int mcts_proc_spawn(mcts_proc *p, const char *command, char *err, size_t errlen) {
    int in[2], out[2];
    memset(p, 0, sizeof *p);
    p->pid = -1;
    if (pipe2(in, O_CLOEXEC) != 0) { snprintf(err, errlen, "pipe: %s", strerror(errno)); return -1; }
    if (pipe2(out, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        close(in[0]); close(in[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(in[0]); close(in[1]); close(out[0]); close(out[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        execl("/bin/sh", "sh", "-c", command, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    p->pid = pid;
    p->to = fdopen(in[1], "w");
    p->from = fdopen(out[0], "r");
    if (!p->to || !p->from) {
        snprintf(err, errlen, "fdopen: %s", strerror(errno));
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

int mcts_proc_read_line(mcts_proc *p, char *buf, size_t n) {
    if (!p->from || !fgets(buf, (int)n, p->from)) return -1;
    size_t len = strlen(buf);
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r')) buf[--len] = 0;
    return 0;
}

void mcts_proc_close(mcts_proc *p) {
    if (p->to) fclose(p->to);
    if (p->from) fclose(p->from);
    p->to = p->from = NULL;
    if (p->pid > 0) {
        int status;
        for (int i = 0; i < 200; i++) {            /* up to 2 s for a clean exit */
            if (waitpid(p->pid, &status, WNOHANG) == p->pid) { p->pid = -1; return; }
            struct timespec ts = { 0, 10000000 };
            nanosleep(&ts, NULL);
        }
        kill(p->pid, SIGTERM);
        waitpid(p->pid, &status, 0);
        p->pid = -1;
    }
}
