/*
 * The checks of the `diagnostic` cargo feature (tests/diagnostic.rs builds the library with it):
 * a session used by a second thread while a call on it is running, and a cursor handle used
 * after close, are refused with EINVAL and an event-handler message; nested calls of the same
 * thread (an event handler calling back into its session) pass.
 *
 * The overlap is made deterministic with the event handler: an error on the main thread runs
 * the handler inside the session's call, and the handler has a second thread use the session
 * before it returns.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static WT_SESSION *session;
static pthread_t main_thread;
static int overlapped, other_rc = -1, nested_rc = -1;
static char other_message[1024], last_message[1024];

/* A second thread's call on the session. */
static void *
other(void *arg)
{
    WT_CURSOR *c = NULL;
    (void)arg;
    other_rc = session->open_cursor(session, "table:t", NULL, NULL, &c);
    if (other_rc == 0)
        (void)c->close(c);
    return NULL;
}

static int
handle_error(WT_EVENT_HANDLER *handler, WT_SESSION *s, int error, const char *message)
{
    pthread_t t;
    (void)handler;
    (void)error;
    if (!pthread_equal(pthread_self(), main_thread)) {
        snprintf(other_message, sizeof(other_message), "%s", message);
        return 0;
    }
    snprintf(last_message, sizeof(last_message), "%s", message);
    if (!overlapped) {
        /* Inside the main thread's call on the session: another thread uses it now. */
        overlapped = 1;
        if (pthread_create(&t, NULL, other, NULL) == 0)
            pthread_join(t, NULL);
        /* A call back into the session from its own thread is allowed. */
        nested_rc = s->create(s, "table:nested", "key_format=S,value_format=S");
    }
    return 0;
}

static WT_EVENT_HANDLER handler = {handle_error, NULL, NULL, NULL, NULL};


int
main(void)
{
    WT_CONNECTION *conn;
    WT_CURSOR *c = NULL, *q = NULL, *again = NULL;
    const char *key = NULL;
    uint64_t v = 0;

    main_thread = pthread_self();
    OK(wiredtiger_open(NULL, &handler, "create,in_memory=true", &conn));
    OK(conn->open_session(conn, NULL, NULL, &session));
    OK(session->create(session, "table:t", "key_format=S,value_format=S"));
    OK(session->create(session, "table:q", "key_format=Q,value_format=Q"));

    /* Two threads at once: the second is refused, the nested call of the first passes. */
    CHECK_RC(session->create(session, "table:bad", "key_format=S,value_format=S,no_such_key=1"), EINVAL);
    CHECK(overlapped);
    CHECK_RC(other_rc, EINVAL);
    CHECK(strstr(other_message, "used by two threads at once") != NULL);
    CHECK_RC(nested_rc, 0);
    /* Once the call returned, the other thread may use the session. */
    other_rc = -1;
    other(NULL);
    CHECK_RC(other_rc, 0);

    /* A cursor used after close: refused, until open_cursor hands it out again. */
    OK(session->open_cursor(session, "table:t", NULL, NULL, &c));
    c->set_key(c, "a");
    c->set_value(c, "1");
    OK(c->insert(c));
    OK(c->close(c));
    last_message[0] = '\0';
    CHECK_RC(c->search(c), EINVAL);
    CHECK(strstr(last_message, "cursor used after it was closed") != NULL);
    c->set_key(c, "a"); /* refused with a message; nothing set */
    CHECK_RC(c->get_key(c, &key), EINVAL);
    CHECK_RC(c->next(c), EINVAL);
    CHECK_RC(c->close(c), ENOTSUP); /* a second close keeps its own error */
    OK(session->open_cursor(session, "table:t", NULL, NULL, &again));
    CHECK(again == c);
    again->set_key(again, "a");
    OK(again->search(again));
    OK(again->close(again));

    /* The same through the integer entry points. */
    OK(session->open_cursor(session, "table:q", NULL, NULL, &q));
    q->set_key(q, (uint64_t)7);
    q->set_value(q, (uint64_t)49);
    OK(q->insert(q));
    OK(q->close(q));
    last_message[0] = '\0';
    q->set_key(q, (uint64_t)7);
    CHECK(strstr(last_message, "cursor used after it was closed") != NULL);
    CHECK_RC(q->get_value(q, &v), EINVAL);
    OK(session->open_cursor(session, "table:q", NULL, NULL, &q));
    q->set_key(q, (uint64_t)7);
    OK(q->search(q));
    OK(q->get_value(q, &v));
    CHECK(v == 49);
    OK(q->close(q));

    OK(conn->close(conn, NULL));
    return ul_done("diagnostic");
}
