/*
 * A compressor the program supplies (WT_CONNECTION::add_compressor, block_compressor= at
 * create), checked against WiredTiger 11.3.1's behaviour:
 * - a table larger than cache_size: its pages are compressed when written (checkpoints,
 *   eviction) and decompressed when read back (a scan of every row after the cache dropped
 *   them); its file is much smaller than the same rows' without compression; verify answers 0;
 *   the table's compression statistics move; metadata: names the compressor;
 * - the compressor's terminate runs once at close;
 * - reopened with the compressor registered again: every row reads back;
 * - reopened without it: open_cursor and verify are EINVAL "unknown compressor 'rle'", as the
 *   reference; registered then, the table opens;
 * - a compress error fails the checkpoint with its code (the reference answers the code, or
 *   panics); the next checkpoint succeeds;
 * - a decompress error is WT_ERROR naming the file and offset (the reference panics);
 * - in memory the compressor is accepted and never called, as the reference; an unregistered
 *   name is EINVAL at create, and in log=(compressor=) at wiredtiger_open.
 *
 * Runs against the reference too (UL_REFERENCE=1).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>

#include "util.h"

#define ROWS 20000

static ul_recorder rec;
static char home[256];
static int n_compress, n_decompress, n_pre_size, n_terminate, fail_compress, fail_decompress;

/* Run-length coding: the source length (8 bytes), then (run, byte) pairs. */
static int
rle_compress(WT_COMPRESSOR *compressor, WT_SESSION *session, uint8_t *src, size_t src_len, uint8_t *dst,
  size_t dst_len, size_t *result_lenp, int *compression_failed)
{
    uint64_t len = src_len;
    size_t i, j, out;

    (void)compressor;
    (void)session;
    n_compress++;
    if (fail_compress)
        return (fail_compress);
    if (dst_len < sizeof(len)) {
        *compression_failed = 1;
        return (0);
    }
    memcpy(dst, &len, sizeof(len));
    out = sizeof(len);
    for (i = 0; i < src_len; i = j) {
        for (j = i; j < src_len && src[j] == src[i] && j - i < 255; j++)
            ;
        if (out + 2 > dst_len) {
            *compression_failed = 1;
            return (0);
        }
        dst[out++] = (uint8_t)(j - i);
        dst[out++] = src[i];
    }
    *result_lenp = out;
    return (0);
}

static int
rle_decompress(WT_COMPRESSOR *compressor, WT_SESSION *session, uint8_t *src, size_t src_len, uint8_t *dst,
  size_t dst_len, size_t *result_lenp)
{
    uint64_t len;
    size_t i, out = 0;

    (void)compressor;
    (void)session;
    n_decompress++;
    if (fail_decompress)
        return (fail_decompress);
    if (src_len < sizeof(len))
        return (EINVAL);
    memcpy(&len, src, sizeof(len));
    if (len > dst_len)
        return (EINVAL);
    /* src_len may include padding after the pairs (the reference passes the whole block). */
    for (i = sizeof(len); out < len && i + 1 < src_len; i += 2) {
        if (out + src[i] > dst_len)
            return (EINVAL);
        memset(dst + out, src[i + 1], src[i]);
        out += src[i];
    }
    *result_lenp = out;
    return (0);
}

/* The output is at most twice the input, plus the length. */
static int
rle_pre_size(WT_COMPRESSOR *compressor, WT_SESSION *session, uint8_t *src, size_t src_len, size_t *result_lenp)
{
    (void)compressor;
    (void)session;
    (void)src;
    n_pre_size++;
    *result_lenp = 2 * src_len + 8;
    return (0);
}

static int
rle_terminate(WT_COMPRESSOR *compressor, WT_SESSION *session)
{
    (void)compressor;
    (void)session;
    n_terminate++;
    return (0);
}

static WT_COMPRESSOR rle = {rle_compress, rle_decompress, rle_pre_size, rle_terminate};

