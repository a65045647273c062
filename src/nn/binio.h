/* binio.h — the little-endian byte encoding of our file formats (checkpoint.h's model files,
 * src/train/replay.h's chunks): a growable write buffer that remembers running out of memory, and
 * a bounds-checked reader that remembers running past its end, so that a format is written or read
 * field by field and checked once at the end (b.oom, r.bad).  A read past the end gives 0. */
#ifndef NN_BINIO_H
#define NN_BINIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes written so far (p, n); start with { 0 }, free p when done.  oom: a put failed (and every
 * later put did nothing). */
typedef struct { unsigned char *p; size_t n, cap; bool oom; } nn_wbuf;

/* Append n bytes as they are; v in 1, 2, 4 or 8 little-endian bytes; f, d by their IEEE bits. */
void nn_put_bytes(nn_wbuf *b, const void *src, size_t n);
void nn_put_u8(nn_wbuf *b, unsigned v);
void nn_put_u16(nn_wbuf *b, unsigned v);
void nn_put_u32(nn_wbuf *b, uint32_t v);
void nn_put_u64(nn_wbuf *b, uint64_t v);
void nn_put_f32(nn_wbuf *b, float f);
void nn_put_f64(nn_wbuf *b, double d);

/* Reads bytes p[at..n); bad: a read went past n (and every later read gives 0). */
typedef struct { const unsigned char *p; size_t n, at; bool bad; } nn_rbuf;

/* The next n bytes (NULL, and r->bad set, when fewer are left). */
const unsigned char *nn_take(nn_rbuf *r, size_t n);
/* The next value, written as by nn_put_*. */
unsigned nn_get_u8(nn_rbuf *r);
unsigned nn_get_u16(nn_rbuf *r);
uint32_t nn_get_u32(nn_rbuf *r);
uint64_t nn_get_u64(nn_rbuf *r);
float nn_get_f32(nn_rbuf *r);
double nn_get_f64(nn_rbuf *r);

/* The little-endian u32 at p (e.g. a file's trailing checksum). */
uint32_t nn_le32(const unsigned char *p);

#endif
