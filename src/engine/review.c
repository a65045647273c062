/* review.c — reviewing a whole game with the engine (see review.h). */
#include "review.h"
#include "mcts/clock.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const ZE_LABEL_NAMES[4] = { "", "inaccuracy", "mistake", "blunder" };
const char *const ZE_FROM_NAMES[6] = { "", "engine", "result", "same search", "next position", "reply played" };

void ze_review_config_default(ze_review_config *c) {
    memset(c, 0, sizeof *c);
    c->time_ms = 1000;
    c->temperature = ZE_TEMPERATURE;
    c->thresholds[0] = ZE_INACCURACY;
    c->thresholds[1] = ZE_MISTAKE;
    c->thresholds[2] = ZE_BLUNDER;
    c->seed = 1;
}

void ze_review_free(ze_review *r) {
    free(r->turns);
    r->turns = NULL;
    r->nturns = 0;
}

int ze_review_label(double loss, const double t[3]) {
    if (!(loss >= t[0])) return ZE_LABEL_NONE;
    return loss >= t[2] ? ZE_LABEL_BLUNDER : loss >= t[1] ? ZE_LABEL_MISTAKE : ZE_LABEL_INACCURACY;
}

double ze_review_wp0(const ze_review *r, const ze_review_config *cfg, int i) {
    if (i < r->nturns) {
        const ze_review_turn *t = &r->turns[i];
        if (isnan(t->value_best)) return NAN;
        return t->player == 0 ? t->wp_before : 1.0 - t->wp_before;
    }
    if (isnan(r->final_value)) return NAN;
    double wp = ze_win_prob(r->final_value, cfg->temperature);
    return r->final_to_move == 0 ? wp : 1.0 - wp;
}

/* One position's search: an immediate win is known exactly (no search needed), else ze_analyse. */
static int analyse_position(mcts_agent *a, const zz_pos *p, uint64_t sims, double time_ms, const atomic_int *stop,
                            ze_search_info *info, char *err, size_t errlen) {
    zz_move win = mcts_find_win(p);
    if (win != ZZ_MOVE_NONE) {
        memset(info, 0, sizeof *info);
        info->pos = *p;
        info->best = info->pv[0] = win;
        info->npv = 1;
        info->value = 1.0;
        return 0;
    }
    int slice = stop ? ZE_SLICE_MS : 0;          /* stoppable: slices; else one deterministic call */
    return ze_analyse(a, p, sims, time_ms, slice, stop, NULL, NULL, info, err, errlen);
}

/* The engine's whole turn from `start`: its main line while the mover keeps moving, completed by
 * quick searches where the line stops mid-turn. */
static int engine_turn(mcts_agent *a, const ze_search_info *info, const ze_review_config *cfg, const atomic_int *stop,
                       zz_move *moves, char *err, size_t errlen) {
    zz_pos p = info->pos;
    int mover = p.to_move, n = 0;
    for (int i = 0; i < info->npv && n < ZZ_MAX_CHAIN && !zz_over(&p) && p.to_move == mover && (n == 0 || p.chain != ZZ_NO_CELL); i++) {
        moves[n++] = info->pv[i];
        zz_apply(&p, info->pv[i], NULL);
    }
    if (n == 0 && info->best != ZZ_MOVE_NONE) { moves[n++] = info->best; zz_apply(&p, info->best, NULL); }
    while (n > 0 && n < ZZ_MAX_CHAIN && !zz_over(&p) && p.to_move == mover && p.chain != ZZ_NO_CELL) {
        ze_search_info *more = malloc(sizeof *more);
        if (!more) { snprintf(err, errlen, "out of memory"); return -1; }
        int rc = analyse_position(a, &p, cfg->sims ? (cfg->sims + 3) / 4 : 0, cfg->time_ms / 4, stop, more, err, errlen);
        zz_move m = more->best;
        free(more);
        if (rc != 0) return -1;
        if (m == ZZ_MOVE_NONE) break;
        moves[n++] = m;
        zz_apply(&p, m, NULL);
    }
    return n;
}

