/*
 * Concurrency: 8 threads, each with its own session, work on one shared table (disjoint and
 * overlapping keys) and on a table of their own, for a bounded number of iterations. Every
 * value read is validated (the value encodes the key), the final state is checked, and
 * sessions are opened and closed concurrently. A WT_CONNECTION may be shared by threads; a
 * WT_SESSION and its cursors are used by one thread at a time (api.md, Threading).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "util.h"

#define INMEM "create,in_memory=true"
#define NTHREADS 8
#define ITERATIONS 3000
#define DISJOINT 400     /* keys per thread in the shared table: t * DISJOINT + i */
#define SHARED_BASE 100000 /* overlapping keys: SHARED_BASE + (0 .. NSHARED-1) */
#define NSHARED 64

static WT_CONNECTION *conn;

/* Per-thread results, checked by the main thread (the check macros are not thread safe). */
typedef struct {
    int id;
    int errors;           /* unexpected return codes */
    int bad_values;       /* values that do not encode their key */
    char first_error[256];
    unsigned char present[DISJOINT]; /* expected final state of own disjoint keys */
    uint64_t rng;
    long reads, writes;
} worker;

static void
fail(worker *w, const char *what, int ret, uint64_t key)
{
    if (w->errors++ == 0)
        snprintf(w->first_error, sizeof(w->first_error), "thread %d: %s key %" PRIu64 ": %d (%s)", w->id,
          what, key, ret, wiredtiger_strerror(ret));
}

