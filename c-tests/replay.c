/*
 * replay: replays the reference engine's behaviour traces (the .trace files in c-tests/traces/,
 * format in spec/traces/README.md) against the library it is linked with, and reports every
 * step whose outcome differs from the recording.
 *
 *   replay [--verbose] [--messages] [--first] [--expected PATH] [--write-expected REASON]
 *          [FILE...]
 *   replay --record OUT FILE
 *
 * With no FILE it replays every *.trace under c-tests/traces/ (paths relative to the current
 * directory, normally the repository root), in name order.
 *
 * --first stops each trace at its first unexpected failure (a differential run: after one
 * difference the two engines' states differ, so later steps say nothing more).
 *
 * --record OUT runs FILE against the library and writes it to OUT with every step's outcome
 * columns replaced by what this library did (the step's own outcome columns, e.g. a "?"
 * placeholder from tools/difftest-gen, are ignored), each followed by its "#msg" lines; the
 * cursor formats come from the library. Comment lines are copied, "# recorded from:" gets this
 * library's wiredtiger_version. This is how the generated traces are recorded from the
 * reference (tools/difftest).
 *
 * Two ops beyond the recorded traces' table: "drop" (2: uri, config) and "checkpoint"
 * (1: config), the same-named session methods. A wiredtiger_open whose config does not say
 * in_memory=true gets a home directory of its own instead of NULL: created empty when the trace
 * first opens on disk, kept across conn_close and reopen within the trace, removed at its end.
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
 * types the format names (README 3.2), chosen per field by nested switches (up to MAXF = 4
 * fields; get_key/get_value with four fields use the signatures listed in GET4_SIGNATURES).
 * A raw cursor (config exactly "raw") takes and returns one WT_ITEM for key and value.
 *
 * A call on a cursor or session whose open failed (or that is closed) is not made: the step
 * fails with "[no cursor cN]". A crash prints "CRASH file:step op" and exits with status 3.
 *
 * Build (from the repository root):
 *   cc -std=c11 -Wall -Wextra -Wpedantic -Werror -I include -I c-tests c-tests/replay.c \
 *     c-tests/util.c -L<libdir> -lunlatched -lpthread
 */
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw, opendir */
#include <ctype.h>
#include <dirent.h>
#include <ftw.h>
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
            if (i + 3 >= n || s[i + 1] != 'x' || (hi = hexval(s[i + 2])) < 0 ||
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
 * to the next level, the last level makes the call, so every argument has exactly the type the
 * format names. The levels are spelled out one macro each: a macro cannot expand inside its own
 * expansion, so a shared per-level helper would not work.
 */
#define S0(K, ...)                 \
    switch (sc[0]) {               \
    case SC_INT:                   \
        K(__VA_ARGS__, b->a[0].i); \
        break;                     \
    case SC_UINT:                  \
        K(__VA_ARGS__, b->a[0].u); \
        break;                     \
    case SC_I64:                   \
        K(__VA_ARGS__, b->a[0].q); \
        break;                     \
    case SC_U64:                   \
        K(__VA_ARGS__, b->a[0].Q); \
        break;                     \
    case SC_STR:                   \
        K(__VA_ARGS__, b->a[0].s); \
        break;                     \
    default:                       \
        K(__VA_ARGS__, b->a[0].w); \
        break;                     \
    }
#define S1(K, ...)                 \
    switch (sc[1]) {               \
    case SC_INT:                   \
        K(__VA_ARGS__, b->a[1].i); \
        break;                     \
    case SC_UINT:                  \
        K(__VA_ARGS__, b->a[1].u); \
        break;                     \
    case SC_I64:                   \
        K(__VA_ARGS__, b->a[1].q); \
        break;                     \
    case SC_U64:                   \
        K(__VA_ARGS__, b->a[1].Q); \
        break;                     \
    case SC_STR:                   \
        K(__VA_ARGS__, b->a[1].s); \
        break;                     \
    default:                       \
        K(__VA_ARGS__, b->a[1].w); \
        break;                     \
    }
#define S2(K, ...)                 \
    switch (sc[2]) {               \
    case SC_INT:                   \
        K(__VA_ARGS__, b->a[2].i); \
        break;                     \
    case SC_UINT:                  \
        K(__VA_ARGS__, b->a[2].u); \
        break;                     \
    case SC_I64:                   \
        K(__VA_ARGS__, b->a[2].q); \
        break;                     \
    case SC_U64:                   \
        K(__VA_ARGS__, b->a[2].Q); \
        break;                     \
    case SC_STR:                   \
        K(__VA_ARGS__, b->a[2].s); \
        break;                     \
    default:                       \
        K(__VA_ARGS__, b->a[2].w); \
        break;                     \
    }
#define S3(K, ...)                 \
    switch (sc[3]) {               \
    case SC_INT:                   \
        K(__VA_ARGS__, b->a[3].i); \
        break;                     \
    case SC_UINT:                  \
        K(__VA_ARGS__, b->a[3].u); \
        break;                     \
    case SC_I64:                   \
        K(__VA_ARGS__, b->a[3].q); \
        break;                     \
    case SC_U64:                   \
        K(__VA_ARGS__, b->a[3].Q); \
        break;                     \
    case SC_STR:                   \
        K(__VA_ARGS__, b->a[3].s); \
        break;                     \
    default:                       \
        K(__VA_ARGS__, b->a[3].w); \
        break;                     \
    }
#define SCALL(fn, c, ...) fn(c, __VA_ARGS__)
#define S3_SCALL(...) S3(SCALL, __VA_ARGS__)
#define S2_SCALL(...) S2(SCALL, __VA_ARGS__)
#define S2_S3_SCALL(...) S2(S3_SCALL, __VA_ARGS__)
#define S1_SCALL(...) S1(SCALL, __VA_ARGS__)
#define S1_S2_SCALL(...) S1(S2_SCALL, __VA_ARGS__)
#define S1_S2_S3_SCALL(...) S1(S2_S3_SCALL, __VA_ARGS__)

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

#define G0(K, ...)                  \
    switch (gc[0]) {                \
    case GC_I8:                     \
        K(__VA_ARGS__, &gv[0].i8);  \
        break;                      \
    case GC_I16:                    \
        K(__VA_ARGS__, &gv[0].i16); \
        break;                      \
    case GC_I32:                    \
        K(__VA_ARGS__, &gv[0].i32); \
        break;                      \
    case GC_U8:                     \
        K(__VA_ARGS__, &gv[0].u8);  \
        break;                      \
    case GC_U16:                    \
        K(__VA_ARGS__, &gv[0].u16); \
        break;                      \
    case GC_U32:                    \
        K(__VA_ARGS__, &gv[0].u32); \
        break;                      \
    case GC_I64:                    \
        K(__VA_ARGS__, &gv[0].i64); \
        break;                      \
    case GC_U64:                    \
        K(__VA_ARGS__, &gv[0].u64); \
        break;                      \
    case GC_STR:                    \
        K(__VA_ARGS__, &gv[0].s);   \
        break;                      \
    default:                        \
        K(__VA_ARGS__, &gv[0].w);   \
        break;                      \
    }
#define G1(K, ...)                  \
    switch (gc[1]) {                \
    case GC_I8:                     \
        K(__VA_ARGS__, &gv[1].i8);  \
        break;                      \
    case GC_I16:                    \
        K(__VA_ARGS__, &gv[1].i16); \
        break;                      \
    case GC_I32:                    \
        K(__VA_ARGS__, &gv[1].i32); \
        break;                      \
    case GC_U8:                     \
        K(__VA_ARGS__, &gv[1].u8);  \
        break;                      \
    case GC_U16:                    \
        K(__VA_ARGS__, &gv[1].u16); \
        break;                      \
    case GC_U32:                    \
        K(__VA_ARGS__, &gv[1].u32); \
        break;                      \
    case GC_I64:                    \
        K(__VA_ARGS__, &gv[1].i64); \
        break;                      \
    case GC_U64:                    \
        K(__VA_ARGS__, &gv[1].u64); \
        break;                      \
    case GC_STR:                    \
        K(__VA_ARGS__, &gv[1].s);   \
        break;                      \
    default:                        \
        K(__VA_ARGS__, &gv[1].w);   \
        break;                      \
    }
#define G2(K, ...)                  \
    switch (gc[2]) {                \
    case GC_I8:                     \
        K(__VA_ARGS__, &gv[2].i8);  \
        break;                      \
    case GC_I16:                    \
        K(__VA_ARGS__, &gv[2].i16); \
        break;                      \
    case GC_I32:                    \
        K(__VA_ARGS__, &gv[2].i32); \
        break;                      \
    case GC_U8:                     \
        K(__VA_ARGS__, &gv[2].u8);  \
        break;                      \
    case GC_U16:                    \
        K(__VA_ARGS__, &gv[2].u16); \
        break;                      \
    case GC_U32:                    \
        K(__VA_ARGS__, &gv[2].u32); \
        break;                      \
    case GC_I64:                    \
        K(__VA_ARGS__, &gv[2].i64); \
        break;                      \
    case GC_U64:                    \
        K(__VA_ARGS__, &gv[2].u64); \
        break;                      \
    case GC_STR:                    \
        K(__VA_ARGS__, &gv[2].s);   \
        break;                      \
    default:                        \
        K(__VA_ARGS__, &gv[2].w);   \
        break;                      \
    }
#define GCALL(fn, c, ...) rc = fn(c, __VA_ARGS__)
#define G2_GCALL(...) G2(GCALL, __VA_ARGS__)
#define G1_GCALL(...) G1(GCALL, __VA_ARGS__)
#define G1_G2_GCALL(...) G1(G2_GCALL, __VA_ARGS__)

/*
 * Four-field formats for get_key/get_value, spelled out one signature each (a generic fourth
 * level would be 10,000 calls). The signature names each field by its format letter after
 * folding l into i, L into I, t into B, r into Q and s into S. Add a line for a new format.
 */
#define GET4_SIGNATURES                                              \
    GET4("BHII", &gv[0].u8, &gv[1].u16, &gv[2].u32, &gv[3].u32)     \
    GET4("bhiq", &gv[0].i8, &gv[1].i16, &gv[2].i32, &gv[3].i64)     \
    GET4("iiii", &gv[0].i32, &gv[1].i32, &gv[2].i32, &gv[3].i32)    \
    GET4("qqqq", &gv[0].i64, &gv[1].i64, &gv[2].i64, &gv[3].i64)    \
    GET4("QQQQ", &gv[0].u64, &gv[1].u64, &gv[2].u64, &gv[3].u64)    \
    GET4("SSSS", &gv[0].s, &gv[1].s, &gv[2].s, &gv[3].s)            \
    GET4("uuuu", &gv[0].w, &gv[1].w, &gv[2].w, &gv[3].w)

/* The error call_get4 returns for a four-field format it has no line for. */
#define UNSUPPORTED_FORMAT (-1000000)

static int
call_get4(int (*fn)(WT_CURSOR *, ...), WT_CURSOR *c, const fspec *fs, gval *gv)
{
    char sig[MAXF + 1];
    int k;

    for (k = 0; k < 4; k++)
        switch (fs[k].ch) {
        case 'l':
            sig[k] = 'i';
            break;
        case 'L':
            sig[k] = 'I';
            break;
        case 't':
            sig[k] = 'B';
            break;
        case 'r':
            sig[k] = 'Q';
            break;
        case 's':
            sig[k] = 'S';
            break;
        default:
            sig[k] = fs[k].ch;
            break;
        }
    sig[4] = '\0';
#define GET4(name, a, b, c3, d) \
    if (strcmp(sig, name) == 0) \
        return fn(c, a, b, c3, d);
    GET4_SIGNATURES
#undef GET4
    return UNSUPPORTED_FORMAT;
}

static int
call_get(WT_CURSOR *c, bool key, const fspec *fs, int n, gval *gv)
{
    int (*fn)(WT_CURSOR *, ...) = key ? c->get_key : c->get_value;
    int gc[MAXF], k, rc = 0;

    memset(gv, 0, sizeof(gval) * MAXF);
    for (k = 0; k < n; k++)
        gc[k] = get_category(fs[k].ch);
    switch (n) {
    case 1:
        G0(GCALL, fn, c);
        break;
    case 2:
        G0(G1_GCALL, fn, c);
        break;
    case 3:
        G0(G1_G2_GCALL, fn, c);
        break;
    default:
        rc = call_get4(fn, c, fs, gv);
        break;
    }
    return rc;
}

/* Renders the fields get_key/get_value returned as a token (README 3.2). */
static void
render_fields(sbuf *out, const fspec *fs, int n, const gval *gv)
{
    int k;

    for (k = 0; k < n; k++) {
        if (k > 0)
            sb_putc(out, '|');
        switch (fs[k].ch) {
        case 'b':
            sb_printf(out, "%d", (int)gv[k].i8);
            break;
        case 'h':
            sb_printf(out, "%d", (int)gv[k].i16);
            break;
        case 'i':
        case 'l':
            sb_printf(out, "%" PRId32, gv[k].i32);
            break;
        case 'B':
        case 't':
            sb_printf(out, "%u", (unsigned)gv[k].u8);
            break;
        case 'H':
            sb_printf(out, "%u", (unsigned)gv[k].u16);
            break;
        case 'I':
        case 'L':
            sb_printf(out, "%" PRIu32, gv[k].u32);
            break;
        case 'q':
            sb_printf(out, "%" PRId64, gv[k].i64);
            break;
        case 'Q':
        case 'r':
            sb_printf(out, "%" PRIu64, gv[k].u64);
            break;
        case 'S': {
            const char *s = gv[k].s;
            size_t len = 0;
            if (s == NULL) {
                sb_puts(out, "[NULL]");
                break;
            }
            /* "NS": at most N bytes, not NUL-terminated when the string filled them. */
            if (fs[k].sized)
                while (len < fs[k].size && s[len] != '\0')
                    len++;
            else
                len = strlen(s);
            escape_column(out, (const unsigned char *)s, len);
            break;
        }
        case 's':
            if (gv[k].s == NULL)
                sb_puts(out, "[NULL]");
            else
                escape_column(
                  out, (const unsigned char *)gv[k].s, fs[k].sized ? fs[k].size : 1);
            break;
        default: { /* 'u' */
            const unsigned char *d = gv[k].w.data;
            size_t i;
            if (d == NULL && gv[k].w.size != 0) {
                sb_puts(out, "[NULL]");
                break;
            }
            for (i = 0; i < gv[k].w.size; i++)
                sb_printf(out, "%02x", (unsigned)d[i]);
            break;
        }
        }
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Traces.                                                                                   */

typedef struct {
    int step;    /* the step number column */
    char **cols; /* the TAB-separated columns */
    int ncols;
} step_t;

typedef struct {
    char *path;
    const char *name; /* the file name without its directory, used in "file:step" */
    char *data;
    step_t *steps;
    int nsteps;
    int maxstep;
    char ***msgs; /* by step number: the #msg texts, in order */
    int *nmsgs;
    char **note;  /* by step number: the #note text, or NULL */
    int *listed;  /* by step number: 1 + index into the expected-failures list, or 0 */
} trace_t;

static const char *
base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash == NULL ? path : slash + 1;
}

static char *
read_file(const char *path, size_t *lenp)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    size_t cap = 1 << 16, len = 0, got;

    if (f == NULL)
        return NULL;
    buf = xmalloc(cap);
    while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len - 1 == 0) {
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
    }
    fclose(f);
    buf[len] = '\0';
    if (lenp != NULL)
        *lenp = len;
    return buf;
}

