/* tree.c — node creation and publication, backup, re-rooting by compaction, and the
 * single-threaded inspection helpers (size, invariant check, root children). */
#include "tree.h"
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { NODE_SEG_BITS = 14, EDGE_SEG_BITS = 16, NODE_CHUNK = 32 };

float mcts_inv_tab[MCTS_TAB], mcts_rsqrt_tab[MCTS_TAB];
static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

static void fill_tables(void) {
    mcts_inv_tab[0] = mcts_rsqrt_tab[0] = 0;   /* never used: published children have n ≥ 1 */
    for (int n = 1; n < MCTS_TAB; n++) {
        mcts_inv_tab[n] = (float)(1.0 / n);
        mcts_rsqrt_tab[n] = (float)(1.0 / sqrt((double)n));
    }
}

int mcts_tree_init(mcts_tree *t, uint32_t max_nodes, uint32_t max_edges) {
    pthread_once(&tab_once, fill_tables);
    memset(t, 0, sizeof *t);
    if (!max_nodes) max_nodes = MCTS_DEFAULT_MAX_NODES;
    if (!max_edges) max_edges = MCTS_DEFAULT_MAX_EDGES;
    for (int i = 0; i < 2; i++)
        if (mcts_arena_init(&t->nodes[i], sizeof(mcts_node), NODE_SEG_BITS, max_nodes) ||
            mcts_arena_init(&t->edges[i], sizeof(mcts_edge), EDGE_SEG_BITS, max_edges)) {
            mcts_tree_free(t);
            return -1;
        }
    atomic_init(&t->full, 0);
    return 0;
}

void mcts_tree_free(mcts_tree *t) {
    for (int i = 0; i < 2; i++) {
        mcts_arena_free(&t->nodes[i]);
        mcts_arena_free(&t->edges[i]);
    }
}

_Static_assert(sizeof(mcts_node) == 64, "a node is one cache line");

void mcts_node_init(mcts_node *n, uint32_t parent, zz_move m, float prior, const zz_pos *p,
                    uint8_t player, uint8_t state, uint32_t vl) {
    atomic_init(&n->stats, (uint64_t)vl << MCTS_N_SHIFT);
    atomic_init(&n->blocks, 0);
    atomic_init(&n->nopen, 0);
    n->parent = parent;
    n->seed = 0;
    n->move = m;
    n->prior = prior;
    n->edges = n->nedges = 0;
    atomic_init(&n->widening, 0);
    n->value = 0;
    n->player = player;
    n->to_move = p->to_move;
    n->noised = 0;
    n->sym_averaged = 0;
    n->run_floored = 0;
    n->passed = 0;
    atomic_init(&n->proof, 0);
    if (zz_over(p)) {
        n->nmoves = 0;
        n->winner = p->winner;
        atomic_init(&n->state, MCTS_TERMINAL);
    } else {
        n->nmoves = 0;
        n->winner = -1;
        atomic_init(&n->state, state);
    }
}

uint32_t mcts_tree_alloc_node(mcts_tree *t, mcts_arena_cache *c) {
    uint32_t i = mcts_arena_alloc1(&t->nodes[t->cur], c, NODE_CHUNK);
    if (!i) atomic_store_explicit(&t->full, 1, memory_order_relaxed);
    return i;
}

bool mcts_tree_set_child(mcts_tree *t, mcts_node *parent, uint32_t k, uint32_t child, mcts_arena_cache *c) {
    _Atomic uint32_t *link = &parent->blocks;
    mcts_block *b = NULL;
    for (uint32_t hop = 0; hop <= k / MCTS_BLOCK_SLOTS; hop++) {
        uint32_t bi = atomic_load_explicit(link, memory_order_acquire);
        if (!bi) {                               /* attach a zeroed block; a loser's block is wasted */
            uint32_t fresh = mcts_tree_alloc_node(t, c);
            if (!fresh) return false;
            memset(mcts_arena_at(&t->nodes[t->cur], fresh), 0, sizeof(mcts_block));
            if (atomic_compare_exchange_strong_explicit(link, &bi, fresh, memory_order_acq_rel, memory_order_acquire))
                bi = fresh;
        }
        b = mcts_arena_at(&t->nodes[t->cur], bi);
        link = &b->next;
    }
    atomic_store_explicit(&b->child[k % MCTS_BLOCK_SLOTS], child, memory_order_release);
    return true;
}

