/* games.c — the server's games: registry, state and the API's game actions (see games.h). */
#include "games.h"
#include "game/handicap.h"
#include "game/notation.h"
#include "mcts/clock.h"
#include "state.h"
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sv_game {
    sv_entry entry;                /* first: the registry's (id, references, last use) */
    pthread_mutex_t lock;          /* the session: one request at a time */
    atomic_int thinking;           /* the engine is choosing a turn (lock held meanwhile) */
    ze_session *session;
    int human;                     /* the person's seat, -1 for both */
    char level[16];
    uint64_t sims;                 /* the engine's budget per decision */
    double time_ms;
    bool handicap;
    bool resigned;                 /* the player to move resigned (the session's game is not over) */
    char names[2][64];
    pthread_mutex_t view_lock;     /* guards view */
    char *view;                    /* the last published state (JSON text) */
};

struct sv_games {
    sv_registry reg;
    sv_config cfg;
};

cJSON *sv_error(const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "error", msg);
    return o;
}

/* ---- registry ----------------------------------------------------------------------------- */
static void game_free(sv_game *g) {
    ze_session_free(g->session);
    pthread_mutex_destroy(&g->lock);
    pthread_mutex_destroy(&g->view_lock);
    free(g->view);
    free(g);
}

static void free_entry(sv_entry *e) { game_free((sv_game *)e); }

sv_games *sv_games_new(const sv_config *cfg) {
    sv_games *gs = calloc(1, sizeof *gs);
    if (!gs) return NULL;
    gs->cfg = *cfg;
    sv_registry_init(&gs->reg, SV_MAX_GAMES, cfg->idle_minutes * 60, free_entry);
    return gs;
}

void sv_games_free(sv_games *gs) {
    if (!gs) return;
    sv_registry_destroy(&gs->reg);
    free(gs);
}

int sv_games_count(sv_games *gs) { return sv_registry_count(&gs->reg); }
int sv_games_expire(sv_games *gs) { return sv_registry_expire(&gs->reg); }
sv_game *sv_game_get(sv_games *gs, const char *id) { return (sv_game *)sv_registry_get(&gs->reg, id); }
void sv_game_put(sv_games *gs, sv_game *g) { sv_registry_put(&gs->reg, &g->entry); }

int sv_game_delete(sv_games *gs, const char *id, cJSON **out) {
    int st = sv_registry_delete(&gs->reg, id);
    if (st == 404) *out = sv_error("no game '%.20s' (it may have expired)", id);
    else if (st == 409) *out = sv_error("the game is in use; try again");
    else { *out = cJSON_CreateObject(); cJSON_AddBoolToObject(*out, "ok", true); }
    return st;
}

/* ---- state -------------------------------------------------------------------------------- */
static const char *const COLOUR_NAME[3] = { "white", "grey", "black" };

static void result_text(const sv_game *g, const zz_pos *p, char *out, size_t n) {
    int mover = p->to_move;
    if (g->resigned) { snprintf(out, n, "%s resigned: %s wins", g->names[mover], g->names[1 - mover]); return; }
    if (!zz_over(p)) { out[0] = 0; return; }
    if (p->winner < 0) { snprintf(out, n, "Draw"); return; }
    const uint8_t *c = p->cap[p->winner];
    if (p->end == ZZ_END_NO_MOVE) { snprintf(out, n, "%s wins: %s has no move", g->names[p->winner], g->names[1 - p->winner]); return; }
    for (int k = 0; k < 3; k++)
        if (c[k] >= ZZ_WIN_EACH[k]) {
            snprintf(out, n, "%s wins: %d %s captured", g->names[p->winner], c[k], COLOUR_NAME[k]);
            return;
        }
    snprintf(out, n, "%s wins: %d of each colour captured", g->names[p->winner], ZZ_WIN_ALL);
}

