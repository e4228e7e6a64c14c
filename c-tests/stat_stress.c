/*
 * The cursor cache and its statistics under concurrency: 8 threads, each with its own session,
 * cycle cursors through their session's cache (open_cursor, set_key, search, get_value, close;
 * half on one shared table, half on a table each, all on the integer paths) while a reader
 * thread keeps reading the connection's cursor statistics through statistics: cursors. What the
 * reader sees never goes backwards (the cumulative counters) and never leaves its range (the
 * open cursor count); once every worker's session is closed the figures are exact.
 *
 * Reference (WiredTiger 11.3.1, UL_REFERENCE=1 for its own cursors in the open count): passes,
 * with the same exact totals.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "util.h"

#define NTHREADS 8
#define CYCLES 20000
#define ROWS 1000

static WT_CONNECTION *conn;
static volatile int workers_done;

/* Per-thread results, checked by the main thread (the check macros are not thread safe). */
typedef struct {
    int id;
    int errors;
    char last[160];
} worker;

static void
fail(worker *w, const char *what, int ret)
{
    w->errors++;
    snprintf(w->last, sizeof(w->last), "thread %d: %s returned %d (%s)", w->id, what, ret, wiredtiger_strerror(ret));
}

static void
table_uri(char *buf, size_t len, int id)
{
    if (id % 2 == 0)
        snprintf(buf, len, "table:stress_shared");
    else
        snprintf(buf, len, "table:stress_%d", id);
}

static void *
work(void *arg)
{
    worker *w = arg;
    WT_SESSION *s = NULL;
    WT_CURSOR *c;
    char uri[64];
    uint64_t i, key, value;
    int ret;

    table_uri(uri, sizeof(uri), w->id);
    if ((ret = conn->open_session(conn, NULL, NULL, &s)) != 0) {
        fail(w, "open_session", ret);
        return NULL;
    }
    for (i = 0; i < CYCLES; i++) {
        if ((ret = s->open_cursor(s, uri, NULL, NULL, &c)) != 0) {
            fail(w, "open_cursor", ret);
            break;
        }
        key = (i * 7919 + (uint64_t)w->id) % ROWS;
        c->set_key(c, key);
        if ((ret = c->search(c)) != 0)
            fail(w, "search", ret);
        else if ((ret = c->get_value(c, &value)) != 0)
            fail(w, "get_value", ret);
        else if (value != key * 3)
            fail(w, "value check", -1);
        if ((ret = c->close(c)) != 0)
            fail(w, "close", ret);
    }
    if ((ret = s->close(s, NULL)) != 0)
        fail(w, "session close", ret);
    return NULL;
}

static const int ids[] = {WT_STAT_CONN_CURSOR_OPEN_COUNT, WT_STAT_CONN_CURSOR_REOPEN, WT_STAT_CONN_CURSOR_CACHE};

/* The open cursor count before the workers start. */
static int64_t base;

/* Reads until the workers are done: counters never decrease, the open count stays in range. */
static void *
read_stats(void *arg)
{
    WT_SESSION *s = NULL;
    int64_t now[3], prev[3] = {0, 0, 0};
    int *bad = arg, reads = 0;
    /*
     * The reference (UL_REFERENCE=1) also counts the reader's statistics cursor and an engine
     * cursor that each worker's session keeps open.
     */
    int64_t limit = NTHREADS + (getenv("UL_REFERENCE") != NULL ? NTHREADS + 1 : 0);

    if (conn->open_session(conn, NULL, NULL, &s) != 0) {
        (*bad)++;
        return NULL;
    }
    while (!workers_done || reads == 0) {
        if (ul_stats_read(s, "statistics:", "stress read", ids, 3, now) != 0) {
            (*bad)++;
            break;
        }
        /* Every worker has at most one cursor open at a time. */
        if (now[0] < 0 || now[0] > base + limit || (reads > 0 && (now[1] < prev[1] || now[2] < prev[2]))) {
            if ((*bad)++ == 0)
                fprintf(stderr,
                  "read %d: open %" PRId64 ", reused %" PRId64 ", cache closes %" PRId64 " (before: %" PRId64
                  ", %" PRId64 ", %" PRId64 ")\n",
                  reads, now[0], now[1], now[2], prev[0], prev[1], prev[2]);
        }
        prev[0] = now[0];
        prev[1] = now[1];
        prev[2] = now[2];
        reads++;
    }
    s->close(s, NULL);
    return NULL;
}

int
main(void)
{
    WT_SESSION *s;
    WT_CURSOR *c;
    pthread_t threads[NTHREADS], reader;
    worker workers[NTHREADS];
    int64_t before[3], after[3];
    uint64_t k;
    int i, reader_bad = 0;
    char uri[64];

    ul_open(NULL, "create,in_memory=true,statistics=(fast)", &conn, &s);
    for (i = 0; i < NTHREADS; i++) {
        table_uri(uri, sizeof(uri), i);
        if (i > 1 && i % 2 == 0)
            continue; /* the shared table exists already */
        OK(s->create(s, uri, "key_format=Q,value_format=Q"));
        OK(s->open_cursor(s, uri, NULL, "overwrite", &c));
        for (k = 0; k < ROWS; k++) {
            c->set_key(c, k);
            c->set_value(c, k * 3);
            OK(c->insert(c));
        }
        OK(c->close(c));
    }
    ul_stats_read(s, "statistics:", "before", ids, 3, before);
    base = before[0];

    CHECK(pthread_create(&reader, NULL, read_stats, &reader_bad) == 0);
    for (i = 0; i < NTHREADS; i++) {
        workers[i].id = i;
        workers[i].errors = 0;
        workers[i].last[0] = '\0';
        CHECK(pthread_create(&threads[i], NULL, work, &workers[i]) == 0);
    }
    for (i = 0; i < NTHREADS; i++) {
        pthread_join(threads[i], NULL);
        CHECK(workers[i].errors == 0);
        if (workers[i].errors != 0)
            fprintf(stderr, "%d errors, the last: %s\n", workers[i].errors, workers[i].last);
    }
    workers_done = 1;
    pthread_join(reader, NULL);
    CHECK(reader_bad == 0);

    /*
     * Exact at the end: each worker's first open built its cursor and every later one reused
     * it; every close parked it; closing the session reopened the parked cursor once more to
     * free it (counted as a reuse, as the reference does). Nothing is open any more.
     */
    ul_stats_read(s, "statistics:", "after", ids, 3, after);
    CHECK(after[0] == before[0]);
    CHECK(after[2] - before[2] == (int64_t)NTHREADS * CYCLES);
    CHECK(after[1] - before[1] == (int64_t)NTHREADS * CYCLES);
    if (after[1] - before[1] != (int64_t)NTHREADS * CYCLES || after[2] - before[2] != (int64_t)NTHREADS * CYCLES)
        fprintf(stderr, "reused %" PRId64 ", cache closes %" PRId64 "\n", after[1] - before[1], after[2] - before[2]);

    OK(conn->close(conn, NULL));
    return ul_done("stat_stress");
}
