/*
 * txn: transaction benchmarks, written only against wiredtiger.h (so they build against
 * unlatched or any library with the WiredTiger API).
 *
 *   -m cursor  open_cursor, search, close inside one snapshot transaction per thread (the seed
 *              000 experiment), on a 10,000-row Q/Q table per thread (-T distinct, default) or
 *              one shared table (-T shared). Ops = open+search+close cycles.
 *   -m write   each thread inserts and updates random keys of one shared Q/Q table in small
 *              transactions (-o writes each, default 4), retrying a transaction that gets
 *              WT_ROLLBACK. Ops = committed writes.
 *   -m storm   an update storm: threads update random keys of a preloaded 10,000-row table in
 *              small transactions for -s seconds while one more session takes a short
 *              snapshot every millisecond; prints the process's resident memory once per
 *              second and at the end, so that version memory shows whether it stays bounded.
 *
 * usage: txn -m cursor|write|storm [-t threads] [-s seconds] [-w warmup] [-n rows]
 *            [-T distinct|shared] [-o writes_per_txn] [-k keyspace]
 * Output (one line): txn mode=M threads=T ... ops=N seconds=S ops_per_sec=X
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static WT_CONNECTION *conn;
static uint64_t rows = 10000, keyspace = 1000000;
static int writes_per_txn = 4, shared_table;
static volatile int phase; /* 0 warm-up, 1 measure, 2 stop */

/* One per thread, padded so that no two threads write the same cache line. */
typedef struct {
    pthread_t tid;
    int id;
    uint64_t seed;
    uint64_t ops, conflicts;
    char pad[64];
} worker;

/* Resident memory of the process in MiB (Linux /proc; -1 elsewhere). */
static double
rss_mib(void)
{
    long pages = -1, resident = -1;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f != NULL) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = -1;
        fclose(f);
    }
    return resident < 0 ? -1 : (double)resident * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}

/* -m cursor: open, search, close, all inside one snapshot transaction. */
static void *
run_cursor(void *arg)
{
    worker *w = arg;
    WT_SESSION *s;
    WT_CURSOR *c;
    char uri[64];
    uint64_t ops = 0;

    snprintf(uri, sizeof(uri), shared_table ? "table:bench" : "table:bench%d", w->id);
    DIE(conn->open_session(conn, NULL, NULL, &s));
    DIE(s->begin_transaction(s, "isolation=snapshot"));
    while (phase != 2) {
        DIE(s->open_cursor(s, uri, NULL, NULL, &c));
        search_one(c, &w->seed, rows);
        DIE(c->close(c));
        if (phase == 1)
            ops++;
    }
    w->ops = ops;
    DIE(s->commit_transaction(s, NULL));
    DIE(s->close(s, NULL));
    return NULL;
}

/* -m write and -m storm: small transactions of random inserts/updates, retried on conflict. */
static void *
run_write(void *arg)
{
    worker *w = arg;
    WT_SESSION *s;
    WT_CURSOR *c;
    uint64_t ops = 0, conflicts = 0;
    int j, ret;

    DIE(conn->open_session(conn, NULL, NULL, &s));
    DIE(s->open_cursor(s, "table:bench", NULL, NULL, &c));
    while (phase != 2) {
        DIE(s->begin_transaction(s, NULL));
        for (ret = 0, j = 0; ret == 0 && j < writes_per_txn; j++) {
            c->set_key(c, next_rand(&w->seed) % keyspace);
            c->set_value(c, w->seed);
            ret = c->update(c);
        }
        if (ret == 0)
            ret = s->commit_transaction(s, NULL);
        else {
            if (ret != WT_ROLLBACK)
                DIE(ret);
            DIE(s->rollback_transaction(s, NULL));
        }
        if (phase == 1) {
            if (ret == 0)
                ops += (uint64_t)writes_per_txn;
            else
                conflicts++;
        }
    }
    w->ops = ops;
    w->conflicts = conflicts;
    DIE(s->close(s, NULL));
    return NULL;
}

/* -m storm: a reader taking a short snapshot every millisecond (history must still go). */
static void *
run_reader(void *arg)
{
    WT_SESSION *s;
    WT_CURSOR *c;
    uint64_t seed = 7, value;
    int ret;

    (void)arg;
    DIE(conn->open_session(conn, NULL, NULL, &s));
    DIE(s->open_cursor(s, "table:bench", NULL, NULL, &c));
    while (phase != 2) {
        DIE(s->begin_transaction(s, NULL));
        c->set_key(c, next_rand(&seed) % keyspace);
        if ((ret = c->search(c)) == 0)
            DIE(c->get_value(c, &value));
        else if (ret != WT_NOTFOUND)
            DIE(ret);
        DIE(s->commit_transaction(s, NULL));
        DIE(c->reset(c));
        usleep(1000);
    }
    DIE(s->close(s, NULL));
    return NULL;
}

