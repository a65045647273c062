/* analysis.c — a sliced, stoppable search of one position and its snapshot (see analysis.h). */
#include "analysis.h"
#include "mcts/clock.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

double ze_win_prob(double v, double temperature) {
    if (v >= 1.0) return 1.0;
    if (v <= -1.0) return 0.0;
    if (!(temperature > 0)) temperature = 1.0;
    return 1.0 / (1.0 + exp(-2.0 * atanh(v) / temperature));
}

void ze_snapshot(const mcts_agent *a, const zz_pos *p, ze_search_info *out) {
    out->pos = *p;
    out->sims = 0;
    out->best = ZZ_MOVE_NONE;
    out->npv = out->nroot = 0;
    out->value = 0;
    const mcts_tree *t = mcts_agent_tree(a);
    if (!t || !zz_pos_equal(&t->root_pos, p)) return;
    out->sims = mcts_stats_n(mcts_node_load(mcts_tree_root(t)));
    out->nroot = mcts_tree_root_children(t, out->root_moves, out->root_visits, out->root_q, ZE_ROOT_MAX);
    if (out->nroot > 0 && out->root_visits[0] > 0) {
        out->best = out->root_moves[0];
        out->value = out->root_q[0];
    }
    out->npv = mcts_tree_pv(t, out->pv, ZE_PV_MAX, 1);
}

static bool stop_raised(const atomic_int *stop) {
    return stop && atomic_load_explicit(stop, memory_order_acquire) != 0;
}

int ze_analyse(mcts_agent *a, const zz_pos *p, uint64_t sims, double time_ms, int slice_ms,
               const atomic_int *stop, ze_progress_fn progress, void *ctx, ze_search_info *out,
               char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    out->pos = *p;
    out->running = true;
    if (sims == 0 && time_ms <= 0) {
        snprintf(err, errlen, "the search needs a budget: simulations or milliseconds, not 0");
        goto fail;
    }
    double t0 = mcts_now_s();
    uint64_t done = 0;
    for (;;) {
        if (stop_raised(stop)) { out->stopped = 1; break; }
        double left_ms = time_ms > 0 ? time_ms - 1000.0 * (mcts_now_s() - t0) : 0;
        if (time_ms > 0 && left_ms <= 0) break;
        uint64_t left_sims = sims ? sims - done : 0;
        double slice = slice_ms > 0 ? slice_ms : 0;
        if (time_ms > 0 && (slice == 0 || left_ms < slice)) slice = left_ms;
        mcts_search_stats st;
        if (mcts_agent_analyse(a, p, left_sims, slice, &st, err, errlen) != 0) goto fail;
        done += st.iterations;
        out->seconds = mcts_now_s() - t0;
        ze_snapshot(a, p, out);
        if (stop_raised(stop)) { out->stopped = 1; break; }   /* a stop may cut a slice to nothing */
        if (sims && done >= sims) break;
        if (st.iterations == 0) break;          /* nothing more to search: the tree is full */
        if (progress && !stop_raised(stop)) progress(out, ctx);
    }
    out->running = false;
    out->seconds = mcts_now_s() - t0;
    ze_snapshot(a, p, out);
    return 0;
fail:
    out->running = false;
    snprintf(out->error, sizeof out->error, "%s", err);
    return -1;
}
