/* helpers.h — small helpers shared by the test suites: building positions from cell names,
 * playing random games, the archive location, the random seed of a run, networks with
 * non-trivial batch-norm parameters. */
#ifndef ZZ_TEST_HELPERS_H
#define ZZ_TEST_HELPERS_H

#include "game/notation.h"
#include "mcts/evaluator.h"
#include "nn/model.h"
#include <check.h>

/* Check's ck_assert records every passing assertion through a pipe; in loops over hundreds of
 * thousands of positions that dominates the run.  TH_CHECK calls into Check only on failure. */
#define TH_CHECK(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)

/* Cell of a name ("d4") on p's board; fails the test when unknown. */
int th_cell(const zz_pos *p, const char *name);
/* An empty-marble position of a board where only the rings named (space-separated) remain,
 * or all rings when rings == NULL; marbles "Wd4 Gc3 ..." placed from the pool. */
void th_build(zz_pos *p, zz_board_kind kind, const char *rings, const char *marbles);
/* A 37-ring position where player 0, to move, has captured 3 grey and 5 black: jumping the black
 * d4 (d3 over d4 to d5) wins; the other jumps do not.  The suites' standard "a win to find". */
void th_won_capture_position(zz_pos *p);
/* Play random moves until the game ends or max_plies; returns plies played. */
int th_random_playout(zz_pos *p, uint64_t *rng, int max_plies);
/* kind's opening after `plies` random moves, never a finished game (it stops one move early). */
zz_pos th_random_position(zz_board_kind kind, int plies, uint64_t *rng);
/* The archive folder ($ZZ_BOARDSPACE_DIR or ../shared/boardspace), or NULL when absent. */
const char *th_archive_dir(void);
/* True when m is in the list. */
bool th_in_list(const zz_move *list, int n, zz_move m);

/* The move an agent built from spec (one thread) chooses at p in a game started there with seed;
 * the test fails unless it is built, answers and plays a legal move. */
zz_move th_agent_move(const char *spec, const zz_pos *p, uint64_t seed);
/* An agent built from spec (one thread) plays both sides of `moves` moves from board's opening
 * (the game from seed, told of each move); the test fails unless every move is chosen, legal and
 * taken. */
void th_agent_plays(const char *spec, zz_board_kind board, int moves, uint64_t seed);

/* Whether evaluators a and b give the same priors and values, bit for bit, on the positions of a
 * random game of `plies` plies on board (its start included; the game from seed).  An evaluation
 * that fails fails the test. */
bool th_same_answers(mcts_evaluator *a, mcts_evaluator *b, zz_board_kind board, int plies, uint64_t seed);

/* A run's random seed: ZZ_TEST_SEED=<n> when set (to repeat a run), else fresh (time, pid) and
 * printed on stderr, so that a failure seen once can be repeated; never 0. */
uint64_t th_seed(void);
/* Uniform in [0, 1). */
double th_urand(uint64_t *rng);
/* Give m's batch norms and biases random non-trivial values (gamma 0.5..1.5, beta, running mean
 * and biases ±0.2, running variance 0.5..2), so that tests exercise them. */
void th_perturb_model(nn_model *m, uint64_t *rng);
/* A small 37-ring network (1 block x 8 channels, weights from seed) saved at path, for tests that
 * need a checkpoint but no particular play; fails the test when it cannot. */
void th_save_small_net(const char *path, uint64_t seed);
/* Create an empty file from a mkstemp template ("/tmp/name-XXXXXX", rewritten in place with the
 * file's name); fails the test when it cannot.  The caller removes it. */
void th_temp_file(char *tmpl);

/* Say loudly that a check did not run, and why: a banner on stderr, and one line appended to the
 * file $ZZ_SKIP_LOG (when set: `make test` collects them into its summary). */
void th_skip(const char *suite, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Run the tool $ZZ_TOOLDIR/<tool> (default tools/<tool>) with args (shell words), stdin from
 * /dev/null, killed after timeout_s seconds; returns its exit status (124 when it was killed),
 * with its stdout and stderr in out and err (either may be NULL).  -1 when the tool is not built
 * (after a th_skip line for suite). */
int th_run_tool(const char *suite, const char *tool, const char *args, int timeout_s, char *out, size_t outlen,
                char *err, size_t errlen);

/* Run a suite with Check's runner and return the process exit status.  Under ThreadSanitizer
 * OpenMP is pinned to one thread: libgomp is not instrumented, so its barriers would be
 * reported as races (our parallel loops write disjoint outputs by construction). */
int th_run(Suite *s);
/* The same with every test in this process (CK_NOFORK): for suites that initialise CUDA, which
 * does not survive fork(). */
int th_run_nofork(Suite *s);

#endif
