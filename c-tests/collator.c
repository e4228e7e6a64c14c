/*
 * Collators the program supplies (WT_CONNECTION::add_collator, collator= at create), checked
 * against WiredTiger 11.3.1's behaviour:
 * - a reverse-order table: next walks down, prev up, search finds, search_near lands on the
 *   collator's neighbours, bounds and truncate ranges follow the collator;
 * - a case-insensitive table: keys equal under the collator are one key (insert of "APPLE"
 *   over "Apple" is WT_DUPLICATE_KEY, a search of "aPpLe" finds it), order ignores case;
 * - an index with collator=: its entries walk in the collator's order;
 * - on disk, a table larger than a 1 MB cache: every row reads back in order after the pages
 *   went to disk, verify answers 0, metadata: names the collator;
 * - reopened with the collator registered again: the same order; without it, open_cursor is
 *   EINVAL "unknown collator 'reverse'" until it is registered;
 * - WT_CURSOR::compare and equals order keys by the collator;
 * - a compare method returning an error fails the operation with that code (searches, writes,
 *   bounds, truncate, an index cursor's look-up of its primary row), and only that operation;
 * - an unregistered name at create is EINVAL "unknown collator 'NAME'";
 * - compare gets the session whose cursor call compares;
 * - customize: a collator customized for a table (by its app_metadata) orders that table, and
 *   its terminate runs once when the connection closes.
 *
 * Runs against the reference too (UL_REFERENCE=1).
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define ROWS 20000

static ul_recorder rec;
static char home[256];
static int fail_compare, n_terminate;

static int
bytes_cmp(const WT_ITEM *a, const WT_ITEM *b, int fold)
{
    const unsigned char *x = a->data, *y = b->data;
    size_t i, n = a->size < b->size ? a->size : b->size;
    for (i = 0; i < n; i++) {
        int cx = fold ? tolower(x[i]) : x[i], cy = fold ? tolower(y[i]) : y[i];
        if (cx != cy)
            return (cx < cy ? -1 : 1);
    }
    return (a->size == b->size ? 0 : (a->size < b->size ? -1 : 1));
}

static int
reverse_compare(WT_COLLATOR *collator, WT_SESSION *session, const WT_ITEM *a, const WT_ITEM *b, int *cmp)
{
    (void)collator;
    (void)session;
    if (fail_compare != 0)
        return (fail_compare);
    *cmp = -bytes_cmp(a, b, 0);
    return (0);
}

static WT_SESSION *compared_for; /* the session nocase_compare was last called with */

static int
nocase_compare(WT_COLLATOR *collator, WT_SESSION *session, const WT_ITEM *a, const WT_ITEM *b, int *cmp)
{
    (void)collator;
    compared_for = session;
    *cmp = bytes_cmp(a, b, 1);
    return (0);
}

static int
count_terminate(WT_COLLATOR *collator, WT_SESSION *session)
{
    (void)collator;
    (void)session;
    n_terminate++;
    return (0);
}

static WT_COLLATOR reverse = {reverse_compare, NULL, count_terminate};
static WT_COLLATOR nocase = {nocase_compare, NULL, NULL};

static int n_custom_terminate, n_customize;

static int
custom_terminate(WT_COLLATOR *collator, WT_SESSION *session)
{
    (void)collator;
    (void)session;
    n_custom_terminate++;
    return (0);
}

static WT_COLLATOR customized = {reverse_compare, NULL, custom_terminate};

static int
plain_compare(WT_COLLATOR *collator, WT_SESSION *session, const WT_ITEM *a, const WT_ITEM *b, int *cmp)
{
    (void)collator;
    (void)session;
    *cmp = bytes_cmp(a, b, 0);
    return (0);
}

/* Customized for objects whose app_metadata is "reverse": the reverse order. */
static int
custom_customize(WT_COLLATOR *collator, WT_SESSION *session, const char *uri, WT_CONFIG_ITEM *appcfg,
  WT_COLLATOR **customp)
{
    (void)collator;
    (void)session;
    (void)uri;
    n_customize++;
    if (appcfg->len == strlen("reverse") && strncmp(appcfg->str, "reverse", appcfg->len) == 0)
        *customp = &customized;
    return (0);
}

static WT_COLLATOR custom = {plain_compare, custom_customize, NULL};

