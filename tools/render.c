/* render.c — tools/render: Zèrtz positions, game sequences and search heat-maps as PNG pictures.
 *
 *   render game.sgf -o final.png                  the final position, last turn marked
 *   render game.sgf -t 12 -o t12.png              the position after turn 12
 *   render game.sgf --sequence=1-24 -o seq.png    one panel per turn
 *   render -m "Wd4,d1; Gb2,g1; Bf3,a4" --heatmap 5000 -o heat.png
 *
 * Errors print "zertz: render: <what>: <why>" on stderr and exit with status 1; bad usage prints
 * "zertz: render: OPTION: WHY" and exits with status 2 (tools/cli.h).  A file named *.sgf is read
 * as SGF whatever it holds (as tools/replay reads it); an input with no turn at all (an empty
 * file) is refused. */
#include "game/atomic_file.h"
#include "cli.h"
#include "render/draw_heat.h"
#include "render/draw_position.h"
#include "render/draw_xx.h"
#include "render/draw_sequence.h"
#include "render/input.h"
#include "render/png.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include("mcts/uct.h")
#include "mcts/uct.h"
#define HAVE_UCT 1
#endif
#endif

static void usage(FILE *f) {
    fprintf(f,
"usage: render [options] (FILE | -m TURNS) -o OUT.png\n"
"\n"
"Draws a Zèrtz position, a game sequence or a search heat-map as a PNG picture.\n"
"\n"
"Input:\n"
"  FILE                  a Boardspace SGF record, or a text file of turns in official notation\n"
"                        (one per line, or separated by ';' or spaces; '#' starts a comment)\n"
"  -m, --moves TURNS     turns given on the command line, e.g. \"Wd4,d1; Gc3,a1; x d4Gb2\"\n"
"                        (may be repeated)\n"
"  -r, --rings N         board of notation input: 37, 48 or 61 (default: the smallest board on\n"
"                        which every turn is legal)\n"
"      --names A,B       player names for notation input\n"
"\n"
"What to draw (default: the position after the last turn, with that turn marked):\n"
"  -t, --turn N          the position after turn N (0 = the start position)\n"
"  -s, --sequence[=A-B]  a sheet with one panel per turn (all turns, or turns A to B)\n"
"      --heatmap ITERS   the shown position with a UCT search of ITERS iterations: each cell\n"
"                        coloured by the visit share of placements, removals, jump sources and\n"
"                        targets there%s\n"
"      --visits FILE     a heat-map from a file of \"MOVE VISITS\" lines (e.g. \"Wd4,d1 120\")\n"
"      --seed N          search seed (default 1)\n"
"      --threads N       search threads (default 1)\n"
"\n"
"Output:\n"
"  -o, --out FILE        the PNG file to write (written atomically)\n"
"      --size PIXELS     picture width; for a sequence, the width of each panel\n"
"                        (defaults: position %d, heat-map %d, sequence panel %d)\n"
"      --cols N          panels per row in a sequence (default: about square)\n"
"      --theme THEME     light (default) or dark\n"
"      --no-coords       leave out the coordinate labels\n"
"  -h, --help            this help\n",
#ifdef HAVE_UCT
            "",
#else
            "\n                        (this build has no search: src/mcts/uct.h is missing)",
#endif
            RD_POSITION_WIDTH, RD_HEAT_WIDTH, RD_PANEL_WIDTH);
}

/* "zertz: render: WHAT: WHY" (what NULL: why says what it is about); returns 1. */
static int fail(const char *what, const char *why) {
    if (what) fprintf(stderr, "zertz: render: %s: %s\n", what, why);
    else fprintf(stderr, "zertz: render: %s\n", why);
    return 1;
}

static int bad_usage(const char *what, const char *why) {
    char text[256];
    snprintf(text, sizeof text, "%s (see render --help)", why);
    return cli_bad("render", what, text);
}

static bool has_sgf_suffix(const char *path) {
    size_t n = strlen(path);
    return n >= 4 && !strcasecmp(path + n - 4, ".sgf");
}

