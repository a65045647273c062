/* test_server.c — the web server's API (src/server, API.md) against a server started inside the
 * test on a free loopback port: a game played through (moves, the engine's turn, undo, resign,
 * the SGF read back), hints with an event stream, position analysis and a whole-game review; and
 * every kind of bad input: malformed JSON, an illegal move, an unknown game, an SGF that does not
 * parse, a 100 MB body, 1,000 requests at once, clients that leave in the middle, paths that try
 * to leave the page's folder; games that do not wait for each other; idle games freed.
 * The client is src/server/client.h (plain sockets, Connection: close). */
#include "helpers.h"
#include "game/sgf.h"
#include "mcts/clock.h"
#include "server/api.h"
#include "server/client.h"
#include "server/reviews.h"
#include "server/server.h"
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static sv_server *server;
static int port;

static void start(double idle_minutes) {
    sv_config c;
    sv_config_default(&c);
    c.port = 0;
    c.quiet = true;
    c.threads = 1;
    c.idle_minutes = idle_minutes;
    char err[512];
    server = sv_server_start(&c, err, sizeof err);
    ck_assert_msg(server != NULL, "%s", err);
    port = sv_server_port(server);
    ck_assert(port > 0);
}

static void stop(void) {
    sv_server_stop(server);
    server = NULL;
}

static int connect_local(void) {
    int fd = sv_client_connect(port);
    ck_assert_msg(fd >= 0, "connect");
    return fd;
}

#define send_all sv_client_send_all
#define send_request sv_client_send
#define read_reply sv_client_read
typedef sv_reply reply;

static reply request(const char *method, const char *path, const char *body) {
    return sv_client_request(port, method, path, body);
}

/* A request whose answer must be JSON with that status; returns the parsed answer. */
static cJSON *expect(const char *method, const char *path, const char *body, int status) {
    reply r = request(method, path, body);
    ck_assert_msg(r.status == status, "%s %s: status %d, expected %d: %.300s", method, path, r.status, status, r.body);
    cJSON *o = cJSON_Parse(r.body);
    ck_assert_msg(o, "%s %s: not JSON: %.200s", method, path, r.body);
    if (status >= 400) ck_assert_msg(cJSON_IsString(cJSON_GetObjectItem(o, "error")), "%s %s: no error message", method, path);
    free(r.raw);
    return o;
}

/* GETs path (status 200) until its boolean `field` is `want`, at most `tries` times, step_ms
 * apart: polled, so a busy machine is only slower.  Returns that answer, or NULL if it never was. */
static cJSON *poll_until(const char *path, const char *field, bool want, int tries, long step_ms) {
    for (int i = 0; i < tries; i++) {
        if (i > 0) {
            struct timespec ts = { step_ms / 1000, (step_ms % 1000) * 1000000L };
            nanosleep(&ts, NULL);
        }
        cJSON *o = expect("GET", path, NULL, 200);
        if ((cJSON_IsTrue(cJSON_GetObjectItem(o, field)) != 0) == want) return o;
        cJSON_Delete(o);
    }
    return NULL;
}

static const char *str(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItem(o, k);
    ck_assert_msg(cJSON_IsString(v), "no string %s", k);
    return v->valuestring;
}

static cJSON *new_game(const char *body) { return expect("POST", "/api/games", body, 201); }

/* A new game's id (id holds 32 bytes). */
static void new_game_id(const char *body, char *id) {
    cJSON *g = new_game(body);
    snprintf(id, 32, "%s", str(g, "id"));
    cJSON_Delete(g);
}

static void path_of(char *out, size_t n, const char *id, const char *action) {
    snprintf(out, n, "/api/games/%s%s%s", id, action ? "/" : "", action ? action : "");
}