static void
register_all(WT_CONNECTION *conn)
{
    OK(conn->add_collator(conn, "reverse", &reverse, NULL));
    OK(conn->add_collator(conn, "nocase", &nocase, NULL));
}

static void
put(WT_SESSION *s, const char *uri, const char *key, const char *value)
{
    WT_CURSOR *c;
    OK(s->open_cursor(s, uri, NULL, NULL, &c));
    c->set_key(c, key);
    c->set_value(c, value);
    OK(c->insert(c));
    OK(c->close(c));
}

/* The keys cursor `c` steps to with next (or prev) until the end, joined with spaces. */
static void
collect(WT_CURSOR *c, int forward, char *out, size_t len)
{
    const char *k;
    int ret;
    size_t at = 0;

    out[0] = '\0';
    while ((ret = forward ? c->next(c) : c->prev(c)) == 0) {
        OK(c->get_key(c, &k));
        at += (size_t)snprintf(out + at, len - at, "%s%s", at == 0 ? "" : " ", k);
    }
    CHECK_RC(ret, WT_NOTFOUND);
}

/* The keys of `uri` walked with next (or prev), joined with spaces. */
static void
walk(WT_SESSION *s, const char *uri, int forward, char *out, size_t len)
{
    WT_CURSOR *c;

    OK(s->open_cursor(s, uri, NULL, NULL, &c));
    collect(c, forward, out, len);
    OK(c->close(c));
}

