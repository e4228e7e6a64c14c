/*
 * search: point searches on a 10,000-row key_format=Q,value_format=Q table, from T threads,
 * each with its own session and cursor. Written only against wiredtiger.h, so it builds
 * against unlatched or any library with the WiredTiger API.
 *
 * usage: search [-t threads] [-s seconds] [-w warmup_seconds] [-n rows] [-i iterations]
 *   -i N: run exactly N searches on one thread and no timing (for callgrind instruction counts).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static WT_CONNECTION *conn;
static uint64_t rows = 10000;
static volatile int phase; /* 0 warm-up, 1 measure, 2 stop */

/* One per thread, padded so that no two threads write the same cache line. */
typedef struct {
    pthread_t tid;
    uint64_t seed;
    uint64_t ops;
    char pad[64];
} worker;

static uint64_t
search_loop(WT_CURSOR *c, uint64_t *seed, uint64_t n, volatile int *stop_phase)
{
    uint64_t i, key, value, ops = 0, s = *seed;
    for (i = 0; n == 0 || i < n; i++) {
        if (stop_phase != NULL && (i & 1023) == 0 && *stop_phase != 1 && ops > 0)
            break;
        key = next_rand(&s) % rows;
        c->set_key(c, key);
        DIE(c->search(c));
        DIE(c->get_value(c, &value));
        if (value != key * 3) {
            fprintf(stderr, "wrong value %" PRIu64 " for key %" PRIu64 "\n", value, key);
            exit(1);
        }
        ops++;
    }
    *seed = s;
    return ops;
}

static void *
run(void *arg)
{
    worker *w = arg;
    WT_SESSION *s;
    WT_CURSOR *c;
    uint64_t key, value;
    DIE(conn->open_session(conn, NULL, NULL, &s));
    DIE(s->open_cursor(s, "table:bench", NULL, NULL, &c));
    while (phase == 0) {
        key = next_rand(&w->seed) % rows;
        c->set_key(c, key);
        DIE(c->search(c));
        DIE(c->get_value(c, &value));
    }
    w->ops = search_loop(c, &w->seed, 0, &phase);
    DIE(c->close(c));
    DIE(s->close(s, NULL));
    return NULL;
}

int
main(int argc, char **argv)
{
    int threads = 1, opt, i;
    double seconds = 2, warmup = 1, start, elapsed;
    uint64_t iterations = 0, k, total = 0, seed = 42;
    WT_SESSION *s;
    WT_CURSOR *c;
    worker *workers;

    while ((opt = getopt(argc, argv, "t:s:w:n:i:")) != -1)
        switch (opt) {
        case 't':
            threads = atoi(optarg);
            break;
        case 's':
            seconds = atof(optarg);
            break;
        case 'w':
            warmup = atof(optarg);
            break;
        case 'n':
            rows = strtoull(optarg, NULL, 10);
            break;
        case 'i':
            iterations = strtoull(optarg, NULL, 10);
            break;
        default:
            fprintf(stderr, "usage: %s [-t threads] [-s seconds] [-w warmup] [-n rows] [-i iterations]\n", argv[0]);
            return 2;
        }
    if (threads < 1 || rows == 0 || seconds <= 0) {
        fprintf(stderr, "%s: threads, rows and seconds must be positive\n", argv[0]);
        return 2;
    }

    DIE(wiredtiger_open(NULL, NULL, "create,in_memory=true,statistics=(fast)", &conn));
    DIE(conn->open_session(conn, NULL, NULL, &s));
    DIE(s->create(s, "table:bench", "key_format=Q,value_format=Q"));
    DIE(s->open_cursor(s, "table:bench", NULL, NULL, &c));
    for (k = 0; k < rows; k++) {
        c->set_key(c, k);
        c->set_value(c, k * 3);
        DIE(c->insert(c));
    }
    if (iterations > 0) {
        search_loop(c, &seed, iterations, NULL);
        DIE(conn->close(conn, NULL));
        return 0;
    }
    DIE(c->close(c));

    workers = calloc((size_t)threads, sizeof(worker));
    for (i = 0; i < threads; i++) {
        workers[i].seed = 1000003ULL * (uint64_t)(i + 1);
        pthread_create(&workers[i].tid, NULL, run, &workers[i]);
    }
    usleep((useconds_t)(warmup * 1e6));
    start = now();
    phase = 1;
    usleep((useconds_t)(seconds * 1e6));
    phase = 2;
    elapsed = now() - start;
    for (i = 0; i < threads; i++) {
        pthread_join(workers[i].tid, NULL);
        total += workers[i].ops;
    }
    printf("search threads=%d rows=%" PRIu64 " ops=%" PRIu64 " seconds=%.3f ops_per_sec=%.0f\n", threads, rows,
      total, elapsed, (double)total / elapsed);
    free(workers);
    DIE(s->close(s, NULL));
    DIE(conn->close(conn, NULL));
    return 0;
}
