/* test_mcts_arena.c — agents and matches: spec parsing and its errors (every count and option
 * refused out of range), the Elo estimate, reproducible matches (same seed, any number of parallel
 * games: same games), SGF records that read back, the cmd: agent driving our own engine binary
 * ($ZZ_TOOLDIR/engine) and stopping programs that do not answer in time ($ZZ_CMD_TIMEOUT_MS), the
 * program itself and not just its shell, and
 * tools/arena's command line (ranges, usage errors, --help, --cmd-timeout); every option the help
 * lists, at and beyond the ends of its range, on each kind of agent. */
#include "game/sgf.h"
#include "helpers.h"
#include "mcts/match.h"
#include "nn/checkpoint.h"
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

START_TEST(agent_specs) {
    char err[256];
    const char *good[] = { "random", "uct:10", "uct:50,c=0.5,fpu=0.1,pwc=1.5,pwa=0.4,threads=2,vl=2,win=0",
                           "puct:uniform:20", "puct:rollout:2:20", "puct:uniform:30,c=2,batch=4,noise=1,temp=1,full=0.5,fast=5" };
    for (unsigned i = 0; i < sizeof good / sizeof *good; i++) {
        mcts_agent *a = mcts_agent_new(good[i], 1, err, sizeof err);
        ck_assert_msg(a != NULL, "%s: %s", good[i], err);
        ck_assert_str_eq(mcts_agent_name(a), good[i]);
        zz_pos p;
        zz_pos_init(&p, ZZ_B48);
        ck_assert_int_eq(mcts_agent_newgame(a, &p, 3, err, sizeof err), 0);
        for (int k = 0; k < 3; k++) {                /* a few moves, kept in sync by played() */
            zz_move m;
            ck_assert_msg(mcts_agent_choose(a, &p, &m, err, sizeof err) == 0, "%s", err);
            ck_assert(zz_is_legal(&p, m));
            ck_assert_int_eq(mcts_agent_played(a, &p, m, err, sizeof err), 0);
            zz_apply(&p, m, NULL);
        }
        ck_assert_int_eq(mcts_agent_get_stats(a)->moves, 3);
        mcts_agent_free(a);
    }
    const char *bad[] = { "", "uct", "uct:", "uct:0", "uct:-5", "uct:12x", "uct:10,c", "uct:10,zz=1", "uct:10,c=abc",
                          "puct:100", "puct::100", "puct:uniform:0", "puct:weights/x.ckpt:100", "cmd:", "alphabeta:3" };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        ck_assert_msg(mcts_agent_new(bad[i], 1, err, sizeof err) == NULL, "'%s' was accepted", bad[i]);
        ck_assert_msg(err[0] != 0, "'%s': no message", bad[i]);
    }
    ck_assert_ptr_null(mcts_agent_new("puct:weights/x.ckpt:100", 1, err, sizeof err));
    ck_assert_msg(strstr(err, "weights/x.ckpt") != NULL, "%s", err);
}
END_TEST

/* Every option the help lists (mcts_agent_help: key, the kinds that take it, its range): the ends
 * of its range are accepted by each agent kind that takes it, a value beyond either end is refused
 * naming the option, and the kinds it is not for refuse it as unknown.  The help and the parser
 * read one table (agent_options.c); this checks that they agree with each other and with the kinds
 * column, row by row. */
START_TEST(agent_options_table_agrees_with_the_help) {
    char *text = NULL, err[256], spec[160];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    mcts_agent_help(f);
    fclose(f);
    const char *at = strstr(text, "options of uct and puct agents");
    ck_assert_ptr_nonnull(at);
    at = strchr(strchr(at, '\n') + 1, '\n') + 1;          /* past the heading's two lines */
    const char *base[3] = { "uct:5", "puct:uniform:5", "ab:2" };
    int rows = 0;
    for (char line[512]; *at; at += strcspn(at, "\n") + (at[strcspn(at, "\n")] != 0)) {
        snprintf(line, sizeof line, "%.*s", (int)strcspn(at, "\n"), at);
        if (strncmp(line, "  ", 2) || line[2] == ' ' || strlen(line) < 36) continue;
        char key[32], kind[8] = "", range[40];
        ck_assert_int_eq(sscanf(line + 2, "%31s", key), 1);
        sscanf(line + 15, "%7[a-z]", kind);
        ck_assert_int_eq(sscanf(line + 21, "%39s", range), 1);
        double lo, hi;
        if (!strcmp(range, "0..2^53")) lo = 0, hi = 9007199254740992.0;
        else {
            char *dots = strstr(range, "..");             /* "1..256": %lf alone would take "1." */
            ck_assert_msg(dots != NULL, "%s: range '%s'", key, range);
            *dots = 0;
            lo = strtod(range, NULL);
            hi = strtod(dots + 2, NULL);
        }
        bool takes[3] = { !strcmp(kind, "all") || !strcmp(kind, "uct") || !*kind,
                          !strcmp(kind, "all") || !strcmp(kind, "puct") || !*kind, !strcmp(kind, "all") };
        for (int k = 0; k < 3; k++) {
            const double ok[2] = { lo, hi }, beyond[2] = { lo - 1, hi * 2 + 1 };
            for (int e = 0; e < 2; e++) {
                snprintf(spec, sizeof spec, "%s,%s=%.17g", base[k], key, ok[e]);
                mcts_agent *a = mcts_agent_new(spec, 1, err, sizeof err);
                if (takes[k]) {       /* parsed: only the weights may refuse it (prec=2 with uniform) */
                    ck_assert_msg(a || (!strstr(err, "unknown option") && !strstr(err, "expected")), "%s: %s", spec, err);
                } else {
                    ck_assert_msg(!a && strstr(err, "unknown option"), "%s: %s", spec, a ? "accepted" : err);
                }
                mcts_agent_free(a);
                snprintf(spec, sizeof spec, "%s,%s=%.17g", base[k], key, beyond[e]);
                ck_assert_msg(mcts_agent_new(spec, 1, err, sizeof err) == NULL, "%s accepted", spec);
                ck_assert_msg(strstr(err, takes[k] ? key : "unknown option"), "%s: %s", spec, err);
            }
        }
        rows++;
    }
    ck_assert_int_ge(rows, 40);
    free(text);
}
END_TEST

