/*
 * The event handler: error messages (code, API name, error_prefix, session), NULL handlers,
 * per-session handlers, handle_close for implicitly closed handles, handle_general events.
 * Spec: api.md section 2 (WT_EVENT_HANDLER) and section 6.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "util.h"

#define INMEM "create,in_memory=true"

/* A handler that also remembers the session and every general event. */
typedef struct {
    WT_EVENT_HANDLER iface;
    int errors;
    int last_error;
    WT_SESSION *last_session;
    char last_message[1024];
    int closes;
    WT_SESSION *close_session[16];
    WT_CURSOR *close_cursor[16];
    int general;
    WT_EVENT_TYPE types[16];
    WT_CONNECTION *general_conn;
} tracker;

static int
track_error(WT_EVENT_HANDLER *h, WT_SESSION *session, int error, const char *message)
{
    tracker *t = (tracker *)h;
    t->errors++;
    t->last_error = error;
    t->last_session = session;
    snprintf(t->last_message, sizeof(t->last_message), "%s", message == NULL ? "(null)" : message);
    return 0;
}

static int
track_close(WT_EVENT_HANDLER *h, WT_SESSION *session, WT_CURSOR *cursor)
{
    tracker *t = (tracker *)h;
    if (t->closes < 16) {
        t->close_session[t->closes] = session;
        t->close_cursor[t->closes] = cursor;
    }
    t->closes++;
    return 0;
}

static int
track_general(WT_EVENT_HANDLER *h, WT_CONNECTION *conn, WT_SESSION *session, WT_EVENT_TYPE type, void *arg)
{
    tracker *t = (tracker *)h;
    (void)session;
    (void)arg;
    if (t->general < 16)
        t->types[t->general] = type;
    t->general++;
    t->general_conn = conn;
    return 0;
}

static void
tracker_init(tracker *t)
{
    memset(t, 0, sizeof(*t));
    t->iface.handle_error = track_error;
    t->iface.handle_close = track_close;
    t->iface.handle_general = track_general;
}

static void
tracker_clear(tracker *t)
{
    t->errors = 0;
    t->last_error = 0;
    t->last_session = NULL;
    t->last_message[0] = '\0';
}

static int
has(const tracker *t, const char *text)
{
    return strstr(t->last_message, text) != NULL;
}

