/* agent.c — spec parsing and the five kinds of player (see agent.h). */
#include "agent.h"
#include "ab.h"
#include "guard.h"
#include "game/handicap.h"
#include "mcts/eval_net.h"
#include "nn/checkpoint.h"
#include "nn/infer.h"
#include "game/posstr.h"
#include "mcts/clock.h"
#include "game/notation.h"
#include "proc.h"
#include "rand.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { AG_RANDOM, AG_UCT, AG_PUCT, AG_CMD, AG_AB };

struct mcts_agent {
    int kind;
    char name[512];
    uint64_t budget;               /* iterations / simulations / the ab agent's depth */
    double time_ms;                /* 0 = none */
    uint64_t spec_budget;          /* the spec's own budget and time */
    double spec_time_ms;
    uint64_t seed;                 /* from the spec (mixed with the per-game seed) */
    uint64_t rng;
    mcts_uct_config ucfg;
    mcts_puct_config pcfg;
    char weights[512];             /* as the spec names them ("default": the shipped network) */
    int ev_board;                  /* the board ev was resolved for ("default" weights), or -1 */
    double game_ms;                /* time budget per game (0: none): spread over the moves */
    double game_used_ms;           /* spent in this game so far */
    int game_moves;                /* moves chosen in this game */
    int prec;                      /* the network's convolutions (nn_precision), -1 ZZ_NN_PRECISION's */
    int cache;                     /* the network evaluator's cache slots (eval_cache.h; 0: none) */
    int leafsym;                   /* 1: the network sees each position under a symmetry drawn from
                                      its hash (mcts_eval_nn_set_by_symmetry) */
    double mix;                    /* leaf values blended with random rollouts (0: none) */
    int mix_rollouts;
    double abmix, abscale;         /* leaf values blended with alpha-beta (0: none; eval_ab.c) */
    int abdepth;
    int quiet;                     /* > 0: leaves where the mover must capture valued at the quiet
                                      positions after the captures, trees of at most this many
                                      positions (0: off; eval_quiet.c) */
    double guard, guard_margin;    /* puct: the alpha-beta guard's share of a move's time (0: none)
                                      and the points by which it must prefer its move (guard.h) */
    int guard_depth;               /* the guard's depth when a move has no time (a simulation budget) */
    int guard_top;                 /* > 0: the guard checks among PUCT's best moves, after it (guard.h) */
    bool guard_top_given;          /* the spec set guardtop=; else "default" weights take the board's
                                      (mcts_default_guard_top) at newgame, unless guardpar=1 */
    int guard_to_the_end;          /* guard_top > 0: its alpha-beta deepens until the move's time is spent */
    int guard_parallel;            /* 1: the guard searches on its own thread beside PUCT, 0: before
                                      it; -1 (default): beside it when threads > 1 and guardtop=0 */
    int reuse;                     /* keep the subtree of the move played */
    mcts_uct *uct;
    mcts_puct *puct;
    mcts_ab *ab;
    mcts_evaluator *ev;
    mcts_proc proc;
    char program[512];
    double cmd_timeout_ms;         /* a cmd agent's limit on each answer (MCTS_CMD_TIMEOUT_ENV) */
    zz_pos pos;                    /* the position the search tree is rooted at */
    bool have_pos;
    mcts_agent_stats stats;
};

enum { FOR_UCT = 1, FOR_PUCT = 2, FOR_BOTH = 3, FOR_AB = 4, FOR_ALL = 7 };

/* Every option of the uct, puct and ab agents: the kinds it applies to, its range (whole numbers
 * for the integer ones) and a line of help. */
typedef struct agent_option {
    const char *key;
    int kinds;
    double lo, hi;
    bool whole;
    const char *help;
} agent_option;

