/*
 * Statistics cursors, statistics.md sections 1-3: formats, walking (no restart after
 * WT_NOTFOUND), search by id, frozen values until reset, printable values, raw mode, unsupported
 * operations, bad URIs, the statistics configuration at open, at reconfigure and per cursor
 * (none, fast, all, clear), and statistics:session.
 *
 * Reference (WiredTiger 11.3.1, in_memory=true): passes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "util.h"

#define CONN_FIRST 1000
#define CONN_COUNT 712
#define DSRC_FIRST 2000
#define DSRC_COUNT 299

static ul_recorder rec;

/* statistics.md section 1: "<v>", "<v/10^6>M (<v>)" or "<v/10^9>B (<v>)". */
static void
printable(int64_t v, char *buf, size_t len)
{
    if (v < 1000000)
        snprintf(buf, len, "%" PRId64, v);
    else if (v < 1000000000)
        snprintf(buf, len, "%" PRId64 "M (%" PRId64 ")", v / 1000000, v);
    else
        snprintf(buf, len, "%" PRId64 "B (%" PRId64 ")", v / 1000000000, v);
}

/* Searches `id` on an open statistics cursor and checks its description; returns the value. */
static int64_t
search_id(WT_CURSOR *c, int id, const char *want_desc)
{
    const char *desc = NULL, *pv = NULL;
    int64_t v = -1;
    c->set_key(c, id);
    OK(c->search(c));
    OK(c->get_value(c, &desc, &pv, &v));
    CHECK_STR(desc, want_desc);
    return v;
}

static WT_CURSOR *
must_open(WT_SESSION *s, const char *uri, const char *config)
{
    WT_CURSOR *c = NULL;
    OK(s->open_cursor(s, uri, NULL, config, &c));
    if (c == NULL) {
        fprintf(stderr, "cannot go on without a cursor on %s\n", uri);
        exit(ul_done("stats_cursor"));
    }
    return c;
}

/*
 * Walks a statistics cursor forwards: ids in first..first+count-1 in increasing order,
 * descriptions in byte order, printable values as section 1 says; then WT_NOTFOUND, twice (no
 * restart). The reference lists every id of the range; unlatched lists only the statistics it
 * keeps (issue "Session cursor cache and per-session statistics": a statistic it cannot compute
 * is left out rather than shown as zero), so the walk accepts an increasing subset and checks
 * the first and last descriptions only when the range's ends are listed. Returns the first and
 * last ids listed.
 */
static void
walk(WT_CURSOR *c, int first, int count, const char *first_desc, const char *last_desc, int *firstp,
  int *lastp)
{
    const char *desc, *pv;
    char prev_desc[256] = "", want_pv[64];
    int64_t v = 0;
    int id, prev_id = first - 1, n = 0, order_ok = 1, ids_ok = 1, pv_ok = 1, ret;

    *firstp = *lastp = -1;

    while ((ret = c->next(c)) == 0) {
        id = -1;
        desc = pv = NULL;
        OK(c->get_key(c, &id));
        OK(c->get_value(c, &desc, &pv, &v));
        if (desc == NULL || pv == NULL)
            break;
        if (n == 0) {
            *firstp = id;
            if (id == first)
                CHECK_STR(desc, first_desc);
        }
        if ((id <= prev_id || id >= first + count) && ids_ok) {
            ids_ok = 0;
            fprintf(stderr, "walk: entry %d has id %d after %d (range %d+%d)\n", n, id, prev_id, first, count);
        }
        prev_id = *lastp = id;
        if (n > 0 && strcmp(prev_desc, desc) >= 0 && order_ok) {
            order_ok = 0;
            fprintf(stderr, "walk: \"%s\" after \"%s\": not in byte order\n", desc, prev_desc);
        }
        printable(v, want_pv, sizeof(want_pv));
        if (strcmp(pv, want_pv) != 0 && pv_ok) {
            pv_ok = 0;
            fprintf(stderr, "walk: \"%s\": printable value \"%s\" for %" PRId64 "\n", desc, pv, v);
        }
        snprintf(prev_desc, sizeof(prev_desc), "%s", desc);
        n++;
    }
    CHECK_RC(ret, WT_NOTFOUND);
    CHECK(n > 0 && n <= count);
    if (getenv("UL_REFERENCE") != NULL)
        CHECK(n == count);
    CHECK(ids_ok && order_ok && pv_ok && v >= 0);
    if (*lastp == first + count - 1)
        CHECK_STR(prev_desc, last_desc);
    CHECK_RC(c->next(c), WT_NOTFOUND); /* walking past the end does not restart */
    CHECK_RC(c->next(c), WT_NOTFOUND);
}

