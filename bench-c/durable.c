/*
 * durable: benchmarks of an on-disk database (issue "Durability"), written only against
 * wiredtiger.h (so they build against unlatched or any library with the WiredTiger API).
 *
 *   -m insert     T threads insert new keys into one table, one insert per transaction,
 *                 committed with commit_transaction("sync=on|off") (-S), with the journal on.
 *                 Ops = commits; syncs_per_commit = "log: log sync operations" over
 *                 "transactions committed" for the whole run (group commit makes it < 1).
 *                 With -S on also commit_p50_us / commit_p90_us: the commit latency (begin to
 *                 commit's return) of the measured commits, which a stalled disk moves less
 *                 than the rate. With -i N: N commits on the main thread, untimed
 *                 (tools/callgrind-per-op). With -T each thread inserts into a table of its own
 *                 (table:bench0, table:bench1, ...): against the one-table run, what the
 *                 threads share inside a table costs.
 *   -m reopen     loads -n rows (-b per transaction, journal on, no sync), then either closes
 *                 cleanly (-k clean: the final checkpoint) or is killed with SIGKILL in a child
 *                 process (-k crash: after log_flush(sync=off), so that recovery replays the
 *                 whole journal), and times the wiredtiger_open that follows; the rows are
 *                 counted to check recovery.
 *   -m ckptread   T threads search random keys of an -n row table (journal off) for -s seconds
 *                 with no checkpoint running, then for -s seconds while the main thread takes
 *                 checkpoints back to back; ops = reads/s during, with outside_per_sec and
 *                 ratio = during / outside (the target: at least 0.8). With -i N: N
 *                 searches on the main thread after the load and its checkpoint, untimed
 *                 (instructions per read of a table the tree holds, under callgrind).
 *
 * The database lives in a new directory under -d (default $TMPDIR or /tmp), removed at exit:
 * point -d at the real disk, since fsync costs nothing on tmpfs.
 *
 * usage: durable -m insert|reopen|ckptread [-t threads] [-s seconds] [-w warmup] [-n rows]
 *                [-S on|off] [-k clean|crash] [-b rows_per_txn] [-d parent_dir] [-i commits] [-T]
 * Output (last line): durable mode=M ... with ops_per_sec (insert, ckptread) or reopen_us.
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define URI "table:bench"
#define VALUE_SIZE 100 /* wtperf's value_sz (with the NUL) */
#define LAT_BUCKETS 20000 /* commit latency histogram (-S on): 1 us buckets, the last one open */

static WT_CONNECTION *conn;
static volatile int phase; /* 0 warm-up, 1 measure, 2 stop */
static int sync_on, threads = 1;
static int table_per_thread; /* -T: -m insert threads each insert into their own table */
static uint64_t rows; /* -n: loaded (reopen) or read (ckptread) */
static char value[VALUE_SIZE];

/* One per thread, padded so that no two threads write the same cache line. */
typedef struct {
    int id;
    uint64_t seed;
    uint64_t ops; /* written by its thread only (relaxed atomics: the main thread samples it) */
    uint32_t *lat; /* -m insert -S on: commits per latency in us */
    char pad[64];
} worker;

static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

/* -m insert: key = id + threads * i, so threads never insert the same key. */
static void *
run_insert(void *arg)
{
    worker *w = arg;
    WT_SESSION *s;
    WT_CURSOR *c;
    uint64_t i, ops = 0;
    const char *commit = sync_on ? "sync=on" : "sync=off";
    char uri[64];

    snprintf(uri, sizeof(uri), table_per_thread ? URI "%d" : URI, w->id);
    DIE(conn->open_session(conn, NULL, NULL, &s));
    DIE(s->open_cursor(s, uri, NULL, NULL, &c));
    for (i = 0; phase != 2; i++) {
        double start = sync_on ? now() : 0;
        DIE(s->begin_transaction(s, NULL));
        c->set_key(c, (uint64_t)w->id + (uint64_t)threads * i);
        c->set_value(c, value);
        DIE(c->insert(c));
        DIE(s->commit_transaction(s, commit));
        if (phase == 1) {
            ops++;
            if (sync_on) {
                double us = (now() - start) * 1e6;
                w->lat[us < LAT_BUCKETS - 1 ? (int)us : LAT_BUCKETS - 1]++;
            }
        }
    }
    w->ops = ops;
    DIE(s->close(s, NULL));
    return NULL;
}

