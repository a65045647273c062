/* guard.c — the alpha-beta guard on a PUCT move (guard.h). */
#include "guard.h"
#include "mcts/clock.h"
#include <math.h>
#include <string.h>

static const double GUARD_CHECK_SHARE = 0.25;

static void *guard_thread(void *arg) {
    mcts_guard *g = arg;
    mcts_ab_search(g->ab, &g->pos, MCTS_AB_MAX_DEPTH, g->ms, &g->result);
    return NULL;
}

double mcts_guard_begin(mcts_guard *g, const zz_pos *p, double tms, double t0) {
    g->pos = *p;
    memset(&g->result, 0, sizeof g->result);
    g->running = false;
    g->check_ms = tms * g->share * GUARD_CHECK_SHARE;
    if (g->top > 0) {                                    /* PUCT first, alpha-beta after it */
        g->t0 = t0, g->tms = tms;
        if (tms <= 0) return 0;
        double puct_ms = tms * (1 - g->share) - 1000 * (mcts_now_s() - t0);
        return puct_ms < 1 ? 1 : puct_ms;
    }
    if (tms <= 0) {                                      /* a simulation budget: depth, no clock */
        mcts_ab_search(g->ab, p, g->depth, 0, &g->result);
        return 0;
    }
    if (g->beside) {
        g->ms = fmax(1, tms - g->check_ms - 1000 * (mcts_now_s() - t0));
        g->running = pthread_create(&g->thread, NULL, guard_thread, g) == 0;
        if (g->running) return g->ms;
    }
    mcts_ab_search(g->ab, p, MCTS_AB_MAX_DEPTH, tms * g->share, &g->result);
    double puct_ms = tms * (1 - GUARD_CHECK_SHARE * g->share) - 1000 * (mcts_now_s() - t0);
    return puct_ms < 1 ? 1 : puct_ms;
}

zz_move mcts_guard_end(mcts_guard *g, zz_move m, bool *replaced, bool *was_beside) {
    *replaced = false;
    *was_beside = g->running;
    if (g->running) pthread_join(g->thread, NULL);
    g->running = false;
    const mcts_ab_result *gr = &g->result;
    if (!m || !gr->move || m == gr->move || gr->depth < 1) return m;
    int sm;
    if (mcts_ab_move_score(g->ab, &g->pos, m, gr->depth, g->check_ms, &sm) != 0) return m;
    bool lost = gr->score < -(MCTS_AB_WIN - MCTS_AB_MAX_PLY);      /* every move loses: lose later */
    if (lost ? sm >= gr->score : (double)gr->score - sm <= g->margin) return m;
    *replaced = true;
    return gr->move;
}

zz_move mcts_guard_end_among(mcts_guard *g, zz_move m, const zz_move *ranked, int n, bool *replaced) {
    *replaced = false;
    if (!m) return m;
    zz_move cand[MCTS_GUARD_TOP_MAX + 1];
    int k = 0, top = g->top < MCTS_GUARD_TOP_MAX ? g->top : MCTS_GUARD_TOP_MAX;
    cand[k++] = m;
    for (int i = 0; i < n && k <= top; i++)
        if (ranked[i] != m) cand[k++] = ranked[i];
    if (k < 2) return m;
    double ms = g->tms > 0 ? fmax(1, g->tms - 1000 * (mcts_now_s() - g->t0)) : 0;
    int depth = g->tms > 0 ? MCTS_AB_MAX_DEPTH : g->depth, first;
    if (mcts_ab_search_among(g->ab, &g->pos, cand, k, depth, ms, g->to_the_end, &g->result, &first) != 0) return m;
    const mcts_ab_result *gr = &g->result;
    if (gr->depth < 1 || gr->move == m) return m;
    bool m_lost = first < -(MCTS_AB_WIN - MCTS_AB_MAX_PLY);
    if (m_lost ? gr->score <= first : (double)gr->score - first <= g->margin) return m;
    *replaced = true;
    return gr->move;
}
