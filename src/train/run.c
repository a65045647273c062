/* run.c — the training run (run.h), in phases that tr_run calls in order:
 *
 *   open        check every option and file, then create a new run (random weights or --init) or
 *               resume the one in OUTDIR, and open its logs;
 *   start       the replay buffer (--pretrain games first), the live evaluator, the trainer, the
 *               other ranks, self-play;
 *   loop        games into the buffer, SGD at the ratio (self-play held while training is behind,
 *               the learning-rate tail), refreshes, generation boundaries, status line, train.csv;
 *   generation  (a boundary, from the loop) checkpoint, retention, evaluation, Elo, plot;
 *   close       stop self-play and the other ranks, the final save, the result (tools/train prints
 *               the summary and the false-resignation report from it), free.
 *
 * The state the phases share is run_ctx (run_ctx.h): each field says which phase owns it.  The
 * open phase and the run's files are run_open.c; the other phases are here. */
#include "train/run_ctx.h"
#include "cuda/backend.h"
#include "mcts/clock.h"
#include "mcts/match.h"
#include "nn/checkpoint.h"
#include "nn/cpu_info.h"
#include "nn/omp_env.h"
#include "train/pretrain.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
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
    c->hold_batches = 64;
    c->value_weight = 1.0;
    c->aux_weight = 0;           /* no captures head (src/train/README.md: its experiment) */
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

/* ---- the story of a run ---------------------------------------------------------------------- */

/* Start: the replay buffer (--pretrain games first), the live evaluator, the trainer (on the GPU
 * when it can), the other ranks and self-play.  0; -1 with a message (close frees what started). */
static int run_start(run_ctx *x, char *err, size_t errlen);
/* The loop: until a stop (time, steps, games, *c->stop): finished games into the buffer, SGD at
 * the ratio, refreshes, generation boundaries, the status line, train.csv, the plot.  0 at a
 * stop; -1 with a message. */
static int run_loop(run_ctx *x, char *err, size_t errlen);
/* A generation boundary (the step count just reached a multiple of gen_steps): checkpoint,
 * retention, and every eval_every generations the evaluation, Elo and the plot.  0; -1 with a
 * message. */
static int run_generation(run_ctx *x, char *err, size_t errlen);
/* Close: self-play and the other ranks stopped (their last games kept when rc is 0), the final
 * save (buffer, latest.ckpt, run.state, plot), the result filled, everything freed.  rc, or -1
 * with a message when rc was 0 and the final save failed. */
static int run_close(run_ctx *x, int rc, char *err, size_t errlen);

int tr_run(const tr_run_config *c, tr_run_result *res, char *err, size_t errlen) {
    memset(res, 0, sizeof *res);
    run_ctx x;
    memset(&x, 0, sizeof x);
    x.c = c;
    x.res = res;
    x.rem = c->remote;
    if (tr_run_open(&x, err, errlen) != 0) return -1;
    int rc = run_start(&x, err, errlen);
    if (rc == 0) rc = run_loop(&x, err, errlen);
    return run_close(&x, rc, err, errlen);
}

/* ---- start ----------------------------------------------------------------------------------- */

/* The replay buffer from OUTDIR/replay; a fresh run with --pretrain adds the human games first
 * (trained at the usual ratio).  0, or -1 with a message. */
static int start_buffer(run_ctx *x, char *err, size_t errlen) {
    const tr_run_config *c = x->c;
    char p[1100], why[512];
    tr_run_path(p, sizeof p, c->out, "replay");
    if (tr_replay_open(&x->rb, p, c->sp.board, c->window, why, sizeof why) != 0) { snprintf(err, errlen, "replay: %s", why); return -1; }
    x->rb_open = true;
    if (!c->pretrain[0] || x->res->resumed) return 0;
    tr_pretrain_stats ps;
    if (tr_pretrain_load(c->pretrain, c->pretrain_games, &x->rb, &ps, why, sizeof why) != 0) {
        snprintf(err, errlen, "--pretrain: %s", why);
        x->remove_after = true;                 /* leave no half-made run behind */
        return -1;
    }
    if (!c->quiet)
        printf("zertz train: pretraining on %d games (%d samples) from %s; skipped %d on other boards, %d undecided, %d refused\n",
               ps.games, ps.samples, c->pretrain, ps.skipped_board, ps.skipped_undecided, ps.refused);
    if (tr_replay_flush(&x->rb, why, sizeof why) != 0) { snprintf(err, errlen, "replay: %s", why); return -1; }
    return 0;
}

