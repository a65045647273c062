/* agent.c — spec parsing and the four kinds of player (see agent.h). */
#include "agent.h"
#include "mcts/clock.h"
#include "game/notation.h"
#include "proc.h"
#include "rand.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { AG_RANDOM, AG_UCT, AG_PUCT, AG_CMD };

struct mcts_agent {
    int kind;
    char name[512];
    uint64_t budget;               /* iterations / simulations */
    double time_ms;                /* 0 = none */
    uint64_t spec_budget;          /* the spec's own budget and time */
    double spec_time_ms;
    uint64_t seed;                 /* from the spec (mixed with the per-game seed) */
    uint64_t rng;
    mcts_uct_config ucfg;
    mcts_puct_config pcfg;
    char weights[512];             /* as the spec names them ("default": the shipped network) */
    int ev_board;                  /* the board ev was resolved for ("default" weights), or -1 */
    double game_ms;                /* time budget per game (0: none): spread over the moves */
    double game_used_ms;           /* spent in this game so far */
    int game_moves;                /* moves chosen in this game */
    double mix;                    /* leaf values blended with random rollouts (0: none) */
    int mix_rollouts;
    int reuse;                     /* keep the subtree of the move played */
    mcts_uct *uct;
    mcts_puct *puct;
    mcts_evaluator *ev;
    mcts_proc proc;
    char program[512];
    zz_pos pos;                    /* the position the search tree is rooted at */
    bool have_pos;
    mcts_agent_stats stats;
};

/* Parse "key=value" options; returns 0 or -1 with a message. */
static int parse_options(mcts_agent *a, char *opts, char *err, size_t errlen) {
    for (char *tok = strtok(opts, ","); tok; tok = strtok(NULL, ",")) {
        char *eq = strchr(tok, '=');
        if (!eq) { snprintf(err, errlen, "option '%s' is not key=value", tok); return -1; }
        *eq = 0;
        const char *k = tok;
        char *end;
        double v = strtod(eq + 1, &end);
        if (end == eq + 1 || *end) { snprintf(err, errlen, "option %s: '%s' is not a number", k, eq + 1); return -1; }
        bool u = a->kind == AG_UCT, p = a->kind == AG_PUCT;
        if (!strcmp(k, "threads") && v >= 1 && v <= 256) a->ucfg.threads = a->pcfg.threads = (int)v;
        else if (!strcmp(k, "seed")) a->seed = (uint64_t)v;
        else if (!strcmp(k, "time") && v >= 0 && v <= 3.6e6) a->time_ms = v;
        else if (!strcmp(k, "game") && v >= 0 && v <= 3.6e7) a->game_ms = v;
        else if (!strcmp(k, "reuse")) a->pcfg.reuse = a->reuse = (int)v;
        else if (!strcmp(k, "win")) a->ucfg.root_win_check = a->pcfg.root_win_check = (int)v;
        else if (!strcmp(k, "c") && v >= 0) { a->ucfg.c_uct = v; a->pcfg.c_puct = v; }
        else if (!strcmp(k, "vl") && v >= 1) a->ucfg.virtual_loss = a->pcfg.virtual_loss = (int)v;
        else if (u && !strcmp(k, "fpu")) a->ucfg.fpu = v;
        else if (u && !strcmp(k, "pwc") && v > 0) a->ucfg.pw_c = v;
        else if (u && !strcmp(k, "pwa") && v >= 0) a->ucfg.pw_alpha = v;
        else if (p && !strcmp(k, "fpu")) a->pcfg.fpu_reduction = v;
        else if (p && !strcmp(k, "fpuroot")) a->pcfg.fpu_reduction_root = v;
        else if (p && !strcmp(k, "batch") && v >= 1) a->pcfg.batch = (int)v;
        else if (p && !strcmp(k, "inflight") && v >= 1) a->pcfg.inflight = (int)v;
        else if (p && !strcmp(k, "noise")) a->pcfg.noise = (int)v;
        else if (p && !strcmp(k, "eps") && v >= 0 && v <= 1) a->pcfg.noise_eps = v;
        else if (p && !strcmp(k, "alpha") && v > 0) a->pcfg.noise_alpha_total = v;
        else if (p && !strcmp(k, "temp") && v >= 0) a->pcfg.temperature = v;
        else if (p && !strcmp(k, "tempplies") && v >= 0) a->pcfg.temp_plies = (int)v;
        else if (p && !strcmp(k, "full") && v >= 0 && v <= 1) a->pcfg.full_prob = v;
        else if (p && !strcmp(k, "fast") && v >= 1) a->pcfg.sims_fast = (int)v;
        else if (p && !strcmp(k, "maxchildren") && v >= 0) a->pcfg.max_children = (int)v;
        else if (p && !strcmp(k, "mix") && v >= 0 && v <= 1) a->mix = v;
        else if (p && !strcmp(k, "rollouts") && v >= 1 && v <= 1000) a->mix_rollouts = (int)v;
        else { snprintf(err, errlen, "unknown or out-of-range option '%s' for %s", k, a->name); return -1; }
    }
    return 0;
}