/* The state of the game (API.md); the caller holds g->lock. */
static cJSON *build_state(const sv_game *g) {
    const zz_pos *p = ze_session_position(g->session);
    const zz_move *moves;
    int n = ze_session_history(g->session, &moves), pending = 0;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", g->entry.id);
    cJSON_AddNumberToObject(o, "rings", zz_pos_board(p)->rings);
    cJSON_AddStringToObject(o, "variant", g->handicap ? ZZ_VARIANT_HANDICAP : zz_pos_board(p)->variant);
    if (g->human >= 0) cJSON_AddNumberToObject(o, "human", g->human);
    else cJSON_AddNullToObject(o, "human");
    cJSON_AddStringToObject(o, "level", g->level);
    cJSON_AddNumberToObject(o, "time_ms", g->time_ms);
    cJSON_AddNumberToObject(o, "sims", (double)g->sims);
    cJSON *names = cJSON_AddArrayToObject(o, "players");
    for (int k = 0; k < 2; k++) cJSON_AddItemToArray(names, cJSON_CreateString(g->names[k]));
    cJSON_AddItemToObject(o, "cells", sv_cells_json((zz_board_kind)p->board));
    sv_add_position(o, p);
    bool over = zz_over(p) || g->resigned;
    if (over) cJSON_AddArrayToObject(o, "legal");
    else cJSON_AddItemToObject(o, "legal", sv_legal_json(p));
    zz_game rec;
    char err[256];
    cJSON *turns = cJSON_AddArrayToObject(o, "turns");
    if (sv_build_record(ze_session_start(g->session), moves, n, &rec, &pending, err, sizeof err) == 0) {
        for (int i = 0; i < rec.nturns; i++) {
            cJSON *t = cJSON_CreateObject();
            cJSON_AddNumberToObject(t, "player", rec.turns[i].player);
            cJSON_AddStringToObject(t, "text", rec.turns[i].text);
            cJSON_AddItemToArray(turns, t);
        }
        cJSON_AddItemToObject(o, "last", sv_last_turn_json(&rec));
    } else {
        cJSON_AddNullToObject(o, "last");
    }
    zz_game_free(&rec);
    cJSON_AddNumberToObject(o, "ply", n);
    cJSON_AddBoolToObject(o, "over", over);
    int winner = g->resigned ? 1 - p->to_move : zz_over(p) ? p->winner : -1;
    if (winner >= 0) cJSON_AddNumberToObject(o, "winner", winner);
    else cJSON_AddNullToObject(o, "winner");
    const char *end = g->resigned ? "resign" : !zz_over(p) ? NULL : p->winner < 0 ? "draw" :
                      p->end == ZZ_END_NO_MOVE ? "no_move" : "captures";
    if (end) cJSON_AddStringToObject(o, "end", end);
    else cJSON_AddNullToObject(o, "end");
    char res[200];
    result_text(g, p, res, sizeof res);
    cJSON_AddStringToObject(o, "result", res);
    cJSON_AddBoolToObject(o, "thinking", atomic_load(&g->thinking) != 0);
    return o;
}

/* Publish the state for readers that must not wait (the caller holds g->lock). */
static void publish(sv_game *g, const cJSON *state) {
    char *text = cJSON_PrintUnformatted(state);
    if (!text) return;
    pthread_mutex_lock(&g->view_lock);
    free(g->view);
    g->view = text;
    pthread_mutex_unlock(&g->view_lock);
}

/* The state as the answer, published too (the caller holds g->lock). */
static int state_answer(sv_game *g, int status, cJSON **out) {
    *out = build_state(g);
    publish(g, *out);
    return status;
}

int sv_game_state(sv_game *g, cJSON **out) {
    pthread_mutex_lock(&g->view_lock);
    *out = g->view ? cJSON_Parse(g->view) : NULL;
    pthread_mutex_unlock(&g->view_lock);
    if (!*out) { *out = sv_error("the game's state is not ready"); return 503; }
    cJSON_ReplaceItemInObject(*out, "thinking", cJSON_CreateBool(atomic_load(&g->thinking) != 0));
    return 200;
}

