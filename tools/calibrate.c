/* calibrate.c — how well the network's value, read as a win probability, matches the real results
 * of games: every turn's starting position of Boardspace SGF records, evaluated by the network (or
 * searched), against who won the game; a reliability table, the Brier score, the log loss, the
 * expected calibration error, the temperature that fits best (src/engine/calibrate.h), as text,
 * JSON and a reliability diagram (PNG).  A thin main over src/engine/calibrate.h.
 *
 *   calibrate [--weights CKPT] [--rings N] [--bins K] [--sims N] [--max-positions N] DIR_OR_SGF...
 *   calibrate --compare [--png FILE] JSON...
 *
 * Bad usage: "zertz: calibrate: OPTION: WHY", exit status 2; files that cannot be read, a network
 * that cannot be loaded, no position to measure: "zertz: calibrate: WHY", exit status 1. */
#include "game/atomic_file.h"
#include "cli.h"
#include "engine/analysis.h"
#include "engine/calibrate.h"
#include "game/sgf.h"
#include "game/sgf_files.h"
#include "mcts/clock.h"
#include "mcts/evaluator.h"
#include "render/draw_reliability.h"
#include "render/png.h"
#include "render/scene.h"
#include <cjson/cJSON.h>

static const char *const TOOL = "calibrate";

enum { EVAL_BATCH = 256, MAX_SERIES = 16 };

static void usage(FILE *f) {
    fprintf(f,
"usage: calibrate [options] DIR_OR_SGF...\n"
"       calibrate --compare [--png FILE] [--title TEXT] JSON...\n"
"How well the network's value, read as a win probability (p = (1 + v) / 2), matches the real\n"
"results: every turn's starting position of the Boardspace SGF records given (folders are\n"
"searched for *.sgf), with the game's winner as the outcome for the player to move (a draw\n"
"counts 1/2).  Records that cannot be read, of another board, or with no winner (unfinished)\n"
"are skipped and counted.  Prints the positions per bin of predicted probability with their mean\n"
"prediction and observed frequency of a win, the Brier score, the log loss, the expected\n"
"calibration error (ECE), and the temperature T that minimises the log loss of\n"
"p = sigmoid(2 atanh(v) / T) (golden-section search over T in [%g, %g]; what the game review's\n"
"--temperature applies).  Definitions: src/engine/calibrate.h.\n"
"options:\n"
"  --weights CKPT       the network (default: the board's shipped network, weights/zertzN.ckpt)\n"
"  --rings N            the board measured: 37, 48 or 61 (default 37)\n"
"  --bins K             bins of predicted probability, 2..100 (default 10)\n"
"  --sims N             take the value of a PUCT search of N simulations of each position (one\n"
"                       thread, a fresh tree each time) instead of the network's raw value\n"
"  --max-positions N    measure at most N positions, drawn uniformly from all of them with a\n"
"                       fixed seed (default 0: all)\n"
"  --seed S             seed of that draw and of the searches (default 1)\n"
"  --temperature T      also score the predictions at this T (e.g. the one the review uses)\n"
"  --label TEXT         the name of this set of positions (JSON, the diagram's legend)\n"
"  --json FILE          write the results as JSON (the input of --compare)\n"
"  --png FILE           draw the reliability diagram\n"
"  --title TEXT         the diagram's title\n"
"  --compare            the arguments are --json files of earlier runs: print them as one\n"
"                       table and draw them together in --png (one series each, named by\n"
"                       its label)\n"
"  -q, --quiet          no progress line\n"
"  -h, --help           this text\n"
"example:\n"
"  calibrate ../shared/boardspace/sgf/37 --label 'human, raw' --json human.json\n"
"  calibrate /tmp/selfplay37 --label 'self-play, raw' --json selfplay.json\n"
"  calibrate --compare human.json selfplay.json --png calibration.png\n",
            ZE_CALIB_T_MIN, ZE_CALIB_T_MAX);
}