static void
reverse_table(WT_SESSION *s)
{
    WT_CURSOR *c;
    const char *k;
    char got[512];
    int exact;

    OK(s->create(s, "table:rev", "key_format=S,value_format=S,collator=reverse"));
    put(s, "table:rev", "k3", "v3");
    put(s, "table:rev", "k1", "v1");
    put(s, "table:rev", "k5", "v5");
    put(s, "table:rev", "k2", "v2");
    put(s, "table:rev", "k4", "v4");
    walk(s, "table:rev", 1, got, sizeof(got));
    CHECK_STR(got, "k5 k4 k3 k2 k1");
    walk(s, "table:rev", 0, got, sizeof(got));
    CHECK_STR(got, "k1 k2 k3 k4 k5");

    OK(s->open_cursor(s, "table:rev", NULL, NULL, &c));
    c->set_key(c, "k3");
    OK(c->search(c));
    OK(c->next(c));
    OK(c->get_key(c, &k));
    CHECK_STR(k, "k2");
    /* Between k3 and k2 in the collator's order: "k25" (bytewise between them too). */
    c->set_key(c, "k25");
    CHECK_RC(c->search(c), WT_NOTFOUND);
    c->set_key(c, "k25");
    OK(c->search_near(c, &exact));
    OK(c->get_key(c, &k));
    CHECK((exact > 0 && strcmp(k, "k2") == 0) || (exact < 0 && strcmp(k, "k3") == 0));
    /* Past the collator's last key ("k1" is the last): lands on it, smaller. */
    c->set_key(c, "k0");
    OK(c->search_near(c, &exact));
    OK(c->get_key(c, &k));
    CHECK_STR(k, "k1");
    CHECK(exact < 0);
    /* Before the collator's first key. */
    c->set_key(c, "k9");
    OK(c->search_near(c, &exact));
    OK(c->get_key(c, &k));
    CHECK_STR(k, "k5");
    CHECK(exact > 0);
    OK(c->reset(c));

    /* Bounds are in the collator's order: lower k4, upper k2. */
    c->set_key(c, "k4");
    OK(c->bound(c, "action=set,bound=lower"));
    c->set_key(c, "k2");
    OK(c->bound(c, "action=set,bound=upper"));
    collect(c, 1, got, sizeof(got));
    CHECK_STR(got, "k4 k3 k2");
    OK(c->close(c));
    /* The other order is overlapping bounds. */
    OK(s->open_cursor(s, "table:rev", NULL, NULL, &c));
    c->set_key(c, "k2");
    OK(c->bound(c, "action=set,bound=lower"));
    c->set_key(c, "k4");
    CHECK_RC(c->bound(c, "action=set,bound=upper"), EINVAL);
    /* A failed comparison fails the bound, and only it. */
    c->set_key(c, "k1");
    fail_compare = EIO;
    CHECK_RC(c->bound(c, "action=set,bound=upper"), EIO);
    fail_compare = 0;
    OK(c->close(c));

    /* WT_CURSOR::compare and equals order keys by the collator: k2 comes before k1. */
    {
        WT_CURSOR *c2;
        int cmp, eq;
        OK(s->open_cursor(s, "table:rev", NULL, NULL, &c));
        OK(s->open_cursor(s, "table:rev", NULL, NULL, &c2));
        c->set_key(c, "k1");
        OK(c->search(c));
        c2->set_key(c2, "k2");
        OK(c2->search(c2));
        OK(c->compare(c, c2, &cmp));
        CHECK(cmp > 0);
        OK(c2->compare(c2, c, &cmp));
        CHECK(cmp < 0);
        OK(c->equals(c, c2, &eq));
        CHECK(eq == 0);
        OK(c->close(c));
        OK(c2->close(c2));
    }

    /* A compare error fails the operation with its code. */
    OK(s->open_cursor(s, "table:rev", NULL, NULL, &c));
    fail_compare = EIO;
    c->set_key(c, "k3");
    CHECK_RC(c->search(c), EIO);
    c->set_key(c, "k6");
    c->set_value(c, "v6");
    CHECK_RC(c->insert(c), EIO);
    c->set_key(c, "k4");
    c->set_value(c, "changed");
    CHECK_RC(c->update(c), EIO);
    fail_compare = 0;
    /* Nothing was written, to those keys or any other. */
    {
        const char *v;
        int i;
        char key[8], want[8];
        for (i = 1; i <= 5; i++) {
            snprintf(key, sizeof(key), "k%d", i);
            snprintf(want, sizeof(want), "v%d", i);
            c->set_key(c, key);
            OK(c->search(c));
            OK(c->get_value(c, &v));
            CHECK_STR(v, want);
        }
    }
    OK(c->close(c));
    walk(s, "table:rev", 1, got, sizeof(got));
    CHECK_STR(got, "k5 k4 k3 k2 k1");

    /* Through an index: the look-up of the primary row compares by the table's collator. */
    OK(s->create(s, "table:revx", "key_format=S,value_format=S,columns=(k,v),collator=reverse"));
    OK(s->create(s, "index:revx:v", "columns=(v)"));
    put(s, "table:revx", "k1", "one");
    put(s, "table:revx", "k2", "two");
    OK(s->open_cursor(s, "index:revx:v", NULL, NULL, &c));
    fail_compare = EIO;
    c->set_key(c, "two");
    CHECK_RC(c->search(c), EIO);
    fail_compare = 0;
    c->set_key(c, "two");
    OK(c->search(c));
    {
        const char *v;
        OK(c->get_value(c, &v));
        CHECK_STR(v, "two");
    }
    OK(c->close(c));

    /* A truncate range is in the collator's order; a failed comparison fails it. */
    {
        WT_CURSOR *start, *stop;
        int i;
        char key[8];
        OK(s->create(s, "table:revt", "key_format=S,value_format=S,collator=reverse"));
        for (i = 1; i <= 5; i++) {
            snprintf(key, sizeof(key), "k%d", i);
            put(s, "table:revt", key, "v");
        }
        OK(s->open_cursor(s, "table:revt", NULL, NULL, &start));
        OK(s->open_cursor(s, "table:revt", NULL, NULL, &stop));
        start->set_key(start, "k4");
        stop->set_key(stop, "k2");
        fail_compare = EIO;
        CHECK_RC(s->truncate(s, NULL, start, stop, NULL), EIO);
        fail_compare = 0;
        walk(s, "table:revt", 1, got, sizeof(got));
        CHECK_STR(got, "k5 k4 k3 k2 k1");
        start->set_key(start, "k4");
        stop->set_key(stop, "k2");
        OK(s->truncate(s, NULL, start, stop, NULL));
        OK(start->close(start));
        OK(stop->close(stop));
        walk(s, "table:revt", 1, got, sizeof(got));
        CHECK_STR(got, "k5 k1");
    }
}