static const agent_option OPTIONS[] = {
    { "threads", FOR_BOTH, 1, 256, true, "search threads (1: deterministic for a seed)" },
    { "seed", FOR_ALL, 0, 9007199254740992.0, true, "mixed into every game's seed" },
    { "time", FOR_ALL, 0, MCTS_MAX_MOVE_MS, false, "milliseconds per move (0: the budget counts)" },
    { "game", FOR_ALL, 0, 3.6e7, false, "milliseconds per game, spread over the moves (0: none)" },
    { "reuse", FOR_BOTH, 0, 1, true, "keep the subtree of the move played" },
    { "win", FOR_BOTH, 0, 1, true, "play an immediately winning move unsearched" },
    { "c", FOR_BOTH, 0, 100, false, "exploration constant" },
    { "vl", FOR_BOTH, 1, 1000, true, "virtual loss: visits in flight per descent" },
    { "fpu", FOR_BOTH, -10, 10, false, "uct: value of an unopened child; puct: its reduction" },
    { "pwc", FOR_UCT, 1e-6, 1000, false, "progressive widening: children <= pwc * N^pwa" },
    { "pwa", FOR_UCT, 0, 1, false, "progressive widening exponent" },
    { "fpuroot", FOR_PUCT, -10, 10, false, "first-play urgency reduction at the root" },
    { "batch", FOR_PUCT, 1, 4096, true, "leaves per evaluator call at most" },
    { "inflight", FOR_PUCT, 1, 4096, true, "leaves waiting per search thread (threadev=0)" },
    { "threadev", FOR_PUCT, 0, 1, true, "threads > 1: 1 an evaluator each (a network), 0 one shared through a batcher" },
    { "noise", FOR_PUCT, 0, 1, true, "Dirichlet noise at the root" },
    { "eps", FOR_PUCT, 0, 1, false, "weight of the noise" },
    { "alpha", FOR_PUCT, 1e-6, 1e6, false, "Dirichlet alpha times the legal moves" },
    { "temp", FOR_PUCT, 0, 100, false, "move choice by visits^(1/temp) (0: most visits)" },
    { "tempplies", FOR_PUCT, 0, 100000, true, "plies with temperature (0: every ply)" },
    { "full", FOR_PUCT, 0, 1, false, "probability of a full search (else fast=)" },
    { "fast", FOR_PUCT, 1, 2e9, true, "simulations of a fast search" },
    { "maxchildren", FOR_PUCT, 0, 100000, true, "keep the best priors only (0: all)" },
    { "edges", FOR_PUCT, 0, ZZ_MAX_MOVES, true, "edges stored per node below the root until it needs more (0: all; default 32; the same search)" },
    { "ptemp", FOR_PUCT, 0.1, 10, false, "prior temperature: priors as p^(1/ptemp), renormalised (1: the network's)" },
    { "rootsym", FOR_PUCT, 0, 12, true, "the root's priors averaged over this many symmetries of the board (12 on 37 and 61 rings, 6 on 48; 0 or 1: off)" },
    { "symvisits", FOR_PUCT, 0, 1e9, true, "with rootsym=K: a node below the root averaged the same way once it has this many visits (one thread; 0: the root only)" },
    { "forceprior", FOR_PUCT, 0, 1000, false, "priors of placements that force the next player to capture times 1 + forceprior, renormalised (0: off)" },
    { "tactic", FOR_PUCT, 0, 1, false, "a placement whose exchange wins tacticmargin= points (alpha-beta's capture quiescence) gets at least this prior, at the root and tacticdepth= plies below (0: off)" },
    { "tacticdepth", FOR_PUCT, 0, 64, true, "tactic=: plies below the root where it applies" },
    { "tacticmargin", FOR_PUCT, 1, 100000, true, "tactic=: the exchange's gain in points (120 = a white)" },
    { "mix", FOR_PUCT, 0, 1, false, "leaf values blended with random rollouts, weight" },
    { "rollouts", FOR_PUCT, 1, 1000, true, "rollouts per leaf with mix=" },
    { "abmix", FOR_PUCT, 0, 1, false, "leaf values blended with alpha-beta's score, weight" },
    { "abscale", FOR_PUCT, 1, 100000, false, "abmix=: value = tanh(score / abscale) (120 = a white marble)" },
    { "abdepth", FOR_PUCT, 0, 8, true, "abmix=: 0 capture quiescence, else an alpha-beta search of this depth" },
    { "quiet", FOR_PUCT, 0, 4096, true, "leaves where the mover must capture valued by playing every capture out to quiet positions (the network's values there, minimaxed), capture trees of at most this many positions (0: off)" },
    { "guard", FOR_PUCT, 0, 0.9, false, "share of a move's time (time= or game=) for an alpha-beta guard on the move (0, the default: none)" },
    { "guarddepth", FOR_PUCT, 1, 8, true, "guard=: its alpha-beta depth when a move has a simulation budget, not a time" },
    { "guardmargin", FOR_PUCT, 0, 100000, false, "guard=: play alpha-beta's move when it scores this many points more (120 = a white)" },
    { "guardpar", FOR_PUCT, 0, 1, true, "guard=, guardtop=0: 1 alpha-beta over every move on a thread of its own beside PUCT, both for the move's time; 0 before PUCT, for the guard's share (default weights: 1 also keeps guardtop=0)" },
    { "guardtop", FOR_PUCT, 0, MCTS_GUARD_TOP_MAX, true, "guard=: 0 alpha-beta over every move; K: after PUCT, over PUCT's move and its K most visited others only (deeper; default weights: the board's, 4 on 48 and 61 rings unless guardpar=1)" },
    { "guardend", FOR_PUCT, 0, 1, true, "guardtop=: 1 alpha-beta starts new depths until the move's time is spent; 0 only in the first half of its time" },
    { "gumbel", FOR_PUCT, 0, 64, true, "Gumbel root search with this many candidates (a simulation budget, no time)" },
    { "forced", FOR_PUCT, 0, 1, true, "go on through a node with one legal move, unevaluated" },
    { "solver", FOR_PUCT, 0, 1, true, "prove won and lost positions in the tree: take a proven win, avoid a proven loss" },
    { "prec", FOR_PUCT, -1, 2, true, "network convolutions: 0 float, 1 bf16, 2 int8, -1 as ZZ_NN_PRECISION says" },
    { "cache", FOR_PUCT, 0, MCTS_EVAL_CACHE_MAX, true, "a network's answers kept for positions met again, this many (a power of two; 0: none)" },
    { "leafsym", FOR_PUCT, 0, 1, true, "1: the network sees each position under a symmetry of the board drawn from the position's hash, the answer mapped back" },
};
enum { NOPTIONS = sizeof OPTIONS / sizeof *OPTIONS };

