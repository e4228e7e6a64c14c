#define _GNU_SOURCE /* mkdtemp, DT_DIR */
#include "util.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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
ul_stats_read(WT_SESSION *observer, const char *uri, const char *step, const int *ids, int n, int64_t *out)
{
    WT_CURSOR *c;
    int i, ret;
    ul_checks++;
    if ((ret = observer->open_cursor(observer, uri, NULL, NULL, &c)) != 0) {
        ul_failures++;
        fprintf(stderr, "%s: opening \"%s\" returned %d (%s)\n", step, uri, ret, wiredtiger_strerror(ret));
        return ret;
    }
    for (i = 0; i < n; i++) {
        c->set_key(c, ids[i]);
        if ((ret = c->search(c)) != 0 || (ret = c->get_value(c, NULL, NULL, &out[i])) != 0) {
            ul_failures++;
            fprintf(stderr, "%s: reading statistic %d of \"%s\" returned %d (%s)\n", step, ids[i], uri, ret,
              wiredtiger_strerror(ret));
            break;
        }
    }
    if (c->close(c) != 0 && ret == 0) {
        ul_failures++;
        fprintf(stderr, "%s: closing the \"%s\" cursor failed\n", step, uri);
        ret = -1;
    }
    return ret;
}

int64_t
ul_stat(WT_SESSION *observer, const char *uri, int id)
{
    int64_t v = -1;
    return ul_stats_read(observer, uri, "ul_stat", &id, 1, &v) == 0 ? v : -1;
}

void
ul_deltas_init(ul_deltas *d, WT_SESSION *observer, const char *uri, const int *ids, const char *const *names, int n)
{
    if (n > UL_MAX_STATS) {
        fprintf(stderr, "ul_deltas_init: %d statistics, at most %d\n", n, UL_MAX_STATS);
        exit(2);
    }
    d->observer = observer;
    d->uri = uri;
    d->ids = ids;
    d->names = names;
    d->n = n;
    memset(d->base, 0, sizeof(d->base));
    ul_stats_read(observer, uri, "ul_deltas_init", ids, n, d->base);
}

int
ul_deltas_get(ul_deltas *d, const char *step, int64_t *delta)
{
    int64_t now[UL_MAX_STATS];
    int i, ret;
    if ((ret = ul_stats_read(d->observer, d->uri, step, d->ids, d->n, now)) != 0)
        return ret;
    for (i = 0; i < d->n; i++) {
        delta[i] = now[i] - d->base[i];
        d->base[i] = now[i];
    }
    return 0;
}

void
ul_deltas_check(ul_deltas *d, const char *file, int line, const char *step, const int64_t *want)
{
    int64_t delta[UL_MAX_STATS];
    int i;
    if (ul_deltas_get(d, step, delta) != 0)
        return;
    for (i = 0; i < d->n; i++) {
        ul_checks++;
        if (want[i] != UL_ANY && delta[i] != want[i]) {
            ul_failures++;
            fprintf(stderr, "%s:%d: %s: \"%s\" (%s) changed by %" PRId64 ", expected %" PRId64 "\n", file, line, step,
              d->names[i], d->uri, delta[i], want[i]);
        }
    }
}

void
ul_mkhome(const char *name, char *buf, size_t len)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, len, "%s/ul-%s-XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp", name);
    if (mkdtemp(buf) == NULL) {
        perror(buf);
        exit(2);
    }
}

void
ul_rmhome(const char *home)
{
    DIR *dir;
    struct dirent *e;
    char path[4096];
    if ((dir = opendir(home)) == NULL)
        return;
    while ((e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", home, e->d_name);
        if (e->d_type == DT_DIR)
            ul_rmhome(path);
        else
            unlink(path);
    }
    closedir(dir);
    rmdir(home);
}

void
ul_thread_fail(int *errors, char *first, size_t len, int thread, const char *what, int ret)
{
    if ((*errors)++ == 0)
        snprintf(first, len, "thread %d: %s: %d (%s)", thread, what, ret, wiredtiger_strerror(ret));
}

int
ul_reference(void)
{
    const char *v = getenv("UL_REFERENCE");
    return v != NULL && strcmp(v, "1") == 0;
}

void
ul_open_fails(const char *file, int line, const char *home, ul_recorder *r, const char *config, int code)
{
    WT_CONNECTION *conn = NULL;
    int ret;
    if (r != NULL)
        ul_recorder_clear(r);
    ret = wiredtiger_open(home, r == NULL ? NULL : &r->iface, config, &conn);
    ul_checks++;
    if (ret != code) {
        ul_failures++;
        fprintf(stderr, "%s:%d: wiredtiger_open(\"%s\") returned %d (%s), expected %d\n", file, line, config, ret,
          wiredtiger_strerror(ret), code);
    }
    if (ret == 0 && conn != NULL)
        conn->close(conn, NULL);
}

int
ul_done(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, ul_checks - ul_failures, ul_failures);
    return ul_failures == 0 ? 0 : 1;
}

int
ul_memory_and_disk(const char *name, ul_recorder *r, const char *config, void (*run)(WT_CONNECTION *, int),
  void (*reopened)(WT_CONNECTION *))
{
    WT_CONNECTION *conn;
    char home[512], full[512];

    snprintf(full, sizeof(full), "create,in_memory=true%s%s", config[0] != '\0' ? "," : "", config);
    OK(wiredtiger_open(NULL, &r->iface, full, &conn));
    run(conn, 0);
    OK(conn->close(conn, NULL));

    ul_mkhome(name, home, sizeof(home));
    snprintf(full, sizeof(full), "create%s%s", config[0] != '\0' ? "," : "", config);
    OK(wiredtiger_open(home, &r->iface, full, &conn));
    run(conn, 1);
    OK(conn->close(conn, NULL));
    if (reopened != NULL) {
        OK(wiredtiger_open(home, &r->iface, config, &conn));
        reopened(conn);
        OK(conn->close(conn, NULL));
    }
    ul_rmhome(home);
    return ul_done(name);
}
