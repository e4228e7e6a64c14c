/*
 * Transactions through the C API: visibility at each isolation level against a concurrent
 * committer (another session, then another thread), write-write conflicts (WT_ROLLBACK for the
 * second writer, the first writer's value wins), rollback, own-write visibility, the state
 * errors with the reference's messages, the failed-transaction rules, session and connection
 * close with running transactions, and a threaded bank whose total never changes.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "util.h"

#define INMEM "create,in_memory=true"

static ul_recorder rec;

/* Sets `key` to `value` with cursor `c` (update, overwrite on). */
static int
put(WT_CURSOR *c, const char *key, const char *value)
{
    c->set_key(c, key);
    c->set_value(c, value);
    return c->update(c);
}

/* Searches `key`; on success *value points at the cursor's value. */
static int
get(WT_CURSOR *c, const char *key, const char **value)
{
    int ret;

    c->set_key(c, key);
    if ((ret = c->search(c)) != 0)
        return ret;
    return c->get_value(c, value);
}

/* `key` reads as `want` through `c` (NULL: WT_NOTFOUND); counts as one check. */
static void
check_get(WT_CURSOR *c, const char *key, const char *want, int line)
{
    const char *v = NULL;
    int ret = get(c, key, &v);

    ul_checks++;
    if (want == NULL ? ret == WT_NOTFOUND : ret == 0 && strcmp(v, want) == 0)
        return;
    ul_failures++;
    fprintf(stderr, "%s:%d: %s reads %d \"%s\", expected \"%s\"\n", __FILE__, line, key, ret,
      ret == 0 ? v : "", want == NULL ? "(not found)" : want);
}

#define CHECK_GET(c, key, want) check_get((c), (key), (want), __LINE__)

static void
open_pair(WT_CONNECTION *conn, const char *uri, WT_SESSION **s1, WT_CURSOR **c1, WT_SESSION **s2,
  WT_CURSOR **c2)
{
    OK(conn->open_session(conn, NULL, NULL, s1));
    OK(conn->open_session(conn, NULL, NULL, s2));
    OK((*s1)->create(*s1, uri, "key_format=S,value_format=S"));
    OK((*s1)->open_cursor(*s1, uri, NULL, NULL, c1));
    OK((*s2)->open_cursor(*s2, uri, NULL, NULL, c2));
}

/* Each isolation level against another session that commits while the reader runs. */
static void
test_isolation_levels(WT_CONNECTION *conn)
{
    WT_SESSION *w, *r;
    WT_CURSOR *wc, *rc;

    open_pair(conn, "table:iso", &w, &wc, &r, &rc);
    OK(put(wc, "k", "v1"));

    /* snapshot: sees what committed before begin, nothing after. */
    OK(r->begin_transaction(r, "isolation=snapshot"));
    CHECK_GET(rc, "k", "v1");
    OK(put(wc, "k", "v2"));
    OK(put(wc, "n", "new"));
    CHECK_GET(rc, "k", "v1");
    CHECK_GET(rc, "n", NULL);
    OK(r->commit_transaction(r, NULL));
    CHECK_GET(rc, "k", "v2");
    OK(rc->reset(rc));

    /* A snapshot is taken at begin, before the first read. */
    OK(r->begin_transaction(r, NULL));
    OK(put(wc, "k", "v3"));
    CHECK_GET(rc, "k", "v2");
    OK(r->rollback_transaction(r, NULL));

    /* read-committed: another session's commit is seen at the next search. */
    OK(w->begin_transaction(w, NULL));
    OK(put(wc, "k", "uncommitted"));
    OK(r->begin_transaction(r, "isolation=read-committed"));
    CHECK_GET(rc, "k", "v3");
    OK(w->commit_transaction(w, NULL));
    CHECK_GET(rc, "k", "uncommitted");
    OK(r->commit_transaction(r, NULL));

    /* read-uncommitted: sees a running transaction's writes, and their rollback. */
    OK(w->begin_transaction(w, NULL));
    OK(put(wc, "k", "dirty"));
    OK(r->begin_transaction(r, "isolation=read-uncommitted"));
    CHECK_GET(rc, "k", "dirty");
    OK(w->rollback_transaction(w, NULL));
    CHECK_GET(rc, "k", "uncommitted");
    OK(r->commit_transaction(r, NULL));

    /* Below snapshot isolation writes are refused, after the existence checks. */
    OK(r->begin_transaction(r, "isolation=read-committed"));
    ul_recorder_clear(&rec);
    CHECK_RC(put(rc, "k", "x"), ENOTSUP);
    CHECK_MSG(&rec, ENOTSUP,
      "write operations are not supported in read-committed or read-uncommitted transactions.");
    rc->set_key(rc, "missing");
    CHECK_RC(rc->remove(rc), WT_NOTFOUND);
    OK(r->rollback_transaction(r, NULL));

    /* The session's isolation applies to transactions begun without one, and auto-commit. */
    OK(r->reconfigure(r, "isolation=read-uncommitted"));
    OK(w->begin_transaction(w, NULL));
    OK(put(wc, "k", "dirty2"));
    CHECK_GET(rc, "k", "dirty2");
    CHECK_RC(put(rc, "k", "x"), ENOTSUP);
    OK(w->rollback_transaction(w, NULL));
    OK(r->reconfigure(r, "isolation=snapshot"));

    OK(w->close(w, NULL));
    OK(r->close(r, NULL));
}

