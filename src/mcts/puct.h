/* puct.h — PUCT search guided by an evaluator (AlphaZero style), on the shared lock-free tree.
 *
 * A node is expanded once, by the thread that wins the NEW -> PENDING CAS, with the evaluator's
 * priors: its moves are stored as edges sorted by prior (ties in a seeded random order), and
 * children are opened in that order, so the opened children are always a prefix of the edges
 * and only the next edge needs to be scored besides the open children.  Selection maximises
 *     Q + c_puct * P * sqrt(N) / (1 + n)
 * with an unopened child valued at the parent's Q minus fpu_reduction * sqrt(opened priors).
 * Values are backed up from the view of the player who moved into each node (tree.h), so the
 * sign flips only where the player to move changes (never inside a chain of jumps).
 *
 * Modes.  threads == 1: the caller selects up to `batch` leaves (virtual loss keeps them
 * apart), evaluates them in one call and backs them up: deterministic for a seed.
 * threads > 1, thread_evaluators on and an evaluator that can be copied (the CPU network): that
 * many threads (the caller is one) each do the same on the one tree, each with its own copy of
 * the evaluator, so that every core runs the network.  Otherwise: that many worker threads select
 * and back up, each with up to `inflight` leaves waiting; the caller runs the batcher (batcher.h)
 * that evaluates whatever is queued (one evaluator for all: the GPU's way).
 *
 * With `solver`, won and lost positions are proven in the tree (proof.h): a child proven won is
 * always selected, one proven lost only when nothing else is left, the move choice follows the
 * proofs, and a search stops once its root is proven.
 *
 * Root options: priors averaged over symmetries of the board (root_syms), Dirichlet noise (alpha = noise_alpha_total / legal moves), temperature for the
 * move choice, tree reuse (mcts_puct_advance), and playout-cap randomisation (mcts_puct_think:
 * a full search with probability full_prob, else a fast one; only full searches are marked as
 * policy targets). */
#ifndef MCTS_PUCT_H
#define MCTS_PUCT_H

#include "batcher.h"
#include "evaluator.h"
#include "tree.h"
#include "uct.h"       /* mcts_search_stats */

typedef struct mcts_puct_config {
    uint64_t seed;
    int threads;               /* 1 = deterministic; > 1: see thread_evaluators */
    int thread_evaluators;     /* threads > 1: 1 (default) = each thread evaluates its own batches
                                  with its own copy of the evaluator, where it can be copied
                                  (evaluator.h: clone); 0 = workers + the caller evaluating for all */
    int batch;                 /* leaves per evaluator call at most */
    int inflight;              /* leaves waiting per worker thread (threads > 1) */
    double c_puct;
    double fpu_reduction;      /* unopened child's Q = parent Q - fpu_reduction*sqrt(open priors) */
    double fpu_reduction_root; /* the same at the root */
    int virtual_loss;          /* visits in flight per descent (≥ 1) */
    int noise;                 /* full searches mix Dirichlet noise into the root priors */
    double noise_eps;          /* weight of the noise */
    double noise_alpha_total;  /* alpha * legal moves */
    double temperature;        /* move choice ∝ N^(1/T) while ply < temp_plies; 0 = most visits */
    int temp_plies;            /* plies (from the game start) with temperature; 0 = every ply */
    double full_prob;          /* playout-cap randomisation: probability of a full search */
    int sims_full, sims_fast;  /* simulations of a full / fast search */
    int reuse;                 /* keep the subtree of the move played */
    int max_children;          /* keep only the best max_children priors at expansion (0 = all) */
    int edge_window;           /* > 0 (default 32): mcts_puct_search's expansions below the root
                                  store only the edges of the first edge_window moves by prior
                                  (their priors those of the whole list); a node that has opened
                                  them all is evaluated again and widened fourfold (puct.c's
                                  widen), and a root gets all its edges before a search: the same
                                  search as with every edge stored, for a fraction of the memory
                                  (on 61 rings a node has ~1,000 moves and opens about one).  0 =
                                  every edge.  Where the searching thread has no evaluator at hand
                                  (the stepping API, the batcher's workers) the widening is a
                                  request of its own (MCTS_STEP_WIDEN).  Not with max_children,
                                  solver, sym_visits or tactic_prior */
    double prior_temp;         /* expansion stores priors ∝ p^(1/prior_temp) (1 = the network's;
                                  > 1 flattens them, so low-prior replies get looked at) */
    double force_prior;        /* expansion multiplies the prior of a placement that forces the
                                  next player to capture by 1 + force_prior (0: off), before the
                                  sort and the renormalisation */
    double tactic_prior;       /* > 0: at nodes at most tactic_depth plies below the root, a
                                  placement whose exchange gains at least tactic_margin points
                                  (alpha-beta's quiescence, tactic.h) gets a prior of at least
                                  this, before the sort and the renormalisation (0: off) */
    int tactic_depth;          /* default 1: the root and the replies to its moves */
    int tactic_margin;         /* default 100 (a white marble is 120) */
    int tactic_run;            /* >= 2 (with tactic_prior): at the root, once per root, before its
                                  noise, every forcing placement is scored by the mover's best
                                  forcing run of at most this many placements that starts with it
                                  (tactic.h's mcts_tactic_runs, forcing.h), and raised to
                                  tactic_prior when it gains tactic_margin: sacrifices whose return
                                  comes placements later.  0, 1: off (the exchange alone) */
    int tactic_run_nodes;      /* tactic_run's budget of positions at a root (default 300,000:
                                  about 0.1 s; placements past it are not scored) */
    int root_syms;             /* > 1: a root's priors (and value) are the mean of the evaluator's
                                  over the board's first root_syms symmetries (sym_eval.h; at most
                                  12 on 37 and 61 rings, 6 on 48), once per root, before noise;
                                  the edges kept stay those of the first evaluation (0, 1: off;
                                  not with force_prior or tactic_prior) */
    int sym_visits;            /* > 0 (with root_syms, one thread): a node below the root is
                                  averaged the same way when a descent reaches it with this many
                                  visits (0: the root only).  Both in mcts_puct_search only: the
                                  stepping API below (self-play) averages nothing */
    int root_win_check;        /* think() plays an immediately winning move unsearched */
    int pass_forced;           /* a node with one legal move below the root is not evaluated: the
                                  descent goes on through its move (default 1) */
    int solver;                /* prove won and lost positions in the tree (proof.h): a child
                                  proven won is always taken, one proven lost only when nothing
                                  else is left, by the search and by the move choice */
    uint32_t max_nodes;        /* node arena capacity (0 = default) */
    uint32_t max_edges;        /* edge arena capacity (0 = default) */
    int gumbel_m;              /* > 0: Gumbel root search with this many candidates (gumbel.h) for
                                  searches with a simulation budget; threads must be 1, no reuse */
    double gumbel_cvisit, gumbel_cscale;   /* sigma's constants (default 50 and 0.1) */
} mcts_puct_config;

