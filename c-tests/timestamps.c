/*
 * Timestamps and prepared transactions, compared with the reference step by step.
 *
 * Each step prints one line: what was called, its return code, and what it returned (a
 * value, a timestamp) or the error message it reported. The transcript the reference engine
 * printed is committed as c-tests/traces/timestamps.expected; run with that file's path, the
 * program compares its own transcript with it line by line and fails on the first difference.
 * Run with --record (built against the reference's header and library) to print a new one.
 *
 * Scenarios: the connection's oldest/stable/durable timestamps and their rules; commits at
 * timestamps and reads at many read timestamps; the transaction's timestamp rules and
 * queries; prepared transactions (conflicts, ignore_prepare, commit and rollback);
 * write conflicts against read timestamps; rollback_to_stable; a checkpoint at the stable
 * timestamp and a reopen of an on-disk database without a journal.
 */
#define _GNU_SOURCE /* mkdtemp */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "wiredtiger.h"

static char *transcript;
static size_t used, capacity;
static char message[1024];
static char cmd_buffer[512];

/* Appends one formatted line to the transcript. */
static void
line(const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof(text))
        n = sizeof(text) - 1;
    if (getenv("TIMESTAMPS_ECHO") != NULL)
        fprintf(stderr, "%s\n", text);
    if (used + (size_t)n + 2 > capacity) {
        capacity = (capacity + (size_t)n + 2) * 2;
        if ((transcript = realloc(transcript, capacity)) == NULL)
            exit(2);
    }
    memcpy(transcript + used, text, (size_t)n);
    used += (size_t)n;
    transcript[used++] = '\n';
    transcript[used] = '\0';
}

/* Keeps the text of an error message: what follows "[ERROR]: " and any "function, line: "
 * prefix, without the trailing ": strerror". */
static int
on_error(WT_EVENT_HANDLER *h, WT_SESSION *s, int error, const char *msg)
{
    (void)h;
    (void)s;
    if (getenv("TIMESTAMPS_ECHO") != NULL)
        fprintf(stderr, "  (message: %s)\n", msg);
    const char *p = strstr(msg, "[ERROR]: ");
    p = p == NULL ? msg : p + strlen("[ERROR]: ");
    const char *comma = strstr(p, ", ");
    if (p[0] == '_' && comma != NULL) {
        const char *colon = strstr(comma, ": ");
        if (colon != NULL)
            p = colon + 2;
    }
    snprintf(message, sizeof(message), "%s", p);
    const char *reason = wiredtiger_strerror(error);
    size_t n = strlen(message), r = strlen(reason);
    if (n > r + 2 && strcmp(message + n - r, reason) == 0 && message[n - r - 2] == ':')
        message[n - r - 2] = '\0';
    return 0;
}

static WT_EVENT_HANDLER handler = {on_error, NULL, NULL, NULL, NULL};

/* Records a call's outcome: the code, and the message it reported if it failed. */
static int
outcome(const char *what, int rc)
{
    if (rc == 0)
        line("%s -> 0", what);
    else if (message[0] != '\0')
        line("%s -> %d: %s", what, rc, message);
    else
        line("%s -> %d", what, rc);
    message[0] = '\0';
    return rc;
}

#define DO(call) outcome(#call, (call))

static WT_CONNECTION *conn;

/* A timestamp query of the connection. */
static void
conn_query(const char *get)
{
    char hex[64], config[64];
    snprintf(config, sizeof(config), "get=%s", get);
    message[0] = '\0';
    int rc = conn->query_timestamp(conn, hex, config);
    if (rc == 0)
        line("conn query %s = %s", get, hex);
    else
        outcome(config, rc);
}

/* A timestamp query of a session. */
static void
session_query(WT_SESSION *s, const char *name, const char *get)
{
    char hex[64], config[64];
    snprintf(config, sizeof(config), "get=%s", get);
    message[0] = '\0';
    int rc = s->query_timestamp(s, hex, config);
    if (rc == 0)
        line("%s query %s = %s", name, get, hex);
    else
        outcome(config, rc);
}

/* Searches `key` and records the value or the code. */
static void
lookup(WT_CURSOR *c, const char *name, const char *key)
{
    const char *value;
    c->set_key(c, key);
    message[0] = '\0';
    int rc = c->search(c);
    if (rc == 0 && c->get_value(c, &value) == 0)
        line("%s search %s = %s", name, key, value);
    else
        line("%s search %s -> %s", name, key, wiredtiger_strerror(rc));
    c->reset(c);
}

/* Reads `key` in a new transaction begun with `config`. */
static void
read_in(WT_SESSION *s, WT_CURSOR *c, const char *config, const char *key)
{
    message[0] = '\0';
    int rc = s->begin_transaction(s, config);
    if (rc != 0) {
        outcome(config, rc);
        return;
    }
    char name[96];
    snprintf(name, sizeof(name), "[%s]", config);
    lookup(c, name, key);
    s->rollback_transaction(s, NULL);
}

/* Writes key=value in a transaction committed with `commit` (a commit configuration). */
static void
put(WT_SESSION *s, WT_CURSOR *c, const char *key, const char *value, const char *commit)
{
    char what[160];
    s->begin_transaction(s, NULL);
    c->set_key(c, key);
    c->set_value(c, value);
    message[0] = '\0';
    int rc = c->insert(c);
    if (rc != 0) {
        snprintf(what, sizeof(what), "insert %s=%s", key, value);
        outcome(what, rc);
        s->rollback_transaction(s, NULL);
        return;
    }
    snprintf(what, sizeof(what), "commit %s=%s (%s)", key, value, commit);
    outcome(what, s->commit_transaction(s, commit));
}

