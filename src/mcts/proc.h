/* proc.h — a child process spoken to over pipes, line by line (the `cmd:PROGRAM` agent). */
#ifndef MCTS_PROC_H
#define MCTS_PROC_H

#include <stdio.h>
#include <sys/types.h>

typedef struct mcts_proc {
    pid_t pid;
    FILE *to;      /* the child's stdin */
    FILE *from;    /* the child's stdout */
} mcts_proc;

/* Run `command` with /bin/sh -c, its stdin and stdout piped to us (stderr inherited).
 * Returns 0, or -1 with a message.  Writing to a child that died raises SIGPIPE: tools that use
 * this ignore SIGPIPE. */
int mcts_proc_spawn(mcts_proc *p, const char *command, char *err, size_t errlen);
/* Send one line (a newline is added) and flush.  0 or -1. */
int mcts_proc_send(mcts_proc *p, const char *line);
/* Read one line without its newline into buf.  0, or -1 at end of file. */
int mcts_proc_read_line(mcts_proc *p, char *buf, size_t n);
/* Close the pipes and wait for the child (killed with SIGTERM if it has not exited after 2 s). */
void mcts_proc_close(mcts_proc *p);

#endif