/* ---- a game played through ---------------------------------------------------------------- */
START_TEST(game_played_through) {
    start(30);
    cJSON *g = new_game("{\"rings\": 37, \"human\": 0, \"level\": \"quick\"}");
    char id[32], p[128], body[256];
    snprintf(id, sizeof id, "%s", str(g, "id"));
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(g, "cells")), 37);
    ck_assert_int_gt(cJSON_GetArraySize(cJSON_GetObjectItem(g, "legal")), 100);
    cJSON_Delete(g);
    int turns = 0;
    for (; turns < 300; turns++) {
        path_of(p, sizeof p, id, NULL);
        cJSON *s = expect("GET", p, NULL, 200);
        bool over = cJSON_IsTrue(cJSON_GetObjectItem(s, "over"));
        int to_move = cJSON_GetObjectItem(s, "to_move")->valueint;
        const char *first = over ? NULL : cJSON_GetArrayItem(cJSON_GetObjectItem(s, "legal"), 0)->valuestring;
        snprintf(body, sizeof body, "{\"move\": \"%s\"}", first ? first : "");
        cJSON_Delete(s);
        if (over) break;
        if (to_move == 0) { path_of(p, sizeof p, id, "move"); cJSON_Delete(expect("POST", p, body, 200)); }
        else {
            path_of(p, sizeof p, id, "engine");
            cJSON *e = expect("POST", p, "{}", 200);
            ck_assert(strlen(str(e, "engine_turn")) > 0);
            cJSON_Delete(e);
        }
    }
    ck_assert_msg(turns < 300, "the game did not end");
    path_of(p, sizeof p, id, NULL);
    cJSON *s = expect("GET", p, NULL, 200);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(s, "over")));
    ck_assert(strlen(str(s, "result")) > 0);
    int nturns = cJSON_GetArraySize(cJSON_GetObjectItem(s, "turns"));
    cJSON_Delete(s);
    path_of(p, sizeof p, id, "move");
    cJSON_Delete(expect("POST", p, "{\"move\": \"Wd4,a1\"}", 409));           /* over */
    /* the SGF reads back to the same game */
    path_of(p, sizeof p, id, "sgf");
    reply r = request("GET", p, NULL);
    ck_assert_int_eq(r.status, 200);
    ck_assert(strstr(r.raw, "application/x-go-sgf"));
    zz_game rg;
    char err[512];
    ck_assert_msg(zz_sgf_parse(r.body, strlen(r.body), &rg, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(rg.nturns, nturns);
    ck_assert(zz_over(&rg.final));
    zz_game_free(&rg);
    free(r.raw);
    /* undo two turns, then resign */
    path_of(p, sizeof p, id, "undo");
    s = expect("POST", p, "{\"turns\": 2}", 200);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(s, "turns")), nturns - 2);
    ck_assert(!cJSON_IsTrue(cJSON_GetObjectItem(s, "over")));
    cJSON_Delete(s);
    cJSON_Delete(expect("POST", p, "{\"turns\": 5000}", 400));
    path_of(p, sizeof p, id, "resign");
    s = expect("POST", p, NULL, 200);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(s, "over")) && strstr(str(s, "result"), "resigned"));
    cJSON_Delete(s);
    path_of(p, sizeof p, id, NULL);
    cJSON_Delete(expect("DELETE", p, NULL, 200));
    cJSON_Delete(expect("GET", p, NULL, 404));
    stop();
}
END_TEST

START_TEST(handicap_and_options) {
    start(30);
    cJSON *g = new_game("{\"rings\": 48, \"handicap\": \"1:1,1,1\", \"human\": 1, \"level\": \"casual\"}");
    ck_assert_str_eq(str(g, "variant"), "Zertz+H");
    ck_assert_int_eq(cJSON_GetArrayItem(cJSON_GetArrayItem(cJSON_GetObjectItem(g, "captures"), 1), 0)->valueint, 1);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(g, "cells")), 48);
    cJSON_Delete(g);
    static const char *const bad[] = { "{\"rings\": 40}", "{\"human\": 2}", "{\"level\": \"godlike\"}", "{\"time_ms\": 0}",
                                       "{\"sims\": 1.5}", "{\"time_ms\": 1, \"sims\": 1}", "{\"handicap\": \"0:9,9,9\"}", "[1,2]" };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) cJSON_Delete(expect("POST", "/api/games", bad[i], 400));
    stop();
}
END_TEST

