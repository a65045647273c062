/* run_open.c — the open phase of a training run (run_ctx.h) and the files a run keeps in OUTDIR:
 * run.state, latest.ckpt, best.ckpt, gen-NNNN.ckpt, run.args, sessions.log, train.csv, elo.csv,
 * replay/.
 *
 * Open checks every option and file before anything is written, then creates a new run (random
 * weights or --init, grown or carried over to another board) or resumes the one in OUTDIR (its
 * logs trimmed to its checkpoint after a kill), and opens the logs. */
#include "train/run_ctx.h"
#include "nn/checkpoint.h"
#include "nn/grow.h"
#include "nn/transfer.h"
#include "train/atomic_file.h"
#include "train/recipe.h"
#include "game/sgf_files.h"
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- files ----------------------------------------------------------------------------------- */

bool tr_run_file_exists(const char *p) {
    struct stat st;
    return stat(p, &st) == 0;
}

void tr_run_path(char *buf, size_t len, const char *dir, const char *name) {
    snprintf(buf, len, "%.512s/%.255s", dir, name);
}

/* Remove what a run keeps in dir (and nothing else). */
void tr_run_remove(const char *dir) {
    static const char *files[] = { "run.state", "latest.ckpt", "best.ckpt", "train.csv", "elo.csv", "progress.png",
                                   TR_RECIPE_FILE };
    char p[1100];
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) { tr_run_path(p, sizeof p, dir, files[i]); unlink(p); }
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, "gen-", 4) && strstr(e->d_name, ".ckpt")) { tr_run_path(p, sizeof p, dir, e->d_name); unlink(p); }
    if (d) closedir(d);
    char rd[1100];
    tr_run_path(rd, sizeof rd, dir, "replay");
    d = opendir(rd);
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, ".zzr") || strstr(e->d_name, ".tmp")) { tr_run_path(p, sizeof p, rd, e->d_name); unlink(p); }
    if (d) closedir(d);
    rmdir(rd);
}

void tr_run_gen_path(char *buf, size_t len, const char *dir, int gen) {
    snprintf(buf, len, "%.512s/gen-%04d.ckpt", dir, gen);
}

/* After a kill, the logs may run ahead of the checkpoint the run resumes from: keep only the rows
 * whose value in `column` is at most `limit` and, when column2 > 0, whose value in column2 is at
 * most limit2 (train.csv: steps, column 2, up to the checkpoint's and seconds, column 1, up to
 * run.state's, since rows at the checkpoint's steps may come later; elo.csv: generation, column 1),
 * and never a last row without its newline (a kill cut it: the next row would be glued to it),
 * rewriting the file atomically when anything goes.  0, or -1 with a message. */
static int trim_log(const char *dir, const char *name, int column, double limit, int column2, double limit2, char *err,
                    size_t errlen) {
    char p[1100], line[1024];
    tr_run_path(p, sizeof p, dir, name);
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
        size_t len = strlen(line);
        if (row++ > 0 && (after || line[len - 1] != '\n')) { dropped++; continue; }     /* row 0: the header */
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
    tr_run_path(p, sizeof p, dir, "train.csv");
    FILE *f = fopen(p, "r");
    while (f && fgets(line, sizeof line, f)) {
        double sec, steps, games, samples, buf, pps, eps, fill, pl, vl;
        if (sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &sec, &steps, &games, &samples, &buf, &pps, &eps,
                   &fill, &pl, &vl) == 10 && steps > 0)
            tr_history_loss(h, steps, pl, vl);
    }
    if (f) fclose(f);
    tr_run_path(p, sizeof p, dir, "elo.csv");
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

/* Write run.state alone (its steps must be latest.ckpt's).  0, or -1 with a message. */
int tr_run_save_runstate(run_ctx *x, char *err, size_t errlen) {
    char p[1100];
    tr_run_path(p, sizeof p, x->c->out, "run.state");
    return tr_runstate_save(p, &x->st, err, errlen);
}

/* latest.ckpt (m, with its momenta, at st.steps), then run.state.  0, or -1 with a message. */
int tr_run_save_state(run_ctx *x, nn_model *m, char *err, size_t errlen) {
    char p[1100];
    tr_run_path(p, sizeof p, x->c->out, "latest.ckpt");
    if (nn_checkpoint_save(p, m, x->st.steps, true, err, errlen) != 0) return -1;
    return tr_run_save_runstate(x, err, errlen);
}

/* ---- open ------------------------------------------------------------------------------------ */

/* The options that contradict each other or OUTDIR's content (have: it holds a run), checked
 * before anything is written.  0, or -1 with a message. */
