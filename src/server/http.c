/* http.c — the HTTP side of the server over libmicrohttpd (see server.h): one thread per
 * connection, request bodies collected up to SV_MAX_BODY (413 beyond), the page's files served
 * from one folder by plain names only, the API's answers and event streams, and a janitor
 * thread that frees idle games and reviews. */
#include "server.h"
#include "api.h"
#include "mcts/clock.h"
#include <arpa/inet.h>
#include <ctype.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

enum { SV_MAX_BODY = 1 << 20, SV_STREAM_MS = 200, SV_MAX_FILE = 4 << 20 };

struct sv_server {
    struct MHD_Daemon *daemon;
    sv_api api;
    char www[1024];
    int port;
    atomic_int stopping;
    pthread_t janitor;
    pthread_mutex_t jlock;
    pthread_cond_t jwake;
};

typedef struct {
    char *body;
    size_t len;
    bool too_large, answered;
    double t0;
} request;

void sv_config_default(sv_config *c) {
    memset(c, 0, sizeof *c);
    c->host = "127.0.0.1";
    c->port = 8080;
    c->threads = 2;
    c->idle_minutes = 30;
}

int sv_find_www(char *path, size_t len) {
    const char *env = getenv("ZZ_WWW_DIR");
    if (env && *env) { snprintf(path, len, "%s", env); return access(path, R_OK) == 0 ? 0 : -1; }
    snprintf(path, len, "src/server/www");
    if (access("src/server/www/index.html", R_OK) == 0) return 0;
    char dir[1024];
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (n > 0) {
        dir[n] = 0;
        char *slash = strrchr(dir, '/');
        if (slash) {
            *slash = 0;
            snprintf(path, len, "%.900s/../src/server/www", dir);
            char idx[1100];
            snprintf(idx, sizeof idx, "%s/index.html", path);
            if (access(idx, R_OK) == 0) return 0;
        }
    }
    snprintf(path, len, "src/server/www");
    return -1;
}

/* ---- answers ------------------------------------------------------------------------------- */
static enum MHD_Result send_body(struct MHD_Connection *c, int status, const char *type, char *data, size_t len) {
    struct MHD_Response *r = MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
    if (!r) { free(data); return MHD_NO; }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    enum MHD_Result rc = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return rc;
}

static enum MHD_Result send_json(struct MHD_Connection *c, int status, const cJSON *o) {
    char *text = o ? cJSON_PrintUnformatted(o) : NULL;
    if (!text) return send_body(c, 500, "application/json", strdup("{\"error\":\"out of memory\"}"), 25);
    return send_body(c, status, "application/json", text, strlen(text));
}

static enum MHD_Result send_error(struct MHD_Connection *c, int status, const char *why) {
    cJSON *o = sv_error("%s", why);
    enum MHD_Result rc = send_json(c, status, o);
    cJSON_Delete(o);
    return rc;
}

/* ---- the page's files ------------------------------------------------------------------------ */
static const char *mime_of(const char *name) {
    const char *dot = strrchr(name, '.');
    static const char *const map[][2] = { { ".html", "text/html; charset=utf-8" }, { ".css", "text/css; charset=utf-8" },
        { ".js", "text/javascript; charset=utf-8" }, { ".mjs", "text/javascript; charset=utf-8" },
        { ".svg", "image/svg+xml" }, { ".png", "image/png" }, { ".ico", "image/x-icon" }, { ".json", "application/json" } };
    for (size_t i = 0; dot && i < sizeof map / sizeof *map; i++)
        if (!strcmp(dot, map[i][0])) return map[i][1];
    return NULL;
}

/* A plain file name of the page's folder: letters, digits, '-', '_' and one '.', a known type.
 * Anything else (slashes, "..", '%', a leading dot) is refused before the disk is touched. */
static bool safe_name(const char *name) {
    if (!*name || name[0] == '.' || strlen(name) > 100) return false;
    int dots = 0;
    for (const char *p = name; *p; p++) {
        if (*p == '.') dots++;
        else if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_') return false;
    }
    return dots == 1 && mime_of(name);
}