void mcts_tree_backup(mcts_tree *t, uint32_t leaf, double v, int pov, uint32_t vl) {
    for (uint32_t i = leaf;;) {
        mcts_node *n = mcts_tree_node(t, i);
        mcts_node_complete(n, n->player == pov ? v : -v, vl);
        if (i == t->root) break;
        i = n->parent;
    }
}

void mcts_tree_reset(mcts_tree *t, const zz_pos *p, bool lazy) {
    t->epoch++;
    t->cur = 0;
    mcts_arena_reset(&t->nodes[0]);
    mcts_arena_reset(&t->edges[0]);
    atomic_store_explicit(&t->full, 0, memory_order_relaxed);
    mcts_arena_cache c = { 0, 0 };
    t->root = mcts_arena_alloc1(&t->nodes[0], &c, 1);   /* index 1: never fails */
    t->root_pos = *p;
    /* The root's stats are from the mover's view (no move leads to it). */
    mcts_node_init(mcts_tree_root(t), 0, ZZ_MOVE_NONE, 1.0f, p, p->to_move,
                   lazy ? MCTS_NEW : MCTS_EXPANDED, 0);
    t->root_own = lazy ? 1 : 0;
}

/* Growable stack of (source node, destination parent, slot) for the copy. */
typedef struct { uint32_t src, dst_parent, slot; } copy_item;

/* The published children of n in buffer buf as (index, slot) pairs (single-threaded). */
static int list_slots(const mcts_tree *t, int buf, const mcts_node *n, uint32_t *out, int cap) {
    int k = 0, count = 0;
    for (uint32_t b = atomic_load_explicit(&((mcts_node *)n)->blocks, memory_order_relaxed); b;) {
        const mcts_block *blk = mcts_arena_at(&t->nodes[buf], b);
        for (int s = 0; s < MCTS_BLOCK_SLOTS; s++, k++) {
            uint32_t x = atomic_load_explicit(&((mcts_block *)blk)->child[s], memory_order_relaxed);
            if (x && count < cap) out[2 * count] = x, out[2 * count + 1] = (uint32_t)k, count++;
        }
        b = atomic_load_explicit(&((mcts_block *)blk)->next, memory_order_relaxed);
    }
    return count;
}

