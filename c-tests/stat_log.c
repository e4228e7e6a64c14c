/*
 * The statistics log (issue 4; config.md `statistics_log`): with statistics_log=(wait=N,
 * on_close=true,json=…,path=…) the engine writes WiredTigerStat.%d.%H files under the home (the
 * reference's file name, WT_STATLOG_FILENAME; config.md's "WiredTiger.%d.%H" is a slip). After
 * the connection closes, the files are parsed:
 *
 *   text: one line per statistic, "<timestamp> <value> <home> <description>", the timestamp in
 *         the default "%b %d %H:%M:%S" format, the connection statistics in description order;
 *   JSON: one object per dump, {"version":…,"localTime":"%Y-%m-%dT%H:%M:%S.000Z",
 *         "wiredTiger":{"<group>":{"<rest of description>":value,…},…}}.
 *
 * To keep it short the text case relies on on_close with a long wait (no sleep); the JSON case
 * has one 1.5 s wait so that the 1 s server writes once before the close writes again.
 *
 * usage: stat_log [ondisk]
 * The test opens in_memory=true databases (all unlatched supports) and expects the files on
 * disk in the home. The reference writes an in-memory database's statistics log into its
 * in-memory file system, where nothing outside can read it; against the reference run
 * `stat_log ondisk`, which opens on-disk databases instead (reference: passes that way).
 */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "util.h"

#define CONN_COUNT 712 /* connection statistics per dump (statistics.md section 1) */
#define MAX_LOG (4 << 20)

static const char *base_config = "create,in_memory=true";

/* Reads every WiredTigerStat.* file of `dir` into one buffer (in name order); returns the file count. */
static int
read_logs(const char *dir, char *buf, size_t len)
{
    struct dirent **names;
    char path[4096];
    size_t used = 0, got;
    FILE *f;
    int i, n, files = 0;

    buf[0] = '\0';
    if ((n = scandir(dir, &names, NULL, alphasort)) < 0)
        return 0;
    for (i = 0; i < n; i++) {
        if (strncmp(names[i]->d_name, "WiredTigerStat.", 15) == 0) {
            snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
            if ((f = fopen(path, "r")) != NULL) {
                got = fread(buf + used, 1, len - 1 - used, f);
                used += got;
                fclose(f);
                files++;
            }
        }
        free(names[i]);
    }
    free(names);
    buf[used] = '\0';
    return files;
}

/* Opens a database with statistics and the log configuration, does a little work, returns it. */
static WT_CONNECTION *
open_logging(const char *home, const char *log_config)
{
    WT_CONNECTION *conn = NULL;
    WT_SESSION *s = NULL;
    WT_CURSOR *c = NULL;
    char config[512];
    int ret;

    snprintf(config, sizeof(config), "%s,statistics=(fast),statistics_log=(%s)", base_config, log_config);
    if ((ret = wiredtiger_open(home, NULL, config, &conn)) != 0) {
        fprintf(stderr, "wiredtiger_open(%s, %s): %s\n", home, config, wiredtiger_strerror(ret));
        exit(ul_done("stat_log"));
    }
    OK(conn->open_session(conn, NULL, NULL, &s));
    OK(s->create(s, "table:t", "key_format=S,value_format=S"));
    OK(s->open_cursor(s, "table:t", NULL, NULL, &c));
    if (c != NULL) {
        c->set_key(c, "k");
        c->set_value(c, "v");
        OK(c->insert(c));
        OK(c->close(c));
    }
    return conn;
}

