/* protocol.h — the engine's line protocol (PROTOCOL.md): a session reads one command per line
 * and answers with zero or more lines followed by "ok"; an error is a line "err <why>" followed
 * by "ok", after which the session goes on.  Used by tools/engine.c over stdin/stdout and by the
 * tests over in-memory streams. */
#ifndef MCTS_PROTOCOL_H
#define MCTS_PROTOCOL_H

#include "agent.h"
#include "game/handicap.h"
#include <stdio.h>

typedef struct mcts_session mcts_session;

/* A session at the 37-ring opening playing with agent `spec` (e.g. "uct:20000").  NULL with a
 * message on a bad spec. */
mcts_session *mcts_session_new(const char *spec, int threads, uint64_t seed, char *err, size_t errlen);
void mcts_session_free(mcts_session *s);
/* Handle one command line, writing the answer to out.  Returns 1 after quit, else 0. */
int mcts_session_command(mcts_session *s, const char *line, FILE *out);
/* Read commands from in until quit or end of input.  Returns 0. */
int mcts_session_run(mcts_session *s, FILE *in, FILE *out);
/* Zertz+H: every later `newgame` without its own handicap starts with h (h.player receives
 * h.wgb from the pool); the current game restarts from the handicapped opening.  0, or -1 with a
 * message when the pool cannot give it or it would already win. */
int mcts_session_set_handicap(mcts_session *s, const zz_handicap *h, char *err, size_t errlen);
/* The current position. */
const zz_pos *mcts_session_position(const mcts_session *s);

#endif
