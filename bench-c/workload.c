/*
 * workload (seed 001): a wtperf-style driver. Reads the reference's `.wtperf` option files,
 * populates a table of `icount` rows, then runs reader, inserter and updater threads for
 * `run_time` seconds, printing wtperf's per-interval lines ("N inserts, M reads in 5 secs (10
 * total secs)") and its final summary ("Executed N read operations (P%) X ops/sec"), plus
 * p50/p99/max latency per operation type. Written only against wiredtiger.h, so it builds
 * against unlatched or any library with the WiredTiger API.
 *
 * usage: workload -O file.wtperf [-o key=value[,key=value...]]... [-C conn_config]
 *                 [-T table_config] [-h home] [-M monitor_file] [-i iterations]
 * -i N: each worker thread runs exactly N operations, with no timed loop (for callgrind
 * instruction counts: tools/callgrind-per-op bench-c/build/workload N1 N2 -O ...).
 *
 * Options (in the file, one `key=value` a line, `#` starts a comment line, or with -o):
 *   conn_config, table_config  strings given to wiredtiger_open and WT_SESSION::create
 *   icount            rows loaded before the run (keys 1..icount)
 *   random_range      if set, inserts, reads and updates pick random keys in 1..random_range
 *                     (reads of absent keys count as reads, as in wtperf)
 *   run_time          seconds of the workload phase
 *   report_interval   seconds between the per-interval lines (0: none)
 *   populate_threads  threads loading the table
 *   key_sz, value_sz  key and value sizes in bytes, NUL included (keys are zero-filled decimals)
 *   threads           ((count=N,reads=R,inserts=I,updates=U),...): N threads each, running the
 *                     operations in the ratio R:I:U
 *   sample_interval   seconds between latency samples (0: none): a line in the -M file and a
 *                     warning when an operation took longer than max_latency
 *   max_latency       milliseconds (0: no check)
 *   sample_rate       time one operation in this many (default 50, as wtperf)
 *   verbose           accepted and ignored (the output is always wtperf's verbose=2 form)
 * -C and -T append to conn_config and table_config. The home directory is a new temporary one
 * (removed at exit) unless -h names one, which must not exist or be empty.
 *
 * Differences from wtperf, on purpose: appending inserters take interleaved keys (inserter i of
 * n takes icount+1+i, icount+1+i+n, ...) instead of a shared atomic counter, so that the driver
 * itself writes no cache line that another thread writes; populate threads load contiguous key
 * ranges for the same reason.
 *
 * The last line of output is for scripts: "workload name=NAME threads=T ops=N seconds=S
 * ops_per_sec=X" then, for each operation type run, "<op>_ops_per_sec=" and "<op>_p50_us=",
 * "<op>_p99_us=", "<op>_max_us=".
 */
#include "bench.h" /* first: it defines _GNU_SOURCE */

#include <errno.h>
#include <ftw.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>

enum { OP_INSERT, OP_READ, OP_UPDATE, OP_TYPES };
static const char *const op_name[OP_TYPES] = {"insert", "read", "update"};

#define MAX_GROUPS 16
#define MAX_THREADS 4096
#define MAX_KEY 128
#define SEQ_MAX 300 /* operations in one thread's cycle (ratios up to 100 each) */

typedef struct {
    int count;
    int ratio[OP_TYPES];
} thread_group;

typedef struct {
    char conn_config[4096], table_config[4096];
    uint64_t icount, random_range;
    uint64_t run_time, report_interval, populate_threads, key_sz, value_sz, sample_interval, max_latency,
      sample_rate, verbose;
    thread_group groups[MAX_GROUPS];
    int ngroups;
} wtperf_opts;

/* Latency histogram: exact below 32 ns, then 16 buckets per power of two (about 6%). */
#define LAT_BUCKETS 976
static int
lat_bucket(uint64_t ns)
{
    int e;
    if (ns < 32)
        return (int)ns;
    e = 63 - __builtin_clzll(ns);
    return (e - 3) * 16 + (int)((ns >> (e - 4)) & 15);
}
static double
lat_bucket_ns(int b)
{
    int e = b / 16 + 3;
    if (b < 32)
        return b;
    return (double)((uint64_t)(16 + b % 16) << (e - 4));
}

