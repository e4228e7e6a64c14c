/*
 * wiredtiger_ext.h -- the WiredTiger 11.3.1 extension API (WT_EXTENSION_API), as implemented by
 * unlatched. Written by hand (not generated): the struct's members, their order and their types
 * are the reference's, so extensions built against the reference's header work unchanged
 * (c-tests/extension_api.c checks the offsets).
 *
 * An extension gets the table with WT_CONNECTION::get_extension_api. Members unlatched does not
 * implement answer ENOTSUP with a message; none is NULL.
 */
#ifndef __WIREDTIGER_EXT_H_
#define __WIREDTIGER_EXT_H_

#include <wiredtiger.h>

#if defined(__cplusplus)
extern "C" {
#endif

typedef struct __wt_extension_spinlock WT_EXTENSION_SPINLOCK;

/*! A lock an extension can use through WT_EXTENSION_API::spin_lock and spin_unlock. */
struct __wt_extension_spinlock {
    void *spinlock; /* The library's lock, made by spin_init. */
};

/*! The methods the library lends to extensions (append-only, as in the reference). */
struct __wt_extension_api {
    /*! The connection the table belongs to. */
    WT_CONNECTION *conn;

    /*! Reports an error message through the session's (or the connection's) event handler. */
    int (*err_printf)(WT_EXTENSION_API *wt_api, WT_SESSION *session, const char *fmt, ...);

    /*! Reports an informational message likewise. */
    int (*msg_printf)(WT_EXTENSION_API *wt_api, WT_SESSION *session, const char *fmt, ...);

    /*! The text of an error code. */
    const char *(*strerror)(WT_EXTENSION_API *wt_api, WT_SESSION *session, int error);

    /*! Windows error codes: ENOTSUP here. */
    int (*map_windows_error)(WT_EXTENSION_API *wt_api, WT_SESSION *session, uint32_t windows_error);

    /*! Allocates scratch memory (freed with scr_free). */
    void *(*scr_alloc)(WT_EXTENSION_API *wt_api, WT_SESSION *session, size_t bytes);

    /*! Frees memory from scr_alloc. */
    void (*scr_free)(WT_EXTENSION_API *wt_api, WT_SESSION *session, void *ref);

    /*! The collator a configuration names: ENOTSUP here (collated tables are not supported). */
    int (*collator_config)(WT_EXTENSION_API *wt_api, WT_SESSION *session, const char *uri,
      WT_CONFIG_ARG *config, WT_COLLATOR **collatorp, int *ownp);

    /*! Compares two items with a collator, bytewise when it is NULL. */
    int (*collate)(WT_EXTENSION_API *wt_api, WT_SESSION *session, WT_COLLATOR *collator,
      WT_ITEM *first, WT_ITEM *second, int *cmp);

    /*! The value of a key in a configuration argument (WT_NOTFOUND when absent). */
    int (*config_get)(WT_EXTENSION_API *wt_api, WT_SESSION *session, WT_CONFIG_ARG *config,
      const char *key, WT_CONFIG_ITEM *value);

    /*! The value of a key in a configuration string (WT_NOTFOUND when absent). */
    int (*config_get_string)(WT_EXTENSION_API *wt_api, WT_SESSION *session, const char *config,
      const char *key, WT_CONFIG_ITEM *value);

    /*! A parser over a configuration string (wiredtiger_config_parser_open). */
    int (*config_parser_open)(WT_EXTENSION_API *wt_api, WT_SESSION *session, const char *config,
      size_t len, WT_CONFIG_PARSER **config_parserp);

    /*! A parser over a configuration argument. */
    int (*config_parser_open_arg)(WT_EXTENSION_API *wt_api, WT_SESSION *session,
      WT_CONFIG_ARG *config, WT_CONFIG_PARSER **config_parserp);

    /*! The connection's file system: ENOTSUP here. */
    int (*file_system_get)(
      WT_EXTENSION_API *wt_api, WT_SESSION *session, WT_FILE_SYSTEM **file_system);

    /*! Metadata writes and reads by extensions: ENOTSUP here. */
    int (*metadata_insert)(
      WT_EXTENSION_API *wt_api, WT_SESSION *session, const char *key, const char *value);
    int (*metadata_remove)(WT_EXTENSION_API *wt_api, WT_SESSION *session, const char *key);
    int (*metadata_search)(
      WT_EXTENSION_API *wt_api, WT_SESSION *session, const char *key, char **valuep);
    int (*metadata_update)(
      WT_EXTENSION_API *wt_api, WT_SESSION *session, const char *key, const char *value);

    /*! wiredtiger_struct_pack, wiredtiger_struct_size and wiredtiger_struct_unpack. */
    int (*struct_pack)(WT_EXTENSION_API *wt_api, WT_SESSION *session, void *buffer, size_t size,
      const char *format, ...);
    int (*struct_size)(
      WT_EXTENSION_API *wt_api, WT_SESSION *session, size_t *sizep, const char *format, ...);
    int (*struct_unpack)(WT_EXTENSION_API *wt_api, WT_SESSION *session, const void *buffer,
      size_t size, const char *format, ...);

    /*! The streaming packing functions (wiredtiger_pack_start and the others). */
    int (*pack_start)(WT_EXTENSION_API *wt_api, WT_SESSION *session, const char *format,
      void *buffer, size_t size, WT_PACK_STREAM **psp);
    int (*unpack_start)(WT_EXTENSION_API *wt_api, WT_SESSION *session, const char *format,
      const void *buffer, size_t size, WT_PACK_STREAM **psp);
    int (*pack_close)(WT_EXTENSION_API *wt_api, WT_PACK_STREAM *ps, size_t *usedp);
    int (*pack_item)(WT_EXTENSION_API *wt_api, WT_PACK_STREAM *ps, WT_ITEM *item);
    int (*pack_int)(WT_EXTENSION_API *wt_api, WT_PACK_STREAM *ps, int64_t i);
    int (*pack_str)(WT_EXTENSION_API *wt_api, WT_PACK_STREAM *ps, const char *s);
    int (*pack_uint)(WT_EXTENSION_API *wt_api, WT_PACK_STREAM *ps, uint64_t u);
    int (*unpack_item)(WT_EXTENSION_API *wt_api, WT_PACK_STREAM *ps, WT_ITEM *item);
    int (*unpack_int)(WT_EXTENSION_API *wt_api, WT_PACK_STREAM *ps, int64_t *ip);
    int (*unpack_str)(WT_EXTENSION_API *wt_api, WT_PACK_STREAM *ps, const char **sp);
    int (*unpack_uint)(WT_EXTENSION_API *wt_api, WT_PACK_STREAM *ps, uint64_t *up);

    /*! wiredtiger_version. */
    const char *(*version)(int *majorp, int *minorp, int *patchp);

    /*! A lock for extensions: made by spin_init, freed by spin_destroy. */
    int (*spin_init)(WT_EXTENSION_API *wt_api, WT_EXTENSION_SPINLOCK *spinlock, const char *name);
    void (*spin_destroy)(WT_EXTENSION_API *wt_api, WT_EXTENSION_SPINLOCK *spinlock);
    void (*spin_lock)(
      WT_EXTENSION_API *wt_api, WT_SESSION *session, WT_EXTENSION_SPINLOCK *spinlock);
    void (*spin_unlock)(
      WT_EXTENSION_API *wt_api, WT_SESSION *session, WT_EXTENSION_SPINLOCK *spinlock);
};

#if defined(__cplusplus)
}
#endif
#endif /* __WIREDTIGER_EXT_H_ */
