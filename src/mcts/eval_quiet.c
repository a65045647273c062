/* eval_quiet.c — leaf values taken at quiet positions (mcts_eval_quiet_new, evaluator.h).
 *
 * A position whose mover must capture (zz_must_capture) is the middle of an exchange, and the
 * network judges such positions badly: after a sacrifice that forces a capture and sets up a
 * double capture in reply, the shipped 37-ring network valued the position +0.80 for the side
 * about to lose two marbles (weights/LADDER.md, "Leaves in the middle of an exchange").  PUCT
 * visits such a reply once, believes the bad value and never comes back.
 *
 * This evaluator keeps the inner evaluator's priors for every item, and for an item whose mover
 * must capture it replaces the value: the captures are played out, every choice of every capture
 * by either side (the capture tree), down to quiet positions (no capture pending) or finished
 * games; the quiet ones are valued by the inner evaluator in one batch, the finished ones exactly
 * (+1 / -1 / 0), and the tree is minimaxed up (each mover takes its best capture).  A capture tree
 * of more than max_nodes positions is not played out: that item keeps the inner value.
 *
 * Shapes: per call, n items; node scratch n × max_nodes at most; leaf batch the quiet positions of
 * all played-out trees, with their legal moves and priors (the inner evaluator's interface). */
#include "evaluator.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    zz_pos pos;
    int32_t first, count;           /* children nodes[first .. first + count); count 0: no children */
    int32_t leaf;                   /* a quiet position: its index in the leaf batch; else -1 */
    float value;                    /* for pos.to_move */
} quiet_node;

typedef struct {
    mcts_evaluator *inner;
    bool own;
    int max_nodes;
    char name[96];
    quiet_node *nodes;              /* scratch: every played-out tree of one call, one after another */
    size_t cap_nodes;
    int *root_of;                   /* per item: its tree's first node, -1 when not played out */
    int *size_of;                   /* per item: its tree's number of nodes */
    size_t cap_roots, cap_sizes;
    mcts_eval_item *leaves;         /* the quiet positions of one call */
    size_t cap_leaves;
    zz_move *leaf_moves;            /* their legal moves, one after another */
    float *leaf_priors;
    size_t cap_moves, cap_priors;
} quiet_ctx;

/* Grow *p to hold at least need elements of size sz (doubling).  false when out of memory. */
static bool reserve(void **p, size_t *cap, size_t need, size_t sz) {
    if (need <= *cap) return true;
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *q = realloc(*p, c * sz);
    if (!q) return false;
    *p = q;
    *cap = c;
    return true;
}

/* The value of a finished game for p->to_move. */
static float finished_value(const zz_pos *p) {
    if (p->winner < 0) return 0.0f;
    return p->winner == p->to_move ? 1.0f : -1.0f;
}

/* Play out the capture tree of p into c->nodes from index base.  Returns the number of nodes,
 * 0 when it would exceed c->max_nodes (nothing kept), -1 when out of memory. */
static int build_tree(quiet_ctx *c, const zz_pos *p, int base) {
    if (!reserve((void **)&c->nodes, &c->cap_nodes, (size_t)base + (size_t)c->max_nodes, sizeof *c->nodes))
        return -1;
    int used = 1;
    c->nodes[base] = (quiet_node){.pos = *p, .first = 0, .count = 0, .leaf = -1, .value = 0};
    for (int k = base; k < base + used; k++) {
        quiet_node *nd = &c->nodes[k];
        if (zz_over(&nd->pos)) { nd->value = finished_value(&nd->pos); continue; }
        if (!zz_must_capture(&nd->pos)) continue;          /* quiet: valued by the inner evaluator */
        zz_move moves[ZZ_MAX_MOVES];
        int nm = zz_gen_moves(&nd->pos, moves);              /* captures only: the mover must jump */
        if (used + nm > c->max_nodes) return 0;
        nd->first = base + used;
        nd->count = nm;
        for (int j = 0; j < nm; j++) {
            quiet_node *ch = &c->nodes[base + used++];
            *ch = (quiet_node){.pos = nd->pos, .first = 0, .count = 0, .leaf = -1, .value = 0};
            zz_apply(&ch->pos, moves[j], NULL);
        }
    }
    return used;
}

/* Give every quiet node of the tree at nodes[base .. base + used) a slot in the leaf batch, with
 * its legal moves.  false when out of memory. */
static bool add_leaves(quiet_ctx *c, int base, int used, int *nleaves, size_t *nmoves) {
    for (int k = base; k < base + used; k++) {
        quiet_node *nd = &c->nodes[k];
        if (nd->count > 0 || zz_over(&nd->pos)) continue;
        if (!reserve((void **)&c->leaves, &c->cap_leaves, (size_t)*nleaves + 1, sizeof *c->leaves)) return false;
        size_t need = *nmoves + (size_t)zz_count_moves(&nd->pos);
        if (!reserve((void **)&c->leaf_moves, &c->cap_moves, need, sizeof *c->leaf_moves) ||
            !reserve((void **)&c->leaf_priors, &c->cap_priors, need, sizeof *c->leaf_priors))
            return false;
        nd->leaf = (*nleaves)++;
        /* positions and move lists are bound to the batch after the last reallocation */
        c->leaves[nd->leaf].nmoves = zz_gen_moves(&nd->pos, c->leaf_moves + *nmoves);
        c->leaves[nd->leaf].priors = NULL;
        *nmoves += (size_t)c->leaves[nd->leaf].nmoves;
    }
    return true;
}

