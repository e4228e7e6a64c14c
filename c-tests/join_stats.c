/*
 * Join cursors and their statistics (`statistics:join`), compared line by line with what the
 * reference prints for the same program: join_stats.ref beside this file is the reference's
 * transcript. Each case joins index cursors (eq, ge, gt, le, lt; and, or; bloom filters, shared
 * and not; nested joins; an empty result), prints the rows found and then every statistic of
 * the join cursor, as the statistics cursor lists them. Where the reference loses rows or returns
 * one twice, unlatched follows the documented contract: the lines that differ on purpose are
 * listed, with what unlatched prints and why, in join_stats.expected (a listed line that matches
 * the reference, or one that differs unlisted, fails).
 *
 *   join_stats            run and compare with join_stats.ref and join_stats.expected
 *   join_stats --record   run (against the reference: UL_REFERENCE=1) and write join_stats.ref
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream, fmemopen */
#include "join_table.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>

static FILE *out;
static WT_SESSION *s;

/* An index (or table) cursor of `uri` positioned on `key`. */
#define POSITIONED(uri, key)                                   \
    do {                                                       \
        OK(s->open_cursor(s, (uri), NULL, NULL, &c));          \
        c->set_key(c, (key));                                  \
        OK(c->search(c));                                      \
    } while (0)

static WT_CURSOR *
city(const char *name)
{
    WT_CURSOR *c;
    POSITIONED("index:p:city", name);
    return (c);
}

static WT_CURSOR *
age(uint32_t years)
{
    WT_CURSOR *c;
    POSITIONED("index:p:age", years);
    return (c);
}

static WT_CURSOR *
score(uint32_t n)
{
    WT_CURSOR *c;
    POSITIONED("index:p:score", n);
    return (c);
}

static WT_CURSOR *
ext(uint32_t n)
{
    WT_CURSOR *c;
    POSITIONED("index:p:ext", n);
    return (c);
}

/* A table cursor positioned on a row: a condition on the primary key. */
static WT_CURSOR *
row(uint64_t id)
{
    WT_CURSOR *c;
    POSITIONED("table:p", id);
    return (c);
}

static WT_CURSOR *
join_cursor(const char *uri)
{
    WT_CURSOR *j;

    OK(s->open_cursor(s, uri, NULL, NULL, &j));
    return (j);
}

static void
join(WT_CURSOR *j, WT_CURSOR *ref, const char *config)
{
    int ret;

    ret = s->join(s, j, ref, config);
    fprintf(out, "join %s: %d\n", config == NULL ? "-" : config, ret);
}

/* Every statistic of join cursor `j`. */
static void
stats(WT_CURSOR *j)
{
    WT_CURSOR *st;
    const char *desc, *pv;
    int64_t v;
    int key, ret;

    OK(s->open_cursor(s, "statistics:join", j, NULL, &st));
    while ((ret = st->next(st)) == 0) {
        OK(st->get_key(st, &key));
        OK(st->get_value(st, &desc, &pv, &v));
        fprintf(out, "  %d %s = %" PRId64 " (%s)\n", key, desc, v, pv);
    }
    fprintf(out, "  stats end: %d\n", ret);
    OK(st->close(st));
}

/* The rows of `j` (names, or ids with a projection that has no name) and its statistics. */
static void
rows(const char *what, WT_CURSOR *j)
{
    const char *name, *city;
    uint32_t years, points;
    uint64_t id;
    int n, ret;

    fprintf(out, "%s:", what);
    n = 0;
    while ((ret = j->next(j)) == 0) {
        OK(j->get_key(j, &id));
        if (strcmp(j->value_format, "S") == 0) {
            OK(j->get_value(j, &name));
            fprintf(out, " %s", name);
        } else {
            OK(j->get_value(j, &name, &city, &years, &points));
            fprintf(out, " %s/%s/%u", name, city, years);
        }
        n++;
    }
    fprintf(out, " (%d rows, %d)\n", n, ret);
    stats(j);
}

static void
close_all(WT_CURSOR **c, int n)
{
    int i;

    for (i = 0; i < n; i++)
        OK(c[i]->close(c[i]));
}