/* Write-write conflicts: the second writer gets WT_ROLLBACK at once; the first's value wins. */
static void
test_conflicts(WT_CONNECTION *conn)
{
    WT_SESSION *a, *b;
    WT_CURSOR *ac, *bc;
    const char *v;

    open_pair(conn, "table:conflict", &a, &ac, &b, &bc);
    OK(put(ac, "k", "base"));
    OK(put(ac, "gone", "base"));

    OK(a->begin_transaction(a, NULL));
    OK(b->begin_transaction(b, NULL));
    OK(put(ac, "k", "first"));
    CHECK_RC(put(bc, "k", "second"), WT_ROLLBACK);
    /* The key and value the application set stay readable. */
    OK(bc->get_value(bc, &v));
    CHECK_STR(v, "second");
    CHECK_STR(b->get_rollback_reason(b), "conflict between concurrent operations");
    /* The doomed transaction still reads its snapshot and may write other keys... */
    CHECK_GET(bc, "k", "base");
    OK(put(bc, "other", "b"));
    CHECK_GET(bc, "other", "b");
    /* ...but cannot commit: EINVAL, and everything it wrote is gone. */
    ul_recorder_clear(&rec);
    CHECK_RC(b->commit_transaction(b, NULL), EINVAL);
    CHECK_MSG(&rec, EINVAL, "failed  transaction requires rollback: conflict between concurrent operations");
    OK(a->commit_transaction(a, NULL));
    CHECK_GET(bc, "k", "first");
    CHECK_GET(bc, "other", NULL);

    /* Committed after the snapshot: a conflict too, removals included. */
    OK(b->begin_transaction(b, NULL));
    OK(put(ac, "k", "later"));
    ac->set_key(ac, "gone");
    OK(ac->remove(ac));
    CHECK_RC(put(bc, "k", "x"), WT_ROLLBACK);
    OK(bc->reconfigure(bc, "overwrite=false"));
    bc->set_key(bc, "gone");
    bc->set_value(bc, "x");
    /* The snapshot still sees "gone": a duplicate before a conflict (the reference's order). */
    CHECK_RC(bc->insert(bc), WT_DUPLICATE_KEY);
    bc->set_key(bc, "gone");
    CHECK_RC(bc->remove(bc), WT_ROLLBACK);
    OK(bc->reconfigure(bc, "overwrite=true"));
    OK(b->rollback_transaction(b, NULL));
    CHECK(b->get_rollback_reason(b) != NULL);
    OK(b->begin_transaction(b, NULL));
    CHECK(b->get_rollback_reason(b) == NULL);
    OK(b->rollback_transaction(b, NULL));

    /* Different keys never conflict. */
    OK(a->begin_transaction(a, NULL));
    OK(b->begin_transaction(b, NULL));
    OK(put(ac, "x", "a"));
    OK(put(bc, "y", "b"));
    OK(a->commit_transaction(a, NULL));
    OK(b->commit_transaction(b, NULL));
    CHECK_GET(ac, "y", "b");

    OK(a->close(a, NULL));
    OK(b->close(b, NULL));
}

