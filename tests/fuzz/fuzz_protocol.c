/* fuzz_protocol.c — libFuzzer target: the engine protocol's command lines (ze_protocol_command,
 * src/engine/protocol.h), what tools/engine reads from any client.  Input: one selector byte
 * (the agent: "random", or "uct:50" for a real search), then command lines separated by '\n'
 * (at most 64), run in order on one fresh session.  Every command that is not blank must be
 * answered with lines ending in "ok", and an error must be exactly "err ...", "ok".
 *
 * Left out, so that a run stays fast and touches nothing outside: lines naming an agent
 * (`options set agent cmd:PROGRAM` runs programs, `puct:FILE` reads files), `threads` and `sgf`
 * (`position sgf FILE` reads files: fuzz_sgf covers the parser), and budgets over 100
 * simulations or 5 ms. */
#include "fuzz.h"
#include "engine/protocol.h"
#include <math.h>

/* Whether the harness runs this line (see the header). */
static bool protocol_line_allowed(const char *line) {
    if (strstr(line, "agent") || strstr(line, "threads") || strstr(line, "sgf")) return false;
    static const struct { const char *word; double max; } BUDGET[2] = { { "sims", 100 }, { "time", 5 } };
    for (int k = 0; k < 2; k++)
        for (const char *p = strstr(line, BUDGET[k].word); p; p = strstr(p + 1, BUDGET[k].word)) {
            char *end;
            double v = strtod(p + 4, &end);
            if (end != p + 4 && !(fabs(v) <= BUDGET[k].max)) return false;
        }
    return true;
}

/* The answer to one command: nothing for a blank line, else lines ending with "ok", and an error
 * is the two lines "err ..." and "ok". */
static void protocol_check_answer(const char *line, const char *ans, size_t len) {
    bool blank = true;
    for (const char *p = line; *p; p++) blank &= strchr(" \t\n\v\f\r", *p) != NULL;
    if (blank) { FZ_ASSERT(len == 0, "a blank line was answered"); return; }
    FZ_ASSERT(len >= 3 && !memcmp(ans + len - 3, "ok\n", 3) && (len == 3 || ans[len - 4] == '\n'),
              "'%s' was not answered with ok", line);
    const char *e = strstr(ans, "err ");
    if (e && (e == ans || e[-1] == '\n')) {
        FZ_ASSERT(e == ans && memchr(ans, '\n', len) == ans + len - 4, "'%s': an error answer is not 'err ...' then 'ok'", line);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *spec = fz_take_byte(&data, &size) & 1 ? "uct:50" : "random";
    char err[256];
    ze_protocol *s = ze_protocol_new(spec, 1, 7, err, sizeof err);
    FZ_ASSERT(s != NULL, "%s", err);
    char *text = fz_cstr(data, size);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    FZ_ASSERT(out != NULL, "open_memstream");
    char *line = text;
    for (int n = 0; line && n < 64; n++) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = 0;
        if (protocol_line_allowed(line)) {
            fflush(out);
            size_t before = len;
            int quit = ze_protocol_command(s, line, out);
            fflush(out);
            protocol_check_answer(line, buf + before, len - before);
            if (quit) break;
        }
        line = nl ? nl + 1 : NULL;
    }
    fclose(out);
    free(buf);
    free(text);
    ze_protocol_free(s);
    return 0;
}