/* Splits s at each `sep` in place; returns a malloc'd array of the pieces. */
static char **
split(char *s, char sep, int *np)
{
    int n = 1, i = 0;
    char *p, **v;

    for (p = s; *p != '\0'; p++)
        if (*p == sep)
            n++;
    v = xmalloc(sizeof(char *) * (size_t)n);
    v[i++] = s;
    for (p = s; *p != '\0'; p++)
        if (*p == sep) {
            *p = '\0';
            v[i++] = p + 1;
        }
    *np = n;
    return v;
}

static bool
load_trace(const char *path, trace_t *t)
{
    char **lines;
    int nlines, i;

    memset(t, 0, sizeof(*t));
    t->path = xstrdup(path);
    t->name = base_name(t->path);
    if ((t->data = read_file(path, NULL)) == NULL)
        return false;
    lines = split(t->data, '\n', &nlines);

    /* First pass: the highest step number named anywhere. */
    for (i = 0; i < nlines; i++) {
        const char *l = lines[i];
        int step = 0;
        if (strncmp(l, "#msg\t", 5) == 0 || strncmp(l, "#note\t", 6) == 0)
            step = atoi(strchr(l, '\t') + 1);
        else if (l[0] != '#' && l[0] != '\0') {
            step = atoi(l);
            t->nsteps++;
        }
        if (step > t->maxstep)
            t->maxstep = step;
    }
    t->steps = xcalloc((size_t)t->nsteps, sizeof(step_t));
    t->msgs = xcalloc((size_t)t->maxstep + 1, sizeof(char **));
    t->nmsgs = xcalloc((size_t)t->maxstep + 1, sizeof(int));
    t->note = xcalloc((size_t)t->maxstep + 1, sizeof(char *));
    t->listed = xcalloc((size_t)t->maxstep + 1, sizeof(int));

    t->nsteps = 0;
    for (i = 0; i < nlines; i++) {
        char *l = lines[i];
        if (strncmp(l, "#msg\t", 5) == 0 || strncmp(l, "#note\t", 6) == 0) {
            char *num = strchr(l, '\t') + 1, *text = strchr(num, '\t');
            int step = atoi(num);
            if (step <= 0 || text == NULL)
                continue;
            text++;
            if (l[1] == 'm') {
                t->msgs[step] =
                  xrealloc(t->msgs[step], sizeof(char *) * (size_t)(t->nmsgs[step] + 1));
                t->msgs[step][t->nmsgs[step]++] = text;
            } else
                t->note[step] = text;
        } else if (l[0] != '#' && l[0] != '\0') {
            step_t *st = &t->steps[t->nsteps++];
            st->step = atoi(l);
            st->cols = split(l, '\t', &st->ncols);
        }
    }
    free(lines);
    return true;
}

