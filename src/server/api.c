/* api.c — the routes of API.md (see api.h). */
#include "api.h"
#include "engine/json.h"
#include "game/posstr.h"
#include "render/input.h"
#include <stdlib.h>
#include <string.h>

/* Split "/api/a/b/c" into at most 4 segments after "/api/"; returns the count, -1 if not /api. */
static int split_path(const char *path, char seg[4][64]) {
    if (strncmp(path, "/api/", 5) != 0) return -1;
    const char *p = path + 5;
    int n = 0;
    while (*p && n < 4) {
        size_t len = strcspn(p, "/");
        if (len == 0 || len >= 64) return -1;
        memcpy(seg[n], p, len);
        seg[n++][len] = 0;
        p += len;
        if (*p == '/') p++;
    }
    return *p ? -1 : n;
}

static void error(sv_answer *a, int status, const char *why) {
    a->status = status;
    a->json = sv_error("%s", why);
}

static cJSON *health(sv_api *api) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "ok", true);
    cJSON_AddNumberToObject(o, "games", sv_games_count(api->games));
    cJSON_AddNumberToObject(o, "reviews", sv_reviews_count(api->reviews));
    cJSON_AddNumberToObject(o, "analyses", atomic_load(&api->analysing));
    return o;
}

/* POST /api/analyse: the position reached by the body's game (or a zpos string), searched now. */
static int analyse(sv_api *api, const cJSON *body, cJSON **out) {
    uint64_t sims;
    double ms;
    int st = sv_parse_budget(body, 0, 1000, &sims, &ms, out);
    if (st) return st;
    zz_pos p;
    char err[512];
    const cJSON *pos = cJSON_GetObjectItemCaseSensitive(body, "position");
    if (pos) {
        if (!cJSON_IsString(pos) || zz_pos_from_string(pos->valuestring, &p, err, sizeof err) != 0) {
            *out = sv_error("position: %s", cJSON_IsString(pos) ? err : "expected a zpos:... string");
            return 400;
        }
    } else {
        zz_game g;
        st = sv_game_from_body(body, &g, out);
        p = g.final;
        zz_game_free(&g);
        if (st) return st;
    }
    if (zz_over(&p)) { *out = sv_error("the game is over in that position"); return 400; }
    if (atomic_fetch_add(&api->analysing, 1) >= SV_MAX_ANALYSES) {
        atomic_fetch_sub(&api->analysing, 1);
        *out = sv_error("%d analyses are running already: try again when one has ended", SV_MAX_ANALYSES);
        return 503;
    }
    const char *spec = api->cfg.agent ? api->cfg.agent : "puct:default:2000000000";
    ze_session *s = ze_session_new(spec, api->cfg.threads, 1, err, sizeof err);
    ze_search_info *info = malloc(sizeof *info);
    st = 200;
    if (!s || !info) { st = 500; *out = sv_error("engine: %s", s ? "out of memory" : err); }
    else if (ze_session_newgame(s, &p, err, sizeof err) != 0 || ze_session_analyse(s, sims, ms, info, err, sizeof err) != 0) {
        st = 400;
        *out = sv_error("analyse: %s", err);
    } else {
        *out = ze_search_json(info, ZE_TEMPERATURE, ZE_ROOT_MAX);
    }
    free(info);
    ze_session_free(s);
    atomic_fetch_sub(&api->analysing, 1);
    return st;
}

