/* json.c — review and search results as JSON (see json.h). */
#include "json.h"
#include <math.h>

cJSON *ze_json_number(double v) { return isnan(v) || isinf(v) ? cJSON_CreateNull() : cJSON_CreateNumber(v); }

static void add_number(cJSON *o, const char *k, double v) { cJSON_AddItemToObject(o, k, ze_json_number(v)); }

static cJSON *turn_json(const ze_review_turn *t, int index) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "turn", index + 1);
    cJSON_AddNumberToObject(o, "player", t->player);
    cJSON_AddStringToObject(o, "played", t->played);
    cJSON_AddStringToObject(o, "best", t->best);
    cJSON_AddBoolToObject(o, "is_best", t->is_best);
    cJSON_AddBoolToObject(o, "forced", t->forced);
    cJSON_AddBoolToObject(o, "better", t->better);
    add_number(o, "wp_before", t->wp_before);
    add_number(o, "value_best", t->value_best);
    add_number(o, "value_before", t->value_before);
    add_number(o, "value_played", t->value_played);
    add_number(o, "wp_played", t->wp_played);
    if (t->value_from) cJSON_AddStringToObject(o, "value_from", ZE_FROM_NAMES[t->value_from]);
    else cJSON_AddNullToObject(o, "value_from");
    add_number(o, "loss", t->loss);
    if (t->label) cJSON_AddStringToObject(o, "label", ZE_LABEL_NAMES[t->label]);
    else cJSON_AddNullToObject(o, "label");
    cJSON_AddNumberToObject(o, "sims", (double)t->sims);
    cJSON_AddNumberToObject(o, "seconds", t->seconds);
    return o;
}

/* Per player: how many turns of each label, and the mean loss over the turns scored. */
static cJSON *summary_json(const ze_review *r) {
    cJSON *arr = cJSON_CreateArray();
    for (int pl = 0; pl < 2; pl++) {
        int count[4] = { 0 }, scored = 0, better = 0;
        double sum = 0;
        for (int i = 0; i < r->nturns; i++) {
            const ze_review_turn *t = &r->turns[i];
            if (t->player != pl || isnan(t->loss)) continue;
            count[t->label]++;
            scored++;
            better += t->better;
            sum += t->loss;
        }
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "player", pl);
        for (int l = 1; l < 4; l++) cJSON_AddNumberToObject(o, ZE_LABEL_NAMES[l], count[l]);
        cJSON_AddNumberToObject(o, "better", better);
        add_number(o, "mean_loss", scored ? sum / scored : NAN);
        cJSON_AddNumberToObject(o, "turns_scored", scored);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

cJSON *ze_review_json(const zz_game *g, const ze_review *r, const ze_review_config *cfg, const char *agent) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddNumberToObject(o, "board", zz_board_get(g->board)->rings);
    cJSON_AddStringToObject(o, "variant", g->variant);
    cJSON *players = cJSON_AddArrayToObject(o, "players");
    for (int p = 0; p < 2; p++) cJSON_AddItemToArray(players, cJSON_CreateString(g->player_name[p]));
    if (agent) cJSON_AddStringToObject(o, "agent", agent);
    cJSON *budget = cJSON_AddObjectToObject(o, "budget");
    cJSON_AddNumberToObject(budget, "sims", (double)cfg->sims);
    cJSON_AddNumberToObject(budget, "time_ms", cfg->time_ms);
    cJSON_AddNumberToObject(o, "temperature", cfg->temperature);
    cJSON *th = cJSON_AddArrayToObject(o, "thresholds");
    for (int k = 0; k < 3; k++) cJSON_AddItemToArray(th, cJSON_CreateNumber(cfg->thresholds[k]));
    cJSON *turns = cJSON_AddArrayToObject(o, "turns");
    for (int i = 0; i < r->nturns; i++) cJSON_AddItemToArray(turns, turn_json(&r->turns[i], i));
    cJSON *wp0 = cJSON_AddArrayToObject(o, "wp0");
    for (int i = 0; i <= r->nturns; i++) cJSON_AddItemToArray(wp0, ze_json_number(ze_review_wp0(r, cfg, i)));
    cJSON_AddItemToObject(o, "summary", summary_json(r));
    cJSON_AddNumberToObject(o, "done", r->done);
    cJSON_AddNumberToObject(o, "total", r->total);
    cJSON_AddBoolToObject(o, "stopped", r->stopped);
    cJSON_AddNumberToObject(o, "seconds", r->seconds);
    return o;
}

static cJSON *move_json(const zz_pos *p, zz_move m) {
    char text[ZZ_NOTATION_MAX];
    zz_move_to_text(p, m, text);
    return cJSON_CreateString(text);
}

cJSON *ze_search_json(const ze_search_info *info, double temperature, int max_moves) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    bool have = info->best != ZZ_MOVE_NONE;
    cJSON_AddBoolToObject(o, "running", info->running);
    cJSON_AddNumberToObject(o, "sims", (double)info->sims);
    cJSON_AddNumberToObject(o, "seconds", info->seconds);
    cJSON_AddNumberToObject(o, "to_move", info->pos.to_move);
    add_number(o, "value", have ? info->value : NAN);
    add_number(o, "wp", have ? ze_win_prob(info->value, temperature) : NAN);
    if (have) cJSON_AddItemToObject(o, "best", move_json(&info->pos, info->best));
    else cJSON_AddNullToObject(o, "best");
    cJSON *pv = cJSON_AddArrayToObject(o, "pv");
    zz_pos p = info->pos;
    for (int i = 0; i < info->npv && !zz_over(&p); i++) {
        cJSON_AddItemToArray(pv, move_json(&p, info->pv[i]));
        zz_apply(&p, info->pv[i], NULL);
    }
    cJSON *moves = cJSON_AddArrayToObject(o, "moves");
    int n = max_moves > 0 && max_moves < info->nroot ? max_moves : info->nroot;
    for (int i = 0; i < n; i++) {
        cJSON *m = cJSON_CreateObject();
        cJSON_AddItemToObject(m, "move", move_json(&info->pos, info->root_moves[i]));
        cJSON_AddNumberToObject(m, "visits", info->root_visits[i]);
        cJSON_AddNumberToObject(m, "q", info->root_q[i]);
        cJSON_AddItemToArray(moves, m);
    }
    cJSON_AddBoolToObject(o, "stopped", info->stopped);
    if (info->error[0]) cJSON_AddStringToObject(o, "error", info->error);
    return o;
}
