/*
 * The public types an application or an extension fills in and hands to the library (collators,
 * extractors, compressors, encryptors, data sources, file systems, storage sources), the
 * configuration-parser types, and the constants that name cursor flags, journal records and
 * file-system options. Member lists, their order and types follow WiredTiger 11.3.1 exactly,
 * so that a program built for it fills the same slots. build.rs pastes this file into
 * wiredtiger.h after the handle typedefs.
 */

/* Function-pointer members are written __F(name): a plain declarator for documentation tools. */
#if defined(DOXYGEN) || defined(SWIG)
#define __F(func) func
#else
#define __F(func) (*func)
#endif

/* Marks the library's entry points as exported even where hidden visibility is the default. */
#if defined(DOXYGEN) || defined(SWIG) || !defined(__GNUC__)
#define WT_ATTRIBUTE_LIBRARY_VISIBLE
#else
#define WT_ATTRIBUTE_LIBRARY_VISIBLE __attribute__((visibility("default")))
#endif

/*! File offsets and sizes in the file-system interface. */
typedef off_t wt_off_t;

/*! Opaque configuration handed to extension entry points and customize methods. */
struct __wt_config_arg;
typedef struct __wt_config_arg WT_CONFIG_ARG;
typedef struct __wt_file_handle WT_FILE_HANDLE;

/*! One key or value of a configuration string (WT_CONFIG_PARSER, extension configuration). */
struct __wt_config_item {
    /*! The text: quoted strings without their quotes, bracketed groups with their brackets. */
    const char *str;
    /*! Length of \c str in bytes (the text is not NUL-terminated). */
    size_t len;
    /*! The value of a number (suffixes applied) or a boolean (0 or 1). */
    int64_t val;
    /*! What the item is. */
    enum WT_CONFIG_ITEM_TYPE {
        WT_CONFIG_ITEM_STRING,
        WT_CONFIG_ITEM_BOOL,
        WT_CONFIG_ITEM_ID,
        WT_CONFIG_ITEM_NUM,
        WT_CONFIG_ITEM_STRUCT
    } type;
};
/* The enum is declared inside the struct: in C++ it is a member type. */
#if defined(__cplusplus)
typedef enum __wt_config_item::WT_CONFIG_ITEM_TYPE WT_CONFIG_ITEM_TYPE;
#else
typedef enum WT_CONFIG_ITEM_TYPE WT_CONFIG_ITEM_TYPE;
#endif

/*! Walks a configuration string: returned by wiredtiger_config_parser_open. */
struct __wt_config_parser {
    /*! Frees the parser (the string it walked is the caller's). */
    int __F(close)(WT_CONFIG_PARSER *config_parser);
    /*! The next key and value at the top level; WT_NOTFOUND after the last. */
    int __F(next)(WT_CONFIG_PARSER *config_parser, WT_CONFIG_ITEM *key, WT_CONFIG_ITEM *value);
    /*! The value of \c key ("a.b" reaches into groups); WT_NOTFOUND when absent. */
    int __F(get)(WT_CONFIG_PARSER *config_parser, const char *key, WT_CONFIG_ITEM *value);
};

/*! An application-supplied key order (WT_CONNECTION::add_collator, "collator=" at create). */
struct __wt_collator {
    /*! Sets \c *cmp below, at or above zero as \c key1 sorts before, with or after \c key2. */
    int (*compare)(WT_COLLATOR *collator, WT_SESSION *session, const WT_ITEM *key1,
      const WT_ITEM *key2, int *cmp);
    /*! Optional: a collator specialised for the object \c uri, or NULL to use this one. */
    int (*customize)(WT_COLLATOR *collator, WT_SESSION *session, const char *uri,
      WT_CONFIG_ITEM *passcfg, WT_COLLATOR **customp);
    /*! Optional: called once when the connection closes. */
    int (*terminate)(WT_COLLATOR *collator, WT_SESSION *session);
};

/*! An application-supplied compressor (WT_CONNECTION::add_compressor, "block_compressor="). */
struct __wt_compressor {
    /*! Compresses \c src into \c dst; sets \c *compression_failed when it did not shrink. */
    int (*compress)(WT_COMPRESSOR *compressor, WT_SESSION *session, uint8_t *src, size_t src_len,
      uint8_t *dst, size_t dst_len, size_t *result_lenp, int *compression_failed);
    /*! Restores what compress wrote. */
    int (*decompress)(WT_COMPRESSOR *compressor, WT_SESSION *session, uint8_t *src,
      size_t src_len, uint8_t *dst, size_t dst_len, size_t *result_lenp);
    /*! Optional: the largest output compress may need for \c src_len bytes. */
    int (*pre_size)(
      WT_COMPRESSOR *compressor, WT_SESSION *session, uint8_t *src, size_t src_len, size_t *result_lenp);
    /*! Optional: called once when the connection closes. */
    int (*terminate)(WT_COMPRESSOR *compressor, WT_SESSION *session);
};

