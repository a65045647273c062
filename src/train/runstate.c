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
    bool have_steps = false, have_generation = false;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        char key[64], val[128];
        if (sscanf(line, "%63s %127s", key, val) != 2) continue;
        static const char *const KNOWN[] = { "steps", "trained", "games", "samples", "generation", "best_generation",
                                             "best_rating", "seconds", "board", "blocks", "channels" };
        bool known = false;
        for (size_t k = 0; k < sizeof KNOWN / sizeof *KNOWN; k++) known = known || !strcmp(key, KNOWN[k]);
        if (!known) continue;                   /* another version's key: not ours to judge */
        char *end;
        double x = strtod(val, &end);
        /* every value a whole number (best_rating and seconds: any finite number), never below 0
         * but the rating: a damaged line must not be read as 0 and cut the logs to it */
        bool real = !strcmp(key, "best_rating") || !strcmp(key, "seconds");
        if (*end || !isfinite(x) || (x < 0 && strcmp(key, "best_rating")) || (!real && x != floor(x)) || fabs(x) > 9e18) {
            snprintf(err, errlen, "%s: '%s %s' is not a valid value: the file is damaged (restore it, or start over "
                     "with --fresh)", path, key, val);
            free(buf);
            return -1;
        }
        if (!strcmp(key, "steps")) { s->steps = (long)x; have_steps = true; }
        else if (!strcmp(key, "trained")) s->trained = (long long)x;
        else if (!strcmp(key, "games")) s->games = (long long)x;
        else if (!strcmp(key, "samples")) s->samples = (long long)x;
        else if (!strcmp(key, "generation")) { s->generation = x > 1e9 ? -1 : (int)x; have_generation = true; }
        else if (!strcmp(key, "best_generation")) s->best_generation = x > 1e9 ? -1 : (int)x;
        else if (!strcmp(key, "best_rating")) s->best_rating = x;
        else if (!strcmp(key, "seconds")) s->seconds = x;
        else if (!strcmp(key, "board")) s->board = x > 1e9 ? -1 : (int)x;
        else if (!strcmp(key, "blocks")) s->blocks = x > 1e9 ? -1 : (int)x;
        else if (!strcmp(key, "channels")) s->channels = x > 1e9 ? -1 : (int)x;
    }
    if (!have_steps || !have_generation || s->generation < 0 || s->best_generation < 0 || s->board < 0 ||
        s->blocks < 0 || s->channels < 0) {
        snprintf(err, errlen, "%s: %s: the file is damaged (restore it, or start over with --fresh)", path,
                 !have_steps ? "no steps line" : !have_generation ? "no generation line" : "a count out of range");
        free(buf);
        return -1;
    }
    free(buf);
    return 0;
}
