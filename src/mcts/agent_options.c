/* agent_options.c — the options of the uct, puct and ab agents' specs (agent.h): one table
 * says, for each key, the kinds of agent that take it, its range, its help, and the fields of
 * the agent it sets (by the agent's kind); parsing, reading back and the tools' --help all go
 * through it. */
#include "agent_internal.h"
#include "eval_cache.h"
#include "guard.h"
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum { FOR_UCT = 1, FOR_PUCT = 2, FOR_BOTH = 3, FOR_AB = 4, FOR_ALL = 7 };

/* A field of mcts_agent that an option sets, for the kinds of agent in `kinds`. */
typedef enum { FIELD_INT = 1, FIELD_DOUBLE, FIELD_U64 } field_type;
typedef struct {
    int kinds;                     /* 0: no field */
    field_type type;
    size_t offset;
} option_field;

#define F(kinds, member)                                                                                  \
    { kinds, _Generic(((mcts_agent *)0)->member, int: FIELD_INT, double: FIELD_DOUBLE, uint64_t: FIELD_U64), \
      offsetof(mcts_agent, member) }

/* Every option of the uct, puct and ab agents: the kinds it applies to, its range (whole numbers
 * for the integer ones), a line of help, and the fields it sets (at most two; an agent's kind
 * picks among them: the first one of its kind is the one read back). */
typedef struct agent_option {
    const char *key;
    int kinds;
    double lo, hi;
    bool whole;
    const char *help;
    option_field field[2];
} agent_option;

