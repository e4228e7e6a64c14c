/*
 * Readers and writers on an on-disk table several times larger than the cache while the engine
 * merges (past the dirty trigger), evicts (past the eviction trigger) and checkpoints:
 *   - 2 writer threads update random keys of their own (writer w owns the keys k with
 *     k % WRITERS == w) in transactions of 1-4 keys; a value encodes (key, version) and a
 *     filler derived from both; after a commit the writer publishes each key's new version in
 *     a shared array (atomics), so the expected value of every key is exact;
 *   - 1 reader thread searches random keys and checks that each value is a well-formed value
 *     of that key, with a version at least the one published before the search started and at
 *     most one past the one published after it; now and then it scans a short range with next()
 *     and checks the order and every value's form;
 *   - 1 thread takes checkpoints in a loop.
 * After the run every key must hold exactly its last published version, before and after a
 * clean close and reopen. The peak resident memory (VmHWM) is printed; with the argument "rss"
 * it must stay within cache_size + 96 MB. UL_VERBOSE=1 prints the resident memory, the cache's
 * bytes and its dirty bytes every quarter second.
 *
 * evict_stress [SECONDS [rss]]: run time (default 6); UNLATCHED_EVICT_SECONDS overrides it (the
 * sanitizer run uses a shorter one).
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "util.h"

#define CACHE_MB 2
#define CONFIG "create,cache_size=2MB,statistics=(fast)"
#define URI "table:stress"
#define KEYS 30000 /* about 6 MB of values: 3x the cache */
#define VALUE_LEN 190
#define WRITERS 2

static char home[512];
static WT_CONNECTION *conn;
static _Atomic uint64_t published[KEYS];
static atomic_int stop;
static atomic_int failed; /* a thread's failed check: stops the others early */
static atomic_ullong commits, rollbacks, reads, scans, checkpoints;

static uint64_t
mix(uint64_t k, uint64_t v)
{
    uint64_t x = k * 0x9E3779B97F4A7C15ULL ^ (v + 1) * 0xC2B2AE3D27D4EB4FULL;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ULL;
    return x ^ (x >> 29);
}

static void
make_value(uint64_t k, uint64_t v, char *buf)
{
    uint64_t x = mix(k, v);
    int n = snprintf(buf, VALUE_LEN + 1, "%08" PRIu64 ":%010" PRIu64 ":", k, v), j;
    for (j = n; j < VALUE_LEN; j++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        buf[j] = (char)('a' + (x >> 58) % 26);
    }
    buf[VALUE_LEN] = '\0';
}

/* The version of `value` if it is a well-formed value of key k, else -1. */
static int64_t
parse_value(uint64_t k, const char *value)
{
    char want[VALUE_LEN + 1];
    uint64_t pk, pv;
    if (strlen(value) != VALUE_LEN || sscanf(value, "%8" SCNu64 ":%10" SCNu64 ":", &pk, &pv) != 2 || pk != k)
        return -1;
    make_value(k, pv, want);
    return strcmp(value, want) == 0 ? (int64_t)pv : -1;
}

static void
fail(const char *what, uint64_t k, const char *detail)
{
    fprintf(stderr, "evict_stress: %s (key %" PRIu64 "): %s\n", what, k, detail);
    atomic_store(&failed, 1);
}

