/*
 * bench.h -- helpers shared by the C benchmarks: written only against wiredtiger.h, so that
 * they build against unlatched or any library with the WiredTiger API.
 */
#ifndef UL_BENCH_H
#define UL_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "wiredtiger.h"

/* Exits with the call, its location and the library's text for the error. */
#define DIE(call)                                                                           \
    do {                                                                                    \
        int ret_ = (call);                                                                  \
        if (ret_ != 0) {                                                                    \
            fprintf(stderr, "%s:%d: %s failed: %d (%s)\n", __FILE__, __LINE__, #call, ret_, \
              wiredtiger_strerror(ret_));                                                   \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)

/* splitmix64: the next pseudo-random number of the stream `*s`. */
static inline uint64_t
next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Monotonic time in seconds. */
static inline double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
