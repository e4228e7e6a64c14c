/*
 * Random joins compared with the documented contract of WT_SESSION::join, worked out row by row:
 * every row meeting the conditions, each once (join_stats.c compares with the reference, which
 * loses rows and returns some twice, see join_stats.expected). A 30-row table with indices on
 * city, age and score, one a custom extractor makes (two keys per row: score and score + 3),
 * and the primary key; joins of one to three members, `and` or `or`, a member a condition
 * (eq, ge, gt, le, lt; bloom filters, tiny ones with false positives) or a nested join of two.
 * Conditions on one index of a join cursor make one entry: with `and` one index key of a row
 * must meet them all (an extractor's index holds several), with `or` one of them.
 *
 *   join_random [CASES [SEED]]   (default 20000 cases, seed 1)
 */
#include "join_table.h"

#include <stdlib.h>

#define EXT 4 /* the column number of the extractor's index */

static WT_SESSION *s;
static const char *compares[] = {"eq", "ge", "gt", "le", "lt"};
static const char *uris[] = {"index:p:city", "index:p:age", "index:p:score", "table:p", "index:p:ext"};
static uint64_t rng;

static int
pick(int n)
{
    return ((int)(ul_rand(&rng) % (uint64_t)n));
}

/* A condition: column (city, age, score, primary key, extractor), comparison, the key of `ref`. */
struct cond {
    int col, compare, ref, ext_plus; /* ext_plus: the extractor's key score + 3 of ref */
};

static int
order(long a, long b)
{
    return ((a > b) - (a < b));
}

/* The keys of row `id` on the condition's index (one, two for the extractor's), and the ref's. */
static int
keys_of(const struct cond *c, int id, long *keys, long *ref)
{
    switch (c->col) {
    case 0:
        keys[0] = strcmp(jt_city(id), jt_city(c->ref)); /* compared with ref's: 0 there */
        *ref = 0;
        return (1);
    case 1:
        keys[0] = jt_age(id);
        *ref = jt_age(c->ref);
        return (1);
    case 2:
        keys[0] = jt_score(id);
        *ref = jt_score(c->ref);
        return (1);
    case 3:
        keys[0] = id;
        *ref = c->ref;
        return (1);
    default:
        keys[0] = jt_score(id);
        keys[1] = jt_score(id) + 3;
        *ref = jt_score(c->ref) + (c->ext_plus ? 3 : 0);
        return (2);
    }
}

static int
meets_key(const struct cond *c, long key, long ref)
{
    int r = order(key, ref);

    switch (c->compare) {
    case 0:
        return (r == 0);
    case 1:
        return (r >= 0);
    case 2:
        return (r > 0);
    case 3:
        return (r <= 0);
    default:
        return (r < 0);
    }
}

/*
 * Whether row `id` meets the `n` conditions of one join cursor, and-ed or or-ed: those on one
 * index are one entry, which with `and` one of the row's keys meets entirely.
 */
static int
meets(const struct cond *c, int n, int or, int id)
{
    long keys[2], ref;
    int i, j, k, nk, all, any_key;

    for (i = 0; i < n; i++) {
        int first = 1, met = 0;
        for (j = 0; j < i; j++)
            if (c[j].col == c[i].col)
                first = 0;
        if (!first)
            continue;
        /* The entry of c[i]'s index: the conditions j >= i on it. */
        nk = keys_of(&c[i], id, keys, &ref);
        for (k = 0; k < nk && !met; k++) {
            all = 1;
            any_key = 0;
            for (j = i; j < n; j++) {
                if (c[j].col != c[i].col)
                    continue;
                keys_of(&c[j], id, keys, &ref);
                if (meets_key(&c[j], keys[k], ref))
                    any_key = 1;
                else
                    all = 0;
            }
            met = or ? any_key : all;
        }
        if (or && met)
            return (1);
        if (!or && !met)
            return (0);
    }
    return (!or);
}

static WT_CURSOR *
positioned(const struct cond *c)
{
    WT_CURSOR *x;

    OK(s->open_cursor(s, uris[c->col], NULL, NULL, &x));
    switch (c->col) {
    case 0:
        x->set_key(x, jt_city(c->ref));
        break;
    case 1:
        x->set_key(x, jt_age(c->ref));
        break;
    case 2:
        x->set_key(x, jt_score(c->ref));
        break;
    case 3:
        x->set_key(x, (uint64_t)c->ref);
        break;
    default:
        x->set_key(x, jt_score(c->ref) + (c->ext_plus ? 3 : 0));
        break;
    }
    OK(x->search(x));
    return (x);
}