bool mcts_tree_advance(mcts_tree *t, zz_move m, bool lazy) {
    t->epoch++;
    zz_pos next = t->root_pos;
    zz_apply(&next, m, NULL);
    uint32_t keep = 0;
    MCTS_FOR_EACH_CHILD_I(t, mcts_tree_root(t), ci, c)
        if (c->move == m) { keep = ci; break; }
    if (!keep || atomic_load(&t->full)) {
        mcts_tree_reset(t, &next, lazy);
        return false;
    }
    int src = t->cur, dst = 1 - src;
    mcts_arena *na = &t->nodes[dst], *ea = &t->edges[dst];
    mcts_arena_reset(na);
    mcts_arena_reset(ea);
    size_t cap = 1024, top = 0;
    copy_item *stack = malloc(cap * sizeof *stack);
    uint32_t *kids = malloc(2 * (ZZ_MAX_MOVES + 1) * sizeof *kids);
    if (!stack || !kids) { free(stack); free(kids); mcts_tree_reset(t, &next, lazy); return false; }
    stack[top++] = (copy_item){ keep, 0, 0 };
    uint32_t new_root = 0;
    bool ok = true;
    mcts_arena_cache cache = { 0, 0 };
    t->cur = dst;                                /* set_child and alloc work on the destination */
    while (top && ok) {
        copy_item it = stack[--top];
        const mcts_node *s = mcts_arena_at(&t->nodes[src], it.src);
        uint32_t d = mcts_arena_alloc1(na, &cache, 32);
        if (!d) { ok = false; break; }
        mcts_node *n = mcts_arena_at(na, d);
        memcpy(n, s, sizeof *n);                 /* quiescent: plain copies of the atomics are fine */
        atomic_store_explicit(&n->blocks, 0, memory_order_relaxed);
        n->parent = it.dst_parent;
        if (s->nedges) {
            uint32_t e = mcts_arena_alloc(ea, s->nedges);
            if (!e) { ok = false; break; }
            memcpy(mcts_arena_at(ea, e), mcts_arena_at(&t->edges[src], s->edges), s->nedges * sizeof(mcts_edge));
            n->edges = e;
        }
        if (it.dst_parent) {                     /* the same slot as in the source: PUCT's edges match */
            if (!mcts_tree_set_child(t, mcts_arena_at(na, it.dst_parent), it.slot, d, &cache)) { ok = false; break; }
        } else {
            new_root = d;
        }
        int nk = list_slots(t, src, s, kids, ZZ_MAX_MOVES + 1);
        for (int i = 0; i < nk; i++) {
            if (top == cap) {
                copy_item *bigger = realloc(stack, 2 * cap * sizeof *stack);
                if (!bigger) { ok = false; break; }
                stack = bigger;
                cap *= 2;
            }
            stack[top++] = (copy_item){ kids[2 * i], d, kids[2 * i + 1] };
        }
    }
    free(stack);
    free(kids);
    if (!ok) {
        t->cur = src;
        mcts_tree_reset(t, &next, lazy);
        return false;
    }
    mcts_arena_reset(&t->nodes[src]);
    mcts_arena_reset(&t->edges[src]);
    t->root = new_root;
    t->root_pos = next;
    t->root_own = !mcts_tree_root(t)->passed;
    mcts_tree_root(t)->parent = 0;
    return true;
}

uint32_t mcts_tree_size(const mcts_tree *t) {
    uint32_t count = 0;
    size_t cap = 1024, top = 0;
    uint32_t *stack = malloc(cap * sizeof *stack);
    if (!stack) return 0;
    stack[top++] = t->root;
    while (top) {
        uint32_t i = stack[--top];
        count++;
        MCTS_FOR_EACH_CHILD_I(t, mcts_tree_node(t, i), ci, c) {
            if (top == cap) {
                uint32_t *bigger = realloc(stack, 2 * cap * sizeof *stack);
                if (!bigger) { free(stack); return 0; }
                stack = bigger;
                cap *= 2;
            }
            stack[top++] = ci;
        }
    }
    free(stack);
    return count;
}

/* Recursive check of the subtree at i with position p. */
static const char *check_node(const mcts_tree *t, uint32_t i, const zz_pos *p, int own, int depth) {
    const mcts_node *n = mcts_tree_node(t, i);
    uint64_t w = mcts_node_load(n);
    uint32_t N = mcts_stats_n(w);
    if (mcts_stats_s(w) > (uint64_t)N * 2 * (uint64_t)MCTS_S_UNIT) return "value sum above 2 per visit";
    if (n->to_move != p->to_move) return "to_move differs from the position";
    int st = atomic_load(&((mcts_node *)n)->state);
    if ((st == MCTS_TERMINAL) != zz_over(p)) return "TERMINAL state differs from the position";
    if (st == MCTS_PENDING) return "a node is still PENDING after the search";
    if (st == MCTS_TERMINAL) return atomic_load(&((mcts_node *)n)->blocks) ? "terminal node with children" : NULL;
    uint64_t sum = 0;
    uint32_t nkids = 0, slot = 0;
    if (depth > 4000) return "tree too deep";
    for (uint32_t b = atomic_load(&((mcts_node *)n)->blocks); b;) {
        const mcts_block *blk = mcts_arena_at(&t->nodes[t->cur], b);
        for (int s = 0; s < MCTS_BLOCK_SLOTS; s++, slot++) {
            uint32_t c = atomic_load(&((mcts_block *)blk)->child[s]);
            if (!c) continue;
            const mcts_node *k = mcts_tree_node(t, c);
            nkids++;
            if (slot >= atomic_load(&((mcts_node *)n)->nopen)) return "a child in an unclaimed slot";
            if (n->nedges && (slot >= n->nedges || mcts_tree_edges(t, n->edges)[slot].move != k->move))
                return "child's move differs from its slot's edge";
            if (k->parent != i) return "bad parent link";
            if (k->player != p->to_move) return "child's player is not the parent's mover";
            if (!zz_is_legal(p, k->move)) return "child move is illegal";
            MCTS_FOR_EACH_CHILD(t, n, other)
                if (other != k && other->move == k->move) return "two children with one move";
            sum += mcts_stats_n(mcts_node_load(k));
            zz_pos q = *p;
            zz_apply(&q, k->move, NULL);
            const char *e = check_node(t, c, &q, !k->passed, depth + 1);
            if (e) return e;
        }
        b = atomic_load(&((mcts_block *)blk)->next);
    }
    if (nkids > atomic_load(&((mcts_node *)n)->nopen)) return "more children than claims";
    if (N == 0 && nkids == 0) return NULL;                       /* never visited */
    if (sum + (uint64_t)own != N) return "N differs from own visit + children's N";
    return NULL;
}