typedef struct {
    const char *weights, *label, *json, *png, *title;
    int rings, bins;
    uint64_t sims, max_positions, seed;
    double temperature;       /* 0: none */
    bool compare, quiet;
    const char *inputs[256];
    int ninputs;
} options;

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->rings = 37;
    o->bins = 10;
    o->seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) { usage(stdout); return 0; }
        else if (!strcmp(a, "--weights")) { if (!(o->weights = cli_value(TOOL, argc, argv, &i))) return 2; }
        else if (!strcmp(a, "--rings")) { if (!cli_rings_opt(TOOL, argc, argv, &i, &o->rings)) return 2; }
        else if (!strcmp(a, "--bins")) { if (!cli_int_opt(TOOL, argc, argv, &i, 2, 100, &o->bins)) return 2; }
        else if (!strcmp(a, "--sims")) { if (!cli_u64_opt(TOOL, argc, argv, &i, MCTS_PUCT_MAX_SIMS, &o->sims)) return 2;
                                        if (!o->sims) return cli_bad(TOOL, "--sims", "the search needs at least 1 simulation"); }
        else if (!strcmp(a, "--max-positions")) { if (!cli_u64_opt(TOOL, argc, argv, &i, 1000000000, &o->max_positions)) return 2; }
        else if (!strcmp(a, "--seed")) { if (!cli_u64_opt(TOOL, argc, argv, &i, UINT64_MAX, &o->seed)) return 2; }
        else if (!strcmp(a, "--temperature")) { if (!cli_double_opt(TOOL, argc, argv, &i, 0.05, 20, &o->temperature)) return 2; }
        else if (!strcmp(a, "--label")) { if (!(o->label = cli_value(TOOL, argc, argv, &i))) return 2; }
        else if (!strcmp(a, "--json")) { if (!(o->json = cli_value(TOOL, argc, argv, &i))) return 2; }
        else if (!strcmp(a, "--png")) { if (!(o->png = cli_value(TOOL, argc, argv, &i))) return 2; }
        else if (!strcmp(a, "--title")) { if (!(o->title = cli_value(TOOL, argc, argv, &i))) return 2; }
        else if (!strcmp(a, "--compare")) o->compare = true;
        else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) o->quiet = true;
        else if (a[0] == '-' && a[1]) return cli_unknown(TOOL, a);
        else if (o->ninputs == (int)(sizeof o->inputs / sizeof *o->inputs)) return cli_bad(TOOL, a, "too many inputs (256 at most)");
        else o->inputs[o->ninputs++] = a;
    }
    if (!o->ninputs) return cli_bad(TOOL, o->compare ? "JSON" : "DIR_OR_SGF", "give at least one input");
    if (o->compare && o->ninputs > MAX_SERIES) return cli_bad(TOOL, "--compare", "16 series at most");
    if (o->compare && (o->json || o->weights || o->sims || o->max_positions || o->temperature))
        return cli_bad(TOOL, "--compare", "draws earlier results: --json, --weights, --sims, --max-positions and --temperature do not apply");
    for (int k = 0; k < o->ninputs; k++) {                 /* an output must not overwrite an input */
        if (zz_same_file(o->json, o->inputs[k])) return cli_bad(TOOL, "--json", "that is an input: it would be overwritten");
        if (zz_same_file(o->png, o->inputs[k])) return cli_bad(TOOL, "--png", "that is an input: it would be overwritten");
    }
    if (zz_same_path(o->png, o->json)) return cli_bad(TOOL, "--png", "that is the --json file: one would overwrite the other");
    return -1;
}

/* ---- the positions of the games ---------------------------------------------------------- */
typedef struct {
    zz_pos pos;
    float y;                  /* the outcome for pos.to_move: 1, 0.5 or 0 */
} sample;

typedef struct {
    sample *s;
    size_t n, cap;
    long files, games, draws, unreadable, other_board, no_winner;
} sample_set;

static int push_sample(sample_set *set, const zz_pos *p, float y) {
    if (set->n == set->cap) {
        size_t cap = set->cap ? 2 * set->cap : 4096;
        sample *ns = realloc(set->s, cap * sizeof *ns);
        if (!ns) return -1;
        set->s = ns;
        set->cap = cap;
    }
    set->s[set->n++] = (sample){ *p, y };
    return 0;
}

/* Every turn's starting position of g (not over), with the outcome for its player to move. */
static int add_game(sample_set *set, const zz_game *g) {
    zz_pos p = g->start;
    for (int t = 0; t < g->nturns && !zz_over(&p); t++) {
        float y = g->winner < 0 ? 0.5f : g->winner == p.to_move ? 1.0f : 0.0f;
        if (push_sample(set, &p, y) != 0) return -1;
        for (int i = 0; i < g->turns[t].nmoves; i++) zz_apply(&p, g->turns[t].moves[i], NULL);
    }
    return 0;
}