/* Scans forward and records what each step returns. */
static void
scan(WT_CURSOR *c, const char *name)
{
    const char *k, *v;
    int rc, n = 0;
    while ((rc = c->next(c)) == 0 && n++ < 20) {
        c->get_key(c, &k);
        c->get_value(c, &v);
        line("%s next = %s/%s", name, k, v);
    }
    line("%s next -> %s", name, wiredtiger_strerror(rc));
    c->reset(c);
}

static void
connection_timestamps(void)
{
    line("## connection timestamps");
    conn_query("all_durable");
    conn_query("oldest_timestamp");
    conn_query("stable_timestamp");
    conn_query("pinned");
    conn_query("oldest_reader");
    conn_query("last_checkpoint");
    conn_query("recovery");
    conn_query("nonsense");
    DO(conn->set_timestamp(conn, "oldest_timestamp=10,stable_timestamp=20"));
    conn_query("oldest");
    conn_query("stable");
    conn_query("pinned");
    DO(conn->set_timestamp(conn, "oldest_timestamp=30"));
    DO(conn->set_timestamp(conn, "stable_timestamp=15"));
    DO(conn->set_timestamp(conn, "oldest_timestamp=8"));
    DO(conn->set_timestamp(conn, "oldest_timestamp=0"));
    DO(conn->set_timestamp(conn, "stable_timestamp=xyz"));
    DO(conn->set_timestamp(conn, "bogus=1"));
    DO(conn->set_timestamp(conn, ""));
    DO(conn->set_timestamp(conn, "oldest_timestamp=5,stable_timestamp=12,force=true"));
    conn_query("oldest");
    conn_query("stable");
    DO(conn->set_timestamp(conn, "oldest_timestamp=10,stable_timestamp=20"));
    DO(conn->set_timestamp(conn, "durable_timestamp=18"));
    conn_query("all_durable");
}

/* Logged tables ignore timestamps: every read timestamp sees the newest commit. */
static void
logged_table(WT_SESSION *s)
{
    WT_CURSOR *c;
    line("## a logged table ignores timestamps");
    DO(s->create(s, "table:logged", "key_format=S,value_format=S"));
    s->open_cursor(s, "table:logged", NULL, NULL, &c);
    put(s, c, "a", "a30", "commit_timestamp=30");
    put(s, c, "a", "a40", "commit_timestamp=40");
    read_in(s, c, "read_timestamp=30", "a");
    read_in(s, c, "read_timestamp=20", "a");
    DO(s->begin_transaction(s, NULL));
    c->set_key(c, "b");
    c->set_value(c, "b");
    DO(c->insert(c));
    DO(s->prepare_transaction(s, "prepare_timestamp=50"));
    DO(s->rollback_transaction(s, NULL));
    conn_query("all_durable");
    DO(c->close(c));
}

static void
commits_and_reads(WT_SESSION *s, WT_CURSOR *c)
{
    line("## commits and reads at timestamps");
    put(s, c, "a", "a30", "commit_timestamp=30");
    put(s, c, "a", "a40", "commit_timestamp=40");
    put(s, c, "b", "b35", "commit_timestamp=35");
    put(s, c, "a", "a50", "commit_timestamp=50");
    put(s, c, "c", "c-none", NULL);
    put(s, c, "d", "d20", "commit_timestamp=20");
    put(s, c, "d", "d1f", "commit_timestamp=1f");
    conn_query("all_durable");
    const char *reads[] = {"read_timestamp=10", "read_timestamp=2f", "read_timestamp=30",
      "read_timestamp=3f", "read_timestamp=40", "read_timestamp=4f", "read_timestamp=50",
      "read_timestamp=ff", NULL};
    for (int i = 0; reads[i] != NULL; i++) {
        read_in(s, c, reads[i], "a");
        read_in(s, c, reads[i], "b");
        read_in(s, c, reads[i], "c");
    }
    read_in(s, c, NULL, "a");
    read_in(s, c, "read_timestamp=5", "a");
    read_in(s, c, "read_timestamp=5,roundup_timestamps=(read=true)", "a");
    read_in(s, c, "read_timestamp=0", "a");
    read_in(s, c, "read_timestamp=zz", "a");
    read_in(s, c, "isolation=read-committed,read_timestamp=35", "a");

    DO(s->begin_transaction(s, "read_timestamp=3f"));
    session_query(s, "s", "read");
    scan(c, "[read 3f]");
    DO(s->rollback_transaction(s, NULL));
    session_query(s, "s", "read");
}

