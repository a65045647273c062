/* mpi_train.h — `tools/train --mpi` under mpirun: rank 0 runs the training run (run.h: trainer,
 * replay buffer, checkpoints, logs, status line, and self-play of its own) with the other ranks
 * as its remote self-play (mpi_hub.h); ranks 1..N-1 play (mpi_worker.h).  The state is rank 0's
 * files: resuming works as on one machine.  Built only where the Makefile found mpicc
 * (ZZ_HAVE_MPI); tr_mpi_available says whether this build has it. */
#ifndef TR_MPI_TRAIN_H
#define TR_MPI_TRAIN_H

#include "train/run.h"

/* 1 when this build has MPI. */
int tr_mpi_available(void);
/* Initialise MPI, run this rank's part, finalise.  Returns the process's exit status; *rank gets
 * this rank.  On rank 0 r is the run's result and err its error (exit status 1); a worker that
 * fails prints its own error and ends the job (MPI_Abort). */
int tr_mpi_train(tr_run_config *c, tr_run_result *r, int *rank, char *err, size_t errlen);

#endif