static void
value_of(int i, char *value, size_t len)
{
    memset(value, 'a' + i % 26, len - 1);
    value[len - 1] = '\0';
}

static void
put_rows(WT_SESSION *s, const char *uri)
{
    WT_CURSOR *c;
    char key[32], value[200];
    int i;
    OK(s->open_cursor(s, uri, NULL, NULL, &c));
    for (i = 0; i < ROWS; i++) {
        snprintf(key, sizeof(key), "k%06d", i);
        value_of(i, value, sizeof(value));
        c->set_key(c, key);
        c->set_value(c, value);
        OK(c->insert(c));
    }
    OK(c->close(c));
}

/* Every row reads back, in order. */
static void
check_rows(WT_SESSION *s, const char *uri)
{
    WT_CURSOR *c;
    const char *k, *v;
    char key[32], value[200];
    int i = 0, ret, bad = 0;
    OK(s->open_cursor(s, uri, NULL, NULL, &c));
    while ((ret = c->next(c)) == 0) {
        snprintf(key, sizeof(key), "k%06d", i);
        value_of(i, value, sizeof(value));
        OK(c->get_key(c, &k));
        OK(c->get_value(c, &v));
        if (strcmp(k, key) != 0 || strcmp(v, value) != 0)
            bad++;
        i++;
    }
    CHECK(ret == WT_NOTFOUND);
    CHECK(i == ROWS);
    CHECK(bad == 0);
    OK(c->close(c));
}

static void
open_home(WT_CONNECTION **connp, WT_SESSION **sp, int registered)
{
    OK(wiredtiger_open(home, &rec.iface, "create,cache_size=1MB,statistics=(all)", connp));
    if (registered)
        OK((*connp)->add_compressor(*connp, "rle", &rle, NULL));
    OK((*connp)->open_session(*connp, NULL, NULL, sp));
}

