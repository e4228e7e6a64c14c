/*
 * Collators and compressors the application supplies (WT_CONNECTION::add_collator,
 * add_compressor, load_extension), with the reference's answers recorded from WiredTiger
 * 11.3.1: registering a name twice succeeds; "none" is EINVAL "invalid name for a collator:
 * none"; create with an unregistered collator or compressor is EINVAL "unknown collator 'NAME'"
 * ("unknown compressor 'NAME'"; the reference's built-in compressors are not loaded either);
 * "none" means no extension. Each registered extension's terminate method runs at close.
 *
 * A registered collator or compressor is accepted (c-tests/collator.c and c-tests/compress.c
 * test what they do). log=(compressor=NAME) compresses journal records with a compressor
 * extensions= registers (log_compressor below).
 *
 * With an argument, the path of c-tests/ext/collator_ext.c built as a shared library: it is
 * loaded with load_extension, registers "ext_nocase" and "ext_copy", and its terminate functions
 * run at close (traced through the file UL_EXT_TRACE names).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

static ul_recorder rec;
static int terminated;

static void log_compressor(const char *library);
static void collated_recovery(const char *library);

static int
compare_nocase(WT_COLLATOR *collator, WT_SESSION *session, const WT_ITEM *a, const WT_ITEM *b, int *cmp)
{
    (void)collator;
    (void)session;
    *cmp = strcasecmp((const char *)a->data, (const char *)b->data);
    return (0);
}

static int
terminate(WT_COLLATOR *collator, WT_SESSION *session)
{
    (void)collator;
    (void)session;
    terminated++;
    return (0);
}

static WT_COLLATOR nocase = {compare_nocase, NULL, terminate};
static WT_COLLATOR plain = {compare_nocase, NULL, NULL};

static void
registration(void)
{
    WT_CONNECTION *conn;
    WT_SESSION *s;

    ul_open(&rec, "create,in_memory=true", &conn, &s);
    OK(conn->add_collator(conn, "nocase", &nocase, NULL));
    OK(conn->add_collator(conn, "nocase", &plain, NULL));
    ul_recorder_clear(&rec);
    CHECK_RC(conn->add_collator(conn, "none", &plain, NULL), EINVAL);
    CHECK_MSG(&rec, EINVAL, "invalid name for a collator: none");

    ul_recorder_clear(&rec);
    CHECK_RC(s->create(s, "table:a", "key_format=S,value_format=S,collator=missing"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown collator 'missing'");
    CHECK_RC(s->create(s, "table:b", "key_format=S,value_format=S,block_compressor=missing"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown compressor 'missing'");
    CHECK_RC(s->create(s, "table:c", "key_format=S,value_format=S,block_compressor=snappy"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown compressor 'snappy'");
    OK(s->create(s, "table:d", "key_format=S,value_format=S,collator=none,block_compressor=none"));

    OK(s->create(s, "table:e", "key_format=S,value_format=S,collator=nocase"));

    terminated = 0;
    OK(conn->close(conn, NULL));
    /* Registered twice with a terminate method the first time. */
    CHECK(terminated == 1);
}

static void
loaded(const char *library)
{
    WT_CONNECTION *conn;
    WT_SESSION *s;
    char trace[512], text[256] = "";
    FILE *f;
    size_t n;

    snprintf(trace, sizeof(trace), "%s.trace", library);
    remove(trace);
    setenv("UL_EXT_TRACE", trace, 1);
    ul_open(&rec, "create,in_memory=true", &conn, &s);
    ul_recorder_clear(&rec);
    CHECK_RC(conn->load_extension(conn, "/nonexistent/ext.so", NULL), EINVAL);
    OK(conn->load_extension(conn, library, NULL));
    /* What the entry function registered is known to create. */
    OK(s->create(s, "table:e", "key_format=S,value_format=S,collator=ext_nocase"));
    OK(s->create(s, "table:f", "key_format=S,value_format=S,block_compressor=ext_copy"));
    CHECK_RC(s->create(s, "table:g", "key_format=S,value_format=S,collator=ext_other"), EINVAL);
    /* config= reaches the entry function (read through WT_EXTENSION_API::config_get). */
    OK(conn->load_extension(conn, library, "config=(extra=ext_other)"));
    OK(s->create(s, "table:g", "key_format=S,value_format=S,collator=ext_other"));
    /* A missing entry function. */
    CHECK_RC(conn->load_extension(conn, library, "entry=no_such_function"), EINVAL);
    OK(conn->close(conn, NULL));
    if ((f = fopen(trace, "r")) != NULL) {
        n = fread(text, 1, sizeof(text) - 1, f);
        text[n] = '\0';
        fclose(f);
    }
    /* Loaded three times (the second without its entry), so two inits; terminates newest
     * first. */
    CHECK_STR(text, "init\ninit\ncollator terminate\nlibrary terminate\ncollator terminate\nlibrary terminate\n");
    remove(trace);

    /* wiredtiger_open's extensions=: loaded with the connection; a bad one fails the open. */
    {
        char config[1024];
        snprintf(config, sizeof(config),
          "create,in_memory=true,extensions=[\"%s\"=(entry=wiredtiger_extension_init)]", library);
        OK(wiredtiger_open(NULL, &rec.iface, config, &conn));
        OK(conn->open_session(conn, NULL, NULL, &s));
        OK(s->create(s, "table:e", "key_format=S,value_format=S,collator=ext_nocase"));
        OK(conn->close(conn, NULL));
        /* log=(compressor=) may name what extensions= registers. */
        snprintf(config, sizeof(config),
          "create,in_memory=true,log=(compressor=ext_copy),extensions=[\"%s\"]", library);
        OK(wiredtiger_open(NULL, &rec.iface, config, &conn));
        OK(conn->close(conn, NULL));
        snprintf(config, sizeof(config), "create,in_memory=true,extensions=[\"%s\",\"/nonexistent/x.so\"]", library);
        conn = NULL;
        CHECK_RC(wiredtiger_open(NULL, &rec.iface, config, &conn), EINVAL);
        CHECK(conn == NULL);
    }
    if ((f = fopen(trace, "r")) != NULL) {
        n = fread(text, 1, sizeof(text) - 1, f);
        text[n] = '\0';
        fclose(f);
    }
    CHECK_STR(text, "init\ncollator terminate\nlibrary terminate\ninit\ncollator terminate\nlibrary terminate\ninit\ncollator "
                    "terminate\nlibrary terminate\n");
    remove(trace);
    log_compressor(library);
    collated_recovery(library);
}

