/*
 * A database far larger than its cache (issue 12 "A real on-disk engine", at test size): an
 * on-disk table of 20-byte keys and 200-byte values is loaded in random key order with a small
 * cache_size and a checkpoint every CKPT_EVERY inserts, so writers merge the in-memory index
 * into the tree files and readers evict pages all along. Checks:
 *   - the process's peak resident memory (VmHWM) stays within cache_size + 96 MB;
 *   - after a clean close, wiredtiger_open + open_cursor + the first search work (timed);
 *   - every row reads back by search; next() and prev() scans return every row once, in
 *     strictly increasing (decreasing) key order, with its value;
 *   - after removes and updates spread over the whole key space, a close and a reopen, the
 *     table matches a model (searches and both scans).
 *
 * bigger_than_cache [ROWS]: ROWS rows (default 60000, about 13 MB of keys and values against
 * a 2 MB cache); UNLATCHED_BIG_ROWS overrides it. UL_PREV_FIRST=1 runs the prev() scans before
 * the next() scans. Under AddressSanitizer (its quarantine and redzones hold freed memory) the
 * VmHWM bound is reported, not checked.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>

#include "util.h"

#define CACHE_MB 2
#define CONFIG "create,cache_size=2MB"
#define URI "table:big"
#define KEY_LEN 20    /* characters, without the NUL */
#define VALUE_LEN 200 /* characters, without the NUL */
#define CKPT_EVERY 25000
#define TXN_ROWS 100 /* inserts per transaction during the load */

static char home[512];
static uint64_t rows;
static unsigned char *model; /* per row: 0 removed, else the version of its value */

static void
make_key(uint64_t i, char *buf)
{
    snprintf(buf, KEY_LEN + 1, "k%019" PRIu64, i);
}

/* The value of row i at version v: its identity, then filler derived from both. */
static void
make_value(uint64_t i, unsigned v, char *buf)
{
    uint64_t x = i * 0x9E3779B97F4A7C15ULL + v;
    int n = snprintf(buf, VALUE_LEN + 1, "v%u:%019" PRIu64 ":", v, i), j;
    for (j = n; j < VALUE_LEN; j++) {
        x ^= x >> 13;
        x *= 0xBF58476D1CE4E5B9ULL;
        buf[j] = (char)('a' + (x >> 59) % 26);
    }
    buf[VALUE_LEN] = '\0';
}

/* Peak resident memory of this process, in bytes (VmHWM), or -1. */
static long long
peak_rss(void)
{
    char line[256];
    long long kb = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, "VmHWM:", 6) == 0)
            kb = atoll(line + 6);
    fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
check_memory(const char *step)
{
    long long peak = peak_rss(), bound = (long long)(CACHE_MB + 96) << 20;
    printf("bigger_than_cache: %s: VmHWM %.1f MB (bound %lld MB)\n", step, (double)peak / 1048576.0, bound >> 20);
#if defined(__SANITIZE_ADDRESS__)
    (void)bound; /* ASan's quarantine keeps freed memory resident: not a bound of the engine */
#else
    if (peak > bound)
        fprintf(stderr, "%s: peak resident memory %lld bytes exceeds cache_size + 96 MB = %lld\n", step, peak, bound);
    CHECK(peak > 0 && peak <= bound);
#endif
}

/* Row i of the random load order: a permutation of 0..rows-1 (step coprime with rows). */
static uint64_t
step_for(uint64_t n)
{
    uint64_t s = n / 2 + 7919, a, b, t;
    for (;; s++) {
        for (a = s, b = n; b != 0; t = a % b, a = b, b = t)
            ;
        if (a == 1)
            return s % n;
    }
}

