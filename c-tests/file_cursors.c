/*
 * Cursors on a table's file (file:NAME.wt, the reference's name of a table's B-tree) and version
 * cursors (debug=(dump_version=true), as ex_cursor opens one), checked against WiredTiger
 * 11.3.1's answers:
 * - a file: cursor has the table's formats and rows, and writes through it are the table's;
 *   a missing file is ENOENT;
 * - a version cursor's value format is QQQQQQBBBB followed by the table's; search lands on the
 *   key's newest version, next walks to older ones (a removal in between stops the version
 *   before it), then WT_NOTFOUND; each version's stop transaction is the next newer one's
 *   start, the newest's WT_TXN_MAX and WT_TS_MAX; prev, search_near and writes are ENOTSUP;
 *   a missing key is WT_NOTFOUND;
 * - table:NAME opens a version cursor too; in a read-committed session search is WT_ROLLBACK.
 *
 * Runs against the reference too (UL_REFERENCE=1).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>

#include "util.h"

#define TXN_MAX (UINT64_MAX - 10)

static ul_recorder rec;

typedef struct {
    uint64_t start_txn, start_ts, durable_start_ts, stop_txn, stop_ts, durable_stop_ts;
    uint8_t type, prepare, flags, location;
    const char *value;
} version;

static void
get_version(WT_CURSOR *c, version *v)
{
    OK(c->get_value(c, &v->start_txn, &v->start_ts, &v->durable_start_ts, &v->stop_txn, &v->stop_ts,
      &v->durable_stop_ts, &v->type, &v->prepare, &v->flags, &v->location, &v->value));
}

static void
put(WT_SESSION *s)
{
    WT_CURSOR *c;
    OK(s->create(s, "table:map", "key_format=S,value_format=S"));
    OK(s->open_cursor(s, "table:map", NULL, NULL, &c));
    c->set_key(c, "foo");
    c->set_value(c, "bar");
    OK(c->insert(c));
    c->set_key(c, "foo");
    c->set_value(c, "newbar");
    OK(c->update(c));
    c->set_key(c, "foo");
    OK(c->remove(c));
    c->set_key(c, "foo");
    c->set_value(c, "bar");
    OK(c->insert(c));
    c->set_key(c, "zoo");
    c->set_value(c, "z");
    OK(c->insert(c));
    OK(c->close(c));
}

static void
versions(WT_SESSION *s)
{
    WT_CURSOR *c;
    version v1, v2, v3;
    int exact;

    OK(s->open_cursor(s, "file:map.wt", NULL, "debug=(dump_version=true)", &c));
    CHECK_STR(c->key_format, "S");
    CHECK_STR(c->value_format, "QQQQQQBBBBS");
    c->set_key(c, "foo");
    OK(c->search(c));
    get_version(c, &v1);
    CHECK_STR(v1.value, "bar");
    CHECK(v1.stop_txn == TXN_MAX && v1.stop_ts == UINT64_MAX && v1.durable_stop_ts == UINT64_MAX);
    CHECK(v1.type == 3 && v1.prepare == 0 && v1.location == 0);
    OK(c->next(c));
    get_version(c, &v2);
    CHECK_STR(v2.value, "newbar");
    /* Stopped by the removal, which came after it and before the newest. */
    CHECK(v2.start_txn < v2.stop_txn && v2.stop_txn < v1.start_txn);
    OK(c->next(c));
    get_version(c, &v3);
    CHECK_STR(v3.value, "bar");
    CHECK(v3.stop_txn == v2.start_txn);
    CHECK(v3.start_txn < v3.stop_txn);
    CHECK_RC(c->next(c), WT_NOTFOUND);

    ul_recorder_clear(&rec);
    CHECK_RC(c->prev(c), ENOTSUP);
    CHECK_RC(c->search_near(c, &exact), ENOTSUP);
    c->set_key(c, "nokey");
    CHECK_RC(c->search(c), WT_NOTFOUND);
    c->set_key(c, "zoo");
    OK(c->search(c));
    get_version(c, &v1);
    CHECK_STR(v1.value, "z");
    CHECK_RC(c->next(c), WT_NOTFOUND);
    OK(c->reset(c));
    c->set_key(c, "foo");
    c->set_value(c, (uint64_t)0, (uint64_t)0, (uint64_t)0, (uint64_t)0, (uint64_t)0, (uint64_t)0, 0, 0, 0, 0, "x");
    CHECK_RC(c->insert(c), ENOTSUP);
    OK(c->close(c));

    OK(s->open_cursor(s, "table:map", NULL, "debug=(dump_version=true)", &c));
    CHECK_STR(c->value_format, "QQQQQQBBBBS");
    c->set_key(c, "zoo");
    OK(c->search(c));
    OK(c->close(c));
}

