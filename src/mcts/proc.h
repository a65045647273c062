/* proc.h — a child process spoken to over pipes, line by line (the `cmd:PROGRAM` agent).
 *
 * Reads wait with a timeout (poll on the pipe), so a program that never answers cannot hang its
 * caller; when the program stops (its output closed), mcts_proc_end_reason says how it ended. */
#ifndef MCTS_PROC_H
#define MCTS_PROC_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

enum { MCTS_PROC_EOF = -1, MCTS_PROC_TIMEOUT = -2 };

typedef struct mcts_proc {
    bool open;         /* spawned and not yet closed */
    pid_t pid;         /* the child, or -1 once reaped */
    pid_t group;       /* its process group (the child's pid), or -1 once stopped */
    int status;        /* its wait status once reaped */
    FILE *to;          /* the child's stdin */
    int from;          /* the child's stdout (read end of a pipe), or -1 */
    bool eof;          /* the child closed its stdout */
    size_t start, len; /* unread bytes: buf[start .. start + len) */
    char buf[8192];
} mcts_proc;

/* Run `command` with /bin/sh -c in a process group of its own (so that stopping it stops what the
 * shell started too), its stdin and stdout piped to us (stderr inherited).  Out of the terminal's
 * process group it no longer gets Ctrl-C itself: a spawn makes SIGINT, SIGTERM and SIGHUP, where
 * they have their default action, send SIGTERM to every running child's group before this process
 * ends.
 * Returns 0, or -1 with a message.  Writing to a child that died raises SIGPIPE: tools that use
 * this ignore SIGPIPE. */
int mcts_proc_spawn(mcts_proc *p, const char *command, char *err, size_t errlen);
/* Send one line (a newline is added) and flush.  0 or -1. */
int mcts_proc_send(mcts_proc *p, const char *line);
/* Read one line without its newline into buf (a line longer than n - 1 bytes comes in pieces),
 * waiting at most timeout_ms milliseconds (< 0: for ever).  0, MCTS_PROC_EOF when the child closed
 * its output, or MCTS_PROC_TIMEOUT when no whole line came in time. */
int mcts_proc_read_line_timeout(mcts_proc *p, char *buf, size_t n, int timeout_ms);
/* The same without a time limit: 0, or -1 at end of file. */
int mcts_proc_read_line(mcts_proc *p, char *buf, size_t n);
/* How the child ended after its output closed, for messages: "the program exited with status 3",
 * "the program was killed by signal 9 (Killed)", or "the program closed its output" while it is
 * still running (waits up to 200 ms for it to exit, and reaps it). */
void mcts_proc_end_reason(mcts_proc *p, char *buf, size_t n);
/* Close the pipes and wait for the child (SIGTERM to its process group if it has not exited after
 * 2 s, SIGKILL 1 s later; what it leaves in its group is stopped too).  Safe on a process that was never spawned (zeroed) or is closed already. */
void mcts_proc_close(mcts_proc *p);
/* Close the pipes and stop the child and its process group now (SIGTERM, SIGKILL after 1 s): for a
 * program that stopped answering. */
void mcts_proc_kill(mcts_proc *p);

#endif