/* Take the game's lock for a change: 409 (with *out) while the engine thinks. */
static int lock_for_change(sv_game *g, cJSON **out) {
    if (atomic_load(&g->thinking)) { *out = sv_error("the engine is choosing its turn in this game; wait for it"); return 409; }
    pthread_mutex_lock(&g->lock);
    if (atomic_load(&g->thinking)) {
        pthread_mutex_unlock(&g->lock);
        *out = sv_error("the engine is choosing its turn in this game; wait for it");
        return 409;
    }
    return 0;
}

/* ---- actions ------------------------------------------------------------------------------ */
int sv_parse_budget(const cJSON *body, uint64_t def_sims, double def_ms, uint64_t *sims, double *ms, cJSON **out) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(body, "time_ms"), *s = cJSON_GetObjectItemCaseSensitive(body, "sims");
    *sims = def_sims;
    *ms = def_ms;
    if (t && s) { *out = sv_error("give time_ms or sims, not both"); return 400; }
    if (t) {
        if (!cJSON_IsNumber(t) || !(t->valuedouble >= 1 && t->valuedouble <= SV_MAX_TIME_MS)) { *out = sv_error("time_ms must be a number from 1 to %.0f", SV_MAX_TIME_MS); return 400; }
        *ms = t->valuedouble;
        *sims = 0;
    }
    if (s) {
        if (!cJSON_IsNumber(s) || !(s->valuedouble >= 1 && s->valuedouble <= (double)SV_MAX_SIMS) || s->valuedouble != floor(s->valuedouble)) {
            *out = sv_error("sims must be a whole number from 1 to %llu", (unsigned long long)SV_MAX_SIMS);
            return 400;
        }
        *sims = (uint64_t)s->valuedouble;
        *ms = 0;
    }
    return 0;
}

typedef struct { const char *name; uint64_t sims; double ms; } level_def;
static const level_def LEVELS[] = { { "quick", 64, 0 }, { "casual", 0, 300 }, { "strong", 0, 1000 }, { "full", 0, 5000 } };

/* Fill the new game's options from the body; 0, or a 400 with *out. */
static int game_options(sv_game *g, const cJSON *body, zz_pos *start, cJSON **out) {
    const cJSON *rings = cJSON_GetObjectItemCaseSensitive(body, "rings"), *human = cJSON_GetObjectItemCaseSensitive(body, "human");
    const cJSON *level = cJSON_GetObjectItemCaseSensitive(body, "level"), *hc = cJSON_GetObjectItemCaseSensitive(body, "handicap");
    int r = 37;
    if (rings && (!cJSON_IsNumber(rings) || !zz_board_for_rings(rings->valueint) || rings->valuedouble != rings->valueint)) { *out = sv_error("rings must be 37, 48 or 61"); return 400; }
    if (rings) r = rings->valueint;
    zz_pos_init(start, zz_board_for_rings(r)->kind);
    g->human = 0;
    if (human && cJSON_IsNull(human)) g->human = -1;
    else if (human && (!cJSON_IsNumber(human) || (human->valuedouble != 0 && human->valuedouble != 1))) { *out = sv_error("human must be 0 (first), 1 (second) or null (both seats)"); return 400; }
    else if (human) g->human = human->valueint;
    const level_def *lv = &LEVELS[2];
    if (level) {
        lv = NULL;
        for (size_t i = 0; cJSON_IsString(level) && i < sizeof LEVELS / sizeof *LEVELS; i++)
            if (!strcmp(level->valuestring, LEVELS[i].name)) lv = &LEVELS[i];
        if (!lv) { *out = sv_error("level must be quick, casual, strong or full"); return 400; }
    }
    snprintf(g->level, sizeof g->level, "%s", lv->name);
    int st = sv_parse_budget(body, lv->sims, lv->ms, &g->sims, &g->time_ms, out);
    if (st) return st;
    if (cJSON_GetObjectItemCaseSensitive(body, "time_ms") || cJSON_GetObjectItemCaseSensitive(body, "sims")) snprintf(g->level, sizeof g->level, "custom");
    if (hc) {
        zz_handicap h;
        char err[256];
        if (!cJSON_IsString(hc) || zz_handicap_parse(hc->valuestring, &h, err, sizeof err) != 0 || zz_handicap_apply(start, &h, err, sizeof err) != 0) {
            *out = sv_error("handicap: %s", cJSON_IsString(hc) ? err : "expected a string P:W,G,B");
            return 400;
        }
        g->handicap = true;
    }
    for (int k = 0; k < 2; k++)
        snprintf(g->names[k], sizeof g->names[k], "%s", g->human < 0 ? (k ? "Player 2" : "Player 1") : g->human == k ? "You" : "Engine");
    return 0;
}