/*
 * A table ordered by a collator extensions= registers, written without a checkpoint by a process
 * that dies: recovery replays its records in the collator's order (the replay waits for
 * extensions= to load, as the reference loads them before recovery); without the collator
 * registered, recovery of its records fails with EINVAL "unknown collator".
 */
static void
collated_recovery(const char *library)
{
    WT_CONNECTION *conn;
    WT_CURSOR *c;
    WT_SESSION *s;
    char config[1024], got[256], home[512];
    const char *k, *v;
    pid_t child;
    size_t n;
    int exact, ret, status;

    ul_mkhome("extensions_collated", home, sizeof(home));
    snprintf(config, sizeof(config), "create,log=(enabled=true),extensions=[\"%s\"]", library);
    fflush(NULL);
    if ((child = fork()) == 0) {
        if (wiredtiger_open(home, NULL, config, &conn) != 0 || conn->open_session(conn, NULL, NULL, &s) != 0 ||
          s->create(s, "table:nocase", "key_format=S,value_format=S,collator=ext_nocase") != 0 ||
          s->open_cursor(s, "table:nocase", NULL, NULL, &c) != 0)
            _exit(2);
        /* "a" is "A" under the collator: its insert overwrites that row. */
        const char *rows[][2] = {{"b", "1"}, {"A", "2"}, {"D", "3"}, {"c", "4"}, {"a", "5"}};
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
            c->set_key(c, rows[i][0]);
            c->set_value(c, rows[i][1]);
            if (c->insert(c) != 0)
                _exit(3);
        }
        if (s->log_flush(s, "sync=on") != 0)
            _exit(4);
        _exit(0);
    }
    CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);

    /* Without the collator, the table's records cannot be replayed in order. */
    conn = NULL;
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(home, &rec.iface, "create,log=(enabled=true)", &conn), EINVAL);
    CHECK(conn == NULL);
    CHECK_MSG(&rec, EINVAL, "unknown collator 'ext_nocase'");

    /* Recovered in the collator's order, and again after a clean close. */
    for (int round = 0; round < 2; round++) {
        OK(wiredtiger_open(home, &rec.iface, config, &conn));
        OK(conn->open_session(conn, NULL, NULL, &s));
        OK(s->open_cursor(s, "table:nocase", NULL, NULL, &c));
        n = 0;
        got[0] = '\0';
        while ((ret = c->next(c)) == 0) {
            OK(c->get_key(c, &k));
            OK(c->get_value(c, &v));
            n += (size_t)snprintf(got + n, sizeof(got) - n, "%s=%s ", k, v);
        }
        CHECK_RC(ret, WT_NOTFOUND);
        CHECK_STR(got, "A=5 b=1 c=4 D=3 ");
        c->set_key(c, "B");
        OK(c->search_near(c, &exact));
        CHECK(exact == 0);
        OK(c->get_value(c, &v));
        CHECK_STR(v, "1");
        OK(conn->close(conn, NULL));
    }
    ul_rmhome(home);
}

/* Rows of 200 repeated bytes: records the journal compressor shrinks. */
static void
put_rows(WT_SESSION *s, int from, int to)
{
    WT_CURSOR *c;
    char key[16], value[256];
    int i;

    OK(s->open_cursor(s, "table:logged", NULL, NULL, &c));
    for (i = from; i < to; i++) {
        snprintf(key, sizeof(key), "k%04d", i);
        memset(value, 'a' + i % 26, 200);
        value[200] = '\0';
        c->set_key(c, key);
        c->set_value(c, value);
        OK(c->insert(c));
    }
    OK(c->close(c));
}

