/*
 * stat_read (seed 000): the cost of reading one connection statistic while K idle sessions
 * exist. Each idle session did one open/close cycle of a table cursor (so it holds a cached
 * cursor) and stays open. One thread then repeatedly opens a `statistics:` cursor, sets the key
 * WT_STAT_CONN_CURSOR_OPEN_COUNT, searches, reads the value and closes the cursor. Written only
 * against wiredtiger.h, so it builds against unlatched or any library with the WiredTiger API.
 *
 * usage: stat_read [-k idle_sessions] [-r reads_per_run] [-R runs] [-i iterations]
 *   -i N: run exactly N reads and no timing (for callgrind instruction counts).
 *
 * Output: one line "stat_read sessions=K runs=R reads=N us_per_read=M min=A max=B value=V
 * before_idle=V0"; M, A, B are the median, minimum and maximum over the runs of the mean time
 * per read. V is "cursor: open cursor count" as read (the same in every read, or the program
 * stops); V0 is the value read before the idle sessions were opened. In the reference V - V0 is
 * K (each session holds one internal cursor while open; its cached table cursor does not count).
 */
#include "bench.h" /* first: it defines _GNU_SOURCE */

#include <string.h>

#define MAX_RUNS 100

/* One statistics read: open, set_key, search, get_value, close. */
static int64_t
stat_read(WT_SESSION *s)
{
    WT_CURSOR *c;
    int64_t value;
    DIE(s->open_cursor(s, "statistics:", NULL, NULL, &c));
    c->set_key(c, WT_STAT_CONN_CURSOR_OPEN_COUNT);
    DIE(c->search(c));
    DIE(c->get_value(c, NULL, NULL, &value));
    DIE(c->close(c));
    return value;
}

/* Reads n times; stops the program if the value moves (nothing else runs). */
static int64_t
read_loop(WT_SESSION *s, uint64_t n)
{
    int64_t first = stat_read(s), v;
    uint64_t i;
    for (i = 1; i < n; i++)
        if ((v = stat_read(s)) != first) {
            fprintf(stderr, "stat_read: open cursor count moved from %" PRId64 " to %" PRId64 " with no activity\n",
              first, v);
            exit(1);
        }
    return first;
}

int
main(int argc, char **argv)
{
    WT_CONNECTION *conn;
    WT_SESSION *reader, *s, **idle;
    WT_CURSOR *c;
    uint64_t reads = 2000, iterations = 0;
    int64_t before, value = 0;
    double us[MAX_RUNS], start;
    int sessions = 0, runs = 5, opt, i;
    char config[128];

    while ((opt = getopt(argc, argv, "k:r:R:i:")) != -1)
        switch (opt) {
        case 'k':
            sessions = atoi(optarg);
            break;
        case 'r':
            reads = strtoull(optarg, NULL, 10);
            break;
        case 'R':
            runs = atoi(optarg);
            break;
        case 'i':
            iterations = strtoull(optarg, NULL, 10);
            break;
        default:
            fprintf(stderr, "usage: %s [-k idle_sessions] [-r reads_per_run] [-R runs] [-i iterations]\n", argv[0]);
            return 2;
        }
    if (sessions < 0 || sessions > 100000 || reads == 0 || runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "%s: need 0 <= idle_sessions <= 100000, reads > 0, 1 <= runs <= %d\n", argv[0], MAX_RUNS);
        return 2;
    }

    /* The reader, the loading session and the idle ones, with room to spare. */
    snprintf(config, sizeof(config), "create,in_memory=true,statistics=(fast),session_max=%d", sessions + 100);
    DIE(wiredtiger_open(NULL, NULL, config, &conn));
    DIE(conn->open_session(conn, NULL, NULL, &reader));
    load_table(reader, "table:stat", 100);
    before = stat_read(reader);

    if ((idle = calloc((size_t)sessions + 1, sizeof(*idle))) == NULL) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 1;
    }
    for (i = 0; i < sessions; i++) {
        DIE(conn->open_session(conn, NULL, NULL, &s));
        DIE(s->open_cursor(s, "table:stat", NULL, NULL, &c));
        DIE(c->close(c));
        idle[i] = s;
    }

    if (iterations > 0) {
        read_loop(reader, iterations);
        DIE(conn->close(conn, NULL));
        return 0;
    }

    read_loop(reader, reads / 10 + 1); /* warm-up */
    for (i = 0; i < runs; i++) {
        start = now();
        value = read_loop(reader, reads);
        us[i] = (now() - start) * 1e6 / (double)reads;
    }
    qsort(us, (size_t)runs, sizeof(us[0]), cmp_double);
    printf("stat_read sessions=%d runs=%d reads=%" PRIu64 " us_per_read=%.2f min=%.2f max=%.2f value=%" PRId64
           " before_idle=%" PRId64 "\n",
      sessions, runs, reads, us[runs / 2], us[0], us[runs - 1], value, before);
    for (i = 0; i < sessions; i++)
        DIE(idle[i]->close(idle[i], NULL));
    free(idle);
    DIE(conn->close(conn, NULL));
    return 0;
}
