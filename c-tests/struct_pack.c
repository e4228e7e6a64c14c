/*
 * wiredtiger_struct_pack / _size / _unpack with a NULL session and with a session: byte-exact
 * vectors from packing.md and pack-vectors.tsv, buffer too small (ENOMEM), invalid formats
 * (EINVAL, never a panic), unpack overruns (EINVAL), pointers into the buffer.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "util.h"

#define INMEM "create,in_memory=true"

static WT_SESSION *sess; /* NULL for the first pass, a real session for the second */
static ul_recorder rec;

/* Hex string -> bytes; returns the length. */
static size_t
unhex(const char *hex, unsigned char *out)
{
    size_t n = 0;
    unsigned v;
    while (hex[0] != '\0' && hex[1] != '\0') {
        sscanf(hex, "%2x", &v);
        out[n++] = (unsigned char)v;
        hex += 2;
    }
    return n;
}

static void
report(int line, const char *fmt, const unsigned char *got, size_t got_len, const char *want)
{
    size_t i;
    fprintf(stderr, "  line %d format \"%s\": packed ", line, fmt);
    for (i = 0; i < got_len; i++)
        fprintf(stderr, "%02x", got[i]);
    fprintf(stderr, ", expected %s\n", want);
}

/* Packs with the given arguments, checks size, bytes, and that nothing past them was written. */
#define PACKS(hex, fmt, ...)                                                                  \
    do {                                                                                      \
        unsigned char buf_[256], want_[128];                                                  \
        size_t wlen_ = unhex((hex), want_), size_ = 9999;                                    \
        int before_ = ul_failures;                                                            \
        memset(buf_, 0xee, sizeof(buf_));                                                     \
        OK(wiredtiger_struct_size(sess, &size_, (fmt), __VA_ARGS__));                        \
        CHECK(size_ == wlen_);                                                                \
        OK(wiredtiger_struct_pack(sess, buf_, sizeof(buf_), (fmt), __VA_ARGS__));            \
        CHECK(memcmp(buf_, want_, wlen_) == 0);                                               \
        CHECK(buf_[wlen_] == 0xee);                                                           \
        /* an exactly sized buffer is enough */                                               \
        memset(buf_, 0xee, sizeof(buf_));                                                     \
        OK(wiredtiger_struct_pack(sess, buf_, wlen_, (fmt), __VA_ARGS__));                   \
        CHECK(memcmp(buf_, want_, wlen_) == 0);                                               \
        if (ul_failures != before_)                                                           \
            report(__LINE__, (fmt), buf_, size_ < sizeof(buf_) ? size_ : 0, (hex));           \
    } while (0)

