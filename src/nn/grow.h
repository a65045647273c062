/* grow.h — a trained network made wider and deeper without changing what it computes, so that a
 * larger network starts from a smaller one's play instead of from zero (the size study of
 * src/train/README.md; `tools/train --init SMALL.ckpt --blocks B --channels C`).
 *
 * From B×C to B'×C' (B' ≥ B, C' ≥ C; the board and the heads' widths stay):
 *   - every tensor keeps the old one in its first rows and columns (channel c of the old network is
 *     channel c of the new one; old block b is new block b);
 *   - a weight from a new channel into an old one (or into a head) is zero, so the old channels and
 *     the heads see nothing new; weights into new channels keep the fresh He-normal
 *     initialisation, so the new channels are alive and their outgoing weights get gradients;
 *   - the new blocks B..B'-1 come after the old ones, with their second batch norm's gamma and beta
 *     at zero: such a block adds nothing to its input, and ReLU of the (non-negative) input is the
 *     input, so it is the identity until trained;
 *   - new batch norms start at gamma 1, beta 0 and running statistics mean 0, var 1.
 * Invariant: in inference (running statistics) the grown network's logits and values equal the
 * old network's on every input (up to rounding); in training (batch statistics) as well, since
 * every old channel's activations, and so its batch statistics, are unchanged. */
#ifndef NN_GROW_H
#define NN_GROW_H

#include "nn/model.h"

/* A new model of src's board and element type with `blocks` blocks of `channels` channels (fresh
 * momenta), computing what src computes as above; new weights drawn from seed.  NULL with a message
 * when blocks or channels is below src's, the configuration is invalid, or memory is out. */
nn_model *nn_model_grow(const nn_model *src, int blocks, int channels, uint64_t seed, char *err, size_t errlen);

#endif
