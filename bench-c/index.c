/*
 * index: a table with one index (issue 14), written only against wiredtiger.h.
 *
 *   -m insert   each thread inserts new rows (its own key range) into table:bench
 *               (key_format=Q, value_format=QS, columns=(k,v,name)) with an index on v; each
 *               insert is auto-committed and writes the row and its index entry. Ops = inserts.
 *   -m isearch  point searches through the index cursor (set_key(v) + search + get_value of the
 *               row) on a table of -n rows.
 *   -m tsearch  the same rows found through the table cursor (set_key(k) + search + get_value),
 *               the baseline of isearch.
 *
 * usage: index -m insert|isearch|tsearch [-t threads] [-s seconds] [-w warmup] [-n rows]
 *              [-i iterations]
 * Output (one line): index mode=M threads=T rows=N ops=N seconds=S ops_per_sec=X
 */
#include "bench.h" /* first: it defines _GNU_SOURCE */

#include <string.h>

static WT_CONNECTION *conn;
static uint64_t rows = 10000;
static const char *mode = "insert";
static volatile int phase; /* 0 warm-up, 1 measure, 2 stop */

typedef struct {
    int id;
    uint64_t seed;
    uint64_t ops;
    char pad[64];
} worker;

/* The index column of row k: a permutation of the keys, so the index order is not the table's. */
static uint64_t
column_of(uint64_t k)
{
    return (k * 2654435761ULL) & 0xffffffffffULL;
}

static void
insert_one(WT_CURSOR *c, uint64_t k)
{
    c->set_key(c, k);
    c->set_value(c, column_of(k), "a name of some length");
    DIE(c->insert(c));
}

static void
search_one_row(WT_CURSOR *c, uint64_t *seed, int by_index)
{
    uint64_t k = next_rand(seed) % rows, v;
    const char *name;
    if (by_index) {
        c->set_key(c, column_of(k));
        DIE(c->search(c));
        DIE(c->get_value(c, &v, &name));
    } else {
        c->set_key(c, k);
        DIE(c->search(c));
        DIE(c->get_value(c, &v, &name));
    }
    if (v != column_of(k)) {
        fprintf(stderr, "wrong row for key %" PRIu64 "\n", k);
        exit(1);
    }
}

static uint64_t
loop(WT_CURSOR *c, worker *w, uint64_t n, volatile int *stop_phase)
{
    uint64_t ops;
    if (strcmp(mode, "insert") == 0) {
        /* Each thread its own range above the preloaded rows. */
        uint64_t next = ((uint64_t)(w->id + 1) << 40) + w->ops;
        BENCH_LOOP(ops, n, stop_phase, insert_one(c, next++));
        w->ops = next - ((uint64_t)(w->id + 1) << 40);
    } else
        BENCH_LOOP(ops, n, stop_phase, search_one_row(c, &w->seed, strcmp(mode, "isearch") == 0));
    return ops;
}

static void *
run(void *arg)
{
    worker *w = arg;
    WT_SESSION *s;
    WT_CURSOR *c;
    uint64_t ops;
    DIE(conn->open_session(conn, NULL, NULL, &s));
    DIE(s->open_cursor(s, strcmp(mode, "isearch") == 0 ? "index:bench:v" : "table:bench", NULL, NULL, &c));
    w->ops = 0;
    while (phase == 0)
        loop(c, w, 1, NULL);
    if (strcmp(mode, "insert") == 0) {
        /* The warm-up's rows stay; count only the measured ones. */
        uint64_t before = w->ops;
        loop(c, w, 0, &phase);
        ops = w->ops - before;
    } else
        ops = loop(c, w, 0, &phase);
    w->ops = ops;
    DIE(c->close(c));
    DIE(s->close(s, NULL));
    return NULL;
}

int
main(int argc, char **argv)
{
    bench_opts o = BENCH_OPTS_INIT;
    int opt, i;
    double elapsed;
    uint64_t total = 0, k;
    WT_SESSION *s;
    WT_CURSOR *c;
    worker *workers, one;

    while ((opt = getopt(argc, argv, BENCH_OPTSTRING "m:")) != -1) {
        if (opt == 'm')
            mode = optarg;
        else if (!bench_opt(&o, opt, optarg)) {
            fprintf(stderr, "usage: %s -m insert|isearch|tsearch " BENCH_OPTS_USAGE "\n", argv[0]);
            return 2;
        }
    }
    if (!bench_opts_ok(argv[0], &o) ||
      (strcmp(mode, "insert") != 0 && strcmp(mode, "isearch") != 0 && strcmp(mode, "tsearch") != 0)) {
        fprintf(stderr, "%s: -m insert|isearch|tsearch\n", argv[0]);
        return 2;
    }
    rows = o.rows;

    DIE(wiredtiger_open(NULL, NULL, "create,in_memory=true", &conn));
    DIE(conn->open_session(conn, NULL, NULL, &s));
    DIE(s->create(s, "table:bench", "key_format=Q,value_format=QS,columns=(k,v,name)"));
    DIE(s->create(s, "index:bench:v", "columns=(v)"));
    DIE(s->open_cursor(s, "table:bench", NULL, NULL, &c));
    for (k = 0; k < rows; k++)
        insert_one(c, k);
    DIE(c->close(c));
    if (o.iterations > 0) {
        memset(&one, 0, sizeof(one));
        one.seed = 42;
        DIE(s->open_cursor(s, strcmp(mode, "isearch") == 0 ? "index:bench:v" : "table:bench", NULL, NULL, &c));
        loop(c, &one, o.iterations, NULL);
        DIE(conn->close(conn, NULL));
        return 0;
    }

    if ((workers = calloc((size_t)o.threads, sizeof(worker))) == NULL) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 1;
    }
    for (i = 0; i < o.threads; i++) {
        workers[i].id = i;
        workers[i].seed = 1000003ULL * (uint64_t)(i + 1);
    }
    elapsed = run_workers(run, workers, sizeof(worker), o.threads, o.warmup, o.seconds, &phase);
    for (i = 0; i < o.threads; i++)
        total += workers[i].ops;
    printf("index mode=%s threads=%d rows=%" PRIu64 " ops=%" PRIu64 " seconds=%.3f ops_per_sec=%.0f\n", mode,
      o.threads, rows, total, elapsed, (double)total / elapsed);
    free(workers);
    DIE(s->close(s, NULL));
    DIE(conn->close(conn, NULL));
    return 0;
}
