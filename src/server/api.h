/* api.h — the routes of API.md: a method, a path and a parsed body in, an answer out (a status and
 * JSON, raw text such as the SGF download, or an event stream for http.c to run).  Nothing here
 * knows of sockets. */
#ifndef SV_API_H
#define SV_API_H

#include "games.h"
#include "reviews.h"
#include <stdatomic.h>

/* Analyses (POST /api/analyse) searching at once; more get a 503: each holds a connection's
 * thread and its own search until it ends. */
enum { SV_MAX_ANALYSES = 4 };

typedef struct sv_api {
    sv_games *games;
    sv_reviews *reviews;
    sv_config cfg;
    _Atomic int analysing;     /* analyses searching now */
} sv_api;

/* What an event stream follows (http.c polls it until it ends). */
typedef enum { SV_STREAM_NONE, SV_STREAM_THINK, SV_STREAM_REVIEW } sv_stream_kind;

typedef struct sv_answer {
    int status;
    cJSON *json;               /* the answer, or NULL when text is set */
    char *text;                /* a raw answer (malloc'd), with its type and file name */
    const char *type;
    char filename[64];
    sv_stream_kind stream;     /* an event stream of this game or review (a reference held) */
    sv_game *game;
    sv_review *review;
} sv_answer;

/* Answer one request.  body is NULL when the request had none; body_error says why a body could
 * not be parsed (then a 400 unless the route takes no body). */
void sv_api_handle(sv_api *api, const char *method, const char *path, const cJSON *body,
                   const char *body_error, sv_answer *a);
/* The next event of a stream: *data gets a JSON text (malloc'd) and the return says whether the
 * stream goes on after it (false: this was the last, then "event: end"). */
bool sv_api_stream_next(sv_api *api, sv_answer *a, char **data);
/* Release what an answer holds (its JSON, text, stream reference). */
void sv_answer_free(sv_api *api, sv_answer *a);

#endif
