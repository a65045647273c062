/* fuzz_move_text.c — libFuzzer target: one move or one turn in official notation at a position
 * (zz_move_from_text and zz_turn_from_text, src/game/notation.h), what the engine's `play` and
 * `position startpos moves ...` and the server's moves read.  Input: one selector byte (the board,
 * and how many random plies from its opening, with a fixed seed: openings, middle games, capture
 * chains), then the text.  A move read must be legal and write back (zz_move_to_text) as text
 * that reads to the same move; a turn read must be legal move by move, end where `after` says,
 * and write back (zz_turn_to_text) as text that reads to the same moves. */
#include "fuzz.h"
#include "game/notation.h"

/* The opening of board sel % 3 with sel / 3 random plies played (fewer if the game ends). */
static void move_text_position(unsigned sel, zz_pos *p) {
    zz_pos_init(p, (zz_board_kind)(sel % 3));
    uint64_t rng = 0x9E3779B97F4A7C15ull * (sel + 1);
    for (unsigned k = 0; k < sel / 3 && !zz_over(p); k++) zz_apply(p, zz_random_move(p, &rng), NULL);
}

static void move_text_check_move(const zz_pos *p, zz_move m) {
    FZ_ASSERT(zz_is_legal(p, m), "an illegal move was read");
    char t[ZZ_NOTATION_MAX], err[256];
    zz_move_to_text(p, m, t);
    zz_move again;
    FZ_ASSERT(zz_move_from_text(p, t, &again, err, sizeof err) == 0 && again == m, "'%s' does not read back: %s", t, err);
}

static void move_text_check_turn(const zz_pos *p, const zz_move *moves, int n, const zz_pos *after) {
    FZ_ASSERT(n >= 1 && n <= ZZ_MAX_CHAIN, "%d moves in a turn", n);
    zz_pos q = *p;
    for (int i = 0; i < n; i++) {
        FZ_ASSERT(zz_is_legal(&q, moves[i]), "move %d of the turn is illegal", i + 1);
        zz_apply(&q, moves[i], NULL);
    }
    FZ_ASSERT(zz_pos_equal(&q, after), "after differs from the moves played");
    char t[ZZ_NOTATION_MAX], err[256];
    zz_turn_to_text(p, moves, n, t);
    zz_move again[ZZ_MAX_CHAIN];
    int k = zz_turn_from_text(p, t, again, NULL, err, sizeof err);
    FZ_ASSERT(k == n && !memcmp(again, moves, (size_t)n * sizeof *moves), "'%s' does not read back: %s", t, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    zz_pos p;
    move_text_position(fz_take_byte(&data, &size), &p);
    char *text = fz_cstr(data, size);
    char err[256];
    zz_move m;
    if (zz_move_from_text(&p, text, &m, err, sizeof err) == 0) move_text_check_move(&p, m);
    else fz_check_message(err, sizeof err);
    zz_move moves[ZZ_MAX_CHAIN];
    zz_pos after;
    int n = zz_turn_from_text(&p, text, moves, &after, err, sizeof err);
    if (n > 0) move_text_check_turn(&p, moves, n, &after);
    else {
        FZ_ASSERT(n == -1, "zz_turn_from_text returned %d", n);
        fz_check_message(err, sizeof err);
    }
    free(text);
    return 0;
}