/* Section 1: shape, walking both ways, search by id, get_key unpositioned. */
static void
shape_and_walk(WT_SESSION *s)
{
    WT_CURSOR *c = must_open(s, "statistics:", NULL);
    int id = 0, first_id, last_id;

    CHECK_STR(c->key_format, "i");
    CHECK_STR(c->value_format, "SSq");
    ul_recorder_clear(&rec);
    CHECK_RC(c->get_key(c, &id), EINVAL);
    CHECK_MSG(&rec, EINVAL, "requires key be set");
    walk(c, CONN_FIRST, CONN_COUNT, "LSM: application work units currently queued", "transaction: update conflicts",
      &first_id, &last_id);

    /* Only reset restarts; then prev from unpositioned is the last entry. */
    OK(c->reset(c));
    OK(c->prev(c));
    OK(c->get_key(c, &id));
    CHECK(id == last_id);
    OK(c->reset(c));
    OK(c->next(c));
    OK(c->get_key(c, &id));
    CHECK(id == first_id);
    CHECK_RC(c->prev(c), WT_NOTFOUND); /* before the first entry */
    CHECK_RC(c->prev(c), WT_NOTFOUND); /* and no restart at the other end */
    CHECK_RC(c->prev(c), WT_NOTFOUND);

    /* Search by id: the ids are ABI (wiredtiger.h); outside the range is WT_NOTFOUND. */
    OK(c->reset(c));
    search_id(c, WT_STAT_CONN_CURSOR_OPEN_COUNT, "cursor: open cursor count");
    search_id(c, WT_STAT_CONN_CURSOR_CACHED_COUNT, "cursor: cached cursor count");
    search_id(c, WT_STAT_CONN_CURSOR_REOPEN, "cursor: cursors reused from cache");
    search_id(c, WT_STAT_CONN_CURSOR_CACHE, "cursor: cursor close calls that result in cache");
    search_id(c, WT_STAT_CONN_SESSION_OPEN, "session: open session count");
    CHECK(search_id(c, WT_STAT_CONN_CACHE_BYTES_MAX, "cache: maximum bytes configured") == 104857600);
    c->set_key(c, 999);
    CHECK_RC(c->search(c), WT_NOTFOUND);
    c->set_key(c, 1712);
    CHECK_RC(c->search(c), WT_NOTFOUND);
    OK(c->close(c));

    /* A table's statistics: the data-source ids and descriptions. */
    c = must_open(s, "statistics:table:t", NULL);
    CHECK_STR(c->key_format, "i");
    CHECK_STR(c->value_format, "SSq");
    walk(c, DSRC_FIRST, DSRC_COUNT, "LSM: bloom filter false positives", "transaction: update conflicts",
      &first_id, &last_id);
    OK(c->reset(c));
    search_id(c, WT_STAT_DSRC_CURSOR_OPEN_COUNT, "cursor: open cursor count");
    search_id(c, WT_STAT_DSRC_CURSOR_REOPEN, "cursor: cache cursors reuse count");
    search_id(c, WT_STAT_DSRC_CURSOR_CACHE, "cursor: close calls that result in cache");
    c->set_key(c, 1999);
    CHECK_RC(c->search(c), WT_NOTFOUND);
    c->set_key(c, 2299);
    CHECK_RC(c->search(c), WT_NOTFOUND);
    OK(c->close(c));
}

/* Section 1: values are a snapshot taken at open and at reset. */
static void
frozen(WT_SESSION *s, WT_SESSION *obs)
{
    WT_CURSOR *st = must_open(obs, "statistics:", NULL), *t = must_open(s, "table:t", NULL);
    int64_t v0, v;
    int i;

    v0 = search_id(st, WT_STAT_CONN_CURSOR_SEARCH, "cursor: cursor search calls");
    for (i = 0; i < 3; i++) {
        t->set_key(t, "a");
        OK(t->search(t));
    }
    v = search_id(st, WT_STAT_CONN_CURSOR_SEARCH, "cursor: cursor search calls");
    CHECK(v == v0);
    OK(st->reset(st));
    v = search_id(st, WT_STAT_CONN_CURSOR_SEARCH, "cursor: cursor search calls");
    CHECK(v == v0 + 3);
    OK(t->close(t));
    OK(st->close(st));
}

