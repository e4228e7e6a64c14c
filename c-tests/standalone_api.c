/*
 * The library functions outside any handle, as a program uses them: the configuration parser
 * (next, get with dotted keys, nested groups, syntax errors), wiredtiger_config_validate, the
 * CRC32C functions, wiredtiger_calc_modify (the modifications rebuild the new value) and the
 * streaming pack API (round trip, type mismatches, no room, past the last field). Each bad input
 * gets its error code, and a message where the call reports one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "util.h"

#define INMEM "create,in_memory=true"

static ul_recorder rec;
static WT_SESSION *session;

static void
item_is(const WT_CONFIG_ITEM *item, const char *text, WT_CONFIG_ITEM_TYPE type, int64_t val)
{
    CHECK(item->len == strlen(text) && memcmp(item->str, text, item->len) == 0);
    CHECK(item->type == type);
    CHECK(item->val == val);
}

static void
config_parser(void)
{
    const char *config = "path=/dev/loop,page_size=1024,log=(file_max=20MB,remove=true),q=\"a b\",flag";
    WT_CONFIG_PARSER *p, *sub;
    WT_CONFIG_ITEM k, v;
    int n = 0;

    OK(wiredtiger_config_parser_open(session, config, strlen(config), &p));
    OK(p->next(p, &k, &v));
    item_is(&k, "path", WT_CONFIG_ITEM_ID, 0);
    item_is(&v, "/dev/loop", WT_CONFIG_ITEM_ID, 1);
    OK(p->next(p, &k, &v));
    item_is(&v, "1024", WT_CONFIG_ITEM_NUM, 1024);
    OK(p->next(p, &k, &v));
    item_is(&v, "(file_max=20MB,remove=true)", WT_CONFIG_ITEM_STRUCT, 1);
    /* A group is walked with a parser of its own. */
    OK(wiredtiger_config_parser_open(session, v.str, v.len, &sub));
    while (sub->next(sub, &k, &v) == 0)
        n++;
    CHECK(n == 2);
    OK(sub->close(sub));
    OK(p->next(p, &k, &v));
    item_is(&v, "a b", WT_CONFIG_ITEM_STRING, 1);
    OK(p->next(p, &k, &v));
    item_is(&k, "flag", WT_CONFIG_ITEM_ID, 0);
    item_is(&v, "", WT_CONFIG_ITEM_BOOL, 1);
    CHECK_RC(p->next(p, &k, &v), WT_NOTFOUND);
    CHECK_RC(p->next(p, &k, &v), WT_NOTFOUND);

    /* get looks up the whole string, wherever next stands. */
    OK(p->get(p, "log.file_max", &v));
    item_is(&v, "20MB", WT_CONFIG_ITEM_NUM, 20 * 1024 * 1024);
    OK(p->get(p, "log.remove", &v));
    item_is(&v, "true", WT_CONFIG_ITEM_BOOL, 1);
    CHECK_RC(p->get(p, "log.nope", &v), WT_NOTFOUND);
    CHECK_RC(p->get(p, "nope", &v), WT_NOTFOUND);
    OK(p->close(p));

    /* Only `len` bytes count; NULL with no length is an empty string. */
    OK(wiredtiger_config_parser_open(session, "a=1,b=2", 3, &p));
    OK(p->next(p, &k, &v));
    CHECK_RC(p->next(p, &k, &v), WT_NOTFOUND);
    CHECK_RC(p->get(p, "b", &v), WT_NOTFOUND);
    OK(p->close(p));
    OK(wiredtiger_config_parser_open(session, NULL, 0, &p));
    CHECK_RC(p->next(p, &k, &v), WT_NOTFOUND);
    OK(p->close(p));

    /* Syntax errors come from next, with the reference's text. */
    ul_recorder_clear(&rec);
    OK(wiredtiger_config_parser_open(session, "a=(b=1", 6, &p));
    CHECK_RC(p->next(p, &k, &v), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Error parsing 'a=(b=1' at offset 6: Unbalanced brackets");
    OK(p->close(p));
    CHECK_RC(wiredtiger_config_parser_open(session, NULL, 4, &p), EINVAL);
    CHECK_RC(wiredtiger_config_parser_open(session, "a", 1, NULL), EINVAL);
}

