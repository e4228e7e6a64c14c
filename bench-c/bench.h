/*
 * Helpers shared by the C benchmarks. Written only against wiredtiger.h, like the benchmarks,
 * so that they build against unlatched or any library with the WiredTiger API.
 */
#ifndef UL_BENCH_H
#define UL_BENCH_H

#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "wiredtiger.h"

/* Stops the benchmark with the call, its error code and the library's text for it. */
#define DIE(call)                                                                           \
    do {                                                                                    \
        int ret_ = (call);                                                                  \
        if (ret_ != 0) {                                                                    \
            fprintf(stderr, "%s:%d: %s failed: %d (%s)\n", __FILE__, __LINE__, #call, ret_, \
              wiredtiger_strerror(ret_));                                                   \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)

/* splitmix64: a fast per-thread pseudo-random sequence. */
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

/* The options of the threaded benchmarks, with their defaults. */
typedef struct {
    int threads;         /* -t */
    double seconds;      /* -s: measured */
    double warmup;       /* -w */
    uint64_t rows;       /* -n: rows per table */
    uint64_t iterations; /* -i: that many operations on one thread, untimed (callgrind) */
} bench_opts;
#define BENCH_OPTS_INIT {1, 2, 1, 10000, 0}
#define BENCH_OPTSTRING "t:s:w:n:i:"
#define BENCH_OPTS_USAGE "[-t threads] [-s seconds] [-w warmup] [-n rows] [-i iterations]"

/* Takes `opt` if it is one of BENCH_OPTSTRING's; returns 0 if it is not. */
static inline int
bench_opt(bench_opts *o, int opt, const char *arg)
{
    switch (opt) {
    case 't':
        o->threads = atoi(arg);
        return 1;
    case 's':
        o->seconds = atof(arg);
        return 1;
    case 'w':
        o->warmup = atof(arg);
        return 1;
    case 'n':
        o->rows = strtoull(arg, NULL, 10);
        return 1;
    case 'i':
        o->iterations = strtoull(arg, NULL, 10);
        return 1;
    default:
        return 0;
    }
}

/* Says what is wrong with the options and returns 0, or returns 1. */
static inline int
bench_opts_ok(const char *prog, const bench_opts *o)
{
    if (o->threads < 1 || o->threads > 1024 || o->rows == 0 || o->seconds <= 0 || o->warmup < 0) {
        fprintf(stderr, "%s: threads (1..1024), rows and seconds must be positive, warm-up not negative\n", prog);
        return 0;
    }
    return 1;
}

/*
 * The measured loop: runs `op` n times (n > 0) or, with n == 0, until *stop_phase leaves 1
 * (looked at every 1024 operations); sets `ops` to the number of operations run.
 */
#define BENCH_LOOP(ops, n, stop_phase, op)                                                     \
    do {                                                                                       \
        uint64_t i_;                                                                           \
        (ops) = 0;                                                                             \
        for (i_ = 0; (n) == 0 || i_ < (n); i_++) {                                             \
            if ((stop_phase) != NULL && (i_ & 1023) == 0 && *(stop_phase) != 1 && (ops) > 0) \
                break;                                                                         \
            op;                                                                                \
            (ops)++;                                                                           \
        }                                                                                      \
    } while (0)

/* CPU time (user + system) of the whole process so far, in seconds. */
static inline double
cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
      (double)ru.ru_stime.tv_usec / 1e6;
}

/*
 * Runs `threads` threads of fn, the i-th on the i-th element (of `size` bytes) of `workers`:
 * *phase is 0 for `warmup` seconds, 1 for the measured `seconds`, then 2 until all have
 * returned. Returns the measured time in seconds; sets *cpu (if not NULL) to the process's CPU
 * seconds in the measured window.
 */
static inline double
run_workers_cpu(void *(*fn)(void *), void *workers, size_t size, int threads, double warmup, double seconds,
  volatile int *phase, double *cpu)
{
    pthread_t *tids = calloc((size_t)threads, sizeof(*tids));
    double start, elapsed, cpu0;
    int i;
    if (tids == NULL) {
        fprintf(stderr, "run_workers: out of memory\n");
        exit(1);
    }
    for (i = 0; i < threads; i++)
        if (pthread_create(&tids[i], NULL, fn, (char *)workers + (size_t)i * size) != 0) {
            fprintf(stderr, "run_workers: pthread_create failed\n");
            exit(1);
        }
    usleep((useconds_t)(warmup * 1e6));
    cpu0 = cpu_seconds();
    start = now();
    *phase = 1;
    usleep((useconds_t)(seconds * 1e6));
    *phase = 2;
    elapsed = now() - start;
    if (cpu != NULL)
        *cpu = cpu_seconds() - cpu0;
    for (i = 0; i < threads; i++)
        pthread_join(tids[i], NULL);
    free(tids);
    return elapsed;
}

/* run_workers_cpu without the CPU time. */
static inline double
run_workers(void *(*fn)(void *), void *workers, size_t size, int threads, double warmup, double seconds,
  volatile int *phase)
{
    return run_workers_cpu(fn, workers, size, threads, warmup, seconds, phase, NULL);
}

/* Creates `uri` as key_format=Q,value_format=Q and loads keys 0..rows-1 with value key * 3. */
static inline void
load_table(WT_SESSION *s, const char *uri, uint64_t rows)
{
    WT_CURSOR *c;
    uint64_t k;
    DIE(s->create(s, uri, "key_format=Q,value_format=Q"));
    DIE(s->open_cursor(s, uri, NULL, NULL, &c));
    for (k = 0; k < rows; k++) {
        c->set_key(c, k);
        c->set_value(c, k * 3);
        DIE(c->insert(c));
    }
    DIE(c->close(c));
}

/* Searches one random key of a load_table table and checks its value. */
static inline void
search_one(WT_CURSOR *c, uint64_t *seed, uint64_t rows)
{
    uint64_t key = next_rand(seed) % rows, value;
    c->set_key(c, key);
    DIE(c->search(c));
    DIE(c->get_value(c, &value));
    if (value != key * 3) {
        fprintf(stderr, "wrong value %" PRIu64 " for key %" PRIu64 "\n", value, key);
        exit(1);
    }
}

/*
 * Reads one connection statistic through a statistics: cursor. Returns the call's error (the
 * statistics cursor may be unsupported or statistics off) and leaves *value alone then.
 */
static inline int
read_conn_stat(WT_SESSION *s, int id, int64_t *value)
{
    WT_CURSOR *c;
    int ret;
    if ((ret = s->open_cursor(s, "statistics:", NULL, NULL, &c)) != 0)
        return ret;
    c->set_key(c, id);
    if ((ret = c->search(c)) == 0)
        ret = c->get_value(c, NULL, NULL, value);
    DIE(c->close(c));
    return ret;
}

/* Sorts doubles in place (for medians of a handful of runs). */
static inline int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#endif
