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

/* splitmix64: the next pseudo-random number of the stream `*state`. */
uint64_t ul_rand(uint64_t *state);

/* Prints the closing line ("N passed, M failed") and returns the exit status. */
int ul_done(const char *name);

#endif
