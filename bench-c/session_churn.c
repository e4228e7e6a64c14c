/*
 * session_churn (seed 004): T threads each repeatedly take a session, run one point search on
 * a 10,000-row key_format=Q,value_format=Q table (open_cursor, search, close) and give the
 * session back. How a session is taken:
 *   -m open: WT_CONNECTION::open_session, and WT_SESSION::close after the search;
 *   -m pool: popped from a shared pool of T sessions (a stack under one pthread mutex, as an
 *            application's session pool would be) and pushed back after the search;
 *   -m own:  the thread's own session, opened once (the baseline: nothing is shared).
 * Shows whether session open/close, or a pool in front of it, serialises the threads. Written
 * only against wiredtiger.h, so it builds against unlatched or any library with the WiredTiger
 * API.
 *
 * usage: session_churn [-m open|pool|own] [-t threads] [-s seconds] [-w warmup_seconds]
 *                      [-n rows] [-i iterations]
 *   -i N: run exactly N operations on one thread and no timing (for callgrind instruction counts).
 *
 * Output: one line "session_churn mode=M threads=T ops=N seconds=S ops_per_sec=X cpu_pct=C";
 * C is the process's CPU time (user + system, getrusage) over the measured window divided by
 * the window, in percent (200 = two cores busy).
 */
#include "bench.h" /* first: it defines _GNU_SOURCE */

#include <string.h>

enum { MODE_OPEN, MODE_POOL, MODE_OWN };

static WT_CONNECTION *conn;
static uint64_t rows = 10000;
static int mode;
static volatile int phase; /* 0 warm-up, 1 measure, 2 stop */

/* The shared pool: what -m pool measures. */
static struct {
    pthread_mutex_t lock;
    WT_SESSION **sessions;
    int count;
} pool = {PTHREAD_MUTEX_INITIALIZER, NULL, 0};

/* One per thread, padded so that no two threads write the same cache line. */
typedef struct {
    char pad0[64];
    WT_SESSION *own;
    uint64_t seed;
    uint64_t ops;
    char pad1[64];
} worker;

static WT_SESSION *
take(worker *w)
{
    WT_SESSION *s;
    switch (mode) {
    case MODE_OPEN:
        DIE(conn->open_session(conn, NULL, NULL, &s));
        return s;
    case MODE_POOL:
        pthread_mutex_lock(&pool.lock);
        s = pool.count > 0 ? pool.sessions[--pool.count] : NULL;
        pthread_mutex_unlock(&pool.lock);
        if (s == NULL) {
            fprintf(stderr, "session_churn: the pool is empty (it holds one session per thread)\n");
            exit(1);
        }
        return s;
    default:
        return w->own;
    }
}

static void
give_back(WT_SESSION *s)
{
    switch (mode) {
    case MODE_OPEN:
        DIE(s->close(s, NULL));
        break;
    case MODE_POOL:
        pthread_mutex_lock(&pool.lock);
        pool.sessions[pool.count++] = s;
        pthread_mutex_unlock(&pool.lock);
        break;
    default:
        break;
    }
}

/* One operation: take a session, one point search through a cursor, give the session back. */
static inline void
operation(worker *w)
{
    WT_SESSION *s = take(w);
    WT_CURSOR *c;
    DIE(s->open_cursor(s, "table:churn", NULL, NULL, &c));
    search_one(c, &w->seed, rows);
    DIE(c->close(c));
    give_back(s);
}

static uint64_t
op_loop(worker *w, uint64_t n, volatile int *stop_phase)
{
    uint64_t ops;
    BENCH_LOOP(ops, n, stop_phase, operation(w));
    return ops;
}

static void *
run(void *arg)
{
    worker *w = arg;
    if (mode == MODE_OWN)
        DIE(conn->open_session(conn, NULL, NULL, &w->own));
    while (phase == 0)
        operation(w);
    w->ops = op_loop(w, 0, &phase);
    if (mode == MODE_OWN)
        DIE(w->own->close(w->own, NULL));
    return NULL;
}

/* The pool's sessions, each with one open/close cycle behind it (its cursor is cached). */
static void
fill_pool(int n)
{
    WT_CURSOR *c;
    int i;
    if ((pool.sessions = calloc((size_t)n, sizeof(*pool.sessions))) == NULL) {
        fprintf(stderr, "session_churn: out of memory\n");
        exit(1);
    }
    for (i = 0; i < n; i++) {
        DIE(conn->open_session(conn, NULL, NULL, &pool.sessions[i]));
        DIE(pool.sessions[i]->open_cursor(pool.sessions[i], "table:churn", NULL, NULL, &c));
        DIE(c->close(c));
    }
    pool.count = n;
}

int
main(int argc, char **argv)
{
    static const char *const modes[] = {"open", "pool", "own"};
    bench_opts o = BENCH_OPTS_INIT;
    int opt, i;
    double elapsed, cpu;
    uint64_t total = 0;
    const char *mode_name = "open";
    char config[128];
    WT_SESSION *s;
    worker *workers;

    while ((opt = getopt(argc, argv, "m:" BENCH_OPTSTRING)) != -1)
        if (opt == 'm')
            mode_name = optarg;
        else if (!bench_opt(&o, opt, optarg)) {
            fprintf(stderr, "usage: %s [-m open|pool|own] " BENCH_OPTS_USAGE "\n", argv[0]);
            return 2;
        }
    for (mode = 0; mode < 3 && strcmp(mode_name, modes[mode]) != 0; mode++)
        ;
    if (mode == 3) {
        fprintf(stderr, "%s: -m takes open, pool or own, not \"%s\"\n", argv[0], mode_name);
        return 2;
    }
    if (optind != argc || !bench_opts_ok(argv[0], &o)) {
        fprintf(stderr, "usage: %s [-m open|pool|own] " BENCH_OPTS_USAGE "\n", argv[0]);
        return 2;
    }
    rows = o.rows;

    /* Every thread may hold a session at once, plus the pool's and the loading one. */
    snprintf(config, sizeof(config), "create,in_memory=true,statistics=(fast),session_max=%d", 2 * o.threads + 10);
    DIE(wiredtiger_open(NULL, NULL, config, &conn));
    DIE(conn->open_session(conn, NULL, NULL, &s));
    load_table(s, "table:churn", rows);
    if (mode == MODE_POOL)
        fill_pool(o.iterations > 0 ? 1 : o.threads);

    workers = calloc((size_t)o.threads, sizeof(worker));
    if (workers == NULL) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 1;
    }
    for (i = 0; i < o.threads; i++)
        workers[i].seed = 1000003ULL * (uint64_t)(i + 1);
    if (o.iterations > 0) {
        /* One thread, no timing; the first operation builds what later ones reuse. */
        workers[0].own = s;
        operation(&workers[0]);
        op_loop(&workers[0], o.iterations, NULL);
        DIE(conn->close(conn, NULL));
        return 0;
    }
    elapsed = run_workers_cpu(run, workers, sizeof(worker), o.threads, o.warmup, o.seconds, &phase, &cpu);
    for (i = 0; i < o.threads; i++)
        total += workers[i].ops;
    printf("session_churn mode=%s threads=%d ops=%" PRIu64 " seconds=%.3f ops_per_sec=%.0f cpu_pct=%.0f\n", mode_name,
      o.threads, total, elapsed, (double)total / elapsed, 100 * cpu / elapsed);
    free(workers);
    free(pool.sessions);
    DIE(conn->close(conn, NULL));
    return 0;
}