/* ---- bad input -------------------------------------------------------------------------------- */
START_TEST(bad_requests_get_4xx) {
    start(30);
    char id[32], p[128];
    new_game_id("{\"level\": \"quick\"}", id);
    path_of(p, sizeof p, id, "move");
    cJSON_Delete(expect("POST", p, "{\"move\": ", 400));                  /* malformed JSON */
    cJSON_Delete(expect("POST", p, "{\"move\": \"Wd4,d4\"}", 400));       /* illegal */
    cJSON_Delete(expect("POST", p, "{\"move\": \"x a1Wa3\"}", 400));
    cJSON_Delete(expect("POST", p, "{\"move\": 12}", 400));
    cJSON_Delete(expect("POST", p, "\"just a string\"", 400));
    path_of(p, sizeof p, id, NULL);
    cJSON *s = expect("GET", p, NULL, 200);                                /* unchanged */
    ck_assert_int_eq(cJSON_GetObjectItem(s, "ply")->valueint, 0);
    cJSON_Delete(s);
    cJSON_Delete(expect("GET", "/api/games/nosuchgame", NULL, 404));
    cJSON_Delete(expect("POST", "/api/games/nosuchgame/move", "{\"move\": \"Wd4,a1\"}", 404));
    cJSON_Delete(expect("GET", "/api/nothing", NULL, 404));
    cJSON_Delete(expect("POST", "/api/health", NULL, 405));
    cJSON_Delete(expect("POST", "/api/reviews", "{\"sgf\": \"(;GM[22]SU[Zertz]; P0[1 RtoB 2 0 Q 99] )\"}", 400));
    cJSON_Delete(expect("POST", "/api/reviews", "{\"sgf\": \"not an sgf at all\"}", 400));
    cJSON_Delete(expect("POST", "/api/reviews", "{\"moves\": \"Wd4,a1; Zz9\"}", 400));
    cJSON_Delete(expect("POST", "/api/reviews", "{\"moves\": \"\"}", 400));
    cJSON_Delete(expect("POST", "/api/reviews", "{\"moves\": \"Wd4,a1\", \"rings\": 37.9}", 400));
    cJSON_Delete(expect("POST", "/api/analyse", "{\"moves\": \"Wd4,a1\", \"rings\": 37.5}", 400));
    cJSON_Delete(expect("POST", "/api/reviews", "{\"moves\": \"Wd4,a1\", \"time_ms\": 999999}", 400));
    cJSON_Delete(expect("POST", "/api/analyse", "{\"position\": \"zpos:garbage\"}", 400));
    cJSON_Delete(expect("POST", "/api/analyse", "{\"moves\": \"Wd4,a1\", \"time_ms\": 100000}", 400));
    cJSON_Delete(expect("GET", "/api/reviews/nosuch", NULL, 404));
    stop();
}
END_TEST

/* A POST with a body of the given Content-Type (NULL: none); the status. */
static int post_typed(const char *path, const char *type, const char *body) {
    int fd = connect_local();
    char head[512];
    int n = snprintf(head, sizeof head, "POST %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n%s%s%sContent-Length: %zu\r\n\r\n",
                     path, type ? "Content-Type: " : "", type ? type : "", type ? "\r\n" : "", strlen(body));
    send_all(fd, head, (size_t)n);
    send_all(fd, body, strlen(body));
    reply r = read_reply(fd);
    free(r.raw);
    return r.status;
}

/* Bodies are one JSON value sent as JSON: another media type is a 415 (a page on another site
 * could send a form or text/plain without asking), trailing text and NUL characters a 400. */
