/* test_nn_policy.c — the factorised policy on hand-built cases (placement with and without
 * removal, jumps, chain continuation: scores, priors, cross-entropy and its gradient), the
 * encoder's planes, and training batches: augmentation maps positions, moves and visits exactly;
 * the priors against the exact softmax on random games (and their fallback, bit for bit). */
#include "helpers.h"
#include <check.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nn/batch.h"
#include "game/symmetry.h"

static int cell(zz_board_kind kind, const char *name)
{
    const char *s = name;
    int c = zz_parse_cell(zz_board_get(kind), &s);
    ck_assert_msg(c >= 0, "bad cell %s", name);
    return c;
}

/* Put a marble of colour c from the pool on a cell of p. */
static void put(zz_pos *p, int c, const char *name)
{
    int x = cell((zz_board_kind)p->board, name);
    p->marble[c] |= zz_bit(x);
    p->pool[c]--;
}

/* logit index of head h at a cell */
static int L(const nn_geom *g, int c, int h) { return g->index[c] * NN_HEADS + h; }

/* Scores, priors, loss and gradient on moves of every kind, computed by hand. */
START_TEST(hand_built_scores_loss_gradient)
{
    nn_geom g;
    nn_geom_init(&g, ZZ_B37);
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    int d4 = cell(ZZ_B37, "d4"), a1 = cell(ZZ_B37, "a1"), c3 = cell(ZZ_B37, "c3"), b2 = cell(ZZ_B37, "b2");
    float logits[37 * NN_HEADS] = { 0 };
    logits[L(&g, d4, ZZ_WHITE)] = 1.0f;
    logits[L(&g, a1, NN_HEAD_REMOVE)] = 2.0f;
    logits[L(&g, d4, ZZ_GREY)] = 0.5f;
    logits[L(&g, c3, ZZ_BLACK)] = -1.0f;
    zz_move moves[4] = {
        zz_move_place(ZZ_WHITE, d4, a1),          /* 1 + 2   = 3   */
        zz_move_place(ZZ_WHITE, d4, ZZ_NO_CELL),  /* 1           */
        zz_move_place(ZZ_GREY, d4, a1),           /* 0.5 + 2 = 2.5 */
        zz_move_place(ZZ_BLACK, c3, b2),          /* -1 + 0  = -1  */
    };
    double score[4] = { 3, 1, 2.5, -1 }, z = 0, p_exp[4];
    for (int i = 0; i < 4; i++) z += exp(score[i]);
    for (int i = 0; i < 4; i++) p_exp[i] = exp(score[i]) / z;
    int32_t terms[4][2];
    ck_assert_int_eq(nn_move_terms(&g, &p, moves[0], terms[0]), 2);
    ck_assert_int_eq(terms[0][0], L(&g, d4, ZZ_WHITE));
    ck_assert_int_eq(terms[0][1], L(&g, a1, NN_HEAD_REMOVE));
    ck_assert_int_eq(nn_move_terms(&g, &p, moves[1], terms[1]), 1);
    ck_assert_int_eq(terms[1][1], -1);
    ck_assert_int_eq(nn_move_terms(&g, &p, moves[2], terms[2]), 2);
    ck_assert_int_eq(nn_move_terms(&g, &p, moves[3], terms[3]), 2);
    float pri[4];
    nn_policy_priors(&g, logits, &p, moves, 4, pri);
    for (int i = 0; i < 4; i++) ck_assert_msg(fabs(pri[i] - p_exp[i]) < 1e-6, "prior %d: %g vs %g", i, pri[i], p_exp[i]);

    /* two samples sharing the batch: the second is identical with other targets */
    float pi[8] = { 0.5f, 0.25f, 0.25f, 0, 0, 0, 0, 1 };
    int start[3] = { 0, 4, 8 };
    int32_t term2[16];
    for (int i = 0; i < 8; i++) { term2[2 * i] = terms[i % 4][0]; term2[2 * i + 1] = terms[i % 4][1]; }
    nn_policy_targets t = { 2, start, term2, pi };
    float lg2[2 * 37 * NN_HEADS], dl[2 * 37 * NN_HEADS] = { 0 };
    memcpy(lg2, logits, sizeof logits);
    memcpy(lg2 + 37 * NN_HEADS, logits, sizeof logits);
    double ce0 = -(0.5 * log(p_exp[0]) + 0.25 * log(p_exp[1]) + 0.25 * log(p_exp[2]));
    double ce1 = -log(p_exp[3]);
    double loss = nn_policy_loss_f(lg2, dl, &t, 37, 1.0);
    ck_assert_msg(fabs(loss - (ce0 + ce1) / 2) < 1e-6, "loss %g vs %g", loss, (ce0 + ce1) / 2);
    /* gradient of the mean: (p - pi)/2 summed onto each move's terms */
    double g0[4], g1[4];
    for (int i = 0; i < 4; i++) { g0[i] = (p_exp[i] - pi[i]) / 2; g1[i] = (p_exp[i] - pi[4 + i]) / 2; }
    const float *d0 = dl, *d1 = dl + 37 * NN_HEADS;
    ck_assert(fabs(d0[L(&g, d4, ZZ_WHITE)] - (g0[0] + g0[1])) < 1e-6);     /* shared by moves 0 and 1 */
    ck_assert(fabs(d0[L(&g, a1, NN_HEAD_REMOVE)] - (g0[0] + g0[2])) < 1e-6);
    ck_assert(fabs(d0[L(&g, d4, ZZ_GREY)] - g0[2]) < 1e-6);
    ck_assert(fabs(d0[L(&g, c3, ZZ_BLACK)] - g0[3]) < 1e-6);
    ck_assert(fabs(d0[L(&g, b2, NN_HEAD_REMOVE)] - g0[3]) < 1e-6);
    ck_assert(fabs(d1[L(&g, c3, ZZ_BLACK)] - g1[3]) < 1e-6);
    ck_assert(fabs(d1[L(&g, d4, ZZ_WHITE)] - (g1[0] + g1[1])) < 1e-6);
    /* nothing else moved, and each sample's gradient sums (over moves) to zero */
    int touched = 0;
    for (int i = 0; i < 37 * NN_HEADS; i++) touched += d0[i] != 0;
    ck_assert_int_eq(touched, 5);
    /* zero loss gradient when the prior equals the target */
    float pi_eq[4];
    for (int i = 0; i < 4; i++) pi_eq[i] = (float)p_exp[i];
    nn_policy_targets te = { 1, start, term2, pi_eq };
    float dz[37 * NN_HEADS] = { 0 };
    nn_policy_loss_f(logits, dz, &te, 37, 1.0);
    for (int i = 0; i < 37 * NN_HEADS; i++) ck_assert(fabsf(dz[i]) < 1e-6);
}
END_TEST

