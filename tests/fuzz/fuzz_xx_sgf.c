/* fuzz_xx_sgf.c — libFuzzer target: Zertz+xx (Extreme) SGF records (zz_xx_sgf_parse,
 * src/game/xx.h), which tools/replay and tools/render read.  The input is the record's bytes,
 * exactly.  zz_sgf_is_extreme must not crash on it either; a record that replays must write back
 * (zz_xx_sgf_write) as SGF that reads again to the same turns, result, swap and final position
 * (a game that ends in the middle of a turn included). */
#include "fuzz.h"
#include "game/xx.h"

/* g written as SGF and read back is the same game. */
static void xx_roundtrip(const zz_xx_game *g) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    FZ_ASSERT(f != NULL, "open_memstream");
    FZ_ASSERT(zz_xx_sgf_write(f, g) == 0, "zz_xx_sgf_write failed");
    fclose(f);
    zz_xx_game h;
    char err[400];
    FZ_ASSERT(zz_xx_sgf_parse(buf, len, &h, err, sizeof err) == 0, "the written copy does not read: %s\n%s", err, buf);
    FZ_ASSERT(h.nturns == g->nturns && h.winner == g->winner && h.end == g->end && h.swapped == g->swapped,
              "written copy differs: %d turns (record %d), winner %d (%d), end %d (%d), swapped %d (%d)",
              h.nturns, g->nturns, h.winner, g->winner, (int)h.end, (int)g->end, h.swapped, g->swapped);
    for (int t = 0; t < g->nturns; t++)
        FZ_ASSERT(!strcmp(h.text[t], g->text[t]), "written copy's turn %d: %s, the record %s", t + 1, h.text[t], g->text[t]);
    FZ_ASSERT(!memcmp(&h.final, &g->final, sizeof g->final), "written copy's final position");
    zz_xx_game_free(&h);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    (void)zz_sgf_is_extreme((const char *)data, size);
    zz_xx_game g;
    char err[400];
    int rc = zz_xx_sgf_parse((const char *)data, size, &g, err, sizeof err);
    if (rc == 0) xx_roundtrip(&g);
    else {
        FZ_ASSERT(rc == -1, "zz_xx_sgf_parse returned %d", rc);
        fz_check_message(err, sizeof err);
    }
    zz_xx_game_free(&g);
    return 0;
}
