/* run_check — check a training run folder (tools/train --out DIR) the way a resume would read it,
 * changing nothing: what `make soak` runs after every kill (src/train/soak.sh).
 *
 *   tools/run_check DIR [--gen-steps N]
 *
 * Checks: run.state loads; latest.ckpt, best.ckpt and every gen-NNNN.ckpt load (the library's
 * loaders: checksum, architecture) with latest.ckpt's architecture and run.state's board and
 * shape; latest.ckpt is never behind run.state (it is written first); every replay chunk verifies
 * (tr_replay_check_file: checksum, version, board, every sample), no chunk was set aside as
 * damaged, and the chunks number their samples without a gap; train.csv has whole rows whose
 * seconds, steps and samples never decrease, and whose samples never exceed what the chunks hold
 * (a flushed sample is never lost); elo.csv's generations never decrease.  With --gen-steps N,
 * latest.ckpt holds at least the last generation boundary train.csv's newest row had passed.
 *
 * Prints "KEY VALUE" lines on stdout (the figures the soak reports) and exits 0; a failed check:
 * "zertz: run_check: DIR: what" on stderr, exit 1; bad usage: exit 2 (tools/cli.h). */
#include "cli.h"
#include "nn/checkpoint.h"
#include "train/replay.h"
#include "train/runstate.h"
#include <dirent.h>
#include <stdarg.h>
#include <sys/stat.h>

static const char *const TOOL = "run_check";

typedef struct {
    const char *dir;
    long gen_steps;
    tr_runstate st;
    long latest_steps;
    nn_config arch;
    int checkpoints;
    int chunks, tmp_files;
    long long samples_ever, samples_on_disk;
    double newest_chunk_mtime;
    int csv_rows;
    double csv_seconds;
    long csv_steps;
    long long csv_samples;
} run_facts;

static void usage(FILE *f) {
    fprintf(f, "usage: run_check DIR [--gen-steps N]\n"
               "Checks a training run folder as a resume reads it, changing nothing: run.state, every\n"
               "checkpoint, every replay chunk (and that no sample number is missing), train.csv and\n"
               "elo.csv monotone; prints the figures as KEY VALUE lines.  Exit 0 ok, 1 a check failed.\n"
               "  --gen-steps N   the run's --gen-steps: latest.ckpt must hold the last generation\n"
               "                  boundary that train.csv's newest row had passed\n");
}

/* Report a failed check on stderr; returns -1. */
static int fail(const run_facts *f, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "zertz: %s: %s: %s\n", TOOL, f->dir, msg);
    return -1;
}

/* Load the checkpoint DIR/name; it must have arch (when given) or it sets arch.  0 or -1. */
static int check_ckpt(run_facts *f, const char *name, bool set_arch, long *step) {
    char p[1200], why[512];
    snprintf(p, sizeof p, "%s/%s", f->dir, name);
    nn_model *m = nn_checkpoint_load(p, NN_F32, step, why, sizeof why);
    if (!m) return fail(f, "%s does not load: %s", name, why);
    bool same = set_arch || nn_config_same_arch(&m->cfg, &f->arch);
    if (set_arch) f->arch = m->cfg;
    nn_model_free(m);
    if (!same) return fail(f, "%s has another architecture than latest.ckpt", name);
    f->checkpoints++;
    return 0;
}

/* run.state and latest.ckpt: both load, they agree on board and shape, and latest.ckpt is not
 * behind run.state.  0 or -1. */
