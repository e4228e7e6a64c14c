/*
 * Error codes and messages: wiredtiger_strerror / WT_SESSION::strerror for every code of
 * api.md section 6, NULL handles and out-parameters, unknown URIs and objects, missing keys,
 * configuration errors with the texts of config.md section 2, wiredtiger_open failures and
 * methods that are not implemented yet (ENOTSUP with a message).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "util.h"

#define INMEM "create,in_memory=true"

static ul_recorder rec;
/* A second home for the extra connections opened while the main one (home NULL) is open: the
 * same home twice in one process would be EBUSY. */
static char aux[] = "/tmp/ul-errors-XXXXXX";

static const struct {
    int code;
    const char *text;
} codes[] = {
  {WT_ROLLBACK, "WT_ROLLBACK: conflict between concurrent operations"},
  {WT_DEADLOCK, "WT_ROLLBACK: conflict between concurrent operations"},
  {WT_DUPLICATE_KEY, "WT_DUPLICATE_KEY: attempt to insert an existing key"},
  {WT_ERROR, "WT_ERROR: non-specific WiredTiger error"},
  {WT_NOTFOUND, "WT_NOTFOUND: item not found"},
  {WT_PANIC, "WT_PANIC: WiredTiger library panic"},
  {WT_RESTART, "WT_RESTART: restart the operation (internal)"},
  {WT_RUN_RECOVERY, "WT_RUN_RECOVERY: recovery must be run to continue"},
  {WT_CACHE_FULL, "WT_CACHE_FULL: operation would overflow cache"},
  {WT_PREPARE_CONFLICT, "WT_PREPARE_CONFLICT: conflict with a prepared update"},
  {WT_TRY_SALVAGE, "WT_TRY_SALVAGE: database corruption detected"},
  {0, "Successful return: 0"},
  {ENOTSUP, "Operation not supported"},
  {EINVAL, "Invalid argument"},
  {EBUSY, "Device or resource busy"},
  {ENOENT, "No such file or directory"},
  {EEXIST, "File exists"},
  {ENOMEM, "Cannot allocate memory"},
  {12345, "Unknown error 12345"},
  {-31850, "error return: -31850"},
  {-31999, "error return: -31999"},
  {-1, "error return: -1"},
};

static void
test_strerror(WT_SESSION *s)
{
    size_t i;

    CHECK(WT_ROLLBACK == -31800 && WT_DEADLOCK == -31800 && WT_DUPLICATE_KEY == -31801);
    CHECK(WT_ERROR == -31802 && WT_NOTFOUND == -31803 && WT_PANIC == -31804);
    CHECK(WT_RESTART == -31805 && WT_RUN_RECOVERY == -31806 && WT_CACHE_FULL == -31807);
    CHECK(WT_PREPARE_CONFLICT == -31808 && WT_TRY_SALVAGE == -31809);
    CHECK(ENOTSUP == 95);

    for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        CHECK_STR(wiredtiger_strerror(codes[i].code), codes[i].text);
        CHECK_STR(s->strerror(s, codes[i].code), codes[i].text);
    }
    /* An unknown code's text is not clobbered by the next known one (per-session buffer). */
    {
        const char *a = s->strerror(s, 23456);
        char copy[64];
        snprintf(copy, sizeof(copy), "%s", a == NULL ? "" : a);
        CHECK_STR(copy, "Unknown error 23456");
        CHECK_STR(s->strerror(s, WT_NOTFOUND), "WT_NOTFOUND: item not found");
    }
}

