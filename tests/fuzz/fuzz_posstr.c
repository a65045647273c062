/* fuzz_posstr.c — libFuzzer target: the one-line position string (zz_pos_from_string,
 * src/game/posstr.h), read by the engine's `position zpos:...` and the server's /api/analyse.
 * The input is the text.  A position read must be consistent (zz_pos_validate), and write back
 * (zz_pos_to_string) as a line that reads to the same position; a failed read leaves p alone. */
#include "fuzz.h"
#include "game/posstr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fz_cstr(data, size);
    zz_pos p, untouched;
    memset(&p, 0xA5, sizeof p);
    untouched = p;
    char err[256];
    if (zz_pos_from_string(text, &p, err, sizeof err) == 0) {
        const char *why = zz_pos_validate(&p);
        FZ_ASSERT(why == NULL, "an inconsistent position was read: %s", why);
        char line[ZZ_POSSTR_MAX];
        int len = zz_pos_to_string(&p, line);
        FZ_ASSERT(len > 0 && len < ZZ_POSSTR_MAX && (size_t)len == strlen(line), "zz_pos_to_string length %d", len);
        zz_pos q;
        FZ_ASSERT(zz_pos_from_string(line, &q, err, sizeof err) == 0, "'%s' does not read back: %s", line, err);
        FZ_ASSERT(zz_pos_equal(&p, &q) && p.ply == q.ply && p.end == q.end && p.winner == q.winner,
                  "'%s' reads back to another position", line);
    } else {
        fz_check_message(err, sizeof err);
        FZ_ASSERT(!memcmp(&p, &untouched, sizeof p), "a failed read changed the position");
    }
    free(text);
    return 0;
}