/* Own writes are visible to the writer only; rollback discards them and resets cursors. */
static void
test_own_writes_and_rollback(WT_CONNECTION *conn)
{
    WT_SESSION *a, *b;
    WT_CURSOR *ac, *bc, *scan;
    const char *k;
    int n;

    open_pair(conn, "table:own", &a, &ac, &b, &bc);
    OK(put(ac, "keep", "v"));
    OK(a->begin_transaction(a, NULL));
    OK(put(ac, "keep", "changed"));
    OK(put(ac, "new1", "x"));
    OK(put(ac, "new2", "x"));
    ac->set_key(ac, "new2");
    OK(ac->remove(ac));
    CHECK_GET(ac, "keep", "changed");
    CHECK_GET(ac, "new1", "x");
    CHECK_GET(ac, "new2", NULL);
    CHECK_GET(bc, "keep", "v");
    CHECK_GET(bc, "new1", NULL);
    /* A scan inside the transaction sees its own writes. */
    OK(a->open_cursor(a, "table:own", NULL, NULL, &scan));
    for (n = 0; scan->next(scan) == 0; n++)
        ;
    CHECK(n == 2);
    CHECK_GET(ac, "keep", "changed"); /* positions ac */
    OK(a->rollback_transaction(a, NULL));
    /* Every cursor of the session is reset. */
    CHECK_RC(ac->get_key(ac, &k), EINVAL);
    CHECK_RC(scan->get_key(scan, &k), EINVAL);
    CHECK_GET(ac, "keep", "v");
    CHECK_GET(ac, "new1", NULL);
    for (n = 0; scan->next(scan) == 0; n++)
        ;
    CHECK(n == 1);
    OK(scan->close(scan));

    /* Commit keeps cursor positions, keys and values. */
    OK(a->begin_transaction(a, NULL));
    OK(put(ac, "c", "committed"));
    CHECK_GET(ac, "c", "committed");
    OK(a->commit_transaction(a, NULL));
    OK(ac->get_key(ac, &k));
    CHECK_STR(k, "c");
    CHECK_GET(bc, "c", "committed");
    OK(a->close(a, NULL));
    OK(b->close(b, NULL));
}