static void
nocase_table(WT_SESSION *s)
{
    WT_CURSOR *c;
    const char *v;
    char got[512];

    OK(s->create(s, "table:nc", "key_format=S,value_format=S,collator=nocase"));
    put(s, "table:nc", "banana", "yellow");
    put(s, "table:nc", "Apple", "red");
    put(s, "table:nc", "cherry", "dark");
    walk(s, "table:nc", 1, got, sizeof(got));
    CHECK_STR(got, "Apple banana cherry");
    OK(s->open_cursor(s, "table:nc", NULL, "overwrite=false", &c));
    c->set_key(c, "APPLE");
    c->set_value(c, "green");
    CHECK_RC(c->insert(c), WT_DUPLICATE_KEY);
    c->set_key(c, "aPpLe");
    compared_for = NULL;
    OK(c->search(c));
    CHECK(compared_for == s); /* the collator compares for the calling session */
    OK(c->get_value(c, &v));
    CHECK_STR(v, "red");
    c->set_key(c, "BANANA");
    OK(c->remove(c));
    OK(c->close(c));
    walk(s, "table:nc", 1, got, sizeof(got));
    CHECK_STR(got, "Apple cherry");

    /* An index ordered by a collator. */
    OK(s->create(s, "table:people", "key_format=S,value_format=S,columns=(id,name)"));
    OK(s->create(s, "index:people:name", "columns=(name),collator=nocase"));
    put(s, "table:people", "1", "bob");
    put(s, "table:people", "2", "Carol");
    put(s, "table:people", "3", "alice");
    OK(s->open_cursor(s, "index:people:name", NULL, NULL, &c));
    collect(c, 1, got, sizeof(got));
    CHECK_STR(got, "alice bob Carol");
    /* Searches compare an entry's index key (cut to the key's length) by the collator. */
    {
        const char *k, *v;
        int exact;
        c->set_key(c, "BOB");
        OK(c->search(c));
        OK(c->get_key(c, &k));
        OK(c->get_value(c, &v));
        CHECK_STR(k, "bob");
        CHECK_STR(v, "bob");
        c->set_key(c, "carol");
        OK(c->search_near(c, &exact));
        OK(c->get_key(c, &k));
        CHECK_STR(k, "Carol");
        CHECK(exact == 0);
        c->set_key(c, "bobby");
        CHECK_RC(c->search(c), WT_NOTFOUND);
    }
    OK(c->close(c));

    /* A join condition compares in the index's order: names at or after "bob" ignoring case. */
    {
        WT_CURSOR *join, *idx;
        const char *id;
        OK(s->open_cursor(s, "join:table:people", NULL, NULL, &join));
        OK(s->open_cursor(s, "index:people:name", NULL, NULL, &idx));
        idx->set_key(idx, "bob");
        OK(idx->search(idx));
        OK(s->join(s, join, idx, "compare=ge"));
        got[0] = '\0';
        while (join->next(join) == 0) {
            OK(join->get_key(join, &id));
            strncat(got, id, sizeof(got) - strlen(got) - 1);
        }
        CHECK_STR(got, "12");
        /* The join first: the reference refuses to close a cursor a join still uses. */
        OK(join->close(join));
        OK(idx->close(idx));
    }
}

static void
key_of(int i, char *buf, size_t len)
{
    snprintf(buf, len, "k%06d", i);
}

static void
big_rows(WT_SESSION *s)
{
    WT_CURSOR *c;
    char key[32], value[200];
    int i;

    memset(value, 'v', sizeof(value) - 1);
    value[sizeof(value) - 1] = '\0';
    OK(s->open_cursor(s, "table:big", NULL, NULL, &c));
    for (i = 0; i < ROWS; i++) {
        key_of((i * 7919) % ROWS, key, sizeof(key));
        c->set_key(c, key);
        c->set_value(c, value);
        OK(c->insert(c));
    }
    OK(c->close(c));
}

/* Every row, walked forward: descending keys. */
static void
check_big(WT_SESSION *s)
{
    WT_CURSOR *c;
    const char *k;
    char want[32];
    int i = ROWS, ret, bad = 0;

    OK(s->open_cursor(s, "table:big", NULL, NULL, &c));
    while ((ret = c->next(c)) == 0) {
        OK(c->get_key(c, &k));
        key_of(--i, want, sizeof(want));
        bad += strcmp(k, want) != 0;
    }
    CHECK_RC(ret, WT_NOTFOUND);
    CHECK(i == 0);
    CHECK(bad == 0);
    key_of(12345, want, sizeof(want));
    c->set_key(c, want);
    OK(c->search(c));
    OK(c->next(c));
    OK(c->get_key(c, &k));
    CHECK_STR(k, "k012344");
    OK(c->close(c));
}