/* The live evaluator on x->m's weights (the GPU when it can), and the rollout blend and quiet
 * leaves over it (--rollout-mix, --quiet-leaves: tr_search_evaluator).  0, or -1 with a message. */
static int start_evaluator(run_ctx *x, char *err, size_t errlen) {
    const tr_run_config *c = x->c;
    char why[512];
    if (!(x->ev = tr_live_eval_new(x->m, c->sp.net_precision, why, sizeof why)) ||
        tr_live_eval_set_cache(x->ev, (size_t)c->sp.eval_cache, why, sizeof why) != 0) {
        snprintf(err, errlen, "evaluator: %s", why);
        return -1;
    }
    if (!c->quiet && c->sp.teacher_iters > 0)
        printf("zertz train: teacher mode: self-play by uct:%d (random rollouts), no network\n", c->sp.teacher_iters);
    else if (!c->quiet) printf("zertz train: self-play network on the %s\n", tr_live_eval_backend(x->ev));
    return tr_search_evaluator(x->ev, c->rollout_mix, c->sp.quiet_nodes, c->seed * 7 + (uint64_t)x->st.steps,
                               &x->search_ev, err, errlen);
}

/* The trainer, taking x->m, its SGD schedule at st.steps; on the GPU unless it cannot start there.
 * 0, or -1 with a message. */
static int start_trainer(run_ctx *x, char *err, size_t errlen) {
    const tr_run_config *c = x->c;
    char why[512];
    nn_sgd sgd;
    nn_sgd_default(&sgd);
    sgd.lr = c->lr;
    sgd.warmup = c->lr_warmup;
    sgd.step = x->st.steps;
    nn_model *m = x->m;
    x->m = NULL;
    if (tr_trainer_init(&x->tr, m, &sgd, c->batch, c->value_weight, c->aux_weight, c->seed * 31 + (uint64_t)x->st.steps + 1, why,
                        sizeof why)) {
        snprintf(err, errlen, "trainer: %s", why);
        return -1;
    }
    const zzt_backend *be = c->sgd_backend;
    if (be || zz_cuda_select(why, sizeof why)) {  /* SGD on the GPU too, unless it cannot start there */
        if (!be) be = zzt_cuda_backend(why, sizeof why);
        if (!be || tr_trainer_use_backend(&x->tr, be, why, sizeof why) != 0)
            fprintf(stderr, "zertz train: warning: training stays on the CPU: %s\n", why);
    }
    if (!c->quiet) {
        const char *on = tr_trainer_backend(&x->tr);
        printf("zertz train: SGD on the %s\n", !strcmp(on, "cpu") ? "CPU" : !strcmp(on, "cuda") ? "GPU (CUDA kernels)" : on);
        nn_cpu_print_line("zertz train: ");
    }
    return 0;
}

/* Self-play: the other ranks first (with the trainer's weights), then this process's.  0, or -1
 * with a message. */
static int start_selfplay(run_ctx *x, char *err, size_t errlen) {
    const tr_run_config *c = x->c;
    char why[512];
    tr_selfplay_config spc = c->sp;
    spc.seed = c->seed * 1000003ULL + (uint64_t)x->rb.total;   /* new games after a resume */
    if (x->rem) {                               /* the other ranks start with the same weights */
        nn_model *cur = tr_trainer_model(&x->tr, why, sizeof why);
        if (!cur || x->rem->start(x->rem->ctx, cur, &spc, c->rollout_mix, x->st.generation, x->st.steps, why, sizeof why) != 0) {
            snprintf(err, errlen, "ranks: %s", why);
            return -1;
        }
        x->rem_started = true;
    }
    if (!(x->sp = tr_selfplay_new(&spc, x->search_ev ? x->search_ev : x->ev, why, sizeof why)) ||
        tr_selfplay_start(x->sp, why, sizeof why) != 0) {
        snprintf(err, errlen, "self-play: %s", why);
        return -1;
    }
    tr_selfplay_set_generation(x->sp, (uint32_t)x->st.generation);
    x->st.samples = x->rb.total;
    return 0;
}

