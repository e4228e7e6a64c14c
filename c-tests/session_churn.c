/*
 * Session churn (issue 13): sessions opened and closed over and over, from many threads at once.
 * An open_session reuses the memory of a session closed before (often the same handle), so this
 * checks that every session is new all the same: no cursor in its cache, no transaction, its own
 * configuration and app_private, cursors that start unset; that the statistics count every
 * session, cursor and operation exactly once (totals neither drop nor double when a slot is
 * reused, also while the sessions churn); and that session_max, EBUSY on drop and dropped
 * tables behave as they did.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "util.h"

#define INMEM "create,in_memory=true,statistics=(fast)"
#define NTHREADS 8
#define ITERATIONS 1500
#define ROWS 500
#define WRITE_BASE 1000000 /* keys written by the workers: WRITE_BASE + thread * ITERATIONS + i */

static WT_CONNECTION *conn;
static volatile int running;

/* Loads ROWS rows k -> 2k + 1 into `uri` (key_format=Q,value_format=Q). */
static void
load(WT_SESSION *s, const char *uri)
{
    WT_CURSOR *c;
    uint64_t k;
    OK(s->create(s, uri, "key_format=Q,value_format=Q"));
    OK(s->open_cursor(s, uri, NULL, NULL, &c));
    for (k = 0; k < ROWS; k++) {
        c->set_key(c, k);
        c->set_value(c, 2 * k + 1);
        OK(c->insert(c));
    }
    OK(c->close(c));
}

/* What one worker did, checked by the main thread (the check macros are not thread safe). */
typedef struct {
    int id;
    int errors;
    char first_error[256];
    int64_t creates, reuses, searches, churn_creates, rollbacks, commits, same_handle;
    uint64_t rng;
} worker;

static void
fail(worker *w, const char *what, int ret)
{
    ul_thread_fail(&w->errors, w->first_error, sizeof(w->first_error), w->id, what, ret);
}

