/* reviews.c — reviews running on their own threads, with published progress (see reviews.h). */
#include "reviews.h"
#include "engine/json.h"
#include "games.h"
#include "mcts/clock.h"
#include "render/input.h"
#include "state.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct sv_review {
    sv_entry entry;                /* first: the registry's (id, references, last use) */
    pthread_t thread;
    atomic_int stop;
    zz_game game;
    ze_review_config cfg;
    mcts_agent *agent;
    char spec[600];
    cJSON *fixed;                  /* cells and positions: the same in every answer */
    pthread_mutex_t lock;          /* guards view */
    char *view;                    /* the review so far (JSON text) */
    atomic_int last_lost;          /* the review ended but its last view could not be written */
};

/* Tests: the review thread's last view is lost, as when memory runs out writing it. */
static atomic_int lose_last_view;
void sv_review_test_lose_last_view(int on) { atomic_store(&lose_last_view, on); }

struct sv_reviews {
    sv_registry reg;
    sv_config cfg;
};

static void review_free(sv_review *r) {
    atomic_store(&r->stop, 1);             /* the review searches in 100 ms slices: it ends soon */
    if (r->thread) pthread_join(r->thread, NULL);
    mcts_agent_free(r->agent);
    zz_game_free(&r->game);
    cJSON_Delete(r->fixed);
    pthread_mutex_destroy(&r->lock);
    free(r->view);
    free(r);
}

static void free_entry(sv_entry *e) { review_free((sv_review *)e); }

sv_reviews *sv_reviews_new(const sv_config *cfg) {
    sv_reviews *rs = calloc(1, sizeof *rs);
    if (!rs) return NULL;
    rs->cfg = *cfg;
    sv_registry_init(&rs->reg, SV_MAX_REVIEWS, cfg->idle_minutes * 60, free_entry);
    return rs;
}

void sv_reviews_free(sv_reviews *rs) {
    if (!rs) return;
    sv_registry_destroy(&rs->reg);
    free(rs);
}

int sv_reviews_count(sv_reviews *rs) { return sv_registry_count(&rs->reg); }
int sv_reviews_expire(sv_reviews *rs) { return sv_registry_expire(&rs->reg); }
sv_review *sv_review_get(sv_reviews *rs, const char *id) { return (sv_review *)sv_registry_get(&rs->reg, id); }
void sv_review_put(sv_reviews *rs, sv_review *r) { sv_registry_put(&rs->reg, &r->entry); }

int sv_review_delete(sv_reviews *rs, const char *id, cJSON **out) {
    int st = sv_registry_delete(&rs->reg, id);
    if (st == 404) *out = sv_error("no review '%.20s' (it may have expired)", id);
    else if (st == 409) *out = sv_error("the review is being read; try again");
    else { *out = cJSON_CreateObject(); cJSON_AddBoolToObject(*out, "ok", true); }
    return st;
}

/* ---- progress ----------------------------------------------------------------------------- */
static bool publish_text(sv_review *r, char *text) {
    if (!text) return false;
    pthread_mutex_lock(&r->lock);
    free(r->view);
    r->view = text;
    pthread_mutex_unlock(&r->lock);
    return true;
}

/* The answer for the review so far (the review thread, or the creator before it starts).  Whether
 * it was published (false: out of memory, the view before it stays). */
static bool publish(sv_review *r, const ze_review *rv, const char *error) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", r->entry.id);
    cJSON_AddBoolToObject(o, "running", atomic_load(&r->entry.working) != 0);
    cJSON_AddNumberToObject(o, "done", rv ? rv->done : 0);
    cJSON_AddNumberToObject(o, "total", rv && rv->total ? rv->total : r->game.nturns + !zz_over(&r->game.final));
    if (error) cJSON_AddStringToObject(o, "error", error);
    else cJSON_AddNullToObject(o, "error");
    cJSON_AddItemReferenceToObject(o, "cells", cJSON_GetObjectItem(r->fixed, "cells"));
    cJSON_AddItemReferenceToObject(o, "positions", cJSON_GetObjectItem(r->fixed, "positions"));
    if (rv && rv->turns) cJSON_AddItemToObject(o, "review", ze_review_json(&r->game, rv, &r->cfg, r->spec));
    else cJSON_AddNullToObject(o, "review");
    bool ok = publish_text(r, cJSON_PrintUnformatted(o));
    cJSON_Delete(o);
    return ok;
}