static void
config_validate(void)
{
    OK(wiredtiger_config_validate(session, NULL, "WT_SESSION.create", "allocation_size=32KB,key_format=S"));
    OK(wiredtiger_config_validate(NULL, &rec.iface, "wiredtiger_open", "cache_size=1MB"));
    OK(wiredtiger_config_validate(session, NULL, "WT_SESSION.rename", "anything=1"));
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_config_validate(session, NULL, "WT_SESSION.create", "bogus=1"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown configuration key 'bogus'");
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_config_validate(NULL, &rec.iface, "WT_FOO.bar", "a=1"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown or unsupported configuration API: WT_FOO.bar");
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_config_validate(session, NULL, "WT_SESSION.create", NULL), EINVAL);
    CHECK_MSG(&rec, EINVAL, "no configuration specified");
}

static void
checksums(void)
{
    uint32_t (*crc)(const void *, size_t) = wiredtiger_crc32c_func();
    uint32_t (*crc_seed)(uint32_t, const void *, size_t) = wiredtiger_crc32c_with_seed_func();
    CHECK(crc("123456789", 9) == 0xe3069283u); /* the CRC-32C check value */
    CHECK(crc("", 0) == 0);
    CHECK(crc_seed(crc("1234", 4), "56789", 5) == 0xe3069283u);
    CHECK(crc_seed(0, "123456789", 9) == 0xe3069283u);
}

/* Applies `n` modifications to `old` (as WT_CURSOR::modify would) into `out`. */
static size_t
apply(const char *old, size_t old_len, const WT_MODIFY *m, int n, char *out)
{
    size_t len = old_len;
    memcpy(out, old, old_len);
    for (int i = 0; i < n; i++) {
        memmove(out + m[i].offset + m[i].data.size, out + m[i].offset + m[i].size, len - m[i].offset - m[i].size);
        memcpy(out + m[i].offset, m[i].data.data, m[i].data.size);
        len = len - m[i].size + m[i].data.size;
    }
    return len;
}

static void
calc_modify(void)
{
    char old[200], new_[220], out[400];
    WT_MODIFY m[4];
    WT_ITEM o = {0}, nv = {0};
    int n;

    for (int i = 0; i < 200; i++)
        old[i] = (char)('a' + i % 26);
    memcpy(new_, old, 200);
    memcpy(new_ + 50, "CHANGED", 7);
    o.data = old;
    o.size = 200;
    nv.data = new_;
    nv.size = 210; /* ten more bytes at the end */
    memcpy(new_ + 200, "0123456789", 10);
    n = 4;
    OK(wiredtiger_calc_modify(session, &o, &nv, 100, m, &n));
    CHECK(n >= 1 && n <= 4);
    CHECK(apply(old, 200, m, n, out) == 210 && memcmp(out, new_, 210) == 0);
    /* More changed bytes than maxdiff, no room for an entry, values too short to bother. */
    n = 4;
    CHECK_RC(wiredtiger_calc_modify(session, &o, &nv, 5, m, &n), WT_NOTFOUND);
    n = 0;
    CHECK_RC(wiredtiger_calc_modify(session, &o, &nv, 100, m, &n), WT_NOTFOUND);
    o.size = nv.size = 20;
    n = 4;
    CHECK_RC(wiredtiger_calc_modify(session, &o, &nv, 100, m, &n), WT_NOTFOUND);
    CHECK_RC(wiredtiger_calc_modify(session, NULL, &nv, 100, m, &n), EINVAL);
}

static void
pack_stream(void)
{
    unsigned char buf[64], small[4];
    WT_PACK_STREAM *ps;
    WT_ITEM item = {0};
    size_t used = 0, whole = 0;
    int64_t i;
    uint64_t u;
    const char *s;

    OK(wiredtiger_pack_start(session, "iSx3hQu", buf, sizeof(buf), &ps));
    OK(wiredtiger_pack_int(ps, 42));
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_pack_int(ps, 1), EINVAL); /* the next field is S: nothing moves */
    CHECK_MSG(&rec, EINVAL, "'S'");
    OK(wiredtiger_pack_str(ps, "hello"));
    OK(wiredtiger_pack_int(ps, -1));
    OK(wiredtiger_pack_int(ps, 2));
    OK(wiredtiger_pack_int(ps, 300));
    OK(wiredtiger_pack_uint(ps, 1u << 20));
    item.data = "xyz";
    item.size = 3;
    OK(wiredtiger_pack_item(ps, &item));
    CHECK_RC(wiredtiger_pack_int(ps, 1), WT_NOTFOUND);
    OK(wiredtiger_pack_close(ps, &used));
    /* The same bytes as packing all at once. */
    {
        unsigned char all[64];
        WT_ITEM x = {0};
        x.data = "xyz";
        x.size = 3;
        OK(wiredtiger_struct_size(session, &whole, "iSx3hQu", 42, "hello", -1, 2, 300, (uint64_t)1 << 20, &x));
        OK(wiredtiger_struct_pack(session, all, sizeof(all), "iSx3hQu", 42, "hello", -1, 2, 300, (uint64_t)1 << 20, &x));
        CHECK(used == whole && memcmp(all, buf, used) == 0);
    }

    OK(wiredtiger_unpack_start(session, "iSx3hQu", buf, used, &ps));
    CHECK_RC(wiredtiger_unpack_uint(ps, &u), EINVAL);
    OK(wiredtiger_unpack_int(ps, &i));
    CHECK(i == 42);
    OK(wiredtiger_unpack_str(ps, &s));
    CHECK_STR(s, "hello");
    OK(wiredtiger_unpack_int(ps, &i));
    CHECK(i == -1);
    OK(wiredtiger_unpack_int(ps, &i));
    OK(wiredtiger_unpack_int(ps, &i));
    CHECK(i == 300);
    OK(wiredtiger_unpack_uint(ps, &u));
    CHECK(u == 1u << 20);
    OK(wiredtiger_unpack_item(ps, &item));
    CHECK(item.size == 3 && memcmp(item.data, "xyz", 3) == 0);
    CHECK_RC(wiredtiger_unpack_int(ps, &i), WT_NOTFOUND);
    /* A packing call on an unpacking stream. */
    CHECK_RC(wiredtiger_pack_int(ps, 1), EINVAL);
    OK(wiredtiger_pack_close(ps, &used));
    CHECK(used == whole);

    /* No room: ENOMEM, and the stream stays where it was. */
    OK(wiredtiger_pack_start(session, "S", small, sizeof(small), &ps));
    CHECK_RC(wiredtiger_pack_str(ps, "hello"), ENOMEM);
    OK(wiredtiger_pack_str(ps, "hi"));
    OK(wiredtiger_pack_close(ps, &used));
    CHECK(used == 3 && memcmp(small, "hi", 3) == 0);
    /* Truncated input: EINVAL. */
    OK(wiredtiger_unpack_start(session, "S", "abc", 3, &ps));
    CHECK_RC(wiredtiger_unpack_str(ps, &s), EINVAL);
    OK(wiredtiger_pack_close(ps, NULL));
    /* A bad format is refused at the start. */
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_pack_start(session, "zz", buf, sizeof(buf), &ps), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Invalid type 'z'");
}