static void conditions(const char *what, int n, ...);

/* One condition, each comparison. */
static void
single(void)
{
    static const char *compares[] = {"compare=eq", "compare=ge", "compare=gt", "compare=le", "compare=lt"};
    WT_CURSOR *c[2];
    char what[64];
    size_t i;

    for (i = 0; i < sizeof(compares) / sizeof(compares[0]); i++) {
        c[0] = join_cursor("join:table:p");
        c[1] = age(jt_age(7));
        join(c[0], c[1], compares[i]);
        snprintf(what, sizeof(what), "age %s %u", compares[i], jt_age(7));
        rows(what, c[0]);
        close_all(c, 2);
    }
    conditions("city = paris", 1, city("paris"), NULL);
}

/*
 * A join cursor on the table (its names) joined with `n` positioned cursors, each with its
 * configuration (the pairs after `n`); the rows and statistics printed when `what` is not NULL.
 * Closes them all.
 */
static void
conditions(const char *what, int n, ...)
{
    WT_CURSOR *c[8];
    va_list ap;
    int i;

    c[0] = join_cursor("join:table:p(name)");
    va_start(ap, n);
    for (i = 1; i <= n; i++) {
        c[i] = va_arg(ap, WT_CURSOR *);
        join(c[0], c[i], va_arg(ap, const char *));
    }
    va_end(ap);
    if (what != NULL)
        rows(what, c[0]);
    close_all(c, n + 1);
}

/* Two ends on one index: a range; the ends are kept lower first. */
static void
ranges(void)
{
    conditions("age in [lo, hi)", 2, age(jt_age(2)), "compare=ge", age(jt_age(1)), "compare=lt");
    conditions("age in (lo, hi]", 2, age(jt_age(1)), "compare=le", age(jt_age(2)), "compare=gt");
    /* Overlapping ends and eq with and are refused. */
    conditions(NULL, 2, age(jt_age(3)), "compare=ge", age(jt_age(11)), "compare=gt");
    conditions(NULL, 2, city("rome"), "compare=eq", city("oslo"), "compare=eq");
}

/* Conditions on several indices, and-ed; with bloom filters. */
static void
conjunctions(void)
{
    conditions("paris and age > x", 2, city("paris"), NULL, age(jt_age(9)), "compare=gt");
    conditions("age <= x and tokyo (bloom) and score >= 5 (bloom, shared)", 3, age(jt_age(9)), "compare=le",
      city("tokyo"), "strategy=bloom,count=100", score(5), "compare=ge,strategy=bloom,count=100");
    /* A bloom entry joined after a plain one goes before it; different counts: two filters. */
    conditions("oslo and score > 3 and age < x (bloom)", 3, city("oslo"), NULL, score(3), "compare=gt",
      age(jt_age(20)), "compare=lt,strategy=bloom,count=50,bloom_bit_count=32,bloom_hash_count=4");
    conditions("lima and age >= x (bloom) and score <= 8 (bloom, false positives)", 3, city("lima"), NULL,
      age(jt_age(15)), "compare=ge,strategy=bloom,count=1000", score(8),
      "compare=le,strategy=bloom,count=10,bloom_false_positives=true");
    /* Tiny filters: false positives, found by reading the row (the reference's hashes). */
    conditions("paris and age > x (tiny bloom) and score < 4 (tiny bloom, shared)", 3, city("paris"), NULL,
      age(jt_age(5)), "compare=gt,strategy=bloom,count=3,bloom_bit_count=2,bloom_hash_count=2", score(4),
      "compare=lt,strategy=bloom,count=3,bloom_bit_count=3,bloom_hash_count=3");
    conditions("score >= 9 and rome (tiny bloom)", 2, score(9), "compare=ge", city("rome"),
      "strategy=bloom,count=1,bloom_bit_count=5,bloom_hash_count=2");
    /* Bloom without count: refused. */
    conditions(NULL, 1, city("lima"), "strategy=bloom");
}

/*
 * Conditions or-ed: each entry is iterated in turn (the reference returns a row meeting two
 * twice, and the rows its iteration of one passes that meet a later one; unlatched once).
 */