static void
transaction_rules(WT_SESSION *s, WT_CURSOR *c)
{
    line("## transaction timestamp rules");
    DO(s->timestamp_transaction(s, "commit_timestamp=60"));
    /* Each error dooms its transaction: one transaction per error, rolled back. */
    const char *bad[] = {"commit_timestamp=14", "commit_timestamp=8", "durable_timestamp=70",
      "commit_timestamp=0", "read_timestamp=zz", "prepare_timestamp=10", NULL};
    for (int i = 0; bad[i] != NULL; i++) {
        DO(s->begin_transaction(s, NULL));
        outcome(bad[i], s->timestamp_transaction(s, bad[i]));
        DO(s->rollback_transaction(s, NULL));
    }
    DO(s->begin_transaction(s, NULL));
    DO(s->timestamp_transaction_uint(s, WT_TS_TXN_TYPE_COMMIT, 0));
    DO(s->rollback_transaction(s, NULL));
    DO(s->begin_transaction(s, NULL));
    DO(s->timestamp_transaction_uint(s, WT_TS_TXN_TYPE_READ, 0));
    DO(s->rollback_transaction(s, NULL));
    DO(s->begin_transaction(s, NULL));
    DO(s->timestamp_transaction(s, "commit_timestamp=60"));
    DO(s->timestamp_transaction(s, "commit_timestamp=5f"));
    DO(s->rollback_transaction(s, NULL));
    DO(s->begin_transaction(s, "read_timestamp=40"));
    DO(s->timestamp_transaction(s, "read_timestamp=41"));
    DO(s->rollback_transaction(s, NULL));
    DO(s->begin_transaction(s, "isolation=read-committed"));
    DO(s->timestamp_transaction(s, "commit_timestamp=80"));
    DO(s->rollback_transaction(s, NULL));

    /* Versions keep the commit timestamp set when they were written. */
    DO(s->begin_transaction(s, NULL));
    DO(s->timestamp_transaction(s, "commit_timestamp=60"));
    session_query(s, "s", "commit");
    c->set_key(c, "e");
    c->set_value(c, "e60");
    DO(c->insert(c));
    DO(s->timestamp_transaction(s, "commit_timestamp=62"));
    session_query(s, "s", "commit");
    session_query(s, "s", "first_commit");
    c->set_key(c, "f");
    c->set_value(c, "f62");
    DO(c->insert(c));
    DO(s->timestamp_transaction(s, "unknown_key=1"));
    DO(s->commit_transaction(s, "commit_timestamp=64"));
    session_query(s, "s", "commit");
    read_in(s, c, "read_timestamp=61", "e");
    read_in(s, c, "read_timestamp=61", "f");
    read_in(s, c, "read_timestamp=63", "f");
    read_in(s, c, "read_timestamp=64", "f");

    /* A key written before the commit timestamp was set gets the final one. */
    DO(s->begin_transaction(s, NULL));
    c->set_key(c, "g");
    c->set_value(c, "g70");
    DO(c->insert(c));
    DO(s->timestamp_transaction_uint(s, WT_TS_TXN_TYPE_COMMIT, 0x70));
    DO(s->commit_transaction(s, NULL));
    read_in(s, c, "read_timestamp=6f", "g");
    read_in(s, c, "read_timestamp=70", "g");

    /* Errors at commit roll back. */
    DO(s->begin_transaction(s, NULL));
    c->set_key(c, "h");
    c->set_value(c, "h");
    DO(c->insert(c));
    DO(s->commit_transaction(s, "commit_timestamp=10"));
    read_in(s, c, NULL, "h");
    DO(s->begin_transaction(s, NULL));
    c->set_key(c, "h");
    c->set_value(c, "h");
    DO(c->insert(c));
    DO(s->commit_transaction(s, "commit_timestamp=72,durable_timestamp=73"));
    read_in(s, c, NULL, "h");
    conn_query("all_durable");
}

static void
write_conflicts(WT_CONNECTION *cn, WT_CURSOR *c)
{
    WT_SESSION *s2;
    WT_CURSOR *c2;
    line("## write conflicts against read timestamps");
    cn->open_session(cn, &handler, NULL, &s2);
    s2->open_cursor(s2, "table:t", NULL, NULL, &c2);
    DO(s2->begin_transaction(s2, "read_timestamp=45"));
    c2->set_key(c2, "a");
    c2->set_value(c2, "a-conflict");
    DO(c2->update(c2));
    DO(s2->rollback_transaction(s2, NULL));
    DO(s2->begin_transaction(s2, "read_timestamp=55"));
    c2->set_key(c2, "a");
    c2->set_value(c2, "a-ok");
    DO(c2->update(c2));
    DO(s2->commit_transaction(s2, "commit_timestamp=90"));
    (void)c;
    s2->close(s2, NULL);
}