/* The first character of the file that is not blank (after a UTF-8 byte-order mark), or EOF. */
static int first_char(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return EOF;
    int c = fgetc(f);
    if (c == 0xEF && fgetc(f) == 0xBB && fgetc(f) == 0xBF) c = fgetc(f);
    while (c == ' ' || c == '\t' || c == '\n' || c == '\r') c = fgetc(f);
    fclose(f);
    return c;
}

/* The game in a file: *.sgf by the SGF reader (the same errors as tools/replay), any other file by
 * rd_load_file (SGF or notation).  A notation file without a single turn (an empty file, or only
 * comments) is refused.  g is initialised either way. */
static int load_file(const char *path, int rings, zz_game *g, char *err, size_t errlen) {
    if (has_sgf_suffix(path)) return zz_sgf_read_file(path, g, err, errlen);
    if (rd_load_file(path, rings, g, err, errlen) != 0) return -1;
    if (g->nturns == 0 && first_char(path) != '(') {
        snprintf(err, errlen, "%s: no turns in the file (an empty file?)", path);
        return -1;
    }
    return 0;
}

/* A whole number in [lo, hi] from an option argument. */
static bool parse_int(const char *s, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

/* Read "MOVE VISITS" lines for the position p. */
static int read_visits(const char *path, const zz_pos *p, zz_move **moves, int **visits, int *n,
                       char *err, size_t errlen) {
    if (zz_check_regular_file(path, 16LL << 20, err, errlen) != 0) return -1;     /* /dev/zero: for ever */
    FILE *f = fopen(path, "r");
    if (!f) { snprintf(err, errlen, "%s", strerror(errno)); return -1; }
    char line[512];
    int cap = 0, lineno = 0;
    *n = 0;
    *moves = NULL;
    *visits = NULL;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        size_t len = strlen(line);
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t')) line[--len] = 0;
        char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (!*s) continue;
        char *sp = strrchr(s, ' '), *tab = strrchr(s, '\t');
        if (tab > sp) sp = tab;
        long v;
        if (!sp || !parse_int(sp + 1, 0, 2000000000L, &v)) {
            snprintf(err, errlen, "line %d: expected a move and a visit count", lineno);
            goto bad;
        }
        *sp = 0;
        zz_move m;
        char why[256];
        if (zz_move_from_text(p, s, &m, why, sizeof why) != 0) {
            snprintf(err, errlen, "line %d: %s", lineno, why);
            goto bad;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            zz_move *nm = realloc(*moves, (size_t)cap * sizeof *nm);
            if (nm) *moves = nm;
            int *nv = realloc(*visits, (size_t)cap * sizeof *nv);
            if (nv) *visits = nv;
            if (!nm || !nv) { snprintf(err, errlen, "out of memory"); goto bad; }
        }
        (*moves)[*n] = m;
        (*visits)[*n] = (int)v;
        (*n)++;
    }
    fclose(f);
    return 0;
bad:
    fclose(f);
    free(*moves);
    free(*visits);
    *moves = NULL;
    *visits = NULL;
    return -1;
}

/* What the command line asks for. */
typedef struct {
    rd_style st;
    char *moves_text;          /* the --moves turns joined with ';' (malloc'd; NULL: none) */
    const char *file;          /* the input file (NULL: --moves) */
    const char *out, *seq_range, *visits_path, *names;
    bool sequence;
    long rings, turn, iters, seed, threads;
} render_args;

/* Add one --moves argument to a->moves_text.  false when out of memory. */
static bool add_moves(render_args *a, const char *text) {
    size_t n = a->moves_text ? strlen(a->moves_text) : 0, b = strlen(text);
    char *t = realloc(a->moves_text, n + b + 2);
    if (!t) return false;
    if (n) t[n++] = ';';
    memcpy(t + n, text, b + 1);
    a->moves_text = t;
    return true;
}

enum { O_HEAT = 256, O_VISITS, O_SEED, O_THREADS, O_NAMES, O_SIZE, O_COLS, O_THEME, O_NOCOORDS };

/* Take option c (getopt_long's answer, its value in optarg) into a.  -1 to go on; else the exit
 * status (0 after --help, 2 for bad usage). */