/* The shipped network for a board: ZZ_WEIGHTS_DIR, else weights/ in the working directory, else
 * weights/ beside the tools' directory (the program's own folder's parent). */
int mcts_default_weights(zz_board_kind board, char *path, size_t len) {
    char name[64], dir[1024];
    snprintf(name, sizeof name, "zertz%d.ckpt", zz_board_get(board)->rings);
    const char *env = getenv("ZZ_WEIGHTS_DIR");
    if (env && *env) {
        snprintf(path, len, "%.900s/%s", env, name);
        return access(path, R_OK) == 0 ? 0 : -1;
    }
    snprintf(path, len, "weights/%s", name);
    if (access(path, R_OK) == 0) return 0;
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (n > 0) {
        dir[n] = 0;
        char *slash = strrchr(dir, '/');
        if (slash) {
            *slash = 0;
            snprintf(path, len, "%.900s/../weights/%s", dir, name);
            if (access(path, R_OK) == 0) return 0;
        }
    }
    snprintf(path, len, "weights/%s", name);
    return -1;
}

/* (Re)build the agent's evaluator for `board`: its weights (the shipped ones for "default"),
 * wrapped in the rollout mix when asked. */
static int make_eval(mcts_agent *a, zz_board_kind board, uint64_t seed, char *err, size_t errlen) {
    mcts_evaluator_free(a->ev);
    a->ev = NULL;
    char path[1100];
    const char *w = a->weights;
    if (!strcmp(w, "default")) {
        if (mcts_default_weights(board, path, sizeof path) != 0) {
            snprintf(err, errlen, "no shipped network for the %d-ring board (%s; set ZZ_WEIGHTS_DIR or name a checkpoint)",
                     zz_board_get(board)->rings, path);
            return -1;
        }
        w = path;
    }
    if (!(a->ev = mcts_eval_by_name(w, seed, err, errlen))) return -1;
    a->ev_board = (int)board;
    if (a->mix > 0 && !(a->ev = mcts_eval_mix_new(a->ev, true, a->mix, a->mix_rollouts, seed))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

static bool parse_count(const char *s, uint64_t *out) {
    char *end;
    if (!isdigit((unsigned char)*s)) return false;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || v == 0) return false;
    *out = v;
    return true;
}

/* Expect "ok" after a command, skipping other lines; an "err" line is an error. */
static int cmd_expect_ok(mcts_agent *a, char *line, size_t n, char *err, size_t errlen) {
    for (;;) {
        if (mcts_proc_read_line(&a->proc, line, n) != 0) {
            snprintf(err, errlen, "%s: the program closed its output", a->program);
            return -1;
        }
        if (!strcmp(line, "ok")) return 0;
        if (!strncmp(line, "err", 3)) {
            snprintf(err, errlen, "%s: %.200s", a->program, line);
            char rest[256];
            while (mcts_proc_read_line(&a->proc, rest, sizeof rest) == 0 && strcmp(rest, "ok")) {}
            return -1;
        }
    }
}

static int cmd_command(mcts_agent *a, const char *cmd, char *err, size_t errlen) {
    char line[512];
    if (mcts_proc_send(&a->proc, cmd) != 0) { snprintf(err, errlen, "%s: cannot write to the program", a->program); return -1; }
    return cmd_expect_ok(a, line, sizeof line, err, errlen);
}

mcts_agent *mcts_agent_new(const char *spec, int threads_default, char *err, size_t errlen) {
    mcts_agent *a = calloc(1, sizeof *a);
    if (!a) { snprintf(err, errlen, "out of memory"); return NULL; }
    snprintf(a->name, sizeof a->name, "%s", spec);
    mcts_uct_config_default(&a->ucfg);
    mcts_puct_config_default(&a->pcfg);
    a->pcfg.noise = 0;                       /* match play: no noise, no temperature */
    a->pcfg.root_win_check = 1;
    if (threads_default > 0) a->ucfg.threads = a->pcfg.threads = threads_default;
    a->proc.pid = -1;
    a->reuse = 1;
    a->ev_board = -1;
    a->mix_rollouts = 1;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", spec);
    char *opts = NULL;
    if (!strcmp(buf, "random")) {
        a->kind = AG_RANDOM;
    } else if (!strncmp(buf, "cmd:", 4)) {
        a->kind = AG_CMD;
        snprintf(a->program, sizeof a->program, "%s", buf + 4);
        if (!a->program[0]) { snprintf(err, errlen, "cmd: needs a program"); goto fail; }
        if (mcts_proc_spawn(&a->proc, a->program, err, errlen) != 0) goto fail;
        if (cmd_command(a, "info", err, errlen) != 0) goto fail;
    } else if (!strncmp(buf, "uct:", 4)) {
        a->kind = AG_UCT;
        char *body = buf + 4;
        opts = strchr(body, ',');
        if (opts) *opts++ = 0;
        if (!parse_count(body, &a->budget)) { snprintf(err, errlen, "uct:ITERS needs a positive count, not '%s'", body); goto fail; }
    } else if (!strncmp(buf, "puct:", 5)) {
        a->kind = AG_PUCT;
        char *body = buf + 5;
        opts = strchr(body, ',');
        if (opts) *opts++ = 0;
        char *colon = strrchr(body, ':');
        if (!colon || colon == body || !parse_count(colon + 1, &a->budget)) {
            snprintf(err, errlen, "puct:WEIGHTS:SIMS needs weights and a positive simulation count");
            goto fail;
        }
        *colon = 0;
        snprintf(a->weights, sizeof a->weights, "%s", body);
    } else {
        snprintf(err, errlen, "unknown agent '%s' (random, uct:ITERS, puct:WEIGHTS:SIMS, cmd:PROGRAM)", spec);
        goto fail;
    }
    if (opts && *opts && parse_options(a, opts, err, errlen) != 0) goto fail;
    if (a->kind == AG_PUCT && make_eval(a, ZZ_B37, 1, err, errlen) != 0) {
        /* fail early on bad weights; "default" is resolved per board at newgame */
        if (strcmp(a->weights, "default")) goto fail;
        a->ev_board = -1;
    }
    a->pcfg.sims_full = (int)(a->budget > 0x7fffffff ? 0x7fffffff : a->budget);
    a->spec_budget = a->budget;
    a->spec_time_ms = a->time_ms;
    return a;
fail:
    mcts_agent_free(a);
    return NULL;
}

void mcts_agent_free(mcts_agent *a) {
    if (!a) return;
    if (a->kind == AG_CMD && a->proc.pid > 0) {
        mcts_proc_send(&a->proc, "quit");
        mcts_proc_close(&a->proc);
    }
    mcts_uct_free(a->uct);
    mcts_puct_free(a->puct);
    mcts_evaluator_free(a->ev);
    free(a);
}

const char *mcts_agent_name(const mcts_agent *a) { return a->name; }
const mcts_agent_stats *mcts_agent_get_stats(const mcts_agent *a) { return &a->stats; }

void mcts_agent_set_budget(mcts_agent *a, uint64_t sims, double time_ms) {
    a->budget = sims ? sims : a->spec_budget;
    a->time_ms = time_ms > 0 ? time_ms : sims ? 0 : a->spec_time_ms;
}

int mcts_agent_newgame(mcts_agent *a, const zz_pos *start, uint64_t seed, char *err, size_t errlen) {
    uint64_t s = mcts_seed(seed ^ (a->seed * 0x9E3779B97F4A7C15ULL));
    a->game_used_ms = 0;
    a->game_moves = 0;
    a->rng = s;
    a->pos = *start;
    a->have_pos = true;
    switch (a->kind) {
    case AG_UCT:
        mcts_uct_free(a->uct);
        a->ucfg.seed = s;
        if (!(a->uct = mcts_uct_new(&a->ucfg))) { snprintf(err, errlen, "out of memory"); return -1; }
        mcts_uct_set_root(a->uct, start);
        return 0;
    case AG_PUCT:
        mcts_puct_free(a->puct);
        a->puct = NULL;
        /* rollouts are reseeded per game; a network is kept unless the board changed */
        if ((!a->ev || a->mix > 0 || !strncmp(a->weights, "rollout", 7) ||
             (!strcmp(a->weights, "default") && a->ev_board != (int)start->board)) &&
            make_eval(a, (zz_board_kind)start->board, s, err, errlen) != 0)
            return -1;
        a->pcfg.seed = s;
        if (!(a->puct = mcts_puct_new(&a->pcfg, a->ev, err, errlen))) return -1;
        mcts_puct_set_root(a->puct, start);
        return 0;
    case AG_CMD: {
        char cmd[64];
        snprintf(cmd, sizeof cmd, "newgame %d", zz_pos_board(start)->rings);
        return cmd_command(a, cmd, err, errlen);
    }
    default:
        return 0;
    }
}

/* Bring the search tree's root to p (a fresh tree unless it is already there). */
static void sync_root(mcts_agent *a, const zz_pos *p) {
    if (a->have_pos && zz_pos_equal(&a->pos, p)) return;
    a->pos = *p;
    a->have_pos = true;
    if (a->uct) mcts_uct_set_root(a->uct, p);
    if (a->puct) mcts_puct_set_root(a->puct, p);
}

/* This move's time: the per-move time, capped with a game budget by an even share of what is
 * left over the moves still expected (at least 5: a 37-ring game takes about 20 decisions a side). */
double mcts_move_time_ms(double per_move_ms, double game_ms, double used_ms, int moves_made) {
    if (game_ms <= 0) return per_move_ms;
    double left = game_ms - used_ms;
    int expect = 20 - moves_made > 5 ? 20 - moves_made : 5;
    double share = left / expect;
    if (share < 1) share = 1;
    return per_move_ms > 0 && per_move_ms < share ? per_move_ms : share;
}

int mcts_agent_choose(mcts_agent *a, const zz_pos *p, zz_move *m, char *err, size_t errlen) {
    double t0 = mcts_now_s();
    *m = ZZ_MOVE_NONE;
    if (zz_over(p)) { snprintf(err, errlen, "the game is over"); return -1; }
    double tms = mcts_move_time_ms(a->time_ms, a->game_ms, a->game_used_ms, a->game_moves);
    switch (a->kind) {
    case AG_RANDOM:
        *m = zz_random_move(p, &a->rng);
        break;
    case AG_UCT: {
        sync_root(a, p);
        mcts_search_stats st;
        *m = mcts_uct_choose(a->uct, tms > 0 ? 0 : a->budget, tms, &st);
        a->stats.sims += st.iterations;
        break;
    }
    case AG_PUCT: {
        sync_root(a, p);
        mcts_think th;
        if (mcts_puct_think(a->puct, tms > 0 ? 0 : (int)a->budget, tms, &th, err, errlen) != 0) return -1;
        *m = th.move;
        a->stats.sims += th.stats.iterations;
        break;
    }
    case AG_CMD: {
        char line[512], cmd[64];
        if (tms > 0) snprintf(cmd, sizeof cmd, "bestmove time %.0f", tms);
        else snprintf(cmd, sizeof cmd, "bestmove");
        if (mcts_proc_send(&a->proc, cmd) != 0) { snprintf(err, errlen, "%s: cannot write to the program", a->program); return -1; }
        bool got = false;
        for (;;) {
            if (mcts_proc_read_line(&a->proc, line, sizeof line) != 0) {
                snprintf(err, errlen, "%s: the program closed its output", a->program);
                return -1;
            }
            if (!strcmp(line, "ok")) break;
            if (!strncmp(line, "err", 3)) { snprintf(err, errlen, "%s: %.200s", a->program, line); return -1; }
            if (!got) {
                char e[200];
                if (zz_move_from_text(p, line, m, e, sizeof e) != 0) {
                    snprintf(err, errlen, "%s: bestmove '%.100s': %s", a->program, line, e);
                    return -1;
                }
                got = true;
            }
        }
        if (!got) { snprintf(err, errlen, "%s: bestmove gave no move", a->program); return -1; }
        break;
    }
    }
    if (!*m || !zz_is_legal(p, *m)) { snprintf(err, errlen, "%s chose no legal move", a->name); return -1; }
    double dt = mcts_now_s() - t0;
    a->stats.moves++;
    a->stats.seconds += dt;
    a->game_used_ms += 1000 * dt;
    a->game_moves++;
    return 0;
}

int mcts_agent_played(mcts_agent *a, const zz_pos *before, zz_move m, char *err, size_t errlen) {
    zz_pos after = *before;
    zz_apply(&after, m, NULL);
    if (a->kind == AG_CMD) {
        char text[ZZ_NOTATION_MAX], cmd[ZZ_NOTATION_MAX + 8];
        zz_move_to_text(before, m, text);
        snprintf(cmd, sizeof cmd, "play %s", text);
        return cmd_command(a, cmd, err, errlen);
    }
    if ((a->uct || a->puct) && a->reuse && a->have_pos && zz_pos_equal(&a->pos, before)) {
        if (a->uct) mcts_uct_advance(a->uct, m);
        if (a->puct) mcts_puct_advance(a->puct, m);
        a->pos = after;
        return 0;
    }
    sync_root(a, &after);
    return 0;
}