static void
prepared(WT_CONNECTION *cn, WT_SESSION *s, WT_CURSOR *c)
{
    WT_SESSION *p;
    WT_CURSOR *pc;
    line("## prepared transactions");
    cn->open_session(cn, &handler, NULL, &p);
    p->open_cursor(p, "table:t", NULL, NULL, &pc);
    DO(p->prepare_transaction(p, "prepare_timestamp=a0"));
    /* Failed prepares (each dooms its transaction). */
    const char *bad[] = {NULL, "prepare_timestamp=10", "bogus=1", NULL};
    for (int i = 0; i < 3; i++) {
        DO(p->begin_transaction(p, NULL));
        outcome(bad[i] == NULL ? "prepare (none)" : bad[i], p->prepare_transaction(p, bad[i]));
        DO(p->rollback_transaction(p, NULL));
    }
    DO(p->begin_transaction(p, NULL));
    pc->set_key(pc, "m");
    pc->set_value(pc, "m-prepared");
    DO(pc->insert(pc));
    pc->set_key(pc, "a");
    pc->set_value(pc, "a-prepared");
    DO(pc->update(pc));
    DO(p->prepare_transaction(p, "prepare_timestamp=a0"));
    session_query(p, "p", "prepare");
    /* Refused in a prepared transaction, without dooming it. (Cursor calls there panic the
     * reference's connection; unlatched refuses them: prepared_cursor_calls.) */
    DO(p->prepare_transaction(p, "prepare_timestamp=a1"));
    DO(p->begin_transaction(p, NULL));
    DO(p->timestamp_transaction(p, "read_timestamp=50"));

    read_in(s, c, NULL, "m");
    read_in(s, c, "read_timestamp=a0", "m");
    read_in(s, c, "read_timestamp=9f", "m");
    read_in(s, c, "read_timestamp=a0", "a");
    read_in(s, c, "read_timestamp=9f", "a");
    read_in(s, c, "ignore_prepare=true", "m");
    read_in(s, c, "ignore_prepare=true", "a");
    read_in(s, c, "ignore_prepare=force", "a");
    lookup(c, "autocommit", "a");
    lookup(c, "autocommit", "b");

    DO(s->begin_transaction(s, "read_timestamp=a5"));
    scan(c, "[read a5]");
    DO(s->rollback_transaction(s, NULL));
    DO(s->begin_transaction(s, "read_timestamp=9f"));
    scan(c, "[read 9f]");
    DO(s->rollback_transaction(s, NULL));
    DO(s->begin_transaction(s, "ignore_prepare=true"));
    scan(c, "[ignore_prepare]");
    c->set_key(c, "y");
    c->set_value(c, "y");
    DO(c->insert(c));
    DO(s->rollback_transaction(s, NULL));
    DO(s->begin_transaction(s, NULL));
    c->set_key(c, "m");
    c->set_value(c, "m-other");
    DO(c->insert(c));
    DO(s->rollback_transaction(s, NULL));

    DO(p->timestamp_transaction(p, "commit_timestamp=a8"));
    DO(p->timestamp_transaction(p, "durable_timestamp=a9"));
    session_query(p, "p", "commit");
    session_query(p, "p", "prepare");
    conn_query("all_durable");
    DO(p->commit_transaction(p, NULL));
    read_in(s, c, "read_timestamp=a7", "m");
    read_in(s, c, "read_timestamp=a8", "m");
    read_in(s, c, NULL, "a");
    conn_query("all_durable");

    /* A prepared transaction rolled back. */
    DO(p->begin_transaction(p, NULL));
    pc->set_key(pc, "n");
    pc->set_value(pc, "n-prepared");
    DO(pc->insert(pc));
    DO(p->prepare_transaction(p, "prepare_timestamp=b0"));
    read_in(s, c, NULL, "n");
    DO(p->rollback_transaction(p, NULL));
    read_in(s, c, NULL, "n");

    /* Commit and durable timestamps given to commit_transaction. */
    DO(p->begin_transaction(p, NULL));
    pc->set_key(pc, "o");
    pc->set_value(pc, "o-prepared");
    DO(pc->insert(pc));
    DO(p->timestamp_transaction_uint(p, WT_TS_TXN_TYPE_PREPARE, 0xb0));
    DO(p->prepare_transaction(p, NULL));
    DO(p->commit_transaction(p, "commit_timestamp=b1,durable_timestamp=b2"));
    read_in(s, c, "read_timestamp=b0", "o");
    read_in(s, c, "read_timestamp=b1", "o");

    /* A prepare after a commit timestamp. */
    DO(p->begin_transaction(p, NULL));
    DO(p->timestamp_transaction(p, "commit_timestamp=c0"));
    DO(p->prepare_transaction(p, "prepare_timestamp=c0"));
    DO(p->rollback_transaction(p, NULL));
    /* Timestamps a transaction that is not prepared may not have. */
    DO(p->begin_transaction(p, NULL));
    DO(p->timestamp_transaction(p, "prepare_timestamp=c0"));
    DO(p->commit_transaction(p, NULL));
    /* Rounded up to the oldest timestamp, and the commit to the prepare timestamp. */
    DO(p->begin_transaction(p, "roundup_timestamps=(prepared=true)"));
    pc->set_key(pc, "q");
    pc->set_value(pc, "q");
    DO(pc->insert(pc));
    DO(p->prepare_transaction(p, "prepare_timestamp=5"));
    session_query(p, "p", "prepare");
    DO(p->commit_transaction(p, "commit_timestamp=6,durable_timestamp=c1"));
    read_in(s, c, NULL, "q");
    p->close(p, NULL);
}

static void
rollback_to_stable(WT_SESSION *s, WT_CURSOR *c)
{
    line("## rollback_to_stable");
    DO(conn->set_timestamp(conn, "stable_timestamp=a8"));
    DO(s->begin_transaction(s, NULL));
    DO(conn->rollback_to_stable(conn, NULL));
    DO(s->rollback_transaction(s, NULL));
    DO(c->close(c));
    DO(conn->rollback_to_stable(conn, NULL));
    DO(s->open_cursor(s, "table:t", NULL, NULL, &c));
    scan(c, "[after rts]");
    conn_query("stable");
    conn_query("all_durable");
    DO(c->close(c));
}