/* State errors, with the reference's messages and codes. */
static void
test_state_errors(WT_CONNECTION *conn)
{
    WT_SESSION *s;
    WT_CURSOR *c;
    const char *k;
    uint64_t range;

    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->create(s, "table:state", "key_format=S,value_format=S"));
    OK(s->open_cursor(s, "table:state", NULL, NULL, &c));
    OK(put(c, "k", "v"));

    /* Outside a transaction (commit, rollback, bad begin configurations): c-tests/errors.c. */
    OK(s->begin_transaction(s, "name=t1,priority=5,sync=true,operation_timeout_ms=10"));
    ul_recorder_clear(&rec);
    CHECK_RC(s->begin_transaction(s, NULL), EINVAL);
    CHECK_MSG(&rec, EINVAL, "not permitted in a running transaction");
    ul_recorder_clear(&rec);
    CHECK_RC(s->reset(s), EINVAL);
    CHECK_MSG(&rec, EINVAL, "not permitted in a running transaction");
    ul_recorder_clear(&rec);
    CHECK_RC(s->reconfigure(s, "isolation=snapshot"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "not permitted in a running transaction");
    ul_recorder_clear(&rec);
    CHECK_RC(s->checkpoint(s, NULL), ENOTSUP); /* in memory: refused as such first */
    /* This transaction has not written: doomed, it still commits. */
    OK(s->commit_transaction(s, "sync=on"));

    /* An error other than WT_NOTFOUND / WT_DUPLICATE_KEY dooms a writer. */
    OK(s->begin_transaction(s, NULL));
    OK(put(c, "k", "w"));
    CHECK_RC(get(c, "missing", &k), WT_NOTFOUND);
    OK(c->reset(c));
    CHECK_RC(c->get_key(c, &k), EINVAL);
    ul_recorder_clear(&rec);
    CHECK_RC(s->commit_transaction(s, NULL), EINVAL);
    CHECK_MSG(&rec, EINVAL, "failed  transaction requires rollback");
    CHECK_GET(c, "k", "v");

    /* An invalid commit configuration rolls the transaction back. */
    OK(s->begin_transaction(s, NULL));
    OK(put(c, "k", "w"));
    ul_recorder_clear(&rec);
    CHECK_RC(s->commit_transaction(s, "bogus=1"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown configuration key 'bogus'");
    CHECK_RC(s->rollback_transaction(s, NULL), EINVAL);
    CHECK_GET(c, "k", "v");

    /* reset_snapshot: snapshot transactions that have not written. */
    OK(s->begin_transaction(s, NULL));
    OK(s->transaction_pinned_range(s, &range));
    CHECK(range == 0);
    OK(s->reset_snapshot(s));
    OK(put(c, "k", "w"));
    CHECK_RC(s->reset_snapshot(s), ENOTSUP);
    OK(s->rollback_transaction(s, NULL));
    OK(s->begin_transaction(s, "isolation=read-committed"));
    CHECK_RC(s->reset_snapshot(s), ENOTSUP);
    OK(s->rollback_transaction(s, NULL));
    OK(s->close(s, NULL));
}

/* Closing a session, or the connection, with a running transaction rolls it back. */
static void
test_close_with_running_transactions(void)
{
    WT_CONNECTION *c2;
    WT_SESSION *s, *t, *u;
    WT_CURSOR *sc, *tc, *uc;

    ul_recorder_init(&rec);
    ul_open(&rec, INMEM, &c2, &s);
    OK(s->create(s, "table:close", "key_format=S,value_format=S"));
    OK(s->open_cursor(s, "table:close", NULL, NULL, &sc));
    OK(put(sc, "k", "v"));
    OK(c2->open_session(c2, NULL, NULL, &t));
    OK(t->open_cursor(t, "table:close", NULL, NULL, &tc));
    OK(t->begin_transaction(t, NULL));
    OK(put(tc, "k", "lost"));
    OK(put(tc, "n", "lost"));
    OK(t->close(t, NULL));
    CHECK_GET(sc, "k", "v");
    CHECK_GET(sc, "n", NULL);
    /* The key is free again: an auto-commit write does not wait. */
    OK(put(sc, "k", "w"));
    /* Connection close rolls back the transactions it finds. */
    OK(c2->open_session(c2, NULL, NULL, &u));
    OK(u->open_cursor(u, "table:close", NULL, NULL, &uc));
    OK(u->begin_transaction(u, NULL));
    OK(put(uc, "k", "never"));
    OK(s->begin_transaction(s, "isolation=read-committed"));
    CHECK_GET(sc, "k", "w");
    OK(c2->close(c2, NULL));
}

/* A thread commits again and again while this one reads: snapshots stay stable. */
static volatile int committer_stop;
static WT_CONNECTION *tconn;

static void *
committer(void *arg)
{
    WT_SESSION *s;
    WT_CURSOR *c;
    char v[32];
    long n;

    (void)arg;
    if (tconn->open_session(tconn, NULL, NULL, &s) != 0 ||
      s->open_cursor(s, "table:live", NULL, NULL, &c) != 0)
        return (void *)1;
    for (n = 1; !committer_stop; n++) {
        snprintf(v, sizeof(v), "%ld", n);
        if (s->begin_transaction(s, NULL) != 0 || put(c, "a", v) != 0 || put(c, "b", v) != 0 ||
          s->commit_transaction(s, NULL) != 0)
            return (void *)1;
    }
    return s->close(s, NULL) == 0 ? NULL : (void *)1;
}

static void
test_concurrent_committer(WT_CONNECTION *conn)
{
    WT_SESSION *s;
    WT_CURSOR *c;
    pthread_t tid;
    const char *a, *b;
    char first[32];
    void *result;
    int i, changed = 0, torn = 0, r1, r2;

    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->create(s, "table:live", "key_format=S,value_format=S"));
    OK(s->open_cursor(s, "table:live", NULL, NULL, &c));
    OK(put(c, "a", "0"));
    OK(put(c, "b", "0"));
    tconn = conn;
    committer_stop = 0;
    CHECK(pthread_create(&tid, NULL, committer, NULL) == 0);
    /* 2000 rounds, and on until the committer has been seen (a loaded machine may not run it). */
    for (i = 0; i < 2000 || (changed == 0 && i < 2000000); i++) {
        /* snapshot: both keys agree, and nothing changes inside the transaction. */
        OK(s->begin_transaction(s, NULL));
        r1 = get(c, "a", &a);
        CHECK_RC(r1, 0);
        snprintf(first, sizeof(first), "%s", r1 == 0 ? a : "");
        r2 = get(c, "b", &b);
        CHECK_RC(r2, 0);
        if (r2 == 0 && strcmp(first, b) != 0)
            torn++;
        r1 = get(c, "a", &a);
        if (r1 != 0 || strcmp(first, a) != 0)
            torn++;
        OK(s->commit_transaction(s, NULL));
        /* read-uncommitted and read-committed see progress over time. */
        OK(s->begin_transaction(s, i % 2 ? "isolation=read-committed" : "isolation=read-uncommitted"));
        r1 = get(c, "a", &a);
        if (r1 == 0 && strcmp(first, a) != 0)
            changed++;
        OK(c->reset(c));
        OK(s->commit_transaction(s, NULL));
    }
    committer_stop = 1;
    CHECK(pthread_join(tid, &result) == 0 && result == NULL);
    CHECK(torn == 0);
    CHECK(changed > 0);
    OK(s->close(s, NULL));
}

/* The bank: transfers in snapshot transactions, retried on WT_ROLLBACK; audits see the total. */
#define ACCOUNTS 16
#define START 1000
#define BANK_THREADS 4
#define BANK_ROUNDS 2000

typedef struct {
    int id;
    int errors, bad_sums;
    long transfers, conflicts;
    uint64_t rng;
} teller;

static int
add(WT_CURSOR *c, int64_t account, int64_t delta)
{
    int64_t balance;
    int ret;

    c->set_key(c, account);
    if ((ret = c->search(c)) != 0 || (ret = c->get_value(c, &balance)) != 0)
        return ret;
    c->set_value(c, balance + delta);
    return c->update(c);
}

static void *
bank_thread(void *arg)
{
    teller *t = arg;
    WT_SESSION *s;
    WT_CURSOR *c;
    int64_t a, balance, sum;
    int i, ret;

    if (tconn->open_session(tconn, NULL, NULL, &s) != 0 ||
      s->open_cursor(s, "table:bank", NULL, NULL, &c) != 0) {
        t->errors++;
        return NULL;
    }
    for (i = 0; i < BANK_ROUNDS; i++) {
        if (t->id == 0) {
            /* The auditor. */
            if (s->begin_transaction(s, NULL) != 0) {
                t->errors++;
                continue;
            }
            for (sum = 0, a = 0; a < ACCOUNTS; a++) {
                c->set_key(c, a);
                if (c->search(c) != 0 || c->get_value(c, &balance) != 0)
                    t->errors++;
                else
                    sum += balance;
            }
            if (sum != (int64_t)ACCOUNTS * START)
                t->bad_sums++;
            if (s->commit_transaction(s, NULL) != 0)
                t->errors++;
            continue;
        }
        if (s->begin_transaction(s, NULL) != 0) {
            t->errors++;
            continue;
        }
        a = (int64_t)(ul_rand(&t->rng) % ACCOUNTS);
        if ((ret = add(c, a, -7)) == 0)
            ret = add(c, (int64_t)(ul_rand(&t->rng) % ACCOUNTS), 7);
        if (ret == 0)
            ret = s->commit_transaction(s, NULL);
        else {
            if (ret != WT_ROLLBACK)
                t->errors++;
            else
                t->conflicts++;
            (void)s->rollback_transaction(s, NULL);
        }
        if (ret == 0)
            t->transfers++;
    }
    if (s->close(s, NULL) != 0)
        t->errors++;
    return NULL;
}

static void
test_bank(WT_CONNECTION *conn)
{
    WT_SESSION *s;
    WT_CURSOR *c;
    teller tellers[BANK_THREADS];
    int64_t a, balance, sum;
    long transfers = 0;
    int i;

    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->create(s, "table:bank", "key_format=q,value_format=q"));
    OK(s->open_cursor(s, "table:bank", NULL, NULL, &c));
    for (a = 0; a < ACCOUNTS; a++) {
        c->set_key(c, a);
        c->set_value(c, (int64_t)START);
        OK(c->insert(c));
    }
    tconn = conn;
    for (i = 0; i < BANK_THREADS; i++) {
        memset(&tellers[i], 0, sizeof(tellers[i]));
        tellers[i].id = i;
        tellers[i].rng = (uint64_t)i + 11;
    }
    {
        pthread_t tids[BANK_THREADS];
        for (i = 0; i < BANK_THREADS; i++)
            CHECK(pthread_create(&tids[i], NULL, bank_thread, &tellers[i]) == 0);
        for (i = 0; i < BANK_THREADS; i++)
            CHECK(pthread_join(tids[i], NULL) == 0);
    }
    for (i = 0; i < BANK_THREADS; i++) {
        CHECK(tellers[i].errors == 0);
        CHECK(tellers[i].bad_sums == 0);
        transfers += tellers[i].transfers;
    }
    CHECK(transfers > 0);
    for (sum = 0, a = 0; a < ACCOUNTS; a++) {
        c->set_key(c, a);
        OK(c->search(c));
        OK(c->get_value(c, &balance));
        sum += balance;
    }
    CHECK(sum == (int64_t)ACCOUNTS * START);
    OK(s->close(s, NULL));
}

