/*
 * The C-variadic entry points of the API. Stable Rust cannot define C-variadic functions, so
 * each one here only moves its arguments between a va_list and an array of ul_arg, guided by a
 * plan of argument kinds that Rust computed from the format. Every decision stays in Rust.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wiredtiger.h"

/* Argument kinds; must match `pack::CArg` (`#[repr(u8)]`, starting at 1). */
enum { UL_I8 = 1, UL_I16, UL_I32, UL_I64, UL_U8, UL_U16, UL_U32, UL_U64, UL_CSTR, UL_BYTES, UL_ITEM };

/* One argument; must match `capi::shim::UlArg`. For an absent pointer `p` is NULL. */
typedef struct {
    uint64_t u;
    const void *p;
    size_t len;
} ul_arg;

/* A list of argument kinds; must match `capi::shim::UlPlan`. */
typedef struct {
    const uint8_t *kinds;
    size_t n;
} ul_plan;

/* The start of a cursor handle: the public struct, then the key and value plans. */
typedef struct {
    WT_CURSOR iface;
    ul_plan key;
    ul_plan value;
} ul_cursor;

/* Implemented in Rust (src/capi/shim.rs). Hidden: they bind inside the library (no PLT
 * indirection on the hot path) and stay out of its exported symbols. */
#define UL_PRIVATE __attribute__((visibility("hidden")))
extern UL_PRIVATE void __unlatched_cursor_set_key(WT_CURSOR *cursor, const ul_arg *args, size_t n);
extern UL_PRIVATE void __unlatched_cursor_set_value(WT_CURSOR *cursor, const ul_arg *args, size_t n);
extern UL_PRIVATE int __unlatched_cursor_get_key(WT_CURSOR *cursor, ul_arg *out, size_t n);
extern UL_PRIVATE int __unlatched_cursor_get_value(WT_CURSOR *cursor, ul_arg *out, size_t n);
extern UL_PRIVATE int __unlatched_struct_plan(WT_SESSION *session, const char *format, uint8_t *kinds, size_t cap, size_t *np);
extern UL_PRIVATE int __unlatched_struct_pack(
  WT_SESSION *session, void *buffer, size_t len, const char *format, const ul_arg *args, size_t n);
extern UL_PRIVATE int __unlatched_struct_size(
  WT_SESSION *session, size_t *lenp, const char *format, const ul_arg *args, size_t n);
extern UL_PRIVATE int __unlatched_struct_unpack(
  WT_SESSION *session, const void *buffer, size_t len, const char *format, ul_arg *out, size_t n);
extern UL_PRIVATE int __unlatched_unsupported(WT_SESSION *session, const char *method);
extern UL_PRIVATE int __unlatched_session_log_printf(WT_SESSION *session, const char *text);

/* Formats with more fields than this use the heap. */
#define UL_INLINE 16

static inline void
ul_collect(const uint8_t *kinds, size_t n, ul_arg *args, va_list *ap)
{
    size_t i;
    for (i = 0; i < n; i++) {
        ul_arg *a = &args[i];
        a->p = NULL;
        a->len = 0;
        switch (kinds[i]) {
        case UL_I8:
        case UL_I16:
        case UL_I32:
            a->u = (uint64_t)(int64_t)va_arg(*ap, int);
            break;
        case UL_U8:
        case UL_U16:
        case UL_U32:
            a->u = (uint64_t)va_arg(*ap, unsigned int);
            break;
        case UL_I64:
            a->u = (uint64_t)va_arg(*ap, int64_t);
            break;
        case UL_U64:
            a->u = va_arg(*ap, uint64_t);
            break;
        case UL_CSTR: {
            const char *s = va_arg(*ap, const char *);
            a->p = s;
            a->len = s == NULL ? 0 : strlen(s);
            break;
        }
        case UL_BYTES:
            a->p = va_arg(*ap, const char *);
            break;
        case UL_ITEM: {
            const WT_ITEM *item = va_arg(*ap, const WT_ITEM *);
            if (item != NULL) {
                /* An empty item may have no data pointer; a non-empty one without data stays
                 * NULL, which Rust rejects. */
                a->p = item->data;
                if (a->p == NULL && item->size == 0)
                    a->p = "";
                a->len = item->size;
            }
            break;
        }
        default:
            a->u = 0;
            break;
        }
    }
}