static void
load(WT_SESSION *s)
{
    WT_CURSOR *c;
    char key[KEY_LEN + 1], value[VALUE_LEN + 1];
    uint64_t j, i = 0, step = step_for(rows);
    double t0 = now();

    OK(s->create(s, URI, "key_format=S,value_format=S"));
    OK(s->open_cursor(s, URI, NULL, NULL, &c));
    for (j = 0; j < rows; j++) {
        if (j % TXN_ROWS == 0)
            OK(s->begin_transaction(s, NULL));
        i = (i + step) % rows;
        make_key(i, key);
        make_value(i, 1, value);
        c->set_key(c, key);
        c->set_value(c, value);
        OK(c->insert(c));
        model[i] = 1;
        if (j % TXN_ROWS == TXN_ROWS - 1 || j == rows - 1)
            OK(s->commit_transaction(s, NULL));
        if (j % CKPT_EVERY == CKPT_EVERY - 1)
            OK(s->checkpoint(s, NULL));
    }
    OK(c->close(c));
    printf("bigger_than_cache: loaded %" PRIu64 " rows in %.2f s\n", rows, now() - t0);
}

/* Opens the home, times open + open_cursor + the first search, returns the cursor. */
static WT_CURSOR *
reopen(WT_CONNECTION **connp, WT_SESSION **sp)
{
    WT_CURSOR *c = NULL;
    char key[KEY_LEN + 1];
    const char *v;
    uint64_t i = rows / 3;
    double t0 = now();
    int ret;

    OK(wiredtiger_open(home, NULL, CONFIG, connp));
    OK((*connp)->open_session(*connp, NULL, NULL, sp));
    OK((*sp)->open_cursor(*sp, URI, NULL, NULL, &c));
    make_key(i, key);
    c->set_key(c, key);
    ret = c->search(c);
    printf("bigger_than_cache: wiredtiger_open + open_cursor + first search: %.1f ms\n", (now() - t0) * 1e3);
    if (model[i] != 0) {
        char want[VALUE_LEN + 1];
        CHECK_RC(ret, 0);
        make_value(i, model[i], want);
        if (ret == 0 && c->get_value(c, &v) == 0)
            CHECK_STR(v, want);
    } else
        CHECK_RC(ret, WT_NOTFOUND);
    OK(c->reset(c));
    return c;
}

/* Every row by search, then next() and prev() scans, against the model. */
static void
verify(WT_CURSOR *c, const char *step)
{
    char key[KEY_LEN + 1], want[VALUE_LEN + 1];
    const char *k, *v, *prev_key;
    char last[KEY_LEN + 1];
    uint64_t i, live = 0, seen, bad = 0;
    int ret, dir;
    double t0 = now();

    for (i = 0; i < rows; i++) {
        make_key(i, key);
        c->set_key(c, key);
        ret = c->search(c);
        if (model[i] == 0) {
            if (ret != WT_NOTFOUND && bad++ < 5)
                fprintf(stderr, "%s: removed row %" PRIu64 ": search returned %d, expected WT_NOTFOUND\n", step, i, ret);
            continue;
        }
        live++;
        make_value(i, model[i], want);
        if (ret != 0 || c->get_value(c, &v) != 0 || strcmp(v, want) != 0) {
            if (bad++ < 5)
                fprintf(stderr, "%s: row %" PRIu64 ": search returned %d, value %.40s..., expected %.40s...\n", step, i,
                  ret, ret == 0 ? v : "(none)", want);
        }
    }
    OK(c->reset(c));
    CHECK(bad == 0);
    printf("bigger_than_cache: %s: %" PRIu64 " searches (%" PRIu64 " rows present) in %.2f s\n", step, rows, live, now() - t0);

    for (int d0 = getenv("UL_PREV_FIRST") != NULL, dd = 0; dd < 2; dd++) {
        dir = d0 ^ dd;
        t0 = now();
        seen = 0;
        bad = 0;
        last[0] = '\0';
        prev_key = NULL;
        /* The expected rows in scan order: i walks the model from one end. */
        i = dir == 0 ? 0 : rows - 1;
        while ((ret = dir == 0 ? c->next(c) : c->prev(c)) == 0) {
            OK(c->get_key(c, &k));
            OK(c->get_value(c, &v));
            if (prev_key != NULL && (dir == 0 ? strcmp(k, last) <= 0 : strcmp(k, last) >= 0) && bad++ < 5)
                fprintf(stderr, "%s: %s scan: key %s after %s\n", step, dir == 0 ? "next" : "prev", k, last);
            snprintf(last, sizeof(last), "%s", k);
            prev_key = last;
            /* The next live row of the model in this direction. */
            while (i < rows && model[i] == 0)
                i = dir == 0 ? i + 1 : i - 1;
            if (i >= rows) {
                if (bad++ < 5)
                    fprintf(stderr, "%s: %s scan: extra key %s\n", step, dir == 0 ? "next" : "prev", k);
                continue;
            }
            make_key(i, key);
            make_value(i, model[i], want);
            if ((strcmp(k, key) != 0 || strcmp(v, want) != 0) && bad++ < 5)
                fprintf(stderr, "%s: %s scan: got key %s value %.30s..., expected key %s value %.30s...\n", step,
                  dir == 0 ? "next" : "prev", k, v, key, want);
            i = dir == 0 ? i + 1 : i - 1;
            seen++;
        }
        CHECK_RC(ret, WT_NOTFOUND);
        OK(c->reset(c));
        if (seen != live)
            fprintf(stderr, "%s: %s scan returned %" PRIu64 " rows, expected %" PRIu64 "\n", step,
              dir == 0 ? "next" : "prev", seen, live);
        CHECK(seen == live);
        CHECK(bad == 0);
        printf("bigger_than_cache: %s: %s scan of %" PRIu64 " rows in %.2f s\n", step, dir == 0 ? "next" : "prev", seen,
          now() - t0);
    }
}

