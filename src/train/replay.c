/* replay.c — the persisted replay buffer (see replay.h). */
#include "train/replay.h"
#include "train/atomic_file.h"
#include "nn/binio.h"
#include "nn/util.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { REPLAY_VERSION = 3 };      /* 2: gen and origin per sample; 3: the game's final captures; 1 and 2 are still read */
static const char MAGIC[8] = { 'Z', 'Z', 'R', 'E', 'P', 'L', 'A', 'Y' };

void tr_sample_clear(tr_sample *s) {
    free(s->visits);
    s->visits = NULL;
    s->nvisits = 0;
}

static int copy_sample(tr_sample *dst, const tr_sample *src) {
    *dst = *src;
    dst->visits = NULL;
    if (src->nvisits) {
        dst->visits = malloc(sizeof *dst->visits * src->nvisits);
        if (!dst->visits) return -1;
        memcpy(dst->visits, src->visits, sizeof *dst->visits * src->nvisits);
    }
    return 0;
}

/* Put a sample into the window (taking ownership of its visits). */
static void push_window(tr_replay *r, tr_sample *s) {
    if (r->count == r->capacity) {
        tr_sample_clear(&r->ring[r->head]);
        r->ring[r->head] = *s;
        r->head = (r->head + 1) % r->capacity;
    } else {
        r->ring[(r->head + r->count++) % r->capacity] = *s;
    }
}

/* ---- encoding ------------------------------------------------------------------------------- */
/* zz_bits (128 bits) as 16 little-endian bytes */
static void put_bits(nn_wbuf *b, zz_bits s) {
    unsigned char c[16];
    for (int i = 0; i < 16; i++) c[i] = (unsigned char)(s >> 8 * i);
    nn_put_bytes(b, c, 16);
}

static zz_bits get_bits(nn_rbuf *b) {
    const unsigned char *q = nn_take(b, 16);
    zz_bits s = 0;
    if (q) for (int i = 15; i >= 0; i--) s = s << 8 | q[i];
    return s;
}

static void chunk_path(const tr_replay *r, uint32_t id, char *out, size_t n) {
    snprintf(out, n, "%s/chunk-%08u.zzr", r->dir, id);
}

/* Check a chunk image's magic, checksum, version and board; on success b reads the samples and
 * *version, *n, *first are set.  0; -2 when the content is damaged; -1 for a version or board
 * this run cannot take. */
static int open_image(const unsigned char *data, size_t len, zz_board_kind board, const char *what, nn_rbuf *b,
                      uint32_t *version, uint32_t *n, long long *first, char *err, size_t errlen) {
    *b = (nn_rbuf){ data, len, 0, false };
    const unsigned char *magic = nn_take(b, 8);
    if (!magic || memcmp(magic, MAGIC, 8) != 0) { snprintf(err, errlen, "%s: not a replay chunk (bad magic)", what); return -2; }
    if (len < 8 + 4 + 4 + 4 + 8 + 4) { snprintf(err, errlen, "%s: truncated", what); return -2; }
    uint32_t crc_file = nn_le32(data + len - 4);
    if (nn_crc32(0, data, len - 4) != crc_file) { snprintf(err, errlen, "%s: damaged (checksum mismatch)", what); return -2; }
    b->n = len - 4;
    *version = nn_get_u32(b);
    uint32_t bd = nn_get_u32(b);
    *n = nn_get_u32(b);
    *first = (long long)nn_get_u64(b);
    if (*version < 1 || *version > REPLAY_VERSION) {
        snprintf(err, errlen, "%s: version %u, this build reads 1 to %d", what, *version, REPLAY_VERSION);
        return -1;
    }
    if (bd != (uint32_t)board) {
        snprintf(err, errlen, "%s: samples of the %d-ring board, this run is on %d rings", what,
                 bd < ZZ_NBOARDS ? zz_board_get((zz_board_kind)bd)->rings : -1, zz_board_get(board)->rings);
        return -1;
    }
    return 0;
}

/* Read one sample's fixed part (everything but its visits, which follow in b).  0; -2 with a
 * message when it is truncated or not a valid sample. */