static void on_progress(const ze_review *rv, int turn, void *ctx) { publish(ctx, rv, NULL); }

static void *review_main(void *arg) {
    sv_review *r = arg;
    ze_review rv;
    char err[512];
    int rc = ze_review_game(r->agent, &r->game, &r->cfg, &r->stop, on_progress, r, &rv, err, sizeof err);
    atomic_store(&r->entry.working, 0);
    /* a lost last view would leave the view saying "running" for ever: readers are told instead */
    if (atomic_load(&lose_last_view) || !publish(r, &rv, rc ? err : NULL)) atomic_store(&r->last_lost, 1);
    ze_review_free(&rv);
    return NULL;
}

int sv_review_state(sv_review *r, cJSON **out, bool *running) {
    if (atomic_load(&r->last_lost)) {
        *running = false;
        *out = sv_error("the review ended, but the server ran out of memory writing its result; start it again");
        return 500;
    }
    pthread_mutex_lock(&r->lock);
    *out = r->view ? cJSON_Parse(r->view) : NULL;
    pthread_mutex_unlock(&r->lock);
    /* the view's own flag, not entry.working: the review thread clears that just before it
     * publishes its last view, so a reader between the two would end on a stale view */
    *running = *out ? cJSON_IsTrue(cJSON_GetObjectItem(*out, "running")) : atomic_load(&r->entry.working) != 0;
    if (!*out) { *out = sv_error("the review is not ready"); return 503; }
    return 200;
}

/* ---- creation ----------------------------------------------------------------------------- */
int sv_game_from_body(const cJSON *body, zz_game *g, cJSON **out) {
    const cJSON *sgf = cJSON_GetObjectItemCaseSensitive(body, "sgf"), *moves = cJSON_GetObjectItemCaseSensitive(body, "moves");
    const cJSON *rings = cJSON_GetObjectItemCaseSensitive(body, "rings");
    char err[512];
    zz_game_init(g, ZZ_B37);
    if (!cJSON_IsObject(body) || (!sgf == !moves)) { *out = sv_error("give the game as {\"sgf\": TEXT} or {\"moves\": TURNS, \"rings\": N}"); return 400; }
    if (sgf) {
        if (!cJSON_IsString(sgf)) { *out = sv_error("sgf must be a string"); return 400; }
        zz_game_free(g);
        if (zz_sgf_parse(sgf->valuestring, strlen(sgf->valuestring), g, err, sizeof err) != 0) { *out = sv_error("sgf: %s", err); return 400; }
        return 0;
    }
    int r = 0;
    if (rings && (!cJSON_IsNumber(rings) || !zz_board_for_rings(rings->valueint) || rings->valuedouble != rings->valueint)) { *out = sv_error("rings must be 37, 48 or 61"); return 400; }
    if (rings) r = rings->valueint;
    if (!cJSON_IsString(moves)) { *out = sv_error("moves must be a string of turns in notation"); return 400; }
    zz_game_free(g);
    if (rd_load_notation(moves->valuestring, r, g, err, sizeof err) != 0) { *out = sv_error("moves: %s", err); return 400; }
    return 0;
}

/* Cells and the position before each turn (and the final one). */
static cJSON *fixed_part(const zz_game *g) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "cells", sv_cells_json(g->board));
    cJSON *pos = cJSON_AddArrayToObject(o, "positions");
    zz_pos p = g->start;
    for (int i = 0; i <= g->nturns; i++) {
        cJSON_AddItemToArray(pos, sv_position_json(&p));
        for (int k = 0; i < g->nturns && k < g->turns[i].nmoves; k++) zz_apply(&p, g->turns[i].moves[k], NULL);
    }
    return o;
}

