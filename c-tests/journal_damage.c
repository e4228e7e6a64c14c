/*
 * A damaged journal through the C API (issue 16, part 3): a child process writes 1,000 rows,
 * takes a checkpoint, commits 500 inserts and 34 removes with sync=on and exits without
 * closing. Then, on copies of that home:
 * - a flipped byte in the journal file holding the records (its header, its first records,
 *   its middle, a record in the middle) or in the newest journal file: wiredtiger_open returns
 *   WT_TRY_SALVAGE, its error message naming the file and the offset;
 * - the newest journal file, or the one holding the records, deleted: WT_TRY_SALVAGE;
 * - a torn tail (the last record cut short, or followed by zeros): opens, silently, with
 *   everything acknowledged before the torn record;
 * - salvage=true on the damaged journal: opens, reports what it dropped through
 *   handle_message (naming the file and offset), keeps the records before the damage, and a
 *   later plain open finds the same; salvage=true on a healthy home opens normally, silently.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

#define BASE 1000
#define INSERTS 500
#define REMOVES 34

static char home[256], good[512];

/* An event handler that keeps the last error and the informational messages. */
typedef struct {
    WT_EVENT_HANDLER iface;
    int last_error;
    char error[2048];
    int messages;
    char message[2048];
} recorder;

static int
on_error(WT_EVENT_HANDLER *h, WT_SESSION *s, int error, const char *message)
{
    recorder *r = (recorder *)h;
    (void)s;
    r->last_error = error;
    snprintf(r->error, sizeof(r->error), "%s", message);
    return 0;
}

static int
on_message(WT_EVENT_HANDLER *h, WT_SESSION *s, const char *message)
{
    recorder *r = (recorder *)h;
    (void)s;
    r->messages++;
    snprintf(r->message, sizeof(r->message), "%s", message);
    return 0;
}

static void
recorder_reset(recorder *r)
{
    memset(r, 0, sizeof(*r));
    r->iface.handle_error = on_error;
    r->iface.handle_message = on_message;
}

/* Copies every plain file of directory `from` into `to` (made if needed), replacing it. */
static void
copy_dir(const char *from, const char *to)
{
    char src[1024], dst[1024], buf[65536];
    struct dirent *e;
    DIR *d;
    ssize_t n;
    int in, out;

    mkdir(to, 0755);
    if ((d = opendir(to)) != NULL) {
        while ((e = readdir(d)) != NULL)
            if (e->d_name[0] != '.') {
                snprintf(dst, sizeof(dst), "%s/%s", to, e->d_name);
                unlink(dst);
            }
        closedir(d);
    }
    if ((d = opendir(from)) == NULL)
        exit(2);
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(src, sizeof(src), "%s/%s", from, e->d_name);
        snprintf(dst, sizeof(dst), "%s/%s", to, e->d_name);
        if ((in = open(src, O_RDONLY)) < 0 || (out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
            exit(2);
        while ((n = read(in, buf, sizeof(buf))) > 0)
            if (write(out, buf, (size_t)n) != n)
                exit(2);
        close(in);
        close(out);
    }
    closedir(d);
}

static off_t
file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

/*
 * The path of the newest journal file in `home` (with `records`, the newest holding more than
 * its header) into `out`.
 */
static void
journal_file(int records, char *out, size_t len)
{
    char path[1024];
    struct dirent *e;
    long best = -1, n;
    DIR *d = opendir(home);

    if (d == NULL)
        exit(2);
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "unlatched.log.", 14) != 0)
            continue;
        n = atol(e->d_name + 14);
        snprintf(path, sizeof(path), "%s/%s", home, e->d_name);
        if (n > best && (!records || file_size(path) > 64))
            best = n;
    }
    closedir(d);
    snprintf(out, len, "%s/unlatched.log.%ld", home, best);
}

