/*
 * The seed's test_stat19 (seed 000, issue 4): "cursor: open cursor count" tracks cursors opened,
 * cached, reopened from the cache and closed across several distinct sessions, including
 * sessions closed with cursors still open, internal cursors and statistics cursors. Statistics
 * are read from a separate observer session and compared as deltas (statistics.md section 4):
 * the engine's own internal cursors are measured, not assumed (the reference opens one internal
 * cursor with each session and keeps it until the session closes; an engine need not), and each
 * session must take exactly its own contribution with it when it closes. The data-source twin on the table has no internal cursors and is checked absolutely.
 *
 * Reference (WiredTiger 11.3.1, in_memory=true): passes.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "util.h"

#define NSESSIONS 4
#define NTHREADS 4
#define CYCLES 20000
#define URI "table:t"

static WT_CONNECTION *conn;
static WT_SESSION *obs;
static atomic_int finished; /* churn threads done */

/* Connection: open cursor count, cached cursor count, cursors reused from cache. */
static const int conn_ids[] = {WT_STAT_CONN_CURSOR_OPEN_COUNT, WT_STAT_CONN_CURSOR_CACHED_COUNT,
  WT_STAT_CONN_CURSOR_REOPEN};
static const char *const conn_names[] = {"open cursor count", "cached cursor count", "cursors reused from cache"};

static int64_t
open_count(void)
{
    return ul_stat(obs, "statistics:", WT_STAT_CONN_CURSOR_OPEN_COUNT);
}

/* The table's own "cursor: open cursor count": no internal cursors, so absolute. */
static int64_t
table_open_count(void)
{
    return ul_stat(obs, "statistics:" URI, WT_STAT_DSRC_CURSOR_OPEN_COUNT);
}

/* Opens a session and opens and closes one table cursor in it, so its internal cursors exist. */
static WT_SESSION *
open_warm_session(void)
{
    WT_SESSION *s = NULL;
    WT_CURSOR *c = NULL;
    OK(conn->open_session(conn, NULL, NULL, &s));
    if (s == NULL)
        exit(ul_done("stat19"));
    OK(s->open_cursor(s, "table:warm", NULL, NULL, &c));
    if (c != NULL)
        OK(c->close(c));
    return s;
}

/* Sessions, cursors opened, cached, reopened and closed; sessions closed with cursors open. */
static void
sessions_and_cursors(void)
{
    WT_SESSION *s[NSESSIONS];
    WT_CURSOR *c[NSESSIONS][NSESSIONS], *reopened;
    ul_deltas d;
    int64_t base0, before, internal[NSESSIONS], total_internal = 0;
    int i, j;

    base0 = open_count();
    CHECK(base0 >= 0);
    for (i = 0; i < NSESSIONS; i++) {
        before = open_count();
        s[i] = open_warm_session();
        internal[i] = open_count() - before;
        CHECK(internal[i] >= 0); /* internal cursors of the session, 0 or more; never negative */
        total_internal += internal[i];
    }
    ul_deltas_init(&d, obs, "statistics:", conn_ids, conn_names, 3);
    CHECK(table_open_count() == 0);

    /* Session i opens i + 1 cursors on the same table: 1 + 2 + 3 + 4 = 10 new cursors. */
    for (i = 0; i < NSESSIONS; i++)
        for (j = 0; j <= i; j++) {
            c[i][j] = NULL;
            OK(s[i]->open_cursor(s[i], URI, NULL, NULL, &c[i][j]));
            if (c[i][j] == NULL)
                exit(ul_done("stat19"));
        }
    CHECK_DELTAS(&d, "10 cursors opened in 4 sessions", 10, 0, 0);
    CHECK(table_open_count() == 10);

    /* Each session closes its first cursor: it goes into that session's cache. */
    for (i = 0; i < NSESSIONS; i++)
        OK(c[i][0]->close(c[i][0]));
    CHECK_DELTAS(&d, "4 cursors closed into the cache", -4, 4, 0);
    CHECK(table_open_count() == 6);

    /* Each session opens the table again: served from its own cache, the same handle. */
    for (i = 0; i < NSESSIONS; i++) {
        reopened = NULL;
        OK(s[i]->open_cursor(s[i], URI, NULL, NULL, &reopened));
        CHECK(reopened == c[i][0]);
        c[i][0] = reopened;
    }
    CHECK_DELTAS(&d, "4 cursors reopened from the cache", 4, -4, 4);
    CHECK(table_open_count() == 10);

    /* Sessions 0 and 1 close all their cursors (1 + 2), which are cached. */
    for (i = 0; i < 2; i++)
        for (j = 0; j <= i; j++)
            OK(c[i][j]->close(c[i][j]));
    CHECK_DELTAS(&d, "3 cursors of sessions 0 and 1 closed", -3, 3, 0);
    CHECK(table_open_count() == 7);

    /*
     * Sessions 2 and 3 close with their 3 + 4 cursors still open: the count loses exactly those
     * and the sessions' internal cursors (the warm-up cursor each holds in its cache is reopened
     * and freed: reused +1 each, cached -1 each, cursor-cache.md section 3).
     */
    OK(s[2]->close(s[2], NULL));
    OK(s[3]->close(s[3], NULL));
    CHECK_DELTAS(&d, "sessions 2 and 3 closed with 7 cursors open", -7 - internal[2] - internal[3], -2, 2);
    CHECK(table_open_count() == 0);

    /* A statistics cursor counts while it is open (the snapshot is taken before it counts). */
    {
        WT_CURSOR *stat = NULL;
        OK(obs->open_cursor(obs, "statistics:", NULL, NULL, &stat));
        CHECK_DELTAS(&d, "one statistics cursor held open", 1, 0, 0);
        if (stat != NULL)
            OK(stat->close(stat));
        CHECK_DELTAS(&d, "the statistics cursor closed (never cached)", -1, 0, 0);
    }

    /* The remaining sessions close with cached cursors only: back to the starting count. */
    OK(s[0]->close(s[0], NULL));
    OK(s[1]->close(s[1], NULL));
    CHECK_DELTAS(&d, "sessions 0 and 1 closed with 2 + 3 cached cursors", -internal[0] - internal[1], -5, 5);
    CHECK(open_count() == base0);
    printf("stat19: internal cursors per session: %" PRId64 " in all for %d sessions\n", total_internal, NSESSIONS);
}

