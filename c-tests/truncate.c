/*
 * WT_SESSION::truncate (and alter, the other operation on an existing table) as a program uses
 * it, in memory and on disk (records in the tree file
 * after a checkpoint and newer ones in memory): ranges between start and stop cursors (both
 * included, either may be missing), whole objects, inside a transaction (a rollback brings the
 * records back) and on its own (all or nothing: a conflict with another transaction's write is
 * WT_ROLLBACK and removes nothing), and the reference's errors for bad arguments.
 */
#include <errno.h>
#include <stdlib.h>

#include "util.h"

static ul_recorder rec;

/* The table's keys in order, as one string ("k0 k1 ..."). */
static void
keys_are(WT_SESSION *s, const char *want)
{
    WT_CURSOR *c;
    char got[256] = "";
    const char *k;
    int ret;
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    while ((ret = c->next(c)) == 0) {
        OK(c->get_key(c, &k));
        if (got[0] != '\0')
            strcat(got, " ");
        strcat(got, k);
    }
    CHECK_RC(ret, WT_NOTFOUND);
    CHECK_STR(got, want);
    OK(c->close(c));
}

static void
fill(WT_SESSION *s, int from, int to)
{
    WT_CURSOR *c;
    char k[8];
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    for (int i = from; i <= to; i++) {
        snprintf(k, sizeof(k), "k%d", i);
        c->set_key(c, k);
        c->set_value(c, "v");
        OK(c->insert(c));
    }
    OK(c->close(c));
}

static void
run(WT_CONNECTION *conn, int on_disk)
{
    WT_SESSION *s, *s2;
    WT_CURSOR *a, *b, *other;

    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(conn->open_session(conn, NULL, NULL, &s2));
    OK(s->create(s, "table:t", "key_format=S,value_format=S"));
    fill(s, 0, 3);
    if (on_disk)
        OK(s->checkpoint(s, NULL));
    fill(s, 4, 7); /* on disk: k0-k3 in the tree, k4-k7 in memory */
    OK(s->open_cursor(s, "table:t", NULL, NULL, &a));
    OK(s->open_cursor(s, "table:t", NULL, NULL, &b));

    /* Both bounds included; keys that are not records bound the range too. */
    a->set_key(a, "k2");
    b->set_key(b, "k4");
    OK(s->truncate(s, NULL, a, b, NULL));
    keys_are(s, "k0 k1 k5 k6 k7");
    a->set_key(a, "k55");
    OK(s->truncate(s, NULL, a, NULL, NULL)); /* to the end */
    keys_are(s, "k0 k1 k5");
    b->set_key(b, "k0");
    OK(s->truncate(s, NULL, NULL, b, NULL)); /* from the start */
    keys_are(s, "k1 k5");

    /* Inside a transaction: the rollback brings them back. */
    OK(s->begin_transaction(s, NULL));
    OK(s->truncate(s, "table:t", NULL, NULL, NULL));
    keys_are(s, "");
    OK(s->rollback_transaction(s, NULL));
    keys_are(s, "k1 k5");

    /* On its own, all or nothing: another transaction's uncommitted write is a conflict. */
    fill(s, 2, 4);
    OK(s2->begin_transaction(s2, NULL));
    OK(s2->open_cursor(s2, "table:t", NULL, NULL, &other));
    other->set_key(other, "k3");
    other->set_value(other, "theirs");
    OK(other->update(other));
    CHECK_RC(s->truncate(s, "table:t", NULL, NULL, NULL), WT_ROLLBACK);
    OK(s2->rollback_transaction(s2, NULL));
    OK(other->close(other));
    keys_are(s, "k1 k2 k3 k4 k5");

    /* A whole object, with cursors open on it. */
    OK(s->truncate(s, "table:t", NULL, NULL, NULL));
    keys_are(s, "");
    fill(s, 0, 2);

    /* Bad arguments. */
    ul_recorder_clear(&rec);
    a->set_key(a, "k1");
    CHECK_RC(s->truncate(s, "table:t", a, NULL, NULL), EINVAL);
    CHECK_MSG(&rec, EINVAL, "either a URI or start/stop cursors, but not both");
    CHECK_RC(s->truncate(s, NULL, NULL, NULL, NULL), EINVAL);
    a->set_key(a, "k9");
    b->set_key(b, "k0");
    ul_recorder_clear(&rec);
    CHECK_RC(s->truncate(s, NULL, a, b, NULL), EINVAL);
    CHECK_MSG(&rec, EINVAL, "the start cursor position is after the stop cursor position");
    CHECK_RC(s->truncate(s, "table:nope", NULL, NULL, NULL), ENOENT);
    OK(s2->open_cursor(s2, "table:t", NULL, NULL, &other));
    other->set_key(other, "k2");
    CHECK_RC(s->truncate(s, NULL, other, NULL, NULL), EINVAL); /* another session's cursor */
    OK(a->reset(a));
    CHECK_RC(s->truncate(s, NULL, a, NULL, NULL), EINVAL); /* no key set */
    keys_are(s, "k0 k1 k2");

    /* alter: the reference's keys are accepted, others refused; busy while a cursor is open. */
    OK(a->close(a));
    OK(b->close(b));
    OK(other->close(other));
    OK(s->alter(s, "table:t", "app_metadata=hello,cache_resident=true,log=(enabled=false)"));
    OK(s->alter(s, "table:t", NULL));
    ul_recorder_clear(&rec);
    CHECK_RC(s->alter(s, "table:t", "key_format=Q"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown configuration key 'key_format'");
    CHECK_RC(s->alter(s, "table:nope", "app_metadata=x"), ENOENT);
    OK(s2->open_cursor(s2, "table:t", NULL, NULL, &other));
    CHECK_RC(s->alter(s, "table:t", "app_metadata=y"), EBUSY);
    OK(s->close(s, NULL));
    OK(s2->close(s2, NULL));
}

/* The truncations are durable. */
static void
reopened(WT_CONNECTION *conn)
{
    WT_SESSION *s;
    OK(conn->open_session(conn, NULL, NULL, &s));
    keys_are(s, "k0 k1 k2");
}

int
main(void)
{
    ul_recorder_init(&rec);
    return ul_memory_and_disk("truncate", &rec, "", run, reopened);
}