static const agent_option *find_option(const char *key, int kind) {
    int want = kind == AG_UCT ? FOR_UCT : kind == AG_PUCT ? FOR_PUCT : kind == AG_AB ? FOR_AB : 0;
    for (int i = 0; i < NOPTIONS; i++)
        if (!strcmp(OPTIONS[i].key, key) && (OPTIONS[i].kinds & want)) return &OPTIONS[i];
    return NULL;
}

/* Set a checked option (find_option's). */
static void set_option(mcts_agent *a, const char *k, double v) {
    bool u = a->kind == AG_UCT;
    if (!strcmp(k, "threads")) a->ucfg.threads = a->pcfg.threads = (int)v;
    else if (!strcmp(k, "seed")) a->seed = (uint64_t)v;
    else if (!strcmp(k, "time")) a->time_ms = v;
    else if (!strcmp(k, "game")) a->game_ms = v;
    else if (!strcmp(k, "reuse")) a->pcfg.reuse = a->reuse = (int)v;
    else if (!strcmp(k, "win")) a->ucfg.root_win_check = a->pcfg.root_win_check = (int)v;
    else if (!strcmp(k, "c")) { a->ucfg.c_uct = v; a->pcfg.c_puct = v; }
    else if (!strcmp(k, "vl")) a->ucfg.virtual_loss = a->pcfg.virtual_loss = (int)v;
    else if (!strcmp(k, "fpu") && u) a->ucfg.fpu = v;
    else if (!strcmp(k, "fpu")) a->pcfg.fpu_reduction = v;
    else if (!strcmp(k, "pwc")) a->ucfg.pw_c = v;
    else if (!strcmp(k, "pwa")) a->ucfg.pw_alpha = v;
    else if (!strcmp(k, "fpuroot")) a->pcfg.fpu_reduction_root = v;
    else if (!strcmp(k, "batch")) a->pcfg.batch = (int)v;
    else if (!strcmp(k, "inflight")) a->pcfg.inflight = (int)v;
    else if (!strcmp(k, "threadev")) a->pcfg.thread_evaluators = (int)v;
    else if (!strcmp(k, "noise")) a->pcfg.noise = (int)v;
    else if (!strcmp(k, "eps")) a->pcfg.noise_eps = v;
    else if (!strcmp(k, "alpha")) a->pcfg.noise_alpha_total = v;
    else if (!strcmp(k, "temp")) a->pcfg.temperature = v;
    else if (!strcmp(k, "tempplies")) a->pcfg.temp_plies = (int)v;
    else if (!strcmp(k, "full")) a->pcfg.full_prob = v;
    else if (!strcmp(k, "fast")) a->pcfg.sims_fast = (int)v;
    else if (!strcmp(k, "maxchildren")) a->pcfg.max_children = (int)v;
    else if (!strcmp(k, "edges")) a->pcfg.edge_window = (int)v;
    else if (!strcmp(k, "ptemp")) a->pcfg.prior_temp = v;
    else if (!strcmp(k, "rootsym")) a->pcfg.root_syms = (int)v;
    else if (!strcmp(k, "symvisits")) a->pcfg.sym_visits = (int)v;
    else if (!strcmp(k, "forceprior")) a->pcfg.force_prior = v;
    else if (!strcmp(k, "tactic")) a->pcfg.tactic_prior = v;
    else if (!strcmp(k, "tacticdepth")) a->pcfg.tactic_depth = (int)v;
    else if (!strcmp(k, "tacticmargin")) a->pcfg.tactic_margin = (int)v;
    else if (!strcmp(k, "mix")) a->mix = v;
    else if (!strcmp(k, "rollouts")) a->mix_rollouts = (int)v;
    else if (!strcmp(k, "abmix")) a->abmix = v;
    else if (!strcmp(k, "abscale")) a->abscale = v;
    else if (!strcmp(k, "abdepth")) a->abdepth = (int)v;
    else if (!strcmp(k, "quiet")) a->quiet = (int)v;
    else if (!strcmp(k, "guard")) a->guard = v;
    else if (!strcmp(k, "guardmargin")) a->guard_margin = v;
    else if (!strcmp(k, "guarddepth")) a->guard_depth = (int)v;
    else if (!strcmp(k, "guardpar")) a->guard_parallel = (int)v;
    else if (!strcmp(k, "guardtop")) a->guard_top = (int)v, a->guard_top_given = true;
    else if (!strcmp(k, "guardend")) a->guard_to_the_end = (int)v;
    else if (!strcmp(k, "gumbel")) a->pcfg.gumbel_m = (int)v;
    else if (!strcmp(k, "forced")) a->pcfg.pass_forced = (int)v;
    else if (!strcmp(k, "solver")) a->pcfg.solver = (int)v;
    else if (!strcmp(k, "prec")) a->prec = (int)v;
    else if (!strcmp(k, "cache")) a->cache = (int)v;
    else if (!strcmp(k, "leafsym")) a->leafsym = (int)v;
}