static int run_start(run_ctx *x, char *err, size_t errlen) {
    x->t0 = mcts_now_s();
    x->sec0 = x->st.seconds;
    x->pub_steps = x->rem_pub_steps = x->st.steps;
    if (start_buffer(x, err, errlen) != 0 || start_evaluator(x, err, errlen) != 0 ||
        start_trainer(x, err, errlen) != 0 || start_selfplay(x, err, errlen) != 0)
        return -1;
    return 0;
}

/* ---- the loop -------------------------------------------------------------------------------- */

static void fmt_time(char *buf, size_t len, double s) {
    if (!(s >= 0) || s > 1e7) { snprintf(buf, len, "--"); return; }
    long t = (long)s;
    if (t >= 3600) snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
}

/* The session's clock starts; the first status lines. */
static void loop_begin(run_ctx *x) {
    const tr_run_config *c = x->c;
    run_meter *mt = &x->meter;
    x->t0 = mcts_now_s();
    x->steps0 = x->st.steps;
    mt->last_flush = mt->last_status = mt->last_plot = mt->last_csv = x->t0;
    /* a terminal gets a live status line; a log file one plain line every 30 s at most */
    mt->tty = isatty(1);
    mt->status_every = mt->tty ? c->status_every : fmax(c->status_every, 30.0);
    mt->pl_ema = mt->vl_ema = mt->al_ema = NAN;
    x->omp_base = nn_omp_threads();
    if (c->quiet) return;
    printf("zertz train: %s, %d rings, net %d blocks x %d channels, %d games in flight, %d evaluator thread%s, "
           "%d sims (fast %d, full %.0f%%), batch %d, ratio %.1f, backlog %d batches, window %d%s\n",
           c->out, zz_board_get(c->sp.board)->rings, x->tr.model->cfg.blocks, x->tr.model->cfg.channels,
           c->sp.games_in_flight, c->sp.eval_threads, c->sp.eval_threads == 1 ? "" : "s", c->sp.sims_full, c->sp.sims_fast, 100 * c->sp.full_prob, c->batch,
           c->train_ratio, c->hold_batches, c->window, x->res->resumed ? " (resumed)" : "");
    if (c->sp.force_prior > 0)
        printf("  placements that force a capture: priors times %.3g in the searches%s\n", 1 + c->sp.force_prior,
               c->sp.prune_boost ? "; the visits the boost bought pruned from the policy targets" : "");
    if (c->sp.tactic_prior > 0)
        printf("  placements that win an exchange: priors at least %.3g at the root and its replies\n", c->sp.tactic_prior);
    if (c->sp.tactic_prior > 0 && c->sp.tactic_run >= 2)
        printf("  and at the root, placements that start a winning forcing run of up to %d placements\n", c->sp.tactic_run);
    if (c->sp.quiet_nodes > 0)
        printf("  leaves where the mover must capture: valued after the exchange (capture trees of at most %d positions)\n",
               c->sp.quiet_nodes);
    if (c->sgd_threads_held > x->omp_base)
        printf("  SGD on %d OpenMP threads while self-play waits for training, else %d\n", c->sgd_threads_held,
               x->omp_base);
    if (x->res->resumed)
        printf("  resumed at step %ld, generation %d, %lld samples in %d-sample window (%lld ever)\n", x->st.steps,
               x->st.generation, (long long)x->rb.count, c->window, x->rb.total);
    fflush(stdout);
}

/* The games finished here and on the other ranks into the buffer (flushed every 2 s); a self-play
 * failure is an error.  0, or -1 with a message. */
static int collect_games(run_ctx *x, double t, char *err, size_t errlen) {
    char why[512];
    tr_game *g = tr_selfplay_take(x->sp);
    while (g) {
        tr_game *next = g->next;
        if (g->nsamples && tr_replay_add(&x->rb, g->samples, g->nsamples, why, sizeof why) != 0) {
            snprintf(err, errlen, "replay: %s", why);
            while (g) { next = g->next; tr_game_free(g); g = next; }
            return -1;
        }
        x->st.games++;
        x->res->session_games++;
        x->res->session_samples += g->nsamples;
        tr_game_free(g);
        g = next;
    }
    if (x->rem) {                               /* the other ranks' games */
        long long rg = 0, rs = 0;
        if (x->rem->poll(x->rem->ctx, &x->rb, &rg, &rs, why, sizeof why) != 0) { snprintf(err, errlen, "ranks: %s", why); return -1; }
        x->st.games += rg;
        x->res->session_games += rg;
        x->res->session_samples += rs;
    }
    x->st.samples = x->rb.total;
    if (t - x->meter.last_flush >= 2.0) {
        if (tr_replay_flush(&x->rb, why, sizeof why) != 0) { snprintf(err, errlen, "replay: %s", why); return -1; }
        x->meter.last_flush = t;
    }
    const char *spe = tr_selfplay_error(x->sp);
    if (spe) { snprintf(err, errlen, "self-play: %s", spe); return -1; }
    return 0;
}