/* A checkpoint holds what is stable; a reopen comes back to it. */
static void
on_disk(const char *home)
{
    WT_SESSION *s;
    WT_CURSOR *c;
    line("## checkpoint at the stable timestamp, reopen");
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "rm -rf %s && mkdir -p %s", home, home);
    if (system(cmd) != 0)
        exit(2);
    DO(wiredtiger_open(home, &handler, "create", &conn));
    conn->open_session(conn, &handler, NULL, &s);
    DO(s->create(s, "table:d", "key_format=S,value_format=S"));
    s->open_cursor(s, "table:d", NULL, NULL, &c);
    DO(conn->set_timestamp(conn, "oldest_timestamp=1,stable_timestamp=1"));
    put(s, c, "k1", "v10", "commit_timestamp=10");
    put(s, c, "k2", "v20", "commit_timestamp=20");
    put(s, c, "k3", "none", NULL);
    DO(conn->set_timestamp(conn, "stable_timestamp=15"));
    DO(s->checkpoint(s, NULL));
    conn_query("last_checkpoint");
    put(s, c, "k4", "v30", "commit_timestamp=30");
    DO(conn->set_timestamp(conn, "stable_timestamp=25"));
    DO(c->close(c));
    DO(conn->close(conn, NULL));
    DO(wiredtiger_open(home, &handler, NULL, &conn));
    conn_query("recovery");
    conn_query("stable");
    conn_query("last_checkpoint");
    conn_query("oldest");
    conn->open_session(conn, &handler, NULL, &s);
    s->open_cursor(s, "table:d", NULL, NULL, &c);
    scan(c, "[reopened]");
    /* use_timestamp=false: the checkpoint, or the close, holds every commit. */
    put(s, c, "k5", "v40", "commit_timestamp=40");
    DO(s->checkpoint(s, "use_timestamp=false"));
    conn_query("last_checkpoint");
    put(s, c, "k6", "v50", "commit_timestamp=50");
    DO(c->close(c));
    DO(conn->close(conn, "use_timestamp=false"));
    DO(wiredtiger_open(home, &handler, NULL, &conn));
    conn_query("recovery");
    conn_query("stable");
    conn->open_session(conn, &handler, NULL, &s);
    s->open_cursor(s, "table:d", NULL, NULL, &c);
    scan(c, "[reopened after use_timestamp=false]");
    DO(c->close(c));
    DO(conn->close(conn, NULL));
}


/* ---- Random sequences ------------------------------------------------------------------- */

#define RSESSIONS 3
#define RKEYS 8

static uint64_t rng;

static uint64_t
rnd(uint64_t n)
{
    rng += 0x9E3779B97F4A7C15ULL;
    uint64_t z = rng;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return n == 0 ? 0 : (z ^ (z >> 31)) % n;
}

enum rstate { R_IDLE, R_READING, R_PREPARED };

typedef struct {
    WT_SESSION *s;
    WT_CURSOR *c;
    enum rstate state;
    uint64_t prepare_ts;
    unsigned written; /* keys the running transaction wrote (a bit each) */
    char name[8];
} rsession;

static rsession rs[RSESSIONS];
static uint64_t r_now, r_oldest, r_stable;
/* Each key's newest durable timestamp, or more (a prepared commit must not go below it: the
 * reference stops the connection when it does). */
static uint64_t r_durable[RKEYS];
static int r_last_key;

static const char *
rkey(void)
{
    static char k[8];
    r_last_key = (int)rnd(RKEYS);
    snprintf(k, sizeof(k), "k%d", r_last_key);
    return k;
}

/* The session's transaction committed its keys at durable timestamp `ts` (0: none). */
static void
r_committed(rsession *r, uint64_t ts)
{
    for (int k = 0; k < RKEYS; k++)
        if (r->written & (1u << k))
            r_durable[k] = ts;
    r->written = 0;
}

/* One write (insert, update or remove) in the session's transaction; returns its code. */
static int
rwrite(rsession *r, int step)
{
    char what[64], value[32];
    const char *k = rkey();
    r->written |= 1u << r_last_key;
    int op = (int)rnd(3);
    r->c->set_key(r->c, k);
    message[0] = '\0';
    int rc;
    if (op == 2) {
        rc = r->c->remove(r->c);
        snprintf(what, sizeof(what), "%s remove %s", r->name, k);
    } else {
        snprintf(value, sizeof(value), "v%d", step);
        r->c->set_value(r->c, value);
        rc = op == 0 ? r->c->insert(r->c) : r->c->update(r->c);
        snprintf(what, sizeof(what), "%s %s %s=%s", r->name, op == 0 ? "insert" : "update", k, value);
    }
    outcome(what, rc);
    return rc;
}

/* A search of a random key in the session, printed. */
static void
rsearch(rsession *r)
{
    char name[32];
    snprintf(name, sizeof(name), "%s", r->name);
    lookup(r->c, name, rkey());
}

/* begin + 1-3 writes + commit at a timestamp (or a refused one, or a rollback). */
static void
r_commit(rsession *r, int step)
{
    char config[64];
    r->written = 0;
    outcome("begin", r->s->begin_transaction(r->s, rnd(5) == 0 ? "no_timestamp=true" : NULL));
    int writes = 1 + (int)rnd(3), rc = 0;
    uint64_t early = 0;
    if (rnd(4) == 0) {
        r_now += 1 + rnd(2);
        snprintf(config, sizeof(config), "commit_timestamp=%" PRIx64, r_now);
        if ((rc = outcome(config, r->s->timestamp_transaction(r->s, config))) == 0)
            early = r_now;
    }
    for (int i = 0; i < writes && (rc == 0 || rc == WT_NOTFOUND || rc == WT_DUPLICATE_KEY); i++)
        rc = rwrite(r, step);
    if (rc != 0 && rc != WT_NOTFOUND && rc != WT_DUPLICATE_KEY) {
        outcome("rollback", r->s->rollback_transaction(r->s, NULL));
        return;
    }
    uint64_t ts = rnd(8) == 0 ? r_stable - rnd(2) : rnd(8) == 0 ? r_now - rnd(4) : (r_now += 1 + rnd(2));
    snprintf(config, sizeof(config), "commit_timestamp=%" PRIx64, ts);
    int plain = rnd(6) == 0;
    if (outcome(plain ? "commit" : config, r->s->commit_transaction(r->s, plain ? NULL : config)) == 0)
        r_committed(r, plain ? early : ts > early ? ts : early);
    r->written = 0;
}

