/* fuzz_sgf.c — libFuzzer target: Boardspace SGF records (zz_sgf_parse, src/game/sgf.h), the
 * reader behind tools/replay, tools/render, tools/analyse, the engine's `position sgf` and the
 * server's {"sgf": ...} bodies.  The input is the record's bytes, exactly (not NUL-terminated:
 * the parser must keep to len).  A record that replays must have consistent start and final
 * positions and write back (zz_sgf_write) as SGF that reads again to the same game: board,
 * variant, first player, start, turns, final position (a game that ends in the middle of a
 * turn included) and result. */
#include "fuzz.h"
#include "game/sgf.h"

/* g written as SGF and read back is the same game. */
static void sgf_roundtrip(const zz_game *g) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    FZ_ASSERT(f != NULL, "open_memstream");
    FZ_ASSERT(zz_sgf_write(f, g) == 0, "zz_sgf_write failed");
    fclose(f);
    zz_game h;
    char err[400];
    FZ_ASSERT(zz_sgf_parse(buf, len, &h, err, sizeof err) == 0, "the written copy does not read: %s\n%s", err, buf);
    FZ_ASSERT(h.board == g->board && !strcmp(h.variant, g->variant) && h.first_player == g->first_player,
              "written copy's board, variant or first player");
    FZ_ASSERT(zz_pos_equal(&h.start, &g->start), "written copy's start position");
    FZ_ASSERT(h.nturns == g->nturns, "written copy has %d turns, the record %d", h.nturns, g->nturns);
    for (int t = 0; t < g->nturns; t++)
        FZ_ASSERT(h.turns[t].player == g->turns[t].player && !strcmp(h.turns[t].text, g->turns[t].text),
                  "written copy's turn %d: P%d %s, the record P%d %s", t + 1, h.turns[t].player, h.turns[t].text,
                  g->turns[t].player, g->turns[t].text);
    FZ_ASSERT(h.winner == g->winner && h.end == g->end, "written copy's result");
    FZ_ASSERT(zz_pos_equal(&h.final, &g->final), "written copy's final position");
    zz_game_free(&h);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    zz_game g;
    char err[400];
    int rc = zz_sgf_parse((const char *)data, size, &g, err, sizeof err);
    if (rc != 0) {
        FZ_ASSERT(rc == -1, "zz_sgf_parse returned %d", rc);
        fz_check_message(err, sizeof err);
    } else {
        FZ_ASSERT(zz_pos_validate(&g.start) == NULL && zz_pos_validate(&g.final) == NULL, "inconsistent positions");
        FZ_ASSERT(!zz_is_winning_set(g.start.cap[0]) && !zz_is_winning_set(g.start.cap[1]),
                  "the start position already gives a player a winning set");
        /* the game's end is its final position's */
        FZ_ASSERT(g.end == ZZ_END_UNFINISHED || (g.final.end == g.end && g.final.winner == g.winner),
                  "the game ends by %s (winner %d) but its final position by %d (winner %d)", zz_end_name(g.end), g.winner,
                  (int)g.final.end, (int)g.final.winner);
        sgf_roundtrip(&g);
    }
    zz_game_free(&g);
    return 0;
}