static const agent_option OPTIONS[] = {
    { "threads", FOR_BOTH, 1, 256, true, "search threads (1: deterministic for a seed)",
      { F(FOR_UCT, ucfg.threads), F(FOR_PUCT, pcfg.threads) } },
    { "seed", FOR_ALL, 0, 9007199254740992.0, true, "mixed into every game's seed",
      { F(FOR_ALL, seed) } },
    { "time", FOR_ALL, 0, MCTS_MAX_MOVE_MS, false, "milliseconds per move (0: the budget counts)",
      { F(FOR_ALL, time_ms) } },
    { "game", FOR_ALL, 0, 3.6e7, false, "milliseconds per game, spread over the moves (0: none)",
      { F(FOR_ALL, game_ms) } },
    { "reuse", FOR_BOTH, 0, 1, true, "keep the subtree of the move played",
      { F(FOR_BOTH, reuse), F(FOR_PUCT, pcfg.reuse) } },
    { "win", FOR_BOTH, 0, 1, true, "play an immediately winning move unsearched",
      { F(FOR_UCT, ucfg.root_win_check), F(FOR_PUCT, pcfg.root_win_check) } },
    { "c", FOR_BOTH, 0, 100, false, "exploration constant",
      { F(FOR_UCT, ucfg.c_uct), F(FOR_PUCT, pcfg.c_puct) } },
    { "vl", FOR_BOTH, 1, 1000, true, "virtual loss: visits in flight per descent",
      { F(FOR_UCT, ucfg.virtual_loss), F(FOR_PUCT, pcfg.virtual_loss) } },
    { "fpu", FOR_BOTH, -10, 10, false, "uct: value of an unopened child; puct: its reduction",
      { F(FOR_UCT, ucfg.fpu), F(FOR_PUCT, pcfg.fpu_reduction) } },
    { "pwc", FOR_UCT, 1e-6, 1000, false, "progressive widening: children <= pwc * N^pwa",
      { F(FOR_UCT, ucfg.pw_c) } },
    { "pwa", FOR_UCT, 0, 1, false, "progressive widening exponent",
      { F(FOR_UCT, ucfg.pw_alpha) } },
    { "fpuroot", FOR_PUCT, -10, 10, false, "first-play urgency reduction at the root",
      { F(FOR_PUCT, pcfg.fpu_reduction_root) } },
    { "batch", FOR_PUCT, 1, 4096, true, "leaves per evaluator call at most",
      { F(FOR_PUCT, pcfg.batch) } },
    { "inflight", FOR_PUCT, 1, 4096, true, "leaves waiting per search thread (threadev=0)",
      { F(FOR_PUCT, pcfg.inflight) } },
    { "threadev", FOR_PUCT, 0, 1, true, "threads > 1: 1 an evaluator each (a network), 0 one shared through a batcher",
      { F(FOR_PUCT, pcfg.thread_evaluators) } },
    { "noise", FOR_PUCT, 0, 1, true, "Dirichlet noise at the root",
      { F(FOR_PUCT, pcfg.noise) } },
    { "eps", FOR_PUCT, 0, 1, false, "weight of the noise",
      { F(FOR_PUCT, pcfg.noise_eps) } },
    { "alpha", FOR_PUCT, 1e-6, 1e6, false, "Dirichlet alpha times the legal moves",
      { F(FOR_PUCT, pcfg.noise_alpha_total) } },
    { "temp", FOR_PUCT, 0, 100, false, "move choice by visits^(1/temp) (0: most visits)",
      { F(FOR_PUCT, pcfg.temperature) } },
    { "tempplies", FOR_PUCT, 0, 100000, true, "plies with temperature (0: every ply)",
      { F(FOR_PUCT, pcfg.temp_plies) } },
    { "full", FOR_PUCT, 0, 1, false, "probability of a full search (else fast=)",
      { F(FOR_PUCT, pcfg.full_prob) } },
    { "fast", FOR_PUCT, 1, 2e9, true, "simulations of a fast search",
      { F(FOR_PUCT, pcfg.sims_fast) } },
    { "maxchildren", FOR_PUCT, 0, 100000, true, "keep the best priors only (0: all)",
      { F(FOR_PUCT, pcfg.max_children) } },
    { "edges", FOR_PUCT, 0, ZZ_MAX_MOVES, true, "edges stored per node below the root until it needs more (0: all; default 32; the same search)",
      { F(FOR_PUCT, pcfg.edge_window) } },
    { "ptemp", FOR_PUCT, 0.1, 10, false, "prior temperature: priors as p^(1/ptemp), renormalised (1: the network's)",
      { F(FOR_PUCT, pcfg.prior_temp) } },
    { "rootsym", FOR_PUCT, 0, 12, true, "the root's priors averaged over this many symmetries of the board (12 on 37 and 61 rings, 6 on 48; 0 or 1: off)",
      { F(FOR_PUCT, pcfg.root_syms) } },
    { "symvisits", FOR_PUCT, 0, 1e9, true, "with rootsym=K: a node below the root averaged the same way once it has this many visits (one thread; 0: the root only)",
      { F(FOR_PUCT, pcfg.sym_visits) } },
    { "forceprior", FOR_PUCT, 0, 1000, false, "priors of placements that force the next player to capture times 1 + forceprior, renormalised (0: off)",
      { F(FOR_PUCT, pcfg.force_prior) } },
    { "tactic", FOR_PUCT, 0, 1, false, "a placement whose exchange wins tacticmargin= points (alpha-beta's capture quiescence) gets at least this prior, at the root and tacticdepth= plies below (0: off)",
      { F(FOR_PUCT, pcfg.tactic_prior) } },
    { "tacticdepth", FOR_PUCT, 0, 64, true, "tactic=: plies below the root where it applies",
      { F(FOR_PUCT, pcfg.tactic_depth) } },
    { "tacticmargin", FOR_PUCT, 1, 100000, true, "tactic=: the exchange's gain in points (120 = a white)",
      { F(FOR_PUCT, pcfg.tactic_margin) } },
    { "tacticrun", FOR_PUCT, 0, MCTS_FORCING_MAX_K, true, "tactic=: at the root, placements scored by the mover's best forcing run of at most this many placements that starts with them (forcing.h; 0, 1: the exchange alone)",
      { F(FOR_PUCT, pcfg.tactic_run) } },
    { "tacticnodes", FOR_PUCT, 0, 1e9, true, "tacticrun=: positions searched at a root, at most (0: no limit)",
      { F(FOR_PUCT, pcfg.tactic_run_nodes) } },
    { "mix", FOR_PUCT, 0, 1, false, "leaf values blended with random rollouts, weight",
      { F(FOR_PUCT, mix) } },
    { "rollouts", FOR_PUCT, 1, 1000, true, "rollouts per leaf with mix=",
      { F(FOR_PUCT, mix_rollouts) } },
    { "abmix", FOR_PUCT, 0, 1, false, "leaf values blended with alpha-beta's score, weight",
      { F(FOR_PUCT, abmix) } },
    { "abscale", FOR_PUCT, 1, 100000, false, "abmix=: value = tanh(score / abscale) (120 = a white marble)",
      { F(FOR_PUCT, abscale) } },
    { "abdepth", FOR_PUCT, 0, 8, true, "abmix=: 0 capture quiescence, else an alpha-beta search of this depth",
      { F(FOR_PUCT, abdepth) } },
    { "quiet", FOR_PUCT, 0, 4096, true, "leaves where the mover must capture valued by playing every capture out to quiet positions (the network's values there, minimaxed), capture trees of at most this many positions (0: off)",
      { F(FOR_PUCT, quiet) } },
    { "forcing", FOR_PUCT, 0, MCTS_FORCING_MAX_K, true, "after PUCT, its move checked against the other player's runs of up to this many forcing placements (forcing.h; 0, the default: off)",
      { F(FOR_PUCT, forcing) } },
    { "forcingtop", FOR_PUCT, 1, MCTS_FORCING_TOP_MAX - 1, true, "forcing=: PUCT's most visited moves checked besides its choice",
      { F(FOR_PUCT, forcing_top) } },
    { "forcinggap", FOR_PUCT, 1, 100000, true, "forcing=: points by which another checked move must beat PUCT's (120 = a white)",
      { F(FOR_PUCT, forcing_gap) } },
    { "forcingshare", FOR_PUCT, 0, 0.5, false, "forcing=: share of a move's time kept for the check",
      { F(FOR_PUCT, forcing_share) } },
    { "guard", FOR_PUCT, 0, 0.9, false, "share of a move's time (time= or game=) for an alpha-beta guard on the move (0, the default: none)",
      { F(FOR_PUCT, guard) } },
    { "guarddepth", FOR_PUCT, 1, 8, true, "guard=: its alpha-beta depth when a move has a simulation budget, not a time",
      { F(FOR_PUCT, guard_depth) } },
    { "guardmargin", FOR_PUCT, 0, 100000, false, "guard=: play alpha-beta's move when it scores this many points more (120 = a white)",
      { F(FOR_PUCT, guard_margin) } },
    { "guardpar", FOR_PUCT, 0, 1, true, "guard=, guardtop=0: 1 alpha-beta over every move on a thread of its own beside PUCT, both for the move's time; 0 before PUCT, for the guard's share (default weights: 1 also keeps guardtop=0)",
      { F(FOR_PUCT, guard_parallel) } },
    { "guardtop", FOR_PUCT, 0, MCTS_GUARD_TOP_MAX, true, "guard=: 0 alpha-beta over every move; K: after PUCT, over PUCT's move and its K most visited others only (deeper; default weights: the board's, 4 on 48 and 61 rings unless guardpar=1)",
      { F(FOR_PUCT, guard_top) } },
    { "guardend", FOR_PUCT, 0, 1, true, "guardtop=: 1 alpha-beta starts new depths until the move's time is spent; 0 only in the first half of its time",
      { F(FOR_PUCT, guard_to_the_end) } },
    { "gumbel", FOR_PUCT, 0, 64, true, "Gumbel root search with this many candidates (a simulation budget, no time)",
      { F(FOR_PUCT, pcfg.gumbel_m) } },
    { "forced", FOR_PUCT, 0, 1, true, "go on through a node with one legal move, unevaluated",
      { F(FOR_PUCT, pcfg.pass_forced) } },
    { "solver", FOR_PUCT, 0, 1, true, "prove won and lost positions in the tree: take a proven win, avoid a proven loss",
      { F(FOR_PUCT, pcfg.solver) } },
    { "prec", FOR_PUCT, -1, 2, true, "network convolutions: 0 float, 1 bf16, 2 int8, -1 as ZZ_NN_PRECISION says",
      { F(FOR_PUCT, prec) } },
    { "cache", FOR_PUCT, 0, MCTS_EVAL_CACHE_MAX, true, "a network's answers kept for positions met again, this many (a power of two; 0: none)",
      { F(FOR_PUCT, cache) } },
    { "leafsym", FOR_PUCT, 0, 1, true, "1: the network sees each position under a symmetry of the board drawn from the position's hash, the answer mapped back",
      { F(FOR_PUCT, leafsym) } },
};
enum { NOPTIONS = sizeof OPTIONS / sizeof *OPTIONS };

