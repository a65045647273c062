/* draw_xx.h — a picture of a Zèrtz Extreme (Zertz+xx) game's final position: the rings the
 * players built on Boardspace's 17×12 grid (only the part in use is drawn), the marbles, the
 * pool and both players' captures, with a title and the result. */
#ifndef RD_DRAW_XX_H
#define RD_DRAW_XX_H

#include "game/xx.h"
#include "render/theme.h"

/* Draw g's final position into out (allocated here; free with rd_canvas_free).  0, or -1 with a
 * message. */
int rd_draw_xx(const zz_xx_game *g, const rd_style *st, rd_canvas *out, char *err, size_t errlen);

#endif
