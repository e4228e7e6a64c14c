/*
 * An in-memory database is bounded by cache_size (issue "A real on-disk engine"): once its
 * tables fill the cache, inserts and updates answer WT_CACHE_FULL with a message, as the
 * reference does; removals still work, and once they have made room, inserts work again.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdlib.h>

#include "util.h"

static WT_CONNECTION *updaters_conn;

/* Updates random keys of table:q in transactions of 4; returns the first error (0: none). */
static void *
updater(void *arg)
{
    WT_SESSION *s;
    WT_CURSOR *c;
    uint64_t seed = (uint64_t)(uintptr_t)arg;
    int i, j, ret = 0;

    if (updaters_conn->open_session(updaters_conn, NULL, NULL, &s) != 0 ||
      s->open_cursor(s, "table:q", NULL, NULL, &c) != 0)
        return (void *)(intptr_t)-1;
    for (i = 0; ret == 0 && i < 40000; i++) {
        if ((ret = s->begin_transaction(s, NULL)) != 0)
            break;
        for (j = 0; ret == 0 && j < 4; j++) {
            c->set_key(c, (uint64_t)(ul_rand(&seed) % 100000));
            c->set_value(c, (uint64_t)i);
            ret = c->update(c);
        }
        if (ret == 0)
            ret = s->commit_transaction(s, NULL);
        else {
            (void)s->rollback_transaction(s, NULL);
            if (ret == WT_ROLLBACK)
                ret = 0;
        }
    }
    (void)s->close(s, NULL);
    return (void *)(intptr_t)ret;
}

/*
 * Overwrites do not fill the cache: two threads update a table of 100,000 small rows that fits
 * the cache ten times over in total writes; the estimate counts every write, and is measured
 * again before anything is refused (two threads once raced past each other's measure and
 * were refused with WT_CACHE_FULL).
 */
static void
test_overwrites_fit(void)
{
    WT_SESSION *s;
    WT_CURSOR *c;
    pthread_t t[2];
    void *ret;
    uint64_t i;

    OK(wiredtiger_open(NULL, NULL, "create,in_memory=true,cache_size=10MB", &updaters_conn));
    OK(updaters_conn->open_session(updaters_conn, NULL, NULL, &s));
    OK(s->create(s, "table:q", "key_format=Q,value_format=Q"));
    OK(s->open_cursor(s, "table:q", NULL, NULL, &c));
    for (i = 0; i < 100000; i++) {
        c->set_key(c, i);
        c->set_value(c, i);
        OK(c->insert(c));
    }
    OK(c->close(c));
    for (i = 0; i < 2; i++)
        CHECK(pthread_create(&t[i], NULL, updater, (void *)(uintptr_t)(i + 1)) == 0);
    for (i = 0; i < 2; i++) {
        CHECK(pthread_join(t[i], &ret) == 0);
        CHECK_RC((int)(intptr_t)ret, 0);
    }
    OK(updaters_conn->close(updaters_conn, NULL));
}

int
main(void)
{
    ul_recorder r;
    WT_CONNECTION *conn;
    WT_SESSION *s;
    WT_CURSOR *c;
    char key[32], value[1024];
    int i, n, ret = 0;

    ul_recorder_init(&r);
    ul_open(&r, "create,in_memory=true,cache_size=2MB", &conn, &s);
    OK(s->create(s, "table:t", "key_format=S,value_format=S"));
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    memset(value, 'v', sizeof(value) - 1);
    value[sizeof(value) - 1] = '\0';

    /* Fill it: 2 MB of cache holds fewer than 2,000 rows of 1 KB. */
    for (n = 0; n < 20000; n++) {
        snprintf(key, sizeof(key), "key%06d", n);
        c->set_key(c, key);
        c->set_value(c, value);
        if ((ret = c->insert(c)) != 0)
            break;
    }
    CHECK_RC(ret, WT_CACHE_FULL);
    CHECK_SPEC(r.last_error == WT_CACHE_FULL && ul_message_has(&r, "cache_size"),
      "the reference reports no message with WT_CACHE_FULL");
    CHECK(n > 500 && n < 4000);
    printf("cache_full: full after %d rows of 1 KB in 2 MB\n", n);

    /* What was inserted is all there. */
    for (i = 0; i < n; i++) {
        snprintf(key, sizeof(key), "key%06d", i);
        c->set_key(c, key);
        CHECK_RC(c->search(c), 0);
    }
    /* An update is refused too; a removal is not. */
    c->set_key(c, "key000000");
    c->set_value(c, "small");
    CHECK_RC(c->update(c), WT_CACHE_FULL);
    for (i = 0; i < n; i++) {
        snprintf(key, sizeof(key), "key%06d", i);
        c->set_key(c, key);
        CHECK_RC(c->remove(c), 0);
    }
    /*
     * Room again. The reference goes on refusing: in memory its removed rows stay in pages that
     * are never evicted, so a full cache stays full.
     */
    c->set_key(c, "after");
    c->set_value(c, value);
    CHECK_SPEC(c->insert(c) == 0, "the reference stays full after every row was removed");
    c->set_key(c, "after");
    CHECK_SPEC(c->search(c) == 0, "the reference stays full after every row was removed");
    OK(c->close(c));
    OK(conn->close(conn, NULL));

    test_overwrites_fit();
    return ul_done("cache_full");
}
