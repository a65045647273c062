/* match.c — the arena's engine: parallel games between two agents, SGF records (written atomically; a
 * record that cannot be written stops the match with an error), Elo. */
#include "match.h"
#include "game/sgf.h"
#include "rand.h"
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    int played;                /* the game was played (early stop leaves the rest unplayed) */
    int winner_agent;          /* 0 = A, 1 = B, -1 draw */
    int first_agent;           /* the agent that moved first */
    int plies;
    uint64_t hash;
    int error;
} game_out;

typedef struct {
    const mcts_match_config *c;
    _Atomic int next;
    _Atomic int stop;          /* early stop: start no new opening pair */
    pthread_mutex_t mu;        /* guards the running score below (once per game) */
    int done_w, done_l, done_d;
    int sprt_decided;          /* the SPRT's decision when it first left its bounds (else GOING) */
    int sprt_w, sprt_l, sprt_d;  /* the results counted then */
    double sprt_llr;
    game_out *out;
    mcts_agent_stats stats[2];  /* per worker, summed at the end */
    char err[256];
    int setup_failed;
    _Atomic int write_failed;  /* a game record could not be written: start no new game */
    char write_err[512];       /* the first such failure (under mu) */
} shared_t;

typedef struct {
    shared_t *sh;
    mcts_agent_stats stats[2];
    int setup_failed;
    char err[256];
} worker_t;

static uint64_t fnv(uint64_t h, uint32_t x) {
    for (int i = 0; i < 4; i++) h = (h ^ ((x >> (8 * i)) & 255)) * 0x100000001B3ULL;
    return h;
}

/* Game i's record as c->sgf_dir/game-NNNN.sgf, written atomically.  0, or -1 with a message
 * naming the file and the cause. */
static int write_record(const mcts_match_config *c, int i, const zz_game *g, char *err, size_t errlen) {
    char path[1024], why[460];
    snprintf(path, sizeof path, "%s/game-%04d.sgf", c->sgf_dir, i);
    if (zz_sgf_write_file(path, g, why, sizeof why) == 0) return 0;
    snprintf(err, errlen, "cannot write the game record %s", why);
    return -1;
}

/* Play game i with agents ag[0] (A) and ag[1] (B), and write its record when c->sgf_dir is set.
 * Returns 0, or -1 with a message in werr when the record cannot be written (agent errors are
 * in o->error and err instead). */