/* Whether the guard searches beside PUCT: the whole-root guard (guardtop=0) with guardpar=1, or
 * with guardpar= unset and more than one thread.  The guard among PUCT's best never is. */
static bool guard_in_parallel(const mcts_agent *a) {
    if (a->guard_top > 0) return false;
    return a->guard_parallel < 0 ? a->pcfg.threads > 1 : a->guard_parallel > 0;
}

/* An option's value, as set_option stores it (for the help's defaults). */
static double get_option(const mcts_agent *a, const char *k) {
    bool u = a->kind == AG_UCT;
    if (!strcmp(k, "threads")) return u ? a->ucfg.threads : a->pcfg.threads;
    if (!strcmp(k, "seed")) return (double)a->seed;
    if (!strcmp(k, "time")) return a->time_ms;
    if (!strcmp(k, "game")) return a->game_ms;
    if (!strcmp(k, "reuse")) return a->reuse;
    if (!strcmp(k, "win")) return u ? a->ucfg.root_win_check : a->pcfg.root_win_check;
    if (!strcmp(k, "c")) return u ? a->ucfg.c_uct : a->pcfg.c_puct;
    if (!strcmp(k, "vl")) return u ? a->ucfg.virtual_loss : a->pcfg.virtual_loss;
    if (!strcmp(k, "fpu")) return u ? a->ucfg.fpu : a->pcfg.fpu_reduction;
    if (!strcmp(k, "pwc")) return a->ucfg.pw_c;
    if (!strcmp(k, "pwa")) return a->ucfg.pw_alpha;
    if (!strcmp(k, "fpuroot")) return a->pcfg.fpu_reduction_root;
    if (!strcmp(k, "batch")) return a->pcfg.batch;
    if (!strcmp(k, "inflight")) return a->pcfg.inflight;
    if (!strcmp(k, "threadev")) return a->pcfg.thread_evaluators;
    if (!strcmp(k, "noise")) return a->pcfg.noise;
    if (!strcmp(k, "eps")) return a->pcfg.noise_eps;
    if (!strcmp(k, "alpha")) return a->pcfg.noise_alpha_total;
    if (!strcmp(k, "temp")) return a->pcfg.temperature;
    if (!strcmp(k, "tempplies")) return a->pcfg.temp_plies;
    if (!strcmp(k, "full")) return a->pcfg.full_prob;
    if (!strcmp(k, "fast")) return a->pcfg.sims_fast;
    if (!strcmp(k, "maxchildren")) return a->pcfg.max_children;
    if (!strcmp(k, "edges")) return a->pcfg.edge_window;
    if (!strcmp(k, "ptemp")) return a->pcfg.prior_temp;
    if (!strcmp(k, "rootsym")) return a->pcfg.root_syms;
    if (!strcmp(k, "symvisits")) return a->pcfg.sym_visits;
    if (!strcmp(k, "forceprior")) return a->pcfg.force_prior;
    if (!strcmp(k, "tactic")) return a->pcfg.tactic_prior;
    if (!strcmp(k, "tacticdepth")) return a->pcfg.tactic_depth;
    if (!strcmp(k, "tacticmargin")) return a->pcfg.tactic_margin;
    if (!strcmp(k, "mix")) return a->mix;
    if (!strcmp(k, "rollouts")) return a->mix_rollouts;
    if (!strcmp(k, "abmix")) return a->abmix;
    if (!strcmp(k, "abscale")) return a->abscale;
    if (!strcmp(k, "abdepth")) return a->abdepth;
    if (!strcmp(k, "quiet")) return a->quiet;
    if (!strcmp(k, "guard")) return a->guard;
    if (!strcmp(k, "guardmargin")) return a->guard_margin;
    if (!strcmp(k, "guarddepth")) return a->guard_depth;
    if (!strcmp(k, "guardpar")) return guard_in_parallel(a);
    if (!strcmp(k, "guardtop")) return a->guard_top;
    if (!strcmp(k, "guardend")) return a->guard_to_the_end;
    if (!strcmp(k, "gumbel")) return a->pcfg.gumbel_m;
    if (!strcmp(k, "forced")) return a->pcfg.pass_forced;
    if (!strcmp(k, "solver")) return a->pcfg.solver;
    if (!strcmp(k, "prec")) return a->prec;
    if (!strcmp(k, "cache")) return a->cache;
    if (!strcmp(k, "leafsym")) return a->leafsym;
    return 0;
}

