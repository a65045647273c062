/* tactic.c — priors for the placements that win an exchange (tactic.h). */
#include "tactic.h"
#include <stdint.h>

/* The exchange a placement starts, for the placer, in alpha-beta's points: the quiescence of the
 * position after it less the static evaluation before it (a won or lost game: +-MCTS_AB_WIN). */
static int exchange_gain(mcts_ab *ab, const zz_pos *p, zz_move m, int before) {
    zz_pos q = *p;
    zz_apply(&q, m, NULL);
    if (zz_over(&q)) return q.winner < 0 ? -before : q.winner == p->to_move ? MCTS_AB_WIN : -MCTS_AB_WIN;
    int s = mcts_ab_quiesce(ab, &q);
    return (q.to_move == p->to_move ? s : -s) - before;
}

/* best[colour][cell]: the index of the forcing placement of highest prior in each (colour, cell)
 * group of p's moves, -1 where none. */
static void forcing_groups(const zz_pos *p, const zz_move *moves, const float *priors, int n,
                           int best[3][ZZ_NCELLS]) {
    zz_landing_cache landings;
    zz_landing_cache_start(&landings);
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < ZZ_NCELLS; k++) best[c][k] = -1;
    for (int i = 0; i < n; i++) {
        int cell = zz_move_a(moves[i]), colour = zz_move_colour(moves[i]);
        if (!zz_place_forces_cached(&landings, p, moves[i])) continue;    /* does not force a capture */
        int *b = &best[colour][cell];
        if (*b < 0 || priors[i] > priors[*b]) *b = i;
    }
}

int mcts_tactic_boost(mcts_ab *ab, const zz_pos *p, const zz_move *moves, float *priors, int n, float floor,
                      int margin) {
    if (n <= 0 || zz_move_is_jump(moves[0])) return 0;        /* a capture node: no placements */
    int best[3][ZZ_NCELLS];
    forcing_groups(p, moves, priors, n, best);
    int before = mcts_ab_evaluate(p), raised = 0;
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < ZZ_NCELLS; k++) {
            int i = best[c][k];
            if (i < 0 || priors[i] >= floor) continue;
            if (exchange_gain(ab, p, moves[i], before) >= margin) { priors[i] = floor; raised++; }
        }
    return raised;
}

int mcts_tactic_runs(mcts_forcing *f, const zz_pos *p, const zz_move *moves, float *priors, int n, int k,
                     float floor, int margin, uint64_t max_nodes) {
    if (n <= 0 || zz_move_is_jump(moves[0])) return 0;
    zz_landing_cache landings;
    zz_landing_cache_start(&landings);
    int before = mcts_ab_evaluate(p), raised = 0;
    uint64_t left = max_nodes ? max_nodes : UINT64_MAX;
    for (int i = 0; i < n && left > 0; i++) {
        if (priors[i] >= floor || !zz_place_forces_cached(&landings, p, moves[i])) continue;
        uint64_t used = 0;
        int32_t v = mcts_forcing_run_value(f, p, moves[i], k, 0, left, &used);
        left = used < left ? left - used : 0;
        if (v != INT32_MIN && (int64_t)v - before >= margin) { priors[i] = floor; raised++; }
    }
    return raised;
}
