/* test_engine.c — the engine protocol: a scripted session through the protocol handler on
 * in-memory streams (every command, errors that leave the state alone, single jumps as moves,
 * whole turns, a complete game), and the real binary ($ZZ_TOOLDIR/engine) over pipes; and the
 * command line of every tool (tools/cli.h): -h and --help print usage and
 * exit 0, an unknown option or a numeric value out of range (or not a number) is refused with
 * "zertz: TOOL: OPTION: WHY" on one line and exit status 2, before anything runs. */
#include "helpers.h"
#include "mcts/proc.h"
#include "engine/protocol.h"
#include "nn/checkpoint.h"
#include "game/notation.h"
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Run one command; returns its answer lines (malloc'd, NUL-separated into lines[]). */
typedef struct { char *buf; char *line[4096]; int n; } answer;

static void ask(ze_protocol *s, const char *cmd, answer *a) {
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    ze_protocol_command(s, cmd, out);
    fclose(out);
    a->buf = buf;
    a->n = 0;
    for (char *p = buf; *p && a->n < 4096;) {
        char *nl = strchr(p, '\n');
        ck_assert_msg(nl != NULL, "unterminated line after '%s'", cmd);
        *nl = 0;
        a->line[a->n++] = p;
        p = nl + 1;
    }
}

static void done(answer *a) { free(a->buf); }

/* The command must succeed: last line "ok", no "err". Returns the number of lines before ok. */
static int ask_ok(ze_protocol *s, const char *cmd, answer *a) {
    ask(s, cmd, a);
    ck_assert_msg(a->n >= 1 && !strcmp(a->line[a->n - 1], "ok"), "'%s' did not end with ok", cmd);
    for (int i = 0; i < a->n; i++) ck_assert_msg(strncmp(a->line[i], "err", 3), "'%s': %s", cmd, a->line[i]);
    return a->n - 1;
}

static void ask_err(ze_protocol *s, const char *cmd) {
    answer a;
    zz_pos before = *ze_protocol_position(s);
    ask(s, cmd, &a);
    ck_assert_msg(a.n == 2 && !strncmp(a.line[0], "err ", 4) && !strcmp(a.line[1], "ok"), "'%s' was not an error", cmd);
    ck_assert(zz_pos_equal(&before, ze_protocol_position(s)));      /* state unchanged */
    ck_assert_int_eq(before.ply, ze_protocol_position(s)->ply);
    done(&a);
}

START_TEST(protocol_commands) {
    char err[256];
    ze_protocol *s = ze_protocol_new("uct:300", 1, 7, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    answer a;
    ck_assert_int_eq(ask_ok(s, "info", &a), 3);
    ck_assert(!strncmp(a.line[0], "id zertz-mcts", 13));
    ck_assert_str_eq(a.line[1], "agent uct:300");
    done(&a);
    ask(s, "   ", &a);                                   /* blank: no answer at all */
    ck_assert_int_eq(a.n, 0);
    done(&a);
    ck_assert_int_eq(ask_ok(s, "newgame 48", &a), 0);
    done(&a);
    ck_assert_int_eq(zz_pos_board(ze_protocol_position(s))->rings, 48);
    int nb = ask_ok(s, "board", &a);
    int found = 0;
    for (int i = 0; i < nb; i++) found |= !strcmp(a.line[i], "rings 48 ply 0 to_move 0");
    ck_assert(found);
    ck_assert_str_eq(a.line[nb - 1], "result none");
    done(&a);
    /* validmoves: every legal move, parsed back */
    ck_assert_int_eq(ask_ok(s, "validmoves", &a), 1);
    int count = 1;
    for (char *p = a.line[0]; *p; p++) count += *p == ';';
    ck_assert_int_eq(count, zz_count_moves(ze_protocol_position(s)));
    char first[64];
    snprintf(first, sizeof first, "%.*s", (int)strcspn(a.line[0], ";"), a.line[0]);
    done(&a);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "play %s", first);
    ck_assert_int_eq(ask_ok(s, cmd, &a), 0);
    done(&a);
    ck_assert_int_eq(ze_protocol_position(s)->ply, 1);
    /* errors leave everything as it was */
    ask_err(s, "play");
    ask_err(s, "play Zz99");
    ask_err(s, "play Wa1,a1");
    ask_err(s, "play x d1Gd3");
    ask_err(s, "bestmove sims");
    ask_err(s, "bestmove sims -3");
    ask_err(s, "bestmove depth 3");
    ask_err(s, "undo 5");
    ask_err(s, "undo x");
    ask_err(s, "newgame 50");
    ask_err(s, "frobnicate");
    ask_err(s, "options set bogus 1");
    ask_err(s, "options set agent alphabeta");
    ask_err(s, "options set threads 0");
    /* bestmove does not play */
    ck_assert_int_eq(ask_ok(s, "bestmove sims 200", &a), 1);
    zz_move m;
    ck_assert_msg(zz_move_from_text(ze_protocol_position(s), a.line[0], &m, err, sizeof err) == 0, "%s", err);
    done(&a);
    ck_assert_int_eq(ze_protocol_position(s)->ply, 1);
    ck_assert_int_eq(ask_ok(s, "bestmove time 30", &a), 1);
    ck_assert(zz_move_from_text(ze_protocol_position(s), a.line[0], &m, err, sizeof err) == 0);
    done(&a);
    ck_assert_int_eq(ask_ok(s, "undo", &a), 0);
    done(&a);
    ck_assert_int_eq(ze_protocol_position(s)->ply, 0);
    /* options */
    ck_assert_int_eq(ask_ok(s, "options", &a), 5);
    done(&a);
    ck_assert_int_eq(ask_ok(s, "options set sims 120", &a), 0);
    done(&a);
    ck_assert_int_eq(ask_ok(s, "options get sims", &a), 1);
    ck_assert_str_eq(a.line[0], "sims 120");
    done(&a);
    ck_assert_int_eq(ask_ok(s, "options set agent random", &a), 0);
    done(&a);
    ck_assert_int_eq(ask_ok(s, "options get agent", &a), 1);
    ck_assert_str_eq(a.line[0], "agent random");
    done(&a);
    ask(s, "quit", &a);
    ck_assert(a.n == 1 && !strcmp(a.line[0], "ok"));
    done(&a);
    ze_protocol_free(s);
}
END_TEST

/* A random game (seeded) with a chain of at least two jumps: the moves before the chain, and the
 * chain. */
static int find_chain(zz_move *before, int *nbefore, zz_move *chain) {
    for (uint64_t seed = 1; seed < 5000; seed++) {
        uint64_t rng = seed;
        zz_pos p;
        zz_pos_init(&p, ZZ_B37);
        int n = 0;
        while (!zz_over(&p)) {
            if (zz_must_capture(&p)) {   /* play the whole capture turn and see how long it is */
                zz_pos q = p;
                int k = 0, me = q.to_move;
                do { chain[k++] = zz_random_move(&q, &rng); zz_apply(&q, chain[k - 1], NULL); }
                while (!zz_over(&q) && q.to_move == me && q.chain != ZZ_NO_CELL && k < ZZ_MAX_CHAIN);
                if (k >= 2) { *nbefore = n; return k; }
                for (int i = 0; i < k; i++) { before[n++] = chain[i]; zz_apply(&p, chain[i], NULL); }
                continue;
            }
            before[n] = zz_random_move(&p, &rng);
            zz_apply(&p, before[n++], NULL);
        }
    }
    return 0;
}

START_TEST(protocol_jumps_and_whole_turns) {
    zz_move before[512], chain[ZZ_MAX_CHAIN];
    int nbefore = 0, k = find_chain(before, &nbefore, chain);
    ck_assert_int_ge(k, 2);
    char err[256], cmd[ZZ_NOTATION_MAX + 16], text[ZZ_NOTATION_MAX];
    ze_protocol *s = ze_protocol_new("uct:100", 1, 1, err, sizeof err);
    answer a;
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    for (int i = 0; i < nbefore; i++) {
        zz_move_to_text(&p, before[i], text);
        snprintf(cmd, sizeof cmd, "play %s", text);
        ask_ok(s, cmd, &a);
        done(&a);
        zz_apply(&p, before[i], NULL);
    }
    ck_assert(zz_pos_equal(&p, ze_protocol_position(s)));
    /* bestmove answers a single jump; the same player moves again after it */
    ck_assert_int_eq(ask_ok(s, "bestmove sims 100", &a), 1);
    zz_move m;
    ck_assert(zz_move_from_text(&p, a.line[0], &m, err, sizeof err) == 0);
    ck_assert(zz_move_is_jump(m));
    ck_assert(!strncmp(a.line[0], "x ", 2));
    done(&a);
    /* the whole chain as one turn */
    zz_turn_to_text(&p, chain, k, text);
    snprintf(cmd, sizeof cmd, "play %s", text);
    ck_assert_int_eq(ask_ok(s, cmd, &a), 0);
    done(&a);
    for (int i = 0; i < k; i++) zz_apply(&p, chain[i], NULL);
    ck_assert(zz_pos_equal(&p, ze_protocol_position(s)));
    snprintf(cmd, sizeof cmd, "undo %d", k);
    ask_ok(s, cmd, &a);
    done(&a);
    /* and jump by jump */
    zz_pos q = *ze_protocol_position(s);
    int me = q.to_move;
    for (int i = 0; i < k; i++) {
        zz_move_to_text(&q, chain[i], text);
        snprintf(cmd, sizeof cmd, "play %s", text);
        ask_ok(s, cmd, &a);
        done(&a);
        zz_apply(&q, chain[i], NULL);
        if (i < k - 1) ck_assert_int_eq(ze_protocol_position(s)->to_move, me);
    }
    ck_assert(zz_pos_equal(&p, ze_protocol_position(s)));
    ze_protocol_free(s);
}
END_TEST

START_TEST(protocol_full_game) {
    char err[256];
    ze_protocol *s = ze_protocol_new("uct:100", 1, 3, err, sizeof err);
    answer a;
    ask_ok(s, "newgame 37", &a);
    done(&a);
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    while (!zz_over(&p)) {
        ck_assert_int_eq(ask_ok(s, "bestmove", &a), 1);
        zz_move m;
        ck_assert_msg(zz_move_from_text(&p, a.line[0], &m, err, sizeof err) == 0, "%s: %s", a.line[0], err);
        char cmd[ZZ_NOTATION_MAX + 8];
        snprintf(cmd, sizeof cmd, "play %s", a.line[0]);
        done(&a);
        ask_ok(s, cmd, &a);
        done(&a);
        zz_apply(&p, m, NULL);
        ck_assert(zz_pos_equal(&p, ze_protocol_position(s)));
    }
    ask_err(s, "bestmove");
    ask_err(s, "play Wa1,a2");
    ck_assert_int_eq(ask_ok(s, "validmoves", &a), 1);
    ck_assert_str_eq(a.line[0], "");
    done(&a);
    int nb = ask_ok(s, "board", &a);
    ck_assert(!strncmp(a.line[nb - 1], "result ", 7) && strcmp(a.line[nb - 1], "result none"));
    done(&a);
    ze_protocol_free(s);
}
END_TEST

START_TEST(protocol_run_over_streams) {
    const char script[] = "info\n\nnewgame 61\nplay Wa1,a2\nbogus\nundo\nboard\nquit\ninfo\n";
    FILE *in = fmemopen((void *)script, sizeof script - 1, "r");
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    char err[256];
    ze_protocol *s = ze_protocol_new("random", 1, 1, err, sizeof err);
    ck_assert_int_eq(ze_protocol_run(s, in, out), 0);
    fclose(in);
    fclose(out);
    int oks = 0, errs = 0;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        oks += !strcmp(line, "ok");
        errs += !strncmp(line, "err ", 4);
    }
    ck_assert_int_eq(oks, 7);            /* 7 commands before quit (blank line ignored), stops there */
    ck_assert_int_eq(errs, 1);
    ck_assert_int_eq(zz_pos_board(ze_protocol_position(s))->rings, 61);
    ck_assert_int_eq(ze_protocol_position(s)->ply, 0);
    free(buf);
    ze_protocol_free(s);
}
END_TEST

