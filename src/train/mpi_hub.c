/* mpi_hub.c — rank 0's side of `tools/train --mpi` (mpi_hub.h; the messages: mpi_wire.h).
 * Built only with MPI (ZZ_HAVE_MPI, set by the Makefile when it finds mpicc). */
#ifdef ZZ_HAVE_MPI
#include "train/mpi_hub.h"
#include "mcts/clock.h"
#include "train/mpi_wire.h"
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* FINISH_TIMEOUT_S: the normal stop's wait for every rank's last games; ABRUPT_TAKE_S: when the job is
 * being ended (SIGTERM, which mpirun follows with SIGKILL after odls_base_sigkill_timeout s), how long
 * rank 0 spends taking the batches waiting and the workers' last ones before it saves */
enum { FINISH_TIMEOUT_S = 60 };
static const double ABRUPT_TAKE_S = 1.0;

typedef struct {
    long long games, samples, moves, bytes;     /* received from this rank so far */
    int gen;                                    /* its weights, as it last said */
    long steps;
    int pid, done, seen;
    char host[64];
    long long games_prev;                       /* at the last status line */
} rank_info;

struct tr_mpi_hub {
    tr_remote remote;
    int size, quiet, started, clean;    /* clean: every worker ended (or was told to) */
    zz_board_kind board;
    size_t wbytes;                  /* weights message: param + stats, float */
    unsigned char *sendbuf, *pend;  /* the weights in flight / the newest not yet sent */
    int pend_ok, pend_gen;
    long pend_steps;
    tr_mpi_ctl ctl;                 /* in flight */
    MPI_Request req[2];             /* ctl, weights (MPI_REQUEST_NULL when none) */
    int hold, hold_sent, stop_sent;
    long long bcasts, bcast_bytes;  /* weight broadcasts sent, and their bytes each */
    int abrupt;                     /* the job was ended by a signal */
    long long abrupt_games;         /* games taken from the workers meanwhile */
    int abrupt_done;                /* workers whose last batch came meanwhile */
    rank_info *ranks;               /* [size]; rank 0's entry is unused */
    double t_status;
};

static void pack_weights(const nn_model *m, unsigned char *buf) {
    memcpy(buf, m->param, m->nparams * m->esize);
    memcpy(buf + m->nparams * m->esize, m->stats, m->nstats * m->esize);
}

/* Is the broadcast in flight through?  1 yes (or none), 0 not yet, -1 error. */
static int bcast_done(tr_mpi_hub *h, char *err, size_t errlen) {
    int flag = 0;
    int rc = MPI_Testall(2, h->req, &flag, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) return tr_mpi_fail(rc, "weights broadcast", err, errlen);
    return flag;
}

/* Start the next control message when the previous one is through: the newest weights if any
 * are waiting, else a hold change, else (stop) the stop.  0, or -1 with a message. */
static int pump(tr_mpi_hub *h, int stop, char *err, size_t errlen) {
    if (h->stop_sent) return 0;                 /* the stop is the last message */
    int d = bcast_done(h, err, errlen);
    if (d <= 0) return d;
    memset(&h->ctl, 0, sizeof h->ctl);
    h->ctl.hold = h->hold;
    if (h->pend_ok) {
        unsigned char *t = h->sendbuf;
        h->sendbuf = h->pend;
        h->pend = t;
        h->pend_ok = 0;
        h->ctl.kind = TR_CTL_WEIGHTS;
        h->ctl.gen = h->pend_gen;
        h->ctl.steps = h->pend_steps;
    } else if (h->hold != h->hold_sent) {
        h->ctl.kind = TR_CTL_HOLD;
    } else if (stop) {
        h->ctl.kind = TR_CTL_STOP;
        h->stop_sent = 1;
    } else {
        return 0;
    }
    h->hold_sent = h->hold;
    int rc = MPI_Ibcast(&h->ctl, (int)sizeof h->ctl, MPI_BYTE, 0, MPI_COMM_WORLD, &h->req[0]);
    if (rc != MPI_SUCCESS) return tr_mpi_fail(rc, "MPI_Ibcast", err, errlen);
    if (h->ctl.kind == TR_CTL_WEIGHTS) {
        rc = MPI_Ibcast(h->sendbuf, (int)h->wbytes, MPI_BYTE, 0, MPI_COMM_WORLD, &h->req[1]);
        if (rc != MPI_SUCCESS) return tr_mpi_fail(rc, "MPI_Ibcast", err, errlen);
        h->bcasts++;
        h->bcast_bytes = (long long)(sizeof h->ctl + h->wbytes);
    }
    return 0;
}

