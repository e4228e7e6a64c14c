/*
 * Key and value formats through a table: round trip of every format character, counts,
 * multi-field formats and extremes; key order; the cursor's key_format/value_format strings;
 * raw cursors; record-number tables. Spec: packing.md (sections 1-8), api.md section 5,
 * traces/README.md section 5.8.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>

#include "util.h"

#define INMEM "create,in_memory=true"
#define N(a) (sizeof(a) / sizeof((a)[0]))

static WT_SESSION *session;
static ul_recorder rec;

/* Creates table:NAME with `config` and opens a cursor on it (NULL on failure). */
static WT_CURSOR *
table(const char *name, const char *config, const char *cursor_config)
{
    char uri[128];
    WT_CURSOR *c = NULL;

    snprintf(uri, sizeof(uri), "table:%s", name);
    OK(session->create(session, uri, config));
    OK(session->open_cursor(session, uri, NULL, cursor_config, &c));
    return c;
}

static int
item_is(const WT_ITEM *item, const void *data, size_t size)
{
    return item->size == size && (size == 0 || memcmp(item->data, data, size) == 0);
}

/* ---------------------------------------------------------------------------------------- */
/* Value round trips: key_format=i, one record per value. */

static void
values_signed(void)
{
    WT_CURSOR *c;
    static const int64_t q[] = {INT64_MIN, INT64_MIN + 1, -8257, -8256, -65, -64, -1, 0, 1, 63, 64,
      8255, 8256, 8257, INT32_MAX, (int64_t)INT32_MAX + 1, INT64_MAX - 1, INT64_MAX};
    static const int ivals[] = {INT32_MIN, -8257, -65, -1, 0, 1, 8256, INT32_MAX};
    static const int hvals[] = {INT16_MIN, -65, -1, 0, 1, 63, 64, INT16_MAX};
    static const int bvals[] = {-128, -64, -1, 0, 1, 63, 64, 127};
    int8_t b;
    int16_t h;
    int32_t i32;
    int64_t i64;
    size_t i;

    if ((c = table("vb", "key_format=i,value_format=b", NULL)) != NULL) {
        for (i = 0; i < N(bvals); i++) {
            c->set_key(c, (int)i);
            c->set_value(c, bvals[i]);
            OK(c->insert(c));
        }
        for (i = 0; i < N(bvals); i++) {
            c->set_key(c, (int)i);
            OK(c->search(c));
            b = 0;
            OK(c->get_value(c, &b));
            CHECK(b == bvals[i]);
        }
        OK(c->close(c));
    }
    if ((c = table("vh", "key_format=i,value_format=h", NULL)) != NULL) {
        for (i = 0; i < N(hvals); i++) {
            c->set_key(c, (int)i);
            c->set_value(c, hvals[i]);
            OK(c->insert(c));
        }
        for (i = 0; i < N(hvals); i++) {
            c->set_key(c, (int)i);
            OK(c->search(c));
            h = 0;
            OK(c->get_value(c, &h));
            CHECK(h == hvals[i]);
        }
        OK(c->close(c));
    }
    if ((c = table("vi", "key_format=i,value_format=i", NULL)) != NULL) {
        for (i = 0; i < N(ivals); i++) {
            c->set_key(c, (int)i);
            c->set_value(c, ivals[i]);
            OK(c->insert(c));
        }
        for (i = 0; i < N(ivals); i++) {
            c->set_key(c, (int)i);
            OK(c->search(c));
            i32 = 0;
            OK(c->get_value(c, &i32));
            CHECK(i32 == ivals[i]);
        }
        OK(c->close(c));
    }
    /* 'l' is 32-bit, like 'i'. */
    if ((c = table("vl", "key_format=l,value_format=l", NULL)) != NULL) {
        for (i = 0; i < N(ivals); i++) {
            c->set_key(c, ivals[i]);
            c->set_value(c, -ivals[i] / 2);
            OK(c->insert(c));
        }
        for (i = 0; i < N(ivals); i++) {
            c->set_key(c, ivals[i]);
            OK(c->search(c));
            i32 = 0;
            OK(c->get_value(c, &i32));
            CHECK(i32 == -ivals[i] / 2);
        }
        OK(c->close(c));
    }
    if ((c = table("vq", "key_format=i,value_format=q", NULL)) != NULL) {
        for (i = 0; i < N(q); i++) {
            c->set_key(c, (int)i);
            c->set_value(c, q[i]);
            OK(c->insert(c));
        }
        for (i = 0; i < N(q); i++) {
            c->set_key(c, (int)i);
            OK(c->search(c));
            i64 = 12345;
            OK(c->get_value(c, &i64));
            CHECK(i64 == q[i]);
        }
        OK(c->close(c));
    }
}

static void
values_unsigned(void)
{
    WT_CURSOR *c;
    static const uint64_t Q[] = {0, 1, 63, 64, 8255, 8256, 8257, UINT32_MAX, (uint64_t)UINT32_MAX + 1,
      (uint64_t)INT64_MAX, UINT64_MAX - 1, UINT64_MAX};
    static const unsigned Ivals[] = {0, 1, 63, 64, 8256, 65535, 65536, UINT32_MAX};
    static const unsigned Hvals[] = {0, 1, 63, 64, 8255, 8256, 65535};
    static const unsigned Bvals[] = {0, 1, 127, 128, 254, 255};
    uint8_t B;
    uint16_t H;
    uint32_t I;
    uint64_t u64;
    size_t i;

    if ((c = table("vB", "key_format=i,value_format=B", NULL)) != NULL) {
        for (i = 0; i < N(Bvals); i++) {
            c->set_key(c, (int)i);
            c->set_value(c, Bvals[i]);
            OK(c->insert(c));
        }
        for (i = 0; i < N(Bvals); i++) {
            c->set_key(c, (int)i);
            OK(c->search(c));
            B = 0;
            OK(c->get_value(c, &B));
            CHECK(B == Bvals[i]);
        }
        OK(c->close(c));
    }
    if ((c = table("vH", "key_format=i,value_format=H", NULL)) != NULL) {
        for (i = 0; i < N(Hvals); i++) {
            c->set_key(c, (int)i);
            c->set_value(c, Hvals[i]);
            OK(c->insert(c));
        }
        for (i = 0; i < N(Hvals); i++) {
            c->set_key(c, (int)i);
            OK(c->search(c));
            H = 0;
            OK(c->get_value(c, &H));
            CHECK(H == Hvals[i]);
        }
        OK(c->close(c));
    }
    /* 'I' and 'L' are 32-bit. */
    if ((c = table("vI", "key_format=I,value_format=L", NULL)) != NULL) {
        for (i = 0; i < N(Ivals); i++) {
            c->set_key(c, Ivals[i]);
            c->set_value(c, UINT32_MAX - Ivals[i]);
            OK(c->insert(c));
        }
        for (i = 0; i < N(Ivals); i++) {
            c->set_key(c, Ivals[i]);
            OK(c->search(c));
            I = 0;
            OK(c->get_value(c, &I));
            CHECK(I == UINT32_MAX - Ivals[i]);
        }
        OK(c->close(c));
    }
    if ((c = table("vQ", "key_format=i,value_format=Q", NULL)) != NULL) {
        for (i = 0; i < N(Q); i++) {
            c->set_key(c, (int)i);
            c->set_value(c, Q[i]);
            OK(c->insert(c));
        }
        for (i = 0; i < N(Q); i++) {
            c->set_key(c, (int)i);
            OK(c->search(c));
            u64 = 12345;
            OK(c->get_value(c, &u64));
            CHECK(u64 == Q[i]);
        }
        OK(c->close(c));
    }
    /* 'r' as a value is an unsigned 64-bit integer. */
    if ((c = table("vr", "key_format=i,value_format=r", NULL)) != NULL) {
        c->set_key(c, 1);
        c->set_value(c, UINT64_MAX);
        OK(c->insert(c));
        c->set_key(c, 2);
        c->set_value(c, (uint64_t)1);
        OK(c->insert(c));
        c->set_key(c, 1);
        OK(c->search(c));
        u64 = 0;
        OK(c->get_value(c, &u64));
        CHECK(u64 == UINT64_MAX);
        c->set_key(c, 2);
        OK(c->search(c));
        OK(c->get_value(c, &u64));
        CHECK(u64 == 1);
        OK(c->close(c));
    }
    /* 't' outside a fixed-length column store behaves like 'B'. */
    if ((c = table("vt", "key_format=i,value_format=t", NULL)) != NULL) {
        c->set_key(c, 1);
        c->set_value(c, 1u);
        OK(c->insert(c));
        c->set_key(c, 1);
        OK(c->search(c));
        B = 0;
        OK(c->get_value(c, &B));
        CHECK(B == 1);
        OK(c->close(c));
    }
    if ((c = table("vt8", "key_format=i,value_format=8t", NULL)) != NULL) {
        c->set_key(c, 1);
        c->set_value(c, 255u);
        OK(c->insert(c));
        c->set_key(c, 1);
        OK(c->search(c));
        B = 0;
        OK(c->get_value(c, &B));
        CHECK(B == 255);
        OK(c->close(c));
    }
}