static int take_option(int c, char **argv, render_args *a) {
    long v;
    switch (c) {
    case 'm': if (!add_moves(a, optarg)) return fail(NULL, "out of memory"); break;
    case 'r':
        if (!parse_int(optarg, 0, 100, &a->rings) || !zz_board_for_rings((int)a->rings))
            return bad_usage("--rings", "expected 37, 48 or 61");
        break;
    case O_NAMES: a->names = optarg; break;
    case 't':
        if (!parse_int(optarg, 0, 100000, &a->turn)) return bad_usage("--turn", "expected a turn number (0 = the start)");
        break;
    case 's': a->sequence = true; a->seq_range = optarg; break;
    case O_HEAT:
        if (!parse_int(optarg, 1, 100000000, &a->iters)) return bad_usage("--heatmap", "expected a number of iterations (1 or more)");
        break;
    case O_VISITS: a->visits_path = optarg; break;
    case O_SEED:
        if (!parse_int(optarg, 0, 0x7FFFFFFFL, &a->seed)) return bad_usage("--seed", "expected a whole number");
        break;
    case O_THREADS:
        if (!parse_int(optarg, 1, 256, &a->threads)) return bad_usage("--threads", "expected 1 to 256");
        break;
    case 'o': a->out = optarg; break;
    case O_SIZE:
        if (!parse_int(optarg, 80, 8192, &v)) return bad_usage("--size", "expected a width of 80 to 8192 pixels");
        a->st.width = (int)v;
        break;
    case O_COLS:
        if (!parse_int(optarg, 1, 100, &v)) return bad_usage("--cols", "expected 1 to 100 panels per row");
        a->st.columns = (int)v;
        break;
    case O_THEME:
        if (!strcmp(optarg, "light")) a->st.dark = false;
        else if (!strcmp(optarg, "dark")) a->st.dark = true;
        else return bad_usage("--theme", "expected light or dark");
        break;
    case O_NOCOORDS: a->st.coords = false; break;
    case 'h': usage(stdout); return 0;
    case ':': {
        char what[64];
        snprintf(what, sizeof what, "%s", argv[optind - 1]);
        return bad_usage(what, "this option needs a value");
    }
    default: {
        char what[64];
        if (optopt) snprintf(what, sizeof what, "-%c", optopt);
        else snprintf(what, sizeof what, "%s", argv[optind - 1]);
        return bad_usage(what, "unknown option");
    }
    }
    return -1;
}