/* position (startpos with moves, zpos, sgf) and result; board's position line reads back. */
START_TEST(protocol_position_and_result) {
    char err[256];
    ze_protocol *s = ze_protocol_new("uct:50", 1, 7, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    answer a;
    ask_ok(s, "position startpos moves Wd4,d1; Gc3,a1", &a);
    done(&a);
    zz_pos want;
    th_build(&want, ZZ_B37, NULL, NULL);
    zz_pos_init(&want, ZZ_B37);
    zz_move m[ZZ_MAX_CHAIN];
    zz_pos after;
    ck_assert_int_eq(zz_turn_from_text(&want, "Wd4,d1", m, &after, err, sizeof err), 1);
    want = after;
    ck_assert_int_eq(zz_turn_from_text(&want, "Gc3,a1", m, &after, err, sizeof err), 1);
    ck_assert(zz_pos_equal(ze_protocol_position(s), &after));
    int n = ask_ok(s, "board", &a);
    const char *zline = NULL;
    for (int i = 0; i < n; i++) if (!strncmp(a.line[i], "position zpos:", 14)) zline = a.line[i] + 9;
    ck_assert_ptr_nonnull(zline);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "position %s", zline);
    done(&a);
    ask_ok(s, "newgame 61", &a);
    done(&a);
    ask_ok(s, cmd, &a);                               /* the same position, from its line */
    done(&a);
    ck_assert(zz_pos_equal(ze_protocol_position(s), &after));
    ck_assert_int_eq(ask_ok(s, "result", &a), 1);
    ck_assert_str_eq(a.line[0], "result none");
    done(&a);
    ask_ok(s, "bestmove", &a);                        /* the agent follows the new position */
    zz_move best;
    ck_assert_msg(zz_move_from_text(&after, a.line[0], &best, err, sizeof err) == 0, "%s", err);
    done(&a);
    ask_err(s, "undo");                               /* a zpos position has no history */
    ask_err(s, "position zpos:37:..:6,8,10");
    ask_err(s, "position startpos moves Wd4,d1; Wd4,d2");
    ask_err(s, "position startpos 50");
    ask_err(s, "position sgf /nonexistent.sgf");
    ask_err(s, "position");
    const char *dir = th_archive_dir();               /* a whole archive game: over, with history */
    if (dir) {
        snprintf(cmd, sizeof cmd, "position sgf %s/sgf/37/2006/Z-SmartBot-guest-2006-08-14-2211.sgf", dir);
        ask_ok(s, cmd, &a);
        done(&a);
        ck_assert(zz_over(ze_protocol_position(s)));
        ck_assert_int_eq(ask_ok(s, "result", &a), 1);
        ck_assert(!strncmp(a.line[0], "result ", 7) && strcmp(a.line[0], "result none"));
        done(&a);
        ask_ok(s, "undo 2", &a);
        done(&a);
        ck_assert(!zz_over(ze_protocol_position(s)));
    } else {
        th_skip("test_engine", "position sgf of an archive game: no archive");
    }
    ze_protocol_free(s);
}
END_TEST