static void
disjunctions(void)
{
    conditions("rome or age < x", 2, city("rome"), "operation=or", age(jt_age(2)), "operation=or,compare=lt");
    /* Two eq ends of one index, the first after the second: the reference misses oslo's rows. */
    conditions("paris or oslo", 2, city("paris"), "operation=or", city("oslo"), "operation=or");
    conditions("oslo or rome or age > x", 3, city("oslo"), "operation=or", city("rome"), "operation=or",
      age(jt_age(4)), "operation=or,compare=gt");
    /* Mixing and with or is refused. */
    conditions(NULL, 2, city("oslo"), "operation=or", age(jt_age(4)), "operation=and");
}

/* Conditions on the primary key (table cursors joined). */
static void
primary(void)
{
    conditions("id in [5, 12) and oslo", 3, row(5), "compare=ge", row(12), "compare=lt", city("oslo"), NULL);
    conditions("tokyo and id > 10 (bloom)", 2, city("tokyo"), NULL, row(10), "compare=gt,strategy=bloom,count=30");
    /* (Not a lone le/lt on the primary key: the reference crashes preparing it.) */
    conditions("id >= 27 or paris", 2, row(27), "compare=ge,operation=or", city("paris"), "operation=or");
}

/* An index whose keys an extractor makes (two per row). */
static void
extracted(void)
{
    conditions("ext = 7", 1, ext(7), NULL);
    conditions("paris and ext >= 12", 2, city("paris"), NULL, ext(12), "compare=ge");
    conditions("oslo and ext < 5 (bloom)", 2, city("oslo"), NULL, ext(5), "compare=lt,strategy=bloom,count=40");
    conditions("ext > 10 and rome", 2, ext(10), "compare=gt", city("rome"), NULL);
}

/* Join cursors nested in others, iterated first and checked later. */
static void
nested(void)
{
    WT_CURSOR *c[5];

    c[0] = join_cursor("join:table:p(name)");
    c[1] = join_cursor("join:table:p");
    c[2] = city("oslo");
    c[3] = city("tokyo");
    c[4] = age(jt_age(6));
    join(c[1], c[2], "operation=or");
    join(c[1], c[3], "operation=or");
    join(c[0], c[1], NULL);
    join(c[0], c[4], "compare=lt");
    rows("(oslo or tokyo) and age < x", c[0]);
    fprintf(out, "the nested join's own:\n");
    stats(c[1]);
    close_all(c, 5);

    c[0] = join_cursor("join:table:p");
    c[1] = join_cursor("join:table:p");
    c[2] = age(jt_age(8));
    c[3] = score(2);
    c[4] = city("paris");
    join(c[1], c[2], "compare=ge");
    join(c[1], c[3], "compare=gt");
    join(c[0], c[4], NULL);
    join(c[0], c[1], NULL);
    rows("paris and (age >= x and score > y)", c[0]);
    /* Nested joins take no compare, count or strategy. */
    join(c[0], c[1], "compare=gt");
    close_all(c, 5);
}

/* No rows; statistics before and after iterating; reset; the statistics cursor's moves. */
static void
edges(void)
{
    WT_CURSOR *c[3], *extra, *st;
    const char *desc, *pv;
    int64_t v;
    int key;

    c[0] = join_cursor("join:table:p(name)");
    c[1] = age(67);
    join(c[0], c[1], "compare=gt");
    rows("age > 67 (none)", c[0]);
    close_all(c, 2);

    c[0] = join_cursor("join:table:p(name)");
    c[1] = city("tokyo");
    c[2] = age(jt_age(1));
    join(c[0], c[1], NULL);
    join(c[0], c[2], "compare=eq");
    fprintf(out, "before next:\n");
    stats(c[0]);
    rows("tokyo and age = x", c[0]);
    /* After WT_NOTFOUND the next next starts over; reset too. */
    rows("again", c[0]);
    fprintf(out, "next: %d\n", c[0]->next(c[0]));
    fprintf(out, "reset: %d\n", c[0]->reset(c[0]));
    stats(c[0]);
    rows("after reset", c[0]);

    /*
     * Joined after iterating: accepted, as the reference, and the new entry is checked as it
     * is, never prepared (no filter). Not compared: the reference then compares with an
     * empty key (it reads the cursors' keys only when preparing), so every row passes.
     */
    extra = score(2);
    join(c[0], extra, "compare=ge,strategy=bloom,count=10");

    /* prev walks the sets backwards; search finds a key in the set entered. */
    OK(s->open_cursor(s, "statistics:join", c[0], NULL, &st));
    while (st->prev(st) == 0) {
        OK(st->get_key(st, &key));
        OK(st->get_value(st, &desc, &pv, &v));
        fprintf(out, "  prev %d %s = %" PRId64 "\n", key, desc, v);
    }
    OK(st->reset(st));
    OK(st->next(st));
    OK(st->next(st));
    st->set_key(st, WT_STAT_JOIN_ITERATED);
    fprintf(out, "search: %d\n", st->search(st));
    OK(st->get_value(st, &desc, &pv, &v));
    fprintf(out, "  %s = %" PRId64 "\n", desc, v);
    st->set_key(st, WT_STAT_JOIN_ITERATED + 1);
    fprintf(out, "search past: %d\n", st->search(st));
    OK(st->close(st));
    close_all(c, 3);
    OK(extra->close(extra));
}

