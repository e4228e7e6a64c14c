/*
 * Cursor semantics, row by row from api.md section 7 (and traces/README.md section 5.1/5.2), on
 * an S/S table holding exactly b, d, f (c and e are gaps). Every case starts from a fresh
 * cursor on a freshly restored table; another session restores the table, as the reference
 * traces do.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "util.h"

#define INMEM "create,in_memory=true"
#define URI "table:t"

static WT_CONNECTION *conn;
static WT_SESSION *s, *s2;
static ul_recorder rec;

#define VALUE_IS(c, want)                    \
    do {                                     \
        const char *v_ = NULL;               \
        OK((c)->get_value((c), &v_));        \
        CHECK_STR(v_, (want));               \
    } while (0)
#define NO_KEY(c)                                       \
    do {                                                \
        const char *k_ = NULL;                          \
        CHECK_RC((c)->get_key((c), &k_), EINVAL);       \
    } while (0)
#define NO_VALUE(c)                                     \
    do {                                                \
        const char *v_ = NULL;                          \
        CHECK_RC((c)->get_value((c), &v_), EINVAL);     \
    } while (0)
#define NEXT_IS(c, want)      \
    do {                      \
        OK((c)->next(c));     \
        KEY_IS((c), (want));  \
    } while (0)
#define PREV_IS(c, want)      \
    do {                      \
        OK((c)->prev(c));     \
        KEY_IS((c), (want));  \
    } while (0)

/* Restores the table to exactly b, d, f (values vb, vd, vf) through the other session. */
static void
restore(void)
{
    WT_CURSOR *c = NULL;
    const char *k;
    char keys[64][16];
    int i, n, ret;

    OK(s2->open_cursor(s2, URI, NULL, NULL, &c));
    if (c == NULL)
        return;
    n = 0;
    while ((ret = c->next(c)) == 0 && n < 64) {
        k = NULL;
        OK(c->get_key(c, &k));
        snprintf(keys[n++], sizeof(keys[0]), "%s", k == NULL ? "" : k);
    }
    for (i = 0; i < n; i++) {
        c->set_key(c, keys[i]);
        OK(c->remove(c));
    }
    c->set_key(c, "b");
    c->set_value(c, "vb");
    OK(c->insert(c));
    c->set_key(c, "d");
    c->set_value(c, "vd");
    OK(c->insert(c));
    c->set_key(c, "f");
    c->set_value(c, "vf");
    OK(c->insert(c));
    OK(c->close(c));
}

/* Restores the table and opens a fresh cursor in the test session. */
static WT_CURSOR *
fresh(const char *config)
{
    WT_CURSOR *c = NULL;

    restore();
    OK(s->open_cursor(s, URI, NULL, config, &c));
    if (c == NULL) {
        fprintf(stderr, "cannot open a cursor, giving up\n");
        exit(ul_done("cursor"));
    }
    return c;
}

/* The table holds exactly these keys and values: a NULL-terminated list of key, value pairs. */
#define CONTENTS(...) contents(__LINE__, (const char *[]){__VA_ARGS__, NULL})
static void
contents(int line, const char **kv)
{
    WT_CURSOR *c = NULL;
    const char *k, *v;
    int i, before = ul_failures;

    OK(s2->open_cursor(s2, URI, NULL, NULL, &c));
    if (c == NULL)
        return;
    for (i = 0; kv[i] != NULL; i += 2) {
        NEXT_IS(c, kv[i]);
        VALUE_IS(c, kv[i + 1]);
    }
    if (c->next(c) == 0) {
        k = v = NULL;
        (void)c->get_key(c, &k);
        (void)c->get_value(c, &v);
        fprintf(stderr, "unexpected record \"%s\" -> \"%s\"\n", k ? k : "?", v ? v : "?");
        CHECK(!"more records than expected");
    }
    OK(c->close(c));
    if (ul_failures != before)
        fprintf(stderr, "  (contents checked at line %d)\n", line);
}

