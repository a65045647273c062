/* rand.c — seeds, uniform and normal draws, and log-domain gamma sampling for Dirichlet noise
 * (Marsaglia & Tsang 2000; shapes below 1 by the boost Gamma(a) = Gamma(a+1) * U^(1/a)). */
#include "rand.h"
#include "game/position.h"
#include <math.h>

uint64_t mcts_seed(uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    x ^= x >> 31;
    return x ? x : 0x9E3779B97F4A7C15ULL;
}

double mcts_rand_unit(uint64_t *rng) {
    return ((double)(zz_rand(rng) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double rand_normal(uint64_t *rng) {
    double u = mcts_rand_unit(rng), v = mcts_rand_unit(rng);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* log of a Gamma(a, 1) draw. */
static double log_gamma_draw(double a, uint64_t *rng) {
    double boost = 0.0;
    if (a < 1.0) {
        boost = log(mcts_rand_unit(rng)) / a;
        a += 1.0;
    }
    double d = a - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x = rand_normal(rng), v = 1.0 + c * x;
        if (v <= 0) continue;
        v = v * v * v;
        double u = mcts_rand_unit(rng);
        if (log(u) < 0.5 * x * x + d - d * v + d * log(v)) return log(d * v) + boost;
    }
}

int mcts_dirichlet(double alpha, int n, double *out, uint64_t *rng) {
    if (n < 1) return -1;
    if (alpha <= 0) alpha = 1e-3;
    double mx = -INFINITY;
    for (int i = 0; i < n; i++) {
        out[i] = log_gamma_draw(alpha, rng);
        if (out[i] > mx) mx = out[i];
    }
    double sum = 0;
    for (int i = 0; i < n; i++) sum += (out[i] = exp(out[i] - mx));
    for (int i = 0; i < n; i++) out[i] /= sum;
    return 0;
}