/* Text: exactly one dump, written at close. */
static void
text_log(char *buf)
{
    static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
      "Nov", "Dec"};
    WT_CONNECTION *conn;
    char home[256], mon[8], name[512], desc[256], prev[256] = "";
    char *line, *save = NULL;
    int64_t v, open_count = -1, inserts = -1;
    int day, hh, mm, ss, consumed, lines = 0, bad = 0, order_ok = 1, m;

    ul_mkhome("statlog-text", home, sizeof(home));
    conn = open_logging(home, "wait=100,on_close=true");
    CHECK(read_logs(home, buf, MAX_LOG) == 0); /* nothing before the first period or the close */
    OK(conn->close(conn, NULL));
    CHECK(read_logs(home, buf, MAX_LOG) == 1);

    for (line = strtok_r(buf, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        lines++;
        consumed = 0;
        if (sscanf(line, "%7s %d %d:%d:%d %" SCNd64 " %511s %n", mon, &day, &hh, &mm, &ss, &v, name, &consumed) != 7 ||
          consumed == 0) {
            if (bad++ == 0)
                fprintf(stderr, "text log: cannot parse \"%s\"\n", line);
            continue;
        }
        for (m = 0; m < 12 && strcmp(mon, months[m]) != 0; m++)
            ;
        snprintf(desc, sizeof(desc), "%s", line + consumed);
        if (m == 12 || day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 60 || v < 0 || strcmp(name, home) != 0 ||
          strchr(desc, ':') == NULL) {
            if (bad++ == 0)
                fprintf(stderr, "text log: unexpected fields in \"%s\" (home %s)\n", line, home);
        }
        if (lines > 1 && strcmp(prev, desc) >= 0 && order_ok) {
            order_ok = 0;
            fprintf(stderr, "text log: \"%s\" after \"%s\"\n", desc, prev);
        }
        snprintf(prev, sizeof(prev), "%s", desc);
        if (strcmp(desc, "cursor: open cursor count") == 0)
            open_count = v;
        if (strcmp(desc, "cursor: cursor insert calls") == 0)
            inserts = v;
    }
    CHECK(bad == 0);
    CHECK(order_ok);
    /* The reference lists every statistic; unlatched only those it keeps (see stats_cursor.c). */
    CHECK(lines > 0 && lines <= CONN_COUNT);
    if (getenv("UL_REFERENCE") != NULL)
        CHECK(lines == CONN_COUNT);
    CHECK(open_count >= 0);
    CHECK(inserts >= 1);
    ul_rmhome(home);
}

/* ---- A small JSON reader: enough to check the structure of the JSON statistics log. ---- */

typedef struct {
    const char *p;
    int ok;
    char path[3][128]; /* keys of the enclosing objects, outermost first */
    int depth;
    /* What the dump holds. */
    char version[256], local_time[256];
    int numbers, groups;
    int64_t open_count;
} json;

static void
json_ws(json *j)
{
    while (isspace((unsigned char)*j->p))
        j->p++;
}

/* A string without escapes (statistics descriptions have none); copied into out. */
static void
json_string(json *j, char *out, size_t len)
{
    size_t n = 0;
    json_ws(j);
    if (*j->p != '"') {
        j->ok = 0;
        return;
    }
    for (j->p++; *j->p != '\0' && *j->p != '"'; j->p++) {
        if (*j->p == '\\' || (unsigned char)*j->p < 0x20)
            j->ok = 0;
        if (n + 1 < len)
            out[n++] = *j->p;
    }
    out[n] = '\0';
    if (*j->p != '"')
        j->ok = 0;
    else
        j->p++;
}

static void json_value(json *j, const char *key);

static void
json_object(json *j)
{
    char key[128];
    json_ws(j);
    if (*j->p != '{') {
        j->ok = 0;
        return;
    }
    j->p++;
    json_ws(j);
    if (*j->p == '}') {
        j->p++;
        return;
    }
    while (j->ok) {
        json_string(j, key, sizeof(key));
        json_ws(j);
        if (*j->p++ != ':') {
            j->ok = 0;
            return;
        }
        json_value(j, key);
        json_ws(j);
        if (*j->p == ',')
            j->p++;
        else if (*j->p == '}') {
            j->p++;
            return;
        } else
            j->ok = 0;
    }
}

