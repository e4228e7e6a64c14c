/*
 * replay: replays the reference engine's behaviour traces (c-tests/traces/*.trace, format in
 * spec/traces/README.md) against the library it is linked with, and reports every step whose
 * outcome differs from the recording.
 *
 *   replay [--verbose] [--messages] [--expected PATH] [--write-expected REASON] [FILE...]
 *
 * With no FILE it replays the five traces under c-tests/traces/ (paths relative to the current
 * directory, normally the repository root).
 *
 * For each step the program makes exactly the call the README's op table names, renders the
 * outcome the way the recorder did (rc, then the outputs), and compares it as text with the
 * columns after "->". A difference prints
 *
 *   FAIL file:step op: expected [...] got [...]
 *
 * or NOTE-FAIL for steps that carry a "#note" line (the reference contradicts its own
 * documentation there and unlatched follows the documentation), or XFAIL for steps listed in
 * the expected-failures file. The last line is exactly "N passed, M failed".
 *
 * --messages also compares the error messages that reached the event handler with the
 * trace's "#msg" lines (normalized to "<API name>: <text>"); a difference fails the step.
 *
 * Expected failures (default c-tests/traces/expected-failures.txt, lines "file:step<TAB>reason",
 * '#' comments): the exit status is 0 only if every failing step is a #note step or listed, and
 * no listed step passes any more (each such step prints "FIXED file:step", so the list only
 * shrinks). --write-expected REASON appends the unexpected failures of this run to the file with
 * that reason.
 *
 * Memory rule (README 3.3): the buffers given to set_key/set_value stay untouched until the
 * same cursor's next set_key/set_value (or its close).
 *
 * Variadic calls: set_key/set_value/get_key/get_value are called with arguments of exactly the
 * types the format names (README 3.2), chosen per field by nested switches (up to MAXF fields).
 */
#include <ctype.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wiredtiger.h"

/* The most fields a key or value format may have (the traces use at most 4). */
#define MAXF 4

/* ---------------------------------------------------------------------------------------- */
/* Small utilities.                                                                          */

static void *
xmalloc(size_t n)
{
    void *p = malloc(n == 0 ? 1 : n);
    if (p == NULL) {
        fprintf(stderr, "replay: out of memory\n");
        exit(2);
    }
    return p;
}

static void *
xcalloc(size_t n, size_t size)
{
    void *p = calloc(n == 0 ? 1 : n, size == 0 ? 1 : size);
    if (p == NULL) {
        fprintf(stderr, "replay: out of memory\n");
        exit(2);
    }
    return p;
}

static void *
xrealloc(void *p, size_t n)
{
    p = realloc(p, n == 0 ? 1 : n);
    if (p == NULL) {
        fprintf(stderr, "replay: out of memory\n");
        exit(2);
    }
    return p;
}

static char *
xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = xmalloc(n);
    memcpy(p, s, n);
    return p;
}

/* A growable NUL-terminated string. */
typedef struct {
    char *p;
    size_t len, cap;
} sbuf;

static void
sb_reserve(sbuf *b, size_t more)
{
    if (b->len + more + 1 > b->cap) {
        size_t cap = b->cap == 0 ? 64 : b->cap;
        while (b->len + more + 1 > cap)
            cap *= 2;
        b->p = xrealloc(b->p, cap);
        b->cap = cap;
    }
}

static void
sb_reset(sbuf *b)
{
    sb_reserve(b, 0);
    b->len = 0;
    b->p[0] = '\0';
}

static void
sb_putn(sbuf *b, const char *s, size_t n)
{
    sb_reserve(b, n);
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void
sb_puts(sbuf *b, const char *s)
{
    sb_putn(b, s, strlen(s));
}

static void
sb_putc(sbuf *b, char c)
{
    sb_putn(b, &c, 1);
}

static void
sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    sb_reserve(b, (size_t)n);
    va_start(ap, fmt);
    (void)vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static void
sb_free(sbuf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

/* README 3.1: bytes 0x21-0x7e other than '\' and '|' stand for themselves, others are \xHH. */
static void
escape_column(sbuf *b, const unsigned char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (s[i] >= 0x21 && s[i] <= 0x7e && s[i] != '\\' && s[i] != '|')
            sb_putc(b, (char)s[i]);
        else
            sb_printf(b, "\\x%02x", (unsigned)s[i]);
    }
}

/* README 3.6: in #msg text, bytes 0x20-0x7e other than '\' stand for themselves. */
static void
escape_message(sbuf *b, const unsigned char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (s[i] >= 0x20 && s[i] <= 0x7e && s[i] != '\\')
            sb_putc(b, (char)s[i]);
        else
            sb_printf(b, "\\x%02x", (unsigned)s[i]);
    }
}

