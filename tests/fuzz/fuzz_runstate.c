/* fuzz_runstate.c — libFuzzer target: a training run's OUTDIR/run.state (tr_runstate_load,
 * src/train/runstate.h), read when tools/train resumes.  The file is a memfd holding the input.
 * A state that loads must save (tr_runstate_save) and load again to the same counts. */
#include "fuzz.h"
#include "train/runstate.h"

/* s saved and loaded again is the same (the rating and seconds are printed rounded: not compared).
 * The file goes to a folder of its own in /dev/shm (memory; /tmp where there is none), removed
 * before returning. */
static void runstate_roundtrip(const tr_runstate *s) {
    char dir[64], path[96], err[256];
    snprintf(dir, sizeof dir, "%s/zz-fuzz-runstate-XXXXXX", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    FZ_ASSERT(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/run.state", dir);
    FZ_ASSERT(tr_runstate_save(path, s, err, sizeof err) == 0, "save: %s", err);
    tr_runstate t;
    int rc = tr_runstate_load(path, &t, err, sizeof err);
    unlink(path);
    rmdir(dir);
    FZ_ASSERT(rc == 0, "the saved state does not load: %s", err);
    FZ_ASSERT(t.steps == s->steps && t.trained == s->trained && t.games == s->games && t.samples == s->samples &&
              t.generation == s->generation && t.best_generation == s->best_generation && t.board == s->board &&
              t.blocks == s->blocks && t.channels == s->channels, "the saved state loads to other counts");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char path[32], err[256];
    int fd = fz_memfile(data, size, path);
    tr_runstate s;
    if (tr_runstate_load(path, &s, err, sizeof err) == 0) runstate_roundtrip(&s);
    else fz_check_message(err, sizeof err);
    close(fd);
    return 0;
}
