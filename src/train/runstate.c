/* runstate.c — the versioned, atomically written run-state file (runstate.h). */
#include "train/runstate.h"
#include "train/atomic_file.h"
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
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        char key[64];
        char val[128];
        if (sscanf(line, "%63s %127s", key, val) != 2) continue;
        if (!strcmp(key, "steps")) s->steps = atol(val);
        else if (!strcmp(key, "trained")) s->trained = atoll(val);
        else if (!strcmp(key, "games")) s->games = atoll(val);
        else if (!strcmp(key, "samples")) s->samples = atoll(val);
        else if (!strcmp(key, "generation")) s->generation = atoi(val);
        else if (!strcmp(key, "best_generation")) s->best_generation = atoi(val);
        else if (!strcmp(key, "best_rating")) s->best_rating = atof(val);
        else if (!strcmp(key, "seconds")) s->seconds = atof(val);
        else if (!strcmp(key, "board")) s->board = atoi(val);
        else if (!strcmp(key, "blocks")) s->blocks = atoi(val);
        else if (!strcmp(key, "channels")) s->channels = atoi(val);
    }
    free(buf);
    return 0;
}
