/* fit — a fresh network trained on a fixed set of samples, its losses measured on a part held out:
 * the cheapest test of a change to the network or its targets, since every arm sees the same data
 * and no self-play feeds its own noise back (src/train/README.md, "The captures head").
 *
 *   tools/fit --replay DIR --rings N [--holdout F] [--steps S] [--eval-every K] [--batch B]
 *             [--lr X] [--blocks B] [--channels C] [--aux-weight W] [--window N] [--seed S]
 *
 * DIR is a replay folder: a run's OUT/replay, or one that `tools/train --pretrain` filled with
 * Boardspace games.  Its newest F of the samples (default 0.1) are held out; a game's samples are
 * adjacent there, so at most one game straddles the split.  The rest train a fresh network with
 * the trainer's own step (src/train/trainer.h: random batches under random symmetries, the policy
 * loss on the full-search samples only, the value loss on all, the captures head's on the samples
 * whose game ended by the rules).  Every K steps a line gives the held-out losses, measured on
 * running BN statistics without symmetries: policy cross-entropy (full samples), value MSE, and
 * the captures head's MSE where its targets are known (with --aux-weight; "-" without the head).
 * The replay folder must exist; it is read as a resume reads it (a damaged chunk is set aside with a
 * warning), and nothing is added to it.
 *
 * Output: "step S train p P v V a A held-out p P v V a A" lines on stdout; bad usage: exit 2;
 * a folder that cannot be read or holds too few samples: exit 1 with the reason. */
#include "cli.h"
#include "nn/util.h"
#include "train/trainer.h"
#include <math.h>
#include <sys/stat.h>

static const char *const TOOL = "fit";

typedef struct {
    const char *replay;
    int rings, steps, eval_every, batch, blocks, channels, window;
    double holdout, lr, aux_weight;
    uint64_t seed;
} fit_options;

static void usage(FILE *f) {
    fprintf(f, "usage: fit --replay DIR --rings N [options]\n"
               "Trains a fresh network on a replay folder's samples and reports the losses on a part\n"
               "held out (the same data for every arm of an experiment; nothing is added to the folder).\n"
               "  --replay DIR       a replay folder (a run's OUT/replay)\n"
               "  --rings N          its board: 37, 48 or 61\n"
               "  --holdout F        the newest share of the samples held out (default 0.1)\n"
               "  --steps S          SGD steps (default 2000)\n"
               "  --eval-every K     steps between held-out measurements (default 250)\n"
               "  --batch B          samples a step (default 128)\n"
               "  --lr X             SGD learning rate (default 0.02, after the trainer's warmup)\n"
               "  --blocks B, --channels C   the network (default 4 x 32, make train's)\n"
               "  --aux-weight W     give the network the captures head and train it with this weight\n"
               "                     (default 0: no head)\n"
               "  --window N         read at most the newest N samples of the folder (default 1000000)\n"
               "  --seed S           the network's weights and the batches (default 1)\n");
}