START_TEST(json_bodies_only) {
    start(30);
    const char *ok = "{\"rings\": 37, \"human\": null}";
    ck_assert_int_eq(post_typed("/api/games", "text/plain", ok), 415);
    ck_assert_int_eq(post_typed("/api/games", "application/x-www-form-urlencoded", ok), 415);
    ck_assert_int_eq(post_typed("/api/games", NULL, ok), 415);
    ck_assert_int_eq(post_typed("/api/games", "application/jsonp", ok), 415);
    ck_assert_int_eq(post_typed("/api/games", "Application/JSON; charset=utf-8", ok), 201);
    ck_assert_int_eq(post_typed("/api/games", "application/json", "{\"rings\": 37} trailing {{{"), 400);
    ck_assert_int_eq(post_typed("/api/games", "application/json", "{\"rings\": 37} \r\n"), 201);
    char id[32], p[128];
    new_game_id("{\"human\": null}", id);
    path_of(p, sizeof p, id, "move");
    cJSON_Delete(expect("POST", p, "{\"move\": \"Wd4,a1\\u0000 more\"}", 400));
    cJSON_Delete(expect("POST", p, "{\"move\": \"Wd4,a1;Gc3,a2\"}", 400));        /* one turn at a time */
    path_of(p, sizeof p, id, NULL);
    cJSON *s = expect("GET", p, NULL, 200);
    ck_assert_int_eq(cJSON_GetObjectItem(s, "ply")->valueint, 0);
    cJSON_Delete(s);
    stop();
}
END_TEST

/* A resignation in the middle of a capture chain: the SGF keeps the jumps made and the Resign
 * (read back: the same final position, resigned), and the first undo takes back only the
 * resignation. */
START_TEST(resign_mid_chain) {
    start(30);
    char id[32], p[128], body[128];
    new_game_id("{\"rings\": 37, \"human\": null}", id);
    static const char *const moves[] = { "Wg2,g3", "Be1,c1", "Bd4,b1", "Wc5,d7", "Ba2,a4", "Bd2,g1", "x e1Bc2",
                                         "Bf2,b5", "x g2Be2", "Bd3,e6", "x e2Bc3" };
    path_of(p, sizeof p, id, "move");
    for (unsigned i = 0; i < sizeof moves / sizeof *moves; i++) {
        snprintf(body, sizeof body, "{\"move\": \"%s\"}", moves[i]);
        cJSON_Delete(expect("POST", p, body, 200));
    }
    path_of(p, sizeof p, id, NULL);
    cJSON *s = expect("GET", p, NULL, 200);
    ck_assert_msg(cJSON_IsString(cJSON_GetObjectItem(s, "chain")), "no chain under way");
    int ply = cJSON_GetObjectItem(s, "ply")->valueint;
    cJSON_Delete(s);
    path_of(p, sizeof p, id, "resign");
    cJSON_Delete(expect("POST", p, NULL, 200));
    path_of(p, sizeof p, id, "sgf");
    reply r = request("GET", p, NULL);
    ck_assert_int_eq(r.status, 200);
    zz_game rg;
    char err[512];
    ck_assert_msg(zz_sgf_parse(r.body, strlen(r.body), &rg, err, sizeof err) == 0, "%s\n%s", err, r.body);
    ck_assert_int_eq(rg.end, ZZ_END_RESIGN);
    ck_assert_int_eq(rg.unfinished.njumps, 1);
    ck_assert_int_eq(rg.winner, 1);                               /* P0 was jumping: P1 wins */
    zz_pos want = rg.start;
    for (int i = 0; i < rg.nturns; i++)
        for (int k = 0; k < rg.turns[i].nmoves; k++) zz_apply(&want, rg.turns[i].moves[k], NULL);
    zz_apply(&want, rg.unfinished.jumps[0], NULL);                /* the jump the final position counts */
    for (int c = 0; c < 3; c++) ck_assert_int_eq(rg.final.cap[0][c], want.cap[0][c]);
    ck_assert_int_eq(rg.final.cap[0][2], 3);                      /* three black marbles: e1, g2, e2 */
    zz_game_free(&rg);
    free(r.raw);
    path_of(p, sizeof p, id, "undo");
    s = expect("POST", p, "{\"turns\": 1}", 200);
    ck_assert(!cJSON_IsTrue(cJSON_GetObjectItem(s, "over")));
    ck_assert_int_eq(cJSON_GetObjectItem(s, "ply")->valueint, ply);          /* the jump stays */
    ck_assert(cJSON_IsString(cJSON_GetObjectItem(s, "chain")));
    cJSON_Delete(s);
    stop();
}
END_TEST

