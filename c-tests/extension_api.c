/*
 * WT_CONNECTION::get_extension_api: the table's layout is the reference's (offsets probed
 * against WiredTiger 11.3.1's wiredtiger_ext.h), every member is set, and each works:
 * messages through the event handler, strerror, scratch memory, collate (bytewise without a
 * collator), the collator a configuration names (customized per object), configuration
 * look-ups, packing, the version and the lock; the members with no
 * meaning here answer ENOTSUP with a message.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "util.h"
#include "wiredtiger_ext.h"

static ul_recorder rec;
static char last_info[256];

static int
record_message(WT_EVENT_HANDLER *h, WT_SESSION *s, const char *message)
{
    (void)h;
    (void)s;
    snprintf(last_info, sizeof(last_info), "%s", message);
    return 0;
}

static int
reverse_compare(WT_COLLATOR *c, WT_SESSION *s, const WT_ITEM *a, const WT_ITEM *b, int *cmp)
{
    (void)c;
    (void)s;
    *cmp = -memcmp(a->data, b->data, a->size < b->size ? a->size : b->size);
    return 0;
}

static WT_COLLATOR reverse = {reverse_compare, NULL, NULL};

static void test_named_collators(WT_EXTENSION_API *api, WT_SESSION *s);

static void
test_layout(WT_EXTENSION_API *api)
{
    void **slot;
    size_t i;

    CHECK(offsetof(WT_EXTENSION_API, conn) == 0);
    CHECK(offsetof(WT_EXTENSION_API, err_printf) == 8);
    CHECK(offsetof(WT_EXTENSION_API, strerror) == 24);
    CHECK(offsetof(WT_EXTENSION_API, collate) == 64);
    CHECK(offsetof(WT_EXTENSION_API, config_get) == 72);
    CHECK(offsetof(WT_EXTENSION_API, metadata_insert) == 112);
    CHECK(offsetof(WT_EXTENSION_API, struct_pack) == 144);
    CHECK(offsetof(WT_EXTENSION_API, pack_start) == 168);
    CHECK(offsetof(WT_EXTENSION_API, unpack_uint) == 248);
    CHECK(offsetof(WT_EXTENSION_API, version) == 256);
    CHECK(offsetof(WT_EXTENSION_API, spin_init) == 264);
    CHECK(offsetof(WT_EXTENSION_API, spin_unlock) == 288);
    CHECK(sizeof(WT_EXTENSION_API) == 296);
    /* No member is NULL. */
    slot = (void **)api;
    for (i = 0; i < sizeof(WT_EXTENSION_API) / sizeof(void *); i++)
        CHECK(slot[i] != NULL);
}

static void
test_messages_and_memory(WT_EXTENSION_API *api, WT_SESSION *s)
{
    void *p;

    ul_recorder_clear(&rec);
    OK(api->err_printf(api, s, "extension error %d", 42));
    CHECK(rec.errors == 1);
    CHECK(ul_message_has(&rec, "extension error 42"));
    ul_recorder_clear(&rec);
    OK(api->err_printf(api, NULL, "no session %s", "here"));
    CHECK(ul_message_has(&rec, "no session here"));
    OK(api->msg_printf(api, s, "note %s", "this"));
    CHECK_STR(last_info, "note this");

    CHECK_STR(api->strerror(api, s, WT_NOTFOUND), "WT_NOTFOUND: item not found");
    CHECK_STR(api->strerror(api, NULL, WT_ROLLBACK), "WT_ROLLBACK: conflict between concurrent operations");

#ifndef UL_REFERENCE_RUN /* the reference panics the connection (WT_PANIC) */
    ul_recorder_clear(&rec);
    CHECK_RC(api->map_windows_error(api, s, 5), ENOTSUP);
    CHECK_MSG(&rec, ENOTSUP, "map_windows_error");
#endif

    p = api->scr_alloc(api, s, 100);
    CHECK(p != NULL);
    memset(p, 7, 100);
    api->scr_free(api, s, p);
    api->scr_free(api, s, NULL);
}

static void
test_collate(WT_EXTENSION_API *api, WT_SESSION *s)
{
    WT_ITEM a, b;
    int cmp = 99;
    WT_COLLATOR *coll = &reverse;
    int own = 5;

    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    a.data = "abc";
    a.size = 3;
    b.data = "abd";
    b.size = 3;
    OK(api->collate(api, s, NULL, &a, &b, &cmp));
    CHECK(cmp < 0);
    OK(api->collate(api, s, NULL, &b, &a, &cmp));
    CHECK(cmp > 0);
    b.size = 2; /* "ab" sorts first: a prefix is smaller */
    OK(api->collate(api, s, NULL, &a, &b, &cmp));
    CHECK(cmp > 0);
    OK(api->collate(api, s, NULL, &a, &a, &cmp));
    CHECK(cmp == 0);
    b.size = 3;
    OK(api->collate(api, s, &reverse, &a, &b, &cmp));
    CHECK(cmp > 0);
#ifndef UL_REFERENCE_RUN /* a NULL item crashes the reference */
    CHECK_RC(api->collate(api, s, NULL, NULL, &b, &cmp), EINVAL);
#endif

    /* No collator configured: none, and 0, as the reference. */
    OK(api->collator_config(api, s, "table:x", NULL, &coll, &own));
#ifndef UL_REFERENCE_RUN /* the reference leaves the outputs as they were */
    CHECK(coll == NULL && own == 0);
#endif
    test_named_collators(api, s);
}

