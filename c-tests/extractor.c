/*
 * Custom index extractors (WT_CONNECTION::add_extractor, index:...,extractor=NAME): the
 * extractor makes several index keys per row, is called for the new row on inserts and for the
 * old row on updates and removes, inside the write's transaction (a rollback undoes its
 * entries), and an error it returns fails the write with nothing written. customize gets the
 * index URI and its app_metadata; a customized extractor is terminated when its index goes, a
 * registered one when the connection closes. Bad input gets the reference's codes and messages
 * (probed against WiredTiger 11.3.1).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "util.h"

static ul_recorder rec;

/* What the extractor saw and does. */
static struct {
    int calls;
    int fail;               /* a code for extract to return instead of keys */
    int customized;         /* customize calls */
    int custom_terminated;  /* terminate calls of the customized extractor */
    int terminated;         /* terminate calls of the registered one */
    char uri[64];           /* the last customize's URI */
    char app[64];           /* and its app_metadata */
    int app_type;
    char result_format[16]; /* the result cursor's key format */
    int misuse_rc[4];       /* the result cursor's answers to calls it does not take */
} seen;

/* One index entry per year of a term (value: start H, end H): the reference's example. */
static int
years(WT_EXTRACTOR *x, WT_SESSION *s, const WT_ITEM *key, const WT_ITEM *value, WT_CURSOR *result)
{
    uint16_t start, end, year;
    int ret;

    (void)x;
    (void)key;
    seen.calls++;
    snprintf(seen.result_format, sizeof(seen.result_format), "%s", result->key_format);
    if (seen.fail != 0)
        return seen.fail;
    if ((ret = wiredtiger_struct_unpack(s, value->data, value->size, "HH", &start, &end)) != 0)
        return ret;
    for (year = start; year <= end; year++) {
        result->set_key(result, year);
        if ((ret = result->insert(result)) != 0)
            return ret;
    }
    return 0;
}

/* The same, one entry for the start year only: what the customized extractor does. */
static int
first_year(WT_EXTRACTOR *x, WT_SESSION *s, const WT_ITEM *key, const WT_ITEM *value, WT_CURSOR *result)
{
    uint16_t start, end;
    int ret;

    (void)x;
    (void)key;
    if ((ret = wiredtiger_struct_unpack(s, value->data, value->size, "HH", &start, &end)) != 0)
        return ret;
    result->set_key(result, start);
    return result->insert(result);
}

static int
custom_terminate(WT_EXTRACTOR *x, WT_SESSION *s)
{
    (void)x;
    (void)s;
    seen.custom_terminated++;
    return 0;
}

static WT_EXTRACTOR first_year_extractor = {first_year, NULL, custom_terminate};

/* Customizes for indices whose app_metadata says "first": they get first_year. */
static int
customize(WT_EXTRACTOR *x, WT_SESSION *s, const char *uri, WT_CONFIG_ITEM *app, WT_EXTRACTOR **out)
{
    (void)x;
    (void)s;
    seen.customized++;
    snprintf(seen.uri, sizeof(seen.uri), "%s", uri);
    snprintf(seen.app, sizeof(seen.app), "%.*s", (int)app->len, app->str);
    seen.app_type = (int)app->type;
    *out = strstr(seen.app, "first") != NULL ? &first_year_extractor : NULL;
    return 0;
}

static int
terminate(WT_EXTRACTOR *x, WT_SESSION *s)
{
    (void)x;
    (void)s;
    seen.terminated++;
    return 0;
}

static WT_EXTRACTOR years_extractor = {years, customize, terminate};

/* Tries the result cursor's methods it does not take, then makes no keys. */
static int
misuse(WT_EXTRACTOR *x, WT_SESSION *s, const WT_ITEM *key, const WT_ITEM *value, WT_CURSOR *result)
{
    uint16_t year;

    (void)x;
    (void)s;
    (void)key;
    (void)value;
#ifndef UL_REFERENCE_RUN /* an insert without a key crashes the reference */
    seen.misuse_rc[0] = result->insert(result); /* no key set */
#else
    seen.misuse_rc[0] = EINVAL;
#endif
    seen.misuse_rc[1] = result->search(result);
    seen.misuse_rc[2] = result->get_key(result, &year);
    seen.misuse_rc[3] = result->close(result);
    return 0;
}