START_TEST(huge_body_is_refused) {
    start(30);
    int fd = connect_local();
    const size_t big = 100u << 20;
    char head[256];
    int n = snprintf(head, sizeof head, "POST /api/games HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                     "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n", big);
    send_all(fd, head, (size_t)n);
    char *chunk = malloc(1 << 20);
    memset(chunk, ' ', 1 << 20);
    for (int i = 0; i < 100; i++) {                       /* the server may close early: fine */
        ssize_t w = send(fd, chunk, 1 << 20, MSG_NOSIGNAL);
        if (w <= 0) break;
    }
    free(chunk);
    reply r = read_reply(fd);
    ck_assert_msg(r.status == 413, "100 MB body: status %d", r.status);
    free(r.raw);
    /* without a length (chunked), the limit still holds */
    fd = connect_local();
    n = snprintf(head, sizeof head, "POST /api/games HTTP/1.1\r\nHost: x\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n");
    send_all(fd, head, (size_t)n);
    char piece[70000];
    int len = snprintf(piece, sizeof piece, "10000\r\n");
    memset(piece + len, ' ', 0x10000);
    memcpy(piece + len + 0x10000, "\r\n", 2);
    for (int i = 0; i < 40; i++) send_all(fd, piece, (size_t)len + 0x10000 + 2);
    send_all(fd, "0\r\n\r\n", 5);
    r = read_reply(fd);
    ck_assert_msg(r.status == 413, "chunked 2.5 MB body: status %d", r.status);
    free(r.raw);
    cJSON_Delete(expect("GET", "/api/health", NULL, 200));
    stop();
}
END_TEST

START_TEST(page_files_only) {
    start(30);
    reply r = request("GET", "/", NULL);
    ck_assert_int_eq(r.status, 200);
    ck_assert(strstr(r.raw, "text/html"));
    free(r.raw);
    static const char *const evil[] = { "/../Makefile", "/%2e%2e/Makefile", "/%2e%2e%2fMakefile", "/..%2fMakefile",
        "//etc/passwd", "/etc/passwd", "/src/server/www/index.html", "/.hidden.js", "/index.html/../../Makefile",
        "/%2fetc%2fpasswd", "/....//Makefile", "/index.exe" };
    for (unsigned i = 0; i < sizeof evil / sizeof *evil; i++) {
        r = request("GET", evil[i], NULL);
        ck_assert_msg(r.status == 404 || r.status == 400, "%s: status %d", evil[i], r.status);
        ck_assert_msg(!strstr(r.body, "root:") && !strstr(r.body, "CFLAGS"), "%s leaked a file", evil[i]);
        free(r.raw);
    }
    r = request("POST", "/index.html", "{}");
    ck_assert_int_eq(r.status, 405);
    free(r.raw);
    stop();
}
END_TEST

/* ---- many clients ----------------------------------------------------------------------------- */
START_TEST(thousand_requests_at_once) {
    start(30);
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur < 2400 && rl.rlim_max >= 2400) { rl.rlim_cur = 2400; setrlimit(RLIMIT_NOFILE, &rl); }
    getrlimit(RLIMIT_NOFILE, &rl);
    int want = 1000;
    if (rl.rlim_cur < 2100) {
        want = (int)(rl.rlim_cur - 100) / 2;
        th_skip("test_server", "1,000 requests at once: the file limit (%llu) allows %d", (unsigned long long)rl.rlim_cur, want);
    }
    int *fds = malloc((size_t)want * sizeof *fds);
    for (int i = 0; i < want; i++) fds[i] = connect_local();
    for (int i = 0; i < want; i++) send_request(fds[i], "GET", i % 2 ? "/api/health" : "/api/games/nosuch", NULL);
    int ok = 0;
    for (int i = 0; i < want; i++) {
        reply r = read_reply(fds[i]);
        if (r.status == (i % 2 ? 200 : 404)) ok++;
        free(r.raw);
    }
    free(fds);
    ck_assert_msg(ok == want, "%d of %d requests answered right", ok, want);
    cJSON_Delete(expect("GET", "/api/health", NULL, 200));
    stop();
}
END_TEST