static int read_games(const options *o, sample_set *set, char *err, size_t errlen) {
    zz_file_list files = { 0 };
    int rc = 0;
    for (int i = 0; i < o->ninputs && rc == 0; i++) rc = zz_file_list_add(&files, o->inputs[i], err, errlen);
    zz_board_kind board = o->rings == 37 ? ZZ_B37 : o->rings == 48 ? ZZ_B48 : ZZ_B61;
    for (int i = 0; i < files.n && rc == 0; i++) {
        zz_game g;
        char why[512];
        set->files++;
        if (zz_sgf_read_file(files.paths[i], &g, why, sizeof why) != 0) set->unreadable++;
        else if (g.board != board) set->other_board++;
        else if (g.winner < 0 && g.end != ZZ_END_PLY_CAP) set->no_winner++;
        else {
            set->games++;
            set->draws += g.winner < 0;
            if (add_game(set, &g) != 0) { snprintf(err, errlen, "out of memory"); rc = -1; }
        }
        zz_game_free(&g);
    }
    zz_file_list_free(&files);
    if (rc == 0 && set->n == 0) { snprintf(err, errlen, "no position to measure in the %ld files given", set->files); rc = -1; }
    return rc;
}

static int cmp_index(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Keep max of the samples, drawn uniformly (a partial Fisher-Yates shuffle of the indices with
 * the seed), in their original order. */
static int subsample(sample_set *set, uint64_t max, uint64_t seed) {
    if (!max || set->n <= max) return 0;
    size_t *idx = malloc(set->n * sizeof *idx);
    if (!idx) return -1;
    for (size_t i = 0; i < set->n; i++) idx[i] = i;
    uint64_t rng = seed * 0x9E3779B97F4A7C15ULL + 1;
    for (size_t i = 0; i < max; i++) {
        size_t j = i + (size_t)(zz_rand(&rng) % (set->n - i));
        size_t t = idx[i]; idx[i] = idx[j]; idx[j] = t;
    }
    qsort(idx, max, sizeof *idx, cmp_index);
    for (size_t i = 0; i < max; i++) set->s[i] = set->s[idx[i]];
    set->n = max;
    free(idx);
    return 0;
}

/* ---- evaluation -------------------------------------------------------------------------- */
typedef struct { bool show; double t0, last; } progress;

static void show_progress(progress *pr, size_t done, size_t total) {
    double now = mcts_now_s();
    if (!pr->show || (now - pr->last < 1.0 && done < total)) return;
    pr->last = now;
    fprintf(stderr, "\rcalibrate: %zu/%zu positions, %.0f s ", done, total, now - pr->t0);
    if (done == total) fputc('\n', stderr);
    fflush(stderr);
}

/* The network's values of samples [from, from + n) into v. */
static int eval_batch(mcts_evaluator *e, const sample *s, int n, double *v, char *err, size_t errlen) {
    static zz_move gen[ZZ_MAX_MOVES];
    mcts_eval_item items[EVAL_BATCH];
    size_t total = 0, off[EVAL_BATCH];
    int counts[EVAL_BATCH];
    for (int i = 0; i < n; i++) { counts[i] = zz_count_moves(&s[i].pos); off[i] = total; total += (size_t)counts[i]; }
    zz_move *moves = malloc(total * sizeof *moves);
    float *priors = malloc(total * sizeof *priors);
    int rc = -1;
    if (!moves || !priors) { snprintf(err, errlen, "out of memory"); goto done; }
    for (int i = 0; i < n; i++) {
        int k = zz_gen_moves(&s[i].pos, gen);
        memcpy(moves + off[i], gen, (size_t)k * sizeof *gen);
        items[i] = (mcts_eval_item){ &s[i].pos, moves + off[i], k, priors + off[i], 0 };
    }
    rc = mcts_evaluate(e, items, n, err, errlen);
    for (int i = 0; rc == 0 && i < n; i++) v[i] = items[i].value;
done:
    free(moves);
    free(priors);
    return rc;
}

static int eval_raw(const char *weights, const sample_set *set, double *v, progress *pr, char *err, size_t errlen) {
    mcts_evaluator *e = mcts_eval_nn_new(weights, err, errlen);
    if (!e) return -1;
    int rc = 0;
    for (size_t i = 0; i < set->n && rc == 0; i += EVAL_BATCH) {
        int n = set->n - i < EVAL_BATCH ? (int)(set->n - i) : EVAL_BATCH;
        rc = eval_batch(e, set->s + i, n, v + i, err, errlen);
        show_progress(pr, i + (size_t)n, set->n);
    }
    mcts_evaluator_free(e);
    return rc;
}

static int eval_search(const char *weights, uint64_t sims, uint64_t seed, const sample_set *set, double *v,
                       progress *pr, char *err, size_t errlen) {
    char spec[1200];
    snprintf(spec, sizeof spec, "puct:%.1100s:%llu", weights, (unsigned long long)sims);
    mcts_agent *a = mcts_agent_new(spec, 1, err, errlen);
    if (!a) return -1;
    int rc = 0;
    for (size_t i = 0; i < set->n && rc == 0; i++) {
        ze_search_info info;
        rc = mcts_agent_newgame(a, &set->s[i].pos, seed + i, err, errlen);
        if (rc == 0) rc = ze_analyse(a, &set->s[i].pos, sims, 0, 0, NULL, NULL, NULL, &info, err, errlen);
        v[i] = info.value;
        show_progress(pr, i + 1, set->n);
    }
    mcts_agent_free(a);
    return rc;
}

/* ---- results ----------------------------------------------------------------------------- */
typedef struct {
    ze_calib cal;             /* at T = 1 */
    ze_calib_stats st;
    ze_calib_fit_result fit;
    ze_calib_stats st_fit;    /* the same positions at the fitted T */
    double t_asked;           /* --temperature (0: none) */
    ze_calib_stats st_asked;  /* and at that T */
} results;

/* The scores of r's pairs at temperature t. */
static int stats_at(const ze_calib *cal, double t, ze_calib_stats *st, char *err, size_t errlen) {
    ze_calib other;
    if (ze_calib_retemper(cal, t, &other, err, errlen) != 0) return -1;
    int rc = ze_calib_stats_get(&other, st, err, errlen);
    ze_calib_free(&other);
    return rc;
}

static int measure(const sample_set *set, const double *v, int bins, double t_asked, results *r, char *err, size_t errlen) {
    if (ze_calib_init(&r->cal, bins, 1.0, err, errlen) != 0) return -1;
    for (size_t i = 0; i < set->n; i++)
        if (ze_calib_add_value(&r->cal, v[i], set->s[i].y) != 0) {
            snprintf(err, errlen, "position %zu: value %g out of range, or out of memory", i, v[i]);
            return -1;
        }
    r->t_asked = t_asked;
    if (ze_calib_stats_get(&r->cal, &r->st, err, errlen) != 0 || ze_calib_fit(&r->cal, &r->fit, err, errlen) != 0 ||
        stats_at(&r->cal, r->fit.temperature, &r->st_fit, err, errlen) != 0) return -1;
    return t_asked > 0 ? stats_at(&r->cal, t_asked, &r->st_asked, err, errlen) : 0;
}

static void print_results(const options *o, const sample_set *set, const results *r, double seconds) {
    printf("%ld files: %ld games measured (%ld drawn), %ld unreadable, %ld of another board, %ld with no winner\n",
           set->files, set->games, set->draws, set->unreadable, set->other_board, set->no_winner);
    printf("%zu positions, %s, %.1f s\n", set->n, o->sims ? "search value" : "raw network value", seconds);
    printf("%-11s %9s %10s %9s\n", "bin", "positions", "predicted", "observed");
    for (int k = 0; k < r->cal.nbins; k++)
        printf("%.2f-%.2f   %9ld %10.3f %9.3f\n", (double)k / r->cal.nbins, (double)(k + 1) / r->cal.nbins,
               ze_calib_bin_count(&r->cal, k), ze_calib_bin_pred(&r->cal, k), ze_calib_bin_obs(&r->cal, k));
    printf("mean predicted %.4f, mean observed %.4f\n", r->st.mean_p, r->st.mean_y);
    printf("T = 1:        Brier %.4f  log loss %.4f  ECE %.4f\n", r->st.brier, r->st.log_loss, r->st.ece);
    printf("fitted T = %.3f%s: Brier %.4f  log loss %.4f  ECE %.4f\n", r->fit.temperature,
           r->fit.at_bound ? " (at the end of the range)" : "", r->st_fit.brier, r->fit.log_loss, r->st_fit.ece);
    if (r->t_asked > 0)
        printf("at T = %.3f:   Brier %.4f  log loss %.4f  ECE %.4f\n", r->t_asked, r->st_asked.brier,
               r->st_asked.log_loss, r->st_asked.ece);
}

static cJSON *json_num(double x) { return isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull(); }

static cJSON *bins_json(const ze_calib *cal) {
    cJSON *bins = cJSON_CreateArray();
    for (int k = 0; k < cal->nbins; k++) {
        cJSON *b = cJSON_CreateObject();
        cJSON_AddNumberToObject(b, "lo", (double)k / cal->nbins);
        cJSON_AddNumberToObject(b, "hi", (double)(k + 1) / cal->nbins);
        cJSON_AddNumberToObject(b, "count", (double)ze_calib_bin_count(cal, k));
        cJSON_AddItemToObject(b, "pred", json_num(ze_calib_bin_pred(cal, k)));
        cJSON_AddItemToObject(b, "obs", json_num(ze_calib_bin_obs(cal, k)));
        cJSON_AddItemToArray(bins, b);
    }
    return bins;
}

/* {temperature, [at_bound,] brier, log_loss, ece}: the scores at one temperature. */
static cJSON *scores_json(double t, const ze_calib_stats *st, double log_loss, int at_bound) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "temperature", t);
    if (at_bound >= 0) cJSON_AddBoolToObject(o, "at_bound", at_bound);
    cJSON_AddNumberToObject(o, "brier", st->brier);
    cJSON_AddNumberToObject(o, "log_loss", log_loss);
    cJSON_AddNumberToObject(o, "ece", st->ece);
    return o;
}

