#include "util.h"

#include <stdlib.h>

int ul_checks, ul_failures;

static int
record_error(WT_EVENT_HANDLER *h, WT_SESSION *session, int error, const char *message)
{
    ul_recorder *r = (ul_recorder *)h;
    (void)session;
    r->errors++;
    r->last_error = error;
    snprintf(r->last_message, sizeof(r->last_message), "%s", message);
    return 0;
}

static int
record_close(WT_EVENT_HANDLER *h, WT_SESSION *session, WT_CURSOR *cursor)
{
    ul_recorder *r = (ul_recorder *)h;
    (void)session;
    if (cursor == NULL)
        r->closed_sessions++;
    else
        r->closed_cursors++;
    return 0;
}

static int
record_general(WT_EVENT_HANDLER *h, WT_CONNECTION *conn, WT_SESSION *session, WT_EVENT_TYPE type, void *arg)
{
    ul_recorder *r = (ul_recorder *)h;
    (void)conn;
    (void)session;
    (void)arg;
    if (type == WT_EVENT_CONN_READY)
        r->ready_events++;
    return 0;
}

void
ul_recorder_init(ul_recorder *r)
{
    memset(r, 0, sizeof(*r));
    r->iface.handle_error = record_error;
    r->iface.handle_close = record_close;
    r->iface.handle_general = record_general;
}

void
ul_recorder_clear(ul_recorder *r)
{
    r->errors = 0;
    r->last_error = 0;
    r->last_message[0] = '\0';
}

int
ul_message_has(const ul_recorder *r, const char *text)
{
    return strstr(r->last_message, text) != NULL;
}

void
ul_open(ul_recorder *r, const char *config, WT_CONNECTION **connp, WT_SESSION **sessionp)
{
    int ret;
    if ((ret = wiredtiger_open(NULL, r == NULL ? NULL : &r->iface, config, connp)) != 0) {
        fprintf(stderr, "wiredtiger_open: %s\n", wiredtiger_strerror(ret));
        exit(2);
    }
    if (sessionp != NULL && (ret = (*connp)->open_session(*connp, NULL, NULL, sessionp)) != 0) {
        fprintf(stderr, "open_session: %s\n", wiredtiger_strerror(ret));
        exit(2);
    }
}

uint64_t
ul_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int
ul_done(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, ul_checks - ul_failures, ul_failures);
    return ul_failures == 0 ? 0 : 1;
}