static enum MHD_Result serve_file(sv_server *s, struct MHD_Connection *c, const char *url) {
    const char *name = url[0] == '/' ? url + 1 : url;
    if (!*name) name = "index.html";
    if (!safe_name(name)) return send_error(c, 404, "no such file");
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", s->www, name);
    FILE *f = fopen(path, "rb");
    if (!f) return send_error(c, 404, "no such file");
    char *data = malloc(SV_MAX_FILE);
    size_t n = data ? fread(data, 1, SV_MAX_FILE, f) : 0;
    fclose(f);
    if (!data) return send_error(c, 503, "out of memory");
    struct MHD_Response *r = MHD_create_response_from_buffer(n, data, MHD_RESPMEM_MUST_FREE);
    if (!r) { free(data); return MHD_NO; }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, mime_of(name));
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    enum MHD_Result rc = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return rc;
}

/* ---- event streams --------------------------------------------------------------------------- */
typedef struct {
    sv_server *s;
    sv_answer a;
    char *pending;            /* bytes still to send */
    size_t off, len;
    int state;                /* 0: first event, 1: going on, 2: last event queued, 3: done */
} stream;

static void stream_queue(stream *st, const char *data, bool last) {
    size_t n = strlen(data) + 64;
    free(st->pending);
    st->pending = malloc(n);
    if (!st->pending) { st->len = st->off = 0; st->state = 3; return; }
    st->len = (size_t)snprintf(st->pending, n, "data: %s\n\n%s", data, last ? "event: end\ndata: {}\n\n" : "");
    st->off = 0;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max) {
    stream *st = cls;
    while (st->off >= st->len) {
        if (st->state >= 2 || atomic_load(&st->s->stopping)) return MHD_CONTENT_READER_END_OF_STREAM;
        if (st->state == 1) {
            struct timespec ts = { 0, SV_STREAM_MS * 1000000L };
            nanosleep(&ts, NULL);
        }
        char *data = NULL;
        bool more = sv_api_stream_next(&st->s->api, &st->a, &data);
        stream_queue(st, data ? data : "{}", !more);
        free(data);
        st->state = more ? 1 : 2;
    }
    size_t n = st->len - st->off < max ? st->len - st->off : max;
    memcpy(buf, st->pending + st->off, n);
    st->off += n;
    return (ssize_t)n;
}

static void stream_free(void *cls) {
    stream *st = cls;
    sv_answer_free(&st->s->api, &st->a);
    free(st->pending);
    free(st);
}

static enum MHD_Result send_stream(sv_server *s, struct MHD_Connection *c, sv_answer *a) {
    stream *st = calloc(1, sizeof *st);
    if (!st) { sv_answer_free(&s->api, a); return send_error(c, 503, "out of memory"); }
    st->s = s;
    st->a = *a;
    struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, stream_read, st, stream_free);
    if (!r) { stream_free(st); return MHD_NO; }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    enum MHD_Result rc = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return rc;
}

/* ---- requests -------------------------------------------------------------------------------- */

/* Whether a body's media type (the Content-Type header, parameters allowed) is JSON.  Only JSON
 * is taken: a page on another site can send a form or text/plain to this server without asking
 * the browser first (no CORS pre-flight), but not application/json. */
static bool is_json_type(const char *type) {
    if (!type) return false;
    size_t n = strlen("application/json");
    return !strncasecmp(type, "application/json", n) && (type[n] == 0 || type[n] == ';' || type[n] == ' ');
}

/* The request body parsed: NULL with *why set when it is not one JSON value (trailing text after
 * it, a raw NUL byte, or a \u0000 escape, which would cut a string short unseen). */