START_TEST(engine_binary_over_pipes) {
    const char *dir = getenv("ZZ_TOOLDIR");
    char prog[600];
    snprintf(prog, sizeof prog, "%s/engine", dir && *dir ? dir : "tools");
    if (access(prog, X_OK) != 0) {
        th_skip("test_engine", "binary test: %s not built", prog);
        return;
    }
    signal(SIGPIPE, SIG_IGN);
    char cmdline[700], err[256], line[8192];
    snprintf(cmdline, sizeof cmdline, "%s --agent uct:200 --seed 5", prog);
    mcts_proc p;
    ck_assert_msg(mcts_proc_spawn(&p, cmdline, err, sizeof err) == 0, "%s", err);
    const char *cmds[] = { "info", "newgame 37", "play Wd4,a1", "play nonsense", "bestmove sims 100", "undo", "quit" };
    int errs = 0;
    for (unsigned i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        ck_assert_int_eq(mcts_proc_send(&p, cmds[i]), 0);
        for (;;) {
            ck_assert_msg(mcts_proc_read_line(&p, line, sizeof line) == 0, "engine stopped after '%s'", cmds[i]);
            if (!strcmp(line, "ok")) break;
            errs += !strncmp(line, "err ", 4);
            if (i == 0) ck_assert(!strncmp(line, "id ", 3) || !strncmp(line, "agent ", 6) || !strncmp(line, "boards", 6));
        }
    }
    ck_assert_int_eq(errs, 1);
    ck_assert_int_eq(mcts_proc_read_line(&p, line, sizeof line), -1);   /* exited after quit */
    mcts_proc_close(&p);
}
END_TEST