static void
flip(const char *path, off_t at)
{
    unsigned char b;
    int fd = open(path, O_RDWR);
    if (fd < 0 || pread(fd, &b, 1, at) != 1)
        exit(2);
    b ^= 0x5a;
    if (pwrite(fd, &b, 1, at) != 1)
        exit(2);
    close(fd);
}

/* Offset of frame `i` (0: the header frame) of journal file `path`, or -1. */
static off_t
frame_at(const char *path, int i)
{
    unsigned char h[4];
    off_t at = 0, size = file_size(path);
    int fd = open(path, O_RDONLY);

    for (; fd >= 0 && i > 0 && at + 8 <= size; i--) {
        if (pread(fd, h, 4, at) != 4)
            break;
        at += 8 + (off_t)((uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24);
    }
    if (fd >= 0)
        close(fd);
    return i == 0 ? at : -1;
}

/* The child: the writes, then an exit without closing. */
static void
child(void)
{
    WT_CONNECTION *conn;
    WT_SESSION *s;
    WT_CURSOR *c;
    char key[32];
    int i;

    if (wiredtiger_open(home, NULL, "create,log=(enabled=true)", &conn) != 0 ||
      conn->open_session(conn, NULL, NULL, &s) != 0 || s->create(s, "table:t", "key_format=S,value_format=S") != 0 ||
      s->open_cursor(s, "table:t", NULL, NULL, &c) != 0)
        _exit(2);
    for (i = 0; i < BASE; i++) {
        snprintf(key, sizeof(key), "base%04d", i);
        c->set_key(c, key);
        c->set_value(c, "b");
        if (c->insert(c) != 0)
            _exit(3);
    }
    if (s->checkpoint(s, NULL) != 0)
        _exit(4);
    for (i = 0; i < INSERTS + REMOVES; i++) {
        if (s->begin_transaction(s, NULL) != 0)
            _exit(5);
        snprintf(key, sizeof(key), i < INSERTS ? "new%04d" : "base%04d", i < INSERTS ? i : i - INSERTS);
        c->set_key(c, key);
        if (i < INSERTS) {
            c->set_value(c, "n");
            if (c->insert(c) != 0)
                _exit(6);
        } else if (c->remove(c) != 0)
            _exit(7);
        if (s->commit_transaction(s, "sync=on") != 0)
            _exit(8);
    }
    _exit(0);
}

/* Counts the inserts present and the removed rows back in connection `conn`, then closes it. */
static void
count_rows(WT_CONNECTION *conn, int *inserts, int *back)
{
    WT_SESSION *s;
    WT_CURSOR *c;
    char key[32];
    int i;

    *inserts = *back = -1;
    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    *inserts = *back = 0;
    for (i = 0; i < INSERTS; i++) {
        snprintf(key, sizeof(key), "new%04d", i);
        c->set_key(c, key);
        *inserts += c->search(c) == 0;
    }
    for (i = 0; i < REMOVES; i++) {
        snprintf(key, sizeof(key), "base%04d", i);
        c->set_key(c, key);
        *back += c->search(c) == 0;
    }
    OK(conn->close(conn, NULL));
}

/* wiredtiger_open(config) must fail with WT_TRY_SALVAGE, the message naming `path` and `what`. */
static void
refused(const char *step, const char *path, const char *what)
{
    WT_CONNECTION *conn = NULL;
    recorder r;
    int ret;

    recorder_reset(&r);
    ret = wiredtiger_open(home, &r.iface, "log=(enabled=true)", &conn);
    CHECK_RC(ret, WT_TRY_SALVAGE);
    if (ret == 0)
        conn->close(conn, NULL);
    if (strstr(r.error, path) == NULL || strstr(r.error, what) == NULL) {
        fprintf(stderr, "%s: message \"%s\" should name %s and say \"%s\"\n", step, r.error, path, what);
        CHECK(!"the message names the file");
    }
    copy_dir(good, home);
}

int
main(void)
{
    WT_CONNECTION *conn;
    recorder r;
    char data[1100], newest[1100], offset[64];
    off_t len, middle, last;
    off_t offsets[8];
    int i, status, inserts, back;
    pid_t pid;

    ul_mkhome("journal-damage", home, sizeof(home));
    snprintf(good, sizeof(good), "%s-good", home);
    if ((pid = fork()) == 0)
        child();
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    copy_dir(home, good);
    journal_file(1, data, sizeof(data));
    journal_file(0, newest, sizeof(newest));
    len = file_size(data);
    middle = frame_at(data, 1 + INSERTS / 2);
    last = frame_at(data, INSERTS + REMOVES);
    CHECK(len > 0 && middle > 0 && last > middle);

    /* Flipped bytes: the header, the first records, the middle, a record's length field. */
    offsets[0] = 0;
    offsets[1] = 13;
    offsets[2] = 40;
    offsets[3] = 77;
    offsets[4] = 100;
    offsets[5] = len / 2;
    offsets[6] = middle;
    offsets[7] = middle + 10;
    for (i = 0; i < 8; i++) {
        flip(data, offsets[i]);
        /* The offset reported is the damaged frame's: 0 for the header, `middle` for that record. */
        snprintf(offset, sizeof(offset), "offset %ld", (long)(offsets[i] < 28 ? 0 : middle));
        refused("flip", data, offsets[i] < 28 || i >= 6 ? offset : "offset");
    }
    if (strcmp(newest, data) != 0) {
        flip(newest, 5);
        refused("flip in the newest file", newest, "offset 0");
    }

    /* Deleted journal files. */
    unlink(newest);
    refused("newest deleted", newest, "missing");
    unlink(data);
    refused("records deleted", data, "missing");

    /* A torn tail: the last remove cut short, then the same followed by zeros. */
    for (i = 0; i < 2; i++) {
        int fd = open(data, O_RDWR);
        char zeros[4096] = {0};
        CHECK(fd >= 0 && ftruncate(fd, last + 11) == 0);
        if (i == 1)
            CHECK(pwrite(fd, zeros, sizeof(zeros), last + 11) == (ssize_t)sizeof(zeros));
        close(fd);
        recorder_reset(&r);
        OK(wiredtiger_open(home, &r.iface, "log=(enabled=true)", &conn));
        CHECK(r.messages == 0);
        count_rows(conn, &inserts, &back);
        CHECK(inserts == INSERTS && back == 1);
        copy_dir(good, home);
    }

    /* salvage=true on a healthy home: nothing to say. */
    recorder_reset(&r);
    OK(wiredtiger_open(home, &r.iface, "log=(enabled=true),salvage=true", &conn));
    CHECK(r.messages == 0);
    count_rows(conn, &inserts, &back);
    CHECK(inserts == INSERTS && back == 0);
    copy_dir(good, home);

    /* salvage=true on the damaged journal: the records before the damage, and a report. */
    flip(data, middle + 20);
    recorder_reset(&r);
    OK(wiredtiger_open(home, &r.iface, "log=(enabled=true),salvage=true", &conn));
    snprintf(offset, sizeof(offset), "offset %ld", (long)middle);
    CHECK(r.messages == 1 && strstr(r.message, data) != NULL && strstr(r.message, offset) != NULL);
    if (r.messages != 1)
        fprintf(stderr, "salvage reported %d messages, the last \"%s\"\n", r.messages, r.message);
    count_rows(conn, &inserts, &back);
    CHECK(inserts == INSERTS / 2 && back == REMOVES);
    recorder_reset(&r);
    OK(wiredtiger_open(home, &r.iface, "log=(enabled=true)", &conn));
    CHECK(r.messages == 0);
    count_rows(conn, &inserts, &back);
    CHECK(inserts == INSERTS / 2 && back == REMOVES);

    if (ul_failures == 0) {
        ul_rmhome(home);
        ul_rmhome(good);
    }
    return ul_done("journal_damage");
}