/* The rows put_rows wrote, in [from, to), all there. */
static void
check_rows(WT_SESSION *s, int from, int to)
{
    WT_CURSOR *c;
    const char *v;
    char key[16];
    int i, n = 0;

    OK(s->open_cursor(s, "table:logged", NULL, NULL, &c));
    for (i = from; i < to; i++) {
        snprintf(key, sizeof(key), "k%04d", i);
        c->set_key(c, key);
        if (c->search(c) == 0 && c->get_value(c, &v) == 0 && strlen(v) == 200 && v[0] == 'a' + i % 26)
            n++;
    }
    CHECK(n == to - from);
    OK(c->close(c));
}

/*
 * log=(compressor=NAME): journal records compressed by a compressor extensions= registers;
 * after a process dies without a checkpoint, recovery reads them back with it (the replay waits
 * for extensions= to load, as the reference loads them before recovery); without it configured,
 * recovery fails with WT_ERROR; with a name no library registers, EINVAL.
 */
static void
log_compressor(const char *library)
{
    WT_CONNECTION *conn;
    WT_CURSOR *stats;
    WT_SESSION *s;
    char config[1024], plain[1024], home[512], text[512];
    const char *trace = "log_compressor.trace", *desc, *pv;
    int64_t value, before, after;
    FILE *f;
    pid_t child;
    size_t n;
    int status;

    ul_mkhome("extensions_log", home, sizeof(home));
    snprintf(config, sizeof(config), "create,statistics=(fast),log=(enabled=true,compressor=ext_rle),extensions=[\"%s\"]",
      library);
    snprintf(plain, sizeof(plain), "create,log=(enabled=true),extensions=[\"%s\"]", library);
    setenv("UL_EXT_TRACE", trace, 1);
    remove(trace);
    fflush(NULL);
    if ((child = fork()) == 0) {
        /* Writes, syncs, and dies without closing: no checkpoint holds the rows. */
        if (wiredtiger_open(home, NULL, config, &conn) != 0 || conn->open_session(conn, NULL, NULL, &s) != 0 ||
          s->create(s, "table:logged", "key_format=S,value_format=S") != 0)
            _exit(2);
        put_rows(s, 0, 100);
        if (s->log_flush(s, "sync=on") != 0)
            _exit(3);
        _exit(ul_failures == 0 ? 0 : 4);
    }
    CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);

    /* Not configured: the compressed records cannot be read. */
    conn = NULL;
    CHECK_RC(wiredtiger_open(home, &rec.iface, plain, &conn), WT_ERROR);
    CHECK(conn == NULL);
    /* A name nothing registers. */
    snprintf(text, sizeof(text), "create,log=(enabled=true,compressor=nope),extensions=[\"%s\"]", library);
    CHECK_RC(wiredtiger_open(home, &rec.iface, text, &conn), EINVAL);

    /* Recovered with the compressor; more rows, closed cleanly, reopened. */
    OK(wiredtiger_open(home, &rec.iface, config, &conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    check_rows(s, 0, 100);
    put_rows(s, 100, 150);
    /* The reference's statistics of it: 50 records compressed, to a small part of their size. */
    OK(s->open_cursor(s, "statistics:", NULL, NULL, &stats));
    stats->set_key(stats, WT_STAT_CONN_LOG_COMPRESS_WRITES);
    OK(stats->search(stats));
    OK(stats->get_value(stats, &desc, &pv, &value));
    CHECK(value == 50);
    CHECK_STR(desc, "log: log records compressed");
    stats->set_key(stats, WT_STAT_CONN_LOG_COMPRESS_MEM);
    OK(stats->search(stats));
    OK(stats->get_value(stats, &desc, &pv, &before));
    stats->set_key(stats, WT_STAT_CONN_LOG_COMPRESS_LEN);
    OK(stats->search(stats));
    OK(stats->get_value(stats, &desc, &pv, &after));
    CHECK(after > 0 && after * 4 < before);
    OK(stats->close(stats));
    OK(conn->close(conn, NULL));
    OK(wiredtiger_open(home, &rec.iface, config, &conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    check_rows(s, 0, 150);
    OK(conn->close(conn, NULL));

    text[0] = '\0';
    if ((f = fopen(trace, "r")) != NULL) {
        n = fread(text, 1, sizeof(text) - 1, f);
        text[n] = '\0';
        fclose(f);
    }
    /* The child compressed; the first reopen decompressed (recovery), then compressed. */
    CHECK(strstr(text, "rle compress") != NULL);
    CHECK(strstr(text, "rle decompress") != NULL);
    remove(trace);
    unsetenv("UL_EXT_TRACE");
    ul_rmhome(home);
}

int
main(int argc, char **argv)
{
    ul_recorder_init(&rec);
    registration();
    if (argc > 1)
        loaded(argv[1]);
    printf("extensions: %d checks, %d failures\n", ul_checks, ul_failures);
    return ul_failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
