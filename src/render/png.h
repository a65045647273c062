/* png.h — writing a canvas as a PNG file, atomically (a temporary file beside the target, synced,
 * then renamed over it), so that a reader never sees half a picture. */
#ifndef RD_PNG_H
#define RD_PNG_H

#include "render/raster.h"

/* Write c to path as an 8-bit RGB PNG.  Returns 0, or -1 with a message in err (errlen bytes). */
int rd_png_write(const rd_canvas *c, const char *path, char *err, size_t errlen);

/* Encode c as PNG in memory: returns a malloc'd buffer and its size in *len, or NULL. */
unsigned char *rd_png_encode(const rd_canvas *c, int *len);

#endif