/* Has the session reached its end: *stop, --minutes, --steps, or its game count? */
static bool loop_done(const run_ctx *x, double t) {
    const tr_run_config *c = x->c;
    return (c->stop && *c->stop) || (c->minutes > 0 && t - x->t0 >= c->minutes * 60) ||
           (c->max_steps > 0 && x->st.steps >= c->max_steps) || (c->max_games > 0 && x->res->session_games >= c->max_games);
}

/* The ratio: trained samples follow train_ratio × generated samples.  Holds self-play (here and
 * on the ranks) while training is more than hold_batches batches behind, releases it after.
 * Whether an SGD step may run now. */
static bool pace(run_ctx *x) {
    const tr_run_config *c = x->c;
    double allowed = c->train_ratio * (double)x->rb.total;
    x->ready = x->rb.count >= c->min_samples && x->rb.count > 0;
    bool can = x->ready && (double)x->st.trained + c->batch <= allowed;
    bool behind = x->ready && allowed - (double)x->st.trained > (double)c->hold_batches * c->batch;
    if (behind != x->held) {
        tr_selfplay_hold(x->sp, behind);
        if (x->rem) x->rem->hold(x->rem->ctx, behind);
        x->held = behind;
    }
    return can;
}

/* The rest of the session at lr × lr_tail_factor, from its last lr_tail on. */
static void enter_lr_tail(run_ctx *x) {
    const tr_run_config *c = x->c;
    x->in_tail = true;
    nn_sgd_add_stage(&x->tr.sgd, x->tr.sgd.step, c->lr_tail_factor);
    if (c->quiet) return;
    if (x->meter.tty) printf("\n");
    printf("zertz train: the last %.0f%% of the session at lr %.4g\n", 100 * c->lr_tail, nn_sgd_lr(&x->tr.sgd, x->tr.sgd.step));
    fflush(stdout);
}

/* Refresh: the trainer's weights to the other ranks at once (refresh_now), and to this process's
 * evaluator as soon as it has taken the previous ones (refresh_pending until then).  0, or -1
 * with a message. */
static int refresh(run_ctx *x, bool refresh_now, char *err, size_t errlen) {
    char why[512];
    if (refresh_now) x->refresh_pending = true;
    if (refresh_now && x->rem && x->rem_pub_steps != x->st.steps) {   /* the other ranks: at once */
        nn_model *cur = tr_trainer_model(&x->tr, why, sizeof why);
        if (!cur || x->rem->publish(x->rem->ctx, cur, x->st.generation, x->st.steps, why, sizeof why) != 0) {
            snprintf(err, errlen, "ranks: %s", why);
            return -1;
        }
        x->rem_pub_steps = x->st.steps;
    }
    if (!x->refresh_pending) return 0;
    if (tr_live_eval_open(x->ev) == 0) return 0;    /* none would take them: no read-back from the GPU */
    nn_model *cur = tr_trainer_model(&x->tr, why, sizeof why);
    int pr = cur ? tr_live_eval_publish(x->ev, cur, why, sizeof why) : -1;
    if (pr < 0) { snprintf(err, errlen, "refresh: %s", why); return -1; }
    if (pr > 0) {
        x->res->time.refreshes++;
        x->refresh_pending = false;
        tr_selfplay_set_generation(x->sp, (uint32_t)x->st.generation);
        x->pub_steps = x->st.steps;
    }
    return 0;
}

/* One SGD step on the replay buffer: on sgd_threads_held OpenMP threads while self-play is held
 * (its evaluators idle then, leaving their cores to SGD), else on the process's own.  0, or -1
 * with a message. */