/* Options into o: 1 to go on, 0 after --help, -1 after bad usage (printed). */
static int parse(int argc, char **argv, fit_options *o) {
    *o = (fit_options){ .steps = 2000, .eval_every = 250, .batch = 128, .blocks = 4, .channels = 32,
                        .window = 1000000, .holdout = 0.1, .lr = 0.02, .seed = 1 };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool ok = true;
        if (cli_is_help(a)) { usage(stdout); return 0; }
        else if (!strcmp(a, "--replay")) ok = (o->replay = cli_value(TOOL, argc, argv, &i)) != NULL;
        else if (!strcmp(a, "--rings")) ok = cli_rings_opt(TOOL, argc, argv, &i, &o->rings);
        else if (!strcmp(a, "--holdout")) ok = cli_double_opt(TOOL, argc, argv, &i, 0.01, 0.5, &o->holdout);
        else if (!strcmp(a, "--steps")) ok = cli_int_opt(TOOL, argc, argv, &i, 1, 100000000, &o->steps);
        else if (!strcmp(a, "--eval-every")) ok = cli_int_opt(TOOL, argc, argv, &i, 1, 100000000, &o->eval_every);
        else if (!strcmp(a, "--batch")) ok = cli_int_opt(TOOL, argc, argv, &i, 1, 65536, &o->batch);
        else if (!strcmp(a, "--lr")) ok = cli_double_opt(TOOL, argc, argv, &i, 1e-6, 10, &o->lr);
        else if (!strcmp(a, "--blocks")) ok = cli_int_opt(TOOL, argc, argv, &i, 1, 40, &o->blocks);
        else if (!strcmp(a, "--channels")) ok = cli_int_opt(TOOL, argc, argv, &i, 4, 512, &o->channels);
        else if (!strcmp(a, "--aux-weight")) ok = cli_double_opt(TOOL, argc, argv, &i, 0, 100, &o->aux_weight);
        else if (!strcmp(a, "--window")) ok = cli_int_opt(TOOL, argc, argv, &i, 100, 50000000, &o->window);
        else if (!strcmp(a, "--seed")) ok = cli_u64_opt(TOOL, argc, argv, &i, UINT64_MAX, &o->seed);
        else { cli_unknown(TOOL, a); return -1; }
        if (!ok) return -1;
    }
    if (!o->replay) { cli_bad(TOOL, "--replay", "a replay folder is needed (see fit --help)"); return -1; }
    if (!o->rings) { cli_bad(TOOL, "--rings", "the folder's board is needed: 37, 48 or 61"); return -1; }
    return 1;
}

typedef struct { double policy, value, aux; } fit_losses;

/* The held-out losses of m over r's samples [from, to): batches of up to 256 in order, the full
 * samples first in each (the policy over them), no symmetry, BN on running statistics.  0, or -1
 * with a message. */
static int held_out(nn_model *m, const tr_replay *r, int from, int to, fit_losses *out, char *err, size_t errlen) {
    enum { CHUNK = 256 };
    nn_sample s[CHUNK];
    nn_batch b;
    nn_batch_init(&b);
    double sp = 0, sv = 0, sa = 0;
    long long nfull = 0, nall = 0, nknown = 0;
    int rc = 0;
    for (int at = from; at < to && rc == 0; at += CHUNK) {
        int n = to - at < CHUNK ? to - at : CHUNK, nf = 0, nv = n;
        for (int i = 0; i < n; i++) {                    /* full samples first */
            const tr_sample *t = tr_replay_at(r, at + i);
            nn_sample x = tr_sample_for_batch(t);
            if (t->full) s[nf++] = x; else s[--nv] = x;
        }
        if ((rc = nn_batch_build(&b, &m->geom, s, n, NULL, NULL, err, errlen)) != 0 ||
            (rc = nn_model_forward(m, b.x, n, false, err, errlen)) != 0)
            break;
        nn_policy_targets pt = b.targets;
        pt.n = nf;
        if (nf) sp += nf * nn_policy_loss_f(nn_model_logits(m), NULL, &pt, m->geom.ncells, 1.0);
        sv += n * nn_value_loss_f(nn_model_values(m), NULL, b.z, n, 1.0);
        int nk = 0;
        for (int i = 0; i < n; i++) nk += b.aux_known[i];
        if (m->cfg.aux_outputs && nk) sa += nk * nn_aux_loss_f(nn_model_aux(m), NULL, b.aux, b.aux_known, n, 1.0);
        nfull += nf;
        nall += n;
        nknown += nk;
    }
    nn_batch_free(&b);
    *out = (fit_losses){ nfull ? sp / nfull : NAN, nall ? sv / nall : NAN,
                         m->cfg.aux_outputs && nknown ? sa / nknown : NAN };
    return rc;
}

static void print_loss(const char *name, double v) {
    if (isnan(v)) printf(" %s -", name);
    else printf(" %s %.4f", name, v);
}

