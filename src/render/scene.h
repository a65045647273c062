/* scene.h — what one board picture shows: a position, the turn that led to it (to be marked), the
 * players, a title and the game's status, built from a game record or a bare position. */
#ifndef RD_SCENE_H
#define RD_SCENE_H

#include "game/sgf.h"

typedef struct {
    zz_pos pos;                     /* the position shown */
    zz_pos before;                  /* the position before the marked turn (when nlast > 0) */
    int nlast;                      /* moves of the marked turn; 0 = nothing to mark */
    zz_move last[ZZ_MAX_CHAIN];
    char last_text[ZZ_NOTATION_MAX];/* the marked turn in notation */
    int last_player;                /* who played it */
    int turn;                       /* turns played to reach pos (0 = the start position) */
    int nturns;                     /* turns in the whole record (0 for a bare position) */
    char names[2][64];              /* player names, "Player 1" / "Player 2" when unknown */
    char title[160];                /* e.g. "Alex504 vs bluedog" */
    char subtitle[192];             /* e.g. "Zèrtz+11 (48 rings) · 2025-10-29" */
    char status[160];               /* "bluedog to move", or the result */
    bool over;                      /* the game has ended here (captures, resignation, time...) */
    int winner;                     /* 0 or 1 when over and won, else -1 */
} rd_scene;

/* What the marked turn did, for drawing it. */
typedef struct {
    int placed;                     /* cell of the placed marble, or -1 */
    int placed_colour;
    int removed;                    /* ring removed by the placement, or -1 */
    int njumps;
    int jump_from[ZZ_MAX_CHAIN], jump_to[ZZ_MAX_CHAIN];
    int jumped[ZZ_MAX_CHAIN];       /* cell of each captured marble */
    int jumped_colour[ZZ_MAX_CHAIN];
    zz_bits isolated[3];            /* marbles (with their rings) captured by isolation, by colour */
} rd_marks;

/* The scene after `turn` turns of g (0..g->nturns; -1 = the last), marking that turn.
 * Returns 0, or -1 with a message when turn is out of range or the record does not replay. */
int rd_scene_from_game(const zz_game *g, int turn, rd_scene *s, char *err, size_t errlen);
/* A bare position (no record, nothing marked), with a title. */
void rd_scene_from_pos(const zz_pos *p, const char *title, rd_scene *s);
/* The marks of the scene's marked turn (all empty when there is none). */
void rd_scene_marks(const rd_scene *s, rd_marks *m);
/* Caption of the marked turn, e.g. "12. Alex504: x d1Gd3Wd5" ("Start" at turn 0). */
void rd_scene_caption(const rd_scene *s, char *out, size_t outlen);
/* The board's display name, e.g. "Zèrtz+11 (48 rings)". */
const char *rd_board_title(zz_board_kind kind);

#endif
