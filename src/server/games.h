/* games.h — the server's games: a registry of engine sessions by id, and what the API does to a
 * game (API.md).  Every function returns an HTTP status and sets *out to a JSON answer (a state,
 * a snapshot, or {"error": why}).
 *
 * Concurrency.  The registry has one lock (lookups, creation, expiry) and reference counts: a
 * request (or an event stream) holds a reference, and an idle game is freed only with none.  A
 * game's own lock serialises the requests that use its session; while the engine chooses a turn
 * (`thinking`), other changes get 409 at once and reads are served from the last published
 * state, so no request waits for the engine. */
#ifndef SV_GAMES_H
#define SV_GAMES_H

#include "engine/json.h"
#include "engine/session.h"
#include "registry.h"
#include "server.h"
#include <cjson/cJSON.h>

enum { SV_MAX_GAMES = 256 };
#define SV_MAX_TIME_MS 60000.0        /* the longest search a request may ask for */
#define SV_MAX_SIMS 10000000ULL

typedef struct sv_games sv_games;
typedef struct sv_game sv_game;

sv_games *sv_games_new(const sv_config *cfg);
/* Free every game (their searches are stopped). */
void sv_games_free(sv_games *gs);
/* Free the games idle for longer than the configured time.  Returns how many. */
int sv_games_expire(sv_games *gs);
int sv_games_count(sv_games *gs);

/* Find a game and take a reference (NULL: no such game). */
sv_game *sv_game_get(sv_games *gs, const char *id);
void sv_game_put(sv_games *gs, sv_game *g);

/* A budget from a request body: "time_ms" or "sims" (or neither: the defaults given).  400 with
 * *out set when out of range; else 0. */
int sv_parse_budget(const cJSON *body, uint64_t def_sims, double def_ms, uint64_t *sims, double *ms, cJSON **out);

int sv_game_create(sv_games *gs, const cJSON *body, cJSON **out);
int sv_game_state(sv_game *g, cJSON **out);
int sv_game_delete(sv_games *gs, const char *id, cJSON **out);
int sv_game_move(sv_game *g, const cJSON *body, cJSON **out);
int sv_game_engine(sv_game *g, const cJSON *body, cJSON **out);
int sv_game_undo(sv_game *g, const cJSON *body, cJSON **out);
int sv_game_resign(sv_game *g, cJSON **out);
/* The game as Boardspace SGF (*sgf malloc'd) with 200, or an error answer in *out. */
int sv_game_sgf(sv_game *g, char **sgf, cJSON **out);
int sv_game_think_start(sv_game *g, const cJSON *body, cJSON **out);
int sv_game_think_peek(sv_game *g, cJSON **out, bool *running);
int sv_game_think_stop(sv_game *g, cJSON **out);

/* {"error": why} */
cJSON *sv_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