static void
test_integers(void)
{
    int8_t b;
    int16_t h;
    int32_t i;
    int64_t q;
    uint8_t B;
    uint16_t H;
    uint32_t I;
    uint64_t Q;
    unsigned char buf[64];

    /* packing.md section 2 worked examples. */
    PACKS("80", "q", (int64_t)0);
    PACKS("bf", "q", (int64_t)63);
    PACKS("c000", "q", (int64_t)64);
    PACKS("7f", "q", (int64_t)-1);
    PACKS("40", "q", (int64_t)-64);
    PACKS("3fff", "q", (int64_t)-65);
    PACKS("dfff", "q", (int64_t)8255);
    PACKS("e100", "q", (int64_t)8256);
    PACKS("e101", "q", (int64_t)8257);
    PACKS("2000", "q", (int64_t)-8256);
    PACKS("16dfbf", "q", (int64_t)-8257);
    PACKS("e1ff", "q", (int64_t)8511);
    PACKS("e20100", "q", (int64_t)8512);
    PACKS("160000", "q", (int64_t)-65536);
    PACKS("15feffff", "q", (int64_t)-65537);
    PACKS("e3010000", "q", (int64_t)73792);
    PACKS("e47fffdfbf", "q", (int64_t)INT32_MAX);
    PACKS("1480000000", "q", (int64_t)INT32_MIN);
    PACKS("e87fffffffffffdfbf", "q", INT64_MAX);
    PACKS("108000000000000000", "q", INT64_MIN);
    PACKS("e8ffffffffffffdfbf", "Q", UINT64_MAX);
    PACKS("e100", "Q", (uint64_t)8256);
    PACKS("e30f2200", "r", (uint64_t)1000000);
    PACKS("81", "r", (uint64_t)1);
    PACKS("e47fffdfbf", "i", INT32_MAX);
    PACKS("1480000000", "i", INT32_MIN);
    PACKS("1480000000", "l", INT32_MIN);
    PACKS("e4ffffdfbf", "I", UINT32_MAX);
    PACKS("e4ffffdfbf", "L", UINT32_MAX);
    PACKS("e25fbf", "h", 32767);
    PACKS("168000", "h", -32768);
    PACKS("e2f130", "h", 70000); /* no range check on pack */
    PACKS("e2dfbf", "H", 65535u);
    PACKS("e2f130", "H", 70000u);
    PACKS("80", "b", 0);
    PACKS("7f", "b", -1);
    PACKS("ff", "b", 127);
    PACKS("00", "b", -128);
    PACKS("48", "b", 200);
    PACKS("b8", "b", -200);
    PACKS("00", "B", 0u);
    PACKS("ff", "B", 255u);
    PACKS("00", "B", 256u);
    PACKS("e8", "B", 1000u);
    PACKS("01", "t", 1u);
    PACKS("05", "3t", 5u);
    PACKS("ff", "1t", 255u); /* no masking to the bit width */
    PACKS("ff", "8t", 255u);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    PACKS("0100000000000000", "R", (uint64_t)1); /* internal: 8 bytes in host order */
#endif
    PACKS("81", ".i", 1);
    PACKS("16dfbf", ".q", (int64_t)-8257);
    /* repeat counts */
    PACKS("817fc0ec", "3i", 1, -1, 300);
    PACKS("87e100", "2Q", (uint64_t)7, (uint64_t)8256);
    PACKS("85", "0ii", 5);
    PACKS("7f8081", "3b", -1, 0, 1);
    PACKS("7fff01", "bBt", -1, 255u, 1u);

    /* Round trips through unpack, with the unpack pointer types of packing.md section 1. */
    OK(wiredtiger_struct_pack(sess, buf, sizeof(buf), "bhiq", -128, INT16_MIN, INT32_MIN, INT64_MIN));
    b = 0;
    h = 0;
    i = 0;
    q = 0;
    OK(wiredtiger_struct_unpack(sess, buf, sizeof(buf), "bhiq", &b, &h, &i, &q));
    CHECK(b == -128 && h == INT16_MIN && i == INT32_MIN && q == INT64_MIN);
    OK(wiredtiger_struct_pack(sess, buf, sizeof(buf), "BHIQ", 255u, 65535u, UINT32_MAX, UINT64_MAX));
    B = 0;
    H = 0;
    I = 0;
    Q = 0;
    OK(wiredtiger_struct_unpack(sess, buf, sizeof(buf), "BHIQ", &B, &H, &I, &Q));
    CHECK(B == 255 && H == 65535 && I == UINT32_MAX && Q == UINT64_MAX);
    /* a 'h' of 70000 unpacks truncated into an int16_t */
    OK(wiredtiger_struct_pack(sess, buf, sizeof(buf), "h", 70000));
    h = 0;
    OK(wiredtiger_struct_unpack(sess, buf, 3, "h", &h));
    CHECK(h == (int16_t)(uint16_t)(70000 & 0xffff));
    /* the non-canonical e0 decodes as 8256 */
    buf[0] = 0xe0;
    Q = 0;
    OK(wiredtiger_struct_unpack(sess, buf, 1, "Q", &Q));
    CHECK(Q == 8256);
    /* boundaries of every varint length round-trip */
    {
        static const int64_t sv[] = {INT64_MIN, -((int64_t)1 << 56) - 1, -((int64_t)1 << 56),
          -((int64_t)1 << 32) - 1, -((int64_t)1 << 32), -16777217, -16777216, -65537, -65536, -8257,
          -8256, -65, -64, -1, 0, 63, 64, 8255, 8256, 8511, 8512, 73791, 73792, 16785471, 16785472,
          4294975551LL, 4294975552LL, INT64_MAX};
        size_t k, len;
        for (k = 0; k < sizeof(sv) / sizeof(sv[0]); k++) {
            OK(wiredtiger_struct_size(sess, &len, "q", sv[k]));
            OK(wiredtiger_struct_pack(sess, buf, len, "q", sv[k]));
            q = ~sv[k]; /* anything but the expected value */
            OK(wiredtiger_struct_unpack(sess, buf, len, "q", &q));
            CHECK(q == sv[k]);
        }
        /* lengths from the table in packing.md section 2 */
        OK(wiredtiger_struct_size(sess, &len, "q", (int64_t)16785471));
        CHECK(len == 4);
        OK(wiredtiger_struct_size(sess, &len, "q", (int64_t)16785472));
        CHECK(len == 5);
        OK(wiredtiger_struct_size(sess, &len, "q", (int64_t)4294975551LL));
        CHECK(len == 5);
        OK(wiredtiger_struct_size(sess, &len, "q", (int64_t)4294975552LL));
        CHECK(len == 6);
        OK(wiredtiger_struct_size(sess, &len, "q", (int64_t)-16777216));
        CHECK(len == 4);
        OK(wiredtiger_struct_size(sess, &len, "q", (int64_t)-16777217));
        CHECK(len == 5);
    }
}

