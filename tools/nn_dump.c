/* nn_dump.c — run our CPU network on random positions and dump inputs and outputs, so that another
 * implementation of the same network (tools/torch_yardstick.py) can be checked against ours.
 *
 *   nn_dump (--ckpt PATH | --board 37|48|61 [--channels C] [--blocks B]) [--save-ckpt PATH]
 *           [--perturb] [--folded] --n N [--seed S] --out DUMP
 *
 * --ckpt loads a checkpoint; --board creates a model with the default config of that board
 * (nn_config_default, --channels/--blocks overriding) and weights initialised from --seed.
 * --perturb randomises every BN gamma/beta/running mean/running variance and every bias (a fresh
 * net has gamma 1, beta 0, mean 0, var 1 and zero biases, which would leave those untested);
 * --save-ckpt then writes the model (after --perturb) as a checkpoint.  The N positions are
 * reached by 0-39 uniformly random legal moves from the opening (games that ended are redrawn),
 * encoded with nn_encode, and evaluated by the model's inference forward (nn_model_forward,
 * BN on the running statistics; --folded: the folded nn_infer net that search uses instead).
 *
 * Dump format (little-endian, version 1):
 *   "ZZNNDUMP"  u32 version (1)  u32 rings (37/48/61)  u32 N  u32 P (on-board cells)
 *   u32 planes (16)  u32 heads (6)  u32 taps (7)
 *   i32 nb[P][taps]               the hex neighbour table (nn_geom.nb: row, tap -> row or -1)
 *   f32 x[N][P][planes]           the encoded inputs (rows layout, channels last)
 *   f32 logits[N][P][heads]       the policy head's logits
 *   f32 values[N]                 the value head's output (tanh)
 *   u32 CRC-32 (as zlib) of every byte before it.
 * Errors: "zertz: nn_dump: <what>: <why>" on stderr, exit 1 (2 for bad arguments, tools/cli.h). */
#include "game/atomic_file.h"
#include "cli.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nn/checkpoint.h"
#include "nn/infer.h"
#include "nn/encode.h"
#include "nn/util.h"

enum { DUMP_VERSION = 1, MAX_N = 1000000 };

static void usage(FILE *f)
{
    fprintf(f, "usage: nn_dump (--ckpt PATH | --board 37|48|61 [--channels C] [--blocks B]) [--save-ckpt PATH]\n"
               "               [--perturb] [--folded] --n N [--seed S] --out DUMP\n"
               "Runs our CPU network on N random positions and writes inputs, logits and values to DUMP\n"
               "(format in the header of tools/nn_dump.c; read by tools/torch_yardstick.py).\n"
               "  --ckpt PATH       load this checkpoint\n"
               "  --board R         or create the default net for R rings (weights from --seed)\n"
               "  --channels C, --blocks B   override the default width (1..1024) / depth (0..64)\n"
               "                    (with --board)\n"
               "  --perturb         randomise BN gamma/beta/running statistics and biases (from --seed)\n"
               "  --save-ckpt PATH  save the model (after --perturb) as a checkpoint\n"
               "  --folded          evaluate with the folded inference net (nn_infer) instead of\n"
               "                    the model's inference forward (nn_model_forward, train = false)\n"
               "  --n N             positions (1..%d)\n"
               "  --seed S          seed of the positions, weights and perturbation, 0..2^63-1 (default 1)\n"
               "  --out DUMP        output file\n", MAX_N);
}

/* ---- a little-endian byte buffer with a running CRC ---- */
typedef struct { FILE *f; uint32_t crc; bool bad; } out_t;

static void put(out_t *o, const void *p, size_t n)
{
    if (o->bad) return;
    if (fwrite(p, 1, n, o->f) != n) o->bad = true;
    o->crc = nn_crc32(o->crc, p, n);
}
static void put_u32(out_t *o, uint32_t v)
{
    unsigned char c[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24) };
    put(o, c, 4);
}
static void put_f32s(out_t *o, const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &v[i], 4);
        put_u32(o, u);
    }
}