/* A real capture: W d3, G d4, B d6 on the full 37-ring board.  White's jump d3 x d4 -> d5 can
 * go on over d6 to d7, so after it the same marble must continue: chain scores use to[] only. */
START_TEST(jumps_and_chain_continuation)
{
    nn_geom g;
    nn_geom_init(&g, ZZ_B37);
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    put(&p, ZZ_WHITE, "d3");
    put(&p, ZZ_GREY, "d4");
    put(&p, ZZ_BLACK, "d6");
    ck_assert_msg(!zz_pos_validate(&p), "%s", zz_pos_validate(&p));
    zz_move mv[ZZ_MAX_MOVES];
    int n = zz_gen_moves(&p, mv);
    ck_assert(n >= 1);
    int d3 = cell(ZZ_B37, "d3"), d5 = cell(ZZ_B37, "d5"), d7 = cell(ZZ_B37, "d7");
    zz_move first = zz_move_jump(d3, d5);
    bool found = false;
    float logits[37 * NN_HEADS];
    for (int i = 0; i < 37 * NN_HEADS; i++) logits[i] = (float)((i * 37) % 11) / 5.0f - 1.0f;
    float pri[64];
    ck_assert(n <= 64);
    nn_policy_priors(&g, logits, &p, mv, n, pri);
    double z = 0;
    for (int i = 0; i < n; i++) {
        ck_assert(zz_move_is_jump(mv[i]));
        int32_t t[2];
        ck_assert_int_eq(nn_move_terms(&g, &p, mv[i], t), 2);
        ck_assert_int_eq(t[0], L(&g, zz_move_a(mv[i]), NN_HEAD_FROM));
        ck_assert_int_eq(t[1], L(&g, zz_move_b(mv[i]), NN_HEAD_TO));
        z += exp(logits[t[0]] + logits[t[1]]);
        found |= mv[i] == first;
    }
    ck_assert(found);
    for (int i = 0; i < n; i++) {
        double s = logits[L(&g, zz_move_a(mv[i]), NN_HEAD_FROM)] + logits[L(&g, zz_move_b(mv[i]), NN_HEAD_TO)];
        ck_assert(fabs(pri[i] - exp(s) / z) < 1e-6);
    }
    zz_apply(&p, first, NULL);
    ck_assert_int_eq(p.chain, d5);
    n = zz_gen_moves(&p, mv);
    ck_assert_int_eq(n, 1);
    ck_assert(mv[0] == zz_move_jump(d5, d7));
    int32_t t[2];
    ck_assert_int_eq(nn_move_terms(&g, &p, mv[0], t), 1);
    ck_assert_int_eq(t[0], L(&g, d7, NN_HEAD_TO));
    ck_assert_int_eq(t[1], -1);
    /* a single legal move: prior 1, zero loss, zero gradient */
    nn_policy_priors(&g, logits, &p, mv, 1, pri);
    ck_assert(fabs(pri[0] - 1) < 1e-7);
    int start[2] = { 0, 1 };
    int32_t term[2] = { t[0], t[1] };
    float pi = 1, dl[37 * NN_HEADS] = { 0 };
    nn_policy_targets tg = { 1, start, term, &pi };
    ck_assert(fabs(nn_policy_loss_f(logits, dl, &tg, 37, 1.0)) < 1e-7);
    for (int i = 0; i < 37 * NN_HEADS; i++) ck_assert(dl[i] == 0);
    /* the encoder sees it: capture pending everywhere, the chain marble one-hot */
    float x[37 * NN_PLANES];
    nn_encode(&g, &p, x);
    for (int i = 0; i < 37; i++) {
        ck_assert(x[i * NN_PLANES + 5] == 1.0f);
        ck_assert(x[i * NN_PLANES + 4] == (g.cell[i] == d5 ? 1.0f : 0.0f));
    }
}
END_TEST

