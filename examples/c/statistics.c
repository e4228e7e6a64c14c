/*
 * statistics.c -- read the connection's statistics through a "statistics:" cursor.
 *
 * Statistics are kept only when the connection is opened with statistics=(fast) or
 * statistics=(all). Each record of a statistics cursor is one statistic: the key is its
 * numeric id ("i"), the value is its description, its value printed as text, and its value as
 * a number ("SSq").
 *
 * unlatched lists the statistics it keeps (cursor calls, the cursor cache, sessions, table
 * create and drop); reading one statistic by id works as with the reference: set_key(id),
 * search, get_value.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <wiredtiger.h>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        int check_ret_ = (call);                                                           \
        if (check_ret_ != 0) {                                                             \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                  \
              wiredtiger_strerror(check_ret_));                                            \
            exit(EXIT_FAILURE);                                                            \
        }                                                                                  \
    } while (0)

int
main(void)
{
    WT_CONNECTION *conn;
    WT_SESSION *session;
    WT_CURSOR *stats;
    const char *description, *printable;
    int64_t value;
    int printed, nread, ret;

    CHECK(wiredtiger_open(NULL, NULL, "create,in_memory=true,statistics=(fast)", &conn));
    CHECK(conn->open_session(conn, NULL, NULL, &session));

    /* Some work for the statistics to count. */
    {
        WT_CURSOR *cursor;
        int64_t k;
        CHECK(session->create(session, "table:t", "key_format=q,value_format=q"));
        CHECK(session->open_cursor(session, "table:t", NULL, NULL, &cursor));
        for (k = 0; k < 1000; k++) {
            cursor->set_key(cursor, k);
            cursor->set_value(cursor, k * k);
            CHECK(cursor->insert(cursor));
        }
        CHECK(cursor->close(cursor));
    }

    /* "statistics:" is the whole connection; "statistics:table:t" would be one table. */
    CHECK(session->open_cursor(session, "statistics:", NULL, NULL, &stats));

    /* Walk them all; print those that counted something (the first 20 of them). */
    printed = nread = 0;
    while ((ret = stats->next(stats)) == 0) {
        CHECK(stats->get_value(stats, &description, &printable, &value));
        nread++;
        if (value != 0 && printed < 20) {
            printf("%s: %s\n", description, printable);
            printed++;
        }
    }
    if (ret != WT_NOTFOUND)
        CHECK(ret);
    printf("%d statistics read\n", nread);

    /* One statistic by id. */
    CHECK(stats->reset(stats));
    stats->set_key(stats, WT_STAT_CONN_CURSOR_INSERT);
    CHECK(stats->search(stats));
    CHECK(stats->get_value(stats, &description, &printable, &value));
    printf("%s: %" PRId64 "\n", description, value);
    CHECK(stats->close(stats));
    CHECK(conn->close(conn, NULL));
    return EXIT_SUCCESS;
}