static int get_sample(nn_rbuf *b, zz_board_kind board, uint32_t version, const char *what, uint32_t i, tr_sample *s,
                      char *err, size_t errlen) {
    memset(s, 0, sizeof *s);
    s->pos.rings = get_bits(b);
    for (int c = 0; c < 3; c++) s->pos.marble[c] = get_bits(b);
    for (int c = 0; c < 3; c++) s->pos.pool[c] = (uint8_t)nn_get_u8(b);
    for (int p = 0; p < 2; p++) for (int c = 0; c < 3; c++) s->pos.cap[p][c] = (uint8_t)nn_get_u8(b);
    s->pos.to_move = (uint8_t)nn_get_u8(b);
    s->pos.chain = (uint8_t)nn_get_u8(b);
    s->pos.ply = (uint16_t)nn_get_u16(b);
    s->pos.board = (uint8_t)board;
    s->pos.winner = -1;
    uint32_t zb = nn_get_u32(b);
    memcpy(&s->z, &zb, 4);
    s->full = (uint8_t)nn_get_u8(b);
    if (version >= 2) {
        s->gen = nn_get_u32(b);
        s->origin = (uint16_t)nn_get_u16(b);
    }
    if (version >= 3) {               /* before it, unknown (fin.known 0) */
        s->fin.known = (uint8_t)nn_get_u8(b);
        for (int p = 0; p < 2; p++) for (int c = 0; c < 3; c++) s->fin.cap[p][c] = (uint8_t)nn_get_u8(b);
    }
    s->nvisits = (uint16_t)nn_get_u16(b);
    if (b->bad) { snprintf(err, errlen, "%s: truncated or malformed", what); return -2; }
    const char *why = zz_pos_validate(&s->pos);
    float aux[NN_AUX];
    if (!why && (s->fin.known > 1 || (s->fin.known && nn_aux_target(&s->pos, &s->fin, aux) != 0)))
        why = "final captures that cannot follow the position";
    if (why || s->pos.to_move > 1 || !(s->z >= -1 && s->z <= 1)) {
        snprintf(err, errlen, "%s: sample %u: %s", what, i, why ? why : "bad value");
        return -2;
    }
    return 0;
}

/* Read a sample's visits into s (malloc'd).  0; -1 out of memory; -2 truncated. */
static int get_visits(nn_rbuf *b, tr_sample *s, const char *what, char *err, size_t errlen) {
    s->visits = malloc(sizeof *s->visits * (s->nvisits ? s->nvisits : 1));
    if (!s->visits) { snprintf(err, errlen, "out of memory"); return -1; }
    for (int v = 0; v < s->nvisits; v++) { s->visits[v].move = nn_get_u32(b); s->visits[v].count = nn_get_u32(b); }
    if (b->bad) { tr_sample_clear(s); snprintf(err, errlen, "%s: truncated or malformed", what); return -2; }
    return 0;
}

/* Decode one chunk file into the window.  0; -2 when the file's content is damaged (magic,
 * checksum, truncation, a bad sample); -1 for anything else (I/O, memory, board, version). */
static int load_chunk(tr_replay *r, uint32_t id, int *nsamples, long long *first, bool into_window,
                      int skip, char *err, size_t errlen) {
    char path[600];
    chunk_path(r, id, path, sizeof path);
    size_t len;
    unsigned char *data = tr_read_file(path, (size_t)1 << 31, &len, err, errlen);
    if (!data) return -1;
    nn_rbuf b;
    uint32_t version, n;
    int rc = open_image(data, len, r->board, path, &b, &version, &n, first, err, errlen);
    if (rc < 0) goto out;
    rc = -2;
    *nsamples = (int)n;
    for (uint32_t i = 0; i < n; i++) {
        tr_sample s;
        int sr = get_sample(&b, r->board, version, path, i, &s, err, errlen);
        if (sr < 0) { rc = sr; goto out; }
        if ((int)i < skip || !into_window) { nn_take(&b, (size_t)s.nvisits * 8); continue; }
        int vr = get_visits(&b, &s, path, err, errlen);
        if (vr < 0) { rc = vr; goto out; }
        push_window(r, &s);
    }
    if (b.bad || b.at != b.n) { snprintf(err, errlen, "%s: truncated or malformed", path); goto out; }
    rc = 0;
out:
    free(data);
    return rc;
}

int tr_replay_decode(const unsigned char *data, size_t len, zz_board_kind board, const char *what, tr_sample **out,
                     int *nout, char *err, size_t errlen) {
    *out = NULL;
    *nout = 0;
    nn_rbuf b;
    uint32_t version, n;
    long long first;
    if (open_image(data, len, board, what, &b, &version, &n, &first, err, errlen) < 0) return -1;
    /* every sample takes at least 92 bytes: a count beyond the image is damage, not a huge malloc */
    if ((size_t)n > len / 64 + 1) { snprintf(err, errlen, "%s: truncated or malformed", what); return -1; }
    tr_sample *s = calloc(n ? n : 1, sizeof *s);
    if (!s) { snprintf(err, errlen, "out of memory"); return -1; }
    uint32_t i = 0;
    for (; i < n; i++)
        if (get_sample(&b, board, version, what, i, &s[i], err, errlen) < 0 || get_visits(&b, &s[i], what, err, errlen) < 0)
            break;
    if (i == n && (b.bad || b.at != b.n)) snprintf(err, errlen, "%s: truncated or malformed", what);
    else if (i == n) { *out = s; *nout = (int)n; return 0; }
    for (uint32_t k = 0; k < i; k++) tr_sample_clear(&s[k]);
    free(s);
    return -1;
}

