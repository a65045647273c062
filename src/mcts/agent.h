/* agent.h — players for the arena and the engine, built from a spec string:
 *
 *   random                     a uniformly random legal move
 *   uct:ITERS[,opt=v...]       UCT with random rollouts (uct.h); ITERS from 1 to MCTS_UCT_MAX_ITERS
 *   puct:WEIGHTS:SIMS[,opt=v]  PUCT over an evaluator: WEIGHTS is uniform, rollout, rollout:K, a
 *                              network checkpoint file (src/nn, run on the CPU), or `default`: the
 *                              shipped network for the game's board (mcts_default_weights),
 *                              with that board's guardtop= where the spec sets guard= and not
 *                              guardtop= (mcts_default_guard_top); SIMS
 *                              from 1 to MCTS_PUCT_MAX_SIMS
 *   ab:DEPTH[,opt=v...]        alpha-beta (ab.h): iterative deepening to DEPTH plies (1 to
 *                              MCTS_AB_MAX_DEPTH) or until time=MS is out; options time, game and
 *                              seed only; a simulation budget (mcts_agent_set_budget) leaves the
 *                              depth as it is; it cannot analyse (no tree)
 *   cmd:PROGRAM                an external engine speaking our protocol (PROTOCOL.md), run with
 *                              /bin/sh -c (so PROGRAM may hold arguments, commas included)
 *
 * Options (comma-separated after the budget, key=value): one table in agent_options.c gives each
 * option's key, the kinds of agent that take it (uct, puct; ab takes time=, game= and seed=), its
 * range, its line of help and the fields it sets; `tools/arena --help` prints them all with their
 * defaults.  time= is per move; game= a budget for the whole game, spread by mcts_move_time_ms.
 * The puct options that wrap the evaluator: mix= (random rollouts, mcts_eval_mix_new), abmix=
 * (alpha-beta, mcts_eval_abmix_new), quiet= (leaves in the middle of an exchange, mcts_eval_quiet_new);
 * those that change the search: puct.h's config; the alpha-beta guard (guard=, guardtop=, ...):
 * guard.h; cache= (eval_cache.h) and leafsym= (eval_net.h): the network evaluator's.
 * Every option has a range (mcts_agent_help prints them with their defaults); a value out of range,
 * not a number, or a fraction for a whole-number option is refused with a message.
 *
 * The cmd agent's timeout: every answer of the program (to the first `info`, to newgame, play and
 * bestmove) must end with its `ok` within $ZZ_CMD_TIMEOUT_MS milliseconds of the command (default
 * MCTS_CMD_TIMEOUT_DEFAULT_MS = 10 s; `bestmove time MS` gets MS more), read when the agent is
 * built (tools/arena --cmd-timeout MS sets it).  A program that does not answer in time is stopped
 * and the call fails with a message (in a match: it loses the game, and every later game at once);
 * a program that exits is reported with its exit status.
 *
 * An agent follows one game: newgame, then every move played (by either side) through played(),
 * and choose() whenever it is to move; it keeps its search tree between moves when it can. */
#ifndef MCTS_AGENT_H
#define MCTS_AGENT_H

#include "puct.h"
#include "uct.h"
#include <stdio.h>

typedef struct mcts_agent mcts_agent;

/* The shipped player: the shipped network searching 1 s per move, unguarded on every board (the
 * settings the strength ladder in weights/LADDER.md measured), and the player when no network is
 * shipped. */
#define MCTS_DEFAULT_PLAYER "puct:default:1000000000,time=1000"
#define MCTS_FALLBACK_PLAYER "uct:20000"

/* Budget limits of the spec: uct:ITERS and puct:WEIGHTS:SIMS. */
#define MCTS_UCT_MAX_ITERS 1000000000000ULL
#define MCTS_PUCT_MAX_SIMS 2000000000ULL
/* The longest time a move may be given (time=, and the engine protocol's budgets): an hour. */
#define MCTS_MAX_MOVE_MS 3.6e6

/* The cmd agent's answer timeout: the environment variable (milliseconds, 1 to the maximum), and
 * its default. */
#define MCTS_CMD_TIMEOUT_ENV "ZZ_CMD_TIMEOUT_MS"
enum { MCTS_CMD_TIMEOUT_DEFAULT_MS = 10000, MCTS_CMD_TIMEOUT_MAX_MS = 86400000 };

/* The shipped network of a board: $ZZ_WEIGHTS_DIR/zertzN.ckpt, else weights/zertzN.ckpt in the
 * working directory, else beside the running program (its folder's ../weights).  0 with the path,
 * or -1 (path then names where it was expected). */
int mcts_default_weights(zz_board_kind board, char *path, size_t len);

/* The agent's alpha-beta guard (guard=) is off unless its spec sets it, on every board and with
 * `default` weights too.  It was shipped on 61 rings (65-35 against the unguarded network at
 * 250 ms, and 20-20 against `ab` where the network alone scored 14-26, with earlier networks) and
 * on 48; with the networks shipped since, the guarded player lost to the unguarded one (48 rings:
 * 82-118 over 200 games at 250 ms and 1 s; 61: 32-68; 37: 33-66-1) and gained nothing against
 * `ab` (48: 29-11 against 33-7; 61: 24-16 against 25-15).  weights/LADDER.md, "The alpha-beta
 * guard by board" and "The guard among PUCT's best moves".
 * The guard share in force for the agent's current game (0: none, or not a puct agent). */
