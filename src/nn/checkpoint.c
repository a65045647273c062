/* checkpoint.c — save and load model files (format in checkpoint.h). */
#include "nn/checkpoint.h"
#include "nn/binio.h"
#include "nn/util.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libgen.h>

static const char MAGIC[8] = { 'Z', 'Z', 'N', 'N', 'C', 'K', 'P', 'T' };
enum { HEADER_BYTES = 64, KIND_PARAM = 0, KIND_STAT = 1, KIND_MOM = 2, MAX_FILE = 1 << 30 };

/* ---- save ---- */

static void put_tensor(nn_wbuf *b, const nn_model *m, const nn_view *v, int kind, const void *buf)
{
    nn_put_u8(b, (unsigned)kind);
    size_t len = strlen(v->name);
    nn_put_u8(b, (unsigned)len);
    nn_put_bytes(b, v->name, len);
    nn_put_u8(b, (unsigned)v->ndim);
    for (int d = 0; d < v->ndim; d++) nn_put_u32(b, (uint32_t)v->dims[d]);
    for (size_t k = 0; k < v->count; k++) {
        if (m->dtype == NN_F64) nn_put_f64(b, ((const double *)buf)[v->offset + k]);
        else nn_put_f32(b, ((const float *)buf)[v->offset + k]);
    }
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) { if (errno == EINTR) continue; return -1; }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int nn_checkpoint_save(const char *path, const nn_model *m, long step, bool with_momenta,
                       char *err, size_t errlen)
{
    nn_wbuf b = { 0 };
    const nn_config *c = &m->cfg;
    nn_put_bytes(&b, MAGIC, 8);
    nn_put_u32(&b, NN_CKPT_VERSION);
    nn_put_u32(&b, HEADER_BYTES);
    size_t h0 = b.n;
    int ntensors = 0;
    for (int i = 0; i < m->nviews; i++) ntensors += 1 + (with_momenta && !m->views[i].stat);
    nn_put_u32(&b, m->dtype == NN_F64 ? 1 : 0);
    nn_put_u32(&b, (uint32_t)c->board);
    nn_put_u32(&b, NN_PLANES);
    nn_put_u32(&b, (uint32_t)c->channels);
    nn_put_u32(&b, (uint32_t)c->blocks);
    nn_put_u32(&b, (uint32_t)c->policy_channels);
    nn_put_u32(&b, (uint32_t)c->value_channels);
    nn_put_u32(&b, (uint32_t)c->value_hidden);
    nn_put_f32(&b, c->bn_momentum);
    nn_put_f32(&b, c->bn_eps);
    nn_put_u64(&b, (uint64_t)step);
    nn_put_u32(&b, with_momenta ? 1 : 0);
    nn_put_u32(&b, (uint32_t)ntensors);
    nn_put_u32(&b, (uint32_t)c->aux_outputs);
    while (b.n < h0 + HEADER_BYTES) nn_put_u8(&b, 0);
    for (int i = 0; i < m->nviews; i++) {
        const nn_view *v = &m->views[i];
        put_tensor(&b, m, v, v->stat ? KIND_STAT : KIND_PARAM, v->stat ? m->stats : m->param);
    }
    if (with_momenta)
        for (int i = 0; i < m->nviews; i++)
            if (!m->views[i].stat) put_tensor(&b, m, &m->views[i], KIND_MOM, m->mom);
    nn_put_u32(&b, nn_crc32(0, b.p, b.n));
    if (b.oom) { free(b.p); nn_set_err(err, errlen, "%s: out of memory", path); return -1; }

    size_t plen = strlen(path);
    char *tmp = malloc(plen + 32), *dcopy = strdup(path);
    if (!tmp || !dcopy) { free(b.p); free(tmp); free(dcopy); nn_set_err(err, errlen, "%s: out of memory", path); return -1; }
    snprintf(tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());
    int rc = -1;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        nn_set_err(err, errlen, "%s: cannot create: %s", tmp, strerror(errno));
    } else if (write_all(fd, b.p, b.n) || fsync(fd)) {
        nn_set_err(err, errlen, "%s: write failed: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
    } else if (close(fd)) {
        nn_set_err(err, errlen, "%s: close failed: %s", tmp, strerror(errno));
        unlink(tmp);
    } else if (rename(tmp, path)) {
        nn_set_err(err, errlen, "%s: cannot rename into place: %s", path, strerror(errno));
        unlink(tmp);
    } else {
        int dfd = open(dirname(dcopy), O_RDONLY | O_DIRECTORY);
        if (dfd >= 0) { fsync(dfd); close(dfd); }
        rc = 0;
    }
    free(tmp);
    free(dcopy);
    free(b.p);
    return rc;
}

/* ---- load ---- */

typedef struct {
    nn_config cfg;
    nn_dtype dtype;
    long step;
    bool momenta;
    uint32_t ntensors;
} header;

/* Bytes of the stem's and the residual tower's convolution weights alone, at es bytes an element:
 * a lower bound on any file that holds the network. */
