/*
 * Crash test with timestamps: a child process commits transaction i at commit timestamp i on a
 * database without a journal whose data is larger than its cache, moves the stable timestamp
 * behind it and checkpoints now and then, writing the stable timestamp of each checkpoint that
 * returned to a side file; the parent SIGKILLs it at a random moment and reopens.
 *
 * After recovery the database must hold exactly transactions 2..R, where R is the recovered
 * stable timestamp (query_timestamp "recovery"), and R must be at least the stable timestamp
 * of the last checkpoint the child saw return. Transaction i writes key i % KEYS, a marker key
 * and a 1 KB row i % BULK_KEYS, so a partly kept transaction shows. The next child continues
 * from R + 1.
 *
 * timestamps_crash [ROUNDS]: ROUNDS kills (default 10).
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#define KEYS 50
#define MARKER 1000000 /* key MARKER + i exists once transaction i is in */
#define BULK 2000000   /* keys BULK + j: 1 KB rows */
#define BULK_KEYS 3000
#define BULK_LEN 1000
#define CONFIG "create,cache_size=1MB"
#define FIRST 2 /* the first transaction: commit timestamps must pass the initial stable, 1 */

static char home[64], side[80];

/* The 1 KB value transaction i writes. */
static void
bulk_value(uint64_t i, char *buf)
{
    memset(buf, 'a' + (int)(i % 26), BULK_LEN);
    snprintf(buf, 24, "%020" PRIu64, i);
    buf[20] = '-';
    buf[BULK_LEN] = '\0';
}

/* Commits transactions from `first` on, forever (until killed). */
static void
child(uint64_t first)
{
    WT_CONNECTION *conn;
    WT_SESSION *s;
    WT_CURSOR *c, *b;
    char config[64], value[BULK_LEN + 1], val[32];
    if (wiredtiger_open(home, NULL, CONFIG, &conn) != 0)
        _exit(3);
    conn->open_session(conn, NULL, NULL, &s);
    s->open_cursor(s, "table:t", NULL, NULL, &c);
    s->open_cursor(s, "table:bulk", NULL, NULL, &b);
    /* The recovered stable timestamp is first - 1. */
    uint64_t stable = first - 1;
    for (uint64_t i = first;; i++) {
        if (s->begin_transaction(s, NULL) != 0)
            _exit(4);
        snprintf(val, sizeof(val), "%" PRIu64, i);
        c->set_key(c, i % KEYS);
        c->set_value(c, val);
        if (c->insert(c) != 0)
            _exit(5);
        c->set_key(c, MARKER + i);
        c->set_value(c, val);
        if (c->insert(c) != 0)
            _exit(5);
        bulk_value(i, value);
        b->set_key(b, BULK + i % BULK_KEYS);
        b->set_value(b, value);
        if (b->insert(b) != 0)
            _exit(5);
        snprintf(config, sizeof(config), "commit_timestamp=%" PRIx64, i);
        if (s->commit_transaction(s, config) != 0)
            _exit(6);
        if (i % 20 == 0 && i - 7 > stable) {
            /* Stable lags a few transactions behind. */
            stable = i - 7;
            snprintf(config, sizeof(config), "stable_timestamp=%" PRIx64, stable);
            if (conn->set_timestamp(conn, config) != 0)
                _exit(7);
        }
        if (i % 150 == 0) {
            if (s->checkpoint(s, NULL) != 0)
                _exit(8);
            FILE *f = fopen(side, "a");
            if (f == NULL)
                _exit(9);
            fprintf(f, "%" PRIu64 "\n", stable);
            fclose(f);
        }
    }
}

/* The stable timestamp of the last checkpoint the child saw return (0: none). */
static uint64_t
last_checkpointed(void)
{
    uint64_t v = 0, x;
    FILE *f = fopen(side, "r");
    if (f == NULL)
        return 0;
    while (fscanf(f, "%" SCNu64, &x) == 1)
        v = x;
    fclose(f);
    return v;
}

