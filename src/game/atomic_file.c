/* atomic_file.c — see atomic_file.h. */
#include "atomic_file.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* All of buf to fd.  0, or -1 with "PATH: cause". */
static int write_all(int fd, const char *path, const void *buf, size_t len, char *err, size_t errlen) {
    const char *p = buf;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) { snprintf(err, errlen, "%s: %s", path, w < 0 ? strerror(errno) : "short write"); return -1; }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* A target that is no regular file (/dev/stdout, a pipe) cannot be replaced: written straight. */
static int write_in_place(const char *path, const void *buf, size_t len, char *err, size_t errlen) {
    int fd = open(path, O_WRONLY);
    if (fd < 0) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); return -1; }
    int rc = write_all(fd, path, buf, len, err, errlen);
    if (close(fd) != 0 && rc == 0) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); rc = -1; }
    return rc;
}

/* Write path through a temporary file beside it, renamed over it (atomic_file.h). */
static int replace_file(const char *path, const void *buf, size_t len, char *err, size_t errlen) {
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (!tmp) { snprintf(err, errlen, "%s: out of memory", path); return -1; }
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); free(tmp); return -1; }
    if (write_all(fd, path, buf, len, err, errlen) != 0) { close(fd); unlink(tmp); free(tmp); return -1; }
    int e = fsync(fd) != 0 ? errno : 0;
    if (close(fd) != 0 && !e) e = errno;
    if (e) {
        snprintf(err, errlen, "%s: %s", path, strerror(e));
        unlink(tmp); free(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        unlink(tmp); free(tmp);
        return -1;
    }
    free(tmp);
    /* make the rename itself durable */
    char *dir = strdup(path);
    if (dir) {
        char *slash = strrchr(dir, '/');
        if (slash) *slash = 0; else strcpy(dir, ".");
        int dfd = open(dir, O_RDONLY | O_DIRECTORY);
        if (dfd >= 0) { fsync(dfd); close(dfd); }
        free(dir);
    }
    return 0;
}

int zz_write_file_atomic(const char *path, const void *buf, size_t len, char *err, size_t errlen) {
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) { snprintf(err, errlen, "%s: %s", path, strerror(EISDIR)); return -1; }
        return write_in_place(path, buf, len, err, errlen);
    }
    char *real = NULL;                  /* a link is written through: its target is replaced, not it */
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && (real = realpath(path, NULL))) path = real;
    int rc = replace_file(path, buf, len, err, errlen);
    free(real);
    return rc;
}

void *zz_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen) {
    FILE *f = fopen(path, "rb");
    if (!f) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); return NULL; }
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        fclose(f);
        return NULL;
    }
    if ((size_t)st.st_size > max) {
        snprintf(err, errlen, "%s: file too large", path);
        fclose(f);
        return NULL;
    }
    size_t n = (size_t)st.st_size;
    char *buf = malloc(n + 1);
    if (!buf) { snprintf(err, errlen, "%s: out of memory", path); fclose(f); return NULL; }
    if (fread(buf, 1, n, f) != n) {
        snprintf(err, errlen, "%s: read error: %s", path, ferror(f) ? strerror(errno) : "the file shrank while read");
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}

int zz_mkdirs(const char *path, char *err, size_t errlen) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; ; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (mkdir(buf, 0755) != 0 && errno != EEXIST) { snprintf(err, errlen, "%s: %s", buf, strerror(errno)); return -1; }
            *p = c;
            if (!c) break;
        }
    }
    return 0;
}

bool zz_same_file(const char *a, const char *b) {
    struct stat sa, sb;
    return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* path's folder ("." when it names none, "/" for a name at the root) into out; its last name. */
static const char *split_path(const char *path, char *out, size_t n) {
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(out, n, ".");
    else if (slash == path) snprintf(out, n, "/");
    else snprintf(out, n, "%.*s", (int)(slash - path), path);
    return slash ? slash + 1 : path;
}

bool zz_same_path(const char *a, const char *b) {
    if (!a || !b) return false;
    if (zz_same_file(a, b)) return true;
    char da[4096], db[4096];
    const char *na = split_path(a, da, sizeof da), *nb = split_path(b, db, sizeof db);
    return strcmp(na, nb) == 0 && zz_same_file(da, db);
}

int zz_check_regular_file(const char *path, long long max, char *err, size_t errlen) {
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    if (!S_ISREG(st.st_mode)) { snprintf(err, errlen, "not a regular file"); return -1; }
    if ((long long)st.st_size > max) { snprintf(err, errlen, "larger than %lld MiB", max >> 20); return -1; }
    return 0;
}