/* One per workload thread; aligned so that no two threads write the same cache line. */
typedef struct {
    _Alignas(64) _Atomic uint64_t ops[OP_TYPES]; /* published after every operation */
    _Atomic uint64_t lat_n[OP_TYPES], lat_sum[OP_TYPES]; /* timed operations, their ns */
    _Atomic uint64_t lat_peak[OP_TYPES]; /* ns since the monitor last took it (it writes 0) */
    uint64_t hist[OP_TYPES][LAT_BUCKETS];  /* owner only; read after join */
    uint64_t max_ns[OP_TYPES];
    uint64_t seed;
    int insert_index; /* among the threads that insert */
    int nseq;
    unsigned char seq[SEQ_MAX];
} worker;

/* One per populate thread. */
typedef struct {
    _Alignas(64) _Atomic uint64_t done;
    uint64_t first, last; /* keys first..last */
} loader;

static WT_CONNECTION *conn;
static wtperf_opts opt;
static worker *workers;
static int nworkers, ninserters;
static _Atomic int stop;
static uint64_t iterations; /* -i N: each worker runs exactly N operations, untimed (callgrind) */
static char home[4096];
static int home_is_temp;
static const char *uri = "table:test";

static const char *usage_text =
  "usage: workload -O file.wtperf [-o key=value[,key=value...]]... [-C conn_config] [-T table_config]\n"
  "                [-h home] [-M monitor_file] [-i iterations]\n"
  "keys: conn_config table_config icount random_range run_time report_interval populate_threads\n"
  "      key_sz value_sz threads sample_interval max_latency sample_rate verbose\n"
  "      threads=((count=N,reads=R,inserts=I,updates=U),...)\n";

static void
bad(const char *fmt, const char *what)
{
    fprintf(stderr, "workload: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n%s", usage_text);
    exit(2);
}

static uint64_t
now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Copies s without one pair of enclosing quotes or parentheses. */
static void
unwrap(char *s, char open, char close)
{
    size_t n = strlen(s);
    if (n >= 2 && s[0] == open && s[n - 1] == close) {
        memmove(s, s + 1, n - 2);
        s[n - 2] = '\0';
    }
}

/*
 * Splits s in place at the commas outside quotes and parentheses; calls fn on each non-empty
 * item. Returns 0, or -1 when the quotes or parentheses do not balance.
 */
static int
split_items(char *s, void (*fn)(char *, void *), void *arg)
{
    int depth = 0, quoted = 0;
    char *start = s, *p;
    for (p = s; *p != '\0'; p++) /* balanced first, so that no item is taken from a bad string */
        if (*p == '"')
            quoted = !quoted;
        else if (!quoted && (*p == '(' || *p == ')') && (depth += *p == '(' ? 1 : -1) < 0)
            return -1;
    if (depth != 0 || quoted)
        return -1;
    for (p = s;; p++) {
        if (*p == '"')
            quoted = !quoted;
        else if (!quoted && *p == '(')
            depth++;
        else if (!quoted && *p == ')')
            depth--;
        if (*p == '\0' || (*p == ',' && depth == 0 && !quoted)) {
            int end = *p == '\0';
            *p = '\0';
            while (*start == ' ' || *start == '\t')
                start++;
            if (*start != '\0')
                fn(start, arg);
            if (end)
                break;
            start = p + 1;
        }
    }
    return 0;
}

