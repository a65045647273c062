/* mpi_worker.h — a worker rank of `tools/train --mpi` (ranks 1..N-1): self-play with its own
 * scheduler and live evaluator (the GPU where the rank has one, the CPU otherwise: live_eval.h),
 * its finished games sent to rank 0 in batches about once a second (MPI_Isend), new weights
 * taken from rank 0's broadcasts between evaluator batches (MPI_Ibcast polled with MPI_Test),
 * until rank 0's stop.  The messages: mpi_wire.h.  Every MPI call is made from the calling thread
 * (MPI_THREAD_FUNNELED); the scheduler's threads never call MPI. */
#ifndef TR_MPI_WORKER_H
#define TR_MPI_WORKER_H

#include "train/selfplay.h"
#include <signal.h>
#include <stddef.h>

/* Run worker `rank` until rank 0 says stop (0), or *stop is set by a signal (1: the launcher is
 * ending the job; the finished games are sent first, 1 s at most), or rank 0 could not start the run (2: it said why), or an error (-1, with a
 * message).  The search (simulations, noise, temperature, resignation, ...) is rank 0's; the
 * scheduler's size (games in flight, worker threads) is this rank's own, from `local` (its
 * command line, or its defaults: larger where it has a GPU). */
int tr_mpi_worker(int rank, const tr_selfplay_config *local, volatile sig_atomic_t *stop, char *err, size_t errlen);

#endif
