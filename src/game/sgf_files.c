/* sgf_files.c — recursive *.sgf listing for tools and tests. */
#include "sgf_files.h"
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int push(zz_file_list *l, const char *path) {
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 256;
        char **np = realloc(l->paths, (size_t)cap * sizeof *np);
        if (!np) return -1;
        l->paths = np;
        l->cap = cap;
    }
    if (!(l->paths[l->n] = strdup(path))) return -1;
    l->n++;
    return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int walk(zz_file_list *l, const char *dir, char *err, size_t errlen) {
    DIR *d = opendir(dir);
    if (!d) { snprintf(err, errlen, "%s: %s", dir, strerror(errno)); return -1; }
    int start = l->n, rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *p = malloc(len);
        if (!p) { rc = -1; break; }
        snprintf(p, len, "%s/%s", dir, e->d_name);
        struct stat st;             /* lstat: a link to a folder is not followed (a loop would never end) */
        bool found = lstat(p, &st) == 0;
        if (found && S_ISDIR(st.st_mode)) rc = walk(l, p, err, errlen);
        else if (!found || (S_ISLNK(st.st_mode) && (stat(p, &st) != 0 || S_ISDIR(st.st_mode)))) { /* skipped */ }
        else {
            size_t nl = strlen(e->d_name);
            if (nl > 4 && !strcasecmp(e->d_name + nl - 4, ".sgf") && push(l, p) < 0) rc = -1;
        }
        free(p);
    }
    closedir(d);
    if (rc == 0) qsort(l->paths + start, (size_t)(l->n - start), sizeof *l->paths, cmp_str);
    else if (!*err) snprintf(err, errlen, "out of memory");
    return rc;
}

int zz_file_list_add(zz_file_list *l, const char *path, char *err, size_t errlen) {
    struct stat st;
    if (err && errlen) *err = 0;
    if (stat(path, &st) != 0) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); return -1; }
    if (S_ISDIR(st.st_mode)) return walk(l, path, err, errlen);
    if (push(l, path) < 0) { snprintf(err, errlen, "out of memory"); return -1; }
    return 0;
}

void zz_file_list_free(zz_file_list *l) {
    for (int i = 0; i < l->n; i++) free(l->paths[i]);
    free(l->paths);
    memset(l, 0, sizeof *l);
}
