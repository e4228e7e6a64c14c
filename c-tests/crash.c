/*
 * Crash test: a child process runs random multi-key transactions with the journal on and
 * sync at commit, appending each transaction's id to a side file only after its commit
 * returned; the parent SIGKILLs it at a random moment, reopens the database and checks that it
 * holds exactly the state of transactions 1..m applied in order, where m is the last
 * acknowledged id or the one after it (a transaction in flight at the kill may or may not have
 * reached the journal, but never partly). Then it starts the next child from m + 1.
 *
 * A second table of BIG_KEYS values of BULK_LEN bytes (about 2.4 MB): transactions 1-10 load it,
 * every BULK_EVERY-th transaction after it rewrites BULK_ROWS of its rows; every other round
 * (the odd ones) runs with cache_size=1MB, a checkpoint every 10 transactions and a longer
 * window before the kill: its database is larger than its cache, so the kills land during
 * merges of the index into the tree files, eviction and checkpoints, and recovery replays the
 * journal over trees larger than the cache.
 *
 * Every fourth round (3, 7, ...) also runs the background checkpoint thread, triggered by
 * journal size (checkpoint=(log_size)), beside the child's own checkpoints.
 *
 * Also: a reopen after a clean close keeps tables and rows, and a second process opening an
 * open home gets EBUSY.
 *
 * crash [KILLS]: KILLS rounds (default 25); UNLATCHED_CRASH_KILLS overrides it (a soak, see
 * tools/crash-soak). UNLATCHED_CRASH_SEED fixes the seed of the kill moments (printed at the
 * start); UNLATCHED_CRASH_WINDOW_MS sets the longest a larger-than-cache round runs before its
 * kill (default 80).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#define KEYS 64
#define MARKER 1000000 /* key MARKER + i holds i once transaction i committed */
#define CONFIG "create,log=(enabled=true,file_max=100KB),transaction_sync=(enabled=true)"
#define SMALL_CACHE ",cache_size=1MB" /* the odd rounds: a database larger than its cache */
#define BACKGROUND ",checkpoint=(log_size=100KB)" /* every fourth round: background checkpoints */
#define BULK_EVERY 3
#define BULK_ROWS 100
#define BULK_LEN 800
#define BIG_KEYS 3000

static char home[256], side[300];

/* A value derived from (i, j, salt): the transactions' contents are a function of their ids. */
static uint64_t
mix(uint64_t i, uint64_t j, uint64_t salt)
{
    uint64_t x = i * 0x9E3779B97F4A7C15ULL ^ (j + 1) * 0xC2B2AE3D27D4EB4FULL ^ salt;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ULL;
    return x ^ (x >> 29);
}

/* Transaction i: 1-6 puts or removes on KEYS shared keys, plus its marker. */
static int
ops(uint64_t i)
{
    return 1 + (int)(mix(i, 0, 1) % 6);
}
static int64_t
op_key(uint64_t i, int j)
{
    return (int64_t)(mix(i, (uint64_t)j, 2) % KEYS);
}
static int
op_removes(uint64_t i, int j)
{
    return mix(i, (uint64_t)j, 3) % 4 == 0;
}

/* The rows of the big table transaction i writes: a tenth of them (i <= 10), BULK_ROWS or none. */
static int
bulk(uint64_t i)
{
    return i <= 10 ? BIG_KEYS / 10 : i % BULK_EVERY == 2 ? BULK_ROWS : 0;
}
static int64_t
bulk_key(uint64_t i, int r)
{
    return i <= 10 ? (int64_t)((i - 1) * (BIG_KEYS / 10) + (uint64_t)r)
                   : (int64_t)(((i / BULK_EVERY) * BULK_ROWS + (uint64_t)r) % BIG_KEYS);
}
/* Row r of bulk transaction i: BULK_LEN - 1 characters derived from (i, r). */
static void
bulk_value(uint64_t i, int r, char *buf)
{
    uint64_t x = mix(i, (uint64_t)r, 4);
    int n = snprintf(buf, BULK_LEN, "%" PRIu64 "/%d:", i, r), j;
    for (j = n; j < BULK_LEN - 1; j++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        buf[j] = (char)('a' + (x >> 58) % 26);
    }
    buf[BULK_LEN - 1] = '\0';
}