static void
values_strings(void)
{
    WT_CURSOR *c;
    static const char *S[] = {"", "a", "hello world", "caf\xc3\xa9 \xe2\x98\x83 \xf0\x9f\x98\x80",
      "tab\tnewline\n|\\", "\x01\x7f\xff"};
    const char *p;
    size_t i;

    if ((c = table("vS", "key_format=i,value_format=S", NULL)) != NULL) {
        for (i = 0; i < N(S); i++) {
            c->set_key(c, (int)i);
            c->set_value(c, S[i]);
            OK(c->insert(c));
        }
        for (i = 0; i < N(S); i++) {
            c->set_key(c, (int)i);
            OK(c->search(c));
            p = NULL;
            OK(c->get_value(c, &p));
            CHECK_STR(p, S[i]);
        }
        OK(c->close(c));
    }

    /* 's': one byte. */
    if ((c = table("vs", "key_format=i,value_format=s", NULL)) != NULL) {
        c->set_key(c, 1);
        c->set_value(c, "z");
        OK(c->insert(c));
        c->set_key(c, 2);
        c->set_value(c, "xyz"); /* exactly one byte is taken */
        OK(c->insert(c));
        c->set_key(c, 1);
        OK(c->search(c));
        p = NULL;
        OK(c->get_value(c, &p));
        CHECK(p != NULL && p[0] == 'z');
        c->set_key(c, 2);
        OK(c->search(c));
        p = NULL;
        OK(c->get_value(c, &p));
        CHECK(p != NULL && p[0] == 'x');
        OK(c->close(c));
    }

    /* '10s' and '5s': exactly N bytes, embedded NULs kept. */
    if ((c = table("v10s", "key_format=i,value_format=10s", NULL)) != NULL) {
        c->set_key(c, 1);
        c->set_value(c, "0123456789");
        OK(c->insert(c));
        c->set_key(c, 2);
        c->set_value(c, "ab\0cd\0\0\0\0\0");
        OK(c->insert(c));
        c->set_key(c, 1);
        OK(c->search(c));
        p = NULL;
        OK(c->get_value(c, &p));
        CHECK(p != NULL && memcmp(p, "0123456789", 10) == 0);
        c->set_key(c, 2);
        OK(c->search(c));
        p = NULL;
        OK(c->get_value(c, &p));
        CHECK(p != NULL && memcmp(p, "ab\0cd\0\0\0\0\0", 10) == 0);
        OK(c->close(c));
    }

    /* '5S': at most 5 bytes, NUL padded; a long string is truncated. */
    if ((c = table("v5S", "key_format=i,value_format=5S", NULL)) != NULL) {
        c->set_key(c, 1);
        c->set_value(c, "ab");
        OK(c->insert(c));
        c->set_key(c, 2);
        c->set_value(c, "abcdefgh");
        OK(c->insert(c));
        c->set_key(c, 3);
        c->set_value(c, "");
        OK(c->insert(c));
        c->set_key(c, 1);
        OK(c->search(c));
        p = NULL;
        OK(c->get_value(c, &p));
        CHECK(p != NULL && memcmp(p, "ab\0\0\0", 5) == 0);
        CHECK_STR(p, "ab");
        c->set_key(c, 2);
        OK(c->search(c));
        p = NULL;
        OK(c->get_value(c, &p));
        CHECK(p != NULL && memcmp(p, "abcde", 5) == 0);
        c->set_key(c, 3);
        OK(c->search(c));
        p = NULL;
        OK(c->get_value(c, &p));
        CHECK(p != NULL && memcmp(p, "\0\0\0\0\0", 5) == 0);
        OK(c->close(c));
    }

    /* '3S' value: "abcdef" reads back as "abc" (traces 5.8). */
    if ((c = table("v3S", "key_format=i,value_format=3S", NULL)) != NULL) {
        c->set_key(c, 1);
        c->set_value(c, "abcdef");
        OK(c->insert(c));
        c->set_key(c, 1);
        OK(c->search(c));
        p = NULL;
        OK(c->get_value(c, &p));
        CHECK(p != NULL && memcmp(p, "abc", 3) == 0);
        OK(c->close(c));
    }
}

