/* atomic_file.h — the training code's names for the file helpers of game/atomic_file.h (atomic
 * writes, whole-file reads, mkdir -p), which live in src/game so that src/mcts can use them too. */
#ifndef TR_ATOMIC_FILE_H
#define TR_ATOMIC_FILE_H

#include "game/atomic_file.h"

/* Write path atomically from buf (zz_write_file_atomic).  Returns 0, or -1 with a message. */
static inline int tr_write_file_atomic(const char *path, const void *buf, size_t len, char *err, size_t errlen) {
    return zz_write_file_atomic(path, buf, len, err, errlen);
}
/* Read a whole file, at most max bytes (zz_read_file).  Returns it (free it), or NULL with a message. */
static inline void *tr_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen) {
    return zz_read_file(path, max, len, err, errlen);
}
/* mkdir -p (zz_mkdirs).  Returns 0, or -1 with a message. */
static inline int tr_mkdirs(const char *path, char *err, size_t errlen) { return zz_mkdirs(path, err, errlen); }

#endif