static int
hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/*
 * Undoes the README 3.1 escape of s[0..n). Returns a malloc'd buffer with `pad` extra NUL bytes
 * after the data (at least one), the data length in *lenp; NULL on a malformed escape.
 */
static char *
unescape(const char *s, size_t n, size_t pad, size_t *lenp)
{
    char *out = xcalloc(n + pad + 1, 1);
    size_t i, len = 0;

    for (i = 0; i < n; i++) {
        if (s[i] == '\\') {
            int hi, lo;
            if (i + 3 >= n + 0 + 1 || s[i + 1] != 'x' || (hi = hexval(s[i + 2])) < 0 ||
              (lo = hexval(s[i + 3])) < 0) {
                free(out);
                return NULL;
            }
            out[len++] = (char)(hi * 16 + lo);
            i += 3;
        } else
            out[len++] = s[i];
    }
    *lenp = len;
    return out;
}

/* Decodes lower-case hex (two digits a byte) into a malloc'd buffer; NULL if malformed. */
static unsigned char *
unhex(const char *s, size_t n, size_t *lenp)
{
    unsigned char *out;
    size_t i;

    if (n % 2 != 0)
        return NULL;
    out = xcalloc(n / 2 + 1, 1);
    for (i = 0; i < n; i += 2) {
        int hi = hexval(s[i]), lo = hexval(s[i + 1]);
        if (hi < 0 || lo < 0) {
            free(out);
            return NULL;
        }
        out[i / 2] = (unsigned char)(hi * 16 + lo);
    }
    *lenp = n / 2;
    return out;
}

/* ---------------------------------------------------------------------------------------- */
/* Formats and tokens (README 3.2).                                                          */

/* One field of a key or value format. */
typedef struct {
    char ch;       /* format character: b h i l B H I L t q Q r S s u */
    unsigned size; /* the count before s, S or u */
    bool sized;    /* a count was given */
} fspec;

/*
 * Splits a format into fields; a raw cursor has one 'u' field. Returns the field count, or -1
 * with a reason in err.
 */
static int
parse_format(const char *fmt, bool raw, fspec *out, sbuf *err)
{
    const char *p = fmt;
    int n = 0;

    if (raw) {
        out[0].ch = 'u';
        out[0].size = 0;
        out[0].sized = false;
        return 1;
    }
    if (fmt == NULL) {
        sb_puts(err, "no format");
        return -1;
    }
    if (*p == '.' || *p == '@' || *p == '<' || *p == '>' || *p == '=' || *p == '!')
        p++;
    while (*p != '\0') {
        unsigned long count = 1;
        bool sized = false;
        if (isdigit((unsigned char)*p)) {
            char *end;
            count = strtoul(p, &end, 10);
            p = end;
            sized = true;
        }
        switch (*p) {
        case 'b':
        case 'h':
        case 'i':
        case 'l':
        case 'B':
        case 'H':
        case 'I':
        case 'L':
        case 't':
        case 'q':
        case 'Q':
        case 'r':
            /* A repeat count gives that many fields ('t' keeps it as a bit width). */
            if (*p == 't')
                count = 1;
            for (; count > 0; count--) {
                if (n == MAXF) {
                    sb_printf(err, "format '%s' has more than %d fields", fmt, MAXF);
                    return -1;
                }
                out[n].ch = *p;
                out[n].size = 0;
                out[n].sized = false;
                n++;
            }
            break;
        case 'S':
        case 's':
        case 'u':
            if (n == MAXF) {
                sb_printf(err, "format '%s' has more than %d fields", fmt, MAXF);
                return -1;
            }
            out[n].ch = *p;
            out[n].size = (unsigned)count;
            out[n].sized = sized;
            n++;
            break;
        case 'x':
            break;
        default:
            sb_printf(err, "unsupported format '%s'", fmt);
            return -1;
        }
        p++;
    }
    if (n == 0) {
        sb_printf(err, "format '%s' has no fields", fmt);
        return -1;
    }
    return n;
}

/* The C type a field is passed to set_key/set_value as. */
enum { SC_INT, SC_UINT, SC_I64, SC_U64, SC_STR, SC_ITEM };

