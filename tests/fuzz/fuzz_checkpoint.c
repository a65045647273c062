/* fuzz_checkpoint.c — libFuzzer target: network checkpoints (nn_checkpoint_info and
 * nn_checkpoint_load, src/nn/checkpoint.h), which every tool that plays or trains a network reads
 * (`puct:FILE`, weights/, a run's gen-NNNN.ckpt).  The file is a memfd holding the input.
 * Selector byte: bit 0 set = the rest is the file up to its checksum, and the harness appends the
 * right CRC-32 (so that the fuzzer gets past the checksum to the header and tensors); bit 1 =
 * load as float64.  A file that loads must give a model of the architecture its header states. */
#include "fuzz.h"
#include "nn/checkpoint.h"
#include "nn/util.h"

/* Whether the header asks for a network whose residual tower alone needs more bytes than the
 * file holds: open, nn_checkpoint_load (src/nn/checkpoint.c) creates the model the header
 * describes before it checks that the file can hold its tensors, so a file of a hundred bytes
 * makes it allocate and clear gigabytes (64 blocks of 1024 channels: 11 GiB) before it fails. */
static bool checkpoint_too_big(const uint8_t *f, size_t n) {
    if (n < 48 || memcmp(f, "ZZNNCKPT", 8)) return false;
    uint32_t h[8];
    for (int k = 0; k < 8; k++) h[k] = (uint32_t)f[16 + 4 * k] | (uint32_t)f[17 + 4 * k] << 8 |
                                       (uint32_t)f[18 + 4 * k] << 16 | (uint32_t)f[19 + 4 * k] << 24;
    double es = h[0] ? 8 : 4, c = h[3], blocks = h[4];      /* dtype, board, planes, channels, blocks */
    return es * 7 * c * (c * 2 * blocks + h[2]) > (double)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    unsigned sel = fz_take_byte(&data, &size);
    uint8_t *file = malloc(size + 4);
    FZ_ASSERT(file != NULL, "out of memory");
    if (size) memcpy(file, data, size);
    size_t n = size;
    if (sel & 1) {
        uint32_t crc = nn_crc32(0, file, size);
        for (int k = 0; k < 4; k++) file[n++] = (uint8_t)(crc >> 8 * k);
    }
    if (fz_known_open(checkpoint_too_big(file, n))) {
        free(file);
        return 0;
    }
    char path[32], err[512];
    int fd = fz_memfile(file, n, path);
    nn_config cfg;
    nn_dtype dtype;
    long step = -1;
    int info = nn_checkpoint_info(path, &cfg, &dtype, &step, err, sizeof err);
    if (info != 0) fz_check_message(err, sizeof err);
    nn_model *m = nn_checkpoint_load(path, sel & 2 ? NN_F64 : NN_F32, &step, err, sizeof err);
    if (m) {
        FZ_ASSERT(info == 0 && nn_config_same_arch(&m->cfg, &cfg), "a loaded model whose header did not read");
        nn_model_free(m);
    } else {
        fz_check_message(err, sizeof err);
    }
    close(fd);
    free(file);
    return 0;
}