static int sgd_step(run_ctx *x, nn_loss_parts *lp, char *why, size_t n) {
    bool wide = x->held && x->c->sgd_threads_held > x->omp_base;
    if (wide) nn_omp_set_threads(x->c->sgd_threads_held);
    int rc = tr_trainer_step(&x->tr, &x->rb, lp, NULL, why, n);
    if (wide) nn_omp_set_threads(x->omp_base);
    return rc;
}

/* One SGD step, its losses counted; a generation boundary when the step count reaches one; the
 * refresh every refresh_every steps (and at each generation).  0, or -1 with a message. */
static int train_step(run_ctx *x, char *err, size_t errlen) {
    const tr_run_config *c = x->c;
    run_meter *mt = &x->meter;
    char why[512];
    x->res->last_lr = nn_sgd_lr(&x->tr.sgd, x->tr.sgd.step);
    nn_loss_parts lp;
    double t0 = mcts_now_s();
    if (sgd_step(x, &lp, why, sizeof why) != 0) { snprintf(err, errlen, "training: %s", why); return -1; }
    double t1 = mcts_now_s();
    x->res->time.sgd += t1 - t0;
    if (mt->t_first_step == 0) mt->t_first_step = t1;
    x->st.steps++;
    x->res->session_steps++;
    x->res->held_steps += x->held;
    x->st.trained += c->batch;
    mt->pl_sum += lp.policy; mt->vl_sum += lp.value; mt->loss_n++;
    mt->pl_ema = isnan(mt->pl_ema) ? lp.policy : 0.95 * mt->pl_ema + 0.05 * lp.policy;
    mt->vl_ema = isnan(mt->vl_ema) ? lp.value : 0.95 * mt->vl_ema + 0.05 * lp.value;
    mt->al_ema = isnan(mt->al_ema) ? lp.aux : 0.95 * mt->al_ema + 0.05 * lp.aux;
    x->res->last_policy = lp.policy;
    x->res->last_value = lp.value;
    bool refresh_now = c->refresh_every > 0 && x->st.steps % c->refresh_every == 0;
    if (c->gen_steps > 0 && x->st.steps % c->gen_steps == 0) {
        if (run_generation(x, err, errlen) != 0) return -1;
        refresh_now = true;
        x->res->time.generations++;
    }
    double t2 = mcts_now_s();
    x->res->time.generation += t2 - t1;
    int rc = refresh(x, refresh_now, err, errlen);
    x->res->time.refresh += mcts_now_s() - t2;
    return rc;
}

/* The counters behind a status line or a train.csv row. */
typedef struct {
    long long evals, calls;    /* network evaluations and evaluator calls so far */
    long long moves;           /* positions searched and played, every rank's */
    long long own_games;       /* games this process finished */
    long long ab_games, ab_points2;   /* of them against the alpha-beta opponent; the network's points x 2 */
    long long target_visits, pruned_visits;   /* this process's policy targets' root visits; pruned (prune_boost) */
} run_counts;

/* The status line: elapsed time, games, rates since the last line, steps, smoothed losses, buffer,
 * generation, the time to the next evaluation, and the other ranks' part. */