static void
values_items(void)
{
    WT_CURSOR *c;
    WT_ITEM in, out;
    static const unsigned char bytes[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0x00};
    unsigned char big[1000];
    size_t i;
    int32_t i32;

    for (i = 0; i < sizeof(big); i++)
        big[i] = (unsigned char)(i * 7);

    if ((c = table("vu", "key_format=i,value_format=u", NULL)) != NULL) {
        memset(&in, 0, sizeof(in));
        in.data = bytes;
        in.size = sizeof(bytes);
        c->set_key(c, 1);
        c->set_value(c, &in);
        OK(c->insert(c));
        in.data = "";
        in.size = 0; /* empty values are allowed */
        c->set_key(c, 2);
        c->set_value(c, &in);
        OK(c->insert(c));
        in.data = big;
        in.size = sizeof(big);
        c->set_key(c, 3);
        c->set_value(c, &in);
        OK(c->insert(c));

        c->set_key(c, 1);
        OK(c->search(c));
        memset(&out, 0, sizeof(out));
        OK(c->get_value(c, &out));
        CHECK(item_is(&out, bytes, sizeof(bytes)));
        c->set_key(c, 2);
        OK(c->search(c));
        memset(&out, 0xab, sizeof(out));
        OK(c->get_value(c, &out));
        CHECK(out.size == 0);
        c->set_key(c, 3);
        OK(c->search(c));
        OK(c->get_value(c, &out));
        CHECK(item_is(&out, big, sizeof(big)));
        OK(c->close(c));
    }

    /* '3u': exactly three bytes, truncated or NUL padded. */
    if ((c = table("v3u", "key_format=i,value_format=3u", NULL)) != NULL) {
        memset(&in, 0, sizeof(in));
        in.data = "abcdef";
        in.size = 6;
        c->set_key(c, 1);
        c->set_value(c, &in);
        OK(c->insert(c));
        in.data = "a";
        in.size = 1;
        c->set_key(c, 2);
        c->set_value(c, &in);
        OK(c->insert(c));
        in.size = 0;
        c->set_key(c, 3);
        c->set_value(c, &in);
        OK(c->insert(c));
        c->set_key(c, 1);
        OK(c->search(c));
        memset(&out, 0, sizeof(out));
        OK(c->get_value(c, &out));
        CHECK(item_is(&out, "abc", 3));
        c->set_key(c, 2);
        OK(c->search(c));
        OK(c->get_value(c, &out));
        CHECK(item_is(&out, "a\0\0", 3));
        c->set_key(c, 3);
        OK(c->search(c));
        OK(c->get_value(c, &out));
        CHECK(item_is(&out, "\0\0\0", 3));
        OK(c->close(c));
    }

    /* 'x' pads and takes no argument. */
    if ((c = table("vx", "key_format=i,value_format=3xi", NULL)) != NULL) {
        c->set_key(c, 1);
        c->set_value(c, 42);
        OK(c->insert(c));
        c->set_key(c, 1);
        OK(c->search(c));
        i32 = 0;
        OK(c->get_value(c, &i32));
        CHECK(i32 == 42);
        OK(c->close(c));
    }
    if ((c = table("kx", "key_format=ix,value_format=xS", NULL)) != NULL) {
        c->set_key(c, 7);
        c->set_value(c, "padded");
        OK(c->insert(c));
        c->set_key(c, 7);
        OK(c->search(c));
        const char *p = NULL;
        OK(c->get_value(c, &p));
        CHECK_STR(p, "padded");
        i32 = 0;
        OK(c->get_key(c, &i32));
        CHECK(i32 == 7);
        OK(c->close(c));
    }
}