static int check_options(const tr_run_config *c, bool have, char *err, size_t errlen) {
    if (c->require_run && c->fresh) {
        snprintf(err, errlen, "--resume and --fresh contradict each other");
        return -1;
    }
    if (c->require_run && !have) {
        snprintf(err, errlen, "--resume: %s holds no run (run.state, latest.ckpt): check --out", c->out);
        return -1;
    }
    if (c->pretrain[0] && !tr_run_file_exists(c->pretrain)) {
        snprintf(err, errlen, "--pretrain %s: %s", c->pretrain, strerror(errno));
        return -1;
    }
    if (c->pretrain[0] && (!have || c->fresh)) {           /* before --fresh deletes anything */
        zz_file_list l = { 0 };
        char why[512];
        int rc = zz_file_list_add(&l, c->pretrain, why, sizeof why);
        int n = l.n;
        zz_file_list_free(&l);
        if (rc != 0 || n == 0) {
            snprintf(err, errlen, "--pretrain %s: %s", c->pretrain, rc ? why : "no SGF records (*.sgf) there");
            return -1;
        }
    }
    if (have && !c->fresh && c->pretrain[0]) {
        snprintf(err, errlen, "--pretrain applies to a fresh run, and %s holds one: resume without --pretrain, or add --fresh",
                 c->out);
        return -1;
    }
    return 0;
}

/* A resumed run's best.ckpt must load and have the architecture of m (latest.ckpt's), or the
 * first evaluation would fail long after the start.  0, or -1 with a message. */
static int check_best(const tr_run_config *c, const nn_model *m, const char *latest, char *err, size_t errlen) {
    char best[1100], why[512];
    tr_run_path(best, sizeof best, c->out, "best.ckpt");
    nn_model *bm = nn_checkpoint_load(best, NN_F32, NULL, why, sizeof why);
    if (!bm || !nn_config_same_arch(&bm->cfg, &m->cfg)) {
        snprintf(err, errlen, "resume: %s: %s: replace it with the latest weights (cp %s %s) or start over with --fresh",
                 best, bm ? "another architecture than the run's" : why, latest, best);
        nn_model_free(bm);
        return -1;
    }
    nn_model_free(bm);
    return 0;
}

/* Resume the run in c->out: run.state, latest.ckpt (its steps are the truth) into x->m, its board
 * and architecture checked against the options, best.ckpt checked, the logs trimmed to the
 * checkpoint.  0, or -1 with a message (x->m NULL). */
static int open_resume(run_ctx *x, char *err, size_t errlen) {
    const tr_run_config *c = x->c;
    char statep[1100], latest[1100], why[512];
    tr_run_path(statep, sizeof statep, c->out, "run.state");
    tr_run_path(latest, sizeof latest, c->out, "latest.ckpt");
    if (tr_runstate_load(statep, &x->st, why, sizeof why) != 0) { snprintf(err, errlen, "resume: %s", why); return -1; }
    long step = 0;
    nn_model *m = nn_checkpoint_load(latest, NN_F32, &step, why, sizeof why);
    if (!m) { snprintf(err, errlen, "resume: %s", why); return -1; }
    if ((int)m->cfg.board != (int)c->sp.board) {
        snprintf(err, errlen, "resume: %s is a run on another board (use --fresh or another --out)", c->out);
    } else if (((c->arch_given & TR_ARCH_BLOCKS) && m->cfg.blocks != c->blocks) ||
               ((c->arch_given & TR_ARCH_CHANNELS) && m->cfg.channels != c->channels)) {
        snprintf(err, errlen, "resume: %s is a run of a %d x %d network, not %d x %d: drop --blocks/--channels, "
                 "or start over with --fresh (or another --out)", c->out, m->cfg.blocks, m->cfg.channels, c->blocks, c->channels);
    } else if (c->aux_weight > 0 && !m->cfg.aux_outputs) {
        snprintf(err, errlen, "resume: %s is a run of a network without a captures head, so --aux-weight cannot "
                 "train one: start a run with it (--fresh, or --init %s/latest.ckpt in another --out)", c->out, c->out);
    } else if (check_best(c, m, latest, err, errlen) == 0) {
        if (step != x->st.steps) x->st.steps = step;    /* the checkpoint is the truth for steps */
        /* logs written after that checkpoint (a kill) go: time and steps never run backwards */
        /* seconds: train.csv and run.state round them to 0.1 s, so a row may read up to 0.1 s late */
        if (trim_log(c->out, "train.csv", 2, (double)x->st.steps, 1, x->st.seconds + 0.15, why, sizeof why) == 0 &&
            trim_log(c->out, "elo.csv", 1, (double)x->st.generation, 0, 0, why, sizeof why) == 0) {
            x->m = m;
            x->res->resumed = 1;
            return 0;
        }
        snprintf(err, errlen, "resume: %s", why);
    }
    nn_model_free(m);
    return -1;
}

