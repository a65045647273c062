/* agent_cmd.c — the cmd agent (agent.h): an external program speaking the engine protocol
 * (src/engine/PROTOCOL.md), started with /bin/sh -c, every answer ending with "ok" within the
 * agent's timeout (a program that misses it, or stops, is stopped for good). */
#include "agent_internal.h"
#include "mcts/clock.h"
#include "game/notation.h"
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

int agent_cmd_timeout_from_env(mcts_agent *a, char *err, size_t errlen) {
    const char *s = getenv(MCTS_CMD_TIMEOUT_ENV);
    a->cmd_timeout_ms = MCTS_CMD_TIMEOUT_DEFAULT_MS;
    if (!s || !*s) return 0;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < 1 || v > MCTS_CMD_TIMEOUT_MAX_MS) {
        snprintf(err, errlen, "%s: expected milliseconds from 1 to %d, not '%.40s'", MCTS_CMD_TIMEOUT_ENV,
                 MCTS_CMD_TIMEOUT_MAX_MS, s);
        return -1;
    }
    a->cmd_timeout_ms = (double)v;
    return 0;
}

/* The deadline of a command to the program: its timeout plus extra_ms (a move's time) from now. */
static double cmd_deadline(const mcts_agent *a, double extra_ms) {
    return mcts_now_s() + (a->cmd_timeout_ms + extra_ms) / 1000.0;
}

/* One line from the program before the deadline; -1 with a message when it did not answer in
 * time or stopped (the program is then stopped for good: later commands fail at once). */
static int cmd_read(mcts_agent *a, char *line, size_t n, double deadline, char *err, size_t errlen) {
    if (!a->proc.open) {
        snprintf(err, errlen, "%s: the program is not running (stopped after an earlier error)", a->program);
        return -1;
    }
    double left_ms = 1000 * (deadline - mcts_now_s());
    int wait_ms = left_ms < 0 ? 0 : left_ms > INT_MAX ? INT_MAX : (int)left_ms;
    int rc = mcts_proc_read_line_timeout(&a->proc, line, n, wait_ms);
    if (rc == 0) return 0;
    if (rc == MCTS_PROC_TIMEOUT) {
        snprintf(err, errlen, "%s: no answer within %.0f ms (the limit: $%s, arena --cmd-timeout): the program was stopped",
                 a->program, a->cmd_timeout_ms, MCTS_CMD_TIMEOUT_ENV);
    } else {
        char why[160];
        mcts_proc_end_reason(&a->proc, why, sizeof why);
        snprintf(err, errlen, "%s: %s", a->program, why);
    }
    mcts_proc_kill(&a->proc);
    return -1;
}

static int cmd_send(mcts_agent *a, const char *cmd, char *err, size_t errlen) {
    if (!a->proc.open) {
        snprintf(err, errlen, "%s: the program is not running (stopped after an earlier error)", a->program);
        return -1;
    }
    if (mcts_proc_send(&a->proc, cmd) == 0) return 0;
    char why[160];                            /* most often it has exited: say how */
    mcts_proc_end_reason(&a->proc, why, sizeof why);
    snprintf(err, errlen, "%s: cannot write to the program (%s)", a->program, why);
    mcts_proc_kill(&a->proc);
    return -1;
}

/* Expect "ok" after a command, skipping other lines; an "err" line is an error. */
static int cmd_expect_ok(mcts_agent *a, double deadline, char *err, size_t errlen) {
    char line[512];
    for (;;) {
        if (cmd_read(a, line, sizeof line, deadline, err, errlen) != 0) return -1;
        if (!strcmp(line, "ok")) return 0;
        if (!strncmp(line, "err", 3)) {
            char e[1024];                   /* the drain's own errors: not reported */
            snprintf(err, errlen, "%s: %.200s", a->program, line);
            while (cmd_read(a, line, sizeof line, deadline, e, sizeof e) == 0 && strcmp(line, "ok")) {}
            return -1;
        }
    }
}

int agent_cmd_command(mcts_agent *a, const char *cmd, char *err, size_t errlen) {
    if (cmd_send(a, cmd, err, errlen) != 0) return -1;
    return cmd_expect_ok(a, cmd_deadline(a, 0), err, errlen);
}

int agent_cmd_start(mcts_agent *a, char *err, size_t errlen) {
    if (mcts_proc_spawn(&a->proc, a->program, err, errlen) != 0) return -1;
    return agent_cmd_command(a, "info", err, errlen);
}

/* Ask the program for its move at p (tms: the move's time, 0: its own budget): the first line
 * before "ok" is the move; every line up to "ok" is read, so the next command starts clean. */
int agent_cmd_bestmove(mcts_agent *a, const zz_pos *p, double tms, zz_move *m, char *err, size_t errlen) {
    char line[512], cmd[64];
    if (tms > 0) tms = tms < 1 ? 1 : tms > MCTS_MAX_MOVE_MS ? MCTS_MAX_MOVE_MS : tms;   /* what the protocol takes */
    if (tms > 0) snprintf(cmd, sizeof cmd, "bestmove time %.0f", tms);
    else snprintf(cmd, sizeof cmd, "bestmove");
    if (cmd_send(a, cmd, err, errlen) != 0) return -1;
    double deadline = cmd_deadline(a, tms);
    bool got = false, bad = false;
    for (;;) {
        if (cmd_read(a, line, sizeof line, deadline, err, errlen) != 0) return -1;
        if (!strcmp(line, "ok")) break;
        if (bad || got) continue;
        char e[200];
        if (!strncmp(line, "err", 3)) {
            snprintf(err, errlen, "%s: %.200s", a->program, line);
            bad = true;
        } else if (zz_move_from_text(p, line, m, e, sizeof e) != 0) {
            snprintf(err, errlen, "%s: bestmove '%.100s': %s", a->program, line, e);
            bad = true;
        } else {
            got = true;
        }
    }
    if (bad) return -1;
    if (!got) { snprintf(err, errlen, "%s: bestmove gave no move", a->program); return -1; }
    return 0;
}