static inline void
ul_store(const uint8_t *kinds, size_t n, const ul_arg *out, va_list *ap)
{
    size_t i;
    for (i = 0; i < n; i++) {
        const ul_arg *a = &out[i];
        switch (kinds[i]) {
#define UL_PUT(type)                       \
    do {                                   \
        type *dst = va_arg(*ap, type *);   \
        if (dst != NULL)                   \
            *dst = (type)a->u;             \
    } while (0)
        case UL_I8:
            UL_PUT(int8_t);
            break;
        case UL_I16:
            UL_PUT(int16_t);
            break;
        case UL_I32:
            UL_PUT(int32_t);
            break;
        case UL_I64:
            UL_PUT(int64_t);
            break;
        case UL_U8:
            UL_PUT(uint8_t);
            break;
        case UL_U16:
            UL_PUT(uint16_t);
            break;
        case UL_U32:
            UL_PUT(uint32_t);
            break;
        case UL_U64:
            UL_PUT(uint64_t);
            break;
#undef UL_PUT
        case UL_CSTR:
        case UL_BYTES: {
            const char **dst = va_arg(*ap, const char **);
            if (dst != NULL)
                *dst = (const char *)a->p;
            break;
        }
        case UL_ITEM: {
            WT_ITEM *dst = va_arg(*ap, WT_ITEM *);
            if (dst != NULL) {
                dst->data = a->p;
                dst->size = a->len;
            }
            break;
        }
        default:
            break;
        }
    }
}

typedef void (*ul_set_fn)(WT_CURSOR *, const ul_arg *, size_t);
typedef int (*ul_get_fn)(WT_CURSOR *, ul_arg *, size_t);

/* Sets a key or value of several fields: an argument array, on the stack unless it is large.
 * Kept out of line so that the single-field path carries no large frame. */
static __attribute__((noinline)) void
ul_set_many(WT_CURSOR *cursor, const ul_plan *plan, va_list *ap, ul_set_fn set)
{
    ul_arg small[UL_INLINE] = {{0, NULL, 0}}, *args = small;
    if (plan->n > UL_INLINE && (args = malloc(plan->n * sizeof(ul_arg))) == NULL) {
        set(cursor, NULL, plan->n); /* Rust records ENOMEM for the next operation */
        return;
    }
    ul_collect(plan->kinds, plan->n, args, ap);
    set(cursor, args, plan->n);
    if (args != small)
        free(args);
}

/* Gets a key or value of several fields into the caller's pointers. */
static __attribute__((noinline)) int
ul_get_many(WT_CURSOR *cursor, const ul_plan *plan, va_list *ap, ul_get_fn get)
{
    ul_arg small[UL_INLINE], *out = small;
    int ret;
    if (plan->n > UL_INLINE && (out = malloc(plan->n * sizeof(ul_arg))) == NULL)
        return ENOMEM;
    if ((ret = get(cursor, out, plan->n)) == 0)
        ul_store(plan->kinds, plan->n, out, ap);
    if (out != small)
        free(out);
    return ret;
}

/* Sets a key or value from `ap`: one field (the common case) inline, more out of line. */
static inline void
ul_set(WT_CURSOR *cursor, const ul_plan *plan, va_list *ap, ul_set_fn set)
{
    ul_arg one;
    if (plan->n != 1) {
        ul_set_many(cursor, plan, ap, set);
        return;
    }
    ul_collect(plan->kinds, 1, &one, ap);
    set(cursor, &one, 1);
}

/* Gets a key or value into the pointers in `ap`, likewise. */
static inline int
ul_get(WT_CURSOR *cursor, const ul_plan *plan, va_list *ap, ul_get_fn get)
{
    ul_arg one;
    int ret;
    if (plan->n != 1)
        return ul_get_many(cursor, plan, ap, get);
    if ((ret = get(cursor, &one, 1)) == 0)
        ul_store(plan->kinds, 1, &one, ap);
    return ret;
}