static const char *const TOOLS[] = { "arena", "engine", "replay", "render", "nn_dump", "bench_game",
                                      "bench_mcts", "bench_nn", "bench_train", "train", "strength",
                                      "analyse", "serve", "equivariance", "fit" };

/* err is one line starting with prefix. */
static void one_line_from(const char *what, const char *err, const char *prefix) {
    ck_assert_msg(!strncmp(err, prefix, strlen(prefix)), "%s: expected '%s...', got: %s", what, prefix, err);
    const char *nl = strchr(err, '\n');
    ck_assert_msg(nl && nl[1] == 0, "%s: not one line: %s", what, err);
}

/* The engine with no --agent plays the shipped network ($ZZ_WEIGHTS_DIR/zertz37.ckpt), and UCT
 * when none is shipped. */
START_TEST(engine_default_player) {
    const char *dir = getenv("ZZ_TOOLDIR");
    char prog[600];
    snprintf(prog, sizeof prog, "%s/engine", dir && *dir ? dir : "tools");
    if (access(prog, X_OK) != 0) {
        th_skip("test_engine", "default player test: %s not built", prog);
        return;
    }
    signal(SIGPIPE, SIG_IGN);
    char wdir[] = "/tmp/zz-engine-weights-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(wdir));
    char ckpt[200], err[256], line[8192], cmdline[900];
    snprintf(ckpt, sizeof ckpt, "%s/zertz37.ckpt", wdir);
    for (int shipped = 0; shipped < 2; shipped++) {
        if (shipped) th_save_small_net(ckpt, 3);
        snprintf(cmdline, sizeof cmdline, "ZZ_WEIGHTS_DIR=%s %s 2>/dev/null", wdir, prog);
        mcts_proc p;
        ck_assert_msg(mcts_proc_spawn(&p, cmdline, err, sizeof err) == 0, "%s", err);
        const char *cmds[] = { "info", "bestmove sims 20", "quit" };
        const char *agent = NULL;
        for (unsigned i = 0; i < 3; i++) {
            ck_assert_int_eq(mcts_proc_send(&p, cmds[i]), 0);
            for (;;) {
                ck_assert_msg(mcts_proc_read_line(&p, line, sizeof line) == 0, "engine stopped after '%s'", cmds[i]);
                if (!strcmp(line, "ok")) break;
                ck_assert_msg(strncmp(line, "err", 3), "%s: %s", cmds[i], line);
                if (!strncmp(line, "agent ", 6))
                    agent = shipped ? strstr(line, "agent puct:default:") : strstr(line, "agent " MCTS_FALLBACK_PLAYER);
            }
            if (i == 0) ck_assert_msg(agent != NULL, "shipped %d: wrong default agent", shipped);
        }
        mcts_proc_close(&p);
    }
    unlink(ckpt);
    rmdir(wdir);
}
END_TEST