/*! Derives index keys from a row (WT_CONNECTION::add_extractor, "extractor=" on an index). */
struct __wt_extractor {
    /*! Inserts the index keys of one row into \c result_cursor. */
    int (*extract)(WT_EXTRACTOR *extractor, WT_SESSION *session, const WT_ITEM *key,
      const WT_ITEM *value, WT_CURSOR *result_cursor);
    /*! Optional: an extractor specialised for the index \c uri. */
    int (*customize)(WT_EXTRACTOR *extractor, WT_SESSION *session, const char *uri,
      WT_CONFIG_ITEM *appcfg, WT_EXTRACTOR **customp);
    /*! Optional: called once when the connection closes. */
    int (*terminate)(WT_EXTRACTOR *extractor, WT_SESSION *session);
};

/*! An application-supplied encryptor (WT_CONNECTION::add_encryptor). */
struct __wt_encryptor {
    /*! Encrypts \c src into \c dst. */
    int (*encrypt)(WT_ENCRYPTOR *encryptor, WT_SESSION *session, uint8_t *src, size_t src_len,
      uint8_t *dst, size_t dst_len, size_t *result_lenp);
    /*! Restores what encrypt wrote. */
    int (*decrypt)(WT_ENCRYPTOR *encryptor, WT_SESSION *session, uint8_t *src, size_t src_len,
      uint8_t *dst, size_t dst_len, size_t *result_lenp);
    /*! The fixed number of bytes encryption may add. */
    int (*sizing)(WT_ENCRYPTOR *encryptor, WT_SESSION *session, size_t *expansion_constantp);
    /*! Optional: an encryptor specialised for a key configuration. */
    int (*customize)(WT_ENCRYPTOR *encryptor, WT_SESSION *session, WT_CONFIG_ARG *encrypt_config,
      WT_ENCRYPTOR **customp);
    /*! Optional: called once when the connection closes. */
    int (*terminate)(WT_ENCRYPTOR *encryptor, WT_SESSION *session);
};

/*! An application-supplied object type (WT_CONNECTION::add_data_source). */
struct __wt_data_source {
    int (*alter)(WT_DATA_SOURCE *dsrc, WT_SESSION *session, const char *uri, WT_CONFIG_ARG *config);
    int (*create)(WT_DATA_SOURCE *dsrc, WT_SESSION *session, const char *uri, WT_CONFIG_ARG *config);
    int (*compact)(WT_DATA_SOURCE *dsrc, WT_SESSION *session, const char *uri, WT_CONFIG_ARG *config);
    int (*drop)(WT_DATA_SOURCE *dsrc, WT_SESSION *session, const char *uri, WT_CONFIG_ARG *config);
    int (*open_cursor)(WT_DATA_SOURCE *dsrc, WT_SESSION *session, const char *uri,
      WT_CONFIG_ARG *config, WT_CURSOR **new_cursor);
    int (*rename)(WT_DATA_SOURCE *dsrc, WT_SESSION *session, const char *uri, const char *newuri,
      WT_CONFIG_ARG *config);
    int (*salvage)(WT_DATA_SOURCE *dsrc, WT_SESSION *session, const char *uri, WT_CONFIG_ARG *config);
    int (*size)(WT_DATA_SOURCE *dsrc, WT_SESSION *session, const char *uri, wt_off_t *size);
    int (*truncate)(WT_DATA_SOURCE *dsrc, WT_SESSION *session, const char *uri, WT_CONFIG_ARG *config);
    int (*range_truncate)(WT_DATA_SOURCE *dsrc, WT_SESSION *session, WT_CURSOR *start, WT_CURSOR *stop);
    int (*verify)(WT_DATA_SOURCE *dsrc, WT_SESSION *session, const char *uri, WT_CONFIG_ARG *config);
    int (*checkpoint)(WT_DATA_SOURCE *dsrc, WT_SESSION *session, WT_CONFIG_ARG *config);
    int (*terminate)(WT_DATA_SOURCE *dsrc, WT_SESSION *session);
    int (*lsm_pre_merge)(WT_DATA_SOURCE *dsrc, WT_CURSOR *source, WT_CURSOR *dest);
};

