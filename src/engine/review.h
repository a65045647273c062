/* review.h — the review of a whole game with the engine, as lichess's analysis board and KaTrain
 * do it: every turn's starting position is searched; the turn played is compared with the
 * engine's best turn; the loss in win probability labels it an inaccuracy, a mistake or a
 * blunder.  tools/analyse and the web server call ze_review_game.
 *
 * Definitions (per turn; "mover" = who played it; values in [-1, 1] from the mover's view):
 *   value_best    the value of the engine's most visited first move at the turn's start;
 *   best          the engine's turn: its main line while the mover keeps moving (a capture chain
 *                 is one turn), completed by a search of the mid-turn position where the line
 *                 stops early;
 *   value_played  the first that applies:
 *                 - minus the next turn's value_before when the reply played there was `better`
 *                   (below): the reply shows what this turn allowed ("reply played");
 *                 - value_best when the turn played is the engine's turn;
 *                 - the exact result when it ends the game;
 *                 - for a one-move turn the search visited at least ZE_SAME_SEARCH_VISITS times
 *                   (or 1 % of its visits, whichever is more), that move's value in the same
 *                   search: both values then come from one tree, from the mover's view (the
 *                   network over-rates the player to move, and comparing two searches seen from
 *                   both sides would add that bias twice, src/nn/README.md, "Calibration of the
 *                   value"); but not where the next position's own value shows the turn `better`;
 *                 - minus the next position's value (the same sign when the same player moves
 *                   next);
 *   better        the turn played was worth more than the engine's choice by at least the
 *                 inaccuracy threshold in win probability, valued by a search of its own (the next
 *                 position, or the reply played, or the result): not forced, not the engine's;
 *   value_before  the position's value in hindsight: value_played when `better`, else value_best
 *                 (so the turn before it is scored against what was played, not what the engine
 *                 saw; scored from the last turn back, a later turn's hindsight reaches earlier);
 *   loss          max(0, wp(value_before) - wp(value_played)), wp = ze_win_prob at the config's
 *                 temperature: 0 when the turn is the engine's or the only legal one (forced);
 *   label         blunder / mistake / inaccuracy when loss >= thresholds[2] / [1] / [0].
 * Turns with no engine opinion (an unfinished analysis) are left NAN. */
#ifndef ZE_REVIEW_H
#define ZE_REVIEW_H

#include "analysis.h"
#include "game/sgf.h"

enum { ZE_LABEL_NONE, ZE_LABEL_INACCURACY, ZE_LABEL_MISTAKE, ZE_LABEL_BLUNDER };
extern const char *const ZE_LABEL_NAMES[4];      /* "", "inaccuracy", "mistake", "blunder" */

/* Default thresholds on the win-probability loss (README.md, "Reviewing a game"), and the
 * calibration temperature fitted on searched Boardspace positions (src/nn/README.md). */
#define ZE_INACCURACY 0.10
#define ZE_MISTAKE 0.20
#define ZE_BLUNDER 0.30
#define ZE_TEMPERATURE 1.6
enum { ZE_SAME_SEARCH_VISITS = 20 };

/* Where a turn's value_played came from. */
enum { ZE_FROM_NONE, ZE_FROM_ENGINE, ZE_FROM_RESULT, ZE_FROM_SAME_SEARCH, ZE_FROM_NEXT, ZE_FROM_REPLY };
extern const char *const ZE_FROM_NAMES[6];      /* "", "engine", "result", "same search", "next position",
                                                   "reply played" */

typedef struct ze_review_config {
    uint64_t sims;           /* simulations per position (or 0) */
    double time_ms;          /* milliseconds per position (or 0); one of the two > 0 */
    double temperature;      /* calibration of values into win probabilities (1 = none) */
    double thresholds[3];    /* inaccuracy, mistake, blunder */
    uint64_t seed;
} ze_review_config;

/* sims 0, time 1000 ms, temperature ZE_TEMPERATURE, the default thresholds, seed 1. */
void ze_review_config_default(ze_review_config *c);

typedef struct ze_review_turn {
    int player;                        /* the mover */
    int nmoves;                        /* the turn played (its moves) and its notation */
    zz_move moves[ZZ_MAX_CHAIN];
    char played[ZZ_NOTATION_MAX];
    int nbest;                         /* the engine's turn and its notation */
    zz_move best_moves[ZZ_MAX_CHAIN];
    char best[ZZ_NOTATION_MAX];
    double value_best, value_played;   /* mover's view, [-1, 1] (NAN: not analysed) */
    double value_before;               /* value_best, or value_played for a `better` turn */
    double wp_before;                  /* mover's win probability before the turn = wp(value_before) */
    double wp_played;                  /* wp(value_played) */
    double loss;                       /* in win probability, >= 0 */
    int value_from;                    /* ZE_FROM_*: where value_played came from */
    double q_same;                     /* the played move's value in the turn's own search, and */
    uint32_t visits_same;              /* its visits there (one-move turns; 0 when not visited) */
    int label;                         /* ZE_LABEL_* */
    bool forced;                       /* the only legal turn */
    bool is_best;                      /* the turn played is the engine's */
    bool better;                       /* worth more than the engine's turn (above) */
    uint64_t sims;                     /* simulations of the turn's search */
    double seconds;
} ze_review_turn;

typedef struct ze_review {
    int nturns;
    ze_review_turn *turns;             /* nturns entries */
    double final_value;                /* after the last turn, for the player to move there: the
                                          exact result when over (NAN when not analysed) */
    int final_to_move;
    int done;                          /* positions analysed */
    int total;                         /* positions to analyse */
    double seconds;
    bool stopped;                      /* ended early by the stop flag */
} ze_review;

/* Called after each analysed position (from the reviewing thread). */
typedef void (*ze_review_progress_fn)(const ze_review *r, int turn, void *ctx);

/* Review game g with agent a (a uct or puct agent; it is started on g's start position).  stop
 * (may be NULL) ends it early: the turns not analysed stay NAN.  r is allocated here (free with
 * ze_review_free, also after an error).  0, or -1 with a message (a bad budget, an agent that
 * cannot analyse, an empty game, a search failure). */
int ze_review_game(mcts_agent *a, const zz_game *g, const ze_review_config *cfg, const atomic_int *stop,
                   ze_review_progress_fn progress, void *ctx, ze_review *r, char *err, size_t errlen);
void ze_review_free(ze_review *r);

/* Score turns 0..upto-1 of r (values, hindsight, loss, label; above) from pos[0..upto] (the
 * positions at the start of each turn, pos[upto] after turn upto-1) and val[0..upto] (each
 * position's value for the player to move there, from its search; NAN when not analysed).  Goes
 * from turn upto-1 back to 0, since a turn's score reads the next turn's hindsight.  Each turn's
 * player, moves, best moves, forced, sims, q_same and visits_same must be set.  ze_review_game
 * calls it as the positions come in; tests call it on values of their own. */
void ze_review_score(ze_review *r, const zz_pos *pos, const double *val, int upto, const ze_review_config *cfg);

/* The label of a loss under thresholds t[3]. */
int ze_review_label(double loss, const double t[3]);

/* Player 0's win probability before turn i (0..nturns; nturns = after the last), NAN unknown. */
double ze_review_wp0(const ze_review *r, const ze_review_config *cfg, int i);

#endif