/* A value under `key`: objects nest (at most 3 deep), strings and integers are leaves. */
static void
json_value(json *j, const char *key)
{
    char *end, str[256];
    long long v;
    json_ws(j);
    if (*j->p == '{') {
        if (j->depth == 3) {
            j->ok = 0;
            return;
        }
        snprintf(j->path[j->depth++], sizeof(j->path[0]), "%s", key);
        if (j->depth == 2 && strcmp(j->path[0], "wiredTiger") == 0)
            j->groups++;
        json_object(j);
        j->depth--;
    } else if (*j->p == '"') {
        json_string(j, str, sizeof(str));
        if (j->depth == 0 && strcmp(key, "version") == 0)
            snprintf(j->version, sizeof(j->version), "%s", str);
        else if (j->depth == 0 && strcmp(key, "localTime") == 0)
            snprintf(j->local_time, sizeof(j->local_time), "%s", str);
        else
            j->ok = 0;
    } else {
        errno = 0;
        v = strtoll(j->p, &end, 10);
        if (end == j->p || errno != 0 || j->depth != 2 || strcmp(j->path[0], "wiredTiger") != 0) {
            j->ok = 0;
            return;
        }
        j->p = end;
        j->numbers++;
        if (strcmp(j->path[1], "cursor") == 0 && strcmp(key, "open cursor count") == 0)
            j->open_count = v;
    }
}

/* One dump line: {"version":…,"localTime":…,"wiredTiger":{…}} and nothing after it. */
static void
check_json_dump(const char *line)
{
    json j;
    const char *t;
    memset(&j, 0, sizeof(j));
    j.p = line;
    j.ok = 1;
    j.open_count = -1;
    json_object(&j);
    json_ws(&j);
    CHECK(j.ok && *j.p == '\0');
    if (!j.ok)
        fprintf(stderr, "JSON log: cannot parse near \"%.40s\"\n", j.p);
    CHECK_STR(j.version, WIREDTIGER_VERSION_STRING);
    t = j.local_time; /* %Y-%m-%dT%H:%M:%S.000Z */
    CHECK(strlen(t) == 24 && t[4] == '-' && t[7] == '-' && t[10] == 'T' && t[13] == ':' && t[16] == ':' &&
      strcmp(t + 19, ".000Z") == 0);
    CHECK(j.numbers > 0 && j.numbers <= CONN_COUNT);
    CHECK(j.groups >= 3); /* at least cache, cursor, session */
    if (getenv("UL_REFERENCE") != NULL)
        CHECK(j.numbers == CONN_COUNT && j.groups >= 10);
    CHECK(j.open_count >= 0);
}

/* JSON: the 1 s server writes at least once during the wait, the close once more. */
static void
json_log(char *buf)
{
    WT_CONNECTION *conn;
    struct timespec wait = {1, 500000000};
    char home[256], dir[300];
    char *line, *save = NULL;
    int lines = 0;

    ul_mkhome("statlog-json", home, sizeof(home));
    snprintf(dir, sizeof(dir), "%s/logs", home);
    CHECK(mkdir(dir, 0700) == 0);
    conn = open_logging(home, "wait=1,json=true,on_close=true,path=logs");
    nanosleep(&wait, NULL);
    OK(conn->close(conn, NULL));
    CHECK(read_logs(dir, buf, MAX_LOG) >= 1);
    for (line = strtok_r(buf, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        lines++;
        check_json_dump(line);
    }
    CHECK(lines >= 2);
    ul_rmhome(home);
}

/* Configuration checks of statistics_log. */
static void
log_config(void)
{
    ul_recorder rec;
    char home[256], config[256];

    ul_recorder_init(&rec);
    ul_mkhome("statlog-config", home, sizeof(home));
    snprintf(config, sizeof(config), "%s,statistics=(fast),statistics_log=(wait=1,sources=(\"table:t\"))", base_config);
    CHECK_OPEN_FAILS(home, &rec, config, EINVAL);
    CHECK_MSG(&rec, EINVAL, "statistics_log sources configuration only supports objects of type \"file\" or \"lsm\"");
    snprintf(config, sizeof(config), "%s,statistics=(fast),statistics_log=(wait=100001)", base_config);
    CHECK_OPEN_FAILS(home, &rec, config, EINVAL);
    ul_rmhome(home);
}

int
main(int argc, char **argv)
{
    char *buf;
    if (argc > 1 && strcmp(argv[1], "ondisk") == 0)
        base_config = "create";
    else if (argc > 1) {
        fprintf(stderr, "usage: %s [ondisk]\n", argv[0]);
        return 2;
    }
    if ((buf = malloc(MAX_LOG)) == NULL)
        return 2;
    text_log(buf);
    json_log(buf);
    log_config();
    free(buf);
    return ul_done("stat_log");
}
