/*
 * The read-only cursors: `log:` (the journal's records in the reference's layout, as
 * examples/c/ex_log.c reads them), `metadata:` / `metadata:create`, and checkpoint cursors
 * (`checkpoint=WiredTigerCheckpoint`: a table as the last checkpoint left it). The codes and
 * layouts were recorded from WiredTiger 11.3.1: key format III, value format qIIIuu; a commit
 * record is a row with counter 0 (operation type 0) and one row per operation (WT_LOGOP_ROW_PUT
 * with the packed key and value, WT_LOGOP_ROW_REMOVE with the key); a log_printf record is a
 * WT_LOGREC_MESSAGE whose value starts with the text; prev, search_near and writes are ENOTSUP;
 * a search of an LSN with no record is WT_NOTFOUND; without a journal next and search are
 * ENOTSUP "no log files found". Checkpoint cursors: ENOENT before any checkpoint holds the
 * table, for a missing table and for an unknown checkpoint name; writes ENOTSUP; they keep
 * reading the checkpoint they opened on after a newer one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "util.h"

static ul_recorder rec;

static void
put(WT_CURSOR *c, const char *k, const char *v)
{
    c->set_key(c, k);
    c->set_value(c, v);
    OK(c->insert(c));
}

/*
 * The scan of a log cursor as "| put:k=v rm:k msg:text" items: "|" starts a transaction, then
 * its operations on application tables; messages from log_printf ("hello ..."). The reference's
 * own records (its metadata, file syncs, system messages) are left out.
 */
static void
log_scan(WT_SESSION *s, char *out, size_t len)
{
    WT_CURSOR *lc;
    WT_ITEM k, v;
    uint64_t txn, last_txn = 0;
    uint32_t file, offset, counter, rectype, optype, fileid;
    int ret, started = 0;

    out[0] = '\0';
    OK(s->open_cursor(s, "log:", NULL, NULL, &lc));
    CHECK_STR(lc->key_format, "III");
    CHECK_STR(lc->value_format, "qIIIuu");
    while ((ret = lc->next(lc)) == 0) {
        char item[128] = "";
        OK(lc->get_key(lc, &file, &offset, &counter));
        OK(lc->get_value(lc, &txn, &rectype, &optype, &fileid, &k, &v));
        CHECK(file >= 1);
        if (counter == 0) {
            /* A record's first row: no operation, the record itself as the value. */
            CHECK(optype == WT_LOGOP_INVALID && fileid == 0 && k.size == 0);
            started = 0;
            if (rectype == WT_LOGREC_COMMIT) {
                CHECK(txn > last_txn);
                last_txn = txn;
            } else
                CHECK(txn == 0);
            if (rectype == WT_LOGREC_MESSAGE && strncmp((const char *)v.data, "hello", 5) == 0)
                snprintf(item, sizeof(item), "msg:%s ", (const char *)v.data);
        } else if (fileid != 0) {
            CHECK(rectype == WT_LOGREC_COMMIT && txn == last_txn);
            if (!started)
                strncat(out, "| ", len - strlen(out) - 1);
            started = 1;
            if (optype == WT_LOGOP_ROW_PUT)
                snprintf(item, sizeof(item), "put:%.*s=%.*s ", (int)k.size - 1, (const char *)k.data,
                  (int)v.size - 1, (const char *)v.data);
            else if (optype == WT_LOGOP_ROW_REMOVE) {
                CHECK(v.size == 0);
                snprintf(item, sizeof(item), "rm:%.*s ", (int)k.size - 1, (const char *)k.data);
            } else if (optype == WT_LOGOP_COL_PUT || optype == WT_LOGOP_COL_REMOVE) {
                /* A record number, as 8 native bytes. */
                uint64_t recno = 0;
                CHECK(k.size == sizeof(recno));
                memcpy(&recno, k.data, sizeof(recno));
                if (optype == WT_LOGOP_COL_PUT)
                    snprintf(item, sizeof(item), "colput:%" PRIu64 "=%.*s ", recno, (int)v.size - 1,
                      (const char *)v.data);
                else
                    snprintf(item, sizeof(item), "colrm:%" PRIu64 " ", recno);
            } else
                snprintf(item, sizeof(item), "op%" PRIu32 " ", optype);
        }
        strncat(out, item, len - strlen(out) - 1);
    }
    CHECK_RC(ret, WT_NOTFOUND);
    OK(lc->close(lc));
}