static void
test_null_arguments(WT_CONNECTION *conn, WT_SESSION *s)
{
    WT_CONNECTION *c2 = NULL;
    WT_CURSOR *c = NULL, *d = NULL;
    size_t len;
    int cmp;

    /* NULL out-parameters: EINVAL, never a crash. */
    CHECK_RC(wiredtiger_open(aux, NULL, INMEM, NULL), EINVAL);
    CHECK_RC(conn->open_session(conn, NULL, NULL, NULL), EINVAL);
    OK(s->create(s, "table:x", "key_format=S,value_format=S"));
    CHECK_RC(s->open_cursor(s, "table:x", NULL, NULL, NULL), EINVAL);
    CHECK_RC(wiredtiger_struct_size(NULL, NULL, "i", 1), EINVAL);

    /* NULL names. */
    CHECK_RC(s->create(s, NULL, "key_format=S,value_format=S"), EINVAL);
    CHECK_RC(s->drop(s, NULL, NULL), EINVAL);
    CHECK_RC(s->open_cursor(s, NULL, NULL, NULL, &c), EINVAL);

    /* compare / equals with a NULL result or a NULL other cursor. */
    OK(s->open_cursor(s, "table:x", NULL, NULL, &c));
    OK(s->open_cursor(s, "table:x", NULL, NULL, &d));
    if (c != NULL && d != NULL) {
        c->set_key(c, "a");
        d->set_key(d, "b");
        CHECK_RC(c->compare(c, d, NULL), EINVAL);
        CHECK_RC(c->equals(c, d, NULL), EINVAL);
        CHECK_RC(c->compare(c, NULL, &cmp), EINVAL);
        CHECK_RC(c->equals(c, NULL, &cmp), EINVAL);
        OK(c->compare(c, d, &cmp));
        CHECK(cmp == -1);
        OK(c->close(c));
        OK(d->close(d));
    }
    /* Nothing got broken. */
    OK(wiredtiger_struct_size(NULL, &len, "i", 1));
    CHECK(len == 1);
    OK(wiredtiger_open(aux, NULL, INMEM, &c2));
    if (c2 != NULL)
        OK(c2->close(c2, NULL));
}

static void
test_objects(WT_SESSION *s)
{
    WT_CURSOR *c = NULL;
    int exact;

    /* Unknown URI prefix: ENOTSUP with a message. */
    ul_recorder_clear(&rec);
    CHECK_RC(s->open_cursor(s, "bogus:x", NULL, NULL, &c), ENOTSUP);
    CHECK_MSG(&rec, ENOTSUP, "unknown object type");
    ul_recorder_clear(&rec);
    CHECK_RC(s->create(s, "bogus:x", NULL), ENOTSUP);
    CHECK_MSG(&rec, ENOTSUP, "unknown object type");
    ul_recorder_clear(&rec);
    CHECK_RC(s->create(s, "table:typed", "type=bogus"), ENOTSUP);
    CHECK_MSG(&rec, ENOTSUP, "unknown object type");

    /* Missing object: ENOENT, no message. */
    ul_recorder_clear(&rec);
    CHECK_RC(s->open_cursor(s, "table:nosuch", NULL, NULL, &c), ENOENT);
    CHECK_RC(s->drop(s, "table:nosuch", NULL), ENOENT);
    CHECK(rec.errors == 0);

    /* Operations without a key / value: EINVAL with the texts of api.md section 7. */
    OK(s->create(s, "table:k", "key_format=S,value_format=S"));
    c = NULL;
    OK(s->open_cursor(s, "table:k", NULL, NULL, &c));
    if (c == NULL)
        return;
    ul_recorder_clear(&rec);
    CHECK_RC(c->search(c), EINVAL);
    CHECK_MSG(&rec, EINVAL, "requires key be set");
    CHECK_MSG(&rec, EINVAL, "WT_CURSOR.search");
    ul_recorder_clear(&rec);
    CHECK_RC(c->search_near(c, &exact), EINVAL);
    CHECK_MSG(&rec, EINVAL, "requires key be set");
    ul_recorder_clear(&rec);
    CHECK_RC(c->remove(c), EINVAL);
    CHECK_MSG(&rec, EINVAL, "requires key be set");
    c->set_key(c, "k");
    ul_recorder_clear(&rec);
    CHECK_RC(c->insert(c), EINVAL);
    CHECK_MSG(&rec, EINVAL, "requires value be set");
    const char *p;
    OK(c->reset(c));
    ul_recorder_clear(&rec);
    CHECK_RC(c->get_key(c, &p), EINVAL);
    CHECK_MSG(&rec, EINVAL, "requires key be set");
    ul_recorder_clear(&rec);
    CHECK_RC(c->get_value(c, &p), EINVAL);
    CHECK_MSG(&rec, EINVAL, "requires value be set");
    /* Not-found results carry no message. */
    c->set_key(c, "absent");
    ul_recorder_clear(&rec);
    CHECK_RC(c->search(c), WT_NOTFOUND);
    CHECK_RC(c->next(c), WT_NOTFOUND);
    CHECK(rec.errors == 0);
    OK(c->close(c));
}