/* Per-thread results, checked by the main thread (the check macros are not thread safe). */
typedef struct {
    pthread_t tid;
    int errors;
    char first_error[160];
} worker;

static void
fail(worker *w, const char *what, int ret)
{
    if (w->errors++ == 0)
        snprintf(w->first_error, sizeof(w->first_error), "%s: %d (%s)", what, ret, wiredtiger_strerror(ret));
}

/*
 * Each thread: its own session; CYCLES times open (from the cache after the first), open a
 * second cursor (built, as the cache is empty), close both (both cached), then the session
 * closes with one cursor still open.
 */
static void *
churn(void *arg)
{
    worker *w = arg;
    WT_SESSION *s = NULL;
    WT_CURSOR *a, *b;
    int i, ret;
    if ((ret = conn->open_session(conn, NULL, NULL, &s)) != 0) {
        fail(w, "open_session", ret);
        atomic_fetch_add(&finished, 1);
        return NULL;
    }
    for (i = 0; i < CYCLES && w->errors == 0; i++) {
        if ((ret = s->open_cursor(s, URI, NULL, NULL, &a)) != 0) {
            fail(w, "open_cursor a", ret);
            break;
        }
        if ((ret = s->open_cursor(s, URI, NULL, NULL, &b)) != 0) {
            fail(w, "open_cursor b", ret);
            break;
        }
        if ((ret = b->close(b)) != 0)
            fail(w, "close b", ret);
        if ((ret = a->close(a)) != 0)
            fail(w, "close a", ret);
    }
    if (w->errors == 0 && (ret = s->open_cursor(s, URI, NULL, NULL, &a)) != 0)
        fail(w, "final open_cursor", ret);
    if ((ret = s->close(s, NULL)) != 0)
        fail(w, "session close", ret);
    atomic_fetch_add(&finished, 1);
    return NULL;
}

/*
 * Threads churn cursors concurrently while the observer keeps reading: the count never goes
 * negative and never exceeds what can be open, and ends where it started.
 */
static void
concurrent_sessions(void)
{
    worker w[NTHREADS];
    int64_t base, v, high = 0;
    int i, reads = 0;
    void *unused;

    base = open_count();
    memset(w, 0, sizeof(w));
    for (i = 0; i < NTHREADS; i++)
        CHECK(pthread_create(&w[i].tid, NULL, churn, &w[i]) == 0);
    /* Read while they run: each thread holds at most 2 table cursors and its internal ones. */
    for (; atomic_load(&finished) < NTHREADS; reads++) {
        v = open_count();
        if (v < 0 || v > base + NTHREADS * 16) {
            CHECK(v >= 0 && v <= base + NTHREADS * 16);
            break;
        }
        if (v > high)
            high = v;
    }
    for (i = 0; i < NTHREADS; i++) {
        CHECK(pthread_join(w[i].tid, &unused) == 0);
        CHECK(w[i].errors == 0);
        if (w[i].errors != 0)
            fprintf(stderr, "thread %d: %s\n", i, w[i].first_error);
    }
    CHECK(open_count() == base);
    CHECK(table_open_count() == 0);
    printf("stat19: %d threads x %d cycles, %d concurrent reads, highest count %" PRId64 " (base %" PRId64 ")\n",
      NTHREADS, CYCLES, reads, high, base);
}

int
main(void)
{
    ul_open(NULL, "create,in_memory=true,statistics=(fast)", &conn, &obs);
    OK(obs->create(obs, URI, "key_format=S,value_format=S"));
    OK(obs->create(obs, "table:warm", "key_format=S,value_format=S"));
    sessions_and_cursors();
    concurrent_sessions();
    OK(conn->close(conn, NULL));
    return ul_done("stat19");
}
