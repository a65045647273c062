/* analyse.c — review a game with the engine: every turn's win probability, the engine's best turn,
 * the loss of the turn played and a label (inaccuracy, mistake, blunder), as a text table, JSON, a
 * win-probability graph (PNG) and board pictures of the flagged turns.  A thin main over
 * src/engine/review.h (the web server's review calls the same function).
 *
 *   analyse GAME.sgf [--time MS | --sims N] [--threads N] [--json FILE] [--png FILE] [--boards DIR]
 *   analyse -m "Wd4,d1; Gc3,a1; ..." [--rings 37|48|61] ...
 *
 * Bad usage: "zertz: analyse: OPTION: WHY", exit status 2; a game that cannot be read or
 * analysed: "zertz: analyse: WHY", exit status 1. */
#include "game/atomic_file.h"
#include "cli.h"
#include "nn/omp_env.h"
#include "engine/json.h"
#include "engine/review.h"
#include "mcts/clock.h"
#include "render/draw_review.h"
#include "render/draw_winprob.h"
#include "render/input.h"
#include "render/png.h"
#include <sys/stat.h>
#include <unistd.h>

static const char *const TOOL = "analyse";

static void usage(FILE *f) {
    fprintf(f,
"usage: analyse [options] (GAME | -m TURNS)\n"
"Review a game with the engine: for each turn the mover's win probability, the engine's best\n"
"turn and its value, the value of the turn played, the loss, and a label (inaccuracy, mistake,\n"
"blunder; README.md, \"Reviewing a game\").  GAME is a Boardspace SGF file or a file of turns in\n"
"official notation; Zertz+H games are analysed too, Zertz+xx (Extreme) is refused.\n"
"options:\n"
"  -m, --moves TURNS   the game as turns in notation, e.g. \"Wd4,d1; Gc3,a1; x d4Gb2\"\n"
"  --rings N           board of a notation game: 37, 48 or 61 (default: the smallest that fits)\n"
"  --time MS           milliseconds of search per position (default %.0f)\n"
"  --sims N            simulations per position instead of a time (deterministic with 1 thread)\n"
"  --threads N         search threads, 1..256 (default 2)\n"
"  --agent SPEC        the engine (default: the board's shipped network, puct:default)\n"
"  --temperature T     calibration of values into win probabilities (default %.1f, fitted\n"
"                      on Boardspace games: src/nn/README.md; 1 = (1 + v) / 2)\n"
"  --thresholds I,M,B  loss thresholds of inaccuracy, mistake, blunder (default %.2f,%.2f,%.2f)\n"
"  --json FILE         write the review as JSON (fields: src/engine/README.md)\n"
"  --png FILE          draw the win-probability graph with the flagged turns marked\n"
"  --boards DIR        a picture per flagged turn: the turn played and the engine's choice\n"
"  --seed S            search seed (default 1)\n"
"  -q, --quiet         no progress bar\n"
"  -h, --help          this text\n", 1000.0, ZE_TEMPERATURE, ZE_INACCURACY, ZE_MISTAKE, ZE_BLUNDER);
}

typedef struct {
    const char *file, *moves, *agent, *json, *png, *boards;
    long rings, threads;
    bool quiet;
    ze_review_config cfg;
} options;