/* Counts and options out of range, not numbers, or fractions of whole-number options are refused
 * (never wrapped: uct:99999999999999999999 used to be 2^64-1 iterations, a search for ever), by
 * mcts_agent_new, mcts_agent_check_spec and mcts_agent_check_board alike; the message names the option and its
 * range. */
START_TEST(agent_spec_ranges) {
    char err[256];
    const struct { const char *spec, *says; } bad[] = {
        { "uct:99999999999999999999", "1 to 1000000000000" }, { "uct:1000000000001", "uct:ITERS" },
        { "uct:18446744073709551616", "uct:ITERS" }, { "puct:uniform:3000000000", "1 to 2000000000" },
        { "puct:uniform:99999999999999999999", "puct:WEIGHTS:SIMS" }, { "uct:10,threads=999", "threads" },
        { "uct:10,threads=0", "1 to 256" }, { "uct:10,threads=2.5", "whole number" }, { "uct:10,seed=-1", "seed" },
        { "uct:10,seed=1e300", "seed" }, { "uct:10,time=inf", "time" }, { "uct:10,time=nan", "time" },
        { "uct:10,time=-5", "time" }, { "uct:10,game=1e99", "game" }, { "uct:10,c=-1", "option c" },
        { "uct:10,win=2", "win" }, { "uct:10,reuse=-1", "reuse" }, { "uct:10,vl=0", "vl" },
        { "uct:10,pwc=0", "pwc" }, { "uct:10,pwa=2", "pwa" }, { "uct:10,fpu=1e308", "fpu" },
        { "puct:uniform:10,batch=99999999999", "batch" }, { "puct:uniform:10,inflight=0", "inflight" },
        { "puct:uniform:10,threadev=2", "threadev" },
        { "puct:uniform:10,fast=1e10", "fast" }, { "puct:uniform:10,tempplies=-1", "tempplies" },
        { "puct:uniform:10,maxchildren=1e9", "maxchildren" }, { "puct:uniform:10,alpha=0", "alpha" },
        { "puct:uniform:10,rollouts=5000", "rollouts" }, { "puct:uniform:10,noise=3", "noise" },
        { "puct:rollout:99999999999999:10", "rollout:K" }, { "puct:rollout:0:10", "rollout:K" },
        { "puct:rollout:x:10", "rollout:K" }, { "uct:10,pwc", "key=value" }, { "uct:10,batch=4", "unknown option" },
    };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        ck_assert_msg(mcts_agent_new(bad[i].spec, 1, err, sizeof err) == NULL, "'%s' was accepted", bad[i].spec);
        ck_assert_msg(strstr(err, bad[i].says) != NULL, "'%s': %s", bad[i].spec, err);
        err[0] = 0;
        ck_assert_msg(mcts_agent_check_spec(bad[i].spec, err, sizeof err) != 0, "'%s' passed the check", bad[i].spec);
        ck_assert_msg(strstr(err, bad[i].says) != NULL, "'%s': %s", bad[i].spec, err);
        err[0] = 0;     /* the board check includes the spec check (rollout:K's K once slipped past it) */
        ck_assert_msg(mcts_agent_check_board(bad[i].spec, ZZ_B37, err, sizeof err) != 0, "'%s' passed the board check",
                      bad[i].spec);
        ck_assert_msg(strstr(err, bad[i].says) != NULL, "'%s': %s", bad[i].spec, err);
    }
    const char *good[] = { "random", "uct:1000000000000", "puct:uniform:2000000000,time=5", "uct:1,seed=123,threads=256",
                           "puct:rollout:1000:5,rollouts=1000,mix=1", "cmd:/nonexistent/engine" };
    for (unsigned i = 0; i < sizeof good / sizeof *good; i++)
        ck_assert_msg(mcts_agent_check_spec(good[i], err, sizeof err) == 0, "%s: %s", good[i], err);
    /* the largest budgets are accepted and a time limit still ends the move */
    mcts_agent *a = mcts_agent_new("puct:uniform:2000000000,time=30", 1, err, sizeof err);
    ck_assert_msg(a != NULL, "%s", err);
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    zz_move m;
    ck_assert_int_eq(mcts_agent_newgame(a, &p, 1, err, sizeof err), 0);
    ck_assert_msg(mcts_agent_choose(a, &p, &m, err, sizeof err) == 0, "%s", err);
    ck_assert(zz_is_legal(&p, m));
    mcts_agent_free(a);
}
END_TEST

START_TEST(elo_estimate) {
    mcts_elo e = mcts_elo_estimate(50, 50, 0);
    ck_assert(fabs(e.elo) < 1e-9 && e.lo < 0 && e.hi > 0);
    ck_assert(fabs(e.lo + e.hi) < 1e-6);
    e = mcts_elo_estimate(75, 25, 0);
    ck_assert(fabs(e.elo - 190.85) < 0.1);
    ck_assert(e.lo < e.elo && e.elo < e.hi);
    e = mcts_elo_estimate(30, 10, 20);                    /* draws count half */
    ck_assert(fabs(e.score - 40.0 / 60) < 1e-12);
    e = mcts_elo_estimate(10, 0, 0);
    ck_assert(isinf(e.elo) && e.elo > 0);
    ck_assert(isinf(e.hi) && isfinite(e.lo) && e.lo > 0);      /* 10-0 bounds the difference below */
    e = mcts_elo_estimate(0, 20, 0);              /* Wilson: score at most 3.84/23.84 = 0.161: -287 */
    ck_assert(isinf(e.elo) && e.elo < 0 && isinf(e.lo));
    ck_assert_msg(fabs(e.hi + 286.6) < 0.5, "%f", e.hi);
    e = mcts_elo_estimate(0, 0, 0);
    ck_assert(e.score == 0 && e.elo == 0);
    /* the finite estimate: 10-0 is scored 10.5/11 -> +528.9, and its interval holds it */
    e = mcts_elo_finite(10, 0, 0);
    ck_assert(fabs(e.elo - 528.9) < 0.1 && e.score == 1);
    ck_assert(e.lo < e.elo && e.hi >= e.elo && isfinite(e.lo) && isfinite(e.hi));
    ck_assert(fabs(e.hi - e.elo) < 1e-9);                 /* 100%: the upper end is the prior's edge */
    e = mcts_elo_finite(0, 10, 0);
    ck_assert(fabs(e.elo + 528.9) < 0.1 && e.lo <= e.elo && e.elo < e.hi);
    e = mcts_elo_finite(5, 5, 0);                         /* an even score: exactly 0, not -0 */
    ck_assert(e.elo == 0 && !signbit(e.elo) && e.lo < 0 && e.hi > 0);
    e = mcts_elo_finite(30, 10, 0);                       /* 30.5/41 = 0.7439 -> +185.2 */
    ck_assert(fabs(e.elo - 185.24) < 0.01 && e.lo < e.elo && e.elo < e.hi);
}
END_TEST