/* WT_CONNECTION::configure_method: keys a method then accepts, checked by their type and check
 * string (the reference's messages, probed against WiredTiger 11.3.1). */
static void
configure_method(WT_CONNECTION *conn)
{
    WT_CURSOR *c;

    OK(conn->configure_method(conn, "WT_SESSION.open_cursor", "my_data:", "entries=5", "int", "min=1,max=10"));
    OK(conn->configure_method(conn, "WT_SESSION.open_cursor", "my_data:", "devices", "list", NULL));
    OK(conn->configure_method(conn, "WT_SESSION.create", NULL, "probe=5", "int", "min=1,max=10"));
    OK(conn->configure_method(conn, "WT_SESSION.create", NULL, "color=red", "string", "choices=[red,blue]"));
    OK(conn->configure_method(conn, "WT_SESSION.create", NULL, "flag", "boolean", NULL));
    /* A method without keys accepts any configuration already. */
    OK(conn->configure_method(conn, "WT_SESSION.truncate", NULL, "flag", "boolean", NULL));

    ul_recorder_clear(&rec);
    CHECK_RC(conn->configure_method(conn, "WT_SESSION.nope", NULL, "x=1", "int", NULL), ENOENT);
    CHECK(ul_message_has(&rec, "no method matching WT_SESSION.nope found"));
    CHECK_RC(conn->configure_method(conn, "WT_SESSION.create", NULL, "x=1", "float", NULL), EINVAL);
    CHECK_MSG(&rec, EINVAL, "type must be one of \"boolean\", \"int\", \"list\" or \"string\"");
    CHECK_RC(conn->configure_method(conn, "WT_SESSION.create", NULL, NULL, "int", NULL), EINVAL);
    CHECK_MSG(&rec, EINVAL, "no configuration specified");
    CHECK_RC(conn->configure_method(conn, "WT_SESSION.create", NULL, "x=1", NULL, NULL), EINVAL);
    CHECK_MSG(&rec, EINVAL, "no configuration type specified");
    CHECK_RC(conn->configure_method(conn, "WT_SESSION.create", NULL, "x=50", "int", "min=1,max=10"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Value too large for key 'x' the maximum is 10");

    /* The added keys are accepted, and checked. */
    OK(session->create(session, "table:cm", "key_format=S,value_format=S,probe=5"));
    CHECK_RC(session->create(session, "table:cm2", "key_format=S,value_format=S,probe=50"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Value too large for key 'probe' the maximum is 10");
    CHECK_RC(session->create(session, "table:cm2", "key_format=S,value_format=S,color=green"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Value 'green' not a permitted choice for key 'color'");
    OK(session->create(session, "table:cm3", "key_format=S,value_format=S,color=blue,flag=true"));
    CHECK_RC(session->create(session, "table:cm4", "key_format=S,value_format=S,flag=7"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Invalid value for key 'flag': expected a boolean");
    OK(session->open_cursor(session, "table:cm", NULL, "entries=3,devices=[a,b]", &c));
    OK(c->close(c));
    CHECK_RC(session->open_cursor(session, "table:cm", NULL, "entries=30", &c), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Value too large for key 'entries' the maximum is 10");
    OK(wiredtiger_config_validate(session, NULL, "WT_SESSION.create", "probe=5"));
    /* Other methods do not take them. */
    CHECK_RC(session->begin_transaction(session, "probe=5"), EINVAL);
}

int
main(void)
{
    WT_CONNECTION *conn;
    ul_recorder_init(&rec);
    ul_open(&rec, INMEM, &conn, &session);
    config_parser();
    config_validate();
    configure_method(conn);
    checksums();
    calc_modify();
    pack_stream();
    OK(conn->close(conn, NULL));
    return ul_done("standalone_api");
}
