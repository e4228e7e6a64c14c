/*
 * Connection and session lifecycle: open/close, get_home, is_new, wiredtiger_version,
 * session_max, implicit closes on connection and session close, app_private, and the schema
 * lifecycle (create, drop, re-create, EBUSY/ENOENT/EEXIST, columns) plus connection
 * reconfigure. Spec: api.md sections 1, 3, 4 and 6; config.md sections 4.1, 4.2 and 4.4.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "util.h"

#define INMEM "create,in_memory=true"

static void
test_version(void)
{
    int major = -1, minor = -1, patch = -1;
    const char *v;

    v = wiredtiger_version(&major, &minor, &patch);
    CHECK_STR(v, "WiredTiger 11.3.1: (November 13, 2024)");
    CHECK_STR(v, WIREDTIGER_VERSION_STRING);
    CHECK(major == 11);
    CHECK(minor == 3);
    CHECK(patch == 1);
    CHECK(major == WIREDTIGER_VERSION_MAJOR && minor == WIREDTIGER_VERSION_MINOR &&
      patch == WIREDTIGER_VERSION_PATCH);

    /* Any pointer may be NULL. */
    CHECK_STR(wiredtiger_version(NULL, NULL, NULL), "WiredTiger 11.3.1: (November 13, 2024)");
    major = minor = patch = -1;
    CHECK_STR(wiredtiger_version(NULL, &minor, NULL), "WiredTiger 11.3.1: (November 13, 2024)");
    CHECK(minor == 3);
    CHECK_STR(wiredtiger_version(&major, NULL, &patch), "WiredTiger 11.3.1: (November 13, 2024)");
    CHECK(major == 11 && patch == 1);
}

static void
test_home(void)
{
    WT_CONNECTION *conn = NULL;
    char dir[] = "/tmp/ul-lifecycle-XXXXXX";
    char slash[64], plain[64];

    /* NULL home: ".". */
    OK(wiredtiger_open(NULL, NULL, INMEM, &conn));
    if (conn != NULL) {
        CHECK_STR(conn->get_home(conn), ".");
        CHECK(conn->is_new(conn) == 1);
        OK(conn->close(conn, NULL));
    }

    /* An existing directory: exactly as passed, trailing '/' kept. */
    if (mkdtemp(dir) == NULL) {
        CHECK(!"mkdtemp");
        return;
    }
    snprintf(plain, sizeof(plain), "%s", dir);
    snprintf(slash, sizeof(slash), "%s/", dir);

    conn = NULL;
    OK(wiredtiger_open(plain, NULL, INMEM, &conn));
    if (conn != NULL) {
        CHECK_STR(conn->get_home(conn), plain);
        CHECK(conn->is_new(conn) == 1);
        OK(conn->close(conn, NULL));
    }

    conn = NULL;
    OK(wiredtiger_open(slash, NULL, INMEM, &conn));
    if (conn != NULL) {
        CHECK_STR(conn->get_home(conn), slash);
        CHECK(conn->is_new(conn) == 1);
        OK(conn->close(conn, NULL));
    }

    /* "." explicitly. */
    conn = NULL;
    OK(wiredtiger_open(".", NULL, INMEM, &conn));
    if (conn != NULL) {
        CHECK_STR(conn->get_home(conn), ".");
        OK(conn->close(conn, NULL));
    }

    /* An in-memory database leaves nothing behind in its home. */
    CHECK(rmdir(dir) == 0);
}

#define MAXTRY 1000

