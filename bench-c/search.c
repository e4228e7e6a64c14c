/*
 * search: point searches on a 10,000-row key_format=Q,value_format=Q table, from T threads,
 * each with its own session and cursor. Written only against wiredtiger.h, so it builds
 * against unlatched or any library with the WiredTiger API.
 *
 * usage: search [-t threads] [-s seconds] [-w warmup_seconds] [-n rows] [-i iterations]
 *   -i N: run exactly N searches on one thread and no timing (for callgrind instruction counts).
 */
#include "bench.h" /* first: it defines _GNU_SOURCE */

#include <string.h>

static WT_CONNECTION *conn;
static uint64_t rows = 10000;
static volatile int phase; /* 0 warm-up, 1 measure, 2 stop */

/* One per thread, padded so that no two threads write the same cache line. */
typedef struct {
    uint64_t seed;
    uint64_t ops;
    char pad[64];
} worker;

static uint64_t
search_loop(WT_CURSOR *c, uint64_t *seed, uint64_t n, volatile int *stop_phase)
{
    uint64_t ops, s = *seed;
    BENCH_LOOP(ops, n, stop_phase, search_one(c, &s, rows));
    *seed = s;
    return ops;
}

static void *
run(void *arg)
{
    worker *w = arg;
    WT_SESSION *s;
    WT_CURSOR *c;
    DIE(conn->open_session(conn, NULL, NULL, &s));
    DIE(s->open_cursor(s, "table:bench", NULL, NULL, &c));
    while (phase == 0)
        search_one(c, &w->seed, rows);
    w->ops = search_loop(c, &w->seed, 0, &phase);
    DIE(c->close(c));
    DIE(s->close(s, NULL));
    return NULL;
}

int
main(int argc, char **argv)
{
    bench_opts o = BENCH_OPTS_INIT;
    int opt, i;
    double elapsed;
    uint64_t total = 0, seed = 42;
    WT_SESSION *s;
    WT_CURSOR *c;
    worker *workers;

    while ((opt = getopt(argc, argv, BENCH_OPTSTRING)) != -1)
        if (!bench_opt(&o, opt, optarg)) {
            fprintf(stderr, "usage: %s " BENCH_OPTS_USAGE "\n", argv[0]);
            return 2;
        }
    if (!bench_opts_ok(argv[0], &o))
        return 2;
    rows = o.rows;

    DIE(wiredtiger_open(NULL, NULL, "create,in_memory=true,statistics=(fast)", &conn));
    DIE(conn->open_session(conn, NULL, NULL, &s));
    load_table(s, "table:bench", rows);
    DIE(s->open_cursor(s, "table:bench", NULL, NULL, &c));
    if (o.iterations > 0) {
        search_loop(c, &seed, o.iterations, NULL);
        DIE(conn->close(conn, NULL));
        return 0;
    }
    DIE(c->close(c));

    if ((workers = calloc((size_t)o.threads, sizeof(worker))) == NULL) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 1;
    }
    for (i = 0; i < o.threads; i++)
        workers[i].seed = 1000003ULL * (uint64_t)(i + 1);
    elapsed = run_workers(run, workers, sizeof(worker), o.threads, o.warmup, o.seconds, &phase);
    for (i = 0; i < o.threads; i++)
        total += workers[i].ops;
    printf("search threads=%d rows=%" PRIu64 " ops=%" PRIu64 " seconds=%.3f ops_per_sec=%.0f\n", o.threads, rows,
      total, elapsed, (double)total / elapsed);
    free(workers);
    DIE(s->close(s, NULL));
    DIE(conn->close(conn, NULL));
    return 0;
}