/* Parse "key=value" options; returns 0 or -1 with a message naming the option and its range. */
static int parse_options(mcts_agent *a, char *opts, char *err, size_t errlen) {
    char *save = NULL;
    for (char *tok = strtok_r(opts, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) { snprintf(err, errlen, "option '%s' is not key=value", tok); return -1; }
        *eq = 0;
        const char *k = tok, *val = eq + 1;
        const agent_option *o = find_option(k, a->kind);
        if (!o) {
            snprintf(err, errlen, "unknown option '%s' for %s agents", k,
                     a->kind == AG_UCT ? "uct" : a->kind == AG_PUCT ? "puct" : "ab");
            return -1;
        }
        char *end;
        errno = 0;
        double v = strtod(val, &end);
        if (end == val || *end || errno || !(v >= o->lo && v <= o->hi) || (o->whole && v != floor(v))) {
            snprintf(err, errlen, "option %s: expected %s from %.15g to %.15g, not '%s'", k,
                     o->whole ? "a whole number" : "a number", o->lo, o->hi, val);
            return -1;
        }
        set_option(a, k, v);
    }
    return 0;
}

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

/* The cmd agent's answer limit from $ZZ_CMD_TIMEOUT_MS (default MCTS_CMD_TIMEOUT_DEFAULT_MS). */
static int cmd_timeout_from_env(mcts_agent *a, char *err, size_t errlen) {
    const char *s = getenv(MCTS_CMD_TIMEOUT_ENV);
    a->cmd_timeout_ms = MCTS_CMD_TIMEOUT_DEFAULT_MS;
    if (!s || !*s) return 0;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < 1 || v > MCTS_CMD_TIMEOUT_MAX_MS) {
        snprintf(err, errlen, "%s: expected milliseconds from 1 to %d, not '%.40s'", MCTS_CMD_TIMEOUT_ENV,
                 MCTS_CMD_TIMEOUT_MAX_MS, s);
        return -1;
    }
    a->cmd_timeout_ms = (double)v;
    return 0;
}