static void
free_trace(trace_t *t)
{
    int i;
    for (i = 0; i < t->nsteps; i++)
        free(t->steps[i].cols);
    for (i = 0; i <= t->maxstep; i++)
        free(t->msgs[i]);
    free(t->steps);
    free(t->msgs);
    free(t->nmsgs);
    free(t->note);
    free(t->listed);
    free(t->data);
    free(t->path);
}

/* ---------------------------------------------------------------------------------------- */
/* Expected failures.                                                                        */

typedef struct {
    char *file;
    int step;
    char *reason;
} xfail_t;

static xfail_t *xfails;
static int nxfails;

/* Loads the list; a missing file is an empty list. */
static void
load_expected(const char *path)
{
    char *data = read_file(path, NULL), **lines;
    int n, i;

    if (data == NULL)
        return;
    lines = split(data, '\n', &n);
    for (i = 0; i < n; i++) {
        char *l = lines[i], *colon, *tab, *end;
        long step;
        size_t len = strlen(l);
        if (len > 0 && l[len - 1] == '\r')
            l[--len] = '\0';
        if (l[0] == '#' || l[0] == '\0')
            continue;
        tab = strchr(l, '\t');
        if (tab != NULL)
            *tab = '\0';
        colon = strrchr(l, ':');
        if (colon == NULL || (step = strtol(colon + 1, &end, 10)) <= 0 || *end != '\0') {
            fprintf(stderr, "%s:%d: ignoring malformed line (want file:step<TAB>reason)\n", path,
              i + 1);
            continue;
        }
        *colon = '\0';
        xfails = xrealloc(xfails, sizeof(xfail_t) * (size_t)(nxfails + 1));
        xfails[nxfails].file = xstrdup(l);
        xfails[nxfails].step = (int)step;
        xfails[nxfails].reason = xstrdup(tab == NULL ? "" : tab + 1);
        nxfails++;
    }
    free(lines);
    free(data);
}

/* ---------------------------------------------------------------------------------------- */
/* The event handler: records the normalized error messages of the current step.             */

typedef struct {
    WT_EVENT_HANDLER iface; /* first, so the handler pointer is the struct's */
    char **msgs;
    int n, cap;
} recorder_t;

static recorder_t recorder;