/* Checks that the database holds exactly transactions FIRST..R; returns R. */
static uint64_t
verify(void)
{
    WT_CONNECTION *conn;
    WT_SESSION *s;
    WT_CURSOR *c, *b;
    char hex[64], want[BULK_LEN + 1];
    const char *got;
    uint64_t r, k, latest;
    OK(wiredtiger_open(home, NULL, NULL, &conn));
    OK(conn->query_timestamp(conn, hex, "get=recovery"));
    r = strtoull(hex, NULL, 16);
    CHECK(r >= last_checkpointed());
    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    OK(s->open_cursor(s, "table:bulk", NULL, NULL, &b));
    for (k = 0; k < KEYS; k++) {
        latest = r >= k ? r - (r - k) % KEYS : 0; /* the newest i <= r with i % KEYS == k */
        if (latest < FIRST)
            latest = 0;
        c->set_key(c, k);
        int rc = c->search(c);
        if (latest == 0) {
            CHECK_RC(rc, WT_NOTFOUND);
        } else if (rc == 0 && c->get_value(c, &got) == 0) {
            CHECK(strtoull(got, NULL, 10) == latest);
        } else
            CHECK(rc == 0);
    }
    /* Every marker up to r, none after it (the next ones a child may have committed). */
    for (k = 1; k <= r + 200; k++) {
        c->set_key(c, MARKER + k);
        CHECK_RC(c->search(c), k >= FIRST && k <= r ? 0 : WT_NOTFOUND);
    }
    for (k = 0; k < BULK_KEYS; k += 7) {
        latest = r >= k ? r - (r - k) % BULK_KEYS : 0;
        if (latest < FIRST)
            latest = 0;
        b->set_key(b, BULK + k);
        int rc = b->search(b);
        if (latest == 0) {
            CHECK_RC(rc, WT_NOTFOUND);
            continue;
        }
        bulk_value(latest, want);
        CHECK(rc == 0 && b->get_value(b, &got) == 0 && strcmp(got, want) == 0);
    }
    OK(conn->close(conn, NULL));
    return r;
}

int
main(int argc, char **argv)
{
    WT_CONNECTION *conn;
    WT_SESSION *s;
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    snprintf(home, sizeof(home), "/tmp/ul-ts-crash-%d", (int)getpid());
    snprintf(side, sizeof(side), "%s.side", home);
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "rm -rf %s %s && mkdir -p %s", home, side, home);
    if (system(cmd) != 0)
        return 2;
    OK(wiredtiger_open(home, NULL, CONFIG, &conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->create(s, "table:t", "key_format=Q,value_format=S"));
    OK(s->create(s, "table:bulk", "key_format=Q,value_format=S"));
    OK(conn->set_timestamp(conn, "oldest_timestamp=1,stable_timestamp=1"));
    OK(conn->close(conn, NULL));

    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    uint64_t next = FIRST, recovered = 0;
    for (int round = 0; round < rounds && ul_failures == 0; round++) {
        pid_t pid = fork();
        if (pid == 0) {
            child(next);
            _exit(0);
        }
        struct timespec t = {0, (long)(100 + rand() % 400) * 1000000L};
        nanosleep(&t, NULL);
        kill(pid, SIGKILL);
        int status;
        waitpid(pid, &status, 0);
        CHECK(WIFSIGNALED(status));
        recovered = verify();
        next = recovered + 1;
        printf("timestamps_crash: round %d recovered to stable %" PRIu64 "\n", round + 1, recovered);
    }
    snprintf(cmd, sizeof(cmd), "rm -rf %s %s", home, side);
    if (system(cmd) != 0)
        return 2;
    printf("timestamps_crash: %d checks, %d failures, last stable %" PRIu64 "\n", ul_checks, ul_failures, recovered);
    return ul_failures == 0 ? 0 : 1;
}
