/* eval_cuda.c — the network on the GPU as a search evaluator (mcts/evaluator.h), the twin of
 * src/mcts/eval_nn.c: positions encoded on the CPU, the folded net run by zz_cuda_infer, priors the
 * softmax of the factorised policy over each position's legal moves (nn/policy.h), value the net's
 * tanh output for the mover.  mcts_eval_net_auto picks the GPU when one is usable (zz_cuda_select),
 * else the CPU evaluator, and falls back to the CPU for good if the GPU fails later (a warning on
 * stderr; the evaluator's name says so).  Compiles and links without CUDA (the GPU constructors
 * then fail). */
#include "cuda/infer_cuda.h"
#include "cuda/backend.h"
#include "mcts/eval_net.h"
#include "nn/checkpoint.h"
#include "nn/policy.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CUDA_EVAL_MAX_BATCH = 1024 };

typedef struct {
    zz_cuda_infer *inf;
    zz_pos *pos;                 /* [CUDA_EVAL_MAX_BATCH] positions, contiguous */
    float *logits;               /* [CUDA_EVAL_MAX_BATCH][P][NN_HEADS] */
    float *values;               /* [CUDA_EVAL_MAX_BATCH] */
    char name[128];
} cuda_ctx;

int zz_cuda_net_run(void *net, const zz_pos *pos, int n, float *logits, float *values, char *err, size_t errlen)
{
    return zz_cuda_infer_positions(net, pos, n, logits, values, err, errlen);
}

static int cuda_eval(mcts_evaluator *self, mcts_eval_item *items, int n, char *err, size_t errlen)
{
    cuda_ctx *c = self->ctx;
    return mcts_eval_net_items(zz_cuda_infer_geom(c->inf), zz_cuda_net_run, c->inf, items, n, c->pos, c->logits, c->values,
                               NULL /* no cache: untried on a GPU */, false, err, errlen);
}

static void cuda_destroy(mcts_evaluator *self)
{
    cuda_ctx *c = self->ctx;
    if (c) {
        zz_cuda_infer_free(c->inf);
        free(c->pos);
        free(c->logits);
        free(c->values);
        free(c);
    }
    free(self);
}

mcts_evaluator *mcts_eval_cuda_from_model(const nn_model *m, const char *name, char *err, size_t errlen)
{
    char why[320];
    mcts_evaluator *e = calloc(1, sizeof *e);
    cuda_ctx *c = calloc(1, sizeof *c);
    if (!e || !c) { free(e); free(c); snprintf(err, errlen, "out of memory"); return NULL; }
    c->inf = zz_cuda_infer_create(m, CUDA_EVAL_MAX_BATCH, ZZ_CUDA_GRAPHS, why, sizeof why);
    if (!c->inf) { free(c); free(e); snprintf(err, errlen, "%s", why); return NULL; }
    e->ctx = c;
    e->destroy = cuda_destroy;
    const nn_geom *g = zz_cuda_infer_geom(c->inf);
    c->pos = malloc(CUDA_EVAL_MAX_BATCH * sizeof *c->pos);
    c->logits = malloc((size_t)CUDA_EVAL_MAX_BATCH * g->ncells * NN_HEADS * sizeof *c->logits);
    c->values = malloc(CUDA_EVAL_MAX_BATCH * sizeof *c->values);
    if (!c->pos || !c->logits || !c->values) { cuda_destroy(e); snprintf(err, errlen, "out of memory"); return NULL; }
    snprintf(c->name, sizeof c->name, "%s", name ? name : "nn-cuda");
    e->name = c->name;
    e->max_batch = CUDA_EVAL_MAX_BATCH;
    e->evaluate = cuda_eval;
    return e;
}

mcts_evaluator *mcts_eval_cuda_new(const char *path, char *err, size_t errlen)
{
    char why[320], name[64];
    long step = 0;
    nn_model *m = nn_checkpoint_load(path, NN_F32, &step, why, sizeof why);
    if (!m) { snprintf(err, errlen, "%s", why); return NULL; }
    snprintf(name, sizeof name, "nn-cuda(step %ld)", step);
    mcts_evaluator *e = mcts_eval_cuda_from_model(m, name, err, errlen);
    nn_model_free(m);
    return e;
}

/* mcts_eval_net_auto's GPU evaluator: the GPU one until it fails, then the CPU one from the same
 * checkpoint, for good. */
typedef struct {
    mcts_evaluator *gpu, *cpu;   /* cpu: NULL until the GPU failed */
    char *path;
    char name[400];
} auto_ctx;

static int auto_eval(mcts_evaluator *self, mcts_eval_item *items, int n, char *err, size_t errlen)
{
    auto_ctx *c = self->ctx;
    if (!c->cpu) {
        char gerr[320];
        if (mcts_evaluate(c->gpu, items, n, gerr, sizeof gerr) == 0) return 0;
        char cerr[320];
        if (!(c->cpu = mcts_eval_nn_new(c->path, cerr, sizeof cerr))) {
            snprintf(err, errlen, "the GPU network failed (%.150s), and the CPU one could not start: %.150s", gerr, cerr);
            return -1;
        }
        fprintf(stderr, "zertz: warning: the GPU network failed (%s); evaluating on the CPU from now on\n", gerr);
        snprintf(c->name, sizeof c->name, "%s (CPU fallback: the GPU failed: %.300s)", c->cpu->name, gerr);
        self->name = c->name;
    }
    return mcts_evaluate(c->cpu, items, n, err, errlen);
}

static void auto_destroy(mcts_evaluator *self)
{
    auto_ctx *c = self->ctx;
    if (c) {
        mcts_evaluator_free(c->gpu);
        mcts_evaluator_free(c->cpu);
        free(c->path);
        free(c);
    }
    free(self);
}

mcts_evaluator *mcts_eval_net_auto(const char *path, char *backend, size_t n, char *err, size_t errlen)
{
    char why[320];
    if (zz_cuda_select(why, sizeof why)) {
        char gerr[320];
        mcts_evaluator *g = mcts_eval_cuda_new(path, gerr, sizeof gerr);
        if (g) {
            mcts_evaluator *e = calloc(1, sizeof *e);
            auto_ctx *c = calloc(1, sizeof *c);
            char *p = strdup(path);
            if (!e || !c || !p) {
                free(e); free(c); free(p);
                mcts_evaluator_free(g);
                snprintf(err, errlen, "out of memory");
                return NULL;
            }
            c->gpu = g;
            c->path = p;
            snprintf(c->name, sizeof c->name, "%s", g->name);
            *e = (mcts_evaluator){ .name = c->name, .max_batch = g->max_batch, .evaluate = auto_eval,
                                   .destroy = auto_destroy, .ctx = c };
            if (backend && n) snprintf(backend, n, "%s", why);
            return e;
        }
        snprintf(why, sizeof why, "cpu: the GPU evaluator failed: %.280s", gerr);
    }
    if (backend && n) snprintf(backend, n, "%s", why);
    return mcts_eval_nn_new(path, err, errlen);
}
