/* match.h — play two agents against each other: N games, alternating who starts, several games
 * at once, every game optionally written as Boardspace SGF; results with an Elo estimate.
 *
 * Reproducibility: game i is seeded from (seed, i) alone, so with single-threaded agents the same
 * seed replays the same games in any order and with any number of parallel games (digest).
 *
 * Openings: with a list of openings, games 2k and 2k+1 both start with opening k (mod the list),
 * A moving first in one and B in the other, so deterministic agents never replay a game.  The
 * opening's moves are played for both agents (they are not searched) and written to the SGF.
 *
 * Early stop: with stop_early > 0, once at least that many games have finished and the 95% Elo
 * interval of the finished games excludes 0 (50%), no new opening pair is started; the pairs in
 * progress are finished, and only the games played are counted.  With an SPRT (sprt.h), the same
 * once its log-likelihood ratio leaves its bounds: that decision stands, with the games it counted
 * (sprt_games), whatever the games that finish the pairs in progress give. */
#ifndef MCTS_MATCH_H
#define MCTS_MATCH_H

#include "agent.h"
#include "game/handicap.h"
#include "openings.h"
#include "sprt.h"
#include <stdio.h>

/* The ply cap of the arena and the ladder: Boardspace has no repetition rule, and once the pool
 * is empty and no ring is free, two players can place and recapture the same marbles for ever
 * (seen between two networks: past 5,000 plies).  The longest archive game has far fewer plies. */
enum { MCTS_MATCH_PLY_CAP_DEFAULT = 400 };

typedef struct mcts_match_config {
    const char *spec[2];       /* agents A and B */
    int games;
    int parallel;              /* games played at once (threads) */
    int agent_threads;         /* search threads per agent unless its spec says (default 1) */
    uint64_t seed;
    zz_board_kind board;
    int ply_cap;               /* a draw at this ply; 0: none (a game may then never end) */
    const char *sgf_dir;       /* write game-NNNN.sgf here (created if missing); NULL: none */
    FILE *progress;            /* one line per finished game, or NULL */
    const mcts_opening *openings;   /* games 2k, 2k+1 start with openings[k % nopenings]; NULL: none */
    int nopenings;
    int stop_early;            /* > 0: stop after this many games once the interval excludes 50% */
    const mcts_sprt *sprt;     /* not NULL: stop (as stop_early does) once the SPRT decides */
    const zz_handicap *handicap;    /* Zertz+H: NULL none; else .player is the AGENT (0 A, 1 B) that
                                       receives .wgb in its captures in every game, whichever colour
                                       it plays; the SGF says SU[Zertz+H] */
} mcts_match_config;

typedef struct mcts_match_result {
    int games, wins, losses, draws;      /* from A's view */
    int first_player_wins;               /* games won by the player who moved first */
    int a_first_games;                   /* games A moved first in (game 0, 2, 4 ...), and its */
    int a_first_wins, a_first_losses;    /* wins and losses there (moving second: the rest) */
    long plies;                          /* moves played in all games */
    long moves[2];                       /* moves chosen by A / B */
    double seconds[2];                   /* time A / B spent choosing */
    uint64_t sims[2];                    /* simulations (UCT iterations, PUCT playouts) A / B ran */
    uint64_t overrides[2];               /* moves their alpha-beta guards replaced (guard=) */
    uint64_t digest;                     /* of all games' moves (order-independent) */
    int distinct;                        /* games whose move sequences differ from every other's */
    int stopped_early;                   /* the interval excluded 50% (or the SPRT decided) before all
                                            games were played */
    int sprt_decision;                   /* with an SPRT: MCTS_SPRT_H0 / H1 when it decided, else GOING */
    double sprt_llr;                     /* its LLR when it decided (else over every game played) */
    int sprt_games;                      /* the games it had counted then (the pairs in progress are
                                            finished after it and counted in the score, not in it) */
    int errors;                          /* games ended by an agent error (scored as its loss) */
    char first_error[256];
} mcts_match_result;

/* A's wins, losses and draws moving first (first[0..2]) and moving second (second[0..2]). */
void mcts_match_by_colour(const mcts_match_result *r, int first[3], int second[3]);

/* Play the match.  Returns 0, or -1 with a message when an agent cannot be built, the SGF
 * directory cannot be made, or a game record cannot be written (each is written atomically: whole
 * under its name, or not at all; after a failure no new game starts, and the message names the
 * file and the cause).  Agent errors during games are counted in r->errors instead. */
int mcts_match_run(const mcts_match_config *c, mcts_match_result *r, char *err, size_t errlen);

typedef struct mcts_elo {
    double score;              /* (wins + draws/2) / games */
    double elo, lo, hi;        /* Elo difference and its 95% interval (elo ±INFINITY at 0% / 100%,
                                  where the other bound is Wilson's: 0-20 gives [-inf, -287]) */
} mcts_elo;

/* Elo difference from a score, with a 95% interval from the per-game variance of the score. */
mcts_elo mcts_elo_estimate(int wins, int losses, int draws);
/* The same, finite at 0% and 100%: the score with half a game added to each side's count (a small
 * prior towards equality), s = (wins + draws/2 + 1/2) / (games + 1), and its interval from
 * sqrt(s(1-s)/(games+1)) kept within the scores that prior allows, so lo <= elo <= hi always.
 * The training run's one formula (printed, logged and plotted). */
mcts_elo mcts_elo_finite(int wins, int losses, int draws);

#endif
