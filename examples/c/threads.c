/*
 * threads.c -- several threads writing to one table, each through its own session.
 *
 * The rules: a WT_CONNECTION may be used by any number of threads at once; a WT_SESSION, and
 * every cursor opened from it, by one thread at a time. So each thread opens its own session
 * (open_session is thread safe) and its own cursors, and closes them when it is done.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <wiredtiger.h>

#define THREADS 4
#define KEYS_PER_THREAD 10000

#define CHECK(call)                                                                        \
    do {                                                                                   \
        int check_ret_ = (call);                                                           \
        if (check_ret_ != 0) {                                                             \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                  \
              wiredtiger_strerror(check_ret_));                                            \
            exit(EXIT_FAILURE);                                                            \
        }                                                                                  \
    } while (0)

typedef struct {
    WT_CONNECTION *conn; /* shared by every thread */
    int id;
} worker_args;

static void *
worker(void *arg)
{
    worker_args *w = arg;
    WT_SESSION *session;
    WT_CURSOR *cursor;
    int64_t k;

    /* This thread's own session and cursor. */
    CHECK(w->conn->open_session(w->conn, NULL, NULL, &session));
    CHECK(session->open_cursor(session, "table:numbers", NULL, NULL, &cursor));
    /* Threads write disjoint keys: thread i writes i, i + THREADS, i + 2 * THREADS, ... */
    for (k = w->id; k < (int64_t)THREADS * KEYS_PER_THREAD; k += THREADS) {
        cursor->set_key(cursor, k);
        cursor->set_value(cursor, (int64_t)w->id);
        CHECK(cursor->insert(cursor));
    }
    /* Closing the session closes its cursor too. */
    CHECK(session->close(session, NULL));
    return NULL;
}

int
main(void)
{
    pthread_t threads[THREADS];
    worker_args args[THREADS];
    WT_CONNECTION *conn;
    WT_SESSION *session;
    WT_CURSOR *cursor;
    int64_t count, per_thread[THREADS] = {0}, who;
    int i, ret;

    CHECK(wiredtiger_open(NULL, NULL, "create,in_memory=true", &conn));
    CHECK(conn->open_session(conn, NULL, NULL, &session));
    CHECK(session->create(session, "table:numbers", "key_format=q,value_format=q"));

    for (i = 0; i < THREADS; i++) {
        args[i].conn = conn;
        args[i].id = i;
        if (pthread_create(&threads[i], NULL, worker, &args[i]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            return EXIT_FAILURE;
        }
    }
    for (i = 0; i < THREADS; i++)
        (void)pthread_join(threads[i], NULL);

    /* Count what each thread wrote, through the main thread's session. */
    CHECK(session->open_cursor(session, "table:numbers", NULL, NULL, &cursor));
    for (count = 0; (ret = cursor->next(cursor)) == 0; count++) {
        CHECK(cursor->get_value(cursor, &who));
        per_thread[who]++;
    }
    if (ret != WT_NOTFOUND)
        CHECK(ret);
    for (i = 0; i < THREADS; i++)
        printf("thread %d wrote %lld records\n", i, (long long)per_thread[i]);
    printf("%lld records in all\n", (long long)count);

    CHECK(conn->close(conn, NULL));
    return count == (int64_t)THREADS * KEYS_PER_THREAD ? EXIT_SUCCESS : EXIT_FAILURE;
}
