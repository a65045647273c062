/* mpi_worker.c — a worker rank of `tools/train --mpi` (mpi_worker.h; the messages: mpi_wire.h).
 * Built only with MPI (ZZ_HAVE_MPI). */
#ifdef ZZ_HAVE_MPI
#include "train/mpi_worker.h"
#include "mcts/clock.h"
#include "train/live_eval.h"
#include "train/mpi_wire.h"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* LAST_SEND_MS: when the job is being ended (SIGTERM), how long a worker waits, at most, for the
 * send in flight and then its last batch to go through (mpirun's SIGKILL follows after
 * odls_base_sigkill_timeout s; rank 0 takes batches for 1 s meanwhile: mpi_hub.c) */
enum { SEND_EVERY_MS = 1000, SEND_GAMES = 64, LAST_SEND_MS = 1000 };

/* A worker rank's state.  worker_join sets up the network, the evaluators and self-play; the
 * control stream (creq, wreq) and the games going out run from worker_play on. */
typedef struct {
    int rank;
    zz_board_kind board;
    tr_game *head, *tail;           /* finished games not sent yet */
    int ngames;
    unsigned char *msg;             /* the message in flight (freed when through) */
    MPI_Request req;
    int gen;                        /* the weights self-play searches with */
    long steps;
    char host[64];
    tr_mpi_setup s;                 /* rank 0's setup */
    unsigned char *wbuf;            /* s.weight_bytes: the weights as broadcast (a receive may be in flight) */
    nn_model *m;                    /* the network the broadcast weights are copied into */
    mcts_evaluator *ev, *search_ev; /* the live network; with the rollout mix when there is one */
    tr_selfplay *sp;
    tr_mpi_ctl ctl;                 /* the control message being received (creq) */
    MPI_Request creq, wreq;         /* in flight: the next control message, or the weights after a TR_CTL_WEIGHTS */
    int publish;                    /* weights received that the evaluator has not taken yet, */
    int new_gen;                    /* ... their generation and step */
    long new_steps;
} worker;

static void take_games(worker *w) {
    for (tr_game *g = tr_selfplay_take(w->sp); g;) {
        tr_game *next = g->next;
        g->next = NULL;
        if (w->tail) w->tail->next = g;
        else w->head = g;
        w->tail = g;
        w->ngames++;
        g = next;
    }
}