/* The deadline of a command to the program: its timeout plus extra_ms (a move's time) from now. */
static double cmd_deadline(const mcts_agent *a, double extra_ms) {
    return mcts_now_s() + (a->cmd_timeout_ms + extra_ms) / 1000.0;
}

/* One line from the program before the deadline; -1 with a message when it did not answer in
 * time or stopped (the program is then stopped for good: later commands fail at once). */
static int cmd_read(mcts_agent *a, char *line, size_t n, double deadline, char *err, size_t errlen) {
    if (!a->proc.open) {
        snprintf(err, errlen, "%s: the program is not running (stopped after an earlier error)", a->program);
        return -1;
    }
    double left_ms = 1000 * (deadline - mcts_now_s());
    int wait_ms = left_ms < 0 ? 0 : left_ms > INT_MAX ? INT_MAX : (int)left_ms;
    int rc = mcts_proc_read_line_timeout(&a->proc, line, n, wait_ms);
    if (rc == 0) return 0;
    if (rc == MCTS_PROC_TIMEOUT) {
        snprintf(err, errlen, "%s: no answer within %.0f ms (the limit: $%s, arena --cmd-timeout): the program was stopped",
                 a->program, a->cmd_timeout_ms, MCTS_CMD_TIMEOUT_ENV);
    } else {
        char why[160];
        mcts_proc_end_reason(&a->proc, why, sizeof why);
        snprintf(err, errlen, "%s: %s", a->program, why);
    }
    mcts_proc_kill(&a->proc);
    return -1;
}

static int cmd_send(mcts_agent *a, const char *cmd, char *err, size_t errlen) {
    if (!a->proc.open) {
        snprintf(err, errlen, "%s: the program is not running (stopped after an earlier error)", a->program);
        return -1;
    }
    if (mcts_proc_send(&a->proc, cmd) == 0) return 0;
    char why[160];                            /* most often it has exited: say how */
    mcts_proc_end_reason(&a->proc, why, sizeof why);
    snprintf(err, errlen, "%s: cannot write to the program (%s)", a->program, why);
    mcts_proc_kill(&a->proc);
    return -1;
}