#define W_OK(w, call)                 \
    do {                              \
        int w_ret_ = (call);          \
        if (w_ret_ != 0)              \
            fail((w), #call, w_ret_); \
    } while (0)

/*
 * One session's life: opened with one of three configurations, k open + search + close cycles on
 * table:churn, sometimes a cursor on table:other left open, sometimes a write committed or left
 * running (rolled back by the close).
 */
static void
one_session(worker *w, int i, WT_SESSION **last)
{
    static const char *const configs[] = {NULL, "cache_cursors=false", "isolation=read-committed"};
    WT_SESSION *s = NULL;
    WT_CURSOR *c, *other;
    uint64_t key, value, r = ul_rand(&w->rng);
    int caching = (r % 3) != 1, k = 1 + (int)((r >> 8) % 3), j, ret;

    W_OK(w, conn->open_session(conn, NULL, configs[r % 3], &s));
    if (s == NULL)
        return;
    if (s == *last)
        w->same_handle++;
    *last = s;
    /* A new session: app_private NULL, no transaction running. */
    if (s->app_private != NULL)
        fail(w, "app_private of a new session", -1);
    s->app_private = w;
    for (j = 0; j < k; j++) {
        c = NULL;
        W_OK(w, s->open_cursor(s, "table:churn", NULL, NULL, &c));
        if (c == NULL)
            return;
        /* A cursor starts with no key. */
        if (j == 0 && (ret = c->get_key(c, &key)) != EINVAL)
            fail(w, "get_key of a new cursor", ret);
        key = ul_rand(&w->rng) % ROWS;
        c->set_key(c, key);
        W_OK(w, c->search(c));
        W_OK(w, c->get_value(c, &value));
        if (value != 2 * key + 1)
            fail(w, "value read", (int)value);
        w->searches++;
        W_OK(w, c->close(c));
    }
    /* The first open creates; with the cache the next ones reuse, and the close's emptying of
     * the cache counts one more reuse (reopened, then closed for good). */
    w->creates += caching ? 1 : k;
    w->churn_creates += caching ? 1 : k;
    w->reuses += caching ? k : 0;
    if ((r >> 16) % 4 == 0) {
        /* Left open: the session's close closes it. */
        W_OK(w, s->open_cursor(s, "table:other", NULL, NULL, &other));
        w->creates++;
    }
    if ((r >> 24) % 5 == 0) {
        /* Snapshot isolation: read-committed sessions write no explicit transactions here. */
        W_OK(w, s->begin_transaction(s, "isolation=snapshot"));
        W_OK(w, s->open_cursor(s, "table:other", NULL, "overwrite=false", &other));
        other->set_key(other, (uint64_t)(WRITE_BASE + w->id * ITERATIONS + i));
        other->set_value(other, (uint64_t)i);
        W_OK(w, other->insert(other));
        W_OK(w, other->close(other));
        w->creates++;
        /* Cached by the close, it counts a reuse when the session's close empties the cache. */
        w->reuses += caching ? 1 : 0;
        if ((r >> 32) % 2 == 0) {
            W_OK(w, s->commit_transaction(s, NULL));
            w->commits++;
        } else
            w->rollbacks++;
    }
    W_OK(w, s->close(s, NULL));
}

static void *
run(void *arg)
{
    worker *w = arg;
    WT_SESSION *last = NULL;
    int i;
    for (i = 0; i < ITERATIONS; i++)
        one_session(w, i, &last);
    return NULL;
}

/* Section 1: many threads churn sessions; the statistics stay exact, during and after. */
static void
concurrent_churn(WT_SESSION *obs)
{
    static const int ids[] = {WT_STAT_CONN_SESSION_OPEN, WT_STAT_CONN_CURSOR_OPEN_COUNT,
      WT_STAT_CONN_CURSOR_CACHED_COUNT, WT_STAT_CONN_CURSOR_CREATE, WT_STAT_CONN_CURSOR_REOPEN,
      WT_STAT_CONN_CURSOR_SEARCH, WT_STAT_CONN_TXN_ROLLBACK};
    static const int table_ids[] = {WT_STAT_DSRC_CURSOR_SEARCH, WT_STAT_DSRC_CURSOR_CREATE};
    pthread_t threads[NTHREADS];
    worker workers[NTHREADS];
    int64_t before[7], after[7], t_before[2], t_after[2], open_now, low = 0, high = 0;
    int64_t creates = 0, reuses = 0, searches = 0, churn_creates = 0, rollbacks = 0, same = 0;
    WT_CURSOR *c;
    uint64_t v;
    int i, j, reads = 0, found, missing;

    OK(ul_stats_read(obs, "statistics:", "before", ids, 7, before));
    OK(ul_stats_read(obs, "statistics:table:churn", "before", table_ids, 2, t_before));
    running = 1;
    for (i = 0; i < NTHREADS; i++) {
        memset(&workers[i], 0, sizeof(workers[i]));
        workers[i].id = i;
        workers[i].rng = 77 + (uint64_t)i;
        OK(pthread_create(&threads[i], NULL, run, &workers[i]));
    }
    /* Meanwhile: the open session count never leaves [before, before + NTHREADS]. */
    for (i = 0; i < 200; i++) {
        open_now = ul_stat(obs, "statistics:", WT_STAT_CONN_SESSION_OPEN) - before[0];
        low = open_now < low ? open_now : low;
        high = open_now > high ? open_now : high;
        reads++;
    }
    for (i = 0; i < NTHREADS; i++)
        OK(pthread_join(threads[i], NULL));
    running = 0;
    CHECK(low >= 0);
    CHECK(high <= NTHREADS);
    for (i = 0; i < NTHREADS; i++) {
        if (workers[i].errors != 0)
            fprintf(stderr, "%d errors, the first: %s\n", workers[i].errors, workers[i].first_error);
        CHECK(workers[i].errors == 0);
        creates += workers[i].creates;
        reuses += workers[i].reuses;
        searches += workers[i].searches;
        churn_creates += workers[i].churn_creates;
        rollbacks += workers[i].rollbacks;
        same += workers[i].same_handle;
    }
    printf("session_churn: %d threads x %d sessions; %" PRId64 " sessions had the handle their thread "
           "closed last; %d statistics reads meanwhile (open sessions %+" PRId64 "..%+" PRId64 ")\n",
      NTHREADS, ITERATIONS, same, reads, low, high);
    OK(ul_stats_read(obs, "statistics:", "after", ids, 7, after));
    OK(ul_stats_read(obs, "statistics:table:churn", "after", table_ids, 2, t_after));
    CHECK(after[0] == before[0]); /* open sessions */
    CHECK(after[1] == before[1]); /* open cursors */
    CHECK(after[2] == before[2]); /* cached cursors */
    CHECK_SPEC(after[3] - before[3] == creates, "the reference counts its internal cursors as created too");
    CHECK(after[4] - before[4] == reuses);
    CHECK(after[5] - before[5] == searches);
    CHECK(after[6] - before[6] == rollbacks);
    CHECK(t_after[0] - t_before[0] == searches);
    CHECK(t_after[1] - t_before[1] == churn_creates);

    /* Committed writes are there, rolled-back ones are not. */
    OK(obs->open_cursor(obs, "table:other", NULL, NULL, &c));
    found = missing = 0;
    for (i = 0; i < NTHREADS; i++)
        for (j = 0; j < ITERATIONS; j++) {
            c->set_key(c, (uint64_t)(WRITE_BASE + i * ITERATIONS + j));
            if (c->search(c) == 0) {
                OK(c->get_value(c, &v));
                CHECK(v == (uint64_t)j);
                found++;
            } else
                missing++;
        }
    OK(c->close(c));
    for (i = 0, j = 0; i < NTHREADS; i++)
        j += (int)workers[i].commits;
    CHECK(found == j);
}

/*
 * Section 2: a session opened where another closed is new. The closed one had cached a cursor,
 * set app_private and left a transaction running; the new one has its own configuration, no
 * cached cursor (its first open creates), no transaction, and sees no rolled-back write.
 */
static void
fresh_session(WT_SESSION *obs)
{
    static const int ids[] = {WT_STAT_CONN_CURSOR_CREATE, WT_STAT_CONN_CURSOR_REOPEN,
      WT_STAT_CONN_TXN_ROLLBACK, WT_STAT_CONN_SESSION_OPEN};
    static const char *const names[] = {"create", "reopen", "rollback", "open sessions"};
    ul_deltas d;
    WT_SESSION *s1 = NULL, *s2 = NULL;
    WT_CURSOR *c = NULL, *w = NULL;
    uint64_t key;
    int round;

    ul_deltas_init(&d, obs, "statistics:", ids, names, 4);
    /* The reference counts its internal cursors (one per open_session...) as created too. */
#define CREATES(n) (ul_reference() ? UL_ANY : (n))
    for (round = 0; round < 3; round++) {
        OK(conn->open_session(conn, NULL, NULL, &s1));
        if (s1 == NULL)
            return;
        s1->app_private = &d;
        OK(s1->open_cursor(s1, "table:churn", NULL, NULL, &c));
        OK(c->close(c));
        OK(s1->open_cursor(s1, "table:churn", NULL, NULL, &c));
        c->set_key(c, (uint64_t)3);
        OK(c->search(c));
        OK(c->close(c));
        OK(s1->begin_transaction(s1, NULL));
        OK(s1->open_cursor(s1, "table:other", NULL, NULL, &w));
        w->set_key(w, (uint64_t)(2 * WRITE_BASE + round));
        w->set_value(w, (uint64_t)1);
        OK(w->insert(w));
        OK(s1->close(s1, NULL));
        /* Two creates; one reuse, and one more when the close empties the cache. */
        CHECK_DELTAS(&d, "first session", CREATES(2), 2, 1, 0);

        OK(conn->open_session(conn, NULL, round == 1 ? "cache_cursors=false" : NULL, &s2));
        if (s2 == NULL)
            return;
        CHECK(s2->app_private == NULL);
        CHECK_DELTAS(&d, "open", CREATES(0), 0, 0, 1);
        OK(s2->open_cursor(s2, "table:churn", NULL, NULL, &c));
        CHECK_STR(c->uri, "table:churn");
        CHECK_STR(c->key_format, "Q");
        CHECK(c->session == s2);
        CHECK_RC(c->get_key(c, &key), EINVAL);
        CHECK_DELTAS(&d, "first cursor of the new session", 1, 0, 0, 0);
        OK(c->close(c));
        OK(s2->open_cursor(s2, "table:churn", NULL, NULL, &c));
        /* Cached in the new session only when it caches cursors. */
        CHECK_DELTAS(&d, "second cursor", round == 1 ? 1 : 0, round == 1 ? 0 : 1, 0, 0);
        OK(c->close(c));
        /* No transaction left over: one begins, and the rolled-back write is not there. */
        OK(s2->begin_transaction(s2, NULL));
        OK(s2->open_cursor(s2, "table:other", NULL, NULL, &w));
        w->set_key(w, (uint64_t)(2 * WRITE_BASE + round));
        CHECK_RC(w->search(w), WT_NOTFOUND);
        OK(w->close(w));
        OK(s2->commit_transaction(s2, NULL));
        OK(s2->close(s2, NULL));
        CHECK_DELTAS(&d, "second session", UL_ANY, UL_ANY, 0, -1);
    }
}

/*
 * Section 3: closed sessions keep no hold on tables: a table used by closed sessions drops, and
 * one created again under its name (another format) is what the next session's cursor opens. A
 * session with an open cursor still makes drop EBUSY. The table is never written: the reference
 * answers EBUSY to the drop of an in-memory table with rows.
 */
static void
drop_after_close(WT_SESSION *obs)
{
    WT_SESSION *s = NULL;
    WT_CURSOR *c = NULL;
    int i;

    OK(obs->create(obs, "table:d", "key_format=Q,value_format=Q"));
    for (i = 0; i < 3; i++) {
        OK(conn->open_session(conn, NULL, NULL, &s));
        OK(s->open_cursor(s, "table:d", NULL, NULL, &c));
        c->set_key(c, (uint64_t)1);
        CHECK_RC(c->search(c), WT_NOTFOUND);
        OK(c->close(c));
        OK(s->close(s, NULL));
    }
    OK(obs->drop(obs, "table:d", NULL));
    OK(obs->create(obs, "table:d", "key_format=S,value_format=S"));
    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->open_cursor(s, "table:d", NULL, NULL, &c));
    CHECK_STR(c->key_format, "S");
    c->set_key(c, "a");
    CHECK_RC(c->search(c), WT_NOTFOUND);
    /* Open: drop is refused; the session's close closes the cursor, then drop succeeds. */
    CHECK_RC(obs->drop(obs, "table:d", NULL), EBUSY);
    OK(s->close(s, NULL));
    OK(obs->drop(obs, "table:d", NULL));
}

