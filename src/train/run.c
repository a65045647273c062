/* run.c — the training run: self-play, replay, SGD, refreshes, generations, evaluation, logs
 * and the progress picture (run.h). */
#include "train/run.h"
#include "cuda/backend.h"
#include "mcts/clock.h"
#include "train/pretrain.h"
#include "mcts/match.h"
#include "nn/checkpoint.h"
#include "nn/transfer.h"
#include "train/atomic_file.h"
#include "train/live_eval.h"
#include "train/plot.h"
#include "train/runstate.h"
#include "train/trainer.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void tr_run_config_default(tr_run_config *c) {
    memset(c, 0, sizeof *c);
    snprintf(c->out, sizeof c->out, "runs/default");
    c->blocks = 4;
    c->channels = 32;
    tr_selfplay_config_default(&c->sp);
    c->lr = 0.02;
    c->lr_warmup = 100;
    c->lr_tail = 0.1;
    c->lr_tail_factor = 0.25;
    c->batch = 128;
    c->train_ratio = 4.0;
    c->value_weight = 1.0;
    c->window = 100000;
    c->pretrain_games = 3000;
    c->min_samples = 1000;
    c->refresh_every = 25;
    c->gen_steps = 250;
    c->eval_every = 2;
    c->eval_games = 10;
    c->eval_sims = 32;
    c->eval_uct = 100;
    c->keep_generations = 5;
    c->resume = 1;
    c->status_every = 1.0;
    c->seed = 1;
}

bool tr_run_in_lr_tail(const tr_run_config *c, double elapsed_s, long steps, long start_steps) {
    if (c->lr_tail <= 0) return false;
    if (c->minutes > 0 && elapsed_s >= (1 - c->lr_tail) * c->minutes * 60) return true;
    if (c->max_steps > start_steps &&
        (double)steps >= (double)c->max_steps - c->lr_tail * (double)(c->max_steps - start_steps)) return true;
    return false;
}

static bool file_exists(const char *p) {
    struct stat st;
    return stat(p, &st) == 0;
}

static void path_in(char *buf, size_t len, const char *dir, const char *name) {
    snprintf(buf, len, "%.512s/%.255s", dir, name);
}

/* Remove what a run keeps in dir (and nothing else). */
static void remove_run(const char *dir) {
    static const char *files[] = { "run.state", "latest.ckpt", "best.ckpt", "train.csv", "elo.csv", "progress.png" };
    char p[1100];
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) { path_in(p, sizeof p, dir, files[i]); unlink(p); }
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, "gen-", 4) && strstr(e->d_name, ".ckpt")) { path_in(p, sizeof p, dir, e->d_name); unlink(p); }
    if (d) closedir(d);
    char rd[1100];
    path_in(rd, sizeof rd, dir, "replay");
    d = opendir(rd);
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, ".zzr") || strstr(e->d_name, ".tmp")) { path_in(p, sizeof p, rd, e->d_name); unlink(p); }
    if (d) closedir(d);
    rmdir(rd);
}

static void gen_path(char *buf, size_t len, const char *dir, int gen) {
    snprintf(buf, len, "%.512s/gen-%04d.ckpt", dir, gen);
}

/* After a kill, the logs may run ahead of the checkpoint the run resumes from: keep only the rows
 * whose value in `column` is at most `limit` and, when column2 > 0, whose value in column2 is at
 * most limit2 (train.csv: steps, column 2, up to the checkpoint's and seconds, column 1, up to
 * run.state's, since rows at the checkpoint's steps may come later; elo.csv: generation, column 1),
 * rewriting the file atomically when anything goes.  0, or -1 with a message. */
static int trim_log(const char *dir, const char *name, int column, double limit, int column2, double limit2, char *err,
                    size_t errlen) {
    char p[1100], line[1024];
    path_in(p, sizeof p, dir, name);
    FILE *f = fopen(p, "r");
    if (!f) return 0;
    char *keep = NULL;
    size_t klen = 0;
    FILE *k = open_memstream(&keep, &klen);
    if (!k) { fclose(f); snprintf(err, errlen, "out of memory"); return -1; }
    int dropped = 0, row = 0;
    while (fgets(line, sizeof line, f)) {
        bool after = false;
        for (int pass = 0; pass < 2; pass++) {
            int col = pass ? column2 : column;
            if (col <= 0) continue;
            const char *c = line;
            for (int i = 1; i < col && c; i++) { c = strchr(c, ','); if (c) c++; }
            if (c && strtod(c, NULL) > (pass ? limit2 : limit)) after = true;
        }
        if (row++ > 0 && after) { dropped++; continue; }              /* row 0: the header */
        fputs(line, k);
    }
    fclose(f);
    fclose(k);
    int rc = 0;
    if (dropped > 0) rc = tr_write_file_atomic(p, keep, klen, err, errlen);
    free(keep);
    return rc;
}