typedef struct { char path[128]; int status; double seconds; } engine_call;

static void *call_engine(void *arg) {
    engine_call *c = arg;
    double t0 = mcts_now_s();
    reply r = request("POST", c->path, "{\"time_ms\": 3000}");
    c->status = r.status;
    c->seconds = mcts_now_s() - t0;
    free(r.raw);
    return NULL;
}

START_TEST(games_do_not_wait_for_each_other) {
    start(30);
    cJSON *a = new_game("{\"human\": 1}"), *b = new_game("{\"human\": 0}");   /* A: the engine moves first */
    char ida[32], idb[32], p[128];
    snprintf(ida, sizeof ida, "%s", str(a, "id"));
    snprintf(idb, sizeof idb, "%s", str(b, "id"));
    cJSON_Delete(a);
    cJSON_Delete(b);
    engine_call c;
    path_of(c.path, sizeof c.path, ida, "engine");
    pthread_t th;
    pthread_create(&th, NULL, call_engine, &c);
    path_of(p, sizeof p, ida, NULL);
    cJSON *s = poll_until(p, "thinking", true, 500, 20);          /* the thinking game answers */
    ck_assert_msg(s, "the engine did not start thinking within 10 s");
    cJSON_Delete(s);
    double t0 = mcts_now_s();
    path_of(p, sizeof p, ida, "move");
    cJSON_Delete(expect("POST", p, "{\"move\": \"Wd4,a1\"}", 409));
    path_of(p, sizeof p, idb, "move");
    cJSON_Delete(expect("POST", p, "{\"move\": \"Wd4,a1\"}", 200)); /* the other game plays on */
    double waited = mcts_now_s() - t0;
    pthread_join(th, NULL);
    ck_assert_int_eq(c.status, 200);
    ck_assert_msg(waited < c.seconds, "the requests waited %.2f s for a %.2f s engine search", waited, c.seconds);
    stop();
}
END_TEST

/* ---- hints, analysis, reviews ------------------------------------------------------------------ */
START_TEST(hint_stream_and_stop) {
    start(30);
    char id[32], p[128];
    new_game_id("{}", id);
    path_of(p, sizeof p, id, "think");
    cJSON_Delete(expect("GET", p, NULL, 404));                   /* none started yet */
    cJSON_Delete(expect("POST", p, "{\"time_ms\": 800}", 202));
    path_of(p, sizeof p, id, "think/stream");
    reply r = request("GET", p, NULL);                            /* runs to the end of the search */
    ck_assert_int_eq(r.status, 200);
    ck_assert(strstr(r.raw, "text/event-stream"));
    ck_assert_msg(strstr(r.body, "event: end"), "no end event");
    int events = 0;
    for (const char *q = r.body; (q = strstr(q, "data: {\"running\"")); q++) events++;
    ck_assert_msg(events >= 2, "%d events", events);
    free(r.raw);
    path_of(p, sizeof p, id, "think");
    cJSON *snap = expect("GET", p, NULL, 200);
    ck_assert(!cJSON_IsTrue(cJSON_GetObjectItem(snap, "running")));
    ck_assert(cJSON_GetObjectItem(snap, "sims")->valuedouble > 0);
    ck_assert(cJSON_GetArraySize(cJSON_GetObjectItem(snap, "pv")) >= 1);
    cJSON_Delete(snap);
    /* a long search stopped; a stream whose client leaves */
    cJSON_Delete(expect("POST", p, "{\"time_ms\": 60000}", 202));
    path_of(p, sizeof p, id, "think/stream");
    int fd = connect_local();
    send_request(fd, "GET", p, NULL);
    char buf[512];
    ck_assert(recv(fd, buf, sizeof buf, 0) > 0);
    close(fd);
    path_of(p, sizeof p, id, "think/stop");
    snap = expect("POST", p, NULL, 200);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(snap, "stopped")));
    cJSON_Delete(snap);
    stop();
}
END_TEST

