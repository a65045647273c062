/* png.c — PNG output through stb_image_write (the one translation unit that holds its
 * implementation), written to a temporary file and renamed into place. */
#include "render/png.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#define STBIW_ASSERT(x) ((void)0)
#include <stb_image_write.h>

unsigned char *rd_png_encode(const rd_canvas *c, int *len) {
    if (!c->px || c->w <= 0 || c->h <= 0) return NULL;
    return stbi_write_png_to_mem(c->px, c->w * 3, c->w, c->h, 3, len);
}

int rd_png_write(const rd_canvas *c, const char *path, char *err, size_t errlen) {
    int len = 0;
    unsigned char *png = rd_png_encode(c, &len);
    if (!png) { snprintf(err, errlen, "%s: cannot encode the picture", path); return -1; }
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (!tmp) { free(png); snprintf(err, errlen, "%s: out of memory", path); return -1; }
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        free(tmp); free(png);
        return -1;
    }
    int bad = 0, e = 0;
    if (fwrite(png, 1, (size_t)len, f) != (size_t)len || fflush(f) != 0) { bad = 1; e = errno; }
    if (!bad && fsync(fileno(f)) != 0 && errno != EINVAL) { bad = 1; e = errno; }
    if (fclose(f) != 0 && !bad) { bad = 1; e = errno; }
    if (!bad && rename(tmp, path) != 0) { bad = 1; e = errno; }
    if (bad) {
        snprintf(err, errlen, "%s: %s", path, strerror(e ? e : EIO));
        remove(tmp);
    }
    free(tmp);
    free(png);
    return bad ? -1 : 0;
}