int sv_game_create(sv_games *gs, const cJSON *body, cJSON **out) {
    if (body && !cJSON_IsObject(body)) { *out = sv_error("the body must be a JSON object"); return 400; }
    sv_game *g = calloc(1, sizeof *g);
    if (!g) { *out = sv_error("out of memory"); return 503; }
    pthread_mutex_init(&g->lock, NULL);
    pthread_mutex_init(&g->view_lock, NULL);
    zz_pos start;
    int st = game_options(g, body, &start, out);
    if (st) { game_free(g); return st; }
    char err[512], spec[600], path[1100];
    if (gs->cfg.agent) snprintf(spec, sizeof spec, "%s", gs->cfg.agent);
    else if (mcts_default_weights((zz_board_kind)start.board, path, sizeof path) == 0) snprintf(spec, sizeof spec, "%s", MCTS_DEFAULT_PLAYER);
    else snprintf(spec, sizeof spec, "%s", MCTS_FALLBACK_PLAYER);
    if (sv_games_count(gs) >= SV_MAX_GAMES) { game_free(g); *out = sv_error("too many games at once (%d); try later", SV_MAX_GAMES); return 503; }
    sv_registry_new_id(&gs->reg, &g->entry);
    if (!(g->session = ze_session_new(spec, gs->cfg.threads, strtoull(g->entry.id, NULL, 16), err, sizeof err)) ||
        ze_session_newgame(g->session, &start, err, sizeof err) != 0) {
        game_free(g);
        *out = sv_error("engine: %s", err);
        return 500;
    }
    pthread_mutex_lock(&g->lock);
    state_answer(g, 201, out);
    pthread_mutex_unlock(&g->lock);
    if (!sv_registry_add(&gs->reg, &g->entry)) {
        game_free(g);
        cJSON_Delete(*out);
        *out = sv_error("too many games at once (%d); try later", SV_MAX_GAMES);
        return 503;
    }
    return 201;
}

static bool game_over(const sv_game *g) { return g->resigned || zz_over(ze_session_position(g->session)); }

int sv_game_move(sv_game *g, const cJSON *body, cJSON **out) {
    const cJSON *mv = cJSON_GetObjectItemCaseSensitive(body, "move");
    if (!cJSON_IsString(mv) || !*mv->valuestring) { *out = sv_error("expected {\"move\": \"Wd4,a1\"}"); return 400; }
    int st = lock_for_change(g, out);
    if (st) return st;
    const zz_pos *p = ze_session_position(g->session);
    zz_move moves[ZZ_MAX_CHAIN];
    char e1[256], e2[256], err[256];
    int n = 0;
    if (game_over(g)) { st = 409; *out = sv_error("the game is over"); goto done; }
    if (zz_move_from_text(p, mv->valuestring, &moves[0], e1, sizeof e1) == 0) n = 1;
    else if ((n = zz_turn_from_text(p, mv->valuestring, moves, NULL, e2, sizeof e2)) <= 0) {
        st = 400;
        *out = sv_error("illegal or malformed move '%.100s': %s", mv->valuestring, e1);
        goto done;
    }
    for (int i = 0; i < n; i++)
        if (ze_session_play(g->session, moves[i], err, sizeof err) != 0) { st = 400; *out = sv_error("move: %s", err); goto done; }
    st = state_answer(g, 200, out);
done:
    pthread_mutex_unlock(&g->lock);
    return st;
}

