/* analysis.h — what the engine thinks of one position: a search run in short slices, with a
 * snapshot of its state after each slice (best move, main line, value, the root moves' visits),
 * a progress callback, and a stop flag that another thread may raise.  The engine session's
 * background search (session.h) and the game review (review.h) both run through it.
 *
 * Values are from the view of the player to move at the analysed position, in [-1, 1] (+1: a
 * sure win); ze_win_prob turns them into a win probability. */
#ifndef ZE_ANALYSIS_H
#define ZE_ANALYSIS_H

#include "mcts/agent.h"
#include <stdatomic.h>

enum {
    ZE_PV_MAX = 24,          /* moves of the main line kept */
    ZE_ROOT_MAX = 256,       /* root moves kept (most visited first): enough for a heat-map */
    ZE_SLICE_MS = 100,       /* a sliced search publishes a snapshot this often */
};

typedef struct ze_search_info {
    bool running;            /* the search is still going (background searches) */
    zz_pos pos;              /* the position searched */
    uint64_t sims;           /* visits of the root so far (simulations, with a reused tree's) */
    double seconds;          /* wall time of this search */
    double value;            /* the best move's value for the player to move ([-1, 1]) */
    zz_move best;            /* the most visited move; ZZ_MOVE_NONE before any visit */
    int npv;
    zz_move pv[ZE_PV_MAX];   /* main line from pos: the most visited child at each step */
    int nroot;               /* root moves below, most visited first */
    zz_move root_moves[ZE_ROOT_MAX];
    int root_visits[ZE_ROOT_MAX];
    float root_q[ZE_ROOT_MAX];   /* each move's value for the player to move */
    int stopped;             /* ended by the stop flag before its budget */
    char error[256];         /* "" or why the search failed */
} ze_search_info;

/* Called after each slice with the snapshot so far (from the searching thread). */
typedef void (*ze_progress_fn)(const ze_search_info *info, void *ctx);

/* Search p with agent a (a uct or puct agent, mcts_agent_can_analyse) for `sims` simulations
 * and/or time_ms milliseconds (at least one > 0), in slices of slice_ms (0: one call, the most
 * deterministic), calling progress (may be NULL) after each slice, and ending early when *stop
 * (may be NULL) becomes non-zero.  Fills *out (always: error says what failed).  0, or -1 with a
 * message. */
int ze_analyse(mcts_agent *a, const zz_pos *p, uint64_t sims, double time_ms, int slice_ms,
               const atomic_int *stop, ze_progress_fn progress, void *ctx, ze_search_info *out,
               char *err, size_t errlen);

/* Fill *out's results (sims, value, best, pv, root moves) from a's tree rooted at p. */
void ze_snapshot(const mcts_agent *a, const zz_pos *p, ze_search_info *out);

/* Win probability of a value v in [-1, 1] at calibration temperature T (> 0):
 * sigmoid(2 atanh(v) / T); T = 1 gives (1 + v) / 2 exactly. */
double ze_win_prob(double v, double temperature);

#endif