/* A non-negative decimal integer, or the program stops with the usage. */
static uint64_t
number(const char *key, const char *value)
{
    char *end;
    unsigned long long v;
    errno = 0;
    v = strtoull(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0' || value[0] == '-')
        bad("%s needs a non-negative integer", key);
    return v;
}

static void
group_key(char *item, void *arg)
{
    thread_group *g = arg;
    char *eq = strchr(item, '=');
    uint64_t v;
    if (eq == NULL)
        bad("threads: \"%s\" is not key=value", item);
    *eq = '\0';
    v = number(item, eq + 1);
    if (strcmp(item, "count") == 0)
        g->count = v > MAX_THREADS ? MAX_THREADS + 1 : (int)v;
    else if (strcmp(item, "reads") == 0 || strcmp(item, "inserts") == 0 || strcmp(item, "updates") == 0) {
        if (v > 100)
            bad("threads: %s ratio above 100", item);
        g->ratio[item[0] == 'r' ? OP_READ : item[0] == 'i' ? OP_INSERT : OP_UPDATE] = (int)v;
    } else
        bad("threads: unsupported key \"%s\" (count, reads, inserts, updates)", item);
}

static void
thread_group_item(char *item, void *arg)
{
    (void)arg;
    if (opt.ngroups == MAX_GROUPS)
        bad("threads: more than %s groups", "16");
    if (item[0] != '(')
        bad("threads: \"%s\" is not a (count=N,...) group", item);
    unwrap(item, '(', ')');
    thread_group *g = &opt.groups[opt.ngroups++];
    memset(g, 0, sizeof(*g));
    if (split_items(item, group_key, g) != 0)
        bad("threads: unbalanced parentheses in \"%s\"", item);
    if (g->count < 1 || g->count > MAX_THREADS)
        bad("threads: each group needs count=1..%s", "4096");
    if (g->ratio[OP_READ] + g->ratio[OP_INSERT] + g->ratio[OP_UPDATE] == 0)
        bad("threads: a group needs reads, inserts or updates above 0%s", "");
}

static void
set_string(char *dst, size_t len, const char *key, char *value)
{
    unwrap(value, '"', '"');
    if (strlen(value) >= len)
        bad("%s is too long", key);
    strcpy(dst, value);
}

/* One key=value option. */
static void
option(char *item, void *arg)
{
    char *eq = strchr(item, '='), *key = item, *value;
    (void)arg;
    if (eq == NULL)
        bad("\"%s\" is not key=value", item);
    *eq = '\0';
    value = eq + 1;
    if (strcmp(key, "conn_config") == 0)
        set_string(opt.conn_config, sizeof(opt.conn_config), key, value);
    else if (strcmp(key, "table_config") == 0)
        set_string(opt.table_config, sizeof(opt.table_config), key, value);
    else if (strcmp(key, "threads") == 0) {
        unwrap(value, '"', '"');
        if (value[0] != '(')
            bad("threads needs ((count=N,reads=1),...), not \"%s\"", value);
        unwrap(value, '(', ')');
        opt.ngroups = 0;
        if (split_items(value, thread_group_item, NULL) != 0)
            bad("threads: unbalanced parentheses in \"%s\"", value);
    } else {
        static const struct {
            const char *name;
            uint64_t *field;
        } nums[] = {{"icount", &opt.icount}, {"random_range", &opt.random_range}, {"run_time", &opt.run_time},
          {"report_interval", &opt.report_interval}, {"populate_threads", &opt.populate_threads},
          {"key_sz", &opt.key_sz}, {"value_sz", &opt.value_sz}, {"sample_interval", &opt.sample_interval},
          {"max_latency", &opt.max_latency}, {"sample_rate", &opt.sample_rate},
          {"verbose", &opt.verbose}};
        size_t i;
        unwrap(value, '"', '"');
        for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
            if (strcmp(key, nums[i].name) == 0) {
                *nums[i].field = number(key, value);
                return;
            }
        bad("unsupported option \"%s\"", key);
    }
}

static void
options(char *text, const char *where)
{
    if (split_items(text, option, NULL) != 0)
        bad("unbalanced quotes or parentheses in %s", where);
}

static void
read_file(const char *path)
{
    char line[8192];
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "workload: %s: %s\n", path, strerror(errno));
        exit(2);
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        char *p = line;
        line[strcspn(line, "\r\n")] = '\0';
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != '\0' && *p != '#')
            options(p, path);
    }
    fclose(f);
}

static void
check_options(void)
{
    int i, total = 0;
    if (opt.ngroups == 0)
        bad("no workload threads: set %s", "threads=((count=N,reads=1),...)");
    for (i = 0; i < opt.ngroups; i++)
        total += opt.groups[i].count;
    if (total > MAX_THREADS)
        bad("more than %s workload threads", "4096");
    if (opt.run_time == 0 || opt.run_time > 86400)
        bad("run_time must be 1..86400 %s", "seconds");
    if (opt.icount == 0 && opt.random_range == 0)
        bad("icount must be above 0%s", "");
    if (opt.populate_threads == 0 || opt.populate_threads > MAX_THREADS)
        bad("populate_threads must be 1..%s", "4096");
    if (opt.key_sz < 2 || opt.key_sz > MAX_KEY - 8)
        bad("key_sz must be 2..%s", "120");
    if (opt.value_sz < 2 || opt.value_sz > (1 << 20))
        bad("value_sz must be 2..%s", "1048576");
    if (opt.sample_rate == 0)
        bad("sample_rate must be above 0%s", "");
}

