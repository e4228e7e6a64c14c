/*
 * Closing after a drop (issue "Defects found by adversarial testing", part 1): dropping a table
 * that held rows once made WT_CONNECTION::close hang forever, freeing the table's index inside
 * the epoch collector that was freeing it. Every close below must return; an alarm turns a hang
 * into a failure instead of a stuck test run.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "util.h"

/* Seconds any one scenario may take: each needs milliseconds. */
#define LIMIT 30

static void
on_alarm(int sig)
{
    static const char msg[] = "drop_close: a close hung (alarm)\n";
    (void)sig;
    (void)!write(2, msg, sizeof(msg) - 1);
    _exit(3);
}

/* Creates table:NAME with `rows` S/S rows. */
static void
fill(WT_SESSION *s, const char *uri, int rows)
{
    WT_CURSOR *c;
    char key[32];
    OK(s->create(s, uri, "key_format=S,value_format=S"));
    OK(s->open_cursor(s, uri, NULL, NULL, &c));
    for (int i = 0; i < rows; i++) {
        snprintf(key, sizeof(key), "key%06d", i);
        c->set_key(c, key);
        c->set_value(c, key);
        OK(c->insert(c));
    }
    OK(c->close(c));
}

/* Drop a table with rows, then close the connection (the reported hang). */
static void
test_drop_then_close(const char *home, const char *config, int rows)
{
    WT_CONNECTION *conn;
    WT_SESSION *s;
    alarm(LIMIT);
    OK(wiredtiger_open(home, NULL, config, &conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    fill(s, "table:t", rows);
    OK(s->drop(s, "table:t", NULL));
    OK(conn->close(conn, NULL));
    alarm(0);
}

/* Drop, then close the session before the connection; then create/drop the name many times. */
static void
test_session_close_and_cycles(const char *home, const char *config)
{
    WT_CONNECTION *conn;
    WT_SESSION *s;
    alarm(LIMIT);
    OK(wiredtiger_open(home, NULL, config, &conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    fill(s, "table:t", 200);
    OK(s->drop(s, "table:t", NULL));
    OK(s->close(s, NULL));
    OK(conn->open_session(conn, NULL, NULL, &s));
    for (int round = 0; round < 20; round++) {
        fill(s, "table:t", 100);
        OK(s->drop(s, "table:t", NULL));
    }
    /* A table created after the drops reads back its own rows only. */
    fill(s, "table:t", 3);
    WT_CURSOR *c;
    int n = 0;
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    while (c->next(c) == 0)
        n++;
    CHECK(n == 3);
    OK(c->close(c));
    OK(conn->close(conn, NULL));
    alarm(0);
}

/*
 * Another session holds parked (cached) cursors on the table when it is dropped: the drop
 * succeeds, the parked cursors go stale, and both session close and connection close return.
 */
static void
test_parked_cursors(const char *home, const char *config)
{
    WT_CONNECTION *conn;
    WT_SESSION *a, *b, *c;
    WT_CURSOR *cur;
    alarm(LIMIT);
    OK(wiredtiger_open(home, NULL, config, &conn));
    OK(conn->open_session(conn, NULL, NULL, &a));
    OK(conn->open_session(conn, NULL, NULL, &b));
    OK(conn->open_session(conn, NULL, NULL, &c));
    fill(a, "table:t", 300);
    /* b and c each park a cursor on it (close caches it). */
    OK(b->open_cursor(b, "table:t", NULL, NULL, &cur));
    OK(cur->next(cur));
    OK(cur->close(cur));
    OK(c->open_cursor(c, "table:t", NULL, NULL, &cur));
    cur->set_key(cur, "key000007");
    OK(cur->search(cur));
    OK(cur->close(cur));
    OK(a->drop(a, "table:t", NULL));
    /* b finds its parked cursor stale: the table is gone. */
    CHECK_RC(b->open_cursor(b, "table:t", NULL, NULL, &cur), ENOENT);
    OK(b->close(b, NULL));
    /* c still holds its parked cursor when the connection closes. */
    OK(conn->close(conn, NULL));
    alarm(0);
}

int
main(void)
{
    char home[256];
    signal(SIGALRM, on_alarm);

    test_drop_then_close(NULL, "create,in_memory=true", 50);
    test_drop_then_close(NULL, "create,in_memory=true", 5000);
    test_session_close_and_cycles(NULL, "create,in_memory=true");
    test_parked_cursors(NULL, "create,in_memory=true");

    ul_mkhome("drop_close", home, sizeof(home));
    test_drop_then_close(home, "create", 50);
    test_drop_then_close(home, "create,log=(enabled=true)", 500);
    test_session_close_and_cycles(home, "create");
    test_parked_cursors(home, "create,log=(enabled=true)");
    ul_rmhome(home);
    return ul_done("drop_close");
}