static void
test_strings_items(void)
{
    WT_ITEM a, b, out, out2;
    unsigned char buf[256], big[64];
    const char *s1, *s2;
    int32_t i;
    size_t len;

    PACKS("00", "S", "");
    PACKS("6100", "S", "a");
    PACKS("636166c3a900", "S", "caf\xc3\xa9");
    PACKS("017fff00", "S", "\x01\x7f\xff");
    PACKS("0000000000", "5S", "");
    PACKS("6162000000", "5S", "ab");
    PACKS("6162636400", "5S", "abcd");
    PACKS("6162636465", "5S", "abcde");
    PACKS("6162636465", "5S", "abcdefgh");
    PACKS("78", "1S", "xyz");
    PACKS("61", "s", "a");
    PACKS("78", "s", "xyz");
    PACKS("616263", "3s", "abc");
    PACKS("6162000000", "5s", "ab\0\0\0");
    PACKS("61006200", "4s", "a\0b\0");
    PACKS("000000", "3x", 0); /* 'x' takes no argument; the 0 is ignored */
    PACKS("00", "x", 0);
    PACKS("8161626300", "iS", 1, "abc");
    PACKS("3fdc00", "iS", -100, "");
    PACKS("877800c006", "iSh", 7, "x", 70);
    PACKS("6162630081", "Si", "abc", 1);
    PACKS("616200636400", "SS", "ab", "cd");
    PACKS("0000", "SS", "", "");
    PACKS("8100000082", "i3xi", 1, 2);
    PACKS("78797a00", "2sS", "xy", "z");
    PACKS("6162006300", "3SS", "ab", "c");
    PACKS("816100", "rS", (uint64_t)1, "a");

    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    a.data = "ab";
    a.size = 2;
    b.data = "cde";
    b.size = 3;
    PACKS("826162636465", "uu", &a, &b);
    PACKS("82616285", "ui", &a, 5);
    PACKS("61620085", "3ui", &a, 5);
    PACKS("856162", "iu", 5, &a);
    PACKS("6162", "u", &a);
    PACKS("616200", "3u", &a);
    b.data = "abcd";
    b.size = 4;
    PACKS("616263", "3u", &b);
    PACKS("6b6579000102", "Su", "key", &(WT_ITEM){.data = "\x01\x02", .size = 2});
    PACKS("8201026b657900", "uS", &(WT_ITEM){.data = "\x01\x02", .size = 2}, "key");
    PACKS("6b00828376", "SiHu", "k", 2, 3u, &(WT_ITEM){.data = "v", .size = 1});
    PACKS("6162000000817b", "5sHq", "ab\0\0\0", 1u, (int64_t)-5);
    PACKS("83616263", "U", &(WT_ITEM){.data = "abc", .size = 3});
    PACKS("80", "U", &(WT_ITEM){.data = "", .size = 0});
    a.size = 0;
    b.size = 0;
    PACKS("80", "uu", &a, &b);
    OK(wiredtiger_struct_size(sess, &len, "u", &a));
    CHECK(len == 0);
    OK(wiredtiger_struct_size(sess, &len, "0u", &b));
    CHECK(len == 0);
    /* a 64-byte first item gets a 2-byte prefix */
    memset(big, 'z', sizeof(big));
    a.data = big;
    a.size = 64;
    b.data = "!";
    b.size = 1;
    OK(wiredtiger_struct_size(sess, &len, "uu", &a, &b));
    CHECK(len == 67);
    OK(wiredtiger_struct_pack(sess, buf, sizeof(buf), "uu", &a, &b));
    CHECK(buf[0] == 0xc0 && buf[1] == 0x00 && buf[2] == 'z' && buf[65] == 'z' && buf[66] == '!');

    /* the empty format packs nothing */
    OK(wiredtiger_struct_size(sess, &len, ""));
    CHECK(len == 0);
    OK(wiredtiger_struct_pack(sess, buf, sizeof(buf), ""));
    OK(wiredtiger_struct_unpack(sess, buf, 0, ""));

    /* Unpacked strings and items point into the buffer. */
    a.data = "\x00\x01\x02";
    a.size = 3;
    OK(wiredtiger_struct_pack(sess, buf, sizeof(buf), "SuiSu", "first", &a, -7, "", &a));
    s1 = s2 = NULL;
    memset(&out, 0, sizeof(out));
    memset(&out2, 0, sizeof(out2));
    i = 0;
    OK(wiredtiger_struct_size(sess, &len, "SuiSu", "first", &a, -7, "", &a));
    CHECK(len == 6 + 4 + 1 + 1 + 3);
    OK(wiredtiger_struct_unpack(sess, buf, len, "SuiSu", &s1, &out, &i, &s2, &out2));
    CHECK(s1 == (const char *)buf);
    CHECK_STR(s1, "first");
    CHECK(out.data == buf + 7 && out.size == 3 && memcmp(out.data, "\x00\x01\x02", 3) == 0);
    CHECK(i == -7);
    CHECK(s2 == (const char *)buf + 11);
    CHECK_STR(s2, "");
    /* a final 'u' takes all the remaining bytes */
    CHECK(out2.data == buf + 12 && out2.size == 3);

    /* Fixed-size strings: pointer to N bytes, not necessarily NUL-terminated. */
    OK(wiredtiger_struct_pack(sess, buf, sizeof(buf), "5S3sS", "abcdefgh", "xyz", "end"));
    s1 = s2 = NULL;
    const char *s3 = NULL;
    OK(wiredtiger_struct_unpack(sess, buf, 12, "5S3sS", &s1, &s2, &s3));
    CHECK(s1 == (const char *)buf && memcmp(s1, "abcde", 5) == 0);
    CHECK(s2 == (const char *)buf + 5 && memcmp(s2, "xyz", 3) == 0);
    CHECK_STR(s3, "end");
    /* Nu: N bytes */
    memset(&out, 0, sizeof(out));
    OK(wiredtiger_struct_unpack(sess, "ab\0\x85", 4, "3ui", &out, &i));
    CHECK(out.size == 3 && memcmp(out.data, "ab\0", 3) == 0 && i == 5);

    /* Trailing bytes after the last field are ignored. */
    i = 0;
    OK(wiredtiger_struct_unpack(sess, "\x85\x86\x87", 3, "i", &i));
    CHECK(i == 5);
}