static uint64_t
next_rand(worker *w)
{
    /* splitmix64 */
    uint64_t z = (w->rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The value stored under `key`: "k<key>:w<writer>:<n>", so a reader can check the key part. */
static void
make_value(char *buf, size_t len, uint64_t key, int writer, long n)
{
    snprintf(buf, len, "k%" PRIu64 ":w%d:%ld", key, writer, n);
}

static int
value_matches(const char *value, uint64_t key)
{
    char prefix[32];
    size_t n;
    if (value == NULL)
        return 0;
    n = (size_t)snprintf(prefix, sizeof(prefix), "k%" PRIu64 ":w", key);
    return strncmp(value, prefix, n) == 0;
}

/* Reads `key` through `c` and validates it; returns 1 if found, 0 if not, -1 on error. */
static int
read_key(worker *w, WT_CURSOR *c, uint64_t key)
{
    const char *v = NULL;
    uint64_t k = 0;
    int ret;

    c->set_key(c, key);
    ret = c->search(c);
    w->reads++;
    if (ret == WT_NOTFOUND)
        return 0;
    if (ret != 0) {
        fail(w, "search", ret, key);
        return -1;
    }
    if ((ret = c->get_key(c, &k)) != 0 || k != key) {
        fail(w, "get_key after search", ret, key);
        return -1;
    }
    if ((ret = c->get_value(c, &v)) != 0) {
        fail(w, "get_value", ret, key);
        return -1;
    }
    if (!value_matches(v, key))
        w->bad_values++;
    return 1;
}

/* Scans the whole shared table once, validating every record and the key order. */
static void
scan(worker *w, WT_CURSOR *c)
{
    const char *v;
    uint64_t k, prev = 0;
    int ret, first = 1;

    while ((ret = c->next(c)) == 0) {
        k = 0;
        v = NULL;
        if (c->get_key(c, &k) != 0 || c->get_value(c, &v) != 0) {
            fail(w, "get in scan", -1, k);
            break;
        }
        if (!value_matches(v, k))
            w->bad_values++;
        if (!first && k <= prev)
            fail(w, "scan order", 0, k);
        prev = k;
        first = 0;
        w->reads++;
    }
    if (ret != WT_NOTFOUND && ret != 0)
        fail(w, "next", ret, k);
    (void)c->reset(c);
}

static void *
run(void *arg)
{
    worker *w = arg;
    WT_SESSION *s = NULL, *tmp;
    WT_CURSOR *shared = NULL, *own = NULL, *c;
    char uri[64], value[64];
    uint64_t key;
    long it;
    int ret, op, i;

    if ((ret = conn->open_session(conn, NULL, NULL, &s)) != 0) {
        fail(w, "open_session", ret, 0);
        return NULL;
    }
    snprintf(uri, sizeof(uri), "table:own%d", w->id);
    if ((ret = s->create(s, uri, "key_format=Q,value_format=S")) != 0)
        fail(w, "create own", ret, 0);
    /* Everybody creates the shared table too: create of an existing table returns 0. */
    if ((ret = s->create(s, "table:shared", "key_format=Q,value_format=S")) != 0)
        fail(w, "create shared", ret, 0);
    if ((ret = s->open_cursor(s, "table:shared", NULL, NULL, &shared)) != 0 ||
      (ret = s->open_cursor(s, uri, NULL, NULL, &own)) != 0) {
        fail(w, "open_cursor", ret, 0);
        return NULL;
    }

    for (it = 0; it < ITERATIONS; it++) {
        op = (int)(next_rand(w) % 100);
        if (op < 35) {
            /* Disjoint key in the shared table: insert / remove, tracked exactly. */
            i = (int)(next_rand(w) % DISJOINT);
            key = (uint64_t)(w->id * DISJOINT + i);
            if (next_rand(w) % 3 != 0) {
                make_value(value, sizeof(value), key, w->id, it);
                shared->set_key(shared, key);
                shared->set_value(shared, value);
                if ((ret = shared->insert(shared)) != 0)
                    fail(w, "insert disjoint", ret, key);
                else
                    w->present[i] = 1;
            } else {
                shared->set_key(shared, key);
                ret = shared->remove(shared);
                if (ret == 0) {
                    if (!w->present[i])
                        fail(w, "remove of a key never inserted succeeded", 0, key);
                    w->present[i] = 0;
                } else if (ret == WT_NOTFOUND) {
                    if (w->present[i])
                        fail(w, "remove of a present key: not found", ret, key);
                } else
                    fail(w, "remove disjoint", ret, key);
            }
            w->writes++;
            /* and read it back */
            ret = read_key(w, shared, key);
            if (ret >= 0 && ret != w->present[i])
                fail(w, "own disjoint key in the wrong state", ret, key);
            (void)shared->reset(shared);
        } else if (op < 55) {
            /* Overlapping keys: everybody writes and removes them. */
            key = SHARED_BASE + next_rand(w) % NSHARED;
            if (next_rand(w) % 4 != 0) {
                make_value(value, sizeof(value), key, w->id, it);
                shared->set_key(shared, key);
                shared->set_value(shared, value);
                ret = (next_rand(w) & 1) ? shared->insert(shared) : shared->update(shared);
                if (ret != 0)
                    fail(w, "write overlapping", ret, key);
            } else {
                shared->set_key(shared, key);
                ret = shared->remove(shared);
                if (ret != 0 && ret != WT_NOTFOUND)
                    fail(w, "remove overlapping", ret, key);
            }
            w->writes++;
            (void)shared->reset(shared);
        } else if (op < 80) {
            /* Read any key of the shared table (another thread's or overlapping). */
            if (next_rand(w) & 1)
                key = next_rand(w) % (NTHREADS * DISJOINT);
            else
                key = SHARED_BASE + next_rand(w) % NSHARED;
            (void)read_key(w, shared, key);
            (void)shared->reset(shared);
        } else if (op < 93) {
            /* Own table: insert, search, remove. */
            key = next_rand(w) % 200;
            make_value(value, sizeof(value), key, w->id, it);
            own->set_key(own, key);
            own->set_value(own, value);
            if ((ret = own->insert(own)) != 0)
                fail(w, "insert own", ret, key);
            if (read_key(w, own, key) != 1)
                fail(w, "own key not found after insert", 0, key);
            else {
                const char *v = NULL;
                if (own->get_value(own, &v) != 0 || v == NULL || strcmp(v, value) != 0)
                    fail(w, "own value differs", 0, key);
            }
            if (key % 2 == 0) {
                own->set_key(own, key);
                if ((ret = own->remove(own)) != 0)
                    fail(w, "remove own", ret, key);
            }
            (void)own->reset(own);
        } else if (op < 97) {
            /* Open a session, read, close it again (sessions churn concurrently). */
            tmp = NULL;
            if ((ret = conn->open_session(conn, NULL, NULL, &tmp)) != 0) {
                fail(w, "open_session (churn)", ret, 0);
                continue;
            }
            c = NULL;
            if ((ret = tmp->open_cursor(tmp, "table:shared", NULL, NULL, &c)) != 0)
                fail(w, "open_cursor (churn)", ret, 0);
            else
                (void)read_key(w, c, SHARED_BASE + next_rand(w) % NSHARED);
            /* leave the cursor open: session close closes it */
            if ((ret = tmp->close(tmp, NULL)) != 0)
                fail(w, "session close (churn)", ret, 0);
        } else if (op < 99) {
            scan(w, shared);
        } else {
            /* Create and drop a private scratch table. */
            char scratch[64];
            snprintf(scratch, sizeof(scratch), "table:scratch%d", w->id);
            if ((ret = s->create(s, scratch, "key_format=Q,value_format=S")) != 0)
                fail(w, "create scratch", ret, 0);
            else if ((ret = s->drop(s, scratch, NULL)) != 0)
                fail(w, "drop scratch", ret, 0);
        }
    }

    /* Own table: odd keys inserted stay, even ones are removed. */
    (void)own->reset(own);
    {
        uint64_t k, prev = 0;
        const char *v;
        int first = 1;
        while ((ret = own->next(own)) == 0) {
            k = 0;
            v = NULL;
            if (own->get_key(own, &k) != 0 || own->get_value(own, &v) != 0) {
                fail(w, "own scan get", -1, k);
                break;
            }
            if (k % 2 == 0)
                fail(w, "even own key survived", 0, k);
            if (!value_matches(v, k))
                w->bad_values++;
            if (!first && k <= prev)
                fail(w, "own scan order", 0, k);
            first = 0;
            prev = k;
        }
        if (ret != WT_NOTFOUND && ret != 0)
            fail(w, "own scan", ret, 0);
    }
    if ((ret = s->close(s, NULL)) != 0)
        fail(w, "session close", ret, 0);
    return NULL;
}

int
main(void)
{
    pthread_t tids[NTHREADS];
    static worker workers[NTHREADS];
    WT_SESSION *s;
    WT_CURSOR *c = NULL;
    const char *v;
    uint64_t k;
    int i, ret, started[NTHREADS];
    long reads = 0, writes = 0;

    ul_open(NULL, INMEM, &conn, &s);

    for (i = 0; i < NTHREADS; i++) {
        memset(&workers[i], 0, sizeof(workers[i]));
        workers[i].id = i;
        workers[i].rng = 0x5eed0000u + (uint64_t)i;
        started[i] = pthread_create(&tids[i], NULL, run, &workers[i]) == 0;
        CHECK(started[i]);
    }
    for (i = 0; i < NTHREADS; i++)
        if (started[i])
            CHECK(pthread_join(tids[i], NULL) == 0);

    for (i = 0; i < NTHREADS; i++) {
        CHECK(workers[i].errors == 0);
        CHECK(workers[i].bad_values == 0);
        if (workers[i].errors != 0)
            fprintf(stderr, "  %s (%d errors)\n", workers[i].first_error, workers[i].errors);
        if (workers[i].bad_values != 0)
            fprintf(stderr, "  thread %d read %d bad values\n", i, workers[i].bad_values);
        reads += workers[i].reads;
        writes += workers[i].writes;
    }
    CHECK(writes > 0 && reads > 0);

    /* Final state of the shared table: disjoint keys exactly as each thread left them;
     * overlapping keys, where present, hold a valid value. */
    OK(s->open_cursor(s, "table:shared", NULL, NULL, &c));
    if (c != NULL) {
        int missing = 0, extra = 0, bad = 0, disorder = 0;
        uint64_t prev = 0;
        int first = 1;
        for (i = 0; i < NTHREADS * DISJOINT; i++) {
            c->set_key(c, (uint64_t)i);
            ret = c->search(c);
            if (ret == 0) {
                if (!workers[i / DISJOINT].present[i % DISJOINT])
                    extra++;
                v = NULL;
                OK(c->get_value(c, &v));
                if (!value_matches(v, (uint64_t)i))
                    bad++;
            } else {
                CHECK_RC(ret, WT_NOTFOUND);
                if (workers[i / DISJOINT].present[i % DISJOINT])
                    missing++;
            }
        }
        CHECK(missing == 0);
        CHECK(extra == 0);
        CHECK(bad == 0);
        OK(c->reset(c));
        while ((ret = c->next(c)) == 0) {
            k = 0;
            v = NULL;
            OK(c->get_key(c, &k));
            OK(c->get_value(c, &v));
            if (!value_matches(v, k))
                bad++;
            if (!(k < (uint64_t)NTHREADS * DISJOINT || (k >= SHARED_BASE && k < SHARED_BASE + NSHARED)))
                extra++;
            if (!first && k <= prev)
                disorder++;
            first = 0;
            prev = k;
        }
        CHECK_RC(ret, WT_NOTFOUND);
        CHECK(bad == 0);
        CHECK(extra == 0);
        CHECK(disorder == 0);
        OK(c->close(c));
    }
    /* Each thread's own table still exists; scratch tables are gone. */
    for (i = 0; i < NTHREADS; i++) {
        char uri[64];
        snprintf(uri, sizeof(uri), "table:own%d", i);
        c = NULL;
        OK(s->open_cursor(s, uri, NULL, NULL, &c));
        if (c != NULL)
            OK(c->close(c));
        snprintf(uri, sizeof(uri), "table:scratch%d", i);
        c = NULL;
        CHECK_RC(s->open_cursor(s, uri, NULL, NULL, &c), ENOENT);
    }

    OK(conn->close(conn, NULL));
    fprintf(stderr, "(%ld reads, %ld writes)\n", reads, writes);
    return ul_done("threads");
}
