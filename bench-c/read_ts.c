/*
 * read_ts: point searches inside snapshot transactions on a table whose rows carry commit
 * timestamps, with or without a read timestamp (-R), from T threads, each with its own session
 * and cursor. A transaction covers 1,000 searches. Written only against wiredtiger.h, so it
 * builds against unlatched or any library with the WiredTiger API.
 *
 * The table keeps timestamps: in memory that takes log=(enabled=false), as in the reference.
 * Rows are loaded in transactions of 1,000 with commit timestamps 1, 2, ...; the read
 * timestamp is past the last, so both modes read the same values.
 *
 * usage: read_ts [-R] [-t threads] [-s seconds] [-w warmup] [-n rows] [-i iterations]
 *   -i N: run exactly N searches in one transaction on one thread, no timing (callgrind).
 */
#include "bench.h" /* first: it defines _GNU_SOURCE */

#include <string.h>

#define SEARCHES_PER_TXN 1000

static WT_CONNECTION *conn;
static uint64_t rows = 10000;
static const char *begin_config; /* NULL: a snapshot transaction without read timestamp */
static volatile int phase;       /* 0 warm-up, 1 measure, 2 stop */

typedef struct {
    uint64_t seed;
    uint64_t ops;
    char pad[64];
} worker;

/* Loads keys 0..rows-1 (value 3k), 1,000 a transaction, at commit timestamps 1, 2, ... */
static void
load(WT_SESSION *s)
{
    WT_CURSOR *c;
    char config[64];
    uint64_t k, ts = 0;
    DIE(s->create(s, "table:bench", "key_format=Q,value_format=Q,log=(enabled=false)"));
    DIE(s->open_cursor(s, "table:bench", NULL, NULL, &c));
    for (k = 0; k < rows; k++) {
        if (k % 1000 == 0)
            DIE(s->begin_transaction(s, NULL));
        c->set_key(c, k);
        c->set_value(c, k * 3);
        DIE(c->insert(c));
        if (k % 1000 == 999 || k == rows - 1) {
            snprintf(config, sizeof(config), "commit_timestamp=%" PRIx64, ++ts);
            DIE(s->commit_transaction(s, config));
        }
    }
    DIE(c->close(c));
}

/* `n` searches (0: until the phase says stop), a transaction per SEARCHES_PER_TXN. */
static uint64_t
search_loop(WT_SESSION *s, WT_CURSOR *c, uint64_t *seed, uint64_t n, volatile int *stop_phase)
{
    uint64_t ops = 0;
    while (n == 0 ? *stop_phase != 2 : ops < n) {
        DIE(s->begin_transaction(s, begin_config));
        for (int i = 0; i < SEARCHES_PER_TXN && (n == 0 || ops < n); i++, ops++)
            search_one(c, seed, rows);
        DIE(s->commit_transaction(s, NULL));
    }
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
        search_loop(s, c, &w->seed, SEARCHES_PER_TXN, &phase);
    w->ops = search_loop(s, c, &w->seed, 0, &phase);
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
    worker *workers;

    while ((opt = getopt(argc, argv, BENCH_OPTSTRING "R")) != -1) {
        if (opt == 'R')
            begin_config = "read_timestamp=ffffffff";
        else if (!bench_opt(&o, opt, optarg)) {
            fprintf(stderr, "usage: %s [-R] " BENCH_OPTS_USAGE "\n", argv[0]);
            return 2;
        }
    }
    if (!bench_opts_ok(argv[0], &o))
        return 2;
    rows = o.rows;

    DIE(wiredtiger_open(NULL, NULL, "create,in_memory=true", &conn));
    DIE(conn->open_session(conn, NULL, NULL, &s));
    load(s);
    if (o.iterations > 0) {
        WT_CURSOR *c;
        DIE(s->open_cursor(s, "table:bench", NULL, NULL, &c));
        search_loop(s, c, &seed, o.iterations, NULL);
        DIE(conn->close(conn, NULL));
        return 0;
    }

    if ((workers = calloc((size_t)o.threads, sizeof(worker))) == NULL) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 1;
    }
    for (i = 0; i < o.threads; i++)
        workers[i].seed = 1000003ULL * (uint64_t)(i + 1);
    elapsed = run_workers(run, workers, sizeof(worker), o.threads, o.warmup, o.seconds, &phase);
    for (i = 0; i < o.threads; i++)
        total += workers[i].ops;
    printf("read_ts read_timestamp=%s threads=%d rows=%" PRIu64 " ops=%" PRIu64 " seconds=%.3f ops_per_sec=%.0f\n",
      begin_config == NULL ? "none" : "yes", o.threads, rows, total, elapsed, (double)total / elapsed);
    free(workers);
    DIE(s->close(s, NULL));
    DIE(conn->close(conn, NULL));
    return 0;
}