/* The connection configuration of round `round`. */
static const char *
config(int round)
{
    return round % 4 == 3 ? CONFIG SMALL_CACHE BACKGROUND : round % 2 == 1 ? CONFIG SMALL_CACHE : CONFIG;
}

/* The child: transactions start..; never returns. */
static void
child(uint64_t start, int ready_fd, int round)
{
    WT_CONNECTION *conn;
    WT_SESSION *s;
    WT_CURSOR *c, *big;
    uint64_t i;
    int fd, j, ret;
    uint64_t ckpt_every = round % 2 == 1 ? 10 : 40;
    char value[BULK_LEN];

    if (wiredtiger_open(home, NULL, config(round), &conn) != 0 || conn->open_session(conn, NULL, NULL, &s) != 0 ||
      s->create(s, "table:crash", "key_format=q,value_format=q") != 0 ||
      s->create(s, "table:crashbig", "key_format=q,value_format=S") != 0 ||
      s->open_cursor(s, "table:crash", NULL, NULL, &c) != 0 ||
      s->open_cursor(s, "table:crashbig", NULL, NULL, &big) != 0)
        _exit(2);
    if ((fd = open(side, O_WRONLY | O_APPEND | O_CREAT, 0644)) < 0)
        _exit(3);
    if (write(ready_fd, "r", 1) != 1)
        _exit(4);
    for (i = start;; i++) {
        if (s->begin_transaction(s, NULL) != 0)
            _exit(5);
        for (j = 0; j < ops(i); j++) {
            c->set_key(c, op_key(i, j));
            if (op_removes(i, j)) {
                ret = c->remove(c);
                if (ret != 0 && ret != WT_NOTFOUND)
                    _exit(6);
            } else {
                c->set_value(c, (int64_t)(i * 100 + (uint64_t)j));
                if (c->insert(c) != 0)
                    _exit(7);
            }
        }
        for (j = 0; j < bulk(i); j++) {
            big->set_key(big, bulk_key(i, j));
            bulk_value(i, j, value);
            big->set_value(big, value);
            if (big->insert(big) != 0)
                _exit(12);
        }
        c->set_key(c, (int64_t)(MARKER + i));
        c->set_value(c, (int64_t)i);
        if (c->insert(c) != 0)
            _exit(8);
        if (s->commit_transaction(s, i % 3 == 0 ? "sync=on" : NULL) != 0)
            _exit(9);
        if (write(fd, &i, sizeof(i)) != (ssize_t)sizeof(i)) /* acknowledged */
            _exit(10);
        if (i % ckpt_every == 0 && s->checkpoint(s, NULL) != 0)
            _exit(11);
    }
}

/* The last acknowledged id (0: none). */
static uint64_t
acknowledged(void)
{
    uint64_t last = 0;
    int fd = open(side, O_RDONLY);
    off_t len;

    if (fd < 0)
        return 0;
    len = lseek(fd, 0, SEEK_END);
    len -= len % (off_t)sizeof(last);
    if (len > 0 && pread(fd, &last, sizeof(last), len - (off_t)sizeof(last)) != (ssize_t)sizeof(last))
        last = 0;
    close(fd);
    return last;
}

/*
 * Opens the database, checks it holds exactly transactions 1..m (m = ack or ack + 1) and
 * returns m, or 0 after a failed check.
 */