/* Rebuild the plot history from the logs of earlier sessions. */
static void load_history(tr_history *h, const char *dir) {
    char p[1100];
    char line[512];
    path_in(p, sizeof p, dir, "train.csv");
    FILE *f = fopen(p, "r");
    while (f && fgets(line, sizeof line, f)) {
        double sec, steps, games, samples, buf, pps, eps, fill, pl, vl;
        if (sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &sec, &steps, &games, &samples, &buf, &pps, &eps,
                   &fill, &pl, &vl) == 10 && steps > 0)
            tr_history_loss(h, steps, pl, vl);
    }
    if (f) fclose(f);
    path_in(p, sizeof p, dir, "elo.csv");
    f = fopen(p, "r");
    tr_history_rating(h, 0, 0);                 /* generation 0 is the origin of the ratings */
    while (f && fgets(line, sizeof line, f)) {
        int gen;
        long steps;
        char opp[256];
        double elo, lo, hi, rating;
        if (sscanf(line, "%d,%ld,%255[^,],%*d,%*d,%*d,%*d,%*f,%lf,%lf,%lf,%lf", &gen, &steps, opp, &elo, &lo, &hi, &rating) != 7)
            continue;
        if (!strcmp(opp, "best")) tr_history_rating(h, gen, rating);
        else tr_history_anchor(h, gen, opp, elo, lo, hi);
    }
    if (f) fclose(f);
}

typedef struct {
    const tr_run_config *c;
    tr_runstate st;
    tr_history hist;
    FILE *csv, *elo;
} run_ctx;

/* Elo as printed: a finite number, never "-0". */
static double shown_elo(double e) { return e == 0 ? 0.0 : e; }

/* Play one evaluation match of generation `gen` (file cand) against spec opp. */
static int eval_match(run_ctx *x, const char *cand, const char *opp_spec, const char *opp_name, int gen,
                      mcts_elo *elo, char *err, size_t errlen) {
    const tr_run_config *c = x->c;
    char a[1200];
    snprintf(a, sizeof a, "puct:%s:%d,temp=1,tempplies=4", cand, c->eval_sims);
    mcts_match_config mc;
    memset(&mc, 0, sizeof mc);
    mc.spec[0] = a;
    mc.spec[1] = opp_spec;
    mc.games = c->eval_games;
    mc.parallel = 2;
    mc.agent_threads = 1;
    mc.seed = c->seed * 7919 + (uint64_t)gen;
    mc.board = c->sp.board;
    mc.ply_cap = c->sp.ply_cap;
    mcts_opening op[64];                /* distinct openings, each played with both colours */
    mc.nopenings = mcts_openings_random(c->sp.board, 2, (c->eval_games + 1) / 2 < 64 ? (c->eval_games + 1) / 2 : 64,
                                        mc.seed, op);
    mc.openings = op;
    mcts_match_result r;
    if (mcts_match_run(&mc, &r, err, errlen) != 0) return -1;
    *elo = mcts_elo_finite(r.wins, r.losses, r.draws);      /* the one formula: log, plot, status */
    double rating = !strcmp(opp_name, "best") ? x->st.best_rating + elo->elo : NAN;
    if (x->elo) {
        fprintf(x->elo, "%d,%ld,%s,%d,%d,%d,%d,%.3f,%.1f,%.1f,%.1f,%.1f\n", gen, x->st.steps, opp_name, r.games, r.wins,
                r.losses, r.draws, elo->score, shown_elo(elo->elo), shown_elo(elo->lo), shown_elo(elo->hi),
                isfinite(rating) ? rating : 0.0);
        fflush(x->elo);
    }
    if (strcmp(opp_name, "best")) tr_history_anchor(&x->hist, gen, opp_name, elo->elo, elo->lo, elo->hi);
    if (!c->quiet)
        printf("\n  eval gen %d vs %-10s %2d-%2d-%2d  score %.2f  Elo %+.0f [%+.0f, %+.0f]%s", gen, opp_name, r.wins,
               r.losses, r.draws, elo->score, shown_elo(elo->elo), shown_elo(elo->lo), shown_elo(elo->hi),
               r.errors ? "  (agent errors!)" : "");
    return 0;
}

/* Write run.state alone (its steps must be latest.ckpt's).  0, or -1 with a message. */
static int save_runstate(run_ctx *x, char *err, size_t errlen) {
    char p[1100];
    path_in(p, sizeof p, x->c->out, "run.state");
    return tr_runstate_save(p, &x->st, err, errlen);
}

/* The evaluation matches of the generation just checkpointed (latest.ckpt and run.state written):
 * against the best network (a new best when it scores over 0.55), uct and random. */