static int hub_start(void *ctx, const nn_model *m, const tr_selfplay_config *sp, double rollout_mix, int gen, long steps,
                     char *err, size_t errlen) {
    tr_mpi_hub *h = ctx;
    h->started = 1;
    h->board = sp->board;
    h->wbytes = (m->nparams + m->nstats) * m->esize;
    h->sendbuf = malloc(h->wbytes);
    h->pend = malloc(h->wbytes);
    tr_mpi_hello hello = { TR_MPI_MAGIC, TR_MPI_VERSION, 0, (uint32_t)sizeof(tr_mpi_setup) };
    char why[160] = "";             /* the workers are told to exit; rank 0 says why */
    if (m->esize != 4)
        snprintf(why, sizeof why, "the trainer's model has %zu-byte elements, not float32: the weights travel to "
                                  "the workers as float32 (NN_F32)", m->esize);
    else if (!h->sendbuf || !h->pend)
        snprintf(why, sizeof why, "out of memory for the weights (%zu bytes, twice)", h->wbytes);
    if (why[0]) hello.abort = 1;
    int rc = MPI_Bcast(&hello, (int)sizeof hello, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) return tr_mpi_fail(rc, "setup broadcast", err, errlen);
    if (hello.abort) { snprintf(err, errlen, "%s", why); return -1; }
    tr_mpi_setup s;
    memset(&s, 0, sizeof s);
    s.net_bytes = (uint32_t)sizeof(nn_config);
    s.sp_bytes = (uint32_t)sizeof(tr_selfplay_config);
    s.net = m->cfg;
    s.sp = *sp;
    s.rollout_mix = rollout_mix;
    s.weight_bytes = h->wbytes;
    s.gen = gen;
    s.steps = steps;
    pack_weights(m, h->sendbuf);
    if ((rc = MPI_Bcast(&s, (int)sizeof s, MPI_BYTE, 0, MPI_COMM_WORLD)) != MPI_SUCCESS ||
        (rc = MPI_Bcast(h->sendbuf, (int)h->wbytes, MPI_BYTE, 0, MPI_COMM_WORLD)) != MPI_SUCCESS)
        return tr_mpi_fail(rc, "setup broadcast", err, errlen);
    for (int r = 1; r < h->size; r++) { h->ranks[r].gen = gen; h->ranks[r].steps = steps; }
    h->t_status = mcts_now_s();
    return 0;
}

/* Receive the probed message into buf: blocking when until == 0, else waiting until mcts_now_s()
 * passes until (the job is being ended and its sender may be gone: a large batch's bytes follow its
 * envelope only while the sender lives).  1 received, 0 not by then (buf stays the receive's: the
 * caller leaves it to the ending process), -1 an error. */