/* A collator that customizes itself for objects whose app_metadata says "flip". */
static WT_SESSION *customized_by;
static char customized_for[64], customized_with[64];

static int
custom_customize(WT_COLLATOR *c, WT_SESSION *s, const char *uri, WT_CONFIG_ITEM *appcfg, WT_COLLATOR **customp)
{
    (void)c;
    customized_by = s;
    snprintf(customized_for, sizeof(customized_for), "%s", uri);
    snprintf(customized_with, sizeof(customized_with), "%.*s", (int)appcfg->len, appcfg->str);
    *customp = appcfg->len == 4 && memcmp(appcfg->str, "flip", 4) == 0 ? &reverse : NULL;
    return 0;
}

static WT_COLLATOR custom = {reverse_compare, custom_customize, NULL};

static void
test_named_collators(WT_EXTENSION_API *api, WT_SESSION *s)
{
    const char *missing[] = {"collator=missing,app_metadata=", NULL};
    const char *plain[] = {"collator=reverse,app_metadata=", NULL};
    const char *flip[] = {"collator=custom,app_metadata=flip", NULL};
    const char *other[] = {"collator=custom,app_metadata=keep", NULL};
    const char *none[] = {"collator=none,app_metadata=", NULL};
    WT_CONNECTION *conn = api->conn;
    WT_COLLATOR *coll;
    int own;

    OK(conn->add_collator(conn, "reverse", &reverse, NULL));
    OK(conn->add_collator(conn, "custom", &custom, NULL));

    /* Not registered: EINVAL, as create says it. */
    ul_recorder_clear(&rec);
    CHECK_RC(api->collator_config(api, s, "table:x", (WT_CONFIG_ARG *)missing, &coll, &own), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown collator 'missing'");

    /* "none": no collator. */
    coll = &custom;
    own = 7;
    OK(api->collator_config(api, s, "table:x", (WT_CONFIG_ARG *)none, &coll, &own));
#ifndef UL_REFERENCE_RUN /* the reference leaves the outputs as they were */
    CHECK(coll == NULL && own == 0);
#endif

    /* Registered, no customize method: the application's own collator, not the caller's. */
    own = 7;
    OK(api->collator_config(api, s, "table:x", (WT_CONFIG_ARG *)plain, &coll, &own));
    CHECK(coll == &reverse && own == 0);

    /* customize gets the session, the URI and app_metadata; what it makes is the caller's. */
    own = 0;
    OK(api->collator_config(api, s, "table:flipped", (WT_CONFIG_ARG *)flip, &coll, &own));
    CHECK(coll == &reverse && own == 1);
    CHECK(customized_by == s);
    CHECK_STR(customized_for, "table:flipped");
    CHECK_STR(customized_with, "flip");

    /* customize declines: the registered collator, not owned. */
    own = 7;
    OK(api->collator_config(api, s, "table:kept", (WT_CONFIG_ARG *)other, &coll, &own));
    CHECK(coll == &custom && own == 0);
    CHECK_STR(customized_for, "table:kept");
}

static void
test_config(WT_EXTENSION_API *api, WT_SESSION *s)
{
    const char *strings[] = {"[device=/dev/sd1,alignment=64,nested=(a=1)]", NULL};
    const char *two[] = {"a=1,b=2", "b=3", NULL};
    WT_CONFIG_ITEM v, k;
    WT_CONFIG_PARSER *p;

    OK(api->config_get(api, s, (WT_CONFIG_ARG *)strings, "device", &v));
    CHECK(v.len == 8 && strncmp(v.str, "/dev/sd1", 8) == 0);
    OK(api->config_get(api, s, (WT_CONFIG_ARG *)strings, "alignment", &v));
    CHECK(v.type == WT_CONFIG_ITEM_NUM && v.val == 64);
    OK(api->config_get(api, s, (WT_CONFIG_ARG *)strings, "nested.a", &v));
    CHECK(v.val == 1);
    CHECK_RC(api->config_get(api, s, (WT_CONFIG_ARG *)strings, "missing", &v), WT_NOTFOUND);
    CHECK_RC(api->config_get(api, s, NULL, "device", &v), WT_NOTFOUND);
    /* Later strings win. */
    OK(api->config_get(api, s, (WT_CONFIG_ARG *)two, "b", &v));
    CHECK(v.val == 3);
    OK(api->config_get(api, s, (WT_CONFIG_ARG *)two, "a", &v));
    CHECK(v.val == 1);

    OK(api->config_get_string(api, s, "x=5,y=\"hi\"", "y", &v));
    CHECK(v.type == WT_CONFIG_ITEM_STRING && v.len == 2 && strncmp(v.str, "hi", 2) == 0);
    CHECK_RC(api->config_get_string(api, s, "x=5", "z", &v), WT_NOTFOUND);
#ifndef UL_REFERENCE_RUN /* a NULL key crashes the reference */
    CHECK_RC(api->config_get_string(api, s, "x=5", NULL, &v), EINVAL);
#endif

    OK(api->config_parser_open(api, s, "k1=v1,k2=2", strlen("k1=v1,k2=2"), &p));
    OK(p->next(p, &k, &v));
    CHECK(k.len == 2 && strncmp(k.str, "k1", 2) == 0);
    OK(p->next(p, &k, &v));
    CHECK(v.val == 2);
    CHECK_RC(p->next(p, &k, &v), WT_NOTFOUND);
    OK(p->close(p));
    OK(api->config_parser_open_arg(api, s, (WT_CONFIG_ARG *)strings, &p));
    OK(p->get(p, "alignment", &v));
    CHECK(v.val == 64);
    OK(p->close(p));
}

static void
test_unsupported(WT_EXTENSION_API *api, WT_SESSION *s)
{
    WT_FILE_SYSTEM *fs = NULL;
    char *value = (char *)"x";

#ifdef UL_REFERENCE_RUN /* the reference's metadata and file system, which unlatched does not lend */
    (void)api;
    (void)s;
    (void)fs;
    (void)value;
    return;
#endif
    ul_recorder_clear(&rec);
    CHECK_RC(api->file_system_get(api, s, &fs), ENOTSUP);
    CHECK_MSG(&rec, ENOTSUP, "file_system_get");
    CHECK_RC(api->metadata_insert(api, s, "k", "v"), ENOTSUP);
    CHECK_RC(api->metadata_update(api, s, "k", "v"), ENOTSUP);
    CHECK_RC(api->metadata_remove(api, s, "k"), ENOTSUP);
    CHECK_RC(api->metadata_search(api, s, "k", &value), ENOTSUP);
    CHECK(value == NULL);
    CHECK_MSG(&rec, ENOTSUP, "metadata_search");
}

static void
test_packing(WT_EXTENSION_API *api, WT_SESSION *s)
{
    char buf[64];
    size_t size, used;
    int32_t i;
    const char *str;
    WT_PACK_STREAM *ps;
    int64_t n;
    uint64_t u;
    int major, minor, patch;
    WT_EXTENSION_SPINLOCK lock;

    OK(api->struct_size(api, s, &size, "iSq", 7, "hello", (int64_t)-3));
    CHECK(size > 6);
    OK(api->struct_pack(api, s, buf, sizeof(buf), "iSq", 7, "hello", (int64_t)-3));
    OK(api->struct_unpack(api, s, buf, size, "iSq", &i, &str, &n));
    CHECK(i == 7 && n == -3);
    CHECK_STR(str, "hello");
#ifndef UL_REFERENCE_RUN /* a bad format panics the reference's connection */
    ul_recorder_clear(&rec);
    CHECK_RC(api->struct_pack(api, s, buf, sizeof(buf), "z", 1), EINVAL);
#endif

    OK(api->pack_start(api, s, "qQS", buf, sizeof(buf), &ps));
    OK(api->pack_int(api, ps, -9));
    OK(api->pack_uint(api, ps, 9));
    OK(api->pack_str(api, ps, "pk"));
    OK(api->pack_close(api, ps, &used));
    OK(api->unpack_start(api, s, "qQS", buf, used, &ps));
    OK(api->unpack_int(api, ps, &n));
    OK(api->unpack_uint(api, ps, &u));
    OK(api->unpack_str(api, ps, &str));
    CHECK(n == -9 && u == 9);
    CHECK_STR(str, "pk");
    OK(api->pack_close(api, ps, &used));

    CHECK_STR(api->version(&major, &minor, &patch), wiredtiger_version(NULL, NULL, NULL));
    CHECK(major == 11 && minor == 3 && patch == 1);

    OK(api->spin_init(api, &lock, "test lock"));
    api->spin_lock(api, s, &lock);
    api->spin_unlock(api, s, &lock);
    api->spin_lock(api, NULL, &lock);
    api->spin_unlock(api, NULL, &lock);
    api->spin_destroy(api, &lock);
}

int
main(void)
{
    WT_CONNECTION *conn;
    WT_SESSION *s;
    WT_EXTENSION_API *api;

    ul_recorder_init(&rec);
    rec.iface.handle_message = record_message;
    ul_open(&rec, "create,in_memory=true", &conn, &s);
    api = conn->get_extension_api(conn);
    CHECK(api != NULL);
    if (api == NULL)
        return EXIT_FAILURE;
    CHECK(api->conn == conn);
    CHECK(conn->get_extension_api(conn) == api);
    test_layout(api);
    test_messages_and_memory(api, s);
    test_collate(api, s);
    test_config(api, s);
    test_unsupported(api, s);
    test_packing(api, s);
    OK(conn->close(conn, NULL));

    printf("extension_api: %d checks, %d failures\n", ul_checks, ul_failures);
    return ul_failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