START_TEST(analyse_and_disconnect) {
    start(30);
    cJSON *a = expect("POST", "/api/analyse", "{\"moves\": \"Wd7,d1; Be1,e6\", \"sims\": 300}", 200);
    ck_assert(cJSON_IsString(cJSON_GetObjectItem(a, "best")));
    ck_assert(cJSON_GetObjectItem(a, "wp")->valuedouble >= 0);
    cJSON_Delete(a);
    int fd = connect_local();                                     /* the client leaves mid-analysis */
    send_request(fd, "POST", "/api/analyse", "{\"moves\": \"Wd7,d1\", \"time_ms\": 1500}");
    struct timespec ts = { 0, 200000000L };
    nanosleep(&ts, NULL);
    close(fd);
    cJSON_Delete(expect("GET", "/api/health", NULL, 200));
    ts.tv_sec = 2;
    nanosleep(&ts, NULL);                                         /* the analysis ends on its own */
    cJSON_Delete(expect("GET", "/api/health", NULL, 200));
    stop();
}
END_TEST

/* At most SV_MAX_ANALYSES analyses search at once: the next gets a 503 until one ends. */
START_TEST(analyses_are_limited) {
    start(30);
    int fd[SV_MAX_ANALYSES];
    for (int i = 0; i < SV_MAX_ANALYSES; i++) {
        fd[i] = connect_local();
        send_request(fd[i], "POST", "/api/analyse", "{\"moves\": \"Wd7,d1\", \"time_ms\": 3000}");
    }
    int running = 0;
    for (int i = 0; i < 200 && running < SV_MAX_ANALYSES; i++) {     /* until all have started */
        cJSON *h = expect("GET", "/api/health", NULL, 200);
        running = cJSON_GetObjectItem(h, "analyses")->valueint;
        cJSON_Delete(h);
        struct timespec ts = { 0, 20000000L };
        if (running < SV_MAX_ANALYSES) nanosleep(&ts, NULL);
    }
    ck_assert_int_eq(running, SV_MAX_ANALYSES);
    cJSON_Delete(expect("POST", "/api/analyse", "{\"moves\": \"Wd7,d1\", \"sims\": 10}", 503));
    for (int i = 0; i < SV_MAX_ANALYSES; i++) {
        reply r = read_reply(fd[i]);
        ck_assert_msg(r.status == 200, "analysis %d: status %d", i, r.status);
        free(r.raw);
    }
    cJSON *h = expect("GET", "/api/health", NULL, 200);
    ck_assert_int_eq(cJSON_GetObjectItem(h, "analyses")->valueint, 0);
    cJSON_Delete(h);
    cJSON_Delete(expect("POST", "/api/analyse", "{\"moves\": \"Wd7,d1\", \"sims\": 10}", 200));
    stop();
}
END_TEST

START_TEST(review_of_a_game) {
    start(30);
    cJSON *r = expect("POST", "/api/reviews", "{\"moves\": \"Wd7,d1; Be1,e6; Bc3,f1; Bg2,f5; Bd6,c1\", \"sims\": 100}", 202);
    char id[32], p[128];
    snprintf(id, sizeof id, "%s", str(r, "id"));
    cJSON_Delete(r);
    snprintf(p, sizeof p, "/api/reviews/%s", id);
    cJSON *s = poll_until(p, "running", false, 200, 50);
    ck_assert_msg(s, "the review did not end");
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(s, "error")));
    ck_assert_int_eq(cJSON_GetObjectItem(s, "done")->valueint, 6);
    cJSON *rv = cJSON_GetObjectItem(s, "review");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(rv, "turns")), 5);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(s, "positions")), 6);
    cJSON_Delete(s);
    snprintf(p, sizeof p, "/api/reviews/%s/stream", id);
    reply st = request("GET", p, NULL);
    ck_assert(st.status == 200 && strstr(st.body, "event: end"));
    free(st.raw);
    /* a review stopped by its deletion while it runs */
    r = expect("POST", "/api/reviews", "{\"moves\": \"Wd7,d1; Be1,e6; Bc3,f1; Bg2,f5; Bd6,c1\", \"time_ms\": 2000}", 202);
    snprintf(p, sizeof p, "/api/reviews/%s", str(r, "id"));
    cJSON_Delete(r);
    double t0 = mcts_now_s();
    cJSON_Delete(expect("DELETE", p, NULL, 200));
    ck_assert_msg(mcts_now_s() - t0 < 5, "deleting a running review took %.1f s", mcts_now_s() - t0);
    cJSON_Delete(expect("GET", p, NULL, 404));
    stop();
}
END_TEST