static cJSON *parse_body(const char *body, size_t len, const char **why) {
    *why = "the body is not valid JSON";
    if (memchr(body, 0, len)) return NULL;
    for (size_t i = 0; i + 1 < len; i++) {
        if (body[i] != '\\') continue;
        if (body[i + 1] == 'u' && i + 5 < len && !memcmp(body + i + 2, "0000", 4)) {
            *why = "the body holds a \\u0000 (a NUL character): not allowed in any string";
            return NULL;
        }
        i++;                                        /* the escaped character */
    }
    const char *end = NULL;
    cJSON *o = cJSON_ParseWithLengthOpts(body, len, &end, false);
    if (!o) return NULL;
    while (end < body + len && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')) end++;
    if (end == body + len) { *why = NULL; return o; }
    *why = "the body has text after its JSON value";
    cJSON_Delete(o);
    return NULL;
}

static enum MHD_Result answer_api(sv_server *s, struct MHD_Connection *c, const char *url, const char *method, request *rq) {
    cJSON *body = NULL;
    const char *body_error = NULL;
    if (rq->too_large) return send_error(c, 413, "the request body is larger than 1 MiB");
    if (rq->len) {
        const char *type = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
        if (!is_json_type(type)) return send_error(c, 415, "the body must be JSON, sent as Content-Type: application/json");
        body = parse_body(rq->body, rq->len, &body_error);
    }
    sv_answer a;
    sv_api_handle(&s->api, method, url, body, body_error, &a);
    cJSON_Delete(body);
    if (!s->api.cfg.quiet)
        fprintf(stderr, "serve: %s %.200s -> %d (%.0f ms)\n", method, url, a.status, 1000 * (mcts_now_s() - rq->t0));
    if (a.stream) return send_stream(s, c, &a);
    enum MHD_Result rc;
    if (a.text && a.status == 200) {
        struct MHD_Response *r = MHD_create_response_from_buffer(strlen(a.text), a.text, MHD_RESPMEM_MUST_FREE);
        a.text = NULL;
        if (!r) { sv_answer_free(&s->api, &a); return MHD_NO; }
        char disp[128];
        snprintf(disp, sizeof disp, "attachment; filename=\"%s\"", a.filename);
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, a.type);
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_DISPOSITION, disp);
        rc = MHD_queue_response(c, MHD_HTTP_OK, r);
        MHD_destroy_response(r);
    } else {
        rc = send_json(c, a.status, a.json);
    }
    sv_answer_free(&s->api, &a);
    return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **ctx) {
    sv_server *s = cls;
    request *rq = *ctx;
    if (!rq) {
        if (!(rq = calloc(1, sizeof *rq))) return MHD_NO;
        rq->t0 = mcts_now_s();
        *ctx = rq;
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && strtoull(cl, NULL, 10) > SV_MAX_BODY) {     /* refuse at once, before the body */
            rq->too_large = rq->answered = true;
            return send_error(c, 413, "the request body is larger than 1 MiB");
        }
        return MHD_YES;
    }
    if (*upload_size) {
        if (!rq->too_large && rq->len + *upload_size <= SV_MAX_BODY) {
            char *b = realloc(rq->body, rq->len + *upload_size + 1);
            if (!b) rq->too_large = true;
            else { memcpy(b + rq->len, upload, *upload_size); rq->body = b; rq->len += *upload_size; }
        } else {
            rq->too_large = true;
        }
        *upload_size = 0;
        return MHD_YES;
    }
    if (rq->answered) return MHD_YES;
    rq->answered = true;
    if (!strncmp(url, "/api/", 5)) return answer_api(s, c, url, method, rq);
    if (strcmp(method, "GET") && strcmp(method, "HEAD")) return send_error(c, 405, "only GET for the page's files");
    return serve_file(s, c, url);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **ctx, enum MHD_RequestTerminationCode why) {
    request *rq = *ctx;
    if (!rq) return;
    free(rq->body);
    free(rq);
    *ctx = NULL;
}