/* --init with --blocks/--channels: m grown to them (nn/grow.h: the same play, room to learn
 * more), or as it is when it has them already.  The network (m is freed when it is replaced), or
 * NULL with a message. */
static nn_model *grow_init(const tr_run_config *c, nn_model *m, char *err, size_t errlen) {
    int blocks = c->arch_given & TR_ARCH_BLOCKS ? c->blocks : m->cfg.blocks;
    int channels = c->arch_given & TR_ARCH_CHANNELS ? c->channels : m->cfg.channels;
    if (blocks == m->cfg.blocks && channels == m->cfg.channels) return m;
    char why[512];
    nn_model *g = nn_model_grow(m, blocks, channels, c->seed * 131 + 7, why, sizeof why);
    if (!g) snprintf(err, errlen, "--init: %s", why);
    else if (!c->quiet)
        printf("zertz train: --init: the %d x %d network grown to %d x %d (new channels and blocks add nothing "
               "until trained: src/nn/grow.h)\n", m->cfg.blocks, m->cfg.channels, blocks, channels);
    nn_model_free(m);
    return g;
}

/* --init: the weights of c->init (their architecture, or grown to --blocks/--channels; carried
 * over to c->sp.board when they are another board's), with fresh momenta.  The network, or NULL with a message. */
static nn_model *load_init(const tr_run_config *c, char *err, size_t errlen) {
    char why[512];
    nn_model *m = nn_checkpoint_load(c->init, NN_F32, NULL, why, sizeof why);
    if (!m) { snprintf(err, errlen, "--init: %s", why); return NULL; }
    if ((int)m->cfg.board != (int)c->sp.board) {      /* another board's network: carried over */
        nn_board_shift s;
        nn_model *t = nn_model_transfer(m, c->sp.board, &s, why, sizeof why);
        int from = zz_board_get((zz_board_kind)m->cfg.board)->rings;
        nn_model_free(m);
        if (!(m = t)) {
            snprintf(err, errlen, "--init: %s", why);
            return NULL;
        }
        if (!c->quiet)
            printf("zertz train: --init: the %d-ring network carried over to %d rings (trunk and policy head "
                   "as they are; value head: %d of its %d cells mapped, %d new cells start at zero)\n",
                   from, s.dst_cells, s.mapped, s.src_cells, s.dst_cells - s.mapped);
    }
    if (c->arch_given && !(m = grow_init(c, m, err, errlen))) return NULL;
    if (c->aux_weight > 0 && !m->cfg.aux_outputs) {  /* the captures head added, the play unchanged */
        nn_model *a = nn_model_with_aux(m, c->seed * 137 + 11, why, sizeof why);
        nn_model_free(m);
        if (!(m = a)) {
            snprintf(err, errlen, "--init: %s", why);
            return NULL;
        }
        if (!c->quiet) printf("zertz train: --init: a captures head added (--aux-weight %g)\n", c->aux_weight);
    }
    memset(m->mom, 0, m->nparams * m->esize);   /* fresh momenta */
    return m;
}

/* A new run's recipe to OUT/run.args (train/recipe.h), when it has one.  0, or -1 with a message. */
static int save_recipe(const tr_run_config *c, char *err, size_t errlen) {
    if (!c->recipe[0]) return 0;
    char p[1100];
    tr_run_path(p, sizeof p, c->out, TR_RECIPE_FILE);
    return tr_write_file_atomic(p, c->recipe, strlen(c->recipe), err, errlen);
}

/* A new run in c->out: random weights (or init: --init's, loaded before anything was removed;
 * taken over) into x->m, saved as generation 0, best.ckpt and latest.ckpt, with run.state and
 * run.args.  0, or -1 with a message (x->m NULL). */