static void
test_too_small(void)
{
    unsigned char buf[16];
    WT_ITEM a;

    memset(&a, 0, sizeof(a));
    CHECK_RC(wiredtiger_struct_pack(sess, buf, 3, "S", "abc"), ENOMEM);
    OK(wiredtiger_struct_pack(sess, buf, 4, "S", "abc"));
    a.data = "abcd";
    a.size = 4;
    CHECK_RC(wiredtiger_struct_pack(sess, buf, 3, "u", &a), ENOMEM);
    CHECK_RC(wiredtiger_struct_pack(sess, buf, 4, "ui", &a, 1), ENOMEM);
    CHECK_RC(wiredtiger_struct_pack(sess, buf, 5, "ui", &a, 1), ENOMEM); /* reference defect: fixed */
    OK(wiredtiger_struct_pack(sess, buf, 6, "ui", &a, 1));
    CHECK_RC(wiredtiger_struct_pack(sess, buf, 2, "3x"), ENOMEM);
    CHECK_RC(wiredtiger_struct_pack(sess, buf, 4, "iS", 1, "abc"), ENOMEM);
    CHECK_RC(wiredtiger_struct_pack(sess, buf, 1, "q", (int64_t)8256), ENOMEM);
    CHECK_RC(wiredtiger_struct_pack(sess, buf, 8, "q", INT64_MIN), ENOMEM);
    CHECK_RC(wiredtiger_struct_pack(sess, buf, 4, "5S", "ab"), ENOMEM);
    CHECK_RC(wiredtiger_struct_pack(sess, buf, 1, "ii", 1, 2), ENOMEM);
    /* len 0 is no exception */
    CHECK_RC(wiredtiger_struct_pack(sess, buf, 0, "i", 1), ENOMEM);
    OK(wiredtiger_struct_pack(sess, buf, 0, ""));
    OK(wiredtiger_struct_pack(sess, buf, 0, "0S", "abc"));
}