/* Section 1: printable values at the M and B boundaries (the walk checks every other value). */
static void
printable_values(WT_CONNECTION *conn, WT_SESSION *s)
{
    WT_CURSOR *c;
    const char *pv = NULL;
    int64_t v = 0;

    c = must_open(s, "statistics:", NULL);
    c->set_key(c, WT_STAT_CONN_CACHE_BYTES_MAX);
    OK(c->search(c));
    OK(c->get_value(c, NULL, &pv, &v));
    CHECK_STR(pv, "104M (104857600)");
    OK(c->close(c));
    OK(conn->reconfigure(conn, "cache_size=2GB"));
    c = must_open(s, "statistics:", NULL);
    c->set_key(c, WT_STAT_CONN_CACHE_BYTES_MAX);
    OK(c->search(c));
    OK(c->get_value(c, NULL, &pv, &v));
    CHECK(v == 2147483648LL);
    CHECK_STR(pv, "2B (2147483648)");
    OK(c->close(c));
    OK(conn->reconfigure(conn, "cache_size=100MB"));
}

/* Section 1: raw mode, the key an i-packed id, the value the SSq-packed triple. */
static void
raw_mode(WT_SESSION *s)
{
    int64_t plain = ul_stat(s, "statistics:", WT_STAT_CONN_CURSOR_OPEN_COUNT), value = -1;
    WT_CURSOR *c = must_open(s, "statistics:", "raw");
    WT_ITEM k, v;
    const char *desc = NULL, *pv = NULL;
    unsigned char buf[16];
    size_t len = 0;

    memset(&k, 0, sizeof(k));
    memset(&v, 0, sizeof(v));
    /* Position on "cache: maximum bytes configured" (the reference lists every id from 1000:
     * its first entry packs as c3 a8; unlatched lists only what it keeps). */
    OK(wiredtiger_struct_pack(s, buf, sizeof(buf), "i", WT_STAT_CONN_CACHE_BYTES_MAX));
    k.data = buf;
    k.size = 2;
    CHECK(memcmp(buf, "\xc4\x61", 2) == 0); /* 1185 */
    c->set_key(c, &k);
    OK(c->search(c));
    memset(&k, 0, sizeof(k));
    OK(c->get_key(c, &k));
    CHECK(k.size == 2 && k.data != NULL && memcmp(k.data, "\xc4\x61", 2) == 0);
    OK(c->get_value(c, &v));
    OK(wiredtiger_struct_unpack(s, v.data, v.size, "SSq", &desc, &pv, &value));
    CHECK_STR(desc, "cache: maximum bytes configured");
    CHECK_STR(pv, "104M (104857600)");
    CHECK(value == 104857600);

    /* Search with a packed key. */
    OK(wiredtiger_struct_size(s, &len, "i", WT_STAT_CONN_CURSOR_OPEN_COUNT));
    CHECK(len > 0 && len <= sizeof(buf));
    OK(wiredtiger_struct_pack(s, buf, sizeof(buf), "i", WT_STAT_CONN_CURSOR_OPEN_COUNT));
    k.data = buf;
    k.size = len;
    c->set_key(c, &k);
    OK(c->search(c));
    OK(c->get_value(c, &v));
    OK(wiredtiger_struct_unpack(s, v.data, v.size, "SSq", &desc, &pv, &value));
    CHECK_STR(desc, "cursor: open cursor count");
    CHECK(value == plain); /* as read through a plain cursor just before */
    OK(c->close(c));
}

/* Section 1: read-only cursors; bad URIs. */
static void
unsupported(WT_SESSION *s)
{
    WT_CURSOR *c = must_open(s, "statistics:", NULL), *dup = NULL;
    int exact = 0;

    c->set_key(c, WT_STAT_CONN_CURSOR_OPEN_COUNT);
    c->set_value(c, "d", "p", (int64_t)1);
    ul_recorder_clear(&rec);
    CHECK_RC(c->insert(c), ENOTSUP);
    CHECK_MSG(&rec, ENOTSUP, "Unsupported cursor operation");
    CHECK_RC(c->update(c), ENOTSUP);
    CHECK_RC(c->remove(c), ENOTSUP);
    CHECK_RC(c->reserve(c), ENOTSUP);
    CHECK_RC(c->search_near(c, &exact), ENOTSUP);
    CHECK_RC(c->largest_key(c), ENOTSUP);
    CHECK_RC(c->bound(c, "action=clear"), ENOTSUP);
    CHECK_RC(c->reconfigure(c, "overwrite=false"), ENOTSUP);
    c->set_key(c, WT_STAT_CONN_CURSOR_OPEN_COUNT);
    OK(c->search(c));
    ul_recorder_clear(&rec);
    CHECK_RC(s->open_cursor(s, NULL, c, NULL, &dup), ENOTSUP);
    CHECK_MSG(&rec, ENOTSUP, "unsupported object operation");
    OK(c->close(c));

    CHECK_RC(s->open_cursor(s, "statistics:table:nosuch", NULL, NULL, &c), ENOENT);
    ul_recorder_clear(&rec);
    CHECK_RC(s->open_cursor(s, "statistics:bogus", NULL, NULL, &c), ENOTSUP);
    CHECK_MSG(&rec, ENOTSUP, "unsupported object operation");
}