static void *
writer(void *arg)
{
    int w = (int)(intptr_t)arg, i, n, ret;
    uint64_t rng = 0x1234 + (uint64_t)w, keys[4], vers[4];
    char value[VALUE_LEN + 1];
    WT_SESSION *s;
    WT_CURSOR *c;

    if (conn->open_session(conn, NULL, NULL, &s) != 0 || s->open_cursor(s, URI, NULL, NULL, &c) != 0) {
        fail("writer", 0, "open_session/open_cursor failed");
        return NULL;
    }
    while (!atomic_load(&stop) && !atomic_load(&failed)) {
        n = 1 + (int)(ul_rand(&rng) % 4);
        for (i = 0; i < n; i++) {
            keys[i] = (ul_rand(&rng) % (KEYS / WRITERS)) * WRITERS + (uint64_t)w;
            vers[i] = atomic_load(&published[keys[i]]) + 1;
        }
        if ((ret = s->begin_transaction(s, NULL)) != 0) {
            fail("begin_transaction", 0, wiredtiger_strerror(ret));
            break;
        }
        for (i = 0, ret = 0; i < n && ret == 0; i++) {
            /* A key drawn twice in one transaction: its second update wins. */
            int j;
            for (j = 0; j < i; j++)
                if (keys[j] == keys[i])
                    vers[i] = vers[j] + 1;
            make_value(keys[i], vers[i], value);
            c->set_key(c, keys[i]);
            c->set_value(c, value);
            ret = c->update(c);
        }
        if (ret == WT_ROLLBACK) { /* not expected (no two writers share a key), but allowed */
            atomic_fetch_add(&rollbacks, 1);
            if (s->rollback_transaction(s, NULL) != 0)
                fail("rollback_transaction", 0, "failed");
            continue;
        }
        if (ret != 0) {
            fail("update", keys[i - 1], wiredtiger_strerror(ret));
            s->rollback_transaction(s, NULL);
            break;
        }
        if ((ret = s->commit_transaction(s, NULL)) != 0) {
            if (ret == WT_ROLLBACK) {
                atomic_fetch_add(&rollbacks, 1);
                continue;
            }
            fail("commit_transaction", 0, wiredtiger_strerror(ret));
            break;
        }
        for (i = 0; i < n; i++)
            if (vers[i] > atomic_load(&published[keys[i]]))
                atomic_store(&published[keys[i]], vers[i]);
        atomic_fetch_add(&commits, 1);
    }
    if (s->close(s, NULL) != 0)
        fail("writer", 0, "session close failed");
    return NULL;
}

static void *
reader(void *arg)
{
    uint64_t rng = 0xfeed, k, before, after, n = 0;
    const char *v;
    int64_t ver;
    char detail[512];
    WT_SESSION *s;
    WT_CURSOR *c;
    int ret, i;

    (void)arg;
    if (conn->open_session(conn, NULL, NULL, &s) != 0 || s->open_cursor(s, URI, NULL, NULL, &c) != 0) {
        fail("reader", 0, "open_session/open_cursor failed");
        return NULL;
    }
    while (!atomic_load(&stop) && !atomic_load(&failed)) {
        k = ul_rand(&rng) % KEYS;
        before = atomic_load(&published[k]);
        c->set_key(c, k);
        if ((ret = c->search(c)) != 0 || (ret = c->get_value(c, &v)) != 0) {
            fail("search", k, wiredtiger_strerror(ret));
            break;
        }
        ver = parse_value(k, v);
        after = atomic_load(&published[k]);
        if (ver < 0 || (uint64_t)ver < before || (uint64_t)ver > after + 1) {
            snprintf(detail, sizeof(detail), "value \"%.40s...\" (version %" PRId64 "), published %" PRIu64
              " before the search and %" PRIu64 " after", v, ver, before, after);
            fail("search returned a wrong value", k, detail);
            break;
        }
        atomic_fetch_add(&reads, 1);
        if (++n % 500 == 0) { /* a short scan from here: increasing keys, well-formed values */
            uint64_t last = k, got;
            for (i = 0; i < 50 && (ret = c->next(c)) == 0; i++) {
                if ((ret = c->get_key(c, &got)) != 0 || (ret = c->get_value(c, &v)) != 0)
                    break;
                if (got <= last || got >= KEYS || parse_value(got, v) < 0) {
                    snprintf(detail, sizeof(detail), "next() after key %" PRIu64 " gave key %" PRIu64 " value \"%.40s...\"",
                      last, got, v);
                    fail("scan", k, detail);
                    break;
                }
                last = got;
            }
            if (ret != 0 && ret != WT_NOTFOUND)
                fail("scan", k, wiredtiger_strerror(ret));
            atomic_fetch_add(&scans, 1);
        }
        if ((ret = c->reset(c)) != 0)
            fail("reset", k, wiredtiger_strerror(ret));
    }
    if (s->close(s, NULL) != 0)
        fail("reader", 0, "session close failed");
    return NULL;
}

