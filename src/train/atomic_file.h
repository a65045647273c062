/* atomic_file.h — writing a file so that a crash leaves either the old file or the new one:
 * write a temporary file beside the target, fsync it, rename it over the target, fsync the
 * folder. */
#ifndef TR_ATOMIC_FILE_H
#define TR_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

/* Write path atomically from buf.  Returns 0, or -1 with a message (the target is untouched). */
int tr_write_file_atomic(const char *path, const void *buf, size_t len, char *err, size_t errlen);
/* Read a whole file (at most max bytes) into a new buffer.  Returns it (free it), or NULL with a message. */
void *tr_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen);
/* mkdir -p.  Returns 0, or -1 with a message. */
int tr_mkdirs(const char *path, char *err, size_t errlen);

#endif