/* ---- the server ------------------------------------------------------------------------------ */
static void *janitor_main(void *arg) {
    sv_server *s = arg;
    double period = s->api.cfg.idle_minutes * 30;             /* half the idle time, in seconds */
    if (period > 10) period = 10;
    if (period < 0.05) period = 0.05;
    pthread_mutex_lock(&s->jlock);
    while (!atomic_load(&s->stopping)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        double t = ts.tv_sec + ts.tv_nsec / 1e9 + period;
        ts.tv_sec = (time_t)t;
        ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
        pthread_cond_timedwait(&s->jwake, &s->jlock, &ts);
        if (atomic_load(&s->stopping)) break;
        pthread_mutex_unlock(&s->jlock);
        int g = sv_games_expire(s->api.games), r = sv_reviews_expire(s->api.reviews);
        if ((g || r) && !s->api.cfg.quiet) fprintf(stderr, "serve: freed %d idle games and %d idle reviews\n", g, r);
        pthread_mutex_lock(&s->jlock);
    }
    pthread_mutex_unlock(&s->jlock);
    return NULL;
}

sv_server *sv_server_start(const sv_config *cfg, char *err, size_t errlen) {
    sv_server *s = calloc(1, sizeof *s);
    if (!s) { snprintf(err, errlen, "out of memory"); return NULL; }
    s->api.cfg = *cfg;
    pthread_mutex_init(&s->jlock, NULL);
    pthread_cond_init(&s->jwake, NULL);
    if (cfg->www) snprintf(s->www, sizeof s->www, "%s", cfg->www);
    else if (sv_find_www(s->www, sizeof s->www) != 0) { snprintf(err, errlen, "the page's folder %s is missing (set ZZ_WWW_DIR or --www)", s->www); goto fail; }
    char idx[1100];
    snprintf(idx, sizeof idx, "%s/index.html", s->www);
    if (access(idx, R_OK) != 0) { snprintf(err, errlen, "%s: no index.html there", s->www); goto fail; }
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t)cfg->port) };
    if (inet_pton(AF_INET, cfg->host, &addr.sin_addr) != 1) { snprintf(err, errlen, "host '%s' is not an IPv4 address", cfg->host); goto fail; }
    if (!(s->api.games = sv_games_new(cfg)) || !(s->api.reviews = sv_reviews_new(cfg))) { snprintf(err, errlen, "out of memory"); goto fail; }
    /* poll(), not select(): a busy server's sockets go past FD_SETSIZE (1,024) */
    s->daemon = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL, (uint16_t)cfg->port, NULL, NULL,
                                 on_request, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                                 MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_CONNECTION_LIMIT, (unsigned)2048,
                                 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120, MHD_OPTION_THREAD_STACK_SIZE, (size_t)(1 << 20),
                                 MHD_OPTION_END);
    if (!s->daemon) { snprintf(err, errlen, "cannot listen on %s:%d (in use, or not allowed)", cfg->host, cfg->port); goto fail; }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    s->port = info ? info->port : cfg->port;
    if (pthread_create(&s->janitor, NULL, janitor_main, s) != 0) { snprintf(err, errlen, "cannot start the janitor thread"); goto fail; }
    return s;
fail:
    if (s->daemon) MHD_stop_daemon(s->daemon);
    sv_games_free(s->api.games);
    sv_reviews_free(s->api.reviews);
    free(s);
    return NULL;
}

int sv_server_port(const sv_server *s) { return s->port; }

void sv_server_stop(sv_server *s) {
    if (!s) return;
    atomic_store(&s->stopping, 1);
    pthread_mutex_lock(&s->jlock);
    pthread_cond_signal(&s->jwake);
    pthread_mutex_unlock(&s->jlock);
    pthread_join(s->janitor, NULL);
    MHD_stop_daemon(s->daemon);
    sv_reviews_free(s->api.reviews);
    sv_games_free(s->api.games);
    pthread_mutex_destroy(&s->jlock);
    pthread_cond_destroy(&s->jwake);
    free(s);
}
