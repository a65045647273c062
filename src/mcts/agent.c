/* agent.c — the five kinds of player (see agent.h): a spec parsed into its kind, budget and
 * weights or program (its options: agent_options.c), the agent built, and a game played: newgame,
 * choose, played, analyse.  The cmd agent's protocol is in agent_cmd.c. */
#include "agent_internal.h"
#include "guard.h"
#include "game/handicap.h"
#include "mcts/eval_net.h"
#include "nn/checkpoint.h"
#include "nn/infer.h"
#include "game/posstr.h"
#include "mcts/clock.h"
#include "game/notation.h"
#include "rand.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The shipped network for a board: ZZ_WEIGHTS_DIR, else weights/ in the working directory, else
 * weights/ beside the tools' directory (the program's own folder's parent). */
int mcts_default_weights(zz_board_kind board, char *path, size_t len) {
    char name[64], dir[1024];
    snprintf(name, sizeof name, "zertz%d.ckpt", zz_board_get(board)->rings);
    const char *env = getenv("ZZ_WEIGHTS_DIR");
    if (env && *env) {
        snprintf(path, len, "%.900s/%s", env, name);
        return access(path, R_OK) == 0 ? 0 : -1;
    }
    snprintf(path, len, "weights/%s", name);
    if (access(path, R_OK) == 0) return 0;
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (n > 0) {
        dir[n] = 0;
        char *slash = strrchr(dir, '/');
        if (slash) {
            *slash = 0;
            snprintf(path, len, "%.900s/../weights/%s", dir, name);
            if (access(path, R_OK) == 0) return 0;
        }
    }
    snprintf(path, len, "weights/%s", name);
    return -1;
}

double mcts_agent_guard(const mcts_agent *a) { return a->kind == AG_PUCT ? a->guard : 0; }

int mcts_default_guard_top(zz_board_kind board) { return board == ZZ_B37 ? 0 : 4; }

int mcts_agent_guard_top(const mcts_agent *a) { return a->kind == AG_PUCT && a->guard > 0 ? a->guard_top : 0; }

/* The message for "default" weights with no shipped network for the board (path: where looked). */
static void no_shipped_network(zz_board_kind board, const char *path, char *err, size_t errlen) {
    snprintf(err, errlen, "no shipped network for the %d-ring board (%s; set ZZ_WEIGHTS_DIR or name a checkpoint)",
             zz_board_get(board)->rings, path);
}

/* (Re)build the agent's evaluator for `board`: its weights (the shipped ones for "default"),
 * wrapped in the rollout mix when asked. */