/* Whether every decision of the turn played had one legal move. */
static bool turn_forced(const zz_pos *start, const zz_turn *t) {
    zz_pos p = *start;
    for (int k = 0; k < t->nmoves; k++) {
        if (zz_count_moves(&p) != 1) return false;
        zz_apply(&p, t->moves[k], NULL);
    }
    return true;
}

/* Whether a turn valued `played` was worth more than the engine's turn, valued `best`, by at least
 * the inaccuracy threshold in win probability. */
static bool beats_engine(double played, double best, const ze_review_config *cfg) {
    return ze_win_prob(played, cfg->temperature) - ze_win_prob(best, cfg->temperature) >= cfg->thresholds[0];
}

/* The value of turn t's played turn, and where it came from (review.h): `next` is the next
 * position's value for the player to move there (its value_before, so a reply found better than
 * the engine's choice counts), `next_better` whether it was so found.  The same search's value
 * gives way to the next position's own where that one shows the turn better than the engine's. */
static double played_value(const ze_review_turn *t, const zz_pos *after, double next, bool next_better,
                           const ze_review_config *cfg, int *from) {
    uint32_t enough = (uint32_t)fmax(ZE_SAME_SEARCH_VISITS, 0.01 * (double)t->sims);
    double from_next = after->to_move == t->player ? next : -next;
    if (next_better) return *from = ZE_FROM_REPLY, from_next;
    if (t->is_best) return *from = ZE_FROM_ENGINE, t->value_best;
    if (zz_over(after)) return *from = ZE_FROM_RESULT, after->winner < 0 ? 0.0 : after->winner == t->player ? 1.0 : -1.0;
    bool next_beats = !isnan(next) && !t->forced && beats_engine(from_next, t->value_best, cfg);
    if (t->nmoves == 1 && t->visits_same >= enough && !next_beats) return *from = ZE_FROM_SAME_SEARCH, t->q_same;
    if (isnan(next)) return *from = ZE_FROM_NONE, NAN;
    return *from = ZE_FROM_NEXT, from_next;
}

/* Fill turn t's values, loss and label from its position's value and the next turn's hindsight
 * value (next, next_better: see played_value). */
static void score_turn(ze_review_turn *t, const zz_pos *after, double value_best, double next, bool next_better,
                       const ze_review_config *cfg) {
    t->value_best = value_best;
    t->is_best = t->nbest == t->nmoves && !memcmp(t->best_moves, t->moves, (size_t)t->nmoves * sizeof *t->moves);
    t->value_played = played_value(t, after, next, next_better, cfg, &t->value_from);
    double wp_best = isnan(value_best) ? NAN : ze_win_prob(value_best, cfg->temperature);
    t->wp_played = isnan(t->value_played) ? NAN : ze_win_prob(t->value_played, cfg->temperature);
    bool searched_alone = t->value_from == ZE_FROM_NEXT || t->value_from == ZE_FROM_REPLY || t->value_from == ZE_FROM_RESULT;
    t->better = !t->forced && !t->is_best && searched_alone && beats_engine(t->value_played, value_best, cfg);
    t->value_before = t->better ? t->value_played : value_best;
    t->wp_before = t->better ? t->wp_played : wp_best;
    t->loss = isnan(t->wp_before) || isnan(t->wp_played) ? NAN : fmax(0.0, t->wp_before - t->wp_played);
    if (t->forced || t->is_best) t->loss = isnan(t->loss) ? NAN : 0.0;
    t->label = isnan(t->loss) ? ZE_LABEL_NONE : ze_review_label(t->loss, cfg->thresholds);
}

void ze_review_score(ze_review *r, const zz_pos *pos, const double *val, int upto, const ze_review_config *cfg) {
    if (upto > r->nturns) upto = r->nturns;
    for (int i = upto - 1; i >= 0; i--) {
        bool next_scored = i + 1 < upto;
        double next = next_scored ? r->turns[i + 1].value_before : val[i + 1];
        bool next_better = next_scored && r->turns[i + 1].better;
        score_turn(&r->turns[i], &pos[i + 1], val[i], next, next_better, cfg);
    }
}