static void
compressed_table(void)
{
    WT_CONNECTION *conn;
    WT_CURSOR *c;
    WT_SESSION *s;
    const char *value;
    int64_t compressed_size, plain_size;

    ul_mkhome("compress", home, sizeof(home));
    open_home(&conn, &s, 1);
    OK(s->create(s, "table:t", "key_format=S,value_format=S,block_compressor=rle"));
    OK(s->create(s, "table:plain", "key_format=S,value_format=S"));
    put_rows(s, "table:t");
    put_rows(s, "table:plain");
    OK(s->checkpoint(s, NULL));
    CHECK(n_compress > 0);
    CHECK(n_pre_size == n_compress);
    /* 20,000 rows of 200 bytes (4 MB) against a 1 MB cache: pages are read back. */
    n_decompress = 0;
    check_rows(s, "table:t");
    CHECK(n_decompress > 0);
    OK(s->verify(s, "table:t", NULL));

    compressed_size = ul_stat(s, "statistics:table:t", WT_STAT_DSRC_BLOCK_SIZE);
    plain_size = ul_stat(s, "statistics:table:plain", WT_STAT_DSRC_BLOCK_SIZE);
    CHECK(compressed_size > 0 && compressed_size * 4 < plain_size);
    CHECK(ul_stat(s, "statistics:table:t", WT_STAT_DSRC_COMPRESS_WRITE) > 0);
    CHECK(ul_stat(s, "statistics:table:t", WT_STAT_DSRC_COMPRESS_READ) > 0);

    OK(s->open_cursor(s, "metadata:", NULL, NULL, &c));
    c->set_key(c, "file:t.wt");
    OK(c->search(c));
    OK(c->get_value(c, &value));
    CHECK(strstr(value, "block_compressor=rle,") != NULL);
    OK(c->close(c));

    /*
     * A compress error fails the write with its code. (The reference answered a checkpoint with
     * the code in one run and with WT_PANIC in this one: not compared.)
     */
    if (!ul_reference()) {
        put_rows(s, "table:t");
        OK(s->begin_transaction(s, NULL));
        OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
        c->set_key(c, "k000001");
        c->set_value(c, "changed");
        OK(c->update(c));
        OK(c->close(c));
        OK(s->commit_transaction(s, NULL));
        fail_compress = EIO;
        CHECK_RC(s->checkpoint(s, NULL), EIO);
        fail_compress = 0;
        OK(s->checkpoint(s, NULL));
        OK(s->verify(s, "table:t", NULL));
        OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
        c->set_key(c, "k000001");
        {
            char original[200];
            /* Back to what check_rows expects. */
            value_of(1, original, sizeof(original));
            c->set_value(c, original);
        }
        OK(c->update(c));
        OK(c->close(c));
        OK(s->checkpoint(s, NULL));
    }

    n_terminate = 0;
    OK(conn->close(conn, NULL));
    CHECK(n_terminate == 1);

    /* Reopened with the compressor. */
    open_home(&conn, &s, 1);
    n_decompress = 0;
    check_rows(s, "table:t");
    CHECK(n_decompress > 0);
    OK(s->verify(s, "table:t", NULL));
    OK(conn->close(conn, NULL));

    /* Reopened without it: the reference's error at the table's first use. */
    open_home(&conn, &s, 0);
    ul_recorder_clear(&rec);
    c = NULL;
    CHECK_RC(s->open_cursor(s, "table:t", NULL, NULL, &c), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown compressor 'rle'");
    CHECK(c == NULL);
    CHECK_RC(s->verify(s, "table:t", NULL), EINVAL);
    /* The other table reads as ever. */
    OK(s->open_cursor(s, "table:plain", NULL, NULL, &c));
    OK(c->close(c));
    OK(conn->add_compressor(conn, "rle", &rle, NULL));
    /* Registered now: the table opens. */
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    OK(c->close(c));
    OK(conn->close(conn, NULL));

    /* A decompress error: WT_ERROR naming the file and offset (the reference panics). */
    if (!ul_reference()) {
        open_home(&conn, &s, 1);
        fail_decompress = EIO;
        ul_recorder_clear(&rec);
        OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
        c->set_key(c, "k010000");
        CHECK_RC(c->search(c), WT_ERROR);
        CHECK_MSG(&rec, WT_ERROR, "offset ");
        CHECK(ul_message_has(&rec, "decompression failed"));
        fail_decompress = 0;
        OK(c->search(c));
        OK(c->close(c));
        OK(conn->close(conn, NULL));
    }
    ul_rmhome(home);
}

static void
in_memory(void)
{
    WT_CONNECTION *conn;
    WT_CURSOR *c;
    WT_SESSION *s;

    ul_open(&rec, "create,in_memory=true", &conn, &s);
    ul_recorder_clear(&rec);
    CHECK_RC(s->create(s, "table:u", "key_format=S,value_format=S,block_compressor=rle"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown compressor 'rle'");
    OK(conn->add_compressor(conn, "rle", &rle, NULL));
    OK(s->create(s, "table:u", "key_format=S,value_format=S,block_compressor=rle"));
    n_compress = n_decompress = 0;
    put_rows(s, "table:u");
    OK(s->open_cursor(s, "table:u", NULL, NULL, &c));
    c->set_key(c, "k000100");
    OK(c->search(c));
    OK(c->close(c));
    OK(conn->close(conn, NULL));
    CHECK(n_compress == 0 && n_decompress == 0);

    /* log=(compressor=) names a compressor registered by then (extensions=), as the reference. */
    ul_recorder_clear(&rec);
    CHECK_OPEN_FAILS(NULL, &rec, "create,in_memory=true,log=(compressor=rle)", EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown compressor 'rle'");
}

int
main(void)
{
    ul_recorder_init(&rec);
    compressed_table();
    in_memory();
    return ul_done("compress");
}