/* The C type a field is read back into by get_key/get_value. */
enum { GC_I8, GC_I16, GC_I32, GC_U8, GC_U16, GC_U32, GC_I64, GC_U64, GC_STR, GC_ITEM };

static int
set_category(char ch)
{
    switch (ch) {
    case 'b':
    case 'h':
    case 'i':
    case 'l':
        return SC_INT;
    case 'B':
    case 'H':
    case 'I':
    case 'L':
    case 't':
        return SC_UINT;
    case 'q':
        return SC_I64;
    case 'Q':
    case 'r':
        return SC_U64;
    case 'S':
    case 's':
        return SC_STR;
    default:
        return SC_ITEM;
    }
}

static int
get_category(char ch)
{
    switch (ch) {
    case 'b':
        return GC_I8;
    case 'h':
        return GC_I16;
    case 'i':
    case 'l':
        return GC_I32;
    case 'B':
    case 't':
        return GC_U8;
    case 'H':
        return GC_U16;
    case 'I':
    case 'L':
        return GC_U32;
    case 'q':
        return GC_I64;
    case 'Q':
    case 'r':
        return GC_U64;
    case 'S':
    case 's':
        return GC_STR;
    default:
        return GC_ITEM;
    }
}

/* The arguments of one set_key/set_value call, kept alive per the memory rule. */
typedef union {
    int i;
    unsigned u;
    int64_t q;
    uint64_t Q;
    const char *s;
    WT_ITEM *w;
} sarg;

typedef struct {
    int n;
    sarg a[MAXF];
    WT_ITEM items[MAXF];
    char *bufs[MAXF];
} setblob;

static void
setblob_free(setblob *b)
{
    int k;
    if (b == NULL)
        return;
    for (k = 0; k < b->n; k++)
        free(b->bufs[k]);
    free(b);
}

static bool
parse_signed(const char *s, size_t n, long long lo, long long hi, long long *vp)
{
    char buf[32], *end;
    long long v;
    if (n == 0 || n >= sizeof(buf))
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    v = strtoll(buf, &end, 10);
    if (*end != '\0' || v < lo || v > hi)
        return false;
    *vp = v;
    return true;
}

static bool
parse_unsigned(const char *s, size_t n, unsigned long long hi, unsigned long long *vp)
{
    char buf[32], *end;
    unsigned long long v;
    if (n == 0 || n >= sizeof(buf) || s[0] == '-')
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    v = strtoull(buf, &end, 10);
    if (*end != '\0' || v > hi)
        return false;
    *vp = v;
    return true;
}

/* Builds the arguments for a token; NULL with a reason in err if it does not fit the format. */
static setblob *
build_set(const fspec *fs, int n, const char *token, sbuf *err)
{
    setblob *b = xcalloc(1, sizeof(*b));
    const char *p = token;
    int k;

    for (k = 0; k < n; k++) {
        const char *bar = strchr(p, '|');
        size_t len = bar == NULL ? strlen(p) : (size_t)(bar - p);
        long long sv = 0;
        unsigned long long uv = 0;
        bool ok = true;

        if ((bar == NULL) != (k == n - 1)) {
            sb_printf(err, "token has the wrong number of fields for %d", n);
            ok = false;
        } else
            switch (fs[k].ch) {
            case 'b':
                ok = parse_signed(p, len, INT8_MIN, INT8_MAX, &sv);
                b->a[k].i = (int)sv;
                break;
            case 'h':
                ok = parse_signed(p, len, INT16_MIN, INT16_MAX, &sv);
                b->a[k].i = (int)sv;
                break;
            case 'i':
            case 'l':
                ok = parse_signed(p, len, INT32_MIN, INT32_MAX, &sv);
                b->a[k].i = (int)sv;
                break;
            case 'B':
            case 't':
                ok = parse_unsigned(p, len, UINT8_MAX, &uv);
                b->a[k].u = (unsigned)uv;
                break;
            case 'H':
                ok = parse_unsigned(p, len, UINT16_MAX, &uv);
                b->a[k].u = (unsigned)uv;
                break;
            case 'I':
            case 'L':
                ok = parse_unsigned(p, len, UINT32_MAX, &uv);
                b->a[k].u = (unsigned)uv;
                break;
            case 'q':
                ok = parse_signed(p, len, INT64_MIN, INT64_MAX, &sv);
                b->a[k].q = (int64_t)sv;
                break;
            case 'Q':
            case 'r':
                ok = parse_unsigned(p, len, UINT64_MAX, &uv);
                b->a[k].Q = (uint64_t)uv;
                break;
            case 'S':
            case 's': {
                /* 's': at least N readable NUL bytes after the data (the engine copies N). */
                size_t blen, pad = fs[k].ch == 's' ? (fs[k].sized ? fs[k].size : 1) : 0;
                char *buf = unescape(p, len, pad, &blen);
                ok = buf != NULL;
                b->bufs[k] = buf;
                b->a[k].s = buf;
                break;
            }
            default: { /* 'u' */
                size_t blen = 0;
                unsigned char *buf = unhex(p, len, &blen);
                ok = buf != NULL;
                b->bufs[k] = (char *)buf;
                b->items[k].data = buf;
                b->items[k].size = blen;
                b->a[k].w = &b->items[k];
                break;
            }
            }
        if (!ok) {
            if (err->len == 0)
                sb_printf(err, "field %d of the token does not fit '%c'", k + 1, fs[k].ch);
            b->n = k + 1;
            setblob_free(b);
            return NULL;
        }
        b->n = k + 1;
        if (bar != NULL)
            p = bar + 1;
    }
    return b;
}

