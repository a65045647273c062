/* fuzz_api.c — libFuzzer target: the web server's JSON requests (sv_api_handle,
 * src/server/api.h): a method, a path and a body parsed by cJSON as http.c does, on a fresh
 * server state (sv_games_new / sv_reviews_new) whose engine is "random" or "uct:20".
 *
 * Input: one selector byte (bit 0: the engine, "uct:20" or "random"), then up to 8 requests,
 * one per line: "METHOD PATH" or "METHOD PATH BODY" (BODY: the rest of the line).  In PATH, '@'
 * stands for the id of the last game created and '%' for the last review's, so that requests can
 * reach a game.  Every answer must have a status and JSON (or text), and is freed; an event
 * stream is read for up to 3 events.  Budgets in a body are cut to at most 20 simulations or
 * 5 ms (and "sims": 20 is added where a body gives none), so that a run stays fast: the
 * engine's speed is not what is fuzzed. */
#include "fuzz.h"
#include "server/api.h"
#include <cjson/cJSON.h>

/* Keep a body's budget small (see the header). */
static void api_cap_budget(cJSON *body) {
    if (!cJSON_IsObject(body)) return;
    cJSON *t = cJSON_GetObjectItemCaseSensitive(body, "time_ms"), *s = cJSON_GetObjectItemCaseSensitive(body, "sims");
    if (cJSON_IsNumber(t) && t->valuedouble > 5) cJSON_SetNumberValue(t, 5);
    if (cJSON_IsNumber(s) && s->valuedouble > 20) cJSON_SetNumberValue(s, 20);
    if (!t && !s) cJSON_AddNumberToObject(body, "sims", 20);
}

/* PATH with '@' and '%' replaced by the ids (see the header), into out (n bytes). */
static void api_expand_path(const char *path, const char *game, const char *review, char *out, size_t n) {
    size_t k = 0;
    for (const char *p = path; *p && k + 17 < n; p++) {
        const char *id = *p == '@' ? game : *p == '%' ? review : NULL;
        if (id) k += (size_t)snprintf(out + k, n - k, "%s", id);
        else out[k++] = *p;
    }
    out[k] = 0;
}

/* Remember the id of a game or review just created. */
static void api_note_id(const char *path, const sv_answer *a, char *game, char *review) {
    const cJSON *id = a->json ? cJSON_GetObjectItemCaseSensitive(a->json, "id") : NULL;
    if (!cJSON_IsString(id) || strlen(id->valuestring) >= 16) return;
    if (!strcmp(path, "/api/games")) snprintf(game, 16, "%s", id->valuestring);
    else if (!strcmp(path, "/api/reviews")) snprintf(review, 16, "%s", id->valuestring);
}

static void api_request(sv_api *api, char *line, char *game, char *review) {
    char *sp = strchr(line, ' ');
    if (!sp) return;
    *sp = 0;
    char *path = sp + 1, *bodytext = strchr(path, ' ');
    if (bodytext) *bodytext++ = 0;
    char full[512];
    api_expand_path(path, game, review, full, sizeof full);
    cJSON *body = NULL;
    const char *body_error = NULL;
    if (bodytext && *bodytext) {
        body = cJSON_ParseWithLength(bodytext, strlen(bodytext));
        if (!body) body_error = "the body is not valid JSON";
        else api_cap_budget(body);
    }
    sv_answer a;
    sv_api_handle(api, line, full, body, body_error, &a);
    FZ_ASSERT(a.status >= 200 && a.status < 600, "status %d", a.status);
    FZ_ASSERT(a.json || a.text || a.stream, "%s %s: an answer with nothing in it", line, full);
    if (a.json) {
        char *printed = cJSON_PrintUnformatted(a.json);
        FZ_ASSERT(printed != NULL, "an answer that does not print");
        free(printed);
    }
    for (int k = 0; a.stream && k < 3; k++) {
        char *data = NULL;
        bool more = sv_api_stream_next(api, &a, &data);
        free(data);
        if (!more) break;
    }
    if (a.status / 100 == 2) api_note_id(full, &a, game, review);
    sv_answer_free(api, &a);
    cJSON_Delete(body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    sv_api api;
    memset(&api, 0, sizeof api);
    sv_config_default(&api.cfg);
    api.cfg.agent = fz_take_byte(&data, &size) & 1 ? "uct:20" : "random";
    api.cfg.threads = 1;
    api.cfg.quiet = true;
    api.games = sv_games_new(&api.cfg);
    api.reviews = sv_reviews_new(&api.cfg);
    FZ_ASSERT(api.games && api.reviews, "out of memory");
    char *text = fz_cstr(data, size), game[16] = "00000000", review[16] = "00000000";
    char *line = text;
    for (int n = 0; line && n < 8; n++) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = 0;
        api_request(&api, line, game, review);
        line = nl ? nl + 1 : NULL;
    }
    free(text);
    sv_reviews_free(api.reviews);
    sv_games_free(api.games);
    return 0;
}