START_TEST(tools_help_and_unknown_options) {
    char out[16384], err[4096], what[128];
    for (unsigned t = 0; t < sizeof TOOLS / sizeof *TOOLS; t++) {
        const char *help[] = { "-h", "--help" };
        for (int k = 0; k < 2; k++) {
            int st = th_run_tool("test_engine", TOOLS[t], help[k], 60, out, sizeof out, err, sizeof err);
            if (st < 0) continue;
            ck_assert_msg(st == 0, "%s %s: status %d: %s", TOOLS[t], help[k], st, err);
            ck_assert_msg(!strncmp(out, "usage: ", 7), "%s %s printed: %.200s", TOOLS[t], help[k], out);
        }
        int st = th_run_tool("test_engine", TOOLS[t], "--no-such-option", 60, out, sizeof out, err, sizeof err);
        if (st < 0) continue;
        snprintf(what, sizeof what, "%s --no-such-option", TOOLS[t]);
        ck_assert_msg(st == 2, "%s: status %d", what, st);
        char line[160];                                   /* one wording for all (tools/cli.h) */
        snprintf(line, sizeof line, "zertz: %s: --no-such-option: unknown option (see %s --help)\n", TOOLS[t], TOOLS[t]);
        ck_assert_msg(!strcmp(err, line), "%s: expected '%s', got: %s", what, line, err);
    }
}
END_TEST

