/* protocol.h — the engine's line protocol (PROTOCOL.md): a session reads one command per line
 * and answers with zero or more lines followed by "ok"; an error is a line "err <why>" followed
 * by "ok", after which the session goes on.  A thin adapter over the engine session (session.h):
 * the game and the engine live there.  Used by tools/engine.c over stdin/stdout and by the tests
 * over in-memory streams. */
#ifndef ZE_PROTOCOL_H
#define ZE_PROTOCOL_H

#include "session.h"
#include "game/handicap.h"
#include <stdio.h>

typedef struct ze_protocol ze_protocol;

/* A session at the 37-ring opening playing with agent `spec` (e.g. "uct:20000").  NULL with a
 * message on a bad spec. */
ze_protocol *ze_protocol_new(const char *spec, int threads, uint64_t seed, char *err, size_t errlen);
void ze_protocol_free(ze_protocol *s);
/* Handle one command line, writing the answer to out.  Returns 1 after quit, else 0. */
int ze_protocol_command(ze_protocol *s, const char *line, FILE *out);
/* Read commands from in until quit or end of input.  Returns 0. */
int ze_protocol_run(ze_protocol *s, FILE *in, FILE *out);
/* Zertz+H: every later `newgame` without its own handicap starts with h (h.player receives
 * h.wgb from the pool); the current game restarts from the handicapped opening.  0, or -1 with a
 * message when the pool cannot give it or it would already win. */
int ze_protocol_set_handicap(ze_protocol *s, const zz_handicap *h, char *err, size_t errlen);
/* The current position. */
const zz_pos *ze_protocol_position(const ze_protocol *s);

#endif
