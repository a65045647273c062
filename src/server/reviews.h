/* reviews.h — the server's game reviews: each runs ze_review_game (the function tools/analyse
 * calls) on a thread of its own and publishes its progress as JSON after every position; a
 * registry by id with reference counts and idle expiry, as for games (games.h). */
#ifndef SV_REVIEWS_H
#define SV_REVIEWS_H

#include "server.h"
#include <cjson/cJSON.h>

enum { SV_MAX_REVIEWS = 32, SV_MAX_REVIEW_TURNS = 600 };
#define SV_MAX_REVIEW_MS 10000.0       /* per position */

typedef struct sv_reviews sv_reviews;
typedef struct sv_review sv_review;

sv_reviews *sv_reviews_new(const sv_config *cfg);
void sv_reviews_free(sv_reviews *rs);
int sv_reviews_expire(sv_reviews *rs);
int sv_reviews_count(sv_reviews *rs);

sv_review *sv_review_get(sv_reviews *rs, const char *id);
void sv_review_put(sv_reviews *rs, sv_review *r);

/* Start a review of the body's game ({"sgf"} or {"moves", "rings"}, a budget): 202 with the
 * review so far, or an error status with {"error"}. */
int sv_review_create(sv_reviews *rs, const cJSON *body, cJSON **out);
/* The review so far; *running says whether it goes on. */
int sv_review_state(sv_review *r, cJSON **out, bool *running);
/* Tests: 1 loses the last view of every review that ends from now on (as memory running out
 * would); 0 restores. */
void sv_review_test_lose_last_view(int on);
/* Stop and free it. */
int sv_review_delete(sv_reviews *rs, const char *id, cJSON **out);

/* A game from a request body: {"sgf": TEXT} or {"moves": TURNS, "rings": N}.  0, or an error
 * status with *out. */
struct zz_game_s;
int sv_game_from_body(const cJSON *body, struct zz_game_s *g, cJSON **out);

#endif