static void
test_session_max(void)
{
    ul_recorder r;
    WT_CONNECTION *conn = NULL;
    WT_SESSION *sessions[MAXTRY];
    WT_SESSION *s;
    int i, n, ret, failed_at;

    ul_recorder_init(&r);
    OK(wiredtiger_open(NULL, &r.iface, INMEM ",session_max=5", &conn));
    if (conn == NULL)
        return;

    /* At least session_max application sessions; eventually "out of sessions". */
    failed_at = -1;
    ret = 0;
    for (n = 0; n < MAXTRY; n++) {
        sessions[n] = NULL;
        ret = conn->open_session(conn, NULL, NULL, &sessions[n]);
        if (ret != 0) {
            failed_at = n;
            break;
        }
        CHECK(sessions[n] != NULL);
    }
    CHECK(n >= 5);
    CHECK(failed_at >= 5);
    CHECK_RC(ret, WT_ERROR);
    CHECK_MSG(&r, WT_ERROR, "out of sessions");

    /* Closing a session frees its slot. */
    if (n > 0) {
        OK(sessions[n - 1]->close(sessions[n - 1], NULL));
        sessions[n - 1] = NULL;
        s = NULL;
        OK(conn->open_session(conn, NULL, NULL, &s));
        CHECK(s != NULL);
        sessions[n - 1] = s;
        CHECK_RC(conn->open_session(conn, NULL, NULL, &s), WT_ERROR);
    }
    for (i = 0; i < n; i++)
        if (sessions[i] != NULL)
            OK(sessions[i]->close(sessions[i], NULL));

    /* All slots free again. */
    for (i = 0; i < 5; i++) {
        sessions[i] = NULL;
        OK(conn->open_session(conn, NULL, NULL, &sessions[i]));
    }
    for (i = 0; i < 5; i++)
        if (sessions[i] != NULL)
            OK(sessions[i]->close(sessions[i], NULL));
    OK(conn->close(conn, NULL));

    /* The default (100) allows 100 application sessions. */
    conn = NULL;
    OK(wiredtiger_open(NULL, NULL, INMEM, &conn));
    if (conn == NULL)
        return;
    for (i = 0; i < 100; i++) {
        sessions[i] = NULL;
        OK(conn->open_session(conn, NULL, NULL, &sessions[i]));
    }
    /* Closing the connection closes them all. */
    OK(conn->close(conn, NULL));

    /*
     * A session_max whose session array cannot be allocated is ENOMEM with a message, never an
     * abort (the reference answers ENOMEM for 1000000000); a large one that fits still opens.
     */
    CHECK_OPEN_FAILS(NULL, &r, INMEM ",session_max=1000000000", ENOMEM);
    CHECK_MSG(&r, ENOMEM, "session_max=1000000000");
    CHECK_OPEN_FAILS(NULL, &r, INMEM ",session_max=4294967296", ENOMEM);
    CHECK_OPEN_FAILS(NULL, &r, INMEM ",session_max=9223372036854775807", ENOMEM);
    conn = NULL;
    OK(wiredtiger_open(NULL, NULL, INMEM ",session_max=20000", &conn));
    if (conn != NULL)
        OK(conn->close(conn, NULL));
}