static void *
checkpointer(void *arg)
{
    struct timespec pause = {0, 20 * 1000 * 1000};
    WT_SESSION *s;
    int ret;

    (void)arg;
    if (conn->open_session(conn, NULL, NULL, &s) != 0) {
        fail("checkpointer", 0, "open_session failed");
        return NULL;
    }
    while (!atomic_load(&stop) && !atomic_load(&failed)) {
        if ((ret = s->checkpoint(s, NULL)) != 0) {
            fail("checkpoint", 0, wiredtiger_strerror(ret));
            break;
        }
        atomic_fetch_add(&checkpoints, 1);
        nanosleep(&pause, NULL);
    }
    if (s->close(s, NULL) != 0)
        fail("checkpointer", 0, "session close failed");
    return NULL;
}

/* Every key holds exactly its last published version. */
static void
verify_all(WT_SESSION *s, const char *step)
{
    WT_CURSOR *c;
    const char *v;
    uint64_t k, bad = 0, want;
    int64_t ver;
    int ret;

    OK(s->open_cursor(s, URI, NULL, NULL, &c));
    for (k = 0; k < KEYS; k++) {
        want = atomic_load(&published[k]);
        c->set_key(c, k);
        ver = -2;
        if ((ret = c->search(c)) == 0 && (ret = c->get_value(c, &v)) == 0)
            ver = parse_value(k, v);
        if ((ver < 0 || (uint64_t)ver != want) && bad++ < 5)
            fprintf(stderr, "evict_stress: %s: key %" PRIu64 " has version %" PRId64 " (search %d), expected %" PRIu64 "\n",
              step, k, ver, ret, want);
    }
    CHECK(bad == 0);
    OK(c->close(c));
}

/* Connection statistic `key` read through a statistics cursor of session `s`. */
static int64_t
stat_of(WT_SESSION *s, int key)
{
    WT_CURSOR *c;
    int64_t value = -1;
    OK(s->open_cursor(s, "statistics:", NULL, NULL, &c));
    c->set_key(c, key);
    if (c->search(c) == 0)
        OK(c->get_value(c, NULL, NULL, &value));
    OK(c->close(c));
    return value;
}

/* A line of /proc/self/status ("VmHWM:", "VmRSS:") in KB, or -1. */
static long long
status_kb(const char *name)
{
    char line[256];
    long long kb = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (f != NULL) {
        while (fgets(line, sizeof(line), f) != NULL)
            if (strncmp(line, name, strlen(name)) == 0)
                kb = atoll(line + strlen(name));
        fclose(f);
    }
    return kb;
}

static int rss_bound; /* argument "rss": the VmHWM bound is checked, not only printed */

static void
check_memory(void)
{
    long long kb = status_kb("VmHWM:"), bound = (long long)(CACHE_MB + 96) << 10;
    printf("evict_stress: VmHWM %.1f MB (bound %lld MB)\n", (double)kb / 1024.0, bound >> 10);
#if !defined(__SANITIZE_ADDRESS__) /* ASan's quarantine keeps freed memory resident */
    if (rss_bound)
        CHECK(kb > 0 && kb <= bound);
#endif
}

