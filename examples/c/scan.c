/*
 * scan.c -- create a table, insert records, scan them in both directions, look keys up,
 * update and remove.
 */
#include <stdio.h>
#include <stdlib.h>

#include <wiredtiger.h>

/* Stops the program with the library's text for a failed call. */
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
    static const char *const fruit[] = {"apple", "banana", "cherry", "damson", "elderberry"};
    WT_CONNECTION *conn;
    WT_SESSION *session;
    WT_CURSOR *cursor;
    const char *name;
    int64_t id, n;
    int exact, ret;

    CHECK(wiredtiger_open(NULL, NULL, "create,in_memory=true", &conn));
    CHECK(conn->open_session(conn, NULL, NULL, &session));

    /*
     * A table maps keys to values; their formats use wiredtiger_struct_pack's letters:
     * "q" is a signed 64-bit integer, "S" a NUL-terminated string.
     */
    CHECK(session->create(session, "table:fruit", "key_format=q,value_format=S"));
    CHECK(session->open_cursor(session, "table:fruit", NULL, NULL, &cursor));

    /* Insert: set the key and the value, then insert. The cursor copies both. */
    for (id = 0; id < 5; id++) {
        cursor->set_key(cursor, id * 10);
        cursor->set_value(cursor, fruit[id]);
        CHECK(cursor->insert(cursor));
    }

    /* Scan in key order: next() starts at the first record and ends with WT_NOTFOUND. */
    printf("forward:");
    while ((ret = cursor->next(cursor)) == 0) {
        CHECK(cursor->get_key(cursor, &id));
        CHECK(cursor->get_value(cursor, &name));
        /* `name` points into the cursor: valid until the cursor moves, changes or closes. */
        printf(" %lld=%s", (long long)id, name);
    }
    if (ret != WT_NOTFOUND)
        CHECK(ret);
    printf("\n");

    /* After WT_NOTFOUND the cursor is reset: prev() now starts at the last record. */
    printf("backward:");
    for (n = 0; (ret = cursor->prev(cursor)) == 0; n++) {
        CHECK(cursor->get_key(cursor, &id));
        printf(" %lld", (long long)id);
    }
    if (ret != WT_NOTFOUND)
        CHECK(ret);
    printf(" (%lld records)\n", (long long)n);

    /* Exact look-up. */
    cursor->set_key(cursor, (int64_t)30);
    CHECK(cursor->search(cursor));
    CHECK(cursor->get_value(cursor, &name));
    printf("search 30: %s\n", name);

    /* Nearest look-up: exact < 0 means the record found is smaller than the key asked for. */
    cursor->set_key(cursor, (int64_t)25);
    CHECK(cursor->search_near(cursor, &exact));
    CHECK(cursor->get_key(cursor, &id));
    printf("search_near 25: %lld (%s)\n", (long long)id,
      exact == 0 ? "exact" : exact < 0 ? "smaller" : "larger");

    /* Update an existing record, then remove one; a missing key answers WT_NOTFOUND. */
    cursor->set_key(cursor, (int64_t)20);
    cursor->set_value(cursor, "clementine");
    CHECK(cursor->update(cursor));
    cursor->set_key(cursor, (int64_t)40);
    CHECK(cursor->remove(cursor));
    cursor->set_key(cursor, (int64_t)40);
    ret = cursor->search(cursor);
    printf("search 40 after remove: %s\n", ret == WT_NOTFOUND ? "not found" : "found?");
    if (ret != WT_NOTFOUND)
        return EXIT_FAILURE;

    CHECK(cursor->close(cursor));
    CHECK(conn->close(conn, NULL));
    return EXIT_SUCCESS;
}