static void
test_implicit_close(void)
{
    ul_recorder r;
    WT_CONNECTION *conn;
    WT_SESSION *s0, *s1, *s2;
    WT_CURSOR *c0, *c1, *c2, *c3;

    /* Connection close closes leftover sessions and their cursors, and reports them. */
    ul_recorder_init(&r);
    ul_open(&r, INMEM, &conn, &s0);
    OK(s0->create(s0, "table:t", "key_format=S,value_format=S"));
    OK(s0->create(s0, "table:u", "key_format=i,value_format=i"));
    s1 = s2 = NULL;
    OK(conn->open_session(conn, NULL, NULL, &s1));
    OK(conn->open_session(conn, NULL, NULL, &s2));
    c0 = c1 = c2 = c3 = NULL;
    OK(s0->open_cursor(s0, "table:t", NULL, NULL, &c0));
    OK(s0->open_cursor(s0, "table:u", NULL, NULL, &c1));
    OK(s1->open_cursor(s1, "table:t", NULL, NULL, &c2));
    /* A cursor closed by the application is not reported. */
    OK(s2->open_cursor(s2, "table:t", NULL, NULL, &c3));
    OK(c3->close(c3));
    /* A positioned cursor with pending data. */
    c0->set_key(c0, "k");
    c0->set_value(c0, "v");
    OK(c0->insert(c0));
    c0->set_key(c0, "k");
    OK(c0->search(c0));
    CHECK(r.closed_cursors == 0);
    CHECK(r.closed_sessions == 0);
    OK(conn->close(conn, NULL));
    CHECK(r.closed_cursors == 3);
    CHECK(r.closed_sessions == 3);

    /* Session close closes its own cursors (reported), not the sessions' of others. */
    ul_recorder_init(&r);
    ul_open(&r, INMEM, &conn, &s0);
    OK(s0->create(s0, "table:t", "key_format=S,value_format=S"));
    s1 = NULL;
    OK(conn->open_session(conn, NULL, NULL, &s1));
    c0 = c1 = c2 = NULL;
    OK(s0->open_cursor(s0, "table:t", NULL, NULL, &c0));
    OK(s0->open_cursor(s0, "table:t", NULL, NULL, &c1));
    OK(s1->open_cursor(s1, "table:t", NULL, NULL, &c2));
    OK(c1->close(c1));
    OK(s0->close(s0, NULL));
    CHECK(r.closed_cursors == 1);
    CHECK(r.closed_sessions == 0);
    /* The other session is unaffected. */
    c2->set_key(c2, "a");
    c2->set_value(c2, "b");
    OK(c2->insert(c2));
    OK(c2->close(c2));
    CHECK(r.closed_cursors == 1);
    /* The session close config is not validated (api.md section 4). */
    OK(s1->close(s1, "bogus"));
    CHECK(r.closed_sessions == 0);
    OK(conn->close(conn, NULL));
    CHECK(r.closed_sessions == 0);
    CHECK(r.closed_cursors == 1);

    /* An empty connection closes with nothing reported. */
    ul_recorder_init(&r);
    ul_open(&r, INMEM, &conn, NULL);
    CHECK(r.ready_events == 1);
    OK(conn->close(conn, NULL));
    CHECK(r.closed_cursors == 0 && r.closed_sessions == 0);
}

static void
test_app_private(void)
{
    WT_CONNECTION *conn;
    WT_SESSION *s, *s2;
    WT_CURSOR *c;
    int marker = 42;

    ul_open(NULL, INMEM, &conn, &s);
    CHECK(s->connection == conn);
    s->app_private = &marker;
    OK(s->create(s, "table:t", "key_format=S,value_format=S"));
    c = NULL;
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    CHECK(c != NULL && c->session == s);
    c->set_key(c, "a");
    c->set_value(c, "b");
    OK(c->insert(c));
    OK(c->close(c));
    OK(s->reconfigure(s, "isolation=snapshot"));
    OK(s->reset(s));
    CHECK(s->app_private == &marker);

    /* Each session has its own. */
    s2 = NULL;
    OK(conn->open_session(conn, NULL, NULL, &s2));
    CHECK(s2 != NULL && s2 != s);
    CHECK(s2->connection == conn);
    s2->app_private = &s2;
    CHECK(s->app_private == &marker);
    OK(s2->close(s2, NULL));
    CHECK(s->app_private == &marker);
    OK(conn->close(conn, NULL));
}

