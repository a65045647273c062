/* plot.h — the progress picture OUTDIR/progress.png: the policy loss and the value loss against
 * SGD steps (each on its own axis), the self-play Elo rating of each generation, and its Elo against
 * the fixed opponents (uct:100, random) with 95% error bars, so that real strength shows and not
 * only self-play inflation; drawn with src/render. */
#ifndef TR_PLOT_H
#define TR_PLOT_H

#include <stddef.h>

enum { TR_MAX_ANCHORS = 4 };

/* Elo against a fixed opponent (uct:100, random) per generation, with its 95% interval. */
typedef struct {
    char name[32];
    double *x, *y, *lo, *hi;
    int n, cap;
} tr_anchor;

typedef struct {
    double *x, *a, *b;          /* steps, policy loss, value loss */
    int n, cap;
    double *gx, *gy;            /* generation, rating */
    int gn, gcap;
    tr_anchor anchor[TR_MAX_ANCHORS];
    int nanchors;
} tr_history;

void tr_history_free(tr_history *h);
/* Append a loss point / a rating point.  0, or -1 when out of memory. */
int tr_history_loss(tr_history *h, double step, double policy, double value);
int tr_history_rating(tr_history *h, double generation, double rating);
/* Append generation's Elo [lo, hi] against the fixed opponent `name` (the first TR_MAX_ANCHORS
 * names get a curve each; others are dropped).  0, or -1 when out of memory. */
int tr_history_anchor(tr_history *h, double generation, const char *name, double elo, double lo, double hi);
/* Draw the history into path (PNG).  0, or -1 with a message. */
int tr_plot_write(const tr_history *h, const char *path, const char *title, char *err, size_t errlen);

#endif
