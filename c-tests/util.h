/*
 * Small helpers shared by the C tests: checks that count failures instead of aborting, and an
 * event handler that records the last error message for assertions.
 */
#ifndef UL_TEST_UTIL_H
#define UL_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "wiredtiger.h"

extern int ul_checks, ul_failures;

/* Counts a check; prints the failing expression with its location. */
#define CHECK(cond)                                                               \
    do {                                                                          \
        ul_checks++;                                                              \
        if (!(cond)) {                                                            \
            ul_failures++;                                                        \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                         \
    } while (0)

/* A call that must return `want`. */
#define CHECK_RC(call, want)                                                             \
    do {                                                                                 \
        int ul_rc_ = (call);                                                             \
        ul_checks++;                                                                     \
        if (ul_rc_ != (want)) {                                                          \
            ul_failures++;                                                               \
            fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d\n", __FILE__, __LINE__, \
              #call, ul_rc_, wiredtiger_strerror(ul_rc_), (int)(want));                  \
        }                                                                                \
    } while (0)

#define OK(call) CHECK_RC(call, 0)

/* String equality check with both values shown. */
#define CHECK_STR(got, want)                                                                \
    do {                                                                                    \
        const char *ul_g_ = (got), *ul_w_ = (want);                                         \
        ul_checks++;                                                                        \
        if (ul_g_ == NULL || strcmp(ul_g_, ul_w_) != 0) {                                   \
            ul_failures++;                                                                  \
            fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #got, \
              ul_g_ == NULL ? "(null)" : ul_g_, ul_w_);                                     \
        }                                                                                   \
    } while (0)

/* The cursor's key, of format S, is `want`. */
#define KEY_IS(c, want)             \
    do {                            \
        const char *k_ = NULL;      \
        OK((c)->get_key((c), &k_)); \
        CHECK_STR(k_, (want));      \
    } while (0)

/* An event handler that keeps the last error and counts messages and closes. */
typedef struct {
    WT_EVENT_HANDLER iface;
    int errors;
    int last_error;
    char last_message[1024];
    int closed_cursors;
    int closed_sessions;
    int ready_events;
} ul_recorder;

void ul_recorder_init(ul_recorder *r);

/* True if the last recorded message contains `text`. */
int ul_message_has(const ul_recorder *r, const char *text);

/* Opens an in-memory connection and one session, or exits. */
void ul_open(ul_recorder *r, const char *config, WT_CONNECTION **connp, WT_SESSION **sessionp);

/*
 * wiredtiger_open(home, config) must fail with `code`; a connection opened nonetheless is
 * closed again. With a recorder, its message is cleared first.
 */
void ul_open_fails(const char *file, int line, const char *home, ul_recorder *r, const char *config, int code);
#define CHECK_OPEN_FAILS(home, r, config, code) ul_open_fails(__FILE__, __LINE__, (home), (r), (config), (code))

/* Forgets the recorded error and message (keeps the counts of closes and events). */
void ul_recorder_clear(ul_recorder *r);

/* The last recorded message has error code `code` and contains `text`. */
#define CHECK_MSG(r, code, text)                                                                 \
    do {                                                                                         \
        ul_checks++;                                                                             \
        if ((r)->last_error != (code) || !ul_message_has((r), (text))) {                         \
            ul_failures++;                                                                       \
            fprintf(stderr, "%s:%d: last message (error %d) is \"%s\", expected error %d with \"%s\"\n", \
              __FILE__, __LINE__, (r)->last_error, (r)->last_message, (int)(code), (text));      \
        }                                                                                        \
    } while (0)

/* ---- Statistics (statistics.md): read through statistics cursors of an observer session. ---- */

#define UL_MAX_STATS 16

/*
 * Reads the statistics `ids` (n of them) of `uri` ("statistics:", "statistics:table:t" ...) from
 * one statistics cursor of `observer` (one snapshot) into `out`. A failing call counts as a failed
 * check naming `step`; returns 0 or that call's error.
 */
int ul_stats_read(WT_SESSION *observer, const char *uri, const char *step, const int *ids, int n, int64_t *out);

/* One statistic of `uri`, or -1 after a failed check. */
int64_t ul_stat(WT_SESSION *observer, const char *uri, int id);

/*
 * Deltas of a set of statistics around each step of a test (statistics.md section 4: absolute
 * values include the engine's internal activity, so tests compare deltas). Each check reads the
 * statistics again, compares the change since the previous reading with the expected one and
 * makes the new reading the base of the next step.
 */
typedef struct {
    WT_SESSION *observer;
    const char *uri;
    int n;
    const int *ids;
    const char *const *names;
    int64_t base[UL_MAX_STATS];
} ul_deltas;

void ul_deltas_init(ul_deltas *d, WT_SESSION *observer, const char *uri, const int *ids, const char *const *names, int n);
void ul_deltas_check(ul_deltas *d, const char *file, int line, const char *step, const int64_t *want);

/* Reads the changes since the previous reading into `delta` (for checks of another shape). */
int ul_deltas_get(ul_deltas *d, const char *step, int64_t *delta);

/* An expected change that is not checked (e.g. counters moved by the engine's internal work). */
#define UL_ANY INT64_MIN

/* CHECK_DELTAS(&d, "step", d0, d1, ...): one expected change per statistic of `d`, in order. */
#define CHECK_DELTAS(d, step, ...) \
    ul_deltas_check((d), __FILE__, __LINE__, (step), (const int64_t[]){__VA_ARGS__})

/* Creates a fresh, empty directory for a database home under $TMPDIR (or /tmp), or exits. */
void ul_mkhome(const char *name, char *buf, size_t len);

/* Removes a home made by ul_mkhome and everything in it. */
void ul_rmhome(const char *home);

/*
 * A check of the spec's contract where the reference engine is known to differ (the comment at
 * each use says how). With UL_REFERENCE=1 in the environment (running against the reference) a
 * failure is printed as a known difference and not counted as a check.
 */
#define CHECK_SPEC(cond, difference)                                                              \
    do {                                                                                          \
        int ul_ok_ = (cond);                                                                      \
        if (!ul_ok_ && ul_reference()) {                                                          \
            printf("%s:%d: known reference difference: %s\n", __FILE__, __LINE__, (difference));     \
        } else {                                                                                  \
            ul_checks++;                                                                          \
            if (!ul_ok_) {                                                                        \
                ul_failures++;                                                                    \
                fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);          \
            }                                                                                     \
        }                                                                                         \
    } while (0)

/* True when UL_REFERENCE=1: the program runs against the reference engine. */
int ul_reference(void);
/* splitmix64: the next pseudo-random number of the stream `*state`. */
uint64_t ul_rand(uint64_t *state);

/*
 * A worker thread's unexpected return code `ret` from `what`: counted in `*errors`, the first one
 * kept as a message in `first` (the check macros are not thread safe, so workers keep theirs).
 */
void ul_thread_fail(int *errors, char *first, size_t len, int thread, const char *what, int ret);

/* Prints the closing line ("N passed, M failed") and returns the exit status. */
int ul_done(const char *name);

/*
 * Runs `run(conn, on_disk)` on an in-memory database (`config` added to "create,in_memory=true"),
 * then on a new on-disk one (`config` added to "create"); with `reopened`, the on-disk database
 * is opened once more after its close and handed to it (what survives). Returns ul_done(name).
 */
int ul_memory_and_disk(const char *name, ul_recorder *r, const char *config, void (*run)(WT_CONNECTION *, int),
  void (*reopened)(WT_CONNECTION *));

#endif