static void
test_schema(void)
{
    ul_recorder r;
    WT_CONNECTION *conn;
    WT_SESSION *s, *s2;
    WT_CURSOR *c, *c2;
    const char *k, *v;
    int32_t ik;
    int i, ret;

    ul_recorder_init(&r);
    ul_open(&r, INMEM, &conn, &s);

    /* Create, fill, drop, the object is gone. */
    OK(s->create(s, "table:t", "key_format=S,value_format=S"));
    c = NULL;
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    CHECK_STR(c->uri, "table:t");
    CHECK_STR(c->key_format, "S");
    CHECK_STR(c->value_format, "S");
    c->set_key(c, "a");
    c->set_value(c, "1");
    OK(c->insert(c));
    OK(c->close(c));
    OK(s->drop(s, "table:t", NULL));
    ul_recorder_clear(&r);
    c = NULL;
    CHECK_RC(s->open_cursor(s, "table:t", NULL, NULL, &c), ENOENT);
    CHECK(r.errors == 0); /* ENOENT is reported with no message */

    /* Re-create with other formats: a new, empty object. */
    OK(s->create(s, "table:t", "key_format=i,value_format=S"));
    c = NULL;
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    if (c != NULL) {
        CHECK_STR(c->key_format, "i");
        CHECK_RC(c->next(c), WT_NOTFOUND);
        c->set_key(c, -7);
        c->set_value(c, "minus seven");
        OK(c->insert(c));
        OK(c->reset(c));
        OK(c->next(c));
        ik = 0;
        OK(c->get_key(c, &ik));
        CHECK(ik == -7);

        /* Drop with an open cursor: EBUSY, from this session or another. */
        CHECK_RC(s->drop(s, "table:t", NULL), EBUSY);
        CHECK_RC(s->drop(s, "table:t", "force=true"), EBUSY);
        s2 = NULL;
        OK(conn->open_session(conn, NULL, NULL, &s2));
        CHECK_RC(s2->drop(s2, "table:t", NULL), EBUSY);
        /* The table is still intact. */
        c->set_key(c, -7);
        OK(c->search(c));
        v = NULL;
        OK(c->get_value(c, &v));
        CHECK_STR(v, "minus seven");
        OK(c->close(c));

        /* A cursor in another session blocks too. */
        c2 = NULL;
        OK(s2->open_cursor(s2, "table:t", NULL, NULL, &c2));
        CHECK_RC(s->drop(s, "table:t", NULL), EBUSY);
        OK(c2->close(c2));
        OK(s2->close(s2, NULL));
        OK(s->drop(s, "table:t", NULL));
    }

    /* Drop of a missing object: ENOENT without a message; with force: 0. */
    ul_recorder_clear(&r);
    CHECK_RC(s->drop(s, "table:t", NULL), ENOENT);
    CHECK_RC(s->drop(s, "table:nosuch", NULL), ENOENT);
    CHECK(r.errors == 0);
    OK(s->drop(s, "table:nosuch", "force=true"));
    OK(s->drop(s, "table:nosuch", "force"));

    /* Create of an existing table: 0, old formats kept; exclusive: EEXIST. */
    OK(s->create(s, "table:e", "key_format=S,value_format=S"));
    OK(s->create(s, "table:e", "key_format=S,value_format=S"));
    OK(s->create(s, "table:e", "key_format=q,value_format=Q"));
    OK(s->create(s, "table:e", NULL));
    ul_recorder_clear(&r);
    CHECK_RC(s->create(s, "table:e", "exclusive=true"), EEXIST);
    CHECK_RC(s->create(s, "table:e", "key_format=S,value_format=S,exclusive"), EEXIST);
    OK(s->create(s, "table:e", "exclusive=false"));
    c = NULL;
    OK(s->open_cursor(s, "table:e", NULL, NULL, &c));
    if (c != NULL) {
        CHECK_STR(c->key_format, "S");
        CHECK_STR(c->value_format, "S");
        c->set_key(c, "still");
        c->set_value(c, "strings");
        OK(c->insert(c));
        c->set_key(c, "still");
        OK(c->search(c));
        k = v = NULL;
        OK(c->get_key(c, &k));
        OK(c->get_value(c, &v));
        CHECK_STR(k, "still");
        CHECK_STR(v, "strings");
        OK(c->close(c));
    }
    /* exclusive on a new table works. */
    OK(s->create(s, "table:x", "key_format=S,value_format=S,exclusive=true"));

    /* columns: one name per key field plus value field. */
    OK(s->create(s, "table:cols", "key_format=S,value_format=Si,columns=(k,v1,v2)"));
    ul_recorder_clear(&r);
    ret = s->create(s, "table:badcols", "key_format=S,value_format=S,columns=(a,b,c)");
    CHECK_RC(ret, EINVAL);
    CHECK_MSG(&r, EINVAL, "Number of columns in '(a,b,c)' does not match key format 'S' plus value format 'S'");
    ul_recorder_clear(&r);
    CHECK_RC(s->create(s, "table:badcols", "key_format=S,value_format=S,columns=(a)"), EINVAL);
    CHECK_MSG(&r, EINVAL, "does not match key format 'S' plus value format 'S'");
    /* The failed create made nothing. */
    c = NULL;
    CHECK_RC(s->open_cursor(s, "table:badcols", NULL, NULL, &c), ENOENT);

    /* Drop then create again under the same name in a loop. */
    for (i = 0; i < 20; i++) {
        OK(s->create(s, "table:loop", "key_format=S,value_format=S"));
        c = NULL;
        OK(s->open_cursor(s, "table:loop", NULL, NULL, &c));
        if (c == NULL)
            break;
        CHECK_RC(c->next(c), WT_NOTFOUND);
        c->set_key(c, "k");
        c->set_value(c, "v");
        OK(c->insert(c));
        OK(c->close(c));
        OK(s->drop(s, "table:loop", NULL));
    }

    OK(conn->close(conn, NULL));
}