int
main(int argc, char **argv)
{
    const char *env = getenv("UNLATCHED_EVICT_SECONDS");
    double seconds = atof(env != NULL ? env : argc > 1 ? argv[1] : "6");
    pthread_t threads[WRITERS + 2];
    char value[VALUE_LEN + 1];
    WT_SESSION *s;
    WT_CURSOR *c;
    struct timespec run;
    uint64_t k;
    int i;

    rss_bound = argc > 2 && strcmp(argv[2], "rss") == 0;
    if (seconds <= 0 || (argc > 2 && !rss_bound)) {
        fprintf(stderr, "usage: evict_stress [SECONDS > 0 [rss]]\n");
        return 2;
    }
    ul_mkhome("evict-stress", home, sizeof(home));
    OK(wiredtiger_open(home, NULL, CONFIG, &conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->create(s, URI, "key_format=Q,value_format=S"));
    OK(s->open_cursor(s, URI, NULL, NULL, &c));
    for (k = 0; k < KEYS; k++) {
        if (k % 100 == 0)
            OK(s->begin_transaction(s, NULL));
        make_value(k, 0, value);
        c->set_key(c, k);
        c->set_value(c, value);
        OK(c->insert(c));
        if (k % 100 == 99 || k == KEYS - 1)
            OK(s->commit_transaction(s, NULL));
    }
    OK(c->close(c));
    if (getenv("UL_VERBOSE") != NULL)
        printf("evict_stress: loaded: VmRSS %6.1f MB\n", (double)status_kb("VmRSS:") / 1024.0);
    OK(s->checkpoint(s, NULL));
    if (getenv("UL_VERBOSE") != NULL)
        printf("evict_stress: checkpointed: VmRSS %6.1f MB\n", (double)status_kb("VmRSS:") / 1024.0);
    if (ul_failures != 0)
        return ul_done("evict_stress");

    for (i = 0; i < WRITERS; i++)
        CHECK(pthread_create(&threads[i], NULL, writer, (void *)(intptr_t)i) == 0);
    CHECK(pthread_create(&threads[WRITERS], NULL, reader, NULL) == 0);
    CHECK(pthread_create(&threads[WRITERS + 1], NULL, checkpointer, NULL) == 0);
    /* Every quarter second: the resident memory, with the work done so far (UL_VERBOSE=1). */
    for (double t = 0; t < seconds && !atomic_load(&failed); t += 0.25) {
        double step = seconds - t < 0.25 ? seconds - t : 0.25;
        run.tv_sec = 0;
        run.tv_nsec = (long)(step * 1e9);
        nanosleep(&run, NULL);
        if (getenv("UL_VERBOSE") != NULL)
            printf("evict_stress: %5.2f s: VmRSS %6.1f MB (cache %5.1f MB, dirty %5.1f MB), %llu commits, %llu searches, "
                   "%llu checkpoints\n",
              t + step, (double)status_kb("VmRSS:") / 1024.0, (double)stat_of(s, WT_STAT_CONN_CACHE_BYTES_INUSE) / 1048576.0,
              (double)stat_of(s, WT_STAT_CONN_CACHE_BYTES_DIRTY) / 1048576.0, (unsigned long long)commits,
              (unsigned long long)reads, (unsigned long long)checkpoints);
    }
    atomic_store(&stop, 1);
    for (i = 0; i < WRITERS + 2; i++)
        pthread_join(threads[i], NULL);
    printf("evict_stress: %.1f s: %llu commits, %llu rollbacks, %llu searches, %llu scans, %llu checkpoints\n", seconds,
      (unsigned long long)commits, (unsigned long long)rollbacks, (unsigned long long)reads, (unsigned long long)scans,
      (unsigned long long)checkpoints);
    CHECK(!atomic_load(&failed));
    CHECK(commits > 0 && reads > 0 && checkpoints > 0);

    verify_all(s, "after the run");
    check_memory();
    OK(conn->close(conn, NULL));
    OK(wiredtiger_open(home, NULL, CONFIG, &conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    verify_all(s, "after a reopen");
    OK(conn->close(conn, NULL));

    if (ul_failures == 0)
        ul_rmhome(home);
    else
        fprintf(stderr, "evict_stress: home kept for inspection: %s\n", home);
    return ul_done("evict_stress");
}