double mcts_agent_guard(const mcts_agent *a);
/* The guard's form among PUCT's best moves (guardtop=, guard.h) on a board, where a spec turns
 * the guard on (guard=): a puct agent with `default` weights takes it at each newgame, with any
 * number of threads, unless its spec sets guardtop= or guardpar=1 (the whole-root guard beside
 * PUCT).  4 on 48 and 61 rings:
 * against `ab` at 1 s a move it beat the whole-root guard on 48 rings with one thread and with
 * two, and on 61 it was better with one thread and even with two (weights/LADDER.md, "The guard
 * among PUCT's best moves"); 0 (the whole-root guard) on 37 rings, where neither form was
 * shipped. */
int mcts_default_guard_top(zz_board_kind board);
/* The guardtop= in force for the agent's current game (0: the whole-root guard, no guard, or not
 * a puct agent). */
int mcts_agent_guard_top(const mcts_agent *a);

typedef struct mcts_agent_stats {
    long moves;               /* moves chosen */
    double seconds;           /* time spent choosing them */
    uint64_t sims;            /* simulations (UCT iterations / PUCT playouts) */
    uint64_t overrides;       /* moves of PUCT that its alpha-beta guard or its forcing check
                                 replaced (guard=, forcing=) */
    uint64_t guarded_beside;  /* moves whose guard searched on its own thread beside PUCT (guardpar=) */
} mcts_agent_stats;

/* The time for the next move with a per-game budget game_ms (0: none) of which used_ms is
 * spent over moves_made moves: an even share of what is left over the moves still expected,
 * capped by per_move_ms when > 0; at least 1 ms. */
double mcts_move_time_ms(double per_move_ms, double game_ms, double used_ms, int moves_made);

/* Print the agent kinds and every option with its range and default (for the tools' --help). */
void mcts_agent_help(FILE *f);

/* Check a spec's syntax and ranges without building anything (no program started, no network
 * loaded): 0, or -1 with a message.  For tools that refuse bad usage before they start. */
int mcts_agent_check_spec(const char *spec, char *err, size_t errlen);
/* mcts_agent_check_spec, and that the network a PUCT spec names can play `board`: the shipped
 * one exists for it ("default"), or the checkpoint's header (read, nothing loaded) is of that
 * board.  For tools that play many games on one board: refused before the first, not in each. */
int mcts_agent_check_board(const char *spec, zz_board_kind board, char *err, size_t errlen);
/* Parse spec and build the agent (a cmd agent's program is started now).  threads_default
 * applies when the spec names no threads.  NULL with a message on a bad spec. */
mcts_agent *mcts_agent_new(const char *spec, int threads_default, char *err, size_t errlen);
void mcts_agent_free(mcts_agent *a);
/* The spec it was built from. */
const char *mcts_agent_name(const mcts_agent *a);
/* Start a game at `start` with a per-game seed (fixes the agent's choices when it runs on one
 * thread).  0, or -1 with a message. */
int mcts_agent_newgame(mcts_agent *a, const zz_pos *start, uint64_t seed, char *err, size_t errlen);
/* Choose a move at p (p must not be over).  0, or -1 with a message. */
int mcts_agent_choose(mcts_agent *a, const zz_pos *p, zz_move *m, char *err, size_t errlen);
/* Tell the agent that m was played at `before` (by either player).  0, or -1 with a message. */
int mcts_agent_played(mcts_agent *a, const zz_pos *before, zz_move m, char *err, size_t errlen);
/* The search budget of uct/puct agents for the next choices: sims iterations / simulations, or
 * time_ms milliseconds; 0 and 0 restore the spec's own budget. */
void mcts_agent_set_budget(mcts_agent *a, uint64_t sims, double time_ms);
const mcts_agent_stats *mcts_agent_get_stats(const mcts_agent *a);

/* ---- analysis (the engine session, src/engine) ----------------------------------------------
 * Whether the agent keeps a search tree that can be analysed (uct and puct agents). */
bool mcts_agent_can_analyse(const mcts_agent *a);
/* Search p for `sims` more simulations (0 = no limit) or time_ms milliseconds (0 = no limit; one
 * of the two must be set), without choosing a move: no root noise, no temperature.  The tree is
 * kept, so calls at the same position add up.  0, or -1 with a message (not an analysing agent,
 * p over, evaluator failure; a full tree is not an error: the search stops with what it has). */
int mcts_agent_analyse(mcts_agent *a, const zz_pos *p, uint64_t sims, double time_ms,
                       mcts_search_stats *st, char *err, size_t errlen);
/* The agent's search tree (NULL when it keeps none).  Read it only while no search runs. */
const mcts_tree *mcts_agent_tree(const mcts_agent *a);
/* Ask the agent's running search (analyse or choose) to stop soon.  Safe from any thread while
 * the agent exists; a stop asked before a search starts is forgotten when it starts. */
void mcts_agent_stop(mcts_agent *a);

#endif
