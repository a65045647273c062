/* puct_gumbel.c — the Gumbel root search (gumbel.h) on PUCT's tree (puct_internal.h): the root's
 * edges reordered Gumbel-top-k first, sequential halving choosing which candidate each root visit
 * goes to, the candidate it chose, and the improved policy as a self-play target.  One thread, a
 * fresh root. */
#include "puct_internal.h"
#include "rand.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Gumbel root (gumbel.h) --------------------------------------------------------------- */
/* The root's candidates (edges 0..m-1; the child in slot j is edge j): visits, values for the
 * root mover, and sigma of their completed values (gumbel.h), all edges counted in the rescale. */
static void gumbel_stats(const mcts_puct *s, uint32_t *visits, double *sigma, uint32_t *child) {
    static _Thread_local float prior[ZZ_MAX_MOVES], q[ZZ_MAX_MOVES];
    static _Thread_local uint32_t vis[ZZ_MAX_MOVES];
    static _Thread_local double cq[ZZ_MAX_MOVES];
    const mcts_tree *t = &s->tree;
    const mcts_node *root = mcts_tree_root(t);
    const mcts_edge *e = mcts_tree_edges(t, root->edges);
    int n = (int)root->nedges, m = s->halving.m;
    for (int i = 0; i < n; i++) { prior[i] = e[i].prior; vis[i] = 0; q[i] = 0; }
    uint32_t slot = 0, max_n = 0;
    MCTS_FOR_EACH_CHILD_I(t, root, ci, c) {      /* one thread, fresh root: slot order = edge order */
        uint64_t w = mcts_node_load(c);
        vis[slot] = mcts_stats_n(w);
        q[slot] = (float)mcts_stats_q(w);        /* the child's player is the root's mover */
        if (child && slot < (uint32_t)m) child[slot] = ci;
        if (vis[slot] > max_n) max_n = vis[slot];
        slot++;
    }
    mcts_gumbel_completed_q(n, prior, vis, q, root->value, cq);
    for (int j = 0; j < m; j++) {
        visits[j] = vis[j];
        sigma[j] = mcts_gumbel_sigma(cq[j], max_n, s->cfg.gumbel_cvisit, s->cfg.gumbel_cscale);
    }
}

/* The candidate the next root visit goes to (sequential halving), or -1. */
int puct_gumbel_next(mcts_puct *s) {
    uint32_t visits[MCTS_GUMBEL_MAX];
    double sigma[MCTS_GUMBEL_MAX];
    gumbel_stats(s, visits, sigma, NULL);
    return mcts_halving_next(&s->halving, visits, sigma);
}

/* The root child of candidate j (opened), or 0. */
uint32_t puct_gumbel_child(const mcts_puct *s, int j) {
    uint32_t visits[MCTS_GUMBEL_MAX], child[MCTS_GUMBEL_MAX] = { 0 };
    double sigma[MCTS_GUMBEL_MAX];
    gumbel_stats(s, visits, sigma, child);
    return child[j];
}

zz_move puct_gumbel_pick(const mcts_puct *s) {
    if (!gumbel_active(s)) return ZZ_MOVE_NONE;
    uint32_t visits[MCTS_GUMBEL_MAX];
    double sigma[MCTS_GUMBEL_MAX];
    gumbel_stats(s, visits, sigma, NULL);
    int j = mcts_halving_best(&s->halving, sigma);
    const mcts_node *root = mcts_tree_root(&s->tree);
    return j >= 0 ? mcts_tree_edges(&s->tree, root->edges)[j].move : ZZ_MOVE_NONE;
}

static int cmp_score_desc(const void *a, const void *b) {
    const double *x = a, *y = b;
    return x[0] < y[0] ? 1 : x[0] > y[0] ? -1 : 0;
}