/* Removes every 7th row and updates every 5th (to version 2 or 3), spread over the table. */
static void
change(WT_SESSION *s, WT_CURSOR *c)
{
    char key[KEY_LEN + 1], value[VALUE_LEN + 1];
    uint64_t i, n = 0;
    int ret;

    for (i = 0; i < rows; i++) {
        if (i % 7 != 3 && i % 5 != 1)
            continue;
        if (n++ % TXN_ROWS == 0)
            OK(s->begin_transaction(s, NULL));
        make_key(i, key);
        c->set_key(c, key);
        if (i % 7 == 3) {
            ret = c->remove(c);
            CHECK_RC(ret, model[i] != 0 ? 0 : WT_NOTFOUND);
            model[i] = 0;
        } else {
            unsigned v = model[i] == 0 ? 1 : model[i] + 1;
            make_value(i, v, value);
            c->set_value(c, value);
            OK(c->update(c));
            model[i] = (unsigned char)v;
        }
        if (n % TXN_ROWS == 0)
            OK(s->commit_transaction(s, NULL));
        if (n % CKPT_EVERY == 0)
            OK(s->checkpoint(s, NULL));
    }
    if (n % TXN_ROWS != 0)
        OK(s->commit_transaction(s, NULL));
    OK(c->reset(c));
}

int
main(int argc, char **argv)
{
    const char *env = getenv("UNLATCHED_BIG_ROWS");
    WT_CONNECTION *conn;
    WT_SESSION *s;
    WT_CURSOR *c;

    rows = strtoull(env != NULL ? env : argc > 1 ? argv[1] : "60000", NULL, 10);
    if (rows < 100) {
        fprintf(stderr, "usage: bigger_than_cache [ROWS >= 100]\n");
        return 2;
    }
    if ((model = calloc(rows, 1)) == NULL)
        return 2;
    ul_mkhome("bigger-than-cache", home, sizeof(home));
    printf("bigger_than_cache: %" PRIu64 " rows of %d + %d bytes (%.1f MB), cache_size=%dMB, home %s\n", rows, KEY_LEN,
      VALUE_LEN, (double)rows * (KEY_LEN + VALUE_LEN) / 1048576.0, CACHE_MB, home);

    OK(wiredtiger_open(home, NULL, CONFIG, &conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    load(s);
    check_memory("after the load");
    OK(conn->close(conn, NULL));

    c = reopen(&conn, &s);
    verify(c, "after reopen");
    check_memory("after the reads");
    change(s, c);
    verify(c, "after removes and updates");
    OK(conn->close(conn, NULL));

    c = reopen(&conn, &s);
    verify(c, "after the second reopen");
    check_memory("at the end");
    OK(conn->close(conn, NULL));

    if (ul_failures == 0)
        ul_rmhome(home);
    else
        fprintf(stderr, "bigger_than_cache: home kept for inspection: %s\n", home);
    free(model);
    return ul_done("bigger_than_cache");
}