START_TEST(encoder_planes)
{
    for (int kind = 0; kind < ZZ_NBOARDS; kind++) {
        nn_geom g;
        nn_geom_init(&g, (zz_board_kind)kind);
        int P = g.ncells;
        zz_pos p;
        zz_pos_init(&p, (zz_board_kind)kind);
        float x[ZZ_MAX_RINGS * NN_PLANES];
        nn_encode(&g, &p, x);
        float open[NN_PLANES] = { 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0 };
        for (int i = 0; i < P; i++)
            for (int k = 0; k < NN_PLANES; k++) ck_assert_msg(x[i * NN_PLANES + k] == open[k], "plane %d", k);
        /* marbles, removed rings, pool and relative captures */
        int cc = g.cell[P / 2], gone = g.cell[0];
        p.marble[ZZ_BLACK] |= zz_bit(cc);
        p.rings &= ~zz_bit(gone);
        p.pool[0] = 3; p.pool[1] = 4; p.pool[2] = 5;
        p.cap[0][0] = 1; p.cap[0][2] = 2;
        p.cap[1][1] = 3;
        for (int mover = 0; mover < 2; mover++) {
            p.to_move = (uint8_t)mover;
            nn_encode(&g, &p, x);
            float mine[3] = { mover ? 0 : 0.25f, mover ? 0.6f : 0, mover ? 0 : 2 / 6.0f };
            float theirs[3] = { mover ? 0.25f : 0, mover ? 0 : 0.6f, mover ? 2 / 6.0f : 0 };
            for (int i = 0; i < P; i++) {
                const float *r = x + i * NN_PLANES;
                ck_assert(r[0] == (g.cell[i] == gone ? 0 : 1));
                ck_assert(r[3] == (g.cell[i] == cc ? 1 : 0));
                ck_assert(r[1] == 0 && r[2] == 0 && r[6] == 1);
                ck_assert(fabsf(r[7] - 0.5f) < 1e-7 && fabsf(r[8] - 0.5f) < 1e-7 && fabsf(r[9] - 0.5f) < 1e-7);
                for (int c = 0; c < 3; c++) {
                    ck_assert(fabsf(r[10 + c] - mine[c]) < 1e-7);
                    ck_assert(fabsf(r[13 + c] - theirs[c]) < 1e-7);
                }
            }
        }
        /* the grid form: the same values at (a, q), zero off the board */
        float planes[NN_PLANES * ZZ_MAX_GRID * ZZ_MAX_GRID];
        nn_encode_grid(&g, &p, planes);
        int hw = g.grid_h * g.grid_w, on = 0;
        for (int k = 0; k < NN_PLANES; k++)
            for (int c = 0; c < hw; c++) {
                int q = c % g.grid_w, a = c / g.grid_w, idx = g.index[zz_cell_of(q, a)];
                float want = idx < 0 ? 0 : x[idx * NN_PLANES + k];
                ck_assert(planes[k * hw + c] == want);
                on += k == 6 && planes[k * hw + c] == 1;
            }
        ck_assert_int_eq(on, P);
    }
}
END_TEST