static mcts_match_result run(const char *a, const char *b, int games, int parallel, uint64_t seed, const char *dir) {
    mcts_match_config c;
    memset(&c, 0, sizeof c);
    c.spec[0] = a;
    c.spec[1] = b;
    c.games = games;
    c.parallel = parallel;
    c.seed = seed;
    c.board = ZZ_B37;
    c.sgf_dir = dir;
    mcts_match_result r;
    char err[256];
    ck_assert_msg(mcts_match_run(&c, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(r.errors == 0, "%s", r.first_error);
    ck_assert_int_eq(r.games, games);
    ck_assert_int_eq(r.wins + r.losses + r.draws, games);
    ck_assert_int_eq(r.a_first_games, (games + 1) / 2);                  /* games 0, 2, 4 ... */
    ck_assert_int_eq(r.first_player_wins, r.a_first_wins + r.losses - r.a_first_losses);
    return r;
}

START_TEST(match_reproducible) {
    mcts_match_result r1 = run("uct:150", "puct:rollout:40", 6, 1, 11, NULL);
    mcts_match_result r2 = run("uct:150", "puct:rollout:40", 6, 3, 11, NULL);
    mcts_match_result r3 = run("uct:150", "puct:rollout:40", 6, 2, 12, NULL);
    ck_assert_uint_eq(r1.digest, r2.digest);             /* same games, whatever the parallelism */
    ck_assert_int_eq(r1.wins, r2.wins);
    ck_assert_int_eq(r1.plies, r2.plies);
    ck_assert_uint_ne(r1.digest, r3.digest);             /* another seed, other games */
    ck_assert_int_gt(r1.moves[0], 0);
    ck_assert_int_gt(r1.moves[1], 0);
    ck_assert(r1.seconds[0] > 0);
}
END_TEST

START_TEST(match_writes_sgf) {
    char dir[] = "/tmp/zz-arena-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    /* B's spec is longer than 64 characters: the records keep it whole (P0/P1 and RE) */
    const char *b = "uct:50,threads=1,reuse=1,time=0,game=0,seed=0,vl=1,c=1.4,fpu=1,pwa=0.5";
    ck_assert_int_gt((int)strlen(b), 64);
    mcts_match_result r = run("random", b, 4, 2, 5, dir);
    int wins_b = 0, a_first_wins = 0, a_first_losses = 0;   /* counted from the records */
    for (int i = 0; i < 4; i++) {
        char path[256], err[256];
        snprintf(path, sizeof path, "%s/game-%04d.sgf", dir, i);
        zz_game g;
        ck_assert_msg(zz_sgf_read_file(path, &g, err, sizeof err) == 0, "%s", err);
        ck_assert(zz_over(&g.final));
        /* game i: A (random) moves first when i is even */
        const char *first = i % 2 == 0 ? "random" : b;
        ck_assert_str_eq(g.player_name[0], first);
        if (g.winner >= 0 && strcmp(g.player_name[g.winner], b) == 0) wins_b++;
        if (i % 2 == 0 && g.winner >= 0) {
            if (strcmp(g.player_name[g.winner], b) == 0) a_first_losses++;
            else a_first_wins++;
        }
        zz_game_free(&g);
        unlink(path);
    }
    ck_assert_int_eq(wins_b, r.losses);
    ck_assert_int_eq(a_first_wins, r.a_first_wins);         /* the split by who moved first */
    ck_assert_int_eq(a_first_losses, r.a_first_losses);
    ck_assert_int_eq(r.a_first_games, 2);
    rmdir(dir);
}
END_TEST

START_TEST(cmd_agent_plays_our_engine) {
    const char *dir = getenv("ZZ_TOOLDIR");
    char prog[512];
    snprintf(prog, sizeof prog, "%s/engine", dir && *dir ? dir : "tools");
    if (access(prog, X_OK) != 0) {
        th_skip("test_mcts_arena", "cmd agent test: %s not built", prog);
        return;
    }
    signal(SIGPIPE, SIG_IGN);
    char spec[600];
    snprintf(spec, sizeof spec, "cmd:%s --agent uct:200", prog);
    mcts_match_result r = run(spec, "random", 2, 2, 3, NULL);
    ck_assert_int_eq(r.wins, 2);
    /* a program that is not an engine is a clear error, not a hang */
    char err[256];
    ck_assert_ptr_null(mcts_agent_new("cmd:/bin/true", 1, err, sizeof err));
    ck_assert(strstr(err, "closed") != NULL);
}
END_TEST

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A cmd: program that does not answer is stopped after $ZZ_CMD_TIMEOUT_MS, with a clear error,
 * at the handshake (/bin/cat echoes "info" and never says ok) and at bestmove (a script that
 * answers everything else); after that the agent fails at once.  A program that exits is reported
 * with its status.  A bad ZZ_CMD_TIMEOUT_MS is refused. */
START_TEST(cmd_agent_times_out) {
    signal(SIGPIPE, SIG_IGN);
    char err[512];
    setenv("ZZ_CMD_TIMEOUT_MS", "1000", 1);          /* a second: a busy machine still starts sh well within it */
    double t0 = now_s();
    ck_assert_ptr_null(mcts_agent_new("cmd:/bin/cat", 1, err, sizeof err));
    double dt = now_s() - t0;
    ck_assert_msg(dt > 0.95 && dt < 8, "%.2f s", dt);
    ck_assert_msg(strstr(err, "/bin/cat") && strstr(err, "no answer within 1000 ms") && strstr(err, "ZZ_CMD_TIMEOUT_MS"),
                  "%s", err);
    /* the same in a match: refused before any game, within seconds */
    mcts_match_config c;
    memset(&c, 0, sizeof c);
    c.spec[0] = "cmd:/bin/cat";
    c.spec[1] = "random";
    c.games = 2;
    c.parallel = 1;
    c.board = ZZ_B37;
    mcts_match_result r;
    t0 = now_s();
    ck_assert_int_ne(mcts_match_run(&c, &r, err, sizeof err), 0);
    ck_assert_msg(now_s() - t0 < 5, "%.2f s", now_s() - t0);
    ck_assert_msg(strstr(err, "no answer"), "%s", err);
    /* silent at bestmove: the game is lost after the timeout, and the program is stopped */
    mcts_agent *a = mcts_agent_new("cmd:while read l; do case \"$l\" in bestmove*) ;; *) echo ok;; esac; done", 1, err,
                                   sizeof err);
    ck_assert_msg(a != NULL, "%s", err);
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    zz_move m;
    ck_assert_msg(mcts_agent_newgame(a, &p, 1, err, sizeof err) == 0, "%s", err);
    t0 = now_s();
    ck_assert_int_ne(mcts_agent_choose(a, &p, &m, err, sizeof err), 0);
    dt = now_s() - t0;
    ck_assert_msg(dt > 0.95 && dt < 8, "%.2f s", dt);
    ck_assert_msg(strstr(err, "no answer within 1000 ms"), "%s", err);
    t0 = now_s();
    ck_assert_int_ne(mcts_agent_newgame(a, &p, 2, err, sizeof err), 0);
    ck_assert_msg(now_s() - t0 < 0.5 && strstr(err, "not running"), "%s", err);   /* no second wait */
    mcts_agent_free(a);
    /* a program that exits: its status is reported */
    ck_assert_ptr_null(mcts_agent_new("cmd:exit 3", 1, err, sizeof err));
    ck_assert_msg(strstr(err, "closed its output") && strstr(err, "status 3"), "%s", err);
    /* a line that never ends in "ok" (yes prints "y" for ever) is no answer either */
    t0 = now_s();
    ck_assert_ptr_null(mcts_agent_new("cmd:yes", 1, err, sizeof err));
    ck_assert_msg(now_s() - t0 < 5 && strstr(err, "no answer"), "%s", err);
    /* the limit itself is checked */
    const char *bad[] = { "0", "-5", "abc", "99999999999999999999", "86400001", "10x" };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv("ZZ_CMD_TIMEOUT_MS", bad[i], 1);
        ck_assert_msg(mcts_agent_new("cmd:/bin/cat", 1, err, sizeof err) == NULL, "ZZ_CMD_TIMEOUT_MS=%s", bad[i]);
        ck_assert_msg(strstr(err, "ZZ_CMD_TIMEOUT_MS"), "%s", err);
        ck_assert_int_ne(mcts_agent_check_spec("cmd:/bin/cat", err, sizeof err), 0);
    }
    unsetenv("ZZ_CMD_TIMEOUT_MS");
}
END_TEST

/* True while process pid runs (gone, or a zombie waiting to be reaped by init, is not running). */
static bool process_runs(long pid) {
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return false;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = 0;
    const char *s = strrchr(stat, ')');                   /* "pid (name) STATE ..." */
    return s && s[1] == ' ' && s[2] != 'Z' && s[2] != 'X';
}

/* A cmd: program that hangs is really stopped: /bin/sh -c forks the program (here a shell that
 * writes its pid and becomes `sleep`, behind `; true` so that the outer shell cannot exec it), and
 * stopping only the shell used to leave the program running after "the program was stopped".  In
 * a process group of its own it misses the terminal's Ctrl-C: a tool ended by a signal passes it on. */
START_TEST(cmd_agent_stop_ends_the_program) {
    signal(SIGPIPE, SIG_IGN);
    char file[] = "/tmp/zz_cmd_pid_XXXXXX", spec[256], err[512];
    th_temp_file(file);
    snprintf(spec, sizeof spec, "cmd:sh -c 'echo $$ > %s; exec sleep 1000'; true", file);
    setenv("ZZ_CMD_TIMEOUT_MS", "300", 1);
    double t0 = now_s();
    ck_assert_ptr_null(mcts_agent_new(spec, 1, err, sizeof err));
    unsetenv("ZZ_CMD_TIMEOUT_MS");
    ck_assert_msg(now_s() - t0 < 5, "%.2f s", now_s() - t0);
    ck_assert_msg(strstr(err, "no answer within 300 ms") && strstr(err, "stopped"), "%s", err);
    long pid = 0;
    FILE *f = fopen(file, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fscanf(f, "%ld", &pid), 1);
    fclose(f);
    unlink(file);
    ck_assert_int_gt(pid, 1);
    ck_assert_int_ne(pid, (long)getpid());
    bool runs = false;
    for (int i = 0; i < 100 && (runs = process_runs(pid)); i++) usleep(10000);   /* init reaps it */
    if (runs) kill((pid_t)pid, SIGKILL);                                        /* leave no sleep behind */
    ck_assert_msg(!runs, "the program (pid %ld) still runs after the agent stopped it", pid);

    /* a tool ended by SIGTERM (or Ctrl-C) while its program hangs takes the program with it */
    snprintf(file, sizeof file, "/tmp/zz_cmd_pid_XXXXXX");
    th_temp_file(file);
    snprintf(spec, sizeof spec, "cmd:sh -c 'echo $$ > %s; exec sleep 1000'; true", file);
    pid_t tool = fork();
    ck_assert_int_ge(tool, 0);
    if (tool == 0) {
        signal(SIGTERM, SIG_DFL);                  /* as in a tool (Check's runner has its own) */
        setenv("ZZ_CMD_TIMEOUT_MS", "20000", 1);
        mcts_agent_new(spec, 1, err, sizeof err);                  /* waits for the handshake */
        _exit(0);
    }
    pid = 0;
    for (int i = 0; i < 500 && pid <= 0; i++) {                    /* the program has started */
        usleep(10000);
        if ((f = fopen(file, "r"))) {
            if (fscanf(f, "%ld", &pid) != 1) pid = 0;
            fclose(f);
        }
    }
    unlink(file);
    kill(tool, SIGTERM);
    int st;
    ck_assert_int_eq(waitpid(tool, &st, 0), tool);
    ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "status %d", st);
    ck_assert_int_gt(pid, 1);
    for (int i = 0; i < 100 && (runs = process_runs(pid)); i++) usleep(10000);
    if (runs) kill((pid_t)pid, SIGKILL);
    ck_assert_msg(!runs, "the program (pid %ld) still runs after its tool was ended by SIGTERM", pid);
}
END_TEST