void
__ul_shim_set_key(WT_CURSOR *cursor, ...)
{
    va_list ap;
    va_start(ap, cursor);
    ul_set(cursor, &((ul_cursor *)cursor)->key, &ap, __unlatched_cursor_set_key);
    va_end(ap);
}

void
__ul_shim_set_value(WT_CURSOR *cursor, ...)
{
    va_list ap;
    va_start(ap, cursor);
    ul_set(cursor, &((ul_cursor *)cursor)->value, &ap, __unlatched_cursor_set_value);
    va_end(ap);
}

int
__ul_shim_get_key(WT_CURSOR *cursor, ...)
{
    va_list ap;
    int ret;
    va_start(ap, cursor);
    ret = ul_get(cursor, &((ul_cursor *)cursor)->key, &ap, __unlatched_cursor_get_key);
    va_end(ap);
    return ret;
}

int
__ul_shim_get_value(WT_CURSOR *cursor, ...)
{
    va_list ap;
    int ret;
    va_start(ap, cursor);
    ret = ul_get(cursor, &((ul_cursor *)cursor)->value, &ap, __unlatched_cursor_get_value);
    va_end(ap);
    return ret;
}

/*
 * Keys and values of one integer field, the common `Q`/`r`/`q`/`i` formats: the cursor's
 * methods point here instead (`CursorHandle::fit`). The integer moves as a plain argument, with
 * no argument array and one `va_arg`, so the compiler spills no argument registers.
 */
extern UL_PRIVATE void __unlatched_cursor_set_key_int(WT_CURSOR *cursor, uint64_t v);
extern UL_PRIVATE void __unlatched_cursor_set_value_int(WT_CURSOR *cursor, uint64_t v);
extern UL_PRIVATE int __unlatched_cursor_get_key_int(WT_CURSOR *cursor, void *dst);
extern UL_PRIVATE int __unlatched_cursor_get_value_int(WT_CURSOR *cursor, void *dst);

/* One setter per C argument type, so that each reads its argument with one `va_arg` of a
 * fixed type (the cursor's plan picks the setter when it is opened). */
#define UL_SET_INT(name, type, rust)                 \
    void name(WT_CURSOR *cursor, ...)                \
    {                                                \
        va_list ap;                                  \
        uint64_t v;                                  \
        va_start(ap, cursor);                        \
        v = (uint64_t)va_arg(ap, type);              \
        va_end(ap);                                  \
        rust(cursor, v);                             \
    }
UL_SET_INT(__ul_shim_set_key_i32, int, __unlatched_cursor_set_key_int)
UL_SET_INT(__ul_shim_set_key_i64, int64_t, __unlatched_cursor_set_key_int)
UL_SET_INT(__ul_shim_set_key_u64, uint64_t, __unlatched_cursor_set_key_int)
UL_SET_INT(__ul_shim_set_value_i32, int, __unlatched_cursor_set_value_int)
UL_SET_INT(__ul_shim_set_value_i64, int64_t, __unlatched_cursor_set_value_int)
UL_SET_INT(__ul_shim_set_value_u64, uint64_t, __unlatched_cursor_set_value_int)
#undef UL_SET_INT

/* The getters pass the caller's pointer on: Rust stores the integer with the field's width. */
#define UL_GET_INT(name, rust)                       \
    int name(WT_CURSOR *cursor, ...)                 \
    {                                                \
        va_list ap;                                  \
        void *dst;                                   \
        va_start(ap, cursor);                        \
        dst = va_arg(ap, void *);                    \
        va_end(ap);                                  \
        return rust(cursor, dst);                    \
    }
UL_GET_INT(__ul_shim_get_key_int, __unlatched_cursor_get_key_int)
UL_GET_INT(__ul_shim_get_value_int, __unlatched_cursor_get_value_int)
#undef UL_GET_INT

/*
 * The result cursor of an index extractor (src/capi/extractor.rs): `set_key` packs the index
 * key with the cursor's plan; it has no value, and its getters answer ENOTSUP.
 */
extern UL_PRIVATE void __unlatched_extract_set_key(WT_CURSOR *cursor, const ul_arg *args, size_t n);
extern UL_PRIVATE int __unlatched_extract_refuse(WT_CURSOR *cursor, int key);