static void
random_condition(struct cond *c)
{
    c->col = pick(5);
    c->compare = pick(5);
    c->ref = 1 + pick(JT_ROWS);
    c->ext_plus = c->col == EXT && pick(2);
    /* (Not a lone le/lt on the primary key: the reference crashes preparing it.) */
    if (c->col == 3 && c->compare >= 3)
        c->compare = 1;
}

int
main(int argc, char *argv[])
{
    WT_CONNECTION *conn;
    WT_CURSOR *top, *sub[3], *refs[8];
    struct cond members[3], nested[3][2];
    uint64_t key;
    int cases, id, i, m, k, nmembers, nrefs, or, sub_or[3], failed, ret, tested, bad;
    int count[JT_ROWS + 1];
    char home[512], config[128];

    cases = argc > 1 ? atoi(argv[1]) : 20000;
    rng = argc > 2 ? (uint64_t)strtoull(argv[2], NULL, 10) : 1;
    ul_mkhome("join_random", home, sizeof(home));
    OK(wiredtiger_open(home, NULL, "create", &conn));
    OK(conn->open_session(conn, NULL, NULL, &s));
    jt_load(conn, s);

    tested = bad = 0;
    for (i = 0; i < cases; i++) {
        nmembers = 1 + pick(3);
        or = pick(2);
        nrefs = failed = 0;
        OK(s->open_cursor(s, "join:table:p", NULL, NULL, &top));
        for (m = 0; m < 3; m++)
            sub[m] = NULL;
        /* A member is a condition (col >= 0) or a nested join of two (col -1). */
        for (m = 0; m < nmembers && !failed; m++) {
            if (pick(3) == 0) {
                members[m].col = -1;
                sub_or[m] = pick(2);
                OK(s->open_cursor(s, "join:table:p", NULL, NULL, &sub[m]));
                for (k = 0; k < 2 && !failed; k++) {
                    random_condition(&nested[m][k]);
                    refs[nrefs] = positioned(&nested[m][k]);
                    snprintf(config, sizeof(config), "compare=%s,operation=%s",
                      compares[nested[m][k].compare], sub_or[m] ? "or" : "and");
                    failed = s->join(s, sub[m], refs[nrefs++], config) != 0;
                }
                failed = failed || s->join(s, top, sub[m], or ? "operation=or" : NULL) != 0;
            } else {
                random_condition(&members[m]);
                refs[nrefs] = positioned(&members[m]);
                snprintf(config, sizeof(config), "compare=%s,operation=%s%s", compares[members[m].compare],
                  or ? "or" : "and",
                  pick(3) != 0 ? "" :
                    pick(2) ? ",strategy=bloom,count=30" :
                              ",strategy=bloom,count=3,bloom_bit_count=2,bloom_hash_count=2");
                failed = s->join(s, top, refs[nrefs++], config) != 0;
            }
        }
        /* Refused joins (overlapping ranges, eq with and, bloom settings that differ) are left. */
        if (!failed) {
            tested++;
            memset(count, 0, sizeof(count));
            while ((ret = top->next(top)) == 0) {
                OK(top->get_key(top, &key));
                CHECK(key >= 1 && key <= JT_ROWS);
                if (key >= 1 && key <= JT_ROWS)
                    count[key]++;
            }
            CHECK_RC(ret, WT_NOTFOUND);
            for (id = 1; id <= JT_ROWS; id++) {
                int want = !or, met;
                struct cond plain[3];
                int nplain = 0;
                for (m = 0; m < nmembers; m++) {
                    if (members[m].col >= 0) {
                        plain[nplain++] = members[m];
                        continue;
                    }
                    met = meets(nested[m], 2, sub_or[m], id);
                    want = or ? want || met : want && met;
                }
                if (nplain > 0) {
                    met = meets(plain, nplain, or, id);
                    want = or ? want || met : want && met;
                }
                if (count[id] != want) {
                    if (bad++ < 10)
                        fprintf(stderr, "case %d: row %d returned %d times, not %d\n", i, id, count[id], want);
                    break;
                }
            }
        }
        OK(top->close(top));
        for (m = 0; m < 3; m++)
            if (sub[m] != NULL)
                OK(sub[m]->close(sub[m]));
        for (k = 0; k < nrefs; k++)
            OK(refs[k]->close(refs[k]));
    }
    printf("join_random: %d joins, %d refused, %d wrong\n", tested, cases - tested, bad);
    CHECK(bad == 0);
    CHECK(tested > cases / 2);
    OK(conn->close(conn, NULL));
    ul_rmhome(home);
    return (ul_done("join_random"));
}