/*
 * README 3.6: "[sec:usec][pid:tid], <prefix>, <object>, <API>: [WT_VERB_...][ERROR]: <function>,
 * <line>: <text>" becomes "<API>: <text>", escaped.
 */
static void
normalize_message(const char *m, sbuf *out)
{
    const char *p = m, *verb, *api, *text, *q;

    while (*p == '[') {
        const char *e = strchr(p, ']');
        if (e == NULL)
            break;
        p = e + 1;
    }
    if (p[0] == ',' && p[1] == ' ')
        p += 2;
    if ((verb = strstr(p, ": [WT_VERB_")) == NULL) {
        escape_message(out, (const unsigned char *)p, strlen(p));
        return;
    }
    for (api = p, q = p; q < verb; q++)
        if (q[0] == ',' && q[1] == ' ')
            api = q + 2;
    text = strstr(verb + 2, "]: ");
    text = text == NULL ? verb + 2 : text + 3;
    q = text;
    if (isalpha((unsigned char)*q) || *q == '_') {
        while (isalnum((unsigned char)*q) || *q == '_')
            q++;
        if (q[0] == ',' && q[1] == ' ' && isdigit((unsigned char)q[2])) {
            q += 2;
            while (isdigit((unsigned char)*q))
                q++;
            if (q[0] == ':' && q[1] == ' ')
                text = q + 2;
        }
    }
    escape_message(out, (const unsigned char *)api, (size_t)(verb - api));
    sb_puts(out, ": ");
    escape_message(out, (const unsigned char *)text, strlen(text));
}

static int
on_error(WT_EVENT_HANDLER *handler, WT_SESSION *session, int error, const char *message)
{
    recorder_t *r = (recorder_t *)handler;
    sbuf b = {NULL, 0, 0};

    (void)session;
    (void)error;
    normalize_message(message == NULL ? "(null)" : message, &b);
    if (r->n == r->cap) {
        r->cap = r->cap == 0 ? 8 : r->cap * 2;
        r->msgs = xrealloc(r->msgs, sizeof(char *) * (size_t)r->cap);
    }
    r->msgs[r->n++] = b.p == NULL ? xstrdup("") : b.p;
    return 0;
}

static int
on_message(WT_EVENT_HANDLER *handler, WT_SESSION *session, const char *message)
{
    (void)handler;
    (void)session;
    (void)message;
    return 0;
}