static int parse_thresholds(const char *s, double t[3]) {
    char extra;
    if (sscanf(s, "%lf,%lf,%lf%c", &t[0], &t[1], &t[2], &extra) != 3) return -1;
    if (!(t[0] > 0 && t[0] <= t[1] && t[1] <= t[2] && t[2] <= 1)) return -1;
    return 0;
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    ze_review_config_default(&o->cfg);
    o->threads = 2;
    bool have_sims = false, have_time = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) { usage(stdout); return 0; }
        else if (!strcmp(a, "-m") || !strcmp(a, "--moves")) { if (!(o->moves = cli_value(TOOL, argc, argv, &i))) return 2; }
        else if (!strcmp(a, "--rings")) { if (!cli_long_opt(TOOL, argc, argv, &i, 37, 61, &o->rings)) return 2;
                                         if (o->rings != 37 && o->rings != 48 && o->rings != 61) return cli_bad(TOOL, "--rings", "the board must be 37, 48 or 61"); }
        else if (!strcmp(a, "--time")) { if (!cli_double_opt(TOOL, argc, argv, &i, 1, 3.6e6, &o->cfg.time_ms)) return 2; have_time = true; }
        else if (!strcmp(a, "--sims")) { if (!cli_u64_opt(TOOL, argc, argv, &i, MCTS_PUCT_MAX_SIMS, &o->cfg.sims)) return 2; have_sims = true; }
        else if (!strcmp(a, "--threads")) { if (!cli_long_opt(TOOL, argc, argv, &i, 1, 256, &o->threads)) return 2; }
        else if (!strcmp(a, "--agent")) { if (!(o->agent = cli_value(TOOL, argc, argv, &i))) return 2; }
        else if (!strcmp(a, "--temperature")) { if (!cli_double_opt(TOOL, argc, argv, &i, 0.05, 20, &o->cfg.temperature)) return 2; }
        else if (!strcmp(a, "--thresholds")) {
            const char *v = cli_value(TOOL, argc, argv, &i);
            if (!v) return 2;
            if (parse_thresholds(v, o->cfg.thresholds) != 0) return cli_bad(TOOL, "--thresholds", "expected I,M,B with 0 < I <= M <= B <= 1, e.g. 0.1,0.2,0.3");
        }
        else if (!strcmp(a, "--json")) { if (!(o->json = cli_value(TOOL, argc, argv, &i))) return 2; }
        else if (!strcmp(a, "--png")) { if (!(o->png = cli_value(TOOL, argc, argv, &i))) return 2; }
        else if (!strcmp(a, "--boards")) { if (!(o->boards = cli_value(TOOL, argc, argv, &i))) return 2; }
        else if (!strcmp(a, "--seed")) { if (!cli_u64_opt(TOOL, argc, argv, &i, UINT64_MAX, &o->cfg.seed)) return 2; }
        else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) o->quiet = true;
        else if (a[0] != '-' && !o->file) o->file = a;
        else return cli_unknown(TOOL, a);
    }
    if (have_sims && have_time) return cli_bad(TOOL, "--sims", "give --sims or --time, not both");
    if (have_sims) o->cfg.time_ms = 0;
    if (have_sims && o->cfg.sims == 0) return cli_bad(TOOL, "--sims", "the budget must be at least 1 simulation");
    if (have_time && !(o->cfg.time_ms > 0)) return cli_bad(TOOL, "--time", "the budget must be more than 0 ms");
    if (!o->file == !o->moves) return cli_bad(TOOL, o->file ? "-m" : "GAME", "give one game: a file or -m TURNS");
    if (zz_same_file(o->json, o->file)) return cli_bad(TOOL, "--json", "that is the game's file: it would be overwritten");
    if (zz_same_file(o->png, o->file)) return cli_bad(TOOL, "--png", "that is the game's file: it would be overwritten");
    if (zz_same_path(o->png, o->json)) return cli_bad(TOOL, "--png", "that is the --json file: one would overwrite the other");
    char err[512];
    if (o->agent && mcts_agent_check_spec(o->agent, err, sizeof err) != 0) return cli_bad(TOOL, "--agent", err);
    return -1;
}

/* ---- progress and output ----------------------------------------------------------------- */
typedef struct { bool show; double t0; } progress_state;

static void show_progress(const ze_review *r, int turn, void *ctx) {
    progress_state *ps = ctx;
    if (!ps->show) return;
    int width = 30, fill = r->total ? width * r->done / r->total : width;
    double el = mcts_now_s() - ps->t0, eta = r->done ? el * (r->total - r->done) / r->done : 0;
    fprintf(stderr, "\ranalyse: [%.*s%*s] %d/%d positions, %.0f s, about %.0f s left ", fill,
            "##############################", width - fill, "", r->done, r->total, el, eta);
    fflush(stderr);
}

static void value_text(double v, char *out, size_t n) {
    if (isnan(v)) snprintf(out, n, "-");
    else snprintf(out, n, "%+.2f", v);
}

