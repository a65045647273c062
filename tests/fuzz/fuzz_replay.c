/* fuzz_replay.c — libFuzzer target: replay-buffer chunk images (tr_replay_decode,
 * src/train/replay.h), what a training run reads back from DIR/chunk-*.zzr when it resumes and
 * what MPI ranks send each other.  Selector byte: bits 1-2 the run's board (0..2), bit 0 set =
 * the rest is the chunk up to its checksum and the harness appends the right CRC-32 (so that the
 * fuzzer reaches the samples).  A chunk that decodes must encode (tr_replay_encode) to a chunk
 * that decodes to the same samples, and its samples must be safe to train on: nn_batch_build
 * (what the trainer calls on them) may refuse them with a message, never crash. */
#include "fuzz.h"
#include "nn/util.h"
#include "train/replay.h"

/* The decoded samples, encoded and decoded again, are the same. */
static void replay_roundtrip(zz_board_kind board, const tr_sample *s, int n) {
    unsigned char *img = NULL;
    size_t len = 0;
    char err[256];
    FZ_ASSERT(tr_replay_encode(board, 5, s, n, &img, &len, err, sizeof err) == 0, "encode: %s", err);
    tr_sample *t = NULL;
    int m = 0;
    FZ_ASSERT(tr_replay_decode(img, len, board, "re-encoded", &t, &m, err, sizeof err) == 0, "re-encoded chunk: %s", err);
    FZ_ASSERT(m == n, "re-encoded chunk has %d samples, not %d", m, n);
    for (int i = 0; i < n; i++) {
        FZ_ASSERT(zz_pos_equal(&s[i].pos, &t[i].pos) && s[i].pos.ply == t[i].pos.ply && !memcmp(&s[i].z, &t[i].z, 4) &&
                  s[i].full == t[i].full && s[i].gen == t[i].gen && s[i].origin == t[i].origin &&
                  s[i].nvisits == t[i].nvisits, "re-encoded sample %d differs", i);
        FZ_ASSERT(!s[i].nvisits || !memcmp(s[i].visits, t[i].visits, s[i].nvisits * sizeof *s[i].visits),
                  "re-encoded sample %d's visits differ", i);
        tr_sample_clear(&t[i]);
    }
    free(t);
    free(img);
}

/* What the trainer does with them: a batch (which may refuse a sample with a message).  One
 * geometry and one batch per board, kept from input to input as the trainer keeps its own (and
 * building them each time would cost most of a run). */
static void replay_train_batch(zz_board_kind board, const tr_sample *s, int n) {
    static nn_geom geom[ZZ_NBOARDS];
    static nn_batch batch[ZZ_NBOARDS];
    static bool ready[ZZ_NBOARDS];
    if (n == 0) return;
    if (!ready[board]) {
        nn_geom_init(&geom[board], board);
        nn_batch_init(&batch[board]);
        ready[board] = true;
    }
    nn_sample *ns = calloc((size_t)n, sizeof *ns);
    FZ_ASSERT(ns != NULL, "out of memory");
    for (int i = 0; i < n; i++) ns[i] = tr_sample_for_batch(&s[i]);
    char err[256];
    uint64_t rng = 1;
    if (nn_batch_build(&batch[board], &geom[board], ns, n, NULL, &rng, err, sizeof err) != 0) fz_check_message(err, sizeof err);
    free(ns);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    unsigned sel = fz_take_byte(&data, &size);
    zz_board_kind board = (zz_board_kind)((sel >> 1 & 3) % 3);
    unsigned char *img = malloc(size + 4);
    FZ_ASSERT(img != NULL, "out of memory");
    if (size) memcpy(img, data, size);
    size_t len = size;
    if (sel & 1) {
        uint32_t crc = nn_crc32(0, img, size);
        for (int k = 0; k < 4; k++) img[len++] = (unsigned char)(crc >> 8 * k);
    }
    tr_sample *s = NULL;
    int n = -1;
    char err[256];
    if (tr_replay_decode(img, len, board, "fuzz", &s, &n, err, sizeof err) == 0) {
        FZ_ASSERT(n >= 0 && (n == 0 || s != NULL), "%d samples", n);
        replay_roundtrip(board, s, n);
        replay_train_batch(board, s, n);
        for (int i = 0; i < n; i++) tr_sample_clear(&s[i]);
        free(s);
    } else {
        fz_check_message(err, sizeof err);
        FZ_ASSERT(s == NULL, "a failed decode returned samples");
    }
    free(img);
    return 0;
}