static void
log_cursor(void)
{
    WT_CONNECTION *conn;
    WT_SESSION *s;
    WT_CURSOR *c, *lc;
    WT_ITEM k, v;
    uint64_t txn;
    uint32_t file, offset, counter, rectype, optype, fileid, save_file = 0, save_offset = 0;
    char home[256], scan[1024];
    int exact;

    ul_mkhome("listing-log", home, sizeof(home));
    OK(wiredtiger_open(home, &rec.iface, "create,log=(enabled=true,remove=false)", &conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->create(s, "table:t", "key_format=S,value_format=S"));
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    put(c, "k1", "v1");
    OK(s->begin_transaction(s, NULL));
    put(c, "k2", "v2");
    c->set_key(c, "k1");
    OK(c->remove(c));
    OK(s->commit_transaction(s, NULL));
    OK(s->log_printf(s, "hello %d", 7));
    {
        WT_CURSOR *rc;
        OK(s->create(s, "table:r", "key_format=r,value_format=S"));
        OK(s->open_cursor(s, "table:r", NULL, NULL, &rc));
        rc->set_key(rc, (uint64_t)7);
        rc->set_value(rc, "x");
        OK(rc->insert(rc));
        rc->set_key(rc, (uint64_t)7);
        OK(rc->remove(rc));
        OK(rc->close(rc));
    }

    /* Records written before the cursor opens are read (buffered ones included). */
    log_scan(s, scan, sizeof(scan));
    CHECK_STR(scan, "| put:k1=v1 | put:k2=v2 rm:k1 msg:hello 7 | colput:7=x | colrm:7 ");

    /* Survives close and reopen (remove=false keeps the files). */
    OK(c->close(c));
    OK(conn->close(conn, NULL));
    OK(wiredtiger_open(home, &rec.iface, "create,log=(enabled=true,remove=false)", &conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    log_scan(s, scan, sizeof(scan));
    CHECK(strncmp(scan, "| put:k1=v1 | put:k2=v2 rm:k1 msg:hello 7 | colput:7=x | colrm:7 ", 65) == 0);

    /* search by LSN: the counter is ignored, the cursor lands on the record's first row. */
    OK(s->open_cursor(s, "log:", NULL, NULL, &lc));
    while (save_file == 0 && lc->next(lc) == 0) {
        OK(lc->get_key(lc, &file, &offset, &counter));
        OK(lc->get_value(lc, &txn, &rectype, &optype, &fileid, &k, &v));
        if (fileid != 0 && optype == WT_LOGOP_ROW_PUT && strcmp((const char *)k.data, "k2") == 0) {
            CHECK(counter == 1);
            save_file = file;
            save_offset = offset;
        }
    }
    CHECK(save_file != 0);
    OK(lc->reset(lc));
    lc->set_key(lc, save_file, save_offset, 5);
    OK(lc->search(lc));
    OK(lc->get_key(lc, &file, &offset, &counter));
    CHECK(file == save_file && offset == save_offset && counter == 0);
    OK(lc->next(lc));
    OK(lc->get_key(lc, &file, &offset, &counter));
    OK(lc->get_value(lc, &txn, &rectype, &optype, &fileid, &k, &v));
    CHECK(counter == 1 && optype == WT_LOGOP_ROW_PUT && strcmp((const char *)k.data, "k2") == 0);
    lc->set_key(lc, save_file, save_offset + 1, 0);
    CHECK_RC(lc->search(lc), WT_NOTFOUND);

    /* What the reference refuses. */
    ul_recorder_clear(&rec);
    CHECK_RC(lc->prev(lc), ENOTSUP);
    CHECK_MSG(&rec, ENOTSUP, "Unsupported cursor operation");
    lc->set_key(lc, save_file, save_offset, 0);
    CHECK_RC(lc->search_near(lc, &exact), ENOTSUP);
    lc->set_value(lc, (uint64_t)1, 1, 4, 1, &k, &v);
    CHECK_RC(lc->insert(lc), ENOTSUP);
    CHECK_RC(lc->update(lc), ENOTSUP);
    CHECK_RC(lc->remove(lc), ENOTSUP);
    OK(lc->reset(lc));
    OK(lc->next(lc));
    OK(lc->close(lc));
    OK(conn->close(conn, NULL));
    ul_rmhome(home);

    /* Without a journal: the cursor opens, reading it is ENOTSUP. */
    ul_open(&rec, "create,in_memory=true", &conn, &s);
    OK(s->open_cursor(s, "log:", NULL, NULL, &lc));
    ul_recorder_clear(&rec);
    CHECK_RC(lc->next(lc), ENOTSUP);
    CHECK_MSG(&rec, ENOTSUP, "no log files found");
    lc->set_key(lc, 1, 128, 0);
    CHECK_RC(lc->search(lc), ENOTSUP);
    OK(lc->close(lc));
    OK(conn->close(conn, NULL));
}

static void
metadata_cursor(void)
{
    WT_CONNECTION *conn;
    WT_SESSION *s;
    WT_CURSOR *m;
    const char *k, *v;
    int ret, n;

    ul_open(&rec, "create,in_memory=true", &conn, &s);
    OK(s->create(s, "table:t", "key_format=S,value_format=Si,columns=(k,a,b)"));
    OK(s->open_cursor(s, "metadata:", NULL, NULL, &m));
    CHECK_STR(m->key_format, "S");
    CHECK_STR(m->value_format, "S");
    /* The reference lists its own objects too ("metadata:", its history store). */
    for (n = 0; (ret = m->next(m)) == 0; n++) {
        OK(m->get_key(m, &k));
        OK(m->get_value(m, &v));
    }
    CHECK_RC(ret, WT_NOTFOUND);
    CHECK(n >= 3);
    m->set_key(m, "colgroup:t");
    OK(m->search(m));
    OK(m->get_value(m, &v));
    CHECK(strstr(v, "source=\"file:t.wt\"") != NULL);
    m->set_key(m, "file:t.wt");
    OK(m->search(m));
    OK(m->get_value(m, &v));
    CHECK(strstr(v, "key_format=S,") != NULL && strstr(v, "value_format=Si,") != NULL);
    m->set_key(m, "table:t");
    OK(m->search(m));
    OK(m->get_value(m, &v));
    CHECK_STR(v,
      "app_metadata=,assert=(commit_timestamp=none,durable_timestamp=none,read_timestamp="
      "none,write_timestamp=off),colgroups=,collator=,columns=(k,a,b),key_format=S,value_"
      "format=Si,verbose=[],write_timestamp_usage=none");
    OK(m->prev(m));
    OK(m->get_key(m, &k));
    CHECK_STR(k, "file:t.wt");
    {
        /* A duplicate is on the same entry. */
        WT_CURSOR *d;
        OK(s->open_cursor(s, NULL, m, NULL, &d));
        OK(d->get_key(d, &k));
        CHECK_STR(k, "file:t.wt");
        OK(d->next(d));
        OK(d->get_key(d, &k));
        CHECK_STR(k, "table:t");
        OK(d->close(d));
        /* Any name after the prefix opens the same cursor, as in the reference. */
        OK(s->open_cursor(s, "metadata:other", NULL, NULL, &d));
        d->set_key(d, "table:t");
        OK(d->search(d));
        OK(d->close(d));
    }
    m->set_key(m, "table:nope");
    CHECK_RC(m->search(m), WT_NOTFOUND);
    m->set_key(m, "table:t");
    m->set_value(m, "key_format=S");
    CHECK_RC(m->insert(m), ENOTSUP);
    CHECK_RC(m->remove(m), ENOTSUP);
    OK(m->close(m));
    OK(s->open_cursor(s, "metadata:create", NULL, NULL, &m));
    m->set_key(m, "table:t");
    OK(m->search(m));
    OK(m->get_value(m, &v));
    CHECK(strstr(v, "exclusive=false") != NULL && strstr(v, "key_format=S,") != NULL);
    OK(m->close(m));
    OK(conn->close(conn, NULL));
}

/* The table's rows through `c` as "k=v k=v". */
static void
rows(WT_CURSOR *c, char *out, size_t len)
{
    const char *k, *v;
    int ret;
    out[0] = '\0';
    while ((ret = c->next(c)) == 0) {
        char item[64];
        OK(c->get_key(c, &k));
        OK(c->get_value(c, &v));
        snprintf(item, sizeof(item), "%s=%s ", k, v);
        strncat(out, item, len - strlen(out) - 1);
    }
    CHECK_RC(ret, WT_NOTFOUND);
}

static void
checkpoint_cursor(void)
{
    WT_CONNECTION *conn;
    WT_SESSION *s;
    WT_CURSOR *c, *k;
    char home[256], got[256];
    const char *key;
    int exact;

    ul_mkhome("listing-ckpt", home, sizeof(home));
    OK(wiredtiger_open(home, &rec.iface, "create", &conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->create(s, "table:t", "key_format=S,value_format=S"));
    /* No checkpoint holds the table yet. */
    CHECK_RC(s->open_cursor(s, "table:t", NULL, "checkpoint=WiredTigerCheckpoint", &k), ENOENT);
    CHECK_RC(s->open_cursor(s, "table:nope", NULL, "checkpoint=WiredTigerCheckpoint", &k), ENOENT);
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    put(c, "a", "1");
    put(c, "c", "3");
    OK(s->checkpoint(s, NULL));
    put(c, "b", "2");
    put(c, "a", "9");

    OK(s->open_cursor(s, "table:t", NULL, "checkpoint=WiredTigerCheckpoint", &k));
    CHECK_STR(k->key_format, "S");
    CHECK_STR(k->value_format, "S");
    rows(k, got, sizeof(got));
    CHECK_STR(got, "a=1 c=3 ");
    OK(k->prev(k));
    KEY_IS(k, "c");
    k->set_key(k, "b");
    CHECK_RC(k->search(k), WT_NOTFOUND);
    k->set_key(k, "c");
    OK(k->search(k));
    k->set_key(k, "b");
    OK(k->search_near(k, &exact));
    OK(k->get_key(k, &key));
    CHECK((exact == 1 && strcmp(key, "c") == 0) || (exact == -1 && strcmp(key, "a") == 0));
    k->set_key(k, "a");
    k->set_value(k, "x");
    ul_recorder_clear(&rec);
    CHECK_RC(k->insert(k), ENOTSUP);
    CHECK_MSG(&rec, ENOTSUP, "Unsupported cursor operation");
    CHECK_RC(k->update(k), ENOTSUP);
    CHECK_RC(k->remove(k), ENOTSUP);
    OK(k->reset(k));

    /* A newer checkpoint: the open cursor keeps its own, a new one sees the newer. */
    OK(s->checkpoint(s, NULL));
    rows(k, got, sizeof(got));
    CHECK_STR(got, "a=1 c=3 ");
    OK(k->close(k));
    OK(s->open_cursor(s, "table:t", NULL, "checkpoint=WiredTigerCheckpoint", &k));
    rows(k, got, sizeof(got));
    CHECK_STR(got, "a=9 b=2 c=3 ");
    OK(k->close(k));

    /* An unknown checkpoint name. */
    CHECK_RC(s->open_cursor(s, "table:t", NULL, "checkpoint=nosuch", &k), ENOENT);

    /* Named checkpoints keep their state through later checkpoints, until dropped. */
    OK(s->create(s, "table:u", "key_format=S,value_format=S"));
    OK(s->checkpoint(s, "name=mid"));
    put(c, "e", "5");
    OK(s->checkpoint(s, "target=(\"table:t\"),name=noon"));
    put(c, "f", "6");
    OK(s->checkpoint(s, NULL));
    OK(s->open_cursor(s, "table:t", NULL, "checkpoint=mid", &k));
    rows(k, got, sizeof(got));
    CHECK_STR(got, "a=9 b=2 c=3 ");
    OK(k->close(k));
    OK(s->open_cursor(s, "table:t", NULL, "checkpoint=noon", &k));
    rows(k, got, sizeof(got));
    CHECK_STR(got, "a=9 b=2 c=3 e=5 ");
    OK(k->close(k));
    OK(s->open_cursor(s, "table:u", NULL, "checkpoint=mid", &k));
    CHECK_RC(k->next(k), WT_NOTFOUND);
    OK(k->close(k));
    /* The same name again moves it. */
    OK(s->checkpoint(s, "name=mid"));
    OK(s->open_cursor(s, "table:t", NULL, "checkpoint=mid", &k));
    rows(k, got, sizeof(got));
    CHECK_STR(got, "a=9 b=2 c=3 e=5 f=6 ");
    OK(k->close(k));
    OK(s->checkpoint(s, "drop=(noon)"));
    CHECK_RC(s->open_cursor(s, "table:t", NULL, "checkpoint=noon", &k), ENOENT);
    OK(s->open_cursor(s, "table:t", NULL, "checkpoint=mid", &k));
    OK(k->close(k));
    OK(s->checkpoint(s, "drop=(from=all)"));
    CHECK_RC(s->open_cursor(s, "table:t", NULL, "checkpoint=mid", &k), ENOENT);
    OK(s->checkpoint(s, "name=late"));

    /* The reference's refusals: its reserved name, a missing target. */
    ul_recorder_clear(&rec);
    CHECK_RC(s->checkpoint(s, "name=WiredTigerCheckpoint"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "the checkpoint name \"WiredTigerCheckpoint\" is reserved");
    CHECK_RC(s->checkpoint(s, "name=WiredTigerCheckpointX"), EINVAL);
    CHECK_RC(s->checkpoint(s, "drop=(WiredTigerCheckpoint)"), EINVAL);
    CHECK_RC(s->checkpoint(s, "target=(\"table:nosuch\"),name=x"), ENOENT);
    OK(s->checkpoint(s, "drop=(nosuch)"));
    OK(s->checkpoint(s, "drop=(from=nosuch)"));

    /*
     * checkpoint_id: the same for the default checkpoint's cursors on different tables, another
     * after a newer checkpoint, 0 on table cursors.
     */
    {
        WT_CURSOR *k2, *k3;
        OK(s->open_cursor(s, "table:t", NULL, "checkpoint=WiredTigerCheckpoint", &k));
        OK(s->open_cursor(s, "table:u", NULL, "checkpoint=WiredTigerCheckpoint", &k2));
        CHECK(k->checkpoint_id(k) != 0 && k->checkpoint_id(k) == k2->checkpoint_id(k2));
        CHECK(c->checkpoint_id(c) == 0);
        put(c, "g", "7");
        OK(s->checkpoint(s, NULL));
        OK(s->open_cursor(s, "table:t", NULL, "checkpoint=WiredTigerCheckpoint", &k3));
        CHECK(k3->checkpoint_id(k3) != 0 && k3->checkpoint_id(k3) != k->checkpoint_id(k));
        OK(k3->close(k3));
        OK(k2->close(k2));
        OK(k->close(k));
    }

    /* A checkpoint cursor keeps its table from being dropped. */
    OK(s->open_cursor(s, "table:u", NULL, "checkpoint=late", &k));
    CHECK_RC(s->drop(s, "table:u", NULL), EBUSY);
    OK(k->close(k));
    OK(s->drop(s, "table:u", NULL));

    /* After reopening, the checkpoint the close took. */
    put(c, "d", "4");
    OK(c->close(c));
    OK(conn->close(conn, NULL));
    OK(wiredtiger_open(home, &rec.iface, NULL, &conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->open_cursor(s, "table:t", NULL, "checkpoint=WiredTigerCheckpoint", &k));
    rows(k, got, sizeof(got));
    CHECK_STR(got, "a=9 b=2 c=3 d=4 e=5 f=6 g=7 ");
    OK(k->close(k));
    /* A named checkpoint survives the reopen. */
    OK(s->open_cursor(s, "table:t", NULL, "checkpoint=late", &k));
    rows(k, got, sizeof(got));
    CHECK_STR(got, "a=9 b=2 c=3 e=5 f=6 ");
    OK(k->close(k));
    OK(conn->close(conn, NULL));
    ul_rmhome(home);

    /* In memory there are no checkpoints. */
    ul_open(&rec, "create,in_memory=true", &conn, &s);
    OK(s->create(s, "table:t", "key_format=S,value_format=S"));
    CHECK_RC(s->open_cursor(s, "table:t", NULL, "checkpoint=WiredTigerCheckpoint", &k), ENOENT);
    OK(conn->close(conn, NULL));
}

int
main(void)
{
    ul_recorder_init(&rec);
    log_cursor();
    metadata_cursor();
    checkpoint_cursor();
    printf("listing_cursors: %d checks, %d failures\n", ul_checks, ul_failures);
    return ul_failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