/* -m ckptread: random searches until stopped; the count is published for sampling. */
static void *
run_reader(void *arg)
{
    worker *w = arg;
    WT_SESSION *s;
    WT_CURSOR *c;
    uint64_t ops = 0;

    DIE(conn->open_session(conn, NULL, NULL, &s));
    DIE(s->open_cursor(s, URI, NULL, NULL, &c));
    while (phase != 2) {
        search_one(c, &w->seed, rows);
        DIE(c->reset(c));
        if ((++ops & 255) == 0)
            __atomic_store_n(&w->ops, ops, __ATOMIC_RELAXED);
    }
    DIE(s->close(s, NULL));
    return NULL;
}

static uint64_t
sample(worker *workers)
{
    uint64_t sum = 0;
    int i;
    for (i = 0; i < threads; i++)
        sum += __atomic_load_n(&workers[i].ops, __ATOMIC_RELAXED);
    return sum;
}

/* The commit latency (us) under which fraction `q` of the measured commits of every worker fall. */
static int
lat_percentile(worker *workers, double q)
{
    uint64_t total = 0, seen = 0;
    int b, i;
    for (i = 0; i < threads; i++)
        for (b = 0; b < LAT_BUCKETS; b++)
            total += workers[i].lat[b];
    for (b = 0; b < LAT_BUCKETS; b++) {
        for (i = 0; i < threads; i++)
            seen += workers[i].lat[b];
        if (total > 0 && (double)seen >= q * (double)total)
            return b;
    }
    return LAT_BUCKETS - 1;
}

/* Loads rows 0..n-1 with `value`, `per_txn` inserts per transaction. */
static void
load(WT_SESSION *s, uint64_t n, uint64_t per_txn)
{
    WT_CURSOR *c;
    uint64_t k;
    DIE(s->create(s, URI, "key_format=Q,value_format=S"));
    DIE(s->open_cursor(s, URI, NULL, NULL, &c));
    for (k = 0; k < n; k++) {
        if (k % per_txn == 0)
            DIE(s->begin_transaction(s, NULL));
        c->set_key(c, k);
        c->set_value(c, value);
        DIE(c->insert(c));
        if (k % per_txn == per_txn - 1 || k == n - 1)
            DIE(s->commit_transaction(s, NULL));
    }
    DIE(c->close(c));
}

static uint64_t
count_rows(WT_SESSION *s)
{
    WT_CURSOR *c;
    uint64_t n = 0;
    int ret;
    DIE(s->open_cursor(s, URI, NULL, NULL, &c));
    while ((ret = c->next(c)) == 0)
        n++;
    if (ret != WT_NOTFOUND)
        DIE(ret);
    DIE(c->close(c));
    return n;
}

