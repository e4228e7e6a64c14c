/*
 * Fixed-length record tables (key_format=r, value_format=8t), in memory and on disk: every
 * record from 1 to the largest written exists, reading 0 when never written or removed; a
 * removal stores 0; insert without overwrite finds them all duplicates; append goes past the
 * largest; next and prev walk every record. (Checked step by step against the reference.)
 */
#include <stdlib.h>

#include "util.h"

static ul_recorder rec;

/* Walks the whole table with next (or prev), as "1=0 2=7 ...". */
static void
walk_is(WT_CURSOR *c, int back, const char *want)
{
    char got[256] = "", one[32];
    uint64_t k;
    uint8_t v;
    int ret;
    OK(c->reset(c));
    while ((ret = back ? c->prev(c) : c->next(c)) == 0) {
        OK(c->get_key(c, &k));
        OK(c->get_value(c, &v));
        snprintf(one, sizeof(one), "%s%" PRIu64 "=%u", got[0] != '\0' ? " " : "", k, v);
        strcat(got, one);
    }
    CHECK_RC(ret, WT_NOTFOUND);
    CHECK_STR(got, want);
    OK(c->reset(c));
}

static void
run(WT_CONNECTION *conn, int on_disk)
{
    WT_SESSION *s;
    WT_CURSOR *c, *strict, *app;
    uint64_t k;
    uint8_t v;
    int exact;

    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->create(s, "table:f", "key_format=r,value_format=8t"));
    OK(s->open_cursor(s, "table:f", NULL, NULL, &c));
    c->set_key(c, (uint64_t)5);
    c->set_value(c, (uint8_t)7);
    OK(c->insert(c));
    if (on_disk)
        OK(s->checkpoint(s, NULL));
    c->set_key(c, (uint64_t)2);
    OK(c->search(c)); /* never written, below the largest: 0 */
    OK(c->get_value(c, &v));
    CHECK(v == 0);
    c->set_key(c, (uint64_t)9);
    CHECK_RC(c->search(c), WT_NOTFOUND);
    walk_is(c, 0, "1=0 2=0 3=0 4=0 5=7");
    walk_is(c, 1, "5=7 4=0 3=0 2=0 1=0");
    c->set_key(c, (uint64_t)7);
    OK(c->search_near(c, &exact));
    OK(c->get_key(c, &k));
    CHECK(k == 5 && exact == -1);

    /* A removal stores 0: the record stays, and so does the largest record number. */
    c->set_key(c, (uint64_t)5);
    OK(c->remove(c));
    c->set_key(c, (uint64_t)5);
    OK(c->search(c));
    OK(c->get_value(c, &v));
    CHECK(v == 0);
    c->set_key(c, (uint64_t)3);
    OK(c->remove(c)); /* never written: still there to remove */
    c->set_key(c, (uint64_t)6);
    CHECK_RC(c->remove(c), WT_NOTFOUND);

    /* Without overwrite, every record up to the largest is a duplicate; update finds them. */
    OK(s->open_cursor(s, "table:f", NULL, "overwrite=false", &strict));
    strict->set_key(strict, (uint64_t)1);
    strict->set_value(strict, (uint8_t)4);
    CHECK_RC(strict->insert(strict), WT_DUPLICATE_KEY);
    strict->set_key(strict, (uint64_t)4);
    strict->set_value(strict, (uint8_t)4);
    OK(strict->update(strict));
    strict->set_key(strict, (uint64_t)8);
    strict->set_value(strict, (uint8_t)4);
    CHECK_RC(strict->update(strict), WT_NOTFOUND);
    OK(strict->close(strict));

    OK(s->open_cursor(s, "table:f", NULL, "append", &app));
    app->set_value(app, (uint8_t)9);
    OK(app->insert(app));
    OK(app->get_key(app, &k));
    CHECK(k == 6);
    OK(app->close(app));
    walk_is(c, 0, "1=0 2=0 3=0 4=4 5=0 6=9");
    OK(s->close(s, NULL));
}

/* What the on-disk run left, after a reopen. */
static void
reopened(WT_CONNECTION *conn)
{
    WT_SESSION *s;
    WT_CURSOR *c;
    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->open_cursor(s, "table:f", NULL, NULL, &c));
    walk_is(c, 0, "1=0 2=0 3=0 4=4 5=0 6=9");
}

int
main(void)
{
    ul_recorder_init(&rec);
    return ul_memory_and_disk("fixed_records", &rec, "", run, reopened);
}
