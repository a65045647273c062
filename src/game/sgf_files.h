/* sgf_files.h — collecting the SGF files named on a command line (files, or folders searched
 * recursively for *.sgf), in a stable sorted order. */
#ifndef ZZ_SGF_FILES_H
#define ZZ_SGF_FILES_H

#include <stddef.h>

typedef struct {
    char **paths;
    int n, cap;
} zz_file_list;

/* Add path: a file is added as it is; a folder adds every *.sgf below it (sorted; links to files
 * count, links to folders are not followed, as find does not).
 * Returns 0, or -1 with a message when path does not exist or cannot be read. */
int zz_file_list_add(zz_file_list *l, const char *path, char *err, size_t errlen);
void zz_file_list_free(zz_file_list *l);

#endif