/* A random position (not over) and random visits. */
static void random_sample(zz_board_kind kind, uint64_t *rng, zz_pos *p, nn_visit *v, int *nv)
{
    for (;;) {
        zz_pos_init(p, kind);
        int n = (int)zz_rand_below(rng, 60);
        for (int i = 0; i < n && !zz_over(p); i++) zz_apply(p, zz_random_move(p, rng), NULL);
        if (!zz_over(p)) break;
    }
    static zz_move mv[ZZ_MAX_MOVES];
    int n = zz_gen_moves(p, mv);
    *nv = 0;
    for (int i = 0; i < 8; i++) {
        zz_move m = mv[zz_rand_below(rng, (uint32_t)n)];
        bool dup = false;
        for (int j = 0; j < *nv; j++) dup |= v[j].move == m;
        if (!dup) { v[*nv].move = m; v[*nv].count = 1 + zz_rand_below(rng, 50); (*nv)++; }
    }
}

START_TEST(augmentation_maps_moves_and_visits_exactly)
{
    uint64_t rng = 2024;
    static zz_move mv[ZZ_MAX_MOVES];
    char err[256];
    for (int kind = 0; kind < ZZ_NBOARDS; kind++) {
        nn_geom g;
        nn_geom_init(&g, (zz_board_kind)kind);
        int P = g.ncells, nsyms = zz_board_nsyms((zz_board_kind)kind);
        ck_assert_int_eq(nsyms, kind == ZZ_B48 ? 6 : 12);
        nn_batch b;
        nn_batch_init(&b);
        for (int trial = 0; trial < 6; trial++) {
            zz_pos p;
            nn_visit v[8];
            int nv;
            random_sample((zz_board_kind)kind, &rng, &p, v, &nv);
            double total = 0;
            for (int j = 0; j < nv; j++) total += v[j].count;
            float x0[ZZ_MAX_RINGS * NN_PLANES];
            nn_encode(&g, &p, x0);
            int n0 = zz_gen_moves(&p, mv);
            nn_sample s = { .pos = p, .visits = v, .nvisits = nv, .z = 0.5f };
            nn_sample ss[12];
            int syms[12];
            for (int k = 0; k < nsyms; k++) { ss[k] = s; syms[k] = k; }
            ck_assert_msg(!nn_batch_build(&b, &g, ss, nsyms, syms, NULL, err, sizeof err), "%s", err);
            for (int k = 0; k < nsyms; k++) {
                const zz_sym *sym = zz_board_sym((zz_board_kind)kind, k);
                zz_pos q;
                zz_sym_pos(sym, &p, &q);
                /* the encoding is the transformed position's, and a permutation of the original's */
                float xq[ZZ_MAX_RINGS * NN_PLANES];
                nn_encode(&g, &q, xq);
                const float *xb = b.x + (size_t)k * P * NN_PLANES;
                ck_assert(!memcmp(xq, xb, sizeof(float) * P * NN_PLANES));
                for (int i = 0; i < P; i++) {
                    int j = g.index[sym->map[g.cell[i]]];
                    ck_assert(j >= 0);
                    ck_assert(!memcmp(x0 + i * NN_PLANES, xb + j * NN_PLANES, sizeof(float) * NN_PLANES));
                }
                /* legal moves: exactly the images of the original's; targets follow the visits */
                int bs = b.start[k], be = b.start[k + 1];
                ck_assert_int_eq(be - bs, n0);
                double pisum = 0;
                for (int i = 0; i < n0; i++) {
                    zz_move im = zz_sym_move(sym, mv[i]);
                    int at = -1;
                    for (int j = bs; j < be; j++) if (b.moves[j] == im) { at = j; break; }
                    ck_assert_msg(at >= 0, "board %d sym %d: image of move %d not legal", kind, k, i);
                    double want = 0;
                    for (int j = 0; j < nv; j++) if (v[j].move == mv[i]) want = v[j].count / total;
                    ck_assert(fabs(b.pi[at] - want) < 1e-7);
                    pisum += b.pi[at];
                    int32_t t[2];
                    nn_move_terms(&g, &q, im, t);
                    ck_assert(t[0] == b.term[2 * at] && t[1] == b.term[2 * at + 1]);
                }
                ck_assert(fabs(pisum - 1) < 1e-6);
                ck_assert(b.z[k] == 0.5f && b.sym[k] == k);
            }
        }
        /* random symmetries: recorded, in range, all of them show up */
        zz_pos p;
        nn_visit v[8];
        int nv, seen[12] = { 0 };
        random_sample((zz_board_kind)kind, &rng, &p, v, &nv);
        nn_sample s64[64];
        for (int i = 0; i < 64; i++) s64[i] = (nn_sample){ .pos = p, .visits = v, .nvisits = nv, .z = -1 };
        ck_assert(!nn_batch_build(&b, &g, s64, 64, NULL, &rng, err, sizeof err));
        for (int i = 0; i < 64; i++) { ck_assert(b.sym[i] < nsyms); seen[b.sym[i]]++; }
        for (int k = 0; k < nsyms; k++) ck_assert(seen[k] > 0);
        nn_batch_free(&b);
    }
}
END_TEST