static int check_state(run_facts *f) {
    char p[1200], why[512];
    snprintf(p, sizeof p, "%s/run.state", f->dir);
    if (tr_runstate_load(p, &f->st, why, sizeof why) != 0) return fail(f, "run.state: %s", why);
    if (check_ckpt(f, "latest.ckpt", true, &f->latest_steps) != 0) return -1;
    if ((int)f->arch.board != f->st.board || f->arch.blocks != f->st.blocks || f->arch.channels != f->st.channels)
        return fail(f, "run.state describes another network than latest.ckpt");
    if (f->latest_steps < f->st.steps)
        return fail(f, "latest.ckpt (step %ld) is behind run.state (step %ld)", f->latest_steps, f->st.steps);
    return check_ckpt(f, "best.ckpt", false, NULL);
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The files of folder `dir` (DIR or DIR/replay): every gen-NNNN.ckpt loads; the chunk ids found
 * are added to *ids (malloc'd, sorted); tmp files counted; a *.damaged file fails.  0 or -1. */
static int scan_dir(run_facts *f, const char *dir, uint32_t **ids, int *nids) {
    DIR *d = opendir(dir);
    if (!d) return errno == ENOENT ? 0 : fail(f, "%s: %s", dir, strerror(errno));
    int cap = *nids, rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d))) {
        unsigned id;
        char tail[8];
        size_t len = strlen(e->d_name);
        if (sscanf(e->d_name, "chunk-%8u.zz%1[r]", &id, tail) == 2 && len == 18) {
            if (*nids == cap) {
                cap = cap ? 2 * cap : 64;
                uint32_t *np = realloc(*ids, sizeof *np * (size_t)cap);
                if (!np) { rc = fail(f, "out of memory"); break; }
                *ids = np;
            }
            (*ids)[(*nids)++] = id;
        } else if (strstr(e->d_name, ".zzr.tmp.")) {
            f->tmp_files++;                       /* a chunk being written at the kill: resume deletes it */
        } else if (len > 8 && !strcmp(e->d_name + len - 8, ".damaged")) {
            rc = fail(f, "%s: a replay chunk was set aside as damaged", e->d_name);
        } else if (!strncmp(e->d_name, "gen-", 4) && len > 5 && !strcmp(e->d_name + len - 5, ".ckpt")) {
            rc = check_ckpt(f, e->d_name, false, NULL);
        }
    }
    closedir(d);
    if (*nids > 1) qsort(*ids, (size_t)*nids, sizeof **ids, cmp_u32);
    return rc;
}

/* Every chunk verifies and numbers its samples right after the previous one's.  0 or -1. */
static int check_chunks(run_facts *f, const uint32_t *ids, int nids) {
    long long next = -1;
    for (int i = 0; i < nids; i++) {
        char p[1200], why[1400];
        snprintf(p, sizeof p, "%s/replay/chunk-%08u.zzr", f->dir, ids[i]);
        int n;
        long long first;
        if (tr_replay_check_file(p, (zz_board_kind)f->st.board, &n, &first, why, sizeof why) != 0)
            return fail(f, "replay chunk does not verify: %s", why);
        if (next >= 0 && first != next)
            return fail(f, "replay/chunk-%08u.zzr starts at sample %lld, the chunk before it ends at %lld: samples lost",
                        ids[i], first, next);
        next = first + n;
        f->samples_on_disk += n;
        struct stat sb;
        if (stat(p, &sb) == 0) f->newest_chunk_mtime = (double)sb.st_mtim.tv_sec + 1e-9 * (double)sb.st_mtim.tv_nsec;
    }
    f->chunks = nids;
    f->samples_ever = next < 0 ? 0 : next;
    return 0;
}

/* Rows of DIR/name after its header: each whole (newline-ended), with numbers in its first ncols
 * columns, those in the bits of `mono` (bit k: column k + 1) never decreasing; the last row's
 * numbers in v[].  0 or -1. */