/* Minimax the tree at nodes[base .. base + used) (children always after their parent); returns
 * the value of its root for the root's mover. */
static float minimax(quiet_ctx *c, int base, int used) {
    for (int k = base + used - 1; k >= base; k--) {
        quiet_node *nd = &c->nodes[k];
        if (nd->leaf >= 0) nd->value = c->leaves[nd->leaf].value;
        if (nd->count == 0) continue;
        float best = -2.0f;
        for (int j = nd->first; j < nd->first + nd->count; j++) {
            const quiet_node *ch = &c->nodes[j];
            float v = ch->pos.to_move == nd->pos.to_move ? ch->value : -ch->value;
            if (v > best) best = v;
        }
        nd->value = best;
    }
    return c->nodes[base].value;
}

static int quiet_eval(mcts_evaluator *self, mcts_eval_item *items, int n, char *err, size_t errlen) {
    quiet_ctx *c = self->ctx;
    if (mcts_evaluate(c->inner, items, n, err, errlen) != 0) return -1;
    if (!reserve((void **)&c->root_of, &c->cap_roots, (size_t)n, sizeof *c->root_of) ||
        !reserve((void **)&c->size_of, &c->cap_sizes, (size_t)n, sizeof *c->size_of))
        goto oom;
    int nodes = 0, nleaves = 0;
    size_t nmoves = 0;
    for (int i = 0; i < n; i++) {
        c->root_of[i] = -1;
        if (!zz_must_capture(items[i].pos)) continue;
        int used = build_tree(c, items[i].pos, nodes);
        if (used < 0) goto oom;
        if (used == 0) continue;                     /* too large: the inner value stays */
        if (!add_leaves(c, nodes, used, &nleaves, &nmoves)) goto oom;
        c->root_of[i] = nodes;
        c->size_of[i] = used;
        nodes += used;
    }
    if (nleaves > 0) {
        size_t off = 0;
        for (int k = 0; k < nodes; k++) {
            int l = c->nodes[k].leaf;
            if (l < 0) continue;
            c->leaves[l].pos = &c->nodes[k].pos;
            c->leaves[l].moves = c->leaf_moves + off;
            c->leaves[l].priors = c->leaf_priors + off;
            off += (size_t)c->leaves[l].nmoves;
        }
        if (mcts_evaluate(c->inner, c->leaves, nleaves, err, errlen) != 0) return -1;
    }
    for (int i = 0; i < n; i++)
        if (c->root_of[i] >= 0) items[i].value = minimax(c, c->root_of[i], c->size_of[i]);
    return 0;
oom:
    snprintf(err, errlen, "out of memory (the capture trees of %d leaves)", n);
    return -1;
}

static void quiet_destroy(mcts_evaluator *self) {
    quiet_ctx *c = self->ctx;
    if (c) {
        if (c->own) mcts_evaluator_free(c->inner);
        free(c->nodes);
        free(c->root_of);
        free(c->size_of);
        free(c->leaves);
        free(c->leaf_moves);
        free(c->leaf_priors);
        free(c);
    }
    free(self);
}

static mcts_evaluator *quiet_clone(mcts_evaluator *self, char *err, size_t errlen) {
    quiet_ctx *c = self->ctx;
    mcts_evaluator *inner = mcts_evaluator_clone(c->inner, err, errlen);
    if (!inner) return NULL;
    mcts_evaluator *e = mcts_eval_quiet_new(inner, true, c->max_nodes);
    if (!e) snprintf(err, errlen, "out of memory");
    return e;
}

mcts_evaluator *mcts_eval_quiet_new(mcts_evaluator *inner, bool own, int max_nodes) {
    mcts_evaluator *e = calloc(1, sizeof *e);
    quiet_ctx *c = calloc(1, sizeof *c);
    if (!e || !c) {
        free(e);
        free(c);
        if (own) mcts_evaluator_free(inner);
        return NULL;
    }
    c->inner = inner;
    c->own = own;
    c->max_nodes = max_nodes < 2 ? 2 : max_nodes;
    snprintf(c->name, sizeof c->name, "%.60s+quiet(%d)", inner->name ? inner->name : "?", c->max_nodes);
    e->name = c->name;
    e->max_batch = 0;              /* any: the leaf batch goes through mcts_evaluate, which splits it */
    e->evaluate = quiet_eval;
    e->destroy = quiet_destroy;
    e->clone = quiet_clone;
    e->ctx = c;
    return e;
}