START_TEST(batch_errors)
{
    char err[256] = "";
    nn_geom g;
    nn_geom_init(&g, ZZ_B37);
    nn_batch b;
    nn_batch_init(&b);
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    int d4 = cell(ZZ_B37, "d4");
    nn_visit ok = { zz_move_place(ZZ_WHITE, d4, cell(ZZ_B37, "a1")), 3 };
    nn_visit bad = { zz_move_jump(d4, cell(ZZ_B37, "d6")), 3 };           /* no marbles: illegal */
    nn_visit none = { ok.move, 0 };
    nn_sample s = { .pos = p, .visits = &ok, .nvisits = 1, .z = 1 };
    ck_assert(!nn_batch_build(&b, &g, &s, 1, NULL, NULL, err, sizeof err));
    ck_assert_int_eq(b.n, 1);
    ck_assert_int_eq(b.aux_known[0], 0);
    /* the captures head's targets: shares of each colour's marbles (37 rings: 6 white, 8 grey,
     * 10 black), mover first: by hand 3/6, 0, 0 and 0, 4/8, 1/10 */
    s.fin = (nn_final_caps){ .cap = { { 3, 0, 0 }, { 0, 4, 1 } }, .known = 1 };
    ck_assert_msg(!nn_batch_build(&b, &g, &s, 1, NULL, NULL, err, sizeof err), "%s", err);
    const float want[NN_AUX] = { 0.5f, 0, 0, 0, 0.5f, 0.1f };
    ck_assert_int_eq(b.aux_known[0], 1);
    for (int k = 0; k < NN_AUX; k++) ck_assert_msg(fabsf(b.aux[k] - want[k]) < 1e-7f, "target %d: %g", k, b.aux[k]);
    s.fin.cap[1][0] = 4;                                /* 3 + 4 white of 6: cannot be */
    ck_assert(nn_batch_build(&b, &g, &s, 1, NULL, NULL, err, sizeof err) == -1);
    ck_assert_msg(strstr(err, "final captures"), "%s", err);
    s.fin.cap[1][0] = 0;
    s.fin.cap[0][2] = 11;                               /* more black than the game has */
    ck_assert(nn_batch_build(&b, &g, &s, 1, NULL, NULL, err, sizeof err) == -1);
    s.fin = (nn_final_caps){ 0 };
    s.visits = &bad;
    ck_assert_int_eq(nn_batch_build(&b, &g, &s, 1, NULL, NULL, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "not legal"), "%s", err);
    s.visits = &none;
    ck_assert_int_eq(nn_batch_build(&b, &g, &s, 1, NULL, NULL, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "no visits"), "%s", err);
    s.visits = &ok;
    int sym = 12;
    ck_assert_int_eq(nn_batch_build(&b, &g, &s, 1, &sym, NULL, err, sizeof err), -1);
    zz_pos_init(&s.pos, ZZ_B61);
    ck_assert_int_eq(nn_batch_build(&b, &g, &s, 1, NULL, NULL, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "another board"), "%s", err);
    s.pos = p;
    s.pos.end = ZZ_END_CAPTURE;
    ck_assert_int_eq(nn_batch_build(&b, &g, &s, 1, NULL, NULL, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "over"), "%s", err);
    /* the batch is usable again after errors (the move table was cleaned) */
    s.pos = p;
    ck_assert(!nn_batch_build(&b, &g, &s, 1, NULL, NULL, err, sizeof err));
    double pisum = 0;
    for (int j = 0; j < b.nmoves; j++) pisum += b.pi[j];
    ck_assert(fabs(pisum - 1) < 1e-6);
    nn_batch_free(&b);
}
END_TEST