static cJSON *results_json(const options *o, const char *weights, const sample_set *set, const results *r, double seconds) {
    cJSON *j = cJSON_CreateObject(), *sk = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "label", o->label ? o->label : "");
    cJSON_AddNumberToObject(j, "rings", o->rings);
    cJSON_AddStringToObject(j, "weights", weights);
    cJSON_AddStringToObject(j, "value", o->sims ? "search" : "raw");
    cJSON_AddNumberToObject(j, "sims", (double)o->sims);
    cJSON_AddNumberToObject(j, "files", (double)set->files);
    cJSON_AddNumberToObject(j, "games", (double)set->games);
    cJSON_AddNumberToObject(j, "draws", (double)set->draws);
    cJSON_AddNumberToObject(sk, "unreadable", (double)set->unreadable);
    cJSON_AddNumberToObject(sk, "other_board", (double)set->other_board);
    cJSON_AddNumberToObject(sk, "no_winner", (double)set->no_winner);
    cJSON_AddItemToObject(j, "skipped", sk);
    cJSON_AddNumberToObject(j, "positions", (double)set->n);
    cJSON_AddNumberToObject(j, "seconds", seconds);
    cJSON_AddItemToObject(j, "bins", bins_json(&r->cal));
    cJSON_AddNumberToObject(j, "brier", r->st.brier);
    cJSON_AddNumberToObject(j, "log_loss", r->st.log_loss);
    cJSON_AddNumberToObject(j, "ece", r->st.ece);
    cJSON_AddNumberToObject(j, "mean_pred", r->st.mean_p);
    cJSON_AddNumberToObject(j, "mean_obs", r->st.mean_y);
    cJSON_AddItemToObject(j, "fit", scores_json(r->fit.temperature, &r->st_fit, r->fit.log_loss, r->fit.at_bound));
    if (r->t_asked > 0) cJSON_AddItemToObject(j, "at", scores_json(r->t_asked, &r->st_asked, r->st_asked.log_loss, -1));
    return j;
}