/* Row: open / reset / reconfigure -> nothing set, unpositioned. */
static void
test_unpositioned(void)
{
    WT_CURSOR *c = fresh(NULL);
    int exact;

    CHECK_STR(c->uri, URI);
    CHECK_STR(c->key_format, "S");
    CHECK_STR(c->value_format, "S");
    CHECK(c->session == s);
    ul_recorder_clear(&rec);
    NO_KEY(c);
    CHECK_MSG(&rec, EINVAL, "requires key be set");
    ul_recorder_clear(&rec);
    NO_VALUE(c);
    CHECK_MSG(&rec, EINVAL, "requires value be set");

    /* next/prev from unpositioned: first/last. */
    NEXT_IS(c, "b");
    VALUE_IS(c, "vb");
    OK(c->reset(c));
    NO_KEY(c);
    NO_VALUE(c);
    PREV_IS(c, "f");
    VALUE_IS(c, "vf");

    /* reset again, then next. */
    OK(c->reset(c));
    OK(c->reset(c));
    NEXT_IS(c, "b");

    /* reconfigure resets. */
    c->set_key(c, "d");
    OK(c->search(c));
    OK(c->reconfigure(c, "overwrite=false"));
    NO_KEY(c);
    NO_VALUE(c);
    NEXT_IS(c, "b");
    c->set_key(c, "d");
    OK(c->search(c));
    OK(c->reconfigure(c, "overwrite=true"));
    NO_KEY(c);
    PREV_IS(c, "f");
    /* append=true is accepted on a row store and resets too (traces 5.1). */
    c->set_key(c, "d");
    OK(c->search(c));
    OK(c->reconfigure(c, "append=true"));
    NO_KEY(c);
    NEXT_IS(c, "b");
    /* An invalid reconfigure does not reset. */
    c->set_key(c, "d");
    OK(c->search(c));
    ul_recorder_clear(&rec);
    CHECK_RC(c->reconfigure(c, "bogus=1"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown configuration key 'bogus'");
    KEY_IS(c, "d");
    NEXT_IS(c, "f");
    CHECK_RC(c->reconfigure(c, "overwrite=maybe"), EINVAL);

    /* Operations needing a key on an unpositioned cursor: EINVAL. */
    OK(c->reset(c));
    ul_recorder_clear(&rec);
    CHECK_RC(c->search(c), EINVAL);
    CHECK_MSG(&rec, EINVAL, "requires key be set");
    ul_recorder_clear(&rec);
    CHECK_RC(c->search_near(c, &exact), EINVAL);
    CHECK_MSG(&rec, EINVAL, "requires key be set");
    CHECK_RC(c->remove(c), EINVAL);
    c->set_value(c, "x");
    ul_recorder_clear(&rec);
    CHECK_RC(c->insert(c), EINVAL);
    CHECK_MSG(&rec, EINVAL, "requires key be set");
    c->set_value(c, "x");
    CHECK_RC(c->update(c), EINVAL);
    NO_KEY(c);
    /* insert without a value. */
    OK(c->reset(c));
    c->set_key(c, "k");
    ul_recorder_clear(&rec);
    CHECK_RC(c->insert(c), EINVAL);
    CHECK_MSG(&rec, EINVAL, "requires value be set");
    c->set_key(c, "k");
    ul_recorder_clear(&rec);
    CHECK_RC(c->update(c), EINVAL);
    CHECK_MSG(&rec, EINVAL, "requires value be set");
    OK(c->close(c));
    CONTENTS("b", "vb", "d", "vd", "f", "vf");

    /* set_key / set_value then get_key / get_value return them, before any other call. */
    c = fresh(NULL);
    c->set_key(c, "just-set");
    KEY_IS(c, "just-set");
    NO_VALUE(c);
    c->set_value(c, "value-set");
    VALUE_IS(c, "value-set");
    KEY_IS(c, "just-set");
    /* The latest set_key wins. */
    c->set_key(c, "again");
    KEY_IS(c, "again");
    OK(c->close(c));
}

/* Rows: next/prev on an empty table; search/search_near on it. */
static void
test_empty_table(void)
{
    WT_CURSOR *c = NULL;
    int exact = 99;

    OK(s->create(s, "table:empty", "key_format=S,value_format=S"));
    OK(s->open_cursor(s, "table:empty", NULL, NULL, &c));
    if (c == NULL)
        return;
    CHECK_RC(c->next(c), WT_NOTFOUND);
    NO_KEY(c);
    NO_VALUE(c);
    CHECK_RC(c->prev(c), WT_NOTFOUND);
    NO_KEY(c);
    c->set_key(c, "a");
    CHECK_RC(c->search(c), WT_NOTFOUND);
    KEY_IS(c, "a");
    c->set_key(c, "a");
    CHECK_RC(c->search_near(c, &exact), WT_NOTFOUND);
    /* The key that was set stays readable (traces 5.2). */
    KEY_IS(c, "a");
    NO_VALUE(c);
    c->set_key(c, "a");
    CHECK_RC(c->remove(c), WT_NOTFOUND);
    OK(c->reconfigure(c, "overwrite=false"));
    c->set_key(c, "a");
    c->set_value(c, "x");
    CHECK_RC(c->update(c), WT_NOTFOUND);
    CHECK_RC(c->next(c), WT_NOTFOUND);

    /* One record, then empty again. */
    c->set_key(c, "only");
    c->set_value(c, "one");
    OK(c->insert(c));
    NEXT_IS(c, "only");
    CHECK_RC(c->next(c), WT_NOTFOUND);
    PREV_IS(c, "only");
    CHECK_RC(c->prev(c), WT_NOTFOUND);
    c->set_key(c, "only");
    OK(c->remove(c));
    CHECK_RC(c->next(c), WT_NOTFOUND);
    CHECK_RC(c->prev(c), WT_NOTFOUND);
    c->set_key(c, "only");
    CHECK_RC(c->search_near(c, &exact), WT_NOTFOUND);
    OK(c->close(c));
}

/* Rows: next/prev off the end and wrapping; full scans. */
static void
test_iteration(void)
{
    WT_CURSOR *c = fresh(NULL);
    int i;

    for (i = 0; i < 2; i++) {
        NEXT_IS(c, "b");
        VALUE_IS(c, "vb");
        NEXT_IS(c, "d");
        VALUE_IS(c, "vd");
        NEXT_IS(c, "f");
        VALUE_IS(c, "vf");
        CHECK_RC(c->next(c), WT_NOTFOUND);
        NO_KEY(c);
        NO_VALUE(c);
        /* and the following next wraps to the first record */
    }
    for (i = 0; i < 2; i++) {
        PREV_IS(c, "f");
        PREV_IS(c, "d");
        PREV_IS(c, "b");
        VALUE_IS(c, "vb");
        CHECK_RC(c->prev(c), WT_NOTFOUND);
        NO_KEY(c);
        NO_VALUE(c);
    }
    /* next on the last record -> NOTFOUND; then prev starts from the last. */
    c->set_key(c, "f");
    OK(c->search(c));
    CHECK_RC(c->next(c), WT_NOTFOUND);
    PREV_IS(c, "f");
    /* prev on the first record -> NOTFOUND; then next starts from the first. */
    c->set_key(c, "b");
    OK(c->search(c));
    CHECK_RC(c->prev(c), WT_NOTFOUND);
    NEXT_IS(c, "b");
    /* direction changes in the middle */
    NEXT_IS(c, "d");
    PREV_IS(c, "b");
    NEXT_IS(c, "d");
    NEXT_IS(c, "f");
    PREV_IS(c, "d");
    OK(c->close(c));
}

/* Rows: search hit / miss. */
static void
test_search(void)
{
    WT_CURSOR *c = fresh(NULL);

    c->set_key(c, "d");
    OK(c->search(c));
    KEY_IS(c, "d");
    VALUE_IS(c, "vd");
    NEXT_IS(c, "f");
    c->set_key(c, "d");
    OK(c->search(c));
    PREV_IS(c, "b");

    /* miss: key kept, no value, unpositioned */
    c->set_key(c, "c");
    CHECK_RC(c->search(c), WT_NOTFOUND);
    KEY_IS(c, "c");
    NO_VALUE(c);
    NEXT_IS(c, "b");
    c->set_key(c, "c");
    CHECK_RC(c->search(c), WT_NOTFOUND);
    PREV_IS(c, "f");
    /* a miss after being positioned */
    c->set_key(c, "d");
    OK(c->search(c));
    c->set_key(c, "e");
    CHECK_RC(c->search(c), WT_NOTFOUND);
    KEY_IS(c, "e");
    NO_VALUE(c);
    NEXT_IS(c, "b");
    /* misses outside the key range */
    c->set_key(c, "a");
    CHECK_RC(c->search(c), WT_NOTFOUND);
    c->set_key(c, "g");
    CHECK_RC(c->search(c), WT_NOTFOUND);
    c->set_key(c, "");
    CHECK_RC(c->search(c), WT_NOTFOUND);
    /* a prefix is not a match */
    c->set_key(c, "dd");
    CHECK_RC(c->search(c), WT_NOTFOUND);
    OK(c->close(c));
}

/* Rows: search_near. */
static void
test_search_near(void)
{
    WT_CURSOR *c = fresh(NULL);
    int exact;

    /* neighbours on both sides: the larger one */
    c->set_key(c, "c");
    exact = 99;
    OK(c->search_near(c, &exact));
    CHECK(exact == 1);
    KEY_IS(c, "d");
    VALUE_IS(c, "vd");
    NEXT_IS(c, "f");
    /* only larger keys */
    c->set_key(c, "a");
    exact = 99;
    OK(c->search_near(c, &exact));
    CHECK(exact == 1);
    KEY_IS(c, "b");
    VALUE_IS(c, "vb");
    /* only smaller keys */
    c->set_key(c, "g");
    exact = 99;
    OK(c->search_near(c, &exact));
    CHECK(exact == -1);
    KEY_IS(c, "f");
    VALUE_IS(c, "vf");
    PREV_IS(c, "d");
    /* exact */
    c->set_key(c, "d");
    exact = 99;
    OK(c->search_near(c, &exact));
    CHECK(exact == 0);
    KEY_IS(c, "d");
    VALUE_IS(c, "vd");
    PREV_IS(c, "b");
    /* after a failed search of c, the key is still set */
    c->set_key(c, "c");
    CHECK_RC(c->search(c), WT_NOTFOUND);
    exact = 99;
    OK(c->search_near(c, &exact));
    CHECK(exact == 1);
    KEY_IS(c, "d");
    VALUE_IS(c, "vd");
    /* a longer key than an existing one: "dd" sits between d and f */
    c->set_key(c, "dd");
    exact = 99;
    OK(c->search_near(c, &exact));
    CHECK(exact == 1);
    KEY_IS(c, "f");
    OK(c->close(c));
}

/* Rows: insert with overwrite=true. */
static void
test_insert_overwrite(void)
{
    WT_CURSOR *c = fresh(NULL);

    /* new key while positioned: 0, nothing set, unpositioned */
    c->set_key(c, "d");
    OK(c->search(c));
    c->set_key(c, "e");
    c->set_value(c, "ve");
    OK(c->insert(c));
    NO_KEY(c);
    NO_VALUE(c);
    NEXT_IS(c, "b");
    /* existing key: replaced */
    c->set_key(c, "d");
    c->set_value(c, "vd2");
    OK(c->insert(c));
    NO_KEY(c);
    NO_VALUE(c);
    PREV_IS(c, "f");
    c->set_key(c, "d");
    OK(c->search(c));
    VALUE_IS(c, "vd2");
    OK(c->close(c));

    /* no set_key, positioned on b: b gets the new value, cursor unpositioned */
    c = fresh(NULL);
    c->set_key(c, "b");
    OK(c->search(c));
    c->set_value(c, "vb2");
    OK(c->insert(c));
    NO_KEY(c);
    NEXT_IS(c, "b");
    VALUE_IS(c, "vb2");
    OK(c->close(c));
    CONTENTS("b", "vb2", "d", "vd", "f", "vf");

    /* no set_key after a failed search of c: c inserted */
    c = fresh(NULL);
    c->set_key(c, "c");
    CHECK_RC(c->search(c), WT_NOTFOUND);
    c->set_value(c, "vc");
    OK(c->insert(c));
    NO_KEY(c);
    NO_VALUE(c);
    NEXT_IS(c, "b");
    NEXT_IS(c, "c");
    VALUE_IS(c, "vc");
    OK(c->close(c));

    /* empty value allowed */
    c = fresh(NULL);
    c->set_key(c, "d");
    c->set_value(c, "");
    OK(c->insert(c));
    c->set_key(c, "d");
    OK(c->search(c));
    VALUE_IS(c, "");
    /* empty string key is a valid S key: packs to one NUL byte, sorts first */
    c->set_key(c, "");
    c->set_value(c, "empty key");
    OK(c->insert(c));
    NEXT_IS(c, "");
    VALUE_IS(c, "empty key");
    OK(c->close(c));
}

/* Rows: insert with overwrite=false. */
static void
test_insert_no_overwrite(void)
{
    WT_CURSOR *c = fresh("overwrite=false");

    /* new key */
    c->set_key(c, "e");
    c->set_value(c, "ve");
    OK(c->insert(c));
    NO_KEY(c);
    NO_VALUE(c);
    NEXT_IS(c, "b");
    /* existing key, from unpositioned: WT_DUPLICATE_KEY, key and stored value readable */
    OK(c->reset(c));
    c->set_key(c, "d");
    c->set_value(c, "NEW");
    CHECK_RC(c->insert(c), WT_DUPLICATE_KEY);
    KEY_IS(c, "d");
    VALUE_IS(c, "vd");
    NEXT_IS(c, "b");
    /* existing key, from positioned on b: same outcome */
    c->set_key(c, "b");
    OK(c->search(c));
    c->set_key(c, "d");
    c->set_value(c, "NEW");
    CHECK_RC(c->insert(c), WT_DUPLICATE_KEY);
    KEY_IS(c, "d");
    VALUE_IS(c, "vd");
    PREV_IS(c, "f");
    OK(c->close(c));
    CONTENTS("b", "vb", "d", "vd", "e", "ve", "f", "vf");

    /* no set_key, positioned on b: WT_DUPLICATE_KEY with key b and its stored value */
    c = fresh("overwrite=false");
    c->set_key(c, "b");
    OK(c->search(c));
    c->set_value(c, "NEW");
    CHECK_RC(c->insert(c), WT_DUPLICATE_KEY);
    KEY_IS(c, "b");
    VALUE_IS(c, "vb");
    NEXT_IS(c, "b");
    OK(c->close(c));
    CONTENTS("b", "vb", "d", "vd", "f", "vf");

    /* reconfigure switches it on and off */
    c = fresh(NULL);
    OK(c->reconfigure(c, "overwrite=false"));
    c->set_key(c, "f");
    c->set_value(c, "x");
    CHECK_RC(c->insert(c), WT_DUPLICATE_KEY);
    OK(c->reconfigure(c, "overwrite=true"));
    c->set_key(c, "f");
    c->set_value(c, "x");
    OK(c->insert(c));
    OK(c->close(c));
    CONTENTS("b", "vb", "d", "vd", "f", "x");
}

/* Rows: update. */
static void
test_update(void)
{
    WT_CURSOR *c;
    int overwrite;

    for (overwrite = 0; overwrite < 2; overwrite++) {
        /* key exists: 0, positioned there with the new value */
        c = fresh(overwrite ? "overwrite=true" : "overwrite=false");
        c->set_key(c, "d");
        c->set_value(c, "nd");
        OK(c->update(c));
        KEY_IS(c, "d");
        VALUE_IS(c, "nd");
        NEXT_IS(c, "f");
        c->set_key(c, "d");
        c->set_value(c, "nd2");
        OK(c->update(c));
        PREV_IS(c, "b");
        /* no set_key, positioned on b: b updated, stays positioned */
        c->set_key(c, "b");
        OK(c->search(c));
        c->set_value(c, "nb");
        OK(c->update(c));
        KEY_IS(c, "b");
        VALUE_IS(c, "nb");
        NEXT_IS(c, "d");
        OK(c->close(c));
        CONTENTS("b", "nb", "d", "nd2", "f", "vf");
    }

    /* overwrite=true, key absent: inserted and positioned there */
    c = fresh(NULL);
    c->set_key(c, "e");
    c->set_value(c, "ve");
    OK(c->update(c));
    KEY_IS(c, "e");
    VALUE_IS(c, "ve");
    NEXT_IS(c, "f");
    OK(c->close(c));

    /* overwrite=false, key absent: WT_NOTFOUND, key and the application's value kept */
    c = fresh("overwrite=false");
    c->set_key(c, "e");
    c->set_value(c, "ve");
    CHECK_RC(c->update(c), WT_NOTFOUND);
    KEY_IS(c, "e");
    VALUE_IS(c, "ve");
    NEXT_IS(c, "b");
    OK(c->close(c));
    CONTENTS("b", "vb", "d", "vd", "f", "vf");
}

/* Rows: remove. */
static void
test_remove(void)
{
    WT_CURSOR *c;
    int overwrite;

    /* positioned (after search): the key stays readable, value not; position kept */
    c = fresh(NULL);
    c->set_key(c, "d");
    OK(c->search(c));
    OK(c->remove(c));
    KEY_IS(c, "d");
    NO_VALUE(c);
    NEXT_IS(c, "f");
    OK(c->close(c));
    CONTENTS("b", "vb", "f", "vf");

    c = fresh(NULL);
    c->set_key(c, "d");
    OK(c->search(c));
    OK(c->remove(c));
    PREV_IS(c, "b");
    OK(c->close(c));

    /* positioned on the first record: next -> following, prev -> WT_NOTFOUND */
    c = fresh(NULL);
    NEXT_IS(c, "b");
    OK(c->remove(c));
    KEY_IS(c, "b");
    NEXT_IS(c, "d");
    OK(c->close(c));
    c = fresh(NULL);
    NEXT_IS(c, "b");
    OK(c->remove(c));
    CHECK_RC(c->prev(c), WT_NOTFOUND);
    OK(c->close(c));

    for (overwrite = 0; overwrite < 2; overwrite++) {
        /* only a key set: 0, nothing readable, unpositioned */
        c = fresh(overwrite ? "overwrite=true" : "overwrite=false");
        c->set_key(c, "d");
        OK(c->remove(c));
        NO_KEY(c);
        NO_VALUE(c);
        NEXT_IS(c, "b");
        NEXT_IS(c, "f");
        /* a key set while positioned elsewhere: unpositioned afterwards */
        c->set_key(c, "b");
        OK(c->search(c));
        c->set_key(c, "f");
        OK(c->remove(c));
        NO_KEY(c);
        NEXT_IS(c, "b");
        CHECK_RC(c->next(c), WT_NOTFOUND);
        OK(c->close(c));
        CONTENTS("b", "vb");

        /* key missing: WT_NOTFOUND whatever overwrite is; key kept, unpositioned */
        c = fresh(overwrite ? "overwrite=true" : "overwrite=false");
        c->set_key(c, "e");
        CHECK_RC(c->remove(c), WT_NOTFOUND);
        KEY_IS(c, "e");
        NO_VALUE(c);
        NEXT_IS(c, "b");
        c->set_key(c, "d");
        OK(c->search(c));
        c->set_key(c, "c");
        CHECK_RC(c->remove(c), WT_NOTFOUND);
        KEY_IS(c, "c");
        NEXT_IS(c, "b");
        OK(c->close(c));
        CONTENTS("b", "vb", "d", "vd", "f", "vf");
    }

    /* a removed record is gone for search and scans */
    c = fresh(NULL);
    c->set_key(c, "d");
    OK(c->remove(c));
    c->set_key(c, "d");
    CHECK_RC(c->search(c), WT_NOTFOUND);
    int exact = 99;
    c->set_key(c, "d");
    OK(c->search_near(c, &exact));
    CHECK(exact == 1);
    KEY_IS(c, "f");
    /* and can be inserted again */
    c->set_key(c, "d");
    c->set_value(c, "again");
    OK(c->insert(c));
    c->set_key(c, "d");
    OK(c->search(c));
    VALUE_IS(c, "again");
    OK(c->close(c));
}

/* compare / equals */
static void
test_compare(void)
{
    WT_CURSOR *a, *b, *other = NULL;
    int cmp, eq;

    a = fresh(NULL);
    b = NULL;
    OK(s->open_cursor(s, URI, NULL, NULL, &b));
    if (b == NULL)
        return;
    /* keys only set, not positioned */
    a->set_key(a, "b");
    b->set_key(b, "d");
    cmp = 99;
    OK(a->compare(a, b, &cmp));
    CHECK(cmp == -1);
    OK(b->compare(b, a, &cmp));
    CHECK(cmp == 1);
    eq = 99;
    OK(a->equals(a, b, &eq));
    CHECK(eq == 0);
    b->set_key(b, "b");
    OK(a->compare(a, b, &cmp));
    CHECK(cmp == 0);
    OK(a->equals(a, b, &eq));
    CHECK(eq == 1);
    /* with itself */
    OK(a->compare(a, a, &cmp));
    CHECK(cmp == 0);
    /* a prefix sorts first */
    a->set_key(a, "d");
    b->set_key(b, "dd");
    OK(a->compare(a, b, &cmp));
    CHECK(cmp == -1);
    /* positioned cursors */
    OK(a->reset(a));
    OK(b->reset(b));
    NEXT_IS(a, "b");
    PREV_IS(b, "f");
    OK(a->compare(a, b, &cmp));
    CHECK(cmp == -1);
    OK(b->compare(b, a, &cmp));
    CHECK(cmp == 1);
    OK(a->equals(a, b, &eq));
    CHECK(eq == 0);
    NEXT_IS(a, "d");
    PREV_IS(b, "d");
    OK(a->compare(a, b, &cmp));
    CHECK(cmp == 0);
    OK(b->equals(b, a, &eq));
    CHECK(eq == 1);
    /* a cursor in another session on the same table */
    OK(s2->open_cursor(s2, URI, NULL, NULL, &other));
    if (other != NULL) {
        other->set_key(other, "f");
        OK(a->compare(a, other, &cmp));
        CHECK(cmp == -1);
        OK(other->compare(other, a, &cmp));
        CHECK(cmp == 1);
        OK(other->close(other));
    }

    /* missing key: EINVAL */
    OK(b->reset(b));
    ul_recorder_clear(&rec);
    CHECK_RC(a->compare(a, b, &cmp), EINVAL);
    CHECK_MSG(&rec, EINVAL, "requires key be set");
    CHECK_RC(b->compare(b, a, &cmp), EINVAL);
    CHECK_RC(a->equals(a, b, &eq), EINVAL);
    CHECK_RC(b->equals(b, a, &eq), EINVAL);

    /* different tables: EINVAL */
    OK(s->create(s, "table:other", "key_format=S,value_format=S"));
    other = NULL;
    OK(s->open_cursor(s, "table:other", NULL, NULL, &other));
    if (other != NULL) {
        other->set_key(other, "d");
        a->set_key(a, "d");
        ul_recorder_clear(&rec);
        CHECK_RC(a->compare(a, other, &cmp), EINVAL);
        CHECK_MSG(&rec, EINVAL, "cursors must reference the same object");
        ul_recorder_clear(&rec);
        CHECK_RC(a->equals(a, other, &eq), EINVAL);
        CHECK_MSG(&rec, EINVAL, "cursors must reference the same object");
        CHECK_RC(other->compare(other, a, &cmp), EINVAL);
        OK(other->close(other));
    }
    OK(a->close(a));
    OK(b->close(b));
}

/* open_cursor with to_dup */
static void
test_dup(void)
{
    WT_CURSOR *c = fresh(NULL), *dup = NULL;

    c->set_key(c, "d");
    OK(c->search(c));
    OK(s->open_cursor(s, NULL, c, NULL, &dup));
    if (dup != NULL) {
        CHECK(dup != c);
        CHECK_STR(dup->uri, URI);
        CHECK_STR(dup->key_format, "S");
        CHECK_STR(dup->value_format, "S");
        KEY_IS(dup, "d");
        VALUE_IS(dup, "vd");
        NEXT_IS(dup, "f");
        /* the original is unaffected */
        KEY_IS(c, "d");
        PREV_IS(c, "b");
        OK(dup->close(dup));
    }
    /* the copy takes the configuration given to open_cursor */
    c->set_key(c, "d");
    OK(c->search(c));
    dup = NULL;
    OK(s->open_cursor(s, NULL, c, "overwrite=false", &dup));
    if (dup != NULL) {
        dup->set_key(dup, "d");
        dup->set_value(dup, "x");
        CHECK_RC(dup->insert(dup), WT_DUPLICATE_KEY);
        OK(dup->close(dup));
    }

    /* dup of a cursor without a key: EINVAL */
    OK(c->reset(c));
    dup = NULL;
    ul_recorder_clear(&rec);
    CHECK_RC(s->open_cursor(s, NULL, c, NULL, &dup), EINVAL);
    CHECK_MSG(&rec, EINVAL, "requires key be set");

    /* neither or both of uri / to_dup: EINVAL */
    dup = NULL;
    ul_recorder_clear(&rec);
    CHECK_RC(s->open_cursor(s, NULL, NULL, NULL, &dup), EINVAL);
    CHECK_MSG(&rec, EINVAL, "should be passed either a URI or a cursor to duplicate, but not both");
    c->set_key(c, "d");
    OK(c->search(c));
    ul_recorder_clear(&rec);
    CHECK_RC(s->open_cursor(s, URI, c, NULL, &dup), EINVAL);
    CHECK_MSG(&rec, EINVAL, "should be passed either a URI or a cursor to duplicate, but not both");
    OK(c->close(c));
}

/* Empty raw key: EINVAL at the operation, never a crash; empty values are fine. */
static void
test_empty_keys(void)
{
    WT_CURSOR *c = NULL;
    WT_ITEM k, v, out;

    OK(s->create(s, "table:raw", "key_format=u,value_format=u"));
    OK(s->open_cursor(s, "table:raw", NULL, NULL, &c));
    if (c == NULL)
        return;
    memset(&k, 0, sizeof(k));
    memset(&v, 0, sizeof(v));
    k.data = "";
    k.size = 0;
    v.data = "v";
    v.size = 1;
    c->set_key(c, &k);
    c->set_value(c, &v);
    ul_recorder_clear(&rec);
    CHECK_RC(c->insert(c), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Empty keys not permitted");
    c->set_key(c, &k);
    ul_recorder_clear(&rec);
    CHECK_RC(c->search(c), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Empty keys not permitted");
    c->set_key(c, &k);
    c->set_value(c, &v);
    CHECK_RC(c->update(c), EINVAL);
    c->set_key(c, &k);
    CHECK_RC(c->remove(c), EINVAL);
    int exact;
    c->set_key(c, &k);
    CHECK_RC(c->search_near(c, &exact), EINVAL);
    CHECK_RC(c->next(c), WT_NOTFOUND);

    /* The connection is healthy: a real key works, and an empty value is allowed. */
    k.data = "k";
    k.size = 1;
    v.data = "";
    v.size = 0;
    c->set_key(c, &k);
    c->set_value(c, &v);
    OK(c->insert(c));
    c->set_key(c, &k);
    OK(c->search(c));
    memset(&out, 0xff, sizeof(out));
    OK(c->get_value(c, &out));
    CHECK(out.size == 0);
    CHECK_RC(c->next(c), WT_NOTFOUND);
    OK(c->close(c));
}

/* readonly=true cursors: reads work, writes ENOTSUP. */
static void
test_readonly(void)
{
    WT_CURSOR *c = fresh("readonly=true");

    NEXT_IS(c, "b");
    c->set_key(c, "d");
    OK(c->search(c));
    VALUE_IS(c, "vd");
    c->set_key(c, "x");
    c->set_value(c, "y");
    ul_recorder_clear(&rec);
    CHECK_RC(c->insert(c), ENOTSUP);
    CHECK_MSG(&rec, ENOTSUP, "Unsupported cursor operation");
    c->set_key(c, "d");
    c->set_value(c, "y");
    CHECK_RC(c->update(c), ENOTSUP);
    c->set_key(c, "d");
    CHECK_RC(c->remove(c), ENOTSUP);
    OK(c->close(c));
    CONTENTS("b", "vb", "d", "vd", "f", "vf");
    c = fresh("readonly=false");
    c->set_key(c, "x");
    c->set_value(c, "y");
    OK(c->insert(c));
    OK(c->close(c));
}

/* Two cursors (same session and different sessions) see each other's writes. */
static void
test_two_cursors(void)
{
    WT_CURSOR *a = fresh(NULL), *b = NULL, *o = NULL;

    OK(s->open_cursor(s, URI, NULL, NULL, &b));
    OK(s2->open_cursor(s2, URI, NULL, NULL, &o));
    if (b == NULL || o == NULL)
        return;

    /* same session */
    a->set_key(a, "c");
    a->set_value(a, "vc");
    OK(a->insert(a));
    b->set_key(b, "c");
    OK(b->search(b));
    VALUE_IS(b, "vc");
    OK(b->reset(b));
    a->set_key(a, "c");
    a->set_value(a, "vc2");
    OK(a->update(a));
    OK(a->reset(a));
    b->set_key(b, "c");
    OK(b->search(b));
    VALUE_IS(b, "vc2");
    OK(b->remove(b));
    OK(b->reset(b));
    a->set_key(a, "c");
    CHECK_RC(a->search(a), WT_NOTFOUND);

    /* another session (no cursor of the reading session left positioned) */
    o->set_key(o, "e");
    o->set_value(o, "ve");
    OK(o->insert(o));
    OK(o->reset(o));
    a->set_key(a, "e");
    OK(a->search(a));
    VALUE_IS(a, "ve");
    OK(a->reset(a));
    a->set_key(a, "e");
    OK(a->remove(a));
    OK(a->reset(a));
    o->set_key(o, "e");
    CHECK_RC(o->search(o), WT_NOTFOUND);
    /* scans see the other's inserts */
    o->set_key(o, "a");
    o->set_value(o, "va");
    OK(o->insert(o));
    o->set_key(o, "g");
    o->set_value(o, "vg");
    OK(o->insert(o));
    OK(o->reset(o));
    NEXT_IS(a, "a");
    OK(a->reset(a));
    PREV_IS(a, "g");
    OK(a->reset(a));
    OK(a->close(a));
    OK(b->close(b));
    OK(o->close(o));
}

/* Session reset and session reconfigure reset the session's cursors. */
static void
test_session_reset(void)
{
    WT_CURSOR *c = fresh(NULL);

    c->set_key(c, "d");
    OK(c->search(c));
    OK(s->reset(s));
    NO_KEY(c);
    NO_VALUE(c);
    NEXT_IS(c, "b");
    c->set_key(c, "d");
    OK(c->search(c));
    OK(s->reconfigure(s, "isolation=snapshot"));
    NO_KEY(c);
    NEXT_IS(c, "b");

    /* Every cursor of the session, positioned or holding a key and value; other sessions'
     * cursors are untouched. */
    WT_CURSOR *k = NULL, *o = NULL;
    OK(s->open_cursor(s, URI, NULL, NULL, &k));
    OK(s2->open_cursor(s2, URI, NULL, NULL, &o));
    if (k != NULL && o != NULL) {
        c->set_key(c, "d");
        OK(c->search(c));
        k->set_key(k, "zz");
        k->set_value(k, "vv");
        NEXT_IS(o, "b");
        OK(s->reset(s));
        NO_KEY(c);
        NO_VALUE(c);
        NO_KEY(k);
        NO_VALUE(k);
        KEY_IS(o, "b");
        NEXT_IS(o, "d");
        OK(k->close(k));
        OK(o->close(o));
    }
    OK(c->close(c));
}

/*
 * Failed auto-commit writes reset cursors of the session (api.md section 7, last rows, as
 * refined by traces/README.md 5.4/5.5: the walk goes from the most recently opened cursor to the
 * oldest and stops once no cursor of the session is positioned).
 */
static void
test_failed_write_resets(void)
{
    WT_CURSOR *older, *newer;

    /* The newer cursor fails while the older one is positioned: both are reset. */
    older = fresh(NULL);
    newer = NULL;
    OK(s->open_cursor(s, URI, NULL, "overwrite=false", &newer));
    if (newer == NULL)
        return;
    older->set_key(older, "d");
    OK(older->search(older));
    newer->set_key(newer, "b");
    newer->set_value(newer, "x");
    CHECK_RC(newer->insert(newer), WT_DUPLICATE_KEY);
    NO_KEY(newer);
    NO_VALUE(newer);
    NO_KEY(older);
    NO_VALUE(older);
    NEXT_IS(older, "b");
    /* same with WT_NOTFOUND from update (overwrite=false) and remove */
    older->set_key(older, "d");
    OK(older->search(older));
    newer->set_key(newer, "e");
    newer->set_value(newer, "x");
    CHECK_RC(newer->update(newer), WT_NOTFOUND);
    NO_KEY(newer);
    NO_KEY(older);
    PREV_IS(older, "f");
    older->set_key(older, "d");
    OK(older->search(older));
    newer->set_key(newer, "e");
    CHECK_RC(newer->remove(newer), WT_NOTFOUND);
    NO_KEY(newer);
    NO_KEY(older);
    NEXT_IS(older, "b");
    OK(newer->close(newer));
    OK(older->close(older));

    /* The older cursor fails while the newer one is positioned: the newer one is reset, the
     * failing one keeps its key (and the stored value after WT_DUPLICATE_KEY). */
    older = fresh("overwrite=false");
    newer = NULL;
    OK(s->open_cursor(s, URI, NULL, NULL, &newer));
    if (newer == NULL)
        return;
    newer->set_key(newer, "f");
    OK(newer->search(newer));
    older->set_key(older, "d");
    older->set_value(older, "x");
    CHECK_RC(older->insert(older), WT_DUPLICATE_KEY);
    NO_KEY(newer);
    NEXT_IS(newer, "b");
    KEY_IS(older, "d");
    VALUE_IS(older, "vd");
    OK(newer->reset(newer));
    newer->set_key(newer, "f");
    OK(newer->search(newer));
    older->set_key(older, "e");
    CHECK_RC(older->remove(older), WT_NOTFOUND);
    NO_KEY(newer);
    KEY_IS(older, "e");
    OK(newer->close(newer));
    OK(older->close(older));
    CONTENTS("b", "vb", "d", "vd", "f", "vf");
}

/* Auto-commit writes are allowed only at snapshot isolation (api.md section 5, traces 5.7);
 * the existence checks come first. */
static void
test_isolation_writes(void)
{
    WT_CURSOR *c;
    const char *levels[] = {"isolation=read-committed", "isolation=read-uncommitted"};
    int i;

    for (i = 0; i < 2; i++) {
        c = fresh(NULL);
        OK(s->reconfigure(s, levels[i]));
        c->set_key(c, "x");
        c->set_value(c, "y");
        ul_recorder_clear(&rec);
        CHECK_RC(c->insert(c), ENOTSUP);
        CHECK_MSG(&rec, ENOTSUP,
          "write operations are not supported in read-committed or read-uncommitted transactions.");
        c->set_key(c, "d");
        c->set_value(c, "y");
        CHECK_RC(c->update(c), ENOTSUP);
        c->set_key(c, "d");
        CHECK_RC(c->remove(c), ENOTSUP);
        /* existence checks first */
        c->set_key(c, "e");
        CHECK_RC(c->remove(c), WT_NOTFOUND);
        OK(c->reconfigure(c, "overwrite=false"));
        c->set_key(c, "d");
        c->set_value(c, "y");
        CHECK_RC(c->insert(c), WT_DUPLICATE_KEY);
        c->set_key(c, "e");
        c->set_value(c, "y");
        CHECK_RC(c->update(c), WT_NOTFOUND);
        /* reads work */
        c->set_key(c, "d");
        OK(c->search(c));
        VALUE_IS(c, "vd");
        OK(s->reconfigure(s, "isolation=snapshot"));
        c->set_key(c, "x");
        c->set_value(c, "y");
        OK(c->insert(c));
        OK(c->close(c));
        CONTENTS("b", "vb", "d", "vd", "f", "vf", "x", "y");
    }
}

/* Closed cursors are cached and handed back by the next open (cursor-cache.md sections 1-2). */
static void
test_cache(void)
{
    WT_CURSOR *c = fresh(NULL), *c2 = NULL, *c3 = NULL;
    WT_ITEM item;

    c->set_key(c, "d");
    OK(c->search(c));
    OK(c->close(c));
    /* reopen: the same handle, reset */
    OK(s->open_cursor(s, URI, NULL, NULL, &c2));
    if (c2 == NULL)
        return;
    /* Handle identity (the same WT_CURSOR * back) arrives with the cursor cache issue. */
    CHECK_STR(c2->uri, URI);
    CHECK_STR(c2->key_format, "S");
    NO_KEY(c2);
    NO_VALUE(c2);
    NEXT_IS(c2, "b");
    OK(c2->close(c2));
    /* overwrite comes from the new config */
    c2 = NULL;
    OK(s->open_cursor(s, URI, NULL, "overwrite=false", &c2));
    if (c2 == NULL)
        return;
    c2->set_key(c2, "d");
    c2->set_value(c2, "x");
    CHECK_RC(c2->insert(c2), WT_DUPLICATE_KEY);
    OK(c2->close(c2));
    c2 = NULL;
    OK(s->open_cursor(s, URI, NULL, NULL, &c2));
    if (c2 == NULL)
        return;
    c2->set_key(c2, "d");
    c2->set_value(c2, "x");
    OK(c2->insert(c2));
    OK(c2->close(c2));
    /* raw too */
    c2 = NULL;
    OK(s->open_cursor(s, URI, NULL, "raw", &c2));
    if (c2 == NULL)
        return;
    OK(c2->next(c2));
    memset(&item, 0, sizeof(item));
    OK(c2->get_key(c2, &item));
    CHECK(item.size == 2 && memcmp(item.data, "b", 2) == 0);
    OK(c2->close(c2));
    c2 = NULL;
    OK(s->open_cursor(s, URI, NULL, NULL, &c2));
    if (c2 == NULL)
        return;
    NEXT_IS(c2, "b");
    /* two cached cursors, two reuses */
    OK(s->open_cursor(s, URI, NULL, NULL, &c3));
    if (c3 == NULL)
        return;
    OK(c2->close(c2));
    OK(c3->close(c3));
    WT_CURSOR *x = NULL, *y = NULL;
    OK(s->open_cursor(s, URI, NULL, NULL, &x));
    OK(s->open_cursor(s, URI, NULL, NULL, &y));
    CHECK(x != NULL && y != NULL && x != y);
    if (x != NULL)
        OK(x->close(x));
    if (y != NULL)
        OK(y->close(y));

    /* A cached cursor does not block drop; afterwards the object is gone or new. */
    OK(s->create(s, "table:cached", "key_format=S,value_format=S"));
    c = NULL;
    OK(s->open_cursor(s, "table:cached", NULL, NULL, &c));
    if (c == NULL)
        return;
    c->set_key(c, "k");
    c->set_value(c, "v");
    OK(c->insert(c));
    OK(c->close(c));
    OK(s->drop(s, "table:cached", NULL));
    c = NULL;
    CHECK_RC(s->open_cursor(s, "table:cached", NULL, NULL, &c), ENOENT);
    OK(s->create(s, "table:cached", "key_format=i,value_format=S"));
    c = NULL;
    OK(s->open_cursor(s, "table:cached", NULL, NULL, &c));
    if (c != NULL) {
        CHECK_STR(c->key_format, "i");
        CHECK_RC(c->next(c), WT_NOTFOUND);
        OK(c->close(c));
    }
    /* and a cached cursor in another session does not block either */
    c = NULL;
    OK(s2->open_cursor(s2, "table:cached", NULL, NULL, &c));
    if (c != NULL)
        OK(c->close(c));
    OK(s->drop(s, "table:cached", NULL));
}

int
main(void)
{
    ul_recorder_init(&rec);
    ul_open(&rec, INMEM, &conn, &s);
    OK(conn->open_session(conn, NULL, NULL, &s2));
    OK(s->create(s, URI, "key_format=S,value_format=S"));

    test_unpositioned();
    test_empty_table();
    test_iteration();
    test_search();
    test_search_near();
    test_insert_overwrite();
    test_insert_no_overwrite();
    test_update();
    test_remove();
    test_compare();
    test_dup();
    test_empty_keys();
    test_readonly();
    test_two_cursors();
    test_session_reset();
    test_failed_write_resets();
    test_isolation_writes();
    test_cache();

    OK(conn->close(conn, NULL));
    return ul_done("cursor");
}
