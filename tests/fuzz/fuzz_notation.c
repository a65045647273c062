/* fuzz_notation.c — libFuzzer target: games in official notation (rd_load_notation and
 * rd_split_turns, src/render/input.h), what tools/render -m, tools/analyse -m, notation files and
 * the server's {"moves": ...} bodies read; and turn ranges (rd_parse_range, `--turn A-B`).
 * Input: one selector byte (the board: 0 = the smallest that fits, 37, 48 or 61), then the text.
 * A game that loads must load again, on its own board, from its own turns' notation joined with
 * "; ", to the same turns and final position. */
#include "fuzz.h"
#include "render/input.h"

/* The game's turn texts joined, reloaded on its board: the same game. */
static void notation_roundtrip(const zz_game *g) {
    size_t cap = (size_t)g->nturns * (ZZ_NOTATION_MAX + 2) + 1, len = 0;
    char *text = malloc(cap);
    FZ_ASSERT(text != NULL, "out of memory");
    text[0] = 0;
    for (int t = 0; t < g->nturns; t++)
        len += (size_t)snprintf(text + len, cap - len, "%s%s", t ? "; " : "", g->turns[t].text);
    zz_game h;
    char err[400];
    int rings = zz_board_get(g->board)->rings;
    FZ_ASSERT(rd_load_notation(text, rings, &h, err, sizeof err) == 0, "its own notation does not load: %s: %s", err, text);
    FZ_ASSERT(h.nturns == g->nturns && h.board == g->board, "reloaded: %d turns on %d, was %d", h.nturns, (int)h.board, g->nturns);
    for (int t = 0; t < g->nturns; t++)
        FZ_ASSERT(!strcmp(h.turns[t].text, g->turns[t].text), "reloaded turn %d: %s, was %s", t + 1, h.turns[t].text, g->turns[t].text);
    FZ_ASSERT(zz_pos_equal(&h.final, &g->final), "reloaded final position differs");
    zz_game_free(&h);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const int RINGS[4] = { 0, 37, 48, 61 };
    int rings = RINGS[fz_take_byte(&data, &size) & 3];
    char *text = fz_cstr(data, size);
    char err[400];
    char **turns = NULL;
    int n = rd_split_turns(text, &turns, err, sizeof err);
    if (n >= 0) rd_free_turns(turns, n);
    else fz_check_message(err, sizeof err);
    zz_game g;
    int rc = rd_load_notation(text, rings, &g, err, sizeof err);
    if (rc == 0) notation_roundtrip(&g);
    else fz_check_message(err, sizeof err);
    int first = 0, last = 0;
    if (rd_parse_range(text, g.nturns, &first, &last, err, sizeof err) == 0)
        FZ_ASSERT(first >= 0 && first <= last && last <= g.nturns, "range %d-%d of %d turns", first, last, g.nturns);
    zz_game_free(&g);
    free(text);
    return 0;
}