/* tools/arena: every numeric option refused out of range with "zertz: arena: OPTION: ..." and
 * status 2, before anything runs; bad agents too, and a network of another board or none;
 * --help lists every option with its default;
 * a ply cap by default, and the cap is a draw; cmd:/bin/cat ends within seconds with --cmd-timeout. */
START_TEST(arena_tool_command_line) {
    char out[16384], err[2048];
    const struct { const char *args, *starts; } bad[] = {
        { "random random --games 0", "zertz: arena: --games: " },
        { "random random --games 1000001", "zertz: arena: --games: " },
        { "random random --games 99999999999999999999", "zertz: arena: --games: " },
        { "random random --games x", "zertz: arena: --games: " },
        { "random random --games", "zertz: arena: --games: needs a value" },
        { "random random --parallel 0", "zertz: arena: --parallel: " },
        { "random random --threads 257", "zertz: arena: --threads: " },
        { "random random --seed -1", "zertz: arena: --seed: " },
        { "random random --seed 18446744073709551616", "zertz: arena: --seed: " },
        { "random random --ply-cap 65536", "zertz: arena: --ply-cap: " },
        { "random random --rings 40", "zertz: arena: --rings: " },
        { "random random --cmd-timeout 0", "zertz: arena: --cmd-timeout: " },
        { "random random --cmd-timeout 1e3", "zertz: arena: --cmd-timeout: " },
        { "random random --bogus", "zertz: arena: --bogus: unknown option" },
        { "random", "zertz: arena: " },
        { "random random random", "zertz: arena: random: " },
        { "uct:99999999999999999999 random", "zertz: arena: uct:99999999999999999999: " },
        { "random uct:10,threads=999", "zertz: arena: uct:10,threads=999: option threads: " },
        { "random puct:uniform:10,eps=2", "zertz: arena: puct:uniform:10,eps=2: option eps: " },
        /* a network is checked against the board before the first game, not refused in every one */
        { "puct:weights/zertz37.ckpt:10 random --rings 48",
          "zertz: arena: puct:weights/zertz37.ckpt:10: weights/zertz37.ckpt: the network plays the 37-ring board, "
          "not the 48-ring one (carry it over with tools/train --rings 48" },
        { "random puct:/nonexistent/net.ckpt:10", "zertz: arena: puct:/nonexistent/net.ckpt:10: weights '/nonexistent/net.ckpt': " },
    };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        int st = th_run_tool("test_mcts_arena", "arena", bad[i].args, 20, out, sizeof out, err, sizeof err);
        if (st < 0) return;
        ck_assert_msg(st == 2, "arena %s: status %d, %s", bad[i].args, st, err);
        ck_assert_msg(!strncmp(err, bad[i].starts, strlen(bad[i].starts)), "arena %s: %s", bad[i].args, err);
        ck_assert_msg(!strchr(err, '\n') || strchr(err, '\n') == err + strlen(err) - 1, "arena %s: %s", bad[i].args, err);
        ck_assert_msg(out[0] == 0, "arena %s started: %s", bad[i].args, out);
    }
    const char *help[] = { "-h", "--help" };
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(th_run_tool("test_mcts_arena", "arena", help[k], 20, out, sizeof out, err, sizeof err), 0);
        const char *opts[] = { "--games", "--parallel", "--threads", "--seed", "--rings", "--sgf", "--ply-cap",
                               "--cmd-timeout", "--quiet", "threads", "maxchildren", "rollouts", "ZZ_CMD_TIMEOUT_MS" };
        for (unsigned i = 0; i < sizeof opts / sizeof *opts; i++) ck_assert_msg(strstr(out, opts[i]), "no %s in:\n%s", opts[i], out);
        ck_assert_msg(strstr(out, "default 20") && strstr(out, "default 10000"), "%s", out);
        ck_assert_msg(strstr(out, "(default 400;"), "no default ply cap in:\n%s", out);  /* games always end */
    }
    /* the cap is a draw: no game of Zertz ends within 6 plies */
    ck_assert_int_eq(th_run_tool("test_mcts_arena", "arena", "random random --games 4 --ply-cap 6 --opening-plies 0 --quiet",
                                 30, out, sizeof out, err, sizeof err), 0);
    ck_assert_msg(strstr(out, "A: 0 wins, 0 losses, 4 draws"), "%s", out);
    double t0 = now_s();
    int st = th_run_tool("test_mcts_arena", "arena", "cmd:/bin/cat random --games 2 --cmd-timeout 300", 30, out, sizeof out,
                         err, sizeof err);
    ck_assert_msg(st == 1 && now_s() - t0 < 10, "status %d after %.1f s: %s", st, now_s() - t0, err);
    ck_assert_msg(strstr(err, "zertz: arena: ") && strstr(err, "no answer within 300 ms"), "%s", err);
}
END_TEST

