/*
 * Index searches while rows move: 3 writer threads keep changing the indexed column of a
 * small table's rows (updates, removes and re-inserts, some in transactions that move two rows
 * at once and roll back), while 3 reader threads search the index by value through plain
 * index cursors, the path that checks an entry against its row instead of the entry's own
 * versions. Every row a search returns must hold the value searched for (a row and its entry
 * are written in one transaction), and inside a snapshot the same search must answer the same
 * row every time. Bounded by iterations, not time.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "util.h"

#define WRITERS 3
#define READERS 3
#define ITERATIONS 20000
#define ROWS 48
#define VALUES 16

static WT_CONNECTION *conn;

typedef struct {
    int id;
    uint64_t rng;
    int errors;        /* unexpected return codes */
    int wrong_rows;    /* a row whose column is not the value searched for */
    int unrepeatable;  /* a snapshot that answered two different rows */
    long found, missed;
    char first_error[200];
} worker;

static void
fail(worker *w, const char *what, int ret)
{
    ul_thread_fail(&w->errors, w->first_error, sizeof(w->first_error), w->id, what, ret);
}

/* A session of its own with a cursor on `uri`; false (the failure recorded) if either fails. */
static int
open_on(worker *w, const char *uri, WT_SESSION **sp, WT_CURSOR **cp)
{
    int ret;
    if ((ret = conn->open_session(conn, NULL, NULL, sp)) == 0 && (ret = (*sp)->open_cursor(*sp, uri, NULL, NULL, cp)) == 0)
        return 1;
    fail(w, "open", ret);
    return 0;
}

/* Sets row `key` to indexed value `v` (the row also carries v * 7 + 1, and its key). */
static int
put(WT_CURSOR *c, uint64_t key, uint64_t v)
{
    c->set_key(c, key);
    c->set_value(c, v, v * 7 + 1, key);
    return c->insert(c);
}

static void *
writer(void *arg)
{
    worker *w = arg;
    WT_SESSION *s;
    WT_CURSOR *c;
    int i, ret;
    uint64_t key, other;

    if (!open_on(w, "table:moving", &s, &c))
        return NULL;
    for (i = 0; i < ITERATIONS; i++) {
        key = ul_rand(&w->rng) % ROWS;
        switch (ul_rand(&w->rng) % 6) {
        case 0:
            c->set_key(c, key);
            ret = c->remove(c);
            if (ret == WT_NOTFOUND || ret == WT_ROLLBACK)
                ret = 0;
            break;
        case 1:
        case 2:
            /* Two rows swap values in one transaction; a third of them roll back. */
            other = ul_rand(&w->rng) % ROWS;
            if ((ret = s->begin_transaction(s, NULL)) != 0)
                break;
            ret = put(c, key, ul_rand(&w->rng) % VALUES);
            if (ret == 0)
                ret = put(c, other, ul_rand(&w->rng) % VALUES);
            if (ret == 0 && ul_rand(&w->rng) % 3 != 0)
                ret = s->commit_transaction(s, NULL);
            else {
                int r2 = s->rollback_transaction(s, NULL);
                if (ret == 0 || ret == WT_ROLLBACK)
                    ret = r2;
            }
            break;
        default:
            ret = put(c, key, ul_rand(&w->rng) % VALUES);
            if (ret == WT_ROLLBACK)
                ret = 0;
            break;
        }
        if (ret != 0 && ret != WT_ROLLBACK)
            fail(w, "write", ret);
    }
    (void)s->close(s, NULL);
    return NULL;
}

/* Searches value `v`; *key gets the row found (UINT64_MAX: none). */
static int
search(worker *w, WT_CURSOR *ix, uint64_t v, uint64_t *key)
{
    uint64_t got, check;
    int ret;

    *key = UINT64_MAX;
    ix->set_key(ix, v);
    if ((ret = ix->search(ix)) == WT_NOTFOUND) {
        w->missed++;
        return 0;
    }
    if (ret != 0)
        return ret;
    if ((ret = ix->get_value(ix, &got, &check, key)) != 0)
        return ret;
    w->found++;
    if (got != v || check != v * 7 + 1)
        w->wrong_rows++;
    return 0;
}

static void *
reader(void *arg)
{
    worker *w = arg;
    WT_SESSION *s;
    WT_CURSOR *ix;
    uint64_t v, first, again;
    int i, ret;

    if (!open_on(w, "index:moving:v", &s, &ix))
        return NULL;
    for (i = 0; i < ITERATIONS; i++) {
        v = ul_rand(&w->rng) % VALUES;
        if (i % 8 != 0) {
            if ((ret = search(w, ix, v, &first)) != 0)
                fail(w, "search", ret);
            continue;
        }
        /* In a snapshot, the same search twice with writers running between. */
        if ((ret = s->begin_transaction(s, "isolation=snapshot")) != 0) {
            fail(w, "begin", ret);
            continue;
        }
        if ((ret = search(w, ix, v, &first)) != 0 || (ret = search(w, ix, (v + 1) % VALUES, &again)) != 0 ||
          (ret = search(w, ix, v, &again)) != 0)
            fail(w, "search in a snapshot", ret);
        else if (first != again)
            w->unrepeatable++;
        if ((ret = s->rollback_transaction(s, NULL)) != 0)
            fail(w, "rollback", ret);
    }
    (void)s->close(s, NULL);
    return NULL;
}

int
main(void)
{
    pthread_t threads[WRITERS + READERS];
    worker workers[WRITERS + READERS];
    WT_SESSION *s;
    WT_CURSOR *c;
    long found = 0, missed = 0;
    uint64_t key;
    int i;

    ul_open(NULL, "create,in_memory=true", &conn, &s);
    OK(s->create(s, "table:moving", "key_format=Q,value_format=QQQ,columns=(k,v,check,self)"));
    OK(s->create(s, "index:moving:v", "columns=(v)"));
    OK(s->open_cursor(s, "table:moving", NULL, NULL, &c));
    for (key = 0; key < ROWS; key++)
        OK(put(c, key, key % VALUES));
    OK(c->close(c));

    memset(workers, 0, sizeof(workers));
    for (i = 0; i < WRITERS + READERS; i++) {
        workers[i].id = i;
        workers[i].rng = 1000 + (uint64_t)i;
        CHECK(pthread_create(&threads[i], NULL, i < WRITERS ? writer : reader, &workers[i]) == 0);
    }
    for (i = 0; i < WRITERS + READERS; i++) {
        CHECK(pthread_join(threads[i], NULL) == 0);
        if (workers[i].errors != 0)
            fprintf(stderr, "%s\n", workers[i].first_error);
        CHECK(workers[i].errors == 0);
        CHECK(workers[i].wrong_rows == 0);
        CHECK(workers[i].unrepeatable == 0);
        found += workers[i].found;
        missed += workers[i].missed;
    }
    /* The searches saw both outcomes (the test exercised something). */
    CHECK(found > 0 && missed > 0);
    OK(conn->close(conn, NULL));
    printf("index_threads: %ld found, %ld missed; %d checks, %d failures\n", found, missed, ul_checks, ul_failures);
    return ul_failures == 0 ? 0 : 1;
}