bool mcts_puct_gumbel_root(mcts_puct *s, uint64_t budget) {
    mcts_tree *t = &s->tree;
    mcts_node *root = mcts_tree_root(t);
    s->gumbel_on = 0;
    if (s->cfg.gumbel_m <= 0 || s->cfg.threads != 1 || atomic_load(&root->state) != MCTS_EXPANDED ||
        root->nedges == 0 || atomic_load(&root->nopen) != 0)
        return false;
    int n = (int)root->nedges;
    mcts_edge *e = mcts_tree_edges(t, root->edges);
    double (*key)[2] = malloc((size_t)n * sizeof *key);
    mcts_edge *tmp = malloc((size_t)n * sizeof *tmp);
    if (!key || !tmp) { free(key); free(tmp); return false; }
    for (int i = 0; i < n; i++) {                    /* g + log p, g ~ Gumbel(0, 1) */
        double u = mcts_rand_unit(&s->rng);
        if (u < 1e-300) u = 1e-300;
        double g = -log(-log(u > 1 - 1e-16 ? 1 - 1e-16 : u));
        key[i][0] = g + (e[i].prior > 0 ? log(e[i].prior) : -1e9);
        key[i][1] = i;
    }
    qsort(key, (size_t)n, sizeof *key, cmp_score_desc);     /* Gumbel-top-k first */
    for (int i = 0; i < n; i++) tmp[i] = e[(int)key[i][1]];
    memcpy(e, tmp, (size_t)n * sizeof *e);
    int m = s->cfg.gumbel_m < n ? s->cfg.gumbel_m : n;
    if (m > MCTS_GUMBEL_MAX) m = MCTS_GUMBEL_MAX;
    double score[MCTS_GUMBEL_MAX];
    for (int j = 0; j < m; j++) score[j] = key[j][0];
    mcts_halving_init(&s->halving, m, score, budget > 0 ? budget : 1);
    free(key);
    free(tmp);
    s->gumbel_on = 1;
    s->gumbel_root = t->root;
    s->gumbel_epoch = t->epoch;
    return true;
}

int mcts_puct_gumbel_policy(const mcts_puct *s, zz_move *moves, float *probs, int cap) {
    if (!gumbel_active(s) || cap <= 0) return 0;
    const mcts_tree *t = &s->tree;
    const mcts_node *root = mcts_tree_root(t);
    const mcts_edge *e = mcts_tree_edges(t, root->edges);
    int n = (int)root->nedges;
    float *prior = malloc((size_t)n * sizeof *prior), *q = malloc((size_t)n * sizeof *q);
    uint32_t *vis = calloc((size_t)n, sizeof *vis);
    double *pi = malloc((size_t)n * sizeof *pi);
    int *order = malloc((size_t)n * sizeof *order);
    int k = 0;
    if (prior && q && vis && pi && order) {
        for (int i = 0; i < n; i++) { prior[i] = e[i].prior; q[i] = 0; }
        uint32_t slot = 0;
        MCTS_FOR_EACH_CHILD(t, root, c) {
            uint64_t w = mcts_node_load(c);
            vis[slot] = mcts_stats_n(w);
            q[slot] = (float)mcts_stats_q(w);
            slot++;
        }
        mcts_gumbel_improved_policy(n, prior, vis, q, root->value, s->cfg.gumbel_cvisit, s->cfg.gumbel_cscale, pi);
        for (int i = 0; i < n; i++) order[i] = i;
        for (int a = 0; a < cap && a < n; a++) {     /* partial selection sort: the cap largest */
            int b = a;
            for (int i = a + 1; i < n; i++) if (pi[order[i]] > pi[order[b]]) b = i;
            int x = order[a]; order[a] = order[b]; order[b] = x;
        }
        k = cap < n ? cap : n;
        double sum = 0;
        for (int a = 0; a < k; a++) sum += pi[order[a]];
        for (int a = 0; a < k; a++) {
            moves[a] = e[order[a]].move;
            probs[a] = (float)(sum > 0 ? pi[order[a]] / sum : 1.0 / k);
        }
    }
    free(prior); free(q); free(vis); free(pi); free(order);
    return k;
}
