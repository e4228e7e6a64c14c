/*
 * transactions.c -- move money between two accounts in a transaction, retrying when the
 * transaction loses a conflict (WT_ROLLBACK).
 *
 * Under snapshot isolation two transactions that update the same record conflict: the later
 * one's update returns WT_ROLLBACK. The application must then roll its transaction back and
 * run it again from the start; it may not simply repeat the failed call.
 */
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

/* Adds `delta` to the balance of `account`; returns 0 or the error (WT_ROLLBACK included). */
static int
add(WT_CURSOR *cursor, const char *account, int64_t delta)
{
    int64_t balance;
    int ret;

    cursor->set_key(cursor, account);
    if ((ret = cursor->search(cursor)) != 0)
        return ret;
    if ((ret = cursor->get_value(cursor, &balance)) != 0)
        return ret;
    cursor->set_value(cursor, balance + delta);
    return cursor->update(cursor);
}

/* One attempt: both updates in one transaction, committed together or not at all. */
static int
transfer_once(WT_SESSION *session, WT_CURSOR *cursor, int64_t amount)
{
    int ret;

    if ((ret = session->begin_transaction(session, "isolation=snapshot")) != 0)
        return ret;
    if ((ret = add(cursor, "alice", -amount)) == 0 && (ret = add(cursor, "bob", amount)) == 0)
        /* A failed commit rolls the transaction back by itself. */
        return session->commit_transaction(session, NULL);
    /* Any failure inside the transaction, WT_ROLLBACK included: roll it back. */
    (void)session->rollback_transaction(session, NULL);
    return ret;
}

/* The retry loop: repeat the whole transaction while it is rolled back by a conflict. */
static int
transfer(WT_SESSION *session, WT_CURSOR *cursor, int64_t amount)
{
    const char *reason;
    int attempt, ret;

    for (attempt = 1; attempt <= 100; attempt++) {
        ret = transfer_once(session, cursor, amount);
        if (ret != WT_ROLLBACK)
            return ret; /* done, or an error that a retry will not fix */
        reason = session->get_rollback_reason(session); /* may be NULL */
        fprintf(stderr, "attempt %d rolled back (%s), retrying\n", attempt,
          reason != NULL ? reason : "conflict");
    }
    return WT_ROLLBACK;
}

int
main(void)
{
    WT_CONNECTION *conn;
    WT_SESSION *session;
    WT_CURSOR *cursor;
    int64_t alice, bob;

    CHECK(wiredtiger_open(NULL, NULL, "create,in_memory=true", &conn));
    CHECK(conn->open_session(conn, NULL, NULL, &session));
    CHECK(session->create(session, "table:accounts", "key_format=S,value_format=q"));
    CHECK(session->open_cursor(session, "table:accounts", NULL, NULL, &cursor));

    cursor->set_key(cursor, "alice");
    cursor->set_value(cursor, (int64_t)100);
    CHECK(cursor->insert(cursor));
    cursor->set_key(cursor, "bob");
    cursor->set_value(cursor, (int64_t)0);
    CHECK(cursor->insert(cursor));

    CHECK(transfer(session, cursor, 30));

    /* Read both balances back: the transfer happened entirely. */
    cursor->set_key(cursor, "alice");
    CHECK(cursor->search(cursor));
    CHECK(cursor->get_value(cursor, &alice));
    cursor->set_key(cursor, "bob");
    CHECK(cursor->search(cursor));
    CHECK(cursor->get_value(cursor, &bob));
    printf("alice %lld, bob %lld\n", (long long)alice, (long long)bob);

    CHECK(conn->close(conn, NULL));
    return alice == 70 && bob == 30 ? EXIT_SUCCESS : EXIT_FAILURE;
}
