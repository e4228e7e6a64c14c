/*
 * Journal kill test: a child process runs 8 threads committing transactions with sync=on and
 * sync=off mixed (every third one synced), one transaction per step; the odd rounds also take
 * checkpoints (journal rotations) beside them and use a small file_max. The parent SIGKILLs
 * the child at a random moment, reopens the database and checks:
 *   - every commit acknowledged with sync=on is there;
 *   - per thread, the transactions present are exactly 1..n (no later commit without the
 *     earlier ones, n at most one past the last acknowledged), each whole: all of its keys;
 *   - the journal's order is the commit order: every fourth transaction of each thread also
 *     moves one shared key ("chain") and records the value it replaced; walking those back
 *     from the chain's value visits every such transaction present, each once (a recovered
 *     commit whose predecessor on the shared key is missing would cut the walk short).
 * The next child continues each thread from n + 1.
 *
 * journal_kill [ROUNDS]: ROUNDS kills (default 8); UNLATCHED_CRASH_SEED sets the seed (default:
 * from the clock and the process id), as for crash.c (tools/crash-soak runs either).
 */
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#define THREADS 8
#define URI "table:kill"
#define CHAIN "chain"
#define NOT_CHAINED (-2) /* the x value of a transaction that left the chain alone */

static char home[256];

/* Shared with the children: per thread, the first step of the round and the last steps
 * acknowledged (any, and with sync=on). */
typedef struct {
    uint64_t start[THREADS];
    volatile uint64_t acked[THREADS];
    volatile uint64_t acked_sync[THREADS];
} shared_state;

static shared_state *shared;

typedef struct {
    WT_CONNECTION *conn;
    int t;
} worker_arg;

/* Whether step `i` moves the chain. */
static int
chained(uint64_t i)
{
    return i % 4 == 1;
}

/* A transaction's id: thread and step. */
static int64_t
txn_id(int t, uint64_t i)
{
    return (int64_t)((i << 8) | (uint64_t)t);
}

static void
key_of(char *buf, size_t len, const char *kind, int t, uint64_t i)
{
    snprintf(buf, len, "%s/%d/%" PRIu64, kind, t, i);
}

static void *
worker(void *arg)
{
    worker_arg *w = arg;
    WT_SESSION *s;
    WT_CURSOR *c;
    char key[64];
    int64_t prev;
    uint64_t i;
    int ret, sync;

    if (w->conn->open_session(w->conn, NULL, NULL, &s) != 0 || s->open_cursor(s, URI, NULL, NULL, &c) != 0)
        _exit(20);
    for (i = shared->start[w->t];; i++) {
        sync = i % 3 == 0;
        for (;;) {
            if (s->begin_transaction(s, NULL) != 0)
                _exit(21);
            prev = NOT_CHAINED, ret = 0;
            if (chained(i)) {
                c->set_key(c, CHAIN);
                ret = c->search(c);
                if (ret == 0)
                    ret = c->get_value(c, &prev);
                else if (ret == WT_NOTFOUND)
                    prev = 0, ret = 0;
            }
            if (ret == 0) {
                key_of(key, sizeof(key), "x", w->t, i);
                c->set_key(c, key);
                c->set_value(c, prev);
                ret = c->insert(c);
            }
            if (ret == 0) {
                key_of(key, sizeof(key), "n", w->t, 0);
                c->set_key(c, key);
                c->set_value(c, (int64_t)i);
                ret = c->insert(c);
            }
            if (ret == 0 && chained(i)) {
                c->set_key(c, CHAIN);
                c->set_value(c, txn_id(w->t, i));
                ret = c->insert(c);
            }
            if (ret == 0) {
                ret = s->commit_transaction(s, sync ? "sync=on" : "sync=off");
                if (ret == 0)
                    break;
                if (ret != WT_ROLLBACK)
                    _exit(22);
                continue;
            }
            if (ret != WT_ROLLBACK)
                _exit(23);
            if (s->rollback_transaction(s, NULL) != 0)
                _exit(24);
        }
        shared->acked[w->t] = i;
        if (sync)
            shared->acked_sync[w->t] = i;
    }
    return NULL;
}

static const char *
config(int round)
{
    return round % 2 == 1 ? "create,log=(enabled=true,file_max=100KB)" : "create,log=(enabled=true)";
}

static void
child(int round, int ready)
{
    WT_CONNECTION *conn;
    WT_SESSION *s;
    pthread_t threads[THREADS];
    worker_arg args[THREADS];
    int t;

    if (wiredtiger_open(home, NULL, config(round), &conn) != 0 || conn->open_session(conn, NULL, NULL, &s) != 0 ||
      s->create(s, URI, "key_format=S,value_format=q") != 0)
        _exit(10);
    for (t = 0; t < THREADS; t++) {
        args[t].conn = conn;
        args[t].t = t;
        if (pthread_create(&threads[t], NULL, worker, &args[t]) != 0)
            _exit(11);
    }
    if (write(ready, "r", 1) != 1)
        _exit(12);
    for (;;) {
        struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, NULL);
        if (round % 2 == 1 && s->checkpoint(s, NULL) != 0)
            _exit(13);
    }
}

