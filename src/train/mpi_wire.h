/* mpi_wire.h — what travels between the ranks of `tools/train --mpi` (mpi_hub.c, mpi_worker.c).
 * Every rank runs the same build (these structs travel as bytes: the setup checks their sizes).
 *
 * Rank 0 -> all, collectives, in this order:
 *   1. MPI_Bcast  tr_mpi_hello                     once; abort = 1: rank 0 could not start the run
 *   2. MPI_Bcast  tr_mpi_setup                     once (not when aborted)
 *   3. MPI_Bcast  weights [weight_bytes]           once: the run's weights at the start
 *   4. MPI_Ibcast tr_mpi_ctl, repeatedly; when kind == TR_CTL_WEIGHTS it is followed by
 *      MPI_Ibcast weights [weight_bytes].  kind == TR_CTL_STOP is the last one.
 *   weights = the model's param[nparams] then stats[nstats], float32 (NN_F32).
 * Worker -> rank 0, point to point (MPI_Isend, tag TR_TAG_GAMES; rank 0 MPI_Iprobe + MPI_Recv):
 *   tr_mpi_games header, then `image_bytes` bytes: the batch's samples as a replay chunk image
 *   (tr_replay_encode: checksummed); about once a second, also with no games (figures only);
 *   done = 1 on the last message of a rank (after TR_CTL_STOP, or on SIGTERM: the job is ending).
 * Messages from one rank arrive in order (MPI's non-overtaking rule), so `done` is its last. */
#ifndef TR_MPI_WIRE_H
#define TR_MPI_WIRE_H

#include "nn/model.h"
#include "train/selfplay.h"
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

/* TR_MPI_VERSION: 2 since tr_selfplay_config gained eval_cache, 3 since edge_window (each in what
 * was padding: the setup's size did not change), 4 since prune_boost */
enum { TR_MPI_MAGIC = 0x504D5A5A /* "ZZMP" */, TR_MPI_VERSION = 4, TR_TAG_GAMES = 11 };

typedef struct {
    uint32_t magic, version;
    int32_t abort;
    uint32_t setup_bytes;           /* sizeof(tr_mpi_setup) of rank 0's build */
} tr_mpi_hello;

typedef struct {
    uint32_t net_bytes, sp_bytes;   /* sizeof(nn_config), sizeof(tr_selfplay_config): the same build */
    nn_config net;
    tr_selfplay_config sp;          /* seed: rank 0's; a worker mixes in its rank */
    double rollout_mix;
    uint64_t weight_bytes;
    int32_t gen;                    /* the starting weights' generation and step */
    int64_t steps;
} tr_mpi_setup;

enum { TR_CTL_HOLD = 1, TR_CTL_WEIGHTS = 2, TR_CTL_STOP = 3 };
typedef struct {
    int32_t kind;
    int32_t hold;                   /* hold self-play (training is behind) */
    int32_t gen;                    /* TR_CTL_WEIGHTS: the generation and step of the weights */
    int32_t pad;
    int64_t steps;
} tr_mpi_ctl;

typedef struct {
    uint32_t games, nsamples;       /* in this batch */
    uint32_t image_bytes;           /* the chunk image after the header (0 when no samples) */
    int32_t done;                   /* the rank's last message */
    int64_t moves, evals;           /* the rank's self-play so far */
    int32_t gen, pid;               /* the weights its self-play searches with; its process */
    int64_t steps;
    char host[64];
} tr_mpi_games;

/* An MPI call failed: "WHAT: MPI's reason" in err; returns -1. */
static inline int tr_mpi_fail(int rc, const char *what, char *err, size_t errlen) {
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    MPI_Error_string(rc, s, &n);
    snprintf(err, errlen, "%s: %s", what, s);
    return -1;
}

#endif