/* Is the send in flight through?  1 yes (or none), 0 not yet, -1 error. */
static int send_done(worker *w, char *err, size_t errlen) {
    int flag = 0;
    int rc = MPI_Test(&w->req, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return tr_mpi_fail(rc, "sending games", err, errlen);
    if (flag) { free(w->msg); w->msg = NULL; }
    return flag;
}

/* Send the games waiting (maybe none: the figures still go) and the rank's figures.  The
 * previous send must be through.  0, or -1 with a message. */
static int send_games(worker *w, int done, char *err, size_t errlen) {
    int n = 0;
    for (tr_game *g = w->head; g; g = g->next) n += g->nsamples;
    tr_sample *all = malloc(sizeof *all * (size_t)(n ? n : 1));
    if (!all) { snprintf(err, errlen, "out of memory"); return -1; }
    n = 0;
    for (tr_game *g = w->head; g; g = g->next) {       /* shallow copies: the encoder only reads */
        memcpy(all + n, g->samples, sizeof *all * (size_t)g->nsamples);
        n += g->nsamples;
    }
    unsigned char *img = NULL;
    size_t ilen = 0;
    if (n && tr_replay_encode(w->board, 0, all, n, &img, &ilen, err, errlen) != 0) { free(all); return -1; }
    free(all);
    tr_mpi_games h;
    memset(&h, 0, sizeof h);
    h.games = (uint32_t)w->ngames;
    h.nsamples = (uint32_t)n;
    h.image_bytes = (uint32_t)ilen;
    h.done = done;
    tr_selfplay_stats st;
    tr_selfplay_stats_get(w->sp, &st);
    h.moves = st.moves;
    h.evals = st.evals;
    h.gen = w->gen;
    h.steps = w->steps;
    h.pid = (int32_t)getpid();
    memcpy(h.host, w->host, sizeof h.host);
    w->msg = malloc(sizeof h + ilen);
    if (!w->msg) { free(img); snprintf(err, errlen, "out of memory"); return -1; }
    memcpy(w->msg, &h, sizeof h);
    if (ilen) memcpy(w->msg + sizeof h, img, ilen);
    free(img);
    int rc = MPI_Isend(w->msg, (int)(sizeof h + ilen), MPI_BYTE, 0, TR_TAG_GAMES, MPI_COMM_WORLD, &w->req);
    if (rc != MPI_SUCCESS) return tr_mpi_fail(rc, "MPI_Isend", err, errlen);
    while (w->head) { tr_game *g = w->head->next; tr_game_free(w->head); w->head = g; }
    w->tail = NULL;
    w->ngames = 0;
    return 0;
}

/* Hand the weights received (m: generation new_gen, step new_steps) to the evaluator, which takes
 * them at its next batch: when it has taken the previous ones, publish is cleared and self-play
 * stamps its samples with new_gen from now on; else try again later.  0, or -1 with a message. */
static int publish_weights(worker *w, char *err, size_t errlen) {
    char why[512];
    int pr = tr_live_eval_publish(w->ev, w->m, why, sizeof why);
    if (pr < 0) { snprintf(err, errlen, "refresh: %s", why); return -1; }
    if (pr > 0) {
        w->gen = w->new_gen;
        w->steps = w->new_steps;
        tr_selfplay_set_generation(w->sp, (uint32_t)w->new_gen);
        w->publish = 0;
    }
    return 0;
}

static void nap_ms(long ms) {
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
    nanosleep(&ts, NULL);
}

/* Wait until the send in flight is through: 0; 1 when *stop was raised first; -1 on an error. */
static int wait_sent(worker *w, volatile sig_atomic_t *stop, char *err, size_t errlen) {
    for (;;) {
        int sd = send_done(w, err, errlen);
        if (sd != 0) return sd < 0 ? -1 : 0;
        if (*stop) return 1;
        nap_ms(1);
    }
}

/* Wait until the send in flight is through, until mcts_now_s() passes until: 1 through, 0 not (or
 * an error: the job is ending, nobody to tell). */
static int sent_by(worker *w, double until) {
    char e[512];
    for (;;) {
        int sd = send_done(w, e, sizeof e);
        if (sd != 0) return sd > 0;
        if (mcts_now_s() >= until) return 0;
        nap_ms(1);
    }
}

/* The launcher is ending the job (SIGTERM: Ctrl-C, or a rank died): self-play stops, and the games
 * finished go to rank 0 once, as this rank's last message (done = 1), when the send in flight is
 * through in time; LAST_SEND_MS at most in all.  Errors are ignored (rank 0 may be the rank that
 * died); what is left is lost with the process. */
static void send_last(worker *w) {
    double until = mcts_now_s() + LAST_SEND_MS / 1000.0;
    char e[512];
    tr_selfplay_stop(w->sp);
    take_games(w);
    if (sent_by(w, until) && send_games(w, 1, e, sizeof e) == 0) sent_by(w, until);
}

/* The broadcast weights in wbuf into m: parameters, then BN statistics. */
static void load_weights(worker *w) {
    memcpy(w->m->param, w->wbuf, w->m->nparams * w->m->esize);
    memcpy(w->m->stats, w->wbuf + w->m->nparams * w->m->esize, w->m->nstats * w->m->esize);
}

/* The evaluator on m (with the rollout mix when rank 0's setup has one) and self-play, with rank
 * 0's search configuration, a seed of this rank's own and this rank's scheduler size (local).
 * 0, or -1 with a message. */
static int start_selfplay(worker *w, const tr_selfplay_config *local, char *err, size_t errlen) {
    const tr_mpi_setup *s = &w->s;
    char why[512];
    if (!(w->ev = tr_live_eval_new(w->m, s->sp.net_precision, why, sizeof why)) ||
        tr_live_eval_set_cache(w->ev, (size_t)s->sp.eval_cache, why, sizeof why) != 0) {
        snprintf(err, errlen, "evaluator: %s", why);
        return -1;
    }
    if (tr_search_evaluator(w->ev, s->rollout_mix, s->sp.quiet_nodes, s->sp.seed * 7 + (uint64_t)w->rank,
                            &w->search_ev, err, errlen) != 0)
        return -1;
    tr_selfplay_config spc = s->sp;
    spc.seed = s->sp.seed ^ ((uint64_t)w->rank * 0x9E3779B97F4A7C15ULL);  /* every rank its own games */
    spc.games_in_flight = local->games_in_flight;                           /* its own scheduler's size */
    spc.threads = local->threads;
    if (!(w->sp = tr_selfplay_new(&spc, w->search_ev ? w->search_ev : w->ev, why, sizeof why)) ||
        tr_selfplay_start(w->sp, why, sizeof why) != 0) {
        snprintf(err, errlen, "self-play: %s", why);
        return -1;
    }
    tr_selfplay_set_generation(w->sp, (uint32_t)w->gen);
    return 0;
}

/* Join the job: rank 0's hello (the same build, or an abort), its setup and its weights (blocking
 * broadcasts), the network they fill, then the evaluator and self-play.  0; 2 when rank 0 could
 * not start the run; -1 with a message. */
static int worker_join(worker *w, const tr_selfplay_config *local, char *err, size_t errlen) {
    static const char *other_build = "rank 0 runs another build of tools/train (every machine needs the same build)";
    char why[512];
    tr_mpi_hello hello;
    int rc = MPI_Bcast(&hello, (int)sizeof hello, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) return tr_mpi_fail(rc, "setup broadcast", err, errlen);
    if (hello.magic != TR_MPI_MAGIC || hello.version != TR_MPI_VERSION || hello.setup_bytes != sizeof(tr_mpi_setup)) {
        snprintf(err, errlen, "%s", other_build);
        return -1;
    }
    if (hello.abort) return 2;
    const tr_mpi_setup *s = &w->s;
    if ((rc = MPI_Bcast(&w->s, (int)sizeof w->s, MPI_BYTE, 0, MPI_COMM_WORLD)) != MPI_SUCCESS)
        return tr_mpi_fail(rc, "setup broadcast", err, errlen);
    if (!(w->wbuf = malloc(s->weight_bytes ? s->weight_bytes : 1))) { snprintf(err, errlen, "out of memory"); return -1; }
    if ((rc = MPI_Bcast(w->wbuf, (int)s->weight_bytes, MPI_BYTE, 0, MPI_COMM_WORLD)) != MPI_SUCCESS)
        return tr_mpi_fail(rc, "weights broadcast", err, errlen);
    if (s->net_bytes != sizeof(nn_config) || s->sp_bytes != sizeof(tr_selfplay_config)) {
        snprintf(err, errlen, "%s", other_build);
        return -1;
    }
    if (!(w->m = nn_model_create(&s->net, NN_F32, 1, why, sizeof why))) { snprintf(err, errlen, "network: %s", why); return -1; }
    if ((w->m->nparams + w->m->nstats) * w->m->esize != s->weight_bytes) {
        snprintf(err, errlen, "rank 0's weights do not fit this build's network (every machine needs the same build)");
        return -1;
    }
    load_weights(w);
    w->board = s->sp.board;
    w->gen = s->gen;
    w->steps = (long)s->steps;
    return start_selfplay(w, local, err, errlen);
}

/* Progress the control stream: a control message in (its hold applied; a stop; weights to
 * follow, or the next message posted), or the weights after a TR_CTL_WEIGHTS in (into m, publish
 * set, the next message posted).  1 when rank 0 said stop, 0 otherwise, -1 with a message. */
static int poll_control(worker *w, char *err, size_t errlen) {
    int flag = 0, rc;
    if (w->creq != MPI_REQUEST_NULL) {              /* a control message */
        if ((rc = MPI_Test(&w->creq, &flag, MPI_STATUS_IGNORE)) != MPI_SUCCESS) return tr_mpi_fail(rc, "MPI_Test", err, errlen);
        if (!flag) return 0;
        tr_selfplay_hold(w->sp, w->ctl.hold);
        if (w->ctl.kind == TR_CTL_STOP) return 1;
        if (w->ctl.kind == TR_CTL_WEIGHTS) rc = MPI_Ibcast(w->wbuf, (int)w->s.weight_bytes, MPI_BYTE, 0, MPI_COMM_WORLD, &w->wreq);
        else rc = MPI_Ibcast(&w->ctl, (int)sizeof w->ctl, MPI_BYTE, 0, MPI_COMM_WORLD, &w->creq);
        return rc != MPI_SUCCESS ? tr_mpi_fail(rc, "MPI_Ibcast", err, errlen) : 0;
    }
    if (w->wreq == MPI_REQUEST_NULL) return 0;      /* the weights after a TR_CTL_WEIGHTS */
    if ((rc = MPI_Test(&w->wreq, &flag, MPI_STATUS_IGNORE)) != MPI_SUCCESS) return tr_mpi_fail(rc, "MPI_Test", err, errlen);
    if (!flag) return 0;
    load_weights(w);
    w->publish = 1;
    w->new_gen = w->ctl.gen;
    w->new_steps = (long)w->ctl.steps;
    rc = MPI_Ibcast(&w->ctl, (int)sizeof w->ctl, MPI_BYTE, 0, MPI_COMM_WORLD, &w->creq);
    return rc != MPI_SUCCESS ? tr_mpi_fail(rc, "MPI_Ibcast", err, errlen) : 0;
}

/* Play until rank 0 says stop: control messages and weights in (polled, never waited for), the
 * finished games out about once a second (or every SEND_GAMES games).  0 when rank 0 said stop;
 * 1 when *stop was raised (the launcher ends the job: the games went as on a signal); -1 with a
 * message. */
static int worker_play(worker *w, volatile sig_atomic_t *stop, char *err, size_t errlen) {
    int rc = MPI_Ibcast(&w->ctl, (int)sizeof w->ctl, MPI_BYTE, 0, MPI_COMM_WORLD, &w->creq);
    if (rc != MPI_SUCCESS) return tr_mpi_fail(rc, "MPI_Ibcast", err, errlen);
    int stopped = 0;
    double last_send = mcts_now_s();
    while (!stopped) {
        if (*stop) { send_last(w); return 1; }      /* the launcher ends the job */
        const char *spe = tr_selfplay_error(w->sp);
        if (spe) { snprintf(err, errlen, "self-play: %s", spe); return -1; }
        take_games(w);
        if ((stopped = poll_control(w, err, errlen)) < 0) return -1;
        if (w->publish && publish_weights(w, err, errlen) != 0) return -1;  /* taken at the evaluator's next batch */
        int sd = send_done(w, err, errlen);
        if (sd < 0) return -1;
        double t = mcts_now_s();
        if (sd && !stopped && (t - last_send >= SEND_EVERY_MS / 1000.0 || w->ngames >= SEND_GAMES)) {
            if (send_games(w, 0, err, errlen) != 0) return -1;
            last_send = t;
        }
        if (!stopped) nap_ms(2);
    }
    return 0;
}

/* Stopped by rank 0: the last weights reach the evaluator (self-play runs: it takes them within a
 * batch; 5 s at most), self-play stops, what is finished goes, and the last message says done.
 * 0; 1 when *stop was raised meanwhile (the games then go as on a signal); -1 with a message. */
static int worker_finish(worker *w, volatile sig_atomic_t *stop, char *err, size_t errlen) {
    for (double t0 = mcts_now_s(); w->publish && !*stop && mcts_now_s() - t0 < 5.0; nap_ms(1))
        if (publish_weights(w, err, errlen) != 0) return -1;
    tr_selfplay_stop(w->sp);
    take_games(w);
    int ws = wait_sent(w, stop, err, errlen);
    if (ws != 0) {
        if (ws > 0) send_last(w);                   /* ended meanwhile: the games go as on a signal */
        return ws;
    }
    if (send_games(w, 1, err, errlen) != 0) return -1;
    return wait_sent(w, stop, err, errlen);
}

/* Free what the worker holds; ret: how it ended (not 0: a send or a broadcast may still be in
 * flight in the buffers it uses, which are left to the ending process). */
static void worker_free(worker *w, int ret) {
    if (w->sp) { tr_selfplay_stop(w->sp); tr_selfplay_free(w->sp); }
    while (w->head) { tr_game *g = w->head->next; tr_game_free(w->head); w->head = g; }
    if (ret == 0) free(w->msg);
    mcts_evaluator_free(w->search_ev);
    mcts_evaluator_free(w->ev);
    nn_model_free(w->m);
    if (ret == 0) free(w->wbuf);
}

int tr_mpi_worker(int rank, const tr_selfplay_config *local, volatile sig_atomic_t *stop, char *err, size_t errlen) {
    worker w;
    memset(&w, 0, sizeof w);
    w.rank = rank;
    w.req = w.creq = w.wreq = MPI_REQUEST_NULL;
    gethostname(w.host, sizeof w.host - 1);
    int ret = worker_join(&w, local, err, errlen);
    if (ret == 0) ret = worker_play(&w, stop, err, errlen);
    if (ret == 0) ret = worker_finish(&w, stop, err, errlen);
    worker_free(&w, ret);
    return ret;
}
#else
typedef int tr_mpi_worker_unused;   /* built without MPI: nothing here */
#endif