/* Every option into a.  -1 to go on (the operands from optind); else the exit status. */
static int parse_options(int argc, char **argv, render_args *a) {
    static const struct option opts[] = {
        { "moves", required_argument, 0, 'm' }, { "rings", required_argument, 0, 'r' },
        { "names", required_argument, 0, O_NAMES }, { "turn", required_argument, 0, 't' },
        { "sequence", optional_argument, 0, 's' }, { "heatmap", required_argument, 0, O_HEAT },
        { "visits", required_argument, 0, O_VISITS }, { "seed", required_argument, 0, O_SEED },
        { "threads", required_argument, 0, O_THREADS }, { "out", required_argument, 0, 'o' },
        { "size", required_argument, 0, O_SIZE }, { "cols", required_argument, 0, O_COLS },
        { "theme", required_argument, 0, O_THEME }, { "no-coords", no_argument, 0, O_NOCOORDS },
        { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
    };
    opterr = 0;
    for (;;) {
        int c = getopt_long(argc, argv, ":m:r:t:s::o:h", opts, NULL);
        if (c == -1) return -1;
        int rc = take_option(c, argv, a);
        if (rc >= 0) return rc;
    }
}

/* The operands (the input file, or a range after "--sequence " with a space) and what cannot go
 * together.  -1 to go on; else the exit status. */
static int check_operands(int argc, char **argv, render_args *a) {
    /* "--sequence 3-9" (a space instead of '='): take a range-like word that is not a file */
    if (a->sequence && !a->seq_range) {
        for (int i = optind; i < argc; i++) {
            const char *s = argv[i];
            if (!*s || strspn(s, "0123456789-") != strlen(s) || access(s, F_OK) == 0) continue;
            a->seq_range = s;
            for (int j = i; j + 1 < argc; j++) argv[j] = argv[j + 1];
            argc--;
            break;
        }
    }
    int nfiles = argc - optind;
    if (nfiles > 1) return bad_usage(argv[optind + 1], "only one input file at a time");
    if (nfiles == 1 && a->moves_text) return bad_usage(argv[optind], "give a file or --moves, not both");
    if (nfiles == 0 && !a->moves_text) return bad_usage("FILE", "no input: give a game file or --moves");
    if (!a->out) return bad_usage("-o", "no output: give -o FILE.png");
    if (a->sequence && (a->iters || a->visits_path)) return bad_usage("--sequence", "cannot be combined with a heat-map");
    if (a->sequence && a->turn >= 0) return bad_usage("--sequence", "takes a range (--sequence=A-B), not --turn");
    if (a->iters && a->visits_path) return bad_usage("--visits", "give --heatmap or --visits, not both");
    a->file = nfiles == 1 ? argv[optind] : NULL;
    if (zz_same_file(a->out, a->file)) return bad_usage("-o", "that is the input file: it would be overwritten");
    if (zz_same_file(a->out, a->visits_path)) return bad_usage("-o", "that is the --visits file: it would be overwritten");
    return -1;
}

/* A Zertz+xx (Extreme) file is drawn as its final position only (game/xx.h).  -1 when the file
 * is not one (draw it as Zertz); else the exit status. */
static int render_xx(const render_args *a) {
    char err[1024];
    zz_xx_game xg;
    int xrc = zz_xx_read_file(a->file, &xg, err, sizeof err);
    if (xrc == 1) return -1;
    int rc = 0;
    if (xrc < 0) rc = fail(NULL, err);
    else if (a->sequence || a->turn >= 0 || a->iters || a->visits_path || a->names)
        rc = bad_usage(a->file, "a Zertz+xx (Extreme) game is drawn as its final position only "
                                "(no --turn, --sequence, --heatmap, --visits or --names)");
    else {
        rd_canvas pic = { 0, 0, NULL };
        if (rd_draw_xx(&xg, &a->st, &pic, err, sizeof err) != 0) rc = fail(NULL, err);
        else if (rd_png_write(&pic, a->out, err, sizeof err) != 0) rc = fail(NULL, err);
        rd_canvas_free(&pic);
    }
    zz_xx_game_free(&xg);
    return rc;
}

/* The game to draw, from the file or --moves, with --names.  0; else the exit status (g freed). */
static int load_game(const render_args *a, zz_game *g) {
    char err[1024];
    if (a->file) {
        if (load_file(a->file, (int)a->rings, g, err, sizeof err) != 0) {
            zz_game_free(g);
            return fail(NULL, err);
        }
    } else if (rd_load_notation(a->moves_text, (int)a->rings, g, err, sizeof err) != 0) {
        zz_game_free(g);
        return fail("--moves", err);
    }
    if (a->names) {
        const char *comma = strchr(a->names, ',');
        if (!comma) { zz_game_free(g); return bad_usage("--names", "expected two names, A,B"); }
        snprintf(g->player_name[0], sizeof g->player_name[0], "%.*s", (int)(comma - a->names), a->names);
        snprintf(g->player_name[1], sizeof g->player_name[1], "%s", comma + 1);
    }
    return 0;
}

/* --sequence: one panel per turn of the range.  0; else the exit status. */
static int draw_sequence(const render_args *a, const zz_game *g, rd_canvas *pic) {
    char err[1024];
    int first = 1, last = g->nturns;
    if (a->seq_range && rd_parse_range(a->seq_range, g->nturns, &first, &last, err, sizeof err) != 0)
        return fail("--sequence", err);
    if (!a->seq_range && g->nturns == 0) return fail("--sequence", "the game has no turns");
    if (rd_draw_sequence(g, first, last, &a->st, pic, err, sizeof err) != 0) return fail("--sequence", err);
    return 0;
}

/* --heatmap: a UCT search of a->iters iterations from p, its root visits into mv, vis (n moves,
 * malloc'd) and the picture's source line.  0; else the exit status. */
static int search_visits(const render_args *a, const zz_pos *p, zz_move **mv, int **vis, int *n, char *source,
                         size_t srclen) {
#ifdef HAVE_UCT
    *mv = malloc(ZZ_MAX_MOVES * sizeof **mv);
    *vis = malloc(ZZ_MAX_MOVES * sizeof **vis);
    if (!*mv || !*vis) return fail("--heatmap", "out of memory");
    mcts_uct_config cfg;
    mcts_uct_config_default(&cfg);
    cfg.seed = (uint64_t)a->seed;
    cfg.threads = (int)a->threads;
    *n = mcts_uct_analyse(p, &cfg, (int)a->iters, *mv, *vis, ZZ_MAX_MOVES);
    snprintf(source, srclen, "UCT search, %ld iterations, seed %ld", a->iters, a->seed);
    if (*n <= 0) return fail("--heatmap", "the search returned no moves");
    return 0;
#else
    (void)a; (void)p; (void)mv; (void)vis; (void)n; (void)source; (void)srclen;
    return fail("--heatmap", "this build has no search (src/mcts/uct.h is missing); use --visits FILE");
#endif
}

/* --heatmap or --visits: the scene's position coloured by the visit share of each cell.  0; else
 * the exit status. */
static int draw_heat(const render_args *a, const rd_scene *s, rd_canvas *pic) {
    char err[1024], source[128] = "";
    zz_move *mv = NULL;
    int *vis = NULL, n = 0, rc = 0;
    if (zz_over(&s->pos)) {
        rc = fail(a->iters ? "--heatmap" : "--visits", "the game is over in this position: nothing to search");
    } else if (a->visits_path) {
        if (read_visits(a->visits_path, &s->pos, &mv, &vis, &n, err, sizeof err) != 0) rc = fail(a->visits_path, err);
        else snprintf(source, sizeof source, "visits from %.100s", a->visits_path);
    } else {
        rc = search_visits(a, &s->pos, &mv, &vis, &n, source, sizeof source);
    }
    if (rc == 0 && rd_draw_heatmap(s, mv, vis, n, source, &a->st, pic, err, sizeof err) != 0) rc = fail("--heatmap", err);
    free(mv);
    free(vis);
    return rc;
}

/* The position after --turn (default: the last turn, marked): plain, or as a heat-map.  0; else
 * the exit status. */
static int draw_turn(const render_args *a, const zz_game *g, rd_canvas *pic) {
    char err[1024];
    rd_scene s;
    if (rd_scene_from_game(g, (int)a->turn, &s, err, sizeof err) != 0) return fail("--turn", err);
    if (a->iters || a->visits_path) return draw_heat(a, &s, pic);
    if (rd_draw_position(&s, &a->st, pic, err, sizeof err) != 0) return fail(NULL, err);
    return 0;
}

/* Draw what a asks for into a->out.  The exit status. */
static int render(const render_args *a) {
    if (a->file) {
        int rc = render_xx(a);
        if (rc >= 0) return rc;
    }
    zz_game g;
    int rc = load_game(a, &g);
    if (rc != 0) return rc;
    char err[1024];
    rd_canvas pic = { 0, 0, NULL };
    rc = a->sequence ? draw_sequence(a, &g, &pic) : draw_turn(a, &g, &pic);
    if (rc == 0 && rd_png_write(&pic, a->out, err, sizeof err) != 0) rc = fail(NULL, err);
    rd_canvas_free(&pic);
    zz_game_free(&g);
    return rc;
}

int main(int argc, char **argv) {
    render_args a;
    memset(&a, 0, sizeof a);
    rd_style_default(&a.st);
    a.turn = -1;
    a.seed = 1;
    a.threads = 1;
    int rc = parse_options(argc, argv, &a);
    if (rc < 0) rc = check_operands(argc, argv, &a);
    if (rc < 0) rc = render(&a);
    free(a.moves_text);
    return rc;
}
