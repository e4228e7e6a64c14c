/*
 * WT_SESSION::verify and WT_SESSION::compact on an on-disk table, and the paged store's
 * statistics, through the C API:
 * - 20,000 rows, a checkpoint: verify answers 0; blocks written, pages written and checkpoints
 *   moved; the table reports its depth and (statistics=(all)) its leaf and internal pages;
 * - 80% of the rows removed, a checkpoint, compact: the table's file shrinks by more than half,
 *   every remaining row reads back, verify answers 0, and again after reopening;
 * - after reopening, a scan reads pages into the cache (pages read, blocks and bytes read);
 * - a flipped byte in a leaf: verify answers WT_TRY_SALVAGE, its message naming the table's file
 *   and the block's offset; an unknown table is ENOENT;
 * - in memory, verify is ENOTSUP ("not supported for in-memory configurations") and compact
 *   does nothing (0), as in the reference.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "util.h"

#define ROWS 20000

static char home[256], file[512];

static long
file_size(void)
{
    struct stat st;
    return stat(file, &st) == 0 ? (long)st.st_size : -1;
}

static void
put_rows(WT_SESSION *s)
{
    WT_CURSOR *c;
    char key[32], value[256];
    int i;
    memset(value, 'v', sizeof(value) - 1);
    value[sizeof(value) - 1] = '\0';
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    for (i = 0; i < ROWS; i++) {
        snprintf(key, sizeof(key), "k%06d", i);
        c->set_key(c, key);
        c->set_value(c, value);
        OK(c->insert(c));
    }
    OK(c->close(c));
}

/* Every fifth row is there, the others are not. */
static void
check_rows(WT_SESSION *s)
{
    WT_CURSOR *c;
    char key[32];
    int i, n = 0;
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    while (c->next(c) == 0)
        n++;
    CHECK(n == ROWS / 5);
    for (i = 0; i < ROWS; i += 37) {
        snprintf(key, sizeof(key), "k%06d", i);
        c->set_key(c, key);
        CHECK_RC(c->search(c), i % 5 == 0 ? 0 : WT_NOTFOUND);
    }
    OK(c->close(c));
}