static int play_game(const mcts_match_config *c, mcts_agent *ag[2], int i, game_out *o, char *err, size_t errlen,
                     char *werr, size_t werrlen) {
    uint64_t gseed = mcts_seed(c->seed * 0x9E3779B97F4A7C15ULL + (uint64_t)i);
    int first = i % 2;                         /* game 0: A starts; game 1: B starts ... */
    zz_pos pos;
    zz_pos_init(&pos, c->board);
    pos.ply_cap = (uint16_t)(c->ply_cap > 0 ? c->ply_cap : 0);
    memset(o, 0, sizeof *o);
    o->first_agent = first;
    o->winner_agent = -1;
    o->hash = 0xCBF29CE484222325ULL;
    zz_game g;
    zz_game_init(&g, c->board);
    if (c->handicap) {                         /* the agent's player this game: agent `first` is P0 */
        zz_handicap h = *c->handicap;
        h.player = c->handicap->player == first ? 0 : 1;
        if (zz_handicap_apply(&pos, &h, err, errlen) != 0) {   /* checked by the caller: never here */
            o->error = 1;
            zz_game_free(&g);
            return 0;
        }
        snprintf(g.variant, sizeof g.variant, "%s", ZZ_VARIANT_HANDICAP);
    }
    g.start = pos;
    g.final = pos;
    snprintf(g.player_name[0], sizeof g.player_name[0], "%s", c->spec[first]);
    snprintf(g.player_name[1], sizeof g.player_name[1], "%s", c->spec[1 - first]);
    snprintf(g.game_name, sizeof g.game_name, "arena-%04d", i);
    for (int a = 0; a < 2; a++)
        if (mcts_agent_newgame(ag[a], &pos, mcts_seed(gseed + (uint64_t)a + 1), err, errlen) != 0) {
            o->error = 1;
            o->winner_agent = 1 - a;
            zz_game_free(&g);
            return 0;
        }
    zz_move turn[ZZ_MAX_CHAIN];
    int nturn = 0;
    const mcts_opening *op = c->openings && c->nopenings > 0 ? &c->openings[(i / 2) % c->nopenings] : NULL;
    int opening_ply = 0;
    while (!zz_over(&pos)) {
        int mover = pos.to_move == 0 ? first : 1 - first;
        zz_move m;
        if (op && opening_ply < op->n && zz_is_legal(&pos, op->moves[opening_ply])) {
            m = op->moves[opening_ply++];
        } else if (mcts_agent_choose(ag[mover], &pos, &m, err, errlen) != 0) {
            o->error = 1;
            o->winner_agent = 1 - mover;
            break;
        }
        int bad = 0;
        for (int a = 0; a < 2 && !bad; a++)
            if (mcts_agent_played(ag[a], &pos, m, err, errlen) != 0) { bad = 1; o->winner_agent = 1 - a; }
        if (bad) { o->error = 1; break; }
        zz_effects fx;
        zz_apply(&pos, m, &fx);
        o->hash = fnv(o->hash, m);
        o->plies++;
        if (nturn < ZZ_MAX_CHAIN) turn[nturn++] = m;
        if (fx.turn_over || zz_over(&pos)) {
            char e[128];
            zz_game_add_turn(&g, turn, nturn, e, sizeof e);
            nturn = 0;
        }
    }
    if (!o->error && pos.winner >= 0) o->winner_agent = pos.winner == 0 ? first : 1 - first;
    o->played = 1;
    int rc = c->sgf_dir ? write_record(c, i, &g, werr, werrlen) : 0;
    zz_game_free(&g);
    return rc;
}

/* A record could not be written: keep the first message, and stop starting games. */
static void record_failed(shared_t *sh, const char *msg) {
    pthread_mutex_lock(&sh->mu);
    if (!sh->write_err[0]) snprintf(sh->write_err, sizeof sh->write_err, "%s", msg);
    pthread_mutex_unlock(&sh->mu);
    atomic_store(&sh->write_failed, 1);
}

static void *worker_main(void *arg) {
    worker_t *w = arg;
    shared_t *sh = w->sh;
    const mcts_match_config *c = sh->c;
    mcts_agent *ag[2] = { NULL, NULL };
    for (int a = 0; a < 2; a++)
        if (!(ag[a] = mcts_agent_new(c->spec[a], c->agent_threads > 0 ? c->agent_threads : 1, w->err, sizeof w->err))) {
            w->setup_failed = 1;
            mcts_agent_free(ag[0]);
            return NULL;
        }
    for (;;) {
        /* the next game; after an early stop only the second game of a started pair */
        int i = atomic_load(&sh->next);
        do {
            if (i >= c->games || (atomic_load(&sh->stop) && i % 2 == 0) || atomic_load(&sh->write_failed)) { i = -1; break; }
        } while (!atomic_compare_exchange_weak(&sh->next, &i, i + 1));
        if (i < 0) break;
        char err[256] = "", werr[512] = "";
        game_out *o = &sh->out[i];
        if (play_game(c, ag, i, o, err, sizeof err, werr, sizeof werr) != 0) record_failed(sh, werr);
        if (o->error && !w->err[0]) snprintf(w->err, sizeof w->err, "game %d: %.200s", i, err);
        if (c->stop_early > 0 || c->sprt) {
            pthread_mutex_lock(&sh->mu);
            if (o->winner_agent == 0) sh->done_w++;
            else if (o->winner_agent == 1) sh->done_l++;
            else sh->done_d++;
            mcts_elo e = mcts_elo_estimate(sh->done_w, sh->done_l, sh->done_d);
            if (c->stop_early > 0 && sh->done_w + sh->done_l + sh->done_d >= c->stop_early && (e.lo > 0 || e.hi < 0))
                atomic_store(&sh->stop, 1);
            double llr;
            int d = c->sprt ? mcts_sprt_decide(c->sprt, sh->done_w, sh->done_l, sh->done_d, &llr) : MCTS_SPRT_GOING;
            if (d != MCTS_SPRT_GOING && sh->sprt_decided == MCTS_SPRT_GOING) {
                /* the test ends here: the games of pairs still being finished do not undo it */
                sh->sprt_decided = d;
                sh->sprt_w = sh->done_w, sh->sprt_l = sh->done_l, sh->sprt_d = sh->done_d;
                sh->sprt_llr = llr;
                atomic_store(&sh->stop, 1);
            }
            pthread_mutex_unlock(&sh->mu);
        }
        if (c->progress) {
            const char *res = o->winner_agent < 0 ? "draw" : o->winner_agent == 0 ? "A wins" : "B wins";
            flockfile(c->progress);
            fprintf(c->progress, "game %4d  %s first  %3d plies  %s%s%s\n", i, o->first_agent == 0 ? "A" : "B",
                    o->plies, res, o->error ? "  (error: " : "", o->error ? err : "");
            if (o->error) fputs(")\n", c->progress);
            fflush(c->progress);
            funlockfile(c->progress);
        }
    }
    for (int a = 0; a < 2; a++) {
        w->stats[a] = *mcts_agent_get_stats(ag[a]);
        mcts_agent_free(ag[a]);
    }
    return NULL;
}

