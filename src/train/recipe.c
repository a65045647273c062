/* recipe.c — a run's recipe options (recipe.h): which of tools/train's options are not recipe,
 * and run.args read back as an argument list. */
#include "train/recipe.h"
#include "train/atomic_file.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Options that are not the recipe, and whether each takes a value. */
static const struct { const char *name; bool value; } not_recipe[] = {
    { "--out", true },          { "--minutes", true },        { "--steps", true },
    { "--fresh", false },       { "--resume", false },        { "--quiet", false },
    { "--mpi", false },         { "--threads", true },        { "--eval-threads", true },
    { "--games-in-flight", true }, { "--selfplay-precision", true }, { "--init", true },
    { "--pretrain", true },     { "--pretrain-games", true }, { "--sgd-threads-held", true },
    { "--eval-cache", true },     { "--edge-window", true },
};

/* -1: a recipe argument; else how many arguments (the option and its value) to leave out. */
static int skip_of(const char *a)
{
    for (size_t k = 0; k < sizeof not_recipe / sizeof *not_recipe; k++)
        if (!strcmp(a, not_recipe[k].name)) return not_recipe[k].value ? 2 : 1;
    return -1;
}

int tr_recipe_from_args(int argc, char **argv, char *out, size_t n)
{
    size_t used = 0;
    out[0] = 0;
    for (int i = 1; i < argc; i++) {
        int skip = skip_of(argv[i]);
        if (skip > 0) { i += skip - 1; continue; }
        int w = snprintf(out + used, n - used, "%s\n", argv[i]);
        if (w < 0 || (size_t)w >= n - used) { out[0] = 0; return -1; }
        used += (size_t)w;
    }
    return 0;
}

void tr_recipe_free(char **args, int nargs)
{
    for (int i = 0; i < nargs; i++) free(args[i]);
    free(args);
}

int tr_recipe_load(const char *dir, char ***args, int *nargs, char *err, size_t errlen)
{
    char path[1100], why[512];
    snprintf(path, sizeof path, "%s/%s", dir, TR_RECIPE_FILE);
    *args = NULL;
    *nargs = 0;
    if (access(path, F_OK) != 0) return 0;      /* a run from before run.args, or none */
    size_t len;
    char *text = tr_read_file(path, 1 << 16, &len, why, sizeof why);
    if (!text) { snprintf(err, errlen, "%s", why); return -1; }
    char **list = calloc(len / 2 + 1, sizeof *list);
    int k = 0;
    char *rest = text;
    for (char *line = strtok_r(text, "\n", &rest); list && line; line = strtok_r(NULL, "\n", &rest))
        if (!(list[k++] = strdup(line))) { tr_recipe_free(list, k); list = NULL; }
    free(text);
    if (!list) { snprintf(err, errlen, "%s: out of memory", path); return -1; }
    *args = list;
    *nargs = k;
    return 0;
}