static int open_new(run_ctx *x, nn_model *init, char *err, size_t errlen) {
    const tr_run_config *c = x->c;
    char why[512];
    nn_model *m = init;
    if (!m) {
        nn_config nc;
        nn_config_default(&nc, c->sp.board);
        nc.blocks = c->blocks;
        nc.channels = c->channels;
        nc.aux_outputs = c->aux_weight > 0 ? NN_AUX : 0;
        if (!(m = nn_model_create(&nc, NN_F32, c->seed, why, sizeof why))) {
            snprintf(err, errlen, "network: %s", why);
            return -1;
        }
    }
    x->st.board = (int)c->sp.board;
    x->st.blocks = m->cfg.blocks;
    x->st.channels = m->cfg.channels;
    char g0[1100], best[1100];
    tr_run_gen_path(g0, sizeof g0, c->out, 0);
    tr_run_path(best, sizeof best, c->out, "best.ckpt");
    if (nn_checkpoint_save(g0, m, 0, false, why, sizeof why) || nn_checkpoint_save(best, m, 0, false, why, sizeof why) ||
        save_recipe(c, why, sizeof why) || tr_run_save_state(x, m, why, sizeof why)) {
        nn_model_free(m);
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    x->m = m;
    return 0;
}

/* Open one log for appending, with its header line when the file is new.  NULL with a message
 * naming the file and the cause when it cannot. */
static FILE *open_log(const char *dir, const char *name, const char *header, char *err, size_t errlen) {
    char p[1100];
    tr_run_path(p, sizeof p, dir, name);
    bool is_new = !tr_run_file_exists(p);
    FILE *f = fopen(p, "a");
    if (!f) snprintf(err, errlen, "%s: cannot open for appending: %s", p, strerror(errno));
    else if (is_new) fprintf(f, "%s\n", header);
    return f;
}

/* The plot history from the logs, and the logs opened.  0, or -1 with a message (none open). */
static int open_logs(run_ctx *x, char *err, size_t errlen) {
    const tr_run_config *c = x->c;
    load_history(&x->hist, c->out);
    x->csv = open_log(c->out, "train.csv", "seconds,steps,games,samples,buffer,positions_per_s,evals_per_s,batch_fill,"
                                           "policy_loss,value_loss,lr,generation", err, errlen);
    x->elo = x->csv ? open_log(c->out, "elo.csv", "generation,steps,opponent,games,wins,losses,draws,score,elo,elo_lo,"
                                                  "elo_hi,rating", err, errlen) : NULL;
    if (x->csv && x->elo) return 0;
    if (x->csv) fclose(x->csv);
    if (x->elo) fclose(x->elo);
    x->csv = x->elo = NULL;
    tr_history_free(&x->hist);
    return -1;
}

/* One line for this session in OUT/sessions.log: when it started, the step and generation it
 * started from, new or resumed, and the recipe options given on its command line (one to a line
 * in c->recipe): run.args keeps only the new run's recipe, so the options a resume overrode for
 * its session (an experiment's, say) are told here.  0, or -1 with a message. */
static int log_session(const run_ctx *x, char *err, size_t errlen) {
    const tr_run_config *c = x->c;
    FILE *f = open_log(c->out, "sessions.log", "# started (UTC), from step, generation, new or resumed: recipe options given",
                       err, errlen);
    if (!f) return -1;
    char when[32] = "?";
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm)) strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(f, "%s step %ld gen %d %s:", when, x->st.steps, x->st.generation, x->res->resumed ? "resumed" : "new");
    for (const char *a = c->recipe; *a;) {
        const char *nl = strchr(a, '\n');
        int len = nl ? (int)(nl - a) : (int)strlen(a);
        fprintf(f, " %.*s", len, a);
        a += len + (nl != NULL);
    }
    fputc('\n', f);
    if (fclose(f) != 0) { snprintf(err, errlen, "%s/sessions.log: cannot write: %s", c->out, strerror(errno)); return -1; }
    return 0;
}

int tr_run_open(run_ctx *x, char *err, size_t errlen) {
    const tr_run_config *c = x->c;
    char statep[1100], latest[1100], why[512];
    tr_run_path(statep, sizeof statep, c->out, "run.state");
    tr_run_path(latest, sizeof latest, c->out, "latest.ckpt");
    bool have = tr_run_file_exists(statep) || tr_run_file_exists(latest);
    if (check_options(c, have, err, errlen) != 0) return -1;
    if (tr_mkdirs(c->out, why, sizeof why) != 0) { snprintf(err, errlen, "%s: %s", c->out, why); return -1; }
    if (have && !c->fresh && c->init[0]) {
        snprintf(err, errlen, "--init starts a fresh run, but %s holds one: add --fresh (which deletes it) or use another --out",
                 c->out);
        return -1;
    }
    if (have && !c->fresh && !c->resume) {
        snprintf(err, errlen, "%s holds a run: resume it, or start over with --fresh (which deletes it)", c->out);
        return -1;
    }
    /* --init's weights are read before --fresh deletes anything: a bad --init (or one inside the
     * run being deleted) must not cost the run */
    nn_model *init = NULL;
    if ((!have || c->fresh) && c->init[0] && !(init = load_init(c, err, errlen))) return -1;
    if (have && c->fresh) { tr_run_remove(c->out); have = false; }
    if ((have ? open_resume(x, err, errlen) : open_new(x, init, err, errlen)) != 0) return -1;
    if (log_session(x, err, errlen) != 0 || open_logs(x, err, errlen) != 0) {
        nn_model_free(x->m);
        x->m = NULL;
        return -1;
    }
    return 0;
}