static int evaluate(run_ctx *x, nn_model *m, char *err, size_t errlen) {
    const tr_run_config *c = x->c;
    char cand[1100], best[1100], spec[1200];
    gen_path(cand, sizeof cand, c->out, x->st.generation);
    path_in(best, sizeof best, c->out, "best.ckpt");
    mcts_elo e;
    snprintf(spec, sizeof spec, "puct:%s:%d,temp=1,tempplies=4", best, c->eval_sims);
    if (eval_match(x, cand, spec, "best", x->st.generation, &e, err, errlen) != 0) return -1;
    double rating = x->st.best_rating + e.elo;
    tr_history_rating(&x->hist, x->st.generation, rating);
    if (e.score > 0.55) {
        if (nn_checkpoint_save(best, m, x->st.steps, false, err, errlen) != 0) return -1;
        x->st.best_generation = x->st.generation;
        x->st.best_rating = rating;
        /* the new best's rating goes with best.ckpt at once: a kill during the next matches must not
         * resume with the new best.ckpt and the old rating (every later rating offset) */
        if (save_runstate(x, err, errlen) != 0) return -1;
        if (!c->quiet) printf("  -> new best");
    }
    snprintf(spec, sizeof spec, "uct:%d", c->eval_uct);
    char name[32];
    snprintf(name, sizeof name, "uct:%d", c->eval_uct);
    if (eval_match(x, cand, spec, name, x->st.generation, &e, err, errlen) != 0) return -1;
    if (eval_match(x, cand, "random", "random", x->st.generation, &e, err, errlen) != 0) return -1;
    if (!c->quiet) { printf("\n"); fflush(stdout); }
    return 0;
}

static int save_state(run_ctx *x, nn_model *m, char *err, size_t errlen) {
    char p[1100];
    path_in(p, sizeof p, x->c->out, "latest.ckpt");
    if (nn_checkpoint_save(p, m, x->st.steps, true, err, errlen) != 0) return -1;
    return save_runstate(x, err, errlen);
}

static void fmt_time(char *buf, size_t len, double s) {
    if (!(s >= 0) || s > 1e7) { snprintf(buf, len, "--"); return; }
    long t = (long)s;
    if (t >= 3600) snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
}

