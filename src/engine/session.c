/* session.c — the engine session: a game with history and undo, an agent that follows it, and a
 * background search with published snapshots (see session.h). */
#include "session.h"
#include "mcts/rand.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct ze_session {
    char spec[512];
    int threads;
    uint64_t seed;
    int games;                     /* games started (mixed into each game's seed) */
    mcts_agent *agent;
    zz_pos start, pos;
    zz_move *history;              /* moves played since start (ZE_MAX_HISTORY) */
    int nhist;
    /* background search: the thread owns the agent while `live`; lock guards info/have_info */
    pthread_t thread;
    bool live;
    atomic_int stop;
    uint64_t bg_sims;
    double bg_ms;
    pthread_mutex_t lock;
    ze_search_info info;
    bool have_info;
};

/* ---- the background search ----------------------------------------------------------------- */
static void publish(const ze_search_info *info, void *ctx) {
    ze_session *s = ctx;
    pthread_mutex_lock(&s->lock);
    s->info = *info;
    s->info.running = true;
    pthread_mutex_unlock(&s->lock);
}

static void *search_main(void *arg) {
    ze_session *s = arg;
    ze_search_info *res = malloc(sizeof *res);
    char err[256];
    if (!res) {
        pthread_mutex_lock(&s->lock);
        snprintf(s->info.error, sizeof s->info.error, "out of memory");
        s->info.running = false;
        pthread_mutex_unlock(&s->lock);
        return NULL;
    }
    ze_analyse(s->agent, &s->pos, s->bg_sims, s->bg_ms, ZE_SLICE_MS, &s->stop, publish, s, res, err, sizeof err);
    pthread_mutex_lock(&s->lock);
    s->info = *res;
    s->info.running = false;
    pthread_mutex_unlock(&s->lock);
    free(res);
    return NULL;
}

static bool join_search(ze_session *s, bool stop, ze_search_info *out) {
    if (!s->live) {
        if (out && s->have_info) ze_search_peek(s, out);
        return false;
    }
    if (stop) {
        atomic_store(&s->stop, 1);
        mcts_agent_stop(s->agent);
    }
    pthread_join(s->thread, NULL);
    s->live = false;
    if (out) ze_search_peek(s, out);
    return true;
}

bool ze_search_stop(ze_session *s, ze_search_info *out) { return join_search(s, true, out); }
bool ze_search_wait(ze_session *s, ze_search_info *out) { return join_search(s, false, out); }

bool ze_search_peek(ze_session *s, ze_search_info *out) {
    pthread_mutex_lock(&s->lock);
    bool have = s->have_info;
    if (have) *out = s->info;
    pthread_mutex_unlock(&s->lock);
    return have;
}

/* Before the game or the engine changes: no search runs, and its snapshot is forgotten. */
static void quiesce(ze_session *s) {
    join_search(s, true, NULL);
    pthread_mutex_lock(&s->lock);
    s->have_info = false;
    pthread_mutex_unlock(&s->lock);
}

int ze_search_start(ze_session *s, uint64_t sims, double time_ms, char *err, size_t errlen) {
    quiesce(s);
    if (zz_over(&s->pos)) { snprintf(err, errlen, "the game is over"); return -1; }
    if (!mcts_agent_can_analyse(s->agent)) { snprintf(err, errlen, "%s cannot analyse (only uct and puct agents search a tree)", s->spec); return -1; }
    if (sims == 0 && time_ms <= 0) { snprintf(err, errlen, "the search needs a budget: simulations or milliseconds, not 0"); return -1; }
    s->bg_sims = sims;
    s->bg_ms = time_ms;
    atomic_store(&s->stop, 0);
    pthread_mutex_lock(&s->lock);
    memset(&s->info, 0, sizeof s->info);
    s->info.pos = s->pos;
    s->info.running = true;
    s->have_info = true;
    pthread_mutex_unlock(&s->lock);
    if (pthread_create(&s->thread, NULL, search_main, s) != 0) {
        pthread_mutex_lock(&s->lock);
        s->have_info = false;
        pthread_mutex_unlock(&s->lock);
        snprintf(err, errlen, "cannot start the search thread");
        return -1;
    }
    s->live = true;
    return 0;
}

/* ---- the game ------------------------------------------------------------------------------- */
/* A fresh game for the agent at start, told every move of the history. */
static int reset_agent(ze_session *s, char *err, size_t errlen) {
    if (mcts_agent_newgame(s->agent, &s->start, mcts_seed(s->seed + (uint64_t)s->games), err, errlen) != 0) return -1;
    zz_pos p = s->start;
    for (int i = 0; i < s->nhist; i++) {
        if (mcts_agent_played(s->agent, &p, s->history[i], err, errlen) != 0) return -1;
        zz_apply(&p, s->history[i], NULL);
    }
    return 0;
}

ze_session *ze_session_new(const char *spec, int threads, uint64_t seed, char *err, size_t errlen) {
    ze_session *s = calloc(1, sizeof *s);
    if (!s || !(s->history = malloc(ZE_MAX_HISTORY * sizeof *s->history))) {
        free(s);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&s->lock, NULL);
    snprintf(s->spec, sizeof s->spec, "%s", spec);
    s->threads = threads > 0 ? threads : 1;
    s->seed = seed;
    zz_pos_init(&s->start, ZZ_B37);
    s->pos = s->start;
    if (!(s->agent = mcts_agent_new(spec, s->threads, err, errlen)) || reset_agent(s, err, errlen) != 0) {
        ze_session_free(s);
        return NULL;
    }
    return s;
}

