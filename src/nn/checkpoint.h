/* checkpoint.h — model files: magic, version, the architecture, named tensors, CRC-32.
 *
 * Layout (little-endian):
 *   "ZZNNCKPT"  u32 version  u32 header_bytes(=64)
 *   header: u32 dtype (0 float32, 1 float64), u32 board, u32 input planes, u32 channels,
 *           u32 blocks, u32 policy channels, u32 value channels, u32 value hidden,
 *           f32 bn momentum, f32 bn eps, u64 SGD step, u32 flags (1: momenta), u32 tensors,
 *           u32 captures head outputs (0 or NN_AUX; zero padding in files made before it)
 *           (+ zero padding to header_bytes)
 *   tensors: u8 kind (0 parameter, 1 BN statistic, 2 SGD momentum), u8 name length, name,
 *            u8 ndim, u32 dims[ndim], then the elements in the file's dtype
 *   u32 CRC-32 of every byte before it.
 * Saving writes a temporary file beside the target, fsyncs it, renames it over the target and
 * fsyncs the directory, so a crash leaves either the old file or the new one.  Loading checks
 * everything and reports what is wrong; it never aborts. */
#ifndef NN_CHECKPOINT_H
#define NN_CHECKPOINT_H

#include "nn/model.h"

enum { NN_CKPT_VERSION = 1 };
#define NN_CHECKPOINT_DIR "weights"     /* where tools keep checkpoints by default (gitignored) */

/* Save m (parameters, BN statistics, and the SGD momenta when with_momenta) with an SGD step
 * count.  Returns 0, or -1 with a message (the target is then untouched). */
int nn_checkpoint_save(const char *path, const nn_model *m, long step, bool with_momenta,
                       char *err, size_t errlen);

/* Read a checkpoint's architecture, element type and step without loading it.  0 or -1. */
int nn_checkpoint_info(const char *path, nn_config *cfg, nn_dtype *dtype, long *step,
                       char *err, size_t errlen);

/* Load a checkpoint into a new model of element type dtype (converting when the file's differs).
 * *step (if not NULL) receives the SGD step.  Returns NULL with a message on any problem. */
nn_model *nn_checkpoint_load(const char *path, nn_dtype dtype, long *step, char *err, size_t errlen);

/* Load into an existing model, whose architecture must match the file's.  On error returns -1 with
 * a message and the model may hold part of the file: reload or discard it. */
int nn_checkpoint_load_into(nn_model *m, const char *path, long *step, char *err, size_t errlen);

#endif
