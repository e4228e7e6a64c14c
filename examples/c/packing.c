/*
 * packing.c -- pack several fields into bytes and back with wiredtiger_struct_pack, _size
 * and _unpack, the encoding that tables use for their keys and values.
 *
 * The format letters are those of key_format/value_format: here "i" a 32-bit signed integer,
 * "S" a NUL-terminated string, "q" a 64-bit signed integer, "u" a WT_ITEM of raw bytes (last
 * field: its length is implied). Integers are packed so that their bytes sort like the
 * numbers, and small numbers take fewer bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wiredtiger.h>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        int check_ret_ = (call);                                                           \
        if (check_ret_ != 0) {                                                             \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                  \
              wiredtiger_strerror(check_ret_));                                            \
            exit(EXIT_FAILURE);                                                            \
        }                                                                                  \
    } while (0)

int
main(void)
{
    static const char format[] = "iSqu";
    unsigned char buf[64];
    WT_ITEM blob, blob_out;
    const char *name;
    int32_t small;
    int64_t big;
    size_t len, i;

    blob.data = "\x01\x02\x03";
    blob.size = 3;

    /* The exact size first, so that the buffer can be sized (or allocated) to fit. */
    CHECK(wiredtiger_struct_size(NULL, &len, format, (int32_t)7, "seven", (int64_t)-70000, &blob));
    if (len > sizeof(buf)) {
        fprintf(stderr, "buffer too small\n");
        return EXIT_FAILURE;
    }

    /* Pack. The session argument may be NULL: errors then go to stderr. */
    CHECK(wiredtiger_struct_pack(NULL, buf, len, format, (int32_t)7, "seven", (int64_t)-70000, &blob));
    printf("%s packs into %zu bytes:", format, len);
    for (i = 0; i < len; i++)
        printf(" %02x", buf[i]);
    printf("\n");

    /*
     * Unpack into pointers of the same types. The string and the item point into `buf`: they
     * stay valid as long as `buf` does.
     */
    CHECK(wiredtiger_struct_unpack(NULL, buf, len, format, &small, &name, &big, &blob_out));
    printf("unpacked: %d \"%s\" %lld and %zu raw bytes\n", (int)small, name, (long long)big,
      blob_out.size);

    return small == 7 && strcmp(name, "seven") == 0 && big == -70000 && blob_out.size == 3 &&
        memcmp(blob_out.data, "\x01\x02\x03", 3) == 0 ?
      EXIT_SUCCESS :
      EXIT_FAILURE;
}