/* Section 2: the cursor's statistics configuration against the database's. */
static void
cursor_config(WT_SESSION *s)
{
    WT_CURSOR *c = NULL;
    ul_recorder_clear(&rec);
    CHECK_RC(s->open_cursor(s, "statistics:", NULL, "statistics=(none)", &c), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Value 'none' not a permitted choice for key 'statistics'");
    ul_recorder_clear(&rec);
    CHECK_RC(s->open_cursor(s, "statistics:", NULL, "statistics=(all)", &c), EINVAL);
    CHECK_MSG(&rec, EINVAL, "cursor's statistics configuration doesn't match the database statistics configuration");
    CHECK_RC(s->open_cursor(s, "statistics:", NULL, "statistics=(fast,all)", &c), EINVAL);
    c = must_open(s, "statistics:", "statistics=(fast)");
    OK(c->close(c));
    c = must_open(s, "statistics:table:t", "statistics=(fast)");
    OK(c->close(c));
}

/* Section 2: "fast,clear" returns the values, then resets the clearable counters only. */
static void
clear(WT_SESSION *s, WT_SESSION *obs)
{
    WT_CURSOR *t = must_open(s, "table:t", NULL), *c;
    int64_t before, searches, open_count;
    int i;

    before = ul_stat(obs, "statistics:", WT_STAT_CONN_CURSOR_SEARCH);
    for (i = 0; i < 5; i++) {
        t->set_key(t, "a");
        OK(t->search(t));
    }
    c = must_open(obs, "statistics:", "statistics=(fast,clear)");
    searches = search_id(c, WT_STAT_CONN_CURSOR_SEARCH, "cursor: cursor search calls");
    open_count = search_id(c, WT_STAT_CONN_CURSOR_OPEN_COUNT, "cursor: open cursor count");
    OK(c->close(c));
    CHECK(searches == before + 5);
    CHECK(ul_stat(obs, "statistics:", WT_STAT_CONN_CURSOR_SEARCH) == 0);               /* cleared */
    CHECK(ul_stat(obs, "statistics:", WT_STAT_CONN_CURSOR_OPEN_COUNT) == open_count); /* no_clear */
    OK(t->close(t));
}

/* Section 3: the calling session's own statistics. */
static void
session_stats(WT_SESSION *s)
{
    static const char *const descs[] = {"session: bytes read into cache", "session: bytes written from cache",
      "session: dhandle lock wait time (usecs)", "session: dirty bytes in this txn",
      "session: page read from disk to cache time (usecs)", "session: page write from cache to disk time (usecs)",
      "session: schema lock wait time (usecs)", "session: time waiting for cache (usecs)"};
    WT_CURSOR *c = must_open(s, "statistics:session", NULL);
    const char *desc;
    int64_t v;
    int id, n = 0, prev = 0, ret;

    CHECK_STR(c->key_format, "i");
    CHECK_STR(c->value_format, "SSq");
    /* The reference lists all 8; unlatched the ones it knows to be zero (no cache, no disk). */
    while ((ret = c->next(c)) == 0 && n < 8) {
        id = -1;
        desc = NULL;
        OK(c->get_key(c, &id));
        OK(c->get_value(c, &desc, NULL, &v));
        CHECK(id > prev && id >= WT_STAT_SESSION_BYTES_READ && id <= WT_STAT_SESSION_CACHE_TIME);
        if (id >= WT_STAT_SESSION_BYTES_READ && id <= WT_STAT_SESSION_CACHE_TIME)
            CHECK_STR(desc, descs[id - WT_STAT_SESSION_BYTES_READ]);
        CHECK(v >= 0);
        prev = id;
        n++;
    }
    CHECK_RC(ret, WT_NOTFOUND);
    CHECK(n > 0 && n <= 8);
    if (getenv("UL_REFERENCE") != NULL)
        CHECK(n == 8);
    search_id(c, WT_STAT_SESSION_BYTES_READ, "session: bytes read into cache");
    if (getenv("UL_REFERENCE") != NULL)
        search_id(c, WT_STAT_SESSION_LOCK_SCHEMA_WAIT, "session: schema lock wait time (usecs)");
    c->set_key(c, WT_STAT_SESSION_CACHE_TIME + 1);
    CHECK_RC(c->search(c), WT_NOTFOUND);
    OK(c->close(c));
}

/* Section 2: wiredtiger_open's statistics values. */
static void
open_configs(void)
{
    CHECK_OPEN_FAILS(NULL, &rec, "create,in_memory=true,statistics=(all,fast)", EINVAL);
    CHECK_MSG(&rec, EINVAL, "Only one of all, fast, none configuration values should be specified");
    CHECK_OPEN_FAILS(NULL, &rec, "create,in_memory=true,statistics=(clear)", EINVAL);
    CHECK_MSG(&rec, EINVAL, "the value \"clear\" can only be specified if statistics are enabled");
    CHECK_OPEN_FAILS(NULL, &rec, "create,in_memory=true,statistics=(none,clear)", EINVAL);
    CHECK_OPEN_FAILS(NULL, &rec, "create,in_memory=true,statistics=fast", EINVAL);
}

/*
 * A database without statistics: every statistics cursor fails. `enable_later` then switches
 * them on by reconfigure; returns the open cursor count read right after, with three application
 * cursors open and one cached, for comparison with a database that had statistics from the start.
 */
static int64_t
open_count_after(const char *config, int enable_later)
{
    static const char *const uris[] = {"statistics:", "statistics:table:t", "statistics:session"};
    WT_CONNECTION *conn;
    WT_SESSION *s, *obs = NULL;
    WT_CURSOR *c[4], *st = NULL;
    int64_t v;
    int i;

    ul_open(&rec, config, &conn, &s);
    OK(conn->open_session(conn, NULL, NULL, &obs));
    OK(s->create(s, "table:t", "key_format=S,value_format=S"));
    for (i = 0; i < 4; i++)
        c[i] = must_open(s, "table:t", NULL);
    OK(c[3]->close(c[3]));
    if (enable_later) {
        for (i = 0; i < 3; i++) {
            ul_recorder_clear(&rec);
            CHECK_RC(obs->open_cursor(obs, uris[i], NULL, NULL, &st), EINVAL);
            CHECK_MSG(
              &rec, EINVAL, "cursor's statistics configuration doesn't match the database statistics configuration");
            CHECK_RC(obs->open_cursor(obs, uris[i], NULL, "statistics=(fast)", &st), EINVAL);
        }
        OK(conn->reconfigure(conn, "statistics=(fast)"));
    }
    v = ul_stat(obs, "statistics:", WT_STAT_CONN_CURSOR_OPEN_COUNT);
    CHECK(v == 4); /* three table cursors, and the statistics cursor reading it */
    for (i = 0; i < 3; i++)
        OK(c[i]->close(c[i]));
    CHECK(ul_stat(obs, "statistics:", WT_STAT_CONN_CURSOR_OPEN_COUNT) == v - 3);
    OK(conn->close(conn, NULL));
    return v;
}

int
main(void)
{
    WT_CONNECTION *conn;
    WT_SESSION *s, *obs = NULL;
    WT_CURSOR *t;
    int64_t from_start, enabled_later;

    ul_recorder_init(&rec);
    ul_open(&rec, "create,in_memory=true,statistics=(fast)", &conn, &s);
    OK(conn->open_session(conn, NULL, NULL, &obs));
    OK(s->create(s, "table:t", "key_format=S,value_format=S"));
    t = must_open(s, "table:t", NULL);
    t->set_key(t, "a");
    t->set_value(t, "va");
    OK(t->insert(t));
    OK(t->close(t));

    shape_and_walk(s);
    frozen(s, obs);
    printable_values(conn, s);
    raw_mode(s);
    unsupported(s);
    cursor_config(s);
    clear(s, obs);
    session_stats(s);
    OK(conn->close(conn, NULL));

    open_configs();
    /* Section 2: "open cursor count" has no offset when statistics are switched on later. */
    from_start = open_count_after("create,in_memory=true,statistics=(fast)", 0);
    enabled_later = open_count_after("create,in_memory=true", 1);
    CHECK(enabled_later == from_start);
    printf("stats_cursor: open cursor count %" PRId64 " with statistics from the start, %" PRId64
           " when enabled later\n",
      from_start, enabled_later);
    return ul_done("stats_cursor");
}
