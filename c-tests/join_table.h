/*
 * The table of the join tests (join_stats.c, join_random.c): table:p, 30 rows (id 1-30, name
 * nNN, city of 5, age 10-69, score 0-16), with indices on city, age and score, and index:p:ext,
 * whose keys the custom extractor "pair" makes: two per row, its score and its score + 3.
 */
#ifndef JOIN_TABLE_H
#define JOIN_TABLE_H

#include "util.h"

#define JT_ROWS 30

static inline const char *
jt_city(uint64_t id)
{
    static const char *cities[] = {"lima", "oslo", "paris", "rome", "tokyo"};

    return (cities[(id * 7) % 5]);
}

static inline uint32_t
jt_age(uint64_t id)
{
    return ((uint32_t)((id * 37) % 60 + 10));
}

static inline uint32_t
jt_score(uint64_t id)
{
    return ((uint32_t)((id * 13) % 17));
}

/* The extractor of index:p:ext. */
static inline int
jt_pair(WT_EXTRACTOR *x, WT_SESSION *session, const WT_ITEM *key, const WT_ITEM *value, WT_CURSOR *result)
{
    const char *name, *where;
    uint32_t years, points;
    int ret;

    (void)x;
    (void)key;
    if ((ret = wiredtiger_struct_unpack(session, value->data, value->size, "SSII", &name, &where, &years, &points)) != 0)
        return (ret);
    result->set_key(result, points);
    if ((ret = result->insert(result)) != 0)
        return (ret);
    result->set_key(result, points + 3);
    return (result->insert(result));
}

/* Registers the extractor with `conn` and creates and fills the table in `s`. */
static inline void
jt_load(WT_CONNECTION *conn, WT_SESSION *s)
{
    static WT_EXTRACTOR pair_extractor = {jt_pair, NULL, NULL};
    WT_CURSOR *c;
    char name[16];
    uint64_t id;

    OK(conn->add_extractor(conn, "pair", &pair_extractor, NULL));
    OK(s->create(s, "table:p", "key_format=r,value_format=SSII,columns=(id,name,city,age,score)"));
    OK(s->create(s, "index:p:city", "columns=(city)"));
    OK(s->create(s, "index:p:age", "columns=(age)"));
    OK(s->create(s, "index:p:score", "columns=(score)"));
    OK(s->create(s, "index:p:ext", "key_format=I,extractor=pair"));
    OK(s->open_cursor(s, "table:p", NULL, NULL, &c));
    for (id = 1; id <= JT_ROWS; id++) {
        snprintf(name, sizeof(name), "n%02d", (int)id);
        c->set_key(c, id);
        c->set_value(c, name, jt_city(id), jt_age(id), jt_score(id));
        OK(c->insert(c));
    }
    OK(c->close(c));
}

#endif
