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

/* The captures of the game's last position, for the captures head (model.h): cap[0] the
 * mover of the sample's position's, cap[1] the opponent's, by colour (white, grey, black).
 * known is 0 when the game was not played to its end (a resignation) or the sample's source
 * did not keep them. */
typedef struct {
    uint8_t cap[2][3];
    uint8_t known;
} nn_final_caps;

typedef struct {
    zz_pos pos;                 /* the position searched (not over) */
    const nn_visit *visits;     /* its visited moves (legal at pos), counts > 0 in total */
    int nvisits;
    float z;                    /* result for pos's mover: +1 won, -1 lost, 0 draw */
    nn_final_caps fin;          /* the game's final captures (fin.known 0: none) */
} nn_sample;

typedef struct {
    nn_geom geom;
    int n;                      /* samples in the batch */
    float *x;                   /* [n][P][NN_PLANES] encoded (transformed) positions */
    float *z;                   /* [n] value targets */
    float *aux;                 /* [n][NN_AUX] the captures head's targets (nn_aux_target) */
    uint8_t *aux_known;         /* [n] 1 where the sample's final captures are known */
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

/* The captures head's targets of a position whose game ended with captures fin (mover first):
 * t[side·3 + colour] = fin->cap[side][colour] / the marbles of that colour in the game (pool +
 * board + both sides' captures of pos), in [0, 1].  Returns 0, or -1 when fin cannot follow pos
 * (more of a colour than the game has).  A side may end with fewer than it holds in pos: with
 * the pool empty, a player places its own captured marbles. */
int nn_aux_target(const zz_pos *pos, const nn_final_caps *fin, float t[NN_AUX]);

/* The key nn_batch uses to index a move (for tests): unique per move of a board, < nn_move_key_count. */
int nn_move_key(const nn_geom *g, zz_move m);
int nn_move_key_count(const nn_geom *g);

#endif
