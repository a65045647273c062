/* replay.h — the replay buffer: a sliding window of the most recent self-play samples, kept in
 * memory for training and persisted on disk as numbered chunk files, so that a killed or
 * interrupted run resumes with every sample it had flushed.
 *
 * A sample is a compact position, the search's visit counts as sparse (move, count) pairs, the
 * game's result from the position's mover's view, whether the search was a full one (only
 * full searches are policy targets; every sample is a value target), and the game's final
 * captures when it was played to its end (the captures head's target, nn/model.h).
 *
 * Files: DIR/chunk-NNNNNNNN.zzr, each written atomically (temporary file, fsync, rename):
 *   "ZZREPLAY" u32 version u32 board u32 nsamples u64 first_sample_number
 *   per sample: rings, white, grey, black (16 bytes each, little-endian bit order),
 *               pool[3] cap[2][3] to_move chain (u8), ply (u16), z (f32), full (u8),
 *               gen (u32), origin (u16)          [version 2 on; version 1 reads as 0, 0]
 *               final known (u8), final cap[2][3] (u8, mover first)
 *                                                [version 3 on; earlier versions read as unknown]
 *               nvisits (u16), nvisits × (move u32, count u32)
 *   u32 CRC-32 of every byte before it.
 * Version 3 is written; version 1 and 2 chunks are still read.  The same bytes,
 * built by tr_replay_encode, carry batches of games between MPI ranks (mpi_wire.h).
 * Chunks wholly older than the window are deleted once newer chunks cover it. */
#ifndef TR_REPLAY_H
#define TR_REPLAY_H

#include "nn/batch.h"

typedef struct {
    zz_pos pos;
    float z;              /* value target for the mover of pos: +1 won, -1 lost, 0 draw (blended
                             with the search value q when the run asks for it) */
    float q;              /* the root's search value for the mover (self-play only; not stored) */
    uint8_t full;         /* a full search: a policy target */
    uint32_t gen;         /* the generation of the weights that played it (run.h: the trainer's
                             generation when those weights were published) */
    uint16_t origin;      /* the MPI rank whose self-play made it (0 on one machine) */
    nn_final_caps fin;    /* the game's final captures, mover of pos first (fin.known 0: the game
                             was resigned, or the chunk predates them) */
    uint16_t nvisits;
    nn_visit *visits;     /* owned */
} tr_sample;

typedef struct {
    char dir[512];
    zz_board_kind board;
    int capacity;         /* samples in the window */
    tr_sample *ring;      /* ring[(head + i) % capacity], i < count, oldest first */
    int head, count;
    long long total;      /* samples ever added (numbers samples across runs) */
    uint32_t next_chunk;
    tr_sample *pending;   /* added but not yet flushed */
    int npending, cap_pending;
    struct { uint32_t id; int n; } *chunks;   /* chunk files on disk, oldest first */
    int nchunks, cap_chunks;
    int set_aside;        /* damaged chunks renamed *.damaged by tr_replay_open (with a warning) */
} tr_replay;

/* Open (creating DIR when needed) and load the newest chunks until the window is full.  A damaged
 * chunk (checksum, truncation, bad content) is renamed CHUNK.damaged with a warning on stderr and
 * skipped: only its samples are lost (counted in set_aside).  Returns 0, or -1 with a message (a
 * chunk of another board or version, I/O errors). */
int tr_replay_open(tr_replay *r, const char *dir, zz_board_kind board, int capacity, char *err, size_t errlen);
/* Add samples (copied) to the window; they reach the disk at the next tr_replay_flush. */
int tr_replay_add(tr_replay *r, const tr_sample *s, int n, char *err, size_t errlen);
/* Write the pending samples as one chunk and delete chunks the window no longer needs.
 * Returns 0 (also when nothing is pending), or -1 with a message (samples stay pending). */
int tr_replay_flush(tr_replay *r, char *err, size_t errlen);
/* Flush and free.  Returns what the flush returned. */
int tr_replay_close(tr_replay *r, char *err, size_t errlen);
/* A sample as a batch takes it (nn/batch.h): its position, visits (borrowed), value target and
 * final captures.  The one place that lists what a batch reads from a stored sample. */
static inline nn_sample tr_sample_for_batch(const tr_sample *s) {
    return (nn_sample){ .pos = s->pos, .visits = s->visits, .nvisits = s->nvisits, .z = s->z, .fin = s->fin };
}
/* The i-th sample of the window, oldest first. */
static inline const tr_sample *tr_replay_at(const tr_replay *r, int i) {
    return &r->ring[(r->head + i) % r->capacity];
}
/* The chunk image of n samples (board, first sample number): the bytes a chunk file holds.
 * *out is malloc'd.  0, or -1 with a message. */
int tr_replay_encode(zz_board_kind board, long long first, const tr_sample *s, int n, unsigned char **out,
                     size_t *len, char *err, size_t errlen);
/* Decode a chunk image (checksum, version, board and every sample checked): *out is a malloc'd
 * array of *n samples, each owning its visits (free with tr_sample_clear and free).  0, or -1
 * with a message naming `what`. */
int tr_replay_decode(const unsigned char *data, size_t len, zz_board_kind board, const char *what, tr_sample **out,
                     int *n, char *err, size_t errlen);
/* Check one chunk file as tr_replay_open would read it (checksum, version, board, every sample)
 * without changing anything on disk: *n its samples, *first the number of its first sample.
 * 0; -2 when its content is damaged (tr_replay_open would set it aside); -1 otherwise (I/O,
 * memory, another board or version), each with a message. */
int tr_replay_check_file(const char *path, zz_board_kind board, int *n, long long *first, char *err, size_t errlen);
/* Free a sample's visits. */
void tr_sample_clear(tr_sample *s);

#endif