void mcts_puct_config_default(mcts_puct_config *c);
/* 0 when mcts_puct_new would take cfg, else -1 with the reason (a value out of range, or options
 * that do not go together). */
int mcts_puct_check_config(const mcts_puct_config *cfg, char *err, size_t errlen);

typedef struct mcts_puct mcts_puct;

/* A searcher over evaluator ev (borrowed: it must outlive the searcher).  NULL with a message
 * on bad configuration or out-of-memory.  The root starts at the 37-ring opening. */
mcts_puct *mcts_puct_new(const mcts_puct_config *cfg, mcts_evaluator *ev, char *err, size_t errlen);
void mcts_puct_free(mcts_puct *s);
const mcts_tree *mcts_puct_tree(const mcts_puct *s);
const mcts_puct_config *mcts_puct_get_config(const mcts_puct *s);

/* A fresh tree at p. */
void mcts_puct_set_root(mcts_puct *s, const zz_pos *p);
/* Play m at the root; keeps its subtree when cfg.reuse and it exists (returns whether kept). */
bool mcts_puct_advance(mcts_puct *s, zz_move m);

/* Run `sims` more simulations (a first evaluation of a new root counts as one), stopping
 * early after time_ms when > 0 (sims 0 = until the time is up).  With `noise`, Dirichlet noise
 * is mixed into the root priors (once per root).  Returns 0, or -1 with a message (evaluator
 * failure: the tree is reset; out of memory: the search stops with what it has). */
int mcts_puct_search(mcts_puct *s, uint64_t sims, double time_ms, bool noise, mcts_search_stats *st,
                     char *err, size_t errlen);

/* Ask a running mcts_puct_search to stop soon (safe from any thread; a call made before the
 * search starts is forgotten when it starts). */
void mcts_puct_stop(mcts_puct *s);

/* Choose a root move from the visit counts: ∝ N^(1/T), most visits when T ≤ 0.  After a Gumbel
 * search: the move sequential halving chose (temperature is not used: the Gumbel noise explores). */
zz_move mcts_puct_pick(mcts_puct *s, double temperature);

/* ---- Gumbel root (gumbel.h) -----------------------------------------------------------------
 * Start a Gumbel search at the expanded, fresh root (no child opened) for `budget` simulations:
 * draws the Gumbel noise, puts the top gumbel_m moves by g + log p first among the root's edges,
 * and makes the root's selection follow sequential halving until the root changes.  Returns
 * whether it is on (off when gumbel_m is 0, threads > 1, or the root is not fresh). */
bool mcts_puct_gumbel_root(mcts_puct *s, uint64_t budget);
/* The improved policy pi' of the root after a Gumbel search, its `cap` most probable moves at
 * most (renormalised), most probable first.  Returns how many (0 when no Gumbel search ran). */
