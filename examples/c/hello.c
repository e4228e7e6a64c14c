/*
 * hello.c -- the smallest unlatched program: open a database, open a session, close both.
 *
 * Build (installed):   cc hello.c $(pkg-config --cflags --libs unlatched) -o hello
 * Build (in the repo): see examples/c/README.md
 */
#include <stdio.h>
#include <stdlib.h>

#include <wiredtiger.h>

int
main(void)
{
    WT_CONNECTION *conn;
    WT_SESSION *session;
    const char *version;
    int major, minor, patch, ret;

    /* The version of the WiredTiger API the library implements (the string is static). */
    version = wiredtiger_version(&major, &minor, &patch);
    printf("%s (API %d.%d.%d)\n", version, major, minor, patch);

    /*
     * Open a database. Only in-memory databases are available today, so "in_memory=true" is
     * required; the home directory (NULL means ".") is then never written to.
     */
    if ((ret = wiredtiger_open(NULL, NULL, "create,in_memory=true", &conn)) != 0) {
        fprintf(stderr, "wiredtiger_open: %s\n", wiredtiger_strerror(ret));
        return EXIT_FAILURE;
    }

    /* A session is one thread's context; the connection may be shared by threads. */
    if ((ret = conn->open_session(conn, NULL, NULL, &session)) != 0) {
        fprintf(stderr, "open_session: %s\n", wiredtiger_strerror(ret));
        (void)conn->close(conn, NULL);
        return EXIT_FAILURE;
    }
    printf("hello from a session of the database at \"%s\"\n", conn->get_home(conn));

    /* Closing the connection also closes its sessions and their cursors. */
    if ((ret = conn->close(conn, NULL)) != 0) {
        fprintf(stderr, "close: %s\n", wiredtiger_strerror(ret));
        return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
}
