/* omp_env.h — one OpenMP thread for programs whose own threads already fill the cores.
 *
 * Self-play worker threads, the evaluator thread and the trainer keep every core busy, and so do
 * the arena's and the ladder's games played at once (one per core, each side on one thread):
 * OpenMP inside src/nn would oversubscribe them (measured: about 30 % slower self-play on 2
 * cores; a network side of the ladder taking two cores where UCT takes one), and
 * under ThreadSanitizer libgomp's uninstrumented barriers would be reported as races.  libgomp
 * reads OMP_NUM_THREADS before main, so the only way to set it is to start the program again. */
#ifndef NN_OMP_ENV_H
#define NN_OMP_ENV_H

/* Unless the user set OMP_NUM_THREADS, set it to 1 and re-execute this program with argv (returns
 * only when it was already set, or when the re-execution failed: then OpenMP keeps its default). */
void nn_omp_single_thread(char **argv);

/* OpenMP threads for the calling thread's next parallel regions (its nthreads ICV: other threads
 * keep theirs): nn_omp_threads reads it, nn_omp_set_threads sets it (n >= 1).  Without OpenMP: 1,
 * and nothing. */
int nn_omp_threads(void);
void nn_omp_set_threads(int n);

#endif