static int review_options(sv_review *r, const cJSON *body, cJSON **out) {
    ze_review_config_default(&r->cfg);
    int st = sv_parse_budget(body, 0, 1000, &r->cfg.sims, &r->cfg.time_ms, out);
    if (st) return st;
    if (r->cfg.time_ms > SV_MAX_REVIEW_MS) { *out = sv_error("time_ms per position is at most %.0f for a review", SV_MAX_REVIEW_MS); return 400; }
    const cJSON *th = cJSON_GetObjectItemCaseSensitive(body, "thresholds");
    if (th) {
        double t[3];
        if (!cJSON_IsArray(th) || cJSON_GetArraySize(th) != 3) { *out = sv_error("thresholds must be [inaccuracy, mistake, blunder]"); return 400; }
        for (int k = 0; k < 3; k++) {
            const cJSON *v = cJSON_GetArrayItem(th, k);
            t[k] = cJSON_IsNumber(v) ? v->valuedouble : -1;
        }
        if (!(t[0] > 0 && t[0] <= t[1] && t[1] <= t[2] && t[2] <= 1)) { *out = sv_error("thresholds need 0 < inaccuracy <= mistake <= blunder <= 1"); return 400; }
        memcpy(r->cfg.thresholds, t, sizeof t);
    }
    return 0;
}

int sv_review_create(sv_reviews *rs, const cJSON *body, cJSON **out) {
    sv_review *r = calloc(1, sizeof *r);
    if (!r) { *out = sv_error("out of memory"); return 503; }
    pthread_mutex_init(&r->lock, NULL);
    int st = sv_game_from_body(body, &r->game, out);
    if (!st) st = review_options(r, body, out);
    if (!st && r->game.nturns < 1) { st = 400; *out = sv_error("the game has no moves to review"); }
    if (!st && r->game.nturns > SV_MAX_REVIEW_TURNS) { st = 400; *out = sv_error("the game has %d turns; a review takes at most %d", r->game.nturns, SV_MAX_REVIEW_TURNS); }
    char err[512], path[1100];
    if (!st) {
        if (rs->cfg.agent) snprintf(r->spec, sizeof r->spec, "%s", rs->cfg.agent);
        else if (mcts_default_weights(r->game.board, path, sizeof path) == 0) snprintf(r->spec, sizeof r->spec, "puct:default:%llu", (unsigned long long)MCTS_PUCT_MAX_SIMS);
        else snprintf(r->spec, sizeof r->spec, "uct:%llu", (unsigned long long)MCTS_PUCT_MAX_SIMS);
        if (!(r->agent = mcts_agent_new(r->spec, rs->cfg.threads, err, sizeof err))) { st = 500; *out = sv_error("engine: %s", err); }
        else if (!mcts_agent_can_analyse(r->agent)) { st = 400; *out = sv_error("the server's engine (%s) cannot analyse", r->spec); }
    }
    if (!st && sv_reviews_count(rs) >= SV_MAX_REVIEWS) { st = 503; *out = sv_error("too many reviews at once (%d); try later", SV_MAX_REVIEWS); }
    if (st) { review_free(r); return st; }
    sv_registry_new_id(&rs->reg, &r->entry);
    r->fixed = fixed_part(&r->game);
    atomic_store(&r->entry.working, 1);
    publish(r, NULL, NULL);
    if (pthread_create(&r->thread, NULL, review_main, r) != 0) {
        r->thread = 0;
        review_free(r);
        *out = sv_error("cannot start the review");
        return 503;
    }
    if (!sv_registry_add(&rs->reg, &r->entry)) {
        review_free(r);
        *out = sv_error("too many reviews at once (%d); try later", SV_MAX_REVIEWS);
        return 503;
    }
    bool running;
    sv_review_state(r, out, &running);
    return 202;
}