static void
open_home(WT_CONNECTION **conn, WT_SESSION **s, int with)
{
    ul_recorder_clear(&rec);
    OK(wiredtiger_open(home, &rec.iface, "create,cache_size=1MB", conn));
    if (with)
        register_all(*conn);
    OK((*conn)->open_session(*conn, NULL, NULL, s));
}

static void
on_disk(void)
{
    WT_CONNECTION *conn;
    WT_CURSOR *c;
    WT_SESSION *s;
    const char *value;
    char got[512];

    ul_mkhome("collator", home, sizeof(home));
    open_home(&conn, &s, 1);
    reverse_table(s);
    nocase_table(s);
    OK(s->create(s, "table:big", "key_format=S,value_format=S,collator=reverse"));
    big_rows(s);
    OK(s->checkpoint(s, NULL));
    check_big(s);
    OK(s->verify(s, "table:big", NULL));

    /* A checkpoint cursor reads and searches in the collator's order too. */
    {
        const char *k;
        int exact;
        OK(s->open_cursor(s, "table:big", NULL, "checkpoint=WiredTigerCheckpoint", &c));
        OK(c->next(c));
        OK(c->get_key(c, &k));
        CHECK_STR(k, "k019999");
        c->set_key(c, "k012345");
        OK(c->search(c));
        OK(c->next(c));
        OK(c->get_key(c, &k));
        CHECK_STR(k, "k012344");
        c->set_key(c, "k0123455");
        OK(c->search_near(c, &exact));
        OK(c->get_key(c, &k));
        CHECK((exact > 0 && strcmp(k, "k012345") == 0) || (exact < 0 && strcmp(k, "k012346") == 0));
        OK(c->close(c));
    }

    OK(s->open_cursor(s, "metadata:", NULL, NULL, &c));
    c->set_key(c, "file:big.wt");
    OK(c->search(c));
    OK(c->get_value(c, &value));
    CHECK(strstr(value, "collator=reverse,") != NULL);
    OK(c->close(c));

    n_terminate = 0;
    OK(conn->close(conn, NULL));
    CHECK(n_terminate == 1);

    /* Reopened with the collators. */
    open_home(&conn, &s, 1);
    check_big(s);
    walk(s, "table:nc", 1, got, sizeof(got));
    CHECK_STR(got, "Apple cherry");
    OK(s->verify(s, "table:big", NULL));
    OK(conn->close(conn, NULL));

    /* Reopened without them: the reference's error at the table's first use. */
    open_home(&conn, &s, 0);
    ul_recorder_clear(&rec);
    c = NULL;
    CHECK_RC(s->open_cursor(s, "table:big", NULL, NULL, &c), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown collator 'reverse'");
    CHECK(c == NULL);
    OK(conn->add_collator(conn, "reverse", &reverse, NULL));
    check_big(s);
    OK(conn->close(conn, NULL));
    ul_rmhome(home);
}

static void
customizing(void)
{
    WT_CONNECTION *conn;
    WT_SESSION *s;
    char got[512];

    ul_open(&rec, "create,in_memory=true", &conn, &s);
    OK(conn->add_collator(conn, "custom", &custom, NULL));
    n_customize = n_custom_terminate = 0;
    OK(s->create(s, "table:cr", "key_format=S,value_format=S,collator=custom,app_metadata=reverse"));
    OK(s->create(s, "table:cf", "key_format=S,value_format=S,collator=custom"));
    put(s, "table:cr", "a", "1");
    put(s, "table:cr", "b", "2");
    put(s, "table:cf", "a", "1");
    put(s, "table:cf", "b", "2");
    walk(s, "table:cr", 1, got, sizeof(got));
    CHECK_STR(got, "b a");
    walk(s, "table:cf", 1, got, sizeof(got));
    CHECK_STR(got, "a b");
    CHECK(n_customize >= 2);
    OK(conn->close(conn, NULL));
    CHECK(n_custom_terminate == 1);
}

static void
in_memory(void)
{
    WT_CONNECTION *conn;
    WT_SESSION *s;

    ul_open(&rec, "create,in_memory=true", &conn, &s);
    ul_recorder_clear(&rec);
    CHECK_RC(s->create(s, "table:x", "key_format=S,value_format=S,collator=reverse"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown collator 'reverse'");
    register_all(conn);
    reverse_table(s);
    nocase_table(s);
    OK(conn->close(conn, NULL));
}

int
main(void)
{
    ul_recorder_init(&rec);
    in_memory();
    customizing();
    on_disk();
    return ul_done("collator");
}