/* A cursor used in a join serves it only, until the join cursor closes. */
static void
joined(void)
{
    WT_CURSOR *c[3];
    const char *name, *where;
    uint32_t years, points;
    uint64_t id;
    int exact;

    c[0] = join_cursor("join:table:p(name)");
    c[1] = city("lima");
    c[2] = join_cursor("join:table:p");
    join(c[0], c[1], NULL);
    rows("lima", c[0]);
    /* (After iterating: the reference's join reads the cursor's position lazily.) */
    fprintf(out, "joined get_key: %d\n", c[1]->get_key(c[1], &where));
    fprintf(out, "joined get_value: %d\n", c[1]->get_value(c[1], &name, &where, &years, &points));
    fprintf(out, "joined next: %d\n", c[1]->next(c[1]));
    fprintf(out, "joined prev: %d\n", c[1]->prev(c[1]));
    fprintf(out, "joined search: %d\n", c[1]->search(c[1]));
    fprintf(out, "joined search_near: %d\n", c[1]->search_near(c[1], &exact));
    fprintf(out, "joined reset: %d\n", c[1]->reset(c[1]));
    join(c[2], c[1], NULL);
    /* A nested join cursor is joined too. */
    join(c[2], age(jt_age(3)), "compare=ge");
    join(c[0], c[2], NULL);
    fprintf(out, "nested next: %d\n", c[2]->next(c[2]));
    OK(c[0]->close(c[0]));
    fprintf(out, "after the join closed, next: %d\n", c[1]->next(c[1]));
    OK(c[1]->get_key(c[1], &where));
    fprintf(out, "  %s\n", where);
    (void)id;
    OK(c[1]->close(c[1]));
    OK(c[2]->close(c[2]));
}

static void
errors(void)
{
    WT_CURSOR *j, *t, *st;
    int ret;

    ret = s->open_cursor(s, "statistics:join", NULL, NULL, &st);
    fprintf(out, "statistics:join without a cursor: %d\n", ret);
    OK(s->open_cursor(s, "table:p", NULL, NULL, &t));
    ret = s->open_cursor(s, "statistics:join", t, NULL, &st);
    fprintf(out, "statistics:join of a table cursor: %d\n", ret);
    j = join_cursor("join:table:p");
    ret = s->open_cursor(s, "statistics:table:p", j, NULL, &st);
    fprintf(out, "statistics:table:p with a join cursor: %d\n", ret);
    OK(s->open_cursor(s, "statistics:join", j, NULL, &st));
    fprintf(out, "statistics of a join with no conditions: %d\n", st->next(st));
    OK(st->close(st));
    fprintf(out, "duplicating a join cursor: %d\n", s->open_cursor(s, NULL, j, NULL, &st));
    fprintf(out, "a join URI and a join cursor: %d\n", s->open_cursor(s, "join:table:p", j, NULL, &st));
    fprintf(out, "next with no conditions: %d\n", j->next(j));
    fprintf(out, "prev: %d\n", j->prev(j));
    OK(j->close(j));
    OK(t->close(t));
}

