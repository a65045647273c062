/* agent_internal.h — what the agent's files share (agent.c: building agents and playing a game;
 * agent_options.c: the spec's options and the help; agent_cmd.c: an external program over the
 * engine protocol).  Not for use outside src/mcts/agent*.c. */
#ifndef MCTS_AGENT_INTERNAL_H
#define MCTS_AGENT_INTERNAL_H

#include "agent.h"
#include "ab.h"
#include "forcing.h"
#include "mcts/evaluator.h"
#include "proc.h"
#include <stdbool.h>

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
    int forcing;                   /* > 0: PUCT's move checked against the other player's forcing
                                      runs of this many placements (forcing.h; 0: off) */
    int forcing_top, forcing_gap;  /* forcing=: PUCT's moves checked besides its choice, and the
                                      points by which another must beat it */
    double forcing_share;          /* forcing=: the share of a move's time kept for the check */
    int reuse;                     /* keep the subtree of the move played */
    mcts_uct *uct;
    mcts_puct *puct;
    mcts_ab *ab;
    mcts_forcing *forcer;          /* forcing=: its searcher */
    mcts_evaluator *ev;
    mcts_proc proc;
    char program[512];
    double cmd_timeout_ms;         /* a cmd agent's limit on each answer (MCTS_CMD_TIMEOUT_ENV) */
    zz_pos pos;                    /* the position the search tree is rooted at */
    bool have_pos;
    mcts_agent_stats stats;
};

/* Whether the guard searches beside PUCT: the whole-root guard (guardtop=0) with guardpar=1, or
 * with guardpar= unset and more than one thread.  The guard among PUCT's best never is. */
static inline bool agent_guard_in_parallel(const mcts_agent *a) {
    if (a->guard_top > 0) return false;
    return a->guard_parallel < 0 ? a->pcfg.threads > 1 : a->guard_parallel > 0;
}

/* agent.c: the agent's defaults for its kind (before the spec's options). */
void agent_defaults(mcts_agent *a, int kind, int threads_default);

/* agent_options.c: parse "key=value,..." (opts is modified) into a, each key one of a's kind's
 * options and each value in its range.  0, or -1 with a message naming the option and its range. */
int agent_parse_options(mcts_agent *a, char *opts, char *err, size_t errlen);

/* agent_cmd.c: the cmd agent (a->program, a->proc).  Each is 0, or -1 with a message; a program
 * that does not answer in time, or has stopped, is stopped for good (later calls fail at once). */
/* The answer limit from $ZZ_CMD_TIMEOUT_MS (default MCTS_CMD_TIMEOUT_DEFAULT_MS). */
int agent_cmd_timeout_from_env(mcts_agent *a, char *err, size_t errlen);
/* Start the program and check that it answers "info". */
int agent_cmd_start(mcts_agent *a, char *err, size_t errlen);
/* Send a command and wait for its "ok" ("err" lines are errors). */
int agent_cmd_command(mcts_agent *a, const char *cmd, char *err, size_t errlen);
/* The program's move at p in tms ms (0: its own budget). */
int agent_cmd_bestmove(mcts_agent *a, const zz_pos *p, double tms, zz_move *m, char *err, size_t errlen);

#endif