/* text and a newline to path, atomically (the old file stays whole when a write fails). */
static int write_text(const char *path, const char *text, char *err, size_t errlen) {
    size_t n = strlen(text);
    char *line = malloc(n + 1);
    if (!line) { snprintf(err, errlen, "%s: out of memory", path); return -1; }
    memcpy(line, text, n);
    line[n] = '\n';
    int rc = zz_write_file_atomic(path, line, n + 1, err, errlen);
    free(line);
    return rc;
}

static int write_json(const char *path, cJSON *j, char *err, size_t errlen) {
    char *text = j ? cJSON_Print(j) : NULL;
    if (!text) { snprintf(err, errlen, "out of memory"); return -1; }
    int rc = write_text(path, text, err, errlen);
    free(text);
    return rc;
}

/* ---- the diagram: series read back from the JSON objects ---------------------------------- */
typedef struct {
    char label[200], name[256];
    int nbins, rings;
    double pred[100], obs[100];
    long count[100];
    double positions, brier, log_loss, ece, t, log_loss_t;
} series;

static double json_get(const cJSON *o, const char *key) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

/* n with a comma every three digits ("193,801"). */
static void thousands(double n, char *out, size_t len) {
    char digits[32];
    snprintf(digits, sizeof digits, "%.0f", n);
    size_t nd = strlen(digits), j = 0;
    for (size_t i = 0; i < nd && j + 2 < len; i++) {
        if (i && (nd - i) % 3 == 0 && digits[i - 1] != '-') out[j++] = ',';
        out[j++] = digits[i];
    }
    out[j] = 0;
}