static int make_eval(mcts_agent *a, zz_board_kind board, uint64_t seed, char *err, size_t errlen) {
    mcts_evaluator_free(a->ev);
    a->ev = NULL;
    char path[1100];
    const char *w = a->weights;
    if (!strcmp(w, "default")) {
        if (mcts_default_weights(board, path, sizeof path) != 0) {
            no_shipped_network(board, path, err, errlen);
            return -1;
        }
        w = path;
    }
    if (!(a->ev = mcts_eval_by_name(w, seed, err, errlen))) return -1;
    if (a->prec >= 0 && mcts_eval_nn_set_precision(a->ev, nn_precision_name((nn_precision)a->prec), err, errlen) != 0)
        return -1;
    if (!mcts_eval_is_builtin(w) && mcts_eval_nn_set_cache(a->ev, (size_t)a->cache, err, errlen) != 0) return -1;
    if (a->leafsym && mcts_eval_nn_set_by_symmetry(a->ev, true, err, errlen) != 0) return -1;
    a->ev_board = (int)board;
    if (a->mix > 0 && !(a->ev = mcts_eval_mix_new(a->ev, true, a->mix, a->mix_rollouts, seed))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (a->abmix > 0 && !(a->ev = mcts_eval_abmix_new(a->ev, true, a->abmix, a->abscale, a->abdepth))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (a->quiet > 0 && !(a->ev = mcts_eval_quiet_new(a->ev, true, a->quiet))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* A positive count in [1, max] (decimal digits only; never wrapped). */
static bool parse_count(const char *s, uint64_t max, uint64_t *out) {
    char *end;
    if (!isdigit((unsigned char)*s)) return false;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno == ERANGE || v == 0 || v > max) return false;
    *out = v;
    return true;
}

void agent_defaults(mcts_agent *a, int kind, int threads_default) {
    a->kind = kind;
    mcts_uct_config_default(&a->ucfg);
    mcts_puct_config_default(&a->pcfg);
    a->pcfg.noise = 0;                       /* match play: no noise, no temperature */
    a->pcfg.root_win_check = 1;
    if (threads_default > 0) a->ucfg.threads = a->pcfg.threads = threads_default;
    a->proc.pid = -1;
    a->proc.from = -1;
    a->reuse = 1;
    a->ev_board = -1;
    a->mix_rollouts = 1;
    a->abscale = 400;
    a->guard_margin = 100;
    a->guard_depth = 2;
    a->guard_parallel = -1;
    a->forcing_top = 3;
    a->forcing_gap = 150;
    a->forcing_share = 0.1;
    a->prec = -1;
    a->cache = MCTS_EVAL_CACHE_DEFAULT;
    a->cmd_timeout_ms = MCTS_CMD_TIMEOUT_DEFAULT_MS;
}

/* The budget and options after "uct:", "puct:WEIGHTS:" or "ab:" (body is modified). */
static int parse_search(mcts_agent *a, char *body, char *err, size_t errlen) {
    char *opts = strchr(body, ',');
    if (opts) *opts++ = 0;
    if (a->kind == AG_AB && !parse_count(body, MCTS_AB_MAX_DEPTH, &a->budget)) {
        snprintf(err, errlen, "ab:DEPTH needs a depth from 1 to %d, not '%s'", MCTS_AB_MAX_DEPTH, body);
        return -1;
    }
    if (a->kind == AG_UCT && !parse_count(body, MCTS_UCT_MAX_ITERS, &a->budget)) {
        snprintf(err, errlen, "uct:ITERS needs a count from 1 to %llu, not '%s'", (unsigned long long)MCTS_UCT_MAX_ITERS, body);
        return -1;
    }
    if (a->kind == AG_PUCT) {
        char *colon = strrchr(body, ':');
        if (!colon || colon == body || !parse_count(colon + 1, MCTS_PUCT_MAX_SIMS, &a->budget)) {
            snprintf(err, errlen, "puct:WEIGHTS:SIMS needs weights and a simulation count from 1 to %llu",
                     (unsigned long long)MCTS_PUCT_MAX_SIMS);
            return -1;
        }
        *colon = 0;
        snprintf(a->weights, sizeof a->weights, "%s", body);
    }
    return opts && *opts ? agent_parse_options(a, opts, err, errlen) : 0;
}

/* Parse spec into a: its kind, budget and options, its weights or program.  Nothing is started. */
static int parse_spec(mcts_agent *a, const char *spec, char *err, size_t errlen) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", spec);
    if (!strcmp(buf, "random")) {
        a->kind = AG_RANDOM;
        return 0;
    }
    if (!strncmp(buf, "cmd:", 4)) {
        a->kind = AG_CMD;
        snprintf(a->program, sizeof a->program, "%s", buf + 4);
        if (!a->program[0]) { snprintf(err, errlen, "cmd: needs a program"); return -1; }
        return agent_cmd_timeout_from_env(a, err, errlen);
    }
    if (!strncmp(buf, "uct:", 4)) {
        a->kind = AG_UCT;
        return parse_search(a, buf + 4, err, errlen);
    }
    if (!strncmp(buf, "puct:", 5)) {
        a->kind = AG_PUCT;
        return parse_search(a, buf + 5, err, errlen);
    }
    if (!strncmp(buf, "ab:", 3)) {
        a->kind = AG_AB;
        return parse_search(a, buf + 3, err, errlen);
    }
    snprintf(err, errlen, "unknown agent '%s' (random, uct:ITERS, puct:WEIGHTS:SIMS, ab:DEPTH, cmd:PROGRAM)", spec);
    return -1;
}

/* Parse spec into a scratch agent and check what parse_spec leaves to the evaluator (rollout:K's
 * K) and to the searcher (options that do not go together).  On success, *kind and weights (weights_len bytes) say what it names.  0, or -1 with a message. */
static int check_spec_weights(const char *spec, int *kind, char *weights, size_t weights_len, char *err,
                              size_t errlen) {
    mcts_agent *a = calloc(1, sizeof *a);
    if (!a) { snprintf(err, errlen, "out of memory"); return -1; }
    agent_defaults(a, AG_RANDOM, 1);
    int rc = parse_spec(a, spec, err, errlen);
    if (rc == 0 && a->kind == AG_PUCT && !strncmp(a->weights, "rollout:", 8)) {
        mcts_evaluator *e = mcts_eval_by_name(a->weights, 1, err, errlen);      /* checks K */
        if (!e) rc = -1;
        mcts_evaluator_free(e);
    }
    if (rc == 0 && a->kind == AG_PUCT) rc = mcts_puct_check_config(&a->pcfg, err, errlen);
    *kind = a->kind;
    snprintf(weights, weights_len, "%s", a->weights);
    free(a);
    return rc;
}

int mcts_agent_check_spec(const char *spec, char *err, size_t errlen) {
    int kind;
    char w[sizeof ((mcts_agent *)0)->weights];
    return check_spec_weights(spec, &kind, w, sizeof w, err, errlen);
}

int mcts_agent_check_board(const char *spec, zz_board_kind board, char *err, size_t errlen) {
    int kind;
    char w[sizeof ((mcts_agent *)0)->weights];
    int rc = check_spec_weights(spec, &kind, w, sizeof w, err, errlen);
    bool file = rc == 0 && kind == AG_PUCT && !mcts_eval_is_builtin(w);
    char path[1100], why[512];
    nn_config cfg;
    if (file && !strcmp(w, "default") && mcts_default_weights(board, path, sizeof path) != 0) {
        no_shipped_network(board, path, err, errlen);
        rc = -1;
    } else if (file && strcmp(w, "default")) {
        if (nn_checkpoint_info(w, &cfg, NULL, NULL, why, sizeof why) != 0) {
            snprintf(err, errlen, "weights '%s': %s", w, why);
            rc = -1;
        } else if (cfg.board != board) {
            mcts_wrong_board_msg(cfg.board, board, why, sizeof why);
            snprintf(err, errlen, "%s: %s", w, why);
            rc = -1;
        }
    }
    return rc;
}

/* The ab agent's searcher, with the default table (seeded per game by newgame). */
static mcts_ab *ab_new(void) {
    mcts_ab_config c;
    mcts_ab_config_default(&c);
    return mcts_ab_new(&c);
}

mcts_agent *mcts_agent_new(const char *spec, int threads_default, char *err, size_t errlen) {
    mcts_agent *a = calloc(1, sizeof *a);
    if (!a) { snprintf(err, errlen, "out of memory"); return NULL; }
    snprintf(a->name, sizeof a->name, "%s", spec);
    agent_defaults(a, AG_RANDOM, threads_default);
    if (parse_spec(a, spec, err, errlen) != 0) goto fail;
    if (a->kind == AG_CMD && agent_cmd_start(a, err, errlen) != 0) goto fail;
    if ((a->kind == AG_AB || (a->kind == AG_PUCT && a->guard > 0)) && !(a->ab = ab_new())) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    if (a->kind == AG_PUCT && make_eval(a, ZZ_B37, 1, err, errlen) != 0) {
        /* fail early on bad weights; "default" is resolved per board at newgame */
        if (strcmp(a->weights, "default")) goto fail;
        a->ev_board = -1;
    }
    a->pcfg.sims_full = (int)(a->budget > INT_MAX ? INT_MAX : a->budget);
    a->spec_budget = a->budget;
    a->spec_time_ms = a->time_ms;
    return a;
fail:
    mcts_agent_free(a);
    return NULL;
}

void mcts_agent_free(mcts_agent *a) {
    if (!a) return;
    if (a->kind == AG_CMD && a->proc.open) {
        mcts_proc_send(&a->proc, "quit");
        mcts_proc_close(&a->proc);
    }
    mcts_uct_free(a->uct);
    mcts_puct_free(a->puct);
    mcts_ab_free(a->ab);
    mcts_forcing_free(a->forcer);
    mcts_evaluator_free(a->ev);
    free(a);
}

const char *mcts_agent_name(const mcts_agent *a) { return a->name; }
const mcts_agent_stats *mcts_agent_get_stats(const mcts_agent *a) { return &a->stats; }

void mcts_agent_set_budget(mcts_agent *a, uint64_t sims, double time_ms) {
    a->budget = sims && a->kind != AG_AB ? sims : a->spec_budget;      /* ab: the depth stays */
    a->time_ms = time_ms > 0 ? time_ms : sims ? 0 : a->spec_time_ms;
}

int mcts_agent_newgame(mcts_agent *a, const zz_pos *start, uint64_t seed, char *err, size_t errlen) {
    uint64_t s = mcts_seed(seed ^ (a->seed * 0x9E3779B97F4A7C15ULL));
    a->game_used_ms = 0;
    a->game_moves = 0;
    a->rng = s;
    a->pos = *start;
    a->have_pos = true;
    switch (a->kind) {
    case AG_UCT:
        mcts_uct_free(a->uct);
        a->ucfg.seed = s;
        if (!(a->uct = mcts_uct_new(&a->ucfg))) { snprintf(err, errlen, "out of memory"); return -1; }
        mcts_uct_set_root(a->uct, start);
        return 0;
    case AG_PUCT:
        mcts_puct_free(a->puct);
        a->puct = NULL;
        /* rollouts are reseeded and alpha-beta leaf tables cleared per game (games replay for a
         * seed whichever worker plays them); a network is kept unless the board changed */
        if ((!a->ev || a->mix > 0 || a->abmix > 0 || !strncmp(a->weights, "rollout", 7) ||
             (!strcmp(a->weights, "default") && a->ev_board != (int)start->board)) &&
            make_eval(a, (zz_board_kind)start->board, s, err, errlen) != 0)
            return -1;
        if (!a->guard_top_given && !strcmp(a->weights, "default"))
            a->guard_top = a->guard_parallel > 0 ? 0 : mcts_default_guard_top((zz_board_kind)start->board);
        if (a->guard > 0 && !a->ab && !(a->ab = ab_new())) { snprintf(err, errlen, "out of memory"); return -1; }
        if (a->forcing > 0 && !a->forcer && !(a->forcer = mcts_forcing_new(MCTS_FORCING_MAX_K))) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        a->pcfg.seed = s;
        if (!(a->puct = mcts_puct_new(&a->pcfg, a->ev, err, errlen))) return -1;
        mcts_puct_set_root(a->puct, start);
        if (a->ab) mcts_ab_clear(a->ab, s);
        return 0;
    case AG_AB:
        mcts_ab_clear(a->ab, s);
        return 0;
    case AG_CMD: {
        char cmd[64];
        snprintf(cmd, sizeof cmd, "newgame %d", zz_pos_board(start)->rings);
        if (agent_cmd_command(a, cmd, err, errlen) != 0) return -1;
        if (zz_pos_is_opening(start) && start->to_move == 0) return 0;
        char pos[ZZ_POSSTR_MAX + 16] = "position ";     /* a handicap or set-up: the whole position */
        zz_pos_to_string(start, pos + 9);
        return agent_cmd_command(a, pos, err, errlen);
    }
    default:
        return 0;
    }
}

/* Bring the search tree's root to p (a fresh tree unless it is already there). */
static void sync_root(mcts_agent *a, const zz_pos *p) {
    if (a->have_pos && zz_pos_equal(&a->pos, p)) return;
    a->pos = *p;
    a->have_pos = true;
    if (a->uct) mcts_uct_set_root(a->uct, p);
    if (a->puct) mcts_puct_set_root(a->puct, p);
}

/* This move's time: the per-move time, capped with a game budget by an even share of what is
 * left over the moves still expected (at least 5: a 37-ring game takes about 20 decisions a side). */
double mcts_move_time_ms(double per_move_ms, double game_ms, double used_ms, int moves_made) {
    if (game_ms <= 0) return per_move_ms;
    double left = game_ms - used_ms;
    int expect = 20 - moves_made > 5 ? 20 - moves_made : 5;
    double share = left / expect;
    if (share < 1) share = 1;
    return per_move_ms > 0 && per_move_ms < share ? per_move_ms : share;
}

/* forcing=: PUCT's choice m checked against the other player's forcing runs, among its most
 * visited root moves (forcing.h), by the move's end (t0 + tms); with a simulation budget (tms 0),
 * no clock but MCTS_FORCING_SIMS_NODES positions a search (the same moves for a seed). */
static zz_move forcing_check(mcts_agent *a, const zz_pos *p, zz_move m, double tms, double t0) {
    zz_move ranked[MCTS_FORCING_TOP_MAX];
    int top = a->forcing_top + 1 < MCTS_FORCING_TOP_MAX ? a->forcing_top + 1 : MCTS_FORCING_TOP_MAX;
    int n = mcts_tree_root_children(mcts_puct_tree(a->puct), ranked, NULL, NULL, top);
    if (n < 2 || ranked[0] != m) return m;              /* PUCT's move is its most visited one */
    bool replaced;
    m = mcts_forcing_check(a->forcer, p, ranked, n, a->forcing, a->forcing_gap, tms > 0 ? t0 + tms / 1000 : 0,
                           tms > 0 ? 0 : MCTS_FORCING_SIMS_NODES, &replaced, NULL);
    a->stats.overrides += replaced;
    return m;
}

/* PUCT's move for p in tms ms (0: the simulation budget), guarded when guard= is on: the guard
 * before PUCT, or beside it on its own thread; then, with forcing=, checked against forcing runs
 * in the share of the time it keeps.  0, or -1 with a message. */
static int puct_choose(mcts_agent *a, const zz_pos *p, double tms, double t0, zz_move *m, char *err, size_t errlen) {
    sync_root(a, p);
    double move_ms = tms;
    bool forcing = a->forcing > 0 && a->forcer;
    if (forcing && tms > 0) tms *= 1 - a->forcing_share;
    bool guarded = a->guard > 0 && a->ab != NULL;
    mcts_guard g = { .ab = a->ab, .share = a->guard, .margin = a->guard_margin, .depth = a->guard_depth,
                     .beside = agent_guard_in_parallel(a), .top = a->guard_top,
                     .to_the_end = a->guard_to_the_end > 0 };
    double puct_ms = guarded ? mcts_guard_begin(&g, p, tms, t0) : tms;
    mcts_think th;
    int sims = tms > 0 ? 0 : a->budget > INT_MAX ? INT_MAX : (int)a->budget;
    int rc = mcts_puct_think(a->puct, sims, puct_ms, &th, err, errlen);
    *m = rc == 0 ? th.move : ZZ_MOVE_NONE;
    if (guarded && g.top > 0) {
        zz_move ranked[MCTS_GUARD_TOP_MAX + 1];
        int n = rc == 0 ? mcts_tree_root_children(mcts_puct_tree(a->puct), ranked, NULL, NULL, g.top + 1) : 0;
        bool replaced;
        *m = mcts_guard_end_among(&g, *m, ranked, n, &replaced);
        a->stats.overrides += replaced;
    } else if (guarded) {
        bool replaced, beside;
        *m = mcts_guard_end(&g, *m, &replaced, &beside);
        a->stats.overrides += replaced;
        a->stats.guarded_beside += beside;
    }
    if (rc != 0) return -1;
    if (forcing) *m = forcing_check(a, p, *m, move_ms, t0);
    a->stats.sims += th.stats.iterations;
    return 0;
}

int mcts_agent_choose(mcts_agent *a, const zz_pos *p, zz_move *m, char *err, size_t errlen) {
    double t0 = mcts_now_s();
    *m = ZZ_MOVE_NONE;
    if (zz_over(p)) { snprintf(err, errlen, "the game is over"); return -1; }
    double tms = mcts_move_time_ms(a->time_ms, a->game_ms, a->game_used_ms, a->game_moves);
    switch (a->kind) {
    case AG_RANDOM:
        *m = zz_random_move(p, &a->rng);
        break;
    case AG_UCT: {
        sync_root(a, p);
        mcts_search_stats st;
        *m = mcts_uct_choose(a->uct, tms > 0 ? 0 : a->budget, tms, &st);
        a->stats.sims += st.iterations;
        break;
    }
    case AG_PUCT:
        if (puct_choose(a, p, tms, t0, m, err, errlen) != 0) return -1;
        break;
    case AG_CMD:
        if (agent_cmd_bestmove(a, p, tms, m, err, errlen) != 0) return -1;
        break;
    case AG_AB: {
        mcts_ab_result r;
        mcts_ab_search(a->ab, p, (int)a->budget, tms, &r);
        *m = r.move;
        a->stats.sims += r.nodes;
        break;
    }
    }
    if (!*m || !zz_is_legal(p, *m)) { snprintf(err, errlen, "%s chose no legal move", a->name); return -1; }
    double dt = mcts_now_s() - t0;
    a->stats.moves++;
    a->stats.seconds += dt;
    a->game_used_ms += 1000 * dt;
    a->game_moves++;
    return 0;
}

int mcts_agent_played(mcts_agent *a, const zz_pos *before, zz_move m, char *err, size_t errlen) {
    zz_pos after = *before;
    zz_apply(&after, m, NULL);
    if (a->kind == AG_CMD) {
        char text[ZZ_NOTATION_MAX], cmd[ZZ_NOTATION_MAX + 8];
        zz_move_to_text(before, m, text);
        snprintf(cmd, sizeof cmd, "play %s", text);
        return agent_cmd_command(a, cmd, err, errlen);
    }
    if ((a->uct || a->puct) && a->reuse && a->have_pos && zz_pos_equal(&a->pos, before)) {
        if (a->uct) mcts_uct_advance(a->uct, m);
        if (a->puct) mcts_puct_advance(a->puct, m);
        a->pos = after;
        return 0;
    }
    sync_root(a, &after);
    return 0;
}

/* ---- analysis ---------------------------------------------------------------------------------- */
bool mcts_agent_can_analyse(const mcts_agent *a) { return a->kind == AG_UCT || a->kind == AG_PUCT; }

int mcts_agent_analyse(mcts_agent *a, const zz_pos *p, uint64_t sims, double time_ms,
                       mcts_search_stats *st, char *err, size_t errlen) {
    mcts_search_stats local;
    if (!st) st = &local;
    memset(st, 0, sizeof *st);
    if (!mcts_agent_can_analyse(a)) { snprintf(err, errlen, "%s cannot analyse (only uct and puct agents search a tree)", a->name); return -1; }
    if (zz_over(p)) { snprintf(err, errlen, "the game is over"); return -1; }
    if (sims == 0 && time_ms <= 0) { snprintf(err, errlen, "analysis needs a budget (simulations or time)"); return -1; }
    sync_root(a, p);
    int rc = 0;
    if (a->uct) {
        if (mcts_uct_search(a->uct, sims, time_ms, st) != 0) {
            const char *e = mcts_uct_error(a->uct);
            if (e) { snprintf(err, errlen, "%s", e); rc = -1; }
        }
    } else if (mcts_puct_search(a->puct, sims, time_ms, false, st, err, errlen) != 0) {
        rc = strcmp(err, "search tree is full") == 0 ? 0 : -1;
    }
    a->stats.sims += st->iterations;
    return rc;
}

const mcts_tree *mcts_agent_tree(const mcts_agent *a) {
    return a->uct ? mcts_uct_tree(a->uct) : a->puct ? mcts_puct_tree(a->puct) : NULL;
}

void mcts_agent_stop(mcts_agent *a) {
    if (a->uct) mcts_uct_stop(a->uct);
    if (a->puct) mcts_puct_stop(a->puct);
    if (a->ab) mcts_ab_stop(a->ab);
}