static uint64_t
verify(uint64_t ack, int round)
{
    static int64_t expect[KEYS];
    static uint64_t expect_big[BIG_KEYS]; /* (bulk transaction << 16) | row + 1, or 0: absent */
    WT_CONNECTION *conn;
    WT_SESSION *s;
    WT_CURSOR *c;
    int64_t k, v;
    uint64_t i, m = 0, markers = 0;
    int j, ret, bad = 0;
    const char *sv;
    char want[BULK_LEN];

    if (wiredtiger_open(home, NULL, config(round), &conn) != 0) {
        CHECK(!"reopen after the kill");
        return 0;
    }
    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->create(s, "table:crash", "key_format=q,value_format=q"));
    OK(s->open_cursor(s, "table:crash", NULL, NULL, &c));
    /* Markers: exactly 1..m. */
    c->set_key(c, (int64_t)MARKER);
    ret = c->search_near(c, &j);
    if (ret == 0 && j < 0)
        ret = c->next(c);
    for (; ret == 0; ret = c->next(c)) {
        OK(c->get_key(c, &k));
        OK(c->get_value(c, &v));
        markers++;
        if ((uint64_t)k != MARKER + markers || (uint64_t)v != markers)
            bad = 1;
    }
    m = markers;
    if (bad || m < ack || m > ack + 1) {
        fprintf(stderr, "round %d: %" PRIu64 " transactions present (markers %s), %" PRIu64 " acknowledged\n", round, m,
          bad ? "not consecutive" : "consecutive", ack);
        CHECK(!"the committed transactions are exactly 1..m");
        OK(conn->close(conn, NULL));
        return 0;
    }
    /* The shared keys: the state after 1..m in order. */
    for (k = 0; k < KEYS; k++)
        expect[k] = -1;
    for (i = 1; i <= m; i++)
        for (j = 0; j < ops(i); j++)
            expect[op_key(i, j)] = op_removes(i, j) ? -1 : (int64_t)(i * 100 + (uint64_t)j);
    for (k = 0; k < KEYS; k++) {
        c->set_key(c, k);
        ret = c->search(c);
        v = -1;
        if (ret == 0)
            OK(c->get_value(c, &v));
        else
            CHECK_RC(ret, WT_NOTFOUND);
        if (v != expect[k]) {
            fprintf(stderr, "round %d: key %" PRId64 " is %" PRId64 ", expected %" PRId64 " after %" PRIu64 " transactions\n",
              round, k, v, expect[k], m);
            CHECK(!"the shared keys hold the state after 1..m");
            break;
        }
    }
    /* The big table: the last bulk write of each key among 1..m. */
    OK(c->close(c));
    OK(s->create(s, "table:crashbig", "key_format=q,value_format=S"));
    OK(s->open_cursor(s, "table:crashbig", NULL, NULL, &c));
    memset(expect_big, 0, sizeof(expect_big));
    for (i = 1; i <= m; i++)
        for (j = 0; j < bulk(i); j++)
            expect_big[bulk_key(i, j)] = (i << 16 | (uint64_t)j) + 1;
    for (k = 0; k < BIG_KEYS; k++) {
        c->set_key(c, k);
        ret = c->search(c);
        if (expect_big[k] == 0) {
            if (ret == WT_NOTFOUND)
                continue;
            fprintf(stderr, "round %d: big key %" PRId64 ": search returned %d, expected WT_NOTFOUND after %" PRIu64
              " transactions\n", round, k, ret, m);
            CHECK(!"the big table holds the state after 1..m");
            break;
        }
        bulk_value((expect_big[k] - 1) >> 16, (int)((expect_big[k] - 1) & 0xffff), want);
        if (ret != 0 || c->get_value(c, &sv) != 0 || strcmp(sv, want) != 0) {
            fprintf(stderr, "round %d: big key %" PRId64 ": search returned %d, value \"%.20s...\", expected \"%.20s...\" after %" PRIu64
              " transactions\n", round, k, ret, ret == 0 ? sv : "", want, m);
            CHECK(!"the big table holds the state after 1..m");
            break;
        }
    }
    OK(conn->close(conn, NULL));
    return m;
}

/* Removes directory `dir` and the files in it. */
static void
remove_dir(const char *dir)
{
    char path[600];
    struct dirent *e;
    DIR *d = opendir(dir);

    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(dir);
}

/* The bytes of the table files (unlatched.table.*) in the home. */
static long long
table_bytes(void)
{
    char path[600];
    struct dirent *e;
    struct stat st;
    long long sum = 0;
    DIR *d = opendir(home);

    if (d == NULL)
        return 0;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, "unlatched.table.", 16) == 0) {
            snprintf(path, sizeof(path), "%s/%s", home, e->d_name);
            if (stat(path, &st) == 0)
                sum += (long long)st.st_size;
        }
    closedir(d);
    return sum;
}