static void
recorder_clear(void)
{
    int i;
    for (i = 0; i < recorder.n; i++)
        free(recorder.msgs[i]);
    recorder.n = 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Replay state.                                                                             */

typedef struct {
    WT_CURSOR *c;     /* NULL: never opened, open failed, or closed */
    int session;      /* the session it was opened in */
    bool opened;      /* an open_cursor step named it */
    bool raw;         /* opened with config "raw" */
    int nk, nv;       /* field counts from the recorded formats; -1: unusable */
    fspec kf[MAXF], vf[MAXF];
    char *why;        /* why the formats are unusable */
    setblob *kb, *vb; /* the arguments of the last set_key / set_value (memory rule) */
} cslot;

static WT_CONNECTION *conn;
static WT_SESSION **sessions;
static int nsessions;
static cslot *cursors;
static int ncursors;
static char **argstrs; /* argument strings of the current trace, freed at its end */
static int nargstrs, capargstrs;

static bool opt_verbose, opt_messages, opt_first, opt_record;
static char *home_dir; /* the on-disk home of the current trace, created on first use */

/* Set before each step, for the crash report. */
static const char *cur_file = "-", *cur_op = "-";
static int cur_step;
static long tot_passed, tot_failed;

static int
name_index(const char *name, char prefix)
{
    char *end;
    long v;
    if (name == NULL || name[0] != prefix || !isdigit((unsigned char)name[1]))
        return -1;
    v = strtol(name + 1, &end, 10);
    return *end != '\0' || v > 1000000 ? -1 : (int)v;
}

static cslot *
cursor_slot(int idx)
{
    if (idx >= ncursors) {
        int n = idx + 16;
        cursors = xrealloc(cursors, sizeof(cslot) * (size_t)n);
        memset(cursors + ncursors, 0, sizeof(cslot) * (size_t)(n - ncursors));
        ncursors = n;
    }
    return &cursors[idx];
}

static WT_SESSION **
session_slot(int idx)
{
    if (idx >= nsessions) {
        int n = idx + 8;
        sessions = xrealloc(sessions, sizeof(WT_SESSION *) * (size_t)n);
        memset(sessions + nsessions, 0, sizeof(WT_SESSION *) * (size_t)(n - nsessions));
        nsessions = n;
    }
    return &sessions[idx];
}

static void
cursor_forget(cslot *cs)
{
    cs->c = NULL;
    setblob_free(cs->kb);
    setblob_free(cs->vb);
    cs->kb = cs->vb = NULL;
}

/* Forgets every handle and frees what the trace allocated. */
static void
state_reset(void)
{
    int i;
    for (i = 0; i < ncursors; i++) {
        cursor_forget(&cursors[i]);
        free(cursors[i].why);
    }
    free(cursors);
    cursors = NULL;
    ncursors = 0;
    free(sessions);
    sessions = NULL;
    nsessions = 0;
    for (i = 0; i < nargstrs; i++)
        free(argstrs[i]);
    free(argstrs);
    argstrs = NULL;
    nargstrs = capargstrs = 0;
    conn = NULL;
}

/* A uri/config argument: "-" is NULL, anything else is unescaped (kept until the trace ends). */
static bool
string_arg(const char *col, const char **out)
{
    size_t len;
    char *s;

    if (strcmp(col, "-") == 0) {
        *out = NULL;
        return true;
    }
    if ((s = unescape(col, strlen(col), 0, &len)) == NULL)
        return false;
    if (nargstrs == capargstrs) {
        capargstrs = capargstrs == 0 ? 256 : capargstrs * 2;
        argstrs = xrealloc(argstrs, sizeof(char *) * (size_t)capargstrs);
    }
    argstrs[nargstrs++] = s;
    *out = s;
    return true;
}

static const struct {
    const char *op;
    int arity;
} op_table[] = {{"wiredtiger_open", 1}, {"conn_close", 1}, {"open_session", 1},
  {"session_close", 1}, {"create", 2}, {"open_cursor", 2}, {"begin_transaction", 1},
  {"commit_transaction", 1}, {"rollback_transaction", 1}, {"session_reset", 0},
  {"session_reconfigure", 1}, {"close", 0}, {"reconfigure", 1}, {"set_key", 1},
  {"set_value", 1}, {"get_key", 0}, {"get_value", 0}, {"next", 0}, {"prev", 0}, {"reset", 0},
  {"search", 0}, {"insert", 0}, {"update", 0}, {"remove", 0}, {"search_near", 0},
  {"compare", 1}, {"equals", 1}, {"drop", 2}, {"checkpoint", 1}};

static int
op_arity(const char *op)
{
    size_t i;
    for (i = 0; i < sizeof(op_table) / sizeof(op_table[0]); i++)
        if (strcmp(op_table[i].op, op) == 0)
            return op_table[i].arity;
    return -1;
}

/* Parses the formats of an opened cursor into its slot (NULL formats: unusable). */
static void
slot_formats_of(cslot *cs, const char *kf, const char *vf, const char *config)
{
    sbuf err = {NULL, 0, 0};

    cs->raw = config != NULL && strcmp(config, "raw") == 0;
    free(cs->why);
    cs->why = NULL;
    cs->nk = cs->nv = -1;
    if (kf != NULL && vf != NULL) {
        cs->nk = parse_format(kf, cs->raw, cs->kf, &err);
        if (cs->nk > 0)
            cs->nv = parse_format(vf, cs->raw, cs->vf, &err);
    } else
        sb_puts(&err, "the open_cursor failed");
    if (cs->nk <= 0 || cs->nv <= 0) {
        cs->nk = cs->nv = -1;
        cs->why = err.p == NULL ? xstrdup("no formats") : err.p;
    } else
        sb_free(&err);
}

/* Parses the recorded formats of an open_cursor step into the cursor's slot. */
static void
slot_formats(cslot *cs, const step_t *st, int arrow, const char *config)
{
    sbuf err = {NULL, 0, 0};

    cs->raw = config != NULL && strcmp(config, "raw") == 0;
    free(cs->why);
    cs->why = NULL;
    cs->nk = cs->nv = -1;
    if (arrow + 3 < st->ncols && strcmp(st->cols[arrow + 1], "0") == 0) {
        size_t kl, vl;
        char *kf = unescape(st->cols[arrow + 2], strlen(st->cols[arrow + 2]), 0, &kl);
        char *vf = unescape(st->cols[arrow + 3], strlen(st->cols[arrow + 3]), 0, &vl);
        if (kf != NULL && vf != NULL) {
            cs->nk = parse_format(kf, cs->raw, cs->kf, &err);
            if (cs->nk > 0)
                cs->nv = parse_format(vf, cs->raw, cs->vf, &err);
        } else
            sb_puts(&err, "malformed recorded format");
        free(kf);
        free(vf);
    } else
        sb_puts(&err, "the recorded open_cursor failed");
    if (cs->nk <= 0 || cs->nv <= 0) {
        cs->nk = cs->nv = -1;
        cs->why = err.p == NULL ? xstrdup("no formats") : err.p;
    } else
        sb_free(&err);
}

static int
remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Removes the current trace's on-disk home, if it made one. */
static void
home_remove(void)
{
    if (home_dir == NULL)
        return;
    (void)nftw(home_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(home_dir);
    home_dir = NULL;
}

/*
 * The home a wiredtiger_open gets: NULL for an in-memory database (as the recorded traces were
 * made), else the trace's own directory, made empty on first use.
 */
static const char *
open_home(const char *config)
{
    const char *tmp;
    sbuf path = {NULL, 0, 0};

    if (config != NULL && strstr(config, "in_memory=true") != NULL)
        return NULL;
    if (home_dir != NULL)
        return home_dir;
    tmp = getenv("TMPDIR");
    sb_printf(&path, "%s/replay-home.XXXXXX", tmp == NULL || *tmp == '\0' ? "/tmp" : tmp);
    if (mkdtemp(path.p) == NULL) {
        fprintf(stderr, "replay: cannot create a home directory under %s\n", path.p);
        exit(2);
    }
    home_dir = path.p;
    return home_dir;
}

/*
 * Performs one step and renders its outcome into `got` (columns separated by TAB, as the
 * columns after "->" are).
 */
static void
exec_step(const step_t *st, sbuf *got)
{
    const char *op = st->cols[3];
    int arity = op_arity(op), arrow = 4 + arity, rc = 0, sidx, cidx;
    const char *a0 = NULL, *a1 = NULL;
    WT_SESSION *s = NULL;
    WT_CURSOR *c = NULL;
    cslot *cs = NULL;

    if (arity < 0 || st->ncols <= arrow + 1 || strcmp(st->cols[arrow], "->") != 0) {
        sb_puts(got, "[malformed step line]");
        return;
    }

    /* Connection-level calls. */
    if (strcmp(op, "wiredtiger_open") == 0) {
        if (!string_arg(st->cols[4], &a0)) {
            sb_puts(got, "[malformed argument]");
            return;
        }
        conn = NULL;
        rc = wiredtiger_open(open_home(a0), &recorder.iface, a0, &conn);
        if (rc != 0)
            conn = NULL;
        sb_printf(got, "%d", rc);
        return;
    }
    if (strcmp(op, "conn_close") == 0) {
        int i;
        if (conn == NULL) {
            sb_puts(got, "[no connection]");
            return;
        }
        if (!string_arg(st->cols[4], &a0)) {
            sb_puts(got, "[malformed argument]");
            return;
        }
        rc = conn->close(conn, a0);
        conn = NULL; /* invalid afterwards even on error */
        for (i = 0; i < nsessions; i++)
            sessions[i] = NULL;
        for (i = 0; i < ncursors; i++)
            cursor_forget(&cursors[i]);
        sb_printf(got, "%d", rc);
        return;
    }
    if (strcmp(op, "open_session") == 0) {
        WT_SESSION **slot;
        if ((sidx = name_index(st->cols[1], 's')) < 0) {
            sb_puts(got, "[malformed session name]");
            return;
        }
        slot = session_slot(sidx);
        *slot = NULL;
        if (conn == NULL) {
            sb_puts(got, "[no connection]");
            return;
        }
        if (!string_arg(st->cols[4], &a0)) {
            sb_puts(got, "[malformed argument]");
            return;
        }
        rc = conn->open_session(conn, NULL, a0, &s);
        *slot = rc == 0 ? s : NULL;
        sb_printf(got, "%d", rc);
        return;
    }

    /* Everything else runs in a session. */
    if ((sidx = name_index(st->cols[1], 's')) < 0) {
        sb_puts(got, "[malformed session name]");
        return;
    }
    if ((s = *session_slot(sidx)) == NULL) {
        sb_printf(got, "[no session %s]", st->cols[1]);
        return;
    }
    if (arity >= 1 && strcmp(op, "set_key") != 0 && strcmp(op, "set_value") != 0 &&
      strcmp(op, "compare") != 0 && strcmp(op, "equals") != 0) {
        if (!string_arg(st->cols[4], &a0) || (arity >= 2 && !string_arg(st->cols[5], &a1))) {
            sb_puts(got, "[malformed argument]");
            return;
        }
    }

    if (strcmp(op, "session_close") == 0) {
        int i;
        rc = s->close(s, a0);
        *session_slot(sidx) = NULL;
        for (i = 0; i < ncursors; i++)
            if (cursors[i].session == sidx)
                cursor_forget(&cursors[i]);
        sb_printf(got, "%d", rc);
        return;
    }
    if (strcmp(op, "create") == 0) {
        sb_printf(got, "%d", s->create(s, a0, a1));
        return;
    }
    if (strcmp(op, "drop") == 0) {
        sb_printf(got, "%d", s->drop(s, a0, a1));
        return;
    }
    if (strcmp(op, "checkpoint") == 0) {
        sb_printf(got, "%d", s->checkpoint(s, a0));
        return;
    }
    if (strcmp(op, "open_cursor") == 0) {
        if ((cidx = name_index(st->cols[2], 'c')) < 0) {
            sb_puts(got, "[malformed cursor name]");
            return;
        }
        cs = cursor_slot(cidx);
        cursor_forget(cs);
        cs->opened = true;
        cs->session = sidx;
        if (!opt_record)
            slot_formats(cs, st, arrow, a1);
        rc = s->open_cursor(s, a0, NULL, a1, &c);
        if (opt_record) /* the formats are this library's */
            slot_formats_of(
              cs, rc == 0 ? c->key_format : NULL, rc == 0 ? c->value_format : NULL, a1);
        if (rc != 0) {
            sb_printf(got, "%d", rc);
            return;
        }
        cs->c = c;
        sb_puts(got, "0\t");
        if (c->key_format == NULL)
            sb_puts(got, "[NULL]");
        else
            escape_column(got, (const unsigned char *)c->key_format, strlen(c->key_format));
        sb_putc(got, '\t');
        if (c->value_format == NULL)
            sb_puts(got, "[NULL]");
        else
            escape_column(got, (const unsigned char *)c->value_format, strlen(c->value_format));
        return;
    }
    if (strcmp(op, "begin_transaction") == 0) {
        sb_printf(got, "%d", s->begin_transaction(s, a0));
        return;
    }
    if (strcmp(op, "commit_transaction") == 0) {
        sb_printf(got, "%d", s->commit_transaction(s, a0));
        return;
    }
    if (strcmp(op, "rollback_transaction") == 0) {
        sb_printf(got, "%d", s->rollback_transaction(s, a0));
        return;
    }
    if (strcmp(op, "session_reset") == 0) {
        sb_printf(got, "%d", s->reset(s));
        return;
    }
    if (strcmp(op, "session_reconfigure") == 0) {
        sb_printf(got, "%d", s->reconfigure(s, a0));
        return;
    }

    /* Cursor calls. */
    if ((cidx = name_index(st->cols[2], 'c')) < 0) {
        sb_puts(got, "[malformed cursor name]");
        return;
    }
    cs = cursor_slot(cidx);
    if ((c = cs->c) == NULL) {
        sb_printf(got, "[no cursor %s]", st->cols[2]);
        return;
    }

    if (strcmp(op, "close") == 0) {
        rc = c->close(c);
        cursor_forget(cs); /* the handle is gone even on error */
        sb_printf(got, "%d", rc);
    } else if (strcmp(op, "reconfigure") == 0)
        sb_printf(got, "%d", c->reconfigure(c, a0));
    else if (strcmp(op, "set_key") == 0 || strcmp(op, "set_value") == 0) {
        bool key = op[4] == 'k';
        sbuf err = {NULL, 0, 0};
        setblob *b;
        if (cs->nk < 0) {
            sb_printf(got, "[cannot decode: %s]", cs->why);
            return;
        }
        if ((b = build_set(key ? cs->kf : cs->vf, key ? cs->nk : cs->nv, st->cols[4], &err)) ==
          NULL) {
            sb_printf(got, "[bad token: %s]", err.p == NULL ? "?" : err.p);
            sb_free(&err);
            return;
        }
        call_set(c, key, key ? cs->kf : cs->vf, key ? cs->nk : cs->nv, b);
        /* The previous arguments are no longer the engine's to use (memory rule). */
        if (key) {
            setblob_free(cs->kb);
            cs->kb = b;
        } else {
            setblob_free(cs->vb);
            cs->vb = b;
        }
        sb_putc(got, '-');
    } else if (strcmp(op, "get_key") == 0 || strcmp(op, "get_value") == 0) {
        bool key = op[4] == 'k';
        gval gv[MAXF];
        if (cs->nk < 0) {
            sb_printf(got, "[cannot decode: %s]", cs->why);
            return;
        }
        rc = call_get(c, key, key ? cs->kf : cs->vf, key ? cs->nk : cs->nv, gv);
        if (rc == UNSUPPORTED_FORMAT) {
            sb_puts(got, "[four-field format not in GET4_SIGNATURES]");
            return;
        }
        sb_printf(got, "%d", rc);
        if (rc == 0) {
            sb_putc(got, '\t');
            render_fields(got, key ? cs->kf : cs->vf, key ? cs->nk : cs->nv, gv);
        }
    } else if (strcmp(op, "next") == 0)
        sb_printf(got, "%d", c->next(c));
    else if (strcmp(op, "prev") == 0)
        sb_printf(got, "%d", c->prev(c));
    else if (strcmp(op, "reset") == 0)
        sb_printf(got, "%d", c->reset(c));
    else if (strcmp(op, "search") == 0)
        sb_printf(got, "%d", c->search(c));
    else if (strcmp(op, "insert") == 0)
        sb_printf(got, "%d", c->insert(c));
    else if (strcmp(op, "update") == 0)
        sb_printf(got, "%d", c->update(c));
    else if (strcmp(op, "remove") == 0)
        sb_printf(got, "%d", c->remove(c));
    else if (strcmp(op, "search_near") == 0) {
        int exact = 0;
        rc = c->search_near(c, &exact);
        sb_printf(got, "%d", rc);
        if (rc == 0)
            sb_printf(got, "\t%d", exact);
    } else if (strcmp(op, "compare") == 0 || strcmp(op, "equals") == 0) {
        int oidx = name_index(st->cols[4], 'c'), r = 0;
        WT_CURSOR *other = oidx < 0 ? NULL : cursor_slot(oidx)->c;
        if (other == NULL) {
            sb_printf(got, "[no cursor %s]", st->cols[4]);
            return;
        }
        rc = op[0] == 'c' ? c->compare(c, other, &r) : c->equals(c, other, &r);
        sb_printf(got, "%d", rc);
        if (rc == 0)
            sb_printf(got, "\t%d", r);
    } else
        sb_printf(got, "[unknown op %s]", op);
}

/* ---------------------------------------------------------------------------------------- */
/* Running a trace.                                                                          */

typedef struct {
    long passed, failed, notefail, xfail, unexpected, fixed;
} counts_t;

static char **unexpected; /* "file:step" of each unexpected failure, for --write-expected */
static int nunexpected;

static void
on_crash(int sig)
{
    /* Not async-signal-safe, but the process is about to end anyway. */
    fprintf(stderr, "CRASH %s:%d %s: signal %d\n", cur_file, cur_step, cur_op, sig);
    printf("CRASH %s:%d %s: signal %d\n", cur_file, cur_step, cur_op, sig);
    printf("%ld passed, %ld failed (before the crash)\n", tot_passed, tot_failed + 1);
    fflush(stdout);
    _Exit(3);
}

static void
print_cols(const char *s)
{
    for (; *s != '\0'; s++)
        putchar(*s == '\t' ? ' ' : *s);
}

static void
run_trace(trace_t *t, counts_t *ct)
{
    sbuf got = {NULL, 0, 0}, want = {NULL, 0, 0};
    int i, j;

    memset(ct, 0, sizeof(*ct));
    cur_file = t->name;
    for (i = 0; i < t->nsteps; i++) {
        const step_t *st = &t->steps[i];
        int arity = st->ncols > 3 ? op_arity(st->cols[3]) : -1, arrow = 4 + arity;
        bool pass;

        cur_step = st->step;
        cur_op = st->ncols > 3 ? st->cols[3] : "?";
        sb_reset(&got);
        sb_reset(&want);
        recorder_clear();
        if (st->ncols < 5)
            sb_puts(&got, "[malformed step line]");
        else
            exec_step(st, &got);

        if (arity >= 0 && arrow < st->ncols)
            for (j = arrow + 1; j < st->ncols; j++) {
                if (j > arrow + 1)
                    sb_putc(&want, '\t');
                sb_puts(&want, st->cols[j]);
            }
        else
            sb_puts(&want, "[unparsable]");
        if (opt_messages && st->step > 0 && st->step <= t->maxstep) {
            for (j = 0; j < t->nmsgs[st->step]; j++)
                sb_printf(&want, "\t#msg:%s", t->msgs[st->step][j]);
            for (j = 0; j < recorder.n; j++)
                sb_printf(&got, "\t#msg:%s", recorder.msgs[j]);
        }
        pass = strcmp(got.p, want.p) == 0;

        if (opt_verbose) {
            printf("%s %s:%d", pass ? "ok" : "--", t->name, st->step);
            for (j = 1; j < st->ncols && j < arrow; j++)
                printf(" %s", st->cols[j]);
            printf(" => ");
            print_cols(got.p);
            putchar('\n');
            if (!opt_messages)
                for (j = 0; j < recorder.n; j++)
                    printf("   message: %s\n", recorder.msgs[j]);
        }

        if (st->step > 0 && st->step <= t->maxstep && t->listed[st->step] != 0) {
            /* Listed: it must still fail, else the list must shrink. */
            if (pass) {
                printf("FIXED %s:%d\n", t->name, st->step);
                ct->fixed++;
            }
        }
        if (pass) {
            ct->passed++;
            tot_passed++;
            continue;
        }
        ct->failed++;
        tot_failed++;
        if (st->step > 0 && st->step <= t->maxstep && t->note[st->step] != NULL) {
            ct->notefail++;
            printf("NOTE-FAIL");
        } else if (st->step > 0 && st->step <= t->maxstep && t->listed[st->step] != 0) {
            ct->xfail++;
            printf("XFAIL");
        } else {
            char buf[512];
            ct->unexpected++;
            printf("FAIL");
            snprintf(buf, sizeof(buf), "%s:%d", t->name, st->step);
            unexpected = xrealloc(unexpected, sizeof(char *) * (size_t)(nunexpected + 1));
            unexpected[nunexpected++] = xstrdup(buf);
        }
        printf(" %s:%d %s: expected [", t->name, st->step, cur_op);
        print_cols(want.p);
        printf("] got [");
        print_cols(got.p);
        printf("]\n");
        if (opt_first && ct->unexpected > 0) {
            printf("STOP %s:%d: the first unexpected difference; the rest of the trace is not run\n",
              t->name, st->step);
            break;
        }
    }
    if (conn != NULL) /* the trace did not close it */
        (void)conn->close(conn, NULL);
    home_remove();
    state_reset();
    recorder_clear();
    sb_free(&got);
    sb_free(&want);
    fflush(stdout);
}

/*
 * --record: runs the trace at `in` line by line and writes it to `out` with this library's
 * outcomes (see the head comment). Returns the process status.
 */
static int
record_trace(const char *in, const char *out)
{
    char *data = read_file(in, NULL), **lines;
    sbuf got = {NULL, 0, 0};
    FILE *f;
    int nlines, i, j;

    if (data == NULL) {
        fprintf(stderr, "replay: cannot read %s\n", in);
        return 2;
    }
    if ((f = fopen(out, "w")) == NULL) {
        fprintf(stderr, "replay: cannot write %s\n", out);
        return 2;
    }
    /* Line-buffered: a run that hangs (and is killed) still shows the step it hung in. */
    setvbuf(f, NULL, _IOLBF, 0);
    cur_file = base_name(in);
    lines = split(data, '\n', &nlines);
    for (i = 0; i < nlines; i++) {
        char *l = lines[i], *copy;
        step_t st;
        int arity, arrow;

        if (l[0] == '\0' && i == nlines - 1)
            break;
        if (strncmp(l, "#msg\t", 5) == 0 || strncmp(l, "#note\t", 6) == 0)
            continue; /* outcomes of another run */
        if (strncmp(l, "# recorded from:", 16) == 0) {
            fprintf(f, "# recorded from: %s\n", wiredtiger_version(NULL, NULL, NULL));
            continue;
        }
        if (l[0] == '#' || l[0] == '\0') {
            fprintf(f, "%s\n", l);
            continue;
        }
        copy = xstrdup(l);
        st.step = atoi(l);
        st.cols = split(copy, '\t', &st.ncols);
        arity = st.ncols > 3 ? op_arity(st.cols[3]) : -1;
        arrow = 4 + arity;
        cur_step = st.step;
        cur_op = st.ncols > 3 ? st.cols[3] : "?";
        sb_reset(&got);
        recorder_clear();
        if (st.ncols < 5)
            sb_puts(&got, "[malformed step line]");
        else
            exec_step(&st, &got);
        if (arity < 0 || arrow >= st.ncols) {
            fprintf(stderr, "replay: %s:%d: malformed step line\n", in, st.step);
            return 2;
        }
        for (j = 0; j <= arrow; j++)
            fprintf(f, "%s%s", j > 0 ? "\t" : "", st.cols[j]);
        fprintf(f, "\t%s\n", got.p);
        for (j = 0; j < recorder.n; j++)
            fprintf(f, "#msg\t%d\t%s\n", st.step, recorder.msgs[j]);
        free(st.cols);
        free(copy);
        tot_passed++;
    }
    if (conn != NULL)
        (void)conn->close(conn, NULL);
    home_remove();
    state_reset();
    recorder_clear();
    free(recorder.msgs);
    sb_free(&got);
    free(lines);
    free(data);
    if (fclose(f) != 0) {
        fprintf(stderr, "replay: cannot write %s\n", out);
        return 2;
    }
    printf("recorded %ld steps into %s\n", tot_passed, out);
    return 0;
}

static int
compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The default FILEs: every *.trace under c-tests/traces/, in name order. */
static const char **
default_traces(int *np)
{
    const char *dir = "c-tests/traces";
    DIR *d = opendir(dir);
    struct dirent *e;
    const char **v = NULL;
    int n = 0;

    if (d == NULL) {
        fprintf(stderr, "replay: cannot open %s\n", dir);
        exit(2);
    }
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        sbuf path = {NULL, 0, 0};
        if (len <= 6 || strcmp(e->d_name + len - 6, ".trace") != 0)
            continue;
        sb_printf(&path, "%s/%s", dir, e->d_name);
        v = xrealloc(v, sizeof(char *) * (size_t)(n + 1));
        v[n++] = path.p;
    }
    closedir(d);
    qsort(v, (size_t)n, sizeof(char *), compare_names);
    *np = n;
    return v;
}

static void
usage(void)
{
    fprintf(stderr,
      "usage: replay [--verbose] [--messages] [--first] [--expected PATH] "
      "[--write-expected REASON] [FILE...]\n"
      "       replay --record OUT FILE\n"
      "  default FILEs: every *.trace under c-tests/traces/\n"
      "  --first            stop each trace at its first unexpected failure\n"
      "  --record OUT       run FILE and write it to OUT with this library's outcomes\n"
      "  --verbose          print every step and its outcome\n"
      "  --messages         also compare error messages with the #msg lines\n"
      "  --expected PATH    the expected-failures list (default "
      "c-tests/traces/expected-failures.txt)\n"
      "  --write-expected R append this run's unexpected failures to that list with reason R\n");
}

int
main(int argc, char *argv[])
{
    const char **files, *expected_path = "c-tests/traces/expected-failures.txt",
                        *write_reason = NULL, *record_out = NULL;
    int nfiles = 0, i, k, status;
    bool owned_files = false; /* the paths in files are malloc'd (default_traces) */
    trace_t *traces;
    counts_t *counts, total;

    files = xcalloc((size_t)argc + 5, sizeof(char *));
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--verbose") == 0 || strcmp(argv[i], "-v") == 0)
            opt_verbose = true;
        else if (strcmp(argv[i], "--messages") == 0)
            opt_messages = true;
        else if (strcmp(argv[i], "--first") == 0)
            opt_first = true;
        else if (strcmp(argv[i], "--record") == 0 && i + 1 < argc)
            record_out = argv[++i];
        else if (strcmp(argv[i], "--expected") == 0 && i + 1 < argc)
            expected_path = argv[++i];
        else if (strcmp(argv[i], "--write-expected") == 0 && i + 1 < argc)
            write_reason = argv[++i];
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage();
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            usage();
            return 2;
        } else
            files[nfiles++] = argv[i];
    }
    if (record_out != NULL && nfiles != 1) {
        usage();
        return 2;
    }
    if (nfiles == 0) {
        free(files);
        files = default_traces(&nfiles);
        owned_files = true;
    }
    if (write_reason != NULL && strpbrk(write_reason, "\t\n") != NULL) {
        fprintf(stderr, "replay: the reason must not contain TAB or newline\n");
        return 2;
    }

    recorder.iface.handle_error = on_error;
    recorder.iface.handle_message = on_message;
    signal(SIGSEGV, on_crash);
    signal(SIGFPE, on_crash);
    signal(SIGILL, on_crash);
    signal(SIGABRT, on_crash);

    if (record_out != NULL) {
        opt_record = true;
        return record_trace(files[0], record_out);
    }
    load_expected(expected_path);

    traces = xcalloc((size_t)nfiles, sizeof(trace_t));
    counts = xcalloc((size_t)nfiles, sizeof(counts_t));
    memset(&total, 0, sizeof(total));
    for (i = 0; i < nfiles; i++) {
        trace_t *t = &traces[i];
        if (!load_trace(files[i], t)) {
            fprintf(stderr, "replay: cannot read %s\n", files[i]);
            return 2;
        }
        for (k = 0; k < nxfails; k++)
            if (strcmp(base_name(xfails[k].file), t->name) == 0 && xfails[k].step > 0 &&
              xfails[k].step <= t->maxstep)
                t->listed[xfails[k].step] = k + 1;
        run_trace(t, &counts[i]);
        total.passed += counts[i].passed;
        total.failed += counts[i].failed;
        total.notefail += counts[i].notefail;
        total.xfail += counts[i].xfail;
        total.unexpected += counts[i].unexpected;
        total.fixed += counts[i].fixed;
    }

    if (write_reason != NULL && nunexpected > 0) {
        FILE *f;
        bool fresh = (f = fopen(expected_path, "r")) == NULL;
        if (f != NULL)
            fclose(f);
        if ((f = fopen(expected_path, "a")) == NULL) {
            fprintf(stderr, "replay: cannot append to %s\n", expected_path);
            return 2;
        }
        if (fresh)
            fprintf(f,
              "# Steps of the traces that unlatched is known to fail, one per line:\n"
              "# file:step<TAB>reason. replay exits non-zero on any other failure and on a\n"
              "# listed step that passes (FIXED), so this list only shrinks.\n"
              "# Regenerate deliberately with: replay --write-expected REASON [FILE...]\n");
        for (i = 0; i < nunexpected; i++)
            fprintf(f, "%s\t%s\n", unexpected[i], write_reason);
        fclose(f);
        printf("wrote %d expected failure(s) to %s\n", nunexpected, expected_path);
    }

    printf("== summary ==\n");
    for (i = 0; i < nfiles; i++)
        printf("%s: %ld passed, %ld failed (%ld note-failures, %ld expected, %ld unexpected; "
               "%ld fixed)\n",
          traces[i].name, counts[i].passed, counts[i].failed, counts[i].notefail,
          counts[i].xfail, counts[i].unexpected, counts[i].fixed);
    printf("note-failures: %ld (steps with a #note: the reference contradicts its documentation)\n",
      total.notefail);
    printf("expected failures: %ld listed in %s, %ld unexpected%s, %ld fixed\n", total.xfail,
      expected_path, total.unexpected, write_reason != NULL ? " (now appended to the list)" : "",
      total.fixed);
    printf("%ld passed, %ld failed\n", total.passed, total.failed);

    status = (total.unexpected == 0 || write_reason != NULL) && total.fixed == 0 ? 0 : 1;
    for (i = 0; i < nfiles; i++)
        free_trace(&traces[i]);
    for (i = 0; i < nunexpected; i++)
        free(unexpected[i]);
    free(unexpected);
    for (i = 0; i < nxfails; i++) {
        free(xfails[i].file);
        free(xfails[i].reason);
    }
    free(xfails);
    free(traces);
    free(counts);
    for (i = 0; owned_files && i < nfiles; i++)
        free((char *)files[i]);
    free(files);
    recorder_clear();
    free(recorder.msgs);
    return status;
}
