/* selfplay.h — the self-play scheduler: many games in flight at once, each with its own PUCT tree,
 * stepped by a few worker threads that submit leaves to one shared queue served by one or more
 * evaluator threads (eval_threads), each with its own copy of the evaluator.
 *
 * Threads.  Game g belongs to worker g % threads for its whole life, so a tree is only ever
 * touched by one thread (no lock on a tree).  A worker loops over its games: it finishes the
 * requests the evaluator has answered (acquire load of the request state), starts new
 * simulations (mcts_puct_step) and submits their leaves to the batcher's lock-free queue, and
 * moves on to its next game whenever one is waiting; when a game's search reaches its budget and
 * nothing of it is in flight, it plays the move.  Each evaluator thread runs mcts_batcher_run on
 * the one queue: it evaluates whatever is queued, never waiting for a full batch (on a CPU the
 * network is most of the work, so a second evaluator thread puts a second core on it).  The only lock is the mutex
 * guarding the list of finished games (once per game, never in the search).
 *
 * Per move: a full search (probability full_prob, Dirichlet noise at the root) or a fast one
 * (playout-cap randomisation: only full searches are policy targets); temperature for the first
 * temp_plies plies; the tree is kept for the next move; a forced move is played unsearched and
 * not recorded.  Resignation: the player to move resigns when the root value is below
 * -resign_value (after resign_min_ply), except in a calibration fraction of games that are
 * played out; there a would-be resignation is remembered, and if that player did not lose it
 * counts as a false resignation.  The ply cap makes a draw.
 *
 * Alpha-beta opponents (ab_share > 0): that share of the games (drawn per game) has one side, drawn
 * at random, played by the alpha-beta agent (mcts/ab.h) searching ab_depth plies (and at most ab_ms
 * milliseconds when that is > 0; depth 2 takes ~10 ms a move on 37 rings, depth 3 seconds in the
 * opening), a searcher per worker thread, which waits for it; its moves are played like forced ones (not searched by PUCT, not recorded), so
 * the network learns from its own decisions in positions a tactical opponent leads it to, with
 * the games' results as value targets.  The statistics count those games and the network's score
 * in them.
 *
 * Teacher mode (teacher_iters > 0) replaces the network's search by UCT with random rollouts
 * (expert iteration with a fixed, cheap expert): each worker plays one game at a time; UCT's root
 * visits are the policy targets, its root value feeds the value target (q_target).
 *
 * Every request submitted is answered exactly once: stopping (tr_selfplay_stop) lets the workers
 * finish everything in flight before the evaluator threads stop. */
#ifndef TR_SELFPLAY_H
#define TR_SELFPLAY_H

#include "mcts/puct.h"
#include "train/replay.h"
#include <stdatomic.h>

typedef struct {
    zz_board_kind board;
    int games_in_flight;       /* games played at once */
    int threads;               /* worker threads (the evaluator threads come on top) */
    int eval_threads;          /* evaluator threads, each with its own copy of the evaluator
                                  (evaluator.h: clone), serving one queue (default 1) */
    int slots;                 /* leaves in flight per game */
    int max_batch;             /* evaluator batch at most */
    int sims_full, sims_fast;
    double full_prob;
    double c_puct, fpu_reduction;
    double noise_eps, noise_alpha_total;
    double temperature;
    int temp_plies;
    double resign_value;       /* resign when root value < -resign_value; 0 or >= 1: never */
    int resign_min_ply;
    double resign_calib;       /* fraction of games played out regardless (calibration) */
    int ply_cap;               /* draw at this ply (0: none) */
    double q_target;           /* value target = (1 - q_target) * result + q_target * root value */
    int pass_forced;           /* 1: a one-move node below the root is passed, not evaluated (puct.h) */
    int gumbel_m;              /* > 0: Gumbel root search (mcts/gumbel.h) with this many candidates:
                                  the improved policy pi' is the policy target, sequential halving
                                  chooses the move (no Dirichlet noise, no temperature, no reuse) */
    int teacher_iters;         /* > 0: teacher mode: games played by UCT with this many iterations
                                  per decision (random rollouts, no network); every decision is a
                                  policy target; the evaluator is not used */
    double ab_share;           /* share of the games with an alpha-beta opponent (0: none) */
    int ab_depth;              /* its search depth in plies (1..MCTS_AB_MAX_DEPTH; default 2) */
    double ab_ms;              /* its time per move in milliseconds (0: the depth alone) */
    double force_prior;        /* the searches raise the priors of placements that force a capture
                                  (mcts_puct_config.force_prior; 0: off) */
    int prune_boost;           /* 1 (with force_prior): the policy targets keep only the visits the
                                  unboosted priors would have given a forcing placement
                                  (mcts/target_prune.h, KataGo's target pruning); 0: off */
    double tactic_prior;       /* > 0: the searches give a placement that wins an exchange (by
                                  alpha-beta's capture quiescence) a prior of at least this, at the
                                  root and the replies to its moves (mcts_puct_config.tactic_prior,
                                  tactic.h; the agent option tactic=); 0: off */
    int tactic_run;            /* >= 2 (with tactic_prior): at each root, placements are scored by
                                  the mover's forcing runs of at most this many placements
                                  (mcts_puct_config.tactic_run; the agent option tacticrun=); 0: off */
    int quiet_nodes;           /* > 0: leaves where the mover must capture are valued at the quiet
                                  positions after the exchange, capture trees of at most this many
                                  positions (mcts_eval_quiet_new; the agent option quiet=); 0: off */
    uint32_t max_nodes, max_edges;   /* per tree; max_edges 0 (the default): tr_selfplay_edge_cap */
    int net_precision;         /* the network's convolutions on the CPU (nn/infer.h nn_precision):
                                  NN_PREC_F32 (default), or int8 / bf16 where the CPU has them;
                                  the GPU runs float whatever this says */
    int eval_cache;            /* slots of the CPU network's cache of answers by position, one table
                                  for all evaluator threads (tr_live_eval_set_cache; 0: none;
                                  default 65,536: 62 MiB on 37 rings, 98 on 61) */
    int edge_window;           /* the searches' edge windows (mcts_puct_config.edge_window: a node
                                  below the root stores its best N edges, widened on demand by a
                                  request through the evaluator threads; default 32; 0: every edge) */
    uint64_t seed;
} tr_selfplay_config;