static int recv_matched(unsigned char *buf, int len, MPI_Message *msg, double until, char *err, size_t errlen) {
    if (until <= 0) {
        int rc = MPI_Mrecv(buf, len, MPI_BYTE, msg, MPI_STATUS_IGNORE);
        return rc == MPI_SUCCESS ? 1 : tr_mpi_fail(rc, "MPI_Mrecv", err, errlen);
    }
    MPI_Request rq;
    int rc = MPI_Imrecv(buf, len, MPI_BYTE, msg, &rq);
    if (rc != MPI_SUCCESS) return tr_mpi_fail(rc, "MPI_Imrecv", err, errlen);
    for (;;) {
        int flag = 0;
        if ((rc = MPI_Test(&rq, &flag, MPI_STATUS_IGNORE)) != MPI_SUCCESS) return tr_mpi_fail(rc, "MPI_Test", err, errlen);
        if (flag) return 1;
        if (mcts_now_s() >= until) { snprintf(err, errlen, "a game batch did not arrive in time"); return 0; }
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
}

/* Take every game batch that has arrived (into rb, or dropped when rb is NULL).  until: 0, or
 * (the job is being ended) the time after which a batch still arriving is given up.  0, or -1. */
static int drain(tr_mpi_hub *h, tr_replay *rb, double until, long long *games, long long *samples, char *err,
                 size_t errlen) {
    for (int k = 0; k < 256; k++) {
        int flag = 0;
        MPI_Status st;
        MPI_Message msg;
        int rc = MPI_Improbe(MPI_ANY_SOURCE, TR_TAG_GAMES, MPI_COMM_WORLD, &flag, &msg, &st);
        if (rc != MPI_SUCCESS) return tr_mpi_fail(rc, "MPI_Improbe", err, errlen);
        if (!flag) return 0;
        int len = 0;
        MPI_Get_count(&st, MPI_BYTE, &len);
        int src = st.MPI_SOURCE;
        unsigned char *buf = malloc(len > 0 ? (size_t)len : 1);
        if (!buf) { snprintf(err, errlen, "out of memory for a game batch of %d bytes", len); return -1; }
        if ((rc = recv_matched(buf, len, &msg, until, err, errlen)) != 1) {
            if (rc < 0) free(buf);
            return -1;
        }
        tr_mpi_games g;
        if (src <= 0 || src >= h->size || (size_t)len < sizeof g) { free(buf); snprintf(err, errlen, "rank %d: a malformed message", src); return -1; }
        memcpy(&g, buf, sizeof g);
        if ((size_t)len != sizeof g + g.image_bytes) { free(buf); snprintf(err, errlen, "rank %d: a malformed message", src); return -1; }
        rank_info *ri = &h->ranks[src];
        if (!ri->seen && !h->quiet) {
            g.host[sizeof g.host - 1] = 0;
            printf("%szertz train: rank %d joined: host %s, pid %d\n", isatty(1) ? "\n" : "", src, g.host, (int)g.pid);
            fflush(stdout);
        }
        ri->seen = 1;
        memcpy(ri->host, g.host, sizeof ri->host);
        ri->host[sizeof ri->host - 1] = 0;
        ri->pid = g.pid;
        ri->moves = g.moves;
        ri->gen = g.gen;
        ri->steps = (long)g.steps;
        ri->bytes += len;
        if (g.done) ri->done = 1;
        if (g.nsamples) {
            tr_sample *s = NULL;
            int n = 0;
            char what[32];
            snprintf(what, sizeof what, "rank %d's games", src);
            if (tr_replay_decode(buf + sizeof g, g.image_bytes, h->board, what, &s, &n, err, errlen) != 0) { free(buf); return -1; }
            for (int i = 0; i < n; i++) s[i].origin = (uint16_t)src;
            rc = rb ? tr_replay_add(rb, s, n, err, errlen) : 0;
            for (int i = 0; i < n; i++) tr_sample_clear(&s[i]);
            free(s);
            if (rc != 0) { free(buf); return -1; }
        }
        if (rb) {
            ri->games += g.games;
            ri->samples += g.nsamples;
            *games += g.games;
            *samples += g.nsamples;
        }
        free(buf);
    }
    return 0;
}

static int hub_poll(void *ctx, tr_replay *rb, long long *games, long long *samples, char *err, size_t errlen) {
    tr_mpi_hub *h = ctx;
    if (pump(h, 0, err, errlen) != 0) return -1;
    return drain(h, rb, 0, games, samples, err, errlen);
}

static int hub_publish(void *ctx, const nn_model *m, int gen, long steps, char *err, size_t errlen) {
    tr_mpi_hub *h = ctx;
    if (h->size < 2) return 0;
    pack_weights(m, h->pend);
    h->pend_ok = 1;
    h->pend_gen = gen;
    h->pend_steps = steps;
    return pump(h, 0, err, errlen);
}

static void hub_hold(void *ctx, int hold) { ((tr_mpi_hub *)ctx)->hold = hold; }

static long long hub_moves(void *ctx) {
    tr_mpi_hub *h = ctx;
    long long n = 0;
    for (int r = 1; r < h->size; r++) n += h->ranks[r].moves;
    return n;
}

static void hub_status(void *ctx, char *buf, size_t len, long steps, long long own_games, int own_gen, long own_steps) {
    tr_mpi_hub *h = ctx;
    double t = mcts_now_s(), dt = t - h->t_status > 1e-3 ? t - h->t_status : 1e-3;
    size_t at = 0;
    for (int r = 0; r < h->size && at < len; r++) {
        rank_info *ri = &h->ranks[r];
        long long g = r == 0 ? own_games : ri->games;
        int gen = r == 0 ? own_gen : ri->gen;
        long ws = r == 0 ? own_steps : ri->steps;
        int n = snprintf(buf + at, len - at, "%sr%d %.1f g/s w gen %d age %ld", r ? "  " : "", r, (double)(g - ri->games_prev) / dt,
                         gen, steps - ws);
        if (n < 0) break;
        at += (size_t)n;
        ri->games_prev = g;
    }
    h->t_status = t;
}

static int hub_finish(void *ctx, tr_replay *rb, int abrupt, long long *games, long long *samples, char *err, size_t errlen) {
    tr_mpi_hub *h = ctx;
    if (abrupt) {       /* the job is being ended (a signal): the batches already here, and each worker's
                         * last one (sent with done = 1 on the signal), are kept and rank 0 saves them;
                         * ABRUPT_TAKE_S at most (a dead rank never says done); errors are ignored
                         * (a rank may be dead: rank 0 must still save) */
        char why[512];
        long long g0 = *games;
        double until = mcts_now_s() + ABRUPT_TAKE_S;
        h->abrupt = 1;
        while (h->size > 1) {
            drain(h, rb, until, games, samples, why, sizeof why);
            h->abrupt_done = 0;
            for (int r = 1; r < h->size; r++) h->abrupt_done += h->ranks[r].done;
            if (h->abrupt_done == h->size - 1 || mcts_now_s() >= until) break;
            struct timespec ts = { 0, 1000000 };
            nanosleep(&ts, NULL);
        }
        h->abrupt_games = *games - g0;
        return 0;
    }
    if (h->size < 2) { h->clean = 1; return 0; }
    double t0 = mcts_now_s();
    h->hold = 0;
    for (;;) {          /* the weights waiting go out, then the stop; games keep being taken */
        if (pump(h, 1, err, errlen) != 0 || drain(h, rb, 0, games, samples, err, errlen) != 0) return -1;
        if (h->stop_sent && bcast_done(h, err, errlen) == 1) break;
        if (mcts_now_s() - t0 > FINISH_TIMEOUT_S) {
            snprintf(err, errlen, "the stop did not reach every rank in %d s (a rank died or hangs)", FINISH_TIMEOUT_S);
            return -1;
        }
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    for (;;) {          /* every worker's last games, until each says done */
        if (drain(h, rb, 0, games, samples, err, errlen) != 0) return -1;
        int missing = -1;
        for (int r = 1; r < h->size && missing < 0; r++)
            if (!h->ranks[r].done) missing = r;
        if (missing < 0) { h->clean = 1; return 0; }
        if (mcts_now_s() - t0 > FINISH_TIMEOUT_S) {
            snprintf(err, errlen, "rank %d did not send its last games in %d s (it died or hangs)", missing, FINISH_TIMEOUT_S);
            return -1;
        }
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
}

tr_mpi_hub *tr_mpi_hub_new(int size, int quiet) {
    tr_mpi_hub *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->ranks = calloc((size_t)size, sizeof *h->ranks);
    if (!h->ranks) { free(h); return NULL; }
    h->size = size;
    h->quiet = quiet;
    h->req[0] = h->req[1] = MPI_REQUEST_NULL;
    h->remote = (tr_remote){ h, hub_start, hub_poll, hub_publish, hub_hold, hub_moves, hub_status, hub_finish };
    return h;
}

tr_remote *tr_mpi_hub_remote(tr_mpi_hub *h) { return &h->remote; }

int tr_mpi_hub_clean(const tr_mpi_hub *h) { return h->clean; }

int tr_mpi_hub_close(tr_mpi_hub *h, char *err, size_t errlen) {
    if (h->started) return 0;
    h->started = h->clean = 1;
    tr_mpi_hello hello = { TR_MPI_MAGIC, TR_MPI_VERSION, 1, (uint32_t)sizeof(tr_mpi_setup) };
    int rc = MPI_Bcast(&hello, (int)sizeof hello, MPI_BYTE, 0, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? 0 : tr_mpi_fail(rc, "setup broadcast", err, errlen);
}

void tr_mpi_hub_report(const tr_mpi_hub *h, FILE *f) {
    long long games = 0, bytes = 0;
    for (int r = 1; r < h->size; r++) {
        const rank_info *ri = &h->ranks[r];
        games += ri->games;
        bytes += ri->bytes;
        fprintf(f, "zertz train: rank %d (%s, pid %d): %lld games, %lld samples, %lld bytes sent; weights at the end: "
                   "generation %d, step %ld\n", r, ri->seen ? ri->host : "?", ri->pid, ri->games, ri->samples, ri->bytes,
                ri->gen, ri->steps);
    }
    fprintf(f, "zertz train: mpi: %d ranks; %lld games from the workers in %lld bytes (%.0f bytes/game); "
               "%lld weight broadcasts of %lld bytes\n", h->size, games, bytes, games ? (double)bytes / (double)games : 0.0,
            h->bcasts, h->bcast_bytes ? h->bcast_bytes : (long long)(sizeof(tr_mpi_ctl) + h->wbytes));
    if (h->abrupt)
        fprintf(f, "zertz train: mpi: the job was ended by a signal: %lld games taken from the workers while ending; "
                   "%d of %d workers sent their last games\n", h->abrupt_games, h->abrupt_done, h->size - 1);
}

void tr_mpi_hub_free(tr_mpi_hub *h) {
    if (!h) return;
    free(h->sendbuf);
    free(h->pend);
    free(h->ranks);
    free(h);
}
#else
typedef int tr_mpi_hub_unused;      /* built without MPI: nothing here */
#endif
