/*
 * A loadable extension for c-tests/extensions.c: its entry function registers a collator and two
 * compressors with the connection it is given; its terminate function and the terminate methods
 * append to a file named by UL_EXT_TRACE, so the test can check what ran at close, in order.
 * With `config=(extra=NAME)` given to load_extension, read through the extension API's
 * config_get, it registers the collator under NAME too.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "wiredtiger.h"
#include "wiredtiger_ext.h"

static void
trace(const char *what)
{
    const char *path = getenv("UL_EXT_TRACE");
    FILE *f;
    if (path == NULL || (f = fopen(path, "a")) == NULL)
        return;
    fprintf(f, "%s\n", what);
    fclose(f);
}

static int
compare_nocase(WT_COLLATOR *collator, WT_SESSION *session, const WT_ITEM *a, const WT_ITEM *b, int *cmp)
{
    (void)collator;
    (void)session;
    *cmp = strcasecmp((const char *)a->data, (const char *)b->data);
    return (0);
}

static int
collator_terminate(WT_COLLATOR *collator, WT_SESSION *session)
{
    (void)collator;
    (void)session;
    trace("collator terminate");
    return (0);
}

static WT_COLLATOR ext_nocase = {compare_nocase, NULL, collator_terminate};

static int
copy_compress(WT_COMPRESSOR *compressor, WT_SESSION *session, uint8_t *src, size_t src_len, uint8_t *dst,
  size_t dst_len, size_t *result_lenp, int *compression_failed)
{
    (void)compressor;
    (void)session;
    (void)src;
    (void)dst;
    (void)dst_len;
    *result_lenp = src_len;
    *compression_failed = 1;
    return (0);
}

static int
copy_decompress(WT_COMPRESSOR *compressor, WT_SESSION *session, uint8_t *src, size_t src_len, uint8_t *dst,
  size_t dst_len, size_t *result_lenp)
{
    (void)compressor;
    (void)session;
    memcpy(dst, src, src_len < dst_len ? src_len : dst_len);
    *result_lenp = src_len;
    return (0);
}

static WT_COMPRESSOR ext_copy = {copy_compress, copy_decompress, NULL, NULL};

/*
 * Run-length coding (pairs of run length and byte), registered as "ext_rle": a compressor that
 * does compress, for journal records (log=(compressor=ext_rle)). Its first compress and first
 * decompress of each load are traced.
 */
static int
rle_compress(WT_COMPRESSOR *compressor, WT_SESSION *session, uint8_t *src, size_t src_len, uint8_t *dst,
  size_t dst_len, size_t *result_lenp, int *compression_failed)
{
    static int traced;
    size_t i = 0, out = 0, run;

    (void)compressor;
    (void)session;
    if (!traced++)
        trace("rle compress");
    while (i < src_len) {
        for (run = 1; i + run < src_len && run < 255 && src[i + run] == src[i]; run++)
            ;
        if (out + 2 > dst_len) {
            *compression_failed = 1;
            return (0);
        }
        dst[out++] = (uint8_t)run;
        dst[out++] = src[i];
        i += run;
    }
    *result_lenp = out;
    *compression_failed = 0;
    return (0);
}

static int
rle_decompress(WT_COMPRESSOR *compressor, WT_SESSION *session, uint8_t *src, size_t src_len, uint8_t *dst,
  size_t dst_len, size_t *result_lenp)
{
    static int traced;
    size_t i, out = 0;

    (void)compressor;
    (void)session;
    if (!traced++)
        trace("rle decompress");
    for (i = 0; i + 1 < src_len; i += 2) {
        if (out + src[i] > dst_len)
            return (EINVAL);
        memset(dst + out, src[i + 1], src[i]);
        out += src[i];
    }
    *result_lenp = out;
    return (0);
}

static WT_COMPRESSOR ext_rle = {rle_compress, rle_decompress, NULL, NULL};

/* The same collator, without a terminate method, for the name `extra=` gives. */
static WT_COLLATOR ext_extra = {compare_nocase, NULL, NULL};

int
wiredtiger_extension_init(WT_CONNECTION *connection, WT_CONFIG_ARG *config)
{
    WT_EXTENSION_API *api = connection->get_extension_api(connection);
    WT_CONFIG_ITEM extra;
    char name[64];
    int ret;
    trace("init");
    if (api == NULL || api->conn != connection)
        return (EINVAL);
    if ((ret = connection->add_collator(connection, "ext_nocase", &ext_nocase, NULL)) != 0)
        return (ret);
    if ((ret = api->config_get(api, NULL, config, "extra", &extra)) == 0) {
        snprintf(name, sizeof(name), "%.*s", (int)extra.len, extra.str);
        if ((ret = connection->add_collator(connection, name, &ext_extra, NULL)) != 0)
            return (ret);
    } else if (ret != WT_NOTFOUND)
        return (ret);
    if ((ret = connection->add_compressor(connection, "ext_rle", &ext_rle, NULL)) != 0)
        return (ret);
    return (connection->add_compressor(connection, "ext_copy", &ext_copy, NULL));
}

int
wiredtiger_extension_terminate(WT_CONNECTION *connection)
{
    (void)connection;
    trace("library terminate");
    return (0);
}
