/* pretrain.h — a warm start from human games: every move of Boardspace SGF records becomes a
 * training sample (the position, the move played as a one-visit policy target, the game's result
 * from the mover's view as the value target), added to the replay buffer before self-play. */
#ifndef TR_PRETRAIN_H
#define TR_PRETRAIN_H

#include "train/replay.h"

typedef struct {
    int files, games, samples;   /* SGF files read, games used, samples added */
    int skipped_board;           /* games on another board */
    int skipped_undecided;       /* no winner (unfinished or drawn): no value target */
    int refused;                 /* records the SGF reader refused */
} tr_pretrain_stats;

/* Add the samples of up to max_games decided games on rb's board found under path (a file or a
 * folder searched for *.sgf).  Returns 0, or -1 with a message (path unreadable, no usable game,
 * out of memory); records that cannot be replayed are counted and skipped. */
int tr_pretrain_load(const char *path, int max_games, tr_replay *rb, tr_pretrain_stats *st, char *err, size_t errlen);

#endif
