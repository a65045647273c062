/* recipe.h — a run's recipe: the tools/train options that say how it trains (board, network,
 * search, learning rate, window, evaluation, seed ...), as opposed to where and how long this
 * session runs and what this machine has (--out, --minutes, --steps, --fresh, --resume, --quiet,
 * --mpi, --threads, --eval-threads, --eval-cache, --edge-window, --games-in-flight,
 * --selfplay-precision) and what
 * only a fresh run reads (--init, --pretrain, --pretrain-games).  A new run writes its recipe to OUT/run.args,
 * one argument a line; `tools/train --out OUT` on that run reads it back first, so a resumed run
 * goes on with its own recipe, and options given again override it. */
#ifndef TR_RECIPE_H
#define TR_RECIPE_H

#include <stddef.h>

#define TR_RECIPE_FILE "run.args"

/* The recipe arguments of argv[1..argc): one per line into out.  0, or -1 when they do not fit. */
int tr_recipe_from_args(int argc, char **argv, char *out, size_t n);

/* DIR/run.args as an argument list: *args (free with tr_recipe_free) holding *nargs arguments
 * (none, and 0, when DIR has no such file).  0, or -1 with a message (unreadable, too long). */
int tr_recipe_load(const char *dir, char ***args, int *nargs, char *err, size_t errlen);
void tr_recipe_free(char **args, int nargs);

#endif