static void
file_cursor(WT_SESSION *s)
{
    WT_CURSOR *c;
    const char *k, *v;

    OK(s->open_cursor(s, "file:map.wt", NULL, NULL, &c));
    CHECK_STR(c->key_format, "S");
    CHECK_STR(c->value_format, "S");
    CHECK_STR(c->uri, "file:map.wt");
    OK(c->next(c));
    OK(c->get_key(c, &k));
    OK(c->get_value(c, &v));
    CHECK_STR(k, "foo");
    CHECK_STR(v, "bar");
    OK(c->next(c));
    OK(c->get_key(c, &k));
    CHECK_STR(k, "zoo");
    CHECK_RC(c->next(c), WT_NOTFOUND);
    c->set_key(c, "new");
    c->set_value(c, "row");
    OK(c->insert(c));
    OK(c->close(c));
    OK(s->open_cursor(s, "table:map", NULL, NULL, &c));
    c->set_key(c, "new");
    OK(c->search(c));
    OK(c->get_value(c, &v));
    CHECK_STR(v, "row");
    OK(c->remove(c));
    OK(c->close(c));

    c = NULL;
    CHECK_RC(s->open_cursor(s, "file:nosuch.wt", NULL, NULL, &c), ENOENT);
    CHECK_RC(s->open_cursor(s, "file:nosuch.wt", NULL, "debug=(dump_version=true)", &c), ENOENT);
    CHECK(c == NULL);
}

int
main(void)
{
    WT_CONNECTION *conn;
    WT_CURSOR *c;
    WT_SESSION *s;
    char home[256];
    version v;

    ul_recorder_init(&rec);
    ul_mkhome("file_cursors", home, sizeof(home));
    OK(wiredtiger_open(home, &rec.iface, "create", &conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    put(s);
    versions(s);
    file_cursor(s);

    /* After a checkpoint the newest version alone is left. */
    OK(s->checkpoint(s, NULL));
    OK(s->open_cursor(s, "file:map.wt", NULL, "debug=(dump_version=true)", &c));
    c->set_key(c, "foo");
    OK(c->search(c));
    get_version(c, &v);
    CHECK_STR(v.value, "bar");
    CHECK(v.stop_txn == TXN_MAX);
    CHECK_RC(c->next(c), WT_NOTFOUND);
    OK(c->close(c));
    OK(conn->close(conn, NULL));

    /* Reopened: the rows are read from the table's file. */
    OK(wiredtiger_open(home, &rec.iface, NULL, &conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->open_cursor(s, "file:map.wt", NULL, "debug=(dump_version=true)", &c));
    c->set_key(c, "zoo");
    OK(c->search(c));
    get_version(c, &v);
    CHECK_STR(v.value, "z");
    CHECK_RC(c->next(c), WT_NOTFOUND);
    OK(c->close(c));
    /* Snapshot isolation only. */
    {
        WT_SESSION *rc;
        OK(conn->open_session(conn, NULL, "isolation=read-committed", &rc));
        OK(rc->open_cursor(rc, "file:map.wt", NULL, "debug=(dump_version=true)", &c));
        c->set_key(c, "zoo");
        CHECK_RC(c->search(c), WT_ROLLBACK);
        OK(c->close(c));
        OK(rc->close(rc, NULL));
    }
    OK(conn->close(conn, NULL));
    ul_rmhome(home);
    return ul_done("file_cursors");
}