static int
ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void
test_error_messages(void)
{
    tracker t;
    WT_CONNECTION *conn = NULL;
    WT_SESSION *s = NULL;
    WT_CURSOR *c = NULL;
    const char *pfx, *api;
    char buf[8];

    tracker_init(&t);
    OK(wiredtiger_open(NULL, &t.iface, INMEM ",error_prefix=MYPFX", &conn));
    if (conn == NULL)
        return;
    /* WT_EVENT_CONN_READY once at the end of wiredtiger_open. */
    CHECK(t.general == 1);
    CHECK(t.types[0] == WT_EVENT_CONN_READY);
    CHECK(t.general_conn == conn);
    CHECK(t.errors == 0);

    OK(conn->open_session(conn, NULL, NULL, &s));
    if (s == NULL)
        return;

    /* A session method error: code, API name, prefix, text, strerror suffix, session. */
    tracker_clear(&t);
    CHECK_RC(s->create(s, "table:t", "key_format=iz"), EINVAL);
    CHECK(t.errors >= 1);
    CHECK(t.last_error == EINVAL);
    CHECK(t.last_session == s);
    CHECK(has(&t, "WT_SESSION.create"));
    CHECK(has(&t, "Invalid type 'z' found in format 'iz'"));
    CHECK(has(&t, "MYPFX"));
    CHECK(ends_with(t.last_message, ": Invalid argument"));
    pfx = strstr(t.last_message, "MYPFX");
    api = strstr(t.last_message, "WT_SESSION.create");
    CHECK(pfx != NULL && api != NULL && pfx < api);
    if (t.errors == 0 || !has(&t, "MYPFX"))
        fprintf(stderr, "  message: \"%s\"\n", t.last_message);

    /* A configuration error. */
    tracker_clear(&t);
    CHECK_RC(s->create(s, "table:t", "bogus=1"), EINVAL);
    CHECK(t.last_error == EINVAL && t.last_session == s);
    CHECK(has(&t, "WT_SESSION.create") && has(&t, "unknown configuration key 'bogus'"));

    /* A cursor method error. */
    OK(s->create(s, "table:t", "key_format=S,value_format=S"));
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    if (c != NULL) {
        tracker_clear(&t);
        CHECK_RC(c->search(c), EINVAL);
        CHECK(t.errors == 1);
        CHECK(t.last_error == EINVAL && t.last_session == s);
        CHECK(has(&t, "WT_CURSOR.search") && has(&t, "requires key be set") && has(&t, "MYPFX"));
        tracker_clear(&t);
        CHECK_RC(c->get_value(c, &pfx), EINVAL);
        CHECK(has(&t, "WT_CURSOR.get_value") && has(&t, "requires value be set"));
        /* WT_NOTFOUND and WT_DUPLICATE_KEY are results, not errors: no message. */
        tracker_clear(&t);
        c->set_key(c, "x");
        CHECK_RC(c->search(c), WT_NOTFOUND);
        c->set_key(c, "x");
        c->set_value(c, "y");
        OK(c->insert(c));
        OK(c->reconfigure(c, "overwrite=false"));
        c->set_key(c, "x");
        c->set_value(c, "y");
        CHECK_RC(c->insert(c), WT_DUPLICATE_KEY);
        CHECK(t.errors == 0);
        /* An ENOTSUP message. */
        tracker_clear(&t);
        CHECK_RC(s->salvage(s, "table:t", NULL), ENOTSUP);
        CHECK(t.last_error == ENOTSUP && t.errors >= 1);
        CHECK(ends_with(t.last_message, "Operation not supported"));
    }

    /* wiredtiger_struct_pack with a session reports to that session's handler. */
    tracker_clear(&t);
    CHECK_RC(wiredtiger_struct_pack(s, buf, sizeof(buf), "iz", 1), EINVAL);
    CHECK(t.errors >= 1 && t.last_error == EINVAL);
    CHECK(has(&t, "Invalid type 'z' found in format 'iz'"));

    /* Reconfigured prefix. */
    OK(conn->reconfigure(conn, "error_prefix=OTHERPFX"));
    tracker_clear(&t);
    CHECK_RC(s->create(s, "table:t2", "key_format=iz"), EINVAL);
    CHECK(has(&t, "OTHERPFX") && !has(&t, "MYPFX"));

    /* Connection-level errors. */
    tracker_clear(&t);
    CHECK_RC(conn->reconfigure(conn, "in_memory=true"), EINVAL);
    CHECK(t.last_error == EINVAL && has(&t, "unknown configuration key 'in_memory'"));
    CHECK(has(&t, "WT_CONNECTION.reconfigure"));

    OK(conn->close(conn, NULL));
    /* Closing the connection sends a CONN_CLOSE event (after the first READY). */
    CHECK(t.general >= 2);
    CHECK(t.types[0] == WT_EVENT_CONN_READY);
    {
        int i, closes = 0;
        for (i = 1; i < t.general && i < 16; i++)
            if (t.types[i] == WT_EVENT_CONN_CLOSE)
                closes++;
        CHECK(closes >= 1);
    }

    /* wiredtiger_open errors reach the handler given to it. */
    tracker_init(&t);
    conn = NULL;
    CHECK_RC(wiredtiger_open(NULL, &t.iface, INMEM ",bogus=1", &conn), EINVAL);
    CHECK(t.errors >= 1 && t.last_error == EINVAL && has(&t, "unknown configuration key 'bogus'"));
    CHECK(t.general == 0); /* no READY for a failed open */
}