int tr_replay_check_file(const char *path, zz_board_kind board, int *n, long long *first, char *err, size_t errlen) {
    size_t len;
    unsigned char *data = tr_read_file(path, (size_t)1 << 31, &len, err, errlen);
    if (!data) return -1;
    nn_rbuf b;
    uint32_t version, count;
    int rc = open_image(data, len, board, path, &b, &version, &count, first, err, errlen);
    tr_sample *s = NULL;
    if (rc == 0 && tr_replay_decode(data, len, board, path, &s, n, err, errlen) != 0)
        rc = strcmp(err, "out of memory") ? -2 : -1;
    for (int i = 0; s && i < *n; i++) tr_sample_clear(&s[i]);
    free(s);
    free(data);
    return rc;
}

static int add_chunk_record(tr_replay *r, uint32_t id, int n) {
    if (r->nchunks == r->cap_chunks) {
        int cap = r->cap_chunks ? 2 * r->cap_chunks : 64;
        void *np = realloc(r->chunks, sizeof *r->chunks * (size_t)cap);
        if (!np) return -1;
        r->chunks = np;
        r->cap_chunks = cap;
    }
    r->chunks[r->nchunks].id = id;
    r->chunks[r->nchunks++].n = n;
    return 0;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int tr_replay_open(tr_replay *r, const char *dir, zz_board_kind board, int capacity, char *err, size_t errlen) {
    memset(r, 0, sizeof *r);
    if (capacity < 1) { snprintf(err, errlen, "replay window must hold at least one sample"); return -1; }
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    r->board = board;
    r->capacity = capacity;
    r->ring = calloc((size_t)capacity, sizeof *r->ring);
    if (!r->ring) { snprintf(err, errlen, "out of memory for a replay window of %d samples", capacity); return -1; }
    if (tr_mkdirs(dir, err, errlen) < 0) return -1;
    DIR *d = opendir(dir);
    if (!d) { snprintf(err, errlen, "%s: %s", dir, strerror(errno)); return -1; }
    uint32_t *ids = NULL;
    int nids = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        unsigned id;
        char tail[8];
        if (sscanf(e->d_name, "chunk-%8u.zz%1[r]", &id, tail) == 2 && strlen(e->d_name) == 18) {
            if (nids == cap) { cap = cap ? 2 * cap : 64; uint32_t *np = realloc(ids, sizeof *ids * (size_t)cap); if (!np) break; ids = np; }
            ids[nids++] = id;
        } else if (strstr(e->d_name, ".zzr.tmp.")) {   /* left by a run killed while writing */
            char p[1024];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    }
    closedir(d);
    if (nids > 1) qsort(ids, (size_t)nids, sizeof *ids, cmp_u32);
    /* newest chunks first, to know which ones the window needs */
    int need = capacity, first_needed = nids;
    long long last_first = 0;
    bool have_last = false;
    for (int i = nids - 1; i >= 0 && need > 0; i--) {
        int n;
        long long first;
        int rc = load_chunk(r, ids[i], &n, &first, false, 0, err, errlen);
        if (rc == -2) {             /* damaged: set it aside, lose only its samples */
            char from[600], to[620];
            chunk_path(r, ids[i], from, sizeof from);
            snprintf(to, sizeof to, "%s.damaged", from);
            if (rename(from, to) != 0) { free(ids); return -1; }
            fprintf(stderr, "zertz: replay: warning: %s; set aside as %s, its samples are lost\n", err, to);
            r->set_aside++;
            memmove(ids + i, ids + i + 1, sizeof *ids * (size_t)(nids - i - 1));
            nids--;
            if (first_needed > i) first_needed--;     /* the later entries moved down by one */
            continue;
        }
        if (rc < 0) { free(ids); return -1; }
        if (!have_last) { last_first = first + n; have_last = true; }
        need -= n;
        first_needed = i;
    }
    for (int i = first_needed; i < nids; i++) {
        int n;
        long long first;
        int skip = 0;
        if (i == first_needed && need < 0) skip = -need;   /* only the newest part of the oldest chunk */
        if (load_chunk(r, ids[i], &n, &first, true, skip, err, errlen) < 0 || add_chunk_record(r, ids[i], n) < 0) {
            free(ids);
            return -1;
        }
    }
    r->total = last_first;
    r->next_chunk = nids ? ids[nids - 1] + 1 : 0;
    free(ids);
    return 0;
}

int tr_replay_add(tr_replay *r, const tr_sample *s, int n, char *err, size_t errlen) {
    if (r->npending + n > r->cap_pending) {
        int cap = r->cap_pending ? r->cap_pending : 256;
        while (cap < r->npending + n) cap *= 2;
        tr_sample *np = realloc(r->pending, sizeof *np * (size_t)cap);
        if (!np) { snprintf(err, errlen, "out of memory"); return -1; }
        r->pending = np;
        r->cap_pending = cap;
    }
    for (int i = 0; i < n; i++) {
        tr_sample a, b;
        if (copy_sample(&a, &s[i]) < 0 || copy_sample(&b, &s[i]) < 0) { snprintf(err, errlen, "out of memory"); return -1; }
        push_window(r, &a);
        r->pending[r->npending++] = b;
    }
    return 0;
}

int tr_replay_encode(zz_board_kind board, long long first, const tr_sample *smp, int n, unsigned char **out,
                     size_t *len, char *err, size_t errlen) {
    nn_wbuf b = { 0 };
    nn_put_bytes(&b, MAGIC, 8);
    nn_put_u32(&b, REPLAY_VERSION);
    nn_put_u32(&b, (uint32_t)board);
    nn_put_u32(&b, (uint32_t)n);
    nn_put_u64(&b, (uint64_t)first);
    for (int i = 0; i < n; i++) {
        const tr_sample *s = &smp[i];
        put_bits(&b, s->pos.rings);
        for (int c = 0; c < 3; c++) put_bits(&b, s->pos.marble[c]);
        for (int c = 0; c < 3; c++) nn_put_u8(&b, s->pos.pool[c]);
        for (int p = 0; p < 2; p++) for (int c = 0; c < 3; c++) nn_put_u8(&b, s->pos.cap[p][c]);
        nn_put_u8(&b, s->pos.to_move);
        nn_put_u8(&b, s->pos.chain);
        nn_put_u16(&b, s->pos.ply);
        uint32_t zb;
        memcpy(&zb, &s->z, 4);
        nn_put_u32(&b, zb);
        nn_put_u8(&b, s->full);
        nn_put_u32(&b, s->gen);
        nn_put_u16(&b, s->origin);
        nn_put_u8(&b, s->fin.known);
        for (int p = 0; p < 2; p++) for (int c = 0; c < 3; c++) nn_put_u8(&b, s->fin.cap[p][c]);
        nn_put_u16(&b, s->nvisits);
        for (int v = 0; v < s->nvisits; v++) { nn_put_u32(&b, s->visits[v].move); nn_put_u32(&b, s->visits[v].count); }
    }
    nn_put_u32(&b, b.oom ? 0 : nn_crc32(0, b.p, b.n));
    if (b.oom) { free(b.p); snprintf(err, errlen, "out of memory"); return -1; }
    *out = b.p;
    *len = b.n;
    return 0;
}

int tr_replay_flush(tr_replay *r, char *err, size_t errlen) {
    if (!r->npending) return 0;
    nn_wbuf b = { 0 };
    if (tr_replay_encode(r->board, r->total, r->pending, r->npending, &b.p, &b.n, err, errlen) != 0) return -1;
    char path[600];
    chunk_path(r, r->next_chunk, path, sizeof path);
    int rc = tr_write_file_atomic(path, b.p, b.n, err, errlen);
    free(b.p);
    if (rc < 0 || add_chunk_record(r, r->next_chunk, r->npending) < 0) return -1;
    r->next_chunk++;
    r->total += r->npending;
    for (int i = 0; i < r->npending; i++) tr_sample_clear(&r->pending[i]);
    r->npending = 0;
    /* retention: drop the oldest chunks while the newer ones still cover the window */
    long long covered = 0;
    for (int i = 1; i < r->nchunks; i++) covered += r->chunks[i].n;
    while (r->nchunks > 1 && covered >= r->capacity) {
        chunk_path(r, r->chunks[0].id, path, sizeof path);
        unlink(path);
        memmove(r->chunks, r->chunks + 1, sizeof *r->chunks * (size_t)(r->nchunks - 1));
        r->nchunks--;
        covered -= r->chunks[0].n;
    }
    return 0;
}

int tr_replay_close(tr_replay *r, char *err, size_t errlen) {
    int rc = r->ring ? tr_replay_flush(r, err, errlen) : 0;
    for (int i = 0; i < r->count; i++) tr_sample_clear(&r->ring[(r->head + i) % r->capacity]);
    for (int i = 0; i < r->npending; i++) tr_sample_clear(&r->pending[i]);
    free(r->ring);
    free(r->pending);
    free(r->chunks);
    memset(r, 0, sizeof *r);
    return rc;
}