int mcts_puct_gumbel_policy(const mcts_puct *s, zz_move *moves, float *probs, int cap);

typedef struct mcts_think {
    zz_move move;              /* the move to play (ZZ_MOVE_NONE when the game is over) */
    int full;                  /* 1: a full search, a policy-training target */
    float root_q;              /* root value for the player to move */
    mcts_search_stats stats;
} mcts_think;

/* ---- stepping API: what a self-play scheduler drives ------------------------------------------
 * Many games in flight, each with its own mcts_puct; worker threads step them and submit the
 * leaves to one shared batcher (batcher.h) whose thread evaluates whatever is queued and
 * publishes the results in the requests; the workers then finish them.  A worker holds the
 * per-thread scratch (request slots with move/prior buffers, sort keys, a node cache) for one
 * tree: use it from one thread at a time; several workers may step the same tree at once.
 * Reset or advance a tree only when none of its requests is in flight.  The caller counts the
 * simulations (root visits: mcts_stats_n of the root) and applies the root noise once
 * mcts_puct_root_ready says the root is expanded with all its edges.
 *
 * Edge windows (cfg.edge_window): a node whose window is used up, and a root that kept a window
 * (tree reuse), are evaluated again through a request of their own (MCTS_STEP_WIDEN), which
 * finishing widens (no simulation, no backup); meanwhile other descents choose among the node's
 * open children.  The weights may change between a node's expansion and its widening (training
 * publishes new ones): then the old edges, on which children sit, stay first and the rest follow
 * in the new ranking with the new evaluation's priors (counted: mcts_puct_worker_get_stats). */
typedef struct mcts_puct_worker mcts_puct_worker;
enum { MCTS_STEP_SUBMIT, MCTS_STEP_DONE, MCTS_STEP_COLLISION, MCTS_STEP_FULL, MCTS_STEP_BUSY, MCTS_STEP_WIDEN };

/* A worker for s with `slots` request slots; NULL on out-of-memory. */
mcts_puct_worker *mcts_puct_worker_new(mcts_puct *s, int slots, uint64_t seed);
void mcts_puct_worker_free(mcts_puct_worker *w);
/* Start one simulation.  SUBMIT: *req holds a leaf to evaluate (submit it to a batcher, or
 * evaluate it and mark it MCTS_REQ_DONE yourself), then mcts_puct_finish it; WIDEN: *req holds a
 * node to evaluate again, submitted and finished the same way, but no simulation (count none:
 * the next step descends again); DONE: a terminal result was backed up; COLLISION: the path met a
 * leaf still being evaluated (nothing counted: retry later); FULL: the tree is out of memory;
 * BUSY: every slot is in flight. */
int mcts_puct_step(mcts_puct_worker *w, mcts_request **req);
/* Finish an evaluated request (state MCTS_REQ_DONE): expand and back up a leaf, or widen a node;
 * its slot is free again. */
void mcts_puct_finish(mcts_puct_worker *w, mcts_request *req);
/* Give up a request (e.g. MCTS_REQ_FAILED): its visits in flight are taken back; a leaf's node
 * stays PENDING, so reset the tree before searching it again. */
void mcts_puct_abandon(mcts_puct_worker *w, mcts_request *req);
/* Whether the root is expanded with every edge that root-wide steps read (noise, the Gumbel
 * root): false while it awaits its evaluation, is terminal, or keeps the window it had as a child
 * (tree reuse) until a MCTS_STEP_WIDEN request widens it. */
bool mcts_puct_root_ready(const mcts_puct *s);
/* A stepping worker's widenings: nodes widened by its requests, and of those, how many the
 * evaluator ranked otherwise than at their expansion (the old edges kept first). */
typedef struct { uint64_t widened, reranked; } mcts_puct_worker_stats;
mcts_puct_worker_stats mcts_puct_worker_get_stats(const mcts_puct_worker *w);
/* tactic_run: raise the (expanded) root's priors of the first placements of winning forcing runs
 * to tactic_prior and renormalise, once per root; call before its noise, with no request in
 * flight.  Nothing without tactic_run >= 2 and tactic_prior > 0. */
void mcts_puct_root_runs(mcts_puct *s);
/* Mix Dirichlet noise into the (expanded) root's priors, once per root. */
void mcts_puct_root_noise(mcts_puct *s);

/* One move decision with playout-cap randomisation and the temperature rule (does not play
 * the move; call mcts_puct_advance).  sims > 0 overrides the full/fast choice (full, no
 * randomisation).  A forced move (one legal move) is returned unsearched with full = 0, and
 * with cfg.root_win_check so is a move that wins at once.  Returns 0 or -1 with a message. */
int mcts_puct_think(mcts_puct *s, int sims, double time_ms, mcts_think *out, char *err, size_t errlen);

#endif