static void
test_bad_formats(void)
{
    unsigned char buf[16];
    size_t len;
    int32_t i;
    static const char *bad[] = {"zi", "iz", "<i", ">i", "@i", "!i", "=i", "0s", "00s", "9t", "0t",
      "10t", "2z", "i.", "..i", " i", "i i", "(i)",
      /* single characters: EINVAL here, never a panic */
      "z", "c", "d", "f", "p", "P", "?", "e", "n", "N", "<", ">", "@", "."};
    size_t k;

    for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        int before = ul_failures;
        CHECK_RC(wiredtiger_struct_pack(sess, buf, sizeof(buf), bad[k], 1), EINVAL);
        CHECK_RC(wiredtiger_struct_size(sess, &len, bad[k], 1), EINVAL);
        buf[0] = 0x81;
        CHECK_RC(wiredtiger_struct_unpack(sess, buf, sizeof(buf), bad[k], &i), EINVAL);
        if (ul_failures != before)
            fprintf(stderr, "  (format \"%s\")\n", bad[k]);
    }

    /* Messages (with a session they reach its handler). */
    if (sess != NULL) {
        ul_recorder_clear(&rec);
        CHECK_RC(wiredtiger_struct_pack(sess, buf, sizeof(buf), "iz", 1), EINVAL);
        CHECK_MSG(&rec, EINVAL, "Invalid type 'z' found in format 'iz'");
        ul_recorder_clear(&rec);
        CHECK_RC(wiredtiger_struct_pack(sess, buf, sizeof(buf), ".iz", 1), EINVAL);
        CHECK_MSG(&rec, EINVAL, "Invalid type 'z' found in format 'iz'");
        ul_recorder_clear(&rec);
        CHECK_RC(wiredtiger_struct_size(sess, &len, "0s", "x"), EINVAL);
        CHECK_MSG(&rec, EINVAL, "Fixed length strings must be at least 1 byte in format '0s'");
        ul_recorder_clear(&rec);
        CHECK_RC(wiredtiger_struct_unpack(sess, buf, sizeof(buf), "9t", &i), EINVAL);
        CHECK_MSG(&rec, EINVAL, "Bitfield sizes must be between 1 and 8 bits in format '9t'");
        /* '<' '>' '@' prefixes: EINVAL without a message */
        ul_recorder_clear(&rec);
        CHECK_RC(wiredtiger_struct_pack(sess, buf, sizeof(buf), "<i", 1), EINVAL);
        CHECK(rec.errors == 0);
        /* A single bad character does not panic the connection. */
        ul_recorder_clear(&rec);
        CHECK_RC(wiredtiger_struct_pack(sess, buf, sizeof(buf), "z", 1), EINVAL);
        CHECK(rec.last_error != WT_PANIC);
        OK(sess->create(sess, "table:after_z", "key_format=S,value_format=S"));
        WT_CURSOR *c = NULL;
        OK(sess->open_cursor(sess, "table:after_z", NULL, NULL, &c));
        if (c != NULL) {
            c->set_key(c, "k");
            c->set_value(c, "v");
            OK(c->insert(c));
            OK(c->close(c));
        }
    }
}

