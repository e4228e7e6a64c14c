/*
 * WT_CURSOR::modify, reserve and largest_key as a program uses them, in memory and on disk
 * (where the stored value comes from the tree file after a checkpoint): the reference's rules
 * and error codes (modify only for S and u values, in explicit snapshot transactions; padding
 * with spaces or NULs; reserve only in a running transaction, conflicting with other writers),
 * the position each leaves, and the statistics they count.
 */
#include <errno.h>
#include <stdlib.h>

#include "util.h"

static ul_recorder rec;

static void
value_is(WT_CURSOR *c, const char *want)
{
    const char *v = NULL;
    OK(c->get_value(c, &v));
    CHECK_STR(v, want);
}

static void
modify_m(WT_MODIFY *m, const char *data, size_t offset, size_t size)
{
    memset(m, 0, sizeof(*m));
    m->data.data = data;
    m->data.size = strlen(data);
    m->offset = offset;
    m->size = size;
}

static void
run(WT_CONNECTION *conn, int on_disk)
{
    WT_SESSION *s, *s2, *obs;
    WT_CURSOR *c, *c2, *cu, *cq;
    WT_MODIFY m[2];
    WT_ITEM item;
    const char *k;
    int64_t before[4], after[4];
    static const int ids[] = {WT_STAT_CONN_CURSOR_MODIFY, WT_STAT_CONN_CURSOR_MODIFY_ERROR,
      WT_STAT_CONN_CURSOR_RESERVE, WT_STAT_CONN_CURSOR_MODIFY_BYTES_TOUCH};

    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(conn->open_session(conn, NULL, NULL, &s2));
    OK(conn->open_session(conn, NULL, NULL, &obs));
    OK(s->create(s, "table:t", "key_format=S,value_format=S"));
    OK(s->create(s, "table:u", "key_format=S,value_format=u"));
    OK(s->create(s, "table:q", "key_format=S,value_format=Q"));
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    OK(s2->open_cursor(s2, "table:t", NULL, NULL, &c2));
    OK(s->open_cursor(s, "table:u", NULL, NULL, &cu));
    OK(s->open_cursor(s, "table:q", NULL, NULL, &cq));
    c->set_key(c, "a");
    c->set_value(c, "hello world");
    OK(c->insert(c));
    c->set_key(c, "b");
    c->set_value(c, "bee");
    OK(c->insert(c));
    memset(&item, 0, sizeof(item));
    item.data = "ab";
    item.size = 2;
    cu->set_key(cu, "k");
    cu->set_value(cu, &item);
    OK(cu->insert(cu));
    if (on_disk)
        OK(s->checkpoint(s, NULL)); /* the values now come from the tree files */
    OK(ul_stats_read(obs, "statistics:", "before", ids, 4, before));

    /* Where modify is refused. */
    modify_m(&m[0], "HELLO", 0, 5);
    c->set_key(c, "a");
    CHECK_RC(c->modify(c, m, 1), ENOTSUP); /* no explicit transaction */
    OK(s->begin_transaction(s, "isolation=read-committed"));
    c->set_key(c, "a");
    CHECK_RC(c->modify(c, m, 1), ENOTSUP);
    OK(s->rollback_transaction(s, NULL));

    OK(s->begin_transaction(s, NULL));
    c->set_key(c, "a");
    ul_recorder_clear(&rec);
    CHECK_RC(c->modify(c, m, 0), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Illegal modify vector with 0 entries");
    OK(s->rollback_transaction(s, NULL)); /* the error doomed it */

    OK(s->begin_transaction(s, NULL));
    c->set_key(c, "a");
    OK(c->modify(c, m, 1));
    value_is(c, "HELLO world");
    OK(c->get_key(c, &k));
    CHECK_STR(k, "a");
    OK(c->next(c)); /* the cursor is on the record */
    OK(c->get_key(c, &k));
    CHECK_STR(k, "b");
    /* Past the end: spaces up to the offset; entries apply in order. */
    modify_m(&m[0], "XY", 14, 0);
    c->set_key(c, "a");
    OK(c->modify(c, m, 1));
    value_is(c, "HELLO world   XY");
    modify_m(&m[0], "--", 0, 0);
    modify_m(&m[1], "!", 5, 100);
    c->set_key(c, "b");
    OK(c->modify(c, m, 2));
    value_is(c, "--bee!");
    c->set_key(c, "zz");
    CHECK_RC(c->modify(c, m, 1), WT_NOTFOUND);
    /* Raw values pad with NULs. */
    modify_m(&m[0], "Z", 4, 0);
    cu->set_key(cu, "k");
    OK(cu->modify(cu, m, 1));
    OK(cu->get_value(cu, &item));
    CHECK(item.size == 5 && memcmp(item.data, "ab\0\0Z", 5) == 0);
    OK(s->commit_transaction(s, NULL));
    c->set_key(c, "a");
    OK(c->search(c));
    value_is(c, "HELLO world   XY");
    OK(c->reset(c));

    /* Other value formats: ENOTSUP, which dooms the transaction as the reference's does. */
    cq->set_key(cq, "x");
    cq->set_value(cq, (uint64_t)7);
    OK(cq->insert(cq));
    OK(s->begin_transaction(s, NULL));
    cq->set_key(cq, "y");
    cq->set_value(cq, (uint64_t)8);
    OK(cq->insert(cq));
    cq->set_key(cq, "x");
    ul_recorder_clear(&rec);
    CHECK_RC(cq->modify(cq, m, 1), ENOTSUP);
    CHECK_MSG(&rec, ENOTSUP, "only supported for 'S' and 'u' value formats");
    CHECK_RC(s->commit_transaction(s, NULL), EINVAL); /* rolled back: "y" is not there */
    cq->set_key(cq, "y");
    CHECK_RC(cq->search(cq), WT_NOTFOUND);

    OK(ul_stats_read(obs, "statistics:", "after", ids, 4, after));
    CHECK(after[0] - before[0] == 9); /* modify calls, failed ones included */
    CHECK(after[1] - before[1] == 4); /* the refusals (WT_NOTFOUND is not an error) */
    CHECK(after[3] - before[3] == 5 + 2 + 3 + 1); /* bytes of the successful entries */

    /* reserve: only in a running transaction; claims the record against other writers. */
    c->set_key(c, "a");
    CHECK_RC(c->reserve(c), EINVAL);
    OK(s->begin_transaction(s, NULL));
    c->set_key(c, "a");
    OK(c->reserve(c));
    value_is(c, "HELLO world   XY");
    c->set_key(c, "nope");
    CHECK_RC(c->reserve(c), WT_NOTFOUND);
    OK(s2->begin_transaction(s2, NULL));
    c2->set_key(c2, "a");
    c2->set_value(c2, "other");
    CHECK_RC(c2->update(c2), WT_ROLLBACK);
    OK(s2->rollback_transaction(s2, NULL));
    OK(s->commit_transaction(s, NULL));
    c->set_key(c, "a");
    OK(c->search(c));
    value_is(c, "HELLO world   XY"); /* committed, the claim changed nothing */
    OK(c->reset(c));
    OK(ul_stats_read(obs, "statistics:", "reserve", ids, 4, after));
    CHECK(after[2] - before[2] == 3);

    /* largest_key: the largest key whatever its visibility; no position, no value. */
    if (on_disk) {
        OK(s->checkpoint(s, NULL));
        c->set_key(c, "c"); /* now in memory beside a tree holding a and b */
        c->set_value(c, "sea");
        OK(c->insert(c));
    }
    OK(c->largest_key(c));
    OK(c->get_key(c, &k));
    CHECK_STR(k, on_disk ? "c" : "b");
    CHECK_RC(c->get_value(c, &k), EINVAL);
    OK(c->next(c)); /* unpositioned: next starts from the first record */
    OK(c->get_key(c, &k));
    CHECK_STR(k, "a");
    OK(s2->begin_transaction(s2, NULL));
    c2->set_key(c2, "zzz");
    c2->set_value(c2, "uncommitted");
    OK(c2->insert(c2));
    OK(c->reset(c));
    OK(c->largest_key(c));
    OK(c->get_key(c, &k));
    CHECK_STR(k, "zzz"); /* another transaction's uncommitted key counts */
    OK(s2->rollback_transaction(s2, NULL));
    OK(s->create(s, "table:empty", "key_format=S,value_format=S"));
    {
        WT_CURSOR *e;
        OK(s->open_cursor(s, "table:empty", NULL, NULL, &e));
        CHECK_RC(e->largest_key(e), WT_NOTFOUND);
        OK(e->close(e));
    }
    OK(s->close(s, NULL));
    OK(s2->close(s2, NULL));
    OK(obs->close(obs, NULL));
}

int
main(void)
{
    ul_recorder_init(&rec);
    return ul_memory_and_disk("cursor_edits", &rec, "statistics=(all)", run, NULL);
}
