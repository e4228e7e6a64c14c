/*
 * An in-memory database is bounded by cache_size (issue "A real on-disk engine"): once its
 * tables fill the cache, inserts and updates answer WT_CACHE_FULL with a message, as the
 * reference does; removals still work, and once they have made room, inserts work again.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>

#include "util.h"

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
    return ul_done("cache_full");
}