/* A clean close keeps tables and rows; a second process gets EBUSY while the home is open. */
static void
reopen_and_lock(void)
{
    WT_CONNECTION *conn, *other;
    WT_SESSION *s;
    WT_CURSOR *c;
    const char *v;
    char dir[300];
    pid_t pid;
    int status;

    snprintf(dir, sizeof(dir), "%s-reopen", home);
    mkdir(dir, 0755);
    CHECK_RC(wiredtiger_open(dir, NULL, NULL, &conn), WT_TRY_SALVAGE);
    OK(wiredtiger_open(dir, NULL, "create", &conn));
    CHECK(conn->is_new(conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->create(s, "table:r", "key_format=S,value_format=S"));
    OK(s->open_cursor(s, "table:r", NULL, NULL, &c));
    c->set_key(c, "k");
    c->set_value(c, "v");
    OK(c->insert(c));
    pid = fork();
    if (pid == 0) {
        /* Another spelling of the home: the process-local claim does not see it, the lock does. */
        char alias[310];
        snprintf(alias, sizeof(alias), "%s/.", dir);
        _exit(wiredtiger_open(alias, NULL, NULL, &other) == EBUSY ? 0 : 1);
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    OK(conn->close(conn, NULL));
    OK(wiredtiger_open(dir, NULL, NULL, &conn));
    CHECK(!conn->is_new(conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->open_cursor(s, "table:r", NULL, NULL, &c));
    CHECK_STR(c->key_format, "S");
    c->set_key(c, "k");
    OK(c->search(c));
    OK(c->get_value(c, &v));
    CHECK_STR(v, "v");
    OK(conn->close(conn, NULL));

    /* The journal's syncs are reported as "log: log sync operations". */
    OK(wiredtiger_open(dir, NULL, "log=(enabled=true),statistics=(fast)", &conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->open_cursor(s, "table:r", NULL, NULL, &c));
    c->set_key(c, "k2");
    c->set_value(c, "v2");
    OK(s->begin_transaction(s, NULL));
    OK(c->insert(c));
    OK(s->commit_transaction(s, "sync=on"));
    CHECK(ul_stat(s, "statistics:", WT_STAT_CONN_LOG_SYNC) >= 1);
    OK(conn->close(conn, NULL));
    remove_dir(dir);
}

int
main(int argc, char **argv)
{
    const char *env = getenv("UNLATCHED_CRASH_KILLS"), *seed = getenv("UNLATCHED_CRASH_SEED"),
               *window = getenv("UNLATCHED_CRASH_WINDOW_MS");
    int kills = env != NULL ? atoi(env) : argc > 1 ? atoi(argv[1]) : 25;
    int round, pipefd[2], status;
    uint64_t rng = seed != NULL ? strtoull(seed, NULL, 10) : (uint64_t)time(NULL) ^ (uint64_t)getpid(), next = 1, m;
    uint64_t long_us = window != NULL && atoi(window) > 0 ? (uint64_t)atoi(window) * 1000 : 80000;
    pid_t pid;
    char byte;

    snprintf(home, sizeof(home), "/tmp/unlatched-crash-%d", (int)getpid());
    snprintf(side, sizeof(side), "%s.acked", home);
    mkdir(home, 0755);
    reopen_and_lock();
    printf("crash: seed %" PRIu64 ", %d kills\n", rng, kills);
    for (round = 0; round < kills && ul_failures == 0; round++) {
        if (pipe(pipefd) != 0)
            return 1;
        pid = fork();
        if (pid == 0) {
            close(pipefd[0]);
            child(next, pipefd[1], round);
        }
        close(pipefd[1]);
        /* Most kills land while transactions run; every fifth during open and recovery. */
        if (round % 5 != 4 && read(pipefd[0], &byte, 1) != 1) {
            CHECK(!"the child opened the database");
            waitpid(pid, &status, 0);
            fprintf(stderr, "child exit status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
            break;
        }
        close(pipefd[0]);
        {
            uint64_t us = ul_rand(&rng) % (round % 2 == 1 ? long_us : 30000);
            struct timespec pause = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
            nanosleep(&pause, NULL);
        }
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        if (WIFEXITED(status)) {
            fprintf(stderr, "round %d: the child exited with %d before the kill\n", round, WEXITSTATUS(status));
            CHECK(!"the child runs until killed");
        }
        /* Transactions found by the last check count as acknowledged (the in-doubt one too). */
        m = acknowledged();
        m = verify(m > next - 1 ? m : next - 1, round);
        if (m == 0 && ul_failures != 0)
            break;
        next = m + 1;
    }
    printf("crash: %d kills, %" PRIu64 " transactions committed and checked; table files %.1f MB (cache_size=1MB in the odd rounds)\n",
      round, next - 1, (double)table_bytes() / 1048576.0);
    if (ul_failures == 0) {
        remove_dir(home);
        unlink(side);
    }
    return ul_done("crash");
}