static void
test_config_errors(WT_CONNECTION *conn, WT_SESSION *s)
{
    WT_CONNECTION *c2;
    WT_SESSION *s2;
    WT_CURSOR *c;

    /* wiredtiger_open: unknown key, bad int, out of range, syntax, method rules. */
    c2 = NULL;
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(aux, &rec.iface, INMEM ",bogus=1", &c2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown configuration key 'bogus'");
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(aux, &rec.iface, INMEM ",isolation=snapshot", &c2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown configuration key 'isolation'");
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(aux, &rec.iface, INMEM ",cache_size=abc", &c2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Invalid value for key 'cache_size': expected a int");
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(aux, &rec.iface, INMEM ",cache_size=1KB", &c2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Value too small for key 'cache_size' the minimum is 1048576");
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(aux, &rec.iface, INMEM ",cache_size=20TB", &c2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Value too large for key 'cache_size' the maximum is");
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(aux, &rec.iface, INMEM ",session_max=0", &c2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Value too small for key 'session_max' the minimum is 1");
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(aux, &rec.iface, "create,in_memory=yes", &c2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Invalid value for key 'in_memory': expected a boolean");
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(aux, &rec.iface, INMEM ",statistics=fast", &c2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Invalid value for key 'statistics': expected a list");
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(aux, &rec.iface, INMEM ",statistics=(bogus)", &c2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Value 'bogus' not a permitted choice for key 'statistics'");
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(aux, &rec.iface, INMEM ",statistics=(all,fast)", &c2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Only one of all, fast, none configuration values should be specified");
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(aux, &rec.iface, INMEM ",log=(enabled=true)", &c2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "In-memory configuration incompatible with log=(enabled=true)");
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(aux, &rec.iface, INMEM ",log.enabled=true", &c2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown configuration key 'log.enabled'");
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(aux, &rec.iface, INMEM ",cache_size=+5MB", &c2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Unexpected character");
    CHECK_MSG(&rec, EINVAL, "Error parsing '");
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(aux, &rec.iface, INMEM ",log=(enabled=false", &c2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Unbalanced brackets");
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(aux, &rec.iface, INMEM ",error_prefix=a=b=c", &c2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Value already complete");
    /* Duplicates: every occurrence is validated. */
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(aux, &rec.iface, INMEM ",cache_size=200MB,cache_size=abc", &c2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "expected a int");

    /* More grammar (config.md section 1). */
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(aux, &rec.iface, INMEM ",cache_size=\"200MB\"", &c2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Invalid value for key 'cache_size': expected a int");
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(aux, &rec.iface, INMEM ",cache_size=1.5GB", &c2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Invalid value for key 'cache_size': expected a int");
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(aux, &rec.iface, INMEM ",session_max=", &c2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Invalid value for key 'session_max': expected a int");
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(aux, &rec.iface, "create,in_memory=True", &c2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Invalid value for key 'in_memory': expected a boolean");
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(aux, &rec.iface, INMEM ",error_prefix=caf\xc3\xa9", &c2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Unexpected character");
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open(aux, &rec.iface, INMEM ",error_prefix=my prefix", &c2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "New value starts without a separator");

    /* Accepted spellings (config.md section 1). */
    c2 = NULL;
    OK(wiredtiger_open(aux, NULL, "create=,in_memory=", &c2));
    if (c2 != NULL)
        OK(c2->close(c2, NULL));
    c2 = NULL;
    OK(wiredtiger_open(aux, NULL, INMEM ",error_prefix=\"caf\xc3\xa9 with spaces\",cache_size=1GB", &c2));
    if (c2 != NULL)
        OK(c2->close(c2, NULL));
    c2 = NULL;
    OK(wiredtiger_open(aux, NULL, "(create:true,in_memory:true,error_prefix=(a,b))", &c2));
    if (c2 != NULL)
        OK(c2->close(c2, NULL));
    c2 = NULL;
    OK(wiredtiger_open(aux, NULL, "create,,,  ,in_memory=true,cache_size=1KK,log=(enabled=false),statistics=(fast)",
      &c2));
    if (c2 != NULL)
        OK(c2->close(c2, NULL));
    c2 = NULL;
    OK(wiredtiger_open(aux, NULL, "{\"create\":true,\"in_memory\":true}", &c2));
    if (c2 != NULL)
        OK(c2->close(c2, NULL));

    /* open_session / session reconfigure: choices. */
    s2 = NULL;
    ul_recorder_clear(&rec);
    CHECK_RC(conn->open_session(conn, NULL, "isolation=bogus", &s2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Value 'bogus' not a permitted choice for key 'isolation'");
    ul_recorder_clear(&rec);
    CHECK_RC(s->reconfigure(s, "isolation"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Key 'isolation' requires a value");
    ul_recorder_clear(&rec);
    CHECK_RC(s->reconfigure(s, "cache_cursors=2"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Invalid value for key 'cache_cursors': expected a boolean");
    ul_recorder_clear(&rec);
    CHECK_RC(conn->open_session(conn, NULL, "bogus=1", &s2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown configuration key 'bogus'");

    /* create. */
    ul_recorder_clear(&rec);
    CHECK_RC(s->create(s, "table:cfg", "key_format=S,bogus=1"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown configuration key 'bogus'");
    ul_recorder_clear(&rec);
    CHECK_RC(s->create(s, "table:cfg", "key_format=S,exclusive=maybe"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Invalid value for key 'exclusive': expected a boolean");
    ul_recorder_clear(&rec);
    CHECK_RC(s->create(s, "table:cfg", "key_format=iz"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Invalid type 'z' found in format 'iz'");
    ul_recorder_clear(&rec);
    CHECK_RC(s->create(s, "table:cfg", "value_format=0s"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Fixed length strings must be at least 1 byte in format '0s'");
    ul_recorder_clear(&rec);
    CHECK_RC(s->create(s, "table:cfg", "app_metadata=x:y"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "New value starts without a separator");
    c = NULL;
    CHECK_RC(s->open_cursor(s, "table:cfg", NULL, NULL, &c), ENOENT);

    /* open_cursor / cursor reconfigure. */
    OK(s->create(s, "table:cfg", "key_format=S,value_format=S"));
    ul_recorder_clear(&rec);
    CHECK_RC(s->open_cursor(s, "table:cfg", NULL, "overwrite=maybe", &c), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Invalid value for key 'overwrite': expected a boolean");
    ul_recorder_clear(&rec);
    CHECK_RC(s->open_cursor(s, "table:cfg", NULL, "bogus", &c), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown configuration key 'bogus'");
    ul_recorder_clear(&rec);
    CHECK_RC(s->open_cursor(s, "table:cfg", NULL, "dump=bogus", &c), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Value 'bogus' not a permitted choice for key 'dump'");
    c = NULL;
    OK(s->open_cursor(s, "table:cfg", NULL, "overwrite=false,raw=false,read_once=true", &c));
    if (c != NULL) {
        ul_recorder_clear(&rec);
        CHECK_RC(c->reconfigure(c, "raw=true"), EINVAL);
        CHECK_MSG(&rec, EINVAL, "unknown configuration key 'raw'");
        ul_recorder_clear(&rec);
        CHECK_RC(c->reconfigure(c, "overwrite=2"), EINVAL);
        CHECK_MSG(&rec, EINVAL, "Invalid value for key 'overwrite': expected a boolean");
        OK(c->close(c));
    }

    /* drop. */
    ul_recorder_clear(&rec);
    CHECK_RC(s->drop(s, "table:cfg", "force=maybe"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Invalid value for key 'force': expected a boolean");
    ul_recorder_clear(&rec);
    CHECK_RC(s->drop(s, "table:cfg", "bogus=true"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "unknown configuration key 'bogus'");
    OK(s->drop(s, "table:cfg", NULL));

    /* connection reconfigure. */
    ul_recorder_clear(&rec);
    CHECK_RC(conn->reconfigure(conn, "statistics=(clear)"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "can only be specified if statistics are enabled");
    ul_recorder_clear(&rec);
    CHECK_RC(conn->reconfigure(conn, "cache_size=x"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Invalid value for key 'cache_size': expected a int");
}

static void
test_open_errors(void)
{
    WT_CONNECTION *c2 = NULL;

    /* A home that does not exist: WT_TRY_SALVAGE (even with create). */
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open("/nonexistent/ul-errors-home", &rec.iface, "create", &c2), WT_TRY_SALVAGE);
    CHECK(rec.errors > 0);
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_open("/nonexistent/ul-errors-home", &rec.iface, NULL, &c2), WT_TRY_SALVAGE);
    CHECK(rec.errors > 0 && ul_message_has(&rec, "WiredTiger.lock"));
    CHECK(c2 == NULL);
}

static void
test_unsupported(WT_CONNECTION *conn, WT_SESSION *s)
{
    WT_CURSOR *c = NULL;
    WT_MODIFY mod;

    /* Transaction state errors (api.md section 4, traces 5.7). */
    ul_recorder_clear(&rec);
    CHECK_RC(s->commit_transaction(s, NULL), EINVAL);
    CHECK_MSG(&rec, EINVAL, "only permitted in a running transaction");
    ul_recorder_clear(&rec);
    CHECK_RC(s->rollback_transaction(s, NULL), EINVAL);
    CHECK_MSG(&rec, EINVAL, "only permitted in a running transaction");
    /* begin_transaction's own config texts (config.md section 2 exceptions). */
    ul_recorder_clear(&rec);
    CHECK_RC(s->begin_transaction(s, "isolation=bogus"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Value 'bogus' is not a valid choice");
    ul_recorder_clear(&rec);
    CHECK_RC(s->begin_transaction(s, "bogus"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Error compiling 'bogus', unknown key 'bogus' for method 'WT_SESSION.begin_transaction'");
    ul_recorder_clear(&rec);
    CHECK_RC(s->begin_transaction(s, "priority=200"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Value '200' too large, the maximum is 100");

    /* State errors inside a transaction (the full set is in c-tests/txn.c). */
    OK(s->begin_transaction(s, NULL));
    ul_recorder_clear(&rec);
    CHECK_RC(s->begin_transaction(s, NULL), EINVAL);
    CHECK_MSG(&rec, EINVAL, "not permitted in a running transaction");
    ul_recorder_clear(&rec);
    /* In memory the reference refuses the checkpoint as such first (TESTING.md, seed 6). */
    CHECK_RC(s->checkpoint(s, NULL), ENOTSUP);
    CHECK_MSG(&rec, ENOTSUP, "not supported for in-memory configurations");
    OK(s->rollback_transaction(s, NULL));
    /* Checkpoint of an in-memory database. */
    ul_recorder_clear(&rec);
    CHECK_RC(s->checkpoint(s, NULL), ENOTSUP);
    CHECK_MSG(&rec, ENOTSUP, "not supported for in-memory configurations");

    /* Later-phase methods; in memory, compact does nothing and verify is ENOTSUP (the reference). */
    OK(s->create(s, "table:u", "key_format=S,value_format=S"));
    ul_recorder_clear(&rec);
    OK(s->compact(s, "table:u", NULL));
    CHECK(rec.errors == 0);
    ul_recorder_clear(&rec);
    CHECK_RC(s->salvage(s, "table:u", NULL), ENOTSUP);
    CHECK(rec.errors > 0 && rec.last_error == ENOTSUP);
    ul_recorder_clear(&rec);
    CHECK_RC(s->verify(s, "table:u", NULL), ENOTSUP);
    CHECK(rec.errors > 0 && rec.last_error == ENOTSUP);
    ul_recorder_clear(&rec);
    CHECK_RC(conn->debug_info(conn, NULL), ENOTSUP);
    CHECK(rec.errors > 0 && rec.last_error == ENOTSUP);

    OK(s->open_cursor(s, "table:u", NULL, NULL, &c));
    if (c != NULL) {
        c->set_key(c, "k");
        c->set_value(c, "v");
        OK(c->insert(c));
        c->set_key(c, "k");
        OK(c->search(c));
        memset(&mod, 0, sizeof(mod));
        mod.data.data = "x";
        mod.data.size = 1;
        mod.offset = 0;
        mod.size = 1;
        ul_recorder_clear(&rec);
        CHECK_RC(c->modify(c, &mod, 1), ENOTSUP);
        CHECK(rec.errors > 0 && rec.last_error == ENOTSUP);
        /* An ENOTSUP write fails alone: the value below is untouched. */
        /* The value is untouched. */
        c->set_key(c, "k");
        OK(c->search(c));
        const char *v = NULL;
        OK(c->get_value(c, &v));
        CHECK_STR(v, "v");
        OK(c->close(c));
    }

    /*
     * In memory no checkpoint holds the table: a checkpoint cursor is ENOENT, as in the
     * reference, never a cursor on the live table (which once read live rows and let inserts
     * through). Checkpoint cursors on disk: c-tests/listing_cursors.c.
     */
    static const char *const ckpt_configs[] = {
      "checkpoint=nosuch", "checkpoint=WiredTigerCheckpoint", "checkpoint=off", "readonly,checkpoint=x"};
    for (size_t i = 0; i < sizeof(ckpt_configs) / sizeof(ckpt_configs[0]); i++) {
        c = NULL;
        CHECK_RC(s->open_cursor(s, "table:u", NULL, ckpt_configs[i], &c), ENOENT);
        CHECK(c == NULL);
    }
    /* An empty name is the live table, as in the reference. */
    OK(s->open_cursor(s, "table:u", NULL, "checkpoint=", &c));
    if (c != NULL) {
        c->set_key(c, "k");
        OK(c->search(c));
        OK(c->close(c));
    }
}

/*
 * Issue 16 part 5: format counts. A count that does not fit in 32 bits is EINVAL (the reference
 * wraps it to 32 bits: "4294967296s" is its "0s"); huge repeat counts and very long formats are
 * valid table formats, as in the reference; a counted U keeps its length prefix.
 */
static void
test_format_limits(WT_SESSION *s)
{
    WT_CURSOR *c = NULL;
    WT_ITEM item;
    size_t size = 0, n = 100000;
    char *cfg;

    ul_recorder_clear(&rec);
    CHECK_RC(s->create(s, "table:fmt32", "key_format=S,value_format=4294967296s"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Count 4294967296 does not fit in 32 bits in format '4294967296s'");
    ul_recorder_clear(&rec);
    CHECK_RC(wiredtiger_struct_size(s, &size, "4294967296s", "a"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "does not fit in 32 bits");
    CHECK_RC(wiredtiger_struct_size(s, &size, "i18446744073709551617x", 1), EINVAL);

    OK(s->create(s, "table:fmtq", "key_format=2000000000Q,value_format=S"));
    OK(s->open_cursor(s, "table:fmtq", NULL, NULL, &c));
    if (c != NULL) {
        /* No call can pass 2000000000 arguments: refused, nothing read or allocated. */
        c->set_key(c, (uint64_t)1);
        c->set_value(c, "v");
        ul_recorder_clear(&rec);
        CHECK_RC(c->insert(c), EINVAL);
        CHECK_MSG(&rec, EINVAL, "takes 2000000000 arguments");
        OK(c->close(c));
    }
    if ((cfg = malloc(n + 64)) != NULL) {
        strcpy(cfg, "value_format=S,key_format=");
        memset(cfg + strlen(cfg), 'S', n);
        cfg[26 + n] = '\0';
        OK(s->create(s, "table:fmtmany", cfg));
        free(cfg);
    }

    /* A counted U: varint length, then exactly N bytes. */
    item.data = "ab";
    item.size = 2;
    OK(wiredtiger_struct_size(s, &size, "3U", &item));
    CHECK(size == 4);
    {
        unsigned char buf[8];
        WT_ITEM out;
        memset(buf, 0xaa, sizeof(buf));
        OK(wiredtiger_struct_pack(s, buf, sizeof(buf), "3U", &item));
        CHECK(memcmp(buf, "\x83" "ab\0", 4) == 0);
        memset(&out, 0, sizeof(out));
        OK(wiredtiger_struct_unpack(s, buf, 4, "3U", &out));
        CHECK(out.size == 3 && memcmp(out.data, "ab\0", 3) == 0);
    }
}

/* Issue 16 part 5: bare category keys, next_random cursors, object names. */
static void
test_config_part5(WT_CONNECTION *conn, WT_SESSION *s)
{
    static const char *const conn_keys[] = {"log", "eviction", "statistics_log",
      "operation_tracking", "debug_mode", "io_capacity", "file_manager", "checkpoint"};
    static const char *const cursor_cfgs[] = {"incremental", "target,debug", "=,debug"};
    static const char *const bad_names[] = {"table:a,b", "table:a{b", "table:a]b", "table:a'b"};
    WT_SESSION *s2 = NULL;
    WT_CURSOR *c = NULL;
    const char *v = NULL;
    size_t i;
    int exact;

    /* A bare category key ending the configuration string. */
    for (i = 0; i < sizeof(conn_keys) / sizeof(conn_keys[0]); i++) {
        ul_recorder_clear(&rec);
        CHECK_RC(conn->reconfigure(conn, conn_keys[i]), EINVAL);
        CHECK_MSG(&rec, EINVAL, "expected a category");
        CHECK_OPEN_FAILS(aux, &rec, conn_keys[i], EINVAL);
        CHECK_MSG(&rec, EINVAL, "expected a category");
    }
    ul_recorder_clear(&rec);
    CHECK_RC(conn->open_session(conn, NULL, "debug", &s2), EINVAL);
    CHECK_MSG(&rec, EINVAL, "Invalid value for key 'debug': expected a category");
    CHECK_RC(conn->open_session(conn, NULL, "prefetch", &s2), EINVAL);
    CHECK_RC(s->reconfigure(s, "debug"), EINVAL);
    OK(s->create(s, "table:p5", "key_format=S,value_format=S"));
    for (i = 0; i < sizeof(cursor_cfgs) / sizeof(cursor_cfgs[0]); i++) {
        ul_recorder_clear(&rec);
        CHECK_RC(s->open_cursor(s, "table:p5", NULL, cursor_cfgs[i], &c), EINVAL);
        CHECK_MSG(&rec, EINVAL, "expected a category");
    }
    /* An empty value, or one that is not last, is what the reference checks: accepted. */
    OK(conn->reconfigure(conn, "log="));
    OK(conn->reconfigure(conn, "statistics_log,"));

    /* Eviction settings: sizes within the cache, each target below its trigger. */
    CHECK_OPEN_FAILS(aux, &rec, "create,eviction_trigger=1TB", EINVAL);
    CHECK_MSG(&rec, EINVAL, "eviction trigger should not exceed cache size");
    CHECK_OPEN_FAILS(aux, &rec, "create,eviction_target=95,eviction_trigger=90", EINVAL);
    CHECK_MSG(&rec, EINVAL, "eviction target must be lower than the eviction trigger");
    CHECK_OPEN_FAILS(aux, &rec, "create,eviction_dirty_target=30", EINVAL);
    CHECK_MSG(&rec, EINVAL, "eviction dirty target must be lower than the eviction dirty trigger");
    ul_recorder_clear(&rec);
    CHECK_RC(conn->reconfigure(conn, "eviction_trigger=1TB"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "eviction trigger should not exceed cache size");
    ul_recorder_clear(&rec);
    CHECK_RC(conn->reconfigure(conn, "eviction_target=95,eviction_trigger=90"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "eviction target must be lower than the eviction trigger");
    /* Keys not given keep their values: the default trigger is 95. */
    CHECK_RC(conn->reconfigure(conn, "eviction_target=95"), EINVAL);
    OK(conn->reconfigure(conn, "eviction_target=90"));
    CHECK_RC(conn->reconfigure(conn, "eviction_trigger=90"), EINVAL);
    OK(conn->reconfigure(conn, "eviction_target=40,eviction_trigger=50MB"));
    CHECK_RC(conn->reconfigure(conn, "cache_size=40MB"), EINVAL);
    OK(conn->reconfigure(conn, "eviction_target=80,eviction_trigger=95"));

    /* next_random cursors sample with next; the other operations are not supported. */
    OK(s->open_cursor(s, "table:p5", NULL, NULL, &c));
    if (c != NULL) {
        c->set_key(c, "k");
        c->set_value(c, "v");
        OK(c->insert(c));
        OK(c->close(c));
    }
    OK(s->open_cursor(s, "table:p5", NULL, "next_random=true", &c));
    if (c != NULL) {
        c->set_key(c, "x");
        c->set_value(c, "y");
        ul_recorder_clear(&rec);
        CHECK_RC(c->insert(c), ENOTSUP);
        CHECK_MSG(&rec, ENOTSUP, "Unsupported cursor operation");
        c->set_key(c, "k");
        c->set_value(c, "y");
        CHECK_RC(c->update(c), ENOTSUP);
        c->set_key(c, "k");
        CHECK_RC(c->remove(c), ENOTSUP);
        c->set_key(c, "k");
        CHECK_RC(c->reserve(c), ENOTSUP);
        c->set_key(c, "k");
        CHECK_RC(c->search(c), ENOTSUP);
        c->set_key(c, "k");
        CHECK_RC(c->search_near(c, &exact), ENOTSUP);
        CHECK_RC(c->prev(c), ENOTSUP);
        CHECK_RC(c->compare(c, c, &exact), ENOTSUP);
        OK(c->reset(c));
        OK(c->next(c));
        OK(c->get_value(c, &v));
        CHECK_STR(v, "v");
        OK(c->close(c));
    }
    /* Nothing was written through it. */
    OK(s->open_cursor(s, "table:p5", NULL, NULL, &c));
    if (c != NULL) {
        c->set_key(c, "x");
        CHECK_RC(c->search(c), WT_NOTFOUND);
        c->set_key(c, "k");
        OK(c->search(c));
        OK(c->get_value(c, &v));
        CHECK_STR(v, "v");
        OK(c->close(c));
    }

    /* Object names: no grouping characters; "=" is allowed, as in the reference. */
    for (i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++) {
        ul_recorder_clear(&rec);
        CHECK_RC(s->create(s, bad_names[i], "key_format=S,value_format=S"), EINVAL);
        CHECK_MSG(&rec, EINVAL, "should not include grouping characters in their names");
        CHECK_RC(s->drop(s, bad_names[i], NULL), EINVAL);
    }
    OK(s->create(s, "table:a=b", "key_format=S,value_format=S"));
    OK(s->drop(s, "table:a=b", NULL));
    /*
     * "table:" with no name: the reference creates it, but its documentation gives table URIs as
     * table:<table name>; an empty name is refused.
     */
    ul_recorder_clear(&rec);
    CHECK_RC(s->create(s, "table:", "key_format=S,value_format=S"), EINVAL);
    CHECK_MSG(&rec, EINVAL, "invalid table name");
}

int
main(void)
{
    WT_CONNECTION *conn;
    WT_SESSION *s;

    if (mkdtemp(aux) == NULL) {
        perror("mkdtemp");
        return 2;
    }
    ul_recorder_init(&rec);
    ul_open(&rec, INMEM, &conn, &s);
    test_strerror(s);
    test_null_arguments(conn, s);
    test_objects(s);
    test_config_errors(conn, s);
    test_open_errors();
    test_unsupported(conn, s);
    test_format_limits(s);
    test_config_part5(conn, s);
    OK(conn->close(conn, NULL));
    CHECK(rmdir(aux) == 0);
    return ul_done("errors");
}