void
__ul_shim_extract_set_key(WT_CURSOR *cursor, ...)
{
    va_list ap;
    va_start(ap, cursor);
    ul_set(cursor, &((ul_cursor *)cursor)->key, &ap, __unlatched_extract_set_key);
    va_end(ap);
}

void
__ul_shim_extract_set_value(WT_CURSOR *cursor, ...)
{
    (void)cursor;
}

int
__ul_shim_extract_get_key(WT_CURSOR *cursor, ...)
{
    return __unlatched_extract_refuse(cursor, 1);
}

int
__ul_shim_extract_get_value(WT_CURSOR *cursor, ...)
{
    return __unlatched_extract_refuse(cursor, 0);
}

int
__ul_shim_bind_configuration(WT_SESSION *session, const char *compiled, ...)
{
    (void)compiled;
    return __unlatched_unsupported(session, "WT_SESSION.bind_configuration");
}

/* Formats the message (on the stack unless it is long), then writes it as a message record. */
int
__ul_shim_log_printf(WT_SESSION *session, const char *format, ...)
{
    char small[256], *text = small;
    va_list ap;
    int len, ret;

    if (format == NULL)
        return __unlatched_session_log_printf(session, NULL);
    va_start(ap, format);
    len = vsnprintf(small, sizeof(small), format, ap);
    va_end(ap);
    if (len < 0)
        return EINVAL;
    if ((size_t)len >= sizeof(small)) {
        if ((text = malloc((size_t)len + 1)) == NULL)
            return ENOMEM;
        va_start(ap, format);
        vsnprintf(text, (size_t)len + 1, format, ap);
        va_end(ap);
    }
    ret = __unlatched_session_log_printf(session, text);
    if (text != small)
        free(text);
    return ret;
}

#define UL_PLAN_CAP 64

/* The argument kinds of a `wiredtiger_struct_*` format and an array for the arguments, on the
 * stack unless the format has many fields. */
typedef struct {
    uint8_t small_kinds[UL_PLAN_CAP];
    ul_arg small_args[UL_INLINE];
    uint8_t *kinds;
    ul_arg *args;
    size_t n;
} ul_frame;

static void
ul_frame_close(ul_frame *f)
{
    if (f->kinds != f->small_kinds)
        free(f->kinds);
    if (f->args != f->small_args)
        free(f->args);
}

/* Asks Rust for the plan of `format` (reporting a bad format) and sizes the argument array. */
static int
ul_frame_open(ul_frame *f, WT_SESSION *session, const char *format)
{
    int ret;
    f->kinds = f->small_kinds;
    f->args = f->small_args;
    f->n = 0;
    if ((ret = __unlatched_struct_plan(session, format, f->kinds, UL_PLAN_CAP, &f->n)) != 0)
        return ret;
    if (f->n > UL_PLAN_CAP) {
        if ((f->kinds = malloc(f->n)) == NULL) {
            f->kinds = f->small_kinds;
            return ENOMEM;
        }
        if ((ret = __unlatched_struct_plan(session, format, f->kinds, f->n, &f->n)) != 0) {
            ul_frame_close(f);
            return ret;
        }
    }
    if (f->n > UL_INLINE && (f->args = malloc(f->n * sizeof(ul_arg))) == NULL) {
        f->args = f->small_args;
        ul_frame_close(f);
        return ENOMEM;
    }
    return 0;
}

int
wiredtiger_struct_pack(WT_SESSION *session, void *buffer, size_t len, const char *format, ...)
{
    ul_frame f;
    va_list ap;
    int ret;
    if ((ret = ul_frame_open(&f, session, format)) != 0)
        return ret;
    va_start(ap, format);
    ul_collect(f.kinds, f.n, f.args, &ap);
    va_end(ap);
    ret = __unlatched_struct_pack(session, buffer, len, format, f.args, f.n);
    ul_frame_close(&f);
    return ret;
}

