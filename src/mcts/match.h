/* match.h — play two agents against each other: N games, alternating who starts, several games
 * at once, every game optionally written as Boardspace SGF; results with an Elo estimate.
 *
 * Reproducibility: game i is seeded from (seed, i) alone, so with single-threaded agents the same
 * seed replays the same games in any order and with any number of parallel games (digest). */
#ifndef MCTS_MATCH_H
#define MCTS_MATCH_H

#include "agent.h"
#include <stdio.h>

typedef struct mcts_match_config {
    const char *spec[2];       /* agents A and B */
    int games;
    int parallel;              /* games played at once (threads) */
    int agent_threads;         /* search threads per agent unless its spec says (default 1) */
    uint64_t seed;
    zz_board_kind board;
    int ply_cap;               /* 0: none */
    const char *sgf_dir;       /* write game-NNNN.sgf here (created if missing); NULL: none */
    FILE *progress;            /* one line per finished game, or NULL */
} mcts_match_config;

typedef struct mcts_match_result {
    int games, wins, losses, draws;      /* from A's view */
    int first_player_wins;               /* games won by the player who moved first */
    long plies;                          /* moves played in all games */
    long moves[2];                       /* moves chosen by A / B */
    double seconds[2];                   /* time A / B spent choosing */
    uint64_t digest;                     /* of all games' moves (order-independent) */
    int errors;                          /* games ended by an agent error (scored as its loss) */
    char first_error[256];
} mcts_match_result;

/* Play the match.  Returns 0, or -1 with a message when an agent cannot be built or the SGF
 * directory cannot be made (agent errors during games are counted in r->errors instead). */
int mcts_match_run(const mcts_match_config *c, mcts_match_result *r, char *err, size_t errlen);

typedef struct mcts_elo {
    double score;              /* (wins + draws/2) / games */
    double elo, lo, hi;        /* Elo difference and its 95% interval (±INFINITY at 0% / 100%) */
} mcts_elo;

/* Elo difference from a score, with a 95% interval from the per-game variance of the score. */
mcts_elo mcts_elo_estimate(int wins, int losses, int draws);

#endif