/* A review whose last view cannot be written (memory runs out) ends for its readers with a 500
 * and a message, and its stream ends: it does not say "running" for ever. */
START_TEST(review_whose_last_view_is_lost) {
    start(30);
    sv_review_test_lose_last_view(1);
    cJSON *r = expect("POST", "/api/reviews", "{\"moves\": \"Wd7,d1; Be1,e6\", \"sims\": 20}", 202);
    char p[128];
    snprintf(p, sizeof p, "/api/reviews/%s", str(r, "id"));
    cJSON_Delete(r);
    reply g = { 0 };
    for (int i = 0; i < 200; i++) {
        g = request("GET", p, NULL);
        if (g.status != 200) break;
        free(g.raw);
        g.raw = NULL;
        struct timespec ts = { 0, 50000000L };
        nanosleep(&ts, NULL);
    }
    ck_assert_msg(g.status == 500 && strstr(g.body, "ran out of memory"), "status %d: %s", g.status, g.raw ? g.body : "");
    free(g.raw);
    strncat(p, "/stream", sizeof p - strlen(p) - 1);
    reply st = request("GET", p, NULL);
    ck_assert_msg(st.status == 200 && strstr(st.body, "event: end") && strstr(st.body, "ran out of memory"), "%s", st.body);
    free(st.raw);
    sv_review_test_lose_last_view(0);
    stop();
}
END_TEST

START_TEST(idle_games_are_freed) {
    start(0.01);                                                  /* 0.6 s */
    cJSON *g = new_game("{}");
    char p[128];
    path_of(p, sizeof p, str(g, "id"), NULL);
    cJSON_Delete(g);
    struct timespec ts = { 2, 0 };
    nanosleep(&ts, NULL);
    cJSON_Delete(expect("GET", p, NULL, 404));
    cJSON *h = expect("GET", "/api/health", NULL, 200);
    ck_assert_int_eq(cJSON_GetObjectItem(h, "games")->valueint, 0);
    cJSON_Delete(h);
    /* a running review is not idle, however long nobody asks: idleness counts from its end */
    cJSON *r = expect("POST", "/api/reviews", "{\"moves\": \"Wd7,d1; Be1,e6; Bc3,f1\", \"time_ms\": 800}", 202);
    snprintf(p, sizeof p, "/api/reviews/%s", str(r, "id"));
    cJSON_Delete(r);
    nanosleep(&ts, NULL);                                         /* 2 s unasked, of ~3.2 s running */
    cJSON *v = poll_until(p, "running", false, 101, 100);
    ck_assert(v && !cJSON_IsTrue(cJSON_GetObjectItem(v, "running")));
    cJSON_Delete(v);
    nanosleep(&ts, NULL);
    cJSON_Delete(expect("GET", p, NULL, 404));                    /* ended, then idle: freed */
    stop();
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("server");
    TCase *t = tcase_create("api");
    tcase_set_timeout(t, 240);
    tcase_add_test(t, game_played_through);
    tcase_add_test(t, handicap_and_options);
    tcase_add_test(t, bad_requests_get_4xx);
    tcase_add_test(t, huge_body_is_refused);
    tcase_add_test(t, json_bodies_only);
    tcase_add_test(t, resign_mid_chain);
    tcase_add_test(t, page_files_only);
    tcase_add_test(t, thousand_requests_at_once);
    tcase_add_test(t, games_do_not_wait_for_each_other);
    tcase_add_test(t, hint_stream_and_stop);
    tcase_add_test(t, analyse_and_disconnect);
    tcase_add_test(t, analyses_are_limited);
    tcase_add_test(t, review_of_a_game);
    tcase_add_test(t, review_whose_last_view_is_lost);
    tcase_add_test(t, idle_games_are_freed);
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    return th_run(suite());
}