int
main(void)
{
    ul_recorder r;
    WT_CONNECTION *conn;
    WT_SESSION *s;
    WT_CURSOR *c;
    char key[32];
    long before, after;
    int i;
    FILE *f;

    ul_mkhome("verify-compact", home, sizeof(home));
    snprintf(file, sizeof(file), "%s/unlatched.table.1", home);
    ul_recorder_init(&r);
    OK(wiredtiger_open(home, &r.iface, "create,statistics=(all)", &conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->create(s, "table:t", "key_format=S,value_format=S"));
    put_rows(s);
    CHECK(ul_stat(s, "statistics:", WT_STAT_CONN_CACHE_BYTES_DIRTY) > 0);
    OK(s->checkpoint(s, NULL));
    OK(s->verify(s, "table:t", NULL));
    CHECK(ul_stat(s, "statistics:", WT_STAT_CONN_BLOCK_WRITE) > 0);
    CHECK(ul_stat(s, "statistics:", WT_STAT_CONN_BLOCK_BYTE_WRITE) > 0);
    CHECK(ul_stat(s, "statistics:", WT_STAT_CONN_CACHE_WRITE) > 0);
    CHECK(ul_stat(s, "statistics:", WT_STAT_CONN_CHECKPOINTS_TOTAL_SUCCEED) == 1);
    CHECK(ul_stat(s, "statistics:table:t", WT_STAT_DSRC_BTREE_MAXIMUM_DEPTH) >= 2);
    CHECK(ul_stat(s, "statistics:table:t", WT_STAT_DSRC_BTREE_ROW_LEAF) > 1);
    CHECK(ul_stat(s, "statistics:table:t", WT_STAT_DSRC_BTREE_ROW_INTERNAL) >= 1);
    CHECK(ul_stat(s, "statistics:table:t", WT_STAT_DSRC_BLOCK_SIZE) == file_size());

    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    for (i = 0; i < ROWS; i++) {
        if (i % 5 == 0)
            continue;
        snprintf(key, sizeof(key), "k%06d", i);
        c->set_key(c, key);
        OK(c->remove(c));
    }
    OK(c->close(c));
    OK(s->checkpoint(s, NULL));
    before = file_size();
    OK(s->compact(s, "table:t", NULL));
    after = file_size();
    printf("verify_compact: the table's file went from %ld to %ld bytes\n", before, after);
    CHECK(after > 0 && after * 2 < before);
    check_rows(s);
    OK(s->verify(s, "table:t", NULL));
    CHECK_RC(s->verify(s, "table:nope", NULL), ENOENT);
    CHECK_RC(s->compact(s, "table:nope", NULL), ENOENT);
    /* Salvage of a table that verifies: nothing to do. The reference's errors otherwise. */
    OK(s->salvage(s, "table:t", NULL));
    OK(s->salvage(s, "table:t", "force=true"));
    CHECK_RC(s->salvage(s, "table:nope", NULL), ENOENT);
    ul_recorder_clear(&r);
    CHECK_RC(s->salvage(s, "table:t", "bogus=1"), EINVAL);
    CHECK_MSG(&r, EINVAL, "unknown configuration key 'bogus'");
    {
        WT_CURSOR *open;
        OK(s->open_cursor(s, "table:t", NULL, NULL, &open));
        CHECK_RC(s->salvage(s, "table:t", NULL), EBUSY);
        OK(open->close(open));
    }
    check_rows(s);
    OK(conn->close(conn, NULL));

    /* Reopened: the compacted file verifies, and a scan reads its pages. */
    OK(wiredtiger_open(home, &r.iface, "statistics=(fast)", &conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->verify(s, "table:t", NULL));
    {
        int64_t read0 = ul_stat(s, "statistics:", WT_STAT_CONN_CACHE_READ);
        check_rows(s);
        CHECK(ul_stat(s, "statistics:", WT_STAT_CONN_CACHE_READ) > read0);
        CHECK(ul_stat(s, "statistics:", WT_STAT_CONN_BLOCK_READ) > 0);
        CHECK(ul_stat(s, "statistics:", WT_STAT_CONN_BLOCK_BYTE_READ) > 0);
        CHECK(ul_stat(s, "statistics:", WT_STAT_CONN_CACHE_BYTES_INUSE) > 0);
    }
    OK(conn->close(conn, NULL));

    /* A flipped byte in the first leaf (the block after the file's header). */
    CHECK((f = fopen(file, "r+b")) != NULL);
    if (f != NULL) {
        int ch;
        fseek(f, 4096 + 64, SEEK_SET);
        ch = fgetc(f);
        fseek(f, 4096 + 64, SEEK_SET);
        fputc(ch ^ 0x5a, f);
        fclose(f);
    }
    OK(wiredtiger_open(home, &r.iface, NULL, &conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    ul_recorder_clear(&r);
    CHECK_RC(s->verify(s, "table:t", NULL), WT_TRY_SALVAGE);
    CHECK_MSG(&r, WT_TRY_SALVAGE, "unlatched.table.1");
    CHECK_MSG(&r, WT_TRY_SALVAGE, "offset 4096");
    /* Rebuilding a damaged file is not done yet: salvage says so. */
    ul_recorder_clear(&r);
    CHECK_RC(s->salvage(s, "table:t", NULL), ENOTSUP);
    CHECK_MSG(&r, ENOTSUP, "salvage of a damaged table is not supported yet");
    OK(conn->close(conn, NULL));
    ul_rmhome(home);

    /* In memory: verify is ENOTSUP, compact ignored, as in the reference. */
    ul_open(&r, "create,in_memory=true", &conn, &s);
    OK(s->create(s, "table:m", "key_format=S,value_format=S"));
    ul_recorder_clear(&r);
    CHECK_RC(s->verify(s, "table:m", NULL), ENOTSUP);
    CHECK_MSG(&r, ENOTSUP, "not supported for in-memory configurations");
    ul_recorder_clear(&r);
    CHECK_RC(s->salvage(s, "table:m", NULL), ENOTSUP);
    CHECK_MSG(&r, ENOTSUP, "not supported for in-memory configurations");
    OK(s->compact(s, "table:m", NULL));
    OK(conn->close(conn, NULL));
    return ul_done("verify_compact");
}