static int series_of_json(const cJSON *j, const char *path, series *s, char *err, size_t errlen) {
    memset(s, 0, sizeof *s);
    const cJSON *bins = cJSON_GetObjectItemCaseSensitive(j, "bins"), *fit = cJSON_GetObjectItemCaseSensitive(j, "fit");
    const cJSON *label = cJSON_GetObjectItemCaseSensitive(j, "label");
    int n = cJSON_IsArray(bins) ? cJSON_GetArraySize(bins) : 0;
    if (n < 1 || n > 100) { snprintf(err, errlen, "%s: not a calibrate --json file (no bins)", path); return -1; }
    s->nbins = n;
    for (int k = 0; k < n; k++) {
        const cJSON *b = cJSON_GetArrayItem(bins, k);
        s->pred[k] = json_get(b, "pred");
        s->obs[k] = json_get(b, "obs");
        double c = json_get(b, "count");
        s->count[k] = isfinite(c) && c >= 0 ? (long)c : 0;
    }
    double rings = json_get(j, "rings");                 /* NaN when missing: checked before the cast */
    s->rings = rings == 37 || rings == 48 || rings == 61 ? (int)rings : 0;
    s->positions = json_get(j, "positions");
    s->brier = json_get(j, "brier");
    s->log_loss = json_get(j, "log_loss");
    s->ece = json_get(j, "ece");
    s->t = json_get(fit, "temperature");
    s->log_loss_t = json_get(fit, "log_loss");
    const double need[] = { s->positions, s->brier, s->log_loss, s->ece, s->t, s->log_loss_t };
    bool whole = s->rings == 37 || s->rings == 48 || s->rings == 61;
    for (size_t k = 0; k < sizeof need / sizeof *need; k++) whole = whole && isfinite(need[k]);
    for (int k = 0; k < n; k++) whole = whole && (s->count[k] == 0 || (isfinite(s->pred[k]) && isfinite(s->obs[k])));
    if (!whole) {
        snprintf(err, errlen, "%s: not a whole calibrate --json file (rings, positions, brier, log_loss, ece, fit and "
                 "the pred and obs of every bin with a count are needed)", path);
        return -1;
    }
    snprintf(s->label, sizeof s->label, "%s", cJSON_IsString(label) && label->valuestring[0] ? label->valuestring : "positions");
    char num[40];
    thousands(s->positions, num, sizeof num);
    snprintf(s->name, sizeof s->name, "%s, %s positions", s->label, num);
    return 0;
}

static int draw_series(const char *path, const series *s, int n, const char *title, char *err, size_t errlen) {
    rd_reliability_series rs[MAX_SERIES];
    for (int i = 0; i < n; i++) rs[i] = (rd_reliability_series){ s[i].name, s[i].nbins, s[i].pred, s[i].obs, s[i].count };
    char deftitle[128];
    snprintf(deftitle, sizeof deftitle, "Calibration of the value, %d rings: observed wins vs (1 + v) / 2", s[0].rings);
    rd_style st;
    rd_style_default(&st);
    rd_canvas c;
    if (rd_draw_reliability(rs, n, title ? title : deftitle, &st, &c, err, errlen) != 0) return -1;
    int rc = rd_png_write(&c, path, err, errlen);
    rd_canvas_free(&c);
    return rc;
}