static void
test_unpack_errors(void)
{
    int32_t i, j;
    uint32_t I;
    uint64_t Q;
    int64_t q;
    const char *s;
    WT_ITEM item;

    /* A long form whose bytes are not all in the buffer. */
    CHECK_RC(wiredtiger_struct_unpack(sess, "\xe1", 1, "i", &i), EINVAL);
    CHECK_RC(wiredtiger_struct_unpack(sess, "\xe8\xff\xff", 3, "Q", &Q), EINVAL);
    CHECK_RC(wiredtiger_struct_unpack(sess, "\x10\x80", 2, "q", &q), EINVAL);
    /* Reading past the end (reference defect: fixed). */
    CHECK_RC(wiredtiger_struct_unpack(sess, "\x81", 1, "ii", &i, &j), EINVAL);
    CHECK_RC(wiredtiger_struct_unpack(sess, "", 0, "i", &i), EINVAL);
    /* A string without its NUL inside the buffer. */
    CHECK_RC(wiredtiger_struct_unpack(sess, "abc", 3, "S", &s), EINVAL);
    CHECK_RC(wiredtiger_struct_unpack(sess, "abc", 3, "5S", &s), EINVAL);
    CHECK_RC(wiredtiger_struct_unpack(sess, "abc", 3, "4s", &s), EINVAL);
    /* A length prefix larger than what remains. */
    memset(&item, 0, sizeof(item));
    CHECK_RC(wiredtiger_struct_unpack(sess, "\x85\x61\x62", 3, "ui", &item, &i), EINVAL);
    CHECK_RC(wiredtiger_struct_unpack(sess, "ab", 2, "3u", &item), EINVAL);
    CHECK_RC(wiredtiger_struct_unpack(sess, "\x00", 1, "3x", NULL), EINVAL);
    /* Bad varint markers. */
    CHECK_RC(wiredtiger_struct_unpack(sess, "\x05", 1, "I", &I), EINVAL);
    CHECK_RC(wiredtiger_struct_unpack(sess, "\x7f", 1, "I", &I), EINVAL);
    CHECK_RC(wiredtiger_struct_unpack(sess, "\xf0", 1, "I", &I), EINVAL);
    CHECK_RC(wiredtiger_struct_unpack(sess, "\x05", 1, "i", &i), EINVAL);
    CHECK_RC(wiredtiger_struct_unpack(sess, "\xff", 1, "q", &q), EINVAL);
    /* while a signed decoder accepts the negative forms */
    i = 0;
    OK(wiredtiger_struct_unpack(sess, "\x7f", 1, "i", &i));
    CHECK(i == -1);
}

static void
run_all(void)
{
    test_integers();
    test_strings_items();
    test_too_small();
    test_bad_formats();
    test_unpack_errors();
}

int
main(void)
{
    WT_CONNECTION *conn;

    /* First without a session (messages to stderr), then with one. */
    fprintf(stderr, "struct_pack: error messages on stderr are expected in the first pass\n");
    sess = NULL;
    run_all();

    ul_recorder_init(&rec);
    ul_open(&rec, INMEM, &conn, &sess);
    run_all();
    OK(conn->close(conn, NULL));
    return ul_done("struct_pack");
}