int sv_game_engine(sv_game *g, const cJSON *body, cJSON **out) {
    uint64_t sims;
    double ms;
    int st = sv_parse_budget(body, g->sims, g->time_ms, &sims, &ms, out);
    if (st) return st;
    if ((st = lock_for_change(g, out))) return st;
    if (game_over(g)) { pthread_mutex_unlock(&g->lock); *out = sv_error("the game is over"); return 409; }
    atomic_store(&g->thinking, 1);
    cJSON *view = build_state(g);
    publish(g, view);
    cJSON_Delete(view);
    zz_pos before = *ze_session_position(g->session);
    zz_move played[ZZ_MAX_CHAIN];
    int n = 0, mover = before.to_move;
    char err[256];
    st = 200;
    while (n < ZZ_MAX_CHAIN && !zz_over(ze_session_position(g->session)) && ze_session_position(g->session)->to_move == mover &&
           (n == 0 || ze_session_position(g->session)->chain != ZZ_NO_CELL)) {
        zz_move m;
        uint64_t s = n ? (sims + 3) / 4 : sims;          /* a chain's later jumps: a quarter */
        double t = n ? ms / 4 : ms;
        if (ze_session_bestmove(g->session, s, t, &m, err, sizeof err) != 0 || ze_session_play(g->session, m, err, sizeof err) != 0) {
            st = 500;
            break;
        }
        played[n++] = m;
    }
    atomic_store(&g->thinking, 0);
    if (st == 200) {
        state_answer(g, 200, out);
        char text[ZZ_NOTATION_MAX];
        zz_turn_to_text(&before, played, n, text);
        cJSON_AddStringToObject(*out, "engine_turn", text);
    } else {
        *out = sv_error("engine: %s", err);
        cJSON *view2 = build_state(g);
        publish(g, view2);
        cJSON_Delete(view2);
    }
    pthread_mutex_unlock(&g->lock);
    return st;
}

int sv_game_undo(sv_game *g, const cJSON *body, cJSON **out) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(body, "turns");
    int want = 1;
    if (t && (!cJSON_IsNumber(t) || t->valuedouble < 1 || t->valuedouble > 4096 || t->valuedouble != t->valueint)) { *out = sv_error("turns must be a whole number from 1"); return 400; }
    if (t) want = t->valueint;
    int st = lock_for_change(g, out);
    if (st) return st;
    if (g->resigned) { g->resigned = false; want--; }
    if (want == 0) { st = state_answer(g, 200, out); goto done; }      /* only the resignation */
    const zz_move *moves;
    int n = ze_session_history(g->session, &moves), pending;
    zz_game rec;
    char err[256];
    if (sv_build_record(ze_session_start(g->session), moves, n, &rec, &pending, err, sizeof err) != 0) { st = 500; *out = sv_error("%s", err); goto done; }
    int take = pending, turns = rec.nturns + (pending > 0);
    if (want > turns) { st = 400; *out = sv_error("only %d turns to take back", turns); zz_game_free(&rec); goto done; }
    for (int k = 0, i = rec.nturns - 1; k < want - (pending > 0); k++, i--) take += rec.turns[i].nmoves;
    zz_game_free(&rec);
    if (take > 0 && ze_session_undo(g->session, take, err, sizeof err) != 0) { st = 500; *out = sv_error("undo: %s", err); goto done; }
    st = state_answer(g, 200, out);
done:
    pthread_mutex_unlock(&g->lock);
    return st;
}

int sv_game_resign(sv_game *g, cJSON **out) {
    int st = lock_for_change(g, out);
    if (st) return st;
    if (game_over(g)) { st = 409; *out = sv_error("the game is over"); }
    else {
        ze_search_stop(g->session, NULL);
        g->resigned = true;
        st = state_answer(g, 200, out);
    }
    pthread_mutex_unlock(&g->lock);
    return st;
}

/* rec ended by its mover's resignation, after the first `pending` jumps of a chain (none: between
 * turns): the final position counts them (RULES.md §5.10), and the SGF writes them before the
 * Resign (zz_part_turn). */
