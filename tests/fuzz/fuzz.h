/* fuzz.h — small helpers shared by the libFuzzer targets tests/fuzz/fuzz_*.c (and by
 * tests/test_fuzz_regress.c, which includes every target into one program, without libFuzzer):
 * a NUL-terminated copy of the input, the input as a file in memory (memfd) for the loaders
 * that take a path, and a check that aborts (a finding for libFuzzer, a failed test for Check)
 * when a property the target asserts does not hold.  Everything here is static inline, so that
 * several targets can be included into one translation unit. */
#ifndef ZZ_FUZZ_H
#define ZZ_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Abort with a message when cond is false: a property of the parser did not hold. */
#define FZ_ASSERT(cond, ...)                                                          \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "zertz: fuzz: %s:%d: %s: ", __FILE__, __LINE__, #cond);   \
            fprintf(stderr, __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                      \
            abort();                                                                  \
        }                                                                             \
    } while (0)

/* data[0..size) as a malloc'd NUL-terminated string (an embedded NUL ends it early, as it would
 * for any C string the program is given).  Never NULL: aborts when out of memory. */
static inline char *fz_cstr(const uint8_t *data, size_t size) {
    char *s = malloc(size + 1);
    FZ_ASSERT(s != NULL, "out of memory");
    if (size) memcpy(s, data, size);
    s[size] = 0;
    return s;
}

/* The bytes as an anonymous in-memory file: its descriptor (close it when done) and a path that
 * opens it ("/proc/self/fd/N") in path (32 bytes).  Aborts when the kernel cannot make one. */
static inline int fz_memfile(const uint8_t *data, size_t size, char path[32]) {
    int fd = memfd_create("zertz-fuzz", 0);
    FZ_ASSERT(fd >= 0, "memfd_create failed");
    size_t done = 0;
    while (done < size) {
        ssize_t k = write(fd, data + done, size - done);
        FZ_ASSERT(k > 0, "write to a memfd failed");
        done += (size_t)k;
    }
    snprintf(path, 32, "/proc/self/fd/%d", fd);
    return fd;
}

/* Take the first byte of the input as a selector (0 when empty) and advance past it. */
static inline unsigned fz_take_byte(const uint8_t **data, size_t *size) {
    if (*size == 0) return 0;
    unsigned b = (*data)[0];
    (*data)++;
    (*size)--;
    return b;
}

/* A known finding that is not fixed yet (in a file outside tests/fuzz; README.md "Reliability"
 * lists them): under libFuzzer the target skips such inputs, so that a run goes on finding other
 * things; built with ZZ_FUZZ_REGRESS (tests/test_fuzz_regress.c) this is always false and the
 * input takes the real path, so that its regression test says whether it is fixed. */
static inline bool fz_known_open(bool cond) {
#ifdef ZZ_FUZZ_REGRESS
    (void)cond;
    return false;
#else
    return cond;
#endif
}

/* An error message must be a terminated, non-empty C string. */
static inline void fz_check_message(const char *err, size_t errlen) {
    FZ_ASSERT(memchr(err, 0, errlen) != NULL, "unterminated error message");
    FZ_ASSERT(err[0] != 0, "an error without a message");
}

#endif
