/* mpi_hub.h — rank 0's side of `tools/train --mpi`: the run's tr_remote (run.h) over MPI.  It
 * sends the setup and every weight refresh to the worker ranks (mpi_wire.h), takes their game
 * batches into rank 0's replay buffer (each sample tagged with its rank), holds them while
 * training is behind, stops them at the end and keeps per-rank figures for the status line.
 * Every MPI call is made from the thread that runs tr_run (MPI_THREAD_FUNNELED). */
#ifndef TR_MPI_HUB_H
#define TR_MPI_HUB_H

#include "train/run.h"
#include <stdio.h>

typedef struct tr_mpi_hub tr_mpi_hub;

/* A hub for a job of `size` ranks (rank 0 is this one).  quiet: no "rank joined" lines. */
tr_mpi_hub *tr_mpi_hub_new(int size, int quiet);
/* The tr_remote to put into tr_run_config.remote. */
tr_remote *tr_mpi_hub_remote(tr_mpi_hub *h);
/* After tr_run: when the run never started the workers (an error before self-play), tell them
 * to exit.  0, or -1 with a message. */
int tr_mpi_hub_close(tr_mpi_hub *h, char *err, size_t errlen);
/* 1 when every worker has ended as told (after tr_mpi_hub_close); 0 when one may still run. */
int tr_mpi_hub_clean(const tr_mpi_hub *h);
/* One line per rank and the bytes sent (the summary at exit). */
void tr_mpi_hub_report(const tr_mpi_hub *h, FILE *f);
void tr_mpi_hub_free(tr_mpi_hub *h);

#endif