static WT_EXTRACTOR misuse_extractor = {misuse, NULL, NULL};

/* The raw value as the key: ex_all's extractor (key_format=u). */
static int
whole_value(WT_EXTRACTOR *x, WT_SESSION *s, const WT_ITEM *key, const WT_ITEM *value, WT_CURSOR *result)
{
    (void)x;
    (void)s;
    (void)key;
    result->set_key(result, value);
    return result->insert(result);
}

static WT_EXTRACTOR whole_value_extractor = {whole_value, NULL, NULL};

static void
put(WT_CURSOR *c, const char *name, uint16_t start, uint16_t end)
{
    c->set_key(c, name);
    c->set_value(c, start, end);
    OK(c->insert(c));
}

/* The index `uri`'s entries as "year,... | name ..." in index order (the names through a
 * projection of the primary key column). */
static void
entries(WT_SESSION *s, const char *uri, char *out, size_t len)
{
    WT_CURSOR *c;
    uint16_t year, start, end;
    const char *name;
    char proj[128];
    int n, ret;
    char *at = out;
    size_t room = len;

    out[0] = '\0';
    OK(s->open_cursor(s, uri, NULL, NULL, &c));
    CHECK_STR(c->key_format, "H");
    CHECK_STR(c->value_format, "HH");
    while ((ret = c->next(c)) == 0) {
        OK(c->get_key(c, &year));
        OK(c->get_value(c, &start, &end));
        CHECK(start <= year && year <= end);
        n = snprintf(at, room, "%s%u", at == out ? "" : ",", (unsigned)year);
        at += n;
        room -= (size_t)n;
    }
    CHECK_RC(ret, WT_NOTFOUND);
    OK(c->close(c));
    n = snprintf(at, room, " |");
    at += n;
    room -= (size_t)n;
    snprintf(proj, sizeof(proj), "%s(name)", uri);
    OK(s->open_cursor(s, proj, NULL, NULL, &c));
    while ((ret = c->next(c)) == 0) {
        OK(c->get_value(c, &name));
        n = snprintf(at, room, " %s", name);
        at += n;
        room -= (size_t)n;
    }
    CHECK_RC(ret, WT_NOTFOUND);
    OK(c->close(c));
}