/*! What a file opened through WT_FILE_SYSTEM::fs_open_file holds. */
typedef enum {
    WT_FS_OPEN_FILE_TYPE_CHECKPOINT,
    WT_FS_OPEN_FILE_TYPE_DATA,
    WT_FS_OPEN_FILE_TYPE_DIRECTORY,
    WT_FS_OPEN_FILE_TYPE_LOG,
    WT_FS_OPEN_FILE_TYPE_REGULAR
} WT_FS_OPEN_FILE_TYPE;

/*! Flags of WT_FILE_SYSTEM::fs_open_file, fs_remove and fs_rename. */
#define WT_FS_OPEN_ACCESS_RAND 0x001u
#define WT_FS_OPEN_ACCESS_SEQ 0x002u
#define WT_FS_OPEN_CREATE 0x004u
#define WT_FS_OPEN_DIRECTIO 0x008u
#define WT_FS_OPEN_DURABLE 0x010u
#define WT_FS_OPEN_EXCLUSIVE 0x020u
#define WT_FS_OPEN_FIXED 0x040u
#define WT_FS_OPEN_FORCE_MMAP 0x080u
#define WT_FS_OPEN_READONLY 0x100u
#define WT_FS_DURABLE 0x1u

/*! Advice of WT_FILE_HANDLE::fh_advise. */
#define WT_FILE_HANDLE_DONTNEED 1
#define WT_FILE_HANDLE_WILLNEED 2

/*! An application-supplied file system (WT_CONNECTION::set_file_system). */
struct __wt_file_system {
    int (*fs_directory_list)(WT_FILE_SYSTEM *file_system, WT_SESSION *session,
      const char *directory, const char *prefix, char ***dirlist, uint32_t *countp);
#if !defined(DOXYGEN)
    int (*fs_directory_list_single)(WT_FILE_SYSTEM *file_system, WT_SESSION *session,
      const char *directory, const char *prefix, char ***dirlist, uint32_t *countp);
#endif
    int (*fs_directory_list_free)(
      WT_FILE_SYSTEM *file_system, WT_SESSION *session, char **dirlist, uint32_t count);
    int (*fs_exist)(WT_FILE_SYSTEM *file_system, WT_SESSION *session, const char *name, bool *existp);
    int (*fs_open_file)(WT_FILE_SYSTEM *file_system, WT_SESSION *session, const char *name,
      WT_FS_OPEN_FILE_TYPE file_type, uint32_t flags, WT_FILE_HANDLE **file_handlep);
    int (*fs_remove)(WT_FILE_SYSTEM *file_system, WT_SESSION *session, const char *name, uint32_t flags);
    int (*fs_rename)(WT_FILE_SYSTEM *file_system, WT_SESSION *session, const char *from,
      const char *to, uint32_t flags);
    int (*fs_size)(WT_FILE_SYSTEM *file_system, WT_SESSION *session, const char *name, wt_off_t *sizep);
    int (*terminate)(WT_FILE_SYSTEM *file_system, WT_SESSION *session);
};

/*! One open file of an application-supplied file system. */
struct __wt_file_handle {
    /*! The file system that opened it. */
    WT_FILE_SYSTEM *file_system;
    /*! The file's name as opened. */
    char *name;
    int (*close)(WT_FILE_HANDLE *file_handle, WT_SESSION *session);
    int (*fh_advise)(
      WT_FILE_HANDLE *file_handle, WT_SESSION *session, wt_off_t offset, wt_off_t len, int advice);
    int (*fh_extend)(WT_FILE_HANDLE *file_handle, WT_SESSION *session, wt_off_t offset);
    int (*fh_extend_nolock)(WT_FILE_HANDLE *file_handle, WT_SESSION *session, wt_off_t offset);
    int (*fh_lock)(WT_FILE_HANDLE *file_handle, WT_SESSION *session, bool lock);
    int (*fh_map)(WT_FILE_HANDLE *file_handle, WT_SESSION *session, void **mapped_regionp,
      size_t *lengthp, void **mapped_cookiep);
    int (*fh_map_discard)(WT_FILE_HANDLE *file_handle, WT_SESSION *session, void *map,
      size_t length, void *mapped_cookie);
    int (*fh_map_preload)(WT_FILE_HANDLE *file_handle, WT_SESSION *session, const void *map,
      size_t length, void *mapped_cookie);
    int (*fh_unmap)(WT_FILE_HANDLE *file_handle, WT_SESSION *session, void *mapped_region,
      size_t length, void *mapped_cookie);
    int (*fh_read)(
      WT_FILE_HANDLE *file_handle, WT_SESSION *session, wt_off_t offset, size_t len, void *buf);
    int (*fh_size)(WT_FILE_HANDLE *file_handle, WT_SESSION *session, wt_off_t *sizep);
    int (*fh_sync)(WT_FILE_HANDLE *file_handle, WT_SESSION *session);
    int (*fh_sync_nowait)(WT_FILE_HANDLE *file_handle, WT_SESSION *session);
    int (*fh_truncate)(WT_FILE_HANDLE *file_handle, WT_SESSION *session, wt_off_t offset);
    int (*fh_write)(WT_FILE_HANDLE *file_handle, WT_SESSION *session, wt_off_t offset,
      size_t length, const void *buf);
};