static double uniform(uint64_t *s) { return (double)(zz_rand(s) >> 11) * (1.0 / 9007199254740992.0); }

/* Randomise BN parameters and statistics and the biases (see the header). */
static void perturb(nn_model *m, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 0x1234567ULL;
    if (!s) s = 1;
    for (int i = 0; i < m->nviews; i++) {
        const nn_view *v = &m->views[i];
        if (v->decay) continue;                     /* conv and dense weights keep their init */
        const char *dot = strrchr(v->name, '.');
        double lo = -0.2, hi = 0.2;                 /* beta, mean, biases */
        if (dot && !strcmp(dot, ".gamma")) lo = 0.5, hi = 1.5;
        else if (dot && !strcmp(dot, ".var")) lo = 0.5, hi = 2.0;
        void *buf = v->stat ? m->stats : m->param;
        for (size_t k = 0; k < v->count; k++) nn_buf_set(m, buf, v->offset + k, lo + (hi - lo) * uniform(&s));
    }
}

int main(int argc, char **argv)
{
    const char *ckpt = NULL, *save = NULL, *out = NULL;
    long rings = 0, channels = 0, blocks = -1, n = 0, seed = 1;
    bool do_perturb = false, folded = false;
    const char *tool = "nn_dump";
    int board = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool ok = true;
        if (cli_is_help(a)) { usage(stdout); return 0; }
        else if (!strcmp(a, "--ckpt")) ok = (ckpt = cli_value(tool, argc, argv, &i)) != NULL;
        else if (!strcmp(a, "--save-ckpt")) ok = (save = cli_value(tool, argc, argv, &i)) != NULL;
        else if (!strcmp(a, "--out")) ok = (out = cli_value(tool, argc, argv, &i)) != NULL;
        else if (!strcmp(a, "--perturb")) do_perturb = true;
        else if (!strcmp(a, "--folded")) folded = true;
        else if (!strcmp(a, "--board")) { ok = cli_rings_opt(tool, argc, argv, &i, &board); rings = board; }
        else if (!strcmp(a, "--channels")) ok = cli_long_opt(tool, argc, argv, &i, 1, 1024, &channels);
        else if (!strcmp(a, "--blocks")) ok = cli_long_opt(tool, argc, argv, &i, 0, 64, &blocks);
        else if (!strcmp(a, "--n")) ok = cli_long_opt(tool, argc, argv, &i, 1, MAX_N, &n);
        else if (!strcmp(a, "--seed")) ok = cli_long_opt(tool, argc, argv, &i, 0, 0x7fffffffffffffffL, &seed);
        else return cli_unknown(tool, a);
        if (!ok) return 2;
    }
    if (!ckpt == !rings) return cli_bad(tool, "--ckpt/--board", "give exactly one of --ckpt PATH and --board 37|48|61");
    if (ckpt && (channels || blocks >= 0)) return cli_bad(tool, "--channels/--blocks", "they go with --board, not --ckpt");
    if (!n) return cli_bad(tool, "--n", "required (positions to dump)");
    if (!out) return cli_bad(tool, "--out", "required (the dump file)");
    if (zz_same_file(out, ckpt)) return cli_bad(tool, "--out", "that is the --ckpt file: it would be overwritten");
    if (save && (zz_same_file(save, ckpt) || zz_same_path(save, out))) return cli_bad(tool, "--save-ckpt", "that is another input or output");

    char err[512];
    nn_model *m;
    if (ckpt) {
        m = nn_checkpoint_load(ckpt, NN_F32, NULL, err, sizeof err);
    } else {
        nn_config cfg;
        nn_config_default(&cfg, zz_board_for_rings((int)rings)->kind);
        if (channels) cfg.channels = (int)channels;
        if (blocks >= 0) cfg.blocks = (int)blocks;
        m = nn_model_create(&cfg, NN_F32, (uint64_t)seed, err, sizeof err);
    }
    if (!m) { fprintf(stderr, "zertz: nn_dump: %s\n", err); return 1; }
    if (do_perturb) perturb(m, (uint64_t)seed);
    if (save && nn_checkpoint_save(save, m, 0, false, err, sizeof err)) {
        fprintf(stderr, "zertz: nn_dump: %s\n", err);
        nn_model_free(m);
        return 1;
    }

    const nn_geom *g = &m->geom;
    int P = g->ncells, N = (int)n;
    float *x = malloc(sizeof(float) * (size_t)N * P * NN_PLANES);
    float *logits = malloc(sizeof(float) * (size_t)N * P * NN_HEADS);
    float *values = malloc(sizeof(float) * (size_t)N);
    int rc = 1;
    nn_infer *inf = NULL;
    if (!x || !logits || !values) { fprintf(stderr, "zertz: nn_dump: out of memory for %d positions\n", N); goto done; }
    uint64_t rng = (uint64_t)seed * 0xD1B54A32D192ED03ULL + 0x9E3779B97F4A7C15ULL;
    if (!rng) rng = 1;
    for (int i = 0; i < N; i++) {
        zz_pos p;
        do {
            zz_pos_init(&p, g->kind);
            int k = (int)zz_rand_below(&rng, 40);
            for (int j = 0; j < k && !zz_over(&p); j++) zz_apply(&p, zz_random_move(&p, &rng), NULL);
        } while (zz_over(&p));
        nn_encode(g, &p, x + (size_t)i * P * NN_PLANES);
    }
    if (folded) {
        inf = nn_infer_create(m, err, sizeof err);
        if (!inf || nn_infer_forward(inf, x, N, logits, values, err, sizeof err)) {
            fprintf(stderr, "zertz: nn_dump: %s\n", err);
            goto done;
        }
    } else {
        if (nn_model_forward(m, x, N, false, err, sizeof err)) { fprintf(stderr, "zertz: nn_dump: %s\n", err); goto done; }
        nn_model_outputs(m, logits, values);
    }

    char *dump = NULL;                      /* in memory first, then written atomically */
    size_t dump_len = 0;
    FILE *f = open_memstream(&dump, &dump_len);
    if (!f) { fprintf(stderr, "zertz: nn_dump: out of memory\n"); goto done; }
    out_t o = { f, 0, false };
    put(&o, "ZZNNDUMP", 8);
    put_u32(&o, DUMP_VERSION);
    put_u32(&o, (uint32_t)zz_board_get(g->kind)->rings);
    put_u32(&o, (uint32_t)N);
    put_u32(&o, (uint32_t)P);
    put_u32(&o, NN_PLANES);
    put_u32(&o, NN_HEADS);
    put_u32(&o, NN_TAPS);
    for (int i = 0; i < P; i++)
        for (int t = 0; t < NN_TAPS; t++) put_u32(&o, (uint32_t)(int32_t)g->nb[i][t]);
    put_f32s(&o, x, (size_t)N * P * NN_PLANES);
    put_f32s(&o, logits, (size_t)N * P * NN_HEADS);
    put_f32s(&o, values, (size_t)N);
    put_u32(&o, o.crc);
    bool bad = fclose(f) != 0 || o.bad;
    if (bad || zz_write_file_atomic(out, dump, dump_len, err, sizeof err) != 0) {
        fprintf(stderr, "zertz: nn_dump: %s\n", bad ? "out of memory" : err);
        free(dump);
        goto done;
    }
    free(dump);
    printf("nn_dump: %d positions, %d rings, %d blocks x %d channels (%s forward%s) -> %s%s%s\n", N,
           zz_board_get(g->kind)->rings, m->cfg.blocks, m->cfg.channels, folded ? "folded" : "model inference",
           do_perturb ? ", BN and biases perturbed" : "", out, save ? "; checkpoint " : "", save ? save : "");
    rc = 0;
done:
    nn_infer_free(inf);
    free(x);
    free(logits);
    free(values);
    nn_model_free(m);
    return rc;
}