/* Expect "ok" after a command, skipping other lines; an "err" line is an error. */
static int cmd_expect_ok(mcts_agent *a, double deadline, char *err, size_t errlen) {
    char line[512];
    for (;;) {
        if (cmd_read(a, line, sizeof line, deadline, err, errlen) != 0) return -1;
        if (!strcmp(line, "ok")) return 0;
        if (!strncmp(line, "err", 3)) {
            char e[256];
            snprintf(err, errlen, "%s: %.200s", a->program, line);
            while (cmd_read(a, line, sizeof line, deadline, e, sizeof e) == 0 && strcmp(line, "ok")) {}
            return -1;
        }
    }
}

static int cmd_command(mcts_agent *a, const char *cmd, char *err, size_t errlen) {
    if (cmd_send(a, cmd, err, errlen) != 0) return -1;
    return cmd_expect_ok(a, cmd_deadline(a, 0), err, errlen);
}

/* The agent's defaults for its kind (before the spec's options). */
static void agent_defaults(mcts_agent *a, int kind, int threads_default) {
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
    a->prec = -1;
    a->cache = MCTS_EVAL_CACHE_DEFAULT;
    a->cmd_timeout_ms = MCTS_CMD_TIMEOUT_DEFAULT_MS;
}

/* cmd:PROGRAM: start it and check that it answers "info". */
static int cmd_start(mcts_agent *a, char *err, size_t errlen) {
    if (mcts_proc_spawn(&a->proc, a->program, err, errlen) != 0) return -1;
    return cmd_command(a, "info", err, errlen);
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
    return opts && *opts ? parse_options(a, opts, err, errlen) : 0;
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
        return cmd_timeout_from_env(a, err, errlen);
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
    if (a->kind == AG_CMD && cmd_start(a, err, errlen) != 0) goto fail;
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
    mcts_evaluator_free(a->ev);
    free(a);
}

/* One option's line of help: its range, what it does, its default for uct and puct agents. */
static void help_option(FILE *f, const agent_option *o, const mcts_agent *u, const mcts_agent *p) {
    char range[64], dflt[64];
    snprintf(range, sizeof range, "%.15g..%.15g", o->lo, o->hi);
    if (!strcmp(o->key, "seed")) snprintf(range, sizeof range, "0..2^53");
    double du = get_option(u, o->key), dp = get_option(p, o->key);
    if (!strcmp(o->key, "threads")) snprintf(dflt, sizeof dflt, "the tool's --threads");
    else if (!strcmp(o->key, "guardpar")) snprintf(dflt, sizeof dflt, "1 when threads > 1 and guardtop=0, else 0");
    else if (o->kinds == FOR_UCT) snprintf(dflt, sizeof dflt, "%g", du);
    else if (o->kinds == FOR_PUCT) snprintf(dflt, sizeof dflt, "%g", dp);
    else if (du == dp) snprintf(dflt, sizeof dflt, "%g", du);
    else snprintf(dflt, sizeof dflt, "uct %g, puct %g", du, dp);
    fprintf(f, "  %-12s %-5s %-14s %s (default: %s)\n", o->key,
            o->kinds == FOR_BOTH ? "" : o->kinds == FOR_ALL ? "all" : o->kinds == FOR_UCT ? "uct" : "puct", range,
            o->help, dflt);
}

