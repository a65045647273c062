/* fuzz_checkpoint.c — libFuzzer target: network checkpoints (nn_checkpoint_info and
 * nn_checkpoint_load, src/nn/checkpoint.h), which every tool that plays or trains a network reads
 * (`puct:FILE`, weights/, a run's gen-NNNN.ckpt).  The file is a memfd holding the input.
 * Selector byte: bit 0 set = the rest is the file up to its checksum, and the harness appends the
 * right CRC-32 (so that the fuzzer gets past the checksum to the header and tensors); bit 1 =
 * load as float64.  A file that loads must give a model of the architecture its header states. */
#include "fuzz.h"
#include "nn/checkpoint.h"
#include "nn/util.h"

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
