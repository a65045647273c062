/* runstate.c — the versioned, atomically written run-state file (runstate.h). */
#include "train/runstate.h"
#include "train/atomic_file.h"
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tr_runstate_save(const char *path, const tr_runstate *s, char *err, size_t errlen) {
    char buf[1024];
    int n = snprintf(buf, sizeof buf,
                     "zertz-train-state %d\nsteps %ld\ntrained %lld\ngames %lld\nsamples %lld\n"
                     "generation %d\nbest_generation %d\nbest_rating %.3f\nseconds %.1f\n"
                     "board %d\nblocks %d\nchannels %d\n",
                     TR_RUNSTATE_VERSION, s->steps, s->trained, s->games, s->samples, s->generation,
                     s->best_generation, s->best_rating, s->seconds, s->board, s->blocks, s->channels);
    return tr_write_file_atomic(path, buf, (size_t)n, err, errlen);
}

int tr_runstate_load(const char *path, tr_runstate *s, char *err, size_t errlen) {
    size_t len = 0;
    char *buf = tr_read_file(path, 1 << 16, &len, err, errlen);
    if (!buf) return -1;
    char *nul = realloc(buf, len + 1);
    if (!nul) { free(buf); snprintf(err, errlen, "out of memory"); return -1; }
    buf = nul;
    buf[len] = 0;
    memset(s, 0, sizeof *s);
    int version = 0;
    if (sscanf(buf, "zertz-train-state %d", &version) != 1) {
        free(buf);
        snprintf(err, errlen, "%s: not a run-state file", path);
        return -1;
    }
    if (version > TR_RUNSTATE_VERSION) {
        free(buf);
        snprintf(err, errlen, "%s: version %d is newer than this program's %d", path, version, TR_RUNSTATE_VERSION);
        return -1;
    }
    /* the keys this version knows: a count (a whole number up to max), or a real number (the
     * rating may be negative); unknown keys are another version's, not ours to judge */
    enum { COUNT, REAL };
    enum { STEPS, TRAINED, GAMES, SAMPLES, GENERATION, BEST_GENERATION, BEST_RATING, SECONDS, BOARD, BLOCKS, CHANNELS };
    static const struct { const char *key; int kind; double max; } FIELDS[] = {   /* in the order above */
        { "steps", COUNT, 9e18 }, { "trained", COUNT, 9e18 }, { "games", COUNT, 9e18 }, { "samples", COUNT, 9e18 },
        { "generation", COUNT, 1e9 }, { "best_generation", COUNT, 1e9 }, { "best_rating", REAL, 1e9 },
        { "seconds", REAL, 1e15 }, { "board", COUNT, 1e9 }, { "blocks", COUNT, 1e9 }, { "channels", COUNT, 1e9 },
    };
    enum { NFIELDS = sizeof FIELDS / sizeof *FIELDS };
    _Static_assert(NFIELDS == CHANNELS + 1, "one FIELDS entry per name, in order");
    double v[NFIELDS] = { 0 };
    bool seen[NFIELDS] = { false };
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        char key[64], val[128];
        if (sscanf(line, "%63s %127s", key, val) != 2) continue;
        int k = 0;
        while (k < NFIELDS && strcmp(key, FIELDS[k].key)) k++;
        if (k == NFIELDS) continue;
        char *end;
        double x = strtod(val, &end);
        bool ok = !*end && isfinite(x) && fabs(x) <= FIELDS[k].max && (x >= 0 || k == BEST_RATING) &&
                  (FIELDS[k].kind == REAL || x == floor(x));
        if (!ok) {          /* a damaged line must not be read as 0 (a resume would cut the logs to it) */
            snprintf(err, errlen, "%s: '%s %s' is not a valid value: the file is damaged (restore it, or start over "
                     "with --fresh)", path, key, val);
            free(buf);
            return -1;
        }
        v[k] = x;
        seen[k] = true;
    }
    if (!seen[STEPS] || !seen[GENERATION]) {
        snprintf(err, errlen, "%s: no %s line: the file is damaged (restore it, or start over with --fresh)", path,
                 !seen[STEPS] ? "steps" : "generation");
        free(buf);
        return -1;
    }
    s->steps = (long)v[STEPS];
    s->trained = (long long)v[TRAINED];
    s->games = (long long)v[GAMES];
    s->samples = (long long)v[SAMPLES];
    s->generation = (int)v[GENERATION];
    s->best_generation = (int)v[BEST_GENERATION];
    s->best_rating = v[BEST_RATING];
    s->seconds = v[SECONDS];
    s->board = (int)v[BOARD];
    s->blocks = (int)v[BLOCKS];
    s->channels = (int)v[CHANNELS];
    free(buf);
    return 0;
}