/*! An application-supplied object store (WT_CONNECTION::add_storage_source). */
struct __wt_storage_source {
    int (*ss_add_reference)(WT_STORAGE_SOURCE *storage_source);
    int (*ss_customize_file_system)(WT_STORAGE_SOURCE *storage_source, WT_SESSION *session,
      const char *bucket_name, const char *auth_token, const char *config,
      WT_FILE_SYSTEM **file_system);
    int (*ss_flush)(WT_STORAGE_SOURCE *storage_source, WT_SESSION *session,
      WT_FILE_SYSTEM *file_system, const char *source, const char *object, const char *config);
    int (*ss_flush_finish)(WT_STORAGE_SOURCE *storage_source, WT_SESSION *session,
      WT_FILE_SYSTEM *file_system, const char *source, const char *object, const char *config);
    int (*terminate)(WT_STORAGE_SOURCE *storage_source, WT_SESSION *session);
};

/*! Verbose categories and levels ("verbose=[category:level]"). */
typedef enum {
    WT_VERB_ALL,
    WT_VERB_API,
    WT_VERB_BACKUP,
    WT_VERB_BLKCACHE,
    WT_VERB_BLOCK,
    WT_VERB_CHECKPOINT,
    WT_VERB_CHECKPOINT_CLEANUP,
    WT_VERB_CHECKPOINT_PROGRESS,
    WT_VERB_CHUNKCACHE,
    WT_VERB_COMPACT,
    WT_VERB_COMPACT_PROGRESS,
    WT_VERB_CONFIGURATION,
    WT_VERB_DEFAULT,
    WT_VERB_ERROR_RETURNS,
    WT_VERB_EVICTION,
    WT_VERB_EXTENSION,
    WT_VERB_FILEOPS,
    WT_VERB_GENERATION,
    WT_VERB_HANDLEOPS,
    WT_VERB_HS,
    WT_VERB_HS_ACTIVITY,
    WT_VERB_LOG,
    WT_VERB_LSM,
    WT_VERB_LSM_MANAGER,
    WT_VERB_MUTEX,
    WT_VERB_METADATA,
    WT_VERB_OUT_OF_ORDER,
    WT_VERB_OVERFLOW,
    WT_VERB_PREFETCH,
    WT_VERB_READ,
    WT_VERB_RECONCILE,
    WT_VERB_RECOVERY,
    WT_VERB_RECOVERY_PROGRESS,
    WT_VERB_RTS,
    WT_VERB_SALVAGE,
    WT_VERB_SHARED_CACHE,
    WT_VERB_SPLIT,
    WT_VERB_TEMPORARY,
    WT_VERB_THREAD_GROUP,
    WT_VERB_TIERED,
    WT_VERB_TIMESTAMP,
    WT_VERB_TRANSACTION,
    WT_VERB_VERIFY,
    WT_VERB_VERSION,
    WT_VERB_WRITE,
    WT_VERB_NUM_CATEGORIES
} WT_VERBOSE_CATEGORY;

typedef enum {
    WT_VERBOSE_ERROR = -3,
    WT_VERBOSE_WARNING,
    WT_VERBOSE_NOTICE,
    WT_VERBOSE_INFO,
    WT_VERBOSE_DEBUG_1,
    WT_VERBOSE_DEBUG_2,
    WT_VERBOSE_DEBUG_3,
    WT_VERBOSE_DEBUG_4,
    WT_VERBOSE_DEBUG_5
} WT_VERBOSE_LEVEL;

