/*
 * cursor_cycle (seed 000): T threads, each with its own session, loop open_cursor + close on a
 * key_format=Q,value_format=Q table of 10,000 rows. Every open after the thread's first (done
 * before the timed loop) is served from the session cursor cache. Threads use one table each
 * (`distinct`) or all the same table (`shared`). Written only against wiredtiger.h, so it builds
 * against unlatched or any library with the WiredTiger API.
 *
 * usage: cursor_cycle [-m distinct|shared] [-t threads] [-s seconds] [-w warmup_seconds]
 *                     [-n rows] [-S] [-x] [-i iterations]
 *   -S: search a random key (and check its value) inside each open/close cycle.
 *   -x: run each thread's cycles inside one snapshot transaction (begin before the warm-up,
 *       commit after the measured window), as in the seed's "open, search, close in a
 *       transaction".
 *   -i N: run exactly N cycles on one thread and no timing (for callgrind instruction counts).
 *
 * Output: one line "cursor_cycle mode=M threads=T search=0|1 txn=0|1 ops=N seconds=S
 * ops_per_sec=X reused_per_cycle=R"; R is the change of "cursor: cursors reused from cache" over
 * the cycles of all threads (warm-up included), or "n/a" when statistics cannot be read.
 */
#include "bench.h" /* first: it defines _GNU_SOURCE */

#include <string.h>

static WT_CONNECTION *conn;
static uint64_t rows = 10000;
static int shared, with_search, with_txn;
static volatile int phase; /* 0 warm-up, 1 measure, 2 stop */

/* One per thread, padded so that no two threads write the same cache line. */
typedef struct {
    char pad0[64];
    char uri[32];
    uint64_t seed;
    uint64_t ops;    /* cycles in the measured window */
    uint64_t cycles; /* all cycles, warm-up and the first open included */
    char pad1[64];
} worker;

static void
table_uri(char *buf, size_t len, int i)
{
    snprintf(buf, len, "table:cycle%d", shared ? 0 : i);
}

/* One open_cursor (+ search) + close. Inlined with `search` a constant, so that the plain
 * cycle's loop carries nothing but the two calls. */
static inline __attribute__((always_inline)) void
cycle_with(WT_SESSION *s, const char *uri, uint64_t *seed, int search)
{
    WT_CURSOR *c;
    DIE(s->open_cursor(s, uri, NULL, NULL, &c));
    if (search)
        search_one(c, seed, rows);
    DIE(c->close(c));
}

static void
cycle(WT_SESSION *s, const char *uri, uint64_t *seed)
{
    cycle_with(s, uri, seed, with_search);
}

/* n cycles, or cycles until the measured phase ends (BENCH_LOOP). */
static uint64_t
cycle_loop(WT_SESSION *s, const char *uri, uint64_t *seed, uint64_t n, volatile int *stop_phase)
{
    uint64_t ops;
    if (with_search)
        BENCH_LOOP(ops, n, stop_phase, cycle_with(s, uri, seed, 1));
    else
        BENCH_LOOP(ops, n, stop_phase, cycle_with(s, uri, seed, 0));
    return ops;
}

static void *
run(void *arg)
{
    worker *w = arg;
    WT_SESSION *s;
    DIE(conn->open_session(conn, NULL, NULL, &s));
    if (with_txn)
        DIE(s->begin_transaction(s, "isolation=snapshot"));
    cycle(s, w->uri, &w->seed); /* the first open builds the cursor: outside the timed loop */
    w->cycles = 1;
    while (phase == 0) {
        cycle(s, w->uri, &w->seed);
        w->cycles++;
    }
    w->ops = cycle_loop(s, w->uri, &w->seed, 0, &phase);
    w->cycles += w->ops;
    if (with_txn)
        DIE(s->commit_transaction(s, NULL));
    DIE(s->close(s, NULL));
    return NULL;
}

int
main(int argc, char **argv)
{
    bench_opts o = BENCH_OPTS_INIT;
    int opt, i, have_stats;
    double elapsed;
    uint64_t total = 0, cycles = 0, seed = 42;
    int64_t reused0 = 0, reused1 = 0;
    const char *mode = "distinct";
    char uri[32], reuse[32];
    WT_SESSION *s;
    worker *workers;

    while ((opt = getopt(argc, argv, "m:Sx" BENCH_OPTSTRING)) != -1)
        if (opt == 'm')
            mode = optarg;
        else if (opt == 'S')
            with_search = 1;
        else if (opt == 'x')
            with_txn = 1;
        else if (!bench_opt(&o, opt, optarg)) {
            fprintf(stderr, "usage: %s [-m distinct|shared] [-S] [-x] " BENCH_OPTS_USAGE "\n", argv[0]);
            return 2;
        }
    if (strcmp(mode, "distinct") != 0 && strcmp(mode, "shared") != 0) {
        fprintf(stderr, "%s: -m takes distinct or shared, not \"%s\"\n", argv[0], mode);
        return 2;
    }
    if (!bench_opts_ok(argv[0], &o))
        return 2;
    shared = strcmp(mode, "shared") == 0;
    rows = o.rows;

    DIE(wiredtiger_open(NULL, NULL, "create,in_memory=true,statistics=(fast)", &conn));
    DIE(conn->open_session(conn, NULL, NULL, &s));
    for (i = 0; i < (shared ? 1 : o.threads); i++) {
        table_uri(uri, sizeof(uri), i);
        load_table(s, uri, rows);
    }
    if (o.iterations > 0) {
        /* One thread, the loading session: the first open builds the cursor, the rest reuse it. */
        table_uri(uri, sizeof(uri), 0);
        cycle(s, uri, &seed);
        if (with_txn)
            DIE(s->begin_transaction(s, "isolation=snapshot"));
        cycle_loop(s, uri, &seed, o.iterations, NULL);
        if (with_txn)
            DIE(s->commit_transaction(s, NULL));
        DIE(conn->close(conn, NULL));
        return 0;
    }

    have_stats = read_conn_stat(s, WT_STAT_CONN_CURSOR_REOPEN, &reused0) == 0;
    workers = calloc((size_t)o.threads, sizeof(worker));
    if (workers == NULL) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 1;
    }
    for (i = 0; i < o.threads; i++) {
        workers[i].seed = 1000003ULL * (uint64_t)(i + 1);
        table_uri(workers[i].uri, sizeof(workers[i].uri), i);
    }
    elapsed = run_workers(run, workers, sizeof(worker), o.threads, o.warmup, o.seconds, &phase);
    for (i = 0; i < o.threads; i++) {
        total += workers[i].ops;
        cycles += workers[i].cycles;
    }
    if (have_stats && read_conn_stat(s, WT_STAT_CONN_CURSOR_REOPEN, &reused1) == 0)
        /* Each thread's first open builds its cursor; closing the session reuses it once more. */
        snprintf(reuse, sizeof(reuse), "%.3f", (double)(reused1 - reused0) / (double)cycles);
    else
        snprintf(reuse, sizeof(reuse), "n/a");
    printf("cursor_cycle mode=%s threads=%d search=%d txn=%d ops=%" PRIu64
           " seconds=%.3f ops_per_sec=%.0f reused_per_cycle=%s\n",
      mode, o.threads, with_search, with_txn, total, elapsed, (double)total / elapsed, reuse);
    free(workers);
    DIE(s->close(s, NULL));
    DIE(conn->close(conn, NULL));
    return 0;
}