static void print_table(const zz_game *g, const ze_review *r) {
    printf("%4s  %-14s %-22s %6s  %-22s %6s %6s %6s  %s\n", "turn", "player", "played", "win%", "engine's best",
           "value", "played", "loss%", "label");
    for (int i = 0; i < r->nturns; i++) {
        const ze_review_turn *t = &r->turns[i];
        char name[16], wp[16], vb[16], vp[16], loss[16];
        snprintf(name, sizeof name, "%.14s", g->player_name[t->player][0] ? g->player_name[t->player] : t->player ? "Player 2" : "Player 1");
        if (isnan(t->wp_before)) snprintf(wp, sizeof wp, "-");
        else snprintf(wp, sizeof wp, "%.1f", 100 * t->wp_before);
        value_text(t->value_best, vb, sizeof vb);
        value_text(t->value_played, vp, sizeof vp);
        if (isnan(t->loss)) snprintf(loss, sizeof loss, "-");
        else snprintf(loss, sizeof loss, "%.1f", 100 * t->loss);
        printf("%4d  %-14s %-22s %6s  %-22s %6s %6s %6s  %s%s\n", i + 1, name, t->played, wp,
               t->is_best ? "=" : t->best, vb, vp, loss, ZE_LABEL_NAMES[t->label],
               t->forced ? "(forced)" : t->better ? "(better than the engine's)" : "");
    }
}

static void print_summary(const zz_game *g, const ze_review *r) {
    for (int pl = 0; pl < 2; pl++) {
        int count[4] = { 0 }, scored = 0, same = 0, better = 0;
        double sum = 0;
        for (int i = 0; i < r->nturns; i++) {
            const ze_review_turn *t = &r->turns[i];
            if (t->player != pl || isnan(t->loss)) continue;
            count[t->label]++, scored++, sum += t->loss, same += t->is_best, better += t->better;
        }
        printf("%s: %d turns, %d as the engine, %d better, mean loss %.1f%%, %d inaccuracies, %d mistakes, %d blunders\n",
               g->player_name[pl][0] ? g->player_name[pl] : pl ? "Player 2" : "Player 1", scored, same, better,
               scored ? 100 * sum / scored : 0.0, count[1], count[2], count[3]);
    }
    printf("analysed %d positions in %.1f s%s\n", r->done, r->seconds, r->stopped ? " (stopped early)" : "");
}

static int write_json(const char *path, const zz_game *g, const ze_review *r, const ze_review_config *cfg,
                      const char *agent, char *err, size_t errlen) {
    cJSON *o = ze_review_json(g, r, cfg, agent);
    char *text = o ? cJSON_Print(o) : NULL;
    cJSON_Delete(o);
    if (!text) { snprintf(err, errlen, "out of memory"); return -1; }
    size_t n = strlen(text);
    text[n] = '\n';                                /* cJSON_Print's NUL becomes the last newline */
    int rc = zz_write_file_atomic(path, text, n + 1, err, errlen);
    free(text);
    return rc;
}

static int write_graph(const char *path, const zz_game *g, const ze_review *r, const ze_review_config *cfg,
                       char *err, size_t errlen) {
    rd_wp_turn *pts = malloc((size_t)r->nturns * sizeof *pts);
    if (!pts) { snprintf(err, errlen, "out of memory"); return -1; }
    for (int i = 0; i < r->nturns; i++)
        pts[i] = (rd_wp_turn){ ze_review_wp0(r, cfg, i), r->turns[i].player, r->turns[i].label };
    char names[2][64], title[256];
    for (int p = 0; p < 2; p++)                               /* cut to a picture's line */
        snprintf(names[p], sizeof names[p], "%.63s", g->player_name[p][0] ? g->player_name[p] : p ? "Player 2" : "Player 1");
    snprintf(title, sizeof title, "%s vs %s: win probability (%s)", names[0], names[1], rd_board_title(g->board));
    rd_style st;
    rd_style_default(&st);
    rd_canvas c;
    int rc = rd_draw_winprob(pts, r->nturns, ze_review_wp0(r, cfg, r->nturns), title, (const char (*)[64])names, &st, &c, err, errlen);
    free(pts);
    if (rc != 0) return -1;
    rc = rd_png_write(&c, path, err, errlen);
    rd_canvas_free(&c);
    return rc;
}

