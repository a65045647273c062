/* draw_review.h — a reviewed turn side by side: on the left the position after the turn played,
 * with that turn marked; on the right the position before it, with the engine's turn drawn as a
 * suggestion.  tools/analyse --boards draws one for each flagged turn. */
#ifndef RD_DRAW_REVIEW_H
#define RD_DRAW_REVIEW_H

#include "render/draw_position.h"
#include "render/scene.h"

/* Draw turn `turn` (0-based) of g against the engine's turn best[0..nbest) (legal at the turn's
 * start), with a caption (e.g. "blunder: lost 41% of win probability") into *out (allocated
 * here).  Returns 0, or -1 with a message (turn out of range, a move not legal, out of memory). */
int rd_draw_review_turn(const zz_game *g, int turn, const zz_move *best, int nbest, const char *caption,
                        const rd_style *st, rd_canvas *out, char *err, size_t errlen);

#endif