START_TEST(tools_numeric_options_in_range) {
    static const struct { const char *tool, *args, *option; } bad[] = {
        { "engine", "--threads 0", "--threads" }, { "engine", "--threads 99999999999999999999", "--threads" },
        { "engine", "--threads 2x", "--threads" }, { "engine", "--threads", "--threads" },
        { "engine", "--seed -1", "--seed" }, { "engine", "--seed 18446744073709551616", "--seed" },
        { "engine", "--seed 1.5", "--seed" }, { "engine", "--agent uct:99999999999999999999", "--agent" },
        { "engine", "--agent uct:10,threads=1000", "--agent" }, { "engine", "--agent puct:uniform:10,temp=-1", "--agent" },
        { "bench_mcts", "--iters 0", "--iters" }, { "bench_mcts", "--iters 99999999999999999999", "--iters" },
        { "bench_mcts", "--sims -1", "--sims" }, { "bench_mcts", "--sims x", "--sims" },
        { "bench_nn", "--board 40", "--board" }, { "bench_nn", "--blocks 65", "--blocks" },
        { "bench_nn", "--channels 0", "--channels" }, { "bench_nn", "--channels 99999999999999999999", "--channels" },
        { "bench_nn", "--seconds nan", "--seconds" }, { "bench_nn", "--seconds -1", "--seconds" },
        { "bench_train", "--seconds 0", "--seconds" }, { "bench_train", "--seconds 1e400", "--seconds" },
        { "bench_train", "--seconds x", "--seconds" }, { "bench_train", "--rings 40", "--rings" },
        { "bench_train", "--sims 1", "--sims" }, { "bench_train", "--search-only --gpu", "--search-only" },
        { "nn_dump", "--board 37 --n 0 --out /dev/null", "--n" },
        { "nn_dump", "--board 37 --n 99999999999999999999 --out /dev/null", "--n" },
        { "nn_dump", "--board 37 --n 1 --seed -1 --out /dev/null", "--seed" },
        { "nn_dump", "--board 40 --n 1 --out /dev/null", "--board" },
        { "nn_dump", "--board 37 --channels 2000 --n 1 --out /dev/null", "--channels" },
        { "render", "-m Wd4,g1 --size 5 -o /dev/null", "--size" },
        { "render", "-m Wd4,g1 --seed 99999999999999999999 -o /dev/null", "--seed" },
        { "render", "-m Wd4,g1 --threads 0 -o /dev/null", "--threads" },
        { "render", "-m Wd4,g1 --heatmap 0 -o /dev/null", "--heatmap" },
        { "render", "-m Wd4,g1 --cols 999 -o /dev/null", "--cols" },
        { "render", "-m Wd4,g1 --turn -1 -o /dev/null", "--turn" },
        { "render", "-m Wd4,g1 --rings 40 -o /dev/null", "--rings" },
        { "strength", "--time 0", "--time" }, { "strength", "--games 3", "--games" },
        { "strength", "--sims 99999999999", "--sims" }, { "strength", "--rings 40", "--rings" },
        { "strength", "--early-stop -1", "--early-stop" }, { "strength", "--opening-plies 17", "--opening-plies" },
        { "train", "--minutes -1", "--minutes" }, { "train", "--rings 40", "--rings" },
        { "train", "--blocks 0", "--blocks" }, { "train", "--gumbel 65", "--gumbel" },
        { "train", "--q-target 1.5", "--q-target" }, { "train", "--blocks 2.5", "--blocks" },
        { "train", "--tactic-prior 2", "--tactic-prior" },
        { "train", "--seed 1e3", "--seed" }, { "train", "--resume --fresh", "--resume" },
        { "strength", "--parallel 300", "--parallel" }, { "strength", "--games 2.5", "--games" },
        { "strength", "--games 2 --vs random --vs bogus:1", "--vs bogus:1" },     /* refused before any game */
        { "strength", "--time 360001", "--vs uct10" }, { "strength", "--sims 4 --time 5", "--sims" },
        { "strength", "--net /nonexistent/net.ckpt", "--net" },
        { "strength", "--net weights/zertz37.ckpt --rings 61 --games 2 --vs random", "--net" },     /* wrong board */ { "analyse", "-m Wd4,g1 --time 0.5", "--time" },
        { "analyse", "-m Wd4,g1 --sims 0", "--sims" }, { "analyse", "-m Wd4,g1 --time -5", "--time" },
        { "analyse", "-m Wd4,g1 --threads 0", "--threads" }, { "analyse", "-m Wd4,g1 --thresholds 0.3,0.2,0.1", "--thresholds" },
        { "analyse", "-m Wd4,g1 --rings 40", "--rings" }, { "analyse", "-m Wd4,g1 --temperature 0", "--temperature" },
        { "strength", "--sprt 30,0", "--sprt" }, { "strength", "--sprt-alpha 0.7", "--sprt-alpha" },
        { "serve", "--port 70000", "--port" }, { "serve", "--threads 0", "--threads" },
        { "serve", "--idle-minutes -1", "--idle-minutes" }, { "serve", "--agent uct:0", "--agent" },
        { "equivariance", "--games 0", "--games" }, { "equivariance", "--rings 40", "--rings" },
        { "equivariance", "--seed -1", "--seed" },
        { "fit", "--replay /tmp --rings 40", "--rings" }, { "fit", "--replay /tmp --rings 37 --holdout 0.9", "--holdout" },
        { "fit", "--replay /tmp --rings 37 --steps 0", "--steps" }, { "fit", "--rings 37", "--replay" },
        { "fit", "--replay /tmp", "--rings" },
    };
    char out[4096], err[4096], what[160], prefix[96];
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        int st = th_run_tool("test_engine", bad[i].tool, bad[i].args, 60, out, sizeof out, err, sizeof err);
        if (st < 0) continue;
        snprintf(what, sizeof what, "%s %s", bad[i].tool, bad[i].args);
        ck_assert_msg(st == 2, "%s: status %d: %s", what, st, err);
        snprintf(prefix, sizeof prefix, "zertz: %s: %s: ", bad[i].tool, bad[i].option);
        one_line_from(what, err, prefix);
    }
    /* the message names the range and the value refused (a fraction is no whole number) */
    static const struct { const char *tool, *args, *says; } says[] = {
        { "train", "--blocks 2.5", "from 1 to 40, not '2.5'" },
        { "strength", "--parallel 300", "from 1 to 256, not '300'" },
        { "strength", "--time 1.5", "from 1 to 3600000, not '1.5'" },
    };
    for (unsigned i = 0; i < sizeof says / sizeof *says; i++) {
        int st = th_run_tool("test_engine", says[i].tool, says[i].args, 60, out, sizeof out, err, sizeof err);
        if (st < 0) continue;
        ck_assert_msg(st == 2 && strstr(err, says[i].says), "%s %s: status %d: %s", says[i].tool, says[i].args, st, err);
    }
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("engine");
    TCase *t = tcase_create("protocol");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, protocol_commands);
    tcase_add_test(t, protocol_jumps_and_whole_turns);
    tcase_add_test(t, protocol_full_game);
    tcase_add_test(t, protocol_run_over_streams);
    tcase_add_test(t, protocol_position_and_result);
    tcase_add_test(t, engine_binary_over_pipes);
    tcase_add_test(t, engine_default_player);
    tcase_add_test(t, tools_help_and_unknown_options);
    tcase_add_test(t, tools_numeric_options_in_range);
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    return th_run(suite());
}
