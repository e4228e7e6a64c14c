/*
 * feature_probe.c -- calls every method of the API once, with valid arguments, and prints
 * "NAME<TAB>RESULT" per method: the return code, or for methods that return no code 0 (or
 * ENOTSUP where they answer "not supported", e.g. a NULL extension API). tests/feature_table.rs
 * compares the results with the feature table of README.md: a method marked ENOTSUP must
 * answer ENOTSUP, a method marked done or partial must not.
 *
 * Methods whose result depends on transactions (commit/rollback/prepare and the timestamp
 * calls, modify, reserve) run inside a transaction when begin_transaction works; while it
 * answers ENOTSUP, commit and rollback are reported as ENOTSUP too (no transaction can exist).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <wiredtiger.h>

static int
quiet_error(WT_EVENT_HANDLER *handler, WT_SESSION *session, int error, const char *message)
{
    (void)handler;
    (void)session;
    (void)error;
    (void)message;
    return 0;
}

static int
quiet_message(WT_EVENT_HANDLER *handler, WT_SESSION *session, const char *message)
{
    (void)handler;
    (void)session;
    (void)message;
    return 0;
}

static void
report(const char *name, int ret)
{
    printf("%s\t%d\n", name, ret);
}

int
main(int argc, char *argv[])
{
    WT_EVENT_HANDLER quiet;
    WT_CONNECTION *conn, *disk;
    WT_SESSION *s;
    WT_CURSOR *c, *c2, *stats;
    WT_ITEM k, v;
    WT_MODIFY mod;
    const char *compiled = NULL;
    WT_STORAGE_SOURCE *ss = NULL;
    char hex[64];
    uint64_t range[2];
    int64_t key = 0, value = 0;
    int cmp, exact, ret, txn;

    memset(&quiet, 0, sizeof(quiet));
    quiet.handle_error = quiet_error;
    quiet.handle_message = quiet_message;

    /* Global functions. */
    report("wiredtiger_version", wiredtiger_version(NULL, NULL, NULL) != NULL ? 0 : ENOTSUP);
    report("wiredtiger_strerror", wiredtiger_strerror(WT_NOTFOUND) != NULL ? 0 : ENOTSUP);
    {
        unsigned char buf[16];
        size_t len;
        report("wiredtiger_struct_size", wiredtiger_struct_size(NULL, &len, "q", (int64_t)1));
        report("wiredtiger_struct_pack", wiredtiger_struct_pack(NULL, buf, sizeof(buf), "q", (int64_t)1));
        report("wiredtiger_struct_unpack", wiredtiger_struct_unpack(NULL, buf, len, "q", &key));
    }
    {
        unsigned char buf[16];
        WT_PACK_STREAM *ps;
        WT_ITEM item;
        const char *s;
        uint64_t u;
        int64_t i;
        size_t used;
        memset(&item, 0, sizeof(item));
        item.data = "x";
        item.size = 1;
        report("wiredtiger_pack_start", ret = wiredtiger_pack_start(NULL, "qQSu", buf, sizeof(buf), &ps));
        if (ret == 0) {
            report("wiredtiger_pack_int", wiredtiger_pack_int(ps, -1));
            report("wiredtiger_pack_uint", wiredtiger_pack_uint(ps, 1));
            report("wiredtiger_pack_str", wiredtiger_pack_str(ps, "s"));
            report("wiredtiger_pack_item", wiredtiger_pack_item(ps, &item));
            report("wiredtiger_pack_close", wiredtiger_pack_close(ps, &used));
        }
        report("wiredtiger_unpack_start", ret = wiredtiger_unpack_start(NULL, "qQSu", buf, used, &ps));
        if (ret == 0) {
            report("wiredtiger_unpack_int", wiredtiger_unpack_int(ps, &i));
            report("wiredtiger_unpack_uint", wiredtiger_unpack_uint(ps, &u));
            report("wiredtiger_unpack_str", wiredtiger_unpack_str(ps, &s));
            report("wiredtiger_unpack_item", wiredtiger_unpack_item(ps, &item));
            (void)wiredtiger_pack_close(ps, NULL);
        }
    }
    {
        WT_CONFIG_PARSER *parser;
        report("wiredtiger_config_parser_open", ret = wiredtiger_config_parser_open(NULL, "a=1", 3, &parser));
        if (ret == 0)
            (void)parser->close(parser);
        report("wiredtiger_config_validate", wiredtiger_config_validate(NULL, &quiet, "WT_SESSION.create", "key_format=S"));
        report("wiredtiger_crc32c_func", wiredtiger_crc32c_func()("x", 1) != 0 ? 0 : ENOTSUP);
        report("wiredtiger_crc32c_with_seed_func", wiredtiger_crc32c_with_seed_func()(0, "x", 1) != 0 ? 0 : ENOTSUP);
    }
    {
        char o[100], n[100];
        WT_ITEM ov, nv;
        WT_MODIFY mods[2];
        int nmods = 2;
        memset(o, 'a', sizeof(o));
        memset(n, 'a', sizeof(n));
        n[50] = 'b';
        memset(&ov, 0, sizeof(ov));
        memset(&nv, 0, sizeof(nv));
        ov.data = o;
        ov.size = sizeof(o);
        nv.data = n;
        nv.size = sizeof(n);
        report("wiredtiger_calc_modify", wiredtiger_calc_modify(NULL, &ov, &nv, 10, mods, &nmods));
    }
    /* An on-disk database, in the directory given (the test passes an empty one). */
    if (argc > 1) {
        WT_SESSION *ds;
        ret = wiredtiger_open(argv[1], &quiet, "create", &disk);
        report("on-disk databases", ret);
        if (ret == 0) {
            /* Checkpoints, verify and salvage exist only on disk (in memory they answer ENOTSUP). */
            if ((ret = disk->open_session(disk, NULL, NULL, &ds)) == 0)
                ret = ds->create(ds, "table:probe", "key_format=q,value_format=q");
            if (ret == 0)
                ret = ds->checkpoint(ds, NULL);
            report("WT_SESSION::checkpoint", ret);
            report("WT_SESSION::compact", ret == 0 ? ds->compact(ds, "table:probe", NULL) : ret);
            report("WT_SESSION::verify", ret == 0 ? ds->verify(ds, "table:probe", NULL) : ret);
            /* Salvage, likewise (in memory: ENOTSUP, as the reference). */
            report("WT_SESSION::salvage", ret == 0 ? ds->salvage(ds, "table:probe", NULL) : ret);
            {
                WT_CURSOR *kc;
                int kret = ret != 0 ? ret : ds->open_cursor(ds, "table:probe", NULL, "checkpoint=WiredTigerCheckpoint", &kc);
                report("checkpoint cursors", kret);
                if (kret == 0)
                    (void)kc->close(kc);
            }
            (void)disk->close(disk, NULL);
        }
    }
    if ((ret = wiredtiger_open(NULL, &quiet, "create,in_memory=true", &conn)) != 0) {
        fprintf(stderr, "wiredtiger_open: %s\n", wiredtiger_strerror(ret));
        return 1;
    }
    report("wiredtiger_open", 0);

    /* WT_CONNECTION */
    report("WT_CONNECTION::debug_info", conn->debug_info(conn, NULL));
    report("WT_CONNECTION::reconfigure", conn->reconfigure(conn, "error_prefix=probe"));
    report("WT_CONNECTION::get_home", conn->get_home(conn) != NULL ? 0 : ENOTSUP);
    report("WT_CONNECTION::compile_configuration",
      conn->compile_configuration(conn, "WT_SESSION.begin_transaction", "isolation=snapshot", &compiled));
    report("WT_CONNECTION::configure_method",
      conn->configure_method(conn, "WT_SESSION.create", NULL, "probe_key=1", "int", NULL));
    report("WT_CONNECTION::is_new", conn->is_new(conn) != 0 ? 0 : EINVAL);
    report("WT_CONNECTION::open_session", ret = conn->open_session(conn, NULL, NULL, &s));
    if (ret != 0)
        return 1;
    report("WT_CONNECTION::query_timestamp", conn->query_timestamp(conn, hex, "get=all_durable"));
    report("WT_CONNECTION::set_timestamp", conn->set_timestamp(conn, "oldest_timestamp=1"));
    report("WT_CONNECTION::rollback_to_stable", conn->rollback_to_stable(conn, NULL));
    report("WT_CONNECTION::load_extension", conn->load_extension(conn, "/nonexistent/probe.so", NULL));
    report("WT_CONNECTION::add_data_source", conn->add_data_source(conn, "probe:", NULL, NULL));
    report("WT_CONNECTION::add_collator", conn->add_collator(conn, "probe", NULL, NULL));
    report("WT_CONNECTION::add_compressor", conn->add_compressor(conn, "probe", NULL, NULL));
    report("WT_CONNECTION::add_encryptor", conn->add_encryptor(conn, "probe", NULL, NULL));
    report("WT_CONNECTION::add_extractor", conn->add_extractor(conn, "probe", NULL, NULL));
    report("WT_CONNECTION::set_file_system", conn->set_file_system(conn, NULL, NULL));
    report("WT_CONNECTION::add_storage_source", conn->add_storage_source(conn, "probe", NULL, NULL));
    report("WT_CONNECTION::get_storage_source", conn->get_storage_source(conn, "probe", &ss));
    report("WT_CONNECTION::get_extension_api", conn->get_extension_api(conn) != NULL ? 0 : ENOTSUP);

    /* WT_SESSION */
    report("WT_SESSION::reconfigure", s->reconfigure(s, "isolation=snapshot"));
    report("WT_SESSION::strerror", s->strerror(s, WT_NOTFOUND) != NULL ? 0 : ENOTSUP);
    report("WT_SESSION::create", s->create(s, "table:probe", "key_format=q,value_format=q"));
    report("WT_SESSION::open_cursor", s->open_cursor(s, "table:probe", NULL, NULL, &c));
    ret = s->open_cursor(s, "statistics:", NULL, NULL, &stats);
    report("statistics cursors", ret);
    if (ret == 0)
        (void)stats->close(stats);
    ret = s->open_cursor(s, "metadata:", NULL, NULL, &stats);
    report("metadata cursors", ret == 0 ? stats->next(stats) : ret);
    if (ret == 0)
        (void)stats->close(stats);
    /* In memory there is no journal: the cursor opens, and reading it is ENOTSUP (as the
     * reference); the on-disk journal is covered by c-tests/listing_cursors.c. */
    ret = s->open_cursor(s, "log:", NULL, NULL, &stats);
    report("log cursors", ret);
    if (ret == 0)
        (void)stats->close(stats);
    report("WT_SESSION::alter", s->alter(s, "table:probe", "app_metadata=probe"));
    report("WT_SESSION::bind_configuration", s->bind_configuration(s, compiled != NULL ? compiled : "probe"));
    report("WT_SESSION::log_flush", s->log_flush(s, NULL));
    report("WT_SESSION::log_printf", s->log_printf(s, "probe %d", 1));
    report("WT_SESSION::reset_snapshot", s->reset_snapshot(s));
    report("WT_SESSION::transaction_pinned_range", s->transaction_pinned_range(s, range));
    report("WT_SESSION::breakpoint", s->breakpoint(s));
    report("WT_SESSION::query_timestamp", s->query_timestamp(s, hex, "get=read"));

    /* WT_CURSOR, on a q -> q table */
    c->set_key(c, (int64_t)1);
    c->set_value(c, (int64_t)10);
    report("WT_CURSOR::insert", c->insert(c));
    c->set_key(c, (int64_t)2);
    c->set_value(c, (int64_t)20);
    (void)c->insert(c);
    report("WT_CURSOR::set_key", 0);
    report("WT_CURSOR::set_value", 0);
    c->set_key(c, (int64_t)1);
    report("WT_CURSOR::search", c->search(c));
    report("WT_CURSOR::get_key", c->get_key(c, &key));
    report("WT_CURSOR::get_value", c->get_value(c, &value));
    report("WT_CURSOR::get_raw_key_value", c->get_raw_key_value(c, &k, &v));
    c->set_key(c, (int64_t)1);
    c->set_value(c, (int64_t)11);
    report("WT_CURSOR::update", c->update(c));
    c->set_key(c, (int64_t)3);
    report("WT_CURSOR::search_near", c->search_near(c, &exact));
    report("WT_CURSOR::reset", c->reset(c));
    report("WT_CURSOR::next", c->next(c));
    (void)c->reset(c);
    report("WT_CURSOR::prev", c->prev(c));
    (void)s->open_cursor(s, "table:probe", NULL, NULL, &c2);
    c2->set_key(c2, (int64_t)2);
    (void)c2->search(c2);
    c->set_key(c, (int64_t)1);
    (void)c->search(c);
    report("WT_CURSOR::compare", c->compare(c, c2, &cmp));
    report("WT_CURSOR::equals", c->equals(c, c2, &cmp));
    report("WT_CURSOR::checkpoint_id", c->checkpoint_id(c) == 0 ? 0 : EINVAL);
    report("WT_CURSOR::largest_key", c->largest_key(c));
    report("WT_CURSOR::bound", c->bound(c, "action=clear"));
    report("WT_CURSOR::reconfigure", c->reconfigure(c, "overwrite=true"));
    c2->set_key(c2, (int64_t)2);
    report("WT_CURSOR::remove", c2->remove(c2));
    report("WT_CURSOR::close", c2->close(c2));

    /* Transactions, and what needs one. */
    ret = s->begin_transaction(s, NULL);
    report("WT_SESSION::begin_transaction", ret);
    txn = ret == 0;
    if (txn) {
        report("WT_SESSION::timestamp_transaction", s->timestamp_transaction(s, "commit_timestamp=10"));
        report("WT_SESSION::timestamp_transaction_uint",
          s->timestamp_transaction_uint(s, WT_TS_TXN_TYPE_COMMIT, 11));
        c->set_key(c, (int64_t)1);
        report("WT_CURSOR::reserve", c->reserve(c));
        report("WT_SESSION::commit_transaction", s->commit_transaction(s, NULL));
        (void)s->begin_transaction(s, NULL);
        report("WT_SESSION::rollback_transaction", s->rollback_transaction(s, NULL));
        (void)s->begin_transaction(s, NULL);
        report("WT_SESSION::prepare_transaction", s->prepare_transaction(s, "prepare_timestamp=20"));
        (void)s->rollback_transaction(s, NULL);
    } else {
        report("WT_SESSION::timestamp_transaction", s->timestamp_transaction(s, "commit_timestamp=10"));
        report("WT_SESSION::timestamp_transaction_uint",
          s->timestamp_transaction_uint(s, WT_TS_TXN_TYPE_COMMIT, 11));
        c->set_key(c, (int64_t)1);
        report("WT_CURSOR::reserve", c->reserve(c));
        report("WT_SESSION::commit_transaction", ret == ENOTSUP ? ENOTSUP : s->commit_transaction(s, NULL));
        report("WT_SESSION::rollback_transaction", ret == ENOTSUP ? ENOTSUP : s->rollback_transaction(s, NULL));
        report("WT_SESSION::prepare_transaction", s->prepare_transaction(s, "prepare_timestamp=20"));
    }
    report("WT_SESSION::get_rollback_reason", 0); /* NULL or a text: both are valid answers */
    {
        WT_CURSOR *sc;
        (void)s->create(s, "table:probe_s", "key_format=q,value_format=S");
        (void)s->open_cursor(s, "table:probe_s", NULL, NULL, &sc);
        sc->set_key(sc, (int64_t)1);
        sc->set_value(sc, "abc");
        (void)sc->insert(sc);
        if (txn)
            (void)s->begin_transaction(s, NULL);
        memset(&mod, 0, sizeof(mod));
        mod.data.data = "x";
        mod.data.size = 1;
        mod.offset = 1;
        mod.size = 1;
        sc->set_key(sc, (int64_t)1);
        report("WT_CURSOR::modify", sc->modify(sc, &mod, 1));
        if (txn)
            (void)s->rollback_transaction(s, NULL);
        (void)sc->close(sc);
    }
    report("WT_SESSION::join", s->join(s, c, c, NULL));
    (void)c->close(c);
    report("WT_SESSION::truncate", s->truncate(s, "table:probe", NULL, NULL, NULL));
    report("WT_SESSION::rename", s->rename(s, "table:probe_s", "table:probe_t", NULL));
    report("WT_SESSION::reset", s->reset(s));
    report("WT_SESSION::drop", s->drop(s, "table:probe", NULL));
    report("WT_SESSION::close", s->close(s, NULL));
    report("WT_CONNECTION::close", conn->close(conn, NULL));
    return 0;
}
