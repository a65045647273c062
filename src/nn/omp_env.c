/* omp_env.c — see omp_env.h. */
#include "nn/omp_env.h"
#include <stdlib.h>
#include <unistd.h>

void nn_omp_single_thread(char **argv) {
    if (argv && argv[0] && !getenv("OMP_NUM_THREADS")) {
        setenv("OMP_NUM_THREADS", "1", 1);
        execv("/proc/self/exe", argv);
    }
}