/*
 * The variadic calls. Each level switches on one field's C type and hands the typed argument
 * to the next level; the last level makes the call. Levels are separate macros because a
 * macro cannot expand itself.
 */
#define S_LEVEL_CASES(k, K, ...)                          \
    case SC_INT:                                         \
        K(__VA_ARGS__, b->a[k].i);                       \
        break;                                           \
    case SC_UINT:                                        \
        K(__VA_ARGS__, b->a[k].u);                       \
        break;                                           \
    case SC_I64:                                         \
        K(__VA_ARGS__, b->a[k].q);                       \
        break;                                           \
    case SC_U64:                                         \
        K(__VA_ARGS__, b->a[k].Q);                       \
        break;                                           \
    case SC_STR:                                         \
        K(__VA_ARGS__, b->a[k].s);                       \
        break;                                           \
    default:                                             \
        K(__VA_ARGS__, b->a[k].w);                       \
        break;
#define S0(K, ...)                          \
    switch (sc[0]) {                        \
        S_LEVEL_CASES(0, K, __VA_ARGS__)    \
    }
#define S1(K, ...)                          \
    switch (sc[1]) {                        \
        S_LEVEL_CASES(1, K, __VA_ARGS__)    \
    }
#define S2(K, ...)                          \
    switch (sc[2]) {                        \
        S_LEVEL_CASES(2, K, __VA_ARGS__)    \
    }
#define S3(K, ...)                          \
    switch (sc[3]) {                        \
        S_LEVEL_CASES(3, K, __VA_ARGS__)    \
    }
#define SCALL(fn, c, ...) fn(c, __VA_ARGS__)
#define S3_SCALL(...) S3(SCALL, __VA_ARGS__)
#define S2_SCALL(...) S2(SCALL, __VA_ARGS__)
#define S2_S3_SCALL(...) S2(S3_SCALL, __VA_ARGS__)
#define S1_SCALL(...) S1(SCALL, __VA_ARGS__)
#define S1_S2_SCALL(...) S1(S2_SCALL, __VA_ARGS__)
#define S1_S2_S3_SCALL(...) S1(S2_S3_SCALL, __VA_ARGS__)

/*
 * Nested switches on the same macro would be rejected, so S_LEVEL_CASES is only ever used at
 * one level per expansion path: S0 -> S1_... -> S1 -> S2_... and so on, each a separate macro.
 * (S_LEVEL_CASES itself is expanded once per level in sequence, never inside itself: the
 * continuation K is only expanded after the enclosing S_LEVEL_CASES has been rescanned... which
 * is not the case in C, so each level below spells its cases out.)
 */
#undef S0
#undef S1
#undef S2
#undef S3
#define S0(K, ...)                     \
    switch (sc[0]) {                   \
    case SC_INT:                       \
        K(__VA_ARGS__, b->a[0].i);     \
        break;                         \
    case SC_UINT:                      \
        K(__VA_ARGS__, b->a[0].u);     \
        break;                         \
    case SC_I64:                       \
        K(__VA_ARGS__, b->a[0].q);     \
        break;                         \
    case SC_U64:                       \
        K(__VA_ARGS__, b->a[0].Q);     \
        break;                         \
    case SC_STR:                       \
        K(__VA_ARGS__, b->a[0].s);     \
        break;                         \
    default:                           \
        K(__VA_ARGS__, b->a[0].w);     \
        break;                         \
    }