/* Section 4: with session_max=5, churn never runs out of sessions nor loses a slot. */
static void
session_max_churn(void)
{
    WT_CONNECTION *c2 = NULL;
    WT_SESSION *held[64], *extra = NULL;
    int i, n, ret = 0;

    OK(wiredtiger_open(NULL, NULL, "create,in_memory=true,session_max=5", &c2));
    if (c2 == NULL)
        return;
    for (i = 0; i < 1000; i++) {
        OK(c2->open_session(c2, NULL, NULL, &held[0]));
        OK(c2->open_session(c2, NULL, NULL, &held[1]));
        OK(held[0]->close(held[0], NULL));
        OK(held[1]->close(held[1], NULL));
    }
    /* As many sessions as before the churn, then "out of sessions". */
    for (n = 0; n < 64; n++)
        if ((ret = c2->open_session(c2, NULL, NULL, &held[n])) != 0)
            break;
    CHECK(n >= 5 && n < 64);
    CHECK_RC(ret, WT_ERROR);
    for (i = 0; i < n; i++)
        OK(held[i]->close(held[i], NULL));
    for (i = 0; i < n; i++)
        OK(c2->open_session(c2, NULL, NULL, &held[i]));
    CHECK_RC(c2->open_session(c2, NULL, NULL, &extra), WT_ERROR);
    /* The connection's close frees open and closed sessions alike. */
    OK(c2->close(c2, NULL));
}

int
main(void)
{
    WT_SESSION *obs;

    ul_open(NULL, INMEM ",session_max=64", &conn, &obs);
    load(obs, "table:churn");
    OK(obs->create(obs, "table:other", "key_format=Q,value_format=Q"));
    concurrent_churn(obs);
    fresh_session(obs);
    drop_after_close(obs);
    OK(conn->close(conn, NULL));
    session_max_churn();
    return ul_done("session_churn");
}