/* NULL handler: messages go to stderr; nothing may crash. Also a handler with NULL slots. */
static void
test_null_handlers(void)
{
    WT_CONNECTION *conn = NULL;
    WT_SESSION *s = NULL;
    WT_CURSOR *c = NULL;
    WT_EVENT_HANDLER empty;
    ul_recorder only_close;

    fprintf(stderr, "events: the next error messages on stderr are expected\n");
    OK(wiredtiger_open(NULL, NULL, INMEM, &conn));
    if (conn == NULL)
        return;
    OK(conn->open_session(conn, NULL, NULL, &s));
    CHECK_RC(s->create(s, "table:t", "key_format=iz"), EINVAL);
    OK(s->create(s, "table:t", "key_format=S,value_format=S"));
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    CHECK_RC(c->search(c), EINVAL);
    CHECK_RC(wiredtiger_struct_pack(s, NULL, 0, "iz", 1), EINVAL);
    CHECK_RC(wiredtiger_struct_size(NULL, &(size_t){0}, "iz", 1), EINVAL);
    OK(conn->close(conn, NULL)); /* closes s and c implicitly, nobody to tell */

    /* A handler whose slots are all NULL behaves like the defaults. */
    memset(&empty, 0, sizeof(empty));
    conn = NULL;
    OK(wiredtiger_open(NULL, &empty, INMEM, &conn));
    if (conn == NULL)
        return;
    s = NULL;
    OK(conn->open_session(conn, NULL, NULL, &s));
    CHECK_RC(s->create(s, "table:t", "key_format=iz"), EINVAL);
    OK(s->create(s, "table:t", "key_format=S,value_format=S"));
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    OK(conn->close(conn, NULL));

    /* Only handle_close set: errors to stderr, closes to the handler. */
    ul_recorder_init(&only_close);
    only_close.iface.handle_error = NULL;
    only_close.iface.handle_general = NULL;
    conn = NULL;
    OK(wiredtiger_open(NULL, &only_close.iface, INMEM, &conn));
    if (conn == NULL)
        return;
    s = NULL;
    OK(conn->open_session(conn, NULL, NULL, &s));
    CHECK_RC(s->create(s, "table:t", "key_format=iz"), EINVAL);
    OK(s->create(s, "table:t", "key_format=S,value_format=S"));
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    OK(conn->close(conn, NULL));
    CHECK(only_close.errors == 0);
    CHECK(only_close.closed_cursors == 1);
    CHECK(only_close.closed_sessions == 1);
    fprintf(stderr, "events: end of expected messages\n");
}

/* A handler passed to open_session overrides the connection's for that session. */
static void
test_session_handler(void)
{
    tracker conn_h, sess_h;
    WT_CONNECTION *conn = NULL;
    WT_SESSION *plain = NULL, *own = NULL;
    WT_CURSOR *c1 = NULL, *c2 = NULL, *c3 = NULL;

    tracker_init(&conn_h);
    tracker_init(&sess_h);
    OK(wiredtiger_open(NULL, &conn_h.iface, INMEM, &conn));
    if (conn == NULL)
        return;
    OK(conn->open_session(conn, NULL, NULL, &plain));
    OK(conn->open_session(conn, &sess_h.iface, NULL, &own));
    if (plain == NULL || own == NULL)
        return;
    CHECK(sess_h.general == 0); /* no READY for a session */

    CHECK_RC(own->create(own, "table:t", "key_format=iz"), EINVAL);
    CHECK(sess_h.errors == 1 && sess_h.last_error == EINVAL && sess_h.last_session == own);
    CHECK(conn_h.errors == 0);

    CHECK_RC(plain->create(plain, "table:t", "key_format=iz"), EINVAL);
    CHECK(conn_h.errors == 1 && conn_h.last_session == plain);
    CHECK(sess_h.errors == 1);

    /* A cursor of the session uses the session's handler. */
    OK(own->create(own, "table:t", "key_format=S,value_format=S"));
    OK(own->open_cursor(own, "table:t", NULL, NULL, &c1));
    OK(own->open_cursor(own, "table:t", NULL, NULL, &c2));
    OK(plain->open_cursor(plain, "table:t", NULL, NULL, &c3));
    if (c1 == NULL || c2 == NULL || c3 == NULL)
        return;
    CHECK_RC(c1->search(c1), EINVAL);
    CHECK(sess_h.errors == 2 && has(&sess_h, "WT_CURSOR.search"));
    CHECK(conn_h.errors == 1);
    /* The session's config errors too. */
    CHECK_RC(own->reconfigure(own, "isolation=bogus"), EINVAL);
    CHECK(sess_h.errors == 3 && conn_h.errors == 1);

    /* Session close reports its open cursors to the session's handler, with the session. */
    OK(c2->close(c2));
    OK(own->close(own, NULL));
    CHECK(sess_h.closes == 1);
    CHECK(sess_h.close_session[0] == own);
    CHECK(sess_h.close_cursor[0] == c1);
    CHECK(conn_h.closes == 0);

    /* Connection close: plain's cursor and plain itself, to the connection's handler. */
    OK(conn->close(conn, NULL));
    /* (the order is not specified: the reference reports a session before closing it, which
     * then reports its cursors) */
    CHECK(conn_h.closes == 2);
    CHECK((conn_h.close_session[0] == plain && conn_h.close_cursor[0] == c3 &&
            conn_h.close_session[1] == plain && conn_h.close_cursor[1] == NULL) ||
      (conn_h.close_session[1] == plain && conn_h.close_cursor[1] == c3 &&
        conn_h.close_session[0] == plain && conn_h.close_cursor[0] == NULL));
    CHECK(sess_h.closes == 1);
}