int
main(int argc, char **argv)
{
    const char *mode = "insert", *kind = "clean", *parent = getenv("TMPDIR");
    bench_opts o = {1, 2, 0.5, 100000, 0};
    double seconds, warmup, start, elapsed;
    uint64_t per_txn = 100, total = 0;
    char home[4096];
    worker *workers;
    WT_SESSION *s;
    int i, opt;

    while ((opt = getopt(argc, argv, BENCH_OPTSTRING "m:S:k:b:d:T")) != -1)
        switch (opt) {
        case 'm':
            mode = optarg;
            break;
        case 'S':
            sync_on = strcmp(optarg, "on") == 0;
            if (!sync_on && strcmp(optarg, "off") != 0)
                goto usage;
            break;
        case 'k':
            kind = optarg;
            break;
        case 'b':
            per_txn = strtoull(optarg, NULL, 10);
            break;
        case 'd':
            parent = optarg;
            break;
        case 'T':
            table_per_thread = 1;
            break;
        default:
            if (!bench_opt(&o, opt, optarg))
                goto usage;
        }
    threads = o.threads, rows = o.rows, seconds = o.seconds, warmup = o.warmup;
    if (!bench_opts_ok(argv[0], &o) || per_txn == 0 ||
      (strcmp(mode, "insert") != 0 && strcmp(mode, "reopen") != 0 && strcmp(mode, "ckptread") != 0) ||
      (strcmp(kind, "clean") != 0 && strcmp(kind, "crash") != 0))
        goto usage;
    snprintf(home, sizeof(home), "%s/bench-durable-XXXXXX", parent != NULL ? parent : "/tmp");
    if (mkdtemp(home) == NULL) {
        perror(home);
        return 1;
    }
    memset(value, 'v', VALUE_SIZE - 1);
    workers = calloc((size_t)threads, sizeof(worker));
    if (workers == NULL)
        return 1;
    for (i = 0; i < threads; i++) {
        workers[i].id = i;
        workers[i].seed = 1000003ULL * (uint64_t)(i + 1);
        if ((workers[i].lat = calloc(LAT_BUCKETS, sizeof(uint32_t))) == NULL)
            return 1;
    }

    if (strcmp(mode, "insert") == 0) {
        int64_t syncs = -1, commits = -1;
        char cfg[256];
        snprintf(cfg, sizeof(cfg), "create,log=(enabled=true),statistics=(fast),session_max=%d", threads + 10);
        DIE(wiredtiger_open(home, NULL, cfg, &conn));
        DIE(conn->open_session(conn, NULL, NULL, &s));
        DIE(s->create(s, URI, "key_format=Q,value_format=S"));
        for (i = 0; table_per_thread && i < threads; i++) {
            char uri[64];
            snprintf(uri, sizeof(uri), URI "%d", i);
            DIE(s->create(s, uri, "key_format=Q,value_format=S"));
        }
        if (o.iterations > 0) {
            WT_CURSOR *c;
            const char *commit = sync_on ? "sync=on" : "sync=off";
            uint64_t k;
            DIE(s->open_cursor(s, URI, NULL, NULL, &c));
            elapsed = now();
            for (k = 0; k < o.iterations; k++) {
                DIE(s->begin_transaction(s, NULL));
                c->set_key(c, k);
                c->set_value(c, value);
                DIE(c->insert(c));
                DIE(s->commit_transaction(s, commit));
            }
            elapsed = now() - elapsed;
            total = o.iterations;
            DIE(c->close(c));
        } else {
            elapsed = run_workers(run_insert, workers, sizeof(worker), threads, warmup, seconds, &phase);
            for (i = 0; i < threads; i++)
                total += workers[i].ops;
        }
        (void)read_conn_stat(s, WT_STAT_CONN_LOG_SYNC, &syncs);
        (void)read_conn_stat(s, WT_STAT_CONN_TXN_COMMIT, &commits);
        DIE(conn->close(conn, NULL));
        printf("durable mode=insert threads=%d tables=%d sync=%s ops=%" PRIu64 " seconds=%.3f ops_per_sec=%.0f", threads,
          table_per_thread ? threads : 1, sync_on ? "on" : "off", total, elapsed, (double)total / elapsed);
        if (sync_on && o.iterations == 0)
            printf(" commit_p50_us=%d commit_p90_us=%d", lat_percentile(workers, 0.5), lat_percentile(workers, 0.9));
        if (syncs >= 0 && commits > 0)
            printf(" syncs=%" PRId64 " commits=%" PRId64 " syncs_per_commit=%.3f\n", syncs, commits,
              (double)syncs / (double)commits);
        else
            printf(" syncs_per_commit=n/a\n");
    } else if (strcmp(mode, "reopen") == 0) {
        int crash = strcmp(kind, "crash") == 0, status, fds[2];
        double load_start = now(), load_seconds;
        uint64_t found;
        pid_t child = 0;
        char c = 0;
        if (crash) {
            /* The child loads and reports; it never closes, so no final checkpoint is taken. */
            if (pipe(fds) != 0 || (child = fork()) < 0) {
                perror("pipe/fork");
                return 1;
            }
            if (child == 0) {
                DIE(wiredtiger_open(home, NULL, "create,log=(enabled=true)", &conn));
                DIE(conn->open_session(conn, NULL, NULL, &s));
                load(s, rows, per_txn);
                /* Commits without sync may still be buffered (in both engines): written now,
                 * they survive the kill and recovery replays them all. */
                DIE(s->log_flush(s, "sync=off"));
                if (write(fds[1], &c, 1) != 1)
                    _exit(1);
                pause();
                _exit(0);
            }
            if (read(fds[0], &c, 1) != 1) {
                fprintf(stderr, "the loading child died\n");
                return 1;
            }
            load_seconds = now() - load_start;
            kill(child, SIGKILL);
            waitpid(child, &status, 0);
        } else {
            DIE(wiredtiger_open(home, NULL, "create,log=(enabled=true)", &conn));
            DIE(conn->open_session(conn, NULL, NULL, &s));
            load(s, rows, per_txn);
            load_seconds = now() - load_start;
            DIE(conn->close(conn, NULL));
        }
        start = now();
        DIE(wiredtiger_open(home, NULL, "log=(enabled=true)", &conn));
        elapsed = now() - start;
        DIE(conn->open_session(conn, NULL, NULL, &s));
        found = count_rows(s);
        DIE(conn->close(conn, NULL));
        if (found != rows) {
            fprintf(stderr, "reopen after %s: %" PRIu64 " rows, expected %" PRIu64 "\n", kind, found, rows);
            return 1;
        }
        printf("durable mode=reopen threads=1 kind=%s rows=%" PRIu64 " rows_per_txn=%" PRIu64
               " load_seconds=%.2f reopen_seconds=%.3f reopen_us=%.0f\n",
          kind, rows, per_txn, load_seconds, elapsed, elapsed * 1e6);
    } else {
        DIE(wiredtiger_open(home, NULL, "create", &conn));
        DIE(conn->open_session(conn, NULL, NULL, &s));
        load_table(s, URI, rows);
        DIE(s->checkpoint(s, NULL));
        if (o.iterations > 0) {
            WT_CURSOR *c;
            uint64_t seed = 1, k;
            DIE(s->open_cursor(s, URI, NULL, NULL, &c));
            for (k = 0; k < o.iterations; k++) {
                search_one(c, &seed, rows);
                DIE(c->reset(c));
            }
            DIE(conn->close(conn, NULL));
            printf("durable mode=ckptread threads=1 rows=%" PRIu64 " searches=%" PRIu64 "\n", rows, o.iterations);
        } else {
            pthread_t *tids = calloc((size_t)threads, sizeof(*tids));
            uint64_t before, outside, during;
            double t1, ckpt_time = 0, outside_rate, during_rate;
            int ckpts = 0;
            for (i = 0; i < threads; i++)
                pthread_create(&tids[i], NULL, run_reader, &workers[i]);
            usleep((useconds_t)(warmup * 1e6));
            start = now();
            before = sample(workers);
            usleep((useconds_t)(seconds * 1e6));
            t1 = now();
            outside = sample(workers) - before;
            /* Checkpoints back to back; the window ends with the last one. */
            while (now() - t1 < seconds) {
                double c0 = now();
                DIE(s->checkpoint(s, NULL));
                ckpt_time += now() - c0;
                ckpts++;
            }
            elapsed = now() - t1;
            during = sample(workers) - before - outside;
            phase = 2;
            for (i = 0; i < threads; i++)
                pthread_join(tids[i], NULL);
            free(tids);
            DIE(conn->close(conn, NULL));
            outside_rate = (double)outside / (t1 - start);
            during_rate = (double)during / elapsed;
            printf("durable mode=ckptread threads=%d rows=%" PRIu64 " checkpoints=%d ckpt_ms=%.1f outside_per_sec=%.0f "
                   "seconds=%.3f ops_per_sec=%.0f ratio=%.3f\n",
              threads, rows, ckpts, ckpt_time * 1e3 / ckpts, outside_rate, elapsed, during_rate,
              during_rate / outside_rate);
        }
    }
    free(workers);
    nftw(home, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return 0;

usage:
    fprintf(stderr,
      "usage: %s -m insert|reopen|ckptread [-t threads] [-s seconds] [-w warmup] [-n rows] [-S on|off] "
      "[-k clean|crash] [-b rows_per_txn] [-d parent_dir] [-i commits] [-T]\n",
      argv[0]);
    return 2;
}
