/* binio.c — little-endian write buffer and bounds-checked reader (binio.h). */
#include "nn/binio.h"
#include <stdlib.h>
#include <string.h>

void nn_put_bytes(nn_wbuf *b, const void *src, size_t n) {
    if (b->oom) return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->n + n) cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) { b->oom = true; return; }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}

void nn_put_u8(nn_wbuf *b, unsigned v) {
    unsigned char c = (unsigned char)v;
    nn_put_bytes(b, &c, 1);
}

void nn_put_u16(nn_wbuf *b, unsigned v) {
    unsigned char c[2] = { (unsigned char)v, (unsigned char)(v >> 8) };
    nn_put_bytes(b, c, 2);
}

void nn_put_u32(nn_wbuf *b, uint32_t v) {
    unsigned char c[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24) };
    nn_put_bytes(b, c, 4);
}

void nn_put_u64(nn_wbuf *b, uint64_t v) {
    nn_put_u32(b, (uint32_t)v);
    nn_put_u32(b, (uint32_t)(v >> 32));
}

void nn_put_f32(nn_wbuf *b, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    nn_put_u32(b, u);
}

void nn_put_f64(nn_wbuf *b, double d) {
    uint64_t u;
    memcpy(&u, &d, 8);
    nn_put_u64(b, u);
}

const unsigned char *nn_take(nn_rbuf *r, size_t n) {
    if (r->bad || r->at > r->n || n > r->n - r->at) { r->bad = true; return NULL; }
    const unsigned char *p = r->p + r->at;
    r->at += n;
    return p;
}

uint32_t nn_le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

unsigned nn_get_u8(nn_rbuf *r) {
    const unsigned char *p = nn_take(r, 1);
    return p ? p[0] : 0;
}

unsigned nn_get_u16(nn_rbuf *r) {
    const unsigned char *p = nn_take(r, 2);
    return p ? (unsigned)(p[0] | p[1] << 8) : 0;
}

uint32_t nn_get_u32(nn_rbuf *r) {
    const unsigned char *p = nn_take(r, 4);
    return p ? nn_le32(p) : 0;
}

uint64_t nn_get_u64(nn_rbuf *r) {
    uint64_t lo = nn_get_u32(r);
    return lo | (uint64_t)nn_get_u32(r) << 32;
}

float nn_get_f32(nn_rbuf *r) {
    uint32_t u = nn_get_u32(r);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

double nn_get_f64(nn_rbuf *r) {
    uint64_t u = nn_get_u64(r);
    double d;
    memcpy(&d, &u, 8);
    return d;
}