/*! WT_CURSOR::flags bits (the library's own bookkeeping; applications only read them). */
#define WT_CURSTD_APPEND 0x000000001ull
#define WT_CURSTD_BOUND_LOWER 0x000000002ull
#define WT_CURSTD_BOUND_LOWER_INCLUSIVE 0x000000004ull
#define WT_CURSTD_BOUND_UPPER 0x000000008ull
#define WT_CURSTD_BOUND_UPPER_INCLUSIVE 0x000000010ull
#define WT_CURSTD_BULK 0x000000020ull
#define WT_CURSTD_CACHEABLE 0x000000040ull
#define WT_CURSTD_CACHED 0x000000080ull
#define WT_CURSTD_CACHED_WITH_MEM 0x000000100ull
#define WT_CURSTD_DEAD 0x000000200ull
#define WT_CURSTD_DEBUG_COPY_KEY 0x000000400ull
#define WT_CURSTD_DEBUG_COPY_VALUE 0x000000800ull
#define WT_CURSTD_DEBUG_RESET_EVICT 0x000001000ull
#define WT_CURSTD_DUMP_HEX 0x000002000ull
#define WT_CURSTD_DUMP_JSON 0x000004000ull
#define WT_CURSTD_DUMP_PRETTY 0x000008000ull
#define WT_CURSTD_DUMP_PRINT 0x000010000ull
#define WT_CURSTD_DUP_NO_VALUE 0x000020000ull
#define WT_CURSTD_EVICT_REPOSITION 0x000040000ull
#define WT_CURSTD_HS_READ_ACROSS_BTREE 0x000080000ull
#define WT_CURSTD_HS_READ_ALL 0x000100000ull
#define WT_CURSTD_HS_READ_COMMITTED 0x000200000ull
#define WT_CURSTD_IGNORE_TOMBSTONE 0x000400000ull
#define WT_CURSTD_JOINED 0x000800000ull
#define WT_CURSTD_KEY_EXT 0x001000000ull
#define WT_CURSTD_KEY_INT 0x002000000ull
#define WT_CURSTD_KEY_ONLY 0x004000000ull
#define WT_CURSTD_META_INUSE 0x008000000ull
#define WT_CURSTD_OPEN 0x010000000ull
#define WT_CURSTD_OVERWRITE 0x020000000ull
#define WT_CURSTD_RAW 0x040000000ull
#define WT_CURSTD_RAW_SEARCH 0x080000000ull
#define WT_CURSTD_VALUE_EXT 0x100000000ull
#define WT_CURSTD_VALUE_INT 0x200000000ull
#define WT_CURSTD_VERSION_CURSOR 0x400000000ull
#define WT_CURSTD_KEY_SET (WT_CURSTD_KEY_EXT | WT_CURSTD_KEY_INT)
#define WT_CURSTD_VALUE_SET (WT_CURSTD_VALUE_EXT | WT_CURSTD_VALUE_INT)
#define WT_CURSTD_BOUND_ALL                                                        \
    (WT_CURSTD_BOUND_UPPER | WT_CURSTD_BOUND_UPPER_INCLUSIVE | WT_CURSTD_BOUND_LOWER | \
      WT_CURSTD_BOUND_LOWER_INCLUSIVE)

/*! Kinds of the entries of a "backup:" cursor with incremental blocks. */
#define WT_BACKUP_INVALID 0
#define WT_BACKUP_FILE 1
#define WT_BACKUP_RANGE 2

/*! Journal record types and operation types, as a "log:" cursor returns them. */
#define WT_LOGREC_CHECKPOINT 0
#define WT_LOGREC_COMMIT 1
#define WT_LOGREC_FILE_SYNC 2
#define WT_LOGREC_MESSAGE 3
#define WT_LOGREC_SYSTEM 4
/*! Set on operation types a reader may skip (it does not know them). */
#define WT_LOGOP_IGNORE 0x80000000
#define WT_LOGOP_INVALID 0
#define WT_LOGOP_COL_PUT 1
#define WT_LOGOP_COL_REMOVE 2
#define WT_LOGOP_COL_TRUNCATE 3
#define WT_LOGOP_ROW_PUT 4
#define WT_LOGOP_ROW_REMOVE 5
#define WT_LOGOP_ROW_TRUNCATE 6
#define WT_LOGOP_CHECKPOINT_START 7
#define WT_LOGOP_PREV_LSN 8
#define WT_LOGOP_COL_MODIFY 9
#define WT_LOGOP_ROW_MODIFY 10
#define WT_LOGOP_TXN_TIMESTAMP (WT_LOGOP_IGNORE | 11)
#define WT_LOGOP_BACKUP_ID 12

#ifdef __cplusplus
extern "C" {
#endif
/*!
 * Entry points a loadable extension defines (WT_CONNECTION::load_extension calls them); the
 * library declares them only.
 */
extern int wiredtiger_extension_init(WT_CONNECTION *connection, WT_CONFIG_ARG *config);
extern int wiredtiger_extension_terminate(WT_CONNECTION *connection);
#ifdef __cplusplus
}
#endif