static void
test_reconfigure(void)
{
    ul_recorder r;
    WT_CONNECTION *conn;
    WT_SESSION *s;

    ul_recorder_init(&r);
    ul_open(&r, INMEM, &conn, &s);

    OK(conn->reconfigure(conn, NULL));
    OK(conn->reconfigure(conn, ""));

    /* error_prefix takes effect for later messages. */
    OK(conn->reconfigure(conn, "error_prefix=RECONF_PFX"));
    ul_recorder_clear(&r);
    CHECK_RC(s->create(s, "table:bad", "key_format=iz"), EINVAL);
    CHECK_MSG(&r, EINVAL, "RECONF_PFX");
    CHECK_MSG(&r, EINVAL, "Invalid type 'z' found in format 'iz'");

    /* Statistics can be switched on and off. */
    OK(conn->reconfigure(conn, "statistics=(fast)"));
    OK(conn->reconfigure(conn, "statistics=(all)"));
    OK(conn->reconfigure(conn, "statistics=(none)"));
    OK(conn->reconfigure(conn, "statistics=()"));
    OK(conn->reconfigure(conn, "cache_size=200MB"));

    /* Keys valid only at open are unknown here. */
    ul_recorder_clear(&r);
    CHECK_RC(conn->reconfigure(conn, "in_memory=true"), EINVAL);
    CHECK_MSG(&r, EINVAL, "unknown configuration key 'in_memory'");
    ul_recorder_clear(&r);
    CHECK_RC(conn->reconfigure(conn, "session_max=10"), EINVAL);
    CHECK_MSG(&r, EINVAL, "unknown configuration key 'session_max'");
    ul_recorder_clear(&r);
    CHECK_RC(conn->reconfigure(conn, "create"), EINVAL);
    CHECK_MSG(&r, EINVAL, "unknown configuration key 'create'");
    ul_recorder_clear(&r);
    CHECK_RC(conn->reconfigure(conn, "bogus=1"), EINVAL);
    CHECK_MSG(&r, EINVAL, "unknown configuration key 'bogus'");

    /* The connection still works. */
    OK(s->create(s, "table:ok", "key_format=S,value_format=S"));

    /* Session reconfigure and reset. */
    OK(s->reconfigure(s, "isolation=read-committed"));
    OK(s->reconfigure(s, "isolation=snapshot"));
    OK(s->reconfigure(s, "cache_cursors=false"));
    OK(s->reset(s));

    /* Connection close with an unknown key: EINVAL, but the connection is closed anyway. */
    ul_recorder_clear(&r);
    CHECK_RC(conn->close(conn, "bogus=1"), EINVAL);
    CHECK_MSG(&r, EINVAL, "unknown configuration key 'bogus'");

    /* Close keys are accepted. */
    ul_open(NULL, INMEM, &conn, NULL);
    OK(conn->close(conn, "leak_memory=false"));
}