/* The file beside this source with extension `ext`. */
static void
beside(char *buf, size_t len, const char *ext)
{
    size_t at;

    snprintf(buf, len, "%s", __FILE__);
    at = strlen(buf) - 2;
    snprintf(buf + at, len - at, "%s", ext);
}

/* The lines that differ from the reference on purpose: "LINE<TAB>what unlatched prints<TAB>why". */
#define MAX_EXPECTED 32
static struct {
    int line;
    char text[1024];
} expected[MAX_EXPECTED];
static int n_expected;

static void
load_expected(void)
{
    FILE *f;
    char path[512], buf[2048], *text, *why;

    beside(path, sizeof(path), ".expected");
    f = fopen(path, "r");
    CHECK(f != NULL);
    while (f != NULL && fgets(buf, sizeof(buf), f) != NULL) {
        if (buf[0] == '#' || buf[0] == '\n')
            continue;
        text = strchr(buf, '\t');
        why = text == NULL ? NULL : strchr(text + 1, '\t');
        CHECK(why != NULL && n_expected < MAX_EXPECTED);
        if (why == NULL || n_expected == MAX_EXPECTED)
            break;
        *why = '\0';
        expected[n_expected].line = atoi(buf);
        snprintf(expected[n_expected].text, sizeof(expected[0].text), "%s\n", text + 1);
        n_expected++;
    }
    if (f != NULL)
        fclose(f);
}

/* The listed text of line `n`, NULL when it is not listed. */
static const char *
expected_at(int n)
{
    int i;

    for (i = 0; i < n_expected; i++)
        if (expected[i].line == n)
            return (expected[i].text);
    return (NULL);
}

int
main(int argc, char *argv[])
{
    WT_CONNECTION *conn;
    FILE *want;
    char home[512], path[512], *got, line[1024], wline[1024];
    const char *listed;
    size_t got_len;
    int record, n, i;

    record = argc > 1 && strcmp(argv[1], "--record") == 0;
    ul_mkhome("join_stats", home, sizeof(home));
    OK(wiredtiger_open(home, NULL, "create,statistics=(fast)", &conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    out = open_memstream(&got, &got_len);
    jt_load(conn, s);
    single();
    ranges();
    conjunctions();
    disjunctions();
    primary();
    extracted();
    nested();
    edges();
    joined();
    errors();
    fclose(out);
    OK(conn->close(conn, NULL));
    ul_rmhome(home);

    beside(path, sizeof(path), ".ref");
    if (record) {
        want = fopen(path, "w");
        CHECK(want != NULL);
        if (want != NULL) {
            fputs(got, want);
            fclose(want);
        }
    } else {
        /* Line by line: the first unexpected difference is shown. */
        load_expected();
        want = fopen(path, "r");
        CHECK(want != NULL);
        out = fmemopen(got, got_len, "r");
        for (n = 1; want != NULL; n++) {
            char *a = fgets(wline, sizeof(wline), want), *b = fgets(line, sizeof(line), out);
            if (a == NULL && b == NULL)
                break;
            if (a != NULL && b != NULL && (listed = expected_at(n)) != NULL) {
                CHECK_STR(line, listed);
                CHECK(strcmp(line, wline) != 0);
                if (strcmp(line, listed) != 0 || strcmp(line, wline) == 0)
                    fprintf(stderr, "join_stats.expected: line %d %s\n", n,
                      strcmp(line, wline) == 0 ? "matches the reference now: unlist it" : "differs");
                continue;
            }
            CHECK_STR(b == NULL ? "(end)\n" : line, a == NULL ? "(end)\n" : wline);
            if (a == NULL || b == NULL || strcmp(line, wline) != 0) {
                fprintf(stderr, "join_stats.ref:%d differs\n", n);
                break;
            }
        }
        /* Every listed line is in the transcript. */
        for (i = 0; i < n_expected; i++)
            CHECK(expected[i].line > 0 && expected[i].line < n);
        if (want != NULL)
            fclose(want);
        fclose(out);
    }
    free(got);
    return (ul_done("join_stats"));
}