/* A short read transaction at a random read timestamp (or none, or ignoring prepares). */
static void
r_read(rsession *r)
{
    char config[96];
    switch (rnd(5)) {
    case 0:
        config[0] = '\0';
        break;
    case 1:
        snprintf(config, sizeof(config), "ignore_prepare=true,read_timestamp=%" PRIx64, r_oldest + rnd(r_now - r_oldest + 3));
        break;
    case 2:
        snprintf(config, sizeof(config), "roundup_timestamps=(read=true),read_timestamp=%" PRIx64, r_oldest - rnd(3));
        break;
    default:
        snprintf(config, sizeof(config), "read_timestamp=%" PRIx64, r_oldest - 1 + rnd(r_now - r_oldest + 4));
    }
    char what[128];
    snprintf(what, sizeof(what), "%s begin %s", r->name, config);
    if (outcome(what, r->s->begin_transaction(r->s, config)) != 0)
        return;
    if (rnd(3) == 0)
        scan(r->c, r->name);
    else {
        rsearch(r);
        rsearch(r);
    }
    outcome("rollback", r->s->rollback_transaction(r->s, NULL));
}

static void
r_move_timestamps(void)
{
    char config[96];
    uint64_t stable = r_stable + rnd(r_now - r_stable + 1);
    uint64_t oldest = r_oldest + rnd(stable - r_oldest + 1);
    switch (rnd(4)) {
    case 0:
        snprintf(config, sizeof(config), "stable_timestamp=%" PRIx64, stable);
        break;
    case 1:
        snprintf(config, sizeof(config), "oldest_timestamp=%" PRIx64, oldest);
        break;
    case 2:
        /* Sometimes out of order: refused. */
        snprintf(config, sizeof(config), "oldest_timestamp=%" PRIx64, r_stable + 1 + rnd(2));
        oldest = r_oldest;
        stable = r_stable;
        break;
    default:
        snprintf(config, sizeof(config), "oldest_timestamp=%" PRIx64 ",stable_timestamp=%" PRIx64, oldest, stable);
    }
    if (outcome(config, conn->set_timestamp(conn, config)) == 0) {
        if (strstr(config, "stable") != NULL)
            r_stable = stable;
        if (strstr(config, "oldest") != NULL)
            r_oldest = oldest;
    }
}

static void
r_prepare(rsession *r, int step)
{
    char config[64];
    r->written = 0;
    outcome("begin", r->s->begin_transaction(r->s, NULL));
    int rc = rwrite(r, step);
    if (rc == 0 && rnd(2) == 0)
        rc = rwrite(r, step);
    if (rc != 0) {
        outcome("rollback", r->s->rollback_transaction(r->s, NULL));
        return;
    }
    r->prepare_ts = r_stable + 1 + rnd(3);
    if (r->prepare_ts > r_now)
        r_now = r->prepare_ts;
    snprintf(config, sizeof(config), "prepare_timestamp=%" PRIx64, r->prepare_ts);
    if (outcome(config, r->s->prepare_transaction(r->s, config)) == 0)
        r->state = R_PREPARED;
    else
        outcome("rollback", r->s->rollback_transaction(r->s, NULL));
}

static void
r_resolve(rsession *r)
{
    char config[96];
    if (rnd(3) == 0) {
        outcome("rollback prepared", r->s->rollback_transaction(r->s, NULL));
    } else {
        /* Not before any durable timestamp so far (a prepared commit before its keys' previous
         * durable timestamps stops the reference's connection). */
        uint64_t commit = r->prepare_ts;
        for (int k = 0; k < RKEYS; k++)
            if (r_durable[k] > commit)
                commit = r_durable[k];
        commit += rnd(3);
        uint64_t durable = (commit > r_stable ? commit : r_stable + 1) + rnd(2);
        if (durable > r_now)
            r_now = durable;
        snprintf(config, sizeof(config), "commit_timestamp=%" PRIx64 ",durable_timestamp=%" PRIx64, commit, durable);
        if (outcome(config, r->s->commit_transaction(r->s, config)) == 0)
            r_committed(r, durable);
    }
    r->written = 0;
    r->state = R_IDLE;
}

static void
r_rollback_to_stable(void)
{
    for (int i = 0; i < RSESSIONS; i++)
        if (rs[i].state != R_IDLE)
            return;
    for (int i = 0; i < RSESSIONS; i++)
        rs[i].c->close(rs[i].c);
    outcome("rollback_to_stable", conn->rollback_to_stable(conn, NULL));
    for (int k = 0; k < RKEYS; k++)
        if (r_durable[k] > r_stable)
            r_durable[k] = r_stable;
    for (int i = 0; i < RSESSIONS; i++)
        rs[i].s->open_cursor(rs[i].s, "table:t", NULL, NULL, &rs[i].c);
}