static void
test_many_connections(void)
{
    WT_CONNECTION *a = NULL, *b = NULL;
    WT_SESSION *sa = NULL, *sb = NULL;
    WT_CURSOR *ca = NULL, *cb = NULL;
    char dir_a[] = "/tmp/ul-lifecycle-a-XXXXXX", dir_b[] = "/tmp/ul-lifecycle-b-XXXXXX";

    /* Two in-memory databases in two directories are independent. */
    if (mkdtemp(dir_a) == NULL || mkdtemp(dir_b) == NULL) {
        CHECK(!"mkdtemp");
        return;
    }
    OK(wiredtiger_open(dir_a, NULL, INMEM, &a));
    OK(wiredtiger_open(dir_b, NULL, INMEM, &b));
    if (a == NULL || b == NULL)
        return;
    OK(a->open_session(a, NULL, NULL, &sa));
    OK(b->open_session(b, NULL, NULL, &sb));
    OK(sa->create(sa, "table:t", "key_format=S,value_format=S"));
    OK(sb->create(sb, "table:t", "key_format=S,value_format=S"));
    OK(sa->open_cursor(sa, "table:t", NULL, NULL, &ca));
    OK(sb->open_cursor(sb, "table:t", NULL, NULL, &cb));
    ca->set_key(ca, "only-in-a");
    ca->set_value(ca, "x");
    OK(ca->insert(ca));
    cb->set_key(cb, "only-in-a");
    CHECK_RC(cb->search(cb), WT_NOTFOUND);
    OK(a->close(a, NULL));
    /* b survives a's close. */
    CHECK_RC(cb->next(cb), WT_NOTFOUND);
    OK(b->close(b, NULL));

    /* The same home twice in one process: EBUSY (api.md section 1), also for in-memory
     * databases (the reference checks its list of open connections before anything else). */
    a = b = NULL;
    ul_recorder r;
    ul_recorder_init(&r);
    OK(wiredtiger_open(dir_a, NULL, INMEM, &a));
    CHECK_RC(wiredtiger_open(dir_a, &r.iface, INMEM, &b), EBUSY);
    CHECK_MSG(&r, EBUSY, "WiredTiger database is already being managed by another thread in this process");
    if (b != NULL) {
        OK(b->close(b, NULL));
        b = NULL;
    }
    /* a different home is fine meanwhile */
    OK(wiredtiger_open(dir_b, NULL, INMEM, &b));
    if (b != NULL)
        OK(b->close(b, NULL));
    if (a != NULL)
        OK(a->close(a, NULL));
    /* after close the home can be opened again */
    a = NULL;
    OK(wiredtiger_open(dir_a, NULL, INMEM, &a));
    if (a != NULL)
        OK(a->close(a, NULL));

    /* NULL home means ".": two at once collide as well. */
    a = b = NULL;
    OK(wiredtiger_open(NULL, NULL, INMEM, &a));
    ul_recorder_clear(&r);
    CHECK_RC(wiredtiger_open(NULL, &r.iface, INMEM, &b), EBUSY);
    if (b != NULL)
        OK(b->close(b, NULL));
    b = NULL;
    CHECK_RC(wiredtiger_open(".", &r.iface, INMEM, &b), EBUSY);
    if (b != NULL)
        OK(b->close(b, NULL));
    if (a != NULL)
        OK(a->close(a, NULL));

    CHECK(rmdir(dir_a) == 0);
    CHECK(rmdir(dir_b) == 0);
}

int
main(void)
{
    /* A NULL home means "." only when the environment does not name one. */
    unsetenv("WIREDTIGER_HOME");
    unsetenv("WIREDTIGER_CONFIG");
    test_version();
    test_home();
    test_session_max();
    test_implicit_close();
    test_app_private();
    test_schema();
    test_reconfigure();
    test_many_connections();
    return ul_done("lifecycle");
}