static int write_boards(const char *dir, const zz_game *g, const ze_review *r, char *err, size_t errlen) {
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) { snprintf(err, errlen, "%s: %s", dir, strerror(errno)); return -1; }
    rd_style st;
    rd_style_default(&st);
    for (int i = 0; i < r->nturns; i++) {
        const ze_review_turn *t = &r->turns[i];
        if (!t->label) continue;
        rd_canvas c;
        char path[1200], caption[160];
        int k = snprintf(caption, sizeof caption, "%s: lost %.0f%% of win probability", ZE_LABEL_NAMES[t->label], 100 * t->loss);
        if (t->value_from == ZE_FROM_REPLY && i + 1 < r->nturns)
            snprintf(caption + k, sizeof caption - (size_t)k, ", shown by the reply %s", r->turns[i + 1].played);
        if (rd_draw_review_turn(g, i, t->best_moves, t->nbest, caption, &st, &c, err, errlen) != 0) return -1;
        snprintf(path, sizeof path, "%.1000s/turn-%03d-%s.png", dir, i + 1, ZE_LABEL_NAMES[t->label]);
        int rc = rd_png_write(&c, path, err, errlen);
        rd_canvas_free(&c);
        if (rc != 0) return -1;
    }
    return 0;
}

static int load_game(const options *o, zz_game *g, char *err, size_t errlen) {
    if (o->moves) return rd_load_notation(o->moves, (int)o->rings, g, err, errlen);
    if (rd_load_file(o->file, (int)o->rings, g, err, errlen) != 0) return -1;
    if (g->nturns == 0) { snprintf(err, errlen, "%s: the game has no moves to review", o->file); return -1; }
    return 0;
}

int main(int argc, char **argv) {
    nn_omp_single_thread(argv);        /* the search's threads fill the cores: OpenMP on one (omp_env.h) */
    options o;
    int status = parse_args(argc, argv, &o);
    if (status >= 0) return status;
    char err[1024], path[1100];
    zz_game g;
    if (load_game(&o, &g, err, sizeof err) != 0) {
        fprintf(stderr, "zertz: %s: %s\n", TOOL, err);
        zz_game_free(&g);
        return 1;
    }
    char spec[600];
    if (o.agent) snprintf(spec, sizeof spec, "%s", o.agent);
    else if (mcts_default_weights(g.board, path, sizeof path) == 0) snprintf(spec, sizeof spec, "puct:default:%llu", (unsigned long long)MCTS_PUCT_MAX_SIMS);
    else {
        fprintf(stderr, "zertz: %s: no shipped network for the %d-ring board (%s): give --agent\n", TOOL, zz_board_get(g.board)->rings, path);
        zz_game_free(&g);
        return 1;
    }
    mcts_agent *a = mcts_agent_new(spec, (int)o.threads, err, sizeof err);
    ze_review r = { 0 };
    progress_state ps = { !o.quiet && isatty(2), mcts_now_s() };
    int rc = a ? ze_review_game(a, &g, &o.cfg, NULL, show_progress, &ps, &r, err, sizeof err) : -1;
    if (ps.show) fputc('\n', stderr);
    if (rc == 0) {
        print_table(&g, &r);
        print_summary(&g, &r);
        if (o.json && write_json(o.json, &g, &r, &o.cfg, spec, err, sizeof err) != 0) rc = -1;
        if (rc == 0 && o.png && write_graph(o.png, &g, &r, &o.cfg, err, sizeof err) != 0) rc = -1;
        if (rc == 0 && o.boards && write_boards(o.boards, &g, &r, err, sizeof err) != 0) rc = -1;
    }
    if (rc != 0) fprintf(stderr, "zertz: %s: %s\n", TOOL, err);
    ze_review_free(&r);
    mcts_agent_free(a);
    zz_game_free(&g);
    return rc == 0 ? 0 : 1;
}
