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

int main(int argc, char **argv) {
    enum { O_HEAT = 256, O_VISITS, O_SEED, O_THREADS, O_NAMES, O_SIZE, O_COLS, O_THEME, O_NOCOORDS };
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
    rd_style st;
    rd_style_default(&st);
    char *moves_text = NULL;
    const char *out = NULL, *seq_range = NULL, *visits_path = NULL, *names = NULL;
    bool sequence = false;
    long rings = 0, turn = -1, iters = 0, seed = 1, threads = 1, v;
    int rc = 0;
    opterr = 0;
    for (;;) {
        int c = getopt_long(argc, argv, ":m:r:t:s::o:h", opts, NULL);
        if (c == -1) break;
        switch (c) {
        case 'm': {
            size_t a = moves_text ? strlen(moves_text) : 0, b = strlen(optarg);
            char *t = realloc(moves_text, a + b + 2);
            if (!t) { free(moves_text); return fail(NULL, "out of memory"); }
            if (a) t[a++] = ';';
            memcpy(t + a, optarg, b + 1);
            moves_text = t;
            break;
        }
        case 'r':
            if (!parse_int(optarg, 0, 100, &rings) || !zz_board_for_rings((int)rings))
                { rc = bad_usage("--rings", "expected 37, 48 or 61"); goto done; }
            break;
        case O_NAMES: names = optarg; break;
        case 't':
            if (!parse_int(optarg, 0, 100000, &turn)) { rc = bad_usage("--turn", "expected a turn number (0 = the start)"); goto done; }
            break;
        case 's': sequence = true; seq_range = optarg; break;
        case O_HEAT:
            if (!parse_int(optarg, 1, 100000000, &iters)) { rc = bad_usage("--heatmap", "expected a number of iterations (1 or more)"); goto done; }
            break;
        case O_VISITS: visits_path = optarg; break;
        case O_SEED:
            if (!parse_int(optarg, 0, 0x7FFFFFFFL, &seed)) { rc = bad_usage("--seed", "expected a whole number"); goto done; }
            break;
        case O_THREADS:
            if (!parse_int(optarg, 1, 256, &threads)) { rc = bad_usage("--threads", "expected 1 to 256"); goto done; }
            break;
        case 'o': out = optarg; break;
        case O_SIZE:
            if (!parse_int(optarg, 80, 8192, &v)) { rc = bad_usage("--size", "expected a width of 80 to 8192 pixels"); goto done; }
            st.width = (int)v;
            break;
        case O_COLS:
            if (!parse_int(optarg, 1, 100, &v)) { rc = bad_usage("--cols", "expected 1 to 100 panels per row"); goto done; }
            st.columns = (int)v;
            break;
        case O_THEME:
            if (!strcmp(optarg, "light")) st.dark = false;
            else if (!strcmp(optarg, "dark")) st.dark = true;
            else { rc = bad_usage("--theme", "expected light or dark"); goto done; }
            break;
        case O_NOCOORDS: st.coords = false; break;
        case 'h': usage(stdout); goto done;
        case ':': {
            char what[64];
            snprintf(what, sizeof what, "%s", argv[optind - 1]);
            rc = bad_usage(what, "this option needs a value");
            goto done;
        }
        default: {
            char what[64];
            if (optopt) snprintf(what, sizeof what, "-%c", optopt);
            else snprintf(what, sizeof what, "%s", argv[optind - 1]);
            rc = bad_usage(what, "unknown option");
            goto done;
        }
        }
    }
    /* "--sequence 3-9" (a space instead of '='): take a range-like word that is not a file */
    if (sequence && !seq_range) {
        for (int i = optind; i < argc; i++) {
            const char *a = argv[i];
            if (!*a || strspn(a, "0123456789-") != strlen(a) || access(a, F_OK) == 0) continue;
            seq_range = a;
            for (int j = i; j + 1 < argc; j++) argv[j] = argv[j + 1];
            argc--;
            break;
        }
    }
    int nfiles = argc - optind;
    if (nfiles > 1) { rc = bad_usage(argv[optind + 1], "only one input file at a time"); goto done; }
    if (nfiles == 1 && moves_text) { rc = bad_usage(argv[optind], "give a file or --moves, not both"); goto done; }
    if (nfiles == 0 && !moves_text) { rc = bad_usage("FILE", "no input: give a game file or --moves"); goto done; }
    if (!out) { rc = bad_usage("-o", "no output: give -o FILE.png"); goto done; }
    if (sequence && (iters || visits_path)) { rc = bad_usage("--sequence", "cannot be combined with a heat-map"); goto done; }
    if (sequence && turn >= 0) { rc = bad_usage("--sequence", "takes a range (--sequence=A-B), not --turn"); goto done; }
    if (iters && visits_path) { rc = bad_usage("--visits", "give --heatmap or --visits, not both"); goto done; }

    char err[1024];
    zz_game g;
    if (nfiles == 1) {                 /* Zertz+xx (Extreme): the final position only (game/xx.h) */
        zz_xx_game xg;
        int xrc = zz_xx_read_file(argv[optind], &xg, err, sizeof err);
        if (xrc != 1) {
            if (xrc < 0) rc = fail(NULL, err);
            else if (sequence || turn >= 0 || iters || visits_path || names)
                rc = bad_usage(argv[optind], "a Zertz+xx (Extreme) game is drawn as its final position only "
                                             "(no --turn, --sequence, --heatmap, --visits or --names)");
            else {
                rd_canvas pic = { 0, 0, NULL };
                if (rd_draw_xx(&xg, &st, &pic, err, sizeof err) != 0) rc = fail(NULL, err);
                else if (rd_png_write(&pic, out, err, sizeof err) != 0) rc = fail(NULL, err);
                rd_canvas_free(&pic);
            }
            zz_xx_game_free(&xg);
            goto done;
        }
    }
    if (nfiles == 1) {
        if (load_file(argv[optind], (int)rings, &g, err, sizeof err) != 0) {
            zz_game_free(&g);
            rc = fail(NULL, err);
            goto done;
        }
    } else if (rd_load_notation(moves_text, (int)rings, &g, err, sizeof err) != 0) {
        zz_game_free(&g);
        rc = fail("--moves", err);
        goto done;
    }
    if (names) {
        const char *comma = strchr(names, ',');
        if (!comma) { zz_game_free(&g); rc = bad_usage("--names", "expected two names, A,B"); goto done; }
        snprintf(g.player_name[0], sizeof g.player_name[0], "%.*s", (int)(comma - names), names);
        snprintf(g.player_name[1], sizeof g.player_name[1], "%s", comma + 1);
    }

    rd_canvas pic = { 0, 0, NULL };
    if (sequence) {
        int first = 1, last = g.nturns;
        if (seq_range && rd_parse_range(seq_range, g.nturns, &first, &last, err, sizeof err) != 0) {
            rc = fail("--sequence", err);
        } else if (!seq_range && g.nturns == 0) {
            rc = fail("--sequence", "the game has no turns");
        } else if (rd_draw_sequence(&g, first, last, &st, &pic, err, sizeof err) != 0) {
            rc = fail("--sequence", err);
        }
    } else {
        rd_scene s;
        if (rd_scene_from_game(&g, (int)turn, &s, err, sizeof err) != 0) {
            rc = fail("--turn", err);
        } else if (iters || visits_path) {
            zz_move *mv = NULL;
            int *vis = NULL, n = 0;
            char source[128] = "";
            if (zz_over(&s.pos)) {
                rc = fail(iters ? "--heatmap" : "--visits", "the game is over in this position: nothing to search");
            } else if (visits_path) {
                if (read_visits(visits_path, &s.pos, &mv, &vis, &n, err, sizeof err) != 0) rc = fail(visits_path, err);
                else snprintf(source, sizeof source, "visits from %.100s", visits_path);
            } else {
#ifdef HAVE_UCT
                mv = malloc(ZZ_MAX_MOVES * sizeof *mv);
                vis = malloc(ZZ_MAX_MOVES * sizeof *vis);
                if (!mv || !vis) {
                    rc = fail("--heatmap", "out of memory");
                } else {
                    mcts_uct_config cfg;
                    mcts_uct_config_default(&cfg);
                    cfg.seed = (uint64_t)seed;
                    cfg.threads = (int)threads;
                    n = mcts_uct_analyse(&s.pos, &cfg, (int)iters, mv, vis, ZZ_MAX_MOVES);
                    if (n <= 0) rc = fail("--heatmap", "the search returned no moves");
                    snprintf(source, sizeof source, "UCT search, %ld iterations, seed %ld", iters, seed);
                }
#else
                (void)seed; (void)threads;
                rc = fail("--heatmap", "this build has no search (src/mcts/uct.h is missing); use --visits FILE");
#endif
            }
            if (rc == 0 && rd_draw_heatmap(&s, mv, vis, n, source, &st, &pic, err, sizeof err) != 0)
                rc = fail("--heatmap", err);
            free(mv);
            free(vis);
        } else if (rd_draw_position(&s, &st, &pic, err, sizeof err) != 0) {
            rc = fail(NULL, err);
        }
    }
    if (rc == 0 && rd_png_write(&pic, out, err, sizeof err) != 0) rc = fail(NULL, err);
    rd_canvas_free(&pic);
    zz_game_free(&g);
done:
    free(moves_text);
    return rc;
}