static void game_route(sv_api *api, const char *method, char seg[4][64], int n, const cJSON *body, sv_answer *a) {
    sv_game *g = sv_game_get(api->games, seg[1]);
    if (!g) { error(a, 404, "no such game (it may have expired)"); return; }
    bool post = !strcmp(method, "POST"), get = !strcmp(method, "GET");
    const char *act = n >= 3 ? seg[2] : "";
    if (n == 2 && get) a->status = sv_game_state(g, &a->json);
    else if (n == 2 && !strcmp(method, "DELETE")) { sv_game_put(api->games, g); a->status = sv_game_delete(api->games, seg[1], &a->json); return; }
    else if (n == 3 && post && !strcmp(act, "move")) a->status = sv_game_move(g, body, &a->json);
    else if (n == 3 && post && !strcmp(act, "engine")) a->status = sv_game_engine(g, body, &a->json);
    else if (n == 3 && post && !strcmp(act, "undo")) a->status = sv_game_undo(g, body, &a->json);
    else if (n == 3 && post && !strcmp(act, "resign")) a->status = sv_game_resign(g, &a->json);
    else if (n == 3 && get && !strcmp(act, "sgf")) {
        a->status = sv_game_sgf(g, &a->text, &a->json);
        a->type = "application/x-go-sgf";
        snprintf(a->filename, sizeof a->filename, "zertz-%s.sgf", seg[1]);
    }
    else if (n == 3 && post && !strcmp(act, "think")) a->status = sv_game_think_start(g, body, &a->json);
    else if (n == 3 && get && !strcmp(act, "think")) { bool r; a->status = sv_game_think_peek(g, &a->json, &r); }
    else if (n == 4 && post && !strcmp(act, "think") && !strcmp(seg[3], "stop")) a->status = sv_game_think_stop(g, &a->json);
    else if (n == 4 && get && !strcmp(act, "think") && !strcmp(seg[3], "stream")) {
        a->status = 200;
        a->stream = SV_STREAM_THINK;
        a->game = g;                               /* the stream keeps the reference */
        return;
    }
    else error(a, n >= 3 ? 404 : 405, "no such game action (API.md)");
    sv_game_put(api->games, g);
}

static void review_route(sv_api *api, const char *method, char seg[4][64], int n, sv_answer *a) {
    if (n == 2 && !strcmp(method, "DELETE")) { a->status = sv_review_delete(api->reviews, seg[1], &a->json); return; }
    sv_review *r = sv_review_get(api->reviews, seg[1]);
    if (!r) { error(a, 404, "no such review (it may have expired)"); return; }
    bool running;
    if (n == 2 && !strcmp(method, "GET")) a->status = sv_review_state(r, &a->json, &running);
    else if (n == 3 && !strcmp(method, "GET") && !strcmp(seg[2], "stream")) {
        a->status = 200;
        a->stream = SV_STREAM_REVIEW;
        a->review = r;
        return;
    }
    else error(a, 404, "no such review action (API.md)");
    sv_review_put(api->reviews, r);
}

void sv_api_handle(sv_api *api, const char *method, const char *path, const cJSON *body,
                   const char *body_error, sv_answer *a) {
    memset(a, 0, sizeof *a);
    char seg[4][64];
    int n = split_path(path, seg);
    bool post = !strcmp(method, "POST");
    if (n < 1) { error(a, 404, "no such endpoint (API.md)"); return; }
    if (post && body_error) { error(a, 400, body_error); return; }
    if (post && body && !cJSON_IsObject(body)) { error(a, 400, "the body must be a JSON object"); return; }
    if (n == 1 && !strcmp(seg[0], "health") && !strcmp(method, "GET")) { a->status = 200; a->json = health(api); }
    else if (n == 1 && !strcmp(seg[0], "games") && post) a->status = sv_game_create(api->games, body, &a->json);
    else if (n >= 2 && !strcmp(seg[0], "games")) game_route(api, method, seg, n, body, a);
    else if (n == 1 && !strcmp(seg[0], "analyse") && post) a->status = analyse(api, body, &a->json);
    else if (n == 1 && !strcmp(seg[0], "reviews") && post) a->status = sv_review_create(api->reviews, body, &a->json);
    else if (n >= 2 && !strcmp(seg[0], "reviews")) review_route(api, method, seg, n, a);
    else if (n == 1 && (!strcmp(seg[0], "games") || !strcmp(seg[0], "analyse") || !strcmp(seg[0], "reviews") || !strcmp(seg[0], "health")))
        error(a, 405, "method not allowed here (API.md)");
    else error(a, 404, "no such endpoint (API.md)");
}

bool sv_api_stream_next(sv_api *api, sv_answer *a, char **data) {
    cJSON *o = NULL;
    bool running = false;
    if (a->stream == SV_STREAM_THINK) sv_game_think_peek(a->game, &o, &running);
    else if (a->stream == SV_STREAM_REVIEW) sv_review_state(a->review, &o, &running);
    *data = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return running;
}

void sv_answer_free(sv_api *api, sv_answer *a) {
    cJSON_Delete(a->json);
    free(a->text);
    if (a->game) sv_game_put(api->games, a->game);
    if (a->review) sv_review_put(api->reviews, a->review);
    memset(a, 0, sizeof *a);
}
