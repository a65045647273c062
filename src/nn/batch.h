/* batch.h — training samples and the batches built from them.
 *
 * A sample is what self-play stores: a compact position, the search's visit counts as sparse
 * (move, count) pairs, and the game's result from that position's mover's point of view.  A batch
 * regenerates each position's legal moves (zz_gen_moves), turns the visits into a target
 * distribution over them, and encodes the position — optionally after a symmetry of the board
 * (zz_board_nsyms: 12 on 37/61 rings, 6 on 48) applied to the position and to the visited moves
 * alike, so that the target follows the board. */
#ifndef NN_BATCH_H
#define NN_BATCH_H

#include "nn/policy.h"

typedef struct {
    zz_move move;
    uint32_t count;
} nn_visit;

typedef struct {
    zz_pos pos;                 /* the position searched (not over) */
    const nn_visit *visits;     /* its visited moves (legal at pos), counts > 0 in total */
    int nvisits;
    float z;                    /* result for pos's mover: +1 won, -1 lost, 0 draw */
} nn_sample;

typedef struct {
    nn_geom geom;
    int n;                      /* samples in the batch */
    float *x;                   /* [n][P][NN_PLANES] encoded (transformed) positions */
    float *z;                   /* [n] value targets */
    uint8_t *sym;               /* [n] the symmetry applied to each sample */
    int *start;                 /* [n+1] each sample's range of legal moves */
    zz_move *moves;             /* [nmoves] legal moves of the transformed positions, generator order */
    int32_t *term;              /* [nmoves][2] their logits (nn_move_terms) */
    float *pi;                  /* [nmoves] target probabilities */
    int nmoves;
    nn_policy_targets targets;  /* a view of start/term/pi for the loss */
    /* capacities and scratch */
    int cap, moves_cap;
    int32_t *lut;               /* move -> index in the sample's list, -1 */
    zz_move *scratch;           /* ZZ_MAX_MOVES */
} nn_batch;

void nn_batch_init(nn_batch *b);
void nn_batch_free(nn_batch *b);

/* Build a batch of n samples for board kind g->kind.  Symmetry of sample i: syms[i] when syms is
 * given, else a uniform random one from *rng when rng is given, else the identity.  Returns 0, or -1
 * with a message naming the sample when a position is over or on another board, a visited move is
 * not legal, or no visits are counted. */
int nn_batch_build(nn_batch *b, const nn_geom *g, const nn_sample *s, int n, const int *syms,
                   uint64_t *rng, char *err, size_t errlen);

/* The key nn_batch uses to index a move (for tests): unique per move of a board, < nn_move_key_count. */
int nn_move_key(const nn_geom *g, zz_move m);
int nn_move_key_count(const nn_geom *g);

#endif