static void status_line(run_ctx *x, double t, const run_counts *k) {
    const tr_run_config *c = x->c;
    run_meter *mt = &x->meter;
    long to_eval = c->eval_every > 0 && c->gen_steps > 0
                       ? (long)c->gen_steps * c->eval_every - x->st.steps % ((long)c->gen_steps * c->eval_every) : -1;
    /* the step rate since this session's first step (filling the buffer is not training) */
    double step_rate = mt->t_first_step > 0 && t > mt->t_first_step ? (double)(x->st.steps - x->steps0) / (t - mt->t_first_step) : 0;
    char eta[32], el[32];
    fmt_time(eta, sizeof eta, to_eval >= 0 && step_rate > 0 ? to_eval / step_rate : -1);
    fmt_time(el, sizeof el, x->sec0 + t - x->t0);
    double dt = t - mt->last_status;
    double pps = (double)(k->moves - mt->moves_prev) / dt, eps = (double)(k->evals - mt->evals_prev) / dt;
    double fill = k->calls > mt->calls_prev ? (double)(k->evals - mt->evals_prev) / (double)(k->calls - mt->calls_prev) : 0;
    mcts_eval_cache_stats cs = tr_live_eval_cache_stats(x->ev);
    char cache[32] = "";
    if (cs.lookups > mt->cache_lookups_prev)        /* the share of this line's answers from the cache */
        snprintf(cache, sizeof cache, "  cache %.0f%%",
                 100.0 * (double)(cs.hits - mt->cache_hits_prev) / (double)(cs.lookups - mt->cache_lookups_prev));
    mt->cache_lookups_prev = cs.lookups;
    mt->cache_hits_prev = cs.hits;
    char aux[32] = "";
    if (c->aux_weight > 0) snprintf(aux, sizeof aux, " a %.4f", isnan(mt->al_ema) ? 0.0 : mt->al_ema);
    char pruned[48] = "";
    if (c->sp.prune_boost && c->sp.force_prior > 0 && k->target_visits > 0)   /* this session's share */
        snprintf(pruned, sizeof pruned, "  targets pruned %.1f%%", 100.0 * (double)k->pruned_visits / (double)k->target_visits);
    /* "eval fill": positions per evaluator call (not the training batch) */
    printf("%s%s%s games %lld  pos/s %.0f  evals/s %.0f  eval fill %.1f%s  steps %ld  loss p %.3f v %.3f%s%s  buffer %d  gen %d  next eval %s%s",
           mt->tty ? "\r" : "", el, x->ready ? (x->held ? " (self-play waits for training)" : "") : " (filling the buffer)",
           x->st.games, pps, eps, fill, cache, x->st.steps, isnan(mt->pl_ema) ? 0.0 : mt->pl_ema, isnan(mt->vl_ema) ? 0.0 : mt->vl_ema, aux, pruned,
           x->rb.count, x->st.generation, eta, x->rem || k->ab_games ? "" : mt->tty ? "   " : "\n");
    if (k->ab_games)      /* this process's games against the alpha-beta opponent, this session */
        printf("  vs ab %.1f/%lld%s", k->ab_points2 / 2.0, k->ab_games, x->rem ? "" : mt->tty ? "   " : "\n");
    if (x->rem) {
        char rs[1024];
        x->rem->status(x->rem->ctx, rs, sizeof rs, x->st.steps, k->own_games, x->st.generation, x->pub_steps);
        printf("  | %s%s", rs, mt->tty ? "   " : "\n");
    }
    fflush(stdout);
    mt->evals_prev = k->evals; mt->calls_prev = k->calls; mt->moves_prev = k->moves;
    mt->last_status = t;
}

/* A train.csv row: rates and mean losses since the last row (the plot's loss history too). */
static void csv_row(run_ctx *x, double t, const run_counts *k) {
    run_meter *mt = &x->meter;
    double dt = t - mt->last_csv;
    double pps = (double)(k->moves - mt->csv_moves) / dt, eps = (double)(k->evals - mt->csv_evals) / dt;
    double fill = k->calls > mt->csv_calls ? (double)(k->evals - mt->csv_evals) / (double)(k->calls - mt->csv_calls) : 0;
    fprintf(x->csv, "%.1f,%ld,%lld,%lld,%d,%.1f,%.1f,%.2f,%.4f,%.4f,%.5f,%d\n", x->sec0 + t - x->t0, x->st.steps,
            x->st.games, x->rb.total, x->rb.count, pps, eps, fill, mt->loss_n ? mt->pl_sum / mt->loss_n : NAN,
            mt->loss_n ? mt->vl_sum / mt->loss_n : NAN, nn_sgd_lr(&x->tr.sgd, x->tr.sgd.step), x->st.generation);
    fflush(x->csv);
    if (mt->loss_n) tr_history_loss(&x->hist, (double)x->st.steps, mt->pl_sum / mt->loss_n, mt->vl_sum / mt->loss_n);
    mt->pl_sum = mt->vl_sum = 0;
    mt->loss_n = 0;
    mt->csv_moves = k->moves; mt->csv_evals = k->evals; mt->csv_calls = k->calls;
    mt->last_csv = t;
}

/* What is due at time t: the status line (every status_every s), a train.csv row (every 10 s),
 * progress.png (every 30 s). */