int
main(int argc, char **argv)
{
    const char *mode = "cursor";
    int threads = 1, opt, i, storm;
    double seconds = 2, warmup = 1, start, elapsed, next_report;
    uint64_t total = 0, conflicts = 0;
    WT_SESSION *s;
    worker *workers;
    pthread_t reader;
    char uri[64];

    while ((opt = getopt(argc, argv, "m:t:s:w:n:T:o:k:")) != -1)
        switch (opt) {
        case 'm':
            mode = optarg;
            break;
        case 't':
            threads = atoi(optarg);
            break;
        case 's':
            seconds = atof(optarg);
            break;
        case 'w':
            warmup = atof(optarg);
            break;
        case 'n':
            rows = strtoull(optarg, NULL, 10);
            break;
        case 'T':
            shared_table = strcmp(optarg, "shared") == 0;
            break;
        case 'o':
            writes_per_txn = atoi(optarg);
            break;
        case 'k':
            keyspace = strtoull(optarg, NULL, 10);
            break;
        default:
            fprintf(stderr,
              "usage: %s -m cursor|write|storm [-t threads] [-s seconds] [-w warmup] [-n rows] "
              "[-T distinct|shared] [-o writes_per_txn] [-k keyspace]\n",
              argv[0]);
            return 2;
        }
    if (threads < 1 || rows == 0 || seconds <= 0 || writes_per_txn < 1 || keyspace == 0 ||
      (strcmp(mode, "cursor") != 0 && strcmp(mode, "write") != 0 && strcmp(mode, "storm") != 0)) {
        fprintf(stderr, "%s: bad arguments\n", argv[0]);
        return 2;
    }
    storm = strcmp(mode, "storm") == 0;
    if (storm)
        keyspace = rows;

    DIE(wiredtiger_open(NULL, NULL, "create,in_memory=true,statistics=(fast)", &conn));
    DIE(conn->open_session(conn, NULL, NULL, &s));
    if (strcmp(mode, "cursor") == 0) {
        if (shared_table)
            load_table(s, "table:bench", rows);
        else
            for (i = 0; i < threads; i++) {
                snprintf(uri, sizeof(uri), "table:bench%d", i);
                load_table(s, uri, rows);
            }
    } else
        load_table(s, "table:bench", storm ? rows : 0);

    workers = calloc((size_t)threads, sizeof(worker));
    for (i = 0; i < threads; i++) {
        workers[i].id = i;
        workers[i].seed = 1000003ULL * (uint64_t)(i + 1);
        pthread_create(&workers[i].tid, NULL, strcmp(mode, "cursor") == 0 ? run_cursor : run_write, &workers[i]);
    }
    if (storm)
        pthread_create(&reader, NULL, run_reader, NULL);
    usleep((useconds_t)(warmup * 1e6));
    start = now();
    phase = 1;
    if (storm) {
        printf("storm: rss at start of measurement %.1f MiB\n", rss_mib());
        for (next_report = 1; now() - start < seconds; usleep(10000))
            if (now() - start >= next_report) {
                printf("storm: t=%.0fs rss=%.1f MiB\n", next_report, rss_mib());
                fflush(stdout);
                next_report += 1;
            }
    } else
        usleep((useconds_t)(seconds * 1e6));
    phase = 2;
    elapsed = now() - start;
    for (i = 0; i < threads; i++) {
        pthread_join(workers[i].tid, NULL);
        total += workers[i].ops;
        conflicts += workers[i].conflicts;
    }
    if (storm)
        pthread_join(reader, NULL);
    printf("txn mode=%s threads=%d table=%s rows=%" PRIu64 " writes_per_txn=%d ops=%" PRIu64
           " conflicts=%" PRIu64 " seconds=%.3f ops_per_sec=%.0f rss_mib=%.1f\n",
      mode, threads, shared_table ? "shared" : "distinct", strcmp(mode, "write") == 0 ? keyspace : rows, writes_per_txn, total,
      conflicts, elapsed, (double)total / elapsed, rss_mib());
    free(workers);
    DIE(s->close(s, NULL));
    DIE(conn->close(conn, NULL));
    return 0;
}
