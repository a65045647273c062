/* transfer.h — a network of one board carried over to another board (37 ⇄ 48 ⇄ 61 rings), so that
 * a run on a new board starts from what a network learnt on another instead of from zero.
 *
 * Everything but one tensor is board-free: the hex convolutions, batch norms and the 1×1 policy and
 * value convolutions act cell by cell with shared weights, so they carry over unchanged.  The one
 * exception is the value head's first dense layer, value.fc1.w[P·Cv][Vh], whose input rows are the
 * source board's cells.  Its rows are moved cell by cell: the source board is laid onto the target
 * board's grid at the shift that puts the most source cells on target cells (on a tie the most
 * central one, 37 rings sit in the middle of 61; then the smallest: 48 rings hold 37 at two shifts
 * equally central, and the smallest makes 37 → 48 → 37 the identity), and a target cell takes the rows of the source
 * cell under it; target cells with none get zero rows (they add nothing to the value until trained).
 * Cells of the source board that fall off the target board are dropped.
 *
 * Invariants: transferring to the network's own board is the identity (shift 0, every row kept), and
 * so is a round trip through a larger board (37 → 48 → 37, 37 → 61 → 37, 48 → 61 → 48). */
#ifndef NN_TRANSFER_H
#define NN_TRANSFER_H

#include "nn/model.h"

/* Where the source board lies on the target board's grid. */
typedef struct {
    int dq, da;         /* target (q, a) = source (q + dq, a + da) */
    int mapped;         /* source cells that land on target cells */
    int src_cells, dst_cells;
} nn_board_shift;

/* The shift used to carry a network from board `from` to board `to` (see above). */
nn_board_shift nn_transfer_shift(zz_board_kind from, zz_board_kind to);

/* A new model for `board` (same architecture and element type as src, fresh momenta) holding src's
 * weights and statistics carried over as above; *shift (may be NULL) tells how the value head's rows
 * were mapped.  Returns NULL with a message when memory is out. */
nn_model *nn_model_transfer(const nn_model *src, zz_board_kind board, nn_board_shift *shift, char *err, size_t errlen);

#endif