/* The exact softmax, in long double, over scores summed without rounding. */
static void priors_exact(const nn_geom *g, const float *logits, const zz_pos *p, const zz_move *moves, int n,
                         long double *out)
{
    long double mx = -INFINITY, sum = 0;
    for (int i = 0; i < n; i++) {
        int32_t t[2];
        long double s = 0;
        if (nn_move_terms(g, p, moves[i], t) > 0) s = (long double)logits[t[0]] + (t[1] >= 0 ? logits[t[1]] : 0);
        out[i] = s;
        if (s > mx) mx = s;
    }
    for (int i = 0; i < n; i++) sum += out[i] = expl(out[i] - mx);
    for (int i = 0; i < n; i++) out[i] /= sum;
}

/* nn_policy_priors (one exp a logit, the weights as products) against the exact softmax on random
 * games of every board, with logits of small and large spread: within 2 float roundings of each
 * prior, or of the smallest float (the first version, which rounded each score to float, was off
 * by up to |score|·2^-24 relative), summing to 1; or, with a logit spread of thousands or a NaN logit, equal bit for bit
 * to the first version, which it falls back to there. */
START_TEST(priors_match_exact_softmax)
{
    uint64_t rng = th_seed();
    static zz_move mv[ZZ_MAX_MOVES];
    static float a[ZZ_MAX_MOVES], b[ZZ_MAX_MOVES];
    static long double ref[ZZ_MAX_MOVES];
    zz_board_kind kinds[3] = { ZZ_B37, ZZ_B48, ZZ_B61 };
    int checked = 0, fallbacks = 0;
    for (int k = 0; k < 3; k++) {
        nn_geom g;
        nn_geom_init(&g, kinds[k]);
        int nl = g.ncells * NN_HEADS;
        float *logits = malloc(sizeof(float) * (size_t)nl);
        ck_assert_ptr_nonnull(logits);
        for (int game = 0; game < 6; game++) {
            zz_pos p;
            zz_pos_init(&p, kinds[k]);
            double spread = game % 3 == 0 ? 8 : game % 3 == 1 ? 60 : 3000;
            while (!zz_over(&p)) {
                int n = zz_gen_moves(&p, mv);
                for (int i = 0; i < nl; i++) logits[i] = (float)(spread * (th_urand(&rng) - 0.5));
                if (spread > 1000 && checked % 7 == 0) logits[zz_rand_below(&rng, (uint32_t)nl)] = NAN;
                nn_policy_priors(&g, logits, &p, mv, n, b);
                nn_policy_priors_shifted(&g, logits, &p, mv, n, a);
                if (spread > 1000 && !memcmp(a, b, sizeof(float) * (size_t)n)) fallbacks++;  /* the first version */
                else {
                    priors_exact(&g, logits, &p, mv, n, ref);
                    double sum = 0;
                    for (int i = 0; i < n; i++) {
                        sum += b[i];
                        ck_assert_msg(fabsl((long double)b[i] - ref[i]) <= ref[i] * 0x1p-23L + 0x1p-149L,
                                      "%d rings, spread %g, move %d of %d: prior %.9g, exact %.12Lg", g.ncells, spread,
                                      i, n, b[i], ref[i]);
                    }
                    ck_assert_msg(fabs(sum - 1) < 1e-5, "priors sum to %.9g", sum);
                }
                checked++;
                zz_apply(&p, mv[zz_rand_below(&rng, (uint32_t)n)], NULL);
            }
        }
        free(logits);
    }
    ck_assert_int_gt(checked, 100);
    ck_assert_int_gt(fallbacks, 20);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nn_policy");
    TCase *tc = tcase_create("policy");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, hand_built_scores_loss_gradient);
    tcase_add_test(tc, jumps_and_chain_continuation);
    tcase_add_test(tc, encoder_planes);
    tcase_add_test(tc, augmentation_maps_moves_and_visits_exactly);
    tcase_add_test(tc, batch_errors);
    tcase_add_test(tc, priors_match_exact_softmax);
    suite_add_tcase(s, tc);
    return th_run(s);
}