int tr_run(const tr_run_config *c, tr_run_result *res, char *err, size_t errlen) {
    memset(res, 0, sizeof *res);
    run_ctx x;
    memset(&x, 0, sizeof x);
    x.c = c;
    char p[1100], why[512];
    char statep[1100], latest[1100];
    path_in(statep, sizeof statep, c->out, "run.state");
    path_in(latest, sizeof latest, c->out, "latest.ckpt");
    bool have = file_exists(statep) || file_exists(latest);
    /* everything the options ask for is checked before anything is written */
    if (c->require_run && c->fresh) {
        snprintf(err, errlen, "--resume and --fresh contradict each other");
        return -1;
    }
    if (c->require_run && !have) {
        snprintf(err, errlen, "--resume: %s holds no run (run.state, latest.ckpt): check --out", c->out);
        return -1;
    }
    if (c->pretrain[0] && !file_exists(c->pretrain)) {
        snprintf(err, errlen, "--pretrain %s: %s", c->pretrain, strerror(errno));
        return -1;
    }
    if (have && !c->fresh && c->pretrain[0]) {
        snprintf(err, errlen, "--pretrain applies to a fresh run, and %s holds one: resume without --pretrain, or add --fresh",
                 c->out);
        return -1;
    }
    if (c->init[0] && c->arch_given) {
        snprintf(err, errlen, "--init takes the architecture of its weights: drop --blocks/--channels");
        return -1;
    }
    if (tr_mkdirs(c->out, why, sizeof why) != 0) { snprintf(err, errlen, "%s: %s", c->out, why); return -1; }
    if (have && c->fresh) { remove_run(c->out); have = false; }
    if (have && c->init[0]) {
        snprintf(err, errlen, "--init starts a fresh run, but %s holds one: add --fresh (which deletes it) or use another --out",
                 c->out);
        return -1;
    }
    if (have && !c->resume) {
        snprintf(err, errlen, "%s holds a run: resume it, or start over with --fresh (which deletes it)", c->out);
        return -1;
    }
    nn_config nc;
    nn_config_default(&nc, c->sp.board);
    nc.blocks = c->blocks;
    nc.channels = c->channels;
    nn_model *m = NULL;
    if (have) {
        if (tr_runstate_load(statep, &x.st, why, sizeof why) != 0) { snprintf(err, errlen, "resume: %s", why); return -1; }
        long step = 0;
        if (!(m = nn_checkpoint_load(latest, NN_F32, &step, why, sizeof why))) { snprintf(err, errlen, "resume: %s", why); return -1; }
        if ((int)m->cfg.board != (int)c->sp.board) {
            nn_model_free(m);
            snprintf(err, errlen, "resume: %s is a run on another board (use --fresh or another --out)", c->out);
            return -1;
        }
        if (c->arch_given && (m->cfg.blocks != c->blocks || m->cfg.channels != c->channels)) {
            snprintf(err, errlen, "resume: %s is a run of a %d x %d network, not %d x %d: drop --blocks/--channels, "
                     "or start over with --fresh (or another --out)", c->out, m->cfg.blocks, m->cfg.channels, c->blocks, c->channels);
            nn_model_free(m);
            return -1;
        }
        char best[1100];                                /* every file the run will need, checked now */
        path_in(best, sizeof best, c->out, "best.ckpt");
        nn_model *bm = nn_checkpoint_load(best, NN_F32, NULL, why, sizeof why);
        if (!bm || !nn_config_same_arch(&bm->cfg, &m->cfg)) {
            snprintf(err, errlen, "resume: %s: %s: replace it with the latest weights (cp %s %s) or start over with --fresh",
                     best, bm ? "another architecture than the run's" : why, latest, best);
            nn_model_free(bm);
            nn_model_free(m);
            return -1;
        }
        nn_model_free(bm);
        if (step != x.st.steps) x.st.steps = step;      /* the checkpoint is the truth for steps */
        /* logs written after that checkpoint (a kill) go: time and steps never run backwards */
        /* seconds: train.csv and run.state round them to 0.1 s, so a row may read up to 0.1 s late */
        if (trim_log(c->out, "train.csv", 2, (double)x.st.steps, 1, x.st.seconds + 0.15, why, sizeof why) != 0 ||
            trim_log(c->out, "elo.csv", 1, (double)x.st.generation, 0, 0, why, sizeof why) != 0) {
            nn_model_free(m);
            snprintf(err, errlen, "resume: %s", why);
            return -1;
        }
        res->resumed = 1;
    } else {
        if (c->init[0]) {       /* a fresh run from given weights: their architecture, no momenta */
            if (!(m = nn_checkpoint_load(c->init, NN_F32, NULL, why, sizeof why))) {
                snprintf(err, errlen, "--init: %s", why);
                return -1;
            }
            if ((int)m->cfg.board != (int)c->sp.board) {      /* another board's network: carried over */
                nn_board_shift s;
                nn_model *t = nn_model_transfer(m, c->sp.board, &s, why, sizeof why);
                int from = zz_board_get((zz_board_kind)m->cfg.board)->rings;
                nn_model_free(m);
                if (!(m = t)) {
                    snprintf(err, errlen, "--init: %s", why);
                    return -1;
                }
                if (!c->quiet)
                    printf("zertz train: --init: the %d-ring network carried over to %d rings (trunk and policy head "
                           "as they are; value head: %d of its %d cells mapped, %d new cells start at zero)\n",
                           from, s.dst_cells, s.mapped, s.src_cells, s.dst_cells - s.mapped);
            }
            memset(m->mom, 0, m->nparams * m->esize);   /* fresh momenta */
        } else if (!(m = nn_model_create(&nc, NN_F32, c->seed, why, sizeof why))) {
            snprintf(err, errlen, "network: %s", why);
            return -1;
        }
        x.st.board = (int)c->sp.board;
        x.st.blocks = m->cfg.blocks;
        x.st.channels = m->cfg.channels;
        gen_path(p, sizeof p, c->out, 0);
        char best[1100];
        path_in(best, sizeof best, c->out, "best.ckpt");
        if (nn_checkpoint_save(p, m, 0, false, why, sizeof why) || nn_checkpoint_save(best, m, 0, false, why, sizeof why) ||
            save_state(&x, m, why, sizeof why)) {
            nn_model_free(m);
            snprintf(err, errlen, "%s", why);
            return -1;
        }
    }
    load_history(&x.hist, c->out);
    path_in(p, sizeof p, c->out, "train.csv");
    bool csv_new = !file_exists(p);
    x.csv = fopen(p, "a");
    if (x.csv && csv_new)
        fprintf(x.csv, "seconds,steps,games,samples,buffer,positions_per_s,evals_per_s,batch_fill,policy_loss,value_loss,lr,generation\n");
    path_in(p, sizeof p, c->out, "elo.csv");
    bool elo_new = !file_exists(p);
    x.elo = fopen(p, "a");
    if (x.elo && elo_new) fprintf(x.elo, "generation,steps,opponent,games,wins,losses,draws,score,elo,elo_lo,elo_hi,rating\n");
    if (!x.csv || !x.elo) {
        snprintf(err, errlen, "%s: cannot open the logs", c->out);
        if (x.csv) fclose(x.csv);
        if (x.elo) fclose(x.elo);
        nn_model_free(m);
        tr_history_free(&x.hist);
        return -1;
    }

    int rc = -1;
    bool remove_after = false;
    double t0 = mcts_now_s(), sec0 = x.st.seconds;
    tr_replay rb;
    memset(&rb, 0, sizeof rb);
    bool rb_open = false;
    tr_trainer tr;
    memset(&tr, 0, sizeof tr);
    mcts_evaluator *ev = NULL, *search_ev = NULL;   /* the live net; what self-play searches with */
    tr_selfplay *sp = NULL;
    tr_remote *rem = c->remote;
    bool rem_started = false;
    long pub_steps = x.st.steps;                /* the step of the weights self-play searches with */
    long rem_pub_steps = x.st.steps;            /* ... and the step of those last sent to the ranks */
    nn_sgd sgd;
    nn_sgd_default(&sgd);
    sgd.lr = c->lr;
    sgd.warmup = c->lr_warmup;
    sgd.step = x.st.steps;
    path_in(p, sizeof p, c->out, "replay");
    if (tr_replay_open(&rb, p, c->sp.board, c->window, why, sizeof why) != 0) { snprintf(err, errlen, "replay: %s", why); goto out; }
    rb_open = true;
    if (c->pretrain[0] && !res->resumed) {      /* warm start: human games, trained at the usual ratio */
        tr_pretrain_stats ps;
        if (tr_pretrain_load(c->pretrain, c->pretrain_games, &rb, &ps, why, sizeof why) != 0) {
            snprintf(err, errlen, "--pretrain: %s", why);
            remove_after = true;                /* leave no half-made run behind */
            goto out;
        }
        if (!c->quiet)
            printf("zertz train: pretraining on %d games (%d samples) from %s; skipped %d on other boards, %d undecided, %d refused\n",
                   ps.games, ps.samples, c->pretrain, ps.skipped_board, ps.skipped_undecided, ps.refused);
        if (tr_replay_flush(&rb, why, sizeof why) != 0) { snprintf(err, errlen, "replay: %s", why); goto out; }
    }
    if (!(ev = tr_live_eval_new(m, why, sizeof why))) { snprintf(err, errlen, "evaluator: %s", why); goto out; }
    if (!c->quiet && c->sp.teacher_iters > 0)
        printf("zertz train: teacher mode: self-play by uct:%d (random rollouts), no network\n", c->sp.teacher_iters);
    else if (!c->quiet) printf("zertz train: self-play network on the %s\n", tr_live_eval_backend(ev));
    if (c->rollout_mix > 0 &&
        !(search_ev = mcts_eval_mix_new(ev, false, c->rollout_mix, 1, c->seed * 7 + (uint64_t)x.st.steps))) {
        snprintf(err, errlen, "evaluator: out of memory");
        goto out;
    }
    nn_model *mm = m;
    m = NULL;
    if (tr_trainer_init(&tr, mm, &sgd, c->batch, c->value_weight, c->seed * 31 + (uint64_t)x.st.steps + 1, why, sizeof why)) {
        snprintf(err, errlen, "trainer: %s", why);
        goto out;
    }
    if (zz_cuda_select(why, sizeof why)) {      /* SGD on the GPU too, unless it cannot start there */
        const zzt_backend *be = zzt_cuda_backend(why, sizeof why);
        if (!be || tr_trainer_use_backend(&tr, be, why, sizeof why) != 0)
            fprintf(stderr, "zertz train: warning: training stays on the CPU: %s\n", why);
    }
    if (!c->quiet) printf("zertz train: SGD on the %s\n", !strcmp(tr_trainer_backend(&tr), "cpu") ? "CPU" : "GPU (CUDA kernels)");
    tr_selfplay_config spc = c->sp;
    spc.seed = c->seed * 1000003ULL + (uint64_t)rb.total;      /* new games after a resume */
    if (rem) {                                  /* the other ranks start with the same weights */
        nn_model *cur = tr_trainer_model(&tr, why, sizeof why);
        if (!cur || rem->start(rem->ctx, cur, &spc, c->rollout_mix, x.st.generation, x.st.steps, why, sizeof why) != 0) {
            snprintf(err, errlen, "ranks: %s", why);
            goto out;
        }
        rem_started = true;
    }
    if (!(sp = tr_selfplay_new(&spc, search_ev ? search_ev : ev, why, sizeof why)) || tr_selfplay_start(sp, why, sizeof why) != 0) {
        snprintf(err, errlen, "self-play: %s", why);
        goto out;
    }
    tr_selfplay_set_generation(sp, (uint32_t)x.st.generation);
    x.st.samples = rb.total;
    t0 = mcts_now_s();
    double last_flush = t0, last_status = t0, last_plot = t0, last_csv = t0;
    /* a terminal gets a live status line; a log file one plain line every 30 s at most */
    bool tty = isatty(1);
    double t_first_step = 0;
    double status_every = tty ? c->status_every : fmax(c->status_every, 30.0);
    long long evals_prev = 0, moves_prev = 0, calls_prev = 0, csv_moves = 0, csv_evals = 0, csv_calls = 0;
    double pl_sum = 0, vl_sum = 0;
    int loss_n = 0;
    double pl_ema = NAN, vl_ema = NAN;
    long steps0 = x.st.steps;
    bool refresh_pending = false, held = false, in_tail = false;
    if (!c->quiet) {
        printf("zertz train: %s, %d rings, net %d blocks x %d channels, %d games in flight, %d sims (fast %d, full %.0f%%), "
               "batch %d, ratio %.1f, window %d%s\n",
               c->out, zz_board_get(c->sp.board)->rings, tr.model->cfg.blocks, tr.model->cfg.channels,
               c->sp.games_in_flight, c->sp.sims_full, c->sp.sims_fast, 100 * c->sp.full_prob, c->batch,
               c->train_ratio, c->window, res->resumed ? " (resumed)" : "");
        if (res->resumed)
            printf("  resumed at step %ld, generation %d, %lld samples in %d-sample window (%lld ever)\n", x.st.steps,
                   x.st.generation, (long long)rb.count, c->window, rb.total);
        fflush(stdout);
    }
    for (;;) {
        double t = mcts_now_s();
        /* finished games into the replay buffer */
        tr_game *g = tr_selfplay_take(sp);
        while (g) {
            tr_game *next = g->next;
            if (g->nsamples && tr_replay_add(&rb, g->samples, g->nsamples, why, sizeof why) != 0) {
                snprintf(err, errlen, "replay: %s", why);
                while (g) { next = g->next; tr_game_free(g); g = next; }
                goto out;
            }
            x.st.games++;
            res->session_games++;
            res->session_samples += g->nsamples;
            tr_game_free(g);
            g = next;
        }
        if (rem) {                              /* the other ranks' games */
            long long rg = 0, rs = 0;
            if (rem->poll(rem->ctx, &rb, &rg, &rs, why, sizeof why) != 0) { snprintf(err, errlen, "ranks: %s", why); goto out; }
            x.st.games += rg;
            res->session_games += rg;
            res->session_samples += rs;
        }
        x.st.samples = rb.total;
        if (t - last_flush >= 2.0) {
            if (tr_replay_flush(&rb, why, sizeof why) != 0) { snprintf(err, errlen, "replay: %s", why); goto out; }
            last_flush = t;
        }
        const char *spe = tr_selfplay_error(sp);
        if (spe) { snprintf(err, errlen, "self-play: %s", spe); goto out; }
        bool stop = (c->stop && *c->stop) || (c->minutes > 0 && t - t0 >= c->minutes * 60) ||
                    (c->max_steps > 0 && x.st.steps >= c->max_steps) || (c->max_games > 0 && res->session_games >= c->max_games);
        if (stop) break;

        /* train at the ratio: trained samples follow ratio × generated samples */
        double allowed = c->train_ratio * (double)rb.total;
        bool ready = rb.count >= c->min_samples && rb.count > 0;
        bool can = ready && (double)x.st.trained + c->batch <= allowed;
        bool behind = ready && allowed - (double)x.st.trained > 8.0 * c->batch;
        if (behind != held) {
            tr_selfplay_hold(sp, behind);
            if (rem) rem->hold(rem->ctx, behind);
            held = behind;
        }
        if (can && !in_tail && tr_run_in_lr_tail(c, t - t0, x.st.steps, steps0)) {
            in_tail = true;                     /* the rest of the session at a lower rate */
            nn_sgd_add_stage(&tr.sgd, tr.sgd.step, c->lr_tail_factor);
            if (!c->quiet) {
                if (tty) printf("\n");
                printf("zertz train: the last %.0f%% of the session at lr %.4g\n", 100 * c->lr_tail,
                       nn_sgd_lr(&tr.sgd, tr.sgd.step));
                fflush(stdout);
            }
        }
        if (can) {
            res->last_lr = nn_sgd_lr(&tr.sgd, tr.sgd.step);
            nn_loss_parts lp;
            if (tr_trainer_step(&tr, &rb, &lp, NULL, why, sizeof why) != 0) { snprintf(err, errlen, "training: %s", why); goto out; }
            if (t_first_step == 0) t_first_step = mcts_now_s();
            x.st.steps++;
            x.st.trained += c->batch;
            pl_sum += lp.policy; vl_sum += lp.value; loss_n++;
            pl_ema = isnan(pl_ema) ? lp.policy : 0.95 * pl_ema + 0.05 * lp.policy;
            vl_ema = isnan(vl_ema) ? lp.value : 0.95 * vl_ema + 0.05 * lp.value;
            res->last_policy = lp.policy;
            res->last_value = lp.value;
            bool refresh_now = c->refresh_every > 0 && x.st.steps % c->refresh_every == 0;
            if (c->gen_steps > 0 && x.st.steps % c->gen_steps == 0) {
                x.st.generation++;
                x.st.seconds = sec0 + (mcts_now_s() - t0);
                gen_path(p, sizeof p, c->out, x.st.generation);
                nn_model *cur = tr_trainer_model(&tr, why, sizeof why);
                if (!cur || tr_replay_flush(&rb, why, sizeof why) || nn_checkpoint_save(p, cur, x.st.steps, false, why, sizeof why) ||
                    save_state(&x, cur, why, sizeof why)) {
                    snprintf(err, errlen, "checkpoint: %s", why);
                    goto out;
                }
                int old = x.st.generation - c->keep_generations;
                if (c->keep_generations > 0 && old > 0 && old % 10 != 0) { gen_path(p, sizeof p, c->out, old); unlink(p); }
                refresh_now = true;
                if (c->eval_every > 0 && x.st.generation % c->eval_every == 0) {
                    tr_selfplay_hold(sp, 1);
                    if (evaluate(&x, cur, why, sizeof why) != 0) { snprintf(err, errlen, "evaluation: %s", why); goto out; }
                    tr_selfplay_hold(sp, held);
                    path_in(p, sizeof p, c->out, "progress.png");
                    tr_plot_write(&x.hist, p, "zertz training", why, sizeof why);
                    last_plot = mcts_now_s();
                    save_state(&x, cur, why, sizeof why);
                }
            }
            if (refresh_now) refresh_pending = true;
            if (refresh_now && rem && rem_pub_steps != x.st.steps) {   /* the other ranks: at once */
                nn_model *cur = tr_trainer_model(&tr, why, sizeof why);
                if (!cur || rem->publish(rem->ctx, cur, x.st.generation, x.st.steps, why, sizeof why) != 0) {
                    snprintf(err, errlen, "ranks: %s", why);
                    goto out;
                }
                rem_pub_steps = x.st.steps;
            }
            if (refresh_pending) {
                nn_model *cur = tr_trainer_model(&tr, why, sizeof why);
                int pr = cur ? tr_live_eval_publish(ev, cur, why, sizeof why) : -1;
                if (pr < 0) { snprintf(err, errlen, "refresh: %s", why); goto out; }
                if (pr > 0) {
                    refresh_pending = false;
                    tr_selfplay_set_generation(sp, (uint32_t)x.st.generation);
                    pub_steps = x.st.steps;
                }
            }
        } else {
            struct timespec ts = { 0, 2000000 };
            nanosleep(&ts, NULL);
        }

        t = mcts_now_s();
        if (t - last_status >= status_every || t - last_csv >= 10.0) {
            long long ev_now = tr_live_eval_count(ev), calls_now = tr_live_eval_calls(ev);
            tr_selfplay_stats ss;
            tr_selfplay_stats_get(sp, &ss);
            long long own_games = ss.games;
            if (rem) ss.moves += rem->moves(rem->ctx);      /* positions of every rank */
            long to_eval = c->eval_every > 0 && c->gen_steps > 0
                               ? (long)c->gen_steps * c->eval_every - x.st.steps % ((long)c->gen_steps * c->eval_every) : -1;
            /* the step rate since this session's first step (filling the buffer is not training) */
            double step_rate = t_first_step > 0 && t > t_first_step ? (double)(x.st.steps - steps0) / (t - t_first_step) : 0;
            char eta[32], el[32];
            fmt_time(eta, sizeof eta, to_eval >= 0 && step_rate > 0 ? to_eval / step_rate : -1);
            fmt_time(el, sizeof el, sec0 + t - t0);
            if (!c->quiet && t - last_status >= status_every) {
                double dt = t - last_status;
                double pps = (double)(ss.moves - moves_prev) / dt, eps = (double)(ev_now - evals_prev) / dt;
                double fill = calls_now > calls_prev ? (double)(ev_now - evals_prev) / (double)(calls_now - calls_prev) : 0;
                /* "eval fill": positions per evaluator call (not the training batch) */
                printf("%s%s%s games %lld  pos/s %.0f  evals/s %.0f  eval fill %.1f  steps %ld  loss p %.3f v %.3f  buffer %d  gen %d  next eval %s%s",
                       tty ? "\r" : "", el, ready ? (held ? " (self-play waits for training)" : "") : " (filling the buffer)",
                       x.st.games, pps, eps, fill, x.st.steps, isnan(pl_ema) ? 0.0 : pl_ema, isnan(vl_ema) ? 0.0 : vl_ema,
                       rb.count, x.st.generation, eta, rem ? "" : tty ? "   " : "\n");
                if (rem) {
                    char rs[1024];
                    rem->status(rem->ctx, rs, sizeof rs, x.st.steps, own_games, x.st.generation, pub_steps);
                    printf("  | %s%s", rs, tty ? "   " : "\n");
                }
                fflush(stdout);
                evals_prev = ev_now; calls_prev = calls_now; moves_prev = ss.moves;
                last_status = t;
            }
            if (t - last_csv >= 10.0) {
                double dt = t - last_csv;
                double pps = (double)(ss.moves - csv_moves) / dt, eps = (double)(ev_now - csv_evals) / dt;
                double fill = calls_now > csv_calls ? (double)(ev_now - csv_evals) / (double)(calls_now - csv_calls) : 0;
                fprintf(x.csv, "%.1f,%ld,%lld,%lld,%d,%.1f,%.1f,%.2f,%.4f,%.4f,%.5f,%d\n", sec0 + t - t0, x.st.steps,
                        x.st.games, rb.total, rb.count, pps, eps, fill, loss_n ? pl_sum / loss_n : NAN,
                        loss_n ? vl_sum / loss_n : NAN, nn_sgd_lr(&tr.sgd, tr.sgd.step), x.st.generation);
                fflush(x.csv);
                if (loss_n) tr_history_loss(&x.hist, (double)x.st.steps, pl_sum / loss_n, vl_sum / loss_n);
                pl_sum = vl_sum = 0;
                loss_n = 0;
                csv_moves = ss.moves; csv_evals = ev_now; csv_calls = calls_now;
                last_csv = t;
            }
        }
        if (t - last_plot >= 30.0) {
            path_in(p, sizeof p, c->out, "progress.png");
            tr_plot_write(&x.hist, p, "zertz training", why, sizeof why);
            last_plot = t;
        }
    }
    rc = 0;
out:
    if (sp) {
        tr_selfplay_stop(sp);
        tr_game *g = tr_selfplay_take(sp);      /* games that ended while stopping */
        while (g) {
            tr_game *next = g->next;
            if (rc == 0 && g->nsamples) tr_replay_add(&rb, g->samples, g->nsamples, why, sizeof why);
            x.st.games++;
            res->session_games++;
            res->session_samples += g->nsamples;
            tr_game_free(g);
            g = next;
        }
        tr_selfplay_stats_get(sp, &res->sp);
        tr_selfplay_free(sp);
    }
    if (rem_started) {          /* what is finished is on disk first, then the other ranks stop */
        if (tr_replay_flush(&rb, why, sizeof why) != 0 && rc == 0) { snprintf(err, errlen, "replay: %s", why); rc = -1; }
        long long rg = 0, rs = 0;
        int abrupt = c->stop && *c->stop;
        if (rem->finish(rem->ctx, rc == 0 ? &rb : NULL, abrupt, &rg, &rs, why, sizeof why) != 0 && rc == 0) {
            snprintf(err, errlen, "ranks: %s", why);
            rc = -1;
        }
        x.st.games += rg;
        res->session_games += rg;
        res->session_samples += rs;
    }
    if (ev) res->evals = tr_live_eval_count(ev);
    mcts_evaluator_free(search_ev);
    if (rb_open) {
        if (tr_replay_flush(&rb, why, sizeof why) != 0 && rc == 0) { snprintf(err, errlen, "replay: %s", why); rc = -1; }
        x.st.samples = rb.total;
        res->samples = rb.total;
    }
    x.st.seconds = sec0 + (mcts_now_s() - t0);
    res->seconds = mcts_now_s() - t0;
    if (tr.model) {
        nn_model *cur = tr_trainer_model(&tr, why, sizeof why);
        if (rb_open && (!cur || save_state(&x, cur, why, sizeof why) != 0) && rc == 0) {
            snprintf(err, errlen, "checkpoint: %s", why);
            rc = -1;
        }
        path_in(p, sizeof p, c->out, "progress.png");
        if (x.hist.n || x.hist.gn) tr_plot_write(&x.hist, p, "zertz training", why, sizeof why);
    }
    if (remove_after) {
        if (rb_open) tr_replay_close(&rb, why, sizeof why);
        rb_open = false;
        remove_run(c->out);
    }
    res->steps = x.st.steps;
    res->games = x.st.games;
    res->generation = x.st.generation;
    res->best_generation = x.st.best_generation;
    if (rb_open) tr_replay_close(&rb, why, sizeof why);
    tr_trainer_free(&tr);
    mcts_evaluator_free(ev);
    nn_model_free(m);
    fclose(x.csv);
    fclose(x.elo);
    tr_history_free(&x.hist);
    if (!c->quiet) printf("\n");
    return rc;
}