/* One random sequence of `steps` steps from `seed`, in a fresh in-memory database. */
static void
random_run(uint64_t seed, int steps)
{
    WT_SESSION *s;
    char config[64];
    rng = seed;
    memset(r_durable, 0, sizeof(r_durable));
    r_now = 10;
    r_oldest = r_stable = 5;
    line("## random sequence %" PRIu64 ", %d steps", seed, steps);
    DO(wiredtiger_open(NULL, &handler, "in_memory=true", &conn));
    conn->open_session(conn, &handler, NULL, &s);
    DO(s->create(s, "table:t", "key_format=S,value_format=S,log=(enabled=false)"));
    DO(conn->set_timestamp(conn, "oldest_timestamp=5,stable_timestamp=5"));
    for (int i = 0; i < RSESSIONS; i++) {
        conn->open_session(conn, &handler, NULL, &rs[i].s);
        rs[i].s->open_cursor(rs[i].s, "table:t", NULL, NULL, &rs[i].c);
        rs[i].state = R_IDLE;
        snprintf(rs[i].name, sizeof(rs[i].name), "s%d", i);
    }
    for (int step = 0; step < steps; step++) {
        rsession *r = &rs[rnd(RSESSIONS)];
        line("# step %d %s", step, r->name);
        int what = (int)rnd(100);
        if (r->state == R_PREPARED) {
            if (what < 40)
                r_resolve(r);
            else
                for (int i = 0; i < RSESSIONS; i++)
                    if (rs[i].state == R_IDLE) {
                        r_read(&rs[i]);
                        break;
                    }
            continue;
        }
        if (r->state == R_READING) {
            if (what < 30) {
                outcome("end reader", r->s->rollback_transaction(r->s, NULL));
                r->state = R_IDLE;
            } else
                rsearch(r);
            continue;
        }
        if (what < 30)
            r_commit(r, step);
        else if (what < 50)
            r_read(r);
        else if (what < 57)
            rsearch(r);
        else if (what < 67)
            r_move_timestamps();
        else if (what < 77)
            r_prepare(r, step);
        else if (what < 83) {
            snprintf(config, sizeof(config), "read_timestamp=%" PRIx64, r_oldest + rnd(r_now - r_oldest + 1));
            if (outcome(config, r->s->begin_transaction(r->s, config)) == 0)
                r->state = R_READING;
        } else if (what < 86)
            r_rollback_to_stable();
        else {
            const char *q[] = {"all_durable", "pinned", "oldest_reader", "stable", "oldest"};
            conn_query(q[rnd(5)]);
        }
    }
    DO(conn->close(conn, NULL));
}

/*
 * unlatched only: cursor calls inside a prepared transaction are refused with EINVAL and leave
 * the transaction to commit (the reference stops the whole connection with WT_PANIC instead,
 * which the documented contract does not ask for).
 */
static int
prepared_cursor_calls(void)
{
    WT_CONNECTION *cn;
    WT_SESSION *p;
    WT_CURSOR *c;
    const char *v;
    int failures = 0;
#define EXPECT(cond)                                                        \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "timestamps: %d: failed: %s\n", __LINE__, #cond); \
            failures++;                                                     \
        }                                                                   \
    } while (0)
    EXPECT(wiredtiger_open(NULL, &handler, "in_memory=true", &cn) == 0);
    cn->open_session(cn, &handler, NULL, &p);
    EXPECT(p->create(p, "table:t", "key_format=S,value_format=S,log=(enabled=false)") == 0);
    p->open_cursor(p, "table:t", NULL, NULL, &c);
    EXPECT(p->begin_transaction(p, NULL) == 0);
    c->set_key(c, "k");
    c->set_value(c, "v");
    EXPECT(c->insert(c) == 0);
    EXPECT(p->prepare_transaction(p, "prepare_timestamp=10") == 0);
    message[0] = '\0';
    c->set_key(c, "k");
    EXPECT(c->search(c) == EINVAL);
    EXPECT(strcmp(message, "not permitted in a prepared transaction") == 0);
    c->set_key(c, "z");
    c->set_value(c, "z");
    EXPECT(c->insert(c) == EINVAL);
    EXPECT(c->next(c) == EINVAL);
    EXPECT(p->commit_transaction(p, "commit_timestamp=11,durable_timestamp=11") == 0);
    c->set_key(c, "k");
    EXPECT(c->search(c) == 0 && c->get_value(c, &v) == 0 && strcmp(v, "v") == 0);
    c->set_key(c, "z");
    EXPECT(c->search(c) == WT_NOTFOUND);
    EXPECT(cn->close(cn, NULL) == 0);
    return failures;
}

/* Compares the transcript with the file at `path`, line by line; returns the lines matched,
 * or -1 after printing the first difference. */
static int
compare(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "timestamps: cannot open %s\n", path);
        return -1;
    }
    char want[4096];
    const char *got = transcript == NULL ? "" : transcript;
    int lineno = 0;
    while (fgets(want, sizeof(want), f) != NULL) {
        lineno++;
        const char *end = strchr(got, '\n');
        size_t n = end == NULL ? strlen(got) : (size_t)(end - got);
        if (strlen(want) != n + 1 || strncmp(want, got, n) != 0) {
            fprintf(stderr, "timestamps: %s line %d differs\n  reference: %s  unlatched: %.*s\n", path, lineno, want,
              (int)n, got);
            fclose(f);
            return -1;
        }
        got = end == NULL ? got + n : end + 1;
    }
    fclose(f);
    if (*got != '\0') {
        fprintf(stderr, "timestamps: unlatched printed more than %s after line %d\n", path, lineno);
        return -1;
    }
    return lineno;
}

