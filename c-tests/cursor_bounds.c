/*
 * WT_CURSOR::bound as a program uses it, in memory and on disk (part of the records in the tree
 * file, part in memory): next and prev start at a bound and stop at the other, search and
 * search_near stay inside, writes outside are WT_NOTFOUND, reset clears the bounds, and the
 * reference's errors for bad configurations, overlapping bounds, positioned cursors and
 * largest_key.
 */
#include <errno.h>
#include <stdlib.h>

#include "util.h"

static ul_recorder rec;

/* Walks the cursor with `step` until WT_NOTFOUND; the keys met, as one string. */
static void
walk_is(WT_CURSOR *c, int (*step)(WT_CURSOR *), const char *want)
{
    char got[128] = "";
    const char *k;
    int ret;
    while ((ret = step(c)) == 0) {
        OK(c->get_key(c, &k));
        strcat(got, k);
    }
    CHECK_RC(ret, WT_NOTFOUND);
    CHECK_STR(got, want);
}

static int
next(WT_CURSOR *c)
{
    return c->next(c);
}

static int
prev(WT_CURSOR *c)
{
    return c->prev(c);
}

static void
bounds(WT_CURSOR *c, const char *lower, const char *upper, int upper_inclusive)
{
    if (lower != NULL) {
        c->set_key(c, lower);
        OK(c->bound(c, "action=set,bound=lower"));
    }
    if (upper != NULL) {
        c->set_key(c, upper);
        OK(c->bound(c, upper_inclusive ? "action=set,bound=upper" : "action=set,bound=upper,inclusive=false"));
    }
}

static void
run(WT_CONNECTION *conn, int on_disk)
{
    WT_SESSION *s;
    WT_CURSOR *c;
    const char *k;
    int exact;

    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->create(s, "table:t", "key_format=S,value_format=S"));
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    for (const char *key = "acegi"; *key != '\0'; key++) {
        char one[2] = {*key, '\0'};
        c->set_key(c, one);
        c->set_value(c, "v");
        OK(c->insert(c));
        if (on_disk && *key == 'e')
            OK(s->checkpoint(s, NULL)); /* a, c, e in the tree; g, i in memory */
    }

    bounds(c, "c", "g", 0);
    walk_is(c, next, "ce");
    walk_is(c, prev, "ec"); /* the bounds stay after running off the range */
    OK(c->reset(c));        /* and go with reset */
    walk_is(c, next, "acegi");

    bounds(c, "b", "h", 1);
    c->set_key(c, "a");
    CHECK_RC(c->search(c), WT_NOTFOUND);
    c->set_key(c, "e");
    OK(c->search(c));
    OK(c->reset(c));
    bounds(c, "b", "h", 1);
    c->set_key(c, "a");
    OK(c->search_near(c, &exact)); /* below the range: its first record */
    OK(c->get_key(c, &k));
    CHECK_STR(k, "c");
    CHECK(exact == 1);
    OK(c->reset(c));
    bounds(c, "b", "h", 1);
    c->set_key(c, "z");
    OK(c->search_near(c, &exact)); /* above it: its last */
    OK(c->get_key(c, &k));
    CHECK_STR(k, "g");
    CHECK(exact == -1);
    OK(c->reset(c));

    /* Writes outside the bounds are WT_NOTFOUND and change nothing. */
    bounds(c, "b", "h", 1);
    c->set_key(c, "a");
    c->set_value(c, "w");
    CHECK_RC(c->insert(c), WT_NOTFOUND);
    c->set_key(c, "i");
    CHECK_RC(c->remove(c), WT_NOTFOUND);
    c->set_key(c, "d");
    c->set_value(c, "w");
    OK(c->insert(c)); /* inside: fine, and the bounds stay */
    walk_is(c, next, "cdeg");
    ul_recorder_clear(&rec);
    CHECK_RC(c->largest_key(c), EINVAL);
    CHECK_MSG(&rec, EINVAL, "setting bounds is not compatible with cursor largest key");

    /* Clearing one bound, then both. */
    OK(c->bound(c, "action=clear,bound=lower"));
    walk_is(c, next, "acdeg");
    OK(c->bound(c, "action=clear"));
    walk_is(c, next, "acdegi");

    /* Bad input. */
    ul_recorder_clear(&rec);
    CHECK_RC(c->bound(c, "action=set,bound=lower"), EINVAL); /* no key set */
    CHECK_MSG(&rec, EINVAL, "requires key be set");
    c->set_key(c, "c");
    CHECK_RC(c->bound(c, "action=bogus"), EINVAL);
    CHECK_RC(c->bound(c, "action=set"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "a bound must be specified when setting bounds");
    OK(c->bound(c, "action=set,bound=lower"));
    c->set_key(c, "b");
    CHECK_RC(c->bound(c, "action=set,bound=upper"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "The provided cursor bounds are overlapping");
    OK(c->next(c));
    c->set_key(c, "g");
    CHECK_RC(c->bound(c, "action=set,bound=upper"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "setting bounds on a positioned cursor is not allowed");
    OK(c->close(c));

    /* A cursor taken from the session's cache starts without the bounds it was closed with. */
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    bounds(c, "e", NULL, 1);
    OK(c->close(c));
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    walk_is(c, next, "acdegi");
    OK(s->close(s, NULL));
}

int
main(void)
{
    ul_recorder_init(&rec);
    return ul_memory_and_disk("cursor_bounds", &rec, "", run, NULL);
}
