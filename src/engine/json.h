/* json.h — the engine's results as JSON (cJSON): a review (review.h) and a search snapshot
 * (analysis.h).  tools/analyse --json and the web server's API write the same objects; the
 * fields are documented in src/engine/README.md.  Moves are written in official notation;
 * numbers that are unknown (NAN) are written as null. */
#ifndef ZE_JSON_H
#define ZE_JSON_H

#include "review.h"
#include <cjson/cJSON.h>

/* The review of g: {board, variant, players, agent, budget, temperature, thresholds, turns:[...],
 * wp0:[...], summary:[{inaccuracy, mistake, blunder, mean_loss} x 2], done, total, seconds}.
 * agent may be NULL.  NULL on out-of-memory. */
cJSON *ze_review_json(const zz_game *g, const ze_review *r, const ze_review_config *cfg, const char *agent);

/* A search snapshot: {running, sims, seconds, value, wp, best, pv:[...], moves:[{move, visits, q}],
 * error}, values for the player to move; at most max_moves root moves (0: all kept).  NULL on
 * out-of-memory. */
cJSON *ze_search_json(const ze_search_info *info, double temperature, int max_moves);

/* A number, or null when it is NAN. */
cJSON *ze_json_number(double v);

#endif
