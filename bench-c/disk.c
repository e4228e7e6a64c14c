/*
 * disk: a database larger than its cache (issue 12 "A real on-disk engine"), written only
 * against wiredtiger.h (so it builds against unlatched or any library with the WiredTiger API).
 *
 *   -m load   the scenario: -n rows of 20-byte keys and 200-byte values (key_format=S,
 *             value_format=S) inserted one per (autocommit) operation in a scattered order (a
 *             stride permutation of the keys) with cache_size=-c MB and a checkpoint every -k
 *             inserts; then a clean close. Ops = inserts per second of the load (checkpoints
 *             included). Also: load_seconds, peak_rss_mib (VmHWM after the load), the table's
 *             files (file_mib: every file in the home after the close), reopen_us
 *             (wiredtiger_open + open_session + open_cursor + the first search, checked), then
 *             a contiguous 1% of the rows updated (new values, autocommit) and one checkpoint:
 *             ckpt_write_mib (bytes this process passed to write calls during that checkpoint,
 *             /proc/self/io wchar), ckpt_disk_mib (/proc/self/io write_bytes: what reached the
 *             block layer, 0 on tmpfs or while the page cache holds it) and upd_write_mib (the
 *             updates and the checkpoint together: writes during the updates count too, e.g.
 *             merges past the dirty trigger).
 *   -m read   random point reads on a table of -n rows (the same rows, loaded in key order in
 *             transactions of 1,000) reopened with cache_size=-c MB: T threads (-t) search
 *             random keys for -s seconds after -w seconds of warm-up, each value checked.
 *             Size the table with -n at 8x the cache: the data files stay in the OS page
 *             cache, the engine's cache holds an eighth of them. Also cpu_us_per_op: the
 *             process's CPU time (every thread: readers, eviction) per read while measuring,
 *             which a busy machine disturbs less than the rate.
 *
 * The database lives in a new directory under -d (default $TMPDIR or /tmp), removed at exit.
 *
 * usage: disk -m load|read [-n rows] [-c cache_mb] [-k ckpt_every] [-t threads] [-s seconds]
 *             [-w warmup] [-d parent_dir]
 * Output (last line): disk mode=M ... ops_per_sec=...
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

#define URI "table:disk"
#define KEY_LEN 20
#define VALUE_LEN 200

static WT_CONNECTION *conn;
static volatile int phase; /* 0 warm-up, 1 measure, 2 stop */
static uint64_t rows;
static char home[4096];

typedef struct {
    uint64_t seed;
    uint64_t ops;
    char pad[64];
} worker;

static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static void
make_key(uint64_t i, char *buf)
{
    snprintf(buf, KEY_LEN + 1, "%020" PRIu64, i);
}

/* The value of row i at version v: 200 characters derived from both. */
static void
make_value(uint64_t i, uint64_t v, char *buf)
{
    uint64_t x = i * 0x9E3779B97F4A7C15ULL + v;
    int n = snprintf(buf, VALUE_LEN + 1, "%" PRIu64 ":%" PRIu64 ":", v, i), j;
    for (j = n; j < VALUE_LEN; j++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        buf[j] = (char)('a' + (x >> 58) % 26);
    }
    buf[VALUE_LEN] = '\0';
}

/* A value of /proc/self/io ("wchar", "write_bytes") or /proc/self/status ("VmHWM", in KB). */
static long long
proc_field(const char *file, const char *name)
{
    char line[256];
    size_t len = strlen(name);
    long long v = -1;
    FILE *f = fopen(file, "r");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, name, len) == 0 && line[len] == ':')
            v = atoll(line + len + 1);
    fclose(f);
    return v;
}

/* The bytes of the files in the home. */
static long long
home_bytes(void)
{
    char path[8192];
    struct dirent *e;
    struct stat st;
    long long sum = 0;
    DIR *d = opendir(home);
    if (d == NULL)
        return 0;
    while ((e = readdir(d)) != NULL) {
        snprintf(path, sizeof(path), "%s/%s", home, e->d_name);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            sum += (long long)st.st_size;
    }
    closedir(d);
    return sum;
}

