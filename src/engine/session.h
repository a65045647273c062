/* session.h — the engine session: one game (its start, the moves played, undo) and an engine
 * (an mcts agent, agent.h) that plays it, evaluates its positions and searches in the background
 * while someone watches.  The one layer under the engine protocol (protocol.h), tools/analyse
 * and the web server (tools/serve): they differ only in how they speak.
 *
 * Flow: game -> nn -> mcts -> engine (this layer) -> tools.
 *
 * Threads.  A session is driven by one thread at a time (the protocol loop; a web request that
 * holds the game's lock).  A background search (ze_search_start) runs on a thread of its own that
 * touches only the agent and the published snapshot; ze_search_peek may be called from any
 * thread.  Every call that changes the game or the engine stops a running search first, so the
 * agent is never used by two threads at once.
 *
 * Invariants: pos == start with history[0..nhist) applied; nhist <= ZE_MAX_HISTORY; the agent has
 * been told every move of the history (its tree follows the game). */
#ifndef ZE_SESSION_H
#define ZE_SESSION_H

#include "analysis.h"

enum { ZE_MAX_HISTORY = 4096 };   /* single moves (each jump of a chain counts) */

typedef struct ze_session ze_session;

/* A session at the 37-ring opening with agent `spec` (agent.h), threads unless the spec says,
 * and a seed (each new game mixes in its number).  NULL with a message on a bad spec. */
ze_session *ze_session_new(const char *spec, int threads, uint64_t seed, char *err, size_t errlen);
void ze_session_free(ze_session *s);

/* ---- the game ---------------------------------------------------------------------------- */
/* Start a new game at `start` (the opening of a board, or a Zertz+H / set-up position). */
int ze_session_newgame(ze_session *s, const zz_pos *start, char *err, size_t errlen);
/* Make `start` followed by moves[0..n) the game (undo can go back to start).  On failure the
 * game is unchanged.  0, or -1 with a message (an illegal move, too long). */
int ze_session_set_game(ze_session *s, const zz_pos *start, const zz_move *moves, int n,
                        char *err, size_t errlen);
/* Play one move (one jump of a chain is one move).  0, or -1 with a message (illegal, over). */
int ze_session_play(ze_session *s, zz_move m, char *err, size_t errlen);
/* Take back the last n moves (1..moves played).  0, or -1 with a message. */
int ze_session_undo(ze_session *s, int n, char *err, size_t errlen);
const zz_pos *ze_session_position(const ze_session *s);
const zz_pos *ze_session_start(const ze_session *s);
/* The moves played since the start; returns their count. */
int ze_session_history(const ze_session *s, const zz_move **moves);

/* ---- the engine -------------------------------------------------------------------------- */
/* Replace the engine (spec and/or threads; NULL / 0 keep the current one).  On failure the
 * engine is unchanged.  0, or -1 with a message. */
int ze_session_set_agent(ze_session *s, const char *spec, int threads, char *err, size_t errlen);
const char *ze_session_agent_spec(const ze_session *s);
int ze_session_threads(const ze_session *s);
uint64_t ze_session_seed(const ze_session *s);
int ze_session_set_seed(ze_session *s, uint64_t seed, char *err, size_t errlen);
/* The engine's move at the current position (its playing rules: time management, temperature,
 * an immediate win unsearched), with sims simulations or time_ms milliseconds (0 and 0: the
 * spec's own budget).  Does not play it.  0, or -1 with a message. */
int ze_session_bestmove(ze_session *s, uint64_t sims, double time_ms, zz_move *m, char *err, size_t errlen);
/* Analyse the current position now (in the calling thread): see ze_analyse. */
int ze_session_analyse(ze_session *s, uint64_t sims, double time_ms, ze_search_info *out,
                       char *err, size_t errlen);

/* ---- the background search --------------------------------------------------------------- */
/* Start searching the current position on a thread of the session's own, for sims simulations
 * and/or time_ms milliseconds (at least one > 0); a running search is stopped first.  0, or -1
 * with a message (the game is over, the agent cannot analyse, no budget). */
int ze_search_start(ze_session *s, uint64_t sims, double time_ms, char *err, size_t errlen);
/* The latest snapshot of the background search (running says whether it goes on); the last
 * one of a finished search stays until the next start or game change.  Any thread.  Returns
 * false when no search was started since. */
bool ze_search_peek(ze_session *s, ze_search_info *out);
/* Stop the background search (if any) and wait for it; *out (may be NULL) gets its result.
 * Returns false when there was none. */
bool ze_search_stop(ze_session *s, ze_search_info *out);
/* Wait for the background search to spend its budget; false when there was none. */
bool ze_search_wait(ze_session *s, ze_search_info *out);

#endif