/* Openings: distinct move sequences of legal moves; both colours of each; every game distinct
 * even between deterministic agents of the same seed; the opening is in the SGF record. */
START_TEST(match_openings_distinct_games) {
    mcts_opening op[12];
    ck_assert_int_eq(mcts_openings_random(ZZ_B37, 2, 12, 7, op), 12);
    for (int i = 0; i < 12; i++) {
        ck_assert_int_eq(op[i].n, 2);
        zz_pos p;
        zz_pos_init(&p, ZZ_B37);
        for (int k = 0; k < op[i].n; k++) {
            ck_assert(zz_is_legal(&p, op[i].moves[k]));
            zz_apply(&p, op[i].moves[k], NULL);
        }
        for (int j = 0; j < i; j++) ck_assert(memcmp(op[i].moves, op[j].moves, sizeof op[i].moves) != 0);
    }
    mcts_opening again[12];
    ck_assert_int_eq(mcts_openings_random(ZZ_B37, 2, 12, 7, again), 12);
    ck_assert(memcmp(op, again, sizeof op) == 0);                 /* seeded */

    char dir[] = "/tmp/zz-arena-op-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    mcts_match_config c;
    memset(&c, 0, sizeof c);
    c.spec[0] = "uct:60";
    c.spec[1] = "uct:60";
    c.games = 8;
    c.parallel = 2;
    c.seed = 1;
    c.board = ZZ_B37;
    c.openings = op;
    c.nopenings = 4;
    c.sgf_dir = dir;
    mcts_match_result r;
    char err[256];
    ck_assert_msg(mcts_match_run(&c, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.games, 8);
    ck_assert_int_eq(r.distinct, 8);
    ck_assert_int_eq(r.stopped_early, 0);
    for (int i = 0; i < 8; i++) {                /* games 2k and 2k+1 start with opening k */
        char path[300];
        snprintf(path, sizeof path, "%s/game-%04d.sgf", dir, i);
        zz_game g;
        ck_assert_msg(zz_sgf_read_file(path, &g, err, sizeof err) == 0, "%s", err);
        zz_pos p = g.start;
        ck_assert_int_ge(g.nturns, 2);
        for (int k = 0; k < 2; k++) {
            ck_assert_int_ge(g.turns[k].nmoves, 1);
            ck_assert_uint_eq(g.turns[k].moves[0], op[i / 2].moves[k]);
            zz_apply(&p, g.turns[k].moves[0], NULL);
        }
        ck_assert_str_eq(g.player_name[0], "uct:60");
        zz_game_free(&g);
        unlink(path);
    }
    rmdir(dir);
}
END_TEST

/* Early stop: a lopsided match ends once the interval excludes 50%, after whole opening pairs. */
START_TEST(match_stops_early) {
    mcts_match_config c;
    memset(&c, 0, sizeof c);
    c.spec[0] = "random";
    c.spec[1] = "uct:300";
    c.games = 60;
    c.parallel = 1;
    c.seed = 3;
    c.board = ZZ_B37;
    c.stop_early = 6;
    mcts_match_result r;
    char err[256];
    ck_assert_msg(mcts_match_run(&c, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.stopped_early, 1);
    ck_assert_int_ge(r.games, 6);
    ck_assert_int_lt(r.games, 60);
    ck_assert_int_eq(r.games % 2, 0);
    ck_assert_int_eq(r.wins + r.losses + r.draws, r.games);
    mcts_elo e = mcts_elo_estimate(r.wins, r.losses, r.draws);
    ck_assert(e.hi < 0);
    c.stop_early = 0;                             /* off: every game */
    c.games = 8;
    ck_assert_msg(mcts_match_run(&c, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.games, 8);
    ck_assert_int_eq(r.stopped_early, 0);
}
END_TEST

/* The rollout mix: the inner evaluator's priors, and (1 - lambda) * its value + lambda * the
 * rollouts' mean, here at a position where every continuation wins for the mover. */
START_TEST(mix_evaluator_blends_rollouts) {
    zz_pos p;                                     /* the only moves: d3xd4 (a black) or d4xd3 (a white) */
    th_build(&p, ZZ_B37, NULL, "Wd3 Bd4");
    p.cap[0][0] = 3; p.pool[0] -= 3;              /* 3 W, 3 G, 2 B: either capture wins */
    p.cap[0][1] = 3; p.pool[1] -= 3;
    p.cap[0][2] = 2; p.pool[2] -= 2;
    ck_assert(!zz_over(&p));
    zz_move moves[ZZ_MAX_MOVES];
    int n = zz_gen_moves(&p, moves);
    ck_assert_int_eq(n, 2);
    static const double lambdas[] = { 0.0, 0.25, 0.5, 1.0 };
    for (int k = 0; k < 4; k++) {
        mcts_evaluator *mix = mcts_eval_mix_new(mcts_eval_uniform_new(), true, lambdas[k], 3, 9);
        ck_assert_ptr_nonnull(mix);
        float pri[2];
        mcts_eval_item it = { &p, moves, n, pri, -9 };
        char err[128];
        ck_assert_int_eq(mcts_evaluate(mix, &it, 1, err, sizeof err), 0);
        ck_assert(fabsf(it.value - (float)lambdas[k]) < 1e-6);          /* (1 - l) * 0 + l * 1 */
        ck_assert(pri[0] == 0.5f && pri[1] == 0.5f);
        mcts_evaluator_free(mix);
    }
    /* the plain rollout evaluator agrees: every random game from here is a win for the mover */
    mcts_evaluator *ro = mcts_eval_rollout_new(4, 1);
    float pri[2];
    mcts_eval_item it = { &p, moves, n, pri, 0 };
    char err[128];
    ck_assert_int_eq(mcts_evaluate(ro, &it, 1, err, sizeof err), 0);
    ck_assert(it.value == 1.0f);
    mcts_evaluator_free(ro);
}
END_TEST

/* Agent options for the mix, and the shipped network ("default") found through ZZ_WEIGHTS_DIR. */
START_TEST(agent_mix_and_default_weights) {
    char err[512];
    mcts_agent *a = mcts_agent_new("puct:uniform:30,mix=0.5,rollouts=2", 1, err, sizeof err);
    ck_assert_msg(a != NULL, "%s", err);
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    ck_assert_int_eq(mcts_agent_newgame(a, &p, 1, err, sizeof err), 0);
    zz_move m;
    ck_assert_msg(mcts_agent_choose(a, &p, &m, err, sizeof err) == 0, "%s", err);
    ck_assert(zz_is_legal(&p, m));
    mcts_agent_free(a);
    ck_assert_ptr_null(mcts_agent_new("puct:uniform:30,mix=2", 1, err, sizeof err));
    ck_assert_ptr_null(mcts_agent_new("puct:uniform:30,rollouts=0", 1, err, sizeof err));
    ck_assert_ptr_null(mcts_agent_new("uct:30,mix=0.5", 1, err, sizeof err));

    char dir[] = "/tmp/zz-weights-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("ZZ_WEIGHTS_DIR", dir, 1);
    a = mcts_agent_new("puct:default:20", 1, err, sizeof err);    /* resolved per board at newgame */
    ck_assert_msg(a != NULL, "%s", err);
    ck_assert_int_ne(mcts_agent_newgame(a, &p, 1, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "no shipped network") != NULL, "%s", err);
    char path[300];
    snprintf(path, sizeof path, "%s/zertz37.ckpt", dir);
    th_save_small_net(path, 5);
    ck_assert_msg(mcts_agent_newgame(a, &p, 1, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(mcts_agent_choose(a, &p, &m, err, sizeof err) == 0, "%s", err);
    ck_assert(zz_is_legal(&p, m));
    zz_pos p48;                                   /* no 48-ring network shipped there */
    zz_pos_init(&p48, ZZ_B48);
    ck_assert_int_ne(mcts_agent_newgame(a, &p48, 1, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "48-ring") != NULL, "%s", err);
    mcts_agent_free(a);
    unsetenv("ZZ_WEIGHTS_DIR");
    unlink(path);
    rmdir(dir);
}
END_TEST

/* An agent's guard share after newgame at the opening of `board`. */
static double guard_on(mcts_agent *a, zz_board_kind board) {
    char err[512];
    zz_pos p;
    zz_pos_init(&p, board);
    ck_assert_msg(mcts_agent_newgame(a, &p, 1, err, sizeof err) == 0, "%s", err);
    return mcts_agent_guard(a);
}

/* The guardtop= a spec's agent takes on a board, after one timed move, and whether that move's
 * guard searched beside PUCT (*beside). */
static int guard_top_after_a_move(const char *spec, zz_board_kind board, uint64_t *beside) {
    char err[256];
    mcts_agent *a = mcts_agent_new(spec, 1, err, sizeof err);
    ck_assert_msg(a != NULL, "%s", err);
    ck_assert(guard_on(a, board) == 0.5);
    zz_pos p;
    zz_pos_init(&p, board);
    zz_move m;
    ck_assert_msg(mcts_agent_choose(a, &p, &m, err, sizeof err) == 0, "%s", err);
    int top = mcts_agent_guard_top(a);
    *beside = mcts_agent_get_stats(a)->guarded_beside;
    mcts_agent_free(a);
    return top;
}

/* `default` weights are unguarded on every board unless the spec sets guard=; then they take the
 * board's guardtop= at each newgame (61 and 48 rings: among PUCT's 4 best; 37: the whole root),
 * and a guarded 61-ring move is chosen (its alpha-beta searcher made when first needed); a spec's
 * own guardtop= wins on every board; with two threads the guard stays among PUCT's best, and
 * guardpar=1 has it search the whole root beside PUCT; named weights get no board setting. */
START_TEST(default_weights_are_unguarded_with_the_board_guard_top) {
    ck_assert(mcts_default_guard_top(ZZ_B61) == 4 && mcts_default_guard_top(ZZ_B48) == 4);
    ck_assert(mcts_default_guard_top(ZZ_B37) == 0);
    char dir[] = "/tmp/zz-guard-XXXXXX", err[512], path[300];
    uint64_t beside;
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("ZZ_WEIGHTS_DIR", dir, 1);
    static const zz_board_kind boards[] = { ZZ_B37, ZZ_B48, ZZ_B61 };
    for (int b = 0; b < 3; b++) {                                /* tiny networks, one per board */
        nn_config nc;
        nn_config_default(&nc, boards[b]);
        nc.blocks = 1, nc.channels = 8;
        nn_model *net = nn_model_create(&nc, NN_F32, 5, err, sizeof err);
        ck_assert_ptr_nonnull(net);
        snprintf(path, sizeof path, "%s/zertz%d.ckpt", dir, zz_board_get(boards[b])->rings);
        ck_assert_int_eq(nn_checkpoint_save(path, net, 0, false, err, sizeof err), 0);
        nn_model_free(net);
    }
    mcts_agent *a = mcts_agent_new("puct:default:8", 1, err, sizeof err);
    ck_assert_msg(a != NULL, "%s", err);
    for (int b = 0; b < 3; b++) {                                /* the shipped player: unguarded */
        ck_assert(guard_on(a, boards[b]) == 0);
        ck_assert_int_eq(mcts_agent_guard_top(a), 0);
    }
    mcts_agent_free(a);
    a = mcts_agent_new("puct:default:8,guard=0.5", 1, err, sizeof err);
    ck_assert_msg(a != NULL, "%s", err);
    ck_assert(guard_on(a, ZZ_B48) == 0.5);
    ck_assert_int_eq(mcts_agent_guard_top(a), 4);
    ck_assert(guard_on(a, ZZ_B61) == 0.5);
    ck_assert_int_eq(mcts_agent_guard_top(a), 4);
    zz_pos p;
    zz_pos_init(&p, ZZ_B61);
    zz_move m;
    ck_assert_msg(mcts_agent_choose(a, &p, &m, err, sizeof err) == 0, "%s", err);
    ck_assert(zz_is_legal(&p, m));
    ck_assert(guard_on(a, ZZ_B37) == 0.5);                      /* the whole root on 37 */
    ck_assert_int_eq(mcts_agent_guard_top(a), 0);
    mcts_agent_free(a);
    a = mcts_agent_new("puct:default:8,guard=0.5,guardtop=2", 1, err, sizeof err);
    ck_assert(guard_on(a, ZZ_B61) == 0.5);
    ck_assert_int_eq(mcts_agent_guard_top(a), 2);
    mcts_agent_free(a);
    ck_assert_int_eq(guard_top_after_a_move("puct:default:8,threads=2,time=40,guard=0.5", ZZ_B61, &beside), 4);
    ck_assert_int_eq(beside, 0);                                   /* after PUCT, not beside it */
    ck_assert_int_eq(guard_top_after_a_move("puct:default:8,threads=2,time=40,guardpar=1,guard=0.5", ZZ_B61, &beside), 0);
    ck_assert_int_eq(beside, 1);                                   /* beside PUCT: the whole root */
    ck_assert_int_eq(guard_top_after_a_move("puct:default:8,threads=2,time=40,guardtop=0,guard=0.5", ZZ_B61, &beside), 0);
    ck_assert_int_eq(beside, 1);                                   /* the spec's own guardtop=0 */
    ck_assert_int_eq(guard_top_after_a_move("puct:default:8,threads=2,time=40,guard=0.5", ZZ_B48, &beside), 4);
    ck_assert_int_eq(beside, 0);                                   /* 48 rings alike */
    a = mcts_agent_new("puct:default:8,guard=0", 1, err, sizeof err);
    ck_assert(guard_on(a, ZZ_B61) == 0);
    mcts_agent_free(a);
    a = mcts_agent_new("puct:default:8,guard=0.3", 1, err, sizeof err);
    ck_assert(guard_on(a, ZZ_B37) == 0.3 && guard_on(a, ZZ_B61) == 0.3);
    mcts_agent_free(a);
    snprintf(path, sizeof path, "puct:%s/zertz61.ckpt:8", dir);
    a = mcts_agent_new(path, 1, err, sizeof err);
    ck_assert_msg(a != NULL, "%s", err);
    ck_assert(guard_on(a, ZZ_B61) == 0);
    ck_assert_int_eq(mcts_agent_guard_top(a), 0);
    mcts_agent_free(a);
    for (int b = 0; b < 3; b++) {
        snprintf(path, sizeof path, "%s/zertz%d.ckpt", dir, zz_board_get(boards[b])->rings);
        unlink(path);
    }
    unsetenv("ZZ_WEIGHTS_DIR");
    rmdir(dir);
}
END_TEST

/* The shipped networks (weights/zertzR.ckpt, read from the repository root where make test runs):
 * one per board, each for its own board, under 10 MB, found by puct:default with ZZ_WEIGHTS_DIR
 * unset, and strong enough to beat a random player: 4 games at 32 simulations, at least 3 won
 * (an untrained network of their size wins about half; the shipped ones won 20 of 20 at 128). */
START_TEST(shipped_weights_play_their_boards) {
    static const zz_board_kind boards[] = { ZZ_B37, ZZ_B48, ZZ_B61 };
    unsetenv("ZZ_WEIGHTS_DIR");
    for (int k = 0; k < 3; k++) {
        int rings = zz_board_get(boards[k])->rings;
        char path[64], err[512];
        snprintf(path, sizeof path, "weights/zertz%d.ckpt", rings);
        struct stat st;
        ck_assert_msg(stat(path, &st) == 0, "%s is not shipped", path);
        ck_assert_int_lt(st.st_size, 10 * 1024 * 1024);
        nn_config cfg;
        nn_dtype dt;
        long step;
        ck_assert_msg(nn_checkpoint_info(path, &cfg, &dt, &step, err, sizeof err) == 0, "%s: %s", path, err);
        ck_assert_msg(cfg.board == boards[k], "%s is for another board", path);
        mcts_match_config c = { .spec = { "puct:default:32", "random" }, .games = 4, .parallel = 1, .seed = 7,
                                .board = boards[k], .ply_cap = MCTS_MATCH_PLY_CAP_DEFAULT };
        mcts_match_result r;
        ck_assert_msg(mcts_match_run(&c, &r, err, sizeof err) == 0, "%s", err);
        ck_assert_int_eq(r.errors, 0);
        ck_assert_msg(r.wins >= 3, "%s won %d of 4 against random", path, r.wins);
    }
}
END_TEST

/* Time management: a per-game budget spread over the moves still expected, capped per move. */
START_TEST(move_time_from_game_budget) {
    ck_assert(mcts_move_time_ms(1000, 0, 0, 0) == 1000);          /* no game budget */
    ck_assert(mcts_move_time_ms(0, 20000, 0, 0) == 1000);         /* 20 s over 20 expected moves */
    ck_assert(mcts_move_time_ms(2000, 20000, 0, 0) == 1000);
    ck_assert(mcts_move_time_ms(500, 20000, 0, 0) == 500);        /* the per-move time caps it */
    ck_assert(mcts_move_time_ms(0, 20000, 10000, 10) == 1000);    /* 10 s over 10 */
    ck_assert(mcts_move_time_ms(0, 20000, 19000, 30) == 200);     /* at least 5 expected: 1 s / 5 */
    ck_assert(mcts_move_time_ms(0, 1000, 1200, 3) == 1);          /* overspent: 1 ms */
    char err[256];                                                /* an agent keeps to its budget */
    mcts_agent *a = mcts_agent_new("uct:100000000,game=600", 1, err, sizeof err);
    ck_assert_msg(a != NULL, "%s", err);
    zz_pos p;
    zz_pos_init(&p, ZZ_B37);
    ck_assert_int_eq(mcts_agent_newgame(a, &p, 1, err, sizeof err), 0);
    uint64_t rng = 3;
    while (!zz_over(&p)) {
        zz_move m;
        if (p.to_move == 0) ck_assert_msg(mcts_agent_choose(a, &p, &m, err, sizeof err) == 0, "%s", err);
        else m = zz_random_move(&p, &rng);
        ck_assert_int_eq(mcts_agent_played(a, &p, m, err, sizeof err), 0);
        zz_apply(&p, m, NULL);
    }
    const mcts_agent_stats *st = mcts_agent_get_stats(a);
    ck_assert_int_gt(st->moves, 0);
    ck_assert_msg(st->seconds < 0.6 + 0.2 * (double)st->moves, "%.3f s over %ld moves", st->seconds, st->moves);
    mcts_agent_free(a);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("mcts_arena");
    TCase *t = tcase_create("arena");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, agent_specs);
    tcase_add_test(t, elo_estimate);
    tcase_add_test(t, match_reproducible);
    tcase_add_test(t, match_writes_sgf);
    tcase_add_test(t, cmd_agent_plays_our_engine);
    tcase_add_test(t, agent_spec_ranges);
    tcase_add_test(t, agent_options_table_agrees_with_the_help);
    tcase_add_test(t, cmd_agent_times_out);
    tcase_add_test(t, cmd_agent_stop_ends_the_program);
    tcase_add_test(t, arena_tool_command_line);
    tcase_add_test(t, match_openings_distinct_games);
    tcase_add_test(t, match_stops_early);
    tcase_add_test(t, mix_evaluator_blends_rollouts);
    tcase_add_test(t, agent_mix_and_default_weights);
    tcase_add_test(t, default_weights_are_unguarded_with_the_board_guard_top);
    tcase_add_test(t, shipped_weights_play_their_boards);
    tcase_add_test(t, move_time_from_game_budget);
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    return th_run(suite());
}
