/* clock.h — the monotonic clock in seconds, for search deadlines, move timing and run logs. */
#ifndef MCTS_CLOCK_H
#define MCTS_CLOCK_H

#include <time.h>

static inline double mcts_now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