void mcts_match_by_colour(const mcts_match_result *r, int first[3], int second[3]) {
    first[0] = r->a_first_wins;
    first[1] = r->a_first_losses;
    first[2] = r->a_first_games - r->a_first_wins - r->a_first_losses;
    second[0] = r->wins - first[0];
    second[1] = r->losses - first[1];
    second[2] = r->draws - first[2];
}

int mcts_match_run(const mcts_match_config *c, mcts_match_result *r, char *err, size_t errlen) {
    memset(r, 0, sizeof *r);
    if (c->games < 1) { snprintf(err, errlen, "no games to play"); return -1; }
    for (int a = 0; a < 2; a++) {          /* check both specs before starting anything */
        mcts_agent *probe = mcts_agent_new(c->spec[a], 1, err, errlen);
        if (!probe) return -1;
        mcts_agent_free(probe);
    }
    if (c->sgf_dir && mkdir(c->sgf_dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: %s", c->sgf_dir, strerror(errno));
        return -1;
    }
    int nt = c->parallel > 0 ? c->parallel : 1;
    if (nt > c->games) nt = c->games;
    shared_t sh;
    memset(&sh, 0, sizeof sh);
    sh.c = c;
    atomic_init(&sh.next, 0);
    atomic_init(&sh.stop, 0);
    atomic_init(&sh.write_failed, 0);
    pthread_mutex_init(&sh.mu, NULL);
    sh.out = calloc((size_t)c->games, sizeof *sh.out);
    worker_t *w = calloc((size_t)nt, sizeof *w);
    pthread_t *th = calloc((size_t)nt, sizeof *th);
    if (!sh.out || !w || !th) { free(sh.out); free(w); free(th); snprintf(err, errlen, "out of memory"); return -1; }
    int started = 0;
    for (int i = 0; i < nt; i++) {
        w[i].sh = &sh;
        if (pthread_create(&th[i], NULL, worker_main, &w[i]) != 0) break;
        started++;
    }
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    int rc = 0;
    for (int i = 0; i < started; i++) {
        if (w[i].setup_failed) { snprintf(err, errlen, "%s", w[i].err); rc = -1; }
        else if (w[i].err[0] && !r->first_error[0]) snprintf(r->first_error, sizeof r->first_error, "%s", w[i].err);
        for (int a = 0; a < 2; a++) {
            r->moves[a] += w[i].stats[a].moves;
            r->seconds[a] += w[i].stats[a].seconds;
            r->sims[a] += w[i].stats[a].sims;
            r->overrides[a] += w[i].stats[a].overrides;
        }
    }
    if (started == 0) { snprintf(err, errlen, "cannot start threads"); rc = -1; }
    if (rc == 0 && atomic_load(&sh.write_failed)) { snprintf(err, errlen, "%s", sh.write_err); rc = -1; }
    int played = atomic_load(&sh.next);
    if (played > c->games) played = c->games;
    for (int i = 0; rc == 0 && i < c->games; i++) {
        game_out *o = &sh.out[i];
        if (!o->played) continue;
        r->games++;
        if (o->winner_agent == 0) r->wins++;
        else if (o->winner_agent == 1) r->losses++;
        else r->draws++;
        if (o->winner_agent >= 0 && o->winner_agent == o->first_agent) r->first_player_wins++;
        if (o->first_agent == 0) {
            r->a_first_games++;
            r->a_first_wins += o->winner_agent == 0;
            r->a_first_losses += o->winner_agent == 1;
        }
        r->plies += o->plies;
        r->errors += o->error;
        r->digest += mcts_seed(o->hash ^ (uint64_t)i);
        int unique = 1;
        for (int j = 0; j < c->games && unique; j++)
            if (j != i && sh.out[j].played && sh.out[j].hash == o->hash && sh.out[j].plies == o->plies) unique = 0;
        r->distinct += unique;
    }
    r->stopped_early = rc == 0 && r->games < c->games;
    if (c->sprt && sh.sprt_decided != MCTS_SPRT_GOING) {
        r->sprt_decision = sh.sprt_decided;
        r->sprt_llr = sh.sprt_llr;
        r->sprt_games = sh.sprt_w + sh.sprt_l + sh.sprt_d;
    } else if (c->sprt) {
        r->sprt_decision = mcts_sprt_decide(c->sprt, r->wins, r->losses, r->draws, &r->sprt_llr);
        r->sprt_games = r->games;
    }
    pthread_mutex_destroy(&sh.mu);
    free(sh.out);
    free(w);
    free(th);
    return rc;
}

static double elo_of(double s) {
    if (s <= 0) return -INFINITY;
    if (s >= 1) return INFINITY;
    return -400.0 * log10(1.0 / s - 1.0);
}

mcts_elo mcts_elo_estimate(int wins, int losses, int draws) {
    mcts_elo e = { 0, 0, 0, 0 };
    int n = wins + losses + draws;
    if (n == 0) return e;
    double s = (wins + 0.5 * draws) / n;
    double var = (wins * (1 - s) * (1 - s) + draws * (0.5 - s) * (0.5 - s) + losses * s * s) / n;
    double se = sqrt(var / n);
    e.score = s;
    e.elo = elo_of(s);
    e.lo = elo_of(s - 1.96 * se);
    e.hi = elo_of(s + 1.96 * se);
    /* at 0% / 100% the per-game variance is 0: the open bound is Wilson's, z²/(n+z²) from the edge */
    double wilson = 1.96 * 1.96 / (n + 1.96 * 1.96);
    if (s <= 0) { e.lo = -INFINITY; e.hi = elo_of(wilson); }
    if (s >= 1) { e.lo = elo_of(1 - wilson); e.hi = INFINITY; }
    return e;
}

mcts_elo mcts_elo_finite(int wins, int losses, int draws) {
    mcts_elo e = { 0, 0, 0, 0 };
    int n = wins + losses + draws;
    if (n == 0) return e;
    double s = (wins + 0.5 * draws + 0.5) / (n + 1.0);
    double se = sqrt(s * (1 - s) / (n + 1.0)), edge = 0.5 / (n + 1.0);
    double lo = s - 1.96 * se, hi = s + 1.96 * se;
    if (lo < edge) lo = edge;
    if (hi > 1 - edge) hi = 1 - edge;
    e.score = (wins + 0.5 * draws) / n;
    e.elo = elo_of(s);
    e.lo = elo_of(lo);
    e.hi = elo_of(hi);
    if (e.elo == 0) e.elo = 0;            /* never -0 */
    return e;
}