static void
make_key(char *buf, uint64_t k)
{
    snprintf(buf, MAX_KEY, "%0*" PRIu64, (int)opt.key_sz - 1, k);
}

static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void
remove_home(void)
{
    if (home_is_temp)
        nftw(home, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Memory, or the program stops (align 0: plain malloc; else a multiple of align bytes). */
static void *
must_alloc(size_t align, size_t size)
{
    void *p = align != 0 ? aligned_alloc(align, size) : malloc(size);
    if (p == NULL) {
        fprintf(stderr, "workload: out of memory\n");
        exit(1);
    }
    return p;
}

/* A thread's session and cursor on the table; returns its value buffer ('a's, NUL-ended). */
static char *
thread_open(WT_SESSION **s, WT_CURSOR **c)
{
    char *value = must_alloc(0, opt.value_sz);
    memset(value, 'a', opt.value_sz - 1);
    value[opt.value_sz - 1] = '\0';
    DIE(conn->open_session(conn, NULL, NULL, s));
    DIE((*s)->open_cursor(*s, uri, NULL, NULL, c));
    return value;
}

static void *
populate(void *arg)
{
    loader *l = arg;
    WT_SESSION *s;
    WT_CURSOR *c;
    char key[MAX_KEY], *value = thread_open(&s, &c);
    uint64_t k;
    for (k = l->first; k <= l->last; k++) {
        make_key(key, k);
        c->set_key(c, key);
        c->set_value(c, value);
        DIE(c->insert(c));
        atomic_store_explicit(&l->done, k - l->first + 1, memory_order_relaxed);
    }
    DIE(s->close(s, NULL));
    free(value);
    return NULL;
}

/* Sleeps until `start` + `sec` seconds (monotonic). */
static void
sleep_until(double start, double sec)
{
    double left = start + sec - now();
    if (left > 0)
        usleep((useconds_t)(left * 1e6));
}

static void
run_populate(void)
{
    uint64_t n = opt.populate_threads, i, done, last = 0, total_sec = 0;
    loader *l = must_alloc(64, sizeof(loader) * n);
    pthread_t *tids = must_alloc(0, sizeof(*tids) * n);
    double start = now(), elapsed;
    int finished;
    printf("Starting %" PRIu64 " populate thread(s) for %" PRIu64 " items\n", n, opt.icount);
    for (i = 0; i < n; i++) {
        l[i].first = 1 + opt.icount * i / n;
        l[i].last = opt.icount * (i + 1) / n;
        atomic_init(&l[i].done, 0);
        if (pthread_create(&tids[i], NULL, populate, &l[i]) != 0) {
            fprintf(stderr, "workload: pthread_create failed\n");
            exit(1);
        }
    }
    /* Progress every report_interval seconds, as wtperf. */
    for (finished = 0; !finished;) {
        usleep(10000);
        for (done = 0, i = 0; i < n; i++)
            done += atomic_load_explicit(&l[i].done, memory_order_relaxed);
        finished = done == opt.icount;
        if (!finished && opt.report_interval > 0 && now() - start >= (double)(total_sec + opt.report_interval)) {
            total_sec += opt.report_interval;
            printf("%" PRIu64 " populate inserts (%" PRIu64 " of %" PRIu64 ") in %" PRIu64 " secs (%" PRIu64
                   " total secs)\n",
              done - last, done, opt.icount, opt.report_interval, total_sec);
            last = done;
        }
    }
    for (i = 0; i < n; i++)
        pthread_join(tids[i], NULL);
    elapsed = now() - start;
    printf("Finished load of %" PRIu64 " items\nLoad time: %.2f\nload ops/sec: %.0f\n", opt.icount, elapsed,
      (double)opt.icount / elapsed);
    free(tids);
    free(l);
}

/* The highest key reads and updates may pick. */
static uint64_t
key_range(void)
{
    uint64_t n = opt.icount;
    int i;
    if (opt.random_range != 0)
        return opt.random_range;
    if (ninserters > 0)
        for (i = 0; i < nworkers; i++)
            n += atomic_load_explicit(&workers[i].ops[OP_INSERT], memory_order_relaxed);
    return n;
}

static void
record_latency(worker *w, int op, uint64_t ns)
{
    uint64_t n = atomic_load_explicit(&w->lat_n[op], memory_order_relaxed);
    uint64_t sum = atomic_load_explicit(&w->lat_sum[op], memory_order_relaxed);
    w->hist[op][lat_bucket(ns)]++;
    if (ns > w->max_ns[op])
        w->max_ns[op] = ns;
    atomic_store_explicit(&w->lat_n[op], n + 1, memory_order_relaxed);
    atomic_store_explicit(&w->lat_sum[op], sum + ns, memory_order_relaxed);
    if (ns > atomic_load_explicit(&w->lat_peak[op], memory_order_relaxed))
        atomic_store_explicit(&w->lat_peak[op], ns, memory_order_relaxed);
}

static void *
work(void *arg)
{
    worker *w = arg;
    WT_SESSION *s;
    WT_CURSOR *c;
    char key[MAX_KEY], *value = thread_open(&s, &c);
    const char *got;
    uint64_t i, k, range = key_range(), count[OP_TYPES] = {0, 0, 0}, t0 = 0;
    int op, ret, timed;
    for (i = 0; !atomic_load_explicit(&stop, memory_order_relaxed) && (iterations == 0 || i < iterations); i++) {
        op = w->seq[i % (uint64_t)w->nseq];
        if ((i & 1023) == 0)
            range = key_range();
        if ((timed = i % opt.sample_rate == 0))
            t0 = now_ns();
        switch (op) {
        case OP_INSERT:
            if (opt.random_range != 0)
                k = next_rand(&w->seed) % opt.random_range + 1;
            else
                k = opt.icount + 1 + (uint64_t)w->insert_index + count[OP_INSERT] * (uint64_t)ninserters;
            make_key(key, k);
            c->set_key(c, key);
            c->set_value(c, value);
            DIE(c->insert(c));
            break;
        case OP_READ:
            make_key(key, next_rand(&w->seed) % range + 1);
            c->set_key(c, key);
            if ((ret = c->search(c)) == 0) {
                DIE(c->get_value(c, &got));
                if (got[0] == '\0') {
                    fprintf(stderr, "workload: empty value for key %s\n", key);
                    exit(1);
                }
            } else if (ret != WT_NOTFOUND)
                DIE(ret);
            break;
        default: /* OP_UPDATE: read the row, change its first byte, write it back */
            make_key(key, next_rand(&w->seed) % range + 1);
            c->set_key(c, key);
            if ((ret = c->search(c)) == 0) {
                DIE(c->get_value(c, &got));
                snprintf(value, opt.value_sz, "%s", got);
                value[0] = value[0] == 'z' ? 'a' : (char)(value[0] + 1);
                c->set_value(c, value);
                DIE(c->update(c));
            } else if (ret != WT_NOTFOUND)
                DIE(ret);
            break;
        }
        if (timed)
            record_latency(w, op, now_ns() - t0);
        atomic_store_explicit(&w->ops[op], ++count[op], memory_order_relaxed);
    }
    DIE(s->close(s, NULL));
    free(value);
    return NULL;
}

/* Totals over the workers, per operation type. */
static void
sum_ops(uint64_t *ops)
{
    int i, op;
    for (op = 0; op < OP_TYPES; op++)
        ops[op] = 0;
    for (i = 0; i < nworkers; i++)
        for (op = 0; op < OP_TYPES; op++)
            ops[op] += atomic_load_explicit(&workers[i].ops[op], memory_order_relaxed);
}

/* "747520 inserts, 10329865 reads in 5 secs (5 total secs)": the types that run, wtperf's order. */
static void
interval_line(const uint64_t *now_ops, const uint64_t *last, uint64_t secs, uint64_t total, const int *runs)
{
    int op, first = 1;
    for (op = 0; op < OP_TYPES; op++)
        if (runs[op]) {
            printf("%s%" PRIu64 " %ss", first ? "" : ", ", now_ops[op] - last[op], op_name[op]);
            first = 0;
        }
    printf(" in %" PRIu64 " secs (%" PRIu64 " total secs)\n", secs, total);
}

/* One latency sample: the -M file's line and the max_latency warning. */
static void
sample(FILE *monitor, uint64_t total_sec, const uint64_t *ops, uint64_t *last_n, uint64_t *last_sum, const int *runs)
{
    uint64_t n[OP_TYPES] = {0, 0, 0}, sum[OP_TYPES] = {0, 0, 0}, peak[OP_TYPES] = {0, 0, 0}, p;
    int i, op;
    for (i = 0; i < nworkers; i++)
        for (op = 0; op < OP_TYPES; op++) {
            n[op] += atomic_load_explicit(&workers[i].lat_n[op], memory_order_relaxed);
            sum[op] += atomic_load_explicit(&workers[i].lat_sum[op], memory_order_relaxed);
            /* The one write into a worker's line: once a sample interval, as wtperf's monitor. */
            p = atomic_exchange_explicit(&workers[i].lat_peak[op], 0, memory_order_relaxed);
            if (p > peak[op])
                peak[op] = p;
        }
    if (monitor != NULL) {
        fprintf(monitor, "%" PRIu64, total_sec);
        for (op = 0; op < OP_TYPES; op++)
            fprintf(monitor, ",%" PRIu64, ops[op]);
        for (op = 0; op < OP_TYPES; op++)
            fprintf(monitor, ",%.3f,%.3f", n[op] > last_n[op] ? (double)(sum[op] - last_sum[op]) / 1e3 / (double)(n[op] - last_n[op]) : 0.0,
              (double)peak[op] / 1e3);
        fprintf(monitor, "\n");
        fflush(monitor);
    }
    for (op = 0; op < OP_TYPES; op++) {
        if (runs[op] && opt.max_latency > 0 && peak[op] > opt.max_latency * 1000000ULL)
            printf("max latency exceeded: threshold %" PRIu64 " ms, %s max %.1f ms (%" PRIu64 " total secs)\n",
              opt.max_latency, op_name[op], (double)peak[op] / 1e6, total_sec);
        last_n[op] = n[op];
        last_sum[op] = sum[op];
    }
}

/* p-th percentile (0..1) of the merged histogram, in microseconds. */
static double
percentile_us(const uint64_t *hist, uint64_t n, double p)
{
    uint64_t want = (uint64_t)((double)n * p), seen = 0;
    int b;
    if (want >= n)
        want = n - 1;
    for (b = 0; b < LAT_BUCKETS; b++)
        if ((seen += hist[b]) > want)
            return lat_bucket_ns(b) / 1e3;
    return 0;
}

/* Builds each worker's operation cycle from its group's ratios: reads, inserts, updates spread out. */
static void
make_workers(void)
{
    int g, i, op, j, k, w = 0;
    for (g = 0; g < opt.ngroups; g++)
        nworkers += opt.groups[g].count;
    workers = must_alloc(64, sizeof(worker) * (size_t)nworkers);
    memset(workers, 0, sizeof(worker) * (size_t)nworkers);
    for (g = 0; g < opt.ngroups; g++)
        for (i = 0; i < opt.groups[g].count; i++, w++) {
            worker *x = &workers[w];
            int total = 0, given[OP_TYPES] = {0, 0, 0};
            for (op = 0; op < OP_TYPES; op++)
                total += opt.groups[g].ratio[op];
            /* Interleave: position j gets the type furthest behind its share. */
            for (j = 0; j < total; j++) {
                int best = -1;
                double lag = -1e9;
                for (op = 0; op < OP_TYPES; op++) {
                    double l = (double)(j + 1) * opt.groups[g].ratio[op] / total - given[op];
                    if (opt.groups[g].ratio[op] > given[op] && l > lag) {
                        lag = l;
                        best = op;
                    }
                }
                x->seq[j] = (unsigned char)best;
                given[best]++;
            }
            x->nseq = total;
            x->seed = 0x5eed0000ULL + 7919ULL * (uint64_t)w;
            if (opt.groups[g].ratio[OP_INSERT] > 0)
                x->insert_index = ninserters++;
            for (k = 0; k < OP_TYPES; k++)
                atomic_init(&x->ops[k], 0);
        }
}

int
main(int argc, char **argv)
{
    const char *file = NULL, *monitor_path = NULL, *name;
    char *extra_conn = NULL, *extra_table = NULL, *o_opts[64], config[16384], table_config[8192], *dot;
    int c, i, op, n_o = 0, runs[OP_TYPES] = {0, 0, 0}, nthreads[OP_TYPES] = {0, 0, 0};
    uint64_t ops[OP_TYPES], last[OP_TYPES] = {0, 0, 0}, last_n[OP_TYPES] = {0, 0, 0},
                            last_sum[OP_TYPES] = {0, 0, 0}, sec, total_ops = 0;
    double start, elapsed;
    pthread_t *tids;
    WT_SESSION *s;
    FILE *monitor = NULL;

    setvbuf(stdout, NULL, _IOLBF, 0);
    while ((c = getopt(argc, argv, "O:o:C:T:h:M:i:")) != -1)
        switch (c) {
        case 'O':
            file = optarg;
            break;
        case 'o':
            if (n_o == 64)
                bad("more than %s -o options", "64");
            o_opts[n_o++] = optarg;
            break;
        case 'C':
            extra_conn = optarg;
            break;
        case 'T':
            extra_table = optarg;
            break;
        case 'h':
            snprintf(home, sizeof(home), "%s", optarg);
            break;
        case 'M':
            monitor_path = optarg;
            break;
        case 'i':
            iterations = number("-i", optarg);
            break;
        default:
            fprintf(stderr, "%s", usage_text);
            return 2;
        }
    if (optind != argc)
        bad("unexpected argument \"%s\"", argv[optind]);
    if (file == NULL && n_o == 0)
        bad("no workload: give -O file.wtperf or -o %s", "options");

    /* wtperf's defaults. */
    strcpy(opt.conn_config, "create");
    opt.icount = 5000;
    opt.run_time = 2;
    opt.report_interval = 2;
    opt.populate_threads = 1;
    opt.key_sz = 20;
    opt.value_sz = 100;
    opt.sample_rate = 50;
    if (file != NULL)
        read_file(file);
    for (i = 0; i < n_o; i++)
        options(o_opts[i], "-o");
    check_options();
    make_workers();
    for (i = 0; i < nworkers; i++)
        for (op = 0; op < OP_TYPES; op++)
            if (memchr(workers[i].seq, op, (size_t)workers[i].nseq) != NULL) {
                runs[op] = 1;
                nthreads[op]++;
            }
    if (file != NULL) {
        name = strrchr(file, '/') != NULL ? strrchr(file, '/') + 1 : file;
    } else
        name = "options";

    if (home[0] == '\0') {
        snprintf(home, sizeof(home), "%s/workload.XXXXXX", getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
        if (mkdtemp(home) == NULL) {
            fprintf(stderr, "workload: mkdtemp %s: %s\n", home, strerror(errno));
            return 1;
        }
        home_is_temp = 1;
        atexit(remove_home);
    } else if (mkdir(home, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "workload: mkdir %s: %s\n", home, strerror(errno));
        return 1;
    }
    if (monitor_path != NULL) {
        if ((monitor = fopen(monitor_path, "w")) == NULL) {
            fprintf(stderr, "workload: %s: %s\n", monitor_path, strerror(errno));
            return 1;
        }
        fprintf(monitor, "total_secs,inserts,reads,updates,insert_avg_us,insert_max_us,read_avg_us,read_max_us,"
                         "update_avg_us,update_max_us\n");
    }

    /* session_max first, so that conn_config can still set it. */
    snprintf(config, sizeof(config), "create,session_max=%d,%s%s%s", nworkers + (int)opt.populate_threads + 10,
      opt.conn_config, extra_conn != NULL ? "," : "", extra_conn != NULL ? extra_conn : "");
    snprintf(table_config, sizeof(table_config), "key_format=S,value_format=S%s%s%s%s",
      opt.table_config[0] != '\0' ? "," : "", opt.table_config, extra_table != NULL ? "," : "",
      extra_table != NULL ? extra_table : "");
    printf("workload %s: home %s\nconn_config: %s\ntable_config: %s\n", name, home, config, table_config);
    DIE(wiredtiger_open(home, NULL, config, &conn));
    DIE(conn->open_session(conn, NULL, NULL, &s));
    DIE(s->create(s, uri, table_config));
    if (opt.icount > 0)
        run_populate();

    printf("Starting workload threads: %d read, %d insert, %d update, for %" PRIu64 " secs\n", nthreads[OP_READ],
      nthreads[OP_INSERT], nthreads[OP_UPDATE], opt.run_time);
    tids = must_alloc(0, sizeof(*tids) * (size_t)nworkers);
    start = now();
    for (i = 0; i < nworkers; i++)
        if (pthread_create(&tids[i], NULL, work, &workers[i]) != 0) {
            fprintf(stderr, "workload: pthread_create failed\n");
            return 1;
        }
    for (sec = 1; iterations == 0 && sec <= opt.run_time; sec++) {
        sleep_until(start, (double)sec);
        if (opt.report_interval > 0 && sec % opt.report_interval == 0) {
            sum_ops(ops);
            interval_line(ops, last, opt.report_interval, sec, runs);
            memcpy(last, ops, sizeof(last));
        }
        if (opt.sample_interval > 0 && sec % opt.sample_interval == 0) {
            sum_ops(ops);
            sample(monitor, sec, ops, last_n, last_sum, runs);
        }
    }
    if (iterations == 0) {
        sum_ops(ops);
        atomic_store(&stop, 1);
    }
    elapsed = now() - start;
    for (i = 0; i < nworkers; i++)
        pthread_join(tids[i], NULL);
    if (iterations != 0)
        sum_ops(ops);
    if (monitor != NULL)
        fclose(monitor);

    for (op = 0; op < OP_TYPES; op++)
        total_ops += ops[op];
    for (op = 0; op < OP_TYPES; op++)
        if (runs[op])
            printf("Executed %" PRIu64 " %s operations (%" PRIu64 "%%) %" PRIu64 " ops/sec\n", ops[op], op_name[op],
              total_ops == 0 ? 0 : ops[op] * 100 / total_ops, ops[op] / opt.run_time);

    /* Latency per type: the timed operations of all threads, merged. */
    {
        static uint64_t hist[LAT_BUCKETS];
        char tail[1024];
        size_t len = 0;
        dot = strrchr(name, '.');
        len += (size_t)snprintf(tail + len, sizeof(tail) - len, "workload name=%.*s threads=%d ops=%" PRIu64
          " seconds=%.3f ops_per_sec=%.0f", dot != NULL ? (int)(dot - name) : (int)strlen(name), name, nworkers,
          total_ops, elapsed, (double)total_ops / elapsed);
        for (op = 0; op < OP_TYPES; op++) {
            uint64_t n = 0, max_ns = 0;
            double p50, p99;
            if (!runs[op])
                continue;
            memset(hist, 0, sizeof(hist));
            for (i = 0; i < nworkers; i++) {
                int b;
                for (b = 0; b < LAT_BUCKETS; b++) {
                    hist[b] += workers[i].hist[op][b];
                    n += workers[i].hist[op][b];
                }
                if (workers[i].max_ns[op] > max_ns)
                    max_ns = workers[i].max_ns[op];
            }
            p50 = n ? percentile_us(hist, n, 0.50) : 0;
            p99 = n ? percentile_us(hist, n, 0.99) : 0;
            printf("%s latency: p50 %.2f us, p99 %.2f us, max %.2f us (%" PRIu64 " timed, 1 in %" PRIu64 ")\n",
              op_name[op], p50, p99, (double)max_ns / 1e3, n, opt.sample_rate);
            len += (size_t)snprintf(tail + len, sizeof(tail) - len,
              " %s_ops_per_sec=%.0f %s_p50_us=%.2f %s_p99_us=%.2f %s_max_us=%.2f", op_name[op],
              (double)ops[op] / elapsed, op_name[op], p50, op_name[op], p99, op_name[op], (double)max_ns / 1e3);
        }
        printf("%s\n", tail);
    }
    free(tids);
    free(workers);
    DIE(s->close(s, NULL));
    DIE(conn->close(conn, NULL));
    return 0;
}