const char *mcts_tree_check(const mcts_tree *t) {
    return check_node(t, t->root, &t->root_pos, t->root_own, 0);
}

typedef struct { zz_move m; int n; float q, prior; int proof; } child_row;

static int by_visits(const void *a, const void *b) {
    const child_row *x = a, *y = b;
    if (x->proof != y->proof) return x->proof < y->proof ? 1 : -1;     /* won, unknown, lost */
    if (x->n != y->n) return x->n < y->n ? 1 : -1;
    if (x->q != y->q) return x->q < y->q ? 1 : -1;
    return x->m < y->m ? -1 : x->m > y->m;
}

int mcts_tree_root_children(const mcts_tree *t, zz_move *moves, int *visits, float *q, int cap) {
    return mcts_tree_root_children_priors(t, moves, visits, q, NULL, cap);
}

int mcts_tree_root_children_priors(const mcts_tree *t, zz_move *moves, int *visits, float *q, float *priors, int cap) {
    const mcts_node *r = mcts_tree_root(t);
    int n = 0, size = 64;
    child_row *rows = malloc((size_t)size * sizeof *rows);
    if (!rows) return 0;
    MCTS_FOR_EACH_CHILD(t, r, c) {
        if (n == size) {
            child_row *bigger = realloc(rows, (size_t)size * 2 * sizeof *rows);
            if (!bigger) break;
            rows = bigger;
            size *= 2;
        }
        uint64_t w = mcts_node_load(c);
        rows[n++] = (child_row){ c->move, (int)mcts_stats_n(w), (float)mcts_stats_q(w), c->prior,
                                 atomic_load_explicit(&c->proof, memory_order_relaxed) };
    }
    qsort(rows, (size_t)n, sizeof *rows, by_visits);
    if (n > cap) n = cap;
    for (int i = 0; i < n; i++) {
        moves[i] = rows[i].m;
        if (visits) visits[i] = rows[i].n;
        if (q) q[i] = rows[i].q;
        if (priors) priors[i] = rows[i].prior;
    }
    free(rows);
    return n;
}

int mcts_tree_pv(const mcts_tree *t, zz_move *moves, int cap, uint32_t min_visits) {
    const mcts_node *node = mcts_tree_root(t);
    int n = 0;
    while (n < cap) {
        const mcts_node *best = NULL;
        uint32_t best_n = 0;
        double best_q = 0;
        int best_proof = 0;
        MCTS_FOR_EACH_CHILD(t, node, c) {
            uint64_t w = mcts_node_load(c);
            uint32_t cn = mcts_stats_n(w);
            double cq = mcts_stats_q(w);
            int cp = atomic_load_explicit(&c->proof, memory_order_relaxed);
            if (!best || cp > best_proof || (cp == best_proof && (cn > best_n || (cn == best_n && cq > best_q))))
                best = c, best_n = cn, best_q = cq, best_proof = cp;
        }
        if (!best || best_n < min_visits || best_n == 0) break;
        moves[n++] = best->move;
        node = best;
    }
    return n;
}