static double tower_bytes(const nn_config *c, size_t es)
{
    return (double)es * NN_TAPS * c->channels * (2.0 * c->blocks * c->channels + NN_PLANES);
}

/* Read the whole file; check size, magic, version and CRC; parse the header (and that the file is
 * big enough for the architecture it states). */
static unsigned char *read_checked(const char *path, size_t *len, header *h, nn_rbuf *r, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) { nn_set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno)); return NULL; }
    unsigned char *data = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 1 << 20;
            if (cap > (size_t)MAX_FILE * 2) { nn_set_err(err, errlen, "%s: file too large", path); goto fail; }
            unsigned char *p = realloc(data, cap);
            if (!p) { nn_set_err(err, errlen, "%s: out of memory", path); goto fail; }
            data = p;
        }
        size_t k = fread(data + n, 1, cap - n, f);
        n += k;
        if (n >= 8 && memcmp(data, MAGIC, 8)) break;    /* not a checkpoint: read no further (/dev/zero) */
        if (k == 0) break;
    }
    if (ferror(f)) { nn_set_err(err, errlen, "%s: read error: %s", path, strerror(errno)); goto fail; }
    fclose(f);
    f = NULL;
    if (n < 16 + HEADER_BYTES + 4) { nn_set_err(err, errlen, "%s: truncated (%zu bytes): not a checkpoint", path, n); goto fail; }
    if (memcmp(data, MAGIC, 8)) { nn_set_err(err, errlen, "%s: not a zertz network checkpoint (bad magic)", path); goto fail; }
    *r = (nn_rbuf){ data, n - 4, 8, false };
    uint32_t version = nn_get_u32(r), hbytes = nn_get_u32(r);
    if (version != NN_CKPT_VERSION) { nn_set_err(err, errlen, "%s: checkpoint version %u, this build reads %d", path, version, NN_CKPT_VERSION); goto fail; }
    uint32_t stored = nn_le32(data + n - 4);
    if (nn_crc32(0, data, n - 4) != stored) { nn_set_err(err, errlen, "%s: checksum mismatch: the file is damaged or truncated", path); goto fail; }
    if (hbytes < 52 || hbytes > n - 20) { nn_set_err(err, errlen, "%s: bad header size %u", path, hbytes); goto fail; }
    size_t h0 = r->at;
    uint32_t dtype = nn_get_u32(r), board = nn_get_u32(r), planes = nn_get_u32(r);
    memset(h, 0, sizeof *h);
    h->cfg.board = (zz_board_kind)board;
    h->cfg.channels = (int)nn_get_u32(r);
    h->cfg.blocks = (int)nn_get_u32(r);
    h->cfg.policy_channels = (int)nn_get_u32(r);
    h->cfg.value_channels = (int)nn_get_u32(r);
    h->cfg.value_hidden = (int)nn_get_u32(r);
    h->cfg.bn_momentum = nn_get_f32(r);
    h->cfg.bn_eps = nn_get_f32(r);
    h->step = (long)nn_get_u64(r);
    h->momenta = nn_get_u32(r) & 1;
    h->ntensors = nn_get_u32(r);
    h->cfg.aux_outputs = hbytes >= 60 ? (int)nn_get_u32(r) : 0;   /* zero padding in files before the head */
    r->at = h0 + hbytes;
    if (dtype > 1) { nn_set_err(err, errlen, "%s: unknown element type %u", path, dtype); goto fail; }
    h->dtype = dtype ? NN_F64 : NN_F32;
    if (planes != NN_PLANES) { nn_set_err(err, errlen, "%s: made for %u input planes, this encoder has %d", path, planes, NN_PLANES); goto fail; }
    char cerr[160];
    if (nn_config_check(&h->cfg, cerr, sizeof cerr)) { nn_set_err(err, errlen, "%s: bad architecture: %s", path, cerr); goto fail; }
    double need = tower_bytes(&h->cfg, dtype ? 8 : 4);
    if (need > (double)n) {         /* before any model is made for it: the header may ask for gigabytes */
        nn_set_err(err, errlen, "%s: %zu bytes cannot hold the network its header describes (%d blocks x %d channels: "
                   "at least %.0f bytes of convolution weights)", path, n, h->cfg.blocks, h->cfg.channels, need);
        goto fail;
    }
    *len = n;
    return data;
fail:
    if (f) fclose(f);
    free(data);
    return NULL;
}