/* A --json result of an earlier run (at most 64 MiB: /dev/zero is no series). */
static cJSON *read_json_file(const char *path, char *err, size_t errlen) {
    size_t len = 0;
    char *buf = zz_read_file(path, (size_t)64 << 20, &len, err, errlen);
    if (!buf) return NULL;
    cJSON *j = cJSON_ParseWithLength(buf, len);
    free(buf);
    if (!j) snprintf(err, errlen, "%s: not JSON", path);
    return j;
}

static int compare(const options *o, char *err, size_t errlen) {
    static series s[MAX_SERIES];
    for (int i = 0; i < o->ninputs; i++) {
        cJSON *j = read_json_file(o->inputs[i], err, errlen);
        if (!j) return -1;
        int rc = series_of_json(j, o->inputs[i], &s[i], err, errlen);
        cJSON_Delete(j);
        if (rc != 0) return -1;
    }
    printf("| series | positions | Brier | log loss | ECE | fitted T | log loss at T |\n|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < o->ninputs; i++)
        printf("| %s | %.0f | %.4f | %.4f | %.4f | %.2f | %.4f |\n", s[i].label, s[i].positions, s[i].brier,
               s[i].log_loss, s[i].ece, s[i].t, s[i].log_loss_t);
    return o->png ? draw_series(o->png, s, o->ninputs, o->title, err, errlen) : 0;
}

/* ---- main -------------------------------------------------------------------------------- */
static int outputs(const options *o, const char *weights, const sample_set *set, const results *r, double seconds,
                   char *err, size_t errlen) {
    cJSON *j = results_json(o, weights, set, r, seconds);
    int rc = o->json ? write_json(o->json, j, err, errlen) : 0;
    if (rc == 0 && o->png) {
        series s;
        rc = series_of_json(j, "results", &s, err, errlen);
        if (rc == 0) rc = draw_series(o->png, &s, 1, o->title, err, errlen);
    }
    cJSON_Delete(j);
    return rc;
}

static int run(const options *o, char *err, size_t errlen) {
    char weights[1024];
    zz_board_kind board = o->rings == 37 ? ZZ_B37 : o->rings == 48 ? ZZ_B48 : ZZ_B61;
    if (o->weights) snprintf(weights, sizeof weights, "%s", o->weights);
    else if (mcts_default_weights(board, weights, sizeof weights) != 0) {
        snprintf(err, errlen, "no shipped network for %d rings (expected at %.900s): give --weights", o->rings, weights);
        return -1;
    }
    sample_set set = { 0 };
    results r = { 0 };
    double *v = NULL;
    progress pr = { !o->quiet, mcts_now_s(), 0 };
    int rc = read_games(o, &set, err, errlen);
    if (rc == 0 && subsample(&set, o->max_positions, o->seed) != 0) { snprintf(err, errlen, "out of memory"); rc = -1; }
    if (rc == 0 && !(v = malloc(set.n * sizeof *v))) { snprintf(err, errlen, "out of memory"); rc = -1; }
    if (rc == 0) rc = o->sims ? eval_search(weights, o->sims, o->seed, &set, v, &pr, err, errlen)
                              : eval_raw(weights, &set, v, &pr, err, errlen);
    if (rc == 0) rc = measure(&set, v, o->bins, o->temperature, &r, err, errlen);
    double seconds = mcts_now_s() - pr.t0;
    if (rc == 0) print_results(o, &set, &r, seconds);
    if (rc == 0) rc = outputs(o, weights, &set, &r, seconds, err, errlen);
    ze_calib_free(&r.cal);
    free(v);
    free(set.s);
    return rc;
}

int main(int argc, char **argv) {
    options o;
    int st = parse_args(argc, argv, &o);
    if (st >= 0) return st;
    char err[1024];
    if ((o.compare ? compare(&o, err, sizeof err) : run(&o, err, sizeof err)) != 0) {
        fprintf(stderr, "zertz: %s: %s\n", TOOL, err);
        return 1;
    }
    return 0;
}