int
wiredtiger_struct_size(WT_SESSION *session, size_t *lenp, const char *format, ...)
{
    ul_frame f;
    va_list ap;
    int ret;
    if ((ret = ul_frame_open(&f, session, format)) != 0)
        return ret;
    va_start(ap, format);
    ul_collect(f.kinds, f.n, f.args, &ap);
    va_end(ap);
    ret = __unlatched_struct_size(session, lenp, format, f.args, f.n);
    ul_frame_close(&f);
    return ret;
}

int
wiredtiger_struct_unpack(WT_SESSION *session, const void *buffer, size_t len, const char *format, ...)
{
    ul_frame f;
    va_list ap;
    int ret;
    if ((ret = ul_frame_open(&f, session, format)) != 0)
        return ret;
    if ((ret = __unlatched_struct_unpack(session, buffer, len, format, f.args, f.n)) == 0) {
        va_start(ap, format);
        ul_store(f.kinds, f.n, f.args, &ap);
        va_end(ap);
    }
    ul_frame_close(&f);
    return ret;
}

/*
 * The variadic methods of WT_EXTENSION_API (src/capi/extension_api.rs): the table pointer is
 * opaque here. The printf-style ones format the text and hand it to Rust; the struct ones are
 * wiredtiger_struct_* with the table first.
 */
extern UL_PRIVATE int __unlatched_ext_print(void *api, WT_SESSION *session, const char *text, int error);

static int
ul_ext_vprint(void *api, WT_SESSION *session, int error, const char *format, va_list ap)
{
    char small[256], *text = small;
    va_list again;
    int len, ret;

    if (format == NULL)
        return EINVAL;
    va_copy(again, ap);
    len = vsnprintf(small, sizeof(small), format, ap);
    if (len < 0) {
        va_end(again);
        return EINVAL;
    }
    if ((size_t)len >= sizeof(small)) {
        if ((text = malloc((size_t)len + 1)) == NULL) {
            va_end(again);
            return ENOMEM;
        }
        vsnprintf(text, (size_t)len + 1, format, again);
    }
    va_end(again);
    ret = __unlatched_ext_print(api, session, text, error);
    if (text != small)
        free(text);
    return ret;
}

int
__ul_ext_err_printf(void *api, WT_SESSION *session, const char *format, ...)
{
    va_list ap;
    int ret;
    va_start(ap, format);
    ret = ul_ext_vprint(api, session, 1, format, ap);
    va_end(ap);
    return ret;
}

int
__ul_ext_msg_printf(void *api, WT_SESSION *session, const char *format, ...)
{
    va_list ap;
    int ret;
    va_start(ap, format);
    ret = ul_ext_vprint(api, session, 0, format, ap);
    va_end(ap);
    return ret;
}

int
__ul_ext_struct_pack(void *api, WT_SESSION *session, void *buffer, size_t len, const char *format, ...)
{
    ul_frame f;
    va_list ap;
    int ret;
    (void)api;
    if ((ret = ul_frame_open(&f, session, format)) != 0)
        return ret;
    va_start(ap, format);
    ul_collect(f.kinds, f.n, f.args, &ap);
    va_end(ap);
    ret = __unlatched_struct_pack(session, buffer, len, format, f.args, f.n);
    ul_frame_close(&f);
    return ret;
}

int
__ul_ext_struct_size(void *api, WT_SESSION *session, size_t *lenp, const char *format, ...)
{
    ul_frame f;
    va_list ap;
    int ret;
    (void)api;
    if ((ret = ul_frame_open(&f, session, format)) != 0)
        return ret;
    va_start(ap, format);
    ul_collect(f.kinds, f.n, f.args, &ap);
    va_end(ap);
    ret = __unlatched_struct_size(session, lenp, format, f.args, f.n);
    ul_frame_close(&f);
    return ret;
}

int
__ul_ext_struct_unpack(void *api, WT_SESSION *session, const void *buffer, size_t len, const char *format, ...)
{
    ul_frame f;
    va_list ap;
    int ret;
    (void)api;
    if ((ret = ul_frame_open(&f, session, format)) != 0)
        return ret;
    if ((ret = __unlatched_struct_unpack(session, buffer, len, format, f.args, f.n)) == 0) {
        va_start(ap, format);
        ul_store(f.kinds, f.n, f.args, &ap);
        va_end(ap);
    }
    ul_frame_close(&f);
    return ret;
}
