/* bench_serve.c — the web server's speed (make bench): how long requests that do not wait for the
 * engine take while another game's engine searches, and a review through the API against the
 * same review called directly (tools/analyse's path), at the same budget.
 *
 *   bench_serve [--requests N] [--sims N]
 *
 * Prints a Markdown table and the command. */
#include "cli.h"
#include "nn/omp_env.h"
#include "engine/review.h"
#include "mcts/clock.h"
#include "render/input.h"
#include "server/client.h"
#include "server/server.h"
#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdatomic.h>

static const char *const TOOL = "bench_serve";
static const char *const GAME = "Wd7,d1; Be1,e6; Bc3,f1; Bg2,f5; Bd6,c1; x d7Bd5; Wc2,e5; x c2Bc4; x d5Wb3; Bb5,c6";

static int port;
static atomic_int busy_stop;

static void usage(FILE *f) {
    fprintf(f, "usage: bench_serve [--requests N] [--sims N] [--gpu]\n"
               "The web server's latency while an engine searches, and a review through the API\n"
               "against the same review called directly.\n"
               "  --requests N   requests timed per row, 10..100000 (default 300)\n"
               "  --sims N       simulations per position of the review, 1..1000000 (default 2000)\n"
               "  --gpu          say that there is no GPU part (for make bench-gpu) and exit 0\n"
               "  -h, --help     this text\n");
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A JSON field of an answer as text (malloc'd), or NULL. */
static char *field(const sv_reply *r, const char *k) {
    cJSON *o = cJSON_Parse(r->body);
    const cJSON *v = cJSON_GetObjectItem(o, k);
    char *out = cJSON_IsString(v) ? strdup(v->valuestring) : NULL;
    cJSON_Delete(o);
    return out;
}

/* Another game whose engine searches all the time (both seats are the engine's). */
static void *keep_engine_busy(void *arg) {
    while (!atomic_load(&busy_stop)) {
        sv_reply r = sv_client_request(port, "POST", "/api/games", "{\"human\": null, \"time_ms\": 500}");
        char *id = field(&r, "id"), path[128];
        sv_reply_free(&r);
        if (!id) break;
        snprintf(path, sizeof path, "/api/games/%s/engine", id);
        for (int k = 0; k < 200 && !atomic_load(&busy_stop); k++) {
            r = sv_client_request(port, "POST", path, "{}");
            int st = r.status;
            sv_reply_free(&r);
            if (st != 200) break;
        }
        free(id);
    }
    return NULL;
}

/* Time n requests; with path2, every other one goes there instead (a move, then its undo).
 * Prints a table row. */
static void row2(const char *what, const char *method, const char *path, const char *body, const char *path2, int n) {
    double *t = malloc((size_t)n * sizeof *t);
    int ok = 0;
    for (int i = 0; i < n; i++) {
        double t0 = mcts_now_s();
        sv_reply r = path2 && i % 2 ? sv_client_request(port, method, path2, "{}") : sv_client_request(port, method, path, body);
        t[i] = 1000 * (mcts_now_s() - t0);
        ok += r.status >= 200 && r.status < 300;
        sv_reply_free(&r);
    }
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    printf("| %s | %d/%d | %.2f | %.2f | %.2f |\n", what, ok, n, t[n / 2], t[(int)(n * 0.99)], t[n - 1]);
    free(t);
}

static void row(const char *what, const char *method, const char *path, const char *body, int n) {
    row2(what, method, path, body, NULL, n);
}

static double review_direct(uint64_t sims) {
    char err[512];
    zz_game g;
    if (rd_load_notation(GAME, 37, &g, err, sizeof err) != 0) { fprintf(stderr, "zertz: %s: %s\n", TOOL, err); exit(1); }
    mcts_agent *a = mcts_agent_new("puct:default:2000000000", 2, err, sizeof err);
    ze_review_config c;
    ze_review_config_default(&c);
    c.sims = sims;
    c.time_ms = 0;
    ze_review r;
    double t0 = mcts_now_s();
    if (!a || ze_review_game(a, &g, &c, NULL, NULL, NULL, &r, err, sizeof err) != 0) { fprintf(stderr, "zertz: %s: %s\n", TOOL, err); exit(1); }
    double dt = mcts_now_s() - t0;
    ze_review_free(&r);
    mcts_agent_free(a);
    zz_game_free(&g);
    return dt;
}

static double review_api(uint64_t sims) {
    char body[512], path[128];
    snprintf(body, sizeof body, "{\"moves\": \"%s\", \"sims\": %llu}", GAME, (unsigned long long)sims);
    double t0 = mcts_now_s();
    sv_reply r = sv_client_request(port, "POST", "/api/reviews", body);
    char *id = field(&r, "id");
    sv_reply_free(&r);
    if (!id) { fprintf(stderr, "zertz: %s: the review did not start\n", TOOL); exit(1); }
    snprintf(path, sizeof path, "/api/reviews/%s", id);
    free(id);
    for (;;) {
        r = sv_client_request(port, "GET", path, NULL);
        bool running = strstr(r.body, "\"running\":true") != NULL;
        sv_reply_free(&r);
        if (!running) break;
        struct timespec ts = { 0, 20000000L };
        nanosleep(&ts, NULL);
    }
    return mcts_now_s() - t0;
}

int main(int argc, char **argv) {
    nn_omp_single_thread(argv);        /* the search's threads fill the cores: OpenMP on one (omp_env.h) */
    int n = 300;
    uint64_t sims = 2000;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) { usage(stdout); return 0; }
        else if (!strcmp(argv[i], "--requests")) { if (!cli_int_opt(TOOL, argc, argv, &i, 10, 100000, &n)) return 2; }
        else if (!strcmp(argv[i], "--sims")) { if (!cli_u64_opt(TOOL, argc, argv, &i, 1000000, &sims)) return 2; }
        else if (!strcmp(argv[i], "--gpu")) { printf("bench_serve: no GPU part (the server's engine runs on the CPU)\n"); return 0; }
        else return cli_unknown(TOOL, argv[i]);
    }
    if (sims == 0) return cli_bad(TOOL, "--sims", "at least 1");
    sv_config cfg;
    sv_config_default(&cfg);
    cfg.port = 0;
    cfg.quiet = true;
    char err[512];
    sv_server *s = sv_server_start(&cfg, err, sizeof err);
    if (!s) { fprintf(stderr, "zertz: %s: %s\n", TOOL, err); return 1; }
    port = sv_server_port(s);
    sv_reply r = sv_client_request(port, "POST", "/api/games", "{\"human\": null}");
    char *id = field(&r, "id"), state[128], move[128], undo[128];
    sv_reply_free(&r);
    if (!id) { fprintf(stderr, "zertz: %s: cannot create a game\n", TOOL); sv_server_stop(s); return 1; }
    snprintf(state, sizeof state, "/api/games/%s", id);
    snprintf(move, sizeof move, "/api/games/%s/move", id);
    snprintf(undo, sizeof undo, "/api/games/%s/undo", id);
    pthread_t busy;
    pthread_create(&busy, NULL, keep_engine_busy, NULL);
    struct timespec ts = { 0, 300000000L };
    nanosleep(&ts, NULL);
    printf("## tools/serve: requests that do not wait for the engine, while another game's engine searches\n\n");
    printf("| request | answered | median ms | p99 ms | max ms |\n|---|---|---|---|---|\n");
    row("GET /api/health", "GET", "/api/health", NULL, n);
    row("GET /api/games/ID (37-ring opening: ~1,700 legal moves)", "GET", state, NULL, n);
    row2("POST /api/games/ID/move, then /undo", "POST", move, "{\"move\": \"Wd4,a1\"}", undo, n);
    row("POST /api/games (a new game, its engine loaded)", "POST", "/api/games", "{}", n / 10);
    atomic_store(&busy_stop, 1);
    pthread_join(busy, NULL);
    double direct = review_direct(sims), api = review_api(sims);
    printf("\n## a 10-turn review at %llu simulations per position, 2 threads\n\n", (unsigned long long)sims);
    printf("| path | seconds | ratio |\n|---|---|---|\n| ze_review_game (tools/analyse) | %.2f | 1.00 |\n| POST /api/reviews, polled | %.2f | %.2f |\n",
           direct, api, api / direct);
    printf("\ncommand: tools/bench_serve --requests %d --sims %llu\n", n, (unsigned long long)sims);
    free(id);
    sv_server_stop(s);
    return 0;
}