static void report(run_ctx *x, double t) {
    run_meter *mt = &x->meter;
    bool status_due = t - mt->last_status >= mt->status_every, csv_due = t - mt->last_csv >= 10.0;
    if (status_due || csv_due) {
        run_counts k = { tr_live_eval_count(x->ev), tr_live_eval_calls(x->ev), 0, 0, 0, 0, 0, 0 };
        tr_selfplay_stats ss;
        tr_selfplay_stats_get(x->sp, &ss);
        k.own_games = ss.games;
        k.ab_games = ss.ab_games;
        k.ab_points2 = 2 * ss.ab_wins + ss.ab_draws;
        k.target_visits = ss.target_visits;
        k.pruned_visits = ss.pruned_visits;
        k.moves = ss.moves + (x->rem ? x->rem->moves(x->rem->ctx) : 0);     /* positions of every rank */
        if (!x->c->quiet && status_due) status_line(x, t, &k);
        if (csv_due) csv_row(x, t, &k);
    }
    if (t - mt->last_plot >= 30.0) {
        char p[1100], why[512];
        tr_run_path(p, sizeof p, x->c->out, "progress.png");
        tr_plot_write(&x->hist, p, "zertz training", why, sizeof why);
        mt->last_plot = t;
    }
}

static int run_loop(run_ctx *x, char *err, size_t errlen) {
    loop_begin(x);
    for (;;) {
        double t = mcts_now_s();
        if (collect_games(x, t, err, errlen) != 0) return -1;
        double tc = mcts_now_s();
        x->res->time.collect += tc - t;
        if (loop_done(x, t)) return 0;
        bool can = pace(x);
        if (can && !x->in_tail && tr_run_in_lr_tail(x->c, t - x->t0, x->st.steps, x->steps0)) enter_lr_tail(x);
        if (can) {
            if (train_step(x, err, errlen) != 0) return -1;
        } else {
            struct timespec ts = { 0, 2000000 };
            nanosleep(&ts, NULL);
            x->res->time.wait += mcts_now_s() - tc;
        }
        double tr = mcts_now_s();
        report(x, tr);
        x->res->time.report += mcts_now_s() - tr;
    }
}

/* ---- a generation boundary ------------------------------------------------------------------ */

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

/* The evaluation matches of the generation just checkpointed (latest.ckpt and run.state written):
 * against the best network (a new best when it scores over 0.55), uct and random. */
