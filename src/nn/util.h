/* util.h — small helpers shared by the nn files: error messages and CRC-32. */
#ifndef NN_UTIL_H
#define NN_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* printf into err (errlen bytes) when err is not NULL. */
void nn_set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* CRC-32 (IEEE 802.3, as zlib) of len bytes, continuing from crc (start with 0). */
uint32_t nn_crc32(uint32_t crc, const void *data, size_t len);

#endif
