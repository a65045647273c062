/* plot.h — the progress picture OUTDIR/progress.png: the training losses (policy, value) against
 * SGD steps, and the Elo rating of each generation, drawn with src/render and written atomically. */
#ifndef TR_PLOT_H
#define TR_PLOT_H

#include <stddef.h>

typedef struct {
    double *x, *a, *b;          /* steps, policy loss, value loss */
    int n, cap;
    double *gx, *gy;            /* generation, rating */
    int gn, gcap;
} tr_history;

void tr_history_free(tr_history *h);
/* Append a loss point / a rating point.  0, or -1 when out of memory. */
int tr_history_loss(tr_history *h, double step, double policy, double value);
int tr_history_rating(tr_history *h, double generation, double rating);
/* Draw the history into path (PNG).  0, or -1 with a message. */
int tr_plot_write(const tr_history *h, const char *path, const char *title, char *err, size_t errlen);

#endif