static void
test_registration_and_bad_input(WT_CONNECTION *conn, WT_SESSION *s)
{
    ul_recorder_clear(&rec);
    CHECK_RC(conn->add_extractor(conn, "none", &years_extractor, NULL), EINVAL);
    CHECK_MSG(&rec, EINVAL, "invalid name for an extractor: none");
#ifndef UL_REFERENCE_RUN /* NULL arguments crash the reference */
    CHECK_RC(conn->add_extractor(conn, NULL, &years_extractor, NULL), EINVAL);
    CHECK_RC(conn->add_extractor(conn, "nil", NULL, NULL), EINVAL);
#endif
    OK(conn->add_extractor(conn, "years", &years_extractor, NULL));
    OK(conn->add_extractor(conn, "misuse", &misuse_extractor, NULL));
    OK(conn->add_extractor(conn, "whole", &whole_value_extractor, NULL));

    OK(s->create(s, "table:terms", "key_format=S,value_format=HH,columns=(name,start,end)"));
    /* On a table, extractor= is ignored (as the reference). */
    OK(s->create(s, "table:ignored", "key_format=S,value_format=S,extractor=years"));
    OK(s->drop(s, "table:ignored", NULL));
    ul_recorder_clear(&rec);
    CHECK_RC(s->create(s, "index:terms:nofmt", "extractor=years"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "index:terms:nofmt: custom extractors require a key_format");
    CHECK_RC(s->create(s, "index:terms:pk", "key_format=H,columns=(name),extractor=years"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "an index with a custom extractor may not include primary key columns");
    CHECK_RC(s->create(s, "index:terms:unknown", "key_format=H,extractor=nope"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown extractor 'nope'");
    /* None of them was created. */
    {
        WT_CURSOR *c;
        CHECK_RC(s->open_cursor(s, "index:terms:nofmt", NULL, NULL, &c), ENOENT);
        CHECK_RC(s->open_cursor(s, "index:terms:unknown", NULL, NULL, &c), ENOENT);
    }
    /* A table without named columns takes no index, extractor or not. */
    OK(s->create(s, "table:plain", "key_format=S,value_format=HH"));
    ul_recorder_clear(&rec);
    CHECK_RC(s->create(s, "index:plain:y", "key_format=H,extractor=years"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "requires a table with named columns");
    OK(s->drop(s, "table:plain", NULL));
}

static void
test_index_keys(WT_SESSION *s)
{
    WT_CURSOR *c, *ic;
    char got[512];
    uint16_t year;
    int calls;

    OK(s->open_cursor(s, "table:terms", NULL, NULL, &c));
    put(c, "obama", 2009, 2012);
    OK(c->close(c));

    /* Created over a filled table: the row's entries are made at once. Value columns named
     * with the extractor are accepted (and ignored), as the reference does. */
    seen.customized = 0;
    OK(s->create(s, "index:terms:years", "key_format=H,columns=(start),extractor=years,app_metadata=(kind=all)"));
    CHECK(seen.customized == 1);
    CHECK_STR(seen.uri, "index:terms:years");
    CHECK_STR(seen.app, "(kind=all)");
    CHECK(seen.app_type == WT_CONFIG_ITEM_STRUCT);
    CHECK_STR(seen.result_format, "Hx");
    entries(s, "index:terms:years", got, sizeof(got));
    CHECK_STR(got, "2009,2010,2011,2012 | obama obama obama obama");
    /* Creating it again does not customize again. */
    OK(s->create(s, "index:terms:years", "key_format=H,extractor=years,app_metadata=(kind=all)"));
    CHECK(seen.customized == 1);

    OK(s->open_cursor(s, "table:terms", NULL, NULL, &c));
    put(c, "bush", 2001, 2008);
    put(c, "clinton", 1993, 2000);
    entries(s, "index:terms:years", got, sizeof(got));
    CHECK(strncmp(got, "1993,1994,1995,1996,1997,1998,1999,2000,2001,", 45) == 0);

    /* An update: the old row's entries go, the new row's come (the extractor sees both). */
    calls = seen.calls;
    c->set_key(c, "clinton");
    c->set_value(c, (uint16_t)1999, (uint16_t)2000);
    OK(c->update(c));
    CHECK(seen.calls == calls + 2);
    /* An insert over an existing row (overwrite) likewise. */
    put(c, "bush", 2007, 2008);
    entries(s, "index:terms:years", got, sizeof(got));
    CHECK_STR(got, "1999,2000,2007,2008,2009,2010,2011,2012 | clinton clinton bush bush obama obama obama obama");

    /* A remove: the extractor sees the old row, its entries go. */
    c->set_key(c, "bush");
    OK(c->remove(c));
    entries(s, "index:terms:years", got, sizeof(got));
    CHECK_STR(got, "1999,2000,2009,2010,2011,2012 | clinton clinton obama obama obama obama");

    /* Index cursor search: the first entry of the year, and a year without one. */
    OK(s->open_cursor(s, "index:terms:years", NULL, NULL, &ic));
    ic->set_key(ic, (uint16_t)2010);
    OK(ic->search(ic));
    OK(ic->get_key(ic, &year));
    CHECK(year == 2010);
    ic->set_key(ic, (uint16_t)2005);
    CHECK_RC(ic->search(ic), WT_NOTFOUND);
    /* Index cursors are read-only. */
    CHECK_RC(ic->insert(ic), ENOTSUP);
    OK(ic->close(ic));
    /* A projection of the table's columns. */
    OK(s->open_cursor(s, "index:terms:years(name,end)", NULL, NULL, &ic));
    CHECK_STR(ic->value_format, "SH");
    OK(ic->next(ic));
    {
        const char *name;
        uint16_t end;
        OK(ic->get_value(ic, &name, &end));
        CHECK_STR(name, "clinton");
        CHECK(end == 2000);
    }
    OK(ic->close(ic));
    OK(c->close(c));
}

static void
test_rollback_and_errors(WT_SESSION *s)
{
    WT_CURSOR *c;
    char before[512], got[512];
    const char *name;

    entries(s, "index:terms:years", before, sizeof(before));
    OK(s->open_cursor(s, "table:terms", NULL, NULL, &c));

    /* A rolled-back transaction takes its index entries with it. */
    OK(s->begin_transaction(s, NULL));
    put(c, "carter", 1977, 1980);
    c->set_key(c, "obama");
    OK(c->remove(c));
    OK(s->rollback_transaction(s, NULL));
    entries(s, "index:terms:years", got, sizeof(got));
    CHECK_STR(got, before);

    /* The extractor's error fails the write, and nothing of it is written. */
    seen.fail = ENOSPC;
    c->set_key(c, "ford");
    c->set_value(c, (uint16_t)1974, (uint16_t)1977);
    CHECK_RC(c->insert(c), ENOSPC);
    c->set_key(c, "clinton");
    c->set_value(c, (uint16_t)1993, (uint16_t)2000);
    CHECK_RC(c->update(c), ENOSPC);
    c->set_key(c, "obama");
    CHECK_RC(c->remove(c), ENOSPC);
    seen.fail = WT_NOTFOUND;
    c->set_key(c, "ford");
    c->set_value(c, (uint16_t)1974, (uint16_t)1977);
    CHECK_RC(c->insert(c), WT_NOTFOUND);
    seen.fail = 0;
    c->set_key(c, "ford");
    CHECK_RC(c->search(c), WT_NOTFOUND);
    c->set_key(c, "obama");
    OK(c->search(c));
    OK(c->get_key(c, &name));
    CHECK_STR(name, "obama");
    OK(c->reset(c));
    entries(s, "index:terms:years", got, sizeof(got));
    CHECK_STR(got, before);

    /* Inside a transaction the error fails the write; the transaction must roll back. */
    OK(s->begin_transaction(s, NULL));
    seen.fail = EINVAL;
    c->set_key(c, "ford");
    c->set_value(c, (uint16_t)1974, (uint16_t)1977);
    CHECK_RC(c->insert(c), EINVAL);
    seen.fail = 0;
    OK(s->rollback_transaction(s, NULL));
    entries(s, "index:terms:years", got, sizeof(got));
    CHECK_STR(got, before);
    OK(c->close(c));
}

static void
test_customize_and_misuse(WT_SESSION *s)
{
    WT_CURSOR *c, *ic;
    char got[512];
    int terminated = seen.custom_terminated;

    /* customize returns another extractor for this index: it makes the keys. */
    OK(s->create(s, "index:terms:first", "key_format=H,extractor=years,app_metadata=\"first\""));
    CHECK_STR(seen.uri, "index:terms:first");
    CHECK_STR(seen.app, "first");
    CHECK(seen.app_type == WT_CONFIG_ITEM_STRING);
    entries(s, "index:terms:first", got, sizeof(got));
    CHECK_STR(got, "1999,2009 | clinton obama");
    /* Dropping the index terminates its own extractor (its cursors closed). The reference
     * answers EBUSY here (the session still holds the table's handle). */
#ifndef UL_REFERENCE_RUN
    OK(s->drop(s, "index:terms:first", NULL));
    CHECK(seen.custom_terminated == terminated + 1);
#else
    (void)terminated;
#endif

    /* The result cursor refuses what it does not do. */
    OK(s->create(s, "table:m", "key_format=S,value_format=HH,columns=(k,a,b)"));
    OK(s->create(s, "index:m:x", "key_format=H,extractor=misuse"));
    OK(s->open_cursor(s, "table:m", NULL, NULL, &c));
    ul_recorder_clear(&rec);
    put(c, "k", 1, 2);
    CHECK(seen.misuse_rc[0] == EINVAL);
    CHECK(seen.misuse_rc[1] == ENOTSUP);
    CHECK(seen.misuse_rc[2] != 0);
    CHECK(seen.misuse_rc[3] == ENOTSUP);
    OK(c->close(c));
    OK(s->open_cursor(s, "index:m:x", NULL, NULL, &ic));
    CHECK_RC(ic->next(ic), WT_NOTFOUND);
    OK(ic->close(ic));
#ifndef UL_REFERENCE_RUN /* EBUSY in the reference (the session holds the table's handle) */
    OK(s->drop(s, "table:m", NULL));
#endif

    /* ex_all's extractor: the whole raw value as a u key. */
    OK(s->create(s, "table:w", "key_format=S,value_format=S,columns=(k,v)"));
    OK(s->create(s, "index:w:v", "key_format=u,extractor=whole"));
    OK(s->open_cursor(s, "table:w", NULL, NULL, &c));
    c->set_key(c, "b");
    c->set_value(c, "one");
    OK(c->insert(c));
    c->set_key(c, "a");
    c->set_value(c, "two");
    OK(c->insert(c));
    OK(c->close(c));
    OK(s->open_cursor(s, "index:w:v", NULL, NULL, &ic));
    /* "U": not the last column of the stored key ("uS"), as the reference names it. */
    CHECK_STR(ic->key_format, "U");
    {
        WT_ITEM k;
        const char *v;
        OK(ic->next(ic));
        OK(ic->get_key(ic, &k));
        CHECK(k.size == 4 && memcmp(k.data, "one", 4) == 0);
        OK(ic->get_value(ic, &v));
        CHECK_STR(v, "one");
        k.data = "two";
        k.size = 4;
        ic->set_key(ic, &k);
        OK(ic->search(ic));
        OK(ic->get_value(ic, &v));
        CHECK_STR(v, "two");
    }
    OK(ic->close(ic));
}

/* On disk: after a reopen without add_extractor, the table reads but writes fail, and the
 * index cannot be opened (the reference's EINVAL "unknown extractor"). */
static void
test_reopen(void)
{
    WT_CONNECTION *conn;
    WT_SESSION *s;
    WT_CURSOR *c;
    char home[512], got[512];

    ul_mkhome("extractor", home, sizeof(home));
    memset(&seen, 0, sizeof(seen));
    OK(wiredtiger_open(home, &rec.iface, "create", &conn));
    OK(conn->add_extractor(conn, "years", &years_extractor, NULL));
    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->create(s, "table:terms", "key_format=S,value_format=HH,columns=(name,start,end)"));
    OK(s->create(s, "index:terms:years", "key_format=H,extractor=years"));
    OK(s->create(s, "index:terms:first", "key_format=H,extractor=years,app_metadata=first"));
    OK(s->open_cursor(s, "table:terms", NULL, NULL, &c));
    put(c, "reagan", 1981, 1984);
    OK(c->close(c));
    OK(conn->close(conn, NULL));
    /* Close: the customized extractor, then the registered one. */
    CHECK(seen.custom_terminated == 1);
    CHECK(seen.terminated == 1);

    OK(wiredtiger_open(home, &rec.iface, NULL, &conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->open_cursor(s, "table:terms", NULL, NULL, &c));
    OK(c->next(c));
    ul_recorder_clear(&rec);
    c->set_key(c, "ford");
    c->set_value(c, (uint16_t)1974, (uint16_t)1977);
    CHECK_RC(c->insert(c), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown extractor 'years'");
    OK(c->close(c));
    ul_recorder_clear(&rec);
    CHECK_RC(s->open_cursor(s, "index:terms:years", NULL, NULL, &c), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown extractor 'years'");
    OK(conn->close(conn, NULL));

    /* With the extractor registered again, the index works on (customized again). */
    seen.customized = 0;
    OK(wiredtiger_open(home, &rec.iface, NULL, &conn));
    OK(conn->add_extractor(conn, "years", &years_extractor, NULL));
    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->open_cursor(s, "table:terms", NULL, NULL, &c));
    put(c, "carter", 1977, 1980);
    OK(c->close(c));
    CHECK(seen.customized == 2);
    entries(s, "index:terms:years", got, sizeof(got));
    CHECK_STR(got, "1977,1978,1979,1980,1981,1982,1983,1984 | carter carter carter carter reagan reagan reagan reagan");
    entries(s, "index:terms:first", got, sizeof(got));
    CHECK_STR(got, "1977,1981 | carter reagan");
    OK(conn->close(conn, NULL));
    ul_rmhome(home);
}

int
main(void)
{
    WT_CONNECTION *conn;
    WT_SESSION *s;

    ul_recorder_init(&rec);
    ul_open(&rec, "create,in_memory=true", &conn, &s);
    test_registration_and_bad_input(conn, s);
    test_index_keys(s);
    test_rollback_and_errors(s);
    test_customize_and_misuse(s);
    seen.terminated = 0;
    OK(conn->close(conn, NULL));
    /* Registered extractors terminate at close: years, misuse and whole (only years has a
     * terminate method). */
    CHECK(seen.terminated == 1);
    test_reopen();

    printf("extractor: %d checks, %d failures\n", ul_checks, ul_failures);
    return ul_failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