static void
check_value(uint64_t i, uint64_t v, const char *got)
{
    char want[VALUE_LEN + 1];
    make_value(i, v, want);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "row %" PRIu64 ": wrong value \"%.40s...\", expected \"%.40s...\"\n", i, got, want);
        exit(1);
    }
}

static void *
run_reader(void *arg)
{
    worker *w = arg;
    WT_SESSION *s;
    WT_CURSOR *c;
    char key[KEY_LEN + 1];
    const char *v;
    uint64_t ops = 0, i;

    DIE(conn->open_session(conn, NULL, NULL, &s));
    DIE(s->open_cursor(s, URI, NULL, NULL, &c));
    while (phase != 2) {
        i = next_rand(&w->seed) % rows;
        make_key(i, key);
        c->set_key(c, key);
        DIE(c->search(c));
        DIE(c->get_value(c, &v));
        check_value(i, 1, v);
        DIE(c->reset(c));
        if (phase == 1)
            ops++;
    }
    w->ops = ops;
    DIE(s->close(s, NULL));
    return NULL;
}

/* A step coprime with n near n / 2: i -> i + step mod n visits every row once. */
static uint64_t
stride(uint64_t n)
{
    uint64_t s = n / 2 + 7919, a, b, t;
    if (n < 2)
        return 1;
    for (;; s++) {
        for (a = s, b = n; b != 0; t = a % b, a = b, b = t)
            ;
        if (a == 1)
            return s % n;
    }
}