static void resigned_record(zz_game *rec, const zz_move *jumps, int pending) {
    memset(&rec->unfinished, 0, sizeof rec->unfinished);
    for (int i = 0; i < pending && i < ZZ_MAX_CHAIN; i++) {
        rec->unfinished.jumps[rec->unfinished.njumps++] = jumps[i];
        zz_apply(&rec->final, jumps[i], NULL);
    }
    rec->final.chain = ZZ_NO_CELL;
    zz_resign(&rec->final);
    rec->end = ZZ_END_RESIGN;
    rec->winner = rec->final.winner;
}

int sv_game_sgf(sv_game *g, char **sgf, cJSON **out) {
    *sgf = NULL;
    int st = lock_for_change(g, out);
    if (st) return st;
    const zz_move *moves;
    int n = ze_session_history(g->session, &moves), pending;
    zz_game rec;
    char err[256];
    size_t len = 0;
    FILE *f = NULL;
    if (sv_build_record(ze_session_start(g->session), moves, n, &rec, &pending, err, sizeof err) != 0) { st = 500; *out = sv_error("%s", err); goto done; }
    if (g->handicap) snprintf(rec.variant, sizeof rec.variant, "%s", ZZ_VARIANT_HANDICAP);
    for (int k = 0; k < 2; k++) snprintf(rec.player_name[k], sizeof rec.player_name[k], "%s", g->names[k]);
    snprintf(rec.game_name, sizeof rec.game_name, "zertz-%s", g->entry.id);
    if (g->resigned) {
        resigned_record(&rec, moves + n - pending, pending);
    } else if (zz_over(&rec.final)) { rec.end = (zz_end)rec.final.end; rec.winner = rec.final.winner; }
    if (!(f = open_memstream(sgf, &len)) || zz_sgf_write(f, &rec) != 0) { st = 500; *out = sv_error("cannot write the SGF"); }
    if (f) fclose(f);
    zz_game_free(&rec);
    if (st == 0) st = 200;
done:
    pthread_mutex_unlock(&g->lock);
    return st;
}

/* ---- thinking (hints) --------------------------------------------------------------------- */
int sv_game_think_start(sv_game *g, const cJSON *body, cJSON **out) {
    uint64_t sims;
    double ms;
    int st = sv_parse_budget(body, 0, 10000, &sims, &ms, out);
    if (st) return st;
    if ((st = lock_for_change(g, out))) return st;
    char err[256];
    if (game_over(g)) { st = 409; *out = sv_error("the game is over"); }
    else if (ze_search_start(g->session, sims, ms, err, sizeof err) != 0) { st = 400; *out = sv_error("think: %s", err); }
    pthread_mutex_unlock(&g->lock);
    if (st) return st;
    bool running;
    sv_game_think_peek(g, out, &running);
    return 202;
}

int sv_game_think_peek(sv_game *g, cJSON **out, bool *running) {
    ze_search_info *info = malloc(sizeof *info);
    *running = false;
    if (!info) { *out = sv_error("out of memory"); return 503; }
    int st = 200;
    if (!ze_search_peek(g->session, info)) { st = 404; *out = sv_error("no search was started in this position"); }
    else { *out = ze_search_json(info, ZE_TEMPERATURE, ZE_ROOT_MAX); *running = info->running; }
    free(info);
    return st;
}

int sv_game_think_stop(sv_game *g, cJSON **out) {
    int st = lock_for_change(g, out);
    if (st) return st;
    ze_search_info *info = malloc(sizeof *info);
    if (!info) st = 503, *out = sv_error("out of memory");
    else if (!ze_search_stop(g->session, info) && !ze_search_peek(g->session, info)) st = 404, *out = sv_error("no search to stop");
    else st = 200, *out = ze_search_json(info, ZE_TEMPERATURE, ZE_ROOT_MAX);
    free(info);
    pthread_mutex_unlock(&g->lock);
    return st;
}