/* handle_close for every implicitly closed handle, none for explicit closes. */
static void
test_close_events(void)
{
    tracker t;
    WT_CONNECTION *conn = NULL;
    WT_SESSION *s1 = NULL, *s2 = NULL, *s3 = NULL;
    WT_CURSOR *a = NULL, *b = NULL, *c = NULL;
    int i, cursors = 0, sessions = 0;

    tracker_init(&t);
    OK(wiredtiger_open(NULL, &t.iface, INMEM, &conn));
    if (conn == NULL)
        return;
    OK(conn->open_session(conn, NULL, NULL, &s1));
    OK(conn->open_session(conn, NULL, NULL, &s2));
    OK(conn->open_session(conn, NULL, NULL, &s3));
    OK(s1->create(s1, "table:t", "key_format=S,value_format=S"));
    OK(s1->open_cursor(s1, "table:t", NULL, NULL, &a));
    OK(s1->open_cursor(s1, "table:t", NULL, NULL, &b));
    OK(s2->open_cursor(s2, "table:t", NULL, NULL, &c));
    OK(b->close(b));
    OK(s3->close(s3, NULL));
    CHECK(t.closes == 0);

    OK(conn->close(conn, NULL));
    /* a (in s1), c (in s2), s1, s2, in some order. */
    CHECK(t.closes == 4);
    for (i = 0; i < t.closes && i < 16; i++) {
        if (t.close_cursor[i] != NULL) {
            cursors++;
            CHECK((t.close_cursor[i] == a && t.close_session[i] == s1) ||
              (t.close_cursor[i] == c && t.close_session[i] == s2));
        } else {
            sessions++;
            CHECK(t.close_session[i] == s1 || t.close_session[i] == s2);
        }
    }
    CHECK(cursors == 2);
    CHECK(sessions == 2);
}

/* A handler returning non-zero from handle_close or handle_general must not crash the library. */
static int
refuse_close(WT_EVENT_HANDLER *h, WT_SESSION *session, WT_CURSOR *cursor)
{
    (void)h;
    (void)session;
    (void)cursor;
    return EPERM;
}

static void
test_handler_return(void)
{
    WT_EVENT_HANDLER h;
    WT_CONNECTION *conn = NULL;
    WT_SESSION *s = NULL;
    WT_CURSOR *c = NULL;

    memset(&h, 0, sizeof(h));
    h.handle_close = refuse_close;
    OK(wiredtiger_open(NULL, &h, INMEM, &conn));
    if (conn == NULL)
        return;
    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->create(s, "table:t", "key_format=S,value_format=S"));
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    /* Whatever close returns, the connection is gone afterwards and nothing crashed. */
    (void)conn->close(conn, NULL);
    CHECK(1);
}

int
main(void)
{
    test_error_messages();
    test_null_handlers();
    test_session_handler();
    test_close_events();
    test_handler_return();
    return ul_done("events");
}