static int evaluate(run_ctx *x, nn_model *m, char *err, size_t errlen) {
    const tr_run_config *c = x->c;
    char cand[1100], best[1100], spec[1200];
    tr_run_gen_path(cand, sizeof cand, c->out, x->st.generation);
    tr_run_path(best, sizeof best, c->out, "best.ckpt");
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
        if (tr_run_save_runstate(x, err, errlen) != 0) return -1;
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

static int run_generation(run_ctx *x, char *err, size_t errlen) {
    const tr_run_config *c = x->c;
    char p[1100], why[512];
    x->st.generation++;
    x->st.seconds = x->sec0 + (mcts_now_s() - x->t0);
    tr_run_gen_path(p, sizeof p, c->out, x->st.generation);
    nn_model *cur = tr_trainer_model(&x->tr, why, sizeof why);
    if (!cur || tr_replay_flush(&x->rb, why, sizeof why) || nn_checkpoint_save(p, cur, x->st.steps, false, why, sizeof why) ||
        tr_run_save_state(x, cur, why, sizeof why)) {
        snprintf(err, errlen, "checkpoint: %s", why);
        return -1;
    }
    int old = x->st.generation - c->keep_generations;  /* retention: the newest keep_generations, every 10th */
    if (c->keep_generations > 0 && old > 0 && old % 10 != 0) { tr_run_gen_path(p, sizeof p, c->out, old); unlink(p); }
    if (c->eval_every <= 0 || x->st.generation % c->eval_every != 0) return 0;
    tr_selfplay_hold(x->sp, 1);
    if (evaluate(x, cur, why, sizeof why) != 0) { snprintf(err, errlen, "evaluation: %s", why); return -1; }
    tr_selfplay_hold(x->sp, x->held);
    tr_run_path(p, sizeof p, c->out, "progress.png");
    tr_plot_write(&x->hist, p, "zertz training", why, sizeof why);
    x->meter.last_plot = mcts_now_s();
    tr_run_save_state(x, cur, why, sizeof why);
    return 0;
}

/* ---- close ----------------------------------------------------------------------------------- */

/* Self-play stops: the games that ended while stopping go into the buffer (when rc is 0) and are
 * counted, its figures go into the result; then the other ranks stop, after the buffer is flushed
 * (what is finished is on disk first), their last games in the buffer when rc is 0.  Sets *rc to
 * -1 with a message when it was 0 and this fails. */
static void close_selfplay(run_ctx *x, int *rc, char *err, size_t errlen) {
    const tr_run_config *c = x->c;
    char why[512];
    if (x->sp) {
        tr_selfplay_stop(x->sp);
        tr_game *g = tr_selfplay_take(x->sp);
        while (g) {
            tr_game *next = g->next;
            if (*rc == 0 && g->nsamples) tr_replay_add(&x->rb, g->samples, g->nsamples, why, sizeof why);
            x->st.games++;
            x->res->session_games++;
            x->res->session_samples += g->nsamples;
            tr_game_free(g);
            g = next;
        }
        tr_selfplay_stats_get(x->sp, &x->res->sp);
        tr_selfplay_free(x->sp);
        x->sp = NULL;
    }
    if (!x->rem_started) return;
    if (tr_replay_flush(&x->rb, why, sizeof why) != 0 && *rc == 0) { snprintf(err, errlen, "replay: %s", why); *rc = -1; }
    long long rg = 0, rs = 0;
    int abrupt = c->stop && *c->stop;
    if (x->rem->finish(x->rem->ctx, *rc == 0 ? &x->rb : NULL, abrupt, &rg, &rs, why, sizeof why) != 0 && *rc == 0) {
        snprintf(err, errlen, "ranks: %s", why);
        *rc = -1;
    }
    x->st.games += rg;
    x->res->session_games += rg;
    x->res->session_samples += rs;
}

/* The final save: the buffer flushed, latest.ckpt and run.state (when the trainer and the buffer
 * were up), progress.png; a half-made fresh run removed.  Sets *rc as close_selfplay. */
static void close_save(run_ctx *x, int *rc, char *err, size_t errlen) {
    const tr_run_config *c = x->c;
    char why[512];
    if (x->rb_open) {
        if (tr_replay_flush(&x->rb, why, sizeof why) != 0 && *rc == 0) { snprintf(err, errlen, "replay: %s", why); *rc = -1; }
        x->st.samples = x->rb.total;
        x->res->samples = x->rb.total;
    }
    x->st.seconds = x->sec0 + (mcts_now_s() - x->t0);
    x->res->seconds = mcts_now_s() - x->t0;
    if (x->tr.model) {
        nn_model *cur = tr_trainer_model(&x->tr, why, sizeof why);
        if (x->rb_open && !cur && *rc != 0)       /* the run stops on an error already: say what is not saved */
            fprintf(stderr, "zertz train: latest.ckpt and run.state not written (%s): the run resumes from the last ones "
                            "saved\n", why);
        if (x->rb_open && (!cur || tr_run_save_state(x, cur, why, sizeof why) != 0) && *rc == 0) {
            snprintf(err, errlen, "checkpoint: %s", why);
            *rc = -1;
        }
        char p[1100];
        tr_run_path(p, sizeof p, c->out, "progress.png");
        if (x->hist.n || x->hist.gn) tr_plot_write(&x->hist, p, "zertz training", why, sizeof why);
    }
    if (x->remove_after) {
        if (x->rb_open) tr_replay_close(&x->rb, why, sizeof why);
        x->rb_open = false;
        tr_run_remove(c->out);
    }
}

static int run_close(run_ctx *x, int rc, char *err, size_t errlen) {
    char why[512];
    close_selfplay(x, &rc, err, errlen);
    if (x->ev) {
        x->res->evals = tr_live_eval_count(x->ev);
        x->res->cache_hits = (long long)tr_live_eval_cache_stats(x->ev).hits;
    }
    mcts_evaluator_free(x->search_ev);
    close_save(x, &rc, err, errlen);
    x->res->steps = x->st.steps;
    x->res->games = x->st.games;
    x->res->generation = x->st.generation;
    x->res->best_generation = x->st.best_generation;
    if (x->rb_open) tr_replay_close(&x->rb, why, sizeof why);
    x->res->time.build = x->tr.build_seconds;
    x->res->time.build_beside = x->tr.beside_seconds;
    tr_trainer_free(&x->tr);
    mcts_evaluator_free(x->ev);
    nn_model_free(x->m);
    fclose(x->csv);
    fclose(x->elo);
    tr_history_free(&x->hist);
    if (!x->c->quiet) printf("\n");
    return rc;
}