static int kind_bit(int kind) {
    return kind == AG_UCT ? FOR_UCT : kind == AG_PUCT ? FOR_PUCT : kind == AG_AB ? FOR_AB : 0;
}

static const agent_option *find_option(const char *key, int kind) {
    for (int i = 0; i < NOPTIONS; i++)
        if (!strcmp(OPTIONS[i].key, key) && (OPTIONS[i].kinds & kind_bit(kind))) return &OPTIONS[i];
    return NULL;
}

/* Set a checked value of option o (find_option's) in every field of a's kind. */
static void set_option(mcts_agent *a, const agent_option *o, double v) {
    for (int i = 0; i < 2; i++) {
        const option_field *f = &o->field[i];
        if (!(f->kinds & kind_bit(a->kind))) continue;
        void *p = (char *)a + f->offset;
        if (f->type == FIELD_INT) *(int *)p = (int)v;
        else if (f->type == FIELD_DOUBLE) *(double *)p = v;
        else *(uint64_t *)p = (uint64_t)v;
    }
    if (!strcmp(o->key, "guardtop")) a->guard_top_given = true;
}

/* Option o's value in a (for the help's defaults): its first field of a's kind (guardpar=: its default is
 * described in words by help_option, not read). */
static double get_option(const mcts_agent *a, const agent_option *o) {
    for (int i = 0; i < 2; i++) {
        const option_field *f = &o->field[i];
        if (!(f->kinds & kind_bit(a->kind))) continue;
        const void *p = (const char *)a + f->offset;
        return f->type == FIELD_INT ? *(const int *)p : f->type == FIELD_DOUBLE ? *(const double *)p
                                                                                : (double)*(const uint64_t *)p;
    }
    return 0;
}

int agent_parse_options(mcts_agent *a, char *opts, char *err, size_t errlen) {
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
        set_option(a, o, v);
    }
    return 0;
}

/* One option's line of help: its range, what it does, its default for uct and puct agents. */
static void help_option(FILE *f, const agent_option *o, const mcts_agent *u, const mcts_agent *p) {
    char range[64], dflt[64];
    snprintf(range, sizeof range, "%.15g..%.15g", o->lo, o->hi);
    if (!strcmp(o->key, "seed")) snprintf(range, sizeof range, "0..2^53");
    double du = get_option(u, o), dp = get_option(p, o);
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
