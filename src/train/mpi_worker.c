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
} worker;

static void take_games(worker *w, tr_selfplay *sp) {
    for (tr_game *g = tr_selfplay_take(sp); g;) {
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
static int send_games(worker *w, tr_selfplay *sp, int done, char *err, size_t errlen) {
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
    tr_selfplay_stats_get(sp, &st);
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

/* Hand the weights in m (generation gen, step steps) to the evaluator, which takes them at its next
 * batch: 1 done (self-play stamps its samples with gen from now on), 0 the previous ones are not
 * taken yet (try again), -1 with a message. */
static int try_publish(worker *w, mcts_evaluator *ev, tr_selfplay *sp, const nn_model *m, int gen, long steps, char *err,
                       size_t errlen) {
    char why[512];
    int pr = tr_live_eval_publish(ev, m, why, sizeof why);
    if (pr < 0) { snprintf(err, errlen, "refresh: %s", why); return -1; }
    if (pr > 0) {
        w->gen = gen;
        w->steps = steps;
        tr_selfplay_set_generation(sp, (uint32_t)gen);
    }
    return pr;
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
static void send_last(worker *w, tr_selfplay *sp) {
    double until = mcts_now_s() + LAST_SEND_MS / 1000.0;
    char e[512];
    tr_selfplay_stop(sp);
    take_games(w, sp);
    if (sent_by(w, until) && send_games(w, sp, 1, e, sizeof e) == 0) sent_by(w, until);
}

int tr_mpi_worker(int rank, const tr_selfplay_config *local, volatile sig_atomic_t *stop, char *err, size_t errlen) {
    worker w;
    memset(&w, 0, sizeof w);
    w.rank = rank;
    w.req = MPI_REQUEST_NULL;
    gethostname(w.host, sizeof w.host - 1);
    char why[512];
    tr_mpi_hello hello;
    int rc = MPI_Bcast(&hello, (int)sizeof hello, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) return tr_mpi_fail(rc, "setup broadcast", err, errlen);
    if (hello.magic != TR_MPI_MAGIC || hello.version != TR_MPI_VERSION || hello.setup_bytes != sizeof(tr_mpi_setup)) {
        snprintf(err, errlen, "rank 0 runs another build of tools/train (every machine needs the same build)");
        return -1;
    }
    if (hello.abort) return 2;
    tr_mpi_setup s;
    if ((rc = MPI_Bcast(&s, (int)sizeof s, MPI_BYTE, 0, MPI_COMM_WORLD)) != MPI_SUCCESS)
        return tr_mpi_fail(rc, "setup broadcast", err, errlen);
    nn_model *m = NULL;
    mcts_evaluator *ev = NULL, *search_ev = NULL;
    tr_selfplay *sp = NULL;
    unsigned char *wbuf = malloc(s.weight_bytes ? s.weight_bytes : 1);
    int ret = -1;
    if (!wbuf) { snprintf(err, errlen, "out of memory"); goto out; }
    if ((rc = MPI_Bcast(wbuf, (int)s.weight_bytes, MPI_BYTE, 0, MPI_COMM_WORLD)) != MPI_SUCCESS) {
        tr_mpi_fail(rc, "weights broadcast", err, errlen);
        goto out;
    }
    if (s.net_bytes != sizeof(nn_config) || s.sp_bytes != sizeof(tr_selfplay_config)) {
        snprintf(err, errlen, "rank 0 runs another build of tools/train (every machine needs the same build)");
        goto out;
    }
    if (!(m = nn_model_create(&s.net, NN_F32, 1, why, sizeof why))) { snprintf(err, errlen, "network: %s", why); goto out; }
    if ((m->nparams + m->nstats) * m->esize != s.weight_bytes) {
        snprintf(err, errlen, "rank 0's weights do not fit this build's network (every machine needs the same build)");
        goto out;
    }
    memcpy(m->param, wbuf, m->nparams * m->esize);
    memcpy(m->stats, wbuf + m->nparams * m->esize, m->nstats * m->esize);
    w.board = s.sp.board;
    w.gen = s.gen;
    w.steps = (long)s.steps;
    if (!(ev = tr_live_eval_new(m, why, sizeof why))) { snprintf(err, errlen, "evaluator: %s", why); goto out; }
    if (s.rollout_mix > 0 && !(search_ev = mcts_eval_mix_new(ev, false, s.rollout_mix, 1, s.sp.seed * 7 + (uint64_t)rank))) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    tr_selfplay_config spc = s.sp;
    spc.seed = s.sp.seed ^ ((uint64_t)rank * 0x9E3779B97F4A7C15ULL);    /* every rank its own games */
    spc.games_in_flight = local->games_in_flight;                          /* its own scheduler's size */
    spc.threads = local->threads;
    if (!(sp = tr_selfplay_new(&spc, search_ev ? search_ev : ev, why, sizeof why)) || tr_selfplay_start(sp, why, sizeof why) != 0) {
        snprintf(err, errlen, "self-play: %s", why);
        goto out;
    }
    tr_selfplay_set_generation(sp, (uint32_t)w.gen);

    tr_mpi_ctl ctl;
    MPI_Request creq = MPI_REQUEST_NULL, wreq = MPI_REQUEST_NULL;
    if ((rc = MPI_Ibcast(&ctl, (int)sizeof ctl, MPI_BYTE, 0, MPI_COMM_WORLD, &creq)) != MPI_SUCCESS) {
        tr_mpi_fail(rc, "MPI_Ibcast", err, errlen);
        goto out;
    }
    int publish = 0, new_gen = 0, stopped = 0, ws;
    long new_steps = 0;
    double last_send = mcts_now_s();
    while (!stopped) {
        if (*stop) { send_last(&w, sp); ret = 1; goto out; }     /* the launcher ends the job */
        const char *spe = tr_selfplay_error(sp);
        if (spe) { snprintf(err, errlen, "self-play: %s", spe); goto out; }
        take_games(&w, sp);
        int flag = 0;
        if (creq != MPI_REQUEST_NULL) {             /* a control message */
            if ((rc = MPI_Test(&creq, &flag, MPI_STATUS_IGNORE)) != MPI_SUCCESS) { tr_mpi_fail(rc, "MPI_Test", err, errlen); goto out; }
            if (flag) {
                tr_selfplay_hold(sp, ctl.hold);
                if (ctl.kind == TR_CTL_STOP) {
                    stopped = 1;
                } else if (ctl.kind == TR_CTL_WEIGHTS) {
                    if ((rc = MPI_Ibcast(wbuf, (int)s.weight_bytes, MPI_BYTE, 0, MPI_COMM_WORLD, &wreq)) != MPI_SUCCESS) {
                        tr_mpi_fail(rc, "MPI_Ibcast", err, errlen);
                        goto out;
                    }
                } else if ((rc = MPI_Ibcast(&ctl, (int)sizeof ctl, MPI_BYTE, 0, MPI_COMM_WORLD, &creq)) != MPI_SUCCESS) {
                    tr_mpi_fail(rc, "MPI_Ibcast", err, errlen);
                    goto out;
                }
            }
        } else if (wreq != MPI_REQUEST_NULL) {      /* the weights after a TR_CTL_WEIGHTS */
            if ((rc = MPI_Test(&wreq, &flag, MPI_STATUS_IGNORE)) != MPI_SUCCESS) { tr_mpi_fail(rc, "MPI_Test", err, errlen); goto out; }
            if (flag) {
                memcpy(m->param, wbuf, m->nparams * m->esize);
                memcpy(m->stats, wbuf + m->nparams * m->esize, m->nstats * m->esize);
                publish = 1;
                new_gen = ctl.gen;
                new_steps = (long)ctl.steps;
                if ((rc = MPI_Ibcast(&ctl, (int)sizeof ctl, MPI_BYTE, 0, MPI_COMM_WORLD, &creq)) != MPI_SUCCESS) {
                    tr_mpi_fail(rc, "MPI_Ibcast", err, errlen);
                    goto out;
                }
            }
        }
        if (publish) {                              /* taken by the evaluator at its next batch */
            int pr = try_publish(&w, ev, sp, m, new_gen, new_steps, err, errlen);
            if (pr < 0) goto out;
            if (pr > 0) publish = 0;
        }
        int sd = send_done(&w, err, errlen);
        if (sd < 0) goto out;
        double t = mcts_now_s();
        if (sd && !stopped && (t - last_send >= SEND_EVERY_MS / 1000.0 || w.ngames >= SEND_GAMES)) {
            if (send_games(&w, sp, 0, err, errlen) != 0) goto out;
            last_send = t;
        }
        if (!stopped) nap_ms(2);
    }
    /* stopped by rank 0: the last weights reach the evaluator (self-play runs: it takes them within
     * a batch), what is finished goes, then the last message says done */
    for (double t0 = mcts_now_s(); publish && !*stop && mcts_now_s() - t0 < 5.0; nap_ms(1)) {
        int pr = try_publish(&w, ev, sp, m, new_gen, new_steps, err, errlen);
        if (pr < 0) goto out;
        if (pr > 0) publish = 0;
    }
    tr_selfplay_stop(sp);
    take_games(&w, sp);
    if ((ws = wait_sent(&w, stop, err, errlen)) != 0) {
        if (ws > 0) send_last(&w, sp);          /* ended meanwhile: the games go as on a signal */
        ret = ws;
        goto out;
    }
    if (send_games(&w, sp, 1, err, errlen) != 0) goto out;
    if ((ws = wait_sent(&w, stop, err, errlen)) != 0) { ret = ws; goto out; }
    ret = 0;
out:
    if (sp) { tr_selfplay_stop(sp); tr_selfplay_free(sp); }
    while (w.head) { tr_game *g = w.head->next; tr_game_free(w.head); w.head = g; }
    if (ret == 0) free(w.msg);      /* otherwise it may still be in flight: the process is ending */
    mcts_evaluator_free(search_ev);
    mcts_evaluator_free(ev);
    nn_model_free(m);
    if (ret == 0) free(wbuf);
    return ret;
}
#else
typedef int tr_mpi_worker_unused;   /* built without MPI: nothing here */
#endif
