/* puct_priors.c — priors changed after a node's expansion (puct_internal.h): Dirichlet noise at
 * the root (self-play), and a node's priors and value replaced by their mean over the board's
 * symmetries (root_syms, sym_visits: sym_eval.h).  Opened children's priors follow; the unopened
 * edges are sorted again behind the opened ones. */
#include "puct_internal.h"
#include "sym_eval.h"
#include "tactic.h"
#include "rand.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- priors changed in place ------------------------------------------------------------------ */
static int cmp_edge_desc(const void *a, const void *b) {
    const mcts_edge *x = a, *y = b;
    return x->prior < y->prior ? 1 : x->prior > y->prior ? -1 : 0;
}

/* After node's edge priors changed: its opened children's priors follow, and the unopened edges
 * are sorted again behind the opened ones. */
static void priors_changed(mcts_tree *t, mcts_node *node) {
    mcts_edge *e = mcts_tree_edges(t, node->edges);
    uint32_t open = atomic_load(&node->nopen);
    MCTS_FOR_EACH_CHILD(t, node, c)
        for (uint32_t i = 0; i < open; i++)
            if (e[i].move == c->move) { c->prior = e[i].prior; break; }
    if (open < node->nedges) qsort(e + open, node->nedges - open, sizeof *e, cmp_edge_desc);
}

/* ---- root noise ----------------------------------------------------------------------------- */
void mcts_puct_root_noise(mcts_puct *s) {
    mcts_tree *t = &s->tree;
    mcts_node *root = mcts_tree_root(t);
    if (root->noised || root->nedges == 0 || atomic_load(&root->state) != MCTS_EXPANDED) return;
    int n = (int)root->nedges;
    double *eta = malloc((size_t)n * sizeof *eta);
    if (!eta) return;
    mcts_dirichlet(s->cfg.noise_alpha_total / n, n, eta, &s->rng);
    mcts_edge *e = mcts_tree_edges(t, root->edges);
    double eps = s->cfg.noise_eps;
    for (int i = 0; i < n; i++) e[i].prior = (float)((1 - eps) * e[i].prior + eps * eta[i]);
    free(eta);
    priors_changed(t, root);
    root->noised = 1;
}

/* ---- forcing runs at the root (tactic_run) ------------------------------------------------------ */
/* The root's edge priors replaced by priors[0..n) over their sum (priors_changed after). */
static void set_root_priors(mcts_tree *t, mcts_node *root, const float *priors, int n) {
    mcts_edge *e = mcts_tree_edges(t, root->edges);
    double sum = 0;
    for (int i = 0; i < n; i++) sum += priors[i];
    if (!(sum > 0)) return;
    for (int i = 0; i < n; i++) e[i].prior = (float)(priors[i] / sum);
    priors_changed(t, root);
}

void mcts_puct_root_runs(mcts_puct *s) {
    mcts_tree *t = &s->tree;
    mcts_node *root = mcts_tree_root(t);
    if (!s->forcing || root->run_floored || root->nedges < 2 || atomic_load(&root->state) != MCTS_EXPANDED) return;
    root->run_floored = 1;
    int n = (int)root->nedges;
    zz_move *moves = malloc((size_t)n * sizeof *moves);
    float *priors = malloc((size_t)n * sizeof *priors);
    if (moves && priors) {
        const mcts_edge *e = mcts_tree_edges(t, root->edges);
        for (int i = 0; i < n; i++) moves[i] = e[i].move, priors[i] = e[i].prior;
        if (mcts_tactic_runs(s->forcing, &t->root_pos, moves, priors, n, s->cfg.tactic_run, (float)s->cfg.tactic_prior,
                             s->cfg.tactic_margin, (uint64_t)s->cfg.tactic_run_nodes) > 0)
            set_root_priors(t, root, priors, n);
    }
    free(moves);
    free(priors);
}

/* ---- priors averaged over symmetries (root_syms, sym_visits) ------------------------------------ */
/* Replace an expanded node's edge priors (the node at position pos) by the mean of ev's over
 * cfg.root_syms symmetries (sym_eval.h), tempered and renormalised over the kept edges as
 * puct_expand() does, and its value by the mean value; opened children's priors follow, unopened edges
 * are sorted again (the opened ones stay a prefix).  Once per node with two moves or more (not a
 * forced node passed unevaluated); only while no other thread reads the node's edges.  0, or -1
 * with the evaluator's message. */
int puct_node_symmetry(mcts_puct *s, mcts_evaluator *ev, mcts_node *node, const zz_pos *pos, char *err,
                       size_t errlen) {
    mcts_tree *t = &s->tree;
    if (node->sym_averaged || node->nedges < 2 || node->passed || atomic_load(&node->state) != MCTS_EXPANDED)
        return 0;                                   /* one move, or forced and unevaluated: nothing to average */
    node->sym_averaged = 1;
    int n = (int)node->nedges;
    mcts_edge *e = mcts_tree_edges(t, node->edges);
    zz_move *moves = calloc((size_t)n, sizeof *moves);
    float *avg = malloc((size_t)n * sizeof *avg);
    float value = 0;
    int rc = -1;
    if (!moves || !avg) {
        snprintf(err, errlen, "out of memory");
    } else {
        for (int i = 0; i < n; i++) moves[i] = e[i].move;
        rc = mcts_eval_symmetric(ev, pos, moves, n, s->cfg.root_syms, avg, &value, err, errlen);
    }
    if (rc == 0) {
        double sum = 0, inv_temp = 1.0 / s->cfg.prior_temp;
        for (int i = 0; i < n; i++) {
            double p = avg[i] > 0 ? avg[i] : 0;
            if (inv_temp != 1.0 && p > 0) p = pow(p, inv_temp);
            e[i].prior = (float)p;
            sum += p;
        }
        for (int i = 0; i < n; i++) e[i].prior = sum > 0 ? (float)(e[i].prior / sum) : 1.0f / (float)n;
        node->value = value;
        priors_changed(t, node);
    }
    free(moves);
    free(avg);
    return rc;
}

/* The root's, before a search (root_syms > 1). */
int puct_root_symmetry(mcts_puct *s, char *err, size_t errlen) {
    if (s->cfg.root_syms < 2) return 0;
    return puct_node_symmetry(s, s->ev, mcts_tree_root(&s->tree), &s->tree.root_pos, err, errlen);
}
