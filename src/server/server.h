/* server.h — the local web server (tools/serve): the page's files from one folder, and the JSON
 * API of API.md over the engine session (src/engine/session.h) and the game review
 * (src/engine/review.h).  HTTP is libmicrohttpd's (a thread per connection: an engine search
 * holds only its own connection), JSON is cJSON's.
 *
 * Layers: http.c (sockets, limits, static files, event streams) -> api.c (routes, bodies,
 * answers) -> games.c / reviews.c (the registries: one lock each, reference counts, idle
 * expiry) -> src/engine. */
#ifndef SV_SERVER_H
#define SV_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sv_config {
    const char *host;          /* IPv4 address to listen on (default 127.0.0.1: loopback only) */
    int port;                  /* 0: a free port chosen by the system (sv_server_port says which) */
    const char *www;           /* the page's folder (NULL: found with sv_find_www) */
    const char *agent;         /* engine spec for games (NULL: the board's shipped network) */
    int threads;               /* search threads per engine search (default 2) */
    double idle_minutes;       /* games and reviews untouched this long are freed (default 30) */
    bool quiet;                /* no request log */
} sv_config;

/* The defaults above. */
void sv_config_default(sv_config *c);

typedef struct sv_server sv_server;

/* Start serving (returns at once; the server runs on its own threads).  NULL with a message
 * (a port in use, a bad address, no page folder, out of memory). */
sv_server *sv_server_start(const sv_config *cfg, char *err, size_t errlen);
/* The port it listens on. */
int sv_server_port(const sv_server *s);
/* Stop: close the listening socket, stop every search and review, free everything. */
void sv_server_stop(sv_server *s);

/* The page's folder: $ZZ_WWW_DIR, else src/server/www in the working directory, else beside the
 * running program (its folder's ../src/server/www).  0 with the path, or -1. */
int sv_find_www(char *path, size_t len);

#endif
