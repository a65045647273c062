/* grow.c — a network made wider and deeper, computing the same function (grow.h). */
#include "nn/grow.h"
#include "nn/util.h"
#include <stdio.h>
#include <string.h>

/* The input and output widths of a weight view (w[T][Ci][Co] or w[Ci][Co]); 1-D views: (1, C). */
static void view_io(const nn_view *v, int *in, int *out) {
    *out = v->dims[v->ndim - 1];
    *in = v->ndim >= 2 ? v->dims[v->ndim - 2] : 1;
}

/* dst's view dv takes sv's elements in its leading corner; for weights (decayed views) an input
 * channel new to dst feeding an output channel that src has gets weight zero. */
static void grow_view(nn_model *dst, const nn_view *dv, const nn_model *src, const nn_view *sv) {
    void *db = dv->stat ? dst->stats : dst->param;
    const void *sb = sv->stat ? src->stats : src->param;
    int si, so, di, dout;
    view_io(sv, &si, &so);
    view_io(dv, &di, &dout);
    int taps = sv->ndim == 3 ? sv->dims[0] : 1;
    for (int t = 0; t < taps; t++)
        for (int i = 0; i < di; i++)
            for (int o = 0; o < dout; o++) {
                size_t d = dv->offset + ((size_t)t * (size_t)di + (size_t)i) * (size_t)dout + (size_t)o;
                if (i < si && o < so)
                    nn_buf_set(dst, db, d, nn_buf_get(src, sb, sv->offset + ((size_t)t * (size_t)si + (size_t)i) * (size_t)so + (size_t)o));
                else if (dv->decay && i >= si && o < so)
                    nn_buf_set(dst, db, d, 0.0);
            }
}

/* Zero a view of dst's parameters. */
static void zero_view(nn_model *dst, const nn_view *v) {
    for (size_t k = 0; k < v->count; k++) nn_buf_set(dst, dst->param, v->offset + k, 0.0);
}

nn_model *nn_model_grow(const nn_model *src, int blocks, int channels, uint64_t seed, char *err, size_t errlen) {
    if (blocks < src->cfg.blocks || channels < src->cfg.channels) {
        nn_set_err(err, errlen, "a %d x %d network cannot grow into %d x %d: blocks and channels can only grow",
                   src->cfg.blocks, src->cfg.channels, blocks, channels);
        return NULL;
    }
    nn_config c = src->cfg;
    c.blocks = blocks;
    c.channels = channels;
    nn_model *dst = nn_model_create(&c, src->dtype, seed, err, errlen);
    if (!dst) return NULL;
    for (int k = 0; k < src->nviews; k++) {
        const nn_view *sv = &src->views[k];
        const nn_view *dv = nn_model_view(dst, sv->name);
        if (!dv || dv->ndim != sv->ndim || (sv->ndim == 3 && dv->dims[0] != sv->dims[0])) {
            nn_set_err(err, errlen, "grow: the %s tensor has no counterpart", sv->name);
            nn_model_free(dst);
            return NULL;
        }
        grow_view(dst, dv, src, sv);
    }
    for (int b = src->cfg.blocks; b < blocks; b++) {       /* new blocks: the identity */
        zero_view(dst, &dst->views[dst->block[b].bn2.gamma]);
        zero_view(dst, &dst->views[dst->block[b].bn2.beta]);
    }
    memset(dst->mom, 0, dst->nparams * dst->esize);
    return dst;
}
