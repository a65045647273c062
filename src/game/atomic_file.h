/* atomic_file.h — writing a file so that a crash or a failed write leaves either the old file or
 * the new one, never a part: write a temporary file beside the target (PATH.tmp.PID), fsync it,
 * rename it over the target, fsync the folder; on any failure the temporary file is removed.  With
 * reading a whole file and mkdir -p.  In src/game, the lowest layer, so that every layer above
 * (the arena's game records in src/mcts, the trainer's files in src/train) can use it. */
#ifndef ZZ_ATOMIC_FILE_H
#define ZZ_ATOMIC_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Write path atomically from buf.  Returns 0, or -1 with "PATH: cause" in err (the target is
 * untouched, and no temporary file is left).  A link is written through (its target replaced); a
 * target that is no regular file (/dev/stdout, a pipe) is written straight, not atomically. */
int zz_write_file_atomic(const char *path, const void *buf, size_t len, char *err, size_t errlen);
/* Read a whole file (at most max bytes) into a new buffer, NUL-terminated.  Returns it (free it),
 * or NULL with a message. */
void *zz_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen);
/* Whether a and b name one existing file (the same device and inode: links and other spellings
 * included).  A tool checks its outputs against its inputs with it before it writes. */
bool zz_same_file(const char *a, const char *b);
/* Whether a and b would name one file once written: the same existing file (zz_same_file), or the
 * same name in one folder (its folder compared by device and inode), for two outputs that may not
 * exist yet.  A tool checks its outputs against each other with it. */
bool zz_same_path(const char *a, const char *b);
/* Before reading path whole: 0 when it is a regular file of at most max bytes (or cannot be
 * stat'ed: its opener then says why); -1 with "not a regular file" or "larger than N MiB" in err
 * (a device such as /dev/zero, or a pipe, could be read for ever or block). */
int zz_check_regular_file(const char *path, long long max, char *err, size_t errlen);
/* mkdir -p.  Returns 0, or -1 with a message. */
int zz_mkdirs(const char *path, char *err, size_t errlen);

#endif