int
main(int argc, char **argv)
{
    const char *mode = "load", *parent = getenv("TMPDIR");
    bench_opts o = {1, 2, 0.5, 200000, 0};
    uint64_t cache_mb = 8, ckpt_every = 25000, i, k, total = 0;
    char cfg[256], key[KEY_LEN + 1], value[VALUE_LEN + 1];
    const char *v;
    WT_SESSION *s;
    WT_CURSOR *c;
    double start, elapsed, cpu = 0;
    int opt, t;

    while ((opt = getopt(argc, argv, BENCH_OPTSTRING "m:c:k:d:")) != -1)
        switch (opt) {
        case 'm':
            mode = optarg;
            break;
        case 'c':
            cache_mb = strtoull(optarg, NULL, 10);
            break;
        case 'k':
            ckpt_every = strtoull(optarg, NULL, 10);
            break;
        case 'd':
            parent = optarg;
            break;
        default:
            if (!bench_opt(&o, opt, optarg))
                goto usage;
        }
    rows = o.rows;
    if (optind != argc || !bench_opts_ok(argv[0], &o) || cache_mb == 0 || ckpt_every == 0 ||
      (strcmp(mode, "load") != 0 && strcmp(mode, "read") != 0))
        goto usage;
    snprintf(home, sizeof(home), "%s/bench-disk-XXXXXX", parent != NULL && parent[0] != '\0' ? parent : "/tmp");
    if (mkdtemp(home) == NULL) {
        perror(home);
        return 1;
    }
    snprintf(cfg, sizeof(cfg), "create,cache_size=%" PRIu64 "MB,session_max=%d", cache_mb, o.threads + 10);

    if (strcmp(mode, "load") == 0) {
        uint64_t step = stride(rows), first = rows / 3, upd_from = rows / 2, upd_n = rows / 100;
        long long peak_kb, files, w0, w1, w2, d1, d2;
        double load_seconds, reopen;

        DIE(wiredtiger_open(home, NULL, cfg, &conn));
        DIE(conn->open_session(conn, NULL, NULL, &s));
        DIE(s->create(s, URI, "key_format=S,value_format=S"));
        DIE(s->open_cursor(s, URI, NULL, NULL, &c));
        start = now();
        for (i = 0, k = 0; i < rows; i++) {
            k = (k + step) % rows;
            make_key(k, key);
            make_value(k, 1, value);
            c->set_key(c, key);
            c->set_value(c, value);
            DIE(c->insert(c));
            if (i % ckpt_every == ckpt_every - 1)
                DIE(s->checkpoint(s, NULL));
        }
        load_seconds = now() - start;
        peak_kb = proc_field("/proc/self/status", "VmHWM");
        DIE(conn->close(conn, NULL));
        files = home_bytes();

        start = now();
        DIE(wiredtiger_open(home, NULL, cfg, &conn));
        DIE(conn->open_session(conn, NULL, NULL, &s));
        DIE(s->open_cursor(s, URI, NULL, NULL, &c));
        make_key(first, key);
        c->set_key(c, key);
        DIE(c->search(c));
        DIE(c->get_value(c, &v));
        reopen = now() - start;
        check_value(first, 1, v);
        DIE(c->reset(c));

        /* A contiguous 1% of the rows, then one checkpoint. */
        w0 = proc_field("/proc/self/io", "wchar");
        for (i = upd_from; i < upd_from + upd_n; i++) {
            make_key(i, key);
            make_value(i, 2, value);
            c->set_key(c, key);
            c->set_value(c, value);
            DIE(c->update(c));
        }
        w1 = proc_field("/proc/self/io", "wchar");
        d1 = proc_field("/proc/self/io", "write_bytes");
        DIE(s->checkpoint(s, NULL));
        w2 = proc_field("/proc/self/io", "wchar");
        d2 = proc_field("/proc/self/io", "write_bytes");
        /* The updates are there. */
        make_key(upd_from + upd_n / 2, key);
        c->set_key(c, key);
        DIE(c->search(c));
        DIE(c->get_value(c, &v));
        check_value(upd_from + upd_n / 2, 2, v);
        DIE(conn->close(conn, NULL));

        printf("disk mode=load threads=1 rows=%" PRIu64 " cache_mb=%" PRIu64 " ckpt_every=%" PRIu64
               " load_seconds=%.2f peak_rss_mib=%.1f file_mib=%.1f reopen_us=%.0f updated=%" PRIu64
               " ckpt_write_mib=%.2f ckpt_disk_mib=%.2f upd_write_mib=%.2f ops_per_sec=%.0f\n",
          rows, cache_mb, ckpt_every, load_seconds, (double)peak_kb / 1024.0, (double)files / 1048576.0,
          reopen * 1e6, upd_n, (double)(w2 - w1) / 1048576.0, (double)(d2 - d1) / 1048576.0,
          (double)(w2 - w0) / 1048576.0, (double)rows / load_seconds);
    } else {
        worker *workers = calloc((size_t)o.threads, sizeof(worker));
        if (workers == NULL)
            return 1;
        DIE(wiredtiger_open(home, NULL, cfg, &conn));
        DIE(conn->open_session(conn, NULL, NULL, &s));
        DIE(s->create(s, URI, "key_format=S,value_format=S"));
        DIE(s->open_cursor(s, URI, NULL, NULL, &c));
        for (i = 0; i < rows; i++) {
            if (i % 1000 == 0)
                DIE(s->begin_transaction(s, NULL));
            make_key(i, key);
            make_value(i, 1, value);
            c->set_key(c, key);
            c->set_value(c, value);
            DIE(c->insert(c));
            if (i % 1000 == 999 || i == rows - 1)
                DIE(s->commit_transaction(s, NULL));
        }
        DIE(conn->close(conn, NULL));
        DIE(wiredtiger_open(home, NULL, cfg, &conn));
        for (t = 0; t < o.threads; t++)
            workers[t].seed = 1000003ULL * (uint64_t)(t + 1);
        elapsed = run_workers_cpu(run_reader, workers, sizeof(worker), o.threads, o.warmup, o.seconds, &phase, &cpu);
        for (t = 0; t < o.threads; t++)
            total += workers[t].ops;
        DIE(conn->close(conn, NULL));
        printf("disk mode=read threads=%d rows=%" PRIu64 " cache_mb=%" PRIu64 " file_mib=%.1f ops=%" PRIu64
               " seconds=%.3f cpu_us_per_op=%.2f ops_per_sec=%.0f\n",
          o.threads, rows, cache_mb, (double)home_bytes() / 1048576.0, total, elapsed,
          total > 0 ? cpu * 1e6 / (double)total : 0.0, (double)total / elapsed);
        free(workers);
    }
    nftw(home, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return 0;

usage:
    fprintf(stderr,
      "usage: %s -m load|read [-n rows] [-c cache_mb] [-k ckpt_every] [-t threads] [-s seconds] [-w warmup] "
      "[-d parent_dir]\n",
      argv[0]);
    return 2;
}