/* The value of `key`, or -1 when absent. */
static int64_t
lookup(WT_CURSOR *c, const char *key)
{
    int64_t v = -1;
    int ret;

    c->set_key(c, key);
    ret = c->search(c);
    if (ret == 0)
        OK(c->get_value(c, &v));
    else
        CHECK_RC(ret, WT_NOTFOUND);
    return v;
}

/* Checks the recovered database; sets each thread's next step. Returns the transactions found. */
static uint64_t
verify(int round)
{
    WT_CONNECTION *conn;
    WT_SESSION *s;
    WT_CURSOR *c;
    char key[64];
    uint64_t n[THREADS], total = 0, chain = 0, walked = 0, i;
    int64_t at, v;
    int t, bad = 0;

    OK(wiredtiger_open(home, NULL, "log=(enabled=true)", &conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->open_cursor(s, URI, NULL, NULL, &c));
    for (t = 0; t < THREADS; t++) {
        key_of(key, sizeof(key), "n", t, 0);
        v = lookup(c, key);
        n[t] = v < 0 ? shared->start[t] - 1 : (uint64_t)v;
        if (n[t] < shared->acked_sync[t] || n[t] > shared->acked[t] + 1 || n[t] + 1 < shared->start[t]) {
            fprintf(stderr, "round %d thread %d: %" PRIu64 " recovered; acknowledged %" PRIu64 " (sync=on %" PRIu64 "), started at %" PRIu64 "\n",
              round, t, n[t], shared->acked[t], shared->acked_sync[t], shared->start[t]);
            bad++;
        }
        for (i = 1; i <= n[t] + 1; i++) {
            key_of(key, sizeof(key), "x", t, i);
            if ((lookup(c, key) != -1) != (i <= n[t])) {
                fprintf(stderr, "round %d thread %d: step %" PRIu64 " %s\n", round, t, i, i <= n[t] ? "missing" : "present past the last");
                bad++;
                break;
            }
        }
        total += n[t];
        chain += (n[t] + 3) / 4;
    }
    /* Walk the shared key's history back from its value. */
    for (at = lookup(c, CHAIN); at > 0 && walked <= chain; walked++) {
        t = (int)(at & 0xff);
        i = (uint64_t)at >> 8;
        if (t >= THREADS || i > n[t] || !chained(i)) {
            fprintf(stderr, "round %d: the chain names thread %d step %" PRIu64 ", not recovered\n", round, t, i);
            bad++;
            break;
        }
        key_of(key, sizeof(key), "x", t, i);
        at = lookup(c, key);
    }
    if (walked != chain) {
        fprintf(stderr, "round %d: the chain holds %" PRIu64 " transactions of %" PRIu64 " recovered\n", round, walked, chain);
        bad++;
    }
    CHECK(bad == 0);
    OK(conn->close(conn, NULL));
    for (t = 0; t < THREADS; t++) {
        shared->start[t] = n[t] + 1;
        shared->acked[t] = shared->acked_sync[t] = n[t];
    }
    return total;
}

static void
remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[512];

    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

int
main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 8;
    int round, pipefd[2], status, t;
    const char *seed = getenv("UNLATCHED_CRASH_SEED");
    uint64_t rng = seed != NULL ? strtoull(seed, NULL, 10) : (uint64_t)time(NULL) ^ (uint64_t)getpid(), total = 0;
    pid_t pid;
    char byte;

    shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED)
        return 1;
    for (t = 0; t < THREADS; t++)
        shared->start[t] = 1;
    snprintf(home, sizeof(home), "/tmp/unlatched-journal-kill-%d", (int)getpid());
    mkdir(home, 0755);
    printf("journal_kill: seed %" PRIu64 ", %d kills\n", rng, rounds);
    for (round = 0; round < rounds && ul_failures == 0; round++) {
        if (pipe(pipefd) != 0)
            return 1;
        pid = fork();
        if (pid == 0) {
            close(pipefd[0]);
            child(round, pipefd[1]);
        }
        close(pipefd[1]);
        if (read(pipefd[0], &byte, 1) != 1) {
            CHECK(!"the child opened the database");
            waitpid(pid, &status, 0);
            fprintf(stderr, "child exit status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
            break;
        }
        close(pipefd[0]);
        {
            struct timespec pause = {0, (long)(50 + ul_rand(&rng) % 250) * 1000 * 1000};
            nanosleep(&pause, NULL);
        }
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        if (WIFEXITED(status)) {
            fprintf(stderr, "round %d: the child exited with %d before the kill\n", round, WEXITSTATUS(status));
            CHECK(!"the child runs until killed");
            break;
        }
        total = verify(round);
    }
    printf("journal_kill: %d kills, %" PRIu64 " transactions recovered and checked\n", round, total);
    if (ul_failures == 0)
        remove_dir(home);
    return ul_done("journal_kill");
}