#define S1(K, ...)                     \
    switch (sc[1]) {                   \
    case SC_INT:                       \
        K(__VA_ARGS__, b->a[1].i);     \
        break;                         \
    case SC_UINT:                      \
        K(__VA_ARGS__, b->a[1].u);     \
        break;                         \
    case SC_I64:                       \
        K(__VA_ARGS__, b->a[1].q);     \
        break;                         \
    case SC_U64:                       \
        K(__VA_ARGS__, b->a[1].Q);     \
        break;                         \
    case SC_STR:                       \
        K(__VA_ARGS__, b->a[1].s);     \
        break;                         \
    default:                           \
        K(__VA_ARGS__, b->a[1].w);     \
        break;                         \
    }
#define S2(K, ...)                     \
    switch (sc[2]) {                   \
    case SC_INT:                       \
        K(__VA_ARGS__, b->a[2].i);     \
        break;                         \
    case SC_UINT:                      \
        K(__VA_ARGS__, b->a[2].u);     \
        break;                         \
    case SC_I64:                       \
        K(__VA_ARGS__, b->a[2].q);     \
        break;                         \
    case SC_U64:                       \
        K(__VA_ARGS__, b->a[2].Q);     \
        break;                         \
    case SC_STR:                       \
        K(__VA_ARGS__, b->a[2].s);     \
        break;                         \
    default:                           \
        K(__VA_ARGS__, b->a[2].w);     \
        break;                         \
    }
#define S3(K, ...)                     \
    switch (sc[3]) {                   \
    case SC_INT:                       \
        K(__VA_ARGS__, b->a[3].i);     \
        break;                         \
    case SC_UINT:                      \
        K(__VA_ARGS__, b->a[3].u);     \
        break;                         \
    case SC_I64:                       \
        K(__VA_ARGS__, b->a[3].q);     \
        break;                         \
    case SC_U64:                       \
        K(__VA_ARGS__, b->a[3].Q);     \
        break;                         \
    case SC_STR:                       \
        K(__VA_ARGS__, b->a[3].s);     \
        break;                         \
    default:                           \
        K(__VA_ARGS__, b->a[3].w);     \
        break;                         \
    }

static void
call_set(WT_CURSOR *c, bool key, const fspec *fs, int n, const setblob *b)
{
    void (*fn)(WT_CURSOR *, ...) = key ? c->set_key : c->set_value;
    int sc[MAXF], k;

    for (k = 0; k < n; k++)
        sc[k] = set_category(fs[k].ch);
    switch (n) {
    case 1:
        S0(SCALL, fn, c);
        break;
    case 2:
        S0(S1_SCALL, fn, c);
        break;
    case 3:
        S0(S1_S2_SCALL, fn, c);
        break;
    default:
        S0(S1_S2_S3_SCALL, fn, c);
        break;
    }
}

/* Where get_key/get_value write one field. */
typedef union {
    int8_t i8;
    int16_t i16;
    int32_t i32;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    const char *s;
    WT_ITEM w;
} gval;

#define G_CASES(k, K, ...)                \
    case GC_I8:                           \
        K(__VA_ARGS__, &gv[k].i8);        \
        break;                            \
    case GC_I16:                          \
        K(__VA_ARGS__, &gv[k].i16);       \
        break;                            \
    case GC_I32:                          \
        K(__VA_ARGS__, &gv[k].i32);       \
        break;                            \
    case GC_U8:                           \
        K(__VA_ARGS__, &gv[k].u8);        \
        break;                            \
    case GC_U16:                          \
        K(__VA_ARGS__, &gv[k].u16);       \
        break;                            \
    case GC_U32:                          \
        K(__VA_ARGS__, &gv[k].u32);       \
        break;                            \
    case GC_I64:                          \
        K(__VA_ARGS__, &gv[k].i64);       \
        break;                            \
    case GC_U64:                          \
        K(__VA_ARGS__, &gv[k].u64);       \
        break;                            \
    case GC_STR:                          \
        K(__VA_ARGS__, &gv[k].s);         \
        break;                            \
    default:                              \
        K(__VA_ARGS__, &gv[k].w);         \
        break;