static bool stop_raised(const atomic_int *stop) { return stop && atomic_load(stop) != 0; }

int ze_review_game(mcts_agent *a, const zz_game *g, const ze_review_config *cfg, const atomic_int *stop,
                   ze_review_progress_fn progress, void *ctx, ze_review *r, char *err, size_t errlen) {
    memset(r, 0, sizeof *r);
    r->final_value = NAN;
    if (cfg->sims == 0 && !(cfg->time_ms > 0)) { snprintf(err, errlen, "the budget must be more than 0 (simulations or milliseconds)"); return -1; }
    if (!mcts_agent_can_analyse(a)) { snprintf(err, errlen, "%s cannot analyse (only uct and puct agents search a tree)", mcts_agent_name(a)); return -1; }
    if (g->nturns < 1) { snprintf(err, errlen, "the game has no moves to review"); return -1; }
    int n = g->nturns;
    zz_pos *pos = malloc((size_t)(n + 1) * sizeof *pos);
    double *val = malloc((size_t)(n + 1) * sizeof *val);
    ze_search_info *info = malloc(sizeof *info);
    r->turns = calloc((size_t)n, sizeof *r->turns);
    int rc = -1;
    if (!pos || !val || !info || !r->turns) { snprintf(err, errlen, "out of memory"); goto done; }
    r->nturns = n;
    pos[0] = g->start;
    for (int i = 0; i < n; i++) {
        pos[i + 1] = pos[i];
        for (int k = 0; k < g->turns[i].nmoves; k++) zz_apply(&pos[i + 1], g->turns[i].moves[k], NULL);
    }
    r->total = zz_over(&pos[n]) ? n : n + 1;
    r->final_to_move = pos[n].to_move;
    if (zz_over(&pos[n])) r->final_value = pos[n].winner < 0 ? 0.0 : pos[n].winner == pos[n].to_move ? 1.0 : -1.0;
    for (int i = 0; i <= n; i++) val[i] = NAN;
    for (int i = 0; i < n; i++) {
        ze_review_turn *t = &r->turns[i];
        const zz_turn *gt = &g->turns[i];
        t->player = pos[i].to_move;
        t->nmoves = gt->nmoves;
        memcpy(t->moves, gt->moves, sizeof t->moves);
        snprintf(t->played, sizeof t->played, "%s", gt->text);
        t->forced = turn_forced(&pos[i], gt);
        t->value_best = t->value_before = t->value_played = t->wp_before = t->wp_played = t->loss = NAN;
    }
    if (mcts_agent_newgame(a, &g->start, cfg->seed, err, errlen) != 0) goto done;
    double t0 = mcts_now_s();
    for (int i = 0; i < r->total && !stop_raised(stop); i++) {
        if (analyse_position(a, &pos[i], cfg->sims, cfg->time_ms, stop, info, err, errlen) != 0) goto done;
        if (info->stopped) break;
        val[i] = info->value;
        if (i < n) {
            ze_review_turn *t = &r->turns[i];
            t->sims = info->sims;
            t->seconds = info->seconds;
            for (int k = 0; k < info->nroot; k++)
                if (info->root_moves[k] == t->moves[0]) { t->q_same = info->root_q[k], t->visits_same = (uint32_t)info->root_visits[k]; break; }
            int k = engine_turn(a, info, cfg, stop, t->best_moves, err, errlen);
            if (k < 0) goto done;
            t->nbest = k;
            if (k > 0) zz_turn_to_text(&pos[i], t->best_moves, k, t->best);
        } else {
            r->final_value = info->value;
        }
        r->done = i + 1;
        r->seconds = mcts_now_s() - t0;
        ze_review_score(r, pos, val, i, cfg);
        if (progress) progress(r, i, ctx);
    }
    ze_review_score(r, pos, val, n, cfg);
    r->stopped = stop_raised(stop) && r->done < r->total;
    r->seconds = mcts_now_s() - t0;
    rc = 0;
done:
    free(pos);
    free(val);
    free(info);
    return rc;
}
