/* Every row of ../shared/spec/abi-x86_64.tsv: the public structs have the reference's layout. */
#include <stddef.h>

#include "util.h"

#define SIZE(type, n) CHECK(sizeof(type) == (n))
#define AT(type, member, off, n) do { CHECK(offsetof(type, member) == (off)); CHECK(sizeof(((type *)0)->member) == (n)); } while (0)

int
main(void)
{
    SIZE(WT_CURSOR, 472);
    AT(WT_CURSOR, session, 0, 8);
    AT(WT_CURSOR, uri, 8, 8);
    AT(WT_CURSOR, key_format, 16, 8);
    AT(WT_CURSOR, value_format, 24, 8);
    AT(WT_CURSOR, get_key, 32, 8);
    AT(WT_CURSOR, get_value, 40, 8);
    AT(WT_CURSOR, get_raw_key_value, 48, 8);
    AT(WT_CURSOR, set_key, 56, 8);
    AT(WT_CURSOR, set_value, 64, 8);
    AT(WT_CURSOR, compare, 72, 8);
    AT(WT_CURSOR, equals, 80, 8);
    AT(WT_CURSOR, next, 88, 8);
    AT(WT_CURSOR, prev, 96, 8);
    AT(WT_CURSOR, reset, 104, 8);
    AT(WT_CURSOR, search, 112, 8);
    AT(WT_CURSOR, search_near, 120, 8);
    AT(WT_CURSOR, insert, 128, 8);
    AT(WT_CURSOR, modify, 136, 8);
    AT(WT_CURSOR, update, 144, 8);
    AT(WT_CURSOR, remove, 152, 8);
    AT(WT_CURSOR, reserve, 160, 8);
    AT(WT_CURSOR, checkpoint_id, 168, 8);
    AT(WT_CURSOR, close, 176, 8);
    AT(WT_CURSOR, largest_key, 184, 8);
    AT(WT_CURSOR, reconfigure, 192, 8);
    AT(WT_CURSOR, bound, 200, 8);
    AT(WT_CURSOR, cache, 208, 8);
    AT(WT_CURSOR, reopen, 216, 8);
    AT(WT_CURSOR, uri_hash, 224, 8);
    AT(WT_CURSOR, q, 232, 16);
    AT(WT_CURSOR, recno, 248, 8);
    AT(WT_CURSOR, raw_recno_buf, 256, 9);
    AT(WT_CURSOR, json_private, 272, 8);
    AT(WT_CURSOR, lang_private, 280, 8);
    AT(WT_CURSOR, key, 288, 40);
    AT(WT_CURSOR, value, 328, 40);
    AT(WT_CURSOR, saved_err, 368, 4);
    AT(WT_CURSOR, internal_uri, 376, 8);
    AT(WT_CURSOR, lower_bound, 384, 40);
    AT(WT_CURSOR, upper_bound, 424, 40);
    AT(WT_CURSOR, flags, 464, 8);
    SIZE(WT_SESSION, 248);
    AT(WT_SESSION, connection, 0, 8);
    AT(WT_SESSION, app_private, 8, 8);
    AT(WT_SESSION, close, 16, 8);
    AT(WT_SESSION, reconfigure, 24, 8);
    AT(WT_SESSION, strerror, 32, 8);
    AT(WT_SESSION, open_cursor, 40, 8);
    AT(WT_SESSION, alter, 48, 8);
    AT(WT_SESSION, bind_configuration, 56, 8);
    AT(WT_SESSION, create, 64, 8);
    AT(WT_SESSION, compact, 72, 8);
    AT(WT_SESSION, drop, 80, 8);
    AT(WT_SESSION, join, 88, 8);
    AT(WT_SESSION, log_flush, 96, 8);
    AT(WT_SESSION, log_printf, 104, 8);
    AT(WT_SESSION, rename, 112, 8);
    AT(WT_SESSION, reset, 120, 8);
    AT(WT_SESSION, salvage, 128, 8);
    AT(WT_SESSION, truncate, 136, 8);
    AT(WT_SESSION, verify, 144, 8);
    AT(WT_SESSION, begin_transaction, 152, 8);
    AT(WT_SESSION, commit_transaction, 160, 8);
    AT(WT_SESSION, prepare_transaction, 168, 8);
    AT(WT_SESSION, rollback_transaction, 176, 8);
    AT(WT_SESSION, query_timestamp, 184, 8);
    AT(WT_SESSION, timestamp_transaction, 192, 8);
    AT(WT_SESSION, timestamp_transaction_uint, 200, 8);
    AT(WT_SESSION, checkpoint, 208, 8);
    AT(WT_SESSION, reset_snapshot, 216, 8);
    AT(WT_SESSION, transaction_pinned_range, 224, 8);
    AT(WT_SESSION, get_rollback_reason, 232, 8);
    AT(WT_SESSION, breakpoint, 240, 8);
    SIZE(WT_CONNECTION, 168);
    AT(WT_CONNECTION, close, 0, 8);
    AT(WT_CONNECTION, debug_info, 8, 8);
    AT(WT_CONNECTION, reconfigure, 16, 8);
    AT(WT_CONNECTION, get_home, 24, 8);
    AT(WT_CONNECTION, compile_configuration, 32, 8);
    AT(WT_CONNECTION, configure_method, 40, 8);
    AT(WT_CONNECTION, is_new, 48, 8);
    AT(WT_CONNECTION, open_session, 56, 8);
    AT(WT_CONNECTION, query_timestamp, 64, 8);
    AT(WT_CONNECTION, set_timestamp, 72, 8);
    AT(WT_CONNECTION, rollback_to_stable, 80, 8);
    AT(WT_CONNECTION, load_extension, 88, 8);
    AT(WT_CONNECTION, add_data_source, 96, 8);
    AT(WT_CONNECTION, add_collator, 104, 8);
    AT(WT_CONNECTION, add_compressor, 112, 8);
    AT(WT_CONNECTION, add_encryptor, 120, 8);
    AT(WT_CONNECTION, add_extractor, 128, 8);
    AT(WT_CONNECTION, set_file_system, 136, 8);
    AT(WT_CONNECTION, add_storage_source, 144, 8);
    AT(WT_CONNECTION, get_storage_source, 152, 8);
    AT(WT_CONNECTION, get_extension_api, 160, 8);
    SIZE(WT_ITEM, 40);
    AT(WT_ITEM, data, 0, 8);
    AT(WT_ITEM, size, 8, 8);
    AT(WT_ITEM, mem, 16, 8);
    AT(WT_ITEM, memsize, 24, 8);
    AT(WT_ITEM, flags, 32, 4);
    SIZE(WT_EVENT_HANDLER, 40);
    AT(WT_EVENT_HANDLER, handle_error, 0, 8);
    AT(WT_EVENT_HANDLER, handle_message, 8, 8);
    AT(WT_EVENT_HANDLER, handle_progress, 16, 8);
    AT(WT_EVENT_HANDLER, handle_close, 24, 8);
    AT(WT_EVENT_HANDLER, handle_general, 32, 8);
    SIZE(WT_MODIFY, 56);
    AT(WT_MODIFY, data, 0, 40);
    AT(WT_MODIFY, offset, 40, 8);
    AT(WT_MODIFY, size, 48, 8);
#if defined(__x86_64__)
    /* offsets above are the x86-64 ones */
#endif
    /* Statistics keys are ABI too: programs search statistics cursors by them. */
    CHECK(WT_STAT_CONN_LSM_WORK_QUEUE_APP == 1000);
    CHECK(WT_STAT_CONN_CURSOR_OPEN_COUNT == 1425);
    CHECK(WT_STAT_DSRC_CURSOR_OPEN_COUNT == 2228);
    CHECK(WT_STAT_JOIN_MAIN_ACCESS == 3000);
    CHECK(WT_STAT_SESSION_BYTES_READ == 4000);
    CHECK(WT_STAT_SESSION_CACHE_TIME == 4007);
    return ul_done("abi");
}