static void
values_multi(void)
{
    WT_CURSOR *c;
    WT_ITEM item, out;
    const char *a, *b;
    int32_t i32, j32;
    int8_t b8;
    int16_t h16;
    int64_t q64;
    uint8_t B8;
    uint16_t H16;
    uint32_t I32, L32;
    uint64_t Q64;

    /* SiS with empty strings, UTF-8 and extremes. */
    if ((c = table("mSiS", "key_format=SiS,value_format=SiS", NULL)) != NULL) {
        c->set_key(c, "", INT32_MIN, "");
        c->set_value(c, "caf\xc3\xa9", INT32_MAX, "");
        OK(c->insert(c));
        c->set_key(c, "a", -5, "b");
        c->set_value(c, "", 0, "x");
        OK(c->insert(c));
        c->set_key(c, "", INT32_MIN, "");
        OK(c->search(c));
        a = b = NULL;
        i32 = 0;
        OK(c->get_value(c, &a, &i32, &b));
        CHECK_STR(a, "caf\xc3\xa9");
        CHECK(i32 == INT32_MAX);
        CHECK_STR(b, "");
        a = b = NULL;
        i32 = 0;
        OK(c->get_key(c, &a, &i32, &b));
        CHECK_STR(a, "");
        CHECK(i32 == INT32_MIN);
        CHECK_STR(b, "");
        c->set_key(c, "a", -5, "b");
        OK(c->search(c));
        OK(c->get_value(c, &a, &i32, &b));
        CHECK_STR(a, "");
        CHECK(i32 == 0);
        CHECK_STR(b, "x");
        OK(c->close(c));
    }

    /* iS keys, q values: INT64 extremes. */
    if ((c = table("miS", "key_format=iS,value_format=q", NULL)) != NULL) {
        c->set_key(c, -1, "neg");
        c->set_value(c, INT64_MIN);
        OK(c->insert(c));
        c->set_key(c, 1, "");
        c->set_value(c, INT64_MAX);
        OK(c->insert(c));
        c->set_key(c, -1, "neg");
        OK(c->search(c));
        q64 = 0;
        OK(c->get_value(c, &q64));
        CHECK(q64 == INT64_MIN);
        c->set_key(c, 1, "");
        OK(c->search(c));
        OK(c->get_value(c, &q64));
        CHECK(q64 == INT64_MAX);
        c->set_key(c, 1, "x");
        CHECK_RC(c->search(c), WT_NOTFOUND);
        OK(c->close(c));
    }

    /* bhq / BHIL at their limits (keys and values). */
    if ((c = table("mbhq", "key_format=bhq,value_format=BHIL", NULL)) != NULL) {
        c->set_key(c, -128, INT16_MIN, INT64_MIN);
        c->set_value(c, 255u, 65535u, UINT32_MAX, UINT32_MAX);
        OK(c->insert(c));
        c->set_key(c, 127, INT16_MAX, INT64_MAX);
        c->set_value(c, 0u, 0u, 0u, 0u);
        OK(c->insert(c));
        c->set_key(c, 0, 0, (int64_t)0);
        c->set_value(c, 128u, 8256u, 8256u, 2147483648u);
        OK(c->insert(c));

        OK(c->reset(c));
        OK(c->next(c));
        b8 = 0;
        h16 = 0;
        q64 = 0;
        OK(c->get_key(c, &b8, &h16, &q64));
        CHECK(b8 == -128 && h16 == INT16_MIN && q64 == INT64_MIN);
        B8 = 0;
        H16 = 0;
        I32 = L32 = 0;
        OK(c->get_value(c, &B8, &H16, &I32, &L32));
        CHECK(B8 == 255 && H16 == 65535 && I32 == UINT32_MAX && L32 == UINT32_MAX);
        OK(c->next(c));
        OK(c->get_key(c, &b8, &h16, &q64));
        CHECK(b8 == 0 && h16 == 0 && q64 == 0);
        OK(c->get_value(c, &B8, &H16, &I32, &L32));
        CHECK(B8 == 128 && H16 == 8256 && I32 == 8256 && L32 == 2147483648u);
        OK(c->next(c));
        OK(c->get_key(c, &b8, &h16, &q64));
        CHECK(b8 == 127 && h16 == INT16_MAX && q64 == INT64_MAX);
        OK(c->get_value(c, &B8, &H16, &I32, &L32));
        CHECK(B8 == 0 && H16 == 0 && I32 == 0 && L32 == 0);
        CHECK_RC(c->next(c), WT_NOTFOUND);
        OK(c->close(c));
    }

    /* Q keys, SuQ values: u inside a value, UINT64_MAX. */
    if ((c = table("mSuQ", "key_format=Q,value_format=SuQ", NULL)) != NULL) {
        memset(&item, 0, sizeof(item));
        item.data = "\x00\x01\x02";
        item.size = 3;
        c->set_key(c, UINT64_MAX);
        c->set_value(c, "s", &item, UINT64_MAX);
        OK(c->insert(c));
        item.size = 0;
        c->set_key(c, (uint64_t)0);
        c->set_value(c, "", &item, (uint64_t)0);
        OK(c->insert(c));
        c->set_key(c, UINT64_MAX);
        OK(c->search(c));
        a = NULL;
        memset(&out, 0, sizeof(out));
        Q64 = 0;
        OK(c->get_value(c, &a, &out, &Q64));
        CHECK_STR(a, "s");
        CHECK(item_is(&out, "\x00\x01\x02", 3));
        CHECK(Q64 == UINT64_MAX);
        Q64 = 1;
        OK(c->get_key(c, &Q64));
        CHECK(Q64 == UINT64_MAX);
        c->set_key(c, (uint64_t)0);
        OK(c->search(c));
        OK(c->get_value(c, &a, &out, &Q64));
        CHECK_STR(a, "");
        CHECK(out.size == 0);
        CHECK(Q64 == 0);
        OK(c->close(c));
    }

    /* Repeat counts on integers: '3i' takes three arguments. */
    if ((c = table("m3i", "key_format=2i,value_format=3i", NULL)) != NULL) {
        c->set_key(c, 1, -1);
        c->set_value(c, 10, -20, 30);
        OK(c->insert(c));
        c->set_key(c, 1, -1);
        OK(c->search(c));
        int32_t x = 0, y = 0, z = 0;
        OK(c->get_value(c, &x, &y, &z));
        CHECK(x == 10 && y == -20 && z == 30);
        i32 = j32 = 0;
        OK(c->get_key(c, &i32, &j32));
        CHECK(i32 == 1 && j32 == -1);
        OK(c->close(c));
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Key order. */

static void
order_signed(const char *fmt, const int64_t *v, size_t n)
{
    char name[32], config[64];
    WT_CURSOR *c;
    int64_t got, val;
    int8_t b;
    int16_t h;
    int32_t i32;
    size_t i, j;
    int ret;

    snprintf(name, sizeof(name), "order_%s", fmt);
    snprintf(config, sizeof(config), "key_format=%s,value_format=q", fmt);
    if ((c = table(name, config, NULL)) == NULL)
        return;
    /* Insert in a scrambled order. */
    for (i = 0; i < n; i++) {
        j = (i * 7 + 3) % n;
        if (fmt[0] == 'q')
            c->set_key(c, v[j]);
        else
            c->set_key(c, (int)v[j]);
        c->set_value(c, v[j]);
        OK(c->insert(c));
    }
    for (i = 0; (ret = c->next(c)) == 0; i++) {
        got = INT64_MIN + 7;
        switch (fmt[0]) {
        case 'b':
            OK(c->get_key(c, &b));
            got = b;
            break;
        case 'h':
            OK(c->get_key(c, &h));
            got = h;
            break;
        case 'q':
            OK(c->get_key(c, &got));
            break;
        default:
            OK(c->get_key(c, &i32));
            got = i32;
            break;
        }
        val = 0;
        OK(c->get_value(c, &val));
        CHECK(i < n && got == v[i] && val == v[i]);
        if (i >= n || got != v[i])
            fprintf(stderr, "  %s: position %zu: got %" PRId64 "\n", fmt, i, got);
    }
    CHECK_RC(ret, WT_NOTFOUND);
    CHECK(i == n);
    /* And backwards. */
    for (i = n; (ret = c->prev(c)) == 0; i--) {
        val = 0;
        OK(c->get_value(c, &val));
        CHECK(i > 0 && val == v[i - 1]);
    }
    CHECK_RC(ret, WT_NOTFOUND);
    CHECK(i == 0);
    OK(c->close(c));
}

static void
order_unsigned(const char *fmt, const uint64_t *v, size_t n)
{
    char name[32], config[64];
    WT_CURSOR *c;
    uint64_t got, val;
    uint8_t B;
    uint16_t H;
    uint32_t I;
    size_t i, j;
    int ret;

    snprintf(name, sizeof(name), "order_%s", fmt);
    snprintf(config, sizeof(config), "key_format=%s,value_format=Q", fmt);
    if ((c = table(name, config, NULL)) == NULL)
        return;
    for (i = 0; i < n; i++) {
        j = (i * 7 + 2) % n; /* 7 is coprime with every n used */
        if (fmt[0] == 'Q')
            c->set_key(c, v[j]);
        else
            c->set_key(c, (unsigned)v[j]);
        c->set_value(c, v[j]);
        OK(c->insert(c));
    }
    for (i = 0; (ret = c->next(c)) == 0; i++) {
        got = 7;
        switch (fmt[0]) {
        case 'B':
            OK(c->get_key(c, &B));
            got = B;
            break;
        case 'H':
            OK(c->get_key(c, &H));
            got = H;
            break;
        case 'Q':
            OK(c->get_key(c, &got));
            break;
        default:
            OK(c->get_key(c, &I));
            got = I;
            break;
        }
        val = 0;
        OK(c->get_value(c, &val));
        CHECK(i < n && got == v[i] && val == v[i]);
        if (i >= n || got != v[i])
            fprintf(stderr, "  %s: position %zu: got %" PRIu64 "\n", fmt, i, got);
    }
    CHECK_RC(ret, WT_NOTFOUND);
    CHECK(i == n);
    OK(c->close(c));
}

static void
order_strings(void)
{
    static const char *sorted[] = {"", " ", "A", "a", "a ", "aa", "ab", "abc", "b", "ba", "c",
      "m\xc3\xa9", "z", "z\tz", "\x7f", "\xff"};
    WT_CURSOR *c;
    const char *k;
    size_t i, j, n = N(sorted);
    int ret;

    if ((c = table("order_S", "key_format=S,value_format=S", NULL)) == NULL)
        return;
    for (i = 0; i < n; i++) {
        j = (i * 11 + 5) % n;
        c->set_key(c, sorted[j]);
        c->set_value(c, sorted[j]);
        OK(c->insert(c));
    }
    for (i = 0; (ret = c->next(c)) == 0; i++) {
        k = NULL;
        OK(c->get_key(c, &k));
        CHECK(i < n);
        if (i < n)
            CHECK_STR(k, sorted[i]);
    }
    CHECK_RC(ret, WT_NOTFOUND);
    CHECK(i == n);
    /* search_near: prefix of an existing key finds the key itself (the larger neighbour). */
    c->set_key(c, "ab\x01");
    int exact = 99;
    OK(c->search_near(c, &exact));
    CHECK(exact == 1);
    k = NULL;
    OK(c->get_key(c, &k));
    CHECK_STR(k, "abc");
    OK(c->close(c));

    /* 5s keys: NUL padding, truncation, embedded NUL; bytewise order. */
    if ((c = table("order_5s", "key_format=5s,value_format=S", NULL)) == NULL)
        return;
    c->set_key(c, "zzzzz");
    c->set_value(c, "5");
    OK(c->insert(c));
    c->set_key(c, "abcdefgh"); /* stored as "abcde" */
    c->set_value(c, "4");
    OK(c->insert(c));
    c->set_key(c, "ab\0cd");
    c->set_value(c, "3");
    OK(c->insert(c));
    c->set_key(c, "ab\0\0\0");
    c->set_value(c, "2");
    OK(c->insert(c));
    c->set_key(c, "\0\0\0\0\0");
    c->set_value(c, "1");
    OK(c->insert(c));
    {
        static const char *keys[] = {"\0\0\0\0\0", "ab\0\0\0", "ab\0cd", "abcde", "zzzzz"};
        static const char *vals[] = {"1", "2", "3", "4", "5"};
        const char *v;
        for (i = 0; (ret = c->next(c)) == 0; i++) {
            k = v = NULL;
            OK(c->get_key(c, &k));
            OK(c->get_value(c, &v));
            CHECK(i < 5 && k != NULL && memcmp(k, keys[i], 5) == 0);
            if (i < 5)
                CHECK_STR(v, vals[i]);
        }
        CHECK_RC(ret, WT_NOTFOUND);
        CHECK(i == 5);
        c->set_key(c, "abcde");
        OK(c->search(c));
        v = NULL;
        OK(c->get_value(c, &v));
        CHECK_STR(v, "4");
    }
    OK(c->close(c));
}

static void
order_items(void)
{
    WT_CURSOR *c;
    WT_ITEM item, out;
    size_t i, j;
    int32_t i32;
    int ret;
    /* Final 'u': bytewise, a prefix first. */
    static const struct {
        const char *data;
        size_t size;
    } u[] = {{"\x00", 1}, {"\x00\x00", 2}, {"\x01", 1}, {"a", 1}, {"ab", 2}, {"\x7f", 1},
      {"\xff", 1}, {"\xff\xff", 2}};
    /* Non-final 'u' (ui): length first, then content (traces 5.8). */
    static const struct {
        const char *data;
        size_t size;
        int i;
    } ui[] = {{"a", 1, -1}, {"\xff", 1, 0}, {"\x00\x00", 2, 1}, {"ab", 2, 0}, {"\xff\xff", 2, -1},
      {"\x00\x00\x00", 3, -1}};

    if ((c = table("order_u", NULL, NULL)) != NULL) {
        CHECK_STR(c->key_format, "u");
        CHECK_STR(c->value_format, "u");
        memset(&item, 0, sizeof(item));
        for (i = 0; i < N(u); i++) {
            j = (i * 3 + 1) % N(u);
            item.data = u[j].data;
            item.size = u[j].size;
            c->set_key(c, &item);
            c->set_value(c, &item);
            OK(c->insert(c));
        }
        for (i = 0; (ret = c->next(c)) == 0; i++) {
            memset(&out, 0, sizeof(out));
            OK(c->get_key(c, &out));
            CHECK(i < N(u) && item_is(&out, u[i].data, u[i].size));
            OK(c->get_value(c, &out));
            CHECK(i < N(u) && item_is(&out, u[i].data, u[i].size));
        }
        CHECK_RC(ret, WT_NOTFOUND);
        CHECK(i == N(u));
        OK(c->close(c));
    }

    if ((c = table("order_ui", "key_format=ui,value_format=S", NULL)) != NULL) {
        memset(&item, 0, sizeof(item));
        for (i = 0; i < N(ui); i++) {
            j = N(ui) - 1 - i;
            item.data = ui[j].data;
            item.size = ui[j].size;
            c->set_key(c, &item, ui[j].i);
            c->set_value(c, "v");
            OK(c->insert(c));
        }
        for (i = 0; (ret = c->next(c)) == 0; i++) {
            memset(&out, 0, sizeof(out));
            i32 = 99;
            OK(c->get_key(c, &out, &i32));
            CHECK(i < N(ui) && item_is(&out, ui[i].data, ui[i].size) && i32 == ui[i].i);
        }
        CHECK_RC(ret, WT_NOTFOUND);
        CHECK(i == N(ui));
        OK(c->close(c));
    }
}

static void
order_composite(void)
{
    WT_CURSOR *c;
    static const struct {
        int i;
        const char *s;
    } keys[] = {{INT32_MIN, "z"}, {-65, ""}, {-65, "a"}, {-1, "b"}, {-1, "ba"}, {0, ""}, {0, "a"},
      {64, ""}, {INT32_MAX, ""}};
    const char *s;
    int32_t i32;
    size_t i, j, n = N(keys);
    int ret;

    if ((c = table("order_iS", "key_format=iS,value_format=i", NULL)) == NULL)
        return;
    for (i = 0; i < n; i++) {
        j = (i * 4 + 1) % n;
        c->set_key(c, keys[j].i, keys[j].s);
        c->set_value(c, (int)j);
        OK(c->insert(c));
    }
    for (i = 0; (ret = c->next(c)) == 0; i++) {
        s = NULL;
        i32 = 0;
        OK(c->get_key(c, &i32, &s));
        CHECK(i < n && i32 == keys[i].i);
        if (i < n)
            CHECK_STR(s, keys[i].s);
        i32 = -1;
        OK(c->get_value(c, &i32));
        CHECK(i32 == (int32_t)i);
    }
    CHECK_RC(ret, WT_NOTFOUND);
    CHECK(i == n);
    OK(c->close(c));
}

/* search_near on signed integer keys; fixed-size item keys. */
static void
near_and_fixed(void)
{
    WT_CURSOR *c;
    WT_ITEM item, out;
    int64_t k;
    int exact;
    size_t i;
    int ret;

    if ((c = table("near_q", "key_format=q,value_format=q", NULL)) != NULL) {
        static const int64_t keys[] = {-65, 0, 64};
        for (i = 0; i < 3; i++) {
            c->set_key(c, keys[i]);
            c->set_value(c, keys[i]);
            OK(c->insert(c));
        }
        c->set_key(c, (int64_t)-1);
        exact = 99;
        OK(c->search_near(c, &exact));
        CHECK(exact == 1);
        k = 7;
        OK(c->get_key(c, &k));
        CHECK(k == 0);
        c->set_key(c, INT64_MAX);
        OK(c->search_near(c, &exact));
        CHECK(exact == -1);
        OK(c->get_key(c, &k));
        CHECK(k == 64);
        c->set_key(c, INT64_MIN);
        OK(c->search_near(c, &exact));
        CHECK(exact == 1);
        OK(c->get_key(c, &k));
        CHECK(k == -65);
        c->set_key(c, (int64_t)64);
        OK(c->search_near(c, &exact));
        CHECK(exact == 0);
        OK(c->close(c));
    }

    /* 3u keys: fixed width, NUL padded, bytewise order; "ab" and "ab\0" are the same key. */
    if ((c = table("key_3u", "key_format=3u,value_format=S", NULL)) != NULL) {
        memset(&item, 0, sizeof(item));
        item.data = "abcdef";
        item.size = 6;
        c->set_key(c, &item);
        c->set_value(c, "abc");
        OK(c->insert(c));
        item.data = "ab";
        item.size = 2;
        c->set_key(c, &item);
        c->set_value(c, "ab");
        OK(c->insert(c));
        item.data = "ab\0";
        item.size = 3;
        c->set_key(c, &item);
        c->set_value(c, "ab0");
        OK(c->insert(c));
        item.data = "\x01";
        item.size = 1;
        c->set_key(c, &item);
        c->set_value(c, "01");
        OK(c->insert(c));
        static const char *keys[] = {"\x01\0\0", "ab\0", "abc"};
        static const char *vals[] = {"01", "ab0", "abc"};
        for (i = 0; (ret = c->next(c)) == 0; i++) {
            const char *v = NULL;
            memset(&out, 0, sizeof(out));
            OK(c->get_key(c, &out));
            OK(c->get_value(c, &v));
            CHECK(i < 3 && item_is(&out, keys[i], 3));
            if (i < 3)
                CHECK_STR(v, vals[i]);
        }
        CHECK_RC(ret, WT_NOTFOUND);
        CHECK(i == 3);
        OK(c->close(c));
    }
}

static void
orders(void)
{
    static const int64_t q[] = {INT64_MIN, -((int64_t)1 << 32), -65537, -8257, -8256, -65, -64, -2,
      -1, 0, 1, 2, 63, 64, 8255, 8256, 8257, 73792, (int64_t)1 << 32, INT64_MAX};
    static const int64_t i[] = {INT32_MIN, -65537, -8257, -65, -64, -1, 0, 1, 63, 64, 8256,
      INT32_MAX};
    static const int64_t h[] = {INT16_MIN, -8257, -65, -1, 0, 1, 64, 8256, INT16_MAX};
    static const int64_t b[] = {-128, -65, -64, -1, 0, 1, 63, 64, 127};
    static const uint64_t Q[] = {0, 1, 63, 64, 8255, 8256, 8257, 8511, 8512, 73791, 73792,
      UINT32_MAX, (uint64_t)1 << 40, (uint64_t)INT64_MAX, UINT64_MAX};
    static const uint64_t I[] = {0, 1, 63, 64, 8256, 65535, 65536, UINT32_MAX};
    static const uint64_t H[] = {0, 63, 64, 8255, 8256, 65535};
    static const uint64_t B[] = {0, 1, 127, 128, 255};

    order_signed("q", q, N(q));
    order_signed("i", i, N(i));
    order_signed("l", i, N(i));
    order_signed("h", h, N(h));
    order_signed("b", b, N(b));
    order_unsigned("Q", Q, N(Q));
    order_unsigned("I", I, N(I));
    order_unsigned("L", I, N(I));
    order_unsigned("H", H, N(H));
    order_unsigned("B", B, N(B));
    order_strings();
    order_items();
    order_composite();
    near_and_fixed();
}

/* ---------------------------------------------------------------------------------------- */
/* The cursor's format strings. */

static void
format_strings(void)
{
    WT_CURSOR *c;
    const char *k;

    if ((c = table("fdot", "key_format=.S,value_format=.S", NULL)) != NULL) {
        CHECK_STR(c->key_format, ".S");
        CHECK_STR(c->value_format, ".S");
        CHECK_STR(c->uri, "table:fdot");
        c->set_key(c, "dot");
        c->set_value(c, "ted");
        OK(c->insert(c));
        c->set_key(c, "dot");
        OK(c->search(c));
        k = NULL;
        OK(c->get_value(c, &k));
        CHECK_STR(k, "ted");
        OK(c->close(c));
    }
    if ((c = table("fnovalue", "key_format=S", NULL)) != NULL) {
        CHECK_STR(c->key_format, "S");
        CHECK_STR(c->value_format, "u");
        OK(c->close(c));
    }
    if ((c = table("fnokey", "value_format=S", NULL)) != NULL) {
        CHECK_STR(c->key_format, "u");
        CHECK_STR(c->value_format, "S");
        OK(c->close(c));
    }
    if ((c = table("fnone", "", NULL)) != NULL) {
        CHECK_STR(c->key_format, "u");
        CHECK_STR(c->value_format, "u");
        OK(c->close(c));
    }
    if ((c = table("fmulti", "key_format=SiS,value_format=5S3u10sxQ", NULL)) != NULL) {
        CHECK_STR(c->key_format, "SiS");
        CHECK_STR(c->value_format, "5S3u10sxQ");
        OK(c->close(c));
    }
    /* Re-creating with other formats keeps the old ones. */
    OK(session->create(session, "table:fmulti", "key_format=q,value_format=Q"));
    c = NULL;
    OK(session->open_cursor(session, "table:fmulti", NULL, NULL, &c));
    if (c != NULL) {
        CHECK_STR(c->key_format, "SiS");
        CHECK_STR(c->value_format, "5S3u10sxQ");
        OK(c->close(c));
    }
    /* Bad formats fail at create. */
    CHECK_RC(session->create(session, "table:fbad", "key_format=iz"), EINVAL);
    CHECK_RC(session->create(session, "table:fbad", "value_format=0s"), EINVAL);
    CHECK_RC(session->create(session, "table:fbad", "value_format=9t"), EINVAL);
    CHECK_RC(session->create(session, "table:fbad", "key_format=z"), EINVAL);
    c = NULL;
    CHECK_RC(session->open_cursor(session, "table:fbad", NULL, NULL, &c), ENOENT);
}

/* ---------------------------------------------------------------------------------------- */
/* Raw cursors. */

static void
raw_cursors(void)
{
    WT_CURSOR *c, *raw;
    WT_ITEM item, k, v, k2, v2;
    unsigned char kb[64], vb[64], kb2[64], vb2[64];
    size_t klen, vlen, klen2, vlen2;
    const char *s;
    int32_t i32;
    uint64_t q64;

    if ((c = table("raw", "key_format=Si,value_format=SuQ", NULL)) == NULL)
        return;
    memset(&item, 0, sizeof(item));
    item.data = "\x01\x02";
    item.size = 2;
    c->set_key(c, "abc", 7);
    c->set_value(c, "val", &item, UINT64_MAX);
    OK(c->insert(c));
    item.size = 0;
    c->set_key(c, "abd", -1);
    c->set_value(c, "", &item, (uint64_t)5);
    OK(c->insert(c));

    /* The packed forms, as wiredtiger_struct_pack makes them. */
    item.data = "\x01\x02";
    item.size = 2;
    OK(wiredtiger_struct_size(NULL, &klen, "Si", "abc", 7));
    OK(wiredtiger_struct_pack(NULL, kb, sizeof(kb), "Si", "abc", 7));
    OK(wiredtiger_struct_size(NULL, &vlen, "SuQ", "val", &item, UINT64_MAX));
    OK(wiredtiger_struct_pack(NULL, vb, sizeof(vb), "SuQ", "val", &item, UINT64_MAX));
    CHECK(klen == 5 && memcmp(kb, "abc\0\x87", 5) == 0);
    CHECK(vlen == 4 + 3 + 9);

    raw = NULL;
    OK(session->open_cursor(session, "table:raw", NULL, "raw", &raw));
    if (raw == NULL) {
        OK(c->close(c));
        return;
    }
    /* A raw cursor reports the table's formats. */
    CHECK_STR(raw->key_format, "Si");
    CHECK_STR(raw->value_format, "SuQ");

    OK(raw->next(raw));
    memset(&k, 0, sizeof(k));
    memset(&v, 0, sizeof(v));
    OK(raw->get_key(raw, &k));
    OK(raw->get_value(raw, &v));
    CHECK(item_is(&k, kb, klen));
    CHECK(item_is(&v, vb, vlen));

    /* get_raw_key_value on the raw cursor and on a decoding cursor; NULL allowed. */
    memset(&k2, 0, sizeof(k2));
    memset(&v2, 0, sizeof(v2));
    OK(raw->get_raw_key_value(raw, &k2, &v2));
    CHECK(item_is(&k2, kb, klen));
    CHECK(item_is(&v2, vb, vlen));
    c->set_key(c, "abc", 7);
    OK(c->search(c));
    memset(&k2, 0, sizeof(k2));
    memset(&v2, 0, sizeof(v2));
    OK(c->get_raw_key_value(c, &k2, &v2));
    CHECK(item_is(&k2, kb, klen));
    CHECK(item_is(&v2, vb, vlen));
    memset(&k2, 0, sizeof(k2));
    OK(c->get_raw_key_value(c, &k2, NULL));
    CHECK(item_is(&k2, kb, klen));
    memset(&v2, 0, sizeof(v2));
    OK(c->get_raw_key_value(c, NULL, &v2));
    CHECK(item_is(&v2, vb, vlen));

    /* Second record. */
    OK(raw->next(raw));
    item.size = 0;
    OK(wiredtiger_struct_size(NULL, &klen2, "Si", "abd", -1));
    OK(wiredtiger_struct_pack(NULL, kb2, sizeof(kb2), "Si", "abd", -1));
    OK(wiredtiger_struct_size(NULL, &vlen2, "SuQ", "", &item, (uint64_t)5));
    OK(wiredtiger_struct_pack(NULL, vb2, sizeof(vb2), "SuQ", "", &item, (uint64_t)5));
    CHECK(vlen2 == 3 && memcmp(vb2, "\x00\x80\x85", 3) == 0);
    OK(raw->get_key(raw, &k));
    OK(raw->get_value(raw, &v));
    CHECK(item_is(&k, kb2, klen2));
    CHECK(item_is(&v, vb2, vlen2));
    CHECK_RC(raw->next(raw), WT_NOTFOUND);

    /* Search by a raw key. */
    k.data = kb;
    k.size = klen;
    raw->set_key(raw, &k);
    OK(raw->search(raw));
    OK(raw->get_value(raw, &v));
    CHECK(item_is(&v, vb, vlen));

    /* Update one record with another record's raw value, read it back decoded. */
    k.data = kb2;
    k.size = klen2;
    v.data = vb;
    v.size = vlen;
    raw->set_key(raw, &k);
    raw->set_value(raw, &v);
    OK(raw->update(raw));
    c->set_key(c, "abd", -1);
    OK(c->search(c));
    s = NULL;
    memset(&item, 0, sizeof(item));
    q64 = 0;
    OK(c->get_value(c, &s, &item, &q64));
    CHECK_STR(s, "val");
    CHECK(item_is(&item, "\x01\x02", 2));
    CHECK(q64 == UINT64_MAX);

    /* Insert a new record through the raw cursor. */
    item.data = "zz";
    item.size = 2;
    OK(wiredtiger_struct_size(NULL, &klen, "Si", "new", 100000));
    OK(wiredtiger_struct_pack(NULL, kb, sizeof(kb), "Si", "new", 100000));
    OK(wiredtiger_struct_size(NULL, &vlen, "SuQ", "n", &item, (uint64_t)64));
    OK(wiredtiger_struct_pack(NULL, vb, sizeof(vb), "SuQ", "n", &item, (uint64_t)64));
    k.data = kb;
    k.size = klen;
    v.data = vb;
    v.size = vlen;
    raw->set_key(raw, &k);
    raw->set_value(raw, &v);
    OK(raw->insert(raw));
    OK(c->reset(c));
    c->set_key(c, "new", 100000);
    OK(c->search(c));
    s = NULL;
    OK(c->get_value(c, &s, &item, &q64));
    CHECK_STR(s, "n");
    CHECK(item_is(&item, "zz", 2));
    CHECK(q64 == 64);
    s = NULL;
    i32 = 0;
    OK(c->get_key(c, &s, &i32));
    CHECK_STR(s, "new");
    CHECK(i32 == 100000);

    /* The whole table decoded: abc, abd, new. */
    OK(c->reset(c));
    OK(c->next(c));
    OK(c->get_key(c, &s, &i32));
    CHECK_STR(s, "abc");
    OK(c->next(c));
    OK(c->get_key(c, &s, &i32));
    CHECK_STR(s, "abd");
    OK(c->next(c));
    OK(c->get_key(c, &s, &i32));
    CHECK_STR(s, "new");
    CHECK_RC(c->next(c), WT_NOTFOUND);

    OK(raw->close(raw));
    OK(c->close(c));

    /* Raw cursor on an S/q table: the packed key is the string and its NUL. */
    if ((c = table("raw2", "key_format=S,value_format=q", "raw")) != NULL) {
        k.data = "key";
        k.size = 4;
        v.data = "\x7b"; /* -5 */
        v.size = 1;
        c->set_key(c, &k);
        c->set_value(c, &v);
        OK(c->insert(c));
        OK(c->close(c));
        c = NULL;
        OK(session->open_cursor(session, "table:raw2", NULL, NULL, &c));
        if (c != NULL) {
            int64_t q = 0;
            c->set_key(c, "key");
            OK(c->search(c));
            OK(c->get_value(c, &q));
            CHECK(q == -5);
            OK(c->close(c));
        }
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Record-number tables. */

static void
record_numbers(void)
{
    WT_CURSOR *c, *raw, *app;
    WT_ITEM k;
    static const uint64_t recnos[] = {1, 2, 3, 10, 64, 8256, 1000000};
    const char *v;
    uint64_t r;
    size_t i;
    int exact, ret;

    if ((c = table("rec", "key_format=r,value_format=S", NULL)) == NULL)
        return;
    CHECK_STR(c->key_format, "r");
    for (i = N(recnos); i > 0; i--) {
        char buf[32];
        snprintf(buf, sizeof(buf), "v%" PRIu64, recnos[i - 1]);
        c->set_key(c, recnos[i - 1]);
        c->set_value(c, buf);
        OK(c->insert(c));
    }
    /* Iterate in record-number order. */
    for (i = 0; (ret = c->next(c)) == 0; i++) {
        char buf[32];
        r = 0;
        v = NULL;
        OK(c->get_key(c, &r));
        OK(c->get_value(c, &v));
        CHECK(i < N(recnos) && r == recnos[i]);
        if (i < N(recnos)) {
            snprintf(buf, sizeof(buf), "v%" PRIu64, recnos[i]);
            CHECK_STR(v, buf);
        }
    }
    CHECK_RC(ret, WT_NOTFOUND);
    CHECK(i == N(recnos));
    /* Search hit and miss. */
    c->set_key(c, (uint64_t)3);
    OK(c->search(c));
    v = NULL;
    OK(c->get_value(c, &v));
    CHECK_STR(v, "v3");
    OK(c->next(c));
    OK(c->get_key(c, &r));
    CHECK(r == 10);
    c->set_key(c, (uint64_t)5);
    CHECK_RC(c->search(c), WT_NOTFOUND);
    /* search_near past the end: the last record, exact -1 (api.md section 7 notes). */
    c->set_key(c, (uint64_t)2000000);
    exact = 99;
    OK(c->search_near(c, &exact));
    CHECK(exact == -1);
    OK(c->get_key(c, &r));
    CHECK(r == 1000000);
    c->set_key(c, (uint64_t)5);
    exact = 99;
    OK(c->search_near(c, &exact));
    CHECK(exact == 1);
    OK(c->get_key(c, &r));
    CHECK(r == 10);
    /* Update and remove by record number. */
    c->set_key(c, (uint64_t)2);
    c->set_value(c, "two");
    OK(c->update(c));
    c->set_key(c, (uint64_t)2);
    OK(c->search(c));
    OK(c->get_value(c, &v));
    CHECK_STR(v, "two");
    c->set_key(c, (uint64_t)64);
    OK(c->remove(c));
    c->set_key(c, (uint64_t)64);
    CHECK_RC(c->search(c), WT_NOTFOUND);

    /* Record number 0 is invalid: EINVAL at the operation, the connection survives. */
    c->set_key(c, (uint64_t)0);
    c->set_value(c, "zero");
    ul_recorder_clear(&rec);
    CHECK_RC(c->insert(c), EINVAL);
    CHECK_MSG(&rec, EINVAL, "0 is an invalid record number");
    c->set_key(c, (uint64_t)0);
    ul_recorder_clear(&rec);
    CHECK_RC(c->search(c), EINVAL);
    CHECK_MSG(&rec, EINVAL, "0 is an invalid record number");
    c->set_key(c, (uint64_t)0);
    CHECK_RC(c->remove(c), EINVAL);
    c->set_key(c, (uint64_t)0);
    c->set_value(c, "zero");
    CHECK_RC(c->update(c), EINVAL);
    c->set_key(c, (uint64_t)1);
    OK(c->search(c));
    OK(c->get_value(c, &v));
    CHECK_STR(v, "v1");

    /* Raw: the record number packed as 'q'. */
    raw = NULL;
    OK(session->open_cursor(session, "table:rec", NULL, "raw", &raw));
    if (raw != NULL) {
        OK(raw->next(raw));
        memset(&k, 0, sizeof(k));
        OK(raw->get_key(raw, &k));
        CHECK(item_is(&k, "\x81", 1));
        memset(&k, 0, sizeof(k));
        OK(raw->get_value(raw, &k));
        CHECK(item_is(&k, "v1", 3));
        OK(raw->close(raw));
    }

    /* append: new records get the next record number. */
    app = NULL;
    ret = session->open_cursor(session, "table:rec", NULL, "append", &app);
    CHECK_RC(ret, 0);
    if (app != NULL) {
        app->set_value(app, "appended");
        OK(app->insert(app));
        r = 0;
        OK(app->get_key(app, &r));
        CHECK(r == 1000001);
        /* Any key set is ignored. */
        app->set_key(app, (uint64_t)7);
        app->set_value(app, "appended2");
        OK(app->insert(app));
        r = 0;
        OK(app->get_key(app, &r));
        CHECK(r == 1000002);
        c->set_key(c, (uint64_t)1000001);
        OK(c->search(c));
        OK(c->get_value(c, &v));
        CHECK_STR(v, "appended");
        c->set_key(c, (uint64_t)7);
        CHECK_RC(c->search(c), WT_NOTFOUND);
        OK(app->close(app));
    }
    OK(c->close(c));

    /* append on an empty table starts at 1; reconfigure can turn it on. */
    if ((c = table("rec2", "key_format=r,value_format=i", NULL)) != NULL) {
        OK(c->reconfigure(c, "append=true"));
        c->set_value(c, 11);
        OK(c->insert(c));
        r = 0;
        OK(c->get_key(c, &r));
        CHECK(r == 1);
        c->set_value(c, 22);
        OK(c->insert(c));
        OK(c->get_key(c, &r));
        CHECK(r == 2);
        OK(c->close(c));
    }
}

/* ---------------------------------------------------------------------------------------- */
/* One-integer keys and values take their own entry points: widths, NULL pointers, errors. */

static void
integer_paths(void)
{
    WT_CURSOR *c;
    struct {
        int32_t v;
        int32_t guard;
    } i32;
    struct {
        int16_t v;
        int16_t guard;
    } i16;
    int64_t q;
    uint64_t r;

    /* `i` stores exactly 32 bits through the caller's pointer. */
    if ((c = table("int_i", "key_format=i,value_format=i", NULL)) != NULL) {
        c->set_key(c, -5);
        c->set_value(c, INT32_MIN);
        OK(c->insert(c));
        c->set_key(c, -5);
        OK(c->search(c));
        i32.v = 0;
        i32.guard = 0x5a5a5a5a;
        OK(c->get_value(c, &i32.v));
        CHECK(i32.v == INT32_MIN && i32.guard == 0x5a5a5a5a);
        i32.v = 0;
        OK(c->get_key(c, &i32.v));
        CHECK(i32.v == -5 && i32.guard == 0x5a5a5a5a);
        /* A NULL pointer is skipped, as for every other format. */
        OK(c->get_value(c, NULL));
        /* Nothing to get once reset: an error with a message, the pointer untouched. */
        OK(c->reset(c));
        ul_recorder_clear(&rec);
        i32.v = 7;
        CHECK_RC(c->get_value(c, &i32.v), EINVAL);
        CHECK(i32.v == 7 && rec.last_error == EINVAL);
        CHECK_RC(c->get_key(c, &i32.v), EINVAL);
        OK(c->close(c));
    }
    /* `h` is 16 bits wide: it takes the general path and stores 16 bits. */
    if ((c = table("int_h", "key_format=h,value_format=h", NULL)) != NULL) {
        c->set_key(c, -300);
        c->set_value(c, 12345);
        OK(c->insert(c));
        c->set_key(c, -300);
        OK(c->search(c));
        i16.v = 0;
        i16.guard = 0x5a5a;
        OK(c->get_value(c, &i16.v));
        CHECK(i16.v == 12345 && i16.guard == 0x5a5a);
        OK(c->close(c));
    }
    /* `q` keys and values at their extremes. */
    if ((c = table("int_q", "key_format=q,value_format=q", NULL)) != NULL) {
        c->set_key(c, INT64_MIN);
        c->set_value(c, INT64_MAX);
        OK(c->insert(c));
        c->set_key(c, INT64_MIN);
        OK(c->search(c));
        q = 0;
        OK(c->get_value(c, &q));
        CHECK(q == INT64_MAX);
        OK(c->get_key(c, &q));
        CHECK(q == INT64_MIN);
        OK(c->close(c));
    }
    /* Record number 0 is refused when the key is used, with the reference's message. */
    if ((c = table("int_r", "key_format=r,value_format=Q", NULL)) != NULL) {
        c->set_key(c, (uint64_t)0);
        c->set_value(c, UINT64_MAX);
        ul_recorder_clear(&rec);
        CHECK_RC(c->insert(c), EINVAL);
        CHECK_MSG(&rec, EINVAL, "0 is an invalid record number");
        c->set_key(c, (uint64_t)1);
        OK(c->insert(c));
        c->set_key(c, (uint64_t)1);
        OK(c->search(c));
        r = 0;
        OK(c->get_value(c, &r));
        CHECK(r == UINT64_MAX);
        OK(c->close(c));
    }
}

int
main(void)
{
    WT_CONNECTION *conn;

    ul_recorder_init(&rec);
    ul_open(&rec, INMEM, &conn, &session);
    values_signed();
    values_unsigned();
    values_strings();
    values_items();
    values_multi();
    orders();
    format_strings();
    raw_cursors();
    record_numbers();
    integer_paths();
    OK(conn->close(conn, NULL));
    return ul_done("formats");
}