void tr_selfplay_config_default(tr_selfplay_config *c);
/* Edges a game's tree may store when max_edges is 0: 2^30 (8 GiB) shared by the games in flight,
 * at least 2^21 and at most 2^23 a game.  Without edge windows (edge_window 0) every expanded node
 * stores an edge for each legal move (about 4,000 in the 61-ring opening, where an 800-simulation
 * search needs ~3.4 million: with 2^21 a third of its visits went to nodes left without edges,
 * src/train/README.md); a tree touches only what it stores. */
uint32_t tr_selfplay_edge_cap(int games_in_flight);

/* A finished game: its samples (every searched decision; full ones are policy targets). */
typedef struct tr_game {
    tr_sample *samples;
    int nsamples, cap;
    int winner;                /* 0, 1, or -1 for a draw */
    int plies;
    int resigned;              /* ended by resignation */
    int calib;                 /* a calibration game (resignation disabled) */
    int would_resign;          /* calibration: the player who would have resigned first, or -1 */
    int ab_side;               /* the side the alpha-beta opponent played (ab_share), or -1 */
    struct tr_game *next;
} tr_game;
void tr_game_free(tr_game *g);

typedef struct {
    long long games, samples, full_samples, moves;
    long long resigned, calib_games, calib_would_resign, false_resign;
    long long draws, wins[2];
    long long ab_games, ab_wins, ab_draws;   /* games against the alpha-beta opponent; the network's wins, draws */
    long long submitted, finished, abandoned;   /* requests: a leaf each, or a node's widening */
    long long terminal;        /* simulations that ended in a finished game (no request) */
    long long widenings;       /* requests that widened a node's edge window (puct.h) */
    long long target_visits, pruned_visits;   /* root visits of the searches recorded (full and
                                                 fast: the full ones are the policy targets);
                                                 taken out of them by prune_boost */
    long long collisions, evals, batches;
    double plies_sum;
} tr_selfplay_stats;

typedef struct tr_selfplay tr_selfplay;

/* Build the scheduler over evaluator ev (borrowed; copied for evaluator threads beyond the first,
 * which needs ev->clone).  NULL with a message. */
tr_selfplay *tr_selfplay_new(const tr_selfplay_config *cfg, mcts_evaluator *ev, char *err, size_t errlen);
/* The evaluator the self-play searches use over the live network ev: ev's values blended with a
 * random rollout (rollout_mix > 0, rollouts seeded by seed) and taken at quiet positions
 * (quiet_nodes > 0), in that order.  *out is NULL when neither is asked (search with ev itself),
 * else a wrapper that does not own ev (free it before ev).  0, or -1 with a message. */
int tr_search_evaluator(mcts_evaluator *ev, double rollout_mix, int quiet_nodes, uint64_t seed,
                        mcts_evaluator **out, char *err, size_t errlen);
/* Start the worker and evaluator threads.  0, or -1 with a message. */
int tr_selfplay_start(tr_selfplay *sp, char *err, size_t errlen);
/* Hold (1) or release (0) the workers: held workers finish what is in flight but start nothing. */
void tr_selfplay_hold(tr_selfplay *sp, int hold);
/* The generation of the weights self-play now searches with: stamped on every sample recorded from
 * now on (tr_sample.gen).  Set it when the evaluator is handed new weights (the evaluator takes
 * them at its next batch, so a decision searched across the change carries the new number). */
void tr_selfplay_set_generation(tr_selfplay *sp, uint32_t gen);
/* Take the games finished so far (a list linked by next, oldest first; NULL when none). */
tr_game *tr_selfplay_take(tr_selfplay *sp);
/* Statistics so far (approximate while running: counters are relaxed atomics). */
void tr_selfplay_stats_get(tr_selfplay *sp, tr_selfplay_stats *st);
/* The first error a thread met, or NULL. */
const char *tr_selfplay_error(tr_selfplay *sp);
/* Stop: workers finish every request in flight, then the evaluator thread stops; joins all.
 * Games not finished are dropped.  Safe to call twice. */
void tr_selfplay_stop(tr_selfplay *sp);
void tr_selfplay_free(tr_selfplay *sp);

#endif