void mcts_agent_help(FILE *f) {
    fprintf(f, "agents:\n"
               "  random                        a uniformly random legal move\n"
               "  uct:ITERS[,opt=v...]          UCT with random rollouts, ITERS iterations a move (1..%llu)\n"
               "  puct:WEIGHTS:SIMS[,opt=v...]  PUCT, SIMS simulations a move (1..%llu); WEIGHTS: a checkpoint,\n"
               "                                default (the shipped network), uniform, rollout or rollout:K\n"
               "  ab:DEPTH[,opt=v...]           alpha-beta to DEPTH plies (1..%d), iterative deepening; with\n"
               "                                time=MS it stops when the time is out (src/mcts/ab.h)\n"
               "  cmd:PROGRAM                   an engine speaking src/engine/PROTOCOL.md, run with /bin/sh -c; it\n"
               "                                loses the game when an answer takes longer than %s\n"
               "                                milliseconds (default %d; bestmove: plus the move's time)\n"
               "options of uct and puct agents (comma-separated after the budget; ab agents take those\n"
               "marked all):\n",
            (unsigned long long)MCTS_UCT_MAX_ITERS, (unsigned long long)MCTS_PUCT_MAX_SIMS, MCTS_AB_MAX_DEPTH,
            MCTS_CMD_TIMEOUT_ENV, MCTS_CMD_TIMEOUT_DEFAULT_MS);
    mcts_agent *u = calloc(1, sizeof *u), *p = calloc(1, sizeof *p);
    if (!u || !p) { free(u); free(p); return; }
    agent_defaults(u, AG_UCT, 1);
    agent_defaults(p, AG_PUCT, 1);
    for (int i = 0; i < NOPTIONS; i++) help_option(f, &OPTIONS[i], u, p);
    free(u);
    free(p);
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
        if (cmd_command(a, cmd, err, errlen) != 0) return -1;
        if (zz_pos_is_opening(start) && start->to_move == 0) return 0;
        char pos[ZZ_POSSTR_MAX + 16] = "position ";     /* a handicap or set-up: the whole position */
        zz_pos_to_string(start, pos + 9);
        return cmd_command(a, pos, err, errlen);
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

/* Ask the program for its move at p (tms: the move's time, 0: its own budget): the first line
 * before "ok" is the move; every line up to "ok" is read, so the next command starts clean. */
static int cmd_bestmove(mcts_agent *a, const zz_pos *p, double tms, zz_move *m, char *err, size_t errlen) {
    char line[512], cmd[64];
    if (tms > 0) tms = tms < 1 ? 1 : tms > MCTS_MAX_MOVE_MS ? MCTS_MAX_MOVE_MS : tms;   /* what the protocol takes */
    if (tms > 0) snprintf(cmd, sizeof cmd, "bestmove time %.0f", tms);
    else snprintf(cmd, sizeof cmd, "bestmove");
    if (cmd_send(a, cmd, err, errlen) != 0) return -1;
    double deadline = cmd_deadline(a, tms);
    bool got = false, bad = false;
    for (;;) {
        if (cmd_read(a, line, sizeof line, deadline, err, errlen) != 0) return -1;
        if (!strcmp(line, "ok")) break;
        if (bad || got) continue;
        char e[200];
        if (!strncmp(line, "err", 3)) {
            snprintf(err, errlen, "%s: %.200s", a->program, line);
            bad = true;
        } else if (zz_move_from_text(p, line, m, e, sizeof e) != 0) {
            snprintf(err, errlen, "%s: bestmove '%.100s': %s", a->program, line, e);
            bad = true;
        } else {
            got = true;
        }
    }
    if (bad) return -1;
    if (!got) { snprintf(err, errlen, "%s: bestmove gave no move", a->program); return -1; }
    return 0;
}

/* PUCT's move for p in tms ms (0: the simulation budget), guarded when guard= is on: the guard
 * before PUCT, or beside it on its own thread.  0, or -1 with a message. */
static int puct_choose(mcts_agent *a, const zz_pos *p, double tms, double t0, zz_move *m, char *err, size_t errlen) {
    sync_root(a, p);
    bool guarded = a->guard > 0 && a->ab != NULL;
    mcts_guard g = { .ab = a->ab, .share = a->guard, .margin = a->guard_margin, .depth = a->guard_depth,
                     .beside = guard_in_parallel(a), .top = a->guard_top,
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
        if (cmd_bestmove(a, p, tms, m, err, errlen) != 0) return -1;
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
        return cmd_command(a, cmd, err, errlen);
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
