/* pretrain.c — Boardspace games as training samples (see pretrain.h). */
#include "train/pretrain.h"
#include "game/sgf.h"
#include "game/sgf_files.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The samples of one replayed game: one per decision (each jump of a chain is its own), with the
 * final captures when the game ended by the rules. */
static int game_samples(const zz_game *g, tr_sample *out, nn_visit *visits, int cap) {
    zz_pos p = g->start;
    int n = 0;
    for (int t = 0; t < g->nturns; t++)
        for (int i = 0; i < g->turns[t].nmoves && n < cap; i++) {
            zz_move m = g->turns[t].moves[i];
            visits[n].move = m;
            visits[n].count = 1;
            memset(&out[n], 0, sizeof out[n]);
            out[n].pos = p;
            out[n].z = p.to_move == g->winner ? 1.0f : -1.0f;
            out[n].full = 1;
            out[n].nvisits = 1;
            out[n].visits = &visits[n];
            n++;
            zz_apply(&p, m, NULL);
        }
    if (zz_over(&p))                /* ended by the rules, not resigned: the final captures are known */
        for (int k = 0; k < n; k++) {
            int me = out[k].pos.to_move;
            out[k].fin.known = 1;
            memcpy(out[k].fin.cap[0], p.cap[me], 3);
            memcpy(out[k].fin.cap[1], p.cap[1 - me], 3);
        }
    return n;
}

int tr_pretrain_load(const char *path, int max_games, tr_replay *rb, tr_pretrain_stats *st, char *err, size_t errlen) {
    memset(st, 0, sizeof *st);
    zz_file_list files = { 0 };
    char why[512];
    if (zz_file_list_add(&files, path, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    enum { CAP = 4096 };
    tr_sample *samples = malloc(CAP * sizeof *samples);
    nn_visit *visits = malloc(CAP * sizeof *visits);
    int rc = 0;
    if (!samples || !visits) { snprintf(err, errlen, "out of memory"); rc = -1; }
    for (int i = 0; rc == 0 && i < files.n && (max_games <= 0 || st->games < max_games); i++) {
        zz_game g;
        st->files++;
        if (zz_sgf_read_file(files.paths[i], &g, why, sizeof why) != 0) st->refused++;
        else if (g.board != rb->board) st->skipped_board++;
        else if (g.winner < 0) st->skipped_undecided++;
        else {
            int n = game_samples(&g, samples, visits, CAP);
            if (tr_replay_add(rb, samples, n, why, sizeof why) != 0) { snprintf(err, errlen, "%s", why); rc = -1; }
            st->games++;
            st->samples += n;
        }
        zz_game_free(&g);
    }
    if (rc == 0 && st->games == 0) {
        snprintf(err, errlen, "%s: no decided %d-ring game among %d SGF files", path, zz_board_get(rb->board)->rings, files.n);
        rc = -1;
    }
    free(samples);
    free(visits);
    zz_file_list_free(&files);
    return rc;
}