/* With a journal: a table without logging takes timestamps (and prepares), a logged one not. */
static void
on_disk_journal(const char *home)
{
    WT_SESSION *s;
    WT_CURSOR *l, *u;
    line("## a journal beside a table without logging");
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "rm -rf %s && mkdir -p %s", home, home);
    if (system(cmd) != 0)
        exit(2);
    DO(wiredtiger_open(home, &handler, "create,log=(enabled=true)", &conn));
    conn->open_session(conn, &handler, NULL, &s);
    DO(s->create(s, "table:l", "key_format=S,value_format=S"));
    DO(s->create(s, "table:u", "key_format=S,value_format=S,log=(enabled=false)"));
    s->open_cursor(s, "table:l", NULL, NULL, &l);
    s->open_cursor(s, "table:u", NULL, NULL, &u);
    DO(conn->set_timestamp(conn, "oldest_timestamp=1,stable_timestamp=1"));
    put(s, l, "a", "l5", "commit_timestamp=5");
    put(s, u, "a", "u5", "commit_timestamp=5");
    put(s, l, "a", "l9", "commit_timestamp=9");
    put(s, u, "a", "u9", "commit_timestamp=9");
    read_in(s, l, "read_timestamp=6", "a");
    read_in(s, u, "read_timestamp=6", "a");
    DO(s->begin_transaction(s, NULL));
    l->set_key(l, "p");
    l->set_value(l, "p");
    DO(l->insert(l));
    DO(s->prepare_transaction(s, "prepare_timestamp=a"));
    DO(s->rollback_transaction(s, NULL));
    DO(s->begin_transaction(s, NULL));
    u->set_key(u, "p");
    u->set_value(u, "p");
    DO(u->insert(u));
    DO(s->prepare_transaction(s, "prepare_timestamp=a"));
    DO(s->commit_transaction(s, "commit_timestamp=b,durable_timestamp=b"));
    DO(conn->set_timestamp(conn, "stable_timestamp=7"));
    DO(s->checkpoint(s, NULL));
    put(s, l, "b", "lc", "commit_timestamp=c");
    put(s, u, "b", "uc", "commit_timestamp=c");
    DO(l->close(l));
    DO(u->close(u));
    DO(conn->close(conn, NULL));
    DO(wiredtiger_open(home, &handler, "log=(enabled=true)", &conn));
    conn_query("recovery");
    conn->open_session(conn, &handler, NULL, &s);
    s->open_cursor(s, "table:l", NULL, NULL, &l);
    s->open_cursor(s, "table:u", NULL, NULL, &u);
    scan(l, "[logged]");
    scan(u, "[unlogged]");
    DO(conn->close(conn, NULL));
}

/* The fixed scenarios, on-disk part in `home`. */
static void
scenarios(const char *home)
{
    WT_SESSION *s;
    WT_CURSOR *c;
    DO(wiredtiger_open(NULL, &handler, "in_memory=true", &conn));
    conn->open_session(conn, &handler, NULL, &s);
    /* In memory, only tables without logging take timestamps (as on disk without a log). */
    DO(s->create(s, "table:t", "key_format=S,value_format=S,log=(enabled=false)"));
    s->open_cursor(s, "table:t", NULL, NULL, &c);
    connection_timestamps();
    logged_table(s);
    commits_and_reads(s, c);
    transaction_rules(s, c);
    write_conflicts(conn, c);
    prepared(conn, s, c);
    rollback_to_stable(s, c);
    DO(conn->close(conn, NULL));
    on_disk(home);
    on_disk_journal(home);
}

/* The random sequences the committed transcript holds: seeds 1..RANDOM_SEEDS. */
#define RANDOM_SEEDS 20
#define RANDOM_STEPS 300

/*
 * timestamps                  both transcripts compared with the committed ones
 * timestamps --record         the fixed scenarios' transcript (against the reference)
 * timestamps --record-random [SEEDS STEPS]   the random sequences' transcript
 */
int
main(int argc, char **argv)
{
    int record = argc > 1 && strcmp(argv[1], "--record") == 0;
    int record_random = argc > 1 && strcmp(argv[1], "--record-random") == 0;
    char home[64] = "/tmp/ul-timestamps-XXXXXX";
    if (mkdtemp(home) == NULL)
        return 2;

    if (!record_random)
        scenarios(home);
    snprintf(cmd_buffer, sizeof(cmd_buffer), "rm -rf %s", home);
    if (system(cmd_buffer) != 0)
        return 2;
    if (record) {
        fputs(transcript, stdout);
        return 0;
    }
    int fixed = 0;
    if (!record_random && (fixed = compare("c-tests/traces/timestamps.expected")) < 0)
        return 1;

    int seeds = record_random && argc > 2 ? atoi(argv[2]) : RANDOM_SEEDS;
    int steps = record_random && argc > 3 ? atoi(argv[3]) : RANDOM_STEPS;
    used = 0;
    if (transcript != NULL)
        transcript[0] = '\0';
    for (int seed = 1; seed <= seeds; seed++)
        random_run((uint64_t)seed, steps);
    if (record_random) {
        fputs(transcript, stdout);
        return 0;
    }
    int random = compare("c-tests/traces/timestamps-random.expected");
    if (random < 0)
        return 1;
    if (prepared_cursor_calls() != 0)
        return 1;
    printf("timestamps: %d + %d lines match the reference (fixed scenarios; %d random sequences of %d steps)\n", fixed,
      random, seeds, steps);
    return 0;
}