static int check_log(run_facts *f, const char *name, int ncols, unsigned mono, double *v, int *rows) {
    char p[1200], line[1024];
    snprintf(p, sizeof p, "%s/%s", f->dir, name);
    FILE *in = fopen(p, "r");
    *rows = 0;
    if (!in) return errno == ENOENT ? 0 : fail(f, "%s: %s", name, strerror(errno));
    int rc = 0;
    for (int row = 0; rc == 0 && fgets(line, sizeof line, in); row++) {
        if (!strchr(line, '\n')) { rc = fail(f, "%s: row %d is incomplete: '%.80s'", name, row, line); break; }
        if (row == 0) continue;                   /* the header */
        double w[8];
        const char *c = line;
        for (int k = 0; k < ncols && rc == 0; k++) {
            char *end;
            w[k] = strtod(c, &end);
            if (end == c || (*end != ',' && *end != '\n') || !isfinite(w[k]))
                rc = fail(f, "%s: row %d: column %d is not a (finite) number", name, row, k + 1);
            else if (*rows > 0 && (mono >> k & 1) && w[k] < v[k])
                rc = fail(f, "%s: row %d: column %d goes back from %.1f to %.1f", name, row, k + 1, v[k], w[k]);
            c = *end ? end + 1 : end;
        }
        if (rc == 0) { memcpy(v, w, sizeof *w * (size_t)ncols); (*rows)++; }
    }
    fclose(in);
    return rc;
}

/* train.csv (seconds, steps and samples never decrease) and elo.csv (generations); the samples
 * train.csv counted (flushed ones) are on disk; latest.ckpt holds the generation boundary its
 * newest row had passed.  0 or -1. */
static int check_logs(run_facts *f) {
    double v[4] = { 0 }, e[1] = { 0 };
    int erows;
    if (check_log(f, "train.csv", 4, 1u | 2u | 8u, v, &f->csv_rows) != 0 || check_log(f, "elo.csv", 1, 1u, e, &erows) != 0)
        return -1;
    f->csv_seconds = v[0];
    f->csv_steps = (long)v[1];
    f->csv_samples = (long long)v[3];
    if (f->csv_samples > f->samples_ever)
        return fail(f, "train.csv counted %lld samples, the chunks hold %lld: flushed samples lost", f->csv_samples,
                    f->samples_ever);
    long boundary = f->gen_steps > 0 ? f->csv_steps / f->gen_steps * f->gen_steps : 0;
    if (f->latest_steps < boundary)
        return fail(f, "latest.ckpt (step %ld) is behind the generation boundary train.csv passed (step %ld)",
                    f->latest_steps, boundary);
    return 0;
}

/* The figures, one "KEY VALUE" a line. */
static void print_facts(const run_facts *f) {
    printf("latest_steps %ld\nstate_steps %ld\ngeneration %d\ncheckpoints %d\nchunks %d\ntmp_files %d\n",
           f->latest_steps, f->st.steps, f->st.generation, f->checkpoints, f->chunks, f->tmp_files);
    printf("samples_ever %lld\nsamples_on_disk %lld\nnewest_chunk_mtime %.3f\n", f->samples_ever, f->samples_on_disk,
           f->newest_chunk_mtime);
    printf("csv_rows %d\ncsv_seconds %.1f\ncsv_steps %ld\ncsv_samples %lld\n", f->csv_rows, f->csv_seconds, f->csv_steps,
           f->csv_samples);
}

int main(int argc, char **argv) {
    run_facts f = { 0 };
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) { usage(stdout); return 0; }
        if (!strcmp(argv[i], "--gen-steps")) {
            if (!cli_long_opt(TOOL, argc, argv, &i, 1, 1000000000L, &f.gen_steps)) return 2;
        } else if (argv[i][0] != '-' && !f.dir) {
            f.dir = argv[i];
        } else {
            return cli_unknown(TOOL, argv[i]);
        }
    }
    if (!f.dir) { usage(stderr); return 2; }
    uint32_t *ids = NULL;
    int nids = 0;
    char replay[1100];
    snprintf(replay, sizeof replay, "%s/replay", f.dir);
    int rc = check_state(&f);
    if (rc == 0) rc = scan_dir(&f, f.dir, &ids, &nids);
    if (rc == 0) rc = scan_dir(&f, replay, &ids, &nids);
    if (rc == 0) rc = check_chunks(&f, ids, nids);
    if (rc == 0) rc = check_logs(&f);
    free(ids);
    if (rc != 0) return 1;
    print_facts(&f);
    return 0;
}