void ze_session_free(ze_session *s) {
    if (!s) return;
    join_search(s, true, NULL);
    mcts_agent_free(s->agent);
    pthread_mutex_destroy(&s->lock);
    free(s->history);
    free(s);
}

const zz_pos *ze_session_position(const ze_session *s) { return &s->pos; }
const zz_pos *ze_session_start(const ze_session *s) { return &s->start; }
int ze_session_history(const ze_session *s, const zz_move **moves) { *moves = s->history; return s->nhist; }
const char *ze_session_agent_spec(const ze_session *s) { return s->spec; }
int ze_session_threads(const ze_session *s) { return s->threads; }
uint64_t ze_session_seed(const ze_session *s) { return s->seed; }

int ze_session_newgame(ze_session *s, const zz_pos *start, char *err, size_t errlen) {
    return ze_session_set_game(s, start, NULL, 0, err, errlen);
}

int ze_session_set_game(ze_session *s, const zz_pos *start, const zz_move *moves, int n,
                        char *err, size_t errlen) {
    if (n > ZE_MAX_HISTORY) { snprintf(err, errlen, "the game is too long (%d moves, at most %d)", n, ZE_MAX_HISTORY); return -1; }
    zz_pos p = *start;
    for (int i = 0; i < n; i++) {
        if (zz_over(&p) || !zz_is_legal(&p, moves[i])) { snprintf(err, errlen, "move %d is not legal", i + 1); return -1; }
        zz_apply(&p, moves[i], NULL);
    }
    quiesce(s);
    zz_pos keep_start = s->start;
    int keep_n = s->nhist;
    zz_move *keep = malloc((size_t)(keep_n ? keep_n : 1) * sizeof *keep);
    if (!keep) { snprintf(err, errlen, "out of memory"); return -1; }
    memcpy(keep, s->history, (size_t)keep_n * sizeof *keep);
    s->start = *start;
    if (n) memcpy(s->history, moves, (size_t)n * sizeof *moves);
    s->nhist = n;
    s->games++;
    int rc = reset_agent(s, err, errlen);
    if (rc != 0) {                                 /* back to the game we had */
        s->start = keep_start;
        memcpy(s->history, keep, (size_t)keep_n * sizeof *keep);
        s->nhist = keep_n;
    } else {
        s->pos = p;
    }
    free(keep);
    return rc;
}

int ze_session_play(ze_session *s, zz_move m, char *err, size_t errlen) {
    if (zz_over(&s->pos)) { snprintf(err, errlen, "the game is over"); return -1; }
    if (!zz_is_legal(&s->pos, m)) { snprintf(err, errlen, "the move is not legal here"); return -1; }
    if (s->nhist >= ZE_MAX_HISTORY) { snprintf(err, errlen, "game too long"); return -1; }
    quiesce(s);
    if (mcts_agent_played(s->agent, &s->pos, m, err, errlen) != 0) return -1;
    zz_apply(&s->pos, m, NULL);
    s->history[s->nhist++] = m;
    return 0;
}

int ze_session_undo(ze_session *s, int n, char *err, size_t errlen) {
    if (n < 1) { snprintf(err, errlen, "expected a positive count, not %d", n); return -1; }
    if (n > s->nhist) { snprintf(err, errlen, "only %d moves to take back", s->nhist); return -1; }
    quiesce(s);
    s->nhist -= n;
    s->pos = s->start;
    for (int i = 0; i < s->nhist; i++) zz_apply(&s->pos, s->history[i], NULL);
    return reset_agent(s, err, errlen);
}

/* ---- the engine ----------------------------------------------------------------------------- */
int ze_session_set_agent(ze_session *s, const char *spec, int threads, char *err, size_t errlen) {
    if (!spec) spec = s->spec;
    if (threads <= 0) threads = s->threads;
    char keep[512];
    snprintf(keep, sizeof keep, "%s", spec);      /* spec may point into s->spec */
    mcts_agent *a = mcts_agent_new(keep, threads, err, errlen);
    if (!a) return -1;
    quiesce(s);
    mcts_agent *old = s->agent;
    s->agent = a;
    if (reset_agent(s, err, errlen) != 0) {
        s->agent = old;
        mcts_agent_free(a);
        return -1;
    }
    mcts_agent_free(old);
    snprintf(s->spec, sizeof s->spec, "%s", keep);
    s->threads = threads;
    return 0;
}

int ze_session_set_seed(ze_session *s, uint64_t seed, char *err, size_t errlen) {
    quiesce(s);
    s->seed = seed;
    return reset_agent(s, err, errlen);
}

int ze_session_bestmove(ze_session *s, uint64_t sims, double time_ms, zz_move *m, char *err, size_t errlen) {
    if (zz_over(&s->pos)) { snprintf(err, errlen, "the game is over"); return -1; }
    quiesce(s);
    mcts_agent_set_budget(s->agent, sims, time_ms);
    return mcts_agent_choose(s->agent, &s->pos, m, err, errlen);
}

int ze_session_analyse(ze_session *s, uint64_t sims, double time_ms, ze_search_info *out,
                       char *err, size_t errlen) {
    if (zz_over(&s->pos)) { snprintf(err, errlen, "the game is over"); return -1; }
    quiesce(s);
    return ze_analyse(s->agent, &s->pos, sims, time_ms, 0, NULL, NULL, NULL, out, err, errlen);
}