static int load_tensors(nn_model *m, const header *h, nn_rbuf *r, const char *path, char *err, size_t errlen)
{
    char *seen = calloc((size_t)m->nviews * 3, 1);
    if (!seen) { nn_set_err(err, errlen, "%s: out of memory", path); return -1; }
    int rc = -1;
    size_t es = h->dtype == NN_F64 ? 8 : 4;
    memset(m->mom, 0, m->nparams * m->esize);      /* files without momenta start SGD afresh */
    for (uint32_t k = 0; k < h->ntensors; k++) {
        unsigned kind = nn_get_u8(r), len = nn_get_u8(r);
        const unsigned char *np = nn_take(r, len);
        if (r->bad) { nn_set_err(err, errlen, "%s: truncated in tensor %u", path, k); goto out; }
        char name[256];
        memcpy(name, np, len);
        name[len] = 0;
        const nn_view *v = nn_model_view(m, name);
        if (!v || kind > KIND_MOM || (kind == KIND_STAT) != v->stat) {
            nn_set_err(err, errlen, "%s: tensor '%s' is not part of this network", path, name);
            goto out;
        }
        unsigned ndim = nn_get_u8(r);
        bool shape_ok = ndim == (unsigned)v->ndim;
        for (unsigned d = 0; d < ndim; d++) {
            uint32_t dim = nn_get_u32(r);
            if (d < (unsigned)v->ndim && dim != (uint32_t)v->dims[d]) shape_ok = false;
        }
        if (r->bad) { nn_set_err(err, errlen, "%s: truncated in tensor '%s'", path, name); goto out; }
        if (!shape_ok) { nn_set_err(err, errlen, "%s: tensor '%s' has another shape", path, name); goto out; }
        if (r->n - r->at < v->count * es) { nn_set_err(err, errlen, "%s: truncated in tensor '%s'", path, name); goto out; }
        void *buf = kind == KIND_STAT ? m->stats : kind == KIND_MOM ? m->mom : m->param;
        for (size_t e = 0; e < v->count; e++) {
            double x = h->dtype == NN_F64 ? nn_get_f64(r) : (double)nn_get_f32(r);
            if (!isfinite(x)) {         /* a diverged run saves these, with a good CRC: it must not play */
                nn_set_err(err, errlen, "%s: tensor '%s' holds a value that is not finite (%g at %zu): the run that "
                           "saved it diverged", path, name, x, e);
                goto out;
            }
            nn_buf_set(m, buf, v->offset + e, x);
        }
        seen[(v - m->views) * 3 + kind] = 1;
    }
    if (r->at != r->n) { nn_set_err(err, errlen, "%s: %zu unexpected bytes after the tensors", path, r->n - r->at); goto out; }
    for (int i = 0; i < m->nviews; i++) {
        int kind = m->views[i].stat ? KIND_STAT : KIND_PARAM;
        if (!seen[i * 3 + kind]) { nn_set_err(err, errlen, "%s: tensor '%s' is missing", path, m->views[i].name); goto out; }
    }
    rc = 0;
out:
    free(seen);
    return rc;
}

int nn_checkpoint_info(const char *path, nn_config *cfg, nn_dtype *dtype, long *step, char *err, size_t errlen)
{
    header h;
    nn_rbuf r;
    size_t n;
    unsigned char *data = read_checked(path, &n, &h, &r, err, errlen);
    if (!data) return -1;
    free(data);
    if (cfg) *cfg = h.cfg;
    if (dtype) *dtype = h.dtype;
    if (step) *step = h.step;
    return 0;
}

int nn_checkpoint_load_into(nn_model *m, const char *path, long *step, char *err, size_t errlen)
{
    header h;
    nn_rbuf r;
    size_t n;
    unsigned char *data = read_checked(path, &n, &h, &r, err, errlen);
    if (!data) return -1;
    int rc = -1;
    if (!nn_config_same_arch(&h.cfg, &m->cfg)) {
        nn_set_err(err, errlen, "%s: architecture mismatch: file has board %d, %d blocks × %d channels "
                   "(policy %d, value %d/%d, captures head %d); the model has board %d, %d × %d (policy %d, value %d/%d, captures head %d)",
                   path, (int)h.cfg.board, h.cfg.blocks, h.cfg.channels, h.cfg.policy_channels,
                   h.cfg.value_channels, h.cfg.value_hidden, h.cfg.aux_outputs, (int)m->cfg.board, m->cfg.blocks,
                   m->cfg.channels, m->cfg.policy_channels, m->cfg.value_channels, m->cfg.value_hidden, m->cfg.aux_outputs);
    } else if (!load_tensors(m, &h, &r, path, err, errlen)) {
        m->cfg.bn_momentum = h.cfg.bn_momentum;
        m->cfg.bn_eps = h.cfg.bn_eps;
        m->tape.bn_momentum = h.cfg.bn_momentum;
        m->tape.bn_eps = h.cfg.bn_eps;
        if (step) *step = h.step;
        rc = 0;
    }
    free(data);
    return rc;
}

nn_model *nn_checkpoint_load(const char *path, nn_dtype dtype, long *step, char *err, size_t errlen)
{
    nn_config cfg;
    if (nn_checkpoint_info(path, &cfg, NULL, NULL, err, errlen)) return NULL;
    nn_model *m = nn_model_create(&cfg, dtype, 0, err, errlen);
    if (!m) return NULL;
    if (nn_checkpoint_load_into(m, path, step, err, errlen)) { nn_model_free(m); return NULL; }
    return m;
}