/*
 * An insert without overwrite by a cursor that holds the session's read snapshot outside a
 * transaction (it is positioned): the insert searches from scratch, as the reference's, so the
 * duplicate key's value it returns is the one stored now, not the snapshot's (difftest seeds
 * 4011 and 4026).
 */
static void
test_duplicate_after_a_held_snapshot(WT_CONNECTION *conn)
{
    WT_SESSION *a, *b;
    WT_CURSOR *ac, *bc, *nc;
    const char *v;

    open_pair(conn, "table:dup_snapshot", &a, &ac, &b, &bc);
    OK(b->open_cursor(b, "table:dup_snapshot", NULL, "overwrite=false", &nc));
    OK(put(ac, "k", "old"));
    OK(put(ac, "m", "m"));
    /* nc is positioned: b holds a read snapshot in which k is "old". */
    CHECK_GET(nc, "m", "m");
    OK(put(ac, "k", "new"));
    nc->set_key(nc, "k");
    nc->set_value(nc, "mine");
    CHECK_RC(nc->insert(nc), WT_DUPLICATE_KEY);
    OK(nc->get_value(nc, &v));
    CHECK_STR(v, "new");
    OK(nc->close(nc));
    OK(a->close(a, NULL));
    OK(b->close(b, NULL));
}

int
main(void)
{
    WT_CONNECTION *conn;
    WT_SESSION *s;

    ul_recorder_init(&rec);
    ul_open(&rec, INMEM, &conn, &s);
    test_isolation_levels(conn);
    test_conflicts(conn);
    test_own_writes_and_rollback(conn);
    test_state_errors(conn);
    test_concurrent_committer(conn);
    test_bank(conn);
    test_duplicate_after_a_held_snapshot(conn);
    OK(conn->close(conn, NULL));
    test_close_with_running_transactions();
    return ul_done("txn");
}