/* The fit itself on the opened replay.  0, or 1 with the reason printed. */
static int fit(const fit_options *o, const tr_replay *r) {
    char err[512];
    int nheld = (int)ceil(o->holdout * r->count), ntrain = r->count - nheld;
    if (ntrain < o->batch || nheld < 1) {
        fprintf(stderr, "zertz: %s: %s: %d samples: too few for a batch of %d and a held-out part\n", TOOL,
                o->replay, r->count, o->batch);
        return 1;
    }
    tr_replay train = *r;                  /* the training part: the window's oldest samples, a view */
    train.count = ntrain;                  /* of the same ring (only tr_replay_at and count are read) */
    nn_config c;
    nn_config_default(&c, zz_board_for_rings(o->rings)->kind);
    c.blocks = o->blocks;
    c.channels = o->channels;
    c.aux_outputs = o->aux_weight > 0 ? NN_AUX : 0;
    nn_model *m = nn_model_create(&c, NN_F32, o->seed, err, sizeof err);
    nn_sgd sgd;
    nn_sgd_default(&sgd);
    sgd.lr = o->lr;
    tr_trainer t;
    if (!m || tr_trainer_init(&t, m, &sgd, o->batch, 1.0, o->aux_weight, o->seed * 31 + 1, err, sizeof err) != 0) {
        fprintf(stderr, "zertz: %s: network: %s\n", TOOL, err);
        return 1;
    }
    printf("fit: %s, %d rings: %d samples, %d trained on, %d held out; %d x %d network%s, batch %d, lr %g\n",
           o->replay, o->rings, r->count, ntrain, nheld, o->blocks, o->channels,
           c.aux_outputs ? ", captures head" : "", o->batch, o->lr);
    fit_losses ema = { NAN, NAN, NAN };
    int rc = 0;
    for (int step = 1; step <= o->steps && rc == 0; step++) {
        nn_loss_parts p;
        if (tr_trainer_step(&t, &train, &p, NULL, err, sizeof err) != 0) { rc = 1; break; }
        fit_losses now = { p.policy, p.value, p.aux };
        ema.policy = isnan(ema.policy) ? now.policy : 0.98 * ema.policy + 0.02 * now.policy;
        ema.value = isnan(ema.value) ? now.value : 0.98 * ema.value + 0.02 * now.value;
        ema.aux = isnan(ema.aux) ? now.aux : 0.98 * ema.aux + 0.02 * now.aux;
        if (step % o->eval_every && step != o->steps) continue;
        fit_losses h;
        if (held_out(t.model, r, ntrain, r->count, &h, err, sizeof err) != 0) { rc = 1; break; }
        printf("step %d train", step);
        print_loss("p", ema.policy);
        print_loss("v", ema.value);
        print_loss("a", c.aux_outputs ? ema.aux : NAN);
        printf("  held-out");
        print_loss("p", h.policy);
        print_loss("v", h.value);
        print_loss("a", h.aux);
        printf("\n");
        fflush(stdout);
    }
    if (rc) fprintf(stderr, "zertz: %s: %s\n", TOOL, err);
    tr_trainer_free(&t);
    return rc;
}

int main(int argc, char **argv) {
    fit_options o;
    int pr = parse(argc, argv, &o);
    if (pr <= 0) return pr == 0 ? 0 : 2;
    tr_replay r;
    char err[512];
    struct stat st;
    if (stat(o.replay, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "zertz: %s: %s: not a replay folder\n", TOOL, o.replay);
        return 1;
    }
    if (tr_replay_open(&r, o.replay, zz_board_for_rings(o.rings)->kind, o.window, err, sizeof err) != 0) {
        fprintf(stderr, "zertz: %s: %s\n", TOOL, err);
        return 1;
    }
    int rc = fit(&o, &r);
    tr_replay_close(&r, err, sizeof err);
    return rc;
}
